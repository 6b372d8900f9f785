//! Rewriting a whole JSON document atomically (SPEC §3.5), and the path-based temporary-file
//! helpers the session commands use for files outside the registry (exports, brains).
//!
//! Pretty JSON plus `\n`, at most 2 MiB, written to `<file>.<uuid>.tmp` (created exclusively,
//! so a link planted there is never followed), synced, then renamed over the target: a reader
//! sees the old document or the new one, never half of either. The temporary file is removed
//! on failure.
//!
//! A writer killed between writing such a temporary file and moving it into place leaves it
//! behind. [`remove_dead_temporaries`] removes those, listing and removing through one handle on
//! the folder, once the caller knows their writers are dead: the registry writers while they hold the writer lock, the session commands through
//! [`sweep_temporaries`], which proves it with a `flock` of the folder — every bmad-mem writer
//! that puts a temporary file in a folder holds a shared lock of that folder, on the handle it
//! writes through ([`hold_for_temporaries`]) until the file is gone, so a sweeper that gets the exclusive lock
//! knows every temporary file there belongs to a process that died.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::Duration;

use rustix::fs::FileType;

use crate::error::{Error, Result};
use crate::js::json::Value;
use crate::store::WriterLock;
use crate::store::confined::{self, Dir};
use crate::store::paths::REGISTRY_CAP;

/// Writes `bytes` to a fresh `<file>.<uuid>.tmp` beside `path`, created exclusively (so a link
/// planted there is never followed) and synced; returns its path. The caller renames or links it
/// into place and removes it on failure.
///
/// # Errors
/// I/O errors; the temporary file is removed when writing it fails.
pub fn write_temp(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(".{}.tmp", uuid::Uuid::new_v4()));
    let tmp = path.with_file_name(tmp_name);
    let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    if let Err(e) = written {
        drop(file);
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(tmp)
}

/// Replaces `path` with `bytes` atomically: a reader sees the old content or the new, never
/// half of either.
///
/// # Errors
/// I/O errors; nothing is left behind on failure.
pub fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = write_temp(path, bytes)?;
    fs::rename(&tmp, path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })
}

/// How often, 10 ms apart, a writer tries to share a folder a sweeper holds.
const HOLD_TRIES: u32 = 100;

/// The stem of a temporary file name `<stem>.<uuid>.tmp`, as [`write_temp`] makes them.
#[must_use]
pub fn temporary_stem(name: &str) -> Option<&str> {
    let (stem, uuid) = name.strip_suffix(".tmp")?.rsplit_once('.')?;
    (!stem.is_empty() && uuid::Uuid::try_parse(uuid).is_ok()).then_some(stem)
}

/// Removes the regular files `<stem>.<uuid>.tmp` in `dir` whose stem `is_ours` accepts, listing,
/// inspecting and removing through that one handle (so a folder swapped for a link meanwhile
/// changes nothing). The caller knows that their writers are dead; a failure changes nothing
/// else.
pub fn remove_dead_temporaries(dir: &Dir, is_ours: impl Fn(&str) -> bool) {
    let Ok(names) = dir.names() else {
        return;
    };
    for name in names {
        let is_dead = name.to_str().and_then(temporary_stem).is_some_and(&is_ours);
        if is_dead && dir.lstat(&name).ok().flatten() == Some(FileType::RegularFile) {
            let _ = dir.remove(&name);
        }
    }
}

/// [`remove_dead_temporaries`] in `dir` when no live bmad-mem writer has a temporary file there
/// (the folder's exclusive `flock`, taken on the same handle, is free); otherwise nothing — a
/// later run sweeps.
pub fn sweep_temporaries(dir: &Dir, is_ours: impl Fn(&str) -> bool) {
    if dir.file().try_lock().is_ok() {
        remove_dead_temporaries(dir, is_ours);
        let _ = dir.file().unlock();
    }
}

