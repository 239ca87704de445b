//! LDtk projects where both sides add and delete entity definitions and place, move and remove
//! their instances: every clean merge is a project LDtk opens (each definition uid and name
//! once, `nextUid` above every uid, every instance of a definition that exists).

use levelmerge_json::JsonCodec;
use levelmerge_testutils::laws::{clean_result_passes, merge_keeping_the_laws, repeated};
use proptest::prelude::*;
use serde_json::Value;

#[derive(Debug, Clone)]
struct Project {
    next_uid: u32,
    /// Entity definitions: uid and identifier.
    defs: Vec<(u32, String)>,
    /// Entity instances of the one level: iid, defUid, x.
    instances: Vec<(String, u32, u32)>,
    /// Distinguishes the iids a version hands out (LDtk makes them random).
    side: char,
    made: u32,
}

#[derive(Debug, Clone)]
enum Edit {
    Define(u8),
    Undefine(usize),
    Place(usize, u32),
    Move(usize, u32),
    Remove(usize),
}

impl Project {
    fn base(side: char) -> Project {
        Project {
            next_uid: 12,
            defs: vec![(8, "Door".into()), (9, "Key".into())],
            instances: vec![("i1".into(), 8, 10), ("i2".into(), 9, 20)],
            side,
            made: 0,
        }
    }

    fn apply(&mut self, edit: &Edit) {
        match *edit {
            Edit::Define(name) => {
                let identifier = format!("Thing{name}");
                if !self.defs.iter().any(|(_, n)| *n == identifier) {
                    self.defs.push((self.next_uid, identifier));
                    self.next_uid += 1;
                }
            }
            // LDtk removes a definition's instances with it.
            Edit::Undefine(at) if !self.defs.is_empty() => {
                let (uid, _) = self.defs.remove(at % self.defs.len());
                self.instances.retain(|(_, def, _)| *def != uid);
            }
            Edit::Place(def, x) if !self.defs.is_empty() => {
                self.made += 1;
                let iid = format!("{}{}", self.side, self.made);
                self.instances.push((iid, self.defs[def % self.defs.len()].0, x));
            }
            Edit::Move(at, x) if !self.instances.is_empty() => {
                let at = at % self.instances.len();
                self.instances[at].2 = x;
            }
            Edit::Remove(at) if !self.instances.is_empty() => {
                self.instances.remove(at % self.instances.len());
            }
            _ => {}
        }
    }

    fn json(&self) -> String {
        let defs: Vec<String> =
            self.defs.iter().map(|(uid, name)| format!("\t\t\t{{ \"identifier\": \"{name}\", \"uid\": {uid} }}")).collect();
        let instances: Vec<String> = self
            .instances
            .iter()
            .map(|(iid, def, x)| format!("\t\t\t\t{{ \"iid\": \"{iid}\", \"defUid\": {def}, \"px\": [{x},0] }}"))
            .collect();
        format!(
            "{{\n\t\"__header__\": {{ \"app\": \"LDtk\" }},\n\t\"nextUid\": {},\n\t\"defs\": {{ \"entities\": [\n{}\n\t\t] }},\n\t\"levels\": [\n\t\t{{ \"identifier\": \"Start\", \"iid\": \"S\", \"uid\": 10, \"layerInstances\": [\n\t\t\t{{ \"iid\": \"L\", \"levelId\": 10, \"entityInstances\": [\n{}\n\t\t\t] }}\n\t\t] }}\n\t]\n}}\n",
            self.next_uid,
            defs.join(",\n"),
            instances.join(",\n")
        )
    }
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        (0u8..3).prop_map(Edit::Define),
        (0usize..6).prop_map(Edit::Undefine),
        ((0usize..6), (0u32..50)).prop_map(|(d, x)| Edit::Place(d, x)),
        ((0usize..6), (0u32..50)).prop_map(|(i, x)| Edit::Move(i, x)),
        (0usize..6).prop_map(Edit::Remove),
    ];
    prop::collection::vec(edit, 0..5)
}

fn version(side: char, edits: &[Edit]) -> String {
    let mut p = Project::base(side);
    for e in edits {
        p.apply(e);
    }
    p.json()
}

