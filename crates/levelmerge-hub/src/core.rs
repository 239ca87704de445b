//! The hub's state machine, free of sockets and clocks: peers join, publish and leave; the
//! hub merges each publish into the head of its file with the team policy, commits it, and
//! says what to send to whom. The server drives it; the tests drive it directly.

use std::collections::BTreeMap;

use crate::auth::Identity;
use crate::protocol::{check_path, splice_between, ClientMessage, Editing, Head, HubMessage, Rev, VERSION};
use crate::store::Store;

pub type PeerId = u64;

/// Where the team's settings live in the hub's repository.
pub const SETTINGS: &str = ".levelmerge.toml";

/// How a conflict between the shared head and an incoming edit is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// The version already shared wins (the LevelMerge paper's users preferred it).
    SharedWins,
    /// The incoming edit wins.
    IncomingWins,
    /// The shared version stays for now and the conflict waits in a queue for someone to
    /// settle it (the dashboard): take the edit, or keep the shared version.
    Manual,
}

/// A conflict waiting to be settled by someone (the manual policy).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Queued {
    pub id: u64,
    pub user: String,
    pub path: String,
    pub conflicts: Vec<String>,
    /// The edit's base, the edit, and the head it was merged into with the shared version.
    #[serde(skip)]
    base: Vec<u8>,
    #[serde(skip)]
    incoming: Vec<u8>,
    #[serde(skip)]
    shared: Vec<u8>,
    #[serde(skip)]
    merged: Vec<u8>,
}

/// The merge the hub needs, given by the caller (the command line brings every codec).
pub trait Merger: Send {
    /// Three-way merge of `path`; conflicts go to `ours` when `prefer_ours`, else to
    /// `theirs`, except where the per-property rules of `settings` (the team's
    /// `.levelmerge.toml` as the hub holds it; None: the merger's own) say otherwise. Err when
    /// an input is not a sound level.
    fn merge(
        &self,
        path: &str,
        base: &[u8],
        ours: &[u8],
        theirs: &[u8],
        prefer_ours: bool,
        settings: Option<&[u8]>,
    ) -> Result<Merged, String>;
    /// Whether `content` is a sound level (parses, no markers, coherent).
    fn check(&self, path: &str, content: &[u8]) -> Result<(), String>;
    /// The objects an edit touched, as people name them (`Level/Door (Transform)`): presence.
    fn changed_objects(&self, path: &str, old: &[u8], new: &[u8]) -> Vec<String>;
    /// The objects of a level, in file order: hierarchy path and type (the dashboard's tree).
    fn objects(&self, path: &str, content: &[u8]) -> Result<Vec<(Vec<String>, String)>, String>;
}

/// A merge result and the conflicts the preference settled, described for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub content: Vec<u8>,
    pub settled: Vec<String>,
    /// Those of `settled` that `theirs` lost (by the preference or by a per-property rule).
    pub theirs_lost: Vec<String>,
    /// What is wrong with the merged level (inputs' problems it kept included): what `check`
    /// of `content` would say, found without reading it again.
    pub problems: Vec<String>,
}

/// A message for one peer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    pub to: PeerId,
    pub message: HubMessage,
}

/// What the connection must do after a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Continue,
    Close,
}

#[derive(Debug)]
struct Peer {
    identity: Identity,
    paths: Vec<String>,
}

/// What happened, for the hub's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Joined { user: String },
    Left { user: String },
    Committed { user: String, path: String, rev: Rev, merged: bool, settled: usize },
    Refused { user: String, path: String, reason: String },
    Queued { user: String, path: String, conflicts: usize },
    Settled { by: String, user: String, path: String, took_edit: bool },
}

pub struct Core<S, M> {
    store: S,
    merger: M,
    policy: Policy,
    peers: BTreeMap<PeerId, Peer>,
    /// What each connected user last said they are editing.
    presence: BTreeMap<String, Vec<Editing>>,
    /// The order of the revisions committed since the hub started (older ones count as 0).
    order: std::collections::HashMap<Rev, u64>,
    /// Each user's last accepted publish of each file, with the order of the head it went into.
    /// The user's copy derives from it, so it is a better base than an older revision they
    /// name: their own earlier edit must never conflict with their later one.
    last_publish: std::collections::HashMap<(String, String), (u64, Vec<u8>)>,
    /// The revision of each file each peer was last sent: a new head goes to it as a splice.
    sent: std::collections::HashMap<(PeerId, String), Rev>,
    /// Conflicts waiting to be settled (manual policy), oldest first.
    queue: Vec<Queued>,
    next_queued: u64,
    pub events: Vec<Event>,
}

