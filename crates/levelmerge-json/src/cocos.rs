//! Cocos Creator scenes and prefabs (2.x `.fire`/`.prefab`, 3.x `.scene`/`.prefab`): one flat
//! array whose elements refer to each other by position, `{"__id__": 7}`. An element inserted
//! on one side renumbers every later reference, so positions cannot be merged.
//!
//! Before the merge, each version is rewritten into an identity form: every element opens with
//! a member naming its identity (`"__lmid":"…",`) and every reference names its target's
//! identity instead of its position. The generic merge then matches elements, and the lists
//! of references in them (`_children`, `_components`), by identity. The merged text is turned
//! back into positions ([`to_positions`]); the identity form never reaches a file.
//!
//! An element's identity: a node's own `_id` when it has a unique one; else the identity of the
//! element that first refers to it (hierarchy and component lists before other references),
//! the member holding the reference, the element's type and name, and an ordinal among
//! elements that share all of these. Identities are built from the source text of those
//! strings, so they are valid JSON string contents as they are.

use levelmerge_core::codec::on_each_side;
use levelmerge_core::model::ObjectId;
use levelmerge_core::text::splice;
use levelmerge_core::{Problem, Sides};

use crate::cocos_identity::{aligned, name_part, ContentKeys, Stems};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::parse::{parse, Dialect, Document, NodeKind};

/// The member the identity form adds at the start of every element.
pub const IDENTITY_MEMBER: &str = "__lmid";

/// The reference member.
const REF: &str = "__id__";

/// Members through which an element owns others: the hierarchy, components, prefab links.
const OWNING: [&str; 6] = ["scene", "data", "_children", "_components", "_prefab", "__prefab"];

/// The text of a string node without its quotes.
pub(crate) fn inner<'s>(doc: &Document<'s>, node: u32) -> &'s str {
    let t = doc.node_text(node);
    &t[1..t.len() - 1]
}

/// The value of a reference object `{"__id__": …}`, if `node` is one.
pub(crate) fn ref_value(doc: &Document<'_>, node: u32) -> Option<u32> {
    if doc.nodes[node as usize].kind != NodeKind::Object {
        return None;
    }
    match doc.slots_of(node) {
        [only] if doc.text(only.name) == REF => Some(only.value),
        _ => None,
    }
}

/// Every reference value inside `node`, in document order.
pub(crate) fn references_in(doc: &Document<'_>, node: u32, out: &mut Vec<u32>) {
    if let Some(v) = ref_value(doc, node) {
        out.push(v);
        return;
    }
    if matches!(doc.nodes[node as usize].kind, NodeKind::Object | NodeKind::Array) {
        for slot in doc.slots_of(node) {
            references_in(doc, slot.value, out);
        }
    }
}

/// The string member `name` of an element, as written (escapes kept).
pub(crate) fn string_member<'s>(doc: &Document<'s>, element: u32, name: &str) -> Option<&'s str> {
    let slot = doc.slots_of(element).iter().find(|s| doc.text(s.name) == name)?;
    (doc.nodes[slot.value as usize].kind == NodeKind::String).then(|| inner(doc, slot.value))
}

/// A member of an element that refers to others, and the positions it refers to.
struct Referrer<'s> {
    member: &'s str,
    owning: bool,
    positions: Vec<usize>,
}

/// The elements of a Cocos array and, per element, its members that refer to others.
struct Graph<'s> {
    elements: Vec<u32>,
    refs: Vec<Vec<Referrer<'s>>>,
}

