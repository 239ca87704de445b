//! The `levelmerge` command end to end: exit codes, files written or left alone, messages.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn levelmerge() -> Command {
    let mut c = Command::cargo_bin("levelmerge").expect("the levelmerge binary is built");
    c.env("NO_COLOR", "1");
    c
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/castle").join(name)
}

/// A temporary directory with base/ours/theirs files.
fn triple(ext: &str, base: &[u8], ours: &[u8], theirs: &[u8]) -> (tempfile::TempDir, [PathBuf; 3]) {
    let dir = tempfile::tempdir().unwrap();
    let paths = ["base", "ours", "theirs"].map(|n| dir.path().join(format!("{n}.{ext}")));
    for (p, t) in paths.iter().zip([base, ours, theirs]) {
        std::fs::write(p, t).unwrap();
    }
    (dir, paths)
}

/// `levelmerge merge b o t --report report`, run.
fn merge_reporting(inputs: &[PathBuf; 3], report: &Path) -> assert_cmd::assert::Assert {
    levelmerge().arg("merge").args(inputs).arg("--report").arg(report).assert()
}

/// The JSON report `merge --report` wrote.
fn read_report(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("the report is written")).expect("the report is JSON")
}

const LEVEL: &str = "{\n  \"entities\": [\n    { \"id\": 1, \"x\": 1 },\n    { \"id\": 2, \"x\": 2 }\n  ]\n}\n";

#[test]
fn the_shipped_example_merges_with_one_conflict_and_one_volatile_property() {
    let out = tempfile::tempdir().unwrap();
    let merged = out.path().join("merged.json");
    levelmerge()
        .current_dir(example(""))
        .args(["merge", "base.json", "ours.json", "theirs.json", "-o"])
        .arg(&merged)
        .assert()
        .code(1)
        // The object is named as people see it, by its name and kind.
        .stderr(predicate::str::contains("both-modified Guard [guard] › x: ours 14 · theirs 16"))
        .stderr(predicate::str::contains("lighting.sun_angle: took ours"));
    let text = std::fs::read_to_string(&merged).unwrap();
    assert!(text.contains("\"name\": \"Main Gate\", \"x\": 10, \"y\": 0, \"locked\": false"), "{text}");
    assert!(text.contains("\"sun_angle\": 40"));
    assert!(text.contains("{ \"id\": 4, \"type\": \"chest\"") && text.contains("{ \"id\": 5, \"type\": \"key\""));
    assert_eq!(text.matches("<<<<<<< ours").count(), 1);
    // The inputs are untouched when -o is given.
    assert_eq!(std::fs::read(example("ours.json")).unwrap(), std::fs::read(example("ours.json")).unwrap());
}

#[test]
fn clean_merge_replaces_ours_and_exits_0() {
    let (_d, [b, o, t]) = triple(
        "json",
        LEVEL.as_bytes(),
        LEVEL.replace("\"x\": 1", "\"x\": 10").as_bytes(),
        LEVEL.replace("\"x\": 2", "\"x\": 20").as_bytes(),
    );
    levelmerge().arg("merge").args([&b, &o, &t]).assert().code(0);
    assert_eq!(std::fs::read_to_string(&o).unwrap(), LEVEL.replace("\"x\": 1", "\"x\": 10").replace("\"x\": 2", "\"x\": 20"));
}

#[test]
fn prefer_settles_every_conflict_and_report_lists_it() {
    let (d, [b, o, t]) = triple(
        "json",
        LEVEL.as_bytes(),
        LEVEL.replace("\"x\": 1", "\"x\": 10").as_bytes(),
        LEVEL.replace("\"x\": 1", "\"x\": 11").as_bytes(),
    );
    let report = d.path().join("report.json");
    levelmerge().arg("merge").args([&b, &o, &t]).args(["--prefer", "theirs", "--report"]).arg(&report).assert().code(0);
    assert!(std::fs::read_to_string(&o).unwrap().contains("\"x\": 11"));
    let r = read_report(&report);
    assert_eq!(r["version"], 1);
    assert_eq!(r["clean"], true);
    assert_eq!(r["auto_resolved"][0]["property"], "x");
    assert_eq!(r["auto_resolved"][0]["taken"], "theirs");
    assert_eq!(r["auto_resolved"][0]["ours"], "10");
}

#[test]
fn report_lists_open_conflicts_as_data() {
    let (d, [b, o, t]) = triple(
        "json",
        LEVEL.as_bytes(),
        LEVEL.replace("\"x\": 1", "\"x\": 10").as_bytes(),
        LEVEL.replace("\"x\": 1", "\"x\": 11").as_bytes(),
    );
    let report = d.path().join("r.json");
    merge_reporting(&[b, o, t], &report).code(1);
    let r = read_report(&report);
    assert_eq!(r["open_conflicts"], 1);
    assert_eq!(r["conflicts"][0]["object"], "/entities[1]");
    assert_eq!(r["conflicts"][0]["path"], serde_json::json!(["entities[1]"]), "an entity without a name is told apart by its id");
    assert_eq!(r["conflicts"][0]["base"], "1");
    assert_eq!(r["conflicts"][0]["theirs"], "11");
    assert_eq!(r["mode"], "structured");
}

