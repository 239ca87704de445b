//! Nodes a side renamed or moved, made to agree across the three versions before the merge.
//!
//! A node is identified by its path, so a side that renames a node or gives it another parent
//! would otherwise read as deleting its whole subtree and adding a new one: the other side's
//! edits inside it would be a conflict, or lost with the old copy.
//!
//! A side moved base node `P` to `Q` (a path it has and base lacks) when:
//! * both carry the same `unique_id` (Godot 4.6+), wherever `P` was; or else, for the top of a
//!   subtree that left its place,
//! * `Q` keeps `P`'s name or its parent, the node type (or instanced scene) is the same, at
//!   least half of their properties and children's names are shared (a renamed node must share
//!   some), and neither has another such match: an ambiguous case is left as it was.
//!
//! Base and the other side (which must still have `P` where base has it, nothing at `Q`, and
//! `Q`'s parent, or where that parent is new the nearest of its ancestors base holds) are then rewritten as though the move had been made there too: the `name` and `parent` of
//! the moved subtree's nodes, and the `from`/`to` of connections and the `path` of `[editable]`
//! below it; a moved subtree left before its new parent there goes after the parent's subtree.
//! The merge then sees one node, edited by both. A move both sides made is made in
//! base. Moves of the two sides that touch one another's subtrees (a move into a subtree the
//! other side moved away, even by a move that cannot be made), and a move of a node the
//! other side deleted or moved elsewhere, are left alone: the node is then deleted where it was
//! and added where it went, never lost. Deterministic.

use levelmerge_core::{Renumbered, Side, Sides};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::lower::section_ids;
use crate::parse::{parse, GodotFile, Section};
use crate::refs::Table;

/// A node's properties and its children's names (as `("", name)`), sorted.
type Content<'a> = Vec<(&'a str, &'a str)>;

/// How many (deleted, added) pairs of nodes the search for moves may compare, at most.
const COMPARED_PAIRS: usize = 200_000;

/// The parent path of a node path (`.` for the root's children).
pub(crate) fn parent_of(path: &str) -> &str {
    path.rfind('/').map_or(".", |i| &path[..i])
}

/// The name of the node at a node path.
pub(crate) fn name_of(path: &str) -> &str {
    path.rfind('/').map_or(path, |i| &path[i + 1..])
}

/// One version's nodes, by path.
struct Nodes<'f, 's> {
    file: &'f GodotFile<'s>,
    by_path: FxHashMap<&'f str, &'f Section>,
    child_names: FxHashMap<&'f str, Vec<&'f str>>,
}

impl<'f, 's> Nodes<'f, 's> {
    fn of(file: &'f GodotFile<'s>) -> Self {
        let mut by_path = FxHashMap::default();
        let mut child_names: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
        for (s, id) in file.sections.iter().zip(section_ids(file)) {
            let Some(path) = id.as_ref().and_then(|id| id.as_str().strip_prefix("node:")) else { continue };
            if file.kind(s) != "node" {
                continue;
            }
            by_path.insert(path, s);
            if path != "." {
                child_names.entry(parent_of(path)).or_default().push(name_of(path));
            }
        }
        Nodes { file, by_path, child_names }
    }

    /// The resources the file defines, by table and id.
    fn resources(&self) -> FxHashSet<(Table, &'s str)> {
        let file = self.file;
        let table = |kind: &str| match kind {
            "ext_resource" => Some(Table::Ext),
            "sub_resource" => Some(Table::Sub),
            _ => None,
        };
        file.sections.iter().filter_map(|s| Some((table(file.kind(s))?, file.attr_unquoted(s, "id")?))).collect()
    }

    /// What the node is: its type or its instanced scene; `None` for a node that only
    /// overrides properties of an instanced scene's node (it cannot move on its own).
    fn what(&self, s: &Section) -> Option<&'s str> {
        self.file.attr(s, "type").or_else(|| self.file.attr(s, "instance"))
    }

    fn unique_id(&self, s: &Section) -> Option<&'s str> {
        self.file.attr_unquoted(s, "unique_id")
    }

    /// Its properties and its children's names, for telling how alike two nodes are.
    fn content(&self, path: &str, s: &Section) -> FxHashSet<(&'f str, &'f str)> {
        let file: &'f GodotFile<'s> = self.file;
        let props = file.props_of(s).iter().map(|p| (file.text(p.key), file.text(p.value)));
        let children = self.child_names.get(path).into_iter().flatten().map(|&n| ("", n));
        props.chain(children).collect()
    }
}

