//! Resource ids made to agree across the three versions before they are merged.
//!
//! An `[ext_resource]`'s `id` and a Godot 3 `[sub_resource]`'s integer `id` are file-local
//! handles: Godot renumbers them on save (removing one shifts every later id and every
//! `ExtResource( n )`), and two branches that each add one give both the same next id. What
//! identifies a resource is its target (`path`) for an external one; for a sub-resource, its
//! type and content (then, for an edited one, its type and id): Godot 4's `Class_xxxxx` ids
//! are drawn afresh when a sub-resource is re-created, so they are handles too.
//!
//! The side that renumbered keeps its ids: theirs when only theirs did, else ours (the keeper),
//! after taking the ids that only theirs changed when both did.
//! Base and the other side take the keeper's id for the resources it has; a resource the keeper
//! lacks keeps its id when that is free, else gets a fresh one (the next integer, or the
//! id with `_2`, `_3`, …); every reference is rewritten with it. Deterministic.

use levelmerge_core::{Renumbered, Side, Sides};
use std::hash::BuildHasher;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::parse::{parse, unquote, GodotFile, Section};
use crate::refs::{resource_refs, Table};

/// One resource of one version: its id as written (unquoted) and what identifies it.
struct Resource<'s> {
    id: &'s str,
    /// `uid://…` of an external resource, when written.
    uid: Option<&'s str>,
    /// The path of an external resource; the id (Godot 4 kind) or the type and content of a
    /// sub-resource.
    key: String,
    kind: &'s str,
    /// A sub-resource without properties (an empty style box): its content tells nothing, so
    /// it is matched by content only where it is used in the same place ([`Resource::places`]).
    weak: bool,
    /// Where the file uses a weak resource (empty for any other).
    places: Vec<String>,
}

fn resources<'s>(file: &GodotFile<'s>, table: Table) -> Vec<Resource<'s>> {
    let ext_paths: FxHashMap<&str, &str> = file
        .sections
        .iter()
        .filter(|s| file.kind(s) == "ext_resource")
        .filter_map(|s| Some((file.attr_unquoted(s, "id")?.trim(), file.attr_unquoted(s, "path")?)))
        .collect();
    let mut out = Vec::new();
    // The content keys of the sub-resources read so far, hashed, by id (a sub-resource is
    // defined before its first use).
    let mut sub_keys: FxHashMap<&str, u64> = FxHashMap::default();
    for s in file.sections.iter().filter(|s| file.kind(s) == table.section()) {
        let Some(id) = file.attr_unquoted(s, "id").map(str::trim) else { continue };
        let kind = file.attr_unquoted(s, "type").unwrap_or("");
        let key = match table {
            Table::Ext => format!("path:{}", file.attr_unquoted(s, "path").unwrap_or(id)),
            Table::Sub => {
                let key = content_key(file, s, &ext_paths, &sub_keys);
                sub_keys.insert(id, rustc_hash::FxBuildHasher.hash_one(&key));
                key
            }
        };
        let uid = if table == Table::Ext { file.attr_unquoted(s, "uid") } else { None };
        let weak = table == Table::Sub && file.props_of(s).is_empty();
        out.push(Resource { id, uid, key, kind, weak, places: Vec::new() });
    }
    let weak: FxHashSet<&str> = out.iter().filter(|r| r.weak).map(|r| r.id).collect();
    if !weak.is_empty() {
        let mut places = use_places(file, table, &weak);
        for r in out.iter_mut().filter(|r| r.weak) {
            r.places = places.remove(r.id).unwrap_or_default();
        }
    }
    out
}

