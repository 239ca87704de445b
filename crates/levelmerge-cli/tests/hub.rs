//! The live collaboration end to end on loopback: a `levelmerge hub` process, `levelmerge
//! sync` agents in temporary working copies, files edited by the test as an editor would save
//! them, and the hub's git repository read back.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const LEVEL: &str = "{\n  \"entities\": [\n    { \"id\": 1, \"name\": \"Door\", \"x\": 0 },\n    { \"id\": 2, \"name\": \"Lamp\", \"x\": 0 },\n    { \"id\": 3, \"name\": \"Crate\", \"x\": 0 }\n  ]\n}\n";

/// How long anything may take to propagate before the test fails.
const PATIENCE: Duration = Duration::from_secs(20);
const INTERVAL: &str = "200ms";

fn levelmerge() -> Command {
    Command::new(env!("CARGO_BIN_EXE_levelmerge"))
}

/// Output lines, collected as they come.
type Lines = Arc<Mutex<Vec<String>>>;

/// A child process whose output lines are collected as they come.
struct Running {
    child: Child,
    lines: Lines,
}

impl Running {
    fn spawn(mut command: Command) -> Running {
        let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("levelmerge starts");
        let lines = Arc::new(Mutex::new(Vec::new()));
        for stream in [Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>, Box::new(child.stderr.take().unwrap())] {
            let lines = lines.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    lines.lock().unwrap().push(line);
                }
            });
        }
        Running { child, lines }
    }

    fn output(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }

    fn wait_for_line(&self, text: &str) -> String {
        wait_until(
            &format!("a line with {text:?}"),
            || self.lines.lock().unwrap().iter().find(|l| l.contains(text)).cloned(),
            || self.output(),
        )
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_until<T>(what: &str, mut check: impl FnMut() -> Option<T>, context: impl Fn() -> String) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(start.elapsed() < PATIENCE, "waited {PATIENCE:?} for {what}:\n{}", context());
        std::thread::sleep(Duration::from_millis(20));
    }
}

struct Team {
    dir: tempfile::TempDir,
    port: u16,
    /// What every process started for the team said, shown when a wait fails.
    said: Mutex<Vec<(String, Lines)>>,
}

impl Team {
    fn new(users: &[(&str, bool)]) -> Team {
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let team = Team { dir, port, said: Mutex::new(Vec::new()) };
        for (user, read_only) in users {
            let mut add = levelmerge();
            add.args(["hub", "token", "add", user, "--repo"]).arg(team.repo());
            if *read_only {
                add.arg("--read-only");
            }
            let out = add.output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            std::fs::write(team.dir.path().join(format!("{user}.token")), out.stdout.trim_ascii()).unwrap();
        }
        team
    }

    fn repo(&self) -> PathBuf {
        self.dir.path().join("hub.git")
    }

    fn hub(&self, policy: &str) -> Running {
        let mut c = levelmerge();
        c.args(["hub", "--policy", policy, "--listen", &format!("127.0.0.1:{}", self.port), "--repo"]).arg(self.repo());
        let hub = Running::spawn(c);
        self.said.lock().unwrap().push(("hub".into(), hub.lines.clone()));
        hub.wait_for_line("serving");
        hub
    }

    fn copy(&self, user: &str) -> PathBuf {
        let copy = self.dir.path().join(user);
        std::fs::create_dir_all(&copy).unwrap();
        copy
    }

