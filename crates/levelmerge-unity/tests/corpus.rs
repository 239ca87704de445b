//! Every Unity file of the real corpus parses, and the parse accounts for every byte.

use levelmerge_testutils::corpus;
use levelmerge_unity::{parse, UnityFile, YKind};

/// Every non-blank byte of every document body lies in a key (with its colon), a scalar, a
/// flow collection, or is the `- ` of a sequence item: nothing was skipped.
fn uncovered(f: &UnityFile<'_>) -> Option<usize> {
    let mut spans: Vec<(u32, u32)> = Vec::new();
    for n in &f.nodes {
        if matches!(n.kind, YKind::Scalar | YKind::FlowMap | YKind::FlowSeq) {
            spans.push(n.span);
        }
    }
    for e in &f.entries {
        spans.push((e.key.0, e.key.1 + 1));
    }
    spans.sort_unstable();
    let src = f.src.as_bytes();
    let mut covered = vec![false; src.len()];
    for (a, b) in spans {
        covered[a as usize..b as usize].iter_mut().for_each(|c| *c = true);
    }
    for d in &f.docs {
        // Skip the `---` line itself.
        let start = d.span.0 as usize + src[d.span.0 as usize..].iter().position(|&b| b == b'\n').map_or(0, |p| p + 1);
        let start = if d.class_id == 0 && d.file_id == 0 { d.span.0 as usize } else { start };
        let mut line_start = start;
        for i in start..d.span.1 as usize {
            let b = src[i];
            if b == b'\n' {
                line_start = i + 1;
                continue;
            }
            if covered[i] || b == b' ' || b == b'\r' {
                continue;
            }
            let dash = b == b'-' && src[line_start..i].iter().all(|&c| c == b' ' || c == b'-');
            if !dash {
                return Some(i);
            }
        }
    }
    None
}

#[test]
fn every_corpus_unity_file_parses_completely() {
    let Some(root) = corpus::require("every_corpus_unity_file_parses_completely") else { return };
    let unity = ["unity", "prefab", "asset"];
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for s in corpus::scenarios(&root.join("merges"), |ext| unity.contains(&ext)) {
        for which in ["base", "ours", "theirs", "expected"] {
            files.push((format!("{}/{which}.{}", s.dir.display(), s.ext), s.read(which)));
        }
    }
    for name in ["vrtk_ExampleScene.unity", "bossroom_Dungeon.prefab"] {
        if let Ok(bytes) = std::fs::read(root.join("large").join(name)) {
            files.push((name.to_owned(), bytes));
        }
    }
    assert!(files.len() > 1400, "expected the Unity corpus, found {} files", files.len());
    let (mut parsed, mut refused, mut documents) = (0, 0, 0);
    for (name, bytes) in &files {
        let has_markers = !levelmerge_core::text::marker_lines(bytes).is_empty();
        match parse(bytes) {
            Ok(f) => {
                let headers = bytes.split(|&b| b == b'\n').filter(|l| l.starts_with(b"--- ")).count();
                assert_eq!(f.docs.len(), headers, "{name}: document count");
                if let Some(at) = uncovered(&f) {
                    let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
                    panic!("{name}: byte {at} (line {line}) is not accounted for by the parse");
                }
                documents += f.docs.len();
                parsed += 1;
            }
            Err(e) => {
                assert!(has_markers, "{name}: {e}");
                refused += 1;
            }
        }
    }
    eprintln!("unity corpus: {parsed} files ({documents} documents) parsed completely, {refused} with conflict markers refused");
}

fn merged(b: &[u8], o: &[u8], t: &[u8]) -> Result<Vec<u8>, String> {
    use levelmerge_core::text::MarkerStyle;
    use levelmerge_core::{merge_texts, Options, Sides};
    let r = merge_texts(&levelmerge_unity::UnityCodec, Sides::new(b, o, t), &Options::default(), &MarkerStyle::default())
        .map_err(|e| e.to_string())?;
    if r.open_conflicts > 0 {
        return Err(format!("{} conflicts", r.open_conflicts));
    }
    Ok(r.text)
}

