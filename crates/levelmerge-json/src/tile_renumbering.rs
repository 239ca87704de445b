//! Tiled numbers the tiles of a map's tilesets one after another, so removing a tileset, or
//! one growing, gives every later tileset another `firstgid` and the map's gids are written
//! anew. A side that did so writes its tiles in other numbers than base's: merged as they
//! stand, the other side's tiles would show other tiles. Before the merge, every version is
//! read in one numbering: that side's (ours' where both did), each tileset taking the gids the
//! merge gives it (a tileset the other side grew pushes the ones after it up). A tileset that
//! side does not list keeps its own gids where they are free, else moves above every gid in
//! use. A side painting a tileset the other removed thus writes a gid no tileset of the merged
//! map holds, and the merged map's check refuses it ([`crate::tile_gids::gid_problems`]).
//!
//! Done only where it is sure: each version lists each tileset once and writes its gids as
//! numbers (not base64 `data`), and a tileset moved above the others says how many tiles it
//! holds, unless it is the last one moved.

use levelmerge_core::{Side, Sides};
use rustc_hash::FxHashMap;

use crate::parse::{parse_versions, Document};
use crate::tile_gids::{each_listed_once, gid_nodes, holder, moved_gids, number_edit, tilesets, written_tileset_lists, Tileset, GID_FLAGS};

const SIDES: [Side; 3] = [Side::Base, Side::Ours, Side::Theirs];

/// The versions rewritten into one numbering of tiles where a side renumbered its tilesets
/// (`None` for one left as it is), and a note; `None` where no side did, or where it is not
/// sure.
pub fn follow_renumbered(texts: Sides<&[u8]>) -> Option<(Sides<Option<Vec<u8>>>, String)> {
    // Cheap first: a side that renumbered lists its tilesets otherwise than base.
    let written = texts.map(|_, text| written_tileset_lists(text));
    if written.ours == written.base && written.theirs == written.base {
        return None;
    }
    let docs = parse_versions(texts)?;
    let base_list = sorted_tilesets(&docs.base)?;
    let lists = Sides::new(
        same_as_base(sorted_tilesets(&docs.ours)?, &base_list),
        same_as_base(sorted_tilesets(&docs.theirs)?, &base_list),
        Vec::new(),
    );
    let lists = Sides::new(base_list, lists.base, lists.ours);
    // A tileset of base's that starts elsewhere or takes more or fewer gids (the last one's
    // growth moves no other, but runs into the gids of one the other side adds), or another
    // tileset where base has one (a new one in the place of one removed).
    let renumbered = |side: &[Tileset<'_>]| {
        side.iter().any(|t| {
            lists.base.iter().any(|b| {
                (b.identity == t.identity && (b.firstgid != t.firstgid || b.span != t.span))
                    || (b.firstgid == t.firstgid && b.identity != t.identity)
            })
        })
    };
    let target = if renumbered(&lists.ours) {
        Side::Ours
    } else if renumbered(&lists.theirs) {
        Side::Theirs
    } else {
        return None;
    };
    let gids = docs.as_ref().map(|_, doc| {
        let mut out = Vec::new();
        gid_nodes(doc, doc.member(doc.root, "layers")?, &mut out)?;
        Some(out)
    });
    let gids = Sides::new(gids.base?, gids.ours?, gids.theirs?);
    let starts = placements(&docs, &lists, &gids, target)?;
    let rewritten = docs.as_ref().map(|side, doc| renumber(doc, lists.get(side), gids.get(side), &starts));
    let rewritten = Sides::new(rewritten.base?, rewritten.ours?, rewritten.theirs?);
    let read_anew: Vec<&str> = SIDES.into_iter().filter(|side| rewritten.get(*side).is_some()).map(Side::possessive).collect();
    if read_anew.is_empty() {
        return None;
    }
    let target_name = if target == Side::Ours { "ours" } else { "theirs" };
    let note = format!(
        "{target_name} gives its tilesets other gids than base (a tileset removed or grown): {} tiles are numbered as the merged tilesets take them",
        read_anew.join(", ").replacen(", ", " and ", usize::from(read_anew.len() == 2))
    );
    Some((rewritten, note))
}

/// The map's tilesets by `firstgid`, `None` where one is listed twice.
fn sorted_tilesets<'s>(doc: &Document<'s>) -> Option<Vec<Tileset<'s>>> {
    let mut list = tilesets(doc)?;
    list.sort_by_key(|t| t.firstgid);
    each_listed_once(&list).then_some(list)
}