impl<'s> Graph<'s> {
    /// `position` reads a reference value; `None` when one is not a position inside the array
    /// (then the file is left to the generic merge).
    fn of(doc: &Document<'s>, position: impl Fn(u32) -> Option<usize>) -> Option<Graph<'s>> {
        if doc.nodes[doc.root as usize].kind != NodeKind::Array {
            return None;
        }
        let elements: Vec<u32> = doc.slots_of(doc.root).iter().map(|s| s.value).collect();
        // An element that is itself a reference (`{"__id__": 4}`) would read, in the identity
        // form, as an element naming its identity and a member: it could not be turned back.
        if elements.is_empty() || elements.iter().any(|&e| doc.nodes[e as usize].kind != NodeKind::Object || ref_value(doc, e).is_some()) {
            return None;
        }
        let mut refs = Vec::with_capacity(elements.len());
        let mut found = Vec::new();
        for &e in &elements {
            let mut referrers = Vec::new();
            for slot in doc.slots_of(e) {
                found.clear();
                references_in(doc, slot.value, &mut found);
                if found.is_empty() {
                    continue;
                }
                let positions: Option<Vec<usize>> = found.iter().map(|&r| position(r).filter(|&p| p < elements.len())).collect();
                let member = doc.text(slot.name);
                referrers.push(Referrer { member, owning: OWNING.contains(&member), positions: positions? });
            }
            refs.push(referrers);
        }
        Some(Graph { elements, refs })
    }

    /// Every element reached from the asset (element 0), breadth first: through owning members
    /// first, then through any reference. `found(owner, member, elements)` is called with the
    /// elements one member of an owner reaches first, in its order, before any of them is
    /// followed.
    fn spread(&self, mut found: impl FnMut(usize, &str, &[usize])) {
        let mut order = vec![0];
        let mut queued = vec![false; self.elements.len()];
        queued[0] = true;
        let mut reached = Vec::new();
        for owning_only in [true, false] {
            let mut at = 0;
            while at < order.len() {
                let owner = order[at];
                at += 1;
                for referrer in self.refs[owner].iter().filter(|r| r.owning || !owning_only) {
                    reached.clear();
                    for &t in &referrer.positions {
                        if !queued[t] {
                            queued[t] = true;
                            order.push(t);
                            reached.push(t);
                        }
                    }
                    if !reached.is_empty() {
                        found(owner, referrer.member, &reached);
                    }
                }
            }
        }
    }
}

/// A reference value of the file's own form: a position written as Cocos writes it.
fn written_position(doc: &Document<'_>, r: u32) -> Option<usize> {
    let text = doc.node_text(r);
    let canonical = doc.nodes[r as usize].kind == NodeKind::Number
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    text.parse::<usize>().ok().filter(|_| canonical)
}

/// The identity of every element of a Cocos array, or `None` when the document is not one
/// this module can rewrite safely.
pub fn identities(doc: &Document<'_>) -> Option<Vec<String>> {
    assign_identities(doc, None, None, &FxHashSet::default()).map(|(ids, _)| ids)
}

/// The identities of the three versions' elements (base, ours, theirs): a side's elements
/// that share a stem are matched to the base's by content ([`crate::cocos_identity`]).
fn identities_among(docs: Sides<&Document<'_>>) -> Sides<Option<Vec<String>>> {
    let lasting = lasting_file_ids(docs);
    let mut stems = Stems::default();
    let Some((base, mut base_keys)) = assign_identities(docs.base, None, Some(&mut stems), &lasting) else {
        return Sides::new(None, None, None);
    };
    let mut side = |doc: &Document<'_>| assign_identities(doc, Some((&stems, &mut base_keys)), None, &lasting).map(|(ids, _)| ids);
    let ours = side(docs.ours);
    let theirs = side(docs.theirs);
    Sides::new(Some(base), ours, theirs)
}

/// The prefab `fileId`s ([`prefab_file_id`]) that can name their elements in a merge: each
/// held once by base and kept by a side. A prefab both sides re-created (every `fileId` new)
/// is then matched by its hierarchy, as without them.
fn lasting_file_ids<'s>(docs: Sides<&Document<'s>>) -> FxHashSet<&'s str> {
    let held = |doc: &Document<'s>| -> FxHashMap<&'s str, usize> {
        let mut count = FxHashMap::default();
        if doc.nodes[doc.root as usize].kind == NodeKind::Array {
            let elements: Vec<u32> = doc.slots_of(doc.root).iter().map(|s| s.value).collect();
            for &e in &elements {
                if let Some(id) = prefab_file_id(doc, &elements, e) {
                    *count.entry(id).or_default() += 1;
                }
            }
        }
        count
    };
    let (base, ours, theirs) = (held(docs.base), held(docs.ours), held(docs.theirs));
    base.into_iter().filter(|&(id, n)| n == 1 && (ours.contains_key(id) || theirs.contains_key(id))).map(|(id, _)| id).collect()
}

