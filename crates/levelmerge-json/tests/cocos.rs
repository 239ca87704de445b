//! Cocos Creator scenes, whose references are array positions: merges that insert and delete
//! elements on both sides keep every reference on the element it meant.

use levelmerge_core::diff::Edit;
use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{merge_texts, MergeOutcome, Options, Sides};
use levelmerge_json::JsonCodec;
use serde_json::Value;

/// A node of a scene to build: name, `_id`, children, and components (type, a `_string`).
struct Node {
    name: &'static str,
    id: &'static str,
    children: Vec<Node>,
    components: Vec<(&'static str, &'static str)>,
}

fn node(name: &'static str, id: &'static str, children: Vec<Node>, components: Vec<(&'static str, &'static str)>) -> Node {
    Node { name, id, children, components }
}

/// A scene laid out as Cocos Creator 2.x writes one: the asset, the scene, then each node
/// followed by its children and its components, indented by two spaces.
fn scene(nodes: &[Node]) -> String {
    fn count(n: &Node) -> usize {
        1 + n.components.len() + n.children.iter().map(count).sum::<usize>()
    }
    fn emit(n: &Node, at: usize, parent: usize, out: &mut Vec<String>) {
        let mut child_at = at + 1;
        let mut child_positions = Vec::new();
        for c in &n.children {
            child_positions.push(child_at);
            child_at += count(c);
        }
        let component_positions: Vec<usize> = (0..n.components.len()).map(|i| child_at + i).collect();
        let refs = |ps: &[usize]| ps.iter().map(|p| format!("\n      {{\n        \"__id__\": {p}\n      }}")).collect::<Vec<_>>().join(",");
        let list = |ps: &[usize]| if ps.is_empty() { "[]".to_owned() } else { format!("[{}\n    ]", refs(ps)) };
        out.push(format!(
            "  {{\n    \"__type__\": \"cc.Node\",\n    \"_name\": \"{}\",\n    \"_parent\": {{\n      \"__id__\": {parent}\n    }},\n    \"_children\": {},\n    \"_components\": {},\n    \"_id\": \"{}\"\n  }}",
            n.name,
            list(&child_positions),
            list(&component_positions),
            n.id
        ));
        for (c, &p) in n.children.iter().zip(&child_positions) {
            emit(c, p, at, out);
        }
        for (kind, text) in &n.components {
            out.push(format!(
                "  {{\n    \"__type__\": \"{kind}\",\n    \"node\": {{\n      \"__id__\": {at}\n    }},\n    \"_string\": \"{text}\"\n  }}"
            ));
        }
    }
    let mut out = vec!["  {\n    \"__type__\": \"cc.SceneAsset\",\n    \"scene\": {\n      \"__id__\": 1\n    }\n  }".to_owned()];
    let mut positions = Vec::new();
    let mut at = 2;
    for n in nodes {
        positions.push(at);
        at += count(n);
    }
    let children = positions.iter().map(|p| format!("\n      {{\n        \"__id__\": {p}\n      }}")).collect::<Vec<_>>().join(",");
    out.push(format!("  {{\n    \"__type__\": \"cc.Scene\",\n    \"_children\": [{children}\n    ],\n    \"_id\": \"scene\"\n  }}"));
    for (n, &p) in nodes.iter().zip(&positions) {
        emit(n, p, 1, &mut out);
    }
    format!("[\n{}\n]\n", out.join(",\n"))
}

fn merge(b: &str, o: &str, t: &str) -> MergeOutcome {
    let codec = JsonCodec::default();
    merge_texts(&codec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &MarkerStyle::default())
        .expect("the merge runs")
}

/// Every reference of a merged scene points inside it, and parents and children agree.
/// Returns the scene as `(node name, parent name, child names, component strings)`, sorted.
fn structure(text: &str) -> Vec<(String, String, Vec<String>, Vec<String>)> {
    let array: Vec<Value> = serde_json::from_str(text).expect("the merged scene is JSON");
    let at = |r: &Value| -> &Value {
        let p = r["__id__"].as_u64().expect("a reference is a position") as usize;
        array.get(p).expect("a reference points inside the array")
    };
    let name = |v: &Value| v["_name"].as_str().unwrap_or("").to_owned();
    let mut nodes = Vec::new();
    for (i, e) in array.iter().enumerate() {
        if e["__type__"] != "cc.Node" {
            continue;
        }
        let parent = at(&e["_parent"]);
        let children: Vec<String> = e["_children"].as_array().unwrap().iter().map(|c| name(at(c))).collect();
        for c in e["_children"].as_array().unwrap() {
            assert_eq!(c["__id__"].as_u64(), array.iter().position(|x| x == at(c)).map(|p| p as u64));
            assert_eq!(at(c)["_parent"]["__id__"].as_u64(), Some(i as u64), "a child's parent is the node listing it");
        }
        let components: Vec<String> = e["_components"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                assert_eq!(at(c)["node"]["__id__"].as_u64(), Some(i as u64), "a component's node is the node listing it");
                at(c)["_string"].as_str().unwrap().to_owned()
            })
            .collect();
        nodes.push((name(e), name(parent), children, components));
    }
    nodes.sort();
    nodes
}

fn base() -> String {
    scene(&[node("Canvas", "c1", vec![node("Title", "t1", vec![], vec![("cc.Label", "hello")])], vec![("cc.Canvas", "")])])
}

/// Base with a node inserted before the canvas: every later position moves.
fn intro_first() -> String {
    scene(&[
        node("Intro", "i1", vec![], vec![("cc.Label", "intro")]),
        node("Canvas", "c1", vec![node("Title", "t1", vec![], vec![("cc.Label", "hello")])], vec![("cc.Canvas", "")]),
    ])
}

#[test]
fn both_sides_add_nodes_under_one_parent() {
    let ours = scene(&[node(
        "Canvas",
        "c1",
        vec![node("Title", "t1", vec![], vec![("cc.Label", "hello")]), node("Ok", "o1", vec![], vec![("cc.Button", "ok")])],
        vec![("cc.Canvas", "")],
    )]);
    let theirs = scene(&[node(
        "Canvas",
        "c1",
        vec![node("Back", "b1", vec![], vec![("cc.Sprite", "back")]), node("Title", "t1", vec![], vec![("cc.Label", "hello")])],
        vec![("cc.Canvas", "")],
    )]);
    let merged = merge(&base(), &ours, &theirs);
    assert_eq!(merged.open_conflicts, 0);
    let text = String::from_utf8(merged.text).unwrap();
    assert!(!text.contains("__lmid"), "the identity form never reaches the file");
    let s = structure(&text);
    let canvas = s.iter().find(|n| n.0 == "Canvas").unwrap();
    assert_eq!(canvas.2, ["Back", "Title", "Ok"]);
    assert_eq!(s.iter().find(|n| n.0 == "Ok").unwrap().3, ["ok"]);
    assert_eq!(s.iter().find(|n| n.0 == "Back").unwrap().3, ["back"]);
    assert_eq!(s.iter().find(|n| n.0 == "Title").unwrap().3, ["hello"]);
}

#[test]
fn an_edit_lands_on_its_component_when_the_other_side_renumbers() {
    let ours = intro_first();
    let theirs = base().replace("\"hello\"", "\"welcome\"");
    let merged = merge(&base(), &ours, &theirs);
    assert_eq!(merged.open_conflicts, 0);
    let text = String::from_utf8(merged.text).unwrap();
    assert_eq!(text, ours.replace("\"hello\"", "\"welcome\""));
    structure(&text);
}

