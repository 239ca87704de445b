//! Worst cases for a structured merge, generated: every one is a shape real files take (a
//! baked path or curve, a parent with thousands of children, a prefab instance with thousands
//! of overrides, a scene whose nodes both sides moved, objects both sides added under one set of ids), at a size where a step that costs the square of the length shows. Prints
//! the time and peak memory of `levelmerge merge` next to `git merge-file` on the same files,
//! in the same run.
//!
//! Run: `cargo bench -p levelmerge-cli --bench merge_worst` (optional arguments: elements,
//! repetitions). Needs no corpus.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use levelmerge_testutils::bench::{compare, inputs_folder, print_header, serve_measurement};

const HEADER: &str = "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n";

fn main() {
    serve_measurement();
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(30_000);
    let reps: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(3);

    // (label, extension, base, ours, theirs, exit expected)
    let cases = [
        {
            let (b, o, t) = (points(n, 1), points(n + 1, 2), points(n + 2, 3));
            (format!("{n} points, each side rewrote all"), "asset", path_asset(&b), path_asset(&o), path_asset(&t), 1)
        },
        {
            let ids: Vec<usize> = (1..=n).collect();
            let reversed: Vec<usize> = ids.iter().rev().copied().collect();
            let shuffled = shuffled(&ids, 5);
            (format!("{n} children, each side reordered"), "unity", parent(&ids), parent(&reversed), parent(&shuffled), 0)
        },
        {
            let base: Vec<(usize, usize)> = (0..n).map(|i| (1_000 + i, i)).collect();
            let ours: Vec<(usize, usize)> = base.iter().map(|&(t, v)| (t, if t % 2 == 1 { v + 1 } else { v })).collect();
            let theirs: Vec<(usize, usize)> =
                base.iter().filter(|(t, _)| t % 5 != 0).map(|&(t, v)| (t, if t % 3 == 0 { v + 2 } else { v })).collect();
            (format!("{n} prefab overrides, both edited"), "prefab", overrides(&base), overrides(&ours), overrides(&theirs), 1)
        },
        {
            // Both sides added as many objects, under the same fileIDs: theirs are renumbered.
            let (ours, theirs) = (added_objects(n / 2, "Ours"), added_objects(n / 2, "Theirs"));
            (format!("{n} objects added under one set of ids"), "unity", added_objects(0, ""), ours, theirs, 0)
        },
        {
            // Every node its own section; both sides moved some, the same ones differently
            // every 77th: hundreds of sections merged alone, each with a conflict.
            let moved = |every: usize, by: usize| move |i: usize| if i.is_multiple_of(every) { by } else { 0 };
            (format!("{n} nodes, both moved some"), "tscn", nodes(n, moved(1, 0)), nodes(n, moved(7, 1)), nodes(n, moved(11, 2)), 1)
        },
    ];

    let dir = tempfile::tempdir().expect("a temporary directory");
    let folder = inputs_folder(&dir);
    let bin = Path::new(env!("CARGO_BIN_EXE_levelmerge"));
    println!("generated worst cases of {n} elements; median of {reps} runs; peak = largest resident size");
    print_header();
    for (i, (label, ext, base, ours, theirs, exit)) in cases.iter().enumerate() {
        let paths: Vec<PathBuf> = ["base", "ours", "theirs"].iter().map(|s| folder.join(format!("worst{i}-{s}.{ext}"))).collect();
        for (p, t) in paths.iter().zip([base, ours, theirs]) {
            std::fs::write(p, t).expect("write an input");
        }
        compare(label, bin, &[&paths[0], &paths[1], &paths[2]], &folder.join(format!("worst{i}-out.{ext}")), reps, *exit);
    }
}

/// `count` pseudo-random coordinates of a seed (repeats among them, as measured values have).
fn points(count: usize, seed: u64) -> Vec<u32> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..count)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 100_000) as u32
        })
        .collect()
}

/// `ids` in an order a seed shuffles them to.
fn shuffled(ids: &[usize], seed: u64) -> Vec<usize> {
    let mut order = ids.to_vec();
    let keys = points(order.len(), seed);
    let mut keyed: Vec<(u32, usize)> = keys.into_iter().zip(order.drain(..)).collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, id)| id).collect()
}

