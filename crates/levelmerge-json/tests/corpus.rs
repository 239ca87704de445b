//! Every JSON file of the real corpus: byte-exact round trip through the structured merge, and
//! the identity laws on every real merge triple. The corpus is read in place.

use std::path::Path;

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{merge_texts, Codec, Options, Problem, Side, Sides};
use levelmerge_json::JsonCodec;
use levelmerge_testutils::corpus;

const JSON_EXTS: &[&str] = &["json", "ldtk", "ldtkl", "tmj", "tsj", "fire", "prefab", "scene", "ogmo"];

fn is_json(bytes: &[u8]) -> bool {
    let t = bytes.trim_ascii_start();
    t.starts_with(b"{") || t.starts_with(b"[")
}

fn merged(b: &[u8], o: &[u8], t: &[u8]) -> Result<Vec<u8>, String> {
    let r =
        merge_texts(&JsonCodec::default(), Sides::new(b, o, t), &Options::default(), &MarkerStyle::default()).map_err(|e| e.to_string())?;
    if r.open_conflicts > 0 {
        return Err(format!("{} conflicts", r.open_conflicts));
    }
    Ok(r.text)
}

/// Every JSON file of every scenario, with a name for messages.
fn json_files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for s in corpus::scenarios(root, |_| true) {
        for which in ["base", "ours", "theirs", "expected"] {
            let bytes = s.read(which);
            if JSON_EXTS.contains(&s.ext.as_str()) && is_json(&bytes) {
                files.push((format!("{}/{which}.{}", s.dir.display(), s.ext), bytes));
            }
        }
    }
    files
}

