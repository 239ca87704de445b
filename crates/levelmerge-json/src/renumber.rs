//! Ids handed out by a counter in the file (Tiled's `nextobjectid`): two people who each add
//! an object get the same new id. Before the merge, theirs' new objects whose id ours also
//! gave a different new object get fresh ids, above every id and counter of the three
//! versions, and theirs' references to them and its counter follow.

use levelmerge_core::text::splice;
use levelmerge_core::Sides;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::parse::{parse, Dialect, Document, NodeKind};

/// A reference to an id: an object whose `type_member` is `type_value` holds the id in
/// `value_member` (a Tiled custom property of type `object`).
#[derive(Debug, Clone, Copy)]
pub struct TypedReference {
    pub type_member: &'static str,
    pub type_value: &'static str,
    pub value_member: &'static str,
}

/// Ids one counter hands out.
#[derive(Debug, Clone, Copy)]
pub struct IdSpace {
    /// What the ids number (for notes).
    pub what: &'static str,
    /// Whether the array at a key path (member names from the root, `layers.objects`) holds
    /// ids of this space.
    pub arrays: fn(&str) -> bool,
    pub key: &'static str,
    /// The top-level member counting the next id.
    pub counter: &'static str,
    pub references: Option<TypedReference>,
}

/// What one version holds of an id space.
struct Found<'s> {
    /// Id → the id's value node and its element's text.
    ids: FxHashMap<i64, (u32, &'s str)>,
    /// Reference value nodes with the id they name.
    references: Vec<(u32, i64)>,
    counter: Option<(u32, i64)>,
}

fn integer(doc: &Document<'_>, node: u32) -> Option<i64> {
    (doc.nodes[node as usize].kind == NodeKind::Number).then(|| doc.node_text(node).parse().ok()).flatten()
}

fn member(doc: &Document<'_>, object: u32, name: &str) -> Option<u32> {
    doc.slots_of(object).iter().find(|s| doc.text(s.name) == name).map(|s| s.value)
}

fn find<'s>(doc: &Document<'s>, space: &IdSpace) -> Found<'s> {
    let mut found = Found { ids: FxHashMap::default(), references: Vec::new(), counter: None };
    if doc.nodes[doc.root as usize].kind == NodeKind::Object {
        found.counter = member(doc, doc.root, space.counter).and_then(|n| Some((n, integer(doc, n)?)));
    }
    let mut path = Vec::new();
    walk(doc, doc.root, &mut path, space, &mut found);
    found
}

fn walk<'s>(doc: &Document<'s>, node: u32, path: &mut Vec<&'s str>, space: &IdSpace, found: &mut Found<'s>) {
    match doc.nodes[node as usize].kind {
        NodeKind::Object => {
            if let Some(r) = space.references {
                let typed = member(doc, node, r.type_member).is_some_and(|t| doc.node_text(t).trim_matches('"') == r.type_value);
                if let Some(v) = member(doc, node, r.value_member).filter(|_| typed) {
                    if let Some(id) = integer(doc, v) {
                        found.references.push((v, id));
                    }
                }
            }
            for slot in doc.slots_of(node) {
                path.push(doc.text(slot.name));
                walk(doc, slot.value, path, space, found);
                path.pop();
            }
        }
        NodeKind::Array => {
            let holds_ids = (space.arrays)(&path.join("."));
            for slot in doc.slots_of(node) {
                let element = slot.value;
                if holds_ids && doc.nodes[element as usize].kind == NodeKind::Object {
                    if let Some((v, id)) = member(doc, element, space.key).and_then(|v| Some((v, integer(doc, v)?))) {
                        found.ids.entry(id).or_insert((v, doc.node_text(element)));
                    }
                }
                walk(doc, element, path, space, found);
            }
        }
        _ => {}
    }
}

