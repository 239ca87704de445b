//! How a Godot scene looks in the editor's Scene dock: nodes by name under the root, shown with
//! their `type`; resources by their path or type; a resource file's `[resource]` section is
//! the file itself.

use levelmerge_core::model::{Level, ObjectId};
use levelmerge_core::outline::{Outline, Place};

const ROOT: &str = "node:.";

/// The `[resource]` section of a `.tres`: the resource the file holds.
const MAIN_RESOURCE: &str = "resource";

pub fn outline(level: &Level<'_>) -> Outline {
    let mut outline = Outline::empty(level);
    let root = level.get(&ObjectId::new(ROOT));
    let root_name = root.and_then(|r| attr(header(r.props.raw), "name"));
    for obj in level.objects.values() {
        let header = header(obj.props.raw);
        let type_name = attr(header, "type");
        let place = match obj.id.as_str().strip_prefix("node:") {
            Some(".") => Place { name: attr(header, "name"), kind: type_name, ..Place::default() },
            Some(path) => {
                // A node's path names it below the root; the part above it is its parent
                // when this file defines that node, else it is written out.
                let (dir, leaf) = path.rsplit_once('/').unwrap_or(("", path));
                let above = if dir.is_empty() { ObjectId::new(ROOT) } else { ObjectId::new(format!("node:{dir}")) };
                let (name, parent) = if level.get(&above).is_some() { (leaf, Some(above)) } else { (path, root.map(|r| r.id.clone())) };
                Place { name: Some(name.to_owned()), parent, kind: type_name, ..Place::default() }
            }
            None => match obj.id.as_str().strip_prefix("connection:").map(|c| c.split('|').collect::<Vec<_>>()).as_deref() {
                // As the editor's Node dock lists it: the source's signal, to the target's method.
                Some([signal, from, to, method]) => {
                    let node =
                        |path: &str| if path == "." { root_name.clone().unwrap_or_else(|| path.to_owned()) } else { path.to_owned() };
                    Place { name: Some(format!("{}.{signal} → {}.{method}", node(from), node(to))), ..Place::default() }
                }
                _ => {
                    let name = attr(header, "path").or_else(|| type_name.clone().map(|t| format!("{t} {}", obj.id)));
                    Place { name, ..Place::default() }
                }
            },
        };
        outline.set(obj.id.clone(), place);
    }
    let main = ObjectId::new(MAIN_RESOURCE);
    if level.get(&main).is_some() {
        outline.set_root(main);
    }
    outline
}

/// A section's first line, where Godot writes its tag.
fn header(raw: &str) -> &str {
    raw.split('\n').next().unwrap_or("")
}

/// A tag attribute `key="value"`, unquoted.
fn attr(header: &str, key: &str) -> Option<String> {
    let at = header.match_indices(key).find(|(i, _)| header[..*i].ends_with([' ', '[']))?.0;
    let rest = header[at + key.len()..].strip_prefix("=\"")?;
    Some(rest[..rest.find('"')?].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_read_off_the_tag() {
        let h = "[node name=\"Door\" type=\"Area2D\" parent=\"Level/Props\" groups=[\"x\"]]";
        assert_eq!(attr(h, "name").as_deref(), Some("Door"));
        assert_eq!(attr(h, "type").as_deref(), Some("Area2D"));
        assert_eq!(attr(h, "parent").as_deref(), Some("Level/Props"));
        assert_eq!(attr(h, "path"), None);
    }

    #[test]
    fn a_connection_is_named_by_its_signal_and_method() {
        let scene = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"Button\" type=\"Area3D\" parent=\".\"]\n\n[connection signal=\"body_entered\" from=\"Button\" to=\".\" method=\"open\"]\n";
        let file = crate::parse::parse(scene.as_bytes()).expect("parses");
        let level = crate::lower::lower(&file, levelmerge_core::Side::Ours).expect("lowers");
        let id = ObjectId::new("connection:body_entered|Button|.|open");
        assert_eq!(outline(&level).path(&id), ["Button.body_entered → Root.open"]);
    }
}