/// The moves `side` made from base, as (base path, side path) pairs.
fn moves_of<'a>(base: &Nodes<'a, '_>, side: &Nodes<'a, '_>) -> Vec<(&'a str, &'a str)> {
    let gone: FxHashSet<&str> =
        base.by_path.keys().copied().filter(|p| *p != "." && !p.contains('#') && !side.by_path.contains_key(p)).collect();
    let added: Vec<&str> = side.by_path.keys().copied().filter(|p| !p.contains('#') && !base.by_path.contains_key(p)).collect();
    // Only the top of a moved subtree is matched; what lies below it moves with it.
    let mut gone_sorted: Vec<&str> = gone.iter().copied().collect();
    gone_sorted.sort_unstable();
    // A `unique_id` names a node wherever it went, even out of a subtree its side deleted or
    // moved elsewhere.
    let by_unique_id: FxHashMap<&str, &str> = added.iter().filter_map(|&q| Some((side.unique_id(side.by_path[q])?, q))).collect();
    let mut found: Vec<(&str, &str)> =
        gone_sorted.iter().filter_map(|&p| Some((p, *base.unique_id(base.by_path[p]).and_then(|u| by_unique_id.get(u))?))).collect();
    let matched: FxHashSet<&str> = found.iter().map(|&(p, _)| p).collect();
    let open: Vec<&str> = gone_sorted.iter().copied().filter(|p| !matched.contains(p) && !gone.contains(parent_of(p))).collect();
    // Nodes equal in content (a renamed node, a moved one left as it was), one match either way.
    let sorted = |mut content: Vec<(&'a str, &'a str)>| {
        content.sort_unstable();
        content
    };
    let mut by_content: FxHashMap<(&str, Content<'_>), Vec<&str>> = FxHashMap::default();
    for &q in &added {
        let qs = side.by_path[q];
        if let Some(what) = side.what(qs) {
            by_content.entry((what, sorted(side.content(q, qs).into_iter().collect()))).or_default().push(q);
        }
    }
    let mut equal: Vec<(&str, &str)> = Vec::new();
    for &p in &open {
        let bs = base.by_path[p];
        let Some(what) = base.what(bs) else { continue };
        let key = (what, sorted(base.content(p, bs).into_iter().collect()));
        if let Some(qs) = by_content.get(&key).filter(|_| !key.1.is_empty()) {
            equal.extend(qs.iter().filter(|q| name_of(q) == name_of(p) || parent_of(q) == parent_of(p)).map(|&q| (p, q)));
        }
    }
    found.extend(one_to_one(&equal));
    let open: Vec<&str> = {
        let matched: FxHashSet<&str> = found.iter().map(|&(p, _)| p).collect();
        open.into_iter().filter(|p| !matched.contains(p)).collect()
    };
    let claimed: FxHashSet<&str> = found.iter().map(|&(_, q)| q).collect();
    let came_along = came_along_with(&found, base);
    // Added nodes by what they are and their name, and by what they are and their parent: a
    // moved node keeps one of the two.
    let mut by_name: FxHashMap<(&str, &str), Vec<&str>> = FxHashMap::default();
    let mut by_parent: FxHashMap<(&str, &str), Vec<&str>> = FxHashMap::default();
    for &q in added.iter().filter(|q| !claimed.contains(*q) && !came_along(q)) {
        if let Some(what) = side.what(side.by_path[q]) {
            by_name.entry((what, name_of(q))).or_default().push(q);
            by_parent.entry((what, parent_of(q))).or_default().push(q);
        }
    }
    let mut side_contents: FxHashMap<&str, FxHashSet<(&str, &str)>> = FxHashMap::default();
    let mut budget = COMPARED_PAIRS;
    let mut candidates: Vec<(&str, &str)> = Vec::new();
    'roots: for &p in &open {
        let bs = base.by_path[p];
        let Some(what) = base.what(bs) else { continue };
        let base_content = base.content(p, bs);
        let same_name = by_name.get(&(what, name_of(p))).into_iter().flatten();
        let same_parent = by_parent.get(&(what, parent_of(p))).into_iter().flatten().filter(|q| name_of(q) != name_of(p));
        for &q in same_name.chain(same_parent) {
            if budget == 0 {
                break 'roots;
            }
            budget -= 1;
            let renamed = parent_of(q) == parent_of(p);
            let side_content = side_contents.entry(q).or_insert_with(|| side.content(q, side.by_path[q]));
            if alike(&base_content, side_content, renamed) {
                candidates.push((p, q));
            }
        }
    }
    found.extend(one_to_one(&candidates));
    // Two tops matched at once: one may have carried the other's match along (a deleted node
    // taken for the copy of its namesake inside a moved group).
    let carried = came_along_with(&found, base);
    found.retain(|&(_, q)| !carried(q));
    let out_of_deleted = moved_out_before_a_deletion(base, side, &gone_sorted, &gone, &added, &found);
    found.extend(out_of_deleted);
    found.sort_unstable();
    found
}

