//! How a Unity scene looks in the editor's Hierarchy: game objects by `m_Name`, nested by their
//! transforms' `m_Father`; every component is shown within its game object.

use levelmerge_core::model::{Level, Object, ObjectId, Value, ValueKind};
use levelmerge_core::outline::{unquote, Outline, Place};
use rustc_hash::FxHashMap;

use crate::lower::{field_line, TRANSFORMS};

/// The outline of a Unity level. Documents lowered opaquely keep only their links, so names and
/// `m_GameObject` are read off their lines.
pub fn outline(level: &Level<'_>) -> Outline {
    let mut outline = Outline::empty(level);
    let mut transform_of: FxHashMap<ObjectId, ObjectId> = FxHashMap::default();
    let mut owners: FxHashMap<ObjectId, ObjectId> = FxHashMap::default();
    for obj in level.objects.values() {
        // A stripped object stands for one inside a prefab instance: it is shown there.
        let owner = if obj.kind == "GameObject" { None } else { reference(obj, "m_GameObject") };
        if let Some(owner) = owner.or_else(|| reference(obj, "m_PrefabInstance")) {
            if TRANSFORMS.contains(&obj.kind.as_str()) {
                transform_of.insert(owner.clone(), obj.id.clone());
            }
            owners.insert(obj.id.clone(), owner);
        }
    }
    for obj in level.objects.values() {
        let place = if let Some(owner) = owners.get(&obj.id).filter(|_| obj.kind == "GameObject") {
            Place { owner: Some(owner.clone()), ..Place::default() }
        } else if obj.kind == "GameObject" {
            let father = transform_of.get(&obj.id).and_then(|t| level.get(t)).and_then(|t| reference(t, "m_Father"));
            let parent = father.and_then(|f| owners.get(&f).cloned());
            Place { name: text(obj, "m_Name"), parent, ..Place::default() }
        } else if obj.kind == "PrefabInstance" {
            // Named by its `m_Name` override, placed under its `m_TransformParent`'s object.
            let parent = reference_line(obj.props.raw, "m_TransformParent").and_then(|t| owners.get(&t).cloned());
            Place { name: overridden_name(obj.props.raw), parent, ..Place::default() }
        } else {
            let owner = owners.get(&obj.id).cloned();
            Place { name: owner.is_none().then(|| text(obj, "m_Name")).flatten(), owner, ..Place::default() }
        };
        outline.set(obj.id.clone(), place);
    }
    outline
}

/// How deep a hierarchy is climbed: deeper is a cycle or a damaged file.
const MAX_DEPTH: usize = 256;

/// The hierarchy paths of some objects of a Unity file, as [`outline`] names them, read off
/// the lines of the documents on the way up (a component's game object, its transform's
/// father's game object, …) without reading the rest: for naming conflicts found in documents
/// merged alone. `None` for an object the file does not have, or whose way up leaves the
/// simple case (a father inside a prefab instance).
pub fn object_paths(src: &[u8], ids: &[&str]) -> Vec<Option<Vec<String>>> {
    let docs = crate::parse::documents_by_id(src);
    let doc = |id: &ObjectId| -> Option<&str> { std::str::from_utf8(docs.get(&id.as_str().parse::<i64>().ok()?)?).ok() };
    let path = |id: &str| -> Option<Vec<String>> {
        let id = ObjectId::new(id.to_owned());
        let text = doc(&id)?;
        let mut game_object = if text.starts_with("--- !u!1 ") { id } else { local_id(field_line(text, "m_GameObject")?)? };
        let mut names = Vec::new();
        for _ in 0..MAX_DEPTH {
            let text = doc(&game_object)?;
            let name = field_line(text, "m_Name").map(|n| unquote(n.trim())).filter(|n| !n.is_empty());
            names.push(name.map_or_else(|| format!("GameObject {game_object}"), str::to_owned));
            // Unity lists a game object's transform first among its components (`- component:
            // {fileID: N}`, or `- 4: {fileID: N}` before Unity 2018).
            let mut lines = text.lines().skip_while(|l| *l != "  m_Component:");
            let first = lines.nth(1)?.trim_start().strip_prefix("- ")?;
            let transform = local_id(first.split_once(": ")?.1)?;
            match local_id(field_line(doc(&transform)?, "m_Father")?) {
                Some(father) => game_object = local_id(field_line(doc(&father)?, "m_GameObject")?)?,
                None => {
                    names.reverse();
                    return Some(names);
                }
            }
        }
        None
    };
    // Conflicts name one object many times (a prefab instance's overrides): each path is
    // read once, not once per conflict through a large document.
    let mut read: FxHashMap<&str, Option<Vec<String>>> = FxHashMap::default();
    ids.iter().map(|id| read.entry(id).or_insert_with(|| path(id)).clone()).collect()
}

/// A document's top-level field (the document's value is `{Class: {field: …}}`).
fn field<'v, 'a>(obj: &'v Object<'a>, key: &str) -> Option<&'v Value<'a>> {
    obj.props.get(&obj.kind)?.get(key)
}

/// The local object a top-level field refers to.
fn reference(obj: &Object<'_>, key: &str) -> Option<ObjectId> {
    if let Some(v) = field(obj, key) {
        if let ValueKind::Scalar { reference: Some(r) } = &v.kind {
            return Some(r.target.clone());
        }
    }
    local_id(field_line(obj.props.raw, key)?)
}

/// The local object `{fileID: N}` names (an external one, with a guid, names another file's).
pub(crate) fn local_id(text: &str) -> Option<ObjectId> {
    let id = text.strip_prefix("{fileID: ")?.split(['}', ',']).next()?.trim().parse::<i64>().ok().filter(|&id| id != 0)?;
    (!text.contains("guid:")).then(|| ObjectId::new(id.to_string()))
}

/// A reference on a line `key: {fileID: N}` at any depth of a document.
fn reference_line(raw: &str, key: &str) -> Option<ObjectId> {
    raw.lines().find_map(|l| l.trim_start().strip_prefix(key)?.strip_prefix(": ")).and_then(|v| local_id(v.trim_end()))
}

/// The `m_Name` a prefab instance overrides (`propertyPath: m_Name`, then `value: …`).
pub(crate) fn overridden_name(raw: &str) -> Option<String> {
    let mut lines = raw.lines().map(str::trim);
    lines.find(|l| *l == "propertyPath: m_Name")?;
    let value = lines.next()?.strip_prefix("value:")?.trim();
    (!value.is_empty()).then(|| unquote(value).to_owned())
}

/// A top-level scalar field's text, unquoted.
fn text(obj: &Object<'_>, key: &str) -> Option<String> {
    let raw = match field(obj, key) {
        Some(v) if matches!(v.kind, ValueKind::Scalar { .. }) => v.raw,
        Some(_) => return None,
        None => field_line(obj.props.raw, key)?,
    };
    let unquoted = unquote(raw.trim());
    (!unquoted.is_empty()).then(|| unquoted.to_owned())
}
