//! `levelmerge check`: integrity of level files.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use serde_json::json;

use crate::config::Config;
use crate::exit;
use crate::format;
use crate::ui::Ui;

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print the problems as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub input: crate::format::FormatArgs,
}

pub fn run(args: &CheckArgs, ui: &Ui) -> Result<u8> {
    let mut out = anstream::stdout().lock();
    let mut worst = exit::CLEAN;
    let mut reports = Vec::new();
    for path in &args.files {
        let text = match std::fs::read(path) {
            Ok(t) => t,
            Err(e) => {
                ui.error(&format!("cannot read {}: {e}", path.display()));
                reports.push(json!({"file": path.display().to_string(), "readable": false, "error": e.to_string()}));
                worst = exit::FAILED;
                continue;
            }
        };
        let config = Config::for_file(args.input.config.as_deref(), path)?;
        let format = args.input.format.unwrap_or_else(|| format::detect(&[&text], Some(path)));
        let problems = match format::engine(format, &config) {
            Some(engine) => engine.check(&text),
            None => levelmerge_core::text::marker_lines(&text)
                .into_iter()
                .map(|line| levelmerge_core::Problem::ConflictMarker { line })
                .collect(),
        };
        if !problems.is_empty() && worst == exit::CLEAN {
            worst = exit::CONFLICTS;
        }
        if args.json {
            let list: Vec<_> = problems.iter().map(|p| json!({"problem": p.code(), "line": p.line(), "message": p.to_string()})).collect();
            reports.push(json!({"file": path.display().to_string(), "format": format.name(), "readable": true, "problems": list}));
        } else if problems.is_empty() {
            writeln!(out, "{}: ok ({})", path.display(), format.name())?;
        } else {
            for p in &problems {
                // `file:line:column: code: message`, as compilers print it (editors jump to it).
                match p {
                    levelmerge_core::Problem::Syntax { line, column, message } => {
                        writeln!(out, "{}:{line}:{column}: syntax: {message}", path.display())?
                    }
                    _ => match p.line() {
                        Some(line) => writeln!(out, "{}:{line}: {}: {}", path.display(), p.code(), without_line(&p.to_string()))?,
                        None => writeln!(out, "{}: {}: {p}", path.display(), p.code())?,
                    },
                }
            }
        }
    }
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&json!({"version": 1, "files": reports}))?)?;
    }
    Ok(worst)
}

/// A message without its leading `line N: `, for output that puts the line first.
fn without_line(message: &str) -> &str {
    match message.split_once(": ") {
        Some((head, rest)) if head.starts_with("line ") => rest,
        _ => message,
    }
}