#[test]
fn deleting_a_node_whose_component_the_other_side_edited_conflicts() {
    let ours = scene(&[node("Canvas", "c1", vec![], vec![("cc.Canvas", "")])]);
    let theirs = base().replace("\"hello\"", "\"welcome\"");
    let merged = merge(&base(), &ours, &theirs);
    assert!(merged.open_conflicts > 0, "a delete/modify conflict, not a silent loss");
    assert!(merged.conflicts.iter().any(|c| c.kind == "delete-modify"), "{:?}", merged.conflicts);
}

#[test]
fn a_conflict_that_shifts_positions_is_marked_as_one_region_either_side_of_which_is_sound() {
    // Ours deletes Title (before Ok, so every later position moves); theirs edits its label.
    let two = |title_label: &'static str| {
        scene(&[node(
            "Canvas",
            "c1",
            vec![node("Title", "t1", vec![], vec![("cc.Label", title_label)]), node("Ok", "o1", vec![], vec![("cc.Button", "ok")])],
            vec![("cc.Canvas", "")],
        )])
    };
    let ours = scene(&[node("Canvas", "c1", vec![node("Ok", "o1", vec![], vec![("cc.Button", "ok")])], vec![("cc.Canvas", "")])]);
    let merged = merge(&two("hello"), &ours, &two("welcome"));
    assert!(merged.open_conflicts > 0);
    // Stretch by stretch, every reference after Title would be a region, and taking ours in
    // one and theirs in another would point references at the wrong elements.
    assert_eq!(merged.marked_regions, 1);
    let text = String::from_utf8(merged.text).unwrap();
    assert_eq!(structure(&levelmerge_testutils::laws::side_view(&text, levelmerge_core::Side::Ours)), structure(&ours));
    assert_eq!(structure(&levelmerge_testutils::laws::side_view(&text, levelmerge_core::Side::Theirs)), structure(&two("welcome")));
}

#[test]
fn value_conflicts_that_shift_nothing_are_marked_one_by_one() {
    let edited =
        |title: &str, ok: &str| base_with_ok().replace("\"hello\"", &format!("\"{title}\"")).replace("\"ok\"", &format!("\"{ok}\""));
    let merged = merge(&base_with_ok(), &edited("ours hello", "ours ok"), &edited("their hello", "their ok"));
    assert_eq!(merged.open_conflicts, 2);
    assert_eq!(merged.marked_regions, 2, "{}", String::from_utf8_lossy(&merged.text));
}

/// Base with a second node, Ok, after Title.
fn base_with_ok() -> String {
    scene(&[node(
        "Canvas",
        "c1",
        vec![node("Title", "t1", vec![], vec![("cc.Label", "hello")]), node("Ok", "o1", vec![], vec![("cc.Button", "ok")])],
        vec![("cc.Canvas", "")],
    )])
}

#[test]
fn one_sided_changes_come_back_byte_for_byte() {
    let changed =
        scene(&[node("Intro", "i1", vec![], vec![("cc.Label", "intro")]), node("Canvas", "c1", vec![], vec![("cc.Canvas", "x")])]);
    let b = base();
    for (o, t, want) in [(&changed, &b, &changed), (&b, &changed, &changed), (&changed, &changed, &changed)] {
        let merged = merge(&b, o, t);
        assert_eq!(merged.open_conflicts, 0);
        assert_eq!(String::from_utf8(merged.text).unwrap(), **want);
    }
}

#[test]
fn a_reference_to_a_node_the_other_side_deleted_is_never_written() {
    // Ours adds a component to Title; theirs deletes Title with its label: a conflict, and the
    // marked file is written in positions, never in the identity form.
    let ours = scene(&[node(
        "Canvas",
        "c1",
        vec![node("Title", "t1", vec![], vec![("cc.Label", "hello"), ("cc.Widget", "")])],
        vec![("cc.Canvas", "")],
    )]);
    let theirs = scene(&[node("Canvas", "c1", vec![], vec![("cc.Canvas", "")])]);
    let merged = merge(&base(), &ours, &theirs);
    assert!(merged.open_conflicts > 0);
    let text = String::from_utf8(merged.text).unwrap();
    assert!(!text.contains("__lmid"), "{text}");
}

#[test]
fn the_editors_zoom_on_the_scene_is_not_a_conflict() {
    let with_scale =
        |x: &str| base().replace("\"_id\": \"scene\"", &format!("\"_scale\": {{ \"x\": {x}, \"y\": {x} }},\n    \"_id\": \"scene\""));
    let b = with_scale("0.75");
    let ours = with_scale("0.652").replace("\"hello\"", "\"welcome\"");
    let theirs = with_scale("0.6734");
    let merged = merge(&b, &ours, &theirs);
    assert_eq!(merged.open_conflicts, 0);
    assert_eq!(String::from_utf8(merged.text).unwrap(), ours);
    // A node's own scale is content: both sides changing it differently conflict.
    let node_scale = |x: &str| b.replace("\"_name\": \"Title\",", &format!("\"_name\": \"Title\",\n    \"_scale\": {x},"));
    assert!(merge(&node_scale("1"), &node_scale("2"), &node_scale("3")).open_conflicts > 0);
}

