//! The sync agent in a user's working copy: publishes each saved edit against its shadow (the
//! last version it had from the hub) and writes back merged heads without ever losing an edit.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

use crate::core::Merger;
use crate::protocol::{ClientMessage, Editing, Head, HubMessage, Rev, MAX_MESSAGE_BYTES, VERSION};

pub struct AgentOptions {
    /// `ws://host:port/ws`.
    pub hub: String,
    pub token: String,
    /// The working copy's root: paths are relative to it.
    pub root: PathBuf,
    pub paths: Vec<String>,
    pub interval: Duration,
    /// Receive, but publish nothing (a private draft).
    pub paused: bool,
}

/// How long an edited object counts as being edited.
const PRESENCE_FOR: Duration = Duration::from_secs(60);

/// How often the files are looked at for saves (at most the interval).
const POLL: Duration = Duration::from_millis(50);

/// Presence is sent every interval, and at least this often: it is the hub's heartbeat.
const HEARTBEAT: Duration = Duration::from_secs(10);

/// The last version of a file the agent had from the hub, kept on disk so that an agent
/// restarted offline still knows what its user changed.
#[derive(Debug, Clone)]
struct Shadow {
    rev: Rev,
    content: String,
}

/// What a file's metadata says of its content: a save changes it.
type Stamp = Option<(u64, std::time::SystemTime, u64)>;

impl FileState {
    /// Writes the file's revision record ([`write_rev_record`]). Only revisions go to disk (the
    /// hub keeps their content): small writes per head, in place through a handle kept open
    /// (a new file per head costs the file system more).
    fn record(&mut self, root: &Path, path: &str, derives_from: Option<&str>, next: Option<(&str, &[u8])>) {
        if self.rev_file.is_none() {
            self.rev_file = open_rev_file(&shadow_file(root, path));
        }
        if let Some(f) = &self.rev_file {
            let _ = write_rev_record(f, derives_from, next);
        }
    }

    /// Whether a file with this stamp holds the shadow.
    fn holds_shadow(&self, stamp: &Stamp) -> bool {
        stamp.is_some() && *stamp == self.written && self.shadow.is_some()
    }
}

#[derive(Default)]
struct FileState {
    shadow: Option<Shadow>,
    /// Published and not yet answered.
    pending: Option<Vec<u8>>,
    /// A head held back while the user's own edit is on its way: the hub's answer to that
    /// publish includes it, so writing it now would only cost a merge. Since when.
    deferred: Option<(Head, Instant)>,
    /// The newest head the hub sent (patches apply to it).
    known: Option<Head>,
    /// Refused by the hub: not sent again until it changes.
    refused: Option<Vec<u8>>,
    /// Objects edited, with when.
    recent: Vec<(Instant, String)>,
    /// The file's stamp at the last poll: a save is published once its stamp holds still.
    stamp: Stamp,
    /// The stamp when the file was last read with nothing left to publish.
    read_stamp: Stamp,
    /// The stamp of the file when it last held the shadow (as the agent wrote or found it):
    /// while it stays so, the file need not be read to know it is unchanged.
    written: Stamp,
    /// When the file was last read in full (a stamp can miss a quick second save).
    read_at: Option<Instant>,
    /// Where the shadow's revision is kept, open.
    rev_file: Option<std::fs::File>,
    /// The revision a restarted agent found on disk: the file derives from it, and the hub
    /// (which keeps every revision) merges the first publish against it.
    restored: Option<Rev>,
    last_publish: Option<Instant>,
}

pub struct Agent<L> {
    options: AgentOptions,
    local: L,
    files: HashMap<String, FileState>,
    /// Who is editing what, as last printed.
    others: HashMap<String, Vec<Editing>>,
    say: Box<dyn Fn(String) + Send>,
    /// When presence was last sent (it is also the heartbeat).
    presence_at: Option<Instant>,
}

impl<L: Merger> Agent<L> {
    pub fn new(options: AgentOptions, local: L, say: Box<dyn Fn(String) + Send>) -> Self {
        let mut files = HashMap::new();
        for path in &options.paths {
            let restored = std::fs::read_to_string(shadow_file(&options.root, path))
                .ok()
                .and_then(|record| restored_revision(&record, || std::fs::read(options.root.join(path)).ok()));
            files.insert(path.clone(), FileState { restored, ..FileState::default() });
        }
        Agent { options, local, files, others: HashMap::new(), say, presence_at: None }
    }

