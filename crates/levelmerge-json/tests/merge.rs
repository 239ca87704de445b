//! Merges of small JSON and SJSON levels through the core pipeline.

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{merge_texts, Options, Sides};
use levelmerge_json::JsonCodec;

/// The whole outcome of a merge with the default codec (the editor found from the content).
fn merged(b: &str, o: &str, t: &str) -> levelmerge_core::MergeOutcome {
    merge_texts(&JsonCodec::default(), Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &MarkerStyle::default())
        .expect("a structured merge, not a refusal")
}

fn merge(b: &str, o: &str, t: &str) -> (String, usize) {
    let r = merged(b, o, t);
    (String::from_utf8(r.text).unwrap(), r.open_conflicts)
}

const BASE: &str = r#"{
  "name": "level1",
  "entities": [
    { "id": 1, "name": "door", "x": 10 },
    { "id": 2, "name": "lamp", "x": 20 }
  ]
}
"#;

#[test]
fn disjoint_property_edits_merge() {
    let o = BASE.replace("\"x\": 10", "\"x\": 11");
    let t = BASE.replace("\"lamp\"", "\"lantern\"");
    let (m, c) = merge(BASE, &o, &t);
    assert_eq!(c, 0);
    assert_eq!(m, BASE.replace("\"x\": 10", "\"x\": 11").replace("\"lamp\"", "\"lantern\""));
}

#[test]
fn the_spacing_before_the_roots_closing_bracket_is_merged_like_its_values() {
    // Theirs leaves a blank line before the closing bracket: ours' edits do not undo it.
    for (b, o, t, want) in [
        (
            "{\n \"a\": 1,\n \"b\": 2\n}\n",
            "{\n \"a\": 5,\n \"b\": 2\n}\n",
            "{\n \"a\": 1,\n \"b\": 3\n\n}\n",
            "{\n \"a\": 5,\n \"b\": 3\n\n}\n",
        ),
        (
            "[\n {\"a\": 1},\n {\"b\": 2}\n]\n",
            "[\n {\"a\": 5},\n {\"b\": 2}\n]\n",
            "[\n {\"a\": 1},\n {\"b\": 3}\n\n]\n",
            "[\n {\"a\": 5},\n {\"b\": 3}\n\n]\n",
        ),
    ] {
        assert_eq!(merge(b, o, t), (want.to_owned(), 0));
        assert_eq!(merge(b, t, o), (want.to_owned(), 0), "sides swapped");
    }
}

#[test]
fn both_add_entities_at_end_ours_first() {
    let o = BASE.replace("\"x\": 20 }\n", "\"x\": 20 },\n    { \"id\": 3, \"name\": \"key\" }\n");
    let t = BASE.replace("\"x\": 20 }\n", "\"x\": 20 },\n    { \"id\": 4, \"name\": \"chest\" }\n");
    let (m, c) = merge(BASE, &o, &t);
    assert_eq!(c, 0, "{m}");
    assert_eq!(
        m,
        BASE.replace("\"x\": 20 }\n", "\"x\": 20 },\n    { \"id\": 3, \"name\": \"key\" },\n    { \"id\": 4, \"name\": \"chest\" }\n")
    );
}

#[test]
fn same_property_conflicts_with_markers() {
    let o = BASE.replace("\"x\": 10", "\"x\": 11");
    let t = BASE.replace("\"x\": 10", "\"x\": 12");
    let (m, c) = merge(BASE, &o, &t);
    assert_eq!(c, 1);
    assert!(m.contains("<<<<<<< ours\n    { \"id\": 1, \"name\": \"door\", \"x\": 11 },\n=======\n    { \"id\": 1, \"name\": \"door\", \"x\": 12 },\n>>>>>>> theirs\n"), "{m}");
}

#[test]
fn delete_vs_modify_conflicts() {
    let o = BASE.replace(",\n    { \"id\": 2, \"name\": \"lamp\", \"x\": 20 }", "");
    let t = BASE.replace("\"x\": 20", "\"x\": 21");
    let (m, c) = merge(BASE, &o, &t);
    assert_eq!(c, 1, "{m}");
}

#[test]
fn delete_vs_untouched_deletes() {
    let o = BASE.replace(",\n    { \"id\": 2, \"name\": \"lamp\", \"x\": 20 }", "");
    let t = BASE.replace("\"x\": 10", "\"x\": 9");
    let (m, c) = merge(BASE, &o, &t);
    assert_eq!(c, 0);
    assert_eq!(m, o.replace("\"x\": 10", "\"x\": 9"));
}

#[test]
fn delete_vs_removing_a_member_deletes() {
    // Removing a member loses nothing the deletion keeps: the object goes, on either side.
    let deleted = BASE.replace(",\n    { \"id\": 2, \"name\": \"lamp\", \"x\": 20 }", "");
    let trimmed = BASE.replace("\"lamp\", \"x\": 20", "\"lamp\"");
    for (o, t) in [(&deleted, &trimmed), (&trimmed, &deleted)] {
        let (m, c) = merge(BASE, o, t);
        assert_eq!((m.as_str(), c), (deleted.as_str(), 0));
    }
    // Removing one member while changing another is an edit the deletion would lose.
    let edited = trimmed.replace("\"lamp\"", "\"lantern\"");
    let (m, c) = merge(BASE, &deleted, &edited);
    assert_eq!(c, 1, "{m}");
}

#[test]
fn a_member_renamed_on_one_side_keeps_its_new_name_beside_the_other_sides_removal() {
    // The renamed member's value is alike on both sides: taken from the side that kept the old
    // name, it is still written under the new one.
    let base = "{\n  \"X\": 1,\n  \"Y\": 2,\n  \"Z\": 3\n}\n";
    let removed = base.replace("  \"Y\": 2,\n", "");
    let renamed = base.replace("\"Z\"", "\"MM_Z\"");
    for (o, t) in [(&removed, &renamed), (&renamed, &removed)] {
        let (m, c) = merge(base, o, t);
        assert_eq!((m.as_str(), c), ("{\n  \"X\": 1,\n  \"MM_Z\": 3\n}\n", 0));
    }
}

fn codec_with_refs() -> JsonCodec {
    let mut c = JsonCodec::default();
    c.config.parent_key = Some("parent".into());
    c.config.reference_keys = vec!["target".into()];
    c
}

fn merge_refs(b: &str, o: &str, t: &str) -> levelmerge_core::MergeOutcome {
    merge_texts(&codec_with_refs(), Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &MarkerStyle::default())
        .expect("merge runs")
}

const FLAT: &str = "{\"objects\": [\n  {\"id\": 1, \"parent\": 0},\n  {\"id\": 2, \"parent\": 1},\n  {\"id\": 3, \"parent\": 1},\n  {\"id\": 4, \"parent\": 1, \"target\": 2}\n]}\n";

#[test]
fn a_duplicate_id_does_not_hide_the_other_problems_of_a_level() {
    // A second object under id 3 is refused, and the level read on past it: object 4's target
    // that no object has is said too. The check stopped at the duplicate.
    let text = FLAT
        .replace("{\"id\": 3, \"parent\": 1},", "{\"id\": 3, \"parent\": 1},\n  {\"id\": 3, \"parent\": 2},")
        .replace("\"target\": 2", "\"target\": 9");
    let problems: Vec<String> = levelmerge_core::check_text(&codec_with_refs(), text.as_bytes()).iter().map(|p| p.to_string()).collect();
    assert_eq!(problems.len(), 2, "{text}\n{problems:#?}");
    assert!(problems[0].starts_with("line 5: duplicate id") && problems[0].contains("3 (first used on line 4)"), "{problems:#?}");
    assert!(problems[1].starts_with("line 6: ") && problems[1].contains("reference to missing object"), "{problems:#?}");
}

#[test]
fn concurrent_reparenting_cycle_is_broken_alike_either_way_and_reported() {
    // Ours puts 2 under 3, theirs puts 3 under 2: each is fine alone, together a cycle. The
    // move of the smaller id, 2, is dropped, whichever side made it; the move of 3 stays.
    let o = FLAT.replace("{\"id\": 2, \"parent\": 1}", "{\"id\": 2, \"parent\": 3}");
    let t = FLAT.replace("{\"id\": 3, \"parent\": 1}", "{\"id\": 3, \"parent\": 2}");
    for (ours, theirs, mover) in [(&o, &t, "ours"), (&t, &o, "theirs")] {
        let r = merge_refs(FLAT, ours, theirs);
        assert_eq!(r.open_conflicts, 0);
        assert_eq!(r.notes.len(), 1, "{:?}", r.notes);
        assert!(r.notes[0].contains("cycle") && r.notes[0].contains(&format!("{mover} moved it")), "{:?}", r.notes);
        let text = String::from_utf8(r.text).unwrap();
        assert!(text.contains("{\"id\": 2, \"parent\": 1}") && text.contains("{\"id\": 3, \"parent\": 2}"), "{text}");
        assert!(levelmerge_core::check_text(&codec_with_refs(), text.as_bytes()).is_empty());
    }
}

#[test]
fn deleting_an_object_the_other_side_starts_to_reference_conflicts() {
    let o = FLAT.replace("  {\"id\": 3, \"parent\": 1},\n", "");
    let t = FLAT.replace("\"target\": 2", "\"target\": 3");
    let r = merge_refs(FLAT, &o, &t);
    assert_eq!(r.open_conflicts, 1, "{}", String::from_utf8_lossy(&r.text));
    assert_eq!(r.conflicts[0].kind, "delete-modify");
    assert_eq!(r.conflicts[0].object, "/objects[3]");
}

/// Preferring ours, which deleted 3 and 5: theirs added 6, which refers to 3, so 3 is kept
/// (with a note); nothing refers to 5, so its deletion stands although theirs edited it.
#[test]
fn a_preferred_deletion_is_undone_only_for_objects_the_merged_level_refers_to() {
    let base = FLAT.replace("\"target\": 2}\n", "\"target\": 2},\n  {\"id\": 5, \"parent\": 1, \"x\": 0}\n");
    let o = base.replace("  {\"id\": 3, \"parent\": 1},\n", "").replace(",\n  {\"id\": 5, \"parent\": 1, \"x\": 0}", "");
    let t = base.replace("\"x\": 0", "\"x\": 1").replace("\"target\": 2}", "\"target\": 2},\n  {\"id\": 6, \"parent\": 1, \"target\": 3}");
    let mut options = Options::default();
    options.policy.prefer = Some(levelmerge_core::Side::Ours);
    let r = merge_texts(&codec_with_refs(), Sides::new(base.as_bytes(), o.as_bytes(), t.as_bytes()), &options, &MarkerStyle::default())
        .expect("merge runs");
    let text = String::from_utf8(r.text).unwrap();
    assert_eq!(r.open_conflicts, 0, "{text}");
    assert!(text.contains("{\"id\": 3, \"parent\": 1}") && text.contains("{\"id\": 6, \"parent\": 1, \"target\": 3}"), "{text}");
    assert!(!text.contains("\"id\": 5"), "{text}");
    assert_eq!(r.notes.iter().filter(|n| n.contains("kept: ours deleted it")).count(), 1, "{:?}", r.notes);
    assert!(levelmerge_core::check_text(&codec_with_refs(), text.as_bytes()).is_empty(), "{text}");
}

