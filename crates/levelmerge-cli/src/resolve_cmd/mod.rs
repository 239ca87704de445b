//! `levelmerge resolve`: list and settle the conflicts a merge left in a file, read from its
//! conflict markers (levelmerge's, or git's own line merge's, diff3 style included). On a
//! terminal it opens an interactive resolver; `--take` settles them from scripts.

mod app;
mod terminal;
mod view;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use levelmerge_core::inspect::Located;
use levelmerge_core::policy::glob_match;
use levelmerge_core::regions::{conflict_regions, lines_in_view, settle, side_view, Region, Take};
use levelmerge_core::Side;
use rustc_hash::FxHashSet;
use serde_json::json;

use crate::config::Config;
use crate::exit;
use crate::format;
use crate::ui::{shorten, Ui};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TakeArg {
    Ours,
    Theirs,
    /// Base's lines (only markers written in the diff3 style have them).
    Base,
    /// Ours' lines, then theirs' (lists both sides added to).
    Both,
}

impl TakeArg {
    fn take(self) -> Take {
        match self {
            TakeArg::Ours => Take::Side(Side::Ours),
            TakeArg::Theirs => Take::Side(Side::Theirs),
            TakeArg::Base => Take::Side(Side::Base),
            TakeArg::Both => Take::Both,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct ResolveArgs {
    /// A file with conflict markers.
    pub file: PathBuf,
    /// Settle the conflicts by taking this side. Without it, the conflicts are listed.
    #[arg(long, value_enum)]
    pub take: Option<TakeArg>,
    /// Only conflicts in objects whose hierarchy path or id matches this glob
    /// (`Level/Props/*`, `*Door*`).
    #[arg(long, value_name = "GLOB")]
    pub object: Option<String>,
    /// Only conflicts on a property whose name matches this glob (`m_LocalPosition`, `x`).
    #[arg(long, value_name = "GLOB")]
    pub property: Option<String>,
    /// Write the result to FILE instead of over the input.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// List the conflicts as JSON.
    #[arg(long, conflicts_with = "take")]
    pub json: bool,
    /// The JSON report `levelmerge merge --report` wrote for this file: names each conflict's
    /// properties and kind (both-modified, delete/modify…) with their base/ours/theirs values.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// List the conflicts as text even on a terminal (where the interactive resolver opens).
    #[arg(long, conflicts_with_all = ["take", "json"])]
    pub list: bool,
    #[command(flatten)]
    pub input: crate::format::FormatArgs,
}

impl ResolveArgs {
    /// The interactive resolver on `file`, as `merge --resolve` opens it.
    pub fn interactive(file: PathBuf, input: crate::format::FormatArgs) -> ResolveArgs {
        ResolveArgs { file, take: None, object: None, property: None, output: None, json: false, list: false, report: None, input }
    }
}

/// Whether the user is at a terminal, where the interactive resolver can run.
pub fn on_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// One conflict region with what it is about.
struct Conflict {
    region: Region,
    /// The objects its lines fall in (ours' first, then theirs'), or the one before it.
    objects: Vec<Located>,
    properties: Vec<String>,
    /// What the merge's report says of conflicts in these objects.
    reported: Vec<Reported>,
}

/// A conflict as `levelmerge merge --report` describes it.
#[derive(Debug, Clone, serde::Deserialize)]
struct Reported {
    object: String,
    property: String,
    conflict: String,
    base: Option<String>,
    ours: Option<String>,
    theirs: Option<String>,
}

impl Reported {
    /// The conflict in one line, its object named as `objects` show it.
    fn text(&self, objects: &[Located]) -> String {
        let object = objects
            .iter()
            .find(|o| o.id.as_str() == self.object)
            .map_or_else(|| self.object.clone(), |o| objects_text(std::slice::from_ref(o)));
        let show = |v: &Option<String>| v.as_deref().map_or("(deleted)".to_owned(), |v| shorten(v, 30));
        let property = if self.property.is_empty() { String::new() } else { format!(" › {}", self.property) };
        format!(
            "{object}{property}: {}, base {} · ours {} · theirs {}",
            self.conflict,
            show(&self.base),
            show(&self.ours),
            show(&self.theirs)
        )
    }
}

/// The open conflicts of a merge report.
fn read_report(path: &std::path::Path) -> Result<Vec<Reported>> {
    #[derive(serde::Deserialize)]
    struct Report {
        version: u32,
        conflicts: Vec<Reported>,
    }
    let bytes = std::fs::read(path).with_context(|| format!("cannot read the merge report {}", path.display()))?;
    let report: Report = serde_json::from_slice(&bytes)
        .with_context(|| format!("{} is not a report written by levelmerge merge --report", path.display()))?;
    if report.version != 1 {
        bail!("{}: report version {} is not known to this levelmerge (it reads version 1)", path.display(), report.version);
    }
    Ok(report.conflicts)
}

pub fn run(args: &ResolveArgs, ui: &Ui) -> Result<u8> {
    let path = &args.file;
    let text = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let regions = conflict_regions(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let conflicts = describe(&text, regions, args, ui)?;
    let chosen: Vec<bool> = conflicts.iter().map(|c| selected(c, args)).collect();
    // A file without markers can still be one a merge left to settle by hand (a line merge
    // that came out broken): it is done only when it is sound.
    let unsound = if conflicts.is_empty() { problems_in(&text, args)?.0 } else { Vec::new() };
    if !unsound.is_empty() {
        ui.warn(&format!(
            "{}: no conflict markers, but the level is broken ({}): fix it by hand, or merge again",
            path.display(),
            problems_text(&unsound)
        ));
    }
    let clean_unless_unsound = if unsound.is_empty() { exit::CLEAN } else { exit::CONFLICTS };
    if conflicts.is_empty() && args.take.is_some() {
        ui.info(&format!("{}: no conflict markers: nothing to settle", path.display()));
        return Ok(clean_unless_unsound);
    }
    let Some(take) = args.take else {
        if !args.json && !args.list && !conflicts.is_empty() && on_terminal() {
            return interactive(&text, &conflicts, args, ui);
        }
        let mut out = anstream::stdout().lock();
        if args.json {
            print_json(&text, &conflicts, &chosen, &mut out)?;
        } else {
            print_list(&text, &conflicts, &chosen, &mut out)?;
        }
        return Ok(if conflicts.is_empty() { clean_unless_unsound } else { exit::CONFLICTS });
    };
    let settled = chosen.iter().filter(|&&c| c).count();
    if settled == 0 {
        bail!("{}: no conflict matches --object/--property ({} conflict(s) in the file)", path.display(), conflicts.len());
    }
    let choices: Vec<Option<Take>> = chosen.iter().map(|&c| c.then(|| take.take())).collect();
    let written = write_settled(&text, &conflicts, &choices, args)?;
    ui.info(&written.message);
    Ok(if written.left == 0 { exit::CLEAN } else { exit::CONFLICTS })
}

/// What writing the settled file did.
struct Written {
    left: usize,
    message: String,
}

/// Settles the regions given a choice and writes the file atomically. A fully settled file is
/// checked first: choosing sides region by region can break a level (ours' object referring to
/// one only theirs kept), and then nothing is written.
fn write_settled(text: &[u8], conflicts: &[Conflict], choices: &[Option<Take>], args: &ResolveArgs) -> Result<Written> {
    let path = &args.file;
    let regions: Vec<Region> = conflicts.iter().map(|c| c.region.clone()).collect();
    let result = settle(text, &regions, choices).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let settled = choices.iter().filter(|c| c.is_some()).count();
    let left = conflicts.len() - settled;
    let known_kept = if left > 0 {
        0
    } else {
        let (problems, kept) = problems_in(&result, args)?;
        if !problems.is_empty() {
            bail!("{}: settled this way the level would be broken ({}); nothing was written", path.display(), problems_text(&problems));
        }
        kept
    };
    let target = args.output.as_ref().unwrap_or(path);
    crate::atomic::write(target, &result)?;
    let message = if left == 0 && known_kept > 0 {
        format!(
            "{}: settled all {settled} conflict(s); {known_kept} problem(s) the merged versions already had are left as they were (levelmerge check lists them; git add the file to mark it resolved)",
            target.display()
        )
    } else if left == 0 {
        format!("{}: settled all {settled} conflict(s); the file is sound (git add it to mark it resolved)", target.display())
    } else {
        format!("{}: settled {settled} conflict(s), {left} left", target.display())
    };
    Ok(Written { left, message })
}

/// The interactive resolver, on a terminal.
fn interactive(text: &[u8], conflicts: &[Conflict], args: &ResolveArgs, ui: &Ui) -> Result<u8> {
    let items = conflicts
        .iter()
        .map(|c| {
            let side = |s| c.region.text(text, s).map(|t| String::from_utf8_lossy(t).into_owned());
            app::Item {
                line: c.region.line,
                object: objects_text(&c.objects),
                properties: c.properties.clone(),
                reported: c.reported.iter().map(|r| r.text(&c.objects)).collect(),
                ours: side(Side::Ours).unwrap_or_default(),
                base: side(Side::Base),
                theirs: side(Side::Theirs).unwrap_or_default(),
            }
        })
        .collect();
    let mut app = app::App::new(args.file.display().to_string(), items);
    let mut last = None;
    let ended = terminal::run(&mut app, |choices, _partial| {
        let written = write_settled(text, conflicts, choices, args)?;
        let message = written.message.clone();
        last = Some(written);
        Ok(message)
    })?;
    match (ended, last) {
        (terminal::Ended::Written, Some(written)) => {
            ui.info(&written.message);
            Ok(exit::CLEAN)
        }
        (_, Some(written)) => {
            ui.info(&written.message);
            Ok(exit::CONFLICTS)
        }
        (_, None) => {
            ui.info(&format!("{}: nothing written, {} conflict(s) left", args.file.display(), conflicts.len()));
            Ok(exit::CONFLICTS)
        }
    }
}

/// `found` added to `objects`, each object once.
fn add_new(objects: &mut Vec<Located>, found: impl IntoIterator<Item = Located>) {
    for o in found {
        if !objects.iter().any(|x| x.id == o.id) {
            objects.push(o);
        }
    }
}

/// Each region with the objects it falls in (read in the views of both sides), the property
/// names its lines set, and what the merge's report says of it.
fn describe(text: &[u8], regions: Vec<Region>, args: &ResolveArgs, ui: &Ui) -> Result<Vec<Conflict>> {
    let config = Config::for_file(args.input.config.as_deref(), &args.file)?;
    let reported = args.report.as_deref().map(read_report).transpose()?.unwrap_or_default();
    let ours_view = side_view(text, &regions, Side::Ours).map_err(|e| anyhow::anyhow!(e))?;
    let format = args.input.format.unwrap_or_else(|| format::detect(&[&ours_view], Some(&args.file)));
    let engine = format::engine(format, &config);
    // The objects each region's lines fall in, in one side's view: for each region, the
    // object of the line before it, and those of its lines there.
    let located_in = |side: Side, view: &[u8]| -> Vec<(Option<Located>, Vec<Located>)> {
        // A region's lines that hold something (a blank line ends the section before).
        let blank: Vec<bool> = view.split(|&b| b == b'\n').map(|l| l.trim_ascii().is_empty()).collect();
        let spans: Vec<(usize, Vec<usize>)> = lines_in_view(text, &regions, side)
            .into_iter()
            .zip(&regions)
            .map(|(line, region)| {
                let count = region.text(text, side).map_or(0, |t| t.iter().filter(|&&b| b == b'\n').count());
                (line, (line..line + count).filter(|l| !blank.get(l - 1).copied().unwrap_or(true)).collect())
            })
            .collect();
        let lines: Vec<usize> =
            spans.iter().flat_map(|(start, held)| std::iter::once(start.saturating_sub(1).max(1)).chain(held.iter().copied())).collect();
        let found = match &engine {
            Some(engine) => engine.locate(view, &lines).unwrap_or_else(|e| {
                // Theirs' view is read for what it adds; ours' names the objects.
                if side == Side::Ours {
                    ui.warn(&format!("{}: conflicts are shown without their objects: {e}", args.file.display()));
                }
                vec![None; lines.len()]
            }),
            None => vec![None; lines.len()],
        };
        let mut found = found.into_iter();
        spans
            .iter()
            .map(|(_, held)| {
                let before = found.next().flatten();
                let mut objects: Vec<Located> = Vec::new();
                add_new(&mut objects, found.by_ref().take(held.len()).flatten());
                (before, objects)
            })
            .collect()
    };
    let theirs_view = side_view(text, &regions, Side::Theirs).map_err(|e| anyhow::anyhow!(e))?;
    let (in_ours, in_theirs) = (located_in(Side::Ours, &ours_view), located_in(Side::Theirs, &theirs_view));
    Ok(regions
        .into_iter()
        .zip(in_ours.into_iter().zip(in_theirs))
        .map(|(region, ((before, ours_objects), (theirs_before, theirs_objects)))| {
            // A region only one side has lines in, that holds an object other than the one
            // before it (an object only that side has), is about that object, not about the
            // properties its lines set.
            let holds = |s: Side| region.text(text, s).is_some_and(|t| !t.trim_ascii().is_empty());
            let opens =
                |before: &Option<Located>, objects: &[Located]| objects.iter().any(|o| before.as_ref().is_none_or(|b| b.id != o.id));
            let whole_objects = match (holds(Side::Ours), holds(Side::Theirs)) {
                (true, false) => opens(&before, &ours_objects),
                (false, true) => opens(&theirs_before, &theirs_objects),
                _ => false,
            };
            let mut objects = ours_objects;
            add_new(&mut objects, theirs_objects);
            // A region whose sections hold no line belongs to the object before it.
            if objects.is_empty() {
                objects.extend(before);
            }
            let side = |s| String::from_utf8_lossy(region.text(text, s).unwrap_or_default()).into_owned();
            let (ours, theirs) = (side(Side::Ours), side(Side::Theirs));
            let reported: Vec<Reported> = reported.iter().filter(|r| objects.iter().any(|o| o.id.as_str() == r.object)).cloned().collect();
            // The report names the properties; else the member the region's lines are the value
            // of, a line holding a whole JSON object the members that differ, and other lines
            // the property they set.
            let mut properties: Vec<String> = Vec::new();
            for r in &reported {
                if !r.property.is_empty() && !properties.contains(&r.property) {
                    properties.push(r.property.clone());
                }
            }
            if properties.is_empty() && !whole_objects {
                let base = side(Side::Base);
                properties = match enclosing_member(&text[..region.whole.start], [&ours, &base, &theirs]) {
                    Some(member) => vec![member],
                    None => differing_members(&ours, &theirs),
                };
                if properties.is_empty() {
                    for line in ours.lines().chain(base.lines()).chain(theirs.lines()) {
                        if let Some(key) = property_key(line).filter(|k| !properties.iter().any(|p: &String| p == k)) {
                            properties.push(key.to_owned());
                        }
                    }
                }
            }
            Conflict { region, objects, properties, reported }
        })
        .collect())
}

/// The member a region's lines are the value of: the line before the region opens one (`key:`,
/// `"key": {`, `key = [`) and every line of every side is indented deeper (a struct's fields,
/// a list's items).
fn enclosing_member(before: &[u8], sides: [&str; 3]) -> Option<String> {
    let opener = String::from_utf8_lossy(before.strip_suffix(b"\n").unwrap_or(before).rsplit(|&b| b == b'\n').next()?);
    let opener = opener.trim_end_matches('\r');
    let key = property_key(opener)?;
    let opens = opener.ends_with(':') || opener.ends_with('{') || opener.ends_with('[');
    let indent = |line: &str| line.len() - line.trim_start().len();
    let inside = sides.iter().flat_map(|s| s.lines()).filter(|l| !l.trim().is_empty()).all(|l| indent(l) > indent(opener));
    (opens && inside).then(|| key.to_owned())
}

/// The property a line sets: `"key": …` (JSON), `key: …` (YAML, also as a list item), `key = …`
/// (Godot).
fn property_key(line: &str) -> Option<&str> {
    let t = line.trim_start().trim_start_matches("- ");
    if let Some(rest) = t.strip_prefix('"') {
        let (key, after) = rest.split_once('"')?;
        return after.trim_start().starts_with(':').then_some(key);
    }
    let end = t.find(": ").or_else(|| t.strip_suffix(':').map(str::len)).or_else(|| t.find(" = "))?;
    let key = &t[..end];
    (!key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || "_/.-".contains(c))).then_some(key)
}

/// `"key": value` members written inline (`{ "id": 3, "x": 14 }`), with their value text.
fn inline_members(text: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('"') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('"') else { break };
        let (key, tail) = (&after[..close], after[close + 1..].trim_start());
        match tail.strip_prefix(':') {
            Some(value) => {
                let value = value.trim_start();
                let end = match value.strip_prefix('"') {
                    Some(string) => string_end(string).map_or(value.len(), |e| e + 2),
                    None => value.find([',', '}', '\n']).unwrap_or(value.len()),
                };
                out.push((key, value[..end].trim_end()));
                rest = &value[end..];
            }
            None => rest = &after[close + 1..],
        }
    }
    out
}

/// Where a JSON string's closing quote is (escapes skipped).
fn string_end(s: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i),
            _ => {}
        }
    }
    None
}

