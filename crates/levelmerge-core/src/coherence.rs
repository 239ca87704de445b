//! Integrity of a level: no dangling reference, no orphan, no parent cycle (duplicate ids and
//! syntax errors are found by the codecs while reading, and reported with the same type).

use std::fmt;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::model::{Level, Object, ObjectId, PropPath, RefRole, Reference};

/// The graph facts the checks need about one object.
#[derive(Debug, Clone)]
pub struct GraphNode {
    pub id: ObjectId,
    /// Structural parent, if any (a parent given by a property is among `refs`).
    pub parent: Option<ObjectId>,
    pub refs: Vec<(PropPath, Reference)>,
    /// 1-based source line, 0 when unknown.
    pub line: u32,
}

impl GraphNode {
    /// The graph facts of `object`, with its line when `lines`.
    fn of(object: &Object<'_>, lines: bool) -> GraphNode {
        let mut refs = Vec::new();
        object.props.references(&mut PropPath::default(), &mut refs);
        GraphNode { id: object.id.clone(), parent: object.parent.clone(), refs, line: if lines { object.line } else { 0 } }
    }

    fn effective_parent(&self) -> Option<&ObjectId> {
        self.refs.iter().find(|(_, r)| r.role == RefRole::Parent).map(|(_, r)| &r.target).or(self.parent.as_ref())
    }
}

/// Something structurally wrong with a level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The file could not be read as its format.
    Syntax { line: usize, column: usize, message: String },
    /// A leftover conflict marker.
    ConflictMarker { line: usize },
    /// Two objects of one collection share an id.
    DuplicateId { id: String, line: usize, first_line: usize },
    /// Two members of one map share a name.
    DuplicateKey { key: String, line: usize, first_line: usize },
    /// A reference to an object that does not exist.
    DanglingReference { object: ObjectId, path: String, target: ObjectId, line: usize },
    /// An object whose parent does not exist.
    Orphan { object: ObjectId, parent: ObjectId, line: usize },
    /// Objects that are each other's ancestors.
    Cycle { objects: Vec<ObjectId> },
    /// A format's own rule broken (a child list and a parent field that disagree).
    Inconsistent { object: ObjectId, message: String, line: usize },
}

impl Problem {
    /// The problem as compared across versions: without line numbers, which move.
    pub fn key(&self) -> String {
        match self {
            Problem::DanglingReference { object, path, target, .. } => format!("dangling {object} {path} {target}"),
            Problem::Orphan { object, parent, .. } => format!("orphan {object} {parent}"),
            Problem::Inconsistent { object, message, .. } => format!("{object} {message}"),
            Problem::ConflictMarker { .. } => "leftover conflict marker".to_owned(),
            Problem::DuplicateId { id, .. } => format!("duplicate id {id}"),
            Problem::DuplicateKey { key, .. } => format!("duplicate key {key}"),
            other => other.to_string(),
        }
    }

    /// A syntax problem at byte `pos` of `src`, with its 1-based line and column (in
    /// characters). A line that is a leftover conflict marker is reported as one.
    pub fn syntax_at(src: &[u8], pos: usize, message: impl Into<String>) -> Problem {
        let pos = pos.min(src.len());
        let before = &src[..pos];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let column = String::from_utf8_lossy(&src[line_start..pos]).chars().count() + 1;
        let rest = &src[line_start..];
        let message = if [b"<<<<<<<", b"=======", b">>>>>>>"].iter().any(|m| rest.starts_with(*m)) {
            "leftover conflict marker".to_owned()
        } else {
            message.into()
        };
        Problem::Syntax { line, column, message }
    }

    /// A syntax problem told where in the file it lies beyond its line (`in GameObject &7`,
    /// `at levels[0].x`): written after its message. Other problems are left as they are.
    pub fn placed(self, place: &str) -> Problem {
        match self {
            Problem::Syntax { line, column, message } => Problem::Syntax { line, column, message: format!("{message} ({place})") },
            other => other,
        }
    }

    /// The line the problem is on, when it has one.
    pub fn line(&self) -> Option<usize> {
        match self {
            Problem::Syntax { line, .. }
            | Problem::ConflictMarker { line }
            | Problem::DuplicateId { line, .. }
            | Problem::DuplicateKey { line, .. }
            | Problem::DanglingReference { line, .. }
            | Problem::Orphan { line, .. }
            | Problem::Inconsistent { line, .. } => Some(*line).filter(|l| *l > 0),
            Problem::Cycle { .. } => None,
        }
    }

    /// A short name for machine-readable reports.
    pub fn code(&self) -> &'static str {
        match self {
            Problem::Syntax { .. } => "syntax",
            Problem::ConflictMarker { .. } => "conflict-marker",
            Problem::DuplicateId { .. } => "duplicate-id",
            Problem::DuplicateKey { .. } => "duplicate-key",
            Problem::DanglingReference { .. } => "dangling-reference",
            Problem::Orphan { .. } => "orphan",
            Problem::Cycle { .. } => "cycle",
            Problem::Inconsistent { .. } => "inconsistent",
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Syntax { line, column, message } => write!(f, "line {line}, column {column}: {message}"),
            Problem::ConflictMarker { line } => write!(f, "line {line}: leftover conflict marker"),
            Problem::DuplicateId { id, line, first_line } => {
                write!(f, "line {line}: duplicate id {id} (first used on line {first_line})")
            }
            Problem::DuplicateKey { key, line, first_line } => {
                write!(f, "line {line}: duplicate key \"{key}\" (first used on line {first_line})")
            }
            Problem::DanglingReference { object, path, target, line } => {
                write!(f, "{}{object} › {path}: reference to missing object {target}", at(*line))
            }
            Problem::Orphan { object, parent, line } => write!(f, "{}{object}: parent {parent} does not exist", at(*line)),
            Problem::Inconsistent { object, message, line } => write!(f, "{}{object}: {message}", at(*line)),
            Problem::Cycle { objects } => {
                let names: Vec<&str> = objects.iter().map(|o| o.as_str()).collect();
                write!(f, "parent cycle: {}", names.join(" → "))
            }
        }
    }
}

