//! `levelmerge diff`: what changed between two versions of a level, object by object.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use owo_colors::OwoColorize;

use crate::config::Config;
use crate::diff_view;
use crate::exit;
use crate::format::{self, Format};
use crate::ui::Ui;

#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    pub old: PathBuf,
    pub new: PathBuf,
    /// Print the changes as JSON (schema: docs/diff-json.md).
    #[arg(long, group = "view")]
    pub json: bool,
    /// Write a self-contained HTML report (hierarchy, property tables, filter).
    #[arg(long, group = "view")]
    pub html: bool,
    /// Print only how many objects of each type were added, removed and changed.
    #[arg(long, group = "view")]
    pub stat: bool,
    /// Write to FILE instead of standard output (atomically).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub input: crate::format::FormatArgs,
}

/// How a diff is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum View {
    Text,
    Stat,
    Json,
    Html,
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
    let view = match (args.json, args.html, args.stat) {
        (true, _, _) => View::Json,
        (_, true, _) => View::Html,
        (_, _, true) => View::Stat,
        _ => View::Text,
    };
    let names = (args.old.display().to_string(), args.new.display().to_string());
    let input = Input { old: &old, new: &new, path: &args.new, names, format: args.input.format, config: args.input.config.as_deref() };
    let differ = match &args.output {
        Some(file) => {
            let mut bytes = Vec::new();
            let differ = show(&input, view, false, ui, &mut bytes)?;
            crate::atomic::write(file, &bytes)?;
            differ
        }
        None => {
            let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            show(&input, view, color, ui, &mut anstream::stdout().lock())?
        }
    };
    Ok(if differ { exit::CONFLICTS } else { exit::CLEAN })
}

pub fn run_git(args: &GitDiffArgs, ui: &Ui) -> Result<u8> {
    let path = &args.args[0];
    let (old, new) = (read(&args.args[1])?, read(&args.args[4])?);
    let mut out = anstream::stdout().lock();
    let color = ui.color && std::io::stdout().is_terminal();
    let header = format!("levelmerge diff a/{0} b/{0}", path.display());
    writeln!(out, "{}", if color { header.bold().to_string() } else { header })?;
    let names = (format!("a/{}", path.display()), format!("b/{}", path.display()));
    let input = Input { old: &old, new: &new, path, names, format: None, config: None };
    show(&input, View::Text, color, ui, &mut out)?;
    // git treats a failing external diff as fatal; differences are not failures here.
    Ok(exit::CLEAN)
}

/// Two versions of one file to compare.
struct Input<'i> {
    old: &'i [u8],
    new: &'i [u8],
    /// The file's path, for its format and configuration.
    path: &'i Path,
    /// How the two versions are named in a report.
    names: (String, String),
    format: Option<Format>,
    config: Option<&'i Path>,
}

/// Print the diff; whether the files differ.
fn show(input: &Input<'_>, view: View, color: bool, ui: &Ui, out: &mut dyn Write) -> Result<bool> {
    let config = Config::for_file(input.config, input.path)?;
    let (old, new) = (input.old, input.new);
    let format = input.format.unwrap_or_else(|| format::detect(&[new, old], Some(input.path)));
    let binary = format::is_binary(old) || format::is_binary(new);
    let report = match format::engine(format, &config) {
        Some(engine) if !old.is_empty() && !new.is_empty() && !binary => match engine.diff(old, new) {
            Ok(report) => Some(report),
            Err(e) => {
                ui.warn(&format!("{}: showing a line diff: {e}", input.path.display()));
                None
            }
        },
        _ => None,
    };
    let differ = old != new;
    let Some(report) = report else {
        // A binary file's bytes printed as lines are noise: said to differ, as diff(1) says.
        let unified = if !binary {
            let (old_s, new_s) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
            let lines = similar::TextDiff::from_lines(old_s.as_ref(), new_s.as_ref());
            lines.unified_diff().context_radius(3).header(&input.names.0, &input.names.1).to_string()
        } else if differ {
            format!("Binary files {} and {} differ\n", input.names.0, input.names.1)
        } else {
            String::new()
        };
        match view {
            View::Json => writeln!(out, "{}", serde_json::to_string_pretty(&diff_view::json::lines(format.name(), &unified))?)?,
            View::Html => {
                write!(out, "{}", diff_view::html::page(&diff_view::json::lines(format.name(), &unified), &input.names.0, &input.names.1))?
            }
            View::Text | View::Stat => write!(out, "{unified}")?,
        }
        return Ok(differ);
    };
    match view {
        View::Json => writeln!(out, "{}", serde_json::to_string_pretty(&diff_view::json::semantic(&report, format.name()))?)?,
        View::Html => {
            write!(out, "{}", diff_view::html::page(&diff_view::json::semantic(&report, format.name()), &input.names.0, &input.names.1))?
        }
        View::Stat => diff_view::text::write_stat(&report, out)?,
        View::Text => {
            diff_view::text::write(&report, color, out)?;
            // Files can differ in layout only: that is still a difference, said so.
            if report.is_empty() && differ {
                writeln!(out, "(layout only: no change to objects or properties)")?;
            }
        }
    }
    Ok(differ)
}
