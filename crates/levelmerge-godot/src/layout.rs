//! Controls a container lays out.
//!
//! A `Container` (`VBoxContainer`, `GridContainer`, `MarginContainer`, …) sets the position and
//! size of its children every time it sorts them. The offsets (`margin_*` in Godot 3,
//! `offset_*` in Godot 4), `position` and `size` a scene stores for such a child are the last
//! layout the editor computed, and are computed again when the scene loads. Two sides that each
//! made a container lay its children out anew (one added a sibling, the other resized it)
//! differ there with nothing for a person to decide, so for those children these properties
//! are volatile: ours is kept, with a note. A bare `Container` (a script's own layout) and a
//! parent whose type the file does not give (an instanced scene) are not trusted to lay out.

use levelmerge_core::policy::{Rule, RuleAction};
use levelmerge_core::Sides;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::lower::section_ids;
use crate::parse::GodotFile;

/// The properties a container sets on its children (Godot 3 and Godot 4 names).
const LAID_OUT: [&str; 6] = ["margin_*", "offset_*", "rect_position", "rect_size", "position", "size"];

/// The ids (`node:path`) of the nodes whose parent is a container in this file.
fn children_of_containers<'f>(file: &'f GodotFile<'_>) -> FxHashSet<&'f str> {
    let nodes = || file.sections.iter().zip(section_ids(file)).filter(|(s, _)| file.kind(s) == "node");
    // Node path (`.` for the root) → its type, for nodes that name one.
    let types: FxHashMap<&str, &str> =
        nodes().filter_map(|(s, id)| Some((id.as_ref()?.as_str().strip_prefix("node:")?, file.attr_unquoted(s, "type")?))).collect();
    nodes()
        .filter(|(s, _)| {
            let parent_type = file.attr_unquoted(s, "parent").and_then(|p| types.get(p));
            // A bare `Container` lays its children out only as its script says.
            parent_type.is_some_and(|t| t.ends_with("Container") && *t != "Container")
        })
        .filter_map(|(_, id)| id.as_ref().map(|id| id.as_str()))
        .collect()
}

/// Volatile rules for the laid-out properties of every node both sides keep under a container.
pub fn rules(docs: Sides<&GodotFile<'_>>) -> Vec<Rule> {
    let ours = children_of_containers(docs.ours);
    let theirs = children_of_containers(docs.theirs);
    let mut both: Vec<&str> = ours.intersection(&theirs).copied().collect();
    both.sort_unstable();
    both.into_iter()
        // A name holding a glob character would make the pattern match other nodes too.
        .filter(|id| !id.contains(['*', '?']))
        .flat_map(|id| LAID_OUT.iter().map(move |p| Rule { pattern: format!("{id}.{p}"), action: RuleAction::Ignore }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    #[test]
    fn only_children_of_containers_get_rules() {
        let scene = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Control\"]\n\n[node name=\"Box\" type=\"VBoxContainer\" parent=\".\"]\n\n[node name=\"A\" type=\"Button\" parent=\"Box\"]\n\n[node name=\"B\" type=\"Label\" parent=\"Box/A\"]\n\n[node name=\"C\" parent=\".\" instance=ExtResource(\"1\")]\n";
        let file = parse(scene.as_bytes()).unwrap();
        let mut found: Vec<&str> = children_of_containers(&file).into_iter().collect();
        found.sort_unstable();
        assert_eq!(found, ["node:Box/A"]);
        let rules = rules(Sides::new(&file, &file, &file));
        assert_eq!(rules.len(), LAID_OUT.len());
        assert_eq!(rules[1].pattern, "node:Box/A.offset_*");
    }
}
