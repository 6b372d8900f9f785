//! The decision ledger, `.bmad/memory/decisions.ndjson`: one line per event in the life of a
//! decision, append-only.
//!
//! A record is `{"ts","id","event","heading","file","status","sha256","digest","prev","actor",
//! "by","reason"}`:
//!
//! * `event` is what happened (`adopt`, `admit`, `accept`, `reject`, `supersede`, `succeed`,
//!   `abrogate`) and `status` the decision's status after it;
//! * `sha256` is the digest of the section's text that the event leaves, under the rule
//!   `digest` names ([`digest`](crate::actions::decisions::digest): 2 leaves out only the status
//!   value; records without the key were written under rule 1, which leaves out the whole
//!   status line, and are still checked by it);
//! * `prev` is the `id` of the previous record of the same decision (`null` for its first), so
//!   that a second first record, a record whose predecessor is missing, or two records with one
//!   predecessor are seen ([`chain`](crate::actions::decisions::chain)); records written before
//!   the key existed follow each other in file order;
//! * `actor` is who acted ([`actor`]); `by` the successor's heading (`null` unless superseded);
//!   `reason` the reason given (or `null`);
//! * `id` is the first 12 hex digits of `sha256(ts + "\0" + heading + "\0" + event)`, as the
//!   journal's ids are made.
//!
//! Appends go through the registry append (size cap, torn-tail refusal) and need the writer
//! lock, which [`record`] takes as a parameter to prove it is held.

use std::path::Path;

use rustix::fs::OFlags;

use crate::actions::decisions::digest;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value, sha256_hex};
use crate::js::text::{collapse_whitespace, trim, utf16_len};
use crate::messages;
use crate::store::git;
use crate::store::layout::DECISION_LEDGER;
use crate::store::lock::WriterLock;
use crate::store::paths::read_registry;
use crate::store::sections::Section;
use crate::store::{confined, journal, ndjson};

/// The ledger, relative to the project root.
pub const LEDGER: &str = DECISION_LEDGER;

/// Longest `--actor` accepted, in UTF-16 units.
const MAX_ACTOR: usize = 200;

/// What a record says of its predecessor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prev {
    /// No `prev` key: a record written before the key existed; its predecessor is the record
    /// of the same decision before it in the file.
    Unrecorded,
    /// `"prev": null`: the decision's first record.
    First,
    /// `"prev": "<id>"`.
    Of(String),
}

/// One ledger record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub ts: String,
    pub id: String,
    pub event: String,
    pub heading: String,
    pub file: String,
    pub status: String,
    pub sha256: String,
    /// The digest rule of `sha256`: 1 (no `digest` key) or 2.
    pub digest: u8,
    pub prev: Prev,
    /// Who acted; `None` in records written before the key existed.
    pub actor: Option<String>,
    pub by: Option<String>,
    pub reason: Option<String>,
}

