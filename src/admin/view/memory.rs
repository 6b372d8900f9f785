//! Everything the page shows, read once through the readers the commands use — never a reader
//! of its own for a file another command already reads:
//!
//! * the note files as `status`, `recall` and `lint` read them (the loose reader; a byte-order
//!   mark ignored, as `status` does), cut with lint's [`Note`] (sections with their lines);
//! * the decision ledger ([`Ledger`]) and its chains; `lint`'s findings ([`lint::run`]),
//!   which mark the decisions the ledger disagrees with; `doctor`'s report ([`doctor::run`]),
//!   which names torn and unreadable registries; `status`'s report (health, what `init` would
//!   create);
//! * the receipts with their status as `outcomes` computes it ([`outcomes::run`]);
//! * the pending candidates and the records of those decided ([`candidate`]), the refused
//!   topics;
//! * the journal (the tolerant reader), the handoffs ([`handoffs`]), the pattern scores, the
//!   promotion proposals and the reinforcement records ([`records`]).
//!
//! What cannot be read is kept as its message, for the page to show where the content would
//! be: nothing here fails, and nothing here writes.

use std::path::Path;

use crate::actions::decisions::chain::{Chains, chains};
use crate::actions::decisions::ledger::Ledger;
use crate::actions::entries::candidate::{self, Listed, REFUSED_FILE, is_pending, read_note};
use crate::actions::outcomes::{self, OutcomesArgs};
use crate::actions::receipts;
use crate::admin::doctor::{self, DoctorArgs, DoctorReport};
use crate::admin::lint::findings::Note;
use crate::admin::lint::{self, LintArgs, LintReport};
use crate::admin::view::records::{self, Reinforcements};
use crate::context::Context;
use crate::js::date;
use crate::js::json::{self, Object, Value};
use crate::js::text::trim;
use crate::session::handoffs::{handoff_names, leads_out};
use crate::session::status::{self, StatusArgs, StatusReport};
use crate::store::front_matter::front_matter_value;
use crate::store::journal;
use crate::store::layout::{
    JOURNAL, MEMORY_DIR, NOTE_DIRS, NOTE_FILES, PACK_DIR, PROMOTIONS, SCORES, SESSIONS_DIR,
};
use crate::store::parallel::on_two_threads;
use crate::store::paths::{Loose, read_loose};

/// Most handoffs read (the newest by name).
pub(crate) const MAX_HANDOFFS: usize = 500;

/// A session handoff, as its file name and front matter describe it.
#[derive(Debug, Clone)]
pub(crate) struct Handoff {
    pub name: String,
    /// `written_at`, else the date the name starts with.
    pub ms: Option<f64>,
    pub topic: Option<String>,
    pub agent: Option<String>,
}

/// A candidate that was decided: the one-line record that replaced its file.
#[derive(Debug, Clone)]
pub(crate) struct Decided {
    pub id: String,
    /// `admission`, `refusal` or `withdrawal`.
    pub kind: &'static str,
    pub ms: Option<f64>,
    pub by: String,
    /// The rest of the record, after `by …:`.
    pub what: String,
}

/// What the registries and the entry commands' files hold.
#[derive(Debug)]
pub(crate) struct Stores {
    pub journal: Vec<Object>,
    pub handoffs: Vec<Handoff>,
    /// How many handoffs there are in all.
    pub handoff_count: usize,
    /// The pattern scores, or why the file is left out.
    pub scores: Result<Object, String>,
    pub promotions: Vec<Object>,
    pub reinforcements: Reinforcements,
    /// Every receipt with its status, or why the store cannot be read.
    pub receipts: Result<Vec<(Object, receipts::Status)>, String>,
    /// The pending candidates (with the sha256 of each file) and the ids of the pending files
    /// that do not parse, or why the folder cannot be read.
    pub candidates: Result<(Vec<Listed>, Vec<String>), String>,
    pub decided: Vec<Decided>,
    /// `refused.md`, or why it cannot be read.
    pub refused: Result<Option<String>, String>,
    /// Registries every reader skips.
    pub warnings: Vec<String>,
}

