//! `doctor`: a read-only health check of every registry and note file, and the one explicit,
//! lossless repair of a torn final line.
//!
//! `bmad-mem doctor` reports, without changing anything: a torn last line (with its byte
//! offset), lines that do not parse (with their line numbers), a file at, near or over the 2 MiB
//! cap (for the journal and the promotions, naming the `archive` command that makes room) or one
//! the confined reader refuses, an interrupted archive (records in both an archive file and the
//! live file), a receipt store that fails its integrity check, a writer lock whose owner is dead,
//! and in the note files `###` headings used twice (which `observe` cannot target) and `###`
//! lines inside fenced code (bmad-plus cuts sections there too). It exits 0 when healthy, 1
//! otherwise.
//!
//! `bmad-mem doctor --repair-tail <file>` moves a torn final line into `<file>.torn-<timestamp>`
//! (`-1`, `-2`, … appended when that name is taken; a kept-aside file is never overwritten) and
//! truncates the file after its last complete line, under the writer lock. Torn lines are found
//! in bytes, not text: a write cut short can end in the middle of a character. A refusal creates
//! nothing. Nothing is ever repaired automatically.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag};

use crate::archive;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{self, Object, Value};
use crate::lock;
use crate::output::Report;
use crate::recall::{NOTE_DIRS, NOTE_FILES};
use crate::receipts::{self, OUTCOMES};
use crate::reinforce::{PROMOTIONS, SCORES};
use crate::store::paths::{REGISTRY_CAP, confine, read_confined_bytes, read_registry};
use crate::store::sections::heading_lines;
use crate::store::{LOCK_FILE, WriterLock};
use crate::write::JOURNAL;

/// The append-only registries, the only files `--repair-tail` accepts.
const NDJSON_REGISTRIES: [&str; 3] = [JOURNAL, PROMOTIONS, OUTCOMES];

/// Check every registry and note file (read-only); or repair a torn final line explicitly.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DoctorArgs {
    /// Move the torn final line of this registry (e.g. .bmad/memory/journal.ndjson) into
    /// <file>.torn-<timestamp> and truncate the file after its last complete line.
    #[arg(long = "repair-tail", value_name = "file", allow_hyphen_values = true)]
    pub repair_tail: Option<String>,
}

/// One finding.
#[derive(Debug, Clone)]
pub struct Problem {
    pub file: String,
    pub kind: &'static str,
    pub message: String,
}

/// What the check found, or what the repair did.
#[derive(Debug, Default)]
pub struct DoctorReport {
    pub checked: Vec<String>,
    pub problems: Vec<Problem>,
    /// For `--repair-tail`: (file, kept-aside file, bytes moved).
    pub repaired: Option<(String, String, usize)>,
}

/// Runs the check or the repair.
///
/// # Errors
/// For the repair: a file that is not a registry, has no torn line, or cannot be written. The
/// check itself reports problems instead of failing.
pub fn run(args: &DoctorArgs, ctx: &Context) -> Result<DoctorReport> {
    if let Some(file) = &args.repair_tail {
        return repair_tail(ctx, file);
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
    check_lock(ctx, &mut report);
    for dir in NOTE_DIRS {
        for name in NOTE_FILES {
            check_notes(&ctx.root, &format!("{dir}/{name}"), &mut report);
        }
    }
    Ok(report)
}

impl DoctorReport {
    fn problem(&mut self, file: &str, kind: &'static str, message: String) {
        self.problems.push(Problem {
            file: file.to_owned(),
            kind,
            message,
        });
    }
}

/// Reads a file for the check; a refusal becomes a problem.
fn read(root: &Path, rel: &str, report: &mut DoctorReport) -> Option<String> {
    record(rel, read_registry(root, rel, true), report)
}

/// Reads a registry's bytes for the check (a torn tail may cut a character in two); a refusal
/// becomes a problem.
fn read_bytes(root: &Path, rel: &str, report: &mut DoctorReport) -> Option<Vec<u8>> {
    let read = confine(root, rel).and_then(|path| read_confined_bytes(&path, true));
    record(rel, read, report)
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

/// The length of the part of `bytes` that ends with its last `\n` (0 when there is none).
fn complete_len(bytes: &[u8]) -> usize {
    bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
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
    match std::str::from_utf8(&bytes[..complete]) {
        Ok(text) => {
            let bad: Vec<String> = text
                .split('\n')
                .enumerate()
                .filter(|(_, line)| !crate::js::text::trim(line).is_empty())
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
        }
        Err(_) => report.problem(rel, "unreadable", Error::SourceNotUtf8.to_string()),
    }
    check_cap(rel, bytes.len(), report);
}

/// A registry at or near its 2 MiB cap; for the journal and the promotions, the command that
/// makes room.
fn check_cap(rel: &str, len: usize, report: &mut DoctorReport) {
    let len = len as u64;
    if len * 10 < REGISTRY_CAP * 9 {
        return;
    }
    let Some(store) = archive::Store::of_file(rel) else {
        report.problem(
            rel,
            "near-cap",
            format!("{len} bytes of {REGISTRY_CAP}: archive it before it fills"),
        );
        return;
    };
    let command = format!(
        "`bmad-mem archive {}` moves all but the newest {} records into {}/",
        store.name(),
        archive::DEFAULT_KEEP,
        archive::ARCHIVE_DIR
    );
    if len >= REGISTRY_CAP {
        report.problem(
            rel,
            "at-cap",
            format!("{len} bytes of {REGISTRY_CAP}: full, every write is refused; {command}"),
        );
    } else {
        report.problem(
            rel,
            "near-cap",
            format!("{len} bytes of {REGISTRY_CAP}: archive it before it fills; {command}"),
        );
    }
}

/// Archives interrupted after the archive file was written and before the live file was cut
/// back: their records stand in both files until `bmad-mem archive <store>` completes them.
fn check_archives(root: &Path, report: &mut DoctorReport) {
    for store in archive::Store::ALL {
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
                    .any(|p| p.file == store.rel() || p.file == archive::ARCHIVE_DIR) => {}
            Err(e) => report.problem(archive::ARCHIVE_DIR, "unreadable", e.to_string()),
        }
    }
}

fn check_scores(root: &Path, report: &mut DoctorReport) {
    let Some(text) = read(root, SCORES, report) else {
        return;
    };
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

fn check_notes(root: &Path, rel: &str, report: &mut DoctorReport) {
    let Some(text) = read(root, rel, report) else {
        return;
    };
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
    let fences: Vec<std::ops::Range<usize>> = Parser::new(&text)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => Some(range),
            _ => None,
        })
        .collect();
    for (offset, heading) in headings {
        if fences.iter().any(|f| f.contains(&offset)) {
            let line = text[..offset].matches('\n').count() + 1;
            report.problem(
                rel,
                "heading-in-code",
                format!("line {line}: \"### {heading}\" is inside fenced code but still starts a section"),
            );
        }
    }
}