/// Where `file` uses each of `ids` (of `table`): the using section (a node by its parent and
/// name, else its kind and type) and the property or attribute naming it, one string a use.
/// An empty style box deleted in one place and another added elsewhere are two resources; one
/// re-created in its place is the same.
fn use_places<'s>(file: &GodotFile<'s>, table: Table, ids: &FxHashSet<&'s str>) -> FxHashMap<&'s str, Vec<String>> {
    let mut out: FxHashMap<&'s str, Vec<String>> = FxHashMap::default();
    for s in &file.sections {
        let [name, parent, kind] = file.attrs_unquoted(s, ["name", "parent", "type"]);
        let section = match (file.kind(s), name) {
            ("node", Some(name)) => format!("node {}/{name}", parent.unwrap_or("")),
            (other, _) => format!("{other} {}", kind.unwrap_or("")),
        };
        let entries = file.attrs_of(s).iter().map(|a| (a.key, a.value)).chain(file.props_of(s).iter().map(|p| (p.key, p.value)));
        for (key, value) in entries {
            for r in resource_refs(file.text(value)).into_iter().filter(|r| r.table == table) {
                if let Some(&id) = ids.get(r.id) {
                    out.entry(id).or_default().push(format!("{section} {}", file.text(key)));
                }
            }
        }
    }
    out
}

/// Whether a resource id holds a quote or white space (a line end, a space): Godot never
/// writes one, and a version that does is not aligned (its resources keep their ids). Such an
/// id is read without its outer spaces but written with them, so a side renamed to it would
/// differ from it in its spaces.
fn holds_an_id_godot_never_writes(file: &GodotFile<'_>) -> bool {
    file.sections
        .iter()
        .filter(|s| matches!(file.kind(s), "ext_resource" | "sub_resource"))
        .filter_map(|s| file.attr_unquoted(s, "id"))
        .any(|id| id.contains(|c: char| c == '"' || c.is_ascii_whitespace()))
}

/// The file name and type of an external resource, by which a moved one is found.
fn file_name_and_type<'r>(r: &'r Resource<'_>) -> Option<(&'r str, &'r str)> {
    r.key.strip_prefix("path:").map(|path| (path.rsplit('/').next().unwrap_or(path), r.kind))
}

fn is_integer(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit())
}

/// A sub-resource's type and properties, with external references named by their path and
/// sub-resource references by the content of what they name (their ids are what is being
/// matched), so that two textures of two different images differ.
fn content_key(file: &GodotFile<'_>, s: &Section, ext_paths: &FxHashMap<&str, &str>, sub_keys: &FxHashMap<&str, u64>) -> String {
    let mut key = format!("content:{}", file.attr_unquoted(s, "type").unwrap_or(""));
    for p in file.props_of(s) {
        let text = file.text(p.line);
        let mut at = 0;
        for r in resource_refs(text) {
            key.push_str(&text[at..r.span.0]);
            match r.table {
                Table::Ext => key.push_str(ext_paths.get(r.id).copied().unwrap_or(r.id)),
                Table::Sub => match sub_keys.get(r.id) {
                    Some(hash) => key.push_str(&format!("#{hash:x}")),
                    None => key.push('#'),
                },
            }
            at = r.span.1;
        }
        key.push_str(&text[at..]);
    }
    key
}

