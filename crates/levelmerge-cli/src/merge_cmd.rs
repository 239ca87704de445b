//! `levelmerge merge`: the git merge driver.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use levelmerge_core::codec::{ConflictReport, Engine, MergeOutcome};
use levelmerge_core::policy::Policy;
use levelmerge_core::text::{merge_lines, merge_lines_preferring, MarkerStyle};
use levelmerge_core::{MergeError, Options, Problem, Side, Sides};
use serde_json::json;

use crate::config::Config;
use crate::exit;
use crate::format::{self, Format};
use crate::ui::Ui;

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The common ancestor (git's %O).
    pub base: PathBuf,
    /// Our version (git's %A); replaced by the result unless -o is given.
    pub ours: PathBuf,
    /// Their version (git's %B).
    pub theirs: PathBuf,
    /// Write the result here instead of over OURS.
    #[arg(short = 'o', long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Settle every conflict from one side instead of leaving markers.
    #[arg(long, value_name = "SIDE")]
    pub prefer: Option<Prefer>,
    /// The file's path in the repository (git's %P), for messages and format detection.
    #[arg(long, value_name = "NAME")]
    pub path: Option<PathBuf>,
    /// Write the conflicts and automatic resolutions as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// When conflicts are left and this runs on a terminal, open the interactive resolver on
    /// the result (what `git mergetool --tool levelmerge` does).
    #[arg(long)]
    pub resolve: bool,
    /// Conflict marker length (git's %L).
    #[arg(short = 'l', long = "marker-size", value_name = "MARKER_SIZE", default_value_t = 7)]
    pub marker_size: usize,
    #[command(flatten)]
    pub input: crate::format::FormatArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Prefer {
    Ours,
    Theirs,
}

fn read(path: &Path, role: &str) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read {role} file {}", path.display()))
}

