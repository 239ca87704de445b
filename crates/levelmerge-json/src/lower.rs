//! From a JSON document to a level: objects in arrays whose elements carry an id become level
//! objects (children of the object holding the array); everything else is a property value.

use levelmerge_core::model::{Level, Lowered, Object, ObjectId, Origin, RefRole, Reference, Value};
use levelmerge_core::{Problem, Side};
use std::borrow::Cow;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::parse::{Document, NodeKind, Slot};
use crate::JsonConfig;

/// The id of the object standing for the whole document.
pub const ROOT_ID: &str = "/";

/// Where the node being lowered sits in the other versions (`others[i]`), when it is there.
type Peers = [Option<u32>; 2];

/// How far from its expected place an element is looked for in another version. Elements
/// mostly keep their place give or take the insertions before them; one not found is simply
/// lowered in full (always correct, only slower).
const PEER_WINDOW: isize = 16;

/// An identity array in another version, searched for elements by id.
struct PeerArray<'d, 'k> {
    doc: &'d Document<'d>,
    array: u32,
    /// The member holding each element's id, or the key its position is read from.
    key: &'k str,
    /// Position there minus position here, as last seen.
    shift: isize,
    /// Where the id member sat in the last element looked at.
    id_member: usize,
    /// The places of a positional array's elements; found when first asked for.
    places: Option<Vec<Option<Place<'d>>>>,
}

impl<'d> PeerArray<'d, '_> {
    /// The place of the element at `index` of a positional array.
    fn place_at(&mut self, index: usize) -> Option<&Place<'d>> {
        let (doc, array, key) = (self.doc, self.array, self.key);
        let places = self.places.get_or_insert_with(|| {
            let mut earlier = FxHashMap::default();
            doc.slots_of(array).iter().map(|s| Some(place(position_of(doc, s.value, key)?, &mut earlier))).collect()
        });
        places.get(index)?.as_ref()
    }

    fn id_at(&mut self, index: isize) -> Option<&'d str> {
        let index = usize::try_from(index).ok()?;
        let slot = self.doc.slots_of(self.array).get(index)?;
        if self.doc.nodes[slot.value as usize].kind != NodeKind::Object {
            return None;
        }
        let members = self.doc.slots_of(slot.value);
        let is_id = |m: &Slot| self.doc.text(m.name) == self.key;
        let at = match members.get(self.id_member) {
            Some(m) if is_id(m) => self.id_member,
            _ => members.iter().position(is_id)?,
        };
        self.id_member = at;
        Some(id_text(self.doc, members[at].value))
    }

    /// The element with id `local`, or at `place` in a positional array, with its position
    /// there; `index` is its position in this version. Looked for around where the elements
    /// before it were found, then around `index` itself: one within [`PEER_WINDOW`] of
    /// `index` is always found.
    fn find(&mut self, local: &str, place: Option<&Place<'_>>, index: usize) -> Option<(usize, u32)> {
        let shifted = index as isize + self.shift;
        let unshifted = (self.shift != 0).then_some(index as isize);
        for centre in std::iter::once(shifted).chain(unshifted) {
            let offsets = std::iter::once(0).chain((1..=PEER_WINDOW).flat_map(|d| [d, -d]));
            for d in offsets {
                let at = centre + d;
                let found = match place {
                    Some(place) => usize::try_from(at).ok().and_then(|at| self.place_at(at)) == Some(place),
                    None => self.id_at(at) == Some(local),
                };
                if found {
                    self.shift = at - index as isize;
                    return Some((at as usize, self.doc.slots_of(self.array)[at as usize].value));
                }
            }
        }
        None
    }
}

/// An element's peers in the other versions (each with its position there), kept only where
/// all three positions lie within [`PEER_WINDOW`] of each other. Each version looks for the
/// others' elements by itself; one that found its peers farther apart than that, where a
/// version between them did not, would read the element opaquely where that version reads it
/// in full, and the two readings would not compare.
fn peers_near_each_other(index: usize, found: [Option<(usize, u32)>; 2]) -> Peers {
    if let [Some((a, _)), Some((b, _))] = found {
        let window = PEER_WINDOW as usize;
        if a.abs_diff(index) > window || b.abs_diff(index) > window || a.abs_diff(b) > window {
            return [None, None];
        }
    }
    found.map(|f| f.map(|(_, node)| node))
}

