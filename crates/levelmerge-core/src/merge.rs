//! The 3-way merge of levels (the LevelMerge paper's rules, made precise).
//!
//! * Objects are matched by id. An object kept by both sides has its properties merged one by
//!   one; one changed on both sides to different values is a conflict, to the same value is not.
//! * An object added on one side is inserted; the same id added on both sides with different
//!   content is a conflict.
//! * Deleting an object conflicts with the other side changing it, anything in its subtree,
//!   adding a child under it, or adding a use of it (an object naming it more often than in
//!   base does); otherwise its subtree goes with it.
//!   The objects of a conflicting subtree follow the conflict's resolution together.
//! * Maps merge by key, child slots and keys by identity ([`crate::order`]), lists without
//!   identity like diff3 ([`crate::diff3`]).
//! * Where one side left a value byte-identical to base, the other side's value is taken whole,
//!   so that `merge(b, x, b) = x` and `merge(b, b, y) = y` hold byte for byte.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::conflict::{Conflict, ConflictKind};
use crate::diff3::{diff3, Chunk, Take};
use crate::model::{effective_parent, Key, Level, Object, ObjectId, PathSeg, PropPath, Value, ValueKind};
use crate::order::{merge_order, sort_concurrent_insertions};
use crate::policy::{Policy, RuleAction};
use crate::resolve::Note;
use crate::side::{Side, Sides};

/// A merged value: taken whole from one input, or assembled from merged parts.
#[derive(Debug, Clone)]
pub enum MValue<'a> {
    /// Exactly this input value (its source bytes are written as they are).
    Exact(&'a Value<'a>),
    /// A map assembled entry by entry; `template` lends its formatting.
    Map { template: &'a Value<'a>, entries: Vec<(Key<'a>, MValue<'a>)> },
    /// A list assembled element by element; a `Conflict` item stands for a stretch of elements.
    List { template: &'a Value<'a>, items: Vec<MValue<'a>> },
    /// A child slot: the candidate children in merged order (filtered when resolved).
    Children { template: &'a Value<'a>, ids: Vec<ObjectId> },
    /// Whatever the conflict with this index is resolved to.
    Conflict(usize),
    /// A reference one side removed along with the object it names, whose existence a
    /// whole-object conflict decides: written when that object is kept.
    IfAlive { target: ObjectId, value: &'a Value<'a> },
}

/// How a merged object's existence and content are decided.
#[derive(Debug, Clone)]
pub enum ObjectState<'a> {
    /// The object exists with these merged properties.
    Merged(MValue<'a>),
    /// Existence and content come wholly from the side the conflict is resolved to.
    Chosen(usize),
    /// Inside the subtree of a `Chosen` object: follows that conflict's resolution.
    Follows(usize),
}

#[derive(Debug, Clone)]
pub struct MergedObject<'a> {
    pub id: ObjectId,
    pub kind: &'a str,
    pub parent: Option<ObjectId>,
    pub sides: Sides<Option<&'a Object<'a>>>,
    pub state: ObjectState<'a>,
}

/// The outcome of a merge: merged objects (deleted ones left out), conflicts, and notes on what
/// was settled automatically.
#[derive(Debug, Clone)]
pub struct MergedLevel<'a> {
    pub objects: Vec<MergedObject<'a>>,
    pub index: FxHashMap<ObjectId, usize>,
    pub conflicts: Vec<Conflict<'a>>,
    pub notes: Vec<Note>,
    pub root: Option<ObjectId>,
    /// Whether any input holds a parent reference (only then can a merge make a cycle).
    pub parent_refs: bool,
    /// Whether any input holds a reference at all (only then can one dangle).
    pub references: bool,
}

impl MergedLevel<'_> {
    /// Conflicts that no policy settled.
    pub fn open_conflicts(&self) -> usize {
        self.conflicts.iter().filter(|c| c.resolution.is_none()).count()
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    pub policy: Policy,
    /// Whether a field that one side added to an object counts as an edit that a deletion on
    /// the other side conflicts with. Formats whose editors add fields on every re-save (Unity)
    /// say no: deleting the object loses no one's work.
    pub added_fields_are_edits: bool,
    /// A member that numbers the layout of the map holding it (Unity's `serializedVersion`):
    /// two sides with different layouts are never mixed; the layout a side re-saved is taken whole.
    pub layout_key: Option<&'static str>,
    /// Members an editor rewrites as bookkeeping (Unity's `m_RootOrder`, derived from the
    /// sibling order, and `serializedVersion`): a side that changed, added or dropped only these
    /// did not edit the object, so the other side's deletion of it loses nothing.
    pub bookkeeping_members: &'static [&'static str],
    /// Whether an object both sides added under one id (and of one kind) is one object, merged
    /// member by member, rather than a conflict as a whole. A format says yes when its codec
    /// has already given different objects that met under one id different ids.
    pub same_id_is_same_object: bool,
    /// Which lists keep all the items both sides inserted at one place (ours first). Lists that
    /// are programs rather than collections (an editor's event sheets) do not: two insertions
    /// there are a conflict.
    pub concurrent_insertions: ConcurrentInsertions,
    /// Values that hold nothing, as the format writes them (JSON's `""` and `null`): when both
    /// sides add one member and one side's value is one of these, the other side's value is
    /// kept (with a note); the empty one carried no work to lose.
    pub empty_values: &'static [&'static str],
    /// Objects a side deleted that the other side's merged edits still use in a way the merge
    /// could not see coming (an instance moved to where the deleted definition was named): their
    /// deletion is a delete/modify conflict. Filled by a second pass when the first merge left
    /// a reference dangling.
    pub contested: FxHashSet<ObjectId>,
}

/// Which lists keep the items both sides inserted at one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConcurrentInsertions {
    /// Every list: lists are collections (the default).
    KeptEverywhere,
    /// Only the lists held by members of these names (GDevelop's `instances`): the format's
    /// other lists are programs.
    KeptIn(&'static [&'static str]),
}

