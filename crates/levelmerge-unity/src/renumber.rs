//! Both sides added different objects under the same fileID: theirs gets a fresh one.
//!
//! The object is told apart from "the same object added on both sides" by what identifies it:
//! its class, and where present its name, game object, script, source prefab (word by word: a
//! game object whose name alone differs, and whose components both sides added alike, is one
//! object renamed on one side). What belongs to
//! a renamed object (its components and children) is renamed with it, and so is the game object
//! of a renamed component. The fresh id is
//! the first free one above the old (unused in all three files, so deterministic), and every
//! local reference `{fileID: N}` in theirs is rewritten with it.

use levelmerge_core::Sides;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::lower::local_ref;
use crate::parse::{document_ids, documents_by_id, parse_three, UnityDoc, UnityFile, GAME_OBJECT_CLASS};
use crate::recreated::blanked_lines;

/// Fields that tell two objects apart.
const IDENTITY: [&str; 6] = ["m_Name", "m_GameObject", "m_Script", "m_SourcePrefab", "m_CorrespondingSourceObject", "m_PrefabInstance"];

fn field_text<'s>(file: &UnityFile<'s>, doc: &UnityDoc, key: &str) -> Option<&'s str> {
    let fields = file.fields(doc)?;
    file.get(fields, key).map(|v| file.text(file.nodes[v as usize].span).trim())
}

/// The identity fields both objects hold with different values.
fn differing_identity(ours: (&UnityFile<'_>, &UnityDoc), theirs: (&UnityFile<'_>, &UnityDoc)) -> Vec<&'static str> {
    // Unity folds a long flow mapping over two lines at will: the words are what count.
    let differ = |k: &str| match (field_text(ours.0, ours.1, k), field_text(theirs.0, theirs.1, k)) {
        (Some(a), Some(b)) => !a.split_whitespace().eq(b.split_whitespace()),
        _ => false,
    };
    IDENTITY.into_iter().filter(|k| differ(k)).collect()
}

fn same_kind(ours: &UnityDoc, theirs: &UnityDoc) -> bool {
    ours.class_id == theirs.class_id && ours.stripped == theirs.stripped
}

fn different_objects(ours: (&UnityFile<'_>, &UnityDoc), theirs: (&UnityFile<'_>, &UnityDoc)) -> bool {
    !same_kind(ours.1, theirs.1) || !differing_identity(ours, theirs).is_empty()
}

/// A game object both sides added under one fileID that differs in its name alone, each of
/// whose components both sides also added byte for byte alike, in an addition where another
/// game object, name and all, is alike on both sides: one object renamed on one side (the same
/// addition reached both branches), not two objects. Game objects added apart share no
/// fileIDs (Unity draws them at random); where ids are handed out in sequence, two additions
/// share ids without a single game object alike, and are renumbered.
fn renamed_in_place(ours: (&UnityFile<'_>, &UnityDoc), theirs: (&UnityFile<'_>, &UnityDoc), added_alike: &AddedAlike) -> bool {
    let only_name = added_alike.game_object
        && ours.1.class_id == GAME_OBJECT_CLASS
        && same_kind(ours.1, theirs.1)
        && differing_identity(ours, theirs) == ["m_Name"];
    let components = |(file, doc): (&UnityFile<'_>, &UnityDoc)| -> Vec<i64> {
        let listed = file.fields(doc).and_then(|f| file.get(f, "m_Component"));
        listed.map_or_else(Vec::new, |list| {
            file.items_of(list).iter().filter_map(|&item| file.get(item, "component").and_then(|c| local_ref(file, c))).collect()
        })
    };
    only_name && {
        let listed = components(theirs);
        !listed.is_empty() && listed == components(ours) && listed.iter().all(|id| added_alike.ids.contains(id))
    }
}

/// The objects both sides added under one fileID byte for byte alike.
struct AddedAlike {
    ids: FxHashSet<i64>,
    /// Whether a game object is among them.
    game_object: bool,
}

