//! Writing a resolved level back as JSON. Values taken whole are copied byte for byte from their
//! source; assembled containers borrow their brackets, separators and indentation from a template
//! (the same container in one of the inputs), and each element keeps the whitespace and comments
//! it had in its own source.

use levelmerge_core::codec::merged_capacity;
use levelmerge_core::resolve::{RValue, Resolved};
use levelmerge_core::{Side, Sides, Value};

use crate::parse::{in_a_bare_word, Document, Slot, NO_SLOT};

pub struct Renderer<'r, 'd> {
    pub docs: Sides<&'r Document<'d>>,
    pub level: &'r Resolved<'r>,
}

/// Where an element's formatting comes from: its own slot in its own source document.
struct ElementSource<'r, 'd> {
    doc: &'r Document<'d>,
    slot: Option<&'r Slot>,
    /// Its position in its source container.
    index: usize,
}

impl<'r, 'd> Renderer<'r, 'd> {
    fn doc(&self, side: Side) -> &'r Document<'d> {
        self.docs.get(side)
    }

    fn source_of(&self, v: &Value<'_>) -> ElementSource<'r, 'd> {
        let doc = self.doc(v.origin.side);
        let slot_index = doc.nodes[v.origin.node as usize].slot;
        if slot_index == NO_SLOT {
            return ElementSource { doc, slot: None, index: 0 };
        }
        let slot = &doc.slots[slot_index as usize];
        let container = &doc.nodes[slot.container as usize];
        ElementSource { doc, slot: Some(slot), index: (slot_index - container.first_slot) as usize }
    }