impl<S: Store, M: Merger> Core<S, M> {
    pub fn new(store: S, merger: M, policy: Policy) -> Self {
        Core {
            store,
            merger,
            policy,
            peers: BTreeMap::new(),
            presence: BTreeMap::new(),
            order: Default::default(),
            last_publish: Default::default(),
            sent: Default::default(),
            queue: Vec::new(),
            next_queued: 1,
            events: Vec::new(),
        }
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    pub fn merger(&self) -> &M {
        &self.merger
    }

    /// Who is editing what now (users editing nothing are left out).
    pub fn presence(&self) -> &BTreeMap<String, Vec<Editing>> {
        &self.presence
    }

    /// The conflicts waiting to be settled, oldest first.
    pub fn queue(&self) -> &[Queued] {
        &self.queue
    }

    /// Settles a queued conflict as `by` decides: the edit's side of it (merged into today's
    /// head, as the author of the edit would have had it) or the shared version (nothing
    /// changes; the edit stays in its author's kept history).
    pub fn settle(&mut self, id: u64, by: &Identity, take_edit: bool) -> Result<Vec<Outgoing>, String> {
        if by.read_only {
            return Err("this token is read-only".into());
        }
        let at = self.queue.iter().position(|q| q.id == id).ok_or_else(|| format!("no conflict {id} is waiting"))?;
        let queued = self.queue[at].clone();
        let mut out = Vec::new();
        if take_edit {
            let Queued { path, base, incoming, shared, merged, user, .. } = &queued;
            // The edit winning against the version it met, then that difference brought into
            // the head as it is now.
            let settings = self.settings();
            let edit_won = self.merger.merge(path, base, shared, incoming, false, settings.as_deref())?.content;
            let head = self.store.head(path)?;
            let (previous, current) = match &head {
                Some((rev, content)) => (Some((rev.clone(), String::from_utf8_lossy(content).into_owned())), content.clone()),
                None => (None, merged.clone()),
            };
            let result = self.merger.merge(path, merged, &current, &edit_won, false, settings.as_deref())?.content;
            if result != current {
                let message = format!("{path}: {user}'s edit, taken by {}", by.user);
                let rev = self.store.commit(path, &result, &by.user, &message)?;
                let order = self.order.len() as u64 + 1;
                self.order.insert(rev.clone(), order);
                self.events.push(Event::Committed {
                    user: by.user.clone(),
                    path: path.clone(),
                    rev: rev.clone(),
                    merged: true,
                    settled: 0,
                });
                out = self.broadcast(None, path, previous, rev, &result, &by.user);
            }
        }
        self.queue.remove(at);
        self.events.push(Event::Settled { by: by.user.clone(), user: queued.user, path: queued.path, took_edit: take_edit });
        Ok(out)
    }

    /// The team's settings: `.levelmerge.toml` at the head, synced like any other file.
    fn settings(&self) -> Option<Vec<u8>> {
        self.store.head(SETTINGS).ok().flatten().map(|(_, content)| content)
    }

    pub fn users(&self) -> Vec<String> {
        self.peers.values().map(|p| p.identity.user.clone()).collect()
    }

    /// A peer's first message. `identity` is who its token names (None: no valid token).
    pub fn hello(&mut self, peer: PeerId, identity: Option<Identity>, message: ClientMessage) -> (Vec<Outgoing>, Next) {
        let refuse = |reason: String| (vec![Outgoing { to: peer, message: HubMessage::Error { reason } }], Next::Close);
        let ClientMessage::Hello { version, paths, .. } = message else {
            return refuse("the first message must be hello".into());
        };
        if version != VERSION {
            return refuse(format!("protocol version {version} is not spoken here (this hub speaks {VERSION})"));
        }
        let Some(identity) = identity else { return refuse("unknown or revoked token".into()) };
        if let Some(bad) = paths.iter().find_map(|p| check_path(p).err()) {
            return refuse(bad);
        }
        let mut heads = Vec::new();
        for path in &paths {
            match self.store.head(path) {
                Ok(Some((rev, content))) => {
                    heads.push(Head { path: path.clone(), rev, content: String::from_utf8_lossy(&content).into_owned() })
                }
                Ok(None) => {}
                Err(e) => return refuse(format!("the hub cannot read {path}: {e}")),
            }
        }
        for head in &heads {
            self.sent.insert((peer, head.path.clone()), head.rev.clone());
        }
        let welcome = HubMessage::Welcome { version: VERSION, user: identity.user.clone(), read_only: identity.read_only, heads };
        self.events.push(Event::Joined { user: identity.user.clone() });
        self.peers.insert(peer, Peer { identity, paths });
        (vec![Outgoing { to: peer, message: welcome }], Next::Continue)
    }

    /// Any later message of a peer that said hello.
    pub fn handle(&mut self, peer: PeerId, message: ClientMessage) -> (Vec<Outgoing>, Next) {
        let Some(from) = self.peers.get(&peer) else {
            return (vec![Outgoing { to: peer, message: HubMessage::Error { reason: "say hello first".into() } }], Next::Close);
        };
        match message {
            ClientMessage::Hello { .. } => {
                (vec![Outgoing { to: peer, message: HubMessage::Error { reason: "hello was already said".into() } }], Next::Continue)
            }
            ClientMessage::Presence { editing } => {
                let user = from.identity.user.clone();
                let editing: Vec<Editing> = editing.into_iter().filter(|e| check_path(&e.path).is_ok()).take(200).collect();
                if editing.is_empty() {
                    self.presence.remove(&user);
                } else {
                    self.presence.insert(user.clone(), editing.clone());
                }
                let out = self
                    .others(peer)
                    .map(|to| Outgoing { to, message: HubMessage::Presence { user: user.clone(), editing: editing.clone() } });
                (out.collect(), Next::Continue)
            }
            ClientMessage::Publish { path, base, content } => (self.publish(peer, path, base, content.into_bytes()), Next::Continue),
            ClientMessage::Edit { path, base, at, remove, insert } => {
                let whole = match check_path(&path).and_then(|()| self.store.at(&base, &path)) {
                    Ok(Some(old)) => crate::protocol::apply_splice(&String::from_utf8_lossy(&old), at, remove, &insert),
                    _ => None,
                };
                match whole {
                    Some(content) => (self.publish(peer, path, Some(base), content.into_bytes()), Next::Continue),
                    None => {
                        let reason = format!("the edit does not fit revision {base} of {path}; send the whole file");
                        (vec![Outgoing { to: peer, message: HubMessage::Refused { path, reason } }], Next::Continue)
                    }
                }
            }
        }
    }

    /// A peer is gone: the others see it is no longer editing anything.
    pub fn leave(&mut self, peer: PeerId) -> Vec<Outgoing> {
        let Some(gone) = self.peers.remove(&peer) else { return Vec::new() };
        self.sent.retain(|(p, _), _| *p != peer);
        self.events.push(Event::Left { user: gone.identity.user.clone() });
        let user = gone.identity.user;
        // The same user may still be connected elsewhere (a dashboard and an agent).
        if !self.peers.values().any(|p| p.identity.user == user) {
            self.presence.remove(&user);
        }
        self.others(peer).map(|to| Outgoing { to, message: HubMessage::Presence { user: user.clone(), editing: Vec::new() } }).collect()
    }

    /// A peer has said nothing (not even its presence heartbeat) for a while: what it said
    /// its user is editing is no longer believed, and the others are told.
    pub fn silent(&mut self, peer: PeerId) -> Vec<Outgoing> {
        let Some(user) = self.peers.get(&peer).map(|p| p.identity.user.clone()) else { return Vec::new() };
        if self.presence.remove(&user).is_none() {
            return Vec::new();
        }
        self.others(peer).map(|to| Outgoing { to, message: HubMessage::Presence { user: user.clone(), editing: Vec::new() } }).collect()
    }

    fn others(&self, peer: PeerId) -> impl Iterator<Item = PeerId> + '_ {
        self.peers.keys().copied().filter(move |&p| p != peer)
    }