impl ConcurrentInsertions {
    fn kept_in(self, path: &[Seg<'_>]) -> bool {
        match self {
            ConcurrentInsertions::KeptEverywhere => true,
            ConcurrentInsertions::KeptIn(members) => path
                .iter()
                .rev()
                .find_map(|s| match s {
                    Seg::Key(k) => Some(k),
                    _ => None,
                })
                .is_some_and(|k| members.contains(k)),
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            policy: Policy::default(),
            added_fields_are_edits: true,
            bookkeeping_members: &[],
            same_id_is_same_object: false,
            layout_key: None,
            concurrent_insertions: ConcurrentInsertions::KeptEverywhere,
            empty_values: &[],
            contested: FxHashSet::default(),
        }
    }
}

/// Per-side facts about what changed relative to base.
struct SideChanges {
    /// Objects whose subtree holds an addition or a modification on this side.
    subtree_touched: FxHashSet<ObjectId>,
    /// Objects that this side newly references.
    newly_referenced: FxHashSet<ObjectId>,
}

fn parent_in(level: &Level<'_>, id: &ObjectId) -> Option<ObjectId> {
    level.get(id).and_then(effective_parent)
}

/// Children of every object, in level order (only needed when whole-object conflicts exist).
fn children_of(level: &Level<'_>) -> FxHashMap<ObjectId, Vec<ObjectId>> {
    let mut children: FxHashMap<ObjectId, Vec<ObjectId>> = FxHashMap::default();
    for o in level.objects.values() {
        if let Some(p) = effective_parent(o) {
            children.entry(p).or_default().push(o.id.clone());
        }
    }
    children
}

/// For each object, the objects that refer to it other than as their parent (a Unity
/// transform names its game object so).
fn referrers_of(level: &Level<'_>) -> FxHashMap<ObjectId, Vec<ObjectId>> {
    let mut referrers: FxHashMap<ObjectId, Vec<ObjectId>> = FxHashMap::default();
    let mut refs = Vec::new();
    for o in level.objects.values() {
        refs.clear();
        o.props.references(&mut PropPath::default(), &mut refs);
        for (_, r) in refs.drain(..) {
            if r.role == crate::model::RefRole::Other {
                referrers.entry(r.target).or_default().push(o.id.clone());
            }
        }
    }
    referrers
}

/// The objects that one side's version of `at` refers to and the other side deleted without a
/// conflict of their own: kept with `at` when its conflict keeps that side's version (a texture
/// kept for a node still needs its image), deleted with it otherwise.
fn deleted_referents(at: &ObjectId, base: &Level<'_>, sides: [&Level<'_>; 2], alive: &FxHashSet<ObjectId>) -> Vec<ObjectId> {
    let mut needed = Vec::new();
    let mut refs = Vec::new();
    for (keeper, deleter) in [(sides[0], sides[1]), (sides[1], sides[0])] {
        let Some(object) = keeper.get(at) else { continue };
        refs.clear();
        object.props.references(&mut PropPath::default(), &mut refs);
        for (_, r) in refs.drain(..) {
            let deleted_by_other = base.get(&r.target).is_some() && keeper.get(&r.target).is_some() && deleter.get(&r.target).is_none();
            if deleted_by_other && !alive.contains(&r.target) && !needed.contains(&r.target) {
                needed.push(r.target);
            }
        }
    }
    needed
}

/// What counts as an edit that a deletion on the other side would lose.
#[derive(Clone, Copy)]
struct EditRules {
    added_fields_are_edits: bool,
    /// Members whose change alone is the editor's bookkeeping (see [`Options::bookkeeping_members`]).
    bookkeeping: &'static [&'static str],
}

/// Whether `side` changes `base` in a way that a deletion on the other side would lose:
/// anything but removing members or children, or moving children around (the deletion
/// removes them too: an editor dropping a field its script no longer has is not an edit).
fn modifies(base: &Value<'_>, side: &Value<'_>, rules: EditRules) -> bool {
    if base.identical(side) || base.same(side) {
        return false;
    }
    match (&base.kind, &side.kind) {
        (ValueKind::Map(b), ValueKind::Map(s)) => s.iter().any(|(k, sv)| match b.iter().find(|(bk, _)| bk == k) {
            None => rules.added_fields_are_edits,
            Some(_) if rules.bookkeeping.contains(k) => false,
            Some((_, bv)) => modifies(bv, sv, rules),
        }),
        (ValueKind::Children(b), ValueKind::Children(s)) => {
            let b: FxHashSet<&ObjectId> = b.iter().collect();
            s.iter().any(|id| !b.contains(id))
        }
        (ValueKind::List(b), ValueKind::List(s)) if base.has_children || side.has_children => {
            b.len() != s.len() || b.iter().zip(s).any(|(x, y)| modifies(x, y, rules))
        }
        _ => true,
    }
}

/// Whether a value is a number written plainly (`-8`, `1.5e2`; not `inf` or `NaN`).
fn is_number(value: &Value<'_>) -> bool {
    let plain = value.raw.bytes().next().is_some_and(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.'));
    matches!(value.kind, ValueKind::Scalar { reference: None }) && plain && value.raw.parse::<f64>().is_ok()
}

fn side_changes(base: &Level<'_>, side: &Level<'_>, rules: EditRules, aligned: bool) -> SideChanges {
    let mut subtree_touched = FxHashSet::default();
    let mut newly_referenced = FxHashSet::default();
    for (at, obj) in side.objects.values().enumerate() {
        // Levels holding the same ids in the same order hold each at the same place.
        let in_base = if aligned { base.objects.get_index(at).map(|(_, o)| o) } else { base.get(&obj.id) };
        let touched = match in_base {
            None => true,
            Some(b) => {
                modifies(&b.props, &obj.props, rules) || (!b.props.identical(&obj.props) && effective_parent(b) != effective_parent(obj))
            }
        };
        if !touched {
            continue;
        }
        let mut refs = Vec::new();
        obj.props.references(&mut PropPath::default(), &mut refs);
        let mut base_refs = Vec::new();
        if let Some(b) = in_base {
            b.props.references(&mut PropPath::default(), &mut base_refs);
        }
        // A target this side's version names more often than base's does: it added a use
        // (an instance placed beside one that was there, say), not only kept base's.
        let mut added_uses: FxHashMap<&ObjectId, isize> = FxHashMap::default();
        for (_, r) in &refs {
            *added_uses.entry(&r.target).or_default() += 1;
        }
        for (_, r) in &base_refs {
            *added_uses.entry(&r.target).or_default() -= 1;
        }
        newly_referenced.extend(added_uses.into_iter().filter(|(_, n)| *n > 0).map(|(target, _)| target.clone()));
        // Mark the object and its ancestors on this side.
        let mut at = Some(obj.id.clone());
        let mut steps = 0;
        while let Some(id) = at {
            steps += 1;
            if !subtree_touched.insert(id.clone()) || steps > side.objects.len() {
                break;
            }
            at = parent_in(side, &id);
        }
    }
    SideChanges { subtree_touched, newly_referenced }
}

/// A step of the path being merged, borrowed from the inputs (turned into a [`PropPath`] only
/// when a conflict needs one).
#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
    Range(usize, usize),
}

