//! Test helpers shared by the levelmerge crates (never published).
//!
//! * [`corpus`]: where the real merge corpus is, or a skip (a failure under CI).
//! * [`edits`]: number edits of real files whose merge is known without the merge: edits of
//!   different lines both land, one number changed two ways is never settled in silence.
//! * [`gen`]: generated JSON levels, edits on them, and the styles they are written in.
//! * [`unity`]: bigger Unity scenes replicated from real ones, and edits of their fields.
//! * [`godot`]: generated Godot scenes of any size, and edits of their properties.
//! * [`fuzz`]: replaying fuzz findings, and damaged samples, for robustness tests.
//! * [`laws`]: the merge laws on one generated triple, an independent check of a clean result,
//!   and the side views of a text with conflict markers, for the tests of every codec.
//! * [`browser`]: headless Chromium for the HTML report tests (a skip without it, a failure under CI).
//! * [`terminal`]: a real terminal (tmux) for the interactive resolver's tests.
//! * [`bench`](mod@bench): timing and peak memory of a command, for the benchmarks.

pub mod bench;
pub mod browser;
pub mod corpus;
pub mod edits;
pub mod fuzz;
pub mod gen;
pub mod godot;
pub mod laws;
pub mod terminal;
pub mod unity;
