//! `doctor`: a read-only health check of every registry and note file, and two explicit,
//! lossless repairs of a registry: its torn final line, its lines that are not UTF-8.
//!
//! `bmad-mem doctor` reports, without changing anything, in the four append-only registries
//! (journal, promotions, receipts, decision ledger): a torn last line (with its byte
//! offset), complete lines that are not valid UTF-8 (number and offset of the first bad byte;
//! one such line makes every writer refuse the file), lines that do not parse (with their line
//! numbers), a registry at, near or over the 2 MiB cap (for the journal and the promotions,
//! naming the `archive` command that makes room) or one the confined reader refuses, an
//! interrupted archive (records in both an archive file and the live file), a receipt store
//! that fails its integrity check, a writer lock whose owner is dead or on another host (which
//! nothing here can check), and in the note files — read as recall, status and brief read them,
//! so that a note they skip (a FIFO, a device, over 64 MiB, a link leaving the project) is
//! reported and a link they follow is checked — `###` headings used twice (which `observe`
//! cannot target) and, as warnings, `###` lines inside fenced code (bmad-plus cuts sections
//! there too) and fences never closed (`crate::store::fences`: reported once, at the line that
//! opens them, and the headings after them are not reported).
//! Where the governed entries are in use (docs/ENTRIES.md), it also reports a candidate whose
//! admission or refusal stopped between its two writes (naming `admit --finish`), a pending
//! candidate file that does not parse, and a generated view that drifted from its sources. It
//! exits 1 when it finds a problem, 0 otherwise: warnings (a registry near its cap, the fences
//! of the note files) never fail it.
//!
//! `bmad-mem doctor --rebuild-views` regenerates `.bmad/memory/CANDIDATES.md` and `INDEX.md`
//! under the writer lock.
//!
//! `bmad-mem doctor --repair-tail <file>` moves a torn final line into `<file>.torn-<timestamp>`
//! (`-1`, `-2`, … appended when that name is taken; a kept-aside file is never overwritten) and
//! truncates the file after its last complete line, under the writer lock. Torn lines are found
//! in bytes, not text: a write cut short can end in the middle of a character, and such a tear
//! is this repair's case, not the next one's.
//!
//! `bmad-mem doctor --repair-encoding <file>` moves the complete lines that are not valid UTF-8,
//! byte for byte and in order, into `<file>.invalid-<timestamp>` (named as above) and rewrites
//! the file without them (temporary file, sync, rename), under the writer lock; the other lines,
//! and a torn final line, stay as they were. Registries only: note files are Markdown a person
//! edits, and readers take them with the bad bytes replaced.
//!
//! After a merge, the check also reports conflict markers (the whole structure git writes: a
//! `<<<<<<< ` line, then `=======`, then `>>>>>>> `; `lint` reads them the same way) in the registries, the scores, the note files, the candidates and the views;
//! in each NDJSON registry, exact duplicate lines and ids with different versions, counted apart;
//! a `.gitattributes` naming the memory's merge drivers in a clone whose git config lacks them;
//! and, as a notice that never fails the check, records whose timestamp is older than an earlier
//! one's (a merge interleaves two clones' records; no reader depends on their order).
//!
//! Beside the scores, it checks the reinforcement records (`.bmad/records/reinforcements.ndjson`,
//! a registry like the others): each pattern's score against what its records replay to
//! (`reinforcements`). `bmad-mem doctor --rebuild-scores` rewrites, under the writer lock, the
//! scores the records disagree with.
//!
//! `bmad-mem doctor --dedupe <file>` moves the exact duplicate lines of a registry (the same
//! bytes as an earlier line; the first stays), in order, into `<file>.dupes-<timestamp>` and
//! rewrites the registry without them, under the writer lock. It refuses while the file holds
//! conflict markers or different versions of one id: those need a person.
//!
//! A repair that finds nothing to do (no torn line, no line that is not UTF-8, no duplicate, no
//! file at all) says so and exits 0, changing and creating nothing: a script may run it "just
//! in case" on a healthy store.
//!
//! The repairs re-check, just before changing the registry, that its length is still the one
//! read (a writer that ignored the lock may have added to it); if not, the kept-aside file is
//! removed again and the repair refused, to be run again. A refusal creates nothing. Nothing is
//! ever repaired automatically.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::actions::entries::candidate as entries;
use crate::actions::entries::{admit, views};
use crate::actions::receipts;
use crate::admin::archive;
use crate::admin::git as admin_git;
use crate::admin::git::hooks as git_hooks;
use crate::admin::lock;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{self, Value};
use crate::messages;
use crate::store::archived::Store;
use crate::store::fences;
use crate::store::git::{self, REGISTRY_DRIVER, VIEW_DRIVER};
use crate::store::journal::{self, InvalidLine};
use crate::store::layout::{
    CANDIDATES_VIEW, DEFAULT_KEEP, GITATTRIBUTES, INDEX_VIEW, LOCK_FILE, MERGED_REGISTRIES,
    NOTE_DIRS, NOTE_FILES, OUTCOMES, REGISTRY_CAP, SCORES,
};
use crate::store::lock::WriterLock;
use crate::store::paths::{
    Loose, read_loose, read_loose_bytes, read_registry, read_registry_bytes,
};
use crate::store::sections::heading_lines;

