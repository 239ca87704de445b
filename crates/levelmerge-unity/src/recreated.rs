//! Objects a side re-created under new fileIDs, made to agree across the versions before the
//! merge.
//!
//! Unity hands out new fileIDs when a prefab is re-made or a component removed and added back:
//! the object is the same, its id is not. Read by id, that side deleted the object and added
//! another, so the other side's edits of it meet a deletion (a conflict, or lost with the old
//! copy). A deleted object `X` and an added object `Y` of one side are one object when they
//! have the same class, script, name and source prefab (a prefab instance's name is its
//! `m_Name` override, a duplicate's number aside), belong to the same owner (game object,
//! father, an instance's parent transform, a stripped object's instance: the same id, or one
//! found re-created likewise), and
//! * their texts are equal once every id the side deleted or added is blanked out, and no
//!   other pair is; or
//! * they sit at the same place in two objects already found to be one (a game object's
//!   components in order, a transform's game object and children); or
//! * at least 60% of their lines agree so blanked, and neither has another such match.
//!
//! Base and the other side are then rewritten with `Y` for `X` (the document and every local
//! reference), so the merge sees one object edited by both. An object both sides re-created,
//! each under its own id, takes ours' id in base and theirs. An object the other side deleted,
//! and a new id the other side also uses for something else, are left alone: the re-created
//! object is then an addition, kept. Deterministic.

use levelmerge_core::{Renumbered, Side, Sides};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::parse::{document_ids, parse_three, UnityDoc, UnityFile};
use crate::renumber::rewrite_ids;

/// The share of lines two objects must have in common to be one without any other evidence.
const ALIKE: f64 = 0.6;

/// How many lines the search for alike objects may compare, at most.
const COMPARED_LINES: usize = 4_000_000;

/// The local references `{fileID: N}` of a document's text, in order, with their positions.
fn local_refs(text: &str) -> impl Iterator<Item = (usize, usize, i64)> + '_ {
    memchr::memmem::find_iter(text.as_bytes(), b"{fileID: ").filter_map(move |at| {
        let start = at + "{fileID: ".len();
        let len = text[start..].bytes().position(|b| !(b.is_ascii_digit() || b == b'-'))?;
        let id = text[start..start + len].parse().ok()?;
        (text.as_bytes().get(start + len) == Some(&b'}')).then_some((start, start + len, id))
    })
}

/// A document's body lines with the ids in `blank` written as `#`, but those `named` names,
/// written as it names them.
pub(crate) fn blanked_lines(text: &str, blank: &FxHashSet<i64>, named: &FxHashMap<i64, i64>) -> Vec<String> {
    let body = text.split_once('\n').map_or("", |(_, b)| b);
    body.lines()
        .map(|line| {
            let mut out = String::with_capacity(line.len());
            let mut at = 0;
            for (start, end, id) in local_refs(line) {
                if let Some(name) = named.get(&id) {
                    out.push_str(&line[at..start]);
                    out.push_str(&name.to_string());
                    at = end;
                } else if blank.contains(&id) {
                    out.push_str(&line[at..start]);
                    out.push('#');
                    at = end;
                }
            }
            out.push_str(&line[at..]);
            out
        })
        .collect()
}

/// The deleted and the added objects whose texts are one text.
type Pair = (Vec<i64>, Vec<i64>);

/// What an object is, as compared: class, stripped, an instance's name, identity lines.
type Kind = (i64, bool, Option<String>, Vec<String>);

/// Fields that name what an object is: two objects that differ in one are two objects (a
/// component swapped for one running another script), wherever they sit.
const IDENTITY: [&str; 3] = ["  m_Script:", "  m_Name:", "  m_SourcePrefab:"];

/// Fields naming what an object belongs to: a re-created object still belongs to the same
/// (or the re-created) owner; one that moved elsewhere is another object. A prefab instance
/// belongs to its parent transform, its stripped objects to the instance (an instance deleted
/// and another of the same prefab made elsewhere are two objects).
const OWNERS: [&str; 4] = ["  m_GameObject: ", "  m_Father: ", "    m_TransformParent: ", "  m_PrefabInstance: "];

/// The owners an object's text names, by field.
fn owners(text: &str) -> Vec<(usize, i64)> {
    text.lines()
        .filter_map(|line| {
            let field = OWNERS.iter().position(|k| line.starts_with(k))?;
            local_refs(line).next().map(|r| (field, r.2))
        })
        .collect()
}

