//! The boundary between the core and a file format, and the pipelines that run through it:
//! merge, diff and check of texts. Nothing here reads or writes files.

use crate::coherence::Problem;
use crate::conflict::Reason;
use crate::diff::{diff, DiffReport};
use crate::merge::{merge, Options};
use crate::model::{Level, ObjectId};
use crate::outline::Outline;
use crate::resolve::Resolved;
use crate::side::{Side, Sides};
use crate::text::{mark_difference_whole, mark_differences, marker_lines, MarkerStyle};
use rustc_hash::FxHashSet;

/// A file format: parses bytes into a lossless document, lowers it to a [`Level`], and writes
/// a resolved level back by copying the source bytes of everything taken whole.
pub trait Codec {
    type Document<'src>;

    fn name(&self) -> &'static str;

    /// Read a document. The error is a [`Problem::Syntax`] with line and column.
    fn parse<'src>(&self, src: &'src [u8]) -> Result<Self::Document<'src>, Problem>;

    /// Read a document that is merged or compared with `others`. A codec may leave parts that
    /// are byte-identical in all of them unparsed (see [`Codec::lower`]); the default reads all.
    fn parse_among<'src>(&self, src: &'src [u8], _others: &[&[u8]]) -> Result<Self::Document<'src>, Problem> {
        self.parse(src)
    }

    /// Read the three versions of a merge, on three threads when `parallel`. A codec that
    /// leaves parts unparsed must leave the same parts unparsed in every version, so that the
    /// three agree on what is opaque; the default reads each version among the other two
    /// ([`Codec::parse_among`]).
    fn parse_versions<'src>(&self, texts: Sides<&'src [u8]>, parallel: bool) -> Sides<Result<Self::Document<'src>, Problem>>
    where
        Self: Sync,
        for<'s> Self::Document<'s>: Send,
    {
        on_each_side(parallel, texts, |side, text| self.parse_among(text, &texts.others(side)))
    }

    /// The level a document holds. Problems that make matching by id impossible (duplicate ids
    /// or keys) are errors.
    ///
    /// `others` are the other versions this one is merged with, in side order (base, ours,
    /// theirs, without `side`'s own), or empty when a document is read alone. A codec may lower
    /// a part that is byte-identical in every version as one opaque value: nothing there can
    /// merge differently, and big unchanged levels read much faster.
    fn lower<'d>(&self, doc: &'d Self::Document<'_>, side: Side, others: &[&'d Self::Document<'_>]) -> Result<Level<'d>, Vec<Problem>>;

    /// Write a resolved level. `docs` are the documents the level's values were lowered from.
    fn render(&self, docs: Sides<&Self::Document<'_>>, level: &Resolved<'_>) -> Vec<u8>;

    /// The format's own rules a level breaks (beyond dangling references, orphans, cycles).
    /// `doc` is the document the level was lowered from alone ([`Codec::lower`] without other
    /// versions).
    fn level_problems(&self, _doc: &Self::Document<'_>, _level: &Level<'_>) -> Vec<Problem> {
        Vec::new()
    }

    /// Whether two versions of one part ([`Codec::parts`]) give every check of a text
    /// ([`Codec::lower`], [`Level::problems`](crate::model::Level::problems),
    /// [`Codec::level_problems`]) the same findings wherever they stand: a text holding one
    /// has the problems it would have holding the other. A conflict's two views differ only in
    /// such parts, and theirs' view is then not checked again once ours' view passed.
    fn checked_alike(&self, _a: &[u8], _b: &[u8]) -> bool {
        false
    }

    /// Whether a clean merge's written file is read back and checked against the format's own
    /// rules before it is returned.
    fn checks_output(&self) -> bool {
        false
    }

    /// The text cut into its objects' parts, in order, each from the line that names the
    /// object (its tag, its header) to the next such line, covering the whole text; `None`
    /// when the codec cannot cut it safely. A merge whose three versions name the same objects
    /// in the same order, each changed by one side at most, is then the base with each changed
    /// part taken from its side ([`merge_disjoint_parts`]): what the whole merge would write,
    /// without reading the objects. The spliced text is read back alone ([`Codec::lower`]
    /// with no other versions) and must show every problem the whole merge would refuse: only
    /// codecs whose level of one text holds its whole structure offer parts.
    fn parts<'t>(&self, _text: &'t [u8]) -> Option<Vec<&'t [u8]>> {
        None
    }

    /// Where a part's object ends and the lines after it (its gap to the next part) begin,
    /// when the codec can tell: a part both sides changed, one its object and both its gap,
    /// then merges the two apart, as the whole merge does. `None` by default.
    fn part_gap(&self, _part: &[u8]) -> Option<usize> {
        None
    }

    /// Where both sides inserted new parts at one place, how the last of ours' (`last`) meets
    /// the first of theirs' (`next`) as the whole merge writes them, ours' first: how many bytes
    /// of `last` are kept (its own gap was the one before the part that followed it), and what
    /// is written between. `None` (the default) when the whole merge may order them otherwise
    /// (it then decides).
    fn join_inserted_parts(&self, _last: &[u8], _next: &[u8]) -> Option<(usize, &'static [u8])> {
        None
    }

    /// A text spliced from `versions`' parts with its derived data made true of it, as the
    /// whole merge writes it (a count of the file's resources in a header copied from one
    /// version). Unchanged by default.
    fn spliced(&self, text: Vec<u8>, _versions: Sides<&[u8]>) -> Vec<u8> {
        text
    }

    /// The bytes of a part's first line that hold data [`Codec::spliced`] makes true of the
    /// spliced text (Godot's `load_steps=` count): parts are named and compared without them,
    /// so that two sides that each changed only that count changed nothing to merge. `None`
    /// by default.
    fn derived_in_part(&self, _part: &[u8]) -> Option<std::ops::Range<usize>> {
        None
    }

    /// Whether a part ([`Codec::parts`]) both sides changed can be merged as a text of its
    /// own, its object read without the rest of the text: then the rest is spliced around it.
    /// False by default.
    fn merges_parts_alone(&self) -> bool {
        false
    }

    /// The hierarchy paths ([`Outline::path`]) of objects of a whole version, where a merge
    /// cannot name its objects as the whole file does: a part merged alone
    /// ([`Codec::merges_parts_alone`]) lacks the rest (a Unity component is named by its game
    /// object, whose document is another part), and objects identical in every version may
    /// have been read without what names them. Conflicts are named from these, `None` for an
    /// object the version does not have. `None` (the default): the merge's own reading names
    /// them.
    fn object_paths(&self, _text: &[u8], _ids: &[&str]) -> Option<Vec<Option<Vec<String>>>> {
        None
    }

    /// Whether any of the conflicts of a part merged alone is settled by a rule the codec draws
    /// from the rest of the `texts` merged ([`Codec::rules`]: a property the parent's kind
    /// makes volatile). The whole merge then decides. False by default.
    fn settled_in_context(&self, _conflicts: &[ConflictReport], _texts: Sides<&[u8]>) -> bool {
        false
    }

    /// Whether a part merged alone (`merged`, of the part's `versions`) stands where its
    /// versions stood, as the whole merge writes it: false where the whole merge would move it
    /// (a Godot sub-resource that now uses one its base version did not is written after what
    /// it uses). True by default.
    fn merged_part_stays(&self, _merged: &[u8], _versions: Sides<&[u8]>) -> bool {
        true
    }

    /// Whether large inputs are read on three threads ([`PARALLEL_FROM`]). A codec whose
    /// reading is mostly touching fresh memory gains no time from threads and pays memory.
    fn reads_in_parallel(&self) -> bool {
        true
    }

    /// Whether a field one side added counts as an edit against the other side's deletion
    /// (see [`Options::added_fields_are_edits`]).
    fn added_fields_are_edits(&self) -> bool {
        true
    }

    /// Whether objects both sides added under one id are one object (see
    /// [`Options::same_id_is_same_object`]).
    fn same_id_is_same_object(&self) -> bool {
        false
    }

    /// Members the editor rewrites as bookkeeping (see [`Options::bookkeeping_members`]).
    fn bookkeeping_members(&self) -> &'static [&'static str] {
        &[]
    }

    /// How the format writes a value that holds nothing (see [`Options::empty_values`]).
    fn empty_values(&self) -> &'static [&'static str] {
        &[]
    }

    /// The member that numbers a struct's layout, if the format has one (see
    /// [`Options::layout_key`]).
    fn layout_key(&self) -> Option<&'static str> {
        None
    }

    /// Which lists keep all the items both sides inserted at one place (see
    /// [`Options::concurrent_insertions`]).
    fn concurrent_insertions(&self, _docs: Sides<&Self::Document<'_>>) -> crate::merge::ConcurrentInsertions {
        crate::merge::ConcurrentInsertions::KeptEverywhere
    }

    /// Rules the format brings for the documents merged (an editor's counters and volatile
    /// editor state), tried after the user's own rules.
    fn rules(&self, _docs: Sides<&Self::Document<'_>>) -> Vec<crate::policy::Rule> {
        Vec::new()
    }

    /// Make file-local ids agree before the merge: objects both sides added under one id get
    /// fresh ones in theirs, and a format whose ids are mere handles may rewrite base's and
    /// theirs' to ours'. Returns the rewritten texts with their references rewritten, and a
    /// note per collision; `None` when nothing changes (or the format cannot renumber).
    ///
    /// A format whose references are positions may instead rewrite all three into a form of
    /// its own where references name identities (`Renumbered::restore`); the merged text is
    /// then turned back by [`Codec::restore`].
    fn renumber(&self, _texts: Sides<&[u8]>) -> Option<Renumbered> {
        None
    }

    /// Turn a text merged in the form [`Codec::renumber`] wrote back into the file's own form.
    /// An error means the merged text cannot be written in that form (a reference to an
    /// object the merge dropped).
    fn restore(&self, text: Vec<u8>) -> Result<Vec<u8>, Problem> {
        Ok(text)
    }

    /// A conflict's value, taken from the texts the merge read, as the file writes it: a codec
    /// whose [`Codec::renumber`] adds to the file's form takes that out again. As is by default.
    fn value_as_written(&self, value: String) -> String {
        value
    }

    /// Whether [`Codec::restore`] finds every problem a text spliced from parts of the
    /// codec's own form can hold, each part being some version's byte for byte: its syntax,
    /// and every reference naming one object (a text in that form holds no other kind). The
    /// splice is then not read back again, and holds no problem. `false` by default.
    fn restore_checks_splices(&self) -> bool {
        false
    }

    /// Whether the conflicts of a merge rendered as `ours_view` and `theirs_view` are marked as
    /// one region around all their differences ([`crate::text::mark_difference_whole`])
    /// instead of one per differing stretch: where references are positions and the views
    /// hold different elements, every later reference differs, and sides taken stretch by
    /// stretch would point references at the wrong elements. `false` by default.
    fn conflicts_in_one_region(&self, _ours_view: &[u8], _theirs_view: &[u8]) -> bool {
        false
    }

    /// How people see the level's objects: names, the hierarchy, parts of objects. The
    /// default names objects by a name member and places them under their parent.
    fn outline(&self, level: &Level<'_>) -> Outline {
        Outline::generic(level)
    }
}

