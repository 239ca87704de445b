//! Access tokens: random, shown once, stored only as their BLAKE3 hash (whose comparison is
//! constant-time), revocable, optionally read-only.

use std::path::{Path, PathBuf};

use rand::RngCore;
use serde::{Deserialize, Serialize};

/// Who a token belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub user: String,
    pub read_only: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    user: String,
    /// Hex BLAKE3 hash of the token.
    hash: String,
    read_only: bool,
}

/// The tokens of a hub, kept in `<repo>/levelmerge-hub/tokens.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Tokens {
    entries: Vec<Entry>,
}

impl Tokens {
    pub fn file(repo: &Path) -> PathBuf {
        repo.join("levelmerge-hub").join("tokens.json")
    }

    /// The tokens stored for `repo` (none when the file does not exist yet).
    pub fn load(repo: &Path) -> Result<Tokens, String> {
        let file = Tokens::file(repo);
        match std::fs::read(&file) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| format!("{}: not a token file: {e}", file.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Tokens::default()),
            Err(e) => Err(format!("cannot read {}: {e}", file.display())),
        }
    }

    /// Writes the tokens atomically, readable by their owner only.
    pub fn save(&self, repo: &Path) -> Result<(), String> {
        let file = Tokens::file(repo);
        let dir = file.parent().expect("the token file is in a folder");
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
        let bytes = serde_json::to_vec_pretty(self).expect("tokens serialize");
        std::io::Write::write_all(&mut tmp, &bytes).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o600));
        }
        tmp.persist(&file).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        Ok(())
    }

    /// Adds a token for `user` (replacing any they had) and returns it: it is never stored.
    pub fn add(&mut self, user: &str, read_only: bool) -> Result<String, String> {
        if user.is_empty() || user.chars().any(|c| c.is_control() || c == '/') {
            return Err(format!("{user:?} is not a user name (no slashes or control characters)"));
        }
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        self.entries.retain(|e| e.user != user);
        self.entries.push(Entry { user: user.to_owned(), hash: blake3::hash(token.as_bytes()).to_hex().to_string(), read_only });
        Ok(token)
    }

    /// Removes `user`'s token; false when they had none.
    pub fn revoke(&mut self, user: &str) -> bool {
        let before = self.entries.len();
        self.entries.retain(|e| e.user != user);
        self.entries.len() != before
    }

    /// Who holds `token`, if anyone.
    pub fn identify(&self, token: &str) -> Option<Identity> {
        let presented = blake3::hash(token.as_bytes());
        self.entries
            .iter()
            .find(|e| blake3::Hash::from_hex(&e.hash).is_ok_and(|stored| stored == presented))
            .map(|e| Identity { user: e.user.clone(), read_only: e.read_only })
    }

    /// Users and whether they are read-only.
    pub fn users(&self) -> Vec<(String, bool)> {
        self.entries.iter().map(|e| (e.user.clone(), e.read_only)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_identify_their_user_until_revoked_and_are_stored_hashed() {
        let repo = tempfile::tempdir().unwrap();
        let mut tokens = Tokens::load(repo.path()).unwrap();
        let alice = tokens.add("alice", false).unwrap();
        let viewer = tokens.add("viewer", true).unwrap();
        assert_ne!(alice, viewer);
        tokens.save(repo.path()).unwrap();
        let stored = std::fs::read_to_string(Tokens::file(repo.path())).unwrap();
        assert!(!stored.contains(&alice), "only the hash is stored");
        let loaded = Tokens::load(repo.path()).unwrap();
        assert_eq!(loaded.identify(&alice), Some(Identity { user: "alice".into(), read_only: false }));
        assert_eq!(loaded.identify(&viewer).map(|i| i.read_only), Some(true));
        assert_eq!(loaded.identify("guess"), None);
        let mut loaded = loaded;
        assert!(loaded.revoke("alice"));
        assert!(!loaded.revoke("alice"));
        assert_eq!(loaded.identify(&alice), None);
        assert!(loaded.add("a/b", false).is_err());
    }
}
