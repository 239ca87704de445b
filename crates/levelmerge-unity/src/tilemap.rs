//! Unity's `Tilemap` keeps each painted cell (`m_Tiles`) as indices into arrays the map shares
//! (`m_TileAssetArray`, `m_TileSpriteArray`, `m_TileMatrixArray`, `m_TileColorArray`,
//! `m_TileObjectToInstantiateArray`), each entry counting the cells that use it (`m_RefCount`).
//! Two sides that each add a tile asset both append it at one index: merged as lists, the
//! second lands one further while its cells still name the first, and they show the other
//! side's tile. The rule here finds that in the merged map: a cell naming an entry an array
//! does not have, or an entry whose count is not the number of cells naming it.
//!
//! The counts are derived data: where the two sides' arrays agree on every index both have
//! (each entry means the same on both sides), the counts of all three versions are written as
//! 0 before the merge ([`uncounted`]), so that two sides painting with one asset do not both
//! change its count, and counted again from the merged cells after it ([`recount`]). Where the
//! arrays disagree (both sides added an asset at one index) they are merged as they are, and
//! the rule refuses what that leaves.

use levelmerge_core::model::{Level, Value, ValueKind};
use levelmerge_core::{Problem, Sides};

use crate::parse::{parse, UnityFile};

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

/// The items of a list: a plain one, or one read as a map by its items' identities (cells by
/// their place); `{}`, an empty one, holds none. `None` for anything else.
fn items<'v, 'a>(value: &'v Value<'a>) -> Option<Vec<&'v Value<'a>>> {
    match &value.kind {
        ValueKind::List(items) => Some(items.iter().collect()),
        ValueKind::Map(entries) => Some(entries.iter().map(|(_, item)| item).collect()),
        _ => None,
    }
}

fn number(value: &Value<'_>) -> Option<usize> {
    value.raw.trim().parse().ok()
}

/// The tilemaps of a level whose cells name entries their arrays do not have or do not count:
/// one problem per array, on the tilemap's line, without numbers (a merge of a map that had
/// one keeps it, not a new one).
pub fn tilemap_problems(level: &Level<'_>, problems: &mut Vec<Problem>) {
    for map in level.objects.values().filter(|o| o.kind == "Tilemap") {
        let Some(fields) = map.props.get(&map.kind) else { continue };
        let Some(cells) = fields.get("m_Tiles").and_then(items) else { continue };
        for (index_key, array_key) in INDEXED {
            let Some(entries) = fields.get(array_key).and_then(items) else { continue };
            let mut uses = vec![0usize; entries.len()];
            let mut beyond = false;
            for cell in &cells {
                let Some(index) = cell.get("second").and_then(|s| s.get(index_key)).and_then(number) else { continue };
                match uses.get_mut(index) {
                    Some(used) => *used += 1,
                    None => beyond |= index != NONE,
                }
            }
            let miscounted =
                entries.iter().zip(&uses).any(|(entry, used)| entry.get("m_RefCount").and_then(number).is_some_and(|n| n != *used));
            let message = if beyond {
                format!("a tile of m_Tiles names an entry {array_key} does not have")
            } else if miscounted {
                format!("{array_key} does not count the tiles of m_Tiles that use its entries")
            } else {
                continue;
            };
            problems.push(Problem::Inconsistent { object: map.id.clone(), message, line: map.line as usize });
        }
    }
}

/// One entry of a tilemap array as written: its `m_Data` (spaces taken out), and the node and
/// number of its `m_RefCount`.
struct Entry {
    data: String,
    count_node: Option<u32>,
    count: Option<usize>,
}

/// A tilemap's arrays as written (in the order of [`INDEXED`]), and how many cells name each
/// entry.
struct Arrays {
    entries: Vec<Vec<Entry>>,
    uses: Vec<Vec<usize>>,
}

impl Arrays {
    /// Whether every entry counts the cells naming it.
    fn counted_right(&self) -> bool {
        self.entries
            .iter()
            .zip(&self.uses)
            .all(|(entries, uses)| entries.iter().zip(uses).all(|(e, used)| e.count.is_none_or(|c| c == *used)))
    }
}

