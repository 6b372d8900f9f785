//! A builder of real BMAD+ Nexus runs for tests (what Nexus checks of them: `docs/NEXUS.md`).
//!
//! [`NexusRun::accepted`] writes a small project and a run in which both tasks are accepted
//! with current, independently verified evidence; every other function moves that run to one
//! lifecycle state (an artifact edited, a verification failed, a lock present, …) by editing the
//! project's files or the run record, exactly as Nexus or a person would leave them.
//!
//! ```text
//! <root>/db/schema.sql           task `schema`: scope ["db"], artifact db/schema.sql
//! <root>/src/auth/login.js       task `auth`:   scope ["src"], artifact src/auth/login.js,
//! <root>/src/auth/session.js                    depends on `schema`
//! <root>/tools/verify.sh         protected resource of both tasks (in `resourceHashes`)
//! <root>/.bmad-plus/nexus/runs/demo-run.json    the run, in its sealed envelope
//! ```
//!
//! Every hash is computed from the real files when the run is written: scope, artifact and
//! resource hashes from the project, `commandHash` from the real file behind `/bin/sh` on this
//! machine, `planHash` and the envelope's `sha256` from the compact JSON of the plan and run
//! ([`crate::json`], i.e. as JavaScript writes it). `run.project` is the real path of
//! the root. Ids and timestamps are fixed, so the same calls give the same bytes; the only
//! machine-dependent values (`run.project`, `baseline.repository`, each check's `command` and
//! `commandHash` in the plan) never reach a verification record, so `verificationSha256` is the
//! same everywhere.
//!
//! The run is kept as a model (plan definitions, task records, attempts) and re-rendered and
//! re-sealed after each change; [`NexusRun::source`] computes, independently of the code under
//! test, the accepted source Nexus would report for a task.
//!
//! Used by the library's unit tests (`src/nexus/`), the integration tests, the benches' run
//! writer ([`crate::nexus_store`]) and the fuzz targets. Tests pass
//! the root of their temporary project (its path must be free of links, as Nexus requires;
//! [`NexusRun::root`] is its real path):
//!
//! ```text
//! let mut run = NexusRun::accepted(project_root);   // observe `auth` here: accepted-current
//! run.edit_artifact();                              // then `outcomes`: not current
//! ```
//!
//! What resolving the accepted source of a task gives after each change:
//!
//! | change | [`TASK`] | [`DEPENDENCY`] |
//! | --- | --- | --- |
//! | none ([`NexusRun::accepted`]) | the source ([`NexusRun::source`]) | the source |
//! | `edit_artifact`, `add_file_in_scope`, `add_nonportable_file`, `add_symlink_in_scope`, `fail_verification` | not an accepted task with current evidence | the source |
//! | `dependency_pending`, `edit_dependency_artifact`, `edit_resource`, `change_verifier`, `add_cycle` | not an accepted task with current evidence | same |
//! | `add_unaccepted_attempt` | acceptance does not bind the current attempt | the source |
//! | `rerun_and_accept` | a new source (attempt 2) | the source |
//! | `use_project_verifier` | the same source | the same source |
//! | `lock(WRITER_LOCK)`, `lock(RECOVERY_LOCK)` | Nexus state is being written or recovered | same |
//! | `tamper_envelope`, `foreign_project` | `Nexus: Corrupt or foreign run state; …` | same |
//! | `break_plan_integrity` | `Nexus: Run plan integrity mismatch.` | same |
//! | `remove_cancellation`, `remove_backend` | `Nexus: Invalid attempt lifecycle record.` | same |

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use crate::json::{Object, Value, sha256_hex};