/// The collection an object's id places it in (`levels[3].layers[`… without its last index).
fn collection_of(id: &ObjectId) -> Option<&str> {
    id.as_str().rsplit_once('[').map(|(c, _)| c)
}

/// Local id text → the objects keyed by it, each with the member its key is read from.
type IdsSeen<'d> = FxHashMap<String, Vec<(ObjectId, &'d str)>>;

struct Lowerer<'d, 'c> {
    doc: &'d Document<'d>,
    /// The other versions merged with this one; parts identical in all of them are opaque.
    others: &'c [&'d Document<'d>],
    opaque_ok: bool,
    side: Side,
    config: &'c JsonConfig,
    level: Level<'d>,
    problems: Vec<Problem>,
    /// Local id text → objects with that id, for resolving declared references.
    ids: Option<&'c IdsSeen<'d>>,
    /// Local id text → objects, collected only when references are declared.
    seen_ids: Option<IdsSeen<'d>>,
    /// Member names from the document root to the value being lowered (array positions left out).
    path: Vec<&'d str>,
    /// A Cocos file in the identity form ([`crate::cocos`]): each element's owner, which is its
    /// parent in the level; its references name elements.
    cocos_owners: Option<Vec<Option<usize>>>,
}

/// How the elements of an identity array are told apart.
enum Identity<'d, 'k> {
    /// By the value of the member `key`: each element's id node.
    Ids { key: &'d str, nodes: Vec<u32> },
    /// By where each element stands, read from `key` ([`position_of`]): several elements may
    /// stand at one place, told apart by their order there (LDtk's stacked tiles).
    Places { key: &'k str, places: Vec<Place<'d>> },
}

/// The identity of an array's elements, if every element is an object holding the key as a
/// string or number, or (a key configured for the array's path) as a position ([`position_of`]).
/// `None` for positions too where `plain_positions` says the array merges as a plain list
/// (asked before its elements are read).
fn identity_key<'d, 'k>(
    doc: &Document<'d>,
    array: u32,
    path: &[&str],
    config: &'k JsonConfig,
    plain_positions: impl FnOnce() -> bool,
) -> Option<Identity<'d, 'k>> {
    let items = doc.slots_of(array);
    // Only objects carry ids: arrays of numbers or of small arrays (tile data, `px` pairs) are
    // the most numerous and need no lookup.
    if items.first().is_none_or(|first| doc.nodes[first.value as usize].kind != NodeKind::Object) {
        return None;
    }
    // Keys of the collections matching the path first (an empty key: no identity), then the
    // generic ones.
    let path = if config.collections.is_empty() { String::new() } else { path.join(".") };
    let configured =
        config.collections.iter().filter(|c| levelmerge_core::policy::glob_match(&c.path, &path)).map(|c| (c.key.as_str(), true));
    let candidates: Vec<(&str, bool)> = configured.chain(config.id_keys.iter().map(|k| (k.as_str(), false))).collect();
    if candidates.first().is_some_and(|(key, _)| key.is_empty()) {
        return None;
    }
    let id_node = |element: u32, key: &str| {
        if doc.nodes[element as usize].kind != NodeKind::Object {
            return None;
        }
        let member = doc.slots_of(element).iter().find(|m| doc.text(m.name) == key)?;
        Some((doc.text(member.name), member.value))
    };
    let mut plain_positions = Some(plain_positions);
    candidates.into_iter().find_map(|(key, configured)| {
        if !(configured && position_of(doc, items[0].value, key).is_some()) {
            let (name, _) = id_node(items[0].value, key)?;
            let is_id = |n: &u32| matches!(doc.nodes[*n as usize].kind, NodeKind::String | NodeKind::Number);
            let nodes: Option<Vec<u32>> = items.iter().map(|s| id_node(s.value, key).map(|(_, n)| n).filter(is_id)).collect();
            return Some(Identity::Ids { key: name, nodes: nodes? });
        }
        if plain_positions.take().is_some_and(|plain| plain()) {
            return None;
        }
        let mut earlier = FxHashMap::default();
        let places: Option<Vec<Place<'d>>> = items.iter().map(|s| Some(place(position_of(doc, s.value, key)?, &mut earlier))).collect();
        Some(Identity::Places { key, places: places? })
    })
}

/// Where an element stands, read from `key`: a member holding an array of numbers
/// (`"px": [256, 192]`), or members each holding a number, named with commas between
/// (`x,y`: a Tiled chunk's). Read from the text: a position in lines all versions hold alike
/// is left unread.
fn position_of<'d>(doc: &Document<'d>, element: u32, key: &str) -> Option<Cow<'d, str>> {
    if doc.nodes[element as usize].kind != NodeKind::Object {
        return None;
    }
    let member = |name: &str| doc.member(element, name.trim());
    if !key.contains(',') {
        let node = member(key)?;
        return (doc.nodes[node as usize].kind == NodeKind::Array).then(|| position_numbers(doc.node_text(node))).flatten();
    }
    let mut numbers = String::new();
    for (i, name) in key.split(',').enumerate() {
        let node = member(name)?;
        if doc.nodes[node as usize].kind != NodeKind::Number {
            return None;
        }
        if i > 0 {
            numbers.push(',');
        }
        numbers.push_str(doc.node_text(node));
    }
    Some(Cow::Owned(numbers))
}