/// A node `Title` holding `components`, all of one type, under the canvas.
fn labels(components: &[&'static str]) -> String {
    let components = components.iter().map(|c| ("cc.Label", *c)).collect();
    scene(&[node("Canvas", "c1", vec![node("Title", "t1", vec![], components)], vec![("cc.Canvas", "")])])
}

/// The strings of `Title`'s components in a merged scene.
fn title_labels(text: &str) -> Vec<String> {
    structure(text).into_iter().find(|n| n.0 == "Title").expect("Title is kept").3
}

#[test]
fn an_edit_stays_on_its_component_when_the_other_side_removes_one_of_the_same_type_before_it() {
    // Nothing names the three labels but their type and order: ours' removal of the first must
    // not move theirs' edit of the second onto the third.
    let merged = merge(&labels(&["a", "b", "c"]), &labels(&["b", "c"]), &labels(&["a", "B", "c"]));
    assert_eq!(merged.open_conflicts, 0);
    assert_eq!(title_labels(&String::from_utf8(merged.text).unwrap()), ["B", "c"]);
    // Removing the one the other side edited is a clash.
    assert!(merge(&labels(&["a", "b", "c"]), &labels(&["a", "c"]), &labels(&["a", "B", "c"])).open_conflicts > 0);
}

#[test]
fn components_of_one_type_both_sides_add_are_all_kept() {
    let merged = merge(&labels(&["a"]), &labels(&["a", "b"]), &labels(&["a", "c"]));
    assert_eq!(merged.open_conflicts, 0);
    assert_eq!(title_labels(&String::from_utf8(merged.text).unwrap()), ["a", "b", "c"]);
    // The same component added on both sides is kept once.
    let merged = merge(&labels(&["a"]), &labels(&["a", "b"]), &labels(&["a", "b"]));
    assert_eq!(title_labels(&String::from_utf8(merged.text).unwrap()), ["a", "b"]);
}

#[test]
fn same_named_children_without_ids_are_told_apart_by_their_content() {
    // A prefab's nodes carry an empty `_id`.
    let items = |texts: &[&'static str]| {
        let children = texts.iter().map(|t| node("Item", "", vec![], vec![("cc.Label", *t)])).collect();
        scene(&[node("Canvas", "c1", children, vec![("cc.Canvas", "")])])
    };
    let merged = merge(&items(&["x", "y", "z"]), &items(&["y", "z"]), &items(&["x", "Y", "z"]));
    assert_eq!(merged.open_conflicts, 0);
    let text = String::from_utf8(merged.text).unwrap();
    let texts: Vec<Vec<String>> = structure(&text).into_iter().filter(|n| n.0 == "Item").map(|n| n.3).collect();
    assert_eq!(texts, [["Y"], ["z"]]);
}

/// A Cocos Creator 3.x prefab holding a nested prefab instance whose overrides are
/// `(property, value)`, each with its own target info, as the editor writes them.
fn overridden(overrides: &[(&str, &str)]) -> String {
    let mut elements = vec![
        r#"{"__type__": "cc.Prefab", "_name": "Row", "data": {"__id__": 1}}"#.to_owned(),
        r#"{"__type__": "cc.Node", "_name": "Row", "_children": [], "_prefab": {"__id__": 2}, "_id": ""}"#.to_owned(),
        r#"{"__type__": "cc.PrefabInfo", "root": {"__id__": 1}, "fileId": "f1", "instance": {"__id__": 3}}"#.to_owned(),
    ];
    let list = (0..overrides.len()).map(|i| format!("{{\"__id__\": {}}}", 4 + 2 * i)).collect::<Vec<_>>().join(", ");
    elements.push(format!(r#"{{"__type__": "cc.PrefabInstance", "fileId": "i1", "propertyOverrides": [{list}]}}"#));
    for (i, (property, value)) in overrides.iter().enumerate() {
        elements.push(format!(
            r#"{{"__type__": "CCPropertyOverrideInfo", "targetInfo": {{"__id__": {}}}, "propertyPath": ["{property}"], "value": {value}}}"#,
            5 + 2 * i
        ));
        elements.push(r#"{"__type__": "cc.TargetInfo", "localID": ["c46/Ys"]}"#.to_owned());
    }
    format!("[\n  {}\n]\n", elements.join(",\n  "))
}

#[test]
fn a_nested_prefabs_override_edited_on_one_side_stays_on_its_property_when_the_other_removes_one() {
    let base = overridden(&[("_name", "\"Row\""), ("_active", "true"), ("_layer", "1")]);
    let ours = overridden(&[("_active", "true"), ("_layer", "1")]);
    let theirs = overridden(&[("_name", "\"Row\""), ("_active", "false"), ("_layer", "1")]);
    let merged = merge(&base, &ours, &theirs);
    assert_eq!(merged.open_conflicts, 0);
    assert_eq!(String::from_utf8(merged.text).unwrap(), overridden(&[("_active", "false"), ("_layer", "1")]));
}

mod same_type {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Ours removes some of a node's labels, maybe reverses them, and adds others; theirs
        /// edits some. A clean merge is ours' list with theirs' edits on the labels they were
        /// made on; it conflicts exactly when ours removed a label theirs edited.
        #[test]
        fn edits_land_on_the_component_they_were_made_on(
            kept in prop::collection::vec(any::<bool>(), 1..6),
            edited in prop::collection::vec(any::<bool>(), 6),
            added in prop::collection::vec((any::<prop::sample::Index>(), 0usize..3), 0..3),
            reversed in any::<bool>(),
        ) {
            const NAMES: [&str; 6] = ["c0", "c1", "c2", "c3", "c4", "c5"];
            const EDITED: [&str; 6] = ["C0", "C1", "C2", "C3", "C4", "C5"];
            const ADDED: [&str; 3] = ["n0", "n1", "n2"];
            let n = kept.len();
            let base = labels(&NAMES[..n]);
            let mut ours: Vec<&'static str> = (0..n).filter(|&i| kept[i]).map(|i| NAMES[i]).collect();
            if reversed {
                ours.reverse();
            }
            for (at, which) in &added {
                ours.insert(at.index(ours.len() + 1), ADDED[*which]);
            }
            let theirs: Vec<&'static str> = (0..n).map(|i| if edited[i] { EDITED[i] } else { NAMES[i] }).collect();
            let merged = merge(&base, &labels(&ours), &labels(&theirs));
            let clash = (0..n).any(|i| edited[i] && !kept[i]);
            prop_assert_eq!(merged.open_conflicts > 0, clash);
            if !clash {
                let expected: Vec<String> = ours
                    .iter()
                    .map(|c| NAMES.iter().position(|x| x == c).filter(|&i| edited[i]).map_or(*c, |i| EDITED[i]).to_owned())
                    .collect();
                prop_assert_eq!(title_labels(&String::from_utf8(merged.text).unwrap()), expected);
            }
        }
    }
}

mod damaged {
    use super::*;
    use levelmerge_core::check_text;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// A damaged version (a reference renumbered, bytes cut or inserted) never crashes the
        /// merge, and a clean merge never holds a problem none of the inputs had.
        #[test]
        fn damaged_scenes_never_merge_into_broken_ones(
            cut_at in any::<prop::sample::Index>(),
            cut_len in 0usize..8,
            insert in "[{}\\[\\],:\" 0-9a-z_]{0,6}",
            renumber in any::<prop::sample::Index>(),
        ) {
            let b = base();
            let mut ours = String::from_utf8_lossy(&levelmerge_testutils::fuzz::damaged(&b, cut_at, cut_len, &insert)).into_owned();
            let positions: Vec<usize> = ours.match_indices("\"__id__\": ").map(|(i, _)| i + 10).collect();
            if let Some(&at) = positions.get(renumber.index(positions.len().max(1))) {
                ours.insert(at, '1');
            }
            let theirs = b.replace("\"hello\"", "\"welcome\"");
            let codec = JsonCodec::default();
            if let Ok(r) = merge_texts(&codec, Sides::new(b.as_bytes(), ours.as_bytes(), theirs.as_bytes()), &Options::default(), &MarkerStyle::default()) {
                if r.open_conflicts == 0 {
                    let known: Vec<String> = [&b, &ours, &theirs].iter().flat_map(|t| check_text(&codec, t.as_bytes())).map(|p| p.key()).collect();
                    let new: Vec<String> = check_text(&codec, &r.text).into_iter().map(|p| p.key()).filter(|k| !known.contains(k)).collect();
                    prop_assert!(new.is_empty(), "new problems {:?} in\n{}", new, String::from_utf8_lossy(&r.text));
                }
            }
        }
    }
}

#[test]
fn a_diff_names_what_was_inserted_not_every_renumbered_reference() {
    let inserted = intro_first();
    let changes = levelmerge_core::diff_texts(&JsonCodec::default(), base().as_bytes(), inserted.as_bytes()).expect("both read");
    let entries: Vec<_> = changes.objects.iter().flat_map(|o| &o.entries).collect();
    let added: Vec<String> = entries.iter().filter(|e| e.edit == Edit::Added).map(|e| e.object.to_string()).collect();
    assert!(added.contains(&"/[#i1]".to_owned()), "{changes:?}");
    assert!(added.contains(&"/[#i1/_components/cc.Label/]".to_owned()), "{changes:?}");
    // The new node is shown by its name.
    let intro = changes.objects.iter().find(|o| o.id.as_str() == "/[#i1]").expect("the node is shown");
    assert_eq!(intro.path.last().map(String::as_str), Some("Intro"), "{intro:?}");
    // Title, its label and the canvas moved in the array but did not change.
    let touched = |id: &str| entries.iter().any(|e| format!("{e:?}").contains(id));
    assert!(!touched("#t1") && !touched("#c1"), "{changes:?}");
}

#[test]
fn nodes_are_shown_under_the_scene_and_components_within_their_node() {
    let edited = base().replace("\"hello\"", "\"hi\"");
    let changes = levelmerge_core::diff_texts(&JsonCodec::default(), base().as_bytes(), edited.as_bytes()).expect("both read");
    let shown: Vec<(Vec<String>, &str)> = changes.objects.iter().map(|o| (o.path.clone(), o.kind.as_str())).collect();
    assert_eq!(shown, [(vec!["Canvas".to_owned(), "Title".to_owned()], "cc.Node")], "the label is shown at its node");
    let entry = &changes.objects[0].entries[0];
    assert_eq!((entry.kind.as_str(), entry.part), ("cc.Label", true), "{entry:?}");
    // A conflict is named the same way; an edit of the scene itself is the file's.
    let (ours, theirs) = (base().replace("\"hello\"", "\"hi\""), base().replace("\"hello\"", "\"hey\""));
    let r = merge(&base(), &ours, &theirs);
    assert_eq!(
        r.conflicts.iter().map(|c| c.object_path.clone()).collect::<Vec<_>>(),
        [Some(vec!["Canvas".to_owned(), "Title".to_owned()])]
    );
    let renamed = base().replace("\"_id\": \"scene\"", "\"_name\": \"Main\",\n    \"_id\": \"scene\"");
    let changes = levelmerge_core::diff_texts(&JsonCodec::default(), base().as_bytes(), renamed.as_bytes()).expect("both read");
    assert_eq!(changes.objects.iter().map(|o| (o.path.len(), o.kind.as_str())).collect::<Vec<_>>(), [(0, "cc.Scene")]);
}

#[test]
fn conflicting_elements_are_shown_as_the_file_writes_them() {
    // Both add a node under one id with different labels: the conflict's values are elements,
    // read in the identity form, and shown without its identity member.
    let with_ok = |label: &'static str| {
        scene(&[node(
            "Canvas",
            "c1",
            vec![node("Title", "t1", vec![], vec![("cc.Label", "hello")]), node("Ok", "o1", vec![], vec![("cc.Label", label)])],
            vec![("cc.Canvas", "")],
        )])
    };
    let r = merge(&base(), &with_ok("ok"), &with_ok("fine"));
    assert!(r.open_conflicts > 0, "{:?}", r.conflicts);
    let values: Vec<&String> = r.conflicts.iter().flat_map(|c| [&c.ours, &c.theirs]).flatten().collect();
    assert!(values.iter().any(|v| v.contains("\"ok\"")) && values.iter().any(|v| v.contains("\"fine\"")), "{values:?}");
    assert!(values.iter().all(|v| !v.contains("__lmid")), "{values:?}");
}

/// Whether a merge spliced the versions' elements rather than reading every object.
fn was_spliced(outcome: &MergeOutcome) -> bool {
    outcome.timings.iter().any(|(phase, _)| phase.starts_with("splice"))
}

#[test]
fn edits_of_different_elements_are_spliced_as_the_whole_merge_writes_them() {
    // Ours inserts a node before the canvas (every later position moves); theirs edits the
    // title's label: each element is changed by one side, so the elements are spliced.
    let ours = intro_first();
    let theirs = base().replace("\"hello\"", "\"welcome\"");
    let texts = Sides::new(base(), ours.clone(), theirs);
    let merged = merge(&texts.base, &texts.ours, &texts.theirs);
    assert!(was_spliced(&merged), "{:?}", merged.timings);
    let whole = levelmerge_core::merge_objects(
        &JsonCodec::default(),
        texts.as_ref().map(|_, t| t.as_bytes()),
        &Options::default(),
        &MarkerStyle::default(),
    )
    .expect("the whole merge runs");
    assert_eq!(String::from_utf8(merged.text).unwrap(), String::from_utf8(whole.text).unwrap());
    assert_eq!(merged.open_conflicts, 0);
}

#[test]
fn a_spliced_reference_to_an_element_the_other_side_deleted_is_never_written() {
    // Ours deletes the title (its node, its label, the canvas' child list); theirs points the
    // canvas' component at the title's label. Spliced, the reference would name nothing.
    let ours = scene(&[node("Canvas", "c1", vec![], vec![("cc.Canvas", "")])]);
    let b = base();
    let label = b.match_indices("\"__type__\": \"cc.Label\"").count();
    assert_eq!(label, 1);
    let theirs = b.replace("\"_string\": \"\"", "\"_string\": \"\",\n    \"target\": {\n      \"__id__\": 4\n    }");
    assert_ne!(theirs, b);
    assert!(theirs.contains("\"__id__\": 4\n    }\n  }\n]"), "the canvas component is the last element:\n{theirs}");
    let texts = Sides::new(b.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    // The whole merge cannot write it either: the command line then merges the lines, with
    // the conflict marked.
    match merge_texts(&JsonCodec::default(), texts, &Options::default(), &MarkerStyle::default()) {
        Ok(merged) => {
            assert!(!was_spliced(&merged), "{:?}", merged.timings);
            assert!(merged.open_conflicts > 0, "a reference to a deleted element is a conflict");
        }
        Err(e) => assert!(e.to_string().contains("missing object"), "{e}"),
    }
}

#[test]
fn a_damage_one_side_had_is_carried_over_where_the_other_sides_insertion_moved_it() {
    // Theirs lists the player's label among the scene's children too (damage `check` names)
    // and edits the label; ours inserts a sprite before the label, which moves it from
    // element 3 to 4. The merge adds no problem: it is read back by the elements' identities,
    // not by their positions, and is clean.
    let element = |body: &str| format!("  {{\n{body}\n  }}");
    let refs = |ids: &[usize]| ids.iter().map(|i| format!("{{ \"__id__\": {i} }}")).collect::<Vec<_>>().join(", ");
    let file = |scene_children: &[usize], components: &[usize], sprite: bool, label: &str| {
        let mut elements = vec![
            element("    \"__type__\": \"cc.SceneAsset\",\n    \"scene\": { \"__id__\": 1 }"),
            element(&format!("    \"__type__\": \"cc.Scene\",\n    \"_children\": [{}],\n    \"_id\": \"scene\"", refs(scene_children))),
            element(&format!(
                "    \"__type__\": \"cc.Node\",\n    \"_name\": \"Player\",\n    \"_parent\": {{ \"__id__\": 1 }},\n    \"_children\": [],\n    \"_components\": [{}],\n    \"_id\": \"player\"",
                refs(components)
            )),
        ];
        if sprite {
            elements.push(element("    \"__type__\": \"cc.Sprite\",\n    \"node\": { \"__id__\": 2 },\n    \"_id\": \"sprite\""));
        }
        elements.push(element(&format!(
            "    \"__type__\": \"cc.Label\",\n    \"node\": {{ \"__id__\": 2 }},\n    \"_string\": \"{label}\",\n    \"_id\": \"label\""
        )));
        format!("[\n{}\n]\n", elements.join(",\n"))
    };
    let base = file(&[2], &[3], false, "Score");
    let ours = file(&[2], &[3, 4], true, "Score");
    let theirs = file(&[2, 3], &[3], false, "Points");
    let codec = JsonCodec::default();
    let problems = |text: &str| levelmerge_core::check_text(&codec, text.as_bytes()).into_iter().map(|p| p.to_string()).collect::<Vec<_>>();
    assert!(problems(&base).is_empty() && problems(&ours).is_empty());
    assert_eq!(problems(&theirs).len(), 1, "{:?}", problems(&theirs));
    let merged = merge(&base, &ours, &theirs);
    assert_eq!(merged.open_conflicts, 0);
    let text = String::from_utf8(merged.text).unwrap();
    assert_eq!(text, file(&[2, 4], &[3, 4], true, "Points"));
    let found = problems(&text);
    assert!(found.len() == 1 && found[0].contains("element 4 is listed both"), "{found:?}");
}

#[test]
fn a_rule_of_the_scene_applies_alike_whichever_side_is_ours() {
    // `cc.Scene._scale*` is volatile (the editor recomputes the canvas fit): both sides'
    // different scales settle without a conflict.
    let base = scene(&[node("A", "a", vec![], vec![])]).replace("\"_id\": \"scene\"", "\"_scale\": { \"x\": 1 },\n    \"_id\": \"scene\"");
    let ours = base.replace("\"x\": 1", "\"x\": 2");
    let theirs = base.replace("\"x\": 1", "\"x\": 3");
    assert_eq!(merge(&base, &ours, &theirs).open_conflicts, 0);
    // Theirs also changes the scene's type: the rule is looked up under the type the merge
    // keeps (theirs'), whichever side is ours, so the scales conflict either way.
    let retyped = theirs.replace("\"cc.Scene\"", "\"cc.Scene3D\"");
    let (given, swapped) = (merge(&base, &ours, &retyped), merge(&base, &retyped, &ours));
    assert_eq!((given.open_conflicts, swapped.open_conflicts), (1, 1), "{:?} / {:?}", given.conflicts, swapped.conflicts);
}

/// A synced prefab's root is written with its `_parent` but without `_children` or
/// `_components`. Ours renames it, theirs moves it under another node: it is still one node,
/// known by its `_id` (it was read as two, one renamed where it was and one moved, both kept).
#[test]
fn a_synced_prefab_root_renamed_and_moved_is_one_node() {
    let scene = |panel_children: &[u64], canvas_children: &[u64], name: &str, parent: u64| {
        let refs = |ps: &[u64]| ps.iter().map(|p| serde_json::json!({ "__id__": p })).collect::<Vec<_>>();
        let array = serde_json::json!([
            { "__type__": "cc.SceneAsset", "_name": "", "scene": { "__id__": 1 } },
            { "__type__": "cc.Scene", "_parent": null, "_children": [{ "__id__": 2 }], "_id": "scene" },
            { "__type__": "cc.Node", "_name": "Canvas", "_parent": { "__id__": 1 }, "_children": refs(canvas_children), "_components": [], "_id": "c1" },
            { "__type__": "cc.Node", "_name": "Panel", "_parent": { "__id__": 2 }, "_children": refs(panel_children), "_components": [], "_id": "p1" },
            { "__type__": "cc.Node", "_parent": { "__id__": parent }, "_id": "bg1", "_prefab": { "__id__": 5 }, "_name": name, "_active": true },
            { "__type__": "cc.PrefabInfo", "root": { "__id__": 4 }, "asset": { "__uuid__": "b8392351" }, "fileId": "78fd70", "sync": true }
        ]);
        serde_json::to_string_pretty(&array).unwrap() + "\n"
    };
    let base = scene(&[], &[3, 4], "Background", 2);
    let renamed = scene(&[], &[3, 4], "Backdrop", 2);
    let moved = scene(&[4], &[3], "Background", 3);
    for (ours, theirs) in [(&renamed, &moved), (&moved, &renamed)] {
        let r = merge(&base, ours, theirs);
        assert_eq!(r.open_conflicts, 0, "{:?}", r.conflicts);
        assert_eq!(String::from_utf8(r.text).unwrap(), scene(&[4], &[3], "Backdrop", 3));
    }
}

/// Two nodes of one `_id` are a problem the checks name (the editor finds nodes by it).
#[test]
fn nodes_sharing_an_id_are_a_problem() {
    let twice = scene(&[node("Canvas", "c1", vec![node("Title", "c1", vec![], vec![])], vec![])]);
    let problems = levelmerge_core::check_text(&JsonCodec::default(), twice.as_bytes());
    assert!(problems.iter().any(|p| p.code() == "duplicate-id" && p.to_string().contains("c1")), "{problems:?}");
    assert!(levelmerge_core::check_text(&JsonCodec::default(), base().as_bytes()).is_empty());
}

/// Theirs points a script at the label of a node ours deleted: the deletion is contested and
/// the script's `label` stands or goes with it, so that each side of the marked file is a
/// sound scene. Before, the merge read as broken and fell back to lines, which left no marker
/// and a reference to the missing label.
#[test]
fn a_reference_one_side_set_to_a_component_the_other_deleted_goes_with_it() {
    let scene = |title: bool, label: Value| {
        let mut array = serde_json::json!([
            { "__type__": "cc.SceneAsset", "scene": { "__id__": 1 } },
            { "__type__": "cc.Scene", "_children": [{ "__id__": 2 }], "_id": "scene" },
            { "__type__": "cc.Node", "_name": "Canvas", "_parent": { "__id__": 1 }, "_children": if title { serde_json::json!([{ "__id__": 4 }]) } else { serde_json::json!([]) }, "_components": [{ "__id__": 3 }], "_id": "canvas" },
            { "__type__": "MyScript", "node": { "__id__": 2 }, "label": label, "_string": "", "_id": "script" }
        ]);
        if title {
            let array = array.as_array_mut().unwrap();
            array.push(serde_json::json!({ "__type__": "cc.Node", "_name": "Title", "_parent": { "__id__": 2 }, "_children": [], "_components": [{ "__id__": 5 }], "_id": "title" }));
            array.push(serde_json::json!({ "__type__": "cc.Label", "node": { "__id__": 4 }, "_string": "Hi", "_id": "label" }));
        }
        serde_json::to_string_pretty(&array).unwrap() + "\n"
    };
    let base = scene(true, Value::Null);
    let deleted = scene(false, Value::Null);
    let pointed = scene(true, serde_json::json!({ "__id__": 5 }));
    for (ours, theirs, deleting) in [(&deleted, &pointed, levelmerge_core::Side::Ours), (&pointed, &deleted, levelmerge_core::Side::Theirs)]
    {
        let r = merge(&base, ours, theirs);
        assert_eq!(r.open_conflicts, 1, "{:?}", r.conflicts);
        assert!(r.conflicts.iter().all(|c| c.kind == "delete-modify"), "{:?}", r.conflicts);
        let text = String::from_utf8(r.text).unwrap();
        for side in [levelmerge_core::Side::Ours, levelmerge_core::Side::Theirs] {
            let view = levelmerge_testutils::laws::side_view(&text, side);
            assert!(levelmerge_core::check_text(&JsonCodec::default(), view.as_bytes()).is_empty(), "{side}'s view:\n{view}");
            assert_eq!(structure(&view), structure(if side == deleting { &deleted } else { &pointed }), "{side}'s view");
            let array: Vec<Value> = serde_json::from_str(&view).unwrap();
            let script = array.iter().find(|e| e["__type__"] == "MyScript").expect("the script");
            let label = script["label"]["__id__"].as_u64().map(|p| array[p as usize]["__type__"].clone());
            assert_eq!(label, (side != deleting).then(|| Value::from("cc.Label")), "{side}'s view:\n{view}");
        }
    }
}

/// Theirs re-created the scene (another `_id`: the old scene deleted, a new one added with
/// the nodes under it) while ours edited it, and both added one node (a change both took):
/// one delete/modify conflict on the scene, whichever side is ours. Each side's view holds
/// the node under the scene that side wrote; the view keeping the deletion dropped the node
/// with the old scene while the new one listed it, so that merge was refused and made by
/// lines, one way round only.
#[test]
fn a_node_both_sides_added_under_a_scene_one_side_re_created_stays_in_each_view() {
    let base = scene(&[node("A", "a", vec![], vec![])]);
    let with_n = scene(&[node("A", "a", vec![], vec![]), node("N", "n", vec![], vec![])]);
    let ours = with_n.replace("\"_id\": \"scene\"", "\"_active\": false,\n    \"_id\": \"scene\"");
    let theirs = with_n.replace("\"_id\": \"scene\"", "\"_id\": \"scene2\"");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t);
        let kinds: Vec<(&str, &str)> = r.conflicts.iter().map(|c| (c.object_kind.as_str(), c.kind)).collect();
        assert_eq!(kinds, [("cc.Scene", "delete-modify")], "{:?}", r.conflicts);
    }
}