    /// Runs until the process ends, reconnecting after any loss of the hub.
    pub async fn run(mut self) -> Result<(), String> {
        let mut wait = Duration::from_millis(200);
        loop {
            match self.session().await {
                Ok(()) => {}
                Err(Fatal(e)) => return Err(e),
            }
            for state in self.files.values_mut() {
                // The welcome of the next session brings the newest heads.
                state.pending = None;
                state.deferred = None;
                state.known = None;
            }
            self.presence_at = None;
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(Duration::from_secs(3));
        }
    }

    /// One connection; Ok when it was lost (to be retried), Err when retrying is useless.
    async fn session(&mut self) -> Result<(), Fatal> {
        let config = WebSocketConfig::default().max_message_size(Some(MAX_MESSAGE_BYTES)).max_frame_size(Some(MAX_MESSAGE_BYTES));
        let mut ws = match tokio_tungstenite::connect_async_with_config(self.options.hub.as_str(), Some(config), false).await {
            Ok((ws, _)) => ws,
            Err(e) => {
                (self.say)(format!("sync: cannot reach the hub at {}: {e}; retrying", self.options.hub));
                return Ok(());
            }
        };
        let hello = ClientMessage::Hello { version: VERSION, token: self.options.token.clone(), paths: self.options.paths.clone() };
        if ws.send(text(&hello)).await.is_err() {
            return Ok(());
        }
        let mut tick = tokio::time::interval(POLL.min(self.options.interval));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                received = ws.next() => {
                    // Whatever else has arrived is read too: of several heads of a file only
                    // the newest is written (each is the whole file), which keeps a busy hub
                    // from queueing merges in the agent.
                    let mut batch = vec![received];
                    while matches!(batch.last(), Some(Some(Ok(_)))) {
                        match futures_util::FutureExt::now_or_never(ws.next()) {
                            Some(more) => batch.push(more),
                            None => break,
                        }
                    }
                    let mut messages = Vec::new();
                    for received in batch {
                        match received {
                            Some(Ok(Message::Text(t))) => match serde_json::from_str::<HubMessage>(t.as_str()) {
                                Ok(m) => match self.expand(m) {
                                    Some(m) => messages.push(m),
                                    None => {
                                        (self.say)("sync: out of step with the hub; reconnecting".to_owned());
                                        return Ok(());
                                    }
                                },
                                Err(e) => (self.say)(format!("sync: a message from the hub was not understood: {e}")),
                            },
                            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => {
                                for m in coalesce(messages) {
                                    self.receive(m)?;
                                }
                                (self.say)("sync: lost the hub; reconnecting".to_owned());
                                return Ok(());
                            }
                            Some(Ok(_)) => {}
                        }
                    }
                    for m in coalesce(messages) {
                        self.receive(m)?;
                    }
                }
                _ = tick.tick() => {
                    for message in self.poll() {
                        if ws.send(text(&message)).await.is_err() {
                            return Ok(());
                        }
                    }
                }
            }
        }
    }

    /// A message with its patch applied: each head whole, and remembered as the newest. None
    /// when a patch does not fit the newest head (then only a new session helps).
    fn expand(&mut self, message: HubMessage) -> Option<HubMessage> {
        let message = match message {
            HubMessage::Patch { path, rev, from, at, remove, insert, author, own } => {
                let Some(state) = self.files.get(&path) else { return Some(HubMessage::Unchanged { path, rev }) };
                let known = state.known.as_ref().filter(|k| k.rev == from)?;
                let content = crate::protocol::apply_splice(&known.content, at, remove, &insert)?;
                HubMessage::Head { head: Head { path, rev, content }, author, own }
            }
            other => other,
        };
        let heads = match &message {
            HubMessage::Welcome { heads, .. } => heads.iter().collect(),
            HubMessage::Head { head, .. } => vec![head],
            _ => Vec::new(),
        };
        for head in heads {
            if let Some(state) = self.files.get_mut(&head.path) {
                state.known = Some(head.clone());
            }
        }
        Some(message)
    }

    fn receive(&mut self, message: HubMessage) -> Result<(), Fatal> {
        match message {
            HubMessage::Welcome { user, read_only, heads, .. } => {
                let mode = if read_only {
                    " (read-only)"
                } else if self.options.paused {
                    " (paused: not publishing)"
                } else {
                    ""
                };
                (self.say)(format!("sync: connected to the hub as {user}{mode}"));
                for head in heads {
                    if !self.defer(&head) {
                        self.apply(head, false);
                    }
                }
            }
            HubMessage::Head { head, author, own } => {
                if !own {
                    (self.say)(format!("sync: {author} changed {} at {}", head.path, &head.rev[..head.rev.len().min(10)]));
                }
                if own || !self.defer(&head) {
                    self.apply(head, own);
                }
            }
            HubMessage::Unchanged { path, .. } => {
                if let Some(s) = self.files.get_mut(&path) {
                    s.pending = None;
                }
            }
            HubMessage::Refused { path, reason } => {
                (self.say)(format!("sync: the hub refused {path}: {reason}"));
                if let Some(s) = self.files.get_mut(&path) {
                    s.refused = s.pending.take();
                }
            }
            HubMessage::Overruled { path, conflicts, kept } => {
                (self.say)(format!(
                    "sync: the team's version won over your edit of {path} ({}); your version is kept in the hub at {kept}",
                    conflicts.join("; ")
                ));
            }
            HubMessage::Presence { user, editing } => {
                let before = self.others.remove(&user).unwrap_or_default();
                // Each object once, when the user starts on it.
                for e in editing.iter().filter(|e| !before.contains(e)) {
                    (self.say)(format!("{user} is editing {}", e.object));
                }
                if editing.is_empty() && !before.is_empty() {
                    (self.say)(format!("{user} is not editing anything"));
                }
                self.others.insert(user, editing);
            }
            HubMessage::Error { reason } => return Err(Fatal(format!("the hub closed the session: {reason}"))),
            // Expanded into heads on arrival.
            HubMessage::Patch { .. } => {}
        }
        Ok(())
    }

    /// Whether another user's head can wait for the answer to this user's own publish, which
    /// will include it: one is pending, or an unpublished save is about to go. Then it is
    /// held (replacing an older held head).
    fn defer(&mut self, head: &Head) -> bool {
        let Some(state) = self.files.get_mut(&head.path) else { return false };
        let file = self.options.root.join(&head.path);
        let waiting = state.pending.is_some()
            || (!state.holds_shadow(&stamp_of(&file)) && {
                let local = std::fs::read(&file).ok();
                let shadow = state.shadow.as_ref().map(|s| s.content.as_bytes());
                // A restarted agent's file may carry edits made offline: they go to the hub first.
                let edited = |l: &[u8]| match shadow {
                    Some(s) => s != l,
                    None => state.restored.is_some() && l != head.content.as_bytes(),
                };
                local.is_some_and(|l| !self.options.paused && edited(&l) && state.refused.as_deref() != Some(&l[..]))
            });
        if waiting {
            let since = state.deferred.take().map_or_else(Instant::now, |(_, since)| since);
            state.deferred = Some((head.clone(), since));
        }
        waiting
    }

    /// A new head of a file: written over the user's file when they have not changed it,
    /// merged with their edits when they have.
    fn apply(&mut self, head: Head, own: bool) {
        let Some(state) = self.files.get_mut(&head.path) else { return };
        let published = if own { state.pending.take() } else { None };
        // Heads arrive in order: whatever was held back is older than this one.
        state.deferred = None;
        if let Some(p) = &published {
            // The user saved again while this publish was on its way: that save goes out
            // next, and the hub's answer to it brings this head too; merging here would only
            // repeat the hub's work.
            let local = std::fs::read(self.options.root.join(&head.path)).ok();
            let saved_again = local.is_some_and(|l| l != *p && l != head.content.as_bytes() && state.refused.as_deref() != Some(&l[..]));
            if saved_again && !self.options.paused {
                if p == head.content.as_bytes() {
                    // The hub took the publish as it was: the newer save derives from this
                    // head, which becomes the shadow it goes out against (and shows whose
                    // objects it edits).
                    state.written = None; // the file holds the newer save, not this head
                    adopt(state, &self.options.root, &head);
                } else {
                    state.deferred = Some((head, Instant::now()));
                }
                return;
            }
        }
        // A save between reading the file and replacing it: read it again and redo the merge.
        for _ in 0..5 {
            if self.apply_once(&head, published.as_deref()) {
                return;
            }
        }
        // The next publish names the older shadow; the hub then merges against this agent's
        // own last publish, which the file derives from.
        (self.say)(format!("sync: {} keeps changing; the hub's version is merged in next round", head.path));
    }

    /// One attempt; false when the file changed while it was being merged.
    fn apply_once(&mut self, head: &Head, published: Option<&[u8]>) -> bool {
        let state = self.files.get_mut(&head.path).expect("a synced file");
        let file = self.options.root.join(&head.path);
        // Read through a handle that is kept: after the replacement it still shows the file
        // that was replaced, and so any save that landed on it in the last instant.
        let mut handle = std::fs::File::open(&file).ok();
        let read_stamp = handle.as_ref().and_then(|h| stamp_from(&h.metadata().ok()?));
        let shadow = state.shadow.as_ref().map(|s| s.content.as_bytes());
        let local = match (state.holds_shadow(&read_stamp), shadow) {
            // As the agent left it: no need to read it.
            (true, Some(s)) => Some(s.to_vec()),
            _ => handle.as_mut().and_then(|h| {
                let mut bytes = Vec::new();
                std::io::Read::read_to_end(h, &mut bytes).ok().map(|_| bytes)
            }),
        };
        let target = head.content.as_bytes();
        let result: Option<Vec<u8>> = match &local {
            None => Some(target.to_vec()),
            Some(l) if l == target => None,
            // Unchanged since it was published, or since the last head: the hub's word is final.
            Some(l) if published == Some(&l[..]) || shadow == Some(&l[..]) => Some(target.to_vec()),
            // Edited while the agent was away: the base of those edits is the restored revision,
            // whose content only the hub holds. Merging against this head instead would pass
            // them off as edits of it (and a clash with it as none); the file is left as it is,
            // published against that revision, and the hub merges.
            Some(_) if published.is_none() && shadow.is_none() && state.restored.is_some() => return true,
            Some(l) => {
                // Edited meanwhile: keep those edits (against what was published, or the shadow).
                let base = published.or(shadow).unwrap_or(target);
                match self.local.merge(&head.path, base, l, target, true, None) {
                    // A conflict is the hub's to settle, by the team's policy: the file is
                    // left as it is and published against the older shadow.
                    Ok(m) if !m.settled.is_empty() => return true,
                    Ok(m) => Some(m.content),
                    Err(e) => {
                        (self.say)(format!("sync: {} cannot be merged with the hub's version yet ({e}); it is left as it is", head.path));
                        return true;
                    }
                }
            }
        };
        let mut written = read_stamp;
        if let Some(bytes) = result {
            // The revision about to be written is recorded first, with a hash of the bytes: an
            // agent killed before it records the revision as its own can tell on restart which
            // of the two revisions the file derives from.
            let derives_from = state.shadow.as_ref().map(|s| s.rev.clone()).or_else(|| state.restored.clone());
            state.record(&self.options.root, &head.path, derives_from.as_deref(), Some((&head.rev, &bytes)));
            // Only over the file as it was read: a save in between is merged on the next try.
            // The new file is written and synced first, so that only a read and a rename lie
            // between that check and the replacement.
            // A tool that edits the file by reading and rewriting it can hold the same lock
            // so that its save never lands on a version it did not read.
            let _lock = lock_working_copy(&self.options.root);
            // Replaced (a new inode) or rewritten (a new time or size) since it was read; a
            // rewrite too quick for the clock is caught after the rename, through the handle.
            let unchanged = || stamp_of(&file) == read_stamp;
            // The hub's own version can be fetched again; only a merge with local edits must
            // reach the disk before it replaces the user's file.
            let durable = bytes != target;
            match write_atomically_if(&file, &bytes, durable, unchanged) {
                Ok(Some(stamp)) => {
                    if let Some(saved) = handle.and_then(|h| saved_meanwhile(h, local.as_deref())) {
                        // The user's save wins that race: it goes back in place, the shadow
                        // stays, and it is published (and this head merged) as any save.
                        let _ = write_atomically_if(&file, &saved, true, || true);
                        (self.say)(format!("sync: {} was saved while the hub's version was being written; the save is kept", head.path));
                        return true;
                    }
                    written = stamp;
                }
                Ok(None) => return false,
                Err(e) => {
                    (self.say)(format!("sync: cannot write {}: {e}", file.display()));
                    return true;
                }
            }
        }
        // The stamp of what the agent read or wrote, never one taken later: a save landing
        // in between must not pass for the shadow.
        state.written = written;
        adopt(state, &self.options.root, head);
        true
    }

    /// What to send now: each file saved since the last look (once its save is complete, and
    /// at most once per interval) against its shadow; presence once per interval. A held-back
    /// head is written when no publish of this user's will bring it soon.
    fn poll(&mut self) -> Vec<ClientMessage> {
        let mut out = Vec::new();
        let now = Instant::now();
        let interval = self.options.interval;
        let mut to_apply = Vec::new();
        for path in &self.options.paths {
            let state = self.files.get_mut(path).expect("every path has a state");
            state.recent.retain(|(when, _)| now.duration_since(*when) < PRESENCE_FOR);
            let file = self.options.root.join(path);
            let stamp = stamp_of(&file);
            let settled = stamp == state.stamp;
            let unseen = stamp != state.read_stamp;
            state.stamp = stamp;
            let stale = state.read_at.is_none_or(|at| now.duration_since(at) >= interval);
            // A head held back for this save is worth more than the interval's spacing.
            let rested = state.deferred.is_some() || state.last_publish.is_none_or(|at| now.duration_since(at) >= interval);
            let mut publishing = false;
            if settled && ((unseen && rested) || stale || state.deferred.is_some()) {
                state.read_at = Some(now);
                // A file as the agent left it is the shadow: not read again.
                let as_left = state.holds_shadow(&stamp) && !stale;
                let local = if as_left { Some(Vec::new()) } else { std::fs::read(&file).ok() };
                if let Some(local) = local {
                    let shadow = state.shadow.as_ref().map(|s| s.content.as_bytes());
                    let changed = !as_left && shadow != Some(&local[..]);
                    let blocked = self.options.paused || (!as_left && state.refused.as_deref() == Some(&local[..]));
                    if changed && !blocked && state.pending.is_none() && rested {
                        match String::from_utf8(local.clone()) {
                            Err(_) => {
                                (self.say)(format!("sync: {path} is not UTF-8 text: not published"));
                                state.refused = Some(local);
                            }
                            Ok(content) => {
                                // A first publish (no shadow) is not an edit of every object.
                                let edited = shadow.map(|old| self.local.changed_objects(path, old, &local)).unwrap_or_default();
                                for object in edited {
                                    state.recent.retain(|(_, o)| *o != object);
                                    state.recent.push((now, object));
                                }
                                // Against a shadow the agent holds, only the change travels.
                                out.push(match &state.shadow {
                                    Some(s) => {
                                        let (at, remove, insert) = crate::protocol::splice_between(&s.content, &content);
                                        let insert = insert.to_owned();
                                        ClientMessage::Edit { path: path.clone(), base: s.rev.clone(), at, remove, insert }
                                    }
                                    None => ClientMessage::Publish { path: path.clone(), base: state.restored.clone(), content },
                                });
                                state.pending = Some(local);
                                state.last_publish = Some(now);
                                publishing = true;
                            }
                        }
                    }
                    let soon = changed && !blocked && state.pending.is_none();
                    if publishing || !changed || blocked {
                        state.read_stamp = stamp;
                    }
                    if !publishing && state.pending.is_none() && !soon {
                        to_apply.extend(state.deferred.take().map(|(head, _)| head));
                    }
                }
            }
            // Held back too long (the user keeps saving): merged in here.
            if state.pending.is_none() && state.deferred.as_ref().is_some_and(|(_, since)| now.duration_since(*since) >= interval) {
                to_apply.extend(state.deferred.take().map(|(head, _)| head));
            }
        }
        for head in to_apply {
            self.apply(head, false);
        }
        if self.presence_at.is_none_or(|at| now.duration_since(at) >= interval.min(HEARTBEAT)) {
            self.presence_at = Some(now);
            let editing = self
                .options
                .paths
                .iter()
                .flat_map(|path| self.files[path].recent.iter().map(|(_, object)| Editing { path: path.clone(), object: object.clone() }))
                .collect();
            out.push(ClientMessage::Presence { editing });
        }
        out
    }
}

