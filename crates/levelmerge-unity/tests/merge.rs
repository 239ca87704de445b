//! Unity merges on small scenes written for these tests.

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{check_text, merge_texts, MergeOutcome, Options, Side, Sides};
use levelmerge_unity::UnityCodec;

const HEADER: &str = "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n";

fn go(id: i64, name: &str, transform: i64) -> String {
    format!("--- !u!1 &{id}\nGameObject:\n  m_ObjectHideFlags: 0\n  serializedVersion: 6\n  m_Component:\n  - component: {{fileID: {transform}}}\n  m_Layer: 0\n  m_Name: {name}\n  m_IsActive: 1\n")
}

fn tr(id: i64, go: i64, father: i64, children: &[i64], x: &str) -> String {
    let kids = if children.is_empty() {
        " []\n".to_owned()
    } else {
        let mut s = "\n".to_owned();
        for c in children {
            s.push_str(&format!("  - {{fileID: {c}}}\n"));
        }
        s
    };
    format!("--- !u!4 &{id}\nTransform:\n  m_ObjectHideFlags: 0\n  m_GameObject: {{fileID: {go}}}\n  m_LocalPosition: {{x: {x}, y: 0, z: 0}}\n  m_LocalScale: {{x: 1, y: 1, z: 1}}\n  m_Children:{kids}  m_Father: {{fileID: {father}}}\n")
}

fn scene(parts: &[String]) -> String {
    let mut s = HEADER.to_owned();
    for p in parts {
        s.push_str(p);
    }
    s
}

/// The SceneRoots document of Unity 2022.2+ listing `ids` (`m_Roots: []` for none).
fn scene_roots(ids: &[i64]) -> String {
    let listed: String = ids.iter().map(|id| format!("\n  - {{fileID: {id}}}")).collect();
    let listed = if listed.is_empty() { " []".to_owned() } else { listed };
    format!("--- !u!1660057539 &9223372036854775807\nSceneRoots:\n  m_ObjectHideFlags: 0\n  m_Roots:{listed}\n")
}

fn merge(b: &str, o: &str, t: &str) -> MergeOutcome {
    merge_texts(&UnityCodec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &MarkerStyle::default())
        .expect("merge runs")
}

/// Ours' and theirs' views of the conflicts left in `r`, each asserted sound.
fn sound_views(r: &MergeOutcome) -> [(Side, String); 2] {
    let regions = levelmerge_core::regions::conflict_regions(&r.text).expect("markers read back");
    [Side::Ours, Side::Theirs].map(|side| {
        let view = String::from_utf8(levelmerge_core::regions::side_view(&r.text, &regions, side).expect("a side's view")).unwrap();
        assert!(check_text(&UnityCodec, view.as_bytes()).is_empty(), "{side}'s view:\n{view}");
        (side, view)
    })
}

fn text(r: &MergeOutcome) -> String {
    String::from_utf8(r.text.clone()).unwrap()
}

#[test]
fn both_sides_add_children_to_one_parent() {
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let ours = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[21], "0"), go(20, "Lamp", 21), tr(21, 20, 11, &[], "1")]);
    let theirs = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[31], "0"), go(30, "Door", 31), tr(31, 30, 11, &[], "2")]);
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    let expected = scene(&[
        go(10, "Root", 11),
        tr(11, 10, 0, &[21, 31], "0"),
        go(20, "Lamp", 21),
        tr(21, 20, 11, &[], "1"),
        go(30, "Door", 31),
        tr(31, 30, 11, &[], "2"),
    ]);
    assert_eq!(text(&r), expected);
    assert!(check_text(&UnityCodec, &r.text).is_empty());
}

#[test]
fn edits_to_different_fields_of_one_flow_map_combine() {
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let ours = base.replace("m_LocalPosition: {x: 0, y: 0, z: 0}", "m_LocalPosition: {x: 5, y: 0, z: 0}");
    let theirs = base
        .replace("m_LocalPosition: {x: 0, y: 0, z: 0}", "m_LocalPosition: {x: 0, y: 0, z: -2.5}")
        .replace("m_Name: Root", "m_Name: World");
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0);
    assert_eq!(text(&r), base.replace("{x: 0, y: 0, z: 0}", "{x: 5, y: 0, z: -2.5}").replace("m_Name: Root", "m_Name: World"));
}

#[test]
fn same_field_changed_differently_conflicts_on_that_line() {
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let r = merge(&base, &base.replace("m_Name: Root", "m_Name: A"), &base.replace("m_Name: Root", "m_Name: B"));
    assert_eq!(r.open_conflicts, 1);
    assert_eq!(r.conflicts[0].path, "GameObject.m_Name");
    assert!(text(&r).contains("<<<<<<< ours\n  m_Name: A\n=======\n  m_Name: B\n>>>>>>> theirs\n"), "{}", text(&r));
}

#[test]
fn deleting_a_game_object_whose_component_the_other_side_edits_conflicts() {
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[21], "0"), go(20, "Lamp", 21), tr(21, 20, 11, &[], "1")]);
    let ours = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let theirs = base.replace("m_LocalPosition: {x: 1, y: 0, z: 0}", "m_LocalPosition: {x: 9, y: 0, z: 0}");
    let r = merge(&base, &ours, &theirs);
    assert!(r.open_conflicts >= 1, "{}", text(&r));
    assert!(r.conflicts.iter().any(|c| c.kind == "delete-modify" && c.object == "21"), "{:?}", r.conflicts);
}

/// Theirs points a script at the lamp ours deleted: the deletion is contested, and the
/// script's target stands or goes with the lamp, so that each side of the marked file, and
/// either side preferred, is a sound scene (ours' view held the target to the missing lamp).
#[test]
fn a_reference_one_side_set_to_an_object_the_other_deleted_goes_with_it() {
    let script = |target: i64| format!("--- !u!114 &12\nMonoBehaviour:\n  m_GameObject: {{fileID: 10}}\n  target: {{fileID: {target}}}\n");
    let root = go(10, "Root", 11).replace("  - component: {fileID: 11}\n", "  - component: {fileID: 11}\n  - component: {fileID: 12}\n");
    let lamp = [go(20, "Lamp", 21), tr(21, 20, 11, &[], "1")];
    let base = scene(&[root.clone(), tr(11, 10, 0, &[21], "0"), script(0), lamp[0].clone(), lamp[1].clone()]);
    let deleted = scene(&[root.clone(), tr(11, 10, 0, &[], "0"), script(0)]);
    let pointed = scene(&[root.clone(), tr(11, 10, 0, &[21], "0"), script(21), lamp[0].clone(), lamp[1].clone()]);
    for (ours, theirs, deleting) in [(&deleted, &pointed, Side::Ours), (&pointed, &deleted, Side::Theirs)] {
        let r = merge(&base, ours, theirs);
        assert_eq!(r.open_conflicts, 1, "{}", text(&r));
        for (side, view) in sound_views(&r) {
            assert_eq!(view, if side == deleting { &deleted } else { &pointed }.as_str(), "{side}'s view");
        }
        for prefer in [Side::Ours, Side::Theirs] {
            let mut options = Options::default();
            options.policy.prefer = Some(prefer);
            let r = merge_texts(
                &UnityCodec,
                Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes()),
                &options,
                &MarkerStyle::default(),
            )
            .expect("merge runs");
            assert_eq!(text(&r), *if prefer == deleting { &deleted } else { &pointed }, "{prefer} preferred");
        }
    }
}

/// Ours moves Cube's child C to the top level and Wall's child Door under Cube; theirs deletes
/// Wall with Door. Wall's deletion is a conflict. Cube's `m_Children`, which ours alone
/// changed (C out, Door in), stood whole with Door, base's list where Door goes: theirs' view
/// listed C under Cube while C hung at the top level, and `resolve --take theirs` refused it.
/// The list is merged entry by entry: Door's entry goes with Door, C's stays out.
#[test]
fn a_child_list_whose_new_entry_names_a_deleted_object_keeps_the_other_changes_in_each_view() {
    let base = scene(&[
        go(10, "Cube", 11),
        tr(11, 10, 0, &[21], "0"),
        go(20, "C", 21),
        tr(21, 20, 11, &[], "1"),
        go(30, "Wall", 31),
        tr(31, 30, 0, &[41], "2"),
        go(40, "Door", 41),
        tr(41, 40, 31, &[], "3"),
    ]);
    let ours = scene(&[
        go(10, "Cube", 11),
        tr(11, 10, 0, &[41], "0"),
        go(20, "C", 21),
        tr(21, 20, 0, &[], "1"),
        go(30, "Wall", 31),
        tr(31, 30, 0, &[], "2"),
        go(40, "Door", 41),
        tr(41, 40, 11, &[], "3"),
    ]);
    let theirs = scene(&[go(10, "Cube", 11), tr(11, 10, 0, &[21], "0"), go(20, "C", 21), tr(21, 20, 11, &[], "1")]);
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t);
        assert!(r.open_conflicts > 0, "{}", text(&r));
        for (side, view) in sound_views(&r) {
            assert!(view.contains(&tr(21, 20, 0, &[], "1")), "C stays at the top level in {side}'s view:\n{view}");
        }
    }
}

#[test]
fn deleting_an_untouched_subtree_is_clean_and_consistent() {
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[21], "0"), go(20, "Lamp", 21), tr(21, 20, 11, &[], "1")]);
    let ours = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let theirs = base.replace("m_Name: Root", "m_Name: World");
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0);
    assert_eq!(text(&r), ours.replace("m_Name: Root", "m_Name: World"));
    assert!(check_text(&UnityCodec, &r.text).is_empty());
}

#[test]
fn different_objects_added_under_one_file_id_are_both_kept() {
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let ours = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), go(50, "A", 51), tr(51, 50, 0, &[], "0")]);
    let theirs = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), go(50, "B", 51), tr(51, 50, 0, &[], "0")]);
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    // Theirs' game object and its transform got the first free ids, references rewritten.
    let expected = scene(&[
        go(10, "Root", 11),
        tr(11, 10, 0, &[], "0"),
        go(50, "A", 51),
        tr(51, 50, 0, &[], "0"),
        go(52, "B", 53),
        tr(53, 52, 0, &[], "0"),
    ]);
    assert_eq!(text(&r), expected);
    assert_eq!(
        r.notes,
        ["both sides added different objects under 2 id(s); theirs' are renumbered: GameObject &50 → &52, Transform &51 → &53"]
    );
    assert!(check_text(&UnityCodec, &r.text).is_empty());
}

/// A game object `go(10)` listing its transform and the given components.
fn go_with(components: &[i64]) -> String {
    let listed: String = components.iter().map(|c| format!("  - component: {{fileID: {c}}}\n")).collect();
    go(10, "Ship", 11).replace("  - component: {fileID: 11}\n", &format!("  - component: {{fileID: 11}}\n{listed}"))
}

fn listener(id: i64, enabled: u8) -> String {
    format!("--- !u!81 &{id}\nAudioListener:\n  m_ObjectHideFlags: 0\n  m_GameObject: {{fileID: 10}}\n  m_Enabled: {enabled}\n")
}

#[test]
fn one_component_both_sides_added_to_a_game_object_under_two_ids_is_kept_once() {
    let base = scene(&[go_with(&[]), tr(11, 10, 0, &[], "0")]);
    let ours = scene(&[go_with(&[70]), tr(11, 10, 0, &[], "0"), listener(70, 0)]);
    let theirs = scene(&[go_with(&[90]), tr(11, 10, 0, &[], "0"), listener(90, 0)]);
    for (o, t, kept, other) in [(&ours, &theirs, 70, 90), (&theirs, &ours, 90, 70)] {
        let r = merge(&base, o, t);
        assert_eq!(r.open_conflicts, 0, "{}", text(&r));
        assert_eq!(text(&r), *o, "ours' listener, once");
        assert_eq!(
            r.notes,
            [format!(
                "both sides added the same AudioListener to game object Ship &10 (ours &{kept}, theirs &{other}): kept once, as &{kept}"
            )]
        );
        assert!(check_text(&UnityCodec, &r.text).is_empty());
    }
    // Listeners that differ in a setting are two components: which was meant is not guessed.
    let r = merge(&base, &ours, &scene(&[go_with(&[90]), tr(11, 10, 0, &[], "0"), listener(90, 1)]));
    assert_eq!(r.open_conflicts, 0);
    assert_eq!(text(&r), scene(&[go_with(&[70, 90]), tr(11, 10, 0, &[], "0"), listener(70, 0), listener(90, 1)]));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
}

#[test]
fn one_addition_reaching_both_sides_with_a_game_object_renamed_is_not_duplicated() {
    // Both sides hold the same new subtree (a panel and its button, under the same fileIDs);
    // theirs renamed the button. One button, its name a conflict: not two panels' worth.
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let side = |button: &str| {
        scene(&[
            go(10, "Root", 11),
            tr(11, 10, 0, &[71], "0"),
            go(70, "Panel", 71),
            tr(71, 70, 11, &[81], "0"),
            go(80, button, 81),
            tr(81, 80, 71, &[], "2"),
        ])
    };
    let (ours, theirs) = (side("Button"), side("Button (1)"));
    let r = merge(&base, &ours, &theirs);
    assert!(r.notes.is_empty(), "nothing renumbered: {:?}", r.notes);
    assert_eq!(r.open_conflicts, 1, "{}", text(&r));
    assert!(r.conflicts.iter().any(|c| c.object == "80" && c.path.ends_with("m_Name")), "{:?}", r.conflicts);
    assert_eq!(text(&r).matches("--- !u!1 &").count(), 3, "{}", text(&r));
}

