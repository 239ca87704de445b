//! Godot merges on small scenes of our own (the corpus tests need `../shared`; these do not).

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{merge_texts, MergeError, MergeOutcome, Options, Side, Sides};
use levelmerge_godot::GodotCodec;

fn merge(b: &str, o: &str, t: &str) -> Result<MergeOutcome, MergeError> {
    merge_with(b, o, t, &Options::default())
}

fn merge_with(b: &str, o: &str, t: &str, options: &Options) -> Result<MergeOutcome, MergeError> {
    merge_texts(&GodotCodec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), options, &MarkerStyle::default())
}

/// Each side's view of a marked merge, ours then theirs, each checked to be a sound scene.
fn sound_views(marked: &[u8]) -> [(Side, String); 2] {
    let regions = levelmerge_core::regions::conflict_regions(marked).expect("markers read back");
    [Side::Ours, Side::Theirs].map(|side| {
        let view = levelmerge_core::regions::side_view(marked, &regions, side).expect("a side's view");
        assert!(levelmerge_core::check_text(&GodotCodec, &view).is_empty(), "{side}'s view:\n{}", String::from_utf8_lossy(&view));
        (side, String::from_utf8(view).unwrap())
    })
}

/// Merged as given and swapped, conflicts are left, and each side's view is a sound scene
/// holding one connection.
fn conflicted_views_each_hold_one_connection(base: &str, ours: &str, theirs: &str) {
    for (o, t) in [(ours, theirs), (theirs, ours)] {
        let r = merge(base, o, t).expect("merge runs");
        assert!(r.open_conflicts > 0, "{}", String::from_utf8_lossy(&r.text));
        for (_, view) in sound_views(&r.text) {
            assert_eq!(view.matches("[connection").count(), 1, "{view}");
        }
    }
}

fn clean(b: &str, o: &str, t: &str) -> String {
    let r = merge(b, o, t).unwrap_or_else(|e| panic!("merge failed: {e}"));
    assert_eq!(r.open_conflicts, 0, "unexpected conflicts: {:?}", r.conflicts);
    String::from_utf8(r.text).unwrap()
}

const GODOT3: &str = r#"[gd_scene load_steps=3 format=2]

[ext_resource path="res://player.gd" type="Script" id=1]
[ext_resource path="res://icon.png" type="Texture" id=2]

[node name="Main" type="Node2D"]
script = ExtResource( 1 )

[node name="Sprite" type="Sprite" parent="."]
position = Vector2( 10, 20 )
texture = ExtResource( 2 )

[node name="Label" type="Label" parent="Sprite"]
text = "Hello
world"

[connection signal="ready" from="." to="." method="_on_ready"]
"#;

#[test]
fn edits_to_different_properties_of_one_node_merge() {
    let ours = GODOT3.replace("position = Vector2( 10, 20 )", "position = Vector2( 11, 20 )");
    let theirs = GODOT3.replace("texture = ExtResource( 2 )\n", "texture = ExtResource( 2 )\nflip_h = true\n");
    let out = clean(GODOT3, &ours, &theirs);
    assert_eq!(
        out,
        GODOT3
            .replace("position = Vector2( 10, 20 )", "position = Vector2( 11, 20 )")
            .replace("texture = ExtResource( 2 )\n", "texture = ExtResource( 2 )\nflip_h = true\n")
    );
}

#[test]
fn both_sides_add_an_ext_resource_under_the_same_id() {
    let ours = GODOT3
        .replace("load_steps=3", "load_steps=4")
        .replace("id=2]\n", "id=2]\n[ext_resource path=\"res://a.png\" type=\"Texture\" id=3]\n")
        .replace(
            "[node name=\"Label\"",
            "[node name=\"A\" type=\"Sprite\" parent=\".\"]\ntexture = ExtResource( 3 )\n\n[node name=\"Label\"",
        );
    let theirs = GODOT3
        .replace("load_steps=3", "load_steps=4")
        .replace("id=2]\n", "id=2]\n[ext_resource path=\"res://b.png\" type=\"Texture\" id=3]\n")
        .replace("[connection", "[node name=\"B\" type=\"Sprite\" parent=\".\"]\ntexture = ExtResource( 3 )\n\n[connection");
    let r = merge(GODOT3, &ours, &theirs).unwrap();
    assert_eq!(r.open_conflicts, 0);
    let out = String::from_utf8(r.text).unwrap();
    assert!(out.starts_with("[gd_scene load_steps=5 format=2]\n"), "{out}");
    assert!(out.contains("[ext_resource path=\"res://a.png\" type=\"Texture\" id=3]\n"), "{out}");
    assert!(out.contains("[ext_resource path=\"res://b.png\" type=\"Texture\" id=4]\n"), "{out}");
    assert!(out.contains("[node name=\"A\" type=\"Sprite\" parent=\".\"]\ntexture = ExtResource( 3 )\n"), "{out}");
    assert!(out.contains("[node name=\"B\" type=\"Sprite\" parent=\".\"]\ntexture = ExtResource( 4 )\n"), "{out}");
    assert_eq!(r.notes, ["both sides added different ext_resources under 1 id(s); theirs' are renumbered: \"3\" → \"4\""]);
}

#[test]
fn renumbered_resources_are_matched_by_path() {
    // Theirs removed the script: Godot 3 renumbered the texture from 2 to 1.
    let theirs = GODOT3
        .replace("load_steps=3", "load_steps=2")
        .replace("[ext_resource path=\"res://player.gd\" type=\"Script\" id=1]\n", "")
        .replace("id=2]", "id=1]")
        .replace("script = ExtResource( 1 )\n", "")
        .replace("texture = ExtResource( 2 )", "texture = ExtResource( 1 )");
    let ours = GODOT3.replace("text = \"Hello", "text = \"Hi");
    let out = clean(GODOT3, &ours, &theirs);
    assert!(out.starts_with("[gd_scene load_steps=2 format=2]\n"), "{out}");
    assert!(!out.contains("player.gd"), "{out}");
    assert!(out.contains("[ext_resource path=\"res://icon.png\" type=\"Texture\" id=1]"), "theirs renumbered, so its ids are kept: {out}");
    assert!(out.contains("texture = ExtResource( 1 )"), "{out}");
    assert!(out.contains("text = \"Hi\nworld\""), "{out}");
    // The same with the sides swapped.
    assert_eq!(clean(GODOT3, &theirs, &ours), out);
}

#[test]
fn a_resource_renumbered_and_moved_at_once_is_found_by_its_file_name() {
    // Ours renumbered its resources and put a right-hand blend tree in the place of the
    // generic one; theirs moved the script. The merge holds both: merged with theirs again, it
    // must read its script (now `hands/hand.gd`, id 2) as base's `assets/hand.gd` (id 1), not
    // as whatever base held under id 2.
    let scene = |resources: &[(&str, &str)], script: u8, tree: u8, extra: &str| {
        let mut s = "[gd_scene load_steps=3 format=2]\n\n".to_owned();
        for (id, (path, kind)) in resources.iter().enumerate() {
            s.push_str(&format!("[ext_resource path=\"res://{path}\" type=\"{kind}\" id={}]\n", id + 1));
        }
        s + &format!("\n[node name=\"Hand\" type=\"Spatial\"]\nscript = ExtResource( {script} )\n\n[node name=\"Tree\" type=\"AnimationTree\" parent=\".\"]\ntree_root = ExtResource( {tree} )\n{extra}")
    };
    let (script, blend) = (("assets/hand.gd", "Script"), ("hands/blend.tres", "AnimationNodeBlendTree"));
    let right_blend = ("hands/right/blend.tres", "AnimationNodeBlendTree");
    let base = scene(&[script, blend], 1, 2, "");
    let ours = scene(&[right_blend, script], 2, 1, "");
    let theirs = scene(&[("hands/hand.gd", "Script"), blend], 1, 2, "active = true\n");
    let merged = clean(&base, &ours, &theirs);
    assert_eq!(merged, scene(&[right_blend, ("hands/hand.gd", "Script")], 2, 1, "active = true\n"));
    assert_eq!(clean(&base, &merged, &theirs), merged);
    assert_eq!(clean(&base, &ours, &merged), merged);
}

#[test]
fn sub_resources_alike_but_for_their_id_are_matched_in_order() {
    // Two identical shapes, renumbered by both sides: the id 8 names the first shape in base
    // and the second in theirs, which must not make them one.
    let scene = |first: u32, second: u32, a: &str, b: &str| {
        format!("[gd_scene load_steps=3 format=2]\n\n[sub_resource type=\"CircleShape2D\" id={first}]\nradius = 4.0\n\n[sub_resource type=\"CircleShape2D\" id={second}]\nradius = 4.0\n\n[node name=\"Main\" type=\"Node2D\"]\n\n[node name=\"A\" type=\"CollisionShape2D\" parent=\".\"]\n{a}shape = SubResource( {first} )\n\n[node name=\"B\" type=\"CollisionShape2D\" parent=\".\"]\n{b}shape = SubResource( {second} )\n")
    };
    let base = scene(8, 6, "", "");
    let ours = scene(2, 10, "disabled = true\n", "");
    let theirs = scene(10, 8, "", "position = Vector2( 1, 1 )\n");
    assert_eq!(clean(&base, &ours, &theirs), scene(2, 10, "disabled = true\n", "position = Vector2( 1, 1 )\n"));
}

/// A theme holding empty style boxes `StyleBoxEmpty_{box}`, its resource holding `other`
/// properties and, for each `(control, box)` of `uses`, `{control}/styles/{style} = ` that box.
fn empty_boxes_theme(boxes: &[&str], other: &str, style: &str, uses: &[(&str, &str)]) -> String {
    let mut t = format!("[gd_resource type=\"Theme\" load_steps={} format=3]\n\n", boxes.len() + 1);
    for b in boxes {
        t.push_str(&format!("[sub_resource type=\"StyleBoxEmpty\" id=\"StyleBoxEmpty_{b}\"]\n\n"));
    }
    t.push_str("[resource]\n");
    t.push_str(other);
    for (control, b) in uses {
        t.push_str(&format!("{control}/styles/{style} = SubResource(\"StyleBoxEmpty_{b}\")\n"));
    }
    t
}

#[test]
fn resources_alike_in_content_keep_their_identity_whichever_side_renumbered_them() {
    // Empty style boxes are alike but for their ids. One side removed the first two and added
    // another (matched to a removed one: a renumbering); the other re-created the last two
    // under new ids while renaming the properties that use them. When ours takes theirs' ids
    // for those two, they must still stand for the base boxes they were, not for the removed
    // ones before them: the renames merge cleanly, whichever side made them.
    let theme = |boxes: &[&str], props: &[(&str, &str)]| empty_boxes_theme(boxes, "", "panel", props);
    let base = theme(&["a", "b", "c", "e"], &[("A", "a"), ("B", "b"), ("C", "c"), ("E", "e")]);
    let removed_and_added = theme(&["d", "c", "e"], &[("D", "d"), ("C", "c"), ("E", "e")]);
    let recreated_and_renamed = theme(&["a", "b", "f", "g"], &[("A", "a"), ("B", "b"), ("MM_C", "f"), ("MM_E", "g")]);
    for (ours, theirs) in [(&removed_and_added, &recreated_and_renamed), (&recreated_and_renamed, &removed_and_added)] {
        let out = clean(&base, ours, theirs);
        for line in [
            "D/styles/panel = SubResource(\"StyleBoxEmpty_d\")",
            "MM_C/styles/panel = SubResource(\"StyleBoxEmpty_f\")",
            "MM_E/styles/panel = SubResource(\"StyleBoxEmpty_g\")",
        ] {
            assert!(out.contains(line), "{line} missing:\n{out}");
        }
        assert_eq!(out.matches("[sub_resource").count(), 3, "{out}");
        assert!(!out.contains("\nA/") && !out.contains("\nB/") && !out.contains("\nC/") && !out.contains("\nE/"), "{out}");
    }
}

#[test]
fn an_empty_style_box_is_the_one_it_replaced_only_where_it_is_used_in_the_same_place() {
    // Both sides removed the button's focus style; ours gave the line edit one, an empty style
    // box like the removed one. Alike in content, used elsewhere: another resource, added.
    let theme = |boxes: &[&str], props: &[(&str, &str)]| empty_boxes_theme(boxes, "Label/font_sizes/font_size = 14\n", "focus", props);
    let base = theme(&["a"], &[("Button", "a")]);
    let moved = theme(&["b"], &[("LineEdit", "b")]);
    let removed = theme(&[], &[]);
    for (ours, theirs) in [(&moved, &removed), (&removed, &moved)] {
        assert_eq!(clean(&base, ours, theirs), moved);
    }
    // Re-created in its place, it is the removed one: the other side's removal takes it.
    let recreated = theme(&["b"], &[("Button", "b")]);
    for (ours, theirs) in [(&recreated, &removed), (&removed, &recreated)] {
        assert_eq!(clean(&base, ours, theirs), removed);
    }
}

#[test]
fn a_property_renamed_on_one_side_keeps_its_new_name_beside_the_other_sides_removal() {
    let base = "[gd_resource type=\"Theme\" format=3]\n\n[resource]\nX/constants/a = 1\nY/constants/b = 2\nZ/constants/c = 3\n";
    let removed = base.replace("Y/constants/b = 2\n", "");
    let renamed = base.replace("Z/constants", "MM_Z/constants");
    for (ours, theirs) in [(&removed, &renamed), (&renamed, &removed)] {
        assert_eq!(
            clean(base, ours, theirs),
            "[gd_resource type=\"Theme\" format=3]\n\n[resource]\nX/constants/a = 1\nMM_Z/constants/c = 3\n"
        );
    }
}

#[test]
fn a_property_renamed_to_a_marker_is_never_written_as_a_marker_line() {
    // Theirs renamed a property to `<<<<<<<` (written without a space); written with ours'
    // spacing it would read as a conflict marker. It is no field's name, so not taken for `Z`
    // renamed; whatever the merge writes, or refuses, no line reads as a marker.
    let base = "[gd_resource type=\"Theme\" format=3]\n\n[resource]\nX/constants/a = 1\nY/constants/b = 2\nZ = 3\n";
    let removed = base.replace("Y/constants/b = 2\n", "");
    let renamed = base.replace("Z = 3", "<<<<<<<= 3");
    match merge(base, &removed, &renamed) {
        Err(MergeError::Incoherent { .. }) => {}
        Ok(m) => {
            let text = String::from_utf8(m.text).unwrap();
            assert!(!text.lines().any(|l| l == "<<<<<<<" || l.starts_with("<<<<<<< ")), "{text}");
        }
        Err(other) => panic!("{other}"),
    }
}

#[test]
fn when_both_sides_renumber_each_id_is_merged_like_a_value() {
    let scene = |a: u32, b: u32, c: u32, name: &str| {
        format!("[gd_scene load_steps=4 format=2]\n\n[ext_resource path=\"res://a.png\" type=\"Texture\" id={a}]\n[ext_resource path=\"res://b.png\" type=\"Texture\" id={b}]\n[ext_resource path=\"res://c.png\" type=\"Texture\" id={c}]\n\n[node name=\"{name}\" type=\"Node2D\"]\n\n[node name=\"A\" type=\"Sprite\" parent=\".\"]\ntexture = ExtResource( {a} )\n\n[node name=\"B\" type=\"Sprite\" parent=\".\"]\ntexture = ExtResource( {b} )\n\n[node name=\"C\" type=\"Sprite\" parent=\".\"]\ntexture = ExtResource( {c} )\n")
    };
    // Ours swapped a's and b's ids and renamed the root; theirs moved c from 3 to 4.
    let out = clean(&scene(1, 2, 3, "Main"), &scene(2, 1, 3, "World"), &scene(1, 2, 4, "Main"));
    assert_eq!(out, scene(2, 1, 4, "World"));
}

#[test]
fn both_sides_pointing_resources_at_the_same_new_files_under_other_ids_agree() {
    let scene = |first: (&str, u32), second: (&str, u32), a: u32, b: u32| {
        format!("[gd_scene load_steps=3 format=2]\n\n[ext_resource path=\"res://{}.png\" type=\"Texture\" id={}]\n[ext_resource path=\"res://{}.png\" type=\"Texture\" id={}]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n[node name=\"A\" type=\"Sprite\" parent=\".\"]\ntexture = ExtResource( {a} )\n\n[node name=\"B\" type=\"Sprite\" parent=\".\"]\ntexture = ExtResource( {b} )\n", first.0, first.1, second.0, second.1)
    };
    let base = scene(("a", 1), ("b", 2), 1, 2);
    // Both moved the textures to new files; theirs wrote them in the other order.
    let ours = scene(("new/a", 1), ("new/b", 2), 1, 2);
    let theirs = scene(("new/b", 1), ("new/a", 2), 2, 1);
    assert_eq!(clean(&base, &ours, &theirs), ours);
}

