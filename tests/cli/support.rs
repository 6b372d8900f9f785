//! The integration-test builder: a temporary project, one run of the real binary, and the
//! expectations checked on it.
//!
//! ```text
//! TestProject::new()
//!     .fixture("example")                       // copy fixtures/example/ into the project
//!     .args(["write", "--agent", "forge"])      // BMAD_MEM_NOW is always set (to NOW)
//!     .code(0)
//!     .stdout("mem write: …\n")
//!     .file(".bmad/memory/journal.ndjson", b"…")
//!     .run();                                   // runs, checks, returns the outcome
//! ```
//!
//! Every project lives in `<tempdir>/project`; siblings (a portfolio brain, a link target) go
//! next to it, so "nothing changed" ([`TestProject::unchanged`], [`TestProject::refused`])
//! covers them too. Runs never inherit `BMAD_MEM_NOW` from the caller (and run with `TZ=UTC`),
//! never read stdin, and no run may print a Rust panic message. Every run under `--json` has its
//! stdout checked against its schema in `schemas/` ([`validate`]).

pub mod gitlab;
pub mod home;
pub use testkit::nexus_run;
pub mod schema;
pub mod validate;
pub mod writers;

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::de::DeserializeOwned;
use tempfile::TempDir;

/// The clock every test runs at unless it says otherwise.
pub const NOW: &str = "2026-10-18T09:30:00.000Z";

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_bmad-mem");

/// The journal, relative to the project root.
pub const JOURNAL: &str = ".bmad/memory/journal.ndjson";
/// The pattern scores document.
pub const SCORES: &str = ".bmad/memory/pattern-scores.json";
/// The promotion proposals.
pub const PROMOTIONS: &str = ".bmad/memory/promotions.ndjson";
/// The writer lock.
pub const LOCK: &str = ".bmad/memory/writer.lock";

/// A temporary project, the next run's arguments, and what that run must show.
#[derive(Debug)]
pub struct TestProject {
    _tmp: TempDir,
    base: PathBuf,
    root: PathBuf,
    cwd: PathBuf,
    env: Vec<(OsString, OsString)>,
    args: Vec<OsString>,
    expect: Expect,
}

/// Expectations for one run; cleared after it.
#[derive(Debug, Default)]
struct Expect {
    code: Option<i32>,
    stdout: Option<String>,
    stderr: Option<String>,
    files: Vec<(String, Vec<u8>)>,
    absent: Vec<String>,
    unchanged: bool,
}

/// One entry of a [`Snapshot`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir,
    File(Vec<u8>),
    Link(PathBuf),
}

/// Every file, folder and link under the test's temporary folder, by path relative to it.
pub type Snapshot = BTreeMap<PathBuf, Entry>;

/// What a run did (its exit status is checked through [`TestProject::code`]).
#[derive(Debug)]
pub struct Ran {
    pub project: TestProject,
    pub stdout: String,
    pub stderr: String,
}

impl Default for TestProject {
    fn default() -> Self {
        Self::new()
    }
}

impl TestProject {
    /// An empty project folder; runs start in it with `BMAD_MEM_NOW` = [`NOW`].
    #[must_use]
    pub fn new() -> Self {
        let tmp = tempfile::Builder::new()
            .prefix("bmad-mem-test-")
            .tempdir()
            .expect("create a temporary folder");
        // The real path, so that the paths a run prints are spelled as the tests build them.
        let base = tmp.path().canonicalize().expect("canonicalize the tempdir");
        let root = base.join("project");
        fs::create_dir(&root).expect("create the project folder");
        let cache = base.join("cache");
        Self {
            _tmp: tmp,
            base,
            cwd: root.clone(),
            root,
            env: vec![
                ("BMAD_MEM_NOW".into(), NOW.into()),
                ("TZ".into(), "UTC".into()),
                // Who acts comes from git's user.name first: the machine's own git config must
                // not name the actor of a test's ledger records.
                ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
                ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
                // The embedding model is never the machine's: a cache folder of the test's own,
                // empty until a test installs the tiny model (`with_tiny_model`).
                ("XDG_CACHE_HOME".into(), cache.into()),
            ],
            args: Vec::new(),
            expect: Expect::default(),
        }
    }

