//! Unity tilemaps: cells name entries of arrays the map shares, each entry counting the cells
//! that use it. A merge that leaves a cell naming another tile than the one its side painted,
//! or a count that is wrong, is refused, never written with exit 0.

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{check_text, merge_texts, MergeError, MergeOutcome, Options, Sides};
use levelmerge_testutils::laws::merge_keeping_the_laws;
use levelmerge_unity::UnityCodec;
use proptest::prelude::*;

/// A scene holding one tilemap: each cell `(x, asset)` shows the asset (and sprite) of that
/// index; `assets` are the guids of the tile assets in array order (`None`: a slot freed when
/// its last cell was erased, which Unity keeps), each counted from the cells.
fn tilemap_with_free_slots(cells: &[(i32, usize)], assets: &[Option<&str>]) -> String {
    let mut text = String::from(
        "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!1 &100\nGameObject:\n  m_ObjectHideFlags: 0\n  serializedVersion: 6\n  m_Component:\n  - component: {fileID: 101}\n  - component: {fileID: 102}\n  m_Layer: 0\n  m_Name: Ground\n  m_IsActive: 1\n--- !u!4 &101\nTransform:\n  m_ObjectHideFlags: 0\n  m_GameObject: {fileID: 100}\n  m_LocalPosition: {x: 0, y: 0, z: 0}\n  m_Children: []\n  m_Father: {fileID: 0}\n--- !u!1839735485 &102\nTilemap:\n  m_ObjectHideFlags: 0\n  m_GameObject: {fileID: 100}\n  m_Enabled: 1\n",
    );
    text += if cells.is_empty() { "  m_Tiles: {}\n" } else { "  m_Tiles:\n" };
    for (x, asset) in cells {
        text += &format!(
            "  - first: {{x: {x}, y: 0, z: 0}}\n    second:\n      serializedVersion: 2\n      m_TileIndex: {asset}\n      m_TileSpriteIndex: {asset}\n      m_TileMatrixIndex: 0\n      m_TileColorIndex: 0\n      m_TileObjectToInstantiateIndex: 65535\n      dummyAlignment: 0\n      m_AllTileFlags: 1073741825\n"
        );
    }
    let uses = |i: usize| cells.iter().filter(|(_, a)| *a == i).count();
    text += "  m_AnimatedTiles: {}\n";
    for (array, file_id, kind) in [("m_TileAssetArray", 11400000, 2), ("m_TileSpriteArray", 21300000, 3)] {
        text += &format!("  {array}:\n");
        for (i, guid) in assets.iter().enumerate() {
            text += &match guid {
                Some(guid) => format!("  - m_RefCount: {}\n    m_Data: {{fileID: {file_id}, guid: {guid}, type: {kind}}}\n", uses(i)),
                None => "  - m_RefCount: 0\n    m_Data: {fileID: 0}\n".to_owned(),
            };
        }
    }
    let n = cells.len();
    text += &format!("  m_TileMatrixArray:\n  - m_RefCount: {n}\n    m_Data:\n      e00: 1\n      e11: 1\n  m_TileColorArray:\n  - m_RefCount: {n}\n    m_Data: {{r: 1, g: 1, b: 1, a: 1}}\n  m_TileObjectToInstantiateArray: []\n  m_Origin: {{x: 0, y: 0, z: 0}}\n  m_Size: {{x: 8, y: 1, z: 1}}\n");
    text
}

/// [`tilemap_with_free_slots`] without free slots.
fn tilemap(cells: &[(i32, usize)], assets: &[&str]) -> String {
    tilemap_with_free_slots(cells, &assets.iter().map(|a| Some(*a)).collect::<Vec<_>>())
}

const GRASS: &str = "aaaa0000000000000000000000000001";
const STONE: &str = "aaaa0000000000000000000000000002";
const WATER: &str = "aaaa0000000000000000000000000003";
const SAND: &str = "aaaa0000000000000000000000000004";

fn merge(b: &str, o: &str, t: &str) -> Result<MergeOutcome, MergeError> {
    merge_texts(&UnityCodec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &MarkerStyle::default())
}

#[test]
fn both_sides_adding_a_tile_asset_at_one_index_keep_their_tiles() {
    let base = tilemap(&[(0, 0), (1, 1)], &[GRASS, STONE]);
    let ours = tilemap(&[(0, 0), (1, 1), (2, 2)], &[GRASS, STONE, WATER]);
    let theirs = tilemap(&[(0, 0), (1, 1), (3, 2)], &[GRASS, STONE, SAND]);
    // Theirs' sand moves past ours' water, and theirs' cell with it.
    let merged = merge(&base, &ours, &theirs).expect("a clean merge");
    assert_eq!(merged.open_conflicts, 0);
    let text = String::from_utf8(merged.text).unwrap();
    assert_eq!(text, tilemap(&[(0, 0), (1, 1), (2, 2), (3, 3)], &[GRASS, STONE, WATER, SAND]));
}

