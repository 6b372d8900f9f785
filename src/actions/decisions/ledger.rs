//! The decision ledger, `.bmad/memory/decisions.ndjson`: one line per event in the life of a
//! decision, append-only.
//!
//! A record is `{"ts","id","event","heading","file","status","sha256","by","reason"}`: `event`
//! is what happened (`adopt`, `admit`, `supersede`, `succeed`, `abrogate`), `status` the
//! decision's status after it, `sha256` the digest of the section with its status line left
//! out ([`digest`]) — so flipping the status keeps the digest, and any other edit changes it —
//! `by` the successor's heading (`null` unless superseded), `reason` the reason given (or
//! `null`). `id` is the first 12 hex digits of `sha256(ts + "\0" + heading + "\0" + event)`, as
//! the journal's ids are made.
//!
//! A decision's ledger state is its latest record, keyed by `(file, heading)`. Appends go through
//! the registry append (size cap, torn-tail refusal) and need the writer lock, which
//! [`record`] takes as a parameter to prove it is held.

use std::path::Path;

use rustix::fs::OFlags;

use crate::error::{Error, Result};
use crate::js::json::{Object, Value, sha256_hex};
use crate::js::text::trim;
use crate::messages;
use crate::store::entry::status_line;
use crate::store::layout::DECISION_LEDGER;
use crate::store::lock::WriterLock;
use crate::store::paths::read_registry;
use crate::store::sections::Section;
use crate::store::{confined, journal, ndjson};

/// The ledger, relative to the project root.
pub const LEDGER: &str = DECISION_LEDGER;

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
    pub by: Option<String>,
    pub reason: Option<String>,
}

impl Record {
    /// A new record at `ts`, its id derived from `ts`, `heading` and `event`.
    #[must_use]
    pub fn new(
        ts: &str,
        event: &str,
        file: &str,
        heading: &str,
        status: &str,
        sha256: String,
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
            by: None,
            reason: None,
        }
    }

    /// The record as JSON, in the documented key order.
    #[must_use]
    pub fn to_object(&self) -> Object {
        Object::new()
            .with("ts", self.ts.as_str())
            .with("id", self.id.as_str())
            .with("event", self.event.as_str())
            .with("heading", self.heading.as_str())
            .with("file", self.file.as_str())
            .with("status", self.status.as_str())
            .with("sha256", self.sha256.as_str())
            .with("by", self.by.as_deref())
            .with("reason", self.reason.as_deref())
    }

    /// Reads a record back; `None` when a required field is missing or not text.
    #[must_use]
    pub fn from_object(object: &Object) -> Option<Self> {
        let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(Self {
            ts: text("ts")?,
            id: text("id")?,
            event: text("event")?,
            heading: text("heading")?,
            file: text("file")?,
            status: text("status")?,
            sha256: text("sha256")?,
            by: text("by"),
            reason: text("reason"),
        })
    }

    /// Whether the record leaves the decision in force.
    #[must_use]
    pub fn is_active(&self) -> bool {
        self.status == "active"
    }
}

/// The ledger as read: every record in file order, and the line numbers of lines that are not
/// records.
#[derive(Debug, Default)]
pub struct Ledger {
    pub records: Vec<Record>,
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
                    Some(record) => ledger.records.push(record),
                    None => ledger
                        .bad_lines
                        .push((index + 1, "a field of the record is missing")),
                },
            }
        }
        ledger
    }

    /// The latest record of the decision `heading` in `file`.
    #[must_use]
    pub fn latest_of(&self, file: &str, heading: &str) -> Option<&Record> {
        self.records
            .iter()
            .rev()
            .find(|r| r.file == file && r.heading == heading)
    }
}

/// The digest a ledger record keeps of a decision: SHA-256 of the section's full text with its
/// status line (and that line's end) left out, trimmed. `source` is the text the section was
/// cut from.
#[must_use]
pub fn digest(section: &Section<'_>) -> String {
    let [heading, newline, body, extra] = section.parts();
    let mut text = String::with_capacity(heading.len() + body.len() + 2);
    text.push_str(heading);
    text.push_str(newline);
    match status_line(section) {
        Some(line) => {
            let start = line.field.line.start - section.body_start();
            let mut end = line.field.line.end - section.body_start();
            if body[end..].starts_with("\r\n") {
                end += 2;
            } else if body[end..].starts_with('\n') {
                end += 1;
            }
            text.push_str(&body[..start]);
            text.push_str(&body[end..]);
        }
        None => text.push_str(body),
    }
    text.push_str(extra);
    sha256_hex(trim(&text).as_bytes())
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
    use crate::store::sections::sections;

    #[test]
    fn the_digest_ignores_the_status_line_and_nothing_else() {
        let a = "### A\n**Date:** 2026-10-01\n**Status:** active\n**Decision:** x\n";
        let flipped = a.replace("active", "superseded by B");
        let edited = a.replace("x\n", "y\n");
        let crlf = "### A\r\n**Date:** 2026-10-01\r\n**Status:** active\r\n**Decision:** x\r\n";
        let digest_of = |text: &str| digest(&sections(text)[0]);
        assert_eq!(digest_of(a), digest_of(&flipped));
        assert_ne!(digest_of(a), digest_of(&edited));
        assert_eq!(
            digest_of(a),
            sha256_hex(b"A\n**Date:** 2026-10-01\n**Decision:** x")
        );
        assert_eq!(
            digest_of(crlf),
            digest_of(&crlf.replace("active", "abrogated"))
        );
        // Trailing blank lines and the next section do not count.
        assert_eq!(digest_of(a), digest_of(&format!("{a}\n\n### B\nb\n")));
    }

    #[test]
    fn ids_and_key_order() {
        let mut r = Record::new(
            "2026-10-18T09:30:00.000Z",
            "adopt",
            "f",
            "A",
            "active",
            "d".into(),
        );
        assert_eq!(
            r.id,
            &sha256_hex("2026-10-18T09:30:00.000Z\u{0}A\u{0}adopt".as_bytes())[..12]
        );
        r.by = Some("B".into());
        assert_eq!(
            Value::Object(r.to_object()).compact(),
            format!(
                "{{\"ts\":\"2026-10-18T09:30:00.000Z\",\"id\":\"{}\",\"event\":\"adopt\",\"heading\":\"A\",\"file\":\"f\",\"status\":\"active\",\"sha256\":\"d\",\"by\":\"B\",\"reason\":null}}",
                r.id
            )
        );
        let back = Ledger::parse(&format!(
            "{}\n\nnull\n{{\"ts\":1}}\n",
            Value::Object(r.to_object()).compact()
        ));
        assert_eq!(back.records, [r]);
        assert_eq!(
            back.bad_lines,
            [
                (3, "not a JSON object"),
                (4, "a field of the record is missing")
            ]
        );
    }
}
