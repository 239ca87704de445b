//! The hub protocol: JSON messages over a WebSocket, one per text frame. Versioned; see
//! `docs/protocol.md`. File contents travel as text: level files are UTF-8.

use serde::{Deserialize, Serialize};

/// The protocol version this build speaks. A peer with another version is refused.
pub const VERSION: u32 = 2;

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
    /// A saved edit told as a change of the revision `base` (which the sender has): the bytes
    /// `at..at + remove` of that revision's content replaced by `insert`. The hub treats it as
    /// the `Publish` of the whole file.
    Edit { path: String, base: Rev, at: usize, remove: usize, insert: String },
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
    /// A new head told as a change of the previous one this peer was sent (`from`): the bytes
    /// `at..at + remove` of that content replaced by `insert`. A level of megabytes changes
    /// by a few lines per edit; sending it whole to everyone is what would not scale.
    Patch { path: String, rev: Rev, from: Rev, at: usize, remove: usize, insert: String, author: String, own: bool },
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

/// The change from `old` to `new` as one splice: where it starts, how many bytes of `old` it
/// removes, and the text it inserts (common start and end trimmed, on character boundaries).
pub fn splice_between<'a>(old: &str, new: &'a str) -> (usize, usize, &'a str) {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(start) {
        start -= 1;
    }
    let most = a.len().min(b.len()) - start;
    let mut end = a.iter().rev().zip(b.iter().rev()).take(most).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(a.len() - end) || !new.is_char_boundary(b.len() - end) {
        end -= 1;
    }
    (start, a.len() - end - start, &new[start..b.len() - end])
}

/// `old` with the splice applied; None when it does not fit (the peer is out of step).
pub fn apply_splice(old: &str, at: usize, remove: usize, insert: &str) -> Option<String> {
    let end = at.checked_add(remove)?;
    if end > old.len() || !old.is_char_boundary(at) || !old.is_char_boundary(end) {
        return None;
    }
    let mut out = String::with_capacity(old.len() - remove + insert.len());
    out.push_str(&old[..at]);
    out.push_str(insert);
    out.push_str(&old[end..]);
    Some(out)
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
    fn a_splice_turns_the_old_text_into_the_new_one() {
        let cases = [
            ("", ""),
            ("abc", "abc"),
            ("abc", ""),
            ("", "xyz"),
            ("{ \"x\": 1 }", "{ \"x\": 10 }"),
            ("aaaa", "aa"),
            ("aa", "aaaa"),
            ("héllo wörld", "hèllo wörld"),
            ("😀😀", "😀😁"),
            ("x😀", "x😁y"),
        ];
        for (old, new) in cases {
            let (at, remove, insert) = splice_between(old, new);
            assert_eq!(apply_splice(old, at, remove, insert).as_deref(), Some(new), "{old:?} → {new:?}");
            assert!(insert.len() <= new.len());
        }
        let (at, remove, insert) = splice_between("0123456789", "0123X56789");
        assert_eq!((at, remove, insert), (4, 1, "X"), "only the changed part travels");
        assert_eq!(apply_splice("abc", 2, 5, ""), None, "past the end");
        assert_eq!(apply_splice("é", 1, 0, "x"), None, "inside a character");
        assert_eq!(apply_splice("abc", usize::MAX, 2, ""), None);
    }

    #[test]
    fn paths_outside_the_repository_are_refused() {
        assert!(check_path("levels/castle.json").is_ok());
        for bad in ["", "/etc/passwd", "../x", "a/../../x", "a//b", ".git/config", "a/.git/hooks/x", "C:/x", "a\\b", "./a"] {
            assert!(check_path(bad).is_err(), "{bad}");
        }
    }
}
