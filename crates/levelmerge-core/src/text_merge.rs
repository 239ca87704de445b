//! The merge of three texts through a codec: ids aligned first, parts spliced where they
//! can be, else the whole versions read, merged as levels, written back and checked; conflicts
//! marked where both sides' writings differ and named as people see their objects.

use crate::codec::{on_each_side, parse, read, Codec, ConflictReport, MergeError, MergeOutcome, Renumbered, PARALLEL_FROM};
use crate::coherence::Problem;
use crate::conflict::Reason;
use crate::merge::{merge, Options};
use crate::model::{Level, ObjectId};
use crate::side::{Side, Sides};
use crate::splice::{mark_parts, marked_splice, merge_part_alone, splice_parts, SplicedOutcome};
use crate::text::{mark_difference_whole, marker_lines, MarkerStyle};
use rustc_hash::{FxHashMap, FxHashSet};

/// Problems in `result` that none of `known` (keys of the inputs' problems) has.
fn new_problems(result: Vec<Problem>, known: impl FnOnce() -> Vec<String>) -> Vec<Problem> {
    if result.is_empty() {
        return result;
    }
    let known: FxHashSet<String> = known().into_iter().collect();
    result.into_iter().filter(|p| !known.contains(&p.key())).collect()
}

/// An input that cannot be read, told as the file itself reads where aligning ids rewrote it
/// ([`Codec::renumber`]): the ids and lines the rewritten text names are not the file's. Where
/// that side's file reads well alone, the aligning carried another version's flaw into it (ids
/// made to agree with a version that uses one id twice): the version given that does not read
/// is told. The error stands as it was when every file reads alone.
fn told_by_the_file<C: Codec>(codec: &C, error: MergeError, texts: Sides<&[u8]>, originals: Sides<&[u8]>) -> MergeError {
    let (MergeError::Unreadable { side, .. } | MergeError::Invalid { side, .. }) = &error else { return error };
    let side = *side;
    if *originals.get(side) == *texts.get(side) {
        return error;
    }
    let own_error = |side: Side| match parse(codec, side, originals.get(side), &[]) {
        Err(own) => Some(own),
        Ok(doc) => read(codec, side, &doc, &[]).err(),
    };
    own_error(side)
        .or_else(|| [Side::Base, Side::Ours, Side::Theirs].into_iter().filter(|&s| s != side).find_map(own_error))
        .unwrap_or(error)
}

/// Conflicts whose values are shown as the file writes them ([`Codec::value_as_written`]),
/// where the merge read the texts in a form of the codec's own (`restores`).
fn values_as_written<C: Codec>(codec: &C, conflicts: Vec<ConflictReport>, restores: bool) -> Vec<ConflictReport> {
    if !restores {
        return conflicts;
    }
    let written = |v: Option<String>| v.map(|v| codec.value_as_written(v));
    conflicts.into_iter().map(|c| ConflictReport { base: written(c.base), ours: written(c.ours), theirs: written(c.theirs), ..c }).collect()
}

fn report(merged: &crate::merge::MergedLevel<'_>, path_of: impl Fn(&ObjectId) -> Option<Vec<String>>) -> Vec<ConflictReport> {
    merged
        .conflicts
        .iter()
        .map(|c| ConflictReport {
            object: c.object.to_string(),
            object_kind: c.object_kind.clone(),
            object_path: path_of(&c.object),
            path: c.path.to_string(),
            kind: c.kind.name(),
            base: c.text(Side::Base),
            ours: c.text(Side::Ours),
            theirs: c.text(Side::Theirs),
            resolved: c.resolution.as_ref().map(|r| {
                let why = match &r.reason {
                    Reason::Preference => "preferred side".to_owned(),
                    Reason::Rule(p) => format!("rule {p}"),
                    Reason::Volatile(p) => format!("volatile property ({p})"),
                };
                (r.side, why)
            }),
        })
        .collect()
}

