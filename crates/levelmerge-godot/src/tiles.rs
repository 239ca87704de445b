//! A TileMap node's cells: one array of integers, three per cell, the first naming the cell's
//! place (`y << 16 | x`, 16 bits each) — `tile_data = PoolIntArray( … )` in Godot 3 (with
//! `format = 1`), `layer_0/tile_data = PackedInt32Array(…)` in Godot 4.0 to 4.2 (with
//! `format = 2`). As one value, any two sides painting the same map conflicted. Read as a map
//! from place to the cell's two other integers, sides painting different cells merge, and one
//! cell painted differently on both sides, or erased on one and painted on the other, is a
//! conflict about that cell.

/// One cell as written: its place, and the text of its two other integers (`1, 0`).
pub type Cell<'s> = (&'s str, &'s str);

/// The array types a TileMap writes its cells in, with the `format` that means three integers
/// a cell, and how the type writes its parentheses.
const ARRAYS: [(&str, &str, &str, &str); 2] =
    [("PoolIntArray(", "1", "PoolIntArray( ", " )"), ("PackedInt32Array(", "2", "PackedInt32Array(", ")")];

/// Whether `key` names a TileMap's cells (Godot 3's `tile_data`, Godot 4's `layer_N/tile_data`).
fn names_cells(key: &str) -> bool {
    key == "tile_data"
        || key.strip_prefix("layer_").and_then(|k| k.strip_suffix("/tile_data")).is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
}

/// The cells of `value`, the property `key` of a node whose `format` property is `format`;
/// `None` for anything else: another property, another format, integers that are not three a
/// cell, or a place named twice (such an array is merged as one value).
pub fn cells<'s>(key: &str, value: &'s str, format: Option<&str>) -> Option<Vec<Cell<'s>>> {
    if !names_cells(key) {
        return None;
    }
    let (open, three_a_cell, _, _) = ARRAYS.iter().find(|(open, ..)| value.starts_with(open))?;
    if format != Some(three_a_cell) {
        return None;
    }
    let inner_start = open.len();
    let inner_end = value.rfind(')').filter(|&e| e >= inner_start && value[e + 1..].trim().is_empty())?;
    let inner = &value[inner_start..inner_end];
    if inner.trim().is_empty() {
        return Some(Vec::new());
    }
    // Each integer's span in `value`.
    let mut spans = Vec::new();
    let mut at = inner_start;
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
    if spans.len() % 3 != 0 {
        return None;
    }
    let cells: Vec<Cell<'s>> = spans.chunks(3).map(|c| (&value[c[0].0..c[0].1], &value[c[1].0..c[2].1])).collect();
    let mut places: Vec<&str> = cells.iter().map(|c| c.0).collect();
    places.sort_unstable();
    places.dedup();
    (places.len() == cells.len()).then_some(cells)
}

/// Whether `template`, a value [`cells`] read, is Godot 3's array, which Godot writes in the
/// order of places (by row, then column).
fn sorted_by_place(template: &str) -> bool {
    template.starts_with(ARRAYS[0].0)
}

/// The row and column of a place (`y << 16 | x`, each a signed 16-bit number).
fn row_and_column(place: &str) -> (i16, i16) {
    let bits = place.parse::<i64>().unwrap_or(0) as u32;
    ((bits >> 16) as u16 as i16, (bits & 0xFFFF) as u16 as i16)
}

/// `cells` written as the array `template` is (a value [`cells`] read), in the order Godot
/// writes them where it has one.
pub fn written(template: &str, cells: &[Cell<'_>]) -> String {
    let (_, _, open, close) = if sorted_by_place(template) { ARRAYS[0] } else { ARRAYS[1] };
    let mut cells = cells.to_vec();
    if sorted_by_place(template) {
        cells.sort_by_key(|c| row_and_column(c.0));
    }
    let mut out = String::with_capacity(template.len() + 16);
    out.push_str(open);
    for (i, (place, rest)) in cells.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(place);
        out.push_str(", ");
        out.push_str(rest);
    }
    out.push_str(close);
    out
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
    }

    #[test]
    fn godot_3_cells_are_written_by_row_then_column() {
        // (x -1, y 0) is 65535; (x 0, y 1) is 65536; (x 0, y -1) is -65536.
        let cells = [("65536", "1, 0"), ("65535", "2, 0"), ("-65536", "3, 0"), ("0", "4, 0")];
        assert_eq!(written("PoolIntArray( 0, 1, 0 )", &cells), "PoolIntArray( -65536, 3, 0, 65535, 2, 0, 0, 4, 0, 65536, 1, 0 )");
        assert_eq!(written("PoolIntArray(  )", &[]), "PoolIntArray(  )");
        assert_eq!(written("PackedInt32Array()", &cells[..2]), "PackedInt32Array(65536, 1, 0, 65535, 2, 0)");
    }
}
