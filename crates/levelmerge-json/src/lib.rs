//! levelmerge-json: the JSON and SJSON codec.
//!
//! * [`parse`]: a lossless parser (every value keeps its bytes, every element its whitespace).
//! * [`lower`]: arrays whose elements carry an id become level objects; declared `parent` and
//!   reference keys become hierarchy and reference edges.
//! * [`render`]: writes a resolved level back, copying untouched values byte for byte.
//! * [`profile`]: the identity keys, counters and volatile members of LDtk, Tiled, GDevelop,
//!   Ogmo and Cocos files, recognised from their content.
//! * [`cocos`]: Cocos files, whose references are positions, merged in an identity form.
//! * [`outline`]: how a level is shown to people (a Cocos file as the editor's hierarchy).
//! * [`renumber`]: new objects both sides added under one counter-given id told apart.
//! * [`tile_gids`]: Tiled tilesets both sides added at one `firstgid` told apart, with their tiles.
//! * [`ldtk_tiles`]: a side that resized an LDtk tileset (other columns): every version's
//!   tile ids of it read in its columns.
//! * [`tile_renumbering`]: a side that renumbered its Tiled tilesets (one removed or grown):
//!   the other versions' tiles read in its numbering.
//! * [`fuzzing`]: the properties the fuzz targets check.
#![forbid(unsafe_code)]

pub mod cocos;
pub mod cocos_hierarchy;
pub mod cocos_identity;
pub mod comments;
pub mod fuzzing;
pub mod ldtk_tiles;
pub mod lower;
pub mod outline;
pub mod parse;
pub mod profile;
pub mod render;
pub mod renumber;
pub mod tile_gids;
pub mod tile_renumbering;
pub mod tiled_bounds;
pub mod tiled_refs;

use levelmerge_core::resolve::Resolved;
use levelmerge_core::{Codec, ConcurrentInsertions, Level, Lowered, Problem, Side, Sides};

pub use parse::{Dialect, Document};
pub use profile::Profile;

/// An identity rule for the arrays at some key path (`layers`, `levels.*.entities`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collection {
    /// A glob over the array's key path from the root, array positions left out
    /// (`levels.layerInstances.entityInstances`).
    pub path: String,
    /// The member that identifies each element; empty: the elements have no identity (they
    /// merge by position even when they hold a generic id key).
    pub key: String,
}

impl Collection {
    pub fn new(path: &str, key: &str) -> Self {
        Collection { path: path.to_owned(), key: key.to_owned() }
    }
}

/// How JSON levels are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonConfig {
    /// Members tried in order as the identity of array elements; the first that every element
    /// of an array holds (as a unique string or number) is used.
    pub id_keys: Vec<String>,
    /// Per-path identity keys, tried before `id_keys`.
    pub collections: Vec<Collection>,
    /// A member holding the id of the object's parent.
    pub parent_key: Option<String>,
    /// Members holding the id of another object.
    pub reference_keys: Vec<String>,
    /// Members the editor's profile knows to hold the id of another object. Unlike
    /// `reference_keys`, they leave parts all versions hold alike unread: an id not found among
    /// the objects read names nothing (it lies in such a part, which no side changed).
    pub profile_reference_keys: Vec<String>,
    /// Members the editor's profile knows to name another object where a condition holds (a
    /// Tiled property of type `object`, a GDevelop instance's object); read like
    /// `profile_reference_keys`.
    pub profile_named_references: Vec<profile::NamedReference>,
    /// Arrays (by member path from the root, `layers.objects`) whose elements' ids are unique
    /// in the whole file (Tiled's objects and layers): an element keeps its identity when it
    /// moves to another array of the kind (an object to another layer).
    pub file_wide_ids: Vec<fn(&str) -> bool>,
}

impl Default for JsonConfig {
    fn default() -> Self {
        JsonConfig {
            id_keys: ["id", "iid", "uid", "guid", "_guid", "uuid"].map(String::from).to_vec(),
            collections: Vec::new(),
            parent_key: None,
            reference_keys: Vec::new(),
            profile_reference_keys: Vec::new(),
            profile_named_references: Vec::new(),
            file_wide_ids: Vec::new(),
        }
    }
}