/// The run's id.
pub const RUN_ID: &str = "demo-run";
/// The task the tests bind memory to; it depends on [`DEPENDENCY`].
pub const TASK: &str = "auth";
/// The task [`TASK`] depends on.
pub const DEPENDENCY: &str = "schema";
/// The run file, relative to the project root.
pub const RUN_FILE: &str = ".bmad-plus/nexus/runs/demo-run.json";
/// [`TASK`]'s artifact.
pub const ARTIFACT: &str = "src/auth/login.js";
/// [`DEPENDENCY`]'s artifact.
pub const DEPENDENCY_ARTIFACT: &str = "db/schema.sql";
/// The protected resource both tasks' checks run.
pub const RESOURCE: &str = "tools/verify.sh";
/// [`TASK`]'s write scope.
pub const SCOPE: &str = "src";
/// The verifier script [`NexusRun::use_project_verifier`] points the checks at.
pub const VERIFIER: &str = "tools/run-checks";
/// Nexus's writer lock, for [`NexusRun::lock`].
pub const WRITER_LOCK: &str = "writer.lock";
/// Nexus's recovery lock, for [`NexusRun::lock`].
pub const RECOVERY_LOCK: &str = "recovery.lock";
/// The check environment policy Nexus accepts.
pub const POLICY: &str = "minimal-local-v1";

const FILES: [(&str, &str); 4] = [
    (
        "db/schema.sql",
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n",
    ),
    (
        "src/auth/login.js",
        "export function login(user, password) {\n  return user.password === password;\n}\n",
    ),
    (
        "src/auth/session.js",
        "export const SESSION_TTL_SECONDS = 3600;\n",
    ),
    (
        "tools/verify.sh",
        "#!/bin/sh\n# Runs the checks of the task named in $1.\nexit 0\n",
    ),
];

/// One task: its plan definition and its record in `run.tasks`.
#[derive(Debug, Clone)]
struct Task {
    id: String,
    objective: String,
    depends_on: Vec<String>,
    scope: Vec<String>,
    artifacts: Vec<String>,
    check: String,
    /// `resourceHashes`, computed when the plan is created.
    resource_hashes: Object,
    integration: &'static str,
    accepted_at: Option<String>,
    /// `integrationReceipt.attemptId` (the receipt's artifact hashes are that attempt's).
    receipt: Option<usize>,
    attempts: Vec<Attempt>,
}

/// One attempt of a task, numbered from 1.
#[derive(Debug, Clone)]
struct Attempt {
    number: usize,
    verification: &'static str,
    exit_code: u32,
    scope_hashes: Object,
    artifact_hashes: Object,
    baseline_scope: Object,
    has_cancellation: bool,
    has_backend: bool,
}

/// A task of a run, as its plan defines it: one write scope, one artifact, one check.
#[derive(Debug, Clone)]
pub struct Definition {
    pub id: String,
    pub objective: String,
    pub depends_on: Vec<String>,
    /// The write scope: a folder (or a file) of the project.
    pub scope: String,
    /// The artifact the task delivers, inside its scope.
    pub artifact: String,
    /// The id of the task's one check, which runs [`RESOURCE`] with the task id.
    pub check: String,
}

/// How a run numbers its attempts, verifications and host handles.
#[derive(Debug, Clone, Copy)]
enum Numbering {
    /// The demo run: ids by task and attempt, a handle per attempt number.
    Demo,
    /// Run `r` of several (the benches'): ids by run and task, a handle per task.
    Run(usize),
}

/// A Nexus run in a project on disk, and the model it was written from.
#[derive(Debug, Clone)]
pub struct NexusRun {
    root: PathBuf,
    run_id: String,
    numbering: Numbering,
    project: String,
    command: String,
    command_hash: String,
    sequence: u32,
    tasks: Vec<Task>,
    stale_plan_hash: Option<String>,
}

impl NexusRun {
    /// Writes the project files and a run in which [`DEPENDENCY`] and [`TASK`] are both
    /// accepted with current evidence (one attempt each, checks run with `/bin/sh`).
    ///
    /// # Panics
    /// When `root` is not an existing folder or a file cannot be written.
    // Not `#[must_use]`: the files it writes are the point; the model is only needed to change
    // the run later.
    #[allow(clippy::must_use_candidate)]
    pub fn accepted(root: &Path) -> Self {
        let real = fs::canonicalize(root).expect("the project root exists");
        for (path, text) in FILES {
            write_file(&real.join(path), text.as_bytes());
        }
        let task = |id: &str, objective: &str, depends_on: &[&str], scope: &str, artifact: &str| {
            Definition {
                id: id.to_owned(),
                objective: objective.to_owned(),
                depends_on: depends_on.iter().map(|d| (*d).to_owned()).collect(),
                scope: scope.to_owned(),
                artifact: artifact.to_owned(),
                check: if id == TASK { "unit" } else { "schema-check" }.to_owned(),
            }
        };
        let tasks = [
            task(
                DEPENDENCY,
                "Create the users table.",
                &[],
                "db",
                DEPENDENCY_ARTIFACT,
            ),
            task(TASK, "Add password login.", &[DEPENDENCY], SCOPE, ARTIFACT),
        ];
        Self::write_accepted(&real, RUN_ID, Numbering::Demo, &tasks)
    }

