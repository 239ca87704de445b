//! levelmerge-unity: Unity's text serialization (`.unity`, `.prefab`, `.asset`, …).
//!
//! * [`parse`](mod@parse): a hand-written, zero-copy, lossless parser for Unity's YAML subset: the
//!   `%YAML`/`%TAG` preamble, one `--- !u!CLASS &FILEID [stripped]` document per object, block
//!   and flow mappings, sequences at their key's indent, plain and quoted scalars over several
//!   lines, CRLF, files without a header (`.meta`-like).
//! * [`lower`]: one level object per document, `{fileID: N}` references, parents from
//!   `m_Father` and `m_GameObject`, identity lists (`m_Component`, `m_Children`, and the
//!   prefab override lists keyed by [`identity`]).
//! * [`render`]: untouched documents and entries copied byte for byte.
//! * [`recreated`]: objects a side re-created under new fileIDs are given them in the other
//!   versions too.
//! * [`twins`]: one component both sides added to a game object under two fileIDs: theirs
//!   takes ours' id.
//! * [`renumber`]: different objects added under one fileID on both sides: theirs is renumbered.
//! * [`scalar`]: what a scalar reads as, so that one string written in two forms compares equal.
//! * [`derived`]: values Unity computes on save (an auto-sized text's font size), volatile.
//! * [`tilemap`]: a tilemap's cells name entries its arrays have and count.
//! * [`managed_refs`]: each `rid` a script's fields use names an entry of its
//!   `references.RefIds`.
//! * [`UnityCodec::level_problems`]: `m_Father` and `m_Children` must agree, and the rules of
//!   [`tilemap`] and [`managed_refs`].
#![forbid(unsafe_code)]

pub mod derived;
#[doc(hidden)]
pub mod fuzzing;
pub mod identity;
pub mod lower;
pub mod managed_refs;
pub mod outline;
pub mod parse;
pub mod recreated;
pub mod render;
pub mod renumber;
pub mod scalar;
pub mod tilemap;
pub mod twins;

use levelmerge_core::model::{Level, Lowered, Object, ObjectId, Value, ValueKind};
use levelmerge_core::resolve::Resolved;
use levelmerge_core::{Codec, Problem, Renumbered, Side, Sides};
use rustc_hash::{FxHashMap, FxHashSet};

pub use parse::{parse, Span, UnityDoc, UnityFile, YEntry, YKind, YNode, NONE};

/// The Unity YAML codec.
#[derive(Debug, Clone, Default)]
pub struct UnityCodec;

impl Codec for UnityCodec {
    type Document<'src> = UnityFile<'src>;

