//! The accepted source (`docs/NEXUS.md` "The accepted source"): what a loaded run keeps once
//! every task is observed, each task's source object written once as compact JSON, or the
//! refusal that stands in its place.
//!
//! Pure: works on the parsed run and the observations the evidence check made of it.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::js::json;
use crate::js::tape::Node;

use crate::nexus::node::{current_attempt, field, is_str, same, strict_eq, tasks_of};
use crate::nexus::record::Run;

/// Refusal of a task that is not accepted with current, independently verified evidence.
pub(super) const NOT_ACCEPTED: &str =
    "Outcome source is not an accepted task with current independently verified evidence.";
/// Refusal of an acceptance whose receipt names another attempt or other artifacts.
pub(super) const NOT_BOUND: &str =
    "Nexus acceptance does not bind the current attempt and artifacts.";

/// A validated run, reduced to what resolutions need once every task is observed: the run's
/// JSON tree (several times the size of its file) is dropped as soon as it is summarised.
#[derive(Debug)]
pub(super) struct Loaded {
    /// Each task id → its accepted source, or which refusal; the first record with an id wins,
    /// as Nexus's `find` has it.
    sources: HashMap<String, std::result::Result<Source, &'static str>>,
}

/// An accepted source as compact JSON text, written once on the thread that loaded it.
#[derive(Debug)]
pub(super) struct Source {
    pub(super) text: String,
}

/// What Nexus's `inspect` says of one task.
#[derive(Debug)]
pub(super) struct Observation {
    /// The current attempt passed verification and its evidence is current (steps 1–6).
    pub(super) is_evidence_eligible: bool,
    /// Why the task is stale, if it is: its protected snapshot fails, or its passed evidence
    /// is not current.
    pub(super) stale_reason: Option<String>,
}

impl Loaded {
    /// Every task's accepted source (or refusal), from the run and its observations.
    pub(super) fn new(run: &Run<'_>, run_id: &str, observations: &[Observation]) -> Self {
        let mut sources = HashMap::new();
        for (task, observation) in tasks_of(run.value).zip(observations) {
            if let Some(task_id) = field(Some(task), "id").and_then(Node::as_str)
                && !sources.contains_key(task_id)
            {
                let source = accepted_source(task, observation, run, run_id, task_id)
                    .map(|text| Source { text });
                sources.insert(task_id.to_owned(), source);
            }
        }
        Self { sources }
    }

    pub(super) fn source(&self, task_id: &str) -> Result<&Source> {
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
