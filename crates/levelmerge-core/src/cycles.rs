//! Parent cycles made by concurrent moves (ours puts A under B, theirs B under A: each fine
//! alone, together a cycle) are broken deterministically and alike whichever side is ours: of
//! the objects in the cycle one side moved, the one with the smallest id keeps the parent the
//! other side left it, and each break is noted. Where a parent lists its children (a Unity
//! transform's `m_Children`, the `SceneRoots` of the top level, a Cocos node's `_children`
//! entries), the lists follow: the entry the moving side added under the new parent goes,
//! and the one the other side keeps under the old parent comes back.

use crate::merge::{sole_reference, MValue, MergedLevel, MergedObject, ObjectState};
use crate::model::{effective_parent, Level, Object, ObjectId, PropPath, RefRole, Value, ValueKind};
use crate::resolve::{lookup, replace_at, Note};
use crate::side::{Side, Sides};

pub fn break_cycles<'a>(merged: &mut MergedLevel<'a>, levels: [&'a Level<'a>; 3]) {
    if !merged.parent_refs && !moved_on_both_sides(merged) {
        return;
    }
    for _round in 0..merged.objects.len().max(1) {
        // Each side's view of the conflicts left open: a cycle through an object one side
        // deleted and the other kept is in one view only.
        let views = [Side::Ours, Side::Theirs].into_iter().take(if merged.open_conflicts() > 0 { 2 } else { 1 });
        let Some((graph, cycle)) = views.map(|side| merged.resolve(side).graph(true)).find_map(|graph| {
            let cycle = crate::coherence::find_cycle(&graph)?;
            Some((graph, cycle))
        }) else {
            return;
        };
        let mut members: Vec<&ObjectId> = cycle.iter().collect();
        members.sort();
        let broken = members.into_iter().find_map(|id| {
            let node = graph.iter().find(|n| &n.id == id).expect("cycle members are in the graph");
            let merged_parent =
                node.refs.iter().find(|(_, r)| r.role == RefRole::Parent).map(|(_, r)| &r.target).or(node.parent.as_ref())?;
            let mover = keep_parent_left(merged, id, merged_parent, levels)?;
            Some((id.clone(), merged_parent.clone(), mover))
        });
        let Some((id, moved_under, mover)) = broken else { return };
        merged.notes.push(Note {
            object: id,
            message: format!(
                "parent cycle broken: {} moved it under {moved_under}, which makes a cycle with {}' moves; {}' parent kept",
                mover.name(),
                mover.other().name(),
                mover.other().name()
            ),
        });
    }
}

/// Whether each side moved some object to another structural parent: only then can the
/// merge make a cycle where no property names a parent.
fn moved_on_both_sides(merged: &MergedLevel<'_>) -> bool {
    let moved_by = |side: Side| {
        merged.objects.iter().any(|o| match (o.sides.base, o.sides.get(side)) {
            (Some(b), Some(s)) => b.parent != s.parent,
            _ => false,
        })
    };
    moved_by(Side::Ours) && moved_by(Side::Theirs)
}

/// Give the object `id`, which one side moved under `moved_under`, back the parent the other
/// side left it (another object, or none: the top level): the member naming its parent, its
/// structural parent, and the lists that hold it. The side that moved it; none where both
/// moved it, or the member cannot be taken from the side that did not.
fn keep_parent_left<'a>(merged: &mut MergedLevel<'a>, id: &ObjectId, moved_under: &ObjectId, levels: [&'a Level<'a>; 3]) -> Option<Side> {
    let &i = merged.index.get(id)?;
    let obj = &merged.objects[i];
    let (base, ours, theirs) = (obj.sides.base?, obj.sides.ours?, obj.sides.theirs?);
    let base_parent = effective_parent(base);
    let (mover, keeper, kept) = if effective_parent(ours) == base_parent {
        (Side::Theirs, Side::Ours, ours)
    } else if effective_parent(theirs) == base_parent {
        (Side::Ours, Side::Theirs, theirs)
    } else {
        return None;
    };
    let moved = if mover == Side::Ours { ours } else { theirs };
    if base_parent.as_ref() == Some(moved_under) || effective_parent(moved).as_ref() != Some(moved_under) {
        return None;
    }
    let path = member_naming_parent(kept, moved, base_parent.as_ref(), moved_under)?;
    let kept_value = lookup(&kept.props, &path.0)?;
    let ObjectState::Merged(mv) = &mut merged.objects[i].state else { return None };
    if !replace_at(mv, &path.0, MValue::Exact(kept_value)) {
        return None;
    }
    merged.objects[i].parent = kept.parent.clone();
    let level = |side: Side| levels[if side == Side::Ours { 1 } else { 2 }];
    let listed = level(mover).listed_as.get(id).or_else(|| level(keeper).listed_as.get(id)).unwrap_or(id);
    unlist_under(merged, moved_under, listed, mover);
    relist(merged, base_parent.as_ref(), listed, [levels[0], level(mover), level(keeper)], keeper);
    Some(mover)
}

