//! Writing a resolved level back as a Godot text file. A section taken whole is copied byte
//! for byte; in a changed section every property line is copied from its source, and a
//! changed tag is written the way Godot writes one (`[kind key=value …]`). Sections follow the
//! merged order; the blank lines between two sections are copied when the two were neighbours
//! in a source, else written as Godot does (ext_resources and connections on consecutive
//! lines, a blank line elsewhere). `load_steps` is recomputed.

use levelmerge_core::codec::merged_capacity;
use levelmerge_core::resolve::{RValue, Resolved};
use levelmerge_core::{ObjectId, Side, Sides, Value};
use rustc_hash::FxHashMap;

use crate::lower::{section_ids, Node, TAG};
use crate::moves::{name_of, parent_of};
use crate::parse::{unquote, GodotFile};
use crate::refs::{resource_refs, Table};

pub struct Renderer<'r, 'd> {
    pub docs: Sides<&'r GodotFile<'d>>,
    pub level: &'r Resolved<'r>,
}

/// Every section's identity in each source, and where each identity is.
struct Known<'k> {
    ids: Sides<&'k [Option<ObjectId>]>,
    index: &'k Sides<FxHashMap<&'k str, usize>>,
}

/// Kinds Godot writes on consecutive lines.
const CONSECUTIVE: [&str; 3] = ["ext_resource", "connection", "editable"];

/// Kinds counted by `load_steps`.
const LOADED: [&str; 2] = ["ext_resource", "sub_resource"];

/// One written section and where it came from.
struct Written<'d> {
    kind: &'d str,
    text: String,
    side: Side,
    section: usize,
    /// Where an assembled tag's `load_steps=` awaits its count.
    steps_at: Option<usize>,
}

impl Written<'_> {
    fn placeholder() -> Self {
        Written { kind: "", text: String::new(), side: Side::Base, section: 0, steps_at: None }
    }
}

/// Whether `first`, written before `second` although it needs it (it uses it, or is its
/// child), was so in an input: some input holds both, `first` before `second` and written as
/// `first` is. That input was broken so before the merge; keeping its order gives it back
/// byte for byte when nothing else changed.
fn kept_from_an_input(first: &Written<'_>, second: &Written<'_>, known: &Known<'_>, docs: Sides<&GodotFile<'_>>) -> bool {
    let id = |w: &Written<'_>| known.ids.get(w.side)[w.section].as_ref().map(ObjectId::as_str);
    let (Some(first_id), Some(second_id)) = (id(first), id(second)) else { return false };
    [Side::Base, Side::Ours, Side::Theirs].iter().any(|&side| {
        let (at, file) = (known.index.get(side), docs.get(side));
        matches!((at.get(first_id), at.get(second_id)), (Some(&f), Some(&s)) if s > f && file.text(file.sections[f].span) == first.text)
    })
}

/// Where Godot writes a section of a kind: the file's tag, external resources, sub-resources,
/// the resource or the nodes, connections, editable instances. `None` for a kind it does not
/// write.
fn kind_rank(kind: &str) -> Option<u8> {
    Some(match kind {
        "gd_scene" | "gd_resource" => 0,
        "ext_resource" => 1,
        "sub_resource" => 2,
        "resource" | "node" => 3,
        "connection" => 4,
        "editable" => 5,
        _ => return None,
    })
}

/// Whether sections of these kinds follow Godot's order. The merged order of files that all do
/// is put in it (a connection one side added after the last node, where the other side moved a
/// node to the end, goes after that node: Godot reads a connection to a node not yet defined
/// as broken); the order of files that do not is left as merged.
fn kinds_in_order<'k>(kinds: impl Iterator<Item = &'k str>) -> bool {
    let mut last = 0;
    for kind in kinds {
        match kind_rank(kind) {
            Some(rank) if rank >= last => last = rank,
            _ => return false,
        }
    }
    true
}

