//! Line-based text: the 3-way line merge used when a file cannot be merged structurally, the
//! conflict markers written around conflicting regions, and the detection of leftover markers.

use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;

use similar::DiffOp;

use crate::diff3::{diff3, Chunk, Take};
use crate::{Side, Sides};

/// How conflict markers look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkerStyle {
    /// Marker length (git's `%L`, 7 by default).
    pub size: usize,
    pub ours_label: String,
    pub theirs_label: String,
}

impl Default for MarkerStyle {
    fn default() -> Self {
        MarkerStyle { size: 7, ours_label: "ours".into(), theirs_label: "theirs".into() }
    }
}

/// Text with conflict markers, and how many conflict regions it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkedText {
    pub text: Vec<u8>,
    pub conflicts: usize,
}

/// `src` with each byte range `[start, end)` replaced by its text (ranges must not overlap);
/// codecs use it to rewrite ids in place.
pub fn splice(src: &str, mut edits: Vec<(usize, usize, String)>) -> String {
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(src.len() + edits.len() * 4);
    let mut at = 0;
    for (start, end, text) in edits {
        out.push_str(&src[at..start]);
        out.push_str(&text);
        at = end;
    }
    out.push_str(&src[at..]);
    out
}

/// Lines including their terminators, so that joining them gives the text back exactly.
pub fn lines(text: &[u8]) -> Vec<&[u8]> {
    text.split_inclusive(|&b| b == b'\n').collect()
}

/// For each version, the byte ranges made of whole lines that all three versions hold alike
/// at one place of their 3-way alignment (diff3's stable stretches, their bytes compared), in
/// order. A value lying inside one is the same, byte for byte, in every version.
///
/// Short lines repeat (`}`, `"tags": []`), and a diff may align a run of them with a copy
/// elsewhere (an object the other side moved): a stretch counts only when it holds a line that
/// each version has once, which can only be aligned with itself.
pub fn stable_spans(texts: Sides<&[u8]>) -> Sides<ByteRanges> {
    // Big texts are hashed and diffed on several threads.
    let parallel = texts.base.len() + texts.ours.len() + texts.theirs.len() > crate::codec::PARALLEL_FROM;
    let lines = crate::codec::on_each_side(parallel, texts, |_, t| line_table(t));
    let bytes = |s: Side, r: &std::ops::Range<usize>| lines.get(s).0[r.start]..lines.get(s).0[r.end];
    // How often each line of base occurs in each version (2: more than once); an anchor is a
    // base line, so the sides' other lines need no counting.
    let mut occurs: rustc_hash::FxHashMap<u64, [u8; 3]> = rustc_hash::FxHashMap::default();
    occurs.reserve(lines.base.1.len());
    for &h in &lines.base.1 {
        let n = &mut occurs.entry(h).or_default()[0];
        *n = (*n + 1).min(2);
    }
    for (i, side) in [(1, &lines.ours.1), (2, &lines.theirs.1)] {
        for h in side {
            if let Some(n) = occurs.get_mut(h) {
                n[i] = (n[i] + 1).min(2);
            }
        }
    }
    let anchored = |base: &std::ops::Range<usize>| lines.base.1[base.clone()].iter().any(|h| occurs.get(h) == Some(&[1, 1, 1]));
    let mut stretches: Vec<Sides<std::ops::Range<usize>>> = Vec::new();
    for chunk in crate::diff3::diff3_windowed(&lines.base.1, &lines.ours.1, &lines.theirs.1) {
        let Chunk::Stable { base, ours, theirs } = chunk else { continue };
        if !anchored(&base) {
            continue;
        }
        let ranges = Sides::new(bytes(Side::Base, &base), bytes(Side::Ours, &ours), bytes(Side::Theirs, &theirs));
        let text = |s: Side| &texts.get(s)[ranges.get(s).clone()];
        if text(Side::Base).is_empty() {
            continue;
        }
        // Equal hashes are trusted only once the bytes agree.
        if text(Side::Base) != text(Side::Ours) || text(Side::Base) != text(Side::Theirs) {
            continue;
        }
        match stretches.last_mut() {
            // Stable stretches that meet in every version are one.
            Some(last) if [Side::Base, Side::Ours, Side::Theirs].iter().all(|&s| last.get(s).end == ranges.get(s).start) => {
                last.base.end = ranges.base.end;
                last.ours.end = ranges.ours.end;
                last.theirs.end = ranges.theirs.end;
            }
            _ => stretches.push(ranges),
        }
    }
    Sides::new((), (), ()).map(|side, ()| stretches.iter().map(|r| (r.get(side).start as u32, r.get(side).end as u32)).collect())
}

