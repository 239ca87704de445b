//! The renderers of a semantic diff: terminal text, `--stat`, JSON and a self-contained HTML
//! page. All of them show one [`DiffReport`](levelmerge_core::diff::DiffReport).

pub mod html;
pub mod json;
pub mod text;

use levelmerge_core::diff::ObjectChanges;

/// An object's hierarchy path as shown: names joined by `/`; the file itself when it has none.
pub fn path_text(path: &[String]) -> String {
    if path.is_empty() {
        "(file)".to_owned()
    } else {
        path.join("/")
    }
}

/// An object as messages name it: its hierarchy path and kind (`Level/Props/Door_12 [GameObject]`);
/// the object that stands for the file is the file (`(file)`).
pub fn object_text(path: &[String], kind: &str) -> String {
    if path.is_empty() {
        path_text(path)
    } else {
        format!("{} [{kind}]", path_text(path))
    }
}

/// The parts added with (or removed with) an object: `Transform, BoxCollider`.
pub fn parts_listed(object: &ObjectChanges) -> Vec<&str> {
    object.entries.iter().filter(|e| e.part).map(|e| e.kind.as_str()).collect()
}
