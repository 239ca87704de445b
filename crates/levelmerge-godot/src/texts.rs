//! Multi-line strings both sides edited (shader `code`, a script's `source_code`, a label's
//! `text`), merged line by line before the merge.
//!
//! Such a string is one value to the merge, so two edits of different lines of one shader
//! would be a conflict on the whole value. When the three versions of the string merge line by
//! line without overlap, ours and theirs are both given the merged string, and the merge takes
//! it as an edit both sides agree on. Overlapping edits are left alone: they stay one conflict
//! on the value. The string must be a plain string literal in all three versions, in a section
//! all three have (matched by identity, after resource ids and node moves were aligned).

use levelmerge_core::text::{merge_lines, MarkerStyle};
use levelmerge_core::{ObjectId, Renumbered, Sides};
use rustc_hash::FxHashMap;

use crate::lower::section_ids;
use crate::parse::{closing_quote, parse, GodotFile, Section};

/// The multi-line string values of `text`, as written (quotes included).
fn multiline_strings(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    memchr::memmem::find_iter(text, b" = \"").filter_map(|at| {
        let from = at + 4;
        let line_end = memchr::memchr(b'\n', &text[from..]).map_or(text.len(), |p| from + p);
        closing_quote(text, from).filter(|&q| q > line_end).map(|q| &text[from - 1..=q])
    })
}

/// Whether both sides may have edited one of base's multi-line strings: one that neither
/// side still has word for word. Most files have none, and are not parsed again.
fn both_may_have_edited_one(texts: Sides<&[u8]>) -> bool {
    let found = |hay: &[u8], needle: &[u8]| memchr::memmem::find(hay, needle).is_some();
    multiline_strings(texts.base).any(|v| !found(texts.ours, v) && !found(texts.theirs, v))
}

/// A plain string literal spanning lines (`"…\n…"`).
fn is_multiline_string(value: &str) -> bool {
    value.len() > 1 && value.starts_with('"') && value.ends_with('"') && value.contains('\n')
}

/// One version's sections by identity.
fn by_id<'f>(file: &'f GodotFile<'_>) -> FxHashMap<&'f ObjectId, &'f Section> {
    file.sections.iter().zip(section_ids(file)).filter_map(|(s, id)| Some((id.as_ref()?, s))).collect()
}

/// A section's property value, when the key is written once.
fn value_of<'s>(file: &GodotFile<'s>, s: &Section, key: &str) -> Option<(&'s str, (u32, u32))> {
    let mut found = file.props_of(s).iter().filter(|p| file.text(p.key) == key);
    let p = found.next()?;
    found.next().is_none().then(|| (file.text(p.value), p.value))
}

/// Ours and theirs given the line-merged string wherever both edited one without overlap;
/// `None` when there is no such string.
pub fn align(texts: Sides<&[u8]>) -> Option<Renumbered> {
    if texts.base == texts.ours || texts.base == texts.theirs || texts.ours == texts.theirs || !both_may_have_edited_one(texts) {
        return None;
    }
    let files = Sides::new(parse(texts.base).ok()?, parse(texts.ours).ok()?, parse(texts.theirs).ok()?);
    let (base, theirs) = (by_id(&files.base), by_id(&files.theirs));
    let style = MarkerStyle::default();
    let (mut ours_edits, mut theirs_edits) = (Vec::new(), Vec::new());
    let mut notes = Vec::new();
    for (os, id) in files.ours.sections.iter().zip(section_ids(&files.ours)) {
        let Some(id) = id else { continue };
        let (Some(&bs), Some(&ts)) = (base.get(id), theirs.get(id)) else { continue };
        for p in files.ours.props_of(os) {
            let (key, ours_value) = (files.ours.text(p.key), files.ours.text(p.value));
            // A key written twice in a section is left alone on either side, as which of its
            // values the merge keeps is not this string's to decide.
            if !is_multiline_string(ours_value) || value_of(&files.ours, os, key).is_none() {
                continue;
            }
            let (Some((base_value, _)), Some((theirs_value, theirs_span))) =
                (value_of(&files.base, bs, key), value_of(&files.theirs, ts, key))
            else {
                continue;
            };
            if !is_multiline_string(base_value) || !is_multiline_string(theirs_value) {
                continue;
            }
            if base_value == ours_value || base_value == theirs_value || ours_value == theirs_value {
                continue;
            }
            let merged = merge_lines(base_value.as_bytes(), ours_value.as_bytes(), theirs_value.as_bytes(), &style);
            let Ok(merged) = String::from_utf8(merged.text).map_err(drop).and_then(|m| if merged.conflicts == 0 { Ok(m) } else { Err(()) })
            else {
                continue;
            };
            if !is_multiline_string(&merged) || closing_quote(merged.as_bytes(), 1) != Some(merged.len() - 1) {
                continue;
            }
            notes.push(format!("{id} › {key}: both sides edited the text; their edits touch different lines and are merged line by line"));
            ours_edits.push((p.value.0 as usize, p.value.1 as usize, merged.clone()));
            theirs_edits.push((theirs_span.0 as usize, theirs_span.1 as usize, merged));
        }
    }
    // Two of ours' sections under one identity (a damaged file) reach one of theirs' strings
    // twice: which merged string it should hold is not known, so none is given.
    theirs_edits.sort_unstable_by_key(|e| e.0);
    if notes.is_empty() || theirs_edits.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    let splice = |file: &GodotFile<'_>, edits| Some(levelmerge_core::text::splice(file.src, edits).into_bytes());
    Some(Renumbered {
        base: None,
        ours: splice(&files.ours, ours_edits),
        theirs: splice(&files.theirs, theirs_edits),
        notes,
        restore: false,
    })
}