/// The numbers of a position written `[256, 192]`, without brackets or spaces (`256,192`).
fn position_numbers(text: &str) -> Option<Cow<'_, str>> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    let number_like = |c: char| c.is_ascii_digit() || matches!(c, ',' | '-' | '+' | '.' | 'e' | 'E');
    let numbers = if inner.bytes().any(|b| b.is_ascii_whitespace()) {
        Cow::Owned(inner.chars().filter(|c| !c.is_ascii_whitespace()).collect())
    } else {
        Cow::Borrowed(inner)
    };
    (!numbers.is_empty() && numbers.chars().all(number_like)).then_some(numbers)
}

/// Where an element stands: its position's numbers, and how many elements before it in its
/// array stand there.
type Place<'d> = (Cow<'d, str>, usize);

/// The place of an element whose position's numbers are `numbers` (`earlier`: the elements
/// before it at each position).
fn place<'d>(numbers: Cow<'d, str>, earlier: &mut FxHashMap<Cow<'d, str>, usize>) -> Place<'d> {
    let count = earlier.entry(numbers.clone()).or_insert(0);
    *count += 1;
    (numbers, *count - 1)
}

/// The id of an element at a place: the position's numbers (`256,192`), then the element's
/// order at that position (`256,192#1`) when it is not the first.
fn place_id((numbers, nth): &Place<'_>) -> String {
    if *nth == 0 {
        numbers.to_string()
    } else {
        format!("{numbers}#{nth}")
    }
}

/// What an element says it is (`"type": "door"`), if it says so.
fn kind_of<'d>(doc: &Document<'d>, element: u32) -> Option<&'d str> {
    const KIND_KEYS: [&str; 4] = ["__type__", "type", "_type", "__identifier"];
    doc.slots_of(element).iter().find_map(|m| {
        let v = m.value;
        let is_kind = KIND_KEYS.contains(&doc.text(m.name)) && doc.nodes[v as usize].kind == NodeKind::String;
        is_kind.then(|| id_text(doc, v)).filter(|k| !k.is_empty())
    })
}

/// The text of an id value without quotes.
fn id_text<'d>(doc: &Document<'d>, node: u32) -> &'d str {
    let t = doc.node_text(node);
    t.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(t)
}