/// Byte ranges `[start, end)` of a text, in order.
pub type ByteRanges = Vec<(u32, u32)>;

/// The byte ranges made of whole lines that `a` and `b` hold alike, paired in order: `a`'s and
/// `b`'s, of equal lengths and bytes. [`stable_spans`] for two texts, without its anchoring: for
/// a reader to whom any bytes held alike will do (a syntax read once need not be read again).
pub fn equal_line_spans(a: &[u8], b: &[u8]) -> (ByteRanges, ByteRanges) {
    let ((starts_a, hashes_a), (starts_b, hashes_b)) = (line_table(a), line_table(b));
    let pairs = crate::diff3::windowed_alignment(&hashes_a, &hashes_b);
    let (mut spans_a, mut spans_b) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < pairs.len() {
        let Some(first) = pairs[i] else {
            i += 1;
            continue;
        };
        // A run of lines paired one after another.
        let run_start = i;
        while pairs.get(i + 1).copied().flatten() == Some(first + (i + 1 - run_start)) {
            i += 1;
        }
        let (range_a, range_b) = (starts_a[run_start]..starts_a[i + 1], starts_b[first]..starts_b[first + i + 1 - run_start]);
        // Equal hashes are trusted only once the bytes agree.
        if a[range_a.clone()] == b[range_b.clone()] {
            spans_a.push((range_a.start as u32, range_a.end as u32));
            spans_b.push((range_b.start as u32, range_b.end as u32));
        }
        i += 1;
    }
    (spans_a, spans_b)
}

/// Where each line of `text` starts (and, last, where the text ends), and each line's hash.
fn line_table(text: &[u8]) -> (Vec<usize>, Vec<u64>) {
    let mut starts = Vec::with_capacity(text.len() / 32 + 2);
    starts.push(0);
    starts.extend(memchr::memchr_iter(b'\n', text).map(|i| i + 1));
    if *starts.last().expect("one start") != text.len() {
        starts.push(text.len());
    }
    let hashes = starts.windows(2).map(|w| line_hash(&text[w[0]..w[1]])).collect();
    (starts, hashes)
}

pub(crate) fn line_hash(line: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    line.hash(&mut h);
    h.finish()
}

fn hashes(lines: &[&[u8]]) -> Vec<u64> {
    lines.iter().map(|l| line_hash(l)).collect()
}

/// Writes a marked text: common lines, and conflict regions. A region is held until a common
/// line follows it, so that a region of blank lines that meets another (the end of a section
/// beside an object one side lacks) is written as one with it.
pub(crate) struct Writer<'s> {
    out: Vec<u8>,
    style: &'s MarkerStyle,
    conflicts: usize,
    /// The file's line ending, used for the marker lines too.
    eol: &'static [u8],
    /// The region being written: ours' lines and theirs'.
    region: Option<(Vec<u8>, Vec<u8>)>,
}

/// The UTF-8 byte order mark some Windows tools put before a text.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `text` without a leading byte order mark.
pub fn without_bom(text: &[u8]) -> &[u8] {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// Whether the merge of `[base, ours, theirs]` starts with a byte order mark, when any of them
/// does: a mark is no content, so the side that added or removed one has its way, else the
/// result has one as both sides do.
pub fn merged_bom(texts: [&[u8]; 3]) -> Option<bool> {
    let [base, ours, theirs] = texts.map(|t| t.starts_with(BOM));
    (base || ours || theirs).then_some(if ours == base { theirs } else { ours })
}

/// Make a merge of `[base, ours, theirs]` end its last line as the side that changed that
/// wants (else as both do): a missing or added final line end is no content, and a line merge
/// keeps it so too.
pub fn settle_final_line_end(merged: &mut Vec<u8>, texts: [&[u8]; 3]) {
    let [base, ours, theirs] = texts.map(|t| t.ends_with(b"\n"));
    let wanted = if ours == base { theirs } else { ours };
    match (merged.ends_with(b"\n"), wanted) {
        (true, false) => {
            merged.pop();
            if merged.ends_with(b"\r") {
                merged.pop();
            }
        }
        (false, true) if !merged.is_empty() => merged.extend_from_slice(line_ending(merged, b"")),
        _ => {}
    }
}

/// How a text ends its lines, when it ends them all one way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnds {
    Lf,
    Crlf,
}

/// The line ends of a text; `None` with no line end or a mix of both.
pub fn line_ends(text: &[u8]) -> Option<LineEnds> {
    let lf = text.iter().filter(|&&b| b == b'\n').count();
    let crlf = text.windows(2).filter(|w| w == b"\r\n").count();
    match (lf, crlf) {
        (0, _) => None,
        (_, 0) => Some(LineEnds::Lf),
        (lf, crlf) if lf == crlf => Some(LineEnds::Crlf),
        _ => None,
    }
}

