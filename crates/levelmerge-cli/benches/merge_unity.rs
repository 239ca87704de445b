//! Merge real 4 MB Unity scenes from the corpus (`large/`), and a 40 MB scene replicated from one
//! of them with fresh fileIDs, with generated edits on both sides; print the time and peak
//! memory of `levelmerge merge` next to `git merge-file` on the same files, in the same run.
//!
//! Run: `cargo bench -p levelmerge-cli --bench merge_unity` (optional arguments: edits per side,
//! repetitions, copies for the replicated scene). Without the corpus it says so and stops.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use levelmerge_testutils::unity::{edit_numbers, replicate};

/// Run as `merge_unity --measure PROGRAM ARGS…`: run the program and print its peak memory
/// (the largest resident size of this process's only child).
fn measure_child(args: &[String]) -> ! {
    let status = Command::new(&args[0]).args(&args[1..]).stdout(Stdio::null()).stderr(Stdio::null()).status().expect("run the program");
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    println!("{} {}", status.code().unwrap_or(-1), usage.max_rss()); // kilobytes on Linux
    std::process::exit(0)
}

/// Peak memory in bytes of one run of `program args`, and its exit code.
fn peak_memory(program: &Path, args: &[&Path]) -> (i32, u64) {
    let me = std::env::current_exe().expect("the bench's own path");
    let out = Command::new(me).arg("--measure").arg(program).args(args).output().expect("run the measuring child");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut fields = text.split_whitespace().map(|f| f.parse::<i64>().unwrap_or(-1));
    let (code, kb) = (fields.next().unwrap_or(-1), fields.next().unwrap_or(-1));
    (code as i32, kb.max(0) as u64 * 1024)
}

fn median_time(reps: usize, program: &Path, args: &[&Path]) -> Duration {
    let run = || {
        let t = Instant::now();
        let status = Command::new(program).args(args).stdout(Stdio::null()).stderr(Stdio::null()).status().expect("run");
        assert!(status.code().is_some_and(|c| c >= 0), "{} was killed", program.display());
        t.elapsed()
    };
    run(); // warm the page cache
    let mut times: Vec<Duration> = (0..reps).map(|_| run()).collect();
    times.sort();
    times[times.len() / 2]
}

struct Case {
    name: String,
    base: String,
}

fn main() {
    let all: Vec<String> = std::env::args().skip(1).collect();
    if all.first().is_some_and(|a| a == "--measure") {
        measure_child(&all[1..]);
    }
    let args: Vec<String> = all.into_iter().filter(|a| !a.starts_with('-')).collect();
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
        Case { name: "bossroom_Dungeon.prefab".into(), base: read("bossroom_Dungeon.prefab") },
        Case { name: "vrtk_ExampleScene.unity".into(), base: vrtk.clone() },
        Case { name: format!("vrtk × {copies} (fresh fileIDs)"), base: replicate(&vrtk, copies) },
    ];

    let dir = tempfile::tempdir().expect("a temporary directory");
    let keep = std::env::var_os("LEVELMERGE_BENCH_DIR").map(PathBuf::from);
    let folder = keep.unwrap_or_else(|| dir.path().to_owned());
    let bin = Path::new(env!("CARGO_BIN_EXE_levelmerge"));
    let git = Path::new("git");
    let mb = |b: u64| b as f64 / 1e6;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("{edits} edited fields per side in disjoint documents; median of {reps} runs; peak = largest resident size");
    println!(
        "{:<34} {:>8} {:>10} {:>9} {:>10} {:>9} {:>7} {:>12}",
        "scene", "inputs", "levelmerge", "peak", "git", "peak", "ratio", "peak/inputs"
    );
    for (n, case) in cases.iter().enumerate() {
        let scale = (case.base.len() / 4_000_000).max(1);
        let ours = edit_numbers(&case.base, edits * scale, 0, 11 + n as u64);
        let theirs = edit_numbers(&case.base, edits * scale, 1, 23 + n as u64);
        let ext = if case.name.contains(".prefab") { "prefab" } else { "unity" };
        let paths: Vec<PathBuf> = ["base", "ours", "theirs"].iter().map(|s| folder.join(format!("{n}-{s}.{ext}"))).collect();
        for (p, t) in paths.iter().zip([&case.base, &ours, &theirs]) {
            std::fs::write(p, t).expect("write an input");
        }
        let inputs: u64 = paths.iter().map(|p| std::fs::metadata(p).map_or(0, |m| m.len())).sum();
        let out = folder.join(format!("{n}-out.{ext}"));
        let lm_args: Vec<&Path> = vec![Path::new("merge"), &paths[0], &paths[1], &paths[2], Path::new("-o"), &out, Path::new("-q")];
        let git_args: Vec<&Path> = vec![Path::new("merge-file"), Path::new("-p"), &paths[1], &paths[0], &paths[2]];
        let (lm_code, lm_peak) = peak_memory(bin, &lm_args);
        assert_eq!(lm_code, 0, "levelmerge did not merge {} cleanly", case.name);
        let (_, git_peak) = peak_memory(git, &git_args);
        let lm_time = median_time(reps, bin, &lm_args);
        let git_time = median_time(reps, git, &git_args);
        println!(
            "{:<34} {:>6.1}MB {:>8.1}ms {:>7.1}MB {:>8.1}ms {:>7.1}MB {:>7.2} {:>12.2}",
            case.name,
            mb(inputs),
            ms(lm_time),
            mb(lm_peak),
            ms(git_time),
            mb(git_peak),
            ms(lm_time) / ms(git_time),
            lm_peak as f64 / inputs as f64
        );
    }
}
