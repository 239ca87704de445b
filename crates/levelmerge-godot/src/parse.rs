//! A lossless, zero-copy parser for Godot's text scenes and resources (`.tscn`, `.tres`,
//! formats 2, 3 and 4).
//!
//! A file is a preamble (blank lines and `;` comments) and a list of sections. A section is a
//! bracketed tag `[kind key=value …]` (which may span lines inside brackets, never inside a string),
//! followed by `key = value` property lines. A value is a Variant literal: strings may hold real
//! newlines, and brackets of every kind nest, so a value ends at the first line end outside
//! both. Every section, attribute and property keeps its byte span; the text between one
//! section's last line and the next section's tag is that section's `gap`.

use levelmerge_core::Problem;

/// Byte range `[start, end)` in the source.
pub type Span = (u32, u32);

#[derive(Debug, Clone, Copy)]
pub struct Attr {
    pub key: Span,
    pub value: Span,
}

#[derive(Debug, Clone, Copy)]
pub struct Prop {
    /// The whole line(s): leading comment lines, key, value and line end.
    pub line: Span,
    pub key: Span,
    pub value: Span,
}

#[derive(Debug, Clone)]
pub struct Section {
    /// From `[` to the end of the section's last line (its line end included when present).
    pub span: Span,
    /// The tag, `[` to `]`.
    pub header: Span,
    pub kind: Span,
    pub attrs: std::ops::Range<u32>,
    pub props: std::ops::Range<u32>,
    /// Blank lines and comments after the section, up to the next tag or the end.
    pub gap: Span,
    /// 1-based line of the tag.
    pub line: u32,
    /// Its bytes, gap included, are a section of every other version it was parsed among.
    pub same_everywhere: bool,
}

/// A parsed file. Everything borrows from `src`.
#[derive(Debug, Clone)]
pub struct GodotFile<'s> {
    pub src: &'s str,
    pub crlf: bool,
    pub preamble: Span,
    pub sections: Vec<Section>,
    pub attrs: Vec<Attr>,
    pub props: Vec<Prop>,
    /// Names for properties written twice in one section (`key\u{1}2` for the second), so
    /// that each occurrence is matched with its own.
    pub key_aliases: rustc_hash::FxHashMap<u32, String>,
    /// Every section's identity, computed once ([`crate::lower::section_ids`]).
    pub ids: std::sync::OnceLock<Vec<Option<levelmerge_core::ObjectId>>>,
}

impl<'s> GodotFile<'s> {
    pub fn text(&self, span: Span) -> &'s str {
        &self.src[span.0 as usize..span.1 as usize]
    }

    pub fn kind(&self, s: &Section) -> &'s str {
        self.text(s.kind)
    }

    pub fn attrs_of(&self, s: &Section) -> &[Attr] {
        &self.attrs[s.attrs.start as usize..s.attrs.end as usize]
    }

    pub fn props_of(&self, s: &Section) -> &[Prop] {
        &self.props[s.props.start as usize..s.props.end as usize]
    }

    /// An attribute's value as written (`"Player"`, `1`, `ExtResource( 2 )`).
    pub fn attr(&self, s: &Section, key: &str) -> Option<&'s str> {
        self.attrs_of(s).iter().find(|a| self.key_is(a, key)).map(|a| self.text(a.value))
    }

    /// Whether an attribute's key is `key`. Length and first byte are compared first: they
    /// tell most keys apart without a call to compare bytes (tags are read many times).
    fn key_is(&self, a: &Attr, key: &str) -> bool {
        let k = &self.src.as_bytes()[a.key.0 as usize..a.key.1 as usize];
        k.len() == key.len() && k.first() == key.as_bytes().first() && k == key.as_bytes()
    }

    /// The values of several attributes, unquoted, read in one pass over the tag.
    pub fn attrs_unquoted<const N: usize>(&self, s: &Section, keys: [&str; N]) -> [Option<&'s str>; N] {
        let mut found = [None; N];
        for a in self.attrs_of(s) {
            if let Some(i) = keys.iter().position(|key| self.key_is(a, key)) {
                found[i].get_or_insert(unquote(self.text(a.value)));
            }
        }
        found
    }

    /// An attribute's value without its quotes.
    pub fn attr_unquoted(&self, s: &Section, key: &str) -> Option<&'s str> {
        self.attr(s, key).map(unquote)
    }
}

/// A value without the quotes of a plain string literal (escapes are kept).
pub fn unquote(v: &str) -> &str {
    v.strip_prefix('"').and_then(|x| x.strip_suffix('"')).unwrap_or(v)
}

/// Which bytes a value scan stops at: a byte table.
type Stops = [bool; 256];

const fn stops(bytes: &[u8]) -> Stops {
    let mut t = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    t
}

/// Inside brackets: strings and brackets matter, and line ends (a line there must not open a
/// section).
const NESTING: Stops = stops(b"\"()[]{}\n");
/// A property's value at depth 0 also ends at a line end.
const ENDS_IN_PROPERTY: Stops = stops(b"\"()[]{}\n\r");
/// An attribute's value at depth 0 also ends at a space.
const ENDS_IN_TAG: Stops = stops(b"\"()[]{}\n\r \t");

/// The first position at or after `i` whose byte is in `stops` (or the end), eight bytes a
/// step where none is.
fn skip_until(b: &[u8], mut i: usize, stops: &Stops) -> usize {
    while let Some(chunk) = b.get(i..i + 8) {
        if chunk.iter().fold(false, |any, &c| any | stops[c as usize]) {
            break;
        }
        i += 8;
    }
    while i < b.len() && !stops[b[i] as usize] {
        i += 1;
    }
    i
}

/// The brackets open in a value, innermost last: two bits each in a word (most values nest a
/// little, and a value read is then no allocation), beyond that in a vector.
#[derive(Default)]
struct Nesting {
    bits: u128,
    depth: usize,
    deeper: Vec<u8>,
}

