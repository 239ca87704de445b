//! Turning a merge into one concrete level: every conflict taken from its resolution, or from
//! the side asked for. Rendering both sides' resolutions and marking where they differ gives
//! the conflict markers; a clean merge resolves the same either way.

use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use crate::coherence::GraphNode;
use crate::merge::{MValue, MergedLevel, ObjectState};
use crate::model::{effective_parent, Key, ObjectId, PathSeg, PropPath, RefRole, Reference, Value, ValueKind};
use crate::side::Side;

/// Something the merge settled on its own that the user should hear about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub object: ObjectId,
    pub message: String,
}

/// A resolved value: an input value taken whole, or assembled from parts.
#[derive(Debug, Clone)]
pub enum RValue<'a> {
    Exact(&'a Value<'a>),
    Map { template: &'a Value<'a>, entries: Vec<(Key<'a>, RValue<'a>)> },
    List { template: &'a Value<'a>, items: Vec<RValue<'a>> },
    Children { template: &'a Value<'a>, ids: Vec<ObjectId> },
}

impl<'a> RValue<'a> {
    /// Every reference inside, with its path.
    pub fn references(&self, path: &mut PropPath, out: &mut Vec<(PropPath, Reference)>) {
        match self {
            RValue::Exact(v) => v.references(path, out),
            RValue::Map { entries, .. } => {
                for (k, v) in entries {
                    path.0.push(PathSeg::Key((*k).to_owned()));
                    v.references(path, out);
                    path.0.pop();
                }
            }
            RValue::List { items, .. } => {
                for (i, v) in items.iter().enumerate() {
                    path.0.push(PathSeg::Index(i));
                    v.references(path, out);
                    path.0.pop();
                }
            }
            RValue::Children { .. } => {}
        }
    }

    /// The children listed inside parts taken whole from an input (an object one side added
    /// lists its own), which are written as that input has them, whatever became of the
    /// children, each with the side whose text writes it; assembled lists hold only children
    /// the level keeps.
    fn children_written_whole(&self, out: &mut Vec<(&'a ObjectId, Side)>) {
        fn listed<'a>(v: &'a Value<'a>, side: Side, out: &mut Vec<(&'a ObjectId, Side)>) {
            if !v.has_children {
                return;
            }
            match &v.kind {
                ValueKind::Children(ids) => out.extend(ids.iter().map(|id| (id, side))),
                ValueKind::Map(members) => members.iter().for_each(|(_, m)| listed(m, side, out)),
                ValueKind::List(items) => items.iter().for_each(|i| listed(i, side, out)),
                ValueKind::Scalar { .. } => {}
            }
        }
        match self {
            RValue::Exact(v) => listed(v, v.origin.side, out),
            RValue::Map { entries, .. } => entries.iter().for_each(|(_, e)| e.children_written_whole(out)),
            RValue::List { items, .. } => items.iter().for_each(|i| i.children_written_whole(out)),
            RValue::Children { .. } => {}
        }
    }

    /// This value with the child lists inside its parts taken whole written by id.
    fn with_children_by_id(&self) -> RValue<'a> {
        match self {
            RValue::Exact(v) => children_by_id(v),
            RValue::Map { template, entries } => {
                RValue::Map { template, entries: entries.iter().map(|(k, e)| (*k, e.with_children_by_id())).collect() }
            }
            RValue::List { template, items } => RValue::List { template, items: items.iter().map(RValue::with_children_by_id).collect() },
            RValue::Children { .. } => self.clone(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct RObject<'a> {
    pub id: ObjectId,
    pub kind: &'a str,
    pub parent: Option<ObjectId>,
    pub props: RValue<'a>,
}

/// One concrete merged level.
#[derive(Debug, Clone)]
pub struct Resolved<'a> {
    pub objects: IndexMap<ObjectId, RObject<'a>, FxBuildHasher>,
    pub root: Option<ObjectId>,
}

