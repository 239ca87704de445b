//! The spliced merge (parts copied from the side that changed them) and the whole merge (every
//! object read and merged) agree on generated edits: both clean with the same bytes, or both
//! left with conflicts. The edits are the ones that trip a splice: nodes of one name added in
//! several places, subtrees deleted under the other side's edits, resources added (the header
//! counts them) or removed and their ids handed to others, as Godot 3 renumbers them on save;
//! in Godot 3's form and in Godot 4's (string ids, `uid`s, nodes' `unique_id`).

use levelmerge_godot::GodotCodec;
use levelmerge_testutils::corpus::splice_agrees_with_whole_merge;
use proptest::prelude::*;
use std::hash::BuildHasher;

/// How a scene is written.
#[derive(Clone, Copy, Debug)]
enum Format {
    /// Resources numbered in order (renumbered when one goes), `ExtResource( 1 )`.
    Godot3,
    /// Resources under string ids that stay, `uid`s, nodes with a `unique_id`.
    Godot4,
}

/// A scene as Godot writes it: nodes in tree order.
#[derive(Clone, Debug)]
struct Scene {
    textures: Vec<&'static str>,
    /// Sub-resources, by their one property's value.
    shapes: Vec<u8>,
    /// Root first; each node's parent comes before it.
    nodes: Vec<Node>,
    /// Signals from one node to another, by index.
    connections: Vec<(usize, usize)>,
}

#[derive(Clone, Debug)]
struct Node {
    name: &'static str,
    parent: Option<usize>,
    kind: &'static str,
    position: Option<u8>,
    /// An index into `textures`.
    texture: Option<usize>,
    /// Godot 4.6's `unique_id`: given when the node is made, kept through renames and moves.
    unique_id: u64,
}

