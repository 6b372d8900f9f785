//! The MCP tools: their names, descriptions and schemas, and the call of each one.
//!
//! A tool is its command seen through JSON: its arguments become the command's own arguments
//! (the strings the command line would have carried, read leniently by
//! [`crate::mcp::arguments`]), the command's library function runs on a context built for this
//! call, and the result is twofold: `structuredContent`, the very object `--json` prints (its
//! schema, from `schemas/`, is the tool's `outputSchema`), and a text a model reads well
//! ([`crate::mcp::text`]). Checking the values is left to the command, so a bad value is
//! refused with the command's message.
//!
//! What differs from the command line, because an agent is calling (docs/AGENTS.md):
//! * `memory_write` requires a task, and a record too large for any journal says so instead of
//!   "Memory store is full";
//! * `memory_propose` answers with the identical pending candidate instead of writing another;
//! * `memory_recall`'s portfolio is the project's linked brain, never another folder;
//! * `memory_read` and `memory_handoff`'s separate parts have no command-line form.
//!
//! Few tools on purpose: every tool's description lands in the agent's context at each turn.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::actions::entries::propose::{self, ProposeArgs};
use crate::actions::outcomes::{self, OutcomesArgs};
use crate::actions::read::{self, ReadArgs};
use crate::actions::recall::{self, RecallArgs};
use crate::actions::signals::SignalArgs;
use crate::actions::write::{self, WriteArgs};
use crate::context::Context;
use crate::error::Error;
use crate::js::json::Value as JsValue;
use crate::js::path::resolve;
use crate::mcp::arguments::Arguments;
use crate::mcp::schemas;
use crate::mcp::text;
use crate::messages;
use crate::output::Report;
use crate::session::brain;
use crate::session::brief::{self, BriefArgs};
use crate::session::handoff::{self, HandoffArgs};
use crate::store::layout::REGISTRY_CAP;

/// One tool as `tools/list` shows it.
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// The JSON Schema of its arguments (an object schema, one type per property).
    pub input_schema: Value,
    /// The schema of its structured result, as `schemas/` holds it ([`schemas::output_schema`]
    /// serves it).
    pub output_schema: &'static str,
    /// Whether it only reads the memory.
    pub read_only: bool,
    /// Whether calling it again with the same arguments changes nothing more.
    pub idempotent: bool,
}

/// The tools, in the order `tools/list` gives them.
#[must_use]
pub fn tools() -> Vec<Tool> {
    vec![
        brief_tool(),
        recall_tool(),
        read_tool(),
        write_tool(),
        propose_tool(),
        handoff_tool(),
        outcomes_tool(),
    ]
}

fn brief_tool() -> Tool {
    Tool {
        name: "memory_brief",
        title: "Session-start brief",
        description: "Call first, at the start of a session: the project's memory in one read — \
                      the latest handoff, decisions in force, lessons, validated patterns, recent \
                      journal events and commits. Returns Markdown under 10,000 characters; \
                      entries that do not fit are listed by title (memory_recall finds them).",
        input_schema: schema(
            &[(
                "max_chars",
                json!({"type": "integer", "minimum": 1,
                "description": "Longest brief, in characters (default 8000)."}),
            )],
            &[],
        ),
        output_schema: schemas::BRIEF,
        read_only: true,
        idempotent: true,
    }
}

