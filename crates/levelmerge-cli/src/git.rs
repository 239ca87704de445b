//! Running git where a command reads a repository's state (its file list, its unmerged files).

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

/// git's standard output for `args`, run in `dir`; an error naming the command where it fails.
pub fn git_in(dir: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().context("cannot run git (is it installed and on PATH?)")?;
    if !out.status.success() {
        bail!("git {} failed in {}: {}", args.join(" "), dir.display(), String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(out.stdout)
}

/// The fields of git's `-z` output.
pub fn nul_separated(bytes: &[u8]) -> Vec<String> {
    bytes.split(|&b| b == 0).filter(|s| !s.is_empty()).map(|s| String::from_utf8_lossy(s).into_owned()).collect()
}

/// The versions git holds of a file whose merge it stopped on (its index stages: base where
/// there is one, ours, theirs); none where the file is not unmerged in a git work tree, or git
/// cannot tell.
pub fn unmerged_versions(file: &Path) -> Vec<Vec<u8>> {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else { return Vec::new() };
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    let Some(name) = name.to_str() else { return Vec::new() };
    let Ok(listed) = git_in(dir, &["ls-files", "-z", "--unmerged", "--", name]) else { return Vec::new() };
    // Each entry: `<mode> <object> <stage>\t<path>`.
    let objects = nul_separated(&listed).into_iter().filter_map(|entry| Some(entry.split_once('\t')?.0.split(' ').nth(1)?.to_owned()));
    objects.filter_map(|object| git_in(dir, &["cat-file", "blob", &object]).ok()).collect()
}
