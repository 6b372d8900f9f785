//! The three lifecycle commands: `adopt` ledgers decisions as they stand; `supersede` and
//! `abrogate` end an active, ledgered decision by flipping its status line — the only line of a
//! note file bmad-mem ever rewrites.
//!
//! A flip is computed from the note file's bytes as first read, before the writer lock is taken
//! (so that a refusal creates nothing). Under the lock the ledger is checked, the file is read
//! again and must still hold those bytes (a person editing it meanwhile makes the command
//! refuse, never merge), the ledger records are appended, and only then is the file replaced
//! atomically (temporary file, sync, rename in the same folder), after one last look at its
//! bytes. If the file cannot be replaced, the ledger append is taken back.
//!
//! Ledger first, file second: a crash in between leaves a ledger that says "superseded" (or
//! "abrogated") next to a file that still says "active" — never a flip without its record.
//! `lint` reports that state as an error and names the fix: running the same command again,
//! which finds the record already there and completes the flip without a second record.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::actions::decisions::ledger::{self, Ledger, Record};
use crate::error::{Error, Result};
use crate::js::json::Value;
use crate::js::text::{trim, utf16_len};
use crate::messages;
use crate::store::entry::{Status, status_line, status_of};
use crate::store::layout::DECISION_FILES;
use crate::store::lock::WriterLock;
use crate::store::paths::read_registry;
use crate::store::sections::{Section, sections};
use crate::store::{confined, temporaries};

/// Longest heading or reason accepted, in UTF-16 units.
const MAX_HEADING: usize = 300;
const MAX_REASON: usize = 2000;

/// The decision files as read: `(project-relative path, text)` for each that exists.
#[derive(Debug, Default)]
pub struct Files {
    pub files: Vec<(&'static str, String)>,
}

/// A decision found by its heading.
#[derive(Debug, Clone, Copy)]
pub struct Found<'a> {
    pub file: &'static str,
    pub text: &'a str,
    pub section: Section<'a>,
}

impl Files {
    /// Reads every decision file with the confined reader (strict UTF-8, 2 MiB cap).
    ///
    /// # Errors
    /// The confined reader's refusals.
    pub fn read(root: &Path) -> Result<Self> {
        let mut files = Vec::new();
        for rel in DECISION_FILES {
            if let Some(text) = read_registry(root, rel, true)? {
                files.push((rel, text));
            }
        }
        Ok(Self { files })
    }

    /// Every section of every decision file.
    #[must_use]
    pub fn all(&self) -> Vec<Found<'_>> {
        self.files
            .iter()
            .flat_map(|(file, text)| {
                sections(text).into_iter().map(move |section| Found {
                    file,
                    text,
                    section,
                })
            })
            .collect()
    }

    /// The one decision headed `heading`, or the refusal naming why there is not exactly one.
    ///
    /// # Errors
    /// No decision, or several, with that heading.
    pub fn one(&self, heading: &str) -> Result<Found<'_>> {
        let found: Vec<Found<'_>> = self
            .all()
            .into_iter()
            .filter(|f| f.section.heading == heading)
            .collect();
        match found.as_slice() {
            [one] => Ok(*one),
            [] => Err(Error::refused(messages::no_decision(
                heading,
                &DECISION_FILES,
            ))),
            several => Err(Error::refused(messages::several_decisions(
                heading,
                &several.iter().map(|f| f.file).collect::<Vec<_>>(),
            ))),
        }
    }
}

/// A heading given on the command line: non-empty after trimming, bounded.
fn heading_arg<'a>(text: &'a str, what: &str) -> Result<&'a str> {
    let heading = trim(text);
    if heading.is_empty() || utf16_len(heading) > MAX_HEADING {
        return Err(Error::refused(messages::bad_heading(what, MAX_HEADING)));
    }
    Ok(heading)
}

/// A reason: non-empty after trimming, bounded.
fn reason_arg(text: Option<&str>, required: bool) -> Result<Option<String>> {
    match text {
        None if required => Err(Error::refused(messages::DECISION_REASON_REQUIRED)),
        None => Ok(None),
        Some(text) => {
            let reason = trim(text);
            if reason.is_empty() || utf16_len(reason) > MAX_REASON {
                return Err(Error::refused(messages::bad_reason(MAX_REASON)));
            }
            Ok(Some(reason.to_owned()))
        }
    }
}

