//! Real BMAD+ Nexus runs and a receipt store for the `observe` and `outcomes` benches and the
//! `gen-store` example.
//!
//! Many runs of [`crate::nexus_run`]'s builder ([`NexusRun::accepted_run`]), in its accepted
//! state: every task of every run is
//! accepted with one attempt whose verification passed, with current, independently verified
//! evidence. Every hash is computed from the real files when the runs are written: scope,
//! artifact and resource hashes from the generated project files, each check's `commandHash`
//! from the real file behind `/bin/sh` on this machine, `planHash` and the envelope's `sha256`
//! from the compact JSON of the plan and run ([`crate::json`], as JavaScript writes it).
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

use std::fs;
use std::path::{Path, PathBuf};

use crate::corpus::{Rng, Vocabulary};
use crate::json::{Object, Value};
use crate::nexus_run::{Definition, NexusRun};

/// A plan holds at most this many tasks.
pub const MAX_TASKS: usize = 200;
/// The protected resource every task's check runs.
pub use crate::nexus_run::RESOURCE;

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
    out.bytes += write_file(
        &root.join(RESOURCE),
        b"#!/bin/sh\n# Runs the checks of the task named in $2.\nexit 0\n",
    )?;
    out.files.push(root.join(RESOURCE));
    out.files.push(sh);
    let runs = tasks.div_ceil(MAX_TASKS);
    for r in 1..=runs {
        let run_id = format!("bench-run-{r}");
        let count = (tasks - (r - 1) * MAX_TASKS).min(MAX_TASKS);
        let mut definitions = Vec::with_capacity(count);
        for k in 1..=count {
            let id = format!("t{k:03}");
            let scope = format!("src/r{r}/{id}");
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
                let path = root.join(format!("{scope}/{name}"));
                out.bytes += write_file(&path, text.as_bytes())?;
                out.files.push(path);
            }
            let depends_on = if k % 4 == 1 {
                Vec::new()
            } else {
                vec![format!("t{:03}", k - 1)]
            };
            out.tasks.push(TaskRef {
                run_id: run_id.clone(),
                task_id: id.clone(),
                scope: scope.clone(),
            });
            definitions.push(Definition {
                objective: capitalized(&words()),
                artifact: format!("{scope}/index.js"),
                id,
                depends_on,
                scope,
                check: "unit".to_owned(),
            });
        }
        let run = NexusRun::accepted_run(root, r, &run_id, &definitions);
        let path = run.run_path();
        out.bytes += usize::try_from(
            fs::metadata(&path)
                .map_err(|e| format!("{}: {e}", path.display()))?
                .len(),
        )
        .expect("a run file fits in memory");
        out.files.push(path);
    }
    Ok(out)
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect::<String>() + "."
    })
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
#[must_use]
pub fn interpretation(task: &TaskRef) -> String {
    format!(
        "Task {} of {} was accepted with current verified evidence; the lesson came from it.",
        task.task_id, task.run_id
    )
}

/// The receipt of `task`, built as `bmad-mem observe` builds it (docs §8 step 9, in this key
/// order; id = SHA-256 of the body's compact JSON) from the task's accepted source and the
/// memory reference of its lessons section, each as the compact JSON the library gives for
/// them (`Nexus::accepted_source`, `SectionReader::resolve`).
#[must_use]
pub fn receipt(source: &str, memory: &str, task: &TaskRef) -> Object {
    let body = Object::new()
        .with("schemaVersion", 1.0)
        .with("kind", "accepted-outcome")
        .with("ts", RECEIPT_TS)
        .with("memory", Value::Raw(memory.to_owned()))
        .with("scope", vec![Value::from(task.scope.as_str())])
        .with("source", Value::Raw(source.to_owned()))
        .with("interpretation", interpretation(task))
        .with(
            "verification",
            Object::new()
                .with("status", "passed")
                .with("acceptance", "accepted")
                .with("lessonCausality", "unmeasured"),
        )
        .with("supersedes", Vec::new())
        .with("contradicts", Vec::new());
    let mut receipt = Object::new().with("id", Value::Object(body.clone()).sha256());
    for (key, value) in body.iter() {
        receipt.insert(key.clone(), value.clone());
    }
    receipt
}
