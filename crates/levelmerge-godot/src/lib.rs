//! levelmerge-godot: Godot's text scenes and resources (`.tscn`, `.tres`; formats 2, 3, 4).
//!
//! * [`parse`](mod@parse): a hand-written, zero-copy, lossless parser: sections, tags over several lines,
//!   `key = value` properties whose Variant values may span lines, CRLF, no final newline.
//! * [`lower`]: one level object per section, nodes identified by their path.
//! * [`ids`]: resource ids made to agree across the three versions before the merge.
//! * [`moves`]: nodes one side renamed or moved, made to agree across the versions likewise.
//! * [`texts`]: multi-line strings both sides edited in different lines, merged line by line.
//! * [`tiles`]: a TileMap's or GridMap's cells, merged cell by cell.
//! * [`volatile`]: properties Godot or its editor writes anew (a container's layout of its
//!   children, a file dialog's last folder).
//! * [`render`]: untouched sections and property lines copied byte for byte; `load_steps`
//!   recomputed.
//! * [`fuzzing`]: the properties the fuzz targets check.
//! * [`scene_problems`]: the rules a loadable file keeps (resources defined before use, node
//!   parents defined, connections between existing nodes); in a merge, also against the
//!   versions: a connection under an instanced scene to a node a version makes there and the
//!   merge lacks (`instance_ends`).
#![forbid(unsafe_code)]

pub mod fuzzing;
pub mod ids;
mod instance_ends;
pub mod lower;
pub mod moves;
pub mod outline;
pub mod parse;
pub mod refs;
pub mod render;
pub mod texts;
pub mod tiles;
pub mod volatile;

use levelmerge_core::codec::WholeTexts;
use levelmerge_core::model::{Level, Lowered, Object, ObjectId, Value, ValueKind};
use levelmerge_core::policy::{Rule, RuleAction};
use levelmerge_core::resolve::Resolved;
use levelmerge_core::{Codec, Problem, Side, Sides};
use rustc_hash::FxHashSet;

pub use parse::{parse, parse_among, GodotFile, Section};

use lower::TAG;
use refs::{resource_refs, Table};

/// The Godot text codec.
#[derive(Debug, Clone, Default)]
pub struct GodotCodec;

impl Codec for GodotCodec {
    type Document<'src> = GodotFile<'src>;

