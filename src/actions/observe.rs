//! `observe`: bind a lesson to accepted, independently verified Nexus work (docs §8).
//!
//! The only way a memory section gets evidence. The input names a Nexus run and task, a memory
//! section and a scope; a receipt is written only when the task is accepted with current
//! evidence, the section exists exactly once, and the scope stays within the task's. All twelve
//! steps run under one hold of the writer lock, and the source and section are resolved a
//! second time just before writing, so work that changed meanwhile is refused. Before the lock,
//! the receipt's one free text, `interpretation`, goes through the secret detector (the ids and
//! digests a receipt holds do not: docs/COMPATIBILITY.md).

use std::path::Path;

use crate::actions::receipts::{
    self, SectionReader, bounded_text, overlaps, read_store, strings, validate_scope,
};
use crate::actions::secrets;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{self, Object, Value};
use crate::js::text::sort_utf16;
use crate::messages;
use crate::nexus::Nexus;
use crate::output::Report;
use crate::store::layout::{MAX_RECEIPTS, OUTCOMES};
use crate::store::lock::WriterLock;
use crate::store::ndjson;
use crate::store::paths::read_registry;

const MAX_RELATIONS: usize = 30;

/// Record a receipt binding a memory section to an accepted Nexus task.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ObserveArgs {
    /// The observation: a project-relative JSON file with runId, taskId, memory {file, heading},
    /// scope, interpretation, supersedes, contradicts.
    #[arg(long, value_name = "file.json", allow_hyphen_values = true)]
    pub input: Option<String>,
}

/// The receipt written.
#[derive(Debug)]
pub struct ObserveReport {
    pub receipt: Object,
}

/// Reads the input, checks its interpretation for secrets, then runs docs §8's steps under the
/// writer lock.
///
/// # Errors
/// The documented message of the first failing step, or a secret in the interpretation;
/// nothing is written then.
pub fn run(args: &ObserveArgs, ctx: &Context) -> Result<ObserveReport> {
    // bmad-plus reads a missing --input as an empty path and blames the path; we name the
    // option. A leading `./` is accepted (`./obs.json` is `obs.json`); nothing else is relaxed.
    let Some(input_path) = args.input.as_deref() else {
        return Err(Error::refused(messages::INPUT_REQUIRED));
    };
    let text =
        read_registry(&ctx.root, strip_leading_dot_slash(input_path), false)?.unwrap_or_default();
    let input = match json::parse(&text).map_err(|e| Error::refused(messages::input_not_json(e)))? {
        Value::Object(input) => input,
        Value::Array(_) => return Err(Error::refused(messages::INPUT_NOT_OBJECT)),
        _ => return Err(Error::refused(messages::INPUT_MISSING)),
    };
    // The one free text of a receipt: checked before the lock, so a refusal creates nothing.
    if let Some(Value::String(interpretation)) = input.get("interpretation") {
        secrets::refuse(ctx, &[("interpretation", interpretation)])?;
    }
    let lock = WriterLock::acquire(&ctx.root)?;
    let receipt = observe(&ctx.root, &input, ctx, &lock)?;
    drop(lock);
    Ok(ObserveReport { receipt })
}

/// `path` without its leading `./` segments (`././a.json` → `a.json`); `a/./b` is unchanged.
fn strip_leading_dot_slash(mut path: &str) -> &str {
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    path
}