/// The member of an object whose reference names, in the version `moved`, `moved_under`,
/// where the version `kept` names `kept_parent` (or, for none, holds a value that names no
/// object); a declared parent first.
fn member_naming_parent(kept: &Object<'_>, moved: &Object<'_>, kept_parent: Option<&ObjectId>, moved_under: &ObjectId) -> Option<PropPath> {
    let refs = |o: &Object<'_>| {
        let mut refs = Vec::new();
        o.props.references(&mut PropPath::default(), &mut refs);
        refs
    };
    let (kept_refs, moved_refs) = (refs(kept), refs(moved));
    let names_kept_parent = |path: &PropPath| match kept_parent {
        Some(parent) => kept_refs.iter().any(|(p, r)| p == path && &r.target == parent),
        None => !kept_refs.iter().any(|(p, _)| p == path) && lookup(&kept.props, &path.0).is_some(),
    };
    let mut candidates: Vec<_> = moved_refs.iter().filter(|(p, r)| &r.target == moved_under && names_kept_parent(p)).collect();
    candidates.sort_by_key(|(_, r)| r.role != RefRole::Parent);
    candidates.first().map(|(p, _)| p.clone())
}

/// Take out of `parent`'s lists what `mover` added there for `child`: a keyed member naming
/// it in its merged properties, an entry object naming it alone under it.
fn unlist_under(merged: &mut MergedLevel<'_>, parent: &ObjectId, child: &ObjectId, mover: Side) {
    let entries: Vec<ObjectId> = merged
        .objects
        .iter()
        .filter(|o| o.parent.as_ref() == Some(parent) && o.sides.get(mover.other()).is_none() && o.sides.base.is_none())
        .filter(|o| o.sides.get(mover).and_then(|m| sole_reference(&m.props)) == Some(child))
        .map(|o| o.id.clone())
        .collect();
    if let Some(&p) = merged.index.get(parent) {
        if let ObjectState::Merged(props) = &mut merged.objects[p].state {
            without_member_naming(props, child);
            for entry in &entries {
                without_child(props, entry);
            }
        }
    }
    if !entries.is_empty() {
        merged.objects.retain(|o| !entries.contains(&o.id));
        merged.index = merged.objects.iter().enumerate().map(|(i, o)| (o.id.clone(), i)).collect();
    }
}

/// Put back what `keeper` (its level `kept`) lists `child` by and the other side took away:
/// the keyed members naming it (in its parent's `m_Children`, or the `SceneRoots` listing the
/// top level), each after the member written before it; and under `parent`, the entry
/// object naming it, back among the merged objects and in its parent's child slot.
fn relist<'a>(
    merged: &mut MergedLevel<'a>,
    parent: Option<&ObjectId>,
    child: &ObjectId,
    [base, mover, kept]: [&'a Level<'a>; 3],
    keeper: Side,
) {
    // Only the lists the moving side took it out of (not a game object's list of its own
    // components, which names a transform on every side).
    let lists = |level: &Level<'_>, id: &ObjectId| level.get(id).is_some_and(|o| holds_member_naming(&o.props, child));
    let holders = kept.objects.values().filter(|o| holds_member_naming(&o.props, child) && lists(base, &o.id) && !lists(mover, &o.id));
    for holder in holders {
        let Some(&h) = merged.index.get(&holder.id) else { continue };
        if let ObjectState::Merged(props) = &mut merged.objects[h].state {
            with_member_naming(props, &holder.props, child);
        }
    }
    let Some(parent) = parent else { return };
    let (Some(&p), Some(kept_parent)) = (merged.index.get(parent), kept.get(parent)) else { return };
    let entry = kept
        .objects
        .values()
        .find(|o| o.parent.as_ref() == Some(parent) && sole_reference(&o.props) == Some(child))
        .filter(|e| !merged.index.contains_key(&e.id));
    let Some(entry) = entry else { return };
    let ObjectState::Merged(props) = &mut merged.objects[p].state else { return };
    if !with_child(props, &kept_parent.props, &entry.id) {
        return;
    }
    let mut sides = Sides::new(base.get(&entry.id), None, None);
    *sides.get_mut(keeper) = Some(entry);
    merged.index.insert(entry.id.clone(), merged.objects.len());
    merged.objects.push(MergedObject {
        id: entry.id.clone(),
        kind: &entry.kind,
        parent: Some(parent.clone()),
        sides,
        state: ObjectState::Merged(MValue::Exact(&entry.props)),
    });
}

/// Whether `key: value` is a keyed list's member for `child`.
fn names_child(key: &str, value: &Value<'_>, child: &ObjectId) -> bool {
    key == child.as_str() && sole_reference(value) == Some(child)
}