/// Theirs pointed 4 at 3, which ours deleted: the target stands with 3. Preferring ours deletes
/// 3 and leaves 4's target as base had it, as ours' side of the marked merge does (a note
/// says so); preferring theirs keeps both.
#[test]
fn a_target_set_to_an_object_the_other_side_deleted_goes_with_it() {
    let o = FLAT.replace("  {\"id\": 3, \"parent\": 1},\n", "");
    let t = FLAT.replace("\"target\": 2", "\"target\": 3");
    let r = merge_refs(FLAT, &o, &t);
    assert_eq!(r.open_conflicts, 1, "{:?}", r.conflicts);
    let marked = String::from_utf8(r.text).unwrap();
    assert_eq!(levelmerge_testutils::laws::side_view(&marked, levelmerge_core::Side::Ours), o);
    assert_eq!(levelmerge_testutils::laws::side_view(&marked, levelmerge_core::Side::Theirs), t);
    assert!(r.notes.iter().any(|n| n.contains("target: set to name /objects[3]")), "{:?}", r.notes);
    for (prefer, expected) in [(levelmerge_core::Side::Ours, &o), (levelmerge_core::Side::Theirs, &t)] {
        let mut options = Options::default();
        options.policy.prefer = Some(prefer);
        let r = merge_texts(&codec_with_refs(), Sides::new(FLAT.as_bytes(), o.as_bytes(), t.as_bytes()), &options, &MarkerStyle::default())
            .expect("merge runs");
        assert_eq!(String::from_utf8(r.text).unwrap(), *expected, "{prefer} preferred");
    }
}

#[test]
fn deleting_a_parent_whose_child_the_other_side_edits_conflicts() {
    // Object 2 hangs under 1 by its parent field; ours deletes 1 and 2, theirs edits 2.
    let o = "{\"objects\": [\n  {\"id\": 3, \"parent\": 0},\n  {\"id\": 4, \"parent\": 0}\n]}\n";
    let base = "{\"objects\": [\n  {\"id\": 1, \"parent\": 0},\n  {\"id\": 2, \"parent\": 1},\n  {\"id\": 3, \"parent\": 0},\n  {\"id\": 4, \"parent\": 0}\n]}\n";
    let t = base.replace("{\"id\": 2, \"parent\": 1}", "{\"id\": 2, \"parent\": 1, \"name\": \"x\"}");
    let r = merge_refs(base, o, &t);
    assert!(r.open_conflicts >= 1);
    assert!(r.conflicts.iter().any(|c| c.kind == "delete-modify" && c.object == "/objects[1]"), "{:?}", r.conflicts);
}

#[test]
fn deleting_a_parent_after_moving_its_child_out_keeps_the_other_sides_edit_of_the_child() {
    // Ours moves 2 from under 1 to under 3, then deletes 1; theirs edits 2. The edit is no
    // longer inside what ours deleted: no conflict, 2 under 3 with theirs' name.
    let base = "{\"objects\": [\n  {\"id\": 1, \"parent\": 0},\n  {\"id\": 2, \"parent\": 1},\n  {\"id\": 3, \"parent\": 0},\n  {\"id\": 4, \"parent\": 0}\n]}\n";
    let o = "{\"objects\": [\n  {\"id\": 2, \"parent\": 3},\n  {\"id\": 3, \"parent\": 0},\n  {\"id\": 4, \"parent\": 0}\n]}\n";
    let t = base.replace("{\"id\": 2, \"parent\": 1}", "{\"id\": 2, \"parent\": 1, \"name\": \"x\"}");
    for (ours, theirs, swapped) in [(o, t.as_str(), false), (t.as_str(), o, true)] {
        let r = merge_refs(base, ours, theirs);
        let text = String::from_utf8(r.text).unwrap();
        assert_eq!(r.open_conflicts, 0, "swapped {swapped}: {:?}\n{text}", r.conflicts);
        assert!(text.contains("{\"id\": 2, \"parent\": 3, \"name\": \"x\"}") && !text.contains("\"id\": 1,"), "{text}");
        assert!(levelmerge_core::check_text(&codec_with_refs(), text.as_bytes()).is_empty(), "{text}");
    }
    // Moved by the side that edits it, into the parent the other side deleted: still a conflict.
    let t = base.replace("{\"id\": 3, \"parent\": 0}", "{\"id\": 3, \"parent\": 1}");
    let o = base.replace("  {\"id\": 1, \"parent\": 0},\n", "").replace("{\"id\": 2, \"parent\": 1}", "{\"id\": 2, \"parent\": 4}");
    let r = merge_refs(base, &o, &t);
    assert!(r.conflicts.iter().any(|c| c.kind == "delete-modify" && c.object == "/objects[1]"), "{:?}", r.conflicts);
}

#[test]
fn deleting_a_subtree_nobody_touched_takes_it_all() {
    let base = "{\"rooms\": [\n  {\"id\": \"a\", \"props\": [{\"id\": 1, \"x\": 0}, {\"id\": 2, \"x\": 0}]},\n  {\"id\": \"b\", \"props\": []}\n]}\n";
    let o = "{\"rooms\": [\n  {\"id\": \"b\", \"props\": []}\n]}\n";
    let t = base.replace("{\"id\": \"b\", \"props\": []}", "{\"id\": \"b\", \"props\": [{\"id\": 9, \"x\": 1}]}");
    let (m, c) = merge(base, o, &t);
    assert_eq!(c, 0);
    assert_eq!(m, "{\"rooms\": [\n  {\"id\": \"b\", \"props\": [{\"id\": 9, \"x\": 1}]}\n]}\n");
}

#[test]
fn editing_inside_a_deleted_subtree_conflicts() {
    let base = "{\"rooms\": [\n  {\"id\": \"a\", \"props\": [{\"id\": 1, \"x\": 0}]},\n  {\"id\": \"b\"}\n]}\n";
    let o = "{\"rooms\": [\n  {\"id\": \"b\"}\n]}\n";
    let t = base.replace("\"x\": 0", "\"x\": 5");
    let (m, c) = merge(base, o, &t);
    assert!(c >= 1, "{m}");
    assert!(m.contains("<<<<<<< ours") && m.contains("\"x\": 5"), "{m}");
}

#[test]
fn same_id_added_on_both_sides_with_different_content_conflicts() {
    let o = BASE.replace("\"x\": 20 }\n", "\"x\": 20 },\n    { \"id\": 3, \"name\": \"key\" }\n");
    let t = BASE.replace("\"x\": 20 }\n", "\"x\": 20 },\n    { \"id\": 3, \"name\": \"coin\" }\n");
    let (m, c) = merge(BASE, &o, &t);
    assert_eq!(c, 1, "{m}");
    let same = merge(BASE, &o, &o);
    assert_eq!(same, (o.clone(), 0));
}

#[test]
fn lists_without_identity_merge_like_diff3() {
    let base = "{\"tiles\": [0, 0, 0, 0, 0, 0]}";
    assert_eq!(
        merge(base, "{\"tiles\": [1, 0, 0, 0, 0, 0]}", "{\"tiles\": [0, 0, 0, 0, 0, 2]}"),
        ("{\"tiles\": [1, 0, 0, 0, 0, 2]}".into(), 0)
    );
    let (_, c) = merge(base, "{\"tiles\": [0, 0, 1, 0]}", "{\"tiles\": [0, 0, 2, 0, 0, 0]}");
    assert_eq!(c, 1);
}

#[test]
fn items_both_sides_insert_at_one_place_are_all_kept_ours_first() {
    let base = "{\"spawns\": [\"a\", \"b\"]}";
    let ours = "{\"spawns\": [\"a\", \"b\", \"x\"]}";
    let theirs = "{\"spawns\": [\"a\", \"b\", \"y\", \"z\"]}";
    assert_eq!(merge(base, ours, theirs), ("{\"spawns\": [\"a\", \"b\", \"x\", \"y\", \"z\"]}".into(), 0));
    assert_eq!(merge(base, theirs, ours), ("{\"spawns\": [\"a\", \"b\", \"y\", \"z\", \"x\"]}".into(), 0));
    // Replacing an item is not an insertion: both replacing it differently still conflicts.
    let (_, c) = merge(base, "{\"spawns\": [\"a\", \"x\"]}", "{\"spawns\": [\"a\", \"y\"]}");
    assert_eq!(c, 1);
}

#[test]
fn gdevelop_events_both_sides_insert_at_one_place_conflict() {
    let sheet = |events: &str| format!("{{\"gdVersion\": {{\"major\": 4}}, \"properties\": {{}}, \"events\": [{events}]}}");
    let (base, ours, theirs) =
        (sheet("{\"type\": \"a\"}"), sheet("{\"type\": \"a\"}, {\"type\": \"x\"}"), sheet("{\"type\": \"a\"}, {\"type\": \"y\"}"));
    assert_eq!(merge(&base, &ours, &theirs).1, 1);
    // Its placed instances are a collection: both sides' new instances are kept.
    let scene = |instances: &str| format!("{{\"gdVersion\": {{\"major\": 4}}, \"instances\": [{instances}], \"events\": []}}");
    let (base, ours, theirs) =
        (scene("{\"name\": \"a\"}"), scene("{\"name\": \"a\"}, {\"name\": \"x\"}"), scene("{\"name\": \"a\"}, {\"name\": \"y\"}"));
    assert_eq!(merge(&base, &ours, &theirs), (scene("{\"name\": \"a\"}, {\"name\": \"x\"}, {\"name\": \"y\"}"), 0));
}

