//! Unity's `Tilemap` keeps each painted cell (`m_Tiles`) as indices into arrays the map shares
//! (`m_TileAssetArray`, `m_TileSpriteArray`, `m_TileMatrixArray`, `m_TileColorArray`,
//! `m_TileObjectToInstantiateArray`), each entry counting the cells that use it (`m_RefCount`).
//! Two sides that each add a tile asset both append it at one index: merged as lists, the
//! second lands one further while its cells still name the first, and they show the other
//! side's tile.
//!
//! So before the merge every version of a tilemap that changed is read in one numbering
//! ([`aligned`]): the arrays of the side that changed them, then the other side's new entries,
//! all counted 0, and each version's cells naming the slots their entries moved to. The counts
//! are derived data, written again from the merged cells after it ([`recount`]). The rule
//! [`tilemap_problems`] checks every merged map: no cell naming an entry an array does not
//! have, no entry whose count is not the number of cells naming it.

use levelmerge_core::model::ObjectId;
use levelmerge_core::{Problem, Side, Sides};

use crate::parse::{parse, UnityFile, YKind};

/// The class id of `Tilemap`.
pub const TILEMAP_CLASS: i64 = 1_839_735_485;

/// Each index a cell holds and the array it indexes.
const INDEXED: [(&str, &str); 5] = [
    ("m_TileIndex", "m_TileAssetArray"),
    ("m_TileSpriteIndex", "m_TileSpriteArray"),
    ("m_TileMatrixIndex", "m_TileMatrixArray"),
    ("m_TileColorIndex", "m_TileColorArray"),
    ("m_TileObjectToInstantiateIndex", "m_TileObjectToInstantiateArray"),
];

/// The index a cell holds for "none".
const NONE: usize = 65535;

/// The tilemaps of a file whose cells name entries their arrays do not have or do not count:
/// one problem per array, on the tilemap's line, without numbers (a merge of a map that had
/// one keeps it, not a new one).
pub fn tilemap_problems(file: &UnityFile<'_>) -> Vec<Problem> {
    let mut problems = Vec::new();
    for map in tilemaps(file).unwrap_or_default() {
        for (array, (_, array_key)) in map.arrays.iter().zip(INDEXED) {
            let miscounted = array.entries.iter().zip(&array.uses).any(|(entry, used)| entry.count.is_some_and(|n| n != *used));
            let message = if array.beyond {
                format!("a tile of m_Tiles names an entry {array_key} does not have")
            } else if miscounted {
                format!("{array_key} does not count the tiles of m_Tiles that use its entries")
            } else {
                continue;
            };
            problems.push(Problem::Inconsistent { object: ObjectId::new(map.file_id.to_string()), message, line: map.line as usize });
        }
    }
    problems
}

/// One entry of a tilemap array as written: its item node, its `m_Data` (spaces taken out;
/// `None` for a slot Unity freed), and the node and number of its `m_RefCount`.
struct Entry {
    item: u32,
    data: Option<String>,
    count_node: Option<u32>,
    count: Option<usize>,
}

/// One array of a tilemap as written: its node, its entries, how many cells name each, and
/// whether a cell names an entry it does not have.
struct Array {
    node: u32,
    entries: Vec<Entry>,
    uses: Vec<usize>,
    beyond: bool,
}

/// A tilemap document as written: its fileID and line, its cells, and its arrays (in the
/// order of [`INDEXED`]).
struct Tilemap {
    file_id: i64,
    line: u32,
    cells: Vec<u32>,
    arrays: Vec<Array>,
}

impl Tilemap {
    /// Whether every cell names entries its arrays have, every entry counts the cells naming
    /// it (with a number: a count that is none is not rewritten), and no array holds one thing
    /// twice (its cells would be told apart by index alone).
    fn counted_right(&self) -> bool {
        let counted = self
            .arrays
            .iter()
            .all(|a| !a.beyond && a.entries.iter().zip(&a.uses).all(|(e, used)| e.count_node.is_none() || e.count == Some(*used)));
        counted
            && (0..self.arrays.len()).all(|k| {
                let held: Vec<&str> = self.identities(k).into_iter().flatten().collect();
                held.iter().enumerate().all(|(i, id)| !held[..i].contains(id))
            })
    }

