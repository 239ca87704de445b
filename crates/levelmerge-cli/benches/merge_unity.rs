//! Merge real 4 MB Unity scenes from the corpus (`large/`), and a 40 MB scene replicated from one
//! of them with fresh fileIDs, with generated edits on both sides; print the time and peak
//! memory of `levelmerge merge` next to `git merge-file` on the same files, in the same run.
//!
//! Run: `cargo bench -p levelmerge-cli --bench merge_unity` (optional arguments: edits per side,
//! repetitions, copies for the replicated scene). Without the corpus it says so and stops.

use std::path::{Path, PathBuf};

use levelmerge_testutils::bench::{compare, inputs_folder, print_header, serve_measurement};
use levelmerge_testutils::unity::{edit_numbers, replicate};

fn main() {
    serve_measurement();
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let edits: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(100);
    let reps: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    let copies: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(10);

    let Some(corpus) = levelmerge_testutils::corpus::root() else {
        println!("merge_unity: SKIPPED: no corpus at ../shared/corpus (set LEVELMERGE_CORPUS)");
        return;
    };
    let large = corpus.join("large");
    let read = |name: &str| std::fs::read_to_string(large.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let vrtk = read("vrtk_ExampleScene.unity");
    let cases = [
        ("bossroom_Dungeon.prefab".to_owned(), read("bossroom_Dungeon.prefab")),
        ("vrtk_ExampleScene.unity".to_owned(), vrtk.clone()),
        (format!("vrtk × {copies} (fresh fileIDs)"), replicate(&vrtk, copies)),
    ];

    let dir = tempfile::tempdir().expect("a temporary directory");
    let folder = inputs_folder(&dir);
    let bin = Path::new(env!("CARGO_BIN_EXE_levelmerge"));
    println!("{edits} edited fields per side in disjoint documents; median of {reps} runs; peak = largest resident size");
    println!("\"+ one object\": each side also edits a field of the first game object: that document is merged alone, the rest spliced");
    println!("\"+ conflict\": both also rename the first game object: a conflict, marked in that document merged alone, the rest spliced");
    print_header();
    for (n, (name, base)) in cases.iter().enumerate() {
        let scale = (base.len() / 4_000_000).max(1);
        let ours = edit_numbers(base, edits * scale, 0, 11 + n as u64);
        let theirs = edit_numbers(base, edits * scale, 1, 23 + n as u64);
        let ext = if name.contains(".prefab") { "prefab" } else { "unity" };
        let one_object = (
            format!("{name} + one object"),
            in_first_game_object(&ours, "m_Name", "ByOurs"),
            in_first_game_object(&theirs, "m_IsActive", "0"),
        );
        let conflict = (
            format!("{name} + conflict"),
            in_first_game_object(&ours, "m_Name", "ByOurs"),
            in_first_game_object(&theirs, "m_Name", "ByTheirs"),
        );
        for (label, ours, theirs, exit) in
            [((name.clone(), ours.clone(), theirs.clone()), 0), (one_object, 0), (conflict, 1)].map(|((l, o, t), e)| (l, o, t, e))
        {
            let paths: Vec<PathBuf> = ["base", "ours", "theirs"].iter().map(|s| folder.join(format!("{n}-{s}.{ext}"))).collect();
            for (p, t) in paths.iter().zip([base, &ours, &theirs]) {
                std::fs::write(p, t).expect("write an input");
            }
            compare(&label, bin, &[&paths[0], &paths[1], &paths[2]], &folder.join(format!("{n}-out.{ext}")), reps, exit);
        }
    }
}

/// `text` with the `key` field of its first game object set to `value`.
fn in_first_game_object(text: &str, key: &str, value: &str) -> String {
    let object = text.find("\nGameObject:\n").expect("a game object");
    let line = object + text[object..].find(&format!("\n  {key}: ")).expect("the field in the game object") + 1;
    let end = line + text[line..].find('\n').expect("a line end");
    format!("{}  {key}: {value}{}", &text[..line], &text[end..])
}