/// The memory, as read.
#[derive(Debug)]
pub(crate) struct Memory {
    /// Whether `.bmad/memory/` or `.agents/memory/` exists.
    pub is_initialised: bool,
    /// The note files present, in recall's order.
    pub notes: Vec<Note>,
    /// Note files every reader skips.
    pub note_warnings: Vec<String>,
    /// The ledger, or why it cannot be read.
    pub ledger: Result<Ledger, String>,
    pub chains: Chains,
    pub stores: Stores,
    pub lint: Result<LintReport, String>,
    pub doctor: Result<DoctorReport, String>,
    pub status: Option<StatusReport>,
}

/// Reads the memory of the project `ctx` names.
#[must_use]
pub(crate) fn read(ctx: &Context) -> Memory {
    let root = &ctx.root;
    // The checks re-read the memory their own way: they run beside the page's own reads.
    std::thread::scope(|scope| {
        let checks = scope.spawn(|| {
            let lint = lint::run(&LintArgs::default(), ctx).map_err(|e| e.to_string());
            let doctor = doctor::run(&DoctorArgs::default(), ctx).map_err(|e| e.to_string());
            (lint, doctor)
        });
        let mut note_warnings = Vec::new();
        let notes = read_notes(root, &mut note_warnings);
        let ledger = Ledger::read(root).map_err(|e| e.to_string());
        let chains = ledger.as_ref().map(chains).unwrap_or_default();
        let stores = read_stores(ctx);
        let status = status::run(&StatusArgs::default(), ctx).ok();
        let (lint, doctor) = checks
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        Memory {
            is_initialised: [MEMORY_DIR, PACK_DIR].iter().any(|d| root.join(d).is_dir()),
            notes,
            note_warnings,
            ledger,
            chains,
            stores,
            lint,
            doctor,
            status,
        }
    })
}

/// The registries and the entry commands' files.
fn read_stores(ctx: &Context) -> Stores {
    let root = &ctx.root;
    let mut warnings = Vec::new();
    let journal = loose(root, JOURNAL, &mut warnings)
        .map(|text| journal::events(&text).collect())
        .unwrap_or_default();
    let promotions = loose(root, PROMOTIONS, &mut warnings)
        .map(|text| journal::events(&text).collect())
        .unwrap_or_default();
    let scores = match read_loose(&root.join(SCORES), root) {
        Ok(Loose::Read(text)) => match json::parse(&text) {
            Ok(Value::Object(scores)) => Ok(scores),
            Ok(_) => Err("not a JSON object".to_owned()),
            Err(e) => Err(e.to_string()),
        },
        Ok(Loose::Missing) => Ok(Object::new()),
        Ok(Loose::Skipped(skip)) => Err(skip.to_string()),
        Err(e) => Err(e.to_string()),
    };
    let receipts = outcomes::run(&OutcomesArgs::default(), ctx)
        .map(|report| report.results)
        .map_err(|e| e.to_string());
    let (handoffs, handoff_count) = read_handoffs(root, &mut warnings);
    Stores {
        journal,
        handoffs,
        handoff_count,
        scores,
        promotions,
        reinforcements: records::read(root),
        receipts,
        candidates: candidate::pending(ctx).map_err(|e| e.to_string()),
        decided: read_decided(ctx),
        refused: read_note(ctx, REFUSED_FILE).map_err(|e| e.to_string()),
        warnings,
    }
}

/// A file read loosely, as recall reads the journal; a file left out becomes a warning.
fn loose(root: &Path, rel: &str, warnings: &mut Vec<String>) -> Option<String> {
    match read_loose(&root.join(rel), root) {
        Ok(found) => found.or_warn(rel, warnings),
        Err(e) => {
            warnings.push(format!("warning: {rel} skipped: {e}"));
            None
        }
    }
}

