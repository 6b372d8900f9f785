//! Real BMAD+ Nexus runs and a receipt store for the `observe` and `outcomes` benches.
//!
//! A port, generalized to many runs and tasks, of the test builder
//! `tests/cli/support/nexus_run.rs` (its accepted state only): every task of every run is
//! accepted with one attempt whose verification passed, with current, independently verified
//! evidence. Every hash is computed from the real files when the runs are written: scope,
//! artifact and resource hashes from the generated project files, each check's `commandHash`
//! from the real file behind `/bin/sh` on this machine, `planHash` and the envelope's `sha256`
//! from the compact JSON of the plan and run ([`bmad_mem::js::json`], as JavaScript writes it).
//! `run.project` is the real path of the project root, which must have no link in its path.
//!
//! Layout, for `n` receipts (one per task attempt; at most [`MAX_TASKS`] tasks per plan, so
//! 1,000 receipts are 5 runs × 200 tasks):
//!
//! ```text
//! <root>/tools/verify.sh                        protected resource of every task
//! <root>/src/r<R>/t<KKK>/{index.js,util.js,index.test.js}
//!                                               task t<KKK> of run bench-run-<R>: its scope
//!                                               (src/r<R>/t<KKK>), artifact index.js
//! <root>/.bmad-plus/nexus/runs/bench-run-<R>.json
//! ```
//!
//! Tasks come in chains of four (`t002` depends on `t001`, …, `t005` starts a new chain), so
//! resolving a source also walks its dependencies' evidence, as in a real plan.

#![allow(
    dead_code,
    reason = "shared by the gen-store example and the nexus bench; each uses a part"
)]

use std::fs;
use std::path::{Path, PathBuf};

use bmad_mem::actions::receipts::SectionReader;
use bmad_mem::js::json::{Object, Value, sha256_hex};
use bmad_mem::nexus::Nexus;

use super::corpus::{Rng, Vocabulary};

// The tests' run builder: its environment record, timestamps and string arrays are the same.
#[path = "../../tests/cli/support/nexus_run.rs"]
mod nexus_run;
use nexus_run::{at, environment, strings};

/// A plan holds at most this many tasks.
pub const MAX_TASKS: usize = 200;
/// The protected resource every task's check runs.
pub use nexus_run::RESOURCE;

/// One accepted task of one run, as a receipt binds it.
#[derive(Debug, Clone)]
pub struct TaskRef {
    pub run_id: String,
    pub task_id: String,
    /// The task's write scope (one folder).
    pub scope: String,
}

/// What [`write_runs`] wrote.
#[derive(Debug, Default)]
pub struct Written {
    /// Every task, in run then plan order.
    pub tasks: Vec<TaskRef>,
    /// Absolute paths of every file the runs name, each once: the run files, the scope files
    /// (which include the artifacts), the resource, and the real file behind `/bin/sh`.
    pub files: Vec<PathBuf>,
    /// Bytes written (run files and project files).
    pub bytes: usize,
}

struct Def {
    id: String,
    objective: String,
    depends_on: Vec<String>,
    scope: String,
    artifact: String,
    resource_hashes: Object,
    scope_hashes: Object,
    artifact_hashes: Object,
}