#[test]
fn every_corpus_json_file_round_trips_byte_for_byte() {
    let Some(root) = corpus::require("every_corpus_json_file_round_trips_byte_for_byte") else { return };
    let codec = JsonCodec::default();
    let mut files = json_files(&root.join("merges-json"));
    files.extend(json_files(&root.join("merges/ldtk")));
    if let Ok(big) = std::fs::read(root.join("large/ldtk_WorldMap_GridVania_layout.ldtk")) {
        files.push(("large/ldtk_WorldMap_GridVania_layout.ldtk".into(), big));
    }
    assert!(files.len() > 400, "expected the whole JSON corpus, found {} files", files.len());
    let (mut checked, mut unreadable, mut invalid) = (0, 0, 0);
    for (name, bytes) in &files {
        // A merged text is read back by its syntax alone: it must find what reading it whole finds.
        assert_eq!(codec.reads(bytes), codec.parse(bytes).map(|_| ()), "{name}");
        match codec.parse(bytes) {
            Err(Problem::Syntax { .. }) => {
                // Committed files with conflict markers: must be refused, never mangled.
                unreadable += 1;
                continue;
            }
            Err(other) => panic!("{name}: unexpected error {other}"),
            Ok(doc) => {
                if let Err(problems) = codec.lower(&doc, Side::Base, &[]) {
                    // Committed files with duplicate ids: refused for structured merging.
                    assert!(
                        problems.iter().all(|p| matches!(p, Problem::DuplicateId { .. } | Problem::DuplicateKey { .. })),
                        "{name}: {problems:?}"
                    );
                    invalid += 1;
                    continue;
                }
            }
        }
        let out = merged(bytes, bytes, bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(out == *bytes, "{name}: merge(f, f, f) is not f");
        checked += 1;
    }
    eprintln!("round trip: {checked} files byte-exact, {unreadable} unreadable and {invalid} with duplicate ids (committed broken)");
    assert!(unreadable + invalid <= 16, "too many refused files: {unreadable} unreadable, {invalid} invalid");
}

#[test]
fn identity_laws_hold_on_every_real_merge() {
    let Some(root) = corpus::require("identity_laws_hold_on_every_real_merge") else { return };
    let mut scenarios = corpus::scenarios(&root.join("merges-json"), |_| true);
    scenarios.extend(corpus::scenarios(&root.join("merges/ldtk"), |_| true));
    assert!(scenarios.len() >= 130, "found {} scenarios", scenarios.len());
    let mut checked = 0;
    for s in &scenarios {
        let (b, o, t) = (s.read("base"), s.read("ours"), s.read("theirs"));
        let codec = JsonCodec::default();
        let sound = |x: &Vec<u8>| is_json(x) && codec.parse(x).is_ok_and(|d| codec.lower(&d, Side::Base, &[]).is_ok());
        if ![&b, &o, &t].iter().all(|x| sound(x)) {
            continue;
        }
        let name = s.dir.display();
        assert!(merged(&b, &o, &b).unwrap_or_else(|e| panic!("{name}: merge(b,o,b): {e}")) == o, "{name}: merge(b,o,b) != o");
        assert!(merged(&b, &b, &t).unwrap_or_else(|e| panic!("{name}: merge(b,b,t): {e}")) == t, "{name}: merge(b,b,t) != t");
        assert!(merged(&b, &o, &o).unwrap_or_else(|e| panic!("{name}: merge(b,o,o): {e}")) == o, "{name}: merge(b,o,o) != o");
        assert!(merged(&b, &t, &b).unwrap_or_else(|e| panic!("{name}: merge(b,t,b): {e}")) == t, "{name}: merge(b,t,b) != t");
        checked += 1;
    }
    eprintln!("identity laws: {checked} real merges");
    assert!(checked >= 120, "only {checked} scenarios were checked");
}

#[test]
fn reading_a_real_version_like_ours_finds_what_reading_it_whole_finds() {
    // How a merged text is read back: what ours' reading read, where the text holds it alike,
    // is left unread.
    let Some(root) = corpus::require("reading_a_real_version_like_ours_finds_what_reading_it_whole_finds") else { return };
    let mut scenarios = corpus::scenarios(&root.join("merges-json"), |_| true);
    scenarios.extend(corpus::scenarios(&root.join("merges/ldtk"), |_| true));
    let codec = JsonCodec::default();
    let (mut read, mut refused) = (0, 0);
    for s in &scenarios {
        let ours = s.read("ours");
        let Ok(ours) = codec.parse(&ours) else { continue };
        for which in ["base", "theirs", "expected"] {
            let text = s.read(which);
            // The version, and the version with a separator or bracket in its middle lost.
            let mut damaged = text.clone();
            if let Some(at) = damaged[damaged.len() / 2..].iter().position(|b| b",:]}".contains(b)) {
                damaged.remove(damaged.len() / 2 + at);
            }
            for (text, name) in [(text, which.to_string()), (damaged, format!("{which}, damaged"))] {
                let whole = codec.parse(&text).map(|_| ());
                assert_eq!(codec.reads_like(&text, &ours), whole, "{}: {name}", s.dir.display());
                if whole.is_ok() {
                    read += 1;
                } else {
                    refused += 1;
                }
            }
        }
    }
    eprintln!("read like ours: {read} versions read, {refused} refused alike");
    assert!(read >= 350 && refused >= 350, "only {read} versions read and {refused} refused");
}

#[test]
fn versions_of_one_level_from_anywhere_in_its_history_never_merge_into_a_broken_file() {
    let Some(root) = corpus::require("versions_of_one_level_from_anywhere_in_its_history_never_merge_into_a_broken_file") else { return };
    let mut scenarios = corpus::scenarios(&root.join("merges-json"), |_| true);
    scenarios.extend(corpus::scenarios(&root.join("merges/ldtk"), |_| true));
    let clean = corpus::check_history_triples_never_break(&JsonCodec::default(), &scenarios, 2);
    eprintln!("json: {clean} clean merges of versions from across a file's history checked");
    assert!(clean >= 90, "only {clean} merges came out clean");
}

#[test]
fn skipping_unchanged_parts_changes_nothing_on_real_merges() {
    let Some(root) = corpus::require("skipping_unchanged_parts_changes_nothing_on_real_merges") else { return };
    let mut scenarios = corpus::scenarios(&root.join("merges-json"), |_| true);
    scenarios.extend(corpus::scenarios(&root.join("merges/ldtk"), |_| true));
    let mut compared = 0;
    for s in &scenarios {
        let (b, o, t) = (s.read("base"), s.read("ours"), s.read("theirs"));
        let run = |skip: bool| {
            let codec = JsonCodec { skip_unchanged: skip, ..JsonCodec::default() };
            merge_texts(&codec, Sides::new(&b[..], &o[..], &t[..]), &Options::default(), &MarkerStyle::default())
                .map(|r| (r.text, r.open_conflicts, r.conflicts.len()))
                .map_err(|e| e.to_string())
        };
        let (fast, full) = (run(true), run(false));
        assert!(fast == full, "{}: results differ when unchanged parts are skipped", s.dir.display());
        compared += 1;
    }
    assert!(compared >= 130, "compared {compared}");
}

#[test]
fn splicing_edits_of_different_cocos_elements_writes_what_the_whole_merge_writes_on_every_real_file() {
    let name = "splicing_edits_of_different_cocos_elements_writes_what_the_whole_merge_writes_on_every_real_file";
    let Some(root) = corpus::require(name) else { return };
    let scenarios = corpus::scenarios(&root.join("merges-json/cocos-example-cases"), |_| true);
    let compared =
        corpus::check_splices_equal_whole_merges(&JsonCodec::default(), &scenarios, levelmerge_testutils::gen::edit_json_numbers);
    eprintln!("cocos: {compared} spliced merges equal to the whole merge");
    assert!(compared >= 40, "only {compared} of {} real files were spliced", scenarios.len());
}

#[test]
fn real_cocos_merges_whose_elements_splice_write_what_the_whole_merge_writes() {
    let Some(root) = corpus::require("real_cocos_merges_whose_elements_splice_write_what_the_whole_merge_writes") else { return };
    let scenarios = corpus::scenarios(&root.join("merges-json/cocos-example-cases"), |_| true);
    let (spliced, with_conflicts) = corpus::check_real_splices_equal_whole_merges(&JsonCodec::default(), &scenarios);
    eprintln!("cocos: {spliced} real merges spliced ({with_conflicts} left with conflicts), each equal to the whole merge");
    assert!(spliced >= 4, "only {spliced} real merges were spliced");
}

#[test]
fn real_merges_written_with_windows_line_ends_or_a_byte_order_mark_merge_alike() {
    let Some(root) = corpus::require("real_merges_written_with_windows_line_ends_or_a_byte_order_mark_merge_alike") else {
        return;
    };
    let scenarios = corpus::scenarios(&root.join("merges-json"), |_| true);
    for writing in [corpus::Writing::WindowsLineEnds, corpus::Writing::ByteOrderMark] {
        let compared = corpus::check_writing_does_not_change_merges(&JsonCodec::default(), &scenarios, writing);
        eprintln!("json: {compared} real merges alike written with {writing:?}");
        assert!(compared >= 100, "only {compared} real merges were compared");
    }
}

#[test]
fn real_merges_with_their_sides_swapped_leave_as_many_conflicts() {
    let Some(root) = corpus::require("real_merges_with_their_sides_swapped_leave_as_many_conflicts") else { return };
    let scenarios = corpus::scenarios(&root.join("merges-json"), |_| true);
    let compared = corpus::check_swapped_sides_leave_as_many_conflicts(&JsonCodec::default(), &scenarios);
    assert!(compared >= 100, "only {compared} real merges were compared");
}

#[test]
fn a_clean_real_merge_merged_again_with_either_side_gives_itself_back() {
    let Some(root) = corpus::require("a_clean_real_merge_merged_again_with_either_side_gives_itself_back") else { return };
    let scenarios = corpus::scenarios(&root.join("merges-json"), |_| true);
    let again = corpus::check_merges_hold_what_they_merged(&JsonCodec::default(), &scenarios, corpus::Again::Same);
    assert!(again >= 90, "only {again} clean real merges were merged again");
}

#[test]
fn edits_of_lines_apart_in_every_real_file_both_land() {
    let Some(root) = corpus::require("edits_of_lines_apart_in_every_real_file_both_land") else { return };
    let scenarios = corpus::scenarios(&root.join("merges-json"), |_| true);
    let checked = levelmerge_testutils::edits::check_disjoint_edits_compose(&JsonCodec::default(), &scenarios, 8);
    eprintln!("json: {checked} merges of edits of lines apart, each with both edits");
    assert!(checked >= 600, "only {checked} merges were checked");
}

#[test]
fn one_number_changed_two_ways_in_a_real_file_is_never_settled_in_silence() {
    let Some(root) = corpus::require("one_number_changed_two_ways_in_a_real_file_is_never_settled_in_silence") else { return };
    let scenarios = corpus::scenarios(&root.join("merges-json"), |_| true);
    let (checked, settled) = levelmerge_testutils::edits::check_clashing_edits_are_told(&JsonCodec::default(), &scenarios, 8);
    eprintln!("json: {checked} merges of one number changed two ways, {settled} settled by a rule that says so");
    assert!(checked >= 600, "only {checked} merges were checked");
}
