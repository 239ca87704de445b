//! The terminal rendering: changes grouped by object, shown by hierarchy path and type.

use std::io::Write;

use levelmerge_core::diff::{DiffReport, Edit, Status};
use owo_colors::OwoColorize;

use super::{object_text, parts_listed, path_text};
use crate::ui::shorten;

/// Widest value shown on one line; longer ones are cut with `…`.
const VALUE_WIDTH: usize = 70;

pub fn write(report: &DiffReport, color: bool, out: &mut dyn Write) -> std::io::Result<()> {
    let paint = |s: String, f: fn(&str) -> String| if color { f(&s) } else { s };
    let show = |v: &Option<String>| v.as_deref().map_or("(none)".to_owned(), |v| shorten(v, VALUE_WIDTH));
    for object in &report.objects {
        let title = object_text(&object.path, &object.kind);
        match object.status {
            Status::Added | Status::Removed => {
                let (sign, word, f): (&str, &str, fn(&str) -> String) = match object.status {
                    Status::Added => ("+", "added", |s| s.green().to_string()),
                    _ => ("-", "removed", |s| s.red().to_string()),
                };
                let parts = parts_listed(object);
                let with = if parts.is_empty() { String::new() } else { format!(" with {}", parts.join(", ")) };
                writeln!(out, "{}", paint(format!("{sign} {title} {word}{with}"), f))?;
                // What else happened at a new or gone object (a move of it, say) follows.
                for entry in object.entries.iter().filter(|e| !matches!(e.edit, Edit::Added | Edit::Removed)) {
                    writeln!(out, "    {}", line(entry, &show))?;
                }
            }
            Status::Changed => {
                writeln!(out, "{}", paint(format!("~ {title}"), |s| s.yellow().to_string()))?;
                for entry in &object.entries {
                    let text = line(entry, &show);
                    let text = match entry.edit {
                        Edit::Added => paint(text, |s| s.green().to_string()),
                        Edit::Removed => paint(text, |s| s.red().to_string()),
                        _ => text,
                    };
                    writeln!(out, "    {text}")?;
                }
            }
        }
    }
    Ok(())
}

/// One change as a line: `BoxCollider.m_Size: a → b`, `+ Light added`.
pub fn line(entry: &levelmerge_core::diff::Entry, show: &dyn Fn(&Option<String>) -> String) -> String {
    match &entry.edit {
        Edit::Added => format!("+ {} added", entry.kind),
        Edit::Removed => format!("- {} removed", entry.kind),
        Edit::Moved { from, to } => {
            let what = if entry.part { format!("{} moved", entry.kind) } else { "moved".to_owned() };
            format!("↷ {what} from {} to {}", path_text(from), path_text(to))
        }
        Edit::Modified { old, new, targets: [from, to], .. } => {
            let property = entry.property().unwrap_or_default();
            let property = if property.is_empty() { "(value)".to_owned() } else { property };
            // A reference is followed by the path of the object it names.
            let named = |v: &Option<String>, t: &Option<Vec<String>>| match t {
                Some(path) => format!("{} ({})", show(v), path_text(path)),
                None => show(v),
            };
            format!("{property}: {} → {}", named(old, from), named(new, to))
        }
        Edit::Reordered { .. } => format!("{}: children reordered", entry.property().unwrap_or_default()),
    }
}

/// `--stat`: objects added, removed and changed per type.
pub fn write_stat(report: &DiffReport, out: &mut dyn Write) -> std::io::Result<()> {
    let counts = report.stat();
    let width = counts.iter().map(|c| c.kind.chars().count()).max().unwrap_or(0).max(4);
    for c in &counts {
        writeln!(out, "{:<width$}  {:>6} added  {:>6} removed  {:>6} changed", c.kind, c.added, c.removed, c.changed)?;
    }
    let total = |f: fn(&levelmerge_core::diff::KindCount) -> usize| counts.iter().map(f).sum::<usize>();
    writeln!(
        out,
        "{} object(s) shown: {} added, {} removed, {} changed",
        report.objects.len(),
        total(|c| c.added),
        total(|c| c.removed),
        total(|c| c.changed)
    )
}
