//! The read-only view of BMAD+ Nexus runs (`docs/NEXUS.md`): where a run lives, how it is validated,
//! how today's files are re-hashed, and the *accepted source* that `observe` and `outcomes` bind
//! a memory section to.
//!
//! Nexus is written in JavaScript; this module follows its reader step for step, in the same
//! order (the first failure is the one reported) and with its messages, which differ from the
//! memory ones: Nexus names absolute paths and prefixes its own refusals with `Nexus: `.
//!
//! Invariants:
//! * Nothing here writes: not the run, not a lock, not a cache file.
//! * One [`Nexus`] is one consistent look at the disk. The project check, each run (loaded,
//!   validated, every task observed, locks checked), each file's hash, each executable's hash,
//!   each scope walk and each (run, task) resolution happen at most once per instance, so
//!   `outcomes` resolving 1,000 receipts of one run hashes that run's files once. A fresh
//!   instance re-reads everything (observe's second resolution relies on that).
//! * A task's observation never fails: whatever goes wrong while re-hashing its evidence (a
//!   missing file, a link in its scope, a malformed definition) makes it stale, for the reason
//!   Nexus would give. Only the project check, the run's loading and validation, and the Nexus
//!   locks refuse a resolution outright.
//! * JSON is compared and hashed as JavaScript writes it ([`crate::js::json`]): "equal" is equal
//!   compact text, and a field missing from the run stays missing (never `null`).
//!
//! One concern a file, data flowing down (no child imports this facade):
//! * `mod.rs`: [`Nexus`], its caches and the parallel prefetch;
//! * `evidence.rs`: loading a run, observing each task's evidence, the locks;
//! * `snapshot.rs`: today's disk as Nexus sees it, each file hashed once;
//! * `source.rs`: the accepted source a loaded run keeps for each task;
//! * `validate.rs`: the run file's envelope, plan and lifecycle checks;
//! * `record.rs`: a task's definition and dependencies by id;
//! * `paths.rs`: Nexus's own path rules and confinement (and why not the store's);
//! * `node.rs`: JavaScript's view of the run's values; `refusal.rs`: Nexus's messages.

mod evidence;
mod node;
mod paths;
mod record;
mod refusal;
mod snapshot;
mod source;
mod validate;

use std::collections::HashMap;
use std::io;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use crate::error::{Error, Result};
use crate::js::json::{self, Object, Value};

use crate::nexus::snapshot::Disk;
use crate::nexus::source::Loaded;

/// Resolves accepted sources of one project, caching within one invocation.
#[derive(Debug)]
pub struct Nexus {
    /// The root as given: absolute, lexically normalized.
    root: PathBuf,
    /// The project check, done once: the disk view rooted at the real path, or why not.
    disk: Option<Result<Disk>>,
    /// Each run, loaded, validated and observed once (or why it could not be).
    runs: HashMap<String, Result<Loaded>>,
    /// Each (run, task) resolution.
    sources: HashMap<(String, String), Result<Object>>,
}

