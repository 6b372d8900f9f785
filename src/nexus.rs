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

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{self, Read};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread;

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::js::json::{self, Object, Value, hex};
use crate::js::tape::{Doc, Items, Node};
use crate::js::text::{trim, utf16_len};
use crate::store::paths::decode_lossy;

/// Nexus's state folder, relative to the project root.
const BASE: &str = ".bmad-plus/nexus";
/// Largest run file Nexus reads (twice its 16 MiB state limit, as Nexus has it).
const RUN_LIMIT: u64 = 32 * 1024 * 1024;
/// Largest file a snapshot hashes.
const FILE_LIMIT: u64 = 16 * 1024 * 1024;
/// Most files a scope snapshot walks.
const SCOPE_LIMIT: usize = 10_000;
/// The only verification environment policy that counts as current evidence.
const ENVIRONMENT_POLICY: &str = "minimal-local-v1";

const INTEGRATIONS: [&str; 3] = ["pending", "accepted", "rejected"];
const EXECUTIONS: [&str; 6] = [
    "running",
    "blocked",
    "ambiguous",
    "completed",
    "failed",
    "cancelled",
];
const VERIFICATIONS: [&str; 5] = ["pending", "running", "passed", "failed", "ambiguous"];

const NOT_ACCEPTED: &str =
    "Outcome source is not an accepted task with current independently verified evidence.";
const NOT_BOUND: &str = "Nexus acceptance does not bind the current attempt and artifacts.";
const LOCKED: &str =
    "Nexus state is being written or recovered; retry observation after its owner finishes.";

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
                let at = next.fetch_add(1, AtomicOrdering::Relaxed);
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

/// A validated run, reduced to what resolutions need once every task is observed: the run's
/// JSON tree (several times the size of its file) is dropped as soon as it is summarised.
#[derive(Debug)]
struct Loaded {
    /// Each task id → its accepted source, or which refusal; the first record with an id wins,
    /// as Nexus's `find` has it.
    sources: HashMap<String, std::result::Result<Source, &'static str>>,
    /// Each task record's id (if a string) and observation, in task order.
    #[cfg(test)]
    observations: Vec<(Option<String>, Observation)>,
}

/// An accepted source as compact JSON text, written once on the thread that loaded it.
#[derive(Debug)]
struct Source {
    text: String,
}

/// What Nexus's `inspect` says of one task.
#[derive(Debug)]
struct Observation {
    /// The current attempt passed verification and its evidence is current (steps 1–6).
    is_evidence_eligible: bool,
    /// Why the task is stale, if it is: its protected snapshot fails, or its passed evidence
    /// is not current.
    stale_reason: Option<String>,
}

impl Loaded {
    /// Every task's accepted source (or refusal), from the run and its observations.
    fn new(run: &Run<'_>, run_id: &str, observations: Vec<Observation>) -> Self {
        let mut sources = HashMap::new();
        for (task, observation) in tasks_of(run.value).zip(&observations) {
            if let Some(task_id) = field(Some(task), "id").and_then(Node::as_str)
                && !sources.contains_key(task_id)
            {
                let source = accepted_source(task, observation, run, run_id, task_id)
                    .map(|text| Source { text });
                sources.insert(task_id.to_owned(), source);
            }
        }
        #[cfg(test)]
        let observations = tasks_of(run.value)
            .map(|task| {
                field(Some(task), "id")
                    .and_then(Node::as_str)
                    .map(str::to_owned)
            })
            .zip(observations)
            .collect();
        #[cfg(not(test))]
        drop(observations);
        Self {
            sources,
            #[cfg(test)]
            observations,
        }
    }

    fn source(&self, task_id: &str) -> Result<&Source> {
        match self.sources.get(task_id) {
            Some(Ok(source)) => Ok(source),
            Some(Err(refusal)) => Err(Error::refused(*refusal)),
            None => Err(Error::refused(NOT_ACCEPTED)),
        }
    }
}

/// `docs/NEXUS.md` "The accepted source" of one task record, over its observation.
fn accepted_source(
    task: Node<'_>,
    observation: &Observation,
    run: &Run<'_>,
    run_id: &str,
    task_id: &str,
) -> std::result::Result<String, &'static str> {
    let attempt = current_attempt(task);
    let verification = field(attempt, "verification");
    if !is_str(field(Some(task), "integration"), "accepted")
        || !observation.is_evidence_eligible
        || observation.stale_reason.is_some()
        || !is_str(field(attempt, "execution"), "completed")
        || !is_str(field(verification, "status"), "passed")
    {
        return Err(NOT_ACCEPTED);
    }
    let receipt = field(Some(task), "integrationReceipt");
    if !strict_eq(field(receipt, "attemptId"), field(attempt, "id"))
        || !same(
            field(receipt, "artifactHashes"),
            field(verification, "artifactHashes"),
        )
    {
        return Err(NOT_BOUND);
    }
    let definition = run.definition_of(task);
    // The compact text of the source object, written from the run's own compact text.
    let mut source = String::with_capacity(1024);
    source.push_str(r#"{"kind":"nexus","runId":"#);
    json::write_string(&mut source, run_id);
    source.push_str(r#","taskId":"#);
    json::write_string(&mut source, task_id);
    let mut copy = |key: &str, text: Option<&str>| {
        if let Some(text) = text {
            source.push_str(",\"");
            source.push_str(key);
            source.push_str("\":");
            source.push_str(text);
        }
    };
    copy("attemptId", field(attempt, "id").map(Node::compact));
    copy(
        "verificationId",
        field(verification, "id").map(Node::compact),
    );
    let verification_sha256 = verification.map(|v| format!("\"{}\"", v.sha256()));
    copy("verificationSha256", verification_sha256.as_deref());
    copy(
        "acceptedAt",
        field(Some(task), "acceptedAt").map(Node::compact),
    );
    copy(
        "artifactHashes",
        field(receipt, "artifactHashes").map(Node::compact),
    );
    copy(
        "resourceHashes",
        field(definition, "resourceHashes").map(Node::compact),
    );
    copy("scope", field(definition, "scope").map(Node::compact));
    copy(
        "objective",
        field(definition, "objective").map(Node::compact),
    );
    let baseline = field(attempt, "baseline").filter(|b| b.is_truthy());
    copy("baseline", Some(baseline.map_or("null", Node::compact)));
    source.push('}');
    Ok(source)
}

/// Records by id: `records.find(r => r.id === id)` without a scan per lookup (a plan holds
/// up to 200 tasks, and every task looks up its own definition and its dependencies').
struct ById<'a> {
    all: Vec<Node<'a>>,
    /// String id → the first record with it.
    by_id: HashMap<&'a str, Node<'a>>,
}

impl<'a> ById<'a> {
    fn of(all: impl Iterator<Item = Node<'a>>) -> Self {
        let all: Vec<Node<'a>> = all.collect();
        let mut by_id = HashMap::with_capacity(all.len());
        for &record in &all {
            if let Some(id) = field(Some(record), "id").and_then(Node::as_str) {
                by_id.entry(id).or_insert(record);
            }
        }
        Self { all, by_id }
    }

