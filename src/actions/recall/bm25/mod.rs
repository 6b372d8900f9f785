//! `recall --ranking bm25`: BM25F over the same candidates as lexical recall.
//!
//! The default ranking stays bmad-plus's; this one is opt-in and better at its job (measured in
//! `BENCHMARKS.md`). Everything is computed per query from one read of the files — no index on
//! disk, since the memory lives in git and an index would be one more file to merge and to go
//! stale. For every candidate the pass counts the query's terms and measures the candidate's
//! length; document frequencies and average lengths come from the same pass.
//!
//! * **Words** ([`tokens`]): Unicode word boundaries, case and accent folding, French elision,
//!   short stop-word lists, Snowball English and French stems. A candidate is French (its French
//!   stems count) when at least one byte in 64 of it is the first byte of `é`, `à`, `ç`…
//! * **Only where a term can be**: the query stems' leading letters ([`Anchors`]) are searched
//!   in each file once, 64 bytes at a time; only the whitespace-delimited chunks where one
//!   starts a word part, or that hold a `'` or a non-ASCII byte, are cut into words and stemmed
//!   (once per distinct chunk), which gives the same term frequencies as cutting every word. A
//!   journal line is parsed only when the piece of it around such a place holds a term.
//! * **Read where counted**: the journal and each note file's two halves are jobs for two
//!   threads, each reading its file into the memory of a text already done with
//!   (`recall::shared`). The final ranking needs every job's statistics, so a
//!   notes job keeps copies of only its best notes by its own statistics; in the rare case
//!   where a final best note is not among them, the recall runs again keeping every note.
//! * **Lengths in bytes**: a field's length is its size in bytes (an event's, its line's), each
//!   collection with its own average: BM25 needs only the ratio to the average.
//! * **Two collections**: the notes (`###` sections, with the heading and the body as two fields
//!   of their own weight and length normalization) and the journal's events (one field). Each has
//!   its own document count, frequencies and average lengths; an event's score then loses half
//!   its weight every 30 days, as in lexical recall.
//! * **The score** of a candidate d for the query's terms t:
//!   `Σ idf(t) · (k1 + 1) · tf'(t,d) / (k1 + tf'(t,d))`, where
//!   `tf'(t,d) = Σ_field weight · tf / (1 − b + b · length / average length)` and
//!   `idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))`.
//!
//! * **Status** ([`crate::actions::recall::status`]): a decision's score is weighed by its
//!   status (×0.8 ended, ×0.9 proposed), read only for the notes that may rank; `--status
//!   in-force` leaves out the ended and proposed ones. Each decision result carries its status.
//!
//! Candidates with a score above zero are sorted, highest first, ties in candidate order (the
//! journal's events, then the note files in search order), as lexical recall sorts them. A note
//! result's excerpt (`excerpt`) is the passage where the query's terms stand.

mod anchors;
mod excerpt;
pub mod tokens;

use std::collections::HashMap;

use crate::actions::recall::bm25::anchors::{Also, Anchors};
use crate::actions::recall::score::{
    self, Candidate, Note, NoteFile, Request, Scored, sort_by_score,
};
use crate::actions::recall::shared::{Part, SharedNotes, Spare, is_large};
use crate::actions::recall::status::{self, StatusFilter};
use crate::context::Context;
use crate::error::Result;
use crate::js::json::Object;
use crate::store::entry::Status;
use crate::store::journal;
use crate::store::layout::JOURNAL;
use crate::store::parallel::on_two_threads_with;
use crate::store::paths::{Loose, Skip};
use crate::store::sections::Section;

/// The ranking's constants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Term-frequency saturation.
    pub k1: f64,
    /// Weight of a term in a section's heading, relative to one in its body.
    pub heading_weight: f64,
    /// Length normalization of headings (0: none, 1: full).
    pub heading_b: f64,
    /// Length normalization of section bodies and of events.
    pub body_b: f64,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            k1: 1.2,
            heading_weight: 2.0,
            heading_b: 0.5,
            body_b: 0.75,
        }
    }
}

/// A field of a candidate.
const HEADING: usize = 0;
const BODY: usize = 1;
/// What a word is, worked out once: stop-word flags and its stems (interned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WordInfo {
    is_stop_en: bool,
    is_stop_fr: bool,
    en: u32,
    fr: u32,
}

/// Every distinct word analyzed so far, and every stem, interned.
#[derive(Debug, Default, Clone)]
struct Lexicon {
    words: HashMap<Box<str>, Option<WordInfo>>,
    stems: HashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
}

impl Lexicon {
    fn intern(&mut self, stem: &str) -> u32 {
        if let Some(&id) = self.stems.get(stem) {
            return id;
        }
        let id = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.stems.insert(stem.into(), id);
        self.names.push(stem.into());
        id
    }

    fn analyze(&mut self, raw: &str) -> Option<WordInfo> {
        if let Some(&info) = self.words.get(raw) {
            return info;
        }
        let info = tokens::analyze(raw).map(|a| WordInfo {
            is_stop_en: a.is_stop_en,
            is_stop_fr: a.is_stop_fr,
            en: self.intern(&a.en),
            fr: self.intern(&a.fr),
        });
        self.words.insert(raw.into(), info);
        info
    }
}

/// A query term: its English and French stems.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Term {
    en: u32,
    fr: u32,
}

/// The query's terms: each word that is not a stop word, once per English stem (all its words
/// when every one is a stop word).
fn query_terms(text: &str, lexicon: &mut Lexicon) -> (Vec<Term>, bool) {
    let mut all = Vec::new();
    tokens::for_each_word(text, |w| all.extend(lexicon.analyze(w)));
    let keep_stop = all.iter().all(|w| w.is_stop_en || w.is_stop_fr);
    let mut terms: Vec<Term> = Vec::new();
    for w in all {
        let is_stop = w.is_stop_en || w.is_stop_fr;
        if (keep_stop || !is_stop) && !terms.iter().any(|t| t.en == w.en) {
            terms.push(Term { en: w.en, fr: w.fr });
        }
    }
    (terms, keep_stop)
}

/// The anchors of the query terms' stems, in both languages.
fn anchors_of(lexicon: &Lexicon, terms: &[Term]) -> Anchors {
    Anchors::new(
        terms
            .iter()
            .flat_map(|t| [t.en, t.fr])
            .map(|stem| &*lexicon.names[stem as usize]),
    )
}

/// A candidate's counts: the length of each field, and each query term's frequency per field.
#[derive(Debug, Clone, PartialEq)]
pub struct Counts {
    pub lengths: [u32; 2],
    /// `(term, [frequency in the heading, frequency in the body])`, terms that occur only.
    pub terms: Vec<(u16, [u32; 2])>,
}

/// The term of each word of a chunk, per language (`NONE`: none).
const NONE: u16 = u16::MAX;

/// One job's view of the words: which term each stem is, where terms may stand, and the terms
/// of every chunk met so far.
struct Counter<'a> {
    lexicon: Lexicon,
    keep_stop: bool,
    /// The term index of each stem interned when the pass began (`NONE`: none), per language.
    en_terms: Vec<u16>,
    fr_terms: Vec<u16>,
    anchors: &'a Anchors,
    /// Where chunks may hold a term, in the text being counted ([`Anchors::positions`]).
    positions: Vec<usize>,
    /// Each chunk met, as a range of `found` (its words that are a term in either language)
    /// and its number of accented letters ([`accented_letters`]).
    chunks: HashMap<Box<str>, (u32, u32, u32), foldhash::fast::FixedState>,
    /// The accented letters of the chunks of the candidate being counted.
    accented: usize,
    found: Vec<(u16, u16)>,
    en: Vec<[u32; 2]>,
    fr: Vec<[u32; 2]>,
}