/// Whether a side node came along with one of the `moves`: it lies below a move's destination,
/// and base holds a node at the same place below the move's source (a child of a node moved as
/// it was, whose name another gone node shares).
fn came_along_with<'m>(moves: &[(&'m str, &'m str)], base: &'m Nodes<'_, '_>) -> impl Fn(&str) -> bool + 'm {
    let sources: FxHashMap<&str, &str> = moves.iter().map(|&(p, q)| (q, p)).collect();
    move |q: &str| {
        self_and_ancestors(q)
            .skip(1)
            .any(|a| sources.get(a).is_some_and(|p| base.by_path.contains_key(format!("{p}{}", &q[a.len()..]).as_str())))
    }
}

/// Whether a base node and a side node are alike enough to be one node moved: at least half of
/// their properties and children's names are shared; two with none are alike unless the side
/// node is a rename in place (which must share something).
fn alike(base: &FxHashSet<(&str, &str)>, side: &FxHashSet<(&str, &str)>, renamed: bool) -> bool {
    let shared = base.iter().filter(|c| side.contains(c)).count();
    let total = base.len().max(side.len());
    if total == 0 {
        !renamed
    } else {
        2 * shared >= total
    }
}

/// Nodes a side moved out of a subtree before deleting it (an artist pulls a node out of a group,
/// then deletes the group): the subtree's top is gone, not moved, so [`moves_of`] does not look
/// below it. Such a node is matched, one to one, to an added node of its name and kind, alike in
/// content, under a node base has, outside every subtree already found moved. Only the top of
/// what moved out is a move; what lies below it moves with it.
fn moved_out_before_a_deletion<'a>(
    base: &Nodes<'a, '_>,
    side: &Nodes<'a, '_>,
    gone_sorted: &[&'a str],
    gone: &FxHashSet<&'a str>,
    added: &[&'a str],
    found: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let under = |path: &str, tops: &FxHashSet<&str>| self_and_ancestors(path).any(|a| tops.contains(a));
    let (moved_from, moved_to): (FxHashSet<&str>, FxHashSet<&str>) = found.iter().copied().unzip();
    let orphans: Vec<&str> = gone_sorted.iter().copied().filter(|p| gone.contains(parent_of(p)) && !under(p, &moved_from)).collect();
    if orphans.is_empty() {
        return Vec::new();
    }
    let mut by_name: FxHashMap<(&str, &str), Vec<&str>> = FxHashMap::default();
    for &q in added.iter().filter(|q| base.by_path.contains_key(parent_of(q)) && !under(q, &moved_to)) {
        if let Some(what) = side.what(side.by_path[q]) {
            by_name.entry((what, name_of(q))).or_default().push(q);
        }
    }
    let mut pairs = Vec::new();
    for p in orphans {
        let bs = base.by_path[p];
        let Some(targets) = base.what(bs).and_then(|what| by_name.get(&(what, name_of(p)))) else { continue };
        let base_content = base.content(p, bs);
        pairs.extend(targets.iter().filter(|&&q| alike(&base_content, &side.content(q, side.by_path[q]), false)).map(|&q| (p, q)));
    }
    let matched = one_to_one(&pairs);
    let tops: FxHashSet<&str> = matched.iter().map(|&(p, _)| p).collect();
    matched.into_iter().filter(|&(p, _)| !self_and_ancestors(p).skip(1).any(|a| tops.contains(a))).collect()
}

/// The pairs whose base node and side node are in no other pair.
fn one_to_one<'a>(pairs: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut count: FxHashMap<(bool, &str), usize> = FxHashMap::default();
    for &(p, q) in pairs {
        *count.entry((false, p)).or_default() += 1;
        *count.entry((true, q)).or_default() += 1;
    }
    pairs.iter().copied().filter(|&(p, q)| count[&(false, p)] == 1 && count[&(true, q)] == 1).collect()
}