/// The JSON / SJSON codec.
#[derive(Debug, Clone)]
pub struct JsonCodec {
    pub dialect: Option<Dialect>,
    pub config: JsonConfig,
    /// Lower parts that are byte-identical in all merged versions as opaque values (faster;
    /// the merge result is the same either way, which a test checks).
    pub skip_unchanged: bool,
}

impl Default for JsonCodec {
    fn default() -> Self {
        JsonCodec::new(None, JsonConfig::default())
    }
}

impl JsonCodec {
    pub fn new(dialect: Option<Dialect>, config: JsonConfig) -> Self {
        JsonCodec { dialect, config, skip_unchanged: true }
    }

    /// The dialect for a text: as configured, else SJSON when the text does not open with a
    /// bracket (after whitespace and comments), else JSON.
    pub fn dialect_for(&self, src: &[u8]) -> Dialect {
        if let Some(d) = self.dialect {
            return d;
        }
        let mut rest = src.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(src);
        loop {
            rest = rest.trim_ascii_start();
            if rest.starts_with(b"//") {
                rest = rest.iter().position(|&b| b == b'\n').map_or(&[][..], |p| &rest[p..]);
            } else if rest.starts_with(b"/*") {
                rest = rest.windows(2).position(|w| w == b"*/").map_or(&[][..], |p| &rest[p + 2..]);
            } else {
                break;
            }
        }
        match rest.first() {
            Some(b'{' | b'[') | None => Dialect::Json,
            _ => Dialect::Sjson,
        }
    }
}

impl JsonCodec {
    /// The containers each version of a merge leaves unread ([`parse::parse_skipping`]): those
    /// lying in lines all three hold alike. None where every reference must be read: declared
    /// references, Cocos files (whose references are positions), a version not plain JSON.
    fn unread_containers(&self, texts: Sides<&[u8]>, profile: Option<Profile>, parallel: bool) -> Sides<Vec<parse::Closed>> {
        let declares_refs = self.config.parent_key.is_some() || !self.config.reference_keys.is_empty();
        let reads_all = !self.skip_unchanged
            || declares_refs
            || [texts.base, texts.ours, texts.theirs].iter().any(|t| self.dialect_for(t) != Dialect::Json)
            || profile == Some(Profile::Cocos);
        if reads_all {
            return Sides::new(Vec::new(), Vec::new(), Vec::new());
        }
        let stable = levelmerge_core::text::stable_spans(texts);
        closed_containers_of_versions(texts, &stable, parallel)
    }

    /// The level a document holds, with the elements its reading refused
    /// ([`Codec::lower`], [`Codec::lower_for_check`]).
    fn lowered<'d>(&self, doc: &'d Document<'_>, side: Side, others: &[&'d Document<'_>]) -> Result<Lowered<'d>, Vec<Problem>> {
        // A document's text outlives any borrow of the document.
        let doc: &'d Document<'d> = doc;
        let others: Vec<&'d Document<'d>> = others.iter().map(|d| -> &'d Document<'d> { d }).collect();
        let all: Vec<&'d Document<'d>> = std::iter::once(doc).chain(others.iter().copied()).collect();
        let (config, profile) = self.config_for(&all);
        let others = if self.skip_unchanged { others } else { Vec::new() };
        let cocos_owners = if profile == Some(Profile::Cocos) { cocos::owners(doc) } else { None };
        if profile == Some(Profile::Cocos) && cocos_owners.is_none() {
            // A Cocos file read in its own form (checked, or one the merge could not rewrite).
            let dangling = cocos::dangling_positions(doc);
            if !dangling.is_empty() {
                return Err(dangling);
            }
        }
        Ok(lower::lower(doc, side, &config, &others, cocos_owners))
    }

