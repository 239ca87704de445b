//! What each JSON level editor's files need beyond the generic rules, recognised from the
//! file's content (Cocos also writes `.prefab`, Tiled and GDevelop plain `.json`):
//!
//! * **LDtk**: `nextUid` is a counter (the larger wins; definitions and levels both sides
//!   added under one uid are renumbered in theirs, unless both added one of a name); a tileset's `cachedPixelData` is a
//!   cache LDtk rebuilds from the image (volatile); levels, layers and entities are keyed
//!   by `iid` and definitions by `uid` (the generic id keys); field instances by `defUid`;
//!   `realEditorValues` by position (their `"id": "V_String"` names a kind).
//! * **Tiled**: `nextobjectid` and `nextlayerid` are counters; custom `properties` are keyed by
//!   `name`; objects and layers both sides added under one id are renumbered in theirs;
//!   `editorsettings` (the saving user's export target and chunk size) is volatile.
//! * **GDevelop**: objects, layouts, layers, variables, behaviours, resources, groups and
//!   functions are keyed by `name`, instances by `persistentUuid`; the editor's view state
//!   (`uiSettings`) and the saving machine's `projectFile` path are volatile.
//! * **Ogmo 3**: layers are keyed by `_eid`; entities by their `id` (their `_eid` names their
//!   definition, shared by every instance).
//! * **Cocos Creator**: references are array positions; the file is merged in an identity
//!   form ([`crate::cocos`]) whose elements are keyed by their identity and whose reference
//!   lists (`_children`, `_components`) by the identity they name. Volatile: the scene node's
//!   `_scale` (the editor's zoom: in the corpus it changes on nearly every save, to ratios of
//!   the view to the design size such as 626/960), a label's `_actualFontSize` (computed from
//!   its text and box), the `_id` an editor upgrade gives each component (random), and the
//!   low 16 bits of a node's `_localZOrder` (an order of arrival the engine deals out again on
//!   load; the zIndex above them is not volatile).
//!
//! A user's `.levelmerge.toml` rules come first; the profile's collections come after the
//! configured ones.

use levelmerge_core::policy::{Rule, RuleAction};

use crate::renumber::{IdSpace, References, TypedReference};
use crate::Collection;

/// A level editor whose JSON files have rules of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Ldtk,
    Tiled,
    GDevelop,
    Ogmo,
    Cocos,
}

/// Marker texts, each sufficient to recognise an editor's file.
const MARKERS: [(Profile, &[&str]); 5] = [
    (Profile::Ldtk, &["\"__header__\"", "\"jsonVersion\""]),
    (Profile::Ogmo, &["\"ogmoVersion\""]),
    (Profile::Tiled, &["\"tiledversion\"", "\"nextobjectid\""]),
    (Profile::GDevelop, &["\"gdVersion\"", "\"persistentUuid\"", "\"uiSettings\"", "\"BuiltinCommonInstructions::"]),
    (Profile::Cocos, &["\"cc.SceneAsset\"", "\"cc.Prefab\""]),
];

impl Profile {
    /// The editor that wrote `text`, if it is one of those with a profile.
    pub fn detect(text: &[u8]) -> Option<Profile> {
        Self::detect_one(text)
    }

    /// The editor that wrote the versions of one file (the same answer in whatever order they
    /// come, so that every version is read the same way).
    pub fn detect_among(texts: &[&[u8]]) -> Option<Profile> {
        Self::first(texts.iter().map(|t| Self::detect_one(t)))
    }

    /// Of the editors found in several versions, the one every version agrees on: the first in
    /// marker order.
    pub fn first(found: impl IntoIterator<Item = Option<Profile>>) -> Option<Profile> {
        found.into_iter().flatten().min_by_key(|p| MARKERS.iter().position(|(m, _)| m == p))
    }

