//! The properties every codec's fuzz targets check (run with cargo-fuzz on nightly, in `fuzz/`),
//! kept here so that the inputs they find are replayed by the ordinary tests on stable.
//! Each function panics when a property fails, and only then.

use crate::codec::Engine;
use crate::text::MarkerStyle;
use crate::{Codec, MergeError, MergeOutcome, Options, Sides};

fn merge(engine: &impl Engine, texts: Sides<&[u8]>) -> Option<MergeOutcome> {
    engine.merge(texts, &Options::default(), &MarkerStyle::default()).ok()
}

/// Parsing never panics, and a file that parses is given back byte for byte by
/// `merge(f, f, f)`. Returns whether it parsed, so that a codec can check its layout too.
pub fn parse_round_trip<C: Codec + Engine>(codec: &C, data: &[u8]) -> bool {
    if codec.parse(data).is_err() {
        return false;
    }
    if let Some(merged) = merge(codec, Sides::new(data, data, data)) {
        assert_eq!(merged.text, data, "merge(f, f, f) changed the file");
    }
    true
}

/// Three versions cut from one input at `0xFF` bytes (which UTF-8 text never holds): merging
/// never panics; a clean merge is a file that parses and has no problem that none of the
/// inputs had (as they are, or with ids renumbered by [`Codec::renumber`], which may carry a
/// problem over under a new id); a merge of sound versions spliced from their parts writes what
/// the whole merge writes; `merge(b, o, b)` gives `o` back.
pub fn merge_three<C>(codec: &C, data: &[u8])
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    merge_three_naming(codec, data, &|_, problem| vec![finding(problem)]);
}

/// [`merge_three`], telling a new problem from one an input had by the names `named` gives a
/// problem of a text (a problem is new when none of its names is one of an input's problem):
/// a codec whose problems name objects by their position in the file (which an insertion
/// before them moves) names them otherwise too.
pub fn merge_three_naming<C>(codec: &C, data: &[u8], named: &dyn Fn(&[u8], &crate::Problem) -> Vec<String>)
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    let mut parts = data.splitn(3, |&b| b == 0xFF);
    let (base, ours, theirs) = (parts.next().unwrap_or(b""), parts.next().unwrap_or(b""), parts.next().unwrap_or(b""));
    if let Some(merged) = merge(codec, Sides::new(base, ours, theirs)) {
        // Promised of sound versions: a broken one (a scene without its root) may be read
        // one way by the whole merge and left as it was by the splice.
        if merged.spliced && [base, ours, theirs].iter().all(|t| codec.check(t).is_empty()) {
            spliced_as_whole(codec, Sides::new(base, ours, theirs), &merged);
        }
        if merged.open_conflicts == 0 {
            assert!(codec.parse(&merged.text).is_ok(), "a clean merge that does not parse");
            let renumbered = codec.renumber(Sides::new(base, ours, theirs));
            let renumbered = renumbered.iter().flat_map(|r| [r.base.as_deref(), r.ours.as_deref(), r.theirs.as_deref()]).flatten();
            let inputs = [base, ours, theirs].into_iter().chain(renumbered);
            let known: Vec<String> = inputs.flat_map(|t| codec.check(t).into_iter().flat_map(|p| named(t, &p))).collect();
            let new: Vec<Vec<String>> = codec
                .check(&merged.text)
                .iter()
                .map(|p| named(&merged.text, p))
                .filter(|names| !names.iter().any(|n| known.contains(n)))
                .collect();
            assert!(new.is_empty(), "new problems in a clean merge: {new:?}");
        }
    }
    if codec.parse(base).is_ok() && codec.parse(ours).is_ok() {
        if let Some(merged) = merge(codec, Sides::new(base, ours, base)) {
            assert_eq!(merged.text, ours, "merge(b, o, b) is not o");
        }
    }
}

/// What a problem finds, for telling a new one from one an input had: a dangling reference is
/// one finding whichever property holds it (a value holding several references is checked by
/// the codec, which names no property).
pub fn finding(problem: &crate::Problem) -> String {
    match problem {
        crate::Problem::DanglingReference { object, target, .. } => format!("dangling {object} {target}"),
        other => other.key(),
    }
}

/// A spliced merge writes what reading every object writes: the same text, the same number of
/// conflicts left open. The differences allowed: the whole merge leaves open a conflict the
/// splice never sees (both sides deleted an object and one added another under its name, one
/// object for the whole merge, two for the splice), or refuses a version it cannot read.
fn spliced_as_whole<C>(codec: &C, texts: Sides<&[u8]>, spliced: &MergeOutcome)
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    let whole = match crate::text_merge::merge_objects(codec, texts, &Options::default(), &MarkerStyle::default()) {
        Ok(whole) => whole,
        // A version the splice never read whole (its broken bytes in a part the other side
        // replaced): the spliced text was read back and checked.
        Err(MergeError::Unreadable { .. } | MergeError::Invalid { .. }) => return,
        Err(e) => panic!("the whole merge failed where the splice did not: {e}"),
    };
    if spliced.open_conflicts == 0 && whole.open_conflicts > 0 {
        return;
    }
    assert_eq!(spliced.open_conflicts, whole.open_conflicts, "the spliced merge left other conflicts open than the whole merge");
    assert!(spliced.text == whole.text, "the spliced merge differs from the whole merge");
}