impl Record {
    /// A new record at `ts`, its id derived from `ts`, `heading` and `event`, its digest
    /// `sha256` made under the current rule.
    #[must_use]
    #[expect(
        clippy::too_many_arguments,
        reason = "the fields every record must have, named at each call"
    )]
    pub fn new(
        ts: &str,
        event: &str,
        file: &str,
        heading: &str,
        status: &str,
        sha256: String,
        prev: Option<&str>,
        actor: &str,
    ) -> Self {
        let id = sha256_hex(format!("{ts}\u{0}{heading}\u{0}{event}").as_bytes())[..12].to_owned();
        Self {
            ts: ts.to_owned(),
            id,
            event: event.to_owned(),
            heading: heading.to_owned(),
            file: file.to_owned(),
            status: status.to_owned(),
            sha256,
            digest: digest::CURRENT,
            prev: prev.map_or(Prev::First, |id| Prev::Of(id.to_owned())),
            actor: Some(actor.to_owned()),
            by: None,
            reason: None,
        }
    }

    /// The record as JSON, in the documented key order; the keys a record written before they
    /// existed lacks stay out.
    #[must_use]
    pub fn to_object(&self) -> Object {
        let mut object = Object::new()
            .with("ts", self.ts.as_str())
            .with("id", self.id.as_str())
            .with("event", self.event.as_str())
            .with("heading", self.heading.as_str())
            .with("file", self.file.as_str())
            .with("status", self.status.as_str())
            .with("sha256", self.sha256.as_str());
        if self.digest != 1 {
            object = object.with("digest", f64::from(self.digest));
        }
        match &self.prev {
            Prev::Unrecorded => {}
            Prev::First => object = object.with("prev", Value::Null),
            Prev::Of(id) => object = object.with("prev", id.as_str()),
        }
        if let Some(actor) = &self.actor {
            object = object.with("actor", actor.as_str());
        }
        object
            .with("by", self.by.as_deref())
            .with("reason", self.reason.as_deref())
    }

    /// Reads a record back; `None` when a required field is missing or not text, or `digest` or
    /// `prev` is not one the ledger writes.
    #[must_use]
    pub fn from_object(object: &Object) -> Option<Self> {
        let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
        let digest = match object.get("digest") {
            None => 1,
            Some(Value::Number(n)) if *n == 2.0 => 2,
            Some(_) => return None,
        };
        let prev = match object.get("prev") {
            None => Prev::Unrecorded,
            Some(Value::Null) => Prev::First,
            Some(Value::String(id)) => Prev::Of(id.clone()),
            Some(_) => return None,
        };
        // A record of rule 2 always names its predecessor.
        if digest == 2 && prev == Prev::Unrecorded {
            return None;
        }
        Some(Self {
            ts: text("ts")?,
            id: text("id")?,
            event: text("event")?,
            heading: text("heading")?,
            file: text("file")?,
            status: text("status")?,
            sha256: text("sha256")?,
            digest,
            prev,
            actor: text("actor"),
            by: text("by"),
            reason: text("reason"),
        })
    }

    /// Whether the record leaves the decision in force.
    #[must_use]
    pub fn is_active(&self) -> bool {
        self.status == "active"
    }

    /// Whether the record was written with the keys of rule 2 (`digest`, `prev`).
    #[must_use]
    pub fn is_chained(&self) -> bool {
        self.prev != Prev::Unrecorded
    }
}

/// The ledger as read: every record in file order with its line number, and the line numbers of
/// lines that are not records.
#[derive(Debug, Default)]
pub struct Ledger {
    pub records: Vec<Record>,
    /// The line (from 1) of each record of `records`.
    pub lines: Vec<usize>,
    /// (line number from 1, why it is not a record)
    pub bad_lines: Vec<(usize, &'static str)>,
}

impl Ledger {
    /// Reads the ledger with the confined reader; absent means empty.
    ///
    /// # Errors
    /// The confined reader's refusals.
    pub fn read(root: &Path) -> Result<Self> {
        let text = read_registry(root, LEDGER, true)?.unwrap_or_default();
        Ok(Self::parse(&text))
    }

    /// The records of a ledger text; lines that are not records are noted, never fatal.
    #[must_use]
    pub fn parse(text: &str) -> Self {
        let mut ledger = Self::default();
        for (index, line) in text.split('\n').enumerate() {
            if trim(line).is_empty() {
                continue;
            }
            match journal::event(trim(line)) {
                None => ledger.bad_lines.push((index + 1, "not a JSON object")),
                Some(object) => match Record::from_object(&object) {
                    Some(record) => {
                        ledger.records.push(record);
                        ledger.lines.push(index + 1);
                    }
                    None => ledger
                        .bad_lines
                        .push((index + 1, "a field of the record is missing or invalid")),
                },
            }
        }
        ledger
    }

