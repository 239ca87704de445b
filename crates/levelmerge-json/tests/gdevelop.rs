//! GDevelop layouts where both sides add and delete objects and layers and place, move and
//! remove instances: every clean merge is a layout GDevelop opens as both sides meant it (each
//! object, layer and instance once, every instance of an object on a layer that exist).

use levelmerge_json::JsonCodec;
use levelmerge_testutils::laws::{clean_result_passes, merge_keeping_the_laws, repeated};
use proptest::prelude::*;
use serde_json::Value;

const NAMES: [&str; 4] = ["Player", "Enemy", "Coin", "Door"];
const LAYERS: [&str; 3] = ["Base", "Front", "Back"];

#[derive(Debug, Clone)]
struct Layout {
    objects: Vec<&'static str>,
    layers: Vec<&'static str>,
    /// Placed instances: uuid, object, layer, x.
    instances: Vec<(String, &'static str, &'static str, u32)>,
    side: char,
    made: u32,
}

#[derive(Debug, Clone)]
enum Edit {
    AddObject(usize),
    DeleteObject(usize),
    AddLayer(usize),
    DeleteLayer(usize),
    Place(usize, usize, u32),
    Move(usize, u32),
    Remove(usize),
}

impl Layout {
    fn base(side: char) -> Layout {
        Layout {
            objects: vec!["Player", "Enemy"],
            layers: vec!["Base", "Front"],
            instances: vec![("u1".into(), "Player", "Base", 0), ("u2".into(), "Enemy", "Front", 10)],
            side,
            made: 0,
        }
    }

    fn apply(&mut self, edit: &Edit) {
        match *edit {
            Edit::AddObject(n) if !self.objects.contains(&NAMES[n % NAMES.len()]) => self.objects.push(NAMES[n % NAMES.len()]),
            // GDevelop removes an object's instances, and a layer's, with it.
            Edit::DeleteObject(at) if !self.objects.is_empty() => {
                let gone = self.objects.remove(at % self.objects.len());
                self.instances.retain(|i| i.1 != gone);
            }
            Edit::AddLayer(n) if !self.layers.contains(&LAYERS[n % LAYERS.len()]) => self.layers.push(LAYERS[n % LAYERS.len()]),
            Edit::DeleteLayer(at) if self.layers.len() > 1 => {
                let gone = self.layers.remove(at % self.layers.len());
                self.instances.retain(|i| i.2 != gone);
            }
            Edit::Place(object, layer, x) if !self.objects.is_empty() => {
                self.made += 1;
                let (object, layer) = (self.objects[object % self.objects.len()], self.layers[layer % self.layers.len()]);
                self.instances.push((format!("{}{}", self.side, self.made), object, layer, x));
            }
            Edit::Move(at, x) if !self.instances.is_empty() => {
                let at = at % self.instances.len();
                self.instances[at].3 = x;
            }
            Edit::Remove(at) if !self.instances.is_empty() => {
                self.instances.remove(at % self.instances.len());
            }
            _ => {}
        }
    }

    fn json(&self) -> String {
        let lines = |items: Vec<String>| items.join(",\n");
        let objects = lines(self.objects.iter().map(|n| format!("    {{ \"name\": \"{n}\", \"type\": \"Sprite\" }}")).collect());
        let layers = lines(self.layers.iter().map(|n| format!("    {{ \"name\": \"{n}\", \"visibility\": true }}")).collect());
        let instances = lines(
            self.instances
                .iter()
                .map(|(uuid, object, layer, x)| {
                    format!("    {{ \"layer\": \"{layer}\", \"name\": \"{object}\", \"persistentUuid\": \"{uuid}\", \"x\": {x} }}")
                })
                .collect(),
        );
        format!("{{\n  \"gdVersion\": {{ \"major\": 5 }},\n  \"layers\": [\n{layers}\n  ],\n  \"objects\": [\n{objects}\n  ],\n  \"instances\": [\n{instances}\n  ]\n}}\n")
    }
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        (0usize..4).prop_map(Edit::AddObject),
        (0usize..4).prop_map(Edit::DeleteObject),
        (0usize..3).prop_map(Edit::AddLayer),
        (0usize..3).prop_map(Edit::DeleteLayer),
        ((0usize..4), (0usize..3), (0u32..50)).prop_map(|(o, l, x)| Edit::Place(o, l, x)),
        ((0usize..6), (0u32..50)).prop_map(|(i, x)| Edit::Move(i, x)),
        (0usize..6).prop_map(Edit::Remove),
    ];
    prop::collection::vec(edit, 0..5)
}

fn version(side: char, edits: &[Edit]) -> String {
    let mut l = Layout::base(side);
    for e in edits {
        l.apply(e);
    }
    l.json()
}

fn layout_problems(text: &str) -> Vec<String> {
    let l: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return vec![format!("not JSON: {e}")],
    };
    let names = |array: &str, key: &str| -> Vec<String> {
        l[array].as_array().into_iter().flatten().filter_map(|o| o[key].as_str().map(str::to_owned)).collect()
    };
    let (objects, layers, uuids) = (names("objects", "name"), names("layers", "name"), names("instances", "persistentUuid"));
    let mut problems = Vec::new();
    for (what, list) in [("object", &objects), ("layer", &layers), ("instance", &uuids)] {
        problems.extend(repeated(what, list));
    }
    for i in l["instances"].as_array().into_iter().flatten() {
        let (object, layer) = (i["name"].as_str().unwrap_or(""), i["layer"].as_str().unwrap_or(""));
        if !objects.iter().any(|o| o == object) {
            problems.push(format!("instance {} of missing object {object}", i["persistentUuid"]));
        }
        if !layers.iter().any(|n| n == layer) {
            problems.push(format!("instance {} on missing layer {layer}", i["persistentUuid"]));
        }
    }
    problems
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn gdevelop_merges_keep_the_laws_and_give_layouts_gdevelop_opens(ours_edits in edits(), theirs_edits in edits()) {
        let b = Layout::base('b').json();
        let x = version('o', &ours_edits);
        let y = version('t', &theirs_edits);
        let m = merge_keeping_the_laws(&JsonCodec::default(), &b, &x, &y).map_err(TestCaseError::fail)?;
        clean_result_passes(&m, &b, &x, &y, layout_problems).map_err(TestCaseError::fail)?;
    }
}
