//! Two independent accounts of what a merge must do with numbers people change: edits of
//! different lines by the two sides both land, byte for byte, and one number changed
//! differently by each side is never settled silently. The expected text is built here from
//! lines, not by the merge, so a merge that drops or misplaces an edit fails.

use crate::corpus::Scenario;
use crate::gen::Rng;
use levelmerge_core::{check_text, merge_texts, Codec, Options, Sides};

/// Words on a line whose numbers identify, count or place something rather than set a value:
/// ids and references (Unity's `fileID` and `guid`, Godot's resource ids and `unique_id`, JSON
/// `id`/`uid`/`iid`/`_eid`/`_id`, Cocos `__id__`, GDevelop `persistentUuid`), id counters
/// (`next…`), format versions, a prefab modification's `propertyPath`, counts the writer derives
/// (`load_steps`, `m_RootOrder`) and tiles, whose numbers are their place.
const NOT_VALUES: [&str; 23] = [
    "fileID",
    "guid",
    "__id__",
    "\"id\"",
    "uid",
    "Uid",
    "iid",
    "_eid",
    "\"_id\"",
    "persistentUuid",
    "next",
    "version",
    "Version",
    "format",
    "propertyPath",
    "load_steps",
    "m_RootOrder",
    "Resource(",
    "unique_id",
    "\"px\"",
    "\"t\":",
    "gid",
    "tile",
];

/// The byte ranges of the numbers on `line` that set a value: after the line's first `: ` or
/// ` = `, outside strings, on a line that is no tag or document header and names none of
/// [`NOT_VALUES`].
fn value_numbers(line: &str) -> Vec<std::ops::Range<usize>> {
    const LONGEST: usize = 400;
    let header = ["[", "--- ", "%"].iter().any(|h| line.starts_with(h));
    if header || line.len() > LONGEST || NOT_VALUES.iter().any(|w| line.contains(w)) {
        return Vec::new();
    }
    let Some(value) = [": ", " = "].iter().filter_map(|sep| line.find(sep).map(|at| at + sep.len())).min() else { return Vec::new() };
    let b = line.as_bytes();
    let part_of_word = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'#' | b'-');
    let mut out = Vec::new();
    let (mut i, mut in_string) = (value, false);
    while i < b.len() {
        match b[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            c if !in_string && (c.is_ascii_digit() || c == b'-') && (i == 0 || !part_of_word(b[i - 1])) => {
                let start = i;
                let mut end = i + usize::from(c == b'-');
                let digits = |e: &mut usize| {
                    let from = *e;
                    while *e < b.len() && b[*e].is_ascii_digit() {
                        *e += 1;
                    }
                    *e > from
                };
                if digits(&mut end) {
                    if b.get(end) == Some(&b'.') {
                        let mut fraction = end + 1;
                        if digits(&mut fraction) {
                            end = fraction;
                        }
                    }
                    if b.get(end).is_none_or(|&c| !part_of_word(c)) {
                        out.push(start..end);
                    }
                }
                i = end.max(i + 1);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// `number` plus `by`, written with as many decimals.
fn bumped(number: &str, by: i64) -> String {
    match number.split_once('.') {
        Some((_, decimals)) => format!("{:.*}", decimals.len(), number.parse::<f64>().unwrap_or(0.0) + by as f64),
        None => (number.parse::<i64>().unwrap_or(0) + by).to_string(),
    }
}

/// A text's lines (with their line ends), and for each the part it lies in where the codec
/// cuts the text into parts.
fn lines_and_parts<'t, C: Codec>(codec: &C, text: &'t str) -> (Vec<&'t str>, Option<Vec<usize>>) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let parts = codec.parts(text.as_bytes()).map(|parts| {
        let mut ends = parts.iter().scan(0, |at, p| {
            *at += p.len();
            Some(*at)
        });
        let (mut part, mut end, mut at) = (0, ends.next().unwrap_or(usize::MAX), 0);
        lines
            .iter()
            .map(|l| {
                while at >= end {
                    part += 1;
                    end = ends.next().unwrap_or(usize::MAX);
                }
                at += l.len();
                part
            })
            .collect()
    });
    (lines, parts)
}

/// The lines holding numbers of values ([`value_numbers`]): each line's index and numbers.
type EditableLines = Vec<(usize, Vec<std::ops::Range<usize>>)>;

fn editable_lines(lines: &[&str]) -> EditableLines {
    lines.iter().enumerate().map(|(i, l)| (i, value_numbers(l))).filter(|(_, numbers)| !numbers.is_empty()).collect()
}

/// `lines` with the number at `range` of line `at` changed by `by`.
fn with_edit(lines: &[&str], at: usize, range: &std::ops::Range<usize>, by: i64) -> String {
    let line = lines[at];
    let edited = format!("{}{}{}", &line[..range.start], bumped(&line[range.clone()], by), &line[range.end..]);
    lines.iter().enumerate().map(|(i, l)| if i == at { edited.as_str() } else { l }).collect()
}

/// The sound bases of `scenarios` (no problem the checks find), as text.
fn sound_bases<'s, C: Codec>(codec: &'s C, scenarios: &'s [Scenario]) -> impl Iterator<Item = (&'s Scenario, String)> + 's {
    scenarios.iter().filter_map(move |s| {
        let text = String::from_utf8(s.read("base")).ok()?;
        check_text(codec, text.as_bytes()).is_empty().then_some((s, text))
    })
}

