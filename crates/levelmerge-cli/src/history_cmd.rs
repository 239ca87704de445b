//! `levelmerge log` and `levelmerge blame`: the history of a level's objects and properties
//! through the git history of its file, read in-process from the repository's objects.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use levelmerge_core::codec::Engine;
use levelmerge_core::diff::{DiffReport, ObjectChanges};
use levelmerge_core::policy::glob_match;
use rustc_hash::FxHashSet;

use crate::config::Config;
use crate::exit;
use crate::format;
use crate::ui::{shorten, Ui};

#[derive(Debug, clap::Args)]
pub struct LogArgs {
    /// A level file in a git repository.
    pub file: PathBuf,
    /// Only this object: a glob over its hierarchy path or its id (`Level/Props/Door_12`, `*Door*`).
    #[arg(long, value_name = "PATH_OR_ID")]
    pub object: Option<String>,
    /// Only this property: a glob over its name (`m_LocalPosition*`, `x`).
    #[arg(long, value_name = "NAME")]
    pub property: Option<String>,
    /// Look at no more than N commits that changed the file.
    #[arg(long, value_name = "N")]
    pub max: Option<usize>,
}

#[derive(Debug, clap::Args)]
pub struct BlameArgs {
    /// A level file in a git repository.
    pub file: PathBuf,
}

/// One commit that changed the file, with the file before and after it.
struct Version {
    id: String,
    author: String,
    date: String,
    summary: String,
    before: Option<Vec<u8>>,
    after: Vec<u8>,
}

/// The commits reachable from HEAD that changed `path`, newest first. A merge commit counts when
/// the file differs from its first parent's but not only by what a parent already had.
fn versions(file: &Path, mut wanted: impl FnMut(&Version) -> bool) -> Result<()> {
    let dir = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let repo = gix::discover(dir).with_context(|| format!("{} is not in a git repository", file.display()))?;
    let workdir = repo.workdir().context("the repository has no working tree")?.canonicalize()?;
    let absolute = file.canonicalize().with_context(|| format!("cannot find {}", file.display()))?;
    let relative = absolute.strip_prefix(&workdir).with_context(|| format!("{} is outside the repository", file.display()))?;
    let components: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let blob_at = |commit: &gix::Commit<'_>| -> Result<Option<gix::ObjectId>> {
        let tree = commit.tree()?;
        Ok(tree.lookup_entry(components.iter().map(String::as_str))?.map(|e| e.object_id()))
    };
    let head = repo.head_commit().context("the repository has no commit yet")?;
    for info in head.ancestors().all()? {
        let info = info?;
        let commit = info.object()?;
        let Some(blob) = blob_at(&commit)? else { continue };
        let parents: Vec<Option<gix::ObjectId>> =
            info.parent_ids().map(|p| -> Result<_> { blob_at(&p.object()?.into_commit()) }).collect::<Result<_>>()?;
        if parents.contains(&Some(blob)) {
            continue;
        }
        let read = |id: gix::ObjectId| -> Result<Vec<u8>> { Ok(repo.find_object(id)?.detach().data) };
        let author = commit.author()?;
        let version = Version {
            id: info.id.to_hex_with_len(10).to_string(),
            author: author.name.to_string(),
            date: date(author.time()?.seconds),
            summary: commit.message()?.summary().to_string(),
            before: parents.first().copied().flatten().map(read).transpose()?,
            after: read(blob)?,
        };
        if !wanted(&version) {
            break;
        }
    }
    Ok(())
}