/// What a lifecycle command did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// `adopt`, `supersede` or `abrogate`.
    pub event: &'static str,
    /// The records appended to the ledger, in order.
    pub recorded: Vec<Record>,
    /// Decisions left as they were: (file, heading, why).
    pub skipped: Vec<(String, String, String)>,
    /// For a flip: the file rewritten, the decision's heading, its new status value.
    pub flipped: Option<(String, String, String)>,
    /// For a flip: whether it completed one a crash had interrupted (its records were there).
    pub completed: bool,
}

/// `decision adopt`: ledgers the named decisions (or every decision) as they stand, without
/// touching the note files. A decision already ledgered is left as it is.
///
/// # Errors
/// A heading naming no decision or several, an unreadable status, a note file changed while
/// adopting, and the ledger's and the lock's refusals.
pub fn adopt(root: &Path, now: &str, headings: &[String], all: bool) -> Result<Outcome> {
    if all != headings.is_empty() {
        return Err(Error::refused(messages::ADOPT_WHAT));
    }
    let wanted: Vec<&str> = headings
        .iter()
        .map(|h| heading_arg(h, "a decision to adopt"))
        .collect::<Result<_>>()?;
    let files = Files::read(root)?;
    let mut targets: Vec<Found<'_>> = Vec::new();
    let mut skipped = Vec::new();
    if all {
        targets = every_decision(&files, &mut skipped);
    } else {
        let mut seen = HashSet::new();
        for heading in wanted {
            let found = files.one(heading)?;
            if let Some(Status::Unreadable(value)) = status_of(&found.section) {
                return Err(Error::refused(messages::unreadable_status(heading, &value)));
            }
            if seen.insert(heading) {
                targets.push(found);
            }
        }
    }
    // Nothing new to record: nothing is locked or created.
    let before = Ledger::read(root)?;
    if targets
        .iter()
        .all(|f| before.latest_of(f.file, f.section.heading).is_some())
    {
        for found in targets {
            skipped.push((
                found.file.to_owned(),
                found.section.heading.to_owned(),
                "already ledgered".to_owned(),
            ));
        }
        return Ok(Outcome {
            event: "adopt",
            skipped,
            ..Outcome::default()
        });
    }
    let lock = WriterLock::acquire(root)?;
    let ledger = Ledger::read(root)?;
    let mut recorded = Vec::new();
    for found in targets {
        let heading = found.section.heading;
        if ledger.latest_of(found.file, heading).is_some() {
            skipped.push((
                found.file.to_owned(),
                heading.to_owned(),
                "already ledgered".to_owned(),
            ));
            continue;
        }
        let status = status_of(&found.section).unwrap_or(Status::Active);
        let mut record = Record::new(
            now,
            "adopt",
            found.file,
            heading,
            status.as_str(),
            ledger::digest(&found.section),
        );
        if let Status::Superseded { by } = status {
            record.by = by;
        }
        recorded.push(record);
    }
    if !recorded.is_empty() {
        ensure_unchanged(root, &files, "adopted")?;
        ledger::record(root, &recorded, &lock)?;
    }
    drop(lock);
    Ok(Outcome {
        event: "adopt",
        recorded,
        skipped,
        ..Outcome::default()
    })
}

/// Every decision `adopt --all` can ledger; those it cannot (a heading used twice in its file,
/// a status outside the list) are noted in `skipped`.
fn every_decision<'a>(
    files: &'a Files,
    skipped: &mut Vec<(String, String, String)>,
) -> Vec<Found<'a>> {
    let mut targets = Vec::new();
    for (file, text) in &files.files {
        let cut = sections(text);
        let mut uses: HashMap<&str, usize> = HashMap::new();
        for section in &cut {
            *uses.entry(section.heading).or_default() += 1;
        }
        let mut reported = HashSet::new();
        for section in &cut {
            let why = match (uses[section.heading], status_of(section)) {
                (1, Some(Status::Unreadable(_))) => {
                    "its status value is not one of active, superseded, abrogated, rolled-back, proposed, rejected, deprecated".to_owned()
                }
                (1, _) => {
                    targets.push(Found {
                        file,
                        text,
                        section: *section,
                    });
                    continue;
                }
                (n, _) => format!("the heading heads {n} sections of the file"),
            };
            if reported.insert(section.heading) {
                skipped.push(((*file).to_owned(), section.heading.to_owned(), why));
            }
        }
    }
    targets
}