fn at(line: usize) -> String {
    if line > 0 {
        format!("line {line}: ")
    } else {
        String::new()
    }
}

impl Level<'_> {
    /// The graph view used by the coherence checks.
    pub fn graph(&self, lines: bool) -> Vec<GraphNode> {
        self.objects.values().map(|o| GraphNode::of(o, lines)).collect()
    }

    /// Dangling references, orphans and cycles in this level.
    pub fn problems(&self) -> Vec<Problem> {
        check(&self.graph(true))
    }

    /// The parents and references of `others` (objects outside this level, such as ones its
    /// reading refused) that name no object of this level.
    pub fn missing_targets_of(&self, others: &[Object<'_>]) -> Vec<Problem> {
        let mut problems = Vec::new();
        for o in others {
            missing_targets(&GraphNode::of(o, true), |id| self.objects.contains_key(id), &mut problems);
        }
        problems
    }
}

/// A parent cycle, if the graph has one (members in parent order).
pub fn find_cycle(graph: &[GraphNode]) -> Option<Vec<ObjectId>> {
    let mut parent: FxHashMap<&ObjectId, &ObjectId> = FxHashMap::with_capacity_and_hasher(graph.len(), Default::default());
    parent.extend(graph.iter().filter_map(|n| n.effective_parent().map(|p| (&n.id, p))));
    // Each object walked up from: on the walk under way (false), or done: no cycle above it.
    let mut done: FxHashMap<&ObjectId, bool> = FxHashMap::with_capacity_and_hasher(graph.len(), Default::default());
    let mut path: Vec<&ObjectId> = Vec::new();
    for n in graph {
        path.clear();
        let mut at = Some(&n.id);
        while let Some(id) = at {
            match done.entry(id) {
                std::collections::hash_map::Entry::Occupied(walked) if *walked.get() => break,
                std::collections::hash_map::Entry::Occupied(_) => {
                    let start = path.iter().position(|p| *p == id).expect("on the path");
                    return Some(path[start..].iter().map(|p| (*p).clone()).collect());
                }
                std::collections::hash_map::Entry::Vacant(new) => {
                    new.insert(false);
                }
            }
            path.push(id);
            at = parent.get(id).copied();
        }
        for id in &path {
            done.insert(id, true);
        }
    }
    None
}

/// Dangling references, orphans and cycles.
pub fn check(graph: &[GraphNode]) -> Vec<Problem> {
    let ids: FxHashSet<&ObjectId> = graph.iter().map(|n| &n.id).collect();
    let mut problems = Vec::new();
    for n in graph {
        missing_targets(n, |id| ids.contains(id), &mut problems);
    }
    if let Some(objects) = find_cycle(graph) {
        problems.push(Problem::Cycle { objects });
    }
    problems
}

/// The parent and the references of `node` that name no object (`exists` tells), as problems.
fn missing_targets(n: &GraphNode, exists: impl Fn(&ObjectId) -> bool, problems: &mut Vec<Problem>) {
    if let Some(p) = n.parent.as_ref().filter(|p| !exists(p)) {
        problems.push(Problem::Orphan { object: n.id.clone(), parent: p.clone(), line: n.line as usize });
    }
    for (path, r) in n.refs.iter().filter(|(_, r)| !exists(&r.target)) {
        problems.push(match r.role {
            RefRole::Parent => Problem::Orphan { object: n.id.clone(), parent: r.target.clone(), line: n.line as usize },
            RefRole::Other => {
                Problem::DanglingReference { object: n.id.clone(), path: path.to_string(), target: r.target.clone(), line: n.line as usize }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, parent: Option<&str>, refs: &[&str]) -> GraphNode {
        GraphNode {
            id: ObjectId::new(id),
            parent: None,
            refs: parent
                .map(|p| (PropPath::default(), Reference { target: ObjectId::new(p), role: RefRole::Parent }))
                .into_iter()
                .chain(refs.iter().map(|r| (PropPath::default(), Reference { target: ObjectId::new(*r), role: RefRole::Other })))
                .collect(),
            line: 1,
        }
    }

    #[test]
    fn finds_dangling_orphan_cycle() {
        let g = vec![node("a", None, &["zz"]), node("b", Some("nope"), &[]), node("c", Some("d"), &[]), node("d", Some("c"), &[])];
        let p = check(&g);
        assert!(p.iter().any(|p| matches!(p, Problem::DanglingReference { target, .. } if target.as_str() == "zz")));
        assert!(p.iter().any(|p| matches!(p, Problem::Orphan { parent, .. } if parent.as_str() == "nope")));
        assert!(p.iter().any(|p| matches!(p, Problem::Cycle { objects } if objects.len() == 2)));
    }

    #[test]
    fn clean_graph_has_no_problems() {
        let g = vec![node("a", None, &[]), node("b", Some("a"), &["a"])];
        assert!(check(&g).is_empty());
    }
}
