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
