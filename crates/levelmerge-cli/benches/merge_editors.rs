//! Merge the JSON level editors' biggest real files: the corpus' 2.5 MB LDtk world and the
//! largest GDevelop and Cocos Creator files of the merge corpus, each with generated edits of
//! positions and sizes on both sides (ours in the first half of the file, theirs in the second);
//! print the time and peak memory of `levelmerge merge` next to `git merge-file` on the same
//! files, in the same run.
//!
//! Run: `cargo bench -p levelmerge-cli --bench merge_editors` (optional arguments: edits per
//! side, repetitions). Without the corpus there is nothing to run: it says so.

use std::path::{Path, PathBuf};

use levelmerge_testutils::bench::{compare, inputs_folder, print_header, serve_measurement};
use levelmerge_testutils::gen::edit_json_numbers;

/// The largest `base.*` file of the scenarios in `family`.
fn largest_base(family: &Path) -> Option<PathBuf> {
    let scenarios = std::fs::read_dir(family).ok()?;
    let bases = scenarios
        .flatten()
        .filter_map(|s| std::fs::read_dir(s.path()).ok()?.flatten().map(|f| f.path()).find(|p| p.file_stem().is_some_and(|n| n == "base")));
    bases.max_by_key(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
}

fn main() {
    serve_measurement();
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let edits: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(100);
    let reps: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    let Some(corpus) = levelmerge_testutils::corpus::root() else {
        println!("merge_editors: no corpus at ../shared/corpus: SKIPPED");
        return;
    };
    let json = corpus.join("merges-json");
    let files = [
        Some(corpus.join("large").join("ldtk_WorldMap_GridVania_layout.ldtk")),
        largest_base(&json.join("gdevelop-open-game")),
        largest_base(&json.join("cocos-example-cases")),
    ];
    let dir = tempfile::tempdir().expect("a temporary directory");
    let folder = inputs_folder(&dir);
    let bin = Path::new(env!("CARGO_BIN_EXE_levelmerge"));
    println!("{edits} edited numbers per side, in disjoint halves of the file; median of {reps} runs; peak = largest resident size");
    print_header();
    for (n, file) in files.iter().enumerate() {
        let Some(file) = file else { continue };
        let base = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let ours = edit_json_numbers(&base, edits, 0, 11 + n as u64);
        let theirs = edit_json_numbers(&base, edits, 1, 23 + n as u64);
        let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("json");
        let paths: Vec<PathBuf> = ["base", "ours", "theirs"].iter().map(|s| folder.join(format!("{n}-{s}.{ext}"))).collect();
        for (p, t) in paths.iter().zip([&base, &ours, &theirs]) {
            std::fs::write(p, t).expect("write an input");
        }
        let name = file.components().rev().take(2).map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>();
        let name = if name[0].starts_with("base.") { name[1].to_string() } else { name[0].to_string() };
        compare(
            &name.chars().take(38).collect::<String>(),
            bin,
            &[&paths[0], &paths[1], &paths[2]],
            &folder.join(format!("{n}-out.{ext}")),
            reps,
            0,
        );
    }
}