fn to_path(segs: &[Seg<'_>]) -> PropPath {
    PropPath(
        segs.iter()
            .map(|s| match *s {
                Seg::Key(k) => PathSeg::Key(k.to_owned()),
                Seg::Index(i) => PathSeg::Index(i),
                Seg::Range(a, b) => PathSeg::Range(a, b),
            })
            .collect(),
    )
}

struct Merger<'a> {
    conflicts: Vec<Conflict<'a>>,
    notes: Vec<Note>,
    layout_key: Option<&'static str>,
    concurrent_insertions: ConcurrentInsertions,
    empty_values: &'static [&'static str],
    /// The policy, when it names volatile properties.
    volatile: Option<Policy>,
    object: ObjectId,
    object_kind: &'a str,
    alive: FxHashSet<ObjectId>,
    /// Objects whose existence a whole-object conflict decides.
    decided_by_conflict: FxHashSet<ObjectId>,
}

/// The members of a map; an empty list counts as an empty map (`[]` and `{}` are both how
/// formats write an empty collection whose items carry identity).
/// The member `k` of a map's entries.
fn member<'v, 'a>(m: &'v [(Key<'a>, Value<'a>)], k: &str) -> Option<&'v Value<'a>> {
    m.iter().find(|(mk, _)| *mk == k).map(|(_, v)| v)
}

/// Whether every member `kept` added, changed or removed relative to `base` is one the re-saved
/// layout holds in the same way (present when `kept` has it, absent when `kept` removed it),
/// and `kept` kept the base's layout.
fn edits_fit_layout(layout_key: &str, base: &Value<'_>, kept: &Value<'_>, relaid: &Value<'_>) -> bool {
    let (Some(b), Some(o), Some(n)) = (map_entries(base), map_entries(kept), map_entries(relaid)) else {
        return false;
    };
    let find = |m: &[(Key<'_>, Value<'_>)], k: &str| member(m, k).is_some();
    if !base.get(layout_key).zip(kept.get(layout_key)).is_some_and(|(bl, ol)| bl.same(ol)) {
        return false; // both sides re-laid the struct out
    }
    let changed = o.iter().filter(|(k, v)| *k != layout_key && member(b, k).is_none_or(|bv| !bv.same(v)));
    let removed = b.iter().filter(|(k, _)| !find(o, k));
    changed.clone().all(|(k, _)| find(n, k)) && removed.into_iter().all(|(k, _)| !find(n, k)) && changed.count() > 0
}

/// Whether two runs of items are the same items in the same order.
fn same_items(x: &[Value<'_>], y: &[Value<'_>]) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|(a, b)| a.same(b))
}

/// Both sides replaced one run of list items, and one side's replacement is the other's plus new
/// items before or after it, none of them a base item of the run (that the shorter side removed).
fn one_extends_the_other(b: &[Value<'_>], o: &[Value<'_>], t: &[Value<'_>]) -> bool {
    let (short, long) = if o.len() <= t.len() { (o, t) } else { (t, o) };
    if short.is_empty() || short.len() == long.len() {
        return false;
    }
    let extra = if same_items(short, &long[..short.len()]) {
        &long[short.len()..]
    } else if same_items(short, &long[long.len() - short.len()..]) {
        &long[..long.len() - short.len()]
    } else {
        return false;
    };
    !extra.iter().any(|e| b.iter().any(|bv| bv.same(e)))
}

/// A member renamed (`old` → `new`) on both sides, or on one side without changing its value,
/// when that is the only member the rename can be: then the edits under the old name on one side
/// and under the new name on the other meet in one merge (a script field renamed with its data
/// kept, as editors do on re-save).
fn renamed_member<'a>(
    b: &'a [(Key<'a>, Value<'a>)],
    o: &'a [(Key<'a>, Value<'a>)],
    t: &'a [(Key<'a>, Value<'a>)],
) -> Option<(Key<'a>, Key<'a>)> {
    let has = |m: &[(Key<'a>, Value<'a>)], k: &str| member(m, k).is_some();
    let only = |mut keys: Vec<Key<'a>>| (keys.len() == 1).then(|| keys.pop()).flatten();
    let shape = |v: &'a Value<'a>| std::mem::discriminant(&v.kind);
    // Renamed on both sides.
    let gone = only(b.iter().map(|(k, _)| *k).filter(|k| !has(o, k) && !has(t, k)).collect());
    let added = only(o.iter().map(|(k, _)| *k).filter(|k| !has(b, k) && has(t, k)).collect());
    if let (Some(old), Some(new)) = (gone, added) {
        let (bv, ov, tv) = (member(b, old)?, member(o, new)?, member(t, new)?);
        return (shape(bv) == shape(ov) && shape(bv) == shape(tv)).then_some((old, new));
    }
    // Renamed, value untouched, on one side only.
    for (side, other) in [(o, t), (t, o)] {
        let gone = only(b.iter().map(|(k, _)| *k).filter(|k| !has(side, k) && has(other, k)).collect());
        let added = only(side.iter().map(|(k, _)| *k).filter(|k| !has(b, k) && !has(other, k)).collect());
        if let (Some(old), Some(new)) = (gone, added) {
            if member(b, old)?.same(member(side, new)?) {
                return Some((old, new));
            }
        }
    }
    None
}

fn map_entries<'v, 'a>(v: &'v Value<'a>) -> Option<&'v [(Key<'a>, Value<'a>)]> {
    match &v.kind {
        ValueKind::Map(entries) => Some(entries),
        ValueKind::List(items) if items.is_empty() => Some(&[]),
        _ => None,
    }
}