    /// The `m_Data` of each entry of array `k`, in order.
    fn identities(&self, k: usize) -> Vec<Option<&str>> {
        self.arrays[k].entries.iter().map(|e| e.data.as_deref()).collect()
    }
}

fn number(file: &UnityFile<'_>, node: u32) -> Option<usize> {
    file.text(file.nodes[node as usize].span).trim().parse().ok()
}

/// The index node of array `k` in a cell.
fn cell_index(file: &UnityFile<'_>, cell: u32, k: usize) -> Option<u32> {
    file.get(file.get(cell, "second")?, INDEXED[k].0)
}

/// The tilemaps of a file; `None` where an array is not a list, or two tilemaps share a
/// fileID.
fn tilemaps(file: &UnityFile<'_>) -> Option<Vec<Tilemap>> {
    let mut maps = Vec::new();
    for doc in file.docs.iter().filter(|d| d.class_id == TILEMAP_CLASS && !d.stripped) {
        let Some(fields) = file.fields(doc) else { continue };
        let cells = file.get(fields, "m_Tiles").map_or(&[][..], |c| file.items_of(c)).to_vec();
        let mut arrays = Vec::new();
        for (k, (_, array_key)) in INDEXED.iter().enumerate() {
            let node = file.get(fields, array_key).filter(|&n| matches!(file.nodes[n as usize].kind, YKind::Seq | YKind::FlowSeq))?;
            let entries: Vec<Entry> = file
                .items_of(node)
                .iter()
                .map(|&item| {
                    let data: String = file
                        .get(item, "m_Data")
                        .map_or("", |d| file.text(file.nodes[d as usize].span))
                        .chars()
                        .filter(|c| !c.is_whitespace())
                        .collect();
                    let count_node = file.get(item, "m_RefCount");
                    Entry {
                        item,
                        data: (data != "{fileID:0}").then_some(data),
                        count_node,
                        count: count_node.and_then(|n| number(file, n)),
                    }
                })
                .collect();
            let (mut uses, mut beyond) = (vec![0usize; entries.len()], false);
            for &cell in &cells {
                let Some(index) = cell_index(file, cell, k).and_then(|n| number(file, n)) else { continue };
                match uses.get_mut(index) {
                    Some(used) => *used += 1,
                    None => beyond |= index != NONE,
                }
            }
            arrays.push(Array { node, entries, uses, beyond });
        }
        maps.push(Tilemap { file_id: doc.file_id, line: doc.line, cells, arrays });
    }
    // One tilemap under one fileID: a file listing one twice is left as it is.
    let mut ids: Vec<i64> = maps.iter().map(|m| m.file_id).collect();
    ids.sort_unstable();
    ids.windows(2).all(|w| w[0] != w[1]).then_some(maps)
}

/// A merged text with its tilemaps' counts written from the cells naming each entry; the text
/// as it is where it cannot be read, or a cell names an entry an array does not have (the
/// merge's check refuses that).
pub fn recount(text: Vec<u8>) -> Vec<u8> {
    let Ok(file) = parse(&text) else { return text };
    let Some(maps) = tilemaps(&file).filter(|maps| maps.iter().all(|m| m.arrays.iter().all(|a| !a.beyond))) else { return text };
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for array in maps.iter().flat_map(|m| &m.arrays) {
        for (entry, used) in array.entries.iter().zip(&array.uses) {
            let Some(node) = entry.count_node else { continue };
            let span = file.nodes[node as usize].span;
            if file.text(span).trim() != used.to_string() {
                edits.push((span.0 as usize, span.1 as usize, used.to_string()));
            }
        }
    }
    if edits.is_empty() {
        return text;
    }
    levelmerge_core::text::splice(file.src, edits).into_bytes()
}

/// One array as the three versions are read: which version's entry each slot holds.
struct Layout {
    /// Per slot, the version and entry whose item is written there.
    slots: Vec<(Side, usize)>,
    /// Per version, the slot each of its entries moves to (`None`: a freed slot).
    moved: Sides<Vec<Option<usize>>>,
}