/// The class id of a prefab instance.
const PREFAB_INSTANCE: i64 = 1001;

/// A name without the number Unity appends to a duplicate's (`Lamp (2)` is `Lamp`).
fn without_duplicate_number(name: &str) -> &str {
    let Some(open) = name.strip_suffix(')').and_then(|n| n.rfind(" (")) else { return name };
    let number = &name[open + 2..name.len() - 1];
    if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) {
        &name[..open]
    } else {
        name
    }
}

/// A deleted or added object, as compared.
struct Seen<'f> {
    doc: &'f UnityDoc,
    /// Its local references, in order.
    refs: Vec<i64>,
    /// What it belongs to ([`OWNERS`]).
    owners: Vec<(usize, i64)>,
    /// Its body lines, deleted and added ids blanked.
    lines: Vec<String>,
    /// A prefab instance's name (its `m_Name` override), without the ` (2)` Unity appends to
    /// a duplicate's: part of what it is, as a game object's `m_Name` is.
    instance_name: Option<String>,
}

impl Seen<'_> {
    fn identity(&self) -> impl Iterator<Item = &String> {
        self.lines.iter().filter(|l| IDENTITY.iter().any(|k| l.starts_with(k)))
    }

    fn is_like(&self, other: &Seen<'_>) -> bool {
        self.doc.class_id == other.doc.class_id
            && self.doc.stripped == other.doc.stripped
            && self.instance_name == other.instance_name
            && self.identity().eq(other.identity())
    }
}

/// One side's objects that base lacks, and base's that the side lacks.
struct Changed<'f> {
    deleted: FxHashMap<i64, Seen<'f>>,
    added: FxHashMap<i64, Seen<'f>>,
}

