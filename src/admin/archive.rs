//! `archive`: the way out of a full store.
//!
//! The journal, `promotions.ndjson` and the reinforcement records are capped at 2 MiB, and a
//! store at the cap refuses every write (a full records registry leaves reinforcements
//! unrecorded). `bmad-mem archive <journal|promotions|reinforcements> [--before <date> | --keep
//! <n>]` moves older records, byte for byte, into `<store>-<first>--<last>.ndjson` in the
//! store's archive folder (`.bmad/memory/archive/`; `.bmad/records/archive/` for the records)
//! and replaces the live file with the rest. By default it keeps the newest 1,000 records.
//!
//! * A **record** is a non-blank line (blank: nothing but JavaScript whitespace), in file order;
//!   blank lines travel with the record after them, and blank lines after the last record stay
//!   in the live file. With `--keep n` the archived records are all but the last `n` lines of
//!   the file (append order, not a sort), a prefix, so the archive followed by the new live
//!   file is the old live file, byte for byte. `--keep 0` moves every record.
//! * With `--before <date>` the records whose `ts` is known (a number of epoch milliseconds, or
//!   text in the ECMAScript date format, as recall reads it) and strictly earlier move, wherever
//!   they stand; the others — later, or with no `ts` the parser knows — stay, in their order.
//! * Of the reinforcement records, a pattern's records stay when moving them would change what
//!   its remaining records replay to (`records::keep_replayable`): its score must stay
//!   rebuildable from the live file, and the merge driver and `doctor` must read the same
//!   score from it. So an archive of the records may move fewer records than asked.
//! * `<first>` and `<last>` are the `ts` of the first and last archived records, in UTC, written
//!   `YYYYMMDDTHHMMSSZ`; a record without a usable `ts` gives way to the nearest archived record
//!   that has one, and when none has, the current time is used. A name already taken gets `-2`,
//!   `-3`, …; an archive is never overwritten.
//!
//! Under the writer lock, in this order: the archive is written to a temporary file in the live
//! file's folder, synced, and hard-linked to its name (atomic, and refused when the name exists,
//! like `O_CREAT|O_EXCL`), then the archive folder is synced; only then is the live file
//! replaced atomically (temporary file, sync, rename) and its folder synced. A crash
//! before the link leaves only a temporary file, which the next writer removes; a crash after
//! it leaves every archived record in both files. That state is recognisable — an archive
//! whose records all still stand in the live file, in order — and [`pending`] finds it: `doctor`
//! names it, and the next `archive` of that store first removes those records from the live file
//! (and says so), so a re-run completes an interrupted archive and never duplicates a record.
//! The one state the rule cannot tell apart is a finished archive whose every line was later
//! written to the live file again, byte for byte; to restore an archive into the live file,
//! move the archive file out of `archive/` first.
//!
//! All of it happens through two folder handles opened from the root without following links,
//! one on the live file's folder (`.bmad/memory`) and one on its `archive/` (created through the
//! first): the
//! temporary file, the link from one to the other, the syncs, the replacement of the live file,
//! and the listing and reading of the archives. A folder swapped for a link meanwhile moves
//! nothing out of the project; a link found in a folder's place is refused.
//!
//! A torn final line or invalid UTF-8 is refused before anything is written: a torn line is
//! never archived (`doctor --repair-tail` keeps it aside first). Refusals, and a run with
//! nothing to do, create nothing, not even the memory folder.

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use rustix::io::Errno;

use crate::actions::reinforce::records;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::date;
use crate::js::json::{Object, Value};
use crate::js::text::trim;
use crate::messages;
use crate::output::Report;
use crate::store::archived::{Store, archive_names_in};
use crate::store::confined::{self, Dir};
use crate::store::journal;
use crate::store::layout::DEFAULT_KEEP;
use crate::store::lock::WriterLock;
use crate::store::numbered;
use crate::store::paths::read_registry_bytes;

/// The archive folder's name in the memory folder.
const ARCHIVE_NAME: &str = "archive";
/// The largest magnitude of a time value JavaScript can write as a date.
const MAX_TIME_MS: f64 = 8.64e15;

/// Move older records of the journal, the promotions or the reinforcement records into their
/// archive folder.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ArchiveArgs {
    /// The store to archive: journal, promotions or reinforcements (the reinforcement records).
    #[arg(value_name = "journal|promotions|reinforcements")]
    pub store: Option<String>,
    /// Move the records whose ts is strictly before this date (e.g. 2026-10-01, UTC midnight).
    #[arg(long, value_name = "date", allow_hyphen_values = true)]
    pub before: Option<String>,
    /// Keep the newest n records, move the others (default 1000; 0 moves every record).
    #[arg(long, value_name = "n", allow_hyphen_values = true)]
    pub keep: Option<String>,
}

