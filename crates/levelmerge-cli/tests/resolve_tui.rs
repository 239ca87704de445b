//! The interactive resolver end to end: `levelmerge resolve` on a real terminal (tmux), driven
//! by keys, its screen read back and the file it writes checked.

use std::path::{Path, PathBuf};

use levelmerge_testutils::terminal::Tmux;

/// Two conflicts; taking theirs in the second would give two objects the id 1.
const MARKED: &str = "{\n  \"entities\": [\n    { \"id\": 1, \"x\": 1 },\n<<<<<<< ours\n    { \"id\": 2, \"x\": 5 },\n=======\n    { \"id\": 2, \"x\": 6 },\n>>>>>>> theirs\n<<<<<<< ours\n    { \"id\": 3, \"y\": 1 }\n=======\n    { \"id\": 1, \"y\": 2 }\n>>>>>>> theirs\n  ]\n}\n";

fn marked_file(dir: &Path) -> PathBuf {
    let file = dir.join("level.json");
    std::fs::write(&file, MARKED).unwrap();
    file
}

#[test]
fn conflicts_are_settled_by_keys_and_a_breaking_choice_is_refused() {
    let Some(tmux) = Tmux::start("resolve_tui_settles") else { return };
    let work = tempfile::tempdir().unwrap();
    let file = marked_file(work.path());
    tmux.run(work.path(), &[], env!("CARGO_BIN_EXE_levelmerge"), &["resolve", file.to_str().unwrap()]);
    let first = tmux.wait_for("2 conflict(s) to settle");
    assert!(first.contains("#1 line 4") && first.contains("#2 line 9"), "{first}");
    assert!(first.contains("entities[2]") && first.contains("› x"), "the object and property are named:\n{first}");
    assert!(first.contains("\"x\": 5") && first.contains("\"x\": 6"), "ours and theirs side by side:\n{first}");

    tmux.keys(&["t", "t", "w"]);
    let refused = tmux.wait_for("nothing was written");
    assert!(refused.contains("duplicate id"), "{refused}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), MARKED, "a refused choice writes nothing");

    tmux.keys(&["u"]);
    tmux.wait_for("#2 is open");
    tmux.keys(&["o", "w"]);
    assert_eq!(tmux.exit_code(), 0);
    let settled = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        settled,
        "{\n  \"entities\": [\n    { \"id\": 1, \"x\": 1 },\n    { \"id\": 2, \"x\": 6 },\n    { \"id\": 3, \"y\": 1 }\n  ]\n}\n"
    );
}

#[test]
fn progress_is_saved_only_when_asked_and_quitting_asks_before_dropping_choices() {
    let Some(tmux) = Tmux::start("resolve_tui_progress") else { return };
    let work = tempfile::tempdir().unwrap();
    let file = marked_file(work.path());
    tmux.run(work.path(), &[], env!("CARGO_BIN_EXE_levelmerge"), &["resolve", file.to_str().unwrap()]);
    tmux.wait_for("2 conflict(s) to settle");
    tmux.keys(&["o", "w"]);
    tmux.wait_for("1 conflict(s) not settled yet");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), MARKED, "w waits for every conflict");
    tmux.keys(&["W"]);
    tmux.wait_for("settled 1 conflict(s), 1 left");
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("    { \"id\": 2, \"x\": 5 },\n<<<<<<< ours\n"), "{saved}");
    // A new choice not written yet: the first q asks, the second quits without writing it.
    tmux.keys(&["t", "q"]);
    tmux.wait_for("press q again");
    tmux.keys(&["q"]);
    assert_eq!(tmux.exit_code(), 1, "conflicts are left");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), saved);
}
