//! Paths into instanced scenes, checked against the versions of a merge. A node's parent, or
//! a connection's end, under an instanced scene may name a node of that scene, which the file
//! does not list, so a merged file read alone cannot tell that it names nothing. A version
//! that makes a node at that path itself (with a type, or instancing a scene) tells: the
//! instanced scene did not hold it there, and a merge without it holds a node or a
//! connection Godot drops with an error when it loads the scene (one side added a node under,
//! or connected a signal from, a node the other deleted, in parts merged apart).

use levelmerge_core::model::ObjectId;
use levelmerge_core::{Problem, Sides};

use crate::parse;
use crate::EndInInstance;

/// The paths among `ends` (taken for nodes of instanced scenes) that name a node one of
/// `versions` makes, each a missing parent or a reference to a node the merge lacks.
pub(crate) fn made_only_in_versions(ends: Vec<EndInInstance<'_>>, versions: Sides<&[u8]>) -> Vec<Problem> {
    ends.into_iter()
        .filter(|e| [versions.base, versions.ours, versions.theirs].into_iter().any(|text| makes_node_at(text, e.path)))
        .map(|e| {
            let target = ObjectId::new(format!("node:{}", e.path));
            match e.end {
                "parent" => Problem::Orphan { object: e.object, parent: target, line: e.line },
                end => Problem::DanglingReference { object: e.object, path: end.to_owned(), target, line: e.line },
            }
        })
        .collect()
}

/// Whether `text` holds a `[node]` tag that makes a node (a type or an instanced scene) at
/// `path`, relative to the root. Only the tags naming the path's last node are read.
fn makes_node_at(text: &[u8], path: &str) -> bool {
    let (parent, name) = path.rsplit_once('/').unwrap_or((".", path));
    let needle = format!("name=\"{name}\"");
    memchr::memmem::find_iter(text, needle.as_bytes()).any(|at| {
        let start = text[..at].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let end = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |p| at + p + 1);
        let line = &text[start..end];
        if !line.starts_with(b"[node ") {
            return false;
        }
        let Ok(tag) = parse::parse(line) else { return false };
        tag.sections.first().is_some_and(|s| {
            let [tag_parent, tag_name, type_name, instance] = tag.attrs_unquoted(s, ["parent", "name", "type", "instance"]);
            tag_name == Some(name) && tag_parent == Some(parent) && (type_name.is_some() || instance.is_some())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::makes_node_at;

    #[test]
    fn a_node_is_made_at_a_path_by_a_tag_with_its_name_parent_and_a_type_or_scene() {
        let text = b"[gd_scene format=3]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n[node name=\"Door\" parent=\".\" instance=ExtResource(\"1\")]\n\n[node name=\"Hinge\" parent=\"Door\" type=\"Node2D\"]\n\n[node name=\"Knob\" parent=\"Door\"]\nposition = Vector2(1, 0)\n";
        assert!(makes_node_at(text, "Door/Hinge"));
        assert!(makes_node_at(text, "Door"));
        // An entry that only overrides a node of the instanced scene makes nothing.
        assert!(!makes_node_at(text, "Door/Knob"));
        // Another parent, or a name only in a property, is not the node.
        assert!(!makes_node_at(text, "Hinge"));
        assert!(!makes_node_at(b"[node name=\"Main\" type=\"Node2D\"]\nlabel = \"name=\\\"Hinge\\\"\"\n", "Hinge"));
    }
}
