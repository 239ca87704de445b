//! A lossless parser for Unity's YAML subset. Every document, entry and value keeps its byte
//! span in the source; nothing is decoded or re-printed.
//!
//! Unity writes a small, regular subset of YAML (see `docs/formats.md` of the project's shared
//! notes): no comments, no anchors but the document's, no complex keys, block sequences at the
//! same indent as their key, flow maps that older editors wrap onto continuation lines, and
//! quoted scalars folded over several lines. General YAML parsers reject the file-wide `%TAG`
//! and the ` stripped` suffix, and lose bytes; this one reads exactly that subset.

use levelmerge_core::{Problem, Side, Sides};

/// A byte range `[start, end)` of the source.
pub type Span = (u32, u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YKind {
    /// A block mapping (`key: value` lines).
    Map,
    /// A block sequence (`- item` lines).
    Seq,
    /// `{a: 1, b: 2}`, possibly over several lines.
    FlowMap,
    /// `[1, 2]`, possibly over several lines.
    FlowSeq,
    /// A plain, single- or double-quoted scalar; an empty span for `key: ` with nothing after.
    Scalar,
}

/// One value.
#[derive(Debug, Clone)]
pub struct YNode {
    pub kind: YKind,
    pub span: Span,
    /// Maps: a range of `UnityFile::entries`; sequences: a range of `UnityFile::items`.
    pub first: u32,
    pub count: u32,
}

/// One `key: value` of a mapping.
#[derive(Debug, Clone)]
pub struct YEntry {
    pub key: Span,
    pub value: u32,
}

/// One serialized object: `--- !u!CLASS &FILEID [stripped]` and its body.
#[derive(Debug, Clone)]
pub struct UnityDoc {
    pub class_id: i64,
    pub file_id: i64,
    pub stripped: bool,
    /// From the `---` line to the end of the last body line, newline included.
    pub span: Span,
    /// The body mapping (`ClassName:` and its fields); `None` for an empty body.
    pub body: Option<u32>,
    /// 1-based line of the `---` line.
    pub line: u32,
    /// The class name (`GameObject`, `Transform`, …) as written on the line after the header.
    pub class: Span,
    /// The same bytes under the same fileID in every other version the file was parsed among:
    /// nothing in it can merge differently. Its body is not parsed (`body` is `None`), but for a
    /// transform or game object whose hierarchy lists `listed_links` cannot read off its
    /// lines.
    pub same_everywhere: bool,
}

/// A parsed Unity file.
#[derive(Debug, Clone)]
pub struct UnityFile<'s> {
    pub src: &'s str,
    /// `%YAML` / `%TAG` lines before the first document (empty for header-less files).
    pub preamble: Span,
    pub docs: Vec<UnityDoc>,
    pub nodes: Vec<YNode>,
    pub entries: Vec<YEntry>,
    pub items: Vec<u32>,
    /// For each node, the entry whose value it is (`NONE` if it is not one).
    pub entry_of: Vec<u32>,
    /// Lines end with `\r\n`.
    pub crlf: bool,
    /// The identity of each item of a prefab override list (see [`crate::identity`]).
    pub item_keys: rustc_hash::FxHashMap<u32, String>,
    /// Aliases of keys written twice in one mapping, by entry index (see [`crate::identity`]).
    pub key_aliases: rustc_hash::FxHashMap<u32, String>,
}

/// No entry.
pub const NONE: u32 = u32::MAX;

impl<'s> UnityFile<'s> {
    pub fn text(&self, span: Span) -> &'s str {
        &self.src[span.0 as usize..span.1 as usize]
    }

    pub fn entries_of(&self, node: u32) -> &[YEntry] {
        let n = &self.nodes[node as usize];
        match n.kind {
            YKind::Map | YKind::FlowMap => &self.entries[n.first as usize..(n.first + n.count) as usize],
            _ => &[],
        }
    }

    pub fn items_of(&self, node: u32) -> &[u32] {
        let n = &self.nodes[node as usize];
        match n.kind {
            YKind::Seq | YKind::FlowSeq => &self.items[n.first as usize..(n.first + n.count) as usize],
            _ => &[],
        }
    }

    /// The member `key` of a mapping node.
    pub fn get(&self, node: u32, key: &str) -> Option<u32> {
        self.entries_of(node).iter().find(|e| self.text(e.key) == key).map(|e| e.value)
    }

    /// The class name of a document (`GameObject`, `Transform`, `MonoBehaviour`, …).
    pub fn class_name(&self, doc: &UnityDoc) -> Option<&'s str> {
        match doc.body {
            Some(body) => self.entries_of(body).first().map(|e| self.text(e.key)),
            None => Some(self.text(doc.class)).filter(|c| !c.is_empty()),
        }
    }

    /// The fields of a document: the mapping under its class name.
    pub fn fields(&self, doc: &UnityDoc) -> Option<u32> {
        let body = doc.body?;
        let first = self.entries_of(body).first()?;
        (self.nodes[first.value as usize].kind == YKind::Map).then_some(first.value)
    }
}