#[test]
fn a_field_renamed_on_one_side_keeps_its_new_name_beside_the_other_sides_removal() {
    let base = format!("{HEADER}--- !u!114 &1\nMonoBehaviour:\n  m_Name: A\n  speed: 1\n  range: 2\n  power: 3\n");
    let removed = base.replace("  range: 2\n", "");
    let renamed = base.replace("  power: 3", "  m_Power: 3");
    for (ours, theirs) in [(&removed, &renamed), (&renamed, &removed)] {
        let r = merge(&base, ours, theirs);
        assert_eq!(
            (text(&r), r.open_conflicts),
            (format!("{HEADER}--- !u!114 &1\nMonoBehaviour:\n  m_Name: A\n  speed: 1\n  m_Power: 3\n"), 0)
        );
    }
}

#[test]
fn files_with_a_byte_order_mark_are_read_and_merged_without_it() {
    let mark = |t: &str| format!("\u{feff}{t}");
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let (ours, theirs) = (base.replace("Root", "World"), base.replace("{x: 0,", "{x: 5,"));
    assert!(check_text(&UnityCodec, mark(&base).as_bytes()).is_empty());
    let r = merge(&mark(&base), &mark(&ours), &mark(&theirs));
    assert_eq!((text(&r), r.open_conflicts), (mark(&ours.replace("{x: 0,", "{x: 5,")), 0));
}

#[test]
fn a_file_without_a_final_line_end_keeps_none() {
    let doc = |id: u32, name: &str, value: u32| format!("--- !u!114 &{id}\nMonoBehaviour:\n  m_Name: {name}\n  value: {value}\n");
    let file = |docs: &[String]| format!("{HEADER}{}", docs.concat()).trim_end().to_owned();
    let base = file(&[doc(1, "A", 0), doc(2, "B", 0), doc(3, "C", 0)]);
    // Ours removed the last document: the one before it ends ours' file, without a line end;
    // theirs edited that one, where it had a line end.
    let ours = file(&[doc(1, "Renamed", 0), doc(2, "B", 0)]);
    let theirs = file(&[doc(1, "A", 5), doc(2, "B", 7), doc(3, "C", 0)]);
    let r = merge(&base, &ours, &theirs);
    assert_eq!((text(&r), r.open_conflicts), (file(&[doc(1, "Renamed", 5), doc(2, "B", 7)]), 0));
}

#[test]
fn the_same_object_added_on_both_sides_with_different_fields_conflicts() {
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let ours = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), go(50, "A", 51), tr(51, 50, 0, &[], "1")]);
    let theirs = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), go(50, "A", 51), tr(51, 50, 0, &[], "2")]);
    let r = merge(&base, &ours, &theirs);
    assert!(r.open_conflicts >= 1);
}

#[test]
fn crlf_and_missing_final_newline_survive() {
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]).replace('\n', "\r\n");
    let base = base.trim_end_matches("\r\n").to_owned();
    let ours = base.replace("m_Name: Root", "m_Name: A");
    let theirs = base.replace("{x: 0, y: 0, z: 0}", "{x: 3, y: 0, z: 0}");
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0);
    assert_eq!(text(&r), base.replace("m_Name: Root", "m_Name: A").replace("{x: 0, y: 0, z: 0}", "{x: 3, y: 0, z: 0}"));
}

#[test]
fn check_finds_father_and_children_that_disagree() {
    let broken = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), go(20, "Lamp", 21), tr(21, 20, 11, &[], "1")]);
    let problems = check_text(&UnityCodec, broken.as_bytes());
    assert!(problems.iter().any(|p| p.code() == "inconsistent"), "{problems:?}");
    let dangling = scene(&[go(10, "Root", 99)]);
    assert!(check_text(&UnityCodec, dangling.as_bytes()).iter().any(|p| p.code() == "dangling-reference"));
}

#[test]
fn check_finds_a_file_without_objects() {
    for empty in ["", "\n", HEADER] {
        let problems = check_text(&UnityCodec, empty.as_bytes());
        assert_eq!(problems.len(), 1, "{empty:?}: {problems:?}");
        assert!(problems[0].to_string().contains("no objects"), "{problems:?}");
    }
    // A header-less mapping (`.meta`-like) is one object.
    assert!(check_text(&UnityCodec, b"fileFormatVersion: 2\nguid: 0123456789abcdef0123456789abcdef\n").is_empty());
    // Both sides adding one scene to an empty base merge as before, and what ours emptied
    // stays a problem ours made, not the merge.
    let one = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let r = merge("", &one, &one);
    assert_eq!((r.open_conflicts, text(&r)), (0, one.clone()));
    let r = merge(&one, HEADER, &one);
    assert_eq!((r.open_conflicts, text(&r)), (0, HEADER.to_owned()));
}

#[test]
fn check_finds_a_document_holding_two_objects_and_the_merge_refuses_to_write_one() {
    let one = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let twice = one.replace("Transform:\n", "Transform:\n  m_ObjectHideFlags: 1\nRectTransform:\n");
    let problems = check_text(&UnityCodec, twice.as_bytes());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].to_string().contains("a second object `RectTransform` in the document of `Transform`"), "{}", problems[0]);
    assert_eq!(problems[0].line(), Some(15));
    // A header-less mapping holds many keys.
    assert!(check_text(&UnityCodec, b"fileFormatVersion: 2\nguid: 0123456789abcdef0123456789abcdef\n").is_empty());
    // Both sides renaming the class each its own way would write both keys: refused.
    let renamed = |class: &str| one.replace("Transform:\n", &format!("{class}:\n"));
    let r = merge_texts(
        &UnityCodec,
        Sides::new(one.as_bytes(), renamed("Transform2").as_bytes(), renamed("Transform3").as_bytes()),
        &Options::default(),
        &MarkerStyle::default(),
    );
    let error = r.map(|m| text(&m)).expect_err("refused");
    assert!(error.to_string().contains("a second object"), "{error}");
}

#[test]
fn a_plain_value_written_into_a_flow_map_is_quoted_where_it_holds_a_bracket() {
    let with = |item: &str| {
        scene(&[
            go(10, "Root", 11),
            tr(11, 10, 0, &[], "0"),
            format!("--- !u!114 &12\nMonoBehaviour:\n  m_GameObject: {{fileID: 0}}\n  m_List:\n{item}"),
        ])
    };
    let base = with("  - {a: 1, b: 2}\n");
    let ours = with("  - {a: 5, b: 2}\n");
    let theirs = with("  - a: 1\n    b: 2}\n");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t);
        assert_eq!(r.open_conflicts, 0, "{}", text(&r));
        assert!(check_text(&UnityCodec, &r.text).is_empty(), "{}", text(&r));
    }
    assert_eq!(text(&merge(&base, &ours, &theirs)), with("  - {a: 5, b: '2}'}\n"));
}

#[test]
fn a_header_less_mapping_against_documents_is_refused_whichever_side_holds_it() {
    let one = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let edited = one.replace("m_Name: Root", "m_Name: Stage");
    let meta = "fileFormatVersion: 2\nguid: 0123456789abcdef0123456789abcdef\n";
    let refused = |b: &str, o: &str, t: &str| {
        let r =
            merge_texts(&UnityCodec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &MarkerStyle::default());
        match r {
            Err(e) => e.to_string(),
            Ok(m) => panic!("merged ({} open): {}", m.open_conflicts, text(&m)),
        }
    };
    for error in [refused(&one, meta, &edited), refused(&one, &edited, meta), refused(meta, &one, &edited)] {
        assert!(error.contains("a mapping without a header") && error.contains("line 1"), "{error}");
    }
    // The mapping after blank lines is named where it starts.
    assert!(refused(&one, &format!("\n\n{meta}"), &one).contains("line 3"));
    // Header-less mappings merge among themselves, and directives alone are no mapping.
    let r = merge(meta, &meta.replace("2\n", "3\n"), meta);
    assert_eq!((r.open_conflicts, text(&r)), (0, meta.replace("2\n", "3\n")));
    let r = merge(&one, HEADER, &one);
    assert_eq!((r.open_conflicts, text(&r)), (0, HEADER.to_owned()));
}

#[test]
fn the_same_object_added_on_both_sides_merges_member_by_member() {
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let with = |extra: &str, layer: &str| {
        let lamp = go(20, "Lamp", 21).replace("  m_Layer: 0\n", &format!("  m_Layer: {layer}\n{extra}"));
        scene(&[go(10, "Root", 11), tr(11, 10, 0, &[21], "0"), lamp, tr(21, 20, 11, &[], "0")])
    };
    // Both brought the same Lamp (one name, one fileID), each with a member the other lacks.
    let r = merge(&base, &with("  m_TagString: Lamp\n", "0"), &with("  m_StaticEditorFlags: 4\n", "0"));
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    assert_eq!(text(&r), with("  m_TagString: Lamp\n  m_StaticEditorFlags: 4\n", "0"));
    // A member the two hold differently is a conflict on that member, not on the whole object.
    let r = merge(&base, &with("", "5"), &with("", "7"));
    assert_eq!(r.open_conflicts, 1);
    assert_eq!(r.conflicts[0].path, "GameObject.m_Layer");
}

#[test]
fn check_finds_transforms_and_fathers_that_disagree() {
    let has = |text: &str, message: &str| {
        let problems = check_text(&UnityCodec, text.as_bytes());
        problems.iter().any(|p| p.to_string().contains(message))
    };
    let sound = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[21], "0"), go(20, "Lamp", 21), tr(21, 20, 11, &[], "1")]);
    assert!(check_text(&UnityCodec, sound.as_bytes()).is_empty());
    // A child whose father does not list it.
    let unlisted = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), go(20, "Lamp", 21), tr(21, 20, 11, &[], "1")]);
    assert!(has(&unlisted, "m_Father is 11, which does not list it in m_Children"));
    // A child listed twice.
    let twice = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[21, 21], "0"), go(20, "Lamp", 21), tr(21, 20, 11, &[], "1")]);
    assert!(has(&twice, "lists child 21 twice"));
    // A child that names another father.
    let other = scene(&[
        go(10, "Root", 11),
        tr(11, 10, 0, &[21], "0"),
        go(20, "Lamp", 21),
        tr(21, 20, 31, &[], "1"),
        go(30, "Door", 31),
        tr(31, 30, 0, &[21], "2"),
    ]);
    assert!(has(&other, "lists child 21, whose m_Father is another object"));
    assert!(!has(&other, "does not list it in m_Children"), "31 lists it");
}

#[test]
fn a_parent_with_hundreds_of_children_merges_both_sides_changes() {
    // More children than members are scanned for: the merge finds them through an index.
    let kids: Vec<i64> = (0..300).map(|i| 1_001 + 2 * i).collect();
    let version = |listed: &[i64]| {
        let mut parts = vec![go(10, "Root", 11), tr(11, 10, 0, listed, "0")];
        for &k in listed {
            parts.push(go(k - 1, &format!("Kid{k}"), k));
            parts.push(tr(k, k - 1, 11, &[], "1"));
        }
        scene(&parts)
    };
    let base = version(&kids);
    // Ours adds a child at the end; theirs deletes the 100th and moves the 200th first.
    let mut ours_kids = kids.clone();
    ours_kids.push(9_001);
    let ours = version(&ours_kids);
    let mut theirs_kids: Vec<i64> = kids.iter().copied().filter(|&k| k != kids[99]).collect();
    let moved = theirs_kids.remove(198);
    theirs_kids.insert(0, moved);
    let theirs = version(&theirs_kids);
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    let mut expected_kids = theirs_kids.clone();
    expected_kids.push(9_001);
    let root = tr(11, 10, 0, &expected_kids, "0");
    assert!(text(&r).contains(&root), "{}", text(&r));
    assert!(!text(&r).contains(&format!("&{}\n", kids[99])), "the deleted child's transform is gone");
    assert!(check_text(&UnityCodec, &r.text).is_empty());
}

#[test]
fn check_finds_components_and_game_objects_that_disagree() {
    let light =
        |id: i64, go: i64| format!("--- !u!108 &{id}\nLight:\n  m_ObjectHideFlags: 0\n  m_GameObject: {{fileID: {go}}}\n  m_Enabled: 1\n");
    let sound = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    assert!(check_text(&UnityCodec, sound.as_bytes()).is_empty());
    // A light whose game object does not list it.
    let unlisted = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), light(12, 10)]);
    let problems = check_text(&UnityCodec, unlisted.as_bytes());
    assert!(problems.iter().any(|p| p.to_string().contains("does not list it in m_Component")), "{problems:?}");
    // A game object listing a component that belongs to another one.
    let claimed = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), go(20, "Lamp", 11)]);
    let problems = check_text(&UnityCodec, claimed.as_bytes());
    assert!(problems.iter().any(|p| p.to_string().contains("lists component 11, whose m_GameObject is 10")), "{problems:?}");
}

