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
/// the object that stands for the file is the file (`(file)`), and one without a name, shown
/// by its kind and id, is not given its kind twice (`RenderSettings 2`).
pub fn object_text(path: &[String], kind: &str) -> String {
    let kind_shown = path.last().is_some_and(|last| last.strip_prefix(kind).is_some_and(|rest| rest.starts_with(' ')));
    if path.is_empty() || kind_shown {
        path_text(path)
    } else {
        format!("{} [{kind}]", path_text(path))
    }
}

/// The parts added with (or removed with) an object: `Transform, BoxCollider`.
pub fn parts_listed(object: &ObjectChanges) -> Vec<&str> {
    object.entries.iter().filter(|e| e.part).map(|e| e.kind.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_named_by_path_and_kind_once() {
        let path = |p: &[&str]| p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(object_text(&path(&["Level", "Door"]), "GameObject"), "Level/Door [GameObject]");
        assert_eq!(object_text(&path(&[]), "document"), "(file)");
        assert_eq!(object_text(&path(&["RenderSettings 2"]), "RenderSettings"), "RenderSettings 2");
        assert_eq!(object_text(&path(&["StyleBoxFlat sub:1"]), "sub_resource"), "StyleBoxFlat sub:1 [sub_resource]");
        assert_eq!(object_text(&path(&["Lights"]), "Light"), "Lights [Light]", "a name that only starts with the kind");
    }
}