    fn name(&self) -> &'static str {
        "unity"
    }

    fn parse<'src>(&self, src: &'src [u8]) -> Result<UnityFile<'src>, Problem> {
        parse::parse(src)
    }

    fn parse_among<'src>(&self, src: &'src [u8], others: &[&[u8]]) -> Result<UnityFile<'src>, Problem> {
        parse::parse_among(src, others)
    }

    /// What is identical in every version was decided when the file was parsed among them
    /// ([`Codec::parse_among`]), so `others` is not needed here.
    fn lower<'d>(&self, doc: &'d UnityFile<'_>, side: Side, _others: &[&'d UnityFile<'_>]) -> Result<Level<'d>, Vec<Problem>> {
        lower::lower(doc, side)
    }

    fn lower_for_check<'d, 's>(&self, doc: &'d UnityFile<'s>) -> Result<Lowered<'d>, Vec<Problem>> {
        Ok(lower::lower_keeping_first(doc, Side::Ours))
    }

    fn render(&self, docs: Sides<&UnityFile<'_>>, level: &Resolved<'_>) -> Vec<u8> {
        render::Renderer { docs, level }.render()
    }

    fn outline(&self, level: &Level<'_>) -> levelmerge_core::outline::Outline {
        outline::outline(level)
    }

    fn level_problems(&self, doc: &UnityFile<'_>, level: &Level<'_>) -> Vec<Problem> {
        let mut problems = hierarchy_problems(level);
        // Unity writes every asset with one object at least: a file of nothing but its header
        // (or of nothing) is one a save or a merge cut short.
        if doc.docs.is_empty() {
            problems.push(Problem::Syntax { line: 1, column: 1, message: "no objects: expected a `--- !u!CLASS &FILEID` document".into() });
        }
        problems.extend(objects_written_twice(doc));
        problems.extend(tilemap::tilemap_problems(doc));
        problems.extend(managed_refs::managed_reference_problems(doc));
        problems
    }

    /// A header-less mapping (a `.meta`-like file) where another version holds documents: a
    /// side that rewrote the file in the other form, or damage. Neither form's objects mean
    /// anything in the other.
    fn form_apart(&self, versions: Sides<&[u8]>) -> Option<(Side, Problem)> {
        if ![versions.base, versions.ours, versions.theirs].into_iter().any(parse::holds_documents) {
            return None;
        }
        [Side::Base, Side::Ours, Side::Theirs].into_iter().find_map(|side| {
            let text = *versions.get(side);
            let at = parse::header_less_mapping_at(text)?;
            let message = "a mapping without a header, where another version holds `--- !u!CLASS &FILEID` documents: the two forms do not merge as one level";
            Some((side, Problem::syntax_at(text, at, message)))
        })
    }

    fn checks_output(&self, _docs: Sides<&Self::Document<'_>>) -> bool {
        true
    }

    fn merges_parts_alone(&self) -> bool {
        true
    }

    fn parts<'t>(&self, text: &'t [u8]) -> Option<Vec<&'t [u8]>> {
        Some(parse::parts(text))
    }

    /// A document runs to its last line end, and the next one's header line follows: nothing
    /// lies between two documents (a part without a last line end ends the file).
    fn part_gap(&self, part: &[u8]) -> Option<usize> {
        part.ends_with(b"\n").then_some(part.len())
    }

    /// Measured on the benchmark scenes (2 cores): reading a 4 MB scene's three versions on
    /// one thread is as fast as on three and peaks 8 MB lower; on 40 MB it is faster.
    fn reads_in_parallel(&self) -> bool {
        false
    }

    /// Unity adds fields to every object it re-saves with a newer editor or script.
    fn added_fields_are_edits(&self) -> bool {
        false
    }

    /// Different objects both sides added under one fileID were given different ids by
    /// [`renumber`] (with their game objects and components); what still shares one is the same
    /// object (same class, name, owner, script, source), merged member by member.
    /// A component is named by its game object, whose document is another part.
    fn object_paths(&self, text: &[u8], ids: &[&str]) -> Option<Vec<Option<Vec<String>>>> {
        Some(outline::object_paths(text, ids))
    }

    fn same_id_is_same_object(&self) -> bool {
        true
    }

    /// A serialized struct holds the fields its script or class declares.
    fn fields_fixed_by_type(&self) -> bool {
        true
    }

    /// `m_RootOrder` is the index among siblings, rewritten whenever a sibling comes or goes;
    /// `serializedVersion` changes when an editor re-saves a struct.
    fn bookkeeping_members(&self) -> &'static [&'static str] {
        &["m_RootOrder", "serializedVersion"]
    }

    /// `m_RootOrder` is derived from the sibling order: two sides that each moved siblings
    /// around do not make it a conflict (ours is kept).
    fn rules(&self, docs: Sides<&Self::Document<'_>>) -> Vec<levelmerge_core::policy::Rule> {
        use levelmerge_core::policy::{Rule, RuleAction};
        let rule = |pattern: &str, action| Rule { pattern: pattern.to_owned(), action };
        let fixed = [
            rule("Transform.m_RootOrder", RuleAction::Ours),
            rule("RectTransform.m_RootOrder", RuleAction::Ours),
            // The ambient colour Unity derives from the skybox and writes on every save of a
            // scene: two sides' values are two computations, not two edits. Volatile: one
            // side's colour is kept whole, never a conflict.
            rule("RenderSettings.m_IndirectSpecularColor*", RuleAction::Ignore),
            // Netcode for GameObjects hashes a network object's global id into these on every
            // validate in the editor (its own and, placed from a prefab, its source's): two
            // sides' values are two computations, which the editor rewrites on the next save.
            rule("MonoBehaviour.GlobalObjectIdHash", RuleAction::Ignore),
            rule("MonoBehaviour.InScenePlacedSourceGlobalObjectIdHash", RuleAction::Ignore),
            rule("PrefabInstance.m_Modification.m_Modifications.*|GlobalObjectIdHash.value", RuleAction::Ignore),
            rule("PrefabInstance.m_Modification.m_Modifications.*|InScenePlacedSourceGlobalObjectIdHash.value", RuleAction::Ignore),
        ];
        fixed.into_iter().chain(derived::rules(docs)).collect()
    }

    /// A struct re-saved by a newer editor carries a higher `serializedVersion`.
    fn layout_key(&self) -> Option<&'static str> {
        Some("serializedVersion")
    }

    fn renumber(&self, texts: Sides<&[u8]>) -> Option<Renumbered> {
        let given = texts;
        let recreated = recreated::align(texts);
        let texts = recreated.as_ref().map_or(texts, |r| r.applied_to(texts));
        let twins = twins::align(texts);
        let recreated = Renumbered::chain(recreated, twins);
        let texts = recreated.as_ref().map_or(given, |r| r.applied_to(given));
        let collisions =
            renumber::renumber(texts).map(|(theirs, notes)| Renumbered { theirs: Some(theirs), notes, ..Renumbered::default() });
        let renumbered = Renumbered::chain(recreated, collisions);
        let texts = renumbered.as_ref().map_or(given, |r| r.applied_to(given));
        // Tilemaps are read in one numbering of their arrays, counted again after the merge
        // (`restore`).
        let uncounted = tilemap::aligned(texts).map(|zeroed| Renumbered {
            base: Some(zeroed.base),
            ours: Some(zeroed.ours),
            theirs: Some(zeroed.theirs),
            notes: Vec::new(),
            restore: true,
        });
        Renumbered::chain(renumbered, uncounted)
    }

    fn restore(&self, text: Vec<u8>) -> Result<Vec<u8>, Problem> {
        Ok(tilemap::recount(text))
    }
}

