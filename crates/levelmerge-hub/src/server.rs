//! The hub server: WebSocket connections (axum) around the state machine of `core`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use futures_util::{SinkExt, StreamExt};
use tokio::sync::mpsc;

use crate::auth::Tokens;
use crate::core::{Core, Event, Merger, Next, Outgoing, PeerId, Policy};
use crate::protocol::{ClientMessage, HubMessage, MAX_MESSAGE_BYTES};
use crate::store::{GitStore, Store};

/// How long a new connection may take to say hello.
const HELLO_WITHIN: Duration = Duration::from_secs(10);

/// A peer silent this long (agents send presence at least every 10 s) edits nothing any more.
const QUIET_AFTER: Duration = Duration::from_secs(30);

pub struct HubOptions {
    pub repo: PathBuf,
    pub listen: SocketAddr,
    pub policy: Policy,
    /// Messages a connection may send per second before it is closed.
    pub max_rate: u32,
}

struct Shared<M> {
    core: Mutex<Core<GitStore, M>>,
    peers: Mutex<HashMap<PeerId, mpsc::UnboundedSender<HubMessage>>>,
    next_peer: AtomicU64,
    repo: PathBuf,
    max_rate: u32,
    log: Box<dyn Fn(String) + Send + Sync>,
}

/// Serves until the process ends. `ready` receives the address listened on (useful with port 0).
pub async fn serve<M: Merger + 'static>(
    options: HubOptions,
    merger: M,
    ready: Option<tokio::sync::oneshot::Sender<SocketAddr>>,
    log: Box<dyn Fn(String) + Send + Sync>,
) -> Result<(), String> {
    let store = GitStore::open(&options.repo)?;
    Tokens::load(&options.repo)?;
    let shared = Arc::new(Shared {
        core: Mutex::new(Core::new(store, merger, options.policy)),
        peers: Mutex::new(HashMap::new()),
        next_peer: AtomicU64::new(1),
        repo: options.repo.clone(),
        max_rate: options.max_rate,
        log,
    });
    let app = Router::new()
        .route("/ws", get(upgrade::<M>))
        .route("/", get(dashboard))
        .route("/api/files", get(files::<M>))
        .route("/api/objects", get(objects::<M>))
        .route("/api/presence", get(presence::<M>))
        .route("/api/history", get(history::<M>))
        .route("/api/conflicts", get(conflicts::<M>))
        .route("/api/conflicts/settle", post(settle::<M>))
        .with_state(shared.clone());
    let listener = tokio::net::TcpListener::bind(options.listen).await.map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    (shared.log)(format!("hub: serving {} on ws://{address}/ws", options.repo.display()));
    if let Some(ready) = ready {
        let _ = ready.send(address);
    }
    axum::serve(listener, app).await.map_err(|e| format!("the hub stopped: {e}"))
}

/// The dashboard: one page, no network beyond this hub.
async fn dashboard() -> axum::response::Html<&'static str> {
    axum::response::Html(include_str!("../assets/dashboard.html"))
}

#[derive(serde::Deserialize)]
struct FileQuery {
    path: String,
    /// Only commits that changed an object whose name contains this.
    object: Option<String>,
}

type ApiResult = Result<axum::Json<serde_json::Value>, (axum::http::StatusCode, String)>;

impl<M: Merger> Shared<M> {
    /// The dashboard's API takes the same tokens as the agents, as `Authorization: Bearer`.
    fn authorized(&self, headers: &axum::http::HeaderMap) -> Result<crate::auth::Identity, (axum::http::StatusCode, String)> {
        let token = headers.get(axum::http::header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
        let known = token.and_then(|t| Tokens::load(&self.repo).ok()?.identify(t));
        known.ok_or((axum::http::StatusCode::UNAUTHORIZED, "a valid token is needed".to_owned()))
    }

    /// A request about one file: authorized, and for a path the hub may hold.
    fn file_request(&self, headers: &axum::http::HeaderMap, q: &FileQuery) -> Result<(), (axum::http::StatusCode, String)> {
        self.authorized(headers)?;
        crate::protocol::check_path(&q.path).map_err(|e| (axum::http::StatusCode::BAD_REQUEST, e))
    }

    /// Runs `read` on the core off the async workers; an error is a bad request.
    fn read(&self, read: impl FnOnce(&Core<GitStore, M>) -> Result<serde_json::Value, String>) -> ApiResult {
        tokio::task::block_in_place(|| read(&self.core.lock().expect("no panic holds the core")))
            .map(axum::Json)
            .map_err(|e| (axum::http::StatusCode::BAD_REQUEST, e))
    }
}

async fn files<M: Merger + 'static>(State(shared): State<Arc<Shared<M>>>, headers: axum::http::HeaderMap) -> ApiResult {
    let who = shared.authorized(&headers)?;
    shared.read(|core| Ok(serde_json::json!({ "files": core.store().files()?, "user": who.user, "read_only": who.read_only })))
}

