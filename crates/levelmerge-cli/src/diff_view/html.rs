//! `levelmerge diff --html`: one self-contained page (no network) with a collapsible
//! hierarchy, old/new property tables per object, a filter box and counts. The page is
//! built in the browser from the same JSON `--json` prints, embedded in it.

use serde_json::{json, Value};

const TEMPLATE: &str = include_str!("../../assets/diff.html");
const SLOT: &str = "/*LEVELMERGE_DATA*/";

/// The page for `diff` (a `--json` document) between the files named `old` and `new`.
pub fn page(diff: &Value, old: &str, new: &str) -> String {
    let data = json!({ "old": old, "new": new, "diff": diff }).to_string();
    // Inside <script>, `</script>` or `<!--` in a level's text must not end the data.
    let data = data.replace('<', "\\u003c");
    TEMPLATE.replacen(SLOT, &data, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_cannot_close_the_script() {
        let diff = json!({"mode": "semantic", "objects": [{"path": ["</script><b>x"]}]});
        let page = page(&diff, "a", "b");
        assert!(!page.contains("</script><b>"));
        assert!(page.contains("\\u003c/script>\\u003cb>x"));
        assert_eq!(page.matches("</script>").count(), 2, "the template's two scripts only");
    }
}