/// Read a merged text back and refuse it if it breaks a rule none of the inputs broke (the
/// inputs are read again in full: for merging, parts identical everywhere were read opaquely).
/// `inputs` are the versions merged; `originals` the versions as given, before ids were made
/// to agree: a problem only the aligned versions have was made by the aligning (a rename
/// followed onto a name the other side gave a new node), and is new.
pub(crate) fn verify_output<C: Codec>(
    codec: &C,
    text: &[u8],
    inputs: Sides<&[u8]>,
    originals: Sides<&[u8]>,
) -> Result<Vec<Problem>, MergeError> {
    // Parts identical in the output and every input cannot hold a new problem.
    let doc =
        codec.parse_among(text, &[inputs.base, inputs.ours, inputs.theirs]).map_err(|p| MergeError::Incoherent { problems: vec![p] })?;
    let level = codec.lower(&doc, Side::Ours, &[]).map_err(|problems| MergeError::Incoherent { problems })?;
    let mut found = level.problems();
    found.extend(codec.merged_level_problems(&doc, &level, inputs));
    let new = new_problems(found.clone(), || problems_of(codec, originals));
    if new.is_empty() {
        Ok(found)
    } else {
        Err(MergeError::Incoherent { problems: new })
    }
}

/// The problems the versions of a merge have, by key.
fn problems_of<C: Codec>(codec: &C, versions: Sides<&[u8]>) -> Vec<String> {
    let mut known = Vec::new();
    for input in [versions.base, versions.ours, versions.theirs] {
        let Ok(doc) = codec.parse(input) else { continue };
        let Ok(level) = codec.lower(&doc, Side::Base, &[]) else { continue };
        known.extend(level.problems().iter().chain(codec.level_problems(&doc, &level).iter()).map(Problem::key));
    }
    known
}

/// Runs `attempt` on the merged level; while it finds the level broken, a deletion a policy
/// settled is settled the other way, keeping the object, and `attempt` runs again. The
/// deletions of the objects the problems name as missing go first; when none of them was
/// settled by a policy, every settled deletion is (the missing object may lie inside a deleted
/// subtree).
fn keep_deleted_while_broken<'a, T>(
    merged: &mut crate::merge::MergedLevel<'a>,
    mut attempt: impl FnMut(&crate::merge::MergedLevel<'a>) -> Result<T, MergeError>,
) -> Result<T, MergeError> {
    loop {
        match attempt(merged) {
            Err(MergeError::Incoherent { problems }) => {
                let missing: FxHashSet<&ObjectId> = problems
                    .iter()
                    .filter_map(|p| match p {
                        Problem::DanglingReference { target, .. } => Some(target),
                        Problem::Orphan { parent, .. } => Some(parent),
                        _ => None,
                    })
                    .collect();
                if !keep_deleted_objects(merged, |id| missing.contains(id)) && !keep_deleted_objects(merged, |_| true) {
                    return Err(MergeError::Incoherent { problems });
                }
            }
            other => return other,
        }
    }
}

/// Settled delete/modify conflicts that deleted an object `wanted` names are settled the other
/// way, keeping it; returns whether any was changed.
fn keep_deleted_objects(merged: &mut crate::merge::MergedLevel<'_>, wanted: impl Fn(&ObjectId) -> bool) -> bool {
    let mut changed = false;
    for c in merged.conflicts.iter_mut() {
        let crate::conflict::ConflictKind::DeleteModify { deleted_by } = c.kind else { continue };
        let Some(resolution) = c.resolution.as_mut() else { continue };
        if resolution.side == deleted_by && c.path.0.is_empty() && wanted(&c.object) {
            resolution.side = deleted_by.other();
            merged.notes.push(crate::resolve::Note {
                object: c.object.clone(),
                message: format!("kept: {deleted_by} deleted it, but the merged level still refers to it"),
            });
            changed = true;
        }
    }
    changed
}