#[test]
fn fields_added_by_a_re_save_do_not_block_a_deletion() {
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[21], "0"), go(20, "Lamp", 21), tr(21, 20, 11, &[], "1")]);
    let ours = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    // Theirs re-saved with a newer editor: every object gained a field, nothing was edited.
    let theirs = base.replace("  m_IsActive: 1\n", "  m_IsActive: 1\n  m_NewEditorField: 0\n");
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    assert_eq!(text(&r), ours.replace("  m_IsActive: 1\n", "  m_IsActive: 1\n  m_NewEditorField: 0\n"));
    // An edited value still conflicts with the deletion.
    let edited = base.replace("m_Name: Lamp", "m_Name: Torch");
    assert!(merge(&base, &ours, &edited).open_conflicts >= 1);
}

#[test]
fn a_struct_in_two_layouts_takes_the_newer_whole_and_says_so() {
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    // Theirs re-saved the GameObject with a newer layout that renames m_Layer; ours edited m_Layer.
    let theirs = base.replace("  serializedVersion: 6\n", "  serializedVersion: 7\n").replace("  m_Layer: 0\n", "  m_LayerIndex: 0\n");
    let ours = base.replace("m_Layer: 0", "m_Layer: 5");
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0);
    assert_eq!(text(&r), theirs);
    assert!(r.notes.iter().any(|n| n.contains("serializedVersion 7") && n.contains("the edits ours made")), "{:?}", r.notes);
    // The note names the object as people see it, then by its fileID.
    assert!(r.notes.iter().any(|n| n.starts_with("Root (10): GameObject")), "{:?}", r.notes);
}

#[test]
fn a_struct_field_both_sides_added_in_two_versions_of_its_type_is_a_conflict_not_a_mix() {
    let behaviour = |fields: &str| format!("{HEADER}--- !u!114 &1\nMonoBehaviour:\n  m_Name: A\n  speed: 1\n{fields}");
    let base = behaviour("");
    // Both added the field `Mana`; theirs with a newer package that renamed its struct's
    // member. Mixed, the struct would hold both names and Unity would read theirs' 0, not 10.
    let ours = behaviour("  Mana:\n    InternalValue: 10\n");
    let theirs = behaviour("  Mana:\n    m_InternalValue: 0\n");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t);
        assert_eq!(r.open_conflicts, 1, "{}", text(&r));
        assert!(!text(&r).contains("    InternalValue: 10\n    m_InternalValue: 0\n"), "{}", text(&r));
    }
    // One version of the type on both sides: merged member by member.
    let ours = behaviour("  Mana:\n    InternalValue: 10\n    Max: 0\n");
    let theirs = behaviour("  Mana:\n    InternalValue: 10\n");
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    assert_eq!(text(&r), ours);
    // An object's own members are merged member by member, whatever each side's script held.
    let added = |fields: &str| format!("{base}--- !u!114 &2\nMonoBehaviour:\n  m_Name: B\n{fields}");
    let r = merge(&base, &added("  speed: 2\n"), &added("  range: 3\n"));
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    assert_eq!(text(&r), added("  speed: 2\n  range: 3\n"));
}

#[test]
fn a_sibling_order_rewritten_by_the_editor_is_no_edit_against_a_deletion() {
    // Root with two children; each Transform carries the m_RootOrder Unity derives.
    let with_order = |t: String, order: u32| t + &format!("  m_RootOrder: {order}\n");
    let base = scene(&[
        go(10, "Root", 11),
        tr(11, 10, 0, &[21, 31], "0"),
        go(20, "Lamp", 21),
        with_order(tr(21, 20, 11, &[], "0"), 0),
        go(30, "Door", 31),
        with_order(tr(31, 30, 11, &[], "0"), 1),
    ]);
    // Ours deleted Lamp; theirs moved Door first, which only renumbered Lamp's m_RootOrder
    // (and re-saved it with a newer Transform layout).
    let ours = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[31], "0"), go(30, "Door", 31), with_order(tr(31, 30, 11, &[], "0"), 0)]);
    let theirs = scene(&[
        go(10, "Root", 11),
        tr(11, 10, 0, &[31, 21], "0"),
        go(20, "Lamp", 21),
        with_order(tr(21, 20, 11, &[], "0"), 1).replace("Transform:\n", "Transform:\n  serializedVersion: 2\n"),
        go(30, "Door", 31),
        with_order(tr(31, 30, 11, &[], "0"), 0),
    ]);
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    assert_eq!(text(&r), ours);
    // An edit of substance still conflicts with the deletion.
    let edited = theirs.replace("m_Name: Lamp", "m_Name: Torch");
    assert!(merge(&base, &ours, &edited).open_conflicts >= 1);
    // Both sides renumbering one m_RootOrder differently is no conflict either.
    let a = base.replace("m_RootOrder: 1", "m_RootOrder: 3");
    let b = base.replace("m_RootOrder: 1", "m_RootOrder: 4");
    let r = merge(&base, &a, &b);
    assert_eq!(r.open_conflicts, 0);
    assert_eq!(text(&r), a);
}

#[test]
fn a_struct_re_saved_by_an_older_editor_keeps_that_layout() {
    // Base was saved by a newer editor (layout 7); ours re-saved it with an older one (layout 6,
    // which lacks m_StaticEditorFlags); theirs edited the layout-7 member.
    let v6 = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let base = v6
        .replace(
            "  serializedVersion: 6
",
            "  serializedVersion: 7
",
        )
        .replace(
            "  m_IsActive: 1
",
            "  m_IsActive: 1
  m_StaticEditorFlags: 0
",
        );
    let theirs = base.replace("m_StaticEditorFlags: 0", "m_StaticEditorFlags: 4");
    let r = merge(&base, &v6, &theirs);
    assert_eq!(r.open_conflicts, 0);
    assert_eq!(text(&r), v6, "the layout ours re-saved is taken whole");
    assert!(r.notes.iter().any(|n| n.contains("re-saved (serializedVersion 6)") && n.contains("the edits theirs made")), "{:?}", r.notes);
    // Swapping the sides gives the same struct.
    assert_eq!(text(&merge(&base, &theirs, &v6)), v6);
}

#[test]
fn edits_to_members_both_layouts_hold_are_merged_member_by_member() {
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    // Theirs re-saved the GameObject with a newer layout; ours renamed it: both are kept.
    let theirs = base
        .replace("  serializedVersion: 6\n", "  serializedVersion: 7\n")
        .replace("  m_IsActive: 1\n", "  m_IsActive: 1\n  m_StaticEditorFlags: 0\n");
    let ours = base.replace("m_Name: Root", "m_Name: World");
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0);
    assert_eq!(text(&r), theirs.replace("m_Name: Root", "m_Name: World"));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    // Both sides re-laid it out differently: the newer is taken whole, never a conflict on the version.
    let other = base.replace("  serializedVersion: 6\n", "  serializedVersion: 8\n").replace("m_Name: Root", "m_Name: World");
    let r = merge(&base, &other, &theirs);
    assert_eq!(r.open_conflicts, 0);
    assert_eq!(text(&r), other);
}

fn prefab_instance(mods: &[(&str, &str, &str)], removed: &[&str]) -> String {
    let mut s = "--- !u!1001 &500\nPrefabInstance:\n  m_ObjectHideFlags: 0\n  serializedVersion: 2\n  m_Modification:\n    m_TransformParent: {fileID: 0}\n    m_Modifications:\n".to_owned();
    for (target, path, value) in mods {
        s.push_str(&format!(
            "    - target: {{fileID: {target}, guid: 0123456789abcdef0123456789abcdef, type: 3}}\n      propertyPath: {path}\n      value: {value}\n      objectReference: {{fileID: 0}}\n"
        ));
    }
    if removed.is_empty() {
        s.push_str("    m_RemovedComponents: []\n");
    } else {
        s.push_str("    m_RemovedComponents:\n");
        for r in removed {
            s.push_str(&format!("    - {{fileID: {r}, guid: 0123456789abcdef0123456789abcdef, type: 3}}\n"));
        }
    }
    s.push_str("  m_SourcePrefab: {fileID: 100100000, guid: 0123456789abcdef0123456789abcdef, type: 3}\n");
    s
}

#[test]
fn prefab_overrides_merge_by_target_and_property_path() {
    let base = scene(&[prefab_instance(&[("7", "m_Name", "Door"), ("8", "m_LocalPosition.x", "0")], &[])]);
    // Both sides add an override at the same place, and edit different ones.
    let ours =
        scene(&[prefab_instance(&[("7", "m_Name", "Gate"), ("8", "m_LocalPosition.x", "0"), ("8", "m_LocalPosition.y", "2")], &["9"])]);
    let theirs =
        scene(&[prefab_instance(&[("7", "m_Name", "Door"), ("8", "m_LocalPosition.x", "5"), ("8", "m_LocalPosition.z", "3")], &["10"])]);
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    let expected = scene(&[prefab_instance(
        &[("7", "m_Name", "Gate"), ("8", "m_LocalPosition.x", "5"), ("8", "m_LocalPosition.y", "2"), ("8", "m_LocalPosition.z", "3")],
        &["9", "10"],
    )]);
    assert_eq!(text(&r), expected);
    // The same override given two values is one conflict, on its value.
    let other = scene(&[prefab_instance(&[("7", "m_Name", "Hatch"), ("8", "m_LocalPosition.x", "0")], &[])]);
    let r = merge(&base, &ours, &other);
    assert_eq!(r.open_conflicts, 1, "{}", text(&r));
    assert!(r.conflicts[0].path.to_string().contains("value"), "{}", r.conflicts[0].path);
}

#[test]
fn an_override_path_quoted_by_one_editor_is_the_same_override() {
    let base = scene(&[prefab_instance(&[("7", "'m_Items.Array.data[0]'", "1")], &[])]);
    let ours = scene(&[prefab_instance(&[("7", "m_Items.Array.data[0]", "1")], &[])]);
    let theirs = scene(&[prefab_instance(&[("7", "'m_Items.Array.data[0]'", "2")], &[])]);
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    assert_eq!(text(&r).matches("propertyPath").count(), 1, "{}", text(&r));
    assert!(text(&r).contains("value: 2"), "{}", text(&r));
}

#[test]
fn edits_spread_over_a_replicated_scene_merge_document_by_document() {
    use levelmerge_testutils::unity::{edit_numbers, replicate};
    let one = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[21], "0"), go(20, "Lamp", 21), tr(21, 20, 11, &[], "1")]);
    let base = replicate(&one, 40);
    let (ours, theirs) = (edit_numbers(&base, 30, 0, 7), edit_numbers(&base, 30, 1, 8));
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    // Even documents are ours' to edit, odd ones theirs'.
    let docs = |s: &str| s.split_inclusive("\n--- ").map(str::to_owned).collect::<Vec<_>>();
    let expected: String =
        docs(&ours).into_iter().zip(docs(&theirs)).enumerate().map(|(i, (o, t))| if i % 2 == 1 { o } else { t }).collect();
    assert_eq!(text(&r), expected);
    assert!(check_text(&UnityCodec, &r.text).is_empty());
}

#[test]
fn a_key_written_twice_is_matched_occurrence_by_occurrence() {
    // Unity writes a script field that hides an inherited one under the same name twice.
    let doc = |a: &str, b: &str| {
        format!("--- !u!114 &5\nMonoBehaviour:\n  m_Enabled: 1\n  spawnAmount: {a}\n  spawnAmount: {b}\n  interleave: 2\n")
    };
    let base = scene(&[doc("1", "2")]);
    let r = merge(&base, &scene(&[doc("1", "20")]), &scene(&[doc("10", "2")]));
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    assert_eq!(text(&r), scene(&[doc("10", "20")]));
    assert_eq!(merge(&base, &scene(&[doc("1", "20")]), &scene(&[doc("1", "30")])).open_conflicts, 1);
}

fn box_collider(id: i64, go: i64, y: &str) -> String {
    format!("--- !u!65 &{id}\nBoxCollider:\n  m_ObjectHideFlags: 0\n  m_GameObject: {{fileID: {go}}}\n  m_Size: {{x: 1, y: {y}, z: 1}}\n")
}

#[test]
fn a_diff_shows_components_at_their_game_object_by_hierarchy_path() {
    use levelmerge_core::diff::{Edit, Status};
    let level = |door_x: &str, size: &str, lamp: bool| {
        let mut parts = vec![go(10, "Level", 11), tr(11, 10, 0, &[21], "0"), go(20, "Props", 21)];
        parts.push(tr(21, 20, 11, if lamp { &[31, 41] } else { &[31] }, "0"));
        parts.extend([go(30, "Door_12", 31), tr(31, 30, 21, &[], door_x), box_collider(32, 30, size)]);
        // A script on the door that names the lamp, then the props.
        let target = if lamp { 40 } else { 20 };
        parts.push(format!("--- !u!114 &33\nMonoBehaviour:\n  m_GameObject: {{fileID: 30}}\n  m_Target: {{fileID: {target}}}\n"));
        if lamp {
            parts.extend([go(40, "Lamp", 41), tr(41, 40, 21, &[], "0")]);
        }
        scene(&parts)
    };
    let (old, new) = (level("0", "2", true), level("5", "3", false));
    let report = levelmerge_core::diff_texts(&UnityCodec, old.as_bytes(), new.as_bytes()).expect("both read");
    let door = report.objects.iter().find(|o| o.path == ["Level", "Props", "Door_12"]).expect("the door is shown by its path");
    assert_eq!((door.kind.as_str(), door.status), ("GameObject", Status::Changed));
    let properties: Vec<_> = door.entries.iter().filter_map(|e| e.property()).collect();
    assert_eq!(properties, ["Transform.m_LocalPosition.x", "BoxCollider.m_Size.y", "MonoBehaviour.m_Target"]);
    // A reference is shown with the paths of the objects it names, before and after.
    let Edit::Modified { targets, .. } = &door.entries[2].edit else { panic!("{door:?}") };
    assert_eq!(targets, &[Some(vec!["Level".into(), "Props".into(), "Lamp".into()]), Some(vec!["Level".into(), "Props".into()])]);
    assert!(door.entries.iter().all(|e| e.part), "both are components of the door");
    let lamp = report.objects.iter().find(|o| o.path == ["Level", "Props", "Lamp"]).expect("the removed lamp is shown where it was");
    assert_eq!(lamp.status, Status::Removed);
    assert!(lamp.entries.iter().any(|e| e.kind == "Transform" && e.edit == Edit::Removed), "{lamp:?}");
    let props = report.objects.iter().find(|o| o.path == ["Level", "Props"]).expect("the parent's children changed");
    assert!(props.entries.iter().any(|e| e.property().as_deref() == Some("Transform.m_Children.41")), "{props:?}");
}