/// Messages with the heads of each file merged into its newest: `own` when any of them
/// answered this agent's publish (whose content the newest head includes).
fn coalesce(messages: Vec<HubMessage>) -> Vec<HubMessage> {
    let newest: HashMap<String, usize> = messages
        .iter()
        .enumerate()
        .filter_map(|(i, m)| match m {
            HubMessage::Head { head, .. } => Some((head.path.clone(), i)),
            _ => None,
        })
        .collect();
    let own: Vec<String> = messages
        .iter()
        .filter_map(|m| match m {
            HubMessage::Head { head, own: true, .. } => Some(head.path.clone()),
            _ => None,
        })
        .collect();
    messages
        .into_iter()
        .enumerate()
        .filter_map(|(i, m)| match m {
            HubMessage::Head { head, author, .. } => {
                (newest.get(&head.path) == Some(&i)).then(|| HubMessage::Head { own: own.contains(&head.path), head, author })
            }
            other => Some(other),
        })
        .collect()
}

/// An error no reconnection can cure.
struct Fatal(String);

fn text(message: &ClientMessage) -> Message {
    Message::text(serde_json::to_string(message).expect("messages serialize"))
}

fn open_rev_file(path: &Path) -> Option<std::fs::File> {
    std::fs::create_dir_all(path.parent()?).ok()?;
    std::fs::OpenOptions::new().create(true).truncate(false).read(true).write(true).open(path).ok()
}

