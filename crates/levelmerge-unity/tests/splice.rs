//! The spliced merge (documents copied from the side that changed them) and the whole merge
//! (every document read and merged) agree on generated edits of a scene: both clean with the
//! same bytes, or both left with conflicts. The edits are the ones that trip a splice: game
//! objects added under fileIDs the other side also took, deleted under the other side's edits
//! or references, moved to other parents or to the back of their siblings, re-created under
//! new fileIDs, components added and removed.

use levelmerge_testutils::corpus::splice_agrees_with_whole_merge;
use levelmerge_unity::UnityCodec;
use proptest::prelude::*;

/// A game object with its transform and, optionally, a light and a script that follows
/// another game object's transform.
#[derive(Clone, Debug)]
struct Thing {
    /// The game object's fileID; its transform is `id + 1`, its light `id + 2`, its script `id + 3`.
    id: i64,
    name: &'static str,
    parent: Option<i64>,
    x: u8,
    light: Option<u8>,
    follows: Option<i64>,
}

#[derive(Clone, Debug)]
enum Edit {
    Add {
        slot: usize,
        parent: usize,
        name: &'static str,
    },
    Delete(usize),
    Move(usize, u8),
    Reparent(usize, usize),
    Light(usize, Option<u8>),
    Follow(usize, Option<usize>),
    /// Last among its siblings.
    ToBack(usize),
    /// Deleted and made again under new fileIDs, as a re-created object is.
    Recreate(usize),
}

#[derive(Clone, Debug)]
struct Scene(Vec<Thing>);

impl Scene {
    fn base() -> Scene {
        let thing = |id, name, parent| Thing { id, name, parent, x: 0, light: None, follows: None };
        let mut lamp = thing(30, "Lamp", Some(10));
        lamp.light = Some(1);
        let mut cam = thing(40, "Camera", None);
        cam.follows = Some(30);
        Scene(vec![thing(10, "Root", None), thing(20, "Floor", Some(10)), lamp, cam])
    }

    fn pick(&self, i: usize) -> Option<usize> {
        (!self.0.is_empty()).then(|| i % self.0.len())
    }

    /// The things under `id`, itself included.
    fn subtree(&self, id: i64) -> Vec<i64> {
        let mut all = vec![id];
        let mut at = 0;
        while at < all.len() {
            let p = all[at];
            all.extend(self.0.iter().filter(|t| t.parent == Some(p)).map(|t| t.id));
            at += 1;
        }
        all
    }

    fn apply(&mut self, edit: &Edit) {
        match *edit {
            Edit::Add { slot, parent, name } => {
                // Fresh ids from a small pool, so that both sides sometimes take the same.
                let id = 100 + 10 * slot as i64;
                if self.0.iter().all(|t| t.id != id) {
                    let parent = self.pick(parent).map(|p| self.0[p].id);
                    self.0.push(Thing { id, name, parent, x: 0, light: None, follows: None });
                }
            }
            Edit::Delete(i) => {
                let Some(i) = self.pick(i) else { return };
                let gone = self.subtree(self.0[i].id);
                self.0.retain(|t| !gone.contains(&t.id));
                // Unity leaves a reference to a deleted object as a missing one.
                for t in &mut self.0 {
                    if t.follows.is_some_and(|f| gone.contains(&f)) {
                        t.follows = Some(0);
                    }
                }
            }
            Edit::Move(i, x) => {
                if let Some(i) = self.pick(i) {
                    self.0[i].x = x;
                }
            }
            Edit::Reparent(i, p) => {
                let (Some(i), Some(p)) = (self.pick(i), self.pick(p)) else { return };
                let (id, parent) = (self.0[i].id, self.0[p].id);
                if !self.subtree(id).contains(&parent) {
                    self.0[i].parent = Some(parent);
                }
            }
            Edit::Light(i, light) => {
                if let Some(i) = self.pick(i) {
                    self.0[i].light = light;
                }
            }
            Edit::ToBack(i) => {
                if let Some(i) = self.pick(i) {
                    let thing = self.0.remove(i);
                    self.0.push(thing);
                }
            }
            Edit::Recreate(i) => {
                let Some(i) = self.pick(i) else { return };
                let (old, new) = (self.0[i].id, self.0[i].id + 1000);
                if self.0.iter().any(|t| t.id == new) {
                    return;
                }
                for t in &mut self.0 {
                    if t.id == old {
                        t.id = new;
                    }
                    if t.parent == Some(old) {
                        t.parent = Some(new);
                    }
                    if t.follows == Some(old) {
                        t.follows = Some(new);
                    }
                }
            }
            Edit::Follow(i, target) => {
                let Some(i) = self.pick(i) else { return };
                let target = target.and_then(|t| self.pick(t)).map(|t| self.0[t].id);
                self.0[i].follows = target;
            }
        }
    }