    /// Installs the tests' tiny embedding model (`fixtures/embed/tiny`) into the test's cache
    /// folder with `bmad-mem model install`, and makes every later run use it.
    #[must_use]
    pub fn with_tiny_model(self) -> Self {
        let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/embed/tiny");
        let args: [&OsStr; 4] = [
            "model".as_ref(),
            "install".as_ref(),
            "--from".as_ref(),
            tiny.as_os_str(),
        ];
        self.env("BMAD_MEM_TEST_MODEL", "tiny")
            .args(args)
            .code(0)
            .run()
            .project
    }

    /// The test's cache folder (`XDG_CACHE_HOME`), where the model is installed.
    #[must_use]
    pub fn cache(&self) -> PathBuf {
        self.base.join("cache")
    }

    /// Copies `fixtures/<name>/` into the project.
    #[must_use]
    pub fn fixture(self, name: &str) -> Self {
        copy_tree(&fixture_dir(name), &self.root);
        self
    }

    /// Copies `fixtures/<name>/` to `<tempdir>/<dir>`, next to the project.
    #[must_use]
    pub fn fixture_beside(self, name: &str, dir: &str) -> Self {
        let target = self.base.join(dir);
        fs::create_dir_all(&target).expect("create the sibling folder");
        copy_tree(&fixture_dir(name), &target);
        self
    }

    /// Writes a file in the project (parents created).
    #[must_use]
    pub fn write(self, rel: &str, bytes: impl AsRef<[u8]>) -> Self {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create parent folders");
        }
        fs::write(&path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        self
    }

    /// Appends to a file in the project.
    #[must_use]
    pub fn append(self, rel: &str, bytes: impl AsRef<[u8]>) -> Self {
        let mut content = self.read(rel);
        content.extend_from_slice(bytes.as_ref());
        self.write(rel, content)
    }

    /// Creates a folder (and its parents) in the project.
    #[must_use]
    pub fn mkdir(self, rel: &str) -> Self {
        fs::create_dir_all(self.path(rel)).expect("create folder");
        self
    }

    /// Removes a file, a link or a whole folder from the project.
    #[must_use]
    pub fn remove(self, rel: &str) -> Self {
        let path = self.path(rel);
        let meta = fs::symlink_metadata(&path).expect("inspect before removal");
        if meta.is_dir() {
            fs::remove_dir_all(&path).expect("remove folder");
        } else {
            fs::remove_file(&path).expect("remove file");
        }
        self
    }