/// Which records move.
#[derive(Debug, Clone, Copy)]
enum Selection {
    /// All but the last `n`.
    Keep(usize),
    /// Those whose `ts` is known and strictly before this instant (epoch milliseconds).
    Before(f64),
}

/// What an archive run did.
#[derive(Debug)]
pub(crate) struct ArchiveReport {
    pub store: Store,
    /// Records moved into the new archive file.
    pub archived: usize,
    /// Records left in the live file.
    pub kept: usize,
    /// The new archive file, relative to the project root.
    pub archive_file: Option<String>,
    /// Interrupted archives this run completed, relative to the project root.
    pub completed: Vec<String>,
}

/// Validates the arguments, then archives under the writer lock.
///
/// # Errors
/// Usage errors before anything is read; a torn final line, invalid UTF-8, confinement, lock
/// and I/O errors after.
pub(crate) fn run(args: &ArchiveArgs, ctx: &Context) -> Result<ArchiveReport> {
    let store = parse_store(args.store.as_deref())?;
    let selection = match (&args.before, &args.keep) {
        (Some(_), Some(_)) => {
            return Err(Error::refused(messages::BEFORE_AND_KEEP));
        }
        (Some(before), None) => Selection::Before(
            date::parse_timestamp(before)
                .ok_or_else(|| Error::refused(messages::invalid_value("before", before)))?,
        ),
        (None, Some(keep)) => Selection::Keep(
            parse_keep(keep)
                .ok_or_else(|| Error::refused(messages::invalid_value("keep", keep)))?,
        ),
        (None, None) => Selection::Keep(DEFAULT_KEEP),
    };
    // Planned before the lock too, so that a refusal or a run with nothing to do creates
    // nothing (not even the memory folder); planned again under the lock, where it counts.
    let plan = Plan::make(ctx, store, selection)?;
    if !plan.changes_anything() {
        return Ok(plan.report(store, None));
    }
    let lock = WriterLock::acquire(&ctx.root)?;
    let plan = Plan::make(ctx, store, selection)?;
    if !plan.changes_anything() {
        return Ok(plan.report(store, None));
    }
    let archive_file = plan.write(ctx, store, &lock)?;
    drop(lock);
    Ok(plan.report(store, archive_file))
}

/// The store a command-line word names.
fn parse_store(word: Option<&str>) -> Result<Store> {
    let expected = "expected journal | promotions | reinforcements";
    let Some(word) = word else {
        return Err(Error::refused(messages::missing_store(expected)));
    };
    Store::parse(word).ok_or_else(|| Error::refused(messages::unknown_store(word, expected)))
}

/// A non-negative integer (`+` and surrounding whitespace allowed), saturating.
fn parse_keep(text: &str) -> Option<usize> {
    let t = trim(text);
    let digits = t.strip_prefix('+').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.parse::<usize>().unwrap_or(usize::MAX))
}

/// One record of a store's text: the byte range of its line (`\n` included) and where the
/// blank lines before it begin.
#[derive(Debug, Clone, Copy)]
struct Record {
    group_start: usize,
    start: usize,
    end: usize,
}

/// The records of `text`, a store's text that ends with `\n` (or is empty), in file order.
fn records(text: &str) -> Vec<Record> {
    let mut out = Vec::new();
    let (mut group_start, mut start) = (0, 0);
    for line in text.split_inclusive('\n') {
        let end = start + line.len();
        if !trim(line).is_empty() {
            out.push(Record {
                group_start,
                start,
                end,
            });
            group_start = end;
        }
        start = end;
    }
    out
}

/// `text` cut in two: the selected records (each with the blank lines before it), and the rest
/// (the other records with theirs, then the blank lines after the last record).
fn split(text: &str, records: &[Record], selected: &[bool]) -> (String, String) {
    let (mut moved, mut rest) = (String::new(), String::new());
    for (record, &is_selected) in records.iter().zip(selected) {
        let target = if is_selected { &mut moved } else { &mut rest };
        target.push_str(&text[record.group_start..record.end]);
    }
    rest.push_str(&text[records.last().map_or(0, |r| r.end)..]);
    (moved, rest)
}