#[test]
fn a_clean_merge_reports_every_problem_of_its_result_as_check_would() {
    // Theirs refers to a transform nobody has: the merge keeps what theirs brought (the
    // problem is not new), and says so as `check` of the result would.
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let ours = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "5")]);
    let theirs = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), go(20, "Lamp", 21), tr(21, 20, 99, &[], "1")]);
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    let checked: Vec<String> = check_text(&UnityCodec, &r.text).iter().map(|p| p.key()).collect();
    assert!(!checked.is_empty(), "the result has the orphan theirs brought");
    let reported: Vec<String> = r.problems.iter().map(|p| p.key()).collect();
    assert_eq!(reported, checked);
    // A sound merge reports none.
    assert!(merge(&base, &ours, &base).problems.is_empty());
}

#[test]
fn the_derived_ambient_colour_never_conflicts_and_is_kept_whole() {
    let settings = |r: &str, g: &str| {
        format!("--- !u!104 &2\nRenderSettings:\n  m_ObjectHideFlags: 0\n  serializedVersion: 9\n  m_Fog: 0\n  m_IndirectSpecularColor: {{r: {r}, g: {g}, b: 0.3, a: 1}}\n")
    };
    let base = scene(&[settings("0.18", "0.22"), go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    // Both sides' editors computed another colour; ours changed only r, theirs only g, and
    // theirs also renamed the root.
    let ours = base.replace("r: 0.18,", "r: 0.1829417,");
    let theirs = base.replace("g: 0.22,", "g: 0.2262355,").replace("m_Name: Root", "m_Name: World");
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    // Ours' colour whole (never r from one side and g from the other), theirs' rename.
    assert_eq!(text(&r), ours.replace("m_Name: Root", "m_Name: World"));
}

fn merge_preferring(b: &str, o: &str, t: &str, side: levelmerge_core::Side) -> MergeOutcome {
    let mut options = Options::default();
    options.policy.prefer = Some(side);
    merge_texts(&UnityCodec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &options, &MarkerStyle::default()).expect("merge runs")
}

/// Ours deleted the Lamp (its game object, transform and its entry in Root's children); theirs
/// renamed it. Settled either way by a policy, the scene stays whole: kept, the Lamp comes
/// back with its transform and its place among Root's children; deleted, all of it goes.
#[test]
fn a_deleted_game_object_settled_by_policy_keeps_or_drops_its_transform_and_its_place() {
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[21], "0"), go(20, "Lamp", 21), tr(21, 20, 11, &[], "1")]);
    let ours = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let theirs = base.replace("m_Name: Lamp", "m_Name: Lantern");
    let unsettled = merge(&base, &ours, &theirs);
    assert!(unsettled.conflicts.iter().any(|c| c.kind == "delete-modify" && c.object == "20"), "{:?}", unsettled.conflicts);

    let kept = merge_preferring(&base, &ours, &theirs, levelmerge_core::Side::Theirs);
    assert_eq!(kept.open_conflicts, 0, "{}", text(&kept));
    assert_eq!(text(&kept), theirs);
    assert!(check_text(&UnityCodec, &kept.text).is_empty());

    let dropped = merge_preferring(&base, &ours, &theirs, levelmerge_core::Side::Ours);
    assert_eq!(dropped.open_conflicts, 0, "{}", text(&dropped));
    assert_eq!(text(&dropped), ours);
}

/// Theirs deleted a component (and its entry in the game object's list); ours edited it.
/// Kept by the policy, the game object lists it again.
#[test]
fn a_deleted_component_kept_by_policy_is_listed_by_its_game_object_again() {
    let light = "--- !u!108 &12\nLight:\n  m_GameObject: {fileID: 10}\n  m_Intensity: 1\n";
    let root = go(10, "Root", 11).replace("  - component: {fileID: 11}\n", "  - component: {fileID: 11}\n  - component: {fileID: 12}\n");
    let base = scene(&[root, tr(11, 10, 0, &[], "0"), light.to_owned()]);
    let ours = base.replace("m_Intensity: 1", "m_Intensity: 2");
    let theirs = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let r = merge_preferring(&base, &ours, &theirs, levelmerge_core::Side::Ours);
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    assert_eq!(text(&r), ours);
    assert!(check_text(&UnityCodec, &r.text).is_empty());
}

fn light(id: i64, go: i64, intensity: &str) -> String {
    format!("--- !u!108 &{id}\nLight:\n  m_ObjectHideFlags: 0\n  m_GameObject: {{fileID: {go}}}\n  m_Enabled: 1\n  serializedVersion: 10\n  m_Type: 2\n  m_Color: {{r: 1, g: 1, b: 1, a: 1}}\n  m_Intensity: {intensity}\n  m_Range: 10\n")
}

/// A game object with a transform and a light.
fn lamp(go_id: i64, tr_id: i64, light_id: i64, x: &str, intensity: &str) -> Vec<String> {
    let game_object = go(go_id, "Lamp", tr_id).replace("  m_Layer", &format!("  - component: {{fileID: {light_id}}}\n  m_Layer"));
    vec![game_object, tr(tr_id, go_id, 0, &[], x), light(light_id, go_id, intensity)]
}

#[test]
fn a_game_object_one_side_re_created_under_new_file_ids_keeps_the_other_sides_edits() {
    let base = scene(&lamp(10, 11, 12, "0", "1"));
    // Theirs re-made the lamp: every fileID is new, and it moved the lamp.
    let theirs = scene(&lamp(70, 71, 72, "5", "1"));
    let ours = scene(&lamp(10, 11, 12, "0", "2"));
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0, "{:?}", r.conflicts);
    assert_eq!(text(&r), scene(&lamp(70, 71, 72, "5", "2")));
    assert!(r.notes.iter().any(|n| n.contains("theirs re-created 3 object(s)")), "{:?}", r.notes);
    // The same with the sides swapped.
    let swapped = merge(&base, &theirs, &ours);
    assert_eq!(text(&swapped), scene(&lamp(70, 71, 72, "5", "2")));
}

#[test]
fn a_component_removed_and_another_added_is_not_taken_for_the_same_one() {
    let base = scene(&lamp(10, 11, 12, "0", "1"));
    let mut parts = lamp(10, 11, 13, "0", "1");
    // Theirs replaced the light with an audio source: another class, another object.
    parts[2] = "--- !u!82 &13\nAudioSource:\n  m_ObjectHideFlags: 0\n  m_GameObject: {fileID: 10}\n  m_Enabled: 1\n".to_owned();
    let theirs = scene(&parts);
    let ours = scene(&lamp(10, 11, 12, "0", "2"));
    let r = merge(&base, &ours, &theirs);
    assert!(r.notes.iter().all(|n| !n.contains("re-created")), "{:?}", r.notes);
    assert_eq!(r.conflicts.iter().map(|c| (c.object.as_str(), c.kind)).collect::<Vec<_>>(), [("12", "delete-modify")]);
}

#[test]
fn an_object_both_sides_re_created_under_different_ids_is_one_object_under_ours_id() {
    let base = scene(&lamp(10, 11, 12, "0", "1"));
    let ours = scene(&lamp(10, 11, 50, "0", "1"));
    let theirs = scene(&lamp(10, 11, 60, "0", "3"));
    let r = merge(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 0, "{:?}", r.conflicts);
    assert_eq!(text(&r), scene(&lamp(10, 11, 50, "0", "3")));
}

#[test]
fn a_merge_that_renumbered_theirs_merged_with_theirs_again_holds_each_object_once() {
    // An earlier merge gave theirs' B new ids (ours' A had taken them); merged with theirs
    // again from the older base (a cherry-pick, a criss-cross history), B is the copy it holds.
    let root = [go(10, "Root", 11), tr(11, 10, 0, &[], "0")];
    let with = |extra: &[String]| scene(&[root.as_slice(), extra].concat());
    let base = with(&[]);
    let ours = with(&[go(50, "A", 51), tr(51, 50, 0, &[], "0")]);
    // B has a child C, whose ids nobody else took: it keeps them, under B's new ones.
    let b_and_c = [go(50, "B", 51), tr(51, 50, 0, &[61], "0"), go(60, "C", 61), tr(61, 60, 51, &[], "0")];
    let theirs = with(&b_and_c);
    let once = text(&merge(&base, &ours, &theirs));
    let renumbered =
        [go(50, "A", 51), tr(51, 50, 0, &[], "0"), go(52, "B", 53), tr(53, 52, 0, &[61], "0"), go(60, "C", 61), tr(61, 60, 53, &[], "0")];
    assert_eq!(once, with(&renumbered));
    let again = merge(&base, &once, &theirs);
    assert_eq!(again.open_conflicts, 0, "{}", text(&again));
    assert_eq!(text(&again), once);
    assert_eq!(
        again.notes,
        ["ours holds 2 of theirs' new object(s) already, under other fileIDs (&50 as &52, &51 as &53): one object each, not two"]
    );
    // The sides swapped: ours' B stays where it is, and theirs' A moves off its ids.
    let swapped = merge(&base, &theirs, &once);
    assert_eq!(swapped.open_conflicts, 0, "{}", text(&swapped));
    // (A where theirs holds it, before B.)
    let a_moved = [go(54, "A", 55), tr(55, 54, 0, &[], "0")];
    assert_eq!(text(&swapped), with(&[a_moved.as_slice(), &b_and_c].concat()));
    assert!(check_text(&UnityCodec, &swapped.text).is_empty());
    // A copy that differs is another object: renumbered as before, not taken for B.
    let moved = once.replace(
        "--- !u!4 &53\nTransform:\n  m_ObjectHideFlags: 0\n  m_GameObject: {fileID: 52}\n  m_LocalPosition: {x: 0",
        "--- !u!4 &53\nTransform:\n  m_ObjectHideFlags: 0\n  m_GameObject: {fileID: 52}\n  m_LocalPosition: {x: 7",
    );
    assert_ne!(moved, once);
    let r = merge(&base, &moved, &theirs);
    assert!(r.notes.iter().all(|n| !n.contains("holds")), "{:?}", r.notes);
    assert_eq!(text(&r).matches("m_Name: B").count(), 2, "{}", text(&r));
}

#[test]
fn an_object_both_sides_re_created_under_one_new_id_merges_against_the_base_object() {
    // The same re-creation reached both sides (`&12` became `&50`); theirs then changed the
    // light past telling it from its text. Base's light is still the copy both sides edited:
    // theirs' edits and ours' range both land, without a conflict.
    let light_doc = |id: i64, enabled: u8, kind: u8, colour: &str, intensity: &str, range: &str| {
        format!("--- !u!108 &{id}\nLight:\n  m_ObjectHideFlags: 0\n  m_GameObject: {{fileID: 10}}\n  m_Enabled: {enabled}\n  serializedVersion: 10\n  m_Type: {kind}\n  m_Color: {{r: {colour}, g: 1, b: 1, a: 1}}\n  m_Intensity: {intensity}\n  m_Range: {range}\n")
    };
    let lamp_with = |light_id: i64, light: String| {
        let game_object = go(10, "Lamp", 11).replace("  m_Layer", &format!("  - component: {{fileID: {light_id}}}\n  m_Layer"));
        scene(&[game_object, tr(11, 10, 0, &[], "0"), light])
    };
    let base = lamp_with(12, light_doc(12, 1, 2, "1", "1", "10"));
    let ours = lamp_with(50, light_doc(50, 1, 2, "1", "1", "12"));
    let theirs = lamp_with(50, light_doc(50, 0, 1, "0.5", "3", "10"));
    let expected = lamp_with(50, light_doc(50, 0, 1, "0.5", "3", "12"));
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t);
        assert_eq!(r.open_conflicts, 0, "{:?}", r.conflicts);
        assert_eq!(text(&r), expected);
        assert!(r.notes.iter().any(|n| n.contains("re-created 1 object(s) under new fileIDs (&12 as &50)")), "{:?}", r.notes);
    }
}