    /// Writes run `number` of several, `run_id`, in which every task of `tasks` is accepted
    /// with current evidence (one attempt each), over the project files already under `root`
    /// (the tasks' scopes and [`RESOURCE`]): what [`NexusRun::accepted`] does for the demo
    /// run, for the benches' many runs. Attempt and verification ids carry the run's number.
    ///
    /// # Panics
    /// When `root` is not an existing folder or a file cannot be read or written.
    #[allow(clippy::must_use_candidate)] // As `accepted`: the files are the point.
    pub fn accepted_run(root: &Path, number: usize, run_id: &str, tasks: &[Definition]) -> Self {
        let real = fs::canonicalize(root).expect("the project root exists");
        Self::write_accepted(&real, run_id, Numbering::Run(number), tasks)
    }

    fn write_accepted(
        real: &Path,
        run_id: &str,
        numbering: Numbering,
        definitions: &[Definition],
    ) -> Self {
        let sh = fs::canonicalize("/bin/sh").expect("/bin/sh exists");
        let command_hash = hash_file(&sh);
        let mut run = Self {
            project: real.to_string_lossy().into_owned(),
            root: real.to_path_buf(),
            run_id: run_id.to_owned(),
            numbering,
            command: sh.to_string_lossy().into_owned(),
            command_hash,
            sequence: 0,
            tasks: Vec::new(),
            stale_plan_hash: None,
        };
        run.tasks = definitions.iter().map(|d| run.define(d)).collect();
        for index in 0..run.tasks.len() {
            let attempt = run.attempt(index, 1, "passed", 0);
            let task = &mut run.tasks[index];
            task.attempts.push(attempt);
            accept(task, 1);
        }
        run.write();
        run
    }

    /// The real path of the project root (what `run.project` holds).
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The absolute path of the run file.
    #[must_use]
    pub fn run_path(&self) -> PathBuf {
        self.root
            .join(format!(".bmad-plus/nexus/runs/{}.json", self.run_id))
    }

    /// The id of attempt `number` (from 1) of `task`.
    #[must_use]
    pub fn attempt_id(&self, task: &str, number: usize) -> String {
        self.uuid(0xa, self.index(task), number)
    }

    /// The id of the verification of attempt `number` of `task`.
    #[must_use]
    pub fn verification_id(&self, task: &str, number: usize) -> String {
        self.uuid(0xb, self.index(task), number)
    }

    /// The current attempt's id of `task`.
    #[must_use]
    pub fn current_attempt_id(&self, task: &str) -> String {
        let attempts = &self.tasks[self.index(task)].attempts;
        self.attempt_id(task, attempts.len())
    }

    /// The accepted source Nexus reports for `task` while its evidence is current (docs/NEXUS.md
    /// "The accepted source"), computed from the model.
    #[must_use]
    pub fn source(&self, task: &str) -> Value {
        let index = self.index(task);
        let record = &self.tasks[index];
        let attempt = record.attempts.last().expect("the task has an attempt");
        let receipt = record.receipt.expect("the task is accepted");
        let verification = self.verification(index, attempt);
        let mut source = Object::new()
            .with("kind", "nexus")
            .with("runId", self.run_id.as_str())
            .with("taskId", task)
            .with("attemptId", self.attempt_id(task, attempt.number))
            .with("verificationId", self.verification_id(task, attempt.number))
            .with("verificationSha256", verification.sha256())
            .with("acceptedAt", record.accepted_at.clone());
        let receipt = &record.attempts[receipt - 1];
        source.insert("artifactHashes", receipt.artifact_hashes.clone());
        source.insert("resourceHashes", record.resource_hashes.clone());
        source.insert("scope", strings(&record.scope));
        source.insert("objective", record.objective.as_str());
        source.insert("baseline", self.baseline(index, attempt));
        Value::Object(source)
    }