/// Theirs with its colliding new ids renumbered, and a note per id; `None` when nothing
/// collides (or a version is not JSON).
pub fn renumber(texts: Sides<&[u8]>, spaces: &[IdSpace]) -> Option<(Vec<u8>, Vec<String>)> {
    // Only counters both sides moved can have handed out one id twice.
    let counter = |text: &[u8], name: &str| {
        let key = format!("\"{name}\"");
        let at = memchr::memmem::find(text, key.as_bytes())? + key.len();
        let value = text[at..].iter().skip_while(|b| matches!(b, b' ' | b'\t' | b':' | b'\r' | b'\n')).take_while(|b| b.is_ascii_digit());
        Some(value.copied().collect::<Vec<u8>>())
    };
    let moved = |name: &str| {
        let base = counter(texts.base, name);
        base != counter(texts.ours, name) && base != counter(texts.theirs, name)
    };
    if !spaces.iter().any(|s| moved(s.counter)) {
        return None;
    }
    let docs = Sides::new(
        parse(texts.base, Dialect::Json).ok()?,
        parse(texts.ours, Dialect::Json).ok()?,
        parse(texts.theirs, Dialect::Json).ok()?,
    );
    let mut edits = Vec::new();
    let mut notes = Vec::new();
    for space in spaces {
        let found = Sides::new(find(&docs.base, space), find(&docs.ours, space), find(&docs.theirs, space));
        let mut colliding: Vec<i64> = found
            .theirs
            .ids
            .iter()
            .filter(|(id, (_, text))| !found.base.ids.contains_key(id) && found.ours.ids.get(id).is_some_and(|(_, ours)| ours != text))
            .map(|(id, _)| *id)
            .collect();
        if colliding.is_empty() {
            continue;
        }
        colliding.sort_unstable();
        let all = [&found.base, &found.ours, &found.theirs];
        let above_ids = all.iter().flat_map(|f| f.ids.keys()).max().map_or(1, |m| m + 1);
        let above_counters = all.iter().filter_map(|f| f.counter.map(|c| c.1)).max().unwrap_or(1);
        let first = above_ids.max(above_counters);
        let fresh: FxHashMap<i64, i64> = colliding.iter().zip(first..).map(|(&old, new)| (old, new)).collect();
        let changed: FxHashSet<u32> = colliding.iter().map(|id| found.theirs.ids[id].0).collect();
        for &node in &changed {
            let old = integer(&docs.theirs, node).expect("an id is an integer");
            let n = &docs.theirs.nodes[node as usize];
            edits.push((n.start as usize, n.end as usize, fresh[&old].to_string()));
        }
        for &(node, id) in &found.theirs.references {
            if let Some(new) = fresh.get(&id) {
                let n = &docs.theirs.nodes[node as usize];
                edits.push((n.start as usize, n.end as usize, new.to_string()));
            }
        }
        let next = first + colliding.len() as i64;
        if let Some((node, _)) = found.theirs.counter.filter(|c| c.1 < next) {
            let n = &docs.theirs.nodes[node as usize];
            edits.push((n.start as usize, n.end as usize, next.to_string()));
        }
        for old in &colliding {
            notes.push(format!("theirs' new {} {old} is now {} (ours added a different one under that id)", space.what, fresh[old]));
        }
    }
    (!edits.is_empty()).then(|| (splice(docs.theirs.src, edits).into_bytes(), notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OBJECTS: IdSpace = IdSpace {
        what: "object",
        arrays: |path| path.ends_with("objects"),
        key: "id",
        counter: "nextobjectid",
        references: Some(TypedReference { type_member: "type", type_value: "object", value_member: "value" }),
    };

    #[test]
    fn colliding_new_ids_in_theirs_get_fresh_ones_with_their_references() {
        let base = r#"{"nextobjectid": 3, "layers": [{"id": 1, "objects": [{"id": 1}, {"id": 2}]}]}"#;
        let ours = r#"{"nextobjectid": 4, "layers": [{"id": 1, "objects": [{"id": 1}, {"id": 2}, {"id": 3, "name": "a"}]}]}"#;
        let theirs = r#"{"nextobjectid": 5, "layers": [{"id": 1, "objects": [{"id": 1, "properties": [{"name": "t", "type": "object", "value": 3}]}, {"id": 2}, {"id": 3, "name": "b"}, {"id": 4}]}]}"#;
        let (out, notes) = renumber(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes()), &[OBJECTS]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"nextobjectid": 6, "layers": [{"id": 1, "objects": [{"id": 1, "properties": [{"name": "t", "type": "object", "value": 5}]}, {"id": 2}, {"id": 5, "name": "b"}, {"id": 4}]}]}"#
        );
        assert_eq!(notes, ["theirs' new object 3 is now 5 (ours added a different one under that id)"]);
    }

    #[test]
    fn the_same_object_added_on_both_sides_keeps_its_id() {
        let base = r#"{"objects": []}"#;
        let both = r#"{"objects": [{"id": 1}]}"#;
        assert!(renumber(Sides::new(base.as_bytes(), both.as_bytes(), both.as_bytes()), &[OBJECTS]).is_none());
    }
}