/// Whether the merged member `key: m` is a keyed list's member for `child`, in any view
/// that writes it.
fn member_names_child(key: &str, m: &MValue<'_>, child: &ObjectId) -> bool {
    match m {
        MValue::Exact(value) => names_child(key, value, child),
        MValue::IfSide { value, otherwise, .. } => [Some(*value), *otherwise].into_iter().flatten().any(|v| names_child(key, v, child)),
        MValue::IfAlive { value, otherwise, .. } => [value, otherwise].into_iter().flatten().any(|v| names_child(key, v, child)),
        _ => false,
    }
}

/// Whether `v` holds, in its maps, a keyed member for `child`.
fn holds_member_naming(v: &Value<'_>, child: &ObjectId) -> bool {
    match &v.kind {
        ValueKind::Map(members) => members.iter().any(|(k, m)| names_child(k, m, child) || holds_member_naming(m, child)),
        _ => false,
    }
}

/// `v` without its keyed members for `child`; maps taken whole that hold one are opened.
fn without_member_naming(v: &mut MValue<'_>, child: &ObjectId) {
    if let MValue::Exact(whole) = v {
        if !holds_member_naming(whole, child) {
            return;
        }
        v.open_map();
    }
    if let MValue::Map { entries, .. } = v {
        entries.retain(|(k, m)| !member_names_child(k, m, child));
        entries.iter_mut().for_each(|(_, m)| without_member_naming(m, child));
    }
}

/// `v` with the keyed member for `child` that `kept` (the kept side's version of the value)
/// holds, where it lacks one, after the member written before it there.
fn with_member_naming<'a>(v: &mut MValue<'a>, kept: &'a Value<'a>, child: &ObjectId) {
    let ValueKind::Map(members) = &kept.kind else { return };
    if let Some(at) = members.iter().position(|(k, m)| names_child(k, m, child)) {
        // A list the other side emptied (`m_Children: []`) is an empty map in the kept
        // list's form.
        if matches!(v, MValue::Exact(Value { kind: ValueKind::List(items), .. }) if items.is_empty()) {
            *v = MValue::Map { template: kept, entries: Vec::new() };
        }
        v.open_map();
        let MValue::Map { entries, .. } = v else { return };
        // A member the merge wrote for some views only (standing with a conflict on the
        // object the child was moved under) is written in every view now.
        if let Some((_, member)) = entries.iter_mut().find(|(k, _)| *k == members[at].0) {
            if matches!(member, MValue::IfAlive { .. } | MValue::IfSide { .. }) && member_names_child(members[at].0, member, child) {
                *member = MValue::Exact(&members[at].1);
            }
            return;
        }
        let after = members[..at].iter().rev().find_map(|(k, _)| entries.iter().position(|(ek, _)| ek == k));
        entries.insert(after.map_or(0, |a| a + 1), (members[at].0, MValue::Exact(&members[at].1)));
        return;
    }
    for (key, member) in members.iter().filter(|(_, m)| holds_member_naming(m, child)) {
        v.open_map();
        if let MValue::Map { entries, .. } = v {
            if let Some((_, inner)) = entries.iter_mut().find(|(k, _)| k == key) {
                with_member_naming(inner, member, child);
            }
        }
    }
}

/// `v` without `entry` in its child slots; slots taken whole are opened.
fn without_child(v: &mut MValue<'_>, entry: &ObjectId) {
    match v {
        MValue::Exact(whole) if whole.has_children => {
            let opened = match &whole.kind {
                ValueKind::Children(ids) => MValue::Children { template: whole, ids: ids.clone() },
                ValueKind::Map(_) => {
                    v.open_map();
                    return without_child(v, entry);
                }
                _ => return,
            };
            *v = opened;
            without_child(v, entry);
        }
        MValue::Children { ids, .. } => ids.retain(|id| id != entry),
        MValue::Map { entries, .. } => entries.iter_mut().for_each(|(_, m)| without_child(m, entry)),
        _ => {}
    }
}

/// `v` with `entry` back in the child slot that lists it in `kept` (the kept side's version of
/// the value), after the entry listed before it there; whether the slot was found.
fn with_child<'a>(v: &mut MValue<'a>, kept: &'a Value<'a>, entry: &ObjectId) -> bool {
    match &kept.kind {
        ValueKind::Children(kept_ids) => {
            let Some(at) = kept_ids.iter().position(|id| id == entry) else { return false };
            if let MValue::Exact(whole) = v {
                let ValueKind::Children(ids) = &whole.kind else { return false };
                *v = MValue::Children { template: whole, ids: ids.clone() };
            }
            let MValue::Children { ids, .. } = v else { return false };
            let after = kept_ids[..at].iter().rev().find_map(|id| ids.iter().position(|i| i == id));
            ids.insert(after.map_or(0, |a| a + 1), entry.clone());
            true
        }
        ValueKind::Map(members) => members.iter().any(|(key, member)| {
            member.has_children && {
                v.open_map();
                match v {
                    MValue::Map { entries, .. } => {
                        entries.iter_mut().find(|(k, _)| k == key).is_some_and(|(_, inner)| with_child(inner, member, entry))
                    }
                    _ => false,
                }
            }
        }),
        _ => false,
    }
}