fn recall_tool() -> Tool {
    Tool {
        name: "memory_recall",
        title: "Recall project memory",
        description: "Call before deciding or changing something: searches the project's \
                      decisions, lessons, patterns and journal events for the query's words. \
                      Returns the best matches, one line each with its reference; memory_read \
                      gives one whole.",
        input_schema: schema(
            &[
                (
                    "query",
                    json!({"type": "string", "description": "Words to look for."}),
                ),
                (
                    "limit",
                    json!({"type": "integer", "minimum": 1,
                    "description": "Most matches to return (default 8)."}),
                ),
                (
                    "ranking",
                    json!({"type": "string", "enum": ["lexical", "bm25", "hybrid", "evidence"],
                    "description": "bm25 (the better one) also finds reworded ideas and shows each decision's status; hybrid adds an embedding model to bm25 and finds ideas put in other words best (the model must be installed once per user); lexical counts the words; evidence favours notes backed by accepted work (needs context_scope). Default: the project's configured ranking, else lexical."}),
                ),
                (
                    "status",
                    json!({"type": "string", "enum": ["all", "in-force"],
                    "description": "With ranking bm25: all (default), or in-force to leave out decisions that ended or are only proposed."}),
                ),
                (
                    "context_scope",
                    json!({"type": "string",
                    "description": "With ranking evidence: the project paths the question is about, comma-separated."}),
                ),
                (
                    "scope",
                    json!({"type": "string", "enum": ["project", "portfolio"],
                    "description": "portfolio also searches the brain linked to the project (default project)."}),
                ),
                (
                    "portfolio",
                    json!({"type": "string",
                    "description": "Optional with scope portfolio: the linked brain's folder (no other is read)."}),
                ),
                (
                    "include_archive",
                    json!({"type": "boolean",
                    "description": "Also search archived journal events (not with bm25)."}),
                ),
            ],
            &["query"],
        ),
        output_schema: schemas::RECALL,
        read_only: true,
        idempotent: true,
    }
}

fn read_tool() -> Tool {
    Tool {
        name: "memory_read",
        title: "Read one memory entry",
        description: "Read one memory entry whole, by the reference memory_recall gave: a note \
                      section by file and heading, or a journal event by id.",
        input_schema: schema(
            &[
                (
                    "file",
                    json!({"type": "string",
                    "description": "The note's file, as recall shows it (.agents/memory/lessons.md) or by name (lessons.md)."}),
                ),
                (
                    "heading",
                    json!({"type": "string", "description": "The note section's heading."}),
                ),
                (
                    "id",
                    json!({"type": "string", "description": "The journal event's id."}),
                ),
            ],
            &[],
        ),
        output_schema: schemas::READ,
        read_only: true,
        idempotent: true,
    }
}

fn write_tool() -> Tool {
    Tool {
        name: "memory_write",
        title: "Record what was done",
        description: "Call after finishing a task: records what was done in the project's \
                      journal, which later sessions recall. Returns the event's id.",
        input_schema: schema(
            &[
                (
                    "agent",
                    json!({"type": "string", "description": "Who did the work (an agent's name)."}),
                ),
                (
                    "task",
                    json!({"type": "string", "description": "What was done, in a few words."}),
                ),
                (
                    "outcome",
                    json!({"type": "string", "enum": ["success", "failure", "partial", "abandoned"],
                    "description": "How it ended."}),
                ),
                (
                    "cli",
                    json!({"type": "string", "description": "The coding assistant (claude-code, gemini-cli, codex, …)."}),
                ),
                (
                    "model",
                    json!({"type": "string", "description": "The model's identifier."}),
                ),
                (
                    "eval",
                    json!({"type": "number", "minimum": 0, "maximum": 1,
                    "description": "An evaluation score in [0, 1]."}),
                ),
                (
                    "accept",
                    json!({"type": "string",
                    "description": "Whether the work was accepted: true, false, or a number in [0, 1]."}),
                ),
                (
                    "ci",
                    json!({"type": "string", "description": "The CI result: pass, fail, or a number in [0, 1]."}),
                ),
            ],
            &["agent", "task"],
        ),
        output_schema: schemas::WRITE,
        read_only: false,
        idempotent: false,
    }
}