    fn name(&self) -> &'static str {
        "godot"
    }

    fn parse<'src>(&self, src: &'src [u8]) -> Result<GodotFile<'src>, Problem> {
        parse::parse(src)
    }

    fn parse_among<'src>(&self, src: &'src [u8], others: &[&[u8]]) -> Result<GodotFile<'src>, Problem> {
        parse::parse_among(src, others)
    }

    fn lower<'d>(&self, doc: &'d GodotFile<'_>, side: Side, _others: &[&'d GodotFile<'_>]) -> Result<Level<'d>, Vec<Problem>> {
        lower::lower(doc, side)
    }

    fn lower_for_check<'d, 's>(&self, doc: &'d GodotFile<'s>) -> Result<Lowered<'d>, Vec<Problem>> {
        Ok(lower::lower_keeping_first(doc, Side::Ours))
    }

    fn render(&self, docs: Sides<&GodotFile<'_>>, level: &Resolved<'_>) -> Vec<u8> {
        render::Renderer { docs, level }.render()
    }

    fn rules(&self, docs: Sides<&GodotFile<'_>>) -> Vec<Rule> {
        let uids = DRAWN_UIDS.iter().map(|p| Rule { pattern: (*p).to_owned(), action: RuleAction::Theirs });
        uids.chain(volatile::rules(docs)).collect()
    }

    fn level_problems(&self, doc: &GodotFile<'_>, level: &Level<'_>) -> Vec<Problem> {
        scene_problems(doc, level)
    }

    fn merged_level_problems(&self, doc: &GodotFile<'_>, level: &Level<'_>, versions: Sides<&[u8]>) -> Vec<Problem> {
        let (mut problems, in_instances) = scene_check(doc, level);
        problems.extend(instance_ends::made_only_in_versions(in_instances, versions));
        problems
    }

    /// The checks read a section's tag and the resources its properties use, nothing else of
    /// it: two versions of a part with the same tags and the same properties using resources
    /// (each reading alone) are alike to them.
    fn checked_alike(&self, a: &[u8], b: &[u8]) -> bool {
        let (Ok(a), Ok(b)) = (parse::parse(a), parse::parse(b)) else { return false };
        a.sections.len() == b.sections.len()
            && a.sections
                .iter()
                .zip(&b.sections)
                .all(|(x, y)| a.text(x.header) == b.text(y.header) && resource_uses(&a, x) == resource_uses(&b, y))
    }

    fn outline(&self, level: &Level<'_>) -> levelmerge_core::outline::Outline {
        outline::outline(level)
    }

    fn checks_output(&self, _docs: Sides<&Self::Document<'_>>) -> bool {
        true
    }

    fn merges_parts_alone(&self) -> bool {
        true
    }

    /// A node's parent, in another part, decides whether its layout is volatile: the whole
    /// texts are read for it (once), only where a conflict is on a property a container sets.
    fn settled_in_context(&self, conflicts: &[levelmerge_core::codec::ConflictReport], whole: &WholeTexts<'_>) -> bool {
        let mut nodes = conflicts.iter().filter(|c| volatile::laid_out(&c.path)).map(|c| c.object.as_str()).peekable();
        if nodes.peek().is_none() {
            return false;
        }
        let laid_out = whole.drawn(|texts| Some((volatile::container_children(texts.ours)?, volatile::container_children(texts.theirs)?)));
        match laid_out {
            Some(Some((ours, theirs))) => nodes.any(|node| ours.contains(node) && theirs.contains(node)),
            // A version that does not read: the whole merge decides.
            _ => true,
        }
    }

    fn merged_part_stays(&self, merged: &[u8], versions: Sides<&[u8]>) -> bool {
        let texts = [merged, versions.base, versions.ours, versions.theirs];
        texts.into_iter().all(parse::reads_alone) && render::uses_no_new_sub_resource(merged, versions.base)
    }

    fn parts<'t>(&self, text: &'t [u8]) -> Option<Vec<&'t [u8]>> {
        parse::parts(text)
    }

    fn part_gap(&self, part: &[u8]) -> Option<usize> {
        render::section_end(part)
    }

    fn join_inserted_parts(&self, last: &[u8], next: &[u8]) -> Option<(usize, &'static [u8])> {
        render::join_sections(last, next)
    }

    fn spliced(&self, text: Vec<u8>, versions: Sides<&[u8]>) -> Vec<u8> {
        render::recount_load_steps(text, versions)
    }

    fn derived_in_part(&self, part: &[u8]) -> Option<std::ops::Range<usize>> {
        render::load_steps_count(part)
    }

    fn renumber(&self, texts: Sides<&[u8]>) -> Option<levelmerge_core::Renumbered> {
        // Resource ids first: a moved node is recognised by its content, resources included.
        let ids = ids::align(texts);
        let moves = moves::align(ids.as_ref().map_or(texts, |r| r.applied_to(texts)));
        let aligned = levelmerge_core::Renumbered::chain(ids, moves);
        let strings = texts::align(aligned.as_ref().map_or(texts, |r| r.applied_to(texts)));
        let aligned = levelmerge_core::Renumbered::chain(aligned, strings);
        let cells = tiles::to_cells_form(aligned.as_ref().map_or(texts, |r| r.applied_to(texts)));
        levelmerge_core::Renumbered::chain(aligned, cells)
    }

    /// Godot 4.3 layers' cells merged in a form of integers, written back as bytes.
    fn restore(&self, text: Vec<u8>) -> Result<Vec<u8>, Problem> {
        tiles::from_cells_form(text)
    }
}