#[test]
fn nodes_and_connections_added_on_both_sides_are_all_kept() {
    let ours = GODOT3
        .replace("[connection", "[node name=\"Left\" type=\"Node2D\" parent=\".\"]\n\n[connection")
        .replace("method=\"_on_ready\"]\n", "method=\"_on_ready\"]\n[connection signal=\"a\" from=\"Left\" to=\".\" method=\"_a\"]\n");
    let theirs = GODOT3
        .replace("[connection", "[node name=\"Right\" type=\"Node2D\" parent=\".\"]\n\n[connection")
        .replace("method=\"_on_ready\"]\n", "method=\"_on_ready\"]\n[connection signal=\"b\" from=\"Right\" to=\".\" method=\"_b\"]\n");
    let out = clean(GODOT3, &ours, &theirs);
    for part in ["[node name=\"Left\"", "[node name=\"Right\"", "signal=\"a\"", "signal=\"b\""] {
        assert_eq!(out.matches(part).count(), 1, "{part}: {out}");
    }
    assert!(out.find("[node name=\"Right\"").unwrap() < out.find("[connection").unwrap(), "{out}");
}

#[test]
fn an_edit_under_a_deleted_node_is_a_conflict() {
    let ours = GODOT3.replace(
        "[node name=\"Sprite\" type=\"Sprite\" parent=\".\"]\nposition = Vector2( 10, 20 )\ntexture = ExtResource( 2 )\n\n[node name=\"Label\" type=\"Label\" parent=\"Sprite\"]\ntext = \"Hello\nworld\"\n\n",
        "",
    );
    let theirs = GODOT3.replace("text = \"Hello", "text = \"Bye");
    let r = merge(GODOT3, &ours, &theirs).unwrap();
    assert!(r.open_conflicts > 0, "{}", String::from_utf8_lossy(&r.text));
    let swapped = merge(GODOT3, &theirs, &ours).unwrap();
    assert_eq!(swapped.open_conflicts, r.open_conflicts);
}

/// Theirs moves a node under another that ours deletes, and ours edits the moved node. The
/// move is not made in ours (it would hang the node under nothing there): the node is edited
/// where it was and added where it went, so the deletion and the move are a conflict each side
/// of which is a sound scene, the node where that side has it. Before, ours' copy was moved
/// too: ours' view wrote the node under the deleted one and `resolve --take ours` refused it.
#[test]
fn a_node_moved_under_one_the_other_side_deleted_stays_where_that_side_has_it() {
    let scene = |door_under: &str, with_box: bool, text: &str| {
        let mut s = String::from(
            "[gd_scene format=3]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n[node name=\"Hall\" type=\"Node2D\" parent=\".\"]\n\n",
        );
        if with_box {
            s += "[node name=\"Box\" type=\"Node2D\" parent=\".\"]\nposition = Vector2(5, 5)\n\n";
        }
        s += &format!("[node name=\"Door\" type=\"Label\" parent=\"{door_under}\"]\ntext = \"{text}\"\n");
        s
    };
    let base = scene("Hall", true, "Open");
    let deleted_and_edited = scene("Hall", false, "Shut");
    let moved = scene("Box", true, "Open");
    for (ours, theirs) in [(&deleted_and_edited, &moved), (&moved, &deleted_and_edited)] {
        let r = merge(&base, ours, theirs).expect("merged");
        assert!(r.open_conflicts > 0, "{}", String::from_utf8_lossy(&r.text));
        for (side, view) in sound_views(&r.text) {
            let deleting = (side == Side::Ours) == (ours == &deleted_and_edited);
            let door = if deleting { "[node name=\"Door\" type=\"Label\" parent=\"Hall\"]\ntext = \"Shut\"" } else { "parent=\"Box\"" };
            assert!(view.contains(door), "{side}'s view:\n{view}");
            assert_eq!(view.matches("name=\"Door\"").count(), 1, "{side}'s view:\n{view}");
        }
    }
}

/// Ours puts B under a node it adds under A/Inner; theirs moves A (with Inner) under B's
/// child, so the two moves make a cycle. Theirs' move goes under a node ours moved away, so it
/// was not made in ours; ours' went under a new node, and was made in theirs though the new
/// node's parent, A/Inner, is not where theirs has it: theirs' view hung B and the connection
/// from Inner under paths that lead nowhere, and `resolve --take` refused it. Neither move is
/// made now: each side's nodes stay where it put them, and each view is sound.
#[test]
fn moves_under_each_others_subtrees_through_a_new_node_leave_each_view_sound() {
    let scene = |nodes: &[(&str, &str, &str)], from: &str| {
        let mut s = String::from("[gd_scene format=3]\n\n[node name=\"Main\" type=\"Node2D\"]\n");
        for (name, parent, kind) in nodes {
            s += &format!("\n[node name=\"{name}\" parent=\"{parent}\" type=\"{kind}\"]\nposition = Vector2(1, {})\n", name.len());
        }
        s + &format!("\n[connection signal=\"timeout\" from=\"{from}\" to=\".\" method=\"_on_timeout\"]\n")
    };
    let base = scene(&[("A", ".", "Node2D"), ("Inner", "A", "Timer"), ("B", ".", "Node2D"), ("Kid", "B", "Node2D")], "A/Inner");
    let ours = scene(
        &[
            ("A", ".", "Node2D"),
            ("Inner", "A", "Timer"),
            ("New", "A/Inner", "Node2D"),
            ("B", "A/Inner/New", "Node2D"),
            ("Kid", "A/Inner/New/B", "Node2D"),
        ],
        "A/Inner",
    );
    let theirs =
        scene(&[("B", ".", "Node2D"), ("Kid", "B", "Node2D"), ("A", "B/Kid", "Node2D"), ("Inner", "B/Kid/A", "Timer")], "B/Kid/A/Inner");
    conflicted_views_each_hold_one_connection(&base, &ours, &theirs);
}

/// Crossing moves where only one can be made in the other side: ours moves A under B; theirs
/// moves S (from P) under A and B under A/S. Ours' move cannot be made in theirs (B is gone
/// from the top there), but theirs' moves could be made in ours, where they put B under the
/// subtree ours moved under B: A came back twice in theirs' view, and ours' view lost A while
/// keeping its connection (`resolve` refused it). Theirs' moves into the subtree ours moved
/// away are now left alone as well: each side's view is that side's scene, but for S in
/// ours': theirs' move of S, which cannot be made in ours, reads as S deleted from P (no
/// conflict) and added under A (in the conflict on A).
#[test]
fn crossing_moves_of_which_one_cannot_be_made_leave_each_view_its_sides_scene() {
    let scene = |nodes: &[(&str, &str, &str)], from: &str| {
        let mut s = String::from("[gd_scene format=3]\n\n[node name=\"Main\" type=\"Node2D\"]\n");
        for (name, parent, property) in nodes {
            s += &format!("\n[node name=\"{name}\" type=\"Node2D\" parent=\"{parent}\"]\n{property}\n");
        }
        s + &format!("\n[connection signal=\"ready\" from=\"{from}\" to=\".\" method=\"_on_ready\"]\n")
    };
    let (p, s, a, b) = (("P", ".", "z_index = 1"), "position = Vector2(1, 2)", "rotation = 0.5", "visible = false");
    let base = scene(&[p, ("S", "P", s), ("A", ".", a), ("B", ".", b)], "A");
    let ours = scene(&[p, ("S", "P", s), ("B", ".", b), ("A", "B", a)], "B/A");
    let theirs = scene(&[p, ("A", ".", a), ("S", "A", s), ("B", "A/S", b)], "A");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t).expect("merge runs");
        assert!(r.open_conflicts > 0, "{}", String::from_utf8_lossy(&r.text));
        let [(_, ours_view), (_, theirs_view)] = sound_views(&r.text);
        let without_s = |text: &str| text.replace(&format!("\n[node name=\"S\" type=\"Node2D\" parent=\"P\"]\n{s}\n"), "");
        assert_eq!((ours_view, theirs_view), (without_s(o), without_s(t)));
    }
}

/// Ours renames A to A2 and moves C under A2/B; theirs deletes A/B. C's new parent is a path
/// base lacks (A2 is ours' name), so it was taken for a new node and the move was made in
/// theirs, where B is gone: theirs' view hung C under nothing. The path is read back through
/// ours' own rename: B is base's A/B, which theirs deleted, so the move is not made there.
#[test]
fn a_move_under_a_node_whose_parent_its_side_renamed_follows_the_other_sides_deletion() {
    let scene = |nodes: &[(&str, &str)]| {
        let mut s = String::from("[gd_scene format=3]\n\n[node name=\"Main\" type=\"Node2D\"]\n");
        for (name, parent) in nodes {
            s += &format!("\n[node name=\"{name}\" parent=\"{parent}\" type=\"Node2D\"]\nposition = Vector2(2, {})\n", name.len());
        }
        s
    };
    let base = scene(&[("C", "."), ("A", "."), ("B", "A"), ("D", "A/B")]);
    let ours = scene(&[("A2", "."), ("B", "A2"), ("C", "A2/B"), ("D", "A2/B")]);
    let theirs = scene(&[("C", "."), ("A", ".")]);
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t).expect("merge runs");
        assert!(r.open_conflicts > 0, "{}", String::from_utf8_lossy(&r.text));
        sound_views(&r.text);
    }
}

/// Theirs moves L under C and S (with its timer, connected) under C/L; ours deletes C and
/// adds a node under S. L's move cannot be made in ours (C is gone there), and S's was made
/// all the same, its new parent read as L's place in base: ours' view dropped S with C while
/// keeping the connection from S's timer, and `resolve --take` refused it. A move under a node
/// whose own move is not made is not made either: S is deleted where it was and added under
/// C/L, in C's conflict, and each view is sound.
#[test]
fn a_move_under_a_node_whose_own_move_cannot_be_made_is_not_made_either() {
    let scene = |nodes: &[(&str, &str)], from: &str| {
        let mut s = String::from("[gd_scene format=3]\n\n[node name=\"Main\" type=\"Node2D\"]\n");
        for (name, parent) in nodes {
            s += &format!("\n[node name=\"{name}\" parent=\"{parent}\" type=\"Node2D\"]\nposition = Vector2(3, {})\n", name.len());
        }
        s + &format!("\n[connection signal=\"ready\" from=\"{from}\" to=\".\" method=\"_on_ready\"]\n")
    };
    let base = scene(&[("S", "."), ("Timer", "S"), ("C", "."), ("L", ".")], "S/Timer");
    let ours = scene(&[("S", "."), ("Timer", "S"), ("Added", "S"), ("L", ".")], "S/Timer");
    let theirs = scene(&[("C", "."), ("L", "C"), ("S", "C/L"), ("Timer", "C/L/S")], "C/L/S/Timer");
    conflicted_views_each_hold_one_connection(&base, &ours, &theirs);
}

/// Ours moves Group (holding Item, whose child ours renames) under Holder and deletes the
/// top-level Item, a namesake alike in content; theirs edits that Item. The deleted Item was
/// taken for a move to Holder/Group/Item, where Group's own move had already carried its
/// Item: theirs' edit landed on a second node of that path, and theirs' view held two. A match
/// whose node came along with another move is dropped: the top-level Item is deleted and
/// edited, one conflict, and each view is sound.
#[test]
fn a_deleted_node_is_not_taken_for_its_namesake_carried_along_by_another_move() {
    let scene = |nodes: &[(&str, &str, &str)]| {
        let mut s = String::from("[gd_scene format=3]\n\n[node name=\"Main\" type=\"Node2D\"]\n");
        for (name, parent, property) in nodes {
            s += &format!("\n[node name=\"{name}\" parent=\"{parent}\" type=\"Label\"]\n{property}\n");
        }
        s
    };
    let (holder, item) = (("Holder", ".", "z_index = 2"), "text = \"A\"");
    let base = scene(&[holder, ("Group", ".", "z_index = 1"), ("Item", "Group", item), ("Kid", "Group/Item", ""), ("Item", ".", item)]);
    let ours = scene(&[
        holder,
        ("Group", "Holder", "z_index = 1"),
        ("Item", "Holder/Group", item),
        ("Kid2", "Holder/Group/Item", ""),
        ("Extra", "Holder/Group", ""),
    ]);
    let edited = "text = \"A\"\nposition = Vector2(4, 4)";
    let theirs = scene(&[holder, ("Group", ".", "z_index = 1"), ("Item", "Group", item), ("Kid", "Group/Item", ""), ("Item", ".", edited)]);
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t).expect("merge runs");
        assert_eq!(r.open_conflicts, 1, "{}", String::from_utf8_lossy(&r.text));
        for (side, view) in sound_views(&r.text) {
            assert_eq!(view.matches("parent=\"Holder/Group\"").count(), 2, "{side}'s view:\n{view}");
        }
    }
}

/// Ours places a second enemy and moves the timer S (connected) under it; theirs deletes the
/// enemy it had, and with it the enemy scene's `ext_resource`. The resource's deletion is a
/// conflict (ours' new node uses it), and theirs' view drops ours' new enemy. S's move under
/// that node was made in theirs, so that view lost S with it while keeping S's connection, and
/// `resolve --take` refused it. A move under a new node that uses a resource the other side
/// lacks is not made: S is deleted where it was and added under the enemy, with the conflict,
/// and its connection with it (as when a move cannot be made for any other reason).
#[test]
fn a_move_under_a_new_node_using_a_resource_the_other_side_deleted_is_not_made() {
    let scene = |enemy_scene: bool, nodes: &[&str], from: &str| {
        let mut s = String::from("[gd_scene format=3]\n\n");
        if enemy_scene {
            s += "[ext_resource type=\"PackedScene\" path=\"res://enemy.tscn\" id=\"2_en\"]\n\n";
        }
        s += "[node name=\"Main\" type=\"Node2D\"]\n";
        for node in nodes {
            s += &format!("\n{node}\n");
        }
        s + &format!("\n[connection signal=\"timeout\" from=\"{from}\" to=\".\" method=\"_on_timeout\"]\n")
    };
    let timer = |parent: &str| format!("[node name=\"S\" parent=\"{parent}\" type=\"Timer\"]\nwait_time = 2.0");
    let enemy = |name: &str| format!("[node name=\"{name}\" parent=\".\" instance=ExtResource(\"2_en\")]\nposition = Vector2(9, 0)");
    let base = scene(true, &[&enemy("Enemy"), &timer(".")], "S");
    let ours = scene(true, &[&enemy("Enemy"), &enemy("Enemy2"), &timer("Enemy2")], "Enemy2/S");
    let theirs = scene(false, &[&timer(".")], "S");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t).expect("merge runs");
        assert!(r.open_conflicts > 0, "{}", String::from_utf8_lossy(&r.text));
        for (side, view) in sound_views(&r.text) {
            let keeps_the_enemy = (side == Side::Ours) == (o == &ours);
            let timers = usize::from(keeps_the_enemy);
            assert_eq!(view.matches("[connection").count(), timers, "{side}'s view:\n{view}");
            assert_eq!(view.matches(&timer("Enemy2")).count(), timers, "{side}'s view:\n{view}");
        }
    }
}

#[test]
fn a_node_moved_under_a_new_instance_of_a_new_scene_keeps_the_other_sides_edit() {
    // The resource the new node uses is new too: the move is made, and theirs' edit follows S.
    let base =
        "[gd_scene format=3]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n[node name=\"S\" parent=\".\" type=\"Timer\"]\nwait_time = 2.0\n";
    let ours = "[gd_scene format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://group.tscn\" id=\"3_gr\"]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n[node name=\"Group\" parent=\".\" instance=ExtResource(\"3_gr\")]\n\n[node name=\"S\" parent=\"Group\" type=\"Timer\"]\nwait_time = 2.0\n";
    let theirs = base.replace("2.0", "5.0");
    assert_eq!(clean(base, ours, &theirs), ours.replace("2.0", "5.0"));
    assert_eq!(clean(base, &theirs, ours), ours.replace("2.0", "5.0"));
}

/// Ours moves Deep/N (a label) under G/Hold; theirs renames G to G2 and moves another node
/// named N (a timer, at the top) under G2/Hold. Theirs' moves were made in ours, where the
/// rename carried ours' N onto the very path theirs' N went to: two nodes of one name under one
/// parent (merged as lines where nothing else held the structured merge, refused views where
/// something did). A move onto the path where another node goes once the moves are made is not
/// made: the two N are a both-added conflict, and each view is sound.
#[test]
fn two_nodes_moved_onto_one_path_through_a_rename_are_a_conflict() {
    let scene = |nodes: &[(&str, &str, &str, &str)]| {
        let mut s = String::from("[gd_scene format=3]\n\n[node name=\"Main\" type=\"Node2D\"]\n");
        for (name, parent, kind, property) in nodes {
            s += &format!("\n[node name=\"{name}\" parent=\"{parent}\" type=\"{kind}\"]\n{property}\n");
        }
        s
    };
    let (label, timer) = ("text = \"a\"", "wait_time = 1.0");
    // G (or G2) holding Hold, and N under Hold; Deep, and the label N under it; the timer N.
    let layout = |g: &str, under_hold: Option<(&str, &str)>, under_deep: bool, at_top: bool| {
        let hold = format!("{g}/Hold");
        let mut nodes = vec![(g, ".", "Node2D", "z_index = 1"), ("Hold", g, "Node2D", "z_index = 2")];
        nodes.extend(under_hold.map(|(kind, property)| ("N", hold.as_str(), kind, property)));
        nodes.push(("Deep", ".", "Node2D", "z_index = 3"));
        nodes.extend(under_deep.then_some(("N", "Deep", "Label", label)));
        nodes.extend(at_top.then_some(("N", ".", "Timer", timer)));
        scene(&nodes)
    };
    let base = layout("G", None, true, true);
    let ours = layout("G", Some(("Label", label)), false, true);
    let theirs = layout("G2", Some(("Timer", timer)), true, false);
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t).expect("merge runs");
        assert!(r.conflicts.iter().any(|c| c.kind == "both-added" && c.object == "node:G2/Hold/N"), "{:?}", r.conflicts);
        sound_views(&r.text);
    }
}