impl<'a> Resolved<'a> {
    /// The graph view used by the coherence checks; `with_refs: false` leaves references out
    /// (for levels known to hold none).
    pub fn graph(&self, with_refs: bool) -> Vec<GraphNode> {
        self.objects
            .values()
            .map(|o| {
                let mut refs = Vec::new();
                if with_refs {
                    o.props.references(&mut PropPath::default(), &mut refs);
                }
                // A child written with its holder's text though the level lacks it (a Tiled
                // property theirs added naming an object ours deleted, which goes with that
                // deletion in ours' view) is named as a reference is, so that the level is
                // not sound.
                let mut listed = Vec::new();
                o.props.children_written_whole(&mut listed);
                let missing = listed.into_iter().map(|(id, _)| id).filter(|id| !self.objects.contains_key(*id));
                refs.extend(missing.map(|id| (PropPath::default(), Reference { target: id.clone(), role: RefRole::Other })));
                GraphNode { id: o.id.clone(), parent: o.parent.clone(), refs, line: 0 }
            })
            .collect()
    }
}

impl<'a> MergedLevel<'a> {
    fn side_for(&self, conflict: usize, pick: Side) -> Side {
        self.conflicts[conflict].resolution.as_ref().map_or(pick, |r| r.side)
    }

    fn resolve_value(&self, v: &MValue<'a>, pick: Side, alive: &FxHashSet<ObjectId>) -> Option<RValue<'a>> {
        Some(match v {
            MValue::Exact(v) => RValue::Exact(v),
            MValue::Map { template, entries } => RValue::Map {
                template,
                entries: entries.iter().filter_map(|(k, v)| self.resolve_value(v, pick, alive).map(|v| (*k, v))).collect(),
            },
            MValue::List { template, items } => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    match item {
                        MValue::Conflict(c) => {
                            let side = self.side_for(*c, pick);
                            out.extend(self.conflicts[*c].values.get(side).iter().map(|v| RValue::Exact(v)));
                        }
                        other => out.extend(self.resolve_value(other, pick, alive)),
                    }
                }
                RValue::List { template, items: out }
            }
            MValue::IfAlive { target, value, otherwise } => RValue::Exact(if alive.contains(target) { (*value)? } else { (*otherwise)? }),
            MValue::IfSide { conflict, side, value, otherwise } => {
                RValue::Exact(if self.side_for(*conflict, pick) == *side { value } else { (*otherwise)? })
            }
            MValue::Children { template, ids } => {
                RValue::Children { template, ids: ids.iter().filter(|id| alive.contains(*id)).cloned().collect() }
            }
            MValue::Conflict(c) => {
                let side = self.side_for(*c, pick);
                let vals = self.conflicts[*c].values.get(side);
                RValue::Exact(vals.first()?)
            }
        })
    }

    /// The level with every open conflict taken from `pick` (settled ones from their resolution).
    pub fn resolve(&self, pick: Side) -> Resolved<'a> {
        // Which objects exist under this pick; those that disappear with a conflict's choice
        // take the objects placed under them along.
        let mut alive: FxHashSet<ObjectId> = FxHashSet::default();
        let mut chosen_away: FxHashSet<ObjectId> = FxHashSet::default();
        // The side whose version of an object this view reads: a conflict's choice for an
        // object taken whole, else the pick.
        let view_side = |o: &crate::merge::MergedObject<'a>| match &o.state {
            ObjectState::Merged(_) => pick,
            ObjectState::Chosen(c) | ObjectState::Follows(c) => self.side_for(*c, pick),
        };
        let is_taken_whole = |o: &crate::merge::MergedObject<'a>| !matches!(o.state, ObjectState::Merged(_));
        for o in &self.objects {
            if !is_taken_whole(o) || o.sides.get(view_side(o)).is_some() {
                alive.insert(o.id.clone());
            } else {
                chosen_away.insert(o.id.clone());
            }
        }
        let props_of = |o: &crate::merge::MergedObject<'a>, alive: &FxHashSet<ObjectId>| match &o.state {
            ObjectState::Merged(v) => self.resolve_value(v, pick, alive),
            _ => o.sides.get(view_side(o)).map(|s| RValue::Exact(&s.props)),
        };
        // Where the view's side put an object. One taken whole hangs there (both sides added a
        // Cocos node under two scenes, one of them the other side's deletion: the view keeping
        // the deletion keeps the node under the scene its side wrote); a merged one hangs at
        // its merged parent, or there when the view lacks that parent (both sides moved a node,
        // into a panel and into its re-created copy).
        let side_parent = |o: &crate::merge::MergedObject<'a>| o.sides.get(view_side(o)).map(|s| s.parent.as_ref());
        // One merged member by member that the sides moved apart hangs where the side this
        // view takes for the conflict on its parent put it, as its members then say.
        let parent_chosen = |o: &crate::merge::MergedObject<'a>| {
            let &c = self.moved_in_conflict.get(&o.id)?;
            o.sides.get(self.side_for(c, pick)).map(|s| s.parent.as_ref())
        };
        let mut parents: Vec<Option<&ObjectId>> = self
            .objects
            .iter()
            .map(|o| {
                if is_taken_whole(o) {
                    side_parent(o).unwrap_or(o.parent.as_ref())
                } else {
                    parent_chosen(o).unwrap_or(o.parent.as_ref())
                }
            })
            .collect();
        // Parent references do not depend on which children are alive: find them once.
        let declared: Vec<Option<ObjectId>> = self
            .objects
            .iter()
            .map(|o| {
                if !self.parent_refs || !alive.contains(&o.id) {
                    return None;
                }
                let mut refs = Vec::new();
                props_of(o, &alive)?.references(&mut PropPath::default(), &mut refs);
                refs.into_iter().find(|(_, r)| r.role == RefRole::Parent).map(|(_, r)| r.target)
            })
            .collect();
        loop {
            let mut removed = false;
            for ((o, declared), parent) in self.objects.iter().zip(&declared).zip(parents.iter_mut()) {
                if !alive.contains(&o.id) {
                    continue;
                }
                let gone = |p: Option<&ObjectId>| p.is_some_and(|p| chosen_away.contains(p));
                if gone(*parent) {
                    // Only a parent the view holds: one a side deleted cleanly is in no view
                    // (ours moved a node under one theirs deleted, and deleted its old parent).
                    if let Some(there) = side_parent(o).flatten().filter(|&p| !gone(Some(p)) && alive.contains(p)) {
                        *parent = Some(there);
                    }
                }
                if gone(*parent) || gone(declared.as_ref()) {
                    alive.remove(&o.id);
                    chosen_away.insert(o.id.clone());
                    removed = true;
                }
            }
            if !removed {
                break;
            }
        }
        let mut objects = IndexMap::with_capacity_and_hasher(alive.len(), FxBuildHasher);
        let mut taken_whole = Vec::new();
        for (at, o) in self.objects.iter().enumerate().filter(|(_, o)| alive.contains(&o.id)) {
            if let Some(props) = props_of(o, &alive) {
                if is_taken_whole(o) {
                    taken_whole.push(at);
                }
                objects.insert(o.id.clone(), RObject { id: o.id.clone(), kind: o.kind, parent: parents[at].cloned(), props });
            }
        }
        if !taken_whole.is_empty() {
            self.release_children_moved_away(&mut objects, &taken_whole, &declared, pick);
        }
        if !chosen_away.is_empty() {
            self.unlist_chosen_away(&mut objects, &chosen_away);
        }
        if !self.moved_between_lists.is_empty() {
            self.list_moved_objects_once(&mut objects);
        }
        self.write_children_as_resolved(&mut objects);
        Resolved { objects, root: self.root.clone() }
    }

    /// A value taken whole from one side's text writes the children it lists as that text has
    /// them. Where the view resolves one of them otherwise (an object theirs moved into a
    /// layer theirs added, which ours edited), its holder writes its child lists by id. A
    /// holder so opened is written otherwise in turn: its own holder is looked at again.
    fn write_children_as_resolved(&self, objects: &mut IndexMap<ObjectId, RObject<'a>, FxBuildHasher>) {
        loop {
            let stale: Vec<ObjectId> = objects
                .values()
                .filter(|o| {
                    let mut listed = Vec::new();
                    o.props.children_written_whole(&mut listed);
                    listed.into_iter().any(|(child, side)| self.written_otherwise(objects, child, side))
                })
                .map(|o| o.id.clone())
                .collect();
            if stale.is_empty() {
                return;
            }
            for id in stale {
                if let Some(o) = objects.get_mut(&id) {
                    o.props = o.props.with_children_by_id();
                }
            }
        }
    }

    /// Whether `child`, listed inside a value taken whole from `side`'s text, is resolved to
    /// other text than that side's version of it (a child the view lacks is no such child:
    /// [`Resolved::graph`] names it).
    fn written_otherwise(&self, objects: &IndexMap<ObjectId, RObject<'a>, FxBuildHasher>, child: &ObjectId, side: Side) -> bool {
        let Some(resolved) = objects.get(child) else { return false };
        let embedded = self.index.get(child).and_then(|&i| *self.objects[i].sides.get(side));
        match (&resolved.props, embedded) {
            (RValue::Exact(v), Some(e)) => !(std::ptr::eq(v.raw, e.props.raw) || v.raw == e.props.raw),
            _ => true,
        }
    }

    /// An object base holds that lists, as a side wrote it, a child the view leaves out (a
    /// Tiled property ours gave an object, naming one theirs deleted, in theirs' view, where
    /// it goes with the deletion) no longer lists it. An object one side added keeps its
    /// lists: the level then lacks what it lists, and the merge ties it to the child's fate.
    fn unlist_chosen_away(&self, objects: &mut IndexMap<ObjectId, RObject<'a>, FxBuildHasher>, chosen_away: &FxHashSet<ObjectId>) {
        let in_base = |holder: &ObjectId| self.index.get(holder).is_some_and(|&i| self.objects[i].sides.base.is_some());
        self.unlist(objects, chosen_away.iter().map(|gone| (gone, None)), in_base);
    }

    /// An object a side moved from one list to another is written in the list of the parent
    /// this view gives it, and left out of the others that held it in some version (both
    /// sides moved it, each into its own list; or one side's move and the other's edit kept
    /// it in both).
    fn list_moved_objects_once(&self, objects: &mut IndexMap<ObjectId, RObject<'a>, FxBuildHasher>) {
        let placed: Vec<_> =
            self.moved_between_lists.iter().map(|moved| (moved, objects.get(moved).and_then(|o| o.parent.clone()))).collect();
        self.unlist(objects, placed.iter().map(|(moved, placed)| (*moved, placed.as_ref())), |_| true);
    }

    /// Each object given out of the lists of the parents any version gives it (those `holds`
    /// accepts), but the one given with it (where the view places it).
    fn unlist<'i>(
        &self,
        objects: &mut IndexMap<ObjectId, RObject<'a>, FxBuildHasher>,
        unlisted: impl Iterator<Item = (&'i ObjectId, Option<&'i ObjectId>)>,
        holds: impl Fn(&ObjectId) -> bool,
    ) {
        let mut by_holder: FxHashMap<ObjectId, Vec<ObjectId>> = FxHashMap::default();
        for (id, kept_by) in unlisted {
            let Some(&i) = self.index.get(id) else { continue };
            let s = &self.objects[i].sides;
            for holder in [s.base, s.ours, s.theirs].into_iter().flatten().filter_map(|o| o.parent.as_ref()) {
                if Some(holder) != kept_by && holds(holder) {
                    let dropped = by_holder.entry(holder.clone()).or_default();
                    if !dropped.contains(id) {
                        dropped.push(id.clone());
                    }
                }
            }
        }
        let mut changed = Vec::new();
        for (holder, dropped) in by_holder {
            if let Some(o) = objects.get_mut(&holder) {
                if let Some(props) = without_children(&o.props, &dropped) {
                    o.props = props;
                    changed.push(holder);
                }
            }
        }
        write_apart_from_ancestors(objects, &changed);
    }

    /// An object a whole-object conflict keeps as one side wrote it still lists, among its
    /// children (a Unity transform's `m_Children`, a Cocos node's `_children` entries), those
    /// the other side moved elsewhere before deleting it: the moves stand, so the entries
    /// naming them go. A child is one the list names whose parent that side's version gives as
    /// the object, or as what stands for it (a Unity instance's `m_AddedGameObjects` entry for
    /// an object under its stripped transform); it is moved away when its parent in this view
    /// is another.
    fn release_children_moved_away(
        &self,
        objects: &mut IndexMap<ObjectId, RObject<'a>, FxBuildHasher>,
        taken_whole: &[usize],
        declared: &[Option<ObjectId>],
        pick: Side,
    ) {
        let view_parent = |id: &ObjectId| -> Option<Option<&ObjectId>> {
            let &i = self.index.get(id)?;
            objects.contains_key(id).then(|| declared[i].as_ref().or(self.objects[i].parent.as_ref()))
        };
        // The holders of the entry objects in this view, by the child each names alone.
        let mut listed_by: FxHashMap<&ObjectId, Vec<&ObjectId>> = FxHashMap::default();
        for id in objects.keys() {
            let Some(o) = self.index.get(id).map(|&i| &self.objects[i]) else { continue };
            let any = o.sides.ours.or(o.sides.theirs).or(o.sides.base);
            if let (Some(holder), Some(child)) = (&o.parent, any.and_then(|v| crate::merge::sole_reference(&v.props))) {
                listed_by.entry(child).or_default().push(holder);
            }
        }
        let mut released = Vec::new();
        let mut entries_released: FxHashMap<ObjectId, Vec<ObjectId>> = FxHashMap::default();
        for &at in taken_whole {
            let o = &self.objects[at];
            let (ObjectState::Chosen(c) | ObjectState::Follows(c)) = o.state else { continue };
            let side = self.side_for(c, pick);
            let Some(version) = o.sides.get(side) else { continue };
            let moved_away_from = |holder: &ObjectId, listed: &ObjectId| {
                // The object the entry stands for: a prefab instance, for its stripped transform.
                let child = self.listed_for.get(listed).unwrap_or(listed);
                // A parent stands for the holder where the holder is what it stands for: an
                // object added under an instance's stripped transform is listed by the instance.
                let holds = |parent: &ObjectId| parent == holder || self.listed_for.get(parent) == Some(holder);
                let parent_there = self.index.get(child).and_then(|&i| *self.objects[i].sides.get(side)).and_then(effective_parent);
                parent_there.as_ref().is_some_and(holds) && view_parent(child).is_some_and(|p| !p.is_some_and(holds))
            };
            // An entry object of its holder's list, naming the child alone, which base listed
            // there too, while the view lists the child elsewhere: the other side's move alone
            // took it away (where a conflict holds the move, the entry goes with the side that
            // wrote it, and no other lists the child in this view).
            if let (Some(holder), Some(child)) = (&o.parent, crate::merge::sole_reference(&version.props)) {
                let in_base_there =
                    || self.index.get(child).and_then(|&i| self.objects[i].sides.base).and_then(effective_parent).as_ref() == Some(holder);
                let listed_elsewhere = || listed_by.get(child).is_some_and(|holders| holders.iter().any(|&h| h != holder));
                if o.sides.base.is_some() && in_base_there() && listed_elsewhere() {
                    entries_released.entry(holder.clone()).or_default().push(o.id.clone());
                    continue;
                }
            }
            if let Some(props) = without_listed(&version.props, &|child: &str| moved_away_from(&o.id, &ObjectId::new(child))) {
                released.push((o.id.clone(), props));
            }
        }
        let mut changed = Vec::new();
        for (id, props) in released {
            if let Some(obj) = objects.get_mut(&id) {
                obj.props = props;
                changed.push(id);
            }
        }
        for (holder, entries) in entries_released {
            for entry in &entries {
                objects.shift_remove(entry);
            }
            if let Some(o) = objects.get_mut(&holder) {
                if let Some(props) = without_children(&o.props, &entries) {
                    o.props = props;
                    changed.push(holder);
                }
            }
        }
        write_apart_from_ancestors(objects, &changed);
    }
}