#[test]
fn a_conflict_at_the_top_of_the_file_is_named_as_the_file() {
    let base = "{\n  \"title\": \"Keep\",\n  \"entities\": []\n}\n";
    let (d, [b, o, t]) = triple("json", base.as_bytes(), base.replace("Keep", "Fort").as_bytes(), base.replace("Keep", "Tower").as_bytes());
    let report = d.path().join("r.json");
    merge_reporting(&[b, o, t], &report)
        .code(1)
        .stderr(predicate::str::contains("both-modified (file) › title: ours \"Fort\" · theirs \"Tower\""));
    let r = read_report(&report);
    assert_eq!(r["conflicts"][0]["path"], serde_json::json!([]), "the top object's path is empty, not unknown");
}

#[test]
fn marker_size_follows_git() {
    let (_d, [b, o, t]) = triple(
        "json",
        LEVEL.as_bytes(),
        LEVEL.replace("\"x\": 1", "\"x\": 10").as_bytes(),
        LEVEL.replace("\"x\": 1", "\"x\": 11").as_bytes(),
    );
    levelmerge().arg("merge").args([&b, &o, &t]).args(["-l", "9"]).assert().code(1);
    let text = std::fs::read_to_string(&o).unwrap();
    assert!(text.contains("<<<<<<<<< ours\n") && text.contains("\n=========\n") && text.contains(">>>>>>>>> theirs\n"), "{text}");
}

#[test]
fn invalid_json_on_one_side_falls_back_to_lines_and_says_why() {
    let broken = LEVEL.replace("\"x\": 2 }", "\"x\": 2 ");
    let (_d, [b, o, t]) = triple("json", LEVEL.as_bytes(), LEVEL.replace("\"x\": 1", "\"x\": 10").as_bytes(), broken.as_bytes());
    let out = levelmerge().arg("merge").args([&b, &o, &t]).assert().failure();
    let out = out.get_output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("merged as lines") && stderr.contains("theirs: line 5"), "{stderr}");
    // The line merge is clean, but its result is not sound JSON: never exit 0 with it.
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_line_merge_that_trades_one_problem_for_another_is_not_clean() {
    // Base and theirs hold two sub-resources of one id (not readable as a level, so the file
    // is merged as lines). Ours removes the second and adds a node using the sphere; theirs
    // removes the sphere. The line merge is clean and has as many problems as base: none of
    // the duplicate, one dangling reference that no input had. It must not exit 0.
    let base = "[gd_scene load_steps=5 format=2]\n\n[sub_resource type=\"BoxShape\" id=1]\nextents = Vector3( 1, 1, 1 )\n\n\
[sub_resource type=\"BoxShape\" id=1]\nextents = Vector3( 2, 2, 2 )\n\n[sub_resource type=\"BoxShape\" id=3]\n\
extents = Vector3( 3, 3, 3 )\n\n[sub_resource type=\"SphereShape\" id=2]\nradius = 1.0\n\n[node name=\"Root\" type=\"Spatial\"]\n";
    let ours = base.replace("[sub_resource type=\"BoxShape\" id=1]\nextents = Vector3( 2, 2, 2 )\n\n", "")
        + "\n[node name=\"Ball\" type=\"CollisionShape\" parent=\".\"]\nshape = SubResource( 2 )\n";
    let theirs = base.replace("[sub_resource type=\"SphereShape\" id=2]\nradius = 1.0\n\n", "");
    let (_d, [b, o, t]) = triple("tscn", base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let out = levelmerge().arg("merge").args([&b, &o, &t]).assert().code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("merged as lines") && stderr.contains("not sound either") && stderr.contains("sub:2"), "{stderr}");
    let merged = std::fs::read_to_string(&o).unwrap();
    assert!(!merged.contains("SphereShape") && merged.contains("shape = SubResource( 2 )"), "{merged}");
}