impl<'d> Lowerer<'d, '_> {
    fn identical_everywhere(&self, raw: &str, peers: Peers) -> bool {
        self.opaque_ok && peers.iter().enumerate().all(|(i, p)| p.is_some_and(|p| self.others[i].node_text(p) == raw))
    }

    /// Whether another version left the same bytes here unread. Which lines of the three
    /// versions align is not always where the same object lies (short lines repeat): a
    /// container read here must then be opaque too, or equal values would compare unequal.
    fn opaque_elsewhere(&self, raw: &str, peers: Peers) -> bool {
        self.opaque_ok
            && peers
                .iter()
                .enumerate()
                .any(|(i, p)| p.is_some_and(|p| self.others[i].nodes[p as usize].opaque && self.others[i].node_text(p) == raw))
    }

    /// Whether a positional array is merged as a plain list: where at most one side changed
    /// it, the merge takes that side's list and needs no identity for its elements (tile
    /// layers hold thousands). Decided alike in every version, from the three texts.
    fn plain_positions(&self, raw: &str, peers: Peers) -> bool {
        if !self.opaque_ok {
            return false;
        }
        let [Some(first), Some(second)] = [0, 1].map(|i| peers[i].map(|p| self.others[i].node_text(p))) else {
            return false;
        };
        first == raw || second == raw || first == second
    }

    /// The member named `name` (at position `index` here) in each peer object.
    fn member_peers(&self, peers: Peers, index: usize, name: &str) -> Peers {
        if !self.opaque_ok {
            return [None, None];
        }
        [0, 1].map(|i| {
            let other = self.others[i];
            let p = peers[i]?;
            if other.nodes[p as usize].kind != NodeKind::Object {
                return None;
            }
            let slots = other.slots_of(p);
            let same_place = slots.get(index).filter(|s| other.text(s.name) == name);
            same_place.or_else(|| slots.iter().find(|s| other.text(s.name) == name)).map(|s| s.value)
        })
    }

    /// The peer arrays of an identity array.
    fn peer_arrays<'k>(&self, peers: Peers, identity: &Identity<'d, 'k>) -> [Option<PeerArray<'d, 'k>>; 2]
    where
        'd: 'k,
    {
        let key = match identity {
            Identity::Ids { key, .. } => key,
            Identity::Places { key, .. } => key,
        };
        [0, 1].map(|i| {
            let other = self.others.get(i)?;
            let p = peers[i]?;
            (self.opaque_ok && other.nodes[p as usize].kind == NodeKind::Array).then_some(PeerArray {
                doc: other,
                array: p,
                key,
                shift: 0,
                id_member: 0,
                places: None,
            })
        })
    }

    fn origin(&self, node: u32) -> Origin {
        Origin { side: self.side, node }
    }

    fn line(&self, node: u32) -> u32 {
        self.doc.line_of(self.doc.nodes[node as usize].start)
    }

    /// A declared reference: resolved to the object with that id, preferring siblings.
    fn reference(&mut self, key: &str, node: u32, owner: &ObjectId) -> Option<Reference> {
        // A profile's reference whose id no object read has names nothing: it lies in a part
        // every version holds alike, left unread.
        let (role, only_read) = if self.config.parent_key.as_deref() == Some(key) {
            (RefRole::Parent, false)
        } else if self.config.reference_keys.iter().any(|k| k == key) {
            (RefRole::Other, false)
        } else if self.config.profile_reference_keys.iter().any(|k| k == key) {
            (RefRole::Other, true)
        } else {
            return None;
        };
        let n = &self.doc.nodes[node as usize];
        if !matches!(n.kind, NodeKind::String | NodeKind::Number) {
            return None;
        }
        let text = id_text(self.doc, node);
        if text.is_empty() || text == "-1" {
            return None; // the usual ways of saying "none"
        }
        let target = match self.resolve(key, text, owner) {
            Some(target) => target,
            None if only_read || text == "0" => return None,
            None => ObjectId::new(format!("{key}={text}")),
        };
        match role {
            RefRole::Parent => self.level.parent_refs = true,
            RefRole::Other => self.level.references = true,
        }
        Some(Reference { target, role })
    }

    /// The named references an object holds: those whose holder it is (a Tiled property
    /// `{"type": "object", "value": 5}`, an element of an array `instances`).
    fn named_references(&self, object: u32) -> impl Iterator<Item = crate::profile::NamedReference> + '_ {
        let doc = self.doc;
        let in_array = self.path.last().copied();
        let member = move |name: &str| doc.slots_of(object).iter().find(|s| doc.text(s.name) == name).map(|s| s.value);
        self.config.profile_named_references.iter().copied().filter(move |r| match r.holder {
            crate::profile::Holder::Typed { member: m, value } => {
                member(m).is_some_and(|t| doc.nodes[t as usize].kind == NodeKind::String && id_text(doc, t) == value)
            }
            crate::profile::Holder::InArray(array) => in_array == Some(array),
            crate::profile::Holder::Anywhere => true,
        })
    }

    /// The object of an array named `targets` whose identity the value at `node` is, among
    /// the objects read (one in a part every version holds alike names nothing a merge
    /// changes); of several, the one nearest `owner` (a layout's own object before a global one).
    fn named_object(&self, node: u32, targets: &str, owner: &ObjectId) -> Option<Reference> {
        if !matches!(self.doc.nodes[node as usize].kind, NodeKind::Number | NodeKind::String) {
            return None;
        }
        let candidates = self.ids?.get(id_text(self.doc, node))?;
        let in_targets = |id: &ObjectId| collection_of(id).is_some_and(|c| c.rsplit('/').next() == Some(targets));
        let shared = |id: &ObjectId| id.as_str().bytes().zip(owner.as_str().bytes()).take_while(|(a, b)| a == b).count();
        let target = candidates.iter().map(|(id, _)| id).filter(|id| in_targets(id)).max_by_key(|id| shared(id))?;
        Some(Reference { target: target.clone(), role: RefRole::Other })
    }

    /// The object a `key` member holding `text` names, preferring one in the owner's collection.
    /// An object keyed by this very member (LDtk's field instances, keyed by the `defUid` of
    /// their definition) is not what the member names.
    fn resolve(&self, key: &str, text: &str, owner: &ObjectId) -> Option<ObjectId> {
        let candidates = self.ids?.get(text)?;
        let named = || candidates.iter().filter(|(_, k)| *k != key).map(|(id, _)| id);
        named().find(|id| collection_of(id) == collection_of(owner)).or_else(|| named().next()).cloned()
    }

    /// A reference of a Cocos file's identity form.
    fn cocos_reference(&mut self, node: u32) -> Reference {
        self.level.references = true;
        let target = crate::cocos::named_identity(id_text(self.doc, node));
        Reference { target: ObjectId::new(format!("{ROOT_ID}[{target}]")), role: RefRole::Other }
    }

    /// The parent of the element at `index` of the array being lowered: its owner in a Cocos
    /// file's identity form, else the object holding the array.
    fn element_parent(&self, owner: &ObjectId, index: usize) -> ObjectId {
        let Some(owners) = self.cocos_owners.as_ref().filter(|_| self.path.is_empty() && owner.as_str() == ROOT_ID) else {
            return owner.clone();
        };
        let element_id = |i: usize| {
            let element = self.doc.slots_of(self.doc.root)[i].value;
            crate::cocos::element_identity(self.doc, element).map(|id| ObjectId::new(format!("{ROOT_ID}[{id}]")))
        };
        owners.get(index).copied().flatten().and_then(element_id).unwrap_or_else(|| owner.clone())
    }

    /// Lower a value that belongs to object `owner`. `self.path[rel..]` is the value's member
    /// path inside its owner.
    ///
    /// Inside a list without identity (`in_list`), arrays stay plain lists: an element there
    /// has no stable place to hang an object id on.
    fn value(&mut self, node: u32, peers: Peers, owner: &ObjectId, key: Option<&str>, rel: usize, in_list: bool) -> Value<'d> {
        let doc = self.doc;
        let n = &doc.nodes[node as usize];
        let raw = doc.node_text(node);
        let container = matches!(n.kind, NodeKind::Object | NodeKind::Array);
        if n.opaque || (container && (self.identical_everywhere(raw, peers) || self.opaque_elsewhere(raw, peers))) {
            // The same bytes in every version: nothing inside can merge differently.
            return Value::scalar(raw, self.origin(node), None);
        }
        match n.kind {
            NodeKind::String | NodeKind::Number | NodeKind::Literal => {
                let reference = match &self.cocos_owners {
                    Some(_) if key == Some(COCOS_REFERENCE) && n.kind == NodeKind::String => Some(self.cocos_reference(node)),
                    _ => key.and_then(|k| self.reference(k, node, owner)),
                };
                Value::scalar(raw, self.origin(node), reference)
            }
            NodeKind::Object => {
                let slots = doc.slots_of(node);
                let named: Vec<crate::profile::NamedReference> = self.named_references(node).collect();
                let mut entries = Vec::with_capacity(slots.len());
                for (i, slot) in slots.iter().enumerate() {
                    let name = doc.text(slot.name);
                    if let Some(first) = slots[..i].iter().find(|s| doc.text(s.name) == name) {
                        self.problems.push(Problem::DuplicateKey {
                            key: name.to_owned(),
                            line: doc.line_of(slot.key().0) as usize,
                            first_line: doc.line_of(first.key().0) as usize,
                        });
                        continue;
                    }
                    let member_peers = self.member_peers(peers, i, name);
                    self.path.push(name);
                    let mut v = self.value(slot.value, member_peers, owner, Some(name), rel, in_list);
                    self.path.pop();
                    if let Some(targets) = named.iter().find(|r| r.member == name).map(|r| r.targets) {
                        if let Some(reference) = self.named_object(slot.value, targets, owner) {
                            self.level.references = true;
                            v = Value::scalar(v.raw, v.origin, Some(reference));
                        }
                    }
                    entries.push((name, v));
                }
                Value::map(raw, self.origin(node), entries)
            }
            NodeKind::Array => {
                let identity =
                    if in_list { None } else { identity_key(doc, node, &self.path, self.config, || self.plain_positions(raw, peers)) };
                match identity {
                    Some(identity) => self.children(node, &identity, peers, owner, rel),
                    None => {
                        let items = doc.slots_of(node).iter().map(|s| self.value(s.value, [None, None], owner, key, rel, true)).collect();
                        Value::list(raw, self.origin(node), items)
                    }
                }
            }
        }
    }

    fn children(&mut self, array: u32, identity: &Identity<'d, '_>, peers: Peers, owner: &ObjectId, rel: usize) -> Value<'d> {
        let doc = self.doc;
        let mut peer_arrays = self.peer_arrays(peers, identity);
        let mut ids = Vec::new();
        let mut hashes = Vec::new();
        // An element of an array whose ids are unique in the file is named by its id alone,
        // wherever it lies: moved to another such array, it is the same object.
        let file_wide = !self.config.file_wide_ids.is_empty() && {
            let path = self.path.join(".");
            self.config.file_wide_ids.iter().any(|holds| holds(&path))
        };
        self.level.placed_by_lists |= file_wide;
        let rel_path = if file_wide { self.path.last().copied().unwrap_or_default().to_owned() } else { self.path[rel..].join(".") };
        let prefix = if owner.as_str() == ROOT_ID || file_wide { "" } else { owner.as_str() };
        let kind = self.path.last().copied().unwrap_or("item").to_owned();
        let elements = doc.slots_of(array);
        self.level.objects.reserve(elements.len());
        for (index, slot) in elements.iter().enumerate() {
            let element = slot.value;
            let (local, element_place) = match identity {
                Identity::Ids { nodes, .. } => (Cow::Borrowed(id_text(doc, nodes[index])), None),
                Identity::Places { places, .. } => (Cow::Owned(place_id(&places[index])), Some(&places[index])),
            };
            let local = local.as_ref();
            let line = self.line(element);
            let mut id_text = String::with_capacity(prefix.len() + rel_path.len() + local.len() + 3);
            for part in [prefix, "/", &rel_path, "[", local, "]"] {
                id_text.push_str(part);
            }
            let id = ObjectId::new(id_text);
            // Ids are qualified by their array (or unique in the file), so a clash here is a
            // duplicate.
            if let Some(first) = self.level.objects.get(&id) {
                let id = match identity {
                    Identity::Ids { key, nodes } => format!("\"{key}\": {}", doc.node_text(nodes[index])),
                    Identity::Places { key, .. } => format!("{key} {local}"),
                };
                self.problems.push(Problem::DuplicateId { id, line: line as usize, first_line: first.line as usize });
                continue;
            }
            if let (Some(seen), Identity::Ids { key, .. }) = (self.seen_ids.as_mut(), identity) {
                seen.entry(local.to_owned()).or_default().push((id.clone(), key));
            }
            let depth = self.path.len();
            let found = [0, 1].map(|i| peer_arrays[i].as_mut().and_then(|p| p.find(local, element_place, index)));
            let element_peers = peers_near_each_other(index, found);
            let props = self.value(element, element_peers, &id, None, depth, false);
            let kind = kind_of(doc, element).unwrap_or(&kind).to_owned();
            hashes.push(props.hash);
            ids.push(id.clone());
            let parent = self.element_parent(owner, index);
            self.level.objects.insert(id.clone(), Object { id, kind, parent: Some(parent), props, line });
        }
        Value::children(doc.node_text(array), self.origin(array), ids, &hashes)
    }
}

