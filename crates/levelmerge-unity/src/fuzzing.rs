//! The properties the fuzz targets (`fuzz/`, run with cargo-fuzz on nightly) check, kept here
//! so that the regression inputs they find are replayed by the ordinary tests on stable.
//! Each function panics when a property fails, and only then.

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{check_text, merge_texts, MergeOutcome, Options, Sides};

use crate::{parse, UnityCodec};

fn merge(texts: Sides<&[u8]>) -> Option<MergeOutcome> {
    merge_texts(&UnityCodec, texts, &Options::default(), &MarkerStyle::default()).ok()
}

/// Parsing never panics; a file that parses is given back byte for byte by `merge(f, f, f)`,
/// and every byte of it belongs to its preamble or one of its documents.
pub fn parse_round_trip(data: &[u8]) {
    let Ok(file) = parse::parse(data) else { return };
    let mut at = file.preamble.1;
    for doc in &file.docs {
        assert!(doc.span.0 == at || (file.docs.len() == 1 && doc.span.0 == 0), "a gap before the document at line {}", doc.line);
        at = doc.span.1;
    }
    assert!(file.docs.is_empty() || at as usize == data.len(), "bytes after the last document");
    if let Some(merged) = merge(Sides::new(data, data, data)) {
        assert_eq!(merged.text, data, "merge(f, f, f) changed the file");
    }
}

/// Three versions cut from one input at `0xFF` bytes (which UTF-8 text never holds): merging
/// never panics, and a clean merge is a file that parses and has no problem that none of the
/// inputs had. `merge(b, o, b)` gives `o` back.
pub fn merge_three(data: &[u8]) {
    let mut parts = data.splitn(3, |&b| b == 0xFF);
    let (base, ours, theirs) = (parts.next().unwrap_or(b""), parts.next().unwrap_or(b""), parts.next().unwrap_or(b""));
    if let Some(merged) = merge(Sides::new(base, ours, theirs)) {
        if merged.open_conflicts == 0 {
            assert!(parse::parse(&merged.text).is_ok(), "a clean merge that does not parse");
            let known: Vec<String> = [base, ours, theirs].iter().flat_map(|t| check_text(&UnityCodec, t)).map(|p| p.key()).collect();
            let new: Vec<String> = check_text(&UnityCodec, &merged.text).iter().map(|p| p.key()).filter(|p| !known.contains(p)).collect();
            assert!(new.is_empty(), "new problems in a clean merge: {new:?}");
        }
    }
    if parse::parse(base).is_ok() && parse::parse(ours).is_ok() {
        if let Some(merged) = merge(Sides::new(base, ours, base)) {
            assert_eq!(merged.text, ours, "merge(b, o, b) is not o");
        }
    }
}