/// The inline members whose values differ between the sides, when both hold some.
fn differing_members(ours: &str, theirs: &str) -> Vec<String> {
    let (a, b) = (inline_members(ours), inline_members(theirs));
    if a.len() < 2 || b.len() < 2 {
        return Vec::new();
    }
    let mut keys: Vec<String> = Vec::new();
    for (k, _) in a.iter().chain(&b) {
        let in_a = a.iter().find(|(key, _)| key == k).map(|(_, v)| v);
        let in_b = b.iter().find(|(key, _)| key == k).map(|(_, v)| v);
        if in_a != in_b && !keys.iter().any(|x| x == k) {
            keys.push((*k).to_owned());
        }
    }
    keys
}

fn selected(c: &Conflict, args: &ResolveArgs) -> bool {
    let object_ok = args
        .object
        .as_deref()
        .is_none_or(|glob| c.objects.iter().any(|o| glob_match(glob, &o.path.join("/")) || glob_match(glob, o.id.as_str())));
    let property_ok = args.property.as_deref().is_none_or(|glob| c.properties.iter().any(|p| glob_match(glob, p)));
    object_ok && property_ok
}

fn objects_text(objects: &[Located]) -> String {
    if objects.is_empty() {
        return "(unknown object)".to_owned();
    }
    let named: Vec<String> = objects.iter().map(|o| crate::diff_view::object_text(&o.path, &o.kind)).collect();
    named.join(", ")
}