/// When every record of `archived` still stands in `live`, in order (an archive interrupted
/// before the live file was replaced): which of `live`'s records they are, the earliest
/// match of each.
fn still_present(live: &str, live_records: &[Record], archived: &str) -> Option<Vec<bool>> {
    let wanted: Vec<&str> = records(archived)
        .iter()
        .map(|r| &archived[r.start..r.end])
        .collect();
    if wanted.is_empty() || wanted.len() > live_records.len() {
        return None;
    }
    let mut selected = vec![false; live_records.len()];
    let mut next = 0;
    for (i, record) in live_records.iter().enumerate() {
        if next < wanted.len() && &live[record.start..record.end] == wanted[next] {
            selected[i] = true;
            next += 1;
        }
    }
    (next == wanted.len()).then_some(selected)
}

/// The instant a record's `ts` names: a number as is, text by the ECMAScript date format.
fn record_ms(line: &str) -> Option<f64> {
    match journal::event(trim(line))?.get("ts")? {
        Value::Number(n) => Some(*n),
        Value::String(s) => date::parse_timestamp(s),
        _ => None,
    }
}

/// `2026-10-18T09:30:00.000Z` as `20261018T093000Z` (a year outside 0–9999 keeps its sign).
fn stamp(ms: f64) -> String {
    let iso = date::to_iso_string(ms);
    let (day, time) = iso.split_once('T').unwrap_or((&iso, ""));
    let (sign, day) = match day.strip_prefix(['+', '-']) {
        Some(rest) => (&day[..1], rest),
        None => ("", day),
    };
    let time = time.get(..8).unwrap_or(time);
    format!("{sign}{}T{}Z", day.replace('-', ""), time.replace(':', ""))
}

/// The archive file's name without `.ndjson`: `<store>-<first ts>--<last ts>`.
fn archive_stem(
    store: Store,
    text: &str,
    records: &[Record],
    selected: &[bool],
    now_ms: f64,
) -> String {
    let usable =
        |r: &&Record| record_ms(&text[r.start..r.end]).filter(|ms| ms.abs() <= MAX_TIME_MS);
    let moved: Vec<&Record> = records
        .iter()
        .zip(selected)
        .filter_map(|(r, s)| s.then_some(r))
        .collect();
    let first = moved.iter().find_map(usable).unwrap_or(now_ms);
    let last = moved.iter().rev().find_map(usable).unwrap_or(first);
    format!("{}-{}--{}", store.name(), stamp(first), stamp(last))
}

/// The archives of `store` whose records all still stand in its live file: interrupted
/// archives, each with the number of its records. Read-only.
///
/// # Errors
/// Confinement and reader errors for the live file, the folder or an archive file.
pub(crate) fn pending(root: &Path, store: Store) -> Result<Vec<(String, usize)>> {
    let Some(text) =
        read_registry_bytes(root, store.rel(), true)?.and_then(|b| String::from_utf8(b).ok())
    else {
        return Ok(Vec::new());
    };
    let mut live = text;
    remove_pending(root, store, &mut live)
}

/// Removes from `live` the records of every interrupted archive of `store`; returns those
/// archives, each with the number of its records.
fn remove_pending(root: &Path, store: Store, live: &mut String) -> Result<Vec<(String, usize)>> {
    let mut out = Vec::new();
    if live.is_empty() {
        return Ok(out);
    }
    for (rel, archived) in read_archives(root, store)? {
        let live_records = records(live);
        if let Some(selected) = still_present(live, &live_records, &archived) {
            out.push((rel, selected.iter().filter(|s| **s).count()));
            *live = split(live, &live_records, &selected).1;
        }
    }
    Ok(out)
}

/// Every archive file of `store` that is whole (valid UTF-8, ending with `\n`), by name, with
/// its path relative to the project root; listed and read through one handle on the folder.
fn read_archives(root: &Path, store: Store) -> Result<Vec<(String, String)>> {
    let Some(dir) = open_archive_dir(root, store)? else {
        return Ok(Vec::new());
    };
    let names =
        archive_names_in(&dir, store).map_err(|e| Error::io("cannot list", dir.path(), e))?;
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let Some((bytes, _)) = dir.read(OsStr::new(&name))? else {
            continue;
        };
        if let Ok(text) = String::from_utf8(bytes)
            && text.ends_with('\n')
        {
            out.push((format!("{}/{name}", store.archive_dir()), text));
        }
    }
    Ok(out)
}

/// A handle on the archive folder of `store`, opened from the root without following links;
/// `None` when it does not exist.
fn open_archive_dir(root: &Path, store: Store) -> Result<Option<Dir>> {
    let target = confined::locate(root, store.archive_dir(), false)?;
    let Some(memory) = target.dir() else {
        return Ok(None);
    };
    match memory.open_child(target.name(), false) {
        Ok(dir) => Ok(dir.map(|(dir, _)| dir)),
        // Something else than a folder holds the name: it cannot be listed.
        Err(Error::ParentNotDirectory) => Err(Error::io(
            "cannot list",
            target.path(),
            io::Error::from_raw_os_error(Errno::NOTDIR.raw_os_error()),
        )),
        Err(e) => Err(e),
    }
}

