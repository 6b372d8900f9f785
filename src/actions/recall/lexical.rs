//! Lexical recall: reads the journal and the note files within the loose reader's bounds and
//! keeps the best `--limit` candidates, on two threads for a large store (docs §5).

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::actions::recall::counter::QueryCounter;
use crate::actions::recall::score::{
    Best, Request, Scored, note_files, query_tokens, score_events_from, score_some_sections, sort,
};
use crate::actions::recall::shared::{Part, SharedNotes, Spare, is_large};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::store::archived::{Store, archive_names};
use crate::store::layout::{ARCHIVE_DIR, JOURNAL};
use crate::store::parallel::on_two_threads;
use crate::store::paths::{Loose, Skip};

/// One piece of [`lexical`]'s work.
#[derive(Debug, Clone, Copy)]
enum Job {
    /// The events of event file `.0`: archives (with `--include-archive`), then the journal.
    Events(usize),
    /// The sections of note file `.0` that [`Part`] `.1` names.
    Note(usize, Part),
}

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
    let is_parallel = is_large(
        events
            .iter()
            .map(|(_, path)| path.as_path())
            .chain(notes.iter().map(|n| n.path.as_path())),
    );
    let parts = Part::of_file(is_parallel);
    // In file order: the event files, then each note file (whole, or its two halves).
    let jobs: Vec<Job> = (0..events.len())
        .map(Job::Events)
        .chain((0..notes.len()).flat_map(|i| parts.iter().map(move |&part| Job::Note(i, part))))
        .collect();
    let spare = Spare::default();
    let event_skips: Vec<OnceLock<Skip>> = events.iter().map(|_| OnceLock::new()).collect();
    let shared = SharedNotes::new(&notes, parts.len(), &spare);
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
            Job::Note(i, part) => {
                shared.with_text(i, |text| {
                    score_some_sections(&notes[i], part.cut(text).1, &counter, &mut scored);
                })?;
            }
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
        warnings: skip_warnings(&events, &event_skips, &shared),
    })
}

/// A warning for each file [`lexical`] skipped, in file order: event files (the live journal
/// named as such, an archive by its file name), then note files.
fn skip_warnings(
    events: &[(Option<String>, PathBuf)],
    event_skips: &[OnceLock<Skip>],
    notes: &SharedNotes<'_>,
) -> Vec<String> {
    let event_warnings = events
        .iter()
        .zip(event_skips)
        .filter_map(|((source, _), skip)| {
            skip.get()
                .map(|skip| skip.warning(source.as_deref().unwrap_or(JOURNAL)))
        });
    event_warnings.chain(notes.warnings()).collect()
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
