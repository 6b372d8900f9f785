//! The MCP tools: their names, descriptions and argument schemas, and the call of each one.
//!
//! A tool is its command seen through JSON: its arguments become the command's own arguments
//! (the strings the command line would have carried), the command's library function runs on
//! a context built for this call, and the result is the very text `--json` prints. Checking
//! the values is left to the command, so a bad value is refused with the command's message;
//! this module only refuses what has no command-line form (an unknown argument, a list where
//! a word is expected).
//!
//! Few tools on purpose: every tool's description lands in the agent's context at each turn.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::actions::entries::propose::{self, ProposeArgs};
use crate::actions::outcomes::{self, OutcomesArgs};
use crate::actions::recall::{self, RecallArgs};
use crate::actions::signals::SignalArgs;
use crate::actions::write::{self, WriteArgs};
use crate::context::Context;
use crate::js::number::number_text;
use crate::messages;
use crate::output::{Report, render};
use crate::session::brief::{self, BriefArgs};

/// One tool as `tools/list` shows it.
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// The JSON Schema of its arguments (an object schema).
    pub input_schema: Value,
    /// Whether it only reads the memory.
    pub read_only: bool,
}

/// The tools, in the order `tools/list` gives them.
#[must_use]
pub fn tools() -> Vec<Tool> {
    vec![
        recall_tool(),
        brief_tool(),
        write_tool(),
        propose_tool(),
        outcomes_tool(),
    ]
}

fn recall_tool() -> Tool {
    Tool {
        name: "memory_recall",
        title: "Recall project memory",
        description: "Find journal events and note sections (decisions, lessons, patterns) \
                      relevant to a query. Same result as `bmad-mem recall --json`.",
        input_schema: schema(
            &[
                (
                    "query",
                    json!({"type": ["string", "array"], "items": {"type": "string"},
                    "description": "Words to look for (a list is joined by one space)."}),
                ),
                (
                    "limit",
                    json!({"type": ["integer", "string"],
                    "description": "Maximum number of results, a positive integer (default 8)."}),
                ),
                (
                    "scope",
                    json!({"type": "string", "enum": ["project", "portfolio"],
                    "description": "project (default) or portfolio (adds the portfolio brain's memory)."}),
                ),
                (
                    "portfolio",
                    json!({"type": "string",
                    "description": "Portfolio brain folder, relative to the server's current directory (with scope portfolio)."}),
                ),
                (
                    "ranking",
                    json!({"type": "string", "enum": ["lexical", "bm25", "evidence"],
                    "description": "lexical (default); bm25 finds reworded ideas; evidence boosts notes backed by accepted-outcome receipts."}),
                ),
                (
                    "context_scope",
                    json!({"type": "string",
                    "description": "Comma-separated project paths the question is about (required with ranking evidence)."}),
                ),
                (
                    "include_archive",
                    json!({"type": "boolean",
                    "description": "Also search the archived journal events."}),
                ),
            ],
            &["query"],
        ),
        read_only: true,
    }
}

fn brief_tool() -> Tool {
    Tool {
        name: "memory_brief",
        title: "Session-start brief",
        description: "The session-start read of the memory: the latest handoffs, decisions \
                      in force, lessons, validated patterns, recent journal; what does not \
                      fit is listed by title. Same result as `bmad-mem brief --json`, kept \
                      under 10,000 characters.",
        input_schema: schema(
            &[(
                "max_chars",
                json!({"type": ["integer", "string"],
                "description": "The brief's maximum length in characters (default 8000)."}),
            )],
            &[],
        ),
        read_only: true,
    }
}

fn write_tool() -> Tool {
    Tool {
        name: "memory_write",
        title: "Record a journal event",
        description: "Append an event (what an agent did) to the project's journal. Same \
                      result as `bmad-mem write --json`.",
        input_schema: schema(
            &[
                (
                    "agent",
                    json!({"type": "string", "description": "Name of the agent that did the work (required)."}),
                ),
                (
                    "cli",
                    json!({"type": "string", "description": "The coding assistant it ran in (claude-code, gemini-cli, codex, …)."}),
                ),
                (
                    "model",
                    json!({"type": "string", "description": "The model identifier."}),
                ),
                (
                    "task",
                    json!({"type": "string", "description": "What the agent worked on."}),
                ),
                (
                    "outcome",
                    json!({"type": "string", "enum": ["success", "failure", "partial", "abandoned"],
                    "description": "How it ended."}),
                ),
                (
                    "eval",
                    json!({"type": ["number", "string"], "description": "Evaluation score in [0, 1]."}),
                ),
                (
                    "accept",
                    json!({"type": ["boolean", "number", "string"],
                    "description": "Whether the work was accepted: true, false, yes, no, or a number in [0, 1]."}),
                ),
                (
                    "ci",
                    json!({"type": ["number", "string"], "description": "CI result: pass, fail, or a number in [0, 1]."}),
                ),
            ],
            &["agent"],
        ),
        read_only: false,
    }
}