#[test]
fn the_same_node_name_added_twice_with_different_content_is_a_conflict() {
    let ours = GODOT3.replace("[connection", "[node name=\"New\" type=\"Node2D\" parent=\".\"]\n\n[connection");
    let theirs = GODOT3.replace("[connection", "[node name=\"New\" type=\"Label\" parent=\".\"]\n\n[connection");
    assert!(merge(GODOT3, &ours, &theirs).unwrap().open_conflicts > 0);
    // Added identically on both sides: one node.
    let out = clean(GODOT3, &ours, &ours);
    assert_eq!(out.matches("[node name=\"New\"").count(), 1);
}

/// Each side adds a node of one name under one parent, in different places of the file: the
/// parts splice without touching, but Godot would rename one of the two on load.
#[test]
fn the_same_node_name_added_in_two_places_is_a_conflict_not_two_siblings() {
    let base = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\n\n[node name=\"B\" type=\"Node\" parent=\"A\"]\n";
    let ours = base.replace("[node name=\"A\"", "[node name=\"X\" type=\"Node\" parent=\".\"]\n\n[node name=\"A\"");
    let theirs = format!("{base}\n[node name=\"X\" type=\"Sprite2D\" parent=\".\"]\n");
    let out = merge(base, &ours, &theirs).unwrap();
    assert_eq!(out.open_conflicts, 1, "{}", String::from_utf8_lossy(&out.text));
    // The same node added in two places: one node.
    let theirs = format!("{base}\n[node name=\"X\" type=\"Node\" parent=\".\"]\n");
    let out = clean(base, &ours, &theirs);
    assert_eq!(out.matches("[node name=\"X\"").count(), 1, "{out}");
}

/// Theirs removed a texture and Godot gave its id to the one left; ours started to use the
/// removed one by that id. Copying ours' node as it is would show the other texture: the ids are
/// made to agree before anything is spliced, and the removal is a conflict.
#[test]
fn an_id_one_side_gave_to_another_resource_is_not_taken_at_its_word() {
    let base = "[gd_scene load_steps=3 format=2]\n\n[ext_resource path=\"res://a.png\" type=\"Texture\" id=1]\n[ext_resource path=\"res://b.png\" type=\"Texture\" id=2]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"A\" type=\"Sprite\" parent=\".\"]\nposition = Vector2( 1, 1 )\n\n[node name=\"B\" type=\"Sprite\" parent=\".\"]\ntexture = ExtResource( 2 )\n";
    let ours = base.replace("position = Vector2( 1, 1 )\n", "position = Vector2( 1, 1 )\ntexture = ExtResource( 1 )\n");
    let theirs = base
        .replace("load_steps=3", "load_steps=2")
        .replace("[ext_resource path=\"res://a.png\" type=\"Texture\" id=1]\n", "")
        .replace("id=2]", "id=1]")
        .replace("ExtResource( 2 )", "ExtResource( 1 )");
    let out = merge(base, &ours, &theirs).unwrap();
    let text = String::from_utf8_lossy(&out.text);
    assert_eq!(out.open_conflicts, 1, "{text}");
    assert!(out.conflicts.iter().any(|c| c.kind == "delete-modify"), "{:?}", out.conflicts);
}

/// Ours deleted texture b (and added a shape). Theirs deleted a and added it back, so Godot 3
/// renumbered: b's section now comes first. A diff of the sections can read that as b deleted
/// (agreeing with ours) and b inserted (taken from theirs), and a splice would bring b back. A
/// part that base has elsewhere is a move: the whole merge decides it.
#[test]
fn a_section_one_side_moved_and_the_other_deleted_stays_deleted() {
    let scene = |header: &str, exts: &[(&str, u32)], shapes: usize, a: Option<u32>, c: Option<u32>| {
        let mut s = format!("[gd_scene load_steps={header} format=2]\n\n");
        for (path, id) in exts {
            s.push_str(&format!("[ext_resource path=\"res://{path}.png\" type=\"Texture\" id={id}]\n"));
        }
        for i in 1..=shapes {
            s.push_str(&format!("\n[sub_resource type=\"RectangleShape2D\" id={i}]\nextents = Vector2( 1, 1 )\n"));
        }
        let texture = |t: Option<u32>| t.map_or(String::new(), |id| format!("texture = ExtResource( {id} )\n"));
        s.push_str(&format!("\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"A\" type=\"Sprite\" parent=\".\"]\n{}", texture(a)));
        s.push_str("\n[node name=\"B\" type=\"Sprite\" parent=\"A\"]\n");
        s.push_str(&format!("\n[node name=\"C\" type=\"Sprite\" parent=\".\"]\n{}", texture(c)));
        s.push_str("\n[node name=\"D\" type=\"Sprite\" parent=\"C\"]\n\n[connection signal=\"changed\" from=\"C\" to=\"A\" method=\"_on_changed\"]\n");
        s
    };
    let base = scene("4", &[("a", 1), ("b", 2)], 1, Some(1), Some(2));
    let ours = scene("4", &[("a", 1)], 2, Some(1), None);
    let theirs = scene("4", &[("b", 1), ("a", 2)], 1, None, Some(1));
    let out = clean(&base, &ours, &theirs);
    assert!(!out.contains("b.png"), "ours deleted b:\n{out}");
    assert!(out.contains("res://a.png") && !out.contains("texture ="), "{out}");
}

#[test]
fn deleting_a_resource_the_other_side_starts_to_use_is_a_conflict_on_that_resource_never_a_clean_merge() {
    let ours = GODOT3
        .replace("load_steps=3", "load_steps=2")
        .replace("[ext_resource path=\"res://icon.png\" type=\"Texture\" id=2]\n", "")
        .replace("texture = ExtResource( 2 )\n", "");
    let theirs = GODOT3.replace("text = \"Hello", "icon = ExtResource( 2 )\ntext = \"Hello");
    let r = merge(GODOT3, &ours, &theirs).expect("merged as a level, not refused");
    assert_eq!(r.open_conflicts, 1, "{:?}", r.conflicts);
    assert_eq!((r.conflicts[0].object.as_str(), r.conflicts[0].kind), ("ext:2", "delete-modify"));
}

#[test]
fn identity_laws_on_a_godot4_scene() {
    let base = "[gd_scene load_steps=2 format=3 uid=\"uid://abc\"]\n\n[ext_resource type=\"Script\" uid=\"uid://s\" path=\"res://main.gd\" id=\"1_0r6n5\"]\n\n[sub_resource type=\"BoxShape3D\" id=\"BoxShape3D_tj6p1\"]\nsize = Vector3(1, 2, 3)\n\n[node name=\"Main\" type=\"Node3D\"]\nscript = ExtResource(\"1_0r6n5\")\n\n[node name=\"Body\" type=\"CollisionShape3D\" parent=\".\"]\nshape = SubResource(\"BoxShape3D_tj6p1\")\n";
    let other = base
        .replace("size = Vector3(1, 2, 3)", "size = Vector3(2, 2, 3)")
        .replace("[node name=\"Body\"", "[node name=\"Cam\" type=\"Camera3D\" parent=\".\"]\n\n[node name=\"Body\"");
    assert_eq!(clean(base, base, base), base);
    assert_eq!(clean(base, &other, base), other);
    assert_eq!(clean(base, base, &other), other);
    assert_eq!(clean(base, &other, &other), other);
}

#[test]
fn malformed_input_is_an_error_naming_the_line() {
    let broken = GODOT3.replace("position = Vector2( 10, 20 )", "position = Vector2( 10, 20");
    match merge(GODOT3, &broken, GODOT3) {
        Err(MergeError::Unreadable { problem, .. }) => assert!(problem.to_string().contains("line"), "{problem}"),
        other => panic!("{:?}", other.map(|r| r.open_conflicts)),
    }
}

const SUBS: &str = r#"[gd_scene load_steps=3 format=2]

[sub_resource type="Gradient" id=1]
offsets = PoolRealArray( 0, 1 )

[sub_resource type="GradientTexture" id=2]
gradient = SubResource( 1 )

[node name="Main" type="Sprite"]
texture = SubResource( 2 )
"#;

#[test]
fn a_sub_resource_one_side_replaced_under_its_id_merges_alike_whichever_side_is_ours() {
    let base = "[gd_scene load_steps=3 format=2]\n\n[sub_resource type=\"Gradient\" id=1]\noffsets = PoolRealArray( 0, 1 )\n\n[sub_resource type=\"Gradient\" id=2]\noffsets = PoolRealArray( 0, 0.5 )\n\n[node name=\"Main\" type=\"Sprite\"]\na = SubResource( 1 )\n";
    // Ours put a new resource in place of the first, reusing its id (as Godot 3 does on
    // save); theirs pointed the node at the second.
    let replaced = base.replace("type=\"Gradient\" id=1]\noffsets = PoolRealArray( 0, 1 )", "type=\"Curve\" id=1]\nbake_resolution = 50");
    let repointed = base.replace("a = SubResource( 1 )", "a = SubResource( 2 )");
    let expected = replaced.replace("a = SubResource( 1 )", "a = SubResource( 2 )");
    assert_eq!(clean(base, &replaced, &repointed), expected);
    assert_eq!(clean(base, &repointed, &replaced), expected);
}

#[test]
fn a_sub_resource_both_sides_edited_alike_under_two_ids_merges_alike_whichever_side_is_ours() {
    let base = "[gd_scene load_steps=3 format=2]\n\n[sub_resource type=\"CapsuleShape2D\" id=1]\ncustom_solver_bias = 5.0\n\n[sub_resource type=\"GradientTexture\" id=2]\nwidth = 2048\n\n[node name=\"Main\" type=\"Node2D\"]\nshape = SubResource( 1 )\ntexture = SubResource( 2 )\n";
    // Both set the shape's bias to 0.0. Ours changed nothing else; theirs removed the texture
    // and added a material, which Godot 3 numbered 1, moving the shape to 2: the texture's id,
    // taken by the shape both sides changed alike, is not theirs' reuse of it.
    let ours = base.replace("5.0", "0.0");
    let theirs = "[gd_scene load_steps=3 format=2]\n\n[sub_resource type=\"CanvasItemMaterial\" id=1]\nblend_mode = 1\n\n[sub_resource type=\"CapsuleShape2D\" id=2]\ncustom_solver_bias = 0.0\n\n[node name=\"Main\" type=\"Node2D\"]\nmaterial = SubResource( 1 )\nshape = SubResource( 2 )\n";
    for (o, t) in [(ours.as_str(), theirs), (theirs, ours.as_str())] {
        let out = clean(base, o, t);
        assert_eq!(out.matches("type=\"CapsuleShape2D\"").count(), 1, "{out}");
        assert!(!out.contains("GradientTexture") && !out.contains("texture ="), "{out}");
        assert!(out.contains("type=\"CanvasItemMaterial\""), "{out}");
    }
}

#[test]
fn a_resource_id_written_with_spaces_is_not_aligned_whichever_side_is_ours() {
    // Both sides add a tile set (under two ids) and a layer using it; ours writes its id with
    // a space before it, which Godot never does. Aligned, theirs' tile set took ours' id
    // without the space, and the two tags conflicted one way only.
    let base = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n";
    let added = |id: &str, cells: &str| {
        format!(
            "[gd_scene format=3]\n\n[ext_resource type=\"TileSet\" path=\"res://tiles.tres\" id=\"{id}\"]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"Ground\" type=\"TileMapLayer\" parent=\".\"]\ntile_map_data = PackedByteArray(\"{cells}\")\ntile_set = ExtResource(\"{}\")\n",
            id.trim()
        )
    };
    let ours = added(" 2_t", "AAABAAAAAAAAAAAAAAABAAEAAAAEAAAAAAA=");
    let theirs = added("1_t", "AAABAAAAAAAAAAAAAAABAAEAAAABAAAAAAA=");
    let given = merge(base, &ours, &theirs).unwrap();
    let swapped = merge(base, &theirs, &ours).unwrap();
    let kinds = |r: &MergeOutcome| r.conflicts.iter().map(|c| (c.object.clone(), c.kind)).collect::<Vec<_>>();
    assert_eq!(kinds(&given), kinds(&swapped));
    assert_eq!(given.open_conflicts, 1, "{:?}", given.conflicts);
}

#[test]
fn sub_resources_stay_defined_before_their_first_use() {
    // Ours adds a gradient used by a texture theirs edits to use it: the merged file must
    // define the new gradient before the texture.
    let ours = SUBS
        .replace("load_steps=3", "load_steps=4")
        .replace("[node name=\"Main\"", "[sub_resource type=\"Gradient\" id=3]\noffsets = PoolRealArray( 0.5, 1 )\n\n[node name=\"Main\"");
    let theirs = SUBS.replace("gradient = SubResource( 1 )", "gradient = SubResource( 1 )\nwidth = 64");
    let out = clean(SUBS, &ours, &theirs);
    assert!(out.contains("width = 64"), "{out}");
    assert!(out.find("id=3]").unwrap() > out.find("id=1]").unwrap(), "{out}");
    let swapped_use = ours.replace("gradient = SubResource( 1 )", "gradient = SubResource( 3 )");
    let out = clean(SUBS, &swapped_use, &theirs);
    assert!(
        out.find("[sub_resource type=\"Gradient\" id=3]").unwrap() < out.find("[sub_resource type=\"GradientTexture\" id=2]").unwrap(),
        "{out}"
    );
    assert!(out.contains("gradient = SubResource( 3 )\nwidth = 64"), "{out}");
    // Ours was broken that way already and theirs left those sections alone (both edit the
    // node, so every section is read): ours' order stays, as ours wrote it.
    let ours = swapped_use.replace("texture = SubResource( 2 )\n", "texture = SubResource( 2 )\noffset = Vector2( 1, 0 )\n");
    let theirs = SUBS.replace("texture = SubResource( 2 )\n", "texture = SubResource( 2 )\ncentered = false\n");
    let out = clean(SUBS, &ours, &theirs);
    assert_eq!(out, ours.replace("offset = Vector2( 1, 0 )\n", "offset = Vector2( 1, 0 )\ncentered = false\n"));
}

#[test]
fn an_id_theirs_freed_is_reused_for_what_theirs_added() {
    // Theirs replaced gradient 1 by a curve that Godot 3 numbered 1 again.
    let theirs = SUBS.replace(
        "[sub_resource type=\"Gradient\" id=1]\noffsets = PoolRealArray( 0, 1 )",
        "[sub_resource type=\"Curve\" id=1]\nmin_value = -1.0",
    );
    let ours = SUBS.replace("[node name=\"Main\" type=\"Sprite\"]\n", "[node name=\"Main\" type=\"Sprite\"]\nvisible = false\n");
    let r = merge(SUBS, &ours, &theirs).unwrap();
    assert_eq!(r.open_conflicts, 0);
    let out = String::from_utf8(r.text).unwrap();
    assert!(out.contains("[sub_resource type=\"Curve\" id=1]\nmin_value = -1.0"), "{out}");
    assert!(!out.contains("Gradient\" id"), "{out}");
    assert!(r.notes.is_empty(), "{:?}", r.notes);
}

#[test]
fn sibling_nodes_sharing_a_name_are_matched_in_order() {
    let base = "[gd_scene format=2]\n\n[node name=\"Root\" type=\"Node\"]\n\n[node name=\"Row\" type=\"HBox\" parent=\".\"]\nvisible = true\n\n[node name=\"Row\" type=\"HBox\" parent=\".\"]\nvisible = true\n";
    let ours = base.replacen("visible = true", "visible = false", 1);
    let theirs = format!("{}modulate = Color( 1, 0, 0, 1 )\n", base);
    let out = clean(base, &ours, &theirs);
    assert_eq!(out, format!("{}modulate = Color( 1, 0, 0, 1 )\n", ours));
}

#[test]
fn a_diff_shows_nodes_by_their_path_and_type() {
    use levelmerge_core::diff::{Edit, Status};
    let new = GODOT3.replace("position = Vector2( 10, 20 )", "position = Vector2( 12, 20 )").replace(
        "[ext_resource path=\"res://icon.png\" type=\"Texture\" id=2]",
        "[ext_resource path=\"res://icon.png\" type=\"Texture\" id=2]\n[ext_resource path=\"res://door.tscn\" type=\"PackedScene\" id=3]",
    );
    let report = levelmerge_core::diff_texts(&GodotCodec, GODOT3.as_bytes(), new.as_bytes()).expect("both read");
    let sprite = report.objects.iter().find(|o| o.path == ["Main", "Sprite"]).expect("the sprite is shown under the root's name");
    assert_eq!((sprite.kind.as_str(), sprite.status), ("Sprite", Status::Changed));
    assert!(matches!(&sprite.entries[0].edit, Edit::Modified { property, .. } if property == "position"), "{sprite:?}");
    let door = report.objects.iter().find(|o| o.path == ["res://door.tscn"]).expect("a resource is shown by its path");
    assert_eq!(door.status, Status::Added);
}

#[test]
fn a_resource_files_own_resource_is_the_file() {
    let base = "[gd_resource type=\"Theme\" format=3]\n\n[sub_resource type=\"StyleBoxFlat\" id=\"box\"]\nbg_color = Color(0, 0, 0, 1)\n\n[resource]\ndefault_font_size = 14\n";
    let (ours, theirs) = (base.replace("= 14", "= 16"), base.replace("= 14", "= 18"));
    let r = merge(base, &ours, &theirs).expect("merged");
    assert_eq!(
        r.conflicts.iter().map(|c| (c.object_path.clone(), c.path.as_str())).collect::<Vec<_>>(),
        [(Some(vec![]), "default_font_size")]
    );
    let report =
        levelmerge_core::diff_texts(&GodotCodec, base.as_bytes(), ours.replace("0, 0, 0, 1", "1, 1, 1, 1").as_bytes()).expect("both read");
    let paths: Vec<&[String]> = report.objects.iter().map(|o| o.path.as_slice()).collect();
    assert_eq!(paths, [&["StyleBoxFlat sub:box".to_owned()][..], &[][..]], "the sub-resource by its type, the resource as the file");
}

/// Theirs deleted a sub-resource that ours edited and gave to a new node: preferring theirs
/// would leave the new node pointing at nothing, so the resource is kept, with a note.
#[test]
fn a_preferred_deletion_the_merged_scene_still_uses_is_settled_the_other_way() {
    let base = r#"[gd_scene load_steps=2 format=3]

[sub_resource type="BoxMesh" id="Box_1"]
size = Vector3(1, 1, 1)

[node name="Root" type="Node3D"]

[node name="B" type="MeshInstance3D" parent="."]
mesh = SubResource("Box_1")
"#;
    let ours = base.replace("size = Vector3(1, 1, 1)", "size = Vector3(2, 2, 2)").replace(
        "mesh = SubResource(\"Box_1\")\n",
        "mesh = SubResource(\"Box_1\")\n\n[node name=\"C\" type=\"MeshInstance3D\" parent=\".\"]\nmesh = SubResource(\"Box_1\")\n",
    );
    let theirs = base
        .replace("load_steps=2 ", "")
        .replace("[sub_resource type=\"BoxMesh\" id=\"Box_1\"]\nsize = Vector3(1, 1, 1)\n\n", "")
        .replace("mesh = SubResource(\"Box_1\")\n", "");
    let mut options = Options::default();
    options.policy.prefer = Some(levelmerge_core::Side::Theirs);
    let out = merge_with(base, &ours, &theirs, &options).unwrap_or_else(|e| panic!("merge failed: {e}"));
    assert_eq!(out.open_conflicts, 0);
    let text = String::from_utf8(out.text).unwrap();
    assert!(text.contains("[sub_resource type=\"BoxMesh\" id=\"Box_1\"]\nsize = Vector3(2, 2, 2)\n"), "kept with ours' edit:\n{text}");
    assert!(text.contains("[node name=\"C\" type=\"MeshInstance3D\" parent=\".\"]\nmesh = SubResource(\"Box_1\")"), "{text}");
    assert!(!text.contains("[node name=\"B\" type=\"MeshInstance3D\" parent=\".\"]\nmesh"), "theirs' removal from B stands:\n{text}");
    assert!(out.notes.iter().any(|n| n.contains("kept: theirs deleted it")), "{:?}", out.notes);
    assert!(levelmerge_core::check_text(&GodotCodec, text.as_bytes()).is_empty(), "{text}");
}

/// Theirs deleted a texture and the image it shows; ours gave the texture to a new node but left
/// the image alone. Whichever side is preferred, the result is whole: keeping the texture keeps
/// its image, deleting it deletes both. Left open, the image sits inside the conflict with it.
#[test]
fn what_a_kept_resource_refers_to_is_kept_with_it() {
    let base = r#"[gd_scene load_steps=3 format=3]

[sub_resource type="Image" id="Image_1"]
data = {"width": 1}

[sub_resource type="ImageTexture" id="Texture_1"]
image = SubResource("Image_1")

[node name="Root" type="Node2D"]

[node name="A" type="Sprite2D" parent="."]
texture = SubResource("Texture_1")
"#;
    let ours = format!(
        "{base}
[node name=\"B\" type=\"Sprite2D\" parent=\".\"]\ntexture = SubResource(\"Texture_1\")\n"
    );
    let theirs = base
        .replace("load_steps=3 ", "")
        .replace("[sub_resource type=\"Image\" id=\"Image_1\"]\ndata = {\"width\": 1}\n\n", "")
        .replace("[sub_resource type=\"ImageTexture\" id=\"Texture_1\"]\nimage = SubResource(\"Image_1\")\n\n", "")
        .replace("texture = SubResource(\"Texture_1\")\n", "");
    for prefer in [levelmerge_core::Side::Ours, levelmerge_core::Side::Theirs] {
        let mut options = Options::default();
        options.policy.prefer = Some(prefer);
        let out = merge_with(base, &ours, &theirs, &options).unwrap_or_else(|e| panic!("merge preferring {prefer} failed: {e}"));
        assert_eq!(out.open_conflicts, 0, "preferring {prefer}");
        let text = String::from_utf8(out.text).unwrap();
        assert!(
            text.contains("[sub_resource type=\"Image\" id=\"Image_1\"]"),
            "the kept texture keeps its image, preferring {prefer}:\n{text}"
        );
        assert!(text.contains("[sub_resource type=\"ImageTexture\" id=\"Texture_1\"]"), "preferring {prefer}:\n{text}");
        assert!(levelmerge_core::check_text(&GodotCodec, text.as_bytes()).is_empty(), "preferring {prefer}:\n{text}");
    }
    let open = merge(base, &ours, &theirs).unwrap_or_else(|e| panic!("merge failed: {e}"));
    assert_eq!(open.open_conflicts, 1);
    let text = String::from_utf8(open.text).unwrap();
    let (start, end) = (text.find("<<<<<<<").expect("a conflict"), text.find(">>>>>>>").expect("a conflict"));
    let image = text.find("[sub_resource type=\"Image\"").expect("the image is shown");
    assert!(start < image && image < end, "the image is inside the conflict on the texture:\n{text}");
}

/// A `NodePath` one side wrote follows the nodes the other side renamed or moved: the node it
/// leads to, and the node it is written on.
#[test]
fn node_paths_follow_the_other_sides_renames_and_moves() {
    let base = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"A\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2(1, 1)\n\n[node name=\"Cam\" type=\"Camera2D\" parent=\".\"]\n";
    let aimed = base.replace(
        "[node name=\"Cam\" type=\"Camera2D\" parent=\".\"]\n",
        "[node name=\"Cam\" type=\"Camera2D\" parent=\".\"]\ntarget = NodePath(\"../A:position\")\n",
    );
    let renamed = base.replace("name=\"A\"", "name=\"Hero\"");
    let out = clean(base, &renamed, &aimed);
    assert!(out.contains("target = NodePath(\"../Hero:position\")"), "{out}");
    assert_eq!(out, clean(base, &aimed, &renamed), "the same whichever side renamed");
    let cam_moved = base.replace(
        "[node name=\"Cam\" type=\"Camera2D\" parent=\".\"]",
        "[node name=\"Rig\" type=\"Node2D\" parent=\".\"]\n\n[node name=\"Cam\" type=\"Camera2D\" parent=\"Rig\"]",
    );
    let out = clean(base, &cam_moved, &aimed);
    assert!(out.contains("[node name=\"Cam\" type=\"Camera2D\" parent=\"Rig\"]\ntarget = NodePath(\"../../A:position\")"), "{out}");
}

/// GODOT3 with the sprite (and the label under it) moved under a new `Holder` node, and the
/// connection from the label following it, as the editor saves a reparent.
fn sprite_moved_under_holder(scene: &str) -> String {
    scene
        .replace(
            "[node name=\"Sprite\" type=\"Sprite\" parent=\".\"]",
            "[node name=\"Holder\" type=\"Node2D\" parent=\".\"]\n\n[node name=\"Sprite\" type=\"Sprite\" parent=\"Holder\"]",
        )
        .replace("parent=\"Sprite\"]", "parent=\"Holder/Sprite\"]")
        .replace("from=\"Sprite/Label\"", "from=\"Holder/Sprite/Label\"")
}

#[test]
fn a_subtree_one_side_moved_under_a_new_parent_keeps_the_other_sides_edits_inside_it() {
    let base = GODOT3.replace("[connection signal=\"ready\" from=\".\"", "[connection signal=\"ready\" from=\"Sprite/Label\"");
    let ours = sprite_moved_under_holder(&base);
    let theirs = base.replace("position = Vector2( 10, 20 )", "position = Vector2( 5, 5 )").replace("text = \"Hello", "text = \"Bye");
    let expected = sprite_moved_under_holder(&theirs);
    let r = merge(&base, &ours, &theirs).unwrap_or_else(|e| panic!("merge failed: {e}"));
    assert_eq!(r.open_conflicts, 0, "{:?}", r.conflicts);
    assert_eq!(String::from_utf8(r.text).unwrap(), expected);
    assert!(r.notes.iter().any(|n| n.contains("ours moved node \"Sprite\" to \"Holder/Sprite\"")), "{:?}", r.notes);
    // The same with the sides swapped.
    assert_eq!(clean(&base, &theirs, &ours), expected);
}

#[test]
fn a_node_one_side_renamed_keeps_the_other_sides_edits_and_new_children() {
    let rename = |s: &str| s.replace("name=\"Sprite\"", "name=\"Player\"").replace("parent=\"Sprite\"]", "parent=\"Player\"]");
    let ours = rename(GODOT3);
    let theirs = GODOT3
        .replace("position = Vector2( 10, 20 )", "position = Vector2( 5, 5 )")
        .replace("[connection", "[node name=\"Shadow\" type=\"Sprite\" parent=\"Sprite\"]\n\n[connection");
    assert_eq!(clean(GODOT3, &ours, &theirs), rename(&theirs));
}

#[test]
fn nodes_carrying_one_unique_id_are_one_node_wherever_a_side_put_them() {
    let base = "[gd_scene format=3]\n\n[node name=\"Main\" type=\"Node2D\" unique_id=1]\n\n[node name=\"A\" type=\"Node2D\" parent=\".\" unique_id=2]\n\n[node name=\"B\" type=\"Label\" parent=\".\" unique_id=3]\ntext = \"b\"\n";
    // Renamed and moved, with nothing of its content left to tell it by.
    let ours = base.replace(
        "[node name=\"B\" type=\"Label\" parent=\".\" unique_id=3]\ntext = \"b\"",
        "[node name=\"C\" type=\"Label\" parent=\"A\" unique_id=3]\ntext = \"c\"",
    );
    let theirs = base.replace("text = \"b\"", "text = \"b\"\nvisible = false");
    let out = clean(base, &ours, &theirs);
    assert_eq!(out, ours.replace("text = \"c\"", "text = \"c\"\nvisible = false"));
}

#[test]
fn a_rename_with_two_equally_likely_new_names_is_not_guessed() {
    let sprite = "[node name=\"Sprite\" type=\"Sprite\" parent=\".\"]\nposition = Vector2( 10, 20 )\ntexture = ExtResource( 2 )\n\n";
    let label = "[node name=\"Label\" type=\"Label\" parent=\"Sprite\"]\ntext = \"Hello\nworld\"\n\n";
    let ours = GODOT3.replace(
        &format!("{sprite}{label}"),
        &format!("{}{}", sprite.replace("\"Sprite\"", "\"Left\""), sprite.replace("\"Sprite\"", "\"Right\"")),
    );
    let theirs = GODOT3.replace("position = Vector2( 10, 20 )", "position = Vector2( 5, 5 )");
    let r = merge(GODOT3, &ours, &theirs).unwrap();
    assert!(r.notes.iter().all(|n| !n.contains("renamed")), "{:?}", r.notes);
    assert!(r.conflicts.iter().any(|c| c.object == "node:Sprite" && c.kind == "delete-modify"), "{:?}", r.conflicts);
}

#[test]
fn both_sides_moving_one_node_to_one_place_is_one_move() {
    let base = GODOT3.replace("[connection signal=\"ready\" from=\".\"", "[connection signal=\"ready\" from=\"Sprite/Label\"");
    let moved = sprite_moved_under_holder(&base);
    let theirs = moved.replace("text = \"Hello", "text = \"Bye");
    assert_eq!(clean(&base, &moved, &theirs), theirs);
}

const SHADER: &str = "[gd_resource type=\"Shader\" format=3]\n\n[resource]\ncode = \"shader_type spatial;\nuniform float speed = 1.0;\n\nvoid fragment() {\n\tALBEDO = vec3(1.0);\n}\n\"\n";

#[test]
fn a_multi_line_string_both_sides_edited_in_different_lines_merges_line_by_line() {
    let ours = SHADER.replace("speed = 1.0", "speed = 2.0");
    let theirs = SHADER.replace("vec3(1.0)", "vec3(0.5)");
    let r = merge(SHADER, &ours, &theirs).unwrap_or_else(|e| panic!("merge failed: {e}"));
    assert_eq!(r.open_conflicts, 0, "{:?}", r.conflicts);
    assert_eq!(String::from_utf8(r.text).unwrap(), ours.replace("vec3(1.0)", "vec3(0.5)"));
    assert!(r.notes.iter().any(|n| n.contains("resource › code")), "{:?}", r.notes);
    // Edits of one line stay one conflict on the value.
    let theirs = SHADER.replace("speed = 1.0", "speed = 3.0");
    let r = merge(SHADER, &ours, &theirs).unwrap();
    assert_eq!(r.conflicts.iter().map(|c| (c.path.as_str(), c.kind)).collect::<Vec<_>>(), [("code", "both-modified")]);
}

#[test]
fn a_multi_line_string_one_side_writes_twice_is_not_merged_line_by_line_whichever_side_is_ours() {
    // Theirs edits a later line of the shader and writes `code` a second time: which of its
    // two values the edit of ours joins is not known, so the string stays one conflict.
    let ours = SHADER.replace("speed = 1.0", "speed = 2.0");
    let edited = SHADER.replace("vec3(1.0)", "vec3(0.5)");
    let twice = edited.replace("[resource]\n", "[resource]\ncode = \"shader_type spatial;\n\"\n");
    for (o, t) in [(ours.as_str(), twice.as_str()), (twice.as_str(), ours.as_str())] {
        let r = merge(SHADER, o, t).unwrap_or_else(|e| panic!("merge failed: {e}"));
        assert!(r.notes.iter().all(|n| !n.contains("line by line")), "{:?}", r.notes);
        assert_eq!(r.open_conflicts, 1, "{:?}", r.conflicts);
    }
}

#[test]
fn a_string_one_side_cut_short_is_not_merged_line_by_line() {
    // Theirs ends the string after its first line and adds a property; ours edits a later line
    // of the string. Merged line by line, the string would lose its end: it stays a conflict.
    let theirs = SHADER.replace("shader_type spatial;\n", "shader_type spatial;\"\nresource_name = \"x\n");
    let ours = SHADER.replace("}\n\"", "}\n// end\n\"");
    let r = merge(SHADER, &ours, &theirs).unwrap();
    assert_eq!(r.conflicts.iter().map(|c| (c.path.as_str(), c.kind)).collect::<Vec<_>>(), [("code", "both-modified")]);
}

/// Merged by splicing parts when that applies, and by reading every object: one text.
fn spliced_as_read(b: &str, o: &str, t: &str) -> Option<String> {
    let texts = Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes());
    let spliced = levelmerge_core::merge_disjoint_parts(&GodotCodec, texts)?;
    let read = levelmerge_core::merge_objects(&GodotCodec, texts, &Options::default(), &MarkerStyle::default()).expect("merges");
    assert_eq!(read.open_conflicts, 0);
    assert_eq!(String::from_utf8(spliced.clone()).unwrap(), String::from_utf8(read.text).unwrap());
    Some(String::from_utf8(spliced).unwrap())
}

#[test]
fn a_section_both_sides_changed_into_a_conflict_is_marked_alone_and_the_rest_spliced() {
    let style = MarkerStyle::default();
    let whole = |b: &str, o: &str, t: &str| {
        let texts = Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes());
        levelmerge_core::merge_objects(&GodotCodec, texts, &Options::default(), &style).expect("merges")
    };
    // Both move the sprite, each elsewhere; theirs also edits the label.
    let ours = GODOT3.replace("position = Vector2( 10, 20 )", "position = Vector2( 11, 20 )");
    let theirs = GODOT3.replace("position = Vector2( 10, 20 )", "position = Vector2( 12, 20 )").replace("Hello", "Bye");
    let r = merge(GODOT3, &ours, &theirs).unwrap();
    assert!(r.spliced, "the sprite merged alone, the rest spliced");
    assert_eq!((r.open_conflicts, r.marked_regions), (1, 1));
    levelmerge_testutils::corpus::same_outcome(&r, &whole(GODOT3, &ours, &theirs)).unwrap();
    let text = String::from_utf8(r.text).unwrap();
    let marked = "<<<<<<< ours\nposition = Vector2( 11, 20 )\n=======\nposition = Vector2( 12, 20 )\n>>>>>>> theirs\n";
    assert!(text.contains(marked) && text.contains("Bye"), "{text}");
    // Theirs' side of the conflict uses a gradient ours deleted: that side of the splice is
    // broken, and the whole merge decides.
    let base = SUBS
        .replace("load_steps=3", "load_steps=4")
        .replace("[node name=\"Main\"", "[sub_resource type=\"Gradient\" id=3]\noffsets = PoolRealArray( 0.5, 1 )\n\n[node name=\"Main\"");
    let ours = SUBS.replace("texture = SubResource( 2 )", "texture = null");
    let theirs = base.replace("texture = SubResource( 2 )", "texture = SubResource( 3 )");
    let r = merge(&base, &ours, &theirs).unwrap();
    assert!(!r.spliced && r.open_conflicts > 0, "{}", String::from_utf8_lossy(&r.text));
    levelmerge_testutils::corpus::same_outcome(&r, &whole(&base, &ours, &theirs)).unwrap();
}