/// `head` is what the file derives from: it becomes the shadow, and its revision is recorded.
fn adopt(state: &mut FileState, root: &Path, head: &Head) {
    state.record(root, &head.path, Some(&head.rev), None);
    state.shadow = Some(Shadow { rev: head.rev.clone(), content: head.content.clone() });
    state.restored = None;
}

/// Writes the record of a file's revision over the record file's content, in one small write
/// at the start and then the length: on its first line the revision the file derives from
/// (empty when none); while a head is being written into the file, a second line
/// `next REV HASH` with that head's revision and the BLAKE3 hash of the bytes written.
fn write_rev_record(file: &std::fs::File, derives_from: Option<&str>, next: Option<(&str, &[u8])>) -> std::io::Result<()> {
    use std::io::{Seek, Write};
    let mut record = format!("{}\n", derives_from.unwrap_or(""));
    if let Some((rev, bytes)) = next {
        record.push_str(&format!("next {rev} {}\n", blake3::hash(bytes).to_hex()));
    }
    let mut f = file;
    f.seek(std::io::SeekFrom::Start(0))?;
    f.write_all(record.as_bytes())?;
    file.set_len(record.len() as u64)
}

/// The revision a file derives from, by its record (see [`write_rev_record`]): the head that
/// was being written when the file holds exactly its bytes (the agent stopped before recording
/// it), else the recorded one. `file` reads the file, only when that must be told.
fn restored_revision(record: &str, file: impl FnOnce() -> Option<Vec<u8>>) -> Option<Rev> {
    let mut lines = record.lines();
    let recorded = lines.next().map(str::trim).filter(|r| !r.is_empty()).map(str::to_owned);
    let next = lines.next().and_then(|l| {
        let mut words = l.split_whitespace();
        (words.next() == Some("next")).then_some(())?;
        Some((words.next()?.to_owned(), words.next()?.to_owned()))
    });
    match next {
        Some((rev, hash)) if file().is_some_and(|bytes| blake3::hash(&bytes).to_hex().as_str() == hash) => Some(rev),
        _ => recorded,
    }
}