    fn publish(&mut self, peer: PeerId, path: String, base: Option<Rev>, incoming: Vec<u8>) -> Vec<Outgoing> {
        let identity = self.peers[&peer].identity.clone();
        let refused = |core: &mut Self, reason: String| {
            core.events.push(Event::Refused { user: identity.user.clone(), path: path.clone(), reason: reason.clone() });
            vec![Outgoing { to: peer, message: HubMessage::Refused { path: path.clone(), reason } }]
        };
        if identity.read_only {
            return refused(self, "this token is read-only".into());
        }
        if let Err(e) = check_path(&path) {
            return refused(self, e);
        }
        let unsound = |e: String| format!("the saved file is not a sound level, the hub keeps its last good version: {e}");
        let head = match self.store.head(&path) {
            Ok(h) => h,
            Err(e) => return refused(self, format!("the hub cannot read {path}: {e}")),
        };
        let mut base_used = None;
        let (result, settled, merged) = match &head {
            None => (incoming.clone(), Vec::new(), false),
            Some((head_rev, head_content)) => {
                let own_last = self.last_publish.get(&(identity.user.clone(), path.clone()));
                let base_content = match base.as_deref().filter(|b| b != head_rev) {
                    // Built on the head (a fast-forward), or no shared history (the head is the
                    // base, the differences are edits).
                    None => None,
                    Some(b) => match self.store.at(b, &path) {
                        // The sender's own later publish went into the head after that revision.
                        Ok(Some(_)) if own_last.is_some_and(|(at, _)| *at > self.order.get(b).copied().unwrap_or(0)) => {
                            own_last.map(|(_, content)| content.clone())
                        }
                        Ok(Some(c)) => Some(c),
                        Ok(None) => return refused(self, format!("revision {b} of {path} is unknown to this hub")),
                        Err(e) => return refused(self, e),
                    },
                };
                match base_content {
                    None => (incoming.clone(), Vec::new(), false),
                    Some(base_content) => {
                        // Manual: the shared version stays until someone settles the queue.
                        let prefer_ours = self.policy != Policy::IncomingWins;
                        let settings = self.settings();
                        let merged =
                            match self.merger.merge(&path, &base_content, head_content, &incoming, prefer_ours, settings.as_deref()) {
                                // The merge read the edit: its problems are the result's.
                                Ok(m) if !m.problems.is_empty() => return refused(self, unsound(m.problems.join("; "))),
                                // What the policy or a rule settled against the incoming edit.
                                Ok(m) => (m.content, m.theirs_lost, true),
                                Err(e) => {
                                    let why = match self.merger.check(&path, &incoming) {
                                        Err(problem) => unsound(problem),
                                        Ok(()) => format!("cannot merge into the head: {e}"),
                                    };
                                    return refused(self, why);
                                }
                            };
                        base_used = Some(base_content);
                        merged
                    }
                }
            }
        };
        if !merged {
            if let Err(e) = self.merger.check(&path, &incoming) {
                return refused(self, unsound(e));
            }
        }
        let mut out = Vec::new();
        let key = (identity.user.clone(), path.clone());
        let previous = head.as_ref().map(|(rev, content)| (rev.clone(), String::from_utf8_lossy(content).into_owned()));
        if let Some((rev, content)) = &head {
            if *content == result {
                let at = self.order.get(rev).copied().unwrap_or(0);
                self.last_publish.insert(key, (at, incoming.clone()));
                let head = Head { path: path.clone(), rev: rev.clone(), content: String::from_utf8_lossy(content).into_owned() };
                let splice = previous.as_ref().map(|(from, old)| (from, splice_between(old, &head.content)));
                let message = self.head_for(peer, &head, splice, &identity.user, true);
                out.push(Outgoing { to: peer, message });
                self.overruled(peer, &identity.user, &path, &incoming, &settled, &mut out);
                if self.policy == Policy::Manual && !settled.is_empty() {
                    let shared = content.clone();
                    self.enqueue(&identity.user, &path, settled, base_used.unwrap_or_default(), incoming, shared, result);
                }
                return out;
            }
        }
        let message =
            if merged { format!("{path}: {}'s edit, merged", identity.user) } else { format!("{path}: {}'s edit", identity.user) };
        let rev = match self.store.commit(&path, &result, &identity.user, &message) {
            Ok(rev) => rev,
            Err(e) => return refused(self, format!("the hub cannot commit: {e}")),
        };
        let at = self.order.len() as u64 + 1;
        self.order.insert(rev.clone(), at);
        self.last_publish.insert(key, (at, incoming.clone()));
        self.events.push(Event::Committed {
            user: identity.user.clone(),
            path: path.clone(),
            rev: rev.clone(),
            merged,
            settled: settled.len(),
        });
        out.extend(self.broadcast(Some(peer), &path, previous, rev, &result, &identity.user));
        self.overruled(peer, &identity.user, &path, &incoming, &settled, &mut out);
        if self.policy == Policy::Manual && !settled.is_empty() {
            let base = base_used.unwrap_or_default();
            self.enqueue(&identity.user, &path, settled, base, incoming, head.map(|(_, c)| c).unwrap_or_default(), result);
        }
        out
    }

