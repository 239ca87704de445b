//! The JSON fuzz targets' properties (`fuzz/`): the shared ones of [`levelmerge_core::fuzzing`],
//! under the codec as the command line picks it for a JSON file (the editor's profile found
//! from the content), and that every value of a parsed file lies inside it, after the one
//! before. Each function panics when a property fails, and only then.

use levelmerge_core::fuzzing;

use levelmerge_core::{Codec, Problem};

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
    fuzzing::merge_three_naming(&JsonCodec::default(), data, &|text, problem| {
        std::iter::once(fuzzing::finding(problem)).chain(named_by_content(text, problem)).collect()
    });
}

/// A problem of a Cocos element named by its position (`[3]`, which an insertion before it
/// moves), named by the element's content too: its text without spaces or digits (its
/// references hold positions too). Either name tells the problem again: the other side may
/// have moved the element, or edited it in place.
fn named_by_content(text: &[u8], problem: &Problem) -> Option<String> {
    let Problem::Inconsistent { object, message, .. } = problem else { return None };
    let at = object.as_str().strip_prefix('[')?.strip_suffix(']')?;
    let doc = crate::parse::parse(text, crate::Dialect::Json).ok()?;
    let element = doc.slots_of(doc.root).get(at.parse::<usize>().ok()?)?;
    let content: String = doc.node_text(element.value).chars().filter(|c| !c.is_whitespace() && !c.is_ascii_digit()).collect();
    Some(format!("{content}: {}", message.replace(at, "…")))
}
