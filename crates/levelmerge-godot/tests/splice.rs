//! The spliced merge (parts copied from the side that changed them) and the whole merge (every
//! object read and merged) agree on generated edits: both clean with the same bytes, or both
//! left with conflicts. The edits are the ones that trip a splice: nodes of one name added in
//! several places, subtrees deleted under the other side's edits, resources added (the header
//! counts them) or removed and their ids handed to others, as Godot 3 renumbers them on save.

use levelmerge_godot::GodotCodec;
use levelmerge_testutils::corpus::splice_agrees_with_whole_merge;
use proptest::prelude::*;

/// A scene as Godot 3 writes it: resources numbered in order, nodes in tree order.
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
        let node = |name, parent, texture| Node { name, parent, kind: "Sprite", position: None, texture };
        Scene {
            textures: vec!["a", "b"],
            shapes: vec![1],
            nodes: vec![
                Node { name: "Root", parent: None, kind: "Node2D", position: None, texture: None },
                node("A", Some(0), Some(0)),
                node("B", Some(1), None),
                node("C", Some(0), Some(1)),
                node("D", Some(3), None),
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
                let node = Node { name, parent: Some(parent), kind, position: None, texture: None };
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

    fn text(&self) -> String {
        let mut out = format!("[gd_scene load_steps={} format=2]\n\n", self.textures.len() + self.shapes.len() + 1);
        for (i, t) in self.textures.iter().enumerate() {
            out.push_str(&format!("[ext_resource path=\"res://{t}.png\" type=\"Texture\" id={}]\n", i + 1));
        }
        for (i, v) in self.shapes.iter().enumerate() {
            out.push_str(&format!("\n[sub_resource type=\"RectangleShape2D\" id={}]\nextents = Vector2( {v}, {v} )\n", i + 1));
        }
        for node in &self.nodes {
            out.push('\n');
            match node.parent {
                None => out.push_str(&format!("[node name=\"{}\" type=\"{}\"]\n", node.name, node.kind)),
                Some(p) => {
                    let parent = if p == 0 { ".".to_owned() } else { self.path(p) };
                    out.push_str(&format!("[node name=\"{}\" type=\"{}\" parent=\"{parent}\"]\n", node.name, node.kind));
                }
            }
            if let Some(x) = node.position {
                out.push_str(&format!("position = Vector2( {x}, 0 )\n"));
            }
            if let Some(t) = node.texture {
                out.push_str(&format!("texture = ExtResource( {} )\n", t + 1));
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
    let kind = prop::sample::select(vec!["Node2D", "Sprite"]);
    prop_oneof![
        (0usize..8, name, kind).prop_map(|(parent, name, kind)| Edit::AddChild { parent, name, kind }),
        (0usize..8).prop_map(Edit::Delete),
        (0usize..8, 1u8..4).prop_map(|(i, to)| Edit::Move(i, to)),
        (0usize..8, 0usize..4).prop_map(|(i, t)| Edit::UseTexture(i, t)),
        prop::sample::select(vec!["a", "c", "d"]).prop_map(Edit::AddTexture),
        (0usize..4).prop_map(Edit::RemoveTexture),
        (0usize..8, prop::sample::select(vec!["X", "R"])).prop_map(|(i, name)| Edit::Rename(i, name)),
        (0usize..8, 0usize..8).prop_map(|(from, to)| Edit::Connect(from, to)),
        (1u8..4).prop_map(Edit::AddShape),
        (0usize..4).prop_map(Edit::RemoveShape),
    ]
}

fn version(edits: &[Edit]) -> String {
    let mut scene = Scene::base();
    for e in edits {
        scene.apply(e);
    }
    scene.text()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_spliced_merge_agrees_with_the_whole_merge(ours in prop::collection::vec(edit(), 0..4), theirs in prop::collection::vec(edit(), 0..4)) {
        let (base, ours, theirs) = (Scene::base().text(), version(&ours), version(&theirs));
        splice_agrees_with_whole_merge(&GodotCodec, &base, &ours, &theirs).map_err(TestCaseError::fail)?;
    }
}
