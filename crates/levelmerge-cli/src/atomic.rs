//! Atomic file writes: a temporary file beside the target, written whole, then renamed over it,
//! so a reader sees the old file or the new one and never a half-written one, whether levelmerge
//! is killed or the disk fills up midway.
//!
//! The data is not forced to disk (no fsync), as git does not force the work-tree files it
//! writes: that cost 0.6–2 ms a merge, most of a small merge's time. ext4 and btrfs write a
//! file's data before a rename that replaces another lands, so a power cut keeps one of the two;
//! elsewhere it can lose a just-merged file as it can a file git has just checked out.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".levelmerge-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .with_context(|| format!("cannot write {}: cannot create a temporary file in {}", path.display(), dir.display()))?;
    tmp.write_all(bytes).with_context(|| format!("cannot write {}", path.display()))?;
    // Keep the permissions of the file being replaced (git checks out some files executable).
    // A new file gets a plain file's permissions (temporary files are private).
    match std::fs::metadata(path) {
        Ok(meta) => {
            let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
        }
        Err(_) => new_file_permissions(tmp.path()),
    }
    tmp.persist(path).map_err(|e| e.error).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

#[cfg(unix)]
fn new_file_permissions(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644));
}

#[cfg(not(unix))]
fn new_file_permissions(_: &Path) {}
