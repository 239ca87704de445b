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

/// Both sides append an entity after the same line: git's line merge conflicts there.
fn branches_that_append_entities(repo: &Repo) -> String {
    repo.git(&["branch", "feature"]);
    let key = ("\"x\": 12 }\n", "\"x\": 12 },\n    { \"id\": 5, \"type\": \"key\", \"name\": \"Key\", \"x\": 1 }\n");
    let chest = ("\"x\": 12 }\n", "\"x\": 12 },\n    { \"id\": 4, \"type\": \"chest\", \"name\": \"Chest\", \"x\": 20 }\n");
    repo.commit_edit("feature", &edit(BASE, &[key]));
    repo.commit_edit("main", &edit(BASE, &[chest]));
    edit(
        BASE,
        &[("\"x\": 12 }\n", "\"x\": 12 },\n    { \"id\": 4, \"type\": \"chest\", \"name\": \"Chest\", \"x\": 20 },\n    { \"id\": 5, \"type\": \"key\", \"name\": \"Key\", \"x\": 1 }\n")],
    )
}

#[test]
fn mergetool_settles_a_file_git_merged_by_lines() {
    let repo = Repo::new();
    let expected = branches_that_append_entities(&repo);
    let merge = repo.run("git", &["merge", "--no-edit", "feature"]);
    assert_eq!(merge.status.code(), Some(1), "git's line merge conflicts");
    assert!(repo.read("level.json").contains("<<<<<<<"));
    let setup = repo.levelmerge(&["setup", "--local"]);
    assert!(String::from_utf8_lossy(&setup.stdout).contains("git mergetool --tool levelmerge"));
    let tool = repo.run("git", &["mergetool", "--tool", "levelmerge", "--no-prompt", "level.json"]);
    assert!(tool.status.success(), "mergetool failed: {}", String::from_utf8_lossy(&tool.stderr));
    assert_eq!(repo.read("level.json"), expected);
    assert!(!repo.git(&["status", "--porcelain"]).contains("UU"), "git still sees the file unmerged");
}

#[test]
fn mergetool_opens_the_resolver_on_a_real_conflict() {
    let Some(tmux) = levelmerge_testutils::terminal::Tmux::start("mergetool_opens_the_resolver") else { return };
    let repo = Repo::new();
    repo.git(&["branch", "feature"]);
    repo.commit_edit("feature", &edit(BASE, &[("\"x\": 12", "\"x\": 16")]));
    repo.commit_edit("main", &edit(BASE, &[("\"x\": 12", "\"x\": 14"), ("\"Gate\"", "\"Main Gate\"")]));
    assert_eq!(repo.run("git", &["merge", "--no-edit", "feature"]).status.code(), Some(1));
    let setup = repo.levelmerge(&["setup", "--local"]);
    assert!(setup.status.success(), "{}", String::from_utf8_lossy(&setup.stderr));
    let home = repo.home.path().to_str().unwrap().to_owned();
    let env = [("HOME", home.as_str()), ("GIT_CONFIG_NOSYSTEM", "1")];
    tmux.run(repo.path(), &env, "git", &["mergetool", "--tool", "levelmerge", "--no-prompt", "level.json"]);
    // levelmerge merged again by objects: only the guard's x is left, shown by its object.
    let screen = tmux.wait_for("1 conflict(s) to settle");
    assert!(screen.contains("Guard [guard] › x"), "{screen}");
    tmux.keys(&["t", "w"]);
    assert_eq!(tmux.exit_code(), 0, "{}", tmux.screen());
    assert_eq!(repo.read("level.json"), edit(BASE, &[("\"x\": 12", "\"x\": 16"), ("\"Gate\"", "\"Main Gate\"")]));
    assert!(!repo.git(&["status", "--porcelain"]).contains("UU"), "git sees the file settled");
}