#[test]
fn identity_laws_hold_on_every_real_unity_merge() {
    let Some(root) = corpus::require("identity_laws_hold_on_every_real_unity_merge") else { return };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| ["unity", "prefab"].contains(&ext));
    assert!(scenarios.len() >= 370, "found {}", scenarios.len());
    let checked = corpus::check_identity_laws(
        &scenarios,
        |x| parse(x).is_ok_and(|f| levelmerge_unity::lower::lower(&f, levelmerge_core::Side::Base).is_ok()),
        merged,
    );
    eprintln!("unity identity laws: {checked} real merges");
}

#[test]
fn a_policy_never_settles_a_real_merge_into_a_broken_unity_file() {
    let Some(root) = corpus::require("a_policy_never_settles_a_real_merge_into_a_broken_unity_file") else { return };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| ["unity", "prefab"].contains(&ext));
    let settled = corpus::check_policies_never_break(&levelmerge_unity::UnityCodec, &scenarios);
    eprintln!("unity: {settled} policy-settled real merges checked");
    assert!(settled >= scenarios.len(), "only {settled} of {} merges were settled", scenarios.len() * 2);
}

#[test]
fn versions_of_one_scene_from_anywhere_in_its_history_never_merge_into_a_broken_file() {
    let Some(root) = corpus::require("versions_of_one_scene_from_anywhere_in_its_history_never_merge_into_a_broken_file") else { return };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| ["unity", "prefab"].contains(&ext));
    let clean = corpus::check_history_triples_never_break(&levelmerge_unity::UnityCodec, &scenarios, 2);
    eprintln!("unity: {clean} clean merges of versions from across a file's history checked");
    assert!(clean >= 300, "only {clean} merges came out clean");
}

#[test]
fn splicing_edits_of_different_documents_writes_what_the_whole_merge_writes_on_every_real_file() {
    let Some(root) = corpus::require("splicing_edits_of_different_documents_writes_what_the_whole_merge_writes_on_every_real_file") else {
        return;
    };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| ["unity", "prefab"].contains(&ext));
    let codec = levelmerge_unity::UnityCodec;
    let compared = corpus::check_splices_equal_whole_merges(&codec, &scenarios, levelmerge_testutils::unity::edit_numbers);
    eprintln!("unity: {compared} spliced merges equal to the whole merge");
    assert!(compared >= 300, "only {compared} real files were spliced");
}

#[test]
fn real_merges_whose_documents_splice_write_what_the_whole_merge_writes() {
    let Some(root) = corpus::require("real_merges_whose_documents_splice_write_what_the_whole_merge_writes") else {
        return;
    };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| ["unity", "prefab"].contains(&ext));
    let (spliced, with_conflicts) = corpus::check_real_splices_equal_whole_merges(&levelmerge_unity::UnityCodec, &scenarios);
    eprintln!("unity: {spliced} real merges spliced ({with_conflicts} left with conflicts), each equal to the whole merge");
    assert!(spliced >= 100, "only {spliced} real merges were spliced");
    assert!(with_conflicts >= 10, "only {with_conflicts} real merges with conflicts were spliced");
}

#[test]
fn real_merges_written_with_windows_line_ends_or_a_byte_order_mark_merge_alike() {
    let Some(root) = corpus::require("real_merges_written_with_windows_line_ends_or_a_byte_order_mark_merge_alike") else {
        return;
    };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| ["unity", "prefab"].contains(&ext));
    for writing in [corpus::Writing::WindowsLineEnds, corpus::Writing::ByteOrderMark] {
        let compared = corpus::check_writing_does_not_change_merges(&levelmerge_unity::UnityCodec, &scenarios, writing);
        eprintln!("unity: {compared} real merges alike written with {writing:?}");
        assert!(compared >= 300, "only {compared} real merges were compared");
    }
}

