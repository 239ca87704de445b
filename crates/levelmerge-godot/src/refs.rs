//! `ExtResource(…)` and `SubResource(…)` inside Variant values, outside string literals, in
//! both spellings: Godot 3 `ExtResource( 1 )` and Godot 4 `ExtResource("1_ab")`.

use crate::parse::closing_quote;

/// Which table a reference points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    Ext,
    Sub,
}

impl Table {
    pub fn prefix(self) -> &'static str {
        match self {
            Table::Ext => "ext:",
            Table::Sub => "sub:",
        }
    }

    pub fn section(self) -> &'static str {
        match self {
            Table::Ext => "ext_resource",
            Table::Sub => "sub_resource",
        }
    }
}

/// One reference: its table, the id (unquoted) and the byte range of the id as written
/// (quotes included), relative to the scanned text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceRef<'t> {
    pub table: Table,
    pub id: &'t str,
    pub span: (usize, usize),
}

/// Every resource reference in `text`.
pub fn resource_refs(text: &str) -> Vec<ResourceRef<'_>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // Only a string or a capital E or S can start something to skip or keep.
    while let Some(p) = memchr::memchr3(b'"', b'E', b'S', &b[i.min(b.len())..]) {
        i += p;
        match b[i] {
            b'"' => i = closing_quote(b, i + 1).map_or(b.len(), |q| q + 1),
            b'E' | b'S' => {
                let table = if b[i..].starts_with(b"ExtResource") {
                    Some((Table::Ext, "ExtResource".len()))
                } else if b[i..].starts_with(b"SubResource") {
                    Some((Table::Sub, "SubResource".len()))
                } else {
                    None
                };
                let word_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
                match table.filter(|_| word_start).and_then(|(t, len)| argument(b, i + len).map(|a| (t, a))) {
                    Some((table, (start, end, next))) => {
                        let id = text[start..end].trim_matches('"');
                        out.push(ResourceRef { table, id, span: (start, end) });
                        i = next;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// The argument of `( id )` after a reference's name: its start and end (quotes included) and
/// the position after `)`.
fn argument(b: &[u8], mut i: usize) -> Option<(usize, usize, usize)> {
    let skip = |i: &mut usize| {
        while b.get(*i) == Some(&b' ') {
            *i += 1;
        }
    };
    skip(&mut i);
    if b.get(i) != Some(&b'(') {
        return None;
    }
    i += 1;
    skip(&mut i);
    let start = i;
    if b.get(i) == Some(&b'"') {
        i += 1;
        while i < b.len() && b[i] != b'"' {
            i += 1;
        }
        i += 1;
    } else {
        while i < b.len() && !matches!(b[i], b' ' | b')') {
            i += 1;
        }
    }
    let end = i.min(b.len());
    skip(&mut i);
    (b.get(i) == Some(&b')') && end > start).then_some((start, end, i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_outside_strings() {
        let refs = resource_refs("[ ExtResource( 12 ), SubResource(\"Box_ab1\"), \"ExtResource( 3 )\", MyExtResource(4) ]");
        let got: Vec<_> = refs.iter().map(|r| (r.table, r.id)).collect();
        assert_eq!(got, vec![(Table::Ext, "12"), (Table::Sub, "Box_ab1")]);
        // An escaped quote does not end a string; an unclosed string hides the rest.
        let refs = resource_refs("[\"a\\\" ExtResource( 3 )\", SubResource( 4 ), \"open SubResource( 5 )");
        assert_eq!(refs.iter().map(|r| r.id).collect::<Vec<_>>(), vec!["4"]);
        let text = "ExtResource(\"1_x\")";
        let r = resource_refs(text)[0];
        assert_eq!(&text[r.span.0..r.span.1], "\"1_x\"");
    }
}