    fn token(&self, user: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("{user}.token"))).unwrap()
    }

    fn agent(&self, user: &str) -> Running {
        self.agent_of(user, &["level.json"])
    }

    fn agent_of(&self, user: &str, paths: &[&str]) -> Running {
        let mut c = levelmerge();
        c.args(["sync", "--hub", &format!("127.0.0.1:{}", self.port), "--interval", INTERVAL, "--root"]).arg(self.copy(user));
        c.args(paths).env("LEVELMERGE_TOKEN", self.token(user));
        let agent = Running::spawn(c);
        self.said.lock().unwrap().push((format!("{user}'s agent"), agent.lines.clone()));
        agent
    }

    fn read(&self, user: &str) -> String {
        std::fs::read_to_string(self.copy(user).join("level.json")).unwrap_or_default()
    }

    /// Saves the file as an editor does: written whole, in place.
    fn save(&self, user: &str, text: &str) {
        std::fs::write(self.copy(user).join("level.json"), text).unwrap();
    }

    fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git").arg("--git-dir").arg(self.repo()).args(args).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until every copy reads `text`.
    /// Bob's agent stops; alice sets the crate to 1 on top of `from`, and it reaches the hub;
    /// bob saves `bob_saves` meanwhile, then his agent comes back.
    fn clash_on_the_crate(&self, alice: &Running, bob: Running, from: &str, bob_saves: &str) -> Running {
        // Stopped at any instant, even between writing a head into the file and recording
        // its revision, the agent comes back knowing what the file derives from.
        drop(bob);
        self.save("alice", &with_x(from, "Crate", 1));
        wait_until(
            "alice's edit at the hub",
            || self.git(&["show", "HEAD:level.json"]).contains("\"Crate\", \"x\": 1 ").then_some(()),
            || alice.output(),
        );
        self.save("bob", bob_saves);
        self.agent("bob")
    }

    fn converge(&self, users: &[&str], text: &str) {
        wait_until(
            "every copy to converge",
            || users.iter().all(|u| self.read(u) == text).then_some(()),
            || {
                let copies = users.iter().map(|u| format!("{u}:\n{}", self.read(u)));
                let said = self
                    .said
                    .lock()
                    .unwrap()
                    .iter()
                    .map(|(who, lines)| format!("{who} said:\n{}", lines.lock().unwrap().join("\n")))
                    .collect::<Vec<_>>();
                copies.chain(said).collect::<Vec<_>>().join("\n")
            },
        );
    }
}

fn with_x(text: &str, name: &str, x: i64) -> String {
    let start = text.find(&format!("\"name\": \"{name}\", \"x\": ")).unwrap() + format!("\"name\": \"{name}\", \"x\": ").len();
    let end = start + text[start..].find(' ').unwrap();
    format!("{}{x}{}", &text[..start], &text[end..])
}

#[test]
fn three_copies_stay_in_sync_and_every_edit_lands_in_git_with_its_author() {
    let team = Team::new(&[("alice", false), ("bob", false), ("carol", false)]);
    let _hub = team.hub("shared-wins");
    team.save("alice", LEVEL);
    let agents: Vec<Running> = ["alice", "bob", "carol"].iter().map(|u| team.agent(u)).collect();
    team.converge(&["alice", "bob", "carol"], LEVEL);
    // Each user moves their own object, again and again; every edit is logged.
    let mut expected = LEVEL.to_owned();
    let mut latencies = Vec::new();
    for round in 1..=5 {
        for (user, object) in [("alice", "Door"), ("bob", "Lamp"), ("carol", "Crate")] {
            let saved = with_x(&team.read(user), object, round * 10);
            expected = with_x(&expected, object, round * 10);
            let at = Instant::now();
            team.save(user, &saved);
            team.converge(&["alice", "bob", "carol"], &expected);
            latencies.push(at.elapsed());
        }
    }
    latencies.sort();
    eprintln!(
        "save-to-every-copy latency at a {INTERVAL} interval: median {:?}, max {:?}",
        latencies[latencies.len() / 2],
        latencies.last().unwrap()
    );
    let log = team.git(&["log", "--format=%an"]);
    for user in ["alice", "bob", "carol"] {
        assert_eq!(log.lines().filter(|a| *a == user).count(), if user == "alice" { 6 } else { 5 }, "{user}'s commits:\n{log}");
    }
    assert_eq!(team.git(&["show", "HEAD:level.json"]), expected);
    // Presence: the others hear what alice edited.
    agents[1].wait_for_line("alice is editing Door");
}