    /// The first record whose id is `===` to `id`.
    fn find(&self, id: Option<Node<'_>>) -> Option<Node<'a>> {
        match id.and_then(Node::as_str) {
            Some(id) => self.by_id.get(id).copied(),
            // Objects and arrays are never `===` to anything read from JSON: the scan is for
            // numbers, booleans, null and absent ids.
            None => self
                .all
                .iter()
                .copied()
                .find(|&record| strict_eq(field(Some(record), "id"), id)),
        }
    }
}

/// A validated run with its plan's definitions and its task records indexed by id.
struct Run<'a> {
    value: Node<'a>,
    definitions: ById<'a>,
    tasks: ById<'a>,
}

impl<'a> Run<'a> {
    fn new(value: Node<'a>) -> Self {
        Self {
            value,
            definitions: ById::of(plan_tasks(value)),
            tasks: ById::of(tasks_of(value)),
        }
    }

    /// The plan's definition of a task record (`run.plan.tasks.find(d => d.id === task.id)`).
    fn definition_of(&self, task: Node<'_>) -> Option<Node<'a>> {
        self.definitions.find(field(Some(task), "id"))
    }

    /// Nexus's `taskOf`: a dependency named by a valid task id that the run holds.
    fn task_of(&self, id: Node<'_>) -> Result<Node<'a>> {
        if !id.as_str().is_some_and(is_nexus_id) {
            return Err(nexus(
                "Task ID must use 1-64 lowercase letters, numbers, _ or -.",
            ));
        }
        self.tasks
            .find(Some(id))
            .ok_or_else(|| nexus(format!("Unknown task: {}", id.text())))
    }
}

/// The disk as Nexus sees it from the project's real path, with every hash it computed. Shared
/// by the threads of [`Nexus::prefetch`]: each memo computes a key once, whichever thread
/// asks first.
#[derive(Debug)]
struct Disk {
    /// The real path of the project root, as text (Nexus works on path strings).
    root: String,
    /// File path (relative) → sha256 hex, or why it could not be hashed.
    files: Memo<std::result::Result<String, String>>,
    /// Executable path (as stored) → sha256 hex of its real file, or why not.
    commands: Memo<std::result::Result<String, String>>,
    /// Compact JSON of a scope list → the compact JSON of its scope snapshot, or why not.
    scopes: Memo<std::result::Result<String, String>>,
    /// Check folder (relative, as stored) → its absolute path, or why it is not one.
    directories: Memo<std::result::Result<String, String>>,
    /// Absolute path → what `lstat` said of it: each path of the project is looked at once.
    lstats: Memo<std::result::Result<fs::Metadata, (io::ErrorKind, String)>>,
    /// Absolute folders whose every component is a directory, not a link ([`confine_in`]).
    folders: Mutex<HashSet<String>>,
    /// Files actually read for hashing (snapshots and executables).
    #[cfg(test)]
    reads: AtomicUsize,
}

/// A map whose values are computed once: the first thread to ask computes, the others wait.
#[derive(Debug)]
struct Memo<T>(Mutex<HashMap<String, Arc<OnceLock<T>>>>);

impl<T> Default for Memo<T> {
    fn default() -> Self {
        Self(Mutex::new(HashMap::new()))
    }
}

impl<T: Clone> Memo<T> {
    fn get_or(&self, key: &str, compute: impl FnOnce() -> T) -> T {
        let cell = {
            let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            match map.get(key) {
                Some(cell) => Arc::clone(cell),
                None => Arc::clone(map.entry(key.to_owned()).or_default()),
            }
        };
        cell.get_or_init(compute).clone()
    }
}

impl Disk {
    /// `docs/NEXUS.md` "the path rule": no link from `/` down to `.bmad-plus/nexus/`, the root a
    /// directory, then its real path.
    fn open(root: &Path) -> Result<Self> {
        let lexical = root.to_string_lossy();
        confine(&lexical, &format!("{BASE}/.probe"))?;
        match fs::metadata(root) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(nexus("Project directory is not a directory.")),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(enoent("stat", &lexical)),
            Err(e) => return Err(Error::io("cannot inspect", root, e)),
        }
        let real = fs::canonicalize(root).map_err(|e| Error::io("cannot resolve", root, e))?;
        Ok(Self {
            root: real.to_string_lossy().into_owned(),
            files: Memo::default(),
            commands: Memo::default(),
            scopes: Memo::default(),
            directories: Memo::default(),
            lstats: Memo::default(),
            folders: Mutex::default(),
            #[cfg(test)]
            reads: AtomicUsize::new(0),
        })
    }

    /// `docs/NEXUS.md`: load and validate the run, observe every task, then look for a lock — so a
    /// missing or corrupt run wins over a lock.
    fn load(&self, run_id: &str) -> Result<Loaded> {
        let doc = self.load_run(run_id)?;
        let run = Run::new(run_of(&doc));
        let observations = self.observe(&run);
        self.check_locks()?;
        Ok(Loaded::new(&run, run_id, observations))
    }

    /// `docs/NEXUS.md` "The run file": read `runs/<runId>.json` and validate it, first failure wins.
    /// The envelope is returned; its validated run is [`run_of`] it.
    fn load_run(&self, run_id: &str) -> Result<Doc> {
        if !is_nexus_id(run_id) {
            return Err(nexus(
                "Run ID must use 1-64 lowercase letters, numbers, _ or -.",
            ));
        }
        let target = self.confine(&format!("{BASE}/runs/{run_id}.json"))?.path;
        let meta = match fs::metadata(&target) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(enoent("stat", &target)),
            Err(e) => return Err(Error::io("cannot inspect", Path::new(&target), e)),
        };
        if meta.len() > RUN_LIMIT {
            return Err(nexus("Run state exceeds the size limit."));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        // Read one byte past the limit so a run that grew since the stat is still refused.
        fs::File::open(&target)
            .and_then(|file| file.take(RUN_LIMIT + 1).read_to_end(&mut bytes))
            .map_err(|e| Error::io("cannot read", Path::new(&target), e))?;
        if bytes.len() as u64 > RUN_LIMIT {
            return Err(nexus("Run state exceeds the size limit."));
        }
        // Node decodes the file as UTF-8 with replacement characters before parsing it.
        let envelope = Doc::parse(&decode_lossy(bytes))
            .map_err(|_| nexus("Corrupt run state; original bytes were preserved."))?;
        let run = validate_envelope(envelope.root(), run_id, &self.root)?;
        validate_plan(run)?;
        validate_lifecycle(run, run_id)?;
        Ok(envelope)
    }

    /// Every task's observation, in task order (Nexus's `inspect`). Dependencies found current
    /// once are not checked again within the run.
    fn observe(&self, run: &Run<'_>) -> Vec<Observation> {
        let mut verified = HashSet::new();
        tasks_of(run.value)
            .map(|task| {
                let mut stale_reason = None;
                if let Err(e) = self.protected_snapshot(run.definition_of(task)) {
                    stale_reason = Some(e.to_string());
                }
                let mut is_evidence_eligible = false;
                let status = field(field(current_attempt(task), "verification"), "status");
                if is_str(status, "passed") {
                    match self.evidence_current(run, task, &mut verified, &mut Vec::new()) {
                        Ok(()) => is_evidence_eligible = true,
                        Err(e) => stale_reason = Some(e.to_string()),
                    }
                }
                Observation {
                    is_evidence_eligible,
                    stale_reason,
                }
            })
            .collect()
    }

    /// `docs/NEXUS.md`: a `writer.lock` or `recovery.lock` means the run may be half written.
    fn check_locks(&self) -> Result<()> {
        let mut is_locked = false;
        for name in ["writer.lock", "recovery.lock"] {
            let Confined { path: target, meta } = self.confine(&format!("{BASE}/{name}"))?;
            if meta.is_some() {
                // Nexus reads the owner of a lock it finds; an unreadable one fails as it does.
                fs::read(&target).map_err(|e| Error::io("cannot read", Path::new(&target), e))?;
                is_locked = true;
            }
        }
        if is_locked {
            return Err(Error::refused(LOCKED));
        }
        Ok(())
    }

    /// `docs/NEXUS.md` "Is the evidence of a task current?", steps 1–6, dependencies recursively.
    /// `verified` holds the tasks already found current; `ancestors` the dependency path.
    fn evidence_current(
        &self,
        run: &Run<'_>,
        task: Node<'_>,
        verified: &mut HashSet<String>,
        ancestors: &mut Vec<String>,
    ) -> Result<()> {
        let id = field(Some(task), "id");
        let key = id.map_or("undefined", Node::compact).to_owned();
        if ancestors.contains(&key) {
            return Err(nexus(format!("Dependency cycle at {}", js_text(id))));
        }
        if verified.contains(&key) {
            return Ok(());
        }
        // 1. A passed verification of the current attempt, completed and not being cancelled.
        let attempt = current_attempt(task);
        let verification = field(attempt, "verification");
        if attempt.is_none()
            || !is_str(field(verification, "status"), "passed")
            || !strict_eq(field(verification, "attemptId"), field(attempt, "id"))
            || !is_str(field(attempt, "execution"), "completed")
            || is_str(field(field(attempt, "cancellation"), "status"), "requested")
        {
            return Err(nexus(
                "Current attempt has no eligible passed verification.",
            ));
        }
        // 2. The environment the checks ran in, under the current policy.
        let environment = field(verification, "environment").filter(|e| e.is_truthy());
        let is_current_environment = environment.is_some_and(|environment| {
            is_str(field(Some(environment), "policy"), ENVIRONMENT_POLICY)
                && field(Some(environment), "values").is_some_and(|values| {
                    is_str(field(Some(environment), "sha256"), &values.sha256())
                })
        });
        if !is_current_environment {
            return Err(nexus(
                "Verification environment is missing or obsolete; fresh evidence is required.",
            ));
        }
        // 3. Protected resources and executables unchanged.
        let definition = run.definition_of(task);
        self.protected_snapshot(definition)?;
        // 4. Today's scope and artifacts are the ones verified.
        let scope = self.scope_snapshot(field(definition, "scope"))?;
        if !is_text(field(verification, "scopeHashes"), &scope) {
            return Err(stale_evidence());
        }
        let artifacts = list(field(definition, "artifacts"), "artifacts")?;
        let artifacts = self.files_snapshot(&artifacts.map(Node::to_value).collect::<Vec<_>>())?;
        if !is_text(field(verification, "artifactHashes"), &artifacts) {
            return Err(stale_evidence());
        }
        // 5. One clean receipt per defined check, in order, from this attempt and environment.
        let receipts = list(field(verification, "checks"), "verification checks")?;
        let checks = list(field(definition, "checks"), "checks")?;
        let is_clean = |receipt: Node<'_>| {
            let receipt = Some(receipt);
            field(receipt, "exitCode").and_then(Node::as_f64) == Some(0.0)
                && !field(receipt, "error").is_some_and(Node::is_truthy)
                && !field(receipt, "signal").is_some_and(Node::is_truthy)
                && strict_eq(field(receipt, "attemptId"), field(attempt, "id"))
                && same(field(receipt, "environment"), environment)
        };
        if ids(receipts.clone()) != ids(checks) || !receipts.into_iter().all(is_clean) {
            return Err(nexus("Verification receipt is incomplete."));
        }
        // 6. Every dependency accepted, with current evidence of its own.
        ancestors.push(key.clone());
        for dependency_id in list(field(definition, "dependsOn"), "dependsOn")? {
            let dependency = run.task_of(dependency_id)?;
            if !is_str(field(Some(dependency), "integration"), "accepted") {
                return Err(nexus(format!(
                    "Dependency has not been accepted: {}",
                    dependency_id.text()
                )));
            }
            self.evidence_current(run, dependency, verified, ancestors)?;
        }
        ancestors.pop();
        verified.insert(key);
        Ok(())
    }

