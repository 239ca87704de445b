//! Ids handed out by a counter in the file (Tiled's `nextobjectid`, LDtk's `nextUid`), or by
//! the editor from the ids it finds (Ogmo's entity ids, one above the highest of the layer):
//! two people who each add an object get the same new id. Before the merge, theirs' new objects
//! whose id ours also gave a different new object get fresh ids, above every id and counter
//! of the three versions, and theirs' references to them and its counter follow.
//!
//! A side's changed counter is raised above ids the other side added that it does not count
//! (a side gone back to an older file, or one adding ids without counting them).
//!
//! A new object of theirs named as one ours added under another id (an LDtk definition's
//! `identifier`) is that object: it takes ours' id, and the merge sees one object, or a
//! conflict where the two sides made it differently.
//!
//! Ids move only where they would with the sides swapped: which side is merged in decides
//! whose ids are rewritten, never whether the merge renumbers at all.

use levelmerge_core::model::ObjectId;
use levelmerge_core::text::splice;
use levelmerge_core::{Problem, Side, Sides};
use rustc_hash::FxHashMap;

use crate::parse::{parse_skipping, Closed, Dialect, Document, NodeKind};

/// A reference to an id: an object whose `type_member` is `type_value` holds the id in
/// `value_member` (a Tiled custom property of type `object`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// The top-level member counting the next id, if the file keeps one.
    pub counter: Option<&'static str>,
    pub references: References,
    /// The member naming an object, which no two objects of one array may share.
    pub name: Option<&'static str>,
    /// Whether one id may serve one object in each array (LDtk's lookups are by kind: a
    /// level and an entity definition of one uid do not clash); else one per space.
    pub per_array: bool,
    /// Where ids are unique only within the object holding their array: the member naming
    /// that object (an Ogmo layer's `_eid`). Such ids are named by no reference.
    pub scope: Option<&'static str>,
}

/// An id, with the object holding its array where ids are unique only there (else `""`).
type ScopedId<'s> = (&'s str, i64);

/// Where a version refers to ids of a space.
#[derive(Debug, Clone, Copy)]
pub enum References {
    None,
    Typed(TypedReference),
    /// Every integer member whose name passes the test (LDtk's `defUid`, `tilesetUid`, …),
    /// and string members `type` that read `{wrapper}(ID)` (LDtk's `F_Enum(15)`).
    Named {
        member: fn(&str) -> bool,
        wrapper: Option<&'static str>,
    },
}

/// The object an id is given to.
struct Element<'s> {
    /// The id's value node.
    value: u32,
    text: &'s str,
    /// The path of the array holding it, when ids are per array (else empty).
    array: String,
    /// The id of the object holding that array (a Tiled object's layer), if it has one: the
    /// same object added on both sides under one id is in the same place.
    holder: Option<&'s str>,
    /// Whether that holder is itself an object of the space (an LDtk entity definition
    /// holding field definitions), not only one with a member of the key's name.
    holder_in_space: bool,
    name: Option<&'s str>,
    /// Where the id's value starts and ends in `text`.
    id_at: (usize, usize),
}

impl<'s> Element<'s> {
    /// The id as written.
    fn id_text(&self) -> &'s str {
        &self.text[self.id_at.0..self.id_at.1]
    }

    /// The object's text with its id left out: what a copy of it under another id also reads.
    fn text_but_id(&self) -> (&'s str, &'s str) {
        (&self.text[..self.id_at.0], &self.text[self.id_at.1..])
    }
}

/// What one version holds of an id space.
struct Found<'s> {
    ids: FxHashMap<ScopedId<'s>, Element<'s>>,
    /// Reference value nodes with the id they name, and the text the id is wrapped in.
    references: Vec<(u32, i64, Option<&'static str>)>,
    counter: Option<(u32, i64)>,
    /// Ids the version gives to more than one object where one may hold it (a file already
    /// broken): which of them a reference names, or a moved id stands for, is not known.
    repeated: Vec<ScopedId<'s>>,
}

fn find<'s>(doc: &Document<'s>, space: &IdSpace) -> Found<'s> {
    let mut found = Found { ids: FxHashMap::default(), references: Vec::new(), counter: None, repeated: Vec::new() };
    if doc.nodes[doc.root as usize].kind == NodeKind::Object {
        found.counter = space.counter.and_then(|c| doc.member(doc.root, c)).and_then(|n| Some((n, doc.integer(n)?)));
    }
    let mut path = Vec::new();
    walk(doc, doc.root, &mut path, None, false, space, &mut found);
    found
}

