//! The hierarchy of a Cocos Creator file, checked: every node says where it hangs twice, by its
//! `_parent` and by its parent's `_children`. The editor reads both; where they disagree it
//! shows a node twice or loses it, and a parent cycle hangs nodes under nothing the scene
//! reaches. An element nothing from the file's first one reaches is lost to the editor too.
//! Read in either form (positions or identities), as the other Cocos checks are.

use levelmerge_core::model::ObjectId;
use levelmerge_core::Problem;
use rustc_hash::FxHashMap;

use crate::cocos::{element_identity, inner, ref_value, references_in};
use crate::parse::{Document, NodeKind};

/// Nodes whose `_parent` and their parent's `_children` disagree, parent cycles, and elements
/// the file's first element does not reach.
pub fn hierarchy_problems(doc: &Document<'_>) -> Vec<Problem> {
    if doc.nodes[doc.root as usize].kind != NodeKind::Array {
        return Vec::new();
    }
    let elements = doc.slots_of(doc.root);
    let identities = elements.first().is_some_and(|s| element_identity(doc, s.value).is_some());
    // Elements are named as references name them: by identity, or by position.
    let identity = |i: usize| element_identity(doc, elements[i].value).unwrap_or("");
    let position: FxHashMap<&str, usize> =
        if identities { (0..elements.len()).map(|i| (identity(i), i)).collect() } else { FxHashMap::default() };
    // The element a reference's value (`7`, `"#id"`) names.
    let named = |r: u32| -> Option<usize> {
        if identities {
            let name = if doc.nodes[r as usize].kind == NodeKind::String { inner(doc, r) } else { doc.node_text(r) };
            position.get(name).copied()
        } else {
            doc.node_text(r).parse::<usize>().ok().filter(|&p| p < elements.len())
        }
    };
    let target = |node: u32| named(ref_value(doc, node)?);
    let level_id = |i: usize| ObjectId::new(if identities { format!("/[{}]", identity(i)) } else { format!("[{i}]") });
    let line = |i: usize| doc.line_of(doc.nodes[elements[i].value as usize].start) as usize;

    // `Some(None)`: a `_parent` that is no reference (null); `None`: no `_parent` member.
    let parent: Vec<Option<Option<usize>>> = elements.iter().map(|s| doc.member(s.value, "_parent").map(&target)).collect();
    let mut listed_by: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
    let mut lists = vec![false; elements.len()];
    for (i, s) in elements.iter().enumerate() {
        let Some(list) = doc.member(s.value, "_children").filter(|&l| doc.nodes[l as usize].kind == NodeKind::Array) else { continue };
        lists[i] = true;
        for item in doc.slots_of(list) {
            if let Some(child) = target(item.value) {
                listed_by.entry(child).or_default().push(i);
            }
        }
    }

    let mut problems = Vec::new();
    let inconsistent = |i: usize, message: String| Problem::Inconsistent { object: level_id(i), message, line: line(i) };
    for (child, &p) in parent.iter().enumerate() {
        let listers = listed_by.get(&child).map_or(&[][..], Vec::as_slice);
        if let Some(Some(p)) = p {
            if lists[p] && !listers.contains(&p) {
                problems.push(inconsistent(child, format!("its _parent is {}, whose _children does not list it", level_id(p))));
            }
        }
        for (n, &lister) in listers.iter().enumerate() {
            if listers[..n].contains(&lister) {
                problems.push(inconsistent(child, format!("listed twice among the _children of {}", level_id(lister))));
            } else if p.is_some() && p != Some(Some(lister)) {
                problems.push(inconsistent(child, format!("listed among the _children of {}, which is not its _parent", level_id(lister))));
            }
        }
    }
    problems.extend(parent_cycles(&parent).into_iter().map(|cycle| Problem::Cycle { objects: cycle.into_iter().map(level_id).collect() }));
    let mut reached = vec![false; elements.len()];
    let mut stack = vec![0];
    let mut refs = Vec::new();
    while let Some(at) = stack.pop() {
        if std::mem::replace(&mut reached[at], true) {
            continue;
        }
        refs.clear();
        references_in(doc, elements[at].value, &mut refs);
        stack.extend(refs.iter().filter_map(|&r| named(r).filter(|&t| !reached[t])));
    }
    for (i, _) in reached.iter().enumerate().filter(|(_, &r)| !r) {
        problems.push(inconsistent(i, "nothing the file's first element reaches refers to it: the editor drops it".to_owned()));
    }
    problems
}

