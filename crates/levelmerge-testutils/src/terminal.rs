//! A real terminal for the interactive tests: a tmux server of the test's own, a program run in
//! it, keys sent to it and its screen read back. Without tmux the tests are skipped, except
//! under CI.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long a screen or an exit is waited for before the test fails.
const PATIENCE: Duration = Duration::from_secs(20);

pub struct Tmux {
    socket: String,
    dir: tempfile::TempDir,
}

impl Tmux {
    /// `None` after saying the test is skipped (panics under CI) when tmux is missing.
    pub fn start(test: &str) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            crate::corpus::skip(test, "no tmux (install Debian's `tmux`)");
            return None;
        }
        let socket = format!("levelmerge-{test}-{}", std::process::id());
        Some(Tmux { socket, dir: tempfile::tempdir().expect("a temporary directory") })
    }

    fn tmux(&self, args: &[&str]) -> Output {
        let out = Command::new("tmux").args(["-L", &self.socket, "-f", "/dev/null"]).args(args).output().expect("tmux runs");
        assert!(out.status.success(), "tmux {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out
    }

    /// Runs `program args…` in `dir`, in a 120x32 terminal, with `env` set.
    pub fn run(&self, dir: &Path, env: &[(&str, &str)], program: &str, args: &[&str]) {
        let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
        let line: Vec<String> = std::iter::once(program).chain(args.iter().copied()).map(quote).collect();
        let script = format!("{}; echo $? > {}", line.join(" "), quote(&self.exit_file()));
        let mut command = vec!["new-session", "-d", "-x", "120", "-y", "32", "-c"];
        let dir = dir.to_str().expect("a UTF-8 path");
        command.push(dir);
        let settings: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        for s in &settings {
            command.extend(["-e", s.as_str()]);
        }
        command.extend(["sh", "-c", &script]);
        self.tmux(&command);
    }

    fn exit_file(&self) -> String {
        self.dir.path().join("exit-code").to_str().expect("a UTF-8 path").to_owned()
    }

    /// Sends keys one by one (tmux key names: `Up`, `Enter`, or characters).
    pub fn keys(&self, keys: &[&str]) {
        for key in keys {
            self.tmux(&["send-keys", key]);
        }
    }

    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p"]).stdout).into_owned()
    }

    /// Waits until the screen shows `text`, and returns the screen; panics with it after a while.
    pub fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(start.elapsed() < PATIENCE, "waited for {text:?}; the screen shows:\n{screen}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for the program to exit, and returns its exit code.
    pub fn exit_code(&self) -> i32 {
        let start = Instant::now();
        loop {
            if let Some(code) = std::fs::read_to_string(self.exit_file()).ok().and_then(|c| c.trim().parse().ok()) {
                return code;
            }
            assert!(start.elapsed() < PATIENCE, "the program did not exit; the screen shows:\n{}", self.screen());
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["-L", &self.socket, "kill-server"]).output();
    }
}
