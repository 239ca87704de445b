//! Semantic 2-way diff of levels: objects added, removed, moved; properties changed.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::diff3::changed_stretches;
use crate::model::{effective_parent, Level, ObjectId, PathSeg, PropPath, Value, ValueKind};
use crate::outline::Outline;

/// One difference between two versions of a level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Added {
        id: ObjectId,
        kind: String,
        parent: Option<ObjectId>,
    },
    Removed {
        id: ObjectId,
        kind: String,
        parent: Option<ObjectId>,
    },
    /// The object now has another parent.
    Moved {
        id: ObjectId,
        kind: String,
        from: Option<ObjectId>,
        to: Option<ObjectId>,
    },
    /// A property changed; `None` means absent on that side.
    Modified {
        id: ObjectId,
        kind: String,
        path: String,
        old: Option<String>,
        new: Option<String>,
        /// The objects the old and new values refer to, when they are references.
        targets: [Option<ObjectId>; 2],
    },
    /// The same children, in another order.
    Reordered {
        id: ObjectId,
        kind: String,
        path: String,
    },
}

impl Change {
    pub fn object(&self) -> &ObjectId {
        match self {
            Change::Added { id, .. }
            | Change::Removed { id, .. }
            | Change::Moved { id, .. }
            | Change::Modified { id, .. }
            | Change::Reordered { id, .. } => id,
        }
    }

    pub fn kind(&self) -> &str {
        match self {
            Change::Added { kind, .. }
            | Change::Removed { kind, .. }
            | Change::Moved { kind, .. }
            | Change::Modified { kind, .. }
            | Change::Reordered { kind, .. } => kind,
        }
    }
}

/// All differences from `old` to `new`, in `new`'s object order (removals after).
pub fn diff(old: &Level<'_>, new: &Level<'_>) -> Vec<Change> {
    let mut out = Vec::new();
    for obj in new.objects.values() {
        let Some(before) = old.get(&obj.id) else {
            out.push(Change::Added { id: obj.id.clone(), kind: obj.kind.clone(), parent: effective_parent(obj) });
            continue;
        };
        let (from, to) = (effective_parent(before), effective_parent(obj));
        if from != to {
            out.push(Change::Moved { id: obj.id.clone(), kind: obj.kind.clone(), from, to });
        }
        let mut cx = Cx { id: &obj.id, kind: &obj.kind, out: &mut out };
        cx.value(&mut PropPath::default(), Some(&before.props), Some(&obj.props));
    }
    for obj in old.objects.values() {
        if new.get(&obj.id).is_none() {
            out.push(Change::Removed { id: obj.id.clone(), kind: obj.kind.clone(), parent: effective_parent(obj) });
        }
    }
    out
}

/// The object a scalar refers to.
fn target(v: &Value<'_>) -> Option<ObjectId> {
    match &v.kind {
        ValueKind::Scalar { reference: Some(r) } => Some(r.target.clone()),
        _ => None,
    }
}

struct Cx<'c> {
    id: &'c ObjectId,
    kind: &'c str,
    out: &'c mut Vec<Change>,
}