async fn presence<M: Merger + 'static>(State(shared): State<Arc<Shared<M>>>, headers: axum::http::HeaderMap) -> ApiResult {
    shared.authorized(&headers)?;
    shared.read(|core| Ok(serde_json::json!({ "presence": core.presence() })))
}

async fn conflicts<M: Merger + 'static>(State(shared): State<Arc<Shared<M>>>, headers: axum::http::HeaderMap) -> ApiResult {
    shared.authorized(&headers)?;
    shared.read(|core| Ok(serde_json::json!({ "conflicts": core.queue() })))
}

#[derive(serde::Deserialize)]
struct Settle {
    id: u64,
    /// `edit` (the queued edit's side) or `shared` (the version the hub kept).
    take: String,
}

/// Settles a queued conflict (manual policy); the new head goes to every agent.
async fn settle<M: Merger + 'static>(
    State(shared): State<Arc<Shared<M>>>,
    headers: axum::http::HeaderMap,
    axum::Json(request): axum::Json<Settle>,
) -> ApiResult {
    let who = shared.authorized(&headers)?;
    let take_edit = match request.take.as_str() {
        "edit" => true,
        "shared" => false,
        other => return Err((axum::http::StatusCode::BAD_REQUEST, format!("take must be edit or shared, not {other:?}"))),
    };
    let mut outcome = Ok(());
    shared.step(|core| match core.settle(request.id, &who, take_edit) {
        Ok(out) => (out, Next::Continue),
        Err(e) => {
            outcome = Err(e);
            (Vec::new(), Next::Continue)
        }
    });
    let status = if who.read_only { axum::http::StatusCode::FORBIDDEN } else { axum::http::StatusCode::BAD_REQUEST };
    outcome.map(|()| axum::Json(serde_json::json!({ "settled": request.id }))).map_err(|e| (status, e))
}

async fn objects<M: Merger + 'static>(
    State(shared): State<Arc<Shared<M>>>,
    headers: axum::http::HeaderMap,
    axum::extract::Query(q): axum::extract::Query<FileQuery>,
) -> ApiResult {
    shared.file_request(&headers, &q)?;
    shared.read(|core| {
        let Some((rev, content)) = core.store().head(&q.path)? else { return Err(format!("{} is not in the hub", q.path)) };
        let objects: Vec<_> = core
            .merger()
            .objects(&q.path, &content)?
            .into_iter()
            .map(|(path, kind)| serde_json::json!({ "path": path, "kind": kind }))
            .collect();
        Ok(serde_json::json!({ "rev": rev, "objects": objects }))
    })
}

async fn history<M: Merger + 'static>(
    State(shared): State<Arc<Shared<M>>>,
    headers: axum::http::HeaderMap,
    axum::extract::Query(q): axum::extract::Query<FileQuery>,
) -> ApiResult {
    shared.file_request(&headers, &q)?;
    shared.read(|core| {
        let store = core.store();
        let mut commits = Vec::new();
        for c in store.history(&q.path, 50)? {
            let new = store.at(&c.rev, &q.path)?.unwrap_or_default();
            let old = match &c.parent {
                Some(p) => store.at(p, &q.path)?.unwrap_or_default(),
                None => Vec::new(),
            };
            // The commit that added the file changed no object: it brought them all.
            let changed = if old.is_empty() { Vec::new() } else { core.merger().changed_objects(&q.path, &old, &new) };
            if q.object.as_deref().is_some_and(|o| !changed.iter().any(|c| c.contains(o))) {
                continue;
            }
            commits.push(serde_json::json!({ "rev": c.rev, "author": c.author, "date": c.date, "message": c.message, "objects": changed }));
        }
        Ok(serde_json::json!({ "commits": commits }))
    })
}

async fn upgrade<M: Merger + 'static>(State(shared): State<Arc<Shared<M>>>, ws: WebSocketUpgrade) -> Response {
    ws.max_message_size(MAX_MESSAGE_BYTES).max_frame_size(MAX_MESSAGE_BYTES).on_upgrade(move |socket| connection(shared, socket))
}

impl<M: Merger> Shared<M> {
    /// Runs `step` on the core (git work included, off the async workers), sends what it
    /// says to whom, and logs what happened.
    fn step(&self, step: impl FnOnce(&mut Core<GitStore, M>) -> (Vec<Outgoing>, Next)) -> Next {
        let (out, next, events) = tokio::task::block_in_place(|| {
            let mut core = self.core.lock().expect("no panic holds the core");
            let (out, next) = step(&mut core);
            (out, next, std::mem::take(&mut core.events))
        });
        let peers = self.peers.lock().expect("no panic holds the peers");
        for o in out {
            if let Some(tx) = peers.get(&o.to) {
                let _ = tx.send(o.message);
            }
        }
        for e in events {
            (self.log)(describe(&e));
        }
        next
    }
}

