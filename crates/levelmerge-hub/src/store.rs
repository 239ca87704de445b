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

/// A bare git repository: the main line is the branch HEAD names; kept edits go to
/// `refs/levelmerge/kept/<user>`. Revisions are read and committed in process (a publish
/// must not wait for a dozen git processes); the git command creates the repository and
/// reads the history the dashboard shows.
pub struct GitStore {
    dir: PathBuf,
    repo: gix::ThreadSafeRepository,
}

impl std::fmt::Debug for GitStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitStore").field("dir", &self.dir).finish_non_exhaustive()
    }
}

fn failed(what: &str) -> impl Fn(gix::Error) -> String + '_ {
    move |e| format!("{what}: {e}")
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
        let repo = gix::open(dir).map_err(|e| format!("{}: not a git repository: {e}", dir.display()))?.into_sync();
        if !repo.to_thread_local().is_bare() {
            return Err(worktree());
        }
        Ok(GitStore { dir: dir.to_path_buf(), repo })
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
    fn resolve(&self, reference: &str) -> Option<gix::ObjectId> {
        let repo = self.repo.to_thread_local();
        let mut found = repo.try_find_reference(reference).ok()??;
        found.peel_to_id().ok().map(|id| id.detach())
    }

    /// The main line's commit, if it has one.
    fn head_commit(&self) -> Option<gix::ObjectId> {
        self.repo.to_thread_local().head_id().ok().map(|id| id.detach())
    }

    /// Commits the change on top of `parent`, with the other files of `tree_of`, and moves
    /// `reference` from `parent` to it (failing rather than losing a commit made meanwhile).
    fn commit_on(
        &self,
        reference: &str,
        parent: Option<gix::ObjectId>,
        tree_of: Option<gix::ObjectId>,
        change: &Change<'_>,
    ) -> Result<String, String> {
        let Change { path, content, author, message } = *change;
        let repo = self.repo.to_thread_local();
        let blob = repo.write_blob(content).map_err(failed("cannot write the file to git"))?.detach();
        let tree = match tree_of {
            Some(commit) => repo.find_commit(commit).and_then(|c| c.tree_id()).map_err(failed("cannot read the head revision"))?.detach(),
            None => gix::ObjectId::empty_tree(repo.object_hash()),
        };
        let mut editor = repo.edit_tree(tree).map_err(failed("cannot read the head tree"))?;
        editor.upsert(path, gix::object::tree::EntryKind::Blob, blob).map_err(failed("cannot place the file"))?;
        let tree = editor.write().map_err(failed("cannot write the tree"))?.detach();
        let seconds = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let time = format!("{seconds} +0000");
        let email = format!("{author}@levelmerge-hub");
        let author = gix::actor::SignatureRef { name: author.into(), email: email.as_str().into(), time: &time };
        let committer = gix::actor::SignatureRef { name: "levelmerge hub".into(), email: "hub@levelmerge-hub".into(), time: &time };
        let commit = repo
            .commit_as(committer, author, reference, message, tree, parent)
            .map_err(failed(&format!("cannot commit to {reference}")))?;
        Ok(commit.to_string())
    }

    fn main_ref(&self) -> Result<String, String> {
        let repo = self.repo.to_thread_local();
        let head = repo.head_name().map_err(failed("cannot read HEAD"))?;
        head.map(|name| name.as_bstr().to_string()).ok_or_else(|| "HEAD is detached: the hub needs it on a branch".to_owned())
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
        if self.head_commit().is_none() {
            return Ok(Vec::new());
        }
        Ok(self.text(&["ls-tree", "-r", "--name-only", "HEAD"], None, &[])?.lines().map(str::to_owned).collect())
    }

    /// The newest `max` commits that changed `path`, newest first.
    pub fn history(&self, path: &str, max: usize) -> Result<Vec<Commit>, String> {
        if self.head_commit().is_none() {
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
        let Some(head) = self.head_commit() else { return Ok(None) };
        let head = head.to_string();
        Ok(self.at(&head, path)?.map(|c| (head, c)))
    }

    fn at(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>, String> {
        // Only full commit ids: revisions are what this hub handed out.
        let Ok(id) = gix::ObjectId::from_hex(rev.as_bytes()) else { return Ok(None) };
        let repo = self.repo.to_thread_local();
        let Ok(commit) = repo.find_commit(id) else { return Ok(None) };
        let tree = commit.tree().map_err(failed(&format!("cannot read revision {rev}")))?;
        let entry = tree.lookup_entry(path.split('/')).map_err(failed(&format!("cannot read {path} at {rev}")))?;
        match entry {
            Some(e) if e.mode().is_blob() => {
                Ok(Some(repo.find_object(e.object_id()).map_err(failed(&format!("cannot read {path} at {rev}")))?.detach().data))
            }
            _ => Ok(None),
        }
    }

    fn commit(&mut self, path: &str, content: &[u8], author: &str, message: &str) -> Result<Rev, String> {
        let head = self.head_commit();
        let reference = self.main_ref()?;
        self.commit_on(&reference, head, head, &Change { path, content, author, message })
    }

    fn keep(&mut self, name: &str, path: &str, content: &[u8], author: &str, message: &str) -> Result<String, String> {
        let reference = format!("refs/levelmerge/kept/{name}");
        let parent = self.resolve(&reference);
        let head = self.head_commit();
        self.commit_on(&reference, parent, head, &Change { path, content, author, message })?;
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
        // Written in process, read by git: the objects are sound.
        store.git(&["fsck", "--strict", "--no-dangling"], None, &[]).unwrap();
        let history = store.history("levels/a.json", 10).unwrap();
        assert_eq!(history.iter().map(|c| c.author.as_str()).collect::<Vec<_>>(), ["bob", "alice"]);
        assert_eq!((history[0].parent.as_deref(), history[1].parent.as_deref()), (Some(first.as_str()), None));
        // A clone with a working tree is refused.
        let clone = dir.path().join("clone");
        assert!(Command::new("git").args(["clone", "-q"]).arg(&repo).arg(&clone).status().unwrap().success());
        assert!(GitStore::open(&clone).unwrap_err().contains("bare repository"));
    }
}
