//! `outcomes`: list every receipt with whether it still counts today (docs §9).
//!
//! The store is read strictly (a corrupt store is an error, never reset), then each receipt is
//! re-checked against today's files: `accepted-current`, or the reason it no longer counts.

use std::fmt::Write as _;

use crate::actions::receipts::{Inspector, Status, read_store};
use crate::context::Context;
use crate::error::Result;
use crate::js::json::{Object, Value};
use crate::output::Report;

/// List accepted-outcome receipts and re-check each against today's files.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct OutcomesArgs {}

/// Every receipt with its status.
#[derive(Debug)]
pub(crate) struct OutcomesReport {
    pub results: Vec<(Object, Status)>,
}

/// Reads the store and inspects every receipt.
///
/// # Errors
/// The strict reader's messages (docs §9.1).
pub(crate) fn run(_args: &OutcomesArgs, ctx: &Context) -> Result<OutcomesReport> {
    let receipts = read_store(&ctx.root)?;
    let mut inspector = Inspector::new(&ctx.root);
    let statuses = inspector.statuses(&receipts, None);
    // The inspector's caches (each run's summary, each file's hash, each section) are only
    // freed by the end of the process, which follows the output: freeing them one by one
    // here would cost more than the rest of the command after the runs are loaded.
    std::mem::forget(inspector);
    Ok(OutcomesReport {
        results: receipts.into_iter().zip(statuses).collect(),
    })
}

impl Report for OutcomesReport {
    fn to_json(&self) -> Value {
        #[expect(clippy::cast_precision_loss, reason = "at most 1,000 receipts")]
        let count = self.results.len() as f64;
        let results: Vec<Value> = self
            .results
            .iter()
            .map(|(receipt, status)| {
                let mut entry = receipt.clone();
                entry.insert("eligible", status.is_eligible());
                entry.insert("reason", status.reason());
                Value::Object(entry)
            })
            .collect();
        Value::Object(Object::new().with("count", count).with("results", results))
    }

    fn render_human(&self) -> String {
        if self.results.is_empty() {
            return "mem outcomes: no observations.\n".to_owned();
        }
        let mut out = String::new();
        for (receipt, status) in &self.results {
            let id = receipt.get("id").map(Value::text).unwrap_or_default();
            let reason = status
                .reason()
                .unwrap_or_else(|| "accepted-current".to_owned());
            let _ = writeln!(out, "{id}: {reason}");
        }
        out
    }
}
