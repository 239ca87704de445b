//! A TileMap's or GridMap's cells: one array of integers, three per cell. A TileMap's first
//! integer names the cell's place (`y << 16 | x`, 16 bits each): `tile_data = PoolIntArray( … )`
//! in Godot 3 (with `format = 1`), `layer_0/tile_data = PackedInt32Array(…)` in Godot 4.0 to
//! 4.2 (with `format = 2`). A GridMap's first two name it (`x | y << 16`, then `z`):
//! `data = { "cells": PoolIntArray( … ) }`. As one value, any two sides painting the same map
//! conflicted. Read as a map from place to the cell's other integers, sides painting different
//! cells merge, and one cell painted differently on both sides, or erased on one and painted on
//! the other, is a conflict about that cell. Godot 4.3's `TileMapLayer` writes its cells as
//! bytes in base64 (`tile_map_data = PackedByteArray("…")`): those are merged in a form of
//! integers ([`to_cells_form`]) and written back.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use levelmerge_core::{Problem, Renumbered, Sides};

/// One cell as written: its place (`65536`; a GridMap's `65536, 2`), and the text of its other
/// integers (`1, 0`; a GridMap's `4`).
pub type Cell<'s> = (&'s str, &'s str);

/// An array type cells are written in.
struct Array {
    /// How a value of the type opens.
    open: &'static str,
    /// The TileMap `format` that means three integers a cell; `None` for the merge's own form
    /// of Godot 4.3's bytes ([`to_cells_form`]).
    format: Option<&'static str>,
    /// How the type writes its parentheses.
    written_open: &'static str,
    close: &'static str,
    /// Whether Godot writes the cells in the order of their places (Godot 3's ordered maps).
    by_place: bool,
}

/// How the merge writes a Godot 4.3 layer's cells while it merges them ([`to_cells_form`]).
const FORM_OPEN: &str = "levelmerge_cells(";

const ARRAYS: [Array; 3] = [
    Array { open: "PoolIntArray(", format: Some("1"), written_open: "PoolIntArray( ", close: " )", by_place: true },
    Array { open: "PackedInt32Array(", format: Some("2"), written_open: "PackedInt32Array(", close: ")", by_place: false },
    Array { open: FORM_OPEN, format: None, written_open: FORM_OPEN, close: ")", by_place: false },
];

/// The property of a Godot 4.3 `TileMapLayer` holding its cells.
const LAYER_KEY: &str = "tile_map_data";
/// The property of a GridMap holding its cells, and the dictionary entry that holds them.
const GRID_KEY: &str = "data";
const GRID_CELLS: &str = "\"cells\": ";

/// Whether the property `key` can hold a map's cells ([`cells`] reads them only there).
pub fn may_hold_cells(key: &str) -> bool {
    key == LAYER_KEY || key == GRID_KEY || names_cells(key)
}

/// Whether `key` names a TileMap's cells (Godot 3's `tile_data`, Godot 4's `layer_N/tile_data`).
fn names_cells(key: &str) -> bool {
    key == "tile_data"
        || key.strip_prefix("layer_").and_then(|k| k.strip_suffix("/tile_data")).is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
}

/// Where a value holds its cells.
struct Layout<'s> {
    array: &'static Array,
    /// The value's text around the array (a GridMap's `{` and `"cells": `, and its `}`).
    before: &'s str,
    after: &'s str,
    /// Where the array's integers are written: inside its parentheses.
    inner: (usize, usize),
    /// How many integers name a cell's place.
    place_width: usize,
}

/// Where `value`, the property `key`, holds cells, if it is written as a map's cells are.
fn layout<'s>(key: &str, value: &'s str) -> Option<Layout<'s>> {
    let (before, place_width) = if key == GRID_KEY {
        let at = value.find(GRID_CELLS)?;
        (value[..at].trim() == "{").then_some(at + GRID_CELLS.len())?;
        (at + GRID_CELLS.len(), 2)
    } else {
        (0, 1)
    };
    let array = ARRAYS.iter().find(|a| value[before..].starts_with(a.open))?;
    let inner_start = before + array.open.len();
    let close = inner_start + value[inner_start..].find(')')?;
    let after = &value[close + 1..];
    let closed = if key == GRID_KEY { after.trim() == "}" } else { after.trim().is_empty() };
    closed.then_some(Layout { array, before: &value[..before], after, inner: (inner_start, close), place_width })
}