const MAX_DEPTH: usize = 128;

struct Parser<'s> {
    src: &'s [u8],
    pos: usize,
    /// End of the current document's body.
    limit: usize,
    nodes: Vec<YNode>,
    entries: Vec<YEntry>,
    items: Vec<u32>,
    scratch_entries: Vec<YEntry>,
    scratch_items: Vec<u32>,
    depth: usize,
}

impl<'s> Parser<'s> {
    fn err(&self, at: usize, message: impl Into<String>) -> Problem {
        Problem::syntax_at(self.src, at, message)
    }

    /// End of the line starting at or containing `pos` (the `\n`, or the limit).
    fn line_end(&self, pos: usize) -> usize {
        memchr::memchr(b'\n', &self.src[pos..self.limit]).map_or(self.limit, |i| pos + i)
    }

    /// The start of the next line after `pos`'s line.
    fn next_line(&self, pos: usize) -> usize {
        (self.line_end(pos) + 1).min(self.limit)
    }

    fn indent_at(&self, line_start: usize) -> usize {
        self.src[line_start..self.limit].iter().take_while(|&&b| b == b' ').count()
    }

    fn blank(&self, line_start: usize) -> bool {
        self.src[line_start..self.line_end(line_start)].iter().all(|&b| b == b' ' || b == b'\r')
    }

    /// The next non-blank line at or after `pos`, if any.
    fn next_content_line(&self, mut pos: usize) -> Option<usize> {
        while pos < self.limit {
            if !self.blank(pos) {
                return Some(pos);
            }
            pos = self.next_line(pos);
        }
        None
    }

    /// Where a line's text ends, without `\r`.
    fn content_end(&self, line_start: usize) -> usize {
        let e = self.line_end(line_start);
        if e > line_start && self.src[e - 1] == b'\r' {
            e - 1
        } else {
            e
        }
    }

    fn push(&mut self, kind: YKind, span: (usize, usize), first: usize, count: usize) -> u32 {
        self.nodes.push(YNode { kind, span: (span.0 as u32, span.1 as u32), first: first as u32, count: count as u32 });
        (self.nodes.len() - 1) as u32
    }

