//! A lossless JSON / SJSON parser: every value keeps its byte span, every element of a container
//! keeps the bytes before it (whitespace, comments, the comma), and each container keeps the bytes
//! before its closing bracket. Nothing is decoded or re-printed.

use levelmerge_core::Problem;

/// Which syntax a file is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// RFC 8259 JSON (comments tolerated as trivia).
    Json,
    /// BitSquid / Stingray simplified JSON: implicit root object, unquoted keys, `=` for `:`,
    /// optional commas, comments, `"""raw strings"""`.
    Sjson,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    Object,
    Array,
    String,
    Number,
    Literal,
}

pub const NO_SLOT: u32 = u32::MAX;

/// A byte range `[start, end)` of the source.
pub type Span = (u32, u32);

/// One value of the document (24 bytes: big levels hold millions).
#[derive(Debug, Clone)]
pub struct Node {
    pub start: u32,
    pub end: u32,
    /// Elements (objects: members; arrays: items), as a range of `Document::slots`.
    pub first_slot: u32,
    pub slot_count: u32,
    /// The slot this node is the value of (`NO_SLOT` for the root).
    pub slot: u32,
    pub kind: NodeKind,
}

const NO_COMMA: u32 = u32::MAX;

/// One element of a container: a member of an object or an item of an array (32 bytes).
#[derive(Debug, Clone)]
pub struct Slot {
    /// The container node.
    pub container: u32,
    /// Bytes before the element: the comma (if any), whitespace and comments.
    pub lead: Span,
    comma: u32,
    /// The member name used for matching (inside the quotes, if quoted); empty for items.
    pub name: Span,
    quoted: bool,
    pub value: u32,
}

impl Slot {
    /// Offset of the separating comma inside `lead`, if there is one.
    pub fn comma(&self) -> Option<u32> {
        (self.comma != NO_COMMA).then_some(self.comma)
    }

    /// The member name as written (with its quotes).
    pub fn key(&self) -> Span {
        if self.quoted {
            (self.name.0 - 1, self.name.1 + 1)
        } else {
            self.name
        }
    }
}

/// A parsed file.
#[derive(Debug, Clone)]
pub struct Document<'s> {
    pub src: &'s str,
    /// The editor that wrote the text, looked for once ([`Document::profile`]).
    pub profile: std::sync::OnceLock<Option<crate::Profile>>,
    pub nodes: Vec<Node>,
    pub slots: Vec<Slot>,
    pub root: u32,
    pub dialect: Dialect,
    /// SJSON files without braces around the top level.
    pub implicit_root: bool,
    /// Whether any container separates elements with commas.
    pub uses_commas: bool,
    newlines: Vec<u32>,
}

impl<'s> Document<'s> {
    pub fn text(&self, span: (u32, u32)) -> &'s str {
        &self.src[span.0 as usize..span.1 as usize]
    }

    pub fn node_text(&self, node: u32) -> &'s str {
        let n = &self.nodes[node as usize];
        self.text((n.start, n.end))
    }

    pub fn slots_of(&self, node: u32) -> &[Slot] {
        let n = &self.nodes[node as usize];
        &self.slots[n.first_slot as usize..(n.first_slot + n.slot_count) as usize]
    }

    /// Between a member's name and its value (`": "`, `" = "`).
    pub fn sep(&self, slot: &Slot) -> Span {
        (slot.key().1, self.nodes[slot.value as usize].start)
    }

    /// Bytes between the last element (or the opening bracket) and the closing bracket.
    pub fn tail(&self, node: u32) -> Span {
        let n = &self.nodes[node as usize];
        let implicit = self.implicit_root && node == self.root;
        let bracket = u32::from(!implicit);
        let start = match n.slot_count {
            0 => n.start + bracket,
            count => self.nodes[self.slots[(n.first_slot + count - 1) as usize].value as usize].end,
        };
        (start, n.end - bracket)
    }

    /// 1-based line of a byte offset.
    pub fn line_of(&self, offset: u32) -> u32 {
        self.newlines.partition_point(|&nl| nl < offset) as u32 + 1
    }

    /// The bytes before the root value (byte order mark, whitespace, comments).
    pub fn prefix(&self) -> &'s str {
        &self.src[..self.nodes[self.root as usize].start as usize]
    }

    /// The bytes after the root value (usually the final newline, or nothing).
    pub fn suffix(&self) -> &'s str {
        &self.src[self.nodes[self.root as usize].end as usize..]
    }

    /// The editor that wrote the text, looked for on first use.
    pub fn profile(&self) -> Option<crate::Profile> {
        *self.profile.get_or_init(|| crate::Profile::detect(self.src.as_bytes()))
    }

    /// The lead of a slot without its comma.
    pub fn lead_without_comma(&self, slot: &Slot) -> String {
        let lead = self.text(slot.lead);
        match slot.comma() {
            Some(c) => {
                let at = (c - slot.lead.0) as usize;
                let mut s = String::with_capacity(lead.len());
                s.push_str(&lead[..at]);
                s.push_str(&lead[at + 1..]);
                s
            }
            None => lead.to_owned(),
        }
    }
}