fn repair_tail(ctx: &Context, rel: &str) -> Result<DoctorReport> {
    if !NDJSON_REGISTRIES.contains(&rel) {
        return Err(Error::refused(format!(
            "--repair-tail takes one of {}",
            NDJSON_REGISTRIES.join(", ")
        )));
    }
    // Looked at before the lock, so that refusing creates nothing (not even the memory folder),
    // then again under it, where it counts.
    torn_tail(ctx, rel)?;
    let lock = WriterLock::acquire(&ctx.root)?;
    let (path, bytes, complete) = torn_tail(ctx, rel)?;
    let torn = &bytes[complete..];
    let stamp = ctx.now.file_stamp();
    let (aside_rel, mut file) = create_aside(ctx, &format!("{rel}.torn-{stamp}"))?;
    let aside = confine(&ctx.root, &aside_rel)?;
    file.write_all(torn)
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io("cannot write", &aside, e))?;
    // Only once the torn bytes are safe beside it is the registry cut back.
    let registry = OpenOptions::new()
        .write(true)
        .open(&path)
        .map_err(|e| Error::io("cannot open", &path, e))?;
    registry
        .set_len(complete as u64)
        .and_then(|()| registry.sync_all())
        .map_err(|e| Error::io("cannot truncate", &path, e))?;
    drop(lock);
    Ok(DoctorReport {
        repaired: Some((rel.to_owned(), aside_rel, torn.len())),
        ..DoctorReport::default()
    })
}

/// The registry's path, bytes and complete length, refused unless it has a torn final line.
fn torn_tail(ctx: &Context, rel: &str) -> Result<(PathBuf, Vec<u8>, usize)> {
    let path = confine(&ctx.root, rel)?;
    let bytes = read_confined_bytes(&path, true)?.unwrap_or_default();
    let complete = complete_len(&bytes);
    if complete == bytes.len() {
        return Err(Error::refused(format!(
            "{rel} has no incomplete final line; nothing to repair."
        )));
    }
    Ok((path, bytes, complete))
}

/// Creates `<base>` exclusively, or `<base>-1`, `<base>-2`, … when it exists (two repairs at
/// the same instant): a kept-aside file is never overwritten.
fn create_aside(ctx: &Context, base: &str) -> Result<(String, std::fs::File)> {
    for n in 0_u32.. {
        let rel = if n == 0 {
            base.to_owned()
        } else {
            format!("{base}-{n}")
        };
        let path = confine(&ctx.root, &rel)?;
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok((rel, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Error::io("cannot create", &path, e)),
        }
    }
    unreachable!("an unbounded counter always finds a free name")
}

impl Report for DoctorReport {
    fn to_json(&self) -> Value {
        if let Some((file, aside, bytes)) = &self.repaired {
            #[allow(clippy::cast_precision_loss)] // at most 2 MiB
            let bytes = *bytes as f64;
            return Value::Object(
                Object::new()
                    .with("repaired", file.as_str())
                    .with("keptAs", aside.as_str())
                    .with("bytes", bytes),
            );
        }
        let problems: Vec<Value> = self
            .problems
            .iter()
            .map(|p| {
                Value::Object(
                    Object::new()
                        .with("file", p.file.as_str())
                        .with("kind", p.kind)
                        .with("message", p.message.as_str()),
                )
            })
            .collect();
        Value::Object(
            Object::new()
                .with("healthy", self.problems.is_empty())
                .with(
                    "checked",
                    self.checked.iter().map(Value::from).collect::<Vec<_>>(),
                )
                .with("problems", problems),
        )
    }

    fn render_human(&self) -> String {
        if let Some((file, aside, bytes)) = &self.repaired {
            return format!(
                "mem doctor: moved the {bytes}-byte torn final line of {file} into {aside}\n"
            );
        }
        if self.problems.is_empty() {
            return format!(
                "mem doctor: healthy ({} file(s) checked)\n",
                self.checked.len()
            );
        }
        let mut out = format!(
            "mem doctor: {} problem(s) in {} file(s) checked\n",
            self.problems.len(),
            self.checked.len()
        );
        for p in &self.problems {
            let _ = writeln!(out, "  {} [{}]: {}", p.file, p.kind, p.message);
        }
        out
    }

    fn exit_code(&self) -> u8 {
        u8::from(!self.problems.is_empty())
    }
}
