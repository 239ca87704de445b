//! The merge of one object's properties: maps by key, child slots and keyed lists by identity,
//! other lists like diff3, scalars by the three-way rule; conflicts and notes recorded where
//! they arise.

use rustc_hash::{FxHashMap, FxHashSet};

use super::{is_number, ConcurrentInsertions, MValue};
use crate::conflict::{Conflict, ConflictKind};
use crate::diff3::{changed_stretches, diff3, Chunk, Take};
use crate::model::{Key, ObjectId, PathSeg, PropPath, RefRole, Value, ValueKind};
use crate::order::{merge_order, sort_concurrent_insertions};
use crate::policy::Policy;
use crate::resolve::Note;
use crate::side::{Side, Sides};

/// A step of the path being merged, borrowed from the inputs (turned into a [`PropPath`] only
/// when a conflict needs one).
#[derive(Clone, Copy)]
pub(super) enum Seg<'a> {
    Key(&'a str),
    Index(usize),
    Range(usize, usize),
}

/// The member name nearest the end of a path: the member holding the value it leads to.
pub(super) fn last_member<'p>(path: &[Seg<'p>]) -> Option<&'p str> {
    path.iter().rev().find_map(|s| match s {
        Seg::Key(k) => Some(*k),
        _ => None,
    })
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

pub(super) struct Merger<'a> {
    pub(super) conflicts: Vec<Conflict<'a>>,
    pub(super) notes: Vec<Note>,
    pub(super) layout_key: Option<&'static str>,
    pub(super) fields_fixed_by_type: bool,
    pub(super) concurrent_insertions: ConcurrentInsertions,
    pub(super) empty_values: &'static [&'static str],
    pub(super) grids: &'static [&'static str],
    /// The policy, when it names volatile properties.
    pub(super) volatile: Option<Policy>,
    pub(super) object: ObjectId,
    pub(super) object_kind: &'a str,
    pub(super) alive: FxHashSet<ObjectId>,
    /// Objects whose existence a whole-object conflict decides.
    pub(super) decided_by_conflict: FxHashSet<ObjectId>,
    /// Objects every version holds that one side moved under one of those, with that side and
    /// the new parent.
    pub(super) moved_under_decided: FxHashMap<ObjectId, (Side, ObjectId)>,
}

/// The member `k` of a map's entries.
fn member<'v, 'a>(m: &'v [(Key<'a>, Value<'a>)], k: &str) -> Option<&'v Value<'a>> {
    m.iter().find(|(mk, _)| *mk == k).map(|(_, v)| v)
}

/// Above this many members, a map's members are found through an index.
const INDEXED_FROM: usize = 32;

/// A map's members, found by key: by a scan when they are few, through an index when many (a
/// transform's 30,000 children, looked up one by one in three versions, took 20 s by scans).
pub(super) struct Members<'v, 'a> {
    entries: &'v [(Key<'a>, Value<'a>)],
    /// Each key's first place.
    index: Option<FxHashMap<Key<'a>, usize>>,
}

impl<'v, 'a> Members<'v, 'a> {
    pub(super) fn new(entries: &'v [(Key<'a>, Value<'a>)]) -> Self {
        let index = (entries.len() > INDEXED_FROM).then(|| {
            let mut index = FxHashMap::with_capacity_and_hasher(entries.len(), Default::default());
            for (at, (k, _)) in entries.iter().enumerate() {
                index.entry(*k).or_insert(at);
            }
            index
        });
        Members { entries, index }
    }

    pub(super) fn get(&self, k: &str) -> Option<&'v Value<'a>> {
        match &self.index {
            Some(index) => index.get(k).map(|&at| &self.entries[at].1),
            None => member(self.entries, k),
        }
    }

    fn has(&self, k: &str) -> bool {
        self.get(k).is_some()
    }