#[test]
fn a_line_merge_whose_duplicate_an_input_had_is_still_checked_past_it() {
    // Theirs holds two sub-resources of one id (merged as lines, then) and adds a backdrop
    // using the sky texture, which ours deletes. The line merge is clean; its duplicate is
    // theirs', and the check stopped there: the backdrop's dangling texture went unseen, exit 0.
    let base = "[gd_scene load_steps=3 format=2]\n\n[ext_resource path=\"res://sky.hdr\" type=\"Texture\" id=5]\n\n\
[sub_resource type=\"PanoramaSky\" id=1]\npanorama = ExtResource( 5 )\n\n[sub_resource type=\"Environment\" id=2]\n\
background_sky = SubResource( 1 )\n\n[node name=\"Root\" type=\"Spatial\"]\n";
    let ours =
        base.replace("[ext_resource path=\"res://sky.hdr\" type=\"Texture\" id=5]\n\n", "").replace("panorama = ExtResource( 5 )\n", "");
    let environment = "[sub_resource type=\"Environment\" id=2]\nbackground_sky = SubResource( 1 )\n\n";
    let theirs = base.replace(environment, &environment.repeat(2))
        + "\n[node name=\"Backdrop\" type=\"Sprite3D\" parent=\".\"]\ntexture = ExtResource( 5 )\n";
    let (_d, [b, o, t]) = triple("tscn", base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let out = levelmerge().arg("merge").args([&b, &o, &t]).assert().code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("duplicate id sub:2") && stderr.contains("not sound either"), "{stderr}");
    assert!(stderr.contains("node:Backdrop › texture: reference to missing object ext:5"), "{stderr}");
    // `check` says both of the merged file's problems.
    let out = levelmerge().arg("check").arg(&o).assert().failure();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("duplicate id sub:2") && stdout.contains("missing object ext:5"), "{stdout}");
}

#[test]
fn a_line_merge_that_trades_a_dangling_reference_for_another_is_not_clean() {
    // Base holds two sub-resources of one id (merged as lines, then) and a shape naming no
    // sub-resource. Ours points the shape at sub-resource 1; theirs deletes it. The line merge
    // has as many dangling references as base, but not base's: the new one went unseen, exit 0.
    let base = "[gd_scene load_steps=3 format=2]\n\n[sub_resource type=\"BoxShape\" id=1]\n\n[sub_resource type=\"BoxShape\" id=2]\n\n\
[sub_resource type=\"BoxShape\" id=2]\n\n[node name=\"Root\" type=\"Spatial\"]\n\n[node name=\"A\" type=\"CollisionShape\" parent=\".\"]\n\
shape = SubResource( 7 )\n";
    let ours = base.replace("SubResource( 7 )", "SubResource( 1 )");
    let theirs = base.replace("[sub_resource type=\"BoxShape\" id=1]\n\n", "");
    let (_d, [b, o, t]) = triple("tscn", base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let out = levelmerge().arg("merge").args([&b, &o, &t]).assert().code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("not sound either") && stderr.contains("node:A › shape: reference to missing object sub:1"), "{stderr}");
}

#[test]
fn a_line_merge_that_cannot_be_read_back_is_not_clean() {
    // Every version holds conflict markers someone committed, so the scene is merged as
    // lines; ours adds a node under the panel theirs renamed. The line merge has no conflict
    // of its own, but behind the old markers nothing can be checked (the new node's parent is
    // gone): never exit 0 with it, and say why without claiming markers it did not write.
    let base = "[gd_scene format=2]\n\n[node name=\"Root\" type=\"Control\"]\n<<<<<<< HEAD\nvisible = false\n=======\nvisible = true\n>>>>>>> topic\n\n\
[node name=\"Panel\" type=\"Panel\" parent=\".\"]\n\n[node name=\"Icon\" type=\"TextureRect\" parent=\"Panel\"]\n\n[node name=\"Footer\" type=\"Label\" parent=\".\"]\n";
    let ours =
        base.replace("[node name=\"Footer\"", "[node name=\"Badge\" type=\"Node2D\" parent=\"Panel/Icon\"]\n\n[node name=\"Footer\"");
    let theirs = base.replace("name=\"Panel\" type", "name=\"Frame\" type").replace("parent=\"Panel\"", "parent=\"Frame\"");
    let (_d, [b, o, t]) = triple("tscn", base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let out = levelmerge().arg("merge").args([&b, &o, &t]).assert().code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("merged as lines") && stderr.contains("cannot be checked either"), "{stderr}");
    assert!(stderr.contains("wrote no conflict markers") && !stderr.contains("marked in the file"), "{stderr}");
    let merged = std::fs::read_to_string(&o).unwrap();
    assert!(merged.contains("parent=\"Panel/Icon\"") && merged.contains("name=\"Frame\""), "the line merge as written: {merged}");
}

#[test]
fn empty_ours_is_merged_as_lines_never_silently() {
    let (_d, [b, o, t]) = triple("json", LEVEL.as_bytes(), b"", LEVEL.replace("\"x\": 1", "\"x\": 10").as_bytes());
    levelmerge().arg("merge").args([&b, &o, &t]).assert().code(1).stderr(predicate::str::contains("empty file"));
}

