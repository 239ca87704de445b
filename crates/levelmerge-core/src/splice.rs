//! Merging a codec's texts part by part ([`crate::Codec::parts`]: Unity documents, Godot
//! sections, Cocos elements): a part only one side changed is taken as that side wrote it, a
//! part both changed is merged alone, and the merged parts are spliced in order. A conflict
//! left in a part is marked there, and the parts around it are copied.

use crate::codec::{merged_capacity, Codec, ConflictReport, WholeTexts, PARALLEL_FROM};
use crate::coherence::Problem;
use crate::merge::Options;
use crate::side::{Side, Sides};
use crate::text::{mark_difference_whole_into, mark_differences, mark_differences_into, MarkerStyle};
use crate::text_merge::{mark_views, merge_structured_views, verify_output, Clock, Versions};

/// The merge [`merge_texts`](crate::merge_texts) splices from the versions' parts, without its check of the
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
    let whole = WholeTexts::new(aligned);
    let spliced = splice_parts(codec, aligned, &|part| merge_part_alone(codec, part, &whole, &Options::default()))?;
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
pub(crate) type MergePart<'m> = dyn Fn(Sides<&[u8]>) -> Option<PartMerge> + 'm;

/// A part both sides changed, merged alone ([`merge_part_alone`]).
pub(crate) enum PartMerge {
    /// Merged cleanly: the part's text, and the conflicts a rule or the preference settled.
    Clean { text: Vec<u8>, settled: Vec<ConflictReport> },
    /// Left with conflicts: the part as ours' and theirs' sides of them write it.
    Open(OpenPart),
}

/// A part merged alone with conflicts left open (and maybe others settled).
pub(crate) struct OpenPart {
    pub(crate) ours: Vec<u8>,
    pub(crate) theirs: Vec<u8>,
    pub(crate) open: usize,
    pub(crate) conflicts: Vec<ConflictReport>,
}

/// Parts spliced ([`splice_parts`]), before the codec makes derived data true of the text
/// ([`Codec::spliced`]): the text with ours' side of every part left open, those parts with
/// where each stands in it, and the conflicts the parts merged cleanly settled.
pub(crate) struct Spliced {
    pub(crate) text: Vec<u8>,
    pub(crate) open_parts: Vec<(std::ops::Range<usize>, OpenPart)>,
    pub(crate) settled: Vec<ConflictReport>,
}

impl Spliced {
    /// The text with theirs' side of every part left open.
    fn theirs_text(&self) -> Vec<u8> {
        let mut text = Vec::with_capacity(self.text.len() + crate::codec::TEXT_SLACK);
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
pub(crate) fn splice_parts<C: Codec>(codec: &C, texts: Sides<&[u8]>, merge_part: &MergePart<'_>) -> Option<Spliced> {
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
                let named_by_both = || {
                    let theirs_named: rustc_hash::FxHashSet<&u64> = theirs_names.iter().collect();
                    ours_names.iter().any(|n| theirs_named.contains(n))
                };
                if moved(ours_names) || moved(theirs_names) || named_by_both() || last_end_changed_by(last, last_inserted_by).is_some() {
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
/// drawn from the rest of the texts merged (`whole`) settles a conflict ([`Codec::settled_in_context`]:
/// a rule on the children of a kind of node), nor where the merged part would not stand where
/// its versions stood ([`Codec::merged_part_stays`]): the whole merge decides those.
pub(crate) fn merge_part_alone<C>(codec: &C, part: Sides<&[u8]>, whole: &WholeTexts<'_>, options: &Options) -> Option<PartMerge>
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    if !codec.merges_parts_alone() {
        return None;
    }
    let (merged, views) = merge_structured_views(codec, part, None, options, &MarkerStyle::default(), Clock::default(), false).ok()?;
    if !merged.notes.is_empty() || codec.settled_in_context(&merged.conflicts, whole) {
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
    // Alike on both sides but for what is derived: the bytes of the side that changed the
    // first line (the object the derived data is written in: a part may hold more), ours' where
    // both did, as the whole merge writes that object from the source of the side that changed
    // it (and recounts alike).
    let first_line = |part: &'t [u8]| &part[..memchr::memchr(b'\n', part).map_or(part.len(), |i| i + 1)];
    let side = if o == t { changer(first_line(base), first_line(ours), first_line(theirs)).unwrap_or(side) } else { side };
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

/// What a splice writes: a [`MergeOutcome`] without its notes and timings.
#[derive(Default)]
pub(crate) struct SplicedOutcome {
    pub(crate) text: Vec<u8>,
    pub(crate) open_conflicts: usize,
    pub(crate) marked_regions: usize,
    pub(crate) conflicts: Vec<ConflictReport>,
    pub(crate) problems: Vec<Problem>,
}

/// A splice around parts merged alone with conflicts left open, marked as the whole merge
/// marks its own: each side's view of the conflicts spliced and checked like a clean splice
/// (a part one side deleted that the other's view still needs), then the two views compared
/// part by part. `None` where a view is broken or the views are written alike (the whole
/// merge decides those).
pub(crate) fn marked_splice<C: Codec + Sync>(
    codec: &C,
    spliced: Spliced,
    versions: Versions<'_>,
    style: &MarkerStyle,
) -> Option<SplicedOutcome> {
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
pub(crate) fn mark_parts<C: Codec>(codec: &C, ours: &[u8], theirs: &[u8], style: &MarkerStyle) -> crate::text::MarkedText {
    let (Some(ours_parts), Some(theirs_parts)) = (codec.parts(ours), codec.parts(theirs)) else {
        return mark_differences(ours, theirs, style);
    };
    // One writer for every part: regions of neighbouring parts that meet are one region.
    let mut marked = crate::text::Writer::new(ours, theirs, style);
    let joined = |parts: &[&[u8]]| parts.concat();
    for op in crate::sequence_diff::diff_ops(&part_names(codec, &ours_parts), &part_names(codec, &theirs_parts)) {
        match op {
            similar::DiffOp::Equal { old_index, new_index, len } => {
                for (o, t) in ours_parts[old_index..old_index + len].iter().zip(&theirs_parts[new_index..new_index + len]) {
                    if o == t {
                        marked.push_text(o);
                    } else {
                        mark_differences_into(&mut marked, o, t);
                    }
                }
            }
            other => {
                let (o, t) = (other.old_range(), other.new_range());
                mark_difference_whole_into(&mut marked, &joined(&ours_parts[o]), &joined(&theirs_parts[t]));
            }
        }
    }
    marked.finish()
}