/// Both sides moved one node into a panel: ours into the panel as it was, which ours also
/// renamed; theirs into the panel re-created (another `_id`: the old panel deleted). Whichever
/// side is ours, a delete/modify conflict on the panel and one on the node's `_parent`. The
/// node, merged, hung under ours' panel in both views; the view deleting that panel dropped it
/// while the new panel listed it, so the merge was refused. Each view now holds it under its
/// side's panel.
#[test]
fn a_node_both_sides_moved_into_a_panel_one_side_re_created_stays_in_each_view() {
    let base = scene(&[node("A", "a", vec![node("T", "t", vec![], vec![])], vec![]), node("Q", "q", vec![], vec![])]);
    let moved_into = |name, id| scene(&[node("A", "a", vec![], vec![]), node(name, id, vec![node("T", "t", vec![], vec![])], vec![])]);
    let (ours, theirs) = (moved_into("Q2", "q"), moved_into("Q", "q2"));
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merge(&base, o, t);
        let kinds: Vec<(&str, &str, &str)> = r.conflicts.iter().map(|c| (c.object_kind.as_str(), c.kind, c.path.as_str())).collect();
        assert_eq!(kinds, [("cc.Node", "delete-modify", ""), ("cc.Node", "both-modified", "_parent.__id__")], "{:?}", r.conflicts);
    }
}