/// `path` after the moves, when one applies: the path itself or its nearest moved ancestor was
/// moved (a node moved by its `unique_id` may lie below another moved one).
fn moved(path: &str, moves: &FxHashMap<&str, &str>) -> Option<String> {
    self_and_ancestors(path).find_map(|a| moves.get(a).map(|q| format!("{q}{}", &path[a.len()..])))
}

/// The scene path a `NodePath` written on the node at `owner` leads to (`.` for the root), or
/// `None` when it is absolute or climbs out of the scene.
fn resolve(owner: &str, node_path: &str) -> Option<String> {
    if node_path.starts_with('/') {
        return None;
    }
    let mut at: Vec<&str> = if owner == "." { Vec::new() } else { owner.split('/').collect() };
    for step in node_path.split('/') {
        match step {
            "" | "." => {}
            ".." => {
                at.pop()?;
            }
            name => at.push(name),
        }
    }
    Some(if at.is_empty() { ".".to_owned() } else { at.join("/") })
}

/// `target` as a `NodePath` written on the node at `owner`: up with `..`, then down by name.
fn relative(owner: &str, target: &str) -> String {
    fn steps(p: &str) -> Vec<&str> {
        if p == "." {
            Vec::new()
        } else {
            p.split('/').collect()
        }
    }
    let (from, to) = (steps(owner), steps(target));
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut path = vec![".."; from.len() - common];
    path.extend(&to[common..]);
    if path.is_empty() {
        ".".to_owned()
    } else {
        path.join("/")
    }
}

/// The `NodePath("…")`s of a value on the node at `owner` (which `moves` put at `new_owner`,
/// if anywhere) that lead to a moved node or from a moved one, written anew: (start, end,
/// text) within `value`. Paths in sub-resources (animation tracks) are relative to a node the
/// file does not name, and are left alone.
fn node_paths_moved<'v>(
    value: &'v str,
    owner: &'v str,
    new_owner: Option<&'v str>,
    moves: &'v FxHashMap<&str, &str>,
) -> impl Iterator<Item = (usize, usize, String)> + 'v {
    const OPEN: &str = "NodePath(\"";
    value.match_indices(OPEN).filter_map(move |(at, _)| {
        let start = at + OPEN.len();
        let written = &value[start..start + value[start..].find('"')?];
        let (node, property) = written.split_once(':').map_or((written, None), |(n, p)| (n, Some(p)));
        if node.is_empty() {
            return None;
        }
        let target = resolve(owner, node)?;
        let new_target = moved(&target, moves);
        if new_target.is_none() && new_owner.is_none() {
            return None;
        }
        let mut text = relative(new_owner.unwrap_or(owner), new_target.as_deref().unwrap_or(&target));
        if let Some(property) = property {
            text.push(':');
            text.push_str(property);
        }
        (text != written).then(|| (start, start + written.len(), text))
    })
}

/// `file` as though `moves` had been made in it, or `None` when none touches it.
fn rewrite(file: &GodotFile<'_>, moves: &[(&str, &str)]) -> Option<Vec<u8>> {
    if moves.is_empty() {
        return None;
    }
    let moves: FxHashMap<&str, &str> = moves.iter().copied().collect();
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut path_edits: Vec<(usize, usize, String)> = Vec::new();
    let mut set = |s: &Section, key: &str, new: &str| {
        if let Some(a) = file.attrs_of(s).iter().find(|a| file.text(a.key) == key) {
            let old = file.text(a.value);
            let text = if old.starts_with('"') { format!("\"{new}\"") } else { new.to_owned() };
            if text != old {
                edits.push((a.value.0 as usize, a.value.1 as usize, text));
            }
        }
    };
    for (s, id) in file.sections.iter().zip(section_ids(file)) {
        match file.kind(s) {
            "node" => {
                let Some(path) = id.as_ref().and_then(|id| id.as_str().strip_prefix("node:")) else { continue };
                let new = moved(path, &moves);
                if let Some(new) = &new {
                    if moves.contains_key(path) {
                        set(s, "name", name_of(new));
                    }
                    set(s, "parent", parent_of(new));
                }
                for p in file.props_of(s) {
                    path_edits.extend(
                        node_paths_moved(file.text(p.value), path, new.as_deref(), &moves)
                            .map(|(a, b, text)| (p.value.0 as usize + a, p.value.0 as usize + b, text)),
                    );
                }
            }
            "connection" | "editable" => {
                for key in ["from", "to", "path"] {
                    if let Some(new) = file.attr_unquoted(s, key).and_then(|v| moved(v, &moves)) {
                        set(s, key, &new);
                    }
                }
            }
            _ => {}
        }
    }
    edits.extend(path_edits);
    if edits.is_empty() {
        return None;
    }
    let mut text = levelmerge_core::text::splice(file.src, edits);
    // Each relocation puts one subtree after its parent for good: at most one per move.
    for _ in 0..moves.len() {
        match parent_first(&text, moves.values()) {
            Some(relocated) => text = relocated,
            None => break,
        }
    }
    Some(text.into_bytes())
}