    /// `docs/NEXUS.md` "protected snapshot" of a task definition: resources, check folders and
    /// executables as they were when the plan was created.
    fn protected_snapshot(&self, definition: Option<Node<'_>>) -> Result<()> {
        let Some(definition) = definition else {
            return Err(malformed("the task has no definition in the plan"));
        };
        let hashes = field(Some(definition), "resourceHashes");
        let keys = object_keys(hashes)?;
        let resources = self.files_snapshot(&keys)?;
        if !is_text(hashes, &resources) {
            return Err(nexus(
                "Protected verifier or agent resource changed since the plan was created.",
            ));
        }
        for check in list(field(Some(definition), "checks"), "checks")? {
            self.directory_at(field(Some(check), "cwd").and_then(Node::as_str))?;
            let hash = self.command_hash(field(Some(check), "command").and_then(Node::as_str))?;
            if !is_str(field(Some(check), "commandHash"), &hash) {
                return Err(nexus("Verifier executable changed since plan creation."));
            }
        }
        let execution = field(Some(definition), "execution").filter(|e| e.is_truthy());
        if let Some(execution) = execution {
            self.directory_at(field(Some(execution), "cwd").and_then(Node::as_str))?;
            let hash =
                self.command_hash(field(Some(execution), "command").and_then(Node::as_str))?;
            if !is_str(field(Some(execution), "commandHash"), &hash) {
                return Err(nexus("Worker executable changed since plan creation."));
            }
        }
        Ok(())
    }

    /// `docs/NEXUS.md` "files snapshot": unique paths in UTF-16 order, each with its sha256; the
    /// compact JSON of the result.
    fn files_snapshot(&self, files: &[Value]) -> Result<String> {
        // `new Set(files)`: equal primitives collapse, in first-seen order; objects are distinct.
        let mut unique: Vec<&Value> = Vec::with_capacity(files.len());
        let mut seen_strings = HashSet::new();
        let mut seen_others: Vec<&Value> = Vec::new();
        for file in files {
            let is_new = match file {
                Value::String(s) => seen_strings.insert(s.as_str()),
                Value::Array(_) | Value::Object(_) => true,
                other if seen_others.contains(&other) => false,
                other => {
                    seen_others.push(other);
                    true
                }
            };
            if is_new {
                unique.push(file);
            }
        }
        // `Array.prototype.sort`: stable, by the text of each value in UTF-16 code units.
        unique.sort_by(|a, b| utf16_cmp(&sort_text(a), &sort_text(b)));
        let mut snapshot = Object::new();
        for file in unique {
            let file = check_relative(file.as_str(), false)?;
            let hash = self.file_hash(file)?;
            snapshot.insert(file, hash);
        }
        Ok(Value::Object(snapshot).compact())
    }