/// Refuses when a decision file no longer holds the bytes first read.
fn ensure_unchanged(root: &Path, files: &Files, doing: &str) -> Result<()> {
    let now = Files::read(root)?;
    for rel in DECISION_FILES {
        let before = files.files.iter().find(|(f, _)| *f == rel).map(|(_, t)| t);
        let after = now.files.iter().find(|(f, _)| *f == rel).map(|(_, t)| t);
        if before != after {
            return Err(changed(rel, doing));
        }
    }
    Ok(())
}

fn changed(rel: &str, doing: &str) -> Error {
    Error::refused(messages::decisions_changed(rel, doing))
}

/// The end of a decision: superseded by a successor, or abrogated.
#[derive(Debug)]
pub enum End<'a> {
    Supersede { by: &'a str },
    Abrogate,
}

/// `decision supersede` and `decision abrogate`: flips the status line of the active, ledgered
/// decision `heading`, records the change (and, for a supersede, the successor) in the ledger.
///
/// # Errors
/// Every refusal of the module documentation's rules; nothing is written then.
pub fn end(
    root: &Path,
    now: &str,
    heading: &str,
    end: &End<'_>,
    reason: Option<&str>,
    crash_at: Option<&str>,
) -> Result<Outcome> {
    let heading = heading_arg(heading, "the decision")?;
    let successor = match end {
        End::Supersede { by } => Some(heading_arg(by, "--by")?),
        End::Abrogate => None,
    };
    let reason = reason_arg(reason, successor.is_none())?;
    if successor == Some(heading) {
        return Err(Error::refused(messages::supersede_itself(heading)));
    }
    let (event, status, doing) = match successor {
        Some(by) => (
            "supersede",
            Status::Superseded {
                by: Some(by.to_owned()),
            },
            "superseded",
        ),
        None => ("abrogate", Status::Abrogated, "abrogated"),
    };
    let files = Files::read(root)?;
    let old = files.one(heading)?;
    let Some(line) = status_line(&old.section) else {
        return Err(Error::refused(messages::no_status_line(heading)));
    };
    if line.status != Status::Active {
        return Err(not_active(heading, &line.status));
    }
    let new = successor.map(|by| files.one(by)).transpose()?;
    if let Some(new) = &new {
        in_force(new)?;
    }
    let (flipped, value) = flip(&old, line.field.value_range.clone(), &status)?;
    let digest = ledger::digest(&old.section);
    let not_ledgered = || Error::refused(messages::not_ledgered(heading));
    // Looked at before the lock too, so that this refusal creates nothing.
    if Ledger::read(root)?.latest_of(old.file, heading).is_none() {
        return Err(not_ledgered());
    }

    let lock = WriterLock::acquire(root)?;
    let ledger = Ledger::read(root)?;
    let Some(current) = ledger.latest_of(old.file, heading) else {
        return Err(not_ledgered());
    };
    let completing = !current.is_active();
    if completing && (current.status != status.as_str() || current.by.as_deref() != successor) {
        return Err(Error::refused(messages::ledger_ahead(
            heading,
            &current.status,
            current.by.as_deref(),
            old.file,
        )));
    }
    if let Some(new) = &new {
        check_successor(&ledger, &files, heading, new)?;
    }
    let records = if completing {
        Vec::new()
    } else {
        let mut first = Record::new(now, event, old.file, heading, status.as_str(), digest);
        first.by = successor.map(str::to_owned);
        first.reason.clone_from(&reason);
        let second = new.as_ref().map(|new| {
            let mut record = Record::new(
                now,
                "succeed",
                new.file,
                new.section.heading,
                "active",
                ledger::digest(&new.section),
            );
            record.reason.clone_from(&reason);
            record
        });
        std::iter::once(first).chain(second).collect()
    };
    ensure_unchanged(root, &files, doing)?;
    write_flip(root, &records, &old, &flipped, doing, &lock, crash_at)?;
    drop(lock);
    Ok(Outcome {
        event,
        recorded: records,
        flipped: Some((old.file.to_owned(), heading.to_owned(), value)),
        completed: completing,
        ..Outcome::default()
    })
}

/// Refuses a successor that is not in force in its file.
fn in_force(new: &Found<'_>) -> Result<()> {
    let status = status_of(&new.section).unwrap_or(Status::Active);
    if status == Status::Active {
        return Ok(());
    }
    Err(Error::refused(messages::successor_not_active(
        new.section.heading,
        status.as_str(),
    )))
}