pub(crate) mod lines;
mod reinforcements;
mod repair;
mod report;

pub(crate) use crate::admin::doctor::lines::NDJSON_REGISTRIES;
use crate::admin::doctor::lines::{complete_len, conflict_openings, doubles, is_marker};
use crate::admin::doctor::repair::{dedupe, repair_encoding, repair_tail};
pub(crate) use crate::admin::doctor::report::DoctorReport;

/// Check every registry and note file (read-only); or repair a torn final line explicitly.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DoctorArgs {
    /// Move the torn final line of this registry (e.g. .bmad/memory/journal.ndjson) into
    /// <file>.torn-<timestamp> and truncate the file after its last complete line.
    #[arg(long = "repair-tail", value_name = "file", allow_hyphen_values = true)]
    pub repair_tail: Option<String>,
    /// Move the complete lines of this registry that are not valid UTF-8, byte for byte, into
    /// <file>.invalid-<timestamp> and rewrite the file without them.
    #[arg(
        long = "repair-encoding",
        value_name = "file",
        allow_hyphen_values = true,
        conflicts_with = "repair_tail"
    )]
    pub repair_encoding: Option<String>,
    /// Regenerate the generated views of the entries (.bmad/memory/CANDIDATES.md, INDEX.md)
    /// from their sources.
    #[arg(
        long = "rebuild-views",
        conflicts_with_all = ["repair_tail", "repair_encoding"]
    )]
    pub rebuild_views: bool,
    /// Remove the exact duplicate lines of this registry (the same bytes; the first copy stays),
    /// after moving them into <file>.dupes-<timestamp>; refused when one record has different
    /// versions.
    #[arg(
        long = "dedupe",
        value_name = "file",
        allow_hyphen_values = true,
        conflicts_with_all = ["repair_tail", "repair_encoding", "rebuild_views"]
    )]
    pub dedupe: Option<String>,
    /// Rewrite each pattern score that disagrees with its reinforcement records
    /// (.bmad/records/reinforcements.ndjson) to what the records replay to.
    #[arg(
        long = "rebuild-scores",
        conflicts_with_all = ["repair_tail", "repair_encoding", "rebuild_views", "dedupe"]
    )]
    pub rebuild_scores: bool,
}