/// A text whose line ends are all one way, written the other way (or as it is).
pub fn with_line_ends(text: &[u8], ends: LineEnds) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 16);
    for (i, &b) in text.iter().enumerate() {
        match (ends, b) {
            (LineEnds::Lf, b'\r') if text.get(i + 1) == Some(&b'\n') => {}
            (LineEnds::Crlf, b'\n') if i == 0 || text[i - 1] != b'\r' => out.extend_from_slice(b"\r\n"),
            _ => out.push(b),
        }
    }
    out
}

/// When a side changed every line end of the file (CRLF and LF, one way throughout), the three
/// texts written with that side's line ends: the change of line ends is then no change of
/// content, and the merge keeps it. `None` when no side did.
pub fn align_line_ends(texts: [&[u8]; 3]) -> Option<[Vec<u8>; 3]> {
    // A side that rewrote every line end rewrote the first: most merges stop here, unread.
    let first = texts.map(|t| t.iter().position(|&b| b == b'\n').map(|i| i > 0 && t[i - 1] == b'\r'));
    if first[1] == first[0] && first[2] == first[0] {
        return None;
    }
    let [base, ours, theirs] = texts.map(line_ends);
    let base = base?;
    let target = [ours?, theirs?].into_iter().find(|&e| e != base)?;
    Some(texts.map(|t| with_line_ends(t, target)))
}

/// How marker lines end: as the first line of ours ends, or of theirs where ours has no line
/// (an object ours deleted), else `\n`.
fn line_ending(ours: &[u8], theirs: &[u8]) -> &'static [u8] {
    let first = |text: &[u8]| memchr::memchr(b'\n', text).map(|i| if i > 0 && text[i - 1] == b'\r' { &b"\r\n"[..] } else { b"\n" });
    first(ours).or_else(|| first(theirs)).unwrap_or(b"\n")
}

impl<'s> Writer<'s> {
    /// A writer for the marked text of `ours` and `theirs` (whose line ends the markers take).
    pub(crate) fn new(ours: &[u8], theirs: &[u8], style: &'s MarkerStyle) -> Self {
        // A marked text that outgrew ours' length was copied into a buffer twice as large.
        let room = ours.len() + crate::codec::TEXT_SLACK;
        Writer { out: Vec::with_capacity(room), style, conflicts: 0, eol: line_ending(ours, theirs), region: None }
    }

    /// The marked text, the region still held written out.
    pub(crate) fn finish(mut self) -> MarkedText {
        self.close_region();
        MarkedText { text: self.out, conflicts: self.conflicts }
    }

    fn push_lines(&mut self, lines: &[&[u8]]) {
        if lines.is_empty() {
            return;
        }
        self.close_region();
        for l in lines {
            self.out.extend_from_slice(l);
        }
    }

    /// Common text, whole lines.
    pub(crate) fn push_text(&mut self, text: &[u8]) {
        if !text.is_empty() {
            self.close_region();
            self.out.extend_from_slice(text);
        }
    }

    fn close_region(&mut self) {
        let Some((ours, theirs)) = self.region.take() else { return };
        let style = self.style;
        self.marker(b'<', &style.ours_label);
        self.out.extend_from_slice(&ours);
        self.marker(b'=', "");
        self.out.extend_from_slice(&theirs);
        self.marker(b'>', &style.theirs_label);
        self.conflicts += 1;
    }

    fn marker(&mut self, ch: u8, label: &str) {
        if !self.out.is_empty() && !self.out.ends_with(b"\n") {
            self.out.extend_from_slice(self.eol);
        }
        self.out.extend(std::iter::repeat_n(ch, self.style.size));
        if !label.is_empty() {
            self.out.push(b' ');
            self.out.extend_from_slice(label.as_bytes());
        }
        self.out.extend_from_slice(self.eol);
    }