#[test]
fn a_binary_input_both_sides_changed_is_a_conflict_and_ours_left_alone() {
    let (d, [b, o, t]) = triple("json", LEVEL.as_bytes(), b"\x00\x01\x02binary", LEVEL.replace("\"x\": 1", "\"x\": 10").as_bytes());
    levelmerge().arg("merge").args([&b, &o, &t]).assert().code(1).stderr(predicate::str::contains("binary file"));
    assert_eq!(std::fs::read(&o).unwrap(), b"\x00\x01\x02binary");
    // A preferred side is taken whole, and a report says why.
    let out = d.path().join("out.json");
    let report = d.path().join("report.json");
    levelmerge().arg("merge").args([&b, &o, &t]).arg("--prefer=theirs").arg("-o").arg(&out).arg("--report").arg(&report).assert().code(0);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&t).unwrap());
    let report = read_report(&report);
    assert_eq!(report["mode"], "trivial");
    assert!(report["reason"].as_str().unwrap().contains("binary"), "{report}");
}

#[test]
fn a_binary_file_one_side_changed_takes_that_side() {
    let (d, [b, o, t]) = triple("unity", b"\x00base", b"\x00base", b"\x00theirs");
    let out = d.path().join("out.unity");
    levelmerge().arg("merge").args([&b, &o, &t]).arg("-o").arg(&out).assert().code(0);
    assert_eq!(std::fs::read(&out).unwrap(), b"\x00theirs");
    // Both sides changed it: a conflict, ours left as it was.
    std::fs::write(&o, b"\x00ours").unwrap();
    let report = d.path().join("report.json");
    merge_reporting(&[b, o.clone(), t], &report).code(1).stderr(predicate::str::contains("ours kept"));
    assert_eq!(std::fs::read(&o).unwrap(), b"\x00ours");
    let report = read_report(&report);
    assert_eq!((report["mode"].as_str(), report["clean"].as_bool()), (Some("binary"), Some(false)), "{report}");
}

#[test]
fn a_preferred_side_settles_a_merge_by_lines_too() {
    // Two entities of one id in every version: not merged as a level but by lines, where both
    // sides changed one line.
    let twice = LEVEL.replace("\"id\": 2", "\"id\": 1");
    let (d, [b, o, t]) = triple(
        "json",
        twice.as_bytes(),
        twice.replace("\"x\": 2", "\"x\": 20").as_bytes(),
        twice.replace("\"x\": 2", "\"x\": 30").as_bytes(),
    );
    let out = d.path().join("out.json");
    levelmerge().arg("merge").args([&b, &o, &t]).arg("-o").arg(&out).assert().code(1).stderr(predicate::str::contains("merged as lines"));
    assert!(std::fs::read_to_string(&out).unwrap().contains("<<<<<<< ours"));
    levelmerge()
        .arg("merge")
        .args([&b, &o, &t])
        .args(["--prefer", "theirs", "-o"])
        .arg(&out)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("1 overlapping change(s) settled by lines from theirs, as preferred"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), twice.replace("\"x\": 2", "\"x\": 30"));
}

#[test]
fn a_preferred_side_that_would_break_a_merge_by_lines_leaves_it_marked() {
    // Merged by lines (two entities of one id everywhere); theirs' side of the one overlapping
    // change gives an entity the id of the one ours added elsewhere.
    let base = "{\n  \"entities\": [\n    { \"id\": 1, \"x\": 1 },\n    { \"id\": 1, \"x\": 2 },\n    { \"id\": 3, \"x\": 3 }\n  ]\n}\n";
    let ours = base.replace("[\n", "[\n    { \"id\": 5, \"x\": 5 },\n").replace("\"x\": 3 }", "\"x\": 30 }");
    let theirs = base.replace("\"id\": 3, \"x\": 3", "\"id\": 5, \"x\": 3");
    let (d, [b, o, t]) = triple("json", base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let out = d.path().join("out.json");
    levelmerge().arg("merge").args([&b, &o, &t]).args(["--prefer", "theirs", "-o"]).arg(&out).assert().code(1).stderr(
        predicate::str::contains("settled from theirs, the line merge is not sound (")
            .and(predicate::str::contains("the overlapping changes are left marked")),
    );
    let marked = std::fs::read_to_string(&out).unwrap();
    assert!(
        marked.contains("<<<<<<< ours\n    { \"id\": 3, \"x\": 30 }\n=======\n    { \"id\": 5, \"x\": 3 }\n>>>>>>> theirs\n"),
        "{marked}"
    );
    // Ours' side breaks nothing: settled.
    levelmerge().arg("merge").args([&b, &o, &t]).args(["--prefer", "ours", "-o"]).arg(&out).assert().code(0);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), ours);
}

#[test]
fn resolve_of_a_file_without_markers_says_whether_it_is_sound() {
    let d = tempfile::tempdir().unwrap();
    let (sound, broken) = (d.path().join("sound.json"), d.path().join("broken.json"));
    std::fs::write(&sound, LEVEL).unwrap();
    std::fs::write(&broken, LEVEL.replace("\"id\": 2", "\"id\": 1")).unwrap();
    levelmerge().arg("resolve").arg(&sound).assert().code(0).stdout("no conflict markers: nothing to settle\n");
    levelmerge()
        .arg("resolve")
        .arg(&broken)
        .assert()
        .code(1)
        .stdout("no conflict markers: nothing to settle\n")
        .stderr(predicate::str::contains("no conflict markers, but the level is broken (1 problem(s): line 4: duplicate id"));
    levelmerge().arg("resolve").arg(&broken).args(["--take", "ours"]).assert().code(1);
}