/// The decision file's text with the status value at `value_range` of `old` replaced by
/// `status`'s, the rest of the line and of the file as it was; and the value written.
fn flip(
    old: &Found<'_>,
    value_range: std::ops::Range<usize>,
    status: &Status,
) -> Result<(String, String)> {
    let mut flipped = old.text.to_owned();
    let value = status.to_value();
    flipped.replace_range(value_range, &value);
    let reads_back = sections(&flipped)
        .iter()
        .find(|s| s.heading == old.section.heading)
        .and_then(status_of);
    if reads_back.as_ref() != Some(status) {
        return Err(Error::refused(messages::status_not_read_back(&value)));
    }
    Ok((flipped, value))
}

/// Appends `records` to the ledger, then replaces the note file with `flipped` if it still holds
/// the bytes first read; when it cannot, takes the records back. `crash_at` is the crash tests'
/// hook (`BMAD_MEM_CRASH_AT=decision-after-ledger` stops the process between the two writes).
fn write_flip(
    root: &Path,
    records: &[Record],
    old: &Found<'_>,
    flipped: &str,
    doing: &str,
    lock: &WriterLock,
    crash_at: Option<&str>,
) -> Result<()> {
    let appended: u64 = records
        .iter()
        .map(|r| Value::Object(r.to_object()).compact().len() as u64 + 1)
        .sum();
    let before = ledger::record(root, records, lock)?;
    crate::context::crash_point(crash_at, "decision-after-ledger");
    if let Err(e) = replace_if_unchanged(root, old.file, old.text, flipped, doing) {
        if !records.is_empty() {
            ledger::undo(root, before, appended, lock)?;
        }
        return Err(e);
    }
    Ok(())
}

fn not_active(heading: &str, status: &Status) -> Error {
    let by = match status {
        Status::Superseded { by: Some(by) } => Some(by.as_str()),
        _ => None,
    };
    Error::refused(messages::not_active(heading, status.as_str(), by))
}

/// The successor must be in force in the ledger too, and must not lead back to `heading`
/// through the chain of successors the files and the ledger name.
fn check_successor(ledger: &Ledger, files: &Files, heading: &str, new: &Found<'_>) -> Result<()> {
    let mut chain = vec![new.section.heading.to_owned()];
    let mut at = (new.file.to_owned(), new.section.heading.to_owned());
    loop {
        let by = ledger
            .latest_of(&at.0, &at.1)
            .filter(|r| !r.is_active())
            .map(|r| r.by.clone())
            .or_else(|| {
                let found = files.one(&at.1).ok()?;
                match status_of(&found.section) {
                    Some(Status::Superseded { by }) => Some(by),
                    _ => None,
                }
            });
        let Some(by) = by.flatten() else {
            break;
        };
        chain.push(by.clone());
        if by == heading {
            return Err(Error::refused(messages::succession_cycle(
                heading,
                new.section.heading,
                &chain,
            )));
        }
        if chain.len() > 1000 || chain[..chain.len() - 1].contains(&by) {
            break;
        }
        let Ok(next) = files.one(&by) else {
            break;
        };
        at = (next.file.to_owned(), by);
    }
    if let Some(record) = ledger.latest_of(new.file, new.section.heading)
        && !record.is_active()
    {
        return Err(Error::refused(messages::successor_ended(
            new.section.heading,
            &record.status,
            record.by.as_deref(),
        )));
    }
    Ok(())
}

/// Replaces the note file `rel` with `text`, atomically, only while it still holds `read`.
fn replace_if_unchanged(root: &Path, rel: &str, read: &str, text: &str, doing: &str) -> Result<()> {
    let target = confined::locate(root, rel, false)?;
    let dir = target.require_dir("cannot open")?;
    // The folder may be `.agents/memory`, which the session commands sweep of dead writers'
    // temporary files: a shared hold says this one is alive.
    let _held = temporaries::hold_for_temporaries(dir);
    let tmp = dir.write_temp(target.name(), text.as_bytes())?;
    let still = dir.read(target.name());
    if !matches!(&still, Ok(Some((bytes, _))) if bytes == read.as_bytes()) {
        let _ = dir.remove(&tmp);
        return Err(match still {
            Err(e) => e,
            Ok(_) => changed(rel, doing),
        });
    }
    dir.rename(&tmp, target.name()).map_err(|e| {
        let _ = dir.remove(&tmp);
        Error::io("cannot write", target.path(), e)
    })?;
    // The rename is done: a failed folder sync no longer makes the flip undone.
    let _ = dir.sync();
    Ok(())
}
