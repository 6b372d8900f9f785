//! Note files read once for all the jobs that share them (a large file is scored in two halves,
//! each its own job), and the memory of texts done with, handed on to the next file to be read.
//!
//! Reading a 2 MiB file into fresh memory costs the kernel a new page for every 4 KiB, about as
//! much as reading it; recall goes through many such files one after another, so each read
//! reuses the memory of a text already done with.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock};

use crate::actions::recall::score::NoteFile;
use crate::error::{Error, Result};
use crate::store::paths::{Loose, read_loose_into};
use crate::store::sections::{Section, sections, sections_before, split_point};

/// Buffers of texts read and done with, for the next file to be read into.
#[derive(Debug, Default)]
pub(crate) struct Spare(Mutex<Vec<Vec<u8>>>);

impl Spare {
    /// [`read_loose_into`] a spare buffer, or a new one.
    pub(crate) fn read(&self, path: &Path, within: &Path) -> Result<Loose<String>> {
        let buffer = self.0.lock().unwrap_or_else(PoisonError::into_inner).pop();
        read_loose_into(path, within, buffer.unwrap_or_default())
    }

    /// Keeps `text`'s memory for the next read.
    pub(crate) fn give_back(&self, text: String) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(text.into_bytes());
    }
}

/// A note file as read once for all its jobs: its text (taken back by the last job to be
/// done with it, for the next file to be read into), or the read error (taken by the first job
/// to see it, which reports it).
type SharedNote = std::result::Result<Loose<RwLock<String>>, Mutex<Option<Error>>>;

/// The note files of a recall, each read by the first of its jobs to run.
#[derive(Debug)]
pub(crate) struct SharedNotes<'n> {
    notes: &'n [NoteFile],
    spare: &'n Spare,
    texts: Vec<OnceLock<SharedNote>>,
    jobs_left: Vec<AtomicUsize>,
}

impl<'n> SharedNotes<'n> {
    /// `notes`, each to be used by `jobs_per_file` jobs, read into `spare`'s buffers.
    pub(crate) fn new(notes: &'n [NoteFile], jobs_per_file: usize, spare: &'n Spare) -> Self {
        Self {
            notes,
            spare,
            texts: notes.iter().map(|_| OnceLock::new()).collect(),
            jobs_left: notes
                .iter()
                .map(|_| AtomicUsize::new(jobs_per_file))
                .collect(),
        }
    }

    /// `f` of note file `i`'s text, read if no job has read it yet (`None` when the file is
    /// missing or skipped). One of the file's jobs: the last of them to be done gives the text's
    /// memory back.
    ///
    /// # Errors
    /// The file's read error, to the first of its jobs that asks.
    pub(crate) fn with_text<R>(&self, i: usize, f: impl FnOnce(&str) -> R) -> Result<Option<R>> {
        let shared = self.texts[i].get_or_init(|| {
            match self.spare.read(&self.notes[i].path, &self.notes[i].within) {
                Ok(text) => Ok(text.map(RwLock::new)),
                Err(e) => Err(Mutex::new(Some(e))),
            }
        });
        match shared {
            Ok(Loose::Missing | Loose::Skipped(_)) => Ok(None),
            Ok(Loose::Read(shared)) => {
                let result = {
                    let text = shared.read().unwrap_or_else(PoisonError::into_inner);
                    f(&text)
                };
                if self.jobs_left[i].fetch_sub(1, Ordering::AcqRel) == 1 {
                    let mut text = shared.write().unwrap_or_else(PoisonError::into_inner);
                    self.spare.give_back(std::mem::take(&mut *text));
                }
                Ok(Some(result))
            }
            Err(error) => match error.lock().unwrap_or_else(PoisonError::into_inner).take() {
                Some(e) => Err(e),
                None => Ok(None),
            },
        }
    }

    /// A warning for each note file skipped, in file order.
    pub(crate) fn warnings(&self) -> impl Iterator<Item = String> + '_ {
        self.notes
            .iter()
            .zip(&self.texts)
            .filter_map(|(note, text)| match text.get() {
                Some(Ok(Loose::Skipped(skip))) => Some(skip.warning(&note.source_file)),
                _ => None,
            })
    }
}

/// Which sections of a note file a job takes: all of them, or those of one half (the file cut
/// at the first section heading from its middle on, so that two threads share a large file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Whole,
    /// Those before the file's middle heading.
    First,
    /// Those from the file's middle heading on.
    Second,
}

/// A store this large is read on two threads, each large file in two halves (below it, starting
/// a thread and cutting files costs more than it saves).
const PARALLEL_FROM_BYTES: u64 = 1024 * 1024;

/// Whether the files at `paths` (those that exist) make a store worth two threads.
pub(crate) fn is_large<'p>(paths: impl IntoIterator<Item = &'p Path>) -> bool {
    let bytes: u64 = paths
        .into_iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    bytes >= PARALLEL_FROM_BYTES
}

impl Part {
    /// The parts each note file is cut into: two halves in a large store ([`is_large`]), else
    /// the whole.
    pub(crate) fn of_file(large: bool) -> &'static [Part] {
        if large {
            &[Part::First, Part::Second]
        } else {
            &[Part::Whole]
        }
    }

    /// The sections of `text` this part takes, with the part of `text` they are cut from. The
    /// two halves' sections, one after the other, are the whole's.
    pub(crate) fn cut(self, text: &str) -> (&str, Vec<Section<'_>>) {
        let split = || split_point(text, text.len() / 2);
        match self {
            Part::Whole => (text, sections(text)),
            Part::First => {
                let split = split();
                (&text[..split], sections_before(text, split))
            }
            Part::Second => {
                let split = split();
                (&text[split..], sections(&text[split..]))
            }
        }
    }
}
