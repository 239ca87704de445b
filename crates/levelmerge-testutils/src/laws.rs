//! The merge laws on one generated triple, an independent check of a clean result, and the
//! side views of a marked text, for the tests of every codec.

use levelmerge_core::regions::{self, conflict_regions};
use levelmerge_core::{merge_texts, Codec, MergeOutcome, Options, Side, Sides};

/// Merge `x` and `y` made from `b`, after checking the laws on them: merge(b,x,b) = x,
/// merge(b,b,y) = y and merge(b,x,x) = x byte for byte and clean, and swapping the sides
/// leaves as many conflicts open. The error names the law broken, with the texts.
pub fn merge_keeping_the_laws<C>(codec: &C, b: &str, x: &str, y: &str) -> Result<MergeOutcome, String>
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    let merge = |o: &str, t: &str| {
        merge_texts(codec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &Default::default())
            .map_err(|e| format!("merge failed: {e}\nbase:\n{b}\nours:\n{o}\ntheirs:\n{t}"))
    };
    for (law, (o, t), want) in [("merge(b,x,b) = x", (x, b), x), ("merge(b,b,y) = y", (b, y), y), ("merge(b,x,x) = x", (x, x), x)] {
        let m = merge(o, t)?;
        if m.open_conflicts != 0 || m.text != want.as_bytes() {
            return Err(format!("{law} broken:\n{}\nbase:\n{b}\nx:\n{x}\ny:\n{y}", String::from_utf8_lossy(&m.text)));
        }
    }
    let (merged, swapped) = (merge(x, y)?, merge(y, x)?);
    if merged.open_conflicts != swapped.open_conflicts {
        return Err(format!(
            "swapping sides changed the conflicts: {} and {}\nbase:\n{b}\nx:\n{x}\ny:\n{y}",
            merged.open_conflicts, swapped.open_conflicts
        ));
    }
    Ok(merged)
}

/// Whether the merge of `x` and `y` made from `b`, when clean, passes `check` (an independent
/// account of what the editor needs, written by the test): an error names what it found and
/// shows the texts. The versions must pass it too (else the generator is wrong); a merge left
/// with conflicts, or refused, is not checked.
pub fn clean_merge_passes<C>(codec: &C, b: &str, x: &str, y: &str, check: impl Fn(&str) -> Vec<String>) -> Result<(), String>
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    for version in [b, x, y] {
        let problems = check(version);
        if !problems.is_empty() {
            return Err(format!("a generated version fails the check: {problems:?}\n{version}"));
        }
    }
    match merge_texts(codec, Sides::new(b.as_bytes(), x.as_bytes(), y.as_bytes()), &Options::default(), &Default::default()) {
        Ok(merged) => clean_result_passes(&merged, b, x, y, check),
        Err(_) => Ok(()),
    }
}

/// Whether `merged`, the merge of `x` and `y` made from `b`, when clean, passes `check`: an
/// error names what it found and shows the texts. A merge left with conflicts is not checked.
pub fn clean_result_passes(merged: &MergeOutcome, b: &str, x: &str, y: &str, check: impl Fn(&str) -> Vec<String>) -> Result<(), String> {
    if merged.open_conflicts > 0 {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&merged.text);
    let problems = check(&text);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{problems:?}\nbase:\n{b}\nours:\n{x}\ntheirs:\n{y}\nmerged:\n{text}"))
    }
}

/// `text` with every conflict region taken from `side` (the markers must be well formed).
pub fn side_view(text: &str, side: Side) -> String {
    let regions = conflict_regions(text.as_bytes()).expect("well-formed conflict markers");
    String::from_utf8(regions::side_view(text.as_bytes(), &regions, side).expect("a side to take")).expect("UTF-8")
}

/// `"{what} {item} twice"` for each item that comes again in `items` (for the tests' own
/// checks of identities an editor needs once).
pub fn repeated<T: PartialEq + std::fmt::Display>(what: &str, items: &[T]) -> Vec<String> {
    items.iter().enumerate().filter(|(i, item)| items[..*i].contains(item)).map(|(_, item)| format!("{what} {item} twice")).collect()
}
