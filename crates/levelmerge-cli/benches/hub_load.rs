//! Load on the live collaboration hub: simulated users, each in their own working copy with a
//! real `levelmerge sync` agent, save edits of their own objects at a steady pace into one
//! shared level; a real `levelmerge hub` merges and commits them.
//!
//! Reports edits per second, the latency from a save to the change on every other copy (p50,
//! p95; read after the run from the agents' output and the hub's git history), the hub's CPU
//! time and peak memory, and whether any edit was lost.
//!
//! Run: `cargo bench -p levelmerge-cli --bench hub_load` (optional arguments: users, edits per
//! user, interval in ms, objects in the level; default 20 200 1000 10000).

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const LEVELMERGE: &str = env!("CARGO_BIN_EXE_levelmerge");

/// A process whose output lines are kept with the moment they were read.
struct Running {
    child: Child,
    lines: Arc<Mutex<Vec<(Instant, String)>>>,
}

impl Running {
    fn spawn(mut command: Command) -> Running {
        let mut child = command.stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("levelmerge starts");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let out = child.stdout.take().unwrap();
        let keep = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                keep.lock().unwrap().push((Instant::now(), line));
            }
        });
        Running { child, lines }
    }

    fn has(&self, text: &str) -> bool {
        self.lines.lock().unwrap().iter().any(|(_, l)| l.contains(text))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One object per line, so that a user's edit is one line of the file.
fn level(objects: usize) -> String {
    let rows: Vec<String> = (0..objects).map(|i| format!("    {{ \"id\": {i}, \"name\": \"Obj_{i}\", \"x\": 0 }}")).collect();
    format!("{{\n  \"entities\": [\n{}\n  ]\n}}\n", rows.join(",\n"))
}

/// The object user `u` edits: spread over the level.
fn object_of(u: usize, users: usize, objects: usize) -> usize {
    (u * objects / users + 7).min(objects - 1)
}

fn x_of(text: &str, object: usize) -> Option<u64> {
    let key = format!("\"id\": {object}, \"name\": \"Obj_{object}\", \"x\": ");
    let at = text.find(&key)? + key.len();
    text[at..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

fn set_x(text: &str, object: usize, x: u64) -> String {
    let key = format!("\"id\": {object}, \"name\": \"Obj_{object}\", \"x\": ");
    let at = text.find(&key).expect("the object is there") + key.len();
    let end = at + text[at..].find(' ').unwrap();
    format!("{}{x}{}", &text[..at], &text[end..])
}

fn cpu_and_peak_memory(pid: u32) -> (f64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks: f64 = fields.get(11).and_then(|u| u.parse::<f64>().ok()).unwrap_or(0.0)
        + fields.get(12).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let peak_kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap_or(0);
    (ticks / 100.0, peak_kb)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let users = args.first().copied().unwrap_or(20);
    let edits = args.get(1).copied().unwrap_or(200);
    let interval = Duration::from_millis(args.get(2).copied().unwrap_or(1000) as u64);
    let objects = args.get(3).copied().unwrap_or(10_000);
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("hub.git");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let names: Vec<String> = (0..users).map(|u| format!("user{u:02}")).collect();
    let mut tokens = HashMap::new();
    for name in &names {
        let out = Command::new(LEVELMERGE).args(["hub", "token", "add", name, "--repo"]).arg(&repo).output().unwrap();
        tokens.insert(name.clone(), String::from_utf8(out.stdout).unwrap().trim().to_owned());
    }
    let mut hub_command = Command::new(LEVELMERGE);
    hub_command.args(["hub", "--max-rate", "1000", "--listen", &format!("127.0.0.1:{port}"), "--repo"]).arg(&repo);
    let hub = Running::spawn(hub_command);
    wait("the hub", Duration::from_secs(10), || hub.has("serving"));

    let copies: Vec<PathBuf> = names.iter().map(|n| dir.path().join(n)).collect();
    let text = level(objects);
    std::fs::create_dir_all(&copies[0]).unwrap();
    std::fs::write(copies[0].join("level.json"), &text).unwrap();
    let ms = interval.as_millis().to_string();
    let agents: Vec<Running> = names
        .iter()
        .zip(&copies)
        .map(|(name, copy)| {
            std::fs::create_dir_all(copy).unwrap();
            let mut c = Command::new(LEVELMERGE);
            c.args(["sync", "--hub", &format!("127.0.0.1:{port}"), "--interval", &format!("{ms}ms"), "--root"]).arg(copy).arg("level.json");
            c.env("LEVELMERGE_TOKEN", &tokens[name]);
            Running::spawn(c)
        })
        .collect();
    let read = |copy: &Path| std::fs::read_to_string(copy.join("level.json")).unwrap_or_default();
    wait("every copy to hold the level", Duration::from_secs(60), || copies.iter().all(|c| read(c) == text));
    eprintln!("hub_load: {users} users, {edits} edits each, {ms} ms interval, {objects} objects ({} KB)", text.len() / 1000);

    // Each user saves an edit of their own object once per interval, the users spread over it.
    let mut saves: Vec<(usize, u64, Instant)> = Vec::new();
    let started = Instant::now();
    for round in 1..=edits as u64 {
        for (u, copy) in copies.iter().enumerate() {
            let due = started + interval * (round as u32 - 1) + interval * u as u32 / users as u32;
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            // An editor that saves what is on disk, never a stale copy: it holds the agent's
            // lock while it reads and rewrites the file.
            let lock = levelmerge_hub::agent::lock_working_copy(copy).expect("the working copy's lock");
            let now = read(copy);
            std::fs::write(copy.join("level.json"), set_x(&now, object_of(u, users, objects), round)).unwrap();
            drop(lock);
            saves.push((u, round, Instant::now()));
        }
    }
    let saving = started.elapsed();
    let expected: Vec<u64> = vec![edits as u64; users];
    let settled = Instant::now();
    let final_ok = |t: &str| (0..users).all(|u| x_of(t, object_of(u, users, objects)) == Some(expected[u]));
    let converged = {
        let limit = Instant::now() + Duration::from_secs(120);
        loop {
            let texts: Vec<String> = copies.iter().map(|c| read(c)).collect();
            if texts.iter().all(|t| t == &texts[0] && final_ok(t)) {
                break true;
            }
            if Instant::now() > limit {
                break false;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let settle = settled.elapsed();
    let (cpu, peak_kb) = cpu_and_peak_memory(hub.child.id());
    let agents_cpu: f64 = agents.iter().map(|a| cpu_and_peak_memory(a.child.id()).0).sum();
    let total = started.elapsed();

    // Which revision first held each edit, from the hub's history.
    let hub_lines = hub.lines.lock().unwrap().clone();
    let mut first_with: HashMap<(usize, u64), String> = HashMap::new();
    for (_, line) in &hub_lines {
        let Some(rev) = line.split("→ ").nth(1).map(|r| r.split_whitespace().next().unwrap_or("").to_owned()) else { continue };
        let out = Command::new("git").arg("--git-dir").arg(&repo).args(["show", &format!("{rev}:level.json")]).output().unwrap();
        let content = String::from_utf8_lossy(&out.stdout);
        for u in 0..users {
            if let Some(x) = x_of(&content, object_of(u, users, objects)) {
                for r in 1..=x {
                    first_with.entry((u, r)).or_insert_with(|| rev.clone());
                }
            }
        }
    }
    // When each agent wrote each revision (the line comes just before the write).
    let mut seen: Vec<HashMap<String, Instant>> = Vec::new();
    for a in &agents {
        let mut at = HashMap::new();
        for (when, line) in a.lines.lock().unwrap().iter() {
            if let Some(rev) = line.rsplit(" at ").next().filter(|_| line.starts_with("sync: ")) {
                at.entry(rev.to_owned()).or_insert(*when);
            }
        }
        seen.push(at);
    }
    let order: HashMap<&str, usize> = hub_lines
        .iter()
        .filter_map(|(_, l)| l.split("→ ").nth(1))
        .filter_map(|r| r.split_whitespace().next())
        .enumerate()
        .map(|(i, r)| (r, i))
        .collect();
    let mut latencies = Vec::new();
    let mut unseen = 0;
    for &(u, round, saved) in &saves {
        let Some(rev) = first_with.get(&(u, round)) else {
            continue; // overwritten by the same user's next save before it was published
        };
        // The first revision at or after the one that held the edit that each other agent wrote.
        let mut worst = Duration::ZERO;
        for (v, at) in seen.iter().enumerate() {
            if v == u {
                continue;
            }
            let first = at.iter().filter(|(r, _)| order.get(r.as_str()) >= order.get(rev.as_str())).map(|(_, t)| *t).min();
            match first {
                Some(t) => worst = worst.max(t.saturating_duration_since(saved)),
                None => unseen += 1,
            }
        }
        latencies.push(worst);
    }
    latencies.sort();
    let commits = hub_lines.iter().filter(|(_, l)| l.contains("→ ")).count();
    println!(
        "hub_load: {} saves in {:.1} s ({:.1} saves/s), {commits} commits; settled {:.1} s after the last save",
        saves.len(),
        saving.as_secs_f64(),
        saves.len() as f64 / saving.as_secs_f64(),
        settle.as_secs_f64()
    );
    if !latencies.is_empty() {
        println!(
            "hub_load: save → every other copy: p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms ({} edits measured, {} (edit, copy) pairs never seen)",
            percentile(&latencies, 0.5).as_secs_f64() * 1e3,
            percentile(&latencies, 0.95).as_secs_f64() * 1e3,
            latencies.last().unwrap().as_secs_f64() * 1e3,
            latencies.len(),
            unseen
        );
    }
    println!(
        "hub_load: hub CPU {cpu:.1} s over {:.1} s ({:.0}% of one core), peak memory {:.1} MB",
        total.as_secs_f64(),
        cpu / total.as_secs_f64() * 100.0,
        peak_kb as f64 / 1024.0
    );
    println!("hub_load: the {users} agents' CPU {agents_cpu:.1} s ({:.0}% of one core)", agents_cpu / total.as_secs_f64() * 100.0);
    println!(
        "hub_load: {}",
        if converged {
            "nothing lost: every copy and the hub hold every user's last edit"
        } else {
            "LOST: the copies did not converge on every last edit"
        }
    );
    if !converged {
        // What went wrong, for whoever reads the run: which copies miss whose last edit, and
        // what those agents said last.
        for (v, copy) in copies.iter().enumerate() {
            let text = read(copy);
            let missing: Vec<String> = (0..users)
                .filter(|&u| x_of(&text, object_of(u, users, objects)) != Some(expected[u]))
                .map(|u| format!("{} has {:?}", names[u], x_of(&text, object_of(u, users, objects))))
                .collect();
            if !missing.is_empty() {
                println!("hub_load: {}'s copy: {}", names[v], missing.join(", "));
            }
        }
        for (u, agent) in agents.iter().enumerate() {
            if x_of(&read(&copies[u]), object_of(u, users, objects)) != Some(expected[u]) {
                let lines = agent.lines.lock().unwrap();
                let said: Vec<&String> =
                    lines.iter().map(|(_, l)| l).filter(|l| l.starts_with("sync: ") && !l.contains(" changed ")).collect();
                println!(
                    "hub_load: {}'s agent said {} thing(s), the last: {:?}",
                    names[u],
                    said.len(),
                    said.iter().rev().take(6).collect::<Vec<_>>()
                );
                let hub_said: Vec<&String> = hub_lines.iter().map(|(_, l)| l).filter(|l| l.contains(&names[u])).collect();
                println!(
                    "hub_load: the hub on {}: {} line(s), the last: {:?}",
                    names[u],
                    hub_said.len(),
                    hub_said.iter().rev().take(4).collect::<Vec<_>>()
                );
            }
        }
    }
    // The processes are stopped before the exit code says how it went.
    drop(agents);
    drop(hub);
    if !converged {
        std::process::exit(1);
    }
}