    // ---- lifecycle changes of the project's files --------------------------------------

    /// Edits [`TASK`]'s artifact: its evidence is stale.
    pub fn edit_artifact(&self) {
        self.append(ARTIFACT, "// edited after acceptance\n");
    }

    /// Edits [`DEPENDENCY`]'s artifact: its evidence is stale, and so is [`TASK`]'s.
    pub fn edit_dependency_artifact(&self) {
        self.append(DEPENDENCY_ARTIFACT, "-- edited after acceptance\n");
    }

    /// Edits the protected resource [`RESOURCE`]: both tasks are stale.
    pub fn edit_resource(&self) {
        self.append(RESOURCE, "# edited after the plan was created\n");
    }

    /// Adds `src/auth/extra.js` inside [`TASK`]'s scope: its evidence is stale.
    pub fn add_file_in_scope(&self) {
        write_file(
            &self.root.join("src/auth/extra.js"),
            b"export const extra = 1;\n",
        );
    }

    /// Adds `src/aux.js` (a Windows device name) inside [`TASK`]'s scope.
    pub fn add_nonportable_file(&self) {
        write_file(&self.root.join("src/aux.js"), b"export default 0;\n");
    }

    /// Adds the link `src/auth/current.js` → `login.js` inside [`TASK`]'s scope.
    pub fn add_symlink_in_scope(&self) {
        symlink("login.js", self.root.join("src/auth/current.js")).expect("link created");
    }

    /// Writes Nexus's [`WRITER_LOCK`] or [`RECOVERY_LOCK`] (`name`), as a live owner would.
    pub fn lock(&self, name: &str) {
        let owner = Object::new()
            .with("token", "00000000-0000-4000-8000-00000000beef")
            .with("pid", 4242.0)
            .with("hostname", "nexus-host")
            .with("createdAt", "2026-10-18T09:00:00.000Z");
        write_file(
            &self.root.join(".bmad-plus/nexus").join(name),
            Value::Object(owner).compact().as_bytes(),
        );
    }

    // ---- lifecycle changes of the run --------------------------------------------------

    /// [`TASK`]'s current attempt failed verification, so Nexus rejected the task.
    pub fn fail_verification(&mut self) {
        let task = self.task_mut(TASK);
        let attempt = task.attempts.last_mut().expect("the task has an attempt");
        attempt.verification = "failed";
        attempt.exit_code = 1;
        task.integration = "rejected";
        task.accepted_at = None;
        task.receipt = None;
        self.write();
    }

    /// [`DEPENDENCY`] is back to pending (verified, never accepted): [`TASK`] is not current.
    pub fn dependency_pending(&mut self) {
        let task = self.task_mut(DEPENDENCY);
        task.integration = "pending";
        task.accepted_at = None;
        task.receipt = None;
        self.write();
    }

    /// [`TASK`] gets a new, verified attempt while its acceptance still names the previous
    /// one: the acceptance no longer binds the current attempt.
    pub fn add_unaccepted_attempt(&mut self) {
        self.add_attempt(TASK);
        self.write();
    }

    /// [`TASK`] is re-run (a new attempt over today's files), verified and accepted again.
    pub fn rerun_and_accept(&mut self) {
        let number = self.add_attempt(TASK);
        accept(self.task_mut(TASK), number);
        self.write();
    }

    /// [`TASK`]'s current attempt lacks its `cancellation` record.
    pub fn remove_cancellation(&mut self) {
        let task = self.task_mut(TASK);
        task.attempts
            .last_mut()
            .expect("an attempt")
            .has_cancellation = false;
        self.write();
    }

    /// [`TASK`]'s current attempt lacks its `backend` record.
    pub fn remove_backend(&mut self) {
        let task = self.task_mut(TASK);
        task.attempts.last_mut().expect("an attempt").has_backend = false;
        self.write();
    }

    /// [`DEPENDENCY`] also depends on [`TASK`] (plan re-hashed): a dependency cycle.
    pub fn add_cycle(&mut self) {
        self.task_mut(DEPENDENCY).depends_on = vec![TASK.to_owned()];
        self.write();
    }