#[test]
fn a_tile_both_sides_reuse_one_freed_slot_for_stays_apart() {
    // Theirs erased the only grass cell (its slot freed) and painted water there; ours painted
    // another grass cell.
    let base = tilemap(&[(0, 0), (1, 1)], &[GRASS, STONE]);
    let ours = tilemap(&[(0, 0), (1, 1), (2, 0)], &[GRASS, STONE]);
    let theirs = tilemap(&[(1, 1), (3, 0)], &[WATER, STONE]);
    // Theirs' array (the one that changed) is kept; ours' grass, which it dropped, comes after.
    let merged = merge(&base, &ours, &theirs).expect("a clean merge");
    let text = String::from_utf8(merged.text).unwrap();
    assert_eq!(text, tilemap(&[(1, 1), (2, 2), (3, 0)], &[WATER, STONE, GRASS]));
}

#[test]
fn painting_with_an_asset_the_other_side_removed_keeps_it() {
    // Ours erased every stone cell (its slot freed, then taken by water); theirs painted stone.
    let base = tilemap(&[(0, 0), (1, 1)], &[GRASS, STONE]);
    let ours = tilemap(&[(0, 0), (2, 1)], &[GRASS, WATER]);
    let theirs = tilemap(&[(0, 0), (1, 1), (3, 1)], &[GRASS, STONE]);
    let merged = merge(&base, &ours, &theirs).expect("a clean merge");
    let text = String::from_utf8(merged.text).unwrap();
    assert_eq!(text, tilemap(&[(0, 0), (2, 1), (3, 2)], &[GRASS, WATER, STONE]));
}

#[test]
fn one_side_adding_an_asset_beside_the_other_painting_with_one_it_has_merges_clean() {
    let base = tilemap(&[(0, 0), (1, 1)], &[GRASS, STONE]);
    let ours = tilemap(&[(0, 0), (1, 1), (2, 2)], &[GRASS, STONE, WATER]);
    let theirs = tilemap(&[(0, 0), (1, 1), (3, 0)], &[GRASS, STONE]);
    let merged = merge(&base, &ours, &theirs).expect("a clean merge");
    assert_eq!(merged.open_conflicts, 0);
    let text = String::from_utf8(merged.text).unwrap();
    assert_eq!(text, tilemap(&[(0, 0), (1, 1), (2, 2), (3, 0)], &[GRASS, STONE, WATER]));
    assert!(check_text(&UnityCodec, text.as_bytes()).is_empty());
}

#[test]
fn a_merge_is_checked_with_its_counts_recounted() {
    // Theirs erased every cell (both slots freed); ours painted grass once more. The merge is
    // made with the counts left as the versions wrote them and checked once they are counted
    // again: a check before would find them wrong and refuse a sound merge.
    let base = tilemap(&[(0, 0), (1, 1)], &[GRASS, STONE]);
    let ours = tilemap(&[(0, 0), (1, 1), (2, 0)], &[GRASS, STONE]);
    let theirs = tilemap_with_free_slots(&[], &[None, None]);
    let merged = merge(&base, &ours, &theirs).expect("a clean merge");
    assert_eq!(merged.open_conflicts, 0);
    let text = String::from_utf8(merged.text).unwrap();
    assert_eq!(text, tilemap_with_free_slots(&[(2, 2)], &[None, None, Some(GRASS)]));
}

#[test]
fn check_reports_a_tilemap_whose_counts_or_indices_are_wrong() {
    let sound = tilemap(&[(0, 0), (1, 1)], &[GRASS, STONE]);
    assert!(check_text(&UnityCodec, sound.as_bytes()).is_empty());
    let miscounted =
        sound.replacen("  - m_RefCount: 1\n    m_Data: {fileID: 11400000", "  - m_RefCount: 2\n    m_Data: {fileID: 11400000", 1);
    let told: Vec<String> = check_text(&UnityCodec, miscounted.as_bytes()).iter().map(ToString::to_string).collect();
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains("m_TileAssetArray does not count the tiles of m_Tiles that use its entries"), "{told:?}");
    let beyond = sound.replacen("m_TileColorIndex: 0", "m_TileColorIndex: 4", 1);
    let told: Vec<String> = check_text(&UnityCodec, beyond.as_bytes()).iter().map(ToString::to_string).collect();
    assert!(told.iter().any(|p| p.contains("a tile of m_Tiles names an entry m_TileColorArray does not have")), "{told:?}");
}

/// A tilemap as Unity keeps it: each asset in an array slot (freed when its last cell is
/// erased, and taken again by the next new asset), and each painted cell's asset.
#[derive(Debug, Clone)]
struct Painting {
    slots: Vec<Option<String>>,
    cells: std::collections::BTreeMap<i32, String>,
}

#[derive(Debug, Clone)]
enum TileEdit {
    /// Paint cell `x` with asset `asset` of the palette (which may not be in the map yet).
    Paint {
        x: i32,
        asset: usize,
    },
    Erase {
        x: i32,
    },
}

const PALETTE: [&str; 5] = [GRASS, STONE, WATER, SAND, "aaaa0000000000000000000000000005"];

