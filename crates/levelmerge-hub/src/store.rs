//! Where the hub keeps the shared files: a git repository, every accepted change a commit
//! with its author. The hub's logic sees only the `Store` trait; tests use `MemoryStore`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::protocol::Rev;

pub trait Store: Send {
    /// The current revision, and `path`'s content there (None if the file is not in it).
    fn head(&self, path: &str) -> Result<Option<(Rev, Vec<u8>)>, String>;
    /// `path`'s content at `rev` (None if the revision or the file is unknown).
    fn at(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>, String>;
    /// Commits `content` as `path` on the main line, by `author`; returns the new revision.
    fn commit(&mut self, path: &str, content: &[u8], author: &str, message: &str) -> Result<Rev, String>;
    /// Keeps `content` as `path` on the side line `name` (a user's overruled edits).
    fn keep(&mut self, name: &str, path: &str, content: &[u8], author: &str, message: &str) -> Result<String, String>;
}

/// A store in memory: revisions are numbers.
#[derive(Debug, Default)]
pub struct MemoryStore {
    /// Each revision's files.
    revs: Vec<BTreeMap<String, Vec<u8>>>,
    pub kept: BTreeMap<String, Vec<(String, Vec<u8>)>>,
    pub log: Vec<(Rev, String, String)>,
}

impl Store for MemoryStore {
    fn head(&self, path: &str) -> Result<Option<(Rev, Vec<u8>)>, String> {
        let Some(files) = self.revs.last() else { return Ok(None) };
        Ok(files.get(path).map(|c| ((self.revs.len() - 1).to_string(), c.clone())))
    }
    fn at(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>, String> {
        Ok(rev.parse::<usize>().ok().and_then(|r| self.revs.get(r)).and_then(|files| files.get(path).cloned()))
    }
    fn commit(&mut self, path: &str, content: &[u8], author: &str, message: &str) -> Result<Rev, String> {
        let mut files = self.revs.last().cloned().unwrap_or_default();
        files.insert(path.to_owned(), content.to_vec());
        self.revs.push(files);
        let rev = (self.revs.len() - 1).to_string();
        self.log.push((rev.clone(), author.to_owned(), message.to_owned()));
        Ok(rev)
    }
    fn keep(&mut self, name: &str, path: &str, content: &[u8], _author: &str, _message: &str) -> Result<String, String> {
        self.kept.entry(name.to_owned()).or_default().push((path.to_owned(), content.to_vec()));
        Ok(format!("kept/{name}"))
    }
}

/// One file written by one author.
#[derive(Clone, Copy)]
struct Change<'a> {
    path: &'a str,
    content: &'a [u8],
    author: &'a str,
    message: &'a str,
}

/// A bare git repository, driven through the git command's plumbing: the main line is the
/// branch HEAD names; kept edits go to `refs/levelmerge/kept/<user>`.
#[derive(Debug)]
pub struct GitStore {
    dir: PathBuf,
}

impl GitStore {
    /// Opens the bare repository `dir`, creating it when it does not exist. A repository with
    /// a working tree is refused: the hub would move its branch under the files checked out.
    pub fn open(dir: &Path) -> Result<GitStore, String> {
        if !dir.exists() {
            let out = Command::new("git")
                .args(["init", "-q", "--bare", "-b", "main"])
                .arg(dir)
                .output()
                .map_err(|e| format!("cannot run git: {e}"))?;
            if !out.status.success() {
                return Err(format!("git init --bare {}: {}", dir.display(), String::from_utf8_lossy(&out.stderr).trim()));
            }
        }
        let worktree = || {
            format!("{} has a working tree: the hub needs a bare repository (git clone --bare {} hub.git)", dir.display(), dir.display())
        };
        if dir.join(".git").exists() {
            return Err(worktree());
        }
        let store = GitStore { dir: dir.to_path_buf() };
        let bare = store
            .git(&["rev-parse", "--is-bare-repository"], None, &[])
            .map_err(|e| format!("{}: not a git repository: {e}", dir.display()))?;
        if String::from_utf8_lossy(&bare).trim() != "true" {
            return Err(worktree());
        }
        Ok(store)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn git(&self, args: &[&str], input: Option<&[u8]>, env: &[(&str, &str)]) -> Result<Vec<u8>, String> {
        let mut command = Command::new("git");
        command.arg("--git-dir").arg(&self.dir).args(args).envs(env.iter().copied());
        command.stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() }).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().map_err(|e| format!("cannot run git: {e}"))?;
        if let Some(bytes) = input {
            use std::io::Write;
            child.stdin.take().expect("piped").write_all(bytes).map_err(|e| format!("git {args:?}: {e}"))?;
        }
        let out = child.wait_with_output().map_err(|e| format!("git {args:?}: {e}"))?;
        if !out.status.success() {
            return Err(format!("git {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()));
        }
        Ok(out.stdout)
    }

    fn text(&self, args: &[&str], input: Option<&[u8]>, env: &[(&str, &str)]) -> Result<String, String> {
        Ok(String::from_utf8_lossy(&self.git(args, input, env)?).trim().to_owned())
    }

    /// The commit a ref points at, if it exists.
    fn resolve(&self, reference: &str) -> Option<String> {
        self.text(&["rev-parse", "--verify", "--quiet", &format!("{reference}^{{commit}}")], None, &[]).ok().filter(|s| !s.is_empty())
    }

    /// Commits the change on top of `parent`, with the other files of `tree_of`, and moves
    /// `reference` from `parent` to it.
    fn commit_on(&self, reference: &str, parent: Option<&str>, tree_of: Option<&str>, change: &Change<'_>) -> Result<String, String> {
        let Change { path, content, author, message } = *change;
        let blob = self.text(&["hash-object", "-w", "--stdin"], Some(content), &[])?;
        let index = tempfile::NamedTempFile::new().map_err(|e| format!("cannot create a temporary index: {e}"))?;
        let index_path = index.path().to_str().ok_or("a temporary path that is not UTF-8")?.to_owned();
        let env = [("GIT_INDEX_FILE", index_path.as_str())];
        match tree_of {
            Some(commit) => self.git(&["read-tree", commit], None, &env)?,
            None => self.git(&["read-tree", "--empty"], None, &env)?,
        };
        self.git(&["update-index", "--add", "--cacheinfo", &format!("100644,{blob},{path}")], None, &env)?;
        let tree = self.text(&["write-tree"], None, &env)?;
        let email = format!("{author}@levelmerge-hub");
        let people = [
            ("GIT_AUTHOR_NAME", author),
            ("GIT_AUTHOR_EMAIL", email.as_str()),
            ("GIT_COMMITTER_NAME", "levelmerge hub"),
            ("GIT_COMMITTER_EMAIL", "hub@levelmerge-hub"),
        ];
        let mut args = vec!["commit-tree", tree.as_str(), "-m", message];
        if let Some(p) = parent {
            args.extend(["-p", p]);
        }
        let commit = self.text(&args, None, &people)?;
        // The old value makes the update fail rather than lose a commit made meanwhile.
        let old = parent.unwrap_or("0000000000000000000000000000000000000000");
        self.git(&["update-ref", reference, &commit, old], None, &[])?;
        Ok(commit)
    }

    fn main_ref(&self) -> Result<String, String> {
        self.text(&["symbolic-ref", "HEAD"], None, &[])
    }
}

/// One commit of a file's history.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Commit {
    pub rev: String,
    pub parent: Option<String>,
    pub author: String,
    pub date: String,
    pub message: String,
}

impl GitStore {
    /// The files of the head revision.
    pub fn files(&self) -> Result<Vec<String>, String> {
        if self.resolve("HEAD").is_none() {
            return Ok(Vec::new());
        }
        Ok(self.text(&["ls-tree", "-r", "--name-only", "HEAD"], None, &[])?.lines().map(str::to_owned).collect())
    }

