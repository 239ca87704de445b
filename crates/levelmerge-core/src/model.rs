//! The level model: a graph of objects with stable ids, ordered properties, a place in a hierarchy
//! and references to other objects.
//!
//! Values keep the exact source text (`raw`) of what they were parsed from, plus enough structure
//! to compare and merge them. Text is borrowed from the codec's document, never copied.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHasher};

use crate::coherence::Problem;
use crate::side::Side;

/// A stable object identity, unique within one level. Codecs choose the text (a fileID, a
/// JSON path of ids, a node path); the core only compares it.
///
/// The hash of the text is computed once: ids are looked up in maps many times per merge.
#[derive(Clone)]
pub struct ObjectId {
    hash: u64,
    text: Arc<str>,
}

/// The hash an object id's text is stored under.
fn id_hash(text: &str) -> u64 {
    let mut h = FxHasher::default();
    text.hash(&mut h);
    h.finish()
}

impl ObjectId {
    pub fn new(text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        ObjectId { hash: id_hash(&text), text }
    }
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// An id's text as a key of the level's objects: hashed and compared as [`ObjectId`] is.
struct IdText<'t>(&'t str);

impl Hash for IdText<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(id_hash(self.0));
    }
}

impl indexmap::Equivalent<ObjectId> for IdText<'_> {
    fn equivalent(&self, key: &ObjectId) -> bool {
        key.as_str() == self.0
    }
}

impl PartialEq for ObjectId {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.text == other.text
    }
}

impl Eq for ObjectId {}

impl Hash for ObjectId {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl PartialOrd for ObjectId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ObjectId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.text.cmp(&other.text)
    }
}

impl fmt::Debug for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", &*self.text)
    }
}

impl fmt::Display for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Where a value came from: which input and which node of that input's codec document.
/// Codecs use it to copy source bytes and to borrow formatting for mixed containers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Origin {
    pub side: Side,
    pub node: u32,
}

/// What a reference means for the hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefRole {
    /// This object's parent (a direct dependency in the paper's terms).
    Parent,
    /// Any other reference (an indirect dependency).
    Other,
}

/// A scalar that points at another object of the same level.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reference {
    pub target: ObjectId,
    pub role: RefRole,
}

/// One property value, with the exact source text it was read from.
#[derive(Clone, Debug)]
pub struct Value<'a> {
    /// The exact bytes of this value in its source, including nested content.
    pub raw: &'a str,
    /// Semantic hash: equal for values that mean the same (ignores layout, not order).
    pub hash: u64,
    pub origin: Origin,
    /// Whether child objects live inside this value (then it is merged member by member, so
    /// that every child object's own merge decides what is written).
    pub has_children: bool,
    /// Whether a reference lives anywhere inside this value (so that looking for references
    /// skips the many values without any).
    pub has_references: bool,
    /// Whether this map is a list keyed by its items' identities ([`Value::keyed_list`]),
    /// not a mapping: the two are values of different kinds, whatever their members.
    pub keyed: bool,
    pub kind: ValueKind<'a>,
}

#[derive(Clone, Debug)]
pub enum ValueKind<'a> {
    /// A leaf, compared by its exact text (`1.0` and `1.00` differ, as they would on disk), or
    /// by what the format reads it as where it writes one string in several forms.
    Scalar { reference: Option<Reference> },
    /// Named members, in source order.
    Map(Vec<(Key<'a>, Value<'a>)>),
    /// An ordered list whose elements carry no identity: merged like diff3 over elements.
    List(Vec<Value<'a>>),
    /// An ordered slot holding child objects by id: merged by identity.
    Children(Vec<ObjectId>),
}

/// A member name. `name` is the decoded name used for matching; codecs render from the source.
pub type Key<'a> = &'a str;

/// The key a codec lowers the `n`th use (from 2) of a key a mapping repeats under: the key,
/// a mark no key holds, and the count.
pub fn repeated_key(key: &str, n: usize) -> String {
    format!("{key}\u{1}{n}")
}

/// A lowered key as its format writes it: a [`repeated_key`] names its key by what precedes
/// the mark.
pub fn written_key(key: &str) -> &str {
    key.split('\u{1}').next().unwrap_or(key)
}

impl<'a> Value<'a> {
    pub fn scalar(raw: &'a str, origin: Origin, reference: Option<Reference>) -> Self {
        Self::scalar_read_as(raw, raw, origin, reference)
    }

