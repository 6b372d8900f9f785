//! `brief`: the session-start read of the memory in one call (read-only), spending its budget
//! on what an agent needs first (docs/BRIEF.md).
//!
//! The parts, in the order they are served: with `--agent <name>`, that agent's sidecar
//! `index.md` and the access boundaries that apply to it (the project's file, then the
//! sidecar's); the brain's entry point (`identity.yaml`, a portfolio brain's
//! `README.md`/`AGENTS.md`/`HOT.md`, claude-memory's `MEMORY.md`/`README.md`: the first that can
//! be read, see [`crate::session::brain::Brain::read_entry_point`]) and `context.md`, without
//! what their templates left unwritten ([`untouched`]); every handoff of the latest day, newest
//! first; the decisions that may be in force, newest first; the lessons, newest first; the
//! validated patterns; the latest journal events; and the last commits when the project is a
//! git repository ([`parts`]). Missing pieces are skipped silently: memory is optional. The
//! brain is the linked one, else the one detection would link.
//!
//! The brief is cut to `--max-chars` (UTF-16 units, docs §2.3) by the budget rule of
//! [`budget`]: whole entries, no part taking more than half of the budget while a later part
//! still has entries waiting, and what is left out listed by title, then counted. The same
//! files give the same brief, byte for byte.
//!
//! An agent's answer stays under [`ANSWER_LIMIT`] characters, wrapper included (Claude Code
//! keeps only a preview of a longer hook output): without `--max-chars` and under `--hook`, the
//! printed text — Gemini's JSON wrapper and the escaping of control characters included — is
//! measured, and the budget lowered until it fits; through MCP, the JSON answer is, and its
//! `omitted` list names only the entries that fit, `omittedUnlisted` counting the others.
//!
//! `git log` is the only process started, and only when the project folder holds `.git`; if git
//! is missing or fails, the commits are skipped silently.

pub(crate) mod budget;
pub(crate) mod parts;
pub(crate) mod untouched;

use crate::context::Context;
use crate::context::folder_name;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::text::{trim, utf16_len};
use crate::messages;
use crate::output::{Report, escape_controls};
use crate::session::brief::budget::{Cut, Entry, Group, Part, cut};
use crate::session::brief::parts::{
    brain_group, commits_group, context_group, decisions_group, file_group, handoff_groups,
    journal_group, lessons_group, patterns_group,
};
use crate::session::pack::count;
use crate::session::sidecar::{HookAgent, check_agent_name};
use crate::store::layout::{BOUNDARIES_FILE, SIDECAR_BOUNDARIES, SIDECAR_INDEX, sidecar_path};

/// The brief's size when `--max-chars` is not given.
pub(crate) const DEFAULT_MAX_CHARS: usize = 8000;
/// An agent's answer (a hook's output, an MCP result) is shorter than this, in characters.
pub(crate) const ANSWER_LIMIT: usize = 10_000;

/// Print the session-start read: handoffs, decisions, lessons, patterns, journal, commits.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BriefArgs {
    /// The brief's maximum length in characters, a positive integer (default 8000).
    #[arg(long = "max-chars", value_name = "n", allow_hyphen_values = true)]
    pub max_chars: Option<String>,
    /// Start with this agent's sidecar: its `index.md`, then its access boundaries.
    #[arg(long, value_name = "name", allow_hyphen_values = true)]
    pub agent: Option<String>,
    /// Answer as this agent's session-start hook expects (gemini: JSON with the brief as
    /// additional context; claude-code and codex take the text as it is), under 10,000
    /// characters.
    #[arg(long, value_name = "agent", value_parser = ["claude-code", "codex", "gemini"])]
    pub hook: Option<String>,
    /// Answer as the MCP tool does: the JSON result under 10,000 characters.
    #[arg(skip)]
    pub for_mcp: bool,
}

/// What the answer is measured on to stay under [`ANSWER_LIMIT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    /// Nothing: `--max-chars` given on the command line.
    Free,
    /// The printed text (a hook, or the default budget).
    Printed,
    /// The MCP tool's JSON.
    Mcp,
}

/// A positive integer (`+` and surrounding whitespace allowed).
fn parse_max_chars(text: &str) -> Option<usize> {
    let t = trim(text);
    let digits = t.strip_prefix('+').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = digits.trim_start_matches('0');
    if n.is_empty() {
        return None;
    }
    Some(n.parse::<usize>().unwrap_or(usize::MAX))
}

/// The brief.
#[derive(Debug, Clone)]
pub(crate) struct BriefReport {
    /// Whether to answer as Gemini CLI's session-start hook.
    pub is_gemini_hook: bool,
    /// Whether the JSON is the MCP tool's answer (its `omitted` list bounded).
    pub is_mcp: bool,
    /// The budget the brief was cut to.
    pub max_chars: usize,
    pub groups: Vec<Group>,
    pub cut: Cut,
    pub warnings: Vec<String>,
}

