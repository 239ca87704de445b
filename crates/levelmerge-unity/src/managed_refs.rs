//! Objects a script holds by reference (`[SerializeReference]`, Unity 2021.2's layout): its
//! fields name each by a `rid` (`- rid: 5233093796304257304`), and the document's
//! `references.RefIds` holds one entry per `rid` (`- rid: …`, `type: …`, `data: …`). A merge
//! keeps the entries keyed by their `rid` ([`crate::identity`]), but one side can drop an entry
//! the other side's field starts to name: Unity then reads that field as empty. A `rid` that
//! names no entry is a problem; negative ones are Unity's empty references.

use levelmerge_core::model::ObjectId;
use levelmerge_core::Problem;
use rustc_hash::FxHashSet;

use crate::identity::managed_references;
use crate::parse::{UnityFile, YKind};

const RID: &str = "rid";

/// Every `rid` of a document's fields that names no entry of its `references.RefIds`: one
/// problem per document and `rid`, on the document's line.
pub fn managed_reference_problems(file: &UnityFile<'_>) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (doc, fields, entries) in managed_references(file) {
        // Each entry's own `rid` names it; the rest are uses.
        let own: FxHashSet<u32> = entries.iter().filter_map(|&e| file.get(e, RID)).collect();
        let held: FxHashSet<&str> = own.iter().map(|&n| file.text(file.nodes[n as usize].span).trim()).collect();
        let mut named: Vec<&str> = Vec::new();
        rids_used(file, fields, &own, &mut named);
        named.sort_unstable();
        named.dedup();
        for rid in named.into_iter().filter(|rid| !rid.starts_with('-') && !held.contains(rid)) {
            problems.push(Problem::DanglingReference {
                object: ObjectId::new(doc.file_id.to_string()),
                path: RID.to_owned(),
                target: ObjectId::new(rid),
                line: doc.line as usize,
            });
        }
    }
    problems
}

/// The values of the `rid` members inside `node`, but for the members in `own`.
fn rids_used<'s>(file: &UnityFile<'s>, node: u32, own: &FxHashSet<u32>, out: &mut Vec<&'s str>) {
    match file.nodes[node as usize].kind {
        YKind::Map | YKind::FlowMap => {
            for entry in file.entries_of(node) {
                if file.text(entry.key) == RID && !own.contains(&entry.value) {
                    out.push(file.text(file.nodes[entry.value as usize].span).trim());
                } else {
                    rids_used(file, entry.value, own, out);
                }
            }
        }
        YKind::Seq | YKind::FlowSeq => {
            for &item in file.items_of(node) {
                rids_used(file, item, own, out);
            }
        }
        YKind::Scalar => {}
    }
}
