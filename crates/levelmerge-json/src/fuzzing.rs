//! The JSON fuzz targets' properties (`fuzz/`): the shared ones of [`levelmerge_core::fuzzing`],
//! under the codec as the command line picks it for a JSON file (the editor's profile found
//! from the content), and that every value of a parsed file lies inside it, after the one
//! before. Each function panics when a property fails, and only then.

use levelmerge_core::fuzzing;

use levelmerge_core::Codec;

use crate::JsonCodec;

/// Parsing never panics; a parsed file's values lie in order inside it; `merge(f, f, f)`
/// gives it back.
pub fn parse_round_trip(data: &[u8]) {
    let codec = JsonCodec::default();
    if !fuzzing::parse_round_trip(&codec, data) {
        return;
    }
    let doc = codec.parse(data).expect("parsed above");
    for node in &doc.nodes {
        assert!(node.start <= node.end && node.end as usize <= data.len(), "a value outside the file: {}..{}", node.start, node.end);
    }
    for slot in &doc.slots {
        let (container, value) = (&doc.nodes[slot.container as usize], &doc.nodes[slot.value as usize]);
        assert!(container.start <= slot.lead.0 && slot.lead.1 <= value.start, "an element's lead outside its place");
        assert!(value.end <= container.end, "an element ends after its container: {}..{}", value.start, value.end);
    }
}

/// Three versions cut at `0xFF` bytes merge without panic and soundly.
pub fn merge_three(data: &[u8]) {
    fuzzing::merge_three(&JsonCodec::default(), data);
}
