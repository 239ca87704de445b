//! From a Godot file to a level: one object per section.
//!
//! * Identity: the file header is `header`; `[ext_resource]` and `[sub_resource]` are
//!   `ext:ID` and `sub:ID` (ids were made to agree across the versions by [`crate::ids`]);
//!   a `[node]` is `node:` and its path from the root (`.` for the root); a `[connection]` is
//!   its signal, source, target and method (connections are a set); `[editable]` its path.
//!   Sibling nodes sharing a name (files Godot would rename on load) are `node:path#2`, ….
//! * A node's parent node, when the file defines it, is its structural parent: deleting a
//!   node deletes its subtree, and an edit in a deleted subtree is a conflict.
//! * Properties: the tag's attributes under `[tag]` (without `load_steps`, which is derived
//!   and recomputed when written), then each `key = value` line, values compared by their text;
//!   a TileMap's or GridMap's cells are a map from place to cell ([`crate::tiles`]).

use levelmerge_core::model::{Level, Lowered, Object, ObjectId, Origin, RefRole, Reference, Value};
use levelmerge_core::{Problem, Side};

use crate::parse::{unquote, GodotFile, Section};
use crate::refs::resource_refs;
use crate::tiles;

/// The member holding a section's tag attributes.
pub const TAG: &str = "[tag]";

/// Attributes that are derived, never merged.
pub const DERIVED: [&str; 1] = ["load_steps"];

/// What a value's `Origin::node` points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Node {
    /// A whole section (its properties map).
    Section(usize),
    /// A section's tag (its attributes map).
    Tag(usize),
    Attr(usize),
    Prop(usize),
}

impl Node {
    pub fn encode(self, file: &GodotFile<'_>) -> u32 {
        let (s, a) = (file.sections.len(), file.attrs.len());
        (match self {
            Node::Section(i) => i,
            Node::Tag(i) => s + i,
            Node::Attr(i) => 2 * s + i,
            Node::Prop(i) => 2 * s + a + i,
        }) as u32
    }

    pub fn decode(n: u32, file: &GodotFile<'_>) -> Node {
        let (s, a) = (file.sections.len(), file.attrs.len());
        let n = n as usize;
        if n < s {
            Node::Section(n)
        } else if n < 2 * s {
            Node::Tag(n - s)
        } else if n < 2 * s + a {
            Node::Attr(n - 2 * s)
        } else {
            Node::Prop(n - 2 * s - a)
        }
    }
}

/// A node's path from the scene root: `.` for the root, else `parent/name` (`name` under `.`),
/// written after `prefix`.
fn node_path(file: &GodotFile<'_>, s: &Section, prefix: &str) -> Option<String> {
    let [name, parent] = file.attrs_unquoted(s, ["name", "parent"]);
    let name = name?;
    let mut path = String::with_capacity(prefix.len() + parent.map_or(1, |p| p.len() + 1 + name.len()));
    path.push_str(prefix);
    match parent {
        None => path.push('.'),
        Some(".") => path.push_str(name),
        Some(parent) => {
            path.push_str(parent);
            path.push('/');
            path.push_str(name);
        }
    }
    Some(path)
}

/// The identity of every section (computed once per file), `None` where its tag lacks what
/// identifies it. Sibling nodes of one name (Godot renames one when it loads the file) are
/// told apart by their order: `node:path`, `node:path#2`, ….
pub fn section_ids<'f>(file: &'f GodotFile<'_>) -> &'f [Option<ObjectId>] {
    file.ids.get_or_init(|| {
        let mut ids: Vec<Option<String>> = file.sections.iter().map(|s| section_id(file, s)).collect();
        let mut nodes: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::with_capacity_and_hasher(ids.len(), Default::default());
        let mut repeated = Vec::new();
        for (i, (s, id)) in file.sections.iter().zip(&ids).enumerate() {
            if let Some(id) = id.as_deref().filter(|_| file.kind(s) == "node") {
                if !nodes.insert(id) {
                    repeated.push(i);
                }
            }
        }
        if repeated.is_empty() {
            return ids.into_iter().map(|id| id.map(ObjectId::new)).collect();
        }
        let mut taken: rustc_hash::FxHashSet<String> = nodes.into_iter().map(str::to_owned).collect();
        for i in repeated {
            let id = ids[i].take().expect("a repeated id");
            let unique = (2..).map(|n| format!("{id}#{n}")).find(|c| !taken.contains(c)).expect("a free ordinal");
            taken.insert(unique.clone());
            ids[i] = Some(unique);
        }
        ids.into_iter().map(|id| id.map(ObjectId::new)).collect()
    })
}

/// The identity of a section as its tag gives it, or `None` when its tag lacks what
/// identifies it.
fn section_id(file: &GodotFile<'_>, s: &Section) -> Option<String> {
    let a = |k| file.attr_unquoted(s, k);
    Some(match file.kind(s) {
        "gd_scene" | "gd_resource" => "header".to_owned(),
        "ext_resource" => format!("ext:{}", ids_text(a("id")?)),
        "sub_resource" => format!("sub:{}", ids_text(a("id")?)),
        "resource" => "resource".to_owned(),
        "node" => node_path(file, s, "node:")?,
        "connection" => format!("connection:{}|{}|{}|{}", a("signal")?, a("from")?, a("to")?, a("method")?),
        "editable" => format!("editable:{}", a("path")?),
        other => format!("{other}:{}", s.line),
    })
}