/// For each resource of `side`, the resource of `other` it is. In passes, each taking only
/// what earlier ones left: the same `uid`, or the same id and a key no other resource has
/// (unchanged and not renumbered); the same key, in order (renumbered); when `edited` ones are looked for, an external
/// resource of the same type and file name, one on each side (a file moved, or one put in the
/// place of its namesake: renumbered and edited at once, the id would pair it wrongly), then the
/// same id (and, for a sub-resource, type).
fn matching(side: &[&Resource<'_>], other: &[&Resource<'_>], table: Table, edited: bool) -> Vec<Option<usize>> {
    let mut by_uid: FxHashMap<&str, usize> = FxHashMap::default();
    let mut by_key: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    let mut by_id: FxHashMap<&str, usize> = FxHashMap::default();
    for (i, r) in other.iter().enumerate() {
        if let Some(uid) = r.uid {
            by_uid.insert(uid, i);
        }
        by_key.entry(&r.key).or_default().push(i);
        by_id.insert(r.id, i);
    }
    let mut side_keys: FxHashMap<&str, usize> = FxHashMap::default();
    for r in side {
        *side_keys.entry(&r.key).or_default() += 1;
    }
    // Resources alike in everything but an integer id (two textures of one image) are told
    // apart by their order, not by an id that may have been renumbered onto the other one;
    // Godot 4's drawn ids are not reused, so there the id tells.
    let alike = |key: &str| side_keys.get(key).is_some_and(|&n| n > 1) || by_key.get(key).is_some_and(|c| c.len() > 1);
    let mut taken = vec![false; other.len()];
    let mut out: Vec<Option<usize>> = vec![None; side.len()];
    let mut moved: FxHashMap<(&str, &str), (usize, Vec<usize>)> = FxHashMap::default();
    for pass in 0..4 {
        if pass == 2 && edited && table == Table::Ext {
            for r in side.iter().enumerate().filter(|(j, _)| out[*j].is_none()).filter_map(|(_, r)| file_name_and_type(r)) {
                moved.entry(r).or_default().0 += 1;
            }
            for (i, c) in other.iter().enumerate().filter(|(i, _)| !taken[*i]) {
                if let Some(entry) = file_name_and_type(c).and_then(|n| moved.get_mut(&n)) {
                    entry.1.push(i);
                }
            }
        }
        for (j, r) in side.iter().enumerate() {
            if out[j].is_some() {
                continue;
            }
            let free = |i: &usize| !taken[*i];
            let hit = match pass {
                0 => {
                    let same_id = || by_id.get(r.id).filter(|&&i| other[i].key == r.key && (!is_integer(r.id) || !alike(&r.key)));
                    r.uid.and_then(|u| by_uid.get(u)).or_else(same_id).copied().filter(free)
                }
                1 => {
                    let placed_alike = |i: &usize| !r.weak || other[*i].places.iter().any(|p| r.places.contains(p));
                    by_key.get(r.key.as_str()).and_then(|c| c.iter().copied().find(|i| free(i) && placed_alike(i)))
                }
                2 => file_name_and_type(r).and_then(|n| match moved.get(&n) {
                    Some((1, candidates)) if candidates.len() == 1 => Some(candidates[0]),
                    _ => None,
                }),
                _ => by_id.get(r.id).copied().filter(|&i| edited && free(&i) && (table == Table::Ext || other[i].kind == r.kind)),
            };
            if let Some(i) = hit {
                taken[i] = true;
                out[j] = Some(i);
            }
        }
    }
    out
}

/// The resources of one table in the three versions, and the base resource each of ours' and
/// theirs' is.
struct Matched<'s> {
    base: Vec<Resource<'s>>,
    ours: Vec<Resource<'s>>,
    theirs: Vec<Resource<'s>>,
    ours_to_base: Vec<Option<usize>>,
    theirs_to_base: Vec<Option<usize>>,
}

