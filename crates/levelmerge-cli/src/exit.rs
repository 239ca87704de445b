//! Exit codes, as git's merge-driver protocol reads them.

/// Merged cleanly (or, for `diff`/`check`: nothing to report).
pub const CLEAN: u8 = 0;
/// Conflicts remain in the written file (`diff`: the files differ; `check`: problems found).
pub const CONFLICTS: u8 = 1;
/// Could not run: unreadable input, bad arguments, unwritable output. Nothing was written.
pub const FAILED: u8 = 2;