/// Identities as [`identities`] gives them, and the content keys of the document's elements;
/// with `base`, the elements of a stem the base holds too are matched to the base's; with
/// `record`, each element named by its stem is recorded there. Elements whose prefab `fileId`
/// is among `file_ids` (and unique here) are named by it.
fn assign_identities<'d, 's>(
    doc: &'d Document<'s>,
    mut base: Option<(&Stems, &mut ContentKeys<'_, '_>)>,
    mut record: Option<&mut Stems>,
    file_ids: &FxHashSet<&str>,
) -> Option<(Vec<String>, ContentKeys<'d, 's>)> {
    let graph = Graph::of(doc, |r| written_position(doc, r))?;
    let elements = &graph.elements;
    let mut ids: Vec<Option<String>> = vec![None; elements.len()];
    ids[0] = Some("root".to_owned());

    // Nodes named by a unique `_id` keep it whoever refers to them (renames and moves too).
    // Not components: later Cocos Creator 2.x editors write an `_id` on them that files saved
    // by earlier ones lack (the corpus holds both), and a re-save would make every one new.
    let mut seen: FxHashMap<&str, usize> = FxHashMap::default();
    for &e in elements {
        if let Some(id) = node_id(doc, e) {
            *seen.entry(id).or_default() += 1;
        }
    }
    for (i, &e) in elements.iter().enumerate().skip(1) {
        if let Some(id) = node_id(doc, e).filter(|id| seen[id] == 1) {
            ids[i] = Some(format!("#{id}"));
        }
    }
    // In a prefab, where nodes have no `_id`, a node's prefab info and a component's carry a
    // `fileId` the editor keeps: theirs too (a moved node is still itself).
    if !file_ids.is_empty() {
        let named: Vec<Option<&str>> = elements
            .iter()
            .zip(&ids)
            .map(|(&e, id)| id.is_none().then(|| prefab_file_id(doc, elements, e)).flatten().filter(|id| file_ids.contains(id)))
            .collect();
        let mut count: FxHashMap<&str, usize> = FxHashMap::default();
        for id in named.iter().flatten() {
            *count.entry(id).or_default() += 1;
        }
        for (i, id) in named.iter().enumerate().skip(1) {
            if let Some(id) = id.filter(|id| count[id] == 1 && ids[i].is_none()) {
                ids[i] = Some(format!("@{id}"));
            }
        }
    }
    let mut keys = ContentKeys::new(doc, elements.clone(), ids.clone());

    // The rest from their owners, a stem at a time.
    let mut ordinals: FxHashMap<String, usize> = FxHashMap::default();
    graph.spread(|owner, member, reached| {
        let owner_id = ids[owner].clone().expect("an owner is reached before what it owns");
        let mut stems: Vec<(String, Vec<usize>)> = Vec::new();
        let mut stem_at: FxHashMap<String, usize> = FxHashMap::default();
        for &t in reached.iter().filter(|&&t| ids[t].is_none()) {
            let kind = string_member(doc, elements[t], "__type__").unwrap_or("");
            let stem = [&owner_id, "/", member, "/", kind, "/", &name_part(doc, elements, elements[t])].concat();
            let at = *stem_at.entry(stem.clone()).or_insert_with(|| {
                stems.push((stem, Vec::new()));
                stems.len() - 1
            });
            stems[at].1.push(t);
        }
        for (stem, members) in stems {
            let matched = base.as_mut().and_then(|(stems, base_keys)| {
                let in_base = stems.get(&stem).filter(|b| b.len() > 1 || members.len() > 1)?;
                let in_base: Vec<(String, u64)> = in_base.iter().map(|(id, e)| (id.clone(), base_keys.key(*e))).collect();
                Some(aligned(&stem, &keys.keys(&members), &in_base))
            });
            let given: Vec<String> = matched.unwrap_or_else(|| {
                let n = ordinals.entry(stem.clone()).or_default();
                let given = (*n..*n + members.len()).map(|i| if i == 0 { stem.clone() } else { format!("{stem}#{i}") }).collect();
                *n += members.len();
                given
            });
            for (&t, id) in members.iter().zip(given) {
                if let Some(record) = record.as_deref_mut() {
                    record.record(&stem, &id, t);
                }
                ids[t] = Some(id);
            }
        }
    });
    // Elements nothing refers to.
    let mut unreferenced = 0;
    for (i, id) in ids.iter_mut().enumerate() {
        if id.is_none() {
            let kind = string_member(doc, elements[i], "__type__").unwrap_or("");
            *id = Some(format!("unreferenced/{kind}#{unreferenced}"));
            unreferenced += 1;
        }
    }
    let ids: Vec<String> = ids.into_iter().map(|id| id.expect("every element has an identity")).collect();
    let unique: FxHashSet<&str> = ids.iter().map(String::as_str).collect();
    (unique.len() == ids.len()).then_some((ids, keys))
}

/// In a document of the identity form: the owner of each element (the element that first
/// refers to it, as [`identities`] counts), `None` for the asset and elements nothing refers
/// to; `None` when the document is not in the identity form.
pub fn owners(doc: &Document<'_>) -> Option<Vec<Option<usize>>> {
    let mut position: FxHashMap<&str, usize> = FxHashMap::default();
    for (i, slot) in doc.slots_of(doc.root).iter().enumerate() {
        position.insert(element_identity(doc, slot.value)?, i);
    }
    let graph = Graph::of(doc, |r| (doc.nodes[r as usize].kind == NodeKind::String).then(|| named_position(&position, inner(doc, r)))?)?;
    let mut owners = vec![None; graph.elements.len()];
    graph.spread(|owner, _, reached| reached.iter().for_each(|&t| owners[t] = Some(owner)));
    Some(owners)
}

/// The identity an element of the identity form opens with.
pub fn element_identity<'s>(doc: &Document<'s>, element: u32) -> Option<&'s str> {
    if doc.nodes[element as usize].kind != NodeKind::Object {
        return None;
    }
    let first = doc.slots_of(element).first().filter(|m| doc.text(m.name) == IDENTITY_MEMBER)?;
    (doc.nodes[first.value as usize].kind == NodeKind::String).then(|| inner(doc, first.value))
}