/// Runs the check or the repair.
///
/// # Errors
/// For the repair: a file that is not a registry or cannot be written (one with nothing to
/// repair is a success that changes nothing). The check itself reports problems instead of
/// failing.
pub(crate) fn run(args: &DoctorArgs, ctx: &Context) -> Result<DoctorReport> {
    if let Some(file) = &args.repair_tail {
        return repair_tail(ctx, file);
    }
    if let Some(file) = &args.repair_encoding {
        return repair_encoding(ctx, file);
    }
    if let Some(file) = &args.dedupe {
        return dedupe(ctx, file);
    }
    if args.rebuild_scores {
        return reinforcements::rebuild(ctx);
    }
    if args.rebuild_views {
        let lock = WriterLock::acquire(&ctx.root)?;
        let rebuilt = views::rebuild(ctx, &lock)?;
        return Ok(DoctorReport {
            rebuilt: Some(rebuilt.into_iter().map(str::to_owned).collect()),
            ..DoctorReport::default()
        });
    }
    let mut report = DoctorReport::default();
    for rel in NDJSON_REGISTRIES {
        check_ndjson(&ctx.root, rel, &mut report);
    }
    check_archives(&ctx.root, &mut report);
    match receipts::read_store(&ctx.root) {
        Ok(_) => {}
        // The reader's own complaints about torn or unparseable lines are already reported.
        Err(e) if report.problems.iter().any(|p| p.file == OUTCOMES) => drop(e),
        Err(e) => report.problem(OUTCOMES, "receipt-integrity", e.to_string()),
    }
    check_scores(&ctx.root, &mut report);
    reinforcements::check(&ctx.root, &mut report);
    check_lock(ctx, &mut report);
    for dir in NOTE_DIRS {
        for name in NOTE_FILES {
            check_notes(&ctx.root, &format!("{dir}/{name}"), &mut report);
        }
    }
    if views::in_use(ctx) {
        check_entries(ctx, &mut report);
    }
    check_merge_leftovers(ctx, &mut report);
    check_merge_drivers(&ctx.root, &mut report);
    check_view_hooks(ctx, &mut report);
    Ok(report)
}

/// The governed entries: a candidate whose admission or refusal stopped between its two writes
/// (a crash), a pending candidate file that does not parse, and a generated view that no longer
/// says what its sources say.
fn check_entries(ctx: &Context, report: &mut DoctorReport) {
    let (candidates, unreadable) = match entries::pending(ctx) {
        Ok(found) => found,
        Err(e) => {
            report.problem(entries::CANDIDATES_DIR, "unreadable", e.to_string());
            return;
        }
    };
    report.checked.push(entries::CANDIDATES_DIR.to_owned());
    for (candidate, sha256) in &candidates {
        let file = entries::candidate_path(&candidate.id);
        match admit::unfinished(ctx, candidate, sha256) {
            Ok(None) => {}
            Ok(Some(admitted)) => report.problem(
                &file,
                "unfinished-decision",
                format!(
                    "candidate {} is already {}, but an earlier run stopped before recording it; run `bmad-mem admit --finish {}`",
                    candidate.id,
                    if admitted {
                        format!("in {}", candidate.kind.entries_file())
                    } else {
                        format!("refused in {}", entries::REFUSED_FILE)
                    },
                    candidate.id
                ),
            ),
            Err(e) => report.problem(&file, "unreadable", e.to_string()),
        }
    }
    for id in unreadable {
        report.problem(
            &entries::candidate_path(&id),
            "candidate-format",
            "not in the candidate format; fix it or remove it".to_owned(),
        );
    }
    match views::drift(ctx) {
        Ok(drifted) => {
            for (view, what) in drifted {
                report.checked.push(view.to_owned());
                report.problem(
                    view,
                    "view-drift",
                    format!("{what}; `bmad-mem doctor --rebuild-views` regenerates it"),
                );
            }
        }
        Err(e) => report.problem(views::INDEX_VIEW, "unreadable", e.to_string()),
    }
}

/// Reports the conflict markers in `bytes`, the content of `rel`.
fn check_markers(rel: &str, bytes: &[u8], report: &mut DoctorReport) {
    let openings = conflict_openings(bytes);
    if !openings.is_empty() {
        report.problem(
            rel,
            "conflict-markers",
            messages::conflict_markers(&openings),
        );
    }
}

/// What a merge can leave in a registry: conflict markers, records doubled or diverging under
/// one id, timestamps out of order (information only).
fn check_merged(rel: &str, bytes: &[u8], report: &mut DoctorReport) {
    check_markers(rel, bytes, report);
    let found = doubles(bytes);
    if !found.exact.is_empty() || !found.divergent.is_empty() {
        report.problem(
            rel,
            "duplicate-ids",
            messages::duplicate_ids(rel, found.exact.len(), &found.divergent),
        );
    }
    if found.out_of_order > 0 {
        report.notice(
            rel,
            "out-of-order",
            messages::out_of_order(found.out_of_order, found.first_out_of_order),
        );
    }
}

