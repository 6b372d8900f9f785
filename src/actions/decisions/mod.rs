//! `decision`: the lifecycle of the decisions kept in `decisions.md` — an active decision's
//! text stands as it was ledgered; it ends only by a status flip, superseded by a named
//! successor or abrogated with a reason, and every event is recorded in the ledger
//! (`.bmad/memory/decisions.ndjson`, see [`ledger`]).
//!
//! * `decision adopt [<heading>…|--all]` ledgers decisions written by hand, as they stand;
//! * `decision supersede <heading> --by <successor> [--reason <text>]`;
//! * `decision abrogate <heading> --reason <text>`.
//!
//! The rules and the write order are in [`lifecycle`].

pub mod ledger;
pub mod lifecycle;

use std::fmt::Write as _;

use crate::actions::decisions::lifecycle::{End, Outcome};
use crate::actions::secrets;
use crate::context::Context;
use crate::error::Result;
use crate::js::json::{Object, Value};
use crate::output::Report;
use crate::store::layout::DECISION_LEDGER;

/// Adopt, supersede or abrogate a decision of decisions.md (the ledger records every change).
#[derive(Debug, Clone, clap::Args)]
pub struct DecisionArgs {
    #[command(subcommand)]
    pub command: DecisionCommand,
}

/// The lifecycle commands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum DecisionCommand {
    /// Record hand-written decisions in the ledger as they stand (the notes are not changed).
    Adopt(AdoptArgs),
    /// End an active, ledgered decision in favour of another active one.
    Supersede(SupersedeArgs),
    /// End an active, ledgered decision without a successor.
    Abrogate(AbrogateArgs),
}

/// Record hand-written decisions in the ledger as they stand.
#[derive(Debug, Clone, clap::Args)]
pub struct AdoptArgs {
    /// The headings of the decisions to adopt (each must name exactly one decision).
    #[arg(value_name = "heading", allow_hyphen_values = true)]
    pub headings: Vec<String>,
    /// Adopt every decision not ledgered yet.
    #[arg(long)]
    pub all: bool,
}

/// End an active, ledgered decision in favour of another active one.
#[derive(Debug, Clone, clap::Args)]
pub struct SupersedeArgs {
    /// The heading of the decision that no longer stands.
    #[arg(value_name = "heading", allow_hyphen_values = true)]
    pub heading: String,
    /// The heading of the decision that replaces it (it must exist and be active).
    #[arg(long, value_name = "heading", allow_hyphen_values = true)]
    pub by: String,
    /// Why, recorded in the ledger.
    #[arg(long, value_name = "text", allow_hyphen_values = true)]
    pub reason: Option<String>,
}

/// End an active, ledgered decision without a successor.
#[derive(Debug, Clone, clap::Args)]
pub struct AbrogateArgs {
    /// The heading of the decision that no longer stands.
    #[arg(value_name = "heading", allow_hyphen_values = true)]
    pub heading: String,
    /// Why, recorded in the ledger (required).
    #[arg(long, value_name = "text", allow_hyphen_values = true)]
    pub reason: Option<String>,
}

/// What the command did.
#[derive(Debug)]
pub struct DecisionReport {
    outcome: Outcome,
}

impl DecisionReport {
    /// Whether a decision's status line was rewritten.
    #[must_use]
    pub fn flipped(&self) -> bool {
        self.outcome.flipped.is_some()
    }
}

/// Runs one lifecycle command.
///
/// # Errors
/// A secret in `--reason` (checked first); the refusals of [`lifecycle`]; nothing is written
/// then.
pub fn run(args: &DecisionArgs, ctx: &Context) -> Result<DecisionReport> {
    let now = ctx.now.iso.as_str();
    if let DecisionCommand::Supersede(SupersedeArgs { reason, .. })
    | DecisionCommand::Abrogate(AbrogateArgs { reason, .. }) = &args.command
    {
        secrets::refuse(ctx, &[("--reason", reason.as_deref().unwrap_or_default())])?;
    }
    let outcome = match &args.command {
        DecisionCommand::Adopt(a) => lifecycle::adopt(&ctx.root, now, &a.headings, a.all)?,
        DecisionCommand::Supersede(a) => lifecycle::end(
            &ctx.root,
            now,
            &a.heading,
            &End::Supersede { by: &a.by },
            a.reason.as_deref(),
            ctx.crash_at.as_deref(),
        )?,
        DecisionCommand::Abrogate(a) => lifecycle::end(
            &ctx.root,
            now,
            &a.heading,
            &End::Abrogate,
            a.reason.as_deref(),
            ctx.crash_at.as_deref(),
        )?,
    };
    Ok(DecisionReport { outcome })
}

impl Report for DecisionReport {
    fn to_json(&self) -> Value {
        let o = &self.outcome;
        let recorded: Vec<Value> = o
            .recorded
            .iter()
            .map(|r| Value::Object(r.to_object()))
            .collect();
        let mut out = Object::new().with("event", o.event);
        if let Some((file, heading, status)) = &o.flipped {
            out = out
                .with("file", file.as_str())
                .with("heading", heading.as_str())
                .with("status", status.as_str())
                .with("completed", o.completed);
        }
        out = out.with("recorded", recorded);
        if o.flipped.is_none() {
            let skipped: Vec<Value> = o
                .skipped
                .iter()
                .map(|(file, heading, why)| {
                    Value::Object(
                        Object::new()
                            .with("file", file.as_str())
                            .with("heading", heading.as_str())
                            .with("reason", why.as_str()),
                    )
                })
                .collect();
            out = out.with("skipped", skipped);
        }
        Value::Object(out)
    }

    fn render_human(&self) -> String {
        let o = &self.outcome;
        let ids = |o: &Outcome| {
            o.recorded
                .iter()
                .map(|r| r.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if let Some((file, heading, status)) = &o.flipped {
            return if o.completed {
                format!(
                    "mem decision: completed an interrupted change: \"{heading}\" is now \"{status}\" in {file} (its ledger records were already there)\n"
                )
            } else {
                format!(
                    "mem decision: \"{heading}\" is now \"{status}\" in {file}; ledger record(s) {}\n",
                    ids(o)
                )
            };
        }
        let mut out = format!(
            "mem decision: adopted {} decision(s) into {}\n",
            o.recorded.len(),
            DECISION_LEDGER
        );
        for r in &o.recorded {
            let _ = writeln!(out, "  + {} § {} ({})", r.file, r.heading, r.status);
        }
        for (file, heading, why) in &o.skipped {
            let _ = writeln!(out, "  = {file} § {heading}: {why}");
        }
        out
    }

    fn written(&self) -> Option<String> {
        let o = &self.outcome;
        if let Some((file, heading, status)) = &o.flipped {
            return Some(format!("\"{heading}\" flipped to \"{status}\" in {file}"));
        }
        (!o.recorded.is_empty()).then(|| format!("{} ledger record(s) appended", o.recorded.len()))
    }
}
