//! `write`: append one event to the journal (docs §6).
//!
//! Everything is validated before the writer lock is taken, so a usage error creates nothing;
//! that includes the secret check of the free-text fields (`--agent`, `--cli`, `--model`,
//! `--task`), which bmad-plus does not have (docs/COMPATIBILITY.md).
//! The event's `id` is the first 12 hex digits of `sha256(ts + "\0" + agent + "\0" + task)`:
//! the same call at the same instant gives the same id in bmad-plus and here.

use crate::actions::secrets;
use crate::actions::signals::{SignalArgs, Signals};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value, sha256_hex};
use crate::js::text::truncate;
use crate::messages;
use crate::output::Report;
use crate::store::layout::JOURNAL;
use crate::store::lock::WriterLock;
use crate::store::ndjson;

/// The outcomes `--outcome` takes.
pub(crate) const OUTCOMES: [&str; 4] = ["success", "failure", "partial", "abandoned"];

/// Append an event (what an agent did) to the journal.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct WriteArgs {
    /// Name of the agent that did the work (required).
    #[arg(long, value_name = "name", allow_hyphen_values = true)]
    pub agent: Option<String>,
    /// The coding assistant it ran in (claude-code, gemini-cli, codex, …).
    #[arg(long, value_name = "name", allow_hyphen_values = true)]
    pub cli: Option<String>,
    /// The model identifier.
    #[arg(long, value_name = "id", allow_hyphen_values = true)]
    pub model: Option<String>,
    /// What the agent worked on.
    #[arg(long, value_name = "text", allow_hyphen_values = true)]
    pub task: Option<String>,
    /// How it ended: success, failure, partial or abandoned.
    #[arg(long, value_name = "outcome", allow_hyphen_values = true)]
    pub outcome: Option<String>,
    #[command(flatten)]
    pub signals: SignalArgs,
}

/// An optional field as bmad-plus reads it with `||`: an empty value counts as absent.
fn given(value: Option<&String>) -> Option<&str> {
    value.map(String::as_str).filter(|s| !s.is_empty())
}

/// The event written.
#[derive(Debug)]
pub(crate) struct WriteReport {
    pub event: Object,
}

/// Validates, then appends the event under the writer lock.
///
/// # Errors
/// `appendEvent: …`, signal messages and a secret found in a field before the lock; lock and
/// store errors after.
pub(crate) fn run(args: &WriteArgs, ctx: &Context) -> Result<WriteReport> {
    let agent = args.agent.as_deref().unwrap_or_default();
    if agent.is_empty() {
        return Err(Error::refused(messages::AGENT_REQUIRED));
    }
    // Only an absent outcome skips the check: bmad-plus refuses `--outcome ""` too.
    if let Some(outcome) = &args.outcome
        && !OUTCOMES.contains(&outcome.as_str())
    {
        return Err(Error::refused(messages::OUTCOME_UNKNOWN));
    }
    let signals = Signals::parse(&args.signals)?;
    let task = args.task.as_deref().unwrap_or_default();
    secrets::refuse(
        ctx,
        &[
            ("--agent", agent),
            ("--cli", args.cli.as_deref().unwrap_or_default()),
            ("--model", args.model.as_deref().unwrap_or_default()),
            ("--task", task),
        ],
    )?;
    let ts = ctx.now.iso.as_str();
    let id = sha256_hex(format!("{ts}\u{0}{agent}\u{0}{task}").as_bytes())[..12].to_owned();
    let event = Object::new()
        .with("ts", ts)
        .with("agent", agent)
        .with("cli", given(args.cli.as_ref()))
        .with("model", given(args.model.as_ref()))
        .with("task", task)
        .with("outcome", given(args.outcome.as_ref()))
        .with("signals", signals.to_object())
        .with("artifactHashes", Vec::new())
        .with("id", id);
    let line = Value::Object(event.clone()).compact();
    let lock = WriterLock::acquire(&ctx.root)?;
    ndjson::append(&ctx.root, JOURNAL, &line, &lock)?;
    Ok(WriteReport { event })
}

impl Report for WriteReport {
    fn to_json(&self) -> Value {
        Value::Object(Object::new().with("written", self.event.clone()))
    }

    fn render_human(&self) -> String {
        let field = |key: &str| {
            self.event
                .get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .unwrap_or("-")
                .to_owned()
        };
        let mut out = format!(
            "mem write: event {} appended ({})\n  agent={} cli={} model={} outcome={}\n",
            field("id"),
            field("ts"),
            field("agent"),
            field("cli"),
            field("model"),
            field("outcome"),
        );
        if let Some(task) = self.event.get("task").and_then(Value::as_str)
            && !task.is_empty()
        {
            out.push_str("  task: ");
            out.push_str(&truncate(task));
            out.push('\n');
        }
        out
    }

    fn written(&self) -> Option<String> {
        let id = self.event.get("id").map(Value::text).unwrap_or_default();
        Some(format!("event {id} appended"))
    }
}
