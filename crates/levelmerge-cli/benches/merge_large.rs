//! Merge a generated 10 MB JSON level with a few hundred edits per side, and time it next to
//! `git merge-file` on the same three files, in the same run.
//!
//! Run: `cargo bench -p levelmerge-cli --bench merge_large` (optional arguments: size in MB,
//! edits per side, repetitions).

use std::process::Command;
use std::time::{Duration, Instant};

use levelmerge_core::text::MarkerStyle;
use levelmerge_core::{merge_texts, Options, Sides};
use levelmerge_json::JsonCodec;
use levelmerge_testutils::gen::{large_level, spread_edits, Style};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(reps: usize, mut f: impl FnMut()) -> Duration {
    f(); // warm up caches and the page cache
    median(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let mb: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(10);
    let edits: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(300);
    let reps: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(7);

    let base = large_level(mb * 1_000_000, 7);
    let mut ours = base.clone();
    for e in spread_edits(&base, edits, 1_000_000, 11) {
        ours.apply(&e);
    }
    let mut theirs = base.clone();
    for e in spread_edits(&base, edits, 2_000_000, 13) {
        theirs.apply(&e);
    }
    let texts = [base.to_json(Style::TWO), ours.to_json(Style::TWO), theirs.to_json(Style::TWO)];
    let dir = tempfile::tempdir().expect("a temporary directory");
    let folder = levelmerge_testutils::bench::inputs_folder(&dir);
    let paths: Vec<_> = ["base.json", "ours.json", "theirs.json"].iter().map(|n| folder.join(n)).collect();
    for (p, t) in paths.iter().zip(&texts) {
        std::fs::write(p, t).expect("write input");
    }
    println!(
        "input: {} entities, {:.1} MB per file, {edits} edits per side, median of {reps} runs",
        base.entities.len(),
        texts[0].len() as f64 / 1e6
    );

    let codec = JsonCodec::default();
    let mut conflicts = 0;
    let in_process = time(reps, || {
        let r = merge_texts(
            &codec,
            Sides::new(texts[0].as_bytes(), texts[1].as_bytes(), texts[2].as_bytes()),
            &Options::default(),
            &MarkerStyle::default(),
        )
        .expect("the generated level merges");
        conflicts = r.open_conflicts;
    });

    let bin = env!("CARGO_BIN_EXE_levelmerge");
    let out = folder.join("out.json");
    let cli = time(reps, || {
        let status = Command::new(bin).arg("merge").args(&paths).arg("-o").arg(&out).arg("-q").status().expect("run levelmerge");
        assert!(status.code().is_some_and(|c| c <= 1), "levelmerge failed");
    });

    let git = time(reps, || {
        let o =
            Command::new("git").args(["merge-file", "-p"]).args([&paths[1], &paths[0], &paths[2]]).output().expect("run git merge-file");
        assert!(o.status.code().is_some_and(|c| c >= 0), "git merge-file failed");
    });
    let git_conflicts = {
        let o =
            Command::new("git").args(["merge-file", "-p"]).args([&paths[1], &paths[0], &paths[2]]).output().expect("run git merge-file");
        o.status.code().unwrap_or(-1)
    };

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("{:<38} {:>10}", "", "median");
    println!("{:<38} {:>8.1} ms  ({conflicts} conflicts)", "levelmerge, in process (parse+merge+write)", ms(in_process));
    println!("{:<38} {:>8.1} ms", "levelmerge merge (whole command)", ms(cli));
    println!("{:<38} {:>8.1} ms  ({git_conflicts} conflict hunks)", "git merge-file -p", ms(git));
    println!("ratio levelmerge command / git merge-file: {:.2}", ms(cli) / ms(git));
    println!("ratio levelmerge in process / git merge-file: {:.2}", ms(in_process) / ms(git));
}
