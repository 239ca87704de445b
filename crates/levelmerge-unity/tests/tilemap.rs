//! Unity tilemaps: cells name entries of arrays the map shares, each entry counting the cells
//! that use it. A merge that leaves a cell naming another tile than the one its side painted,
//! or a count that is wrong, is refused, never written with exit 0.

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{check_text, merge_texts, MergeError, MergeOutcome, Options, Sides};
use levelmerge_unity::UnityCodec;

/// A scene holding one tilemap: each cell `(x, asset)` shows the asset (and sprite) of that
/// index; `assets` are the guids of the tile assets, in array order, counted from the cells.
fn tilemap(cells: &[(i32, usize)], assets: &[&str]) -> String {
    let mut text = String::from(
        "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!1 &100\nGameObject:\n  m_ObjectHideFlags: 0\n  serializedVersion: 6\n  m_Component:\n  - component: {fileID: 101}\n  - component: {fileID: 102}\n  m_Layer: 0\n  m_Name: Ground\n  m_IsActive: 1\n--- !u!4 &101\nTransform:\n  m_ObjectHideFlags: 0\n  m_GameObject: {fileID: 100}\n  m_LocalPosition: {x: 0, y: 0, z: 0}\n  m_Children: []\n  m_Father: {fileID: 0}\n--- !u!1839735485 &102\nTilemap:\n  m_ObjectHideFlags: 0\n  m_GameObject: {fileID: 100}\n  m_Enabled: 1\n  m_Tiles:\n",
    );
    for (x, asset) in cells {
        text += &format!(
            "  - first: {{x: {x}, y: 0, z: 0}}\n    second:\n      serializedVersion: 2\n      m_TileIndex: {asset}\n      m_TileSpriteIndex: {asset}\n      m_TileMatrixIndex: 0\n      m_TileColorIndex: 0\n      m_TileObjectToInstantiateIndex: 65535\n      dummyAlignment: 0\n      m_AllTileFlags: 1073741825\n"
        );
    }
    let uses = |i: usize| cells.iter().filter(|(_, a)| *a == i).count();
    text += "  m_AnimatedTiles: {}\n  m_TileAssetArray:\n";
    for (i, guid) in assets.iter().enumerate() {
        text += &format!("  - m_RefCount: {}\n    m_Data: {{fileID: 11400000, guid: {guid}, type: 2}}\n", uses(i));
    }
    text += "  m_TileSpriteArray:\n";
    for (i, guid) in assets.iter().enumerate() {
        text += &format!("  - m_RefCount: {}\n    m_Data: {{fileID: 21300000, guid: {guid}, type: 3}}\n", uses(i));
    }
    text += &format!("  m_TileMatrixArray:\n  - m_RefCount: {n}\n    m_Data:\n      e00: 1\n      e11: 1\n  m_TileColorArray:\n  - m_RefCount: {n}\n    m_Data: {{r: 1, g: 1, b: 1, a: 1}}\n  m_TileObjectToInstantiateArray: []\n  m_Origin: {{x: 0, y: 0, z: 0}}\n  m_Size: {{x: 8, y: 1, z: 1}}\n", n = cells.len());
    text
}

const GRASS: &str = "aaaa0000000000000000000000000001";
const STONE: &str = "aaaa0000000000000000000000000002";
const WATER: &str = "aaaa0000000000000000000000000003";
const SAND: &str = "aaaa0000000000000000000000000004";

fn merge(b: &str, o: &str, t: &str) -> Result<MergeOutcome, MergeError> {
    merge_texts(&UnityCodec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &MarkerStyle::default())
}

#[test]
fn both_sides_adding_a_tile_asset_at_one_index_is_refused() {
    let base = tilemap(&[(0, 0), (1, 1)], &[GRASS, STONE]);
    let ours = tilemap(&[(0, 0), (1, 1), (2, 2)], &[GRASS, STONE, WATER]);
    let theirs = tilemap(&[(0, 0), (1, 1), (3, 2)], &[GRASS, STONE, SAND]);
    // Merged as lists, theirs' sand lands at index 3 while its cell still names index 2, ours'
    // water: the merge must not say it is done.
    match merge(&base, &ours, &theirs) {
        Err(MergeError::Incoherent { problems }) => {
            let told: Vec<String> = problems.iter().map(ToString::to_string).collect();
            assert!(told.iter().any(|p| p.contains("m_TileAssetArray does not count the tiles")), "{told:?}");
        }
        Err(other) => panic!("refused for another reason: {other}"),
        Ok(m) => assert!(m.open_conflicts > 0, "merged clean:\n{}", String::from_utf8_lossy(&m.text)),
    }
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