/// The inputs with their ids rewritten ([`Codec::renumber`]); `None` where unchanged.
#[derive(Debug, Clone, Default)]
pub struct Renumbered {
    pub base: Option<Vec<u8>>,
    pub ours: Option<Vec<u8>>,
    pub theirs: Option<Vec<u8>>,
    pub notes: Vec<String>,
    /// The texts are in a form of the codec's own: what is merged goes through
    /// [`Codec::restore`] before it is checked or returned.
    pub restore: bool,
}

impl Renumbered {
    /// The texts as rewritten, `texts` where not.
    pub fn applied_to<'t>(&'t self, texts: Sides<&'t [u8]>) -> Sides<&'t [u8]> {
        Sides::new(
            self.base.as_deref().unwrap_or(texts.base),
            self.ours.as_deref().unwrap_or(texts.ours),
            self.theirs.as_deref().unwrap_or(texts.theirs),
        )
    }

    /// `first`, then `then` (made from `first`'s texts): `then`'s texts where it rewrote,
    /// both notes.
    pub fn chain(first: Option<Renumbered>, then: Option<Renumbered>) -> Option<Renumbered> {
        match (first, then) {
            (first, None) => first,
            (None, then) => then,
            (Some(first), Some(then)) => Some(Renumbered {
                base: then.base.or(first.base),
                ours: then.ours.or(first.ours),
                theirs: then.theirs.or(first.theirs),
                notes: first.notes.into_iter().chain(then.notes).collect(),
                restore: first.restore || then.restore,
            }),
        }
    }
}