#[test]
fn missing_input_exits_2_and_names_it() {
    let (d, [b, o, _t]) = triple("json", LEVEL.as_bytes(), LEVEL.as_bytes(), LEVEL.as_bytes());
    let missing = d.path().join("nope.json");
    levelmerge().arg("merge").args([&b, &o, &missing]).assert().code(2).stderr(predicate::str::contains("nope.json"));
    assert_eq!(std::fs::read_to_string(&o).unwrap(), LEVEL);
}

#[test]
fn unwritable_output_exits_2_and_writes_nothing() {
    let (d, [b, o, t]) = triple(
        "json",
        LEVEL.as_bytes(),
        LEVEL.replace("\"x\": 1", "\"x\": 10").as_bytes(),
        LEVEL.replace("\"x\": 2", "\"x\": 20").as_bytes(),
    );
    let target = d.path().join("no-such-dir").join("out.json");
    levelmerge().arg("merge").args([&b, &o, &t]).arg("-o").arg(&target).assert().code(2).stderr(predicate::str::contains("cannot write"));
    assert!(!target.exists());
    assert_eq!(std::fs::read_to_string(&o).unwrap(), LEVEL.replace("\"x\": 1", "\"x\": 10"));
}

#[test]
fn duplicate_ids_within_one_side_are_named() {
    let dup = LEVEL.replace("{ \"id\": 2, \"x\": 2 }", "{ \"id\": 1, \"x\": 2 }");
    let (_d, [b, o, t]) = triple("json", LEVEL.as_bytes(), dup.as_bytes(), LEVEL.replace("\"x\": 1", "\"x\": 10").as_bytes());
    levelmerge()
        .arg("merge")
        .args([&b, &o, &t])
        .assert()
        .stderr(predicate::str::contains("ours: line 4: duplicate id \"id\": 1 (first used on line 3)"));
}

#[test]
fn bad_arguments_exit_2_with_help() {
    levelmerge().arg("merge").assert().code(2).stderr(predicate::str::contains("Usage"));
    levelmerge().arg("frobnicate").assert().code(2);
    levelmerge().arg("--help").assert().code(0).stdout(predicate::str::contains("merge").and(predicate::str::contains("check")));
    levelmerge().args(["merge", "--help"]).assert().code(0).stdout(predicate::str::contains("MARKER_SIZE"));
}

#[test]
fn invalid_config_is_an_error_naming_the_file() {
    let (d, [b, o, t]) = triple(
        "json",
        LEVEL.as_bytes(),
        LEVEL.replace("\"x\": 1", "\"x\": 10").as_bytes(),
        LEVEL.replace("\"x\": 2", "\"x\": 20").as_bytes(),
    );
    std::fs::write(d.path().join(".levelmerge.toml"), "[[rule]]\nproperty = 3\n").unwrap();
    std::fs::create_dir(d.path().join(".git")).unwrap();
    levelmerge()
        .current_dir(d.path())
        .arg("merge")
        .args([&b, &o, &t])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(".levelmerge.toml"));
    assert_eq!(std::fs::read_to_string(&o).unwrap(), LEVEL.replace("\"x\": 1", "\"x\": 10"));
}

#[test]
fn diff_shows_objects_by_name_with_their_properties() {
    levelmerge()
        .args(["diff"])
        .args([example("base.json"), example("theirs.json")])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("~ Main Gate [door]\n    name: \"Gate\" → \"Main Gate\"\n"))
        .stdout(predicate::str::contains("+ Gate Key [key] added"))
        .stdout(predicate::str::contains("~ (file)\n    lighting.sun_angle: 35 → 50\n"));
    levelmerge().args(["diff"]).args([example("base.json"), example("base.json")]).assert().code(0).stdout("");
}

