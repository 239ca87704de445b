//! `levelmerge diff`: what changed between two versions of a level, object by object.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use levelmerge_core::diff::Change;
use owo_colors::OwoColorize;
use serde_json::json;

use crate::config::Config;
use crate::exit;
use crate::format::{self, Format};
use crate::ui::{shorten, Ui};

#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    pub old: PathBuf,
    pub new: PathBuf,
    /// Print the changes as JSON (schema version 1).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub input: crate::format::FormatArgs,
}

/// git's external diff protocol: `path old-file old-hex old-mode new-file new-hex new-mode`.
#[derive(Debug, clap::Args)]
pub struct GitDiffArgs {
    #[arg(num_args = 7, required = true, value_name = "GIT_ARGS")]
    pub args: Vec<PathBuf>,
}

fn read(path: &Path) -> Result<Vec<u8>> {
    if path == Path::new("/dev/null") {
        return Ok(Vec::new());
    }
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

pub fn run(args: &DiffArgs, ui: &Ui) -> Result<u8> {
    let (old, new) = (read(&args.old)?, read(&args.new)?);
    let mut out = anstream::stdout().lock();
    let differ = render(&old, &new, &args.new, args.input.format, args.input.config.as_deref(), args.json, ui, &mut out)?;
    Ok(if differ { exit::CONFLICTS } else { exit::CLEAN })
}

pub fn run_git(args: &GitDiffArgs, ui: &Ui) -> Result<u8> {
    let path = &args.args[0];
    let (old, new) = (read(&args.args[1])?, read(&args.args[4])?);
    let mut out = anstream::stdout().lock();
    let header = format!("levelmerge diff a/{0} b/{0}", path.display());
    writeln!(out, "{}", if ui.color { header.bold().to_string() } else { header })?;
    render(&old, &new, path, None, None, false, ui, &mut out)?;
    // git treats a failing external diff as fatal; differences are not failures here.
    Ok(exit::CLEAN)
}

#[allow(clippy::too_many_arguments)]
fn render(
    old: &[u8],
    new: &[u8],
    path: &Path,
    format: Option<Format>,
    config: Option<&Path>,
    as_json: bool,
    ui: &Ui,
    out: &mut dyn Write,
) -> Result<bool> {
    let config = Config::for_file(config, path)?;
    let format = format.unwrap_or_else(|| format::detect(&[new, old], Some(path)));
    let changes = match format::engine(format, &config) {
        Some(engine) if !old.is_empty() && !new.is_empty() => match engine.diff(old, new) {
            Ok(c) => Some(c),
            Err(e) => {
                ui.warn(&format!("{}: showing a line diff: {e}", path.display()));
                None
            }
        },
        _ => None,
    };
    let Some(changes) = changes else {
        let old_s = String::from_utf8_lossy(old);
        let new_s = String::from_utf8_lossy(new);
        let diff = similar::TextDiff::from_lines(old_s.as_ref(), new_s.as_ref());
        if as_json {
            let v = json!({ "version": 1, "format": format.name(), "mode": "lines", "unified": diff.unified_diff().to_string() });
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        } else {
            write!(out, "{}", diff.unified_diff().context_radius(3).header("old", "new"))?;
        }
        return Ok(old != new);
    };
    if as_json {
        let list: Vec<_> = changes.iter().map(change_json).collect();
        let v = json!({ "version": 1, "format": format.name(), "mode": "semantic", "changes": list });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        print_text(&changes, ui.color, out)?;
    }
    // Files can differ in layout only: that is still a difference, said so.
    if changes.is_empty() && old != new && !as_json {
        writeln!(out, "(layout only: no change to objects or properties)")?;
    }
    Ok(old != new)
}

fn change_json(c: &Change) -> serde_json::Value {
    match c {
        Change::Added { id, kind, parent } => {
            json!({"change": "added", "object": id.as_str(), "kind": kind, "parent": parent.as_ref().map(|p| p.as_str())})
        }
        Change::Removed { id, kind, parent } => {
            json!({"change": "removed", "object": id.as_str(), "kind": kind, "parent": parent.as_ref().map(|p| p.as_str())})
        }
        Change::Moved { id, kind, from, to } => {
            json!({"change": "moved", "object": id.as_str(), "kind": kind, "from": from.as_ref().map(|p| p.as_str()), "to": to.as_ref().map(|p| p.as_str())})
        }
        Change::Modified { id, kind, path, old, new } => {
            json!({"change": "modified", "object": id.as_str(), "kind": kind, "property": path, "old": old, "new": new})
        }
        Change::Reordered { id, kind, path } => json!({"change": "reordered", "object": id.as_str(), "kind": kind, "property": path}),
    }
}

fn print_text(changes: &[Change], color: bool, out: &mut dyn Write) -> Result<()> {
    let paint = |s: String, f: fn(&str) -> String| if color { f(&s) } else { s };
    let mut current: Option<&str> = None;
    for c in changes {
        match c {
            Change::Added { id, kind, .. } => {
                writeln!(out, "{}", paint(format!("+ {id} [{kind}] added"), |s| s.green().to_string()))?;
                current = None;
            }
            Change::Removed { id, kind, .. } => {
                writeln!(out, "{}", paint(format!("- {id} [{kind}] removed"), |s| s.red().to_string()))?;
                current = None;
            }
            Change::Moved { id, kind, from, to } => {
                let name = |p: &Option<levelmerge_core::ObjectId>| p.as_ref().map_or("(top)".to_owned(), |p| p.to_string());
                writeln!(out, "{}", paint(format!("↷ {id} [{kind}] moved from {} to {}", name(from), name(to)), |s| s.cyan().to_string()))?;
                current = None;
            }
            Change::Modified { id, kind, path, old, new } => {
                if current != Some(id.as_str()) {
                    writeln!(out, "{}", paint(format!("~ {id} [{kind}]"), |s| s.yellow().to_string()))?;
                    current = Some(id.as_str());
                }
                let show = |v: &Option<String>| v.as_deref().map_or("(none)".to_owned(), |v| shorten(v, 70));
                let path = if path.is_empty() { "(value)" } else { path };
                writeln!(out, "    {path}: {} → {}", show(old), show(new))?;
            }
            Change::Reordered { id, kind, path } => {
                if current != Some(id.as_str()) {
                    writeln!(out, "{}", paint(format!("~ {id} [{kind}]"), |s| s.yellow().to_string()))?;
                    current = Some(id.as_str());
                }
                writeln!(out, "    {path}: children reordered")?;
            }
        }
    }
    Ok(())
}
