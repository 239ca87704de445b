//! Conflict regions written as git conflict markers, read back from a text and settled one by
//! one: what `levelmerge resolve` works on, whoever wrote the markers (levelmerge, git's own
//! line merge, diff3 style with a base section).

use std::ops::Range;

use crate::side::Side;

/// One `<<<<<<< … ======= … >>>>>>>` region: byte ranges of its whole text and of each side's
/// lines (without the marker lines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// 1-based line of the `<<<<<<<` marker.
    pub line: usize,
    pub whole: Range<usize>,
    pub ours: Range<usize>,
    /// The `|||||||` section of the diff3 style, if there is one.
    pub base: Option<Range<usize>>,
    pub theirs: Range<usize>,
}

/// How a region is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    Side(Side),
    /// Ours' lines, then theirs' (for lists both sides added to).
    Both,
}

impl Region {
    /// A side's lines, if the region has them (only the diff3 style has base's).
    pub fn text<'t>(&self, text: &'t [u8], side: Side) -> Option<&'t [u8]> {
        let range = match side {
            Side::Base => self.base.clone()?,
            Side::Ours => self.ours.clone(),
            Side::Theirs => self.theirs.clone(),
        };
        Some(&text[range])
    }

    /// What the region becomes; `None` when it asks for base and the region has none.
    pub fn settled(&self, text: &[u8], take: Take) -> Option<Vec<u8>> {
        Some(match take {
            Take::Side(side) => self.text(text, side)?.to_vec(),
            Take::Both => [&text[self.ours.clone()], &text[self.theirs.clone()]].concat(),
        })
    }
}

/// A marker line: its character repeated at least 7 times, then a space or the line's end.
fn marker(line: &[u8], c: u8) -> bool {
    let run = line.iter().take_while(|&&x| x == c).count();
    run >= 7 && matches!(line.get(run), None | Some(b' ' | b'\r' | b'\n'))
}

/// The conflict regions of `text`, in order. An unfinished region (a `<<<<<<<` without its
/// `=======` or `>>>>>>>`) is an error naming its line: such a file cannot be settled safely.
pub fn conflict_regions(text: &[u8]) -> Result<Vec<Region>, String> {
    #[derive(Clone, Copy)]
    enum At {
        Outside,
        Ours,
        Base,
        Theirs,
    }
    let mut regions = Vec::new();
    let mut state = At::Outside;
    let (mut start, mut line_no, mut open_line) = (0, 0, 0);
    let (mut ours, mut base, mut theirs_start) = (0..0, None, 0);
    let mut section_start = 0;
    let mut offset = 0;
    for line in text.split_inclusive(|&b| b == b'\n') {
        line_no += 1;
        let end = offset + line.len();
        match state {
            At::Outside if marker(line, b'<') => {
                (start, open_line, section_start, base) = (offset, line_no, end, None);
                state = At::Ours;
            }
            At::Outside if marker(line, b'>') || marker(line, b'=') => {
                return Err(format!("line {line_no}: a conflict marker outside any conflict"));
            }
            At::Ours if marker(line, b'|') => {
                ours = section_start..offset;
                section_start = end;
                state = At::Base;
            }
            At::Ours | At::Base if marker(line, b'=') => {
                match state {
                    At::Ours => ours = section_start..offset,
                    _ => base = Some(section_start..offset),
                }
                theirs_start = end;
                state = At::Theirs;
            }
            At::Theirs if marker(line, b'>') => {
                regions.push(Region {
                    line: open_line,
                    whole: start..end,
                    ours: ours.clone(),
                    base: base.clone(),
                    theirs: theirs_start..offset,
                });
                state = At::Outside;
            }
            At::Ours | At::Base | At::Theirs if marker(line, b'<') => {
                return Err(format!("line {line_no}: a conflict opens inside the conflict of line {open_line}"));
            }
            _ => {}
        }
        offset = end;
    }
    match state {
        At::Outside => Ok(regions),
        _ => Err(format!("line {open_line}: the conflict that opens here is never closed")),
    }
}