fn side_text(text: &[u8], region: &Region, side: Side) -> Option<String> {
    region.text(text, side).map(|t| shorten(&String::from_utf8_lossy(t), 70))
}

fn print_list(text: &[u8], conflicts: &[Conflict], chosen: &[bool], out: &mut dyn Write) -> Result<()> {
    for (i, (c, &shown)) in conflicts.iter().zip(chosen).enumerate() {
        if !shown {
            continue;
        }
        let props = if c.properties.is_empty() { String::new() } else { format!(" › {}", c.properties.join(", ")) };
        writeln!(out, "#{} line {}: {}{props}", i + 1, c.region.line, objects_text(&c.objects))?;
        for r in &c.reported {
            writeln!(out, "    {}", r.text(&c.objects))?;
        }
        for side in [Side::Ours, Side::Base, Side::Theirs] {
            if let Some(t) = side_text(text, &c.region, side) {
                writeln!(out, "    {:<6} {}", side.name(), if t.is_empty() { "(nothing)".to_owned() } else { t })?;
            }
        }
    }
    if conflicts.is_empty() {
        writeln!(out, "no conflict markers: nothing to settle")?;
        return Ok(());
    }
    let shown = chosen.iter().filter(|&&c| c).count();
    writeln!(out, "{shown} of {} conflict(s) listed; settle them with --take ours|theirs|base|both", conflicts.len())?;
    Ok(())
}