#[test]
fn diff_stat_counts_objects_per_type() {
    let out = levelmerge().args(["diff", "--stat"]).args([example("base.json"), example("theirs.json")]).assert().code(1);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let row = |kind: &str| {
        text.lines()
            .find(|l| l.starts_with(kind))
            .unwrap_or_else(|| panic!("no {kind} row in {text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(row("key"), "key 1 added 0 removed 0 changed");
    assert_eq!(row("door"), "door 0 added 0 removed 1 changed");
    assert!(text.ends_with("5 object(s) shown: 1 added, 0 removed, 4 changed\n"), "{text}");
}

#[test]
fn diff_json_is_versioned() {
    let out = levelmerge().args(["diff", "--json"]).args([example("base.json"), example("ours.json")]).assert().code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["version"], 2);
    assert_eq!(v["mode"], "semantic");
    let objects = v["objects"].as_array().unwrap();
    let added = objects.iter().find(|o| o["status"] == "added").expect("an added object");
    assert_eq!(added["id"], "/entities[4]");
    assert_eq!(added["changes"][0]["change"], "added");
    let locked = objects.iter().flat_map(|o| o["changes"].as_array().unwrap()).find(|c| c["property"] == "locked").expect("locked changed");
    assert_eq!((&locked["change"], &locked["old"], &locked["new"]), (&"modified".into(), &"true".into(), &"false".into()));
    assert_eq!(v["summary"]["added"], 1);
}

#[test]
fn a_binary_file_is_said_to_differ_not_printed_by_lines() {
    let d = tempfile::tempdir().unwrap();
    let (old, new) = (d.path().join("old.unity"), d.path().join("new.unity"));
    std::fs::write(&old, b"%YAML 1.1\n\x00\x01 packed\nbytes\n").unwrap();
    std::fs::write(&new, b"%YAML 1.1\n\x00\x02 packed\nbytes\n").unwrap();
    let said = format!("Binary files {} and {} differ\n", old.display(), new.display());
    levelmerge().arg("diff").args([&old, &new]).assert().code(1).stdout(said.clone()).stderr("");
    let out = levelmerge().args(["diff", "--json"]).args([&old, &new]).assert().code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!((v["mode"].as_str(), v["unified"].as_str()), (Some("lines"), Some(said.as_str())));
    levelmerge().arg("diff").args([&old, &old]).assert().code(0).stdout("");
    // As git's diff driver, too.
    let hex = "0000000000000000000000000000000000000000";
    levelmerge()
        .args(["git-diff", "level.unity"])
        .arg(&old)
        .args([hex, "100644"])
        .arg(&new)
        .args([hex, "100644"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Binary files a/level.unity and b/level.unity differ\n"));
}

#[test]
fn diff_output_is_written_whole_to_a_file() {
    let d = tempfile::tempdir().unwrap();
    let page = d.path().join("report.html");
    levelmerge().args(["diff", "--html", "-o"]).arg(&page).args([example("base.json"), example("theirs.json")]).assert().code(1).stdout("");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    assert!(html.contains("\"Main Gate\""), "the data is embedded");
    levelmerge().args(["diff", "--html", "--json"]).args([example("base.json"), example("theirs.json")]).assert().code(2);
}

#[test]
fn check_reports_problems_with_lines() {
    let d = tempfile::tempdir().unwrap();
    let good = d.path().join("good.json");
    std::fs::write(&good, LEVEL).unwrap();
    levelmerge().arg("check").arg(&good).assert().code(0).stdout(predicate::str::contains("ok"));
    let marked = d.path().join("marked.json");
    std::fs::write(&marked, "{\n<<<<<<< ours\n  \"a\": 1\n=======\n  \"a\": 2\n>>>>>>> theirs\n}\n").unwrap();
    levelmerge().arg("check").arg(&marked).assert().code(1).stdout(predicate::str::contains("marked.json:2: conflict-marker"));
    let dup = d.path().join("dup.json");
    std::fs::write(&dup, LEVEL.replace("\"id\": 2", "\"id\": 1")).unwrap();
    levelmerge().arg("check").arg(&dup).assert().code(1).stdout(predicate::str::contains("duplicate id"));
    levelmerge().arg("check").arg(d.path().join("missing.json")).assert().code(2);
    let out = levelmerge().args(["check", "--json"]).arg(&dup).assert().code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["files"][0]["problems"][0]["problem"], "duplicate-id");
}

#[test]
fn check_walks_a_folder_for_its_level_files() {
    let d = tempfile::tempdir().unwrap();
    let levels = d.path().join("levels");
    std::fs::create_dir_all(levels.join("forest")).unwrap();
    std::fs::create_dir_all(levels.join(".cache")).unwrap();
    std::fs::write(levels.join("good.json"), LEVEL).unwrap();
    std::fs::write(levels.join("forest").join("dup.json"), LEVEL.replace("\"id\": 2", "\"id\": 1")).unwrap();
    // Not level files, or in a hidden folder: not read.
    std::fs::write(levels.join("notes.txt"), "<<<<<<< ours\n").unwrap();
    std::fs::write(levels.join(".cache").join("stale.json"), "{").unwrap();
    levelmerge()
        .arg("check")
        .arg(&levels)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("dup.json").and(predicate::str::contains("duplicate id")))
        .stdout(predicate::str::contains("good.json").not().and(predicate::str::contains("stale").not()))
        .stdout(predicate::str::contains("checked 2 level file(s): 1 with problems"));
    std::fs::remove_file(levels.join("forest").join("dup.json")).unwrap();
    levelmerge().arg("check").arg(&levels).assert().code(0).stdout(predicate::str::contains("checked 1 level file(s): 0 with problems"));
}

#[test]
fn check_fails_an_empty_or_headless_level_file() {
    // A save or a merge cut short leaves such files; each engine refuses them.
    let d = tempfile::tempdir().unwrap();
    for (name, text) in
        [("empty.tscn", ""), ("empty.prefab", ""), ("empty.ldtk", ""), ("header.unity", "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n")]
    {
        let file = d.path().join(name);
        std::fs::write(&file, text).unwrap();
        levelmerge().arg("check").arg(&file).assert().code(1).stdout(predicate::str::contains(name));
    }
    let headless = d.path().join("headless.tscn");
    std::fs::write(&headless, "[node name=\"Main\" type=\"Node\"]\n").unwrap();
    levelmerge()
        .arg("check")
        .arg(&headless)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("headless.tscn:1: inconsistent: header: the file does not begin with [gd_scene"));
}

#[test]
fn declared_references_are_checked() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join(".levelmerge.toml"), "[json]\nparent-key = \"parent\"\nreference-keys = [\"target\"]\n").unwrap();
    std::fs::create_dir(d.path().join(".git")).unwrap();
    let f = d.path().join("l.json");
    std::fs::write(
        &f,
        "{\"objects\": [{\"id\": 1}, {\"id\": 2, \"parent\": 1, \"target\": 9}, {\"id\": 3, \"parent\": 4}, {\"id\": 4, \"parent\": 3}]}",
    )
    .unwrap();
    levelmerge()
        .current_dir(d.path())
        .arg("check")
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("dangling-reference").and(predicate::str::contains("cycle")));
}