/// A conflict, detached from the documents, for reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictReport {
    pub object: String,
    pub object_kind: String,
    /// The object's hierarchy path as people name it (`Level/Spawn`): empty for the object
    /// that stands for the whole file, `None` when the codec cannot tell it.
    pub object_path: Option<Vec<String>>,
    pub path: String,
    pub kind: &'static str,
    pub base: Option<String>,
    pub ours: Option<String>,
    pub theirs: Option<String>,
    /// The side it was settled from, and why; `None` when left to the user.
    pub resolved: Option<(Side, String)>,
}

/// What a structured merge produced.
#[derive(Debug, Clone)]
pub struct MergeOutcome {
    /// The merged file; with conflict markers when `open_conflicts > 0`.
    pub text: Vec<u8>,
    pub open_conflicts: usize,
    /// Conflict regions marked in `text`.
    pub marked_regions: usize,
    pub conflicts: Vec<ConflictReport>,
    /// Things settled automatically that the user should know (cycles broken).
    pub notes: Vec<String>,
    /// How long each phase took (read, merge, check, write, mark), for `LEVELMERGE_TIMINGS`.
    pub timings: Vec<(&'static str, std::time::Duration)>,
    /// Whether the text was spliced from the versions' parts ([`Codec::parts`]) rather than
    /// written from every object read.
    pub spliced: bool,
    /// Every problem of a cleanly merged level, including those an input already had (the
    /// merge fails only on new ones): what `check` would say of the text, without reading it
    /// again.
    pub problems: Vec<Problem>,
}

/// Why a structured merge could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeError {
    /// An input could not be read as the format.
    Unreadable { side: Side, problem: Problem },
    /// An input has problems that make matching by id impossible.
    Invalid { side: Side, problems: Vec<Problem> },
    /// The merge would produce a level with problems none of the inputs had.
    Incoherent { problems: Vec<Problem> },
}

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MergeError::Unreadable { side, problem } => write!(f, "{side}: {problem}"),
            MergeError::Invalid { side, problems } => {
                write!(f, "{side}: ")?;
                let shown: Vec<String> = problems.iter().take(3).map(|p| p.to_string()).collect();
                write!(f, "{}", shown.join("; "))?;
                if problems.len() > 3 {
                    write!(f, " (and {} more)", problems.len() - 3)?;
                }
                Ok(())
            }
            MergeError::Incoherent { problems } => {
                let shown: Vec<String> = problems.iter().take(3).map(|p| p.to_string()).collect();
                write!(f, "the merged level would be broken: {}", shown.join("; "))
            }
        }
    }
}

fn parse<'s, C: Codec>(codec: &C, side: Side, text: &'s [u8], others: &[&[u8]]) -> Result<C::Document<'s>, MergeError> {
    codec.parse_among(text, others).map_err(|problem| MergeError::Unreadable { side, problem })
}

fn read<'d, C: Codec>(codec: &C, side: Side, doc: &'d C::Document<'_>, others: &[&'d C::Document<'_>]) -> Result<Level<'d>, MergeError> {
    codec.lower(doc, side, others).map_err(|problems| MergeError::Invalid { side, problems })
}

/// Problems in `result` that none of `known` (keys of the inputs' problems) has.
fn new_problems(result: Vec<Problem>, known: impl FnOnce() -> Vec<String>) -> Vec<Problem> {
    if result.is_empty() {
        return result;
    }
    let known = known();
    result.into_iter().filter(|p| !known.contains(&p.key())).collect()
}

/// An input that cannot be read, told as the file itself reads where aligning ids rewrote it
/// ([`Codec::renumber`]): the ids and lines the rewritten text names are not the file's. The
/// error stands as it was when the file alone reads.
fn told_by_the_file<C: Codec>(codec: &C, error: MergeError, texts: Sides<&[u8]>, originals: Sides<&[u8]>) -> MergeError {
    let (MergeError::Unreadable { side, .. } | MergeError::Invalid { side, .. }) = &error else { return error };
    let (side, original) = (*side, *originals.get(*side));
    if original == *texts.get(side) {
        return error;
    }
    match parse(codec, side, original, &[]) {
        Err(own) => own,
        Ok(doc) => read(codec, side, &doc, &[]).err().unwrap_or(error),
    }
}