/// Conflict markers in the note files, the candidates and the generated views (the registries
/// are checked with their lines).
fn check_merge_leftovers(ctx: &Context, report: &mut DoctorReport) {
    for rel in [INDEX_VIEW, CANDIDATES_VIEW] {
        if let Ok(Loose::Read(bytes)) = read_loose_bytes(&ctx.root.join(rel), &ctx.root) {
            check_markers(rel, &bytes, report);
        }
    }
    if let Ok(Some(dir)) = entries::candidates_dir(ctx, false)
        && let Ok(stored) = entries::read_all(&dir)
    {
        for candidate in stored {
            check_markers(
                &entries::candidate_path(&candidate.id),
                &candidate.bytes,
                report,
            );
        }
    }
}

/// `.gitattributes` naming our merge drivers in a clone whose config does not define them: git
/// then merges those files as text, and every concurrent append conflicts.
fn check_merge_drivers(root: &Path, report: &mut DoctorReport) {
    let Ok(Some(bytes)) = read_registry_bytes(root, GITATTRIBUTES, true) else {
        return;
    };
    let text = String::from_utf8_lossy(&bytes);
    let named: Vec<&str> = [REGISTRY_DRIVER, VIEW_DRIVER]
        .into_iter()
        .filter(|driver| {
            let attribute = format!("merge={driver}");
            text.lines()
                .filter(|line| !line.trim_start().starts_with('#'))
                .any(|line| line.split_ascii_whitespace().any(|word| word == attribute))
        })
        .collect();
    if named.is_empty() || !git::looks_like_git(root) || git::probe(root) != git::Probe::WorkTree {
        return;
    }
    report.checked.push(GITATTRIBUTES.to_owned());
    let missing: Vec<&str> = named
        .into_iter()
        .filter(|driver| {
            matches!(
                git::config_get(root, &format!("merge.{driver}.driver"), false),
                Ok(None)
            )
        })
        .collect();
    if !missing.is_empty() {
        report.problem(
            GITATTRIBUTES,
            "merge-driver-missing",
            messages::driver_not_configured(&missing),
        );
    }
    // Set up by an earlier bmad-mem: files the driver merges now that git does not send it.
    let lacking = admin_git::missing_lines(&bytes);
    if !lacking.is_empty() {
        report.problem(
            GITATTRIBUTES,
            "merge-driver-lines",
            messages::driver_lines_missing(&lacking),
        );
    }
    // A registry added since `git setup` last ran (the reinforcement records) is merged as text.
    if text.contains(&format!("merge={REGISTRY_DRIVER}"))
        && let Ok(found) = git::merge_attributes(root, &MERGED_REGISTRIES)
    {
        let unmerged: Vec<String> = found
            .into_iter()
            .filter(|(_, value)| value != REGISTRY_DRIVER)
            .map(|(path, _)| path)
            .collect();
        if !unmerged.is_empty() {
            report.problem(
                GITATTRIBUTES,
                "merge-attribute-missing",
                messages::registries_not_merged(&unmerged),
            );
        }
    }
    if let Ok(Some(command)) =
        git::config_get(root, &format!("merge.{REGISTRY_DRIVER}.driver"), false)
        && let Some(bin) = driver_binary(&command)
        && Path::new(&bin).is_absolute()
        && !Path::new(&bin).is_file()
    {
        report.problem(
            GITATTRIBUTES,
            "merge-driver-gone",
            messages::driver_gone(&bin),
        );
    }
}