/// `holder`: the id (as written; the scope member where the space has one) of the object
/// holding `node`, or the nearest such object's, and whether it is an object of the space;
/// `element`: whether `node` is one.
fn walk<'s>(
    doc: &Document<'s>,
    node: u32,
    path: &mut Vec<&'s str>,
    holder: Option<(&'s str, bool)>,
    element: bool,
    space: &IdSpace,
    found: &mut Found<'s>,
) {
    match doc.nodes[node as usize].kind {
        NodeKind::Object => {
            if let References::Typed(r) = space.references {
                let typed = doc.member(node, r.type_member).is_some_and(|t| doc.node_text(t).trim_matches('"') == r.type_value);
                if let Some(v) = doc.member(node, r.value_member).filter(|_| typed) {
                    if let Some(id) = doc.integer(v) {
                        found.references.push((v, id, None));
                    }
                }
            }
            for slot in doc.slots_of(node) {
                if let References::Named { member, wrapper } = space.references {
                    let name = doc.text(slot.name);
                    if member(name) && name != space.key {
                        if let Some(id) = doc.integer(slot.value) {
                            found.references.push((slot.value, id, None));
                        }
                    } else if let Some(wrapper) = wrapper.filter(|_| name == "type") {
                        let text = doc.node_text(slot.value);
                        let id = text
                            .strip_prefix('"')
                            .and_then(|t| t.strip_prefix(wrapper))
                            .and_then(|t| t.strip_prefix('('))
                            .and_then(|t| t.strip_suffix(")\""));
                        if let Some(id) = id.and_then(|id| id.parse().ok()) {
                            found.references.push((slot.value, id, Some(wrapper)));
                        }
                    }
                }
                let own_id = doc.member(node, space.scope.unwrap_or(space.key)).map(|v| doc.node_text(v));
                path.push(doc.text(slot.name));
                walk(doc, slot.value, path, own_id.map(|id| (id, element)).or(holder), false, space, found);
                path.pop();
            }
        }
        NodeKind::Array => {
            let array = path.join(".");
            let holds_ids = (space.arrays)(&array);
            for slot in doc.slots_of(node) {
                let element = slot.value;
                let mut registered = false;
                if holds_ids && doc.nodes[element as usize].kind == NodeKind::Object {
                    if let Some((value, id)) = doc.member(element, space.key).and_then(|v| Some((v, doc.integer(v)?))) {
                        registered = true;
                        let scope = if space.scope.is_some() { holder.map_or("", |h| h.0) } else { "" };
                        let array = if space.per_array { array.as_str() } else { "" };
                        match found.ids.entry((scope, id)) {
                            std::collections::hash_map::Entry::Occupied(first) => {
                                if first.get().array == array {
                                    found.repeated.push((scope, id));
                                }
                            }
                            std::collections::hash_map::Entry::Vacant(free) => {
                                let (start, id) = (doc.nodes[element as usize].start, &doc.nodes[value as usize]);
                                free.insert(Element {
                                    id_at: ((id.start - start) as usize, (id.end - start) as usize),
                                    value,
                                    text: doc.node_text(element),
                                    array: array.to_owned(),
                                    holder: holder.map(|h| h.0),
                                    holder_in_space: holder.is_some_and(|h| h.1),
                                    name: space.name.and_then(|n| doc.member(element, n)).map(|n| doc.node_text(n)),
                                });
                            }
                        }
                    }
                }
                walk(doc, element, path, holder, registered, space, found);
            }
        }
        _ => {}
    }
}

/// The versions [`renumber`] rewrote (`None`: left as they are), and a note per change.
pub struct Rewritten {
    pub ours: Option<Vec<u8>>,
    pub theirs: Option<Vec<u8>>,
    pub notes: Vec<String>,
}

