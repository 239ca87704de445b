//! levelmerge's live collaboration.
//!
//! * [`protocol`]: the versioned messages between hub and agents (`docs/protocol.md`).
//! * [`core`]: the hub's state machine, without I/O: merges each publish into the head with
//!   the team policy, commits it, and says what to send to whom.
//! * [`store`]: the git repository the hub commits to (and an in-memory one for tests).
//! * [`auth`]: access tokens, stored hashed.

pub mod auth;
pub mod core;
pub mod protocol;
pub mod store;
