//! Tiled's tile ids (gids): each tileset of a map owns the gids from its `firstgid` up, and a
//! tileset added to a map starts where the last one ends. Two people who each add a tileset
//! give both the same `firstgid`, and each side's tiles of its new tileset the same gids.
//! Before the merge, theirs' new tilesets are moved above ours' new ones, and theirs' gids in
//! their range follow: layer and chunk `data`, a tile object's `gid`, flip bits kept.
//!
//! Done only where it is sure: both sides appended tilesets and kept the others' `firstgid`,
//! ours' last tileset says how many tiles it holds (an external one does not: the merge then
//! sees two tilesets added at one `firstgid`, a conflict), and theirs writes its gids as
//! numbers (not base64 `data`).

use levelmerge_core::model::ObjectId;
use levelmerge_core::{Problem, Sides};

use crate::parse::{parse_versions, Document, NodeKind};

/// The flip and rotation flags Tiled keeps in a gid's top bits.
pub(crate) const GID_FLAGS: u32 = 0xF000_0000;

/// A tileset of a map, as one version lists it.
pub(crate) struct Tileset<'s> {
    /// Its `source` (an external tileset) or its `name` (an embedded one), as written.
    pub identity: &'s str,
    /// The value node of its `firstgid`.
    pub firstgid_node: u32,
    pub firstgid: u32,
    /// How many gids its tiles take: its `tilecount`, or one past its highest tile id where
    /// that is higher (an image collection whose tiles were removed keeps the others' ids);
    /// `None` for an external tileset, whose count is in its own file.
    pub span: Option<u32>,
}

impl Tileset<'_> {
    /// Where its gids end, where the map says.
    pub fn end(&self) -> Option<u32> {
        self.firstgid.checked_add(self.span?)
    }
}

/// The map's tilesets, or `None` when the document is not a map whose tilesets each have a
/// `firstgid` and a `source` or `name`.
pub(crate) fn tilesets<'s>(doc: &Document<'s>) -> Option<Vec<Tileset<'s>>> {
    let number = |node: u32| doc.integer(node).and_then(|n| u32::try_from(n).ok());
    let list = doc.member(doc.root, "tilesets")?;
    doc.slots_of(list)
        .iter()
        .map(|slot| {
            let tileset = slot.value;
            let firstgid_node = doc.member(tileset, "firstgid")?;
            let identity = doc.member(tileset, "source").or_else(|| doc.member(tileset, "name"))?;
            let tile_ids = doc.member(tileset, "tiles").map_or(&[][..], |tiles| doc.slots_of(tiles));
            let past_ids = tile_ids.iter().filter_map(|t| doc.member(t.value, "id").and_then(number)?.checked_add(1)).max();
            Some(Tileset {
                identity: doc.node_text(identity),
                firstgid_node,
                firstgid: number(firstgid_node)?,
                span: doc.member(tileset, "tilecount").and_then(number).map(|count| past_ids.map_or(count, |past| past.max(count))),
            })
        })
        .collect()
}

/// Whether no tileset of `list` is listed twice, by name or by `firstgid`: where one is, which
/// tileset a gid means is not sure (Tiled's maps never do it; a hand merge can).
pub(crate) fn each_listed_once(list: &[Tileset<'_>]) -> bool {
    list.iter().enumerate().all(|(i, t)| !list[..i].iter().any(|o| o.identity == t.identity || o.firstgid == t.firstgid))
}

/// The tileset of `sorted` (by `firstgid`) whose gids hold `gid` (flags taken off), where the
/// map says: below the next one's `firstgid` and, where its count is known, within it.
pub(crate) fn holder<'a, 's>(sorted: &'a [Tileset<'s>], gid: u32) -> Option<&'a Tileset<'s>> {
    let at = sorted.partition_point(|t| t.firstgid <= gid).checked_sub(1)?;
    let tileset = &sorted[at];
    tileset.end().is_none_or(|end| gid < end).then_some(tileset)
}

/// The text of each `"tilesets"` array written in a text, found without reading the rest
/// (an unclosed one runs to the end): texts whose lists agree hold the same tilesets.
pub(crate) fn written_tileset_lists(text: &[u8]) -> Vec<&[u8]> {
    tileset_lists_in(text).collect()
}