/// Phase timings (measuring time is not I/O; printing them is the caller's business).
pub(crate) struct Clock {
    pub(crate) at: std::time::Instant,
    pub(crate) laps: Vec<(&'static str, std::time::Duration)>,
}

impl Default for Clock {
    fn default() -> Self {
        Clock { at: std::time::Instant::now(), laps: Vec::new() }
    }
}

impl Clock {
    fn lap(&mut self, name: &'static str) {
        let now = std::time::Instant::now();
        self.laps.push((name, now - self.at));
        self.at = now;
    }
}

/// Merge three texts of one format. Never returns a level with problems its inputs lacked.
pub fn merge_texts<C>(codec: &C, texts: Sides<&[u8]>, options: &Options, style: &MarkerStyle) -> Result<MergeOutcome, MergeError>
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    merge_with(codec, texts, options, style, true)
}

/// [`merge_texts`] reading every object even where parts changed by one side could be spliced
/// ([`merge_disjoint_parts`](crate::merge_disjoint_parts)): the two agree, and tests compare them.
pub fn merge_objects<C>(codec: &C, texts: Sides<&[u8]>, options: &Options, style: &MarkerStyle) -> Result<MergeOutcome, MergeError>
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    merge_with(codec, texts, options, style, false)
}

fn merge_with<C>(codec: &C, texts: Sides<&[u8]>, options: &Options, style: &MarkerStyle, splice: bool) -> Result<MergeOutcome, MergeError>
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    // A byte order mark is no content: the versions merge without it.
    if let Some(bom) = crate::text::merged_bom([texts.base, texts.ours, texts.theirs]) {
        let bare = texts.map(|_, t| crate::text::without_bom(t));
        let mut outcome = merge_with(codec, bare, options, style, splice)?;
        if bom {
            outcome.text.splice(0..0, crate::text::BOM.iter().copied());
        }
        return Ok(outcome);
    }
    if let Some((side, problem)) = codec.form_apart(texts) {
        return Err(MergeError::Invalid { side, problems: vec![problem] });
    }
    let mut outcome = merge_unmarked(codec, texts, options, style, splice)?;
    if let Some((side, problem)) = codec.dropped_text(&outcome.text, texts) {
        return Err(MergeError::Invalid { side, problems: vec![problem] });
    }
    if outcome.open_conflicts == 0 {
        crate::text::settle_final_line_end(&mut outcome.text, [texts.base, texts.ours, texts.theirs]);
        // A clean result never holds more lines that read as conflict markers than a version
        // did (a member renamed to `<<<<<<<`, written with ours' spacing, would).
        let found = marker_lines(&outcome.text);
        let most_in_a_version = || [texts.base, texts.ours, texts.theirs].iter().map(|t| marker_lines(t).len()).max().unwrap_or(0);
        if !found.is_empty() && found.len() > most_in_a_version() {
            return Err(MergeError::Incoherent { problems: vec![Problem::ConflictMarker { line: found[0] }] });
        }
    }
    Ok(outcome)
}