/// What a run will do.
#[derive(Debug)]
struct Plan {
    /// The live file's text as read.
    original: String,
    /// What the live file will hold.
    live: String,
    completed: Vec<String>,
    /// The new archive: its name without `.ndjson`, and its text.
    archive: Option<(String, String)>,
    archived: usize,
    kept: usize,
}

impl Plan {
    fn make(ctx: &Context, store: Store, selection: Selection) -> Result<Self> {
        let bytes = read_registry_bytes(&ctx.root, store.rel(), true)?.unwrap_or_default();
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            return Err(Error::refused(messages::archive_torn_tail(store.rel())));
        }
        let original = String::from_utf8(bytes).map_err(|_| Error::SourceNotUtf8)?;
        let mut live = original.clone();
        let completed = remove_pending(&ctx.root, store, &mut live)?
            .into_iter()
            .map(|(rel, _)| rel)
            .collect();
        let live_records = records(&live);
        let selected: Vec<bool> = match selection {
            Selection::Keep(n) => {
                let cut = live_records.len().saturating_sub(n);
                (0..live_records.len()).map(|i| i < cut).collect()
            }
            Selection::Before(before) => live_records
                .iter()
                .map(|r| record_ms(&live[r.start..r.end]).is_some_and(|ms| ms < before))
                .collect(),
        };
        let mut selected = selected;
        if store == Store::Reinforcements {
            let lines: Vec<&str> = live_records.iter().map(|r| &live[r.start..r.end]).collect();
            records::keep_replayable(&lines, &mut selected);
        }
        let archived = selected.iter().filter(|s| **s).count();
        let mut archive = None;
        if archived > 0 {
            let stem = archive_stem(store, &live, &live_records, &selected, ctx.now.ms);
            let (moved, rest) = split(&live, &live_records, &selected);
            archive = Some((stem, moved));
            live = rest;
        }
        Ok(Self {
            original,
            live,
            completed,
            archive,
            archived,
            kept: live_records.len() - archived,
        })
    }

    fn changes_anything(&self) -> bool {
        self.live != self.original
    }

    /// Writes the archive, then replaces the live file; returns the archive's path. Everything
    /// happens through one handle on the memory folder and one on the archive folder, opened
    /// from the root without following links, so a folder swapped for a link meanwhile does
    /// not move the writes out of the project.
    fn write(&self, ctx: &Context, store: Store, _lock: &WriterLock) -> Result<Option<String>> {
        let live = confined::locate(&ctx.root, store.rel(), false)?;
        let memory = live.require_dir("cannot write")?;
        let mut archive_file = None;
        if let Some((stem, text)) = &self.archive {
            let dir = create_archive_dir(memory)?;
            // Staged in the memory folder, where the next writer removes what a kill leaves.
            let staging = OsString::from(format!("{stem}.ndjson"));
            let tmp = memory
                .write_temp(&staging, text.as_bytes())
                .map_err(|e| match e {
                    Error::Io { source, .. } => {
                        Error::io("cannot write", &memory.path().join(&staging), source)
                    }
                    e => e,
                })?;
            let linked = link_free_name(memory, &dir, stem, &tmp, store);
            let _ = memory.remove(&tmp);
            let rel = linked?;
            dir.sync()
                .map_err(|e| Error::io("cannot sync", dir.path(), e))?;
            archive_file = Some(rel);
        }
        // The live file is cut back only once the archive is safely on disk.
        memory
            .replace(live.name(), self.live.as_bytes())
            .map_err(|e| match e {
                Error::Io { source, .. } => Error::io("cannot write", live.path(), source),
                e => e,
            })?;
        memory
            .sync()
            .map_err(|e| Error::io("cannot sync", memory.path(), e))?;
        Ok(archive_file)
    }

    /// The report of this plan, carried out (`archive_file` given when it moved records) or
    /// found to change nothing.
    fn report(self, store: Store, archive_file: Option<String>) -> ArchiveReport {
        ArchiveReport {
            store,
            archived: if archive_file.is_some() {
                self.archived
            } else {
                0
            },
            kept: self.kept,
            archive_file,
            completed: self.completed,
        }
    }
}