    /// The plan is edited (an objective) without updating `planHash`; the envelope is resealed.
    pub fn break_plan_integrity(&mut self) {
        self.stale_plan_hash = Some(self.plan().sha256());
        "Add password login (edited).".clone_into(&mut self.task_mut(TASK).objective);
        self.write();
    }

    /// `run.project` names another folder (the envelope is sealed correctly).
    pub fn foreign_project(&mut self) {
        self.project = String::from("/elsewhere/project");
        self.write();
    }

    /// The run is edited after it was sealed: the envelope's `sha256` no longer matches it.
    pub fn tamper_envelope(&self) {
        let mut envelope = self.envelope();
        let mut run = self.run();
        run.insert("sequence", f64::from(self.sequence + 1));
        envelope.insert("run", run);
        write_file(
            &self.run_path(),
            (Value::Object(envelope).pretty() + "\n").as_bytes(),
        );
    }

    /// The checks run [`VERIFIER`], a copy of a shell script in the project, instead of
    /// `/bin/sh`; the plan is re-hashed and the run stays accepted and current.
    pub fn use_project_verifier(&mut self) {
        let path = self.root.join(VERIFIER);
        write_file(&path, b"#!/bin/sh\nexec /bin/sh \"$@\"\n");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        let real = fs::canonicalize(&path).expect("the verifier exists");
        self.command_hash = hash_file(&real);
        self.command = real.to_string_lossy().into_owned();
        self.write();
    }

    /// The verifier executable changes after the plan was created: the checks are pointed at
    /// [`VERIFIER`] (if not yet), which is then edited. Both tasks are stale.
    pub fn change_verifier(&mut self) {
        if !self.command.ends_with(VERIFIER) {
            self.use_project_verifier();
        }
        self.append(VERIFIER, "# edited after plan creation\n");
    }

    /// Rewrites the run file from the model (sequence + 1), sealed.
    pub fn write(&mut self) {
        self.sequence += 1;
        let envelope = self.envelope();
        write_file(
            &self.run_path(),
            (Value::Object(envelope).pretty() + "\n").as_bytes(),
        );
    }

    // ---- rendering ---------------------------------------------------------------------

    /// `{"schemaVersion":1,"sha256":…,"run":…}`.
    fn envelope(&self) -> Object {
        let run = self.run();
        Object::new()
            .with("schemaVersion", 1.0)
            .with("sha256", Value::Object(run.clone()).sha256())
            .with("run", run)
    }

    fn run(&self) -> Object {
        let plan = self.plan();
        let plan_hash = self
            .stale_plan_hash
            .clone()
            .unwrap_or_else(|| plan.sha256());
        let tasks = (0..self.tasks.len()).map(|i| self.record(i)).collect();
        Object::new()
            .with("schemaVersion", 1.0)
            .with("id", self.run_id.as_str())
            .with("project", self.project.as_str())
            .with("frameworkVersion", "1.4.0")
            .with("createdAt", "2026-10-18T08:00:00.000Z")
            .with("updatedAt", at(58))
            .with("sequence", f64::from(self.sequence))
            .with("planHash", plan_hash)
            .with("plan", plan)
            .with("tasks", Value::Array(tasks))
    }

    fn plan(&self) -> Value {
        let tasks = self
            .tasks
            .iter()
            .map(|task| self.definition(task))
            .collect();
        Value::Object(
            Object::new()
                .with("id", self.run_id.as_str())
                .with("maxParallel", 1.0)
                .with("config", Object::new())
                .with("tasks", Value::Array(tasks)),
        )
    }