#[test]
fn concurrent_edits_are_merged_and_a_conflict_follows_the_policy_without_losing_the_edit() {
    let team = Team::new(&[("alice", false), ("bob", false)]);
    let _hub = team.hub("shared-wins");
    team.save("alice", LEVEL);
    let alice = team.agent("alice");
    let bob = team.agent("bob");
    team.converge(&["alice", "bob"], LEVEL);
    // Same moment, different objects: both kept.
    team.save("alice", &with_x(LEVEL, "Door", 5));
    team.save("bob", &with_x(LEVEL, "Lamp", 7));
    let both = with_x(&with_x(LEVEL, "Door", 5), "Lamp", 7);
    team.converge(&["alice", "bob"], &both);
    // Same property while bob's agent is away: the shared version wins, bob's is kept.
    let bob = team.clash_on_the_crate(&alice, bob, &both, &with_x(&both, "Crate", 2));
    let shared = with_x(&both, "Crate", 1);
    team.converge(&["alice", "bob"], &shared);
    bob.wait_for_line("the team's version won over your edit of level.json");
    let kept = team.git(&["show", "refs/levelmerge/kept/bob:level.json"]);
    assert!(kept.contains("\"Crate\", \"x\": 2 "), "bob's losing edit is in the hub's history:\n{kept}");
}

#[test]
fn a_broken_save_is_refused_and_the_last_good_version_stays() {
    let team = Team::new(&[("alice", false), ("bob", false)]);
    let _hub = team.hub("shared-wins");
    team.save("alice", LEVEL);
    let alice = team.agent("alice");
    let _bob = team.agent("bob");
    team.converge(&["alice", "bob"], LEVEL);
    let commits = team.git(&["rev-list", "--count", "HEAD"]);
    team.save("alice", &LEVEL[..LEVEL.len() / 2]);
    alice.wait_for_line("the hub refused level.json");
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(team.read("bob"), LEVEL, "bob never sees the broken save");
    assert_eq!(team.git(&["rev-list", "--count", "HEAD"]), commits);
    // Fixed and saved again: it goes through.
    team.save("alice", &with_x(LEVEL, "Door", 3));
    team.converge(&["alice", "bob"], &with_x(LEVEL, "Door", 3));
}

#[test]
fn the_hub_can_be_killed_and_restarted_and_an_offline_copy_catches_up() {
    let team = Team::new(&[("alice", false), ("bob", false)]);
    let mut hub = team.hub("shared-wins");
    team.save("alice", LEVEL);
    let alice = team.agent("alice");
    let _bob = team.agent("bob");
    team.converge(&["alice", "bob"], LEVEL);
    // kill -9, edits made while it is down, then a restart on the same address.
    hub.child.kill().unwrap();
    hub.child.wait().unwrap();
    alice.wait_for_line("lost the hub");
    let mut expected = LEVEL.to_owned();
    for x in 1..=50 {
        expected = with_x(&expected, "Door", x);
        team.save("alice", &expected);
    }
    team.save("bob", &with_x(&team.read("bob"), "Lamp", 9));
    expected = with_x(&expected, "Lamp", 9);
    let _hub = team.hub("shared-wins");
    team.converge(&["alice", "bob"], &expected);
    assert_eq!(team.git(&["show", "HEAD:level.json"]), expected);
}

