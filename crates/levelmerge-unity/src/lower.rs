//! From a Unity file to a level: one object per document, identified by its fileID.
//!
//! * `{fileID: N}` (no guid) is a reference to document N; with a guid it points into another
//!   asset and is an opaque value.
//! * A Transform's `m_Father`, a PrefabInstance's `m_TransformParent`, and any other
//!   component's `m_GameObject`, is its parent; the parent's `m_Children` lists an instance
//!   by its stripped transform ([`Level::listed_as`]).
//! * Sequences whose items each name one local object (`m_Component`, `m_Children`,
//!   `m_Roots`, …) are lists with identity: merged by the fileID they name; so are prefab
//!   override lists, by the identity [`identity`] gives their items.

use levelmerge_core::model::{Level, Lowered, Object, ObjectId, Origin, RefRole, Reference, Value, ValueKind};
use levelmerge_core::{Problem, Side};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::identity;
use crate::parse::{listed_links, UnityDoc, UnityFile, YKind};
use crate::scalar;

pub const TRANSFORMS: [&str; 2] = ["Transform", "RectTransform"];

/// The field that holds an object's parent: a transform's `m_Father`, a prefab instance's
/// `m_TransformParent`, any other component's `m_GameObject`; a GameObject has none.
fn parent_key(class: &str) -> Option<&'static str> {
    if TRANSFORMS.contains(&class) {
        Some("m_Father")
    } else if class == "PrefabInstance" {
        Some("m_TransformParent")
    } else if class != "GameObject" {
        Some("m_GameObject")
    } else {
        None
    }
}

struct Lowerer<'d> {
    file: &'d UnityFile<'d>,
    side: Side,
    level: Level<'d>,
}

/// The fileID of a local reference `{fileID: N}` (N ≠ 0, no guid).
pub fn local_ref(file: &UnityFile<'_>, node: u32) -> Option<i64> {
    let n = &file.nodes[node as usize];
    if n.kind != YKind::FlowMap {
        return None;
    }
    let entries = file.entries_of(node);
    if entries.len() != 1 || file.text(entries[0].key) != "fileID" {
        return None;
    }
    file.text(file.nodes[entries[0].value as usize].span).parse().ok().filter(|&id| id != 0)
}

/// The node naming the object an identity-list item stands for: `{fileID: N}` itself, or the
/// single member of `- component: {fileID: N}`.
fn item_ref(file: &UnityFile<'_>, item: u32) -> Option<u32> {
    if local_ref(file, item).is_some() {
        return Some(item);
    }
    let n = &file.nodes[item as usize];
    if n.kind != YKind::Map {
        return None;
    }
    match file.entries_of(item) {
        [only] if local_ref(file, only.value).is_some() => Some(only.value),
        _ => None,
    }
}

impl<'d> Lowerer<'d> {
    fn origin(&self, node: u32) -> Origin {
        Origin { side: self.side, node }
    }

    fn value(&mut self, node: u32, key: Option<&str>, class: &str) -> Value<'d> {
        let file = self.file;
        let n = &file.nodes[node as usize];
        let raw = file.text(n.span);
        if let Some(id) = local_ref(file, node) {
            let role = if key.is_some() && key == parent_key(class) { RefRole::Parent } else { RefRole::Other };
            match role {
                RefRole::Parent => self.level.parent_refs = true,
                RefRole::Other => self.level.references = true,
            }
            return Value::scalar(raw, self.origin(node), Some(Reference { target: ObjectId::new(id.to_string()), role }));
        }
        match n.kind {
            YKind::Scalar => match scalar::read_as(raw) {
                Some(read) => Value::scalar_read_as(raw, &read, self.origin(node), None),
                None => Value::scalar(raw, self.origin(node), None),
            },
            YKind::Map | YKind::FlowMap => {
                let first = file.nodes[node as usize].first;
                let entries = file
                    .entries_of(node)
                    .iter()
                    .enumerate()
                    .map(|(i, e)| {
                        let written = file.text(e.key);
                        let k = file.key_aliases.get(&(first + i as u32)).map_or(written, String::as_str);
                        (k, self.value(e.value, Some(written), class))
                    })
                    .collect();
                Value::map(raw, self.origin(node), entries)
            }
            YKind::Seq | YKind::FlowSeq => {
                let items = file.items_of(node);
                match self.identities(items, key) {
                    // A list with identity: a map from each item's identity to the item, which
                    // the core merges by key and order.
                    Some(ids) => {
                        let entries = ids.into_iter().zip(items).map(|(id, &item)| (id, self.value(item, key, class))).collect();
                        Value::keyed_list(raw, self.origin(node), entries)
                    }
                    None => {
                        let values = items.iter().map(|&i| self.value(i, key, class)).collect();
                        Value::list(raw, self.origin(node), values)
                    }
                }
            }
        }
    }

    /// The identity of each item of a list, when every item has one and no two share it: the
    /// key [`identity`] gave a prefab override, or the fileID an item names (`m_Component`,
    /// `m_Children`, …).
    fn identities(&self, items: &[u32], key: Option<&str>) -> Option<Vec<&'d str>> {
        let file = self.file;
        if items.is_empty() {
            return None;
        }
        let override_keys = || -> Option<Vec<&'d str>> {
            key.filter(|k| identity::is_keyed_list(k))?;
            items.iter().map(|i| file.item_keys.get(i).map(String::as_str)).collect()
        };
        let named_ids = || -> Option<Vec<&'d str>> {
            items.iter().map(|&i| item_ref(file, i).map(|r| file.text(file.nodes[file.entries_of(r)[0].value as usize].span))).collect()
        };
        let ids = override_keys().or_else(named_ids)?;
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.windows(2).all(|w| w[0] != w[1]).then_some(ids)
    }
}

