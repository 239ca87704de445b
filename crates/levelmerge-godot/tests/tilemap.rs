//! TileMaps (Godot 3, 4.0 and 4.3's TileMapLayer) both sides paint: cells painted on one side only merge; a cell both sides changed
//! differently (or one erased and the other painted) is a conflict, and only such a cell.

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{merge_texts, MergeOutcome, Options, Sides};
use levelmerge_godot::GodotCodec;
use proptest::prelude::*;

/// A cell's (column, row), and its tile and autotile coordinate.
type Place = (i16, i16);
type Cell = (u32, u32);
/// Cells by place.
type Cells = BTreeMap<Place, Cell>;

fn place(column: i16, row: i16) -> i32 {
    (((row as u16 as u32) << 16) | column as u16 as u32) as i32
}

/// A Godot 3 scene with one TileMap, its cells written as Godot writes them (by row, then
/// column).
fn godot3(cells: &Cells) -> String {
    let mut sorted: Vec<_> = cells.iter().collect();
    sorted.sort_by_key(|((column, row), _)| (*row, *column));
    let data = sorted.iter().map(|((c, r), (tile, coord))| format!("{}, {tile}, {coord}", place(*c, *r))).collect::<Vec<_>>().join(", ");
    format!(
        "[gd_scene load_steps=2 format=2]\n\n[ext_resource path=\"res://tiles.tres\" type=\"TileSet\" id=1]\n\n[node name=\"Level\" type=\"Node2D\"]\n\n[node name=\"TileMap\" type=\"TileMap\" parent=\".\"]\ntile_set = ExtResource( 1 )\nformat = 1\ntile_data = PoolIntArray( {data} )\n"
    )
}

/// A Godot 4.0 scene with one TileMap layer, its cells in the order given.
fn godot4(cells: &[(Place, Cell)]) -> String {
    let data = cells.iter().map(|((c, r), (tile, coord))| format!("{}, {tile}, {coord}", place(*c, *r))).collect::<Vec<_>>().join(", ");
    format!(
        "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"TileSet\" path=\"res://tiles.tres\" id=\"1_t\"]\n\n[node name=\"Level\" type=\"Node2D\"]\n\n[node name=\"TileMap\" type=\"TileMap\" parent=\".\"]\ntile_set = ExtResource(\"1_t\")\nformat = 2\nlayer_0/tile_data = PackedInt32Array({data})\n"
    )
}

/// A Godot 4.3 scene with one TileMapLayer, its cells written as bytes in base64: a 2-byte
/// format (0), then per cell its column, row, source, atlas column, atlas row, alternative.
fn godot43(cells: &Cells) -> String {
    let mut bytes = vec![0u8, 0];
    for (&(column, row), &(tile, coord)) in cells {
        for half in [column as u16, row as u16, 0, tile as u16, coord as u16, 0] {
            bytes.extend(half.to_le_bytes());
        }
    }
    format!(
        "[gd_scene format=3 uid=\"uid://level\"]\n\n[ext_resource type=\"TileSet\" path=\"res://tiles.tres\" id=\"1_t\"]\n\n[node name=\"Level\" type=\"Node2D\"]\n\n[node name=\"Ground\" type=\"TileMapLayer\" parent=\".\"]\ntile_map_data = PackedByteArray(\"{}\")\ntile_set = ExtResource(\"1_t\")\n",
        BASE64.encode(bytes)
    )
}

/// The cells of every `tile_map_data` line of a merged Godot 4.3 scene, in their order.
fn godot43_cells(text: &str) -> Vec<Vec<(Place, Cell)>> {
    text.lines()
        .filter_map(|l| l.strip_prefix("tile_map_data = PackedByteArray(\"")?.strip_suffix("\")"))
        .map(|b64| {
            let bytes = BASE64.decode(b64).expect("base64");
            assert_eq!(&bytes[..2], [0, 0]);
            let half = |c: &[u8], i: usize| u16::from_le_bytes([c[2 * i], c[2 * i + 1]]);
            bytes[2..].chunks(12).map(|c| ((half(c, 0) as i16, half(c, 1) as i16), (half(c, 3) as u32, half(c, 4) as u32))).collect()
        })
        .collect()
}

fn merge(b: &str, o: &str, t: &str) -> MergeOutcome {
    merge_texts(&GodotCodec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &MarkerStyle::default())
        .expect("the merge runs")
}

fn cells(list: &[(Place, Cell)]) -> Cells {
    list.iter().copied().collect()
}