    /// Makes `link` (relative to the project) a symbolic link to `target` (stored as given).
    #[must_use]
    pub fn symlink(self, target: impl AsRef<Path>, link: &str) -> Self {
        let path = self.path(link);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create parent folders");
        }
        symlink(target.as_ref(), &path).expect("create symlink");
        self
    }

    /// Sets an environment variable for the runs.
    #[must_use]
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Self {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.into(), value.as_ref().to_os_string()));
        self
    }

    /// Runs from `<tempdir>/<dir>` instead of the project folder (`""` = the tempdir itself).
    #[must_use]
    pub fn current_dir(mut self, dir: &str) -> Self {
        self.cwd = self.base.join(dir);
        self
    }

    /// The next run's arguments (after the program name).
    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args = args
            .into_iter()
            .map(|a| a.as_ref().to_os_string())
            .collect();
        self
    }

    /// The exit status the next run must have.
    #[must_use]
    pub fn code(mut self, code: i32) -> Self {
        self.expect.code = Some(code);
        self
    }

    /// The exact stdout the next run must print.
    #[must_use]
    pub fn stdout(mut self, text: &str) -> Self {
        self.expect.stdout = Some(text.to_owned());
        self
    }

    /// The exact stderr the next run must print.
    #[must_use]
    pub fn stderr(mut self, text: &str) -> Self {
        self.expect.stderr = Some(text.to_owned());
        self
    }

    /// The exact bytes a project file must hold after the next run.
    #[must_use]
    pub fn file(mut self, rel: &str, bytes: impl AsRef<[u8]>) -> Self {
        self.expect
            .files
            .push((rel.to_owned(), bytes.as_ref().to_vec()));
        self
    }

    /// A project path that must not exist after the next run.
    #[must_use]
    pub fn absent(mut self, rel: &str) -> Self {
        self.expect.absent.push(rel.to_owned());
        self
    }

    /// The next run must leave every file, folder and link byte-identical.
    #[must_use]
    pub fn unchanged(mut self) -> Self {
        self.expect.unchanged = true;
        self
    }

    /// The temporary folder that holds the project and its siblings.
    #[must_use]
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// A project-relative path made absolute.
    #[must_use]
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// The bytes of a project file.
    #[must_use]
    pub fn read(&self, rel: &str) -> Vec<u8> {
        let path = self.path(rel);
        fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
    }

    /// The text of a project file.
    #[must_use]
    pub fn read_text(&self, rel: &str) -> String {
        String::from_utf8(self.read(rel)).expect("UTF-8 file")
    }

    /// The names in a project folder, sorted.
    #[must_use]
    pub fn names(&self, rel: &str) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.path(rel))
            .expect("read folder")
            .map(|e| {
                e.expect("folder entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    }

    /// Every entry under the temporary folder, links recorded (never followed).
    #[must_use]
    pub fn snapshot(&self) -> Snapshot {
        let mut snapshot = Snapshot::new();
        record(&self.base, &self.base, &mut snapshot);
        snapshot
    }

    /// A command for the binary, set up as [`TestProject::run`] would (for runs that need their
    /// own plumbing: pipes, threads).
    #[must_use]
    pub fn command(&self) -> Command {
        let mut command = Command::new(BIN);
        command
            .args(&self.args)
            .current_dir(&self.cwd)
            .env_remove("BMAD_MEM_NOW")
            // The default ranking is asked for by the tests that check it, never inherited.
            .env_remove("BMAD_MEM_RANKING")
            .env_remove("BMAD_MEM_TEST_MODEL")
            // Colour is asked for by the tests that check it, never inherited.
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .stdin(Stdio::null());
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }

    /// Runs the binary and checks every expectation set since the last run.
    ///
    /// # Panics
    /// On any unmet expectation, with the arguments and both outputs.
    pub fn run(mut self) -> Ran {
        let expect = std::mem::take(&mut self.expect);
        let before = expect.unchanged.then(|| self.snapshot());
        let output = self.command().output().expect("spawn bmad-mem");
        let stdout = String::from_utf8(output.stdout).expect("stdout is UTF-8");
        let stderr = String::from_utf8(output.stderr).expect("stderr is UTF-8");
        let code = output
            .status
            .code()
            .unwrap_or_else(|| panic!("killed by a signal: {:?}\n{stderr}", output.status));
        let context = format!(
            "bmad-mem {:?}\n--- exit {code}\n--- stdout\n{stdout}--- stderr\n{stderr}---",
            self.args
        );
        assert!(!stderr.contains("panicked"), "a panic\n{context}");
        if let Some(want) = expect.code {
            assert_eq!(code, want, "exit status\n{context}");
        }
        if let Some(want) = &expect.stdout {
            assert_eq!(&stdout, want, "stdout\n{context}");
        }
        if let Some(want) = &expect.stderr {
            assert_eq!(&stderr, want, "stderr\n{context}");
        }
        for (rel, want) in &expect.files {
            let got = self.read(rel);
            assert!(
                got == *want,
                "bytes of {rel}\n--- got\n{}\n--- want\n{}\n{context}",
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(want)
            );
        }
        for rel in &expect.absent {
            assert!(
                fs::symlink_metadata(self.path(rel)).is_err(),
                "{rel} must not exist\n{context}"
            );
        }
        if let Some(before) = before {
            assert_same(&before, &self.snapshot(), &context);
        }
        validate::check_output(&self.args, code, &stdout);
        self.args.clear();
        Ran {
            project: self,
            stdout,
            stderr,
        }
    }

    /// docs §4's failure contract for the current arguments: exit 1 with
    /// `mem <action>: <message>` on stderr and nothing on stdout; then the same arguments with
    /// `--json` first: exit 1 with `{"error":"<message>"}` on stdout and nothing on stderr. Both
    /// runs must leave every byte unchanged.
    #[must_use]
    pub fn refused(self, action: &str, message: &str) -> Self {
        self.refused_as(&format!("mem {action}: {message}\n"), message)
    }

    /// [`TestProject::refused`] with the human stderr line given whole (for the messages that
    /// already carry their `mem <action>:` prefix).
    #[must_use]
    pub fn refused_as(self, human: &str, message: &str) -> Self {
        let args = self.args.clone();
        let json_line = format!("{}\n", serde_json::json!({ "error": message }));
        let with_json: Vec<OsString> = std::iter::once(OsString::from("--json"))
            .chain(args.iter().cloned())
            .collect();
        self.args(&args)
            .code(1)
            .stdout("")
            .stderr(human)
            .unchanged()
            .run()
            .project
            .args(with_json)
            .code(1)
            .stdout(&json_line)
            .stderr("")
            .unchanged()
            .run()
            .project
    }
}

impl Ran {
    /// Decodes stdout as JSON.
    ///
    /// # Panics
    /// When stdout does not decode into `T`.
    #[must_use]
    pub fn json<T: DeserializeOwned>(&self) -> T {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("decoding stdout: {e}\n{}", self.stdout))
    }

    /// The project, ready for another run.
    #[must_use]
    pub fn then(self) -> TestProject {
        self.project
    }
}

/// `fixtures/<name>` in the crate.
fn fixture_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display())) {
        let entry = entry.expect("fixture entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("fixture entry type").is_dir() {
            fs::create_dir_all(&target).expect("create fixture folder");
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copy fixture file");
        }
    }
}