/// Links `tmp`, in `memory`, to `<stem>.ndjson` in the archive folder `dir`, or
/// `<stem>-2.ndjson`, `-3`, … when taken; returns the name used, relative to the project root.
fn link_free_name(
    memory: &Dir,
    dir: &Dir,
    stem: &str,
    tmp: &OsStr,
    store: Store,
) -> Result<String> {
    for name in numbered::names(stem, ".ndjson", 2) {
        match memory.hard_link_into(tmp, dir, OsStr::new(&name)) {
            Ok(()) => return Ok(format!("{}/{name}", store.archive_dir())),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Error::io("cannot create", &dir.path().join(&name), e)),
        }
    }
    unreachable!("an unbounded counter always finds a free name")
}

/// Opens `archive/` in the memory folder, creating it when missing, never through a link: a
/// link or a file in its place is refused.
fn create_archive_dir(memory: &Dir) -> Result<Dir> {
    let name = OsStr::new(ARCHIVE_NAME);
    match memory.open_child(name, true)? {
        Some((dir, _)) => Ok(dir),
        // Removed by someone else between its creation and its opening.
        None => Err(Error::io(
            "cannot create",
            &memory.path().join(name),
            io::ErrorKind::NotFound.into(),
        )),
    }
}

impl Report for ArchiveReport {
    fn to_json(&self) -> Value {
        #[expect(
            clippy::cast_precision_loss,
            reason = "record counts are far below 2^53"
        )]
        let (archived, kept) = (self.archived as f64, self.kept as f64);
        Value::Object(
            Object::new()
                .with("store", self.store.name())
                .with("file", self.store.rel())
                .with("archived", archived)
                .with("kept", kept)
                .with("archiveFile", self.archive_file.clone())
                .with(
                    "completed",
                    self.completed.iter().map(Value::from).collect::<Vec<_>>(),
                ),
        )
    }

    fn render_human(&self) -> String {
        let file = self.store.rel();
        let mut out = match &self.archive_file {
            Some(archive) => format!(
                "mem archive: moved {} record(s) of {file} into {archive}; {} kept\n",
                self.archived, self.kept
            ),
            None => format!(
                "mem archive: nothing to archive in {file}; {} record(s) kept\n",
                self.kept
            ),
        };
        for completed in &self.completed {
            let _ = writeln!(
                out,
                "  completed an interrupted archive: removed the records of {completed} from {file}"
            );
        }
        out
    }

    fn written(&self) -> Option<String> {
        let file = self.store.rel();
        let mut parts: Vec<String> = self
            .completed
            .iter()
            .map(|completed| format!("the records of {completed} removed from {file}"))
            .collect();
        if let Some(archive) = &self.archive_file {
            parts.push(format!(
                "{} record(s) of {file} moved into {archive}",
                self.archived
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps() {
        assert_eq!(stamp(0.0), "19700101T000000Z");
        assert_eq!(
            stamp(date::parse_timestamp("2026-10-18T09:30:05.123Z").unwrap()),
            "20261018T093005Z"
        );
        assert_eq!(stamp(MAX_TIME_MS), "+2757600913T000000Z");
    }

    #[test]
    fn keep_parses_non_negative_integers_only() {
        for (text, want) in [
            ("0", Some(0)),
            ("1000", Some(1000)),
            (" +7 ", Some(7)),
            ("007", Some(7)),
            ("99999999999999999999999", Some(usize::MAX)),
            ("-1", None),
            ("1.5", None),
            ("", None),
            ("abc", None),
            ("1e3", None),
        ] {
            assert_eq!(parse_keep(text), want, "{text:?}");
        }
    }

    #[test]
    fn blank_lines_travel_with_the_next_record() {
        let text = "\na\n \nb\nc\n\n";
        let recs = records(text);
        assert_eq!(recs.len(), 3);
        let (moved, rest) = split(text, &recs, &[true, true, false]);
        assert_eq!(moved, "\na\n \nb\n");
        assert_eq!(rest, "c\n\n");
        assert_eq!(moved + &rest, text);
        let (moved, rest) = split(text, &recs, &[false, true, false]);
        assert_eq!((moved.as_str(), rest.as_str()), (" \nb\n", "\na\nc\n\n"));
    }

    #[test]
    fn an_archive_is_pending_only_while_all_its_records_are_live() {
        let live = "a\nb\nc\nd\n";
        let recs = records(live);
        assert_eq!(
            still_present(live, &recs, "a\nb\n"),
            Some(vec![true, true, false, false])
        );
        assert_eq!(
            still_present(live, &recs, "b\nd\n"),
            Some(vec![false, true, false, true])
        );
        assert_eq!(still_present(live, &recs, "a\nx\n"), None);
        assert_eq!(still_present(live, &recs, "b\na\n"), None);
        assert_eq!(still_present(live, &recs, "\n"), None);
    }
}