/// Objects whose props this view changed after they were resolved are written on their own:
/// an ancestor taken whole would write its children from its own text, the changed one among
/// them as it was (a Tiled group one side kept, its layer still listing an object the other
/// side moved to another layer). Such ancestors write their child lists by id instead.
fn write_apart_from_ancestors(objects: &mut IndexMap<ObjectId, RObject<'_>, FxBuildHasher>, changed: &[ObjectId]) {
    let mut seen: FxHashSet<ObjectId> = FxHashSet::default();
    for id in changed {
        let mut at = objects.get(id).and_then(|o| o.parent.clone());
        while let Some(ancestor) = at {
            if !seen.insert(ancestor.clone()) {
                break;
            }
            let Some(o) = objects.get_mut(&ancestor) else { break };
            if let RValue::Exact(whole) = o.props {
                if whole.has_children {
                    o.props = children_by_id(whole);
                }
            }
            at = o.parent.clone();
        }
    }
}

/// `v` with every child list written by id (each child as the view resolves it), the rest
/// as it is.
fn children_by_id<'a>(v: &'a Value<'a>) -> RValue<'a> {
    if !v.has_children {
        return RValue::Exact(v);
    }
    match &v.kind {
        ValueKind::Map(members) => RValue::Map { template: v, entries: members.iter().map(|(k, m)| (*k, children_by_id(m))).collect() },
        ValueKind::List(items) => RValue::List { template: v, items: items.iter().map(children_by_id).collect() },
        ValueKind::Children(ids) => RValue::Children { template: v, ids: ids.clone() },
        ValueKind::Scalar { .. } => RValue::Exact(v),
    }
}