/// `text` with the first moved node (of those now at `destinations`) that comes before its
/// new parent put, with its subtree, after that parent's subtree; `None` when every one
/// comes after. Godot reads a node's parent before it, and a move made in a version that
/// placed the node elsewhere among its siblings (ours put it first; theirs moved it under the
/// sibling after it) can leave it before its parent there.
fn parent_first<'d>(text: &str, destinations: impl Iterator<Item = &'d &'d str>) -> Option<String> {
    let file = parse(text.as_bytes()).ok()?;
    let paths: Vec<Option<&str>> = file
        .sections
        .iter()
        .zip(section_ids(&file))
        .map(|(s, id)| id.as_ref().filter(|_| file.kind(s) == "node").and_then(|id| id.as_str().strip_prefix("node:")))
        .collect();
    let at = |path: &str| paths.iter().position(|p| *p == Some(path));
    // The last section of the subtree whose top is at `top`, its sections following it.
    let subtree_end = |top: usize| {
        let under = |p: &str| paths[top].is_some_and(|t| p.len() > t.len() && p.starts_with(t) && p.as_bytes()[t.len()] == b'/');
        top + paths[top + 1..].iter().take_while(|p| p.is_some_and(under)).count()
    };
    for destination in destinations {
        let (Some(node), Some(parent)) = (at(destination), at(parent_of(destination))) else { continue };
        if parent < node {
            continue;
        }
        let (last, after) = (&file.sections[subtree_end(node)], &file.sections[subtree_end(parent)]);
        let (start, end, insert) = (file.sections[node].span.0 as usize, last.gap.1 as usize, after.gap.1 as usize);
        let mut out = String::with_capacity(text.len() + 2);
        out.push_str(&text[..start]);
        out.push_str(&text[end..insert]);
        if after.gap.0 == after.gap.1 && insert == text.len() {
            // The parent's subtree ends the file: the block's gap goes before it, and the file
            // ends as it did.
            let line_end = if file.crlf { "\r\n" } else { "\n" };
            if !out.ends_with('\n') {
                out.push_str(line_end);
            }
            out.push_str(&text[last.gap.0 as usize..end]);
            let block = &text[start..last.gap.0 as usize];
            out.push_str(if text.ends_with('\n') { block } else { block.trim_end_matches(['\r', '\n']) });
        } else {
            out.push_str(&text[start..end]);
        }
        out.push_str(&text[insert..]);
        return Some(out);
    }
    None
}

/// A node path and each of its ancestors' paths (`a/b/c`, `a/b`, `a`).
fn self_and_ancestors(path: &str) -> impl Iterator<Item = &str> {
    std::iter::once(path).chain(path.rmatch_indices('/').map(move |(i, _)| &path[..i]))
}

/// Where one side's moves reach: the nodes they move, every ancestor of those, and where they
/// put them (and every ancestor of that); and every node the side moved away, its move taken
/// or not.
struct Reach<'a> {
    moved: FxHashSet<&'a str>,
    above_moved: FxHashSet<&'a str>,
    destinations: FxHashSet<&'a str>,
    above_destinations: FxHashSet<&'a str>,
    left: FxHashSet<&'a str>,
}

impl<'a> Reach<'a> {
    fn of(moves: &[(&'a str, &'a str)], all_moves: &[(&'a str, &'a str)]) -> Self {
        Reach {
            moved: moves.iter().map(|m| m.0).collect(),
            above_moved: moves.iter().flat_map(|m| self_and_ancestors(m.0)).collect(),
            destinations: moves.iter().map(|m| m.1).collect(),
            above_destinations: moves.iter().flat_map(|m| self_and_ancestors(m.1)).collect(),
            left: all_moves.iter().map(|m| m.0).collect(),
        }
    }