#[test]
fn two_sides_of_a_section_are_alike_to_the_checks_only_with_the_same_tags_and_resource_uses() {
    use levelmerge_core::Codec;
    let sprite = "[node name=\"Sprite\" type=\"Sprite\" parent=\".\"]\nposition = Vector2( 10, 20 )\ntexture = ExtResource( 2 )\n\n";
    let alike = |a: &str, b: &str| GodotCodec.checked_alike(a.as_bytes(), b.as_bytes());
    // Another value without a resource: alike (both ways).
    let moved = sprite.replace("10, 20", "11, 20");
    assert!(alike(sprite, &moved) && alike(&moved, sprite));
    // A resource used otherwise, or only on one side: a check may find the other side broken.
    assert!(!alike(sprite, &sprite.replace("ExtResource( 2 )", "ExtResource( 3 )")));
    assert!(!alike(sprite, &sprite.replace("position = Vector2( 10, 20 )", "material = SubResource( 1 )")));
    assert!(!alike(sprite, &sprite.replace("texture = ", "normal_map = ")));
    // Another tag (a parent, a name): the hierarchy reads it.
    assert!(!alike(sprite, &sprite.replace("parent=\".\"", "parent=\"Gone\"")));
    assert!(!alike(sprite, &format!("{sprite}[node name=\"Extra\" type=\"Node\" parent=\".\"]\n")));
    // A side that does not read alone is never alike.
    assert!(!alike(sprite, &sprite.replace("Vector2( 10, 20 )", "Vector2( 10, \"20 )")));
}