/// Conflicts whose values are shown as the file writes them ([`Codec::value_as_written`]).
fn values_as_written<C: Codec>(codec: &C, conflicts: Vec<ConflictReport>) -> Vec<ConflictReport> {
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
fn verify_output<C: Codec>(codec: &C, text: &[u8], inputs: Sides<&[u8]>, originals: Sides<&[u8]>) -> Result<Vec<Problem>, MergeError> {
    // Parts identical in the output and every input cannot hold a new problem.
    let doc =
        codec.parse_among(text, &[inputs.base, inputs.ours, inputs.theirs]).map_err(|p| MergeError::Incoherent { problems: vec![p] })?;
    let level = codec.lower(&doc, Side::Ours, &[]).map_err(|problems| MergeError::Incoherent { problems })?;
    let mut found = level.problems();
    found.extend(codec.level_problems(&doc, &level));
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
struct Clock {
    at: std::time::Instant,
    laps: Vec<(&'static str, std::time::Duration)>,
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

/// Room to reserve for a merged text whose inputs are `lengths` long: ours plus what theirs
/// grew by, and a little slack. A merge that outgrows a buffer reallocates and copies it, and
/// on a scene of megabytes that costs more than the pages reserved and never written.
pub fn merged_capacity(lengths: Sides<usize>) -> usize {
    let grown = lengths.ours + lengths.theirs.saturating_sub(lengths.base);
    grown + grown / 64 + 4096
}

/// Total input size from which the three inputs are read in parallel. Below it a thread's
/// start and its fresh heap cost more than it saves (a 94 KB Cocos scene merges in 6.7 ms
/// instead of 7.9).
pub const PARALLEL_FROM: usize = 1024 * 1024;

/// Run `f` for the three sides, on three threads when `parallel` (codecs that read each
/// version whole before the merge use it too).
pub fn on_each_side<T: Send, U: Send>(parallel: bool, inputs: Sides<T>, f: impl Fn(Side, T) -> U + Sync) -> Sides<U> {
    if !parallel {
        return inputs.map(&f);
    }
    std::thread::scope(|scope| {
        let f = &f;
        let ours = scope.spawn(move || f(Side::Ours, inputs.ours));
        let theirs = scope.spawn(move || f(Side::Theirs, inputs.theirs));
        let base = f(Side::Base, inputs.base);
        Sides::new(base, ours.join().expect("reading ours does not panic"), theirs.join().expect("reading theirs does not panic"))
    })
}

/// The merge [`merge_texts`] splices from the versions' parts, without its check of the
/// result: the inputs' ids aligned first ([`Codec::renumber`]), the parts spliced (each
/// [`Codec::parts`] taken from the side that changed it, `splice_parts`), and a text in a form
/// of the codec's own turned back ([`Codec::restore`]). `None` where the whole merge decides.
pub fn merge_disjoint_parts<C>(codec: &C, texts: Sides<&[u8]>) -> Option<Vec<u8>>
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    let renumbered = codec.renumber(texts);
    let aligned = renumbered.as_ref().map_or(texts, |r| r.applied_to(texts));
    let spliced = splice_parts(codec, aligned, &|part| merge_part_alone(codec, part, aligned, &Options::default()))?;
    if !spliced.open_parts.is_empty() {
        return None;
    }
    let text = codec.spliced(spliced.text, aligned);
    if renumbered.is_some_and(|r| r.restore) {
        codec.restore(text).ok()
    } else {
        Some(text)
    }
}

/// How a part both sides changed is merged alone ([`merge_part_alone`]), or `None`.
type MergePart<'m> = dyn Fn(Sides<&[u8]>) -> Option<PartMerge> + 'm;

/// A part both sides changed, merged alone ([`merge_part_alone`]).
enum PartMerge {
    /// Merged cleanly: the part's text, and the conflicts a rule or the preference settled.
    Clean { text: Vec<u8>, settled: Vec<ConflictReport> },
    /// Left with conflicts: the part as ours' and theirs' sides of them write it.
    Open(OpenPart),
}

/// A part merged alone with conflicts left open (and maybe others settled).
struct OpenPart {
    ours: Vec<u8>,
    theirs: Vec<u8>,
    open: usize,
    conflicts: Vec<ConflictReport>,
}

/// Parts spliced ([`splice_parts`]), before the codec makes derived data true of the text
/// ([`Codec::spliced`]): the text with ours' side of every part left open, those parts with
/// where each stands in it, and the conflicts the parts merged cleanly settled.
struct Spliced {
    text: Vec<u8>,
    open_parts: Vec<(std::ops::Range<usize>, OpenPart)>,
    settled: Vec<ConflictReport>,
}

impl Spliced {
    /// The text with theirs' side of every part left open.
    fn theirs_text(&self) -> Vec<u8> {
        let mut text = Vec::with_capacity(self.text.len() + 4096);
        let mut copied = 0;
        for (at, part) in &self.open_parts {
            text.extend_from_slice(&self.text[copied..at.start]);
            text.extend_from_slice(&part.theirs);
            copied = at.end;
        }
        text.extend_from_slice(&self.text[copied..]);
        text
    }
}

/// The common merge, spliced: the versions' parts ([`Codec::parts`]), named by their first
/// line, are aligned by name (a 3-way diff of the names). A part every version names is taken
/// from the side that changed it; parts one side added or removed are taken from that side
/// when the other left those places untouched. New parts both sides inserted at one place are
/// written ours' first where the codec joins them ([`Codec::join_inserted_parts`]). A part
/// both sides changed is `merge_part`'s merge of it alone, ours' side of its conflicts where
/// it leaves them open. `None` when both sides changed one place otherwise or a part that does
/// not merge alone (the whole merge decides those), or when the text has no parts.
fn splice_parts<C: Codec>(codec: &C, texts: Sides<&[u8]>, merge_part: &MergePart<'_>) -> Option<Spliced> {
    let parts = Sides::new(codec.parts(texts.base)?, codec.parts(texts.ours)?, codec.parts(texts.theirs)?);
    let names = parts.as_ref().map(|_, p| part_names(codec, p));
    // Built when a side first adds parts: most merges only edit parts in place.
    let mut base_names: Option<rustc_hash::FxHashSet<u64>> = None;
    // A part put somewhere that base has elsewhere was moved (a diff sees a deletion and an
    // insertion): the other side's deletion or edit of it would be lost.
    let mut moved =
        |added: &[u64]| added.iter().any(|n| base_names.get_or_insert_with(|| names.base.iter().copied().collect()).contains(n));
    let mut out = Vec::with_capacity(merged_capacity(texts.map(|_, t| t.len())));
    let (mut open_parts, mut settled) = (Vec::new(), Vec::new());
    // The part written last: the versions of one every version has, or the side that inserted
    // it. A part's end holds the lines before the next part, as its side had them: parts a side
    // inserts after it must come from that side (or after an end no side changed, or both
    // changed alike), or the lines between them may be lost. Which side changed an end is only
    // found where parts are inserted after it: most merges only edit parts in place.
    let mut last: Option<(&[u8], &[u8], &[u8])> = None;
    let mut last_inserted_by: Option<Side> = None;
    let last_end_changed_by = |last: Option<(&[u8], &[u8], &[u8])>, inserted_by: Option<Side>| {
        if inserted_by.is_some() {
            return inserted_by;
        }
        let (b, o, t) = last?;
        let (b, o, t) = match (codec.part_gap(b), codec.part_gap(o), codec.part_gap(t)) {
            (Some(bg), Some(og), Some(tg)) => (&b[bg..], &o[og..], &t[tg..]),
            _ => (b, o, t),
        };
        if o == t {
            None
        } else {
            changer(b, o, t)
        }
    };
    for chunk in crate::diff3::diff3(&names.base, &names.ours, &names.theirs) {
        match chunk {
            crate::diff3::Chunk::Stable { base, ours, theirs } => {
                let named = parts.base[base].iter().zip(&parts.ours[ours]).zip(&parts.theirs[theirs]);
                for ((b, o), t) in named {
                    (last, last_inserted_by) = (Some((&b[..], &o[..], &t[..])), None);
                    if let Some(part) = changed_once(b, o, t) {
                        out.extend_from_slice(part);
                        continue;
                    }
                    // Both changed only what the codec derives (and writes true of the result).
                    if let Some(part) = changed_once_compared(codec, b, o, t) {
                        out.extend_from_slice(part);
                        continue;
                    }
                    // Both changed the part: one its object, both the lines after it (each
                    // appended after it), say. Its object and its gap merge apart.
                    if let Some([object, gap]) = changed_apart(codec, b, o, t) {
                        out.extend_from_slice(object);
                        out.extend_from_slice(gap);
                        continue;
                    }
                    // Both changed its object: the whole merge of that object alone.
                    match merge_part(Sides::new(&b[..], &o[..], &t[..]))? {
                        PartMerge::Clean { text, settled: part_settled } => {
                            out.extend_from_slice(&text);
                            settled.extend(part_settled);
                        }
                        PartMerge::Open(part) => {
                            let start = out.len();
                            out.extend_from_slice(&part.ours);
                            open_parts.push((start..out.len(), part));
                        }
                    }
                }
            }
            // One side added, removed or renamed parts here; the other must have left them as
            // they were.
            crate::diff3::Chunk::Changed { base, ours, theirs, take } => {
                let (b, o, t) = (&parts.base[base], &parts.ours[ours.clone()], &parts.theirs[theirs.clone()]);
                // Parts compared without what the codec derives: a side that only recounted
                // them left them as they were.
                let same = |x: &[&[u8]], y: &[&[u8]]| {
                    x.len() == y.len() && x.iter().zip(y).all(|(x, y)| x == y || compared_part(codec, x) == compared_part(codec, y))
                };
                let (taken, taken_names, side) = match take {
                    crate::diff3::Take::Ours if same(t, b) => (o, &names.ours[ours], Side::Ours),
                    crate::diff3::Take::Theirs if same(o, b) => (t, &names.theirs[theirs], Side::Theirs),
                    crate::diff3::Take::Both if o == t => (o, &names.ours[ours], Side::Ours),
                    _ => return None,
                };
                if moved(taken_names) || last_end_changed_by(last, last_inserted_by).is_some_and(|s| s != side) {
                    return None;
                }
                last_inserted_by = Some(side);
                taken.iter().for_each(|part| out.extend_from_slice(part));
            }
            // Both sides inserted parts here, and only inserted: different new objects.
            crate::diff3::Chunk::Conflict { base, ours, theirs } if base.is_empty() => {
                let (o, t) = (&parts.ours[ours.clone()], &parts.theirs[theirs.clone()]);
                let (ours_names, theirs_names) = (&names.ours[ours], &names.theirs[theirs]);
                if moved(ours_names)
                    || moved(theirs_names)
                    || ours_names.iter().any(|n| theirs_names.contains(n))
                    || last_end_changed_by(last, last_inserted_by).is_some()
                {
                    return None;
                }
                last_inserted_by = Some(Side::Theirs);
                let (kept, joint) = codec.join_inserted_parts(o.last()?, t.first()?)?;
                let (last, before) = o.split_last()?;
                before.iter().for_each(|part| out.extend_from_slice(part));
                out.extend_from_slice(&last[..kept]);
                out.extend_from_slice(joint);
                t.iter().for_each(|part| out.extend_from_slice(part));
            }
            crate::diff3::Chunk::Conflict { .. } => return None,
        }
    }
    Some(Spliced { text: out, open_parts, settled })
}

/// Of three versions of some bytes, the one a side changed alone (or both alike); `None` when
/// the sides changed them differently.
fn changed_once<'t>(base: &'t [u8], ours: &'t [u8], theirs: &'t [u8]) -> Option<&'t [u8]> {
    Some(if standing_side(base, ours, theirs)? == Side::Ours { ours } else { theirs })
}

/// Of three versions, the side whose version stands: theirs where ours is base's, ours where
/// theirs is base's or ours'; `None` when the sides changed it differently.
fn standing_side<T: PartialEq + ?Sized>(base: &T, ours: &T, theirs: &T) -> Option<Side> {
    if ours == base {
        Some(Side::Theirs)
    } else if theirs == base || theirs == ours {
        Some(Side::Ours)
    } else {
        None
    }
}

/// A part both sides changed, as its object and its gap ([`Codec::part_gap`]) each changed by
/// one side at most.
fn changed_apart<'t, C: Codec>(codec: &C, b: &'t [u8], o: &'t [u8], t: &'t [u8]) -> Option<[&'t [u8]; 2]> {
    let (bc, oc, tc) = (codec.part_gap(b)?, codec.part_gap(o)?, codec.part_gap(t)?);
    Some([changed_once(&b[..bc], &o[..oc], &t[..tc])?, changed_once(&b[bc..], &o[oc..], &t[tc..])?])
}

