//! Merge the corpus' large Godot scenes (`large/`: a 3.4 MB scene whose GridMap is one line, a
//! 1,000-node scene) and generated scenes of 2,000 and 20,000 nodes, with generated edits on
//! both sides; print the time and peak memory of `levelmerge merge` next to `git merge-file` on
//! the same files, in the same run (time should grow linearly with the node count).
//!
//! Run: `cargo bench -p levelmerge-cli --bench merge_godot` (optional arguments: edits per side,
//! repetitions). Without the corpus the generated scenes still run.

use std::path::{Path, PathBuf};

use levelmerge_testutils::bench::{compare, inputs_folder, print_header, serve_measurement};
use levelmerge_testutils::godot::{edit_numbers, scene};

fn main() {
    serve_measurement();
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let edits: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(100);
    let reps: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(5);

    let mut cases: Vec<(String, String)> = Vec::new();
    match levelmerge_testutils::corpus::root() {
        Some(corpus) => {
            for name in ["godot-demo_kinematic_character_level.tscn", "godot-demo_occlusion_culling_node_3d.tscn"] {
                let text = std::fs::read_to_string(corpus.join("large").join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
                cases.push((name.to_owned(), text));
            }
        }
        None => println!("merge_godot: no corpus at ../shared/corpus: the corpus scenes are SKIPPED"),
    }
    cases.push(("generated, 2,000 nodes".to_owned(), scene(2_000)));
    cases.push(("generated, 20,000 nodes".to_owned(), scene(20_000)));

    let dir = tempfile::tempdir().expect("a temporary directory");
    let folder = inputs_folder(&dir);
    let bin = Path::new(env!("CARGO_BIN_EXE_levelmerge"));
    println!("{edits} edited values per side in alternate sections; median of {reps} runs; peak = largest resident size");
    println!("\"+ nodes\": each side also adds a node at one place (the end), spliced in ours' first");
    println!("\"+ nodes, root\": each side also sets a property of the root node: that section is merged alone, the rest spliced");
    println!("\"+ nodes, conflict\": both also set one property of the root node: a conflict, marked in that section merged alone, the rest spliced");
    print_header();
    for (n, (name, base)) in cases.iter().enumerate() {
        let ours = edit_numbers(base, edits, 0, 11 + n as u64);
        let theirs = edit_numbers(base, edits, 1, 23 + n as u64);
        let added = |text: &str, by: &str| format!("{text}\n[node name=\"AddedBy{by}\" type=\"Node3D\" parent=\".\"]\n");
        let plain = (name.clone(), ours.clone(), theirs.clone());
        let with_nodes = (format!("{name} + nodes"), added(&ours, "Ours"), added(&theirs, "Theirs"));
        let root = (
            format!("{name} + nodes, root"),
            with_root_property(&with_nodes.1, "editor_description = \"by ours\""),
            with_root_property(&with_nodes.2, "process_priority = 1"),
        );
        let conflict = (
            format!("{name} + nodes, conflict"),
            with_root_property(&with_nodes.1, "editor_description = \"by ours\""),
            with_root_property(&with_nodes.2, "editor_description = \"by theirs\""),
        );
        for (label, ours, theirs, exit) in [(plain, 0), (with_nodes, 0), (root, 0), (conflict, 1)].map(|((l, o, t), e)| (l, o, t, e)) {
            let paths: Vec<PathBuf> = ["base", "ours", "theirs"].iter().map(|s| folder.join(format!("{n}-{s}.tscn"))).collect();
            for (p, t) in paths.iter().zip([base, &ours, &theirs]) {
                std::fs::write(p, t).expect("write an input");
            }
            compare(&label, bin, &[&paths[0], &paths[1], &paths[2]], &folder.join(format!("{n}-out.tscn")), reps, exit);
        }
    }
}

/// `text` with `line` added first among the root node's properties (the root's tag is the first
/// node tag, on one line).
fn with_root_property(text: &str, line: &str) -> String {
    let tag = text.find("\n[node ").expect("a root node") + 1;
    let after = tag + text[tag..].find('\n').expect("a line after the root's tag") + 1;
    format!("{}{line}\n{}", &text[..after], &text[after..])
}