#[test]
fn check_repo_finds_markers_leftovers_and_unmerged_files() {
    let repo = Repo::new();
    branches_that_append_entities(&repo);
    let merge = repo.run("git", &["merge", "--no-edit", "feature"]);
    assert_eq!(merge.status.code(), Some(1));
    repo.write("level_BASE_4242.json", BASE);
    repo.write("sound.json", BASE);
    repo.write("broken.json", &BASE.replace("\"x\": 4", "\"x\": 4,,"));
    let out = repo.levelmerge(&["check", "--repo"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("level.json: unmerged: "), "{text}");
    assert!(text.contains("level_BASE_4242.json: merge-leftover: "), "{text}");
    assert!(text.contains("broken.json:5:"), "{text}");
    assert!(!text.contains("sound.json"), "a sound file is not listed: {text}");
    assert!(text.ends_with("checked 2 level file(s): 3 with problems, 3 problem(s) in all\n"), "{text}");
    let json = repo.levelmerge(&["check", "--repo", ".", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let codes: Vec<_> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["problems"].as_array().unwrap().iter().map(|p| p["problem"].clone()))
        .collect();
    assert!(codes.contains(&"merge-leftover".into()) && codes.contains(&"unmerged".into()) && codes.contains(&"syntax".into()), "{v}");
    // Settled and cleaned up, the repository is sound.
    repo.git(&["checkout", "--theirs", "level.json"]);
    repo.git(&["add", "level.json"]);
    for f in ["level_BASE_4242.json", "broken.json"] {
        std::fs::remove_file(repo.path().join(f)).unwrap();
    }
    let out = repo.levelmerge(&["check", "--repo"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn the_pre_commit_hook_refuses_a_broken_level() {
    let repo = Repo::new();
    let setup = repo.levelmerge(&["setup", "--local", "--pre-commit"]);
    assert!(setup.status.success(), "{}", String::from_utf8_lossy(&setup.stderr));
    repo.write("level.json", &BASE.replace("\"x\": 4", "<<<<<<< ours\n\"x\": 4\n=======\n\"x\": 5\n>>>>>>> theirs\n"));
    repo.git(&["add", "level.json"]);
    let refused = repo.run("git", &["commit", "-q", "-m", "oops"]);
    assert!(!refused.status.success(), "the broken level was committed");
    // git shows a hook's output on its stderr.
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("level.json:7: conflict-marker") && said.contains("1 with problems"), "{said}");
    // What is checked is what is staged: fixing the file on disk only is not enough.
    repo.write("level.json", &BASE.replace("\"x\": 4", "\"x\": 5"));
    assert!(!repo.run("git", &["commit", "-q", "-m", "still staged broken"]).status.success());
    repo.git(&["add", "level.json"]);
    repo.git(&["commit", "-q", "-m", "fixed"]);
    // Someone else's hook is never overwritten.
    let hook = repo.path().join(".git/hooks/pre-commit");
    std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
    let again = repo.levelmerge(&["setup", "--local", "--pre-commit"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already holds another hook"));
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), "#!/bin/sh\nexit 0\n");
}

#[test]
fn resolve_settles_a_conflict_git_stopped_on() {
    let repo = Repo::new();
    repo.set_up();
    repo.git(&["branch", "feature"]);
    repo.commit_edit("feature", &edit(BASE, &[("\"x\": 12", "\"x\": 16")]));
    repo.commit_edit("main", &edit(BASE, &[("\"x\": 12", "\"x\": 14"), ("\"Gate\"", "\"Main Gate\"")]));
    assert_eq!(repo.run("git", &["merge", "--no-edit", "feature"]).status.code(), Some(1));
    let list = repo.levelmerge(&["resolve", "level.json"]);
    let listed = String::from_utf8_lossy(&list.stdout);
    assert_eq!(list.status.code(), Some(1), "{listed}");
    assert!(listed.contains("Guard [guard] › x") && listed.contains("1 of 1 conflict(s) listed"), "{listed}");
    let take = repo.levelmerge(&["resolve", "level.json", "--take", "theirs", "--object", "Gu*"]);
    assert_eq!(take.status.code(), Some(0), "{}", String::from_utf8_lossy(&take.stderr));
    assert_eq!(repo.read("level.json"), edit(BASE, &[("\"x\": 12", "\"x\": 16"), ("\"Gate\"", "\"Main Gate\"")]));
    repo.git(&["add", "level.json"]);
    repo.git(&["commit", "-q", "--no-edit"]);
}

#[test]
fn resolve_leaves_a_problem_every_version_had_and_refuses_a_new_one() {
    // Every version holds two entities of one id: the merge is by lines, and no way of
    // settling its conflict removes the duplicate.
    let repo = Repo::new();
    let twice =
        edit(BASE, &[("\"x\": 4 },\n", "\"x\": 4 },\n    { \"id\": 2, \"type\": \"torch\", \"name\": \"Torch copy\", \"x\": 5 },\n")]);
    repo.commit_edit("main", &twice);
    repo.set_up();
    repo.git(&["branch", "feature"]);
    repo.commit_edit("feature", &edit(&twice, &[("\"x\": 12", "\"x\": 16")]));
    repo.commit_edit("main", &edit(&twice, &[("\"x\": 12", "\"x\": 14")]));
    assert_eq!(repo.run("git", &["merge", "--no-edit", "feature"]).status.code(), Some(1));
    let marked = repo.read("level.json");
    let take = repo.levelmerge(&["resolve", "level.json", "--take", "theirs"]);
    let said = String::from_utf8_lossy(&take.stderr);
    assert_eq!(take.status.code(), Some(0), "{said}");
    assert!(said.contains("1 problem(s) the merged versions already had are left as they were"), "{said}");
    assert_eq!(repo.read("level.json"), edit(&twice, &[("\"x\": 12", "\"x\": 16")]));
    // Outside the merge git stopped on, nothing tells the duplicate was there before: refused.
    let elsewhere = tempfile::tempdir().unwrap();
    let copy = elsewhere.path().join("level.json");
    std::fs::write(&copy, &marked).unwrap();
    let refused = repo.levelmerge(&["resolve", copy.to_str().unwrap(), "--take", "theirs"]);
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("duplicate id"));
    assert_eq!(std::fs::read(&copy).unwrap(), marked.as_bytes());
}

#[test]
fn log_and_blame_follow_objects_through_history() {
    let repo = Repo::new();
    let gate = edit(BASE, &[("\"Gate\"", "\"Main Gate\"")]);
    repo.commit_edit("main", &gate);
    repo.git(&["config", "user.name", "Second Designer"]);
    let guard = edit(&gate, &[("\"x\": 12", "\"x\": 14")]);
    repo.commit_edit("main", &guard);
    let log = repo.levelmerge(&["log", "level.json"]);
    let text = String::from_utf8_lossy(&log.stdout);
    assert!(log.status.success(), "{}", String::from_utf8_lossy(&log.stderr));
    let commits: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(commits.len(), 3, "{text}");
    assert!(commits[0].contains("Second Designer  edit on main") && commits[2].contains("base"), "{text}");
    assert!(text.contains("  Guard [guard] › x: 12 → 14\n"), "{text}");
    assert!(text.contains("  Main Gate [door] › name: \"Gate\" → \"Main Gate\"\n"), "{text}");
    assert!(text.contains("  (file created)"), "{text}");
    // Narrowed to one object and one property.
    let only = repo.levelmerge(&["log", "level.json", "--object", "Main*", "--property", "name"]);
    let only = String::from_utf8_lossy(&only.stdout);
    assert_eq!(only.lines().count(), 2, "{only}");
    assert!(only.lines().nth(1).unwrap().contains("name: \"Gate\" → \"Main Gate\""), "{only}");
    let blame = repo.levelmerge(&["blame", "level.json"]);
    let blame = String::from_utf8_lossy(&blame.stdout);
    let who = |name: &str| blame.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no {name} in {blame}")).to_owned();
    assert!(who("Guard [guard]").ends_with("Second Designer"), "{blame}");
    assert!(who("Main Gate [door]").ends_with("Level Designer"), "{blame}");
    assert!(who("Torch [torch]").ends_with("Level Designer"), "{blame}");
}