    fn enter(&mut self, at: usize) -> Result<(), Problem> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(at, format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    /// The key of a `key: value` or `key:` at `at`, and where its value text starts.
    fn key_at(&self, at: usize) -> Option<(usize, usize)> {
        let end = self.content_end(at);
        let line = &self.src[at..end];
        if matches!(line.first(), Some(b'{' | b'[' | b'\'' | b'"' | b'-'))
            && !(line.starts_with(b"-") && line.get(1).is_some_and(|c| c.is_ascii_alphanumeric()))
        {
            return None;
        }
        let mut i = 0;
        while i < line.len() {
            if line[i] == b':' && (i + 1 == line.len() || line[i + 1] == b' ') {
                return (i > 0).then_some((at + i, at + i + 1));
            }
            i += 1;
        }
        None
    }

    /// A block mapping whose keys sit at column `indent`. The first key may sit at `first_at`
    /// (after a sequence's `- `); the others start lines indented by exactly `indent`.
    fn block_map(&mut self, indent: usize, first_at: Option<usize>) -> Result<u32, Problem> {
        self.enter(self.pos)?;
        let start = first_at.unwrap_or(self.pos + indent);
        let scratch = self.scratch_entries.len();
        let mut end = start;
        let mut first = first_at;
        loop {
            let key_start = match first.take() {
                Some(at) => at,
                None => {
                    let Some(line) = self.next_content_line(self.pos) else { break };
                    if self.indent_at(line) != indent {
                        break;
                    }
                    let at = line + indent;
                    if self.src[at] == b'-' && matches!(self.src.get(at + 1), Some(b' ' | b'\n' | b'\r') | None) {
                        break; // a sequence item of the enclosing key
                    }
                    at
                }
            };
            let Some((colon, after)) = self.key_at(key_start) else {
                if self.scratch_entries.len() == scratch {
                    return Err(self.err(key_start, "expected `key: value`"));
                }
                break;
            };
            let key = (key_start as u32, colon as u32);
            let value_start = if self.src.get(after) == Some(&b' ') { after + 1 } else { after };
            let value = if value_start >= self.content_end(key_start) {
                self.pos = self.next_line(key_start);
                self.nested(indent, value_start)?
            } else {
                self.inline(value_start, indent)?
            };
            end = self.nodes[value as usize].span.1.max(colon as u32 + 1) as usize;
            self.scratch_entries.push(YEntry { key, value });
        }
        let entries: Vec<YEntry> = self.scratch_entries.drain(scratch..).collect();
        let first_entry = self.entries.len();
        let count = entries.len();
        self.entries.extend(entries);
        self.depth -= 1;
        Ok(self.push(YKind::Map, (start, end), first_entry, count))
    }

    /// The value of a `key:` with nothing after the colon: a block below, or an empty scalar.
    fn nested(&mut self, indent: usize, value_start: usize) -> Result<u32, Problem> {
        let empty = |p: &mut Self| p.push(YKind::Scalar, (value_start, value_start), 0, 0);
        let Some(line) = self.next_content_line(self.pos) else { return Ok(empty(self)) };
        let ni = self.indent_at(line);
        let at = line + ni;
        let is_item = self.src[at] == b'-' && matches!(self.src.get(at + 1), Some(b' ' | b'\n' | b'\r') | None);
        if is_item && ni >= indent {
            return self.block_seq(ni);
        }
        if ni > indent {
            self.pos = line;
            return self.block_map(ni, None);
        }
        Ok(empty(self))
    }

    /// A block sequence whose `- ` sit at column `indent`.
    fn block_seq(&mut self, indent: usize) -> Result<u32, Problem> {
        self.enter(self.pos)?;
        let scratch = self.scratch_items.len();
        let mut start = None;
        let mut end = 0;
        while let Some(line) = self.next_content_line(self.pos) {
            if self.indent_at(line) != indent {
                break;
            }
            let dash = line + indent;
            if !(self.src[dash] == b'-' && matches!(self.src.get(dash + 1), Some(b' ' | b'\n' | b'\r') | None)) {
                break;
            }
            start.get_or_insert(dash);
            let content = dash + 2;
            let item = if content >= self.content_end(line) {
                self.pos = self.next_line(line);
                self.nested(indent, content.min(self.content_end(line)))?
            } else if self.key_at(content).is_some() {
                self.pos = line;
                self.block_map(indent + 2, Some(content))?
            } else {
                self.inline(content, indent)?
            };
            end = self.nodes[item as usize].span.1 as usize;
            self.scratch_items.push(item);
        }
        let items: Vec<u32> = self.scratch_items.drain(scratch..).collect();
        let first = self.items.len();
        let count = items.len();
        self.items.extend(items);
        self.depth -= 1;
        let start = start.unwrap_or(self.pos);
        Ok(self.push(YKind::Seq, (start, end.max(start)), first, count))
    }

    /// A value that starts on the key's line; `indent` is the key's indent (continuation lines
    /// are indented more). Leaves `pos` at the start of the line after the value.
    fn inline(&mut self, at: usize, indent: usize) -> Result<u32, Problem> {
        let node = match self.src[at] {
            b'{' | b'[' => self.flow(at)?,
            b'\'' | b'"' => {
                let end = self.quoted(at)?;
                self.push(YKind::Scalar, (at, end), 0, 0)
            }
            _ => {
                // A plain scalar, continued on lines indented deeper than its key.
                let mut end = self.content_end(at);
                let mut line = self.next_line(at);
                while line < self.limit
                    && !self.blank(line)
                    && self.indent_at(line) > indent
                    && self.key_at(line + self.indent_at(line)).is_none()
                {
                    end = self.content_end(line);
                    line = self.next_line(line);
                }
                self.push(YKind::Scalar, (at, end), 0, 0)
            }
        };
        let end = self.nodes[node as usize].span.1 as usize;
        let rest_end = self.content_end(end.saturating_sub(1).max(at));
        if end < rest_end && !self.src[end..rest_end].iter().all(|&b| b == b' ') {
            return Err(self.err(end, "unexpected text after the value"));
        }
        self.pos = self.next_line(end.saturating_sub(1).max(at));
        Ok(node)
    }

    /// The end of a quoted scalar starting at `at` (past its closing quote).
    fn quoted(&self, at: usize) -> Result<usize, Problem> {
        let q = self.src[at];
        let mut i = at + 1;
        while i < self.limit {
            let b = self.src[i];
            if q == b'"' && b == b'\\' {
                i += 2;
                continue;
            }
            if b == q {
                if q == b'\'' && self.src.get(i + 1) == Some(&b'\'') {
                    i += 2;
                    continue;
                }
                return Ok(i + 1);
            }
            i += 1;
        }
        Err(self.err(at, "unterminated quoted string"))
    }

    /// A flow mapping or sequence starting at `at`, possibly over several lines.
    fn flow(&mut self, at: usize) -> Result<u32, Problem> {
        self.enter(at)?;
        let open = self.src[at];
        let close = if open == b'{' { b'}' } else { b']' };
        let mut i = at + 1;
        let scratch_e = self.scratch_entries.len();
        let scratch_i = self.scratch_items.len();
        let skip_ws = |p: &Self, mut i: usize| {
            while i < p.limit && matches!(p.src[i], b' ' | b'\n' | b'\r' | b'\t') {
                i += 1;
            }
            i
        };
        loop {
            i = skip_ws(self, i);
            if i >= self.limit {
                return Err(self.err(at, format!("unclosed '{}'", open as char)));
            }
            if self.src[i] == close {
                i += 1;
                break;
            }
            if open == b'{' {
                let key_start = i;
                while i < self.limit && self.src[i] != b':' && self.src[i] != close && self.src[i] != b',' {
                    i += 1;
                }
                if i >= self.limit || self.src[i] != b':' {
                    return Err(self.err(key_start, "expected `key: value` in a flow mapping"));
                }
                let mut key_end = i;
                while key_end > key_start && self.src[key_end - 1] == b' ' {
                    key_end -= 1;
                }
                i = skip_ws(self, i + 1);
                let (value, after) = self.flow_value(i, close)?;
                self.scratch_entries.push(YEntry { key: (key_start as u32, key_end as u32), value });
                i = after;
            } else {
                let (value, after) = self.flow_value(i, close)?;
                self.scratch_items.push(value);
                i = after;
            }
            i = skip_ws(self, i);
            match self.src.get(i) {
                Some(b',') => i += 1,
                Some(&c) if c == close => {}
                _ => return Err(self.err(i, format!("expected ',' or '{}'", close as char))),
            }
        }
        self.depth -= 1;
        if open == b'{' {
            let entries: Vec<YEntry> = self.scratch_entries.drain(scratch_e..).collect();
            let (first, count) = (self.entries.len(), entries.len());
            self.entries.extend(entries);
            Ok(self.push(YKind::FlowMap, (at, i), first, count))
        } else {
            let items: Vec<u32> = self.scratch_items.drain(scratch_i..).collect();
            let (first, count) = (self.items.len(), items.len());
            self.items.extend(items);
            Ok(self.push(YKind::FlowSeq, (at, i), first, count))
        }
    }

    /// A value inside a flow collection; returns it and where it ends.
    fn flow_value(&mut self, at: usize, close: u8) -> Result<(u32, usize), Problem> {
        match self.src.get(at) {
            Some(b'{' | b'[') => {
                let n = self.flow(at)?;
                Ok((n, self.nodes[n as usize].span.1 as usize))
            }
            Some(b'\'' | b'"') => {
                let end = self.quoted(at)?;
                Ok((self.push(YKind::Scalar, (at, end), 0, 0), end))
            }
            _ => {
                let mut end = at;
                while end < self.limit
                    && self.src[end] != b','
                    && self.src[end] != close
                    && self.src[end] != b'\n'
                    && self.src[end] != b'\r'
                {
                    end += 1;
                }
                let mut trimmed = end;
                while trimmed > at && self.src[trimmed - 1] == b' ' {
                    trimmed -= 1;
                }
                Ok((self.push(YKind::Scalar, (at, trimmed), 0, 0), end))
            }
        }
    }
}

/// `--- !u!CLASS &FILEID[ stripped]`, as (class, file id, stripped).
fn document_header(line: &str) -> Option<(i64, i64, bool)> {
    let rest = line.strip_prefix("--- !u!")?;
    let (class, rest) = rest.split_once(" &")?;
    let (id, stripped) = match rest.split_once(' ') {
        Some((id, "stripped")) => (id, true),
        Some(_) => return None,
        None => (rest, false),
    };
    Some((class.parse().ok()?, id.parse().ok()?, stripped))
}

/// Class ids of `Transform` and `RectTransform`.
pub const TRANSFORM_CLASSES: [i64; 2] = [4, 224];

/// The class id of a GameObject.
pub const GAME_OBJECT_CLASS: i64 = 1;

/// Where each document starts: its `--- ` line.
fn document_offsets(src: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let first = src.starts_with(b"--- ").then_some(0);
    first.into_iter().chain(memchr::memmem::find_iter(src, b"\n--- ").map(|i| i + 1))
}

/// Where a header-less file's mapping starts (a `.meta`-like file: no documents, and a first
/// line that is no `%` directive), as [`parse`] reads it; `None` for any other text.
pub fn header_less_mapping_at(src: &[u8]) -> Option<usize> {
    if holds_documents(src) {
        return None;
    }
    let content_start = if src.starts_with(levelmerge_core::text::BOM) { 3 } else { 0 };
    let mut at = content_start;
    for line in src[content_start..].split_inclusive(|&b| b == b'\n') {
        if !line.iter().all(|&b| matches!(b, b' ' | b'\r' | b'\n')) {
            return (line[0] != b'%').then_some(at);
        }
        at += line.len();
    }
    None
}

/// Whether a text holds `--- !u!CLASS &FILEID` documents (or lines that start as one).
pub fn holds_documents(src: &[u8]) -> bool {
    document_offsets(src).next().is_some()
}

/// The text cut at every document's `---` line (the preamble before the first is a part of
/// its own). YAML ends any scalar at a `---` line, so a cut never falls inside a value.
pub fn parts(src: &[u8]) -> Vec<&[u8]> {
    let mut starts: Vec<usize> = std::iter::once(0).chain(document_offsets(src)).collect();
    starts.push(src.len());
    starts.windows(2).map(|w| &src[w[0]..w[1]]).filter(|p| !p.is_empty()).collect()
}

/// Where each document starts, and that line's number.
fn document_starts(src: &[u8]) -> Vec<(usize, u32)> {
    let mut line_no = 1u32;
    let mut counted = 0;
    document_offsets(src)
        .map(|at| {
            line_no += memchr::memchr_iter(b'\n', &src[counted..at]).count() as u32;
            counted = at;
            (at, line_no)
        })
        .collect()
}

/// A syntax error inside a document, naming the object it was found in (`in GameObject &42`).
fn naming_object(problem: Problem, class: &str, file_id: i64) -> Problem {
    let is_name = !class.is_empty() && class.len() <= 64 && class.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let class = if is_name { class } else { "the object" };
    problem.placed(&format!("in {class} &{file_id}"))
}

/// The fileID in a document's header line (`--- !u!CLASS &FILEID …`), read from the bytes.
fn header_file_id(doc: &[u8]) -> Option<i64> {
    let line = &doc[..memchr::memchr(b'\n', doc).unwrap_or(doc.len())];
    let amp = memchr::memchr(b'&', line)?;
    let digits = doc[amp + 1..].iter().take_while(|b| b.is_ascii_digit() || **b == b'-').count();
    std::str::from_utf8(&doc[amp + 1..amp + 1 + digits]).ok()?.parse().ok()
}

/// Each document's bytes by fileID (for telling which documents are the same everywhere).
pub(crate) fn documents_by_id(src: &[u8]) -> rustc_hash::FxHashMap<i64, &[u8]> {
    let starts: Vec<usize> = document_offsets(src).collect();
    let mut docs = rustc_hash::FxHashMap::default();
    docs.reserve(starts.len());
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(src.len());
        if let Some(id) = header_file_id(&src[start..end]) {
            docs.insert(id, &src[start..end]);
        }
    }
    docs
}