    /// The sha256 of a snapshot file, computed once per path.
    fn file_hash(&self, file: &str) -> Result<String> {
        self.files
            .get_or(file, || {
                self.read_file_hash(file).map_err(|e| e.to_string())
            })
            .map_err(Error::refused)
    }

    fn read_file_hash(&self, file: &str) -> Result<String> {
        // The confinement's look at the target is the `existsSync`/`statSync` Nexus does next.
        let Confined { path: target, meta } = self.confine(file)?;
        let Some(meta) = meta else {
            return Err(nexus(format!("Required file is missing: {file}")));
        };
        if meta.len() > FILE_LIMIT {
            return Err(nexus(format!(
                "File exceeds the 16 MiB snapshot limit: {file}"
            )));
        }
        self.hash_file(Path::new(&target))
    }

    /// `docs/NEXUS.md` "scope snapshot": files as they are, scope roots walked as directories.
    fn scope_snapshot(&self, scopes: Option<Node<'_>>) -> Result<String> {
        let key = scopes.map_or("undefined", Node::compact);
        self.scopes
            .get_or(key, || self.walk_scopes(scopes).map_err(|e| e.to_string()))
            .map_err(Error::refused)
    }

    fn walk_scopes(&self, scopes: Option<Node<'_>>) -> Result<String> {
        let mut files = Vec::new();
        for scope in list(scopes, "scope")? {
            let Some(scope) = scope.as_str() else {
                return Err(malformed("a scope path is not a string"));
            };
            let target = join(&self.root, scope);
            // Nexus's `existsSync(target) && lstatSync(target).isFile()`: a regular file by
            // `lstat` is not a link, so it exists for `stat` too; one call says both.
            let is_file = self.lstat(&target).is_ok_and(|meta| meta.is_file());
            if is_file {
                self.confine(scope)?;
                files.push(Value::from(scope));
            } else {
                // A scope root that is itself a link fails here, before the walk sees it.
                self.confine(&format!("{scope}/.nexus-scope-probe"))?;
                self.walk(scope, &mut files)?;
            }
        }
        self.files_snapshot(&files)
    }

    /// Collects the regular files under `file`, refusing links and special files.
    fn walk(&self, file: &str, files: &mut Vec<Value>) -> Result<()> {
        let target = join(&self.root, file);
        let meta = match self.lstat(&target) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io("cannot inspect", Path::new(&target), e)),
        };
        if meta.file_type().is_symlink() {
            return Err(nexus(format!(
                "Scope contains a symlink or junction: {file}"
            )));
        }
        if meta.is_dir() {
            self.directory_at(Some(file))?;
            let entries = fs::read_dir(&target)
                .map_err(|e| Error::io("cannot list", Path::new(&target), e))?;
            let mut names = Vec::new();
            for entry in entries {
                let entry = entry.map_err(|e| Error::io("cannot list", Path::new(&target), e))?;
                // Node reads names as UTF-8 with replacement characters, as here.
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
            names.sort_by(|a, b| utf16_cmp(a, b));
            for name in names {
                self.walk(&format!("{file}/{name}"), files)?;
            }
        } else if meta.is_file() {
            files.push(Value::from(file));
            if files.len() > SCOPE_LIMIT {
                return Err(nexus("Scope exceeds the 10000 file snapshot limit."));
            }
        } else {
            return Err(nexus(format!("Scope contains a non-regular file: {file}")));
        }
        Ok(())
    }

    /// [`confine`], remembering the folders it found on the way: within one look at the disk,
    /// a folder checked once is not checked again.
    fn confine(&self, file: &str) -> Result<Confined> {
        confine_in(
            &self.root,
            file,
            &|path| self.lstat(path),
            Some(&self.folders),
        )
    }

    /// `lstat` of an absolute path, once per path.
    fn lstat(&self, path: &str) -> io::Result<fs::Metadata> {
        self.lstats
            .get_or(path, || {
                fs::symlink_metadata(path).map_err(|e| (e.kind(), e.to_string()))
            })
            .map_err(|(kind, text)| io::Error::new(kind, text))
    }

    /// Nexus's `directoryAt`: a relative path (or `.`) naming an existing directory inside the
    /// project; its absolute path.
    fn directory_at(&self, file: Option<&str>) -> Result<String> {
        let file = check_relative(file, true)?;
        self.directories
            .get_or(file, || {
                self.find_directory(file).map_err(|e| e.to_string())
            })
            .map_err(Error::refused)
    }

    fn find_directory(&self, file: &str) -> Result<String> {
        let (target, probe) = if file == "." {
            (self.root.clone(), ".nexus-directory-probe".to_owned())
        } else {
            (
                join(&self.root, file),
                format!("{file}/.nexus-directory-probe"),
            )
        };
        self.confine(&probe)?;
        // The confinement looked at the folder with `lstat`; a folder that is not a link is
        // what `stat` would say too.
        if self.lstat(&target).is_ok_and(|meta| meta.is_dir()) {
            return Ok(target);
        }
        match fs::metadata(&target) {
            Ok(meta) if meta.is_dir() => Ok(target),
            Ok(_) => Err(nexus(format!("Check cwd is not a directory: {file}"))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(enoent("stat", &target)),
            Err(e) => Err(Error::io("cannot inspect", Path::new(&target), e)),
        }
    }

    /// Nexus's `executable`: the sha256 of the real file behind an absolute command path,
    /// computed once per command.
    fn command_hash(&self, command: Option<&str>) -> Result<String> {
        // Nexus also accepts `node` (its own interpreter) when a plan is created; a stored
        // plan holds the resolved path, so `node` here is refused like any relative command.
        let Some(command) = command.filter(|c| c.starts_with('/')) else {
            return Err(nexus(
                "Check command must be node or an absolute executable path.",
            ));
        };
        self.commands
            .get_or(command, || {
                self.read_command_hash(command).map_err(|e| e.to_string())
            })
            .map_err(Error::refused)
    }

    fn read_command_hash(&self, command: &str) -> Result<String> {
        let real = match fs::canonicalize(command) {
            Ok(real) => real,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(enoent("realpath", command));
            }
            Err(e) => return Err(Error::io("cannot resolve", Path::new(command), e)),
        };
        if !fs::metadata(&real).is_ok_and(|meta| meta.is_file()) {
            return Err(nexus("Check command is not a regular executable."));
        }
        self.hash_file(&real)
    }

    /// Plain sha256 hex of a file's bytes, read in chunks.
    // `self` only counts the reads, for the cache tests.
    #[cfg_attr(not(test), allow(clippy::unused_self))]
    fn hash_file(&self, path: &Path) -> Result<String> {
        #[cfg(test)]
        {
            self.reads.fetch_add(1, AtomicOrdering::Relaxed);
        }
        let mut file = fs::File::open(path).map_err(|e| Error::io("cannot open", path, e))?;
        let mut hasher = Sha256::new();
        let mut buffer = [0; 16 * 1024];
        loop {
            let n = match file.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io("cannot read", path, e)),
            };
            hasher.update(&buffer[..n]);
        }
        Ok(hex(&hasher.finalize()))
    }
}

