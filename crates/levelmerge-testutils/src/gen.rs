//! Generated JSON levels: a small model, edits on it, and a writer with several styles.

use std::fmt::Write;

use proptest::prelude::*;

/// An entity of a generated level.
#[derive(Debug, Clone, PartialEq)]
pub struct Entity {
    pub id: u32,
    pub name: String,
    pub x: i64,
    pub y: String,
    pub tags: Vec<String>,
    pub parts: Vec<Part>,
}

/// A nested object with its own id (a component, a child).
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub id: u32,
    pub value: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GenLevel {
    pub name: String,
    pub sun: i64,
    pub entities: Vec<Entity>,
    /// A tile array without identity (merged like diff3).
    pub tiles: Vec<u32>,
}

/// How a level is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// `None`: minified on one line.
    pub indent: Option<&'static str>,
    pub crlf: bool,
    pub final_newline: bool,
}

impl Style {
    pub const TWO: Style = Style { indent: Some("  "), crlf: false, final_newline: true };
}

fn q(s: &str) -> String {
    format!("\"{s}\"")
}

impl GenLevel {
    /// The level as JSON text in `style`.
    pub fn to_json(&self, style: Style) -> String {
        let mut w = Writer { out: String::new(), style, depth: 0, first: true };
        w.open('{');
        w.member_raw("name", &q(&self.name));
        w.member_raw("sun", &self.sun.to_string());
        w.key("entities");
        w.open('[');
        for (i, e) in self.entities.iter().enumerate() {
            w.item_start(i == 0);
            w.open('{');
            w.member_raw("id", &e.id.to_string());
            w.member_raw("name", &q(&e.name));
            w.member_raw("x", &e.x.to_string());
            w.member_raw("y", &e.y);
            let tags: Vec<String> = e.tags.iter().map(|t| q(t)).collect();
            w.member_raw("tags", &format!("[{}]", tags.join(", ")));
            w.key("parts");
            w.open('[');
            for (j, p) in e.parts.iter().enumerate() {
                w.item_start(j == 0);
                w.out.push_str(&format!("{{\"id\": {}, \"value\": {}}}", p.id, p.value));
            }
            w.close(']', e.parts.is_empty());
            w.close('}', false);
        }
        w.close(']', self.entities.is_empty());
        w.key("tiles");
        let tiles: Vec<String> = self.tiles.iter().map(u32::to_string).collect();
        w.out.push_str(&format!("[{}]", tiles.join(",")));
        w.close('}', false);
        if style.final_newline {
            w.newline();
        }
        w.out
    }
}

struct Writer {
    out: String,
    style: Style,
    depth: usize,
    /// Whether the next member of the current object is its first.
    first: bool,
}

impl Writer {
    fn newline(&mut self) {
        if self.style.indent.is_some() {
            self.out.push_str(if self.style.crlf { "\r\n" } else { "\n" });
        }
    }
    fn indent(&mut self) {
        if let Some(i) = self.style.indent {
            for _ in 0..self.depth {
                self.out.push_str(i);
            }
        }
    }
    fn open(&mut self, c: char) {
        self.out.push(c);
        self.depth += 1;
        self.first = true;
    }
    fn close(&mut self, c: char, empty: bool) {
        self.depth -= 1;
        self.first = false;
        if !empty {
            self.newline();
            self.indent();
        }
        self.out.push(c);
    }
    fn item_start(&mut self, first: bool) {
        if !first {
            self.out.push(',');
        }
        self.newline();
        self.indent();
    }
    fn key(&mut self, k: &str) {
        let first = std::mem::replace(&mut self.first, false);
        self.item_start(first);
        let sep = if self.style.indent.is_some() { ": " } else { ":" };
        let _ = write!(self.out, "\"{k}\"{sep}");
    }
    fn member_raw(&mut self, k: &str, v: &str) {
        self.key(k);
        self.out.push_str(v);
    }
}

/// One edit a user makes to a level.
#[derive(Debug, Clone)]
pub enum Edit {
    MoveX { entity: usize, x: i64 },
    SetY { entity: usize, y: String },
    Rename { entity: usize, name: String },
    Tag { entity: usize, tag: String },
    Delete { entity: usize },
    Add { id: u32, name: String },
    AddPart { entity: usize, id: u32 },
    SetPart { entity: usize, part: usize, value: i64 },
    Tile { index: usize, value: u32 },
    Sun { value: i64 },
    Swap { a: usize, b: usize },
}