impl Cx<'_> {
    fn modified(&mut self, path: &PropPath, old: Option<String>, new: Option<String>, targets: [Option<ObjectId>; 2]) {
        self.out.push(Change::Modified { id: self.id.clone(), kind: self.kind.to_owned(), path: path.to_string(), old, new, targets });
    }

    /// A changed value, with the objects it refers to before and after.
    fn modified_value(&mut self, path: &PropPath, old: Option<&Value<'_>>, new: Option<&Value<'_>>) {
        let targets = [old.and_then(target), new.and_then(target)];
        self.modified(path, old.map(|v| v.raw.to_owned()), new.map(|v| v.raw.to_owned()), targets);
    }

    fn value(&mut self, path: &mut PropPath, old: Option<&Value<'_>>, new: Option<&Value<'_>>) {
        let (old, new) = match (old, new) {
            (None, None) => return,
            (Some(o), Some(n)) => (o, n),
            (o, n) => {
                // Child slots appearing or going are told as added/removed objects.
                if !o.or(n).is_some_and(|v| matches!(v.kind, ValueKind::Children(_))) {
                    self.modified_value(path, o, n);
                }
                return;
            }
        };
        if old.identical(new) || (old.same(new) && !old.has_children) {
            return;
        }
        match (&old.kind, &new.kind) {
            (ValueKind::Map(om), ValueKind::Map(nm)) => {
                let mut seen = FxHashSet::default();
                for (k, _) in nm.iter().chain(om.iter()) {
                    if !seen.insert(*k) {
                        continue;
                    }
                    path.0.push(PathSeg::Key((*k).to_owned()));
                    self.value(path, old.get(k), new.get(k));
                    path.0.pop();
                }
            }
            (ValueKind::List(ol), ValueKind::List(nl)) => {
                if ol.len() == nl.len() {
                    for (i, (a, b)) in ol.iter().zip(nl).enumerate() {
                        path.0.push(PathSeg::Index(i));
                        self.value(path, Some(a), Some(b));
                        path.0.pop();
                    }
                } else {
                    let hashes = |l: &[Value<'_>]| l.iter().map(|v| v.hash).collect::<Vec<_>>();
                    for (a, b) in changed_stretches(&hashes(ol), &hashes(nl)) {
                        let join = |l: &[Value<'_>]| (!l.is_empty()).then(|| l.iter().map(|v| v.raw).collect::<Vec<_>>().join(", "));
                        path.0.push(if a.len() == 1 { PathSeg::Index(a.start) } else { PathSeg::Range(a.start, a.end) });
                        self.modified(path, join(&ol[a]), join(&nl[b]), [None, None]);
                        path.0.pop();
                    }
                }
            }
            (ValueKind::Children(oc), ValueKind::Children(nc)) => {
                // Sets, not list scans: a level's root can hold thousands of children.
                let now: FxHashSet<&ObjectId> = nc.iter().collect();
                let kept: FxHashSet<&ObjectId> = oc.iter().filter(|id| now.contains(id)).collect();
                let a = oc.iter().filter(|id| kept.contains(id));
                let b = nc.iter().filter(|id| kept.contains(id));
                if !a.eq(b) {
                    self.out.push(Change::Reordered { id: self.id.clone(), kind: self.kind.to_owned(), path: path.to_string() });
                }
            }
            _ => self.modified_value(path, Some(old), Some(new)),
        }
    }
}

/// What happened to one object, in the terms people read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    Added,
    Removed,
    /// Moved under another parent; the parents' paths.
    Moved {
        from: Vec<String>,
        to: Vec<String>,
    },
    Modified {
        property: String,
        old: Option<String>,
        new: Option<String>,
        /// The paths of the objects the old and new values refer to, when they are references.
        targets: [Option<Vec<String>>; 2],
    },
    Reordered {
        property: String,
    },
}

/// One change, to an object or to a part of it (a component of a game object).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub object: ObjectId,
    pub kind: String,
    /// Whether the object is a part of the one it is shown within.
    pub part: bool,
    pub edit: Edit,
}

impl Entry {
    /// The property as people name it: a part's properties start with the part's kind
    /// (`BoxCollider.m_Size`).
    pub fn property(&self) -> Option<String> {
        let property = match &self.edit {
            Edit::Modified { property, .. } | Edit::Reordered { property } => property.as_str(),
            _ => return None,
        };
        Some(if !self.part || property.starts_with(self.kind.as_str()) {
            property.to_owned()
        } else if property.is_empty() {
            self.kind.clone()
        } else {
            format!("{}.{property}", self.kind)
        })
    }
}

/// Whether an object shown in a diff is new, gone, or changed (itself or its parts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Added,
    Removed,
    Changed,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Added => "added",
            Status::Removed => "removed",
            Status::Changed => "changed",
        }
    }
}

/// The changes shown at one object: its own and its parts'.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectChanges {
    pub id: ObjectId,
    pub kind: String,
    /// Names from the top of the hierarchy down to this object.
    pub path: Vec<String>,
    pub status: Status,
    pub entries: Vec<Entry>,
}

/// How many objects of one kind were added, removed and changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KindCount {
    pub kind: String,
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
}

/// A diff grouped by the objects people see, with their hierarchy paths: what every renderer
/// (terminal, JSON, HTML) shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiffReport {
    pub objects: Vec<ObjectChanges>,
}

