//! The checks a run file must pass before any task is looked at (`docs/NEXUS.md` "The run
//! file"): its sealed envelope, its plan's integrity, and every task and attempt record's
//! lifecycle shape. The first failure is the one reported, in Nexus's order and words.
//!
//! Pure: works on the parsed run, reads nothing.

use std::collections::HashSet;

use crate::error::Result;
use crate::js::tape::{Doc, Node};

use crate::nexus::node::{
    field, ids, is_integer, is_number, is_one_of, is_str, strict_eq, tasks_of,
};
use crate::nexus::refusal::nexus;

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

/// `docs/NEXUS.md` envelope checks: `Corrupt or foreign run state` unless every one holds. Returns
/// the run.
pub(super) fn validate_envelope<'d>(
    envelope: Node<'d>,
    run_id: &str,
    project: &str,
) -> Result<Node<'d>> {
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

/// The run of an envelope `Disk::load_run` validated.
pub(super) fn run_of(envelope: &Doc) -> Node<'_> {
    envelope
        .root()
        .get("run")
        .expect("a validated envelope holds its run")
}

/// `docs/NEXUS.md`: the plan hashes to `planHash` and defines the run's tasks, in order.
pub(super) fn validate_plan(run: Node<'_>) -> Result<()> {
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
/// `docs/NEXUS.md` lifecycle records: every task and attempt well formed, attempt ids unique within
/// the run, and the current attempt with its `cancellation` and `backend` (docs §10).
pub(super) fn validate_lifecycle(run: Node<'_>, run_id: &str) -> Result<()> {
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
