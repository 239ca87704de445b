//! What each JSON level editor's files need beyond the generic rules, recognised from the
//! file's content (Cocos also writes `.prefab`, Tiled and GDevelop plain `.json`):
//!
//! * **LDtk**: `nextUid` is a counter (the larger wins; definitions and levels both sides
//!   added under one uid are renumbered in theirs, unless both added one of a name); a tileset's `cachedPixelData` is a
//!   cache LDtk rebuilds from the image (volatile); levels, layers and entities are keyed
//!   by `iid` and definitions by `uid` (the generic id keys); field instances by `defUid`;
//!   `realEditorValues` by position (their `"id": "V_String"` names a kind); tiles by their
//!   `px` (stacked ones by their order at it); a tileset's `customData` by `tileId` and its
//!   `enumTags` by `enumValueId`.
//! * **Tiled**: objects and layers are numbered across the map and keep their number when
//!   moved to another layer or group (one object, wherever it lies);
//!   `nextobjectid` and `nextlayerid` are counters; custom `properties` are keyed by
//!   `name`; objects and layers both sides added under one id are renumbered in theirs; a
//!   map's tilesets are keyed by `firstgid` (new ones both sides added at one are told apart,
//!   [`crate::tile_gids`]), wang tiles by `tileid`, an infinite map's chunks by `x,y`;
//!   `editorsettings` (the saving user's export target and chunk size) is volatile; a property
//!   of type `object` names a map object (followed where a side deleted one).
//! * **GDevelop**: objects, layouts, layers, variables, behaviours, resources, groups and
//!   functions are keyed by `name`, instances by `persistentUuid`; the editor's view state
//!   (`uiSettings`) and the saving machine's `projectFile` path are volatile; a placed
//!   instance names its object and its layer (followed where a side deleted one).
//! * **Ogmo 3**: layers are keyed by `_eid`; entities by their `id` (their `_eid` names their
//!   definition, shared by every instance), unique in their layer: entities both sides added
//!   to a layer under one id are renumbered in theirs.
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
use levelmerge_core::Sides;
use rustc_hash::FxHashMap;

use crate::renumber::{IdSpace, References, TypedReference};
use crate::Collection;

/// A Tiled custom property of type `object`: its `value` is the id of a map object.
const TILED_OBJECT_PROPERTY: TypedReference = TypedReference { type_member: "type", type_value: "object", value_member: "value" };

/// A member naming another object of the file by its identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedReference {
    /// The member holding the identity.
    pub member: &'static str,
    /// Which objects hold such a member.
    pub holder: Holder,
    /// The arrays (by member name) holding the objects it names.
    pub targets: &'static str,
}

