//! The temporary files writers leave behind when killed, and their sweep (docs §3.5).
//!
//! A writer killed between writing a temporary file `<stem>.<uuid>.tmp` and moving it into
//! place leaves it behind. The registry writers remove those while they hold the writer lock
//! ([`remove_dead_temporaries`]); the session commands, whose folders have no such lock, through
//! [`sweep_temporaries`], which proves their writers dead with a `flock` of the folder: every
//! bmad-mem writer that puts a temporary file in a folder holds a shared lock of that folder
//! ([`hold_for_temporaries`]) until the file is gone, so a sweeper that gets the exclusive lock
//! knows every temporary file there belongs to a process that died. Both take the lock on the
//! very handle the folder is listed, inspected and written through, so a folder swapped for a
//! link meanwhile changes neither what is locked nor what is removed.

use std::fs::{File, TryLockError};
use std::thread;
use std::time::Duration;

use rustix::fs::FileType;

use crate::store::confined::Dir;

/// How often, 10 ms apart, a writer tries to share a folder a sweeper holds.
const HOLD_TRIES: u32 = 100;

/// The stem of a temporary file name `<stem>.<uuid>.tmp`, as `Dir::write_temp` makes them.
#[must_use]
pub(crate) fn temporary_stem(name: &str) -> Option<&str> {
    let (stem, uuid) = name.strip_suffix(".tmp")?.rsplit_once('.')?;
    (!stem.is_empty() && uuid::Uuid::try_parse(uuid).is_ok()).then_some(stem)
}

/// Removes the regular files `<stem>.<uuid>.tmp` in `dir` whose stem `is_ours` accepts, listing,
/// inspecting and removing through that one handle (so a folder swapped for a link meanwhile
/// changes nothing). The caller knows that their writers are dead; a failure changes nothing
/// else.
pub(crate) fn remove_dead_temporaries(dir: &Dir, is_ours: impl Fn(&str) -> bool) {
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
pub(crate) fn sweep_temporaries(dir: &Dir, is_ours: impl Fn(&str) -> bool) {
    if dir.file().try_lock().is_ok() {
        remove_dead_temporaries(dir, is_ours);
        let _ = dir.file().unlock();
    }
}

/// A shared `flock` of a folder, held while this process has a temporary file there; released
/// when dropped.
#[derive(Debug)]
pub(crate) struct Held<'a>(&'a File);

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// A shared `flock` of `dir`, on its handle, held while this process has a temporary file there
/// so that no sweeper takes it for a dead writer's. `None` when a sweeper keeps the folder for
/// longer than about a second (or the lock fails): the write then goes ahead unheld.
#[must_use]
pub(crate) fn hold_for_temporaries(dir: &Dir) -> Option<Held<'_>> {
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