#[test]
fn a_conflict_whose_sides_differ_in_plain_values_is_checked_once_and_marked_as_the_whole_merge_marks_it() {
    let style = MarkerStyle::default();
    // Both edit the root, which uses a script: the sides' resource uses are alike.
    let ours = GODOT3.replace("script = ExtResource( 1 )", "script = ExtResource( 1 )\neditor_description = \"ours\"");
    let theirs =
        GODOT3.replace("script = ExtResource( 1 )", "script = ExtResource( 1 )\neditor_description = \"theirs\"").replace("Hello", "Bye");
    let r = merge(GODOT3, &ours, &theirs).unwrap();
    assert!(r.spliced && r.open_conflicts == 1, "{}", String::from_utf8_lossy(&r.text));
    let texts = Sides::new(GODOT3.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let whole = levelmerge_core::merge_objects(&GodotCodec, texts, &Options::default(), &style).expect("merges");
    levelmerge_testutils::corpus::same_outcome(&r, &whole).unwrap();
}

#[test]
fn a_section_whose_merge_alone_settles_a_conflict_is_spliced_with_the_settlement_reported() {
    let style = MarkerStyle::default();
    let both = |b: &str, o: &str, t: &str, options: &Options| {
        let texts = Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes());
        let whole = levelmerge_core::merge_objects(&GodotCodec, texts, options, &style).expect("merges");
        (merge_with(b, o, t, options).expect("merges"), whole)
    };
    // Both browsed elsewhere in the dialog (volatile: ours is kept, a rule of the dialog's
    // own section); theirs also edits the label.
    let base = "[gd_scene format=3]\n\n[node name=\"Main\" type=\"Control\"]\n\n[node name=\"Open\" type=\"FileDialog\" parent=\".\"]\ncurrent_dir = \"/base\"\n\n[node name=\"Label\" type=\"Label\" parent=\".\"]\ntext = \"Hello\"\n";
    let browsed = |dir: &str| base.replace("/base", dir);
    let (ours, theirs) = (browsed("/home/me"), browsed("D:/game").replace("Hello", "Bye"));
    let (r, whole) = both(base, &ours, &theirs, &Options::default());
    assert!(r.spliced && r.open_conflicts == 0, "{}", String::from_utf8_lossy(&r.text));
    levelmerge_testutils::corpus::same_outcome(&r, &whole).unwrap();
    assert_eq!(r.conflicts.iter().map(|c| c.resolved.as_ref().map(|(side, _)| *side)).collect::<Vec<_>>(), [Some(Side::Ours)]);
    assert_eq!(String::from_utf8(r.text).unwrap(), ours.replace("Hello", "Bye"));
    // Both move the label, ours preferred: settled in its section, reported as the whole merge
    // reports it.
    let moved = |x: &str| base.replace("text = \"Hello\"", &format!("position = Vector2({x}, 0)\ntext = \"Hello\""));
    let prefer_ours =
        Options { policy: levelmerge_core::policy::Policy { prefer: Some(Side::Ours), ..Default::default() }, ..Options::default() };
    let (r, whole) = both(base, &moved("1"), &moved("2"), &prefer_ours);
    assert!(r.spliced && r.open_conflicts == 0);
    levelmerge_testutils::corpus::same_outcome(&r, &whole).unwrap();
    // Under a container the whole file settles it otherwise (the container's layout, not the
    // preference): left to the whole merge.
    let boxed = |text: String| {
        text.replace(
            "[node name=\"Label\" type=\"Label\" parent=\".\"]",
            "[node name=\"Box\" type=\"VBoxContainer\" parent=\".\"]\n\n[node name=\"Label\" type=\"Label\" parent=\"Box\"]",
        )
    };
    let prefer_theirs =
        Options { policy: levelmerge_core::policy::Policy { prefer: Some(Side::Theirs), ..Default::default() }, ..Options::default() };
    let (r, whole) = both(&boxed(base.to_owned()), &boxed(moved("1")), &boxed(moved("2")), &prefer_theirs);
    assert!(!r.spliced);
    assert!(
        r.conflicts.iter().all(|c| c.resolved.as_ref().is_some_and(|(side, why)| *side == Side::Ours && why.starts_with("volatile"))),
        "{:?}",
        r.conflicts
    );
    levelmerge_testutils::corpus::same_outcome(&r, &whole).unwrap();
}

#[test]
fn edits_of_different_sections_are_spliced_into_what_reading_every_object_writes() {
    let scene = levelmerge_testutils::godot::scene(300);
    let ours = levelmerge_testutils::godot::edit_numbers(&scene, 40, 0, 1);
    let theirs = levelmerge_testutils::godot::edit_numbers(&scene, 40, 1, 2);
    let out = spliced_as_read(&scene, &ours, &theirs).expect("every section changed by one side at most");
    assert_ne!(out, ours);
    assert_ne!(out, theirs);
    // The same through merge_texts, which splices.
    assert_eq!(clean(&scene, &ours, &theirs), out);
}

#[test]
fn sections_one_side_added_or_removed_are_spliced_in() {
    let ours = GODOT3.replace("position = Vector2( 10, 20 )", "position = Vector2( 11, 20 )");
    // Theirs adds a node.
    let theirs = GODOT3.replace("[connection", "[node name=\"New\" type=\"Node2D\" parent=\".\"]\n\n[connection");
    let out = spliced_as_read(GODOT3, &ours, &theirs).expect("one side changed each place");
    assert_eq!(out, theirs.replace("position = Vector2( 10, 20 )", "position = Vector2( 11, 20 )"));
    // Theirs removes the label (a leaf) and the connection.
    let theirs = GODOT3.replace("[node name=\"Label\" type=\"Label\" parent=\"Sprite\"]\ntext = \"Hello\nworld\"\n\n", "");
    let theirs = theirs.replace("[connection signal=\"ready\" from=\".\" to=\".\" method=\"_on_ready\"]\n", "");
    let out = spliced_as_read(GODOT3, &ours, &theirs).expect("one side changed each place");
    assert!(out.contains("Vector2( 11, 20 )") && !out.contains("Label") && !out.contains("connection"), "{out}");
}

#[test]
fn a_node_an_input_had_before_its_parent_keeps_its_place() {
    // Ours holds the label before its parent sprite (Godot would refuse it); both sides edit
    // the root, so every section is read: the order ours wrote stays.
    let sprite = "[node name=\"Sprite\" type=\"Sprite\" parent=\".\"]\nposition = Vector2( 10, 20 )\ntexture = ExtResource( 2 )\n\n";
    let label = "[node name=\"Label\" type=\"Label\" parent=\"Sprite\"]\ntext = \"Hello\nworld\"\n\n";
    let swapped = GODOT3.replace(&format!("{sprite}{label}"), &format!("{label}{sprite}"));
    assert_ne!(swapped, GODOT3);
    let ours = swapped.replace("script = ExtResource( 1 )\n", "script = ExtResource( 1 )\nz_index = 1\n");
    let theirs = GODOT3.replace("script = ExtResource( 1 )\n", "script = ExtResource( 1 )\nvisible = false\n");
    let r = merge(GODOT3, &ours, &theirs).unwrap();
    assert_eq!(String::from_utf8(r.text).unwrap(), ours.replace("z_index = 1\n", "z_index = 1\nvisible = false\n"));
}

#[test]
fn sections_both_sides_inserted_at_one_place_are_spliced_in_ours_first() {
    let node = |name: &str| format!("[node name=\"{name}\" type=\"Node2D\" parent=\".\"]\n");
    let add = |name: &str| GODOT3.replace("[connection", &format!("{}\n[connection", node(name)));
    let out = spliced_as_read(GODOT3, &add("A"), &add("B")).expect("new nodes at one place");
    assert_eq!(out, GODOT3.replace("[connection", &format!("{}\n{}\n[connection", node("A"), node("B"))));
    // At the end of the file, where the last section has no blank line after it.
    let append = |name: &str| format!("{GODOT3}\n{}", node(name));
    let out = spliced_as_read(GODOT3, &append("A"), &append("B")).expect("new nodes at the end");
    assert_eq!(out, format!("{GODOT3}\n{}\n{}", node("A"), node("B")));
    // Ours also edits the section both append after (the label, last without the
    // connection): its object comes from ours, the blank line after it from both.
    let base = GODOT3.replace("\n[connection signal=\"ready\" from=\".\" to=\".\" method=\"_on_ready\"]\n", "");
    let append = |text: &str, name: &str| format!("{text}\n{}", node(name));
    let ours = append(&base, "A").replace("Hello", "Bye");
    let out = spliced_as_read(&base, &ours, &append(&base, "B")).expect("the last section's edit and gap merge apart");
    assert_eq!(out, format!("{}\n{}\n{}", base.replace("Hello", "Bye"), node("A"), node("B")));
    // Resources Godot writes on consecutive lines stay so, and `load_steps` counts both.
    let base = "[gd_scene load_steps=2 format=2]\n\n[ext_resource path=\"res://a.gd\" type=\"Script\" id=1]\n\n[node name=\"Root\" type=\"Node2D\"]\nscript = ExtResource( 1 )\n";
    let ext = |path: &str, id: u32| format!("[ext_resource path=\"res://{path}\" type=\"Script\" id={id}]\n");
    let add =
        |path: &str, id: u32| base.replace("load_steps=2", "load_steps=3").replace("\n\n[node", &format!("\n{}\n[node", ext(path, id)));
    let out = spliced_as_read(base, &add("b.gd", 2), &add("c.gd", 3)).expect("new resources at one place");
    assert_eq!(
        out,
        base.replace("load_steps=2", "load_steps=4").replace("\n\n[node", &format!("\n{}{}\n[node", ext("b.gd", 2), ext("c.gd", 3)))
    );
}