/// Where the revision of the shadow of `path` is kept.
fn shadow_file(root: &Path, path: &str) -> PathBuf {
    root.join(".levelmerge").join("sync").join(format!("{}.shadow", blake3::hash(path.as_bytes()).to_hex()))
}

/// What a replaced file holds now, if a save landed on it after it was read (an editor that
/// writes in place, in the instant between the agent's last check and its rename). Waits for
/// that save to finish first.
fn saved_meanwhile(mut replaced: std::fs::File, read: Option<&[u8]>) -> Option<Vec<u8>> {
    use std::io::{Read, Seek};
    let content = |f: &mut std::fs::File| -> Option<Vec<u8>> {
        let mut bytes = Vec::new();
        f.seek(std::io::SeekFrom::Start(0)).ok()?;
        f.read_to_end(&mut bytes).ok()?;
        Some(bytes)
    };
    let mut now = content(&mut replaced)?;
    if Some(&now[..]) == read {
        return None;
    }
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(20));
        let later = content(&mut replaced)?;
        if later == now {
            break;
        }
        now = later;
    }
    (!now.is_empty()).then_some(now)
}

/// The agent's lock on the working copy, `ROOT/.levelmerge/sync/lock`: held while a file is
/// replaced. None when it cannot be taken (the write then goes on without it).
pub fn lock_working_copy(root: &Path) -> Option<std::fs::File> {
    let dir = root.join(".levelmerge").join("sync");
    std::fs::create_dir_all(&dir).ok()?;
    let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.join("lock")).ok()?;
    file.lock().ok()?;
    Some(file)
}

