//! A real headless browser for the tests of the HTML reports: Debian's Chromium, which
//! `.ci/run` installs. Without it the tests are skipped, except under CI.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Flags for a headless Chromium on a machine without network or display.
const FLAGS: [&str; 10] = [
    // Pages that fetch data are read once their requests and timers have run.
    "--virtual-time-budget=10000",
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
];

/// `$LEVELMERGE_CHROMIUM`, else `chromium` or `chromium-browser` on PATH; `None` after saying
/// the test is skipped (panics under CI).
pub fn require(test: &str) -> Option<Browser> {
    let configured = std::env::var_os("LEVELMERGE_CHROMIUM").map(PathBuf::from);
    let on_path = || {
        let paths = std::env::var_os("PATH")?;
        std::env::split_paths(&paths).flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n))).find(|p| p.is_file())
    };
    let found = configured.filter(|p| p.is_file()).or_else(on_path);
    if found.is_none() {
        crate::corpus::skip(test, "no Chromium (install Debian's `chromium`, or set LEVELMERGE_CHROMIUM)");
    }
    found.map(|program| Browser { program, profile: tempfile::tempdir().expect("a temporary profile directory") })
}

pub struct Browser {
    program: PathBuf,
    /// A fresh profile per browser: no state leaks between tests.
    profile: tempfile::TempDir,
}

impl Browser {
    fn run(&self, extra: &[String], url: &str) -> Vec<u8> {
        let out = Command::new(&self.program)
            .args(FLAGS)
            .arg(format!("--user-data-dir={}", self.profile.path().display()))
            .args(extra)
            .arg(url)
            .output()
            .expect("Chromium runs");
        assert!(out.status.success(), "Chromium failed: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    }

    /// The page's DOM after its scripts ran, as HTML.
    pub fn dom(&self, url: &str) -> String {
        String::from_utf8(self.run(&["--dump-dom".to_owned()], url)).expect("the DOM is UTF-8")
    }

    /// A PNG screenshot of the page's first screen.
    pub fn screenshot(&self, url: &str, png: &Path) -> Vec<u8> {
        self.run(&[format!("--screenshot={}", png.display())], url);
        std::fs::read(png).expect("Chromium wrote the screenshot")
    }
}

/// The `file://` URL of a local file.
pub fn file_url(path: &Path) -> String {
    format!("file://{}", path.canonicalize().expect("the file exists").display())
}