fn propose_tool() -> Tool {
    Tool {
        name: "memory_propose",
        title: "Propose a memory entry",
        description: "Record a candidate decision, lesson or pattern for a person to admit \
                      (never an entry by itself). Same result as `bmad-mem propose --json`.",
        input_schema: schema(
            &[
                (
                    "type",
                    json!({"type": "string", "enum": ["decision", "lesson", "pattern"],
                    "description": "What the candidate records."}),
                ),
                (
                    "title",
                    json!({"type": "string", "description": "The entry's title, one line."}),
                ),
                (
                    "body",
                    json!({"type": "string", "description": "The content (at most 2,000 characters)."}),
                ),
                (
                    "applies_when",
                    json!({"type": "string", "description": "When the entry applies."}),
                ),
                (
                    "evidence",
                    json!({"type": "string",
                    "description": "Receipt or event ids, or paths, separated by commas."}),
                ),
                (
                    "source",
                    json!({"type": "string", "description": "Who proposes it (an agent's name)."}),
                ),
            ],
            &["type", "title", "body"],
        ),
        read_only: false,
    }
}

fn outcomes_tool() -> Tool {
    Tool {
        name: "memory_outcomes",
        title: "Accepted-outcome receipts",
        description: "Every accepted-outcome receipt and whether it still counts today. \
                      Same result as `bmad-mem outcomes --json`.",
        input_schema: schema(&[], &[]),
        read_only: true,
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

/// What a call gives back: the `--json` text of the result, or the command's message.
pub type Outcome = Result<String, String>;

/// Runs tool `name` with `arguments` on the project at `directory` (the server's `-d`, default
/// its current directory). `None` when no tool has that name.
#[must_use]
pub fn call(
    name: &str,
    arguments: &Map<String, Value>,
    directory: Option<&Path>,
) -> Option<Outcome> {
    let outcome = match name {
        "memory_recall" => {
            recall_args(arguments).and_then(|args| run(directory, |ctx| recall::run(&args, ctx)))
        }
        "memory_brief" => Arguments::new(arguments, &["max_chars"]).and_then(|a| {
            let args = BriefArgs {
                max_chars: a.word("max_chars")?,
                for_mcp: true,
                ..BriefArgs::default()
            };
            run(directory, |ctx| brief::run(&args, ctx))
        }),
        "memory_write" => {
            write_args(arguments).and_then(|args| run(directory, |ctx| write::run(&args, ctx)))
        }
        "memory_propose" => propose_args(arguments).and_then(|args| {
            // The server's stdin is the protocol: the command never reads it from here.
            run(directory, |ctx| {
                propose::run_with_input(&args, ctx, &mut std::io::empty())
            })
        }),
        "memory_outcomes" => Arguments::new(arguments, &[])
            .and_then(|_| run(directory, |ctx| outcomes::run(&OutcomesArgs {}, ctx))),
        _ => return None,
    };
    Some(outcome)
}

/// Builds this call's context and runs the command on it: the clock and the environment are
/// read per call, as each command-line run reads them.
fn run<R: Report>(
    directory: Option<&Path>,
    command: impl FnOnce(&Context) -> crate::error::Result<R>,
) -> Outcome {
    let report = Context::from_env(directory)
        .and_then(|ctx| command(&ctx))
        .map_err(|e| e.to_string())?;
    Ok(render(&report, true).0)
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
    Ok(ProposeArgs {
        kind: a.word("type")?,
        title: a.word("title")?,
        body: a.word("body")?,
        from: None,
        applies_when: a.word("applies_when")?,
        evidence: a.word("evidence")?,
        source: a.word("source")?,
    })
}

fn write_args(arguments: &Map<String, Value>) -> Result<WriteArgs, String> {
    let a = Arguments::new(
        arguments,
        &[
            "agent", "cli", "model", "task", "outcome", "eval", "accept", "ci",
        ],
    )?;
    Ok(WriteArgs {
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
    })
}

/// A call's arguments, read into the strings the command line would have carried.
struct Arguments<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Arguments<'a> {
    /// Refuses an argument the tool does not have.
    fn new(map: &'a Map<String, Value>, known: &[&str]) -> Result<Self, String> {
        if let Some(name) = map.keys().find(|name| !known.contains(&name.as_str())) {
            return Err(if known.is_empty() {
                messages::argument_to_no_arguments(name)
            } else {
                messages::unknown_argument(name, known)
            });
        }
        Ok(Self { map })
    }

    /// An option's value: a string as it is, a number in JavaScript's text, a boolean as
    /// `true`/`false`; `null` or absent is the option left out.
    fn word(&self, name: &str) -> Result<Option<String>, String> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => scalar(value)
                .map(Some)
                .ok_or_else(|| messages::argument_not_scalar(name)),
        }
    }

    /// The query words: one string, or a list of them.
    fn words(&self, name: &str) -> Result<Vec<String>, String> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| scalar(item).ok_or_else(|| messages::argument_not_words(name)))
                .collect(),
            Some(value) => scalar(value)
                .map(|word| vec![word])
                .ok_or_else(|| messages::argument_not_words(name)),
        }
    }

    /// A switch: `true` is the flag given.
    fn flag(&self, name: &str) -> Result<bool, String> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(on)) => Ok(*on),
            Some(_) => Err(messages::argument_not_boolean(name)),
        }
    }
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Bool(on) => Some(on.to_string()),
        Value::Number(number) => Some(if let Some(n) = number.as_i64() {
            n.to_string()
        } else if let Some(n) = number.as_u64() {
            n.to_string()
        } else {
            number_text(number.as_f64()?)
        }),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}
