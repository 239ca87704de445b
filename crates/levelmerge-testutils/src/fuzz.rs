//! Replaying what the fuzz targets found, and damaging a sample file, for each codec's
//! robustness test.

use std::path::Path;

/// Runs every input of `dir` through its property: files named `parse-…` through `parse`,
/// the others (three versions cut at `0xFF`) through `merge`. Fails when the folder holds
/// fewer than `at_least` inputs, so that a lost folder cannot pass unnoticed.
pub fn replay_regressions(dir: &Path, at_least: usize, parse: impl Fn(&[u8]), merge: impl Fn(&[u8])) {
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("the regression folder {}: {e}", dir.display())) {
        let path = entry.expect("a folder entry").path();
        let data = std::fs::read(&path).expect("a regression input");
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("parse-") {
            parse(&data);
        } else {
            merge(&data);
        }
        seen += 1;
    }
    assert!(seen >= at_least, "the regression inputs are missing from {}", dir.display());
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
