//! End to end through real git: `levelmerge setup --local`, then `git merge` of branches that
//! edit one level.

use std::path::Path;
use std::process::{Command, Output};

const BASE: &str = r#"{
  "name": "castle",
  "entities": [
    { "id": 1, "type": "door", "name": "Gate", "x": 10 },
    { "id": 2, "type": "torch", "name": "Torch", "x": 4 },
    { "id": 3, "type": "guard", "name": "Guard", "x": 12 }
  ]
}
"#;

struct Repo {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        let repo = Repo { dir: tempfile::tempdir().unwrap(), home: tempfile::tempdir().unwrap() };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Level Designer"]);
        repo.git(&["config", "user.email", "designer@example.com"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo.write("level.json", BASE);
        repo.git(&["add", "level.json"]);
        repo.git(&["commit", "-q", "-m", "base"]);
        repo
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.current_dir(self.path()).env("HOME", self.home.path()).env("GIT_CONFIG_NOSYSTEM", "1").env("NO_COLOR", "1");
        c.env_remove("GIT_DIR").env_remove("GIT_WORK_TREE");
        c
    }

    fn run(&self, program: &str, args: &[&str]) -> Output {
        self.command(program).args(args).output().unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
    }

    /// Run git; panics unless it succeeds.
    fn git(&self, args: &[&str]) -> String {
        let out = self.run("git", args);
        assert!(out.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn levelmerge(&self, args: &[&str]) -> Output {
        self.run(env!("CARGO_BIN_EXE_levelmerge"), args)
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.path().join(name), text).unwrap();
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path().join(name)).unwrap()
    }

    fn commit_edit(&self, branch: &str, text: &str) {
        self.git(&["checkout", "-q", branch]);
        self.write("level.json", text);
        self.git(&["commit", "-q", "-am", &format!("edit on {branch}")]);
    }

    fn set_up(&self) {
        let out = self.levelmerge(&["setup", "--local"]);
        assert!(out.status.success(), "setup failed: {}", String::from_utf8_lossy(&out.stderr));
        self.git(&["add", ".gitattributes"]);
        self.git(&["commit", "-q", "-m", "use levelmerge"]);
    }
}

fn edit(text: &str, pairs: &[(&str, &str)]) -> String {
    pairs.iter().fold(text.to_owned(), |t, (from, to)| {
        assert!(t.contains(from), "{from} not in the level");
        t.replacen(from, to, 1)
    })
}

#[test]
fn git_merge_of_edits_to_different_entities_is_clean_and_right() {
    let repo = Repo::new();
    repo.set_up();
    repo.git(&["branch", "feature"]);
    let torch_and_key = edit(
        BASE,
        &[("\"x\": 4", "\"x\": 5"), ("\"x\": 12 }\n", "\"x\": 12 },\n    { \"id\": 5, \"type\": \"key\", \"name\": \"Key\", \"x\": 1 }\n")],
    );
    repo.commit_edit("feature", &torch_and_key);
    let gate_and_chest = edit(
        BASE,
        &[
            ("\"Gate\"", "\"Main Gate\""),
            ("\"x\": 12 }\n", "\"x\": 12 },\n    { \"id\": 4, \"type\": \"chest\", \"name\": \"Chest\", \"x\": 20 }\n"),
        ],
    );
    repo.commit_edit("main", &gate_and_chest);
    // Git's own line merge would conflict here: both sides append after the same line.
    repo.git(&["merge", "-q", "--no-edit", "feature"]);
    let expected = edit(
        BASE,
        &[
            ("\"Gate\"", "\"Main Gate\""),
            ("\"x\": 4", "\"x\": 5"),
            ("\"x\": 12 }\n", "\"x\": 12 },\n    { \"id\": 4, \"type\": \"chest\", \"name\": \"Chest\", \"x\": 20 },\n    { \"id\": 5, \"type\": \"key\", \"name\": \"Key\", \"x\": 1 }\n"),
        ],
    );
    assert_eq!(repo.read("level.json"), expected);
    let check = repo.levelmerge(&["check", "level.json"]);
    assert_eq!(check.status.code(), Some(0), "{}", String::from_utf8_lossy(&check.stdout));
}

#[test]
fn conflicting_edits_leave_markers_that_git_and_check_see() {
    let repo = Repo::new();
    repo.set_up();
    repo.git(&["branch", "feature"]);
    repo.commit_edit("feature", &edit(BASE, &[("\"x\": 12", "\"x\": 16"), ("\"x\": 4", "\"x\": 3")]));
    repo.commit_edit("main", &edit(BASE, &[("\"x\": 12", "\"x\": 14"), ("\"Gate\"", "\"Main Gate\"")]));
    let merge = repo.run("git", &["merge", "--no-edit", "feature"]);
    assert_eq!(merge.status.code(), Some(1), "git merge should stop on the conflict");
    assert!(String::from_utf8_lossy(&merge.stdout).contains("CONFLICT"));
    assert!(repo.git(&["status", "--porcelain"]).contains("UU level.json"));
    let text = repo.read("level.json");
    // The clean edits of both sides are in; only the guard's line is marked.
    assert!(text.contains("\"Main Gate\"") && text.contains("\"x\": 3"), "{text}");
    assert!(text.contains("<<<<<<< ours\n    { \"id\": 3, \"type\": \"guard\", \"name\": \"Guard\", \"x\": 14 }\n=======\n    { \"id\": 3, \"type\": \"guard\", \"name\": \"Guard\", \"x\": 16 }\n>>>>>>> theirs\n"), "{text}");
    let check = repo.levelmerge(&["check", "level.json"]);
    assert_eq!(check.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&check.stdout).contains("conflict-marker"));
    // git's own tools still work on the result.
    repo.git(&["checkout", "--theirs", "level.json"]);
    assert!(repo.read("level.json").contains("\"x\": 16"));
}