#[test]
fn a_script_component_swapped_for_one_running_another_script_is_another_object() {
    let behaviour = |id: i64, guid: &str, speed: &str| {
        format!("--- !u!114 &{id}\nMonoBehaviour:\n  m_ObjectHideFlags: 0\n  m_GameObject: {{fileID: 10}}\n  m_Enabled: 1\n  m_Script: {{fileID: 11500000, guid: {guid}, type: 3}}\n  m_Name: \n  speed: {speed}\n")
    };
    let with = |component: i64, doc: String| {
        let game_object = go(10, "Lamp", 11).replace("  m_Layer", &format!("  - component: {{fileID: {component}}}\n  m_Layer"));
        scene(&[game_object, tr(11, 10, 0, &[], "0"), doc])
    };
    let base = with(12, behaviour(12, "aaaa", "1"));
    let ours = with(12, behaviour(12, "aaaa", "2"));
    // Theirs put another script in the same place: alike in every line but the script.
    let theirs = with(13, behaviour(13, "bbbb", "1"));
    let r = merge(&base, &ours, &theirs);
    assert!(r.notes.iter().all(|n| !n.contains("re-created")), "{:?}", r.notes);
    assert_eq!(r.conflicts.iter().map(|c| (c.object.as_str(), c.kind)).collect::<Vec<_>>(), [("12", "delete-modify")]);
}

#[test]
fn a_component_moved_to_another_game_object_under_a_new_id_is_another_object() {
    let base = scene(&[lamp(10, 11, 12, "0", "1"), vec![go(20, "Post", 21), tr(21, 20, 0, &[], "3")]].concat());
    // Theirs moved the light from the lamp to the post, where it got a new fileID.
    let mut theirs_parts = lamp(10, 11, 12, "0", "1");
    theirs_parts[0] = go(10, "Lamp", 11);
    theirs_parts.pop();
    let post = go(20, "Post", 21).replace("  m_Layer", "  - component: {fileID: 22}\n  m_Layer");
    theirs_parts.extend([post, tr(21, 20, 0, &[], "3"), light(22, 20, "1")]);
    let theirs = scene(&theirs_parts);
    let ours = scene(&[lamp(10, 11, 12, "0", "2"), vec![go(20, "Post", 21), tr(21, 20, 0, &[], "3")]].concat());
    let r = merge(&base, &ours, &theirs);
    assert!(r.notes.iter().all(|n| !n.contains("re-created")), "{:?}", r.notes);
    assert_eq!(r.conflicts.iter().map(|c| (c.object.as_str(), c.kind)).collect::<Vec<_>>(), [("12", "delete-modify")]);
}

#[test]
fn edits_of_different_documents_are_spliced_into_what_the_whole_merge_writes() {
    let base = scene(&[lamp(10, 11, 12, "0", "1"), vec![go(20, "Post", 21), tr(21, 20, 0, &[], "3")]].concat());
    let ours = base.replace("m_Intensity: 1", "m_Intensity: 2");
    let theirs = base.replace("m_LocalPosition: {x: 3,", "m_LocalPosition: {x: 4,");
    let texts = Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let spliced = levelmerge_core::merge_disjoint_parts(&UnityCodec, texts).expect("each document changed by one side at most");
    let whole = levelmerge_core::merge_objects(&UnityCodec, texts, &Options::default(), &MarkerStyle::default()).expect("merges");
    assert_eq!(String::from_utf8(spliced).unwrap(), text(&whole));
    assert_eq!(text(&merge(&base, &ours, &theirs)), ours.replace("m_LocalPosition: {x: 3,", "m_LocalPosition: {x: 4,"));
    // Both sides change the light: its document is merged alone, the rest spliced around it.
    let theirs = base.replace("m_Range: 10", "m_Range: 12");
    let texts = Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let spliced = levelmerge_core::merge_disjoint_parts(&UnityCodec, texts).expect("the light merged alone");
    let whole = levelmerge_core::merge_objects(&UnityCodec, texts, &Options::default(), &MarkerStyle::default()).expect("merges");
    assert_eq!(String::from_utf8(spliced).unwrap(), text(&whole));
    assert_eq!(text(&whole), ours.replace("m_Range: 10", "m_Range: 12"));
    // Both change one property of it: a conflict, not a clean splice ...
    let theirs = base.replace("m_Intensity: 1", "m_Intensity: 3").replace("m_LocalPosition: {x: 3,", "m_LocalPosition: {x: 4,");
    let texts = Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    assert!(levelmerge_core::merge_disjoint_parts(&UnityCodec, texts).is_none());
    // ... but the light is merged alone and its conflict marked there, the rest spliced, as the
    // whole merge writes it.
    let r = merge(&base, &ours, &theirs);
    assert!(r.spliced);
    assert_eq!((r.open_conflicts, r.marked_regions), (1, 1));
    let whole = levelmerge_core::merge_objects(&UnityCodec, texts, &Options::default(), &MarkerStyle::default()).expect("merges");
    levelmerge_testutils::corpus::same_outcome(&r, &whole).unwrap();
    let marked = "<<<<<<< ours\n  m_Intensity: 2\n=======\n  m_Intensity: 3\n>>>>>>> theirs\n";
    assert!(text(&r).contains(marked) && text(&r).contains("{x: 4,"), "{}", text(&r));
    // Ours deletes the post; theirs' side of the conflict points at its transform: that side
    // of the splice is broken, and the whole merge decides.
    let (without_post, pointing) = (scene(&lamp(10, 11, 12, "0", "2")), base.replace("m_Intensity: 1", "m_Intensity: {fileID: 21}"));
    let r = merge(&base, &without_post, &pointing);
    assert!(!r.spliced && r.open_conflicts > 0, "{}", text(&r));
    let texts = Sides::new(base.as_bytes(), without_post.as_bytes(), pointing.as_bytes());
    let whole = levelmerge_core::merge_objects(&UnityCodec, texts, &Options::default(), &MarkerStyle::default()).expect("merges");
    levelmerge_testutils::corpus::same_outcome(&r, &whole).unwrap();
    // A side adds a game object with its transform, and the scene root lists it: spliced in.
    let theirs = scene(
        &[lamp(10, 11, 12, "0", "1"), vec![go(20, "Post", 21), tr(21, 20, 0, &[], "3"), go(30, "New", 31), tr(31, 30, 0, &[], "5")]]
            .concat(),
    );
    let texts = Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let spliced = levelmerge_core::merge_disjoint_parts(&UnityCodec, texts).expect("each place changed by one side at most");
    let whole = levelmerge_core::merge_objects(&UnityCodec, texts, &Options::default(), &MarkerStyle::default()).expect("merges");
    assert_eq!(String::from_utf8(spliced).unwrap(), text(&whole));
    assert!(text(&whole).contains("m_Name: New") && text(&whole).contains("m_Intensity: 2"));
    // Both sides add a document at one place: not spliced.
    let ours = format!("{base}{}", go(40, "Ours", 0));
    let theirs = format!("{base}{}", go(30, "Theirs", 0));
    assert!(levelmerge_core::merge_disjoint_parts(&UnityCodec, Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes())).is_none());
}

/// A TextMeshPro label: `auto` sizing on or off, the font size stored.
fn label(auto: u8, size: &str) -> String {
    format!("--- !u!114 &40\nMonoBehaviour:\n  m_ObjectHideFlags: 0\n  m_GameObject: {{fileID: 10}}\n  m_Enabled: 1\n  m_text: Play\n  m_fontSize: {size}\n  m_fontSizeBase: 32\n  m_enableAutoSizing: {auto}\n  m_fontSizeMin: 18\n  m_fontSizeMax: 72\n")
}

#[test]
fn the_font_size_an_auto_sized_text_computed_is_not_a_conflict() {
    let with = |auto, size| scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), label(auto, size)]);
    // Both sides' texts fitted themselves anew: ours is kept.
    let r = merge(&with(1, "18"), &with(1, "31.25"), &with(1, "21.55"));
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    assert_eq!(text(&r), with(1, "31.25"));
    // Without auto sizing the size is the user's choice: a conflict.
    assert_eq!(merge(&with(0, "18"), &with(0, "31.25"), &with(0, "21.55")).open_conflicts, 1);
}

/// Ours deleted the Lamp; theirs renamed it. A line diff of the two renderings would pair the
/// Lamp's lines with the Door's, which look alike, and mark many small regions mixing the two
/// objects; the documents only theirs keeps are one region, whole.
#[test]
fn a_deleted_object_the_other_side_kept_is_marked_as_whole_documents() {
    let base = scene(&[
        go(10, "Root", 11),
        tr(11, 10, 0, &[21, 31], "0"),
        go(20, "Lamp", 21),
        tr(21, 20, 11, &[], "1"),
        go(30, "Door", 31),
        tr(31, 30, 11, &[], "1"),
    ]);
    let ours = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[31], "0"), go(30, "Door", 31), tr(31, 30, 11, &[], "1")]);
    let theirs = base.replace("m_Name: Lamp", "m_Name: Lantern");
    let r = merge(&base, &ours, &theirs);
    assert!(r.open_conflicts > 0);
    let marked = text(&r);
    assert_eq!(r.marked_regions, 2, "Root's children, and the Lamp's two documents:\n{marked}");
    let (start, end) = (marked.find("--- !u!1 &20").unwrap(), marked.find("--- !u!1 &30").unwrap());
    let lamp = &marked[start..end];
    assert!(lamp.contains("--- !u!4 &21") && lamp.trim_end().ends_with(">>>>>>> theirs"), "{marked}");
    assert_eq!(levelmerge_testutils::laws::side_view(&marked, levelmerge_core::Side::Ours), ours);
    assert_eq!(levelmerge_testutils::laws::side_view(&marked, levelmerge_core::Side::Theirs), theirs);
}

#[test]
fn a_conflict_in_a_component_spliced_alone_is_named_by_its_game_objects_path() {
    // The lamp hangs under a room; both sides set its light's intensity, and theirs also
    // moves the room: the light's document is merged alone, its name lies in other documents.
    let room = |x: &str| vec![go(1, "Room", 2), tr(2, 1, 0, &[11], x)];
    let version = |room_x: &str, intensity: &str| {
        let mut lamp = lamp(10, 11, 12, "0", intensity);
        lamp[1] = tr(11, 10, 2, &[], "0");
        scene(&[room(room_x), lamp].concat())
    };
    let r = merge(&version("0", "1"), &version("0", "2"), &version("5", "3"));
    assert!(r.spliced, "the edited documents are spliced");
    let light = r.conflicts.iter().find(|c| c.object == "12").expect("the intensities conflict");
    assert_eq!((light.object_path.clone(), light.object_kind.as_str()), (Some(vec!["Room".to_owned(), "Lamp".to_owned()]), "Light"));
}

#[test]
fn a_field_one_side_writes_as_a_mapping_and_the_other_as_a_list_is_not_merged_member_by_member() {
    let behaviour = |field: &str| format!("--- !u!114 &30\nMonoBehaviour:\n  m_GameObject: {{fileID: 10}}\n  m_Enabled: 1\n{field}");
    let root = [go(10, "Root", 11), tr(11, 10, 0, &[], "0")];
    let with = |field: &str| scene(&[root[0].clone(), root[1].clone(), behaviour(field)]);
    let base = with("");
    // A list keyed by the objects its items name, and a mapping: merged by key, the mapping's
    // member would be written as an item of the list (or the list's item as a member).
    let listed = with("  m_Slots:\n  - slot: {fileID: 11}\n");
    let mapped = with("  m_Slots:\n    first: {fileID: 10}\n");
    for (ours, theirs) in [(&listed, &mapped), (&mapped, &listed)] {
        let r = merge(&base, ours, theirs);
        assert_eq!(r.open_conflicts, 1, "{}", text(&r));
        assert_eq!(r.conflicts[0].path, "MonoBehaviour.m_Slots");
    }
    // One side turning the list into a mapping, the other leaving it: the change stands.
    let r = merge(&listed, &mapped, &listed);
    assert_eq!((r.open_conflicts, text(&r)), (0, mapped.clone()));
    let r = merge(&listed, &listed, &mapped);
    assert_eq!((r.open_conflicts, text(&r)), (0, mapped));
}

/// A button whose `m_OnClick` calls are `calls`, under game object 10.
fn button(calls: &str) -> String {
    format!(
        "--- !u!114 &12\nMonoBehaviour:\n  m_ObjectHideFlags: 0\n  m_GameObject: {{fileID: 10}}\n  m_Enabled: 1\n  m_OnClick:\n    m_PersistentCalls:\n      m_Calls:{calls}\n  m_Interactable: 1\n"
    )
}

#[test]
fn one_call_both_sides_add_in_two_forms_is_kept_once_whichever_side_is_ours() {
    // One editor writes a persistent call as a block mapping, another as a flow mapping, where
    // an empty string is `''` and a long type name is quoted over two lines: the same call.
    let block = "\n      - m_Target: {fileID: 10}\n        m_TargetAssemblyTypeName: Game.Menu.LobbyUI,\n          Game.Client\n        m_MethodName: Join\n        m_Arguments:\n          m_StringArgument: \n          m_BoolArgument: 0\n        m_CallState: 2\n";
    let flow = " [{m_Target: {fileID: 10}, m_TargetAssemblyTypeName: 'Game.Menu.LobbyUI,\n            Game.Client', m_MethodName: Join, m_Arguments: {m_StringArgument: '',\n            m_BoolArgument: 0}, m_CallState: 2}]\n";
    let with = |calls: &str| {
        let mut go = go(10, "Menu", 11);
        go = go.replace("  - component: {fileID: 11}\n", "  - component: {fileID: 11}\n  - component: {fileID: 12}\n");
        scene(&[go, tr(11, 10, 0, &[], "0"), button(calls)])
    };
    let base = with(" []\n");
    let (ours, theirs) = (with(block), with(flow));
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t);
        assert_eq!(r.open_conflicts, 0, "{}", text(&r));
        assert_eq!(&text(&r), o, "ours' form of the one call is kept");
        assert!(check_text(&UnityCodec, &r.text).is_empty());
    }
    // Written differently, the call differs: both are kept.
    let other = with(&flow.replace("m_MethodName: Join", "m_MethodName: Leave"));
    let r = merge(&base, &ours, &other);
    assert_eq!(text(&r).matches("m_MethodName:").count(), 2, "{}", text(&r));
}