impl DiffReport {
    /// Group `changes` (from `old` to `new`) by the object each is shown within.
    pub fn new(changes: Vec<Change>, old: &Outline, new: &Outline) -> Self {
        let mut objects: Vec<ObjectChanges> = Vec::new();
        let mut index: FxHashMap<ObjectId, usize> = FxHashMap::default();
        for change in changes {
            // A removed object is placed where it was, everything else where it is now; a
            // removed part of a kept object is shown at that object as it is now.
            let removed = matches!(change, Change::Removed { .. });
            let outline = if removed { old } else { new };
            let holder = outline.holder(change.object()).clone();
            let outline = if removed && new.contains(&holder) { new } else { outline };
            let (id, kind) = (change.object().clone(), change.kind().to_owned());
            let part = id != holder;
            let edit = match change {
                Change::Added { .. } => Edit::Added,
                Change::Removed { .. } => Edit::Removed,
                Change::Moved { from, to, .. } => {
                    let place = |o: &Outline, p: Option<ObjectId>| p.map(|p| o.path(&p)).unwrap_or_default();
                    Edit::Moved { from: place(old, from), to: place(new, to) }
                }
                Change::Modified { path, old: before, new: after, targets: [from, to], .. } => {
                    let place = |o: &Outline, t: Option<ObjectId>| t.filter(|t| o.contains(t)).map(|t| o.path(&t));
                    Edit::Modified { property: path, old: before, new: after, targets: [place(old, from), place(new, to)] }
                }
                Change::Reordered { path, .. } => Edit::Reordered { property: path },
            };
            let at = *index.entry(holder.clone()).or_insert_with(|| {
                objects.push(ObjectChanges {
                    kind: outline.kind(&holder).unwrap_or_default().to_owned(),
                    path: outline.path(&holder),
                    id: holder.clone(),
                    status: Status::Changed,
                    entries: Vec::new(),
                });
                objects.len() - 1
            });
            let group = &mut objects[at];
            if !part {
                match edit {
                    Edit::Added => group.status = Status::Added,
                    Edit::Removed => group.status = Status::Removed,
                    _ => {}
                }
            }
            group.entries.push(Entry { object: id, kind, part, edit });
        }
        DiffReport { objects }
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Objects added, removed and changed per kind (parts counted under their own kind), most
    /// touched kinds first.
    pub fn stat(&self) -> Vec<KindCount> {
        let mut counts: Vec<KindCount> = Vec::new();
        let mut seen: FxHashSet<(&ObjectId, u8)> = FxHashSet::default();
        for entry in self.objects.iter().flat_map(|o| &o.entries) {
            let class = match entry.edit {
                Edit::Added => 0,
                Edit::Removed => 1,
                _ => 2,
            };
            if !seen.insert((&entry.object, class)) {
                continue;
            }
            let count = match counts.iter_mut().position(|c| c.kind == entry.kind) {
                Some(i) => &mut counts[i],
                None => {
                    counts.push(KindCount { kind: entry.kind.clone(), ..KindCount::default() });
                    counts.last_mut().expect("just pushed")
                }
            };
            match class {
                0 => count.added += 1,
                1 => count.removed += 1,
                _ => count.changed += 1,
            }
        }
        counts.sort_by(|a, b| (b.added + b.removed + b.changed).cmp(&(a.added + a.removed + a.changed)).then(a.kind.cmp(&b.kind)));
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Object, Origin};
    use crate::outline::Place;
    use crate::side::Side;

    fn level(objects: &[(&str, &'static str)]) -> Level<'static> {
        let o = Origin { side: Side::Base, node: 0 };
        let mut l = Level::new();
        for (id, x) in objects {
            let props = Value::map(x, o, vec![("x", Value::scalar(x, o, None))]);
            let obj = Object {
                id: ObjectId::new(*id),
                kind: if id.starts_with('c') { "Collider" } else { "Thing" }.into(),
                parent: None,
                props,
                line: 1,
            };
            l.objects.insert(obj.id.clone(), obj);
        }
        l
    }

    /// Objects `t…` named after their id; `c…` are parts of `t1`.
    fn outline(l: &Level<'_>) -> Outline {
        let mut outline = Outline::empty(l);
        for id in l.objects.keys() {
            let owner = id.as_str().starts_with('c').then(|| ObjectId::new("t1"));
            outline.set(id.clone(), Place { name: Some(id.as_str().to_uppercase()), owner, ..Place::default() });
        }
        outline
    }

    #[test]
    fn changes_are_grouped_at_the_object_that_holds_them() {
        let old = level(&[("t1", "1"), ("c1", "1"), ("c2", "1"), ("t2", "1")]);
        let new = level(&[("t1", "1"), ("c1", "2"), ("c3", "1"), ("t3", "1")]);
        let report = DiffReport::new(diff(&old, &new), &outline(&old), &outline(&new));
        let shown: Vec<_> = report.objects.iter().map(|o| (o.path.join("/"), o.status)).collect();
        assert_eq!(shown, [("T1".to_owned(), Status::Changed), ("T3".to_owned(), Status::Added), ("T2".to_owned(), Status::Removed)]);
        let t1: Vec<_> = report.objects[0].entries.iter().map(|e| (e.object.as_str(), e.part, e.property())).collect();
        assert_eq!(t1, [("c1", true, Some("Collider.x".to_owned())), ("c3", true, None), ("c2", true, None)]);
        let stat = report.stat();
        assert_eq!(stat[0], KindCount { kind: "Collider".into(), added: 1, removed: 1, changed: 1 });
        assert_eq!(stat[1], KindCount { kind: "Thing".into(), added: 1, removed: 1, changed: 0 });
    }
}