// Deep enough for any real level, shallow enough that every recursive pass stays far from the
// stack limit of a 2 MiB thread.
const MAX_DEPTH: usize = 128;

struct Draft {
    lead: Span,
    comma: u32,
    name: Span,
    quoted: bool,
    value: u32,
}

struct Parser<'s> {
    src: &'s [u8],
    pos: usize,
    nodes: Vec<Node>,
    slots: Vec<Slot>,
    scratch: Vec<Draft>,
    strict: bool,
    uses_commas: bool,
    depth: usize,
}

impl<'s> Parser<'s> {
    fn err(&self, message: impl Into<String>) -> Problem {
        Problem::syntax_at(self.src, self.pos, message)
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn describe(&self) -> String {
        match self.peek() {
            None => "end of file".into(),
            Some(b) if b.is_ascii_graphic() => format!("'{}'", b as char),
            Some(b) => format!("byte 0x{b:02x}"),
        }
    }

    /// Whitespace and comments.
    fn skip_trivia(&mut self) -> Result<(), Problem> {
        loop {
            while self.pos < self.src.len() && matches!(self.src[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            }
            match self.peek() {
                Some(b'/') if self.src.get(self.pos + 1) == Some(&b'/') => {
                    while let Some(b) = self.peek() {
                        if b == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                Some(b'/') if self.src.get(self.pos + 1) == Some(&b'*') => {
                    let start = self.pos;
                    self.pos += 2;
                    loop {
                        match self.peek() {
                            None => {
                                self.pos = start;
                                return Err(self.err("unterminated comment"));
                            }
                            Some(b'*') if self.src.get(self.pos + 1) == Some(&b'/') => {
                                self.pos += 2;
                                break;
                            }
                            Some(_) => self.pos += 1,
                        }
                    }
                }
                Some(0xEF) if self.pos == 0 && self.src.starts_with(b"\xEF\xBB\xBF") => self.pos += 3,
                _ => return Ok(()),
            }
        }
    }

    fn push_node(&mut self, start: usize, kind: NodeKind) -> u32 {
        self.nodes.push(Node { start: start as u32, end: start as u32, kind, first_slot: 0, slot_count: 0, slot: NO_SLOT });
        (self.nodes.len() - 1) as u32
    }

    fn value(&mut self) -> Result<u32, Problem> {
        let start = self.pos;
        match self.peek() {
            Some(b'{') => self.container(true, false),
            Some(b'[') => self.container(false, false),
            Some(b'"') => {
                self.string()?;
                let n = self.push_node(start, NodeKind::String);
                self.nodes[n as usize].end = self.pos as u32;
                Ok(n)
            }
            Some(b'-' | b'0'..=b'9') => {
                self.number()?;
                let n = self.push_node(start, NodeKind::Number);
                self.nodes[n as usize].end = self.pos as u32;
                Ok(n)
            }
            Some(b't' | b'f' | b'n') => {
                for word in [&b"true"[..], b"false", b"null"] {
                    if self.src[self.pos..].starts_with(word) {
                        self.pos += word.len();
                        let n = self.push_node(start, NodeKind::Literal);
                        self.nodes[n as usize].end = self.pos as u32;
                        return Ok(n);
                    }
                }
                Err(self.err(format!("unexpected {}: expected a value", self.describe())))
            }
            _ => Err(self.err(format!("unexpected {}: expected a value", self.describe()))),
        }
    }

    fn string(&mut self) -> Result<(), Problem> {
        let start = self.pos;
        if !self.strict && self.src[self.pos..].starts_with(b"\"\"\"") {
            self.pos += 3;
            while self.pos < self.src.len() {
                if self.src[self.pos..].starts_with(b"\"\"\"") {
                    self.pos += 3;
                    return Ok(());
                }
                self.pos += 1;
            }
            self.pos = start;
            return Err(self.err("unterminated raw string"));
        }
        self.pos += 1;
        // Most strings of a level are short: a plain loop beats a vectorised search here.
        while let Some(&b) = self.src.get(self.pos) {
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\\' => self.pos += 2,
                b'\n' if self.strict => return Err(self.err("line break inside a string")),
                _ => self.pos += 1,
            }
        }
        self.pos = start;
        Err(self.err("unterminated string"))
    }

    fn number(&mut self) -> Result<(), Problem> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let digits = |p: &mut Self| {
            let s = p.pos;
            while matches!(p.peek(), Some(b'0'..=b'9')) {
                p.pos += 1;
            }
            p.pos > s
        };
        if !digits(self) {
            return Err(self.err("a number needs digits"));
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !digits(self) {
                return Err(self.err("a number needs digits after '.'"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !digits(self) {
                return Err(self.err("a number needs digits in its exponent"));
            }
        }
        if self.strict && self.src[start..self.pos].starts_with(b"0") && self.pos - start > 1 && self.src[start + 1].is_ascii_digit() {
            self.pos = start;
            return Err(self.err("numbers must not start with 0"));
        }
        Ok(())
    }

    /// A member name: a JSON string, or in SJSON a bare word.
    /// Returns the span as written and the span of the name inside it.
    fn key(&mut self) -> Result<(Span, Span), Problem> {
        let start = self.pos;
        if self.peek() == Some(b'"') {
            self.string()?;
            return Ok(((start as u32, self.pos as u32), (start as u32 + 1, self.pos as u32 - 1)));
        }
        if self.strict {
            return Err(self.err(format!("unexpected {}: expected a member name in quotes", self.describe())));
        }
        while let Some(b) = self.peek() {
            if b.is_ascii_whitespace() || matches!(b, b'=' | b':' | b'{' | b'}' | b'[' | b']' | b',' | b'"') {
                break;
            }
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.err(format!("unexpected {}: expected a member name", self.describe())));
        }
        Ok(((start as u32, self.pos as u32), (start as u32, self.pos as u32)))
    }

    fn container(&mut self, keyed: bool, implicit: bool) -> Result<u32, Problem> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        let start = self.pos;
        let node = self.push_node(start, if keyed { NodeKind::Object } else { NodeKind::Array });
        let close = if keyed { b'}' } else { b']' };
        if !implicit {
            self.pos += 1;
        }
        let scratch_start = self.scratch.len();
        let mut count = 0usize;
        loop {
            let lead_start = self.pos;
            self.skip_trivia()?;
            let at_end = if implicit { self.peek().is_none() } else { self.peek() == Some(close) };
            let mut comma = NO_COMMA;
            if count > 0 && !at_end {
                if self.peek() == Some(b',') {
                    comma = self.pos as u32;
                    self.uses_commas = true;
                    self.pos += 1;
                    self.skip_trivia()?;
                } else if self.strict {
                    let what = if keyed { "'}'" } else { "']'" };
                    return Err(self.err(format!("unexpected {}: expected ',' or {what}", self.describe())));
                }
            }
            let at_end = if implicit { self.peek().is_none() } else { self.peek() == Some(close) };
            if at_end {
                if comma != NO_COMMA && self.strict {
                    return Err(self.err("trailing comma"));
                }
                break;
            }
            if self.peek().is_none() {
                let what = if keyed { "'}'" } else { "']'" };
                self.pos = start;
                return Err(self.err(format!("unclosed {}: no matching {what}", if keyed { "'{'" } else { "'['" })));
            }
            let element_start = self.pos as u32;
            let (name, quoted) = if keyed {
                let (key, name) = self.key()?;
                self.skip_trivia()?;
                match self.peek() {
                    Some(b':') => self.pos += 1,
                    Some(b'=') if !self.strict => self.pos += 1,
                    _ => return Err(self.err(format!("unexpected {}: expected ':' after the member name", self.describe()))),
                }
                self.skip_trivia()?;
                (name, key != name)
            } else {
                ((element_start, element_start), false)
            };
            let value = self.value()?;
            self.scratch.push(Draft { lead: (lead_start as u32, element_start), comma, name, quoted, value });
            count += 1;
        }
        if !implicit {
            self.pos += 1;
        }
        let first_slot = self.slots.len() as u32;
        for d in self.scratch.drain(scratch_start..) {
            self.nodes[d.value as usize].slot = self.slots.len() as u32;
            self.slots.push(Slot { container: node, lead: d.lead, comma: d.comma, name: d.name, quoted: d.quoted, value: d.value });
        }
        let n = &mut self.nodes[node as usize];
        n.end = self.pos as u32;
        n.first_slot = first_slot;
        n.slot_count = count as u32;
        self.depth -= 1;
        Ok(node)
    }
}

/// Parse a document.
pub fn parse(src: &[u8], dialect: Dialect) -> Result<Document<'_>, Problem> {
    if src.len() >= u32::MAX as usize {
        return Err(Problem::Syntax { line: 1, column: 1, message: "file larger than 4 GiB".into() });
    }
    if let Some(zero) = src.iter().take(8000).position(|&b| b == 0) {
        return Err(Problem::syntax_at(src, zero, "binary data (NUL byte), not a text file"));
    }
    let text = std::str::from_utf8(src).map_err(|e| Problem::syntax_at(src, e.valid_up_to(), "not UTF-8 text"))?;
    // Real levels hold about one value per 10 to 20 bytes: sizing the arrays up front spares
    // regrowing (and copying) them; capacity never touched costs no memory.
    let estimate = src.len() / 10 + 16;
    let mut p = Parser {
        src,
        pos: 0,
        nodes: Vec::with_capacity(estimate),
        slots: Vec::with_capacity(estimate),
        scratch: Vec::new(),
        strict: dialect == Dialect::Json,
        uses_commas: false,
        depth: 0,
    };
    p.skip_trivia()?;
    let implicit = dialect == Dialect::Sjson && !matches!(p.peek(), Some(b'{' | b'['));
    let root = if implicit {
        p.pos = 0;
        p.container(true, true)?
    } else {
        if p.peek().is_none() {
            return Err(p.err("empty file: expected a JSON value"));
        }
        let root = p.value()?;
        p.skip_trivia()?;
        if p.peek().is_some() {
            return Err(p.err(format!("unexpected {} after the end of the document", p.describe())));
        }
        root
    };
    let mut newlines = Vec::with_capacity(src.len() / 24 + 16);
    newlines.extend(memchr::memchr_iter(b'\n', src).map(|i| i as u32));
    let uses_commas = p.uses_commas || dialect == Dialect::Json;
    Ok(Document {
        src: text,
        nodes: p.nodes,
        slots: p.slots,
        root,
        dialect,
        implicit_root: implicit,
        uses_commas,
        newlines,
        profile: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_trivia() {
        let d = parse(b"{ \"a\" : 1 ,\n \"b\": [true, null] }\n", Dialect::Json).unwrap();
        let root = d.root;
        assert_eq!(d.node_text(root), "{ \"a\" : 1 ,\n \"b\": [true, null] }");
        let slots = d.slots_of(root);
        assert_eq!(slots.len(), 2);
        assert_eq!(d.text(slots[0].name), "a");
        assert_eq!(d.text(d.sep(&slots[0])), " : ");
        assert_eq!(d.text(slots[0].key()), "\"a\"");
        assert_eq!(d.text(slots[1].lead), " ,\n ");
        assert_eq!(d.lead_without_comma(&slots[1]), " \n ");
        assert_eq!(d.text(d.tail(root)), " ");
        assert_eq!(d.suffix(), "\n");
    }

    #[test]
    fn errors_have_positions() {
        let e = parse(b"{\n  \"a\": 1,\n  \"b\": }\n", Dialect::Json).unwrap_err();
        assert!(matches!(e, Problem::Syntax { line: 3, column: 8, .. }), "{e:?}");
        let e = parse(b"{\"a\":1}\n<<<<<<< ours\n", Dialect::Json).unwrap_err();
        assert!(e.to_string().contains("conflict marker"), "{e}");
        assert!(parse(b"", Dialect::Json).is_err());
        assert!(parse(b"{\"a\":1,}", Dialect::Json).is_err());
        assert!(parse(b"{\"a\":1 \"b\":2}", Dialect::Json).is_err());
        assert!(parse(b"\x00\x01", Dialect::Json).unwrap_err().to_string().contains("binary"));
        assert!(parse(&[b'['; 5000], Dialect::Json).unwrap_err().to_string().contains("nesting"));
    }

    #[test]
    fn sjson() {
        let src =
            b"// level\nversion = \"3.0.0\"\nunits = [\n\t{ _guid = \"a\" name = \"x\" }\n\t{ _guid = \"b\" }\n]\nraw = \"\"\"a\"b\"\"\"\n";
        let d = parse(src, Dialect::Sjson).unwrap();
        assert!(d.implicit_root);
        let names: Vec<&str> = d.slots_of(d.root).iter().map(|s| d.text(s.name)).collect();
        assert_eq!(names, ["version", "units", "raw"]);
        assert!(!d.uses_commas);
    }
}