#[test]
fn setup_is_idempotent_and_doctor_reports_it() {
    let repo = Repo::new();
    let before = repo.levelmerge(&["doctor"]);
    assert_eq!(before.status.code(), Some(1), "doctor must fail before setup");
    repo.levelmerge(&["setup", "--local"]);
    let again = repo.levelmerge(&["setup", "--local"]);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).contains("already lists"));
    let attrs = repo.read(".gitattributes");
    assert_eq!(attrs.matches("*.json merge=levelmerge diff=levelmerge").count(), 1, "{attrs}");
    assert_eq!(repo.git(&["config", "--get-all", "merge.levelmerge.driver"]).lines().count(), 1);
    let doctor = repo.levelmerge(&["doctor"]);
    let out = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "{out}");
    assert!(out.contains("*.ldtk") && out.contains("uses levelmerge"), "{out}");
}

#[test]
fn git_diff_prints_the_semantic_diff() {
    let repo = Repo::new();
    repo.set_up();
    repo.write("level.json", &edit(BASE, &[("\"Gate\"", "\"Main Gate\"")]));
    let diff = repo.git(&["diff"]);
    assert!(diff.contains("levelmerge diff a/level.json b/level.json"), "{diff}");
    assert!(diff.contains("name: \"Gate\" → \"Main Gate\""), "{diff}");
    let plain = repo.git(&["diff", "--no-ext-diff"]);
    assert!(plain.contains("-    { \"id\": 1, \"type\": \"door\", \"name\": \"Gate\""), "{plain}");
}

const SCENE: &str = r#"[gd_scene load_steps=2 format=2]

[ext_resource path="res://player.gd" type="Script" id=1]

[node name="Main" type="Node2D"]
script = ExtResource( 1 )
"#;

#[test]
fn git_merge_of_godot_scenes_renumbers_resources_and_recounts_load_steps() {
    let repo = Repo::new();
    repo.set_up();
    repo.write("main.tscn", SCENE);
    repo.git(&["add", "main.tscn"]);
    repo.git(&["commit", "-q", "-m", "scene"]);
    repo.git(&["branch", "feature"]);
    let with = |path: &str, node: &str| {
        edit(
            SCENE,
            &[
                ("load_steps=2", "load_steps=3"),
                ("id=1]\n", &format!("id=1]\n[ext_resource path=\"res://{path}\" type=\"Texture\" id=2]\n")),
                (
                    "script = ExtResource( 1 )\n",
                    &format!(
                        "script = ExtResource( 1 )\n\n[node name=\"{node}\" type=\"Sprite\" parent=\".\"]\ntexture = ExtResource( 2 )\n"
                    ),
                ),
            ],
        )
    };
    repo.git(&["checkout", "-q", "feature"]);
    repo.write("main.tscn", &with("tree.png", "Tree"));
    repo.git(&["commit", "-q", "-am", "tree"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("main.tscn", &with("rock.png", "Rock"));
    repo.git(&["commit", "-q", "-am", "rock"]);
    // Git's line merge conflicts on load_steps and on both id=2 lines.
    repo.git(&["merge", "-q", "--no-edit", "feature"]);
    let merged = repo.read("main.tscn");
    assert!(merged.starts_with("[gd_scene load_steps=4 format=2]\n"), "{merged}");
    assert!(merged.contains("[ext_resource path=\"res://rock.png\" type=\"Texture\" id=2]"), "{merged}");
    assert!(merged.contains("[ext_resource path=\"res://tree.png\" type=\"Texture\" id=3]"), "{merged}");
    assert!(merged.contains("[node name=\"Tree\" type=\"Sprite\" parent=\".\"]\ntexture = ExtResource( 3 )"), "{merged}");
    assert!(merged.contains("[node name=\"Rock\" type=\"Sprite\" parent=\".\"]\ntexture = ExtResource( 2 )"), "{merged}");
    let check = repo.levelmerge(&["check", "main.tscn"]);
    assert_eq!(check.status.code(), Some(0), "{}", String::from_utf8_lossy(&check.stdout));
}