    /// The scene as Unity writes it: documents sorted by fileID.
    fn text(&self) -> String {
        let mut docs: Vec<(i64, String)> = Vec::new();
        for t in &self.0 {
            let mut components = format!("  - component: {{fileID: {}}}\n", t.id + 1);
            if t.light.is_some() {
                components.push_str(&format!("  - component: {{fileID: {}}}\n", t.id + 2));
            }
            if t.follows.is_some() {
                components.push_str(&format!("  - component: {{fileID: {}}}\n", t.id + 3));
            }
            docs.push((t.id, format!("--- !u!1 &{}\nGameObject:\n  m_ObjectHideFlags: 0\n  serializedVersion: 6\n  m_Component:\n{components}  m_Layer: 0\n  m_Name: {}\n  m_IsActive: 1\n", t.id, t.name)));
            let children: Vec<String> =
                self.0.iter().filter(|c| c.parent == Some(t.id)).map(|c| format!("  - {{fileID: {}}}\n", c.id + 1)).collect();
            let children = if children.is_empty() { " []\n".to_owned() } else { format!("\n{}", children.concat()) };
            let father = t.parent.map_or(0, |p| p + 1);
            docs.push((
                t.id + 1,
                format!(
                    "--- !u!4 &{}\nTransform:\n  m_ObjectHideFlags: 0\n  m_GameObject: {{fileID: {}}}\n  m_LocalPosition: {{x: {}, y: 0, z: 0}}\n  m_LocalScale: {{x: 1, y: 1, z: 1}}\n  m_Children:{children}  m_Father: {{fileID: {father}}}\n",
                    t.id + 1,
                    t.id,
                    t.x
                ),
            ));
            if let Some(intensity) = t.light {
                docs.push((t.id + 2, format!("--- !u!108 &{}\nLight:\n  m_ObjectHideFlags: 0\n  m_GameObject: {{fileID: {}}}\n  m_Enabled: 1\n  serializedVersion: 10\n  m_Intensity: {intensity}\n", t.id + 2, t.id)));
            }
            if let Some(target) = t.follows {
                let target = if target == 0 { 0 } else { target + 1 };
                docs.push((t.id + 3, format!("--- !u!114 &{}\nMonoBehaviour:\n  m_ObjectHideFlags: 0\n  m_GameObject: {{fileID: {}}}\n  m_Enabled: 1\n  m_Target: {{fileID: {target}}}\n", t.id + 3, t.id)));
            }
        }
        docs.sort_by_key(|(id, _)| *id);
        let mut out = "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n".to_owned();
        for (_, doc) in docs {
            out.push_str(&doc);
        }
        out
    }
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        1 => (0usize..3, 0usize..8, prop::sample::select(vec!["Box", "Lamp"])).prop_map(|(slot, parent, name)| Edit::Add { slot, parent, name }),
        1 => (0usize..8).prop_map(Edit::Delete),
        // Often both sides move one object or change one light: a conflict inside one document.
        3 => (0usize..8, 1u8..4).prop_map(|(i, x)| Edit::Move(i, x)),
        1 => (0usize..8, 0usize..8).prop_map(|(i, p)| Edit::Reparent(i, p)),
        2 => (0usize..8, prop::option::of(1u8..3)).prop_map(|(i, l)| Edit::Light(i, l)),
        1 => (0usize..8, prop::option::of(0usize..8)).prop_map(|(i, t)| Edit::Follow(i, t)),
        1 => (0usize..8).prop_map(Edit::ToBack),
        1 => (0usize..8).prop_map(Edit::Recreate),
    ]
}

fn version(edits: &[Edit]) -> String {
    let mut scene = Scene::base();
    for e in edits {
        scene.apply(e);
    }
    scene.text()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn the_spliced_merge_agrees_with_the_whole_merge(ours in prop::collection::vec(edit(), 0..4), theirs in prop::collection::vec(edit(), 0..4)) {
        let (base, ours, theirs) = (Scene::base().text(), version(&ours), version(&theirs));
        splice_agrees_with_whole_merge(&UnityCodec, &base, &ours, &theirs).map_err(TestCaseError::fail)?;
    }
}

