//! `levelmerge setup` and `levelmerge doctor`: registering the git drivers, and checking that
//! git will use them.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::exit;
use crate::format::EXTENSIONS;
use crate::ui::Ui;

#[derive(Debug, clap::Args)]
pub struct SetupArgs {
    /// Register for every repository of this user (git config --global, global attributes).
    #[arg(long, conflicts_with = "local")]
    pub global: bool,
    /// Register for the current repository only (the default).
    #[arg(long)]
    pub local: bool,
    /// Also install a git pre-commit hook that runs `levelmerge check --staged`, so that a
    /// broken level (markers, dangling references, duplicate ids) cannot be committed.
    #[arg(long, conflicts_with = "global")]
    pub pre_commit: bool,
}

/// The first line of the hook after the shebang: how an installed hook is recognised.
const HOOK_MARK: &str = "# levelmerge pre-commit hook";

pub const DRIVER: &str = "levelmerge";

fn git(args: &[&str]) -> Result<std::process::Output> {
    Command::new("git").args(args).output().context("cannot run git (is it installed and on PATH?)")
}

fn git_stdout(args: &[&str]) -> Option<String> {
    let out = git(args).ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// How the driver command names this program: plain `levelmerge` when that is on PATH and is
/// this very program, else the absolute path of this executable.
fn program() -> String {
    let me = std::env::current_exe().ok().and_then(|p| p.canonicalize().ok());
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths).map(|d| d.join("levelmerge")).find(|p| p.is_file()).and_then(|p| p.canonicalize().ok())
    });
    match (me, on_path) {
        (Some(me), Some(found)) if me == found => "levelmerge".to_owned(),
        (Some(me), _) => shell_quote(&me.display().to_string()),
        (None, _) => "levelmerge".to_owned(),
    }
}

fn shell_quote(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c)) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn attribute_lines() -> Vec<String> {
    EXTENSIONS.iter().map(|(ext, _)| format!("*.{ext} merge={DRIVER} diff={DRIVER}")).collect()
}

/// Where the attributes go: the repository's `.gitattributes`, or the user's global file.
fn attributes_file(global: bool) -> Result<PathBuf> {
    if global {
        if let Some(p) = git_stdout(&["config", "--global", "--path", "--get", "core.attributesFile"]).filter(|p| !p.is_empty()) {
            return Ok(PathBuf::from(p));
        }
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
            .context("cannot find the home directory for the global attributes file")?;
        return Ok(base.join("git").join("attributes"));
    }
    let top = git_stdout(&["rev-parse", "--show-toplevel"]).context("not inside a git repository (use --global, or run inside one)")?;
    Ok(PathBuf::from(top).join(".gitattributes"))
}

/// Append the lines that are missing; returns how many were added.
fn add_lines(path: &Path, lines: &[String]) -> Result<usize> {
    let existing = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let have: Vec<&str> = existing.lines().map(str::trim).collect();
    let missing: Vec<&String> = lines.iter().filter(|l| !have.contains(&l.as_str())).collect();
    if missing.is_empty() {
        return Ok(0);
    }
    let mut text = existing.clone();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    if !have.iter().any(|l| l.starts_with("# levelmerge")) {
        text.push_str("# levelmerge: semantic merge and diff of level files\n");
    }
    for l in &missing {
        text.push_str(l);
        text.push('\n');
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    crate::atomic::write(path, text.as_bytes())?;
    Ok(missing.len())
}

pub fn setup(args: &SetupArgs, ui: &Ui) -> Result<u8> {
    let scope = if args.global { "--global" } else { "--local" };
    if !args.global && git_stdout(&["rev-parse", "--git-dir"]).is_none() {
        bail!("not inside a git repository: run `levelmerge setup` in one, or use --global");
    }
    let prog = program();
    let settings = [
        (format!("merge.{DRIVER}.name"), "levelmerge: semantic merge of game levels".to_owned()),
        (format!("merge.{DRIVER}.driver"), format!("{prog} merge %O %A %B --path %P -l %L")),
        (format!("diff.{DRIVER}.command"), format!("{prog} git-diff")),
        // `git mergetool --tool levelmerge`: merges again by objects and opens the resolver on
        // what conflicts; git keeps the file unresolved while conflicts remain (trustExitCode).
        (
            format!("mergetool.{DRIVER}.cmd"),
            format!("{prog} merge \"$BASE\" \"$LOCAL\" \"$REMOTE\" -o \"$MERGED\" --path \"$MERGED\" --resolve"),
        ),
        (format!("mergetool.{DRIVER}.trustExitCode"), "true".to_owned()),
    ];
    for (key, value) in &settings {
        let out = git(&["config", scope, key, value])?;
        if !out.status.success() {
            bail!("git config {scope} {key} failed: {}", String::from_utf8_lossy(&out.stderr).trim());
        }
    }
    let attrs = attributes_file(args.global)?;
    let added = add_lines(&attrs, &attribute_lines())?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "registered the levelmerge merge and diff drivers ({})", scope.trim_start_matches('-'))?;
    writeln!(out, "  merge driver: {}", settings[1].1)?;
    writeln!(out, "  diff driver:  {}", settings[2].1)?;
    writeln!(out, "  mergetool:    git mergetool --tool {DRIVER}")?;
    if added > 0 {
        writeln!(out, "added {added} line(s) to {}", attrs.display())?;
    } else {
        writeln!(out, "{} already lists every supported extension", attrs.display())?;
    }
    if args.pre_commit {
        let hook = install_hook(&prog)?;
        writeln!(out, "pre-commit hook: {} runs `levelmerge check --staged`", hook.display())?;
    }
    let _ = ui;
    Ok(exit::CLEAN)
}