/// A shared `flock` of a folder, held while this process has a temporary file there; released
/// when dropped.
#[derive(Debug)]
pub struct Held<'a>(&'a File);

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// A shared `flock` of `dir`, on its handle, held while this process has a temporary file there
/// so that no sweeper takes it for a dead writer's. `None` when a sweeper keeps the folder for
/// longer than about a second (or the lock fails): the write then goes ahead unheld.
#[must_use]
pub fn hold_for_temporaries(dir: &Dir) -> Option<Held<'_>> {
    let folder = dir.file();
    for _ in 0..HOLD_TRIES {
        match folder.try_lock_shared() {
            Ok(()) => return Some(Held(folder)),
            Err(TryLockError::WouldBlock) => thread::sleep(Duration::from_millis(10)),
            Err(TryLockError::Error(_)) => return None,
        }
    }
    None
}

/// Writes `value` as the document `rel` (SPEC §3.5): the temporary file is created and renamed
/// relative to one handle on the document's folder, opened from the root without following
/// links, so a link swapped in meanwhile is replaced, never written through.
///
/// # Errors
/// Confinement errors, `Memory store exceeds 2 MiB.`, I/O errors naming the file.
pub fn write(root: &Path, rel: &str, value: &Value, _lock: &WriterLock) -> Result<()> {
    let target = confined::locate(root, rel, false)?;
    let mut text = value.pretty();
    text.push('\n');
    if text.len() as u64 > REGISTRY_CAP {
        return Err(Error::DocumentTooLarge);
    }
    target
        .require_dir("cannot write")?
        .replace(target.name(), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::Object;

    #[test]
    fn writes_pretty_json_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let lock = WriterLock::acquire(root).unwrap();
        let value = Value::Object(Object::new().with("b", 1.5).with("a", Vec::new()));
        write(root, ".bmad/memory/doc.json", &value, &lock).unwrap();
        let memory = root.join(".bmad/memory");
        assert_eq!(
            fs::read_to_string(memory.join("doc.json")).unwrap(),
            "{\n  \"b\": 1.5,\n  \"a\": []\n}\n"
        );
        let mut names: Vec<_> = fs::read_dir(&memory)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["doc.json", "writer.lock"]);
    }

    #[test]
    fn temporary_names() {
        let uuid = "0c7f9a3e-1d2b-4c5d-8e9f-a0b1c2d3e4f5";
        assert_eq!(
            temporary_stem(&format!("context.md.{uuid}.tmp")),
            Some("context.md")
        );
        assert_eq!(
            temporary_stem(&format!(".brain-link.{uuid}.tmp")),
            Some(".brain-link")
        );
        for name in [
            format!("{uuid}.tmp"),
            format!(".{uuid}.tmp"),
            "context.md.tmp".to_owned(),
            "context.md.not-a-uuid.tmp".to_owned(),
            format!("context.md.{uuid}"),
        ] {
            assert_eq!(temporary_stem(&name), None, "{name}");
        }
    }

    #[test]
    fn a_sweep_waits_for_no_one_and_spares_a_held_folder() {
        let dir = tempfile::tempdir().unwrap();
        let uuid = "0c7f9a3e-1d2b-4c5d-8e9f-a0b1c2d3e4f5";
        let ours = dir.path().join(format!("lessons.md.{uuid}.tmp"));
        let theirs = dir.path().join(format!("other.md.{uuid}.tmp"));
        fs::write(&ours, "x").unwrap();
        fs::write(&theirs, "x").unwrap();
        let writer = Dir::open_plain(dir.path()).unwrap();
        let sweeper = Dir::open_plain(dir.path()).unwrap();
        let hold = hold_for_temporaries(&writer).unwrap();
        sweep_temporaries(&sweeper, |stem| stem == "lessons.md");
        assert!(ours.exists(), "a live writer's temporary file was removed");
        drop(hold);
        sweep_temporaries(&sweeper, |stem| stem == "lessons.md");
        assert!(!ours.exists() && theirs.exists());
    }

    #[test]
    fn refuses_a_document_over_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let lock = WriterLock::acquire(root).unwrap();
        let big = Value::String("x".repeat(usize::try_from(REGISTRY_CAP).unwrap()));
        assert!(matches!(
            write(root, ".bmad/memory/doc.json", &big, &lock),
            Err(Error::DocumentTooLarge)
        ));
        assert!(!root.join(".bmad/memory/doc.json").exists());
    }
}