/// Sub-resources in an order where each comes after those it uses (Godot loads them in file
/// order and fails on a use before the definition); otherwise the merged order is kept, and so
/// is a use before the definition an input had ([`kept_from_an_input`]: `kept`).
fn dependencies_first(written: &mut [Written<'_>], known: &Known<'_>, kept: &dyn Fn(&Written<'_>, &Written<'_>) -> bool) {
    let slots: Vec<usize> = (0..written.len()).filter(|&i| written[i].kind == "sub_resource").collect();
    let id_of = |w: &Written<'_>| {
        known.ids.get(w.side)[w.section].as_ref().map(ObjectId::as_str).and_then(|id| id.strip_prefix(Table::Sub.prefix()))
    };
    let position: FxHashMap<&str, usize> = slots.iter().enumerate().filter_map(|(k, &i)| Some((id_of(&written[i])?, k))).collect();
    let uses: Vec<Vec<usize>> = slots
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            resource_refs(&written[i].text)
                .into_iter()
                .filter(|r| r.table == Table::Sub)
                .filter_map(|r| position.get(r.id).copied())
                .filter(|&d| d < k || !kept(&written[slots[k]], &written[slots[d]]))
                .collect()
        })
        .collect();
    if uses.iter().enumerate().all(|(k, u)| u.iter().all(|&d| d < k)) {
        return;
    }
    let mut order = Vec::with_capacity(slots.len());
    let mut state = vec![0u8; slots.len()]; // 0 new, 1 in progress (a cycle stops there), 2 placed
    fn visit(k: usize, uses: &[Vec<usize>], state: &mut [u8], order: &mut Vec<usize>) {
        if state[k] != 0 {
            return;
        }
        state[k] = 1;
        for &d in &uses[k] {
            visit(d, uses, state, order);
        }
        state[k] = 2;
        order.push(k);
    }
    for k in 0..slots.len() {
        visit(k, &uses, &mut state, &mut order);
    }
    reorder_slots(written, &slots, order);
}

