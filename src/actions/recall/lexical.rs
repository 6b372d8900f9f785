//! Lexical recall: reads the journal and the note files within the loose reader's bounds and
//! keeps the best `--limit` candidates, on two threads for a large store (docs §5).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock};

use crate::actions::recall::counter::QueryCounter;
use crate::actions::recall::score::{
    Best, NoteFile, Request, Scored, note_files, query_tokens, score_events_from,
    score_some_sections, sort,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::store::archived::{Store, archive_names};
use crate::store::layout::{ARCHIVE_DIR, JOURNAL};
use crate::store::parallel::on_two_threads;
use crate::store::paths::{Loose, Skip, read_loose_into};
use crate::store::sections::{sections, sections_before, split_point};

/// A store this large is scored on two threads (below it, starting one costs more than it saves).
const PARALLEL_FROM_BYTES: u64 = 1024 * 1024;

/// One piece of [`lexical`]'s work.
#[derive(Debug, Clone, Copy)]
enum Job {
    /// The events of event file `.0`: archives (with `--include-archive`), then the journal.
    Events(usize),
    /// The sections of note file `.0` that [`Part`] `.1` names.
    Note(usize, Part),
}

/// Which sections of a note file a [`Job`] scores.
#[derive(Debug, Clone, Copy)]
enum Part {
    Whole,
    /// Those before the file's middle heading.
    First,
    /// Those from the file's middle heading on.
    Second,
}

/// A note file as read once for all its jobs: its text (taken back by the last job to be
/// done with it, for the next file to be read into), or the read error (taken by the first job
/// to see it, which reports it).
type SharedNote = std::result::Result<Loose<RwLock<String>>, Mutex<Option<Error>>>;

/// What [`lexical`] found: the best candidates, and a warning for each file it skipped.
#[derive(Debug)]
pub(crate) struct Found {
    pub scored: Vec<Scored>,
    pub warnings: Vec<String>,
}

/// Lexical recall: reads as bmad-plus does (invalid UTF-8 replaced; a missing file skipped),
/// within the loose reader's bounds (a FIFO, a device, a file over 64 MiB or a link leaving
/// the project is skipped with a warning), scores every candidate, and returns the best
/// `--limit` of them in the order a stable sort of all of them gives.
///
/// On a large store the work is shared by two threads: the journal, then each note file in two
/// halves cut at a section heading (read once, the first half's thread reading it), so that
/// both threads stay busy to the end. A text a job is done with gives its memory to the next
/// file to be read ([`Spare`]). Each job keeps its own best `--limit` ([`Best`]); their lists
/// are then put back in file order and sorted stably, so the result is the one a single pass
/// would give: a candidate among the best of all is among the best of its job.
///
/// # Errors
/// A directory where a file should be, or another read error (the first in file order).
pub(crate) fn lexical(ctx: &Context, request: &Request, portfolio: Option<&str>) -> Result<Found> {
    let query = query_tokens(&request.query);
    let counter = QueryCounter::new(&query);
    let events = event_files(ctx, request.include_archive)?;
    let notes = note_files(ctx, portfolio);
    let bytes: u64 = events
        .iter()
        .map(|(_, path)| path)
        .chain(notes.iter().map(|n| &n.path))
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let is_parallel = bytes >= PARALLEL_FROM_BYTES;
    // In file order: the event files, then each note file (whole, or its two halves).
    let jobs: Vec<Job> = (0..events.len())
        .map(Job::Events)
        .chain((0..notes.len()).flat_map(|i| {
            if is_parallel {
                vec![Job::Note(i, Part::First), Job::Note(i, Part::Second)]
            } else {
                vec![Job::Note(i, Part::Whole)]
            }
        }))
        .collect();
    let spare = Spare::default();
    let event_skips: Vec<OnceLock<Skip>> = events.iter().map(|_| OnceLock::new()).collect();
    let texts: Vec<OnceLock<SharedNote>> = notes.iter().map(|_| OnceLock::new()).collect();
    let jobs_left: Vec<AtomicUsize> = notes
        .iter()
        .map(|_| AtomicUsize::new(if is_parallel { 2 } else { 1 }))
        .collect();
    let shared_text = |i: usize| {
        texts[i].get_or_init(|| match spare.read(&notes[i].path, &notes[i].within) {
            Ok(text) => Ok(text.map(RwLock::new)),
            Err(e) => Err(Mutex::new(Some(e))),
        })
    };
    let run = |job: Job| -> Result<Vec<Scored>> {
        let mut scored = Best::new(request.limit);
        match job {
            Job::Events(i) => match spare.read(&events[i].1, &ctx.root)? {
                Loose::Read(text) => {
                    score_events_from(
                        events[i].0.as_deref(),
                        &text,
                        &query,
                        ctx.now.ms,
                        &mut scored,
                    );
                    spare.give_back(text);
                }
                Loose::Missing => {}
                Loose::Skipped(skip) => {
                    let _ = event_skips[i].set(skip);
                }
            },
            Job::Note(i, part) => match shared_text(i) {
                Ok(Loose::Missing | Loose::Skipped(_)) => {}
                Ok(Loose::Read(shared)) => {
                    {
                        let text = shared.read().unwrap_or_else(PoisonError::into_inner);
                        let split = || split_point(&text, text.len() / 2);
                        let cut = match part {
                            Part::Whole => sections(&text),
                            Part::First => sections_before(&text, split()),
                            Part::Second => sections(&text[split()..]),
                        };
                        score_some_sections(&notes[i], cut, &counter, &mut scored);
                    }
                    if jobs_left[i].fetch_sub(1, Ordering::AcqRel) == 1 {
                        let mut text = shared.write().unwrap_or_else(PoisonError::into_inner);
                        spare.give_back(std::mem::take(&mut *text));
                    }
                }
                Err(error) => {
                    if let Some(e) = error.lock().unwrap_or_else(PoisonError::into_inner).take() {
                        return Err(e);
                    }
                }
            },
        }
        Ok(scored.into_sorted())
    };
    let mut scored = Vec::new();
    for result in run_all(&jobs, is_parallel, run) {
        scored.extend(result?);
    }
    sort(&mut scored);
    scored.truncate(request.limit);
    Ok(Found {
        scored,
        warnings: skip_warnings(&events, &event_skips, &notes, &texts),
    })
}

/// A warning for each file [`lexical`] skipped, in file order: event files (the live journal
/// named as such, an archive by its file name), then note files.
fn skip_warnings(
    events: &[(Option<String>, PathBuf)],
    event_skips: &[OnceLock<Skip>],
    notes: &[NoteFile],
    texts: &[OnceLock<SharedNote>],
) -> Vec<String> {
    let event_warnings = events
        .iter()
        .zip(event_skips)
        .filter_map(|((source, _), skip)| {
            skip.get()
                .map(|skip| skip.warning(source.as_deref().unwrap_or(JOURNAL)))
        });
    let note_warnings = notes
        .iter()
        .zip(texts)
        .filter_map(|(note, text)| match text.get() {
            Some(Ok(Loose::Skipped(skip))) => Some(skip.warning(&note.source_file)),
            _ => None,
        });
    event_warnings.chain(note_warnings).collect()
}

/// The files whose events are candidates, in candidate order: with `include_archive`, the
/// journal archives (oldest first, each with its name), then the live journal.
///
/// # Errors
/// An archive folder that cannot be listed.
fn event_files(ctx: &Context, include_archive: bool) -> Result<Vec<(Option<String>, PathBuf)>> {
    let mut files = Vec::new();
    if include_archive {
        let dir = ctx.root.join(ARCHIVE_DIR);
        let names =
            archive_names(&dir, Store::Journal).map_err(|e| Error::io("cannot list", &dir, e))?;
        files.extend(names.into_iter().map(|name| {
            let path = dir.join(&name);
            (Some(name), path)
        }));
    }
    files.push((None, ctx.root.join(JOURNAL)));
    Ok(files)
}

/// `run` of every job, in job order: on two threads, each taking the next job left, when
/// `parallel`.
fn run_all<T: Send>(jobs: &[Job], parallel: bool, run: impl Fn(Job) -> T + Sync) -> Vec<T> {
    if !parallel {
        return jobs.iter().map(|&job| run(job)).collect();
    }
    on_two_threads(jobs.len(), |i| run(jobs[i]))
}

/// Buffers of texts read and done with, for the next file to be read into.
#[derive(Debug, Default)]
struct Spare(Mutex<Vec<Vec<u8>>>);

impl Spare {
    /// [`read_loose_into`] a spare buffer, or a new one.
    fn read(&self, path: &Path, within: &Path) -> Result<Loose<String>> {
        let buffer = self.0.lock().unwrap_or_else(PoisonError::into_inner).pop();
        read_loose_into(path, within, buffer.unwrap_or_default())
    }

    /// Keeps `text`'s memory for the next read.
    fn give_back(&self, text: String) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(text.into_bytes());
    }
}
