//! The `levelmerge` command: a git merge driver, semantic diff and integrity check for game
//! level files.

#[allow(unsafe_code)]
mod alloc;
mod atomic;
mod check_cmd;
mod config;
mod diff_cmd;
mod diff_view;
mod exit;
mod format;
mod git;
mod history_cmd;
mod hub_cmd;
mod merge_cmd;
mod resolve_cmd;
mod setup_cmd;
mod ui;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Levels are read into many small nodes: a faster allocator is a large share of the speed,
/// and a short run's memory is best kept together (`alloc.rs` says why).
#[global_allocator]
static ALLOCATOR: alloc::RegionThenMimalloc = alloc::RegionThenMimalloc::new(alloc::REGION);

/// Merge, diff and check game level files by their objects, not their lines.
#[derive(Debug, Parser)]
#[command(name = "levelmerge", version, propagate_version = true)]
#[command(after_help = "Exit codes: 0 clean / equal / sound, 1 conflicts / differences / problems, 2 could not run.")]
struct Cli {
    /// Print only errors.
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// 3-way merge BASE, OURS and THEIRS (git: `levelmerge merge %O %A %B --path %P -l %L`).
    ///
    /// The result replaces OURS unless -o is given. Exit 0: merged cleanly; 1: conflicts remain,
    /// marked with git conflict markers around the conflicting property or object; 2: nothing was
    /// merged (unreadable input, unwritable output). A file that cannot be read as its format is
    /// merged line by line like `git merge-file`, and stderr says why.
    Merge(merge_cmd::MergeArgs),
    /// Show what changed between two versions: objects added, removed, moved; properties changed.
    ///
    /// Exit 0 when equal, 1 when different, 2 on error.
    Diff(diff_cmd::DiffArgs),
    /// Check level files: syntax, leftover conflict markers, duplicate ids, dangling references,
    /// broken hierarchy.
    ///
    /// Exit 0 when every file is sound, 1 when problems were found, 2 when a file is unreadable.
    Check(check_cmd::CheckArgs),
    /// Settle the conflicts a merge left in a file: interactively on a terminal, with --take
    /// from scripts (all, or per object/property), or list them (--list, --json).
    ///
    /// Reads the conflict markers (levelmerge's or git's, diff3 style included). The interactive
    /// resolver lists the conflicts by object and property and shows ours, base and theirs side
    /// by side; keys: ↑↓/j k move, o ours, t theirs, b base, a both (ours' lines then theirs'),
    /// x clear, u undo, w write (when all are settled), W save progress, PgUp/PgDn scroll, q quit.
    /// A file whose conflicts are all settled is checked before it is written: a choice that
    /// would break the level is refused (a problem the versions git merged already had is left
    /// as it was). Exit 0: no conflict left; 1: conflicts left; 2: nothing written.
    Resolve(resolve_cmd::ResolveArgs),
    /// The history of a level's objects and properties through git: commit, date, author, and
    /// each change old → new; `--object` and `--property` narrow it to one.
    Log(history_cmd::LogArgs),
    /// Who last changed each object of a level, from its git history.
    Blame(history_cmd::BlameArgs),
    /// The live collaboration hub: merges everyone's saved edits into a bare git repository,
    /// every accepted change a commit by its author, and sends the merged level to everyone.
    ///
    /// `levelmerge hub token add NAME --repo DIR` creates an access token. Protocol:
    /// docs/protocol.md.
    Hub(hub_cmd::HubArgs),
    /// Keep level files of a working copy in sync with a hub: each saved edit is published and
    /// merged, and others' edits are written back (merged with yours when you changed the file
    /// meanwhile). Runs until stopped; reconnects by itself.
    Sync(hub_cmd::SyncArgs),
    /// Register levelmerge as git's merge and diff driver for level files (idempotent).
    Setup(setup_cmd::SetupArgs),
    /// Tell whether git will use levelmerge, and for which files.
    Doctor,
    /// git's external diff protocol (set up by `levelmerge setup`).
    #[command(hide = true)]
    GitDiff(diff_cmd::GitDiffArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { exit::FAILED } else { exit::CLEAN };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let ui = ui::Ui::new(cli.quiet);
    let result = match &cli.command {
        Command::Merge(args) => merge_cmd::run(args, &ui),
        Command::Diff(args) => diff_cmd::run(args, &ui),
        Command::Check(args) => check_cmd::run(args, &ui),
        Command::Resolve(args) => resolve_cmd::run(args, &ui),
        Command::Hub(args) => hub_cmd::hub(args, &ui),
        Command::Sync(args) => hub_cmd::sync(args, &ui),
        Command::Log(args) => history_cmd::log(args, &ui),
        Command::Blame(args) => history_cmd::blame(args, &ui),
        Command::Setup(args) => setup_cmd::setup(args, &ui),
        Command::Doctor => setup_cmd::doctor(&ui),
        Command::GitDiff(args) => diff_cmd::run_git(args, &ui),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // A closed pipe (`levelmerge diff … | head`) is not an error.
            if e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)) {
                return ExitCode::from(exit::CLEAN);
            }
            ui.error(&format!("{e:#}"));
            ExitCode::from(exit::FAILED)
        }
    }
}
