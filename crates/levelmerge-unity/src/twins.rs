//! Components both sides added to one game object, alike but for their fileIDs, made one
//! object before the merge.
//!
//! Unity draws a new component's fileID at random, so one component added on two branches (an
//! AudioListener both sides gave the ship, the URP light data the editor adds to every light
//! it shows) comes under two ids. Read by id, the merge keeps both, and the game object holds
//! the component twice (a `[DisallowMultipleComponent]` script refuses the second; people
//! kept one in every such merge of the corpus). Where each side added exactly one component
//! of one text to a game object both sides hold alike, theirs is given ours' id (its document
//! and every local reference to it), so that the merge sees one object both sides added
//! alike. Components that differ in anything else (a setting, a reference) stay two objects:
//! which of them was meant is not the merge's to guess. Deterministic.

use levelmerge_core::{Renumbered, Sides};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::parse::{document_ids, documents_by_id, parse, GAME_OBJECT_CLASS};
use crate::renumber::rewrite_ids;

/// A document's text cut around its fileID: the header up to `&`, and all after the id.
type Shape<'t> = (&'t [u8], &'t [u8]);

/// The text of `doc` (which starts with its `--- !u!CLASS &ID` line) without its fileID;
/// `None` for a stripped placeholder or a game object.
fn shape(doc: &[u8]) -> Option<Shape<'_>> {
    let line_end = memchr::memchr(b'\n', doc).unwrap_or(doc.len());
    let amp = memchr::memchr(b'&', &doc[..line_end])?;
    let digits = doc[amp + 1..line_end].iter().take_while(|b| b.is_ascii_digit() || **b == b'-').count();
    let after = &doc[amp + 1 + digits..];
    let class: i64 = std::str::from_utf8(doc.get(7..amp)?).ok()?.trim().parse().ok()?;
    let stripped = after[..line_end - amp - 1 - digits].windows(8).any(|w| w == b"stripped");
    (class != GAME_OBJECT_CLASS && !stripped).then_some((&doc[..=amp], after))
}

/// The game object a component's text names (`  m_GameObject: {fileID: N}`).
fn game_object(doc: &[u8]) -> Option<i64> {
    const FIELD: &[u8] = b"\n  m_GameObject: {fileID: ";
    let at = memchr::memmem::find(doc, FIELD)? + FIELD.len();
    let digits = doc[at..].iter().take_while(|b| b.is_ascii_digit() || **b == b'-').count();
    (doc.get(at + digits) == Some(&b'}')).then(|| std::str::from_utf8(&doc[at..at + digits]).ok()?.parse().ok()).flatten()
}

/// What a component is, as a note names it: the class its document's second line gives
/// (`AudioListener:`), and the script's guid for a script (`MonoBehaviour (script 474bcb…)`).
fn component_name(doc: &[u8]) -> String {
    let body = memchr::memchr(b'\n', doc).map_or(&doc[..0], |i| &doc[i + 1..]);
    let name = String::from_utf8_lossy(&body[..memchr::memchr(b':', body).unwrap_or(0)]).into_owned();
    const SCRIPT: &[u8] = b"\n  m_Script: {fileID: 11500000, guid: ";
    let guid = memchr::memmem::find(doc, SCRIPT)
        .map(|at| &doc[at + SCRIPT.len()..])
        .map(|g| &g[..g.iter().take_while(|b| b.is_ascii_hexdigit()).count()]);
    match guid {
        Some(guid) if !guid.is_empty() => format!("{name} (script {})", String::from_utf8_lossy(guid)),
        _ => name,
    }
}

/// Whether `text` holds a local reference to `id` (`{fileID: ID}`).
fn refers_to(text: &[u8], id: i64) -> bool {
    memchr::memmem::find(text, format!("{{fileID: {id}}}").as_bytes()).is_some()
}