/// A side's tilesets, those that replace one of base's named as base names it: Tiled's
/// "Replace Tileset" (and renaming an embedded one) puts a tileset of another name and image
/// where the old one was, and the map's tiles keep their ids. A tileset of a new name is taken
/// for one of base's that the side no longer lists where it starts at the same gid and is
/// followed by the tileset that followed base's; or, for base's last, where it holds as many
/// tiles (the side may have removed the last tileset and added another, which starts where
/// the removed one did).
fn same_as_base<'s>(mut side: Vec<Tileset<'s>>, base: &[Tileset<'s>]) -> Vec<Tileset<'s>> {
    // From the last: a run of replaced tilesets is followed by ones already named as base's.
    for i in (0..side.len()).rev() {
        let tileset = &side[i];
        if base.iter().any(|b| b.identity == tileset.identity) {
            continue;
        }
        let listed = |identity: &str| side.iter().any(|t| t.identity == identity);
        let Some(at) = base.iter().position(|b| b.firstgid == tileset.firstgid && !listed(b.identity)) else { continue };
        let replaced = match base.get(at + 1) {
            Some(next) => side.get(i + 1).is_some_and(|t| t.identity == next.identity),
            None => base[at].span == tileset.span,
        };
        if replaced {
            side[i].identity = base[at].identity;
        }
    }
    side
}

/// How many gids the tileset at `i` of a list takes: its count, or the room before the next.
fn own_span(list: &[Tileset<'_>], i: usize) -> Option<u32> {
    list[i].span.or_else(|| list.get(i + 1).map(|next| next.firstgid - list[i].firstgid))
}

/// Where each tileset starts in the numbering the versions are read in: `target`'s tilesets
/// where `target` starts them, pushed up past the one before where the merge grows that; a
/// tileset `target` does not list at its own `firstgid` (base's first) where its gids meet
/// none placed before, else above every gid in use. `None` where a tileset would start above
/// one whose end is not known.
fn placements<'s>(
    docs: &Sides<Document<'s>>,
    lists: &Sides<Vec<Tileset<'s>>>,
    gids: &Sides<Vec<u32>>,
    target: Side,
) -> Option<FxHashMap<&'s str, u32>> {
    let span_in = |list: &[Tileset<'_>], identity: &str| list.iter().position(|t| t.identity == identity).and_then(|i| own_span(list, i));
    // The gids a tileset takes after the merge: the changed side's count, the larger where
    // both changed it (their tilesets then conflict).
    let merged_span = |identity: &str| {
        let [b, o, t] = [&lists.base, &lists.ours, &lists.theirs].map(|list| span_in(list, identity));
        let merged = if o == b {
            t.or(b)
        } else if t == b {
            o.or(b)
        } else {
            o.max(t)
        };
        merged.or(o).or(t).or(b)
    };
    let range =
        |identity: &str, first: u32| (u64::from(first), merged_span(identity).map_or(u64::MAX, |s| u64::from(first) + u64::from(s)));
    let fits = |start: u64| u32::try_from(start).ok().filter(|s| s & GID_FLAGS == 0);
    let mut starts: FxHashMap<&'s str, u32> = FxHashMap::default();
    let mut taken: Vec<(u64, u64)> = Vec::new();
    // Pushed up only past another's growth: tilesets `target` itself lists overlapping (a
    // broken file) stay as they are, moved only as far as the one before moved.
    let (mut end_before, mut shift, mut own_end_before) = (0u64, 0u64, 0u64);
    let target_list = lists.get(target);
    for (i, tileset) in target_list.iter().enumerate() {
        let first = u64::from(tileset.firstgid);
        let start = if first >= own_end_before { (first + shift).max(end_before) } else { first + shift };
        let placed = range(tileset.identity, fits(start)?);
        starts.insert(tileset.identity, fits(start)?);
        taken.push(placed);
        (end_before, shift) = (placed.1, start - first);
        own_end_before = own_span(target_list, i).map_or(u64::MAX, |span| first + u64::from(span));
    }
    // Above every gid any version writes and every tileset's end.
    let top_gid = SIDES
        .iter()
        .flat_map(|&side| {
            let doc = docs.get(side);
            gids.get(side).iter().filter_map(move |&node| doc.integer(node)).map(|g| (g as u64) & u64::from(!GID_FLAGS))
        })
        .max()
        .unwrap_or(0);
    let all = [&lists.base, &lists.ours, &lists.theirs];
    let own_ends =
        all.iter().flat_map(|list| (0..list.len()).filter_map(|i| Some(u64::from(list[i].firstgid) + u64::from(own_span(list, i)?))));
    let mut above = taken.iter().map(|r| r.1).chain(own_ends).chain([top_gid + 1]).filter(|&end| end != u64::MAX).max().unwrap_or(1);
    let mut unbounded_moved = false;
    for list in SIDES.into_iter().filter(|side| *side != target).map(|side| lists.get(side)) {
        for tileset in list {
            if starts.contains_key(tileset.identity) {
                continue;
            }
            let own = range(tileset.identity, tileset.firstgid);
            let start = if taken.iter().all(|t| own.1 <= t.0 || t.1 <= own.0) {
                tileset.firstgid
            } else {
                // A tileset moved above one whose end is unknown could run into it.
                if unbounded_moved {
                    return None;
                }
                let start = fits(above)?;
                unbounded_moved = own.1 == u64::MAX;
                above = above.saturating_add(own.1 - own.0);
                start
            };
            starts.insert(tileset.identity, start);
            taken.push(range(tileset.identity, start));
        }
    }
    // Target's own tilesets must not start above one whose end is unknown either.
    (!taken.iter().any(|r| r.1 == u64::MAX) || taken.iter().filter(|r| r.1 == u64::MAX).all(|r| taken.iter().all(|o| o.0 <= r.0)))
        .then_some(starts)
}

/// `doc` rewritten into the numbering `starts` gives: each tileset's `firstgid`, and each gid a
/// tileset of `doc` holds, flags kept; `Some(None)` where nothing changes, `None` where a gid
/// would reach the flags' bits.
fn renumber(doc: &Document<'_>, list: &[Tileset<'_>], gids: &[u32], starts: &FxHashMap<&str, u32>) -> Option<Option<Vec<u8>>> {
    let mut edits: Vec<(usize, usize, String)> =
        list.iter().filter(|t| starts[t.identity] != t.firstgid).map(|t| number_edit(doc, t.firstgid_node, starts[t.identity])).collect();
    // A gid no tileset holds is left as written: it was broken before the merge.
    let moved = |gid: u32| Some(holder(list, gid).map_or(gid, |t| starts[t.identity] + (gid - t.firstgid)));
    edits.extend(moved_gids(doc, gids, moved)?);
    Some((!edits.is_empty()).then(|| levelmerge_core::text::splice(doc.src, edits).into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(tilesets: &str, data: &str) -> String {
        format!(
            r#"{{"layers": [{{"data": [{data}], "id": 1, "name": "ground", "type": "tilelayer"}}], "tiledversion": "1.10", "tilesets": [{tilesets}]}}"#
        )
    }

    fn follow(base: &str, ours: &str, theirs: &str) -> Option<(Sides<Option<String>>, String)> {
        crate::rewritten_texts(follow_renumbered, base, ours, theirs)
    }

    const A: &str = r#"{"firstgid": 1, "name": "a", "tilecount": 4}"#;
    const B: &str = r#"{"firstgid": 5, "name": "b", "tilecount": 4}"#;
    const B_AT_1: &str = r#"{"firstgid": 1, "name": "b", "tilecount": 4}"#;

    #[test]
    fn tiles_of_the_side_that_kept_a_removed_tileset_are_read_in_the_remover_numbering() {
        // Ours removed a (its tiles erased) and b moved down; theirs painted b's tiles 3 and 4
        // (gids 7 and 8), flipping one (0x80000000 | 8 = 2147483656).
        let base = map(&format!("{A}, {B}"), "1, 5, 0, 0");
        let ours = map(B_AT_1, "0, 1, 0, 0");
        let theirs = map(&format!("{A}, {B}"), "1, 5, 7, 2147483656");
        let (texts, note) = follow(&base, &ours, &theirs).unwrap();
        // a moves above every gid in use (8 and b's end): 9.
        let a_moved = r#"{"firstgid": 9, "name": "a", "tilecount": 4}"#;
        assert_eq!(texts.base.unwrap(), map(&format!("{a_moved}, {B_AT_1}"), "9, 1, 0, 0"));
        assert_eq!(texts.theirs.unwrap(), map(&format!("{a_moved}, {B_AT_1}"), "9, 1, 3, 2147483652"));
        assert!(texts.ours.is_none());
        assert_eq!(
            note,
            "ours gives its tilesets other gids than base (a tileset removed or grown): base's and theirs' tiles are numbered as the merged tilesets take them"
        );
    }

    #[test]
    fn a_new_tileset_of_the_other_side_keeps_its_gids_where_they_are_free() {
        // Theirs' a grew to 8 tiles: b moved to 9. Ours added c at 9, which theirs' b now takes.
        let base = map(&format!("{A}, {B}"), "1, 5");
        let ours = map(&format!(r#"{A}, {B}, {{"firstgid": 9, "name": "c", "tilecount": 2}}"#), "1, 10");
        let theirs = map(r#"{"firstgid": 1, "name": "a", "tilecount": 8}, {"firstgid": 9, "name": "b", "tilecount": 4}"#, "8, 9");
        let (texts, _) = follow(&base, &ours, &theirs).unwrap();
        assert_eq!(
            texts.ours.unwrap(),
            map(
                r#"{"firstgid": 1, "name": "a", "tilecount": 4}, {"firstgid": 9, "name": "b", "tilecount": 4}, {"firstgid": 13, "name": "c", "tilecount": 2}"#,
                "1, 14"
            )
        );
        assert_eq!(
            texts.base.unwrap(),
            map(r#"{"firstgid": 1, "name": "a", "tilecount": 4}, {"firstgid": 9, "name": "b", "tilecount": 4}"#, "1, 9")
        );
        assert!(texts.theirs.is_none());
    }

    #[test]
    fn a_tileset_replaced_in_its_place_is_the_same_tileset() {
        // Theirs renamed a (its image too) and b: the same tilesets, nothing renumbered.
        let base = map(&format!("{A}, {B}"), "1, 5");
        let renamed = map(r#"{"firstgid": 1, "name": "a2", "tilecount": 4}, {"firstgid": 5, "name": "b2", "tilecount": 4}"#, "2, 6");
        assert!(follow(&base, &base, &renamed).is_none());
        // Theirs replaced a by a smaller tileset, which moved b down; ours painted b's tile 2.
        let replaced = map(r#"{"firstgid": 1, "name": "a2", "tilecount": 2}, {"firstgid": 3, "name": "b", "tilecount": 4}"#, "1, 3");
        let (texts, _) = follow(&base, &map(&format!("{A}, {B}"), "1, 6"), &replaced).unwrap();
        assert_eq!(
            texts.ours.unwrap(),
            map(r#"{"firstgid": 1, "name": "a", "tilecount": 4}, {"firstgid": 3, "name": "b", "tilecount": 4}"#, "1, 4")
        );
        // Ours removed both and added c where a was: c is not a.
        let c = map(r#"{"firstgid": 1, "name": "c", "tilecount": 6}"#, "0, 0");
        let (texts, _) = follow(&base, &c, &map(&format!("{A}, {B}"), "2, 5")).unwrap();
        // Both move above every gid in use (b ends at 9): a to 9, b to 13.
        assert_eq!(
            texts.theirs.unwrap(),
            map(r#"{"firstgid": 9, "name": "a", "tilecount": 4}, {"firstgid": 13, "name": "b", "tilecount": 4}"#, "10, 13")
        );
    }

    #[test]
    fn nothing_is_rewritten_where_no_side_renumbered_or_it_is_not_sure() {
        let base = map(&format!("{A}, {B}"), "1, 5");
        let painted = map(&format!("{A}, {B}"), "2, 6");
        assert!(follow(&base, &painted, &base).is_none());
        // Both sides the same renumbering: only base is read anew.
        let ours = map(B_AT_1, "0, 1");
        let (texts, _) = follow(&base, &ours, &ours).unwrap();
        assert!(texts.ours.is_none() && texts.theirs.is_none() && texts.base.is_some());
        // Theirs writes base64 data.
        assert!(follow(&base, &ours, &painted.replace("[2, 6]", "\"AgAAAAYAAAA=\"")).is_none());
        // A tileset listed twice.
        assert!(follow(&base, &ours, &map(&format!("{A}, {B}, {B}"), "2, 6")).is_none());
    }
}
