//! `lock`: inspect the writer lock, and recover it — explicitly, losslessly — when its owner
//! died.
//!
//! `bmad-mem lock` shows the owner recorded in `.bmad/memory/writer.lock` (pid, host, token), the
//! lock's age, whether that pid is alive on this host, and the SHA-256 of the file.
//! `bmad-mem lock --recover --expect <sha256>` removes the lock only when all of these hold: the
//! file still has that digest (so what was inspected is what gets removed), its owner is on this
//! host, and that process is gone. A lock from another host (a container gets a new host name on
//! every run) cannot be checked from here: it is removed only when the person adds
//! `--other-host-is-gone`, asserting that host's writer no longer runs, and the digest must
//! still match. A live writer's lock, or one without a readable owner, is never removed.
//!
//! The recovery holds the queue bmad-mem writers take before they create `writer.lock`, and
//! looks at the lock again inside it, so no writer of this host can take a new lock between
//! the check and the removal (two recoveries of one lock cannot remove a writer's new lock).
//! Its receipt, `.bmad/memory/lock-recovery/<timestamp>-<sha12>.json`, is written and synced
//! before the removal under a temporary name, and given its name once the lock is gone: a
//! refused or failed removal leaves no receipt, and every receipt stands for a removal.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{self, Object, Value, sha256_hex};
use crate::messages;
use crate::output::Report;
use crate::store::confined::{self, Dir};
use crate::store::layout::{LOCK_FILE, MEMORY_DIR};
use crate::store::lock::{hold_queue, hostname};

/// Inspect the writer lock; with --recover, remove a dead owner's lock.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LockArgs {
    /// Remove the lock if its owner is a dead process on this host (needs --expect).
    #[arg(long, requires = "expect")]
    pub recover: bool,
    /// The sha256 of the lock file as `bmad-mem lock` showed it; recovery refuses any other.
    #[arg(long, value_name = "sha256", allow_hyphen_values = true)]
    pub expect: Option<String>,
    /// With --recover: also remove a lock owned by another host, whose writer cannot be checked
    /// from here; you assert that host's writer is not running.
    #[arg(long = "other-host-is-gone", requires = "recover")]
    pub other_host_is_gone: bool,
}

/// What the lock file says.
#[derive(Debug, Clone)]
pub(crate) struct LockState {
    pub sha256: String,
    /// The owner object, when the file holds one.
    pub owner: Option<Object>,
    /// The file's text, when it is not an owner object (a crash between create and write).
    pub raw: Option<String>,
    pub age_ms: f64,
    /// `Some(alive)` for an owner on this host; `None` when that cannot be known.
    pub alive: Option<bool>,
}

impl LockState {
    fn pid(&self) -> Option<f64> {
        self.owner.as_ref()?.get("pid")?.as_f64()
    }

    /// The owner's host name, when it records one.
    #[must_use]
    pub(crate) fn host(&self) -> Option<String> {
        Some(self.owner.as_ref()?.get("hostname")?.as_str()?.to_owned())
    }

    /// Whether the owner can be told apart: another host's name, or this host's name with a
    /// usable pid. Otherwise nobody can tell whether it still runs.
    #[must_use]
    pub(crate) fn has_readable_owner(&self) -> bool {
        self.alive.is_some() || self.is_other_host()
    }

    /// Whether the owner is on another host, where its liveness cannot be checked from here.
    #[must_use]
    pub(crate) fn is_other_host(&self) -> bool {
        self.host().is_some_and(|host| host != hostname())
    }

    fn to_json(&self) -> Value {
        Value::Object(
            Object::new()
                .with("sha256", self.sha256.as_str())
                .with("owner", self.owner.clone())
                .with("raw", self.raw.clone())
                .with("ageMs", self.age_ms)
                .with("alive", self.alive),
        )
    }
}

/// Reads the lock, if any. Read-only.
///
/// # Errors
/// Confinement and reader errors.
pub(crate) fn inspect(root: &Path, now_ms: f64) -> Result<Option<LockState>> {
    let Some((bytes, meta)) = confined::locate(root, LOCK_FILE, false)?.read(true)? else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes).map_err(|_| Error::SourceNotUtf8)?;
    let modified_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(now_ms, |d| {
            #[expect(
                clippy::cast_precision_loss,
                reason = "epoch milliseconds fit a double"
            )]
            let ms = d.as_millis() as f64;
            ms
        });
    let owner = match json::parse(&text) {
        Ok(Value::Object(owner)) => Some(owner),
        _ => None,
    };
    let mut state = LockState {
        sha256: sha256_hex(text.as_bytes()),
        raw: owner.is_none().then(|| text.clone()),
        owner,
        age_ms: (now_ms - modified_ms).max(0.0),
        alive: None,
    };
    if state.host().as_deref() == Some(hostname().as_str())
        && let Some(pid) = state.pid().filter(|pid| is_pid(*pid))
    {
        state.alive = Some(is_alive(pid));
    }
    Ok(Some(state))
}