/// A side's new components on game objects `held_alike`, by text without the id and game
/// object: the ids of each.
fn added<'t>(
    side: &FxHashMap<i64, &'t [u8]>,
    other: &FxHashMap<i64, &'t [u8]>,
    base_ids: &FxHashSet<i64>,
    held_alike: impl Fn(i64) -> bool,
) -> FxHashMap<(Shape<'t>, i64), Vec<i64>> {
    let mut by_shape: FxHashMap<(Shape<'t>, i64), Vec<i64>> = FxHashMap::default();
    for (&id, &doc) in side {
        if id == 0 || base_ids.contains(&id) || other.contains_key(&id) {
            continue;
        }
        let Some(shape) = shape(doc) else { continue };
        let Some(owner) = game_object(doc).filter(|&g| held_alike(g)) else { continue };
        by_shape.entry((shape, owner)).or_default().push(id);
    }
    by_shape
}

/// Theirs with each component it added that ours added alike given ours' fileID; `None`
/// when there is none.
pub fn align(texts: Sides<&[u8]>) -> Option<Renumbered> {
    if texts.ours == texts.theirs || texts.base == texts.ours || texts.base == texts.theirs {
        return None;
    }
    let base_ids: FxHashSet<i64> = document_ids(texts.base).collect();
    let (ours, theirs) = (documents_by_id(texts.ours), documents_by_id(texts.theirs));
    // The game objects both sides hold alike: from base, or added alike by both.
    let held_alike = &|g: i64| match (ours.get(&g), theirs.get(&g)) {
        (Some(o), Some(t)) => base_ids.contains(&g) || o == t,
        _ => false,
    };
    let (ours_added, theirs_added) = (added(&ours, &theirs, &base_ids, held_alike), added(&theirs, &ours, &base_ids, held_alike));
    let mut pairs: Vec<(i64, i64, i64, &[u8])> = theirs_added
        .iter()
        .filter_map(|(key, t)| match (ours_added.get(key)?.as_slice(), t.as_slice()) {
            ([o], [t]) if !refers_to(texts.theirs, *o) && !refers_to(texts.ours, *t) => Some((*t, *o, key.1, ours[o])),
            _ => None,
        })
        .collect();
    if pairs.is_empty() {
        return None;
    }
    pairs.sort_unstable_by_key(|p| p.1);
    let file = parse(texts.theirs).ok()?;
    let map: FxHashMap<i64, i64> = pairs.iter().map(|&(t, o, _, _)| (t, o)).collect();
    let owners: Vec<String> = pairs.iter().map(|p| p.2.to_string()).collect();
    let paths = crate::outline::object_paths(texts.ours, &owners.iter().map(String::as_str).collect::<Vec<_>>());
    let notes = pairs
        .iter()
        .zip(paths)
        .map(|(&(t, o, owner, doc), path)| {
            let named = path.map_or_else(String::new, |p| format!("{} ", p.join("/")));
            let component = component_name(doc);
            format!("both sides added the same {component} to game object {named}&{owner} (ours &{o}, theirs &{t}): kept once, as &{o}")
        })
        .collect();
    Some(Renumbered { theirs: Some(rewrite_ids(&file, &map)), notes, ..Renumbered::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n";

    fn game_object(id: i64, components: &[i64]) -> String {
        let listed: String = components.iter().map(|c| format!("  - component: {{fileID: {c}}}\n")).collect();
        format!("--- !u!1 &{id}\nGameObject:\n  m_Component:\n{listed}  m_Name: Ship\n")
    }

    fn listener(id: i64, owner: i64, enabled: u8) -> String {
        format!("--- !u!81 &{id}\nAudioListener:\n  m_GameObject: {{fileID: {owner}}}\n  m_Enabled: {enabled}\n")
    }

    fn transform(id: i64, owner: i64) -> String {
        format!("--- !u!4 &{id}\nTransform:\n  m_GameObject: {{fileID: {owner}}}\n  m_Children: []\n  m_Father: {{fileID: 0}}\n")
    }

    fn file(docs: &[String]) -> Vec<u8> {
        format!("{HEADER}{}", docs.concat()).into_bytes()
    }

    #[test]
    fn one_component_each_side_added_alike_takes_ours_id_in_theirs() {
        let base = file(&[game_object(1, &[4]), transform(4, 1)]);
        let ours = file(&[game_object(1, &[4, 70]), transform(4, 1), listener(70, 1, 0)]);
        let theirs = file(&[game_object(1, &[4, 90]), transform(4, 1), listener(90, 1, 0)]);
        let aligned = align(Sides::new(&base, &ours, &theirs)).expect("the listeners are one");
        assert_eq!(aligned.theirs.as_deref(), Some(&ours[..]), "theirs now reads as ours");
        assert!(aligned.base.is_none() && aligned.ours.is_none());
        assert_eq!(
            aligned.notes,
            ["both sides added the same AudioListener to game object Ship &1 (ours &70, theirs &90): kept once, as &70"]
        );
    }

    #[test]
    fn components_that_differ_or_cannot_be_paired_one_to_one_stay_two() {
        let base = file(&[game_object(1, &[4]), transform(4, 1)]);
        let ours = file(&[game_object(1, &[4, 70]), transform(4, 1), listener(70, 1, 0)]);
        let differs = file(&[game_object(1, &[4, 90]), transform(4, 1), listener(90, 1, 1)]);
        assert!(align(Sides::new(&base, &ours, &differs)).is_none(), "another setting: two components");
        let two = file(&[game_object(1, &[4, 90, 91]), transform(4, 1), listener(90, 1, 0), listener(91, 1, 0)]);
        assert!(align(Sides::new(&base, &ours, &two)).is_none(), "which of theirs two is ours' is not told");
        // A game object only one side holds is not held alike.
        let ours_new = file(&[game_object(1, &[4]), transform(4, 1), game_object(2, &[70]), listener(70, 2, 0)]);
        let theirs_new = file(&[game_object(1, &[4]), transform(4, 1), game_object(2, &[90, 5]), listener(90, 2, 0)]);
        assert!(align(Sides::new(&base, &ours_new, &theirs_new)).is_none(), "owners added unlike");
    }

    #[test]
    fn a_script_is_named_by_its_guid() {
        let script = b"--- !u!114 &7\nMonoBehaviour:\n  m_GameObject: {fileID: 1}\n  m_Script: {fileID: 11500000, guid: 474bcb49853aa07438625e644c072ee6, type: 3}\n";
        assert_eq!(component_name(script), "MonoBehaviour (script 474bcb49853aa07438625e644c072ee6)");
        assert_eq!(component_name(listener(70, 1, 0).as_bytes()), "AudioListener");
    }

    #[test]
    fn an_id_the_other_side_already_names_is_left_alone() {
        let base = file(&[game_object(1, &[4]), transform(4, 1)]);
        let ours = file(&[game_object(1, &[4, 70]), transform(4, 1), listener(70, 1, 0)]);
        // Theirs holds a (dangling) reference to 70 elsewhere: taking that id would join them.
        let mut theirs = file(&[game_object(1, &[4, 90]), transform(4, 1), listener(90, 1, 0)]);
        theirs.extend_from_slice(b"--- !u!114 &5\nMonoBehaviour:\n  m_GameObject: {fileID: 1}\n  target: {fileID: 70}\n");
        assert!(align(Sides::new(&base, &ours, &theirs)).is_none());
    }
}