    fn keys(&self) -> impl Iterator<Item = Key<'a>> + 'v {
        self.entries.iter().map(|(k, _)| *k)
    }
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

/// The object a value names when the value is one reference and nothing else: a reference
/// scalar, or a map whose one member is (Unity's `{fileID: N}`, Cocos' `{"__id__": N}`).
pub(crate) fn sole_reference<'v>(value: &'v Value<'_>) -> Option<&'v ObjectId> {
    sole_reference_of(value).map(|r| &r.target)
}

/// [`sole_reference`], with its role.
fn sole_reference_of<'v>(value: &'v Value<'_>) -> Option<&'v crate::model::Reference> {
    match &value.kind {
        ValueKind::Scalar { reference: Some(r) } => Some(r),
        ValueKind::Map(entries) if entries.len() == 1 => sole_reference_of(&entries[0].1),
        _ => None,
    }
}

/// Whether two runs of items are the same items in the same order.
fn same_items(x: &[Value<'_>], y: &[Value<'_>]) -> bool {
    x.len() == y.len() && x.iter().zip(y).all(|(a, b)| a.same(b))
}

/// Both sides replaced one run of list items, and one side's replacement is the other's plus new
/// items before or after it, none of them a base item of the run (that the shorter side removed).
/// A number's value (`is_number` holds).
fn number_of(value: &Value<'_>) -> f64 {
    value.raw.trim().parse().unwrap_or(f64::NAN)
}

/// Whether every item of `list` is a number above the one before it.
fn ascending_numbers(list: &[Value<'_>]) -> bool {
    let mut last = f64::NEG_INFINITY;
    list.iter().all(|v| {
        let n = number_of(v);
        let above = is_number(v) && n > last;
        last = n;
        above
    })
}

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

/// The members renamed (`old` → `new`) on both sides, or on one side without changing its
/// value, where each is the only member the rename can be: then the edits under the old name on
/// one side and under the new name on the other meet in one merge (a script field renamed with
/// its data kept, as editors do on re-save). Each side's rename is found, whichever side
/// renamed first: the result must not depend on which side is ours.
fn renamed_members<'a>(b: &Members<'a, 'a>, o: &Members<'a, 'a>, t: &Members<'a, 'a>) -> Vec<(Key<'a>, Key<'a>)> {
    // Only fields are renamed: items of a collection keyed by identity (an id, a place, a
    // prefab override's target) that one key replaced are different items.
    let only = |mut keys: Vec<Key<'a>>| (keys.len() == 1 && is_field_name(keys[0])).then(|| keys.pop()).flatten();
    let shape = |v: &'a Value<'a>| std::mem::discriminant(&v.kind);
    // Renamed on both sides.
    let gone = only(b.keys().filter(|k| !o.has(k) && !t.has(k)).collect());
    let added = only(o.keys().filter(|k| !b.has(k) && t.has(k)).collect());
    if let (Some(old), Some(new)) = (gone, added) {
        let alike = match (b.get(old), o.get(new), t.get(new)) {
            (Some(bv), Some(ov), Some(tv)) => shape(bv) == shape(ov) && shape(bv) == shape(tv),
            _ => false,
        };
        return if alike { vec![(old, new)] } else { Vec::new() };
    }
    // Renamed, value untouched, on one side only (the two sides' renames name other members:
    // what one side lacks, the other holds).
    let mut renames = Vec::new();
    for (side, other) in [(o, t), (t, o)] {
        let gone = only(b.keys().filter(|k| !side.has(k) && other.has(k)).collect());
        let added = only(side.keys().filter(|k| !b.has(k) && !other.has(k)).collect());
        if let (Some(old), Some(new)) = (gone, added) {
            if b.get(old).zip(side.get(new)).is_some_and(|(bv, sv)| bv.same(sv)) {
                renames.push((old, new));
            }
        }
    }
    renames
}

/// Whether a key reads as a field's name (`m_Speed`, `speed`, Godot's `theme/constants/a`),
/// not as an item's identity (a number, a place `{x:2,y:0,z:0}`, an iid, `fileID:guid|path`).
fn is_field_name(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_') && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '/')
}

/// The members of a map; an empty list counts as an empty map (`[]` and `{}` are both how
/// formats write an empty collection whose items carry identity).
fn map_entries<'v, 'a>(v: &'v Value<'a>) -> Option<&'v [(Key<'a>, Value<'a>)]> {
    match &v.kind {
        ValueKind::Map(entries) => Some(entries),
        ValueKind::List(items) if items.is_empty() => Some(&[]),
        _ => None,
    }
}

