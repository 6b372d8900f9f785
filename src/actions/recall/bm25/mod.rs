//! `recall --ranking bm25`: BM25F over the same candidates as lexical recall.
//!
//! The default ranking stays bmad-plus's; this one is opt-in and better at its job (measured in
//! `BENCHMARKS.md`). Everything is computed per query from one read of the files — no index on
//! disk, since the memory lives in git and an index would be one more file to merge and to go
//! stale. For every candidate the pass counts the query's terms and the candidate's length;
//! document frequencies and average lengths come from the same pass.
//!
//! * **Words** ([`tokens`]): Unicode word boundaries, case and accent folding, French elision,
//!   short stop-word lists, Snowball English and French stems; a candidate's language (the stem
//!   that counts for it) is guessed from its stop words.
//! * **Two collections**: the notes (`###` sections, with the heading and the body as two fields
//!   of their own weight and length normalization) and the journal's events (one field). Each has
//!   its own document count, frequencies and average lengths; an event's score then loses half
//!   its weight every 30 days, as in lexical recall.
//! * **The score** of a candidate d for the query's terms t:
//!   `Σ idf(t) · (k1 + 1) · tf'(t,d) / (k1 + tf'(t,d))`, where
//!   `tf'(t,d) = Σ_field weight · tf / (1 − b + b · length / average length)` and
//!   `idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))`.
//!
//! Candidates with a score above zero are sorted, highest first, ties in candidate order (the
//! journal's events, then the note files in search order), as lexical recall sorts them.

pub mod tokens;

use std::collections::HashMap;
use std::rc::Rc;

use crate::actions::recall::score::{self, Candidate, Note, NoteFile, Request, Scored};
use crate::context::Context;
use crate::error::Result;
use crate::js::json::Object;
use crate::store::journal;
use crate::store::layout::JOURNAL;
use crate::store::paths::read_loose;
use crate::store::sections::{Section, sections};

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

/// A store this large is counted on two threads.
const PARALLEL_FROM_BYTES: usize = 1024 * 1024;
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

/// A candidate's counts: the length of each field, and each query term's frequency per field.
#[derive(Debug, Clone, PartialEq)]
pub struct Counts {
    pub lengths: [u32; 2],
    /// `(term, [frequency in the heading, frequency in the body])`, terms that occur only.
    pub terms: Vec<(u16, [u32; 2])>,
}

/// One pass's view of the words: which term each stem is, and which first letters start one.
struct Counter<'l> {
    lexicon: &'l mut Lexicon,
    keep_stop: bool,
    /// The term index of each stem interned when the pass began (`u16::MAX`: none), per language.
    en_terms: Vec<u16>,
    fr_terms: Vec<u16>,
    /// What a plain word may be by its first two bytes (lowercase ASCII), at
    /// `128 × first + second`: [`TERM_PREFIX`] and [`STOP_PREFIX`] flags.
    prefixes: Rc<[u8]>,
    en: Vec<[u32; 2]>,
    fr: Vec<[u32; 2]>,
}

use tokens::{STOP_PREFIX, TERM_PREFIX};

/// A candidate's running counts: its field lengths and its stop words of each language.
#[derive(Debug, Default)]
struct Tally {
    lengths: [u32; 2],
    stop_en: u32,
    stop_fr: u32,
}

/// A word as one pass sees it.
#[derive(Debug, Clone, Copy)]
struct Seen {
    is_stop_en: bool,
    is_stop_fr: bool,
    en: Option<u16>,
    fr: Option<u16>,
}