/// The identity a reference of the identity form names (without the count of a repeat).
pub fn named_identity(name: &str) -> &str {
    name.rsplit_once(REPEAT).map_or(name, |(id, _)| id)
}

/// Whether `text` can only be in the identity form (never written by Cocos itself).
fn mentions_identity_member(text: &[u8]) -> bool {
    memchr::memmem::find(text, IDENTITY_MEMBER.as_bytes()).is_some()
}

/// A Cocos file in the identity form, or `None` when it is not one that can be rewritten.
pub fn to_identities(text: &[u8]) -> Option<Vec<u8>> {
    let doc = readable(text)?;
    written_with(&doc, &identities(&doc)?)
}

/// The three versions of a Cocos file in the identity form, the sides' elements named as the
/// base's they match; `None` where a version cannot be rewritten.
/// Each version is read and written on its own thread as the merge reads them (`parallel`).
pub fn to_identities_among(texts: Sides<&[u8]>, parallel: bool) -> Sides<Option<Vec<u8>>> {
    let docs = on_each_side(parallel, texts, |_, text| readable(text));
    let (Some(base), Some(ours), Some(theirs)) = (&docs.base, &docs.ours, &docs.theirs) else {
        return Sides::new(None, None, None);
    };
    let ids = identities_among(Sides::new(base, ours, theirs));
    let written = Sides::new((base, ids.base), (ours, ids.ours), (theirs, ids.theirs));
    on_each_side(parallel, written, |_, (doc, ids)| ids.and_then(|ids| written_with(doc, &ids)))
}

/// A text parsed as a Cocos file that can be turned into the identity form.
fn readable(text: &[u8]) -> Option<Document<'_>> {
    if mentions_identity_member(text) {
        return None;
    }
    parse(text, Dialect::Json).ok()
}

/// A document written in the identity form with the given identities.
fn written_with(doc: &Document<'_>, ids: &[String]) -> Option<Vec<u8>> {
    let mut edits = Vec::new();
    for (i, slot) in doc.slots_of(doc.root).iter().enumerate() {
        let element = &doc.nodes[slot.value as usize];
        let open = element.start as usize + 1;
        let comma = if element.slot_count == 0 { "" } else { "," };
        edits.push((open, open, ["\"", IDENTITY_MEMBER, "\":\"", &ids[i], "\"", comma].concat()));
        name_targets(doc, slot.value, ids, &mut edits)?;
    }
    Some(splice(doc.src, edits).into_bytes())
}

/// A value of the identity form (an element, or a part of one) without the members naming
/// elements' identities, as the file writes it; references still name identities.
pub fn without_identity_members(value: String) -> String {
    if !mentions_identity_member(value.as_bytes()) {
        return value;
    }
    let opening = ["\"", IDENTITY_MEMBER, "\":\""].concat();
    let mut out = String::with_capacity(value.len());
    let mut rest = value.as_str();
    while let Some(at) = rest.find(&opening) {
        out.push_str(&rest[..at]);
        let close = crate::parse::closing_quote(rest.as_bytes(), at + opening.len() - 1, rest.len());
        // An identity without its closing quote is a value cut short: the rest is kept.
        let Some(tail) = rest.get(close + 1..) else {
            rest = &rest[at..];
            break;
        };
        rest = tail.strip_prefix(',').unwrap_or(tail);
    }
    out.push_str(rest);
    out
}

/// A text in the identity form cut into parts ([`levelmerge_core::Codec::parts`]): the
/// opening bracket's lines, then each element from the line it opens on, which names its
/// identity, to the next element's. `None` for any other text: one with a reference still
/// written as a position, or an element that does not open a line of its own.
pub fn parts(text: &[u8]) -> Option<Vec<&[u8]>> {
    let opening = format!("{{\"{IDENTITY_MEMBER}\":\"");
    if text.trim_ascii_start().first() != Some(&b'[') || has_position_reference(text) {
        return None;
    }
    let mut parts = Vec::new();
    let mut start = 0;
    for at in memchr::memmem::find_iter(text, opening.as_bytes()) {
        let line = memchr::memrchr(b'\n', &text[..at]).map_or(0, |nl| nl + 1);
        if line == 0 || !text[line..at].iter().all(|&b| b == b' ' || b == b'\t') {
            return None;
        }
        parts.push(&text[start..line]);
        start = line;
    }
    parts.push(&text[start..]);
    (parts.len() > 1).then_some(parts)
}

/// Where an element's part ([`parts`]) ends its object: after its closing brace, before the
/// comma or the array's end that follow.
pub fn part_gap(part: &[u8]) -> Option<usize> {
    let end = memchr::memrchr(b'}', part)? + 1;
    part[end..].iter().all(|&b| b.is_ascii_whitespace() || b == b',' || b == b']').then_some(end)
}

