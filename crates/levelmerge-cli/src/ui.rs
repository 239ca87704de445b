//! Messages to the user on stderr: colour only on a terminal (never when git runs the driver).

use std::io::{IsTerminal, Write};

use owo_colors::OwoColorize;

pub struct Ui {
    pub color: bool,
    pub quiet: bool,
}

impl Ui {
    pub fn new(quiet: bool) -> Self {
        let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        Ui { color, quiet }
    }

    fn line(&self, tag: &str, paint: fn(&str) -> String, msg: &str) {
        let mut err = std::io::stderr().lock();
        let tag = if self.color { paint(tag) } else { tag.to_owned() };
        let _ = writeln!(err, "levelmerge: {tag}{msg}");
    }

    pub fn error(&self, msg: &str) {
        self.line("error: ", |s| s.red().bold().to_string(), msg);
    }

    pub fn warn(&self, msg: &str) {
        if !self.quiet {
            self.line("", |s| s.yellow().to_string(), msg);
        }
    }

    pub fn conflict(&self, msg: &str) {
        if !self.quiet {
            self.line("conflict: ", |s| s.red().to_string(), msg);
        }
    }

    pub fn info(&self, msg: &str) {
        if !self.quiet {
            self.line("", |s| s.to_string(), msg);
        }
    }

    /// A value shortened to one line for messages.
    pub fn short(&self, text: &str) -> String {
        shorten(text, 60)
    }
}

/// One line of at most `max` characters.
pub fn shorten(text: &str, max: usize) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        let cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}