impl<'l> Counter<'l> {
    fn new(lexicon: &'l mut Lexicon, terms: &[Term], keep_stop: bool) -> Self {
        let mut en_terms = vec![u16::MAX; lexicon.names.len()];
        let mut fr_terms = vec![u16::MAX; lexicon.names.len()];
        let mut prefixes = vec![0u8; 128 * 128];
        for word in tokens::STOP_EN.iter().chain(tokens::STOP_FR) {
            if let [first, second, ..] = **word
                && first < 128
                && second < 128
            {
                prefixes[usize::from(first) * 128 + usize::from(second)] |= STOP_PREFIX;
            }
        }
        for (i, term) in terms.iter().enumerate().rev() {
            let i = u16::try_from(i).unwrap_or(u16::MAX);
            for (map, stem) in [(&mut en_terms, term.en), (&mut fr_terms, term.fr)] {
                map[stem as usize] = i;
                match *lexicon.names[stem as usize].as_bytes() {
                    [first, second, ..] if first < 128 && second < 128 => {
                        let at = usize::from(first) * 128;
                        prefixes[at + usize::from(second)] |= TERM_PREFIX;
                        // English stems `dying` as `die`.
                        if second == b'i' {
                            prefixes[at + usize::from(b'y')] |= TERM_PREFIX;
                        }
                    }
                    [first, ..] if first < 128 => {
                        let at = usize::from(first) * 128;
                        prefixes[at..at + 128]
                            .iter_mut()
                            .for_each(|p| *p |= TERM_PREFIX);
                    }
                    _ => {}
                }
            }
        }
        Self {
            lexicon,
            keep_stop,
            en_terms,
            fr_terms,
            prefixes: prefixes.into(),
            en: vec![[0; 2]; terms.len()],
            fr: vec![[0; 2]; terms.len()],
        }
    }

    /// `raw` for this pass; `None` when it is no word. A plain word (ASCII letters and digits)
    /// whose first two letters start no term's stem cannot be one of them (stemming keeps them,
    /// but for a `y` that may become an `i`), so it is not stemmed at all.
    fn see(&mut self, raw: &str, is_plain: bool) -> Option<Seen> {
        let b = raw.as_bytes();
        if is_plain {
            let [first, second, ..] = *b else {
                return None;
            };
            let prefix = usize::from(first.to_ascii_lowercase()) * 128
                + usize::from(second.to_ascii_lowercase());
            if self.prefixes[prefix] & TERM_PREFIX == 0 {
                let (is_stop_en, is_stop_fr) = tokens::ascii_stop(b);
                return Some(Seen {
                    is_stop_en,
                    is_stop_fr,
                    en: None,
                    fr: None,
                });
            }
        }
        let info = self.lexicon.analyze(raw)?;
        let find =
            |map: &[u16], stem: u32| map.get(stem as usize).copied().filter(|&t| t != u16::MAX);
        Some(Seen {
            is_stop_en: info.is_stop_en,
            is_stop_fr: info.is_stop_fr,
            en: find(&self.en_terms, info.en),
            fr: find(&self.fr_terms, info.fr),
        })
    }

    /// Counts word `raw` of `field`, the way that serves every word.
    #[inline(never)]
    fn take(&mut self, raw: &str, is_plain: bool, field: usize, tally: &mut Tally) {
        let Some(w) = self.see(raw, is_plain) else {
            return;
        };
        tally.stop_en += u32::from(w.is_stop_en);
        tally.stop_fr += u32::from(w.is_stop_fr);
        if !self.keep_stop && (w.is_stop_en || w.is_stop_fr) {
            return;
        }
        tally.lengths[field] += 1;
        if let Some(t) = w.en {
            self.en[usize::from(t)][field] += 1;
        }
        if let Some(t) = w.fr {
            self.fr[usize::from(t)][field] += 1;
        }
    }