/// Theirs' text with colliding new objects renumbered, and a note per object.
pub fn renumber(texts: Sides<&[u8]>) -> Option<(Vec<u8>, Vec<String>)> {
    // Most merges add nothing under a shared id, and what both sides added alike under one
    // is one object: only a new id whose documents differ can lead to a renumbering (the
    // objects that follow a renumbered one are found from it). Told from the bytes alone.
    let base_ids: FxHashSet<i64> = document_ids(texts.base).collect();
    let ours_docs = documents_by_id(texts.ours);
    let differ_under_a_new_id = documents_by_id(texts.theirs)
        .into_iter()
        .any(|(id, text)| id != 0 && !base_ids.contains(&id) && ours_docs.get(&id).is_some_and(|ours| *ours != text));
    if !differ_under_a_new_id {
        return None;
    }
    let Sides { base, ours, theirs } = parse_three(texts)?;
    let index = |f: &UnityFile<'_>| -> FxHashMap<i64, usize> { f.docs.iter().enumerate().map(|(i, d)| (d.file_id, i)).collect() };
    let (bi, oi) = (index(&base), index(&ours));
    let used: FxHashSet<i64> = base.docs.iter().chain(&ours.docs).chain(&theirs.docs).map(|d| d.file_id).collect();
    // Objects both sides added under one id.
    let clashing: Vec<(&UnityDoc, &UnityDoc)> = theirs
        .docs
        .iter()
        .filter(|d| d.file_id != 0 && !bi.contains_key(&d.file_id))
        .filter_map(|d| oi.get(&d.file_id).map(|&o| (&ours.docs[o], d)))
        .collect();
    let alike: Vec<&UnityDoc> = clashing.iter().filter(|(o, t)| ours.text(o.span) == theirs.text(t.span)).map(|(_, t)| *t).collect();
    let added_alike =
        AddedAlike { ids: alike.iter().map(|d| d.file_id).collect(), game_object: alike.iter().any(|d| d.class_id == GAME_OBJECT_CLASS) };
    let mut renamed: FxHashSet<i64> = FxHashSet::default();
    // Different objects, then (until nothing changes) the parts of renamed objects: a component
    // or child of theirs' renamed object is theirs' too.
    // A link either side's version of a clashing object writes: the two versions share the
    // id, and which of them is theirs must not change what is renumbered.
    let refers =
        |(file, d): (&UnityFile<'_>, &UnityDoc), k: &str| file.fields(d).and_then(|f| file.get(f, k)).and_then(|n| local_ref(file, n));
    let refer = |o: &UnityDoc, t: &UnityDoc, k: &str| [refers((&ours, o), k), refers((&theirs, t), k)].into_iter().flatten();
    loop {
        let before = renamed.len();
        // A game object and its components are one unit: a renamed component takes its game
        // object along (and, through it, the other components), so that no game object ends
        // up listing a component that names another one.
        let owners_of_renamed: FxHashSet<i64> =
            clashing.iter().filter(|(_, t)| renamed.contains(&t.file_id)).flat_map(|(o, t)| refer(o, t, "m_GameObject")).collect();
        for (o, t) in &clashing {
            if renamed.contains(&t.file_id) {
                continue;
            }
            let belongs_to_renamed =
                ["m_GameObject", "m_Father", "m_PrefabInstance"].iter().any(|k| refer(o, t, k).any(|id| renamed.contains(&id)));
            let differ = ours.text(o.span) != theirs.text(t.span)
                && different_objects((&ours, o), (&theirs, t))
                && !renamed_in_place((&ours, o), (&theirs, t), &added_alike);
            if belongs_to_renamed || owners_of_renamed.contains(&t.file_id) || differ {
                renamed.insert(t.file_id);
            }
        }
        if renamed.len() == before {
            break;
        }
    }
    let mut held = held_copies(Sides::new(&base, &ours, &theirs), &renamed);
    // A copy is taken only where, once every id has moved, it reads as ours' object byte for
    // byte (a copy of a game object whose component is not one is not one either).
    let (map, moves, text) = loop {
        let mut used = used.clone();
        let mut map: FxHashMap<i64, i64> = held.iter().map(|(&t, &o)| (t, o)).collect();
        let mut moves = Vec::new();
        let mut walked = FxHashMap::default();
        for d in theirs.docs.iter().filter(|d| renamed.contains(&d.file_id) && !held.contains_key(&d.file_id)) {
            let id = first_free(d.file_id, &used, &mut walked);
            used.insert(id);
            map.insert(d.file_id, id);
            moves.push(format!("{} &{} → &{id}", theirs.class_name(d).unwrap_or("object"), d.file_id));
        }
        let text = rewrite_ids(&theirs, &map);
        if held.is_empty() {
            break (map, moves, text);
        }
        let rewritten = documents_by_id(&text);
        let unlike: Vec<i64> = held.iter().filter(|(_, o)| rewritten.get(o) != ours_docs.get(o)).map(|(&t, _)| t).collect();
        if unlike.is_empty() {
            break (map, moves, text);
        }
        for t in unlike {
            held.remove(&t);
        }
    };
    if map.is_empty() {
        return None;
    }
    let mut notes = Vec::new();
    if !moves.is_empty() {
        notes.push(levelmerge_core::text::renumbered_note("objects", "theirs", &moves));
    }
    // An object of theirs found under its own id in ours (moved with a renamed owner, until
    // its owner was found held) stays where it is: no copy to name.
    held.retain(|t, o| t != o);
    if !held.is_empty() {
        let mut copies: Vec<(i64, i64)> = held.into_iter().collect();
        copies.sort_unstable();
        let copies: Vec<String> = copies.iter().map(|(t, o)| format!("&{t} as &{o}")).collect();
        notes.push(format!(
            "ours holds {} of theirs' new object(s) already, under other fileIDs ({}): one object each, not two",
            copies.len(),
            levelmerge_core::text::first_of(&copies, 3)
        ));
    }
    Some((text, notes))
}

/// Theirs' new objects that ours holds under other new fileIDs (theirs' id → ours'): the same
/// class and text once every new id is blanked out, one object on each side to a text; then,
/// until no more are found, with the ids of objects found so far written as ours' (a game
/// object's transform reads like any other new transform until its game object is known).
/// Such a copy comes from an earlier merge that renumbered theirs' object, merged again from
/// an older base (a cherry-pick, a criss-cross history): keeping both would make one object
/// two. Ours' object must stand under an id theirs leaves free (holds nothing there, or an
/// object that moves away), or be the very object theirs renamed with its owner (it then
/// stays where it is).
fn held_copies(files: Sides<&UnityFile<'_>>, renamed: &FxHashSet<i64>) -> FxHashMap<i64, i64> {
    let ids = |f: &UnityFile<'_>| f.docs.iter().map(|d| d.file_id).collect::<FxHashSet<i64>>();
    let (base_ids, ours_ids, theirs_ids) = (ids(files.base), ids(files.ours), ids(files.theirs));
    let new_in = |f: &UnityFile<'_>| {
        f.docs.iter().filter(|d| d.file_id != 0 && !base_ids.contains(&d.file_id)).map(|d| d.file_id).collect::<FxHashSet<i64>>()
    };
    let (ours_new, theirs_new) = (new_in(files.ours), new_in(files.theirs));
    let blank: FxHashSet<i64> = ours_new.union(&theirs_new).copied().collect();
    let open_in_theirs =
        |d: &&UnityDoc| ours_new.contains(&d.file_id) && (!theirs_ids.contains(&d.file_id) || renamed.contains(&d.file_id));
    let ours_open: Vec<&UnityDoc> = files.ours.docs.iter().filter(open_in_theirs).collect();
    // Theirs' object under an id ours holds alike is that object already.
    let alike_at_its_id = |d: &UnityDoc| ours_ids.contains(&d.file_id) && !renamed.contains(&d.file_id);
    let theirs_open: Vec<&UnityDoc> = files.theirs.docs.iter().filter(|d| theirs_new.contains(&d.file_id) && !alike_at_its_id(d)).collect();
    type Key = (i64, bool, Vec<String>);
    let key = |f: &UnityFile<'_>, d: &UnityDoc, named: &FxHashMap<i64, i64>| -> Key {
        (d.class_id, d.stripped, blanked_lines(f.text(d.span), &blank, named))
    };
    let mut held: FxHashMap<i64, i64> = FxHashMap::default();
    loop {
        let ours_named: FxHashMap<i64, i64> = held.values().map(|&o| (o, o)).collect();
        let mut by_key: FxHashMap<Key, (Vec<i64>, Vec<i64>)> = FxHashMap::default();
        for d in ours_open.iter().filter(|d| !ours_named.contains_key(&d.file_id)) {
            by_key.entry(key(files.ours, d, &ours_named)).or_default().0.push(d.file_id);
        }
        for d in theirs_open.iter().filter(|d| !held.contains_key(&d.file_id)) {
            if let Some(entry) = by_key.get_mut(&key(files.theirs, d, &held)) {
                entry.1.push(d.file_id);
            }
        }
        let found: Vec<(i64, i64)> = by_key
            .into_values()
            .filter_map(|(o, t)| match (o.as_slice(), t.as_slice()) {
                ([o], [t]) => Some((*t, *o)),
                _ => None,
            })
            .collect();
        if found.is_empty() {
            return held;
        }
        held.extend(found);
    }
}