/// The slots of one array: those of `target` (the side whose array changed; ours where both
/// did), then the entries of the other side that `target` lacks and that it added or that
/// cells it painted name (`painted`). An entry no slot holds (one `target` dropped that no
/// cell the other side painted names) gets a number past the slots, one per entry, which a
/// merged cell keeping it shows as a cell naming no entry.
fn layout(maps: &Sides<&Tilemap>, k: usize, target: Side, painted: &[&str]) -> Layout {
    let ids = maps.as_ref().map(|_, m| m.identities(k));
    let other = if target == Side::Ours { Side::Theirs } else { Side::Ours };
    let mut slots: Vec<(Side, usize)> = (0..ids.get(target).len()).map(|i| (target, i)).collect();
    let mut held: Vec<Option<&str>> = ids.get(target).clone();
    for (i, id) in ids.get(other).iter().enumerate() {
        let wanted = id.is_some_and(|id| !ids.base.contains(&Some(id)) || painted.contains(&id));
        if wanted && !held.contains(id) {
            slots.push((other, i));
            held.push(*id);
        }
    }
    let mut dropped: Vec<&str> = Vec::new();
    let moved = ids.as_ref().map(|_, list| {
        list.iter()
            .map(|id| {
                let id = (*id)?;
                Some(held.iter().position(|h| *h == Some(id)).unwrap_or_else(|| {
                    let at = dropped.iter().position(|d| *d == id).unwrap_or_else(|| {
                        dropped.push(id);
                        dropped.len() - 1
                    });
                    slots.len() + at
                }))
            })
            .collect()
    });
    Layout { slots, moved }
}

/// The three versions with each tilemap they all hold read in one numbering of its arrays
/// (the changed side's slots, then the other side's new entries): every version writes the same arrays, counted 0, and its cells name the slots
/// their entries moved to; the merge then counts them again ([`recount`], as
/// `Codec::restore`). Only where a tilemap differs between the versions, each version counts
/// its cells right, and a version's arrays are lists; `None` where nothing is rewritten.
pub fn aligned(texts: Sides<&[u8]>) -> Option<Sides<Vec<u8>>> {
    let finder = memchr::memmem::Finder::new(b"m_TileAssetArray");
    if finder.find(texts.ours).is_none() && finder.find(texts.theirs).is_none() {
        return None;
    }
    let files = Sides::new(parse(texts.base).ok()?, parse(texts.ours).ok()?, parse(texts.theirs).ok()?);
    let maps = Sides::new(tilemaps(&files.base)?, tilemaps(&files.ours)?, tilemaps(&files.theirs)?);
    if ![&maps.base, &maps.ours, &maps.theirs].iter().all(|maps| maps.iter().all(Tilemap::counted_right)) {
        return None;
    }
    let (mut base_edits, mut ours_edits, mut theirs_edits) = (Vec::new(), Vec::new(), Vec::new());
    for base_map in &maps.base {
        let find = |side: &[Tilemap]| side.iter().position(|m| m.file_id == base_map.file_id);
        let (Some(o), Some(t)) = (find(&maps.ours), find(&maps.theirs)) else { continue };
        let these = Sides::new(base_map, &maps.ours[o], &maps.theirs[t]);
        let doc_text = |side: Side| {
            let file = files.get(side);
            file.docs.iter().find(|d| d.class_id == TILEMAP_CLASS && d.file_id == base_map.file_id).map(|d| file.text(d.span))
        };
        if doc_text(Side::Ours) == doc_text(Side::Base) && doc_text(Side::Theirs) == doc_text(Side::Base) {
            continue;
        }
        let changed = |side: Side| (0..INDEXED.len()).any(|k| these.get(side).identities(k) != these.base.identities(k));
        let target = if changed(Side::Ours) || !changed(Side::Theirs) { Side::Ours } else { Side::Theirs };
        let other = if target == Side::Ours { Side::Theirs } else { Side::Ours };
        for k in 0..INDEXED.len() {
            let painted = painted_entries(&files, &these, k, other);
            let layout = layout(&these, k, target, &painted);
            let written = array_text(&files, &these, k, &layout.slots)?;
            for (side, edits) in [(Side::Base, &mut base_edits), (Side::Ours, &mut ours_edits), (Side::Theirs, &mut theirs_edits)] {
                let (file, map) = (files.get(side), these.get(side));
                let array = &map.arrays[k];
                edits.push(array_edit(file, array.node, &written)?);
                for &cell in &map.cells {
                    let Some(node) = cell_index(file, cell, k) else { continue };
                    let Some(index) = number(file, node).filter(|i| *i != NONE) else { continue };
                    let moved = layout.moved.get(side)[index]?;
                    if moved != index {
                        let span = file.nodes[node as usize].span;
                        edits.push((span.0 as usize, span.1 as usize, moved.to_string()));
                    }
                }
            }
        }
    }
    if base_edits.is_empty() {
        return None;
    }
    // Edits that meet (a tilemap listed twice under one fileID, a broken file) are not made.
    let apart = |edits: &mut Vec<(usize, usize, String)>| {
        edits.sort_by_key(|e| e.0);
        edits.windows(2).all(|w| w[0].1 <= w[1].0)
    };
    if !(apart(&mut base_edits) && apart(&mut ours_edits) && apart(&mut theirs_edits)) {
        return None;
    }
    let write = |file: &UnityFile<'_>, edits| levelmerge_core::text::splice(file.src, edits).into_bytes();
    Some(Sides::new(write(&files.base, base_edits), write(&files.ours, ours_edits), write(&files.theirs, theirs_edits)))
}

