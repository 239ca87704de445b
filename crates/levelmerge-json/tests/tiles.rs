//! LDtk tile lists, keyed by their `px` (stacked tiles by their order at it): the merge laws,
//! and the same result whether unchanged lists and tiles are read or not.

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{merge_texts, MergeOutcome, Options, Sides};
use levelmerge_json::JsonCodec;
use levelmerge_testutils::laws::merge_keeping_the_laws;
use proptest::prelude::*;

/// A tile: its cell (on a small grid, so that tiles stack) and its tile id.
type Tile = (u8, u8, u8);

#[derive(Debug, Clone)]
enum Edit {
    Flip(usize),
    Remove(usize),
    Paint(usize, Tile),
}

/// An LDtk level file with two tile layers, one tile per line as LDtk writes them.
fn ldtk(layers: &[Vec<Tile>; 2]) -> String {
    let layer = |iid: &str, tiles: &[Tile]| {
        let lines: Vec<String> = tiles
            .iter()
            .map(|(x, y, t)| {
                format!(
                    "\t\t\t\t{{ \"px\": [{},{}], \"src\": [{},0], \"f\": 0, \"t\": {t}, \"a\": 1 }}",
                    u32::from(*x) * 16,
                    u32::from(*y) * 16,
                    u32::from(*t) * 16
                )
            })
            .collect();
        format!("\t\t{{ \"iid\": \"{iid}\", \"gridTiles\": [\n{}\n\t\t] }}", lines.join(",\n"))
    };
    format!(
        "{{\n\t\"__header__\": {{ \"app\": \"LDtk\" }},\n\t\"layerInstances\": [\n{},\n{}\n\t]\n}}\n",
        layer("A", &layers[0]),
        layer("B", &layers[1])
    )
}

/// The file with `edits` made to the tiles of one layer (`f` flips are written as `"f": 1`).
fn edited(layers: &[Vec<Tile>; 2], layer: usize, edits: &[Edit]) -> String {
    let mut tiles: Vec<(Tile, bool)> = layers[layer].iter().map(|t| (*t, false)).collect();
    for edit in edits {
        match *edit {
            Edit::Flip(i) if !tiles.is_empty() => {
                let at = i % tiles.len();
                tiles[at].1 = !tiles[at].1;
            }
            Edit::Remove(i) if !tiles.is_empty() => {
                tiles.remove(i % tiles.len());
            }
            Edit::Paint(i, tile) => {
                let at = i % (tiles.len() + 1);
                tiles.insert(at, (tile, false));
            }
            _ => {}
        }
    }
    // Flipped tiles are told by a marker in their tile id's column, then written with `"f": 1`.
    let mut out = layers.clone();
    out[layer] = tiles.iter().map(|(t, _)| *t).collect();
    let mut text = ldtk(&out);
    let flipped: Vec<usize> = tiles.iter().enumerate().filter(|(_, (_, f))| *f).map(|(i, _)| i).collect();
    let layer_start = text.find(if layer == 0 { "\"iid\": \"A\"" } else { "\"iid\": \"B\"" }).expect("the layer");
    let mut line_starts: Vec<usize> = text[layer_start..].match_indices("{ \"px\"").map(|(i, _)| layer_start + i).collect();
    line_starts.truncate(tiles.len());
    for &i in flipped.iter().rev() {
        let at = line_starts[i];
        let f = at + text[at..].find("\"f\": 0").expect("a flip member");
        text.replace_range(f..f + 6, "\"f\": 1");
    }
    text
}

fn tile() -> impl Strategy<Value = Tile> {
    (0u8..3, 0u8..3, 0u8..4)
}

fn layers() -> impl Strategy<Value = [Vec<Tile>; 2]> {
    (prop::collection::vec(tile(), 0..14), prop::collection::vec(tile(), 0..14)).prop_map(|(a, b)| [a, b])
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        (0usize..32).prop_map(Edit::Flip),
        (0usize..32).prop_map(Edit::Remove),
        ((0usize..32), tile()).prop_map(|(i, t)| Edit::Paint(i, t)),
    ];
    prop::collection::vec(edit, 0..5)
}

fn merge(b: &str, x: &str, y: &str, skip_unchanged: bool) -> MergeOutcome {
    let codec = JsonCodec { skip_unchanged, ..JsonCodec::default() };
    merge_texts(&codec, Sides::new(b.as_bytes(), x.as_bytes(), y.as_bytes()), &Options::default(), &MarkerStyle::default())
        .unwrap_or_else(|e| panic!("merge failed: {e}\nbase:\n{b}\nours:\n{x}\ntheirs:\n{y}"))
}

fn text(o: &MergeOutcome) -> String {
    String::from_utf8(o.text.clone()).expect("merged JSON is UTF-8")
}

/// The open conflicts' objects and paths.
fn open(o: &MergeOutcome) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> =
        o.conflicts.iter().filter(|c| c.resolved.is_none()).map(|c| (c.object.clone(), c.path.clone())).collect();
    v.sort();
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn tile_merges_keep_the_laws_and_read_alike_either_way(
        base in layers(), ours_layer in 0usize..2, ours_edits in edits(), theirs_layer in 0usize..2, theirs_edits in edits(),
    ) {
        let b = ldtk(&base);
        let x = edited(&base, ours_layer, &ours_edits);
        let y = edited(&base, theirs_layer, &theirs_edits);
        let fast = merge_keeping_the_laws(&JsonCodec::default(), &b, &x, &y).map_err(TestCaseError::fail)?;
        let full = merge(&b, &x, &y, false);
        // A stacked tile's id can differ on a line all versions hold alike (a tile painted
        // below it on one side): a conflict may then be found on a whole member where reading
        // everything finds it on one of its numbers; the merged text is the same.
        prop_assert_eq!(text(&fast), text(&full), "unchanged lists and tiles left unread change the result");
        prop_assert_eq!(open(&fast).len(), open(&full).len());
        let swapped = merge(&b, &y, &x, true);
        prop_assert_eq!(open(&swapped), open(&fast), "swapping sides swaps the conflicts, the same objects and members");
        if fast.open_conflicts == 0 {
            let parsed: Result<serde_json::Value, _> = serde_json::from_str(&text(&fast));
            prop_assert!(parsed.is_ok(), "a clean merge is JSON:\n{}", text(&fast));
        }
    }
}