    /// A plan task as Nexus normalizes it.
    fn definition(&self, task: &Task) -> Value {
        let check = Object::new()
            .with("id", task.check.as_str())
            .with("command", self.command.as_str())
            .with("commandHash", self.command_hash.as_str())
            .with("args", strings(&[RESOURCE, &task.id]))
            .with("cwd", ".")
            .with("timeoutMs", 30000.0)
            .with("resources", Value::Array(Vec::new()));
        let acceptance = format!("Check {} passes on the current artifacts.", task.check);
        Value::Object(
            Object::new()
                .with("id", task.id.as_str())
                .with("objective", task.objective.as_str())
                .with("dependsOn", strings(&task.depends_on))
                .with("scope", strings(&task.scope))
                .with("artifacts", strings(&task.artifacts))
                .with("resources", strings(&[RESOURCE]))
                .with("checks", Value::Array(vec![Value::Object(check)]))
                .with("maxAttempts", 2.0)
                .with("idempotent", false)
                .with("deadlineMs", 3_600_000.0)
                .with("acceptance", strings(&[acceptance]))
                .with("authorizations", Value::Array(Vec::new()))
                .with("resourceHashes", task.resource_hashes.clone()),
        )
    }

    /// A task's record in `run.tasks`.
    fn record(&self, index: usize) -> Value {
        let task = &self.tasks[index];
        let attempts = task
            .attempts
            .iter()
            .map(|attempt| self.render_attempt(index, attempt))
            .collect();
        let mut record = Object::new()
            .with("id", task.id.as_str())
            .with("integration", task.integration)
            .with("attempts", Value::Array(attempts));
        if let Some(accepted_at) = &task.accepted_at {
            record.insert("acceptedAt", accepted_at.as_str());
        }
        if let Some(number) = task.receipt {
            let receipt = Object::new()
                .with("attemptId", self.uuid(0xa, index, number))
                .with(
                    "artifactHashes",
                    task.attempts[number - 1].artifact_hashes.clone(),
                )
                .with("action", "accept-current-workspace")
                .with("gitOperation", Value::Null);
            record.insert("integrationReceipt", receipt);
        }
        Value::Object(record)
    }

    fn render_attempt(&self, index: usize, attempt: &Attempt) -> Value {
        let n = attempt.number;
        let minute = u32::try_from(n * 10).expect("few attempts");
        let id = self.uuid(0xa, index, n);
        let handle = match self.numbering {
            Numbering::Demo => n,
            Numbering::Run(_) => index + 1,
        };
        let backend = Object::new()
            .with("kind", "host")
            .with("id", format!("host-handle-{handle}"))
            .with("sessionId", format!("host-session-{handle}"))
            .with(
                "capabilities",
                Object::new()
                    .with("launch", false)
                    .with("terminate", false)
                    .with("inspect", "host-observation"),
            );
        let observation = Object::new()
            .with("at", at(minute + 4))
            .with("outcome", "completed")
            .with("summary", "Worker reported completion.")
            .with("exitCode", 0.0)
            .with("evidenceClass", "host-report")
            .with("independentlyVerified", false);
        let parent = (n > 1).then(|| self.uuid(0xa, index, n - 1));
        let mut out = Object::new()
            .with("id", id)
            .with("runId", self.run_id.as_str())
            .with("taskId", self.tasks[index].id.as_str())
            .with("parentAttemptId", parent);
        if attempt.has_backend {
            out.insert("backend", backend);
        }
        out.insert("execution", "completed");
        out.insert("verification", self.verification(index, attempt));
        out.insert("verificationRounds", 1.0);
        out.insert("verificationHistory", Value::Array(Vec::new()));
        out.insert("reconciliations", Value::Array(Vec::new()));
        if attempt.has_cancellation {
            out.insert("cancellation", Object::new().with("status", "none"));
        }
        out.insert("startedAt", at(minute));
        out.insert("observedAt", at(minute + 4));
        out.insert("endedAt", at(minute + 4));
        out.insert("deadline", format!("2026-10-18T09:{minute:02}:00.000Z"));
        out.insert("baseline", self.baseline(index, attempt));
        out.insert("authorizations", Value::Array(Vec::new()));
        out.insert(
            "observations",
            Value::Array(vec![Value::Object(observation)]),
        );
        out.insert(
            "uncheckedScope",
            "External effects, undeclared dependencies and files outside the declared scope are not sandboxed or independently observed.",
        );
        out.insert("resultHashes", attempt.scope_hashes.clone());
        Value::Object(out)
    }