#[test]
fn check_places_a_problem_in_the_object_people_see() {
    // A game object lists a component the file does not hold: the problem's line is the game
    // object's, and it is named as the hierarchy shows it.
    let scene = "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!1 &100\nGameObject:\n  m_Component:\n  - component: {fileID: 101}\n  - component: {fileID: 999}\n  m_Name: Door\n--- !u!4 &101\nTransform:\n  m_GameObject: {fileID: 100}\n  m_Children: []\n  m_Father: {fileID: 0}\n";
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("room.unity");
    std::fs::write(&f, scene).unwrap();
    levelmerge()
        .arg("check")
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("room.unity:3: dangling-reference:").and(predicate::str::contains("(in Door [GameObject])")));
    let out = levelmerge().args(["check", "--json"]).arg(&f).assert().code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["files"][0]["problems"][0]["object"], "Door [GameObject]");
}

#[test]
fn sjson_merges_and_keeps_its_syntax() {
    let base = "// a level\nunits = [\n\t{ _guid = \"a\" pos = [0 0] }\n\t{ _guid = \"b\" pos = [1 1] }\n]\n";
    let ours = base.replace("[0 0]", "[0 5]");
    let theirs = base.replace("\t{ _guid = \"b\" pos = [1 1] }\n", "\t{ _guid = \"b\" pos = [1 1] }\n\t{ _guid = \"c\" pos = [2 2] }\n");
    let (_d, [b, o, t]) = triple("sjson", base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    levelmerge().arg("merge").args([&b, &o, &t]).assert().code(0);
    assert_eq!(std::fs::read_to_string(&o).unwrap(), theirs.replace("[0 0]", "[0 5]"));
}

const MARKED: &str = "{\n  \"entities\": [\n    { \"id\": 1, \"x\": 1 },\n<<<<<<< ours\n    { \"id\": 2, \"x\": 5 },\n=======\n    { \"id\": 2, \"x\": 6 },\n>>>>>>> theirs\n<<<<<<< ours\n    { \"id\": 3, \"y\": 1 }\n=======\n    { \"id\": 1, \"y\": 2 }\n>>>>>>> theirs\n  ]\n}\n";

#[test]
fn resolve_settles_what_the_filters_select_and_leaves_the_rest() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("level.json");
    std::fs::write(&file, MARKED).unwrap();
    let out = levelmerge().args(["resolve", "--json"]).arg(&file).assert().code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["conflicts"].as_array().unwrap().len(), 2);
    assert_eq!(v["conflicts"][0]["properties"], serde_json::json!(["x"]));
    assert_eq!(v["conflicts"][0]["object"]["id"], "/entities[2]");
    levelmerge()
        .args(["resolve", "--take", "theirs", "--property", "x"])
        .arg(&file)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("1 left"));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("    { \"id\": 2, \"x\": 6 },\n<<<<<<< ours\n    { \"id\": 3, \"y\": 1 }\n"), "{text}");
    // No base section to take: refused, nothing written.
    levelmerge().args(["resolve", "--take", "base"]).arg(&file).assert().code(2).stderr(predicate::str::contains("no base section"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn resolve_refuses_a_choice_that_breaks_the_level() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("level.json");
    std::fs::write(&file, MARKED).unwrap();
    // Theirs' second region brings a second object with id 1.
    levelmerge()
        .args(["resolve", "--take", "theirs"])
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("duplicate id").and(predicate::str::contains("nothing was written")));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), MARKED);
    levelmerge().args(["resolve", "--take", "ours"]).arg(&file).assert().code(0);
    assert!(!std::fs::read_to_string(&file).unwrap().contains("<<<<<<<"));
    std::fs::write(&file, "{\n<<<<<<< ours\n  \"a\": 1\n}\n").unwrap();
    levelmerge()
        .args(["resolve", "--take", "ours"])
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("line 2: the conflict that opens here is never closed"));
}