    /// The counts of what was seen, in the language the stop words suggest; the per-term tallies
    /// are cleared for the next candidate.
    fn finish(&mut self, tally: &Tally) -> Counts {
        let &Tally {
            lengths,
            stop_en,
            stop_fr,
        } = tally;
        let chosen = if stop_fr > stop_en {
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

    /// [`Counter::count`] as it was before its shortcuts: every word through [`Counter::see`],
    /// cut at whitespace first. The reference the tests hold it to.
    #[cfg(test)]
    fn count_reference(&mut self, fields: [&str; 2]) -> Counts {
        let mut tally = Tally::default();
        for (field, text) in fields.iter().enumerate() {
            tokens::reference_marked_words(text, |raw, is_plain| {
                self.take(raw, is_plain, field, &mut tally);
            });
        }
        self.finish(&tally)
    }

    /// Counts the terms in a candidate's fields, in the language its stop words suggest. Most
    /// plain words are only counted, in bulk by the cut itself; the rest go through
    /// [`Counter::take`].
    fn count(&mut self, fields: [&str; 2]) -> Counts {
        let mut tally = Tally::default();
        let prefixes = Rc::clone(&self.prefixes);
        for (field, text) in fields.iter().enumerate() {
            let mut quiet = tokens::Quiet::default();
            tokens::count_marked_words(text, &prefixes, &mut quiet, |raw, is_plain| {
                self.take(raw, is_plain, field, &mut tally);
            });
            tally.lengths[field] += quiet.words + if self.keep_stop { quiet.stops } else { 0 };
            tally.stop_en += quiet.stop_en;
            tally.stop_fr += quiet.stop_fr;
        }
        self.finish(&tally)
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
        let field_weights = [params.heading_weight, 1.0];
        let bs = [params.heading_b, params.body_b];
        let mut norms = [1.0; 2];
        for field in [HEADING, BODY] {
            #[expect(clippy::cast_precision_loss, reason = "word counts are far below 2^53")]
            let average = self.total_lengths[field] as f64 / f64::from(self.size.max(1));
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
                self.idf(t) * (k1 + 1.0) * tf / (k1 + tf)
            })
            .sum()
    }
}

/// Every candidate: the journal's text (its events are parsed as they are counted), then the
/// notes.
struct Candidates<'t> {
    journal: &'t str,
    notes: Vec<(&'t NoteFile, Section<'t>)>,
}

/// One pass's result: both collections, the events that hold a term (with their text and
/// counts), and every note's counts.
struct Pass {
    events: Collection,
    notes: Collection,
    matched_events: Vec<(Object, String, Counts)>,
    note_counts: Vec<Counts>,
}

/// Journal bytes cost this many times note bytes to count (each line is parsed as JSON and its
/// text rebuilt): the weight that balances the two threads.
const JOURNAL_COST: usize = 4;