impl Nesting {
    /// How many brackets the word holds.
    const IN_WORD: usize = 64;
    const BRACKETS: [u8; 4] = [0, b'(', b'[', b'{'];

    fn push(&mut self, bracket: u8) {
        if self.depth < Self::IN_WORD {
            let code = Self::BRACKETS.iter().position(|&b| b == bracket).unwrap_or(0) as u128;
            self.bits = (self.bits << 2) | code;
        } else {
            self.deeper.push(bracket);
        }
        self.depth += 1;
    }

    fn last(&self) -> Option<u8> {
        match self.depth {
            0 => None,
            d if d > Self::IN_WORD => self.deeper.last().copied(),
            _ => Some(Self::BRACKETS[(self.bits & 3) as usize]),
        }
    }

    fn pop(&mut self) {
        if self.depth > Self::IN_WORD {
            self.deeper.pop();
        } else if self.depth > 0 {
            self.bits >>= 2;
        }
        self.depth = self.depth.saturating_sub(1);
    }

    fn is_empty(&self) -> bool {
        self.depth == 0
    }
}

/// The closing quote of a string literal whose text starts at `from` (escapes skipped).
pub(crate) fn closing_quote(b: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let p = from + memchr::memchr2(b'"', b'\\', b.get(from..)?)?;
        if b[p] == b'"' {
            return Some(p);
        }
        from = p + 2;
    }
}

/// [`closing_quote`] of a string that must close on its line: `Err` with where it reaches a
/// line end first, or `Err(None)` where it never closes. One search, as for any string.
fn closing_quote_in_line(b: &[u8], mut from: usize) -> Result<usize, Option<usize>> {
    loop {
        let p = from + memchr::memchr3(b'"', b'\\', b'\n', b.get(from..).ok_or(None)?).ok_or(None)?;
        match b[p] {
            b'"' => return Ok(p),
            b'\n' => return Err(Some(p)),
            _ => from = p + 2,
        }
    }
}

struct Parser<'s> {
    b: &'s [u8],
    pos: usize,
}

/// Characters of a section or attribute name.
pub(crate) fn is_name(c: u8) -> bool {
    NAME_BYTES[c as usize]
}

/// [`is_name`] as a table: tags are read byte by byte, a thousand of them in a scene.
const NAME_BYTES: Stops = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = (c as u8).is_ascii_alphanumeric() || c == b'_' as usize;
        c += 1;
    }
    t
};

/// Where an attribute value written plainly ends: a quoted string with no escape on one line
/// (`"Floor"`), a word (`123`), or a word called on one such argument
/// (`ExtResource("2_fu476")`, `ExtResource( 2 )`), followed by a space, a line end or the
/// tag's `]`; `None` for any other value, which [`Parser::value_end`] reads the same. Nearly
/// every attribute is such a value, and short: plain loops read it faster than the general
/// reader's set-up.
fn plain_attribute_end(b: &[u8], from: usize) -> Option<usize> {
    let mut end = match b.get(from)? {
        b'"' => plain_string_end(b, from)?,
        _ => from + b.get(from..)?.iter().position(|&c| ENDS_IN_TAG[c as usize])?,
    };
    if end > from && b.get(end) == Some(&b'(') {
        let arg = end + 1 + b.get(end + 1..)?.iter().position(|&c| c != b' ')?;
        let after = match b[arg] {
            b'"' => plain_string_end(b, arg)?,
            _ => arg + b[arg..].iter().position(|&c| !is_name(c))?,
        };
        let close = after + b.get(after..)?.iter().position(|&c| c != b' ')?;
        if b[close] != b')' {
            return None;
        }
        end = close + 1;
    }
    matches!(b.get(end), Some(b' ' | b'\t' | b'\n' | b'\r' | b']')).then_some(end)
}

/// Just past the closing quote of the string opening at `open`, when it holds no escape and
/// closes on its line.
fn plain_string_end(b: &[u8], open: usize) -> Option<usize> {
    let close = open + 1 + b.get(open + 1..)?.iter().position(|&c| matches!(c, b'"' | b'\\' | b'\n'))?;
    (b[close] == b'"').then_some(close + 1)
}

impl<'s> Parser<'s> {
    fn error(&self, pos: usize, message: impl Into<String>) -> Problem {
        Problem::syntax_at(self.b, pos, message)
    }

    fn line_end(&self, from: usize) -> usize {
        memchr::memchr(b'\n', &self.b[from..]).map_or(self.b.len(), |p| from + p)
    }

    /// The end of the line that starts at `from`, past its `\n`.
    fn next_line(&self, from: usize) -> usize {
        (self.line_end(from) + 1).min(self.b.len())
    }

    /// Whether the line at `from` holds only spaces, or a `;` comment.
    fn is_trivia_line(&self, from: usize) -> bool {
        let line = &self.b[from..self.line_end(from)];
        let t = line.trim_ascii_start();
        t.is_empty() || t.starts_with(b";")
    }

