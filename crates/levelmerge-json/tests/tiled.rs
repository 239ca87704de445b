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

/// A side that gives one new id to two objects (a map already broken) and whose id ours also
/// gave a new object: which of its two objects would move is a guess, so the map is refused
/// whichever side holds it (the command line then merges the lines), never merged with the
/// unmoved one read as ours' object.
#[test]
fn a_new_id_a_side_gives_twice_is_refused_on_either_side() {
    use levelmerge_core::{merge_texts, Options, Sides};
    let base = Map::base();
    let mut ours = base.clone();
    ours.apply(&Edit::Add { layer: 0, x: 70, target: None });
    let mut twice = base.clone();
    twice.apply(&Edit::Add { layer: 0, x: 80, target: None });
    twice.layers[0].push(Object { id: twice.next_id - 1, x: 90, target: None });
    let (b, o, t) = (base.json(), ours.json(), twice.json());
    for (ours, theirs) in [(&o, &t), (&t, &o)] {
        let merged = merge_texts(
            &JsonCodec::default(),
            Sides::new(b.as_bytes(), ours.as_bytes(), theirs.as_bytes()),
            &Options::default(),
            &Default::default(),
        );
        let refusal = merged.map(|m| m.open_conflicts).expect_err("a map with one object id twice is refused");
        assert!(refusal.to_string().contains("duplicate id"), "{refusal}");
    }
}

/// An earlier merge gave theirs' new object a fresh id (ours' had taken its id); merged with
/// theirs again from the older base (a cherry-pick, a criss-cross history), the object is the
/// copy ours holds: one object, whichever side is ours.
#[test]
fn a_merge_that_renumbered_theirs_merged_with_theirs_again_holds_each_object_once() {
    use levelmerge_core::{merge_texts, MergeOutcome, Options, Sides};
    let merge = |b: &str, o: &str, t: &str| -> MergeOutcome {
        let sides = Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes());
        merge_texts(&JsonCodec::default(), sides, &Options::default(), &Default::default()).expect("the merge runs")
    };
    let objects = |text: &[u8]| -> Vec<(u64, u64)> {
        let map: Value = serde_json::from_slice(text).unwrap();
        let mut found: Vec<(u64, u64)> = map["layers"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|l| l["objects"].as_array().unwrap())
            .map(|o| (o["id"].as_u64().unwrap(), o["x"].as_u64().unwrap()))
            .collect();
        found.sort_unstable();
        found
    };
    let base = Map::base();
    let (mut ours, mut theirs) = (base.clone(), base.clone());
    ours.apply(&Edit::Add { layer: 0, x: 70, target: None });
    theirs.apply(&Edit::Add { layer: 0, x: 80, target: None });
    let (b, o, t) = (base.json(), ours.json(), theirs.json());
    let once = merge(&b, &o, &t);
    assert_eq!(once.open_conflicts, 0);
    let with = |added: &[(u64, u64)]| [(1, 10), (2, 20), (3, 30), (4, 40), (5, 50)].iter().chain(added).copied().collect::<Vec<_>>();
    assert_eq!(objects(&once.text), with(&[(6, 70), (7, 80)]));
    let once = String::from_utf8(once.text).unwrap();
    let again = merge(&b, &once, &t);
    assert_eq!(again.open_conflicts, 0);
    assert_eq!(String::from_utf8(again.text).unwrap(), once);
    assert!(
        again.notes.iter().any(|n| n == "theirs' new object 6 is ours' 7: ours holds it already (a copy but for the id)"),
        "{:?}",
        again.notes
    );
    // The sides swapped: ours' object keeps its id, and theirs' other one moves off it.
    let swapped = merge(&b, &t, &once);
    assert_eq!(swapped.open_conflicts, 0);
    assert_eq!(objects(&swapped.text), with(&[(6, 80), (8, 70)]));
    assert_eq!(map_problems(std::str::from_utf8(&swapped.text).unwrap()), Vec::<String>::new());
    // Two copies in ours: which one theirs' object is, is not guessed (both kept, as added).
    let twice = once.replace(
        "{ \"id\":7, \"name\":\"\", \"x\":80, \"y\":0 }",
        "{ \"id\":7, \"name\":\"\", \"x\":80, \"y\":0 },\n        { \"id\":8, \"name\":\"\", \"x\":80, \"y\":0 }",
    );
    assert_ne!(twice, once);
    let r = merge(&b, &twice, &t);
    assert_eq!(objects(&r.text).iter().filter(|(_, x)| *x == 80).count(), 3);
    // An object both sides added alike under one id is no copy's place: theirs' second object
    // like it is its own, and, under the id ours gave another, is renumbered.
    let (mut ours, mut theirs) = (base.clone(), base.clone());
    for (side, second) in [(&mut ours, 10), (&mut theirs, 80)] {
        side.apply(&Edit::Add { layer: 0, x: 80, target: None });
        side.apply(&Edit::Add { layer: 0, x: second, target: None });
    }
    let r = merge(&b, &ours.json(), &theirs.json());
    assert_eq!(r.open_conflicts, 0);
    assert_eq!(objects(&r.text), with(&[(6, 80), (7, 10), (8, 80)]));
}