/// The first fileID from `id` up that is neither used nor 0. `walked` keeps, for each id
/// passed over, where a walk from it went on: ids never become free again, so a later walk
/// jumps the run (40,000 objects renumbered into a run of used ids otherwise walked it again
/// for each, and took seconds).
fn first_free(id: i64, used: &FxHashSet<i64>, walked: &mut FxHashMap<i64, i64>) -> i64 {
    let mut passed = Vec::new();
    let mut at = id;
    loop {
        if let Some(&further) = walked.get(&at) {
            passed.push(at);
            at = further;
        } else if at == 0 || used.contains(&at) {
            passed.push(at);
            at = at.wrapping_add(1);
        } else {
            break;
        }
    }
    for p in passed {
        walked.insert(p, at);
    }
    at
}

/// `file`'s text with the fileIDs `map` names replaced: each document's `&N`, and every local
/// reference `{fileID: N}` (a reference into another asset keeps its fileID).
pub fn rewrite_ids(file: &UnityFile<'_>, map: &FxHashMap<i64, i64>) -> Vec<u8> {
    let src = file.src;
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for d in &file.docs {
        if let Some(new) = map.get(&d.file_id) {
            let header = &src[d.span.0 as usize..];
            let amp = header.find('&').expect("a document header holds its fileID");
            let start = d.span.0 as usize + amp + 1;
            edits.push((start, start + d.file_id.to_string().len(), new.to_string()));
        }
    }
    for n in 0..file.nodes.len() as u32 {
        let Some(id) = local_ref(file, n) else { continue };
        let Some(new) = map.get(&id) else { continue };
        let value = file.entries_of(n)[0].value;
        let span = file.nodes[value as usize].span;
        edits.push((span.0 as usize, span.1 as usize, new.to_string()));
    }
    levelmerge_core::text::splice(src, edits).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_free_id_is_found_past_runs_walked_before() {
        let mut used: FxHashSet<i64> = (1..100).chain([200]).collect();
        let mut walked = FxHashMap::default();
        let mut take = |id: i64, used: &mut FxHashSet<i64>| {
            let free = first_free(id, used, &mut walked);
            used.insert(free);
            free
        };
        assert_eq!(take(5, &mut used), 100);
        assert_eq!(take(5, &mut used), 101, "the run now ends one further");
        assert_eq!(take(50, &mut used), 102);
        assert_eq!(take(199, &mut used), 199);
        assert_eq!(take(199, &mut used), 201, "199 and 200 taken");
        assert_eq!(take(-1, &mut used), -1);
        assert_eq!(take(-1, &mut used), 103, "0 is never an id");
    }

    #[test]
    fn colliding_new_objects_are_renumbered_with_their_references() {
        let base = "%YAML 1.1\n--- !u!1 &10\nGameObject:\n  m_Component:\n  - component: {fileID: 11}\n  m_Name: Root\n";
        let ours = format!("{base}--- !u!1 &50\nGameObject:\n  m_Name: Lamp\n");
        let theirs = format!("{base}--- !u!1 &50\nGameObject:\n  m_Name: Door\n--- !u!114 &60\nMonoBehaviour:\n  m_GameObject: {{fileID: 50}}\n  m_Other: {{fileID: 50, guid: abc, type: 3}}\n");
        let (text, notes) = renumber(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes())).expect("a collision");
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("--- !u!1 &51\nGameObject:\n  m_Name: Door\n"), "{text}");
        assert!(text.contains("m_GameObject: {fileID: 51}"), "{text}");
        // A reference into another asset keeps its fileID.
        assert!(text.contains("m_Other: {fileID: 50, guid: abc, type: 3}"), "{text}");
        assert_eq!(notes.len(), 1);
    }

    #[test]
    fn a_renamed_component_takes_its_game_object_and_siblings_along() {
        let base = "%YAML 1.1\n--- !u!1 &10\nGameObject:\n  m_Name: Root\n";
        // Both added a Lamp under one fileID, each under a different parent (70): theirs' 70
        // differs, so theirs' transform 61 (whose father it is) is renamed, and with it the
        // Lamp 50 that owns it and the Lamp's light 62.
        let side = |parent: &str| {
            format!(
                "{base}--- !u!1 &50\nGameObject:\n  m_Component:\n  - component: {{fileID: 61}}\n  - component: {{fileID: 62}}\n  m_Name: Lamp\n--- !u!4 &61\nTransform:\n  m_GameObject: {{fileID: 50}}\n  m_Father: {{fileID: 70}}\n--- !u!108 &62\nLight:\n  m_GameObject: {{fileID: 50}}\n--- !u!1 &70\nGameObject:\n  m_Name: {parent}\n"
            )
        };
        let (ours, theirs) = (side("Left"), side("Right"));
        let (text, notes) = renumber(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes())).expect("a collision");
        let text = String::from_utf8(text).unwrap();
        assert!(notes.len() == 1 && notes[0].contains("under 4 id(s)"), "{notes:?}");
        assert!(!text.contains("&50\n") && !text.contains("&61\n") && !text.contains("&62\n") && !text.contains("&70\n"), "{text}");
        assert!(!text.contains("{fileID: 50}") && !text.contains("{fileID: 61}"), "{text}");
    }

    #[test]
    fn a_component_follows_its_renamed_game_object_whichever_side_names_the_link() {
        let base = "%YAML 1.1\n--- !u!1 &10\nGameObject:\n  m_Name: Root\n";
        // Both added a different Lamp 50 with a renderer 51 alike but for one thing: one side's
        // renderer lost its link to the Lamp (a damaged line). The renderer goes with the Lamp
        // whichever side's version names the link.
        let lamp = |name: &str, link: &str| {
            format!("{base}--- !u!1 &50\nGameObject:\n  m_Component:\n  - component: {{fileID: 51}}\n  m_Name: {name}\n--- !u!222 &51\nCanvasRenderer:\n{link}  m_CullTransparentMesh: 1\n")
        };
        let (linked, unlinked) = (lamp("Lamp", "  m_GameObject: {fileID: 50}\n"), lamp("Torch", "  m_Gamebject: {fileID: 50}\n"));
        for (ours, theirs) in [(&linked, &unlinked), (&unlinked, &linked)] {
            let (text, notes) = renumber(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes())).expect("a collision");
            let text = String::from_utf8(text).unwrap();
            assert!(notes.len() == 1 && notes[0].contains("under 2 id(s)"), "{notes:?}");
            assert!(!text.contains("&50\n") && !text.contains("&51\n"), "{text}");
        }
    }

    #[test]
    fn many_renumbered_objects_make_one_note_that_lists_the_first() {
        let base = "%YAML 1.1\n--- !u!1 &10\nGameObject:\n  m_Name: Root\n";
        let side = |name: &str| -> String {
            let added: String = (50..58).map(|id| format!("--- !u!1 &{id}\nGameObject:\n  m_Name: {name}{id}\n")).collect();
            format!("{base}{added}")
        };
        let (ours, theirs) = (side("A"), side("B"));
        let (_, notes) = renumber(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes())).expect("a collision");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("both sides added different objects under 8 id(s); theirs' are renumbered: GameObject &50 → &58, "));
        assert!(notes[0].ends_with("GameObject &55 → &63 and 2 more"), "{notes:?}");
    }

    #[test]
    fn an_identity_folded_over_two_lines_is_the_same_identity() {
        let base = "%YAML 1.1\n--- !u!1 &10\nGameObject:\n  m_Name: Root\n";
        let side = |source: &str, value: &str| {
            format!("{base}--- !u!224 &50 stripped\nRectTransform:\n  m_CorrespondingSourceObject: {source}\n  m_PrefabInstance: {{fileID: 60}}\n  m_Value: {value}\n")
        };
        let ours = side("{fileID: 57, guid: 2f2de97a89d7bef42919fd16c2f87f10,\n    type: 3}", "1");
        let theirs = side("{fileID: 57, guid: 2f2de97a89d7bef42919fd16c2f87f10, type: 3}", "2");
        assert!(renumber(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes())).is_none());
        // A different source is a different object.
        let theirs = side("{fileID: 58, guid: 2f2de97a89d7bef42919fd16c2f87f10, type: 3}", "2");
        assert!(renumber(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes())).is_some());
    }

    #[test]
    fn a_game_object_renamed_on_one_side_whose_components_both_added_alike_is_one_object() {
        let base = "%YAML 1.1\n--- !u!1 &10\nGameObject:\n  m_Name: Root\n";
        let side = |name: &str, light: &str| {
            format!(
                "{base}--- !u!1 &50\nGameObject:\n  m_Component:\n  - component: {{fileID: 61}}\n  - component: {{fileID: 62}}\n  m_Name: {name}\n--- !u!4 &61\nTransform:\n  m_GameObject: {{fileID: 50}}\n  m_Father: {{fileID: 0}}\n--- !u!108 &62\nLight:\n  m_GameObject: {{fileID: 50}}\n  m_Intensity: {light}\n--- !u!1 &70\nGameObject:\n  m_Name: Shade\n"
            )
        };
        let ours = side("Lamp", "1");
        assert!(renumber(Sides::new(base.as_bytes(), ours.as_bytes(), side("Lamp (1)", "1").as_bytes())).is_none());
        // Without a game object alike on both sides, two additions that share ids are two.
        let apart = |text: String| text.replace("m_Name: Shade", "m_Name: Shade2");
        let (_, notes) =
            renumber(Sides::new(base.as_bytes(), ours.as_bytes(), apart(side("Lamp (1)", "1")).as_bytes())).expect("a collision");
        assert!(notes.len() == 1 && notes[0].contains("under 4 id(s)"), "{notes:?}");
        // A component that differs too: two objects, the game object and its components renumbered.
        let (_, notes) = renumber(Sides::new(base.as_bytes(), ours.as_bytes(), side("Lamp (1)", "2").as_bytes())).expect("a collision");
        assert!(notes.len() == 1 && notes[0].contains("under 3 id(s)"), "{notes:?}");
    }

    #[test]
    fn the_same_object_added_on_both_sides_is_not_renumbered() {
        let base = "%YAML 1.1\n--- !u!1 &10\nGameObject:\n  m_Name: Root\n";
        let ours = format!("{base}--- !u!1 &50\nGameObject:\n  m_Name: Lamp\n  m_Layer: 0\n");
        let theirs = format!("{base}--- !u!1 &50\nGameObject:\n  m_Name: Lamp\n  m_Layer: 5\n");
        assert!(renumber(Sides::new(base.as_bytes(), ours.as_bytes(), theirs.as_bytes())).is_none());
    }
}