impl Nexus {
    /// `root` = the project root: absolute, lexically normalized (links NOT resolved), an
    /// existing folder. Nothing is read until the first resolution.
    #[must_use]
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            disk: None,
            runs: HashMap::new(),
            sources: HashMap::new(),
        }
    }

    /// `docs/NEXUS.md` "The accepted source": the source object of task `task_id` in run `run_id`
    /// (keys in the documented order, fields missing from the run omitted, only `baseline`
    /// falling back to null). Resolved once per instance; later calls return the same result.
    ///
    /// # Errors
    /// The documented refusals (the project and path rules, the run's loading and validation,
    /// a Nexus lock, a task without current accepted evidence, an acceptance that does not bind
    /// the current attempt); [`Error::Io`] only for an I/O failure Nexus does not name.
    pub fn accepted_source(&mut self, run_id: &str, task_id: &str) -> Result<Object> {
        let key = (run_id.to_owned(), task_id.to_owned());
        if let Some(cached) = self.sources.get(&key) {
            return duplicate(cached);
        }
        let result = self.resolve(run_id, task_id);
        let copy = duplicate(&result);
        self.sources.insert(key, result);
        copy
    }

    /// Loads the runs named in `run_ids` that are not loaded yet, several at once when there
    /// are several and the machine has the cores: each run is read, validated and observed
    /// exactly as [`Nexus::accepted_source`] would do it, so the results and the errors are the
    /// same, only sooner. Files shared by runs are still hashed once.
    ///
    /// # Panics
    /// Only if loading a run panicked on a worker thread (a bug), as it would have on this one.
    pub fn prefetch<'a>(&mut self, run_ids: impl IntoIterator<Item = &'a str>) {
        let mut pending: Vec<&str> = Vec::new();
        for run_id in run_ids {
            if !self.runs.contains_key(run_id) && !pending.contains(&run_id) {
                pending.push(run_id);
            }
        }
        let workers = thread::available_parallelism()
            .map_or(1, NonZeroUsize::get)
            .min(MAX_WORKERS)
            .min(pending.len());
        if workers < 2 {
            return;
        }
        let Ok(disk) = self.disk() else {
            return;
        };
        let next = AtomicUsize::new(0);
        let work = || {
            let mut done = Vec::new();
            loop {
                let at = next.fetch_add(1, Ordering::Relaxed);
                let Some(run_id) = pending.get(at) else {
                    return done;
                };
                done.push((at, disk.load(run_id)));
            }
        };
        // This thread is one of the workers.
        let loaded: Vec<(usize, Result<Loaded>)> = thread::scope(|scope| {
            let helpers: Vec<_> = (1..workers).map(|_| scope.spawn(work)).collect();
            let mut loaded = work();
            for helper in helpers {
                loaded.extend(helper.join().expect("a run loader panicked"));
            }
            loaded
        });
        for (at, result) in loaded {
            self.runs.insert(pending[at].to_owned(), result);
        }
    }

    /// [`Nexus::accepted_source`] as `JSON.stringify` writes it, without copying the object.
    ///
    /// # Errors
    /// Those of [`Nexus::accepted_source`].
    pub fn accepted_source_text(&mut self, run_id: &str, task_id: &str) -> Result<String> {
        Ok(self.run(run_id)?.source(task_id)?.text.clone())
    }

    fn resolve(&mut self, run_id: &str, task_id: &str) -> Result<Object> {
        let text = &self.run(run_id)?.source(task_id)?.text;
        match json::parse(text) {
            Ok(Value::Object(object)) => Ok(object),
            _ => unreachable!("a source is written as a JSON object"),
        }
    }

    /// The run `run_id`, loaded and observed once.
    fn run(&mut self, run_id: &str) -> Result<&Loaded> {
        if !self.runs.contains_key(run_id) {
            let loaded = self.disk().and_then(|disk| disk.load(run_id));
            self.runs.insert(run_id.to_owned(), loaded);
        }
        match &self.runs[run_id] {
            Ok(loaded) => Ok(loaded),
            Err(e) => Err(duplicate_error(e)),
        }
    }

    /// The project check (once), then the disk view rooted at the real path.
    fn disk(&mut self) -> Result<&Disk> {
        let root = &self.root;
        match self.disk.get_or_insert_with(|| Disk::open(root)) {
            Ok(disk) => Ok(disk),
            Err(e) => Err(duplicate_error(e)),
        }
    }
}

/// Most threads [`Nexus::prefetch`] loads runs with.
const MAX_WORKERS: usize = 4;

/// A cached result, handed out again.
fn duplicate<T: Clone>(result: &Result<T>) -> Result<T> {
    match result {
        Ok(value) => Ok(value.clone()),
        Err(e) => Err(duplicate_error(e)),
    }
}

