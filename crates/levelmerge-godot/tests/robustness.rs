//! Bad and odd input never crashes the Godot codec or the merge, clean merges are sound, and
//! the fuzz targets' properties hold on every input they ever found (`tests/fuzz-regressions/`,
//! replayed here on stable; the targets themselves live in `fuzz/` and need nightly).

use levelmerge_godot::fuzzing::{merge_three, parse_round_trip};
use levelmerge_testutils::fuzz::{self, replay_regressions, three};
use proptest::prelude::*;

const SCENE: &str = "[gd_scene load_steps=4 format=3 uid=\"uid://b1\"]\n\n[ext_resource type=\"Script\" path=\"res://p.gd\" id=\"1_a\"]\n\n[sub_resource type=\"BoxShape3D\" id=\"B_1\"]\nsize = Vector3(1, 2, 1)\n\n[sub_resource type=\"Resource\" id=\"R_2\"]\nshape = SubResource(\"B_1\")\nlist = [1, {\n\"k\": \"v]\"\n}]\n\n[node name=\"Main\" type=\"Node3D\" groups=[\n\"a\",\n\"b\"]]\nscript = ExtResource(\"1_a\")\n\n; a comment\n[node name=\"Box\" type=\"CollisionShape3D\" parent=\".\"]\nshape = SubResource(\"B_1\")\ntext = \"two\nlines \\\" quoted\"\n\n[node name=\"Child\" parent=\"Box\" instance=ExtResource(\"1_a\")]\n\n[connection signal=\"ready\" from=\"Box\" to=\".\" method=\"_on_ready\"]\n";

#[test]
fn every_regression_input_keeps_its_properties() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    replay_regressions(&dir, 2, parse_round_trip, merge_three);
}

#[test]
fn every_splice_regression_input_splices_as_the_whole_merge_writes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    fuzz::replay_regressions_named(&dir, "splice-", |data| fuzz::splice_agrees(&levelmerge_godot::GodotCodec, data));
}

#[test]
fn every_swap_regression_input_leaves_as_many_conflicts_with_its_sides_swapped() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    fuzz::replay_regressions_named(&dir, "swap-", |data| fuzz::sides_swap_alike(&levelmerge_godot::GodotCodec, data));
}

#[test]
fn the_sample_scene_round_trips_and_merges_with_itself() {
    parse_round_trip(SCENE.as_bytes());
    let crlf = SCENE.replace('\n', "\r\n");
    parse_round_trip(crlf.as_bytes());
    let edited = SCENE.replace("size = Vector3(1, 2, 1)", "size = Vector3(1, 3, 1)");
    merge_three(&three(SCENE.as_bytes(), edited.as_bytes(), SCENE.as_bytes()));
    merge_three(&three(SCENE.as_bytes(), SCENE.as_bytes(), edited.as_bytes()));
}

fn damaged(at: prop::sample::Index, cut_len: usize, insert: &str) -> Vec<u8> {
    fuzz::damaged(SCENE, at, cut_len, insert)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    #[test]
    fn damaged_scenes_never_crash_and_round_trip(at in any::<prop::sample::Index>(), cut_len in 0usize..16, insert in "[\\[\\](){}=,:;\"\\\\ a-z0-9\n\r]{0,8}") {
        parse_round_trip(&damaged(at, cut_len, &insert));
    }

    #[test]
    fn merges_of_damaged_scenes_are_sound(a in any::<prop::sample::Index>(), b in any::<prop::sample::Index>(), len in 0usize..24, insert in "[\\[\\](){}=,\" a-z0-9\n]{0,8}") {
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
