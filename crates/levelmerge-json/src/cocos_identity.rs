//! How the elements of a Cocos file that no unique `_id` names are told apart across versions.
//!
//! Such an element is named by its stem: the identity of the element that first refers to it,
//! the member holding the reference, its type and its name. Elements that share a stem (two
//! components of one type on a node, the click events of a button, same-named children in a
//! prefab) cannot be told apart by their place among each other: a side that removes the
//! first of them would shift every later one onto its neighbour's identity, and the other
//! side's edit of one would land on another with exit 0. So a side's elements of a stem are
//! matched to the base's by their content: equal content is the same element; a stretch
//! changed in place (as many elements before as after) is paired in order; what is left is
//! new on that side, named by its content so that both sides adding the same element agree.
//!
//! A property override of a nested prefab (Cocos Creator 3.x `CCPropertyOverrideInfo`) has no
//! name, but what it overrides names it: its `propertyPath` and its target's `localID`.

use std::hash::Hasher;

use levelmerge_core::diff3::changed_stretches;
use rustc_hash::{FxHashMap, FxHasher};

use crate::cocos::{inner, ref_value, string_member};
use crate::parse::{Document, NodeKind};

/// The base's elements of each stem, in order: their identities and positions.
#[derive(Debug, Default)]
pub struct Stems(FxHashMap<String, Vec<(String, usize)>>);

impl Stems {
    pub fn record(&mut self, stem: &str, identity: &str, element: usize) {
        let entry = (identity.to_owned(), element);
        match self.0.get_mut(stem) {
            Some(group) => group.push(entry),
            None => {
                self.0.insert(stem.to_owned(), vec![entry]);
            }
        }
    }

    pub fn get(&self, stem: &str) -> Option<&[(String, usize)]> {
        self.0.get(stem).map(Vec::as_slice)
    }
}

/// The name part of an element's stem: its `_name`, or for an override the property it
/// overrides on its target (`_lpos@c46/YsCPVOJYA4mWEpNYRx`).
pub fn name_part(doc: &Document<'_>, elements: &[u32], element: u32) -> String {
    if let Some(name) = string_member(doc, element, "_name") {
        return name.to_owned();
    }
    let Some(path) = doc.member(element, "propertyPath").and_then(|p| joined_strings(doc, p, ".")) else {
        return String::new();
    };
    let target = doc
        .member(element, "targetInfo")
        .and_then(|r| ref_value(doc, r))
        .and_then(|r| doc.node_text(r).parse::<usize>().ok())
        .and_then(|at| elements.get(at))
        .and_then(|&info| doc.member(info, "localID"))
        .and_then(|ids| joined_strings(doc, ids, ","));
    match target {
        Some(target) => format!("{path}@{target}"),
        None => path,
    }
}

/// The strings of an array joined by `by`, as written; `None` for anything else.
fn joined_strings(doc: &Document<'_>, array: u32, by: &str) -> Option<String> {
    if doc.nodes[array as usize].kind != NodeKind::Array {
        return None;
    }
    let parts: Option<Vec<&str>> =
        doc.slots_of(array).iter().map(|s| (doc.nodes[s.value as usize].kind == NodeKind::String).then(|| inner(doc, s.value))).collect();
    Some(parts?.join(by))
}

/// Content keys of elements: a hash of an element's values in which each reference stands
/// for its target's unique `_id` when it has one, else for the target's own values with its
/// references left out (targets are renumbered between versions; their positions say nothing).
/// Each is computed when first asked for.
pub struct ContentKeys<'d, 's> {
    doc: &'d Document<'s>,
    elements: Vec<u32>,
    named: Vec<Option<String>>,
    shallow: Vec<Option<u64>>,
}

impl<'d, 's> ContentKeys<'d, 's> {
    /// `named`: the identities elements have from their own `_id`.
    pub fn new(doc: &'d Document<'s>, elements: Vec<u32>, named: Vec<Option<String>>) -> Self {
        let shallow = vec![None; elements.len()];
        ContentKeys { doc, elements, named, shallow }
    }

    /// The keys of `elements`.
    pub fn keys(&mut self, elements: &[usize]) -> Vec<u64> {
        elements.iter().map(|&e| self.key(e)).collect()
    }

    pub fn key(&mut self, element: usize) -> u64 {
        let mut h = FxHasher::default();
        self.hash_value(self.elements[element], &mut h, true);
        h.finish()
    }

    fn target_key(&mut self, target: usize) -> u64 {
        if let Some(id) = &self.named[target] {
            let mut h = FxHasher::default();
            h.write(id.as_bytes());
            return h.finish();
        }
        if let Some(k) = self.shallow[target] {
            return k;
        }
        let mut h = FxHasher::default();
        self.hash_value(self.elements[target], &mut h, false);
        let k = h.finish();
        self.shallow[target] = Some(k);
        k
    }

