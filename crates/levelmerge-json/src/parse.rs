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
    /// A container left unread: it lies where every merged version holds the same lines
    /// ([`parse_skipping`]), so it has no slots and stands for its bytes.
    pub opaque: bool,
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
    pub(crate) quoted: bool,
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
    /// Whether the editor's references are followed when this version is merged (its
    /// [`crate::Profile::references_may_dangle`] across the three versions, decided once when they are
    /// read together).
    pub follows_references: bool,
    pub nodes: Vec<Node>,
    pub slots: Vec<Slot>,
    pub root: u32,
    pub dialect: Dialect,
    /// SJSON files without braces around the top level.
    pub implicit_root: bool,
    /// Whether any container separates elements with commas.
    pub uses_commas: bool,
    /// Where each line ends, found on first use ([`Document::line_of`]).
    newlines: std::sync::OnceLock<Vec<u32>>,
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

    /// The value of `object`'s member `name`, if it has one.
    pub fn member(&self, object: u32, name: &str) -> Option<u32> {
        self.slots_of(object).iter().find(|s| self.text(s.name) == name).map(|s| s.value)
    }

    /// The value at `node` as an integer, where it is written as one.
    pub fn integer(&self, node: u32) -> Option<i64> {
        (self.nodes[node as usize].kind == NodeKind::Number).then(|| self.node_text(node).parse().ok()).flatten()
    }

    /// Between a member's name and its value (`": "`, `" = "`).
    pub fn sep(&self, slot: &Slot) -> Span {
        (slot.key().1, self.nodes[slot.value as usize].start)
    }

    /// Whether the root value is an object or an array (it may be a lone scalar).
    pub fn root_is_a_container(&self) -> bool {
        self.nodes.get(self.root as usize).is_some_and(|n| matches!(n.kind, NodeKind::Object | NodeKind::Array))
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
        let newlines = self.newlines.get_or_init(|| memchr::memchr_iter(b'\n', self.src.as_bytes()).map(|i| i as u32).collect());
        newlines.partition_point(|&nl| nl < offset) as u32 + 1
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

/// A syntax error on its way out of the parser: boxed, so that every step's result stays
/// small on the success path.
type Failure = Box<Problem>;

struct Parser<'s, 'r> {
    src: &'s [u8],
    pos: usize,
    nodes: Vec<Node>,
    slots: Vec<Slot>,
    scratch: Vec<Draft>,
    /// Containers that close inside a stable range ([`closed_containers`]), in order, and the
    /// next one to come.
    closed: &'r [Closed],
    next_closed: usize,
    /// Whether what is read is kept (false while a container is only checked).
    keep: bool,
    strict: bool,
    uses_commas: bool,
    depth: usize,
    /// Where each comment read lies, when asked for ([`comment_spans`]).
    comments: Option<Vec<(usize, usize)>>,
}

impl<'s, 'r> Parser<'s, 'r> {
    /// A parser at the start of `src`, keeping what it reads or only checking it (`keep`).
    fn new(src: &'s [u8], dialect: Dialect, closed: &'r [Closed], keep: bool) -> Self {
        Parser {
            src,
            pos: 0,
            nodes: Vec::new(),
            slots: Vec::new(),
            scratch: Vec::new(),
            closed,
            next_closed: 0,
            keep,
            strict: dialect == Dialect::Json,
            uses_commas: false,
            depth: 0,
            comments: None,
        }
    }
}

/// Bytes a string's plain run stops at: its closing quote, an escape, a control character
/// (which strict JSON refuses).
const STRING_STOPS: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

impl Parser<'_, '_> {
    fn err(&self, message: impl Into<String>) -> Failure {
        Box::new(Problem::syntax_at(self.src, self.pos, message))
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
    #[inline]
    fn skip_trivia(&mut self) -> Result<(), Failure> {
        // Whitespace alone, the common case, in a loop of its own.
        let mut pos = self.pos;
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.src.get(pos) {
            pos += 1;
        }
        self.pos = pos;
        match self.src.get(pos) {
            Some(b'/' | 0xEF) => self.skip_comments(),
            _ => Ok(()),
        }
    }

    /// Whitespace and comments, from a comment (or a byte order mark).
    #[cold]
    fn skip_comments(&mut self) -> Result<(), Failure> {
        loop {
            while self.pos < self.src.len() && matches!(self.src[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            }
            match self.peek() {
                Some(b'/') if self.src.get(self.pos + 1) == Some(&b'/') => {
                    let start = self.pos;
                    while let Some(b) = self.peek() {
                        if b == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                    self.note_comment(start);
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
                                self.note_comment(start);
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

    fn note_comment(&mut self, start: usize) {
        if let Some(comments) = &mut self.comments {
            comments.push((start, self.pos));
        }
    }

    /// The root value, and whether it is an SJSON file's implicit object.
    fn document(&mut self, dialect: Dialect) -> Result<(u32, bool), Failure> {
        self.skip_trivia()?;
        if dialect == Dialect::Sjson && !matches!(self.peek(), Some(b'{' | b'[')) {
            self.pos = 0;
            return Ok((self.container(true, true)?, true));
        }
        if self.peek().is_none() {
            return Err(self.err("empty file: expected a JSON value"));
        }
        let root = self.value()?;
        self.skip_trivia()?;
        if self.peek().is_some() {
            return Err(self.err(format!("unexpected {} after the end of the document", self.describe())));
        }
        Ok((root, false))
    }

    fn push_node(&mut self, start: usize, kind: NodeKind) -> u32 {
        self.nodes.push(Node { start: start as u32, end: start as u32, kind, first_slot: 0, slot_count: 0, slot: NO_SLOT, opaque: false });
        (self.nodes.len() - 1) as u32
    }

    /// A scalar read up to the current position (nothing is kept while only checking).
    fn leaf(&mut self, start: usize, kind: NodeKind) -> u32 {
        if !self.keep {
            return 0;
        }
        let n = self.push_node(start, kind);
        self.nodes[n as usize].end = self.pos as u32;
        n
    }

    /// A container known to close inside a stable range ([`closed_containers`]): checked for
    /// syntax without keeping anything (unless another version checks the same bytes), then
    /// kept as one opaque node (while only checking, passed over).
    fn opaque_container(&mut self, keyed: bool, closed: Closed) -> Result<u32, Failure> {
        let start = self.pos;
        let end = closed.end;
        let keep = self.keep;
        if closed.check {
            self.keep = false;
            let checked = self.container(keyed, false);
            self.keep = keep;
            checked?;
            if self.pos != end as usize {
                // The scan disagreed (it cannot when the syntax is right): read it in full.
                self.pos = start;
                return self.container(keyed, false);
            }
        }
        self.pos = end as usize;
        if !keep {
            return Ok(0);
        }
        let n = self.push_node(start, if keyed { NodeKind::Object } else { NodeKind::Array });
        let first_slot = self.slots.len() as u32;
        let node = &mut self.nodes[n as usize];
        node.end = end;
        node.first_slot = first_slot;
        node.opaque = true;
        Ok(n)
    }

    /// The container opening here, when it closes inside a stable range.
    fn known_closed(&mut self) -> Option<Closed> {
        let at = self.pos as u32;
        while self.closed.get(self.next_closed).is_some_and(|c| c.open < at) {
            self.next_closed += 1;
        }
        self.closed.get(self.next_closed).filter(|c| c.open == at).copied()
    }

    fn value(&mut self) -> Result<u32, Failure> {
        let start = self.pos;
        match self.peek() {
            Some(b @ (b'{' | b'[')) => {
                let keyed = b == b'{';
                // Known containers lie outside one another: inside one being checked, none is.
                match (!self.closed.is_empty()).then(|| self.known_closed()).flatten() {
                    Some(closed) if self.depth > 0 => self.opaque_container(keyed, closed),
                    _ => self.container(keyed, false),
                }
            }
            Some(b'"') => {
                self.string()?;
                Ok(self.leaf(start, NodeKind::String))
            }
            Some(b'-' | b'0'..=b'9') => {
                self.number()?;
                Ok(self.leaf(start, NodeKind::Number))
            }
            Some(b't' | b'f' | b'n') => {
                for word in [&b"true"[..], b"false", b"null"] {
                    if self.src[self.pos..].starts_with(word) {
                        self.pos += word.len();
                        return Ok(self.leaf(start, NodeKind::Literal));
                    }
                }
                Err(self.err(format!("unexpected {}: expected a value", self.describe())))
            }
            _ => Err(self.err(format!("unexpected {}: expected a value", self.describe()))),
        }
    }

    fn string(&mut self) -> Result<(), Failure> {
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
        loop {
            // Plain bytes, most of any string, in a loop of their own (strings of a level are
            // short: a plain loop beats a vectorised search here).
            // (An escape at the very end leaves `pos` past it.)
            let rest = self.src.get(self.pos..).unwrap_or_default();
            let plain = rest.iter().position(|&b| STRING_STOPS[b as usize]);
            self.pos = plain.map_or(self.src.len(), |p| self.pos + p);
            let Some(&b) = self.src.get(self.pos) else { break };
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                // JSON names its escapes; a reader refuses any other (`\\B` where a path lost a
                // backslash), so a file holding one loads nowhere.
                b'\\' if self.strict => match self.src.get(self.pos + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.pos += 2,
                    Some(b'u') if self.src.get(self.pos + 2..self.pos + 6).is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) => {
                        self.pos += 6
                    }
                    _ => return Err(self.err("an escape JSON does not have inside a string")),
                },
                b'\\' => self.pos += 2,
                b'\n' if self.strict => return Err(self.err("line break inside a string")),
                // JSON has no raw control character in a string (a tab typed into a name):
                // every reader refuses the file.
                0..=0x1f if self.strict => return Err(self.err("a control character inside a string (JSON writes it escaped)")),
                _ => self.pos += 1,
            }
        }
        self.pos = start;
        Err(self.err("unterminated string"))
    }

    fn number(&mut self) -> Result<(), Failure> {
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
    fn key(&mut self) -> Result<(Span, Span), Failure> {
        let start = self.pos;
        if self.peek() == Some(b'"') {
            self.string()?;
            return Ok(((start as u32, self.pos as u32), (start as u32 + 1, self.pos as u32 - 1)));
        }
        if self.strict {
            return Err(self.err(format!("unexpected {}: expected a member name in quotes", self.describe())));
        }
        while self.peek().is_some_and(in_a_bare_word) {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.err(format!("unexpected {}: expected a member name", self.describe())));
        }
        Ok(((start as u32, self.pos as u32), (start as u32, self.pos as u32)))
    }

    fn container(&mut self, keyed: bool, implicit: bool) -> Result<u32, Failure> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        let start = self.pos;
        let node = if self.keep { self.push_node(start, if keyed { NodeKind::Object } else { NodeKind::Array }) } else { 0 };
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
            if self.keep {
                self.scratch.push(Draft { lead: (lead_start as u32, element_start), comma, name, quoted, value });
            }
            count += 1;
        }
        if !implicit {
            self.pos += 1;
        }
        if !self.keep {
            self.depth -= 1;
            return Ok(node);
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

/// A container that opens and closes inside a stable range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed {
    /// Where it opens and where it ends.
    pub open: u32,
    pub end: u32,
    /// Whether this version's parse checks its syntax (the same bytes are checked once, in
    /// one of the versions).
    pub check: bool,
}

/// Where the string whose opening quote is at `open` closes: its closing quote, escapes
/// skipped, or `limit` or beyond when it does not close before it. For quick scans that only
/// follow strings and brackets.
pub(crate) fn closing_quote(src: &[u8], open: usize, limit: usize) -> usize {
    let mut i = open + 1;
    while i < limit && src[i] != b'"' {
        i += if src[i] == b'\\' { 2 } else { 1 };
    }
    i
}

/// The containers that open and close inside one of the `stable` ranges (in order) and lie in
/// no other such container but an object in an array (whose members tell its identity, so it
/// is read): `(range, open, end)` in order, `range` indexing `stable`. A quick scan that only
/// follows strings and brackets: the parser checks the syntax. Strict JSON only: there a line
/// never starts inside a string, so each range is scanned from a known state; a comment ends
/// its range's scan.
pub fn closed_containers(src: &[u8], stable: &[(u32, u32)]) -> Vec<(usize, u32, u32)> {
    struct Open {
        at: u32,
        object: bool,
        /// Where its contents' records start.
        records: usize,
    }
    let mut closed = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    'ranges: for (range, &(from, to)) in stable.iter().enumerate() {
        open.clear();
        let range_start = closed.len();
        let mut i = from as usize;
        while i < to as usize {
            match src[i] {
                b'"' => i = closing_quote(src, i, to as usize),
                b @ (b'{' | b'[') => open.push(Open { at: i as u32, object: b == b'{', records: closed.len() }),
                b'}' | b']' => {
                    // A bracket closing a container opened before the range leaves it open.
                    if let Some(done) = open.pop() {
                        // What holds a container opened before the range, the range cannot
                        // tell: lines a side moved elsewhere (an object's lines, moved to
                        // another layer's list) align with where they were, and the container
                        // holding them there is another's. It is read, and what it holds may
                        // be left unread.
                        let holder_in_range = !open.is_empty();
                        let in_array = open.last().is_some_and(|o| !o.object);
                        // An empty one costs nothing to read, and reads as the empty list
                        // every side may fill.
                        let empty = src[done.at as usize + 1..i].iter().all(u8::is_ascii_whitespace);
                        if holder_in_range && !(empty || done.object && in_array) {
                            closed.truncate(done.records);
                            closed.push((range, done.at, i as u32 + 1));
                        }
                    }
                }
                b'/' => {
                    closed.truncate(range_start);
                    continue 'ranges;
                }
                _ => {}
            }
            i += 1;
        }
    }
    closed
}

/// Parse a document.
pub fn parse(src: &[u8], dialect: Dialect) -> Result<Document<'_>, Problem> {
    parse_skipping(src, dialect, &[])
}

/// The three versions of a merge parsed as JSON, `None` where one does not read.
pub fn parse_versions<'s>(texts: levelmerge_core::Sides<&'s [u8]>) -> Option<levelmerge_core::Sides<Document<'s>>> {
    Some(levelmerge_core::Sides::new(
        parse(texts.base, Dialect::Json).ok()?,
        parse(texts.ours, Dialect::Json).ok()?,
        parse(texts.theirs, Dialect::Json).ok()?,
    ))
}

/// The outermost containers of `doc` (below its root) that lie inside one of the `ranges` of
/// its text, placed where the same bytes lie in another text: at `placed[i]` for `ranges[i]`
/// (both in order, of equal lengths). The other text's parse may leave them unread
/// ([`parse_skipping`]): `doc` read them. Found on the parsed tree, along the paths to what
/// lies outside the ranges.
pub fn containers_within(doc: &Document<'_>, ranges: &[(u32, u32)], placed: &[(u32, u32)]) -> Vec<Closed> {
    let range_of = |start: u32, end: u32| {
        let i = ranges.partition_point(|r| r.1 < end);
        ranges.get(i).filter(|r| r.0 <= start).map(|_| i)
    };
    let mut found = Vec::new();
    let mut pending = vec![doc.root];
    while let Some(node) = pending.pop() {
        for slot in doc.slots_of(node) {
            let child = &doc.nodes[slot.value as usize];
            if !matches!(child.kind, NodeKind::Object | NodeKind::Array) {
                continue;
            }
            match range_of(child.start, child.end) {
                Some(i) => {
                    let placed_at = |at: u32| at - ranges[i].0 + placed[i].0;
                    found.push(Closed { open: placed_at(child.start), end: placed_at(child.end), check: false });
                }
                // An opaque container was not read: what lies in it is not known.
                None if !child.opaque => pending.push(slot.value),
                None => {}
            }
        }
    }
    found.sort_unstable_by_key(|c| c.open);
    found
}

/// Parse a document, leaving opaque the `closed` containers (in order): those that lie inside
/// ranges whose bytes every merged version holds at the same place of their alignment
/// ([`levelmerge_core::text::stable_spans`], [`closed_containers`]).
pub fn parse_skipping<'s>(src: &'s [u8], dialect: Dialect, closed: &[Closed]) -> Result<Document<'s>, Problem> {
    let text = readable_text(src)?;
    // Every value but the root follows a comma or an opening bracket: counting them sizes the
    // arrays up front (commas inside strings only add room), which spares regrowing and
    // copying them, most of the reading time of a big level. A container left unread is one
    // node, so its bytes are not counted: room reserved for nothing still took memory.
    let count = |part: &[u8]| {
        part.chunks(255)
            .map(|chunk| usize::from(chunk.iter().fold(0u8, |n, &b| n + u8::from(matches!(b, b',' | b'[' | b'{')))))
            .sum::<usize>()
    };
    let mut estimate = 1 + closed.len();
    let mut from = 0;
    for c in closed {
        estimate += count(&src[from.min(c.open as usize)..c.open as usize]);
        from = from.max(c.end as usize);
    }
    estimate += count(&src[from.min(src.len())..]);
    let mut p = Parser::new(src, dialect, closed, true);
    p.nodes.reserve(estimate);
    p.slots.reserve(estimate);
    let (root, implicit) = p.document(dialect).map_err(|failure| naming_place(*failure, src, p.pos, dialect))?;
    let uses_commas = p.uses_commas || dialect == Dialect::Json;
    Ok(Document {
        src: text,
        nodes: p.nodes,
        slots: p.slots,
        root,
        dialect,
        implicit_root: implicit,
        uses_commas,
        newlines: std::sync::OnceLock::new(),
        profile: Default::default(),
        follows_references: false,
    })
}