fn describe(event: &Event) -> String {
    match event {
        Event::Joined { user } => format!("hub: {user} joined"),
        Event::Left { user } => format!("hub: {user} left"),
        Event::Committed { user, path, rev, merged, settled } => {
            let how = match (merged, settled) {
                (false, _) => String::new(),
                (true, 0) => " (merged)".to_owned(),
                (true, n) => format!(" (merged, {n} conflict(s) settled by the policy)"),
            };
            format!("hub: {user} changed {path} → {}{how}", &rev[..rev.len().min(10)])
        }
        Event::Refused { user, path, reason } => format!("hub: refused {user}'s {path}: {reason}"),
        Event::Queued { user, path, conflicts } => format!("hub: {conflicts} conflict(s) of {user}'s {path} wait to be settled"),
        Event::Settled { by, user, path, took_edit } => {
            format!(
                "hub: {by} settled {user}'s conflict in {path}: {}",
                if *took_edit { "took the edit" } else { "kept the shared version" }
            )
        }
    }
}

async fn connection<M: Merger + 'static>(shared: Arc<Shared<M>>, socket: WebSocket) {
    let peer = shared.next_peer.fetch_add(1, Ordering::Relaxed);
    let (mut sink, mut stream) = socket.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<HubMessage>();
    shared.peers.lock().expect("no panic holds the peers").insert(peer, tx);
    let writer = tokio::spawn(async move {
        while let Some(message) = rx.recv().await {
            let close = matches!(message, HubMessage::Error { .. });
            let text = serde_json::to_string(&message).expect("messages serialize");
            if sink.send(Message::Text(text.into())).await.is_err() {
                break;
            }
            if close {
                let _ = sink.send(Message::Close(None)).await;
                break;
            }
        }
    });
    let said_hello = serve_peer(&shared, peer, &mut stream).await;
    if said_hello {
        shared.step(|core| (core.leave(peer), Next::Continue));
    }
    // Dropping the sender ends the writer once it has sent what is queued.
    shared.peers.lock().expect("no panic holds the peers").remove(&peer);
    let _ = writer.await;
}

/// Reads a peer's messages until it leaves or is closed; whether it got past hello.
async fn serve_peer<M: Merger>(shared: &Shared<M>, peer: PeerId, stream: &mut futures_util::stream::SplitStream<WebSocket>) -> bool {
    let refuse = |reason: &str| {
        shared.step(|_| (vec![Outgoing { to: peer, message: HubMessage::Error { reason: reason.to_owned() } }], Next::Close));
    };
    let first = match tokio::time::timeout(HELLO_WITHIN, next_message(stream)).await {
        Ok(Some(Ok(m))) => m,
        Ok(Some(Err(e))) => {
            refuse(&e);
            return false;
        }
        Ok(None) => return false,
        Err(_) => {
            refuse("no hello in time");
            return false;
        }
    };
    let identity = match &first {
        ClientMessage::Hello { token, .. } => match Tokens::load(&shared.repo) {
            Ok(tokens) => tokens.identify(token),
            Err(e) => {
                (shared.log)(format!("hub: {e}"));
                None
            }
        },
        _ => None,
    };
    if shared.step(|core| core.hello(peer, identity, first)) == Next::Close {
        return false;
    }
    let (mut window, mut count) = (Instant::now(), 0u32);
    loop {
        let message = match tokio::time::timeout(QUIET_AFTER, next_message(stream)).await {
            Ok(Some(message)) => message,
            Ok(None) => break,
            Err(_) => {
                shared.step(|core| (core.silent(peer), Next::Continue));
                continue;
            }
        };
        if window.elapsed() >= Duration::from_secs(1) {
            (window, count) = (Instant::now(), 0);
        }
        count += 1;
        if count > shared.max_rate {
            refuse(&format!("more than {} messages a second", shared.max_rate));
            return true;
        }
        match message {
            Ok(m) => {
                if shared.step(|core| core.handle(peer, m)) == Next::Close {
                    return true;
                }
            }
            // A malformed message is answered and ignored: the session goes on.
            Err(e) => {
                shared.step(|_| {
                    (vec![Outgoing { to: peer, message: HubMessage::Refused { path: String::new(), reason: e } }], Next::Continue)
                });
            }
        }
    }
    true
}

/// The next protocol message, an error text for one that is not, None when the peer is gone.
async fn next_message(stream: &mut futures_util::stream::SplitStream<WebSocket>) -> Option<Result<ClientMessage, String>> {
    loop {
        match stream.next().await? {
            Ok(Message::Text(text)) => {
                return Some(serde_json::from_str(text.as_str()).map_err(|e| format!("not a levelmerge message: {e}")));
            }
            Ok(Message::Binary(_)) => return Some(Err("binary frames are not part of the protocol".into())),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => continue,
        }
    }
}