#[test]
fn resolve_names_every_object_a_region_spans_and_reads_the_merge_report() {
    let base = "{\n  \"entities\": [\n    { \"id\": 1, \"name\": \"Torch\", \"x\": 4 },\n    { \"id\": 2, \"name\": \"Guard\", \"x\": 12 }\n  ]\n}\n";
    let ours = base.replace("\"x\": 4", "\"x\": 5").replace("\"x\": 12", "\"x\": 14");
    let theirs = base.replace("\"x\": 4", "\"x\": 6").replace("\"x\": 12", "\"x\": 16");
    let (d, [b, o, t]) = triple("json", base.as_bytes(), ours.as_bytes(), theirs.as_bytes());
    let (merged, report) = (d.path().join("merged.json"), d.path().join("report.json"));
    levelmerge().arg("merge").args([&b, &o, &t]).arg("-o").arg(&merged).arg("--report").arg(&report).assert().code(1);
    // Adjacent lines make one region: both objects are named.
    let plain = levelmerge().args(["resolve", "--json"]).arg(&merged).assert().code(1);
    let v: serde_json::Value = serde_json::from_slice(&plain.get_output().stdout).unwrap();
    let paths: Vec<&serde_json::Value> = v["conflicts"][0]["objects"].as_array().unwrap().iter().map(|o| &o["path"][0]).collect();
    assert_eq!(paths, ["Torch", "Guard"]);
    assert_eq!(v["conflicts"][0]["reported"], serde_json::json!([]));
    // With the report, each conflict's kind and values.
    let listed = levelmerge().args(["resolve", "--list", "--report"]).arg(&report).arg(&merged).assert().code(1);
    let text = String::from_utf8_lossy(&listed.get_output().stdout).into_owned();
    assert!(text.contains("Torch [entities] › x: both-modified, base 4 · ours 5 · theirs 6"), "{text}");
    assert!(text.contains("Guard [entities] › x: both-modified, base 12 · ours 14 · theirs 16"), "{text}");
    // --object selects a region by any object it spans.
    levelmerge().args(["resolve", "--take", "theirs", "--object", "Guard"]).arg(&merged).assert().code(0);
    assert_eq!(std::fs::read_to_string(&merged).unwrap(), theirs);
    // A report that is not one is refused with its name.
    std::fs::write(&report, "{\"version\": 9, \"conflicts\": []}").unwrap();
    levelmerge()
        .args(["resolve", "--report"])
        .arg(&report)
        .arg(&o)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("report version 9 is not known"));
}

/// A region that holds an object only one side has is listed under that object (read in that
/// side's view), without the names of every field it writes; a region inside an object still
/// names the properties its lines set.
#[test]
fn resolve_lists_a_region_under_the_objects_only_one_side_has() {
    let base = "[gd_scene load_steps=2 format=3]\n\n[ext_resource type=\"Script\" path=\"res://door.gd\" id=\"1_a\"]\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"Button\" type=\"Area3D\" parent=\".\"]\n\n[node name=\"Door\" type=\"Node3D\" parent=\".\"]\nscript = ExtResource(\"1_a\")\n";
    let deleted = "[gd_scene format=3]\n\n[node name=\"Root\" type=\"Node3D\"]\n\n[node name=\"Button\" type=\"Area3D\" parent=\".\"]\nmonitoring = false\n";
    let connected = format!("{base}\n[connection signal=\"body_entered\" from=\"Button\" to=\"Door\" method=\"open\"]\n")
        .replace("parent=\".\"]\n\n[node name=\"Door\"", "parent=\".\"]\nmonitoring = true\n\n[node name=\"Door\"");
    let (_d, [b, o, t]) = triple("tscn", base.as_bytes(), deleted.as_bytes(), connected.as_bytes());
    levelmerge().arg("merge").args([&b, &o, &t]).assert().code(1);
    let listed = levelmerge().args(["resolve", "--list"]).arg(&o).assert().code(1);
    let out = String::from_utf8(listed.get_output().stdout.clone()).unwrap();
    assert!(out.contains(": Root/Button [Area3D] › monitoring\n"), "{out}");
    assert!(out.contains(": Root/Door [Node3D], Button.body_entered → Door.open [connection]\n"), "{out}");
}
