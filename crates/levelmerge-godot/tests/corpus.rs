//! Every Godot file of the real corpus parses, reassembles byte for byte, and merges by the
//! identity laws.

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{merge_texts, Options, Sides};
use levelmerge_godot::{parse, GodotCodec};
use levelmerge_testutils::corpus;

const GODOT: [&str; 2] = ["tscn", "tres"];

fn reassembled(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let f = parse(bytes).map_err(|e| e.to_string())?;
    let mut out = f.text(f.preamble).to_owned();
    for s in &f.sections {
        out.push_str(f.text(s.span));
        out.push_str(f.text(s.gap));
    }
    Ok(out.into_bytes())
}

#[test]
fn every_corpus_godot_file_parses_and_reassembles() {
    let Some(root) = corpus::require("every_corpus_godot_file_parses_and_reassembles") else { return };
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for s in corpus::scenarios(&root.join("merges"), |ext| GODOT.contains(&ext)) {
        for which in ["base", "ours", "theirs", "expected"] {
            files.push((format!("{}/{which}.{}", s.dir.display(), s.ext), s.read(which)));
        }
    }
    if let Ok(entries) = std::fs::read_dir(root.join("large")) {
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().and_then(|x| x.to_str()).is_some_and(|x| GODOT.contains(&x)) {
                files.push((p.display().to_string(), std::fs::read(&p).expect("readable")));
            }
        }
    }
    assert!(files.len() >= 720, "expected the Godot corpus, found {} files", files.len());
    let (mut parsed, mut refused) = (0, 0);
    for (name, bytes) in &files {
        let has_markers = !levelmerge_core::text::marker_lines(bytes).is_empty();
        match reassembled(bytes) {
            Ok(out) => {
                assert!(out == *bytes, "{name}: the parse does not give the file back");
                parsed += 1;
            }
            Err(e) => {
                assert!(has_markers, "{name}: {e}");
                refused += 1;
            }
        }
    }
    eprintln!("godot corpus: {parsed} files parsed and reassembled, {refused} with conflict markers refused");
}

fn merged(b: &[u8], o: &[u8], t: &[u8]) -> Result<Vec<u8>, String> {
    let r = merge_texts(&GodotCodec, Sides::new(b, o, t), &Options::default(), &MarkerStyle::default()).map_err(|e| e.to_string())?;
    if r.open_conflicts > 0 {
        return Err(format!("{} conflicts", r.open_conflicts));
    }
    Ok(r.text)
}

#[test]
fn identity_laws_hold_on_every_real_godot_merge() {
    let Some(root) = corpus::require("identity_laws_hold_on_every_real_godot_merge") else { return };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| GODOT.contains(&ext));
    assert!(scenarios.len() >= 180, "found {}", scenarios.len());
    let checked = corpus::check_identity_laws(
        &scenarios,
        |x| parse(x).is_ok_and(|f| levelmerge_godot::lower::lower(&f, levelmerge_core::Side::Base).is_ok()),
        merged,
    );
    assert!(checked >= 150, "only {checked} scenarios had sound inputs");
    eprintln!("godot identity laws: {checked} real merges");
}

#[test]
fn a_policy_never_settles_a_real_merge_into_a_broken_godot_file() {
    let Some(root) = corpus::require("a_policy_never_settles_a_real_merge_into_a_broken_godot_file") else { return };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| ["tscn", "tres"].contains(&ext));
    let settled = corpus::check_policies_never_break(&levelmerge_godot::GodotCodec, &scenarios);
    eprintln!("godot: {settled} policy-settled real merges checked");
    assert!(settled >= scenarios.len(), "only {settled} of {} merges were settled", scenarios.len() * 2);
}

#[test]
fn versions_of_one_scene_from_anywhere_in_its_history_never_merge_into_a_broken_file() {
    let Some(root) = corpus::require("versions_of_one_scene_from_anywhere_in_its_history_never_merge_into_a_broken_file") else { return };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| ["tscn", "tres"].contains(&ext));
    let clean = corpus::check_history_triples_never_break(&levelmerge_godot::GodotCodec, &scenarios, 2);
    eprintln!("godot: {clean} clean merges of versions from across a file's history checked");
    assert!(clean >= 150, "only {clean} merges came out clean");
}