    /// The end of a Variant value starting at `from`: strings and brackets are balanced; at
    /// depth 0 the value ends at a line end, or (in a tag) at a space or the closing `]`.
    fn value_end(&self, from: usize, in_tag: bool) -> Result<usize, Problem> {
        let b = self.b;
        let outside = if in_tag { &ENDS_IN_TAG } else { &ENDS_IN_PROPERTY };
        let mut stack = Nesting::default();
        let mut i = from;
        loop {
            // Long values (a GridMap's cells) are mostly digits: skip to the next byte that matters.
            i = skip_until(b, i, if stack.is_empty() { outside } else { &NESTING });
            let Some(&c) = b.get(i) else { break };
            match c {
                // Godot writes a tag's strings (names, paths, types, ids) on one line; one over
                // lines is a quote lost or added in an edit, and where it ends the tag's
                // attributes read differently.
                b'"' if in_tag => match closing_quote_in_line(b, i + 1) {
                    Ok(q) => i = q,
                    Err(Some(_)) => return Err(self.error(i, "a string over lines in a section tag (a quote lost or added?)")),
                    Err(None) => return Err(self.error(from, "string never closed")),
                },
                b'"' => match closing_quote(b, i + 1) {
                    // A property's value is one Variant: after a string that is all of it,
                    // only a comment may follow on its line. Text there is the rest of a
                    // string left open above, which Godot refuses (and which would be read as
                    // sections and properties once the string is closed).
                    Some(q) if stack.is_empty() => {
                        let rest = b[q + 1..].iter().position(|c| !matches!(c, b' ' | b'\t' | b'\r')).map(|p| q + 1 + p);
                        if let Some(at) = rest.filter(|&at| !matches!(b[at], b'\n' | b';')) {
                            return Err(self.error(at, "unexpected text after a string (a string left open above?)"));
                        }
                        i = q;
                    }
                    Some(q) => i = q,
                    None => return Err(self.error(from, "string never closed")),
                },
                b'(' | b'[' | b'{' => stack.push(c),
                b')' | b']' | b'}' => {
                    let open = match c {
                        b')' => b'(',
                        b']' => b'[',
                        _ => b'{',
                    };
                    match stack.last() {
                        Some(o) if o == open => {
                            stack.pop();
                        }
                        None if in_tag && c == b']' => return Ok(i),
                        _ => return Err(self.error(i, format!("unbalanced '{}'", c as char))),
                    }
                }
                // A line opening a section inside a value: the value was left open (Godot
                // refuses the file), and the file cut into sections ([`parts`]) would read
                // that line as a section, where reading on reads it as part of the value.
                b'\n' if !stack.is_empty() => {
                    if opens_section(b, i + 1) {
                        return Err(self.error(from, "value never closed before the section tag on a later line"));
                    }
                }
                // Only bytes of `outside` reach here with an empty stack.
                _ => return Ok(i),
            }
            i += 1;
        }
        if stack.is_empty() {
            Ok(i)
        } else {
            Err(self.error(from, "bracket never closed"))
        }
    }

    fn skip_spaces(&mut self) {
        while matches!(self.b.get(self.pos), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.pos += 1;
        }
    }

    /// A tag `[kind key=value …]` at `self.pos`.
    fn tag(&mut self, attrs: &mut Vec<Attr>) -> Result<(Span, Span), Problem> {
        let start = self.pos;
        self.pos += 1;
        let kind_start = self.pos;
        while self.b.get(self.pos).is_some_and(|&c| is_name(c)) {
            self.pos += 1;
        }
        if self.pos == kind_start {
            return Err(self.error(start, "a section tag needs a name"));
        }
        let kind = (kind_start as u32, self.pos as u32);
        loop {
            self.skip_spaces();
            match self.b.get(self.pos) {
                None => return Err(self.error(start, "section tag never closed")),
                Some(b']') => {
                    self.pos += 1;
                    return Ok(((start as u32, self.pos as u32), kind));
                }
                Some(_) => {
                    let key_start = self.pos;
                    while self.b.get(self.pos).is_some_and(|&c| is_name(c)) {
                        self.pos += 1;
                    }
                    if self.pos == key_start || self.b.get(self.pos) != Some(&b'=') {
                        return Err(self.error(self.pos, "expected key=value in the section tag"));
                    }
                    let key = (key_start as u32, self.pos as u32);
                    self.pos += 1;
                    // `binds= [0]`: the saver writes a space after some `=`.
                    while self.b.get(self.pos) == Some(&b' ') {
                        self.pos += 1;
                    }
                    let end = match plain_attribute_end(self.b, self.pos) {
                        Some(end) => end,
                        None => self.value_end(self.pos, true)?,
                    };
                    if end == self.pos {
                        return Err(self.error(self.pos, "an attribute needs a value"));
                    }
                    attrs.push(Attr { key, value: (self.pos as u32, end as u32) });
                    self.pos = end;
                }
            }
        }
    }

    /// A property line `key = value` at `from` (after any leading trivia lines `lead`).
    fn property(&mut self, lead: usize, from: usize) -> Result<Prop, Problem> {
        let b = self.b;
        let key_start = from;
        let key_end = if b[from] == b'"' {
            self.value_end(from, true)?
        } else {
            let eq = memchr::memchr(b'=', &b[from..self.line_end(from)]).map(|p| from + p);
            let Some(eq) = eq else { return Err(self.error(from, "expected 'key = value'")) };
            let mut e = eq;
            while e > from && b[e - 1] == b' ' {
                e -= 1;
            }
            // Godot reads a quote in a name as the start of a quoted name: the line is
            // something else to it than a property of this name. (Names are short: a plain scan.)
            if let Some(q) = b[from..e].iter().position(|&c| c == b'"') {
                return Err(self.error(from + q, "a quote inside a property name (a quote lost or added?)"));
            }
            e
        };
        if key_end == key_start {
            return Err(self.error(from, "a property needs a name"));
        }
        let mut i = key_end;
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        if b.get(i) != Some(&b'=') {
            return Err(self.error(i, "expected '=' after the property name"));
        }
        i += 1;
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        let end = self.value_end(i, false)?;
        let mut value_end = end;
        while value_end > i && matches!(b[value_end - 1], b' ' | b'\t') {
            value_end -= 1;
        }
        let line_end = self.next_line(end);
        if !b[end..line_end].iter().all(|c| c.is_ascii_whitespace()) {
            return Err(self.error(end, "unexpected text after the value"));
        }
        self.pos = line_end;
        Ok(Prop { line: (lead as u32, line_end as u32), key: (key_start as u32, key_end as u32), value: (i as u32, value_end as u32) })
    }
}

/// The attributes (key, value as written) of the tag that starts `section` (a section's text,
/// as parsed before).
pub fn tag_attrs(section: &str) -> Vec<(&str, &str)> {
    let mut p = Parser { b: section.as_bytes(), pos: 0 };
    let mut attrs = Vec::new();
    if p.tag(&mut attrs).is_err() {
        return Vec::new();
    }
    let text = |s: Span| &section[s.0 as usize..s.1 as usize];
    attrs.iter().map(|a| (text(a.key), text(a.value))).collect()
}