/// What LDtk needs of the merged project.
fn project_problems(text: &str) -> Vec<String> {
    let p: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return vec![format!("not JSON: {e}")],
    };
    let mut problems = Vec::new();
    let defs: Vec<&Value> = p["defs"]["entities"].as_array().into_iter().flatten().collect();
    let uids: Vec<u64> = defs.iter().filter_map(|d| d["uid"].as_u64()).collect();
    let names: Vec<&str> = defs.iter().filter_map(|d| d["identifier"].as_str()).collect();
    problems.extend(repeated("definition uid", &uids));
    problems.extend(repeated("definition", &names));
    let next = p["nextUid"].as_u64().unwrap_or(0);
    if let Some(max) = uids.iter().chain([10u64].iter()).max().filter(|m| **m >= next) {
        problems.push(format!("nextUid {next} is not above uid {max}"));
    }
    for level in p["levels"].as_array().into_iter().flatten() {
        for layer in level["layerInstances"].as_array().into_iter().flatten() {
            for e in layer["entityInstances"].as_array().into_iter().flatten() {
                if let Some(def) = e["defUid"].as_u64().filter(|d| !uids.contains(d)) {
                    problems.push(format!("instance {} of missing definition {def}", e["iid"]));
                }
            }
        }
    }
    problems
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn ldtk_merges_keep_the_laws_and_give_projects_ldtk_opens(ours_edits in edits(), theirs_edits in edits()) {
        let b = Project::base('b').json();
        let x = version('o', &ours_edits);
        let y = version('t', &theirs_edits);
        let m = merge_keeping_the_laws(&JsonCodec::default(), &b, &x, &y).map_err(TestCaseError::fail)?;
        clean_result_passes(&m, &b, &x, &y, project_problems).map_err(TestCaseError::fail)?;
    }
}

/// An LDtk project of two levels, `a` at x 0 and `b` at `b_x` (each 32 pixels square), each
/// listing the other as a neighbour in `dir` from it where it is given; `b` left out where it
/// is `None`.
fn world(b_x: Option<(i64, Option<(&str, &str)>)>) -> String {
    let neighbours = |n: Option<(&str, &str)>| {
        n.map_or(String::new(), |(iid, dir)| format!("\n\t\t\t\t{{ \"levelIid\": \"{iid}\", \"dir\": \"{dir}\" }}\n\t\t\t"))
    };
    let level = |id: &str, uid: u32, x: i64, n: Option<(&str, &str)>| {
        format!(
            "\t\t{{\n\t\t\t\"identifier\": \"Level_{id}\",\n\t\t\t\"iid\": \"{id}\",\n\t\t\t\"uid\": {uid},\n\t\t\t\"worldX\": {x},\n\t\t\t\"worldY\": 0,\n\t\t\t\"pxWid\": 32,\n\t\t\t\"pxHei\": 32,\n\t\t\t\"layerInstances\": [],\n\t\t\t\"__neighbours\": [{}]\n\t\t}}",
            neighbours(n)
        )
    };
    let mut levels = vec![level("a", 1, 0, b_x.and_then(|(_, n)| n.map(|_| ("b", "e"))))];
    if let Some((x, n)) = b_x {
        levels.push(level("b", 2, x, n));
    }
    format!(
        "{{\n\t\"__header__\": {{ \"app\": \"LDtk\" }},\n\t\"jsonVersion\": \"1.5.3\",\n\t\"nextUid\": 3,\n\t\"defs\": {{ \"layers\": [], \"entities\": [] }},\n\t\"levels\": [\n{}\n\t]\n}}\n",
        levels.join(",\n")
    )
}

/// Ours moves level b beside level a (each then lists the other in `__neighbours`); theirs
/// deletes b. The move and the deletion conflict, and a's entry for b, which ours added,
/// stood in theirs' view too, naming a level that is gone there. It now goes with b.
#[test]
fn a_neighbour_one_side_listed_goes_with_the_level_the_other_side_deleted() {
    use levelmerge_core::{merge_texts, Options, Side, Sides};
    let base = world(Some((256, None)));
    let ours = world(Some((32, Some(("a", "w")))));
    let theirs = world(None);
    for (o, t, theirs_side) in [(&ours, &theirs, Side::Theirs), (&theirs, &ours, Side::Ours)] {
        let sides = Sides::new(base.as_bytes(), o.as_bytes(), t.as_bytes());
        let r = merge_texts(&JsonCodec::default(), sides, &Options::default(), &Default::default()).expect("the merge runs");
        assert!(r.open_conflicts > 0);
        let regions = levelmerge_core::regions::conflict_regions(&r.text).expect("markers read back");
        for (side, want) in [(Side::Ours, o), (Side::Theirs, t)] {
            let view = String::from_utf8(levelmerge_core::regions::side_view(&r.text, &regions, side).unwrap()).unwrap();
            assert!(levelmerge_core::check_text(&JsonCodec::default(), view.as_bytes()).is_empty(), "{side}'s view:\n{view}");
            if side == theirs_side {
                assert_eq!(&view, want, "the view deleting b");
            }
        }
    }
}