    /// A scalar compared by what its format reads it as (`read`: quotes and escapes undone),
    /// not by its text, where one string has several forms in the format.
    pub fn scalar_read_as(raw: &'a str, read: &str, origin: Origin, reference: Option<Reference>) -> Self {
        let mut h = FxHasher::default();
        0u8.hash(&mut h);
        read.hash(&mut h);
        let has_references = reference.is_some();
        Value { raw, hash: h.finish(), origin, has_children: false, has_references, keyed: false, kind: ValueKind::Scalar { reference } }
    }

    pub fn map(raw: &'a str, origin: Origin, entries: Vec<(Key<'a>, Value<'a>)>) -> Self {
        Self::members(raw, origin, entries, false)
    }

    /// A list whose items each carry an identity, as a map from each item's identity to the
    /// item: merged member by member like a map, and written back as a list.
    pub fn keyed_list(raw: &'a str, origin: Origin, entries: Vec<(Key<'a>, Value<'a>)>) -> Self {
        Self::members(raw, origin, entries, true)
    }

    fn members(raw: &'a str, origin: Origin, entries: Vec<(Key<'a>, Value<'a>)>, keyed: bool) -> Self {
        let mut h = FxHasher::default();
        (if keyed { 3u8 } else { 1u8 }).hash(&mut h);
        for (k, v) in &entries {
            k.hash(&mut h);
            v.hash.hash(&mut h);
        }
        let has_children = entries.iter().any(|(_, v)| v.has_children);
        let has_references = entries.iter().any(|(_, v)| v.has_references);
        Value { raw, hash: h.finish(), origin, has_children, has_references, keyed, kind: ValueKind::Map(entries) }
    }

    pub fn list(raw: &'a str, origin: Origin, items: Vec<Value<'a>>) -> Self {
        let mut h = FxHasher::default();
        2u8.hash(&mut h);
        for v in &items {
            v.hash.hash(&mut h);
        }
        let has_children = items.iter().any(|v| v.has_children);
        let has_references = items.iter().any(|v| v.has_references);
        Value { raw, hash: h.finish(), origin, has_children, has_references, keyed: false, kind: ValueKind::List(items) }
    }

    /// A slot of child objects. `child_hashes` are the children's property hashes, so that two
    /// slots are equal only when their children are; codecs whose children live elsewhere in the
    /// file may pass 0s.
    pub fn children(raw: &'a str, origin: Origin, ids: Vec<ObjectId>, child_hashes: &[u64]) -> Self {
        let mut h = FxHasher::default();
        3u8.hash(&mut h);
        for (id, ch) in ids.iter().zip(child_hashes.iter().chain(std::iter::repeat(&0))) {
            id.hash(&mut h);
            ch.hash(&mut h);
        }
        Value { raw, hash: h.finish(), origin, has_children: true, has_references: false, keyed: false, kind: ValueKind::Children(ids) }
    }

    /// Same meaning (structure and scalar text), whatever the layout.
    pub fn same(&self, other: &Value<'_>) -> bool {
        self.hash == other.hash
    }

    /// Same bytes in the source.
    pub fn identical(&self, other: &Value<'_>) -> bool {
        self.raw == other.raw
    }

    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        match &self.kind {
            ValueKind::Map(entries) => entries.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Every reference held anywhere inside this value, with its property path.
    pub fn references(&self, path: &mut PropPath, out: &mut Vec<(PropPath, Reference)>) {
        if !self.has_references {
            return;
        }
        match &self.kind {
            ValueKind::Scalar { reference: Some(r) } => out.push((path.clone(), r.clone())),
            ValueKind::Scalar { reference: None } | ValueKind::Children(_) => {}
            ValueKind::Map(entries) => {
                for (k, v) in entries {
                    path.0.push(PathSeg::Key((*k).to_owned()));
                    v.references(path, out);
                    path.0.pop();
                }
            }
            ValueKind::List(items) => {
                for (i, v) in items.iter().enumerate() {
                    path.0.push(PathSeg::Index(i));
                    v.references(path, out);
                    path.0.pop();
                }
            }
        }
    }
}

/// One step of a property path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathSeg {
    Key(String),
    Index(usize),
    /// A stretch of list elements `[start, end)` in the base list.
    Range(usize, usize),
}

/// Where a property lives inside its object: `m_LocalPosition.x`, `tiles[3]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PropPath(pub Vec<PathSeg>);

impl fmt::Display for PropPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for seg in &self.0 {
            match seg {
                PathSeg::Key(k) => {
                    if !first {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                PathSeg::Index(i) => write!(f, "[{i}]")?,
                PathSeg::Range(a, b) => write!(f, "[{a}..{b}]")?,
            }
            first = false;
        }
        Ok(())
    }
}