/// `docs/NEXUS.md` envelope checks: `Corrupt or foreign run state` unless every one holds. Returns
/// the run.
fn validate_envelope<'d>(envelope: Node<'d>, run_id: &str, project: &str) -> Result<Node<'d>> {
    let foreign = || nexus("Corrupt or foreign run state; original bytes were preserved.");
    if !envelope.is_object() {
        return Err(foreign());
    }
    let Some(run) = envelope.get("run").filter(|run| run.is_truthy()) else {
        return Err(foreign());
    };
    let envelope = Some(envelope);
    let run_ref = Some(run);
    let is_valid = is_number(field(envelope, "schemaVersion"), 1.0)
        && is_str(field(envelope, "sha256"), &run.sha256())
        && is_number(field(run_ref, "schemaVersion"), 1.0)
        && is_str(field(run_ref, "id"), run_id)
        && is_str(field(run_ref, "project"), project)
        && field(run_ref, "sequence")
            .and_then(Node::as_f64)
            .is_some_and(is_integer)
        && field(run_ref, "tasks").is_some_and(Node::is_array);
    if !is_valid {
        return Err(foreign());
    }
    Ok(run)
}

/// The run of an envelope [`Disk::load_run`] validated.
fn run_of(envelope: &Doc) -> Node<'_> {
    envelope
        .root()
        .get("run")
        .expect("a validated envelope holds its run")
}

/// `docs/NEXUS.md`: the plan hashes to `planHash` and defines the run's tasks, in order.
fn validate_plan(run: Node<'_>) -> Result<()> {
    let run = Some(run);
    let plan = field(run, "plan");
    let plan_ids = field(plan, "tasks").and_then(Node::items).map(ids);
    let is_intact = plan.is_some_and(|plan| is_str(field(run, "planHash"), &plan.sha256()))
        && plan_ids.is_some()
        && plan_ids == field(run, "tasks").and_then(Node::items).map(ids);
    if !is_intact {
        return Err(nexus("Run plan integrity mismatch."));
    }
    Ok(())
}

/// `JSON.stringify(items.map(item => item.id))`: an item without an id gives `null`.
fn ids(items: Items<'_>) -> String {
    let mut text = String::from("[");
    for (i, item) in items.enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(field(Some(item), "id").map_or("null", Node::compact));
    }
    text.push(']');
    text
}

/// `docs/NEXUS.md` lifecycle records: every task and attempt well formed, attempt ids unique within
/// the run, and the current attempt with its `cancellation` and `backend` (docs §10).
fn validate_lifecycle(run: Node<'_>, run_id: &str) -> Result<()> {
    let mut attempt_ids = HashSet::new();
    for task in tasks_of(run) {
        let task = Some(task);
        let attempts = field(task, "attempts").and_then(Node::items);
        let Some(attempts) =
            attempts.filter(|_| is_one_of(field(task, "integration"), &INTEGRATIONS))
        else {
            return Err(nexus("Invalid task lifecycle record."));
        };
        let count = attempts.len();
        for (index, attempt) in attempts.enumerate() {
            let attempt = Some(attempt);
            let is_current = index + 1 == count;
            let id = field(attempt, "id")
                .and_then(Node::as_str)
                .filter(|id| !attempt_ids.contains(*id));
            let Some(id) = id.filter(|_| is_valid_attempt(attempt, task, run_id, is_current))
            else {
                return Err(nexus("Invalid attempt lifecycle record."));
            };
            attempt_ids.insert(id);
        }
    }
    Ok(())
}

/// An attempt record's shape (its id's uniqueness aside): it belongs to its task and run,
/// counts its verification rounds, keeps its history, and has known execution and verification
/// states; the current one also has its `cancellation` and `backend` objects.
fn is_valid_attempt(
    attempt: Option<Node<'_>>,
    task: Option<Node<'_>>,
    run_id: &str,
    is_current: bool,
) -> bool {
    let is_list = |key| field(attempt, key).is_some_and(Node::is_array);
    let is_object = |key| field(attempt, key).is_some_and(Node::is_object);
    let rounds = field(attempt, "verificationRounds").and_then(Node::as_f64);
    strict_eq(field(attempt, "taskId"), field(task, "id"))
        && is_str(field(attempt, "runId"), run_id)
        && rounds.is_some_and(|n| is_integer(n) && n >= 0.0)
        && is_list("verificationHistory")
        && is_list("reconciliations")
        && is_one_of(field(attempt, "execution"), &EXECUTIONS)
        && is_one_of(
            field(field(attempt, "verification"), "status"),
            &VERIFICATIONS,
        )
        && (!is_current || (is_object("cancellation") && is_object("backend")))
}

/// Nexus's `safeTarget`: the absolute path of the project-relative `file`, refused unless it is
/// a plain relative path inside `root` whose existing components, walked from `/`, are
/// directories (all but the target, which must be a regular file) and never links.
fn confine(root: &str, file: &str) -> Result<String> {
    confine_in(root, file, &|path| fs::symlink_metadata(path), None).map(|confined| confined.path)
}

/// A path that passed [`confine`], with what `lstat` said of it (`None`: it does not exist).
struct Confined {
    path: String,
    meta: Option<fs::Metadata>,
}

/// [`confine`], looking at each component with `lstat` (which may remember what it saw).
/// `folders`, when given, holds folders whose every component `lstat` found to be a directory:
/// a path in one of them only has its last component looked at, and a folder found so is added.
fn confine_in(
    root: &str,
    file: &str,
    lstat: &dyn Fn(&str) -> io::Result<fs::Metadata>,
    folders: Option<&Mutex<HashSet<String>>>,
) -> Result<Confined> {
    if file.is_empty()
        || file.contains(['\\', ':', '\0'])
        || file.starts_with('/')
        || file
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return Err(Error::refused(format!(
            "Adapter file must be a relative project path: {file}"
        )));
    }
    let target = join(root, file);
    let is_inside = if root == "/" {
        target.len() > 1
    } else {
        target
            .strip_prefix(root)
            .is_some_and(|rest| rest.len() > 1 && rest.starts_with('/'))
    };
    if !is_inside {
        return Err(Error::refused(format!(
            "Adapter path escapes the target project: {file}"
        )));
    }
    let parent = &target[..target.rfind('/').expect("an absolute path")];
    let lock = |folders: &Mutex<HashSet<String>>| {
        folders
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(parent)
    };
    let is_known = !parent.is_empty() && folders.is_some_and(lock);
    let (mut current, rest) = if is_known {
        (parent.to_owned(), &target[parent.len() + 1..])
    } else {
        (String::with_capacity(target.len()), &target[1..])
    };
    let mut target_meta = None;
    let mut has_reached_target = false;
    for part in rest.split('/') {
        current.push('/');
        current.push_str(part);
        let is_target = current.len() == target.len();
        has_reached_target = is_target;
        let meta = match lstat(&current) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => break,
            Err(e) => return Err(Error::io("cannot inspect", Path::new(&current), e)),
        };
        if meta.file_type().is_symlink() {
            return Err(Error::refused(format!(
                "Adapter path contains a symlink or junction: {current}"
            )));
        }
        if is_target && !meta.is_file() {
            return Err(Error::refused(format!(
                "Adapter target is not a regular file: {current}"
            )));
        }
        if !is_target && !meta.is_dir() {
            return Err(Error::refused(format!(
                "Adapter parent is not a directory: {current}"
            )));
        }
        if is_target {
            target_meta = Some(meta);
        }
    }
    if let Some(folders) = folders.filter(|_| has_reached_target && !is_known) {
        folders
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(parent.to_owned());
    }
    Ok(Confined {
        path: target,
        meta: target_meta,
    })
}

