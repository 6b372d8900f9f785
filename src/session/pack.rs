//! The Memory pack's project memory, `.agents/memory/`: where its files live, the create-only
//! writer every session command uses, and the small readers they share.
//!
//! The promise of the pack is that nothing a person wrote is ever overwritten. [`create_only`]
//! keeps it at the file-system level: the new file is written and synced under a temporary name,
//! then hard-linked to its final name, which fails when that name exists — so an existing file
//! is never replaced, even by a racing writer, and a reader never sees half a file. The
//! temporary file is removed on every path. While it exists, the folder is held shared
//! ([`temporaries::hold_for_temporaries`]) so that a sweep of dead writers' temporary files
//! ([`temporaries::sweep_temporaries`]) never takes it for one; the session commands sweep the folders
//! they write into before writing.
//!
//! This module never rewrites or deletes a file that exists, and knows nothing of brains.

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::UNIX_EPOCH;

use rustix::io::Errno;

use crate::context::Now;
use crate::error::{Error, Result};
use crate::js::date;
use crate::js::json::Value;
use crate::js::text::trim;
use crate::store::confined::{self, Dir};
use crate::store::layout::{CONTEXT_FILE, NOTE_FILES, PACK_DIR, SESSIONS_DIR};
use crate::store::temporaries;

/// `rel` under [`PACK_DIR`], project-relative.
#[must_use]
pub(crate) fn memory_path(rel: &str) -> String {
    format!("{PACK_DIR}/{rel}")
}

/// Writes `bytes` as `path` unless `path` exists: `Ok(true)` when created, `Ok(false)` when
/// something (a file, a folder, a link) already holds the name. Atomic and never clobbering.
/// For files outside the project (the global brain, an export): the folder is opened once,
/// following links, and the look, the temporary file, the link and the removal all happen
/// through that handle.
///
/// # Errors
/// Any I/O failure other than "the name exists".
pub(crate) fn create_only(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    let Some(name) = path.file_name() else {
        // `/` or a path ending in `..`: a folder already holds the name.
        return Ok(false);
    };
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    create_only_in(&Dir::open_plain(parent)?, name, bytes)
}

/// [`create_only`] of `name` in the folder `dir` is a handle on.
///
/// # Errors
/// Any I/O failure other than "the name exists".
pub(crate) fn create_only_in(dir: &Dir, name: &OsStr, bytes: &[u8]) -> io::Result<bool> {
    create_in(dir, name, bytes).map_err(into_io)
}

/// The I/O error inside `e` (the writers in [`create_in`] only fail with those).
fn into_io(e: Error) -> io::Error {
    match e {
        Error::Io { source, .. } => source,
        e => io::Error::other(e.to_string()),
    }
}

/// [`create_only`] of `name` in the folder `dir`.
fn create_in(dir: &Dir, name: &OsStr, bytes: &[u8]) -> Result<bool> {
    let path = dir.path().join(name);
    if matches!(dir.lstat(name), Ok(Some(_))) {
        return Ok(false);
    }
    // Held while the temporary file exists, so that a sweep (which needs the folder to itself)
    // never takes it for a dead writer's.
    let _held = temporaries::hold_for_temporaries(dir);
    let tmp = dir.write_temp(name, bytes)?;
    let linked = match dir.hard_link(&tmp, name) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        // A file system without hard links: an exclusive create still never clobbers.
        Err(e) if is_unsupported(&e) => match dir.create_new(name) {
            Ok(Some(mut file)) => file
                .write_all(bytes)
                .and_then(|()| file.sync_all())
                .map(|()| true)
                .map_err(|e| Error::io("cannot create", &path, e)),
            Ok(None) => Ok(false),
            Err(e) => Err(e),
        },
        Err(e) => Err(Error::io("cannot create", &path, e)),
    };
    let _ = dir.remove(&tmp);
    linked
}

/// `EPERM`/`ENOTSUP`/`EXDEV` from `link(2)`: the file system cannot hard-link. `EPERM` goes by
/// number: its kind, `PermissionDenied`, also covers `EACCES`, which is a real refusal.
fn is_unsupported(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::Unsupported | io::ErrorKind::CrossesDevices
    ) || e.raw_os_error() == Some(Errno::PERM.raw_os_error())
}

/// Creates the project-relative folder `rel` and its missing parents inside the project:
/// `Ok(true)` when it had to be created. Confined (docs §3.1): each folder is opened or made
/// relative to its parent's handle, never through a link.
///
/// # Errors
/// Confinement errors, or an I/O error naming the folder.
pub(crate) fn ensure_project_dir(root: &Path, rel: &str) -> Result<bool> {
    match confined::open_dir(root, rel, true)? {
        Some((_, created)) => Ok(created),
        // Removed again by someone else between its creation and its opening.
        None => Err(Error::io(
            "cannot create",
            &root.join(rel),
            io::ErrorKind::NotFound.into(),
        )),
    }
}

/// [`temporaries::sweep_temporaries`] in a folder outside the project (the user's own), opened once
/// following links; a folder that cannot be opened is left alone.
pub(crate) fn sweep_plain_folder(dir: &Path, is_ours: impl Fn(&str) -> bool) {
    if let Ok(folder) = Dir::open_plain(dir) {
        temporaries::sweep_temporaries(&folder, is_ours);
    }
}