    fn detect_one(text: &[u8]) -> Option<Profile> {
        let has = |m: &str| memchr::memmem::find(text, m.as_bytes()).is_some();
        MARKERS.iter().find(|(_, markers)| markers.iter().any(|m| has(m))).map(|(p, _)| *p)
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Ldtk => "ldtk",
            Profile::Tiled => "tiled",
            Profile::GDevelop => "gdevelop",
            Profile::Ogmo => "ogmo",
            Profile::Cocos => "cocos",
        }
    }

    /// The property rules the editor's files need.
    pub fn rules(self) -> Vec<Rule> {
        let rule = |pattern: &str, action| Rule { pattern: pattern.to_owned(), action };
        match self {
            Profile::Ldtk => vec![rule("nextUid", RuleAction::Max), rule("cachedPixelData*", RuleAction::Ignore)],
            Profile::Tiled => vec![
                rule("nextobjectid", RuleAction::Max),
                rule("nextlayerid", RuleAction::Max),
                // The saving user's export target and chunk size: editor state, not the map.
                rule("editorsettings*", RuleAction::Ignore),
            ],
            Profile::GDevelop => vec![rule("uiSettings.*", RuleAction::Ignore), rule("properties.projectFile", RuleAction::Ignore)],
            Profile::Ogmo => Vec::new(),
            Profile::Cocos => vec![
                rule("cc.Scene._scale*", RuleAction::Ignore),
                rule("_actualFontSize", RuleAction::Ignore),
                rule("_id", RuleAction::Ignore),
                // Written by Creator 2.0 (later ones do not save it): the zIndex above 16 bits
                // of an order of arrival that the engine deals out again when it loads the scene.
                rule("_localZOrder", RuleAction::IgnoreLowBits(16)),
            ],
        }
    }

    /// Ids the editor hands out from a counter in the file, renumbered when both sides add
    /// different objects under one ([`crate::renumber`]).
    pub fn id_spaces(self) -> Vec<IdSpace> {
        match self {
            Profile::Tiled => vec![
                IdSpace {
                    what: "object",
                    // Map objects, in layers and groups (a tileset's collision shapes count apart).
                    arrays: |path| {
                        path.starts_with("layers") && path.ends_with(".objects") && path.split('.').rev().skip(1).all(|s| s == "layers")
                    },
                    key: "id",
                    counter: "nextobjectid",
                    references: References::Typed(TypedReference { type_member: "type", type_value: "object", value_member: "value" }),
                    name: None,
                    per_array: false,
                },
                IdSpace {
                    what: "layer",
                    arrays: |path| path.split('.').all(|s| s == "layers"),
                    key: "id",
                    counter: "nextlayerid",
                    references: References::None,
                    name: None,
                    per_array: false,
                },
            ],
            Profile::Ldtk => vec![IdSpace {
                what: "uid",
                // Definitions and levels. Auto-layer rules are left out: the tiles they laid
                // name them inside `d` arrays, which renumbering does not rewrite.
                arrays: |path| {
                    matches!(
                        path,
                        "defs.layers"
                            | "defs.entities"
                            | "defs.entities.fieldDefs"
                            | "defs.tilesets"
                            | "defs.enums"
                            | "defs.externalEnums"
                            | "defs.levelFields"
                            | "levels"
                            | "worlds.levels"
                    )
                },
                key: "uid",
                counter: "nextUid",
                // `defUid`, `layerDefUid`, `tilesetUid`, …, a layer's `levelId`, and an enum
                // field's type `F_Enum(uid)`.
                references: References::Named { member: |name| name.ends_with("Uid") || name == "levelId", wrapper: Some("F_Enum") },
                name: Some("identifier"),
                per_array: true,
            }],
            _ => Vec::new(),
        }
    }

    /// Members naming another object by its id, declared when the three versions of a file do
    /// not hold the same ids (see [`Profile::ids_differ`]).
    /// LDtk: an entity instance's `defUid` names its definition, a layer instance's
    /// `layerDefUid` its layer, `tilesetDefUid` a tileset, `autoSourceLayerDefUid` the layer an
    /// auto-layer reads. A merge then sees one side start to use a definition the other deleted
    /// (a conflict), never writes an instance of a definition that is gone.
    pub fn reference_keys(self) -> &'static [&'static str] {
        match self {
            Profile::Ldtk => &["defUid", "layerDefUid", "tilesetDefUid", "autoSourceLayerDefUid"],
            _ => &[],
        }
    }

    /// Whether the versions' ids (LDtk's `uid`s) differ: some object was added or deleted
    /// where references point. Where they are the same, no merge can leave a reference without
    /// its object, and the file is read without following references (parts all versions hold
    /// alike stay unread).
    pub fn ids_differ(self, texts: [&[u8]; 3]) -> bool {
        if self.reference_keys().is_empty() {
            return false;
        }
        fn uids(text: &[u8]) -> Vec<&[u8]> {
            let finder = memchr::memmem::Finder::new(b"\"uid\":");
            let mut found: Vec<&[u8]> = finder
                .find_iter(text)
                .map(|at| {
                    let rest = &text[at + 6..];
                    let start = rest.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(rest.len());
                    let len = rest[start..].iter().take_while(|b| b.is_ascii_digit() || **b == b'-').count();
                    &rest[start..start + len]
                })
                .collect();
            found.sort_unstable();
            found
        }
        let base = uids(texts[0]);
        texts[1..].iter().any(|t| uids(t) != base)
    }

    /// Identity keys for the editor's arrays (path globs as in [`Collection`]).
    pub fn collections(self) -> Vec<Collection> {
        let keyed = |paths: &[&str], key: &str| paths.iter().map(|p| Collection::new(p, key)).collect::<Vec<_>>();
        match self {
            Profile::Ldtk => [keyed(&["*fieldInstances"], "defUid"), keyed(&["*realEditorValues"], "")].concat(),
            Profile::Tiled => keyed(&["*properties"], "name"),
            Profile::GDevelop => [
                keyed(&["*instances"], "persistentUuid"),
                keyed(
                    &[
                        "*objects",
                        "*layouts",
                        "*layers",
                        "*variables",
                        "*behaviors",
                        "*effects",
                        "resources.resources",
                        "*objectsGroups",
                        "*eventsFunctions",
                        "*eventsBasedBehaviors",
                        "*eventsFunctionsExtensions",
                        "*externalEvents",
                        "*externalLayouts",
                        "*parameters",
                    ],
                    "name",
                ),
            ]
            .concat(),
            Profile::Ogmo => keyed(&["layers"], "_eid"),
            Profile::Cocos => vec![Collection::new("", crate::cocos::IDENTITY_MEMBER), Collection::new("*", "__id__")],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editors_are_recognised_by_content() {
        assert_eq!(Profile::detect(b"{\"__header__\": {\"app\": \"LDtk\"}}"), Some(Profile::Ldtk));
        assert_eq!(Profile::detect(b"{\"height\":10, \"tiledversion\":\"1.10\"}"), Some(Profile::Tiled));
        assert_eq!(Profile::detect(b"{\"instances\": [{\"persistentUuid\": \"a\"}]}"), Some(Profile::GDevelop));
        assert_eq!(Profile::detect(b"{\"ogmoVersion\": \"3.4\"}"), Some(Profile::Ogmo));
        assert_eq!(Profile::detect(b"[{\"__type__\": \"cc.SceneAsset\"}]"), Some(Profile::Cocos));
        assert_eq!(Profile::detect(b"[{\"__type__\": \"cc.PrefabInfo\"}]"), None);
        assert_eq!(Profile::detect(b"{\"entities\": [{\"id\": 1}]}"), None);
    }
}