/// How many bytes of `text` are `0xC3`, the first byte of `é`, `à`, `ç`… in UTF-8.
fn accented_letters(text: &str) -> usize {
    if text.is_ascii() {
        return 0;
    }
    memchr::memchr_iter(0xC3, text.as_bytes()).count()
}

/// A text is French when at least one byte in this many is `0xC3` (the first byte of `é`, `à`,
/// `ç`… in UTF-8).
const FRENCH_FROM: usize = 64;

impl<'a> Counter<'a> {
    fn new(lexicon: Lexicon, anchors: &'a Anchors, terms: &[Term], keep_stop: bool) -> Self {
        let mut en_terms = vec![NONE; lexicon.names.len()];
        let mut fr_terms = vec![NONE; lexicon.names.len()];
        for (i, term) in terms.iter().enumerate().rev() {
            let i = u16::try_from(i).unwrap_or(NONE);
            en_terms[term.en as usize] = i;
            fr_terms[term.fr as usize] = i;
        }
        Self {
            lexicon,
            keep_stop,
            en_terms,
            fr_terms,
            anchors,
            positions: Vec::new(),
            chunks: HashMap::default(),
            accented: 0,
            found: Vec::new(),
            en: vec![[0; 2]; terms.len()],
            fr: vec![[0; 2]; terms.len()],
        }
    }

    /// The terms word `raw` is in each language, when it is one in either.
    fn terms_of(&mut self, raw: &str) -> Option<(u16, u16)> {
        let info = self.lexicon.analyze(raw)?;
        if !self.keep_stop && (info.is_stop_en || info.is_stop_fr) {
            return None;
        }
        let find = |map: &[u16], stem: u32| map.get(stem as usize).copied().unwrap_or(NONE);
        let (en, fr) = (find(&self.en_terms, info.en), find(&self.fr_terms, info.fr));
        (en != NONE || fr != NONE).then_some((en, fr))
    }

    fn tally(&mut self, (en, fr): (u16, u16), field: usize) {
        if en != NONE {
            self.en[usize::from(en)][field] += 1;
        }
        if fr != NONE {
            self.fr[usize::from(fr)][field] += 1;
        }
    }

    /// Counts the terms of `chunk` in `field`; a chunk met before is not cut again.
    fn take_chunk(&mut self, chunk: &str, field: usize) {
        let (from, to, accented) = self.chunk_terms(chunk);
        self.accented += accented as usize;
        for i in from as usize..to as usize {
            self.tally(self.found[i], field);
        }
    }

    /// Where `chunk`'s words that are a term lie in `found`, and its accented letters: cut
    /// into words the first time, remembered after.
    fn chunk_terms(&mut self, chunk: &str) -> (u32, u32, u32) {
        if let Some(&seen) = self.chunks.get(chunk) {
            return seen;
        }
        let from = self.found.len();
        let mut words = Vec::new();
        tokens::for_each_word(chunk, |w| words.push(w));
        for word in words {
            if let Some(t) = self.terms_of(word) {
                self.found.push(t);
            }
        }
        let at = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let seen = (at(from), at(self.found.len()), at(accented_letters(chunk)));
        self.chunks.insert(chunk.into(), seen);
        seen
    }

    /// The counts of what was seen, in the candidate's language; the per-term tallies are
    /// cleared for the next candidate.
    ///
    /// Every accented letter of the fields lies in a chunk with a non-ASCII byte, which is
    /// always read: the chunks' tallies of them add up to the fields'.
    fn finish(&mut self, fields: [&str; 2]) -> Counts {
        let lengths = fields.map(|f| u32::try_from(f.len()).unwrap_or(u32::MAX));
        let bytes: usize = fields.iter().map(|f| f.len()).sum();
        let accented = std::mem::take(&mut self.accented);
        let chosen = if accented * FRENCH_FROM >= bytes && accented > 0 {
            &self.fr
        } else {
            &self.en
        };
        let terms = chosen
            .iter()
            .enumerate()
            .filter(|(_, tf)| tf[0] + tf[1] > 0)
            .filter_map(|(t, &tf)| Some((u16::try_from(t).ok()?, tf)))
            .collect();
        self.en.iter_mut().for_each(|tf| *tf = [0; 2]);
        self.fr.iter_mut().for_each(|tf| *tf = [0; 2]);
        Counts { lengths, terms }
    }

    /// [`Counter::count`] without its shortcuts: every word of both fields analyzed. The
    /// reference the tests hold it to.
    #[cfg(test)]
    fn count_reference(&mut self, fields: [&str; 2]) -> Counts {
        self.accented = fields.iter().map(|f| accented_letters(f)).sum();
        for (field, text) in fields.iter().enumerate() {
            let mut words = Vec::new();
            tokens::for_each_word(text, |w| words.push(w));
            for word in words {
                if let Some(t) = self.terms_of(word) {
                    self.tally(t, field);
                }
            }
        }
        self.finish(fields)
    }

    /// Counts the terms in a candidate's fields, in its language (French when accented letters
    /// are frequent enough), and their lengths in bytes. Only the chunks where a term may stand
    /// are cut into words.
    fn count(&mut self, fields: [&str; 2]) -> Counts {
        let mut positions = std::mem::take(&mut self.positions);
        for (field, text) in fields.iter().enumerate() {
            self.anchors
                .positions(text.as_bytes(), Also::Apostrophe, &mut positions);
            Anchors::chunks(text, positions.iter().copied(), |chunk| {
                self.take_chunk(chunk, field);
            });
        }
        self.positions = positions;
        self.finish(fields)
    }