    /// The verification record of an attempt: no machine-dependent value in it.
    fn verification(&self, index: usize, attempt: &Attempt) -> Value {
        let n = attempt.number;
        let minute = u32::try_from(n * 10).expect("few attempts");
        let task = &self.tasks[index];
        let attempt_id = self.uuid(0xa, index, n);
        let receipt = Object::new()
            .with("id", task.check.as_str())
            .with("attemptId", attempt_id.as_str())
            .with("args", strings(&[RESOURCE, &task.id]))
            .with("cwd", ".")
            .with("timeoutMs", 30000.0)
            .with("environment", environment())
            .with("startedAt", at(minute + 6))
            .with("endedAt", at(minute + 7))
            .with("exitCode", f64::from(attempt.exit_code))
            .with("signal", Value::Null)
            .with("error", Value::Null)
            .with("timedOut", false)
            .with("stdout", "")
            .with("stderr", "")
            .with("outputTruncated", false)
            .with("outputHash", sha256_hex(b"\0"))
            .with("evidenceClass", "runtime-command")
            .with("termination", Value::Null);
        Value::Object(
            Object::new()
                .with("id", self.uuid(0xb, index, n))
                .with("attemptId", attempt_id)
                .with("status", attempt.verification)
                .with("startedAt", at(minute + 5))
                .with("frameworkVersion", "1.4.0")
                .with("environment", environment())
                .with(
                    "owner",
                    Object::new()
                        .with("pid", 4242.0)
                        .with("hostname", "nexus-host"),
                )
                .with("revision", Value::Null)
                .with("scopeHashes", attempt.scope_hashes.clone())
                .with("artifactHashes", attempt.artifact_hashes.clone())
                .with("resourceHashes", task.resource_hashes.clone())
                .with("checks", Value::Array(vec![Value::Object(receipt)]))
                .with("problem", Value::Null)
                .with("endedAt", at(minute + 8)),
        )
    }

    /// What the project looked like when the attempt started.
    fn baseline(&self, index: usize, attempt: &Attempt) -> Value {
        let task = &self.tasks[index];
        let artifacts: Object = if attempt.number == 1 {
            task.artifacts
                .iter()
                .map(|a| (a.clone(), Value::Null))
                .collect()
        } else {
            task.attempts[attempt.number - 2].artifact_hashes.clone()
        };
        let framework = Object::new()
            .with("version", "1.4.0")
            .with("runtimeHash", sha256_hex(b"tools/cli/lib/nexus.js"))
            .with("installManifestHash", Value::Null)
            .with("nodeVersion", "v20.18.0")
            .with("platform", "linux")
            .with("arch", "x64");
        Value::Object(
            Object::new()
                .with("repository", self.root.to_string_lossy().as_ref())
                .with("revision", Value::Null)
                .with("framework", framework)
                .with("scopeHashes", attempt.baseline_scope.clone())
                .with("artifactHashes", artifacts)
                .with("resourceHashes", task.resource_hashes.clone())
                .with("config", Object::new()),
        )
    }

    // ---- model ---------------------------------------------------------------------------

    fn define(&self, definition: &Definition) -> Task {
        Task {
            id: definition.id.clone(),
            objective: definition.objective.clone(),
            depends_on: definition.depends_on.clone(),
            scope: vec![definition.scope.clone()],
            artifacts: vec![definition.artifact.clone()],
            check: definition.check.clone(),
            resource_hashes: self.files_hashes(&[RESOURCE.to_owned()]),
            integration: "pending",
            accepted_at: None,
            receipt: None,
            attempts: Vec::new(),
        }
    }

    /// A completed attempt of task `index`, verified over today's files.
    fn attempt(
        &self,
        index: usize,
        number: usize,
        verification: &'static str,
        exit_code: u32,
    ) -> Attempt {
        let task = &self.tasks[index];
        let baseline_scope = task
            .attempts
            .last()
            .map_or_else(Object::new, |previous| previous.scope_hashes.clone());
        Attempt {
            number,
            verification,
            exit_code,
            scope_hashes: self.scope_hashes(&task.scope),
            artifact_hashes: self.files_hashes(&task.artifacts),
            baseline_scope,
            has_cancellation: true,
            has_backend: true,
        }
    }

    /// Appends a new passed attempt to `task`; its number.
    fn add_attempt(&mut self, task: &str) -> usize {
        let index = self.index(task);
        let number = self.tasks[index].attempts.len() + 1;
        let attempt = self.attempt(index, number, "passed", 0);
        self.tasks[index].attempts.push(attempt);
        number
    }

