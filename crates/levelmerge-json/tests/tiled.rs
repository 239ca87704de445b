//! Tiled maps where both sides add, delete and edit objects: the ids the counter hands out
//! twice are renumbered, and every clean merge is a map Tiled can open (each object id once,
//! the counter above every id, every object reference naming an object).

use levelmerge_json::JsonCodec;
use levelmerge_testutils::laws::{clean_result_passes, merge_keeping_the_laws, repeated};
use proptest::prelude::*;
use serde_json::Value;

/// A map object: its id, x, and the id of the object its `target` property names.
#[derive(Debug, Clone, PartialEq)]
struct Object {
    id: u32,
    x: u32,
    target: Option<u32>,
}

#[derive(Debug, Clone)]
struct Map {
    next_id: u32,
    /// Two object layers.
    layers: [Vec<Object>; 2],
}

#[derive(Debug, Clone)]
enum Edit {
    /// Add an object to a layer (its id from the counter), naming the nth object if any.
    Add {
        layer: usize,
        x: u32,
        target: Option<usize>,
    },
    Remove {
        layer: usize,
        at: usize,
    },
    Move {
        layer: usize,
        at: usize,
        x: u32,
    },
    /// Make an object name the nth object of the map.
    Point {
        layer: usize,
        at: usize,
        target: usize,
    },
}

impl Map {
    fn base() -> Map {
        let layer = |ids: std::ops::Range<u32>| ids.map(|id| Object { id, x: id * 10, target: None }).collect();
        Map { next_id: 6, layers: [layer(1..4), layer(4..6)] }
    }

    fn ids(&self) -> Vec<u32> {
        self.layers.iter().flatten().map(|o| o.id).collect()
    }

    fn apply(&mut self, edit: &Edit) {
        match *edit {
            Edit::Add { layer, x, target } => {
                let ids = self.ids();
                let target = target.and_then(|n| (!ids.is_empty()).then(|| ids[n % ids.len()]));
                self.layers[layer].push(Object { id: self.next_id, x, target });
                self.next_id += 1;
            }
            Edit::Remove { layer, at } if !self.layers[layer].is_empty() => {
                let at = at % self.layers[layer].len();
                let gone = self.layers[layer].remove(at).id;
                // Tiled clears a reference to an object that is deleted.
                for o in self.layers.iter_mut().flatten() {
                    if o.target == Some(gone) {
                        o.target = None;
                    }
                }
            }
            Edit::Move { layer, at, x } if !self.layers[layer].is_empty() => {
                let at = at % self.layers[layer].len();
                self.layers[layer][at].x = x;
            }
            Edit::Point { layer, at, target } if !self.layers[layer].is_empty() => {
                let ids = self.ids();
                let at = at % self.layers[layer].len();
                self.layers[layer][at].target = Some(ids[target % ids.len()]);
            }
            _ => {}
        }
    }

    /// The map as Tiled writes it (one object per line here).
    fn json(&self) -> String {
        let object = |o: &Object| {
            let properties = o
                .target
                .map_or(String::new(), |t| format!(", \"properties\":[{{ \"name\":\"target\", \"type\":\"object\", \"value\":{t} }}]"));
            format!("        {{ \"id\":{}, \"name\":\"\", \"x\":{}, \"y\":0{properties} }}", o.id, o.x)
        };
        let layer = |i: usize, objects: &[Object]| {
            let lines: Vec<String> = objects.iter().map(object).collect();
            format!(
                "    {{ \"id\":{}, \"name\":\"L{}\", \"type\":\"objectgroup\", \"objects\":[\n{}\n      ] }}",
                i + 1,
                i + 1,
                lines.join(",\n")
            )
        };
        format!(
            "{{ \"height\":10,\n  \"layers\":[\n{},\n{}\n  ],\n  \"nextlayerid\":3,\n  \"nextobjectid\":{},\n  \"tiledversion\":\"1.10.2\",\n  \"type\":\"map\"\n}}\n",
            layer(0, &self.layers[0]),
            layer(1, &self.layers[1]),
            self.next_id
        )
    }
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        ((0usize..2), (0u32..100), prop::option::of(0usize..8)).prop_map(|(layer, x, target)| Edit::Add { layer, x, target }),
        ((0usize..2), (0usize..8)).prop_map(|(layer, at)| Edit::Remove { layer, at }),
        ((0usize..2), (0usize..8), (0u32..100)).prop_map(|(layer, at, x)| Edit::Move { layer, at, x }),
        ((0usize..2), (0usize..8), (0usize..8)).prop_map(|(layer, at, target)| Edit::Point { layer, at, target }),
    ];
    prop::collection::vec(edit, 0..5)
}

fn version(edits: &[Edit]) -> String {
    let mut map = Map::base();
    for e in edits {
        map.apply(e);
    }
    map.json()
}

