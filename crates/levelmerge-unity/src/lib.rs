//! levelmerge-unity: Unity's text serialization (`.unity`, `.prefab`, `.asset`, …).
//!
//! * [`parse`]: a hand-written, zero-copy, lossless parser for Unity's YAML subset: the
//!   `%YAML`/`%TAG` preamble, one `--- !u!CLASS &FILEID [stripped]` document per object, block
//!   and flow mappings, sequences at their key's indent, plain and quoted scalars over several
//!   lines, CRLF, files without a header (`.meta`-like).
//!
//! Work in progress (issue 3): lowering to the level graph, Unity-aware merge rules and the
//! writer come next; until then the command line merges Unity files line by line.
#![forbid(unsafe_code)]

pub mod parse;

pub use parse::{parse, Span, UnityDoc, UnityFile, YEntry, YKind, YNode};
