//! The Unity fuzz targets' properties (`fuzz/`): the shared ones of
//! [`levelmerge_core::fuzzing`], and that every byte of a parsed file belongs to its preamble
//! or one of its documents. Each function panics when a property fails, and only then.

use levelmerge_core::fuzzing;

use crate::{parse, UnityCodec};

/// Parsing never panics; a parsed file's documents tile it; `merge(f, f, f)` gives it back.
pub fn parse_round_trip(data: &[u8]) {
    if !fuzzing::parse_round_trip(&UnityCodec, data) {
        return;
    }
    let file = parse::parse(data).expect("parsed above");
    let mut at = file.preamble.1;
    for doc in &file.docs {
        assert!(doc.span.0 == at || (file.docs.len() == 1 && doc.span.0 == 0), "a gap before the document at line {}", doc.line);
        at = doc.span.1;
    }
    assert!(file.docs.is_empty() || at as usize == data.len(), "bytes after the last document");
}

/// Three versions cut at `0xFF` bytes merge without panic and soundly.
pub fn merge_three(data: &[u8]) {
    fuzzing::merge_three(&UnityCodec, data);
}