/// A map with one tile layer, whose tilesets each side may add to, remove or grow, and whose
/// cells each side paints. As Tiled does, a tileset's first gid is where the one before it
/// ends: removing or growing one renumbers every later tileset and its tiles.
#[derive(Debug, Clone)]
struct TileMap {
    /// Name and tile count of each tileset, in order.
    tilesets: Vec<(String, u32)>,
    /// Each cell's tile: the tileset's name and the tile's local id.
    cells: Vec<Option<(String, u32)>>,
}

#[derive(Debug, Clone)]
enum TileEdit {
    AddTileset {
        tiles: u32,
    },
    /// Remove a tileset (not the last one left) and erase its tiles.
    RemoveTileset {
        tileset: usize,
    },
    GrowTileset {
        tileset: usize,
        by: u32,
    },
    Paint {
        cell: usize,
        tileset: usize,
        tile: u32,
        flipped: bool,
    },
}

impl TileMap {
    fn base() -> TileMap {
        TileMap {
            tilesets: vec![("base".to_owned(), 8), ("props".to_owned(), 6)],
            cells: vec![Some(("base".to_owned(), 1)), Some(("props".to_owned(), 2)), None, Some(("props".to_owned(), 5)), None, None],
        }
    }

    fn firstgids(&self) -> Vec<u32> {
        self.tilesets.iter().scan(1, |next, (_, tiles)| Some(std::mem::replace(next, *next + tiles))).collect()
    }

