//! The boundary between the core and a file format: the [`Codec`] trait, what a merge of
//! texts returns, and [`Engine`], a codec behind a trait object. The pipelines that run
//! through a codec are in `text_merge` (merge), `splice` (parts merged apart) and `inspect`
//! (check, diff, outline). Nothing here reads or writes files.

use crate::coherence::Problem;
use crate::diff::DiffReport;
use crate::inspect::{check_placed, check_text, diff_texts, locate_lines, outline_objects, Located};
use crate::merge::Options;
use crate::model::{Level, Lowered};
use crate::outline::Outline;
use crate::resolve::Resolved;
use crate::side::{Side, Sides};
use crate::text::MarkerStyle;
use crate::text_merge::merge_texts;

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

    /// Whether a merged text reads as the format: what a clean merge checked on its model
    /// ([`Codec::checks_output`] false) is read back for, so that a fault in the writing is a
    /// refusal. By default the text is parsed; a codec may check its syntax alone.
    fn reads(&self, text: &[u8]) -> Result<(), Problem> {
        self.parse(text).map(|_| ())
    }

    /// [`Codec::reads`] for a merged text much of which is copied from `read`, a version this
    /// merge has read: a codec may leave unread the parts whose bytes `read` holds too, as they
    /// read already. By default the text is read whole.
    fn reads_like(&self, text: &[u8], _read: &Self::Document<'_>) -> Result<(), Problem> {
        self.reads(text)
    }

    /// The level a document holds. Problems that make matching by id impossible (duplicate ids
    /// or keys) are errors.
    ///
    /// `others` are the other versions this one is merged with, in side order (base, ours,
    /// theirs, without `side`'s own), or empty when a document is read alone. A codec may lower
    /// a part that is byte-identical in every version as one opaque value: nothing there can
    /// merge differently, and big unchanged levels read much faster.
    fn lower<'d>(&self, doc: &'d Self::Document<'_>, side: Side, others: &[&'d Self::Document<'_>]) -> Result<Level<'d>, Vec<Problem>>;

    /// The level a document read alone holds, for checking it: as [`Codec::lower`], but where
    /// lowering refuses objects and goes on past them, the rest with what it refused
    /// ([`Lowered`]). `Err` where nothing is left to check (the default, for any refusal).
    fn lower_for_check<'d, 's>(&self, doc: &'d Self::Document<'s>) -> Result<Lowered<'d>, Vec<Problem>> {
        let alone: &[&'d Self::Document<'s>] = &[];
        self.lower(doc, Side::Ours, alone).map(|level| Lowered { level, ..Lowered::default() })
    }

    /// Write a resolved level. `docs` are the documents the level's values were lowered from.
    fn render(&self, docs: Sides<&Self::Document<'_>>, level: &Resolved<'_>) -> Vec<u8>;

    /// The format's own rules a level breaks (beyond dangling references, orphans, cycles).
    /// `doc` is the document the level was lowered from alone ([`Codec::lower`] without other
    /// versions).
    fn level_problems(&self, _doc: &Self::Document<'_>, _level: &Level<'_>) -> Vec<Problem> {
        Vec::new()
    }

    /// [`Codec::level_problems`] of a merged `doc`, with those only the `versions` it was
    /// merged from tell: a node a reference of it names that a version makes and the merge
    /// lacks, where the merge alone cannot tell it is missing (a Godot connection to a node
    /// under an instanced scene). By default the level's own problems.
    fn merged_level_problems(&self, doc: &Self::Document<'_>, level: &Level<'_>, _versions: Sides<&[u8]>) -> Vec<Problem> {
        self.level_problems(doc, level)
    }

    /// Whether two versions of one part ([`Codec::parts`]) give every check of a text
    /// ([`Codec::lower`], [`Level::problems`](crate::model::Level::problems),
    /// [`Codec::level_problems`]) the same findings wherever they stand: a text holding one
    /// has the problems it would have holding the other. A conflict's two views differ only in
    /// such parts, and theirs' view is then not checked again once ours' view passed.
    fn checked_alike(&self, _a: &[u8], _b: &[u8]) -> bool {
        false
    }

    /// Whether a clean merge of `docs` is read back from the written file and checked against
    /// the format's own rules ([`Codec::level_problems`]) before it is returned.
    fn checks_output(&self, _docs: Sides<&Self::Document<'_>>) -> bool {
        false
    }

    /// The text cut into its objects' parts, in order, each from the line that names the
    /// object (its tag, its header) to the next such line, covering the whole text; `None`
    /// when the codec cannot cut it safely. A merge whose three versions name the same objects
    /// in the same order, each changed by one side at most, is then the base with each changed
    /// part taken from its side ([`merge_disjoint_parts`](crate::merge_disjoint_parts)): what the whole merge would write,
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
    /// from the rest of the texts merged ([`Codec::rules`]: a property the parent's kind
    /// makes volatile). The whole merge then decides. False by default.
    fn settled_in_context(&self, _conflicts: &[ConflictReport], _whole: &WholeTexts<'_>) -> bool {
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

    /// Whether a map of fields holds what its type declares (see
    /// [`Options::fields_fixed_by_type`]).
    fn fields_fixed_by_type(&self) -> bool {
        false
    }

    /// Members that hold a grid of numbers (see [`Options::grids`]).
    fn grids(&self, _docs: Sides<&Self::Document<'_>>) -> &'static [&'static str] {
        &[]
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

    /// A version written in a form the others are not (a header-less mapping where another
    /// version holds documents): no merge of objects means anything across two forms. The
    /// version, and why; the merge is then refused as if it could not be read, and made by
    /// lines. `None` by default.
    fn form_apart(&self, _versions: Sides<&[u8]>) -> Option<(Side, Problem)> {
        None
    }

    /// What a version wrote that the model leaves out (a comment) and `merged` lost although
    /// no side removed it: the version holding it, and where. The merge is then refused as if
    /// that version could not be matched by id, and made by lines. `None` by default.
    fn dropped_text(&self, _merged: &[u8], _versions: Sides<&[u8]>) -> Option<(Side, Problem)> {
        None
    }

    /// A conflict's value, read in the form of the codec's own that [`Codec::renumber`] wrote
    /// (`Renumbered::restore`), as the file writes it. As is by default.
    fn value_as_written(&self, value: String) -> String {
        value
    }

    /// Whether a merge made in the form of the codec's own ([`Codec::renumber`] with
    /// `Renumbered::restore`) is read back and checked in that form, against the versions in
    /// it, before [`Codec::restore`] turns it back: a form that names objects by identity where
    /// the file names them by position (a problem a version had keeps its name wherever the
    /// merge moved its object). `false` by default: the form is the file's but for what
    /// `restore` recomputes, and is checked turned back.
    fn checked_in_own_form(&self) -> bool {
        false
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

pub(crate) fn parse<'s, C: Codec>(codec: &C, side: Side, text: &'s [u8], others: &[&[u8]]) -> Result<C::Document<'s>, MergeError> {
    codec.parse_among(text, others).map_err(|problem| MergeError::Unreadable { side, problem })
}

pub(crate) fn read<'d, C: Codec>(
    codec: &C,
    side: Side,
    doc: &'d C::Document<'_>,
    others: &[&'d C::Document<'_>],
) -> Result<Level<'d>, MergeError> {
    codec.lower(doc, side, others).map_err(|problems| MergeError::Invalid { side, problems })
}