impl<'d> Lowerer<'d> {
    /// A document identical in every version: nothing in it can merge differently, so only its
    /// hierarchy links are kept (the parent link, a transform's `m_GameObject` and `m_Children`,
    /// a game object's `m_Component`: what the hierarchy checks read); its bytes are copied as
    /// they are.
    fn opaque(&mut self, doc: &UnityDoc, class: &'d str) -> Value<'d> {
        let file = self.file;
        let raw = file.text(doc.span);
        let is_transform = TRANSFORMS.contains(&class);
        let link_key = parent_key(class);
        // Besides the parent link: a transform's game object and children, a game object's
        // components (the other half of each of these links may be in a merged document).
        let owner = is_transform.then_some("m_GameObject");
        let list = if is_transform {
            Some(("m_Children", ""))
        } else if class == "GameObject" {
            Some(("m_Component", "component: "))
        } else {
            None
        };
        let mut fields = Vec::new();
        if let Some(map) = file.fields(doc) {
            for key in link_key.into_iter().chain(owner).chain(list.map(|(key, _)| key)) {
                if let Some(node) = file.get(map, key) {
                    fields.push((key, self.value(node, Some(key), class)));
                }
            }
        } else {
            // Not parsed (see `UnityDoc::same_everywhere`): the links are read off their lines.
            let single = link_key.map(|key| (key, RefRole::Parent)).into_iter().chain(owner.map(|key| (key, RefRole::Other)));
            // A prefab instance's parent link is a field of its `m_Modification`.
            let indent = if class == "PrefabInstance" { "    " } else { "  " };
            for (key, role) in single {
                if let Some(value) = field_line_at(raw, key, indent).and_then(|text| self.line_reference(text, role)) {
                    fields.push((key, value));
                }
            }
            if let Some((key, Ok(Some((text, items))))) = list.map(|(key, item)| (key, listed_links(raw, key, item))) {
                let entries = items
                    .into_iter()
                    .filter_map(|item| Some((item["{fileID: ".len()..item.len() - 1].trim(), self.line_reference(item, RefRole::Other)?)))
                    .collect();
                fields.push((key, Value::keyed_list(text, self.origin(u32::MAX), entries)));
            }
        }
        let inner = Value::map(raw, self.origin(doc.body.unwrap_or(u32::MAX)), fields);
        Value::map(raw, self.origin(doc.body.unwrap_or(u32::MAX)), vec![(class, inner)])
    }
}

impl<'d> Lowerer<'d> {
    /// A local reference `{fileID: N}` (N ≠ 0) written in an unparsed document.
    fn line_reference(&mut self, text: &'d str, role: RefRole) -> Option<Value<'d>> {
        let id = text.strip_prefix("{fileID: ")?.strip_suffix('}')?.trim().parse::<i64>().ok().filter(|&id| id != 0)?;
        match role {
            RefRole::Parent => self.level.parent_refs = true,
            RefRole::Other => self.level.references = true,
        }
        Some(Value::scalar(text, self.origin(u32::MAX), Some(Reference { target: ObjectId::new(id.to_string()), role })))
    }
}

/// The value text of a document's top-level field `key` (a line `  key: value`).
pub fn field_line<'t>(doc: &'t str, key: &str) -> Option<&'t str> {
    field_line_at(doc, key, "  ")
}

/// The value text of the first field `key` at `indent` (a line `{indent}key: value`).
fn field_line_at<'t>(doc: &'t str, key: &str, indent: &str) -> Option<&'t str> {
    // Found with memmem, and the line around each match compared, with nothing allocated: this
    // runs for every unparsed document of a large scene.
    let bytes = doc.as_bytes();
    let start = memchr::memmem::find_iter(bytes, key.as_bytes()).find_map(|at| {
        let line_start = at.checked_sub(indent.len())?;
        let at_line_start = line_start == 0 || bytes[line_start - 1] == b'\n';
        let after = at + key.len();
        (at_line_start && &bytes[line_start..at] == indent.as_bytes() && bytes[after..].starts_with(b": ")).then_some(after + 2)
    })?;
    let rest = &doc[start..];
    Some(rest[..memchr::memchr(b'\n', rest.as_bytes()).unwrap_or(rest.len())].trim_end())
}