/// A clone set up to merge the memory (its config defines the views' driver) whose hooks do not
/// rebuild the views after a merge, checkout or rebase — set up before setup installed them, or
/// a hook replaced since — once the entry commands are in use.
fn check_view_hooks(ctx: &Context, report: &mut DoctorReport) {
    if !views::in_use(ctx)
        || !git::looks_like_git(&ctx.root)
        || !matches!(
            git::config_get(&ctx.root, &format!("merge.{VIEW_DRIVER}.driver"), false),
            Ok(Some(_))
        )
    {
        return;
    }
    let Some(place) = git::hooks_place(&ctx.root) else {
        return;
    };
    let missing = git_hooks::missing(&place);
    if !missing.is_empty() {
        report.problem(
            &place.shown,
            "view-hooks-missing",
            messages::view_hooks_missing(&missing),
        );
    }
}

/// The binary's path in a driver command as `git setup` writes it
/// (`<bin> merge-driver %O %A %B %P`, `<bin>` single-quoted when needed and its `%` doubled);
/// `None` for a command written otherwise.
fn driver_binary(command: &str) -> Option<String> {
    let word = command.strip_suffix(" merge-driver %O %A %B %P")?;
    let word = match word.strip_prefix('\'').and_then(|w| w.strip_suffix('\'')) {
        Some(inner) if !inner.replace("'\\''", "").contains('\'') => inner.replace("'\\''", "'"),
        Some(_) => return None,
        None if word.contains(['\'', '"', '\\', ' ', '$', '`']) => return None,
        None => word.to_owned(),
    };
    Some(word.replace("%%", "%"))
}

/// Reads a file for the check; a refusal becomes a problem.
fn read(root: &Path, rel: &str, report: &mut DoctorReport) -> Option<String> {
    record(rel, read_registry(root, rel, true), report)
}

/// Reads a registry's bytes for the check (a torn tail may cut a character in two); a refusal
/// becomes a problem.
fn read_bytes(root: &Path, rel: &str, report: &mut DoctorReport) -> Option<Vec<u8>> {
    record(rel, read_registry_bytes(root, rel, true), report)
}

/// Notes a file that was there as checked, and a refusal to read it as a problem.
fn record<T>(rel: &str, read: Result<Option<T>>, report: &mut DoctorReport) -> Option<T> {
    match read {
        Ok(Some(content)) => {
            report.checked.push(rel.to_owned());
            Some(content)
        }
        Ok(None) => None,
        Err(e) => {
            report.checked.push(rel.to_owned());
            let kind = if matches!(e, Error::SourceNotRegular) {
                "unreadable-or-over-cap"
            } else {
                "unreadable"
            };
            report.problem(rel, kind, e.to_string());
            None
        }
    }
}

fn check_ndjson(root: &Path, rel: &str, report: &mut DoctorReport) {
    let Some(bytes) = read_bytes(root, rel, report) else {
        return;
    };
    let complete = complete_len(&bytes);
    if complete < bytes.len() {
        report.problem(
            rel,
            "torn-final-line",
            format!(
                "incomplete final line at byte {complete} ({} bytes); `bmad-mem doctor --repair-tail {rel}` keeps it aside",
                bytes.len() - complete
            ),
        );
    }
    let invalid = journal::invalid_lines(&bytes);
    if !invalid.is_empty() {
        report.problem(rel, "invalid-utf8", invalid_message(rel, &invalid));
    }
    let bad: Vec<String> = bytes[..complete]
        .split(|&b| b == b'\n')
        .enumerate()
        // A line that is not UTF-8 is reported above, not again as unparseable.
        .filter_map(|(i, line)| Some((i, std::str::from_utf8(line).ok()?)))
        .filter(|(_, line)| !crate::js::text::trim(line).is_empty())
        // Conflict markers are reported as such.
        .filter(|(_, line)| !is_marker(line.as_bytes()))
        .filter(|(_, line)| {
            !matches!(
                json::parse(crate::js::text::trim(line)),
                Ok(Value::Object(_))
            )
        })
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    if !bad.is_empty() {
        report.problem(
            rel,
            "unparseable-lines",
            format!("lines that are not JSON objects: {}", bad.join(", ")),
        );
    }
    check_merged(rel, &bytes, report);
    check_cap(rel, bytes.len(), report);
}