    /// Whether the other side's move of `p` to `q` reaches into these moves' subtrees: `p`
    /// lies at or below a node moved here or above one; `q` lies below a node moved here,
    /// even by a move the other side cannot take (made alone, it would carry its node into a
    /// subtree this side took away: crossing moves); a node moved here is put below `p`; or
    /// both put a node at one path.
    fn tangles(&self, (p, q): (&str, &str)) -> bool {
        self_and_ancestors(p).any(|a| self.moved.contains(a))
            || self.above_moved.contains(p)
            || self_and_ancestors(q).any(|a| self.left.contains(a))
            || self.above_destinations.contains(p)
            || self.destinations.contains(q)
    }
}

/// The moves of a side that `other` can take: it still has the node where base has it,
/// nothing where the move puts it, and the parent it goes under, or, where that parent is new,
/// the nearest of its ancestors base holds (a move under a node `other` deleted or moved away,
/// or under a new node this side put there, made in `other`, would hang the node under
/// nothing). A parent this side moved counts as where it came from only while that move is
/// taken too: a node moved under one whose own move `other` cannot take would hang under
/// nothing there. Nor is a move taken under a node this side added that uses a resource
/// `other` deleted: the merge leaves that node to the conflict on the resource, and the view
/// without it would lose the moved node while keeping what names it. Nor one onto the path
/// where another node of `other` goes once the moves are made there.
fn takeable<'a>(
    moves: Vec<(&'a str, &'a str)>,
    base: &Nodes<'a, '_>,
    side: &Nodes<'a, '_>,
    other: &Nodes<'a, '_>,
) -> Vec<(&'a str, &'a str)> {
    let mut taken: Vec<(&str, &str)> =
        moves.into_iter().filter(|(p, q)| other.by_path.contains_key(p) && !other.by_path.contains_key(q)).collect();
    if taken.is_empty() {
        return taken;
    }
    let others_resources = other.resources();
    let deleted_by_other: FxHashSet<(Table, &str)> = base.resources().into_iter().filter(|r| !others_resources.contains(r)).collect();
    let uses_what_other_deleted = |path: &str| {
        !deleted_by_other.is_empty()
            && side.by_path.get(path).is_some_and(|s| {
                crate::refs::resource_refs(side.file.text(s.span)).iter().any(|r| deleted_by_other.contains(&(r.table, r.id)))
            })
    };
    loop {
        let sources: FxHashMap<&str, &str> = taken.iter().map(|&(p, q)| (q, p)).collect();
        let limit = taken.len();
        let parent_there = |q: &str| {
            let parent = parent_of(q);
            parent == "."
                || other.by_path.contains_key(parent)
                || self_and_ancestors(&path_in_base(parent, &sources, limit))
                    .find(|a| base.by_path.contains_key(a))
                    .is_none_or(|a| other.by_path.contains_key(a))
        };
        let under_new_node_using_what_other_deleted = |q: &str| {
            self_and_ancestors(q)
                .skip(1)
                .any(|a| !base.by_path.contains_key(path_in_base(a, &sources, limit).as_str()) && uses_what_other_deleted(a))
        };
        // Where `other`'s nodes go once these moves are made there: a move onto the path where
        // another node goes (one of `other`'s under a node renamed here) would put two there.
        let made: FxHashMap<&str, &str> = taken.iter().copied().collect();
        let mut carried: FxHashMap<String, Vec<&str>> = FxHashMap::default();
        for &x in other.by_path.keys() {
            if let Some(to) = moved(x, &made) {
                carried.entry(to).or_default().push(x);
            }
        }
        let lands_on_another = |p: &str, q: &str| carried.get(q).is_some_and(|xs| xs.iter().any(|&x| x != p));
        let still: Vec<(&str, &str)> = taken
            .iter()
            .copied()
            .filter(|&(p, q)| parent_there(q) && !under_new_node_using_what_other_deleted(q) && !lands_on_another(p, q))
            .collect();
        if still.len() == taken.len() {
            return still;
        }
        taken = still;
    }
}

