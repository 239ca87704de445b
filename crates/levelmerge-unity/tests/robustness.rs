//! Bad and odd input never crashes the Unity codec or the merge, clean merges are sound, and
//! the fuzz targets' properties hold on every input they ever found (`tests/fuzz-regressions/`,
//! replayed here on stable; the targets themselves live in `fuzz/` and need nightly).

use levelmerge_unity::fuzzing::{merge_three, parse_round_trip};
use proptest::prelude::*;

const SCENE: &str = "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!1 &10\nGameObject:\n  m_Component:\n  - component: {fileID: 11}\n  m_Name: Root\n--- !u!4 &11\nTransform:\n  m_GameObject: {fileID: 10}\n  m_LocalPosition: {x: 0, y: 0, z: 0}\n  m_Children:\n  - {fileID: 21}\n  m_Father: {fileID: 0}\n--- !u!1 &20\nGameObject:\n  m_Component:\n  - component: {fileID: 21}\n  m_Name: Lamp\n--- !u!4 &21\nTransform:\n  m_GameObject: {fileID: 20}\n  m_Children: []\n  m_Father: {fileID: 11}\n--- !u!114 &30\nMonoBehaviour:\n  m_GameObject: {fileID: 20}\n  m_Text: \"two\n    lines\"\n  m_List:\n  - target: {fileID: 5, guid: abc,\n      type: 3}\n    value: 1\n";

#[test]
fn every_regression_input_keeps_its_properties() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("the regression folder") {
        let path = entry.expect("a folder entry").path();
        let data = std::fs::read(&path).expect("a regression input");
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("parse-") {
            parse_round_trip(&data);
        } else {
            merge_three(&data);
        }
        seen += 1;
    }
    assert!(seen >= 4, "the regression inputs are missing from {}", dir.display());
}

#[test]
fn the_sample_scene_round_trips_and_merges_with_itself() {
    parse_round_trip(SCENE.as_bytes());
    let edited = SCENE.replace("m_Name: Lamp", "m_Name: Torch");
    merge_three(&[SCENE.as_bytes(), &[0xFF], edited.as_bytes(), &[0xFF], SCENE.as_bytes()].concat());
}

fn damaged(cut_at: prop::sample::Index, cut_len: usize, insert: &str) -> Vec<u8> {
    let text = SCENE.as_bytes();
    let at = cut_at.index(text.len());
    let end = (at + cut_len).min(text.len());
    [&text[..at], insert.as_bytes(), &text[end..]].concat()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    #[test]
    fn damaged_scenes_never_crash_and_round_trip(cut_at in any::<prop::sample::Index>(), cut_len in 0usize..16, insert in "[{}\\[\\],:&!'\" a-z0-9\n\r-]{0,8}") {
        parse_round_trip(&damaged(cut_at, cut_len, &insert));
    }

    #[test]
    fn merges_of_damaged_scenes_are_sound(a in any::<prop::sample::Index>(), b in any::<prop::sample::Index>(), len in 0usize..24, insert in "[{}\\[\\],:&'\" a-z0-9\n-]{0,8}") {
        let ours = damaged(a, len, &insert);
        let theirs = damaged(b, len / 2, "");
        let data = [SCENE.as_bytes(), &[0xFF], &ours, &[0xFF], &theirs].concat();
        merge_three(&data);
    }

    #[test]
    fn random_bytes_never_crash(bytes in prop::collection::vec(any::<u8>(), 0..96)) {
        parse_round_trip(&bytes);
        merge_three(&bytes);
    }
}