#[test]
fn strangers_and_read_only_tokens_change_nothing() {
    let team = Team::new(&[("alice", false), ("viewer", true)]);
    let _hub = team.hub("shared-wins");
    team.save("alice", LEVEL);
    let _alice = team.agent("alice");
    let viewer = team.agent("viewer");
    team.converge(&["alice", "viewer"], LEVEL);
    viewer.wait_for_line("(read-only)");
    team.save("viewer", &with_x(LEVEL, "Door", 99));
    viewer.wait_for_line("read-only");
    wait_until(
        "the refusal",
        || viewer.output().contains("the hub refused level.json: this token is read-only").then_some(()),
        || viewer.output(),
    );
    assert!(!team.git(&["log", "--format=%an"]).contains("viewer"));
    // An unknown token: the agent stops with the hub's reason.
    let mut stranger = levelmerge();
    stranger.args(["sync", "--hub", &format!("127.0.0.1:{}", team.port), "--root"]).arg(team.copy("eve")).arg("level.json");
    let out = stranger.env("LEVELMERGE_TOKEN", "0123").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown or revoked token"), "{}", String::from_utf8_lossy(&out.stderr));
    // Paths outside the working copy are refused before anything is sent.
    let out = levelmerge().args(["sync", "--hub", "127.0.0.1:1", "--token", "x", "../outside.json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refused"));
    // A revoked token no longer works.
    let revoke = levelmerge().args(["hub", "token", "revoke", "alice", "--repo"]).arg(team.repo()).output().unwrap();
    assert!(revoke.status.success());
    let mut again = levelmerge();
    again.args(["sync", "--hub", &format!("127.0.0.1:{}", team.port), "--root"]).arg(team.copy("alice2")).arg("level.json");
    let out = again.env("LEVELMERGE_TOKEN", team.token("alice")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A raw HTTP GET on loopback: the status line.
fn http_status(port: u16, path: &str, token: Option<&str>) -> String {
    http(port, "GET", path, token, None).lines().next().unwrap_or_default().to_owned()
}

/// A raw HTTP request on loopback (a JSON body when given): the whole answer.
fn http(port: u16, method: &str, path: &str, token: Option<&str>, body: Option<&str>) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let body = body.map_or(String::new(), |b| format!("Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{b}", b.len()));
    let body = if body.is_empty() { "\r\n".to_owned() } else { body };
    write!(stream, "{method} {path} HTTP/1.1\r\nHost: localhost\r\n{auth}Connection: close\r\n{body}").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn under_the_manual_policy_a_conflict_waits_on_the_dashboard_until_someone_settles_it() {
    let team = Team::new(&[("alice", false), ("bob", false), ("lead", true)]);
    let hub = team.hub("manual");
    team.save("alice", LEVEL);
    let alice = team.agent("alice");
    let bob = team.agent("bob");
    team.converge(&["alice", "bob"], LEVEL);
    // Bob edits the crate while away; alice edits it too.
    let bob = team.clash_on_the_crate(&alice, bob, LEVEL, &with_x(LEVEL, "Crate", 2));
    bob.wait_for_line("the team's version won over your edit of level.json");
    hub.wait_for_line("1 conflict(s) of bob's level.json wait to be settled");
    team.converge(&["alice", "bob"], &with_x(LEVEL, "Crate", 1));
    let queue = http(team.port, "GET", "/api/conflicts", Some(&team.token("lead")), None);
    let id = queue.split("\"id\":").nth(1).and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next()).expect(&queue).to_owned();
    if let Some(browser) = levelmerge_testutils::browser::require("the conflict queue on the dashboard") {
        let dom = browser.dom(&format!("http://127.0.0.1:{}/#token={}&file=level.json", team.port, team.token("lead")));
        assert!(dom.contains(&format!("data-conflict=\"{id}\"")) && dom.contains("Take bob's edit"), "{dom}");
    }
    let settle = format!("{{\"id\":{id},\"take\":\"edit\"}}");
    let answer = http(team.port, "POST", "/api/conflicts/settle", Some(&team.token("lead")), Some(&settle));
    assert!(answer.starts_with("HTTP/1.1 403"), "a read-only token settles nothing: {answer}");
    let answer = http(team.port, "POST", "/api/conflicts/settle", Some(&team.token("alice")), Some(&settle));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    team.converge(&["alice", "bob"], &with_x(LEVEL, "Crate", 2));
    assert_eq!(team.git(&["log", "-1", "--format=%an %s"]).trim(), "alice level.json: bob's edit, taken by alice");
    assert!(http(team.port, "GET", "/api/conflicts", Some(&team.token("lead")), None).contains("\"conflicts\":[]"));
}

#[test]
fn the_dashboard_shows_the_level_with_who_is_editing_what_and_its_history() {
    let Some(browser) = levelmerge_testutils::browser::require("the_dashboard_shows_the_level") else { return };
    let team = Team::new(&[("alice", false), ("lead", true)]);
    let _hub = team.hub("shared-wins");
    team.save("alice", LEVEL);
    let alice = team.agent("alice");
    alice.wait_for_line("connected to the hub as alice");
    wait_until("the level at the hub", || team.git(&["show", "HEAD:level.json"]).contains("Crate").then_some(()), || alice.output());
    team.save("alice", &with_x(LEVEL, "Door", 4));
    wait_until(
        "alice's edit at the hub",
        || team.git(&["show", "HEAD:level.json"]).contains("\"Door\", \"x\": 4").then_some(()),
        || alice.output(),
    );
    // Presence goes with the next round.
    let lead = team.token("lead");
    wait_until(
        "alice's presence at the hub",
        || http(team.port, "GET", "/api/presence", Some(&lead), None).contains("Door").then_some(()),
        || alice.output(),
    );
    let url = format!("http://127.0.0.1:{}/#token={lead}&file=level.json", team.port);
    let dom = browser.dom(&url);
    assert!(dom.contains("alice is editing Door (entities)"), "{dom}");
    let door = dom.find("data-key=\"Door\"").expect("the Door row");
    let row = &dom[dom[..door].rfind('<').unwrap()..door + dom[door..].find("</div>").unwrap()];
    assert!(row.contains("node editing") && row.contains("data-user=\"alice\""), "Door carries alice's marker: {row}");
    let lamp = &dom[dom.find("data-key=\"Lamp\"").unwrap()..];
    assert!(!lamp[..lamp.find("</div>").unwrap()].contains("data-user"), "nobody is on the lamp");
    assert!(dom.contains("3 objects") && dom.contains("alice: Door (entities)"), "counts and history: {dom}");
    assert!(dom.contains("signed in as lead (read-only)"), "{dom}");
    // A wrong token gets the sign-in form, and the API answers 401 without a token.
    let refused = browser.dom(&format!("http://127.0.0.1:{}/#token=nope", team.port));
    assert!(refused.contains("That token is not valid here."), "{refused}");
    assert!(http_status(team.port, "/api/files", None).contains("401"));
    assert!(http_status(team.port, "/api/files", Some(&lead)).contains("200"));
    assert!(http_status(team.port, "/api/objects?path=../x", Some(&lead)).contains("400"));
    let png = browser.screenshot(&url, &team.dir.path().join("dashboard.png"));
    assert!(png.starts_with(b"\x89PNG"));
}

/// A raw protocol client: what a buggy or hostile program could send.
fn raw_session(port: u16, frames: Vec<tokio_tungstenite::tungstenite::Message>) -> Vec<String> {
    use futures_util::{SinkExt, StreamExt};
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async move {
        let (mut ws, _) =
            tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}/ws")).await.expect("the hub accepts a connection");
        let mut answers = Vec::new();
        for frame in frames {
            // A hub that closed on an oversized frame may never take the rest of it.
            if !matches!(tokio::time::timeout(Duration::from_secs(5), ws.send(frame)).await, Ok(Ok(()))) {
                answers.push("(send failed)".to_owned());
                break;
            }
        }
        // Read for two seconds: the agents' presence keeps coming as long as it is open.
        let until = tokio::time::Instant::now() + Duration::from_secs(2);
        while let Ok(Some(Ok(message))) = tokio::time::timeout_at(until, ws.next()).await {
            match message {
                tokio_tungstenite::tungstenite::Message::Text(t) => answers.push(t.to_string()),
                tokio_tungstenite::tungstenite::Message::Close(_) => {
                    answers.push("(closed)".to_owned());
                    break;
                }
                _ => {}
            }
        }
        answers
    })
}

