//! `decision`: the lifecycle of the decisions kept in `decisions.md` — a ledgered decision's
//! text stands as it was ledgered; its status changes only through these commands, and every
//! event is recorded in the ledger (`.bmad/memory/decisions.ndjson`, see [`ledger`]).
//!
//! * `decision adopt [<heading>…|--all]` ledgers decisions written by hand, as they stand;
//! * `decision accept <heading>` and `decision reject <heading>` decide a proposed one;
//! * `decision supersede <heading> --successor <successor> [--reason <text>]`;
//! * `decision abrogate <heading> --reason <text>`.
//!
//! A decision is named by its heading, or loosely ([`names`]). Each command takes `--actor`
//! ([`ledger::actor`]). The rules and the write order are in [`lifecycle`].

pub mod chain;
pub mod digest;
pub mod ledger;
pub mod lifecycle;
pub mod names;
pub mod notes;

use std::fmt::Write as _;

use crate::actions::decisions::lifecycle::{Change, Outcome, Run};
use crate::actions::secrets;
use crate::context::Context;
use crate::error::Result;
use crate::js::json::{Object, Value};
use crate::output::Report;
use crate::store::layout::DECISION_LEDGER;

/// Adopt, accept, reject, supersede or abrogate a decision of decisions.md (the ledger records
/// every change).
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
    /// Put a proposed or draft decision in force (adopting it first when it is not ledgered).
    Accept(DecideArgs),
    /// Turn down a proposed or draft decision (adopting it first when it is not ledgered).
    Reject(DecideArgs),
    /// End an active, ledgered decision in favour of another active one.
    Supersede(SupersedeArgs),
    /// End an active, ledgered decision without a successor.
    Abrogate(AbrogateArgs),
}

/// Who acts, for every lifecycle command.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ActorArg {
    /// Who acts, recorded in the ledger (default: git's user.name in the project, else USER,
    /// else USERNAME, else unknown).
    #[arg(long, value_name = "name", allow_hyphen_values = true)]
    pub actor: Option<String>,
}

/// Record hand-written decisions in the ledger as they stand.
#[derive(Debug, Clone, clap::Args)]
pub struct AdoptArgs {
    /// The decisions to adopt, by heading (each must name exactly one decision; a heading
    /// that starts with `-` goes after `--`).
    #[arg(value_name = "heading")]
    pub headings: Vec<String>,
    /// Adopt every decision not ledgered yet, whatever its status (proposed and draft too).
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub actor: ActorArg,
}

/// Accept or reject a proposed decision.
#[derive(Debug, Clone, clap::Args)]
pub struct DecideArgs {
    /// The decision, by heading.
    #[arg(value_name = "heading", allow_hyphen_values = true)]
    pub heading: String,
    /// Why, recorded in the ledger.
    #[arg(long, value_name = "text", allow_hyphen_values = true)]
    pub reason: Option<String>,
    #[command(flatten)]
    pub actor: ActorArg,
}

/// End an active, ledgered decision in favour of another active one.
#[derive(Debug, Clone, clap::Args)]
pub struct SupersedeArgs {
    /// The decision that no longer stands, by heading.
    #[arg(value_name = "heading", allow_hyphen_values = true)]
    pub heading: String,
    /// The decision that replaces it, by heading (it must exist and be active).
    #[arg(
        long,
        alias = "by",
        value_name = "heading",
        allow_hyphen_values = true,
        required = true
    )]
    pub successor: Option<String>,
    /// Why, recorded in the ledger.
    #[arg(long, value_name = "text", allow_hyphen_values = true)]
    pub reason: Option<String>,
    #[command(flatten)]
    pub actor: ActorArg,
}

/// End an active, ledgered decision without a successor.
#[derive(Debug, Clone, clap::Args)]
pub struct AbrogateArgs {
    /// The decision that no longer stands, by heading.
    #[arg(value_name = "heading", allow_hyphen_values = true)]
    pub heading: String,
    /// Why, recorded in the ledger (required).
    #[arg(long, value_name = "text", allow_hyphen_values = true)]
    pub reason: Option<String>,
    #[command(flatten)]
    pub actor: ActorArg,
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
/// A secret in `--reason` or in who acts (checked first); the refusals of [`lifecycle`] and of
/// [`ledger::actor`]; nothing is written then.
pub fn run(args: &DecisionArgs, ctx: &Context) -> Result<DecisionReport> {
    let given = match &args.command {
        DecisionCommand::Adopt(a) => &a.actor,
        DecisionCommand::Accept(a) | DecisionCommand::Reject(a) => &a.actor,
        DecisionCommand::Supersede(a) => &a.actor,
        DecisionCommand::Abrogate(a) => &a.actor,
    };
    let actor = ledger::actor(given.actor.as_deref(), ctx)?;
    let run = Run {
        root: &ctx.root,
        now: ctx.now.iso.as_str(),
        actor: &actor,
        crash_at: ctx.crash_at.as_deref(),
    };
    let reason = match &args.command {
        DecisionCommand::Supersede(SupersedeArgs { reason, .. })
        | DecisionCommand::Abrogate(AbrogateArgs { reason, .. })
        | DecisionCommand::Accept(DecideArgs { reason, .. })
        | DecisionCommand::Reject(DecideArgs { reason, .. }) => reason.as_deref(),
        DecisionCommand::Adopt(_) => None,
    };
    secrets::refuse(
        ctx,
        &[
            ("--reason", reason.unwrap_or_default()),
            ("--actor", &actor),
        ],
    )?;
    let outcome = match &args.command {
        DecisionCommand::Adopt(a) => lifecycle::adopt(&run, &a.headings, a.all)?,
        DecisionCommand::Accept(a) => {
            lifecycle::change(&run, &a.heading, Change::Accept, a.reason.as_deref())?
        }
        DecisionCommand::Reject(a) => {
            lifecycle::change(&run, &a.heading, Change::Reject, a.reason.as_deref())?
        }
        DecisionCommand::Supersede(a) => lifecycle::change(
            &run,
            &a.heading,
            Change::Supersede {
                successor: a.successor.as_deref().unwrap_or_default(),
            },
            a.reason.as_deref(),
        )?,
        DecisionCommand::Abrogate(a) => {
            lifecycle::change(&run, &a.heading, Change::Abrogate, a.reason.as_deref())?
        }
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
        if let Some((file, heading, _)) = &o.flipped {
            out = out
                .with("file", file.as_str())
                .with("heading", heading.as_str())
                .with("status", o.status)
                .with("completed", o.completed);
        }
        let predecessors: Vec<Value> = o
            .predecessors
            .iter()
            .map(|(file, heading)| {
                Value::Object(
                    Object::new()
                        .with("file", file.as_str())
                        .with("heading", heading.as_str()),
                )
            })
            .collect();
        out = out.with("recorded", recorded);
        if o.flipped.is_some() {
            out = out.with("predecessors", predecessors);
        } else {
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
            let mut out = if o.completed {
                format!(
                    "mem decision: completed an interrupted change: \"{heading}\" is now \"{status}\" in {file} (its ledger records were already there)\n"
                )
            } else {
                format!(
                    "mem decision: \"{heading}\" is now \"{status}\" in {file}; ledger record(s) {}\n",
                    ids(o)
                )
            };
            for (file, predecessor) in &o.predecessors {
                let _ = writeln!(
                    out,
                    "  = {file} § {predecessor} stays superseded (by \"{heading}\", now {status})"
                );
            }
            return out;
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