#[test]
fn cells_painted_on_each_side_are_all_kept_in_godots_order() {
    let base = cells(&[((0, 0), (1, 0)), ((1, 0), (1, 0))]);
    let mut ours = base.clone();
    ours.insert((-1, 2), (2, 0));
    let mut theirs = base.clone();
    theirs.insert((3, -1), (3, 65536));
    theirs.remove(&(1, 0));
    let merged = merge(&godot3(&base), &godot3(&ours), &godot3(&theirs));
    assert_eq!(merged.open_conflicts, 0);
    let expected = cells(&[((0, 0), (1, 0)), ((-1, 2), (2, 0)), ((3, -1), (3, 65536))]);
    assert_eq!(String::from_utf8(merged.text).unwrap(), godot3(&expected));
}

#[test]
fn one_cell_painted_differently_on_both_sides_is_a_conflict_about_it() {
    let base = cells(&[((0, 0), (1, 0))]);
    let ours = cells(&[((0, 0), (2, 0)), ((5, 5), (1, 0))]);
    let theirs = cells(&[((0, 0), (3, 0))]);
    let merged = merge(&godot3(&base), &godot3(&ours), &godot3(&theirs));
    assert_eq!(merged.open_conflicts, 1);
    assert_eq!(merged.conflicts[0].path.to_string(), "tile_data.0", "{:?}", merged.conflicts[0]);
}

#[test]
fn godot_4_layers_keep_the_order_their_cells_were_written_in() {
    let base = [((0, 0), (1, 0)), ((4, 0), (1, 0))];
    let ours = [((0, 0), (1, 0)), ((4, 0), (1, 0)), ((2, 0), (5, 0))];
    let theirs = [((0, 0), (7, 0)), ((4, 0), (1, 0))];
    let merged = merge(&godot4(&base), &godot4(&ours), &godot4(&theirs));
    assert_eq!(merged.open_conflicts, 0);
    assert_eq!(String::from_utf8(merged.text).unwrap(), godot4(&[((0, 0), (7, 0)), ((4, 0), (1, 0)), ((2, 0), (5, 0))]));
}

#[test]
fn godot_4_3_layers_merge_cell_by_cell_and_are_written_back_as_bytes() {
    let base = cells(&[((0, 0), (1, 0)), ((-1, 2), (1, 0))]);
    let mut ours = base.clone();
    ours.insert((3, -1), (2, 1));
    let mut theirs = base.clone();
    theirs.insert((0, 0), (5, 0));
    let merged = merge(&godot43(&base), &godot43(&ours), &godot43(&theirs));
    assert_eq!(merged.open_conflicts, 0);
    let text = String::from_utf8(merged.text).unwrap();
    assert_eq!(godot43_cells(&text), [vec![((-1, 2), (1, 0)), ((0, 0), (5, 0)), ((3, -1), (2, 1))]]);
    assert!(!text.contains("levelmerge_cells"), "the merge's own form never reaches the file");
    // One cell painted differently: a conflict whose two sides are each written as bytes.
    let mut other = base.clone();
    other.insert((0, 0), (7, 0));
    let merged = merge(&godot43(&base), &godot43(&ours.clone().into_iter().chain([((0, 0), (6, 0))]).collect()), &godot43(&other));
    assert_eq!(merged.open_conflicts, 1);
    let text = String::from_utf8(merged.text).unwrap();
    assert_eq!(godot43_cells(&text).len(), 2, "{text}");
    assert!(!text.contains("levelmerge_cells"), "{text}");
}

#[test]
fn godot_4_3_bytes_that_are_not_godots_are_merged_as_one_value() {
    let base = godot43(&cells(&[((0, 0), (1, 0))]));
    // A format Godot never wrote: the bytes are left as they are, and two edits conflict.
    let other_format = |cells: &Cells| godot43(cells).replace("PackedByteArray(\"AAA", "PackedByteArray(\"AQA");
    let (ours, theirs) = (cells(&[((0, 0), (1, 0)), ((1, 0), (2, 0))]), cells(&[((0, 0), (3, 0))]));
    let merged = merge(&other_format(&cells(&[((0, 0), (1, 0))])), &other_format(&ours), &other_format(&theirs));
    assert_eq!(merged.open_conflicts, 1);
    assert_eq!(merge(&base, &godot43(&ours), &godot43(&theirs)).open_conflicts, 0);
}