/// Whether `pid` can be a process id at all (a positive integer); `0`, `-1` or `1.5` name no
/// process whose death could be checked.
fn is_pid(pid: f64) -> bool {
    pid.fract() == 0.0 && pid >= 1.0 && pid <= f64::from(u32::MAX)
}

/// Whether process `pid` exists on this machine.
fn is_alive(pid: f64) -> bool {
    Path::new("/proc").join(format!("{pid}")).exists()
}

/// The lock report.
#[derive(Debug)]
pub(crate) struct LockReport {
    pub state: Option<LockState>,
    /// The recovery receipt written, when the lock was recovered.
    pub recovered: Option<String>,
}

/// Shows the lock, or recovers it.
///
/// # Errors
/// Reader errors; for `--recover`, every reason the lock must stay.
pub(crate) fn run(args: &LockArgs, ctx: &Context) -> Result<LockReport> {
    if args.expect.is_some() && !args.recover {
        return Err(Error::refused(messages::EXPECT_WITHOUT_RECOVER));
    }
    let state = inspect(&ctx.root, ctx.now.ms)?;
    if !args.recover {
        return Ok(LockReport {
            state,
            recovered: None,
        });
    }
    recoverable(state, args)?;
    let _queue = hold_queue(&ctx.root)?;
    // Looked at again in the queue: another recovery may have removed it, and a writer taken a
    // new one, since the first look.
    let state = recoverable(inspect(&ctx.root, ctx.now.ms)?, args)?;
    let lock = confined::locate(&ctx.root, LOCK_FILE, false)?;
    let receipt = PendingReceipt::write(ctx, &state)?;
    if let Err(e) = remove_inspected(&lock, &state) {
        receipt.discard();
        return Err(e);
    }
    let recovered = receipt.publish()?;
    Ok(LockReport {
        state: Some(state),
        recovered: Some(recovered),
    })
}

/// Removes the lock only while it is what was inspected: read and removed through the same
/// folder handle, so the name checked is the name removed.
fn remove_inspected(lock: &confined::Target, state: &LockState) -> Result<()> {
    let current = lock.read(true)?.map(|(bytes, _)| bytes);
    if current.is_none_or(|current| sha256_hex(&current) != state.sha256) {
        return Err(Error::refused(messages::LOCK_CHANGED));
    }
    lock.require_dir("cannot remove")?
        .remove(lock.name())
        .map_err(|e| Error::io("cannot remove", lock.path(), e))
}

/// The lock as inspected, refused unless `args` allow removing it.
fn recoverable(state: Option<LockState>, args: &LockArgs) -> Result<LockState> {
    let Some(state) = state else {
        return Err(Error::refused(messages::NO_LOCK));
    };
    let expected = args.expect.as_deref().unwrap_or_default();
    if state.sha256 != expected {
        return Err(Error::refused(messages::lock_digest_differs(
            &state.sha256,
            expected,
        )));
    }
    if state.alive == Some(true) {
        return Err(Error::refused(messages::lock_owner_alive(
            &state
                .pid()
                .map_or_else(|| "?".to_owned(), crate::js::number::number_text),
        )));
    }
    if !state.has_readable_owner() {
        return Err(Error::refused(messages::LOCK_OWNER_UNREADABLE));
    }
    if state.alive.is_none() && !args.other_host_is_gone {
        return Err(Error::refused(messages::lock_other_host(
            &state.host().unwrap_or_default(),
        )));
    }
    Ok(state)
}

/// A recovery receipt written and synced under a temporary name, waiting for the removal.
#[derive(Debug)]
struct PendingReceipt {
    /// The receipt's name, relative to the project root.
    rel: String,
    /// The `lock-recovery` folder, opened from the root without following links.
    dir: Dir,
    name: OsString,
    tmp: OsString,
    /// The project root, when this recovery created the `lock-recovery` folder (to remove it
    /// again if the removal does not happen).
    created_in: Option<PathBuf>,
}

