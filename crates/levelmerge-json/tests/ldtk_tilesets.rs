//! LDtk projects where a side widens a tileset's image (LDtk then renumbers every id of its
//! tiles: an id is a column plus a row times the columns) while both sides tag tiles and
//! paint cells: every clean merge tags and paints the tiles each side meant,
//! by column and row, in the merged tileset's columns.

use std::collections::BTreeSet;

use levelmerge_core::{merge_texts, Options, Sides};
use levelmerge_json::JsonCodec;
use levelmerge_testutils::laws::{clean_result_passes, merge_keeping_the_laws};
use proptest::prelude::*;
use serde_json::Value;

const ROWS: u32 = 4;
const BASE_COLUMNS: u32 = 5;

/// A tile of the tileset by its place in the image.
type Tile = (u32, u32);

#[derive(Debug, Clone)]
struct Project {
    columns: u32,
    tagged: BTreeSet<Tile>,
    /// Painted cells of the one layer: cell index (x = 16 × index) and tile.
    painted: Vec<(u32, Tile)>,
}

#[derive(Debug, Clone)]
enum Edit {
    Widen(u32),
    Tag(Tile),
    Paint(u32, Tile),
}

impl Project {
    fn base() -> Project {
        Project { columns: BASE_COLUMNS, tagged: [(1, 1)].into(), painted: vec![(0, (2, 1)), (5, (0, 3))] }
    }

    /// `cells` is the side's own range of cells, so that no cell is painted by both sides.
    fn apply(&mut self, edit: &Edit, cells: std::ops::Range<u32>) {
        match *edit {
            Edit::Widen(by) => self.columns = BASE_COLUMNS + by,
            Edit::Tag(tile) => {
                self.tagged.insert(tile);
            }
            Edit::Paint(cell, tile) => {
                let cell = cells.start + cell % cells.len() as u32;
                match self.painted.iter_mut().find(|(c, _)| *c == cell) {
                    Some(painted) => painted.1 = tile,
                    None => {
                        self.painted.push((cell, tile));
                        self.painted.sort();
                    }
                }
            }
        }
    }

    fn id(&self, (column, row): Tile) -> u32 {
        column + row * self.columns
    }

    fn json(&self) -> String {
        // LDtk writes a tag's ids in ascending order.
        let ids: BTreeSet<u32> = self.tagged.iter().map(|&t| self.id(t)).collect();
        let tags: Vec<String> = ids.iter().map(u32::to_string).collect();
        let tiles: Vec<String> = self
            .painted
            .iter()
            .map(|&(cell, (column, row))| {
                format!(
                    "{{ \"px\": [{},0], \"src\": [{},{}], \"f\": 0, \"t\": {}, \"d\": [{cell}], \"a\": 1 }}",
                    cell * 16,
                    column * 16,
                    row * 16,
                    self.id((column, row))
                )
            })
            .collect();
        format!(
            "{{\n\t\"__header__\": {{ \"app\": \"LDtk\" }},\n\t\"nextUid\": 20,\n\t\"defs\": {{\n\t\t\"tilesets\": [\n\t\t\t{{\n\t\t\t\t\"__cWid\": {c},\n\t\t\t\t\"__cHei\": {ROWS},\n\t\t\t\t\"identifier\": \"Tiles\",\n\t\t\t\t\"uid\": 1,\n\t\t\t\t\"pxWid\": {w},\n\t\t\t\t\"pxHei\": {h},\n\t\t\t\t\"tileGridSize\": 16,\n\t\t\t\t\"spacing\": 0,\n\t\t\t\t\"padding\": 0,\n\t\t\t\t\"enumTags\": [ {{ \"enumValueId\": \"SOLID\", \"tileIds\": [{tags}] }} ]\n\t\t\t}}\n\t\t]\n\t}},\n\t\"levels\": [ {{ \"identifier\": \"Start\", \"iid\": \"S\", \"uid\": 10, \"layerInstances\": [ {{ \"__identifier\": \"Ground\", \"__tilesetDefUid\": 1, \"iid\": \"L\", \"gridTiles\": [\n\t\t{tiles}\n\t] }} ] }} ]\n}}\n",
            c = self.columns,
            w = self.columns * 16,
            h = ROWS * 16,
            tags = tags.join(","),
            tiles = tiles.join(",\n\t\t")
        )
    }
}

/// What a project tags, and paints cell by cell.
type Meant = (BTreeSet<Tile>, Vec<(u64, Tile)>);

/// The tiles a project tags and paints, by column and row, as its own columns read them.
fn meant(text: &str) -> Result<Meant, String> {
    let p: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let tileset = &p["defs"]["tilesets"][0];
    let columns = tileset["__cWid"].as_u64().ok_or("no columns")? as u32;
    let place = |id: &Value| id.as_u64().map(|id| (id as u32 % columns, id as u32 / columns)).ok_or("an id that is no number");
    let tagged = tileset["enumTags"][0]["tileIds"].as_array().ok_or("no tags")?.iter().map(place).collect::<Result<_, _>>()?;
    let tiles = p["levels"][0]["layerInstances"][0]["gridTiles"].as_array().ok_or("no tiles")?;
    let painted = tiles.iter().map(|t| Ok((t["px"][0].as_u64().ok_or("no px")? / 16, place(&t["t"])?))).collect::<Result<_, String>>()?;
    Ok((tagged, painted))
}