/// [`merge_with`] of texts without byte order marks, before the final line end is settled.
fn merge_unmarked<C>(
    codec: &C,
    texts: Sides<&[u8]>,
    options: &Options,
    style: &MarkerStyle,
    splice: bool,
) -> Result<MergeOutcome, MergeError>
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    let mut clock = Clock::default();
    // A side that only rewrote line ends changed no content; the result keeps its line ends.
    let aligned = crate::text::align_line_ends([texts.base, texts.ours, texts.theirs]);
    let texts = match &aligned {
        Some([b, o, t]) => Sides::new(&b[..], &o[..], &t[..]),
        None => texts,
    };
    // Ids a side renumbered are made to agree first: a part spliced from one side must mean
    // there what it meant on that side (a resource id another side gave to something else).
    let renumbered = codec.renumber(texts);
    clock.lap("align ids");
    // Most merges change different objects on each side: their parts are spliced, and the
    // result read back and checked like any other, in the form the parts were spliced in and
    // before a form of the codec's own is turned back (or by turning it back, where that
    // checks all a splice can break).
    let restores = renumbered.as_ref().is_some_and(|r| r.restore);
    let aligned = renumbered.as_ref().map_or(texts, |r| r.applied_to(texts));
    let whole = crate::codec::WholeTexts::new(aligned);
    let merge_part = |part: Sides<&[u8]>| merge_part_alone(codec, part, &whole, options);
    let spliced = splice.then(|| splice_parts(codec, aligned, &merge_part)).flatten().and_then(|spliced| {
        if !spliced.open_parts.is_empty() {
            return if restores {
                None
            } else {
                marked_splice(codec, spliced, Versions { inputs: aligned, originals: texts, own_form: false }, style)
            };
        }
        let text = codec.spliced(spliced.text, aligned);
        let conflicts = spliced.settled;
        if restores && codec.restore_checks_splices() {
            return Some(SplicedOutcome { text: codec.restore(text).ok()?, conflicts, ..SplicedOutcome::default() });
        }
        let problems = verify_output(codec, &text, aligned, texts).ok()?;
        let text = if restores { codec.restore(text).ok()? } else { text };
        Some(SplicedOutcome { text, problems, conflicts, ..SplicedOutcome::default() })
    });
    if let Some(spliced) = spliced {
        clock.lap("splice parts and verify");
        // A part read alone lacks the rest, which may hold what names its objects.
        let conflicts = values_as_written(codec, named_in_whole(codec, aligned, spliced.conflicts, |_| false), restores);
        return Ok(MergeOutcome {
            text: spliced.text,
            open_conflicts: spliced.open_conflicts,
            marked_regions: spliced.marked_regions,
            conflicts,
            notes: renumbered.map(|r| r.notes).unwrap_or_default(),
            timings: clock.laps,
            problems: spliced.problems,
            spliced: true,
        });
    }
    merge_structured(codec, texts, renumbered, options, style, clock)
}

/// Conflicts but those `named` already named from the whole versions, where the codec names
/// them so ([`Codec::object_paths`]): ours', then theirs' or base's for an object ours does
/// not have (each version read only while some conflict is left unnamed).
fn named_in_whole<C: Codec>(
    codec: &C,
    texts: Sides<&[u8]>,
    mut conflicts: Vec<ConflictReport>,
    named: impl Fn(&ConflictReport) -> bool,
) -> Vec<ConflictReport> {
    let mut unnamed: Vec<usize> = (0..conflicts.len()).filter(|&i| !named(&conflicts[i])).collect();
    for text in [texts.ours, texts.theirs, texts.base] {
        if unnamed.is_empty() {
            break;
        }
        let ids: Vec<&str> = unnamed.iter().map(|&i| conflicts[i].object.as_str()).collect();
        let Some(paths) = codec.object_paths(text, &ids) else { break };
        let mut found = paths.into_iter();
        unnamed.retain(|&i| match found.next().flatten() {
            Some(path) => {
                conflicts[i].object_path = Some(path);
                false
            }
            None => true,
        });
    }
    conflicts
}

/// Conflict markers where ours' and theirs' sides of a merge's conflicts write it differently.
pub(crate) fn mark_views<C: Codec>(codec: &C, ours: &[u8], theirs: &[u8], style: &MarkerStyle) -> crate::text::MarkedText {
    if codec.conflicts_in_one_region(ours, theirs) {
        mark_difference_whole(ours, theirs, style)
    } else {
        mark_parts(codec, ours, theirs, style)
    }
}

/// The texts of a merge: as merged (ids made to agree), and as given.
#[derive(Clone, Copy)]
pub(crate) struct Versions<'t> {
    pub(crate) inputs: Sides<&'t [u8]>,
    pub(crate) originals: Sides<&'t [u8]>,
    /// Whether both are the form of the codec's own that the merge was made in, and the
    /// merged text is checked in that form, before it is turned back
    /// ([`Codec::checked_in_own_form`]).
    pub(crate) own_form: bool,
}