impl GenLevel {
    /// Apply an edit (indices wrap around; edits on an empty level do nothing).
    pub fn apply(&mut self, edit: &Edit) {
        let n = self.entities.len();
        match edit {
            Edit::MoveX { entity, x } if n > 0 => self.entities[entity % n].x = *x,
            Edit::SetY { entity, y } if n > 0 => self.entities[entity % n].y = y.clone(),
            Edit::Rename { entity, name } if n > 0 => self.entities[entity % n].name = name.clone(),
            Edit::Tag { entity, tag } if n > 0 => self.entities[entity % n].tags.push(tag.clone()),
            Edit::Delete { entity } if n > 0 => {
                self.entities.remove(entity % n);
            }
            Edit::Add { id, name } if !self.entities.iter().any(|e| e.id == *id) => {
                let at = (*id as usize) % (n + 1);
                self.entities.insert(at, Entity { id: *id, name: name.clone(), x: 0, y: "0.5".into(), tags: vec![], parts: vec![] });
            }
            Edit::AddPart { entity, id } if n > 0 => {
                let e = &mut self.entities[entity % n];
                if !e.parts.iter().any(|p| p.id == *id) {
                    e.parts.push(Part { id: *id, value: 0 });
                }
            }
            Edit::SetPart { entity, part, value } if n > 0 => {
                let e = &mut self.entities[entity % n];
                if !e.parts.is_empty() {
                    let k = part % e.parts.len();
                    e.parts[k].value = *value;
                }
            }
            Edit::Tile { index, value } if !self.tiles.is_empty() => {
                let k = index % self.tiles.len();
                self.tiles[k] = *value;
            }
            Edit::Sun { value } => self.sun = *value,
            Edit::Swap { a, b } if n > 1 => self.entities.swap(a % n, b % n),
            _ => {}
        }
    }
}

fn name() -> impl Strategy<Value = String> {
    "[a-z]{1,6}"
}

/// A base level: up to `max` entities with ids 1..
pub fn level(max: usize) -> impl Strategy<Value = GenLevel> {
    let entity = (
        name(),
        -50i64..50,
        prop::sample::select(vec!["0.5", "1.25", "-3", "2e-7", "18.000000000000057"]),
        prop::collection::vec(name(), 0..3),
        0usize..3,
    );
    (name(), -5i64..5, prop::collection::vec(entity, 0..max), prop::collection::vec(0u32..4, 0..12)).prop_map(|(n, sun, es, tiles)| {
        GenLevel {
            name: n,
            sun,
            entities: es
                .into_iter()
                .enumerate()
                .map(|(i, (name, x, y, tags, parts))| Entity {
                    id: i as u32 + 1,
                    name,
                    x,
                    y: y.to_owned(),
                    tags,
                    parts: (0..parts).map(|p| Part { id: (i * 10 + p) as u32 + 100, value: p as i64 }).collect(),
                })
                .collect(),
            tiles,
        }
    })
}

/// Edits by one user; new ids come from `id_base..` (per-user id ranges), or from a small
/// shared range so that both users sometimes add the same id.
pub fn edits(id_base: u32) -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        (0usize..20, -50i64..50).prop_map(|(entity, x)| Edit::MoveX { entity, x }),
        (0usize..20, prop::sample::select(vec!["0.5", "0.50", "7", "1e3"])).prop_map(|(entity, y)| Edit::SetY { entity, y: y.to_owned() }),
        (0usize..20, name()).prop_map(|(entity, name)| Edit::Rename { entity, name }),
        (0usize..20, name()).prop_map(|(entity, tag)| Edit::Tag { entity, tag }),
        (0usize..20).prop_map(|entity| Edit::Delete { entity }),
        (prop_oneof![id_base..id_base + 50, 900u32..903], name()).prop_map(|(id, name)| Edit::Add { id, name }),
        (0usize..20, id_base + 500..id_base + 520).prop_map(|(entity, id)| Edit::AddPart { entity, id }),
        (0usize..20, 0usize..3, -9i64..9).prop_map(|(entity, part, value)| Edit::SetPart { entity, part, value }),
        (0usize..12, 0u32..4).prop_map(|(index, value)| Edit::Tile { index, value }),
        (-9i64..9).prop_map(|value| Edit::Sun { value }),
        (0usize..20, 0usize..20).prop_map(|(a, b)| Edit::Swap { a, b }),
    ];
    prop::collection::vec(edit, 0..5)
}

/// A writing style.
pub fn style() -> impl Strategy<Value = Style> {
    (prop::sample::select(vec![None, Some("  "), Some("    "), Some("\t")]), any::<bool>(), any::<bool>())
        .prop_map(|(indent, crlf, final_newline)| Style { indent, crlf: crlf && indent.is_some(), final_newline })
}