    /// Whether the ledger holds any record of the decision `heading` in `file`.
    #[must_use]
    pub fn has(&self, file: &str, heading: &str) -> bool {
        self.records
            .iter()
            .any(|r| r.file == file && r.heading == heading)
    }
}

/// The digest a new record keeps of a decision: rule 2 of
/// [`digest`](crate::actions::decisions::digest), over the section as the event leaves it.
#[must_use]
pub fn digest(section: &Section<'_>) -> String {
    digest::digest(section, digest::CURRENT)
}

/// Who acts, by the one rule every command that writes the ledger or admits follows: `--actor`
/// when given (its whitespace runs one space), else git's `user.name` in the project, else
/// `USER`, else `USERNAME`, else `unknown`.
///
/// # Errors
/// A `--actor` that is blank or longer than 200 characters.
pub fn actor(given: Option<&str>, ctx: &Context) -> Result<String> {
    if let Some(given) = given {
        let name = collapse_whitespace(given);
        if name.is_empty() || utf16_len(&name) > MAX_ACTOR {
            return Err(Error::refused(messages::bad_actor(MAX_ACTOR)));
        }
        return Ok(name);
    }
    // A name from git or the environment takes the same one-line shape.
    Ok(git::user_name(&ctx.root)
        .into_iter()
        .chain(ctx.user.clone())
        .map(|name| collapse_whitespace(&name))
        .find(|name| !name.is_empty())
        .unwrap_or_else(|| "unknown".to_owned()))
}

/// Appends `records` to the ledger in one write, under the writer lock `lock` proves is held,
/// and returns the ledger's length before the append (for [`undo`]). Nothing is written when
/// `records` is empty.
///
/// # Errors
/// The registry append's refusals (cap, torn final line, confinement), I/O errors.
pub fn record(root: &Path, records: &[Record], lock: &WriterLock) -> Result<u64> {
    let before = confined::locate(root, LEDGER, false)?
        .read(true)?
        .map_or(0, |(bytes, _)| bytes.len() as u64);
    if records.is_empty() {
        return Ok(before);
    }
    let lines: Vec<String> = records
        .iter()
        .map(|r| Value::Object(r.to_object()).compact())
        .collect();
    let text = lines.join("\n");
    ndjson::prepare(root, LEDGER, text.len(), lock)?.write(&text)?;
    Ok(before)
}

/// Takes back an append that [`record`] made, cutting the ledger back to `before` bytes — only
/// while it holds exactly `before + appended` bytes (nothing else was added since). Used when
/// the change the records announce could not be made.
///
/// # Errors
/// I/O errors, or a ledger that is not the length expected.
pub fn undo(root: &Path, before: u64, appended: u64, _lock: &WriterLock) -> Result<()> {
    let target = confined::locate(root, LEDGER, false)?;
    let dir = target.require_dir("cannot open")?;
    let (file, meta) = dir.open_present(target.name(), OFlags::WRONLY)?;
    if meta.len() != before + appended {
        return Err(Error::refused(messages::ledger_changed(LEDGER)));
    }
    file.set_len(before)
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io("cannot truncate", target.path(), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_key_order() {
        let mut r = Record::new(
            "2026-10-18T09:30:00.000Z",
            "adopt",
            "f",
            "A",
            "active",
            "d".into(),
            None,
            "ada",
        );
        assert_eq!(
            r.id,
            &sha256_hex("2026-10-18T09:30:00.000Z\u{0}A\u{0}adopt".as_bytes())[..12]
        );
        r.by = Some("B".into());
        assert_eq!(
            Value::Object(r.to_object()).compact(),
            format!(
                "{{\"ts\":\"2026-10-18T09:30:00.000Z\",\"id\":\"{}\",\"event\":\"adopt\",\"heading\":\"A\",\"file\":\"f\",\"status\":\"active\",\"sha256\":\"d\",\"digest\":2,\"prev\":null,\"actor\":\"ada\",\"by\":\"B\",\"reason\":null}}",
                r.id
            )
        );
        let mut next = Record::new(
            "2026-10-18T09:30:00.000Z",
            "abrogate",
            "f",
            "A",
            "abrogated",
            "d".into(),
            Some(&r.id),
            "bob",
        );
        next.reason = Some("r".into());
        let legacy = "{\"ts\":\"t\",\"id\":\"i\",\"event\":\"adopt\",\"heading\":\"A\",\"file\":\"f\",\"status\":\"active\",\"sha256\":\"d\",\"by\":null,\"reason\":null}";
        let back = Ledger::parse(&format!(
            "{}\n\nnull\n{{\"ts\":1}}\n{}\n{legacy}\n{}\n{}\n",
            Value::Object(r.to_object()).compact(),
            Value::Object(next.to_object()).compact(),
            legacy.replace("\"by\"", "\"digest\":2,\"by\""),
            legacy.replace("\"by\"", "\"prev\":7,\"by\""),
        ));
        assert_eq!(back.records[..2], [r, next]);
        assert_eq!(back.records[2].digest, 1);
        assert_eq!(back.records[2].prev, Prev::Unrecorded);
        assert_eq!(back.records[2].actor, None);
        // A legacy record reads back byte for byte.
        assert_eq!(Value::Object(back.records[2].to_object()).compact(), legacy);
        assert_eq!(back.lines, [1, 5, 6]);
        assert_eq!(
            back.bad_lines,
            [
                (3, "not a JSON object"),
                (4, "a field of the record is missing or invalid"),
                (7, "a field of the record is missing or invalid"),
                (8, "a field of the record is missing or invalid"),
            ]
        );
    }
}