/// The merged level written as ours has it, and, when nothing is left open, checked: read back
/// in the file's own form where the codec says so, else on the model. A deletion a policy
/// settled is undone while the result is broken ([`keep_deleted_while_broken`]).
fn write_checked<'a, C: Codec>(
    codec: &C,
    merged: &mut crate::merge::MergedLevel<'a>,
    docs: Sides<&C::Document<'_>>,
    levels: &Sides<Level<'a>>,
    versions: Versions<'_>,
    finish: &impl Fn(Vec<u8>) -> Result<Vec<u8>, MergeError>,
    clock: &mut Clock,
) -> Result<(Vec<u8>, Vec<Problem>), MergeError> {
    let Versions { inputs, originals, own_form } = versions;
    if merged.open_conflicts() > 0 {
        return Ok((finish(codec.render(docs, &merged.resolve(Side::Ours)))?, Vec::new()));
    }
    if codec.checks_output(docs) {
        // The written text is read back and checked against the inputs: the fullest account,
        // so the model is not checked first.
        return keep_deleted_while_broken(merged, |m| {
            let view = m.resolve(Side::Ours);
            refuse_lost_members(&view, levels)?;
            let text = codec.render(docs, &view);
            if own_form {
                let problems = verify_output(codec, &text, inputs, originals)?;
                return Ok((problems, finish(text)?));
            }
            let text = finish(text)?;
            Ok((verify_output(codec, &text, inputs, originals)?, text))
        })
        .map(|(problems, text)| (text, problems));
    }
    let with_refs = merged.references;
    let (problems, view) = keep_deleted_while_broken(merged, |m| {
        let view = m.resolve(Side::Ours);
        refuse_lost_members(&view, levels)?;
        Ok((model_problems(codec, &view, with_refs, levels, versions)?, view))
    })?;
    clock.lap("check");
    let text = finish(codec.render(docs, &view))?;
    // The model holds what the level says, not how it is written: the text is read back, so
    // that a fault in the writing is a refusal, never a file the editor cannot open.
    if let Err(problem) = codec.reads_like(&text, docs.ours) {
        return Err(MergeError::Incoherent { problems: vec![problem] });
    }
    clock.lap("read back");
    Ok((text, problems))
}

/// `Incoherent` where the merge lost a member every version holds ([`crate::kept_members`]).
fn refuse_lost_members(view: &crate::resolve::Resolved<'_>, levels: &Sides<Level<'_>>) -> Result<(), MergeError> {
    let problems = crate::kept_members::lost_members(view, levels);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(MergeError::Incoherent { problems })
    }
}

/// All the problems of a resolved level, checked on the model; `Incoherent` with those no
/// input had.
fn model_problems<C: Codec>(
    codec: &C,
    view: &crate::resolve::Resolved<'_>,
    with_refs: bool,
    levels: &Sides<Level<'_>>,
    versions: Versions<'_>,
) -> Result<Vec<Problem>, MergeError> {
    let Versions { inputs, originals, .. } = versions;
    let all = crate::coherence::check(&view.graph(with_refs));
    let new = new_problems(all.clone(), || {
        // The versions as given, where aligning ids rewrote them.
        let unchanged = [inputs.base, inputs.ours, inputs.theirs].into_iter().zip([originals.base, originals.ours, originals.theirs]);
        if unchanged.into_iter().all(|(a, o)| std::ptr::eq(a, o)) {
            [&levels.base, &levels.ours, &levels.theirs].iter().flat_map(|l| l.problems()).map(|p| p.key()).collect()
        } else {
            problems_of(codec, originals)
        }
    });
    if new.is_empty() {
        Ok(all)
    } else {
        Err(MergeError::Incoherent { problems: new })
    }
}

