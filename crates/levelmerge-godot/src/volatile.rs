//! Properties Godot or its editor writes anew, volatile for the nodes they belong to: ours is
//! kept, with a note, where both sides changed them differently.
//!
//! * Controls a container lays out. A `Container` (`VBoxContainer`, `GridContainer`, …) sets
//!   the position and size of its children every time it sorts them. The offsets (`margin_*` in
//!   Godot 3, `offset_*` in Godot 4), `position` and `size` a scene stores for such a child are
//!   the last layout the editor computed, computed again when the scene loads. Two sides that
//!   each made a container lay its children out anew (one added a sibling, the other resized it)
//!   differ there with nothing for a person to decide. A bare `Container` (a script's own
//!   layout) and a parent whose type the file does not give (an instanced scene) do not count.
//! * A file dialog's `current_dir`, `current_path` and `current_file`: the folder the editor's
//!   user last browsed, a path on their own machine (`/home/…` on one side, `D:/…` on the
//!   other). For a node of type `FileDialog`, or an instanced one (whose type the file does not
//!   give; a dialog is often a scene of its own).

use levelmerge_core::policy::{Rule, RuleAction};
use levelmerge_core::Sides;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::lower::section_ids;
use crate::parse::GodotFile;

/// The properties a container sets on its children (Godot 3 and Godot 4 names).
const LAID_OUT: [&str; 6] = ["margin_*", "offset_*", "rect_position", "rect_size", "position", "size"];

/// Whether a property is one a container sets on its children: volatile or not depending on
/// the node's parent.
pub fn laid_out(path: &str) -> bool {
    LAID_OUT.iter().any(|p| levelmerge_core::policy::glob_match(p, path))
}

/// The ids (`node:path`) of the nodes a container lays out in a text; `None` when it does not
/// read.
pub fn container_children(text: &[u8]) -> Option<FxHashSet<String>> {
    let file = crate::parse::parse(text).ok()?;
    Some(children_of_containers(&file).into_iter().map(str::to_owned).collect())
}

/// The properties a file dialog keeps of its user's last browsing.
const BROWSED: [&str; 3] = ["current_dir", "current_path", "current_file"];

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

/// The ids of the nodes that are file dialogs, or instances, in this file.
fn dialogs_or_instances<'f>(file: &'f GodotFile<'_>) -> FxHashSet<&'f str> {
    file.sections
        .iter()
        .zip(section_ids(file))
        .filter(|(s, _)| file.kind(s) == "node")
        .filter(|(s, _)| match file.attr_unquoted(s, "type") {
            Some(t) => t == "FileDialog",
            None => file.attr(s, "instance").is_some(),
        })
        .filter_map(|(_, id)| id.as_ref().map(|id| id.as_str()))
        .collect()
}

/// Volatile rules naming each node both sides keep as one whose `properties` are rewritten.
fn rules_for(ours: &FxHashSet<&str>, theirs: &FxHashSet<&str>, properties: &[&str]) -> Vec<Rule> {
    let mut both: Vec<&str> = ours.intersection(theirs).copied().collect();
    both.sort_unstable();
    both.into_iter()
        // A name holding a glob character would make the pattern match other nodes too.
        .filter(|id| !id.contains(['*', '?']))
        .flat_map(|id| properties.iter().map(move |p| Rule { pattern: format!("{id}.{p}"), action: RuleAction::Ignore }))
        .collect()
}

/// The volatile rules of the nodes of one merge.
pub fn rules(docs: Sides<&GodotFile<'_>>) -> Vec<Rule> {
    let laid_out = rules_for(&children_of_containers(docs.ours), &children_of_containers(docs.theirs), &LAID_OUT);
    let browsing = rules_for(&dialogs_or_instances(docs.ours), &dialogs_or_instances(docs.theirs), &BROWSED);
    [laid_out, browsing].concat()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    #[test]
    fn rules_name_container_children_file_dialogs_and_instances() {
        let scene = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Control\"]\n\n[node name=\"Box\" type=\"VBoxContainer\" parent=\".\"]\n\n[node name=\"A\" type=\"Button\" parent=\"Box\"]\n\n[node name=\"B\" type=\"Label\" parent=\"Box/A\"]\n\n[node name=\"C\" parent=\".\" instance=ExtResource(\"1\")]\n\n[node name=\"D\" type=\"FileDialog\" parent=\".\"]\n";
        let file = parse(scene.as_bytes()).unwrap();
        let mut found: Vec<&str> = children_of_containers(&file).into_iter().collect();
        found.sort_unstable();
        assert_eq!(found, ["node:Box/A"]);
        let mut dialogs: Vec<&str> = dialogs_or_instances(&file).into_iter().collect();
        dialogs.sort_unstable();
        assert_eq!(dialogs, ["node:C", "node:D"]);
        let rules = rules(Sides::new(&file, &file, &file));
        assert_eq!(rules.len(), LAID_OUT.len() + 2 * BROWSED.len());
        assert_eq!(rules[1].pattern, "node:Box/A.offset_*");
        assert_eq!(rules[LAID_OUT.len() + BROWSED.len()].pattern, "node:D.current_dir");
    }
}