#[test]
fn malformed_oversized_and_unauthenticated_messages_do_not_harm_the_session() {
    use tokio_tungstenite::tungstenite::Message;
    let team = Team::new(&[("alice", false), ("bob", false)]);
    let _hub = team.hub("shared-wins");
    team.save("alice", LEVEL);
    let _alice = team.agent("alice");
    let _bob = team.agent("bob");
    team.converge(&["alice", "bob"], LEVEL);
    let hello =
        |token: &str| Message::text(format!("{{\"type\":\"hello\",\"version\":2,\"token\":\"{token}\",\"paths\":[\"level.json\"]}}"));
    // No token: an error, and nothing else.
    let publish = Message::text(format!(
        "{{\"type\":\"publish\",\"path\":\"level.json\",\"base\":null,\"content\":{:?}}}",
        with_x(LEVEL, "Door", 66)
    ));
    let stranger = raw_session(team.port, vec![hello("wrong"), publish.clone()]);
    assert!(stranger[0].contains("unknown or revoked token") && stranger.last().unwrap() == "(closed)", "{stranger:?}");
    // Garbage after a good hello is refused and the session goes on; a path outside the
    // repository is refused.
    let alice = team.token("alice");
    let outside = Message::text("{\"type\":\"publish\",\"path\":\"../../etc/passwd\",\"base\":null,\"content\":\"x\"}");
    let answers = raw_session(team.port, vec![hello(&alice), Message::text("{not json"), Message::binary(vec![1, 2, 3]), outside]);
    assert!(answers[0].contains("\"welcome\""), "{answers:?}");
    assert!(answers.iter().any(|a| a.contains("not a levelmerge message")), "{answers:?}");
    assert!(answers.iter().any(|a| a.contains("binary frames")), "{answers:?}");
    assert!(answers.iter().any(|a| a.contains("refused") && a.contains("etc/passwd")), "{answers:?}");
    // A frame over the size limit ends that connection only.
    let huge = Message::text("x".repeat(65 << 20));
    let cut = raw_session(team.port, vec![hello(&alice), huge]);
    assert!(!cut.iter().any(|a| a.contains("\"head\"")), "{cut:?}");
    // The others are unharmed: an edit still goes through.
    team.save("alice", &with_x(LEVEL, "Lamp", 12));
    team.converge(&["alice", "bob"], &with_x(LEVEL, "Lamp", 12));
    assert!(!team.git(&["show", "HEAD:level.json"]).contains("66"), "the stranger's publish was not taken");
}