/// Whether a text reads as a document of the dialect, found as [`parse`] finds it, without
/// keeping anything of it: the check a merged text is read back with.
pub fn check_syntax(src: &[u8], dialect: Dialect) -> Result<(), Problem> {
    check_syntax_skipping(src, dialect, &[])
}

/// [`check_syntax`], passing over the `known` containers (in order, none inside another): their
/// bytes read as sound elsewhere ([`containers_within`]).
pub fn check_syntax_skipping(src: &[u8], dialect: Dialect, known: &[Closed]) -> Result<(), Problem> {
    readable_text(src)?;
    let mut p = Parser::new(src, dialect, known, false);
    p.document(dialect).map(|_| ()).map_err(|failure| naming_place(*failure, src, p.pos, dialect))
}

/// Where each comment of `src` lies, as its reading finds them: never inside a string, nor
/// inside an SJSON member name written bare (`a/*b = 1` names `a/*b`). `None` when `src` does
/// not read.
pub fn comment_spans(src: &[u8], dialect: Dialect) -> Option<Vec<(usize, usize)>> {
    readable_text(src).ok()?;
    let mut p = Parser::new(src, dialect, &[], false);
    p.comments = Some(Vec::new());
    p.document(dialect).ok()?;
    p.comments
}

/// The text of a file that can be read at all: under 4 GiB, text (no NUL byte near its
/// start), UTF-8.
fn readable_text(src: &[u8]) -> Result<&str, Problem> {
    if src.len() >= u32::MAX as usize {
        return Err(Problem::Syntax { line: 1, column: 1, message: "file larger than 4 GiB".into() });
    }
    if let Some(zero) = src.iter().take(8000).position(|&b| b == 0) {
        return Err(Problem::syntax_at(src, zero, "binary data (NUL byte), not a text file"));
    }
    std::str::from_utf8(src).map_err(|e| Problem::syntax_at(src, e.valid_up_to(), "not UTF-8 text"))
}