fn propose_tool() -> Tool {
    Tool {
        name: "memory_propose",
        title: "Propose a memory entry",
        description: "Propose a decision, lesson or pattern worth keeping: it becomes a \
                      candidate that a person admits or refuses, never an entry by itself. \
                      Proposing the same again returns the pending candidate. Returns its id.",
        input_schema: schema(
            &[
                (
                    "type",
                    json!({"type": "string", "enum": ["decision", "lesson", "pattern"],
                    "description": "What the entry records."}),
                ),
                (
                    "title",
                    json!({"type": "string", "description": "The entry's title, one line."}),
                ),
                (
                    "body",
                    json!({"type": "string", "maxLength": 2000,
                    "description": "The content, in Markdown (at most 2,000 characters)."}),
                ),
                (
                    "applies_when",
                    json!({"type": "string", "description": "When the entry applies."}),
                ),
                (
                    "evidence",
                    json!({"type": "string",
                    "description": "Event or receipt ids, or paths, comma-separated."}),
                ),
                (
                    "source",
                    json!({"type": "string", "description": "Who proposes it (an agent's name)."}),
                ),
            ],
            &["type", "title", "body"],
        ),
        output_schema: schemas::PROPOSE,
        read_only: false,
        idempotent: true,
    }
}

/// The handoff's parts: argument name and the heading it fills (in the note's order).
const HANDOFF_PARTS: [&str; 5] = [
    "what_changed",
    "decisions",
    "open_questions",
    "next_steps",
    "files_modified",
];

fn handoff_tool() -> Tool {
    let part = |what: &str| json!({"type": "string", "description": format!("{what} (Markdown; a list gives one line per item).")});
    Tool {
        name: "memory_handoff",
        title: "Hand off to the next session",
        description: "Call before ending a session: writes a handoff note for the next one, \
                      which memory_brief shows first. Give the topic and at least one part. \
                      Returns the note's path.",
        input_schema: schema(
            &[
                (
                    "topic",
                    json!({"type": "string", "description": "What the session was about; names the note."}),
                ),
                (
                    "agent",
                    json!({"type": "string", "description": "Who writes it (an agent's name)."}),
                ),
                (HANDOFF_PARTS[0], part("What changed")),
                (HANDOFF_PARTS[1], part("Decisions made, with their reasons")),
                (HANDOFF_PARTS[2], part("Open questions for a person")),
                (HANDOFF_PARTS[3], part("Next steps, most urgent first")),
                (HANDOFF_PARTS[4], part("Files modified, each with why")),
            ],
            &["topic"],
        ),
        output_schema: schemas::HANDOFF,
        read_only: false,
        idempotent: false,
    }
}

fn outcomes_tool() -> Tool {
    Tool {
        name: "memory_outcomes",
        title: "Accepted-outcome receipts",
        description: "Call to see which memory entries accepted work backs: lists the \
                      accepted-outcome receipts and whether each still counts today.",
        input_schema: schema(&[], &[]),
        output_schema: schemas::OUTCOMES,
        read_only: true,
        idempotent: true,
    }
}