/// The objects a [`NamedReference`] is found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// Objects whose `member` reads `value` (a Tiled property of type `object`).
    Typed { member: &'static str, value: &'static str },
    /// The elements of arrays of this name (GDevelop's placed `instances`).
    InArray(&'static str),
    /// Any object holding the member (LDtk's `entityIid`, a name nothing else uses).
    Anywhere,
}

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
        // Cocos writes a scene as an array, the other editors write an object: only the
        // editors of the root's kind are looked for. A Cocos scene is then not searched whole
        // for every other editor's markers, and a label of one that reads like such a marker
        // does not make it another editor's file.
        let array = text.strip_prefix(levelmerge_core::text::BOM).unwrap_or(text).trim_ascii_start().starts_with(b"[");
        let has = |m: &str| memchr::memmem::find(text, m.as_bytes()).is_some();
        MARKERS.iter().filter(|(p, _)| (*p == Profile::Cocos) == array).find(|(_, markers)| markers.iter().any(|m| has(m))).map(|(p, _)| *p)
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
                    counter: Some("nextobjectid"),
                    references: References::Typed(TILED_OBJECT_PROPERTY),
                    name: None,
                    per_array: false,
                    scope: None,
                },
                IdSpace {
                    what: "layer",
                    arrays: |path| path.split('.').all(|s| s == "layers"),
                    key: "id",
                    counter: Some("nextlayerid"),
                    references: References::None,
                    name: None,
                    per_array: false,
                    scope: None,
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
                counter: Some("nextUid"),
                // `defUid`, `layerDefUid`, `tilesetUid`, …, a layer's `levelId`, and an enum
                // field's type `F_Enum(uid)`.
                references: References::Named { member: |name| name.ends_with("Uid") || name == "levelId", wrapper: Some("F_Enum") },
                name: Some("identifier"),
                per_array: true,
                scope: None,
            }],
            // An entity's id is unique in its layer, where the editor gives a new one the next
            // above the highest. No entity value names another.
            Profile::Ogmo => vec![IdSpace {
                what: "entity id",
                arrays: |path| path == "layers.entities",
                key: "id",
                counter: None,
                references: References::None,
                name: None,
                per_array: false,
                scope: Some("_eid"),
            }],
            _ => Vec::new(),
        }
    }

    /// Members naming another object by its id, declared when a side deleted ids (see
    /// [`Profile::references_may_dangle`]).
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

    /// Members naming another object by its identity where a condition holds, declared when
    /// a side deleted identities ([`Profile::references_may_dangle`]). Tiled: a custom property of type
    /// `object` names a map object. GDevelop: a placed instance names its object and its
    /// layer. LDtk: an entity reference field names an entity by its `iid`, a level's
    /// `__neighbours` entry a level. A merge then sees one side start to name an object the other deleted (a
    /// conflict), never writes a reference to an object that is gone.
    pub fn named_references(self) -> &'static [NamedReference] {
        const TILED: [NamedReference; 1] = [NamedReference {
            member: TILED_OBJECT_PROPERTY.value_member,
            holder: Holder::Typed { member: TILED_OBJECT_PROPERTY.type_member, value: TILED_OBJECT_PROPERTY.type_value },
            targets: "objects",
        }];
        const GDEVELOP: [NamedReference; 2] = [
            NamedReference { member: "name", holder: Holder::InArray("instances"), targets: "objects" },
            NamedReference { member: "layer", holder: Holder::InArray("instances"), targets: "layers" },
        ];
        // An entity reference field's value: `{"entityIid": …, "layerIid": …, "levelIid": …}`.
        // A level's `__neighbours` entry names a level by its `iid`.
        const LDTK: [NamedReference; 2] = [
            NamedReference { member: "entityIid", holder: Holder::Anywhere, targets: "entityInstances" },
            NamedReference { member: "levelIid", holder: Holder::InArray("__neighbours"), targets: "levels" },
        ];
        match self {
            Profile::Ldtk => &LDTK,
            Profile::Tiled => &TILED,
            Profile::GDevelop => &GDEVELOP,
            _ => &[],
        }
    }

    /// The members holding the identities references name: LDtk's `uid` (definitions) and
    /// `iid` (entities), Tiled's `id`, GDevelop's `name`.
    fn referenced_id_keys(self) -> &'static [&'static str] {
        match self {
            Profile::Ldtk => &["uid", "iid"],
            Profile::Tiled => &["id"],
            Profile::GDevelop => &["name"],
            _ => &[],
        }
    }

    /// Whether a merge may leave a reference without its object: a side deleted an identity
    /// (an LDtk `uid` or `iid`, a Tiled `id`, a GDevelop `name`) base holds, or changed what a
    /// reference member holds. Otherwise the file is read without following references (parts
    /// all versions hold alike stay unread).
    pub fn references_may_dangle(self, texts: Sides<&[u8]>) -> bool {
        // Counted: one number can be the id of a layer and of an object.
        fn ids<'t>(text: &'t [u8], member: &[u8]) -> FxHashMap<&'t [u8], usize> {
            let mut counts = FxHashMap::default();
            for at in memchr::memmem::find_iter(text, member) {
                let rest = &text[at + member.len()..];
                let start = rest.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(rest.len());
                let value = &rest[start..];
                // A number, or a string to its closing quote.
                let len = match value.first() {
                    Some(b'"') => value[1..].iter().position(|&b| b == b'"').map_or(value.len(), |end| end + 2),
                    _ => value.iter().take_while(|b| b.is_ascii_digit() || **b == b'-').count(),
                };
                *counts.entry(&value[..len]).or_default() += 1;
            }
            counts
        }
        let deleted = self.referenced_id_keys().iter().any(|key| {
            let member = format!("\"{key}\":");
            let base = ids(texts.base, member.as_bytes());
            [texts.ours, texts.theirs].iter().any(|t| {
                let side = ids(t, member.as_bytes());
                base.iter().any(|(id, n)| side.get(id).is_none_or(|m| m < n))
            })
        });
        // A number can leave one kind of object for another (theirs deletes object 2 and adds
        // layer 2): the count stays. A side that changed what a reference member holds (a
        // Tiled property's `value`, an `entityIid`) may name what the other deleted, so its
        // references are followed too. Not GDevelop's instance names: every instance has one.
        let renamed = || {
            self.named_references().iter().filter(|r| !matches!(r.holder, Holder::InArray(_))).any(|r| {
                let member = format!("\"{}\":", r.member);
                let base = ids(texts.base, member.as_bytes());
                [texts.ours, texts.theirs].iter().any(|t| ids(t, member.as_bytes()) != base)
            })
        };
        deleted || renamed()
    }

    /// Identity keys for the editor's arrays (path globs as in [`Collection`]).
    pub fn collections(self) -> Vec<Collection> {
        let keyed = |paths: &[&str], key: &str| paths.iter().map(|p| Collection::new(p, key)).collect::<Vec<_>>();
        match self {
            Profile::Ldtk => [
                keyed(&["*fieldInstances"], "defUid"),
                keyed(&["*realEditorValues"], ""),
                keyed(&["*gridTiles", "*autoLayerTiles"], "px"),
                // A tileset's data and tags per tile, and per enum value.
                keyed(&["*customData"], "tileId"),
                keyed(&["*enumTags"], "enumValueId"),
                // A level's neighbours, each by the level it touches.
                keyed(&["*__neighbours"], "levelIid"),
            ]
            .concat(),
            Profile::Tiled => [
                keyed(&["*properties"], "name"),
                // A map's tilesets by the first tile id (gid) each owns in the map's tile data:
                // two tilesets added at one gid on two sides are a conflict, never two owners
                // of the same tiles.
                keyed(&["tilesets"], "firstgid"),
                keyed(&["*wangtiles"], "tileid"),
                // An infinite map's chunks by where they stand.
                keyed(&["*chunks"], "x,y"),
            ]
            .concat(),
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
    fn references_are_followed_only_where_a_side_deleted_an_id() {
        let base: &[u8] = br#"{"defs": {"entities": [{"uid": 8}, {"uid": 9}]}}"#;
        let added: &[u8] = br#"{"defs": {"entities": [{"uid": 8}, {"uid": 9}, {"uid": 10}]}}"#;
        let deleted: &[u8] = br#"{"defs": {"entities": [{"uid":  9}]}}"#;
        assert!(!Profile::Ldtk.references_may_dangle(Sides::new(base, added, base)), "an added uid leaves every reference whole");
        assert!(Profile::Ldtk.references_may_dangle(Sides::new(base, base, deleted)));
        assert!(!Profile::Ldtk.references_may_dangle(Sides::new(deleted, base, base)), "base's uids are all kept");
        assert!(
            !Profile::GDevelop.references_may_dangle(Sides::new(base, base, deleted)),
            "GDevelop's references name objects by `name`, not `uid`"
        );
        let objects: &[u8] = br#"{"layers": [{"id": 1, "objects": [{"id": 4}, {"id": 5}]}]}"#;
        let one_gone: &[u8] = br#"{"layers": [{"id": 1, "objects": [{"id": 4}]}]}"#;
        assert!(Profile::Tiled.references_may_dangle(Sides::new(objects, objects, one_gone)));
        let layer_one: &[u8] = br#"{"layers": [{"id": 1, "objects": [{"id": 1}]}]}"#;
        let object_gone: &[u8] = br#"{"layers": [{"id": 1, "objects": []}]}"#;
        assert!(
            Profile::Tiled.references_may_dangle(Sides::new(layer_one, object_gone, layer_one)),
            "a layer keeping the number is not the object"
        );
        assert!(!Profile::Tiled.references_may_dangle(Sides::new(one_gone, objects, one_gone)));
        // Theirs deletes object 2 and adds layer 2 (the number stays once); ours points a
        // property at object 2: followed.
        let door: &[u8] = br#"{"layers": [{"id": 1, "objects": [{"id": 1}, {"id": 2}]}]}"#;
        let pointed: &[u8] =
            br#"{"layers": [{"id": 1, "objects": [{"id": 1, "properties": [{"name": "t", "type": "object", "value": 2}]}, {"id": 2}]}]}"#;
        let renumbered: &[u8] = br#"{"layers": [{"id": 1, "objects": [{"id": 1}]}, {"id": 2, "objects": []}]}"#;
        assert!(Profile::Tiled.references_may_dangle(Sides::new(door, pointed, renumbered)));
        assert!(!Profile::Tiled.references_may_dangle(Sides::new(door, door, renumbered)), "no reference changed, no id gone");
    }

    #[test]
    fn editors_are_recognised_by_content() {
        assert_eq!(Profile::detect(b"{\"__header__\": {\"app\": \"LDtk\"}}"), Some(Profile::Ldtk));
        assert_eq!(Profile::detect(b"{\"height\":10, \"tiledversion\":\"1.10\"}"), Some(Profile::Tiled));
        assert_eq!(Profile::detect(b"{\"instances\": [{\"persistentUuid\": \"a\"}]}"), Some(Profile::GDevelop));
        assert_eq!(Profile::detect(b"{\"ogmoVersion\": \"3.4\"}"), Some(Profile::Ogmo));
        assert_eq!(Profile::detect(b"[{\"__type__\": \"cc.SceneAsset\"}]"), Some(Profile::Cocos));
        assert_eq!(Profile::detect(b"[{\"__type__\": \"cc.PrefabInfo\"}]"), None);
        assert_eq!(Profile::detect(b"{\"entities\": [{\"id\": 1}]}"), None);
        // The root's kind decides which editors are candidates: a Cocos component with a member
        // named like another editor's marker, or an object merely naming a Cocos type, keeps
        // its own reading.
        let component =
            b"\xEF\xBB\xBF [{\"__type__\": \"cc.SceneAsset\"}, {\"__type__\": \"Save\", \"jsonVersion\": 2, \"tiledversion\": \"x\"}]";
        assert_eq!(Profile::detect(component), Some(Profile::Cocos));
        assert_eq!(Profile::detect(b"[{\"note\": 1, \"nextobjectid\": 3}]"), None);
        assert_eq!(Profile::detect(b"{\"type\": \"cc.SceneAsset\"}"), None);
    }
}