#[test]
fn the_team_s_per_property_rules_travel_through_the_hub_and_apply_there() {
    let team = Team::new(&[("alice", false), ("bob", false)]);
    let hub = team.hub("incoming-wins");
    team.save("alice", LEVEL);
    // The team's settings are synced like a level: `x` stays as shared, whatever the policy.
    let rules = "[[rule]]\nproperty = \"x\"\ntake = \"ours\"\n";
    std::fs::write(team.copy("alice").join(".levelmerge.toml"), rules).unwrap();
    let alice = team.agent_of("alice", &["level.json", ".levelmerge.toml"]);
    wait_until("the rules at the hub", || team.git(&["show", "HEAD:.levelmerge.toml"]).contains("take").then_some(()), || alice.output());
    let bob = team.agent("bob");
    team.converge(&["alice", "bob"], LEVEL);
    let bob = team.clash_on_the_crate(&alice, bob, LEVEL, &with_x(&with_x(LEVEL, "Crate", 2), "Door", 9));
    // Incoming-wins would take bob's crate; the rule keeps alice's, and bob's other edit lands.
    let expected = with_x(&with_x(LEVEL, "Crate", 1), "Door", 9);
    team.converge(&["alice", "bob"], &expected);
    bob.wait_for_line("the team's version won over your edit of level.json");
    assert!(team.git(&["show", "refs/levelmerge/kept/bob:level.json"]).contains("\"Crate\", \"x\": 2 "));
    // A broken settings file is refused like a broken level.
    std::fs::write(team.copy("alice").join(".levelmerge.toml"), "[[rule]]\nproperty = 3\n").unwrap();
    alice.wait_for_line("the hub refused .levelmerge.toml");
    assert!(team.git(&["show", "HEAD:.levelmerge.toml"]).contains("take = \"ours\""));
    drop(hub);
}