/// A registry at or near its 2 MiB cap; for the journal and the promotions, the command that
/// makes room.
fn check_cap(rel: &str, len: usize, report: &mut DoctorReport) {
    let len = len as u64;
    if len * 10 < REGISTRY_CAP * 9 {
        return;
    }
    let Some(store) = Store::of_file(rel) else {
        report.warning(
            rel,
            "near-cap",
            format!("{len} bytes of {REGISTRY_CAP}: archive it before it fills"),
        );
        return;
    };
    let command = format!(
        "`bmad-mem archive {}` moves all but the newest {} records into {}/",
        store.name(),
        DEFAULT_KEEP,
        store.archive_dir()
    );
    if len >= REGISTRY_CAP {
        let effect = if store == Store::Reinforcements {
            messages::RECORDS_FULL_EFFECT
        } else {
            "every write is refused"
        };
        report.problem(
            rel,
            "at-cap",
            format!("{len} bytes of {REGISTRY_CAP}: full, {effect}; {command}"),
        );
    } else {
        report.warning(
            rel,
            "near-cap",
            format!("{len} bytes of {REGISTRY_CAP}: archive it before it fills; {command}"),
        );
    }
}

/// Archives interrupted after the archive file was written and before the live file was cut
/// back: their records stand in both files until `bmad-mem archive <store>` completes them.
fn check_archives(root: &Path, report: &mut DoctorReport) {
    for store in Store::ALL {
        match archive::pending(root, store) {
            Ok(pending) => {
                for (file, records) in pending {
                    report.checked.push(file.clone());
                    report.problem(
                        &file,
                        "unfinished-archive",
                        format!(
                            "its {records} record(s) are still in {} too (an archive was interrupted); `bmad-mem archive {}` completes it",
                            store.rel(),
                            store.name()
                        ),
                    );
                }
            }
            // The live file's own problems, or the archive folder's, are already reported.
            Err(_)
                if report
                    .problems
                    .iter()
                    .any(|p| p.file == store.rel() || p.file == store.archive_dir()) => {}
            Err(e) => report.problem(store.archive_dir(), "unreadable", e.to_string()),
        }
    }
}

/// How many lines that are not UTF-8 a problem names; the rest are counted.
const NAMED_LINES: usize = 10;

/// `lines that are not valid UTF-8: line 2 at byte 61, …`: each line's number and the file
/// offset of its first invalid byte, the first [`NAMED_LINES`] of them.
fn invalid_message(rel: &str, invalid: &[InvalidLine]) -> String {
    let mut message = String::from("lines that are not valid UTF-8: ");
    for (i, line) in invalid.iter().take(NAMED_LINES).enumerate() {
        if i > 0 {
            message.push_str(", ");
        }
        let _ = write!(message, "line {} at byte {}", line.number, line.at);
    }
    if invalid.len() > NAMED_LINES {
        let _ = write!(message, " and {} more", invalid.len() - NAMED_LINES);
    }
    let _ = write!(
        message,
        "; `bmad-mem doctor --repair-encoding {rel}` moves them aside"
    );
    message
}

fn check_scores(root: &Path, report: &mut DoctorReport) {
    let Some(text) = read(root, SCORES, report) else {
        return;
    };
    check_markers(SCORES, text.as_bytes(), report);
    match json::parse(&text) {
        Ok(Value::Object(_)) => {}
        Ok(_) => report.problem(
            SCORES,
            "not-an-object",
            "not a JSON object; reinforce would restart from priors".to_owned(),
        ),
        Err(e) => report.problem(
            SCORES,
            "unparseable",
            format!("{e}; reinforce would restart from priors"),
        ),
    }
}

