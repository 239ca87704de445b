//! Timing and peak memory of one command, for the benchmarks that compare `levelmerge merge`
//! with `git merge-file` on the same files in the same run.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Call first in a benchmark's `main`: when run as `BENCH --measure PROGRAM ARGS…`, runs the
/// program, prints its exit code and peak memory (the largest resident size of this process's
/// only child, in kilobytes) and exits.
pub fn serve_measurement() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("--measure") {
        return;
    }
    let status = Command::new(&args[1]).args(&args[2..]).stdout(Stdio::null()).stderr(Stdio::null()).status().expect("run the program");
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    println!("{} {}", status.code().unwrap_or(-1), usage.max_rss()); // kilobytes on Linux
    std::process::exit(0)
}

/// Where a benchmark writes its inputs: `LEVELMERGE_BENCH_DIR` when set (kept there for
/// profiling; created if missing), else `temporary`.
pub fn inputs_folder(temporary: &tempfile::TempDir) -> std::path::PathBuf {
    match std::env::var_os("LEVELMERGE_BENCH_DIR") {
        Some(dir) => {
            std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create LEVELMERGE_BENCH_DIR {}: {e}", Path::new(&dir).display()));
            dir.into()
        }
        None => temporary.path().to_owned(),
    }
}

/// Peak memory in bytes of one run of `program args`, and its exit code (see
/// [`serve_measurement`]).
pub fn peak_memory(program: &Path, args: &[&Path]) -> (i32, u64) {
    let me = std::env::current_exe().expect("the bench's own path");
    let out = Command::new(me).arg("--measure").arg(program).args(args).output().expect("run the measuring child");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut fields = text.split_whitespace().map(|f| f.parse::<i64>().unwrap_or(-1));
    let (code, kb) = (fields.next().unwrap_or(-1), fields.next().unwrap_or(-1));
    (code as i32, kb.max(0) as u64 * 1024)
}

/// The file a timed command writes its merge to.
#[derive(Clone, Copy)]
pub enum Output<'a> {
    /// The command writes this file itself.
    Written(&'a Path),
    /// The command prints its merge: standard output goes to this file, created within the
    /// timed run (as a shell's `>` would).
    Printed(&'a Path),
}

/// One command to time: its program, arguments, and where its merge goes.
pub type Timed<'a> = (&'a Path, &'a [&'a Path], Output<'a>);

/// The median wall time of `reps` runs of each command (after one run of each that warms the
/// page cache). The commands take turns, so that a busy spell of the machine slows them alike.
/// Each run writes a new file: the last run's is removed before the timed run (replacing a
/// file, or truncating one, makes the file system free its blocks or write out its data).
pub fn median_times<const N: usize>(reps: usize, commands: [Timed<'_>; N]) -> [Duration; N] {
    let run = |(program, args, output): Timed<'_>| {
        let (Output::Written(path) | Output::Printed(path)) = output;
        let _ = std::fs::remove_file(path);
        let t = Instant::now();
        let stdout = match output {
            Output::Printed(path) => Stdio::from(std::fs::File::create(path).expect("create the output file")),
            Output::Written(_) => Stdio::null(),
        };
        let status = Command::new(program).args(args).stdout(stdout).stderr(Stdio::null()).status().expect("run");
        assert!(status.code().is_some_and(|c| c >= 0), "{} was killed", program.display());
        t.elapsed()
    };
    commands.iter().for_each(|&c| {
        run(c);
    });
    let mut times: [Vec<Duration>; N] = std::array::from_fn(|_| Vec::with_capacity(reps));
    for _ in 0..reps.max(1) {
        for (command, runs) in commands.iter().zip(times.iter_mut()) {
            runs.push(run(*command));
        }
    }
    times.map(|mut runs| {
        runs.sort();
        runs[runs.len() / 2]
    })
}

/// Merges three files with both tools and prints one row: input size, time and peak memory of
/// each, the time ratio and levelmerge's peak over the inputs. Both tools write the merged file,
/// levelmerge to `out` and git (`merge-file -p`) to `out` with `.git` appended (both in
/// `/dev/shm` where it exists): writing it is part of a merge. Panics when levelmerge exits
/// with another code than `exit` (0: the edits are meant to merge cleanly; 1: to conflict).
pub fn compare(name: &str, levelmerge: &Path, paths: &[&Path; 3], out: &Path, reps: usize, exit: i32) {
    let inputs: u64 = paths.iter().map(|p| std::fs::metadata(p).map_or(0, |m| m.len())).sum();
    // Inputs just written are flushed first: the journal would otherwise flush them during
    // the first timed runs, slowing whichever tool runs then.
    for p in paths {
        std::fs::File::open(p).and_then(|f| f.sync_all()).expect("flush an input");
    }
    // The merged files go to memory where there is a memory file system: the disk writing
    // back one run's output (125 MB for the largest) would slow whichever tool runs next.
    let memory = Path::new("/dev/shm");
    let in_memory = memory.is_dir().then(|| tempfile::tempdir_in(memory).ok()).flatten();
    let out = &in_memory.as_ref().map_or_else(|| out.to_owned(), |dir| dir.path().join(out.file_name().unwrap_or_default()));
    let lm_args: Vec<&Path> = vec![Path::new("merge"), paths[0], paths[1], paths[2], Path::new("-o"), out, Path::new("-q")];
    let git_args: Vec<&Path> = vec![Path::new("merge-file"), Path::new("-p"), paths[1], paths[0], paths[2]];
    let git = Path::new("git");
    let (lm_code, lm_peak) = peak_memory(levelmerge, &lm_args);
    assert_eq!(lm_code, exit, "levelmerge did not exit {exit} on {name}");
    let (_, git_peak) = peak_memory(git, &git_args);
    let git_out = out.with_extension(format!("{}.git", out.extension().and_then(|e| e.to_str()).unwrap_or("out")));
    let [lm_time, git_time] =
        median_times(reps, [(levelmerge, &lm_args[..], Output::Written(out)), (git, &git_args[..], Output::Printed(&git_out))]);
    let mb = |b: u64| b as f64 / 1e6;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{:<38} {:>6.1}MB {:>8.1}ms {:>7.1}MB {:>8.1}ms {:>7.1}MB {:>7.2} {:>12.2}",
        name,
        mb(inputs),
        ms(lm_time),
        mb(lm_peak),
        ms(git_time),
        mb(git_peak),
        ms(lm_time) / ms(git_time),
        lm_peak as f64 / inputs as f64
    );
}

/// The header of [`compare`]'s rows.
pub fn print_header() {
    println!("both tools write the merged file (git merge-file -p through its standard output), in /dev/shm where it exists");
    println!(
        "{:<38} {:>8} {:>10} {:>9} {:>10} {:>9} {:>7} {:>12}",
        "scene", "inputs", "levelmerge", "peak", "git", "peak", "ratio", "peak/inputs"
    );
}