/// Documents whose body holds a second top-level key: Unity writes one object per document,
/// its class name the one key (`GameObject:`), so a second is two objects' fields run
/// together (two sides renaming the class, say), which Unity reads as neither.
fn objects_written_twice(file: &UnityFile<'_>) -> Vec<Problem> {
    let mut problems = Vec::new();
    for doc in &file.docs {
        let Some(body) = doc.body else { continue };
        // A header-less file (`.meta`-like) is one mapping of many keys.
        if !file.src[doc.span.0 as usize..].starts_with("--- ") {
            continue;
        }
        if let [first, second, ..] = file.entries_of(body) {
            let message = format!("a second object `{}` in the document of `{}`", file.text(second.key), file.text(first.key));
            let line = file.src[..second.key.0 as usize].matches('\n').count() + 1;
            problems.push(Problem::Inconsistent { object: ObjectId::new(doc.file_id.to_string()), message, line });
        }
    }
    problems
}

/// The fields of a document (the map under its class name).
fn fields<'v, 'a>(obj: &'v Object<'a>) -> Option<&'v Value<'a>> {
    obj.props.get(&obj.kind)
}

/// The object a reference value points at.
fn target(v: &Value<'_>) -> Option<ObjectId> {
    match &v.kind {
        ValueKind::Scalar { reference: Some(r) } => Some(r.target.clone()),
        ValueKind::Map(entries) if entries.len() == 1 => target(&entries[0].1),
        _ => None,
    }
}

/// The objects a list member names (`m_Children`, `m_Component`), or `None` when the object
/// has no such member (a stripped placeholder, or a document read whole).
fn listed(obj: &Object<'_>, member: &str) -> Option<Vec<ObjectId>> {
    let list = fields(obj)?.get(member)?;
    Some(match &list.kind {
        ValueKind::Map(entries) => entries.iter().filter_map(|(_, v)| target(v)).collect(),
        ValueKind::List(items) => items.iter().filter_map(target).collect(),
        _ => Vec::new(),
    })
}