fn schema(properties: &[(&str, Value)], required: &[&str]) -> Value {
    let properties: Map<String, Value> = properties
        .iter()
        .map(|(name, schema)| ((*name).to_owned(), schema.clone()))
        .collect();
    let mut schema =
        json!({"type": "object", "properties": properties, "additionalProperties": false});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

/// A result: the text a model reads and the structured result (the `--json` object).
#[derive(Debug, Clone)]
pub struct Answer {
    pub text: String,
    pub structured: Value,
}

/// What a call gives back: its answer, or the message of its refusal.
pub type Outcome = Result<Answer, String>;

/// Runs tool `name` with `arguments` on the project at `directory` (the server's `-d`, default
/// the project found from its current directory). `None` when no tool has that name.
#[must_use]
pub fn call(
    name: &str,
    arguments: &Map<String, Value>,
    directory: Option<&Path>,
) -> Option<Outcome> {
    let outcome = match name {
        "memory_brief" => Arguments::new(arguments, &["max_chars"]).and_then(|a| {
            let args = BriefArgs {
                max_chars: a.word("max_chars")?,
                for_mcp: true,
                ..BriefArgs::default()
            };
            run(directory, text::brief, |ctx| brief::run(&args, ctx))
        }),
        "memory_recall" => recall_args(arguments).and_then(|args| {
            run(directory, text::recall, move |ctx| {
                let args = linked_portfolio(args, ctx)?;
                recall::run(&args, ctx)
            })
        }),
        "memory_read" => read_args(arguments).and_then(|args| {
            run(directory, text::read, move |ctx| {
                // A note of the linked brain's `memory/` may be read too: recall shows them.
                let portfolio = match brain::linked(ctx) {
                    Ok(Some(brain)) => Some(brain.dir.to_string_lossy().into_owned()),
                    _ => None,
                };
                read::run(&ReadArgs { portfolio, ..args }, ctx)
            })
        }),
        "memory_write" => write_args(arguments)
            .and_then(|args| run(directory, text::write, |ctx| write::run(&args, ctx))),
        "memory_propose" => propose_args(arguments).and_then(|args| {
            // The server's stdin is the protocol: the command never reads it from here.
            run(directory, text::propose, |ctx| {
                propose::run_with_input(&args, ctx, &mut std::io::empty())
            })
        }),
        "memory_handoff" => handoff_args(arguments).and_then(|args| {
            run(directory, text::handoff, |ctx| {
                handoff::run_with_input(&args, ctx, &mut std::io::empty())
            })
        }),
        "memory_outcomes" => Arguments::new(arguments, &[]).and_then(|_| {
            run(directory, text::outcomes, |ctx| {
                outcomes::run(&OutcomesArgs {}, ctx)
            })
        }),
        _ => return None,
    };
    Some(outcome)
}

/// Builds this call's context and runs the command on it: the clock and the environment are
/// read per call, as each command-line run reads them.
fn run<R: Report>(
    directory: Option<&Path>,
    text: fn(&Value) -> String,
    command: impl FnOnce(&Context) -> crate::error::Result<R>,
) -> Outcome {
    let report = Context::from_env(directory)
        .and_then(|ctx| command(&ctx))
        .map_err(|e| message(&e))?;
    let structured = structured(&report.to_json());
    Ok(Answer {
        text: text(&structured),
        structured,
    })
}

/// A refusal's message: the command's, except where an agent is told more.
fn message(error: &Error) -> String {
    match error {
        Error::RecordTooLarge { store, size } => {
            messages::record_too_large(store, *size, REGISTRY_CAP)
        }
        other => other.to_string(),
    }
}

/// The `--json` object as a JSON-RPC value: the same keys in the same order, every number the
/// same double (a whole one written as an integer, as JavaScript prints it).
fn structured(value: &JsValue) -> Value {
    match value {
        JsValue::Null => Value::Null,
        JsValue::Bool(on) => Value::Bool(*on),
        JsValue::Number(n) => {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "a whole number below 2^63 converts exactly"
            )]
            if n.fract() == 0.0 && n.abs() < 9.2e18 {
                Value::from(*n as i64)
            } else {
                // What JSON.stringify writes for NaN and the infinities.
                serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number)
            }
        }
        JsValue::String(text) => Value::String(text.clone()),
        JsValue::Array(items) => Value::Array(items.iter().map(structured).collect()),
        JsValue::Object(object) => Value::Object(
            object
                .ordered()
                .into_iter()
                .map(|(key, value)| (key.clone(), structured(value)))
                .collect(),
        ),
    }
}

fn recall_args(arguments: &Map<String, Value>) -> Result<RecallArgs, String> {
    let a = Arguments::new(
        arguments,
        &[
            "query",
            "limit",
            "scope",
            "portfolio",
            "ranking",
            "context_scope",
            "include_archive",
            "status",
        ],
    )?;
    Ok(RecallArgs {
        query: a.words("query")?,
        scope: a.word("scope")?,
        portfolio: a.word("portfolio")?,
        limit: a.word("limit")?,
        ranking: a.word("ranking")?,
        context_scope: a.word("context_scope")?,
        include_archive: a.flag("include_archive")?,
        status: a.word("status")?,
    })
}