    /// The words of `text` that are a query term, as (byte offset, term) in order: only the
    /// chunks where a term may stand are cut into words. A term of either language counts.
    fn terms_in(&mut self, text: &str) -> Vec<(usize, u16)> {
        let mut positions = std::mem::take(&mut self.positions);
        let anchors = self.anchors;
        anchors.positions(text.as_bytes(), Also::Apostrophe, &mut positions);
        let mut found = Vec::new();
        Anchors::chunks(text, positions.iter().copied(), |chunk| {
            tokens::for_each_word(chunk, |word| {
                if let Some((en, fr)) = self.terms_of(word) {
                    let at = (word.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
                    found.push((at, if en == NONE { fr } else { en }));
                }
            });
        });
        self.positions = positions;
        found
    }

    /// Counts every section of `text` (`sections`, cut from it), the anchors searched once in
    /// the whole text; returns the collection and the sections that hold a term.
    fn count_notes<'t>(
        &mut self,
        text: &'t str,
        sections: Vec<Section<'t>>,
    ) -> (Collection, Vec<(Section<'t>, Counts)>) {
        let mut collection = Collection::new(self.en.len());
        let mut counted = Vec::with_capacity(sections.len());
        let mut positions = std::mem::take(&mut self.positions);
        self.anchors
            .positions(text.as_bytes(), Also::Apostrophe, &mut positions);
        for section in sections {
            let [heading, _, body, _] = section.parts();
            let fields = [heading, body];
            for (field, part) in fields.iter().enumerate() {
                // Where the part lies in `text` (it always does, as `sections` cuts it).
                let at = (part.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
                if at <= text.len() && part.len() <= text.len() - at {
                    let first = positions.partition_point(|&p| p < at);
                    let within = positions[first..]
                        .iter()
                        .take_while(|&&p| p < at + part.len())
                        .map(|&p| p - at);
                    Anchors::chunks(part, within, |chunk| self.take_chunk(chunk, field));
                } else {
                    let mut own = Vec::new();
                    self.anchors
                        .positions(part.as_bytes(), Also::Apostrophe, &mut own);
                    Anchors::chunks(part, own, |chunk| self.take_chunk(chunk, field));
                }
            }
            let counts = self.finish(fields);
            collection.add(&counts);
            // A section without a term scores nothing: only its lengths count.
            if !counts.terms.is_empty() {
                counted.push((section, counts));
            }
        }
        self.positions = positions;
        (collection, counted)
    }

    /// Counts the events of a journal's text: a line is parsed only when it may hold a term;
    /// the others count only their length (as an event when shaped `{…}`, even if they would
    /// not parse). Returns the collection and the events that hold a term, with their text.
    ///
    /// A line may hold a term when the anchors' search finds a position in it. When the line
    /// is plain ASCII with no `\` or `'`, and not every line is to be parsed (see [`Anchors`]:
    /// a number written anew gives only words of digits and `e`), the event's text holds a term
    /// only if the line does, between the same quotes: the values are the line's strings as
    /// they are written, and its `true`, `false` and `null` (its keys and `"` only add to the
    /// line). So the piece around each position, cut at whitespace and `"`, is read first; a
    /// line whose pieces hold no term is not parsed.
    fn count_events(&mut self, journal: &str) -> (Collection, Vec<(Object, String, Counts)>) {
        let mut collection = Collection::new(self.en.len());
        let mut matched = Vec::new();
        let mut positions = std::mem::take(&mut self.positions);
        let anchors = self.anchors;
        anchors.positions(
            journal.as_bytes(),
            Also::ApostropheOrBackslash,
            &mut positions,
        );
        let mut next = 0;
        for line in journal::lines(journal) {
            let at = (line.as_ptr() as usize).wrapping_sub(journal.as_ptr() as usize);
            while positions.get(next).is_some_and(|&p| p < at) {
                next += 1;
            }
            let length = u32::try_from(line.len()).unwrap_or(u32::MAX);
            let within = positions[next..]
                .iter()
                .take_while(|&&p| p < at + line.len())
                .map(|&p| p - at);
            let mut may_match = anchors.parse_every_event
                || line.as_bytes().first().is_some_and(|&c| c >= 0x80)
                || within.clone().next().is_some();
            if may_match
                && !anchors.parse_every_event
                && line.is_ascii()
                && memchr::memchr2(b'\\', b'\'', line.as_bytes()).is_none()
            {
                may_match = within.into_iter().any(|p| self.piece_holds_term(line, p));
            }
            if !may_match {
                if line.starts_with('{') && line.ends_with('}') {
                    collection.add(&Counts {
                        lengths: [0, length],
                        terms: Vec::new(),
                    });
                }
                continue;
            }
            let Some(event) = journal::event(line) else {
                continue;
            };
            let text = score::event_text(&event);
            // `self.positions` is free: `count` takes it for the event's text.
            let mut counts = self.count(["", &text]);
            counts.lengths = [0, length];
            collection.add(&counts);
            if !counts.terms.is_empty() {
                matched.push((event, text, counts));
            }
        }
        self.positions = positions;
        (collection, matched)
    }

    /// Whether the piece of `line` around byte `at`, cut at whitespace and `"`, holds a term.
    fn piece_holds_term(&mut self, line: &str, at: usize) -> bool {
        let bound = |c: &u8| *c == b'"' || c.is_ascii_whitespace();
        let (start, end) = tokens::piece_around(line.as_bytes(), 0, at, bound);
        let (from, to, _) = self.chunk_terms(&line[start..end]);
        from != to
    }
}

/// A collection's statistics: how many candidates, their total field lengths, and how many hold
/// each query term.
#[derive(Debug, Clone, PartialEq)]
pub struct Collection {
    pub size: u32,
    pub total_lengths: [u64; 2],
    pub frequencies: Vec<u32>,
}

impl Collection {
    #[must_use]
    pub fn new(terms: usize) -> Self {
        Self {
            size: 0,
            total_lengths: [0; 2],
            frequencies: vec![0; terms],
        }
    }

    /// Takes another part of the collection into the statistics.
    pub fn merge(&mut self, other: &Collection) {
        self.size += other.size;
        for field in [HEADING, BODY] {
            self.total_lengths[field] += other.total_lengths[field];
        }
        for (f, o) in self.frequencies.iter_mut().zip(&other.frequencies) {
            *f += o;
        }
    }

    /// Takes a candidate's counts into the statistics.
    pub fn add(&mut self, counts: &Counts) {
        self.size += 1;
        for field in [HEADING, BODY] {
            self.total_lengths[field] += u64::from(counts.lengths[field]);
        }
        for &(t, _) in &counts.terms {
            self.frequencies[usize::from(t)] += 1;
        }
    }

    /// `ln(1 + (N − df + 0.5) / (df + 0.5))` of term `t`.
    #[must_use]
    pub fn idf(&self, t: u16) -> f64 {
        let n = f64::from(self.size);
        let df = f64::from(self.frequencies[usize::from(t)]);
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The BM25F score of a candidate of this collection.
    #[must_use]
    pub fn score(&self, counts: &Counts, params: &Params) -> f64 {
        self.scorer(params).score(counts)
    }

    /// What scoring many candidates of this collection needs, worked out once.
    fn scorer<'p>(&self, params: &'p Params) -> Scorer<'p> {
        let mut averages = [0.0; 2];
        for field in [HEADING, BODY] {
            #[expect(clippy::cast_precision_loss, reason = "lengths are far below 2^53")]
            let average = self.total_lengths[field] as f64 / f64::from(self.size.max(1));
            averages[field] = average;
        }
        let idfs = (0..self.frequencies.len())
            .map(|t| self.idf(u16::try_from(t).unwrap_or(u16::MAX)))
            .collect();
        Scorer {
            params,
            averages,
            idfs,
        }
    }
}

/// A [`Collection`]'s average field lengths and terms' idf, with the constants.
struct Scorer<'p> {
    params: &'p Params,
    averages: [f64; 2],
    idfs: Vec<f64>,
}

impl Scorer<'_> {
    fn score(&self, counts: &Counts) -> f64 {
        let params = self.params;
        let field_weights = [params.heading_weight, 1.0];
        let bs = [params.heading_b, params.body_b];
        let mut norms = [1.0; 2];
        for field in [HEADING, BODY] {
            let average = self.averages[field];
            if average > 0.0 {
                norms[field] =
                    1.0 - bs[field] + bs[field] * f64::from(counts.lengths[field]) / average;
            }
        }
        let k1 = params.k1;
        counts
            .terms
            .iter()
            .map(|&(t, tf)| {
                let tf: f64 = (0..2)
                    .map(|f| field_weights[f] * f64::from(tf[f]) / norms[f])
                    .sum();
                self.idfs[usize::from(t)] * (k1 + 1.0) * tf / (k1 + tf)
            })
            .sum()
    }
}