    /// A new head of `path`, sent to the peers that follow it (and to `sender`, as its answer).
    fn broadcast(
        &mut self,
        sender: Option<PeerId>,
        path: &str,
        previous: Option<(Rev, String)>,
        rev: Rev,
        content: &[u8],
        author: &str,
    ) -> Vec<Outgoing> {
        let head = Head { path: path.to_owned(), rev, content: String::from_utf8_lossy(content).into_owned() };
        let to: Vec<PeerId> =
            self.peers.iter().filter(|(&to, p)| Some(to) == sender || p.paths.iter().any(|p| p == path)).map(|(&to, _)| to).collect();
        // Computed once: every peer that follows the file was sent the previous head.
        let splice = previous.as_ref().map(|(from, old)| (from, splice_between(old, &head.content)));
        to.into_iter()
            .map(|to| {
                let message = self.head_for(to, &head, splice, author, Some(to) == sender);
                Outgoing { to, message }
            })
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn enqueue(
        &mut self,
        user: &str,
        path: &str,
        conflicts: Vec<String>,
        base: Vec<u8>,
        incoming: Vec<u8>,
        shared: Vec<u8>,
        merged: Vec<u8>,
    ) {
        let id = self.next_queued;
        self.next_queued += 1;
        self.events.push(Event::Queued { user: user.to_owned(), path: path.to_owned(), conflicts: conflicts.len() });
        self.queue.push(Queued { id, user: user.to_owned(), path: path.to_owned(), conflicts, base, incoming, shared, merged });
    }

    /// The message that brings `to` to `head`: the splice from the head before it when that
    /// is what `to` was last sent, else the whole file.
    fn head_for(&mut self, to: PeerId, head: &Head, splice: Option<(&Rev, (usize, usize, &str))>, author: &str, own: bool) -> HubMessage {
        let key = (to, head.path.clone());
        let known = self.sent.insert(key, head.rev.clone());
        match splice {
            Some((from, (at, remove, insert))) if known.as_ref() == Some(from) => HubMessage::Patch {
                path: head.path.clone(),
                rev: head.rev.clone(),
                from: from.clone(),
                at,
                remove,
                insert: insert.to_owned(),
                author: author.to_owned(),
                own,
            },
            _ => HubMessage::Head { head: head.clone(), author: author.to_owned(), own },
        }
    }

    /// When the shared version won conflicts against this edit, the edit is kept in the
    /// history and its author told.
    fn overruled(&mut self, peer: PeerId, user: &str, path: &str, incoming: &[u8], settled: &[String], out: &mut Vec<Outgoing>) {
        if settled.is_empty() {
            return;
        }
        let why = if self.policy == Policy::Manual { "waiting for the team to settle it" } else { "overruled by the shared version" };
        let kept = self
            .store
            .keep(user, path, incoming, user, &format!("{path}: {user}'s edit, {why}"))
            .unwrap_or_else(|e| format!("(not kept: {e})"));
        out.push(Outgoing { to: peer, message: HubMessage::Overruled { path: path.to_owned(), conflicts: settled.to_vec(), kept } });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;

    /// The JSON codec, as the command line would give it.
    struct Json;

    impl Merger for Json {
        fn merge(
            &self,
            _path: &str,
            base: &[u8],
            ours: &[u8],
            theirs: &[u8],
            prefer_ours: bool,
            _settings: Option<&[u8]>,
        ) -> Result<Merged, String> {
            use levelmerge_core::codec::Engine;
            use levelmerge_core::text::MarkerStyle;
            let codec = levelmerge_json::JsonCodec::new(None, Default::default());
            let prefer = Some(if prefer_ours { levelmerge_core::Side::Ours } else { levelmerge_core::Side::Theirs });
            let options =
                levelmerge_core::Options { policy: levelmerge_core::policy::Policy { prefer, rules: Vec::new() }, ..Default::default() };
            let out = codec
                .merge(levelmerge_core::Sides::new(base, ours, theirs), &options, &MarkerStyle::default())
                .map_err(|e| e.to_string())?;
            let describe = |c: &levelmerge_core::codec::ConflictReport| format!("{} › {}", c.object, c.path);
            let settled = out.conflicts.iter().filter(|c| c.resolved.is_some()).map(describe).collect();
            let theirs_lost = out
                .conflicts
                .iter()
                .filter(|c| c.resolved.as_ref().is_some_and(|(side, _)| *side != levelmerge_core::Side::Theirs))
                .map(describe)
                .collect();
            let problems = out.problems.iter().map(|p| p.to_string()).collect();
            Ok(Merged { content: out.text, settled, theirs_lost, problems })
        }
        fn check(&self, _path: &str, content: &[u8]) -> Result<(), String> {
            use levelmerge_core::codec::Engine;
            let problems = levelmerge_json::JsonCodec::new(None, Default::default()).check(content);
            problems.first().map_or(Ok(()), |p| Err(p.to_string()))
        }
        fn changed_objects(&self, _path: &str, _old: &[u8], _new: &[u8]) -> Vec<String> {
            Vec::new()
        }
        fn objects(&self, _path: &str, _content: &[u8]) -> Result<Vec<(Vec<String>, String)>, String> {
            Ok(Vec::new())
        }
    }

    const LEVEL: &str = "{\n  \"entities\": [\n    { \"id\": 1, \"x\": 1 },\n    { \"id\": 2, \"x\": 2 }\n  ]\n}\n";

    /// A hub with alice, bob and a read-only viewer, and what each of them was last sent.
    struct Team {
        core: Core<MemoryStore, Json>,
        copies: std::collections::HashMap<PeerId, Head>,
    }

    fn hub(policy: Policy) -> Team {
        let mut core = Core::new(MemoryStore::default(), Json, policy);
        let paths = vec!["level.json".to_owned()];
        for (peer, user, read_only) in [(1, "alice", false), (2, "bob", false), (3, "viewer", true)] {
            let hello = ClientMessage::Hello { version: VERSION, token: String::new(), paths: paths.clone() };
            let (_, next) = core.hello(peer, Some(Identity { user: user.into(), read_only }), hello);
            assert_eq!(next, Next::Continue);
        }
        Team { core, copies: Default::default() }
    }

    impl Team {
        fn publish(&mut self, peer: PeerId, base: Option<&str>, content: &str) -> Vec<Outgoing> {
            let message = ClientMessage::Publish { path: "level.json".into(), base: base.map(str::to_owned), content: content.into() };
            let out = self.core.handle(peer, message).0;
            for o in &out {
                match &o.message {
                    HubMessage::Head { head, .. } => {
                        self.copies.insert(o.to, head.clone());
                    }
                    HubMessage::Patch { path, rev, from, at, remove, insert, .. } => {
                        let known = &self.copies[&o.to];
                        assert_eq!(&known.rev, from, "a patch applies to what the peer was sent");
                        let content = crate::protocol::apply_splice(&known.content, *at, *remove, insert).expect("the splice fits");
                        self.copies.insert(o.to, Head { path: path.clone(), rev: rev.clone(), content });
                    }
                    _ => {}
                }
            }
            out
        }

        /// What `to` holds after `out`, if `out` sent it a head.
        fn head_of(&self, out: &[Outgoing], to: PeerId) -> Option<Head> {
            out.iter()
                .any(|o| o.to == to && matches!(o.message, HubMessage::Head { .. } | HubMessage::Patch { .. }))
                .then(|| self.copies[&to].clone())
        }
    }

    #[test]
    fn edits_on_an_old_revision_are_merged_into_the_head_and_sent_to_everyone() {
        let mut team = hub(Policy::SharedWins);
        let first = team.publish(1, None, LEVEL);
        let rev0 = team.head_of(&first, 1).unwrap().rev;
        assert_eq!(team.head_of(&first, 2).unwrap().content, LEVEL, "bob receives the new file");
        let alice = LEVEL.replace("\"x\": 1", "\"x\": 10");
        let out = team.publish(1, Some(&rev0), &alice);
        assert_eq!(team.head_of(&out, 2).unwrap().content, alice);
        let patch = out.iter().find_map(|o| match &o.message {
            HubMessage::Patch { from, insert, remove, .. } if o.to == 2 => Some((from.clone(), insert.clone(), *remove)),
            _ => None,
        });
        assert_eq!(patch, Some((rev0.clone(), "0".to_owned(), 0)), "a peer that has the previous head gets only the change");
        // Bob still works on rev0: his edit is merged with alice's.
        let bob = LEVEL.replace("\"x\": 2", "\"x\": 20");
        let out = team.publish(2, Some(&rev0), &bob);
        let both = LEVEL.replace("\"x\": 1", "\"x\": 10").replace("\"x\": 2", "\"x\": 20");
        assert_eq!(team.head_of(&out, 1).unwrap().content, both);
        assert_eq!(team.head_of(&out, 2).unwrap().content, both, "the sender gets the merged head");
        assert_eq!(team.head_of(&out, 3).unwrap().content, both, "read-only peers follow too");
        assert_eq!(team.core.store().log.iter().map(|(_, a, _)| a.as_str()).collect::<Vec<_>>(), ["alice", "alice", "bob"]);
    }

    #[test]
    fn conflicts_follow_the_policy_and_the_losing_edit_is_kept() {
        for (policy, winner) in [(Policy::SharedWins, "\"x\": 10"), (Policy::IncomingWins, "\"x\": 30")] {
            let mut team = hub(policy);
            let first = team.publish(1, None, LEVEL);
            let rev0 = team.head_of(&first, 1).unwrap().rev;
            team.publish(1, Some(&rev0), &LEVEL.replace("\"x\": 1", "\"x\": 10"));
            let bob = LEVEL.replace("\"x\": 1", "\"x\": 30");
            let out = team.publish(2, Some(&rev0), &bob);
            let head = team.head_of(&out, 2).unwrap();
            assert!(head.content.contains(winner), "{policy:?}: {}", head.content);
            let overruled =
                out.iter().any(|o| matches!(&o.message, HubMessage::Overruled { conflicts, .. } if o.to == 2 && !conflicts.is_empty()));
            assert_eq!(overruled, policy == Policy::SharedWins, "{policy:?}");
            if policy == Policy::SharedWins {
                assert_eq!(team.core.store().kept["bob"], [("level.json".to_owned(), bob.into_bytes())]);
            }
        }
    }

    #[test]
    fn under_the_manual_policy_a_conflict_waits_until_someone_settles_it() {
        for take_edit in [true, false] {
            let mut team = hub(Policy::Manual);
            let first = team.publish(1, None, LEVEL);
            let rev0 = team.head_of(&first, 1).unwrap().rev;
            team.publish(1, Some(&rev0), &LEVEL.replace("\"x\": 1", "\"x\": 10"));
            // Bob, still on rev0, sets the same property and another one.
            let bob = LEVEL.replace("\"x\": 1", "\"x\": 30").replace("\"x\": 2", "\"x\": 20");
            let out = team.publish(2, Some(&rev0), &bob);
            let head = team.head_of(&out, 1).unwrap();
            assert!(
                head.content.contains("\"x\": 10") && head.content.contains("\"x\": 20"),
                "the shared value stays meanwhile: {}",
                head.content
            );
            assert!(out.iter().any(|o| o.to == 2 && matches!(o.message, HubMessage::Overruled { .. })), "bob is told");
            assert_eq!(team.core.queue().len(), 1);
            let queued = team.core.queue()[0].clone();
            assert_eq!((queued.user.as_str(), queued.conflicts.len()), ("bob", 1), "{:?}", queued.conflicts);
            let viewer = Identity { user: "viewer".into(), read_only: true };
            assert!(team.core.settle(queued.id, &viewer, true).unwrap_err().contains("read-only"));
            assert!(team.core.settle(999, &Identity { user: "alice".into(), read_only: false }, true).is_err());
            let commits = team.core.store().log.len();
            let out = team.core.settle(queued.id, &Identity { user: "alice".into(), read_only: false }, take_edit).unwrap();
            assert!(team.core.queue().is_empty());
            if take_edit {
                let now = team.core.store().head("level.json").unwrap().unwrap().1;
                let now = String::from_utf8(now).unwrap();
                assert!(now.contains("\"x\": 30") && now.contains("\"x\": 20"), "bob's side is taken: {now}");
                assert_eq!(team.core.store().log.last().unwrap().1, "alice", "committed by whoever settled it");
                assert_eq!(out.iter().map(|o| o.to).collect::<Vec<_>>(), [1, 2, 3], "everyone gets the new head");
            } else {
                assert!(out.is_empty());
                assert_eq!(team.core.store().log.len(), commits, "keeping the shared version changes nothing");
            }
        }
    }

    #[test]
    fn an_edit_sent_as_a_splice_is_a_publish_of_the_whole_file() {
        let mut team = hub(Policy::SharedWins);
        let first = team.publish(1, None, LEVEL);
        let rev0 = team.head_of(&first, 1).unwrap().rev;
        team.publish(1, Some(&rev0), &LEVEL.replace("\"x\": 1", "\"x\": 10"));
        let bob = LEVEL.replace("\"x\": 2", "\"x\": 20");
        let (at, remove, insert) = crate::protocol::splice_between(LEVEL, &bob);
        let edit = ClientMessage::Edit { path: "level.json".into(), base: rev0.clone(), at, remove, insert: insert.into() };
        team.core.handle(2, edit);
        let head = String::from_utf8(team.core.store().head("level.json").unwrap().unwrap().1).unwrap();
        assert_eq!(head, LEVEL.replace("\"x\": 1", "\"x\": 10").replace("\"x\": 2", "\"x\": 20"));
        let misfit = ClientMessage::Edit { path: "level.json".into(), base: rev0, at: 10_000, remove: 1, insert: String::new() };
        let (out, _) = team.core.handle(2, misfit);
        assert!(matches!(&out[0].message, HubMessage::Refused { reason, .. } if reason.contains("does not fit")), "{out:?}");
    }

    #[test]
    fn a_user_s_own_earlier_edit_never_overrules_their_later_one() {
        let mut team = hub(Policy::SharedWins);
        let first = team.publish(1, None, LEVEL);
        let rev0 = team.head_of(&first, 1).unwrap().rev;
        team.publish(1, Some(&rev0), &LEVEL.replace("\"x\": 1", "\"x\": 176"));
        team.publish(2, Some(&rev0), &LEVEL.replace("\"x\": 2", "\"x\": 20"));
        // Alice's agent never took in its own head (the file changed meanwhile): it still
        // names rev0, with a newer value of the same property.
        let out = team.publish(1, Some(&rev0), &LEVEL.replace("\"x\": 1", "\"x\": 180"));
        let head = team.head_of(&out, 1).unwrap();
        assert!(head.content.contains("\"x\": 180") && head.content.contains("\"x\": 20"), "{}", head.content);
        assert!(!out.iter().any(|o| matches!(o.message, HubMessage::Overruled { .. })), "{out:?}");
    }

    #[test]
    fn broken_saves_read_only_peers_and_strangers_change_nothing() {
        let mut team = hub(Policy::SharedWins);
        let first = team.publish(1, None, LEVEL);
        let rev0 = team.head_of(&first, 1).unwrap().rev;
        let truncated = &LEVEL[..LEVEL.len() / 2];
        let out = team.publish(1, Some(&rev0), truncated);
        assert!(matches!(&out[..], [Outgoing { to: 1, message: HubMessage::Refused { .. } }]), "{out:?}");
        let out = team.publish(3, Some(&rev0), &LEVEL.replace("1", "5"));
        assert!(matches!(&out[0].message, HubMessage::Refused { reason, .. } if reason.contains("read-only")));
        // Also when the edit has to be merged (the head moved on since its base).
        team.publish(2, Some(&rev0), &LEVEL.replace("\"x\": 2", "\"x\": 20"));
        let out = team.publish(1, Some(&rev0), truncated);
        assert!(
            matches!(&out[..], [Outgoing { to: 1, message: HubMessage::Refused { reason, .. } }] if reason.contains("not a sound level")),
            "{out:?}"
        );
        let out = team.publish(1, Some("999"), LEVEL);
        assert!(matches!(&out[0].message, HubMessage::Refused { reason, .. } if reason.contains("unknown")));
        let (out, next) = team.core.handle(9, ClientMessage::Presence { editing: Vec::new() });
        assert_eq!((next, out.len()), (Next::Close, 1), "no hello, no service");
        let hello = ClientMessage::Hello { version: VERSION, token: "x".into(), paths: vec!["../etc/passwd".into()] };
        assert_eq!(team.core.hello(10, Some(Identity { user: "eve".into(), read_only: false }), hello).1, Next::Close);
        let hello = ClientMessage::Hello { version: VERSION, token: "x".into(), paths: vec![] };
        assert_eq!(team.core.hello(11, None, hello).1, Next::Close);
        let message = ClientMessage::Publish { path: ".git/config".into(), base: None, content: LEVEL.into() };
        assert!(matches!(&team.core.handle(1, message).0[0].message, HubMessage::Refused { .. }));
        assert_eq!(team.core.store().log.len(), 2, "only the first publish and bob's edit were committed");
    }

    #[test]
    fn presence_reaches_the_others_and_is_cleared_when_a_peer_leaves() {
        let mut team = hub(Policy::SharedWins);
        let editing = vec![Editing { path: "level.json".into(), object: "Level/Door [GameObject]".into() }];
        let (out, _) = team.core.handle(1, ClientMessage::Presence { editing: editing.clone() });
        let to: Vec<PeerId> = out.iter().map(|o| o.to).collect();
        assert_eq!(to, [2, 3]);
        assert_eq!(out[0].message, HubMessage::Presence { user: "alice".into(), editing: editing.clone() });
        assert_eq!(team.core.presence()["alice"], editing);
        let out = team.core.leave(1);
        assert!(out.iter().all(|o| o.message == HubMessage::Presence { user: "alice".into(), editing: vec![] }));
        assert_eq!(team.core.users(), ["bob", "viewer"]);
        assert!(team.core.presence().is_empty());
    }

    #[test]
    fn presence_expires_when_a_peer_goes_silent() {
        let mut team = hub(Policy::SharedWins);
        let editing = vec![Editing { path: "level.json".into(), object: "Level/Door [GameObject]".into() }];
        team.core.handle(2, ClientMessage::Presence { editing });
        let out = team.core.silent(2);
        let to: Vec<PeerId> = out.iter().map(|o| o.to).collect();
        assert_eq!(to, [1, 3], "the others hear bob stopped");
        assert!(out.iter().all(|o| o.message == HubMessage::Presence { user: "bob".into(), editing: vec![] }));
        assert!(team.core.presence().is_empty());
        assert!(team.core.silent(2).is_empty(), "told once");
        assert_eq!(team.core.users(), ["alice", "bob", "viewer"], "still connected");
    }
}