/// The same error again (`Error` holds an `io::Error`, which is not `Clone`).
fn duplicate_error(error: &Error) -> Error {
    match error {
        Error::Io { op, path, source } => Error::Io {
            op,
            path: path.clone(),
            source: io::Error::new(source.kind(), source.to_string()),
        },
        Error::NotFound(path) => Error::NotFound(path.clone()),
        other => Error::refused(other.to_string()),
    }
}

// Reads what only the repository has (docs: build.rs).
#[cfg(test)]
#[cfg(repository)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::evidence::{LOCKED, RUN_LIMIT};
    use super::node::{field, tasks_of};
    use super::record::Run;
    use super::source::{NOT_ACCEPTED, NOT_BOUND};
    use super::validate::run_of;
    use super::*;
    use crate::js::tape::Node;
    use std::fs;
    use testkit::nexus_run::{
        self, DEPENDENCY, NexusRun, RECOVERY_LOCK, RUN_ID, TASK, WRITER_LOCK,
    };

    const CORRUPT: &str = "Nexus: Corrupt run state; original bytes were preserved.";
    const FOREIGN: &str = "Nexus: Corrupt or foreign run state; original bytes were preserved.";
    const STALE: &str = "Nexus: Stale evidence: checked artifacts or write scope changed.";
    const BAD_RUN_ID: &str = "Nexus: Run ID must use 1-64 lowercase letters, numbers, _ or -.";

    /// `NexusRun::source(TASK)` for the untouched run, as compact JSON; `{root}` is the real
    /// path of the project. Pinned: any change here changes every stored receipt's source.
    const GOLDEN: &str = concat!(
        r#"{"kind":"nexus","runId":"demo-run","taskId":"auth","#,
        r#""attemptId":"a0000002-0000-4000-8000-000000000001","#,
        r#""verificationId":"b0000002-0000-4000-8000-000000000001","#,
        r#""verificationSha256":"54d8c64914f27f2453e7c91da59bd4509bb2e426033807f17634540aefa9b6a7","#,
        r#""acceptedAt":"2026-10-18T08:19:00.000Z","#,
        r#""artifactHashes":{"src/auth/login.js":"2581fea4563579c370a03b441efe8b765a57521bfc2ccd26debc956f9e8c1acf"},"#,
        r#""resourceHashes":{"tools/verify.sh":"ea08a13257e3533557318104c3e1f5765cba1711dfdbc54af19a4646aa1542d4"},"#,
        r#""scope":["src"],"objective":"Add password login.","#,
        r#""baseline":{"repository":"{root}","revision":null,"#,
        r#""framework":{"version":"1.4.0","runtimeHash":"a499c4fde5a7e24ae206046c0afcb21bb00e4d1b2452020e723a26f6c909de9c","#,
        r#""installManifestHash":null,"nodeVersion":"v20.18.0","platform":"linux","arch":"x64"},"#,
        r#""scopeHashes":{},"artifactHashes":{"src/auth/login.js":null},"#,
        r#""resourceHashes":{"tools/verify.sh":"ea08a13257e3533557318104c3e1f5765cba1711dfdbc54af19a4646aa1542d4"},"config":{}}}"#,
    );

    /// A temporary project holding the accepted run.
    fn project() -> (tempfile::TempDir, NexusRun) {
        let dir = tempfile::tempdir().unwrap();
        let run = NexusRun::accepted(dir.path());
        (dir, run)
    }

    fn resolve(run: &NexusRun, task: &str) -> Result<Object> {
        Nexus::new(run.root()).accepted_source(RUN_ID, task)
    }

    fn message(result: Result<Object>) -> String {
        result.expect_err("the source resolved").to_string()
    }

    /// Why Nexus observes `task` as stale, if it does (a fresh look at the disk).
    fn stale_reason(run: &NexusRun, task: &str) -> Option<String> {
        let disk = Disk::open(run.root()).expect("the project is valid");
        let doc = disk.load_run(RUN_ID).expect("the run loads");
        let run = Run::new(run_of(&doc));
        let observations = disk.observe(&run);
        let (_, observation) = tasks_of(run.value)
            .zip(observations)
            .find(|(record, _)| field(Some(*record), "id").and_then(Node::as_str) == Some(task))
            .expect("the task exists");
        observation.stale_reason
    }

    /// Files read for hashing so far.
    fn hashed_files(nexus: &Nexus) -> usize {
        match &nexus.disk {
            Some(Ok(disk)) => disk.hashed(),
            _ => 0,
        }
    }

    #[test]
    fn a_current_accepted_task_resolves_to_its_source() {
        let (_dir, run) = project();
        let source = Value::Object(resolve(&run, TASK).unwrap()).compact();
        let golden = GOLDEN.replace("{root}", &run.root().to_string_lossy());
        assert_eq!(source, golden);
        assert_eq!(source, run.source(TASK).compact());
        let dependency = Value::Object(resolve(&run, DEPENDENCY).unwrap());
        assert_eq!(dependency.compact(), run.source(DEPENDENCY).compact());
    }

    /// Applies `f` to the value at `path` (object keys, array indices) inside `value`.
    fn edit(value: &mut Value, path: &[&str], f: &dyn Fn(&mut Object)) {
        match (value, path.split_first()) {
            (Value::Object(object), None) => f(object),
            (Value::Object(object), Some((key, rest))) => {
                let mut child = object.get(key).cloned().expect("the path exists");
                edit(&mut child, rest, f);
                object.insert(*key, child);
            }
            (Value::Array(items), Some((index, rest))) => {
                edit(&mut items[index.parse::<usize>().unwrap()], rest, f);
            }
            _ => panic!("no object at {path:?}"),
        }
    }

    /// Edits the run file as `edits` say, then reseals it (`planHash`, envelope `sha256`).
    /// A change to one object of the run: where (keys, indices) and what.
    type Edit<'a> = (&'a [&'a str], &'a dyn Fn(&mut Object));

    /// The plan hash and the envelope's hash recomputed after an edit of the run.
    fn reseal(envelope: &mut Value) {
        edit(envelope, &["run"], &|run| {
            let plan_hash = run.get("plan").unwrap().sha256();
            run.insert("planHash", plan_hash);
        });
        edit(envelope, &[], &|envelope| {
            let sha256 = envelope.get("run").unwrap().sha256();
            envelope.insert("sha256", sha256);
        });
    }

    fn edit_run(run: &NexusRun, edits: &[Edit]) {
        let mut envelope = json::parse(&fs::read_to_string(run.run_path()).unwrap()).unwrap();
        for (path, f) in edits {
            edit(&mut envelope, &[&["run"], *path].concat(), *f);
        }
        reseal(&mut envelope);
        fs::write(run.run_path(), envelope.pretty() + "\n").unwrap();
    }

    /// [`TASK`]'s current attempt, its cancellation, verification environment and receipt.
    const ATTEMPT: &[&str] = &["tasks", "1", "attempts", "0"];
    const CANCELLATION: &[&str] = &["tasks", "1", "attempts", "0", "cancellation"];
    const ENVIRONMENT: &[&str] = &["tasks", "1", "attempts", "0", "verification", "environment"];
    const RECEIPT: &[&str] = &["tasks", "1", "attempts", "0", "verification", "checks", "0"];

    /// Sets `key` of the object at `path` in the run, then reseals the run.
    fn set(run: &NexusRun, path: &[&str], key: &str, value: impl Into<Value>) {
        let value = value.into();
        edit_run(
            run,
            &[(path, &move |object| {
                object.insert(key, value.clone());
            })],
        );
    }

    #[test]
    fn a_missing_field_is_omitted_and_only_a_falsy_baseline_becomes_null() {
        let (_dir, run) = project();
        edit_run(
            &run,
            &[
                (&["plan", "tasks", "1"], &|t| drop(t.remove("objective"))),
                (&["tasks", "1"], &|t| drop(t.remove("acceptedAt"))),
            ],
        );
        set(&run, ATTEMPT, "baseline", "");
        let source = resolve(&run, TASK).unwrap();
        let keys: Vec<&str> = source.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "kind",
                "runId",
                "taskId",
                "attemptId",
                "verificationId",
                "verificationSha256",
                "artifactHashes",
                "resourceHashes",
                "scope",
                "baseline"
            ]
        );
        assert_eq!(source.get("baseline"), Some(&Value::Null));
        set(&run, ATTEMPT, "baseline", 0.0);
        let source = resolve(&run, TASK).unwrap();
        assert_eq!(source.get("baseline"), Some(&Value::Null));
        set(&run, ATTEMPT, "baseline", "b");
        let source = resolve(&run, TASK).unwrap();
        assert_eq!(source.get("baseline"), Some(&Value::from("b")));
    }

    /// Applies `change` to a fresh accepted run, then checks the refusal of `task` and, when
    /// given, the reason Nexus observes `task` as stale.
    #[track_caller]
    fn case(change: fn(&mut NexusRun), task: &str, refusal: &str, stale: Option<&str>) {
        let (_dir, mut run) = project();
        change(&mut run);
        let mut nexus = Nexus::new(run.root());
        assert_eq!(message(nexus.accepted_source(RUN_ID, task)), refusal);
        if let Some(stale) = stale {
            assert_eq!(stale_reason(&run, task).as_deref(), Some(stale));
        }
    }

    #[test]
    fn lifecycle_refusals() {
        let lock = LOCKED;
        case(NexusRun::dependency_pending, DEPENDENCY, NOT_ACCEPTED, None);
        case(NexusRun::fail_verification, TASK, NOT_ACCEPTED, None);
        case(NexusRun::add_unaccepted_attempt, TASK, NOT_BOUND, None);
        case(|r| r.lock(WRITER_LOCK), TASK, lock, None);
        case(|r| r.lock(RECOVERY_LOCK), DEPENDENCY, lock, None);
    }

    #[test]
    fn stale_evidence_refusals() {
        let not = NOT_ACCEPTED;
        case(|r| r.edit_artifact(), TASK, not, Some(STALE));
        case(|r| r.add_file_in_scope(), TASK, not, Some(STALE));
        case(|r| r.edit_dependency_artifact(), TASK, not, Some(STALE));
        case(
            |r| r.edit_dependency_artifact(),
            DEPENDENCY,
            not,
            Some(STALE),
        );
        let resource =
            "Nexus: Protected verifier or agent resource changed since the plan was created.";
        case(|r| r.edit_resource(), TASK, not, Some(resource));
        let verifier = "Nexus: Verifier executable changed since plan creation.";
        case(NexusRun::change_verifier, TASK, not, Some(verifier));
        let pending = "Nexus: Dependency has not been accepted: schema";
        case(NexusRun::dependency_pending, TASK, not, Some(pending));
        let link = "Nexus: Scope contains a symlink or junction: src/auth/current.js";
        case(|r| r.add_symlink_in_scope(), TASK, not, Some(link));
        let aux = "Nexus: Nonportable path: src/aux.js";
        case(|r| r.add_nonportable_file(), TASK, not, Some(aux));
        case(
            NexusRun::add_cycle,
            TASK,
            not,
            Some("Nexus: Dependency cycle at auth"),
        );
        case(
            NexusRun::add_cycle,
            DEPENDENCY,
            not,
            Some("Nexus: Dependency cycle at schema"),
        );
        let missing = "Nexus: Required file is missing: tools/verify.sh";
        case(
            |r| fs::remove_file(r.root().join(nexus_run::RESOURCE)).unwrap(),
            TASK,
            not,
            Some(missing),
        );
    }

    #[test]
    fn run_refusals() {
        case(|r| r.tamper_envelope(), TASK, FOREIGN, None);
        case(NexusRun::foreign_project, TASK, FOREIGN, None);
        let plan = "Nexus: Run plan integrity mismatch.";
        case(NexusRun::break_plan_integrity, TASK, plan, None);
        let attempt = "Nexus: Invalid attempt lifecycle record.";
        case(NexusRun::remove_cancellation, TASK, attempt, None);
        case(NexusRun::remove_backend, DEPENDENCY, attempt, None);
        case(
            |r| fs::write(r.run_path(), "{\"schemaVersion\":1,").unwrap(),
            TASK,
            CORRUPT,
            None,
        );
        case(
            |r| fs::write(r.run_path(), "\u{feff}{}").unwrap(),
            TASK,
            CORRUPT,
            None,
        );
        case(
            |r| fs::write(r.run_path(), "null").unwrap(),
            TASK,
            FOREIGN,
            None,
        );
        case(
            |r| {
                let file = fs::File::options().write(true).open(r.run_path()).unwrap();
                file.set_len(RUN_LIMIT + 1).unwrap();
            },
            TASK,
            "Nexus: Run state exceeds the size limit.",
            None,
        );
    }

    #[test]
    fn refusals_of_edited_records() {
        let not = NOT_ACCEPTED;
        let invalid_task = "Nexus: Invalid task lifecycle record.";
        case(
            |r| set(r, &["tasks", "1"], "integration", "done"),
            TASK,
            invalid_task,
            None,
        );
        let invalid_attempt = "Nexus: Invalid attempt lifecycle record.";
        case(
            |r| set(r, ATTEMPT, "id", r.attempt_id(DEPENDENCY, 1)),
            TASK,
            invalid_attempt,
            None,
        );
        let cancelled = "Nexus: Current attempt has no eligible passed verification.";
        case(
            |r| set(r, CANCELLATION, "status", "requested"),
            TASK,
            not,
            Some(cancelled),
        );
        let obsolete =
            "Nexus: Verification environment is missing or obsolete; fresh evidence is required.";
        case(
            |r| set(r, ENVIRONMENT, "policy", "inherited"),
            TASK,
            not,
            Some(obsolete),
        );
        let incomplete = "Nexus: Verification receipt is incomplete.";
        case(
            |r| set(r, RECEIPT, "exitCode", 1.0),
            TASK,
            not,
            Some(incomplete),
        );
        let worker = "Nexus: Worker executable changed since plan creation.";
        case(
            |r| {
                let execution = Object::new()
                    .with("command", "/bin/sh")
                    .with("commandHash", "0".repeat(64))
                    .with("cwd", ".");
                set(r, &["plan", "tasks", "1"], "execution", execution);
            },
            TASK,
            not,
            Some(worker),
        );
    }

    #[test]
    fn a_missing_check_folder_is_nodes_enoent() {
        let (_dir, run) = project();
        set(&run, &["plan", "tasks", "1", "checks", "0"], "cwd", "gone");
        assert_eq!(
            stale_reason(&run, TASK),
            Some(format!(
                "ENOENT: no such file or directory, stat '{}'",
                run.root().join("gone").display()
            ))
        );
    }

    #[test]
    fn a_missing_or_corrupt_run_wins_over_a_lock() {
        let (_dir, run) = project();
        run.lock(WRITER_LOCK);
        let mut nexus = Nexus::new(run.root());
        let path = run.root().join(".bmad-plus/nexus/runs/other.json");
        assert_eq!(
            message(nexus.accepted_source("other", TASK)),
            format!(
                "ENOENT: no such file or directory, stat '{}'",
                path.display()
            )
        );
        fs::write(run.run_path(), "not json").unwrap();
        assert_eq!(
            message(Nexus::new(run.root()).accepted_source(RUN_ID, TASK)),
            CORRUPT
        );
    }

    #[test]
    fn run_ids_follow_the_nexus_rule() {
        let (_dir, run) = project();
        let mut nexus = Nexus::new(run.root());
        let long = "a".repeat(65);
        for bad in [
            "", "Demo-run", "-run", "_run", "run.json", "run/x", " run", &long,
        ] {
            assert_eq!(
                message(nexus.accepted_source(bad, TASK)),
                BAD_RUN_ID,
                "{bad:?}"
            );
        }
        let max = "a".repeat(64);
        let path = run.root().join(format!(".bmad-plus/nexus/runs/{max}.json"));
        assert_eq!(
            message(nexus.accepted_source(&max, TASK)),
            format!(
                "ENOENT: no such file or directory, stat '{}'",
                path.display()
            )
        );
    }

    #[test]
    fn unknown_or_malformed_task_ids_are_not_accepted_tasks() {
        let (_dir, run) = project();
        let mut nexus = Nexus::new(run.root());
        for task in ["nope", "AUTH", "", " auth", "auth "] {
            assert_eq!(message(nexus.accepted_source(RUN_ID, task)), NOT_ACCEPTED);
        }
    }

    #[test]
    fn a_rerun_and_reaccepted_task_resolves_to_its_new_attempt() {
        let (_dir, mut run) = project();
        let before = resolve(&run, TASK).unwrap();
        run.edit_artifact();
        run.rerun_and_accept();
        let after = Value::Object(resolve(&run, TASK).unwrap());
        assert_ne!(after.compact(), Value::Object(before).compact());
        assert_eq!(after.compact(), run.source(TASK).compact());
        assert_eq!(
            after.as_object().unwrap().get("attemptId"),
            Some(&Value::from(run.attempt_id(TASK, 2)))
        );
    }

    #[test]
    fn the_project_path_must_be_free_of_links() {
        let dir = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir(base.join("real")).unwrap();
        let run = NexusRun::accepted(&base.join("real"));
        symlink(base.join("real"), base.join("link")).unwrap();
        let link = base.join("link");
        assert_eq!(
            message(Nexus::new(&link).accepted_source(RUN_ID, TASK)),
            format!(
                "Adapter path contains a symlink or junction: {}",
                link.display()
            )
        );
        // A link inside the project, on the way to the Nexus folder.
        let nexus_dir = run.root().join(".bmad-plus/nexus");
        fs::rename(&nexus_dir, base.join("moved")).unwrap();
        symlink(base.join("moved"), &nexus_dir).unwrap();
        assert_eq!(
            message(Nexus::new(run.root()).accepted_source(RUN_ID, TASK)),
            format!(
                "Adapter path contains a symlink or junction: {}",
                nexus_dir.display()
            )
        );
    }

    #[test]
    fn nexus_state_must_be_plain_files_and_folders() {
        let (_dir, run) = project();
        let lock = run.root().join(".bmad-plus/nexus/writer.lock");
        fs::create_dir(&lock).unwrap();
        assert_eq!(
            message(resolve(&run, TASK)),
            format!("Adapter target is not a regular file: {}", lock.display())
        );
        fs::remove_dir(&lock).unwrap();
        let runs = run.root().join(".bmad-plus/nexus/runs");
        fs::rename(&runs, run.root().join("runs-moved")).unwrap();
        fs::write(&runs, "").unwrap();
        assert_eq!(
            message(resolve(&run, TASK)),
            format!("Adapter parent is not a directory: {}", runs.display())
        );
    }

    /// A copy of the accepted run under another id, resealed.
    fn copy_run(run: &NexusRun, id: &str) {
        let text = fs::read_to_string(run.run_path()).unwrap();
        let mut envelope =
            json::parse(&text.replace(&format!("\"{RUN_ID}\""), &format!("\"{id}\""))).unwrap();
        reseal(&mut envelope);
        let path = run.root().join(format!(".bmad-plus/nexus/runs/{id}.json"));
        fs::write(path, envelope.pretty() + "\n").unwrap();
    }

    #[test]
    fn prefetching_runs_in_parallel_changes_nothing_but_the_time() {
        let (_dir, run) = project();
        for id in ["copy-1", "copy-2", "copy-3"] {
            copy_run(&run, id);
        }
        let runs_dir = run.root().join(".bmad-plus/nexus/runs");
        fs::write(runs_dir.join("corrupt.json"), "{").unwrap();
        let runs = [
            "copy-1", RUN_ID, "copy-2", "missing", "corrupt", "copy-3", "Bad id", RUN_ID,
        ];
        let outcome = |nexus: &mut Nexus, run_id: &str, task: &str| {
            nexus
                .accepted_source(run_id, task)
                .map(|source| Value::Object(source).compact())
                .map_err(|e| e.to_string())
        };
        let mut prefetched = Nexus::new(run.root());
        prefetched.prefetch(runs);
        assert_eq!(
            prefetched.runs.len(),
            7,
            "every distinct run id is loaded once"
        );
        // Five files, whichever thread asked first: shared files are hashed once in all.
        assert_eq!(hashed_files(&prefetched), 5);
        for run_id in runs {
            for task in [TASK, DEPENDENCY, "unknown"] {
                let one_by_one = outcome(&mut Nexus::new(run.root()), run_id, task);
                assert_eq!(
                    outcome(&mut prefetched, run_id, task),
                    one_by_one,
                    "{run_id} {task}"
                );
            }
        }
        assert_eq!(hashed_files(&prefetched), 5);
        let copy = outcome(&mut prefetched, "copy-2", TASK).unwrap();
        assert!(
            copy.contains(r#""runId":"copy-2","taskId":"auth""#),
            "{copy}"
        );
        assert!(
            outcome(&mut prefetched, "missing", TASK)
                .unwrap_err()
                .starts_with("ENOENT")
        );
        assert_eq!(
            outcome(&mut prefetched, "corrupt", TASK).unwrap_err(),
            CORRUPT
        );
        assert_eq!(
            outcome(&mut prefetched, "Bad id", TASK).unwrap_err(),
            BAD_RUN_ID
        );
    }

    #[test]
    fn each_file_is_hashed_once_per_instance() {
        let (_dir, run) = project();
        let mut nexus = Nexus::new(run.root());
        let expected = Value::Object(nexus.accepted_source(RUN_ID, TASK).unwrap()).compact();
        // db/schema.sql, src/auth/login.js, src/auth/session.js, tools/verify.sh, /bin/sh.
        assert_eq!(hashed_files(&nexus), 5);
        for _ in 0..1000 {
            let again = nexus.accepted_source(RUN_ID, TASK).unwrap();
            assert_eq!(Value::Object(again).compact(), expected);
            nexus.accepted_source(RUN_ID, DEPENDENCY).unwrap();
        }
        assert_eq!(hashed_files(&nexus), 5);
        // One instance is one look at the disk; a fresh one sees today's files.
        run.edit_artifact();
        assert!(nexus.accepted_source(RUN_ID, TASK).is_ok());
        let mut fresh = Nexus::new(run.root());
        assert_eq!(message(fresh.accepted_source(RUN_ID, TASK)), NOT_ACCEPTED);
        assert_eq!(hashed_files(&fresh), 5);
    }

    #[test]
    fn failures_are_cached_too() {
        let (_dir, run) = project();
        let mut nexus = Nexus::new(run.root());
        run.lock(WRITER_LOCK);
        assert_eq!(message(nexus.accepted_source(RUN_ID, TASK)), LOCKED);
        fs::remove_file(run.root().join(".bmad-plus/nexus/writer.lock")).unwrap();
        assert_eq!(message(nexus.accepted_source(RUN_ID, DEPENDENCY)), LOCKED);
        assert!(Nexus::new(run.root()).accepted_source(RUN_ID, TASK).is_ok());
    }
}