/// Parse a Godot text scene or resource.
pub fn parse(src: &[u8]) -> Result<GodotFile<'_>, Problem> {
    parse_among(src, &[])
}

/// Parse a file that is merged or compared with `others`: sections (with the blank lines after
/// them) whose bytes are a section of every one of them are marked
/// [`Section::same_everywhere`].
pub fn parse_among<'s>(src: &'s [u8], others: &[&[u8]]) -> Result<GodotFile<'s>, Problem> {
    let mut others: Vec<Chunks<'_>> = others.iter().map(|o| Chunks::of(o)).collect();
    let text = std::str::from_utf8(src).map_err(|e| Problem::syntax_at(src, e.valid_up_to(), "not valid UTF-8"))?;
    // A byte order mark before the first tag is part of the preamble.
    let mut p = Parser { b: src, pos: if src.starts_with(levelmerge_core::text::BOM) { 3 } else { 0 } };
    // Sized once from the line count (each section and property starts a line): grown by
    // doubling, they would take a fresh page of the allocator at each size.
    let lines = 1 + memchr::memchr_iter(b'\n', src).count();
    let mut sections: Vec<Section> = Vec::with_capacity(lines);
    let mut attrs = Vec::with_capacity(lines * 2);
    let mut props: Vec<Prop> = Vec::with_capacity(lines);
    let mut key_aliases = rustc_hash::FxHashMap::default();
    // Preamble: trivia lines before the first tag.
    while p.pos < src.len() && src[p.pos] != b'[' {
        if !p.is_trivia_line(p.pos) {
            return Err(p.error(p.pos, "expected a section tag such as [gd_scene …]"));
        }
        p.pos = p.next_line(p.pos);
    }
    let preamble = (0, p.pos as u32);
    let mut line = 1 + memchr::memchr_iter(b'\n', &src[..p.pos]).count() as u32;
    while p.pos < src.len() {
        let start = p.pos;
        let attr_start = attrs.len() as u32;
        let (header, kind) = p.tag(&mut attrs)?;
        let after = p.next_line(p.pos);
        if !src[p.pos..after].iter().all(|c| c.is_ascii_whitespace()) {
            return Err(p.error(p.pos, "unexpected text after the section tag"));
        }
        p.pos = after;
        let prop_start = props.len() as u32;
        let mut end = p.pos;
        // Properties, each with the trivia lines before it; trailing trivia is the gap.
        loop {
            let lead = p.pos;
            while p.pos < src.len() && src[p.pos] != b'[' && p.is_trivia_line(p.pos) {
                p.pos = p.next_line(p.pos);
            }
            if p.pos >= src.len() || src[p.pos] == b'[' {
                p.pos = lead;
                break;
            }
            let at = p.pos;
            props.push(p.property(lead, at).map_err(|e| naming_section(e, &text[header.0 as usize..header.1 as usize]))?);
            end = p.pos;
        }
        // The gap: trivia up to the next tag.
        while p.pos < src.len() && src[p.pos] != b'[' {
            if !p.is_trivia_line(p.pos) {
                let problem = p.error(p.pos, "expected a property or a section tag");
                return Err(naming_section(problem, &text[header.0 as usize..header.1 as usize]));
            }
            p.pos = p.next_line(p.pos);
        }
        alias_repeated_keys(text, &props[prop_start as usize..], prop_start, &mut key_aliases);
        let same_everywhere = !others.is_empty() && others.iter_mut().all(|o| o.contains(&src[start..p.pos]));
        sections.push(Section {
            span: (start as u32, end as u32),
            header,
            kind,
            attrs: attr_start..attrs.len() as u32,
            props: prop_start..props.len() as u32,
            gap: (end as u32, p.pos as u32),
            line,
            same_everywhere,
        });
        line += memchr::memchr_iter(b'\n', &src[start..p.pos]).count() as u32;
    }
    let crlf = memchr::memchr(b'\n', src).is_some_and(|i| i > 0 && src[i - 1] == b'\r');
    Ok(GodotFile { src: text, crlf, preamble, sections, attrs, props, key_aliases, ids: Default::default() })
}

/// A syntax error inside a section, naming the section by its tag (its first line, cut short).
fn naming_section(problem: Problem, tag: &str) -> Problem {
    const SHOWN: usize = 80;
    let first_line = tag.lines().next().unwrap_or(tag);
    let shown = match first_line.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &first_line[..cut]),
        None if first_line.len() < tag.len() => format!("{first_line}…"),
        None => first_line.to_owned(),
    };
    problem.placed(&format!("in {shown}"))
}

/// The section kinds whose tag line starts a part ([`parts`]), the most frequent first.
const PART_TAGS: [&[u8]; 8] =
    [b"node", b"sub_resource", b"ext_resource", b"connection", b"editable", b"resource", b"gd_scene", b"gd_resource"];

/// Whether the line at `at` opens a section of a kind that starts a part.
fn opens_section(src: &[u8], at: usize) -> bool {
    let Some(tag) = src.get(at..).and_then(|line| line.strip_prefix(b"[")) else { return false };
    PART_TAGS.iter().any(|t| tag.starts_with(t) && matches!(tag.get(t.len()), Some(b' ' | b']')))
}

/// The text cut at every line that opens a section of a known kind (the blank lines after a
/// section stay with it); `None` when a cut would fall inside a string: a part whose quotes
/// do not pair up holds the start of a string that runs past its end.
pub fn parts(src: &[u8]) -> Option<Vec<&[u8]>> {
    let mut starts: Vec<usize> = Vec::with_capacity(1 + memchr::memchr_iter(b'\n', src).count());
    starts.push(0);
    starts.extend(memchr::memmem::find_iter(src, b"\n[").map(|i| i + 1).filter(|&at| opens_section(src, at)));
    starts.push(src.len());
    if !strings_close_before(src, &starts) {
        return None;
    }
    let mut parts = Vec::with_capacity(starts.len() - 1);
    parts.extend(starts.windows(2).map(|w| &src[w[0]..w[1]]).filter(|p| !p.is_empty()));
    Some(parts)
}

