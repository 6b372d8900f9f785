//! The writer lock, `.bmad/memory/writer.lock` (docs §3.3).
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
//! A recovery of a dead owner's lock takes the same queue ([`hold_queue`]), so no bmad-mem
//! writer creates a lock between the recovery's last look and its removal.
//!
//! SIGINT and SIGTERM wait for the release of a held lock, then end the process
//! ([`crate::store::interrupt`]): no writer leaves its lock behind on them.

use std::ffi::OsStr;
use std::fs::TryLockError;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, mpsc};
use std::thread;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::store::confined::{self, Dir};
use crate::store::interrupt::{Busy, interrupted};
use crate::store::layout::{LOCK_FILE, RECORDS_DIR};
use crate::store::paths::confine;
use crate::store::temporaries;

/// The writer lock's name inside the memory folder.
const LOCK_NAME: &str = "writer.lock";
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
    /// The memory folder's handle, opened from the root without following links: the lock is
    /// created, read back and removed relative to it, and it is `flock`ed (the queue) while we
    /// hold the lock; closing it when dropped lets the next writer in.
    memory: Dir,
    /// Keeps a signal waiting for the release (dropped last, after the queue handle).
    _busy: Busy,
}

/// Locks this process holds.
static HELD: Mutex<Vec<Held>> = Mutex::new(Vec::new());

/// Proof that the writer lock is held; releases it when dropped.
#[derive(Debug)]
pub(crate) struct WriterLock {
    path: PathBuf,
}

impl WriterLock {
    /// Takes the writer lock of the project at `root`, creating `.bmad/memory/` if missing
    /// (never the project folder itself).
    ///
    /// # Errors
    /// Confinement errors for the lock path, `Memory writer lock is occupied. …` after 200
    /// tries, or any other I/O error at once.
    pub(crate) fn acquire(root: &Path) -> Result<Self> {
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
        // From here on, SIGINT and SIGTERM wait for the lock's release: a failure below drops
        // `busy` and lets a signal received meanwhile end the process.
        let busy = Busy::begin();
        // `.bmad` and `.bmad/memory` are created relative to their parents' handles, so a link
        // planted in their place is refused rather than followed.
        let target = confined::locate(root, LOCK_FILE, true)?;
        let memory = queue(target.into_dir("cannot open")?)?;
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
            if create_with_owner(&memory, &owner)? {
                remove_dead_temporaries(&memory);
                // bmad-mem's own registries beside the memory are written under this lock too.
                if let Ok(Some((records, _))) = confined::open_dir(root, RECORDS_DIR, false) {
                    remove_dead_temporaries(&records);
                }
                HELD.lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(Held {
                        path: path.clone(),
                        owner,
                        depth: 1,
                        memory,
                        _busy: busy,
                    });
                return Ok(Self { path });
            }
            if interrupted() {
                break;
            }
            if attempt < TRIES {
                thread::sleep(RETRY_DELAY);
            }
        }
        Err(Error::LockOccupied)
    }
}