#[derive(Clone, Debug)]
enum Edit {
    AddChild { parent: usize, name: &'static str, kind: &'static str },
    Delete(usize),
    Move(usize, u8),
    UseTexture(usize, usize),
    AddTexture(&'static str),
    RemoveTexture(usize),
    Rename(usize, &'static str),
    Connect(usize, usize),
    AddShape(u8),
    RemoveShape(usize),
}

impl Scene {
    fn base() -> Scene {
        let node = |name, parent, texture, unique_id| Node { name, parent, kind: "Sprite", position: None, texture, unique_id };
        Scene {
            textures: vec!["a", "b"],
            shapes: vec![1],
            nodes: vec![
                Node { name: "Root", parent: None, kind: "Node2D", position: None, texture: None, unique_id: 1 },
                node("A", Some(0), Some(0), 2),
                node("B", Some(1), None, 3),
                node("C", Some(0), Some(1), 4),
                node("D", Some(3), None, 5),
            ],
            connections: vec![(3, 1)],
        }
    }

    /// The path of a node, for finding it again after the tree changed.
    fn path(&self, i: usize) -> String {
        match self.nodes[i].parent {
            None => ".".to_owned(),
            Some(0) => self.nodes[i].name.to_owned(),
            Some(p) => format!("{}/{}", self.path(p), self.nodes[i].name),
        }
    }

    fn subtree(&self, i: usize) -> Vec<usize> {
        let mut all = vec![i];
        let mut at = 0;
        while at < all.len() {
            let p = all[at];
            all.extend((0..self.nodes.len()).filter(|&c| self.nodes[c].parent == Some(p)));
            at += 1;
        }
        all
    }

    fn apply(&mut self, edit: &Edit) {
        let n = self.nodes.len();
        match *edit {
            Edit::AddChild { parent, name, kind } => {
                let parent = parent % n;
                // Godot gives a new node a name its siblings do not have.
                if self.nodes.iter().any(|o| o.parent == Some(parent) && o.name == name) {
                    return;
                }
                // Godot writes a new child after its parent's subtree.
                let at = self.subtree(parent).into_iter().max().unwrap_or(parent) + 1;
                // The same node made on both sides gets the same id; any other, another.
                let unique_id = rustc_hash::FxBuildHasher.hash_one((self.path(parent), name, kind)) % 1_000_000_000 + 100;
                let node = Node { name, parent: Some(parent), kind, position: None, texture: None, unique_id };
                let shifted = |p: usize| if p >= at { p + 1 } else { p };
                for other in &mut self.nodes {
                    other.parent = other.parent.map(shifted);
                }
                for (from, to) in &mut self.connections {
                    (*from, *to) = (shifted(*from), shifted(*to));
                }
                self.nodes.insert(at, node);
            }
            Edit::Delete(i) if n > 1 => {
                let gone = self.subtree(1 + i % (n - 1));
                let kept: Vec<usize> = (0..n).filter(|i| !gone.contains(i)).collect();
                let moved = |i: usize| kept.iter().position(|&k| k == i);
                let nodes = kept
                    .iter()
                    .map(|&i| {
                        let mut node = self.nodes[i].clone();
                        node.parent = node.parent.map(|p| moved(p).expect("a kept node's parent is kept"));
                        node
                    })
                    .collect();
                self.nodes = nodes;
                self.connections = self.connections.iter().filter_map(|&(f, t)| Some((moved(f)?, moved(t)?))).collect();
            }
            Edit::Delete(_) => {}
            Edit::Move(i, to) => self.nodes[i % n].position = Some(to),
            Edit::UseTexture(i, t) if !self.textures.is_empty() => self.nodes[i % n].texture = Some(t % self.textures.len()),
            Edit::UseTexture(..) => {}
            Edit::AddTexture(path) => {
                if !self.textures.contains(&path) {
                    self.textures.push(path);
                }
            }
            Edit::RemoveTexture(t) if !self.textures.is_empty() => {
                let t = t % self.textures.len();
                self.textures.remove(t);
                for node in &mut self.nodes {
                    node.texture = match node.texture {
                        Some(u) if u == t => None,
                        Some(u) if u > t => Some(u - 1),
                        other => other,
                    };
                }
            }
            Edit::RemoveTexture(_) => {}
            Edit::Rename(i, name) if n > 1 => {
                let i = 1 + i % (n - 1);
                let parent = self.nodes[i].parent;
                if !self.nodes.iter().any(|o| o.parent == parent && o.name == name) {
                    self.nodes[i].name = name;
                }
            }
            Edit::Rename(..) => {}
            Edit::AddShape(v) => self.shapes.push(v),
            Edit::RemoveShape(i) if !self.shapes.is_empty() => {
                self.shapes.remove(i % self.shapes.len());
            }
            Edit::RemoveShape(_) => {}
            Edit::Connect(from, to) => {
                let c = (from % n, to % n);
                if !self.connections.contains(&c) {
                    self.connections.push(c);
                }
            }
        }
    }

    fn text(&self, format: Format) -> String {
        let loaded = self.textures.len() + self.shapes.len() + 1;
        let mut out = match format {
            Format::Godot3 => format!("[gd_scene load_steps={loaded} format=2]\n\n"),
            Format::Godot4 => format!("[gd_scene load_steps={loaded} format=3 uid=\"uid://base\"]\n\n"),
        };
        for (i, t) in self.textures.iter().enumerate() {
            out.push_str(&match format {
                Format::Godot3 => format!("[ext_resource path=\"res://{t}.png\" type=\"Texture\" id={}]\n", i + 1),
                Format::Godot4 => format!("[ext_resource type=\"Texture2D\" uid=\"uid://{t}\" path=\"res://{t}.png\" id=\"1_{t}\"]\n"),
            });
        }
        for (i, v) in self.shapes.iter().enumerate() {
            out.push_str(&match format {
                Format::Godot3 => format!("\n[sub_resource type=\"RectangleShape2D\" id={}]\nextents = Vector2( {v}, {v} )\n", i + 1),
                Format::Godot4 => {
                    format!("\n[sub_resource type=\"RectangleShape2D\" id=\"RectangleShape2D_{v}{i}\"]\nsize = Vector2({v}, {v})\n")
                }
            });
        }
        for node in &self.nodes {
            out.push('\n');
            let parent = match node.parent {
                None => String::new(),
                Some(0) => " parent=\".\"".to_owned(),
                Some(p) => format!(" parent=\"{}\"", self.path(p)),
            };
            let unique_id = match format {
                Format::Godot3 => String::new(),
                Format::Godot4 => format!(" unique_id={}", node.unique_id),
            };
            out.push_str(&format!("[node name=\"{}\" type=\"{}\"{parent}{unique_id}]\n", node.name, node.kind));
            match (node.position, format) {
                (Some(x), Format::Godot3) => out.push_str(&format!("position = Vector2( {x}, 0 )\n")),
                (Some(x), Format::Godot4) => out.push_str(&format!("position = Vector2({x}, 0)\n")),
                (None, _) => {}
            }
            match (node.texture, format) {
                (Some(t), Format::Godot3) => out.push_str(&format!("texture = ExtResource( {} )\n", t + 1)),
                (Some(t), Format::Godot4) => out.push_str(&format!("texture = ExtResource(\"1_{}\")\n", self.textures[t])),
                (None, _) => {}
            }
        }
        if !self.connections.is_empty() {
            out.push('\n');
        }
        for &(from, to) in &self.connections {
            out.push_str(&format!(
                "[connection signal=\"changed\" from=\"{}\" to=\"{}\" method=\"_on_changed\"]\n",
                self.path(from),
                self.path(to)
            ));
        }
        out
    }
}

fn edit() -> impl Strategy<Value = Edit> {
    let name = prop::sample::select(vec!["X", "Y", "A"]);
    // A container settles its children's positions: a conflict there is the whole file's.
    let kind = prop::sample::select(vec!["Node2D", "Sprite", "VBoxContainer"]);
    prop_oneof![
        1 => (0usize..8, name, kind).prop_map(|(parent, name, kind)| Edit::AddChild { parent, name, kind }),
        1 => (0usize..8).prop_map(Edit::Delete),
        // Often both sides move one node: a conflict inside one section.
        3 => (0usize..8, 1u8..4).prop_map(|(i, to)| Edit::Move(i, to)),
        1 => (0usize..8, 0usize..4).prop_map(|(i, t)| Edit::UseTexture(i, t)),
        1 => prop::sample::select(vec!["a", "c", "d"]).prop_map(Edit::AddTexture),
        1 => (0usize..4).prop_map(Edit::RemoveTexture),
        1 => (0usize..8, prop::sample::select(vec!["X", "R"])).prop_map(|(i, name)| Edit::Rename(i, name)),
        1 => (0usize..8, 0usize..8).prop_map(|(from, to)| Edit::Connect(from, to)),
        1 => (1u8..4).prop_map(Edit::AddShape),
        1 => (0usize..4).prop_map(Edit::RemoveShape),
    ]
}

fn version(edits: &[Edit], format: Format) -> String {
    let mut scene = Scene::base();
    for e in edits {
        scene.apply(e);
    }
    scene.text(format)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn the_spliced_merge_agrees_with_the_whole_merge(
        ours in prop::collection::vec(edit(), 0..4),
        theirs in prop::collection::vec(edit(), 0..4),
        format in prop::sample::select(vec![Format::Godot3, Format::Godot4]),
    ) {
        let (base, ours, theirs) = (version(&[], format), version(&ours, format), version(&theirs, format));
        splice_agrees_with_whole_merge(&GodotCodec, &base, &ours, &theirs).map_err(TestCaseError::fail)?;
    }
}

/// What Godot needs of a scene, read off its text alone (not through the codec): no conflict
/// markers, each node path once, every parent and connection end a node, every resource used
/// defined.
fn scene_problems(text: &str) -> Vec<String> {
    let attr = |line: &str, name: &str| -> Option<String> {
        let rest = &line[line.find(&format!(" {name}="))? + name.len() + 2..];
        match rest.strip_prefix('"') {
            Some(quoted) => Some(quoted[..quoted.find('"')?].to_owned()),
            None => rest.split([' ', ']']).next().map(str::to_owned),
        }
    };
    let mut problems = Vec::new();
    let (mut nodes, mut parents, mut ends, mut defined, mut used) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for line in text.lines() {
        if ["<<<<<<<", "=======", ">>>>>>>"].iter().any(|m| line.starts_with(m)) {
            problems.push(format!("conflict marker: {line}"));
        } else if line.starts_with("[ext_resource") || line.starts_with("[sub_resource") {
            defined.extend(attr(line, "id"));
        } else if line.starts_with("[node") {
            let name = attr(line, "name").unwrap_or_default();
            let path = match attr(line, "parent") {
                None => ".".to_owned(),
                Some(p) if p == "." => name,
                Some(p) => format!("{p}/{name}"),
            };
            parents.extend(attr(line, "parent"));
            nodes.push(path);
        } else if line.starts_with("[connection") {
            ends.extend(attr(line, "from").into_iter().chain(attr(line, "to")));
        } else {
            for (at, _) in line.match_indices("Resource(") {
                let inner = &line[at + "Resource(".len()..];
                used.push(inner[..inner.find(')').unwrap_or(0)].trim().trim_matches('"').to_owned());
            }
        }
    }
    problems.extend(levelmerge_testutils::laws::repeated("node", &nodes));
    for path in parents.iter().chain(&ends) {
        if !nodes.contains(path) {
            problems.push(format!("no node {path}"));
        }
    }
    for id in &used {
        if !defined.contains(id) {
            problems.push(format!("resource {id} used, not defined"));
        }
    }
    problems
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn clean_merges_are_scenes_godot_opens(
        ours in prop::collection::vec(edit(), 0..4),
        theirs in prop::collection::vec(edit(), 0..4),
        format in prop::sample::select(vec![Format::Godot3, Format::Godot4]),
    ) {
        let (base, ours, theirs) = (version(&[], format), version(&ours, format), version(&theirs, format));
        levelmerge_testutils::laws::clean_merge_passes(&GodotCodec, &base, &ours, &theirs, scene_problems).map_err(TestCaseError::fail)?;
    }
}

#[test]
fn the_scene_check_of_these_tests_finds_what_godot_would_refuse() {
    let sound = version(&[Edit::AddChild { parent: 0, name: "X", kind: "Sprite" }, Edit::UseTexture(1, 0)], Format::Godot4);
    assert_eq!(scene_problems(&sound), Vec::<String>::new(), "{sound}");
    let orphan = sound.replace("parent=\".\"", "parent=\"Gone\"");
    assert!(scene_problems(&orphan).iter().any(|p| p == "no node Gone"), "{orphan}");
    let twice = format!("{sound}\n[node name=\"X\" type=\"Sprite\" parent=\".\"]\n");
    assert!(scene_problems(&twice).iter().any(|p| p == "node X twice"));
    let undefined = sound.replace("id=\"1_", "id=\"9_");
    assert!(scene_problems(&undefined).iter().any(|p| p.starts_with("resource 1_")), "{undefined}");
}
