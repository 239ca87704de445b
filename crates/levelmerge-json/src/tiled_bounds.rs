//! A tile layer of an infinite Tiled map states the box its chunks lie in (`startx`, `starty`,
//! `width`, `height`), which Tiled grows as chunks are painted and never shrinks. Two sides
//! that each grew it another way would merge member by member into a box that misses chunks:
//! ours grew it right (a larger `width`), theirs left (a smaller `startx` and the same larger
//! `width`), and the merge takes theirs' `startx` and the `width` both wrote. Before the merge,
//! both sides' boxes are written as the box holding both, which is the box Tiled writes when
//! the two edits are made one after the other.

use levelmerge_core::{Side, Sides};
use rustc_hash::FxHashMap;

use crate::parse::{parse_versions, Document};
use crate::tile_gids::{each_layer, number_edit};

/// The members stating a layer's box, in the order [`Bounds`] holds them.
const MEMBERS: [&str; 4] = ["startx", "starty", "width", "height"];

/// A layer's box as written: its four members' value nodes and values.
#[derive(Clone, Copy)]
struct Bounds {
    nodes: [u32; 4],
    values: [i64; 4],
}

impl Bounds {
    /// The box holding `self` and `other`, as `[startx, starty, width, height]`.
    fn united(&self, other: &Bounds) -> [i64; 4] {
        let [ax, ay, aw, ah] = self.values;
        let [bx, by, bw, bh] = other.values;
        let (x, y) = (ax.min(bx), ay.min(by));
        [x, y, (ax + aw).max(bx + bw) - x, (ay + ah).max(by + bh) - y]
    }
}

/// Ours and theirs with the box of each infinite tile layer both grew another way written as
/// the box holding both (`None` for a side left as it is), and a note; `None` where no layer
/// is so.
pub fn united(texts: Sides<&[u8]>) -> Option<(Sides<Option<Vec<u8>>>, String)> {
    // Cheap first: only the chunks of an infinite map have a box of their own.
    if ![texts.ours, texts.theirs].iter().all(|t| memchr::memmem::find(t, b"\"chunks\"").is_some()) {
        return None;
    }
    let docs = parse_versions(texts)?;
    let boxes = docs.as_ref().map(|_, doc| chunked_layers(doc));
    let mut edits: Sides<Vec<(usize, usize, String)>> = Sides::new(Vec::new(), Vec::new(), Vec::new());
    let mut layers = Vec::new();
    for (id, ours) in &boxes.ours {
        let (Some(base), Some(theirs)) = (boxes.base.get(id), boxes.theirs.get(id)) else { continue };
        let grew = |b: &Bounds| b.values != base.values;
        if !grew(ours) || !grew(theirs) || ours.values == theirs.values {
            continue;
        }
        let united = ours.united(theirs);
        for (side, bounds) in [(Side::Ours, ours), (Side::Theirs, theirs)] {
            let doc = docs.get(side);
            let changed = (0..4).filter(|&k| bounds.values[k] != united[k]);
            edits.get_mut(side).extend(changed.map(|k| number_edit(doc, bounds.nodes[k], united[k])));
        }
        layers.push(format!("{id} (startx {}, starty {}, width {}, height {})", united[0], united[1], united[2], united[3]));
    }
    if layers.is_empty() {
        return None;
    }
    layers.sort();
    let rewritten = docs.as_ref().map(|side, doc| {
        let edits = std::mem::take(edits.get_mut(side));
        (!edits.is_empty()).then(|| levelmerge_core::text::splice(doc.src, edits).into_bytes())
    });
    let note = format!(
        "both sides grew the bounds of infinite tile layer(s) {}: each written as the box holding both sides' chunks",
        layers.join(", ")
    );
    Some((rewritten, note))
}

/// The box of each layer holding `chunks`, groups' layers included, by the layer's `id` as
/// written; a layer whose box or id is not written as numbers is left out.
fn chunked_layers<'s>(doc: &Document<'s>) -> FxHashMap<&'s str, Bounds> {
    let mut out = FxHashMap::default();
    let Some(layers) = doc.member(doc.root, "layers") else { return out };
    each_layer(doc, layers, &mut |layer| {
        let bounds = || {
            doc.member(layer, "chunks")?;
            let id = doc.member(layer, "id").filter(|&n| doc.integer(n).is_some())?;
            let mut bounds = Bounds { nodes: [0; 4], values: [0; 4] };
            for (k, name) in MEMBERS.iter().enumerate() {
                bounds.nodes[k] = doc.member(layer, name)?;
                bounds.values[k] = doc.integer(bounds.nodes[k])?;
            }
            Some((doc.node_text(id), bounds))
        };
        if let Some((id, bounds)) = bounds() {
            out.insert(id, bounds);
        }
        Some(())
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A map whose one layer holds chunks at `xs` (four tiles wide, at y 0) within the box
    /// `startx`, `width`.
    fn map(xs: &[i64], startx: i64, width: i64) -> String {
        let chunks: Vec<String> =
            xs.iter().map(|x| format!(r#"{{"data": [1, 1, 1, 1], "height": 2, "width": 2, "x": {x}, "y": 0}}"#)).collect();
        format!(
            r#"{{"infinite": true, "layers": [{{"chunks": [{}], "height": 2, "id": 1, "name": "ground", "startx": {startx}, "starty": 0, "type": "tilelayer", "width": {width}}}], "tiledversion": "1.10"}}"#,
            chunks.join(", ")
        )
    }

    fn unite(base: &str, ours: &str, theirs: &str) -> Option<(Sides<Option<String>>, String)> {
        crate::rewritten_texts(united, base, ours, theirs)
    }

    #[test]
    fn boxes_grown_two_ways_are_both_written_as_the_box_holding_both() {
        let (texts, note) = unite(&map(&[0], 0, 2), &map(&[0, 2], 0, 4), &map(&[-2, 0], -2, 4)).expect("both grew the box");
        assert_eq!(texts.ours.as_deref(), Some(map(&[0, 2], -2, 6).as_str()));
        assert_eq!(texts.theirs.as_deref(), Some(map(&[-2, 0], -2, 6).as_str()));
        assert!(texts.base.is_none());
        assert!(note.contains("layer(s) 1 (startx -2, starty 0, width 6, height 2)"), "{note}");
    }

    #[test]
    fn a_box_one_side_grew_or_both_grew_alike_is_left_to_the_merge() {
        let base = map(&[0], 0, 2);
        assert!(unite(&base, &map(&[0, 2], 0, 4), &base).is_none());
        assert!(unite(&base, &map(&[0, 2], 0, 4), &map(&[0, 2], 0, 4)).is_none());
        // A finite map's layers hold no chunks and no box of their own.
        let finite = r#"{"layers": [{"data": [1], "height": 1, "id": 1, "type": "tilelayer", "width": 1}]}"#;
        assert!(unite(finite, finite, finite).is_none());
    }

    #[test]
    fn a_box_within_the_other_sides_is_written_as_that_one() {
        // Ours grew the box to the right; theirs grew it further right and left.
        let (texts, _) = unite(&map(&[0], 0, 2), &map(&[0, 2], 0, 4), &map(&[-2, 0, 4], -2, 8)).expect("both grew the box");
        assert_eq!(texts.ours.as_deref(), Some(map(&[0, 2], -2, 8).as_str()));
        assert!(texts.theirs.is_none(), "theirs' box holds ours'");
    }
}