/// Whether `text` reads alone as it reads in its file: every section of a kind that opens a
/// part ([`parts`]) other than the file's header. A section of another kind is identified by
/// its line (see `lower::section_ids`), which a part read alone does not keep, and a header's
/// `load_steps` counts the resources of the whole file.
pub fn reads_alone(text: &[u8]) -> bool {
    let kept = |kind: &str| PART_TAGS.contains(&kind.as_bytes()) && !matches!(kind, "gd_scene" | "gd_resource");
    parse(text).is_ok_and(|file| file.sections.iter().all(|s| kept(file.kind(s))))
}

/// Whether every string literal of `text` closes before the next of `cuts` (ascending
/// positions, the first 0, the last the text's end): no cut falls inside a string.
fn strings_close_before(text: &[u8], cuts: &[usize]) -> bool {
    // Without a backslash, quotes open and close strings by turns: an even count of them in
    // each part says so (counted fast).
    let without_escapes = memchr::memchr(b'\\', text).is_none();
    let quotes = |part: &[u8]| memchr::memchr_iter(b'"', part).count();
    cuts.windows(2).map(|w| &text[w[0]..w[1]]).all(
        |part| {
            if without_escapes {
                quotes(part).is_multiple_of(2)
            } else {
                strings_close_in(part)
            }
        },
    )
}

/// Whether every string literal that opens in `part` closes in it.
fn strings_close_in(part: &[u8]) -> bool {
    let mut at = 0;
    while let Some(open) = memchr::memchr(b'"', &part[at..]) {
        match closing_quote(part, at + open + 1) {
            Some(close) => at = close + 1,
            None => return false,
        }
    }
    true
}

/// Names for the second and later occurrences of a key in one section's properties.
fn alias_repeated_keys(text: &str, props: &[Prop], first: u32, aliases: &mut rustc_hash::FxHashMap<u32, String>) {
    let key = |p: &Prop| &text[p.key.0 as usize..p.key.1 as usize];
    for (j, prop) in props.iter().enumerate().skip(1) {
        let k = key(prop);
        if !props[..j].iter().any(|q| key(q) == k) {
            continue;
        }
        let count = 1 + props[..j].iter().filter(|q| key(q) == k).count();
        aliases.insert(first + j as u32, levelmerge_core::model::repeated_key(k, count));
    }
}

/// Finds a section's bytes (with the blank lines after it) among the chunks of another
/// version: the pieces from each line that starts with `[` to the next. A chunk cut wrongly
/// (a value with a line starting with `[`) only hides a match. Sections are looked for in file
/// order, so the next chunk after the last match is tried first, then a few more (sections
/// edited or inserted), and only then every chunk (an index built on first need). The first
/// few sections found nowhere near are looked for in the whole text first: a section one side
/// added is in no other version, and one search says so for less than building the index.
pub struct Chunks<'s> {
    src: &'s [u8],
    /// Where the chunk after the last match starts.
    cursor: usize,
    /// Every chunk and where it starts.
    index: Option<rustc_hash::FxHashMap<&'s [u8], usize>>,
    /// Searches of the whole text left before the index is built.
    searches_left: usize,
}

/// Chunks tried after the cursor before the whole text is searched.
const LOOKAHEAD: usize = 8;
/// Searches of the whole text made before the index is built instead.
const SEARCHES: usize = 4;

impl<'s> Chunks<'s> {
    pub fn of(src: &'s [u8]) -> Self {
        let cursor = if src.first() == Some(&b'[') { 0 } else { Self::next_start(src, 0) };
        Chunks { src, cursor, index: None, searches_left: SEARCHES }
    }

    /// The start of the first chunk after `from` (or the end).
    fn next_start(src: &[u8], from: usize) -> usize {
        memchr::memchr_iter(b'\n', &src[from..]).map(|i| from + i + 1).find(|&i| src.get(i) == Some(&b'[')).unwrap_or(src.len())
    }

    /// Whether `section` is a chunk whose end is a chunk boundary.
    fn chunk_at(&self, at: usize, section: &[u8]) -> bool {
        self.src[at..].starts_with(section) && (at + section.len() == self.src.len() || self.src[at + section.len()] == b'[')
    }