#[test]
fn a_node_added_for_a_component_the_other_side_deleted_goes_with_it_in_that_sides_view() {
    // Cocos Creator 3.x layout. Theirs deletes the camera (its node and component, and the
    // canvas' reference to it); ours adds a label under the canvas whose follower targets the
    // camera. A delete/modify conflict, either side of which is a sound scene: taking theirs
    // drops the label with the camera, its `_children` entry and its follower too.
    let base = r#"[
  {"__type__": "cc.SceneAsset", "scene": {"__id__": 1}},
  {"__type__": "cc.Scene", "_parent": null, "_children": [{"__id__": 2}], "_components": [], "_id": "scene"},
  {"__type__": "cc.Node", "_name": "Canvas", "_parent": {"__id__": 1}, "_children": [{"__id__": 3}], "_components": [{"__id__": 5}], "_id": "canvas"},
  {"__type__": "cc.Node", "_name": "Camera", "_parent": {"__id__": 2}, "_children": [], "_components": [{"__id__": 4}], "_id": "camera"},
  {"__type__": "cc.Camera", "node": {"__id__": 3}, "_fov": 45, "_id": "camera-component"},
  {"__type__": "cc.Canvas", "node": {"__id__": 2}, "_cameraComponent": {"__id__": 4}, "_id": "canvas-component"}
]
"#;
    let theirs = r#"[
  {"__type__": "cc.SceneAsset", "scene": {"__id__": 1}},
  {"__type__": "cc.Scene", "_parent": null, "_children": [{"__id__": 2}], "_components": [], "_id": "scene"},
  {"__type__": "cc.Node", "_name": "Canvas", "_parent": {"__id__": 1}, "_children": [], "_components": [{"__id__": 3}], "_id": "canvas"},
  {"__type__": "cc.Canvas", "node": {"__id__": 2}, "_cameraComponent": null, "_id": "canvas-component"}
]
"#;
    let ours = base
        .replace(r#""_children": [{"__id__": 3}], "_components": [{"__id__": 5}]"#, r#""_children": [{"__id__": 3}, {"__id__": 6}], "_components": [{"__id__": 5}]"#)
        .replace(
            "\"_id\": \"canvas-component\"}\n]",
            "\"_id\": \"canvas-component\"},\n  {\"__type__\": \"cc.Node\", \"_name\": \"Label\", \"_parent\": {\"__id__\": 2}, \"_children\": [], \"_components\": [{\"__id__\": 7}], \"_id\": \"label\"},\n  {\"__type__\": \"cc.Follow\", \"node\": {\"__id__\": 6}, \"target\": {\"__id__\": 4}, \"_id\": \"follow\"}\n]",
        );
    assert_eq!(ours.matches("\"__type__\"").count(), 8, "{ours}");
    for (o, t, theirs_is_ours) in [(ours.as_str(), theirs, false), (theirs, ours.as_str(), true)] {
        let merged = merge(base, o, t);
        assert!(merged.conflicts.iter().any(|c| c.kind == "delete-modify"), "{:?}", merged.conflicts);
        let text = String::from_utf8(merged.text).unwrap();
        let (keeping, deleting) = if theirs_is_ours {
            (levelmerge_core::Side::Theirs, levelmerge_core::Side::Ours)
        } else {
            (levelmerge_core::Side::Ours, levelmerge_core::Side::Theirs)
        };
        let json =
            |side| serde_json::from_str::<Value>(&levelmerge_testutils::laws::side_view(&text, side)).expect("a side's view is JSON");
        assert_eq!(json(deleting), serde_json::from_str::<Value>(theirs).unwrap(), "{text}");
        let kept = json(keeping);
        let elements = kept.as_array().unwrap();
        let position = |id: &str| elements.iter().position(|e| e["_id"] == id).unwrap_or_else(|| panic!("{id} is kept: {kept}"));
        let follow = &elements[position("follow")];
        assert_eq!(follow["target"]["__id__"].as_u64(), Some(position("camera-component") as u64));
        assert_eq!(elements[position("canvas")]["_children"].as_array().unwrap().len(), 2);
    }
}

