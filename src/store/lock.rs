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
//! The file never exists without its owner inside: the owner text is written to
//! `writer.lock.<uuid>.tmp`, which is hard-linked to `writer.lock` (atomic and, like
//! `O_CREAT|O_EXCL`, refused when the name exists), unlinked, then synced. A writer killed
//! between creating the lock and writing its owner would otherwise leave an empty lock that
//! nobody can attribute or recover (found by the crash tests); a kill now leaves at most the
//! temporary file, which nothing reads. The next writer, once it holds the lock, removes such
//! files, and those of document rewrites a kill cut short. Where the filesystem has no hard
//! links, the lock is created exclusively and then written, as bmad-plus does.
//!
//! Before polling for `writer.lock`, a bmad-mem writer queues on an exclusive `flock` of the
//! memory folder itself. Parallel bmad-mem writers therefore take turns in the kernel's queue
//! instead of racing the 10 ms polls, so none starves out of its 2 s budget; the `writer.lock`
//! file stays the protocol that excludes bmad-plus. The queue lock is released with the guard.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, mpsc};
use std::thread;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::store::document;
use crate::store::paths::confine;

/// The memory folder, relative to the project root.
pub const MEMORY_DIR: &str = ".bmad/memory";
/// The writer lock, relative to the project root.
pub const LOCK_FILE: &str = ".bmad/memory/writer.lock";
const TRIES: u32 = 200;
const RETRY_DELAY: Duration = Duration::from_millis(10);
/// Longest wait in the queue of bmad-mem writers before giving up.
const QUEUE_PATIENCE: Duration = Duration::from_secs(30);

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
            if create_with_owner(&path, &owner)? {
                remove_dead_temporaries(&path);
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
            if attempt < TRIES {
                thread::sleep(RETRY_DELAY);
            }
        }
        Err(Error::LockOccupied)
    }
}

/// One try at creating the lock `path` holding `owner`: `Ok(false)` when it exists already.
///
/// The owner is written to a fresh temporary file, which is hard-linked to `path` and at once
/// unlinked, so the lock appears with its owner inside or not at all; the lock is synced after
/// that, keeping the window in which a kill leaves the (never read) temporary file behind to a
/// few system calls.
fn create_with_owner(path: &Path, owner: &str) -> Result<bool> {
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(".{}.tmp", uuid::Uuid::new_v4()));
    let tmp = path.with_file_name(tmp_name);
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut file| file.write_all(owner.as_bytes()).map(|()| file));
    let Ok(file) = written else {
        let _ = fs::remove_file(&tmp);
        return create_then_write(path, owner);
    };
    let linked = fs::hard_link(&tmp, path);
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => {
            if let Err(e) = file.sync_all() {
                drop(file);
                let _ = fs::remove_file(path);
                return Err(Error::io("cannot write", path, e));
            }
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        // No hard links on this filesystem: create the lock exclusively, then write the owner.
        Err(_) => create_then_write(path, owner),
    }
}

/// Removes the `<file>.<uuid>.tmp` files that killed writers left in the memory folder: the
/// lock's own (written just before it is linked) and those of documents (written just before
/// they are renamed).
///
/// Called holding both the queue and the lock. A bmad-mem writer creates a lock's temporary file
/// only while holding the queue, and any writer — bmad-plus too — writes a document only while
/// holding the lock; each removes or renames its file before letting go. So now, every such
/// file belongs to a process that died. Only names ending in `.<uuid>.tmp` are touched, and a
/// failure here changes nothing about the lock.
fn remove_dead_temporaries(lock: &Path) {
    if let Some(dir) = lock.parent() {
        document::remove_dead_temporaries(dir, |_| true);
    }
}

/// SPEC §3.3's own way: `O_CREAT|O_EXCL`, then the owner, synced.
fn create_then_write(path: &Path, owner: &str) -> Result<bool> {
    match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(mut file) => {
            let written = file
                .write_all(owner.as_bytes())
                .and_then(|()| file.sync_all());
            if let Err(e) = written {
                drop(file);
                let _ = fs::remove_file(path);
                return Err(Error::io("cannot write", path, e));
            }
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Error::io("cannot create", path, e)),
    }
}

/// This host's name, as Node's `os.hostname()` gives it.
#[must_use]
pub fn hostname() -> String {
    gethostname::gethostname().to_string_lossy().into_owned()
}

/// Waits for this host's other bmad-mem writers on the memory folder's `flock`.
///
/// The wait is bounded: a writer that froze while holding the queue (stopped, or stuck on a
/// dead network disk) must not hang every other writer forever, so after [`QUEUE_PATIENCE`]
/// the waiter gives up with the occupied-lock message, as it would on `writer.lock` itself.
fn queue(root: &Path) -> Result<File> {
    let dir = confine(root, MEMORY_DIR)?;
    let file = File::open(&dir).map_err(|e| Error::io("cannot open", &dir, e))?;
    match file.try_lock() {
        Ok(()) => return Ok(file),
        Err(TryLockError::WouldBlock) => {}
        Err(TryLockError::Error(e)) => return Err(Error::io("cannot lock", &dir, e)),
    }
    // Block in the kernel's queue on a helper thread, so the wait can time out. If it does,
    // the thread's late success finds the receiver gone and drops the file, releasing the lock.
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let _ = sender.send(file.lock().map(|()| file));
    });
    match receiver.recv_timeout(QUEUE_PATIENCE) {
        Ok(Ok(file)) => Ok(file),
        Ok(Err(e)) => Err(Error::io("cannot lock", &dir, e)),
        Err(_) => Err(Error::LockOccupied),
    }
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
    fn temporaries_of_dead_writers_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let memory = root.join(MEMORY_DIR);
        fs::create_dir_all(&memory).unwrap();
        let uuid = "0c7f9a3e-1d2b-4c5d-8e9f-a0b1c2d3e4f5";
        let dead = [
            format!("writer.lock.{uuid}.tmp"),
            format!("pattern-scores.json.{uuid}.tmp"),
        ];
        let kept = [
            "writer.lock.tmp".to_owned(),
            "notes.tmp".to_owned(),
            format!("{uuid}.tmp"),
            format!("journal.ndjson.{uuid}"),
            "pattern-scores.json.not-a-uuid.tmp".to_owned(),
        ];
        for name in dead.iter().chain(&kept) {
            fs::write(memory.join(name), "x").unwrap();
        }
        fs::create_dir(memory.join(format!("folder.{uuid}.tmp"))).unwrap();
        drop(WriterLock::acquire(root).unwrap());
        let mut names: Vec<String> = fs::read_dir(&memory)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        let mut expected: Vec<String> = kept.to_vec();
        expected.push(format!("folder.{uuid}.tmp"));
        expected.sort();
        assert_eq!(names, expected);
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
