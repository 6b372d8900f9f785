//! Rewriting a whole JSON document atomically (docs §3.5), and the sweep of the temporary files
//! dead writers leave, with the folder lock that keeps live writers' files out of it.
//!
//! Pretty JSON plus `\n`, at most 2 MiB, written to `<file>.<uuid>.tmp` (created exclusively,
//! so a link planted there is never followed), synced, then renamed over the target: a reader
//! sees the old document or the new one, never half of either. The temporary file is removed
//! on failure.
//!
//! A writer killed between writing such a temporary file and moving it into place leaves it
//! behind. The registry writers remove those while they hold the writer lock; the session
//! commands, whose folders have no such lock, through [`sweep_temporaries`], which proves their
//! writers dead with a `flock` of the folder: every bmad-mem writer that puts a temporary file in
//! a folder holds a shared lock of that folder ([`hold_for_temporaries`]) until the file is
//! gone, so a sweeper that gets the exclusive lock knows every temporary file there belongs to a
//! process that died. Both take the lock on the very handle the folder is listed, inspected and
//! written through, so a folder swapped for a link meanwhile changes neither what is locked nor
//! what is removed.

use std::fs::{File, TryLockError};
use std::path::Path;
use std::thread;
use std::time::Duration;

use rustix::fs::FileType;

use crate::error::{Error, Result};
use crate::js::json::Value;
use crate::store::WriterLock;
use crate::store::confined::{self, Dir};
use crate::store::paths::REGISTRY_CAP;

/// How often, 10 ms apart, a writer tries to share a folder a sweeper holds.
const HOLD_TRIES: u32 = 100;

/// The stem of a temporary file name `<stem>.<uuid>.tmp`, as `Dir::write_temp` makes them.
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

/// Writes `value` as the document `rel` (docs §3.5): the temporary file is created and renamed
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
    use std::fs;

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
    fn a_sweep_stays_in_the_folder_its_handle_opened() {
        let base = tempfile::tempdir().unwrap();
        let uuid = "0c7f9a3e-1d2b-4c5d-8e9f-a0b1c2d3e4f5";
        let (folder, outside) = (base.path().join("sessions"), base.path().join("outside"));
        fs::create_dir(&folder).unwrap();
        fs::create_dir(&outside).unwrap();
        let name = format!("notes.md.{uuid}.tmp");
        fs::write(folder.join(&name), "dead").unwrap();
        fs::write(outside.join(&name), "not ours").unwrap();
        let handle = Dir::open_plain(&folder).unwrap();
        // The folder is swapped for a link after its handle was opened.
        fs::rename(&folder, base.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(&outside, &folder).unwrap();
        sweep_temporaries(&handle, |stem| stem == "notes.md");
        assert!(!base.path().join("moved").join(&name).exists());
        assert_eq!(fs::read(outside.join(&name)).unwrap(), b"not ours");
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