/// `v` without the entries of its keyed lists that name a child `moved_away` (an entry naming
/// child X is keyed by X's id and refers to X); `None` when it has none.
fn without_listed<'a>(v: &'a Value<'a>, moved_away: &impl Fn(&str) -> bool) -> Option<RValue<'a>> {
    if !v.has_references {
        return None;
    }
    let ValueKind::Map(entries) = &v.kind else { return None };
    let names = |key: &str, item: &Value<'_>| {
        let mut refs = Vec::new();
        item.references(&mut PropPath::default(), &mut refs);
        refs.iter().any(|(_, r)| r.target.as_str() == key)
    };
    let mut changed = false;
    let mut kept = Vec::with_capacity(entries.len());
    for (k, item) in entries {
        if v.keyed && names(k, item) && moved_away(k) {
            changed = true;
            continue;
        }
        match without_listed(item, moved_away) {
            Some(inner) => {
                changed = true;
                kept.push((*k, inner));
            }
            None => kept.push((*k, RValue::Exact(item))),
        }
    }
    changed.then_some(RValue::Map { template: v, entries: kept })
}

/// `v` without the ids `dropped` in its child lists; `None` when it lists none of them. A
/// value taken whole is opened up into its parts first.
fn without_children<'a>(v: &RValue<'a>, dropped: &[ObjectId]) -> Option<RValue<'a>> {
    let mut changed = false;
    let mut part = |p: &RValue<'a>| match without_children(p, dropped) {
        Some(new) => {
            changed = true;
            new
        }
        None => p.clone(),
    };
    let new = match v {
        RValue::Exact(whole) => return without_children(&opened(whole)?, dropped),
        RValue::Children { template, ids } => {
            changed = ids.iter().any(|id| dropped.contains(id));
            RValue::Children { template, ids: ids.iter().filter(|id| !dropped.contains(id)).cloned().collect() }
        }
        RValue::Map { template, entries } => RValue::Map { template, entries: entries.iter().map(|(k, e)| (*k, part(e))).collect() },
        RValue::List { template, items } => RValue::List { template, items: items.iter().map(&mut part).collect() },
    };
    changed.then_some(new)
}