/// The ids of a child slot; an empty list counts as an empty slot (a codec cannot tell which an
/// empty array is).
fn child_ids<'v>(v: &'v Value<'_>) -> Option<&'v [ObjectId]> {
    match &v.kind {
        ValueKind::Children(ids) => Some(ids),
        ValueKind::List(items) if items.is_empty() => Some(&[]),
        _ => None,
    }
}

fn template<'a>(b: Option<&'a Value<'a>>, o: Option<&'a Value<'a>>, t: Option<&'a Value<'a>>) -> &'a Value<'a> {
    match (b, o, t) {
        (Some(b), Some(o), Some(t)) if o.identical(b) => t,
        (_, Some(o), _) => o,
        (_, None, Some(t)) => t,
        (Some(b), None, None) => b,
        (None, None, None) => unreachable!("a merged value has at least one input"),
    }
}

impl<'a> Merger<'a> {
    fn conflict(&mut self, path: &[Seg<'a>], kind: ConflictKind, values: Sides<Vec<&'a Value<'a>>>) -> MValue<'a> {
        self.conflicts.push(Conflict {
            object: self.object.clone(),
            object_kind: self.object_kind.to_owned(),
            path: to_path(path),
            kind,
            values,
            resolution: None,
        });
        MValue::Conflict(self.conflicts.len() - 1)
    }

    /// Merge one value. `None` in means absent on that side; `None` out means absent in the result.
    fn value(
        &mut self,
        path: &mut Vec<Seg<'a>>,
        b: Option<&'a Value<'a>>,
        o: Option<&'a Value<'a>>,
        t: Option<&'a Value<'a>>,
    ) -> Option<MValue<'a>> {
        let vec = |v: Option<&'a Value<'a>>| v.into_iter().collect::<Vec<_>>();
        match (b, o, t) {
            (_, None, None) => None,
            (None, Some(v), None) | (None, None, Some(v)) => Some(MValue::Exact(v)),
            (Some(b), Some(s), None) | (Some(b), None, Some(s)) => {
                if s.identical(b) || s.same(b) {
                    None
                } else {
                    let deleted_by = if o.is_none() { Side::Ours } else { Side::Theirs };
                    Some(self.conflict(path, ConflictKind::DeleteModify { deleted_by }, Sides::new(vec![b], vec(o), vec(t))))
                }
            }
            (Some(bv), Some(ov), Some(tv)) if bv.identical(ov) && ov.identical(tv) => {
                // The same bytes in every version: nothing inside changed, whatever a codec
                // made of it (child objects in there are identical everywhere too).
                Some(MValue::Exact(ov))
            }
            (_, Some(ov), Some(tv)) => {
                let structural = b.is_some_and(|b| b.has_children) || ov.has_children || tv.has_children;
                if !structural {
                    if let Some(bv) = b {
                        if tv.identical(bv) {
                            if let Some(whole) = self.taken_whole(bv, ov) {
                                return Some(whole);
                            }
                        }
                        if ov.identical(bv) {
                            if let Some(whole) = self.taken_whole(bv, tv) {
                                return Some(whole);
                            }
                        }
                    }
                    if ov.same(tv) {
                        return Some(MValue::Exact(ov));
                    }
                    if let Some(bv) = b {
                        if tv.same(bv) {
                            if let Some(whole) = self.taken_whole(bv, ov) {
                                return Some(whole);
                            }
                        }
                        if ov.same(bv) {
                            if let Some(whole) = self.taken_whole(bv, tv) {
                                return Some(whole);
                            }
                        }
                    }
                }
                if self.volatile.as_ref().is_some_and(|p| p.is_volatile(self.object.as_str(), self.object_kind, &to_path(path).to_string()))
                {
                    // Volatile editor state (a view's zoom) is taken whole from one side, never
                    // assembled from both.
                    let kind = if b.is_some() { ConflictKind::BothModified } else { ConflictKind::BothAdded };
                    return Some(self.conflict(path, kind, Sides::new(vec(b), vec![ov], vec![tv])));
                }
                if let Some(relaid) = self.relaid_layout(path, b, ov, tv) {
                    return Some(relaid);
                }
                let tpl = template(b, o, t);
                match (b.map(|b| &b.kind), &ov.kind, &tv.kind) {
                    _ if [b, Some(ov), Some(tv)].iter().flatten().all(|v| map_entries(v).is_some())
                        && [b, Some(ov), Some(tv)].iter().flatten().any(|v| matches!(v.kind, ValueKind::Map(_))) =>
                    {
                        let entries = |v: Option<&'a Value<'a>>| v.and_then(map_entries).unwrap_or(&[]);
                        Some(self.map(path, tpl, entries(b), entries(Some(ov)), entries(Some(tv))))
                    }
                    (Some(ValueKind::List(bl)), ValueKind::List(ol), ValueKind::List(tl)) => Some(self.list(path, tpl, bl, ol, tl)),
                    (None, ValueKind::List(ol), ValueKind::List(tl)) if structural => Some(self.list(path, tpl, &[], ol, tl)),
                    _ if child_ids(ov).is_some() && child_ids(tv).is_some() && b.is_none_or(|b| child_ids(b).is_some()) => {
                        let bc = b.and_then(child_ids).unwrap_or(&[]);
                        let (oc, tc) = (child_ids(ov).unwrap_or(&[]), child_ids(tv).unwrap_or(&[]));
                        let alive = &self.alive;
                        let ids = if bc == oc && oc == tc {
                            oc.iter().filter(|id| alive.contains(*id)).cloned().collect()
                        } else {
                            merge_order(bc, oc, tc, |id| alive.contains(id)).order
                        };
                        Some(MValue::Children { template: tpl, ids })
                    }
                    _ => {
                        if ov.same(tv) {
                            return Some(MValue::Exact(ov));
                        }
                        // A value one side turned into another kind (a list whose elements
                        // gained or lost the member that keys them reads as child objects on
                        // one side and plain items on the other) and the other left as base has
                        // it: the change stands. Child objects it holds are merged as that
                        // side's own; those base held are gone from that side.
                        if let Some(bv) = b {
                            let alive = &self.alive;
                            let alone = |unchanged: &Value<'a>, changed: &'a Value<'a>| -> Option<MValue<'a>> {
                                if !unchanged.identical(bv) {
                                    return None;
                                }
                                match child_ids(changed) {
                                    Some(ids) => Some(MValue::Children {
                                        template: tpl,
                                        ids: ids.iter().filter(|id| alive.contains(*id)).cloned().collect(),
                                    }),
                                    None if !changed.has_children => self.taken_whole(bv, changed),
                                    None => None,
                                }
                            };
                            if let Some(taken) = alone(tv, ov).or_else(|| alone(ov, tv)) {
                                return Some(taken);
                            }
                        }
                        if b.is_none() {
                            if let Some(kept) = self.filled_of_two_added(path, ov, tv) {
                                return Some(MValue::Exact(kept));
                            }
                        }
                        let kind = if b.is_some() { ConflictKind::BothModified } else { ConflictKind::BothAdded };
                        Some(self.conflict(path, kind, Sides::new(vec(b), vec![ov], vec![tv])))
                    }
                }
            }
        }
    }

    /// Of a member both sides added, the value of the side whose value is not empty (see
    /// [`Options::empty_values`]), when the other's is.
    fn filled_of_two_added(&mut self, path: &[Seg<'a>], o: &'a Value<'a>, t: &'a Value<'a>) -> Option<&'a Value<'a>> {
        let empty = |v: &Value<'_>| matches!(v.kind, ValueKind::Scalar { .. }) && self.empty_values.contains(&v.raw.trim());
        let (kept, side, dropped) = match (empty(o), empty(t)) {
            (false, true) => (o, Side::Ours, t),
            (true, false) => (t, Side::Theirs, o),
            _ => return None,
        };
        self.notes.push(Note {
            object: self.object.clone(),
            message: format!(
                "{} › {}: both sides added it; kept {side}'s value, {}'s was empty ({})",
                self.object_kind,
                to_path(path),
                side.other(),
                dropped.raw.trim()
            ),
        });
        Some(kept)
    }

    /// When the two sides hold one struct in different layouts (one was re-saved by another
    /// editor version), the re-saved layout is taken whole; edits the other side made to it are
    /// reported.
    fn relaid_layout(&mut self, path: &[Seg<'a>], b: Option<&'a Value<'a>>, o: &'a Value<'a>, t: &'a Value<'a>) -> Option<MValue<'a>> {
        let key = self.layout_key?;
        let layout = |v: &Value<'_>| v.get(key).and_then(|l| l.raw.trim().parse::<i64>().ok());
        let (lo, lt) = (layout(o)?, layout(t)?);
        if lo == lt || o.has_children || t.has_children {
            return None;
        }
        // The side that re-laid the struct out relative to the base wins, even when it went back
        // to an older layout (re-saved by an older editor); when both did, the newer one does.
        let lb = b.and_then(layout);
        let ours_relaid = if lb == Some(lt) {
            true
        } else if lb == Some(lo) {
            false
        } else {
            lo > lt
        };
        let (relaid, kept, kept_side) = if ours_relaid { (o, t, Side::Theirs) } else { (t, o, Side::Ours) };
        if b.is_some_and(|b| edits_fit_layout(key, b, kept, relaid)) {
            // The other side only edited members the re-saved layout holds too: a member-wise
            // merge keeps both sides' work without mixing layouts.
            return None;
        }
        if b.is_some_and(|b| !kept.identical(b) && !kept.same(b)) {
            let at = to_path(path);
            let place = if at.0.is_empty() { String::new() } else { format!(" › {at}") };
            self.notes.push(Note {
                object: self.object.clone(),
                message: format!(
                    "{}{place}: kept the layout {} re-saved ({key} {}); the edits {kept_side} made to the other one were dropped",
                    self.object_kind,
                    kept_side.other(),
                    if ours_relaid { lo } else { lt }
                ),
            });
        }
        Some(MValue::Exact(relaid))
    }

    fn map(
        &mut self,
        path: &mut Vec<Seg<'a>>,
        template: &'a Value<'a>,
        b: &'a [(Key<'a>, Value<'a>)],
        o: &'a [(Key<'a>, Value<'a>)],
        t: &'a [(Key<'a>, Value<'a>)],
    ) -> MValue<'a> {
        let same_keys =
            |x: &[(Key<'a>, Value<'a>)], y: &[(Key<'a>, Value<'a>)]| x.len() == y.len() && x.iter().zip(y).all(|(a, b)| a.0 == b.0);
        if same_keys(b, o) && same_keys(o, t) {
            // The usual case: the same members in the same order on every side.
            let mut entries = Vec::with_capacity(o.len());
            for ((bk, bv), ((_, ov), (_, tv))) in b.iter().zip(o.iter().zip(t)) {
                path.push(Seg::Key(bk));
                if let Some(v) = self.value(path, Some(bv), Some(ov), Some(tv)) {
                    entries.push((*bk, v));
                }
                path.pop();
            }
            return MValue::Map { template, entries };
        }
        let mut merged: FxHashMap<Key<'a>, MValue<'a>> = FxHashMap::default();
        let mut seen: FxHashSet<Key<'a>> = FxHashSet::default();
        let rename = renamed_member(b, o, t);
        if let Some((old, _)) = rename {
            seen.insert(old);
        }
        for &(k, _) in o.iter().chain(t).chain(b) {
            if !seen.insert(k) {
                continue;
            }
            path.push(Seg::Key(k));
            let v = match rename {
                Some((old, new)) if new == k => {
                    self.value(path, member(b, old), member(o, k).or(member(o, old)), member(t, k).or(member(t, old)))
                }
                _ => self.value(path, member(b, k), member(o, k), member(t, k)),
            };
            if let Some(v) = v.or_else(|| self.removed_with_its_target(k, member(b, k), member(o, k), member(t, k))) {
                merged.insert(k, v);
            }
            path.pop();
        }
        let keys = |m: &'a [(Key<'a>, Value<'a>)]| m.iter().map(|(k, _)| *k).collect::<Vec<_>>();
        let (b, o, t) = (keys(b), keys(o), keys(t));
        let mut order = merge_order(&b, &o, &t, |k| merged.contains_key(k)).order;
        sort_concurrent_insertions(&mut order, &b, &o, &t);
        let entries = order.into_iter().filter_map(|k| Some((k, merged.remove(k)?))).collect();
        MValue::Map { template, entries }
    }

    fn list(
        &mut self,
        path: &mut Vec<Seg<'a>>,
        template: &'a Value<'a>,
        b: &'a [Value<'a>],
        o: &'a [Value<'a>],
        t: &'a [Value<'a>],
    ) -> MValue<'a> {
        let mut items = Vec::with_capacity(o.len().max(t.len()));
        // Numbers of one count in every version are a tuple or a grid (a position, a colour, a
        // layer's tile ids): each place is merged on its own. Aligned by diff3, one side's 0
        // could pair with another place's 0 and make a list neither side wrote.
        if o.len() == b.len() && t.len() == b.len() && [b, o, t].iter().all(|l| l.iter().all(is_number)) {
            for (at, ((bv, ov), tv)) in b.iter().zip(o).zip(t).enumerate() {
                path.push(Seg::Index(at));
                if let Some(v) = self.value(path, Some(bv), Some(ov), Some(tv)) {
                    items.push(v);
                }
                path.pop();
            }
            return MValue::List { template, items };
        }
        let hashes = |l: &[Value<'_>]| l.iter().map(|v| v.hash).collect::<Vec<_>>();
        for chunk in diff3(&hashes(b), &hashes(o), &hashes(t)) {
            match chunk {
                Chunk::Stable { base, ours, theirs } => {
                    for ((bi, oi), ti) in base.zip(ours).zip(theirs) {
                        path.push(Seg::Index(oi));
                        if let Some(v) = self.value(path, Some(&b[bi]), Some(&o[oi]), Some(&t[ti])) {
                            items.push(v);
                        }
                        path.pop();
                    }
                }
                Chunk::Changed { ours, theirs, take, .. } => match take {
                    Take::Theirs => items.extend(t[theirs].iter().map(MValue::Exact)),
                    Take::Ours | Take::Both => items.extend(o[ours].iter().map(MValue::Exact)),
                },
                Chunk::Conflict { base, ours, theirs } if base.len() == ours.len() && base.len() == theirs.len() => {
                    // Both sides edited the same elements in place: merge them element by
                    // element, so that edits to different parts of one element combine.
                    for ((bi, oi), ti) in base.zip(ours).zip(theirs) {
                        path.push(Seg::Index(oi));
                        if let Some(v) = self.value(path, Some(&b[bi]), Some(&o[oi]), Some(&t[ti])) {
                            items.push(v);
                        }
                        path.pop();
                    }
                }
                Chunk::Conflict { base, ours, theirs } if one_extends_the_other(&b[base.clone()], &o[ours.clone()], &t[theirs.clone()]) => {
                    let longer = if ours.len() >= theirs.len() { &o[ours] } else { &t[theirs] };
                    items.extend(longer.iter().map(MValue::Exact));
                }
                Chunk::Conflict { base, ours, theirs } => {
                    let (bs, os, ts) = (&b[base.clone()], &o[ours.clone()], &t[theirs.clone()]);
                    if self.concurrent_insertions.kept_in(path) && bs.is_empty() && !os.iter().any(|x| ts.iter().any(|y| x.same(y))) {
                        // Both sides inserted different items at one place: all are kept, ours
                        // first, as concurrent additions are everywhere else.
                        self.notes.push(Note {
                            object: self.object.clone(),
                            message: format!(
                                "{} › {}: both sides inserted items at position {}; kept all of them, ours first",
                                self.object_kind,
                                to_path(path),
                                ours.start
                            ),
                        });
                        items.extend(os.iter().chain(ts).map(MValue::Exact));
                    } else if let Some(merged) = self.edited_in_place_plus_items(path, bs, os, ts, ours.start) {
                        items.extend(merged);
                    } else if let Some(merged) = self.insertions_beside_a_change(path, bs, os, ts, ours.start) {
                        items.extend(merged);
                    } else {
                        path.push(Seg::Range(base.start, base.end));
                        let values = Sides::new(bs.iter().collect(), os.iter().collect(), ts.iter().collect());
                        items.push(self.conflict(path, ConflictKind::ListOverlap, values));
                        path.pop();
                    }
                }
            }
        }
        MValue::List { template, items }
    }
}

