//! Merges of small JSON and SJSON levels through the core pipeline.

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{merge_texts, Options, Sides};
use levelmerge_json::JsonCodec;

fn merge(b: &str, o: &str, t: &str) -> (String, usize) {
    let codec = JsonCodec::default();
    let r = merge_texts(&codec, Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes()), &Options::default(), &MarkerStyle::default())
        .expect("merge runs");
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