#[test]
fn a_field_one_side_only_requotes_is_no_edit_beside_the_other_sides_change() {
    // A newer editor stops quoting a property path: that is no change of its meaning, so the
    // other side's change of the same entry is no conflict; the changed text is kept.
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]).replace("  m_Name: Root\n", "  m_Name: 'Root'\n");
    let requoted = base.replace("m_Name: 'Root'", "m_Name: Root");
    let renamed = base.replace("m_Name: 'Root'", "m_Name: World");
    for (o, t) in [(&requoted, &renamed), (&renamed, &requoted)] {
        let r = merge(&base, o, t);
        assert_eq!(r.open_conflicts, 0, "{}", text(&r));
        assert_eq!(text(&r), renamed);
    }
}

#[test]
fn a_game_object_kept_against_its_deletion_no_longer_lists_the_child_the_deleting_side_moved_out() {
    // Root › A › C. Theirs moves C to the root, then deletes A; ours renames A. Whichever way
    // the delete/modify conflict on A is settled, C stays where theirs put it, and a kept A no
    // longer lists it among its children.
    let base = scene(&[
        go(10, "Root", 11),
        tr(11, 10, 0, &[21], "0"),
        go(20, "A", 21),
        tr(21, 20, 11, &[31], "0"),
        go(30, "C", 31),
        tr(31, 30, 21, &[], "0"),
    ]);
    let renamed = base.replace("m_Name: A\n", "m_Name: A2\n");
    let moved_out = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[31], "0"), go(30, "C", 31), tr(31, 30, 11, &[], "5")]);
    for (ours, theirs) in [(&renamed, &moved_out), (&moved_out, &renamed)] {
        let r = merge(&base, ours, theirs);
        assert_eq!(r.open_conflicts, 1, "{}", text(&r));
        for side in [Side::Ours, Side::Theirs] {
            let r = merge_preferring(&base, ours, theirs, side);
            let out = text(&r);
            assert_eq!(r.open_conflicts, 0, "{out}");
            assert!(check_text(&UnityCodec, &r.text).is_empty(), "{out}");
            assert!(out.contains(&tr(31, 30, 11, &[], "5")), "C under the root: {out}");
            let keeps_a = *if side == Side::Ours { ours } else { theirs } == renamed;
            assert_eq!(out.contains(&(go(20, "A2", 21) + &tr(21, 20, 11, &[], "0"))), keeps_a, "A kept without C, or gone: {out}");
        }
    }
}

#[test]
fn an_entry_one_side_added_for_an_object_the_other_deleted_stands_or_goes_with_it() {
    // Ours deletes the crate; theirs renames it and adds it to a script's list of targets.
    // Whichever way the conflict on the crate goes, the entry goes with it: each view is sound.
    let script = |targets: &str| format!("--- !u!114 &12\nMonoBehaviour:\n  m_GameObject: {{fileID: 10}}\n  m_Targets:{targets}\n");
    let root = |children: &[i64]| {
        let mut g = go(10, "Root", 11);
        g = g.replace("  - component: {fileID: 11}\n", "  - component: {fileID: 11}\n  - component: {fileID: 12}\n");
        [g, tr(11, 10, 0, children, "0")]
    };
    let [g, t] = root(&[21]);
    let base = scene(&[g.clone(), t.clone(), script(" []"), go(20, "Crate", 21), tr(21, 20, 11, &[], "0")]);
    let theirs = scene(&[g, t, script("\n  - {fileID: 21}"), go(20, "Big Crate", 21), tr(21, 20, 11, &[], "0")]);
    let [g, t] = root(&[]);
    let ours = scene(&[g, t, script(" []")]);
    for (o, th) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, th);
        assert_eq!(r.open_conflicts, 1, "{}", text(&r));
        for (_, shown) in sound_views(&r) {
            assert_eq!(shown.contains("- {fileID: 21}"), shown.contains("Big Crate"), "{shown}");
        }
    }
}

/// A lamp placed from a prefab, under the root: `overrides` are its instance's modifications.
fn placed_lamp(overrides: &[(&str, &str)]) -> String {
    let mods: String = overrides
        .iter()
        .map(|(path, value)| format!("    - target: {{fileID: 5001, guid: abc, type: 3}}\n      propertyPath: {path}\n      value: {value}\n      objectReference: {{fileID: 0}}\n"))
        .collect();
    format!(
        "--- !u!1001 &100\nPrefabInstance:\n  m_ObjectHideFlags: 0\n  serializedVersion: 2\n  m_Modification:\n    m_TransformParent: {{fileID: 11}}\n    m_Modifications:\n{mods}    m_RemovedComponents: []\n  m_SourcePrefab: {{fileID: 100100000, guid: abc, type: 3}}\n--- !u!4 &101 stripped\nTransform:\n  m_CorrespondingSourceObject: {{fileID: 5001, guid: abc, type: 3}}\n  m_PrefabInstance: {{fileID: 100}}\n  m_PrefabAsset: {{fileID: 0}}\n"
    )
}

#[test]
fn an_override_added_to_a_prefab_instance_the_other_side_deleted_is_a_conflict() {
    // An override is an item of a list with identity: adding one is an edit, never a field a
    // re-save added, so deleting the instance on the other side does not silently drop it.
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[101], "0"), placed_lamp(&[("m_Name", "Lamp")])]);
    let moved = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[101], "0"), placed_lamp(&[("m_Name", "Lamp"), ("m_LocalPosition.x", "3")])]);
    let deleted = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    for (ours, theirs) in [(&deleted, &moved), (&moved, &deleted)] {
        let r = merge(&base, ours, theirs);
        assert_eq!(r.open_conflicts, 1, "{}", text(&r));
        assert_eq!(r.conflicts[0].object, "100");
        assert_eq!(text(&merge_preferring(&base, ours, theirs, if ours == &moved { Side::Ours } else { Side::Theirs })), moved);
    }
}

#[test]
fn a_network_objects_global_id_hash_both_sides_recomputed_is_no_conflict() {
    // Netcode for GameObjects writes the hash on every validate: ours is kept, with a note,
    // beside theirs' real edit; a real edit of the same object on both sides still conflicts.
    let network_object = |hash: &str, scene_migration: &str| {
        format!("--- !u!114 &12\nMonoBehaviour:\n  m_GameObject: {{fileID: 10}}\n  GlobalObjectIdHash: {hash}\n  SceneMigrationSynchronization: {scene_migration}\n")
    };
    let with = |hash: &str, scene_migration: &str| {
        let g = go(10, "Player", 11).replace("  - component: {fileID: 11}\n", "  - component: {fileID: 11}\n  - component: {fileID: 12}\n");
        scene(&[g, tr(11, 10, 0, &[], "0"), network_object(hash, scene_migration)])
    };
    let base = with("951099334", "1");
    let r = merge(&base, &with("1898126669", "1"), &with("1926722854", "0"));
    assert_eq!(r.open_conflicts, 0, "{}", text(&r));
    assert_eq!(text(&r), with("1898126669", "0"));
    assert_eq!(r.conflicts.len(), 1, "the hash, settled");
    assert_eq!(r.conflicts[0].path, "MonoBehaviour.GlobalObjectIdHash");
    assert!(
        r.conflicts[0].resolved.as_ref().is_some_and(|(side, why)| *side == Side::Ours && why.contains("volatile")),
        "{:?}",
        r.conflicts
    );
    let r = merge(&base, &with("951099334", "0"), &with("951099334", "2"));
    assert_eq!(r.open_conflicts, 1);
}

#[test]
fn a_duplicate_file_id_does_not_hide_the_other_problems_of_a_scene() {
    // A second document under fileID 11 is refused, and the scene read on past it: the lamp's
    // transform under a father nobody defines is said too. The check stopped at the duplicate.
    let text = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), tr(11, 10, 0, &[], "5"), go(20, "Lamp", 21), tr(21, 20, 99, &[], "1")]);
    let problems: Vec<String> = check_text(&UnityCodec, text.as_bytes()).iter().map(|p| p.to_string()).collect();
    assert!(problems.iter().any(|p| p.contains("duplicate id fileID 11")), "{problems:#?}");
    assert!(problems.iter().any(|p| p.contains("21") && p.contains("99")), "the missing father: {problems:#?}");
}

#[test]
fn the_references_of_a_second_document_under_one_file_id_are_checked() {
    // The refused document is no object of the scene, yet Unity reads it: a father it names
    // that nobody defines is said. A line merge could break it unseen before.
    let text = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), tr(11, 10, 98, &[], "5")]);
    let problems: Vec<String> = check_text(&UnityCodec, text.as_bytes()).iter().map(|p| p.to_string()).collect();
    assert!(problems.iter().any(|p| p.contains("duplicate id fileID 11")), "{problems:#?}");
    assert!(problems.iter().any(|p| p.contains("98")), "the second document's missing father: {problems:#?}");
    let sound = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), tr(11, 10, 0, &[], "5")]);
    let problems = check_text(&UnityCodec, sound.as_bytes());
    assert_eq!(problems.len(), 1, "only the duplicate: {problems:#?}");
}

/// Merged as given and swapped, one conflict is left, and each side's view of it is a sound
/// scene equal to that side's version.
fn each_view_of_the_one_conflict_is_that_side(base: &str, ours: &str, theirs: &str) {
    for (o, t) in [(ours, theirs), (theirs, ours)] {
        let r = merge(base, o, t);
        assert_eq!(r.open_conflicts, 1, "{}", text(&r));
        for ((side, view), want) in sound_views(&r).into_iter().zip([o, t]) {
            assert_eq!(view, want, "{side}'s view");
        }
    }
}

/// A prefab instance `id` named `name` under `parent`, its stripped transform `stripped`, with
/// the objects `added` under it (listed in `m_AddedGameObjects`).
fn instance(id: i64, stripped: i64, parent: i64, name: &str, added: &[i64]) -> String {
    let added: String = added
        .iter()
        .map(|a| format!("\n    - targetCorrespondingSourceObject: {{fileID: 5001, guid: abc, type: 3}}\n      insertIndex: -1\n      addedObject: {{fileID: {a}}}"))
        .collect();
    let added = if added.is_empty() { " []".to_owned() } else { added };
    format!(
        "--- !u!1001 &{id}\nPrefabInstance:\n  m_ObjectHideFlags: 0\n  serializedVersion: 2\n  m_Modification:\n    m_TransformParent: {{fileID: {parent}}}\n    m_Modifications:\n    - target: {{fileID: 5000, guid: abc, type: 3}}\n      propertyPath: m_Name\n      value: {name}\n      objectReference: {{fileID: 0}}\n    m_RemovedComponents: []\n    m_AddedGameObjects:{added}\n  m_SourcePrefab: {{fileID: 100100000, guid: abc, type: 3}}\n--- !u!4 &{stripped} stripped\nTransform:\n  m_CorrespondingSourceObject: {{fileID: 5001, guid: abc, type: 3}}\n  m_PrefabInstance: {{fileID: {id}}}\n  m_PrefabAsset: {{fileID: 0}}\n"
    )
}

/// The lamp hung under `father`, as a game object and transform (listed as 41) or as a
/// placed prefab (listed by its stripped transform, 101).
type Lamp = fn(i64) -> Vec<String>;

fn lamp_object(father: i64) -> Vec<String> {
    vec![go(40, "Lamp", 41), tr(41, 40, father, &[], "3")]
}

fn lamp_placed(parent: i64) -> Vec<String> {
    vec![instance(100, 101, parent, "Lamp", &[])]
}

/// Ours moves the lamp under A, theirs under B: a conflict on where it hangs, and each
/// father's m_Children entry for it stands with its side, so either side taken gives a sound
/// scene.
fn both_sides_move_the_lamp_to_different_fathers(lamp: Lamp, listed: i64) {
    let layout = |a: &[i64], b: &[i64], root: &[i64], father: i64| {
        let mut parts = vec![
            go(10, "Root", 11),
            tr(11, 10, 0, root, "0"),
            go(20, "A", 21),
            tr(21, 20, 11, a, "1"),
            go(30, "B", 31),
            tr(31, 30, 11, b, "2"),
        ];
        parts.extend(lamp(father));
        scene(&parts)
    };
    let base = layout(&[], &[], &[21, 31, listed], 11);
    let ours = layout(&[listed], &[], &[21, 31], 21);
    let theirs = layout(&[], &[listed], &[21, 31], 31);
    each_view_of_the_one_conflict_is_that_side(&base, &ours, &theirs);
}