/// A script asset holding a path of points (a baked curve).
fn path_asset(xs: &[u32]) -> String {
    let mut s = format!("{HEADER}--- !u!114 &11400000\nMonoBehaviour:\n  m_ObjectHideFlags: 0\n  m_Name: Path\n  m_Points:\n");
    for x in xs {
        let _ = writeln!(s, "  - {{x: {}.{:03}, y: 0, z: 0}}", x / 1000, x % 1000);
    }
    s
}

/// A scene whose root transform lists game objects `1..` as children in `order`.
fn parent(order: &[usize]) -> String {
    let mut s = format!("{HEADER}--- !u!1 &1\nGameObject:\n  m_Component:\n  - component: {{fileID: 2}}\n  m_Name: Root\n--- !u!4 &2\nTransform:\n  m_GameObject: {{fileID: 1}}\n  m_Children:\n");
    for i in order {
        let _ = writeln!(s, "  - {{fileID: {}}}", 1_000_000 + i);
    }
    s.push_str("  m_Father: {fileID: 0}\n");
    for i in 1..=order.len() {
        let _ = write!(
            s,
            "--- !u!1 &{go}\nGameObject:\n  m_Component:\n  - component: {{fileID: {t}}}\n  m_Name: N{i}\n--- !u!4 &{t}\nTransform:\n  m_GameObject: {{fileID: {go}}}\n  m_Children: []\n  m_Father: {{fileID: 2}}\n",
            go = 2_000_000 + i,
            t = 1_000_000 + i,
        );
    }
    s
}

/// A scene whose root lists `count` added game objects named after `by`, with fileIDs that
/// depend only on their place.
fn added_objects(count: usize, by: &str) -> String {
    let mut s = format!("{HEADER}--- !u!1 &1\nGameObject:\n  m_Component:\n  - component: {{fileID: 2}}\n  m_Name: Root\n--- !u!4 &2\nTransform:\n  m_GameObject: {{fileID: 1}}\n  m_Children:");
    s.push_str(if count == 0 { " []\n" } else { "\n" });
    for i in 0..count {
        let _ = writeln!(s, "  - {{fileID: {}}}", 1_000_000 + i);
    }
    s.push_str("  m_Father: {fileID: 0}\n");
    for i in 0..count {
        let _ = write!(
            s,
            "--- !u!1 &{go}\nGameObject:\n  m_Component:\n  - component: {{fileID: {t}}}\n  m_Name: {by}{i}\n--- !u!4 &{t}\nTransform:\n  m_GameObject: {{fileID: {go}}}\n  m_Children: []\n  m_Father: {{fileID: 2}}\n",
            go = 2_000_000 + i,
            t = 1_000_000 + i,
        );
    }
    s
}

/// A Godot scene of `count` sprites under the root, each at `x(i)`.
fn nodes(count: usize, x: impl Fn(usize) -> usize) -> String {
    let mut s = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node2D\"]\n".to_owned();
    for i in 0..count {
        let _ = write!(s, "\n[node name=\"N{i}\" type=\"Sprite2D\" parent=\".\"]\nposition = Vector2({}, 0)\n", x(i));
    }
    s
}

/// A prefab instance overriding `m_LocalPosition.x` of each target with a value.
fn overrides(targets: &[(usize, usize)]) -> String {
    let guid = "0123456789abcdef0123456789abcdef";
    let mut s = format!("{HEADER}--- !u!1001 &100100000\nPrefabInstance:\n  m_ObjectHideFlags: 0\n  serializedVersion: 2\n  m_Modification:\n    serializedVersion: 3\n    m_TransformParent: {{fileID: 0}}\n    m_Modifications:\n");
    for (target, value) in targets {
        let _ = write!(
            s,
            "    - target: {{fileID: {target}, guid: {guid}, type: 3}}\n      propertyPath: m_LocalPosition.x\n      value: {value}\n      objectReference: {{fileID: 0}}\n"
        );
    }
    let _ = writeln!(s, "    m_RemovedComponents: []\n    m_RemovedGameObjects: []\n    m_AddedGameObjects: []\n    m_AddedComponents: []\n  m_SourcePrefab: {{fileID: 100100000, guid: {guid}, type: 3}}");
    s
}
