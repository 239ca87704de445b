//! The Godot fuzz targets' properties (`fuzz/`): the shared ones of
//! [`levelmerge_core::fuzzing`], and that a parsed file is tiled by its preamble, its
//! sections and the gaps after them. Each function panics when a property fails, and only then.

use levelmerge_core::fuzzing;

use crate::{parse, GodotCodec};

/// Parsing never panics; a parsed file's sections tile it; `merge(f, f, f)` gives it back.
pub fn parse_round_trip(data: &[u8]) {
    if !fuzzing::parse_round_trip(&GodotCodec, data) {
        return;
    }
    let file = parse(data).expect("parsed above");
    let mut at = file.preamble.1;
    for section in &file.sections {
        assert_eq!(section.span.0, at, "a gap before the section at line {}", section.line);
        assert_eq!(section.gap.0, section.span.1, "bytes between the section at line {} and its gap", section.line);
        assert!(section.header.0 >= section.span.0 && section.header.1 <= section.span.1, "the tag lies outside its section");
        at = section.gap.1;
    }
    assert_eq!(at as usize, data.len(), "bytes after the last section");
}

/// Three versions cut at `0xFF` bytes merge without panic and soundly.
pub fn merge_three(data: &[u8]) {
    fuzzing::merge_three(&GodotCodec, data);
}
