//! `levelmerge check`: integrity of level files, named one by one, all of a repository's
//! (`--repo`), or the staged versions about to be committed (`--staged`, the pre-commit hook).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use levelmerge_core::inspect::Located;
use levelmerge_core::Problem;
use rayon::prelude::*;
use serde_json::json;

use crate::config::Config;
use crate::exit;
use crate::format::{self, EXTENSIONS};
use crate::git::{git_in, nul_separated};
use crate::ui::Ui;

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The files to check; a folder stands for the level files below it (hidden folders
    /// skipped).
    #[arg(required_unless_present_any = ["repo", "staged"])]
    pub files: Vec<PathBuf>,
    /// Check every level file of the git repository at PATH (default: the current one), tracked
    /// or new, and look for unmerged files and mergetool leftovers (`*_BASE_*`, `*.orig`). A
    /// folder outside git is walked instead.
    #[arg(long, value_name = "PATH", num_args = 0..=1, default_missing_value = ".", conflicts_with_all = ["files", "staged"])]
    pub repo: Option<PathBuf>,
    /// Check what is staged for the next commit (run by the hook `setup --pre-commit` installs).
    #[arg(long, conflicts_with = "files")]
    pub staged: bool,
    /// Print the problems as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub input: crate::format::FormatArgs,
}

/// One file to check: its name as shown, where its configuration is looked up, and its bytes
/// (read from `path` when the check reaches it, so that not every file is in memory at once).
struct Item {
    name: String,
    path: PathBuf,
    staged: Option<std::io::Result<Vec<u8>>>,
}

impl Item {
    fn on_disk(name: String, path: PathBuf) -> Self {
        Item { name, path, staged: None }
    }
}

/// What was found in one file.
struct Found {
    code: &'static str,
    line: Option<usize>,
    column: Option<usize>,
    message: String,
    /// The object the problem's line falls in, as people see it (`Level/Door [GameObject]`).
    object: Option<String>,
}

impl From<&Problem> for Found {
    fn from(p: &Problem) -> Self {
        let (line, column) = match p {
            Problem::Syntax { line, column, .. } => (Some(*line), Some(*column)),
            _ => (p.line(), None),
        };
        let message = match p {
            Problem::Syntax { message, .. } => message.clone(),
            _ => without_line(&p.to_string()).to_owned(),
        };
        Found { code: p.code(), line, column, message, object: None }
    }
}

/// The problems found in a text, each with the object its line falls in where the text reads
/// as a level, unless the message names that object already (a Godot node by its path).
fn placed(engine: Option<&dyn levelmerge_core::codec::Engine>, text: &[u8]) -> Vec<Found> {
    let Some(engine) = engine else { return format::problems(None, text).iter().map(Found::from).collect() };
    let shown = |found: &Found, o: Located| {
        let named = o.path.last().is_none_or(|name| found.message.contains(name.as_str()));
        (!named).then(|| crate::diff_view::object_text(&o.path, &o.kind))
    };
    engine
        .check_placed(text)
        .into_iter()
        .map(|(problem, object)| {
            let mut found = Found::from(&problem);
            found.object = object.and_then(|o| shown(&found, o));
            found
        })
        .collect()
}

struct FileReport {
    name: String,
    format: Option<&'static str>,
    /// Why the file could not be read, if it could not.
    unreadable: Option<String>,
    found: Vec<Found>,
}