/// A piece of the pass, in candidate order: the journal's events, then each note file's
/// sections, in a large store in two halves (cut at a section heading near the file's middle,
/// so that both threads stay busy to the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Job {
    Journal,
    Notes(usize, Part),
}

/// Which notes a job copies out of its file before the file's memory goes to the next read:
/// its best `Some(n)` by the job's own statistics, or every note that holds a term.
///
/// The final ranking needs the statistics of every job, so a note is only known to be among
/// the best once every file is counted. A note of the final best that its job did not keep
/// sends the recall round again keeping every note; with the job's own statistics close to
/// the whole store's, that is rare (a test makes it happen).
type Keep = Option<usize>;

/// With `--limit` n up to [`KEEP_UP_TO_LIMIT`], each job keeps its best
/// `n × KEEP_PER_RESULT + KEEP_EXTRA` notes.
const KEEP_PER_RESULT: usize = 8;
const KEEP_EXTRA: usize = 32;
const KEEP_UP_TO_LIMIT: usize = 32;

/// What the pass found: both collections, the events that hold a term (with their text and
/// counts), and per notes job the counts of its notes that hold a term with the copies it kept
/// (by index among those).
struct Pass {
    warnings: Vec<String>,
    events: Collection,
    notes: Collection,
    matched_events: Vec<(Object, String, Counts)>,
    note_counts: Vec<Vec<Counts>>,
    kept: Vec<Vec<(usize, Note)>>,
}

/// What a job found.
enum Done {
    Nothing,
    /// The journal's collection and the events that hold a term.
    Events(Collection, Vec<(Object, String, Counts)>),
    Notes(NotesCounted),
    JournalSkipped(Skip),
}

/// What a notes job found: its share of the collection, the counts of its notes that hold a
/// term, and the copies it kept (by index among those).
struct NotesCounted {
    collection: Collection,
    counts: Vec<Counts>,
    kept: Vec<(usize, Note)>,
}