#[test]
fn splicing_edits_of_different_sections_writes_what_the_whole_merge_writes_on_every_real_file() {
    let Some(root) = corpus::require("splicing_edits_of_different_sections_writes_what_the_whole_merge_writes_on_every_real_file") else {
        return;
    };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| GODOT.contains(&ext));
    let compared = corpus::check_splices_equal_whole_merges(&GodotCodec, &scenarios, levelmerge_testutils::godot::edit_numbers);
    eprintln!("godot: {compared} spliced merges equal to the whole merge");
    assert!(compared >= 150, "only {compared} real files were spliced");
}

#[test]
fn real_merges_whose_sections_splice_write_what_the_whole_merge_writes() {
    let Some(root) = corpus::require("real_merges_whose_sections_splice_write_what_the_whole_merge_writes") else {
        return;
    };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| GODOT.contains(&ext));
    let (spliced, with_conflicts) = corpus::check_real_splices_equal_whole_merges(&GodotCodec, &scenarios);
    eprintln!("godot: {spliced} real merges spliced ({with_conflicts} left with conflicts), each equal to the whole merge");
    assert!(spliced >= 40, "only {spliced} real merges were spliced");
    assert!(with_conflicts >= 5, "only {with_conflicts} real merges with conflicts were spliced");
}

#[test]
fn real_merges_written_with_windows_line_ends_or_a_byte_order_mark_merge_alike() {
    let Some(root) = corpus::require("real_merges_written_with_windows_line_ends_or_a_byte_order_mark_merge_alike") else {
        return;
    };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| GODOT.contains(&ext));
    for writing in [corpus::Writing::WindowsLineEnds, corpus::Writing::ByteOrderMark] {
        let compared = corpus::check_writing_does_not_change_merges(&GodotCodec, &scenarios, writing);
        eprintln!("godot: {compared} real merges alike written with {writing:?}");
        assert!(compared >= 150, "only {compared} real merges were compared");
    }
}

#[test]
fn real_merges_with_their_sides_swapped_leave_as_many_conflicts() {
    let Some(root) = corpus::require("real_merges_with_their_sides_swapped_leave_as_many_conflicts") else {
        return;
    };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| GODOT.contains(&ext));
    let compared = corpus::check_swapped_sides_leave_as_many_conflicts(&GodotCodec, &scenarios);
    assert!(compared >= 150, "only {compared} real merges were compared");
}

#[test]
fn a_clean_real_merge_merged_again_with_either_side_gives_itself_back() {
    let Some(root) = corpus::require("a_clean_real_merge_merged_again_with_either_side_gives_itself_back") else { return };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| GODOT.contains(&ext));
    // Merged again with theirs, Godot 3's integer resource ids may be numbered otherwise.
    let again = corpus::check_merges_hold_what_they_merged(&GodotCodec, &scenarios, corpus::Again::Renumbered);
    assert!(again >= 130, "only {again} clean real merges were merged again");
}

#[test]
fn edits_of_different_sections_of_every_real_file_both_land() {
    let Some(root) = corpus::require("edits_of_different_sections_of_every_real_file_both_land") else { return };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| GODOT.contains(&ext));
    let checked = levelmerge_testutils::edits::check_disjoint_edits_compose(&GodotCodec, &scenarios, 8);
    eprintln!("godot: {checked} merges of edits in different sections, each with both edits");
    assert!(checked >= 1000, "only {checked} merges were checked");
}

#[test]
fn one_number_changed_two_ways_in_a_real_file_is_never_settled_in_silence() {
    let Some(root) = corpus::require("one_number_changed_two_ways_in_a_real_file_is_never_settled_in_silence") else { return };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| GODOT.contains(&ext));
    let (checked, settled) = levelmerge_testutils::edits::check_clashing_edits_are_told(&GodotCodec, &scenarios, 8);
    eprintln!("godot: {checked} merges of one number changed two ways, {settled} settled by a rule that says so");
    assert!(checked >= 1000, "only {checked} merges were checked");
}

