//! Replaying what the fuzz targets found, and damaging a sample file, for each codec's
//! robustness test.

use std::path::Path;

/// Runs every input of `dir` through its property: files named `parse-…` through `parse`,
/// the others (three versions cut at `0xFF`) through `merge`. Fails when the folder holds
/// fewer than `at_least` inputs, so that a lost folder cannot pass unnoticed.
pub fn replay_regressions(dir: &Path, at_least: usize, parse: impl Fn(&[u8]), merge: impl Fn(&[u8])) {
    let inputs = regressions_named(dir, "");
    for (name, data) in &inputs {
        if name.starts_with("parse-") {
            parse(data);
        } else {
            merge(data);
        }
    }
    assert!(inputs.len() >= at_least, "the regression inputs are missing from {}", dir.display());
}

/// The property of the splice fuzz targets: three versions cut at `0xFF`, each sound where
/// `codec` checks it, merge alike by splicing parts and by reading every object
/// ([`crate::corpus::splice_agrees_with_whole_merge`]). A version with a problem (an element
/// both a child and a component) may be read one way by each merge, so nothing is promised of
/// it, as the merge fuzz targets promise nothing of it. Panics when the property fails.
pub fn splice_agrees<C>(codec: &C, data: &[u8])
where
    C: levelmerge_core::Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    let Some([Ok(base), Ok(ours), Ok(theirs)]) = sound_versions(codec, data).map(|v| v.map(std::str::from_utf8)) else { return };
    if let Err(difference) = crate::corpus::splice_agrees_with_whole_merge(codec, base, ours, theirs) {
        panic!("the splice and the whole merge disagree: {difference}");
    }
}

/// The property of the swap fuzz targets: three versions cut at `0xFF`, each sound where
/// `codec` checks it, leave as many conflicts open with ours and theirs swapped, or fail alike
/// ([`crate::corpus::swapped_sides_leave_as_many_conflicts`]). Panics when the property fails.
pub fn sides_swap_alike<C>(codec: &C, data: &[u8])
where
    C: levelmerge_core::Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    let Some([base, ours, theirs]) = sound_versions(codec, data) else { return };
    if let Err(difference) = crate::corpus::swapped_sides_leave_as_many_conflicts(codec, base, ours, theirs) {
        panic!("swapping the sides changes the merge: {difference}");
    }
}

/// The three versions of a fuzz input (cut at `0xFF`), when each is sound where `codec` checks
/// it: what the merge properties promise something of.
fn sound_versions<'d, C: levelmerge_core::Codec>(codec: &C, data: &'d [u8]) -> Option<[&'d [u8]; 3]> {
    let mut parts = data.splitn(3, |&b| b == 0xFF);
    let versions = [parts.next()?, parts.next()?, parts.next()?];
    versions.iter().all(|t| levelmerge_core::check_text(codec, t).is_empty()).then_some(versions)
}

/// Runs every input of `dir` whose name starts with `prefix` (`splice-`, `swap-`) through
/// `property` ([`splice_agrees`], [`sides_swap_alike`]). Fails when there is none, so that a
/// lost folder cannot pass unnoticed.
pub fn replay_regressions_named(dir: &Path, prefix: &str, property: impl Fn(&[u8])) {
    let inputs = regressions_named(dir, prefix);
    assert!(!inputs.is_empty(), "the {prefix}… regression inputs are missing from {}", dir.display());
    for (name, data) in inputs {
        eprintln!("replaying {name}");
        property(&data);
    }
}

/// The inputs of `dir` whose names start with `prefix`, by name.
pub fn regressions_named(dir: &Path, prefix: &str) -> Vec<(String, Vec<u8>)> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("the regression folder {}: {e}", dir.display()));
    let mut found: Vec<(String, Vec<u8>)> = entries
        .map(|entry| entry.expect("a folder entry").path())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_owned();
            name.starts_with(prefix).then(|| (name, std::fs::read(&path).expect("a regression input")))
        })
        .collect();
    found.sort();
    found
}

/// `text` with `cut_len` bytes from `at` (taken modulo its length) replaced by `insert`.
pub fn damaged(text: &str, at: proptest::sample::Index, cut_len: usize, insert: &str) -> Vec<u8> {
    let text = text.as_bytes();
    let at = at.index(text.len().max(1)).min(text.len());
    let end = (at + cut_len).min(text.len());
    [&text[..at], insert.as_bytes(), &text[end..]].concat()
}

/// Three versions joined at `0xFF`, as the merge fuzz targets take them.
pub fn three(base: &[u8], ours: &[u8], theirs: &[u8]) -> Vec<u8> {
    [base, &[0xFF], ours, &[0xFF], theirs].concat()
}