/// The cells of `value`, the property `key` of a node whose `format` property is `format`;
/// `None` for anything else: another property, another format, integers that are not three a
/// cell, or a place named twice (such an array is merged as one value).
pub fn cells<'s>(key: &str, value: &'s str, format: Option<&str>) -> Option<Vec<Cell<'s>>> {
    if !may_hold_cells(key) {
        return None;
    }
    let layout = layout(key, value)?;
    let holds_cells = match layout.array.format {
        None => key == LAYER_KEY,
        Some(_) if key == GRID_KEY => true,
        Some(three_a_cell) => names_cells(key) && format == Some(three_a_cell),
    };
    if !holds_cells {
        return None;
    }
    let spans = integer_spans(value, layout.inner.0, layout.inner.1)?;
    if spans.len() % 3 != 0 {
        return None;
    }
    let w = layout.place_width;
    let cells: Vec<Cell<'s>> = spans.chunks(3).map(|c| (&value[c[0].0..c[w - 1].1], &value[c[w].0..c[2].1])).collect();
    all_distinct(cells.iter().map(|c| c.0).collect()).then_some(cells)
}

/// Whether no place is named twice (an array that names one twice is merged as one value).
fn all_distinct<T: Ord>(mut places: Vec<T>) -> bool {
    let count = places.len();
    places.sort_unstable();
    places.dedup();
    places.len() == count
}

/// The spans of the integers written between `start` and `end` of `text`, separated by
/// commas; `None` when something else is written there.
fn integer_spans(text: &str, start: usize, end: usize) -> Option<Vec<(usize, usize)>> {
    let inner = &text[start..end];
    if inner.trim().is_empty() {
        return Some(Vec::new());
    }
    let mut spans = Vec::new();
    let mut at = start;
    for piece in inner.split(',') {
        let lead = piece.len() - piece.trim_start().len();
        let number = piece.trim();
        let digits = number.strip_prefix('-').unwrap_or(number);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        spans.push((at + lead, at + lead + number.len()));
        at += piece.len() + 1;
    }
    Some(spans)
}

/// Where Godot 3 puts a place in its ordered maps: a TileMap's by row, then column (signed);
/// a GridMap's by its 64-bit key (`x | y << 16 | z << 32`, unsigned).
fn place_order(place: &str, place_width: usize) -> i128 {
    let mut integers = place.split(',').map(|n| n.trim().parse::<i64>().unwrap_or(0) as u32);
    let low = integers.next().unwrap_or(0);
    if place_width == 2 {
        return (low as i128) | ((integers.next().unwrap_or(0) as i128) << 32);
    }
    let (row, column) = ((low >> 16) as u16 as i16, (low & 0xFFFF) as u16 as i16);
    ((row as i128) << 32) + column as i128
}

/// `cells` written as the property `key` was in `template` (a value [`cells`] read), in the
/// order Godot writes them where it has one.
pub fn written(key: &str, template: &str, cells: &[Cell<'_>]) -> String {
    let Some(layout) = layout(key, template) else {
        return template.to_owned();
    };
    let mut cells = cells.to_vec();
    if layout.array.by_place {
        cells.sort_by_key(|c| place_order(c.0, layout.place_width));
    }
    let mut out = String::with_capacity(template.len() + 16);
    out.push_str(layout.before);
    out.push_str(layout.array.written_open);
    for (i, (place, rest)) in cells.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(place);
        out.push_str(", ");
        out.push_str(rest);
    }
    out.push_str(layout.array.close);
    out.push_str(layout.after);
    out
}

/// How Godot 4.3 writes a layer's cells: bytes in base64, a 2-byte format (0) and then 12
/// bytes a cell (its column and row, then its source, atlas column and row, and alternative).
const BYTES_LINE: (&str, &str) = ("tile_map_data = PackedByteArray(\"", "\")");
/// The same line in the merge's own form.
const FORM_LINE: (&str, &str) = ("tile_map_data = levelmerge_cells(", ")");
const FORMAT_0: [u8; 2] = [0, 0];

/// The lines of `text`, each without its line end, with where it starts.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    text.split_inclusive('\n').map(move |line| {
        let start = at;
        at += line.len();
        (start, line.trim_end_matches('\n').trim_end_matches('\r'))
    })
}

/// The value a line holds between `form`'s opening and closing.
fn between<'l>(line: &'l str, form: (&str, &str)) -> Option<&'l str> {
    line.strip_prefix(form.0)?.strip_suffix(form.1)
}