/// Whether a byte continues a bare word: an SJSON member name read without quotes, and what
/// two values or names written side by side would run together in (`11 = 4` then `1 = 2`,
/// written without a space between, read as `11 = 41 = 2`).
pub fn in_a_bare_word(b: u8) -> bool {
    !(b.is_ascii_whitespace() || matches!(b, b'=' | b':' | b'{' | b'}' | b'[' | b']' | b',' | b'"'))
}

/// A syntax error of a JSON file, naming where in the document it lies: a level written on
/// one line (as Tiled and LDtk can) makes its line and column say little.
fn naming_place(problem: Problem, src: &[u8], pos: usize, dialect: Dialect) -> Problem {
    let path = if dialect == Dialect::Json { path_at(src, pos) } else { String::new() };
    if path.is_empty() {
        problem
    } else {
        problem.placed(&format!("at {path}"))
    }
}

/// The members and indices that lead to `pos` in a JSON text (`levels[0].layerInstances[2]`),
/// read by a tolerant scan of the text before it. Long names are cut short, and so is a long
/// path (its end kept).
fn path_at(src: &[u8], pos: usize) -> String {
    enum Frame {
        Object { key: Option<(usize, usize)>, expecting_key: bool },
        Array { index: usize },
    }
    const LONGEST_NAME: usize = 40;
    const LONGEST_PATH: usize = 160;
    let mut stack: Vec<Frame> = Vec::new();
    let end = pos.min(src.len());
    let mut i = 0;
    while i < end {
        match src[i] {
            b'"' => {
                let start = i + 1;
                i = closing_quote(src, i, src.len());
                if let Some(Frame::Object { key, expecting_key: expecting @ true }) = stack.last_mut() {
                    *key = Some((start, i.min(src.len())));
                    *expecting = false;
                }
            }
            b'{' => stack.push(Frame::Object { key: None, expecting_key: true }),
            b'[' => stack.push(Frame::Array { index: 0 }),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array { index }) => *index += 1,
                Some(Frame::Object { key, expecting_key }) => {
                    *key = None;
                    *expecting_key = true;
                }
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for frame in &stack {
        match frame {
            Frame::Object { key: Some((start, end)), .. } => {
                let name = String::from_utf8_lossy(&src[*start..*end]);
                if !path.is_empty() {
                    path.push('.');
                }
                let (shown, cut) = match name.char_indices().nth(LONGEST_NAME) {
                    Some((cut, _)) => (&name[..cut], "…"),
                    None => (&name[..], ""),
                };
                // A control character in a name (the very error, maybe) is shown escaped.
                for c in shown.chars() {
                    if c.is_control() {
                        path.extend(c.escape_default());
                    } else {
                        path.push(c);
                    }
                }
                path.push_str(cut);
            }
            Frame::Object { key: None, .. } => {}
            Frame::Array { index } => path.push_str(&format!("[{index}]")),
        }
    }
    let chars = path.chars().count();
    if chars > LONGEST_PATH {
        let (cut, _) = path.char_indices().nth(chars - LONGEST_PATH).expect("the path is longer than the cut");
        path = format!("…{}", &path[cut..]);
    }
    path
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
    fn trivia_of_every_kind_is_kept_in_the_lead() {
        let src = "\u{FEFF}{\n  // one\n  \"a\": 1, /* two */\r\n\t\"b\" : /* three */ 2\n}";
        let d = parse(src.as_bytes(), Dialect::Json).unwrap();
        assert_eq!(d.prefix(), "\u{FEFF}");
        let slots = d.slots_of(d.root);
        assert_eq!(d.text(slots[0].lead), "\n  // one\n  ");
        assert_eq!(d.text(slots[1].lead), ", /* two */\r\n\t");
        assert_eq!(d.text(d.sep(&slots[1])), " : /* three */ ");
        assert_eq!(d.line_of(d.nodes[slots[1].value as usize].start), 4, "lines are counted when first asked for");
        assert!(parse(b"{\"a\": 1 /* open", Dialect::Json).unwrap_err().to_string().contains("unterminated comment"));
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
        // A string cut after an escape, or after an opening quote, at the end of the file.
        for cut in [&b"a = \"x\\"[..], b"a = \"x\\\\", b"{\"a\": \"", b"[\"x\\"] {
            for dialect in [Dialect::Json, Dialect::Sjson] {
                let e = parse(cut, dialect).unwrap_err().to_string();
                assert!(e.contains("string") || e.contains("expected"), "{}: {e}", String::from_utf8_lossy(cut));
            }
        }
    }

    #[test]
    fn an_escape_json_does_not_have_or_a_raw_control_character_is_refused() {
        // A path that lost a backslash (`\\B`): every JSON reader refuses the file.
        let e = parse(b"{\"name\": \"assets\\\\bullet\\Bullet.png\"}", Dialect::Json).unwrap_err();
        assert!(matches!(e, Problem::Syntax { line: 1, column: 25, .. }), "{e:?}");
        assert!(e.to_string().contains("an escape JSON does not have"), "{e}");
        assert!(parse(b"{\"a\": \"\\u00e\"}", Dialect::Json).is_err());
        let e = parse(b"{\"a\": \"tab\there\"}", Dialect::Json).unwrap_err();
        assert!(matches!(e, Problem::Syntax { line: 1, column: 11, .. }), "{e:?}");
        assert!(e.to_string().contains("a control character inside a string"), "{e}");
        let e = parse(b"{\"a\": {\"b\tc\": 1}}", Dialect::Json).unwrap_err();
        assert!(e.to_string().contains("(at a.b\\tc)"), "the place shows the tab escaped: {e}");
        // Every escape JSON has reads.
        assert!(parse(b"{\"a\": \"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00E9\"}", Dialect::Json).is_ok());
    }

    #[test]
    fn errors_name_their_place_in_the_document() {
        let place = |src: &str| match parse(src.as_bytes(), Dialect::Json).unwrap_err() {
            Problem::Syntax { message, .. } => message.rsplit_once(" (at ").map(|(_, at)| at.trim_end_matches(')').to_owned()),
            other => panic!("{other:?}"),
        };
        let level = r#"{"defs": {}, "levels": [{"iid": "x"}, {"iid": "y", "layerInstances": [{"gridTiles": [{"px": [0, 0], "t": }]}]}]}"#;
        assert_eq!(place(level).as_deref(), Some("levels[1].layerInstances[0].gridTiles[0].t"));
        // Strings holding brackets, commas and escaped quotes do not move the place.
        let tricky = r#"{"a\"[": "x,]{", "list": [1, "[,", {"k": [2, 3 4]}]}"#;
        assert_eq!(place(tricky).as_deref(), Some("list[2].k[1]"));
        // Nothing to name at the top; a long name and a long path are cut short.
        assert_eq!(place("{\"a\": 1,}"), None);
        let long = format!("{{\"{}\": [", "n".repeat(60)) + &"[".repeat(100) + "}";
        let at = place(&long).unwrap();
        assert!(at.starts_with('…') && at.ends_with("[0]") && at.chars().count() == 161, "{at}");
        let named = place(&format!("{{\"{}\": }}", "n".repeat(60))).unwrap();
        assert_eq!(named, format!("{}…", "n".repeat(40)));
    }

    #[test]
    fn containers_in_stable_ranges_are_opaque() {
        let src = b"{\n\"a\": [1, [2]],\n\"items\": [\n{\"id\": 1, \"at\": [0, 0]}\n],\n\"b\": 0\n}\n";
        let text = std::str::from_utf8(src).unwrap();
        let start = text.find("\"a\"").unwrap() as u32;
        // Up to the line closing `items`: that array does not close inside.
        let end = text.rfind("],").unwrap() as u32;
        let stable = [(start, end)];
        let found = closed_containers(src, &stable);
        // Not `[1, [2]]`, whose holder opens before the range (the lines could be another's,
        // moved), but `[2]` in it; and the member of the item (an object in an array is read,
        // for its id).
        let opens: Vec<&str> = found.iter().map(|&(_, o, e)| &text[o as usize..e as usize]).collect();
        assert_eq!(opens, ["[2]", "[0, 0]"]);
        let closed: Vec<Closed> = found.iter().map(|&(_, open, end)| Closed { open, end, check: true }).collect();
        let d = parse_skipping(src, Dialect::Json, &closed).unwrap();
        let a = d.slots_of(d.root)[0].value;
        assert!(!d.nodes[a as usize].opaque && d.slots_of(a).len() == 2);
        let inner = d.slots_of(a)[1].value;
        assert!(d.nodes[inner as usize].opaque && d.slots_of(inner).is_empty());
        assert_eq!(d.node_text(inner), "[2]");
        let items = d.slots_of(d.root)[1].value;
        let item = d.slots_of(items)[0].value;
        assert!(!d.nodes[item as usize].opaque, "an item object keeps its members");
        let at = d.slots_of(item)[1].value;
        assert!(d.nodes[at as usize].opaque);
        let full = parse(src, Dialect::Json).unwrap();
        assert!(d.nodes.len() < full.nodes.len());
        assert!(full.nodes.iter().all(|n| !n.opaque));
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