    /// The newest `max` commits that changed `path`, newest first.
    pub fn history(&self, path: &str, max: usize) -> Result<Vec<Commit>, String> {
        if self.resolve("HEAD").is_none() {
            return Ok(Vec::new());
        }
        let log = self.text(&["log", &format!("-n{max}"), "--format=%H%x1f%P%x1f%an%x1f%aI%x1f%s", "HEAD", "--", path], None, &[])?;
        Ok(log
            .lines()
            .filter_map(|line| {
                let mut f = line.split('\u{1f}');
                let rev = f.next()?.to_owned();
                let parent = f.next()?.split(' ').next().filter(|p| !p.is_empty()).map(str::to_owned);
                Some(Commit {
                    rev,
                    parent,
                    author: f.next()?.to_owned(),
                    date: f.next()?.to_owned(),
                    message: f.next().unwrap_or("").to_owned(),
                })
            })
            .collect())
    }
}

impl Store for GitStore {
    fn head(&self, path: &str) -> Result<Option<(Rev, Vec<u8>)>, String> {
        let Some(head) = self.resolve("HEAD") else { return Ok(None) };
        Ok(self.at(&head, path)?.map(|c| (head, c)))
    }

    fn at(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>, String> {
        if !rev.bytes().all(|b| b.is_ascii_hexdigit()) || rev.len() < 4 {
            return Ok(None);
        }
        // `cat-file -e` first: a missing file is an answer, not an error.
        if self.git(&["cat-file", "-e", &format!("{rev}:{path}")], None, &[]).is_err() {
            return Ok(None);
        }
        self.git(&["cat-file", "blob", &format!("{rev}:{path}")], None, &[]).map(Some)
    }

    fn commit(&mut self, path: &str, content: &[u8], author: &str, message: &str) -> Result<Rev, String> {
        let head = self.resolve("HEAD");
        let reference = self.main_ref()?;
        self.commit_on(&reference, head.as_deref(), head.as_deref(), &Change { path, content, author, message })
    }

    fn keep(&mut self, name: &str, path: &str, content: &[u8], author: &str, message: &str) -> Result<String, String> {
        let reference = format!("refs/levelmerge/kept/{name}");
        let parent = self.resolve(&reference);
        let head = self.resolve("HEAD");
        self.commit_on(&reference, parent.as_deref(), head.as_deref(), &Change { path, content, author, message })?;
        Ok(reference)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_git_store_commits_each_change_with_its_author_and_reads_any_revision() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("hub.git");
        let mut store = GitStore::open(&repo).unwrap();
        assert_eq!(store.head("levels/a.json").unwrap(), None);
        let first = store.commit("levels/a.json", b"{\"v\": 1}\n", "alice", "first").unwrap();
        let second = store.commit("levels/a.json", b"{\"v\": 2}\n", "bob", "second").unwrap();
        assert_eq!(store.head("levels/a.json").unwrap(), Some((second.clone(), b"{\"v\": 2}\n".to_vec())));
        assert_eq!(store.at(&first, "levels/a.json").unwrap(), Some(b"{\"v\": 1}\n".to_vec()));
        assert_eq!(store.at(&first, "levels/b.json").unwrap(), None);
        assert_eq!(store.at("not-a-rev", "levels/a.json").unwrap(), None);
        let kept = store.keep("alice", "levels/a.json", b"{\"v\": 9}\n", "alice", "overruled").unwrap();
        assert_eq!(kept, "refs/levelmerge/kept/alice");
        let authors = store.text(&["log", "--format=%an %s", "HEAD"], None, &[]).unwrap();
        assert_eq!(authors, "bob second\nalice first");
        assert_eq!(store.text(&["show", &format!("{kept}:levels/a.json")], None, &[]).unwrap(), "{\"v\": 9}");
        assert_eq!(store.files().unwrap(), ["levels/a.json"]);
        let history = store.history("levels/a.json", 10).unwrap();
        assert_eq!(history.iter().map(|c| c.author.as_str()).collect::<Vec<_>>(), ["bob", "alice"]);
        assert_eq!((history[0].parent.as_deref(), history[1].parent.as_deref()), (Some(first.as_str()), None));
        // A clone with a working tree is refused.
        let clone = dir.path().join("clone");
        assert!(Command::new("git").args(["clone", "-q"]).arg(&repo).arg(&clone).status().unwrap().success());
        assert!(GitStore::open(&clone).unwrap_err().contains("bare repository"));
    }
}