impl<'a> Merger<'a> {
    /// `changed`, the only side that changed a value, taken whole; `None` when it is a map that
    /// dropped a reference to an object a whole-object conflict decides: merged member by
    /// member instead, so that the reference can stay with the object
    /// ([`Self::removed_with_its_target`]).
    fn taken_whole(&self, base: &'a Value<'a>, changed: &'a Value<'a>) -> Option<MValue<'a>> {
        let member_by_member =
            map_entries(base).is_some() && map_entries(changed).is_some() && self.drops_a_decided_reference(base, changed);
        (!member_by_member).then_some(MValue::Exact(changed))
    }

    /// Whether `base` refers to an object a whole-object conflict decides and `changed` no
    /// longer does.
    fn drops_a_decided_reference(&self, base: &Value<'a>, changed: &Value<'a>) -> bool {
        if self.decided_by_conflict.is_empty() || !base.has_references {
            return false;
        }
        let targets = |v: &Value<'a>| {
            let mut refs = Vec::new();
            v.references(&mut PropPath::default(), &mut refs);
            refs.into_iter().map(|(_, r)| r.target).filter(|t| self.decided_by_conflict.contains(t)).collect::<FxHashSet<_>>()
        };
        let before = targets(base);
        !before.is_empty() && !before.is_subset(&targets(changed))
    }

    /// A member of a list with identity (keyed by the object it names) that one side removed
    /// and the other kept as it was, naming an object a whole-object conflict decides (a game
    /// object's entry for a component one side deleted and the other edited): it stays if the
    /// object does. A member under any other name is a setting, whose removal stands.
    fn removed_with_its_target(
        &self,
        key: Key<'a>,
        b: Option<&'a Value<'a>>,
        o: Option<&'a Value<'a>>,
        t: Option<&'a Value<'a>>,
    ) -> Option<MValue<'a>> {
        if self.decided_by_conflict.is_empty() {
            return None;
        }
        let (b, kept) = match (b?, o, t) {
            (b, Some(o), None) | (b, None, Some(o)) if o.same(b) => (b, o),
            _ => return None,
        };
        let mut refs = Vec::new();
        b.references(&mut PropPath::default(), &mut refs);
        let [(_, only)] = &refs[..] else { return None };
        (only.target.as_str() == key && self.decided_by_conflict.contains(&only.target))
            .then(|| MValue::IfAlive { target: only.target.clone(), value: kept })
    }

    /// One side edited a run of items in place; the other edited the same items in place too and
    /// added items after (or before) them. The items are paired by position and merged one by
    /// one, the added items kept; `None` (and nothing recorded) when a pair conflicts, since the
    /// pairing is then likely wrong.
    fn edited_in_place_plus_items(
        &mut self,
        path: &mut Vec<Seg<'a>>,
        b: &'a [Value<'a>],
        o: &'a [Value<'a>],
        t: &'a [Value<'a>],
        ours_start: usize,
    ) -> Option<Vec<MValue<'a>>> {
        let n = b.len();
        // Only structs carry enough to tell that a pairing is right; scalars are guesswork.
        let structs = [b, o, t].iter().all(|run| run.iter().all(|v| matches!(v.kind, ValueKind::Map(_))));
        if n == 0 || o.len().min(t.len()) != n || o.len() == t.len() || !structs {
            return None;
        }
        let (longer, ours_longer) = if o.len() > n { (o, true) } else { (t, false) };
        let extra = longer.len() - n;
        for added_after in [true, false] {
            let added = if added_after { &longer[n..] } else { &longer[..extra] };
            if added.iter().any(|a| b.iter().any(|bv| bv.same(a))) {
                continue; // an "added" item that is a base item: the pairing is off
            }
            let offset = if added_after { 0 } else { extra };
            let (o_off, t_off) = if ours_longer { (offset, 0) } else { (0, offset) };
            let (conflicts, notes) = (self.conflicts.len(), self.notes.len());
            let mut items = Vec::with_capacity(n + extra);
            for i in 0..n {
                path.push(Seg::Index(ours_start + o_off + i));
                let merged = self.value(path, Some(&b[i]), Some(&o[o_off + i]), Some(&t[t_off + i]));
                path.pop();
                items.extend(merged);
            }
            if self.conflicts.len() > conflicts {
                self.conflicts.truncate(conflicts);
                self.notes.truncate(notes);
                continue;
            }
            let added = added.iter().map(MValue::Exact);
            return Some(if added_after { items.into_iter().chain(added).collect() } else { added.chain(items).collect() });
        }
        None
    }

    /// One side kept a run of items as base has it and inserted new items right after (or
    /// before) it; the other side changed the run. Both are kept: the change, with the new
    /// items beside it, as when the two had been a few items apart. Only in lists that keep
    /// concurrent insertions (in a program, where the new items go is the question).
    fn insertions_beside_a_change(
        &mut self,
        path: &[Seg<'a>],
        b: &'a [Value<'a>],
        o: &'a [Value<'a>],
        t: &'a [Value<'a>],
        ours_start: usize,
    ) -> Option<Vec<MValue<'a>>> {
        if b.is_empty() || !self.concurrent_insertions.kept_in(path) {
            return None;
        }
        let new =
            |items: &[Value<'_>]| !items.is_empty() && !items.iter().any(|i| b.iter().chain(o).chain(t).filter(|v| v.same(i)).count() > 1);
        for (kept, changed, ours_kept) in [(o, t, true), (t, o, false)] {
            if kept.len() <= b.len() || same_items(changed, b) {
                continue;
            }
            let extra = kept.len() - b.len();
            let (after, before) = (&kept[b.len()..], &kept[..extra]);
            let (added, added_after) = if same_items(&kept[..b.len()], b) && new(after) {
                (after, true)
            } else if same_items(&kept[extra..], b) && new(before) {
                (before, false)
            } else {
                continue;
            };
            self.notes.push(Note {
                object: self.object.clone(),
                message: format!(
                    "{} › {}: {} inserted items beside items {} changed, at position {}; kept both",
                    self.object_kind,
                    to_path(path),
                    if ours_kept { "ours" } else { "theirs" },
                    if ours_kept { "theirs" } else { "ours" },
                    ours_start
                ),
            });
            let (added, changed) = (added.iter().map(MValue::Exact), changed.iter().map(MValue::Exact));
            return Some(if added_after { changed.chain(added).collect() } else { added.chain(changed).collect() });
        }
        None
    }
}