impl<'f> Changed<'f> {
    fn new(base: &'f UnityFile<'_>, side: &'f UnityFile<'_>) -> Self {
        let ids = |f: &UnityFile<'_>| f.docs.iter().map(|d| d.file_id).collect::<FxHashSet<i64>>();
        let (base_ids, side_ids) = (ids(base), ids(side));
        let gone = |f: &'f UnityFile<'_>, kept: &FxHashSet<i64>| -> Vec<&'f UnityDoc> {
            f.docs.iter().filter(|d| d.file_id != 0 && !kept.contains(&d.file_id)).collect()
        };
        let (deleted, added) = (gone(base, &side_ids), gone(side, &base_ids));
        let blank: FxHashSet<i64> = deleted.iter().chain(&added).map(|d| d.file_id).collect();
        let seen = |f: &'f UnityFile<'_>, docs: Vec<&'f UnityDoc>| -> FxHashMap<i64, Seen<'f>> {
            docs.into_iter()
                .map(|doc| {
                    let text = f.text(doc.span);
                    let refs = local_refs(text).map(|r| r.2).collect();
                    let instance_name = (doc.class_id == PREFAB_INSTANCE)
                        .then(|| crate::outline::overridden_name(text).map(|n| without_duplicate_number(&n).to_owned()))
                        .flatten();
                    let lines = blanked_lines(text, &blank, &FxHashMap::default());
                    (doc.file_id, Seen { doc, refs, owners: owners(text), lines, instance_name })
                })
                .collect()
        };
        Changed { deleted: seen(base, deleted), added: seen(side, added) }
    }

    /// For each deleted object, the added object it is.
    fn matches(&self) -> FxHashMap<i64, i64> {
        let mut found: FxHashMap<i64, i64> = FxHashMap::default();
        if self.deleted.is_empty() || self.added.is_empty() {
            return found;
        }
        let sorted = |m: &FxHashMap<i64, Seen<'f>>| {
            let mut v: Vec<i64> = m.keys().copied().collect();
            v.sort_unstable();
            v
        };
        let (deleted, added) = (sorted(&self.deleted), sorted(&self.added));
        // Equal texts, one pair to a text.
        let mut by_text: FxHashMap<(i64, bool, &[String]), Pair> = FxHashMap::default();
        for (ids, seen, side) in [(&deleted, &self.deleted, 0), (&added, &self.added, 1)] {
            for id in ids {
                let s = &seen[id];
                let entry = by_text.entry((s.doc.class_id, s.doc.stripped, &s.lines)).or_default();
                if side == 0 { &mut entry.0 } else { &mut entry.1 }.push(*id);
            }
        }
        for (x, y) in by_text.values() {
            if let ([x], [y]) = (x.as_slice(), y.as_slice()) {
                found.insert(*x, *y);
            }
        }
        self.follow_places(&mut found);
        // Alike texts, one match either way: compared only with objects of the same kind, and
        // only while a budget of compared lines lasts (a file re-made whole under new ids
        // is mostly paired by the equal texts above).
        let taken: FxHashSet<i64> = found.values().copied().collect();
        let kind = |s: &Seen<'_>| -> Kind { (s.doc.class_id, s.doc.stripped, s.instance_name.clone(), s.identity().cloned().collect()) };
        let mut open_added: FxHashMap<Kind, Vec<i64>> = FxHashMap::default();
        for y in added.iter().filter(|y| !taken.contains(y)) {
            open_added.entry(kind(&self.added[y])).or_default().push(*y);
        }
        let mut budget = COMPARED_LINES;
        let mut pairs: Vec<(i64, i64)> = Vec::new();
        for x in deleted.iter().filter(|x| !found.contains_key(x)) {
            let xs = &self.deleted[x];
            let Some(candidates) = open_added.get(&kind(xs)) else { continue };
            let lines: FxHashSet<&String> = xs.lines.iter().collect();
            for y in candidates {
                let ys = &self.added[y];
                budget = budget.saturating_sub(ys.lines.len());
                let shared = ys.lines.iter().filter(|l| lines.contains(l)).count();
                if shared as f64 >= ALIKE * xs.lines.len().max(ys.lines.len()) as f64 {
                    pairs.push((*x, *y));
                }
            }
            if budget == 0 {
                break;
            }
        }
        let mut count: FxHashMap<i64, usize> = FxHashMap::default();
        for &(x, y) in &pairs {
            *count.entry(x).or_default() += 1;
            *count.entry(y).or_default() += 1;
        }
        for &(x, y) in &pairs {
            if count[&x] == 1 && count[&y] == 1 {
                found.insert(x, y);
            }
        }
        self.follow_places(&mut found);
        self.keep_owned_alike(&mut found);
        found
    }

    /// Drops the pairs whose objects belong to different owners (an owner counts as the same
    /// when it is the same id or its pair), until every pair left agrees.
    fn keep_owned_alike(&self, found: &mut FxHashMap<i64, i64>) {
        loop {
            let same_owner = |(field, owner): &(usize, i64), y: &Seen<'_>| {
                let now = found.get(owner).copied().unwrap_or(*owner);
                y.owners.iter().any(|(f, o)| f == field && *o == now)
            };
            let moved: Vec<i64> = found
                .iter()
                .filter(|(x, y)| {
                    let (xs, ys) = (&self.deleted[x], &self.added[y]);
                    xs.owners.len() != ys.owners.len() || !xs.owners.iter().all(|o| same_owner(o, ys))
                })
                .map(|(x, _)| *x)
                .collect();
            if moved.is_empty() {
                return;
            }
            for x in moved {
                found.remove(&x);
            }
        }
    }

    /// Objects at the same place in two objects found to be one (same references in the same
    /// order) are one too, when they are alike (until nothing more is found).
    fn follow_places(&self, found: &mut FxHashMap<i64, i64>) {
        let mut queue: Vec<(i64, i64)> = found.iter().map(|(&x, &y)| (x, y)).collect();
        queue.sort_unstable();
        let mut taken: FxHashSet<i64> = found.values().copied().collect();
        while let Some((x, y)) = queue.pop() {
            let (xr, yr) = (&self.deleted[&x].refs, &self.added[&y].refs);
            if xr.len() != yr.len() {
                continue;
            }
            for (a, b) in xr.iter().zip(yr) {
                let (Some(sa), Some(sb)) = (self.deleted.get(a), self.added.get(b)) else { continue };
                if !found.contains_key(a) && !taken.contains(b) && sa.is_like(sb) {
                    found.insert(*a, *b);
                    taken.insert(*b);
                    queue.push((*a, *b));
                }
            }
        }
    }
}