/// What makes a merged map one Tiled opens as it was meant: each object id once, the counter
/// above every id, each object reference naming an object of the map.
fn map_problems(text: &str) -> Vec<String> {
    let map: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return vec![format!("not JSON: {e}")],
    };
    let objects: Vec<&Value> =
        map["layers"].as_array().into_iter().flatten().flat_map(|l| l["objects"].as_array().into_iter().flatten()).collect();
    let ids: Vec<u64> = objects.iter().filter_map(|o| o["id"].as_u64()).collect();
    let mut problems = repeated("object id", &ids);
    let next = map["nextobjectid"].as_u64().unwrap_or(0);
    if let Some(max) = ids.iter().max().filter(|m| **m >= next) {
        problems.push(format!("nextobjectid {next} is not above object id {max}"));
    }
    for o in &objects {
        for p in o["properties"].as_array().into_iter().flatten() {
            if let Some(target) = p["value"].as_u64().filter(|_| p["type"] == "object") {
                if !ids.contains(&target) {
                    problems.push(format!("object {} names missing object {target}", o["id"]));
                }
            }
        }
    }
    problems
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn tiled_merges_keep_the_laws_and_give_maps_tiled_opens(ours_edits in edits(), theirs_edits in edits()) {
        let b = Map::base().json();
        let x = version(&ours_edits);
        let y = version(&theirs_edits);
        let m = merge_keeping_the_laws(&JsonCodec::default(), &b, &x, &y).map_err(TestCaseError::fail)?;
        clean_result_passes(&m, &b, &x, &y, map_problems).map_err(TestCaseError::fail)?;
        if m.open_conflicts == 0 {
            let text = String::from_utf8(m.text).unwrap();
            // Every object either side added is in the merge (renumbered or not), at its x.
            let merged: Value = serde_json::from_str(&text).unwrap();
            let xs = |v: &Value| -> Vec<u64> {
                let mut xs: Vec<u64> = v["layers"].as_array().into_iter().flatten()
                    .flat_map(|l| l["objects"].as_array().into_iter().flatten()).filter_map(|o| o["x"].as_u64()).collect();
                xs.sort_unstable();
                xs
            };
            let added = |side: &str| {
                let v: Value = serde_json::from_str(side).unwrap();
                let base_ids: Vec<u64> = Map::base().ids().into_iter().map(u64::from).collect();
                v["layers"].as_array().into_iter().flatten().flat_map(|l| l["objects"].as_array().into_iter().flatten())
                    .filter(|o| !base_ids.contains(&o["id"].as_u64().unwrap_or(0))).filter_map(|o| o["x"].as_u64()).collect::<Vec<_>>()
            };
            let merged_xs = xs(&merged);
            for x in added(&x).into_iter().chain(added(&y)) {
                prop_assert!(merged_xs.contains(&x), "an added object at x {} is missing:\n{}", x, text);
            }
        }
    }
}

/// A map with one tile layer, whose tilesets each side may add to (Tiled gives a new tileset
/// the first gid after the last one's tiles) and whose cells each side paints.
#[derive(Debug, Clone)]
struct TileMap {
    /// Name and tile count of each tileset, in order.
    tilesets: Vec<(String, u32)>,
    /// Each cell's tile: the tileset's name and the tile's local id.
    cells: Vec<Option<(String, u32)>>,
}

#[derive(Debug, Clone)]
enum TileEdit {
    AddTileset { tiles: u32 },
    Paint { cell: usize, tileset: usize, tile: u32, flipped: bool },
}

impl TileMap {
    fn base() -> TileMap {
        TileMap { tilesets: vec![("base".to_owned(), 8)], cells: vec![Some(("base".to_owned(), 1)), None, None, None, None, None] }
    }

    fn firstgids(&self) -> Vec<u32> {
        self.tilesets.iter().scan(1, |next, (_, tiles)| Some(std::mem::replace(next, *next + tiles))).collect()
    }

    fn apply(&mut self, edit: &TileEdit, side: &str) {
        match *edit {
            TileEdit::AddTileset { tiles } => {
                let name = format!("{side}{}", self.tilesets.len());
                self.tilesets.push((name, tiles));
            }
            // A flipped tile keeps its tileset and id: the flag bits are not part of it.
            TileEdit::Paint { cell, tileset, tile, .. } => {
                let (name, tiles) = &self.tilesets[tileset % self.tilesets.len()];
                self.cells[cell % 6] = Some((name.clone(), tile % tiles));
            }
        }
    }