#[test]
fn parts_are_not_spliced_where_both_sides_changed_one_part_or_one_place() {
    // Both sides edit the sprite: its section is merged alone, the rest spliced around it.
    let ours = GODOT3.replace("position = Vector2( 10, 20 )", "position = Vector2( 11, 20 )");
    let theirs = GODOT3.replace("texture = ExtResource( 2 )\n", "texture = ExtResource( 2 )\nflip_h = true\n");
    let out = spliced_as_read(GODOT3, &ours, &theirs).expect("the sprite merged alone");
    assert_eq!(out, ours.replace("texture = ExtResource( 2 )\n", "texture = ExtResource( 2 )\nflip_h = true\n"));
    // ... unless that merge leaves a conflict, or the section would have to move: it now
    // uses a sub-resource ours defines after it, which the whole merge writes before it.
    let ours = SUBS
        .replace("gradient = SubResource( 1 )", "gradient = SubResource( 3 )")
        .replace("[node name=\"Main\"", "[sub_resource type=\"Gradient\" id=3]\noffsets = PoolRealArray( 0.5, 1 )\n\n[node name=\"Main\"");
    let theirs = SUBS.replace("gradient = SubResource( 1 )", "gradient = SubResource( 1 )\nwidth = 64");
    assert_eq!(spliced_as_read(SUBS, &ours, &theirs), None);
    let theirs = SUBS.replace("gradient = SubResource( 1 )", "gradient = SubResource( 2 )");
    assert_eq!(spliced_as_read(SUBS, &ours, &theirs), None);
    // A header both changed is not merged alone: its load_steps counts the whole file's
    // resources. Only the count changed on one side: spliced, and counted.
    let base =
        "[gd_scene load_steps=2 format=3 uid=\"uid://a\"]\n\n[sub_resource type=\"BoxMesh\" id=\"m\"]\n\n[node name=\"R\" type=\"Node\"]\n";
    let ours = base.replace("uid://a", "uid://b");
    let theirs = base.replace(" load_steps=2", "");
    assert_eq!(spliced_as_read(base, &ours, &theirs), None);
    // The same where a comment comes before the header (the header's part then opens with
    // it): ours names a script class, theirs adds a resource, and the count is made true.
    let noted = format!("; kept by hand\n{}", base.replace("[gd_scene", "[gd_resource type=\"Resource\""));
    let named = noted.replace("type=\"Resource\"", "type=\"Resource\" script_class=\"Item\"");
    let added = noted.replace("load_steps=2", "load_steps=3").replace("[node", "[sub_resource type=\"BoxMesh\" id=\"n\"]\n\n[node");
    let out = spliced_as_read(&noted, &named, &added).expect("the header changed on one side, the count aside");
    assert!(out.contains("script_class=\"Item\" load_steps=3 "), "{out}");
    let theirs = base.replace("load_steps=2", "load_steps=3").replace("[node", "[sub_resource type=\"BoxMesh\" id=\"n\"]\n\n[node");
    let out = spliced_as_read(base, &ours, &theirs).expect("the header changed on one side, the count aside");
    assert!(out.starts_with("[gd_scene load_steps=3 format=3 uid=\"uid://b\"]"), "{out}");
    // Ours edits the label theirs removes: a conflict for the whole merge to report.
    let ours = GODOT3.replace("Hello", "Bye");
    let theirs = GODOT3.replace("[node name=\"Label\" type=\"Label\" parent=\"Sprite\"]\ntext = \"Hello\nworld\"\n\n", "");
    let texts = Sides::new(GODOT3.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    assert_eq!(levelmerge_core::merge_disjoint_parts(&GodotCodec, texts), None);
    assert!(merge(GODOT3, &ours, &theirs).unwrap().open_conflicts > 0);
    // Theirs removes the sprite; ours adds a child to it elsewhere in the file. The places
    // differ, so the parts splice, but the spliced file is read back, found broken, and left
    // to the whole merge.
    let ours = format!("{GODOT3}\n[node name=\"Shadow\" type=\"Sprite\" parent=\"Sprite\"]\n");
    let theirs = GODOT3.replace(
        "[node name=\"Sprite\" type=\"Sprite\" parent=\".\"]\nposition = Vector2( 10, 20 )\ntexture = ExtResource( 2 )\n\n[node name=\"Label\" type=\"Label\" parent=\"Sprite\"]\ntext = \"Hello\nworld\"\n\n",
        "",
    );
    assert_ne!(theirs, GODOT3);
    let texts = Sides::new(GODOT3.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let spliced = levelmerge_core::merge_disjoint_parts(&GodotCodec, texts).expect("different places");
    assert!(levelmerge_core::check_text(&GodotCodec, &spliced).iter().any(|p| p.to_string().contains("Sprite")));
    let r = merge(GODOT3, &ours, &theirs).unwrap();
    assert!(r.open_conflicts > 0, "{}", String::from_utf8_lossy(&r.text));
    // Both add a node of one name at one place: spliced, read back, found to hold two nodes of
    // one path, and left to the whole merge, which reports them.
    let add = |name: &str, kind: &str| {
        GODOT3.replace("[connection", &format!("[node name=\"{name}\" type=\"{kind}\" parent=\".\"]\n\n[connection"))
    };
    let (ours, theirs) = (add("A", "Node2D"), add("A", "Sprite"));
    assert!(levelmerge_core::merge_disjoint_parts(&GodotCodec, Sides::new(GODOT3.as_bytes(), ours.as_bytes(), theirs.as_bytes())).is_some());
    let r = merge(GODOT3, &ours, &theirs).unwrap();
    assert!(r.open_conflicts > 0, "{}", String::from_utf8_lossy(&r.text));
    // Both move the connection to one place, each beside a node of its own: the moved
    // section would be written twice.
    let moved = |name: &str| {
        let connection = "[connection signal=\"ready\" from=\".\" to=\".\" method=\"_on_ready\"]\n";
        let sprite = "[node name=\"Sprite\"";
        let text = GODOT3.replace(&format!("\n{connection}"), "");
        text.replace(sprite, &format!("{connection}\n[node name=\"{name}\" type=\"Node2D\" parent=\".\"]\n\n{sprite}"))
    };
    let (ours, theirs) = (moved("A"), moved("B"));
    assert_eq!(levelmerge_core::merge_disjoint_parts(&GodotCodec, Sides::new(GODOT3.as_bytes(), ours.as_bytes(), theirs.as_bytes())), None);
    // A string holding a line that looks like a tag does not cut the text there.
    let base = GODOT3.replace("text = \"Hello\nworld\"", "text = \"Hello\n[node name=\\\"X\\\" parent=\\\".\\\"]\nworld\"");
    let ours = base.replace("Hello", "Bye");
    let theirs = base.replace("world\"", "there\"");
    assert_eq!(spliced_as_read(&base, &ours, &theirs), None);
}

#[test]
fn many_siblings_renamed_alike_are_told_apart_by_their_own_content() {
    let node = |name: &str, x: usize| {
        format!("[node name=\"{name}\" type=\"Node2D\" parent=\".\"]\nposition = Vector2( {x}, 0 )\nscale = Vector2( 2, 2 )\n\n")
    };
    let scene = |prefix: &str, edited: Option<usize>| {
        let mut s = "[gd_scene format=2]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n".to_owned();
        for i in 0..20 {
            let mut n = node(&format!("{prefix}{i}"), i);
            if edited == Some(i) {
                n = n.replace("scale = Vector2( 2, 2 )", "scale = Vector2( 3, 3 )");
            }
            s.push_str(&n);
        }
        s
    };
    let (base, ours, theirs) = (scene("Tree", None), scene("Tree", Some(7)), scene("Oak", None));
    let r = merge(&base, &ours, &theirs).unwrap_or_else(|e| panic!("merge failed: {e}"));
    assert_eq!(r.open_conflicts, 0, "{:?}", r.conflicts);
    assert_eq!(String::from_utf8(r.text).unwrap(), scene("Oak", Some(7)));
    assert!(r.notes.iter().any(|n| n.contains("theirs renamed or moved 20 nodes") && n.contains("and 17 more")), "{:?}", r.notes);
}

#[test]
fn a_node_moved_under_one_the_other_side_renamed_follows_the_rename() {
    // Ours moves Other under Sprite; theirs renames Sprite. Ours' move cannot be made in
    // theirs (no Sprite to go under there), so theirs' rename is made in ours, Other with the
    // rest of Sprite's subtree: Other stands under the renamed node. Before, the two moves
    // were taken to reach into each other and neither was made: a conflict.
    let base = GODOT3.replace("[connection", "[node name=\"Other\" type=\"Node2D\" parent=\".\"]\n\n[connection");
    let ours = GODOT3.replace("[connection", "[node name=\"Other\" type=\"Node2D\" parent=\"Sprite\"]\n\n[connection");
    let theirs = base.replace("name=\"Sprite\"", "name=\"Player\"").replace("parent=\"Sprite\"]", "parent=\"Player\"]");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let text = clean(&base, o, t);
        assert_eq!(
            text,
            theirs.replace("[node name=\"Other\" type=\"Node2D\" parent=\".\"]", "[node name=\"Other\" type=\"Node2D\" parent=\"Player\"]")
        );
        assert!(levelmerge_core::check_text(&GodotCodec, text.as_bytes()).is_empty(), "{text}");
    }
}

#[test]
fn a_node_one_side_moved_first_among_its_siblings_and_the_other_under_a_later_sibling_follows_its_new_parent() {
    // Ours puts Timer first among Box's children and gives it a child; theirs moves it under
    // Coin, which comes after it in ours. Made in ours, the move left Timer before Coin, a
    // parent Godot must read first: the merge was refused and made by lines, a conflict.
    let scene = |nodes: &[(&str, &str)]| {
        let mut s =
            "[gd_scene format=3]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n[node name=\"Box\" type=\"Node2D\" parent=\".\"]\n".to_owned();
        for (name, parent) in nodes {
            s.push_str(&format!("\n[node name=\"{name}\" type=\"Node2D\" parent=\"{parent}\"]\n"));
        }
        s
    };
    let base = scene(&[("Coin", "Box"), ("Label", "Box"), ("Timer", "Box")]);
    let ours = scene(&[("Timer", "Box"), ("Shape", "Box/Timer"), ("Coin", "Box"), ("Label", "Box")]);
    let theirs = scene(&[("Coin", "Box"), ("Timer", "Box/Coin"), ("Label", "Box")]);
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let text = clean(&base, o, t);
        assert_eq!(text, scene(&[("Coin", "Box"), ("Timer", "Box/Coin"), ("Shape", "Box/Coin/Timer"), ("Label", "Box")]));
        assert!(levelmerge_core::check_text(&GodotCodec, text.as_bytes()).is_empty(), "{text}");
    }
}

#[test]
fn a_node_carrying_a_unique_id_is_followed_out_of_a_parent_its_side_deleted() {
    let base = "[gd_scene format=3]\n\n[node name=\"Main\" type=\"Control\" unique_id=1]\n\n[node name=\"Box\" type=\"HBoxContainer\" parent=\".\" unique_id=2]\n\n[node name=\"Search\" type=\"LineEdit\" parent=\"Box\" unique_id=3]\ntext = \"a\"\n";
    // Ours replaces the box by a toolbar and moves the search field into it.
    let ours = "[gd_scene format=3]\n\n[node name=\"Main\" type=\"Control\" unique_id=1]\n\n[node name=\"Tools\" type=\"HFlowContainer\" parent=\".\" unique_id=4]\n\n[node name=\"Search\" type=\"LineEdit\" parent=\"Tools\" unique_id=3]\ntext = \"a\"\n";
    let theirs = base.replace("text = \"a\"", "text = \"b\"");
    let out = clean(base, ours, &theirs);
    assert_eq!(out, ours.replace("text = \"a\"", "text = \"b\""));
}

#[test]
fn offsets_a_container_gives_its_children_are_not_conflicts() {
    let scene = |parent_type: &str, top: &str| {
        format!(
            "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Control\"]\n\n[node name=\"Box\" type=\"{parent_type}\" parent=\".\"]\n\n[node name=\"Item\" type=\"Button\" parent=\"Box\"]\noffset_top = {top}\ntext = \"Go\"\n"
        )
    };
    // Each side relaid the box (one added a sibling above, one resized it): ours is kept.
    let r = merge(&scene("VBoxContainer", "0.0"), &scene("VBoxContainer", "31.0"), &scene("VBoxContainer", "12.0")).unwrap();
    // The item's section alone would leave a conflict there: its parent, in another
    // section, settles it.
    assert_eq!(r.open_conflicts, 0, "{:?}", r.conflicts);
    assert_eq!(String::from_utf8(r.text).unwrap(), scene("VBoxContainer", "31.0"));
    // Under a parent that does not lay out its children the offset is the user's: a conflict.
    for parent in ["Control", "Container"] {
        let r = merge(&scene(parent, "0.0"), &scene(parent, "31.0"), &scene(parent, "12.0")).unwrap();
        assert_eq!(r.open_conflicts, 1, "under a {parent}");
    }
    // Many items, each its own section merged alone, under a container and beside it: what the
    // rest of the file says is read once for all of them, and tells each apart.
    let items = |top: &str| {
        let mut s =
            "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Control\"]\n\n[node name=\"Box\" type=\"VBoxContainer\" parent=\".\"]\n"
                .to_owned();
        for (i, parent) in ["Box", ".", "Box", "Box", ".", "Box"].iter().enumerate() {
            s.push_str(&format!("\n[node name=\"Item{i}\" type=\"Button\" parent=\"{parent}\"]\noffset_top = {top}\ntext = \"Go\"\n"));
        }
        s
    };
    let r = merge(&items("0.0"), &items("31.0"), &items("12.0")).unwrap();
    assert_eq!(r.open_conflicts, 2, "the two items outside the box: {:?}", r.conflicts);
    let open: Vec<&str> = r.conflicts.iter().filter(|c| c.resolved.is_none()).map(|c| c.object.as_str()).collect();
    assert_eq!(open, ["node:Item1", "node:Item4"]);
}

#[test]
fn uids_both_sides_drew_for_one_resource_take_theirs() {
    let scene = |uid: &str| {
        format!("[gd_scene format=3{uid}]\n\n[ext_resource type=\"Script\"{uid} path=\"res://a.gd\" id=\"1\"]\n\n[node name=\"Root\" type=\"Node\"]\nscript = ExtResource(\"1\")\n")
    };
    let r = merge(&scene(""), &scene(" uid=\"uid://ours\""), &scene(" uid=\"uid://theirs\"")).unwrap();
    assert_eq!(r.open_conflicts, 0, "{:?}", r.conflicts);
    assert_eq!(r.conflicts.len(), 2, "each settled conflict is reported");
    assert_eq!(String::from_utf8(r.text).unwrap(), scene(" uid=\"uid://theirs\""));
    // Any other attribute both sides set differently is still a conflict.
    let typed = |t: &str| scene("").replace("type=\"Script\"", &format!("type=\"{t}\""));
    assert_eq!(merge(&scene(""), &typed("GDScript"), &typed("CSharpScript")).unwrap().open_conflicts, 1);
}

#[test]
fn the_folder_a_file_dialog_last_showed_is_not_a_conflict() {
    let scene = |node: &str, dir: &str| {
        format!("[gd_scene format=3]\n\n[node name=\"Root\" type=\"Control\"]\n\n[node name=\"Open\" {node} parent=\".\"]\ncurrent_dir = \"{dir}\"\n")
    };
    for node in ["type=\"FileDialog\"", "instance=ExtResource(\"1\")"] {
        let r = merge(&scene(node, "/base"), &scene(node, "/home/me/game"), &scene(node, "D:/game")).unwrap();
        assert_eq!(r.open_conflicts, 0, "{node}: {:?}", r.conflicts);
        assert_eq!(String::from_utf8(r.text).unwrap(), scene(node, "/home/me/game"));
    }
    // A `current_dir` of another type is the node's own property.
    let node = "type=\"Node\"";
    assert_eq!(merge(&scene(node, "/base"), &scene(node, "/home/me/game"), &scene(node, "D:/game")).unwrap().open_conflicts, 1);
}

#[test]
fn unique_ids_both_sides_gave_a_node_take_theirs() {
    let scene = |root: &str, child: &str| {
        format!("[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"{root}]\n\n[node name=\"A\" type=\"Node\" parent=\".\"{child}]\n")
    };
    let r = merge(&scene("", ""), &scene(" unique_id=11", " unique_id=12"), &scene(" unique_id=21", " unique_id=22")).unwrap();
    assert_eq!(r.open_conflicts, 0, "{:?}", r.conflicts);
    assert_eq!(String::from_utf8(r.text).unwrap(), scene(" unique_id=21", " unique_id=22"));
}

#[test]
fn two_nodes_of_one_unique_id_are_never_written() {
    let base = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\" unique_id=1]\n";
    let ours = format!("{base}\n[node name=\"A\" type=\"Node\" parent=\".\" unique_id=7]\n");
    let theirs = format!("{base}\n[node name=\"B\" type=\"Node\" parent=\".\" unique_id=7]\n");
    // Each side alone is sound; a file holding both nodes would give one id to two nodes.
    match merge(base, &ours, &theirs) {
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.text);
            assert!(out.open_conflicts > 0 || text.matches("unique_id=7").count() == 1, "{text}");
        }
        Err(e) => assert!(e.to_string().contains("unique_id=7"), "{e}"),
    }
}

#[test]
fn check_finds_each_kind_of_scene_problem_once() {
    let text = r#"[gd_scene load_steps=3 format=2]

[ext_resource path="res://a.png" type="Texture" id=1]

[sub_resource type="GradientTexture" id=2]
gradient = SubResource( 3 )

[sub_resource type="Gradient" id=3]
offsets = PoolRealArray( 0, 1 )

[node name="Main" type="Node2D"]

[node name="Icon" type="Sprite" parent="."]
texture = ExtResource( 1 )
normal_map = ExtResource( 7 )
frames = [ ExtResource( 1 ), ExtResource( 8 ) ]

[node name="Icon" type="Sprite" parent="."]

[node name="Lost" type="Node" parent="Nowhere"]

[connection signal="ready" from="Icon" to="Gone" method="_on_ready"]
"#;
    let problems: Vec<String> = levelmerge_core::check_text(&GodotCodec, text.as_bytes()).iter().map(|p| p.to_string()).collect();
    let found = |what: &str| found_in(&problems, what);
    assert_eq!(found("uses SubResource(3) before it is defined"), 1, "{problems:#?}");
    assert_eq!(found("ext:7"), 1, "a reference to no resource: {problems:#?}");
    assert_eq!(found("ext:8"), 1, "one of two uses naming no resource: {problems:#?}");
    assert_eq!(found("a second node named \"Icon\""), 1, "{problems:#?}");
    assert_eq!(found("Nowhere"), 1, "a node whose parent does not exist: {problems:#?}");
    assert_eq!(found("Gone"), 1, "a connection to no node: {problems:#?}");
    assert_eq!(problems.len(), 6, "nothing else: {problems:#?}");
    // In order, the same sub-resources are sound.
    let ordered = text.replace("gradient = SubResource( 3 )", "gradient = SubResource( 2 )");
    let problems: Vec<String> = levelmerge_core::check_text(&GodotCodec, ordered.as_bytes()).iter().map(|p| p.to_string()).collect();
    assert_eq!(found_in(&problems, "before it is defined"), 0, "{problems:#?}");
    // Nodes and a connection under a root node the file does not hold: said once.
    let rootless = GODOT3.replace("[node name=\"Main\" type=\"Node2D\"]\nscript = ExtResource( 1 )\n\n", "");
    let problems: Vec<String> = levelmerge_core::check_text(&GodotCodec, rootless.as_bytes()).iter().map(|p| p.to_string()).collect();
    assert_eq!(problems, ["line 6: node:.: nodes under a root node the file does not hold"], "{rootless}");
    // A header whose count is not one.
    let uncounted = GODOT3.replace("load_steps=3", "load_steps=x3");
    let problems: Vec<String> = levelmerge_core::check_text(&GodotCodec, uncounted.as_bytes()).iter().map(|p| p.to_string()).collect();
    assert_eq!(problems, ["line 1: header: load_steps is not a count"]);
    // A file without its header, or with nothing in it: Godot reads neither.
    let headless = GODOT3.replace("[gd_scene load_steps=3 format=2]\n\n", "");
    let problems: Vec<String> = levelmerge_core::check_text(&GodotCodec, headless.as_bytes()).iter().map(|p| p.to_string()).collect();
    assert_eq!(found_in(&problems, "does not begin with [gd_scene …] or [gd_resource …]"), 1, "{problems:#?}");
    for empty in ["", "\n\n", "\u{feff}"] {
        let problems: Vec<String> = levelmerge_core::check_text(&GodotCodec, empty.as_bytes()).iter().map(|p| p.to_string()).collect();
        assert_eq!(problems, ["line 1: header: an empty file: Godot expects [gd_scene …] or [gd_resource …]"], "{empty:?}");
    }
    // A header alone is a file Godot reads.
    assert!(levelmerge_core::check_text(&GodotCodec, b"[gd_resource type=\"Theme\" format=3]\n").is_empty());
    // An entry without a type overrides the node of its path defined before it (sound), but
    // finds none defined after it: Godot drops its properties.
    let check =
        |text: &str| -> Vec<String> { levelmerge_core::check_text(&GodotCodec, text.as_bytes()).iter().map(|p| p.to_string()).collect() };
    let defined = "[node name=\"Icon\" type=\"Sprite\" parent=\".\"]\n\n";
    let over = "[node name=\"Icon\" parent=\".\"]\nvisible = false\n\n";
    let scene = |entries: &str| format!("[gd_scene format=2]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n{entries}");
    assert!(check(&scene(&format!("{defined}{over}"))).is_empty());
    assert_eq!(
        check(&scene(&format!("{over}{defined}"))),
        ["line 8: node:Icon#2: node \"Icon\" under \".\" is defined after an entry that overrides it"]
    );
    // Nodes before the root: Godot takes the first node for the root, and the root after
    // them names no parent. Each is said.
    let misplaced = "[gd_scene format=2]\n\n[node name=\"Icon\" type=\"Sprite\" parent=\".\"]\n\n\
[node name=\"Glow\" type=\"Sprite\" parent=\"Icon\"]\n\n[node name=\"Main\" type=\"Node2D\"]\n";
    assert_eq!(
        check(misplaced),
        [
            "line 3: node:Icon: node \"Icon\" comes before the scene's root node (Godot reads the first node as the root)",
            "line 5: node:Icon/Glow: node \"Glow\" comes before the scene's root node (Godot reads the first node as the root)"
        ]
    );
    // A node inside an instanced scene, read before the node instancing it: Godot instances a
    // scene when it reaches its node, and finds no parent for the node before it.
    let instanced = |entries: &str| {
        format!("[gd_scene format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://hand.tscn\" id=\"1\"]\n\n[node name=\"Main\" type=\"Node3D\"]\n\n{entries}")
    };
    let hand = "[node name=\"Hand\" parent=\".\" instance=ExtResource(\"1\")]\n\n";
    let glove = "[node name=\"Glove\" type=\"Node3D\" parent=\"Hand/Skeleton\"]\n\n";
    assert!(check(&instanced(&format!("{hand}{glove}"))).is_empty());
    assert_eq!(
        check(&instanced(&format!("{glove}{hand}"))),
        ["line 7: node:Hand/Skeleton/Glove: parent node:Hand/Skeleton does not exist"]
    );
    // Below a node this file makes (the glove, with a type) lies only what this file lists,
    // even inside an instanced scene: a connection from a node there that is gone is said; one
    // from the instance's own nodes is not.
    let connected = |from: &str| format!("{hand}{glove}[connection signal=\"ready\" from=\"{from}\" to=\".\" method=\"_on_ready\"]\n");
    assert!(check(&instanced(&connected("Hand/Skeleton/Thumb"))).is_empty());
    assert_eq!(
        check(&instanced(&connected("Hand/Skeleton/Glove/Stitch"))),
        ["line 11: connection:ready|Hand/Skeleton/Glove/Stitch|.|_on_ready › from: reference to missing object node:Hand/Skeleton/Glove/Stitch"]
    );
}

