//! Writing a resolved level back as Unity YAML. A document taken whole is copied byte for byte;
//! in a changed document, every entry taken whole is copied from its source (key, colon and
//! value), and only assembled parts are laid out anew, in Unity's style: two-space indents,
//! sequences at their key's indent, flow maps on one line.

use levelmerge_core::codec::merged_capacity;
use levelmerge_core::model::written_key;
use levelmerge_core::model::ValueKind;
use levelmerge_core::resolve::{RValue, Resolved};
use levelmerge_core::{Side, Sides, Value};
use rustc_hash::FxHashMap;

use crate::parse::{UnityFile, YKind, NONE};

pub struct Renderer<'r, 'd> {
    pub docs: Sides<&'r UnityFile<'d>>,
    pub level: &'r Resolved<'r>,
}

fn column(src: &str, pos: usize) -> usize {
    pos - src[..pos].rfind('\n').map_or(0, |p| p + 1)
}

impl<'r, 'd> Renderer<'r, 'd> {
    fn file(&self, side: Side) -> &'r UnityFile<'d> {
        self.docs.get(side)
    }

    fn eol(&self) -> &'static str {
        if self.docs.ours.crlf {
            "\r\n"
        } else {
            "\n"
        }
    }

    fn kind_of(&self, v: &Value<'_>) -> Option<YKind> {
        let f = self.file(v.origin.side);
        f.nodes.get(v.origin.node as usize).map(|n| n.kind)
    }

    pub fn render(&self) -> Vec<u8> {
        let index: Sides<FxHashMap<i64, usize>> = Sides::new(
            self.docs.base.docs.iter().enumerate().map(|(i, d)| (d.file_id, i)).collect(),
            self.docs.ours.docs.iter().enumerate().map(|(i, d)| (d.file_id, i)).collect(),
            self.docs.theirs.docs.iter().enumerate().map(|(i, d)| (d.file_id, i)).collect(),
        );
        let (b, o, t) = (self.docs.base, self.docs.ours, self.docs.theirs);
        let preamble = if o.text(o.preamble) == b.text(b.preamble) { t.text(t.preamble) } else { o.text(o.preamble) };
        let mut out = String::with_capacity(merged_capacity(self.docs.map(|_, d| d.src.len())));
        out.push_str(preamble);
        let count = self.level.objects.len();
        for (n, obj) in self.level.objects.values().enumerate() {
            let file_id: i64 = obj.id.as_str().parse().unwrap_or(0);
            let source = match &obj.props {
                RValue::Exact(v) => v.origin.side,
                RValue::Map { template, .. } | RValue::List { template, .. } | RValue::Children { template, .. } => template.origin.side,
            };
            let file = self.file(source);
            let Some(doc) = index.get(source).get(&file_id).map(|&i| &file.docs[i]) else { continue };
            let text = file.text(doc.span);
            match &obj.props {
                RValue::Exact(_) => out.push_str(text),
                other => {
                    let header_len = text.find('\n').map_or(text.len(), |p| p + 1);
                    out.push_str(&text[..header_len]);
                    if let RValue::Map { template, entries } = other {
                        self.block_map(entries, template, 0, None, &mut out);
                    }
                }
            }
            if n + 1 < count && !out.ends_with('\n') {
                out.push_str(self.eol());
            }
        }
        out.into_bytes()
    }

    /// A block mapping at `indent`; the first entry may follow a sequence's `- ` (`first_inline`).
    fn block_map(&self, entries: &[(&str, RValue<'_>)], template: &Value<'_>, indent: usize, first_inline: Option<()>, out: &mut String) {
        for (i, (key, rv)) in entries.iter().enumerate() {
            if !(i == 0 && first_inline.is_some()) {
                out.extend(std::iter::repeat_n(' ', indent));
            }
            self.entry(key, rv, template, indent, out);
        }
    }

    /// The key as written, from the template map or the value's own source.
    fn key_text(&self, key: &str, rv: &RValue<'_>, template: &Value<'_>) -> String {
        let tf = self.file(template.origin.side);
        if let Some(e) = tf
            .nodes
            .get(template.origin.node as usize)
            .and_then(|_| tf.entries_of(template.origin.node).iter().find(|e| tf.text(e.key) == key))
        {
            return tf.text(e.key).to_owned();
        }
        let v = Self::value_of(rv);
        let vf = self.file(v.origin.side);
        match vf.entry_of.get(v.origin.node as usize) {
            Some(&e) if e != NONE && lowered_key(vf, e) == key => vf.text(vf.entries[e as usize].key).to_owned(),
            _ => written_key(key).to_owned(),
        }
    }

    fn value_of<'x>(rv: &'x RValue<'x>) -> &'x Value<'x> {
        match rv {
            RValue::Exact(v) => v,
            RValue::Map { template, .. } | RValue::List { template, .. } | RValue::Children { template, .. } => template,
        }
    }

    fn entry(&self, key: &str, rv: &RValue<'_>, map_template: &Value<'_>, indent: usize, out: &mut String) {
        let eol = self.eol();
        match rv {
            RValue::Exact(v) => {
                // Copy the entry from its own source: key, colon, spacing and value.
                let vf = self.file(v.origin.side);
                let e = vf.entry_of.get(v.origin.node as usize).copied().unwrap_or(NONE);
                if e != NONE {
                    let entry = &vf.entries[e as usize];
                    let value_end = vf.nodes[v.origin.node as usize].span.1;
                    if lowered_key(vf, e) == key {
                        out.push_str(vf.text((entry.key.0, value_end)));
                    } else {
                        // A field renamed on the other side, its value from this one.
                        out.push_str(written_key(key));
                        out.push_str(vf.text((entry.key.1, value_end)));
                    }
                } else {
                    out.push_str(written_key(key));
                    out.push_str(": ");
                    out.push_str(v.raw);
                }
                out.push_str(eol);
            }
            RValue::Map { template, entries } => {
                out.push_str(&self.key_text(key, rv, map_template));
                match self.kind_of(template) {
                    // Unity writes a container it keeps as a map (a tilemap's cells) `{}` when
                    // empty, and as block items otherwise.
                    _ if entries.is_empty() && crate::identity::written_as_map(key) && self.held_as_map(template) => {
                        out.push_str(": {}");
                        out.push_str(eol);
                    }
                    Some(YKind::FlowMap) if crate::identity::is_keyed_list(key) && !entries.is_empty() => {
                        let items: Vec<&RValue<'_>> = entries.iter().map(|(_, v)| v).collect();
                        self.seq_after_key(&items, template, indent, out);
                    }
                    Some(YKind::FlowMap) => {
                        out.push_str(": ");
                        self.flow(rv, out);
                        out.push_str(eol);
                    }
                    Some(YKind::Seq | YKind::FlowSeq) => {
                        let items: Vec<&RValue<'_>> = entries.iter().map(|(_, v)| v).collect();
                        self.seq_after_key(&items, template, indent, out);
                    }
                    _ if entries.is_empty() => {
                        out.push_str(": {}");
                        out.push_str(eol);
                    }
                    _ => {
                        out.push(':');
                        out.push_str(eol);
                        let tf = self.file(template.origin.side);
                        let nested = tf.nodes.get(template.origin.node as usize).map_or(indent + 2, |n| column(tf.src, n.span.0 as usize));
                        self.block_map(entries, template, nested, None, out);
                    }
                }
            }
            RValue::List { template, items } => {
                out.push_str(&self.key_text(key, rv, map_template));
                let items: Vec<&RValue<'_>> = items.iter().collect();
                self.seq_after_key(&items, template, indent, out);
            }
            RValue::Children { .. } => {}
        }
    }

    /// Whether a container's template is one Unity keeps as a map: `{}`, or items of `first`
    /// and `second`.
    fn held_as_map(&self, template: &Value<'_>) -> bool {
        match &template.kind {
            ValueKind::Map(entries) => {
                entries.is_empty() || entries.iter().all(|(_, item)| item.get("first").is_some() && item.get("second").is_some())
            }
            _ => false,
        }
    }

    /// A sequence as the value of a key at `indent`: `: []`, a flow list, or block items.
    fn seq_after_key(&self, items: &[&RValue<'_>], template: &Value<'_>, indent: usize, out: &mut String) {
        let eol = self.eol();
        if items.is_empty() {
            out.push_str(": []");
            out.push_str(eol);
            return;
        }
        let tf = self.file(template.origin.side);
        let node = tf.nodes.get(template.origin.node as usize);
        if node.is_some_and(|n| n.kind == YKind::FlowSeq && n.count > 0) {
            out.push_str(": ");
            self.flow_list(items.iter().copied(), out);
            out.push_str(eol);
            return;
        }
        // Block items sit at the key's indent (Unity's style), or where the template has them.
        let dash = node.filter(|n| n.kind == YKind::Seq).map_or(indent, |n| column(tf.src, n.span.0 as usize));
        out.push(':');
        out.push_str(eol);
        for item in items {
            out.extend(std::iter::repeat_n(' ', dash));
            out.push_str("- ");
            match item {
                RValue::Map { template: it, entries } if self.kind_of(it) == Some(YKind::Map) => {
                    self.block_map(entries, it, dash + 2, Some(()), out);
                }
                RValue::Exact(v) => {
                    out.push_str(v.raw);
                    out.push_str(eol);
                }
                other => {
                    self.flow(other, out);
                    out.push_str(eol);
                }
            }
        }
    }

    /// `[a, b, c]`.
    fn flow_list<'x>(&self, items: impl Iterator<Item = &'x RValue<'x>>, out: &mut String) {
        out.push('[');
        for (i, item) in items.enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.flow(item, out);
        }
        out.push(']');
    }

    /// A value in flow style (`{x: 1, y: 2}`, `[1, 2]`, or its text).
    fn flow(&self, rv: &RValue<'_>, out: &mut String) {
        match rv {
            RValue::Exact(v) => out.push_str(&in_flow(v.raw)),
            RValue::Map { template, entries } if matches!(self.kind_of(template), Some(YKind::Map | YKind::FlowMap)) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&self.key_text(k, v, template));
                    out.push_str(": ");
                    self.flow(v, out);
                }
                out.push('}');
            }
            RValue::Map { entries, .. } => self.flow_list(entries.iter().map(|(_, v)| v), out),
            RValue::List { items, .. } => self.flow_list(items.iter(), out),
            RValue::Children { .. } => {}
        }
    }
}

/// A value's text as a flow map or list holds it: a scalar written plain in a block (`2}`, `a,
/// b`) that holds what ends a value there is single-quoted, which YAML reads as the same string.
fn in_flow(raw: &str) -> std::borrow::Cow<'_, str> {
    let plain = !raw.starts_with(['\'', '"', '{', '[']) && !raw.contains('\n');
    if plain && raw.contains([',', '[', ']', '{', '}']) {
        std::borrow::Cow::Owned(format!("'{}'", raw.replace('\'', "''")))
    } else {
        std::borrow::Cow::Borrowed(raw)
    }
}

/// The key entry `e` was lowered under (a [`levelmerge_core::model::repeated_key`], or the key
/// as written).
fn lowered_key<'f>(file: &'f UnityFile<'_>, e: u32) -> &'f str {
    file.key_aliases.get(&e).map_or_else(|| file.text(file.entries[e as usize].key), String::as_str)
}