#[test]
fn real_merges_with_their_sides_swapped_leave_as_many_conflicts() {
    let Some(root) = corpus::require("real_merges_with_their_sides_swapped_leave_as_many_conflicts") else {
        return;
    };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| ["unity", "prefab"].contains(&ext));
    let compared = corpus::check_swapped_sides_leave_as_many_conflicts(&levelmerge_unity::UnityCodec, &scenarios);
    assert!(compared >= 300, "only {compared} real merges were compared");
}

#[test]
fn a_clean_real_merge_merged_again_with_either_side_gives_itself_back() {
    let Some(root) = corpus::require("a_clean_real_merge_merged_again_with_either_side_gives_itself_back") else { return };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| ["unity", "prefab"].contains(&ext));
    let again = corpus::check_merges_hold_what_they_merged(&levelmerge_unity::UnityCodec, &scenarios, corpus::Again::Same);
    assert!(again >= 250, "only {again} clean real merges were merged again");
}

/// The paths read off the lines for naming conflicts in documents merged alone are the paths
/// the whole file's outline gives, wherever that reading names an object; it names most of
/// them (not the parts of prefab instances, nor a scene's settings, which have no place).
#[test]
fn paths_read_off_the_lines_are_the_outlines_on_every_real_file() {
    use levelmerge_core::codec::Codec;
    let Some(root) = corpus::require("paths_read_off_the_lines_are_the_outlines_on_every_real_file") else { return };
    let (mut compared, mut named) = (0, 0);
    for s in corpus::scenarios(&root.join("merges"), |ext| ["unity", "prefab"].contains(&ext)) {
        let bytes = s.read("ours");
        let Ok(file) = parse(&bytes) else { continue };
        let codec = levelmerge_unity::UnityCodec;
        let Ok(level) = codec.lower(&file, levelmerge_core::Side::Ours, &[]) else { continue };
        let outline = codec.outline(&level);
        let ids: Vec<&str> = level.objects.keys().map(|id| id.as_str()).collect();
        for (id, path) in ids.iter().zip(levelmerge_unity::outline::object_paths(&bytes, &ids)) {
            compared += 1;
            if let Some(path) = path {
                named += 1;
                let id = levelmerge_core::model::ObjectId::new((*id).to_owned());
                assert_eq!(path, outline.path(&id), "{}: object {id}", s.dir.display());
            }
        }
    }
    assert!(compared > 20_000 && named * 4 > compared * 3, "named {named} of {compared} objects");
    eprintln!("unity corpus: {named} of {compared} objects named off their lines as the outline names them");
}

#[test]
fn edits_of_different_documents_of_every_real_file_both_land() {
    let Some(root) = corpus::require("edits_of_different_documents_of_every_real_file_both_land") else { return };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| ["unity", "prefab"].contains(&ext));
    let checked = levelmerge_testutils::edits::check_disjoint_edits_compose(&levelmerge_unity::UnityCodec, &scenarios, 6);
    eprintln!("unity: {checked} merges of edits in different documents, each with both edits");
    assert!(checked >= 1500, "only {checked} merges were checked");
}

#[test]
fn one_number_changed_two_ways_in_a_real_file_is_never_settled_in_silence() {
    let Some(root) = corpus::require("one_number_changed_two_ways_in_a_real_file_is_never_settled_in_silence") else { return };
    let scenarios = corpus::scenarios(&root.join("merges"), |ext| ["unity", "prefab"].contains(&ext));
    let (checked, settled) = levelmerge_testutils::edits::check_clashing_edits_are_told(&levelmerge_unity::UnityCodec, &scenarios, 6);
    eprintln!("unity: {checked} merges of one number changed two ways, {settled} settled by a rule that says so");
    assert!(checked >= 1500, "only {checked} merges were checked");
}
