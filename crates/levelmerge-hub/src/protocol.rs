//! The hub protocol: JSON messages over a WebSocket, one per text frame. Versioned; see
//! `docs/protocol.md`. File contents travel as text: level files are UTF-8.

use serde::{Deserialize, Serialize};

/// The protocol version this build speaks. A peer with another version is refused.
pub const VERSION: u32 = 1;

/// The largest message a hub or agent accepts (a 4 MB scene fits many times over).
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;

/// A revision of the hub's store: a git commit id.
pub type Rev = String;

/// What an agent sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// The first message: who is there, and which files they sync.
    Hello { version: u32, token: String, paths: Vec<String> },
    /// A saved edit: the file as it is now, against the revision the sender last had
    /// (`None` when it never had one).
    Publish { path: String, base: Option<Rev>, content: String },
    /// The objects this user changed in the last minute (also a heartbeat).
    Presence { editing: Vec<Editing> },
}

/// One object a user is editing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Editing {
    pub path: String,
    /// The object's hierarchy path and type, as `levelmerge diff` shows it.
    pub object: String,
}

/// What the hub sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HubMessage {
    /// The answer to `Hello`: the user's name as the hub knows it, whether they may publish,
    /// and the current head of each of their files the hub holds.
    Welcome { version: u32, user: String, read_only: bool, heads: Vec<Head> },
    /// A file's new head: sent to everyone syncing it after any accepted change, and to the
    /// sender as the answer to its `Publish`.
    Head { head: Head, author: String, own: bool },
    /// A publish that changed nothing (the file already is so).
    Unchanged { path: String, rev: Rev },
    /// A publish the hub refused; it keeps its last good version.
    Refused { path: String, reason: String },
    /// Conflicts the team policy settled against this user's edit. Their version is kept in
    /// the hub's history under `kept`.
    Overruled { path: String, conflicts: Vec<String>, kept: String },
    /// Who is editing what, for everyone.
    Presence { user: String, editing: Vec<Editing> },
    /// A protocol error; the hub closes the connection after it.
    Error { reason: String },
}

/// A file at a revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    pub path: String,
    pub rev: Rev,
    pub content: String,
}

/// A repository-relative path the hub may write: forward slashes, no `..`, no absolute path,
/// nothing inside `.git`.
pub fn check_path(path: &str) -> Result<(), String> {
    let bad = |why: &str| Err(format!("path {path:?} refused: {why}"));
    if path.is_empty() {
        return bad("empty");
    }
    if path.starts_with('/') || path.contains('\\') || path.contains(':') || path.contains('\0') {
        return bad("not a relative path with forward slashes");
    }
    for part in path.split('/') {
        match part {
            "" | "." | ".." => return bad("empty, `.` or `..` component"),
            ".git" => return bad("inside .git"),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_have_a_stable_json_form() {
        let m = ClientMessage::Publish { path: "levels/a.json".into(), base: Some("abc".into()), content: "{}".into() };
        assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"type":"publish","path":"levels/a.json","base":"abc","content":"{}"}"#);
        let back: ClientMessage = serde_json::from_str(r#"{"type":"hello","version":1,"token":"t","paths":[]}"#).unwrap();
        assert_eq!(back, ClientMessage::Hello { version: 1, token: "t".into(), paths: vec![] });
        assert!(serde_json::from_str::<ClientMessage>(r#"{"type":"format_disk"}"#).is_err());
    }

    #[test]
    fn paths_outside_the_repository_are_refused() {
        assert!(check_path("levels/castle.json").is_ok());
        for bad in ["", "/etc/passwd", "../x", "a/../../x", "a//b", ".git/config", "a/.git/hooks/x", "C:/x", "a\\b", "./a"] {
            assert!(check_path(bad).is_err(), "{bad}");
        }
    }
}