impl<'s> Matched<'s> {
    /// `known` names, by ours' id, the base id of resources ours is known to hold: those whose
    /// ids ours took from theirs (a renumbering of resources alike in content, such as empty
    /// style boxes, cannot be told back from their content).
    fn new(files: Sides<&GodotFile<'s>>, table: Table, known: Option<&FxHashMap<String, String>>) -> Self {
        let (base, ours, theirs) = (resources(files.base, table), resources(files.ours, table), resources(files.theirs, table));
        let all = |v: &[Resource<'s>]| (0..v.len()).collect::<Vec<_>>();
        let mut ours_to_base: Vec<Option<usize>> = vec![None; ours.len()];
        for (o, r) in ours.iter().enumerate() {
            let base_id = known.and_then(|k| k.get(r.id));
            ours_to_base[o] = base_id.and_then(|id| base.iter().position(|b| b.id == id));
        }
        // Unchanged and renumbered resources first.
        let claimed: FxHashSet<usize> = ours_to_base.iter().flatten().copied().collect();
        let (ours_open, base_open): (Vec<usize>, Vec<usize>) =
            ((0..ours.len()).filter(|&o| ours_to_base[o].is_none()).collect(), (0..base.len()).filter(|b| !claimed.contains(b)).collect());
        for (k, b) in matching(&picked(&ours, &ours_open), &picked(&base, &base_open), table, false).into_iter().enumerate() {
            ours_to_base[ours_open[k]] = b.map(|b| base_open[b]);
        }
        let mut theirs_to_base = matching(&picked(&theirs, &all(&theirs)), &picked(&base, &all(&base)), table, false);
        // A resource both sides added (or both changed alike) is one resource, not an edit of
        // whichever base resource had its id (two branches renaming files differently).
        let unmatched = |m: &[Option<usize>]| (0..m.len()).filter(|&i| m[i].is_none()).collect::<Vec<_>>();
        let (ours_new, theirs_new) = (unmatched(&ours_to_base), unmatched(&theirs_to_base));
        let pairs = matching(&picked(&theirs, &theirs_new), &picked(&ours, &ours_new), table, false);
        let theirs_paired: FxHashSet<usize> = pairs.iter().enumerate().filter(|(_, o)| o.is_some()).map(|(k, _)| theirs_new[k]).collect();
        let ours_paired: FxHashSet<usize> = pairs.iter().flatten().map(|&o| ours_new[o]).collect();
        // Then edited ones: the same id (and type) as a base resource still free.
        for (to_base, side, paired) in [(&mut ours_to_base, &ours, &ours_paired), (&mut theirs_to_base, &theirs, &theirs_paired)] {
            let taken: FxHashSet<usize> = to_base.iter().flatten().copied().collect();
            let free: Vec<usize> = (0..base.len()).filter(|b| !taken.contains(b)).collect();
            let open: Vec<usize> = (0..side.len()).filter(|i| to_base[*i].is_none() && !paired.contains(i)).collect();
            let edited = matching(&picked(side, &open), &picked(&base, &free), table, true);
            for (k, b) in edited.into_iter().enumerate() {
                to_base[open[k]] = b.map(|b| free[b]);
            }
        }
        Matched { base, ours, theirs, ours_to_base, theirs_to_base }
    }

    /// Whether ours (or theirs) gave any resource that base has a different id.
    fn renumbered(&self, side: Side) -> bool {
        let (resources, to_base) = match side {
            Side::Theirs => (&self.theirs, &self.theirs_to_base),
            _ => (&self.ours, &self.ours_to_base),
        };
        to_base.iter().enumerate().any(|(i, b)| b.is_some_and(|b| self.base[b].id != resources[i].id))
    }
}

/// Final ids of one table: for base and theirs, a map from their id to the id they take.
struct Plan {
    base: FxHashMap<String, String>,
    theirs: FxHashMap<String, String>,
    notes: Vec<String>,
}

/// How many times each id of `table` is used in a file.
fn uses<'s>(file: &GodotFile<'s>, table: Table) -> FxHashMap<&'s str, usize> {
    let mut out: FxHashMap<&'s str, usize> = FxHashMap::default();
    let values =
        file.sections.iter().flat_map(|s| file.attrs_of(s).iter().map(|a| a.value).chain(file.props_of(s).iter().map(|p| p.value)));
    for span in values {
        for r in resource_refs(file.text(span)).into_iter().filter(|r| r.table == table) {
            *out.entry(r.id).or_insert(0) += 1;
        }
    }
    out
}

fn picked<'v, 's>(v: &'v [Resource<'s>], idx: &[usize]) -> Vec<&'v Resource<'s>> {
    idx.iter().map(|&i| &v[i]).collect()
}

fn fresh(id: &str, used: &FxHashSet<String>) -> String {
    if is_integer(id) {
        let next = used.iter().filter_map(|u| u.parse::<u64>().ok()).max().unwrap_or(0) + 1;
        return next.to_string();
    }
    (2..).map(|k| format!("{id}_{k}")).find(|c| !used.contains(c)).expect("an unused id")
}