fn record(base: &Path, dir: &Path, snapshot: &mut Snapshot) {
    for entry in fs::read_dir(dir).expect("read folder for snapshot") {
        let path = entry.expect("folder entry").path();
        let rel = path.strip_prefix(base).expect("under base").to_path_buf();
        let meta = fs::symlink_metadata(&path).expect("inspect for snapshot");
        if meta.file_type().is_symlink() {
            snapshot.insert(rel, Entry::Link(fs::read_link(&path).expect("read link")));
        } else if meta.is_dir() {
            snapshot.insert(rel, Entry::Dir);
            record(base, &path, snapshot);
        } else {
            snapshot.insert(
                rel,
                Entry::File(fs::read(&path).expect("read for snapshot")),
            );
        }
    }
}

/// Asserts two snapshots are equal, naming every path that differs.
#[track_caller]
pub fn assert_same(before: &Snapshot, after: &Snapshot, context: &str) {
    if before == after {
        return;
    }
    let mut diff = String::new();
    for (path, entry) in before {
        match after.get(path) {
            None => {
                let _ = writeln!(diff, "removed: {}", path.display());
            }
            Some(other) if other != entry => {
                let _ = writeln!(diff, "changed: {}", path.display());
            }
            Some(_) => {}
        }
    }
    for path in after.keys().filter(|p| !before.contains_key(*p)) {
        let _ = writeln!(diff, "created: {}", path.display());
    }
    panic!("files changed\n{diff}{context}");
}

/// The builder's own checks must be able to fail.
mod tests {
    use super::{JOURNAL, TestProject};

    #[test]
    #[should_panic(expected = "files changed")]
    fn unchanged_notices_a_created_file() {
        let _ = TestProject::new()
            .args(["write", "--agent", "forge"])
            .unchanged()
            .run();
    }

    #[test]
    #[should_panic(expected = "changed: project/.bmad/memory/journal.ndjson")]
    fn unchanged_notices_changed_bytes() {
        let _ = TestProject::new()
            .fixture("example")
            .args(["write", "--agent", "forge"])
            .unchanged()
            .run();
    }

    #[test]
    #[should_panic(expected = "bytes of .bmad/memory/journal.ndjson")]
    fn file_compares_bytes() {
        let _ = TestProject::new()
            .write(JOURNAL, "")
            .args(["write", "--agent", "forge"])
            .file(JOURNAL, "")
            .run();
    }

    #[test]
    #[should_panic(expected = "stderr")]
    fn refused_checks_the_message() {
        let _ = TestProject::new()
            .args(["write"])
            .refused("write", "appendEvent: event.agent is required!");
    }
}
