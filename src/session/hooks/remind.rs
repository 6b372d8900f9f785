//! `hooks remind`: the end-of-turn hook that asks the agent for a handoff (docs/AGENTS.md).
//!
//! The agents' end-of-turn events (`Stop`, `AfterAgent`) fire after every turn, and a reminder
//! sends the model back for one more turn, so it speaks rarely: at most once per session (the
//! payload's `session_id`), when the session has something to hand off — no handoff yet, or work
//! recorded after the latest one (a journal event, or a commit, newer than it) — and again in
//! the same session only after a handoff written since its last reminder has itself been
//! followed by new work. Never by the calendar: a handoff written in the morning does not
//! silence a whole day of work. Which sessions were reminded, and when, is kept in
//! `.bmad/cache/reminded.json` (gitignored, rebuildable: losing it costs at most one reminder).

use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value as Json};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::date;
use crate::messages;
use crate::session::handoffs::{handoff_names, written_at};
use crate::session::sidecar::{HookAgent, read_hook_payload};
use crate::store::confined;
use crate::store::entry::heading_date;
use crate::store::git;
use crate::store::journal;
use crate::store::layout::{JOURNAL, REMINDED_FILE, SESSIONS_DIR};
use crate::store::paths::{Loose, read_loose};

/// How many sessions the reminder remembers (the oldest are forgotten first).
const REMEMBERED: usize = 200;

/// The answer for stdout: empty (Gemini CLI: `{}`), or the agent's "continue with this reason".
///
/// # Errors
/// A payload that is not JSON or too large; the reminder record cannot be written.
pub(crate) fn remind(agent: HookAgent, ctx: &Context, stdin: &mut dyn Read) -> Result<String> {
    let payload = read_payload(stdin)?;
    let quiet = match agent {
        HookAgent::Gemini => "{}\n".to_owned(),
        _ => String::new(),
    };
    let is_continuing = payload
        .get("stop_hook_active")
        .and_then(Json::as_bool)
        .unwrap_or(false);
    if is_continuing {
        return Ok(quiet);
    }
    let session = payload
        .get("session_id")
        .and_then(Json::as_str)
        .filter(|s| !s.is_empty());
    let handoff = latest_handoff_ms(&ctx.root.join(SESSIONS_DIR));
    let work = latest_work_ms(&ctx.root);
    let mut reminded = read_reminded(&ctx.root);
    let last_reminder = session.and_then(|s| reminded.get(s)).and_then(Json::as_f64);
    let is_due = match (handoff, last_reminder) {
        // Nothing handed off yet: once per session.
        (None, None) => true,
        (None, Some(_)) => false,
        // Work since the latest handoff, and that handoff came after this session's reminder.
        (Some(handoff), last) => {
            work.is_some_and(|work| work > handoff) && last.is_none_or(|at| at < handoff)
        }
    };
    if !is_due {
        return Ok(quiet);
    }
    if let Some(session) = session {
        reminded.shift_remove(session);
        // Never before the work it asked about, whatever the clocks say.
        let at = work.map_or(ctx.now.ms, |work| work.max(ctx.now.ms));
        reminded.insert(session.to_owned(), Json::from(at));
        while reminded.len() > REMEMBERED {
            let Some(oldest) = reminded.keys().next().cloned() else {
                break;
            };
            reminded.shift_remove(&oldest);
        }
        write_reminded(&ctx.root, &reminded)?;
    }
    let decision = match agent {
        HookAgent::Gemini => "deny",
        _ => "block",
    };
    let mut answer =
        serde_json::json!({ "decision": decision, "reason": messages::REMIND_HANDOFF }).to_string();
    answer.push('\n');
    Ok(answer)
}

fn read_payload(stdin: &mut dyn Read) -> Result<Json> {
    let bytes = read_hook_payload(stdin)?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Json::Object(Map::new()));
    }
    serde_json::from_slice(&bytes).map_err(|e| Error::refused(messages::payload_not_json(e)))
}

/// When the latest handoff was written: its `written_at`, else the start of the day its name
/// gives (so that the day's work after it is not missed).
fn latest_handoff_ms(dir: &Path) -> Option<f64> {
    handoff_names(dir)
        .iter()
        .filter_map(|name| {
            #[expect(clippy::cast_precision_loss, reason = "epoch milliseconds")]
            let written = written_at(dir, name).map(|ms| ms as f64);
            written.or_else(|| {
                heading_date(name)
                    .and_then(|day| date::parse_timestamp(&format!("{day}T00:00:00Z")))
            })
        })
        .reduce(f64::max)
}

/// When work was last recorded: the newest journal event, or the last commit.
fn latest_work_ms(root: &Path) -> Option<f64> {
    let journal = match read_loose(&root.join(JOURNAL), root) {
        Ok(Loose::Read(text)) => journal::events(&text)
            .filter_map(|event| {
                event
                    .get("ts")
                    .and_then(|ts| ts.as_str())
                    .and_then(date::parse_timestamp)
            })
            .reduce(f64::max),
        _ => None,
    };
    let commit = git::looks_like_git(root)
        .then(|| git::head_commit_ms(root))
        .flatten();
    [journal, commit].into_iter().flatten().reduce(f64::max)
}

/// The sessions reminded so far (session id → epoch milliseconds); empty when the record is
/// missing or unreadable (it is a cache).
fn read_reminded(root: &Path) -> Map<String, Json> {
    match read_loose(&root.join(REMINDED_FILE), root) {
        Ok(Loose::Read(text)) => serde_json::from_str::<Json>(&text)
            .ok()
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default(),
        _ => Map::new(),
    }
}

fn write_reminded(root: &Path, reminded: &Map<String, Json>) -> Result<()> {
    let target = confined::locate(root, REMINDED_FILE, true)?;
    let name = target.name().to_owned();
    let mut text = Json::Object(reminded.clone()).to_string();
    text.push('\n');
    target
        .into_dir("cannot write")?
        .replace(&name, text.as_bytes())
}