/// One try at creating the lock in `memory` holding `owner`: `Ok(false)` when it exists already.
///
/// The owner is written to a fresh temporary file, which is hard-linked to the lock and at once
/// unlinked, so the lock appears with its owner inside or not at all; the lock is synced after
/// that, keeping the window in which a kill leaves the (never read) temporary file behind to a
/// few system calls.
fn create_with_owner(memory: &Dir, owner: &str) -> Result<bool> {
    let lock = OsStr::new(LOCK_NAME);
    let path = memory.path().join(lock);
    let mut tmp = lock.to_os_string();
    tmp.push(format!(".{}.tmp", uuid::Uuid::new_v4()));
    let written = memory.create_new(&tmp).ok().flatten().and_then(|mut file| {
        file.write_all(owner.as_bytes()).ok()?;
        Some(file)
    });
    let Some(file) = written else {
        let _ = memory.remove(&tmp);
        return create_then_write(memory, owner);
    };
    let linked = memory.hard_link(&tmp, lock);
    let _ = memory.remove(&tmp);
    match linked {
        Ok(()) => {
            if let Err(e) = file.sync_all() {
                drop(file);
                let _ = memory.remove(lock);
                return Err(Error::io("cannot write", &path, e));
            }
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        // No hard links on this filesystem: create the lock exclusively, then write the owner.
        Err(_) => create_then_write(memory, owner),
    }
}

/// Removes the `<file>.<uuid>.tmp` files that killed writers left in the memory folder: the
/// lock's own (written just before it is linked) and those of documents (written just before
/// they are renamed).
///
/// Called holding both the queue and the lock. A bmad-mem writer creates a lock's temporary file
/// only while holding the queue, and any writer — bmad-plus too — writes a document only while
/// holding the lock; each removes or renames its file before letting go. So now, every such
/// file belongs to a process that died. Only regular files whose names end in `.<uuid>.tmp` are
/// touched, and a failure here changes nothing about the lock.
fn remove_dead_temporaries(memory: &Dir) {
    temporaries::remove_dead_temporaries(memory, |_| true);
}

/// docs §3.3's own way: `O_CREAT|O_EXCL`, then the owner, synced.
fn create_then_write(memory: &Dir, owner: &str) -> Result<bool> {
    let lock = OsStr::new(LOCK_NAME);
    let Some(mut file) = memory.create_new(lock)? else {
        return Ok(false);
    };
    let written = file
        .write_all(owner.as_bytes())
        .and_then(|()| file.sync_all());
    if let Err(e) = written {
        drop(file);
        let _ = memory.remove(lock);
        return Err(Error::io("cannot write", &memory.path().join(lock), e));
    }
    Ok(true)
}

/// This host's name, as Node's `os.hostname()` gives it.
#[must_use]
pub(crate) fn hostname() -> String {
    gethostname::gethostname().to_string_lossy().into_owned()
}

/// A place in the queue of this host's bmad-mem writers, held without taking `writer.lock`;
/// released when dropped.
#[derive(Debug)]
pub(crate) struct Queue {
    _memory: Dir,
}

/// Waits for this host's bmad-mem writers and holds their queue, for a recovery of
/// `writer.lock`: while it is held, no bmad-mem writer can create a new lock between the
/// recovery's look at the old one and its removal. (bmad-plus does not queue; it excludes and
/// is excluded through `writer.lock` alone.)
///
/// # Errors
/// Confinement and I/O errors for the memory folder, or the occupied-lock message when a writer
/// holds the queue past its patience.
pub(crate) fn hold_queue(root: &Path) -> Result<Queue> {
    let target = confined::locate(root, LOCK_FILE, true)?;
    queue(target.into_dir("cannot open")?).map(|memory| Queue { _memory: memory })
}

/// Waits for this host's other bmad-mem writers on the memory folder's `flock`, and returns the
/// folder's handle, locked.
///
/// The wait is bounded: a writer that froze while holding the queue (stopped, or stuck on a
/// dead network disk) must not hang every other writer forever, so after [`QUEUE_PATIENCE`]
/// the waiter gives up with the occupied-lock message, as it would on `writer.lock` itself.
fn queue(memory: Dir) -> Result<Dir> {
    match memory.file().try_lock() {
        Ok(()) => return Ok(memory),
        Err(TryLockError::WouldBlock) => {}
        Err(TryLockError::Error(e)) => return Err(Error::io("cannot lock", memory.path(), e)),
    }
    // Block in the kernel's queue on a helper thread, so the wait can time out. If it does,
    // the thread's late success finds the receiver gone and drops the handle, releasing the lock.
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let _ = sender.send(match memory.file().lock() {
            Ok(()) => Ok(memory),
            Err(e) => Err(Error::io("cannot lock", memory.path(), e)),
        });
    });
    // In slices, so that a writer interrupted while it waits stops waiting.
    let deadline = std::time::Instant::now() + QUEUE_PATIENCE;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match receiver.recv_timeout(left.min(Duration::from_millis(50))) {
            Ok(locked) => return locked,
            Err(mpsc::RecvTimeoutError::Timeout) if !left.is_zero() && !interrupted() => {}
            Err(_) => return Err(Error::LockOccupied),
        }
    }
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
        let lock = OsStr::new(LOCK_NAME);
        if entry
            .memory
            .read(lock)
            .is_ok_and(|read| read.is_some_and(|(content, _)| content == entry.owner.as_bytes()))
        {
            let _ = entry.memory.remove(lock);
        }
        // Dropping `entry` closes the queue handle, which lets the next writer in.
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::layout::MEMORY_DIR;
    use std::fs;

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