/// The note files present, both folders, in recall's order.
fn read_notes(root: &Path, warnings: &mut Vec<String>) -> Vec<Note> {
    let files: Vec<(String, &'static str)> = NOTE_DIRS
        .iter()
        .flat_map(|dir| NOTE_FILES.iter().map(move |n| (format!("{dir}/{n}"), *n)))
        .collect();
    let read = on_two_threads(files.len(), |i| read_loose(&root.join(&files[i].0), root));
    let mut notes = Vec::new();
    for ((rel, name), read) in files.into_iter().zip(read) {
        let text = match read {
            Ok(found) => found.or_warn(&rel, warnings),
            Err(e) => {
                warnings.push(format!("warning: {rel} skipped: {e}"));
                None
            }
        };
        if let Some(mut text) = text {
            // A byte-order mark must not hide the first heading (as `status` reads them).
            if text.starts_with('\u{feff}') {
                text.drain(..'\u{feff}'.len_utf8());
            }
            notes.push(Note::new(rel, name, text));
        }
    }
    notes
}

/// The newest handoffs (by name, as `status` orders them) and how many there are; a sessions
/// folder linked out of the project is skipped with a warning, as `status` skips it.
fn read_handoffs(root: &Path, warnings: &mut Vec<String>) -> (Vec<Handoff>, usize) {
    let dir = root.join(SESSIONS_DIR);
    if let Some(skip) = leads_out(&dir, root) {
        warnings.push(skip.warning(SESSIONS_DIR));
        return (Vec::new(), 0);
    }
    let names = handoff_names(&dir);
    let count = names.len();
    let handoffs = names
        .into_iter()
        .rev()
        .take(MAX_HANDOFFS)
        .map(|name| {
            let text = match read_loose(&dir.join(&name), &dir) {
                Ok(Loose::Read(text)) => text,
                _ => String::new(),
            };
            let field = |key: &str| front_matter_value(&text, key);
            let ms = field("written_at")
                .and_then(|at| date::parse_timestamp(&at))
                .or_else(|| date::parse_timestamp(name.get(..10)?));
            Handoff {
                ms,
                topic: field("topic"),
                agent: field("agent"),
                name,
            }
        })
        .collect();
    (handoffs, count)
}

/// The candidates decided so far, from the records that replaced their files.
fn read_decided(ctx: &Context) -> Vec<Decided> {
    let Ok(Some(dir)) = candidate::candidates_dir(ctx, false) else {
        return Vec::new();
    };
    candidate::read_all(&dir)
        .unwrap_or_default()
        .iter()
        .filter_map(|stored| {
            let text = stored.text()?;
            (!is_pending(text))
                .then(|| decided(&stored.id, text))
                .flatten()
        })
        .collect()
}

/// Reads a decided candidate's record: `admitted <ts> by <who>: …`, `refused <ts> by <who>: …`,
/// `dropped <ts> by <who>: …`, or `admitted by <who> (finished <ts>): …`.
fn decided(id: &str, text: &str) -> Option<Decided> {
    let line = text.lines().next()?;
    let (verb, rest) = line.split_once(' ')?;
    let kind = match verb {
        "admitted" => "admission",
        "refused" => "refusal",
        "dropped" => "withdrawal",
        _ => return None,
    };
    let (head, what) = rest.split_once(": ")?;
    let (ts, by) = match head.strip_prefix("by ") {
        Some(finished) => {
            let (by, ts) = finished.rsplit_once(" (finished ")?;
            (ts.strip_suffix(')')?, by)
        }
        None => head.split_once(" by ")?,
    };
    Some(Decided {
        id: id.to_owned(),
        kind,
        ms: date::parse_timestamp(trim(ts)),
        by: by.to_owned(),
        what: what.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decided_records() {
        let d = decided(
            "c1",
            "admitted 2026-10-18T09:30:00.000Z by Ada Lovelace: c1 (sha256 ab) is the entry \"X\" of .agents/memory/lessons.md\n",
        )
        .unwrap();
        assert_eq!((d.kind, d.by.as_str()), ("admission", "Ada Lovelace"));
        assert_eq!(d.ms, Some(1_792_315_800_000.0));
        assert!(d.what.starts_with("c1 (sha256 ab)"));
        let d = decided(
            "c2",
            "admitted by bob (finished 2026-10-18T09:30:00.000Z): c2 (sha256 ab) is the entry",
        )
        .unwrap();
        assert_eq!((d.by.as_str(), d.ms), ("bob", Some(1_792_315_800_000.0)));
        let d = decided(
            "c3",
            "refused 2026-10-18T09:30:00.000Z by eve: c3 (sha256 x), topic `t` in f",
        )
        .unwrap();
        assert_eq!(d.kind, "refusal");
        let d = decided(
            "c4",
            "dropped 2026-10-18T09:30:00.000Z by eve: c4 (sha256 x), topic `t` left open",
        )
        .unwrap();
        assert_eq!(d.kind, "withdrawal");
        assert!(decided("c5", "something else").is_none());
        assert!(decided("c6", "admitted nonsense").is_none());
    }
}