/// Size, modification time and inode: an atomic save (a rename) changes the inode even
/// when the clock is too coarse to tell two saves apart.
fn stamp_of(file: &Path) -> Stamp {
    stamp_from(&std::fs::metadata(file).ok()?)
}

fn stamp_from(meta: &std::fs::Metadata) -> Stamp {
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(meta);
    #[cfg(not(unix))]
    let inode = 0;
    Some((meta.len(), meta.modified().ok()?, inode))
}

/// Replaces `path` with `bytes` by a rename, if `still` holds once the new file is ready; the
/// new file's stamp as written (before anyone else could touch it), or None when `still` did
/// not hold (nothing was replaced).
fn write_atomically_if(path: &Path, bytes: &[u8], durable: bool, still: impl FnOnce() -> bool) -> std::io::Result<Option<Stamp>> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    if durable {
        tmp.as_file().sync_all()?;
    }
    // A rename keeps the inode and times, so this is the stamp the path will show.
    let stamp = stamp_from(&tmp.as_file().metadata()?);
    if !still() {
        return Ok(None);
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(Some(stamp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_save_that_lands_on_the_replaced_file_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("level.json");
        std::fs::write(&file, "old").unwrap();
        // The agent reads through a handle; an editor holds the file open to save in place.
        let mut agent = std::fs::File::open(&file).unwrap();
        let mut read = Vec::new();
        std::io::Read::read_to_end(&mut agent, &mut read).unwrap();
        let mut editor = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
        let stamp = write_atomically_if(&file, b"head", false, || true).unwrap().expect("replaced");
        assert!(stamp.is_some() && stamp == stamp_of(&file), "the stamp written is the one the path shows");
        // Nothing saved meanwhile: nothing found.
        assert_eq!(saved_meanwhile(agent.try_clone().unwrap(), Some(&read)), None);
        // The editor's save lands on the file the rename replaced.
        std::io::Write::write_all(&mut editor, b"mine").unwrap();
        assert_eq!(saved_meanwhile(agent, Some(&read)).as_deref(), Some(&b"mine"[..]));
        assert_eq!(std::fs::read(&file).unwrap(), b"head", "the path holds the new file; the save is only on the old one");
    }

    /// A merger that must not be asked: the agent has nothing to merge against.
    struct NoMerge;

    impl Merger for NoMerge {
        fn merge(&self, path: &str, _: &[u8], _: &[u8], _: &[u8], _: bool, _: Option<&[u8]>) -> Result<crate::core::Merged, String> {
            panic!("{path} was merged against a base the agent does not hold")
        }
        fn check(&self, _: &str, _: &[u8]) -> Result<(), String> {
            Ok(())
        }
        fn changed_objects(&self, _: &str, _: &[u8], _: &[u8]) -> Vec<String> {
            Vec::new()
        }
        fn objects(&self, _: &str, _: &[u8]) -> Result<Vec<(Vec<String>, String)>, String> {
            Ok(Vec::new())
        }
    }

    /// An agent syncing `path` under `root`, with no hub.
    fn agent_for(root: &Path, path: &str, interval: Duration) -> Agent<NoMerge> {
        let options = AgentOptions {
            hub: String::new(),
            token: String::new(),
            root: root.to_owned(),
            paths: vec![path.to_owned()],
            interval,
            paused: false,
        };
        Agent::new(options, NoMerge, Box::new(|_| {}))
    }

    #[test]
    fn a_file_edited_while_the_agent_was_away_is_left_for_the_hub_to_merge() {
        let dir = tempfile::tempdir().unwrap();
        let path = "level.json".to_owned();
        // The agent last synced revision r1; the user then edited the file with it stopped.
        std::fs::create_dir_all(dir.path().join(".levelmerge/sync")).unwrap();
        std::fs::write(shadow_file(dir.path(), &path), "r1\n").unwrap();
        std::fs::write(dir.path().join(&path), "{\"x\": 2}").unwrap();
        let mut agent = agent_for(dir.path(), &path, Duration::from_secs(1));
        // Another user's head r2 arrives before the offline edit went out.
        agent.apply(Head { path: path.clone(), rev: "r2".into(), content: "{\"x\": 1}".into() }, false);
        assert_eq!(std::fs::read_to_string(dir.path().join(&path)).unwrap(), "{\"x\": 2}", "the offline edit stays");
        let state = &agent.files[&path];
        assert_eq!(state.restored.as_deref(), Some("r1"), "it is published against the revision it was made on");
        assert!(state.shadow.is_none());
    }

    #[test]
    fn a_restarted_agent_finds_the_revision_its_file_holds() {
        let hash = |b: &[u8]| blake3::hash(b).to_hex().to_string();
        let record = format!("r1\nnext r2 {}\n", hash(b"head two"));
        // Stopped after the head was written into the file, before it was recorded.
        assert_eq!(restored_revision(&record, || Some(b"head two".to_vec())).as_deref(), Some("r2"));
        // Stopped before the file was replaced: it still derives from r1.
        assert_eq!(restored_revision(&record, || Some(b"head one".to_vec())).as_deref(), Some("r1"));
        assert_eq!(restored_revision(&record, || None).as_deref(), Some("r1"));
        // The first head ever, not written: the file derives from no revision.
        let first = format!("\nnext r1 {}\n", hash(b"head one"));
        assert_eq!(restored_revision(&first, || Some(b"the user's own".to_vec())), None);
        assert_eq!(restored_revision(&first, || Some(b"head one".to_vec())).as_deref(), Some("r1"));
        // A recorded revision needs no look at the file.
        assert_eq!(restored_revision("r3\n", || panic!("the file was read")).as_deref(), Some("r3"));
        assert_eq!(restored_revision("", || None), None);
        assert_eq!(restored_revision("r1\nnext r2\n", || Some(Vec::new())).as_deref(), Some("r1"), "a torn second line is ignored");
    }

    #[test]
    fn a_written_head_is_recorded_and_found_again_by_a_new_agent() {
        let dir = tempfile::tempdir().unwrap();
        let path = "level.json".to_owned();
        let new_agent = || agent_for(dir.path(), &path, Duration::from_secs(1));
        let mut agent = new_agent();
        agent.apply(Head { path: path.clone(), rev: "r2".into(), content: "{\"x\": 2}".into() }, false);
        assert_eq!(std::fs::read_to_string(dir.path().join(&path)).unwrap(), "{\"x\": 2}");
        assert_eq!(std::fs::read_to_string(shadow_file(dir.path(), &path)).unwrap(), "r2\n", "written, then recorded alone");
        // A head that cannot be written is recorded as coming first, never as held.
        std::fs::remove_file(dir.path().join(&path)).unwrap();
        std::fs::create_dir(dir.path().join(&path)).unwrap();
        agent.apply(Head { path: path.clone(), rev: "r4".into(), content: "{\"x\": 4}".into() }, false);
        let record = std::fs::read_to_string(shadow_file(dir.path(), &path)).unwrap();
        assert!(record.starts_with("r2\nnext r4 "), "{record}");
        assert_eq!(new_agent().files[&path].restored.as_deref(), Some("r2"));
        std::fs::remove_dir(dir.path().join(&path)).unwrap();
        drop(agent);
        // Killed while writing r3: recorded as coming, and the file holds it.
        let r3 = "{\"x\": 3}";
        std::fs::write(shadow_file(dir.path(), &path), format!("r2\nnext r3 {}\n", blake3::hash(r3.as_bytes()).to_hex())).unwrap();
        std::fs::write(dir.path().join(&path), r3).unwrap();
        assert_eq!(new_agent().files[&path].restored.as_deref(), Some("r3"));
    }

    #[test]
    fn a_save_made_while_the_first_publish_was_on_its_way_goes_out_against_its_answer() {
        let dir = tempfile::tempdir().unwrap();
        let path = "level.json".to_owned();
        let mut agent = agent_for(dir.path(), &path, Duration::from_millis(1));
        // The first publish (no shadow yet) is on its way; the user saves again meanwhile.
        agent.files.get_mut(&path).unwrap().pending = Some(b"{\"x\": 1}".to_vec());
        std::fs::write(dir.path().join(&path), "{\"x\": 2}").unwrap();
        // The hub took it as it was.
        agent.apply(Head { path: path.clone(), rev: "r1".into(), content: "{\"x\": 1}".into() }, true);
        assert_eq!(std::fs::read_to_string(dir.path().join(&path)).unwrap(), "{\"x\": 2}", "the newer save stays");
        let state = &agent.files[&path];
        assert_eq!(state.shadow.as_ref().map(|s| s.rev.as_str()), Some("r1"));
        assert!(state.deferred.is_none());
        assert_eq!(std::fs::read_to_string(shadow_file(dir.path(), &path)).unwrap(), "r1\n");
        // The save goes out as an edit of r1, not as a publish without a base.
        let sent: Vec<ClientMessage> = (0..3)
            .flat_map(|_| {
                std::thread::sleep(Duration::from_millis(5));
                agent.poll()
            })
            .collect();
        assert!(
            sent.iter().any(|m| matches!(m, ClientMessage::Edit { base, .. } if base == "r1")),
            "{:?}",
            sent.iter().map(|m| serde_json::to_string(m).unwrap()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn the_working_copy_lock_is_exclusive() {
        let dir = tempfile::tempdir().unwrap();
        let held = lock_working_copy(dir.path()).expect("the lock");
        let other = std::fs::OpenOptions::new().write(true).open(dir.path().join(".levelmerge/sync/lock")).unwrap();
        assert!(other.try_lock().is_err(), "a second holder waits");
        drop(held);
        assert!(other.try_lock().is_ok());
    }
}
