//! levelmerge-core: the format-agnostic heart of levelmerge.
//!
//! A level is a graph of objects with stable ids ([`model`]). This crate diffs ([`diff`]) and
//! 3-way merges ([`merge`](mod@merge)) levels, keeps conflicts as data ([`conflict`]), settles them by
//! policy ([`policy`]), checks coherence ([`coherence`]), and falls back to line merging
//! ([`text`]). File formats plug in through the [`codec::Codec`] trait.
//!
//! Architecture invariant: this crate does no I/O and knows no file format.
#![forbid(unsafe_code)]
#![warn(clippy::print_stdout, clippy::print_stderr)]

pub mod codec;
pub mod coherence;
pub mod conflict;
mod cycles;
pub mod diff;
pub mod diff3;
pub mod fuzzing;
pub mod inspect;
mod kept_members;
pub mod merge;
pub mod model;
pub mod order;
pub mod outline;
pub mod policy;
pub mod regions;
pub mod resolve;
pub mod sequence_diff;
pub mod side;
mod splice;
pub mod text;
pub mod text_merge;

pub use codec::{Codec, ConflictReport, MergeError, MergeOutcome, Renumbered};
pub use coherence::Problem;
pub use inspect::{check_text, diff_texts};
pub use merge::{merge, ConcurrentInsertions, MergedLevel, Options};
pub use model::{Level, Lowered, Object, ObjectId, Origin, RefRole, Reference, Value, ValueKind};
pub use resolve::{RValue, Resolved};
pub use side::{Side, Sides};
pub use splice::merge_disjoint_parts;
pub use text_merge::{merge_objects, merge_texts};