/// With conflicts open, the objects a side deleted that a side's view of the conflicts still
/// uses (a signal connected to a node the other side deleted): each side, taken whole, should
/// be a sound level, so those deletions are contested. What else a view lacks is left to the
/// one who settles it.
fn deleted_yet_used_in_views<'a, C: Codec>(
    codec: &C,
    merged: &crate::merge::MergedLevel<'a>,
    docs: Sides<&C::Document<'_>>,
    levels: &Sides<Level<'a>>,
    versions: Versions<'_>,
    finish: &impl Fn(Vec<u8>) -> Result<Vec<u8>, MergeError>,
    contested: &FxHashMap<ObjectId, Vec<ObjectId>>,
) -> FxHashMap<ObjectId, Vec<ObjectId>> {
    if merged.open_conflicts() == 0 {
        return FxHashMap::default();
    }
    let checks_output = codec.checks_output(docs);
    for side in [Side::Ours, Side::Theirs] {
        let view = merged.resolve(side);
        let model_checked = || model_problems(codec, &view, merged.references, levels, versions);
        let checked = if checks_output {
            // Checked in the form the clean merge's text is checked in; a view that cannot
            // be written is left to the marking, as before this check.
            let text = codec.render(docs, &view);
            if versions.own_form {
                // Turned back too, as a clean merge's text is: that finds what the own form
                // cannot tell (a reference to an element the view lacks).
                verify_output(codec, &text, versions.inputs, versions.originals).and_then(|problems| finish(text).map(|_| problems))
            } else {
                finish(text).and_then(|text| verify_output(codec, &text, versions.inputs, versions.originals))
            }
        } else {
            model_checked()
        };
        if let Err(MergeError::Incoherent { problems }) = checked {
            let mut found = newly_contested(&problems, levels, contested);
            if found.is_empty() && checks_output {
                // A broken text whose problems contest nothing new: its model names what a
                // text written whole cannot show (an object one side added listing a child
                // that goes with a deletion, which then goes too).
                if let Err(MergeError::Incoherent { problems }) = model_checked() {
                    found = newly_contested(&problems, levels, contested);
                }
            }
            if !found.is_empty() {
                return found;
            }
        }
    }
    FxHashMap::default()
}

/// What a merged level's `problems` newly contest: the deletions it still needs
/// ([`deleted_yet_used`]), and the objects that objects one side added use and the level
/// lacks (a signal connected to a node added under one the other side deleted), with which
/// those added objects stand or go.
fn newly_contested(
    problems: &[Problem],
    levels: &Sides<Level<'_>>,
    contested: &FxHashMap<ObjectId, Vec<ObjectId>>,
) -> FxHashMap<ObjectId, Vec<ObjectId>> {
    let mut found = deleted_yet_used(problems, levels, contested);
    for (target, user) in problems.iter().filter_map(target_and_user) {
        let added_by_one = levels.base.get(&user).is_none() && levels.ours.get(&user).is_some() != levels.theirs.get(&user).is_some();
        let known = contested.get(&target).is_some_and(|users| users.contains(&user));
        if added_by_one && !known && (levels.ours.get(&target).is_some() || levels.theirs.get(&target).is_some()) {
            found.entry(target).or_default().push(user);
        }
    }
    found
}

/// The object a problem says is needed, and the object that needs it.
fn target_and_user(p: &Problem) -> Option<(ObjectId, ObjectId)> {
    match p {
        Problem::DanglingReference { object, target, .. } => Some((target.clone(), object.clone())),
        Problem::Orphan { object, parent, .. } => Some((parent.clone(), object.clone())),
        _ => None,
    }
}

/// The objects a merged level still needs (a reference names them, or a child's parent) that
/// base has and a side deleted, and that are not contested yet, each with the objects that need
/// it. A side whose own version still needs an object it deleted was broken before the merge:
/// its deletion is not contested.
fn deleted_yet_used(
    problems: &[Problem],
    levels: &Sides<Level<'_>>,
    contested: &FxHashMap<ObjectId, Vec<ObjectId>>,
) -> FxHashMap<ObjectId, Vec<ObjectId>> {
    let mut wanted: FxHashMap<ObjectId, Vec<ObjectId>> = FxHashMap::default();
    for (target, user) in problems.iter().filter_map(target_and_user) {
        if levels.base.get(&target).is_some() && !contested.contains_key(&target) {
            wanted.entry(target).or_default().push(user);
        }
    }
    if wanted.is_empty() {
        return wanted;
    }
    let deleted_by = |side: &Level<'_>| -> FxHashSet<ObjectId> {
        let still_needed: FxHashSet<ObjectId> = side.problems().iter().filter_map(target_and_user).map(|(target, _)| target).collect();
        wanted.keys().filter(|id| side.get(id).is_none() && !still_needed.contains(*id)).cloned().collect()
    };
    let mut deleted = deleted_by(&levels.ours);
    deleted.extend(deleted_by(&levels.theirs));
    wanted.retain(|id, _| deleted.contains(id));
    wanted
}