impl Painting {
    fn base() -> Painting {
        Painting {
            slots: vec![Some(GRASS.to_owned()), Some(STONE.to_owned())],
            cells: [(0, GRASS.to_owned()), (1, STONE.to_owned())].into(),
        }
    }

    fn apply(&mut self, edit: &TileEdit) {
        match *edit {
            TileEdit::Paint { x, asset } => {
                let guid = PALETTE[asset % PALETTE.len()].to_owned();
                if !self.slots.contains(&Some(guid.clone())) {
                    match self.slots.iter().position(Option::is_none) {
                        Some(free) => self.slots[free] = Some(guid.clone()),
                        None => self.slots.push(Some(guid.clone())),
                    }
                }
                self.cells.insert(x, guid);
            }
            TileEdit::Erase { x } => {
                if let Some(guid) = self.cells.remove(&x) {
                    if !self.cells.values().any(|g| *g == guid) {
                        let slot = self.slots.iter().position(|s| s.as_deref() == Some(&guid)).unwrap();
                        self.slots[slot] = None;
                    }
                }
            }
        }
    }

    fn text(&self) -> String {
        let index = |guid: &String| self.slots.iter().position(|s| s.as_ref() == Some(guid)).unwrap();
        let cells: Vec<(i32, usize)> = self.cells.iter().map(|(x, g)| (*x, index(g))).collect();
        let slots: Vec<Option<&str>> = self.slots.iter().map(Option::as_deref).collect();
        tilemap_with_free_slots(&cells, &slots)
    }
}

/// Each cell's asset guid as a tilemap text says it, and whether its arrays count its cells.
fn painted(text: &str) -> Result<std::collections::BTreeMap<i32, String>, String> {
    if !check_text(&UnityCodec, text.as_bytes()).is_empty() {
        return Err(format!("{:?}", check_text(&UnityCodec, text.as_bytes())));
    }
    let slots: Vec<&str> = text
        .split("  m_TileAssetArray:\n")
        .nth(1)
        .ok_or("no asset array")?
        .split("  m_TileSpriteArray:")
        .next()
        .unwrap_or("")
        .lines()
        .filter(|l| l.trim_start().starts_with("m_Data"))
        .map(|l| l.split("guid: ").nth(1).map_or("", |g| &g[..32]))
        .collect();
    let mut cells = std::collections::BTreeMap::new();
    for cell in text.split("  - first: {x: ").skip(1) {
        let x: i32 = cell[..cell.find(',').unwrap()].parse().unwrap();
        let index: usize = cell.split("m_TileIndex: ").nth(1).unwrap().lines().next().unwrap().parse().unwrap();
        cells.insert(x, slots.get(index).ok_or(format!("cell {x} names slot {index}"))?.to_string());
    }
    Ok(cells)
}

fn tile_edits() -> impl Strategy<Value = Vec<TileEdit>> {
    let edit = prop_oneof![
        3 => ((0i32..6), (0usize..5)).prop_map(|(x, asset)| TileEdit::Paint { x, asset }),
        1 => (0i32..6).prop_map(|x| TileEdit::Erase { x }),
    ];
    prop::collection::vec(edit, 0..6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Both sides paint and erase cells, taking freed slots again: the merge keeps the laws, a
    /// conflict (or a merge refused) comes only from a cell both changed otherwise, and a clean
    /// merge shows every cell as the side that changed it left it (base's where neither did),
    /// counted right.
    #[test]
    fn tilemap_painting_on_both_sides_keeps_every_tile(ours_edits in tile_edits(), theirs_edits in tile_edits()) {
        let base = Painting::base();
        let side = |edits: &[TileEdit]| {
            let mut map = base.clone();
            edits.iter().for_each(|e| map.apply(e));
            map
        };
        let (ours, theirs) = (side(&ours_edits), side(&theirs_edits));
        let (b, x, y) = (base.text(), ours.text(), theirs.text());
        let both_changed = (0..6).any(|c| ours.cells.get(&c) != base.cells.get(&c) && theirs.cells.get(&c) != base.cells.get(&c) && ours.cells.get(&c) != theirs.cells.get(&c));
        let may_conflict = both_changed;
        let m = match merge_keeping_the_laws(&UnityCodec, &b, &x, &y) {
            Ok(m) => m,
            Err(e) if e.starts_with("merge failed") && may_conflict => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(e)),
        };
        prop_assert!(may_conflict || m.open_conflicts == 0, "a conflict where nothing was changed twice:\n{}", String::from_utf8_lossy(&m.text));
        if m.open_conflicts == 0 {
            let text = String::from_utf8(m.text).unwrap();
            let merged = painted(&text).map_err(|e| TestCaseError::fail(format!("{e}:\n{text}")))?;
            for c in 0..6 {
                let want = if ours.cells.get(&c) != base.cells.get(&c) { ours.cells.get(&c) } else { theirs.cells.get(&c) };
                prop_assert_eq!(merged.get(&c), want, "cell {} in:\n{}", c, text);
            }
        }
    }
}
