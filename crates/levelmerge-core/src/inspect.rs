//! What the command line asks of one text or two besides a merge: its problems, the semantic
//! differences between two, and the objects people see in it and where their lines are.

use crate::codec::{parse, read, Codec, MergeError};
use crate::coherence::Problem;
use crate::diff::{diff, DiffReport};
use crate::model::{Level, Lowered, ObjectId};
use crate::outline::Outline;
use crate::side::{Side, Sides};
use crate::text::marker_lines;

/// Everything wrong with one text: leftover markers, syntax, duplicate ids, dangling
/// references, orphans, cycles.
pub fn check_text<C: Codec>(codec: &C, text: &[u8]) -> Vec<Problem> {
    check_placed(codec, text).into_iter().map(|(problem, _)| problem).collect()
}

/// [`check_text`], each problem with the object its line falls in, as people see it, where the
/// text reads as a level (from the same reading: the text is read once).
pub fn check_placed<C: Codec>(codec: &C, text: &[u8]) -> Vec<(Problem, Option<Located>)> {
    let unplaced = |problems: Vec<Problem>| problems.into_iter().map(|p| (p, None)).collect();
    let text = crate::text::without_bom(text);
    let mut problems: Vec<Problem> = marker_lines(text).into_iter().map(|line| Problem::ConflictMarker { line }).collect();
    let doc = match codec.parse(text) {
        Ok(doc) => doc,
        Err(p) => {
            if !problems.iter().any(|m| m.line() == p.line()) {
                problems.push(p);
            }
            return unplaced(problems);
        }
    };
    // Objects the reading refused (a second one under one id) are reported, and the rest is
    // checked: a file broken twice shows both. A refused object is no object of the level read,
    // so its problem is told by its line alone.
    let (level, refused) = match codec.lower_for_check(&doc) {
        Ok(Lowered { level, mut refused, refused_objects }) => {
            refused.extend(level.missing_targets_of(&refused_objects));
            (level, refused)
        }
        Err(ps) => {
            problems.extend(ps);
            return unplaced(problems);
        }
    };
    let own = level.problems();
    // The codec's checks may name again, without its property, a reference the level's own
    // check named: it is said once.
    let more: Vec<Problem> = codec.level_problems(&doc, &level).into_iter().filter(|p| !repeats_a_missing_target(p, &own)).collect();
    problems.extend(own);
    problems.extend(more);
    if problems.is_empty() {
        return unplaced(refused);
    }
    let outline = codec.outline(&level);
    let lines: Vec<usize> = problems.iter().filter_map(Problem::line).collect();
    let mut objects = located(&level, &outline, &lines).into_iter();
    let placed = problems.into_iter().map(|p| {
        let at_line = p.line().and_then(|_| objects.next().flatten());
        // A problem naming its object is placed there: a line after an object's end (a
        // member of the file after its last object) is not in that object.
        let named = named_object(&p).and_then(|id| level.objects.get(id)).map(|o| located_object(o, &outline));
        (p, named.or(at_line))
    });
    refused.into_iter().map(|p| (p, None)).chain(placed).collect()
}

/// The object a problem names as the one holding it.
fn named_object(problem: &Problem) -> Option<&ObjectId> {
    match problem {
        Problem::Inconsistent { object, .. } | Problem::Orphan { object, .. } | Problem::DanglingReference { object, .. } => Some(object),
        _ => None,
    }
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
    Ok(located(&level, &codec.outline(&level), lines))
}

/// [`locate_lines`] in a level read already.
fn located(level: &Level<'_>, outline: &Outline, lines: &[usize]) -> Vec<Option<Located>> {
    let mut starts: Vec<(usize, &crate::model::Object<'_>)> = level.objects.values().map(|o| (o.line as usize, o)).collect();
    starts.sort_by_key(|(line, _)| *line);
    lines
        .iter()
        .map(|&line| {
            let at = starts.partition_point(|(start, _)| *start <= line);
            let (_, obj) = starts.get(at.checked_sub(1)?)?;
            Some(located_object(obj, outline))
        })
        .collect()
}

/// An object as people see it.
fn located_object(obj: &crate::model::Object<'_>, outline: &Outline) -> Located {
    Located { id: obj.id.clone(), kind: outline.kind(&obj.id).unwrap_or(&obj.kind).to_owned(), path: outline.path(&obj.id) }
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
