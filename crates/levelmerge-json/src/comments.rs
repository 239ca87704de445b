//! Comments, which JSON files may hold as trivia and SJSON files do: values are compared by
//! meaning, which leaves comments out, so a merge of objects could drop one a side wrote (a
//! side that only wrote a comment changed nothing there, and the other side's container is
//! taken). Such a merge is found by its result and refused: it is made by lines instead.

use levelmerge_core::model::ObjectId;
use levelmerge_core::{Problem, Side, Sides};
use rustc_hash::FxHashMap;

use crate::Dialect;

/// A comment a version holds that no side removed and `merged` lacks: the version holding it,
/// with the comment and its line. `None` when every such comment is kept (or none is written).
pub fn dropped(merged: &[u8], versions: Sides<&[u8]>, dialect: impl Fn(&[u8]) -> Dialect) -> Option<(Side, Problem)> {
    let holds = |text: &[u8]| may_hold_comments(text, dialect(text));
    if !(holds(versions.base) || holds(versions.ours) || holds(versions.theirs)) {
        return None;
    }
    let found = versions.map(|_, text| comments(text, dialect(text)));
    let counted = Sides::new(counts(&found.base), counts(&found.ours), counts(&found.theirs));
    let kept = counts(&comments(merged, dialect(merged)));
    for side in [Side::Ours, Side::Theirs] {
        for &(at, comment) in found.get(side) {
            let key = without_carriage_returns(comment);
            let count = |c: &FxHashMap<Vec<u8>, usize>| c.get(&key).copied().unwrap_or(0);
            let (base, ours, theirs) = (count(&counted.base), count(&counted.ours), count(&counted.theirs));
            // Where a side wrote it fewer times than base, it removed one: it need not stay.
            let required = if ours >= base && theirs >= base { ours.max(theirs) } else { 0 };
            if count(&kept) < required {
                let text = versions.get(side);
                let line = 1 + memchr::memchr_iter(b'\n', &text[..at]).count();
                let message = format!("the merge of objects would drop the comment `{}`", String::from_utf8_lossy(comment));
                return Some((side, Problem::Inconsistent { object: ObjectId::new(crate::lower::ROOT_ID), message, line }));
            }
        }
    }
    None
}

/// How many times each comment is written, line ends aside (a side that only rewrote line
/// ends, which the merge follows, changed no block comment spanning lines).
fn counts(list: &[(usize, &[u8])]) -> FxHashMap<Vec<u8>, usize> {
    let mut counted = FxHashMap::default();
    for &(_, comment) in list {
        *counted.entry(without_carriage_returns(comment)).or_insert(0) += 1;
    }
    counted
}

fn without_carriage_returns(comment: &[u8]) -> Vec<u8> {
    comment.iter().copied().filter(|&b| b != b'\r').collect()
}

/// Whether `text` may hold a comment: a `//` or `/*` outside a string. A JSON string ends on
/// its line, so a mark is told to be in one by the quotes before it on its line; an SJSON raw
/// string may span lines, so there any mark may start a comment.
fn may_hold_comments(text: &[u8], dialect: Dialect) -> bool {
    memchr::memchr_iter(b'/', text)
        .any(|at| matches!(text.get(at + 1), Some(b'/' | b'*')) && (dialect == Dialect::Sjson || !inside_a_string_of_its_line(text, at)))
}

fn inside_a_string_of_its_line(text: &[u8], at: usize) -> bool {
    let start = memchr::memrchr(b'\n', &text[..at]).map_or(0, |n| n + 1);
    let (mut inside, mut escaped) = (false, false);
    for &b in &text[start..at] {
        match b {
            _ if escaped => escaped = false,
            b'\\' if inside => escaped = true,
            b'"' => inside = !inside,
            _ => {}
        }
    }
    inside
}

/// Every comment of `text`, as its reading finds them, with where it starts: a line comment
/// without its line end (or trailing spaces), a block comment whole. None in a text that
/// does not read (every version of a merge, and its result, reads).
pub fn comments(text: &[u8], dialect: Dialect) -> Vec<(usize, &[u8])> {
    let spans = crate::parse::comment_spans(text, dialect).unwrap_or_default();
    spans.into_iter().map(|(start, end)| (start, text[start..end].trim_ascii_end())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_found_outside_strings_only() {
        let text = b"{\"url\": \"https://a/*b*/\", // one\r\n \"a\\\"//\": 1 /* two */}";
        let found: Vec<&[u8]> = comments(text, Dialect::Json).into_iter().map(|(_, c)| c).collect();
        assert_eq!(found, [&b"// one"[..], &b"/* two */"[..]]);
        assert!(may_hold_comments(text, Dialect::Json));
        assert!(!may_hold_comments(b"{\"url\": \"https://a/*b*/\"}", Dialect::Json));
        let raw = b"a = \"\"\"x\n// not one\n\"\"\"\nb = 1 // three\n";
        let found: Vec<&[u8]> = comments(raw, Dialect::Sjson).into_iter().map(|(_, c)| c).collect();
        assert_eq!(found, [&b"// three"[..]]);
        // A mark inside an SJSON member name written bare is part of the name; after a
        // number, it starts a comment.
        let bare = b"a/*b = 1\nc//d = 2// four\n";
        let found: Vec<(usize, &[u8])> = comments(bare, Dialect::Sjson);
        assert_eq!(found, [(17, &b"// four"[..])]);
    }

    #[test]
    fn a_comment_a_side_wrote_must_stay_unless_a_side_removed_it() {
        let sides = |b: &'static str, o: &'static str, t: &'static str| Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes());
        let sjson = |_: &[u8]| Dialect::Sjson;
        let (side, problem) = dropped(b"a = 2\n", sides("a = 1\n", "// why\na = 1\n", "a = 2\n"), sjson).unwrap();
        assert_eq!(side, Side::Ours);
        assert_eq!(problem.line(), Some(1));
        assert!(problem.to_string().contains("`// why`"), "{problem}");
        assert!(dropped(b"// why\na = 2\n", sides("a = 1\n", "// why\na = 1\n", "a = 2\n"), sjson).is_none());
        // Removed by theirs: it may go.
        assert!(dropped(b"a = 2\n", sides("// old\na = 1\n", "// old\na = 1\n", "a = 2\n"), sjson).is_none());
        // Kept by both: it must stay.
        assert_eq!(dropped(b"a = 2\n", sides("// old\na = 1\n", "// old\na = 1\n", "// old\na = 2\n"), sjson).unwrap().0, Side::Ours);
        // A block comment over lines, written with other line ends, is the same comment.
        let crlf = "/* two\r\nlines */\r\na = 2\r\n";
        let merged = b"/* two\nlines */\na = 2\n";
        assert!(dropped(merged, sides("/* two\nlines */\na = 1\n", "/* two\nlines */\na = 1\n", crlf), sjson).is_none());
    }
}