/// Base and each side rewritten with the other side's re-created ids (and base with both);
/// `None` when no side re-created an object.
pub fn align(texts: Sides<&[u8]>) -> Option<Renumbered> {
    if texts.base == texts.ours || texts.base == texts.theirs || texts.ours == texts.theirs {
        return None;
    }
    // Most merges neither delete nor add an object on a side that does both: tell from the
    // headers alone.
    let base_ids: FxHashSet<i64> = document_ids(texts.base).collect();
    let deletes_and_adds = |text: &[u8]| {
        let ids: FxHashSet<i64> = document_ids(text).collect();
        ids.iter().any(|id| !base_ids.contains(id)) && base_ids.iter().any(|id| !ids.contains(id))
    };
    if !deletes_and_adds(texts.ours) && !deletes_and_adds(texts.theirs) {
        return None;
    }
    let files = parse_three(texts)?;
    let ids = |f: &UnityFile<'_>| f.docs.iter().map(|d| d.file_id).collect::<FxHashSet<i64>>();
    let (ours_ids, theirs_ids) = (ids(&files.ours), ids(&files.theirs));
    let mut ours = Changed::new(&files.base, &files.ours).matches();
    let mut theirs = Changed::new(&files.base, &files.theirs).matches();
    // An object the other side deleted stays deleted there (the re-created one is then an
    // addition, kept), and a new id the other side also uses for something else is left alone,
    // unless the other side re-created the object under that id too: it deleted `x` and holds
    // `y`, found to be no other object (fileIDs are drawn at random: one new id on both sides
    // is one object, the same re-creation reached both; one side's copy may have changed
    // too much since to be told from its text).
    let stays = |x: &i64, y: &i64, other_ids: &FxHashSet<i64>, other: &FxHashMap<i64, i64>, other_new: &FxHashSet<i64>| {
        let alike = || !other_ids.contains(x) && other_ids.contains(y) && !other_new.contains(y);
        (other_ids.contains(x) || other.contains_key(x) || alike()) && (!other_ids.contains(y) || other.get(x) == Some(y) || alike())
    };
    let new_ids = |found: &FxHashMap<i64, i64>| found.values().copied().collect::<FxHashSet<i64>>();
    let (ours_new, theirs_new) = (new_ids(&ours), new_ids(&theirs));
    let ours_before = ours.clone();
    ours.retain(|x, y| stays(x, y, &theirs_ids, &theirs, &theirs_new));
    theirs.retain(|x, y| stays(x, y, &ours_ids, &ours_before, &ours_new));
    if ours.is_empty() && theirs.is_empty() {
        return None;
    }
    let mut notes = Vec::new();
    for (side, found) in [(Side::Ours, &ours), (Side::Theirs, &theirs)] {
        let mut pairs: Vec<String> = found.iter().map(|(x, y)| format!("&{x} as &{y}")).collect();
        pairs.sort_unstable();
        if !pairs.is_empty() {
            let shown = levelmerge_core::text::first_of(&pairs, 3);
            notes.push(format!(
                "{side} re-created {} object(s) under new fileIDs ({shown}); the other side's edits of them follow them",
                pairs.len()
            ));
        }
    }
    // Base takes every new id (ours' where both re-created an object); each side takes the
    // other's for what it still has, and theirs gives up its own for an object both re-created.
    let base_map: FxHashMap<i64, i64> = theirs.iter().chain(&ours).map(|(&x, &y)| (x, y)).collect();
    let ours_map: FxHashMap<i64, i64> = theirs.iter().filter(|(x, _)| !ours.contains_key(x)).map(|(&x, &y)| (x, y)).collect();
    let theirs_map: FxHashMap<i64, i64> = ours
        .iter()
        .map(|(&x, &y)| match theirs.get(&x) {
            Some(&t) => (t, y),
            None => (x, y),
        })
        .filter(|(a, b)| a != b)
        .collect();
    let rewritten = |file: &UnityFile<'_>, map: &FxHashMap<i64, i64>| (!map.is_empty()).then(|| rewrite_ids(file, map));
    Some(Renumbered {
        base: rewritten(&files.base, &base_map),
        ours: rewritten(&files.ours, &ours_map),
        theirs: rewritten(&files.theirs, &theirs_map),
        notes,
        restore: false,
    })
}

#[cfg(test)]
mod tests {
    use super::without_duplicate_number;

    #[test]
    fn only_the_number_unity_gives_a_duplicate_is_left_out_of_a_name() {
        assert_eq!(without_duplicate_number("Lamp (2)"), "Lamp");
        assert_eq!(without_duplicate_number("Lamp (12)"), "Lamp");
        assert_eq!(without_duplicate_number("Lamp"), "Lamp");
        assert_eq!(without_duplicate_number("Lamp (blue)"), "Lamp (blue)");
        assert_eq!(without_duplicate_number("Lamp ()"), "Lamp ()");
        assert_eq!(without_duplicate_number("(2)"), "(2)");
    }
}