fn object_json(o: &Located) -> serde_json::Value {
    json!({"id": o.id.as_str(), "kind": o.kind, "path": o.path})
}

fn print_json(text: &[u8], conflicts: &[Conflict], chosen: &[bool], out: &mut dyn Write) -> Result<()> {
    let list: Vec<_> = conflicts
        .iter()
        .zip(chosen)
        .filter(|(_, &c)| c)
        .map(|(c, _)| {
            let side = |s| c.region.text(text, s).map(|t| String::from_utf8_lossy(t).into_owned());
            json!({
                "line": c.region.line,
                "object": c.objects.first().map(object_json),
                "objects": c.objects.iter().map(object_json).collect::<Vec<_>>(),
                "reported": c.reported.iter().map(|r| json!({
                    "object": r.object, "property": r.property, "conflict": r.conflict,
                    "base": r.base, "ours": r.ours, "theirs": r.theirs,
                })).collect::<Vec<_>>(),
                "properties": c.properties,
                "ours": side(Side::Ours), "base": side(Side::Base), "theirs": side(Side::Theirs),
            })
        })
        .collect();
    writeln!(out, "{}", serde_json::to_string_pretty(&json!({"version": 1, "conflicts": list}))?)?;
    Ok(())
}

/// Problems in a line: how many, and the first three.
fn problems_text(problems: &[levelmerge_core::Problem]) -> String {
    let shown: Vec<String> = problems.iter().take(3).map(ToString::to_string).collect();
    let more = if problems.len() > 3 { format!("; and {} more", problems.len() - 3) } else { String::new() };
    format!("{} problem(s): {}{more}", problems.len(), shown.join("; "))
}