/// Whether a side's resource is base's `b` as base had it (same id, same key), used no more
/// often than base used it: what a side that kept it leaves for the other side's reuse of its id.
fn kept_as_base_had_it(
    kept: &Resource<'_>,
    b: &Resource<'_>,
    kept_uses: &FxHashMap<&str, usize>,
    base_uses: &FxHashMap<&str, usize>,
) -> bool {
    kept.id == b.id && kept.key == b.key && kept_uses.get(kept.id) <= base_uses.get(b.id)
}

/// `files.ours` is the side that keeps its ids; `files.theirs` is `other_side`.
fn plan(files: Sides<&GodotFile<'_>>, table: Table, other_side: Side, known: Option<&FxHashMap<String, String>>) -> Plan {
    let Matched { base, ours, theirs, ours_to_base, theirs_to_base } = Matched::new(files, table, known);
    let mut used: FxHashSet<String> = ours.iter().map(|r| r.id.to_owned()).collect();
    let mut base_final: Vec<Option<String>> = vec![None; base.len()];
    for (o, b) in ours_to_base.iter().enumerate() {
        if let Some(b) = b {
            base_final[*b] = Some(ours[o].id.to_owned());
        }
    }
    // Base resources ours removed: their own id when free, else a fresh one. But an id ours
    // gave a new resource, of one theirs kept as base had it, is ours' reuse of it (as Godot
    // does on save): the mirror of theirs' reuse below, so that which side is ours does not
    // decide whether the new resource replaces the old one or is added beside it.
    // A new resource of ours that theirs added too is not a reuse: theirs' copy takes its id.
    let ours_new: Vec<usize> = (0..ours.len()).filter(|&o| ours_to_base[o].is_none()).collect();
    let theirs_new: Vec<usize> = (0..theirs.len()).filter(|&t| theirs_to_base[t].is_none()).collect();
    let new_pairs = matching(&picked(&theirs, &theirs_new), &picked(&ours, &ours_new), table, false);
    let paired_by_theirs: FxHashSet<usize> = new_pairs.iter().flatten().map(|&o| ours_new[o]).collect();
    let (theirs_uses, base_uses) = (uses(files.theirs, table), uses(files.base, table));
    let ours_new_ids: FxHashSet<&str> = ours_new.iter().filter(|o| !paired_by_theirs.contains(o)).map(|&o| ours[o].id).collect();
    let kept_alike_by_theirs = |i: usize, r: &Resource<'_>| {
        theirs_to_base.iter().zip(&theirs).any(|(b, t)| *b == Some(i) && kept_as_base_had_it(t, r, &theirs_uses, &base_uses))
    };
    let mut base_map: FxHashMap<String, String> = FxHashMap::default();
    for (i, r) in base.iter().enumerate() {
        let reused_by_ours = || ours_new_ids.contains(r.id) && kept_alike_by_theirs(i, r);
        let id = base_final[i].clone().unwrap_or_else(|| {
            if used.contains(r.id) && !reused_by_ours() {
                fresh(r.id, &used)
            } else {
                r.id.to_owned()
            }
        });
        used.insert(id.clone());
        base_map.insert(r.id.to_owned(), id.clone());
        base_final[i] = Some(id);
    }
    // Theirs: the base resource's id, or the id of the same new resource in ours, or its own
    // when free, else a fresh one.
    // An id ours kept as base had it, for a resource theirs removed, is theirs' to reuse (as
    // Godot does on save): the merge removes that resource, unless ours added a use of it.
    let kept_by_theirs: FxHashSet<usize> = theirs_to_base.iter().flatten().copied().collect();
    let ours_uses = uses(files.ours, table);
    let mut reusable: FxHashSet<&str> = ours_to_base
        .iter()
        .enumerate()
        .filter_map(|(o, b)| b.map(|b| (&ours[o], &base[b], b)))
        .filter(|(o, b, i)| !kept_by_theirs.contains(i) && kept_as_base_had_it(o, b, &ours_uses, &base_uses))
        .map(|(o, _, _)| o.id)
        .collect();
    let mut theirs_map: FxHashMap<String, String> = FxHashMap::default();
    let mut moves = Vec::new();
    for (t, r) in theirs.iter().enumerate() {
        let known = match theirs_to_base[t] {
            Some(b) => base_final[b].clone(),
            None => theirs_new.binary_search(&t).ok().and_then(|k| new_pairs[k]).map(|o| ours[ours_new[o]].id.to_owned()),
        };
        let id = match known {
            Some(id) => id,
            None if !used.contains(r.id) || reusable.remove(r.id) => r.id.to_owned(),
            None => {
                let id = fresh(r.id, &used);
                moves.push(format!("\"{}\" → \"{id}\"", r.id));
                id
            }
        };
        used.insert(id.clone());
        theirs_map.insert(r.id.to_owned(), id);
    }
    let what = format!("{}s", table.section());
    let notes = if moves.is_empty() { Vec::new() } else { vec![levelmerge_core::text::renumbered_note(&what, other_side.name(), &moves)] };
    Plan { base: base_map, theirs: theirs_map, notes }
}