    pub fn contains(&mut self, section: &[u8]) -> bool {
        // The usual miss: the next chunk is this section edited in place (its tag line is the
        // same). Step over it without the index.
        if !section.is_empty() && !self.chunk_at(self.cursor, section) {
            let tag_line = &section[..memchr::memchr(b'\n', section).map_or(section.len(), |i| i + 1)];
            if self.src[self.cursor..].starts_with(tag_line) {
                self.cursor = Self::next_start(self.src, self.cursor + 1);
                return false;
            }
        }
        let mut at = self.cursor;
        for _ in 0..LOOKAHEAD {
            if at >= self.src.len() {
                break;
            }
            if self.chunk_at(at, section) {
                self.cursor = at + section.len();
                return true;
            }
            at = Self::next_start(self.src, at + 1);
        }
        let src = self.src;
        if self.index.is_none() && self.searches_left > 0 {
            self.searches_left -= 1;
            if memchr::memmem::find(src, section).is_none() {
                return false;
            }
        }
        let index = self.index.get_or_insert_with(|| {
            let mut starts: Vec<usize> = memchr::memchr_iter(b'\n', src).map(|i| i + 1).filter(|&i| src.get(i) == Some(&b'[')).collect();
            if src.first() == Some(&b'[') {
                starts.insert(0, 0);
            }
            let ends = starts.iter().skip(1).copied().chain(std::iter::once(src.len()));
            let mut index = rustc_hash::FxHashMap::with_capacity_and_hasher(starts.len(), Default::default());
            for (&a, b) in starts.iter().zip(ends) {
                index.entry(&src[a..b]).or_insert(a);
            }
            index
        });
        match index.get(section) {
            Some(&at) => {
                self.cursor = at + section.len();
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plainly_written_attribute_ends_where_the_general_reader_ends_it() {
        let values = [
            "\"Floor\" ",
            "\"Floor\"]",
            "\"\"]",
            "123]",
            "true ",
            "ExtResource(\"2_fu\")]",
            "ExtResource( 2 ) ",
            "SubResource(\"a\")\n",
            "Foo()]",
            "\"a\"(\"b\")]",
            "[0, 1]]",
            "\"a\\\"b\"]",
            "\"a\nb\"]",
            "\"a\"b ]",
            "ExtResource(\"2\"",
            "ExtResource(\"2\")x]",
            "ExtResource(1.5)]",
            "\"open",
            "word",
            "\"done\"",
            "f(\"a\nb\")]",
        ];
        let mut plain = 0;
        for value in values {
            let b = value.as_bytes();
            let general = Parser { b, pos: 0 }.value_end(0, true).ok();
            if let Some(end) = plain_attribute_end(b, 0) {
                assert_eq!(Some(end), general, "{value:?}");
                plain += 1;
            }
        }
        // The fast reading covers the common forms; the rest fall to the general reader.
        assert_eq!(plain, 10);
    }

    #[test]
    fn brackets_nest_in_order_beyond_the_word_that_holds_most() {
        let mut nesting = Nesting::default();
        let brackets: Vec<u8> = (0..200).map(|i| [b'(', b'[', b'{'][i * 7 % 3]).collect();
        for &b in &brackets {
            nesting.push(b);
            assert_eq!(nesting.last(), Some(b));
        }
        for (i, &b) in brackets.iter().enumerate().rev() {
            assert_eq!(nesting.last(), Some(b), "at depth {}", i + 1);
            nesting.pop();
        }
        assert!(nesting.is_empty() && nesting.last().is_none());
        // A value nested 100 deep reads; one bracket short, it does not.
        let deep = format!("[resource]\nvalue = {}1{}\n", "[(".repeat(50), ")]".repeat(50));
        assert!(parse(deep.as_bytes()).is_ok());
        assert!(parse(deep.replacen(")]", ")", 1).as_bytes()).is_err());
    }

    #[test]
    fn the_text_is_cut_only_where_no_string_is_open() {
        let text = b"[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\ntext = \"a \\\" quote\"\n\n[node name=\"B\" type=\"Node\" parent=\".\"]\n";
        let cut = parts(text).expect("every string closes in its part");
        assert_eq!(cut.len(), 3);
        assert_eq!(cut.concat(), text);
        // A string holding a line that opens a tag runs past it: no cut there, so no parts.
        let spanning = b"[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\ntext = \"a\n[node name=B]\nb\"\n";
        assert_eq!(parts(spanning), None);
        // A string open at the end, or escaping its closing quote, never closes.
        assert_eq!(parts(b"[gd_scene format=3]\n\n[resource]\ntext = \"open\n"), None);
        assert_eq!(parts(b"[gd_scene format=3]\n\n[resource]\ntext = \"open\\\"\n"), None);
        assert!(strings_close_before(b"\"a\" \"b\"", &[0, 3, 7]));
        assert!(!strings_close_before(b"\"a\" \"b\"", &[0, 5, 7]));
        // An escaped quote does not close a string; outside strings a backslash is a byte.
        assert!(strings_close_before(b"\"a\\\"b\" \\ \"c\"", &[0, 7, 12]));
        assert!(!strings_close_before(b"\"a\\\"b\" \\ \"c\"", &[0, 4, 12]));
    }

    fn reassembled(f: &GodotFile<'_>) -> String {
        let mut out = f.text(f.preamble).to_owned();
        for s in &f.sections {
            out.push_str(f.text(s.span));
            out.push_str(f.text(s.gap));
        }
        out
    }

    #[test]
    fn a_byte_order_mark_is_part_of_the_preamble() {
        let src = "\u{feff}[gd_scene format=3]\n\n[node name=\"Main\" type=\"Node\"]\n";
        let f = parse(src.as_bytes()).unwrap();
        assert_eq!((f.preamble, f.sections.len()), ((0, 3), 2));
        assert_eq!(reassembled(&f), src);
    }

    #[test]
    fn sections_attributes_and_properties() {
        let src = "[gd_scene load_steps=2 format=3 uid=\"uid://x\"]\n\n[ext_resource type=\"Script\" path=\"res://a.gd\" id=\"1_ab\"]\n\n[node name=\"Main\" type=\"Node\"]\nscript = ExtResource(\"1_ab\")\ntext = \"two\nlines ] [\"\n\n[connection signal=\"hit\" from=\".\" to=\".\" method=\"f\" binds= [0]]\n";
        let f = parse(src.as_bytes()).unwrap();
        assert_eq!(f.sections.len(), 4);
        assert_eq!(f.kind(&f.sections[0]), "gd_scene");
        assert_eq!(f.attr(&f.sections[0], "uid"), Some("\"uid://x\""));
        assert_eq!(f.attr_unquoted(&f.sections[2], "name"), Some("Main"));
        let props = f.props_of(&f.sections[2]);
        assert_eq!(props.len(), 2);
        assert_eq!(f.text(props[1].value), "\"two\nlines ] [\"");
        assert_eq!(f.attr(&f.sections[3], "binds"), Some("[0]"));
        assert_eq!(reassembled(&f), src);
    }

    #[test]
    fn several_attributes_read_at_once_are_those_read_one_by_one() {
        // `type` twice: the first counts, as for `attr`; `nome` shares `name`'s length, `n`
        // its first byte.
        let src = r#"[node nome="X" n="Y" type="A" name="Door" type="B" parent="."]"#;
        let f = parse(src.as_bytes()).unwrap();
        let s = &f.sections[0];
        let keys = ["name", "type", "parent", "instance", "nam"];
        let one_by_one = keys.map(|k| f.attr_unquoted(s, k));
        assert_eq!(one_by_one, [Some("Door"), Some("A"), Some("."), None, None]);
        assert_eq!(f.attrs_unquoted(s, keys), one_by_one);
    }

    #[test]
    fn multi_line_values_and_tags_round_trip() {
        let src = "[gd_scene format=2]\r\n\r\n[node name=\"A\" type=\"Node\" groups=[\r\n\"x\",\r\n]]\r\n__meta__ = {\r\n\"_edit_lock_\": true\r\n}\r\n; a comment\r\nitems = [ 1, 2 ]\r\n";
        let f = parse(src.as_bytes()).unwrap();
        assert!(f.crlf);
        assert_eq!(f.sections.len(), 2);
        assert_eq!(f.text(f.props_of(&f.sections[1])[0].value), "{\r\n\"_edit_lock_\": true\r\n}");
        assert_eq!(f.text(f.props_of(&f.sections[1])[1].key), "items");
        assert_eq!(reassembled(&f), src);
    }

    #[test]
    fn missing_final_newline_and_empty_sections() {
        let src = "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\n\n[node name=\"B\" type=\"Node\" parent=\".\"]\nvisible = false";
        let f = parse(src.as_bytes()).unwrap();
        assert_eq!(f.sections.len(), 3);
        assert_eq!(f.props_of(&f.sections[1]).len(), 0);
        assert_eq!(reassembled(&f), src);
    }

    #[test]
    fn bad_inputs_are_errors_with_a_line() {
        for (src, line) in [
            ("[gd_scene format=3]\n[node name=\"A\"\n", 2),
            ("[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\ntext = \"open\n", 4),
            ("hello\n[gd_scene format=3]\n", 1),
            ("[gd_scene format=3]\n<<<<<<< ours\n", 2),
            ("[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\nvalue = (1, 2]\n", 4),
        ] {
            match parse(src.as_bytes()) {
                Err(Problem::Syntax { line: l, .. }) => assert_eq!(l, line, "{src:?}"),
                other => panic!("{src:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_value_left_open_over_a_section_tag_is_refused_where_it_opens() {
        // Read on to its `)`, the value would swallow the next section, which the file cut
        // into parts reads as a section of its own.
        let src = "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\npolygon = PackedVector2Array(1, 2,\n\n[node name=\"B\" type=\"Node\" parent=\".\"]\n3)\n";
        let e = parse(src.as_bytes()).unwrap_err();
        assert!(matches!(e, Problem::Syntax { line: 4, column: 11, .. }), "{e}");
        assert!(e.to_string().contains("never closed before the section tag"), "{e}");
        // Lines that only look like tags inside a string, or that open no known section, stay
        // part of the value.
        let src = "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\ntext = [\"a\n[node name=\\\"B\\\"]\", {\n[nodes]: 1\n}]\n";
        let f = parse(src.as_bytes()).unwrap();
        assert_eq!(f.sections.len(), 2);
    }

    #[test]
    fn a_string_left_open_or_a_quote_in_a_property_name_is_refused() {
        // A string left open (its closing quote lost in an edit) runs on to the next quote,
        // and what follows that on its line is no Variant: Godot refuses the file. Read on,
        // the string swallowed a property and a section tag, and the file checked sound.
        let src =
            "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n\n[node name=\"A\" type=\"Label\" parent=\".\"]\ntext = \"Title\n\
texture = SubResource(\"Tex_1\")\n\n[node name=\"B\" type=\"Label\" parent=\".\"]\ntext = \"Body\"\n";
        let e = parse(src.as_bytes()).unwrap_err();
        assert!(matches!(e, Problem::Syntax { line: 7, column: 24, .. }), "{e}");
        assert!(e.to_string().contains("unexpected text after a string"), "{e}");
        // A string over lines, a comment after one, and strings inside brackets or a tag read.
        let src = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\" groups=[\"a\", \"b\"]]\ntext = \"two\nlines\"  ; said\n\
path = NodePath(\"A\")\nitems = [\"x\", \"y\"]\nname = &\"n\"\r\n";
        let f = parse(src.as_bytes()).unwrap();
        assert_eq!(f.props.len(), 4);
        // A quote added inside a name: Godot reads a quoted name from there on.
        let src = "[gd_resource type=\"Theme\" format=3]\n\n[resource]\ncorner_\"radius = 5\nx = \"a\"\n";
        let e = parse(src.as_bytes()).unwrap_err();
        assert!(matches!(e, Problem::Syntax { line: 4, column: 8, .. }), "{e}");
        assert!(e.to_string().contains("a quote inside a property name"), "{e}");
    }

    #[test]
    fn a_string_over_lines_in_a_section_tag_is_refused() {
        // A line end put inside a path: the tag read on, and the tag below it read otherwise
        // by anything reading tags line by line (its resource seemed not defined).
        let src = "[gd_scene format=2]\n\n[ext_resource path=\"res://a.g\nd\" type=\"Script\" id=1]\n[ext_resource path=\"res://b.gd\" type=\"Script\" id=2]\n";
        let e = parse(src.as_bytes()).unwrap_err();
        assert!(matches!(e, Problem::Syntax { line: 3, column: 20, .. }), "{e}");
        assert!(e.to_string().contains("a string over lines in a section tag"), "{e}");
        // A tag over lines inside its brackets, as Godot 3 writes `groups`, reads.
        let src = "[gd_scene format=2]\n\n[node name=\"A\" type=\"Node\" groups=[\n\"a\",\n]]\n";
        assert_eq!(parse(src.as_bytes()).unwrap().sections.len(), 2);
    }

    #[test]
    fn an_error_inside_a_section_names_its_tag() {
        let src = "[gd_scene format=3]\n\n[node name=\"B\" type=\"Node\" parent=\".\"]\nposition = Vector2(1, \n";
        let e = parse(src.as_bytes()).unwrap_err();
        assert!(e.to_string().ends_with("(in [node name=\"B\" type=\"Node\" parent=\".\"])"), "{e}");
        // A tag over several lines or longer than 80 characters is cut short.
        let src = "[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\" groups=[\n\"a\"]]\nx = 1\ny\n";
        let e = parse(src.as_bytes()).unwrap_err();
        assert!(matches!(e, Problem::Syntax { line: 6, .. }), "{e}");
        assert!(e.to_string().ends_with("(in [node name=\"A\" type=\"Node\" groups=[…)"), "{e}");
        let name = "N".repeat(100);
        let src = format!("[gd_scene format=3]\n\n[node name=\"{name}\" type=\"Node\"]\n<<<<<<< ours\n");
        let e = parse(src.as_bytes()).unwrap_err();
        let shown = format!("[node name=\"{}…)", &name[..68]);
        assert!(e.to_string().contains("conflict marker") && e.to_string().ends_with(&shown), "{e}");
    }

    #[test]
    fn long_values_end_where_their_brackets_and_strings_do() {
        // The scan skips eight bytes at a time: put every stop byte at every offset.
        for pad in 0..9 {
            let digits = "1, ".repeat(pad);
            let value = format!("PackedInt32Array({digits}7) + [{digits}{{\"k\\\"]\": \"a\\\\\"}}, \"x(\"]");
            let src = format!("[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\ncells = {value}\nnext = 1\n");
            let f = parse(src.as_bytes()).unwrap();
            let props = f.props_of(&f.sections[1]);
            assert_eq!(f.text(props[0].value), value, "pad {pad}");
            assert_eq!(f.text(props[1].value), "1");
            assert_eq!(reassembled(&f), src);
        }
        for bad in ["cells = [1, \"open\\\n", "cells = \"ends in a backslash\\", "cells = (1, 2, 3, 4, 5, 6, 7, 8\n"] {
            let src = format!("[gd_scene format=3]\n\n[node name=\"A\" type=\"Node\"]\n{bad}");
            assert!(matches!(parse(src.as_bytes()), Err(Problem::Syntax { line: 4, .. })), "{bad:?}");
        }
    }

    fn numbered_nodes(range: std::ops::Range<usize>) -> String {
        range.map(|i| format!("[node name=\"N{i}\" type=\"Node\" parent=\".\"]\nvalue = {i}\n\n")).collect()
    }

    #[test]
    fn sections_identical_in_every_version_are_marked() {
        let head = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n\n";
        let base = format!("{head}{}", numbered_nodes(0..40));
        let edited = base.replace("value = 5\n", "value = 6\n");
        // Twelve sections inserted: more than the look-ahead, so the index finds the rest.
        let inserted = format!("{head}{}{}{}", numbered_nodes(0..10), numbered_nodes(100..112), numbered_nodes(10..40));
        let f = parse_among(base.as_bytes(), &[edited.as_bytes(), inserted.as_bytes()]).unwrap();
        let same: Vec<bool> = f.sections.iter().map(|s| s.same_everywhere).collect();
        assert_eq!(same.len(), 42);
        assert!(!same[2 + 5], "the edited section");
        assert_eq!(same.iter().filter(|&&x| !x).count(), 1, "{same:?}");
        assert!(parse(base.as_bytes()).unwrap().sections.iter().all(|s| !s.same_everywhere));
        // A section whose bytes are only a prefix of a chunk elsewhere is not identical.
        let longer = base.replace("value = 7\n", "value = 7\nextra = 1\n");
        let f = parse_among(base.as_bytes(), &[longer.as_bytes(), base.as_bytes()]).unwrap();
        assert!(!f.sections[2 + 7].same_everywhere && f.sections[2 + 8].same_everywhere);
    }

    #[test]
    fn sections_edited_in_place_are_stepped_over_without_the_index() {
        let head = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n\n";
        let base = format!("{head}{}", numbered_nodes(0..40));
        let edited = (0..40).step_by(3).fold(base.clone(), |t, i| t.replace(&format!("value = {i}\n"), &format!("value = -{i}\n")));
        let f = parse(base.as_bytes()).unwrap();
        let mut chunks = Chunks::of(edited.as_bytes());
        let found: Vec<bool> = f.sections.iter().map(|s| chunks.contains(&base.as_bytes()[s.span.0 as usize..s.gap.1 as usize])).collect();
        let expected: Vec<bool> = (0..42).map(|i| i < 2 || (i - 2) % 3 != 0).collect();
        assert_eq!(found, expected);
        assert!(chunks.index.is_none(), "every miss was an edit in place");
    }

    #[test]
    fn sections_found_nowhere_are_searched_for_before_the_index_is_built() {
        let head = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node\"]\n\n";
        let other = format!("{head}{}", numbered_nodes(0..40));
        // Sections 100.. are in no other version; the rest are in order.
        let with_added =
            |added: std::ops::Range<usize>| format!("{head}{}{}{}", numbered_nodes(0..20), numbered_nodes(added), numbered_nodes(20..40));
        for (added, indexed) in [(100..100 + SEARCHES, false), (100..100 + SEARCHES + 9, true)] {
            let text = with_added(added.clone());
            let f = parse(text.as_bytes()).unwrap();
            let mut chunks = Chunks::of(other.as_bytes());
            let found: Vec<bool> =
                f.sections.iter().map(|s| chunks.contains(&text.as_bytes()[s.span.0 as usize..s.gap.1 as usize])).collect();
            let expected: Vec<bool> = (0..f.sections.len()).map(|i| !(22..22 + added.len()).contains(&i)).collect();
            assert_eq!(found, expected, "{} added", added.len());
            assert_eq!(chunks.index.is_some(), indexed, "{} added", added.len());
        }
    }
}