    fn hash_value(&mut self, node: u32, h: &mut FxHasher, follow: bool) {
        let doc = self.doc;
        if let Some(r) = ref_value(doc, node) {
            h.write_u8(b'@');
            let target = doc.node_text(r).parse::<usize>().ok().filter(|&t| t < self.elements.len());
            match target {
                Some(t) if follow => h.write_u64(self.target_key(t)),
                _ => {}
            }
            return;
        }
        match doc.nodes[node as usize].kind {
            NodeKind::Object | NodeKind::Array => {
                h.write_u8(if doc.nodes[node as usize].kind == NodeKind::Object { b'{' } else { b'[' });
                for slot in doc.slots_of(node) {
                    h.write(doc.text(slot.name).as_bytes());
                    h.write_u8(b':');
                    self.hash_value(slot.value, h, follow);
                }
                h.write_u8(b'}');
            }
            _ => {
                h.write(doc.node_text(node).as_bytes());
                h.write_u8(0);
            }
        }
    }
}

/// The identities of a side's elements of one stem (their content keys in order), matched to
/// the base's elements of that stem: equal content in order, then equal content moved, then,
/// in each stretch the side changed, what is left of both paired in order when as many are
/// left on each side (elements edited in place); the rest is new.
pub fn aligned(stem: &str, keys: &[u64], base: &[(String, u64)]) -> Vec<String> {
    let base_keys: Vec<u64> = base.iter().map(|(_, k)| *k).collect();
    let stretches = changed_stretches(&base_keys, keys);
    let mut matched: Vec<Option<usize>> = vec![None; keys.len()];
    let mut taken = vec![false; base.len()];
    let pair = |b: usize, s: usize, matched: &mut [Option<usize>], taken: &mut [bool]| {
        matched[s] = Some(b);
        taken[b] = true;
    };
    // What lies between changed stretches is equal in both, in order.
    let (mut b, mut s) = (0, 0);
    for (in_base, in_side) in stretches.iter().chain(std::iter::once(&(base.len()..base.len(), keys.len()..keys.len()))) {
        for (bi, si) in (b..in_base.start).zip(s..in_side.start) {
            pair(bi, si, &mut matched, &mut taken);
        }
        (b, s) = (in_base.end, in_side.end);
    }
    for si in 0..keys.len() {
        if matched[si].is_none() {
            if let Some(bi) = (0..base.len()).find(|&bi| !taken[bi] && base_keys[bi] == keys[si]) {
                pair(bi, si, &mut matched, &mut taken);
            }
        }
    }
    for (in_base, in_side) in &stretches {
        let left_in_base: Vec<usize> = in_base.clone().filter(|&bi| !taken[bi]).collect();
        let left_in_side: Vec<usize> = in_side.clone().filter(|&si| matched[si].is_none()).collect();
        if left_in_base.len() == left_in_side.len() {
            for (bi, si) in left_in_base.into_iter().zip(left_in_side) {
                pair(bi, si, &mut matched, &mut taken);
            }
        }
    }
    let mut repeats: FxHashMap<u64, usize> = FxHashMap::default();
    matched
        .into_iter()
        .zip(keys)
        .map(|(at, key)| match at {
            Some(bi) => base[bi].0.clone(),
            None => {
                let n = repeats.entry(*key).or_default();
                *n += 1;
                if *n == 1 {
                    format!("{stem}#+{key:016x}")
                } else {
                    format!("{stem}#+{key:016x}#{n}")
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(keys: &[u64]) -> Vec<(String, u64)> {
        keys.iter().enumerate().map(|(i, k)| (format!("s#{i}"), *k)).collect()
    }

    #[test]
    fn a_removed_element_shifts_no_other_onto_its_identity() {
        assert_eq!(aligned("s", &[2, 3], &base(&[1, 2, 3])), ["s#1", "s#2"]);
    }

    #[test]
    fn an_element_moved_among_the_others_keeps_its_identity() {
        assert_eq!(aligned("s", &[2, 1], &base(&[1, 2])), ["s#1", "s#0"]);
        assert_eq!(aligned("s", &[3, 1, 2], &base(&[1, 2, 3])), ["s#2", "s#0", "s#1"]);
        // Two new ones where a moved one and a removed one stood are not those two edited.
        assert_eq!(aligned("s", &[9, 9, 3, 1], &base(&[1, 2, 3])), ["s#+0000000000000009", "s#+0000000000000009#2", "s#2", "s#0"]);
    }

    #[test]
    fn elements_changed_in_place_keep_their_identities() {
        assert_eq!(aligned("s", &[1, 9, 3], &base(&[1, 2, 3])), ["s#0", "s#1", "s#2"]);
        assert_eq!(aligned("s", &[8, 9], &base(&[1, 2])), ["s#0", "s#1"]);
    }

    #[test]
    fn a_stretch_replaced_by_more_or_fewer_elements_is_new() {
        assert_eq!(aligned("s", &[1, 7, 8, 3], &base(&[1, 2, 3])), ["s#0", "s#+0000000000000007", "s#+0000000000000008", "s#2"]);
        assert_eq!(aligned("s", &[5, 5], &base(&[])), ["s#+0000000000000005", "s#+0000000000000005#2"]);
    }
}
