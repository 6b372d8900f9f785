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
use crate::store::layout::{MEMORY_DIR, PACK_DIR};

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
    /// The user's cache folder, where the embedding model is installed: `XDG_CACHE_HOME` when
    /// it is an absolute path, else the platform's (`~/.cache`, `~/Library/Caches` on macOS,
    /// `%LOCALAPPDATA%` on Windows); `None` when none can be told.
    pub cache: Option<PathBuf>,
    /// A test hook: `BMAD_MEM_TEST_MODEL=tiny` makes the tests' tiny model the one installed and
    /// used instead of all-MiniLM-L6-v2; `None` in ordinary runs.
    pub test_model: Option<String>,
    /// Whether a long command may draw a progress bar: standard error is a terminal and the
    /// result is not asked for as JSON (the binary clears it under `--json`).
    pub progress: bool,
    /// `BMAD_MEM_RANKING` as given: the ranking `recall` uses when `--ranking` is not given
    /// (before the project config's); `None` when unset or empty.
    pub ranking_env: Option<String>,
    /// The commits `git merge` is merging, as it tells a merge driver (the names of its
    /// `GITHEAD_<commit>` variables), sorted; empty outside such a merge.
    pub merge_heads: Vec<String>,
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
        ctx.cache = cache_folder(
            std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from),
            std::env::var_os("LOCALAPPDATA").map(PathBuf::from),
            ctx.home.as_deref(),
        );
        ctx.test_model = std::env::var_os("BMAD_MEM_TEST_MODEL")
            .map(|v| v.to_string_lossy().into_owned())
            .filter(|v| !v.is_empty());
        ctx.progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
        ctx.ranking_env = std::env::var_os("BMAD_MEM_RANKING")
            .map(|v| v.to_string_lossy().into_owned())
            .filter(|v| !v.is_empty());
        ctx.merge_heads = std::env::vars_os()
            .filter_map(|(key, _)| {
                let commit = key.to_str()?.strip_prefix("GITHEAD_")?;
                commit
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit())
                    .then(|| commit.to_owned())
            })
            .collect();
        ctx.merge_heads.sort();
        Ok(ctx)
    }

    /// A context for `directory` (an OS path: any bytes the system accepts) resolved against
    /// `cwd`, with no home and no explicit brain.
    ///
    /// # Errors
    /// When the project folder does not exist or is not a folder.
    pub fn new(cwd: &Path, directory: Option<&Path>, now: Now) -> Result<Self> {
        let root = match directory {
            Some(directory) => resolve(cwd, directory),
            None => discover_root(&resolve(cwd, Path::new("."))),
        };
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
            cache: None,
            test_model: None,
            progress: false,
            ranking_env: None,
            merge_heads: Vec::new(),
        })
    }
}

/// The user's cache folder: `xdg` when absolute (the XDG rule: a relative one is ignored), else
/// `%LOCALAPPDATA%` on Windows, `~/Library/Caches` on macOS, `~/.cache` elsewhere.
fn cache_folder(
    xdg: Option<PathBuf>,
    local_app_data: Option<PathBuf>,
    home: Option<&Path>,
) -> Option<PathBuf> {
    if let Some(xdg) = xdg.filter(|p| p.is_absolute()) {
        return Some(xdg);
    }
    if cfg!(windows) {
        return local_app_data.filter(|p| p.is_absolute());
    }
    let home = home?;
    Some(if cfg!(target_os = "macos") {
        home.join("Library").join("Caches")
    } else {
        home.join(".cache")
    })
}

/// The project root when `-d` is not given, found as git finds its own work tree: the nearest
/// folder at or above `cwd` holding a memory (`.bmad/memory/` or `.agents/memory/`); if none,
/// the nearest holding `.git` (a folder, or the file of a linked work tree or submodule); else
/// `cwd` itself. An agent started in a subfolder of a project thus reads and writes the
/// project's memory, never a second one of its own.
///
/// A folder whose marker belongs to another user is passed over (git's `safe.directory` rule in
/// spirit): a memory planted in a shared folder above, such as `/tmp/.bmad/memory`, must not
/// capture every project below it.
#[must_use]
pub fn discover_root(cwd: &Path) -> PathBuf {
    let owned = |path: &Path, is_dir: bool| {
        std::fs::metadata(path).is_ok_and(|meta| meta.is_dir() == is_dir && is_owned(&meta))
    };
    let memory = cwd.ancestors().find(|folder| {
        MEMORY_MARKERS
            .iter()
            .any(|marker| owned(&folder.join(marker), true))
    });
    let found = memory.or_else(|| {
        cwd.ancestors().find(|folder| {
            let git = folder.join(".git");
            owned(&git, true) || owned(&git, false)
        })
    });
    found.unwrap_or(cwd).to_path_buf()
}