/// Bytes a text being written reserves beyond the length it is known to reach: room for a
/// few conflict markers and changed lines before the buffer has to grow (and be copied).
pub(crate) const TEXT_SLACK: usize = 4096;

/// Room to reserve for a merged text whose inputs are `lengths` long: ours plus what theirs
/// grew by, and a little slack. A merge that outgrows a buffer reallocates and copies it, and
/// on a scene of megabytes that costs more than the pages reserved and never written.
pub fn merged_capacity(lengths: Sides<usize>) -> usize {
    let grown = lengths.ours + lengths.theirs.saturating_sub(lengths.base);
    grown + grown / 64 + TEXT_SLACK
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

/// The whole texts of a merge whose parts are merged alone, with what a codec draws from them
/// ([`Codec::settled_in_context`]): drawn once, for all the parts (drawn again for each of a
/// thousand parts, a 1 MB scene's reading took seconds).
pub struct WholeTexts<'t> {
    texts: Sides<&'t [u8]>,
    drawn: std::sync::OnceLock<Box<dyn std::any::Any + Send + Sync>>,
}

impl<'t> WholeTexts<'t> {
    pub fn new(texts: Sides<&'t [u8]>) -> Self {
        WholeTexts { texts, drawn: std::sync::OnceLock::new() }
    }

    /// What `draw` gives of the texts, drawn on first use. `None` when an earlier use drew
    /// something of another type (a codec draws one kind of thing).
    pub fn drawn<T: std::any::Any + Send + Sync>(&self, draw: impl FnOnce(Sides<&'t [u8]>) -> T) -> Option<&T> {
        self.drawn.get_or_init(|| Box::new(draw(self.texts))).downcast_ref()
    }
}

/// A codec behind a trait object: what the command line needs, whatever the format.
pub trait Engine {
    fn format_name(&self) -> &'static str;
    fn merge(&self, texts: Sides<&[u8]>, options: &Options, style: &MarkerStyle) -> Result<MergeOutcome, MergeError>;
    fn check(&self, text: &[u8]) -> Vec<Problem>;
    fn check_placed(&self, text: &[u8]) -> Vec<(Problem, Option<Located>)>;
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
    fn check_placed(&self, text: &[u8]) -> Vec<(Problem, Option<Located>)> {
        check_placed(self, text)
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