/// `docs/NEXUS.md` relative-path rule for every path a snapshot touches (Nexus's `relative`);
/// `allow_dot` admits `.` (a check folder).
fn check_relative(text: Option<&str>, allow_dot: bool) -> Result<&str> {
    if allow_dot && text == Some(".") {
        return Ok(".");
    }
    let Some(text) =
        text.filter(|t| !trim(t).is_empty() && utf16_len(t) <= 500 && !t.contains('\0'))
    else {
        return Err(nexus("Relative path must be a nonempty bounded string."));
    };
    // Backslashes and colons are refused, so Windows' absolute forms reduce to a leading `/`.
    if text.contains(['\\', ':', '<', '>', '"', '|', '?', '*'])
        || text.chars().any(|c| u32::from(c) < 32)
        || text.starts_with('/')
        || normalize(text) != text
        || text == ".."
        || text.starts_with("../")
    {
        return Err(nexus(format!("Unsafe relative path: {text}")));
    }
    if text.split('/').any(|part| {
        part.is_empty()
            || part == "."
            || part.ends_with('.')
            || part.ends_with(' ')
            || is_reserved_name(part)
    }) {
        return Err(nexus(format!("Nonportable path: {text}")));
    }
    Ok(text)
}

/// `/^(con|prn|aux|nul|com[1-9]|lpt[1-9])(?:\.|$)/i`: a Windows device name, with or without
/// an extension.
fn is_reserved_name(part: &str) -> bool {
    let stem = part.split('.').next().unwrap_or(part).as_bytes();
    let is = |name: &[u8]| stem.eq_ignore_ascii_case(name);
    match stem {
        [_, _, _] => is(b"con") || is(b"prn") || is(b"aux") || is(b"nul"),
        [a, b, c, digit] => {
            (b'1'..=b'9').contains(digit)
                && ([a, b, c].map(u8::to_ascii_lowercase) == *b"com"
                    || [a, b, c].map(u8::to_ascii_lowercase) == *b"lpt")
        }
        _ => false,
    }
}

/// `^[a-z0-9][a-z0-9_-]{0,63}$`, Nexus's rule for run and task ids.
fn is_nexus_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    (1..=64).contains(&bytes.len())
        && matches!(bytes[0], b'a'..=b'z' | b'0'..=b'9')
        && bytes[1..]
            .iter()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-'))
}

/// Node's `path.posix.normalize`: `.` segments and repeated slashes dropped, `..` folded into
/// the segment before it, a trailing slash kept.
fn normalize(path: &str) -> String {
    if is_normalized(path) {
        return path.to_owned();
    }
    normalize_segments(path)
}

/// [`normalize`] the long way: segment by segment.
fn normalize_segments(path: &str) -> String {
    if path.is_empty() {
        return ".".to_owned();
    }
    let is_absolute = path.starts_with('/');
    let has_trailing_slash = path.ends_with('/');
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if segments.last().is_some_and(|last| *last != "..") {
                    segments.pop();
                } else if !is_absolute {
                    segments.push("..");
                }
            }
            _ => segments.push(segment),
        }
    }
    let mut out = segments.join("/");
    if out.is_empty() {
        return match (is_absolute, has_trailing_slash) {
            (true, _) => "/".to_owned(),
            (false, true) => "./".to_owned(),
            (false, false) => ".".to_owned(),
        };
    }
    if has_trailing_slash {
        out.push('/');
    }
    if is_absolute {
        out.insert(0, '/');
    }
    out
}

/// Whether [`normalize`] gives `path` back as it is: one optional leading and trailing slash
/// around segments that are neither empty, `.` nor `..`.
fn is_normalized(path: &str) -> bool {
    let body = path.strip_prefix('/').unwrap_or(path);
    let body = body.strip_suffix('/').unwrap_or(body);
    !body.is_empty()
        && body
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
}

/// Node's `path.join(root, file)` for an absolute `root`.
fn join(root: &str, file: &str) -> String {
    if file.is_empty() {
        return normalize(root);
    }
    let joined = format!("{root}/{file}");
    if is_normalized(&joined) {
        return joined;
    }
    normalize(&joined)
}

/// The task records of a validated run.
fn tasks_of(run: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    field(Some(run), "tasks")
        .and_then(Node::items)
        .into_iter()
        .flatten()
}

/// The task definitions of a validated run's plan.
fn plan_tasks(run: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    field(field(Some(run), "plan"), "tasks")
        .and_then(Node::items)
        .into_iter()
        .flatten()
}

/// The current (last) attempt of a task record.
fn current_attempt(task: Node<'_>) -> Option<Node<'_>> {
    field(Some(task), "attempts")
        .and_then(Node::items)
        .and_then(Iterator::last)
}

/// `value[key]` in JavaScript: absent unless `value` is an object holding `key`.
fn field<'d>(value: Option<Node<'d>>, key: &str) -> Option<Node<'d>> {
    value?.get(key)
}

/// The items of a JSON array that Nexus iterates; anything else fails as JavaScript would.
fn list<'d>(value: Option<Node<'d>>, what: &str) -> Result<Items<'d>> {
    value
        .and_then(Node::items)
        .ok_or_else(|| malformed(&format!("{what} is not a list")))
}

/// `Object.keys(value)` as path values.
fn object_keys(value: Option<Node<'_>>) -> Result<Vec<Value>> {
    let Some(value) = value.filter(|value| !value.is_null()) else {
        return Err(malformed("resourceHashes is missing"));
    };
    if let Some(members) = value.members() {
        return Ok(members.map(|(key, _)| Value::from(key)).collect());
    }
    let count = match (value.items(), value.as_str()) {
        (Some(items), _) => items.len(),
        (_, Some(s)) => utf16_len(s),
        // Numbers and booleans have no own keys.
        _ => 0,
    };
    Ok((0..count).map(|i| Value::String(i.to_string())).collect())
}

