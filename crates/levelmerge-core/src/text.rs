//! Line-based text: the 3-way line merge used when a file cannot be merged structurally, the
//! conflict markers written around conflicting regions, and the detection of leftover markers.

use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;

use crate::diff3::{changed_stretches, diff3, Chunk, Take};

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

/// Lines including their terminators, so that joining them gives the text back exactly.
pub fn lines(text: &[u8]) -> Vec<&[u8]> {
    text.split_inclusive(|&b| b == b'\n').collect()
}

fn line_hash(line: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    line.hash(&mut h);
    h.finish()
}

fn hashes(lines: &[&[u8]]) -> Vec<u64> {
    lines.iter().map(|l| line_hash(l)).collect()
}

struct Writer<'s> {
    out: Vec<u8>,
    style: &'s MarkerStyle,
    conflicts: usize,
}

impl Writer<'_> {
    fn push_lines(&mut self, lines: &[&[u8]]) {
        for l in lines {
            self.out.extend_from_slice(l);
        }
    }

    fn ensure_newline(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with(b"\n") {
            self.out.push(b'\n');
        }
    }

    fn marker(&mut self, ch: u8, label: &str) {
        self.ensure_newline();
        self.out.extend(std::iter::repeat_n(ch, self.style.size));
        if !label.is_empty() {
            self.out.push(b' ');
            self.out.extend_from_slice(label.as_bytes());
        }
        self.out.push(b'\n');
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
        let style = self.style;
        self.marker(b'<', &style.ours_label);
        self.push_lines(o_mid);
        self.marker(b'=', "");
        self.push_lines(t_mid);
        self.marker(b'>', &style.theirs_label);
        self.push_lines(&o[o.len() - suffix..]);
        self.conflicts += 1;
    }
}

/// A 3-way line merge like `git merge-file`: clean changes applied, overlapping ones marked.
pub fn merge_lines(base: &[u8], ours: &[u8], theirs: &[u8], style: &MarkerStyle) -> MarkedText {
    let (bl, ol, tl) = (lines(base), lines(ours), lines(theirs));
    let mut w = Writer { out: Vec::with_capacity(ours.len() + 64), style, conflicts: 0 };
    for chunk in diff3(&hashes(&bl), &hashes(&ol), &hashes(&tl)) {
        match chunk {
            Chunk::Stable { ours, .. } => w.push_lines(&ol[ours]),
            Chunk::Changed { ours, theirs, take, .. } => match take {
                Take::Theirs => w.push_lines(&tl[theirs]),
                Take::Ours | Take::Both => w.push_lines(&ol[ours]),
            },
            Chunk::Conflict { ours, theirs, .. } => w.conflict(&ol[ours], &tl[theirs]),
        }
    }
    MarkedText { text: w.out, conflicts: w.conflicts }
}

/// Two renderings of one merge that differ only where conflicts were resolved differently:
/// mark every differing stretch of lines, so the file reads as ours with theirs beside it.
pub fn mark_differences(ours: &[u8], theirs: &[u8], style: &MarkerStyle) -> MarkedText {
    let (ol, tl) = (lines(ours), lines(theirs));
    let mut w = Writer { out: Vec::with_capacity(ours.len() + 64), style, conflicts: 0 };
    let mut at = 0;
    for (o, t) in changed_stretches(&hashes(&ol), &hashes(&tl)) {
        w.push_lines(&ol[at..o.start]);
        w.conflict(&ol[o.clone()], &tl[t]);
        at = o.end;
    }
    w.push_lines(&ol[at..]);
    MarkedText { text: w.out, conflicts: w.conflicts }
}

/// 1-based line numbers of lines that look like conflict markers (`<<<<<<<`, `|||||||`,
/// `=======`, `>>>>>>>` at the start of a line, followed by a space or the line's end).
pub fn marker_lines(text: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    for (i, line) in lines(text).iter().enumerate() {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(&c) = line.first() else { continue };
        if !matches!(c, b'<' | b'=' | b'>' | b'|') {
            continue;
        }
        let run = line.iter().take_while(|&&x| x == c).count();
        if run == 7 && (line.len() == 7 || line[7] == b' ') {
            found.push(i + 1);
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
    fn markers_need_exact_length() {
        assert!(marker_lines(b"<<<<<<<< x\n======\n").is_empty());
        assert_eq!(marker_lines(b"x\r\n=======\r\n"), vec![2]);
    }
}