/// A Godot 3 scene with one GridMap, its cells (x, y, z → item) written as Godot writes them:
/// by the key `x | y << 16 | z << 32`, two integers, then the item.
fn grid(cells: &[((u16, u16, u16), u32)]) -> String {
    let mut cells = cells.to_vec();
    cells.sort_by_key(|&((x, y, z), _)| (x as u64) | (y as u64) << 16 | (z as u64) << 32);
    let data =
        cells.iter().map(|&((x, y, z), item)| format!("{}, {z}, {item}", (x as u32) | (y as u32) << 16)).collect::<Vec<_>>().join(", ");
    format!(
        "[gd_scene load_steps=2 format=2]\n\n[ext_resource path=\"res://blocks.meshlib\" type=\"MeshLibrary\" id=1]\n\n[node name=\"World\" type=\"Spatial\"]\n\n[node name=\"GridMap\" type=\"GridMap\" parent=\".\"]\nmesh_library = ExtResource( 1 )\ndata = {{\n\"cells\": PoolIntArray( {data} )\n}}\n__meta__ = {{\n\"_editor_clip_\": 0\n}}\n"
    )
}

#[test]
fn grid_maps_merge_cell_by_cell() {
    let base = [((0, 0, 0), 1), ((1, 0, 0), 1), ((0, 0, 1), 2)];
    let ours = [((0, 0, 0), 1), ((1, 0, 0), 3), ((0, 0, 1), 2), ((5, 1, 0), 4)];
    let theirs = [((0, 0, 0), 1), ((0, 0, 1), 2), ((2, 0, 7), 9)];
    // Theirs erased (1, 0, 0), which ours changed: a conflict about that cell alone.
    let merged = merge(&grid(&base), &grid(&ours), &grid(&theirs));
    assert_eq!(merged.open_conflicts, 1);
    assert_eq!(merged.conflicts[0].path.to_string(), "data.1, 0", "{:?}", merged.conflicts[0]);
    let theirs_keeping = [((0, 0, 0), 1), ((1, 0, 0), 1), ((0, 0, 1), 2), ((2, 0, 7), 9)];
    let merged = merge(&grid(&base), &grid(&ours), &grid(&theirs_keeping));
    assert_eq!(merged.open_conflicts, 0);
    let expected = [((0, 0, 0), 1), ((1, 0, 0), 3), ((0, 0, 1), 2), ((5, 1, 0), 4), ((2, 0, 7), 9)];
    assert_eq!(String::from_utf8(merged.text).unwrap(), grid(&expected));
    let other = [((0, 0, 0), 1), ((1, 0, 0), 8), ((0, 0, 1), 2)];
    assert_eq!(merge(&grid(&base), &grid(&ours), &grid(&other)).open_conflicts, 1);
}

/// Paint (tile > 0) or erase (tile 0) cells of a small map.
fn strokes() -> impl Strategy<Value = Vec<(Place, u32)>> {
    prop::collection::vec(((-2i16..4, -2i16..3), 0u32..4), 0..6)
}

fn painted(base: &Cells, strokes: &[(Place, u32)]) -> Cells {
    let mut cells = base.clone();
    for &(at, tile) in strokes {
        if tile == 0 {
            cells.remove(&at);
        } else {
            cells.insert(at, (tile, 0));
        }
    }
    cells
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// A clean merge holds every cell as the side that changed it left it; the merge conflicts
    /// exactly when both sides left one cell differently.
    #[test]
    fn painting_merges_cell_by_cell(base in strokes(), ours in strokes(), theirs in strokes()) {
        let base = painted(&Cells::new(), &base);
        let (ours, theirs) = (painted(&base, &ours), painted(&base, &theirs));
        let mut expected = Cells::new();
        let mut clash = false;
        for at in base.keys().chain(ours.keys()).chain(theirs.keys()) {
            let (b, o, t) = (base.get(at), ours.get(at), theirs.get(at));
            let kept = if o == b { t } else if t == b || o == t { o } else { clash = true; None };
            if let Some(cell) = kept {
                expected.insert(*at, *cell);
            }
        }
        let merged = merge(&godot3(&base), &godot3(&ours), &godot3(&theirs));
        prop_assert_eq!(merged.open_conflicts > 0, clash);
        if !clash {
            prop_assert_eq!(String::from_utf8(merged.text).unwrap(), godot3(&expected));
        }
        // The same painting on a Godot 4.3 layer.
        let merged = merge(&godot43(&base), &godot43(&ours), &godot43(&theirs));
        prop_assert_eq!(merged.open_conflicts > 0, clash);
        if !clash {
            let written = godot43_cells(&String::from_utf8(merged.text).unwrap());
            prop_assert_eq!(written.len(), 1);
            prop_assert_eq!(written[0].len(), expected.len(), "no place twice");
            prop_assert_eq!(written[0].iter().copied().collect::<Cells>(), expected);
        }
    }
}