    /// The configuration with the identity keys of the editor that wrote `docs` (the versions
    /// of one file) after the configured ones, and that editor.
    fn config_for<'a>(&self, docs: &[&'a Document<'a>]) -> (std::borrow::Cow<'_, JsonConfig>, Option<Profile>) {
        let profile = Profile::first(docs.iter().map(|d| d.profile()));
        let config = match profile {
            Some(profile) => {
                let mut config = self.config.clone();
                config.collections.extend(profile.collections());
                config.file_wide_ids.extend(profile.id_spaces().iter().filter(|s| !s.per_array && s.scope.is_none()).map(|s| s.arrays));
                if docs.iter().any(|d| d.follows_references) {
                    config.profile_reference_keys.extend(profile.reference_keys().iter().map(|k| (*k).to_owned()));
                    config.profile_named_references.extend_from_slice(profile.named_references());
                }
                std::borrow::Cow::Owned(config)
            }
            None => std::borrow::Cow::Borrowed(&self.config),
        };
        (config, profile)
    }
}

impl Codec for JsonCodec {
    type Document<'src> = Document<'src>;

    fn name(&self) -> &'static str {
        match self.dialect {
            Some(Dialect::Sjson) => "sjson",
            _ => "json",
        }
    }

    fn parse<'src>(&self, src: &'src [u8]) -> Result<Document<'src>, Problem> {
        parse::parse(src, self.dialect_for(src))
    }

    /// The syntax alone: a big level's values are not kept again only to be dropped.
    fn reads(&self, text: &[u8]) -> Result<(), Problem> {
        parse::check_syntax(text, self.dialect_for(text))
    }

    /// The containers of `read` that lie in lines the text holds alike are left unread: a
    /// merged level is mostly ours, and reading it whole was most of the time a big level's
    /// merge took after reading the versions. Strict JSON only, where such lines hold whole
    /// values (a line never starts inside a string). A container left unread is not measured
    /// for depth again either: one the text nests past the reader's limit where `read` did not
    /// is taken as read (the lines around it would differ in all but one-line texts).
    fn reads_like(&self, text: &[u8], read: &Document<'_>) -> Result<(), Problem> {
        let dialect = self.dialect_for(text);
        if dialect != Dialect::Json || read.dialect != Dialect::Json {
            return self.reads(text);
        }
        let (in_read, in_text) = levelmerge_core::text::equal_line_spans(read.src.as_bytes(), text);
        let known = parse::containers_within(read, &in_read, &in_text);
        parse::check_syntax_skipping(text, dialect, &known)
    }

    /// Containers lying in lines all three versions hold alike are left unread: most of a big
    /// level, where reading it all is most of a merge's time. Not where the whole file must be
    /// read: declared references, and Cocos files, whose references are positions.
    fn parse_versions<'src>(&self, texts: Sides<&'src [u8]>, parallel: bool) -> Sides<Result<Document<'src>, Problem>> {
        // Each version's editor is looked for once, here.
        let profiles = texts.map(|_, t| Profile::detect(t));
        let dialects = texts.map(|_, t| self.dialect_for(t));
        let profile = Profile::first([profiles.base, profiles.ours, profiles.theirs]);
        let closed = self.unread_containers(texts, profile, parallel);
        let inputs = Sides::new((texts.base, &closed.base), (texts.ours, &closed.ours), (texts.theirs, &closed.theirs));
        let follows_references = profile.is_some_and(|p| p.references_may_dangle(texts));
        levelmerge_core::codec::on_each_side(parallel, inputs, |side, (text, closed)| {
            let mut doc = parse::parse_skipping(text, *dialects.get(side), closed)?;
            doc.profile.get_or_init(|| *profiles.get(side));
            doc.follows_references = follows_references;
            Ok(doc)
        })
    }

    fn lower<'d>(&self, doc: &'d Document<'_>, side: Side, others: &[&'d Document<'_>]) -> Result<Level<'d>, Vec<Problem>> {
        self.lowered(doc, side, others)?.whole()
    }

    fn lower_for_check<'d, 's>(&self, doc: &'d Document<'s>) -> Result<Lowered<'d>, Vec<Problem>> {
        self.lowered(doc, Side::Ours, &[])
    }

    fn outline(&self, level: &levelmerge_core::model::Level<'_>) -> levelmerge_core::outline::Outline {
        outline::outline(level)
    }

    /// An element merged alone is named by elements in other parts (a Cocos component by its
    /// node and the node's parents): conflicts found in parts are named from the whole text.
    fn object_paths(&self, text: &[u8], ids: &[&str]) -> Option<Vec<Option<Vec<String>>>> {
        Some(levelmerge_core::inspect::paths_in_whole_text(self, text, ids))
    }

    /// A counter (`nextobjectid`, `nextUid`) at or below an id it counts; in a Tiled map,
    /// tilesets sharing gids and tiles no tileset holds; in an LDtk project, a painted tile
    /// numbered otherwise than its `src` shows and tile ids beyond a tileset; in a Cocos file, an element listed both
    /// as a child and as a component, nodes sharing an `_id`, and a hierarchy whose `_parent`
    /// and `_children` disagree or that makes a cycle.
    fn level_problems(&self, doc: &Document<'_>, _level: &Level<'_>) -> Vec<Problem> {
        let Some(profile) = doc.profile() else { return Vec::new() };
        let mut problems = renumber::counter_problems(doc, &profile.id_spaces());
        if profile == Profile::Tiled {
            problems.extend(tile_gids::gid_problems(doc));
            problems.extend(tiled_refs::dangling_object_properties(doc));
        }
        if profile == Profile::Ldtk {
            problems.extend(ldtk_tiles::tile_problems(doc));
        }
        if profile == Profile::Cocos {
            problems.extend(cocos::children_that_are_components(doc));
            problems.extend(cocos::nodes_sharing_an_id(doc));
            problems.extend(cocos_hierarchy::hierarchy_problems(doc));
        }
        problems
    }

    /// A merge is read back where it may break a rule of the editor's own
    /// ([`JsonCodec::level_problems`]) that nothing in the model sees: in a Tiled map whose
    /// versions list different tilesets, a gid no tileset holds (the tiles of two versions
    /// numbered by different lists); in LDtk files whose versions give a tileset other columns
    /// (or paint one of its places under other numbers), a tile numbered in the columns it no
    /// longer has; in a Cocos file, an element listed as a node's child by
    /// one side and as a component by the other. (Counters cannot: each is the largest of the
    /// versions', and every id it counts is one a version held below its own, or renumbered
    /// above all of them.)
    fn checks_output(&self, docs: Sides<&Document<'_>>) -> bool {
        match Profile::first([docs.base, docs.ours, docs.theirs].map(Document::profile)) {
            Some(Profile::Tiled) => {
                let lists = docs.map(|_, doc| tile_gids::written_tileset_lists(doc.src.as_bytes()));
                lists.ours != lists.base || lists.theirs != lists.base
            }
            Some(Profile::Ldtk) => ldtk_tiles::numbering_differs(docs),
            Some(Profile::Cocos) => true,
            _ => false,
        }
    }

    fn rules(&self, docs: Sides<&Document<'_>>) -> Vec<levelmerge_core::policy::Rule> {
        // Each document found its editor when it was lowered.
        Profile::first([docs.base, docs.ours, docs.theirs].map(Document::profile)).map_or_else(Vec::new, Profile::rules)
    }

    /// An empty string and `null`: what editors write for a field they add with no value yet
    /// (GDevelop's `iconUrl` on a format upgrade, Cocos' unset asset slots).
    fn empty_values(&self) -> &'static [&'static str] {
        &["\"\"", "null"]
    }

    /// Tile layers hold their cells row after row: Tiled's `data` (a map or a chunk of one),
    /// LDtk's `intGridCsv`.
    fn grids(&self, docs: Sides<&Document<'_>>) -> &'static [&'static str] {
        match Profile::first([docs.base, docs.ours, docs.theirs].map(Document::profile)) {
            Some(Profile::Tiled) => &["data"],
            Some(Profile::Ldtk) => &["intGridCsv"],
            _ => &[],
        }
    }

    fn concurrent_insertions(&self, docs: Sides<&Document<'_>>) -> ConcurrentInsertions {
        // GDevelop's event sheets (and their conditions and actions) are programs: two events
        // inserted at one place conflict. Its placed instances are a collection.
        match Profile::first([docs.base, docs.ours, docs.theirs].map(Document::profile)) {
            Some(Profile::GDevelop) => ConcurrentInsertions::KeptIn(&["instances"]),
            _ => ConcurrentInsertions::KeptEverywhere,
        }
    }

    fn renumber(&self, texts: Sides<&[u8]>) -> Option<levelmerge_core::Renumbered> {
        let all = [texts.base, texts.ours, texts.theirs];
        if self.dialect == Some(Dialect::Sjson) {
            return None;
        }
        match Profile::detect_among(&all)? {
            Profile::Cocos => {
                let parallel = all.iter().map(|t| t.len()).sum::<usize>() > levelmerge_core::codec::PARALLEL_FROM;
                let rewritten = cocos::to_identities_among(texts, parallel);
                Some(levelmerge_core::Renumbered {
                    base: Some(rewritten.base?),
                    ours: Some(rewritten.ours?),
                    theirs: Some(rewritten.theirs?),
                    notes: Vec::new(),
                    restore: true,
                })
            }
            profile => {
                // Read as the merge reads them, but for containers holding an id of the space.
                let parallel = all.iter().map(|t| t.len()).sum::<usize>() > levelmerge_core::codec::PARALLEL_FROM;
                let unread = || self.unread_containers(texts, Some(profile), parallel);
                let renumbered = renumber::renumber(texts, &profile.id_spaces(), unread);
                let (mut ours, mut theirs, mut notes) = match renumbered {
                    Some(r) => (r.ours, r.theirs, r.notes),
                    None => (None, None, Vec::new()),
                };
                let mut base = None;
                let current = Sides::new(texts.base, ours.as_deref().unwrap_or(texts.ours), theirs.as_deref().unwrap_or(texts.theirs));
                // Tile ids read in one numbering, where a side gave its tiles another.
                let renumbered_tiles = match profile {
                    Profile::Tiled => tile_renumbering::follow_renumbered(current),
                    Profile::Ldtk => ldtk_tiles::follow_resized(current),
                    _ => None,
                };
                if let Some((rewritten, note)) = renumbered_tiles {
                    base = rewritten.base;
                    ours = rewritten.ours.or(ours);
                    theirs = rewritten.theirs.or(theirs);
                    notes.push(note);
                } else if profile == Profile::Tiled {
                    if let Some((shifted, note)) = tile_gids::shift_theirs(current) {
                        theirs = Some(shifted);
                        notes.push(note);
                    }
                }
                if profile == Profile::Tiled {
                    let current = Sides::new(
                        base.as_deref().unwrap_or(texts.base),
                        ours.as_deref().unwrap_or(texts.ours),
                        theirs.as_deref().unwrap_or(texts.theirs),
                    );
                    if let Some((rewritten, note)) = tiled_bounds::united(current) {
                        ours = rewritten.ours.or(ours);
                        theirs = rewritten.theirs.or(theirs);
                        notes.push(note);
                    }
                }
                let any = base.is_some() || ours.is_some() || theirs.is_some();
                any.then_some(levelmerge_core::Renumbered { base, ours, theirs, notes, restore: false })
            }
        }
    }

    /// Cocos files in the identity form, by element: one element's text names its identity
    /// and holds every reference it makes, so a merge of elements each changed by one side is
    /// spliced, and its level read back whole.
    fn parts<'t>(&self, text: &'t [u8]) -> Option<Vec<&'t [u8]>> {
        cocos::parts(text)
    }

    fn part_gap(&self, part: &[u8]) -> Option<usize> {
        cocos::part_gap(part)
    }

    fn value_as_written(&self, value: String) -> String {
        cocos::without_identity_members(value)
    }

    fn restore(&self, text: Vec<u8>) -> Result<Vec<u8>, Problem> {
        cocos::to_positions(&text)
    }

    /// A Cocos file merged in its identity form is checked there: its elements are named by
    /// identity, not by a position an insertion before them moves.
    fn checked_in_own_form(&self) -> bool {
        true
    }

    /// A comment a side wrote that the merge of objects dropped ([`comments::dropped`]).
    fn dropped_text(&self, merged: &[u8], versions: Sides<&[u8]>) -> Option<(Side, Problem)> {
        comments::dropped(merged, versions, |text| self.dialect_for(text))
    }

    /// Turning a Cocos identity form back reads it whole, and refuses an identity held twice
    /// and a reference to no element. Nothing else can break: a version is only put in that
    /// form when each of its references names one element, and its level then has the
    /// elements' owners for parents, a tree.
    fn restore_checks_splices(&self) -> bool {
        true
    }

    fn conflicts_in_one_region(&self, ours_view: &[u8], theirs_view: &[u8]) -> bool {
        cocos::positions_differ(ours_view, theirs_view)
    }

    fn render(&self, docs: Sides<&Document<'_>>, level: &Resolved<'_>) -> Vec<u8> {
        render::Renderer { docs, level }.render()
    }
}