/// A part both sides changed, merged alone: the whole merge of its three versions read as
/// three texts, when the codec reads its parts alone ([`Codec::merges_parts_alone`]) and that
/// merge notes nothing (what it notes may depend on the rest of the text: the whole merge,
/// which reads all of it, then decides). It may settle conflicts, by the user's rules, the
/// codec's fixed ones or the preference, as the whole merge settles them; not where a rule
/// drawn from the rest of the `texts` merged settles a conflict ([`Codec::settled_in_context`]:
/// a rule on the children of a kind of node), nor where the merged part would not stand where
/// its versions stood ([`Codec::merged_part_stays`]): the whole merge decides those.
fn merge_part_alone<C>(codec: &C, part: Sides<&[u8]>, texts: Sides<&[u8]>, options: &Options) -> Option<PartMerge>
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    if !codec.merges_parts_alone() {
        return None;
    }
    let (merged, views) = merge_structured_views(codec, part, None, options, &MarkerStyle::default(), Clock::default(), false).ok()?;
    if !merged.notes.is_empty() || codec.settled_in_context(&merged.conflicts, texts) {
        return None;
    }
    if merged.open_conflicts == 0 {
        // Conflicts left open that both views write alike were checked as a clean merge's:
        // the whole merge decides those.
        let all_settled = merged.conflicts.iter().all(|c| c.resolved.is_some());
        let stays = all_settled && codec.merged_part_stays(&merged.text, part);
        return stays.then_some(PartMerge::Clean { text: merged.text, settled: merged.conflicts });
    }
    let [ours, theirs] = views?;
    let stays = codec.merged_part_stays(&ours, part) && codec.merged_part_stays(&theirs, part);
    stays.then_some(PartMerge::Open(OpenPart { ours, theirs, open: merged.open_conflicts, conflicts: merged.conflicts }))
}