/// Theirs with its colliding new ids renumbered, and a side's counter that went back below
/// ids the other side added raised above them, with a note per change; `None` when there is
/// nothing to change (or a version is not JSON).
pub fn renumber(texts: Sides<&[u8]>, spaces: &[IdSpace], unread: impl FnOnce() -> Sides<Vec<Closed>>) -> Option<Rewritten> {
    // Ids are handed out twice only where a side moved its counter: both did, or one did while
    // the other added ids without moving it (a file whose counter lags its ids). Ids without a
    // counter are looked for in every merge.
    let moved = |name: &str| {
        let base = written_number(texts.base, name);
        base != written_number(texts.ours, name) || base != written_number(texts.theirs, name)
    };
    if !spaces.iter().any(|s| s.counter.is_none_or(moved)) {
        return None;
    }
    // Every id is read: a container left unread holds none (nor any reference to an id new
    // in both sides, unless base already named an id it lacks).
    let keys: Vec<String> = spaces.iter().map(|s| format!("\"{}\"", s.key)).collect();
    let holds_no_id = |text: &[u8], c: &Closed| {
        let bytes = &text[c.open as usize..c.end as usize];
        !keys.iter().any(|k| memchr::memmem::find(bytes, k.as_bytes()).is_some())
    };
    let unread = unread().map(|side, closed| closed.into_iter().filter(|c| holds_no_id(texts.get(side), c)).collect::<Vec<_>>());
    let docs = Sides::new(
        parse_skipping(texts.base, Dialect::Json, &unread.base).ok()?,
        parse_skipping(texts.ours, Dialect::Json, &unread.ours).ok()?,
        parse_skipping(texts.theirs, Dialect::Json, &unread.theirs).ok()?,
    );
    let (mut ours_edits, mut theirs_edits, mut notes) = (Vec::new(), Vec::new(), Vec::new());
    for space in spaces {
        let found = Sides::new(find(&docs.base, space), find(&docs.ours, space), find(&docs.theirs, space));
        let theirs_next = move_colliding(space, &found, &docs.theirs, &mut theirs_edits, &mut notes);
        for side in [Side::Ours, Side::Theirs] {
            let Some((node, counter)) = found.get(side).counter else { continue };
            let next = if side == Side::Theirs { theirs_next } else { None };
            let raised = counter_floor(&found, side, theirs_next);
            let Some(target) = raised.into_iter().chain(next).max().filter(|t| *t > counter) else { continue };
            let n = &docs.get(side).nodes[node as usize];
            let edits = if side == Side::Ours { &mut ours_edits } else { &mut theirs_edits };
            edits.push((n.start as usize, n.end as usize, target.to_string()));
            if raised.is_some() {
                let counter_name = space.counter.unwrap_or("counter");
                notes.push(format!(
                    "{}' {counter_name} {counter} is raised to {target}: {} added {}s at or above it",
                    side.name(),
                    side.other().name(),
                    space.what
                ));
            }
        }
    }
    let rewrite = |doc: &Document<'_>, edits: Vec<(usize, usize, String)>| (!edits.is_empty()).then(|| splice(doc.src, edits).into_bytes());
    let rewritten = Rewritten { ours: rewrite(&docs.ours, ours_edits), theirs: rewrite(&docs.theirs, theirs_edits), notes };
    (rewritten.ours.is_some() || rewritten.theirs.is_some()).then_some(rewritten)
}

