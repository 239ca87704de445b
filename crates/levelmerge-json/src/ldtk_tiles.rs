//! LDtk numbers a tileset's tiles row after row: a tile's id is its column plus its row times
//! the tileset's columns (`__cWid`). Resizing a tileset's image gives it other columns, and
//! LDtk renumbers every id of its tiles. A side that did so writes its ids in another
//! numbering than base's: merged as they stand, the other side's new tags, custom data, rules
//! and painted tiles would name other tiles (a tag on tile 10, the first of the second row of
//! 10 columns, lands on the eleventh tile of the first row of 11). Before the merge, every
//! version is rewritten in that side's columns (ours' where both resized one tileset), each
//! tile keeping its column and row; the tileset's cached pixel data (tile by tile, read off the
//! image) is that side's too.
//!
//! Done only where it is sure: the tileset's grid (tile size, spacing, padding) is the same in
//! every version, and each of its ids a version writes keeps its column among the new columns.
//! Elsewhere nothing moves, and a painted tile numbered otherwise than its place in the image
//! (`src`) says so ([`tile_problems`]).

use levelmerge_core::model::ObjectId;
use levelmerge_core::{Problem, Side, Sides};
use rustc_hash::FxHashMap;

use crate::parse::{parse, parse_versions, Dialect, Document, NodeKind};
use crate::tile_gids::{number_edit, tileset_lists_in};

const SIDES: [Side; 3] = [Side::Base, Side::Ours, Side::Theirs];

/// How a tileset cuts its image into tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Grid {
    columns: i64,
    rows: i64,
    /// `tileGridSize`, `spacing`, `padding`.
    cut: [i64; 3],
}

/// A tileset definition of one version.
struct Tileset<'s> {
    node: u32,
    identifier: &'s str,
    grid: Grid,
}

/// The tilesets of a `defs.tilesets` array by `uid`; `None` where one lacks a part of its grid
/// or two share a uid.
fn tilesets<'s>(doc: &Document<'s>, list: u32) -> Option<FxHashMap<i64, Tileset<'s>>> {
    let mut out = FxHashMap::default();
    for slot in doc.slots_of(list) {
        let node = slot.value;
        let number = |name: &str| doc.member(node, name).and_then(|n| doc.integer(n));
        let grid = Grid {
            columns: number("__cWid")?,
            rows: number("__cHei")?,
            cut: [number("tileGridSize")?, number("spacing").unwrap_or(0), number("padding").unwrap_or(0)],
        };
        let identifier = doc.member(node, "identifier").map_or("(unnamed)", |n| doc.node_text(n).trim_matches('"'));
        if out.insert(number("uid")?, Tileset { node, identifier, grid }).is_some() {
            return None;
        }
    }
    Some(out)
}

/// The tilesets of a whole project file.
fn project_tilesets<'s>(doc: &Document<'s>) -> Option<FxHashMap<i64, Tileset<'s>>> {
    let defs = doc.member(doc.root, "defs")?;
    tilesets(doc, doc.member(defs, "tilesets")?)
}

/// Each tileset's grid by uid.
fn grids(tilesets: &FxHashMap<i64, Tileset<'_>>) -> FxHashMap<i64, Grid> {
    tilesets.iter().map(|(&uid, t)| (uid, t.grid)).collect()
}

fn differs_from_base<T: PartialEq>(sides: &Sides<T>) -> bool {
    sides.ours != sides.base || sides.theirs != sides.base
}

/// The columns each tileset is read in, where a side gave it other columns than base: that
/// side's, ours' where both did.
fn target_columns(grids: &Sides<FxHashMap<i64, Grid>>) -> FxHashMap<i64, (Side, Grid)> {
    let mut out = FxHashMap::default();
    for (&uid, base) in &grids.base {
        let changed = [Side::Ours, Side::Theirs]
            .into_iter()
            .find_map(|side| grids.get(side).get(&uid).filter(|g| g.columns != base.columns && g.columns > 0).map(|g| (side, *g)));
        if let Some(target) = changed {
            out.insert(uid, target);
        }
    }
    out
}