#[test]
fn items_inserted_beside_items_the_other_side_changed_are_kept_with_the_change() {
    // Theirs replaces the last two items; ours keeps them and appends two after them.
    let base = r#"{"spawns": ["a", "b", "c"]}"#;
    let ours = r#"{"spawns": ["a", "b", "c", "x", "y"]}"#;
    let theirs = r#"{"spawns": ["a", "z"]}"#;
    assert_eq!(merge(base, ours, theirs), (r#"{"spawns": ["a", "z", "x", "y"]}"#.into(), 0));
    assert_eq!(merge(base, theirs, ours), (r#"{"spawns": ["a", "z", "x", "y"]}"#.into(), 0), "the same with sides swapped");
    // Inserted before the changed run: before it in the result.
    let ours = r#"{"spawns": ["a", "x", "b", "c"]}"#;
    let theirs = r#"{"spawns": ["a", "z"]}"#;
    assert_eq!(merge(base, ours, theirs), (r#"{"spawns": ["a", "x", "z"]}"#.into(), 0));
    // An "insertion" that brings back an item the other side took out stays a conflict.
    let ours = r#"{"spawns": ["a", "b", "c", "b"]}"#;
    assert_eq!(merge(base, ours, theirs).1, 1);
    // In a GDevelop event sheet (a program), where the new events go is the question.
    let sheet = |events: &str| format!("{{\"gdVersion\": {{\"major\": 4}}, \"events\": [{events}]}}");
    let (base, ours, theirs) = (sheet("1, 2"), sheet("1, 2, 3"), sheet("1, 9"));
    assert_eq!(merge(&base, &ours, &theirs).1, 1);
}

#[test]
fn a_change_that_holds_the_items_the_other_side_inserted_beside_it_is_taken_once() {
    // The merge above, merged again with the side that appended: its change holds the new
    // items already, where they go. Not them twice, and no conflict.
    let base = r#"{"spawns": ["a", "b", "c"]}"#;
    let (appended, merged) = (r#"{"spawns": ["a", "b", "c", "x", "y"]}"#, r#"{"spawns": ["a", "z", "x", "y"]}"#);
    assert_eq!(merge(base, appended, merged), (merged.into(), 0));
    assert_eq!(merge(base, merged, appended), (merged.into(), 0));
    let (prepended, merged) = (r#"{"spawns": ["x", "a", "b", "c"]}"#, r#"{"spawns": ["x", "z", "c"]}"#);
    assert_eq!(merge(base, prepended, merged), (merged.into(), 0));
    // A change that holds only some of them stays a conflict: which are which is a guess.
    assert_eq!(merge(base, appended, r#"{"spawns": ["a", "z", "x"]}"#).1, 1);
}

#[test]
fn items_edited_in_place_and_extended_merge_item_by_item() {
    // Ours edits the second item and appends one; theirs adds a member to every item.
    let base = r#"{"steps": [{"n": 1}, {"n": 2}]}"#;
    let ours = r#"{"steps": [{"n": 1}, {"n": 20}, {"n": 3, "d": 0}]}"#;
    let theirs = r#"{"steps": [{"n": 1, "d": 0}, {"n": 2, "d": 0}]}"#;
    assert_eq!(merge(base, ours, theirs), (r#"{"steps": [{"n": 1, "d": 0}, {"n": 20, "d": 0}, {"n": 3, "d": 0}]}"#.into(), 0));
    // When the paired items clash, the run is one conflict.
    let theirs = r#"{"steps": [{"n": 1}, {"n": 9}]}"#;
    assert_eq!(merge(base, ours, theirs).1, 1);
}

#[test]
fn a_volatile_struct_is_taken_whole_from_one_side() {
    use levelmerge_core::policy::{Policy, Rule, RuleAction};
    let options = Options {
        policy: Policy { prefer: None, rules: vec![Rule { pattern: "view".into(), action: RuleAction::Ignore }] },
        ..Options::default()
    };
    let merge = |b: &str, o: &str, t: &str| {
        let r = merge_texts(&JsonCodec::default(), Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &options, &MarkerStyle::default())
            .expect("merge runs");
        (String::from_utf8(r.text).unwrap(), r.open_conflicts)
    };
    // Ours zoomed on x and y only, theirs on all three: never x and y of one with z of the other.
    let base = r#"{"view": {"x": 1, "y": 1, "z": 1}, "n": 0}"#;
    let ours = r#"{"view": {"x": 2, "y": 2, "z": 1}, "n": 0}"#;
    let theirs = r#"{"view": {"x": 3, "y": 3, "z": 3}, "n": 5}"#;
    assert_eq!(merge(base, ours, theirs), (r#"{"view": {"x": 2, "y": 2, "z": 1}, "n": 5}"#.into(), 0));
}

#[test]
fn tiled_editor_settings_are_the_saving_users_and_never_conflict() {
    let map = |settings: &str| format!("{{\"tiledversion\": \"1.8\", \"nextobjectid\": 1,{settings} \"layers\": []}}");
    let (base, ours, theirs) = (
        map(""),
        map(" \"editorsettings\": {\"export\": {\"format\": \"json\", \"target\": \"map.json\"}},"),
        map(" \"editorsettings\": {\"export\": {\"target\": \".\"}},"),
    );
    // Taken whole from one side: never ours' format with theirs' target.
    assert_eq!(merge(&base, &ours, &theirs), (ours.clone(), 0));
}

#[test]
fn every_style_round_trips_and_keeps_its_style() {
    let styles = [
        "{\n  \"a\": 1,\n  \"list\": [\n    {\"id\": 1, \"v\": 1.50},\n    {\"id\": 2, \"v\": 5.6e-14}\n  ]\n}\n",
        "{\n    \"a\": 1,\n    \"list\": [\n        {\"id\": 1, \"v\": 1.50},\n        {\"id\": 2, \"v\": 5.6e-14}\n    ]\n}",
        "{\n\t\"a\": 1,\n\t\"list\": [\n\t\t{\"id\": 1, \"v\": 1.50},\n\t\t{\"id\": 2, \"v\": 5.6e-14}\n\t]\n}\n",
        "{\"a\":1,\"list\":[{\"id\":1,\"v\":1.50},{\"id\":2,\"v\":5.6e-14}]}",
        "{\r\n  \"a\": 1,\r\n  \"list\": [\r\n    {\"id\": 1, \"v\": 1.50},\r\n    {\"id\": 2, \"v\": 5.6e-14}\r\n  ]\r\n}\r\n",
        "\u{feff}{ \"a\" : 1 , \"list\" : [ {\"id\": 1, \"v\": 1.50} , {\"id\": 2, \"v\": 5.6e-14} ] }\n",
    ];
    for s in styles {
        assert_eq!(merge(s, s, s), (s.to_owned(), 0), "round trip of {s:?}");
        // A new element on one side and an edit on the other keep the file's style.
        let o = s.replacen("\"a\"", "\"b\"", 1);
        let t = s.replace("5.6e-14}", "5.6e-14}, {\"id\": 3, \"v\": 18.000000000000057}");
        let (m, c) = merge(s, &o, &t);
        assert_eq!(c, 0, "{s:?}");
        assert_eq!(m, t.replacen("\"a\"", "\"b\"", 1), "style of {s:?}");
    }
}

#[test]
fn sjson_round_trips_and_merges() {
    let codec = JsonCodec::new(Some(levelmerge_json::Dialect::Sjson), Default::default());
    let base = "// Crown-style level\n_guid = \"fed2\"\nunits = [\n\t{\n\t\t_guid = \"20e3\"\n\t\tname = \"light\"\n\t\tpos = [0 0 1]\n\t}\n\t{\n\t\t_guid = \"31aa\"\n\t\tname = \"box\"\n\t\tpos = [1 0 0]\n\t}\n]\n/* end */\n";
    let run = |b: &str, o: &str, t: &str| {
        let r = merge_texts(&codec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &MarkerStyle::default())
            .unwrap();
        (String::from_utf8(r.text).unwrap(), r.open_conflicts)
    };
    assert_eq!(run(base, base, base), (base.to_owned(), 0));
    let o = base.replace("\"light\"", "\"sun\"");
    let t = base.replace("[1 0 0]", "[2 0 0]");
    assert_eq!(run(base, &o, &t), (base.replace("\"light\"", "\"sun\"").replace("[1 0 0]", "[2 0 0]"), 0));
}

#[test]
fn policies_settle_conflicts() {
    use levelmerge_core::policy::{Policy, Rule, RuleAction};
    let o = BASE.replace("\"x\": 10", "\"x\": 11");
    let t = BASE.replace("\"x\": 10", "\"x\": 12");
    let run = |policy: Policy| {
        let r = merge_texts(
            &JsonCodec::default(),
            Sides::new(BASE.as_bytes(), o.as_bytes(), t.as_bytes()),
            &Options { policy, ..Options::default() },
            &MarkerStyle::default(),
        )
        .unwrap();
        (String::from_utf8(r.text).unwrap(), r.open_conflicts)
    };
    assert_eq!(run(Policy { prefer: Some(levelmerge_core::Side::Theirs), rules: vec![] }), (t.clone(), 0));
    assert_eq!(run(Policy { prefer: None, rules: vec![Rule { pattern: "x".into(), action: RuleAction::Ignore }] }), (o.clone(), 0));
    assert_eq!(
        run(Policy { prefer: None, rules: vec![Rule { pattern: "entities.x".into(), action: RuleAction::Theirs }] }),
        (t.clone(), 0)
    );
    assert_eq!(run(Policy { prefer: None, rules: vec![Rule { pattern: "y*".into(), action: RuleAction::Theirs }] }).1, 1);
    assert_eq!(run(Policy { prefer: None, rules: vec![Rule { pattern: "x".into(), action: RuleAction::Max }] }), (t.clone(), 0));
    // 11 and 12 agree above their low 3 bits (both 1 when shifted), not above their low 2.
    let low_bits = |bits| Policy { prefer: None, rules: vec![Rule { pattern: "x".into(), action: RuleAction::IgnoreLowBits(bits) }] };
    assert_eq!(run(low_bits(3)), (o.clone(), 0));
    assert_eq!(run(low_bits(2)).1, 1);
    // A rule that cannot settle a conflict leaves it to the preference.
    assert_eq!(run(Policy { prefer: Some(levelmerge_core::Side::Theirs), ..low_bits(2) }), (t.clone(), 0));
    let words = |x: &str| BASE.replace("\"name\": \"door\"", x);
    let (wb, wo, wt) = (words("\"name\": \"a\""), words("\"name\": \"b\""), words("\"name\": \"c\""));
    let r = merge_texts(
        &JsonCodec::default(),
        Sides::new(wb.as_bytes(), wo.as_bytes(), wt.as_bytes()),
        &Options {
            policy: Policy { prefer: None, rules: vec![Rule { pattern: "name".into(), action: RuleAction::Max }] },
            ..Options::default()
        },
        &MarkerStyle::default(),
    )
    .unwrap();
    assert_eq!(r.open_conflicts, 1, "a counter rule settles numbers only");
}

const LDTK: &str = "{\n\t\"__header__\": { \"app\": \"LDtk\" },\n\t\"nextUid\": 10,\n\t\"defs\": { \"entities\": [\n\t\t{ \"identifier\": \"Door\", \"uid\": 8 },\n\t\t{ \"identifier\": \"Key\", \"uid\": 9 }\n\t] }\n}\n";

#[test]
fn ldtk_next_uid_bumped_on_both_sides_takes_the_larger() {
    let o = LDTK.replace("\"nextUid\": 10", "\"nextUid\": 12").replace("\"uid\": 8 }", "\"uid\": 8, \"width\": 2 }");
    let t = LDTK.replace("\"nextUid\": 10", "\"nextUid\": 11").replace("\"uid\": 9 }", "\"uid\": 9, \"width\": 3 }");
    let (m, c) = merge(LDTK, &o, &t);
    assert_eq!(c, 0, "{m}");
    assert_eq!(m, o.replace("\"uid\": 9 }", "\"uid\": 9, \"width\": 3 }"));
    // Without the LDtk header the counter is an ordinary property: a conflict.
    let plain = |s: &str| s.replace("\"__header__\"", "\"header\"");
    assert_eq!(merge(&plain(LDTK), &plain(&o), &plain(&t)).1, 1);
}

/// LDtk with an entity definition, an enum, and a level whose layer places a `Door`.
const LDTK_WORLD: &str = "{\n\t\"__header__\": { \"app\": \"LDtk\" },\n\t\"nextUid\": 12,\n\t\"defs\": {\n\t\t\"entities\": [\n\t\t\t{ \"identifier\": \"Door\", \"uid\": 8 }\n\t\t],\n\t\t\"enums\": [\n\t\t\t{ \"identifier\": \"Colour\", \"uid\": 9 }\n\t\t]\n\t},\n\t\"levels\": [\n\t\t{ \"identifier\": \"Start\", \"uid\": 10, \"layerInstances\": [\n\t\t\t{ \"levelId\": 10, \"entityInstances\": [\n\t\t\t\t{ \"iid\": \"a\", \"defUid\": 8 }\n\t\t\t] }\n\t\t] }\n\t]\n}\n";

/// `LDTK_WORLD` with one more entity definition and, when `placed`, an instance of it.
fn ldtk_with_entity(definition: &str, uid: u32, placed: bool) -> String {
    let with_def = LDTK_WORLD
        .replace("\"nextUid\": 12", &format!("\"nextUid\": {}", uid + 1))
        .replace("\"uid\": 8 }\n", &format!("\"uid\": 8 }},\n\t\t\t{definition}\n"));
    if !placed {
        return with_def;
    }
    with_def.replace("\"defUid\": 8 }\n", &format!("\"defUid\": 8 }},\n\t\t\t\t{{ \"iid\": \"{uid}\", \"defUid\": {uid} }}\n"))
}

#[test]
fn ldtk_definitions_both_sides_added_under_one_uid_are_both_kept() {
    let ours = ldtk_with_entity("{ \"identifier\": \"Key\", \"uid\": 12 }", 12, true);
    let field = "{ \"identifier\": \"Lamp\", \"uid\": 12, \"fieldDefs\": [{ \"uid\": 13, \"type\": \"F_Enum(9)\" }] }";
    let theirs = ldtk_with_entity(field, 13, true).replace("\"iid\": \"13\", \"defUid\": 13", "\"iid\": \"13\", \"defUid\": 12");
    let (m, c) = merge(LDTK_WORLD, &ours, &theirs);
    assert_eq!(c, 0, "{m}");
    // Theirs' Lamp is 14 now (above ours' 12, theirs' field 13 and both counters), and theirs'
    // instance of it follows; the enum uid 9 in its field type is left alone.
    let lamp = "{ \"identifier\": \"Lamp\", \"uid\": 14, \"fieldDefs\": [{ \"uid\": 13, \"type\": \"F_Enum(9)\" }] }";
    let expected = ldtk_with_entity(&format!("{{ \"identifier\": \"Key\", \"uid\": 12 }},\n\t\t\t{lamp}"), 12, true)
        .replace("\"nextUid\": 13", "\"nextUid\": 15")
        .replace("\"defUid\": 12 }\n", "\"defUid\": 12 },\n\t\t\t\t{ \"iid\": \"13\", \"defUid\": 14 }\n");
    assert_eq!(m, expected);
}

#[test]
fn ldtk_enum_types_follow_a_renumbered_enum() {
    let add_enum = |text: &str, name: &str| {
        text.replace("\"nextUid\": 12", "\"nextUid\": 13")
            .replace("\"uid\": 9 }\n", &format!("\"uid\": 9 }},\n\t\t\t{{ \"identifier\": \"{name}\", \"uid\": 12 }}\n"))
    };
    let ours = add_enum(LDTK_WORLD, "Shape");
    let typed =
        |uid: u32| format!("{{ \"identifier\": \"Door\", \"uid\": 8, \"fieldDefs\": [{{ \"uid\": 7, \"type\": \"F_Enum({uid})\" }}] }}");
    let theirs = add_enum(LDTK_WORLD, "Size").replace("{ \"identifier\": \"Door\", \"uid\": 8 }", &typed(12));
    let (m, c) = merge(LDTK_WORLD, &ours, &theirs);
    assert_eq!(c, 0, "{m}");
    let expected = add_enum(LDTK_WORLD, "Shape")
        .replace("\"nextUid\": 13", "\"nextUid\": 14")
        .replace("\"uid\": 12 }\n", "\"uid\": 12 },\n\t\t\t{ \"identifier\": \"Size\", \"uid\": 13 }\n")
        .replace("{ \"identifier\": \"Door\", \"uid\": 8 }", &typed(13));
    assert_eq!(m, expected);
}

#[test]
fn ldtk_definitions_of_one_name_added_under_two_uids_are_one_definition() {
    // Theirs added Key and then Lamp; ours added Lamp alone, which took Key's uid in theirs.
    let ours = ldtk_with_entity("{ \"identifier\": \"Lamp\", \"uid\": 12 }", 12, false);
    let theirs = ldtk_with_entity("{ \"identifier\": \"Key\", \"uid\": 12 },\n\t\t\t{ \"identifier\": \"Lamp\", \"uid\": 13 }", 13, false);
    let outcome = merged(LDTK_WORLD, &ours, &theirs);
    let m = String::from_utf8(outcome.text).unwrap();
    assert_eq!(outcome.open_conflicts, 0, "{m}");
    // Theirs' Lamp is ours' (uid 12); theirs' Key moves above every uid and counter, and
    // stays before the Lamp, as theirs has it.
    let both = "{ \"identifier\": \"Key\", \"uid\": 14 },\n\t\t\t{ \"identifier\": \"Lamp\", \"uid\": 12 }";
    assert_eq!(m, ldtk_with_entity(both, 12, false).replace("\"nextUid\": 13", "\"nextUid\": 15"));
    assert!(outcome.notes.iter().any(|n| n.contains("13 is ours' 12")), "{:?}", outcome.notes);
    // Made differently on the two sides, the one definition is a conflict, never two Lamps.
    let theirs = theirs.replace("\"Lamp\", \"uid\": 13 }", "\"Lamp\", \"uid\": 13, \"width\": 32 }");
    let (m, c) = merge(LDTK_WORLD, &ours, &theirs);
    assert_eq!(c, 1, "{m}");
    assert_eq!(m.matches("\"Lamp\"").count(), 2, "once on each side of the conflict: {m}");
}

#[test]
fn ldtk_a_uid_given_to_a_level_and_a_definition_is_no_collision() {
    // LDtk looks levels and definitions up apart; the two sides' new objects do not clash.
    let ours = ldtk_with_entity("{ \"identifier\": \"Key\", \"uid\": 12 }", 12, false);
    let theirs = LDTK_WORLD
        .replace("\"nextUid\": 12", "\"nextUid\": 13")
        .replace("\t\t] }\n\t]\n}", "\t\t] },\n\t\t{ \"identifier\": \"End\", \"uid\": 12, \"layerInstances\": [] }\n\t]\n}");
    let (m, c) = merge(LDTK_WORLD, &ours, &theirs);
    assert_eq!(c, 0, "{m}");
    assert!(m.contains("{ \"identifier\": \"End\", \"uid\": 12,") && m.contains("{ \"identifier\": \"Key\", \"uid\": 12 }"), "{m}");
}

#[test]
fn ldtk_a_definition_one_side_deleted_while_the_other_placed_it_is_a_conflict() {
    // Ours deletes the Door definition and its one instance.
    let ours = LDTK_WORLD
        .replace("[\n\t\t\t{ \"identifier\": \"Door\", \"uid\": 8 }\n\t\t]", "[]")
        .replace("[\n\t\t\t\t{ \"iid\": \"a\", \"defUid\": 8 }\n\t\t\t]", "[]");
    assert!(!ours.contains("\"uid\": 8"));
    let theirs = LDTK_WORLD
        .replace("{ \"iid\": \"a\", \"defUid\": 8 }", "{ \"iid\": \"a\", \"defUid\": 8 },\n\t\t\t\t{ \"iid\": \"b\", \"defUid\": 8 }");
    let (m, c) = merge(LDTK_WORLD, &ours, &theirs);
    assert_eq!(c, 1, "theirs' new Door would name a definition ours deleted: {m}");
    // Without theirs' new Door the deletion merges.
    let theirs = LDTK_WORLD.replace("\"uid\": 10,", "\"uid\": 10, \"bgColor\": \"#000\",");
    let (m, c) = merge(LDTK_WORLD, &ours, &theirs);
    assert_eq!(c, 0, "{m}");
    assert_eq!(m, ours.replace("\"uid\": 10,", "\"uid\": 10, \"bgColor\": \"#000\","));
}

#[test]
fn ldtk_an_instance_moved_while_its_definition_was_deleted_is_a_conflict() {
    // The level names the definition as often as before (the instance only moved to another
    // layer), so only the merged level shows the reference left without its definition: the
    // deletion is then merged again as a conflict.
    let one_layer = "\t\t\t{ \"levelId\": 10, \"entityInstances\": [\n\t\t\t\t{ \"iid\": \"a\", \"defUid\": 8 }\n\t\t\t] }";
    let base = LDTK_WORLD.replace(one_layer, &format!("{one_layer},\n\t\t\t{{ \"levelId\": 10, \"entityInstances\": [] }}"));
    let ours = base
        .replace("[\n\t\t\t{ \"identifier\": \"Door\", \"uid\": 8 }\n\t\t]", "[]")
        .replace("[\n\t\t\t\t{ \"iid\": \"a\", \"defUid\": 8 }\n\t\t\t]", "[]");
    let theirs = base.replace(
        "[\n\t\t\t\t{ \"iid\": \"a\", \"defUid\": 8 }\n\t\t\t] },\n\t\t\t{ \"levelId\": 10, \"entityInstances\": [] }",
        "[] },\n\t\t\t{ \"levelId\": 10, \"entityInstances\": [\n\t\t\t\t{ \"iid\": \"a\", \"defUid\": 8 }\n\t\t\t] }",
    );
    assert!(ours != base && theirs != base);
    let r = merged(&base, &ours, &theirs);
    assert_eq!(r.open_conflicts, 1);
    assert!(r.conflicts.iter().any(|c| c.kind == "delete-modify" && c.object.contains("defs.entities[8]")), "{:?}", r.conflicts);
}

#[test]
fn ldtk_a_value_given_for_a_field_the_other_side_deleted_is_a_conflict() {
    // As LDtk writes them: levels, layers and instances carry iids, and field instances are keyed
    // by the `defUid` of their field definition.
    let base = "{\n\t\"__header__\": { \"app\": \"LDtk\" },\n\t\"nextUid\": 14,\n\t\"defs\": {\n\t\t\"entities\": [\n\t\t\t{ \"identifier\": \"Door\", \"uid\": 8, \"fieldDefs\": [\n\t\t\t\t{ \"identifier\": \"locked\", \"uid\": 13 }\n\t\t\t] }\n\t\t]\n\t},\n\t\"levels\": [\n\t\t{ \"identifier\": \"Start\", \"iid\": \"S\", \"uid\": 10, \"layerInstances\": [\n\t\t\t{ \"iid\": \"L\", \"levelId\": 10, \"entityInstances\": [\n\t\t\t\t{ \"iid\": \"a\", \"defUid\": 8, \"fieldInstances\": [{ \"defUid\": 13, \"__value\": true }] }\n\t\t\t] }\n\t\t] }\n\t]\n}\n";
    let ours = base
        .replace("[\n\t\t\t\t{ \"identifier\": \"locked\", \"uid\": 13 }\n\t\t\t]", "[]")
        .replace("\"fieldInstances\": [{ \"defUid\": 13, \"__value\": true }]", "\"fieldInstances\": []");
    let a = "{ \"iid\": \"a\", \"defUid\": 8, \"fieldInstances\": [{ \"defUid\": 13, \"__value\": true }] }";
    let theirs = base.replace(
        a,
        &format!("{a},\n\t\t\t\t{{ \"iid\": \"b\", \"defUid\": 8, \"fieldInstances\": [{{ \"defUid\": 13, \"__value\": false }}] }}"),
    );
    assert!(ours != base && theirs != base);
    let (m, c) = merge(base, &ours, &theirs);
    assert_eq!(c, 1, "theirs' new door holds a value for the field ours deleted: {m}");
}

#[test]
fn ldtk_pixel_caches_are_volatile() {
    let base = LDTK.replace("\"uid\": 9 }", "\"uid\": 9, \"cachedPixelData\": { \"opaqueTiles\": \"00\" } }");
    let o = base.replace("\"00\"", "\"01\"").replace("\"uid\": 8 }", "\"uid\": 8, \"width\": 2 }");
    let t = base.replace("\"00\"", "\"10\"");
    let (m, c) = merge(&base, &o, &t);
    assert_eq!(c, 0, "{m}");
    assert_eq!(m, o, "ours' cache is kept");
}

/// An LDtk level file whose tile layer holds `tiles` (one per line, as LDtk writes them).
fn ldtk_tiles(tiles: &[&str]) -> String {
    let lines: Vec<String> = tiles.iter().map(|t| format!("\t\t\t{{ \"px\": [{t}], \"f\": 0, \"a\": 1 }}")).collect();
    format!(
        "{{\n\t\"__header__\": {{ \"app\": \"LDtk\" }},\n\t\"layerInstances\": [\n\t\t{{ \"iid\": \"L\", \"gridTiles\": [\n{}\n\t\t] }}\n\t]\n}}\n",
        lines.join(",\n")
    )
}

#[test]
fn ldtk_tiles_painted_at_one_place_in_the_list_merge_by_their_position() {
    // Each side paints a cell of its own; LDtk writes both new tiles after the same one.
    let base = ldtk_tiles(&["0,0", "32,0"]);
    let ours = ldtk_tiles(&["0,0", "0,32", "32,0"]);
    let theirs = ldtk_tiles(&["0,0", "16,32", "32,0"]);
    let (m, c) = merge(&base, &ours, &theirs);
    assert_eq!(c, 0, "{m}");
    assert_eq!(m, ldtk_tiles(&["0,0", "0,32", "16,32", "32,0"]));
    // Both paint one cell, differently: the tiles would be stacked, which neither side did.
    let theirs_same_cell = ldtk_tiles(&["0,0", "0,32", "32,0"]).replace("[0,32], \"f\": 0", "[0,32], \"f\": 1");
    let outcome = merged(&base, &ours, &theirs_same_cell);
    assert_eq!(outcome.open_conflicts, 1);
    let open: Vec<&str> = outcome.conflicts.iter().filter(|c| c.resolved.is_none()).map(|c| c.object.as_str()).collect();
    assert_eq!(open, ["/layerInstances[L]/gridTiles[0,32]"], "the conflict names the cell");
}

#[test]
fn ldtk_stacked_tiles_are_told_apart_by_their_order_at_a_position() {
    // Two tiles stacked at 0,0: ours flips the lower one, theirs fades the upper one.
    let base = ldtk_tiles(&["0,0", "0,0", "32,0"]);
    let ours = base.replacen("\"f\": 0", "\"f\": 1", 1);
    let nth = base.match_indices("\"a\": 1").nth(1).unwrap().0;
    let theirs = format!("{}\"a\": 0.5{}", &base[..nth], &base[nth + "\"a\": 1".len()..]);
    let (m, c) = merge(&base, &ours, &theirs);
    assert_eq!(c, 0, "{m}");
    let lower = m.find("\"f\": 1, \"a\": 1").expect("ours' flip");
    let upper = m.find("\"f\": 0, \"a\": 0.5").expect("theirs' fade");
    assert!(lower < upper, "the stack keeps its order: {m}");
    // Ours removes the lower tile while theirs fades the upper one, which took its place.
    let lower_removed = ldtk_tiles(&["0,0", "32,0"]);
    assert_eq!(merge(&base, &lower_removed, &theirs).1, 1);
}

const GDEVELOP: &str = r#"{
  "gdVersion": { "major": 5 },
  "uiSettings": { "zoomFactor": 0.5 },
  "objects": [
    { "name": "Player", "type": "Sprite", "speed": 1 },
    { "name": "Enemy", "type": "Sprite", "speed": 2 }
  ]
}
"#;

#[test]
fn gdevelop_objects_merge_by_name_and_view_state_is_volatile() {
    let o = GDEVELOP
        .replace("\"zoomFactor\": 0.5", "\"zoomFactor\": 0.7")
        .replace("\"speed\": 2 }\n", "\"speed\": 2 },\n    { \"name\": \"Coin\", \"type\": \"Sprite\", \"speed\": 0 }\n");
    let t = GDEVELOP.replace("\"zoomFactor\": 0.5", "\"zoomFactor\": 0.2").replace("\"speed\": 1 }", "\"speed\": 5 }");
    let (m, c) = merge(GDEVELOP, &o, &t);
    assert_eq!(c, 0, "{m}");
    assert_eq!(m, o.replace("\"speed\": 1 }", "\"speed\": 5 }"));
    // One side puts an object where the other edited one: matched by name, not by position.
    let coin = "    { \"name\": \"Coin\", \"type\": \"Sprite\", \"speed\": 0 },\n";
    let o = GDEVELOP.replace("    { \"name\": \"Enemy\"", &format!("{coin}    {{ \"name\": \"Enemy\""));
    let t = GDEVELOP
        .replace("    { \"name\": \"Player\", \"type\": \"Sprite\", \"speed\": 1 },\n", "")
        .replace("\"speed\": 2 }", "\"speed\": 3 }");
    let (m, c) = merge(GDEVELOP, &o, &t);
    assert_eq!(c, 0, "{m}");
    assert_eq!(m, t.replace("    { \"name\": \"Enemy\"", &format!("{coin}    {{ \"name\": \"Enemy\"")));
}

#[test]
fn a_member_renamed_on_both_sides_merges_the_edits_made_under_either_name() {
    let base = "{\n  \"speed\": 1,\n  \"table\": [1, 2, 3]\n}\n";
    let ours = "{\n  \"speed\": 2,\n  \"rows\": [1, 2, 9]\n}\n";
    let theirs = "{\n  \"speed\": 1,\n  \"rows\": [0, 2, 3]\n}\n";
    let (m, c) = merge(base, ours, theirs);
    assert_eq!(c, 0, "{m}");
    assert_eq!(m, "{\n  \"speed\": 2,\n  \"rows\": [0, 2, 9]\n}\n");
}

#[test]
fn a_member_renamed_on_one_side_takes_the_other_sides_edit() {
    let base = "{\n  \"a\": 1,\n  \"old\": 5\n}\n";
    let ours = "{\n  \"a\": 1,\n  \"new\": 5\n}\n";
    let theirs = "{\n  \"a\": 1,\n  \"old\": 6\n}\n";
    let (m, c) = merge(base, ours, theirs);
    assert_eq!(c, 0, "{m}");
    assert_eq!(m, "{\n  \"a\": 1,\n  \"new\": 6\n}\n");
    // A renamed member whose value also changed is not taken for a rename: still a conflict.
    let (m, c) = merge(base, &ours.replace('5', "7"), theirs);
    assert_eq!(c, 1, "{m}");
}

#[test]
fn members_renamed_on_each_side_take_the_other_sides_edits_whichever_side_is_ours() {
    // Each side renames one member and edits the one the other renamed.
    let base = "{\n  \"a\": 1,\n  \"b\": [1]\n}\n";
    let ours = "{\n  \"a2\": 1,\n  \"b\": [1, 2]\n}\n";
    let theirs = "{\n  \"a\": 3,\n  \"b2\": [1]\n}\n";
    for (o, t) in [(ours, theirs), (theirs, ours)] {
        let (m, c) = merge(base, o, t);
        assert_eq!(c, 0, "{m}");
        assert_eq!(m, "{\n  \"a2\": 3,\n  \"b2\": [1, 2]\n}\n");
    }
}

#[test]
fn a_member_renamed_among_many_takes_the_other_sides_edit() {
    // More members than are scanned for: they are found through an index.
    let members = |renamed: bool, value: u32| {
        let mut m: Vec<String> = (0..60).map(|i| format!("  \"field{i}\": {i}")).collect();
        m[30] = format!("  \"{}\": {value}", if renamed { "speed" } else { "velocity" });
        format!("{{\n{}\n}}\n", m.join(",\n"))
    };
    let (m, c) = merge(&members(false, 5), &members(true, 5), &members(false, 6));
    assert_eq!(c, 0, "{m}");
    assert_eq!(m, members(true, 6));
    let (m, c) = merge(&members(false, 5), &members(true, 7), &members(false, 6));
    assert_eq!(c, 1, "a renamed member whose value changed is no rename: {m}");
}

#[test]
fn the_same_list_edit_on_both_sides_plus_new_items_on_one_merges() {
    let base = "{ \"l\": [1, 2, 3] }\n";
    let ours = "{ \"l\": [1, 2, 30] }\n";
    let theirs = "{ \"l\": [1, 2, 30, 4, 5] }\n";
    let (m, c) = merge(base, ours, theirs);
    assert_eq!(c, 0, "{m}");
    assert_eq!(m, theirs);
    // The longer side bringing back an item the shorter one removed stays a conflict.
    let (m, c) = merge(base, "{ \"l\": [1, 2, 30] }\n", "{ \"l\": [1, 2, 30, 3] }\n");
    assert_eq!(c, 1, "{m}");
}

#[test]
fn tiled_objects_both_sides_added_under_one_id_are_both_kept() {
    let base = "{ \"layers\":[{ \"id\":1, \"objects\":[{ \"id\":1, \"name\":\"door\" }] }],\n  \"nextlayerid\":2, \"nextobjectid\":2, \"tiledversion\":\"1.10\" }\n";
    let o = base
        .replace("\"name\":\"door\" }", "\"name\":\"door\" }, { \"id\":2, \"name\":\"key\" }")
        .replace("\"nextobjectid\":2", "\"nextobjectid\":3");
    let t = base
        .replace("\"name\":\"door\" }", "\"name\":\"door\" }, { \"id\":2, \"name\":\"chest\" }")
        .replace("\"nextobjectid\":2", "\"nextobjectid\":3");
    let (m, c) = merge(base, &o, &t);
    assert_eq!(c, 0, "{m}");
    assert_eq!(
        m,
        base.replace("\"name\":\"door\" }", "\"name\":\"door\" }, { \"id\":2, \"name\":\"key\" }, { \"id\":3, \"name\":\"chest\" }")
            .replace("\"nextobjectid\":2", "\"nextobjectid\":4")
    );
}

#[test]
fn a_side_that_only_changed_line_ends_changed_no_content() {
    let crlf = |s: &str| s.replace('\n', "\r\n");
    let theirs = BASE.replace("\"x\": 10", "\"x\": 11");
    for (o, t) in [(crlf(BASE), theirs.clone()), (theirs.clone(), crlf(BASE))] {
        let (m, c) = merge(BASE, &o, &t);
        assert_eq!(c, 0);
        assert_eq!(m, crlf(&theirs), "the edit, with every line ending as the other side wrote it");
    }
}

#[test]
fn a_file_without_a_final_newline_stays_so() {
    let base = BASE.trim_end();
    let (m, c) = merge(base, &base.replace("\"x\": 10", "\"x\": 11"), &base.replace("\"lamp\"", "\"lantern\""));
    assert_eq!(c, 0);
    assert_eq!(m, base.replace("\"x\": 10", "\"x\": 11").replace("\"lamp\"", "\"lantern\""));
}

#[test]
fn a_member_both_sides_added_takes_the_value_that_is_not_empty() {
    let base = "{\n  \"name\": \"ext\"\n}\n";
    let filled = "{\n  \"name\": \"ext\",\n  \"iconUrl\": \"icon.svg\"\n}\n";
    for empty in ["\"\"", "null"] {
        let blank = format!("{{\n  \"name\": \"ext\",\n  \"iconUrl\": {empty}\n}}\n");
        // Either side may hold the empty one: the result and the note are the same.
        for (o, t) in [(filled, blank.as_str()), (blank.as_str(), filled)] {
            let r = merge_texts(
                &JsonCodec::default(),
                Sides::new(base.as_bytes(), o.as_bytes(), t.as_bytes()),
                &Options::default(),
                &MarkerStyle::default(),
            )
            .expect("merge runs");
            assert_eq!((String::from_utf8(r.text).unwrap().as_str(), r.open_conflicts), (filled, 0));
            assert!(r.notes.iter().any(|n| n.contains("iconUrl") && n.contains(&format!("was empty ({empty})"))), "{:?}", r.notes);
        }
    }
    // Two empty values, or a value both sides changed from the base, still conflict.
    let (_, c) = merge(base, &filled.replace("\"icon.svg\"", "\"\""), &filled.replace("\"icon.svg\"", "null"));
    assert_eq!(c, 1);
    let (_, c) = merge(filled, &filled.replace("\"icon.svg\"", "\"\""), &filled.replace("\"icon.svg\"", "\"b.svg\""));
    assert_eq!(c, 1, "emptying a value is an edit");
}

#[test]
fn a_list_that_gained_or_lost_its_ids_on_one_side_takes_that_change() {
    // Base's second entity has no id, so the list is plain items; ours gives it one, making the
    // list objects keyed by id; theirs leaves the list alone and edits elsewhere.
    let base = BASE.replace("{ \"id\": 2, \"name\": \"lamp\"", "{ \"name\": \"lamp\"");
    let theirs = base.replace("\"level1\"", "\"level2\"");
    let (m, c) = merge(&base, BASE, &theirs);
    assert_eq!((m.as_str(), c), (BASE.replace("\"level1\"", "\"level2\"").as_str(), 0));
    // Swapped: theirs gave the id.
    let (m, c) = merge(&base, &theirs, BASE);
    assert_eq!((m.as_str(), c), (BASE.replace("\"level1\"", "\"level2\"").as_str(), 0));
    // The other way round: a side drops an id, so its list reads as plain items.
    let (m, c) = merge(BASE, &base, &BASE.replace("\"level1\"", "\"level2\""));
    assert_eq!((m.as_str(), c), (base.replace("\"level1\"", "\"level2\"").as_str(), 0));
    // Both sides changed the list: a conflict, not a guess.
    let (_, c) = merge(BASE, &base, &BASE.replace("\"x\": 10", "\"x\": 11"));
    assert!(c > 0);
}

#[test]
fn tiled_ids_are_renumbered_alike_whether_unchanged_layers_are_read_or_not() {
    // A second layer no side touches (its lines are left unread) holds objects and tiles.
    let still = |last_id: u32| {
        let objects: Vec<String> = (10..=last_id).map(|id| format!("        {{ \"id\":{id}, \"name\":\"rock{id}\" }}")).collect();
        format!(
            "    {{ \"id\":2,\n      \"data\":[{}],\n      \"objects\":[\n{}\n      ] }}",
            vec!["0"; 64].join(", "),
            objects.join(",\n")
        )
    };
    for (last_id, counter) in [(20, 21), (30, 21)] {
        let base = format!(
            "{{ \"layers\":[\n    {{ \"id\":1, \"objects\":[{{ \"id\":1, \"name\":\"door\" }}] }},\n{}\n  ],\n  \"nextlayerid\":3, \"nextobjectid\":{counter}, \"tiledversion\":\"1.10\" }}\n",
            still(last_id)
        );
        let added = |name: &str| {
            base.replace("\"name\":\"door\" }", &format!("\"name\":\"door\" }}, {{ \"id\":{counter}, \"name\":\"{name}\" }}"))
                .replace(&format!("\"nextobjectid\":{counter}"), &format!("\"nextobjectid\":{}", counter + 1))
        };
        let (o, t) = (added("key"), added("chest"));
        let texts = Sides::new(base.as_bytes(), o.as_bytes(), t.as_bytes());
        let run = |skip: bool| {
            let codec = JsonCodec { skip_unchanged: skip, ..JsonCodec::default() };
            merge_texts(&codec, texts, &Options::default(), &MarkerStyle::default())
                .map(|r| (r.text, r.open_conflicts))
                .map_err(|e| e.to_string())
        };
        let (skipping, whole) = (run(true), run(false));
        if last_id >= counter {
            // Base's ids run past its counter: both sides added under an id base already
            // gives (to an unchanged rock), which no renumbering can tell apart. Read whole,
            // each side gives one object id twice and is refused (the merge falls back to
            // lines); with the rock unread, the two additions are one conflict.
            assert!(whole.as_ref().is_err_and(|e| e.contains("duplicate id")), "{whole:?}");
            assert_eq!(skipping.map(|(_, conflicts)| conflicts), Ok(1));
            continue;
        }
        assert_eq!(skipping, whole, "ids {last_id}, counter {counter}");
        let (text, conflicts) = whole.expect("merged");
        assert_eq!(conflicts, 0);
        let text = String::from_utf8(text).unwrap();
        // Theirs' chest gets an id above every id and counter of the three versions.
        let fresh = counter + 1;
        assert!(text.contains(&format!("{{ \"id\":{fresh}, \"name\":\"chest\" }}")), "{text}");
        assert!(text.contains(&format!("\"nextobjectid\":{}", fresh + 1)), "{text}");
    }
}

#[test]
fn numbers_of_one_count_merge_place_by_place() {
    // A position: ours moves x to 0, theirs moves y to 5. Aligned as a list, ours' 0 could
    // pair with base's y and read as "x removed, a 0 added".
    let base = "{ \"pos\": [32, 0], \"src\": [32, 0] }\n";
    let (m, c) = merge(base, &base.replacen("[32, 0]", "[0, 0]", 1), &base.replacen("[32, 0]", "[32, 5]", 1));
    assert_eq!(c, 0, "{m}");
    assert_eq!(m, "{ \"pos\": [0, 5], \"src\": [32, 0] }\n");
    // Both sides move x: a conflict on x alone, and neither side's list gains a number.
    let outcome = merged(base, &base.replace("\"src\": [32, 0]", "\"src\": [16, 0]"), &base.replace("\"src\": [32, 0]", "\"src\": [0, 0]"));
    let open: Vec<&str> = outcome.conflicts.iter().filter(|c| c.resolved.is_none()).map(|c| c.path.as_str()).collect();
    assert_eq!(open, ["src[0]"]);
    let text = String::from_utf8(outcome.text).unwrap();
    assert!(text.contains("[16, 0]") && text.contains("[0, 0]") && !text.contains("[16, 0, 0]"), "{text}");
}

#[test]
fn tiled_an_object_property_naming_an_object_the_other_side_deleted_is_a_conflict() {
    let map = |objects: &str, next: u32| {
        format!("{{ \"layers\":[\n    {{ \"id\":1, \"objects\":[\n{objects}\n      ] }}\n  ],\n  \"nextobjectid\":{next},\n  \"tiledversion\":\"1.10.2\"\n}}\n")
    };
    let door = "        { \"id\":1, \"name\":\"door\", \"x\":0 }";
    let lever = "        { \"id\":2, \"name\":\"lever\", \"x\":5 }";
    let base = map(&format!("{door},\n{lever}"), 3);
    let opens_door = "\"properties\":[{ \"name\":\"opens\", \"type\":\"object\", \"value\":1 }]";
    let switch = format!("        {{ \"id\":3, \"name\":\"switch\", {opens_door} }}");
    let ours = map(&format!("{door},\n{lever},\n{switch}"), 4);
    let theirs = map(lever, 3);
    let outcome = merged(&base, &ours, &theirs);
    assert_eq!(outcome.open_conflicts, 1, "{}", String::from_utf8_lossy(&outcome.text));
    assert_eq!(outcome.conflicts[0].object, "/objects[1]", "the conflict is on the door");
    // Each side's view is a sound map: ours' keeps the door the switch opens; in theirs' the
    // switch ours added to open it goes with the door (it was written before, naming nothing,
    // and `resolve --take theirs` kept it).
    let view = |outcome: &levelmerge_core::MergeOutcome, side| {
        let text = String::from_utf8_lossy(&outcome.text);
        serde_json::from_str::<serde_json::Value>(&levelmerge_testutils::laws::side_view(&text, side)).unwrap()
    };
    let names = |map: &serde_json::Value| -> Vec<String> {
        map["layers"][0]["objects"].as_array().unwrap().iter().map(|o| o["name"].as_str().unwrap().to_owned()).collect()
    };
    let (ours_view, theirs_view) = (view(&outcome, levelmerge_core::Side::Ours), view(&outcome, levelmerge_core::Side::Theirs));
    assert_eq!(names(&ours_view), ["door", "lever", "switch"]);
    assert_eq!(ours_view["layers"][0]["objects"][2]["properties"][0]["value"], 1);
    assert_eq!(names(&theirs_view), ["lever"], "{theirs_view}");
    // Ours gives the lever, which base holds, a property naming the door: in theirs' view the
    // lever stays, without that property.
    let pointed = map(&format!("{door},\n{}", lever.replace("\"x\":5", &format!("\"x\":5, {opens_door}"))), 3);
    assert_ne!(pointed, base);
    let outcome = merged(&base, &pointed, &theirs);
    assert_eq!(outcome.open_conflicts, 1, "{}", String::from_utf8_lossy(&outcome.text));
    let theirs_view = view(&outcome, levelmerge_core::Side::Theirs);
    assert_eq!(names(&theirs_view), ["lever"]);
    assert_eq!(theirs_view["layers"][0]["objects"][0]["properties"], serde_json::json!([]), "{theirs_view}");
    assert_eq!(view(&outcome, levelmerge_core::Side::Ours)["layers"][0]["objects"][1]["properties"][0]["value"], 1);
    // A property naming an object nobody deleted merges cleanly.
    let theirs = map(&format!("{door},\n{}", lever.replace("\"x\":5", "\"x\":6")), 3);
    assert_eq!(merge(&base, &ours, &theirs).1, 0);
}

/// A Tiled map with two object layers, `ground` (id 1) and `top` (id 2), holding these objects.
fn tiled_layers(ground: &[&str], top: &[&str]) -> String {
    let layer = |id: u32, name: &str, objects: &[&str]| {
        let objects: Vec<String> = objects.iter().map(|o| format!("        {o}")).collect();
        format!("    {{ \"id\":{id}, \"name\":\"{name}\", \"type\":\"objectgroup\", \"objects\":[\n{}\n      ] }}", objects.join(",\n"))
    };
    format!(
        "{{ \"layers\":[\n{},\n{}\n  ],\n  \"nextlayerid\":3, \"nextobjectid\":4, \"tiledversion\":\"1.10.2\"\n}}\n",
        layer(1, "ground", ground),
        layer(2, "top", top)
    )
}

/// How many objects of each id a merged map holds, over all its layers, and the layer
/// holding `id`.
fn tiled_objects(text: &str, id: u64) -> (std::collections::BTreeMap<u64, usize>, Vec<String>) {
    let map: serde_json::Value = serde_json::from_str(text).expect(text);
    let mut counts = std::collections::BTreeMap::new();
    let mut holding = Vec::new();
    for layer in map["layers"].as_array().unwrap() {
        for o in layer["objects"].as_array().unwrap() {
            *counts.entry(o["id"].as_u64().unwrap()).or_default() += 1;
            if o["id"].as_u64() == Some(id) {
                holding.push(layer["name"].as_str().unwrap().to_owned());
            }
        }
    }
    (counts, holding)
}

/// Tiled numbers objects across the whole map and keeps the number when an object moves to
/// another layer: the move is the same object, not one deleted and another added under its id.
/// Before, a move and the other side's edit of the object wrote it in both layers (one id
/// twice, exit 0).
#[test]
fn tiled_an_object_moved_to_another_layer_is_the_object_the_other_side_edited() {
    let (chest, lamp) = ("{ \"id\":1, \"name\":\"chest\", \"x\":0 }", "{ \"id\":2, \"name\":\"lamp\", \"x\":0 }");
    let door = "{ \"id\":3, \"name\":\"door\", \"x\":0 }";
    let base = tiled_layers(&[chest, lamp], &[door]);
    let moved = tiled_layers(&[lamp], &[door, chest]);
    let edited = tiled_layers(&[&chest.replace("\"x\":0", "\"x\":7"), lamp], &[door]);
    for (ours, theirs) in [(&moved, &edited), (&edited, &moved)] {
        let (text, conflicts) = merge(&base, ours, theirs);
        assert_eq!(conflicts, 0, "{text}");
        assert_eq!(text, tiled_layers(&[lamp], &[door, &chest.replace("\"x\":0", "\"x\":7")]));
    }
    // Both sides moved it to the same layer: one object there.
    let (text, conflicts) = merge(&base, &moved, &moved);
    assert_eq!((text.as_str(), conflicts), (moved.as_str(), 0));
}

/// Both sides moved one object, each to another layer: a conflict, and each side of the marked
/// file holds the object once, in that side's layer.
#[test]
fn tiled_an_object_both_sides_moved_to_different_layers_is_a_conflict_each_side_of_which_holds_it_once() {
    let (chest, lamp) = ("{ \"id\":1, \"name\":\"chest\", \"x\":0 }", "{ \"id\":2, \"name\":\"lamp\", \"x\":0 }");
    let base = tiled_layers(&[chest, lamp], &[]).replace("\"objects\":[\n\n      ]", "\"objects\":[]");
    let third = "    { \"id\":3, \"name\":\"sky\", \"type\":\"objectgroup\", \"objects\":[] }";
    let base = base.replace("\n  ],\n  \"nextlayerid\":3", &format!(",\n{third}\n  ],\n  \"nextlayerid\":4"));
    let to = |layer: &str| {
        let without = base.replace(&format!("        {chest},\n"), "");
        without.replace(
            &format!("\"name\":\"{layer}\", \"type\":\"objectgroup\", \"objects\":[]"),
            &format!("\"name\":\"{layer}\", \"type\":\"objectgroup\", \"objects\":[{chest}]"),
        )
    };
    let (to_top, to_sky) = (to("top"), to("sky"));
    assert_ne!(to_top, base);
    assert_ne!(to_sky, base);
    for (ours, theirs) in [(&to_top, &to_sky), (&to_sky, &to_top)] {
        let r = merged(&base, ours, theirs);
        assert_eq!(r.open_conflicts, 1, "{}", String::from_utf8_lossy(&r.text));
        let text = String::from_utf8(r.text).unwrap();
        for side in [levelmerge_core::Side::Ours, levelmerge_core::Side::Theirs] {
            let view = levelmerge_testutils::laws::side_view(&text, side);
            let (counts, holding) = tiled_objects(&view, 1);
            assert!(counts.values().all(|n| *n == 1), "{side}'s view:\n{view}");
            let expected = if (side == levelmerge_core::Side::Ours) == (ours == &to_top) { "top" } else { "sky" };
            assert_eq!(holding, [expected], "{side}'s view:\n{view}");
        }
    }
}

/// Theirs moves the chest out of a layer inside a group, then deletes the group; ours edits
/// the chest and the lamp beside it: the group's deletion is a conflict, the chest's move and
/// edit merge. Ours' view keeps the group as ours wrote it, whose layer still listed the
/// chest, which the view puts in "top" too (one id twice, `resolve --take` refused): the
/// layer let go of the chest, but the group, taken whole, wrote it from its own text.
#[test]
fn tiled_an_object_moved_out_of_a_group_the_other_side_kept_is_in_the_kept_group_no_more() {
    let map = |inner: &[&str], top: &[&str], with_group: bool| {
        let group = format!(
            "    {{ \"id\":1, \"name\":\"walls\", \"type\":\"group\", \"layers\":[\n      {{ \"id\":2, \"name\":\"inner\", \"type\":\"objectgroup\", \"objects\":[{}] }}\n    ] }},\n",
            inner.join(", ")
        );
        format!(
            "{{ \"layers\":[\n{}    {{ \"id\":3, \"name\":\"top\", \"type\":\"objectgroup\", \"objects\":[{}] }}\n  ],\n  \"nextlayerid\":4, \"nextobjectid\":4, \"tiledversion\":\"1.10.2\"\n}}\n",
            if with_group { group } else { String::new() },
            top.join(", ")
        )
    };
    let (chest, lamp, door) = (
        "{ \"id\":1, \"name\":\"chest\", \"x\":0 }",
        "{ \"id\":2, \"name\":\"lamp\", \"x\":0 }",
        "{ \"id\":3, \"name\":\"door\", \"x\":0 }",
    );
    let edited = |o: &str| o.replace("\"x\":0", "\"x\":5");
    let base = map(&[chest, lamp], &[door], true);
    let ours = map(&[&edited(chest), &edited(lamp)], &[door], true);
    let theirs = map(&[], &[door, chest], false);
    fn holders(layers: &serde_json::Value, id: u64, out: &mut Vec<String>) {
        for layer in layers.as_array().unwrap() {
            for o in layer["objects"].as_array().into_iter().flatten() {
                if o["id"].as_u64() == Some(id) {
                    out.push(layer["name"].as_str().unwrap().to_owned());
                }
            }
            if layer["layers"].is_array() {
                holders(&layer["layers"], id, out);
            }
        }
    }
    for (o, t) in [(&ours, &theirs), (&theirs, &ours)] {
        let r = merged(&base, o, t);
        assert_eq!(r.open_conflicts, 1, "{}", String::from_utf8_lossy(&r.text));
        let text = String::from_utf8(r.text).unwrap();
        for side in [levelmerge_core::Side::Ours, levelmerge_core::Side::Theirs] {
            let view = levelmerge_testutils::laws::side_view(&text, side);
            let parsed: serde_json::Value = serde_json::from_str(&view).expect(&view);
            let mut chest_in = Vec::new();
            holders(&parsed["layers"], 1, &mut chest_in);
            assert_eq!(chest_in, ["top"], "{side}'s view:\n{view}");
            assert!(view.contains("\"name\":\"chest\", \"x\":5"), "{side}'s view:\n{view}");
        }
    }
}

#[test]
fn gdevelop_placing_an_object_or_using_a_layer_the_other_side_deleted_is_a_conflict() {
    let layout = |objects: &str, layers: &str, instances: &str| {
        format!("{{\n  \"gdVersion\": {{ \"major\": 5 }},\n  \"layers\": [\n{layers}\n  ],\n  \"objects\": [\n{objects}\n  ],\n  \"instances\": [\n{instances}\n  ]\n}}\n")
    };
    let (player, enemy) = ("    { \"name\": \"Player\", \"type\": \"Sprite\" }", "    { \"name\": \"Enemy\", \"type\": \"Sprite\" }");
    let (front, back) = ("    { \"name\": \"Front\", \"visibility\": true }", "    { \"name\": \"Back\", \"visibility\": true }");
    let placed = |object: &str, layer: &str, x: u32| format!("    {{ \"layer\": \"{layer}\", \"name\": \"{object}\", \"x\": {x} }}");
    let layers = format!("{front},\n{back}");
    let base = layout(&format!("{player},\n{enemy}"), &layers, &placed("Player", "Front", 0));
    // Theirs places an Enemy on the Back layer.
    let theirs =
        layout(&format!("{player},\n{enemy}"), &layers, &format!("{},\n{}", placed("Player", "Front", 0), placed("Enemy", "Back", 9)));
    // Ours deletes the Enemy object: a conflict on it.
    let no_enemy = layout(player, &layers, &placed("Player", "Front", 0));
    let outcome = merged(&base, &no_enemy, &theirs);
    let open: Vec<&str> = outcome.conflicts.iter().filter(|c| c.resolved.is_none()).map(|c| c.object.as_str()).collect();
    assert_eq!(open, ["/objects[Enemy]"], "{}", String::from_utf8_lossy(&outcome.text));
    // Ours deletes the Back layer: a conflict on it.
    let no_back = layout(&format!("{player},\n{enemy}"), front, &placed("Player", "Front", 0));
    let outcome = merged(&base, &no_back, &theirs);
    let open: Vec<&str> = outcome.conflicts.iter().filter(|c| c.resolved.is_none()).map(|c| c.object.as_str()).collect();
    assert_eq!(open, ["/layers[Back]"], "{}", String::from_utf8_lossy(&outcome.text));
    // Deleting an object nobody newly places merges cleanly.
    let theirs = layout(&format!("{player},\n{enemy}"), &layers, &placed("Player", "Front", 5));
    assert_eq!(merge(&base, &no_enemy, &theirs).1, 0);
}

/// A Tiled map: its tilesets, and one tile layer's `data` or `chunks`.
fn tiled_map(tilesets: &str, layer: &str) -> String {
    format!(
        "{{ \"infinite\":false,\n \"layers\":[\n  {{ {layer}, \"id\":1, \"name\":\"ground\", \"type\":\"tilelayer\" }}],\n \"nextlayerid\":2, \"nextobjectid\":1, \"tiledversion\":\"1.10\",\n \"tilesets\":[\n  {tilesets}]\n}}\n"
    )
}

#[test]
fn tiled_chunks_both_sides_added_at_one_place_are_a_conflict_and_elsewhere_both_kept() {
    let chunk = |x: i32, tile: u32| format!("{{ \"data\":[{tile}, 0, 0, 0], \"height\":2, \"width\":2, \"x\":{x}, \"y\":0 }}");
    let layer = |chunks: &[String]| format!("\"chunks\":[{}]", chunks.join(", "));
    let ts = "{ \"firstgid\":1, \"source\":\"a.tsj\" }";
    let base = tiled_map(ts, &layer(&[chunk(0, 1)]));
    let (m, c) = merge(&base, &tiled_map(ts, &layer(&[chunk(0, 1), chunk(2, 3)])), &tiled_map(ts, &layer(&[chunk(-2, 4), chunk(0, 1)])));
    assert_eq!(c, 0, "{m}");
    assert_eq!(m, tiled_map(ts, &layer(&[chunk(-2, 4), chunk(0, 1), chunk(2, 3)])));
    // Two chunks at one place would leave Tiled one of them: the other side's tiles lost.
    let (m, c) = merge(&base, &tiled_map(ts, &layer(&[chunk(0, 1), chunk(2, 3)])), &tiled_map(ts, &layer(&[chunk(0, 1), chunk(2, 5)])));
    assert_eq!(c, 1, "{m}");
    // Edits of one chunk's cells merge cell by cell.
    let edited =
        |tile: u32, last: u32| format!("\"chunks\":[{{ \"data\":[{tile}, 0, 0, {last}], \"height\":2, \"width\":2, \"x\":0, \"y\":0 }}]");
    let (m, c) = merge(&base, &tiled_map(ts, &edited(7, 0)), &tiled_map(ts, &edited(1, 8)));
    assert_eq!((m, c), (tiled_map(ts, &edited(7, 8)), 0));
}

#[test]
fn tiled_tilesets_both_sides_added_at_one_gid_are_told_apart_with_their_tiles() {
    let a = "{ \"firstgid\":1, \"source\":\"a.tsj\" }";
    let data = |cells: &str| format!("\"data\":[{cells}]");
    let base = tiled_map(a, &data("1, 0, 0"));
    let ours = tiled_map(&format!("{a},\n  {{ \"firstgid\":17, \"name\":\"b\", \"tilecount\":4 }}"), &data("1, 17, 0"));
    let theirs = tiled_map(&format!("{a},\n  {{ \"firstgid\":17, \"name\":\"c\", \"tilecount\":2 }}"), &data("1, 0, 18"));
    let r = merged(&base, &ours, &theirs);
    let m = String::from_utf8(r.text).unwrap();
    assert_eq!(r.open_conflicts, 0, "{m}");
    assert_eq!(
        m,
        tiled_map(
            &format!(
                "{a},\n  {{ \"firstgid\":17, \"name\":\"b\", \"tilecount\":4 }},\n  {{ \"firstgid\":21, \"name\":\"c\", \"tilecount\":2 }}"
            ),
            &data("1, 17, 22")
        )
    );
    assert!(r.notes.iter().any(|n| n.contains("theirs' are moved above ours', with their tiles: c 17 → 21")), "{:?}", r.notes);
    // An external tileset does not say how many tiles it holds: two added at one gid conflict.
    let ours = tiled_map(&format!("{a},\n  {{ \"firstgid\":17, \"source\":\"b.tsj\" }}"), &data("1, 17, 0"));
    let (m, c) = merge(&base, &ours, &theirs);
    assert_eq!(c, 1, "{m}");
}

#[test]
fn ldtk_tile_data_and_enum_tags_are_keyed_by_tile_and_value() {
    let tileset = |custom: &str, tags: &str| {
        format!("{{ \"jsonVersion\":\"1.5.3\", \"nextUid\":3, \"defs\":{{ \"tilesets\":[{{ \"uid\":1, \"customData\":[{custom}], \"enumTags\":[{tags}] }}] }} }}\n")
    };
    let data = |tile: u32, text: &str| format!("{{ \"tileId\":{tile}, \"data\":\"{text}\" }}");
    let tag = |value: &str, tiles: &str| format!("{{ \"enumValueId\":\"{value}\", \"tileIds\":[{tiles}] }}");
    let base = tileset(&data(1, "a"), &tag("WALL", "1"));
    // Both sides giving one tile data is a conflict, not the tile listed twice.
    let (m, c) = merge(
        &base,
        &tileset(&[data(1, "a"), data(2, "b")].join(", "), &tag("WALL", "1")),
        &tileset(&[data(1, "a"), data(2, "c")].join(", "), &tag("WALL", "1")),
    );
    assert_eq!(c, 1, "{m}");
    // Tags of different values merge.
    let (m, c) = merge(
        &base,
        &tileset(&data(1, "a"), &[tag("WALL", "1"), tag("WATER", "2")].join(", ")),
        &tileset(&data(1, "a"), &tag("WALL", "1, 3")),
    );
    assert_eq!((m, c), (tileset(&data(1, "a"), &[tag("WALL", "1, 3"), tag("WATER", "2")].join(", ")), 0));
}

/// An LDtk level whose entity "a" has an entity reference field, naming `target` if any, and
/// which holds entity "b" if `with_b`.
fn ldtk_level_with_reference(target: Option<&str>, with_b: bool) -> String {
    let value =
        target.map_or("null".to_owned(), |iid| format!("{{ \"entityIid\": \"{iid}\", \"layerIid\": \"l1\", \"levelIid\": \"v1\" }}"));
    let b = if with_b { ",\n    { \"iid\": \"b\", \"defUid\": 2, \"px\": [16,0], \"fieldInstances\": [] }" } else { "" };
    format!(
        "{{ \"jsonVersion\": \"1.5.3\", \"iid\": \"v1\", \"layerInstances\": [{{ \"iid\": \"l1\", \"entityInstances\": [\n    {{ \"iid\": \"a\", \"defUid\": 2, \"px\": [0,0], \"fieldInstances\": [{{ \"__identifier\": \"Next\", \"__type\": \"EntityRef\", \"__value\": {value}, \"defUid\": 9 }}] }}{b}\n  ] }}] }}\n"
    )
}

#[test]
fn ldtk_a_reference_made_to_an_entity_the_other_side_deleted_is_a_conflict() {
    let base = ldtk_level_with_reference(None, true);
    let (m, c) = merge(&base, &ldtk_level_with_reference(None, false), &ldtk_level_with_reference(Some("b"), true));
    assert_eq!(c, 1, "a reference to an entity that is gone: {m}");
    // A reference to an entity both keep merges.
    let (m, c) = merge(&base, &ldtk_level_with_reference(Some("b"), true), &base.replace("[16,0]", "[32,0]"));
    assert_eq!((m, c), (ldtk_level_with_reference(Some("b"), true).replace("[16,0]", "[32,0]"), 0));
}

/// An Ogmo 3 level with two entity layers (ids are per layer), holding these entities
/// (`"name": x` pairs, ids from 0) in each.
fn ogmo_level(first: &[(&str, u32)], second: &[(&str, u32)]) -> String {
    let layer = |eid: &str, entities: &[(&str, u32)]| {
        let lines: Vec<String> = entities
            .iter()
            .enumerate()
            .map(|(id, (name, x))| format!("      {{\"name\": \"{name}\", \"id\": {id}, \"_eid\": \"9{id}\", \"x\": {x}, \"y\": 0}}"))
            .collect();
        format!("    {{\"name\": \"L{eid}\", \"_eid\": \"{eid}\", \"entities\": [\n{}\n    ]}}", lines.join(",\n"))
    };
    format!("{{\n  \"ogmoVersion\": \"3.4.0\",\n  \"layers\": [\n{},\n{}\n  ]\n}}\n", layer("1", first), layer("2", second))
}

#[test]
fn ogmo_entities_both_sides_added_under_one_id_in_a_layer_are_both_kept() {
    let base = ogmo_level(&[("door", 8)], &[("lamp", 16), ("key", 24)]);
    let ours = ogmo_level(&[("door", 8), ("chest", 32)], &[("lamp", 16), ("key", 24)]);
    let theirs = ogmo_level(&[("door", 8), ("coin", 40)], &[("lamp", 16), ("key", 24), ("gem", 48)]);
    let r = merged(&base, &ours, &theirs);
    let m = String::from_utf8(r.text).unwrap();
    assert_eq!(r.open_conflicts, 0, "{m}");
    // Theirs' coin takes the first id above every id of the level; its gem, added in the other
    // layer under an id ours did not give there, keeps its id.
    let coin = "{\"name\": \"coin\", \"id\": 1, \"_eid\": \"91\", \"x\": 40, \"y\": 0}";
    let want = ogmo_level(&[("door", 8), ("chest", 32)], &[("lamp", 16), ("key", 24), ("gem", 48)])
        .replace("\"x\": 32, \"y\": 0}", &format!("\"x\": 32, \"y\": 0}},\n      {}", coin.replace("\"id\": 1", "\"id\": 3")));
    assert_eq!(m, want);
    assert!(r.notes.iter().any(|n| n.contains("theirs' are renumbered: 1 → 3")), "{:?}", r.notes);
}

#[test]
fn a_counter_one_side_lowered_stays_above_the_ids_the_other_handed_out() {
    // Objects 2 to 9 were deleted: the counter stays at 10. Ours brings object 7 back (an undo
    // gives it its id again, the counter unmoved); theirs goes back to an older map counting 5.
    let map = |objects: &str, next: u32| {
        format!("{{ \"layers\":[{{ \"id\":1, \"objects\":[{objects}] }}],\n  \"nextlayerid\":2, \"nextobjectid\":{next}, \"tiledversion\":\"1.10\" }}\n")
    };
    let door = "{ \"id\":1, \"name\":\"door\" }";
    let (base, old) = (map(door, 10), map(door, 5));
    let ours = map(&format!("{door}, {{ \"id\":7, \"name\":\"key\" }}"), 10);
    let r = merged(&base, &ours, &old);
    let m = String::from_utf8(r.text).unwrap();
    assert_eq!(r.open_conflicts, 0, "{m}");
    // At 5, Tiled would give object 7's id again two objects later.
    assert_eq!(m, ours);
    assert!(r.notes.iter().any(|n| n.contains("theirs' nextobjectid 5 is raised to 10")), "{:?}", r.notes);
    // Where the other side added nothing, the side's own counter is kept: merge(b, o, b) = o.
    let (m, c) = merge(&base, &old, &base);
    assert_eq!((m, c), (old.clone(), 0));
}

#[test]
fn tiled_layers_added_under_one_id_are_told_apart_where_one_side_did_not_move_the_counter() {
    let map = |layers: &str, next: u32| {
        format!("{{ \"layers\":[{{ \"id\":1, \"name\":\"ground\" }}{layers}],\n  \"nextlayerid\":{next}, \"nextobjectid\":1, \"tiledversion\":\"1.10\" }}\n")
    };
    let base = map("", 2);
    // Ours' writer added layer 2 without counting it; theirs added a layer 2 in a new group.
    let ours = map(", { \"id\":2, \"name\":\"result\" }", 2);
    let theirs = map(", { \"id\":3, \"layers\":[{ \"id\":2, \"name\":\"computer\" }], \"name\":\"group\" }", 4);
    let (m, c) = merge(&base, &ours, &theirs);
    assert_eq!(c, 0, "{m}");
    assert_eq!(
        m,
        map(", { \"id\":2, \"name\":\"result\" }, { \"id\":3, \"layers\":[{ \"id\":4, \"name\":\"computer\" }], \"name\":\"group\" }", 5)
    );
}

#[test]
fn a_merge_of_objects_that_would_drop_a_comment_a_side_wrote_is_refused() {
    use levelmerge_core::{MergeError, Side};
    let codec = JsonCodec::new(Some(levelmerge_json::Dialect::Sjson), Default::default());
    let base = "tags = [\n\t\"a\"\n\t\"b\"\n\t\"c\"\n]\n";
    let commented = base.replace("\t\"b\"", "\t// the second\n\t\"b\"");
    let edited = base.replace("\"c\"", "\"d\"");
    for (ours, theirs, side) in [(&commented, &edited, Side::Ours), (&edited, &commented, Side::Theirs)] {
        let texts = Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
        match merge_texts(&codec, texts, &Options::default(), &MarkerStyle::default()) {
            Err(MergeError::Invalid { side: refused, problems }) => {
                assert_eq!(refused, side);
                assert!(problems[0].to_string().contains("`// the second`"), "{}", problems[0]);
            }
            other => panic!("expected a refusal, got {:?}", other.map(|o| String::from_utf8_lossy(&o.text).into_owned())),
        }
    }
    // Comments every version holds stay where both sides edit around them: merged by objects.
    let base = "// header\nunit = {\n\ta = 1\n\t// bee\n\tb = 2\n\tc = 3\n}\n";
    let (ours, theirs) = (base.replace("a = 1", "a = 5"), base.replace("c = 3", "c = 4"));
    let texts = Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let merged = merge_texts(&codec, texts, &Options::default(), &MarkerStyle::default()).expect("merged by objects");
    assert_eq!(String::from_utf8(merged.text).unwrap(), ours.replace("c = 3", "c = 4"));
}

/// Items without ids (a GDevelop layout's instances), one side removing an item and the other
/// moving the one before it: two changes side by side, both kept whichever side is ours.
#[test]
fn neighbouring_items_changed_by_each_side_keep_both_changes() {
    let level = |items: &[&str]| {
        format!("{{\n  \"instances\": [\n{}\n  ]\n}}\n", items.iter().map(|i| format!("    {i}")).collect::<Vec<_>>().join(",\n"))
    };
    let (a, b, c, d) = (
        r#"{ "kind": "tree", "x": 1 }"#,
        r#"{ "kind": "rock", "x": 2 }"#,
        r#"{ "kind": "bush", "x": 3 }"#,
        r#"{ "kind": "well", "x": 4 }"#,
    );
    let moved_a = r#"{ "kind": "tree", "x": 100 }"#;
    let base = level(&[a, b, c, d]);
    let b_removed = level(&[a, c, d]);
    let a_moved = level(&[moved_a, b, c, d]);
    for (ours, theirs) in [(&b_removed, &a_moved), (&a_moved, &b_removed)] {
        let r = merged(&base, ours, theirs);
        assert_eq!(r.open_conflicts, 0, "{:?}", r.conflicts);
        assert_eq!(String::from_utf8(r.text).unwrap(), level(&[moved_a, c, d]));
        assert!(r.notes.iter().any(|n| n.contains("neighbouring items")), "{:?}", r.notes);
    }
    // Changes to one item are not side by side: removing the rock against replacing it.
    let b_replaced = level(&[a, r#"{ "kind": "lamp", "x": 9 }"#, r#"{ "kind": "log", "x": 8 }"#, c, d]);
    assert_eq!(merge(&base, &b_removed, &b_replaced).1, 1, "a removal against a replacement of one item");
}

/// A GDevelop event sheet (a program: its events are read in order) where ours removes an
/// event and theirs edits a sub-event of the one before: each event stays where it was, so
/// both changes are kept (a line merge of the file keeps them too), whichever side is ours.
#[test]
fn events_each_side_changed_next_to_each_other_keep_both_changes() {
    let sheet = |events: &[&str]| format!("{{\"gdVersion\": {{\"major\": 4}}, \"events\": [{}]}}", events.join(", "));
    let event = |name: &str, subs: &str| format!(r#"{{"type": "Standard", "name": "{name}", "events": [{subs}]}}"#);
    let (jump, jump_edited) = (event("jump", r#"{"name": "land"}"#), event("jump", r#"{"name": "land", "sound": "thud"}"#));
    let (fall, spawn) = (event("fall", ""), event("spawn", ""));
    let base = sheet(&[&jump, &fall, &spawn]);
    let fall_removed = sheet(&[&jump, &spawn]);
    let jump_edited_sheet = sheet(&[&jump_edited, &fall, &spawn]);
    for (ours, theirs) in [(&fall_removed, &jump_edited_sheet), (&jump_edited_sheet, &fall_removed)] {
        let r = merged(&base, ours, theirs);
        assert_eq!(r.open_conflicts, 0, "{:?}", r.conflicts);
        assert_eq!(String::from_utf8(r.text).unwrap(), sheet(&[&jump_edited, &spawn]));
    }
    // Inserting an event there instead is still a question: where it goes beside the change.
    let inserted = sheet(&[&jump, &event("dash", ""), &fall, &spawn]);
    assert_eq!(merge(&base, &inserted, &fall_removed).1, 1);
}
