//! Record lookup in a validated run: a task's plan definition and a dependency by id, as
//! Nexus's `find(r => r.id === id)` has it (the first record with the id wins), without a scan
//! per lookup.

use std::collections::HashMap;

use crate::error::Result;
use crate::js::tape::Node;

use crate::nexus::node::{field, is_nexus_id, plan_tasks, strict_eq, tasks_of};
use crate::nexus::refusal::nexus;

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
pub(super) struct Run<'a> {
    pub(super) value: Node<'a>,
    definitions: ById<'a>,
    tasks: ById<'a>,
}

impl<'a> Run<'a> {
    pub(super) fn new(value: Node<'a>) -> Self {
        Self {
            value,
            definitions: ById::of(plan_tasks(value)),
            tasks: ById::of(tasks_of(value)),
        }
    }

    /// The plan's definition of a task record (`run.plan.tasks.find(d => d.id === task.id)`).
    pub(super) fn definition_of(&self, task: Node<'_>) -> Option<Node<'a>> {
        self.definitions.find(field(Some(task), "id"))
    }

    /// Nexus's `taskOf`: a dependency named by a valid task id that the run holds.
    pub(super) fn task_of(&self, id: Node<'_>) -> Result<Node<'a>> {
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