/// Recall's arguments with the portfolio made the project's linked brain: with scope portfolio
/// the brain is searched, and a `portfolio` folder given must be it (an agent reads no other
/// folder through the server). Without scope portfolio the command's own checks apply.
fn linked_portfolio(mut args: RecallArgs, ctx: &Context) -> crate::error::Result<RecallArgs> {
    if args.scope.as_deref() != Some("portfolio") {
        return Ok(args);
    }
    let brain = match brain::linked(ctx) {
        Ok(Some(brain)) => brain,
        Ok(None) => return Err(Error::refused(messages::mcp_no_brain(None))),
        Err(why) => return Err(Error::refused(messages::mcp_no_brain(Some(&why)))),
    };
    if let Some(given) = &args.portfolio {
        let folder = resolve(&ctx.cwd, Path::new(given));
        let same = |a: &Path, b: &Path| {
            a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
        };
        if !same(&folder, &brain.dir) {
            return Err(Error::refused(messages::mcp_portfolio_not_brain(
                given, &brain.dir,
            )));
        }
    }
    args.portfolio = Some(brain.dir.to_string_lossy().into_owned());
    Ok(args)
}

fn read_args(arguments: &Map<String, Value>) -> Result<ReadArgs, String> {
    let a = Arguments::new(arguments, &["file", "heading", "id"])?;
    Ok(ReadArgs {
        file: a.word("file")?,
        heading: a.word("heading")?,
        id: a.word("id")?,
        portfolio: None,
    })
}

fn propose_args(arguments: &Map<String, Value>) -> Result<ProposeArgs, String> {
    let a = Arguments::new(
        arguments,
        &[
            "type",
            "title",
            "body",
            "applies_when",
            "evidence",
            "source",
        ],
    )?;
    let evidence = a.words("evidence")?;
    Ok(ProposeArgs {
        kind: a.word("type")?,
        title: a.word("title")?,
        body: a.word("body")?,
        from: None,
        applies_when: a.word("applies_when")?,
        evidence: (!evidence.is_empty()).then(|| evidence.join(",")),
        source: a.word("source")?,
        reuse_pending: true,
    })
}

fn write_args(arguments: &Map<String, Value>) -> Result<WriteArgs, String> {
    let a = Arguments::new(
        arguments,
        &[
            "agent", "cli", "model", "task", "outcome", "eval", "accept", "ci",
        ],
    )?;
    let args = WriteArgs {
        agent: a.word("agent")?,
        cli: a.word("cli")?,
        model: a.word("model")?,
        task: a.word("task")?,
        outcome: a.word("outcome")?,
        signals: SignalArgs {
            eval: a.word("eval")?,
            accept: a.word("accept")?,
            ci: a.word("ci")?,
        },
    };
    // The command's own message when the agent is missing; then the task, which the command
    // line lets out (bmad-plus does) but which an event cannot do without.
    let is_blank = |v: &Option<String>| v.as_deref().is_none_or(|v| v.trim().is_empty());
    if !is_blank(&args.agent) && is_blank(&args.task) {
        return Err(messages::MCP_TASK_REQUIRED.to_owned());
    }
    Ok(args)
}

fn handoff_args(arguments: &Map<String, Value>) -> Result<HandoffArgs, String> {
    let mut known = vec!["topic", "agent"];
    known.extend(HANDOFF_PARTS);
    let a = Arguments::new(arguments, &known)?;
    let mut parts: [String; 5] = Default::default();
    for (part, name) in parts.iter_mut().zip(HANDOFF_PARTS) {
        *part = a.lines(name)?;
    }
    let topic = a.word("topic")?;
    if topic.as_deref().is_none_or(|t| t.trim().is_empty()) {
        return Err(messages::MCP_TOPIC_REQUIRED.to_owned());
    }
    if parts.iter().all(|p| p.trim().is_empty()) {
        return Err(messages::MCP_HANDOFF_EMPTY.to_owned());
    }
    Ok(HandoffArgs {
        topic,
        agent: a.word("agent")?,
        from: None,
        parts: Some(parts),
    })
}