/// JavaScript's `===` between two values read from JSON (absent is `undefined`): objects and
/// arrays are never equal, being distinct objects.
fn strict_eq(a: Option<Node<'_>>, b: Option<Node<'_>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            (a.is_null() && b.is_null())
                || a.as_bool().is_some_and(|a| b.as_bool() == Some(a))
                || a.as_f64().is_some_and(|a| b.as_f64() == Some(a))
                || a.as_str().is_some_and(|a| b.as_str() == Some(a))
        }
        _ => false,
    }
}

/// `value === text`.
fn is_str(value: Option<Node<'_>>, text: &str) -> bool {
    value.and_then(Node::as_str) == Some(text)
}

/// `value === n`.
fn is_number(value: Option<Node<'_>>, n: f64) -> bool {
    value.and_then(Node::as_f64) == Some(n)
}

/// `allowed.includes(value)`.
fn is_one_of(value: Option<Node<'_>>, allowed: &[&str]) -> bool {
    value
        .and_then(Node::as_str)
        .is_some_and(|value| allowed.contains(&value))
}

/// `Number.isInteger(n)`.
fn is_integer(n: f64) -> bool {
    n.is_finite() && n.trunc() == n
}

/// `JSON.stringify(a) === JSON.stringify(b)` (an absent value stringifies to nothing).
fn same(a: Option<Node<'_>>, b: Option<Node<'_>>) -> bool {
    a.map(Node::compact) == b.map(Node::compact)
}

/// `JSON.stringify(value) === text`, `text` being the compact JSON of a snapshot.
fn is_text(value: Option<Node<'_>>, text: &str) -> bool {
    value.map(Node::compact) == Some(text)
}

/// `String(value)` for a possibly absent value.
fn js_text(value: Option<Node<'_>>) -> String {
    value.map_or_else(|| "undefined".to_owned(), Node::text)
}

/// `String(value)`, without copying a string.
fn sort_text(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(s) => Cow::Borrowed(s),
        other => Cow::Owned(other.text()),
    }
}

/// Comparison of two strings by UTF-16 code units, as JavaScript's default sort does.
fn utf16_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// A refusal of Nexus's own, `Nexus: `-prefixed.
fn nexus(message: impl std::fmt::Display) -> Error {
    Error::refused(format!("Nexus: {message}"))
}

/// Node's text for a missing path.
fn enoent(syscall: &str, path: &str) -> Error {
    Error::refused(format!(
        "ENOENT: no such file or directory, {syscall} '{path}'"
    ))
}

fn stale_evidence() -> Error {
    nexus("Stale evidence: checked artifacts or write scope changed.")
}

/// A run field of the wrong shape, where Nexus itself would fail with a `TypeError`; it only
/// ever makes a task stale.
fn malformed(what: &str) -> Error {
    nexus(format!("Malformed task definition or evidence: {what}."))
}

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