/// The whole merge: read every object, merge, write, check.
fn merge_structured<C>(
    codec: &C,
    texts: Sides<&[u8]>,
    renumbered: Option<Renumbered>,
    options: &Options,
    style: &MarkerStyle,
    clock: Clock,
) -> Result<MergeOutcome, MergeError>
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    merge_structured_views(codec, texts, renumbered, options, style, clock, true).map(|(outcome, _)| outcome)
}

/// The texts ours' and theirs' sides of a merge's open conflicts write (unmarked).
type Views = [Vec<u8>; 2];

/// [`merge_structured`], and where it marks conflicts, the [`Views`] of them. `whole`: the
/// texts are whole versions, whose objects conflicts are named by ([`named_in_whole`]), not
/// parts.
pub(crate) fn merge_structured_views<C>(
    codec: &C,
    texts: Sides<&[u8]>,
    renumbered: Option<Renumbered>,
    options: &Options,
    style: &MarkerStyle,
    mut clock: Clock,
    whole: bool,
) -> Result<(MergeOutcome, Option<Views>), MergeError>
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    let originals = texts;
    let texts = match &renumbered {
        Some(r) => r.applied_to(texts),
        None => texts,
    };
    let restores = renumbered.as_ref().is_some_and(|r| r.restore);
    let finish = |text: Vec<u8>| -> Result<Vec<u8>, MergeError> {
        if restores {
            codec.restore(text).map_err(|p| MergeError::Incoherent { problems: vec![p] })
        } else {
            Ok(text)
        }
    };
    // Big inputs are read on three threads (the work is independent; the machine has cores).
    let parallel = codec.reads_in_parallel() && texts.base.len() + texts.ours.len() + texts.theirs.len() > PARALLEL_FROM;
    let docs = codec.parse_versions(texts, parallel).map(|side, doc| doc.map_err(|problem| MergeError::Unreadable { side, problem }));
    let told = |error| told_by_the_file(codec, error, texts, originals);
    let docs = Sides::new(docs.base.map_err(told)?, docs.ours.map_err(told)?, docs.theirs.map_err(told)?);
    let all = docs.as_ref();
    let levels = on_each_side(parallel, all, |side, doc| read(codec, side, doc, &all.others(side)));
    let levels = Sides::new(levels.base.map_err(told)?, levels.ours.map_err(told)?, levels.theirs.map_err(told)?);
    clock.lap("read");
    let mut policy = options.policy.clone();
    policy.rules.extend(codec.rules(docs.as_ref()));
    let mut options = Options {
        policy,
        added_fields_are_edits: options.added_fields_are_edits && codec.added_fields_are_edits(),
        same_id_is_same_object: options.same_id_is_same_object || codec.same_id_is_same_object(),
        bookkeeping_members: if options.bookkeeping_members.is_empty() { codec.bookkeeping_members() } else { options.bookkeeping_members },
        layout_key: options.layout_key.or(codec.layout_key()),
        fields_fixed_by_type: options.fields_fixed_by_type || codec.fields_fixed_by_type(),
        concurrent_insertions: match options.concurrent_insertions {
            crate::merge::ConcurrentInsertions::KeptEverywhere => codec.concurrent_insertions(docs.as_ref()),
            chosen => chosen,
        },
        empty_values: if options.empty_values.is_empty() { codec.empty_values() } else { options.empty_values },
        grids: if options.grids.is_empty() { codec.grids(docs.as_ref()) } else { options.grids },
        contested: options.contested.clone(),
    };
    let doc_refs = docs.as_ref();
    let own_form = restores && codec.checked_in_own_form();
    let versions = match (restores, own_form) {
        (true, true) => Versions { inputs: texts, originals: texts, own_form },
        (true, false) => Versions { inputs: originals, originals, own_form },
        (false, _) => Versions { inputs: texts, originals, own_form },
    };
    // A merge that leaves a reference to an object one side deleted is merged again with that
    // deletion contested (a delete/modify conflict), as many times as it finds new ones.
    let (merged, ours_text, result_problems) = loop {
        let mut merged = merge(levels.as_ref(), &options);
        clock.lap("merge");
        match write_checked(codec, &mut merged, doc_refs, &levels, versions, &finish, &mut clock) {
            Ok((text, problems)) => {
                let deleted = deleted_yet_used_in_views(codec, &merged, doc_refs, &levels, versions, &finish, &options.contested);
                if deleted.is_empty() {
                    break (merged, text, problems);
                }
                // Only ever more pairs of an object and its user: the loop ends.
                for (target, users) in deleted {
                    options.contested.entry(target).or_default().extend(users);
                }
            }
            Err(MergeError::Incoherent { problems }) => {
                let contested = newly_contested(&problems, &levels, &options.contested);
                if contested.is_empty() {
                    return Err(MergeError::Incoherent { problems });
                }
                for (target, users) in contested {
                    options.contested.entry(target).or_default().extend(users);
                }
            }
            Err(e) => return Err(e),
        }
    };
    let open = merged.open_conflicts();
    // Objects are named from whichever version has them (the outline is only built when
    // there is a conflict or a note to name).
    let outlines: Vec<crate::outline::Outline> = if merged.conflicts.is_empty() && merged.notes.is_empty() {
        Vec::new()
    } else {
        [&levels.ours, &levels.theirs, &levels.base].iter().map(|l| codec.outline(l)).collect()
    };
    let path_of = |id: &ObjectId| outlines.iter().find(|o| o.kind(id).is_some()).map(|o| o.path(id));
    clock.lap(if open == 0 && codec.checks_output(doc_refs) { "write and verify" } else { "write" });
    let mut notes: Vec<String> = renumbered.as_ref().map(|r| r.notes.clone()).unwrap_or_default();
    // A note names its object as people see it, where its place is known.
    notes.extend(merged.notes.iter().map(|n| match path_of(&n.object) {
        None => format!("{}: {}", n.object, n.message),
        Some(path) if path.is_empty() => format!("the file: {}", n.message),
        Some(path) => format!("{} ({}): {}", path.join("/"), n.object, n.message),
    }));
    let conflicts = values_as_written(codec, report(&merged, path_of), restores);
    // Objects identical in every version may have been read without what names them.
    let conflicts = if whole {
        named_in_whole(codec, texts, conflicts, |c| outlines.iter().any(|o| o.names(&ObjectId::new(c.object.clone()))))
    } else {
        conflicts
    };
    if open == 0 {
        let problems = result_problems;
        let outcome = MergeOutcome {
            text: ours_text,
            open_conflicts: 0,
            marked_regions: 0,
            conflicts,
            notes,
            timings: clock.laps,
            problems,
            spliced: false,
        };
        return Ok((outcome, None));
    }
    let theirs_view = merged.resolve(Side::Theirs);
    let theirs_text = finish(codec.render(doc_refs, &theirs_view))?;
    let marked = mark_views(codec, &ours_text, &theirs_text, style);
    clock.lap("mark conflicts");
    // Both views written alike: what the open conflicts decide is not written, and the text
    // stands as a clean merge's, checked as one is (it was written before the conflicts could
    // be settled and checked).
    let (open, problems, views) = if marked.conflicts == 0 {
        let problems = if codec.checks_output(doc_refs) {
            // Checked in the form a clean merge is (`write_checked`).
            let merged_text = if own_form {
                std::borrow::Cow::Owned(codec.render(doc_refs, &merged.resolve(Side::Ours)))
            } else {
                std::borrow::Cow::Borrowed(&marked.text)
            };
            verify_output(codec, &merged_text, versions.inputs, versions.originals)?
        } else {
            model_problems(codec, &merged.resolve(Side::Ours), merged.references, &levels, versions)?
        };
        (0, problems, None)
    } else {
        (open, Vec::new(), Some([ours_text, theirs_text]))
    };
    let outcome = MergeOutcome {
        text: marked.text,
        open_conflicts: open,
        marked_regions: marked.conflicts,
        conflicts,
        notes,
        timings: clock.laps,
        problems,
        spliced: false,
    };
    Ok((outcome, views))
}