/// Runs `brief`.
///
/// # Errors
/// An invalid `--max-chars`, agent name or hook.
pub(crate) fn run(args: &BriefArgs, ctx: &Context) -> Result<BriefReport> {
    let max_chars = match &args.max_chars {
        None => DEFAULT_MAX_CHARS,
        Some(text) => parse_max_chars(text)
            .ok_or_else(|| Error::refused(messages::invalid_value("max-chars", text)))?,
    };
    let is_gemini_hook = match args.hook.as_deref() {
        Some(name) => HookAgent::parse(name)? == HookAgent::Gemini,
        None => false,
    };
    let answer = if args.for_mcp {
        Answer::Mcp
    } else if args.max_chars.is_none() || args.hook.is_some() {
        Answer::Printed
    } else {
        Answer::Free
    };
    let mut warnings = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    if let Some(agent) = &args.agent {
        check_agent_name(agent)?;
        groups.extend(file_group(
            ctx,
            Part::Sidecar,
            &sidecar_path(agent, SIDECAR_INDEX),
            &format!("Sidecar of {agent}"),
            &mut warnings,
        ));
        for rel in [
            BOUNDARIES_FILE.to_owned(),
            sidecar_path(agent, SIDECAR_BOUNDARIES),
        ] {
            groups.extend(file_group(
                ctx,
                Part::Boundaries,
                &rel,
                "Access boundaries",
                &mut warnings,
            ));
        }
    }
    groups.extend(brain_group(ctx, &mut warnings));
    groups.extend(context_group(ctx, &mut warnings));
    groups.extend(handoff_groups(ctx, &mut warnings));
    groups.extend(decisions_group(ctx, &mut warnings));
    groups.extend(lessons_group(ctx, &mut warnings));
    groups.extend(patterns_group(ctx, &mut warnings));
    groups.extend(journal_group(ctx, &mut warnings));
    groups.extend(commits_group(&ctx.root));
    let title = format!("# Session brief — {}\n", folder_name(&ctx.root));
    let mut report = BriefReport {
        is_gemini_hook,
        is_mcp: answer == Answer::Mcp,
        max_chars,
        cut: cut(&title, &groups, max_chars),
        groups,
        warnings,
    };
    // Lower the budget by what the answer is over until it fits (each round lowers it by at
    // least one unit).
    while answer != Answer::Free && report.max_chars > 1 {
        let len = match answer {
            Answer::Mcp => utf16_len(&report.answer_json(0).pretty()) + 1,
            _ => utf16_len(&escape_controls(&report.render_human())),
        };
        if len < ANSWER_LIMIT {
            break;
        }
        report.max_chars = report
            .max_chars
            .saturating_sub(len + 1 - ANSWER_LIMIT)
            .max(1);
        report.cut = cut(&title, &report.groups, report.max_chars);
    }
    Ok(report)
}

impl BriefReport {
    /// The left-out entries: (part, source, label), in order.
    fn omitted(&self) -> Vec<(Part, String, &str)> {
        let mut omitted = Vec::new();
        for (group, kept) in self.groups.iter().zip(&self.cut.kept) {
            for (entry, _) in group.entries.iter().zip(kept).filter(|(_, k)| !**k) {
                omitted.push((group.part, source_of(group, entry), entry.label.as_str()));
            }
        }
        omitted
    }

    /// The JSON result, its `omitted` list holding the first `listed` left-out entries (all of
    /// them, unless the answer is the MCP tool's) and `omittedUnlisted` counting the others
    /// when there are any.
    fn answer_json(&self, listed: usize) -> Value {
        let mut included = Vec::new();
        for (group, kept) in self.groups.iter().zip(&self.cut.kept) {
            // Kept entries counted per file, files in the order their first entry comes.
            let mut counts: Vec<(String, usize)> = Vec::new();
            for (entry, _) in group.entries.iter().zip(kept).filter(|(_, k)| **k) {
                let source = source_of(group, entry);
                match counts.iter_mut().find(|(s, _)| *s == source) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((source, 1)),
                }
            }
            for (source, n) in counts {
                included.push(Value::Object(
                    Object::new()
                        .with("part", group.part.name())
                        .with("source", source)
                        .with("entries", count(n)),
                ));
            }
        }
        let omitted = self.omitted();
        let unlisted = omitted.len().saturating_sub(listed);
        let omitted: Vec<Value> = omitted
            .into_iter()
            .take(listed)
            .map(|(part, source, label)| {
                Value::Object(
                    Object::new()
                        .with("part", part.name())
                        .with("source", source)
                        .with("entry", label),
                )
            })
            .collect();
        let mut object = Object::new()
            .with("maxChars", count(self.max_chars))
            .with("chars", count(utf16_len(&self.cut.text)))
            .with("included", included)
            .with("omitted", omitted);
        if unlisted > 0 {
            object = object.with("omittedUnlisted", count(unlisted));
        }
        Value::Object(object.with("text", self.cut.text.as_str()).with(
            "warnings",
            Value::Array(self.warnings.iter().map(Value::from).collect()),
        ))
    }
}

/// The file an entry comes from.
fn source_of(group: &Group, entry: &Entry) -> String {
    entry.source.clone().unwrap_or_else(|| group.source.clone())
}

impl Report for BriefReport {
    fn to_json(&self) -> Value {
        let all = self.omitted().len();
        if !self.is_mcp {
            return self.answer_json(all);
        }
        // The most left-out entries the MCP answer can name and stay under the limit.
        let fits = |listed: usize| utf16_len(&self.answer_json(listed).pretty()) + 1 < ANSWER_LIMIT;
        let (mut low, mut high) = (0, all);
        while low < high {
            let mid = (low + high).div_ceil(2);
            if fits(mid) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        self.answer_json(low)
    }

    fn render_human(&self) -> String {
        if self.is_gemini_hook {
            // Gemini CLI reads a hook's stdout as JSON; the brief goes in as added context.
            let mut out = serde_json::json!({
                "hookSpecificOutput": {
                    "hookEventName": "SessionStart",
                    "additionalContext": self.cut.text,
                }
            })
            .to_string();
            out.push('\n');
            return out;
        }
        self.cut.text.clone()
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_chars_values() {
        assert_eq!(parse_max_chars("100"), Some(100));
        assert_eq!(parse_max_chars(" +7 "), Some(7));
        for bad in ["0", "", "-1", "1.5", "abc", "00"] {
            assert_eq!(parse_max_chars(bad), None, "{bad}");
        }
    }
}