    fn json(&self, flipped_cells: &[usize]) -> String {
        let firstgids = self.firstgids();
        let gid = |(i, cell): (usize, &Option<(String, u32)>)| match cell {
            None => 0u64,
            Some((name, tile)) => {
                let at = self.tilesets.iter().position(|(n, _)| n == name).unwrap();
                let flip = if flipped_cells.contains(&i) { 0x8000_0000 } else { 0 };
                u64::from(firstgids[at] + tile) | flip
            }
        };
        let data: Vec<String> = self.cells.iter().enumerate().map(gid).map(|g| g.to_string()).collect();
        let tilesets: Vec<String> = self
            .tilesets
            .iter()
            .zip(&firstgids)
            .map(|((name, tiles), first)| {
                format!("  {{ \"firstgid\":{first}, \"name\":\"{name}\", \"tilecount\":{tiles}, \"tilewidth\":16 }}")
            })
            .collect();
        format!(
            "{{ \"height\":2,\n \"layers\":[\n  {{ \"data\":[{}],\n   \"height\":2, \"id\":1, \"name\":\"ground\", \"type\":\"tilelayer\", \"width\":3 }}],\n \"nextlayerid\":2, \"nextobjectid\":1, \"tiledversion\":\"1.10.2\",\n \"tilesets\":[\n{}]\n}}\n",
            data.join(", "),
            tilesets.join(",\n")
        )
    }
}

/// Each cell's tile as a map says it: the name of the tileset whose range holds the gid and
/// the tile's local id; an error where tilesets overlap.
fn painted(text: &str) -> Result<Vec<Option<(String, u64)>>, String> {
    let map: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let tilesets: Vec<(u64, u64, String)> = map["tilesets"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| (t["firstgid"].as_u64().unwrap(), t["tilecount"].as_u64().unwrap(), t["name"].as_str().unwrap().to_owned()))
        .collect();
    for pair in tilesets.windows(2) {
        if pair[0].0 + pair[0].1 > pair[1].0 {
            return Err(format!("tilesets {} and {} share gids", pair[0].2, pair[1].2));
        }
    }
    let cells = map["layers"][0]["data"].as_array().ok_or("no data")?;
    Ok(cells
        .iter()
        .map(|g| {
            let gid = g.as_u64().unwrap() & 0x0FFF_FFFF;
            tilesets.iter().rev().find(|(first, _, _)| gid != 0 && *first <= gid).map(|(first, _, name)| (name.clone(), gid - first))
        })
        .collect())
}

fn tile_edits() -> impl Strategy<Value = Vec<TileEdit>> {
    let edit = prop_oneof![
        (1u32..20).prop_map(|tiles| TileEdit::AddTileset { tiles }),
        ((0usize..6), (0usize..4), (0u32..20), any::<bool>()).prop_map(|(cell, tileset, tile, flipped)| TileEdit::Paint {
            cell,
            tileset,
            tile,
            flipped
        }),
    ];
    prop::collection::vec(edit, 0..5)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Tilesets both sides add get one gid range each, and every cell one side painted (the
    /// other left it) shows the tile that side painted.
    #[test]
    fn tiled_tilesets_both_sides_add_keep_their_tiles(ours_edits in tile_edits(), theirs_edits in tile_edits()) {
        let base = TileMap::base();
        let side = |edits: &[TileEdit], name: &str| {
            let mut map = base.clone();
            for e in edits {
                map.apply(e, name);
            }
            let flipped: Vec<usize> = edits.iter().filter_map(|e| match e { TileEdit::Paint { cell, flipped: true, .. } => Some(cell % 6), _ => None }).collect();
            (map.json(&flipped), painted(&map.json(&flipped)).unwrap())
        };
        let (b, base_cells) = (base.json(&[]), painted(&base.json(&[])).unwrap());
        let (x, ours_cells) = side(&ours_edits, "o");
        let (y, theirs_cells) = side(&theirs_edits, "t");
        let m = merge_keeping_the_laws(&JsonCodec::default(), &b, &x, &y).map_err(TestCaseError::fail)?;
        // Cells both sides painted are the only conflicts there can be.
        let data = |text: &str| serde_json::from_str::<Value>(text).unwrap()["layers"][0]["data"].clone();
        let (base_data, ours_data, theirs_data) = (data(&b), data(&x), data(&y));
        // Painted alike: the same gid, meaning the same tile of the same tileset on both sides.
        let both_painted = (0..6).any(|i| {
            ours_data[i] != base_data[i] && theirs_data[i] != base_data[i] && (ours_data[i] != theirs_data[i] || ours_cells[i] != theirs_cells[i])
        });
        prop_assert!(both_painted || m.open_conflicts == 0, "a conflict where no cell was painted twice:\n{}", String::from_utf8_lossy(&m.text));
        if m.open_conflicts == 0 {
            let text = String::from_utf8(m.text).unwrap();
            let merged = painted(&text).map_err(|e| TestCaseError::fail(format!("{e}:\n{text}")))?;
            for (i, cell) in merged.iter().enumerate() {
                for (mine, other) in [(&ours_cells, &theirs_cells), (&theirs_cells, &ours_cells)] {
                    if mine[i] != base_cells[i] && other[i] == base_cells[i] {
                        prop_assert_eq!(cell, &mine[i], "cell {} in:\n{}", i, text);
                    }
                }
            }
        }
    }
}