/// Ids each side's editor drew at random when it first saved a file: the `uid` of the file
/// and of a resource it uses, and a node's `unique_id` (Godot 4.6 gives every node one when it
/// re-saves an older scene). Two sides that saved a file apart give it different ones. Godot
/// finds a resource by its path when its uid is unknown and writes the right uid back on the
/// next save, and a node is matched by its path where unique ids do not agree, so either
/// loads. Theirs is taken throughout: the side merged in, whose other files were saved with
/// its ids.
const DRAWN_UIDS: [&str; 4] = ["ext_resource.[tag].uid", "gd_scene.[tag].uid", "gd_resource.[tag].uid", "node.[tag].unique_id"];

/// A section's properties whose values use a resource, as written.
fn resource_uses<'s>(file: &GodotFile<'s>, s: &Section) -> Vec<(&'s str, &'s str)> {
    let props = file.props_of(s).iter().map(|p| (file.text(p.key), file.text(p.value)));
    props.filter(|(_, value)| value.contains("Resource")).collect()
}

/// The section an object of `file` lowered alone stands for.
fn section_of<'f>(file: &'f GodotFile<'_>, obj: &Object<'_>) -> Option<&'f Section> {
    match lower::Node::decode(obj.props.origin.node, file) {
        lower::Node::Section(i) => file.sections.get(i),
        _ => None,
    }
}

