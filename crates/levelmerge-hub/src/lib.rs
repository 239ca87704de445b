//! levelmerge's live collaboration.
//!
//! * [`protocol`]: the versioned messages between hub and agents (`docs/protocol.md`).
//! * [`core`]: the hub's state machine, without I/O: merges each publish into the head with
//!   the team policy, commits it, and says what to send to whom.
//! * [`store`]: the git repository the hub commits to (and an in-memory one for tests).
//! * [`auth`]: access tokens, stored hashed.
//! * [`server`]: the hub's WebSocket server around `core`.
//! * [`agent`]: the sync agent of a working copy.

pub mod agent;
pub mod auth;
pub mod core;
pub mod protocol;
pub mod server;
pub mod store;