/// The entries of array `k` that cells `side` painted name: cells at a place where base has
/// no cell or one naming another entry.
fn painted_entries<'m>(files: &Sides<UnityFile<'_>>, maps: &Sides<&'m Tilemap>, k: usize, side: Side) -> Vec<&'m str> {
    // Each cell's place (spaces taken out) and the entry it names.
    let cells = |side: Side| -> Vec<(String, Option<&'m str>)> {
        let (file, map) = (files.get(side), *maps.get(side));
        map.cells
            .iter()
            .filter_map(|&cell| {
                let place = file.text(file.nodes[file.get(cell, "first")? as usize].span).chars().filter(|c| !c.is_whitespace()).collect();
                let index = cell_index(file, cell, k).and_then(|n| number(file, n))?;
                Some((place, map.arrays[k].entries.get(index).and_then(|e| e.data.as_deref())))
            })
            .collect()
    };
    let base = cells(Side::Base);
    cells(side).into_iter().filter(|cell| !base.contains(cell)).filter_map(|(_, entry)| entry).collect()
}

/// The items of an array laid out as `slots` say, each counted 0, as a block list's text after
/// its first `- ` (`None` for no slot: the array is then written `[]`).
fn array_text(files: &Sides<UnityFile<'_>>, maps: &Sides<&Tilemap>, k: usize, slots: &[(Side, usize)]) -> Option<Option<String>> {
    if slots.is_empty() {
        return Some(None);
    }
    let newline = if files.ours.crlf { "\r\n" } else { "\n" };
    let items: Option<Vec<String>> = slots
        .iter()
        .map(|&(side, i)| {
            let (file, entry) = (files.get(side), &maps.get(side).arrays[k].entries[i]);
            let item = file.nodes[entry.item as usize].span;
            let count = file.nodes[entry.count_node? as usize].span;
            Some(format!("{}0{}", &file.src[item.0 as usize..count.0 as usize], &file.src[count.1 as usize..item.1 as usize]))
        })
        .collect();
    Some(Some(items?.join(&format!("{newline}  - "))))
}

/// The edit writing `written` (see [`array_text`]) as the array at `node`.
fn array_edit(file: &UnityFile<'_>, node: u32, written: &Option<String>) -> Option<(usize, usize, String)> {
    let span = file.nodes[node as usize].span;
    let newline = if file.crlf { "\r\n" } else { "\n" };
    let is_empty_flow = file.text(span).trim() == "[]";
    Some(match (written, is_empty_flow) {
        (Some(items), false) => (span.0 as usize, span.1 as usize, format!("- {items}")),
        (None, true) => (span.0 as usize, span.1 as usize, "[]".to_owned()),
        // `key: []` becomes `key:` and the list on the lines below, and back.
        (Some(items), true) => {
            let key = file.entries.get(*file.entry_of.get(node as usize)? as usize)?.key;
            (key.1 as usize, span.1 as usize, format!(":{newline}  - {items}"))
        }
        (None, false) => {
            let key = file.entries.get(*file.entry_of.get(node as usize)? as usize)?.key;
            (key.1 as usize, span.1 as usize, ": []".to_owned())
        }
    })
}