/// Lower a Unity file. Documents that parsing found identical in every version it was read
/// among ([`UnityDoc::same_everywhere`]) are lowered opaquely (see `Lowerer::opaque`).
pub fn lower<'d>(file: &'d UnityFile<'d>, side: Side) -> Result<Level<'d>, Vec<Problem>> {
    lower_keeping_first(file, side).whole()
}

/// Lower a Unity file, keeping the first of documents that share a fileID and refusing the
/// others.
pub fn lower_keeping_first<'d>(file: &'d UnityFile<'d>, side: Side) -> Lowered<'d> {
    let mut l = Lowerer { file, side, level: Level::new() };
    let mut problems = Vec::new();
    let mut refused_objects = Vec::new();
    let mut stripped_transforms: FxHashMap<ObjectId, Vec<ObjectId>> = FxHashMap::default();
    for doc in &file.docs {
        let id = ObjectId::new(doc.file_id.to_string());
        let first_line = l.level.objects.get(&id).map(|first| first.line as usize);
        let class = file.class_name(doc).unwrap_or("");
        let kind = if class.is_empty() { format!("!u!{}", doc.class_id) } else { class.to_owned() };
        let mut props = match doc.body {
            _ if doc.same_everywhere => l.opaque(doc, class),
            Some(body) => l.value(body, None, class),
            None => Value::map("", l.origin(u32::MAX), Vec::new()),
        };
        // A document is the same only when all its bytes are (its `---` line, trailing blank
        // lines and a missing final newline included).
        props.raw = file.text(doc.span);
        if doc.stripped && TRANSFORMS.contains(&class) {
            if let Some(instance) = field_line(props.raw, "m_PrefabInstance").and_then(crate::outline::local_id) {
                stripped_transforms.entry(instance).or_default().push(id.clone());
            }
        }
        let object = Object { id: id.clone(), kind, parent: None, props, line: doc.line };
        match first_line {
            Some(first_line) => {
                problems.push(Problem::DuplicateId { id: format!("fileID {}", doc.file_id), line: doc.line as usize, first_line });
                refused_objects.push(object);
            }
            None => {
                l.level.objects.insert(id, object);
            }
        }
    }
    l.level.listed_as = instances_listed_as(&l.level, stripped_transforms);
    Lowered { level: l.level, refused: problems, refused_objects }
}

/// The stripped transform that stands for each prefab instance in its parent's `m_Children`
/// ([`Level::listed_as`]): its only one, or, of several (the prefab's inner transforms that
/// objects were added under), the one a transform lists.
fn instances_listed_as(level: &Level<'_>, stripped: FxHashMap<ObjectId, Vec<ObjectId>>) -> FxHashMap<ObjectId, ObjectId> {
    let several = stripped.values().any(|s| s.len() > 1);
    let listed: FxHashSet<&str> = if several {
        level
            .objects
            .values()
            .filter(|o| TRANSFORMS.contains(&o.kind.as_str()))
            .filter_map(|o| o.props.get(&o.kind)?.get("m_Children"))
            .flat_map(|children| match &children.kind {
                ValueKind::Map(entries) => entries.iter().map(|(k, _)| *k).collect(),
                _ => Vec::new(),
            })
            .collect()
    } else {
        FxHashSet::default()
    };
    stripped
        .into_iter()
        .filter_map(|(instance, transforms)| match &transforms[..] {
            [only] => Some((instance, only.clone())),
            _ => {
                let mut named = transforms.into_iter().filter(|t| listed.contains(t.as_str()));
                let first = named.next();
                (named.next().is_none()).then_some(first).flatten().map(|t| (instance, t))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::field_line;

    #[test]
    fn a_top_level_field_is_read_off_its_own_line() {
        let doc = "--- !u!4 &5\r\nTransform:\r\n  m_Children:\r\n    m_Father: {fileID: 9}\r\n  m_Father: {fileID: 7}\r\n  m_Tag: \n";
        assert_eq!(field_line(doc, "m_Father"), Some("{fileID: 7}"), "the nested field is not the top-level one");
        assert_eq!(field_line(doc, "m_Tag"), Some(""));
        assert_eq!(field_line(doc, "m_Children"), None, "a field holding a block has no value on its line");
        assert_eq!(field_line(doc, "m_Child"), None);
        assert_eq!(field_line("  m_GameObject: {fileID: 3}", "m_GameObject"), Some("{fileID: 3}"));
    }
}
