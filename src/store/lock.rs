//! The writer lock, `.bmad/memory/writer.lock` (SPEC §3.3).
//!
//! bmad-plus uses the same protocol, so the two tools exclude each other: the lock is a file
//! created exclusively (`O_CREAT|O_EXCL`), holding its owner
//! `{"pid":…,"hostname":"…","token":"<uuid>"}`. A writer that finds it waits 10 ms and tries
//! again, 200 tries in all (≈2 s), then gives up with the documented message. Release deletes
//! the file only while it still holds exactly our owner text: we never delete a lock we do not
//! own, even one we think is stale.
//!
//! The lock is re-entrant within one process: a nested [`WriterLock::acquire`] on the same root
//! shares the outer hold, and only the outermost guard releases it.
//!
//! Before polling for `writer.lock`, a bmad-mem writer queues on an exclusive `flock` of the
//! memory folder itself. Parallel bmad-mem writers therefore take turns in the kernel's queue
//! instead of racing the 10 ms polls, so none starves out of its 2 s budget; the `writer.lock`
//! file stays the protocol that excludes bmad-plus. The queue lock is released with the guard.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::store::paths::confine;

/// The memory folder, relative to the project root.
pub const MEMORY_DIR: &str = ".bmad/memory";
/// The writer lock, relative to the project root.
pub const LOCK_FILE: &str = ".bmad/memory/writer.lock";
const TRIES: u32 = 200;
const RETRY_DELAY: Duration = Duration::from_millis(10);

/// A lock this process holds.
#[derive(Debug)]
struct Held {
    path: PathBuf,
    owner: String,
    depth: usize,
    /// The memory folder, `flock`ed while we hold the lock; unlocked when dropped.
    _queue: File,
}

/// Locks this process holds.
static HELD: Mutex<Vec<Held>> = Mutex::new(Vec::new());

/// Proof that the writer lock is held; releases it when dropped.
#[derive(Debug)]
pub struct WriterLock {
    path: PathBuf,
}

impl WriterLock {
    /// Takes the writer lock of the project at `root`, creating `.bmad/memory/` if missing
    /// (never the project folder itself).
    ///
    /// # Errors
    /// Confinement errors for the lock path, `Memory writer lock is occupied. …` after 200
    /// tries, or any other I/O error at once.
    pub fn acquire(root: &Path) -> Result<Self> {
        let path = confine(root, LOCK_FILE)?;
        {
            let mut held = HELD
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(entry) = held.iter_mut().find(|h| h.path == path) {
                entry.depth += 1;
                return Ok(Self { path });
            }
        }
        create_memory_dir(root)?;
        let queue = queue(root)?;
        // The folders may have been created just now: confine again before creating the file.
        let path = confine(root, LOCK_FILE)?;
        let owner = Value::Object(
            Object::new()
                .with("pid", f64::from(std::process::id()))
                .with(
                    "hostname",
                    gethostname::gethostname().to_string_lossy().as_ref(),
                )
                .with("token", uuid::Uuid::new_v4().to_string()),
        )
        .compact();
        for attempt in 1..=TRIES {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    let written = file
                        .write_all(owner.as_bytes())
                        .and_then(|()| file.sync_all());
                    if let Err(e) = written {
                        drop(file);
                        let _ = fs::remove_file(&path);
                        return Err(Error::io("cannot write", &path, e));
                    }
                    HELD.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(Held {
                            path: path.clone(),
                            owner,
                            depth: 1,
                            _queue: queue,
                        });
                    return Ok(Self { path });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    if attempt < TRIES {
                        thread::sleep(RETRY_DELAY);
                    }
                }
                Err(e) => return Err(Error::io("cannot create", &path, e)),
            }
        }
        Err(Error::LockOccupied)
    }
}

/// This host's name, as Node's `os.hostname()` gives it.
#[must_use]
pub fn hostname() -> String {
    gethostname::gethostname().to_string_lossy().into_owned()
}

/// Waits for this host's other bmad-mem writers on the memory folder's `flock`.
fn queue(root: &Path) -> Result<File> {
    let dir = confine(root, MEMORY_DIR)?;
    let file = File::open(&dir).map_err(|e| Error::io("cannot open", &dir, e))?;
    file.lock().map_err(|e| Error::io("cannot lock", &dir, e))?;
    Ok(file)
}

/// Creates `.bmad` and `.bmad/memory` one level at a time, each checked by the confinement
/// first, so a link planted in their place is refused rather than followed.
fn create_memory_dir(root: &Path) -> Result<()> {
    for rel in [".bmad", MEMORY_DIR] {
        let dir = confine(root, rel)?;
        match fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                if !dir.is_dir() {
                    return Err(Error::ParentNotDirectory);
                }
            }
            Err(e) => return Err(Error::io("cannot create", &dir, e)),
        }
    }
    Ok(())
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        let mut held = HELD
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(index) = held.iter().position(|h| h.path == self.path) else {
            return;
        };
        held[index].depth -= 1;
        if held[index].depth > 0 {
            return;
        }
        let entry = held.remove(index);
        // Delete only our own lock: if someone replaced it, it is theirs now.
        if fs::read(&entry.path).is_ok_and(|content| content == entry.owner.as_bytes()) {
            let _ = fs::remove_file(&entry.path);
        }
        // Dropping `entry` closes the queue file, which lets the next writer in.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acquire_creates_the_folder_writes_the_owner_and_releases() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let lock_path = root.join(LOCK_FILE);
        {
            let _lock = WriterLock::acquire(root).unwrap();
            let owner = crate::js::json::parse(&fs::read_to_string(&lock_path).unwrap()).unwrap();
            let owner = owner.as_object().unwrap();
            let keys: Vec<_> = owner.iter().map(|(k, _)| k.as_str()).collect();
            assert_eq!(keys, ["pid", "hostname", "token"]);
            assert_eq!(
                owner.get("pid").unwrap().as_f64(),
                Some(f64::from(std::process::id()))
            );
            {
                let _inner = WriterLock::acquire(root).unwrap();
            }
            assert!(lock_path.exists(), "the inner guard must not release");
        }
        assert!(!lock_path.exists());
    }

    #[test]
    fn a_foreign_lock_is_waited_for_then_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join(MEMORY_DIR)).unwrap();
        let foreign = r#"{"pid":1,"hostname":"elsewhere","token":"t"}"#;
        fs::write(root.join(LOCK_FILE), foreign).unwrap();
        assert!(matches!(
            WriterLock::acquire(root),
            Err(Error::LockOccupied)
        ));
        assert_eq!(fs::read_to_string(root.join(LOCK_FILE)).unwrap(), foreign);
    }

    #[test]
    fn a_replaced_lock_is_not_deleted_on_release() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let lock = WriterLock::acquire(root).unwrap();
        fs::write(root.join(LOCK_FILE), "someone else").unwrap();
        drop(lock);
        assert_eq!(
            fs::read_to_string(root.join(LOCK_FILE)).unwrap(),
            "someone else"
        );
    }

    #[test]
    fn a_linked_memory_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("elsewhere")).unwrap();
        fs::create_dir(root.join(".bmad")).unwrap();
        std::os::unix::fs::symlink(root.join("elsewhere"), root.join(MEMORY_DIR)).unwrap();
        assert!(matches!(WriterLock::acquire(root), Err(Error::PathSymlink)));
        assert!(
            fs::read_dir(root.join("elsewhere"))
                .unwrap()
                .next()
                .is_none()
        );
    }
}