/// The cycles the `_parent` links make, each from its smallest position.
fn parent_cycles(parent: &[Option<Option<usize>>]) -> Vec<Vec<usize>> {
    // 0: not seen, 1: on the walk being followed, 2: done.
    let mut state = vec![0u8; parent.len()];
    let mut cycles = Vec::new();
    for start in 0..parent.len() {
        let mut walk = Vec::new();
        let mut at = Some(start);
        while let Some(node) = at.filter(|&n| state[n] == 0) {
            state[node] = 1;
            walk.push(node);
            at = match parent[node] {
                Some(Some(p)) => Some(p),
                _ => None,
            };
        }
        // The walk ran into itself: a cycle (into a node an earlier walk finished: none).
        if let Some(at) = at.filter(|&n| state[n] == 1) {
            if let Some(from) = walk.iter().position(|&w| w == at) {
                let mut cycle = walk[from..].to_vec();
                let smallest = cycle.iter().enumerate().min_by_key(|(_, &n)| n).map_or(0, |(k, _)| k);
                cycle.rotate_left(smallest);
                cycles.push(cycle);
            }
        }
        for w in walk {
            state[w] = 2;
        }
    }
    cycles
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, Dialect};

    fn problems(text: &str) -> Vec<String> {
        hierarchy_problems(&parse(text.as_bytes(), Dialect::Json).unwrap()).iter().map(ToString::to_string).collect()
    }

    const SOUND: &str = r#"[
  {"__type__": "cc.SceneAsset", "scene": {"__id__": 1}},
  {"__type__": "cc.Scene", "_parent": null, "_children": [{"__id__": 2}]},
  {"__type__": "cc.Node", "_parent": {"__id__": 1}, "_children": [{"__id__": 3}]},
  {"__type__": "cc.Node", "_parent": {"__id__": 2}, "_children": []}
]"#;

    #[test]
    fn a_sound_hierarchy_has_no_problems() {
        assert_eq!(problems(SOUND), Vec::<String>::new());
    }

    #[test]
    fn a_node_its_parent_does_not_list_is_a_problem() {
        let text = SOUND.replace(r#""_children": [{"__id__": 3}]"#, r#""_children": []"#);
        let dropped = "nothing the file's first element reaches refers to it: the editor drops it";
        assert_eq!(
            problems(&text),
            ["line 5: [3]: its _parent is [2], whose _children does not list it".to_owned(), format!("line 5: [3]: {dropped}")]
        );
    }

    #[test]
    fn a_node_listed_by_another_node_or_twice_is_a_problem() {
        let elsewhere = SOUND.replace(r#""_children": [{"__id__": 2}]"#, r#""_children": [{"__id__": 2}, {"__id__": 3}]"#);
        assert_eq!(problems(&elsewhere), ["line 5: [3]: listed among the _children of [1], which is not its _parent"]);
        let twice = SOUND.replace(r#""_children": [{"__id__": 3}]"#, r#""_children": [{"__id__": 3}, {"__id__": 3}]"#);
        assert_eq!(problems(&twice), ["line 5: [3]: listed twice among the _children of [2]"]);
    }

    #[test]
    fn a_parent_cycle_is_a_problem() {
        // Node 2 hangs under node 3, which hangs under node 2: the scene reaches neither.
        let text = SOUND
            .replace(r#""_children": [{"__id__": 2}]"#, r#""_children": []"#)
            .replace(
                r#""_parent": {"__id__": 1}, "_children": [{"__id__": 3}]"#,
                r#""_parent": {"__id__": 3}, "_children": [{"__id__": 3}]"#,
            )
            .replace(r#""_parent": {"__id__": 2}, "_children": []"#, r#""_parent": {"__id__": 2}, "_children": [{"__id__": 2}]"#);
        let dropped = "nothing the file's first element reaches refers to it: the editor drops it";
        assert_eq!(
            problems(&text),
            ["parent cycle: [2] → [3]".to_owned(), format!("line 4: [2]: {dropped}"), format!("line 5: [3]: {dropped}")]
        );
    }

    #[test]
    fn an_element_nothing_reaches_is_a_problem() {
        let text = SOUND.replace("\n]", ",\n  {\"__type__\": \"cc.Sprite\", \"node\": {\"__id__\": 3}}\n]");
        assert_eq!(problems(&text), ["line 6: [4]: nothing the file's first element reaches refers to it: the editor drops it"]);
    }

    #[test]
    fn identities_name_the_nodes_in_the_identity_form() {
        let text = r##"[
  {"__lmid":"root", "__type__": "cc.SceneAsset", "scene": {"__id__": "#s"}},
  {"__lmid":"#s", "__type__": "cc.Scene", "_parent": null, "_children": []},
  {"__lmid":"#n", "__type__": "cc.Node", "_parent": {"__id__": "#s"}, "_children": []}
]"##;
        let dropped = "nothing the file's first element reaches refers to it: the editor drops it";
        assert_eq!(
            problems(text),
            ["line 4: /[#n]: its _parent is /[#s], whose _children does not list it".to_owned(), format!("line 4: /[#n]: {dropped}")]
        );
    }
}