/// The items of the top-level list `key` as read off its lines, in Unity's usual layout
/// (`key: []`, or one `- ITEM{fileID: N}` per line at the key's indent): the list's text and
/// each item's `{fileID: N}`. `Ok(None)` without the key; `Err` for any other layout, which
/// must then be parsed.
pub(crate) fn listed_links<'t>(doc: &'t str, key: &str, item: &str) -> Result<Option<(&'t str, Vec<&'t str>)>, ()> {
    // Found with memmem: this runs for every unparsed document of a large scene.
    let needle = format!("\n  {key}:");
    let Some(at) = memchr::memmem::find(doc.as_bytes(), needle.as_bytes()) else { return Ok(None) };
    let mut lines = doc[at + 1..].split_inclusive('\n').peekable();
    if let Some(line) = lines.next() {
        let rest = &line.trim_end()[needle.len() - 1..];
        if rest == " []" {
            return Ok(Some((&rest[1..], Vec::new())));
        }
        if !rest.is_empty() {
            return Err(());
        }
        let start = doc.len() - lines.clone().map(str::len).sum::<usize>();
        let mut items = Vec::new();
        let mut end = start;
        while let Some(text) = lines.peek().and_then(|l| l.trim_end().strip_prefix("  - ")) {
            let link = text.strip_prefix(item).ok_or(())?;
            if !(link.starts_with("{fileID: ") && link.ends_with('}') && !link.contains(',')) {
                return Err(());
            }
            items.push(link);
            end += lines.next().map_or(0, str::len);
        }
        if items.is_empty() {
            return Err(());
        }
        return Ok(Some((doc[start..end].trim_end().trim_start_matches(' '), items)));
    }
    Ok(None)
}