/// A Cocos Creator 3.x prefab: nodes without `_id`, each with a prefab info and its components
/// with theirs, all naming a `fileId`. Row holds Icon and Label; `icon_parent` is where Icon
/// hangs (2: Row, 5: Label) and `label_text` the label's string.
fn prefab(icon_under_label: bool, label_text: &str) -> String {
    let (row_children, label_children, icon_parent) =
        if icon_under_label { ("[{\"__id__\": 5}]", "[{\"__id__\": 2}]", 5) } else { ("[{\"__id__\": 2}, {\"__id__\": 5}]", "[]", 1) };
    format!(
        r#"[
  {{"__type__": "cc.Prefab", "data": {{"__id__": 1}}}},
  {{"__type__": "cc.Node", "_name": "Row", "_parent": null, "_children": {row_children}, "_components": [], "_prefab": {{"__id__": 11}}, "_id": ""}},
  {{"__type__": "cc.Node", "_name": "Icon", "_parent": {{"__id__": {icon_parent}}}, "_children": [], "_components": [{{"__id__": 3}}], "_prefab": {{"__id__": 10}}, "_id": ""}},
  {{"__type__": "cc.Sprite", "node": {{"__id__": 2}}, "__prefab": {{"__id__": 4}}, "_id": ""}},
  {{"__type__": "cc.CompPrefabInfo", "fileId": "sprite-file"}},
  {{"__type__": "cc.Node", "_name": "Label", "_parent": {{"__id__": 1}}, "_children": {label_children}, "_components": [{{"__id__": 6}}], "_prefab": {{"__id__": 9}}, "_id": ""}},
  {{"__type__": "cc.Label", "node": {{"__id__": 5}}, "__prefab": {{"__id__": 7}}, "_string": "{label_text}", "_id": ""}},
  {{"__type__": "cc.CompPrefabInfo", "fileId": "label-file"}},
  {{"__type__": "cc.Object", "note": "unused slot kept so positions stay put"}},
  {{"__type__": "cc.PrefabInfo", "root": {{"__id__": 1}}, "asset": {{"__id__": 0}}, "fileId": "label-node-file"}},
  {{"__type__": "cc.PrefabInfo", "root": {{"__id__": 1}}, "asset": {{"__id__": 0}}, "fileId": "icon-node-file"}},
  {{"__type__": "cc.PrefabInfo", "root": {{"__id__": 1}}, "asset": {{"__id__": 0}}, "fileId": "row-node-file"}}
]
"#
    )
}