    /// A conflict region; lines both sides share at its edges are written outside the markers.
    fn conflict(&mut self, ours: &[&[u8]], theirs: &[&[u8]]) {
        let prefix = ours.iter().zip(theirs).take_while(|(a, b)| a == b).count();
        let (o, t) = (&ours[prefix..], &theirs[prefix..]);
        let suffix = o.iter().rev().zip(t.iter().rev()).take_while(|(a, b)| a == b).count();
        // A shared last line without newline would end up inside the markers; keep it out only
        // when it ends with a newline.
        let suffix = if suffix > 0 && !o[o.len() - 1].ends_with(b"\n") { 0 } else { suffix };
        self.push_lines(&ours[..prefix]);
        let (o_mid, t_mid) = (&o[..o.len() - suffix], &t[..t.len() - suffix]);
        if o_mid.is_empty() && t_mid.is_empty() {
            self.push_lines(&o[o.len() - suffix..]);
            return;
        }
        // Two regions meet: they are one where either holds nothing but blank lines (the line
        // that ends a section beside an object one side lacks); two regions of substance stay
        // two, so that each can be settled its own way.
        let blank = |lines: &[&[u8]]| lines.iter().all(|l| l.trim_ascii().is_empty());
        let held_blank = self.region.as_ref().is_some_and(|(o, t)| o.trim_ascii().is_empty() && t.trim_ascii().is_empty());
        if !(held_blank || blank(o_mid) && blank(t_mid)) {
            self.close_region();
        }
        let eol = self.eol;
        let (ours_lines, theirs_lines) = self.region.get_or_insert_with(Default::default);
        for (held, lines) in [(ours_lines, o_mid), (theirs_lines, t_mid)] {
            // A region's last line without a line end is one only the file's end could hold.
            if !held.is_empty() && !held.ends_with(b"\n") && !lines.is_empty() {
                held.extend_from_slice(eol);
            }
            for l in lines {
                held.extend_from_slice(l);
            }
        }
        self.push_lines(&o[o.len() - suffix..]);
    }
}

/// A 3-way line merge like `git merge-file`: clean changes applied, overlapping ones marked.
pub fn merge_lines(base: &[u8], ours: &[u8], theirs: &[u8], style: &MarkerStyle) -> MarkedText {
    merge_lines_preferring(base, ours, theirs, style, None).0
}

/// [`merge_lines`] with overlapping changes settled from `prefer`'s side where one is given
/// (`git merge-file --ours`/`--theirs`), and how many were.
pub fn merge_lines_preferring(base: &[u8], ours: &[u8], theirs: &[u8], style: &MarkerStyle, prefer: Option<Side>) -> (MarkedText, usize) {
    if let Some(bom) = merged_bom([base, ours, theirs]) {
        let (mut merged, settled) = merge_lines_preferring(without_bom(base), without_bom(ours), without_bom(theirs), style, prefer);
        if bom {
            merged.text.splice(0..0, BOM.iter().copied());
        }
        return (merged, settled);
    }
    let (bl, ol, tl) = (lines(base), lines(ours), lines(theirs));
    let mut w = Writer::new(ours, theirs, style);
    let mut settled = 0;
    for chunk in diff3(&hashes(&bl), &hashes(&ol), &hashes(&tl)) {
        match chunk {
            Chunk::Stable { ours, .. } => w.push_lines(&ol[ours]),
            Chunk::Changed { ours, theirs, take, .. } => match take {
                Take::Theirs => w.push_lines(&tl[theirs]),
                Take::Ours | Take::Both => w.push_lines(&ol[ours]),
            },
            Chunk::Conflict { ours, theirs, .. } => match prefer {
                Some(side) => {
                    settled += 1;
                    w.push_lines(if side == Side::Theirs { &tl[theirs] } else { &ol[ours] });
                }
                None => w.conflict(&ol[ours], &tl[theirs]),
            },
        }
    }
    (w.finish(), settled)
}

/// Lines that must agree after a difference for the two texts to count as back in step.
const RESYNC_LINES: usize = 3;

/// Two renderings of one merge that differ only where conflicts were resolved differently:
/// mark every differing stretch of lines, so the file reads as ours with theirs beside it.
///
/// The texts agree almost everywhere, so they are walked side by side and diffed only in a
/// small window after each difference, growing it until they are back in step.
pub fn mark_differences(ours: &[u8], theirs: &[u8], style: &MarkerStyle) -> MarkedText {
    let mut w = Writer::new(ours, theirs, style);
    mark_differences_into(&mut w, ours, theirs);
    w.finish()
}