/// The fileID of every document, read off the headers alone.
pub fn document_ids(src: &[u8]) -> impl Iterator<Item = i64> + '_ {
    document_offsets(src).filter_map(move |start| header_file_id(&src[start..]))
}

/// Parse a Unity YAML file.
pub fn parse(src: &[u8]) -> Result<UnityFile<'_>, Problem> {
    parse_among(src, &[])
}

/// The three versions of a merge, each parsed among the other two ([`parse_among`]: what all
/// three hold alike is left unread, and the ids a merge aligns are never in it: they name
/// objects some version lacks). `None` when one does not parse.
pub fn parse_three(texts: Sides<&[u8]>) -> Option<Sides<UnityFile<'_>>> {
    let parse = |side: Side| parse_among(texts.get(side), &texts.others(side)).ok();
    Some(Sides::new(parse(Side::Base)?, parse(Side::Ours)?, parse(Side::Theirs)?))
}

/// Parse a Unity YAML file that is merged or compared with `others`: documents with the same
/// bytes under the same fileID in all of them are marked [`UnityDoc::same_everywhere`] and,
/// but for transforms, not parsed (big scenes change in few places; this is most of the speed).
pub fn parse_among<'s>(src: &'s [u8], others: &[&[u8]]) -> Result<UnityFile<'s>, Problem> {
    if src.len() >= u32::MAX as usize {
        return Err(Problem::Syntax { line: 1, column: 1, message: "file larger than 4 GiB".into() });
    }
    if let Some(zero) = src.iter().take(8000).position(|&b| b == 0) {
        return Err(Problem::syntax_at(src, zero, "binary data (NUL byte), not a text file"));
    }
    let text = std::str::from_utf8(src).map_err(|e| Problem::syntax_at(src, e.valid_up_to(), "not UTF-8 text"))?;
    let crlf = memchr::memchr(b'\n', src).is_some_and(|i| i > 0 && src[i - 1] == b'\r');
    let starts = document_starts(src);
    let other_docs: Vec<_> = others.iter().map(|o| documents_by_id(o)).collect();
    let mut p = Parser {
        src,
        pos: 0,
        limit: src.len(),
        nodes: Vec::new(),
        entries: Vec::new(),
        items: Vec::new(),
        scratch_entries: Vec::new(),
        scratch_items: Vec::new(),
        depth: 0,
    };
    let mut docs = Vec::with_capacity(starts.len());
    // Without documents, a file of directives and blank lines is all preamble.
    let mut preamble_end = starts.first().map_or(src.len(), |s| s.0);
    // A byte order mark before the header is part of the preamble.
    let content_start = if src.starts_with(levelmerge_core::text::BOM) { 3 } else { 0 };
    // A header-less file (`.meta`-like): one mapping.
    if let Some(line) = header_less_mapping_at(src) {
        preamble_end = 0;
        p.pos = line;
        let body = p.block_map(p.indent_at(line), None)?;
        if let Some(left) = p.next_content_line(p.pos) {
            return Err(p.err(left, "unexpected text after the mapping"));
        }
        docs.push(UnityDoc {
            class_id: 0,
            file_id: 0,
            stripped: false,
            span: (0, src.len() as u32),
            body: Some(body),
            line: 1,
            class: (0, 0),
            same_everywhere: false,
        });
    }
    if docs.is_empty() {
        // The preamble holds only directives.
        let mut line = content_start;
        while line < preamble_end {
            let end = memchr::memchr(b'\n', &src[line..preamble_end]).map_or(preamble_end, |i| line + i);
            let l = text[line..end].trim_end_matches('\r');
            if !(l.is_empty() || l.starts_with('%')) {
                return Err(Problem::syntax_at(src, line, "expected `%YAML`/`%TAG` lines before the first document"));
            }
            line = end + 1;
        }
    }
    for (k, &(start, line_no)) in starts.iter().enumerate() {
        let doc_end = starts.get(k + 1).map_or(src.len(), |s| s.0);
        let header_end = memchr::memchr(b'\n', &src[start..doc_end]).map_or(doc_end, |i| start + i);
        let header = text[start..header_end].trim_end_matches('\r');
        let (class_id, file_id, stripped) =
            document_header(header).ok_or_else(|| Problem::syntax_at(src, start, format!("not a Unity document header: `{header}`")))?;
        p.limit = doc_end;
        p.pos = (header_end + 1).min(doc_end);
        let first_line = p.next_content_line(p.pos);
        let class = first_line.map_or((p.pos as u32, p.pos as u32), |line| {
            let end = p.line_end(line);
            let name = text[line..end].trim_end_matches('\r').trim_end();
            let name = name.strip_suffix(':').unwrap_or(name);
            (line as u32, (line + name.len()) as u32)
        });
        let bytes = &src[start..doc_end];
        let same_everywhere = !other_docs.is_empty() && other_docs.iter().all(|d| d.get(&file_id) == Some(&bytes));
        let body = match first_line {
            None => None,
            // Unparsed, as long as the links the hierarchy checks read can be read off the
            // lines: a transform's, and a game object's components.
            Some(_)
                if same_everywhere
                    && match class_id {
                        c if TRANSFORM_CLASSES.contains(&c) => listed_links(&text[start..doc_end], "m_Children", "").is_ok(),
                        GAME_OBJECT_CLASS => listed_links(&text[start..doc_end], "m_Component", "component: ").is_ok(),
                        _ => true,
                    } =>
            {
                None
            }
            Some(line) => {
                let in_object = |problem| naming_object(problem, &text[class.0 as usize..class.1 as usize], file_id);
                if p.indent_at(line) != 0 {
                    return Err(in_object(p.err(line, "expected the class name at the start of the line")));
                }
                p.pos = line;
                let body = p.block_map(0, None).map_err(in_object)?;
                if let Some(left) = p.next_content_line(p.pos) {
                    return Err(in_object(p.err(left + p.indent_at(left), "unexpected indentation")));
                }
                Some(body)
            }
        };
        docs.push(UnityDoc {
            class_id,
            file_id,
            stripped,
            span: (start as u32, doc_end as u32),
            body,
            line: line_no,
            class,
            same_everywhere,
        });
    }
    let mut entry_of = vec![NONE; p.nodes.len()];
    for (i, e) in p.entries.iter().enumerate() {
        entry_of[e.value as usize] = i as u32;
    }
    let mut file = UnityFile {
        src: text,
        preamble: (0, preamble_end as u32),
        docs,
        nodes: p.nodes,
        entries: p.entries,
        items: p.items,
        entry_of,
        crlf,
        item_keys: Default::default(),
        key_aliases: Default::default(),
    };
    file.item_keys = crate::identity::item_keys(&file);
    file.key_aliases = crate::identity::key_aliases(&file);
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENE: &str = "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!1 &100\nGameObject:\n  m_ObjectHideFlags: 0\n  m_Component:\n  - component: {fileID: 400}\n  - component: {fileID: 500}\n  m_Name: Player\n  m_TagString: \n--- !u!4 &400 stripped\nTransform:\n  m_LocalPosition: {x: 0, y: -0, z: 1.5e+11}\n  m_Children: []\n  m_Father: {fileID: 0}\n--- !u!114 &-8491000000000000000\nMonoBehaviour:\n  m_Text: \"Model View Presenter is\n    a pattern.\"\n  near clip plane: 0.3\n  m_Mods:\n    - target: {fileID: 2382810566493446626, guid: 7b846d8f536f007498c941069487ce81,\n        type: 3}\n      propertyPath: m_Name\n      value: 'it''s'\n  m_Plain: a plain\n    continued scalar\n";

    #[test]
    fn a_byte_order_mark_is_part_of_the_preamble() {
        let marked = format!("\u{feff}{SCENE}");
        let f = parse(marked.as_bytes()).unwrap();
        assert_eq!((f.docs.len(), f.text(f.preamble)), (3, "\u{feff}%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n"));
        // A header-less file: one mapping, its first key read without the mark.
        let meta = parse("\u{feff}fileFormatVersion: 2\nguid: abc\n".as_bytes()).unwrap();
        let body = meta.docs[0].body.unwrap();
        assert_eq!(meta.text(meta.nodes[meta.get(body, "fileFormatVersion").unwrap() as usize].span), "2");
    }

    #[test]
    fn documents_and_fields() {
        let f = parse(SCENE.as_bytes()).unwrap();
        assert_eq!(f.docs.len(), 3);
        assert_eq!(f.text(f.preamble), "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n");
        let (go, tr, mb) = (&f.docs[0], &f.docs[1], &f.docs[2]);
        assert_eq!((go.class_id, go.file_id, go.stripped), (1, 100, false));
        assert_eq!((tr.class_id, tr.file_id, tr.stripped), (4, 400, true));
        assert_eq!(mb.file_id, -8491000000000000000);
        assert_eq!(f.class_name(go), Some("GameObject"));
        let fields = f.fields(go).unwrap();
        assert_eq!(f.text(f.nodes[f.get(fields, "m_Name").unwrap() as usize].span), "Player");
        let empty = f.get(fields, "m_TagString").unwrap();
        assert_eq!(f.nodes[empty as usize].span.0, f.nodes[empty as usize].span.1, "`key: ` is an empty scalar");
        let comps = f.get(fields, "m_Component").unwrap();
        assert_eq!(f.nodes[comps as usize].kind, YKind::Seq);
        let items = f.items_of(comps);
        assert_eq!(items.len(), 2);
        let c1 = f.get(items[1], "component").unwrap();
        assert_eq!(f.text(f.nodes[f.get(c1, "fileID").unwrap() as usize].span), "500");
        let mbf = f.fields(mb).unwrap();
        assert_eq!(f.text(f.nodes[f.get(mbf, "m_Text").unwrap() as usize].span), "\"Model View Presenter is\n    a pattern.\"");
        assert!(f.get(mbf, "near clip plane").is_some());
        let mods = f.items_of(f.get(mbf, "m_Mods").unwrap());
        let target = f.get(mods[0], "target").unwrap();
        assert_eq!(f.text(f.nodes[f.get(target, "type").unwrap() as usize].span), "3");
        assert_eq!(f.text(f.nodes[f.get(mods[0], "value").unwrap() as usize].span), "'it''s'");
        assert_eq!(f.text(f.nodes[f.get(mbf, "m_Plain").unwrap() as usize].span), "a plain\n    continued scalar");
        assert_eq!(
            f.text(f.docs[1].span),
            "--- !u!4 &400 stripped\nTransform:\n  m_LocalPosition: {x: 0, y: -0, z: 1.5e+11}\n  m_Children: []\n  m_Father: {fileID: 0}\n"
        );
    }

    #[test]
    fn hierarchy_lists_read_off_their_lines() {
        let doc = "--- !u!4 &4\nTransform:\n  m_Children:\n  - {fileID: 7}\n  - {fileID: 8}\n  m_Father: {fileID: 3}\n  m_RootOrder: 0\n";
        assert_eq!(crate::lower::field_line(doc, "m_Father"), Some("{fileID: 3}"));
        assert_eq!(listed_links(doc, "m_Children", ""), Ok(Some(("- {fileID: 7}\n  - {fileID: 8}", vec!["{fileID: 7}", "{fileID: 8}"]))));
        let empty = "--- !u!4 &4\nTransform:\n  m_Children: []\n  m_Father: {fileID: 0}\n";
        assert_eq!(listed_links(empty, "m_Children", ""), Ok(Some(("[]", vec![]))));
        assert!(listed_links("--- !u!4 &4\nTransform:\n  m_Children:\n  - {fileID: 7, guid: a}\n", "m_Children", "").is_err());
        assert!(listed_links("--- !u!4 &4\nTransform:\n  m_Children: [{fileID: 7}]\n", "m_Children", "").is_err());
        let go =
            "--- !u!1 &1\nGameObject:\n  m_Component:\n  - component: {fileID: 4}\n  - component: {fileID: 5}\n  m_ComponentOwner: x\n";
        assert_eq!(
            listed_links(go, "m_Component", "component: "),
            Ok(Some(("- component: {fileID: 4}\n  - component: {fileID: 5}", vec!["{fileID: 4}", "{fileID: 5}"])))
        );
        assert_eq!(listed_links(go, "m_Children", ""), Ok(None));
        assert_eq!(
            listed_links("--- !u!1 &1\nGameObject:\n  m_Component:\n  - cponent: {fileID: 4}\n", "m_Component", "component: "),
            Err(())
        );
    }

    #[test]
    fn header_less_and_crlf() {
        let f = parse(b"fileFormatVersion: 2\r\nguid: abc\r\nNativeFormatImporter:\r\n  mainObjectFileID: 0\r\n").unwrap();
        assert!(f.crlf);
        assert_eq!(f.docs.len(), 1);
        let body = f.docs[0].body.unwrap();
        assert_eq!(f.text(f.nodes[f.get(body, "guid").unwrap() as usize].span), "abc");
    }

    #[test]
    fn bad_input_is_a_problem_with_a_line() {
        let e = parse(b"%YAML 1.1\n--- !u!1 &1\nGameObject:\n  m_Name: a\n<<<<<<< ours\n").unwrap_err();
        assert!(e.to_string().contains("conflict marker"), "{e}");
        let e = parse(b"%YAML 1.1\n--- !u!1 &x\nGameObject:\n").unwrap_err();
        assert!(matches!(e, Problem::Syntax { line: 2, .. }), "{e}");
        assert!(parse(b"--- !u!1 &1\nGameObject:\n  m: {a: 1\n").is_err());
        assert!(parse(b"\x00\x01").is_err());
    }

    #[test]
    fn an_error_inside_a_document_names_its_object() {
        let e = parse(b"--- !u!1 &7\nGameObject:\n  m_Name: a\n--- !u!4 &-9\nTransform:\n  m: {a: 1\n").unwrap_err();
        assert!(matches!(e, Problem::Syntax { line: 7, .. }), "{e}");
        assert!(e.to_string().ends_with("(in Transform &-9)"), "{e}");
        let e = parse(b"--- !u!1 &7\nGameObject:\n  m_Name: a\n    more: 1\n").unwrap_err();
        assert!(e.to_string().contains("unexpected indentation (in GameObject &7)"), "{e}");
        let e = parse(b"--- !u!1 &7\n  GameObject:\n").unwrap_err();
        assert!(e.to_string().ends_with("(in the object &7)"), "{e}");
    }

    #[test]
    fn documents_the_same_everywhere_are_left_unparsed() {
        let base = SCENE.as_bytes();
        let edited = SCENE.replace("m_Name: Player", "m_Name: Hero");
        let f = parse_among(base, &[edited.as_bytes(), base]).unwrap();
        let same: Vec<bool> = f.docs.iter().map(|d| d.same_everywhere).collect();
        assert_eq!(same, [false, true, true]);
        // The edited GameObject is parsed; the identical transform and MonoBehaviour are not.
        assert!(f.docs[0].body.is_some() && f.docs[1].body.is_none() && f.docs[2].body.is_none());
        // A transform whose links do not read off their lines is parsed.
        let flow = SCENE.replace("m_Children: []", "m_Children: [{fileID: 1}, {fileID: 2}]");
        assert!(parse_among(flow.as_bytes(), &[flow.as_bytes()]).unwrap().docs[1].body.is_some());
        assert_eq!(f.class_name(&f.docs[2]), Some("MonoBehaviour"));
        assert_eq!(f.docs[2].line, parse(base).unwrap().docs[2].line);
        // Read alone, everything is parsed.
        assert!(parse(base).unwrap().docs.iter().all(|d| d.body.is_some() && !d.same_everywhere));
        // A document another version lacks, or holds under other bytes, is parsed.
        let fewer = SCENE[..SCENE.find("--- !u!114").unwrap()].to_owned();
        assert!(parse_among(base, &[fewer.as_bytes()]).unwrap().docs[2].body.is_some());
    }
}