/// A layer's cells as Godot 4.3 writes them, rewritten as three integers a cell; `None` when
/// the bytes are not those of format 0 written as Godot writes them, or name a place twice.
fn as_integers(base64: &str) -> Option<String> {
    let bytes = BASE64.decode(base64).ok()?;
    if BASE64.encode(&bytes) != base64 || bytes.len() < 2 || bytes[..2] != FORMAT_0 || (bytes.len() - 2) % 12 != 0 {
        return None;
    }
    let integers: Vec<i32> = bytes[2..].chunks(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    if !all_distinct(integers.iter().step_by(3).collect()) {
        return None;
    }
    Some(integers.iter().map(i32::to_string).collect::<Vec<_>>().join(", "))
}

/// Before a merge whose versions write Godot 4.3 layers' cells differently, every version's
/// `tile_map_data = PackedByteArray("…")` lines rewritten as `tile_map_data =
/// levelmerge_cells(…)`, three integers a cell, which [`cells`] reads cell by cell;
/// [`from_cells_form`] writes the merged text's back. `None` when the versions agree, or when
/// any such line is not one to rewrite (then all are merged as they are).
pub fn to_cells_form(texts: Sides<&[u8]>) -> Option<Renumbered> {
    // Most files have no such line: one fast search each, before any line is read.
    let holds = |text: &[u8]| memchr::memmem::find(text, BYTES_LINE.0.as_bytes()).is_some();
    if ![texts.base, texts.ours, texts.theirs].into_iter().any(holds) {
        return None;
    }
    let layer_lines = |text| -> Option<Vec<&str>> {
        let text = std::str::from_utf8(text).ok()?;
        Some(lines(text).filter(|(_, l)| l.starts_with(BYTES_LINE.0)).map(|(_, l)| l).collect())
    };
    let found = texts.map(|_, t| layer_lines(t));
    let (Some(base), Some(ours), Some(theirs)) = (&found.base, &found.ours, &found.theirs) else { return None };
    if base == ours && base == theirs {
        return None;
    }
    let rewritten = |text: &[u8]| -> Option<Vec<u8>> {
        let text = std::str::from_utf8(text).ok()?;
        let mut out = String::with_capacity(text.len() + text.len() / 2);
        let mut copied = 0;
        for (start, line) in lines(text).filter(|(_, l)| l.starts_with(BYTES_LINE.0)) {
            let integers = as_integers(between(line, BYTES_LINE)?)?;
            out.push_str(&text[copied..start]);
            out.push_str(FORM_LINE.0);
            out.push_str(&integers);
            out.push_str(FORM_LINE.1);
            copied = start + line.len();
        }
        out.push_str(&text[copied..]);
        Some(out.into_bytes())
    };
    let form = texts.map(|_, t| rewritten(t));
    Some(Renumbered { base: Some(form.base?), ours: Some(form.ours?), theirs: Some(form.theirs?), notes: Vec::new(), restore: true })
}

/// A merged text's `tile_map_data = levelmerge_cells(…)` lines written back as Godot 4.3 writes
/// them ([`to_cells_form`]).
pub fn from_cells_form(text: Vec<u8>) -> Result<Vec<u8>, Problem> {
    let Ok(source) = std::str::from_utf8(&text) else { return Ok(text) };
    if !source.contains(FORM_LINE.0) {
        return Ok(text);
    }
    let mut out = String::with_capacity(source.len());
    let mut copied = 0;
    for (number, (start, line)) in lines(source).enumerate().filter(|(_, (_, l))| l.starts_with(FORM_LINE.0)) {
        let cut =
            || Problem::Syntax { line: number + 1, column: 1, message: "merged TileMapLayer cells: not three integers a cell".to_owned() };
        let inner = between(line, FORM_LINE).ok_or_else(cut)?;
        let spans = integer_spans(inner, 0, inner.len()).filter(|s| s.len() % 3 == 0).ok_or_else(cut)?;
        let mut bytes = FORMAT_0.to_vec();
        for (from, to) in spans {
            bytes.extend(inner[from..to].parse::<i32>().map_err(|_| cut())?.to_le_bytes());
        }
        out.push_str(&source[copied..start]);
        out.push_str(BYTES_LINE.0);
        out.push_str(&BASE64.encode(&bytes));
        out.push_str(BYTES_LINE.1);
        copied = start + line.len();
    }
    out.push_str(&source[copied..]);
    Ok(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_read_three_integers_at_a_time() {
        let v = "PoolIntArray( 0, 1, 0, 65536, 2, 65537 )";
        assert_eq!(cells("tile_data", v, Some("1")).unwrap(), [("0", "1, 0"), ("65536", "2, 65537")]);
        let v4 = "PackedInt32Array(0, 1, 0, -65536, 2, 0)";
        assert_eq!(cells("layer_1/tile_data", v4, Some("2")).unwrap(), [("0", "1, 0"), ("-65536", "2, 0")]);
        assert_eq!(cells("tile_data", "PoolIntArray(  )", Some("1")).unwrap(), []);
    }

    #[test]
    fn anything_else_is_left_as_one_value() {
        let v = "PoolIntArray( 0, 1, 0, 65536, 2, 0 )";
        assert!(cells("tile_data", v, None).is_none(), "the old format: two integers a cell");
        assert!(cells("other", v, Some("1")).is_none());
        assert!(cells("layer_x/tile_data", v, Some("1")).is_none());
        assert!(cells("tile_data", "PoolIntArray( 0, 1 )", Some("1")).is_none(), "not three a cell");
        assert!(cells("tile_data", "PoolIntArray( 0, 1, 0, 0, 2, 0 )", Some("1")).is_none(), "a place twice");
        assert!(cells("tile_data", "PoolIntArray( 0, 1.5, 0 )", Some("1")).is_none());
        assert!(cells("tile_data", "PackedInt32Array(0, 1, 0)", Some("1")).is_none(), "Godot 4's array with Godot 3's format");
        assert!(cells("data", "levelmerge_cells(0, 1, 0)", None).is_none(), "the merge's own form is a layer's only");
    }

    #[test]
    fn godot_4_3_bytes_turn_into_integers_and_back_byte_for_byte() {
        // Format 0, then the cell (x -1, y 2): source 0, atlas (3, 1), alternative 0.
        let bytes: Vec<u8> = [0u16, 0xFFFF, 2, 0, 3, 1, 0].iter().flat_map(|h| h.to_le_bytes()).collect();
        let line = format!("tile_map_data = PackedByteArray(\"{}\")", BASE64.encode(&bytes));
        let text = |line: &str| {
            format!("[node name=\"Ground\" type=\"TileMapLayer\" parent=\".\"]\r\n{line}\r\ntile_set = ExtResource(\"1\")\r\n")
        };
        let plain = text("tile_map_data = PackedByteArray(\"AAA=\")");
        let one = text(&line);
        let form = to_cells_form(Sides::new(plain.as_bytes(), one.as_bytes(), plain.as_bytes())).expect("the versions differ");
        assert!(form.restore);
        let ours = String::from_utf8(form.ours.unwrap()).unwrap();
        assert_eq!(ours, text("tile_map_data = levelmerge_cells(196607, 196608, 1)"));
        assert_eq!(cells("tile_map_data", "levelmerge_cells(196607, 196608, 1)", None).unwrap(), [("196607", "196608, 1")]);
        assert_eq!(String::from_utf8(from_cells_form(ours.into_bytes()).unwrap()).unwrap(), one);
        assert_eq!(String::from_utf8(form.base.unwrap()).unwrap(), text("tile_map_data = levelmerge_cells()"));
        assert!(to_cells_form(Sides::new(one.as_bytes(), one.as_bytes(), one.as_bytes())).is_none(), "nothing differs");
        let broken = text("tile_map_data = levelmerge_cells(1, 2)");
        assert!(from_cells_form(broken.into_bytes()).is_err());
    }

    #[test]
    fn godot_3_cells_are_written_by_row_then_column() {
        // (x -1, y 0) is 65535; (x 0, y 1) is 65536; (x 0, y -1) is -65536.
        let cells = [("65536", "1, 0"), ("65535", "2, 0"), ("-65536", "3, 0"), ("0", "4, 0")];
        assert_eq!(
            written("tile_data", "PoolIntArray( 0, 1, 0 )", &cells),
            "PoolIntArray( -65536, 3, 0, 65535, 2, 0, 0, 4, 0, 65536, 1, 0 )"
        );
        assert_eq!(written("tile_data", "PoolIntArray(  )", &[]), "PoolIntArray(  )");
        assert_eq!(written("layer_0/tile_data", "PackedInt32Array()", &cells[..2]), "PackedInt32Array(65536, 1, 0, 65535, 2, 0)");
    }

    #[test]
    fn grid_map_cells_are_named_by_two_integers_and_written_by_their_key() {
        let v = "{\n\"cells\": PoolIntArray( 0, 1, 4, 65535, 0, 5, 2, 0, 6 )\n}";
        let read = cells("data", v, None).unwrap();
        assert_eq!(read, [("0, 1", "4"), ("65535, 0", "5"), ("2, 0", "6")]);
        // Godot 3 orders them by the key `x | y << 16 | z << 32`.
        assert_eq!(written("data", v, &read), "{\n\"cells\": PoolIntArray( 2, 0, 6, 65535, 0, 5, 0, 1, 4 )\n}");
        assert!(cells("data", "{\n\"cells\": PoolIntArray( 0, 1, 4 ),\n\"other\": 1\n}", None).is_none(), "more than the cells");
        assert!(cells("data", "{ \"x\": 1 }", None).is_none());
    }
}