/// The sections in `slots` rearranged among those places: the `k`th place gets the section
/// that was at `slots[order[k]]`.
fn reorder_slots(written: &mut [Written<'_>], slots: &[usize], order: Vec<usize>) {
    let mut taken: Vec<Option<Written<'_>>> =
        slots.iter().map(|&i| Some(std::mem::replace(&mut written[i], Written::placeholder()))).collect();
    for (slot, k) in slots.iter().zip(order) {
        written[*slot] = taken[k].take().expect("each section placed once");
    }
}

/// A written node's parent path (`None` for the root) and name, read off its tag.
fn written_node(text: &str) -> Option<(Option<&str>, &str)> {
    let attrs = crate::parse::tag_attrs(text);
    let attr = |key: &str| attrs.iter().find(|(k, _)| *k == key).map(|(_, v)| unquote(v));
    Some((attr("parent"), attr("name")?))
}

/// Nodes in an order where each comes after its parent (Godot refuses a node whose parent is
/// not yet defined): a node written before its parent waits until the parent is written, and
/// everything else keeps the merged order. The merged order can put a parent late when one side
/// deleted it and a policy kept it, with its subtree, from the other. A node an input had
/// before its parent keeps its place (`kept`, as for sub-resources).
fn parents_first(written: &mut [Written<'_>], kept: &dyn Fn(&Written<'_>, &Written<'_>) -> bool) {
    let slots: Vec<usize> = (0..written.len()).filter(|&i| written[i].kind == "node").collect();
    let nodes: Vec<Option<(Option<&str>, &str)>> = slots.iter().map(|&i| written_node(&written[i].text)).collect();
    // Nodes by (parent path, name): the parent of a node under `a/b` is the node ("a", "b").
    let mut position: FxHashMap<(&str, &str), usize> = FxHashMap::default();
    for (k, node) in nodes.iter().enumerate() {
        if let Some((Some(parent), name)) = node {
            position.entry((parent, name)).or_insert(k);
        }
    }
    let parent_of = |k: usize| match nodes[k] {
        Some((Some(parent), _)) if parent != "." => {
            position.get(&(parent_of(parent), name_of(parent))).copied().filter(|&p| p < k || !kept(&written[slots[k]], &written[slots[p]]))
        }
        _ => None,
    };
    if (0..slots.len()).all(|k| parent_of(k).is_none_or(|p| p < k)) {
        return;
    }
    let mut order = Vec::with_capacity(slots.len());
    let mut placed = vec![false; slots.len()];
    let mut waiting: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
    for k in 0..slots.len() {
        match parent_of(k) {
            Some(p) if !placed[p] => waiting.entry(p).or_default().push(k),
            _ => {
                let mut ready = vec![k];
                while let Some(k) = ready.pop() {
                    placed[k] = true;
                    order.push(k);
                    // Its waiting children, in their merged order.
                    ready.extend(waiting.remove(&k).unwrap_or_default().into_iter().rev());
                }
            }
        }
    }
    // A parent never placed (a cycle cannot be written anyway): its children keep their order.
    let mut rest: Vec<usize> = waiting.into_values().flatten().collect();
    rest.sort_unstable();
    order.extend(rest);
    reorder_slots(written, &slots, order);
}

impl<'r, 'd> Renderer<'r, 'd> {
    fn file(&self, side: Side) -> &'r GodotFile<'d> {
        self.docs.get(side)
    }

    fn eol(&self) -> &'static str {
        if self.docs.ours.crlf {
            "\r\n"
        } else {
            "\n"
        }
    }

    fn source(v: &Value<'_>) -> (Side, u32) {
        (v.origin.side, v.origin.node)
    }

    pub fn render(&self) -> Vec<u8> {
        let mut written: Vec<Written<'d>> = Vec::with_capacity(self.level.objects.len());
        for obj in self.level.objects.values() {
            let template = match &obj.props {
                RValue::Exact(v) => *v,
                RValue::Map { template, .. } | RValue::List { template, .. } | RValue::Children { template, .. } => *template,
            };
            let (side, node) = Self::source(template);
            let file = self.file(side);
            let Node::Section(section) = Node::decode(node, file) else { continue };
            let s = &file.sections[section];
            let (text, steps_at) = match &obj.props {
                RValue::Map { entries, .. } => self.section(file, section, entries),
                _ => (file.text(s.span).to_owned(), None),
            };
            written.push(Written { kind: file.kind(s), text, side, section, steps_at });
        }
        let ids = self.docs.map(|_, f| section_ids(f));
        let index: Sides<FxHashMap<&str, usize>> =
            ids.map(|_, v| v.iter().enumerate().filter_map(|(i, id)| Some((id.as_ref()?.as_str(), i))).collect());
        let known = Known { ids, index: &index };
        let kept = |first: &Written<'_>, second: &Written<'_>| kept_from_an_input(first, second, &known, self.docs);
        if [self.docs.base, self.docs.ours, self.docs.theirs].iter().all(|f| kinds_in_order(f.sections.iter().map(|s| f.kind(s)))) {
            written.sort_by_key(|w| kind_rank(w.kind));
        }
        dependencies_first(&mut written, &known, &kept);
        parents_first(&mut written, &kept);
        self.fix_load_steps(&mut written);
        let mut out = String::with_capacity(merged_capacity(self.docs.map(|_, d| d.src.len())));
        out.push_str(self.merged_text(|f| f.text(f.preamble)));
        for (i, w) in written.iter().enumerate() {
            out.push_str(&w.text);
            let next = written.get(i + 1);
            match (next, next.and_then(|n| self.gap_between(&known, w, n))) {
                // Neighbours in a source keep the lines between them (a changed side's first).
                (Some(_), Some(gap)) => out.push_str(gap),
                (Some(n), None) => out.push_str(fresh_gap(w.text.ends_with('\n'), w.kind, n.kind, self.docs.ours.crlf)),
                // The end of the file: as the sides end it, merged like a value.
                (None, _) => {
                    let gap = self.merged_text(|f| f.sections.last().map_or("", |s| f.text(s.gap)));
                    if !w.text.ends_with('\n') && !gap.is_empty() {
                        out.push_str(self.eol());
                    }
                    out.push_str(gap);
                }
            }
        }
        out.into_bytes()
    }

    /// A piece of text each file has (its preamble, its end): ours' where it differs from
    /// base's, else theirs'.
    fn merged_text(&self, piece: impl Fn(&GodotFile<'d>) -> &'d str) -> &'d str {
        let (b, o, t) = (piece(self.docs.base), piece(self.docs.ours), piece(self.docs.theirs));
        if o != b {
            o
        } else {
            t
        }
    }

    /// The lines between `w` and `n` where the sources have them as neighbours, merged like a
    /// value: a side's own layout where it differs from base's.
    fn gap_between(&self, known: &Known<'_>, w: &Written<'_>, n: &Written<'_>) -> Option<&'d str> {
        let wid = known.ids.get(w.side)[w.section].as_ref()?;
        let nid = known.ids.get(n.side)[n.section].as_ref()?;
        let gap = |side: Side| -> Option<&'d str> {
            let f = self.file(side);
            let i = *known.index.get(side).get(wid.as_str())?;
            (known.ids.get(side).get(i + 1)?.as_ref() == Some(nid)).then(|| f.text(f.sections[i].gap))
        };
        let (b, o, t) = (gap(Side::Base), gap(Side::Ours), gap(Side::Theirs));
        match (o, t) {
            (Some(o), _) if b != Some(o) => Some(o),
            (_, Some(t)) => Some(t),
            (o, None) => o.or(b),
        }
    }

    /// A changed section: its tag, then each property line from its own source; and where an
    /// assembled tag awaits its `load_steps` count.
    fn section(&self, file: &GodotFile<'d>, section: usize, entries: &[(&str, RValue<'_>)]) -> (String, Option<usize>) {
        let eol = self.eol();
        let s = &file.sections[section];
        let mut out = String::new();
        let mut steps_at = None;
        for (key, rv) in entries {
            match rv {
                RValue::Exact(v) if *key == TAG => {
                    let f = self.file(v.origin.side);
                    match Node::decode(v.origin.node, f) {
                        Node::Tag(i) => out.push_str(f.text(f.sections[i].header)),
                        _ => out.push_str(v.raw),
                    }
                    out.push_str(eol);
                }
                RValue::Map { template, entries: attrs } if *key == TAG => {
                    steps_at = self.tag(file.kind(s), template, attrs, &mut out);
                    out.push_str(eol);
                }
                RValue::Exact(v) => {
                    let f = self.file(v.origin.side);
                    match Node::decode(v.origin.node, f) {
                        Node::Prop(i) => {
                            let prop = &f.props[i];
                            let own_key = f.key_aliases.get(&(i as u32)).map_or(f.text(prop.key), String::as_str);
                            if own_key == *key {
                                out.push_str(f.text(prop.line));
                            } else {
                                // A property renamed on the other side, its value from this one:
                                // the line under the new name.
                                let line = f.text(prop.line);
                                let (start, end) = ((prop.key.0 - prop.line.0) as usize, (prop.key.1 - prop.line.0) as usize);
                                out.push_str(&line[..start]);
                                out.push_str(levelmerge_core::model::written_key(key));
                                out.push_str(&line[end..]);
                            }
                        }
                        _ => {
                            out.push_str(levelmerge_core::model::written_key(key));
                            out.push_str(" = ");
                            out.push_str(v.raw);
                        }
                    }
                    if !out.ends_with('\n') {
                        out.push_str(eol);
                    }
                }
                // A TileMap's cells ([`crate::tiles`]), each taken whole from a side.
                RValue::Map { template, entries: cells } => {
                    let cells: Vec<(&str, &str)> = cells
                        .iter()
                        .filter_map(|(place, cell)| match cell {
                            RValue::Exact(v) => Some((*place, v.raw)),
                            _ => None,
                        })
                        .collect();
                    out.push_str(levelmerge_core::model::written_key(key));
                    out.push_str(" = ");
                    out.push_str(&crate::tiles::written(key, template.raw, &cells));
                    out.push_str(eol);
                }
                // Other property values are scalars; nothing else is assembled.
                _ => {}
            }
        }
        // The section's own end: without a line end when its source ended without one.
        if !file.text(s.span).ends_with('\n') && out.ends_with('\n') {
            out.truncate(out.len() - eol.len());
        }
        (out, steps_at)
    }

    /// `[kind key=value …]`, with `load_steps=` where the source tag had it; returns where its
    /// count goes (written by [`Self::fix_load_steps`]).
    fn tag(&self, kind: &str, template: &Value<'_>, attrs: &[(&str, RValue<'_>)], out: &mut String) -> Option<usize> {
        let tf = self.file(template.origin.side);
        let had_steps = match Node::decode(template.origin.node, tf) {
            Node::Tag(i) => tf.attr(&tf.sections[i], "load_steps").is_some(),
            _ => false,
        };
        out.push('[');
        out.push_str(kind);
        let mut steps_at = None;
        for (k, rv) in attrs {
            if had_steps && steps_at.is_none() && *k == "format" {
                out.push_str(" load_steps=");
                steps_at = Some(out.len());
            }
            out.push(' ');
            out.push_str(k);
            out.push('=');
            if let RValue::Exact(v) = rv {
                out.push_str(v.raw);
            }
        }
        if had_steps && steps_at.is_none() {
            out.push_str(" load_steps=");
            steps_at = Some(out.len());
        }
        out.push(']');
        steps_at
    }

    /// `load_steps` counts the resources the file loads plus one: rewrite it when the merged
    /// file loads a different number than the tag's source did.
    fn fix_load_steps(&self, written: &mut [Written<'d>]) {
        let loaded = written.iter().filter(|w| LOADED.contains(&w.kind)).count();
        let Some(header) = written.iter_mut().find(|w| w.kind == "gd_scene" || w.kind == "gd_resource") else { return };
        let source = self.file(header.side);
        let count = (loaded + 1).to_string();
        if let Some(at) = header.steps_at {
            header.text.insert_str(at, &count);
            return;
        }
        let source_loaded = source.sections.iter().filter(|s| LOADED.contains(&source.kind(s))).count();
        if let Some(digits) = load_steps_digits(header.text.as_bytes()).filter(|_| loaded != source_loaded) {
            header.text.replace_range(digits, &count);
        }
    }
}