/// The member of a Cocos reference.
const COCOS_REFERENCE: &str = "__id__";

/// Lower a document, keeping the first of elements that share an id (and of members that
/// share a key) and refusing the others. `cocos_owners`: the document is a Cocos file in the
/// identity form, whose elements have these owners ([`crate::cocos::owners`]).
pub fn lower<'d>(
    doc: &'d Document<'d>,
    side: Side,
    config: &JsonConfig,
    others: &[&'d Document<'d>],
    cocos_owners: Option<Vec<Option<usize>>>,
) -> Lowered<'d> {
    let declares_refs = config.parent_key.is_some() || !config.reference_keys.is_empty();
    // Opaque parts would hide configured references, which the checks need; a profile's
    // references only matter where a side changed something, which is read.
    let opaque_ok = others.len() == 2 && !declares_refs;
    let follows_refs = declares_refs || !config.profile_reference_keys.is_empty() || !config.profile_named_references.is_empty();
    let run = |ids: Option<&IdsSeen<'d>>| {
        let seen_ids = (follows_refs && ids.is_none()).then(FxHashMap::default);
        let mut l = Lowerer {
            doc,
            others,
            opaque_ok,
            side,
            config,
            level: Level::new(),
            problems: Vec::new(),
            ids,
            seen_ids,
            path: Vec::new(),
            cocos_owners: cocos_owners.clone(),
        };
        let root_id = ObjectId::new(ROOT_ID);
        let root_peers = [0, 1].map(|i| others.get(i).map(|d| d.root));
        let props = l.value(doc.root, root_peers, &root_id, None, 0, false);
        let line = l.line(doc.root);
        l.level.objects.insert(root_id.clone(), Object { id: root_id.clone(), kind: "document".into(), parent: None, props, line });
        l.level.root = Some(root_id);
        (l.level, l.problems, l.seen_ids)
    };
    let (level, problems, seen) = run(None);
    let (level, problems) = match seen {
        Some(seen) => {
            // The first reading only gathered the ids references name: it goes before the
            // second is built (a large file's level would be held twice).
            drop(level);
            let (l, p, _) = run(Some(&seen));
            (l, p)
        }
        None => (level, problems),
    };
    let mut unique = FxHashSet::default();
    Lowered { level, refused: problems.into_iter().filter(|p| unique.insert(p.to_string())).collect(), refused_objects: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_is_its_numbers_however_spaced() {
        assert_eq!(position_numbers("[256,192]").as_deref(), Some("256,192"));
        assert_eq!(position_numbers("[ -8, 1.5e2 ]").as_deref(), Some("-8,1.5e2"));
        assert_eq!(position_numbers("[\"a\", 1]"), None);
        assert_eq!(position_numbers("[]"), None);
        assert_eq!(position_numbers("[[1,2]]"), None);
    }

    #[test]
    fn elements_at_one_position_are_numbered_in_order() {
        let doc = crate::parse::parse(b"[[1,2],[3,4],[1, 2],[1,2]]", crate::Dialect::Json).unwrap();
        let mut earlier = FxHashMap::default();
        let mut place_of = |s: &crate::parse::Slot| place(position_numbers(doc.node_text(s.value)).unwrap(), &mut earlier);
        let ids: Vec<String> = doc.slots_of(doc.root).iter().map(|s| place_id(&place_of(s))).collect();
        assert_eq!(ids, ["1,2", "3,4", "1,2#1", "1,2#2"]);
    }
}