/// Where a node at `path` of a side was in base, its ancestors' moves (`sources`: where each
/// node the side moved came from, by where it went) undone, the deepest first: a node under
/// one the side renamed stands under the old name there. At most `limit` moves are undone (two
/// nodes that swapped names would undo each other for ever).
fn path_in_base(path: &str, sources: &FxHashMap<&str, &str>, limit: usize) -> String {
    let mut path = path.to_owned();
    for _ in 0..limit {
        let Some(moved) = self_and_ancestors(&path).find(|a| sources.contains_key(a)) else { break };
        path = format!("{}{}", sources[moved], &path[moved.len()..]);
    }
    path
}

/// The lines of a text that open a node section (the first one's start aside), in order.
fn node_tags(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    memchr::memmem::find_iter(text, b"\n[node ").map(|at| {
        let line = &text[at + 1..];
        &line[..memchr::memchr(b'\n', line).unwrap_or(line.len())]
    })
}

/// Whether every node tag of base (`base_tags`, [`node_tags`]) is in `side` as it was, so that
/// every base node's path is still there. Only tags whole on their first line are compared (a
/// tag spread over lines may name its parent further down).
fn keeps_node_tags(base_tags: &[&[u8]], side: &[u8]) -> bool {
    // One walk tells whether side holds base's tags as they are, or in order with tags of
    // nodes added among them (most merges): neither needs a set.
    let mut side_tags = node_tags(side);
    let mut added = false;
    let in_order = base_tags.iter().all(|tag| {
        side_tags.any(|t| {
            let same = t == *tag;
            added |= !same;
            same
        })
    });
    if in_order && !added && side_tags.next().is_none() {
        return true;
    }
    if !base_tags.iter().all(|tag| tag.trim_ascii_end().ends_with(b"]")) {
        return false;
    }
    if in_order {
        return true;
    }
    let kept: FxHashSet<&[u8]> = node_tags(side).collect();
    base_tags.iter().all(|tag| kept.contains(tag))
}