#[test]
fn a_node_added_after_one_the_other_side_moved_before_the_root_is_not_merged_cleanly() {
    // Theirs' file has A before the root (Godot would read A as the root); ours adds B after
    // A. B followed A there, before the root: a second misplaced node, merged without a word.
    let base = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n\n[node name=\"A\" type=\"Node2D\" parent=\".\"]\n\n\
[node name=\"C\" type=\"Node2D\" parent=\".\"]\n";
    let added = base.replace("[node name=\"C\"", "[node name=\"B\" type=\"Node2D\" parent=\".\"]\n\n[node name=\"C\"");
    let root = "[node name=\"Root\" type=\"Node2D\"]\n\n";
    let a = "[node name=\"A\" type=\"Node2D\" parent=\".\"]\n\n";
    let moved = base.replace(&format!("{root}{a}"), &format!("{a}{root}"));
    for (ours, theirs) in [(&added, &moved), (&moved, &added)] {
        match merge(base, ours, theirs) {
            Ok(out) => {
                let text = String::from_utf8(out.text).unwrap();
                assert!(out.open_conflicts > 0 || text.find("name=\"B\"") > text.find("name=\"Root\""), "{text}");
            }
            Err(e) => assert!(e.to_string().contains("\"B\" comes before the scene's root node"), "{e}"),
        }
    }
}

#[test]
fn a_duplicate_id_does_not_hide_the_other_problems_of_a_scene() {
    // A second sub-resource under id 2 is refused, and the scene read on past it: the node
    // using a resource nobody defines is said too. The check stopped at the duplicate.
    let text = "[gd_scene load_steps=3 format=2]\n\n[sub_resource type=\"BoxShape\" id=2]\n\n[sub_resource type=\"BoxShape\" id=2]\n\n\
[node name=\"Root\" type=\"Spatial\"]\n\n[node name=\"Ball\" type=\"CollisionShape\" parent=\".\"]\nshape = SubResource( 7 )\n";
    let problems: Vec<String> = levelmerge_core::check_text(&GodotCodec, text.as_bytes()).iter().map(|p| p.to_string()).collect();
    assert_eq!(
        problems,
        ["line 5: duplicate id sub:2 (first used on line 3)", "line 9: node:Ball › shape: reference to missing object sub:7"]
    );
}

#[test]
fn the_references_of_a_second_section_under_one_id_are_checked() {
    // Godot reads the refused sub-resource too: a resource it uses that nobody defines is said.
    let text =
        "[gd_scene load_steps=3 format=2]\n\n[sub_resource type=\"BoxShape\" id=2]\n\n[sub_resource type=\"SpatialMaterial\" id=2]\n\
next_pass = SubResource( 8 )\n\n[node name=\"Root\" type=\"Spatial\"]\n";
    let problems: Vec<String> = levelmerge_core::check_text(&GodotCodec, text.as_bytes()).iter().map(|p| p.to_string()).collect();
    assert_eq!(
        problems,
        ["line 5: duplicate id sub:2 (first used on line 3)", "line 5: sub:2 › next_pass: reference to missing object sub:8"]
    );
}

fn found_in(problems: &[String], what: &str) -> usize {
    problems.iter().filter(|p| p.contains(what)).count()
}

#[test]
fn theme_items_both_sides_added_between_the_same_two_are_written_in_godots_order() {
    // Godot writes a theme's items sorted by name; a merge that put ours' first would be
    // re-sorted by the next save (a diff nobody made).
    let base = "[gd_resource type=\"Theme\" format=3]\n\n[resource]\ndefault_font_size = 14\nButton/colors/font_color = Color(1, 1, 1, 1)\nTree/colors/font_color = Color(0, 0, 0, 1)\n";
    let ours = base.replace("Tree/", "Label/colors/font_shadow_color = Color(0, 0, 0, 0.5)\nTree/");
    let ours = ours.replace("Label/colors/font_shadow", "Label/colors/font_outline_color = Color(1, 0, 0, 1)\nLabel/colors/font_shadow");
    let ours = ours.replace("Label/colors/font_outline_color", "Icons/icons/zoom = null\nLabel/colors/font_outline_color");
    let theirs = base.replace("Tree/", "CheckBox/constants/h_separation = 4\nTree/");
    let merged = clean(base, &ours, &theirs);
    let keys: Vec<&str> = merged.lines().filter_map(|l| l.split_once(" = ").map(|(k, _)| k)).collect();
    assert_eq!(
        keys,
        [
            "default_font_size",
            "Button/colors/font_color",
            "CheckBox/constants/h_separation",
            "Icons/icons/zoom",
            "Label/colors/font_outline_color",
            "Label/colors/font_shadow_color",
            "Tree/colors/font_color"
        ]
    );
}

#[test]
fn a_node_added_under_a_parent_the_other_side_renamed_never_doubles_a_name_there() {
    // Ours renames C to X and its child D to X (X/X); theirs adds a node X under C, which
    // follows the rename to X/X: two nodes of one path, which Godot would rename on load.
    let base = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\" unique_id=1]\n\n[node name=\"C\" type=\"Sprite\" parent=\".\" unique_id=4]\n\n[node name=\"D\" type=\"Sprite\" parent=\"C\" unique_id=5]\n";
    let ours = base
        .replace("name=\"C\"", "name=\"X\"")
        .replace("name=\"D\" type=\"Sprite\" parent=\"C\"", "name=\"X\" type=\"Sprite\" parent=\"X\"");
    let theirs = format!("{base}\n[node name=\"X\" type=\"Node2D\" parent=\"C\" unique_id=9]\n");
    match merge(base, &ours, &theirs) {
        Ok(outcome) => assert!(outcome.open_conflicts > 0, "a clean merge with two X/X:\n{}", String::from_utf8_lossy(&outcome.text)),
        Err(e) => assert!(e.to_string().contains("a second node named \"X\""), "{e}"),
    }
}

#[test]
fn an_input_that_cannot_be_read_is_told_by_its_own_ids() {
    // Base holds one sub-resource id twice; both sides renamed the second copy. Aligning ids
    // rewrites base's copy to the sides' new id, but the error names what the file holds.
    let base = "[gd_resource type=\"Theme\" format=3]\n\n[sub_resource type=\"Resource\" id=\"Res_a\"]\nname = \"first\"\n\n[sub_resource type=\"Resource\" id=\"Res_a\"]\nname = \"second\"\n\n[resource]\nitems = [SubResource(\"Res_a\")]\n";
    let fixed = base.replacen("id=\"Res_a\"]\nname = \"second\"", "id=\"Res_b\"]\nname = \"second\"", 1);
    let ours = fixed.replace("items = [SubResource(\"Res_a\")]", "items = [SubResource(\"Res_a\"), SubResource(\"Res_b\")]");
    let theirs = fixed.replace("name = \"first\"", "name = \"First\"");
    let error = merge(base, &ours, &theirs).expect_err("base cannot be read");
    let told = error.to_string();
    assert!(told.starts_with("base: line 6: duplicate id sub:Res_a (first used on line 3)"), "{told}");
}

#[test]
fn a_version_that_uses_one_id_twice_is_the_one_told_when_aligning_carried_the_flaw_into_another() {
    // Theirs gave the second sub-resource the first one's id. Aligning ids rewrites base's and
    // ours' second one to it too, so their aligned texts fail to read: the file to fix is theirs.
    let base = "[gd_resource type=\"Theme\" format=3]\n\n[sub_resource type=\"Resource\" id=\"R_a\"]\nname = \"a\"\n\n[sub_resource type=\"Resource\" id=\"R_b\"]\nname = \"b\"\n\n[resource]\nitems = [SubResource(\"R_a\"), SubResource(\"R_b\")]\n";
    let ours = base.replace("name = \"b\"", "name = \"B\"");
    let theirs = base.replace("id=\"R_b\"", "id=\"R_a\"").replace("SubResource(\"R_b\")", "SubResource(\"R_a\")");
    for (o, t, broken) in [(&ours, &theirs, "theirs"), (&theirs, &ours, "ours")] {
        let told = merge(base, o, t).expect_err("one version cannot be read").to_string();
        assert!(told.starts_with(&format!("{broken}: line 6: duplicate id sub:R_a (first used on line 3)")), "{told}");
    }
}

/// A scene whose `Group` holds `Crate` (with a child of its own): `group_edit` and `crate_edit`
/// are the group's and the crate's properties.
fn grouped(group_edit: &str, crate_edit: &str) -> String {
    format!(
        "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"Group\" type=\"Node3D\" parent=\".\"]\n{group_edit}\n\n[node name=\"Crate\" type=\"RigidBody3D\" parent=\"Group\"]\n{crate_edit}\n\n[node name=\"Shape\" type=\"CollisionShape3D\" parent=\"Group/Crate\"]\n"
    )
}

/// The crate pulled out of the group to the root, and the group deleted.
const CRATE_PULLED_OUT: &str = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"Crate\" type=\"RigidBody3D\" parent=\".\"]\nmass = 2.0\n\n[node name=\"Shape\" type=\"CollisionShape3D\" parent=\"Crate\"]\n";

#[test]
fn a_node_moved_out_of_a_group_its_side_then_deleted_keeps_the_other_sides_edits() {
    let base = grouped("visible = true", "mass = 2.0");
    let heavier = grouped("visible = true", "mass = 5.0");
    for (ours, theirs) in [(&heavier, &CRATE_PULLED_OUT.to_owned()), (&CRATE_PULLED_OUT.to_owned(), &heavier)] {
        let out = clean(&base, ours, theirs);
        assert_eq!(out, CRATE_PULLED_OUT.replace("mass = 2.0", "mass = 5.0"), "the crate moved with its edit, the group gone");
    }
    // An edit of the group itself contests its deletion, but not the move: whichever way the
    // conflict goes, the crate is where the mover put it, once.
    let hidden = grouped("visible = false", "mass = 2.0");
    let r = merge(&base, &hidden, CRATE_PULLED_OUT).expect("merge runs");
    assert_eq!(r.open_conflicts, 1, "{:?}", r.conflicts);
    for side in [Side::Ours, Side::Theirs] {
        let mut options = Options::default();
        options.policy.prefer = Some(side);
        let out = String::from_utf8(merge_with(&base, &hidden, CRATE_PULLED_OUT, &options).expect("merge runs").text).unwrap();
        assert_eq!(out.matches("[node name=\"Crate\"").count(), 1, "{out}");
        assert!(out.contains("[node name=\"Crate\" type=\"RigidBody3D\" parent=\".\"]"), "{out}");
        assert_eq!(out.contains("[node name=\"Group\""), side == Side::Ours, "{out}");
    }
}

/// Theirs connected a signal to the door ours deleted. Godot's editor deletes a node's
/// connections with it, so the connection goes with the door: each side of the conflict, taken
/// whole, is a sound scene, and preferring ours deletes both.
#[test]
fn a_signal_connected_to_a_node_the_other_side_deleted_goes_with_it() {
    let base = "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"Script\" path=\"res://door.gd\" id=\"1_a\"]\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"Button\" type=\"Area3D\" parent=\".\"]\n\n[node name=\"Door\" type=\"Node3D\" parent=\".\"]\nscript = ExtResource(\"1_a\")\n";
    let deleted = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"Button\" type=\"Area3D\" parent=\".\"]\n";
    let connected = format!("{base}\n[connection signal=\"body_entered\" from=\"Button\" to=\"Door\" method=\"open\"]\n");
    for (ours, theirs, deleting) in [(deleted, connected.as_str(), Side::Ours), (connected.as_str(), deleted, Side::Theirs)] {
        let r = merge(base, ours, theirs).expect("merge runs");
        assert_eq!(r.open_conflicts, 1, "{:?}", r.conflicts);
        let regions = levelmerge_core::regions::conflict_regions(&r.text).expect("markers read back");
        // The script's resource, and the door with its connection: the differences of
        // neighbouring sections (the end of Button's, the door, the connection) are one region.
        assert_eq!(regions.len(), 2, "{}", String::from_utf8_lossy(&r.text));
        for (side, text) in sound_views(&r.text) {
            assert_eq!(text.contains("[connection"), side != deleting, "{text}");
            assert_eq!(text.contains("[node name=\"Door\""), side != deleting, "{text}");
        }
        let mut options = Options::default();
        options.policy.prefer = Some(deleting);
        let out = String::from_utf8(merge_with(base, ours, theirs, &options).expect("merge runs").text).unwrap();
        assert_eq!(out, deleted, "the deletion preferred takes the connection along");
    }
}

/// Beside a conflict elsewhere, theirs connected a signal to the door ours deleted: each view of
/// the open merge is checked like a clean result, so the deletion is contested there too, and
/// either side of the file, taken whole, is a sound scene.
#[test]
fn a_deletion_a_view_of_an_open_merge_still_uses_is_contested() {
    let base = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"Button\" type=\"Area3D\" parent=\".\"]\n\n[node name=\"Door\" type=\"Node3D\" parent=\".\"]\n";
    let ours = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"Button\" type=\"Area3D\" parent=\".\"]\nmonitoring = false\n";
    let theirs = base.replace("parent=\".\"]\n\n[node name=\"Door\"", "parent=\".\"]\nmonitoring = true\n\n[node name=\"Door\"")
        + "\n[connection signal=\"body_entered\" from=\"Button\" to=\"Door\" method=\"open\"]\n";
    let r = merge(base, ours, &theirs).expect("merge runs");
    assert_eq!(r.open_conflicts, 2, "the monitoring, and the door: {:?}", r.conflicts);
    sound_views(&r.text);
}

/// Ours added a button under the panel theirs deleted, and connected its signal: the button's
/// connection goes with the button, so the view that deletes the panel is a sound scene.
#[test]
fn a_signal_of_a_node_added_under_a_deleted_one_goes_with_it() {
    let base = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Control\"]\n\n[node name=\"Panel\" type=\"Panel\" parent=\".\"]\n";
    let ours = format!(
        "{base}\n[node name=\"Add\" type=\"Button\" parent=\"Panel\"]\n\n[connection signal=\"pressed\" from=\"Panel/Add\" to=\".\" method=\"add\"]\n"
    );
    let theirs = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Control\"]\n";
    for (o, t) in [(ours.as_str(), theirs), (theirs, ours.as_str())] {
        let r = merge(base, o, t).expect("merge runs");
        assert_eq!(r.open_conflicts, 1, "{:?}", r.conflicts);
        for (_, text) in sound_views(&r.text) {
            assert_eq!(text.contains("[connection"), text.contains("name=\"Add\""), "{text}");
        }
    }
}

/// Ours made the instanced level's children editable and hid its door; theirs removed the level.
/// The `[editable]` names the level: it goes with it, so the view that removes the level keeps
/// no `[editable]` for a node it lacks (the check calls one a dangling reference).
#[test]
fn an_editable_of_an_instance_the_other_side_removed_goes_with_it() {
    let base = "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://level.tscn\" id=\"1_l\"]\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"Level\" parent=\".\" instance=ExtResource(\"1_l\")]\n";
    let ours = format!("{base}\n[node name=\"Door\" parent=\"Level\"]\nvisible = false\n\n[editable path=\"Level\"]\n");
    let theirs = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node3D\"]\n";
    let stale = format!("{theirs}\n[editable path=\"Level\"]\n");
    assert!(
        levelmerge_core::check_text(&GodotCodec, stale.as_bytes())
            .iter()
            .any(|p| matches!(p, levelmerge_core::Problem::DanglingReference { .. })),
        "an [editable] of a node the scene lacks is dangling"
    );
    let r = merge(base, &ours, theirs).expect("merge runs");
    assert_eq!(r.open_conflicts, 1, "{:?}", r.conflicts);
    let regions = levelmerge_core::regions::conflict_regions(&r.text).expect("markers read back");
    let removed = levelmerge_core::regions::side_view(&r.text, &regions, Side::Theirs).expect("theirs' view");
    assert_eq!(String::from_utf8(removed).unwrap(), theirs);
}

/// Ours moves the bubble's backdrop under the audio player, theirs moves its name label to the
/// end of the title's children: each passes the other's old place. Both moves stand, each node
/// where its side put it (after its new parent, last among its siblings), whichever side is ours.
#[test]
fn two_nodes_moved_out_of_one_parent_to_two_others_go_where_their_sides_put_them() {
    let node =
        |name: &str, kind: &str, parent: &str, props: &str| format!("[node name=\"{name}\" type=\"{kind}\" parent=\"{parent}\"]\n{props}");
    let backdrop = |parent: &str| node("Backdrop", "ColorRect", parent, "color = Color( 0, 0, 0, 1 )\n");
    let label = |parent: &str| node("NameLabel", "RichTextLabel", parent, "text = \"Name Here\"\n");
    let scene = |sections: &[&str]| format!("[gd_scene format=2]\n\n[node name=\"Root\" type=\"Control\"]\n\n{}", sections.join("\n"));
    let (bubble, fx, audio) =
        (node("Bubble", "Control", ".", ""), node("FX", "Control", ".", ""), node("Audio", "AudioStreamPlayer", "FX", ""));
    let (info, title) = (node("Info", "PanelContainer", ".", ""), node("Title", "RichTextLabel", "Info", ""));
    let (t1, t2) = (node("T1", "Label", "Info/Title", ""), node("T2", "Label", "Info/Title", ""));
    let (backdrop_in_bubble, backdrop_moved) = (backdrop("Bubble"), backdrop("FX/Audio"));
    let (label_in_bubble, label_moved) = (label("Bubble"), label("Info/Title"));
    let base = scene(&[&bubble, &backdrop_in_bubble, &label_in_bubble, &fx, &audio, &info, &title, &t1, &t2]);
    let ours = scene(&[&bubble, &label_in_bubble, &fx, &audio, &backdrop_moved, &info, &title, &t1, &t2]);
    let theirs = scene(&[&bubble, &backdrop_in_bubble, &fx, &audio, &info, &title, &t1, &t2, &label_moved]);
    let both = scene(&[&bubble, &fx, &audio, &backdrop_moved, &info, &title, &t1, &t2, &label_moved]);
    assert_eq!(clean(&base, &ours, &theirs), both);
    assert_eq!(clean(&base, &theirs, &ours), both);
}

#[test]
fn a_node_moved_under_another_beside_a_clash_of_sibling_order_keeps_its_move() {
    // Ours moves Box under Links/Patreon and puts Twitter before Discord; theirs puts Twitter
    // after Youtube. Where Twitter goes is a clash, settled as ours has it and noted; the move
    // stands whichever side is ours (with theirs as ours, Box was written before its new
    // parent, the merge refused, and the line merge conflicted).
    let node = |name: &str, kind: &str, parent: &str| format!("[node name=\"{name}\" type=\"{kind}\" parent=\"{parent}\"]\n");
    let scene = |sections: &[&str]| format!("[gd_scene format=3]\n\n[node name=\"Root\" type=\"Control\"]\n\n{}", sections.join("\n"));
    let (links, patreon) = (node("Links", "VBoxContainer", "."), node("Patreon", "Button", "Links"));
    let (discord, twitter, youtube) =
        (node("Discord", "Button", "Links"), node("Twitter", "Button", "Links"), node("Youtube", "Button", "Links"));
    let (box_, logo) = (node("Box", "VBoxContainer", "."), node("Logo", "TextureRect", "Box"));
    let (box_moved, logo_moved) = (node("Box", "VBoxContainer", "Links/Patreon"), node("Logo", "TextureRect", "Links/Patreon/Box"));
    let base = scene(&[&box_, &logo, &links, &patreon, &discord, &twitter, &youtube]);
    let ours = scene(&[&links, &patreon, &box_moved, &logo_moved, &twitter, &discord, &youtube]);
    let theirs = scene(&[&box_, &logo, &links, &patreon, &discord, &youtube, &twitter]);
    for (ours, theirs, buttons) in [(&ours, &theirs, [&twitter, &discord, &youtube]), (&theirs, &ours, [&discord, &youtube, &twitter])] {
        let out = merge(&base, ours, theirs).expect("merged");
        assert_eq!(out.open_conflicts, 0);
        let [a, b, c] = buttons;
        assert_eq!(String::from_utf8(out.text).unwrap(), scene(&[&links, &patreon, &box_moved, &logo_moved, a, b, c]));
        assert!(out.notes.iter().any(|n| n.contains("Links") && n.contains("reordered its children")), "{:?}", out.notes);
    }
}

#[test]
fn a_duplicate_an_input_had_is_no_new_problem_where_lines_moved() {
    // Theirs holds two nodes of one unique_id (a broken input); ours adds a line above them.
    // The merge keeps theirs' problem as it was and makes none: clean. Problems were told apart
    // by their lines too, so the moved duplicate read as new and the merge was refused.
    let scene = |root_props: &str, extra: &str| {
        format!(
            "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\" unique_id=1]\n{root_props}\n[node name=\"A\" type=\"Node2D\" parent=\".\" unique_id=2]\n{extra}"
        )
    };
    let copy = "\n[node name=\"A2\" type=\"Node2D\" parent=\".\" unique_id=2]\n";
    let base = scene("", "");
    let ours = scene("visible = false\n", "");
    let theirs = scene("", copy);
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let out = merge(&base, o, t).expect("merged");
        assert_eq!(out.open_conflicts, 0);
        assert_eq!(String::from_utf8(out.text).unwrap(), scene("visible = false\n", copy));
    }
}

