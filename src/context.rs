//! The one place that reads the environment and the clock (docs §2.7).
//!
//! A [`Context`] is built once per invocation and handed to the action: the project root
//! (`-d`, resolved lexically against the current directory, which must be an existing folder),
//! the current directory (for `--portfolio`), and `now`, read once — from `BMAD_MEM_NOW` when
//! set, so runs and tests are reproducible. The session commands also get the home folder
//! (`HOME`) and an explicit brain (`BMAD_PLUS_BRAIN`) from here, so tests use a temporary home;
//! `recall` its default ranking (`BMAD_MEM_RANKING`).

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{Error, Result};
use crate::js::date;
use crate::js::path::resolve;
use crate::messages;

/// The instant of this invocation, in both forms the files use.
#[derive(Debug, Clone, PartialEq)]
pub struct Now {
    /// Epoch milliseconds.
    pub ms: f64,
    /// `toISOString` form, `2026-10-18T09:30:00.000Z`.
    pub iso: String,
}

impl Now {
    /// The instant `text` names (docs §2.5), written back in `toISOString` form.
    ///
    /// # Errors
    /// When `text` is not a timestamp.
    pub fn parse(text: &str) -> Result<Self> {
        let ms = date::parse_timestamp(text)
            .ok_or_else(|| Error::refused(messages::invalid_now(text)))?;
        Ok(Self::from_ms(ms))
    }

    #[must_use]
    pub fn from_ms(ms: f64) -> Self {
        Self {
            ms,
            iso: date::to_iso_string(ms),
        }
    }

    /// The instant as it appears in the names of files kept aside (`….corrupt-<stamp>`,
    /// `….torn-<stamp>`, lock-recovery receipts): the ISO text with `:` and `.` as `-`, so the
    /// name is valid everywhere and sorts by time.
    #[must_use]
    pub fn file_stamp(&self) -> String {
        self.iso.replace([':', '.'], "-")
    }

    fn system() -> Self {
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        #[expect(
            clippy::cast_precision_loss,
            reason = "epoch milliseconds fit a double exactly until 287396 AD"
        )]
        Self::from_ms(ms as f64)
    }
}

/// Where and when an action runs.
#[derive(Debug, Clone)]
pub struct Context {
    /// The project root: absolute, normalized lexically (links not resolved).
    pub root: PathBuf,
    /// The current directory, against which `--portfolio` is resolved.
    pub cwd: PathBuf,
    pub now: Now,
    /// The home folder (`HOME`, made absolute against the current directory); `None` when
    /// unset or empty.
    pub home: Option<PathBuf>,
    /// `BMAD_PLUS_BRAIN` as given; `None` when unset or empty (bmad-plus tests it for truth).
    pub brain_env: Option<String>,
    /// Who runs the command, for the records that name a person (`USER`, else `USERNAME`);
    /// `None` when neither is set or both are empty.
    pub user: Option<String>,
    /// A test hook: the name of the step at which a writer stops dead, as a crash would stop
    /// it (`BMAD_MEM_CRASH_AT`); `None` in ordinary runs.
    pub crash_at: Option<String>,
    /// This binary's own path (`git setup` names it as git's merge driver); `None` when the
    /// system cannot tell.
    pub exe: Option<PathBuf>,
    /// `PATH` as given, to tell whether `bmad-mem` there is this binary.
    pub path_var: Option<std::ffi::OsString>,
    /// `BMAD_MEM_RANKING` as given: the ranking `recall` uses when `--ranking` is not given
    /// (before the project config's); `None` when unset or empty.
    pub ranking_env: Option<String>,
}

impl Context {
    /// Reads the current directory, `BMAD_MEM_NOW` and the clock; checks that `directory`
    /// (default `.`) is an existing folder.
    ///
    /// # Errors
    /// An unreadable current directory, an invalid `BMAD_MEM_NOW`, or a missing project folder.
    pub fn from_env(directory: Option<&Path>) -> Result<Self> {
        let cwd = std::env::current_dir()
            .map_err(|e| Error::io("cannot read the current directory", Path::new("."), e))?;
        let now = match std::env::var_os("BMAD_MEM_NOW") {
            Some(value) => Now::parse(&value.to_string_lossy())?,
            None => Now::system(),
        };
        let mut ctx = Self::new(&cwd, directory, now)?;
        ctx.home = std::env::var_os("HOME")
            .filter(|home| !home.is_empty())
            .map(|home| resolve(&cwd, Path::new(&home)));
        ctx.brain_env = std::env::var_os("BMAD_PLUS_BRAIN")
            .map(|brain| brain.to_string_lossy().into_owned())
            .filter(|brain| !brain.is_empty());
        ctx.user = ["USER", "USERNAME"].iter().find_map(|key| {
            std::env::var_os(key)
                .map(|v| v.to_string_lossy().into_owned())
                .filter(|v| !v.trim().is_empty())
        });
        ctx.crash_at = std::env::var_os("BMAD_MEM_CRASH_AT")
            .map(|v| v.to_string_lossy().into_owned())
            .filter(|v| !v.is_empty());
        ctx.exe = std::env::current_exe().ok();
        ctx.path_var = std::env::var_os("PATH");
        ctx.ranking_env = std::env::var_os("BMAD_MEM_RANKING")
            .map(|v| v.to_string_lossy().into_owned())
            .filter(|v| !v.is_empty());
        Ok(ctx)
    }

    /// A context for `directory` (an OS path: any bytes the system accepts) resolved against
    /// `cwd`, with no home and no explicit brain.
    ///
    /// # Errors
    /// When the project folder does not exist or is not a folder.
    pub fn new(cwd: &Path, directory: Option<&Path>, now: Now) -> Result<Self> {
        let root = resolve(cwd, directory.unwrap_or(Path::new(".")));
        if !root.is_dir() {
            return Err(Error::refused(messages::no_project_dir(&root)));
        }
        Ok(Self {
            root,
            cwd: cwd.to_path_buf(),
            now,
            home: None,
            brain_env: None,
            user: None,
            crash_at: None,
            exe: None,
            path_var: None,
            ranking_env: None,
        })
    }
}
/// The last component of `root` (`project` for `/`).
#[must_use]
pub fn folder_name(root: &Path) -> String {
    root.file_name().map_or_else(
        || "project".to_owned(),
        |n| n.to_string_lossy().into_owned(),
    )
}
/// The fault-injection hook of the crash tests: when `BMAD_MEM_CRASH_AT` names `step` (`asked`,
/// read once into [`Context::crash_at`]), the process stops dead there with exit status 70 — no
/// destructor runs, so the writer lock and any half-done work stay behind exactly as a kill
/// would leave them. The steps are named where a writer calls this (RELIABILITY.md lists them under "Crash points").
pub fn crash_point(asked: Option<&str>, step: &str) {
    if asked == Some(step) {
        std::process::exit(70);
    }
}
