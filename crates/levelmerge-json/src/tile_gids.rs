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

use levelmerge_core::Sides;

use crate::parse::{parse, Dialect, Document, NodeKind};

/// The flip and rotation flags Tiled keeps in a gid's top bits.
const GID_FLAGS: u32 = 0xF000_0000;

/// A tileset of a map, as one version lists it.
struct Tileset<'s> {
    /// Its `source` (an external tileset) or its `name` (an embedded one), as written.
    identity: &'s str,
    /// The value node of its `firstgid`.
    firstgid_node: u32,
    firstgid: u32,
    tilecount: Option<u32>,
}

/// The map's tilesets, or `None` when the document is not a map whose tilesets each have a
/// `firstgid` and a `source` or `name`.
fn tilesets<'s>(doc: &Document<'s>) -> Option<Vec<Tileset<'s>>> {
    let number = |node: u32| doc.integer(node).and_then(|n| u32::try_from(n).ok());
    let list = doc.member(doc.root, "tilesets")?;
    doc.slots_of(list)
        .iter()
        .map(|slot| {
            let tileset = slot.value;
            let firstgid_node = doc.member(tileset, "firstgid")?;
            let identity = doc.member(tileset, "source").or_else(|| doc.member(tileset, "name"))?;
            Some(Tileset {
                identity: doc.node_text(identity),
                firstgid_node,
                firstgid: number(firstgid_node)?,
                tilecount: doc.member(tileset, "tilecount").and_then(number),
            })
        })
        .collect()
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
    let docs = Sides::new(
        parse(texts.base, Dialect::Json).ok()?,
        parse(texts.ours, Dialect::Json).ok()?,
        parse(texts.theirs, Dialect::Json).ok()?,
    );
    let lists = Sides::new(tilesets(&docs.base)?, tilesets(&docs.ours)?, tilesets(&docs.theirs)?);
    let ours_added = appended(&lists.base, &lists.ours)?;
    // One tileset both sides added alike, at one place, is one tileset.
    let theirs_added: Vec<&Tileset<'_>> = appended(&lists.base, &lists.theirs)?
        .into_iter()
        .filter(|t| !ours_added.iter().any(|o| o.identity == t.identity && o.firstgid == t.firstgid))
        .collect();
    let theirs_first = theirs_added.iter().map(|t| t.firstgid).min()?;
    let ours_last = lists.ours.iter().max_by_key(|t| t.firstgid)?;
    let ours_end = ours_last.firstgid.checked_add(ours_last.tilecount?)?;
    if ours_added.is_empty() || ours_end <= theirs_first {
        return None;
    }
    let shift = ours_end - theirs_first;
    let doc = &docs.theirs;
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut renumber = |node: u32, value: u32| {
        let n = &doc.nodes[node as usize];
        edits.push((n.start as usize, n.end as usize, value.to_string()));
    };
    for tileset in &theirs_added {
        renumber(tileset.firstgid_node, tileset.firstgid.checked_add(shift)?);
    }
    let mut gids = Vec::new();
    gid_nodes(doc, doc.member(doc.root, "layers")?, &mut gids)?;
    for node in gids {
        let written = doc.node_text(node);
        let Ok(gid) = written.parse::<u32>() else { continue };
        if gid & !GID_FLAGS >= theirs_first {
            let moved = (gid & !GID_FLAGS).checked_add(shift).filter(|m| m & GID_FLAGS == 0)?;
            renumber(node, (gid & GID_FLAGS) | moved);
        }
    }
    let moves: Vec<String> =
        theirs_added.iter().map(|t| format!("{} {} → {}", t.identity.trim_matches('"'), t.firstgid, t.firstgid + shift)).collect();
    let note =
        format!("both sides added tilesets at gid {theirs_first}; theirs' are moved above ours', with their tiles: {}", moves.join(", "));
    Some((levelmerge_core::text::splice(doc.src, edits).into_bytes(), note))
}

/// The gid nodes of the layers in `layers` and the groups among them: each number of a tile
/// layer's or chunk's `data`, and each object's `gid`. `None` where a layer writes its data
/// as a string (base64, maybe compressed), whose gids cannot be moved in place.
fn gid_nodes(doc: &Document<'_>, layers: u32, out: &mut Vec<u32>) -> Option<()> {
    let numbers_of = |data: u32, out: &mut Vec<u32>| match doc.nodes[data as usize].kind {
        NodeKind::Array => {
            out.extend(doc.slots_of(data).iter().map(|s| s.value).filter(|&v| doc.nodes[v as usize].kind == NodeKind::Number));
            Some(())
        }
        NodeKind::String => None,
        _ => Some(()),
    };
    for slot in doc.slots_of(layers) {
        let layer = slot.value;
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
        if let Some(group) = doc.member(layer, "layers") {
            gid_nodes(doc, group, out)?;
        }
    }
    Some(())
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
        // Theirs writes its tiles in base64.
        let encoded = theirs.replace("\"data\": [17]", "\"data\": \"EQAAAA==\"");
        assert!(sides(&map(&format!(r#"{A}, {{"firstgid": 17, "name": "b", "tilecount": 2}}"#), "17", ""), &encoded).is_none());
    }
}
