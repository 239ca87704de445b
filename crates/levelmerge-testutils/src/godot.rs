//! Godot scenes for benchmarks and tests: a generated scene of any number of nodes, and
//! deterministic edits of property values in alternate sections.

/// A Godot 4 scene with `nodes` nodes under a root: groups of a body, its mesh and a label,
/// with transforms, a few shared resources and one connection per group.
pub fn scene(nodes: usize) -> String {
    let mut out = String::with_capacity(nodes * 160);
    out.push_str("[gd_scene load_steps=4 format=3 uid=\"uid://bench\"]\n\n");
    out.push_str("[ext_resource type=\"Script\" uid=\"uid://s\" path=\"res://body.gd\" id=\"1_body\"]\n");
    out.push_str("[ext_resource type=\"Texture2D\" uid=\"uid://t\" path=\"res://icon.png\" id=\"2_icon\"]\n\n");
    out.push_str("[sub_resource type=\"BoxMesh\" id=\"BoxMesh_a1\"]\nsize = Vector3(1, 2, 1)\n\n");
    out.push_str("[node name=\"World\" type=\"Node3D\"]\n");
    let mut connections = String::new();
    let mut made = 1;
    let mut group = 0;
    while made < nodes {
        let (x, z) = (group % 100, group / 100);
        out.push_str(&format!(
            "\n[node name=\"Body{group}\" type=\"StaticBody3D\" parent=\".\"]\ntransform = Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, {x}, 0, {z})\nscript = ExtResource(\"1_body\")\nspeed = {}.5\n",
            group % 7
        ));
        made += 1;
        if made < nodes {
            out.push_str(&format!("\n[node name=\"Mesh\" type=\"MeshInstance3D\" parent=\"Body{group}\"]\nmesh = SubResource(\"BoxMesh_a1\")\nsorting_offset = {}.0\n", group % 5));
            made += 1;
        }
        if made < nodes {
            out.push_str(&format!(
                "\n[node name=\"Label\" type=\"Label3D\" parent=\"Body{group}\"]\ntext = \"Body {group}\"\nfont_size = 32\n"
            ));
            made += 1;
        }
        connections.push_str(&format!("[connection signal=\"input_event\" from=\"Body{group}\" to=\".\" method=\"_on_body_input\"]\n"));
        group += 1;
    }
    out.push('\n');
    out.push_str(&connections);
    out
}

/// `scene` with `count` property values edited (the last number in the value replaced), all in
/// sections whose index is `parity` modulo 2, so that two calls with parities 0 and 1 edit
/// disjoint sections. Values longer than 2,000 bytes, holding a string (paths, Godot 4
/// resource ids) or a resource reference (Godot 3 `SubResource( 2 )`) are left alone. Deterministic for a seed.
pub fn edit_numbers(scene: &str, count: usize, parity: usize, seed: u64) -> String {
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    let mut section = 0usize;
    let mut at = 0;
    for line in scene.split_inclusive('\n') {
        if line.starts_with('[') {
            section += 1;
        } else if section % 2 == parity && line.len() < 2_000 {
            if let Some(eq) = line.find(" = ") {
                let value = &line[eq + 3..];
                // Numbers only: not inside strings, resource ids or node paths.
                if value.contains('"') || value.contains("Resource(") {
                    at += line.len();
                    continue;
                }
                let digits: Vec<usize> = value.char_indices().filter(|(_, c)| c.is_ascii_digit()).map(|(i, _)| i).collect();
                if let Some(&last) = digits.last() {
                    let start = value[..=last].rfind(|c: char| !c.is_ascii_digit()).map_or(0, |p| p + 1);
                    candidates.push((at + eq + 3 + start, at + eq + 3 + last + 1));
                }
            }
        }
        at += line.len();
    }
    crate::gen::replace_numbers(scene, candidates, count, seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scene_has_the_nodes_asked_for() {
        let s = scene(1_000);
        assert_eq!(s.matches("\n[node ").count() + usize::from(s.starts_with("[node ")), 1_000);
        assert!(s.contains("[connection signal=\"input_event\" from=\"Body0\""));
    }

    #[test]
    fn edits_of_the_two_parities_touch_different_sections() {
        let base = scene(50);
        let (ours, theirs) = (edit_numbers(&base, 10, 0, 1), edit_numbers(&base, 10, 1, 2));
        let sections = |s: &str| s.split("\n[").map(str::to_owned).collect::<Vec<_>>();
        let (b, o, t) = (sections(&base), sections(&ours), sections(&theirs));
        assert_eq!(b.len(), o.len());
        let changed = |x: &[String]| (0..b.len()).filter(|&i| x[i] != b[i]).collect::<Vec<_>>();
        let (co, ct) = (changed(&o), changed(&t));
        assert!(!co.is_empty() && !ct.is_empty());
        assert!(co.iter().all(|i| !ct.contains(i)), "{co:?} {ct:?}");
    }

    #[test]
    fn resource_references_are_not_edited() {
        let godot3 = "[node name=\"A\" type=\"Node\"]\nmesh = SubResource( 2 )\nscript = ExtResource( 1 )\nspeed = 3\n";
        for seed in 0..20 {
            let edited = edit_numbers(godot3, 3, 1, seed);
            assert!(edited.contains("SubResource( 2 )") && edited.contains("ExtResource( 1 )"), "{edited}");
            assert!(!edited.contains("speed = 3\n"), "{edited}");
        }
    }
}