/// The problems a settled file would have, by the checks of its format, but those the versions
/// git merged have too where git stopped on the file (a duplicate both branches hold: no choice
/// of sides made it, and it is left as it was, as the merge leaves it); and how many of those
/// the file keeps.
fn problems_in(result: &[u8], args: &ResolveArgs) -> Result<(Vec<levelmerge_core::Problem>, usize)> {
    let config = Config::for_file(args.input.config.as_deref(), &args.file)?;
    let format = args.input.format.unwrap_or_else(|| format::detect(&[result], Some(&args.file)));
    let Some(engine) = format::engine(format, &config) else { return Ok((Vec::new(), 0)) };
    let mut found = engine.check(result);
    if found.is_empty() {
        return Ok((found, 0));
    }
    let known: FxHashSet<String> =
        crate::git::unmerged_versions(&args.file).iter().flat_map(|version| engine.check(version)).map(|p| p.key()).collect();
    let all = found.len();
    found.retain(|p| !known.contains(&p.key()));
    let kept = all - found.len();
    Ok((found, kept))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn property_names_are_read_in_each_format() {
        assert_eq!(property_key("    \"x\": 14,"), Some("x"));
        assert_eq!(property_key("  m_LocalPosition: {x: 1, y: 2, z: 0}"), Some("m_LocalPosition"));
        assert_eq!(property_key("  - target: {fileID: 1}"), Some("target"));
        assert_eq!(property_key("  m_Children:"), Some("m_Children"));
        assert_eq!(property_key("position = Vector2( 1, 2 )"), Some("position"));
        assert_eq!(property_key("    { \"id\": 3, \"x\": 14 }"), None);
        assert_eq!(property_key("[node name=\"A\" parent=\".\"]"), None);
    }

    #[test]
    fn a_region_inside_a_member_is_named_by_that_member() {
        let before = b"  speed: 1\n  Mana:\n";
        assert_eq!(enclosing_member(before, ["    InternalValue: 10\n", "", "    m_InternalValue: 0\n"]).as_deref(), Some("Mana"));
        let json = b"{\n  \"items\": [\r\n";
        assert_eq!(enclosing_member(json, ["    3,\n", "", "    4,\n"]).as_deref(), Some("items"));
        // A line that holds its own value, or a region not all inside, names nothing.
        assert_eq!(enclosing_member(b"  speed: 1\n", ["  speed: 2\n", "", "  speed: 3\n"]), None);
        assert_eq!(enclosing_member(b"  Mana:\n", ["    a: 1\n", "", "  b: 2\n"]), None);
    }

    #[test]
    fn inline_objects_name_the_members_that_differ() {
        let ours = "    { \"id\": 3, \"name\": \"Guard, old\", \"x\": 14 }\n";
        let theirs = "    { \"id\": 3, \"name\": \"Guard, old\", \"x\": 16, \"y\": 1 }\n";
        assert_eq!(differing_members(ours, theirs), ["x", "y"]);
        assert!(differing_members("  \"x\": 1,\n", "  \"x\": 2,\n").is_empty(), "one member is a property line");
    }
}