#[cfg(test)]
#[path = "../tests/cli/support/nexus_run.rs"]
mod nexus_run;

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::nexus_run::{self, DEPENDENCY, NexusRun, RECOVERY_LOCK, RUN_ID, TASK, WRITER_LOCK};
    use super::*;

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

    /// Why Nexus observes `task` as stale, if it does.
    fn stale_reason(nexus: &mut Nexus, task: &str) -> Option<String> {
        let loaded = nexus.run(RUN_ID).expect("the run loads");
        let (_, observation) = loaded
            .observations
            .iter()
            .find(|(id, _)| id.as_deref() == Some(task))
            .expect("the task exists");
        observation.stale_reason.clone()
    }

    /// Files read for hashing so far.
    fn hashed_files(nexus: &Nexus) -> usize {
        match &nexus.disk {
            Some(Ok(disk)) => disk.reads.load(AtomicOrdering::Relaxed),
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
            assert_eq!(stale_reason(&mut nexus, task).as_deref(), Some(stale));
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
        let mut nexus = Nexus::new(run.root());
        assert_eq!(
            stale_reason(&mut nexus, TASK),
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

    #[track_caller]
    fn relative(path: &str, expected: std::result::Result<(), &str>) {
        let got = check_relative(Some(path), false)
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert_eq!(got, expected.map_err(str::to_owned), "{path:?}");
    }

    #[test]
    fn the_relative_path_rule() {
        let bounded = Err("Nexus: Relative path must be a nonempty bounded string.");
        for ok in [
            "a",
            "src/a.js",
            "a/b/c",
            "..a",
            "a..b/c",
            "con1",
            "com0",
            "lpt10.txt",
            "a b",
        ] {
            relative(ok, Ok(()));
        }
        relative(&"x".repeat(500), Ok(()));
        relative(&"😀".repeat(250), Ok(()));
        relative(&"x".repeat(501), bounded);
        relative(&"😀".repeat(251), bounded);
        relative("", bounded);
        relative(" \t", bounded);
        relative("a\0b", bounded);
        for path in [
            "a\\b", "c:x", "a<b", "a>b", "a\"b", "a|b", "a?b", "a*b", "a\u{1f}b",
        ] {
            relative(path, Err(&format!("Nexus: Unsafe relative path: {path}")));
        }
        for path in [
            "/a", "a//b", "./a", "a/./b", "a/../b", "a/..", "..", "../a", "a//",
        ] {
            relative(path, Err(&format!("Nexus: Unsafe relative path: {path}")));
        }
        for path in [
            ".",
            "./",
            "a/",
            "a.",
            "a/b ",
            "src/aux.js",
            "AUX",
            "Con.txt",
            "x/nul",
            "com1",
            "LPT9.log",
            "prn.a.b",
        ] {
            relative(path, Err(&format!("Nexus: Nonportable path: {path}")));
        }
        assert_eq!(check_relative(Some("."), true).unwrap(), ".");
        // A path that is not a string (a number, say) reaches the rule as `None`.
        assert_eq!(
            check_relative(None, false).unwrap_err().to_string(),
            "Nexus: Relative path must be a nonempty bounded string."
        );
    }

    #[test]
    fn posix_normalize_as_node_has_it() {
        for (path, normal) in [
            ("", "."),
            (".", "."),
            ("./", "./"),
            ("a/", "a/"),
            ("a//b", "a/b"),
            ("a/./b/", "a/b/"),
            ("a/../..", ".."),
            ("../../a", "../../a"),
            ("a/b/../../c", "c"),
            ("/a/../../b", "/b"),
            ("/", "/"),
            ("//a//", "/a/"),
            ("...", "..."),
        ] {
            assert_eq!(normalize(path), normal, "{path:?}");
        }
        assert_eq!(join("/r", "a/b"), "/r/a/b");
        assert_eq!(join("/r", "/x/"), "/r/x/");
        assert_eq!(join("/r", ""), "/r");
        assert_eq!(join("/", "a"), "/a");
    }

    proptest::proptest! {
        /// The shortcut for paths that are normal already gives what the long way gives.
        #[test]
        fn a_normal_path_is_its_own_normal_form(path in "[/.a]{0,8}") {
            if is_normalized(&path) {
                proptest::prop_assert_eq!(normalize_segments(&path), path.clone());
            }
            proptest::prop_assert_eq!(normalize(&path), normalize_segments(&path));
        }
    }

    #[test]
    fn confinement_messages_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        let text = root.to_string_lossy().into_owned();
        for bad in ["", "a\\b", "c:", "/abs", "a//b", "./a", "a/..", "a/"] {
            assert_eq!(
                confine(&text, bad).unwrap_err().to_string(),
                format!("Adapter file must be a relative project path: {bad}")
            );
        }
        fs::write(root.join("file"), "").unwrap();
        assert_eq!(
            confine(&text, "file/x").unwrap_err().to_string(),
            format!("Adapter parent is not a directory: {text}/file")
        );
        fs::create_dir(root.join("dir")).unwrap();
        assert_eq!(
            confine(&text, "dir").unwrap_err().to_string(),
            format!("Adapter target is not a regular file: {text}/dir")
        );
        symlink("nowhere", root.join("dangling")).unwrap();
        assert_eq!(
            confine(&text, "dangling/x").unwrap_err().to_string(),
            format!("Adapter path contains a symlink or junction: {text}/dangling")
        );
        assert_eq!(
            confine(&text, "missing/x").unwrap(),
            format!("{text}/missing/x")
        );
        assert_eq!(confine(&text, "file").unwrap(), format!("{text}/file"));
    }

    fn disk(root: &Path) -> Disk {
        Disk::open(root).unwrap()
    }

    fn paths(paths: &[&str]) -> Vec<Value> {
        paths.iter().map(|p| Value::from(*p)).collect()
    }

    #[test]
    fn files_snapshots_are_unique_sorted_in_utf16_order_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        // U+E000 sorts before U+1F600 in UTF-8, after it in UTF-16 (a surrogate pair).
        for name in ["b", "a", "\u{e000}", "\u{1f600}"] {
            fs::write(root.join(name), name).unwrap();
        }
        let disk = disk(&root);
        let snapshot = disk
            .files_snapshot(&paths(&["b", "\u{e000}", "a", "\u{1f600}", "b"]))
            .unwrap();
        let snapshot = json::parse(&snapshot).unwrap();
        let keys: Vec<String> = snapshot
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, _)| k.clone())
            .collect();
        assert_eq!(keys, ["a", "b", "\u{1f600}", "\u{e000}"]);
        assert_eq!(
            snapshot.as_object().unwrap().get("a"),
            Some(&Value::from(json::sha256_hex(b"a")))
        );
        assert_eq!(
            disk.files_snapshot(&paths(&["gone"]))
                .unwrap_err()
                .to_string(),
            "Nexus: Required file is missing: gone"
        );
        let big = fs::File::create(root.join("big")).unwrap();
        big.set_len(FILE_LIMIT).unwrap();
        assert!(disk.files_snapshot(&paths(&["big"])).is_ok());
        big.set_len(FILE_LIMIT + 1).unwrap();
        assert_eq!(
            Disk::open(&root)
                .unwrap()
                .files_snapshot(&paths(&["big"]))
                .unwrap_err()
                .to_string(),
            "Nexus: File exceeds the 16 MiB snapshot limit: big"
        );
    }

    #[test]
    fn scope_snapshots_walk_folders_and_refuse_what_they_cannot_hash() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join("s/b")).unwrap();
        fs::write(root.join("s/b/x"), "x").unwrap();
        fs::write(root.join("s/a"), "a").unwrap();
        fs::write(root.join("one"), "1").unwrap();
        let scope = |items: &[&str]| Doc::parse(&Value::Array(paths(items)).compact()).unwrap();
        let snapshot = disk(&root)
            .scope_snapshot(Some(scope(&["s", "one", "missing", "s/b"]).root()))
            .unwrap();
        assert_eq!(
            snapshot,
            format!(
                r#"{{"one":"{}","s/a":"{}","s/b/x":"{}"}}"#,
                json::sha256_hex(b"1"),
                json::sha256_hex(b"a"),
                json::sha256_hex(b"x")
            )
        );
        assert_eq!(
            disk(&root)
                .scope_snapshot(Some(scope(&["missing"]).root()))
                .unwrap(),
            "{}"
        );
        let socket = std::os::unix::net::UnixListener::bind(root.join("s/b/sock")).unwrap();
        assert_eq!(
            disk(&root)
                .scope_snapshot(Some(scope(&["s"]).root()))
                .unwrap_err()
                .to_string(),
            "Nexus: Scope contains a non-regular file: s/b/sock"
        );
        drop(socket);
        fs::remove_file(root.join("s/b/sock")).unwrap();
        symlink(root.join("s"), root.join("linked")).unwrap();
        assert_eq!(
            disk(&root)
                .scope_snapshot(Some(scope(&["linked"]).root()))
                .unwrap_err()
                .to_string(),
            format!(
                "Adapter path contains a symlink or junction: {}",
                root.join("linked").display()
            )
        );
        fs::create_dir(root.join("many")).unwrap();
        for i in 0..=SCOPE_LIMIT {
            fs::File::create(root.join(format!("many/{i}"))).unwrap();
        }
        assert_eq!(
            disk(&root)
                .scope_snapshot(Some(scope(&["many"]).root()))
                .unwrap_err()
                .to_string(),
            "Nexus: Scope exceeds the 10000 file snapshot limit."
        );
    }

    #[test]
    fn a_folder_checked_once_still_has_its_entries_checked() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join("d/sub")).unwrap();
        fs::write(root.join("d/a"), "a").unwrap();
        symlink(root.join("d/a"), root.join("d/link")).unwrap();
        let disk = disk(&root);
        let message = |file: &str| disk.confine(file).err().map(|e| e.to_string());
        assert_eq!(message("d/a"), None);
        assert!(
            disk.folders
                .lock()
                .unwrap()
                .contains(&format!("{}/d", root.display()))
        );
        assert_eq!(
            message("d/link"),
            Some(format!(
                "Adapter path contains a symlink or junction: {}/d/link",
                root.display()
            ))
        );
        assert_eq!(
            message("d/sub"),
            Some(format!(
                "Adapter target is not a regular file: {}/d/sub",
                root.display()
            ))
        );
        assert!(disk.confine("d/missing").unwrap().meta.is_none());
        // A folder under a missing one is not remembered: nothing was looked at below it.
        assert!(disk.confine("gone/x/y").unwrap().meta.is_none());
        assert!(
            !disk
                .folders
                .lock()
                .unwrap()
                .iter()
                .any(|f| f.contains("gone"))
        );
    }

    #[test]
    fn check_folders_must_exist() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        let disk = disk(&root);
        assert_eq!(
            disk.directory_at(Some("gone")).unwrap_err().to_string(),
            format!(
                "ENOENT: no such file or directory, stat '{}/gone'",
                root.display()
            )
        );
        assert_eq!(
            disk.directory_at(Some(".")).unwrap(),
            root.to_string_lossy()
        );
    }

    #[test]
    fn ids() {
        for ok in ["a", "0", "run-1", "a_b", &"z".repeat(64)] {
            assert!(is_nexus_id(ok), "{ok}");
        }
        for bad in ["", "A", "-a", "_a", "a.b", "a b", "é", &"z".repeat(65)] {
            assert!(!is_nexus_id(bad), "{bad}");
        }
    }
}