/// Whether a reference in `text` is written as a position (`"__id__": 3`): the file's own form.
fn has_position_reference(text: &[u8]) -> bool {
    memchr::memmem::find_iter(text, b"\"__id__\"").any(|at| {
        let rest = &text[at + REF.len() + 2..];
        let value = rest.trim_ascii_start().strip_prefix(b":").unwrap_or(rest).trim_ascii_start();
        value.first().is_some_and(|b| *b != b'"')
    })
}

/// Written after an identity repeated in one list, with the repeat's count: list elements
/// are matched by the identity they name, so a list holding one twice (Cocos writes such
/// `_children`) needs the second told apart.
const REPEAT: &str = "\\u0001";

/// Edits that make the references inside `node` name their targets' identities.
fn name_targets(doc: &Document<'_>, node: u32, ids: &[String], edits: &mut Vec<(usize, usize, String)>) -> Option<()> {
    let named = |r: u32, repeat: usize| -> Option<(usize, usize, String)> {
        let n = &doc.nodes[r as usize];
        let id = &ids[doc.node_text(r).parse::<usize>().ok()?];
        let text = if repeat == 0 { ["\"", id, "\""].concat() } else { format!("\"{id}{REPEAT}{repeat}\"") };
        Some((n.start as usize, n.end as usize, text))
    };
    if let Some(r) = ref_value(doc, node) {
        edits.push(named(r, 0)?);
        return Some(());
    }
    let kind = doc.nodes[node as usize].kind;
    let mut repeats: FxHashMap<&str, usize> = FxHashMap::default();
    for slot in doc.slots_of(node) {
        match ref_value(doc, slot.value) {
            Some(r) if kind == NodeKind::Array => {
                let seen = repeats.entry(doc.node_text(r)).or_default();
                edits.push(named(r, *seen)?);
                *seen += 1;
            }
            _ => name_targets(doc, slot.value, ids, edits)?,
        }
    }
    Some(())
}

/// The element a reference in the identity form names.
fn named_position(position: &FxHashMap<&str, usize>, name: &str) -> Option<usize> {
    position.get(name).or_else(|| position.get(named_identity(name))).copied()
}

/// The references of a file in its own form that point outside its array (`levelmerge check`).
pub fn dangling_positions(doc: &Document<'_>) -> Vec<Problem> {
    if doc.nodes[doc.root as usize].kind != NodeKind::Array {
        return Vec::new();
    }
    let elements = doc.slots_of(doc.root);
    let mut problems = Vec::new();
    for (i, slot) in elements.iter().enumerate() {
        let mut refs = Vec::new();
        references_in(doc, slot.value, &mut refs);
        for r in refs {
            if doc.nodes[r as usize].kind == NodeKind::Number && written_position(doc, r).is_none_or(|p| p >= elements.len()) {
                problems.push(Problem::DanglingReference {
                    object: ObjectId::new(format!("[{i}]")),
                    path: REF.to_owned(),
                    target: ObjectId::new(format!("[{}]", doc.node_text(r))),
                    line: doc.line_of(doc.nodes[r as usize].start) as usize,
                });
            }
        }
    }
    problems
}

/// A node's own `_id`, when it has one that is not empty. A node is told by its hierarchy
/// members (a synced prefab's root is written with its `_parent` but without `_children`);
/// components have an `_id` too in later 2.x files, which is not theirs to keep.
fn node_id<'s>(doc: &Document<'s>, element: u32) -> Option<&'s str> {
    let is_node = || doc.slots_of(element).iter().any(|s| matches!(doc.text(s.name), "_children" | "_parent"));
    string_member(doc, element, "_id").filter(|id| !id.is_empty() && is_node())
}

/// The `fileId` of the prefab info an element names by `_prefab` (a node) or `__prefab` (a
/// component), when it is a string that is not empty.
fn prefab_file_id<'s>(doc: &Document<'s>, elements: &[u32], element: u32) -> Option<&'s str> {
    let link = doc.slots_of(element).iter().find(|s| matches!(doc.text(s.name), "_prefab" | "__prefab"))?;
    let info = elements.get(written_position(doc, ref_value(doc, link.value)?)?)?;
    string_member(doc, *info, "fileId").filter(|id| !id.is_empty())
}

/// Nodes sharing one `_id`: the editor finds nodes by it, and no editor writes two.
pub fn nodes_sharing_an_id(doc: &Document<'_>) -> Vec<Problem> {
    if doc.nodes[doc.root as usize].kind != NodeKind::Array {
        return Vec::new();
    }
    // Lines are looked up only for a problem: that reads the whole text's line ends.
    let line = |element: u32| doc.line_of(doc.nodes[element as usize].start) as usize;
    let mut first: FxHashMap<&str, u32> = FxHashMap::default();
    let mut problems = Vec::new();
    for slot in doc.slots_of(doc.root) {
        let Some(id) = node_id(doc, slot.value) else { continue };
        match first.get(id) {
            Some(&earlier) => problems.push(Problem::DuplicateId { id: id.to_owned(), line: line(slot.value), first_line: line(earlier) }),
            None => {
                first.insert(id, slot.value);
            }
        }
    }
    problems
}

