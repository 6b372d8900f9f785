//! The embedding index as the memory's texts need it (docs/HYBRID.md §The index): every
//! candidate of a recall — each journal event's text and each note section's text, as recall
//! shows them — and its vector, kept in `.bmad/cache/embeddings.bin` ([`crate::store::vectors`])
//! under the SHA-256 of the text, for one model.
//!
//! [`refresh`] brings the index up to date: the index is read (a missing, damaged or other
//! model's index counts as empty, and the reason is kept), the texts it lacks are embedded —
//! all of them for `bmad-mem index`, at most a token budget's worth for a recall — on two
//! threads, and the index is written back when it changed. Identical texts share one vector;
//! texts no longer in the memory are dropped only by a full refresh (`bmad-mem index`), so that
//! a recall of another scope never throws away what it did not read.

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use sha2::{Digest, Sha256};

use crate::actions::recall::score::{Candidate, Note, event_text, note_files};
use crate::context::Context;
use crate::embed::Model;
use crate::embed::weights::Invalid;
use crate::error::Result;
use crate::store::journal;
use crate::store::layout::JOURNAL;
use crate::store::parallel::on_two_threads;
use crate::store::paths::{Loose, read_loose};
use crate::store::sections::sections;
use crate::store::vectors::{self, Key, Read, Vectors};

/// A candidate of a recall and the digest of its text.
#[derive(Debug)]
pub struct Text {
    pub key: Key,
    pub candidate: Candidate,
}

impl Text {
    /// The text the model reads: an event's searchable text, a section's trimmed text.
    #[must_use]
    pub fn text(&self) -> &str {
        match &self.candidate {
            Candidate::Event { text, .. } => text,
            Candidate::Note(note) => note.text(),
        }
    }
}

fn digest(text: &str) -> Key {
    Sha256::digest(text.as_bytes()).into()
}

/// Every candidate of a recall in candidate order — the live journal's events, then each note
/// file's sections — read as recall reads them (the loose reader; a file it skips is left out
/// here, its warning is bm25's to give).
///
/// # Errors
/// A folder where a file should be, or another read error.
pub fn texts(ctx: &Context, portfolio: Option<&str>) -> Result<Vec<Text>> {
    let mut out = Vec::new();
    if let Loose::Read(journal_text) = read_loose(&ctx.root.join(JOURNAL), &ctx.root)? {
        for event in journal::lines(&journal_text).filter_map(journal::event) {
            let text = event_text(&event);
            out.push(Text {
                key: digest(&text),
                candidate: Candidate::Event {
                    event,
                    text,
                    source: None,
                },
            });
        }
    }
    for file in note_files(ctx, portfolio) {
        if let Loose::Read(text) = read_loose(&file.path, &file.within)? {
            for section in sections(&text) {
                let note = Note::new(&file, &section);
                out.push(Text {
                    key: digest(note.text()),
                    candidate: Candidate::Note(note),
                });
            }
        }
    }
    Ok(out)
}

/// How much a refresh may embed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// Every text the index lacks, and texts no longer in the memory dropped.
    Everything,
    /// Texts in candidate order while their tokens add up to at most this many.
    Tokens(usize),
}

/// What a refresh did.
#[derive(Debug)]
pub struct Refreshed {
    pub index: Vectors,
    /// Why the index on disk was not used (`None`: it was, or there was none).
    pub ignored: Option<String>,
    /// Distinct texts: embedded now, found in the index, still without a vector.
    pub embedded: usize,
    pub kept: usize,
    pub behind: usize,
    /// Vectors of texts no longer in the memory, dropped.
    pub dropped: usize,
    /// Whether the index changed (and so was written or is to be).
    pub changed: bool,
}

/// Brings the index of `texts` up to date for `model` (whose digest is `model_digest`):
/// reads it, embeds what `budget` allows of what it lacks on two threads (`progress` told of
/// each text done, out of how many), and returns it — written back by the caller.
///
/// # Errors
/// The model's (a read error of its weights file); an index that cannot be read is rebuilt,
/// never an error.
pub fn refresh(
    root: &Path,
    model: &Model,
    model_digest: &Key,
    texts: &[Text],
    budget: Budget,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Refreshed, Invalid> {
    let width = model.width();
    let (old, ignored) = match vectors::read(root, model_digest) {
        Read::Read(index) if index.width == width => (index, None),
        Read::Read(_) => (
            Vectors::new(*model_digest, width),
            Some("vectors of another width".to_owned()),
        ),
        Read::Missing => (Vectors::new(*model_digest, width), None),
        Read::OtherModel => (
            Vectors::new(*model_digest, width),
            Some("made with another model".to_owned()),
        ),
        Read::Invalid(reason) => (Vectors::new(*model_digest, width), Some(reason)),
    };
    let mut seen = HashSet::new();
    let mut missing: Vec<&str> = Vec::new();
    let mut kept = 0;
    for text in texts {
        if !seen.insert(text.key) {
            continue;
        }
        if old.get(&text.key).is_some() {
            kept += 1;
        } else {
            missing.push(text.text());
        }
    }
    let total_missing = missing.len();
    if let Budget::Tokens(tokens) = budget {
        let mut spent = 0;
        let fits = missing
            .iter()
            .take_while(|text| {
                spent += model.ids(text).len();
                spent <= tokens
            })
            .count();
        missing.truncate(fits);
    }
    if !missing.is_empty() {
        model.keep_layers()?;
    }
    let done = AtomicUsize::new(0);
    let vectors = on_two_threads(missing.len(), |i| {
        let vector = model.embed(missing[i]);
        progress(done.fetch_add(1, Ordering::Relaxed) + 1, missing.len());
        vector
    });
    let mut entries = Vec::with_capacity(kept + missing.len());
    for (text, vector) in missing.iter().zip(vectors) {
        entries.push((digest(text), vector?));
    }
    let embedded = entries.len();
    let dropped;
    if budget == Budget::Everything {
        // Only the texts of the memory now.
        dropped = old.len() - kept;
        for key in &seen {
            if let Some(vector) = old.get(key) {
                entries.push((*key, vector.to_vec()));
            }
        }
    } else {
        dropped = 0;
        entries.extend(old.entries().map(|(key, vector)| (*key, vector.to_vec())));
    }
    let changed = embedded > 0 || dropped > 0 || ignored.is_some();
    Ok(Refreshed {
        index: Vectors::from_entries(*model_digest, width, entries),
        ignored,
        embedded,
        kept,
        behind: total_missing - embedded,
        dropped,
        changed,
    })
}