/// Merge three versions of a level.
pub fn merge<'a>(inputs: Sides<&'a Level<'a>>, options: &Options) -> MergedLevel<'a> {
    let (base, ours, theirs) = (inputs.base, inputs.ours, inputs.theirs);
    let edits = EditRules { added_fields_are_edits: options.added_fields_are_edits, bookkeeping: options.bookkeeping_members };
    // The usual case: the same objects in the same order in every version.
    let aligned = base.objects.keys().eq(ours.objects.keys()) && ours.objects.keys().eq(theirs.objects.keys());
    let changes = Sides::new(None, Some(side_changes(base, ours, edits, aligned)), Some(side_changes(base, theirs, edits, aligned)));
    let changes_of = |s: Side| changes.get(s).as_ref().expect("ours and theirs have change sets");

    // 1. Which objects exist, and which need a whole-object conflict.
    let ids: Vec<ObjectId> = if aligned {
        ours.objects.keys().cloned().collect()
    } else {
        let keys = |l: &Level<'_>| l.objects.keys().cloned().collect::<Vec<_>>();
        merge_order(&keys(base), &keys(ours), &keys(theirs), |_| true).order
    };
    // Each id's object in each version, looked up once.
    let versions: Vec<Sides<Option<&'a Object<'a>>>> = ids
        .iter()
        .enumerate()
        .map(|(at, id)| {
            let find = |level: &'a Level<'a>| if aligned { level.objects.get_index(at).map(|(_, o)| o) } else { level.get(id) };
            Sides::new(find(base), find(ours), find(theirs))
        })
        .collect();
    let mut alive: FxHashSet<ObjectId> = FxHashSet::default();
    let mut choices: Vec<(ObjectId, ConflictKind)> = Vec::new();
    for (id, sides) in ids.iter().zip(&versions) {
        let (b, o, t) = (sides.base, sides.ours, sides.theirs);
        match (b, o, t) {
            (Some(_), Some(_), Some(_)) | (None, Some(_), None) | (None, None, Some(_)) => {
                alive.insert(id.clone());
            }
            (None, Some(o), Some(t)) => {
                alive.insert(id.clone());
                let one_object = options.same_id_is_same_object && o.kind == t.kind;
                if !one_object && !o.props.same(&t.props) {
                    choices.push((id.clone(), ConflictKind::BothAdded));
                }
            }
            (Some(_), None, Some(_)) | (Some(_), Some(_), None) => {
                let deleted_by = if o.is_none() { Side::Ours } else { Side::Theirs };
                let keeper = changes_of(deleted_by.other());
                if keeper.subtree_touched.contains(id) || keeper.newly_referenced.contains(id) || options.contested.contains(id) {
                    alive.insert(id.clone());
                    choices.push((id.clone(), ConflictKind::DeleteModify { deleted_by }));
                }
            }
            (Some(_), None, None) | (None, None, None) => {}
        }
    }

    // 2. Whole-object conflicts, outermost first; their subtrees follow them, and so do the
    //    objects that were deleted with them and refer to them (kept with the object, they
    //    keep what it lists, such as a game object's transform).
    let depth = |id: &ObjectId| {
        let mut d = 0usize;
        let mut at = id.clone();
        let parent = |id: &ObjectId| parent_in(base, id).or_else(|| parent_in(ours, id)).or_else(|| parent_in(theirs, id));
        while let Some(p) = parent(&at) {
            d += 1;
            if d > ids.len() {
                break; // a cycle in an input; depth is only an ordering hint
            }
            at = p;
        }
        d
    };
    choices.sort_by_cached_key(|(id, _)| depth(id));
    let children = if choices.is_empty() { None } else { Some([children_of(base), children_of(ours), children_of(theirs)]) };
    let referrers = if choices.is_empty() { None } else { Some([referrers_of(base), referrers_of(ours), referrers_of(theirs)]) };
    let mut merger = Merger {
        conflicts: Vec::new(),
        notes: Vec::new(),
        layout_key: options.layout_key,
        concurrent_insertions: options.concurrent_insertions,
        empty_values: options.empty_values,
        volatile: options.policy.rules.iter().any(|r| r.action == RuleAction::Ignore).then(|| options.policy.clone()),
        object: ObjectId::new(""),
        object_kind: "",
        alive,
        decided_by_conflict: FxHashSet::default(),
    };
    let mut states: FxHashMap<ObjectId, ObjectState<'a>> = FxHashMap::default();
    for (id, kind) in choices {
        if states.contains_key(&id) {
            continue;
        }
        let sides = Sides::new(base.get(&id), ours.get(&id), theirs.get(&id));
        let any = sides.ours.or(sides.theirs).or(sides.base).expect("a conflicting object exists somewhere");
        let values = sides.map(|_, o| o.map(|o| &o.props).into_iter().collect());
        merger.object = id.clone();
        merger.object_kind = &any.kind;
        let MValue::Conflict(c) = merger.conflict(&[], kind, values) else { unreachable!() };
        states.insert(id.clone(), ObjectState::Chosen(c));
        let mut stack = vec![id.clone()];
        while let Some(at) = stack.pop() {
            let all = children.as_ref().expect("computed when there are choices");
            let kids = [all[0].get(&at), all[1].get(&at), all[2].get(&at)];
            let needed = deleted_referents(&at, base, [ours, theirs], &merger.alive);
            let by_ref = referrers.as_ref().expect("computed when there are choices");
            let deleted_with = [by_ref[0].get(&at), by_ref[1].get(&at), by_ref[2].get(&at)]
                .into_iter()
                .flatten()
                .flatten()
                .filter(|r| base.get(r).is_some() && (ours.get(r).is_none() || theirs.get(r).is_none()));
            for kid in kids.into_iter().flatten().flatten().chain(deleted_with).chain(needed.iter()) {
                let everywhere = base.get(kid).is_some() && ours.get(kid).is_some() && theirs.get(kid).is_some();
                if everywhere || states.contains_key(kid) {
                    continue;
                }
                merger.alive.insert(kid.clone());
                states.insert(kid.clone(), ObjectState::Follows(c));
                stack.push(kid.clone());
            }
        }
    }

    merger.decided_by_conflict = states.keys().cloned().collect();

    // 3. Properties of the objects that exist.
    let mut objects = Vec::new();
    for (id, &sides) in ids.iter().zip(&versions) {
        if !merger.alive.contains(id) {
            continue;
        }
        let any = sides.ours.or(sides.theirs).or(sides.base).expect("a merged object exists somewhere");
        let state = match states.remove(id) {
            Some(s) => s,
            None => {
                merger.object = id.clone();
                merger.object_kind = &any.kind;
                let props = merger
                    .value(&mut Vec::new(), sides.base.map(|o| &o.props), sides.ours.map(|o| &o.props), sides.theirs.map(|o| &o.props))
                    .expect("an object that exists has properties");
                ObjectState::Merged(props)
            }
        };
        let kind = match (sides.base, sides.ours, sides.theirs) {
            (Some(b), Some(o), Some(t)) if o.kind == b.kind => &t.kind,
            _ => &any.kind,
        };
        // A structural parent moves like a value: the side that moved the object wins.
        let parent = match (sides.base, sides.ours, sides.theirs) {
            (Some(b), Some(o), Some(t)) if o.parent == b.parent => t.parent.clone(),
            _ => any.parent.clone(),
        };
        objects.push(MergedObject { id: id.clone(), kind, parent, sides, state });
    }
    let index = objects.iter().enumerate().map(|(i, o)| (o.id.clone(), i)).collect();
    let root = ours.root.clone().or_else(|| theirs.root.clone()).or_else(|| base.root.clone());
    let parent_refs = [base, ours, theirs].iter().any(|l| l.parent_refs);
    let references = parent_refs || [base, ours, theirs].iter().any(|l| l.references);
    let mut merged = MergedLevel { objects, index, conflicts: merger.conflicts, notes: merger.notes, root, parent_refs, references };
    options.policy.apply(&mut merged.conflicts);
    crate::resolve::break_cycles(&mut merged);
    merged
}