/// Theirs' new objects whose id ours gave a different new object get fresh ids, above every
/// id and counter of the three versions, with theirs' references to them; theirs' new objects
/// named as one ours added take ours' id. The edits of theirs, a note per change, and the
/// number theirs' counter must reach where ids moved.
fn move_colliding(
    space: &IdSpace,
    found: &Sides<Found<'_>>,
    theirs: &Document<'_>,
    edits: &mut Vec<(usize, usize, String)>,
    notes: &mut Vec<String>,
) -> Option<i64> {
    let (mut colliding, same_named) = planned_moves(&found.base, &found.ours, &found.theirs)?;
    // Refused with the sides swapped, refused here too: which side is merged in must not
    // decide whether ids move (swapping the sides swaps the conflicts, no more).
    planned_moves(&found.base, &found.theirs, &found.ours)?;
    if colliding.is_empty() && same_named.is_empty() {
        return None;
    }
    colliding.sort_unstable();
    let all = [&found.base, &found.ours, &found.theirs];
    let above_ids = all.iter().flat_map(|f| f.ids.keys()).map(|(_, id)| id).max().map_or(1, |m| m + 1);
    let above_counters = all.iter().filter_map(|f| f.counter.map(|c| c.1)).max().unwrap_or(1);
    let first = above_ids.max(above_counters);
    let fresh: FxHashMap<ScopedId<'_>, i64> = colliding.iter().zip(first..).map(|(&old, new)| (old, new)).collect();
    let new_id = |old: &ScopedId<'_>| fresh.get(old).copied().or_else(|| same_named.get(old).map(|target| target.1));
    for old in colliding.iter().chain(same_named.keys()) {
        let n = &theirs.nodes[found.theirs.ids[old].value as usize];
        edits.push((n.start as usize, n.end as usize, new_id(old).expect("a moved id").to_string()));
    }
    for &(node, id, wrapper) in &found.theirs.references {
        if let Some(new) = new_id(&("", id)) {
            let n = &theirs.nodes[node as usize];
            let text = wrapper.map_or_else(|| new.to_string(), |w| format!("\"{w}({new})\""));
            edits.push((n.start as usize, n.end as usize, text));
        }
    }
    if !colliding.is_empty() {
        let moves: Vec<String> = colliding.iter().map(|old| format!("{} → {}", old.1, fresh[old])).collect();
        notes.push(levelmerge_core::text::renumbered_note(&format!("{}s", space.what), "theirs", &moves));
    }
    let mut taken: Vec<(&ScopedId<'_>, &ScopedId<'_>)> = same_named.iter().collect();
    taken.sort_unstable();
    for (old, new) in taken {
        let (theirs_name, ours_name) = (found.theirs.ids.get(old).and_then(|e| e.name), found.ours.ids.get(new).and_then(|e| e.name));
        let why = if theirs_name.is_some() && theirs_name == ours_name {
            "both sides added one of that name"
        } else {
            "ours holds it already (a copy but for the id)"
        };
        notes.push(format!("theirs' new {} {} is ours' {}: {why}", space.what, old.1, new.1));
    }
    (!colliding.is_empty()).then(|| first + colliding.len() as i64)
}

/// Theirs' ids that move to fresh ones, and theirs' ids that become ours' (same-named).
type Moves<'s> = (Vec<ScopedId<'s>>, FxHashMap<ScopedId<'s>, ScopedId<'s>>);

/// Theirs' new objects that move: those whose id ours gave a different new object, and those
/// named as one ours added under another id (theirs' id → ours'); `None` where moving them
/// is refused.
fn planned_moves<'s>(base: &Found<'s>, ours: &Found<'s>, theirs: &Found<'s>) -> Option<Moves<'s>> {
    // Theirs' new objects named as one ours added under another id are that object: they
    // take ours' id (the merge then sees one object, or a conflict where the two differ).
    let same_named = same_object_ids(base, ours, theirs);
    let new_in_both = |id: &ScopedId<'s>, t: &Element<'s>| {
        !base.ids.contains_key(id) && !same_named.contains_key(id) && ours.ids.get(id).is_some_and(|o| o.array == t.array)
    };
    let mut colliding: Vec<ScopedId<'s>> = theirs
        .ids
        .iter()
        .filter(|(id, t)| new_in_both(id, t) && (ours.ids[id].text != t.text || ours.ids[id].holder != t.holder))
        .map(|(id, _)| *id)
        .collect();
    // An object whose holder moves is not ours' of its id, however alike (an LDtk field
    // definition of an entity definition each side added under one uid).
    let mut moving: rustc_hash::FxHashSet<&str> = colliding.iter().map(|id| theirs.ids[id].id_text()).collect();
    loop {
        let under_moving = |t: &Element<'_>| t.holder_in_space && t.holder.is_some_and(|h| moving.contains(h));
        let more: Vec<ScopedId<'s>> = theirs
            .ids
            .iter()
            .filter(|(id, t)| under_moving(t) && new_in_both(id, t) && !moving.contains(t.id_text()))
            .map(|(id, _)| *id)
            .collect();
        if more.is_empty() {
            break;
        }
        moving.extend(more.iter().map(|id| theirs.ids[id].id_text()));
        colliding.extend(more);
    }
    // An id taken over by a same-named object must be free in theirs: held there by
    // nothing, by an object moving away, or by one that collides (and moves).
    let taken_over_is_free =
        same_named.values().all(|target| !theirs.ids.contains_key(target) || same_named.contains_key(target) || colliding.contains(target));
    // An id a side gives twice is not moved: which of the two objects moves is a guess, and
    // the version is refused when it is read (a line merge instead).
    let repeated = |id: &ScopedId<'_>| ours.repeated.contains(id) || theirs.repeated.contains(id);
    let moves_a_repeated_id = colliding.iter().chain(same_named.keys()).chain(same_named.values()).any(repeated);
    (taken_over_is_free && !moves_a_repeated_id).then_some((colliding, same_named))
}