/// Writes the project files and `runs` runs holding `tasks` accepted tasks in all (at most
/// [`MAX_TASKS`] per run) under `root`, which must be its own real path.
///
/// # Errors
/// A file that cannot be written or read, or a `root` that is not its real path.
pub fn write_runs(
    root: &Path,
    tasks: usize,
    mut words: impl FnMut() -> String,
) -> Result<Written, String> {
    let real = fs::canonicalize(root).map_err(|e| format!("{}: {e}", root.display()))?;
    if real != root {
        return Err(format!(
            "{} has a link in its path (its real path is {}); Nexus refuses links",
            root.display(),
            real.display()
        ));
    }
    let mut out = Written::default();
    let sh = fs::canonicalize("/bin/sh").map_err(|e| format!("/bin/sh: {e}"))?;
    let command_hash = hash_file(&sh)?;
    let command = sh.to_string_lossy().into_owned();
    out.bytes += write_file(
        &root.join(RESOURCE),
        b"#!/bin/sh\n# Runs the checks of the task named in $2.\nexit 0\n",
    )?;
    out.files.push(root.join(RESOURCE));
    out.files.push(sh);
    let resource_hashes = Object::new().with(RESOURCE, hash_file(&root.join(RESOURCE))?);
    let runs = tasks.div_ceil(MAX_TASKS);
    for r in 1..=runs {
        let run_id = format!("bench-run-{r}");
        let count = (tasks - (r - 1) * MAX_TASKS).min(MAX_TASKS);
        let mut defs = Vec::with_capacity(count);
        for k in 1..=count {
            let id = format!("t{k:03}");
            let scope = format!("src/r{r}/{id}");
            let mut hashes = Object::new();
            // Sorted by UTF-16 code units, as a scope snapshot lists them.
            for (name, text) in [
                (
                    "index.js",
                    format!(
                        "// {}\nexport function run() {{\n  return {:?};\n}}\n",
                        words(),
                        words()
                    ),
                ),
                (
                    "index.test.js",
                    format!(
                        "import {{ run }} from './index.js';\n// {}\nrun();\n",
                        words()
                    ),
                ),
                (
                    "util.js",
                    format!("// {}\nexport const NAME = {:?};\n", words(), words()),
                ),
            ] {
                let relative = format!("{scope}/{name}");
                let path = root.join(&relative);
                out.bytes += write_file(&path, text.as_bytes())?;
                hashes.insert(relative, sha256_hex(text.as_bytes()));
                out.files.push(path);
            }
            let artifact = format!("{scope}/index.js");
            let artifact_hashes = Object::new().with(
                artifact.as_str(),
                hashes.get(&artifact).cloned().unwrap_or(Value::Null),
            );
            let depends_on = if k % 4 == 1 {
                Vec::new()
            } else {
                vec![format!("t{:03}", k - 1)]
            };
            defs.push(Def {
                objective: capitalized(&words()),
                id,
                depends_on,
                scope: scope.clone(),
                artifact,
                resource_hashes: resource_hashes.clone(),
                scope_hashes: hashes,
                artifact_hashes,
            });
            out.tasks.push(TaskRef {
                run_id: run_id.clone(),
                task_id: format!("t{k:03}"),
                scope,
            });
        }
        let run = Run {
            r,
            id: &run_id,
            project: root.to_string_lossy().into_owned(),
            command: &command,
            command_hash: &command_hash,
            defs: &defs,
        };
        let path = root.join(format!(".bmad-plus/nexus/runs/{run_id}.json"));
        let text = Value::Object(run.envelope()).pretty() + "\n";
        out.bytes += write_file(&path, text.as_bytes())?;
        out.files.push(path);
    }
    Ok(out)
}

struct Run<'a> {
    r: usize,
    id: &'a str,
    project: String,
    command: &'a str,
    command_hash: &'a str,
    defs: &'a [Def],
}