/// What Unity needs of a scene, read off its text alone (not through the codec): no conflict
/// markers, each fileID once, game objects and their components listing each other, fathers
/// and children agreeing, no transform its own ancestor, every reference to a document there.
fn scene_problems(text: &str) -> Vec<String> {
    use std::collections::HashMap;
    let mut problems = Vec::new();
    let ids =
        |s: &str| -> Vec<i64> { s.match_indices("{fileID: ").filter_map(|(at, _)| s[at + 9..].split('}').next()?.parse().ok()).collect() };
    let member = |body: &str, key: &str| -> Option<i64> {
        body.lines().find(|l| l.trim_start().starts_with(key)).and_then(|l| ids(l).first().copied())
    };
    let mut docs: HashMap<i64, &str> = HashMap::new();
    for doc in text.split("--- !u!").skip(1) {
        if doc.lines().any(|l| ["<<<<<<<", "=======", ">>>>>>>"].iter().any(|m| l.starts_with(m))) {
            problems.push("conflict marker".to_owned());
        }
        let id: i64 = doc.split_once('&').and_then(|(_, r)| r.split_whitespace().next()?.parse().ok()).unwrap_or(0);
        if docs.insert(id, doc).is_some() {
            problems.push(format!("fileID {id} twice"));
        }
    }
    let list = |body: &str, key: &str| -> Vec<i64> {
        let Some(at) = body.find(key) else { return Vec::new() };
        let rest = &body[at + key.len()..];
        let end = rest.find("\n  m_").map_or(rest.len(), |e| e + 1);
        ids(&rest[..end])
    };
    for (&id, body) in &docs {
        if body.contains("\nGameObject:") {
            for c in list(body, "m_Component:") {
                match docs.get(&c) {
                    None => problems.push(format!("{id} lists missing component {c}")),
                    Some(cb) if member(cb, "m_GameObject:") != Some(id) => problems.push(format!("{id} lists {c}, which is another's")),
                    _ => {}
                }
            }
            continue;
        }
        match member(body, "m_GameObject:").map(|g| (g, docs.get(&g))) {
            Some((_, Some(gb))) if list(gb, "m_Component:").contains(&id) => {}
            other => problems.push(format!("component {id} of {:?}, which does not list it", other.map(|(g, _)| g))),
        }
        if body.contains("\nTransform:") {
            let father = member(body, "m_Father:").unwrap_or(0);
            if father != 0 && !docs.get(&father).is_some_and(|fb| list(fb, "m_Children:").contains(&id)) {
                problems.push(format!("transform {id}'s father {father} does not list it"));
            }
            for child in list(body, "m_Children:") {
                if docs.get(&child).is_none_or(|cb| member(cb, "m_Father:") != Some(id)) {
                    problems.push(format!("transform {id} lists child {child}, whose father is another"));
                }
            }
            let mut at = father;
            for _ in 0..=docs.len() {
                if at == 0 {
                    break;
                }
                if at == id {
                    problems.push(format!("transform {id} is its own ancestor"));
                    break;
                }
                at = docs.get(&at).and_then(|b| member(b, "m_Father:")).unwrap_or(0);
            }
        }
        if let Some(target) = member(body, "m_Target:").filter(|t| *t != 0 && !docs.contains_key(t)) {
            problems.push(format!("{id} targets missing {target}"));
        }
    }
    problems
}

#[test]
fn the_scene_check_of_these_tests_finds_what_unity_would_refuse() {
    let scene = version(&[Edit::Light(1, Some(3)), Edit::Follow(1, Some(2))]);
    assert_eq!(scene_problems(&scene), Vec::<String>::new(), "{scene}");
    let light =
        scene.split("--- !u!108").nth(1).and_then(|d| d.split_once('&')).and_then(|(_, r)| r.split_whitespace().next()).unwrap().to_owned();
    let unlisted = scene.replace(&format!("  - component: {{fileID: {light}}}\n"), "");
    assert!(scene_problems(&unlisted).iter().any(|p| p.starts_with(&format!("component {light}"))), "{unlisted}");
    let twice = format!("{scene}--- !u!108 &{light}\nLight:\n  m_GameObject: {{fileID: 0}}\n");
    assert!(scene_problems(&twice).iter().any(|p| p == &format!("fileID {light} twice")));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn clean_merges_are_scenes_unity_opens(ours in prop::collection::vec(edit(), 0..4), theirs in prop::collection::vec(edit(), 0..4)) {
        let (base, ours, theirs) = (Scene::base().text(), version(&ours), version(&theirs));
        levelmerge_testutils::laws::clean_merge_passes(&UnityCodec, &base, &ours, &theirs, scene_problems).map_err(TestCaseError::fail)?;
    }
}