/// The transform a prefab instance hangs under: its `m_TransformParent` (a field of its
/// `m_Modification`, or of the document read opaquely).
fn instance_parent(obj: &Object<'_>) -> Option<ObjectId> {
    let f = fields(obj)?;
    f.get("m_Modification").and_then(|m| m.get("m_TransformParent")).or_else(|| f.get("m_TransformParent")).and_then(target)
}

/// The children a transform lists, or `None` when it lists none (a stripped placeholder).
fn children(obj: &Object<'_>) -> Option<Vec<ObjectId>> {
    listed(obj, "m_Children")
}

/// The objects each object lists in one member, read once per object and kept as a set: a
/// transform with 30,000 children, read again for each child, took seconds.
struct ListedSets<'l, 'a> {
    level: &'l Level<'a>,
    member: &'static str,
    read: FxHashMap<ObjectId, Option<FxHashSet<ObjectId>>>,
}

impl<'l, 'a> ListedSets<'l, 'a> {
    fn new(level: &'l Level<'a>, member: &'static str) -> Self {
        ListedSets { level, member, read: FxHashMap::default() }
    }

    /// Whether `owner` lists `item`; `None` when `owner` is not an object `accepts` or it
    /// has no such member.
    fn lists(&mut self, owner: &ObjectId, item: &ObjectId, accepts: impl Fn(&Object<'_>) -> bool) -> Option<bool> {
        let (level, member) = (self.level, self.member);
        let set = self.read.entry(owner.clone()).or_insert_with(|| {
            let obj = level.get(owner).filter(|o| accepts(o))?;
            Some(listed(obj, member)?.into_iter().collect())
        });
        set.as_ref().map(|set| set.contains(item))
    }
}

/// `m_GameObject` and `m_Component` must agree: a component listed by a game object belongs to
/// it, and a component's game object lists it.
fn component_problems(level: &Level<'_>, problems: &mut Vec<Problem>) {
    let owner = |o: &Object<'_>| fields(o).and_then(|f| f.get("m_GameObject")).and_then(target);
    let mut components = ListedSets::new(level, "m_Component");
    for obj in level.objects.values() {
        let line = obj.line as usize;
        if obj.kind == "GameObject" {
            for c in listed(obj, "m_Component").unwrap_or_default() {
                let Some(go) = level.get(&c).and_then(owner) else { continue };
                if go != obj.id {
                    problems.push(Problem::Inconsistent {
                        object: obj.id.clone(),
                        message: format!("lists component {c}, whose m_GameObject is {go}"),
                        line,
                    });
                }
            }
        } else if let Some(go) = owner(obj) {
            if components.lists(&go, &obj.id, |g| g.kind == "GameObject") == Some(false) {
                problems.push(Problem::Inconsistent {
                    object: obj.id.clone(),
                    message: format!("m_GameObject is {go}, which does not list it in m_Component"),
                    line,
                });
            }
        }
    }
}

/// Whether an object is a transform (plain or UI).
fn is_transform(o: &Object<'_>) -> bool {
    o.kind == "Transform" || o.kind == "RectTransform"
}

/// Whether a document is a stripped placeholder (`--- !u!4 &N stripped`).
fn is_stripped(obj: &Object<'_>) -> bool {
    obj.props.raw.lines().next().is_some_and(|header| header.trim_end().ends_with(" stripped"))
}

/// A scene's `SceneRoots` (Unity 2022.2+) lists its top level: each transform under no father,
/// each prefab instance under no parent (by its stripped transform), once. Not checked where
/// the document was read opaquely (the same in every version merged).
fn scene_roots_problems(level: &Level<'_>, instance_of: &FxHashMap<&ObjectId, &ObjectId>, problems: &mut Vec<Problem>) {
    let Some(roots_doc) = level.objects.values().find(|o| o.kind == "SceneRoots") else { return };
    let Some(listed) = listed(roots_doc, "m_Roots") else { return };
    let line = roots_doc.line as usize;
    let at_top = |t: &Object<'_>| match instance_of.get(&t.id) {
        Some(instance) => level.get(instance).is_some_and(|i| instance_parent(i).is_none()),
        // A stripped transform that stands for no instance is one of a prefab's inner ones.
        None => !is_stripped(t) && fields(t).and_then(|f| f.get("m_Father")).and_then(target).is_none(),
    };
    let mut seen: FxHashSet<&ObjectId> = FxHashSet::default();
    for root in &listed {
        if !seen.insert(root) {
            problems.push(Problem::Inconsistent { object: roots_doc.id.clone(), message: format!("lists root {root} twice"), line });
        } else if level.get(root).is_some_and(|t| is_transform(t) && !at_top(t)) {
            problems.push(Problem::Inconsistent {
                object: roots_doc.id.clone(),
                message: format!("lists root {root}, which hangs under another object"),
                line,
            });
        }
    }
    for t in level.objects.values().filter(|o| is_transform(o) && at_top(o) && !seen.contains(&o.id)) {
        problems.push(Problem::Inconsistent {
            object: t.id.clone(),
            message: "at the top level, but not listed in SceneRoots".into(),
            line: t.line as usize,
        });
    }
}