/// `YYYY-MM-DD` of a Unix time (UTC), by the civil-from-days algorithm.
fn date(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

fn engine_for(file: &Path, sample: &[u8]) -> Result<Box<dyn Engine>> {
    let config = Config::for_file(None, file)?;
    let format = format::detect(&[sample], Some(file));
    format::engine(format, &config).with_context(|| format!("{}: levelmerge cannot read {} files", file.display(), format.name()))
}

/// The changes a commit made, `None` when a version cannot be read as its format.
fn changes(engine: &dyn Engine, v: &Version) -> Option<DiffReport> {
    match &v.before {
        Some(before) if !before.is_empty() && !v.after.is_empty() => engine.diff(before, &v.after).ok(),
        _ => None,
    }
}

fn object_matches(o: &ObjectChanges, glob: &str) -> bool {
    glob_match(glob, &o.path.join("/")) || glob_match(glob, o.id.as_str())
}

pub fn log(args: &LogArgs, ui: &Ui) -> Result<u8> {
    let mut out = anstream::stdout().lock();
    let mut engine: Option<Box<dyn Engine>> = None;
    let (mut seen, mut shown) = (0, 0);
    let mut failure = None;
    versions(&args.file, |v| {
        seen += 1;
        let engine = match &engine {
            Some(e) => e,
            None => match engine_for(&args.file, &v.after) {
                Ok(e) => engine.insert(e),
                Err(e) => {
                    failure = Some(e);
                    return false;
                }
            },
        };
        let filtered = args.object.is_some() || args.property.is_some();
        let lines = match changes(engine.as_ref(), v) {
            Some(report) => report_lines(&report, args),
            // A narrowed log shows property changes only.
            None if filtered => Vec::new(),
            None if v.before.is_none() => vec!["  (file created)".to_owned()],
            None => vec!["  (a version could not be read: not compared)".to_owned()],
        };
        if !lines.is_empty() || !filtered {
            shown += 1;
            let _ = writeln!(out, "{} {} {}  {}", v.id, v.date, v.author, v.summary);
            for l in &lines {
                let _ = writeln!(out, "{l}");
            }
        }
        args.max.is_none_or(|max| seen < max)
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    if shown == 0 {
        ui.info(&format!("{}: no commit changed what was asked for ({seen} commit(s) changed the file)", args.file.display()));
    }
    Ok(exit::CLEAN)
}

/// Whether `glob` names `property` (`Transform.m_LocalPosition.x`) whole, from any member on
/// (`m_LocalPosition.x`), or by one member (`m_LocalPosition`, `x`).
fn property_matches(glob: &str, property: &str) -> bool {
    let starts = std::iter::once(0).chain(property.match_indices('.').map(|(i, _)| i + 1));
    starts.into_iter().any(|i| glob_match(glob, &property[i..])) || property.split('.').any(|member| glob_match(glob, member))
}

/// The lines one commit's changes print, filtered by `--object` and `--property`.
fn report_lines(report: &DiffReport, args: &LogArgs) -> Vec<String> {
    let mut lines = Vec::new();
    for o in &report.objects {
        if args.object.as_deref().is_some_and(|g| !object_matches(o, g)) {
            continue;
        }
        let title = crate::diff_view::object_text(&o.path, &o.kind);
        for e in &o.entries {
            let property = e.property();
            if let Some(glob) = args.property.as_deref() {
                if !property.as_deref().is_some_and(|p| property_matches(glob, p)) {
                    continue;
                }
            }
            let show = |v: &Option<String>| v.as_deref().map_or("(none)".to_owned(), |v| shorten(v, 50));
            let what = crate::diff_view::text::line(e, &show);
            lines.push(format!("  {title} › {what}"));
        }
    }
    lines
}

pub fn blame(args: &BlameArgs, ui: &Ui) -> Result<u8> {
    let current = std::fs::read(&args.file).with_context(|| format!("cannot read {}", args.file.display()))?;
    let engine = engine_for(&args.file, &current)?;
    let objects = engine.objects(&current).map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    if objects.is_empty() {
        bail!("{}: no objects to blame", args.file.display());
    }
    // Who last changed each object: the newest commit whose changes show it.
    let mut last: Vec<Option<String>> = vec![None; objects.len()];
    let index: rustc_hash::FxHashMap<&str, usize> = objects.iter().enumerate().map(|(i, o)| (o.id.as_str(), i)).collect();
    let mut open: FxHashSet<usize> = (0..objects.len()).collect();
    versions(&args.file, |v| {
        let label = format!("{} {} {}", v.id, v.date, v.author);
        match changes(engine.as_ref(), v) {
            Some(report) => {
                for o in &report.objects {
                    if let Some(&i) = index.get(o.id.as_str()) {
                        if open.remove(&i) {
                            last[i] = Some(label.clone());
                        }
                    }
                }
            }
            // The file was created here (or cannot be compared further back): everything
            // not changed since comes from this commit.
            None => {
                for i in open.drain() {
                    last[i] = Some(label.clone());
                }
            }
        }
        !open.is_empty()
    })?;
    let mut out = anstream::stdout().lock();
    let names: Vec<String> = objects.iter().map(|o| crate::diff_view::object_text(&o.path, &o.kind)).collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0).min(60);
    for (name, who) in names.iter().zip(&last) {
        writeln!(out, "{name:<width$}  {}", who.as_deref().unwrap_or("(not committed)"))?;
    }
    let _ = ui;
    Ok(exit::CLEAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_are_named_by_any_member() {
        let p = "Transform.m_LocalPosition.x";
        for glob in [p, "m_LocalPosition.x", "m_LocalPosition", "x", "m_Local*"] {
            assert!(property_matches(glob, p), "{glob}");
        }
        assert!(!property_matches("m_LocalRotation", p) && !property_matches("y", p));
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(951_782_400), "2000-02-29");
        assert_eq!(date(1_795_305_600), "2026-11-22");
    }
}