/// Write the pre-commit hook where git looks for it (`core.hooksPath` honoured). A hook that
/// is not levelmerge's is left alone: the user is told how to call the check from it.
fn install_hook(prog: &str) -> Result<PathBuf> {
    let path = PathBuf::from(git_stdout(&["rev-parse", "--git-path", "hooks/pre-commit"]).context("cannot find the git hooks folder")?);
    let text = format!("#!/bin/sh\n{HOOK_MARK}: refuse commits whose staged level files are broken.\n# Skip once with `git commit --no-verify`.\nexec {prog} check --staged\n");
    match std::fs::read_to_string(&path) {
        Ok(existing) if !existing.contains(HOOK_MARK) => {
            bail!("{} already holds another hook: add the line `{prog} check --staged || exit 1` to it", path.display())
        }
        Ok(_) | Err(_) => {}
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    crate::atomic::write(&path, text.as_bytes())?;
    make_executable(&path)?;
    Ok(path)
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot make {} executable", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<()> {
    Ok(())
}

pub fn doctor(ui: &Ui) -> Result<u8> {
    let mut out = std::io::stdout().lock();
    let mut healthy = true;
    let driver = git_stdout(&["config", "--get", &format!("merge.{DRIVER}.driver")]);
    match &driver {
        Some(cmd) => {
            writeln!(out, "merge driver: {cmd}")?;
            let prog = cmd.split_whitespace().next().unwrap_or_default().trim_matches('\'');
            let found = if prog.contains('/') {
                Path::new(prog).is_file()
            } else {
                std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(prog).is_file()))
            };
            if !found {
                healthy = false;
                writeln!(out, "  problem: {prog} is not found; git will fail to run the driver (run `levelmerge setup` again)")?;
            }
        }
        None => {
            healthy = false;
            writeln!(out, "merge driver: not registered (run `levelmerge setup`)")?;
        }
    }
    match git_stdout(&["config", "--get", &format!("diff.{DRIVER}.command")]) {
        Some(cmd) => writeln!(out, "diff driver:  {cmd}")?,
        None => writeln!(out, "diff driver:  not registered (run `levelmerge setup`)")?,
    }
    if git_stdout(&["rev-parse", "--git-dir"]).is_some() {
        writeln!(out, "in this repository:")?;
        let mut any = false;
        for (ext, format) in EXTENSIONS {
            let probe = format!("levelmerge-probe.{ext}");
            let attrs = git_stdout(&["check-attr", "merge", "diff", "--", &probe]).unwrap_or_default();
            let merge = attrs.lines().find(|l| l.contains(": merge: ")).and_then(|l| l.rsplit(": ").next()).unwrap_or("unspecified");
            let diff = attrs.lines().find(|l| l.contains(": diff: ")).and_then(|l| l.rsplit(": ").next()).unwrap_or("unspecified");
            let used = merge == DRIVER;
            any |= used;
            writeln!(
                out,
                "  *.{ext:<6} {} merge={merge} diff={diff} ({})",
                if used { "uses levelmerge" } else { "NOT levelmerge  " },
                format.name()
            )?;
        }
        if !any {
            healthy = false;
            writeln!(out, "  problem: no level extension is routed to levelmerge (run `levelmerge setup`)")?;
        }
    } else {
        writeln!(out, "not inside a git repository: cannot tell which files use the driver")?;
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    match crate::config::Config::load(None, &cwd) {
        Ok(c) => match &c.source {
            Some(p) => writeln!(out, "configuration: {} ({} property rule(s))", p.display(), c.rules.len())?,
            None => writeln!(out, "configuration: none found (defaults)")?,
        },
        Err(e) => {
            healthy = false;
            ui.error(&format!("{e:#}"));
        }
    }
    Ok(if healthy { exit::CLEAN } else { exit::CONFLICTS })
}