/// The lines Godot writes between two sections that were not neighbours in a source: an end
/// to the first one's last line when it lacks one, then a blank line unless both are of a kind
/// written on consecutive lines.
fn fresh_gap(ends_line: bool, kind: &str, next_kind: &str, crlf: bool) -> &'static str {
    let blank = !(kind == next_kind && CONSECUTIVE.contains(&kind));
    match (ends_line as u8 + !blank as u8, crlf) {
        (2, _) => "",
        (1, false) => "\n",
        (1, true) => "\r\n",
        (_, false) => "\n\n",
        (_, true) => "\r\n\r\n",
    }
}

/// Where a part's one section ends and the blank lines after it begin; `None` when the part
/// is not one section.
pub fn section_end(part: &[u8]) -> Option<usize> {
    let file = crate::parse::parse(part).ok()?;
    match file.sections.as_slice() {
        [s] if file.preamble == (0, 0) => Some(s.span.1 as usize),
        _ => None,
    }
}

/// Whether a merged section uses no sub-resource its base version did not: sections are
/// written after the sub-resources they use (`dependencies_first`), so one that uses a new
/// one may have to move.
pub fn uses_no_new_sub_resource(merged: &[u8], base: &[u8]) -> bool {
    let (Ok(merged), Ok(base)) = (std::str::from_utf8(merged), std::str::from_utf8(base)) else { return false };
    let used = |text| resource_refs(text).into_iter().filter(|r| r.table == Table::Sub).map(|r| r.id).collect::<Vec<_>>();
    let before = used(base);
    used(merged).iter().all(|id| before.contains(id))
}