    /// `edit`, the `nth` of `side`'s edits (which names a new tileset).
    fn apply(&mut self, edit: &TileEdit, side: &str, nth: usize) {
        match *edit {
            TileEdit::AddTileset { tiles } => self.tilesets.push((format!("{side}{nth}"), tiles)),
            TileEdit::RemoveTileset { tileset } if self.tilesets.len() > 1 => {
                let (name, _) = self.tilesets.remove(tileset % self.tilesets.len());
                for cell in &mut self.cells {
                    if cell.as_ref().is_some_and(|(n, _)| *n == name) {
                        *cell = None;
                    }
                }
            }
            TileEdit::RemoveTileset { .. } => {}
            TileEdit::GrowTileset { tileset, by } => {
                let at = tileset % self.tilesets.len();
                self.tilesets[at].1 += by;
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

/// A map's tilesets (first gid, tile count, name), and each cell's tile as the map says it:
/// the name of the tileset whose range holds the gid and the tile's local id; an error where
/// tilesets overlap or a gid is in no tileset's range.
type Painted = (Vec<(u64, u64, String)>, Vec<Option<(String, u64)>>);

fn painted(text: &str) -> Result<Painted, String> {
    let map: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let mut tilesets: Vec<(u64, u64, String)> = map["tilesets"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| (t["firstgid"].as_u64().unwrap(), t["tilecount"].as_u64().unwrap(), t["name"].as_str().unwrap().to_owned()))
        .collect();
    tilesets.sort();
    for pair in tilesets.windows(2) {
        if pair[0].0 + pair[0].1 > pair[1].0 {
            return Err(format!("tilesets {} and {} share gids", pair[0].2, pair[1].2));
        }
    }
    let cells = map["layers"][0]["data"].as_array().ok_or("no data")?;
    let cell = |g: &Value| {
        let gid = g.as_u64().unwrap() & 0x0FFF_FFFF;
        if gid == 0 {
            return Ok(None);
        }
        let (first, count, name) =
            tilesets.iter().rev().find(|(first, _, _)| *first <= gid).ok_or(format!("gid {gid} below every tileset"))?;
        if gid >= first + count {
            return Err(format!("gid {gid} beyond tileset {name}"));
        }
        Ok(Some((name.clone(), gid - first)))
    };
    Ok((tilesets.clone(), cells.iter().map(cell).collect::<Result<_, String>>()?))
}

fn tile_edits() -> impl Strategy<Value = Vec<TileEdit>> {
    let edit = prop_oneof![
        // New tilesets hold an odd number of tiles, base's an even one, grown by even numbers:
        // a new tileset where base's last was, removed, is never taken for it replaced.
        1 => (0u32..5).prop_map(|n| TileEdit::AddTileset { tiles: 11 + 2 * n }),
        1 => (0usize..4).prop_map(|tileset| TileEdit::RemoveTileset { tileset }),
        1 => ((0usize..4), (1u32..3)).prop_map(|(tileset, by)| TileEdit::GrowTileset { tileset, by: 2 * by }),
        2 => ((0usize..6), (0usize..4), (0u32..20), any::<bool>()).prop_map(|(cell, tileset, tile, flipped)| TileEdit::Paint {
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

    /// Tilesets both sides add get one gid range each, a side that removed or grew a tileset
    /// has the other side's tiles read in its numbering, and every cell one side changed (the
    /// other left it) shows that side's tile, every other cell base's. A conflict, or a merge
    /// refused, comes only from a cell both changed, a tileset both changed (one removed it),
    /// or tiles of a tileset one side removed that the other painted.
    #[test]
    fn tiled_tilesets_added_removed_and_grown_keep_every_tile(ours_edits in tile_edits(), theirs_edits in tile_edits()) {
        let base = TileMap::base();
        let side = |edits: &[TileEdit], name: &str| {
            let mut map = base.clone();
            for (nth, e) in edits.iter().enumerate() {
                map.apply(e, name, nth);
            }
            let flipped: Vec<usize> = edits.iter().filter_map(|e| match e { TileEdit::Paint { cell, flipped: true, .. } => Some(cell % 6), _ => None }).collect();
            let text = map.json(&flipped);
            let (_, cells) = painted(&text).unwrap();
            (text, map, cells)
        };
        let (b, base_cells) = (base.json(&[]), painted(&base.json(&[])).unwrap().1);
        let (x, ours_map, ours_cells) = side(&ours_edits, "o");
        let (y, theirs_map, theirs_cells) = side(&theirs_edits, "t");
        let count = |map: &TileMap, name: &str| map.tilesets.iter().find(|(n, _)| n == name).map(|(_, c)| *c);
        // A base tileset both sides changed differently (removed on one side, grown on either).
        let tileset_contested = base.tilesets.iter().any(|(name, tiles)| {
            let (o, t) = (count(&ours_map, name), count(&theirs_map, name));
            o != Some(*tiles) && t != Some(*tiles) && o != t
        });
        let data = |text: &str| serde_json::from_str::<Value>(text).unwrap()["layers"][0]["data"].clone();
        let flips = |text: &str| (0..6).map(|i| data(text)[i].as_u64().unwrap() & 0xF000_0000).collect::<Vec<_>>();
        let (base_flips, ours_flips, theirs_flips) = (flips(&b), flips(&x), flips(&y));
        // A cell a side changed: another tile, or the same one flipped otherwise.
        let changed = |cells: &[Option<(String, u64)>], flips: &[u64], i: usize| cells[i] != base_cells[i] || flips[i] != base_flips[i];
        // Tiles a side changed of a tileset the other removed.
        let changed_removed = |cells: &[Option<(String, u64)>], flips: &[u64], other: &TileMap| {
            (0..6).any(|i| changed(cells, flips, i) && cells[i].as_ref().is_some_and(|(n, _)| count(other, n).is_none() && count(&base, n).is_some()))
        };
        let uses_removed = changed_removed(&ours_cells, &ours_flips, &theirs_map) || changed_removed(&theirs_cells, &theirs_flips, &ours_map);
        let both_changed = (0..6).any(|i| {
            changed(&ours_cells, &ours_flips, i) && changed(&theirs_cells, &theirs_flips, i)
                && (ours_cells[i] != theirs_cells[i] || ours_flips[i] != theirs_flips[i])
        });
        let may_conflict = both_changed || tileset_contested || uses_removed;
        let m = match merge_keeping_the_laws(&JsonCodec::default(), &b, &x, &y) {
            Ok(m) => m,
            Err(e) if e.starts_with("merge failed") && may_conflict => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(e)),
        };
        prop_assert!(may_conflict || m.open_conflicts == 0, "a conflict where nothing was changed twice:\n{}", String::from_utf8_lossy(&m.text));
        if m.open_conflicts == 0 {
            let text = String::from_utf8(m.text).unwrap();
            let (_, merged) = painted(&text).map_err(|e| TestCaseError::fail(format!("{e}:\n{text}")))?;
            for (i, cell) in merged.iter().enumerate() {
                let want = if changed(&ours_cells, &ours_flips, i) { &ours_cells[i] } else { &theirs_cells[i] };
                prop_assert_eq!(cell, want, "cell {} in:\n{}", i, text);
            }
        }
    }
}

/// An object layer as Tiled writes one, on one line: its objects by id, x and the object their
/// `target` property names.
fn object_layer(id: u32, objects: &[(u32, u32, Option<u32>)]) -> String {
    let objects: Vec<String> = objects
        .iter()
        .map(|(id, x, target)| {
            let properties = target
                .map_or(String::new(), |t| format!(", \"properties\":[{{ \"name\":\"target\", \"type\":\"object\", \"value\":{t} }}]"));
            format!("{{ \"id\":{id}, \"name\":\"o{id}\", \"x\":{x}, \"y\":0{properties} }}")
        })
        .collect();
    format!("    {{ \"id\":{id}, \"name\":\"L{id}\", \"type\":\"objectgroup\", \"objects\":[{}] }}", objects.join(", "))
}

fn map_of(layers: &[String], next_layer: u32) -> String {
    format!(
        "{{ \"height\":10,\n  \"layers\":[\n{}\n  ],\n  \"nextlayerid\":{next_layer},\n  \"nextobjectid\":3,\n  \"type\":\"map\"\n}}\n",
        layers.join(",\n")
    )
}

/// Theirs adds a layer and moves an object into it; ours edits the object. The new layer is
/// theirs' alone, but the object in it is not: it keeps ours' edit, whichever side is ours
/// (the layer, taken whole, wrote the object as theirs has it: ours' edit was lost, exit 0).
#[test]
fn an_object_moved_into_a_layer_one_side_added_keeps_the_other_sides_edits() {
    use levelmerge_core::{merge_objects, merge_texts, Options, Sides};
    let base = map_of(&[object_layer(1, &[(1, 10, None), (2, 20, None)])], 2);
    let ours = map_of(&[object_layer(1, &[(1, 77, None), (2, 20, None)])], 2);
    let theirs = map_of(&[object_layer(1, &[(2, 20, None)]), object_layer(2, &[(1, 10, None)])], 3);
    let want = map_of(&[object_layer(1, &[(2, 20, None)]), object_layer(2, &[(1, 77, None)])], 3);
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let sides = Sides::new(base.as_bytes(), o.as_bytes(), t.as_bytes());
        for merge in [merge_texts::<JsonCodec>, merge_objects::<JsonCodec>] {
            let r = merge(&JsonCodec::default(), sides, &Options::default(), &Default::default()).expect("the merge runs");
            assert_eq!(r.open_conflicts, 0);
            assert_eq!(String::from_utf8(r.text).unwrap(), want);
        }
    }
}

/// Ours deletes layer 1 and clears the reference object 2 held to object 1 in it, as Tiled
/// does; theirs edits object 1. In theirs' view of the conflict, which keeps the layer, the
/// reference names object 1 again; in ours', it stays cleared.
#[test]
fn a_reference_cleared_with_the_deletion_of_what_it_named_comes_back_where_that_is_kept() {
    use levelmerge_core::{merge_texts, Options, Side, Sides};
    let base = map_of(&[object_layer(1, &[(1, 10, None)]), object_layer(2, &[(2, 20, Some(1))])], 3);
    let ours = map_of(&[object_layer(2, &[(2, 20, Some(0))])], 3);
    let theirs = map_of(&[object_layer(1, &[(1, 15, None)]), object_layer(2, &[(2, 20, Some(1))])], 3);
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let sides = Sides::new(base.as_bytes(), o.as_bytes(), t.as_bytes());
        let r = merge_texts(&JsonCodec::default(), sides, &Options::default(), &Default::default()).expect("the merge runs");
        assert_eq!(r.open_conflicts, 1);
        let text = String::from_utf8(r.text).unwrap();
        for (side, want) in [(Side::Ours, o), (Side::Theirs, t)] {
            assert_eq!(&levelmerge_testutils::laws::side_view(&text, side), want, "{side}'s view");
        }
    }
}

/// A map object: its id, name and x.
type Placed<'a> = (u32, &'a str, u32);

/// A map as Tiled writes it, a member or an object a line: layers of `(id, name, objects)`.
fn tiled_lines(layers: &[(u32, &str, &[Placed<'_>])], next_object: u32) -> String {
    let object = |(id, name, x): &Placed<'_>| {
        format!("                {{\n                 \"id\":{id},\n                 \"name\":\"{name}\",\n                 \"x\":{x}\n                }}")
    };
    let layer = |(id, name, objects): &(u32, &str, &[Placed<'_>])| {
        let objects = if objects.is_empty() {
            "[]".to_owned()
        } else {
            format!("[\n{}]", objects.iter().map(object).collect::<Vec<_>>().join(", \n"))
        };
        format!("        {{\n         \"id\":{id},\n         \"name\":\"{name}\",\n         \"objects\":{objects},\n         \"type\":\"objectgroup\"\n        }}")
    };
    let layers: Vec<String> = layers.iter().map(layer).collect();
    format!("{{ \"layers\":[\n{}],\n \"nextlayerid\":3,\n \"nextobjectid\":{next_object},\n \"type\":\"map\"\n}}\n", layers.join(", \n"))
}

/// Theirs moves the chest, as it was, from layer B into the empty layer A; ours adds a lamp
/// to A. The chest's lines, alike in every version, align with where base has them: the
/// list holding them there, B's, was left unread as if it were A's, and A's list read as
/// changed whole by theirs, against ours' lamp: a conflict, whose ours' view lost the chest.
#[test]
fn an_object_moved_as_it_was_into_a_list_the_other_side_added_to_merges_with_it() {
    use levelmerge_core::{merge_objects, merge_texts, Options, Sides};
    let chest: &[Placed<'_>] = &[(1, "chest", 5)];
    let base = tiled_lines(&[(1, "A", &[]), (2, "B", chest)], 2);
    let ours = tiled_lines(&[(1, "A", &[(2, "lamp", 9)]), (2, "B", chest)], 3);
    let theirs = tiled_lines(&[(1, "A", chest), (2, "B", &[])], 2);
    let layer_objects = |text: &[u8]| -> Vec<Vec<u64>> {
        let map: Value = serde_json::from_slice(text).unwrap();
        let ids = |l: &Value| l["objects"].as_array().unwrap().iter().map(|o| o["id"].as_u64().unwrap()).collect();
        map["layers"].as_array().unwrap().iter().map(ids).collect()
    };
    for (o, t, a) in [(&ours, &theirs, vec![2, 1]), (&theirs, &ours, vec![1, 2])] {
        let sides = Sides::new(base.as_bytes(), o.as_bytes(), t.as_bytes());
        for merge in [merge_texts::<JsonCodec>, merge_objects::<JsonCodec>] {
            let r = merge(&JsonCodec::default(), sides, &Options::default(), &Default::default()).expect("the merge runs");
            assert_eq!(r.open_conflicts, 0, "{}", String::from_utf8_lossy(&r.text));
            assert_eq!(layer_objects(&r.text), [a.clone(), vec![]]);
        }
    }
}

/// Ours adds object 13, its property naming object 2, and moves 2 from layer 2 into layer 1;
/// theirs deletes layer 2 (with object 2) and adds a tileset. Object 2's deletion is a
/// conflict. Where the tilesets differ, a view is checked as the text it writes; theirs'
/// view wrote object 13 naming the deleted object 2, which neither that check nor `check`
/// saw (a Tiled reference was followed only where a merge read it), and `resolve` called the
/// view sound. Now a text's object properties are looked up in it, and object 13, one side's
/// addition naming what goes with the conflict, goes with it in theirs' view.
#[test]
fn an_object_one_side_added_naming_one_the_other_deleted_goes_with_that_deletion_in_its_view() {
    use levelmerge_core::{check_text, merge_texts, Options, Side, Sides};
    let map = |layers: &[String], tilesets: &str| {
        format!(
            "{{ \"layers\":[\n{}\n  ],\n  \"nextlayerid\":3,\n  \"nextobjectid\":14,\n  \"tiledversion\":\"1.10.2\",\n  \"tilesets\":[{tilesets}],\n  \"type\":\"map\"\n}}\n",
            layers.join(",\n")
        )
    };
    let tiles = "{ \"firstgid\":1, \"source\":\"tiles.tsx\" }";
    let more_tiles = format!("{tiles}, {{ \"firstgid\":17, \"name\":\"more\", \"tilecount\":8 }}");
    let base = map(&[object_layer(1, &[(1, 10, None)]), object_layer(2, &[(2, 20, None), (3, 30, None)])], tiles);
    let ours = map(&[object_layer(1, &[(1, 10, None), (13, 5, Some(2)), (2, 20, None)]), object_layer(2, &[(3, 30, None)])], tiles);
    let theirs = map(&[object_layer(1, &[(1, 10, None)])], &more_tiles);
    for (o, t, ours_added) in [(&ours, &theirs, true), (&theirs, &ours, false)] {
        let sides = Sides::new(base.as_bytes(), o.as_bytes(), t.as_bytes());
        let r = merge_texts(&JsonCodec::default(), sides, &Options::default(), &Default::default()).expect("the merge runs");
        assert_eq!(r.open_conflicts, 1, "{}", String::from_utf8_lossy(&r.text));
        let text = String::from_utf8(r.text).unwrap();
        for side in [Side::Ours, Side::Theirs] {
            let view = levelmerge_testutils::laws::side_view(&text, side);
            assert!(check_text(&JsonCodec::default(), view.as_bytes()).is_empty(), "{side}'s view:\n{view}");
            let keeps_the_addition = (side == Side::Ours) == ours_added;
            assert_eq!(view.contains("\"id\":13"), keeps_the_addition, "{side}'s view:\n{view}");
        }
    }
    // Such a view, written with the reference, is what `check` now reports.
    let dangling = map(&[object_layer(1, &[(1, 10, None), (13, 5, Some(2))])], &more_tiles);
    let problems = check_text(&JsonCodec::default(), dangling.as_bytes());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].to_string().contains("/objects[13]/properties[target] › value: reference to missing object /objects[2]"),
        "{}",
        problems[0]
    );
}

/// An infinite map's tile layer with chunks (two tiles square, all painted `tile`) at `xs`,
/// within the box `startx`, `width`, as Tiled writes them.
fn infinite_map(chunks: &[(i64, u32)], startx: i64, width: i64) -> String {
    let chunks: Vec<String> = chunks
        .iter()
        .map(|(x, tile)| format!("{{\n      \"data\":[{tile}, {tile}, {tile}, {tile}],\n      \"height\":2,\n      \"width\":2,\n      \"x\":{x},\n      \"y\":0\n     }}"))
        .collect();
    format!(
        "{{ \"infinite\":true,\n \"layers\":[\n  {{\n   \"chunks\":[\n     {}],\n   \"height\":2,\n   \"id\":1,\n   \"name\":\"ground\",\n   \"startx\":{startx},\n   \"starty\":0,\n   \"type\":\"tilelayer\",\n   \"width\":{width}\n  }}],\n \"nextlayerid\":2,\n \"nextobjectid\":1,\n \"tiledversion\":\"1.10.2\",\n \"type\":\"map\"\n}}\n",
        chunks.join(",\n     ")
    )
}

/// Ours paints a chunk right of the layer's one, theirs one left of it: each grows the box
/// the layer states. Merged member by member, the box took theirs' `startx` and the `width`
/// both wrote, and missed ours' chunk (exit 0). It now holds both.
#[test]
fn chunks_both_sides_painted_on_either_side_of_an_infinite_layer_lie_within_its_box() {
    use levelmerge_core::{merge_texts, Options, Sides};
    let base = infinite_map(&[(0, 1)], 0, 2);
    let ours = infinite_map(&[(0, 1), (2, 5)], 0, 4);
    let theirs = infinite_map(&[(-2, 7), (0, 1)], -2, 4);
    let want = infinite_map(&[(-2, 7), (0, 1), (2, 5)], -2, 6);
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let sides = Sides::new(base.as_bytes(), o.as_bytes(), t.as_bytes());
        let r = merge_texts(&JsonCodec::default(), sides, &Options::default(), &Default::default()).expect("the merge runs");
        assert_eq!(r.open_conflicts, 0);
        assert_eq!(String::from_utf8(r.text).unwrap(), want);
    }
}