impl Run<'_> {
    fn envelope(&self) -> Object {
        let run = self.run();
        Object::new()
            .with("schemaVersion", 1.0)
            .with("sha256", Value::Object(run.clone()).sha256())
            .with("run", run)
    }

    fn run(&self) -> Object {
        let plan = self.plan();
        let plan_hash = plan.sha256();
        let tasks = (0..self.defs.len()).map(|i| self.record(i)).collect();
        Object::new()
            .with("schemaVersion", 1.0)
            .with("id", self.id)
            .with("project", self.project.as_str())
            .with("frameworkVersion", "1.4.0")
            .with("createdAt", "2026-10-18T08:00:00.000Z")
            .with("updatedAt", at(58))
            .with("sequence", 1.0)
            .with("planHash", plan_hash)
            .with("plan", plan)
            .with("tasks", Value::Array(tasks))
    }

    fn plan(&self) -> Value {
        let tasks = self.defs.iter().map(|d| self.definition(d)).collect();
        Value::Object(
            Object::new()
                .with("id", self.id)
                .with("maxParallel", 1.0)
                .with("config", Object::new())
                .with("tasks", Value::Array(tasks)),
        )
    }

    /// A plan task as Nexus normalizes it.
    fn definition(&self, def: &Def) -> Value {
        let check = Object::new()
            .with("id", "unit")
            .with("command", self.command)
            .with("commandHash", self.command_hash)
            .with("args", strings(&[RESOURCE, def.id.as_str()]))
            .with("cwd", ".")
            .with("timeoutMs", 30000.0)
            .with("resources", Value::Array(Vec::new()));
        Value::Object(
            Object::new()
                .with("id", def.id.as_str())
                .with("objective", def.objective.as_str())
                .with("dependsOn", strings(&def.depends_on))
                .with("scope", strings(std::slice::from_ref(&def.scope)))
                .with("artifacts", strings(std::slice::from_ref(&def.artifact)))
                .with("resources", strings(&[RESOURCE]))
                .with("checks", Value::Array(vec![Value::Object(check)]))
                .with("maxAttempts", 2.0)
                .with("idempotent", false)
                .with("deadlineMs", 3_600_000.0)
                .with(
                    "acceptance",
                    strings(&["Check unit passes on the current artifacts."]),
                )
                .with("authorizations", Value::Array(Vec::new()))
                .with("resourceHashes", def.resource_hashes.clone()),
        )
    }

    /// A task's record in `run.tasks`: one attempt, verified and accepted.
    fn record(&self, index: usize) -> Value {
        let def = &self.defs[index];
        let receipt = Object::new()
            .with("attemptId", self.uuid(0xa, index))
            .with("artifactHashes", def.artifact_hashes.clone())
            .with("action", "accept-current-workspace")
            .with("gitOperation", Value::Null);
        Value::Object(
            Object::new()
                .with("id", def.id.as_str())
                .with("integration", "accepted")
                .with("attempts", Value::Array(vec![self.attempt(index)]))
                .with("acceptedAt", at(19))
                .with("integrationReceipt", receipt),
        )
    }

    fn attempt(&self, index: usize) -> Value {
        let def = &self.defs[index];
        let backend = Object::new()
            .with("kind", "host")
            .with("id", format!("host-handle-{}", index + 1))
            .with("sessionId", format!("host-session-{}", index + 1))
            .with(
                "capabilities",
                Object::new()
                    .with("launch", false)
                    .with("terminate", false)
                    .with("inspect", "host-observation"),
            );
        let observation = Object::new()
            .with("at", at(14))
            .with("outcome", "completed")
            .with("summary", "Worker reported completion.")
            .with("exitCode", 0.0)
            .with("evidenceClass", "host-report")
            .with("independentlyVerified", false);
        Value::Object(
            Object::new()
                .with("id", self.uuid(0xa, index))
                .with("runId", self.id)
                .with("taskId", def.id.as_str())
                .with("parentAttemptId", Value::Null)
                .with("backend", backend)
                .with("execution", "completed")
                .with("verification", self.verification(index))
                .with("verificationRounds", 1.0)
                .with("verificationHistory", Value::Array(Vec::new()))
                .with("reconciliations", Value::Array(Vec::new()))
                .with("cancellation", Object::new().with("status", "none"))
                .with("startedAt", at(10))
                .with("observedAt", at(14))
                .with("endedAt", at(14))
                .with("deadline", "2026-10-18T09:10:00.000Z")
                .with("baseline", self.baseline(def))
                .with("authorizations", Value::Array(Vec::new()))
                .with(
                    "observations",
                    Value::Array(vec![Value::Object(observation)]),
                )
                .with(
                    "uncheckedScope",
                    "External effects, undeclared dependencies and files outside the declared scope are not sandboxed or independently observed.",
                )
                .with("resultHashes", def.scope_hashes.clone()),
        )
    }

    fn verification(&self, index: usize) -> Value {
        let def = &self.defs[index];
        let attempt_id = self.uuid(0xa, index);
        let receipt = Object::new()
            .with("id", "unit")
            .with("attemptId", attempt_id.as_str())
            .with("args", strings(&[RESOURCE, def.id.as_str()]))
            .with("cwd", ".")
            .with("timeoutMs", 30000.0)
            .with("environment", environment())
            .with("startedAt", at(16))
            .with("endedAt", at(17))
            .with("exitCode", 0.0)
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
                .with("id", self.uuid(0xb, index))
                .with("attemptId", attempt_id)
                .with("status", "passed")
                .with("startedAt", at(15))
                .with("frameworkVersion", "1.4.0")
                .with("environment", environment())
                .with(
                    "owner",
                    Object::new()
                        .with("pid", 4242.0)
                        .with("hostname", "nexus-host"),
                )
                .with("revision", Value::Null)
                .with("scopeHashes", def.scope_hashes.clone())
                .with("artifactHashes", def.artifact_hashes.clone())
                .with("resourceHashes", def.resource_hashes.clone())
                .with("checks", Value::Array(vec![Value::Object(receipt)]))
                .with("problem", Value::Null)
                .with("endedAt", at(18)),
        )
    }

    /// What the project looked like when the (first) attempt started: nothing in scope yet.
    fn baseline(&self, def: &Def) -> Value {
        let framework = Object::new()
            .with("version", "1.4.0")
            .with("runtimeHash", sha256_hex(b"tools/cli/lib/nexus.js"))
            .with("installManifestHash", Value::Null)
            .with("nodeVersion", "v20.18.0")
            .with("platform", "linux")
            .with("arch", "x64");
        Value::Object(
            Object::new()
                .with("repository", self.project.as_str())
                .with("revision", Value::Null)
                .with("framework", framework)
                .with("scopeHashes", Object::new())
                .with(
                    "artifactHashes",
                    Object::new().with(def.artifact.as_str(), Value::Null),
                )
                .with("resourceHashes", def.resource_hashes.clone())
                .with("config", Object::new()),
        )
    }

    /// A fixed UUID-shaped id: `kind` (a = attempt, b = verification), run, task index.
    fn uuid(&self, kind: u32, index: usize) -> String {
        format!(
            "{kind:x}{:03x}{:04x}-0000-4000-8000-{:012x}",
            self.r,
            index + 1,
            1
        )
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect::<String>() + "."
    })
}