/// A deterministic generator (xorshift) for large benchmark levels.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// A level of about `bytes` bytes when written in [`Style::TWO`].
pub fn large_level(bytes: usize, seed: u64) -> GenLevel {
    let mut rng = Rng::new(seed);
    let mut level = GenLevel { name: "large".into(), sun: 3, entities: Vec::new(), tiles: (0..2000).map(|i| (i % 7) as u32).collect() };
    let mut size = 0;
    let mut id = 1;
    while size < bytes {
        let parts = (0..rng.below(4)).map(|p| Part { id: id * 10 + p as u32, value: rng.below(1000) as i64 }).collect::<Vec<_>>();
        let e = Entity {
            id,
            name: format!("entity_{id}"),
            x: rng.below(100_000) as i64 - 50_000,
            y: format!("{}.{}", rng.below(1000), rng.below(1_000_000)),
            tags: (0..rng.below(3)).map(|t| format!("tag{t}")).collect(),
            parts,
        };
        size += 140 + e.parts.len() * 40 + e.tags.len() * 8;
        level.entities.push(e);
        id += 1;
    }
    level
}

/// `count` edits spread over a level, new ids from `id_base`.
pub fn spread_edits(level: &GenLevel, count: usize, id_base: u32, seed: u64) -> Vec<Edit> {
    let mut rng = Rng::new(seed);
    let n = level.entities.len() as u64;
    (0..count)
        .map(|i| match rng.below(10) {
            0 => Edit::Add { id: id_base + i as u32, name: format!("new_{i}") },
            1 => Edit::Delete { entity: rng.below(n) as usize },
            2 => Edit::Rename { entity: rng.below(n) as usize, name: format!("renamed_{i}") },
            3 => Edit::Tile { index: rng.below(2000) as usize, value: 9 },
            _ => Edit::MoveX { entity: rng.below(n) as usize, x: rng.below(1000) as i64 },
        })
        .collect()
}

/// Members whose numbers an editor's file holds as plain content (positions, sizes): safe to
/// edit without touching an id or a counter.
const EDITABLE_MEMBERS: [&str; 10] = ["x", "y", "width", "height", "angle", "zOrder", "opacity", "_opacity", "worldX", "worldY"];

/// A real JSON level with `count` numbers edited (members in `EDITABLE_MEMBERS` written as
/// `"key": number`), all in the first half of the file for `half` 0 and the second for 1, so
/// that two calls edit disjoint places. Deterministic for a seed.
pub fn edit_json_numbers(text: &str, count: usize, half: usize, seed: u64) -> String {
    let (from, to) = if half == 0 { (0, text.len() / 2) } else { (text.len() / 2, text.len()) };
    let bytes = text.as_bytes();
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    let mut at = from;
    while let Some(p) = text[at..to].find("\":") {
        let colon = at + p + 1;
        at = colon + 1;
        let Some(open) = text[..colon - 1].rfind('"') else { continue };
        if !EDITABLE_MEMBERS.contains(&&text[open + 1..colon - 1]) {
            continue;
        }
        let start = colon + 1 + text[colon + 1..].bytes().take_while(|b| *b == b' ' || *b == b'\t').count();
        let end = start + text[start..].bytes().take_while(|b| b.is_ascii_digit()).count();
        if end > start && end < to && matches!(bytes.get(end), Some(b',' | b'\n' | b'\r' | b'}' | b' ')) {
            candidates.push((start, end));
        }
    }
    replace_numbers(text, candidates, count, seed)
}

/// `text` with `count` of the `candidates` spans (chosen at random, deterministically for a
/// seed) replaced by random five-digit numbers.
pub fn replace_numbers(text: &str, mut candidates: Vec<(usize, usize)>, count: usize, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut chosen = Vec::with_capacity(count);
    for _ in 0..count.min(candidates.len()) {
        let i = rng.below(candidates.len() as u64) as usize;
        chosen.push(candidates.swap_remove(i));
    }
    chosen.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in chosen {
        out.push_str(&text[at..start]);
        out.push_str(&(10_000 + rng.below(90_000)).to_string());
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod json_edit_tests {
    use super::*;

    #[test]
    fn numbers_of_content_members_are_edited_in_one_half() {
        let text = "{\"id\": 1, \"x\": 2, \"y\": 3,\n \"uid\": 4, \"width\": 5, \"height\": 6}\n";
        let first = edit_json_numbers(text, 10, 0, 1);
        let second = edit_json_numbers(text, 10, 1, 1);
        assert!(first.contains("\"id\": 1,") && first.contains("\"uid\": 4,"), "{first}");
        assert!(!first.contains("\"x\": 2,") && first.contains("\"height\": 6}"), "{first}");
        assert!(second.contains("\"x\": 2,") && !second.contains("\"height\": 6}"), "{second}");
    }
}