/// The stems of the files the session commands create in [`PACK_DIR`].
#[must_use]
pub(crate) fn is_memory_stem(stem: &str) -> bool {
    stem == CONTEXT_FILE || stem == ".brain-link" || NOTE_FILES.contains(&stem)
}

/// The stems of the files `handoff` creates in [`SESSIONS_DIR`].
#[must_use]
pub(crate) fn is_session_stem(stem: &str) -> bool {
    Path::new(stem).extension().is_some_and(|e| e == "md")
}

/// Sweeps the project's [`PACK_DIR`] and [`SESSIONS_DIR`], each through a handle opened from
/// the root without following links.
pub(crate) fn sweep_project_memory(root: &Path) {
    for (rel, is_ours) in [
        (PACK_DIR, is_memory_stem as fn(&str) -> bool),
        (SESSIONS_DIR, is_session_stem),
    ] {
        if let Ok(Some((dir, _))) = confined::open_dir(root, rel, false) {
            temporaries::sweep_temporaries(&dir, is_ours);
        }
    }
}

/// Creates the project file `rel` with `text` unless it exists (see [`create_only`]), relative
/// to a handle on its folder opened from the root without following links.
///
/// # Errors
/// Confinement errors, or an I/O error naming the file.
pub(crate) fn create_project_file(root: &Path, rel: &str, text: &str) -> Result<bool> {
    let target = confined::locate(root, rel, false)?;
    let dir = target.require_dir("cannot create")?;
    if dir
        .lstat(target.name())
        .map_err(|e| Error::io("cannot create", target.path(), e))?
        .is_some()
    {
        return Ok(false);
    }
    create_in(dir, target.name(), text.as_bytes())
}

/// The `YYYY-MM-DD` part of an instant, as the files date things.
#[must_use]
pub(crate) fn day(now: &Now) -> &str {
    now.iso.split('T').next().unwrap_or(&now.iso)
}

/// A file's last modification, in `toISOString` form; `None` when unknown.
#[must_use]
pub(crate) fn modified(meta: &fs::Metadata) -> Option<String> {
    let ms = meta
        .modified()
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()?
        .as_millis();
    #[expect(
        clippy::cast_precision_loss,
        reason = "epoch milliseconds fit a double exactly"
    )]
    let ms = ms as f64;
    (ms <= 8.64e15).then(|| date::to_iso_string(ms))
}

/// A count as a JSON number.
#[must_use]
pub(crate) fn count(n: usize) -> Value {
    Value::from(u32::try_from(n).unwrap_or(u32::MAX))
}

/// A quoted YAML scalar: JSON string syntax, which YAML reads as a double-quoted string.
#[must_use]
pub(crate) fn yaml_string(text: &str) -> String {
    Value::from(text).compact()
}

/// `text` without a leading YAML front matter block (`---` … `---`).
#[must_use]
pub(crate) fn strip_front_matter(text: &str) -> &str {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return text;
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        offset += line.len();
        if line.trim_end() == "---" {
            return &rest[offset..];
        }
    }
    text
}

/// `text` without the lines that hold only an HTML comment (the templates' prompts), runs of
/// blank lines made one, trimmed.
#[must_use]
pub(crate) fn without_prompts(text: &str) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for line in text.lines() {
        let t = trim(line);
        if t.starts_with("<!--") && t.ends_with("-->") {
            continue;
        }
        if t.is_empty() && kept.last().is_some_and(|l| trim(l).is_empty()) {
            continue;
        }
        kept.push(line);
    }
    trim(&kept.join("\n")).to_owned()
}

/// What `git -C dir <args>` prints, run with no input, its errors discarded and the caller's
/// `GIT_DIR`/`GIT_WORK_TREE` unset (so `dir` alone names the repository); `None` when git is
/// missing or fails.
pub(crate) fn git_stdout<I, S>(dir: &Path, args: I) -> Option<Vec<u8>>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(output.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_only_never_replaces_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("decisions.md");
        assert!(create_only(&path, b"first").unwrap());
        assert!(!create_only(&path, b"second").unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"first");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), dir.path().join("link")).unwrap();
        assert!(!create_only(&dir.path().join("link"), b"x").unwrap());
        assert!(!dir.path().join("nowhere").exists());
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 2);
    }

    #[test]
    fn front_matter_and_prompts() {
        assert_eq!(strip_front_matter("---\na: 1\n---\n# T\n"), "# T\n");
        assert_eq!(strip_front_matter("---\na: 1\n"), "---\na: 1\n");
        assert_eq!(strip_front_matter("# T\n---\n"), "# T\n---\n");
        assert_eq!(
            without_prompts("## A\n\n<!-- fill -->\n\n## B\n  <!-- x -->  \ntext\n"),
            "## A\n\n## B\ntext"
        );
    }

    #[test]
    fn yaml_strings_are_json_strings() {
        assert_eq!(yaml_string("a \"b\"\\"), "\"a \\\"b\\\"\\\\\"");
    }
}