/// [`mark_differences`], written on with `w`.
pub(crate) fn mark_differences_into(w: &mut Writer<'_>, ours: &[u8], theirs: &[u8]) {
    let (mut i, mut j) = (0, 0);
    while i < ours.len() || j < theirs.len() {
        // Skip the common bytes, then step back to the start of the line they end in.
        let same = common_prefix(&ours[i..], &theirs[j..]);
        let line_start = ours[i..i + same].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        if i + same == ours.len() && j + same == theirs.len() {
            w.push_text(&ours[i..]);
            break;
        }
        w.push_text(&ours[i..i + line_start]);
        i += line_start;
        j += line_start;
        // Diff a growing window of lines until the texts are back in step.
        let mut window = 64;
        loop {
            let (ol, oe) = first_lines(&ours[i..], window);
            let (tl, te) = first_lines(&theirs[j..], window);
            let whole = i + oe == ours.len() && j + te == theirs.len();
            let back_in_step = crate::sequence_diff::diff_ops(&ol, &tl).into_iter().find_map(|op| match op {
                DiffOp::Equal { old_index, new_index, len }
                    if (old_index > 0 || new_index > 0)
                        && (len >= RESYNC_LINES || (whole && old_index + len == ol.len() && new_index + len == tl.len())) =>
                {
                    Some((old_index, new_index))
                }
                _ => None,
            });
            match back_in_step {
                Some((a, b)) => {
                    w.conflict(&ol[..a], &tl[..b]);
                    i += ol[..a].iter().map(|l| l.len()).sum::<usize>();
                    j += tl[..b].iter().map(|l| l.len()).sum::<usize>();
                    break;
                }
                None if whole => {
                    w.conflict(&ol, &tl);
                    i = ours.len();
                    j = theirs.len();
                    break;
                }
                None => window *= 4,
            }
        }
    }
}

/// How many leading bytes two texts share (compared a block at a time).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 128;
    let n = a.len().min(b.len());
    let mut at = 0;
    while at + BLOCK <= n && a[at..at + BLOCK] == b[at..at + BLOCK] {
        at += BLOCK;
    }
    at + a[at..n].iter().zip(&b[at..n]).take_while(|(x, y)| x == y).count()
}

/// [`mark_differences`] with one region around all the lines where the two renderings differ,
/// for formats whose references are positions (Cocos' `{"__id__": N}`): an element more in one
/// rendering shifts every later reference, so each reference after it would be a region of
/// its own (215 regions for one conflict), and sides taken region by region would point
/// references at the wrong elements. Either side of the one region is a whole, sound file.
pub fn mark_difference_whole(ours: &[u8], theirs: &[u8], style: &MarkerStyle) -> MarkedText {
    let mut w = Writer::new(ours, theirs, style);
    mark_difference_whole_into(&mut w, ours, theirs);
    w.finish()
}

/// [`mark_difference_whole`], written on with `w`.
pub(crate) fn mark_difference_whole_into(w: &mut Writer<'_>, ours: &[u8], theirs: &[u8]) {
    let (ol, tl) = (lines(ours), lines(theirs));
    let prefix = ol.iter().zip(&tl).take_while(|(a, b)| a == b).count();
    let room = (ol.len() - prefix).min(tl.len() - prefix);
    // The lines both end with, a last line without a line end included (it stays last).
    let suffix = ol.iter().rev().zip(tl.iter().rev()).take(room).take_while(|(a, b)| a == b).count();
    w.push_lines(&ol[..prefix]);
    w.conflict(&ol[prefix..ol.len() - suffix], &tl[prefix..tl.len() - suffix]);
    w.push_lines(&ol[ol.len() - suffix..]);
}

/// Up to `count` lines from the start of `text`, and the bytes they cover.
fn first_lines(text: &[u8], count: usize) -> (Vec<&[u8]>, usize) {
    let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').take(count).collect();
    let len = lines.iter().map(|l| l.len()).sum();
    (lines, len)
}