/// The `"tilesets"` arrays of a text, in order, found as they are needed (an LDtk project
/// has one, early in the file: the scan need not go on through its levels).
pub(crate) fn tileset_lists_in(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    const KEY: &[u8] = b"\"tilesets\"";
    memchr::memmem::find_iter(text, KEY).filter_map(move |at| {
        let rest = &text[at + KEY.len()..];
        let list = rest.trim_ascii_start().strip_prefix(b":")?.trim_ascii_start();
        list.starts_with(b"[").then(|| &list[..closing_bracket(list).map_or(list.len(), |end| end + 1)])
    })
}

/// Where the bracket opening `text` closes, strings skipped.
fn closing_bracket(text: &[u8]) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &byte) in text.iter().enumerate() {
        match (in_string, byte) {
            (true, _) if escaped => escaped = false,
            (true, b'\\') => escaped = true,
            (true, b'"') | (false, b'"') => in_string = !in_string,
            (false, b'[' | b'{') => depth += 1,
            (false, b']' | b'}') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The `firstgid` values written in a text, found without reading it.
fn written_firstgids(text: &[u8]) -> Vec<&str> {
    const KEY: &[u8] = b"\"firstgid\"";
    memchr::memmem::find_iter(text, KEY).filter_map(|at| crate::renumber::number_after_key(&text[at + KEY.len()..])).collect()
}

/// A side's tilesets added to base's: those at a `firstgid` base has none at, `None` unless
/// each is above all of base's (Tiled gives every tileset after one it removed a new
/// `firstgid`: the side's gids then mean other tiles than base's, which this does not follow).
fn appended<'a, 's>(base: &[Tileset<'_>], side: &'a [Tileset<'s>]) -> Option<Vec<&'a Tileset<'s>>> {
    let top = base.iter().map(|t| t.firstgid).max().unwrap_or(0);
    let added: Vec<&Tileset<'s>> = side.iter().filter(|t| !base.iter().any(|b| b.firstgid == t.firstgid)).collect();
    added.iter().all(|t| t.firstgid > top).then_some(added)
}

/// Theirs with its new tilesets and their tiles moved above ours' new tilesets, and a note;
/// `None` when the two sides did not both add tilesets at one `firstgid`, or where moving
/// them is not sure (see the module's text).
pub fn shift_theirs(texts: Sides<&[u8]>) -> Option<(Vec<u8>, String)> {
    // Cheap first: both sides must write a `firstgid` base does not.
    let base_gids = written_firstgids(texts.base);
    let writes_new = |text| written_firstgids(text).iter().any(|g| !base_gids.contains(g));
    if !(writes_new(texts.ours) && writes_new(texts.theirs)) {
        return None;
    }
    let docs = parse_versions(texts)?;
    let lists = Sides::new(tilesets(&docs.base)?, tilesets(&docs.ours)?, tilesets(&docs.theirs)?);
    if ![&lists.base, &lists.ours, &lists.theirs].iter().all(|list| each_listed_once(list)) {
        return None;
    }
    let ours_added = appended(&lists.base, &lists.ours)?;
    // One tileset both sides added alike, at one place, is one tileset.
    let theirs_added: Vec<&Tileset<'_>> = appended(&lists.base, &lists.theirs)?
        .into_iter()
        .filter(|t| !ours_added.iter().any(|o| o.identity == t.identity && o.firstgid == t.firstgid))
        .collect();
    // A new tileset of theirs that ours added at another place, with as many tiles, is that
    // one (an earlier merge moved it above ours' and is merged again from an older base): its
    // tiles take ours' gids. The others move above ours' new ones.
    let held_at =
        |t: &Tileset<'_>| ours_added.iter().find(|o| o.identity == t.identity && o.span.is_some() && o.span == t.span).map(|o| o.firstgid);
    let mut held: Vec<(&Tileset<'_>, u32)> = Vec::new();
    let mut moving: Vec<&Tileset<'_>> = Vec::new();
    for t in &theirs_added {
        match held_at(t) {
            Some(to) => held.push((t, to)),
            None => moving.push(t),
        }
    }
    let ours_end = lists.ours.iter().max_by_key(|t| t.firstgid)?.end()?;
    let theirs_first = moving.iter().map(|t| t.firstgid).min();
    let shift = match theirs_first {
        Some(first) if !ours_added.is_empty() && ours_end > first => ours_end - first,
        _ => 0,
    };
    if held.is_empty() && shift == 0 {
        return None;
    }
    let doc = &docs.theirs;
    let mut edits = Vec::new();
    let mut moves = Vec::new();
    // Each held tileset's gids, from theirs' first to ours'.
    let held_ranges: Vec<(u32, u32, u32)> = held.iter().filter_map(|&(t, to)| Some((t.firstgid, t.end()?, to))).collect();
    for &(t, to) in &held {
        edits.push(number_edit(doc, t.firstgid_node, to));
        moves.push(format!("{} {} → {to}, where ours holds it", t.identity.trim_matches('"'), t.firstgid));
    }
    for t in moving.iter().filter(|_| shift > 0) {
        edits.push(number_edit(doc, t.firstgid_node, t.firstgid.checked_add(shift)?));
        moves.push(format!("{} {} → {}", t.identity.trim_matches('"'), t.firstgid, t.firstgid + shift));
    }
    let mut gids = Vec::new();
    gid_nodes(doc, doc.member(doc.root, "layers")?, &mut gids)?;
    let moved = |gid: u32| match held_ranges.iter().find(|(from, end, _)| (*from..*end).contains(&gid)) {
        Some((from, _, to)) => Some(gid - from + to),
        None if theirs_first.is_some_and(|first| gid >= first) => gid.checked_add(shift),
        None => Some(gid),
    };
    edits.extend(moved_gids(doc, &gids, moved)?);
    let first = theirs_added.iter().map(|t| t.firstgid).min()?;
    let note = format!("both sides added tilesets at gid {first}; theirs' are moved above ours', with their tiles: {}", moves.join(", "));
    Some((levelmerge_core::text::splice(doc.src, edits).into_bytes(), note))
}

/// The edit writing `value` as the number at `node`.
pub(crate) fn number_edit(doc: &Document<'_>, node: u32, value: impl std::fmt::Display) -> (usize, usize, String) {
    let n = &doc.nodes[node as usize];
    (n.start as usize, n.end as usize, value.to_string())
}

/// The edits writing each gid of `nodes` (a number) as `moved` gives it, its flags kept; a gid
/// `moved` leaves is not written. `None` where `moved` fails or reaches the flags' bits.
pub(crate) fn moved_gids(doc: &Document<'_>, nodes: &[u32], moved: impl Fn(u32) -> Option<u32>) -> Option<Vec<(usize, usize, String)>> {
    let mut edits = Vec::new();
    for &node in nodes {
        let Some(written) = doc.integer(node).and_then(|g| u32::try_from(g).ok()) else { continue };
        let gid = written & !GID_FLAGS;
        let to = moved(gid).filter(|m| m & GID_FLAGS == 0)?;
        if to != gid {
            edits.push(number_edit(doc, node, (written & GID_FLAGS) | to));
        }
    }
    Some(edits)
}

/// The gid nodes of the layers in `layers` and the groups among them: each number of a tile
/// layer's or chunk's `data`, and each object's `gid`. `None` where a layer writes its data
/// as a string (base64, maybe compressed), whose gids cannot be moved in place.
pub(crate) fn gid_nodes(doc: &Document<'_>, layers: u32, out: &mut Vec<u32>) -> Option<()> {
    each_layer(doc, layers, &mut |layer| layer_gid_nodes(doc, layer, out))
}

/// `visit` on each layer of `layers` and of the groups among them, until it gives `None`.
pub(crate) fn each_layer(doc: &Document<'_>, layers: u32, visit: &mut impl FnMut(u32) -> Option<()>) -> Option<()> {
    for slot in doc.slots_of(layers) {
        visit(slot.value)?;
        if let Some(group) = doc.member(slot.value, "layers") {
            each_layer(doc, group, visit)?;
        }
    }
    Some(())
}

/// The gid nodes of one layer (not of the layers of a group): see [`gid_nodes`].
fn layer_gid_nodes(doc: &Document<'_>, layer: u32, out: &mut Vec<u32>) -> Option<()> {
    let numbers_of = |data: u32, out: &mut Vec<u32>| match doc.nodes[data as usize].kind {
        NodeKind::Array => {
            out.extend(doc.slots_of(data).iter().map(|s| s.value).filter(|&v| doc.nodes[v as usize].kind == NodeKind::Number));
            Some(())
        }
        NodeKind::String => None,
        _ => Some(()),
    };
    if let Some(data) = doc.member(layer, "data") {
        numbers_of(data, out)?;
    }
    for chunk in doc.member(layer, "chunks").map_or(&[][..], |c| doc.slots_of(c)) {
        if let Some(data) = doc.member(chunk.value, "data") {
            numbers_of(data, out)?;
        }
    }
    for object in doc.member(layer, "objects").map_or(&[][..], |o| doc.slots_of(o)) {
        out.extend(doc.member(object.value, "gid").filter(|&g| doc.nodes[g as usize].kind == NodeKind::Number));
    }
    Some(())
}

/// What Tiled cannot show in a map: two tilesets whose tiles take the same gids, and a layer
/// showing a tile no tileset holds (a merge that numbered tiles by two different lists of
/// tilesets gives both). One problem per pair and per layer, where first found, without
/// numbers: a merge of a map that had one keeps it, not a new one.
pub fn gid_problems(doc: &Document<'_>) -> Vec<Problem> {
    let (Some(mut sorted), Some(layers)) = (tilesets(doc), doc.member(doc.root, "layers")) else { return Vec::new() };
    sorted.sort_by_key(|t| t.firstgid);
    let problem = |message: String, node: u32| Problem::Inconsistent {
        object: ObjectId::new(crate::lower::ROOT_ID),
        message,
        line: doc.line_of(doc.nodes[node as usize].start) as usize,
    };
    let mut problems: Vec<Problem> = sorted
        .windows(2)
        .filter(|pair| pair[0].end().is_some_and(|end| end > pair[1].firstgid) || pair[0].firstgid == pair[1].firstgid)
        .map(|pair| problem(format!("tilesets {} and {} take the same gids", pair[0].identity, pair[1].identity), pair[1].firstgid_node))
        .collect();
    let _ = each_layer(doc, layers, &mut |layer| {
        let mut gids = Vec::new();
        if layer_gid_nodes(doc, layer, &mut gids).is_none() {
            return Some(());
        }
        let unheld = gids.into_iter().find(|&node| {
            let gid = doc.integer(node).and_then(|n| u32::try_from(n).ok()).map(|g| g & !GID_FLAGS);
            gid.is_some_and(|gid| gid != 0 && holder(&sorted, gid).is_none())
        });
        if let Some(node) = unheld {
            let name = doc.member(layer, "name").map_or("(unnamed)", |n| doc.node_text(n));
            problems.push(problem(format!("layer {name} shows a tile no tileset holds"), node));
        }
        Some(())
    });
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(tilesets: &str, data: &str, objects: &str) -> String {
        format!(
            r#"{{"layers": [{{"data": [{data}], "id": 1, "type": "tilelayer"}}, {{"id": 2, "layers": [{{"id": 3, "objects": [{objects}], "type": "objectgroup"}}], "type": "group"}}], "tiledversion": "1.10", "tilesets": [{tilesets}]}}"#
        )
    }

    const A: &str = r#"{"firstgid": 1, "source": "a.tsj"}"#;

    #[test]
    fn theirs_new_tileset_and_its_tiles_move_above_ours() {
        let base = map(A, "1, 0, 0, 0", "");
        let ours = map(&format!(r#"{A}, {{"firstgid": 17, "name": "b", "tilecount": 12}}"#), "1, 17, 0, 0", "");
        let theirs = map(
            &format!(r#"{A}, {{"firstgid": 17, "name": "c", "tilecount": 4}}"#),
            "1, 0, 18, 2147483665",
            r#"{"gid": 19, "id": 1}, {"gid": 3, "id": 2}"#,
        );
        let (out, note) = shift_theirs(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes())).unwrap();
        // 2147483665 is gid 17 flipped horizontally (0x80000000 | 17).
        let want = map(
            &format!(r#"{A}, {{"firstgid": 29, "name": "c", "tilecount": 4}}"#),
            "1, 0, 30, 2147483677",
            r#"{"gid": 31, "id": 1}, {"gid": 3, "id": 2}"#,
        );
        assert_eq!(String::from_utf8(out).unwrap(), want);
        assert_eq!(note, "both sides added tilesets at gid 17; theirs' are moved above ours', with their tiles: c 17 → 29");
    }

    #[test]
    fn theirs_new_tileset_moves_above_a_new_one_of_ours_that_overlaps_it() {
        let base = map(A, "1", "");
        let ours = map(&format!(r#"{A}, {{"firstgid": 13, "name": "b", "tilecount": 10}}"#), "22", "");
        let theirs = map(&format!(r#"{A}, {{"firstgid": 17, "name": "c", "tilecount": 4}}"#), "17", "");
        let (out, _) = shift_theirs(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes())).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), theirs.replace("17", "23"));
    }

    #[test]
    fn theirs_new_tileset_ours_holds_already_elsewhere_takes_its_gids() {
        // An earlier merge moved theirs' `c` above ours' `b` (to 29); merged with theirs again
        // from the older base, `c` is the one ours holds, and its tiles follow it there.
        let base = map(A, "1, 0, 0", "");
        let b_and_c = format!(r#"{A}, {{"firstgid": 17, "name": "b", "tilecount": 12}}, {{"firstgid": 29, "name": "c", "tilecount": 4}}"#);
        let ours = map(&b_and_c, "1, 17, 30", "");
        let theirs = map(&format!(r#"{A}, {{"firstgid": 17, "name": "c", "tilecount": 4}}"#), "1, 0, 18", r#"{"gid": 17, "id": 1}"#);
        let (out, note) = shift_theirs(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes())).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), theirs.replace("17", "29").replace("18", "30"));
        assert_eq!(
            note,
            "both sides added tilesets at gid 17; theirs' are moved above ours', with their tiles: c 17 → 29, where ours holds it"
        );
        // A namesake with another tile count is another tileset: it moves above ours' as any other.
        let grown = theirs.replace("\"tilecount\": 4", "\"tilecount\": 5");
        let (out, _) = shift_theirs(Sides::new(base.as_bytes(), ours.as_bytes(), grown.as_bytes())).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), grown.replace("17", "33").replace("18", "34"));
    }

    #[test]
    fn nothing_moves_where_it_is_not_sure() {
        let base = map(A, "1", "");
        let theirs = map(&format!(r#"{A}, {{"firstgid": 17, "name": "c", "tilecount": 4}}"#), "17", "");
        let sides = |ours: &str, theirs: &str| shift_theirs(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes()));
        // Ours' new tileset is external: how many tiles it holds is not in the map.
        assert!(sides(&map(&format!(r#"{A}, {{"firstgid": 17, "source": "b.tsj"}}"#), "17", ""), &theirs).is_none());
        // Only theirs added one.
        assert!(sides(&base, &theirs).is_none());
        // Both added the same one alike.
        assert!(sides(&theirs, &theirs).is_none());
        // Ours' new tileset ends where theirs' begins.
        assert!(sides(&map(&format!(r#"{A}, {{"firstgid": 13, "name": "b", "tilecount": 4}}"#), "13", ""), &theirs).is_none());
        // Theirs lists two tilesets at one gid (a hand merge): whose tiles its gids are is not sure.
        let twice = map(
            &format!(r#"{A}, {{"firstgid": 17, "name": "b", "tilecount": 12}}, {{"firstgid": 17, "name": "c", "tilecount": 4}}"#),
            "17",
            "",
        );
        assert!(sides(&map(&format!(r#"{A}, {{"firstgid": 17, "name": "b", "tilecount": 12}}"#), "17", ""), &twice).is_none());
        // Theirs writes its tiles in base64.
        let encoded = theirs.replace("\"data\": [17]", "\"data\": \"EQAAAA==\"");
        assert!(sides(&map(&format!(r#"{A}, {{"firstgid": 17, "name": "b", "tilecount": 2}}"#), "17", ""), &encoded).is_none());
    }
}