/// Which of a job's `counted` notes it keeps: every one, or its best `n` by `collection`'s
/// statistics (ties to the first); in order.
fn kept_indices(
    collection: &Collection,
    counted: &[(Section<'_>, Counts)],
    keep: Keep,
    params: &Params,
) -> Vec<usize> {
    let Some(n) = keep.filter(|&n| n < counted.len()) else {
        return (0..counted.len()).collect();
    };
    if n == 0 {
        return Vec::new();
    }
    let local = collection.scorer(params);
    let mut scores: Vec<(f64, usize)> = counted
        .iter()
        .enumerate()
        .map(|(i, (_, c))| (local.score(c), i))
        .collect();
    let best_first = |a: &(f64, usize), b: &(f64, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    scores.select_nth_unstable_by(n - 1, best_first);
    let mut kept: Vec<usize> = scores[..n].iter().map(|&(_, i)| i).collect();
    kept.sort_unstable();
    kept
}

/// Reads and counts every candidate on two threads: the journal, then the note files' halves.
///
/// # Errors
/// A directory where a file should be, or another read error (the first in file order).
#[expect(
    clippy::too_many_arguments,
    reason = "one pass's inputs, named where they are used"
)]
fn count_all(
    ctx: &Context,
    files: &[NoteFile],
    lexicon: &Lexicon,
    anchors: &Anchors,
    terms: &[Term],
    keep_stop: bool,
    keep: Keep,
    params: &Params,
) -> Result<Pass> {
    let journal_path = ctx.root.join(JOURNAL);
    let parts = Part::of_file(is_large(
        std::iter::once(journal_path.as_path()).chain(files.iter().map(|f| f.path.as_path())),
    ));
    let spare = Spare::default();
    let shared = SharedNotes::new(files, parts.len(), &spare);
    let jobs: Vec<Job> = std::iter::once(Job::Journal)
        .chain((0..files.len()).flat_map(|f| parts.iter().map(move |&part| Job::Notes(f, part))))
        .collect();
    let done = on_two_threads_with(
        jobs.len(),
        || Counter::new(lexicon.clone(), anchors, terms, keep_stop),
        |counter, j| -> Result<Done> {
            match jobs[j] {
                Job::Journal => match spare.read(&journal_path, &ctx.root)? {
                    Loose::Read(text) if !terms.is_empty() => {
                        let (collection, matched) = counter.count_events(&text);
                        spare.give_back(text);
                        Ok(Done::Events(collection, matched))
                    }
                    Loose::Read(_) | Loose::Missing => Ok(Done::Nothing),
                    Loose::Skipped(skip) => Ok(Done::JournalSkipped(skip)),
                },
                Job::Notes(f, part) => {
                    let counted = shared.with_text(f, |text| {
                        if terms.is_empty() {
                            return Done::Nothing;
                        }
                        let (within, cut) = part.cut(text);
                        let (collection, counted) = counter.count_notes(within, cut);
                        let kept = kept_indices(&collection, &counted, keep, params)
                            .into_iter()
                            .map(|i| (i, Note::new(&files[f], &counted[i].0)))
                            .collect();
                        let counts = counted.into_iter().map(|(_, c)| c).collect();
                        Done::Notes(NotesCounted {
                            collection,
                            counts,
                            kept,
                        })
                    })?;
                    Ok(counted.unwrap_or(Done::Nothing))
                }
            }
        },
    );
    let mut pass = Pass {
        warnings: Vec::new(),
        events: Collection::new(terms.len()),
        notes: Collection::new(terms.len()),
        matched_events: Vec::new(),
        note_counts: Vec::new(),
        kept: Vec::new(),
    };
    for done in done {
        match done? {
            Done::Nothing => {}
            Done::Events(events, matched) => {
                pass.events = events;
                pass.matched_events = matched;
            }
            Done::Notes(notes) => {
                pass.notes.merge(&notes.collection);
                pass.note_counts.push(notes.counts);
                pass.kept.push(notes.kept);
            }
            Done::JournalSkipped(skip) => pass.warnings.push(skip.warning(JOURNAL)),
        }
    }
    // The journal's warning first, then the note files'.
    pass.warnings.extend(shared.warnings());
    Ok(pass)
}

/// A note of the final ranking: its score (weighed by its status), its copy and its status.
type Ranked = (f64, Note, Option<Status>);

impl Pass {
    /// The scores of the events that hold a term, in journal order, each decayed by its age.
    fn event_scores(&self, params: &Params, now_ms: f64) -> Vec<f64> {
        let events = self.events.scorer(params);
        self.matched_events
            .iter()
            .map(|(event, _, counts)| score::decay(events.score(counts), event.get("ts"), now_ms))
            .collect()
    }

    /// The notes that may be among the best `limit` results, as `(score, note, status)` in
    /// candidate order: each note's score is weighed by its status ([`status::weight`]) and a
    /// note `filter` does not keep is left out. `None` when one of them was not kept by its job.
    ///
    /// The status is read only for the notes that may rank: in order of their BM25 score, a
    /// window of the best ones is weighed, and widened while the next note's score (which a
    /// weight can only lower) could still beat the `limit`-th best of the weighed notes and the
    /// `events` (the events' scores).
    fn best_notes(
        &self,
        params: &Params,
        limit: usize,
        events: &[f64],
        filter: StatusFilter,
    ) -> Option<Vec<Ranked>> {
        let whole = self.notes.scorer(params);
        // Each note that holds a term as (job, index in the job), in candidate order.
        let mut scores: Vec<(f64, (usize, usize))> = Vec::new();
        for (job, counts) in self.note_counts.iter().enumerate() {
            for (i, c) in counts.iter().enumerate() {
                let score = whole.score(c);
                if score > 0.0 {
                    scores.push((score, (job, i)));
                }
            }
        }
        // Best first, ties in candidate order.
        let best_first = |a: &(f64, (usize, usize)), b: &(f64, (usize, usize))| {
            b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
        };
        let high_first = |a: &f64, b: &f64| b.total_cmp(a);
        let mut top_events = events.to_vec();
        if top_events.len() > limit && limit > 0 {
            top_events.select_nth_unstable_by(limit - 1, high_first);
        }
        top_events.truncate(limit);
        // Each note weighed, with where it stands in candidate order.
        let mut weighed: Vec<((usize, usize), Ranked)> = Vec::new();
        let mut taken = 0;
        let mut window = limit.max(1);
        while taken < scores.len() {
            let upto = window.min(scores.len());
            let rest = &mut scores[taken..];
            let wanted = upto - taken;
            if rest.len() > wanted {
                rest.select_nth_unstable_by(wanted - 1, best_first);
            }
            rest[..wanted].sort_unstable_by(best_first);
            for &(score, (job, i)) in &scores[taken..upto] {
                let kept = &self.kept[job];
                let at = kept.binary_search_by_key(&i, |&(k, _)| k).ok()?;
                let note = &kept[at].1;
                let status = status::note_status(note.source, note.heading(), note.text());
                if filter.keeps(status.as_ref()) {
                    let score = score * status::weight(status.as_ref());
                    weighed.push(((job, i), (score, note.clone(), status)));
                }
            }
            taken = upto;
            let Some(next) = scores[taken..].iter().map(|s| s.0).max_by(f64::total_cmp) else {
                break;
            };
            // The `limit`-th best score so far: a note below it cannot rank.
            let mut best: Vec<f64> = top_events.clone();
            best.extend(weighed.iter().map(|(_, (score, ..))| *score));
            let floor = match limit.checked_sub(1) {
                Some(last) if last < best.len() => *best.select_nth_unstable_by(last, high_first).1,
                _ => 0.0,
            };
            if next < floor {
                break;
            }
            window = window.saturating_mul(2);
        }
        weighed.sort_unstable_by_key(|&(at, _)| at);
        Some(weighed.into_iter().map(|(_, ranked)| ranked).collect())
    }
}

/// Runs a BM25 recall with the default constants.
///
/// # Errors
/// A directory where a file should be, or another read error.
pub fn recall(
    ctx: &Context,
    request: &Request,
    portfolio: Option<&str>,
) -> Result<(Vec<Object>, Vec<String>)> {
    recall_with(ctx, request, portfolio, &Params::default())
}

/// Runs a BM25 recall: reads as lexical recall does (the bounded loose reader: invalid UTF-8
/// replaced, a missing file skipped, a file it will not read skipped with a warning), counts
/// every candidate, scores, sorts and keeps the best `--limit`; returns the results and the
/// warnings.
///
/// # Errors
/// A directory where a file should be, or another read error (the first in file order).
pub fn recall_with(
    ctx: &Context,
    request: &Request,
    portfolio: Option<&str>,
    params: &Params,
) -> Result<(Vec<Object>, Vec<String>)> {
    let limit = request.limit;
    let keep = (limit <= KEEP_UP_TO_LIMIT).then(|| limit * KEEP_PER_RESULT + KEEP_EXTRA);
    recall_keeping(ctx, request, portfolio, params, keep)
}

/// [`recall_with`], each notes job keeping its best `keep` notes.
fn recall_keeping(
    ctx: &Context,
    request: &Request,
    portfolio: Option<&str>,
    params: &Params,
    keep: Keep,
) -> Result<(Vec<Object>, Vec<String>)> {
    let files = score::note_files(ctx, portfolio);
    let mut lexicon = Lexicon::default();
    let (terms, keep_stop) = query_terms(&request.query, &mut lexicon);
    let anchors = anchors_of(&lexicon, &terms);
    let limit = request.limit;
    let count = |keep| {
        count_all(
            ctx, &files, &lexicon, &anchors, &terms, keep_stop, keep, params,
        )
    };
    let mut pass = count(keep)?;
    if terms.is_empty() {
        return Ok((Vec::new(), pass.warnings));
    }
    let mut events = pass.event_scores(params, ctx.now.ms);
    let best = if let Some(best) = pass.best_notes(params, limit, &events, request.status) {
        best
    } else {
        pass = count(None)?;
        events = pass.event_scores(params, ctx.now.ms);
        pass.best_notes(params, limit, &events, request.status)
            .unwrap_or_default()
    };

    let mut ranked: Vec<(Scored, Option<Status>)> = Vec::new();
    for ((event, text, _), score) in std::mem::take(&mut pass.matched_events)
        .into_iter()
        .zip(events)
    {
        if score > 0.0 {
            let candidate = Candidate::Event {
                event,
                text,
                source: None,
            };
            ranked.push((Scored { score, candidate }, None));
        }
    }
    for (score, note, status) in best {
        ranked.push((
            Scored {
                score,
                candidate: Candidate::Note(note),
            },
            status,
        ));
    }
    sort_by_score(&mut ranked, |r| r.0.score);
    ranked.truncate(limit);
    let mut counter = Counter::new(lexicon, &anchors, &terms, keep_stop);
    let results = ranked
        .into_iter()
        .map(|(scored, status)| {
            let shown = match &scored.candidate {
                Candidate::Note(note) => {
                    Some(excerpt::excerpt(note.text(), note.heading(), |line| {
                        counter.terms_in(line)
                    }))
                }
                Candidate::Event { .. } => None,
            };
            let mut entry = score::entry(scored.score, scored.candidate);
            status::add_to_entry(&mut entry, status.as_ref());
            if let Some(shown) = shown {
                entry.insert("excerpt", shown);
            }
            entry
        })
        .collect();
    Ok((results, pass.warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sections::sections;

    fn counts(lengths: [u32; 2], terms: &[(u16, [u32; 2])]) -> Counts {
        Counts {
            lengths,
            terms: terms.to_vec(),
        }
    }

    #[test]
    fn idf_is_the_smoothed_okapi_idf() {
        let mut c = Collection::new(2);
        c.add(&counts([0, 4], &[(0, [0, 1])]));
        c.add(&counts([0, 6], &[]));
        c.add(&counts([0, 2], &[]));
        c.add(&counts([0, 8], &[(0, [0, 3])]));
        // N = 4, df = 2: ln(1 + 2.5 / 2.5) = ln 2.
        assert_eq!(c.idf(0), 2f64.ln());
        // df = 0: ln(1 + 4.5 / 0.5) = ln 10.
        assert_eq!(c.idf(1), 10f64.ln());
    }

    #[test]
    fn one_field_is_plain_bm25() {
        let params = Params {
            k1: 1.2,
            body_b: 0.75,
            ..Params::default()
        };
        let mut c = Collection::new(1);
        let a = counts([0, 4], &[(0, [0, 1])]);
        let b = counts([0, 8], &[(0, [0, 3])]);
        for x in [&a, &counts([0, 6], &[]), &counts([0, 2], &[]), &b] {
            c.add(x);
        }
        // avgdl = 5. a: norm = 0.25 + 0.75 * 4/5 = 0.85, tf' = 1/0.85 = 1.17647…,
        // score = ln 2 · 2.2 · 1.17647 / 2.37647 = 0.754913…
        let expected_a = 2f64.ln() * 2.2 * (1.0 / 0.85) / (1.2 + 1.0 / 0.85);
        assert!((c.score(&a, &params) - expected_a).abs() < 1e-15);
        assert!((c.score(&a, &params) - 0.754_912_8).abs() < 1e-6);
        // b: norm = 0.25 + 0.75 * 8/5 = 1.45, tf' = 3/1.45 = 2.06897, score = 0.965142…
        assert!((c.score(&b, &params) - 0.965_141_6).abs() < 1e-6);
    }

    #[test]
    fn the_heading_weighs_more_and_is_normalized_on_its_own() {
        let params = Params::default();
        let mut c = Collection::new(1);
        // Two candidates: heading lengths 2 and 6 (average 4), body lengths 10 and 30 (average 20).
        let in_heading = counts([2, 10], &[(0, [1, 0])]);
        let in_body = counts([6, 30], &[(0, [0, 1])]);
        c.add(&in_heading);
        c.add(&in_body);
        // N = 2, df = 2: idf = ln(1 + 0.5 / 2.5) = ln 1.2.
        // in_heading: heading norm 0.5 + 0.5 · 2/4 = 0.75, tf' = 2 · 1/0.75 = 2.6667,
        //   score = ln 1.2 · 2.2 · 2.6667 / 3.8667 = 0.276626…
        // in_body: body norm 0.25 + 0.75 · 30/20 = 1.375, tf' = 1/1.375 = 0.72727,
        //   score = ln 1.2 · 2.2 · 0.72727 / 1.92727 = 0.151361…
        assert!((c.score(&in_heading, &params) - 0.276_625_8).abs() < 1e-6);
        assert!((c.score(&in_body, &params) - 0.151_361_3).abs() < 1e-6);
    }

    #[test]
    fn terms_add_up() {
        let params = Params::default();
        let mut c = Collection::new(2);
        let both = counts([0, 4], &[(0, [0, 1]), (1, [0, 1])]);
        c.add(&both);
        c.add(&counts([0, 4], &[]));
        // Both terms have the same frequency and document frequency: each scores alike.
        let one = c.score(&counts([0, 4], &[(0, [0, 1])]), &params);
        assert_eq!(c.score(&both, &params), 2.0 * one);
    }

    /// `f` of a fresh counter for `query`'s terms.
    fn with_counter<R>(query: &str, f: impl FnOnce(&mut Counter<'_>) -> R) -> R {
        let mut lexicon = Lexicon::default();
        let (terms, keep_stop) = query_terms(query, &mut lexicon);
        let anchors = anchors_of(&lexicon, &terms);
        f(&mut Counter::new(lexicon, &anchors, &terms, keep_stop))
    }

    /// A note file of the benchmark corpus.
    fn corpus_file(name: &str) -> String {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/benches/data/adr/corpus/.agents/memory"
        );
        std::fs::read_to_string(format!("{dir}/{name}")).unwrap()
    }

    fn counter_counts(query: &str, fields: [&str; 2]) -> Counts {
        with_counter(query, |counter| counter.count(fields))
    }

    #[test]
    fn counts_follow_stems_fields_and_language() {
        assert_eq!(
            counter_counts(
                "the deployment of caches",
                ["Deploying", "we deployed the cache, and a cached deploy"]
            ),
            counts([9, 42], &[(0, [1, 2]), (1, [0, 2])])
        );
        // A French candidate counts French stems: "déploiement" is "deploi" in French.
        assert_eq!(
            counter_counts("déploiement", ["", "les déploiements de la semaine"]),
            counts([0, 31], &[(0, [0, 1])])
        );
        // Cyrillic and Greek words are found, whatever their case.
        assert_eq!(
            counter_counts("кэш λόγος", ["КЭШ", "Λόγος и кэш"]),
            counts([6, 20], &[(0, [1, 1]), (1, [0, 1])])
        );
    }

    #[test]
    fn halves_count_what_the_whole_counts() {
        use std::fmt::Write as _;
        let mut text = String::new();
        for i in 0..15_000 {
            let _ = writeln!(
                text,
                "### Note {i}\nthe cache {} deploys {} in l'équipe, with more words to fill the note\n",
                "x".repeat(i % 7),
                if i % 3 == 0 { "caching" } else { "queues" }
            );
        }
        let (whole, whole_counts, mut halves, mut counts, rest, rest_counts) =
            with_counter("cached queue équipe", |counter| {
                let (whole, whole_counts) = counter.count_notes(&text, sections(&text));
                let (first, first_half) = Part::First.cut(&text);
                let (second, second_half) = Part::Second.cut(&text);
                assert!(!first_half.is_empty() && !second_half.is_empty());
                let (halves, counts) = counter.count_notes(first, first_half);
                let (rest, rest_counts) = counter.count_notes(second, second_half);
                (whole, whole_counts, halves, counts, rest, rest_counts)
            });
        halves.merge(&rest);
        counts.extend(rest_counts);
        assert_eq!(halves, whole);
        let plain = |c: &[(Section<'_>, Counts)]| -> Vec<(String, Counts)> {
            c.iter()
                .map(|(s, c)| (s.heading.to_owned(), c.clone()))
                .collect()
        };
        assert_eq!(plain(&counts), plain(&whole_counts));
        // "cached" is every note's "cache", "queue" two notes in three ("queues").
        assert_eq!(whole.frequencies, [15_000, 10_000, 15_000]);
        assert_eq!(whole.size, 15_000);
        // A small store's files are counted whole; a large one's in two halves, which cut a
        // small file too (with no heading after its middle, the second half is empty).
        assert_eq!(Part::of_file(false), [Part::Whole]);
        assert_eq!(Part::of_file(true), [Part::First, Part::Second]);
        let small = "### A\ncache\n### B\nqueue\n";
        assert_eq!(Part::First.cut(small).1.len(), 1);
        assert_eq!(Part::Second.cut(small).1.len(), 1);
        let one = "### A\ncache and queue and more\n";
        assert_eq!(Part::First.cut(one).1.len(), 1);
        assert!(Part::Second.cut(one).1.is_empty());
    }

    /// Both ways of counting, on the same fields.
    fn both_counts(query: &str, fields: [&str; 2]) -> (Counts, Counts) {
        with_counter(query, |counter| {
            let fast = counter.count(fields);
            (fast, counter.count_reference(fields))
        })
    }

    #[test]
    #[cfg_attr(
        not(repository),
        ignore = "reads benches/data, which only the repository has"
    )]
    fn counts_are_the_reference_counts_on_the_corpus() {
        let text = corpus_file("decisions.md");
        for query in [
            "rate limit auth-middleware session",
            "the of and",
            "déploiement des bases de données",
            "why did we replace the self hosted elk stack",
            "ParserCache dying yes",
        ] {
            for section in sections(&text) {
                let [heading, _, body, _] = section.parts();
                let (fast, reference) = both_counts(query, [heading, body]);
                assert_eq!(fast, reference, "{query:?} in {heading:?}");
            }
        }
    }

    #[test]
    #[cfg_attr(
        not(repository),
        ignore = "reads benches/data, which only the repository has"
    )]
    fn a_whole_file_searched_once_counts_as_the_reference_counts() {
        let text = corpus_file("decisions.md");
        for query in [
            "rate limit auth-middleware session",
            "ParserCache dying yes",
        ] {
            let (collection, found, expected_collection, expected) =
                with_counter(query, |counter| {
                    let (collection, found) = counter.count_notes(&text, sections(&text));
                    let mut expected_collection = Collection::new(counter.en.len());
                    let mut expected = Vec::new();
                    for section in sections(&text) {
                        let [heading, _, body, _] = section.parts();
                        let counts = counter.count_reference([heading, body]);
                        expected_collection.add(&counts);
                        if !counts.terms.is_empty() {
                            expected.push((heading, counts));
                        }
                    }
                    (collection, found, expected_collection, expected)
                });
            let found: Vec<_> = found.iter().map(|(s, c)| (s.heading, c.clone())).collect();
            assert!(!expected.is_empty());
            assert_eq!(found, expected, "{query:?}");
            assert_eq!(collection, expected_collection);
        }
    }

    proptest::proptest! {
        #[test]
        fn counts_are_the_reference_counts(
            query in "(the|de|les|cache|caching|rate|limit|session|auth|yes|y|Into|ab|été|à|où|l'équipe|x|die|dying|sky|skies|hope|city|xrate|parser|東京|кэш|only|1e2|object|[a-z]{2,7}|\\.|\\-| ){1,8}",
            heading in "(the|The|their|There|cette|de|les|into|a|I|cache|caches|Caching|rate|Rating|limits|sessions|Session|authMiddleware|yes|dying|Lying|tied|skies|Sky|hoping|cities|City|only|Early|x'rate|l'xrate|ParserCache|東京|Кэш|ab|AB|été|où|à|l'équipe|3,14|don't|[a-zA-Z]{1,9}|[0-9]{1,3}|[ \n',;_.:-]|\\u{2019}|кэш){0,12}",
            body in "(the|The|their|There|cette|de|les|into|a|I|cache|caches|Caching|rate|Rating|limits|sessions|Session|authMiddleware|yes|dying|Lying|tied|skies|Sky|hoping|cities|City|only|Early|x'rate|l'xrate|ParserCache|東京|Кэш|ab|AB|été|où|à|l'équipe|3,14|don't|[a-zA-Z]{1,9}|[a-zA-Z]{60,70}|[0-9]{1,3}|[ \n',;_.:-]|\\u{2019}|кэш){0,40}",
        ) {
            let (fast, reference) = both_counts(&query, [&heading, &body]);
            proptest::prop_assert_eq!(fast, reference);
        }
    }

    proptest::proptest! {
        /// Text over several of the cut's 64-byte windows, with words that join, humps and
        /// stop words falling anywhere in them.
        #[test]
        fn long_fields_count_as_the_reference_counts(
            query in "(the|de|cache|rate|limit|session|auth|yes|ab|y|[a-z]{2,5}){1,4}( |-)",
            body in "(the|The|there|These|cette|de|Les|a|I|x|cache|Caching|rate|rateLimit|AuthMiddleware|yes|dying|3,14|9;8|don't|l'a|it's|,|;|'|[a-zA-Z]{1,8}|[a-zA-Z0-9]{1,70}|[ \n.:_-]{1,2}|été|кэш){0,160}",
        ) {
            let (fast, reference) = both_counts(&query, ["", &body]);
            proptest::prop_assert_eq!(fast, reference);
        }
    }

    /// Whether [`Anchors`] built from each of `word`'s own stems find it.
    fn anchored(word: &str) -> bool {
        let Some(a) = tokens::analyze(word) else {
            return true;
        };
        [a.en, a.fr].iter().all(|stem| {
            let mut found = false;
            let anchors = Anchors::new([stem.as_str()]);
            let mut positions = Vec::new();
            anchors.positions(word.as_bytes(), Also::Apostrophe, &mut positions);
            Anchors::chunks(word, positions, |_| found = true);
            found
        })
    }

    #[test]
    #[cfg_attr(
        not(repository),
        ignore = "reads benches/data, which only the repository has"
    )]
    fn every_word_holds_the_anchors_of_its_stems() {
        let mut words = std::collections::BTreeSet::new();
        for name in ["decisions.md", "lessons.md", "patterns.md"] {
            let text = corpus_file(name);
            tokens::for_each_word(&text, |w| {
                words.insert(w.to_owned());
            });
        }
        assert!(words.len() > 10_000, "{}", words.len());
        // Porter2's exceptional forms and the endings it rewrites.
        let edge = [
            "dying",
            "lying",
            "tying",
            "skies",
            "skis",
            "idly",
            "gently",
            "ugly",
            "early",
            "only",
            "singly",
            "news",
            "hoping",
            "cities",
            "cried",
            "ties",
            "generously",
            "conditional",
            "yeux",
            "chevaux",
            "employ",
            "x'rate",
            "O'Brien",
            "Y",
            "yy",
            "by",
            "ay",
            "quoi",
        ];
        for word in words.iter().map(String::as_str).chain(edge) {
            assert!(anchored(word), "{word:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn random_words_hold_their_anchors(word in "[a-zA-Z0-9']{1,14}") {
            proptest::prop_assert!(anchored(&word), "{:?}", word);
        }

        #[test]
        fn english_like_words_hold_their_anchors(
            word in "[a-z]{0,6}(y|ies|ied|ying|ing|ed|ly|ness|ational|ization|ement|euse|aux|eaux|ique|ité|ée)"
        ) {
            proptest::prop_assert!(anchored(&word), "{:?}", word);
        }
    }

    #[test]
    fn a_best_note_its_job_did_not_keep_sends_the_recall_round_again() {
        use std::fmt::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let memory = dir.path().join(".agents/memory");
        std::fs::create_dir_all(&memory).unwrap();
        let mut notes = String::from("# Lessons\n\n");
        for i in 0..40 {
            let words = "cache ".repeat(i % 5 + 1);
            let _ = write!(notes, "### Lesson {i}\n{words} rate limit {i}\n\n");
        }
        std::fs::write(memory.join("lessons.md"), &notes).unwrap();
        std::fs::write(memory.join("patterns.md"), "### Limits\nrate limit cache\n").unwrap();
        let now = crate::context::Now::from_ms(1_760_779_800_000.0);
        let ctx = Context::new(dir.path(), None, now).unwrap();
        for limit in [1, 3, 8] {
            let request = Request {
                query: "cache rate".to_owned(),
                portfolio: false,
                ranking: score::Ranking::Bm25,
                limit,
                include_archive: false,
                status: StatusFilter::All,
            };
            let params = Params::default();
            let every = recall_keeping(&ctx, &request, None, &params, None).unwrap();
            assert_eq!(every.0.len(), limit);
            // Keeping nothing: every best note is missing, and the second round keeps all.
            let none = recall_keeping(&ctx, &request, None, &params, Some(0)).unwrap();
            let one = recall_keeping(&ctx, &request, None, &params, Some(1)).unwrap();
            let usual = recall_with(&ctx, &request, None, &params).unwrap();
            for other in [&none, &one, &usual] {
                let json = |r: &(Vec<Object>, Vec<String>)| -> Vec<String> {
                    r.0.iter()
                        .map(|o| crate::js::json::Value::Object(o.clone()).compact())
                        .collect()
                };
                assert_eq!(json(other), json(&every), "limit {limit}");
            }
        }
    }

    #[test]
    fn the_best_by_weighed_score_are_the_first_of_the_whole_ranking() {
        use std::fmt::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let memory = dir.path().join(".agents/memory");
        std::fs::create_dir_all(&memory).unwrap();
        let statuses = [
            "active",
            "superseded by Decision 3",
            "rejected",
            "proposed",
            "not sure yet",
            "",
        ];
        let mut decisions = String::from("# Decisions\n\n");
        for i in 0..60 {
            let words = "cache ".repeat(i % 7 + 1);
            let status = statuses[i % statuses.len()];
            let line = if status.is_empty() {
                String::new()
            } else {
                format!("**Status:** {status}\n")
            };
            let _ = write!(decisions, "### Decision {i}\n{line}{words} rate {i}\n\n");
        }
        std::fs::write(memory.join("decisions.md"), &decisions).unwrap();
        std::fs::write(memory.join("lessons.md"), "### Limits\nrate cache\n").unwrap();
        std::fs::create_dir_all(dir.path().join(".bmad/memory")).unwrap();
        std::fs::write(
            dir.path().join(JOURNAL),
            "{\"ts\":\"2026-10-18T09:00:00.000Z\",\"task\":\"cache rate\",\"agent\":\"a\"}\n",
        )
        .unwrap();
        let now = crate::context::Now::from_ms(1_760_779_800_000.0);
        let ctx = Context::new(dir.path(), None, now).unwrap();
        let params = Params::default();
        let request = |limit, status| Request {
            query: "cache rate".to_owned(),
            portfolio: false,
            ranking: score::Ranking::Bm25,
            limit,
            include_archive: false,
            status,
        };
        let compact = |r: &[Object]| -> Vec<String> {
            r.iter()
                .map(|o| crate::js::json::Value::Object(o.clone()).compact())
                .collect()
        };
        for filter in [StatusFilter::All, StatusFilter::InForce] {
            let whole = recall_keeping(&ctx, &request(1000, filter), None, &params, None)
                .unwrap()
                .0;
            let scores: Vec<f64> = whole
                .iter()
                .map(|o| {
                    o.get("score")
                        .and_then(crate::js::json::Value::as_f64)
                        .unwrap()
                })
                .collect();
            assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
            let shown = |status: &str| {
                whole.iter().any(|o| {
                    o.get("status").and_then(crate::js::json::Value::as_str) == Some(status)
                })
            };
            assert_eq!(
                filter == StatusFilter::All,
                shown("rejected") && shown("proposed")
            );
            assert!(shown("active") && shown("unreadable"));
            for limit in 1..=20 {
                for keep in [None, Some(0), Some(2)] {
                    let some = recall_keeping(&ctx, &request(limit, filter), None, &params, keep)
                        .unwrap()
                        .0;
                    assert_eq!(compact(&some), compact(&whole[..limit]), "limit {limit}");
                }
            }
        }
    }

    /// [`Counter::count_events`] without its shortcuts: every line parsed, every event's text
    /// cut into words.
    fn reference_events(
        counter: &mut Counter<'_>,
        journal: &str,
    ) -> (Collection, Vec<(String, Counts)>) {
        let mut collection = Collection::new(counter.en.len());
        let mut matched = Vec::new();
        for line in journal::lines(journal) {
            let Some(event) = journal::event(line) else {
                continue;
            };
            let text = score::event_text(&event);
            let mut counts = counter.count_reference(["", &text]);
            counts.lengths = [0, u32::try_from(line.len()).unwrap()];
            collection.add(&counts);
            if !counts.terms.is_empty() {
                matched.push((text, counts));
            }
        }
        (collection, matched)
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        use serde_json::Value as J;
        let words = "(rate|Rate|rateLimit|rate_limit|limits|pirate|session|x'rate|l'équipe|été|1,2|1|2|3|object|true|null|Infinity|task|agent|ra|sess|[a-z]{1,8}|[A-Z][a-z]{1,5}|\\\\|\"|\t| ){0,6}";
        let leaf = prop_oneof![
            words.prop_map(J::String),
            any::<i32>().prop_map(J::from),
            (0..30i32).prop_map(J::from),
            prop_oneof![Just(1e21), Just(0.5), Just(0.50), Just(-0.0), Just(1.25e-7)]
                .prop_map(J::from),
            any::<bool>().prop_map(J::Bool),
            Just(J::Null),
        ];
        leaf.prop_recursive(2, 8, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(J::Array),
                proptest::collection::vec(("(ci|evalScore|acceptance|rate|x)", inner), 0..3)
                    .prop_map(|pairs| J::Object(pairs.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
        #[test]
        fn events_count_as_every_line_parsed(
            query in "(rate|limit|session|rates|object|true|null|x|12|1e|21|0.5|1,2|ab|été|[a-z]{2,6}| ){1,5}",
            lines in proptest::collection::vec(
                proptest::collection::vec(
                    ("(ts|agent|cli|model|task|outcome|signals|id|artifactHashes|rate)", json_value()),
                    0..6,
                ),
                0..12,
            ),
        ) {
            let journal: String = lines
                .into_iter()
                .map(|pairs| {
                    let object: serde_json::Map<String, serde_json::Value> = pairs.into_iter().collect();
                    serde_json::Value::Object(object).to_string() + "\n"
                })
                .collect();
            let (collection, matched, expected_collection, expected) = with_counter(&query, |counter| {
                let (collection, matched) = counter.count_events(&journal);
                let (expected_collection, expected) = reference_events(counter, &journal);
                (collection, matched, expected_collection, expected)
            });
            let matched: Vec<(String, Counts)> = matched.into_iter().map(|(_, t, c)| (t, c)).collect();
            proptest::prop_assert_eq!(collection, expected_collection);
            proptest::prop_assert_eq!(matched, expected);
        }
    }

    #[test]
    fn an_array_of_values_is_read_as_its_text_joins_them() {
        // The event's text joins an array's items with ",": "1,2" is one word there, though no
        // line writes it.
        for query in ["1,2", "rate"] {
            let journal = "{\"task\":[\"1\",\"2\"],\"agent\":\"rate\"}\n{\"task\":\"x\"}\n";
            with_counter(query, |counter| {
                let (collection, matched) = counter.count_events(journal);
                assert_eq!(matched.len(), 1, "{query}");
                assert_eq!(matched[0].1, "rate 1,2 {}");
                assert_eq!(collection, reference_events(counter, journal).0);
            });
        }
    }

    #[test]
    fn a_query_of_stop_words_keeps_them() {
        let mut lexicon = Lexicon::default();
        assert_eq!(query_terms("the of", &mut lexicon).0.len(), 2);
        assert!(query_terms("x ' .", &mut lexicon).0.is_empty());
        assert_eq!(
            counter_counts("the", ["The end", "of the story"]),
            counts([7, 12], &[(0, [1, 1])])
        );
    }
}