impl Pass {
    /// Counts the events of `journal` and `notes`.
    fn run(
        journal: &str,
        notes: &[(&NoteFile, Section<'_>)],
        counter: &mut Counter<'_>,
        terms: usize,
    ) -> Self {
        let mut pass = Self {
            events: Collection::new(terms),
            notes: Collection::new(terms),
            matched_events: Vec::new(),
            note_counts: Vec::with_capacity(notes.len()),
        };
        for event in journal::lines(journal).filter_map(journal::event) {
            let text = score::event_text(&event);
            let counts = counter.count(["", &text]);
            pass.events.add(&counts);
            if !counts.terms.is_empty() {
                pass.matched_events.push((event, text, counts));
            }
        }
        for (_, section) in notes {
            let [heading, _, body, _] = section.parts();
            let counts = counter.count([heading, body]);
            pass.notes.add(&counts);
            pass.note_counts.push(counts);
        }
        pass
    }

    /// Counts every candidate; on a large store on two threads, each with its own copy of the
    /// lexicon: one takes the journal and the first notes, the other the notes after the point
    /// that shares the work in two.
    fn run_all(
        candidates: &Candidates<'_>,
        lexicon: &mut Lexicon,
        terms: &[Term],
        keep_stop: bool,
    ) -> Self {
        let bytes = |(_, s): &(&NoteFile, Section<'_>)| s.parts().iter().map(|p| p.len()).sum();
        let note_bytes: Vec<usize> = candidates.notes.iter().map(bytes).collect();
        let journal_bytes = candidates.journal.len();
        let total = journal_bytes + note_bytes.iter().sum::<usize>();
        if total < PARALLEL_FROM_BYTES {
            let mut counter = Counter::new(lexicon, terms, keep_stop);
            return Self::run(
                candidates.journal,
                &candidates.notes,
                &mut counter,
                terms.len(),
            );
        }
        let work = journal_bytes * JOURNAL_COST + (total - journal_bytes);
        let mut seen = journal_bytes * JOURNAL_COST;
        let split = if seen >= work / 2 {
            0
        } else {
            note_bytes
                .iter()
                .position(|&b| {
                    seen += b;
                    seen > work / 2
                })
                .unwrap_or(note_bytes.len())
        };
        let (first, second) = candidates.notes.split_at(split);
        let mut other = lexicon.clone();
        let (mut a, b) = std::thread::scope(|scope| {
            let later = scope.spawn(|| {
                let mut counter = Counter::new(&mut other, terms, keep_stop);
                Self::run("", second, &mut counter, terms.len())
            });
            let mut counter = Counter::new(lexicon, terms, keep_stop);
            let a = Self::run(candidates.journal, first, &mut counter, terms.len());
            (
                a,
                later
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            )
        });
        a.notes.merge(&b.notes);
        a.note_counts.extend(b.note_counts);
        a
    }

    /// The notes scoring above zero, as `(score, index)`, best first, ties in candidate order.
    fn best_notes(&self, params: &Params) -> Vec<(f64, usize)> {
        let mut scores: Vec<(f64, usize)> = self
            .note_counts
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.terms.is_empty())
            .map(|(i, c)| (self.notes.score(c, params), i))
            .filter(|&(s, _)| s > 0.0)
            .collect();
        scores.sort_by(|a, b| b.0.total_cmp(&a.0));
        scores
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
    let mut warnings = Vec::new();
    let journal_text =
        read_loose(&ctx.root.join(JOURNAL), &ctx.root)?.or_warn(JOURNAL, &mut warnings);
    let files = score::note_files(ctx, portfolio);
    let mut texts = Vec::with_capacity(files.len());
    for file in &files {
        texts.push(read_loose(&file.path, &file.within)?.or_warn(&file.source_file, &mut warnings));
    }
    let mut lexicon = Lexicon::default();
    let (terms, keep_stop) = query_terms(&request.query, &mut lexicon);
    if terms.is_empty() {
        return Ok((Vec::new(), warnings));
    }
    let candidates = Candidates {
        journal: journal_text.as_deref().unwrap_or(""),
        notes: files
            .iter()
            .zip(&texts)
            .flat_map(|(file, text)| {
                sections(text.as_deref().unwrap_or(""))
                    .into_iter()
                    .map(move |s| (file, s))
            })
            .collect(),
    };

    let mut pass = Pass::run_all(&candidates, &mut lexicon, &terms, keep_stop);

    let mut scored: Vec<Scored> = Vec::new();
    for (event, text, counts) in std::mem::take(&mut pass.matched_events) {
        let score = pass.events.score(&counts, params);
        let score = score::decay(score, event.get("ts"), ctx.now.ms);
        if score > 0.0 {
            scored.push(Scored {
                score,
                candidate: Candidate::Event {
                    event,
                    text,
                    source: None,
                },
            });
        }
    }
    // Only the notes that can be among the best are copied out of their file.
    let mut best = pass.best_notes(params);
    best.truncate(request.limit);
    best.sort_by_key(|&(_, i)| i);
    for (score, i) in best {
        let (file, section) = &candidates.notes[i];
        scored.push(Scored {
            score,
            candidate: Candidate::Note(Note::new(file, section)),
        });
    }
    score::sort(&mut scored);
    scored.truncate(request.limit);
    let results = scored
        .into_iter()
        .map(|s| score::entry(s.score, s.candidate))
        .collect();
    Ok((results, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn counter_counts(query: &str, fields: [&str; 2]) -> Counts {
        let mut lexicon = Lexicon::default();
        let (terms, keep_stop) = query_terms(query, &mut lexicon);
        Counter::new(&mut lexicon, &terms, keep_stop).count(fields)
    }

    #[test]
    fn counts_follow_stems_fields_and_language() {
        assert_eq!(
            counter_counts(
                "the deployment of caches",
                ["Deploying", "we deployed the cache, and a cached deploy"]
            ),
            counts([1, 5], &[(0, [1, 2]), (1, [0, 2])])
        );
        // A French candidate counts French stems: "déploiement" is "deploi" in French.
        assert_eq!(
            counter_counts("déploiement", ["", "les déploiements de la semaine"]),
            counts([0, 2], &[(0, [0, 1])])
        );
        // Cyrillic and Greek words are found, whatever their case.
        assert_eq!(
            counter_counts("кэш λόγος", ["КЭШ", "Λόγος и кэш"]),
            counts([1, 3], &[(0, [1, 1]), (1, [0, 1])])
        );
    }

    #[test]
    fn two_threads_count_what_one_counts() {
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
        assert!(text.len() > PARALLEL_FROM_BYTES);
        let file = NoteFile {
            source: "decisions.md",
            path: std::path::PathBuf::from("decisions.md"),
            source_file: "decisions.md".to_owned(),
            within: std::path::PathBuf::from("."),
        };
        let candidates = Candidates {
            journal: "{\"task\":\"cache events\"}\n{\"task\":\"queue\"}\nnull\n",
            notes: sections(&text).into_iter().map(|s| (&file, s)).collect(),
        };
        let mut lexicon = Lexicon::default();
        let (terms, keep_stop) = query_terms("cached queue équipe", &mut lexicon);
        let mut one = lexicon.clone();
        let mut counter = Counter::new(&mut one, &terms, keep_stop);
        let single = Pass::run(
            candidates.journal,
            &candidates.notes,
            &mut counter,
            terms.len(),
        );
        let both = Pass::run_all(&candidates, &mut lexicon, &terms, keep_stop);
        assert_eq!(both.notes, single.notes);
        assert_eq!(both.events, single.events);
        assert_eq!(both.note_counts, single.note_counts);
        let events = |p: &Pass| -> Vec<(String, Counts)> {
            p.matched_events
                .iter()
                .map(|(_, text, counts)| (text.clone(), counts.clone()))
                .collect()
        };
        assert_eq!(events(&both), events(&single));
        assert_eq!(events(&single).len(), 2);
        // "cached" is every note's "cache", "queue" two notes in three ("queues").
        assert_eq!(single.notes.frequencies, [15_000, 10_000, 15_000]);
    }

    /// Both ways of counting, on the same fields.
    fn both_counts(query: &str, fields: [&str; 2]) -> (Counts, Counts) {
        let mut lexicon = Lexicon::default();
        let (terms, keep_stop) = query_terms(query, &mut lexicon);
        let mut counter = Counter::new(&mut lexicon, &terms, keep_stop);
        let fast = counter.count(fields);
        (fast, counter.count_reference(fields))
    }

    #[test]
    fn counts_are_the_reference_counts_on_the_corpus() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/benches/data/adr/corpus/.agents/memory"
        );
        let text = std::fs::read_to_string(format!("{dir}/decisions.md")).unwrap();
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

    proptest::proptest! {
        #[test]
        fn counts_are_the_reference_counts(
            query in "(the|de|les|cache|caching|rate|limit|session|auth|yes|y|Into|ab|été|à|où|l'équipe|x|[a-z]{2,7}|\\.|\\-| ){1,8}",
            heading in "(the|The|their|There|cette|de|les|into|a|I|cache|caches|Caching|rate|Rating|limits|sessions|Session|authMiddleware|yes|dying|ab|AB|été|où|à|l'équipe|3,14|don't|[a-zA-Z]{1,9}|[0-9]{1,3}|[ \n',;_.:-]|\\u{2019}|кэш){0,12}",
            body in "(the|The|their|There|cette|de|les|into|a|I|cache|caches|Caching|rate|Rating|limits|sessions|Session|authMiddleware|yes|dying|ab|AB|été|où|à|l'équipe|3,14|don't|[a-zA-Z]{1,9}|[a-zA-Z]{60,70}|[0-9]{1,3}|[ \n',;_.:-]|\\u{2019}|кэш){0,40}",
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

    #[test]
    fn a_query_of_stop_words_keeps_them() {
        let mut lexicon = Lexicon::default();
        assert_eq!(query_terms("the of", &mut lexicon).0.len(), 2);
        assert!(query_terms("x ' .", &mut lexicon).0.is_empty());
        assert_eq!(
            counter_counts("the", ["The end", "of the story"]),
            counts([2, 3], &[(0, [1, 1])])
        );
    }
}