    /// A fixed UUID-shaped id: `kind` (a = attempt, b = verification), the run's number if it
    /// has one, the task's index, the attempt's number.
    fn uuid(&self, kind: u32, index: usize, number: usize) -> String {
        match self.numbering {
            Numbering::Demo => format!("{kind:x}{:07x}-0000-4000-8000-{number:012x}", index + 1),
            Numbering::Run(r) => {
                format!(
                    "{kind:x}{r:03x}{:04x}-0000-4000-8000-{number:012x}",
                    index + 1
                )
            }
        }
    }

    fn index(&self, task: &str) -> usize {
        self.tasks
            .iter()
            .position(|t| t.id == task)
            .unwrap_or_else(|| panic!("no task {task}"))
    }

    fn task_mut(&mut self, task: &str) -> &mut Task {
        let index = self.index(task);
        &mut self.tasks[index]
    }

    /// `{path: sha256}` of `files`, sorted by UTF-16 code units.
    fn files_hashes(&self, files: &[String]) -> Object {
        let mut files = files.to_vec();
        files.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
        files.dedup();
        files
            .into_iter()
            .map(|file| {
                let hash = hash_file(&self.root.join(&file));
                (file, Value::String(hash))
            })
            .collect()
    }

    /// The files under each scope path (a file is itself), hashed.
    fn scope_hashes(&self, scopes: &[String]) -> Object {
        let mut files = Vec::new();
        for scope in scopes {
            collect(&self.root, scope, &mut files);
        }
        self.files_hashes(&files)
    }

    fn append(&self, file: &str, text: &str) {
        let path = self.root.join(file);
        let mut bytes = fs::read(&path).expect("the file exists");
        bytes.extend_from_slice(text.as_bytes());
        write_file(&path, &bytes);
    }
}

/// Marks attempt `number` of `task` accepted, as Nexus's `accept` does.
fn accept(task: &mut Task, number: usize) {
    task.integration = "accepted";
    let minute = u32::try_from(number * 10 + 9).expect("few attempts");
    task.accepted_at = Some(at(minute));
    task.receipt = Some(number);
}

/// The regular files under `rel` (walked in UTF-16 order), or `rel` itself.
fn collect(root: &Path, rel: &str, files: &mut Vec<String>) {
    let path = root.join(rel);
    let Ok(meta) = fs::symlink_metadata(&path) else {
        return;
    };
    if meta.is_file() {
        files.push(rel.to_owned());
    } else if meta.is_dir() {
        let mut names: Vec<String> = fs::read_dir(&path)
            .expect("readable folder")
            .map(|entry| {
                entry
                    .expect("readable entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
        for name in names {
            collect(root, &format!("{rel}/{name}"), files);
        }
    }
}

/// The check environment Nexus records (`minimal-local-v1`), with fixed values.
#[must_use]
pub fn environment() -> Value {
    let values = Object::new()
        .with("LANG", "C")
        .with("LC_ALL", "C")
        .with("NODE_V8_COVERAGE", "")
        .with("PATH", "/usr/local/bin:/usr/bin:/bin")
        .with("PYTHONDONTWRITEBYTECODE", "1")
        .with("PYTHONNOUSERSITE", "1")
        .with("PYTHONSAFEPATH", "1")
        .with("TZ", "UTC");
    let sha256 = Value::Object(values.clone()).sha256();
    Value::Object(
        Object::new()
            .with("policy", POLICY)
            .with("values", values)
            .with("sha256", sha256),
    )
}

/// `2026-10-18T08:<minute>:00.000Z`.
#[must_use]
pub fn at(minute: u32) -> String {
    format!("2026-10-18T08:{minute:02}:00.000Z")
}

/// A JSON array of strings.
pub fn strings<S: AsRef<str>>(items: &[S]) -> Value {
    Value::Array(items.iter().map(|s| Value::from(s.as_ref())).collect())
}

fn hash_file(path: &Path) -> String {
    sha256_hex(&fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display())))
}

fn write_file(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("folder created");
    }
    fs::write(path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}