/// Both sides tag and paint; one of them may widen the image.
fn edit(widens: bool) -> impl Strategy<Value = Edit> {
    // Tags and paint stay within base's columns, so that each has a place in the wider ones.
    let tile = (0..BASE_COLUMNS, 0..ROWS);
    let own = if widens { (1u32..4).prop_map(Edit::Widen).boxed() } else { tile.clone().prop_map(Edit::Tag).boxed() };
    prop_oneof![own, tile.clone().prop_map(Edit::Tag), (0u32..4, tile).prop_map(|(c, t)| Edit::Paint(c, t))]
}

fn version(edits: &[Edit], cells: std::ops::Range<u32>) -> Project {
    let mut p = Project::base();
    for e in edits {
        p.apply(e, cells.clone());
    }
    p
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn tags_and_tiles_keep_their_place_in_the_image_when_the_other_side_widens_it(
        ours_edits in prop::collection::vec(edit(false), 0..4),
        theirs_edits in prop::collection::vec(edit(true), 0..4),
        swapped in any::<bool>(),
    ) {
        // Cells 0–4 are ours', 5–9 theirs' (base paints one of each).
        let (ours, theirs) = (version(&ours_edits, 0..5), version(&theirs_edits, 5..10));
        let (b, x, y) = (Project::base().json(), ours.json(), theirs.json());
        let (x, y) = if swapped { (y, x) } else { (x, y) };
        let m = merge_keeping_the_laws(&JsonCodec::default(), &b, &x, &y).map_err(TestCaseError::fail)?;
        prop_assert_eq!(m.open_conflicts, 0, "{}", String::from_utf8_lossy(&m.text));
        let want_tags: BTreeSet<Tile> = ours.tagged.union(&theirs.tagged).copied().collect();
        let mut want_painted: Vec<(u64, Tile)> = ours.painted.iter().filter(|(c, _)| *c < 5).chain(theirs.painted.iter().filter(|(c, _)| *c >= 5)).map(|&(c, t)| (u64::from(c), t)).collect();
        want_painted.sort();
        clean_result_passes(&m, &b, &x, &y, |text| match meant(text) {
            Ok((tags, painted)) if tags == want_tags && painted == want_painted => Vec::new(),
            Ok(got) => vec![format!("tiles meant {got:?}, want {:?}", (&want_tags, &want_painted))],
            Err(e) => vec![e],
        })
        .map_err(TestCaseError::fail)?;
    }
}

#[test]
fn a_tile_painted_in_a_column_the_other_side_cut_off_is_not_merged_cleanly() {
    // Theirs narrows the image to 3 columns; ours paints tile (4, 0), which it no longer has.
    let mut narrowed = Project::base();
    narrowed.columns = 3;
    let mut painted = Project::base();
    painted.apply(&Edit::Paint(1, (4, 0)), 0..5);
    let (b, x, y) = (Project::base().json(), painted.json(), narrowed.json());
    for (x, y) in [(&x, &y), (&y, &x)] {
        let texts = Sides::new(b.as_bytes(), x.as_bytes(), y.as_bytes());
        match merge_texts(&JsonCodec::default(), texts, &Options::default(), &Default::default()) {
            Err(e) => {
                assert!(e.to_string().contains("the tile at [16,0] shows [64,0] (src), outside the 3 × 4 tiles of tileset Tiles"), "{e}")
            }
            Ok(m) => panic!("merged: {}", String::from_utf8_lossy(&m.text)),
        }
    }
}

/// An LDtk level file (a project's external level) painting `tiles`: cell, `src` and `t`.
fn level_file(tiles: &[(u32, [u32; 2], u32)]) -> String {
    let tiles: Vec<String> = tiles
        .iter()
        .map(|(cell, [x, y], t)| {
            format!("{{ \"px\": [{},0], \"src\": [{x},{y}], \"f\": 0, \"t\": {t}, \"d\": [{cell}], \"a\": 1 }}", cell * 16)
        })
        .collect();
    format!(
        "{{\n\t\"__header__\": {{ \"app\": \"LDtk\" }},\n\t\"identifier\": \"Start\",\n\t\"iid\": \"S\",\n\t\"uid\": 10,\n\t\"layerInstances\": [ {{ \"__identifier\": \"Ground\", \"__tilesetDefUid\": 1, \"iid\": \"L\", \"gridTiles\": [\n\t\t{}\n\t] }} ]\n}}\n",
        tiles.join(",\n\t\t")
    )
}

#[test]
fn a_level_file_painted_in_old_numbers_beside_tiles_renumbered_by_a_resize_is_not_merged_cleanly() {
    // Theirs widened the tileset (in the project file) from 5 to 6 columns: LDtk renumbered
    // the level's tile at [0,16] from 5 to 6. Ours painted that tile again in another cell,
    // numbered 5 as 5 columns read it.
    let base = level_file(&[(0, [0, 16], 5)]);
    let ours = level_file(&[(0, [0, 16], 5), (1, [0, 16], 5)]);
    let theirs = level_file(&[(0, [0, 16], 6)]);
    for (x, y) in [(&ours, &theirs), (&theirs, &ours)] {
        let texts = Sides::new(base.as_bytes(), x.as_bytes(), y.as_bytes());
        match merge_texts(&JsonCodec::default(), texts, &Options::default(), &Default::default()) {
            Err(e) => assert!(e.to_string().contains("tiles showing [0,16] (src) of one tileset are numbered differently"), "{e}"),
            Ok(m) => panic!("merged: {}", String::from_utf8_lossy(&m.text)),
        }
    }
    // Painting in one numbering merges.
    let painted = level_file(&[(0, [0, 16], 6), (1, [16, 16], 7)]);
    let m = merge_keeping_the_laws(&JsonCodec::default(), &base, &painted, &theirs).unwrap();
    assert_eq!(m.open_conflicts, 0);
}