fn hash_file(path: &Path) -> Result<String, String> {
    fs::read(path)
        .map(|bytes| sha256_hex(&bytes))
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<usize, String> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(bytes.len())
}

/// The lessons file receipts bind to.
pub const LESSONS: &str = ".agents/memory/lessons.md";
/// The receipts' `ts`.
pub const RECEIPT_TS: &str = "2026-10-18T09:00:00.000Z";

/// The lessons section receipt `i` (task `bench-run-R/tKKK`, in task order) binds to: its
/// heading and its Markdown text. `rng` is derived from the seed with `"receipt lessons"`.
pub fn receipt_lesson(vocab: &Vocabulary, rng: &mut Rng, i: usize) -> (String, String) {
    use std::fmt::Write as _;
    let (r, k) = (i / MAX_TASKS + 1, i % MAX_TASKS + 1);
    let heading = format!("Outcome of bench-run-{r}/t{k:03}: {}", vocab.title(rng));
    let mut section = format!("### {heading}\n\n**Date:** 2026-10-18\n\n**Lesson:** ");
    vocab.sentence(rng, &mut section);
    let _ = write!(section, "\n\n**Related:** src/r{r}/t{k:03}\n\n");
    (heading, section)
}

/// The interpretation a receipt of `task` carries.
pub fn interpretation(task: &TaskRef) -> String {
    format!(
        "Task {} of {} was accepted with current verified evidence; the lesson came from it.",
        task.task_id, task.run_id
    )
}

/// The receipt of `task` bound to the lessons section `heading`, built as `bmad-mem observe`
/// builds it (docs §8 step 9, in this key order; id = SHA-256 of the body's compact JSON).
pub fn receipt(
    resolver: &mut Nexus,
    sections: &mut SectionReader,
    root: &Path,
    task: &TaskRef,
    heading: &str,
) -> Result<Object, String> {
    let source = resolver
        .accepted_source(&task.run_id, &task.task_id)
        .map_err(|e| format!("{}/{}: {e}", task.run_id, task.task_id))?;
    let memory = sections
        .resolve(
            root,
            Some(&Value::from(LESSONS)),
            Some(&Value::from(heading)),
        )
        .map_err(|e| format!("{LESSONS} {heading:?}: {e}"))?;
    let body = Object::new()
        .with("schemaVersion", 1.0)
        .with("kind", "accepted-outcome")
        .with("ts", RECEIPT_TS)
        .with("memory", memory)
        .with("scope", vec![Value::from(task.scope.as_str())])
        .with("source", source)
        .with("interpretation", interpretation(task))
        .with(
            "verification",
            Object::new()
                .with("status", "passed")
                .with("acceptance", "accepted")
                .with("lessonCausality", "unmeasured"),
        )
        .with("supersedes", Vec::<Value>::new())
        .with("contradicts", Vec::<Value>::new());
    let mut receipt = Object::new().with("id", Value::Object(body.clone()).sha256());
    for (key, value) in body.iter() {
        receipt.insert(key.clone(), value.clone());
    }
    Ok(receipt)
}
