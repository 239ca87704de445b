//! How a JSON level looks to people. Most editors' files nest their objects as people see
//! them ([`Outline::generic`]); a Cocos file is a flat array, shown as the editor's hierarchy:
//! nodes under the scene (or the prefab's asset), which stands for the file itself, and every
//! other element (a component, its prefab info, a button's click event) within the node it
//! belongs to.

use levelmerge_core::model::{Level, ObjectId};
use levelmerge_core::outline::{Outline, Place};

use crate::lower::ROOT_ID;

/// The outline of a JSON level.
pub fn outline(level: &Level<'_>) -> Outline {
    cocos(level).unwrap_or_else(|| Outline::generic(level))
}

/// A Cocos file's outline; `None` for any other file.
fn cocos(level: &Level<'_>) -> Option<Outline> {
    // The identity form names the array's first element, the asset, `root`.
    let asset = ObjectId::new(format!("{ROOT_ID}[root]"));
    if !level.get(&asset)?.kind.starts_with("cc.") {
        return None;
    }
    let mut outline = Outline::generic(level);
    let scene = level.objects.values().find(|o| o.kind == "cc.Scene" && level.effective_parent(o).as_ref() == Some(&asset));
    let shown_as_file = scene.map_or(asset.clone(), |s| s.id.clone());
    // What hangs under the document itself (the asset above a scene, an element nothing
    // refers to) is shown as the file.
    let within = |id: Option<ObjectId>| match id {
        Some(id) if id.as_str() != ROOT_ID => id,
        _ => shown_as_file.clone(),
    };
    for obj in level.objects.values() {
        let owner = if obj.id.as_str() == ROOT_ID || (obj.id == asset && obj.id != shown_as_file) {
            shown_as_file.clone()
        } else if obj.kind != "cc.Node" && obj.id != shown_as_file {
            within(level.effective_parent(obj))
        } else {
            continue;
        };
        outline.set(obj.id.clone(), Place { owner: Some(owner), ..Place::default() });
    }
    outline.set_root(shown_as_file);
    Some(outline)
}