/// `text` with its resource ids replaced as `maps` says (section `id=` attributes and every
/// reference), or `None` when no id changes.
fn rewrite(file: &GodotFile<'_>, maps: &FxHashMap<Table, &FxHashMap<String, String>>) -> Option<Vec<u8>> {
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut replace = |table: Table, start: usize, written: &str| {
        // Read as `resources` reads a section's id: unquoted, then trimmed.
        let id = unquote(written.trim()).trim();
        if let Some(new) = maps.get(&table).and_then(|m| m.get(id)).filter(|new| new.as_str() != id) {
            let text = if written.trim().starts_with('"') { format!("\"{new}\"") } else { new.clone() };
            edits.push((start, start + written.len(), text));
        }
    };
    for s in &file.sections {
        let table = match file.kind(s) {
            "ext_resource" => Some(Table::Ext),
            "sub_resource" => Some(Table::Sub),
            _ => None,
        };
        for a in file.attrs_of(s) {
            let value = file.text(a.value);
            match table {
                Some(table) if file.text(a.key) == "id" => replace(table, a.value.0 as usize, value),
                _ => {
                    for r in resource_refs(value) {
                        replace(r.table, a.value.0 as usize + r.span.0, &value[r.span.0..r.span.1]);
                    }
                }
            }
        }
        for p in file.props_of(s) {
            let value = file.text(p.value);
            for r in resource_refs(value) {
                replace(r.table, p.value.0 as usize + r.span.0, &value[r.span.0..r.span.1]);
            }
        }
    }
    if edits.is_empty() {
        return None;
    }
    Some(levelmerge_core::text::splice(file.src, edits).into_bytes())
}

/// The resource tag lines of a text, sorted.
fn tags(text: &[u8]) -> Vec<&[u8]> {
    let lines_from = |needle: &'static [u8]| {
        memchr::memmem::find_iter(text, needle).map(|at| {
            let line = &text[at + 1..];
            line[..memchr::memchr(b'\n', line).unwrap_or(line.len())].trim_ascii_end()
        })
    };
    let mut v: Vec<&[u8]> = lines_from(b"\n[ext_resource").chain(lines_from(b"\n[sub_resource")).collect();
    v.sort_unstable();
    v
}

/// When both sides renumbered: the new ids theirs gave resources that ours left as base had
/// them (each id merged like a value: the side that changed it wins), as a map from ours' id
/// to theirs'; `None` when there is none or taking them would give two of ours' resources one id.
fn theirs_renumbering(matched: &Matched<'_>) -> Option<FxHashMap<String, String>> {
    let Matched { base, ours, theirs, ours_to_base, theirs_to_base } = matched;
    let mut base_to_theirs: Vec<Option<usize>> = vec![None; base.len()];
    for (t, b) in theirs_to_base.iter().enumerate() {
        if let Some(b) = b {
            base_to_theirs[*b] = Some(t);
        }
    }
    let map: FxHashMap<String, String> = ours_to_base
        .iter()
        .enumerate()
        .filter_map(|(o, b)| Some((&ours[o], &base[(*b)?], &theirs[base_to_theirs[(*b)?]?])))
        .filter(|(o, b, t)| o.id == b.id && t.id != b.id)
        .map(|(o, _, t)| (o.id.to_owned(), t.id.to_owned()))
        .collect();
    let finals: Vec<&str> = ours.iter().map(|r| map.get(r.id).map_or(r.id, String::as_str)).collect();
    let distinct: FxHashSet<&str> = finals.iter().copied().collect();
    (!map.is_empty() && distinct.len() == finals.len()).then_some(map)
}