/// 1-based line numbers of lines that look like conflict markers (`<<<<<<<`, `|||||||`,
/// `=======`, `>>>>>>>` at the start of a line, followed by a space or the line's end).
pub fn marker_lines(text: &[u8]) -> Vec<usize> {
    // Checked on every file of a repository: only the first byte of each line is looked at,
    // the line ends found by memchr.
    let is_marker = |start: usize| {
        let line = &text[start..];
        let Some(&c) = line.first() else { return false };
        if !matches!(c, b'<' | b'=' | b'>' | b'|') {
            return false;
        }
        let run = line.iter().take(8).take_while(|&&x| x == c).count();
        run == 7
            && match line.get(7) {
                None | Some(b' ' | b'\n') => true,
                Some(b'\r') => matches!(line.get(8), None | Some(b'\n')),
                _ => false,
            }
    };
    let mut found = Vec::new();
    if is_marker(0) {
        found.push(1);
    }
    for (i, newline) in memchr::memchr_iter(b'\n', text).enumerate() {
        if is_marker(newline + 1) {
            found.push(i + 2);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(b: &str, o: &str, t: &str) -> (String, usize) {
        let r = merge_lines(b.as_bytes(), o.as_bytes(), t.as_bytes(), &MarkerStyle::default());
        (String::from_utf8(r.text).unwrap(), r.conflicts)
    }

    #[test]
    fn a_region_of_blank_lines_is_one_with_the_region_it_meets() {
        let style = MarkerStyle::default();
        let mut w = Writer::new(b"a\n", b"b\n", &style);
        w.push_text(b"common\n");
        mark_differences_into(&mut w, b"", b"\n");
        mark_difference_whole_into(&mut w, b"", b"[x]\n");
        w.push_text(b"between\n");
        mark_differences_into(&mut w, b"a\n", b"b\n");
        mark_difference_whole_into(&mut w, b"x\n", b"");
        let r = w.finish();
        assert_eq!(
            String::from_utf8(r.text).unwrap(),
            "common\n<<<<<<< ours\n=======\n\n[x]\n>>>>>>> theirs\nbetween\n<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n<<<<<<< ours\nx\n=======\n>>>>>>> theirs\n",
            "regions of substance that meet stay two"
        );
        assert_eq!(r.conflicts, 3);
    }

    #[test]
    fn clean_line_merge() {
        assert_eq!(m("a\nb\nc\n", "A\nb\nc\n", "a\nb\nC\n"), ("A\nb\nC\n".into(), 0));
    }

    #[test]
    fn conflicting_line_merge_has_markers() {
        let (text, n) = m("a\nb\nc\n", "a\nX\nc\n", "a\nY\nc\n");
        assert_eq!(n, 1);
        assert_eq!(text, "a\n<<<<<<< ours\nX\n=======\nY\n>>>>>>> theirs\nc\n");
        assert_eq!(marker_lines(text.as_bytes()), vec![2, 4, 6]);
    }

    #[test]
    fn missing_final_newline_gets_one_before_marker() {
        let (text, n) = m("a", "b", "c");
        assert_eq!(n, 1);
        assert_eq!(text, "<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n");
    }

    #[test]
    fn marker_size_is_honoured() {
        let style = MarkerStyle { size: 9, ..MarkerStyle::default() };
        let r = merge_lines(b"a\n", b"b\n", b"c\n", &style);
        assert!(String::from_utf8(r.text).unwrap().starts_with("<<<<<<<<< ours\n"));
    }

    #[test]
    fn differences_marked_minimally() {
        let r = mark_differences(b"a\nb\nc\nd\n", b"a\nB\nc\nd\n", &MarkerStyle::default());
        assert_eq!(r.conflicts, 1);
        assert_eq!(String::from_utf8(r.text).unwrap(), "a\n<<<<<<< ours\nb\n=======\nB\n>>>>>>> theirs\nc\nd\n");
    }

    #[test]
    fn a_whole_difference_is_one_region_between_the_shared_first_and_last_lines() {
        let style = MarkerStyle::default();
        // The last line, without a line end, is shared: it stays after the markers.
        let m = mark_difference_whole(b"a\nb\nc\nd\ne", b"a\nB\nc\nD\ne", &style);
        assert_eq!(m.conflicts, 1);
        assert_eq!(String::from_utf8(m.text).unwrap(), "a\n<<<<<<< ours\nb\nc\nd\n=======\nB\nc\nD\n>>>>>>> theirs\ne");
        let same = mark_difference_whole(b"a\nb", b"a\nb", &style);
        assert_eq!((same.conflicts, same.text.as_slice()), (0, &b"a\nb"[..]));
        // One side a prefix of the other: the shared lines are not counted twice.
        let longer = mark_difference_whole(b"a\na\n", b"a\n", &style);
        assert_eq!(String::from_utf8(longer.text).unwrap(), "a\n<<<<<<< ours\na\n=======\n>>>>>>> theirs\n");
    }

    #[test]
    fn far_apart_differences_are_marked_separately_and_sides_read_back() {
        let body: String = (0..500).map(|i| format!("line {i}\n")).collect();
        let ours = body.replace("line 10\n", "ours 10\n").replace("line 400\n", "");
        let theirs = body.replace("line 10\n", "theirs 10\nextra\n").replace("line 400\n", "theirs 400\n");
        let r = mark_differences(ours.as_bytes(), theirs.as_bytes(), &MarkerStyle::default());
        assert_eq!(r.conflicts, 2);
        let text = String::from_utf8(r.text).unwrap();
        // Keeping one side of every region gives that side back.
        let keep = |side: bool| {
            let mut out = String::new();
            let mut state = 0; // 0 outside, 1 in ours, 2 in theirs
            for l in text.split_inclusive('\n') {
                match (l.starts_with("<<<<<<< "), l == "=======\n", l.starts_with(">>>>>>> ")) {
                    (true, _, _) => state = 1,
                    (_, true, _) => state = 2,
                    (_, _, true) => state = 0,
                    _ if state == 0 || (state == 1) == side => out.push_str(l),
                    _ => {}
                }
            }
            out
        };
        assert_eq!(keep(true), ours);
        assert_eq!(keep(false), theirs);
    }

    #[test]
    fn a_side_that_changed_every_line_end_gets_its_way() {
        let (lf, crlf) = (&b"a\nb\n"[..], &b"a\r\nb\r\n"[..]);
        assert_eq!(line_ends(lf), Some(LineEnds::Lf));
        assert_eq!(line_ends(crlf), Some(LineEnds::Crlf));
        assert_eq!(line_ends(b"a\r\nb\n"), None, "mixed");
        assert_eq!(with_line_ends(lf, LineEnds::Crlf), crlf);
        assert_eq!(with_line_ends(crlf, LineEnds::Lf), lf);
        let aligned = align_line_ends([lf, crlf, b"a\nc\n"]).unwrap();
        assert_eq!(aligned, [crlf.to_vec(), crlf.to_vec(), b"a\r\nc\r\n".to_vec()]);
        assert!(align_line_ends([lf, lf, b"a\nc\n"]).is_none());
        assert!(align_line_ends([lf, b"a\r\nb\n", lf]).is_none(), "a mixed side is left alone");
    }

    #[test]
    fn markers_follow_crlf_files() {
        let r = merge_lines(b"a\r\nb\r\n", b"a\r\nX\r\n", b"a\r\nY\r\n", &MarkerStyle::default());
        assert_eq!(String::from_utf8(r.text).unwrap(), "a\r\n<<<<<<< ours\r\nX\r\n=======\r\nY\r\n>>>>>>> theirs\r\n");
        // An object only theirs holds (ours deleted it): the markers end as theirs' lines do.
        let r = mark_difference_whole(b"", b"X\r\nY\r\n", &MarkerStyle::default());
        assert_eq!(String::from_utf8(r.text).unwrap(), "<<<<<<< ours\r\n=======\r\nX\r\nY\r\n>>>>>>> theirs\r\n");
    }

    #[test]
    fn a_byte_order_mark_is_kept_or_dropped_as_a_side_wants_and_merges_no_content() {
        let bom = |t: &str| [BOM, t.as_bytes()].concat();
        assert_eq!(merged_bom([b"a", b"b", b"c"]), None);
        assert_eq!(merged_bom([&bom("a"), &bom("b"), &bom("c")]), Some(true));
        assert_eq!(merged_bom([b"a", &bom("b"), b"c"]), Some(true), "ours added one");
        assert_eq!(merged_bom([&bom("a"), &bom("b"), b"c"]), Some(false), "theirs removed it");
        let r = merge_lines(&bom("a\nm\nb\n"), &bom("a\nm\nX\n"), b"Y\nm\nb\n", &MarkerStyle::default());
        assert_eq!((r.text, r.conflicts), (b"Y\nm\nX\n".to_vec(), 0), "theirs removed the mark");
    }

    #[test]
    fn the_final_line_end_is_as_the_side_that_changed_it_wants() {
        let settled = |merged: &str, texts: [&str; 3]| {
            let mut m = merged.as_bytes().to_vec();
            settle_final_line_end(&mut m, texts.map(str::as_bytes));
            String::from_utf8(m).unwrap()
        };
        assert_eq!(settled("a\nb\n", ["a", "a\nb", "a"]), "a\nb", "none had one");
        assert_eq!(settled("a\r\nb\r\n", ["a", "a", "a\r\nb"]), "a\r\nb");
        assert_eq!(settled("a\r\nb", ["a\r\n", "a\r\n", "a\r\nb\r\n"]), "a\r\nb\r\n", "all had one");
        assert_eq!(settled("a\nb", ["a\n", "a", "a\nb\n"]), "a\nb", "ours removed it");
        assert_eq!(settled("", ["a\n", "", "a\n"]), "");
    }

    #[test]
    fn markers_need_exact_length() {
        assert!(marker_lines(b"<<<<<<<< x\n======\n").is_empty());
        assert_eq!(marker_lines(b"x\r\n=======\r\n"), vec![2]);
        assert_eq!(marker_lines(b"=======\n<<<<<<<\n=======\rx\n>>>>>>> b"), vec![1, 2, 4]);
    }
}

/// The first `shown` items joined by ", ", and how many more there are (`a, b, c and 30
/// more`), for notes that could list thousands.
pub fn first_of(items: &[String], shown: usize) -> String {
    let listed = items.iter().take(shown).cloned().collect::<Vec<_>>().join(", ");
    match items.len().saturating_sub(shown) {
        0 => listed,
        more => format!("{listed} and {more} more"),
    }
}

/// The note for objects a side added under ids the other side also used, given new ids: one
/// for them all (a prefab pasted on both sides renumbers every document of it). `what` names
/// them (`objects`, `ext_resources`), `moves` each one's old and new id.
pub fn renumbered_note(what: &str, side: &str, moves: &[String]) -> String {
    format!("both sides added different {what} under {} id(s); {side}' are renumbered: {}", moves.len(), first_of(moves, 6))
}

#[cfg(test)]
mod stable_spans_tests {
    use super::*;

    fn spans(b: &str, o: &str, t: &str) -> Sides<Vec<String>> {
        let texts = Sides::new(b.as_bytes(), o.as_bytes(), t.as_bytes());
        let found = stable_spans(texts);
        Sides::new((), (), ()).map(|side, ()| {
            found.get(side).iter().map(|&(s, e)| String::from_utf8(texts.get(side)[s as usize..e as usize].to_vec()).unwrap()).collect()
        })
    }

    #[test]
    fn stretches_all_three_keep_are_found_in_each_version() {
        let b = "{\n\"a\": 1,\n\"b\": 2,\n\"c\": 3,\n\"d\": 4\n}\n";
        let o = "{\n\"a\": 10,\n\"b\": 2,\n\"c\": 3,\n\"d\": 4\n}\n";
        let t = "{\n\"a\": 1,\n\"b\": 2,\n\"c\": 3,\n\"d\": 40\n}\n";
        let found = spans(b, o, t);
        assert_eq!(found.base, ["{\n", "\"b\": 2,\n\"c\": 3,\n", "}\n"]);
        assert_eq!(found.ours, found.base);
        assert_eq!(found.theirs, found.base);
        // The same in all three: all of it.
        assert_eq!(spans(b, b, b).ours, [b]);
    }

    #[test]
    fn a_stretch_of_repeated_lines_alone_is_not_trusted() {
        // Short lines repeat, and a diff may align a run of them with a copy elsewhere (an
        // object moved): between the two edits lie only repeated lines, so nothing there counts.
        let b = "[\n[1],\n[0],\n[0],\n[2],\n[3]\n]\n";
        let o = "[\n[10],\n[0],\n[0],\n[2],\n[3]\n]\n";
        let t = "[\n[1],\n[0],\n[0],\n[20],\n[3]\n]\n";
        let found = spans(b, o, t);
        assert_eq!(found.base, ["[\n", "[3]\n]\n"]);
        assert_eq!(found.ours, found.base);
        assert_eq!(found.theirs, found.base);
    }

    #[test]
    fn lines_two_texts_hold_alike_are_paired_where_each_has_them() {
        let a = "{\n\"a\": 1,\n\"b\": 2,\n\"c\": 3\n}";
        let b = "{\n\"new\": 0,\n\"a\": 1,\n\"b\": 20,\n\"c\": 3\n}";
        let (in_a, in_b) = equal_line_spans(a.as_bytes(), b.as_bytes());
        let text = |t: &str, spans: &[(u32, u32)]| spans.iter().map(|&(s, e)| t[s as usize..e as usize].to_string()).collect::<Vec<_>>();
        // The added line splits the first run; the changed line is in neither; the last line
        // has no line end in both.
        assert_eq!(text(a, &in_a), ["{\n", "\"a\": 1,\n", "\"c\": 3\n}"]);
        assert_eq!(text(b, &in_b), text(a, &in_a));
        assert_eq!(in_b, [(0, 2), (12, 20), (29, 37)]);
        // Two equal texts: one run, all of it; nothing alike: nothing.
        assert_eq!(equal_line_spans(a.as_bytes(), a.as_bytes()), (vec![(0, a.len() as u32)], vec![(0, a.len() as u32)]));
        assert_eq!(equal_line_spans(b"x\n", b"y\n"), (vec![], vec![]));
    }
}

#[cfg(test)]
mod first_of_tests {
    use super::{first_of, renumbered_note};

    #[test]
    fn long_lists_are_cut_with_a_count() {
        let items: Vec<String> = (1..=5).map(|i| i.to_string()).collect();
        assert_eq!(first_of(&items, 3), "1, 2, 3 and 2 more");
        assert_eq!(
            renumbered_note("objects", "theirs", &items[..1]),
            "both sides added different objects under 1 id(s); theirs' are renumbered: 1"
        );
        assert_eq!(first_of(&items[..2], 3), "1, 2");
    }
}