/// Root › A, Root › Lamp. Ours moves the lamp under A and edits A; theirs deletes A. In
/// theirs' view of the conflict on A, the lamp is under the root again and listed there: the
/// root's m_Children entry ours took out with the move comes back.
fn one_side_moves_the_lamp_under_a_game_object_the_other_deletes(lamp: Lamp, listed: i64) {
    let layout = |root: &[i64], a: &[i64], father: i64, a_x: &str| {
        let mut parts = vec![go(10, "Root", 11), tr(11, 10, 0, root, "0"), go(20, "A", 21), tr(21, 20, 11, a, a_x)];
        parts.extend(lamp(father));
        scene(&parts)
    };
    let base = layout(&[21, listed], &[], 11, "1");
    let ours = layout(&[21], &[listed], 21, "7");
    let mut theirs = vec![go(10, "Root", 11), tr(11, 10, 0, &[listed], "0")];
    theirs.extend(lamp(11));
    each_view_of_the_one_conflict_is_that_side(&base, &ours, &scene(&theirs));
}

/// Root › A › Lamp. Theirs moves the lamp under the root, then deletes A; ours edits A. In
/// ours' view of the conflict on A, A is as ours wrote it but for its m_Children entry for
/// the lamp, whose move stands: the lamp is listed by the root alone.
fn one_side_moves_the_lamp_out_of_a_game_object_it_then_deletes(lamp: Lamp, listed: i64) {
    let layout = |root: &[i64], a: &[i64], father: i64, a_x: &str| {
        let mut parts = vec![go(10, "Root", 11), tr(11, 10, 0, root, "0"), go(20, "A", 21), tr(21, 20, 11, a, a_x)];
        parts.extend(lamp(father));
        scene(&parts)
    };
    let base = layout(&[21], &[listed], 21, "1");
    let ours = layout(&[21], &[listed], 21, "7");
    let mut theirs = vec![go(10, "Root", 11), tr(11, 10, 0, &[listed], "0")];
    theirs.extend(lamp(11));
    let theirs = scene(&theirs);
    for (o, t, ours_edits) in [(&ours, &theirs, true), (&theirs, &ours, false)] {
        let r = merge(&base, o, t);
        assert_eq!(r.open_conflicts, 1, "{}", text(&r));
        for (side, view) in sound_views(&r) {
            if (side == Side::Ours) == ours_edits {
                assert!(view.contains(&tr(21, 20, 11, &[], "7")), "{side}'s view:\n{view}");
            } else {
                assert_eq!(view, theirs, "{side}'s view");
            }
        }
    }
}

#[test]
fn a_transform_moved_out_of_a_game_object_its_side_then_deleted_is_listed_only_where_it_went_in_the_keeping_view() {
    one_side_moves_the_lamp_out_of_a_game_object_it_then_deletes(lamp_object, 41);
}

#[test]
fn a_prefab_instance_moved_out_of_a_game_object_its_side_then_deleted_is_listed_only_where_it_went_in_the_keeping_view() {
    // The kept transform is written whole from ours; its entry for the lamp's stripped
    // transform stayed, as the stripped transform names no parent (the instance does), and
    // `resolve --take` refused the view.
    one_side_moves_the_lamp_out_of_a_game_object_it_then_deletes(lamp_placed, 101);
}

/// Root › Pot (a prefab instance) › Lamp, an object added under the instance. Theirs moves the
/// lamp under the root, then deletes the instance; ours renames the instance. In ours' view
/// of the conflict on it, the instance is as ours wrote it but for its `m_AddedGameObjects`
/// entry for the lamp, whose move stands: the lamp hangs on the root alone.
#[test]
fn an_object_added_under_a_prefab_instance_and_moved_out_before_its_deletion_is_no_longer_listed_by_the_kept_instance() {
    let base = scene(&[
        go(10, "Root", 11),
        tr(11, 10, 0, &[101], "0"),
        instance(100, 101, 11, "Pot", &[41]),
        go(40, "Lamp", 41),
        tr(41, 40, 101, &[], "3"),
    ]);
    let ours = scene(&[
        go(10, "Root", 11),
        tr(11, 10, 0, &[101], "0"),
        instance(100, 101, 11, "Pot2", &[41]),
        go(40, "Lamp", 41),
        tr(41, 40, 101, &[], "3"),
    ]);
    let theirs = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[41], "0"), go(40, "Lamp", 41), tr(41, 40, 11, &[], "3")]);
    for (o, t, ours_edits) in [(&ours, &theirs, true), (&theirs, &ours, false)] {
        let r = merge(&base, o, t);
        assert_eq!(r.open_conflicts, 1, "{}", text(&r));
        for (side, view) in sound_views(&r) {
            if (side == Side::Ours) == ours_edits {
                assert!(view.contains("value: Pot2") && view.contains(&tr(41, 40, 11, &[], "3")), "{side}'s view:\n{view}");
                assert!(view.contains("m_AddedGameObjects: []") && !view.contains("addedObject"), "{side}'s view:\n{view}");
            } else {
                assert_eq!(&view, &theirs, "{side}'s view");
            }
        }
    }
}

#[test]
fn a_transform_both_sides_moved_to_different_fathers_is_listed_only_by_its_sides_father_in_each_view() {
    both_sides_move_the_lamp_to_different_fathers(lamp_object, 41);
}

#[test]
fn a_transform_moved_under_a_game_object_the_other_side_deleted_is_back_under_its_father_in_the_deleting_view() {
    // The lamp's m_Father went back alone before, and the view was refused.
    one_side_moves_the_lamp_under_a_game_object_the_other_deletes(lamp_object, 41);
}

#[test]
fn a_prefab_instance_both_sides_moved_to_different_fathers_is_listed_only_by_its_sides_father_in_each_view() {
    // The conflict is on its m_TransformParent; the fathers list it by its stripped transform
    // (both entries stood before, and a view listed the lamp under two fathers).
    both_sides_move_the_lamp_to_different_fathers(lamp_placed, 101);
}

#[test]
fn a_prefab_instance_moved_under_a_game_object_the_other_side_deleted_is_back_under_its_father_in_the_deleting_view() {
    // The entry ours took out with the move stayed out before, and the view was refused.
    one_side_moves_the_lamp_under_a_game_object_the_other_deletes(lamp_placed, 101);
}

#[test]
fn an_object_added_under_a_prefab_instance_that_one_side_deleted_and_the_other_edited_is_listed_by_the_instance_in_the_editing_view() {
    // The bulb hangs under the placed lamp, listed in its m_AddedGameObjects. Ours deletes the
    // bulb, theirs moves it: theirs' view keeps the bulb and the instance's entry for it (keyed
    // by `fileID:`, the entry was not seen to name the bulb, and stayed deleted).
    let with_bulb = |x: &str| {
        scene(&[
            go(10, "Root", 11),
            tr(11, 10, 0, &[101], "0"),
            instance(100, 101, 11, "Lamp", &[21]),
            go(20, "Bulb", 21),
            tr(21, 20, 101, &[], x),
        ])
    };
    let base = with_bulb("0");
    let ours = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[101], "0"), instance(100, 101, 11, "Lamp", &[])]);
    each_view_of_the_one_conflict_is_that_side(&base, &ours, &with_bulb("4"));
}

#[test]
fn a_prefab_instance_deleted_and_another_of_its_prefab_placed_elsewhere_are_two_objects() {
    // Ours deletes the lamp under A and places the same prefab under B, named otherwise; theirs
    // renames the lamp. The new instance was taken for the old one re-created (its text is
    // mostly alike), and theirs' rename followed it under B: a conflict now.
    let layout = |a: &[i64], b: &[i64], placed: &[String]| {
        let mut parts = vec![
            go(10, "Root", 11),
            tr(11, 10, 0, &[21, 31], "0"),
            go(20, "A", 21),
            tr(21, 20, 11, a, "1"),
            go(30, "B", 31),
            tr(31, 30, 11, b, "2"),
        ];
        parts.extend_from_slice(placed);
        scene(&parts)
    };
    let base = layout(&[101], &[], &[instance(100, 101, 21, "Lamp", &[])]);
    let ours = layout(&[], &[201], &[instance(200, 201, 31, "Spotlight", &[])]);
    let theirs = layout(&[101], &[], &[instance(100, 101, 21, "Lantern", &[])]);
    let r = merge(&base, &ours, &theirs);
    assert!(r.notes.iter().all(|n| !n.contains("re-created")), "{:?}", r.notes);
    assert_eq!(r.open_conflicts, 1, "{}", text(&r));
    assert_eq!(r.conflicts[0].object, "100");
}

#[test]
fn a_prefab_instance_its_parent_does_not_list_is_reported() {
    // The placed lamp hangs under the root by its m_TransformParent; the root must list its
    // stripped transform, and no other transform may.
    let unlisted = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), instance(100, 101, 11, "Lamp", &[])]);
    let problems: Vec<String> = check_text(&UnityCodec, unlisted.as_bytes()).iter().map(|p| p.to_string()).collect();
    assert!(problems.iter().any(|p| p.contains("m_TransformParent is 11, which does not list its transform 101")), "{problems:#?}");
    let elsewhere = scene(&[
        go(10, "Root", 11),
        tr(11, 10, 0, &[21, 101], "0"),
        go(20, "A", 21),
        tr(21, 20, 11, &[101], "1"),
        instance(100, 101, 11, "Lamp", &[]),
    ]);
    let problems: Vec<String> = check_text(&UnityCodec, elsewhere.as_bytes()).iter().map(|p| p.to_string()).collect();
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(problems[0].contains("lists child 101, whose prefab instance 100 hangs under another object"), "{problems:#?}");
    let sound = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[101], "0"), instance(100, 101, 11, "Lamp", &[])]);
    assert!(check_text(&UnityCodec, sound.as_bytes()).is_empty());
}

#[test]
fn a_prefab_override_one_side_pointed_at_a_game_object_the_other_side_deleted_goes_with_it_in_the_deleting_view() {
    // Ours adds an override pointing the placed lamp's script at the switch; theirs deletes the
    // switch. In theirs' view the override is not added (it stayed, naming nothing, and the
    // view was refused).
    let placed = |pointed: bool| {
        let lamp = instance(100, 101, 11, "Lamp", &[]);
        if !pointed {
            return lamp;
        }
        let override_item = "    - target: {fileID: 11400, guid: abc, type: 3}\n      propertyPath: target\n      value: \n      objectReference: {fileID: 20}\n";
        lamp.replace("    m_RemovedComponents: []\n", &format!("{override_item}    m_RemovedComponents: []\n"))
    };
    let with_switch = |pointed: bool| {
        scene(&[go(10, "Root", 11), tr(11, 10, 0, &[21, 101], "0"), go(20, "Switch", 21), tr(21, 20, 11, &[], "1"), placed(pointed)])
    };
    let without_switch = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[101], "0"), placed(false)]);
    each_view_of_the_one_conflict_is_that_side(&with_switch(false), &with_switch(true), &without_switch);
}

#[test]
fn a_prefab_instance_re_placed_under_its_parent_is_re_created_only_under_its_name_or_a_duplicates() {
    // Ours deletes the lamp and places the prefab again under the same parent; theirs moves
    // the lamp (an override). Named `Lamp (2)`, as Unity names a duplicate, it is the lamp
    // re-created and takes theirs' move; named otherwise, it is another object, and theirs'
    // edit meets the deletion (taken for the lamp before, whatever its name).
    let moved = |lamp: String| {
        lamp.replace("    m_RemovedComponents: []\n", "    - target: {fileID: 5001, guid: abc, type: 3}\n      propertyPath: m_LocalPosition.x\n      value: 4\n      objectReference: {fileID: 0}\n    m_RemovedComponents: []\n")
    };
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[101], "0"), instance(100, 101, 11, "Lamp (1)", &[])]);
    let theirs = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[101], "0"), moved(instance(100, 101, 11, "Lamp (1)", &[]))]);
    for (name, re_created) in [("Lamp (2)", true), ("Spotlight", false)] {
        let ours = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[201], "0"), instance(200, 201, 11, name, &[])]);
        let r = merge(&base, &ours, &theirs);
        assert_eq!(r.notes.iter().any(|n| n.contains("re-created 2 object(s)")), re_created, "{name}: {:?}", r.notes);
        if re_created {
            assert_eq!(r.open_conflicts, 0, "{}", text(&r));
            assert_eq!(text(&r), scene(&[go(10, "Root", 11), tr(11, 10, 0, &[201], "0"), moved(instance(200, 201, 11, name, &[]))]));
        } else {
            assert_eq!(r.open_conflicts, 1, "{}", text(&r));
            assert_eq!(r.conflicts[0].object, "100");
        }
    }
}

#[test]
fn a_transform_one_side_moved_to_the_top_level_and_the_other_under_another_father_is_listed_once_in_each_view() {
    // Unity 2022.2+ lists the top level in SceneRoots. Ours takes the lamp out of Root to the
    // top level, theirs moves it under A: a conflict on its m_Father, and SceneRoots' entry
    // for it stands with ours (it stood in theirs' view too, the lamp listed twice).
    let layout = |root_kids: &[i64], a_kids: &[i64], lamp_father: i64, top: &[i64]| {
        scene(&[
            go(10, "Root", 11),
            tr(11, 10, 0, root_kids, "0"),
            go(20, "A", 21),
            tr(21, 20, 0, a_kids, "1"),
            go(40, "Lamp", 41),
            tr(41, 40, lamp_father, &[], "3"),
            scene_roots(top),
        ])
    };
    let base = layout(&[41], &[], 11, &[11, 21]);
    let ours = layout(&[], &[], 0, &[11, 21, 41]);
    let theirs = layout(&[], &[41], 21, &[11, 21]);
    each_view_of_the_one_conflict_is_that_side(&base, &ours, &theirs);
}