/// Every value of a section: its tag attributes, then its properties (or the whole section
/// lowered as one value).
fn values<'v, 'a>(obj: &'v Object<'a>) -> impl Iterator<Item = &'v Value<'a>> {
    let (entries, whole): (&[(&str, Value<'a>)], _) = match &obj.props.kind {
        ValueKind::Map(e) => (e, None),
        _ => (&[], Some(&obj.props)),
    };
    whole.into_iter().chain(entries.iter().flat_map(|(k, v)| {
        let attrs: &[(&str, Value<'a>)] = match &v.kind {
            ValueKind::Map(attrs) if *k == TAG => attrs,
            _ => &[],
        };
        let whole = (*k != TAG).then_some(v);
        attrs.iter().map(|(_, a)| a).chain(whole)
    }))
}

/// An empty file, or one whose first section is not its header: Godot reads the header's
/// tag before anything else and refuses the file without it. (A part of a file, read alone,
/// has this problem in every version: it is never one a merge made.)
fn header_problem(file: &GodotFile<'_>) -> Option<Problem> {
    let (message, line) = match file.sections.first() {
        None => ("an empty file: Godot expects [gd_scene …] or [gd_resource …]", 1),
        Some(first) if matches!(file.kind(first), "gd_scene" | "gd_resource") => return None,
        Some(first) => ("the file does not begin with [gd_scene …] or [gd_resource …]: Godot refuses it", first.line as usize),
    };
    Some(Problem::Inconsistent { object: ObjectId::new("header"), message: message.into(), line })
}

/// Whether `path` lies at or below a node of an instanced scene (whose own nodes this file
/// does not list), with no node this file makes (`made`: a node with a type, under an
/// instance or not) between: what lies below such a node is this file's to list.
fn under_instance(path: &str, instanced: &FxHashSet<&str>, made: &FxHashSet<&str>) -> bool {
    if instanced.contains(".") {
        return true;
    }
    let mut p = path;
    loop {
        if instanced.contains(p) {
            return true;
        }
        if made.contains(p) {
            return false;
        }
        match p.rfind('/') {
            Some(i) => p = &p[..i],
            None => return false,
        }
    }
}

/// What a Godot file needs to load: a `[gd_scene]` or `[gd_resource]` header first, every
/// `ExtResource`/`SubResource` defined (a sub-resource before its first use), one root node,
/// every node's parent defined before it (or inside a scene instanced before it), sibling nodes of
/// distinct names, every connection between existing nodes. `level` is `file` lowered alone:
/// its tags are read off `file`.
pub fn scene_problems<'a>(file: &GodotFile<'a>, level: &Level<'_>) -> Vec<Problem> {
    scene_check(file, level).0
}

/// A node's parent, or a connection's (or an `[editable]`'s) end, that the scene check took
/// for a node of an instanced scene, as the file does not make it: the object, the
/// attribute, the path it holds and the line.
pub(crate) struct EndInInstance<'a> {
    pub object: ObjectId,
    pub end: &'static str,
    pub path: &'a str,
    pub line: usize,
}

/// [`scene_problems`], with the ends it took for nodes of instanced scenes.
pub(crate) fn scene_check<'a>(file: &GodotFile<'a>, level: &Level<'_>) -> (Vec<Problem>, Vec<EndInInstance<'a>>) {
    let mut problems: Vec<Problem> = header_problem(file).into_iter().collect();
    let mut in_instances = Vec::new();
    let mut instanced: FxHashSet<&str> = FxHashSet::with_capacity_and_hasher(level.objects.len(), Default::default());
    let mut nodes: FxHashSet<&str> = FxHashSet::with_capacity_and_hasher(level.objects.len(), Default::default());
    let mut made: FxHashSet<&str> = FxHashSet::with_capacity_and_hasher(level.objects.len(), Default::default());
    // Each object's section, whose tag holds its attributes (unquoted as read).
    let sections: Vec<Option<&Section>> = level.objects.values().map(|o| section_of(file, o)).collect();
    let attr = |s: Option<&Section>, key: &str| -> Option<&'a str> { file.attr_unquoted(s?, key) };
    // A node's tag, read once: parent, name, type, instance, unique id, instance placeholder.
    let node_tags: Vec<[Option<&'a str>; 6]> = level
        .objects
        .values()
        .zip(&sections)
        .map(|(o, s)| match s {
            Some(s) if o.kind == "node" => {
                file.attrs_unquoted(s, ["parent", "name", "type", "instance", "unique_id", "instance_placeholder"])
            }
            _ => [None; 6],
        })
        .collect();
    // Nodes by (parent, name), and whether their first entry defines them (a type or an
    // instance): Godot renames a second node of one name under one parent when it loads the
    // file, and the paths to it then lead elsewhere; an entry without either overrides a node
    // defined before it, and one defined after it is not found there (its properties are lost).
    let mut named: rustc_hash::FxHashMap<(&str, &str), bool> =
        rustc_hash::FxHashMap::with_capacity_and_hasher(level.objects.len(), Default::default());
    // Node → its line, by `unique_id` (Godot 4.6): one id names one node.
    let mut unique: rustc_hash::FxHashMap<&str, usize> =
        rustc_hash::FxHashMap::with_capacity_and_hasher(level.objects.len(), Default::default());
    let mut roots = 0;
    // The first line that names the root (`parent="."`, a connection's `"."`): Godot refuses a
    // scene whose nodes hang under a root it does not hold.
    let mut under_root: Option<usize> = None;
    // Nodes with a parent read before the root: Godot takes the first node of a scene as its
    // root, and the parentless node after it is then one that names no parent.
    let mut before_root: Vec<(&ObjectId, &str, usize)> = Vec::new();
    // The id each reference names, written here (most name an object, and make no id).
    let mut target = String::new();
    for (at, ((obj, &s), tag)) in level.objects.values().zip(&sections).zip(&node_tags).enumerate() {
        let line = obj.line as usize;
        for v in values(obj) {
            for r in resource_refs(v.raw) {
                target.clear();
                target.push_str(r.table.prefix());
                target.push_str(r.id);
                let Some(defined_at) = level.position_of(&target) else {
                    let target = ObjectId::new(target.as_str());
                    problems.push(Problem::DanglingReference { object: obj.id.clone(), path: String::new(), target, line });
                    continue;
                };
                // Objects are in file order: one defined after this one is used before it.
                if r.table == Table::Sub && defined_at > at {
                    problems.push(Problem::Inconsistent {
                        object: obj.id.clone(),
                        message: format!("uses SubResource({}) before it is defined", r.id),
                        line,
                    });
                }
            }
        }
        match obj.kind.as_str() {
            "node" => {
                let path = obj.id.as_str().strip_prefix("node:").unwrap_or("");
                let [parent, name, type_name, instance, unique_id, _] = *tag;
                if let (0, Some(_), Some(name)) = (roots, parent, name) {
                    before_root.push((&obj.id, name, line));
                }
                match parent {
                    None => {
                        roots += 1;
                        if roots > 1 {
                            problems.push(Problem::Inconsistent { object: obj.id.clone(), message: "a second root node".into(), line });
                        }
                    }
                    Some(".") => {
                        under_root.get_or_insert(line);
                    }
                    Some(parent) if nodes.contains(parent) => {}
                    Some(parent) if under_instance(parent, &instanced, &made) => {
                        in_instances.push(EndInInstance { object: obj.id.clone(), end: "parent", path: parent, line });
                    }
                    Some(parent) => {
                        problems.push(Problem::Orphan { object: obj.id.clone(), parent: ObjectId::new(format!("node:{parent}")), line })
                    }
                }
                let defines = type_name.is_some() || instance.is_some();
                if let Some(name) = name {
                    let parent = parent.unwrap_or("");
                    let under = || if parent.is_empty() { String::new() } else { format!(" under \"{parent}\"") };
                    let message = match named.get(&(parent, name)) {
                        None => {
                            named.insert((parent, name), defines);
                            None
                        }
                        Some(true) if defines => Some(format!("a second node named \"{name}\"{}", under())),
                        Some(false) if defines => Some(format!("node \"{name}\"{} is defined after an entry that overrides it", under())),
                        Some(_) => None,
                    };
                    if let Some(message) = message {
                        problems.push(Problem::Inconsistent { object: obj.id.clone(), message, line });
                    }
                }
                if let Some(id) = unique_id {
                    if let Some(&first_line) = unique.get(id) {
                        problems.push(Problem::DuplicateId { id: format!("unique_id={id}"), line, first_line });
                    } else {
                        unique.insert(id, line);
                    }
                }
                nodes.insert(path);
                // Its scene's nodes are there for the nodes after it: Godot instances it when it
                // reaches it, and a node under it read before then finds no parent.
                if instance.is_some() || tag[5].is_some() {
                    instanced.insert(path);
                } else if type_name.is_some() {
                    made.insert(path);
                }
            }
            // Godot reads the header's count before anything else, and refuses a file where
            // it is not one.
            "gd_scene" | "gd_resource" => {
                let count = s.and_then(|s| file.attr(s, "load_steps"));
                if count.is_some_and(|n| n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit())) {
                    problems.push(Problem::Inconsistent { object: obj.id.clone(), message: "load_steps is not a count".into(), line });
                }
            }
            // A connection's ends, and the node an `[editable]` opens, are nodes of the scene.
            kind @ ("connection" | "editable") => {
                let ends: &[&'static str] = if kind == "connection" { &["from", "to"] } else { &["path"] };
                for &end in ends {
                    let Some(path) = attr(s, end) else { continue };
                    if path == "." {
                        under_root.get_or_insert(line);
                    } else if nodes.contains(path) {
                        continue;
                    } else if under_instance(path, &instanced, &made) {
                        in_instances.push(EndInInstance { object: obj.id.clone(), end, path, line });
                    } else {
                        problems.push(Problem::DanglingReference {
                            object: obj.id.clone(),
                            path: end.to_owned(),
                            target: ObjectId::new(format!("node:{path}")),
                            line,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    if roots > 0 {
        problems.extend(before_root.into_iter().map(|(object, name, line)| Problem::Inconsistent {
            object: object.clone(),
            message: format!("node \"{name}\" comes before the scene's root node (Godot reads the first node as the root)"),
            line,
        }));
    }
    if let (0, Some(line)) = (roots, under_root) {
        problems.push(Problem::Inconsistent {
            object: ObjectId::new("node:."),
            message: "nodes under a root node the file does not hold".into(),
            line,
        });
    }
    (problems, in_instances)
}