/// How the last section ours inserted at one place meets the first theirs inserted there, as
/// the whole merge writes them ([`levelmerge_core::Codec::join_inserted_parts`]): the section
/// without the lines after it (they were the gap before what followed it in ours), then the
/// gap written between sections that were not neighbours.
pub fn join_sections(last: &[u8], next: &[u8]) -> Option<(usize, &'static [u8])> {
    let (last_file, next_file) = (crate::parse::parse(last).ok()?, crate::parse::parse(next).ok()?);
    let ([l], [n]) = (last_file.sections.as_slice(), next_file.sections.as_slice()) else { return None };
    let kept = l.span.1 as usize;
    let gap = fresh_gap(last[..kept].ends_with(b"\n"), last_file.kind(l), next_file.kind(n), last_file.crlf);
    Some((kept, gap.as_bytes()))
}

/// Where the count of a header's `load_steps=` is written, when it has one.
fn load_steps_digits(header: &[u8]) -> Option<std::ops::Range<usize>> {
    let tag = &header[..memchr::memchr(b']', header).unwrap_or(header.len())];
    let digits = memchr::memmem::find(tag, b" load_steps=")? + " load_steps=".len();
    let end = digits + tag[digits..].iter().take_while(|b| b.is_ascii_digit()).count();
    (end > digits).then_some(digits..end)
}