#[test]
fn a_prefab_node_one_side_moved_is_the_node_the_other_side_edited() {
    // Ours moves Icon under Label; theirs renames Icon and edits the label's string. Prefab
    // nodes are known by their `fileId`, not by the path that reaches them: the move is no
    // deletion of Icon and addition of a copy, and its sprite stays one sprite.
    let base = prefab(false, "hello");
    let ours = prefab(true, "hello");
    let theirs = base.replace("\"Icon\"", "\"Icon-renamed\"").replace("\"hello\"", "\"welcome\"");
    let want = ours.replace("\"Icon\"", "\"Icon-renamed\"").replace("\"hello\"", "\"welcome\"");
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let merged = merge(&base, o, t);
        assert_eq!(merged.open_conflicts, 0, "{:?}", merged.conflicts);
        let text = String::from_utf8(merged.text).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), serde_json::from_str::<Value>(&want).unwrap(), "{text}");
    }
}

/// Ours adds a node N under B and moves A into it; theirs moves A under B's child C. A
/// conflict on A's `_parent`, either side of which is a sound scene: N, which ours added
/// whole, lists A in ours' view alone. Theirs' view kept N's entry for A while A hung under
/// C, and `resolve --take theirs` refused it.
#[test]
fn a_node_one_side_moved_into_a_node_it_added_and_the_other_elsewhere_is_listed_once_in_each_view() {
    let base = scene(&[node("A", "a", vec![], vec![]), node("B", "b", vec![node("C", "c", vec![], vec![])], vec![])]);
    let ours = scene(&[node(
        "B",
        "b",
        vec![node("C", "c", vec![], vec![]), node("N", "n", vec![node("A", "a", vec![], vec![])], vec![("cc.Label", "new")])],
        vec![],
    )]);
    let theirs = scene(&[node("B", "b", vec![node("C", "c", vec![node("A", "a", vec![], vec![])], vec![])], vec![])]);
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let merged = merge(&base, o, t);
        let kinds: Vec<(&str, &str)> = merged.conflicts.iter().map(|c| (c.kind, c.path.as_str())).collect();
        assert_eq!(kinds, [("both-modified", "_parent.__id__")], "{:?}", merged.conflicts);
        let text = String::from_utf8(merged.text).unwrap();
        for (side, wrote) in [(levelmerge_core::Side::Ours, o), (levelmerge_core::Side::Theirs, t)] {
            let view = levelmerge_testutils::laws::side_view(&text, side);
            let parent_of_a = |s: &str| structure(s).into_iter().find(|n| n.0 == "A").map(|n| n.1);
            assert_eq!(parent_of_a(&view), parent_of_a(wrote), "{side:?}'s view:\n{view}");
        }
    }
}

/// Theirs moves Bg out of Item's subtree to Keep, then deletes Item; ours edits a label in
/// that subtree. A delete/modify conflict on Item, either side of which is a sound scene:
/// ours' view keeps Item's subtree as ours wrote it, but for Bg, whose move stands. Ours' view
/// kept Label's entry for Bg while Bg hung under Keep, and `resolve --take ours` refused it.
#[test]
fn a_node_moved_out_of_a_subtree_before_its_deletion_is_listed_where_it_hangs_in_the_keeping_view() {
    let item = |children| node("Item", "i", children, vec![]);
    let label = |text| node("Label", "l", vec![node("Bg", "g", vec![], vec![])], vec![("cc.Label", text)]);
    let base = scene(&[item(vec![label("text")]), node("Keep", "k", vec![], vec![])]);
    let ours = scene(&[item(vec![label("edited")]), node("Keep", "k", vec![], vec![])]);
    let theirs = scene(&[node("Keep", "k", vec![node("Bg", "g", vec![], vec![])], vec![])]);
    for (o, t, ours_keeps) in [(&ours, &theirs, true), (&theirs, &ours, false)] {
        let merged = merge(&base, o, t);
        let kinds: Vec<&str> = merged.conflicts.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, ["delete-modify"], "{:?}", merged.conflicts);
        let text = String::from_utf8(merged.text).unwrap();
        let keeping = if ours_keeps { levelmerge_core::Side::Ours } else { levelmerge_core::Side::Theirs };
        let view = structure(&levelmerge_testutils::laws::side_view(&text, keeping));
        let children_of = |name: &str| view.iter().find(|n| n.0 == name).map(|n| n.2.clone());
        assert_eq!(children_of("Keep"), Some(vec!["Bg".to_owned()]), "{view:?}");
        assert_eq!(children_of("Label"), Some(vec![]), "{view:?}");
    }
}

/// Ours moves A under B's child C, theirs moves B under A: each sound alone, together a
/// cycle. The move of the smaller `_id` (A's, "a") is dropped whichever side made it: a clean
/// merge with a note, A under the scene as base has it, listed there again, and no longer
/// listed by C. The merge was refused as a level and merged by lines.
#[test]
fn moves_that_make_a_cycle_together_are_broken_alike_either_way_with_the_lists() {
    let c = || node("C", "c", vec![], vec![]);
    let base = scene(&[node("A", "a", vec![], vec![("cc.Label", "a")]), node("B", "b", vec![c()], vec![])]);
    let ours = scene(&[node("B", "b", vec![node("C", "c", vec![node("A", "a", vec![], vec![("cc.Label", "a")])], vec![])], vec![])]);
    let theirs = scene(&[node("A", "a", vec![node("B", "b", vec![c()], vec![])], vec![("cc.Label", "a")])]);
    let mut results = Vec::new();
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let merged = merge(&base, o, t);
        assert_eq!(merged.open_conflicts, 0, "{:?}", merged.conflicts);
        assert!(merged.notes.iter().any(|n| n.contains("parent cycle broken")), "{:?}", merged.notes);
        let text = String::from_utf8(merged.text).unwrap();
        let s = structure(&text);
        let parent_of = |name: &str| s.iter().find(|n| n.0 == name).map(|n| n.1.clone());
        assert_eq!((parent_of("A"), parent_of("B"), parent_of("C")), (Some(String::new()), Some("A".into()), Some("B".into())), "{text}");
        results.push(s);
    }
    assert_eq!(results[0], results[1]);
}