/// The versions rewritten where a side gave a tileset other columns (`None` for a version
/// left as it is), and a note; `None` where no side did, or where it is not sure.
pub fn follow_resized(texts: Sides<&[u8]>) -> Option<(Sides<Option<Vec<u8>>>, String)> {
    // Cheap first: a side that resized a tileset writes its definitions otherwise than base,
    // and their grids, read from those definitions alone, say so.
    let written = texts.map(|_, text| tileset_lists_in(text).next());
    if !differs_from_base(&written) {
        return None;
    }
    let grids_of = |list: Option<&[u8]>| {
        let doc = parse(list?, Dialect::Json).ok()?;
        Some(grids(&tilesets(&doc, doc.root)?))
    };
    let listed = Sides::new(grids_of(written.base)?, grids_of(written.ours)?, grids_of(written.theirs)?);
    if target_columns(&listed).is_empty() {
        return None;
    }
    let docs = parse_versions(texts)?;
    let defs = Sides::new(project_tilesets(&docs.base)?, project_tilesets(&docs.ours)?, project_tilesets(&docs.theirs)?);
    let mut targets = target_columns(&defs.as_ref().map(|_, d| grids(d)));
    // A tileset is renumbered only where every version's ids of it can be.
    let mut edits: Sides<Vec<(usize, usize, String)>> = Sides::new(Vec::new(), Vec::new(), Vec::new());
    targets.retain(|uid, (target, to)| {
        let Some(target_def) = defs.get(*target).get(uid) else { return false };
        let mut planned = Vec::new();
        for side in SIDES {
            let doc = docs.get(side);
            let Some(own) = defs.get(side).get(uid) else { continue };
            if own.grid.columns == to.columns {
                continue;
            }
            if own.grid.cut != to.cut || own.grid.columns <= 0 {
                return false;
            }
            let Some(side_edits) = renumbering(doc, *uid, own, *to, (docs.get(*target), target_def)) else { return false };
            planned.push((side, side_edits));
        }
        for (side, side_edits) in planned {
            edits.get_mut(side).extend(side_edits);
        }
        true
    });
    if targets.is_empty() {
        return None;
    }
    let rewritten = docs.as_ref().map(|side, doc| {
        let side_edits = std::mem::take(edits.get_mut(side));
        (!side_edits.is_empty()).then(|| levelmerge_core::text::splice(doc.src, side_edits).into_bytes())
    });
    let mut resized: Vec<(i64, Side, Grid)> = targets.iter().map(|(&uid, &(side, grid))| (uid, side, grid)).collect();
    resized.sort_by_key(|r| r.0);
    let what: Vec<String> = resized
        .iter()
        .map(|&(uid, side, grid)| {
            let from = defs.base.get(&uid).map_or(0, |t| t.grid.columns);
            let name = defs.get(side).get(&uid).map_or("(unnamed)", |t| t.identifier);
            format!("{} gives tileset {name} {} columns instead of {from}", side.name(), grid.columns)
        })
        .collect();
    let read_anew: Vec<&str> = SIDES.into_iter().filter(|side| rewritten.get(*side).is_some()).map(Side::possessive).collect();
    let note = format!(
        "{} (its image resized): {} tile ids are renumbered to keep each tile's column and row",
        what.join("; "),
        read_anew.join(", ").replacen(", ", " and ", usize::from(read_anew.len() == 2))
    );
    Some((rewritten, note))
}

/// The edits writing `doc`'s ids of tileset `uid` (`own`) in the columns of `to`, and its
/// cached pixel data as the target version writes it; `None` where an id's column is not
/// among the new columns.
fn renumbering(
    doc: &Document<'_>,
    uid: i64,
    own: &Tileset<'_>,
    to: Grid,
    (target_doc, target_def): (&Document<'_>, &Tileset<'_>),
) -> Option<Vec<(usize, usize, String)>> {
    let from = own.grid.columns;
    let moved = |id: i64| {
        let (column, row) = (id % from, id / from);
        (id >= 0 && column < to.columns).then(|| column + row * to.columns)
    };
    let mut numbers = Vec::new();
    tileset_id_nodes(doc, own.node, &mut numbers);
    layer_rule_id_nodes(doc, uid, &mut numbers);
    painted_tile_id_nodes(doc, uid, &mut numbers);
    let mut edits = Vec::new();
    for node in numbers {
        let Some(id) = doc.integer(node) else { continue };
        let new = moved(id)?;
        if new != id {
            edits.push(number_edit(doc, node, new));
        }
    }
    if let (Some(cache), Some(target_cache)) =
        (doc.member(own.node, "cachedPixelData"), target_doc.member(target_def.node, "cachedPixelData"))
    {
        let n = &doc.nodes[cache as usize];
        let written = target_doc.node_text(target_cache);
        if doc.node_text(cache) != written {
            edits.push((n.start as usize, n.end as usize, written.to_owned()));
        }
    }
    Some(edits)
}

