//! The 3-way merge of levels (the LevelMerge paper's rules, made precise).
//!
//! * Objects are matched by id. An object kept by both sides has its properties merged one by
//!   one; one changed on both sides to different values is a conflict, to the same value is not.
//! * An object added on one side is inserted; the same id added on both sides with different
//!   content is a conflict.
//! * Deleting an object conflicts with the other side changing it, anything in its subtree,
//!   adding a child under it, or adding a use of it (an object naming it more often than in
//!   base does); otherwise its subtree goes with it. What the deleting side moved out of the
//!   subtree first is no longer in it: the other side's edits there do not contest the deletion.
//!   The objects of a conflicting subtree follow the conflict's resolution together.
//! * Maps merge by key, child slots and keys by identity ([`crate::order`]), lists without
//!   identity like diff3 ([`crate::diff3`]).
//! * Where one side left a value byte-identical to base, the other side's value is taken whole,
//!   so that `merge(b, x, b) = x` and `merge(b, b, y) = y` hold byte for byte.

mod values;
pub(crate) use values::sole_reference;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::conflict::{Conflict, ConflictKind};
use crate::model::{effective_parent, Key, Level, Object, ObjectId, PropPath, Value, ValueKind};
use crate::order::merge_order;
use crate::policy::{Policy, RuleAction};
use crate::resolve::Note;
use crate::side::{Side, Sides};
use values::{Merger, Seg};

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
    /// A reference one side removed along with the object it names, or set to name it, whose
    /// existence a whole-object conflict decides: `value` is written when that object is kept;
    /// else `otherwise` (the value the other side kept); nothing where the one that applies is
    /// `None` (an entry a side removed when it moved what it names under that object).
    IfAlive { target: ObjectId, value: Option<&'a Value<'a>>, otherwise: Option<&'a Value<'a>> },
    /// An entry one side added for a move that a conflict holds (a transform both sides moved,
    /// to different fathers, listed in each father's `m_Children`): written where the conflict
    /// with this index takes `side`; elsewhere `otherwise`, or nothing where that is `None` (a
    /// father one side set to an object both sides added, which that conflict places: base's
    /// father where the other side's version of it stands).
    IfSide { conflict: usize, side: Side, value: &'a Value<'a>, otherwise: Option<&'a Value<'a>> },
}

impl<'a> MValue<'a> {
    /// A map taken whole opened up into its members, each taken whole, so that one of them
    /// can be replaced; any other value is left as it is.
    pub(crate) fn open_map(&mut self) {
        if let MValue::Exact(whole) = self {
            if let ValueKind::Map(members) = &whole.kind {
                let entries = members.iter().map(|(k, member)| (*k, MValue::Exact(member))).collect();
                *self = MValue::Map { template: whole, entries };
            }
        }
    }
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
    /// Objects placed by the lists holding them ([`Level::placed_by_lists`]) that a side moved
    /// to another list: each is written only in the list of the parent a view gives it.
    pub moved_between_lists: Vec<ObjectId>,
    /// Objects the sides moved under different parents, merged member by member, by the
    /// conflict on the member naming the parent: each view hangs such an object where the
    /// side it takes there put it.
    pub moved_in_conflict: FxHashMap<ObjectId, usize>,
    /// The object each list entry stands for, where lists name an object by another
    /// ([`Level::listed_as`] turned round: a Unity prefab instance's stripped transform, named
    /// in `m_Children`, stands for the instance), over the three versions.
    pub listed_for: FxHashMap<ObjectId, ObjectId>,
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
    /// Whether a map of fields holds the fields its type declares (Unity's serialized structs):
    /// two sides that added one such map as a member of an object, each with fields the
    /// other's lacks, wrote it in two versions of its type, and a member-by-member merge would
    /// mix them (a field one side renamed would stand beside its old name, and the editor would
    /// read only one). Such an addition is a conflict as a whole. The object's own members are
    /// merged member by member still.
    pub fields_fixed_by_type: bool,
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
    /// Members holding a grid: numbers row after row (a tile layer's cells), whose places a
    /// resize moves. Resized by one side and changed by both, such a list is one conflict:
    /// aligning its numbers would put the other side's cells in other places.
    pub grids: &'static [&'static str],
    /// Objects a side deleted that the other side's merged edits still use in a way the merge
    /// could not see coming (an instance moved to where the deleted definition was named): their
    /// deletion is a delete/modify conflict. Filled by a second pass when the first merge left
    /// a reference dangling. Each is mapped to the objects found using it: one a side added
    /// stands or goes with it.
    pub contested: FxHashMap<ObjectId, Vec<ObjectId>>,
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
            ConcurrentInsertions::KeptIn(members) => values::last_member(path).is_some_and(|k| members.contains(&k)),
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
            fields_fixed_by_type: false,
            concurrent_insertions: ConcurrentInsertions::KeptEverywhere,
            empty_values: &[],
            grids: &[],
            contested: FxHashMap::default(),
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