/// Elements listed both among a node's `_children` and among a node's `_components`: no
/// editor writes one, and the hierarchy read from such a file depends on which list is read
/// first (a merge could then see a cycle where a reading of its text sees none). Read in either
/// form (positions or identities): the lists name elements alike.
pub fn children_that_are_components(doc: &Document<'_>) -> Vec<Problem> {
    if doc.nodes[doc.root as usize].kind != NodeKind::Array {
        return Vec::new();
    }
    let listed_in = |member: &str| -> FxHashMap<&str, u32> {
        let mut listed = FxHashMap::default();
        for slot in doc.slots_of(doc.root) {
            let Some(list) = doc.member(slot.value, member).filter(|&l| doc.nodes[l as usize].kind == NodeKind::Array) else { continue };
            for item in doc.slots_of(list) {
                if let Some(r) = ref_value(doc, item.value) {
                    listed.entry(doc.node_text(r)).or_insert(r);
                }
            }
        }
        listed
    };
    let components = listed_in("_components");
    if components.is_empty() {
        return Vec::new();
    }
    let mut problems: Vec<(u32, Problem)> = listed_in("_children")
        .into_iter()
        .filter(|(name, _)| components.contains_key(name))
        .map(|(name, r)| {
            let line = doc.line_of(doc.nodes[r as usize].start);
            let message = format!("element {name} is listed both as a node's child and as a node's component");
            (line, Problem::Inconsistent { object: ObjectId::new(format!("[{name}]")), message, line: line as usize })
        })
        .collect();
    problems.sort_by_key(|(line, _)| *line);
    problems.into_iter().map(|(_, p)| p).collect()
}

/// Whether two renderings of one merge differ in what their position references (`"__id__":
/// 3`) point at: in how many elements they hold, or in their references in order. Where they
/// agree, they differ in values only, and a side taken for each differing stretch on its own
/// leaves every reference right. Texts without position references never differ so; texts
/// that do not parse always do.
pub fn positions_differ(ours: &[u8], theirs: &[u8]) -> bool {
    if !has_position_reference(ours) && !has_position_reference(theirs) {
        return false;
    }
    let shape = |text: &[u8]| -> Option<(usize, Vec<String>)> {
        let doc = parse(text, Dialect::Json).ok()?;
        (doc.nodes[doc.root as usize].kind == NodeKind::Array).then_some(())?;
        let mut refs = Vec::new();
        references_in(&doc, doc.root, &mut refs);
        Some((doc.slots_of(doc.root).len(), refs.into_iter().map(|r| doc.node_text(r).to_owned()).collect()))
    };
    !matches!((shape(ours), shape(theirs)), (Some(a), Some(b)) if a == b)
}