/// The numbers of `array` (items that are numbers), and of the arrays in it.
fn numbers_in(doc: &Document<'_>, array: u32, out: &mut Vec<u32>) {
    if doc.nodes[array as usize].kind != NodeKind::Array {
        return;
    }
    for slot in doc.slots_of(array) {
        match doc.nodes[slot.value as usize].kind {
            NodeKind::Number => out.push(slot.value),
            NodeKind::Array => numbers_in(doc, slot.value, out),
            _ => {}
        }
    }
}

/// The items of the array member `name` of `node`.
fn items<'d>(doc: &'d Document<'_>, node: u32, name: &str) -> impl Iterator<Item = u32> + 'd {
    let list = doc.member(node, name).filter(|&l| doc.nodes[l as usize].kind == NodeKind::Array);
    list.map_or(&[][..], |l| doc.slots_of(l)).iter().map(|s| s.value)
}

/// A tileset's own tile ids: its enum tags, custom data and saved selections.
fn tileset_id_nodes(doc: &Document<'_>, tileset: u32, out: &mut Vec<u32>) {
    for tag in items(doc, tileset, "enumTags") {
        if let Some(ids) = doc.member(tag, "tileIds") {
            numbers_in(doc, ids, out);
        }
    }
    out.extend(items(doc, tileset, "customData").filter_map(|data| doc.member(data, "tileId")));
    for selection in items(doc, tileset, "savedSelections") {
        if let Some(ids) = doc.member(selection, "ids") {
            numbers_in(doc, ids, out);
        }
    }
}

/// The tile ids the auto-layer rules of layer definitions drawing with tileset `uid` place.
fn layer_rule_id_nodes(doc: &Document<'_>, uid: i64, out: &mut Vec<u32>) {
    let Some(defs) = doc.member(doc.root, "defs") else { return };
    for layer in items(doc, defs, "layers") {
        let draws_with = |name: &str| doc.member(layer, name).and_then(|n| doc.integer(n));
        if draws_with("tilesetDefUid").or_else(|| draws_with("autoTilesetDefUid")) != Some(uid) {
            continue;
        }
        for group in items(doc, layer, "autoRuleGroups") {
            for rule in items(doc, group, "rules") {
                for name in ["tileRectsIds", "tileIds"] {
                    if let Some(ids) = doc.member(rule, name) {
                        numbers_in(doc, ids, out);
                    }
                }
            }
        }
    }
}

/// The level layers of a project file (embedded levels, in worlds too) or of a level file,
/// with their level.
fn each_layer_instance(doc: &Document<'_>, visit: &mut impl FnMut(u32, u32)) {
    let worlds = items(doc, doc.root, "worlds");
    let holders = std::iter::once(doc.root).chain(worlds);
    let levels = holders.flat_map(|holder| items(doc, holder, "levels"));
    for level in std::iter::once(doc.root).chain(levels) {
        for layer in items(doc, level, "layerInstances") {
            visit(level, layer);
        }
    }
}

/// Each painted tile of a file: its tileset's uid, its `src` as written and its `t`, with the
/// tile's node.
fn each_painted_tile<'s>(doc: &Document<'s>, visit: &mut impl FnMut(i64, &'s str, i64, u32)) {
    each_layer_instance(doc, &mut |_, layer| {
        let Some(uid) = doc.member(layer, "__tilesetDefUid").and_then(|n| doc.integer(n)) else { return };
        for name in ["gridTiles", "autoLayerTiles"] {
            for tile in items(doc, layer, name) {
                let (Some(src), Some(t)) = (doc.member(tile, "src"), doc.member(tile, "t").and_then(|t| doc.integer(t))) else { continue };
                visit(uid, doc.node_text(src), t, tile);
            }
        }
    });
}

