//! How people see a level: each object's name, where it sits in the hierarchy, and which object
//! it is a part of (a component of its game object). Changes are shown by these paths
//! (`Level/Props/Door_12`), not by ids.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::model::{effective_parent, Level, ObjectId, Value, ValueKind};

/// Keys that hold an object's name, in the formats levelmerge reads.
pub const NAME_KEYS: [&str; 6] = ["name", "m_Name", "_name", "__identifier", "identifier", "Name"];

/// One object's place in the outline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    pub name: Option<String>,
    /// The object above it in the hierarchy people see.
    pub parent: Option<ObjectId>,
    /// The object this one belongs to and is shown within (a component's game object).
    pub owner: Option<ObjectId>,
    /// What people call its type, when the model's kind is too general (a Godot node's
    /// `type`, not `node`).
    pub kind: Option<String>,
}

/// The places of a level's objects.
#[derive(Debug, Clone, Default)]
pub struct Outline {
    places: FxHashMap<ObjectId, Place>,
    kinds: FxHashMap<ObjectId, String>,
    root: Option<ObjectId>,
}

/// How deep a path is followed: deeper is a cycle or a damaged file.
const MAX_DEPTH: usize = 256;

impl Outline {
    /// An outline any format gets: the name from a [`NAME_KEYS`] member (at the top of the
    /// object or one map down), the effective parent above it, no parts.
    pub fn generic(level: &Level<'_>) -> Self {
        let mut outline = Outline::empty(level);
        for obj in level.objects.values() {
            let place = Place { name: name_in(&obj.props), parent: effective_parent(obj), ..Place::default() };
            outline.places.insert(obj.id.clone(), place);
        }
        outline
    }

    /// An outline with no places yet, knowing the level's kinds and root.
    pub fn empty(level: &Level<'_>) -> Self {
        let kinds = level.objects.values().map(|o| (o.id.clone(), o.kind.clone())).collect();
        Outline { places: FxHashMap::default(), kinds, root: level.root.clone() }
    }

    /// The object that stands for the whole file, which paths start below (a format whose
    /// document root is not what people see as the top, as a Cocos scene under its asset).
    pub fn set_root(&mut self, root: ObjectId) {
        self.root = Some(root);
    }

    pub fn set(&mut self, id: ObjectId, place: Place) {
        self.places.insert(id, place);
    }

    pub fn place(&self, id: &ObjectId) -> Option<&Place> {
        self.places.get(id)
    }

    pub fn contains(&self, id: &ObjectId) -> bool {
        self.kinds.contains_key(id)
    }

    pub fn kind(&self, id: &ObjectId) -> Option<&str> {
        self.places.get(id).and_then(|p| p.kind.as_deref()).or_else(|| self.kinds.get(id).map(String::as_str))
    }

    /// Whether the object is shown by a name (its own, or that of the object it is shown
    /// within), not only by what tells it apart.
    pub fn names(&self, id: &ObjectId) -> bool {
        self.places.get(self.holder(id)).is_some_and(|p| p.name.is_some())
    }

    /// The object an object is shown within: its owner, or itself.
    pub fn holder<'o>(&'o self, id: &'o ObjectId) -> &'o ObjectId {
        let mut current = id;
        for _ in 0..MAX_DEPTH {
            match self.places.get(current).and_then(|p| p.owner.as_ref()) {
                Some(owner) if owner != current && self.places.contains_key(owner) => current = owner,
                _ => break,
            }
        }
        current
    }

    /// The names from the top of the hierarchy down to the object's holder. The level's root
    /// object is not named; an object without a name is shown by what tells it apart.
    pub fn path(&self, id: &ObjectId) -> Vec<String> {
        let mut segments = Vec::new();
        let mut seen = FxHashSet::default();
        let mut current = Some(self.holder(id).clone());
        while let Some(id) = current {
            if Some(&id) == self.root.as_ref() || !seen.insert(id.clone()) || segments.len() >= MAX_DEPTH {
                break;
            }
            let place = self.places.get(&id);
            let parent = place.and_then(|p| p.parent.as_ref()).map(|p| self.holder(p).clone());
            segments.push(match place.and_then(|p| p.name.clone()) {
                Some(name) => name,
                None => self.unnamed(&id, parent.as_ref()),
            });
            current = parent;
        }
        segments.reverse();
        segments
    }