/// How the result was produced, for the report.
enum Mode {
    Trivial(&'static str),
    Structured,
    Lines {
        reason: String,
        /// The line merge wrote no markers but is held as a conflict: its result is not sound,
        /// or cannot be checked.
        held: bool,
    },
    /// Both sides changed a file of which `file` (an input's path) holds NUL bytes: not merged.
    Binary {
        file: PathBuf,
    },
}

/// The first input that is binary ([`format::is_binary`]), by path.
fn binary_input(texts: &Sides<Vec<u8>>, args: &MergeArgs) -> Option<PathBuf> {
    let inputs = [(&texts.base, &args.base), (&texts.ours, &args.ours), (&texts.theirs, &args.theirs)];
    inputs.into_iter().find(|(text, _)| format::is_binary(text)).map(|(_, path)| path.clone())
}

/// Why a line merge without markers is not trusted.
enum LineFlaw {
    /// Broken in a way the inputs were not (the problem, where one is found).
    Unsound(Option<String>),
    /// It cannot be read as a level to be checked.
    Unchecked(String),
}

impl LineFlaw {
    /// What the line merge is, said after "the line merge" (`either`: as the merge by objects).
    fn told(&self, either: bool) -> String {
        let either = if either { " either" } else { "" };
        match self {
            LineFlaw::Unsound(Some(p)) => format!("is not sound{either} ({p})"),
            LineFlaw::Unsound(None) => format!("is not trusted{either}"),
            LineFlaw::Unchecked(p) => format!("cannot be checked{either} ({p})"),
        }
    }
}

/// Why a line merge without markers of inputs the codec could not merge is not trusted, if it
/// is not: its result is broken in a way the inputs were not (a problem no input has, matched
/// by its key, which holds no line: lines move in a line merge; or more problems of one kind
/// than any input had), or it cannot be read as a level to be checked (a leftover conflict
/// marker an input already had: what it broke behind that is unseen, unless it is an input as
/// it was).
fn line_merge_flaw(engine: &dyn Engine, texts: &Sides<Vec<u8>>, merged: &[u8], error: &MergeError) -> Option<LineFlaw> {
    let inputs: Vec<Vec<Problem>> = [&texts.base, &texts.ours, &texts.theirs].iter().map(|t| engine.check(t)).collect();
    let after = engine.check(merged);
    let count = |problems: &[Problem], code: &str| problems.iter().filter(|p| p.code() == code).count();
    let known: std::collections::HashSet<String> = inputs.iter().flatten().map(Problem::key).collect();
    // A syntax problem's key holds its line: such problems are counted only.
    let unknown = |p: &Problem| !matches!(p, Problem::Syntax { .. }) && !known.contains(&p.key());
    let worse = after.iter().find(|p| unknown(p) || inputs.iter().all(|i| count(&after, p.code()) > count(i, p.code())));
    let unreadable = after
        .iter()
        .find(|p| matches!(p, Problem::Syntax { .. } | Problem::ConflictMarker { .. }))
        .filter(|_| [&texts.base, &texts.ours, &texts.theirs].iter().all(|t| t.as_slice() != merged));
    if worse.is_some() || matches!(error, MergeError::Incoherent { .. }) {
        Some(LineFlaw::Unsound(worse.or(after.first()).map(ToString::to_string)))
    } else {
        unreadable.map(|p| LineFlaw::Unchecked(p.to_string()))
    }
}

/// `why` a file was merged by lines, with how many overlapping changes the preferred side
/// settled there (as `git merge-file --ours`/`--theirs` does).
fn settled_by_preference(why: String, settled: usize, options: &Options) -> String {
    match options.policy.prefer.filter(|_| settled > 0) {
        Some(side) => format!("{why}; {settled} overlapping change(s) settled by lines from {side}, as preferred"),
        None => why,
    }
}

pub fn run(args: &MergeArgs, ui: &Ui) -> Result<u8> {
    let display = args.path.clone().unwrap_or_else(|| args.ours.clone());
    let texts = Sides::new(read(&args.base, "base")?, read(&args.ours, "ours")?, read(&args.theirs, "theirs")?);
    let out_path = args.output.clone().unwrap_or_else(|| args.ours.clone());
    if args.marker_size == 0 {
        anyhow::bail!("the conflict marker size must be at least 1");
    }
    let config = Config::for_file(args.input.config.as_deref(), &display)?;
    let style = MarkerStyle { size: args.marker_size, ..MarkerStyle::default() };
    let format = args.input.format.unwrap_or_else(|| format::detect(&[&texts.ours, &texts.theirs, &texts.base], Some(&display)));
    let policy =
        Policy { prefer: args.prefer.map(|p| if p == Prefer::Ours { Side::Ours } else { Side::Theirs }), rules: config.rules.clone() };
    let options = Options { policy, ..Options::default() };

    let (text, open, outcome, mode) = if texts.ours == texts.theirs || texts.base == texts.theirs {
        (texts.ours.clone(), 0, None, Mode::Trivial("theirs made no change"))
    } else if texts.base == texts.ours {
        (texts.theirs.clone(), 0, None, Mode::Trivial("ours made no change"))
    } else if let Some(file) = binary_input(&texts, args) {
        // No part of a binary file can be merged: as git does, ours is kept and the file is a
        // conflict, unless a side is preferred.
        match args.prefer {
            Some(Prefer::Ours) => {
                (texts.ours.clone(), 0, None, Mode::Trivial("a binary file both sides changed: ours taken, as preferred"))
            }
            Some(Prefer::Theirs) => {
                (texts.theirs.clone(), 0, None, Mode::Trivial("a binary file both sides changed: theirs taken, as preferred"))
            }
            None => (texts.ours.clone(), 1, None, Mode::Binary { file }),
        }
    } else {
        match format::engine(format, &config) {
            None => {
                let (m, settled) = merge_lines_preferring(&texts.base, &texts.ours, &texts.theirs, &style, options.policy.prefer);
                let reason = settled_by_preference(format!("no {} codec yet", format.name()), settled, &options);
                (m.text, m.conflicts, None, Mode::Lines { reason, held: false })
            }
            Some(engine) => match engine.merge(texts.as_ref().map(|_, t| t.as_slice()), &options, &style) {
                Ok(mut outcome) => (std::mem::take(&mut outcome.text), outcome.open_conflicts, Some(outcome), Mode::Structured),
                Err(e) => {
                    let (m, settled) = merge_lines_preferring(&texts.base, &texts.ours, &texts.theirs, &style, options.policy.prefer);
                    let reason = e.to_string();
                    match (m.conflicts == 0).then(|| line_merge_flaw(engine.as_ref(), &texts, &m.text, &e)).flatten() {
                        None => (
                            m.text,
                            m.conflicts,
                            None,
                            Mode::Lines { reason: settled_by_preference(reason, settled, &options), held: false },
                        ),
                        // Settled from the preferred side, the line merge would be broken: the
                        // changes both sides made are left marked, to settle where they are.
                        Some(flaw) if settled > 0 => {
                            let marked = merge_lines(&texts.base, &texts.ours, &texts.theirs, &style);
                            let side = options.policy.prefer.map_or("the preferred side", Side::name);
                            let reason = format!(
                                "{reason}; settled from {side}, the line merge {}: the overlapping changes are left marked",
                                flaw.told(false)
                            );
                            (marked.text, marked.conflicts, None, Mode::Lines { reason, held: false })
                        }
                        Some(flaw) => {
                            (m.text, 1, None, Mode::Lines { reason: format!("{reason}; the line merge {}", flaw.told(true)), held: true })
                        }
                    }
                }
            },
        }
    };

    let started = std::time::Instant::now();
    crate::atomic::write(&out_path, &text)?;
    if std::env::var_os("LEVELMERGE_TIMINGS").is_some() {
        let mut laps = outcome.as_ref().map_or(Vec::new(), |o| o.timings.clone());
        laps.push(("save", started.elapsed()));
        let shown: Vec<String> = laps.iter().map(|(n, d)| format!("{n} {:.1} ms", d.as_secs_f64() * 1e3)).collect();
        ui.info(&format!("{}: timings: {}", display.display(), shown.join(", ")));
    }
    if let Some(report_path) = &args.report {
        let report = report_json(&display, format, &mode, open, outcome.as_ref());
        let mut bytes = serde_json::to_vec_pretty(&report).expect("a report serializes");
        bytes.push(b'\n');
        crate::atomic::write(report_path, &bytes)?;
    }
    tell(ui, &display, format, &mode, open, outcome.as_ref());
    if open > 0 && args.resolve && crate::resolve_cmd::on_terminal() {
        return crate::resolve_cmd::run(&crate::resolve_cmd::ResolveArgs::interactive(out_path, args.input.clone()), ui);
    }
    Ok(if open > 0 { exit::CONFLICTS } else { exit::CLEAN })
}

/// A conflict's object as people name it, by its hierarchy path when the codec tells it
/// (`Door/Gear [GameObject]`, `(file)` for the object that stands for the file), else by its
/// id (`4371491365999748502 [GameObject]`).
pub fn conflict_object(c: &ConflictReport) -> String {
    match (&c.object_path, c.object_kind.is_empty()) {
        (Some(path), _) => crate::diff_view::object_text(path, &c.object_kind),
        (None, true) => c.object.clone(),
        (None, false) => format!("{} [{}]", c.object, c.object_kind),
    }
}

fn conflict_json(c: &ConflictReport) -> serde_json::Value {
    json!({
        "object": c.object,
        "path": c.object_path,
        "kind": c.object_kind,
        "property": c.path,
        "conflict": c.kind,
        "base": c.base,
        "ours": c.ours,
        "theirs": c.theirs,
    })
}

fn report_json(path: &Path, format: Format, mode: &Mode, open: usize, outcome: Option<&MergeOutcome>) -> serde_json::Value {
    let (mode_name, reason) = match mode {
        Mode::Trivial(why) => ("trivial", Some(why.to_string())),
        Mode::Structured => ("structured", None),
        Mode::Lines { reason, .. } => ("lines", Some(reason.clone())),
        Mode::Binary { file } => ("binary", Some(format!("{} is a binary file", file.display()))),
    };
    let conflicts: Vec<_> =
        outcome.map_or(Vec::new(), |o| o.conflicts.iter().filter(|c| c.resolved.is_none()).map(conflict_json).collect());
    let settled: Vec<_> = outcome.map_or(Vec::new(), |o| {
        o.conflicts
            .iter()
            .filter_map(|c| {
                let (side, why) = c.resolved.as_ref()?;
                let mut v = conflict_json(c);
                v["taken"] = json!(side.name());
                v["because"] = json!(why);
                Some(v)
            })
            .collect()
    });
    json!({
        "version": 1,
        "file": path.display().to_string(),
        "format": format.name(),
        "mode": mode_name,
        "reason": reason,
        "clean": open == 0,
        "open_conflicts": open,
        "conflicts": conflicts,
        "auto_resolved": settled,
        "notes": outcome.map_or(Vec::new(), |o| o.notes.clone()),
    })
}

fn tell(ui: &Ui, path: &Path, format: Format, mode: &Mode, open: usize, outcome: Option<&MergeOutcome>) {
    let name = path.display();
    match mode {
        Mode::Lines { reason, .. } => ui.warn(&format!("{name}: merged as lines, not as a {} level: {reason}", format.name())),
        Mode::Binary { file } => {
            ui.warn(&format!(
                "{name}: {} is a binary file (NUL bytes), changed on both sides: not merged, ours kept; a conflict to settle by hand (or --prefer a side)",
                file.display()
            ));
            return;
        }
        _ => {}
    }
    if let Some(o) = outcome {
        for c in o.conflicts.iter() {
            let show = |t: &Option<String>| t.as_deref().map_or("(deleted)".to_owned(), |t| ui.short(t));
            match &c.resolved {
                None => ui.conflict(&format!(
                    "{name}: {} {}{}: ours {} · theirs {}",
                    c.kind,
                    conflict_object(c),
                    if c.path.is_empty() { String::new() } else { format!(" › {}", c.path) },
                    show(&c.ours),
                    show(&c.theirs),
                )),
                Some((side, why)) => ui.info(&format!(
                    "{name}: settled {} {}{}: took {side} ({why})",
                    c.kind,
                    conflict_object(c),
                    if c.path.is_empty() { String::new() } else { format!(" › {}", c.path) },
                )),
            }
        }
        for n in &o.notes {
            ui.info(&format!("{name}: {n}"));
        }
    }
    if matches!(mode, Mode::Lines { held: true, .. }) {
        ui.warn(&format!("{name}: the line merge wrote no conflict markers, but is not trusted: left as a conflict, to check by hand"));
    } else if open > 0 {
        ui.warn(&format!("{name}: {open} conflict(s) left, marked in the file"));
    }
}