/// A resource id as written inside `ExtResource( 1 )` or `id="1_ab"`, without spaces or quotes.
fn ids_text(v: &str) -> &str {
    unquote(v.trim())
}

/// Lower a Godot file.
/// The resource a value uses, when it uses exactly one (`icon = SubResource( 8 )`): the merge
/// then knows the edge, so deleting the resource while the other side starts to use it is a
/// conflict. A value using several stays plain text; the scene checks still see its uses.
fn resource_use(text: &str) -> Option<Reference> {
    match resource_refs(text).as_slice() {
        [one] => Some(Reference { target: ObjectId::new(format!("{}{}", one.table.prefix(), one.id)), role: RefRole::Other }),
        _ => None,
    }
}

pub fn lower<'d>(file: &'d GodotFile<'d>, side: Side) -> Result<Level<'d>, Vec<Problem>> {
    lower_keeping_first(file, side).whole()
}

/// Lower a Godot file, keeping the first of sections that share an identity and refusing the
/// others, and sections without one.
pub fn lower_keeping_first<'d>(file: &'d GodotFile<'d>, side: Side) -> Lowered<'d> {
    let mut level = Level::new();
    level.objects.reserve(file.sections.len());
    let mut problems = Vec::new();
    let mut refused_objects = Vec::new();
    // Nodes this file defines (with a type or an instance). A node without either only
    // overrides properties of a node inside an instanced scene: removing that override leaves
    // the node, and its children, in place, so it is nobody's parent here.
    let mut owners: rustc_hash::FxHashMap<&str, &ObjectId> =
        rustc_hash::FxHashMap::with_capacity_and_hasher(file.sections.len(), Default::default());
    let origin = |n: Node| Origin { side, node: n.encode(file) };
    for (i, (s, id)) in file.sections.iter().zip(section_ids(file)).enumerate() {
        let Some(id) = id else {
            problems.push(Problem::Syntax {
                line: s.line as usize,
                column: 1,
                message: format!("[{}] lacks an identifying attribute", file.kind(s)),
            });
            continue;
        };
        let first_line = level.objects.get(id).map(|first| first.line as usize);
        let props = if s.same_everywhere {
            // Identical in every version: nothing in it can merge differently, so it is one
            // value (the scene checks read its tag and resource references off its text).
            Value::scalar(file.text(s.span), origin(Node::Section(i)), None)
        } else {
            let attr_base = s.attrs.start as usize;
            let is_connection = file.kind(s) == "connection";
            let tag_entries = file
                .attrs_of(s)
                .iter()
                .enumerate()
                .filter(|(_, a)| !DERIVED.contains(&file.text(a.key)))
                .map(|(j, a)| {
                    let (key, value) = (file.text(a.key), file.text(a.value));
                    // A connection's end names a node this version makes: a use of that node
                    // (one under an instanced scene too, which the scene check cannot tell from
                    // a node of that scene).
                    let end = (is_connection && matches!(key, "from" | "to")).then(|| owners.get(unquote(value))).flatten();
                    let reference = match end {
                        Some(&node) => Some(Reference { target: node.clone(), role: RefRole::Other }),
                        None => resource_use(value),
                    };
                    (key, Value::scalar(value, origin(Node::Attr(attr_base + j)), reference))
                })
                .collect();
            let mut entries = vec![(TAG, Value::map(file.text(s.header), origin(Node::Tag(i)), tag_entries))];
            let prop_base = s.props.start as usize;
            // A TileMap's `format` says how its cells are written: read where cells may be.
            let format = || file.props_of(s).iter().find(|p| file.text(p.key) == "format").map(|p| file.text(p.value));
            for (j, p) in file.props_of(s).iter().enumerate() {
                let key = file.key_aliases.get(&((prop_base + j) as u32)).map_or(file.text(p.key), String::as_str);
                let value = file.text(p.value);
                let at = origin(Node::Prop(prop_base + j));
                let cells = tiles::may_hold_cells(key).then(|| tiles::cells(key, value, format())).flatten();
                let lowered = match cells {
                    Some(cells) => Value::keyed_list(
                        value,
                        at,
                        cells.into_iter().map(|(place, rest)| (place, Value::scalar(rest, at, None))).collect(),
                    ),
                    None => Value::scalar(value, at, resource_use(value)),
                };
                entries.push((key, lowered));
            }
            let mut props = Value::map(file.text(s.span), origin(Node::Section(i)), entries);
            props.raw = file.text(s.span);
            props
        };
        let [parent, type_name, instance] =
            if file.kind(s) == "node" { file.attrs_unquoted(s, ["parent", "type", "instance"]) } else { [None; 3] };
        let parent = parent.and_then(|p| owners.get(p)).map(|&p| p.clone());
        let object = Object { id: id.clone(), kind: file.kind(s).to_owned(), parent, props, line: s.line };
        if let Some(first_line) = first_line {
            problems.push(Problem::DuplicateId { id: id.to_string(), line: s.line as usize, first_line });
            refused_objects.push(object);
            continue;
        }
        if type_name.is_some() || instance.is_some() {
            owners.insert(id.as_str().strip_prefix("node:").unwrap_or(""), id);
        }
        level.objects.insert(id.clone(), object);
    }
    Lowered { level, refused: problems, refused_objects }
}
