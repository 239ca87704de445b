//! Bad and odd input never crashes the Unity codec or the merge, clean merges are sound, and
//! the fuzz targets' properties hold on every input they ever found (`tests/fuzz-regressions/`,
//! replayed here on stable; the targets themselves live in `fuzz/` and need nightly).

use levelmerge_testutils::fuzz::{self, replay_regressions, three};
use levelmerge_unity::fuzzing::{merge_three, parse_round_trip};
use proptest::prelude::*;

const SCENE: &str = "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!1 &10\nGameObject:\n  m_Component:\n  - component: {fileID: 11}\n  m_Name: Root\n--- !u!4 &11\nTransform:\n  m_GameObject: {fileID: 10}\n  m_LocalPosition: {x: 0, y: 0, z: 0}\n  m_Children:\n  - {fileID: 21}\n  m_Father: {fileID: 0}\n--- !u!1 &20\nGameObject:\n  m_Component:\n  - component: {fileID: 21}\n  m_Name: Lamp\n--- !u!4 &21\nTransform:\n  m_GameObject: {fileID: 20}\n  m_Children: []\n  m_Father: {fileID: 11}\n--- !u!114 &30\nMonoBehaviour:\n  m_GameObject: {fileID: 20}\n  m_Text: \"two\n    lines\"\n  m_List:\n  - target: {fileID: 5, guid: abc,\n      type: 3}\n    value: 1\n";

#[test]
fn every_regression_input_keeps_its_properties() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    replay_regressions(&dir, 4, parse_round_trip, merge_three);
}

#[test]
fn every_swap_regression_input_leaves_as_many_conflicts_with_its_sides_swapped() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    fuzz::replay_regressions_named(&dir, "swap-", |data| fuzz::sides_swap_alike(&levelmerge_unity::UnityCodec, data));
}

#[test]
fn the_sample_scene_round_trips_and_merges_with_itself() {
    parse_round_trip(SCENE.as_bytes());
    let edited = SCENE.replace("m_Name: Lamp", "m_Name: Torch");
    merge_three(&three(SCENE.as_bytes(), edited.as_bytes(), SCENE.as_bytes()));
}

fn damaged(at: prop::sample::Index, cut_len: usize, insert: &str) -> Vec<u8> {
    fuzz::damaged(SCENE, at, cut_len, insert)
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
        merge_three(&three(SCENE.as_bytes(), &ours, &theirs));
    }

    #[test]
    fn random_bytes_never_crash(bytes in prop::collection::vec(any::<u8>(), 0..96)) {
        parse_round_trip(&bytes);
        merge_three(&bytes);
    }
}
