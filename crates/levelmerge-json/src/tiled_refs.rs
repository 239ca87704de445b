//! Tiled object properties (`{"name": "target", "type": "object", "value": 5}`) that name an
//! object the map lacks. A merge follows such references only where a version deleted ids; a
//! text read on its own (`check`, a merge's own text checked again, a conflict's view) names
//! its objects in the same file, so each one is looked for there.

use levelmerge_core::model::ObjectId;
use levelmerge_core::Problem;
use rustc_hash::FxHashSet;

use crate::parse::{Document, NodeKind};

/// What `none` is written as: Tiled numbers objects from 1.
const NO_OBJECT: i64 = 0;

/// Each object property of the map's layers (groups' too) naming an object the map lacks, as a
/// dangling reference of the property (the object the merge reads it as). Parts left unread
/// are not looked in for properties, and every `"id"` they write counts as an object's.
pub fn dangling_object_properties(doc: &Document<'_>) -> Vec<Problem> {
    let Some(layers) = doc.member(doc.root, "layers") else { return Vec::new() };
    let mut named = Vec::new();
    let mut ids = FxHashSet::default();
    let mut unread = Vec::new();
    each_object(doc, layers, &mut unread, &mut |object| {
        let Some(id) = doc.member(object, "id") else { return };
        ids.extend(doc.integer(id));
        let Some(properties) = doc.member(object, "properties") else { return };
        for property in doc.slots_of(properties).iter().map(|s| s.value) {
            let is_object = doc.member(property, "type").is_some_and(|t| doc.node_text(t) == "\"object\"");
            let (Some(name), Some(value)) = (doc.member(property, "name"), doc.member(property, "value").filter(|_| is_object)) else {
                continue;
            };
            if let Some(target) = doc.integer(value).filter(|&t| t != NO_OBJECT) {
                named.push((doc.node_text(id), doc.node_text(name), target, value));
            }
        }
    });
    if named.is_empty() {
        return Vec::new();
    }
    for node in unread {
        ids.extend(written_ids(doc.node_text(node).as_bytes()));
    }
    named
        .into_iter()
        .filter(|(_, _, target, _)| !ids.contains(target))
        .map(|(id, name, target, value)| Problem::DanglingReference {
            object: ObjectId::new(format!("/objects[{id}]/properties[{}]", name.trim_matches('"'))),
            path: "value".to_owned(),
            target: ObjectId::new(format!("/objects[{target}]")),
            line: doc.line_of(doc.nodes[value as usize].start) as usize,
        })
        .collect()
}

/// Every object of the layers of `layers`, groups' layers included; the parts the reading
/// left unread (a list of layers or objects, a layer, an object) go to `unread`.
fn each_object(doc: &Document<'_>, layers: u32, unread: &mut Vec<u32>, visit: &mut impl FnMut(u32)) {
    let read = |node: u32, unread: &mut Vec<u32>| {
        if doc.nodes[node as usize].opaque {
            unread.push(node);
            return false;
        }
        true
    };
    if doc.nodes[layers as usize].kind != NodeKind::Array || !read(layers, unread) {
        return;
    }
    for layer in doc.slots_of(layers).iter().map(|s| s.value) {
        if !read(layer, unread) {
            continue;
        }
        if let Some(objects) = doc.member(layer, "objects").filter(|&o| read(o, unread)) {
            for object in doc.slots_of(objects).iter().map(|s| s.value) {
                if read(object, unread) {
                    visit(object);
                }
            }
        }
        if let Some(group) = doc.member(layer, "layers") {
            each_object(doc, group, unread, visit);
        }
    }
}

/// The numbers every `"id"` member of a text holds (objects', and the layers' among them).
fn written_ids(text: &[u8]) -> FxHashSet<i64> {
    const KEY: &[u8] = b"\"id\"";
    memchr::memmem::find_iter(text, KEY).filter_map(|at| crate::renumber::number_after_key(&text[at + KEY.len()..])?.parse().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(objects: &str) -> Vec<Problem> {
        let text = format!(
            r#"{{"layers": [{{"id": 1, "layers": [{{"id": 2, "objects": [{objects}], "type": "objectgroup"}}], "type": "group"}}], "tiledversion": "1.10"}}"#
        );
        let doc = crate::parse::parse(text.as_bytes(), crate::parse::Dialect::Json).unwrap();
        dangling_object_properties(&doc)
    }

    #[test]
    fn an_object_property_naming_no_object_is_a_dangling_reference_of_the_property() {
        let named = |value: i64| format!(r#"{{"id": 7, "properties": [{{"name": "door", "type": "object", "value": {value}}}]}}"#);
        let found = problems(&format!(r#"{}, {{"id": 8}}"#, named(9)));
        assert_eq!(found.len(), 1);
        let Problem::DanglingReference { object, path, target, line } = &found[0] else { panic!("{found:?}") };
        assert_eq!((object.as_str(), path.as_str(), target.as_str(), *line), ("/objects[7]/properties[door]", "value", "/objects[9]", 1));
        // Layer 2's id is no object's.
        assert_eq!(problems(&named(2)).len(), 1);
        // An object the map holds, none (0), and a property of another type name nothing missing.
        assert!(problems(&format!(r#"{}, {{"id": 8}}"#, named(8))).is_empty());
        assert!(problems(&named(0)).is_empty());
        assert!(problems(r#"{"id": 7, "properties": [{"name": "door", "type": "int", "value": 9}]}"#).is_empty());
    }
}
