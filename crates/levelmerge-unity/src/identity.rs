//! The identity of the items of a prefab instance's override lists, which Unity treats as keyed
//! sets rather than ordered lists:
//!
//! * `m_Modifications`: an override is identified by its `target` object and `propertyPath`;
//! * `m_RemovedComponents`, `m_RemovedGameObjects`: a set of references into the source prefab;
//! * `m_AddedGameObjects`, `m_AddedComponents`: identified by the local `addedObject`'s fileID.
//!
//! A tilemap's cells (`m_Tiles`, `m_AnimatedTiles`) are keyed by their place (`first`), and
//! the objects a script holds by reference (`[SerializeReference]`: `references.RefIds`) by
//! their `rid`.
//!
//! Keys are computed once per file, when it is parsed, so that lowering can borrow them; they
//! ignore how a flow map was wrapped over lines.
//!
//! Unity also writes one key twice in a mapping (a script field hiding an inherited one of the
//! same name): the second and later occurrences get an alias, so that each is matched with its
//! own counterpart in the other versions.

use rustc_hash::FxHashMap;

use crate::parse::{UnityDoc, UnityFile, YKind};

/// The lists whose items carry an identity, by the key that holds them.
const KEYED_LISTS: [&str; 8] = [
    "m_Modifications",
    "m_RemovedComponents",
    "m_RemovedGameObjects",
    "m_AddedGameObjects",
    "m_AddedComponents",
    "m_Tiles",
    "m_AnimatedTiles",
    "RefIds",
];

/// Whether `key` names a list of identified items that Unity keeps as a map, written `{}` when
/// empty (a tilemap's cells).
pub fn written_as_map(key: &str) -> bool {
    matches!(key, "m_Tiles" | "m_AnimatedTiles")
}

/// Whether `key` names a list of identified items.
pub fn is_keyed_list(key: &str) -> bool {
    KEYED_LISTS.contains(&key)
}

/// `fileID:guid` of a reference `{fileID: N, guid: G, type: T}` (guid empty for a local one).
fn reference_key(file: &UnityFile<'_>, node: u32) -> Option<String> {
    if file.nodes[node as usize].kind != YKind::FlowMap {
        return None;
    }
    let scalar = |k: &str| file.get(node, k).map(|v| file.text(file.nodes[v as usize].span).trim());
    Some(format!("{}:{}", scalar("fileID")?, scalar("guid").unwrap_or("")))
}

/// A scalar's text as it reads, whatever quotes an editor version put around it.
fn unquoted(text: &str) -> std::borrow::Cow<'_, str> {
    crate::scalar::read_as(text).unwrap_or(std::borrow::Cow::Borrowed(text.trim()))
}

/// The identity of one item of the list held by `list_key`.
fn item_key(file: &UnityFile<'_>, list_key: &str, item: u32) -> Option<String> {
    match list_key {
        "m_Modifications" => {
            let path = file.get(item, "propertyPath")?;
            let target = reference_key(file, file.get(item, "target")?)?;
            Some(format!("{target}|{}", unquoted(file.text(file.nodes[path as usize].span))))
        }
        // The object added, a local one: keyed by its bare fileID, as a list naming local
        // objects is, so that the entry stands or goes with the object it names.
        "m_AddedGameObjects" | "m_AddedComponents" => {
            let mut key = reference_key(file, file.get(item, "addedObject")?)?;
            if key.ends_with(':') {
                key.pop();
            }
            Some(key)
        }
        // A tilemap's cells, by their place (`first: {x: 0, y: 0, z: 0}`).
        "m_Tiles" | "m_AnimatedTiles" => {
            let place = file.text(file.nodes[file.get(item, "first")? as usize].span);
            Some(place.chars().filter(|c| !c.is_whitespace()).collect())
        }
        "RefIds" => Some(file.text(file.nodes[file.get(item, "rid")? as usize].span).trim().to_owned()),
        _ => reference_key(file, item),
    }
}

/// The class id of the documents whose script can hold objects by `[SerializeReference]`:
/// `MonoBehaviour` (a scene's scripts and a `ScriptableObject` asset alike).
const MONO_BEHAVIOUR_CLASS: i64 = 114;

/// The fields and the items of `references.RefIds` (the objects its script holds by
/// `[SerializeReference]`, Unity 2021.2's layout) of each document that has that list.
pub fn managed_references<'f>(file: &'f UnityFile<'_>) -> impl Iterator<Item = (&'f UnityDoc, u32, &'f [u32])> {
    file.docs.iter().filter(|d| d.class_id == MONO_BEHAVIOUR_CLASS).filter_map(|doc| {
        let fields = file.fields(doc)?;
        let list = file.get(fields, "references").and_then(|r| file.get(r, "RefIds"))?;
        Some((doc, fields, file.items_of(list)))
    })
}

/// The class id of the documents that hold override lists: `PrefabInstance`, and `Prefab`
/// before Unity 2018.3.
const PREFAB_INSTANCE_CLASS: i64 = 1001;

/// For every item of every keyed list in `file`, its identity (by item node).
pub fn item_keys(file: &UnityFile<'_>) -> FxHashMap<u32, String> {
    let mut keys = FxHashMap::default();
    for doc in file.docs.iter().filter(|d| d.class_id == crate::tilemap::TILEMAP_CLASS) {
        let Some(fields) = file.fields(doc) else { continue };
        for list_key in ["m_Tiles", "m_AnimatedTiles"] {
            let Some(list) = file.get(fields, list_key) else { continue };
            for &item in file.items_of(list) {
                if let Some(key) = item_key(file, list_key, item) {
                    keys.insert(item, key);
                }
            }
        }
    }
    for (_, _, items) in managed_references(file) {
        for &item in items {
            if let Some(key) = item_key(file, "RefIds", item) {
                keys.insert(item, key);
            }
        }
    }
    for doc in file.docs.iter().filter(|d| d.class_id == PREFAB_INSTANCE_CLASS) {
        let Some(modification) = file.fields(doc).and_then(|f| file.get(f, "m_Modification")) else { continue };
        for entry in file.entries_of(modification) {
            let list_key = file.text(entry.key);
            if !is_keyed_list(list_key) {
                continue;
            }
            for &item in file.items_of(entry.value) {
                if let Some(key) = item_key(file, list_key, item) {
                    keys.insert(item, key);
                }
            }
        }
    }
    keys
}

/// For every entry whose key already appeared in its mapping, an alias (`key`, a U+0001 and the
/// occurrence number), by entry index.
pub fn key_aliases(file: &UnityFile<'_>) -> FxHashMap<u32, String> {
    let mut aliases = FxHashMap::default();
    let mut keys: Vec<(&str, u32)> = Vec::new(); // reused: this runs over every parsed mapping
    for node in file.nodes.iter().filter(|n| matches!(n.kind, YKind::Map | YKind::FlowMap) && n.count > 1) {
        keys.clear();
        keys.extend((node.first..node.first + node.count).map(|i| (file.text(file.entries[i as usize].key), i)));
        keys.sort_unstable();
        for w in 1..keys.len() {
            if keys[w].0 == keys[w - 1].0 {
                let occurrence = keys[..w].iter().rev().take_while(|k| k.0 == keys[w].0).count() + 1;
                aliases.insert(keys[w].1, levelmerge_core::model::repeated_key(keys[w].0, occurrence));
            }
        }
    }
    aliases
}