#[test]
fn scene_roots_that_disagree_with_the_top_level_are_reported() {
    // SceneRoots must list each transform under no father once, and no other.
    let with_roots =
        |top: &[i64]| scene(&[go(10, "Root", 11), tr(11, 10, 0, &[21], "0"), go(20, "A", 21), tr(21, 20, 11, &[], "1"), scene_roots(top)]);
    let problems = |text: String| check_text(&UnityCodec, text.as_bytes()).iter().map(|p| p.to_string()).collect::<Vec<String>>();
    assert!(problems(with_roots(&[11])).is_empty());
    let missing = problems(with_roots(&[]));
    assert!(missing.len() == 1 && missing[0].contains("11") && missing[0].contains("not listed in SceneRoots"), "{missing:#?}");
    let extra = problems(with_roots(&[11, 21]));
    assert!(extra.len() == 1 && extra[0].contains("lists root 21, which hangs under another object"), "{extra:#?}");
    let twice = problems(with_roots(&[11, 11]));
    assert!(twice.len() == 1 && twice[0].contains("lists root 11 twice"), "{twice:#?}");
}

#[test]
fn moves_that_make_a_cycle_together_are_broken_alike_either_way_with_the_child_lists() {
    // Ours moves A (a top-level transform) under B, theirs moves B under A: each sound alone,
    // together a cycle. The move of the smaller fileID (A's) is dropped whichever side made
    // it: A stays at the top level, listed by SceneRoots, and B's m_Children do not list it.
    // The father's lists did not follow, and the merge was refused and made by lines.
    let layout = |root_kids: &[i64], a_kids: &[i64], a_father: i64, b_kids: &[i64], b_father: i64, top: &[i64]| {
        scene(&[
            go(10, "Root", 11),
            tr(11, 10, 0, root_kids, "0"),
            go(20, "A", 21),
            tr(21, 20, a_father, a_kids, "1"),
            go(30, "B", 31),
            tr(31, 30, b_father, b_kids, "0"),
            scene_roots(top),
        ])
    };
    let base = layout(&[31], &[], 0, &[], 11, &[11, 21]);
    let ours = layout(&[31], &[], 31, &[21], 11, &[11]);
    let theirs = layout(&[], &[31], 0, &[], 21, &[11, 21]);
    for (o, t, mover) in [(&ours, &theirs, "ours"), (&theirs, &ours, "theirs")] {
        let r = merge(&base, o, t);
        assert_eq!(r.open_conflicts, 0, "{}", text(&r));
        assert!(r.notes.iter().any(|n| n.contains("parent cycle broken") && n.contains(&format!("{mover} moved it"))), "{:?}", r.notes);
        assert_eq!(text(&r), theirs);
        assert!(check_text(&UnityCodec, text(&r).as_bytes()).is_empty());
    }
}

#[test]
fn an_object_moved_to_the_top_level_out_of_a_subtree_its_side_then_deleted_stays_there_in_every_view() {
    // Light › Spawner, Light › Wall. Ours moves Spawner to the top level (SceneRoots lists
    // it), then deletes Light with Wall; theirs edits Wall: a conflict on Wall. Spawner's
    // m_Father, which ours cleared, is a move and stands in theirs' view too, which keeps
    // Light (it named Light there again, which SceneRoots contradicted: the view was refused).
    let spawner = |father: i64| [go(30, "Spawner", 31), tr(31, 30, father, &[], "1")];
    let light =
        |kids: &[i64], wall_x: &str| [go(20, "Light", 21), tr(21, 20, 0, kids, "0"), go(40, "Wall", 41), tr(41, 40, 21, &[], wall_x)];
    let base = scene(&[light(&[31, 41], "2").as_slice(), &spawner(21), &[scene_roots(&[21])]].concat());
    let ours = scene(&[spawner(0).as_slice(), &[scene_roots(&[31])]].concat());
    let theirs = scene(&[light(&[31, 41], "5").as_slice(), &spawner(21), &[scene_roots(&[21])]].concat());
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t);
        assert!(r.open_conflicts > 0, "{}", text(&r));
        for (side, view) in sound_views(&r) {
            assert!(view.contains(&tr(31, 30, 0, &[], "1")), "{side}'s view:\n{view}");
        }
    }
}

#[test]
fn a_cycle_broken_on_a_move_that_emptied_the_old_fathers_list_lists_the_object_there_again() {
    // Root › A, and B at the top level. Ours moves B under A; theirs moves A under B, which
    // leaves Root's m_Children empty (`[]`). A's move (the smaller fileID) is dropped: Root
    // lists A again. The emptied list was no keyed list to put A back into, and the merge
    // was refused and made by lines.
    let layout = |root_kids: &[i64], a: (i64, &[i64]), b: (i64, &[i64])| {
        scene(&[
            go(10, "Root", 11),
            tr(11, 10, 0, root_kids, "0"),
            go(20, "A", 21),
            tr(21, 20, a.0, a.1, "1"),
            go(30, "B", 31),
            tr(31, 30, b.0, b.1, "2"),
        ])
    };
    let base = layout(&[21], (11, &[]), (0, &[]));
    let ours = layout(&[21], (11, &[31]), (21, &[]));
    let theirs = layout(&[], (31, &[]), (0, &[21]));
    for (o, t, mover) in [(&ours, &theirs, "theirs"), (&theirs, &ours, "ours")] {
        let r = merge(&base, o, t);
        assert_eq!(r.open_conflicts, 0, "{}", text(&r));
        assert!(r.notes.iter().any(|n| n.contains("parent cycle broken") && n.contains(&format!("{mover} moved it"))), "{:?}", r.notes);
        assert_eq!(text(&r), ours);
    }
}

#[test]
fn a_cycle_through_an_object_one_side_deleted_is_broken_in_the_view_keeping_it_with_the_child_lists() {
    // Cube › Light, Cube › A › S. Ours moves A under Light and deletes S; theirs moves Light
    // under S: a conflict on S, and in theirs' view, which keeps S, a cycle (A, Light, S).
    // Light's move (the smaller fileID) is dropped. Cube's entry for Light stood with S's
    // deletion (theirs took it out for the move under S), so theirs' view hung Light on Cube
    // without Cube listing it, and `resolve --take theirs` refused the view.
    let layout = |cube_kids: &[i64], light: (i64, &[i64]), a: (i64, &[i64]), s: Option<(i64, &[i64])>| {
        let mut parts = vec![go(10, "Cube", 11), tr(11, 10, 0, cube_kids, "0"), go(20, "Light", 21), tr(21, 20, light.0, light.1, "1")];
        parts.extend([go(30, "A", 31), tr(31, 30, a.0, a.1, "2")]);
        if let Some((father, kids)) = s {
            parts.extend([go(40, "S", 41), tr(41, 40, father, kids, "3")]);
        }
        scene(&parts)
    };
    let base = layout(&[31, 21], (11, &[]), (11, &[41]), Some((31, &[])));
    let ours = layout(&[21], (11, &[31]), (21, &[]), None);
    let theirs = layout(&[31], (41, &[]), (11, &[41]), Some((31, &[21])));
    for (o, t, ours_keeps) in [(&ours, &theirs, false), (&theirs, &ours, true)] {
        let r = merge(&base, o, t);
        assert_eq!(r.open_conflicts, 1, "{}", text(&r));
        assert!(r.notes.iter().any(|n| n.contains("parent cycle broken")), "{:?}", r.notes);
        for (side, view) in sound_views(&r) {
            let keeps_s = (side == Side::Ours) == ours_keeps;
            let want = layout(&[21], (11, &[31]), (21, &[41][..usize::from(keeps_s)]), keeps_s.then_some((31, &[])));
            assert_eq!(view, want, "{side}'s view");
        }
    }
}

#[test]
fn the_last_top_level_object_one_side_deleted_and_the_other_edited_is_listed_in_scene_roots_in_the_keeping_view() {
    // Ours deletes Root, the scene's only top-level object (SceneRoots' list left empty,
    // `m_Roots: []`); theirs renames it. In theirs' view Root is back, and so is its
    // SceneRoots entry (the emptied list was taken whole, and the view was refused).
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[21], "0"), go(20, "A", 21), tr(21, 20, 11, &[], "1"), scene_roots(&[11])]);
    let ours = scene(&[scene_roots(&[])]);
    let theirs = base.replace("m_Name: Root", "m_Name: Main");
    each_view_of_the_one_conflict_is_that_side(&base, &ours, &theirs);
}

#[test]
fn the_last_child_one_side_deleted_and_the_other_edited_is_listed_by_its_father_in_the_keeping_view() {
    // Ours deletes A, Root's only child (`m_Children: []`); theirs renames A.
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[21], "0"), go(20, "A", 21), tr(21, 20, 11, &[], "1")]);
    let ours = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")]);
    let theirs = base.replace("m_Name: A", "m_Name: B");
    each_view_of_the_one_conflict_is_that_side(&base, &ours, &theirs);
}

#[test]
fn an_object_both_sides_added_under_one_id_in_different_places_is_listed_once_in_each_view() {
    // Both sides added the lamp under one fileID (a prefab numbered by class before Unity
    // 2018.3): ours at the top level, theirs under A. Its m_Father is the conflict, and each
    // list naming it stands with its side: SceneRoots' entry stood in theirs' view too.
    let layout = |a_kids: &[i64], lamp: Option<i64>, top: &[i64]| {
        let mut parts = vec![go(10, "Root", 11), tr(11, 10, 0, &[], "0"), go(20, "A", 21), tr(21, 20, 0, a_kids, "1")];
        if let Some(father) = lamp {
            parts.extend(lamp_object(father));
        }
        parts.push(scene_roots(top));
        scene(&parts)
    };
    let base = layout(&[], None, &[11, 21]);
    let ours = layout(&[], Some(0), &[11, 21, 41]);
    let theirs = layout(&[41], Some(21), &[11, 21]);
    each_view_of_the_one_conflict_is_that_side(&base, &ours, &theirs);
}

#[test]
fn a_transform_moved_under_one_sides_version_of_an_object_both_added_stays_where_the_other_side_has_it() {
    // Both sides added a lamp under one fileID: ours at the top level, theirs under B, which
    // ours deleted and theirs edited. Theirs also moved Wall under its lamp. The lamp goes with
    // B's conflict, each view taking its side's lamp; Wall's new father stood with the lamp's
    // life, so ours' view put Wall under ours' lamp, which does not list it.
    let wall_under = |father: i64| vec![go(50, "Wall", 51), tr(51, 50, father, &[], "5")];
    let base = scene(
        &[
            &[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), go(30, "B", 31), tr(31, 30, 0, &[], "1")][..],
            &wall_under(0),
            &[scene_roots(&[11, 31, 51])],
        ]
        .concat(),
    );
    let ours = scene(
        &[&[go(10, "Root", 11), tr(11, 10, 0, &[], "0")][..], &lamp_object(0), &wall_under(0), &[scene_roots(&[11, 51, 41])]].concat(),
    );
    let theirs_lamp = [go(40, "Lamp", 41), tr(41, 40, 31, &[51], "4")];
    let theirs = scene(
        &[
            &[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), go(30, "B", 31), tr(31, 30, 0, &[41], "2")][..],
            &theirs_lamp,
            &wall_under(41),
            &[scene_roots(&[11, 31])],
        ]
        .concat(),
    );
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t);
        assert!(r.open_conflicts > 0, "{}", text(&r));
        for ((side, view), want) in sound_views(&r).into_iter().zip([o, t]) {
            assert_eq!(&view, want, "{side}'s view");
        }
    }
}

#[test]
fn an_object_both_sides_added_under_one_id_that_follows_a_deletion_is_listed_only_where_its_side_put_it() {
    // Ours added the lamp under B and edited B; theirs deleted B and added the lamp, under
    // the same fileID, at the top level. The lamp goes with B's conflict, each view taking its
    // side's lamp; SceneRoots' entry for it, theirs' alone, stood in ours' view too, where
    // the lamp hangs under B.
    let layout = |b: Option<(&[i64], &str)>, lamp: i64, top: &[i64]| {
        let mut parts = vec![go(10, "Root", 11), tr(11, 10, 0, &[], "0")];
        if let Some((kids, x)) = b {
            parts.extend([go(30, "B", 31), tr(31, 30, 0, kids, x)]);
        }
        parts.extend(lamp_object(lamp));
        parts.push(scene_roots(top));
        scene(&parts)
    };
    let base = scene(&[go(10, "Root", 11), tr(11, 10, 0, &[], "0"), go(30, "B", 31), tr(31, 30, 0, &[], "1"), scene_roots(&[11, 31])]);
    let ours = layout(Some((&[41], "2")), 31, &[11, 31]);
    let theirs = layout(None, 0, &[11, 41]);
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t);
        assert!(r.open_conflicts > 0, "{}", text(&r));
        for ((side, view), want) in sound_views(&r).into_iter().zip([o, t]) {
            assert_eq!(&view, want, "{side}'s view");
        }
    }
}
