//! `levelmerge diff --json`: the diff as data for tools and review bots. The schema is
//! documented in `docs/diff-json.md`; [`SCHEMA_VERSION`] changes whenever a field changes
//! meaning or goes away (new fields may be added within a version).

use levelmerge_core::diff::{DiffReport, Edit, Entry};
use serde_json::{json, Value};

pub const SCHEMA_VERSION: u32 = 2;

/// The semantic diff of `format` files.
pub fn semantic(report: &DiffReport, format: &str) -> Value {
    let stat = report.stat();
    let sum = |f: fn(&levelmerge_core::diff::KindCount) -> usize| stat.iter().map(f).sum::<usize>();
    let objects: Vec<Value> = report
        .objects
        .iter()
        .map(|o| {
            json!({
                "id": o.id.as_str(),
                "kind": o.kind,
                "path": o.path,
                "status": o.status.name(),
                "changes": o.entries.iter().map(entry).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "version": SCHEMA_VERSION,
        "format": format,
        "mode": "semantic",
        "summary": {"objects": report.objects.len(), "added": sum(|c| c.added), "removed": sum(|c| c.removed), "changed": sum(|c| c.changed)},
        "stat": stat.iter().map(|c| json!({"kind": c.kind, "added": c.added, "removed": c.removed, "changed": c.changed})).collect::<Vec<_>>(),
        "objects": objects,
    })
}

/// Files that could not be read as their format, compared line by line.
pub fn lines(format: &str, unified: &str) -> Value {
    json!({ "version": SCHEMA_VERSION, "format": format, "mode": "lines", "unified": unified })
}

fn entry(e: &Entry) -> Value {
    let mut v = json!({ "object": e.object.as_str(), "kind": e.kind, "part": e.part });
    let fields = match &e.edit {
        Edit::Added => json!({"change": "added"}),
        Edit::Removed => json!({"change": "removed"}),
        Edit::Moved { from, to } => json!({"change": "moved", "from": from, "to": to}),
        Edit::Modified { old, new, targets: [from, to], .. } => {
            json!({"change": "modified", "property": e.property(), "old": old, "new": new, "old_object": from, "new_object": to})
        }
        Edit::Reordered { .. } => json!({"change": "reordered", "property": e.property()}),
    };
    if let (Some(map), Value::Object(extra)) = (v.as_object_mut(), fields) {
        map.extend(extra);
    }
    v
}