/// The resources a file loads: the lines that open their sections (a file that splices has
/// its sections where its lines open them), the kind ending where the parser ends it (its
/// attributes may start on the next line).
fn loaded_sections(text: &[u8]) -> usize {
    let opens = |k: &&str| {
        let at = format!("\n[{k}");
        let kind_ends = |i: &usize| text.get(i + at.len()).is_some_and(|&c| !crate::parse::is_name(c));
        memchr::memmem::find_iter(text, at.as_bytes()).filter(kind_ends).count()
    };
    LOADED.iter().map(opens).sum()
}

/// Where a file's header tag writes its `load_steps=` count, when it has one: derived data,
/// recounted after a splice (whether the attribute is written is not: Godot 4.6 dropped it).
pub fn load_steps_count(part: &[u8]) -> Option<std::ops::Range<usize>> {
    // Every part is asked (parts are named by it): only the tag is read, never the part.
    let at = tag_start(part);
    let tag = &part[at..];
    if !(tag.starts_with(b"[gd_scene ") || tag.starts_with(b"[gd_resource ")) {
        return None;
    }
    let digits = load_steps_digits(tag)?;
    Some(at + digits.start..at + digits.end)
}

/// Where a text's first tag starts: after any comments and blank lines before it.
fn tag_start(text: &[u8]) -> usize {
    if text.starts_with(b"[") {
        0
    } else {
        memchr::memmem::find(text, b"\n[").map_or(text.len(), |i| i + 1)
    }
}

/// A file's header, from its first tag to the next line opening a section.
fn header_of(text: &[u8]) -> &[u8] {
    let rest = &text[tag_start(text)..];
    &rest[..memchr::memmem::find(rest, b"\n[").map_or(rest.len(), |i| i + 1)]
}

/// A spliced file's `load_steps`: its header was copied from one of `versions`; when the file
/// loads another number of resources than that version did, the count is rewritten, as
/// [`Renderer`] does for a header it copies.
pub fn recount_load_steps(mut text: Vec<u8>, versions: Sides<&[u8]>) -> Vec<u8> {
    let Some(digits) = load_steps_count(&text) else { return text };
    let header = header_of(&text);
    let Some(source) = [versions.ours, versions.theirs, versions.base].into_iter().find(|v| header_of(v) == header) else { return text };
    let loaded = loaded_sections(&text);
    if loaded != loaded_sections(source) {
        text.splice(digits, (loaded + 1).to_string().into_bytes());
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_whose_tag_breaks_after_its_kind_is_counted() {
        let text = b"[gd_scene load_steps=3]\n\n[ext_resource id=\"1\"]\n\n[sub_resource\n id=\"2\"]\n\n[sub_resource]\n\n[sub_resources id=\"3\"]\n";
        assert_eq!(loaded_sections(text), 3);
    }

    fn node(tag: &str) -> Written<'static> {
        Written { kind: "node", text: format!("{tag}\n"), ..Written::placeholder() }
    }

    #[test]
    fn a_node_written_before_its_parent_waits_for_it() {
        let mut written = vec![
            node("[node name=\"Root\" type=\"Node\"]"),
            node("[node name=\"C\" type=\"Node\" parent=\"P\"]"),
            node("[node name=\"X\" type=\"Node\" parent=\".\"]"),
            node("[node name=\"GC\" type=\"Node\" parent=\"P/C\"]"),
            Written {
                kind: "connection",
                text: "[connection signal=\"s\" from=\"X\" to=\".\" method=\"m\"]\n".into(),
                ..Written::placeholder()
            },
            node("[node name=\"P\" type=\"Node\" parent=\".\"]"),
            node("[node name=\"D\" type=\"Node\" parent=\"P\"]"),
        ];
        parents_first(&mut written, &|_, _| false);
        // The first quoted word: a node's name, the connection's signal (it keeps its place).
        let names: Vec<&str> = written.iter().map(|w| w.text.split('"').nth(1).unwrap_or("")).collect();
        assert_eq!(names, ["Root", "X", "P", "C", "s", "GC", "D"]);
        // In order already: nothing moves.
        let before: Vec<String> = written.iter().map(|w| w.text.clone()).collect();
        parents_first(&mut written, &|_, _| false);
        assert_eq!(written.iter().map(|w| w.text.clone()).collect::<Vec<_>>(), before);
    }
}