/// Theirs gives A the sphere mesh ours deleted (with B, its only user): the sphere's deletion is
/// contested, and A's mesh stands or goes with it, so that each side of the marked file is a
/// sound scene. Ours' view kept theirs' `SubResource("SphereMesh_1")` beside the deletion.
#[test]
fn a_reference_one_side_set_to_a_resource_the_other_deleted_goes_with_it() {
    let base = "[gd_scene load_steps=3 format=3]\n\n[sub_resource type=\"BoxMesh\" id=\"BoxMesh_1\"]\nsize = Vector3(2, 2, 2)\n\n[sub_resource type=\"SphereMesh\" id=\"SphereMesh_1\"]\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"A\" type=\"MeshInstance3D\" parent=\".\"]\nmesh = SubResource(\"BoxMesh_1\")\n\n[node name=\"B\" type=\"MeshInstance3D\" parent=\".\"]\nmesh = SubResource(\"SphereMesh_1\")\n";
    let deleted = "[gd_scene load_steps=2 format=3]\n\n[sub_resource type=\"BoxMesh\" id=\"BoxMesh_1\"]\nsize = Vector3(2, 2, 2)\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"A\" type=\"MeshInstance3D\" parent=\".\"]\nmesh = SubResource(\"BoxMesh_1\")\n";
    let pointed = base.replace("\nmesh = SubResource(\"BoxMesh_1\")", "\nmesh = SubResource(\"SphereMesh_1\")");
    for (ours, theirs, deleting) in [(deleted, pointed.as_str(), Side::Ours), (pointed.as_str(), deleted, Side::Theirs)] {
        let r = merge(base, ours, theirs).expect("merge runs");
        assert_eq!(r.open_conflicts, 1, "{:?}", r.conflicts);
        for (side, text) in sound_views(&r.text) {
            let a_mesh = if side == deleting { "BoxMesh_1" } else { "SphereMesh_1" };
            assert!(
                text.contains(&format!("[node name=\"A\" type=\"MeshInstance3D\" parent=\".\"]\nmesh = SubResource(\"{a_mesh}\")")),
                "{text}"
            );
        }
    }
}

#[test]
fn a_connection_added_at_the_end_goes_after_a_node_the_other_side_moved_to_the_end() {
    // Ours moves Label after Foo; theirs connects Label's signal. Both land after Foo: the
    // connection must still come after every node, where Godot reads it.
    let base = "[gd_scene format=3 uid=\"uid://abc\"]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n[node name=\"Label\" parent=\".\" type=\"Node2D\"]\n\n[node name=\"Foo\" parent=\".\" type=\"Sprite2D\"]\n";
    let ours = "[gd_scene format=3 uid=\"uid://abc\"]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n[node name=\"Foo\" parent=\".\" type=\"Sprite2D\"]\n\n[node name=\"Label\" parent=\".\" type=\"Node2D\"]\n";
    let connection = "[connection signal=\"ready\" from=\"Label\" to=\".\" method=\"_on_label_ready\"]\n";
    let theirs = format!("{base}\n{connection}");
    let want = format!("{ours}\n{connection}");
    for (o, t) in [(ours, theirs.as_str()), (theirs.as_str(), ours)] {
        let merged = merge(base, o, t).expect("a sound merge");
        assert_eq!(merged.open_conflicts, 0);
        assert_eq!(String::from_utf8(merged.text).unwrap(), want);
    }
}

/// A scene whose `Door` is an instanced scene, holding `Hinge`, a node this file makes, and
/// `extra` after the nodes.
fn door_scene(hinge: bool, extra: &str) -> String {
    let hinge = if hinge { "[node name=\"Hinge\" type=\"Node2D\" parent=\"Door\"]\n\n" } else { "" };
    format!(
        "[gd_scene load_steps=2 format=2]\n\n[ext_resource path=\"res://door.tscn\" type=\"PackedScene\" id=1]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n[node name=\"Door\" parent=\".\" instance=ExtResource( 1 )]\n\n{hinge}{extra}"
    )
}

#[test]
fn a_signal_one_side_connects_from_a_node_made_under_an_instance_goes_with_that_node() {
    // Theirs connects a signal from Door/Hinge, a node the file makes under the instanced
    // Door; ours deletes Hinge. A path under an instanced scene may name one of its nodes, so
    // the scene check cannot tell the connection names nothing: the merge was clean, with it.
    // The connection uses the node theirs makes, so the deletion is a conflict, and ours' view
    // drops the connection with the node.
    let connection = "[connection signal=\"opened\" from=\"Door/Hinge\" to=\".\" method=\"_on_opened\"]\n";
    let base = door_scene(true, "");
    let theirs = door_scene(true, connection);
    let ours = door_scene(false, "");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t).expect("merge runs");
        let kinds: Vec<&str> = r.conflicts.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, ["delete-modify"], "{}", String::from_utf8_lossy(&r.text));
        for (_, view) in sound_views(&r.text) {
            assert_eq!(view.contains("[connection"), view.contains("name=\"Hinge\""), "{view}");
        }
    }
}

#[test]
fn a_signal_or_a_node_under_a_node_under_an_instance_the_other_side_deleted_apart_is_a_conflict() {
    // As above, with a node between the deleted one and the new connection: each side
    // changed other sections, which are spliced apart. The spliced file, read alone, cannot
    // tell the connection names nothing (Door's scene may hold a Hinge); base makes Hinge
    // under Door, so it does not, and the merge is not clean. A node added under Hinge
    // likewise: its parent, read alone, may be a node of Door's scene.
    let scene = |hinge: bool, connection: &str| {
        let hinge = if hinge { "[node name=\"Hinge\" parent=\"Door\" type=\"Node2D\"]\n\n" } else { "" };
        format!(
            "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"PackedScene\" path=\"res://door.tscn\" id=\"1\"]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n[node name=\"Door\" parent=\".\" instance=ExtResource(\"1\")]\n\n{hinge}[node name=\"Frame\" parent=\".\" type=\"Node2D\"]\n{connection}"
        )
    };
    let connection = "\n[connection signal=\"ready\" from=\"Door/Hinge\" to=\".\" method=\"_on_hinge_ready\"]\n";
    let child = "\n[node name=\"Pin\" parent=\"Door/Hinge\" type=\"Node2D\"]\n";
    let base = scene(true, "");
    let theirs = scene(false, "");
    for (user, added) in [(connection, "[connection"), (child, "name=\"Pin\"")] {
        let ours = scene(true, user);
        for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
            let r = merge(&base, o, t).expect("merge runs");
            let kinds: Vec<&str> = r.conflicts.iter().map(|c| c.kind).collect();
            assert_eq!(kinds, ["delete-modify"], "{}", String::from_utf8_lossy(&r.text));
            for (_, view) in sound_views(&r.text) {
                assert_eq!(view.contains(added), view.contains("name=\"Hinge\""), "{view}");
            }
        }
    }
    // A connection to a node of Door's own scene, which no version makes, stays clean.
    let own = connection.replace("Door/Hinge", "Door/Knob");
    let merged = clean(&base, &scene(true, &own), &theirs);
    assert!(merged.contains("from=\"Door/Knob\"") && !merged.contains("Hinge"), "{merged}");
}

/// Wall2 › Timer3 › Sprite2 and Wall2 › Enemy1 › Sprite2. Theirs moves Enemy1 (its Sprite2
/// with it) to the top and renames Timer3's Sprite2; ours edits Timer3's Sprite2. Enemy1's
/// Sprite2 came along with its parent: it is no match for the gone node of its name, whose
/// edit landed on it in a clean merge. Timer3's Sprite2, holding nothing to match its rename
/// by, reads as deleted by theirs against ours' edit: a conflict.
#[test]
fn a_child_that_came_along_with_its_moved_parent_is_not_read_as_another_gone_node_moved() {
    let scene = |timer_child: &str, timer_child_props: &str, enemy_parent: &str| {
        let enemy_child_parent = if enemy_parent == "." { "Enemy1".to_owned() } else { format!("{enemy_parent}/Enemy1") };
        format!(
            "[gd_scene format=3 uid=\"uid://b1\"]\n\n[node name=\"Main\" type=\"Node2D\"]\n\n[node name=\"Wall2\" parent=\".\" type=\"Node2D\"]\n\n\
             [node name=\"Timer3\" parent=\"Wall2\" type=\"Label\"]\ntext = \"a\"\n\n\
             [node name=\"{timer_child}\" parent=\"Wall2/Timer3\" type=\"Node2D\"]\n{timer_child_props}\n\
             [node name=\"Enemy1\" parent=\"{enemy_parent}\" type=\"Label\"]\ntext = \"b\"\n\n\
             [node name=\"Sprite2\" parent=\"{enemy_child_parent}\" type=\"Node2D\"]\n"
        )
    };
    let base = scene("Sprite2", "", "Wall2");
    let ours = scene("Sprite2", "visible = false\n", "Wall2");
    let theirs = scene("Sprite2T", "", ".");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t).expect("the merge runs");
        assert_eq!(r.open_conflicts, 1, "{}", String::from_utf8_lossy(&r.text));
        for (side, view) in sound_views(&r.text) {
            let enemy_sprite = view.split("parent=\"Enemy1\" type=\"Node2D\"]").nth(1).unwrap_or_else(|| panic!("{side}'s view:\n{view}"));
            assert!(!enemy_sprite.contains("visible"), "{side}'s view:\n{view}");
        }
    }
}
