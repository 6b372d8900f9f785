//! `lock`: inspect the writer lock, and recover it — explicitly, losslessly — when its owner
//! died.
//!
//! `bmad-mem lock` shows the owner recorded in `.bmad/memory/writer.lock` (pid, host, token), the
//! lock's age, whether that pid is alive on this host, and the SHA-256 of the file.
//! `bmad-mem lock --recover --expect <sha256>` removes the lock only when all of these hold: the
//! file still has that digest (so what was inspected is what gets removed), its owner is on this
//! host, and that process is gone. It first writes a recovery receipt under
//! `.bmad/memory/lock-recovery/`. A live writer's lock is never removed; neither is one from
//! another host, whose liveness cannot be known from here.

use std::io::{self, Write};
use std::path::Path;
use std::time::UNIX_EPOCH;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{self, Object, Value, sha256_hex};
use crate::output::Report;
use crate::store::confined;
use crate::store::lock::hostname;
use crate::store::{LOCK_FILE, MEMORY_DIR};

/// Inspect the writer lock; with --recover, remove a dead owner's lock.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LockArgs {
    /// Remove the lock if its owner is a dead process on this host (needs --expect).
    #[arg(long, requires = "expect")]
    pub recover: bool,
    /// The sha256 of the lock file as `bmad-mem lock` showed it; recovery refuses any other.
    #[arg(long, value_name = "sha256", allow_hyphen_values = true)]
    pub expect: Option<String>,
}

/// What the lock file says.
#[derive(Debug, Clone)]
pub struct LockState {
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

    fn host(&self) -> Option<String> {
        Some(self.owner.as_ref()?.get("hostname")?.as_str()?.to_owned())
    }

    /// Whether the owner can be told apart: another host's name, or this host's name with a
    /// usable pid. Otherwise nobody can tell whether it still runs.
    #[must_use]
    pub fn has_readable_owner(&self) -> bool {
        self.alive.is_some() || self.host().is_some_and(|host| host != hostname())
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
pub fn inspect(root: &Path, now_ms: f64) -> Result<Option<LockState>> {
    let Some((bytes, meta)) = confined::locate(root, LOCK_FILE, false)?.read(true)? else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes).map_err(|_| Error::SourceNotUtf8)?;
    let modified_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(now_ms, |d| {
            #[allow(clippy::cast_precision_loss)] // epoch milliseconds fit a double
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
pub struct LockReport {
    pub state: Option<LockState>,
    /// The recovery receipt written, when the lock was recovered.
    pub recovered: Option<String>,
}

/// Shows the lock, or recovers it.
///
/// # Errors
/// Reader errors; for `--recover`, every reason the lock must stay.
pub fn run(args: &LockArgs, ctx: &Context) -> Result<LockReport> {
    let state = inspect(&ctx.root, ctx.now.ms)?;
    if !args.recover {
        return Ok(LockReport {
            state,
            recovered: None,
        });
    }
    let Some(state) = state else {
        return Err(Error::refused("There is no writer lock to recover."));
    };
    let expected = args.expect.as_deref().unwrap_or_default();
    if state.sha256 != expected {
        return Err(Error::refused(format!(
            "Writer lock has sha256 {}, not {expected}; inspect it again before recovering.",
            state.sha256
        )));
    }
    if state.alive == Some(true) {
        return Err(Error::refused(format!(
            "Writer lock owner (pid {}) is alive; do not remove a live lock.",
            state
                .pid()
                .map_or_else(|| "?".to_owned(), crate::js::number::number_text)
        )));
    }
    if !state.has_readable_owner() {
        return Err(Error::refused(
            "Writer lock has no readable owner; check that no writer runs, then remove it by hand.",
        ));
    }
    if state.alive.is_none() {
        return Err(Error::refused(format!(
            "Writer lock belongs to host {}; recover it there, where its owner can be checked.",
            state.host().unwrap_or_default()
        )));
    }
    let receipt = write_receipt(ctx, &state)?;
    let lock = confined::locate(&ctx.root, LOCK_FILE, false)?;
    // Remove only what was inspected: a new owner may have taken the lock since. Read and
    // removed through the same folder handle, so the name checked is the name removed.
    let current = lock.read(true)?.map(|(bytes, _)| bytes);
    if current.is_none_or(|current| sha256_hex(&current) != state.sha256) {
        return Err(Error::refused(
            "Writer lock changed while being recovered; inspect it again.",
        ));
    }
    lock.require_dir("cannot remove")?
        .remove(lock.name())
        .map_err(|e| Error::io("cannot remove", lock.path(), e))?;
    Ok(LockReport {
        state: Some(state),
        recovered: Some(receipt),
    })
}

/// Writes `.bmad/memory/lock-recovery/<timestamp>-<sha12>.json` and returns its path; the
/// folder is created and the receipt created exclusively relative to handles opened from the
/// root without following links.
fn write_receipt(ctx: &Context, state: &LockState) -> Result<String> {
    let stamp = ctx.now.file_stamp();
    let rel = format!(
        "{MEMORY_DIR}/lock-recovery/{stamp}-{}.json",
        &state.sha256[..12]
    );
    let target = confined::locate(&ctx.root, &rel, true)?;
    let receipt = Value::Object(
        Object::new()
            .with("recoveredAt", ctx.now.iso.as_str())
            .with("lockSha256", state.sha256.as_str())
            .with("owner", state.owner.clone())
            .with("ownerAlive", false)
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
    let path = target.path();
    let mut file = target
        .require_dir("cannot create")?
        .create_new(target.name())?
        .ok_or_else(|| Error::io("cannot create", path, io::ErrorKind::AlreadyExists.into()))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io("cannot write", path, e))?;
    Ok(rel)
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
}