/// Both sides moved objects, and the order of the `disputed` pairs was settled nearest ours':
/// told on the parent of the first pair that are siblings on both sides (whose children's
/// order that settled), else on the first object of the first pair.
fn order_clash_note(sides: [&Level<'_>; 2], disputed: &[(ObjectId, ObjectId)]) -> Option<Note> {
    let siblings = |a: &ObjectId, b: &ObjectId| sides.iter().all(|side| parent_in(side, a) == parent_in(side, b));
    let parent = disputed.iter().find(|(a, b)| siblings(a, b)).and_then(|(a, _)| sides[0].get(&parent_in(sides[0], a)?));
    match parent {
        Some(parent) => Some(Note {
            object: parent.id.clone(),
            message: format!("{}: both sides reordered its children, differently; kept the order nearest ours'", parent.kind),
        }),
        None => disputed.first().map(|(a, _)| Note {
            object: a.clone(),
            message: "both sides moved it among the objects around it, differently; kept the order nearest ours'".into(),
        }),
    }
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

/// The objects every version holds that one side moved under an object a whole-object
/// conflict decides, each with that side and its new parent (`children`: each version's
/// children by parent, base's first), and what lists name them by ([`Level::listed_as`]).
fn moved_under_decided(
    children: &[FxHashMap<ObjectId, Vec<ObjectId>>; 3],
    decided: &FxHashSet<ObjectId>,
    levels: [&Level<'_>; 3],
) -> FxHashMap<ObjectId, (Side, ObjectId)> {
    let mut moved = FxHashMap::default();
    for target in decided {
        for (at, side) in [(1, Side::Ours), (2, Side::Theirs)] {
            for kid in children[at].get(target).into_iter().flatten() {
                let parent_in = |i: usize| levels[i].get(kid).map(effective_parent);
                let elsewhere = |i: usize| parent_in(i).is_some_and(|p| p.as_ref() != Some(target));
                if elsewhere(0) && elsewhere(3 - at) {
                    moved.insert(kid.clone(), (side, target.clone()));
                    // The old parent's list names it by another object: that entry too.
                    if let Some(listed) = levels[at].listed_as.get(kid) {
                        moved.insert(listed.clone(), (side, target.clone()));
                    }
                }
            }
        }
    }
    moved
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

/// One side's move of an object both sides moved, to different parents, that a conflict
/// holds (a Cocos node's `_parent`, a Unity transform's `m_Father`).
struct ConflictingMove {
    conflict: usize,
    side: Side,
    moved: ObjectId,
    /// Its new parent on that side; `None` for the top level (a Unity transform given no
    /// father, listed by the scene's `SceneRoots`).
    parent: Option<ObjectId>,
    /// What the parent's list names for the moved object ([`Level::listed_as`]).
    listed: ObjectId,
}

impl ConflictingMove {
    /// Whether a keyed member (`key: value`) is a list's entry for the moved object.
    fn is_listed_by(&self, key: &str, value: &Value<'_>) -> bool {
        key == self.listed.as_str() && values::sole_reference(value) == Some(&self.listed)
    }
}

fn conflicting_moves(conflicts: &[Conflict<'_>], [base, ours, theirs]: [&Level<'_>; 3]) -> Vec<ConflictingMove> {
    let mut moves = Vec::new();
    for (at, c) in conflicts.iter().enumerate() {
        let moved = &c.object;
        let parents = [parent_in(base, moved), parent_in(ours, moved), parent_in(theirs, moved)];
        // An object both sides added has no place in base: any two places clash.
        let moved_from_base = base.get(moved).is_some() && (parents[1] == parents[0] || parents[2] == parents[0]);
        if parents[1] == parents[2] || moved_from_base {
            continue;
        }
        let names_parent = |side: Side, parent: &ObjectId| {
            let mut refs = Vec::new();
            for v in c.values.get(side) {
                v.references(&mut PropPath::default(), &mut refs);
            }
            refs.iter().any(|(_, r)| &r.target == parent)
        };
        for (side, level, at_side) in [(Side::Ours, ours, 1), (Side::Theirs, theirs, 2)] {
            let parent = parents[at_side].clone();
            // Only the conflict on where the object hangs: the value naming this side's parent,
            // or, where this side put it at the top level, the other side's.
            let on_the_parent = match &parent {
                Some(p) => names_parent(side, p),
                None => parents[3 - at_side].as_ref().is_some_and(|p| names_parent(side.other(), p)),
            };
            if on_the_parent {
                let listed = level.listed_as.get(moved).unwrap_or(moved).clone();
                moves.push(ConflictingMove { conflict: at, side, moved: moved.clone(), parent, listed });
            }
        }
    }
    moves
}

/// Objects both sides added under different parents that a whole-object conflict decides
/// (one follows a side's deletion of an ancestor): the conflict's side puts it where that
/// side did, so the entries each side alone wrote for it stand with that side too.
fn placed_apart_by_whole_conflicts(objects: &[MergedObject<'_>], [ours, theirs]: [&Level<'_>; 2]) -> Vec<ConflictingMove> {
    let mut moves = Vec::new();
    for o in objects {
        let (ObjectState::Chosen(conflict) | ObjectState::Follows(conflict)) = o.state else { continue };
        let (None, Some(in_ours), Some(in_theirs)) = (o.sides.base, o.sides.ours, o.sides.theirs) else { continue };
        let (parent_in_ours, parent_in_theirs) = (effective_parent(in_ours), effective_parent(in_theirs));
        if parent_in_ours == parent_in_theirs {
            continue;
        }
        for (side, level, parent) in [(Side::Ours, ours, parent_in_ours), (Side::Theirs, theirs, parent_in_theirs)] {
            let listed = level.listed_as.get(&o.id).unwrap_or(&o.id).clone();
            moves.push(ConflictingMove { conflict, side, moved: o.id.clone(), parent, listed });
        }
    }
    moves
}

/// References one side alone set to an object both sides added that a whole-object conflict
/// decides (its two versions apart, or placed apart by a deletion it follows): the object
/// lives in every view, as the version of the side the conflict takes, so a reference standing
/// with its life would stand where the other side's version, which does not expect it, is
/// written (theirs moved a transform under its copy of an object ours also added: ours' copy
/// does not list it). It stands with the side that set it instead, and so does an entry that
/// side removed when it moved what the entry names under the object (the transform's
/// `SceneRoots` entry).
/// `moved_under` is the merge's map of objects one side moved under an object a conflict
/// decides: that side and the new parent.
fn references_to_objects_both_added(objects: &mut [MergedObject<'_>], moved_under: &FxHashMap<ObjectId, (Side, ObjectId)>) {
    let decided: FxHashMap<ObjectId, usize> = objects
        .iter()
        .filter_map(|o| match (&o.state, o.sides.base, o.sides.ours, o.sides.theirs) {
            (ObjectState::Chosen(c) | ObjectState::Follows(c), None, Some(_), Some(_)) => Some((o.id.clone(), *c)),
            _ => None,
        })
        .collect();
    if decided.is_empty() {
        return;
    }
    let only_one = |by_ours: bool, by_theirs: bool| match (by_ours, by_theirs) {
        (true, false) => Some(Side::Ours),
        (false, true) => Some(Side::Theirs),
        _ => None,
    };
    let targets = |o: Option<&Object<'_>>| {
        let mut refs = Vec::new();
        if let Some(o) = o {
            o.props.references(&mut PropPath::default(), &mut refs);
        }
        refs.into_iter().map(|(_, r)| r.target).filter(|t| decided.contains_key(t)).collect::<FxHashSet<ObjectId>>()
    };
    for o in objects.iter_mut() {
        let ObjectState::Merged(props) = &o.state else { continue };
        if !stands_with_one_of(props, &decided) {
            continue;
        }
        let (by_ours, by_theirs) = (targets(o.sides.ours), targets(o.sides.theirs));
        let setter = |t: &ObjectId| only_one(by_ours.contains(t), by_theirs.contains(t));
        let mover = |entry: &Value<'_>, t: &ObjectId| {
            let (side, parent) = moved_under.get(values::sole_reference(entry)?)?;
            (parent == t).then_some(*side)
        };
        if let ObjectState::Merged(props) = &mut o.state {
            stands_with_side(props, &decided, &setter, &mover);
        }
    }
}

/// Whether `v` holds a member written where one of the `decided` objects lives.
fn stands_with_one_of(v: &MValue<'_>, decided: &FxHashMap<ObjectId, usize>) -> bool {
    match v {
        MValue::IfAlive { target, .. } => decided.contains_key(target),
        MValue::Map { entries, .. } => entries.iter().any(|(_, e)| stands_with_one_of(e, decided)),
        MValue::List { items, .. } => items.iter().any(|item| stands_with_one_of(item, decided)),
        _ => false,
    }
}

/// The members of `v` written or left out where one of the `decided` objects lives made to
/// stand with the side whose edit they are: one its `setter` set to name the object is written
/// where the object's conflict takes that side; an entry the `mover` of what it names under
/// the object removed is left out only there.
fn stands_with_side<'a>(
    v: &mut MValue<'a>,
    decided: &FxHashMap<ObjectId, usize>,
    setter: &impl Fn(&ObjectId) -> Option<Side>,
    mover: &impl Fn(&Value<'_>, &ObjectId) -> Option<Side>,
) {
    match v {
        MValue::IfAlive { target, value, otherwise } => {
            let Some(&conflict) = decided.get(target) else { return };
            match (*value, *otherwise) {
                (Some(value), otherwise) => {
                    if let Some(side) = setter(target) {
                        *v = MValue::IfSide { conflict, side, value, otherwise };
                    }
                }
                (None, Some(kept)) => {
                    if let Some(side) = mover(kept, target) {
                        *v = MValue::IfSide { conflict, side: side.other(), value: kept, otherwise: None };
                    }
                }
                (None, None) => {}
            }
        }
        MValue::Map { entries, .. } => entries.iter_mut().for_each(|(_, e)| stands_with_side(e, decided, setter, mover)),
        MValue::List { items, .. } => items.iter_mut().for_each(|item| stands_with_side(item, decided, setter, mover)),
        _ => {}
    }
}

/// The entry each side added for a conflicting move to its new parent's list stands or goes
/// with that side's value: an entry object under the parent that only names the moved object
/// (a Cocos node's `_children` entry) follows the conflict; a keyed member naming it in the
/// parent's merged properties (a Unity transform's `m_Children`) is written where the
/// conflict takes that side.
fn tie_entries_to_conflicting_moves(objects: &mut [MergedObject<'_>], index: &FxHashMap<ObjectId, usize>, moves: &[ConflictingMove]) {
    for m in moves {
        let other = m.side.other();
        let Some(parent) = &m.parent else {
            // At the top level: what lists it there is whatever lists it on this side alone.
            let lists = |v: Option<&Object<'_>>| v.is_some_and(|v| lists_the_move(&v.props, m));
            for o in objects.iter_mut().filter(|o| lists(*o.sides.get(m.side)) && !lists(o.sides.base) && !lists(*o.sides.get(other))) {
                if let ObjectState::Merged(props) = &mut o.state {
                    listed_with_the_move(props, m);
                }
            }
            continue;
        };
        let entries: Vec<usize> = objects
            .iter()
            .enumerate()
            .filter(|(_, o)| {
                o.parent.as_ref() == Some(parent)
                    && o.sides.base.is_none()
                    && o.sides.get(other).is_none()
                    && o.sides.get(m.side).is_some_and(|e| values::sole_reference(&e.props) == Some(&m.moved))
            })
            .map(|(i, _)| i)
            .collect();
        let tied: Vec<ObjectId> = entries.iter().map(|&i| objects[i].id.clone()).collect();
        for i in entries {
            objects[i].state = ObjectState::Follows(m.conflict);
        }
        if let Some(&p) = index.get(parent) {
            if let ObjectState::Merged(props) = &mut objects[p].state {
                listed_with_the_move(props, m);
                slots_opened_for(props, &tied);
            }
        }
    }
}

/// The keyed members of `v` that name the moved object made to stand with the move's side; a
/// map taken whole that holds one is opened up into its members first.
fn listed_with_the_move<'a>(v: &mut MValue<'a>, m: &ConflictingMove) {
    if let MValue::Exact(whole) = v {
        if !lists_the_move(whole, m) {
            return;
        }
        v.open_map();
    }
    match v {
        MValue::Map { entries, .. } => {
            for (k, entry) in entries.iter_mut() {
                match entry {
                    MValue::Exact(value) if m.is_listed_by(k, value) => {
                        *entry = MValue::IfSide { conflict: m.conflict, side: m.side, value, otherwise: None };
                    }
                    // Written where the object lives; the conflict that places it decides that.
                    MValue::IfAlive { target, value: Some(value), otherwise: None } if *target == m.moved && m.is_listed_by(k, value) => {
                        *entry = MValue::IfSide { conflict: m.conflict, side: m.side, value, otherwise: None };
                    }
                    other => listed_with_the_move(other, m),
                }
            }
        }
        MValue::List { items, .. } => items.iter_mut().for_each(|item| listed_with_the_move(item, m)),
        _ => {}
    }
}

/// The child slots of `v` holding one of `entries` made to list their children by the merge's
/// states: a parent one side added is taken whole, its bytes listing every entry it wrote, so
/// an entry tied to a conflict would stand in every view.
fn slots_opened_for<'a>(v: &mut MValue<'a>, entries: &[ObjectId]) {
    let MValue::Exact(whole) = v else {
        if let MValue::Map { entries: members, .. } = v {
            members.iter_mut().for_each(|(_, member)| slots_opened_for(member, entries));
        }
        return;
    };
    if !whole.has_children {
        return;
    }
    match &whole.kind {
        ValueKind::Children(ids) if ids.iter().any(|id| entries.contains(id)) => {
            *v = MValue::Children { template: whole, ids: ids.clone() };
        }
        ValueKind::Map(_) => {
            v.open_map();
            slots_opened_for(v, entries);
        }
        _ => {}
    }
}

/// Whether `v` holds, in its maps, a keyed member naming the moved object.
fn lists_the_move(v: &Value<'_>, m: &ConflictingMove) -> bool {
    match &v.kind {
        ValueKind::Map(members) => members.iter().any(|(k, member)| m.is_listed_by(k, member) || lists_the_move(member, m)),
        _ => false,
    }
}

/// A child one side moved into `into` from elsewhere: the entries of base that listed it
/// there (a Cocos node's `_children` entry naming it), which that side removed. They stand or
/// go as the move does: where a conflict takes `into` away, the child is back where base had
/// it, listed there again.
fn entries_moved_out(
    child: &ObjectId,
    into: &ObjectId,
    base_referrers: Option<&Vec<ObjectId>>,
    base: &Level<'_>,
    sides: [&Level<'_>; 2],
) -> Vec<ObjectId> {
    let Some(referrers) = base_referrers else { return Vec::new() };
    let mut entries = Vec::new();
    for mover in sides {
        if parent_in(mover, child).as_ref() != Some(into) || parent_in(base, child).as_ref() == Some(into) {
            continue;
        }
        for r in referrers {
            let only_names_child = base.get(r).is_some_and(|entry| values::sole_reference(&entry.props) == Some(child));
            if only_names_child && mover.get(r).is_none() && sides.iter().any(|s| s.get(r).is_some()) {
                entries.push(r.clone());
            }
        }
    }
    entries
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
/// An item added to a list with identity (a prefab instance's override, a game object's
/// component) is an edit even where a field a re-save added is not.
fn modifies(base: &Value<'_>, side: &Value<'_>, rules: EditRules) -> bool {
    if base.identical(side) || base.same(side) {
        return false;
    }
    match (&base.kind, &side.kind) {
        (ValueKind::Map(b), ValueKind::Map(s)) => {
            let b = values::Members::new(b);
            let keyed = base.keyed || side.keyed;
            s.iter().any(|(k, sv)| match b.get(k) {
                None => rules.added_fields_are_edits || keyed,
                Some(_) if rules.bookkeeping.contains(k) => false,
                Some(bv) => modifies(bv, sv, rules),
            })
        }
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

/// Whether the merge hangs `id` where `other` put it, away from `parent`, the parent `side`
/// leaves it under as base had it: the other side moved it, and an edit under it is no longer
/// in `parent`'s subtree.
fn moved_out_by_other(base: &Level<'_>, other: &Level<'_>, id: &ObjectId, parent: &ObjectId) -> bool {
    let base_parent = parent_in(base, id);
    base_parent.as_ref() == Some(parent) && other.get(id).is_some_and(|o| effective_parent(o) != base_parent)
}

fn side_changes(base: &Level<'_>, side: &Level<'_>, other: &Level<'_>, rules: EditRules, aligned: bool) -> SideChanges {
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
        // Mark the object and its ancestors on this side, up to where the other side moved
        // one of them out: a deletion the other side made above that point takes nothing
        // this side touched.
        let mut at = Some(obj.id.clone());
        let mut steps = 0;
        while let Some(id) = at {
            steps += 1;
            if !subtree_touched.insert(id.clone()) || steps > side.objects.len() {
                break;
            }
            at = parent_in(side, &id).filter(|parent| !moved_out_by_other(base, other, &id, parent));
        }
    }
    SideChanges { subtree_touched, newly_referenced }
}

/// The kind an object's rules are looked up under: its kind merged like a value (the side that
/// changed it wins; base's when both changed it apart; the one side's that has it), or none when
/// both sides added it as different kinds, so that which side is ours never decides whether a
/// rule of a kind applies.
fn kind_for_rules<'x>(sides: Sides<Option<&'x Object<'_>>>) -> &'x str {
    let kinds = sides.map(|_, o| o.map(|o| o.kind.as_str()));
    match (kinds.base, kinds.ours, kinds.theirs) {
        (_, Some(o), Some(t)) if o == t => o,
        (Some(b), Some(o), Some(t)) if o == b => t,
        (Some(b), Some(o), Some(t)) if t == b => o,
        (Some(b), Some(_), Some(_)) => b,
        (_, Some(one), None) | (_, None, Some(one)) => one,
        (Some(b), None, None) => b,
        (None, _, _) => "",
    }
}

/// Merge three versions of a level.
pub fn merge<'a>(inputs: Sides<&'a Level<'a>>, options: &Options) -> MergedLevel<'a> {
    let (base, ours, theirs) = (inputs.base, inputs.ours, inputs.theirs);
    let edits = EditRules { added_fields_are_edits: options.added_fields_are_edits, bookkeeping: options.bookkeeping_members };
    // The usual case: the same objects in the same order in every version.
    let aligned = base.objects.keys().eq(ours.objects.keys()) && ours.objects.keys().eq(theirs.objects.keys());
    let changes =
        Sides::new(None, Some(side_changes(base, ours, theirs, edits, aligned)), Some(side_changes(base, theirs, ours, edits, aligned)));
    let changes_of = |s: Side| changes.get(s).as_ref().expect("ours and theirs have change sets");

    // 1. Which objects exist, and which need a whole-object conflict.
    let (ids, disputed): (Vec<ObjectId>, Vec<(ObjectId, ObjectId)>) = if aligned {
        (ours.objects.keys().cloned().collect(), Vec::new())
    } else {
        let keys = |l: &Level<'_>| l.objects.keys().cloned().collect::<Vec<_>>();
        let merged = merge_order(&keys(base), &keys(ours), &keys(theirs), |_| true);
        (merged.order, merged.disputed)
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
    let placed_by_lists = [base, ours, theirs].iter().any(|l| l.placed_by_lists && !l.parent_refs);
    let mut alive: FxHashSet<ObjectId> = FxHashSet::default();
    let mut choices: Vec<(ObjectId, ConflictKind)> = Vec::new();
    for (id, sides) in ids.iter().zip(&versions) {
        let (b, o, t) = (sides.base, sides.ours, sides.theirs);
        match (b, o, t) {
            (Some(b), Some(o), Some(t)) => {
                alive.insert(id.clone());
                // Moved by both sides to different lists: no property holds the clash.
                if placed_by_lists && b.parent != o.parent && b.parent != t.parent && o.parent != t.parent {
                    choices.push((id.clone(), ConflictKind::BothModified));
                }
            }
            (None, Some(_), None) | (None, None, Some(_)) => {
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
                if keeper.subtree_touched.contains(id) || keeper.newly_referenced.contains(id) || options.contested.contains_key(id) {
                    alive.insert(id.clone());
                    choices.push((id.clone(), ConflictKind::DeleteModify { deleted_by }));
                }
            }
            (Some(_), None, None) | (None, None, None) => {}
        }
    }

    // 2. Whole-object conflicts, outermost first; their subtrees follow them, and so do the
    //    objects that were deleted with them and refer to them (kept with the object, they
    //    keep what it lists, such as a game object's transform), and the objects one side
    //    added that only the codec's checks found using them (a Godot signal connected to a
    //    node the other side deleted, which Godot's editor deletes with the node).
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
        fields_fixed_by_type: options.fields_fixed_by_type,
        concurrent_insertions: options.concurrent_insertions,
        empty_values: options.empty_values,
        grids: options.grids,
        volatile: options.policy.rules.iter().any(|r| r.action == RuleAction::Ignore).then(|| options.policy.clone()),
        object: ObjectId::new(""),
        object_kind: "",
        alive,
        decided_by_conflict: FxHashSet::default(),
        moved_under_decided: FxHashMap::default(),
    };
    if let Some(note) = order_clash_note([ours, theirs], &disputed) {
        merger.notes.push(note);
    }
    let mut states: FxHashMap<ObjectId, ObjectState<'a>> = FxHashMap::default();
    for (id, kind) in choices {
        if states.contains_key(&id) {
            continue;
        }
        let sides = Sides::new(base.get(&id), ours.get(&id), theirs.get(&id));
        let values = sides.map(|_, o| o.map(|o| &o.props).into_iter().collect());
        merger.object = id.clone();
        merger.object_kind = kind_for_rules(sides);
        let MValue::Conflict(c) = merger.conflict(&[], kind, values) else { unreachable!() };
        states.insert(id.clone(), ObjectState::Chosen(c));
        let mut stack = vec![id.clone()];
        while let Some(at) = stack.pop() {
            let all = children.as_ref().expect("computed when there are choices");
            let kids = [all[0].get(&at), all[1].get(&at), all[2].get(&at)];
            let needed = deleted_referents(&at, base, [ours, theirs], &merger.alive);
            let by_ref = referrers.as_ref().expect("computed when there are choices");
            // Not one whose own parent was deleted and stays so (a Cocos click event naming
            // the object, deleted with its button): kept, it would hang under nothing.
            let parent_stays =
                |r: &ObjectId| parent_in(base, r).is_none_or(|p| p == at || merger.alive.contains(&p) || states.contains_key(&p));
            let deleted_with: Vec<&ObjectId> = [by_ref[0].get(&at), by_ref[1].get(&at), by_ref[2].get(&at)]
                .into_iter()
                .flatten()
                .flatten()
                .filter(|r| base.get(r).is_some() && (ours.get(r).is_none() || theirs.get(r).is_none()) && parent_stays(r))
                .collect();
            let added_by_one = |r: &&ObjectId| base.get(r).is_none() && ours.get(r).is_none() != theirs.get(r).is_none();
            let added_users = options.contested.get(&at).into_iter().flatten().filter(added_by_one);
            // An entry one side added that does nothing but name the object (a Cocos node's
            // `_children` entry for it) is part of adding it; so is a link one side added that
            // names it and holds and hangs under nothing (a Godot signal connected from it),
            // which would name nothing where it goes.
            let is_link = |r: &ObjectId, entry: &Object<'_>| {
                entry.parent.is_none() && base.root.as_ref() != Some(r) && !all[1].contains_key(r) && !all[2].contains_key(r)
            };
            let added_entries = [by_ref[1].get(&at), by_ref[2].get(&at)].into_iter().flatten().flatten().filter(added_by_one).filter(|r| {
                ours.get(r)
                    .or_else(|| theirs.get(r))
                    .is_some_and(|entry| values::sole_reference(&entry.props) == Some(&at) || is_link(r, entry))
            });
            let mut moved_out = Vec::new();
            for kid in kids.into_iter().flatten().flatten().chain(deleted_with).chain(added_users).chain(added_entries).chain(needed.iter())
            {
                let everywhere = base.get(kid).is_some() && ours.get(kid).is_some() && theirs.get(kid).is_some();
                if everywhere {
                    moved_out.extend(entries_moved_out(kid, &at, by_ref[0].get(kid), base, [ours, theirs]));
                }
                if everywhere || states.contains_key(kid) {
                    continue;
                }
                merger.alive.insert(kid.clone());
                states.insert(kid.clone(), ObjectState::Follows(c));
                stack.push(kid.clone());
            }
            for entry in moved_out {
                if let std::collections::hash_map::Entry::Vacant(vacant) = states.entry(entry) {
                    merger.alive.insert(vacant.key().clone());
                    vacant.insert(ObjectState::Follows(c));
                }
            }
        }
    }

    merger.decided_by_conflict = states.keys().cloned().collect();
    if let Some(children) = &children {
        merger.moved_under_decided = moved_under_decided(children, &merger.decided_by_conflict, [base, ours, theirs]);
    }

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
                merger.object_kind = kind_for_rules(sides);
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
    let index: FxHashMap<ObjectId, usize> = objects.iter().enumerate().map(|(i, o)| (o.id.clone(), i)).collect();
    let moved_between_lists = if placed_by_lists {
        let moved = |s: &Sides<Option<&Object<'_>>>| {
            let mut parents = [s.base, s.ours, s.theirs].into_iter().flatten().map(|o| &o.parent);
            let first = parents.next();
            parents.any(|p| Some(p) != first)
        };
        objects.iter().filter(|o| moved(&o.sides)).map(|o| o.id.clone()).collect()
    } else {
        Vec::new()
    };
    let moves = conflicting_moves(&merger.conflicts, [base, ours, theirs]);
    let placed_whole = placed_apart_by_whole_conflicts(&objects, [ours, theirs]);
    if !moves.is_empty() || !placed_whole.is_empty() {
        tie_entries_to_conflicting_moves(&mut objects, &index, &moves);
        tie_entries_to_conflicting_moves(&mut objects, &index, &placed_whole);
    }
    references_to_objects_both_added(&mut objects, &merger.moved_under_decided);
    let moved_in_conflict = moves.iter().map(|m| (m.moved.clone(), m.conflict)).collect();
    let root = ours.root.clone().or_else(|| theirs.root.clone()).or_else(|| base.root.clone());
    let parent_refs = [base, ours, theirs].iter().any(|l| l.parent_refs);
    let references = parent_refs || [base, ours, theirs].iter().any(|l| l.references);
    let mut merged = MergedLevel {
        objects,
        index,
        conflicts: merger.conflicts,
        notes: merger.notes,
        root,
        parent_refs,
        references,
        moved_between_lists,
        moved_in_conflict,
        listed_for: [base, ours, theirs]
            .iter()
            .flat_map(|l| &l.listed_as)
            .map(|(object, listed)| (listed.clone(), object.clone()))
            .collect(),
    };
    options.policy.apply(&mut merged.conflicts);
    crate::cycles::break_cycles(&mut merged, [base, ours, theirs]);
    merged
}
