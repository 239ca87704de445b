//! Tile layers hold their cells row after row. A side that resizes a map moves every cell
//! after the first changed row; the other side's painting can then no longer be placed by
//! aligning numbers, and a merge that tried put tiles in other places with exit 0.

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{merge_texts, MergeOutcome, Options, Sides};
use levelmerge_json::JsonCodec;
use proptest::prelude::*;
use serde_json::Value;

/// A Tiled map of one tile layer, `cells` row after row.
fn tiled(width: usize, height: usize, cells: &[u32]) -> String {
    let data = cells.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    format!(
        r#"{{ "height":{height}, "infinite":false,
 "layers":[
        {{
         "data":[{data}],
         "height":{height}, "id":1, "name":"Ground", "opacity":1, "type":"tilelayer", "visible":true,
         "width":{width}, "x":0, "y":0
        }}],
 "nextlayerid":2, "nextobjectid":1, "orientation":"orthogonal", "renderorder":"right-down",
 "tiledversion":"1.10.2", "tileheight":16,
 "tilesets":[{{ "firstgid":1, "source":"ground.tsx" }}],
 "tilewidth":16, "type":"map", "version":"1.10", "width":{width}
}}
"#
    )
}

fn merge(b: &str, o: &str, t: &str) -> MergeOutcome {
    let codec = JsonCodec::default();
    merge_texts(&codec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &MarkerStyle::default())
        .expect("the merge runs")
}

/// The width and the cells of a merged map's layer.
fn layer(text: &str) -> (usize, Vec<u32>) {
    let map: Value = serde_json::from_str(text).expect("the merged map is JSON");
    let layer = &map["layers"][0];
    let cells: Vec<u32> = layer["data"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
    let width = layer["width"].as_u64().unwrap() as usize;
    assert_eq!(cells.len(), width * layer["height"].as_u64().unwrap() as usize, "a layer holds width × height cells");
    (width, cells)
}

#[test]
fn a_map_one_side_widened_and_the_other_painted_is_a_conflict() {
    let base = tiled(2, 3, &[1, 1, 1, 2, 2, 1]);
    let widened = tiled(3, 3, &[0, 1, 1, 0, 1, 2, 0, 2, 1]);
    let painted = tiled(2, 3, &[1, 1, 2, 2, 2, 1]);
    // Aligned by their numbers, the painted tile landed a row lower.
    assert!(merge(&base, &widened, &painted).open_conflicts > 0);
    // Painting alone, or resizing alone, merges.
    let merged = merge(&base, &widened, &base);
    assert_eq!(merged.open_conflicts, 0);
    assert_eq!(String::from_utf8(merged.text).unwrap(), widened);
    let merged = merge(&base, &base, &painted);
    assert_eq!(String::from_utf8(merged.text).unwrap(), painted);
}

#[test]
fn an_ldtk_level_one_side_resized_and_the_other_painted_is_a_conflict() {
    let level = |wid: usize, grid: &[u32]| {
        let csv = grid.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        format!(
            "{{\n\t\"__header__\": {{ \"app\": \"LDtk\" }},\n\t\"jsonVersion\": \"1.5.3\",\n\t\"levels\": [{{\n\t\t\"iid\": \"L1\",\n\t\t\"layerInstances\": [{{\n\t\t\t\"__cWid\": {wid},\n\t\t\t\"iid\": \"G1\",\n\t\t\t\"intGridCsv\": [{csv}]\n\t\t}}]\n\t}}]\n}}\n"
        )
    };
    let base = level(2, &[1, 1, 1, 2, 2, 1]);
    let resized = level(3, &[0, 1, 1, 0, 1, 2, 0, 2, 1]);
    let painted = level(2, &[1, 1, 2, 2, 2, 1]);
    assert!(merge(&base, &resized, &painted).open_conflicts > 0);
    assert_eq!(merge(&base, &resized, &base).open_conflicts, 0);
}

/// How ours resizes the map: a column or a row put in (filled with 0) or taken out, at a place.
#[derive(Debug, Clone)]
enum Resize {
    InsertColumn(prop::sample::Index),
    InsertRow(prop::sample::Index),
    RemoveColumn(prop::sample::Index),
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Ours resizes the map, theirs paints some cells. A clean merge shows ours' map with
    /// theirs' tiles where theirs painted them; it is clean only if theirs changed nothing
    /// (then it is ours').
    #[test]
    fn painting_never_lands_elsewhere_when_the_other_side_resized(
        width in 2usize..7,
        height in 2usize..5,
        tiles in prop::collection::vec(1u32..3, 36),
        resize in prop_oneof![
            any::<prop::sample::Index>().prop_map(Resize::InsertColumn),
            any::<prop::sample::Index>().prop_map(Resize::InsertRow),
            any::<prop::sample::Index>().prop_map(Resize::RemoveColumn),
        ],
        paints in prop::collection::vec((any::<prop::sample::Index>(), 1u32..4), 1..4),
    ) {
        let base: Vec<u32> = tiles[..width * height].to_vec();
        let rows: Vec<Vec<u32>> = base.chunks(width).map(<[u32]>::to_vec).collect();
        let (ours_width, ours_rows): (usize, Vec<Vec<u32>>) = match &resize {
            Resize::InsertColumn(at) => {
                let at = at.index(width + 1);
                (width + 1, rows.iter().map(|r| [&r[..at], &[0], &r[at..]].concat()).collect())
            }
            Resize::InsertRow(at) => {
                let mut rows = rows.clone();
                rows.insert(at.index(height + 1), vec![0; width]);
                (width, rows)
            }
            Resize::RemoveColumn(at) => {
                let at = at.index(width);
                (width - 1, rows.iter().map(|r| [&r[..at], &r[at + 1..]].concat()).collect())
            }
        };
        let ours: Vec<u32> = ours_rows.concat();
        let mut theirs = base.clone();
        for (cell, tile) in &paints {
            let at = cell.index(theirs.len());
            theirs[at] = *tile;
        }
        let merged = merge(&tiled(width, height, &base), &tiled(ours_width, ours_rows.len(), &ours), &tiled(width, height, &theirs));
        if merged.open_conflicts == 0 {
            prop_assert_eq!(&theirs, &base, "clean although theirs painted");
            prop_assert_eq!(layer(&String::from_utf8(merged.text).unwrap()), (ours_width, ours));
        }
    }
}
