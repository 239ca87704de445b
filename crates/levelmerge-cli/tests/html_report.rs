//! `levelmerge diff --html` in a real headless browser: the page the user opens shows the
//! hierarchy, the counts and the property tables, and its filter hides what does not match.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use levelmerge_testutils::browser::{self, file_url};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/castle").join(name)
}

/// The report between the example's base and theirs, written to a temporary directory.
fn report(dir: &Path) -> PathBuf {
    let page = dir.join("report.html");
    Command::cargo_bin("levelmerge")
        .unwrap()
        .args(["diff", "--html", "-o"])
        .arg(&page)
        .args([example("base.json"), example("theirs.json")])
        .assert()
        .code(1);
    page
}

/// The text of the elements of `dom` with `id="…"` (the report's own markup is simple).
fn text_of(dom: &str, id: &str) -> String {
    let start = dom.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("no #{id} in the page"));
    let open = start + dom[start..].find('>').unwrap() + 1;
    dom[open..open + dom[open..].find('<').unwrap()].to_owned()
}

#[test]
fn the_report_shows_objects_counts_and_tables() {
    let Some(browser) = browser::require("the_report_shows_objects_counts_and_tables") else { return };
    let dir = tempfile::tempdir().unwrap();
    let page = report(dir.path());
    let dom = browser.dom(&file_url(&page));
    assert_eq!(text_of(&dom, "count-added"), "1 added");
    assert_eq!(text_of(&dom, "count-changed"), "4 changed");
    assert_eq!(text_of(&dom, "shown"), "5 of 5 objects shown");
    for shown in ["Main Gate", "Gate Key", "[door]", "lighting.sun_angle"] {
        assert!(dom.contains(shown), "{shown} is not on the page");
    }
    // The old and new value of a property sit in their own cells.
    assert!(dom.contains("<td class=\"val old\">\"Gate\"</td><td class=\"val new\">\"Main Gate\"</td>"), "{dom}");
    // Nothing was fetched: the page is self-contained.
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("http://") && !html.contains("https://"), "the page refers to the network");
    let png = browser.screenshot(&file_url(&page), &dir.path().join("shot.png"));
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "the screenshot is empty");
}

#[test]
fn the_filter_hides_what_does_not_match() {
    let Some(browser) = browser::require("the_filter_hides_what_does_not_match") else { return };
    let dir = tempfile::tempdir().unwrap();
    let page = report(dir.path());
    let dom = browser.dom(&format!("{}#filter=guard", file_url(&page)));
    assert_eq!(text_of(&dom, "shown"), "1 of 5 objects shown");
    let section = |name: &str| {
        let at = dom.find(&format!("<span class=\"name\">{name}</span>")).unwrap_or_else(|| panic!("no {name}"));
        let open = dom[..at].rfind("<details").unwrap();
        dom[open..at].to_owned()
    };
    assert!(!section("Guard").contains("hidden"), "the match is hidden");
    assert!(section("Main Gate").contains("hidden"), "a non-match is shown");
}