/// A rewrite made of the three versions before a merge ([`tile_renumbering`], [`ldtk_tiles`],
/// [`tiled_bounds`]) run on texts, what it wrote read as text.
#[cfg(test)]
pub(crate) fn rewritten_texts(
    rewrite: impl FnOnce(Sides<&[u8]>) -> Option<(Sides<Option<Vec<u8>>>, String)>,
    base: &str,
    ours: &str,
    theirs: &str,
) -> Option<(Sides<Option<String>>, String)> {
    let (texts, note) = rewrite(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes()))?;
    Some((texts.map(|_, t| t.map(|t| String::from_utf8(t).expect("a rewrite writes UTF-8"))), note))
}

/// The containers that open and close inside the stable ranges of each version (`stable`, from
/// [`levelmerge_core::text::stable_spans`]). The ranges hold the same bytes in every version:
/// their containers are found once, in base (a third of the ranges on each thread), and placed
/// in each version; each version checks the syntax of a third of their bytes.
fn closed_containers_of_versions(texts: Sides<&[u8]>, stable: &Sides<Vec<(u32, u32)>>, parallel: bool) -> Sides<Vec<parse::Closed>> {
    let range_thirds = thirds(stable.base.iter().map(|r| u64::from(r.1 - r.0)));
    let split = |k: usize| range_thirds.partition_point(|&t| t < k);
    let ranges = Sides::new(0..split(1), split(1)..split(2), split(2)..stable.base.len());
    let found = levelmerge_core::codec::on_each_side(parallel, ranges, |_, ranges| {
        let first = ranges.start;
        parse::closed_containers(texts.base, &stable.base[ranges])
            .into_iter()
            .map(|(r, open, end)| (first + r, open, end))
            .collect::<Vec<_>>()
    });
    let found: Vec<(usize, u32, u32)> = [found.base, found.ours, found.theirs].concat();
    let checkers = thirds(found.iter().map(|&(_, open, end)| u64::from(end - open)));
    stable.as_ref().map(|side, spans| {
        let turn = [Side::Base, Side::Ours, Side::Theirs].iter().position(|s| *s == side).unwrap_or(0);
        let moved = |range: usize, at: u32| at - stable.base[range].0 + spans[range].0;
        let place = |(&(range, open, end), &checker): (&(usize, u32, u32), &usize)| parse::Closed {
            open: moved(range, open),
            end: moved(range, end),
            check: checker == turn,
        };
        found.iter().zip(&checkers).map(place).collect::<Vec<_>>()
    })
}

/// Which third of the whole (0, 1 or 2) each of a run of sizes starts in: work shared out in
/// three runs of about equal size.
fn thirds(sizes: impl Iterator<Item = u64> + Clone) -> Vec<usize> {
    let total = sizes.clone().sum::<u64>().max(1);
    let mut before = 0u64;
    sizes
        .map(|size| {
            let third = (before * 3 / total).min(2) as usize;
            before += size;
            third
        })
        .collect()
}