/// `m_Father` and `m_Children` must agree (a prefab instance's `m_TransformParent` and the
/// `m_Children` listing its stripped transform too), no child may be listed twice, and
/// `m_GameObject` and `m_Component` must agree.
pub fn hierarchy_problems(level: &Level<'_>) -> Vec<Problem> {
    let mut problems = Vec::new();
    component_problems(level, &mut problems);
    // Each instance by the stripped transform child lists name it by.
    let instance_of: FxHashMap<&ObjectId, &ObjectId> = level.listed_as.iter().map(|(instance, stripped)| (stripped, instance)).collect();
    scene_roots_problems(level, &instance_of, &mut problems);
    let mut fathers = ListedSets::new(level, "m_Children");
    for obj in level.objects.values().filter(|o| is_transform(o)) {
        let line = obj.line as usize;
        if let Some(father) = fields(obj).and_then(|f| f.get("m_Father")).and_then(target) {
            if fathers.lists(&father, &obj.id, |_| true) == Some(false) {
                problems.push(Problem::Inconsistent {
                    object: obj.id.clone(),
                    message: format!("m_Father is {father}, which does not list it in m_Children"),
                    line,
                });
            }
        }
        let Some(kids) = children(obj) else { continue };
        let mut seen: FxHashSet<&ObjectId> = FxHashSet::default();
        for kid in &kids {
            if !seen.insert(kid) {
                problems.push(Problem::Inconsistent { object: obj.id.clone(), message: format!("lists child {kid} twice"), line });
            }
            if let Some(instance) = instance_of.get(kid) {
                if level.get(instance).and_then(instance_parent).as_ref() != Some(&obj.id) {
                    problems.push(Problem::Inconsistent {
                        object: obj.id.clone(),
                        message: format!("lists child {kid}, whose prefab instance {instance} hangs under another object"),
                        line,
                    });
                }
                continue;
            }
            let Some(child) = level.get(kid) else { continue };
            let Some(child_fields) = fields(child) else { continue };
            if child_fields.get("m_Father").is_some() && child_fields.get("m_Father").and_then(target).as_ref() != Some(&obj.id) {
                problems.push(Problem::Inconsistent {
                    object: obj.id.clone(),
                    message: format!("lists child {kid}, whose m_Father is another object"),
                    line,
                });
            }
        }
    }
    // A prefab instance hangs under its `m_TransformParent`, which lists the instance's
    // stripped transform among its children.
    for (instance, stripped) in &level.listed_as {
        let Some(obj) = level.get(instance) else { continue };
        let Some(parent) = instance_parent(obj) else { continue };
        if fathers.lists(&parent, stripped, |_| true) == Some(false) {
            problems.push(Problem::Inconsistent {
                object: instance.clone(),
                message: format!("m_TransformParent is {parent}, which does not list its transform {stripped} in m_Children"),
                line: obj.line as usize,
            });
        }
    }
    problems
}
