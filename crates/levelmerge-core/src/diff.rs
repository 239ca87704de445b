//! Semantic 2-way diff of levels: objects added, removed, moved; properties changed.

use rustc_hash::FxHashSet;

use crate::diff3::changed_stretches;
use crate::model::{effective_parent, Level, ObjectId, PathSeg, PropPath, Value, ValueKind};

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

struct Cx<'c> {
    id: &'c ObjectId,
    kind: &'c str,
    out: &'c mut Vec<Change>,
}

impl Cx<'_> {
    fn modified(&mut self, path: &PropPath, old: Option<String>, new: Option<String>) {
        self.out.push(Change::Modified { id: self.id.clone(), kind: self.kind.to_owned(), path: path.to_string(), old, new });
    }

    fn value(&mut self, path: &mut PropPath, old: Option<&Value<'_>>, new: Option<&Value<'_>>) {
        let (old, new) = match (old, new) {
            (None, None) => return,
            (Some(o), Some(n)) => (o, n),
            (o, n) => {
                // Child slots appearing or going are told as added/removed objects.
                if !o.or(n).is_some_and(|v| matches!(v.kind, ValueKind::Children(_))) {
                    self.modified(path, o.map(|v| v.raw.to_owned()), n.map(|v| v.raw.to_owned()));
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
                        self.modified(path, join(&ol[a]), join(&nl[b]));
                        path.0.pop();
                    }
                }
            }
            (ValueKind::Children(oc), ValueKind::Children(nc)) => {
                let kept: FxHashSet<&ObjectId> = oc.iter().filter(|id| nc.contains(id)).collect();
                let a = oc.iter().filter(|id| kept.contains(id));
                let b = nc.iter().filter(|id| kept.contains(id));
                if !a.eq(b) {
                    self.out.push(Change::Reordered { id: self.id.clone(), kind: self.kind.to_owned(), path: path.to_string() });
                }
            }
            _ => self.modified(path, Some(old.raw.to_owned()), Some(new.raw.to_owned())),
        }
    }
}