/// Whether the maps among `values` are all mappings or all keyed lists: a side that wrote a
/// mapping where another wrote a keyed list changed the kind of the value, which is not
/// merged member by member (members of one would be written in the other's form). An empty
/// map is either (Unity writes an empty keyed list `{}`).
fn maps_alike(values: [Option<&Value<'_>>; 3]) -> bool {
    let mut keyed = values.into_iter().flatten().filter(|v| matches!(&v.kind, ValueKind::Map(m) if !m.is_empty())).map(|v| v.keyed);
    let first = keyed.next();
    keyed.all(|k| Some(k) == first)
}

/// Whether two maps of fields (not collections keyed by identity) each hold a field the other
/// lacks: written by two versions of one type.
fn two_versions_of_a_type(o: &Value<'_>, t: &Value<'_>) -> bool {
    let (Some(om), Some(tm)) = (map_entries(o), map_entries(t)) else { return false };
    if o.keyed || t.keyed {
        return false;
    }
    let (of, tf) = (Members::new(om), Members::new(tm));
    of.keys().any(|k| !tf.has(k)) && tf.keys().any(|k| !of.has(k))
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
    pub(super) fn conflict(&mut self, path: &[Seg<'a>], kind: ConflictKind, values: Sides<Vec<&'a Value<'a>>>) -> MValue<'a> {
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
    pub(super) fn value(
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
                    if let Some(whole) = b.and_then(|bv| self.one_side_changed(path, bv, ov, tv, Value::identical)) {
                        return Some(whole);
                    }
                    if ov.same(tv) {
                        return Some(MValue::Exact(ov));
                    }
                    if let Some(whole) = b.and_then(|bv| self.one_side_changed(path, bv, ov, tv, Value::same)) {
                        return Some(whole);
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
                        && [b, Some(ov), Some(tv)].iter().flatten().any(|v| matches!(v.kind, ValueKind::Map(_)))
                        && maps_alike([b, Some(ov), Some(tv)]) =>
                    {
                        let entries = |v: Option<&'a Value<'a>>| v.and_then(map_entries).unwrap_or(&[]);
                        // An object's own members (its class's, under the class's name) are
                        // merged member by member: an object both sides added whose script
                        // gained fields on one side is the common case, and the union is what
                        // the editor writes on its next save.
                        let nested = path.len() >= 2;
                        if b.is_none() && nested && self.fields_fixed_by_type && two_versions_of_a_type(ov, tv) {
                            return Some(self.conflict(path, ConflictKind::BothAdded, Sides::new(Vec::new(), vec![ov], vec![tv])));
                        }
                        Some(self.map(path, tpl, entries(b), entries(Some(ov)), entries(Some(tv))))
                    }
                    (Some(ValueKind::List(bl)), ValueKind::List(ol), ValueKind::List(tl)) if self.resized_grid(path, bl, ol, tl) => {
                        Some(self.conflict(path, ConflictKind::BothModified, Sides::new(vec(b), vec![ov], vec![tv])))
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
                            let merged = merge_order(bc, oc, tc, |id| alive.contains(id));
                            if merged.reorder_clash {
                                self.note_at(path, "both sides reordered these children, differently; kept the order nearest ours'".into());
                            }
                            merged.order
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
                                return Some(self.noted(path, taken));
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

    /// Whether the list at `path` is a grid ([`Options::grids`]) of numbers that a side resized.
    fn resized_grid(&self, path: &[Seg<'_>], b: &[Value<'_>], o: &[Value<'_>], t: &[Value<'_>]) -> bool {
        last_member(path).is_some_and(|m| self.grids.contains(&m))
            && (o.len() != b.len() || t.len() != b.len())
            && [b, o, t].iter().all(|l| l.iter().all(is_number))
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
        self.note_at(path, format!("both sides added it; kept {side}'s value, {}'s was empty ({})", side.other(), dropped.raw.trim()));
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
        let (bm, om, tm) = (Members::new(b), Members::new(o), Members::new(t));
        let renames = renamed_members(&bm, &om, &tm);
        for &(old, _) in &renames {
            seen.insert(old);
        }
        for &(k, _) in o.iter().chain(t).chain(b) {
            if !seen.insert(k) {
                continue;
            }
            path.push(Seg::Key(k));
            let added = bm.get(k).is_none().then(|| self.stands_with_its_target(k, None, om.get(k), tm.get(k))).flatten();
            let v = match renames.iter().find(|&&(_, new)| new == k) {
                _ if added.is_some() => added,
                Some(&(old, _)) => self.value(path, bm.get(old), om.get(k).or(om.get(old)), tm.get(k).or(tm.get(old))),
                None => self.value(path, bm.get(k), om.get(k), tm.get(k)),
            };
            if let Some(v) = v.or_else(|| self.stands_with_its_target(k, bm.get(k), om.get(k), tm.get(k))) {
                merged.insert(k, v);
            }
            path.pop();
        }
        // A renamed member keeps its place: every version names it by its new name.
        let new_name = |k: Key<'a>| renames.iter().find(|&&(old, _)| old == k).map_or(k, |&(_, new)| new);
        let keys = |m: &'a [(Key<'a>, Value<'a>)]| m.iter().map(|(k, _)| new_name(*k)).collect::<Vec<_>>();
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
        // Read once per list, only where both sides inserted at one place.
        let ascending = std::cell::OnceCell::new();
        let ascending = || *ascending.get_or_init(|| [b, o, t].iter().all(|l| ascending_numbers(l)));
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
                    if self.concurrent_insertions.kept_in(path) && bs.is_empty() && ascending() {
                        // A list of numbers every version keeps in ascending order is a set (an
                        // LDtk tag's tile ids): what both sides inserted at one place is kept
                        // once each, in that order.
                        let mut inserted: Vec<(f64, &'a Value<'a>)> = os.iter().chain(ts).map(|v| (number_of(v), v)).collect();
                        inserted.sort_by(|x, y| x.0.total_cmp(&y.0));
                        inserted.dedup_by(|x, y| x.0 == y.0);
                        items.extend(inserted.into_iter().map(|(_, v)| MValue::Exact(v)));
                    } else if self.concurrent_insertions.kept_in(path) && bs.is_empty() && !os.iter().any(|x| ts.iter().any(|y| x.same(y)))
                    {
                        // Both sides inserted different items at one place: all are kept, ours
                        // first, as concurrent additions are everywhere else.
                        self.note_at(path, format!("both sides inserted items at position {}; kept all of them, ours first", ours.start));
                        items.extend(os.iter().chain(ts).map(MValue::Exact));
                    } else if let Some(merged) = self.edited_in_place_plus_items(path, bs, os, ts, ours.start) {
                        items.extend(merged);
                    } else if let Some(merged) = self.insertions_beside_a_change(path, bs, os, ts, ours.start) {
                        items.extend(merged);
                    } else if let Some(merged) = self.changes_side_by_side(path, bs, os, ts, ours.start) {
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
    /// dropped or gained a reference to an object a whole-object conflict decides: merged
    /// member by member instead, so that the reference can stand or go with the object
    /// ([`Self::stands_with_its_target`]). A value that is one reference, set to name such an
    /// object, stands with it: where the object goes, base's value stays (a script's target
    /// theirs set to a door ours deleted is ours' unset target in ours' view of the conflict).
    /// The value of the side that changed it, taken whole, where the other side's is `unchanged`
    /// from base's (theirs looked at first).
    fn one_side_changed(
        &mut self,
        path: &[Seg<'a>],
        base: &'a Value<'a>,
        ours: &'a Value<'a>,
        theirs: &'a Value<'a>,
        unchanged: impl Fn(&'a Value<'a>, &'a Value<'a>) -> bool,
    ) -> Option<MValue<'a>> {
        let changed = if unchanged(theirs, base) {
            ours
        } else if unchanged(ours, base) {
            theirs
        } else {
            return None;
        };
        let whole = self.taken_whole(base, changed)?;
        Some(self.noted(path, whole))
    }

    fn taken_whole(&self, base: &'a Value<'a>, changed: &'a Value<'a>) -> Option<MValue<'a>> {
        if !self.changes_a_decided_reference(base, changed) {
            return Some(MValue::Exact(changed));
        }
        let member_by_member = map_entries(base).is_some() && map_entries(changed).is_some();
        // A list keyed by identity whose one entry names such an object is merged entry by
        // entry instead: that entry stands with its object, the others are merged as any (a
        // transform's `m_Children` that ours changed from a child ours moved out to one theirs
        // deleted: base's list would bring the moved child back in theirs' view).
        let by_entries = member_by_member && base.keyed && changed.keyed;
        if let Some(target) = sole_reference(changed).filter(|t| self.decided_by_conflict.contains(*t) && !by_entries) {
            if sole_reference(base) != Some(target) {
                return Some(MValue::IfAlive { target: target.clone(), value: Some(changed), otherwise: Some(base) });
            }
        }
        // A reference a side cleared, naming such an object in base (a Tiled object property
        // ours set to 0 when it deleted the object theirs edited), names it where it is kept.
        // Not a parent: one cleared is a move to the top level, which stands.
        let cleared = sole_reference_of(base).filter(|r| r.role == RefRole::Other && self.decided_by_conflict.contains(&r.target));
        if let Some(r) = cleared.filter(|_| !member_by_member && !changed.has_references) {
            return Some(MValue::IfAlive { target: r.target.clone(), value: Some(base), otherwise: Some(changed) });
        }
        (!member_by_member).then_some(MValue::Exact(changed))
    }

    /// Whether `base` and `changed` refer to different objects among those a whole-object
    /// conflict decides, or moved under them.
    fn changes_a_decided_reference(&self, base: &Value<'a>, changed: &Value<'a>) -> bool {
        if self.decided_by_conflict.is_empty() || !(base.has_references || changed.has_references) {
            return false;
        }
        let decided = |t: &ObjectId| self.decided_by_conflict.contains(t) || self.moved_under_decided.contains_key(t);
        let targets = |v: &Value<'a>| {
            let mut refs = Vec::new();
            v.references(&mut PropPath::default(), &mut refs);
            refs.into_iter().map(|(_, r)| r.target).filter(decided).collect::<FxHashSet<_>>()
        };
        targets(base) != targets(changed)
    }

    /// A member of a list with identity (keyed by the object it names) that one side removed
    /// and the other kept as it was, or that one side added, naming an object a whole-object
    /// conflict decides (a game object's entry for a component one side deleted and the other
    /// edited; a collider list's entry one side added for an object the other deleted): it
    /// stands if the object does. One that a side removed when it moved the object it names
    /// under such an object (a transform ours put under a game object theirs deleted) is
    /// back where that object goes, as the object's parent reference is. A member under any
    /// other name is a setting, whose removal stands; one a side added naming such an object
    /// stands with the object.
    fn stands_with_its_target(
        &self,
        key: Key<'a>,
        b: Option<&'a Value<'a>>,
        o: Option<&'a Value<'a>>,
        t: Option<&'a Value<'a>>,
    ) -> Option<MValue<'a>> {
        if self.decided_by_conflict.is_empty() {
            return None;
        }
        let (kept, removed_by) = match (b, o, t) {
            (Some(b), Some(o), None) if o.same(b) => (o, Some(Side::Theirs)),
            (Some(b), None, Some(t)) if t.same(b) => (t, Some(Side::Ours)),
            (None, Some(added), None) | (None, None, Some(added)) => (added, None),
            _ => return None,
        };
        let mut refs = Vec::new();
        kept.references(&mut PropPath::default(), &mut refs);
        let [(_, only)] = &refs[..] else { return None };
        if only.target.as_str() != key {
            // An entry under another name that one side added, naming such an object (a prefab
            // override pointed at a scene object the other side deleted), is that side's edit
            // of a reference: it stands with the object too.
            let added_naming_decided = removed_by.is_none() && self.decided_by_conflict.contains(&only.target);
            return added_naming_decided.then(|| MValue::IfAlive { target: only.target.clone(), value: Some(kept), otherwise: None });
        }
        if self.decided_by_conflict.contains(&only.target) {
            return Some(MValue::IfAlive { target: only.target.clone(), value: Some(kept), otherwise: None });
        }
        let (mover, new_parent) = self.moved_under_decided.get(&only.target)?;
        (removed_by == Some(*mover)).then(|| MValue::IfAlive { target: new_parent.clone(), value: None, otherwise: Some(kept) })
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

    /// Both sides changed a stretch of items, each other items of it: ours removed one, theirs
    /// edited the one before (changes that meet without overlapping, which a diff of the whole
    /// list reads as one stretch). Each side's changes, found by diffing the stretch, are made
    /// where they are. `None` when they overlap, and when a side inserts items next to the
    /// other's change (where they go among the changed items is a guess). In every list, a
    /// program's too (a GDevelop event sheet): each item stays where it was, only changed or
    /// removed, so nothing about the order is left to guess (a line merge of the file keeps
    /// both as well, as long as the changed lines do not touch).
    fn changes_side_by_side(
        &mut self,
        path: &[Seg<'a>],
        b: &'a [Value<'a>],
        o: &'a [Value<'a>],
        t: &'a [Value<'a>],
        ours_start: usize,
    ) -> Option<Vec<MValue<'a>>> {
        let hashes = |l: &[Value<'_>]| l.iter().map(|v| v.hash).collect::<Vec<_>>();
        let base = hashes(b);
        let (ours, theirs) = (changed_stretches(&base, &hashes(o)), changed_stretches(&base, &hashes(t)));
        let apart = |x: &std::ops::Range<usize>, y: &std::ops::Range<usize>| {
            let overlap = x.start < y.end && y.start < x.end;
            let meet = x.end == y.start || y.end == x.start;
            !overlap && !(meet && (x.is_empty() || y.is_empty()))
        };
        if ours.is_empty() || theirs.is_empty() || !ours.iter().all(|(x, _)| theirs.iter().all(|(y, _)| apart(x, y))) {
            return None;
        }
        let mut changes: Vec<(std::ops::Range<usize>, &'a [Value<'a>])> =
            ours.into_iter().map(|(at, by)| (at, &o[by])).chain(theirs.into_iter().map(|(at, by)| (at, &t[by]))).collect();
        changes.sort_by_key(|(at, _)| at.start);
        let mut items = Vec::with_capacity(o.len().max(t.len()));
        let mut next = 0;
        for (at, by) in changes {
            items.extend(b[next..at.start].iter().map(MValue::Exact));
            items.extend(by.iter().map(MValue::Exact));
            next = at.end;
        }
        items.extend(b[next..].iter().map(MValue::Exact));
        self.note_at(path, format!("both sides changed neighbouring items at position {ours_start}; kept both changes"));
        Some(items)
    }

    /// A note of what the merge did at `path` of the object being merged, named as
    /// `Kind › path: what`.
    /// `value`, with a note where it is a reference that stands with an object whose deletion
    /// is in conflict (see [`Self::taken_whole`]): the side that prefers the deletion loses it.
    fn noted(&mut self, path: &[Seg<'a>], value: MValue<'a>) -> MValue<'a> {
        if let MValue::IfAlive { target, otherwise: Some(_), .. } = &value {
            let what = format!(
                "set to name {target}, whose deletion is in conflict: it stands with {target}, and base's value where {target} goes"
            );
            self.note_at(path, what);
        }
        value
    }

    fn note_at(&mut self, path: &[Seg<'a>], what: String) {
        self.notes.push(Note { object: self.object.clone(), message: format!("{} › {}: {what}", self.object_kind, to_path(path)) });
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
            let (kept_before, kept_after) = (same_items(&kept[..b.len()], b), same_items(&kept[extra..], b));
            // The change holds the new items already, where they go (a merge that kept both,
            // merged again with the side that inserted them): it is the result, not them twice.
            let holds = changed.len() > extra
                && if kept_before {
                    same_items(&changed[changed.len() - extra..], after)
                } else {
                    kept_after && same_items(&changed[..extra], before)
                };
            if holds {
                let (inserter, changer) = if ours_kept { ("ours", "theirs") } else { ("theirs", "ours") };
                self.note_at(
                    path,
                    format!("{changer}' change at position {ours_start} holds the items {inserter} inserted beside it already"),
                );
                return Some(changed.iter().map(MValue::Exact).collect());
            }
            let (added, added_after) = if kept_before && new(after) {
                (after, true)
            } else if kept_after && new(before) {
                (before, false)
            } else {
                continue;
            };
            let (inserter, changer) = if ours_kept { ("ours", "theirs") } else { ("theirs", "ours") };
            self.note_at(path, format!("{inserter} inserted items beside items {changer} changed, at position {ours_start}; kept both"));
            let (added, changed) = (added.iter().map(MValue::Exact), changed.iter().map(MValue::Exact));
            return Some(if added_after { changed.chain(added).collect() } else { added.chain(changed).collect() });
        }
        None
    }
}