pub fn run(args: &CheckArgs, ui: &Ui) -> Result<u8> {
    let (items, extra, scope) = if let Some(repo) = &args.repo {
        repository_items(repo)?
    } else if args.staged {
        let (items, extra) = staged_items()?;
        (items, extra, Scope::Staged)
    } else {
        let items: Vec<Vec<Item>> = args.files.iter().map(|p| named_items(p)).collect::<Result<_>>()?;
        let scope = if args.files.iter().any(|p| p.is_dir()) { Scope::Folders } else { Scope::Files };
        (items.into_iter().flatten().collect(), Vec::new(), scope)
    };
    let progress = progress_bar(items.len(), scope != Scope::Files);
    let configs = Configs::default();
    let mut reports: Vec<FileReport> = items
        .into_par_iter()
        .map(|item| {
            let report = check_item(item, args, &configs);
            progress.inc(1);
            report
        })
        .collect::<Result<_>>()?;
    progress.finish_and_clear();
    reports.extend(extra);
    let mut out = anstream::stdout().lock();
    if args.json {
        print_json(&reports, &mut out)?;
    } else {
        print_text(&reports, scope, &mut out)?;
    }
    for r in &reports {
        if let Some(why) = &r.unreadable {
            ui.error(&format!("cannot read {}: {why}", r.name));
        }
    }
    Ok(if reports.iter().any(|r| r.unreadable.is_some()) {
        exit::FAILED
    } else if reports.iter().any(|r| !r.found.is_empty()) {
        exit::CONFLICTS
    } else {
        exit::CLEAN
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// Files named one by one: each is reported, sound or not.
    Files,
    /// Files and folders named, the folders walked: sound files go without saying.
    Folders,
    Repository,
    Staged,
}

/// The configuration of each folder, looked up once: a repository has thousands of files in
/// a few folders, and the lookup walks up to the repository root.
#[derive(Default)]
struct Configs(std::sync::Mutex<rustc_hash::FxHashMap<PathBuf, std::sync::Arc<Config>>>);

impl Configs {
    fn for_file(&self, explicit: Option<&Path>, file: &Path) -> Result<std::sync::Arc<Config>> {
        let folder = file.parent().unwrap_or(Path::new("")).to_path_buf();
        if let Some(found) = self.0.lock().expect("no panic holds the lock").get(&folder) {
            return Ok(found.clone());
        }
        let config = std::sync::Arc::new(Config::for_file(explicit, file)?);
        self.0.lock().expect("no panic holds the lock").insert(folder, config.clone());
        Ok(config)
    }
}

fn check_item(item: Item, args: &CheckArgs, configs: &Configs) -> Result<FileReport> {
    let bytes = match item.staged.unwrap_or_else(|| std::fs::read(&item.path)) {
        Ok(b) => b,
        Err(e) => return Ok(FileReport { name: item.name, format: None, unreadable: Some(e.to_string()), found: Vec::new() }),
    };
    let config = configs.for_file(args.input.config.as_deref(), &item.path)?;
    let format = args.input.format.unwrap_or_else(|| format::detect(&[&bytes], Some(&item.path)));
    let found = placed(format::engine(format, &config).as_deref(), &bytes);
    Ok(FileReport { name: item.name, format: Some(format.name()), unreadable: None, found })
}

fn progress_bar(len: usize, wanted: bool) -> indicatif::ProgressBar {
    if !wanted || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template("checking {bar:30} {pos}/{len} files ({eta} left)") {
        bar.set_style(style);
    }
    bar
}

fn print_text(reports: &[FileReport], scope: Scope, out: &mut dyn Write) -> Result<()> {
    for r in reports {
        if r.unreadable.is_some() {
            continue;
        }
        if r.found.is_empty() {
            // A repository's sound files go without saying; files named one by one do not.
            if scope == Scope::Files {
                writeln!(out, "{}: ok ({})", r.name, r.format.unwrap_or("text"))?;
            }
            continue;
        }
        for f in &r.found {
            // `file:line:column: code: message`, as compilers print it (editors jump to it).
            let within = f.object.as_ref().map_or(String::new(), |o| format!(" (in {o})"));
            match (f.line, f.column) {
                (Some(line), Some(column)) => writeln!(out, "{}:{line}:{column}: {}: {}{within}", r.name, f.code, f.message)?,
                (Some(line), None) => writeln!(out, "{}:{line}: {}: {}{within}", r.name, f.code, f.message)?,
                _ => writeln!(out, "{}: {}: {}{within}", r.name, f.code, f.message)?,
            }
        }
    }
    if scope != Scope::Files {
        let with = reports.iter().filter(|r| !r.found.is_empty()).count();
        let problems: usize = reports.iter().map(|r| r.found.len()).sum();
        let what = if scope == Scope::Staged { "staged level file(s)" } else { "level file(s)" };
        let checked = reports.iter().filter(|r| r.format.is_some()).count();
        writeln!(out, "checked {checked} {what}: {with} with problems, {problems} problem(s) in all")?;
    }
    Ok(())
}

fn print_json(reports: &[FileReport], out: &mut dyn Write) -> Result<()> {
    let files: Vec<_> = reports
        .iter()
        .map(|r| match &r.unreadable {
            Some(why) => json!({"file": r.name, "readable": false, "error": why}),
            None => {
                let list: Vec<_> = r
                    .found
                    .iter()
                    .map(|f| json!({"problem": f.code, "line": f.line, "column": f.column, "message": f.message, "object": f.object}))
                    .collect();
                json!({"file": r.name, "format": r.format, "readable": true, "problems": list})
            }
        })
        .collect();
    writeln!(out, "{}", serde_json::to_string_pretty(&json!({"version": 1, "files": files}))?)?;
    Ok(())
}

/// A message without its leading `line N: `, for output that puts the line first.
fn without_line(message: &str) -> &str {
    match message.split_once(": ") {
        Some((head, rest)) if head.starts_with("line ") => rest,
        _ => message,
    }
}

/// Whether levelmerge reads files with this name.
fn is_level_file(name: &str) -> bool {
    Path::new(name).extension().and_then(|e| e.to_str()).is_some_and(|ext| EXTENSIONS.iter().any(|(e, _)| *e == ext))
}

/// What a mergetool leaves behind when a merge is abandoned or not cleaned up:
/// `name_BASE_1234.ext` (also LOCAL, REMOTE, BACKUP) and `name.ext.orig`.
fn is_merge_leftover(name: &str) -> bool {
    let file = name.rsplit('/').next().unwrap_or(name);
    if file.ends_with(".orig") {
        return true;
    }
    let stem = file.split('.').next().unwrap_or(file);
    ["_BASE_", "_LOCAL_", "_REMOTE_", "_BACKUP_"].iter().any(|tag| {
        stem.rsplit_once(tag).is_some_and(|(head, pid)| !head.is_empty() && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// The level files of a repository (tracked, or new and not ignored) and the problems of the
/// repository itself: unmerged paths and mergetool leftovers. A folder outside git is walked.
fn repository_items(dir: &Path) -> Result<(Vec<Item>, Vec<FileReport>, Scope)> {
    if !dir.is_dir() {
        bail!("{} is not a folder", dir.display());
    }
    let inside = Command::new("git").arg("-C").arg(dir).args(["rev-parse", "--is-inside-work-tree"]).output();
    let names = if inside.is_ok_and(|o| o.status.success()) {
        nul_separated(&git_in(dir, &["ls-files", "-z", "--cached", "--others", "--exclude-standard"])?)
    } else {
        walk(dir)?
    };
    let mut extra = Vec::new();
    let unmerged =
        if names.is_empty() { Vec::new() } else { nul_separated(&git_in(dir, &["ls-files", "-z", "--unmerged"]).unwrap_or_default()) };
    let mut unmerged_paths: Vec<String> = unmerged.iter().filter_map(|l| l.split_once('\t').map(|(_, p)| p.to_owned())).collect();
    unmerged_paths.dedup();
    for path in &unmerged_paths {
        extra.push(repo_problem(dir, path, "unmerged", "the merge of this file is not finished (git add it once resolved)"));
    }
    let mut seen = std::collections::HashSet::new();
    let mut items = Vec::new();
    for name in names {
        if !seen.insert(name.clone()) {
            continue;
        }
        if is_merge_leftover(&name) {
            extra.push(repo_problem(dir, &name, "merge-leftover", "a file a mergetool left behind: delete it once the merge is settled"));
            continue;
        }
        if is_level_file(&name) && !unmerged_paths.contains(&name) {
            items.push(Item::on_disk(shown(dir, &name), dir.join(&name)));
        }
    }
    Ok((items, extra, Scope::Repository))
}

fn repo_problem(dir: &Path, name: &str, code: &'static str, message: &str) -> FileReport {
    FileReport {
        name: shown(dir, name),
        format: None,
        unreadable: None,
        found: vec![Found { code, line: None, column: None, message: message.to_owned(), object: None }],
    }
}

/// The file a path names, or the level files below a folder (none is not an error: the
/// report says that no file was checked).
fn named_items(path: &Path) -> Result<Vec<Item>> {
    if !path.is_dir() {
        return Ok(vec![Item::on_disk(path.display().to_string(), path.to_path_buf())]);
    }
    let files = walk(path)?.into_iter().filter(|name| is_level_file(name));
    Ok(files.map(|name| Item::on_disk(path.join(&name).display().to_string(), path.join(name))).collect())
}

/// A repository path as shown: relative to where the command runs when given as `.`.
fn shown(dir: &Path, name: &str) -> String {
    if dir == Path::new(".") {
        name.to_owned()
    } else {
        dir.join(name).display().to_string()
    }
}

/// Every file below `dir`, as relative paths, skipping hidden folders (`.git`, `.svn`).
fn walk(dir: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let full = dir.join(&rel);
        let entries = std::fs::read_dir(&full).with_context(|| format!("cannot list {}", full.display()))?;
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot list {}", full.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel_child = rel.join(&name);
            let kind = entry.file_type().with_context(|| format!("cannot read {}", entry.path().display()))?;
            if kind.is_dir() && !name.starts_with('.') {
                stack.push(rel_child);
            } else if kind.is_file() {
                out.push(rel_child.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The staged version of every level file added, copied, modified or renamed in the index, and
/// the mergetool leftovers about to be committed.
fn staged_items() -> Result<(Vec<Item>, Vec<FileReport>)> {
    let here = Path::new(".");
    let top = PathBuf::from(String::from_utf8_lossy(&git_in(here, &["rev-parse", "--show-toplevel"])?).trim());
    let names = nul_separated(&git_in(here, &["diff", "--cached", "--name-only", "-z", "--diff-filter=ACMR"])?);
    let mut items = Vec::new();
    let mut extra = Vec::new();
    for name in names {
        if is_merge_leftover(&name) {
            extra.push(repo_problem(here, &name, "merge-leftover", "a file a mergetool left behind is staged: unstage and delete it"));
        } else if is_level_file(&name) {
            let bytes = git_in(&top, &["show", &format!(":{name}")]).map_err(|e| std::io::Error::other(format!("{e:#}")));
            items.push(Item { path: top.join(&name), name, staged: Some(bytes) });
        }
    }
    Ok((items, extra))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mergetool_leftovers_are_recognised() {
        for name in ["Assets/Level_BASE_1234.unity", "a/b_LOCAL_9.prefab", "x_REMOTE_77.tscn", "y_BACKUP_1.json", "Level.unity.orig"] {
            assert!(is_merge_leftover(name), "{name}");
        }
        for name in ["Assets/Level.unity", "BASE_1.json", "data_BASE_x.json", "my_BASE_.json"] {
            assert!(!is_merge_leftover(name), "{name}");
        }
    }

    #[test]
    fn level_files_are_known_by_extension() {
        assert!(is_level_file("a/b.prefab") && is_level_file("w.ldtk") && is_level_file("s.tscn"));
        assert!(!is_level_file("README.md") && !is_level_file("noext"));
    }
}