/// [`changed_once`] of three versions of a part compared without what the codec derives
/// ([`compared_part`]); `None` where nothing is derived.
fn changed_once_compared<'t, C: Codec>(codec: &C, base: &'t [u8], ours: &'t [u8], theirs: &'t [u8]) -> Option<&'t [u8]> {
    codec.derived_in_part(base)?;
    let (b, o, t) = (compared_part(codec, base), compared_part(codec, ours), compared_part(codec, theirs));
    let side = standing_side(&*b, &*o, &*t)?;
    // Alike on both sides but for what is derived: ours' bytes where ours changed them, as the
    // whole merge writes an object both changed from ours' source (and recounts alike).
    let side = if o == t && ours != base { Side::Ours } else { side };
    Some(if side == Side::Ours { ours } else { theirs })
}

/// Which side changed some bytes: `None` when neither did, ours when both did.
fn changer(base: &[u8], ours: &[u8], theirs: &[u8]) -> Option<Side> {
    if ours != base {
        Some(Side::Ours)
    } else if theirs != base {
        Some(Side::Theirs)
    } else {
        None
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
/// ([`merge_disjoint_parts`]): the two agree, and tests compare them.
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
    let mut outcome = merge_unmarked(codec, texts, options, style, splice)?;
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
    let merge_part = |part: Sides<&[u8]>| merge_part_alone(codec, part, aligned, options);
    let spliced = splice.then(|| splice_parts(codec, aligned, &merge_part)).flatten().and_then(|spliced| {
        if !spliced.open_parts.is_empty() {
            return if restores { None } else { marked_splice(codec, spliced, Versions { inputs: aligned, originals: texts }, style) };
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
        let conflicts = values_as_written(codec, named_in_whole(codec, aligned, spliced.conflicts, |_| false));
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

/// What a splice writes: a [`MergeOutcome`] without its notes and timings.
#[derive(Default)]
struct SplicedOutcome {
    text: Vec<u8>,
    open_conflicts: usize,
    marked_regions: usize,
    conflicts: Vec<ConflictReport>,
    problems: Vec<Problem>,
}

/// A splice around parts merged alone with conflicts left open, marked as the whole merge
/// marks its own: each side's view of the conflicts spliced and checked like a clean splice
/// (a part one side deleted that the other's view still needs), then the two views compared
/// part by part. `None` where a view is broken or the views are written alike (the whole
/// merge decides those).
fn marked_splice<C: Codec + Sync>(codec: &C, spliced: Spliced, versions: Versions<'_>, style: &MarkerStyle) -> Option<SplicedOutcome> {
    let theirs = codec.spliced(spliced.theirs_text(), versions.inputs);
    let ours = codec.spliced(spliced.text, versions.inputs);
    let verify = |view: &[u8]| verify_output(codec, view, versions.inputs, versions.originals).is_ok();
    // Where every open part's two sides read alike to the checks, ours' view answers for both.
    let theirs_alike = spliced.open_parts.iter().all(|(_, part)| codec.checked_alike(&part.ours, &part.theirs));
    let mark = || mark_views(codec, &ours, &theirs, style);
    // The three read the whole text each, independently: on three threads where the codec
    // reads in parallel (the two checks are most of the time; each holds a document).
    let (sound, marked) = if codec.reads_in_parallel() && ours.len() + theirs.len() > PARALLEL_FROM {
        std::thread::scope(|scope| {
            let theirs_sound = scope.spawn(|| theirs_alike || verify(&theirs));
            let marked = scope.spawn(mark);
            let sound = verify(&ours) && theirs_sound.join().expect("checking a text does not panic");
            (sound, marked.join().expect("marking conflicts does not panic"))
        })
    } else {
        (verify(&ours) && (theirs_alike || verify(&theirs)), mark())
    };
    if !sound || marked.conflicts == 0 {
        return None;
    }
    let parts = spliced.open_parts.into_iter().map(|(_, part)| part);
    let (open_conflicts, conflicts) = parts.fold((0, spliced.settled), |(open, mut all), part| {
        all.extend(part.conflicts);
        (open + part.open, all)
    });
    Some(SplicedOutcome { text: marked.text, open_conflicts, marked_regions: marked.conflicts, conflicts, problems: Vec::new() })
}

/// Each part named by its first line (a Unity document's `--- !u!1 &N`, a Godot section's
/// tag), hashed.
fn part_names<C: Codec>(codec: &C, parts: &[&[u8]]) -> Vec<u64> {
    parts
        .iter()
        .map(|part| {
            let line = &part[..memchr::memchr(b'\n', part).map_or(part.len(), |i| i + 1)];
            match codec.derived_in_part(part) {
                Some(derived) if derived.end <= line.len() => {
                    crate::text::line_hash(&[&line[..derived.start], &line[derived.end..]].concat())
                }
                _ => crate::text::line_hash(line),
            }
        })
        .collect()
}

/// A part as the splice compares it: without the data the codec derives
/// ([`Codec::derived_in_part`]).
fn compared_part<'t, C: Codec>(codec: &C, part: &'t [u8]) -> std::borrow::Cow<'t, [u8]> {
    match codec.derived_in_part(part) {
        Some(derived) => std::borrow::Cow::Owned([&part[..derived.start], &part[derived.end..]].concat()),
        None => std::borrow::Cow::Borrowed(part),
    }
}

/// Conflict markers where the two renderings of a merge differ, object by object where the
/// codec cuts its texts into parts ([`Codec::parts`]): the parts are aligned by name, a part
/// both hold is marked line by line inside it, and parts only one rendering holds (an object
/// one side deleted and the other kept) are marked whole, as one region. A line diff of the
/// whole texts would align lines of two different objects that look alike, and cut them into
/// many small regions (137 for two deleted game objects), whose sides, taken one by one,
/// mix the lines of two objects.
fn mark_parts<C: Codec>(codec: &C, ours: &[u8], theirs: &[u8], style: &MarkerStyle) -> crate::text::MarkedText {
    let (Some(ours_parts), Some(theirs_parts)) = (codec.parts(ours), codec.parts(theirs)) else {
        return mark_differences(ours, theirs, style);
    };
    let mut marked = crate::text::MarkedText { text: Vec::with_capacity(ours.len() + 64), conflicts: 0 };
    let mut append = |m: crate::text::MarkedText| {
        marked.text.extend_from_slice(&m.text);
        marked.conflicts += m.conflicts;
    };
    let joined = |parts: &[&[u8]]| parts.concat();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &part_names(codec, &ours_parts), &part_names(codec, &theirs_parts)) {
        match op {
            similar::DiffOp::Equal { old_index, new_index, len } => {
                for (o, t) in ours_parts[old_index..old_index + len].iter().zip(&theirs_parts[new_index..new_index + len]) {
                    append(if o == t { crate::text::MarkedText { text: o.to_vec(), conflicts: 0 } } else { mark_differences(o, t, style) });
                }
            }
            other => {
                let (o, t) = (other.old_range(), other.new_range());
                append(mark_difference_whole(&joined(&ours_parts[o]), &joined(&theirs_parts[t]), style));
            }
        }
    }
    marked
}

/// Conflict markers where ours' and theirs' sides of a merge's conflicts write it differently.
fn mark_views<C: Codec>(codec: &C, ours: &[u8], theirs: &[u8], style: &MarkerStyle) -> crate::text::MarkedText {
    if codec.conflicts_in_one_region(ours, theirs) {
        mark_difference_whole(ours, theirs, style)
    } else {
        mark_parts(codec, ours, theirs, style)
    }
}

/// The texts of a merge: as merged (ids made to agree), and as given.
#[derive(Clone, Copy)]
struct Versions<'t> {
    inputs: Sides<&'t [u8]>,
    originals: Sides<&'t [u8]>,
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
    let Versions { inputs, originals } = versions;
    if merged.open_conflicts() > 0 {
        return Ok((finish(codec.render(docs, &merged.resolve(Side::Ours)))?, Vec::new()));
    }
    if codec.checks_output() {
        // The written text is read back and checked against the inputs in the file's own
        // form: the fullest account, so the model is not checked first.
        return keep_deleted_while_broken(merged, |m| {
            let text = finish(codec.render(docs, &m.resolve(Side::Ours)))?;
            let problems = verify_output(codec, &text, inputs, originals)?;
            Ok((problems, text))
        })
        .map(|(problems, text)| (text, problems));
    }
    let with_refs = merged.references;
    let (problems, view) = keep_deleted_while_broken(merged, |m| {
        let view = m.resolve(Side::Ours);
        Ok((model_problems(codec, &view, with_refs, levels, versions)?, view))
    })?;
    clock.lap("check");
    Ok((finish(codec.render(docs, &view))?, problems))
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
    let Versions { inputs, originals } = versions;
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

/// The objects a merged level still needs (a reference names them, or a child's parent) that
/// base has and a side deleted, and that are not contested yet. A side whose own version still
/// needs an object it deleted was broken before the merge: its deletion is not contested.
fn deleted_yet_used(problems: &[Problem], levels: &Sides<Level<'_>>, contested: &FxHashSet<ObjectId>) -> FxHashSet<ObjectId> {
    let needed = |p: &Problem| match p {
        Problem::DanglingReference { target, .. } => Some(target.clone()),
        Problem::Orphan { parent, .. } => Some(parent.clone()),
        _ => None,
    };
    let wanted: FxHashSet<ObjectId> =
        problems.iter().filter_map(needed).filter(|id| levels.base.get(id).is_some() && !contested.contains(id)).collect();
    if wanted.is_empty() {
        return wanted;
    }
    let deleted_by = |side: &Level<'_>| -> FxHashSet<ObjectId> {
        let still_needed: FxHashSet<ObjectId> = side.problems().iter().filter_map(needed).collect();
        wanted.iter().filter(|id| side.get(id).is_none() && !still_needed.contains(*id)).cloned().collect()
    };
    let mut deleted = deleted_by(&levels.ours);
    deleted.extend(deleted_by(&levels.theirs));
    deleted
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
fn merge_structured_views<C>(
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
        concurrent_insertions: match options.concurrent_insertions {
            crate::merge::ConcurrentInsertions::KeptEverywhere => codec.concurrent_insertions(docs.as_ref()),
            chosen => chosen,
        },
        empty_values: if options.empty_values.is_empty() { codec.empty_values() } else { options.empty_values },
        contested: options.contested.clone(),
    };
    let doc_refs = docs.as_ref();
    let inputs = if restores { originals } else { texts };
    // A merge that leaves a reference to an object one side deleted is merged again with that
    // deletion contested (a delete/modify conflict), as many times as it finds new ones.
    let (merged, ours_text, result_problems) = loop {
        let mut merged = merge(levels.as_ref(), &options);
        clock.lap("merge");
        match write_checked(codec, &mut merged, doc_refs, &levels, Versions { inputs, originals }, &finish, &mut clock) {
            Ok((text, problems)) => break (merged, text, problems),
            Err(MergeError::Incoherent { problems }) => {
                let deleted = deleted_yet_used(&problems, &levels, &options.contested);
                if deleted.is_empty() {
                    return Err(MergeError::Incoherent { problems });
                }
                options.contested.extend(deleted);
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
    clock.lap(if open == 0 && codec.checks_output() { "write and verify" } else { "write" });
    let mut notes: Vec<String> = renumbered.as_ref().map(|r| r.notes.clone()).unwrap_or_default();
    // A note names its object as people see it, where its place is known.
    notes.extend(merged.notes.iter().map(|n| match path_of(&n.object) {
        None => format!("{}: {}", n.object, n.message),
        Some(path) if path.is_empty() => format!("the file: {}", n.message),
        Some(path) => format!("{} ({}): {}", path.join("/"), n.object, n.message),
    }));
    let conflicts = values_as_written(codec, report(&merged, path_of));
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
        let versions = Versions { inputs, originals };
        let problems = if codec.checks_output() {
            verify_output(codec, &marked.text, inputs, originals)?
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

/// Everything wrong with one text: leftover markers, syntax, duplicate ids, dangling
/// references, orphans, cycles.
pub fn check_text<C: Codec>(codec: &C, text: &[u8]) -> Vec<Problem> {
    let text = crate::text::without_bom(text);
    let mut problems: Vec<Problem> = marker_lines(text).into_iter().map(|line| Problem::ConflictMarker { line }).collect();
    let doc = match codec.parse(text) {
        Ok(doc) => doc,
        Err(p) => {
            if !problems.iter().any(|m| m.line() == p.line()) {
                problems.push(p);
            }
            return problems;
        }
    };
    match codec.lower(&doc, Side::Ours, &[]) {
        Ok(level) => {
            let own = level.problems();
            // The codec's checks may name again, without its property, a reference the
            // level's own check named: it is said once.
            let more: Vec<Problem> =
                codec.level_problems(&doc, &level).into_iter().filter(|p| !repeats_a_missing_target(p, &own)).collect();
            problems.extend(own);
            problems.extend(more);
        }
        Err(ps) => problems.extend(ps),
    }
    problems
}

/// Whether `problem` is a reference without its property to a missing object that one of
/// `named` already names from the same object.
fn repeats_a_missing_target(problem: &Problem, named: &[Problem]) -> bool {
    let Problem::DanglingReference { object, path, target, .. } = problem else { return false };
    path.is_empty()
        && named.iter().any(|n| matches!(n, Problem::DanglingReference { object: o, target: t, .. } if o == object && t == target))
}

/// The semantic differences between two texts.
pub fn diff_texts<C: Codec>(codec: &C, old: &[u8], new: &[u8]) -> Result<DiffReport, MergeError> {
    let (old, new) = (crate::text::without_bom(old), crate::text::without_bom(new));
    // A format whose references are positions is compared in its identity form, so that an
    // insertion is one change rather than a renumbering of everything after it.
    let identity_form = codec.renumber(Sides::new(old, old, new)).filter(|r| r.restore);
    let (old, new) = match &identity_form {
        Some(r) => (r.base.as_deref().unwrap_or(old), r.theirs.as_deref().unwrap_or(new)),
        None => (old, new),
    };
    let (a, b) = (parse(codec, Side::Base, old, &[new])?, parse(codec, Side::Theirs, new, &[old])?);
    let (la, lb) = (read(codec, Side::Base, &a, &[])?, read(codec, Side::Theirs, &b, &[])?);
    Ok(DiffReport::new(diff(&la, &lb), &codec.outline(&la), &codec.outline(&lb)))
}

/// The object a line of a text belongs to, as people see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub id: ObjectId,
    pub kind: String,
    pub path: Vec<String>,
}

/// The object each of `lines` (1-based) falls in: the last object that starts at or before it.
pub fn locate_lines<C: Codec>(codec: &C, text: &[u8], lines: &[usize]) -> Result<Vec<Option<Located>>, MergeError> {
    let doc = parse(codec, Side::Ours, crate::text::without_bom(text), &[])?;
    let level = read(codec, Side::Ours, &doc, &[])?;
    let outline = codec.outline(&level);
    let mut starts: Vec<(usize, &crate::model::Object<'_>)> = level.objects.values().map(|o| (o.line as usize, o)).collect();
    starts.sort_by_key(|(line, _)| *line);
    Ok(lines
        .iter()
        .map(|&line| {
            let at = starts.partition_point(|(start, _)| *start <= line);
            let (_, obj) = starts.get(at.checked_sub(1)?)?;
            Some(Located { id: obj.id.clone(), kind: obj.kind.clone(), path: outline.path(&obj.id) })
        })
        .collect())
}

/// The hierarchy paths of some objects of a text, read whole ([`Codec::object_paths`] for a
/// codec whose parts hold too little to name their objects, where the whole is cheap to
/// read); `None` for an object the text does not have, all `None` for an unreadable text.
pub fn paths_in_whole_text<C: Codec>(codec: &C, text: &[u8], ids: &[&str]) -> Vec<Option<Vec<String>>> {
    let whole = || -> Result<Vec<Option<Vec<String>>>, MergeError> {
        let doc = parse(codec, Side::Ours, crate::text::without_bom(text), &[])?;
        let level = read(codec, Side::Ours, &doc, &[])?;
        let outline = codec.outline(&level);
        Ok(ids.iter().map(|id| ObjectId::new((*id).to_owned())).map(|id| outline.kind(&id).is_some().then(|| outline.path(&id))).collect())
    };
    whole().unwrap_or_else(|_| vec![None; ids.len()])
}

/// The objects people see in a text (a Unity component is part of its game object), in file
/// order, with their hierarchy paths.
pub fn outline_objects<C: Codec>(codec: &C, text: &[u8]) -> Result<Vec<Located>, MergeError> {
    let doc = parse(codec, Side::Ours, crate::text::without_bom(text), &[])?;
    let level = read(codec, Side::Ours, &doc, &[])?;
    let outline = codec.outline(&level);
    Ok(level
        .objects
        .values()
        .filter(|o| outline.holder(&o.id) == &o.id)
        .map(|o| Located { id: o.id.clone(), kind: outline.kind(&o.id).unwrap_or(&o.kind).to_owned(), path: outline.path(&o.id) })
        .collect())
}

/// A codec behind a trait object: what the command line needs, whatever the format.
pub trait Engine {
    fn format_name(&self) -> &'static str;
    fn merge(&self, texts: Sides<&[u8]>, options: &Options, style: &MarkerStyle) -> Result<MergeOutcome, MergeError>;
    fn check(&self, text: &[u8]) -> Vec<Problem>;
    fn diff(&self, old: &[u8], new: &[u8]) -> Result<DiffReport, MergeError>;
    fn locate(&self, text: &[u8], lines: &[usize]) -> Result<Vec<Option<Located>>, MergeError>;
    fn objects(&self, text: &[u8]) -> Result<Vec<Located>, MergeError>;
}

impl<C> Engine for C
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    fn format_name(&self) -> &'static str {
        self.name()
    }
    fn merge(&self, texts: Sides<&[u8]>, options: &Options, style: &MarkerStyle) -> Result<MergeOutcome, MergeError> {
        merge_texts(self, texts, options, style)
    }
    fn check(&self, text: &[u8]) -> Vec<Problem> {
        check_text(self, text)
    }
    fn diff(&self, old: &[u8], new: &[u8]) -> Result<DiffReport, MergeError> {
        diff_texts(self, old, new)
    }
    fn locate(&self, text: &[u8], lines: &[usize]) -> Result<Vec<Option<Located>>, MergeError> {
        locate_lines(self, text, lines)
    }
    fn objects(&self, text: &[u8]) -> Result<Vec<Located>, MergeError> {
        outline_objects(self, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_merged_capacity_holds_both_sides_growth() {
        // Ours grew by 20 and theirs by 50: a merge of both is 170 long.
        assert!(merged_capacity(Sides::new(100, 120, 150)) >= 170);
        // Theirs shrank: ours' length is still needed.
        assert!(merged_capacity(Sides::new(5_000_000, 5_000_100, 10)) >= 5_000_100);
    }
}