    fn value_of<'x>(rv: &'x RValue<'x>) -> &'x Value<'x> {
        match rv {
            RValue::Exact(v) => v,
            RValue::Map { template, .. } | RValue::List { template, .. } | RValue::Children { template, .. } => template,
        }
    }

    /// The whole file.
    pub fn render(&self) -> Vec<u8> {
        let root = self.level.root.as_ref().and_then(|id| self.level.objects.get(id)).expect("a JSON level has its root object");
        let mut out = String::with_capacity(merged_capacity(self.docs.map(|_, d| d.src.len())));
        out.push_str(self.around_the_root(Document::prefix));
        self.value(&root.props, &mut out);
        out.push_str(self.around_the_root(Document::suffix));
        out.into_bytes()
    }

    /// What lies around the root value's elements (a byte order mark, the final newline, the
    /// spacing before its closing bracket) is merged like any value: a side that changed it
    /// wins. Every version has a root, where a container's other spacing has no counterpart.
    fn around_the_root(&self, part: impl Fn(&Document<'d>) -> &'d str) -> &'d str {
        let (b, o, t) = (part(self.docs.base), part(self.docs.ours), part(self.docs.theirs));
        if o == b {
            t
        } else {
            o
        }
    }

    fn value(&self, rv: &RValue<'_>, out: &mut String) {
        match rv {
            RValue::Exact(v) => out.push_str(v.raw),
            RValue::Map { template, entries } => {
                let elements: Vec<(Option<&str>, &RValue<'_>)> = entries.iter().map(|(k, v)| (Some(*k), v)).collect();
                self.container(template, &elements, out);
            }
            RValue::List { template, items } => {
                let elements: Vec<(Option<&str>, &RValue<'_>)> = items.iter().map(|v| (None, v)).collect();
                self.container(template, &elements, out);
            }
            RValue::Children { template, ids } => {
                let elements: Vec<(Option<&str>, &RValue<'_>)> =
                    ids.iter().filter_map(|id| self.level.objects.get(id)).map(|o| (None, &o.props)).collect();
                self.container(template, &elements, out);
            }
        }
    }

    fn container(&self, template: &Value<'_>, elements: &[(Option<&str>, &RValue<'_>)], out: &mut String) {
        let tdoc = self.doc(template.origin.side);
        let tnode = &tdoc.nodes[template.origin.node as usize];
        let tslots = tdoc.slots_of(template.origin.node);
        let implicit = tdoc.implicit_root && template.origin.node == tdoc.root;
        let (open, close) = match tnode.kind {
            _ if implicit => ("", ""),
            crate::parse::NodeKind::Object => ("{", "}"),
            _ => ("[", "]"),
        };
        let uses_commas = match tslots.get(1) {
            Some(s) => s.comma().is_some(),
            None => tdoc.uses_commas,
        };
        out.push_str(open);
        let mut tail_from: Option<(&Document<'_>, (u32, u32))> = None;
        for (i, (key, rv)) in elements.iter().enumerate() {
            let v = Self::value_of(rv);
            let own = self.source_of(v);
            // Formatting: the template's slot for this member when it has one, else its own.
            // A value's own slot lends its place only under its own name: a member renamed
            // on the other side keeps this side's value under the new name.
            let same_name = |s: &crate::parse::Slot| key.is_none_or(|k| own.doc.text(s.name) == k);
            let in_template = key.and_then(|k| tslots.iter().position(|s| tdoc.text(s.name) == k)).or_else(|| {
                (v.origin.side == template.origin.side && own.slot.is_some_and(|s| s.container == template.origin.node && same_name(s)))
                    .then_some(own.index)
            });
            // An item the template holds at this place, written alike, is that item: it takes
            // the template's spacing (a side that only re-spaced a list gives it all). Only
            // spacing: where either lead holds a comment, each item keeps its own.
            let in_template = in_template.or_else(|| {
                let at = tslots.get(i).filter(|_| key.is_none())?;
                let spacing = |doc: &Document<'_>, slot: &Slot| doc.text(slot.lead).bytes().all(|b| b == b',' || b.is_ascii_whitespace());
                let alike = tdoc.node_text(at.value) == v.raw && spacing(tdoc, at) && own.slot.is_none_or(|s| spacing(own.doc, s));
                alike.then_some(i)
            });
            let (fdoc, fslot, findex) = match in_template {
                Some(j) => (tdoc, Some(&tslots[j]), j),
                None => (own.doc, own.slot, own.index),
            };
            if tail_from.is_none() && tslots.is_empty() {
                if let Some(s) = own.slot {
                    tail_from = Some((own.doc, own.doc.tail(s.container)));
                }
            }
            // The lead keeps its comma where the source had it (`1 , 2` stays so); an element
            // moving to or from the first place gains or loses one.
            let lead = match fslot {
                Some(slot) if (i == 0) == (findex == 0) => fdoc.text(slot.lead).to_owned(),
                _ => {
                    // Borrow the lead the template gives an element at this position.
                    let j = if i == 0 { 0 } else { 1.min(tslots.len().saturating_sub(1)) };
                    let (ldoc, lslot) = match tslots.get(j) {
                        Some(s) => (tdoc, Some(s)),
                        None => (fdoc, fslot),
                    };
                    let bare = lslot.map(|s| ldoc.lead_without_comma(s)).unwrap_or_default();
                    if i > 0 && uses_commas {
                        format!(",{bare}")
                    } else {
                        bare
                    }
                }
            };
            out.push_str(&lead);
            let element_at = out.len();
            if let (Some(k), Some(s)) = (key, fslot) {
                if fdoc.text(s.name) == *k {
                    out.push_str(fdoc.text(s.key()));
                } else if s.quoted {
                    out.push('"');
                    out.push_str(k);
                    out.push('"');
                } else {
                    out.push_str(k);
                }
                out.push_str(fdoc.text(fdoc.sep(s)));
            } else if let Some(k) = key {
                // No slot to borrow from (cannot happen for parsed members); write plain JSON.
                out.push('"');
                out.push_str(k);
                out.push_str("\": ");
            }
            self.value(rv, out);
            // A lead that parted this element from a bracket or a string in its source may
            // part nothing here: two words side by side would read as one (`11 = 4` followed
            // by `1 = 2` as `11 = 41 = 2`).
            let bytes = out.as_bytes();
            if lead.is_empty()
                && element_at > 0
                && in_a_bare_word(bytes[element_at - 1])
                && bytes.get(element_at).is_some_and(|&b| in_a_bare_word(b))
            {
                out.insert(element_at, if implicit { '\n' } else { ' ' });
            }
        }
        let tail = tdoc.text(tdoc.tail(template.origin.node));
        match (tslots.is_empty(), tail_from) {
            (true, Some((doc, tail))) if !elements.is_empty() => out.push_str(doc.text(tail)),
            // A container the merge emptied is written as every editor writes an empty one
            // (`[]`), not with the line break that closed its last element.
            (false, _) if elements.is_empty() && !implicit && tail.bytes().all(|b| b.is_ascii_whitespace()) => {}
            _ if template.origin.node == tdoc.root
                && !elements.is_empty()
                && [self.docs.base, self.docs.ours, self.docs.theirs].iter().all(|d| d.root_is_a_container()) =>
            {
                out.push_str(self.around_the_root(|d| d.text(d.tail(d.root))))
            }
            _ => out.push_str(tail),
        }
        out.push_str(close);
    }
}