/// Where `side` changed its counter (a side gone back to an older file, one adding ids
/// without counting them) and the other side added ids at or above it that `side` does not
/// hold, the number its counter must reach so that the editor hands none of them out again,
/// whichever side's counter the merge keeps. `theirs_next`: what theirs' counter reaches where
/// its ids moved. A side's own ids above its own counter are its own problem, left as they
/// are (`merge(b, o, b)` is `o`); a counter the side did not change is not the one kept.
fn counter_floor(found: &Sides<Found<'_>>, side: Side, theirs_next: Option<i64>) -> Option<i64> {
    let value = |side: Side| {
        let counter = found.get(side).counter.map(|c| c.1);
        if side == Side::Theirs {
            counter.map(|c| theirs_next.map_or(c, |n| c.max(n)))
        } else {
            counter
        }
    };
    let counter = value(side).filter(|_| value(side) != found.base.counter.map(|c| c.1))?;
    let (held, other) = (&found.get(side).ids, found.get(side.other()));
    let added = other.ids.keys().filter(|id| !found.base.ids.contains_key(*id) && !held.contains_key(*id)).map(|(_, id)| *id);
    // Theirs' ids that moved hold numbers up to the one before `theirs_next`.
    let moved = theirs_next.filter(|_| side == Side::Ours).map(|next| next - 1);
    let top = added.chain(moved).max().filter(|top| *top >= counter)?;
    // Where both sides moved the counter from base's, the rule keeps the larger: the other
    // side's, above its own ids, needs no help.
    let base = found.base.counter.map(|c| c.1);
    let other_value = value(side.other());
    if base.is_some() && other_value != base && other_value.is_some_and(|o| o > top) {
        return None;
    }
    Some((top + 1).max(other_value.unwrap_or(0)))
}

/// A counter the file keeps at or below an id it counts, which the editor would hand out
/// again: one problem per space, on the counter's line (where the number is read).
pub fn counter_problems(doc: &Document<'_>, spaces: &[IdSpace]) -> Vec<Problem> {
    let mut problems = Vec::new();
    for space in spaces {
        let (Some(name), found) = (space.counter, find(doc, space)) else { continue };
        let Some((node, counter)) = found.counter else { continue };
        if !found.ids.keys().any(|(_, id)| *id >= counter) {
            continue;
        }
        // Without the numbers, which a merge changes: a merge of a file whose counter lagged
        // keeps the same problem, not a new one.
        problems.push(Problem::Inconsistent {
            object: ObjectId::new(crate::lower::ROOT_ID),
            message: format!("{name} is not above every {} id: the editor would give one again", space.what),
            line: doc.line_of(doc.nodes[node as usize].start) as usize,
        });
    }
    problems
}

/// The first number written as the value of a member `name` in `text` (as written: digits,
/// after a minus sign for a negative one).
fn written_number<'t>(text: &'t [u8], name: &str) -> Option<&'t str> {
    let key = format!("\"{name}\"");
    memchr::memmem::find_iter(text, key.as_bytes()).find_map(|at| number_after_key(&text[at + key.len()..]))
}

/// The number written as a member's value in `rest`, the text after the member's quoted name
/// (as written: digits, after a minus sign for a negative one).
pub(crate) fn number_after_key(rest: &[u8]) -> Option<&str> {
    // A string that reads as the name (`"name": "id"`) is followed by no colon.
    let value = rest.trim_ascii_start().strip_prefix(b":")?.trim_ascii_start();
    let sign = usize::from(value.first() == Some(&b'-'));
    let digits = value[sign..].iter().take_while(|b| b.is_ascii_digit()).count();
    (digits > 0).then(|| std::str::from_utf8(&value[..sign + digits]).ok()).flatten()
}