/// `text` with the regions given a choice settled (`choices[i]` for `regions[i]`); the others
/// are left as they are.
pub fn settle(text: &[u8], regions: &[Region], choices: &[Option<Take>]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    for (region, choice) in regions.iter().zip(choices) {
        let Some(take) = choice else { continue };
        let settled =
            region.settled(text, *take).ok_or_else(|| format!("line {}: the conflict has no base section to take", region.line))?;
        out.extend_from_slice(&text[at..region.whole.start]);
        out.extend_from_slice(&settled);
        at = region.whole.end;
    }
    out.extend_from_slice(&text[at..]);
    Ok(out)
}

/// `text` with every region settled from `side`: that side's view of the file.
pub fn side_view(text: &[u8], regions: &[Region], side: Side) -> Result<Vec<u8>, String> {
    settle(text, regions, &vec![Some(Take::Side(side)); regions.len()])
}

/// The 1-based line each region starts at in the text where every region is replaced by its
/// `side` lines (that side's view, as a codec reads it).
pub fn lines_in_view(text: &[u8], regions: &[Region], side: Side) -> Vec<usize> {
    let count = |t: &[u8]| t.iter().filter(|&&b| b == b'\n').count();
    let mut removed = 0;
    regions
        .iter()
        .map(|r| {
            let line = r.line - removed;
            // The marker lines and the other sections are gone in the view.
            removed += count(&text[r.whole.clone()]) - r.text(text, side).map_or(0, count);
            line
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARKED: &str =
        "a\n<<<<<<< ours\nb1\n=======\nb2\n>>>>>>> theirs\nc\n<<<<<<< HEAD\nd1\n||||||| base\nd0\n=======\n>>>>>>> feature\ne\n";

    #[test]
    fn regions_are_read_with_their_sides() {
        let regions = conflict_regions(MARKED.as_bytes()).unwrap();
        assert_eq!(regions.len(), 2);
        let t = MARKED.as_bytes();
        assert_eq!((regions[0].line, regions[1].line), (2, 8));
        assert_eq!(regions[0].text(t, Side::Ours), Some(&b"b1\n"[..]));
        assert_eq!(regions[0].text(t, Side::Theirs), Some(&b"b2\n"[..]));
        assert_eq!(regions[0].text(t, Side::Base), None);
        assert_eq!(regions[1].text(t, Side::Base), Some(&b"d0\n"[..]));
        assert_eq!(regions[1].text(t, Side::Theirs), Some(&b""[..]));
    }

    #[test]
    fn settling_replaces_only_the_chosen_regions() {
        let t = MARKED.as_bytes();
        let regions = conflict_regions(t).unwrap();
        let all_ours = settle(t, &regions, &[Some(Take::Side(Side::Ours)), Some(Take::Side(Side::Ours))]).unwrap();
        assert_eq!(String::from_utf8(all_ours).unwrap(), "a\nb1\nc\nd1\ne\n");
        let mixed = settle(t, &regions, &[Some(Take::Both), None]).unwrap();
        assert!(String::from_utf8(mixed.clone()).unwrap().starts_with("a\nb1\nb2\nc\n<<<<<<< HEAD\n"));
        assert_eq!(conflict_regions(&mixed).unwrap().len(), 1);
        assert!(settle(t, &regions, &[Some(Take::Side(Side::Base)), None]).is_err(), "the first region has no base");
        assert_eq!(lines_in_view(t, &regions, Side::Ours), [2, 4]);
        assert_eq!(lines_in_view(t, &regions, Side::Theirs), [2, 4]);
    }

    #[test]
    fn broken_markers_are_refused_with_their_line() {
        assert!(conflict_regions(b"a\n<<<<<<< ours\nb\n").unwrap_err().starts_with("line 2:"));
        assert!(conflict_regions(b"a\n=======\nb\n").unwrap_err().starts_with("line 2:"));
        assert!(conflict_regions(b"<<<<<<< a\n<<<<<<< b\n").unwrap_err().starts_with("line 2:"));
        assert_eq!(
            conflict_regions(b"no markers\n======= is not one when inside text? no: it is\n").unwrap_err(),
            "line 2: a conflict marker outside any conflict"
        );
        assert!(conflict_regions(b"<<<<<<<< eight is fine too\nx\n========\ny\n>>>>>>>>\n").unwrap().len() == 1);
    }
}