/// One object of a level.
#[derive(Clone, Debug)]
pub struct Object<'a> {
    pub id: ObjectId,
    /// What the object is (`GameObject`, `layer`, `entity`); used in messages and rules.
    pub kind: String,
    /// The parent that holds this object in place (structural nesting). A parent given by a
    /// property instead is a [`Reference`] with [`RefRole::Parent`] inside `props`.
    pub parent: Option<ObjectId>,
    /// Properties, usually a map. Child slots inside it are [`ValueKind::Children`].
    pub props: Value<'a>,
    /// Where the object starts in its source (1-based line), for messages.
    pub line: u32,
}

/// One version of a level.
#[derive(Clone, Debug, Default)]
pub struct Level<'a> {
    pub objects: IndexMap<ObjectId, Object<'a>, FxBuildHasher>,
    /// The object whose props are the whole document, if the codec has one.
    pub root: Option<ObjectId>,
    /// Whether some object holds a [`RefRole::Parent`] reference (set by the codec).
    pub parent_refs: bool,
    /// Whether some object holds any other reference (set by the codec).
    pub references: bool,
    /// Whether objects are placed only by the [`ValueKind::Children`] lists that hold them and
    /// may move from one such list to another (a Tiled object to another layer): no property
    /// says where such an object hangs (set by the codec).
    pub placed_by_lists: bool,
    /// Objects their parents' child lists name by another object: a Unity prefab instance
    /// hangs under its `m_TransformParent`, whose `m_Children` lists the instance's stripped
    /// transform (set by the codec).
    pub listed_as: FxHashMap<ObjectId, ObjectId>,
}

/// A level read for checking, with the objects its reading refused (a second object under an
/// id already taken, a part without an identity): the level holds the rest, so that checks
/// see past a duplicate to what else is wrong.
#[derive(Clone, Debug, Default)]
pub struct Lowered<'a> {
    pub level: Level<'a>,
    pub refused: Vec<Problem>,
    /// The refused objects that could be read: what they reference is checked against the
    /// level, for a line merge may break a reference held by either of two objects of one id.
    pub refused_objects: Vec<Object<'a>>,
}

impl<'a> Lowered<'a> {
    /// The level where nothing was refused: a merge matches objects by id, and a level with
    /// an id twice cannot be matched.
    pub fn whole(self) -> Result<Level<'a>, Vec<Problem>> {
        if self.refused.is_empty() {
            Ok(self.level)
        } else {
            Err(self.refused)
        }
    }
}

impl<'a> Level<'a> {
    pub fn new() -> Self {
        Level {
            objects: IndexMap::default(),
            root: None,
            parent_refs: false,
            references: false,
            placed_by_lists: false,
            listed_as: FxHashMap::default(),
        }
    }

    pub fn get(&self, id: &ObjectId) -> Option<&Object<'a>> {
        self.objects.get(id)
    }

    /// Where among the objects is the one whose id is `text`, looked up without making an
    /// [`ObjectId`] of it (checks that ask this of every reference).
    pub fn position_of(&self, text: &str) -> Option<usize> {
        self.objects.get_index_of(&IdText(text))
    }

    /// The parent of an object: the structural one, or else a parent reference in its props.
    pub fn effective_parent(&self, obj: &Object<'a>) -> Option<ObjectId> {
        effective_parent(obj)
    }
}

/// A parent reference in the props wins over the structural parent: a flat list of objects with
/// `parent` fields stores objects in one place but nests them by those fields.
pub(crate) fn effective_parent(obj: &Object<'_>) -> Option<ObjectId> {
    let mut refs = Vec::new();
    obj.props.references(&mut PropPath::default(), &mut refs);
    refs.into_iter().find(|(_, r)| r.role == RefRole::Parent).map(|(_, r)| r.target).or_else(|| obj.parent.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o() -> Origin {
        Origin { side: Side::Base, node: 0 }
    }

    #[test]
    fn same_ignores_layout_but_not_text() {
        let a = Value::map("{\"a\": 1}", o(), vec![("a", Value::scalar("1", o(), None))]);
        let b = Value::map("{\"a\":1}", o(), vec![("a", Value::scalar("1", o(), None))]);
        let c = Value::map("{\"a\":1.0}", o(), vec![("a", Value::scalar("1.0", o(), None))]);
        assert!(a.same(&b));
        assert!(!a.identical(&b));
        assert!(!a.same(&c));
    }

    #[test]
    fn path_display() {
        let p = PropPath(vec![PathSeg::Key("layers".into()), PathSeg::Index(2), PathSeg::Key("name".into())]);
        assert_eq!(p.to_string(), "layers[2].name");
    }
}