    /// An object without a name: its id after its parent's (nested formats' ids extend their
    /// parent's), else its kind and id.
    fn unnamed(&self, id: &ObjectId, parent: Option<&ObjectId>) -> String {
        if let Some(rest) = parent.and_then(|p| id.as_str().strip_prefix(p.as_str())) {
            let rest = rest.trim_start_matches(['/', '.']);
            if !rest.is_empty() {
                return rest.to_owned();
            }
        }
        match self.kinds.get(id).filter(|k| !k.is_empty() && !id.as_str().contains(k.as_str())) {
            Some(kind) => format!("{kind} {id}"),
            None => id.to_string(),
        }
    }
}

/// An object's name: a [`NAME_KEYS`] scalar at the top of its properties, or one map down
/// (formats that wrap the properties in the class name or a header).
pub fn name_in(props: &Value<'_>) -> Option<String> {
    let direct = |v: &Value<'_>| NAME_KEYS.iter().find_map(|k| v.get(k)).and_then(scalar_text);
    direct(props).or_else(|| match &props.kind {
        ValueKind::Map(entries) => entries.iter().find_map(|(_, v)| direct(v)),
        _ => None,
    })
}

/// A scalar's text without its quotes; `None` for containers and empty names.
fn scalar_text(v: &Value<'_>) -> Option<String> {
    if !matches!(v.kind, ValueKind::Scalar { .. }) {
        return None;
    }
    let unquoted = unquote(v.raw.trim());
    (!unquoted.is_empty()).then(|| unquoted.to_owned())
}

/// A name's text without the double or single quotes around it.
pub fn unquote(raw: &str) -> &str {
    ['"', '\''].iter().find_map(|q| raw.strip_prefix(*q).and_then(|r| r.strip_suffix(*q))).unwrap_or(raw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Object, Origin, RefRole, Reference};
    use crate::side::Side;

    fn o() -> Origin {
        Origin { side: Side::Base, node: 0 }
    }

    fn object(id: &str, kind: &str, name: Option<&'static str>, parent: Option<&str>) -> Object<'static> {
        let mut entries = Vec::new();
        if let Some(n) = name {
            entries.push(("name", Value::scalar(n, o(), None)));
        }
        if let Some(p) = parent {
            let r = Reference { target: ObjectId::new(p), role: RefRole::Parent };
            entries.push(("parent", Value::scalar("ref", o(), Some(r))));
        }
        Object { id: ObjectId::new(id), kind: kind.into(), parent: None, props: Value::map("", o(), entries), line: 1 }
    }

    fn level(objects: Vec<Object<'static>>) -> Level<'static> {
        let mut l = Level::new();
        for obj in objects {
            l.objects.insert(obj.id.clone(), obj);
        }
        l
    }

    #[test]
    fn paths_follow_names_and_parents() {
        let l = level(vec![
            object("1", "node", Some("\"Level\""), None),
            object("2", "node", Some("Props"), Some("1")),
            object("3", "node", Some("'Door_12'"), Some("2")),
            object("4", "node", None, Some("3")),
        ]);
        let outline = Outline::generic(&l);
        assert_eq!(outline.path(&ObjectId::new("3")), ["Level", "Props", "Door_12"]);
        assert_eq!(outline.path(&ObjectId::new("4")), ["Level", "Props", "Door_12", "node 4"]);
    }

    #[test]
    fn parts_are_shown_at_their_owner_and_cycles_end() {
        let l = level(vec![object("1", "node", Some("A"), Some("2")), object("2", "node", Some("B"), Some("1"))]);
        let mut outline = Outline::generic(&l);
        assert_eq!(outline.path(&ObjectId::new("1")), ["B", "A"], "the cycle is cut where it closes");
        outline.set(ObjectId::new("9"), Place { owner: Some(ObjectId::new("2")), ..Place::default() });
        assert_eq!(outline.holder(&ObjectId::new("9")), &ObjectId::new("2"));
        assert_eq!(outline.path(&ObjectId::new("9")), ["A", "B"]);
    }

    #[test]
    fn nested_ids_are_shown_after_their_parent() {
        let mut l = level(vec![object("/layers[3]", "layer", Some("Ground"), None)]);
        let mut child = object("/layers[3]/objects[17]", "object", None, None);
        child.parent = Some(ObjectId::new("/layers[3]"));
        l.objects.insert(child.id.clone(), child);
        assert_eq!(Outline::generic(&l).path(&ObjectId::new("/layers[3]/objects[17]")), ["Ground", "objects[17]"]);
    }
}