/// Every sound scenario base, with one number of a value changed by ours and another by theirs
/// on lines of different parts (where the codec cuts no parts, three or more lines apart),
/// merges cleanly into the base with both changes, byte for byte. `per_file` pairs are tried
/// in each file, drawn by a seeded generator. Panics naming the scenario and the lines;
/// returns how many merges were checked.
pub fn check_disjoint_edits_compose<C>(codec: &C, scenarios: &[Scenario], per_file: usize) -> usize
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    let mut checked = 0;
    for (n, (s, text)) in sound_bases(codec, scenarios).enumerate() {
        let (lines, parts) = lines_and_parts(codec, &text);
        let editable = editable_lines(&lines);
        let apart = |i: usize, j: usize| match &parts {
            Some(parts) => parts[i] != parts[j],
            None => i.abs_diff(j) >= 3,
        };
        let mut rng = Rng::new(n as u64 + 1);
        for _ in 0..per_file {
            let Some((i, ri)) = editable.get(rng.below(editable.len() as u64) as usize) else { break };
            let others: Vec<_> = editable.iter().filter(|(j, _)| apart(*i, *j)).collect();
            let Some((j, rj)) = others.get(rng.below(others.len() as u64) as usize) else { continue };
            let (ri, rj) = (&ri[rng.below(ri.len() as u64) as usize], &rj[rng.below(rj.len() as u64) as usize]);
            let ours = with_edit(&lines, *i, ri, 7);
            let theirs = with_edit(&lines, *j, rj, 11);
            let both = with_edit(&ours.split_inclusive('\n').collect::<Vec<_>>(), *j, rj, 11);
            let merged = merge_texts(
                codec,
                Sides::new(text.as_bytes(), ours.as_bytes(), theirs.as_bytes()),
                &Options::default(),
                &Default::default(),
            )
            .unwrap_or_else(|e| panic!("{}: edits of lines {} and {} are refused: {e}", s.dir.display(), i + 1, j + 1));
            assert!(
                merged.open_conflicts == 0 && merged.text == both.as_bytes(),
                "{}: ours' edit of line {} and theirs' of line {} do not both land ({} conflicts)",
                s.dir.display(),
                i + 1,
                j + 1,
                merged.open_conflicts
            );
            checked += 1;
        }
    }
    checked
}

/// Every sound scenario base, with one number of a value changed differently by each side,
/// merges with a conflict, or settled by a rule the merge reports (a volatile value): never one
/// side's value taken in silence. `per_file` lines are tried in each file. Panics naming the
/// scenario and the line; returns how many merges were checked and how many of them a rule
/// settled.
pub fn check_clashing_edits_are_told<C>(codec: &C, scenarios: &[Scenario], per_file: usize) -> (usize, usize)
where
    C: Codec + Sync,
    for<'s> C::Document<'s>: Send + Sync,
{
    let (mut checked, mut settled) = (0, 0);
    for (n, (s, text)) in sound_bases(codec, scenarios).enumerate() {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let editable = editable_lines(&lines);
        let mut rng = Rng::new(n as u64 + 1);
        for _ in 0..per_file {
            let Some((i, ranges)) = editable.get(rng.below(editable.len() as u64) as usize) else { break };
            let range = &ranges[rng.below(ranges.len() as u64) as usize];
            let (ours, theirs) = (with_edit(&lines, *i, range, 7), with_edit(&lines, *i, range, 11));
            let merged = merge_texts(
                codec,
                Sides::new(text.as_bytes(), ours.as_bytes(), theirs.as_bytes()),
                &Options::default(),
                &Default::default(),
            )
            .unwrap_or_else(|e| panic!("{}: clashing edits of line {} are refused: {e}", s.dir.display(), i + 1));
            let told = merged.conflicts.iter().any(|c| c.resolved.is_some());
            assert!(
                merged.open_conflicts > 0 || told,
                "{}: both sides changed line {} differently and the merge took one in silence",
                s.dir.display(),
                i + 1
            );
            checked += 1;
            settled += usize::from(merged.open_conflicts == 0);
        }
    }
    (checked, settled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_numbers_of_values_outside_strings_are_editable() {
        let found = |line: &str| value_numbers(line).into_iter().map(|r| line[r].to_owned()).collect::<Vec<_>>();
        assert_eq!(found("  m_LocalPosition: {x: 1.5, y: -2, z: 0}"), ["1.5", "-2", "0"]);
        assert_eq!(found("position = Vector2(3, 4.25)"), ["3", "4.25"]);
        assert_eq!(found("bones/19/name = \"Pinky 2\""), Vec::<String>::new());
        assert_eq!(found("  - component: {fileID: 12}"), Vec::<String>::new());
        assert_eq!(found("\"name\": \"element (21).png\", \"x\": 7"), ["7"]);
        assert_eq!(found("[node name=\"A\" index=\"3\"]"), Vec::<String>::new());
        assert_eq!(found("size = 1e5"), Vec::<String>::new());
    }

    #[test]
    fn a_bumped_number_keeps_its_decimals() {
        assert_eq!(bumped("1.50", 7), "8.50");
        assert_eq!(bumped("-2", 11), "9");
    }
}