fn observe(root: &Path, input: &Object, ctx: &Context, lock: &WriterLock) -> Result<Object> {
    // 1.
    let receipts = read_store(root)?;
    // 2.
    let run_id = bounded_text(input.get("runId"), 1000)
        .ok_or_else(|| Error::refused(messages::RUN_ID_TEXT))?;
    let task_id = bounded_text(input.get("taskId"), 1000)
        .ok_or_else(|| Error::refused(messages::TASK_ID_TEXT))?;
    let source = Nexus::new(root).accepted_source(run_id, task_id)?;
    // 3.
    let attempt = source.get("attemptId").map(Value::text).unwrap_or_default();
    let identity = (run_id.to_owned(), task_id.to_owned(), attempt);
    if receipts
        .iter()
        .any(|r| receipts::attempt_identity(r) == identity)
    {
        return Err(Error::refused(messages::DUPLICATE_OUTCOME));
    }
    // 4.
    let memory_input = input.get("memory").and_then(Value::as_object);
    let memory_file = memory_input.and_then(|m| m.get("file"));
    let memory_heading = memory_input.and_then(|m| m.get("heading"));
    let memory = SectionReader::default().resolve(root, memory_file, memory_heading)?;
    // 5.
    let scope = validate_scope(input.get("scope").and_then(Value::as_array).unwrap_or(&[]))?;
    // 6.
    let task_scope = strings(&source, "scope");
    if !scope
        .iter()
        .all(|p| task_scope.iter().any(|t| receipts::is_within(p, t)))
    {
        return Err(Error::refused(messages::SCOPE_EXCEEDS_TASK));
    }
    // 7.
    let supersedes = relations(input.get("supersedes"), &receipts, &scope)?;
    let contradicts = relations(input.get("contradicts"), &receipts, &scope)?;
    if supersedes.iter().any(|id| contradicts.contains(id)) {
        return Err(Error::refused(messages::SUPERSEDED_AND_CONTRADICTED));
    }
    // 8.
    let interpretation = bounded_text(input.get("interpretation"), 2000)
        .ok_or_else(|| Error::refused(messages::INTERPRETATION_TEXT))?;
    // 9.
    let to_values = |list: &[String]| list.iter().map(Value::from).collect::<Vec<_>>();
    let body = Object::new()
        .with("schemaVersion", 1.0)
        .with("kind", "accepted-outcome")
        .with("ts", ctx.now.iso.as_str())
        .with("memory", memory.clone())
        .with("scope", to_values(&scope))
        .with("source", source.clone())
        .with("interpretation", interpretation)
        .with(
            "verification",
            Object::new()
                .with("status", "passed")
                .with("acceptance", "accepted")
                .with("lessonCausality", "unmeasured"),
        )
        .with("supersedes", to_values(&supersedes))
        .with("contradicts", to_values(&contradicts));
    // 10. A fresh view re-reads every file.
    let source_again = Nexus::new(root).accepted_source(run_id, task_id);
    let memory_again = SectionReader::default().resolve(root, memory_file, memory_heading);
    let same = |a: &Object, b: &Object| {
        Value::Object(a.clone()).compact() == Value::Object(b.clone()).compact()
    };
    match (source_again, memory_again) {
        (Ok(s), Ok(m)) if same(&s, &source) && same(&m, &memory) => {}
        _ => {
            return Err(Error::refused(messages::SOURCES_CHANGED));
        }
    }
    // 11.
    if receipts.len() >= MAX_RECEIPTS {
        return Err(Error::refused(messages::OUTCOME_STORE_FULL));
    }
    // 12.
    let id = Value::Object(body.clone()).sha256();
    let mut receipt = Object::new().with("id", id);
    for (key, value) in body.iter() {
        receipt.insert(key.clone(), value.clone());
    }
    ndjson::append(
        root,
        OUTCOMES,
        &Value::Object(receipt.clone()).compact(),
        lock,
    )?;
    Ok(receipt)
}

/// docs §8 step 7 for one list: falsy is `[]`; at most 30 unique strings, each an existing
/// receipt whose scope overlaps `scope`; sorted.
fn relations(value: Option<&Value>, receipts: &[Object], scope: &[String]) -> Result<Vec<String>> {
    let list = match value {
        None => return Ok(Vec::new()),
        Some(v) if !v.is_truthy() => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(_) => return Err(invalid_relations()),
    };
    // docs §8 step 7: at most 30 unique strings. (bmad-plus lets a non-string item through
    // to the lookup, which then finds nothing; the documented list message is clearer.)
    let mut ids: Vec<String> = Vec::with_capacity(list.len());
    for item in list {
        match item.as_str() {
            Some(id) if !ids.iter().any(|i| i == id) => ids.push(id.to_owned()),
            _ => return Err(invalid_relations()),
        }
    }
    if ids.len() > MAX_RELATIONS {
        return Err(invalid_relations());
    }
    for id in &ids {
        let related = receipts.iter().any(|r| {
            r.get("id").and_then(Value::as_str) == Some(id.as_str())
                && overlaps(&strings(r, "scope"), scope)
        });
        if !related {
            return Err(Error::refused(messages::RELATED_NOT_FOUND));
        }
    }
    sort_utf16(&mut ids);
    Ok(ids)
}

fn invalid_relations() -> Error {
    Error::refused(messages::RELATIONS_INVALID)
}

impl Report for ObserveReport {
    fn to_json(&self) -> Value {
        Value::Object(Object::new().with("written", self.receipt.clone()))
    }

    fn render_human(&self) -> String {
        format!(
            "mem observe: {} recorded; lesson causality remains unmeasured.\n",
            self.receipt.get("id").map(Value::text).unwrap_or_default()
        )
    }

    fn written(&self) -> Option<String> {
        let id = self.receipt.get("id").map(Value::text).unwrap_or_default();
        Some(format!("receipt {id} recorded"))
    }
}