fn check_lock(ctx: &Context, report: &mut DoctorReport) {
    match lock::inspect(&ctx.root, ctx.now.ms) {
        Ok(None) => {}
        Ok(Some(state)) => {
            report.checked.push(LOCK_FILE.to_owned());
            if state.alive == Some(false) {
                report.problem(
                    LOCK_FILE,
                    "stale-lock",
                    format!(
                        "owner is not running on this host; `bmad-mem lock --recover --expect {}` removes it",
                        state.sha256
                    ),
                );
            } else if state.alive.is_none() && state.is_other_host() {
                report.problem(
                    LOCK_FILE,
                    "foreign-lock",
                    format!(
                        "owner is on host {}, where it cannot be checked from here; if no writer runs there, `bmad-mem lock --recover --expect {} --other-host-is-gone` removes it",
                        state.host().unwrap_or_default(),
                        state.sha256
                    ),
                );
            } else if !state.has_readable_owner() {
                report.problem(
                    LOCK_FILE,
                    "unreadable-lock",
                    "owner is unreadable; check that no writer runs before removing it".to_owned(),
                );
            }
        }
        Err(e) => report.problem(LOCK_FILE, "unreadable", e.to_string()),
    }
}

/// Notes are read as recall, status and brief read them (the loose reader), so that every
/// command agrees on which note files count: one they skip is a problem here.
fn check_notes(root: &Path, rel: &str, report: &mut DoctorReport) {
    let text = match read_loose(&root.join(rel), root) {
        Ok(Loose::Read(text)) => text,
        Ok(Loose::Missing) => return,
        Ok(Loose::Skipped(skip)) => {
            report.checked.push(rel.to_owned());
            report.problem(rel, "skipped", skip.to_string());
            return;
        }
        Err(e) => {
            report.checked.push(rel.to_owned());
            report.problem(rel, "unreadable", e.to_string());
            return;
        }
    };
    report.checked.push(rel.to_owned());
    check_markers(rel, text.as_bytes(), report);
    let headings = heading_lines(&text);
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (_, heading) in &headings {
        *counts.entry(heading).or_default() += 1;
    }
    let mut duplicates: Vec<&str> = headings
        .iter()
        .map(|(_, h)| *h)
        .filter(|h| counts[h] > 1)
        .collect();
    let mut seen = std::collections::HashSet::new();
    duplicates.retain(|h| seen.insert(*h));
    for heading in duplicates {
        report.problem(
            rel,
            "duplicate-heading",
            format!(
                "\"{heading}\" heads {} sections; observe cannot target it",
                counts[heading]
            ),
        );
    }
    let found = fences::check(&text);
    for unclosed in found.unclosed {
        let place = unclosed
            .heading
            .map(|heading| format!(" in § {heading}"))
            .unwrap_or_default();
        report.warning(
            rel,
            "unclosed-fence",
            format!(
                "fence opened at line {}{place} is never closed",
                unclosed.line
            ),
        );
    }
    for (line, heading) in found.in_code {
        report.warning(
            rel,
            "heading-in-code",
            format!(
                "line {line}: \"### {heading}\" is inside fenced code but still starts a section"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin::doctor::repair::check_unchanged;
    use std::fs::OpenOptions;
    use std::io::Write as _;

    #[test]
    fn the_binary_of_a_driver_command_setup_wrote() {
        let tail = " merge-driver %O %A %B %P";
        for (command, bin) in [
            ("bmad-mem", Some("bmad-mem")),
            ("/usr/bin/bmad-mem", Some("/usr/bin/bmad-mem")),
            ("'/opt/my tools/bmad-mem'", Some("/opt/my tools/bmad-mem")),
            (r"'/o'\''k 100%%/bmad-mem'", Some("/o'k 100%/bmad-mem")),
            ("'/a' '/b'", None),
            ("env X=1 bmad-mem", None),
        ] {
            assert_eq!(
                driver_binary(&format!("{command}{tail}")).as_deref(),
                bin,
                "{command}"
            );
        }
        assert_eq!(driver_binary("my-driver %O %A %B"), None);
    }

    #[test]
    fn a_registry_that_changed_length_is_not_truncated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.ndjson");
        std::fs::write(&path, "{}\n{\"a\"").unwrap();
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        check_unchanged(&file, &path, "j.ndjson", 7).unwrap();
        // Another process appends after the read (the handle sees the file as it is now).
        OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b":1}\n")
            .unwrap();
        let e = check_unchanged(&file, &path, "j.ndjson", 7).unwrap_err();
        assert_eq!(
            e.to_string(),
            "j.ndjson changed during the repair (7 bytes read, 11 now); nothing was changed, run \
             the repair again."
        );
    }
}