/// A merged text in the identity form turned back into positions. Fails when a reference
/// names an element the text does not hold.
pub fn to_positions(text: &[u8]) -> Result<Vec<u8>, Problem> {
    let doc = parse(text, Dialect::Json)?;
    let malformed =
        |line: u32, what: &str| Problem::Syntax { line: line as usize, column: 1, message: format!("merged Cocos file: {what}") };
    if doc.nodes[doc.root as usize].kind != NodeKind::Array {
        return Err(malformed(1, "not an array"));
    }
    let mut position: FxHashMap<&str, usize> = FxHashMap::default();
    let mut edits = Vec::new();
    let elements = doc.slots_of(doc.root);
    for (i, slot) in elements.iter().enumerate() {
        let line = || doc.line_of(doc.nodes[slot.value as usize].start);
        let members = if doc.nodes[slot.value as usize].kind == NodeKind::Object { doc.slots_of(slot.value) } else { &[] };
        let Some(first) = members.first().filter(|m| doc.text(m.name) == IDENTITY_MEMBER) else {
            return Err(malformed(line(), "an element without its identity"));
        };
        if doc.nodes[first.value as usize].kind != NodeKind::String || position.insert(inner(&doc, first.value), i).is_some() {
            return Err(malformed(line(), "an element whose identity is not unique"));
        }
        // The member goes with the comma that follows it: the bytes the identity form added.
        let end = match members.get(1) {
            Some(next) => next.comma().map_or(next.lead.0, |c| c + 1),
            None => doc.nodes[first.value as usize].end,
        };
        edits.push((first.key().0 as usize, end as usize, String::new()));
    }
    for slot in elements {
        let mut refs = Vec::new();
        references_in(&doc, slot.value, &mut refs);
        for r in refs {
            let n = &doc.nodes[r as usize];
            let target = match n.kind {
                NodeKind::String => named_position(&position, inner(&doc, r)),
                _ => None,
            };
            let Some(target) = target else {
                let owner = doc.slots_of(slot.value).first().map_or("", |m| inner(&doc, m.value));
                // Named as the merged level names the elements (`/[identity]`), so that a merge
                // can tell which deletion the reference contests.
                let named = if n.kind == NodeKind::String { inner(&doc, r) } else { doc.node_text(r) };
                return Err(Problem::DanglingReference {
                    object: ObjectId::new(format!("/[{owner}]")),
                    path: REF.to_owned(),
                    target: ObjectId::new(format!("/[{named}]")),
                    line: doc.line_of(n.start) as usize,
                });
            };
            edits.push((n.start as usize, n.end as usize, target.to_string()));
        }
    }
    Ok(splice(doc.src, edits).into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENE: &str = r#"[
  {
    "__type__": "cc.SceneAsset",
    "scene": {
      "__id__": 1
    }
  },
  {
    "__type__": "cc.Scene",
    "_children": [
      {
        "__id__": 2
      }
    ],
    "_id": "s1"
  },
  {
    "__type__": "cc.Node",
    "_name": "Player",
    "_parent": {
      "__id__": 1
    },
    "_children": [],
    "_components": [
      {
        "__id__": 3
      }
    ],
    "_id": "p1"
  },
  {
    "__type__": "cc.Sprite",
    "node": {
      "__id__": 2
    }
  }
]
"#;

    #[test]
    fn values_are_shown_without_the_identity_members() {
        let shown = |v: &str| without_identity_members(v.to_owned());
        assert_eq!(
            shown(r##"{"__lmid":"#a1", "__type__": "cc.Node", "_parent": {"__id__": "#root"}}"##),
            r##"{ "__type__": "cc.Node", "_parent": {"__id__": "#root"}}"##
        );
        assert_eq!(shown(r##"{"__lmid":"#a\"b"}"##), "{}", "an escaped quote inside the identity");
        assert_eq!(shown(r##"[{"__lmid":"#a","x": 1}, {"__lmid":"#b","x": 2}]"##), r##"[{"x": 1}, {"x": 2}]"##);
        assert_eq!(shown(r##"{"__lmid":"#cut sho"##), r##"{"__lmid":"#cut sho"##, "a value cut short is kept");
        assert_eq!(shown("{\"x\": 1}"), "{\"x\": 1}");
    }

    #[test]
    fn identities_come_from_ids_and_owners() {
        let doc = parse(SCENE.as_bytes(), Dialect::Json).unwrap();
        assert_eq!(identities(&doc).unwrap(), ["root", "#s1", "#p1", "#p1/_components/cc.Sprite/"]);
    }

    #[test]
    fn a_property_override_is_named_by_the_property_and_target_it_overrides() {
        let prefab = r#"[
  {"__type__": "cc.Prefab", "data": {"__id__": 1}},
  {"__type__": "cc.Node", "_name": "Row", "_children": [], "_prefab": {"__id__": 2}, "_id": ""},
  {"__type__": "cc.PrefabInfo", "fileId": "f1", "instance": {"__id__": 3}},
  {"__type__": "cc.PrefabInstance", "propertyOverrides": [{"__id__": 4}, {"__id__": 6}]},
  {"__type__": "CCPropertyOverrideInfo", "targetInfo": {"__id__": 5}, "propertyPath": ["_lpos"], "value": 1},
  {"__type__": "cc.TargetInfo", "localID": ["c46/Ys", "x"]},
  {"__type__": "CCPropertyOverrideInfo", "targetInfo": {"__id__": 5}, "propertyPath": ["_color", "r"], "value": 2}
]"#;
        let ids = identities(&parse(prefab.as_bytes(), Dialect::Json).unwrap()).unwrap();
        let instance = "root/data/cc.Node/Row/_prefab/cc.PrefabInfo//instance/cc.PrefabInstance/";
        assert_eq!(ids[3], instance);
        assert_eq!(ids[4], format!("{instance}/propertyOverrides/CCPropertyOverrideInfo/_lpos@c46/Ys,x"));
        assert_eq!(ids[6], format!("{instance}/propertyOverrides/CCPropertyOverrideInfo/_color.r@c46/Ys,x"));
    }

    #[test]
    fn the_identity_form_turns_back_byte_for_byte() {
        let form = to_identities(SCENE.as_bytes()).unwrap();
        let form_text = String::from_utf8(form.clone()).unwrap();
        assert!(form_text.contains(r##"{"__lmid":"#p1","##));
        assert!(form_text.contains(r##""__id__": "#p1/_components/cc.Sprite/""##));
        assert!(!form_text.contains(r#""__id__": 3"#));
        assert_eq!(String::from_utf8(to_positions(&form).unwrap()).unwrap(), SCENE);
    }

    #[test]
    fn the_identity_form_is_cut_into_its_elements() {
        let form = to_identities(SCENE.as_bytes()).unwrap();
        let parts = parts(&form).expect("an identity form, one element per line");
        assert_eq!(parts.len(), 5, "the opening bracket, then the four elements");
        assert_eq!(parts.concat(), form, "the parts cover the text");
        assert_eq!(parts[0], b"[\n");
        assert!(parts[2].starts_with(br##"  {"__lmid":"#s1","##));
        let last = parts[4];
        assert!(last.ends_with(b"  }\n]\n"));
        assert_eq!(&last[part_gap(last).unwrap()..], b"\n]\n");
        assert_eq!(&parts[1][part_gap(parts[1]).unwrap()..], b",\n");
        assert_eq!(part_gap(parts[0]), None, "the opening bracket holds no element");
    }

    #[test]
    fn texts_that_are_not_an_identity_form_have_no_parts() {
        assert!(parts(SCENE.as_bytes()).is_none(), "references are positions");
        let form = String::from_utf8(to_identities(SCENE.as_bytes()).unwrap()).unwrap();
        let joined = form.replacen(",\n  {\"__lmid\":\"#s1\"", ", {\"__lmid\":\"#s1\"", 1);
        assert_ne!(joined, form);
        assert!(parts(joined.as_bytes()).is_none(), "an element that does not open a line of its own");
        assert!(parts(b"{\"a\": 1}").is_none(), "not an array");
    }

    #[test]
    fn a_list_naming_an_element_twice_turns_back() {
        let twice = SCENE.replace(
            "\"_children\": [\n      {\n        \"__id__\": 2\n      }\n    ]",
            "\"_children\": [{\"__id__\": 2}, {\"__id__\": 2}]",
        );
        assert_ne!(twice, SCENE);
        let form = to_identities(twice.as_bytes()).unwrap();
        let form_text = String::from_utf8(form.clone()).unwrap();
        assert!(form_text.contains(r##"[{"__id__": "#p1"}, {"__id__": "#p1\u00011"}]"##), "{form_text}");
        assert_eq!(String::from_utf8(to_positions(&form).unwrap()).unwrap(), twice);
    }

    #[test]
    fn a_reference_to_a_missing_element_is_refused() {
        let form = String::from_utf8(to_identities(SCENE.as_bytes()).unwrap()).unwrap();
        let broken = form.replace(r##""__id__": "#p1/_components/cc.Sprite/""##, r##""__id__": "#gone""##);
        assert!(matches!(to_positions(broken.as_bytes()), Err(Problem::DanglingReference { .. })));
    }

    #[test]
    fn positions_outside_the_array_are_dangling() {
        let broken = SCENE.replace("\"__id__\": 3", "\"__id__\": 4");
        let doc = parse(broken.as_bytes(), Dialect::Json).unwrap();
        let problems = dangling_positions(&doc);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].to_string().contains("[4]"), "{}", problems[0]);
        assert!(dangling_positions(&parse(SCENE.as_bytes(), Dialect::Json).unwrap()).is_empty());
    }

    #[test]
    fn an_element_both_child_and_component_is_a_problem_in_either_form() {
        assert!(children_that_are_components(&parse(SCENE.as_bytes(), Dialect::Json).unwrap()).is_empty());
        let positions = r#"[{"__type__": "cc.Scene", "_children": [{"__id__": 1}, {"__id__": 2}]},
            {"__type__": "cc.Node", "_components": [{"__id__": 2}]}, {"__type__": "cc.Label", "node": {"__id__": 1}}]"#;
        let problems = children_that_are_components(&parse(positions.as_bytes(), Dialect::Json).unwrap());
        assert_eq!(problems.len(), 1);
        assert!(problems[0].to_string().contains("element 2 is listed both"), "{}", problems[0]);
        let identities = positions.replace(r#""__id__": 1"#, r##""__id__": "#n""##).replace(r#""__id__": 2"#, r##""__id__": "#n/l""##);
        assert_eq!(children_that_are_components(&parse(identities.as_bytes(), Dialect::Json).unwrap()).len(), 1);
    }

    #[test]
    fn files_it_cannot_rewrite_are_left_alone() {
        assert!(to_identities(b"[{\"a\": {\"__id__\": 9}}]").is_none(), "a position outside the array");
        assert!(to_identities(b"[{\"a\": {\"__id__\": 01}}]").is_none(), "a position not written canonically");
        assert!(to_identities(b"{\"a\": 1}").is_none(), "not an array");
        assert!(to_identities(b"[{\"__lmid\": 1}]").is_none(), "already holds the identity member");
        assert!(to_identities(b"[{\"scene\": {\"__id__\": 1}}, {\"__id__\": 0}]").is_none(), "an element that is a reference");
    }
}