/// The folders whose presence makes a project root.
const MEMORY_MARKERS: [&str; 2] = [MEMORY_DIR, PACK_DIR];

/// Whether the file or folder `meta` describes belongs to the user running this process.
fn is_owned(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    meta.uid() == rustix::process::geteuid().as_raw()
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

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn the_root_is_the_nearest_memory_then_the_nearest_git_then_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        let deep = top.join("repo/app/src/deep");
        fs::create_dir_all(&deep).unwrap();
        assert_eq!(discover_root(&deep), deep, "no marker: the folder itself");
        fs::create_dir(top.join("repo/.git")).unwrap();
        assert_eq!(discover_root(&deep), top.join("repo"), "the nearest .git");
        fs::write(top.join("repo/app/.git"), "gitdir: ../.git/worktrees/app\n").unwrap();
        assert_eq!(
            discover_root(&deep),
            top.join("repo/app"),
            "a linked work tree's .git file"
        );
        fs::create_dir_all(top.join("repo/.agents/memory")).unwrap();
        assert_eq!(
            discover_root(&deep),
            top.join("repo"),
            "a memory wins over a nearer .git"
        );
        fs::create_dir_all(top.join("repo/app/src/.bmad/memory")).unwrap();
        assert_eq!(
            discover_root(&deep),
            top.join("repo/app/src"),
            "the nearest memory"
        );
        assert_eq!(
            discover_root(&top.join("repo/app/src")),
            top.join("repo/app/src"),
            "at the root itself"
        );
        // A file where the memory folder would be is no memory.
        fs::create_dir_all(top.join("other/x")).unwrap();
        fs::create_dir(top.join("other/.bmad")).unwrap();
        fs::write(top.join("other/.bmad/memory"), "").unwrap();
        assert_eq!(discover_root(&top.join("other/x")), top.join("other/x"));
    }

    #[test]
    fn a_marker_of_another_user_is_passed_over() {
        if rustix::process::geteuid().as_raw() != 0 {
            // Only root can give a folder away; the rule is the same for everyone.
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        let inner = top.join("shared/project");
        fs::create_dir_all(inner.join(".git")).unwrap();
        fs::create_dir_all(top.join("shared/.bmad/memory")).unwrap();
        assert_eq!(discover_root(&inner), top.join("shared"));
        std::os::unix::fs::chown(top.join("shared/.bmad/memory"), Some(4242), None).unwrap();
        assert_eq!(
            discover_root(&inner),
            inner,
            "the planted memory is not taken"
        );
    }

    #[test]
    fn an_explicit_folder_is_taken_as_given() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        fs::create_dir_all(top.join(".bmad/memory")).unwrap();
        fs::create_dir_all(top.join("sub")).unwrap();
        let now = Now::from_ms(0.0);
        let sub = top.join("sub");
        assert_eq!(Context::new(&sub, None, now.clone()).unwrap().root, top);
        assert_eq!(
            Context::new(&sub, Some(Path::new(".")), now).unwrap().root,
            sub
        );
    }

    #[test]
    fn the_cache_folder_follows_xdg_then_the_platform() {
        let home = Path::new("/home/u");
        assert_eq!(
            cache_folder(Some("/x/cache".into()), None, Some(home)),
            Some(PathBuf::from("/x/cache"))
        );
        // A relative XDG_CACHE_HOME is ignored, as the XDG rules say.
        let default = cache_folder(Some("cache".into()), None, Some(home));
        if cfg!(target_os = "macos") {
            assert_eq!(default, Some(PathBuf::from("/home/u/Library/Caches")));
        } else if !cfg!(windows) {
            assert_eq!(default, Some(PathBuf::from("/home/u/.cache")));
            assert_eq!(cache_folder(None, None, None), None);
        }
    }
}