/// The folder of recovery receipts, relative to the project root.
const RECOVERY_DIR: &str = "lock-recovery";

impl PendingReceipt {
    /// Writes `.bmad/memory/lock-recovery/<timestamp>-<sha12>.json.<uuid>.tmp`.
    fn write(ctx: &Context, state: &LockState) -> Result<Self> {
        let dir_rel = format!("{MEMORY_DIR}/{RECOVERY_DIR}");
        let (dir, created_dir) =
            confined::open_dir(&ctx.root, &dir_rel, true)?.ok_or_else(|| {
                Error::io(
                    "cannot create",
                    &ctx.root.join(&dir_rel),
                    io::ErrorKind::NotFound.into(),
                )
            })?;
        let name = format!("{}-{}.json", ctx.now.file_stamp(), &state.sha256[..12]);
        let receipt = Value::Object(
            Object::new()
                .with("recoveredAt", ctx.now.iso.as_str())
                .with("lockSha256", state.sha256.as_str())
                .with("owner", state.owner.clone())
                // Unknown (null) for another host's owner, whose end was asserted.
                .with("ownerAlive", state.alive)
                .with("otherHostIsGone", state.alive.is_none())
                .with("ageMs", state.age_ms)
                .with(
                    "recoveredBy",
                    Object::new()
                        .with("pid", f64::from(std::process::id()))
                        .with("hostname", hostname()),
                ),
        );
        let mut text = receipt.pretty();
        text.push('\n');
        let mut pending = Self {
            rel: format!("{dir_rel}/{name}"),
            dir,
            name: OsString::from(name),
            tmp: OsString::new(),
            created_in: created_dir.then(|| ctx.root.clone()),
        };
        match pending.dir.write_temp(&pending.name, text.as_bytes()) {
            Ok(tmp) => {
                pending.tmp = tmp;
                Ok(pending)
            }
            Err(e) => {
                pending.discard();
                Err(e)
            }
        }
    }

    /// Gives the receipt its name, once the lock is gone; returns that name.
    fn publish(self) -> Result<String> {
        self.dir.rename(&self.tmp, &self.name).map_err(|e| {
            Error::refused(messages::lock_receipt_unnamed(
                &self.rel,
                e,
                &self.dir.path().join(&self.tmp),
            ))
        })?;
        Ok(self.rel)
    }

    /// Removes the temporary receipt, and the folder if this recovery created it (best effort:
    /// the removal it stood for did not happen).
    fn discard(self) {
        if !self.tmp.is_empty() {
            let _ = self.dir.remove(&self.tmp);
        }
        if let Some(root) = self.created_in
            && let Ok(Some((memory, _))) = confined::open_dir(&root, MEMORY_DIR, false)
        {
            let _ = memory.remove_dir(OsStr::new(RECOVERY_DIR));
        }
    }
}

impl Report for LockReport {
    fn to_json(&self) -> Value {
        Value::Object(
            Object::new()
                .with("held", self.state.is_some() && self.recovered.is_none())
                .with("lock", self.state.as_ref().map(LockState::to_json))
                .with("recovered", self.recovered.clone()),
        )
    }

    fn render_human(&self) -> String {
        let Some(state) = &self.state else {
            return "mem lock: no writer lock held\n".to_owned();
        };
        if let Some(receipt) = &self.recovered {
            if state.alive.is_none() {
                return format!(
                    "mem lock: recovered the lock of an owner on host {}, declared gone; receipt {receipt}\n",
                    state.host().unwrap_or_default()
                );
            }
            return format!("mem lock: recovered the lock of a dead owner; receipt {receipt}\n");
        }
        let field = |key: &str| {
            state
                .owner
                .as_ref()
                .and_then(|o| o.get(key))
                .map_or_else(|| "?".to_owned(), Value::text)
        };
        let alive = match state.alive {
            Some(true) => "alive on this host",
            Some(false) => "not running on this host",
            None => "unknown (not this host, or no readable owner)",
        };
        format!(
            "mem lock: writer.lock held\n  pid      {}\n  host     {}\n  token    {}\n  age      {:.1} s\n  owner    {alive}\n  sha256   {}\n",
            field("pid"),
            field("hostname"),
            field("token"),
            state.age_ms / 1000.0,
            state.sha256,
        )
    }

    fn written(&self) -> Option<String> {
        let receipt = self.recovered.as_ref()?;
        Some(format!("writer.lock removed (receipt {receipt})"))
    }
}