/// A node a file defines itself (a type, no instance): its path as a child names it in its
/// `parent` attribute (`.` for the root), and the span of its section with the blank lines after
/// it when it is a leaf whose name the file uses nowhere else (no other node under it, no
/// signal naming it).
struct DefinedNode {
    path: String,
    lone_leaf: Option<std::ops::Range<usize>>,
}

fn defined_nodes(text: &str) -> Vec<DefinedNode> {
    let Ok(file) = parse(text.as_bytes()) else { return Vec::new() };
    let mut nodes = Vec::new();
    for s in file.sections.iter().filter(|s| file.kind(s) == "node") {
        let [name, parent, type_name, instance] = file.attrs_unquoted(s, ["name", "parent", "type", "instance"]);
        let (Some(name), Some(_), None) = (name, type_name, instance) else { continue };
        let path = match parent {
            None => ".".to_owned(),
            Some(".") => name.to_owned(),
            Some(p) => format!("{p}/{name}"),
        };
        let lone = parent.is_some() && text.matches(name).count() == 1;
        // The last section goes with the blank lines before it, as Godot writes the file
        // without it: a file does not end with a blank line.
        let start = if s.gap.1 as usize == text.len() {
            let kept = text[..s.span.0 as usize].trim_end().len();
            kept + text[kept..].find('\n').map_or(0, |i| i + 1)
        } else {
            s.span.0 as usize
        };
        nodes.push(DefinedNode { path, lone_leaf: lone.then_some(start..s.gap.1 as usize) });
    }
    nodes
}

#[test]
fn nodes_added_on_both_sides_or_deleted_on_one_of_every_real_file_all_land() {
    const DRAWS: usize = 3;
    let Some(root) = corpus::require("nodes_added_on_both_sides_or_deleted_on_one_of_every_real_file_all_land") else { return };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| GODOT.contains(&ext));
    let (mut added, mut deleted) = (0, 0);
    let text = |merged: Result<Vec<u8>, String>| merged.map(|m| String::from_utf8_lossy(&m).into_owned());
    for (n, s) in scenarios.iter().enumerate() {
        let Ok(base) = String::from_utf8(s.read("base")) else { continue };
        if !base.ends_with('\n') || !levelmerge_core::check_text(&GodotCodec, base.as_bytes()).is_empty() {
            continue;
        }
        let nodes = defined_nodes(&base);
        if nodes.is_empty() {
            continue;
        }
        let mut rng = levelmerge_testutils::gen::Rng::new(n as u64 + 1);
        let mut pick = |len: usize| rng.below(len as u64) as usize;
        for _ in 0..DRAWS {
            let (ours_parent, theirs_parent) = (&nodes[pick(nodes.len())].path, &nodes[pick(nodes.len())].path);
            let node = |by: &str, parent: &str| format!("\n[node name=\"AddedBy{by}\" type=\"Node\" parent=\"{parent}\"]\n");
            let (ours_node, theirs_node) = (node("Ours", ours_parent), node("Theirs", theirs_parent));
            // Both sides add a node: both land, ours first.
            let got = text(merged(base.as_bytes(), format!("{base}{ours_node}").as_bytes(), format!("{base}{theirs_node}").as_bytes()));
            assert_eq!(got, Ok(format!("{base}{ours_node}{theirs_node}")), "{}: nodes added on both sides", s.dir.display());
            added += 1;
            // Ours deletes a leaf nothing else names, theirs adds a node elsewhere: both land.
            let leaves: Vec<&DefinedNode> = nodes.iter().filter(|d| d.lone_leaf.is_some() && d.path != *theirs_parent).collect();
            if leaves.is_empty() {
                continue;
            }
            let leaf = leaves[pick(leaves.len())].lone_leaf.clone().unwrap_or_default();
            let without = format!("{}{}", &base[..leaf.start], &base[leaf.end..]);
            let got = text(merged(base.as_bytes(), without.as_bytes(), format!("{base}{theirs_node}").as_bytes()));
            assert_eq!(got, Ok(format!("{without}{theirs_node}")), "{}: a leaf deleted, a node added", s.dir.display());
            deleted += 1;
        }
    }
    eprintln!("godot: {added} merges of nodes added on both sides and {deleted} of a leaf deleted on one, each with every change");
    assert!(added >= 400 && deleted >= 250, "only {added} and {deleted} merges were checked");
}