/// The number each place of a tileset's image (`src`) is painted under in a file, and the
/// first tile painting a place already numbered otherwise.
fn numbering<'s>(doc: &Document<'s>) -> (FxHashMap<(i64, &'s str), i64>, Option<u32>) {
    let mut numbers = FxHashMap::default();
    let mut clash = None;
    each_painted_tile(doc, &mut |uid, src, t, tile| {
        if *numbers.entry((uid, src)).or_insert(t) != t && clash.is_none() {
            clash = Some(tile);
        }
    });
    (numbers, clash)
}

/// Whether a level file paints one place of a tileset under another number than base: its
/// side resized the tileset (in the project file, which a level file's merge does not see),
/// and a merge of it is read back ([`tile_problems`]: the other side's tiles would still be
/// numbered the old way).
fn level_numbering_differs(docs: Sides<&Document<'_>>) -> bool {
    if docs.base.member(docs.base.root, "layerInstances").is_none() {
        return false;
    }
    let (base, _) = numbering(docs.base);
    [docs.ours, docs.theirs].into_iter().any(|doc| {
        let mut differs = false;
        each_painted_tile(doc, &mut |uid, src, t, _| differs |= base.get(&(uid, src)).is_some_and(|&b| b != t));
        differs
    })
}

/// The `t` of each tile painted (by hand or by rules) with tileset `uid`.
fn painted_tile_id_nodes(doc: &Document<'_>, uid: i64, out: &mut Vec<u32>) {
    each_layer_instance(doc, &mut |_, layer| {
        if doc.member(layer, "__tilesetDefUid").and_then(|n| doc.integer(n)) != Some(uid) {
            return;
        }
        for name in ["gridTiles", "autoLayerTiles"] {
            out.extend(items(doc, layer, name).filter_map(|tile| doc.member(tile, "t")));
        }
    });
}

/// Tiles numbered otherwise than their place in the tileset's image: a painted tile whose `t`
/// is not the tile its `src` shows, one layer at a time; an id a tileset's tags, custom data
/// or rules name beyond its tiles.
pub fn tile_problems(doc: &Document<'_>) -> Vec<Problem> {
    let problem = |message: String, node: u32| Problem::Inconsistent {
        object: ObjectId::new(crate::lower::ROOT_ID),
        message,
        line: doc.line_of(doc.nodes[node as usize].start) as usize,
    };
    let mut problems = Vec::new();
    // A level file has no tilesets to read the numbers by, but one place is one number.
    if let (_, Some(tile)) = numbering(doc) {
        let src = doc.member(tile, "src").map_or("?", |n| doc.node_text(n));
        problems.push(problem(format!("tiles showing {src} (src) of one tileset are numbered differently"), tile));
    }
    let Some(tilesets) = project_tilesets(doc) else { return problems };
    let name_of = |node: u32, member: &str| doc.member(node, member).map_or("(unnamed)", |n| doc.node_text(n).trim_matches('"'));
    let mut by_uid: Vec<(&i64, &Tileset<'_>)> = tilesets.iter().collect();
    by_uid.sort_by_key(|(uid, _)| **uid);
    for (&uid, tileset) in by_uid {
        let Grid { columns, rows, .. } = tileset.grid;
        if columns <= 0 || rows <= 0 {
            continue;
        }
        let mut ids = Vec::new();
        tileset_id_nodes(doc, tileset.node, &mut ids);
        layer_rule_id_nodes(doc, uid, &mut ids);
        let beyond = ids.into_iter().find(|&n| doc.integer(n).is_some_and(|id| id < 0 || id >= columns * rows));
        if let Some(node) = beyond {
            let id = doc.node_text(node);
            problems.push(problem(format!("tileset {} names tile {id}, beyond its {} tiles", tileset.identifier, columns * rows), node));
        }
    }
    each_layer_instance(doc, &mut |level, layer| {
        let Some(tileset) = doc.member(layer, "__tilesetDefUid").and_then(|n| doc.integer(n)).and_then(|uid| tilesets.get(&uid)) else {
            return;
        };
        let Grid { columns, rows, cut: [size, spacing, padding] } = tileset.grid;
        if columns <= 0 || size <= 0 {
            return;
        }
        // The tile a `src` shows, `Err` where it lies outside the tiles.
        let shown = |src: u32| {
            let [x, y] = doc.slots_of(src) else { return None };
            let (x, y) = (doc.integer(x.value)?, doc.integer(y.value)?);
            let step = size + spacing;
            let (column, row) = ((x - padding).div_euclid(step), (y - padding).div_euclid(step));
            Some(if (0..columns).contains(&column) && (0..rows).contains(&row) { Ok(column + row * columns) } else { Err(()) })
        };
        for name in ["gridTiles", "autoLayerTiles"] {
            let wrong = items(doc, layer, name).find_map(|tile| {
                let t = doc.member(tile, "t")?;
                let src = doc.member(tile, "src")?;
                let shows = shown(src)?;
                (shows != Ok(doc.integer(t)?)).then_some((tile, t, src, shows))
            });
            if let Some((tile, t, src, shows)) = wrong {
                let px = doc.member(tile, "px").map_or("?", |n| doc.node_text(n));
                let what = match shows {
                    Ok(shows) => format!("is numbered {} but its src is tile {shows}", doc.node_text(t)),
                    Err(()) => format!("shows {} (src), outside the {columns} × {rows} tiles", doc.node_text(src)),
                };
                problems.push(problem(
                    format!(
                        "level {} layer {}: the tile at {px} {what} of tileset {}",
                        name_of(level, "identifier"),
                        name_of(layer, "__identifier"),
                        tileset.identifier
                    ),
                    tile,
                ));
                return;
            }
        }
    });
    problems
}

/// Whether the versions give some tileset other columns, or level files paint a place of a
/// tileset under other numbers: a merge of them is read back.
pub fn numbering_differs(docs: Sides<&Document<'_>>) -> bool {
    level_numbering_differs(docs) || columns_differ(docs)
}

fn columns_differ(docs: Sides<&Document<'_>>) -> bool {
    if !differs_from_base(&docs.map(|_, doc| tileset_lists_in(doc.src.as_bytes()).next())) {
        return false;
    }
    let columns = docs.map(|_, doc| {
        let mut columns: Vec<(i64, i64)> = project_tilesets(doc)?.into_iter().map(|(uid, t)| (uid, t.grid.columns)).collect();
        columns.sort_unstable();
        Some(columns)
    });
    differs_from_base(&columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project with one tileset of `columns` columns (16-pixel tiles), tagging `tags`, one
    /// rule placing `rule`, and a level painting `tiles` (`t` and `src` each).
    fn project(columns: i64, tags: &str, rule: i64, tiles: &[(i64, [i64; 2])]) -> String {
        let painted: Vec<String> = tiles
            .iter()
            .enumerate()
            .map(|(i, (t, [x, y]))| format!(r#"{{ "px": [{},0], "src": [{x},{y}], "f": 0, "t": {t}, "d": [{i}], "a": 1 }}"#, i * 16))
            .collect();
        format!(
            r#"{{
	"jsonVersion": "1.5.3",
	"nextUid": 10,
	"defs": {{
		"layers": [ {{ "identifier": "Ground", "uid": 2, "tilesetDefUid": 1, "autoRuleGroups": [ {{ "uid": 3, "rules": [ {{ "uid": 4, "tileRectsIds": [[{rule}]] }} ] }} ] }} ],
		"tilesets": [
			{{
				"__cWid": {columns},
				"__cHei": 4,
				"identifier": "Tiles",
				"uid": 1,
				"pxWid": {},
				"pxHei": 64,
				"tileGridSize": 16,
				"spacing": 0,
				"padding": 0,
				"enumTags": [ {{ "enumValueId": "SOLID", "tileIds": [{tags}] }} ],
				"customData": [],
				"cachedPixelData": {{ "opaqueTiles": "{}" }}
			}}
		]
	}},
	"levels": [ {{ "identifier": "Level_0", "iid": "a", "uid": 5, "layerInstances": [ {{ "__identifier": "Ground", "__tilesetDefUid": 1, "gridTiles": [{}], "autoLayerTiles": [] }} ] }} ]
}}
"#,
            columns * 16,
            "1".repeat((columns * 4) as usize),
            painted.join(", ")
        )
    }

    fn follow(base: &str, ours: &str, theirs: &str) -> Option<(Sides<Option<String>>, String)> {
        crate::rewritten_texts(follow_resized, base, ours, theirs)
    }

    #[test]
    fn the_other_side_ids_keep_their_column_and_row_in_the_resized_tileset() {
        // Theirs widened the image to 11 columns: LDtk renumbered its tag (10, the first tile
        // of the second row, is 11 now), its rule's tile and its painted tile. Ours tagged 12
        // and 20 and painted tile 21 ([16,32]), all in 10 columns.
        let base = project(10, "10", 3, &[(10, [0, 16])]);
        let ours = project(10, "10,12,20", 3, &[(10, [0, 16]), (21, [16, 32])]);
        let theirs = project(11, "11", 3, &[(11, [0, 16])]);
        let (texts, note) = follow(&base, &ours, &theirs).unwrap();
        // Each version in 11 columns, with theirs' cached pixel data.
        assert_eq!(
            texts.base.unwrap(),
            project(11, "11", 3, &[(11, [0, 16])]).replacen("\"pxWid\": 176", "\"pxWid\": 160", 1).replacen(
                "\"__cWid\": 11",
                "\"__cWid\": 10",
                1
            )
        );
        assert_eq!(
            texts.ours.unwrap(),
            project(11, "11,13,22", 3, &[(11, [0, 16]), (23, [16, 32])]).replacen("\"pxWid\": 176", "\"pxWid\": 160", 1).replacen(
                "\"__cWid\": 11",
                "\"__cWid\": 10",
                1
            )
        );
        assert!(texts.theirs.is_none());
        assert_eq!(note, "theirs gives tileset Tiles 11 columns instead of 10 (its image resized): base's and ours' tile ids are renumbered to keep each tile's column and row");
        // With the sides swapped, the same ids move.
        let (swapped, _) = follow(&base, &theirs, &ours).unwrap();
        assert!(swapped.theirs.unwrap().contains("\"tileIds\": [11,13,22]") && swapped.ours.is_none());
    }

    #[test]
    fn nothing_moves_where_no_side_resized_or_an_id_has_no_place() {
        let base = project(10, "10", 3, &[]);
        assert!(follow(&base, &project(10, "12", 3, &[]), &base).is_none());
        // Narrowed to 4 columns: ours' tag on column 5 (tile 15) has no place in them.
        let narrowed = project(4, "4", 3, &[]);
        assert!(follow(&base, &project(10, "10,15", 3, &[]), &narrowed).is_none());
        // Another tile size: not the same grid.
        let smaller = project(11, "11", 3, &[]).replace("\"tileGridSize\": 16", "\"tileGridSize\": 8");
        assert!(follow(&base, &project(10, "12", 3, &[]), &smaller).is_none());
    }

    #[test]
    fn a_painted_tile_numbered_otherwise_than_its_src_and_an_id_beyond_the_tiles_are_problems() {
        let sound = project(10, "10", 3, &[(10, [0, 16])]);
        assert!(tile_problems(&parse(sound.as_bytes(), Dialect::Json).unwrap()).is_empty());
        let misnumbered = project(11, "11", 3, &[(10, [0, 16])]);
        let problems = tile_problems(&parse(misnumbered.as_bytes(), Dialect::Json).unwrap());
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0]
                .to_string()
                .contains("level Level_0 layer Ground: the tile at [0,0] is numbered 10 but its src is tile 11 of tileset Tiles"),
            "{}",
            problems[0]
        );
        let outside = project(10, "10", 3, &[(4, [64, 0])]).replace("\"__cWid\": 10", "\"__cWid\": 3");
        let problems = tile_problems(&parse(outside.as_bytes(), Dialect::Json).unwrap());
        assert!(
            problems[0].to_string().contains("the tile at [0,0] shows [64,0] (src), outside the 3 × 4 tiles of tileset Tiles"),
            "{}",
            problems[0]
        );
        let level_file = r#"{ "identifier": "L", "layerInstances": [ { "__identifier": "Ground", "__tilesetDefUid": 1, "gridTiles": [
            { "px": [0,0], "src": [0,16], "t": 10 }, { "px": [16,0], "src": [0,16], "t": 11 } ] } ] }"#;
        let problems = tile_problems(&parse(level_file.as_bytes(), Dialect::Json).unwrap());
        assert!(problems[0].to_string().contains("tiles showing [0,16] (src) of one tileset are numbered differently"), "{}", problems[0]);
        let beyond = project(10, "40", 3, &[]);
        let problems = tile_problems(&parse(beyond.as_bytes(), Dialect::Json).unwrap());
        assert_eq!(problems.len(), 1);
        assert!(problems[0].to_string().contains("tileset Tiles names tile 40, beyond its 40 tiles"), "{}", problems[0]);
    }
}