/// Base and each side rewritten with the other side's moves (and base with the moves both
/// made); `None` when there is none to make.
pub fn align(texts: Sides<&[u8]>) -> Option<Renumbered> {
    if texts.base == texts.ours || texts.base == texts.theirs || texts.ours == texts.theirs {
        return None;
    }
    // A move takes a node's tag out of base (the root's, first or alone on its line, cannot
    // move); most merges take none out, even when they add nodes.
    let base_tags: Vec<&[u8]> = node_tags(texts.base).collect();
    if keeps_node_tags(&base_tags, texts.ours) && keeps_node_tags(&base_tags, texts.theirs) {
        return None;
    }
    let files = Sides::new(parse(texts.base).ok()?, parse(texts.ours).ok()?, parse(texts.theirs).ok()?);
    let nodes = Sides::new(Nodes::of(&files.base), Nodes::of(&files.ours), Nodes::of(&files.theirs));
    let (ours_moves, theirs_moves) = (moves_of(&nodes.base, &nodes.ours), moves_of(&nodes.base, &nodes.theirs));
    // A move both sides made is made in base too.
    let common: Vec<(&str, &str)> = ours_moves.iter().filter(|m| theirs_moves.contains(m)).copied().collect();
    let (ours_own, theirs_own): (Vec<_>, Vec<_>) = (
        ours_moves.iter().filter(|m| !common.contains(m)).copied().collect(),
        theirs_moves.iter().filter(|m| !common.contains(m)).copied().collect(),
    );
    let (mut ours, mut theirs) =
        (takeable(ours_moves, &nodes.base, &nodes.ours, &nodes.theirs), takeable(theirs_moves, &nodes.base, &nodes.theirs, &nodes.ours));
    // Moves of the two sides that reach into one another's subtrees are left alone.
    let (ours_reach, theirs_reach) = (Reach::of(&ours, &ours_own), Reach::of(&theirs, &theirs_own));
    ours.retain(|&m| !theirs_reach.tangles(m));
    theirs.retain(|&n| !ours_reach.tangles(n));
    if ours.is_empty() && theirs.is_empty() && common.is_empty() {
        return None;
    }
    let all: Vec<(&str, &str)> = ours.iter().chain(&theirs).chain(&common).copied().collect();
    let mut notes = Vec::new();
    for (moves, who) in [(&ours, Side::Ours.to_string()), (&theirs, Side::Theirs.to_string()), (&common, "both sides".to_owned())] {
        let described: Vec<String> = moves.iter().map(|(p, q)| format!("\"{p}\" to \"{q}\"")).collect();
        match moves.as_slice() {
            [] => {}
            [(p, q)] => {
                let what = if parent_of(p) == parent_of(q) { "renamed" } else { "moved" };
                notes.push(format!("{who} {what} node {}; edits there follow it", described[0]));
            }
            _ => notes.push(format!(
                "{who} renamed or moved {} nodes ({}); edits there follow them",
                moves.len(),
                levelmerge_core::text::first_of(&described, 3)
            )),
        }
    }
    Some(Renumbered {
        base: rewrite(&files.base, &all),
        ours: rewrite(&files.ours, &theirs),
        theirs: rewrite(&files.theirs, &ours),
        notes,
        restore: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &[u8] = b"[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"A\" type=\"Node\" parent=\".\"]\n\n[node name=\"B\" type=\"Node\" parent=\".\"]\n";

    fn kept(base: &[u8], side: &[u8]) -> bool {
        let base_tags: Vec<&[u8]> = node_tags(base).collect();
        keeps_node_tags(&base_tags, side)
    }

    #[test]
    fn base_node_tags_are_kept_as_they_are_in_order_among_added_ones_or_reordered() {
        let text = |s: &str| s.replace('\'', "\"").into_bytes();
        assert!(kept(BASE, BASE));
        let added = [BASE, &text("\n[node name='C' type='Node' parent='A']\n")[..]].concat();
        assert!(kept(BASE, &added), "a node added after base's");
        let between = text("[gd_scene format=3]\n\n[node name='R' type='Node']\n\n[node name='A' type='Node' parent='.']\n\n[node name='C' type='Node' parent='.']\n\n[node name='B' type='Node' parent='.']\n");
        assert!(kept(BASE, &between), "a node added between base's");
        let reordered = text("[gd_scene format=3]\n\n[node name='R' type='Node']\n\n[node name='B' type='Node' parent='.']\n\n[node name='A' type='Node' parent='.']\n");
        assert!(kept(BASE, &reordered), "base's nodes in another order");
        let renamed = text("[gd_scene format=3]\n\n[node name='R' type='Node']\n\n[node name='A2' type='Node' parent='.']\n\n[node name='B' type='Node' parent='.']\n");
        assert!(!kept(BASE, &renamed), "a node renamed");
        assert!(!kept(&renamed, BASE), "a node renamed, the other way");
    }

    #[test]
    fn a_node_moved_under_a_later_sibling_is_put_after_that_siblings_subtree() {
        let text = |s: &str| s.replace('\'', "\"");
        // A first, moved under B, which ends the file: after B's child, the file still
        // ending without a line end, the blank line between sections kept.
        let moved = text("[gd_scene format=3]\n\n[node name='R' type='Node']\n\n[node name='A' type='Node' parent='B']\n\n[node name='A2' type='Node' parent='B/A']\n\n[node name='B' type='Node' parent='.']\n\n[node name='C' type='Node' parent='B']");
        let expected = text("[gd_scene format=3]\n\n[node name='R' type='Node']\n\n[node name='B' type='Node' parent='.']\n\n[node name='C' type='Node' parent='B']\n\n[node name='A' type='Node' parent='B']\n\n[node name='A2' type='Node' parent='B/A']");
        assert_eq!(parent_first(&moved, ["B/A"].iter()).as_deref(), Some(expected.as_str()));
        assert_eq!(parent_first(&expected, ["B/A"].iter()), None, "already after its parent");
        // Moved under a sibling followed by another section: put before that section.
        let middle = format!("{moved}\n\n{}", text("[node name='D' type='Node' parent='.']\n"));
        let relocated = parent_first(&middle, ["B/A"].iter()).unwrap();
        assert_eq!(relocated, format!("{expected}\n\n{}", text("[node name='D' type='Node' parent='.']\n")));
    }

    #[test]
    fn a_tag_spread_over_lines_is_kept_only_where_every_tag_is_as_it_was() {
        let base =
            b"[gd_scene format=3]\n\n[node name=\"R\" type=\"Node\"]\n\n[node name=\"A\" type=\"Node\" parent=\".\" groups=[\n\"g\"]]\n";
        assert!(kept(base, base));
        let added = [&base[..], b"\n[node name=\"C\" type=\"Node\" parent=\".\"]\n"].concat();
        assert!(!kept(base, &added), "its parent may have changed on a later line");
    }
}
