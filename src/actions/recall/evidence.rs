//! Evidence ranking for `recall` (docs §5, evidence part).
//!
//! Files are read with the confined reader (no links, 2 MiB, UTF-8). Each candidate is then
//! weighed by the receipts that name it, inspected as `outcomes` does within the
//! `--context-scope`:
//! * no receipt names it (events never are named): kept, labelled `unverified`;
//! * receipts name it, but none is eligible with the candidate's current text: **dropped** — a
//!   stale, superseded, contradicted or out-of-scope note must not fall back silently;
//! * otherwise its score is multiplied by 1.25 and the eligible receipt ids are listed.
//!
//! With `--include-archive`, the events of the journal's archives (read the same confined way)
//! come before the live journal's; like every event, they are never named by a receipt.

use std::fs;

use crate::actions::recall::score::{self, Candidate, NoteFile, Request, Scored};
use crate::actions::receipts::{Inspector, parse_context_scope, read_store};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value, sha256_hex};
use crate::store::archived::{Store, archive_names};
use crate::store::layout::{ARCHIVE_DIR, JOURNAL};
use crate::store::paths::{confine, read_registry};

const BOOST: f64 = 0.25;

/// Evidence recall: candidates scored lexically, then boosted, kept or dropped by receipts.
///
/// # Errors
/// Confined-reader errors, `--context-scope` errors, and the receipt store's (§9.1).
pub(crate) fn recall(
    ctx: &Context,
    request: &Request,
    context_scope: Option<&str>,
) -> Result<Vec<Object>> {
    let query = score::query_tokens(&request.query);
    let mut scored: Vec<Scored> = Vec::new();
    if request.include_archive {
        let dir = confine(&ctx.root, ARCHIVE_DIR)?;
        let names =
            archive_names(&dir, Store::Journal).map_err(|e| Error::io("cannot list", &dir, e))?;
        for name in names {
            if let Some(text) = read_registry(&ctx.root, &format!("{ARCHIVE_DIR}/{name}"), true)? {
                score::score_events_from(Some(&name), &text, &query, ctx.now.ms, &mut scored);
            }
        }
    }
    if let Some(text) = read_registry(&ctx.root, JOURNAL, true)? {
        score::score_events(&text, &query, ctx.now.ms, &mut scored);
    }
    for file in score::note_files(ctx, None) {
        if let Some(text) = read_note(ctx, &file)? {
            score::score_sections(&file, &text, &query, &mut scored);
        }
    }
    let context = parse_context_scope(context_scope)?;
    let receipts = read_store(&ctx.root)?;
    let statuses = Inspector::new(&ctx.root).statuses(&receipts, Some(&context));

    let mut kept: Vec<(f64, Object)> = Vec::with_capacity(scored.len());
    for Scored { score, candidate } in scored {
        let named: Vec<usize> = match &candidate {
            Candidate::Event { .. } => Vec::new(),
            Candidate::Note(note) => receipts
                .iter()
                .enumerate()
                .filter(|(_, r)| {
                    let memory = r.get("memory").and_then(Value::as_object);
                    let field = |k: &str| memory.and_then(|m| m.get(k)).and_then(Value::as_str);
                    field("file") == Some(note.source_file())
                        && field("heading") == Some(note.heading())
                })
                .map(|(i, _)| i)
                .collect(),
        };
        if named.is_empty() {
            let mut entry = score::entry(score, candidate);
            entry.insert(
                "evidence",
                Object::new()
                    .with("status", "unverified")
                    .with("receiptIds", Vec::new())
                    .with("boost", 0.0),
            );
            kept.push((score, entry));
            continue;
        }
        let text_sha = match &candidate {
            Candidate::Note(note) => sha256_hex(note.text().as_bytes()),
            Candidate::Event { .. } => String::new(),
        };
        let eligible: Vec<Value> = named
            .into_iter()
            .filter(|&i| {
                statuses[i].is_eligible()
                    && receipts[i]
                        .get("memory")
                        .and_then(Value::as_object)
                        .and_then(|m| m.get("textSha256"))
                        .and_then(Value::as_str)
                        == Some(text_sha.as_str())
            })
            .map(|i| receipts[i].get("id").cloned().unwrap_or(Value::Null))
            .collect();
        if eligible.is_empty() {
            continue;
        }
        let boosted = score * (1.0 + BOOST * 1.0);
        let mut entry = score::entry(boosted, candidate);
        entry.insert("lexicalScore", score);
        entry.insert(
            "evidence",
            Object::new()
                .with("status", "accepted-current")
                .with("receiptIds", eligible)
                .with("reward", 1.0)
                .with("boost", BOOST)
                .with("lessonCausality", "unmeasured"),
        );
        kept.push((boosted, entry));
    }
    // Stable: ties keep candidate order.
    kept.sort_by(|a, b| b.0.total_cmp(&a.0));
    Ok(kept
        .into_iter()
        .take(request.limit)
        .map(|(_, entry)| entry)
        .collect())
}

/// A note file read with the confined reader; a dangling link is skipped like a missing file,
/// a live link is refused.
fn read_note(ctx: &Context, file: &NoteFile) -> Result<Option<String>> {
    let rel = file.source_file.as_str();
    let is_dangling_link = fs::symlink_metadata(&file.path)
        .is_ok_and(|m| m.file_type().is_symlink())
        && fs::metadata(&file.path).is_err();
    if is_dangling_link {
        return Ok(None);
    }
    read_registry(&ctx.root, rel, true)
}