/// A value taken whole as its parts, each taken whole; `None` for a scalar.
fn opened<'a>(v: &'a Value<'a>) -> Option<RValue<'a>> {
    Some(match &v.kind {
        ValueKind::Map(members) => RValue::Map { template: v, entries: members.iter().map(|(k, m)| (*k, RValue::Exact(m))).collect() },
        ValueKind::List(items) => RValue::List { template: v, items: items.iter().map(RValue::Exact).collect() },
        ValueKind::Children(ids) => RValue::Children { template: v, ids: ids.clone() },
        ValueKind::Scalar { .. } => return None,
    })
}

/// Replace the merged value at `path` (map keys only) with `new`.
pub(crate) fn replace_at<'a>(v: &mut MValue<'a>, path: &[PathSeg], new: MValue<'a>) -> bool {
    match path.split_first() {
        None => {
            *v = new;
            true
        }
        Some((PathSeg::Key(k), rest)) => {
            // A map taken whole is opened up into its members first.
            v.open_map();
            match v {
                MValue::Map { entries, .. } => entries.iter_mut().find(|(ek, _)| ek == k).is_some_and(|(_, ev)| replace_at(ev, rest, new)),
                _ => false,
            }
        }
        Some(_) => false,
    }
}

pub(crate) fn lookup<'v, 'a>(v: &'v Value<'a>, path: &[PathSeg]) -> Option<&'v Value<'a>> {
    match path.split_first() {
        None => Some(v),
        Some((PathSeg::Key(k), rest)) => lookup(v.get(k)?, rest),
        Some(_) => None,
    }
}