/// Ours moves N to the top and I under N; theirs moves N under I. N's parent is a conflict
/// (the top or I); I's move merges. Ours' view is sound, theirs' a cycle (N under I under N)
/// that the view's model did not show, as it hung N where ours put it: `resolve --take
/// theirs` refused it. Each view now hangs N where its side put it, the cycle is found there
/// and broken as any other (I's move, the only one a side alone made, is dropped, noted).
#[test]
fn a_cycle_made_in_one_view_by_a_conflicting_move_is_broken() {
    let leaf = |name: &'static str, id: &'static str, children| node(name, id, children, vec![]);
    let base = scene(&[leaf("P", "p", vec![leaf("N", "n", vec![]), leaf("I", "i", vec![])])]);
    let ours = scene(&[leaf("P", "p", vec![]), leaf("N", "n", vec![leaf("I", "i", vec![])])]);
    let theirs = scene(&[leaf("P", "p", vec![leaf("I", "i", vec![leaf("N", "n", vec![])])])]);
    for (o, t, ours_moved_n_to_top) in [(&ours, &theirs, true), (&theirs, &ours, false)] {
        let merged = merge(&base, o, t);
        let kinds: Vec<(&str, &str)> = merged.conflicts.iter().map(|c| (c.kind, c.path.as_str())).collect();
        assert_eq!(kinds, [("both-modified", "_parent.__id__")], "{:?}", merged.conflicts);
        assert!(merged.notes.iter().any(|n| n.contains("parent cycle broken")), "{:?}", merged.notes);
        let text = String::from_utf8(merged.text).unwrap();
        for side in [levelmerge_core::Side::Ours, levelmerge_core::Side::Theirs] {
            let view = structure(&levelmerge_testutils::laws::side_view(&text, side));
            let parent_of = |name: &str| view.iter().find(|n| n.0 == name).map(|n| n.1.clone());
            let n_at_top = (side == levelmerge_core::Side::Ours) == ours_moved_n_to_top;
            let n_parent = if n_at_top { "" } else { "I" };
            assert_eq!((parent_of("N").as_deref(), parent_of("I").as_deref()), (Some(n_parent), Some("P")), "{side:?}'s view: {view:?}");
        }
    }
}

/// Ours moves Bg out of T to Z, then deletes A (with T); theirs deletes B (with Z). B's
/// deletion is a conflict (ours put Bg in it). Theirs' view, which lacks Z, hung Bg back
/// under T, base's parent, though ours deleted T cleanly: a reference to nothing, and the
/// whole merge fell back to lines. A node whose view lacks both parents goes with the one it
/// was moved under.
#[test]
fn a_node_moved_under_a_node_the_other_side_deleted_from_one_its_side_deleted_goes_with_the_new_one() {
    let leaf = |name: &'static str, id: &'static str, children| node(name, id, children, vec![]);
    let a = || leaf("A", "a", vec![leaf("T", "t", vec![leaf("Bg", "g", vec![])])]);
    let b = |z_children| leaf("B", "b", vec![leaf("Z", "z", z_children)]);
    let base = scene(&[a(), b(vec![])]);
    let ours = scene(&[b(vec![leaf("Bg", "g", vec![])])]);
    let theirs = scene(&[a()]);
    for (o, t, ours_keeps) in [(&ours, &theirs, true), (&theirs, &ours, false)] {
        let merged = merge(&base, o, t);
        let kinds: Vec<&str> = merged.conflicts.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, ["delete-modify"], "{:?}", merged.conflicts);
        let text = String::from_utf8(merged.text).unwrap();
        for side in [levelmerge_core::Side::Ours, levelmerge_core::Side::Theirs] {
            let view = structure(&levelmerge_testutils::laws::side_view(&text, side));
            let names: Vec<&str> = view.iter().map(|n| n.0.as_str()).collect();
            let keeping = (side == levelmerge_core::Side::Ours) == ours_keeps;
            let expected: &[&str] = if keeping { &["B", "Bg", "Z"] } else { &[] };
            assert_eq!(names, expected, "{side:?}'s view: {view:?}");
        }
    }
}

/// Ours deletes Item (its button and the button's click event, which names Icon) and Group,
/// which holds Icon; theirs edits Icon's label. A delete/modify conflict on Group, either side
/// of which is a sound scene: the click event was tied to Icon's fate (it names Icon and was
/// deleted with it), so theirs' view kept it while its button was gone, an element nothing
/// reaches, and `resolve --take theirs` refused the view. It goes with its button.
#[test]
fn an_element_deleted_with_its_owner_is_not_kept_for_an_object_it_names_whose_deletion_is_in_conflict() {
    let base = r#"[
  {"__type__": "cc.SceneAsset", "scene": {"__id__": 1}},
  {"__type__": "cc.Scene", "_parent": null, "_children": [{"__id__": 2}, {"__id__": 5}], "_components": [], "_id": "scene"},
  {"__type__": "cc.Node", "_name": "Item", "_parent": {"__id__": 1}, "_children": [], "_components": [{"__id__": 3}], "_id": "item"},
  {"__type__": "cc.Button", "node": {"__id__": 2}, "clickEvents": [{"__id__": 4}], "_id": "button"},
  {"__type__": "cc.ClickEvent", "target": {"__id__": 6}, "handler": "go"},
  {"__type__": "cc.Node", "_name": "Group", "_parent": {"__id__": 1}, "_children": [{"__id__": 6}], "_components": [], "_id": "group"},
  {"__type__": "cc.Node", "_name": "Icon", "_parent": {"__id__": 5}, "_children": [], "_components": [{"__id__": 7}], "_id": "icon"},
  {"__type__": "cc.Label", "node": {"__id__": 6}, "_string": "icon", "_id": "label"}
]
"#;
    let ours = r#"[
  {"__type__": "cc.SceneAsset", "scene": {"__id__": 1}},
  {"__type__": "cc.Scene", "_parent": null, "_children": [], "_components": [], "_id": "scene"}
]
"#;
    let theirs = base.replace("\"_string\": \"icon\"", "\"_string\": \"edited\"");
    let codec = JsonCodec::default();
    for (o, t, keeping) in [(ours, theirs.as_str(), levelmerge_core::Side::Theirs), (theirs.as_str(), ours, levelmerge_core::Side::Ours)] {
        let merged = merge(base, o, t);
        let kinds: Vec<&str> = merged.conflicts.iter().map(|c| c.kind).collect();
        assert_eq!(kinds, ["delete-modify"], "{:?}", merged.conflicts);
        let view = levelmerge_testutils::laws::side_view(&String::from_utf8(merged.text).unwrap(), keeping);
        let problems: Vec<String> = levelmerge_core::check_text(&codec, view.as_bytes()).iter().map(|p| p.to_string()).collect();
        assert!(problems.is_empty(), "{problems:?}\n{view}");
        assert!(!view.contains("cc.ClickEvent") && view.contains("\"edited\""), "{view}");
    }
}