/// The arrays of each tilemap of a file, by fileID; `None` where a cell names an entry an
/// array does not have.
fn tilemaps(file: &UnityFile<'_>) -> Option<Vec<(i64, Arrays)>> {
    let number = |node: u32| file.text(file.nodes[node as usize].span).trim().parse::<usize>().ok();
    let mut maps = Vec::new();
    for doc in file.docs.iter().filter(|d| d.class_id == TILEMAP_CLASS && !d.stripped) {
        let Some(fields) = file.fields(doc) else { continue };
        let cells = file.get(fields, "m_Tiles").map_or(&[][..], |c| file.items_of(c));
        let mut arrays = Arrays { entries: Vec::new(), uses: Vec::new() };
        for (index_key, array_key) in INDEXED {
            let items = file.get(fields, array_key).map_or(&[][..], |a| file.items_of(a));
            let entries: Vec<Entry> = items
                .iter()
                .map(|&item| {
                    let data = file.get(item, "m_Data").map_or("", |d| file.text(file.nodes[d as usize].span));
                    let count_node = file.get(item, "m_RefCount");
                    Entry { data: data.chars().filter(|c| !c.is_whitespace()).collect(), count_node, count: count_node.and_then(number) }
                })
                .collect();
            let mut uses = vec![0usize; entries.len()];
            for &cell in cells {
                let Some(index) = file.get(cell, "second").and_then(|s| file.get(s, index_key)).and_then(number) else { continue };
                match uses.get_mut(index) {
                    Some(used) => *used += 1,
                    None if index == NONE => {}
                    None => return None,
                }
            }
            arrays.entries.push(entries);
            arrays.uses.push(uses);
        }
        maps.push((doc.file_id, arrays));
    }
    Some(maps)
}

/// `file` with each count of its tilemaps' arrays written as `count` gives it from the number
/// of cells naming the entry; `None` where nothing changes.
fn with_counts(file: &UnityFile<'_>, maps: &[(i64, Arrays)], count: impl Fn(usize) -> usize) -> Option<Vec<u8>> {
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for (_, arrays) in maps {
        for (entries, uses) in arrays.entries.iter().zip(&arrays.uses) {
            for (entry, used) in entries.iter().zip(uses) {
                let Some(node) = entry.count_node else { continue };
                let span = file.nodes[node as usize].span;
                let wanted = count(*used).to_string();
                if file.text(span).trim() != wanted {
                    edits.push((span.0 as usize, span.1 as usize, wanted));
                }
            }
        }
    }
    (!edits.is_empty()).then(|| levelmerge_core::text::splice(file.src, edits).into_bytes())
}

/// The three versions with their tilemaps' counts written as 0, where some version has a
/// tilemap, every version counts its cells right, and, for each tilemap both sides have, the
/// two sides' arrays agree on every index both have. `None` where not.
pub fn uncounted(texts: Sides<&[u8]>) -> Option<Sides<Vec<u8>>> {
    let finder = memchr::memmem::Finder::new(b"m_TileAssetArray");
    if finder.find(texts.ours).is_none() && finder.find(texts.theirs).is_none() {
        return None;
    }
    let files = Sides::new(parse(texts.base).ok()?, parse(texts.ours).ok()?, parse(texts.theirs).ok()?);
    // Only where a tilemap changes: the others merge as they are.
    let tilemap_texts = |file: &UnityFile<'_>| -> Vec<(i64, String)> {
        file.docs.iter().filter(|d| d.class_id == TILEMAP_CLASS).map(|d| (d.file_id, file.text(d.span).to_owned())).collect()
    };
    let base_maps = tilemap_texts(&files.base);
    if tilemap_texts(&files.ours) == base_maps && tilemap_texts(&files.theirs) == base_maps {
        return None;
    }
    let maps = Sides::new(tilemaps(&files.base)?, tilemaps(&files.ours)?, tilemaps(&files.theirs)?);
    if ![&maps.base, &maps.ours, &maps.theirs].iter().all(|maps| maps.iter().all(|(_, a)| a.counted_right())) {
        return None;
    }
    for (id, ours) in &maps.ours {
        let Some((_, theirs)) = maps.theirs.iter().find(|(t, _)| t == id) else { continue };
        let agree = ours.entries.iter().zip(&theirs.entries).all(|(o, t)| o.iter().zip(t).all(|(o, t)| o.data == t.data));
        if !agree {
            return None;
        }
    }
    let zeroed = |side| {
        let (file, maps) = (files.get(side), maps.get(side));
        with_counts(file, maps, |_| 0).unwrap_or_else(|| file.src.as_bytes().to_vec())
    };
    Some(Sides::new(zeroed(levelmerge_core::Side::Base), zeroed(levelmerge_core::Side::Ours), zeroed(levelmerge_core::Side::Theirs)))
}

/// A merged text with its tilemaps' counts written from the cells naming each entry; the text
/// as it is where it cannot be read, or a cell names an entry an array does not have (the
/// merge's check refuses that).
pub fn recount(text: Vec<u8>) -> Vec<u8> {
    let Ok(file) = parse(&text) else { return text };
    let Some(maps) = tilemaps(&file) else { return text };
    with_counts(&file, &maps, |used| used).unwrap_or(text)
}