/// Base and one side rewritten to the other side's resource ids; `None` when nothing needs it.
/// The side that renumbered keeps its ids (a renumbering is an edit like any other): theirs
/// when only theirs did, else ours. Versions that equal another are left alone: their merge is
/// one of them, byte for byte.
pub fn align(texts: Sides<&[u8]>) -> Option<Renumbered> {
    if texts.base == texts.ours || texts.base == texts.theirs || texts.ours == texts.theirs {
        return None;
    }
    // Most merges touch no resource tag: then there is nothing to align.
    let base_tags = tags(texts.base);
    if tags(texts.ours) == base_tags && tags(texts.theirs) == base_tags {
        return None;
    }
    let mut files = Sides::new(parse(texts.base).ok()?, parse(texts.ours).ok()?, parse(texts.theirs).ok()?);
    let tables = [Table::Ext, Table::Sub];
    if [&files.base, &files.ours, &files.theirs].iter().any(|f| holds_an_id_godot_never_writes(f)) {
        return None;
    }
    let matched = tables.map(|t| Matched::new(Sides::new(&files.base, &files.ours, &files.theirs), t, None));
    let ours_renumbered = matched.iter().any(|m| m.renumbered(Side::Ours));
    let theirs_keeps = !ours_renumbered && matched.iter().any(|m| m.renumbered(Side::Theirs));
    // Both renumbered: ours first takes the ids only theirs changed.
    let mut ours_taken = None;
    // The ids ours took, each mapped back to the base id it stands for.
    let mut known: FxHashMap<Table, FxHashMap<String, String>> = FxHashMap::default();
    if ours_renumbered {
        let maps: FxHashMap<Table, FxHashMap<String, String>> =
            tables.into_iter().zip(&matched).filter_map(|(table, m)| Some((table, theirs_renumbering(m)?))).collect();
        ours_taken = rewrite(&files.ours, &maps.iter().map(|(t, m)| (*t, m)).collect());
        if ours_taken.is_some() {
            known = maps.into_iter().map(|(t, m)| (t, m.into_iter().map(|(base_id, taken)| (taken, base_id)).collect())).collect();
        }
    }
    drop(matched);
    if let Some(text) = &ours_taken {
        files.ours = parse(text).ok()?;
    }
    let (keeper, other, other_side) =
        if theirs_keeps { (&files.theirs, &files.ours, Side::Ours) } else { (&files.ours, &files.theirs, Side::Theirs) };
    let refs = Sides::new(&files.base, keeper, other);
    let (ext, sub) =
        (plan(refs, Table::Ext, other_side, known.get(&Table::Ext)), plan(refs, Table::Sub, other_side, known.get(&Table::Sub)));
    let base_maps = FxHashMap::from_iter([(Table::Ext, &ext.base), (Table::Sub, &sub.base)]);
    let other_maps = FxHashMap::from_iter([(Table::Ext, &ext.theirs), (Table::Sub, &sub.theirs)]);
    let other = rewrite(other, &other_maps);
    let aligned = Renumbered {
        base: rewrite(&files.base, &base_maps),
        notes: ext.notes.into_iter().chain(sub.notes).collect(),
        ours: if theirs_keeps { other.clone() } else { ours_taken.clone() },
        theirs: if theirs_keeps { None } else { other },
        ..Renumbered::default()
    };
    (aligned.base.is_some() || aligned.ours.is_some() || aligned.theirs.is_some()).then_some(aligned)
}