/// Theirs' new objects that are a new object of ours in the same array under another id
/// (theirs' id → ours'): named as it (both sides added the same thing, which keeping both
/// would name twice), or, unnamed or named alike, its copy but for the id, one object on each
/// side to a text (an earlier merge renumbered theirs' object and it is merged again from an
/// older base: keeping both would make one object two). An object of theirs that ours holds
/// alike under its own id is that one.
fn same_object_ids<'f, 's>(base: &'f Found<'s>, ours: &'f Found<'s>, theirs: &'f Found<'s>) -> FxHashMap<ScopedId<'s>, ScopedId<'s>> {
    let added = |side: &'f Found<'s>| side.ids.iter().filter(|(id, _)| !base.ids.contains_key(id));
    // A name is one object's within the object holding its array (two new entity definitions
    // each hold a field `name`), and so is a copy's text: theirs' object is ours' only where
    // their holders are one object.
    let ours_named: FxHashMap<(&'f str, Option<&'s str>, &'s str), ScopedId<'s>> =
        added(ours).filter_map(|(&id, e)| Some(((e.array.as_str(), e.holder, e.name?), id))).collect();
    let mut same: FxHashMap<ScopedId<'s>, ScopedId<'s>> = FxHashMap::default();
    let mut unmatched: Vec<(&ScopedId<'s>, &'f Element<'s>)> = added(theirs).filter(|(_, e)| e.name.is_some()).collect();
    loop {
        let found: Vec<(ScopedId<'s>, ScopedId<'s>)> = unmatched
            .iter()
            .filter_map(|(id, e)| {
                let key = (e.array.as_str(), holder_in_ours(e, &same, base, ours, theirs)?, e.name?);
                ours_named.get(&key).map(|o| (**id, *o))
            })
            .collect();
        if found.is_empty() {
            break;
        }
        unmatched.retain(|(id, _)| !found.iter().any(|(t, _)| t == *id));
        same.extend(found.into_iter().filter(|(t, o)| t != o));
    }
    type Copy<'f, 's> = (&'s str, &'f str, Option<&'s str>, (&'s str, &'s str));
    let mut copies: FxHashMap<Copy<'f, 's>, (Vec<ScopedId<'s>>, Vec<ScopedId<'s>>)> = FxHashMap::default();
    // An object both sides added alike under one id is that one on both: not a copy's place.
    let alike_in = |side: &Found<'s>, id: &ScopedId<'s>, e: &Element<'s>| side.ids.get(id).is_some_and(|o| o.text == e.text);
    for (id, e) in added(ours).filter(|(id, e)| !alike_in(theirs, id, e)) {
        copies.entry((id.0, e.array.as_str(), e.holder, e.text_but_id())).or_default().0.push(*id);
    }
    for (id, e) in added(theirs).filter(|(id, e)| !same.contains_key(id) && !alike_in(ours, id, e)) {
        let Some(holder) = holder_in_ours(e, &same, base, ours, theirs) else { continue };
        if let Some(entry) = copies.get_mut(&(id.0, e.array.as_str(), holder, e.text_but_id())) {
            entry.1.push(*id);
        }
    }
    let named_to: rustc_hash::FxHashSet<ScopedId<'s>> = same.values().copied().collect();
    for (o, t) in copies.into_values() {
        if let ([o], [t]) = (o.as_slice(), t.as_slice()) {
            if o != t && !named_to.contains(o) {
                same.insert(*t, *o);
            }
        }
    }
    same
}

/// The holder ours writes for the object holding the array of theirs' `element`: theirs'
/// own where the two sides hold it alike (base's, one both added alike, or one outside the
/// space: a Tiled layer); ours' where it was found to be one of ours' (`same`); `None` where
/// ours has no such object (a new holder of theirs that differs from ours').
fn holder_in_ours<'s>(
    element: &Element<'s>,
    same: &FxHashMap<ScopedId<'s>, ScopedId<'s>>,
    base: &Found<'s>,
    ours: &Found<'s>,
    theirs: &Found<'s>,
) -> Option<Option<&'s str>> {
    let holder = element.holder;
    let Some(id) = holder.filter(|_| element.holder_in_space).and_then(|h| h.parse::<i64>().ok()) else { return Some(holder) };
    let id = ("", id);
    if let Some(e) = same.get(&id).and_then(|o| ours.ids.get(o)) {
        return Some(Some(e.id_text()));
    }
    let held = theirs.ids.get(&id)?;
    (base.ids.contains_key(&id) || ours.ids.get(&id).is_some_and(|o| o.text == held.text)).then_some(holder)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OBJECTS: IdSpace = IdSpace {
        what: "object",
        arrays: |path| path.ends_with("objects"),
        key: "id",
        counter: Some("nextobjectid"),
        references: References::Typed(TypedReference { type_member: "type", type_value: "object", value_member: "value" }),
        name: None,
        per_array: false,
        scope: None,
    };

    /// Every container of every version read.
    fn read_whole() -> Sides<Vec<Closed>> {
        Sides::new(Vec::new(), Vec::new(), Vec::new())
    }

    #[test]
    fn colliding_new_ids_in_theirs_get_fresh_ones_with_their_references() {
        let base = r#"{"nextobjectid": 3, "layers": [{"id": 1, "objects": [{"id": 1}, {"id": 2}]}]}"#;
        let ours = r#"{"nextobjectid": 4, "layers": [{"id": 1, "objects": [{"id": 1}, {"id": 2}, {"id": 3, "name": "a"}]}]}"#;
        let theirs = r#"{"nextobjectid": 5, "layers": [{"id": 1, "objects": [{"id": 1, "properties": [{"name": "t", "type": "object", "value": 3}]}, {"id": 2}, {"id": 3, "name": "b"}, {"id": 4}]}]}"#;
        let Rewritten { theirs: Some(out), notes, .. } =
            renumber(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes()), &[OBJECTS], read_whole).unwrap()
        else {
            panic!("theirs renumbered")
        };
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"nextobjectid": 6, "layers": [{"id": 1, "objects": [{"id": 1, "properties": [{"name": "t", "type": "object", "value": 5}]}, {"id": 2}, {"id": 5, "name": "b"}, {"id": 4}]}]}"#
        );
        assert_eq!(notes, ["both sides added different objects under 1 id(s); theirs' are renumbered: 3 → 5"]);
    }

    #[test]
    fn alike_objects_both_sides_added_to_different_layers_under_one_id_are_told_apart() {
        let base = r#"{"nextobjectid": 3, "layers": [{"id": 1, "objects": []}, {"id": 2, "objects": []}]}"#;
        let ours = r#"{"nextobjectid": 4, "layers": [{"id": 1, "objects": [{"id": 3}]}, {"id": 2, "objects": []}]}"#;
        let theirs = r#"{"nextobjectid": 4, "layers": [{"id": 1, "objects": []}, {"id": 2, "objects": [{"id": 3}]}]}"#;
        let out =
            renumber(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes()), &[OBJECTS], read_whole).unwrap().theirs.unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            theirs.replace("[{\"id\": 3}]", "[{\"id\": 4}]").replace("\"nextobjectid\": 4", "\"nextobjectid\": 5")
        );
    }

    #[test]
    fn a_counter_at_or_below_an_id_it_counts_is_a_problem_on_its_line() {
        let text = "{\"layers\": [{\"id\": 1, \"objects\": [{\"id\": 4}]}],\n \"nextobjectid\": 4}";
        let doc = crate::parse::parse(text.as_bytes(), Dialect::Json).unwrap();
        let problems = counter_problems(&doc, &[OBJECTS]);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].line(), Some(2));
        assert!(problems[0].to_string().contains("nextobjectid is not above every object id"), "{}", problems[0]);
        let counted = text.replace("\"nextobjectid\": 4", "\"nextobjectid\": 5");
        let fine = crate::parse::parse(counted.as_bytes(), Dialect::Json).unwrap();
        assert!(counter_problems(&fine, &[OBJECTS]).is_empty());
    }

    /// LDtk-like definitions and levels, ids per array: entity definitions holding field
    /// definitions, layer definitions.
    const DEFS: IdSpace = IdSpace {
        what: "uid",
        arrays: |path| matches!(path, "levels" | "layers" | "entities" | "entities.fields"),
        key: "uid",
        counter: Some("nextUid"),
        references: References::None,
        name: Some("identifier"),
        per_array: true,
        scope: None,
    };

    #[test]
    fn a_same_named_object_moves_only_where_it_would_with_the_sides_swapped() {
        // LDtk-like: ids per array, definitions named. Both sides add a definition named
        // "A" (ours as 50, theirs as 51); theirs also gives 50 to a layer. Theirs' "A" cannot
        // take ours' 50, which its layer holds; ours' "A" could take theirs' 51, but which
        // side is merged in must not decide that, so neither moves.
        let base = r#"{"nextUid": 50, "entities": [], "layers": []}"#;
        let ours = r#"{"nextUid": 51, "entities": [{"uid": 50, "identifier": "A"}], "layers": []}"#;
        let theirs = r#"{"nextUid": 52, "entities": [{"uid": 51, "identifier": "A"}], "layers": [{"uid": 50, "identifier": "L"}]}"#;
        let moved = |o: &str, t: &str| renumber(Sides::new(base.as_bytes(), o.as_bytes(), t.as_bytes()), &[DEFS], read_whole).is_some();
        assert!(!moved(ours, theirs));
        assert!(!moved(theirs, ours));
        // Without theirs' layer, ours' id is free: theirs' "A" takes it.
        let lone = theirs.replace(r#"{"uid": 50, "identifier": "L"}"#, "");
        let out = renumber(Sides::new(base.as_bytes(), ours.as_bytes(), lone.as_bytes()), &[DEFS], read_whole).unwrap().theirs.unwrap();
        assert!(String::from_utf8(out).unwrap().contains(r#"{"uid": 50, "identifier": "A"}"#));
    }

    fn renumbered_theirs(base: &str, ours: &str, theirs: &str, space: IdSpace) -> Option<String> {
        let r = renumber(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes()), &[space], read_whole)?;
        Some(String::from_utf8(r.theirs?).unwrap())
    }

    #[test]
    fn a_field_is_named_within_its_own_definition() {
        // Ours adds a level (17) and entity A (18) with fields `name` (19) and `target` (20);
        // theirs adds entity B (17) with fields `name` (18) and `target` (19). Theirs' fields
        // were taken for ours' of the same name, as though B were A; with the sides swapped
        // that was refused, so nothing moved and both sides' field 19 stayed: one uid twice.
        let base = r#"{"nextUid": 17, "levels": [], "entities": []}"#;
        let ours = r#"{"nextUid": 21, "levels": [{"uid": 17}], "entities": [{"uid": 18, "identifier": "A", "fields": [{"uid": 19, "identifier": "name"}, {"uid": 20, "identifier": "target"}]}]}"#;
        let theirs = r#"{"nextUid": 20, "levels": [], "entities": [{"uid": 17, "identifier": "B", "fields": [{"uid": 18, "identifier": "name"}, {"uid": 19, "identifier": "target"}]}]}"#;
        let moved = theirs.replace(r#"{"uid": 19, "identifier": "target"}"#, r#"{"uid": 21, "identifier": "target"}"#);
        assert_eq!(renumbered_theirs(base, ours, theirs, DEFS), Some(moved.replace("\"nextUid\": 20", "\"nextUid\": 22")));
        assert!(renumbered_theirs(base, theirs, ours, DEFS).is_some(), "swapped, ours' field moves as well");
        // Both sides adding one entity under their own uids: its fields are ours' too.
        let same = ours.replace("\"A\"", "\"B\"").replace(r#"{"uid": 17}"#, "");
        let out = renumbered_theirs(base, &same, theirs, DEFS).expect("theirs takes ours' uids");
        assert_eq!(out, same.replace("\"nextUid\": 21", "\"nextUid\": 20"));
    }

    #[test]
    fn what_a_definition_holds_moves_with_it_however_alike() {
        // Both sides add an entity under 50, each holding a field `name` under 51: the
        // entities differ, so theirs' moves, and its field, alike as it is, is not ours' field.
        let base = r#"{"nextUid": 50, "entities": []}"#;
        let ours = r#"{"nextUid": 52, "entities": [{"uid": 50, "identifier": "A", "fields": [{"uid": 51, "identifier": "name"}]}]}"#;
        let theirs = ours.replace("\"A\"", "\"B\"");
        assert_eq!(
            renumbered_theirs(base, ours, &theirs, DEFS).as_deref(),
            Some(r#"{"nextUid": 54, "entities": [{"uid": 52, "identifier": "B", "fields": [{"uid": 53, "identifier": "name"}]}]}"#)
        );
    }

    #[test]
    fn the_same_object_added_on_both_sides_keeps_its_id() {
        let base = r#"{"objects": []}"#;
        let both = r#"{"objects": [{"id": 1}]}"#;
        assert!(renumber(Sides::new(base.as_bytes(), both.as_bytes(), both.as_bytes()), &[OBJECTS], read_whole).is_none());
    }
}
