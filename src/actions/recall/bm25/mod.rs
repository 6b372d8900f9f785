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
//!   in each file once; only the whitespace-delimited chunks where one starts a word part, or
//!   that hold a `'` or a non-ASCII byte, are cut into words and stemmed (once per distinct
//!   chunk), which gives the same term frequencies as cutting every word. A journal line is
//!   parsed only when it may hold a term.
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
//! Candidates with a score above zero are sorted, highest first, ties in candidate order (the
//! journal's events, then the note files in search order), as lexical recall sorts them.

pub mod tokens;

use std::collections::HashMap;
use std::rc::Rc;

use aho_corasick::{AhoCorasick, Input, MatchKind};

use crate::actions::recall::score::{self, Candidate, Note, NoteFile, Request, Scored};
use crate::context::Context;
use crate::error::Result;
use crate::js::json::Object;
use crate::store::journal;
use crate::store::layout::JOURNAL;
use crate::store::parallel::on_two_threads;
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

/// Where a query term may stand in a text: the leading letters of each of its stems, found by one
/// automaton (ASCII case ignored, SIMD prefilter).
///
/// Both stemmers keep the leading letters of a plain ASCII word, but for its last one or two
/// (Porter2 adds an `e` or turns a `y` into an `i`; both drop suffixes): a word whose stem is `s`
/// starts with `s`'s first `min(|s| − 1, 4)` letters (all of them when `s` has two or fewer), an
/// `i` among them possibly written `y` (`dying` is `die`). A word part starts a run of ASCII
/// letters and digits or a camel-case hump. So an ASCII stretch where no word part starts with
/// one of these anchors, with no `'` (an apostrophe inside a word is dropped from its stem) and
/// no non-ASCII byte (case and accent folding), holds no query term; the tests hold every word of
/// the benchmark corpus and random words to that.
#[derive(Debug)]
struct Anchors {
    automaton: AhoCorasick,
    /// Some anchor could come out of the text an event's values give but not their JSON
    /// (numbers written anew, `[object Object]`): every journal line is then parsed.
    parse_every_event: bool,
}

impl Anchors {
    fn new<'s>(stems: impl IntoIterator<Item = &'s str>) -> Self {
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut parse_every_event = false;
        for stem in stems {
            // A stem with a non-ASCII letter is no ASCII word's: those are read exactly anyway.
            if !stem.is_ascii() || stem.is_empty() {
                continue;
            }
            let len = if stem.len() <= 2 {
                stem.len()
            } else {
                (stem.len() - 1).min(4)
            };
            let anchor = &stem.as_bytes()[..len];
            parse_every_event |= anchor.iter().all(|c| c.is_ascii_digit() || *c == b'e')
                || [&b"object"[..], b"infinity", b"nan"]
                    .iter()
                    .any(|w| w.starts_with(anchor));
            let mut variants = vec![anchor.to_vec()];
            for (i, &c) in anchor.iter().enumerate() {
                if c == b'i' {
                    for k in 0..variants.len() {
                        let mut v = variants[k].clone();
                        v[i] = b'y';
                        variants.push(v);
                    }
                }
            }
            patterns.extend(variants);
        }
        patterns.sort_unstable();
        patterns.dedup();
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(&patterns)
            .unwrap_or_else(|_| AhoCorasick::new([b"\0"]).expect("one pattern"));
        Self {
            automaton,
            parse_every_event,
        }
    }

    /// Calls `chunk` with each whitespace-delimited chunk of `text` that may hold a query term:
    /// one holding an anchor, a `'` or a non-ASCII byte; each once, in order.
    /// `hits` are [`Anchors::hits`] of `text`.
    fn chunks<'t>(text: &'t str, hits: &[usize], mut chunk: impl FnMut(&'t str)) {
        let b = text.as_bytes();
        let is_ascii = text.is_ascii();
        let (mut quote, mut high) = (0, if is_ascii { usize::MAX } else { 0 });
        let mut next = 0;
        let mut pos = 0;
        while pos < b.len() {
            // The next position of each kind at or after `pos` (`usize::MAX`: none).
            while hits.get(next).is_some_and(|&h| h < pos) {
                next += 1;
            }
            let hit = hits.get(next).copied().unwrap_or(usize::MAX);
            if quote < pos || pos == 0 {
                quote = memchr::memchr(b'\'', &b[pos..]).map_or(usize::MAX, |i| pos + i);
            }
            if high < pos || (pos == 0 && !is_ascii) {
                high = tokens::first_non_ascii(&b[pos..]).map_or(usize::MAX, |i| pos + i);
            }
            let at = hit.min(quote).min(high);
            if at == usize::MAX {
                return;
            }
            let start = b[..at]
                .iter()
                .rposition(u8::is_ascii_whitespace)
                .map_or(0, |i| i + 1);
            let end = b[at..]
                .iter()
                .position(u8::is_ascii_whitespace)
                .map_or(b.len(), |i| at + i);
            chunk(&text[start..end]);
            pos = end + 1;
        }
    }

    /// Every position of `b` where an anchor starts a word part (after a byte that is no ASCII
    /// letter or digit, or an uppercase letter after a lowercase one), in order. The automaton
    /// looks for lowercase anchors in a lowercase copy (`lower`): with a few patterns and no case
    /// to ignore, its SIMD prefilter skips most of the text.
    fn hits(&self, b: &[u8], lower: &mut Vec<u8>) -> Vec<usize> {
        lower.clear();
        lower.extend_from_slice(b);
        lower.make_ascii_lowercase();
        let mut hits = Vec::new();
        let mut pos = 0;
        // Leftmost matches, the search resumed one byte after each: every start is seen.
        while let Some(m) = self
            .automaton
            .find(Input::new(&lower[..]).span(pos..b.len()))
        {
            let at = m.start();
            let starts_part = at == 0 || {
                let before = b[at - 1];
                !before.is_ascii_alphanumeric()
                    || (before.is_ascii_lowercase() && b[at].is_ascii_uppercase())
            };
            if starts_part {
                hits.push(at);
            }
            pos = at + 1;
        }
        hits
    }

    /// Whether a journal line must be parsed: it may hold a query term, or a backslash (an
    /// escape may write any letter).
    fn event_may_match(&self, line: &str) -> bool {
        self.parse_every_event
            || !line.is_ascii()
            || memchr::memchr2(b'\'', b'\\', line.as_bytes()).is_some()
            || !self.hits(line.as_bytes(), &mut Vec::new()).is_empty()
    }
}

/// The term of each word of a chunk, per language (`NONE`: none).
const NONE: u16 = u16::MAX;

/// One pass's view of the words: which term each stem is, where terms may stand, and the terms
/// of every chunk met so far.
struct Counter<'l> {
    lexicon: &'l mut Lexicon,
    keep_stop: bool,
    /// The term index of each stem interned when the pass began (`NONE`: none), per language.
    en_terms: Vec<u16>,
    fr_terms: Vec<u16>,
    anchors: Rc<Anchors>,
    /// A field in lowercase, for the anchors' search.
    lower: Vec<u8>,
    /// Each chunk met, as a range of `found`: its words that are a term in either language.
    chunks: HashMap<Box<str>, (u32, u32), foldhash::fast::FixedState>,
    found: Vec<(u16, u16)>,
    en: Vec<[u32; 2]>,
    fr: Vec<[u32; 2]>,
}

/// A text is French when at least one byte in this many is `0xC3` (the first byte of `é`, `à`,
/// `ç`… in UTF-8).
const FRENCH_FROM: usize = 64;

impl<'l> Counter<'l> {
    fn new(lexicon: &'l mut Lexicon, terms: &[Term], keep_stop: bool) -> Self {
        let mut en_terms = vec![NONE; lexicon.names.len()];
        let mut fr_terms = vec![NONE; lexicon.names.len()];
        for (i, term) in terms.iter().enumerate().rev() {
            let i = u16::try_from(i).unwrap_or(NONE);
            en_terms[term.en as usize] = i;
            fr_terms[term.fr as usize] = i;
        }
        let anchors = Anchors::new(
            terms
                .iter()
                .flat_map(|t| [t.en, t.fr])
                .map(|stem| &*lexicon.names[stem as usize]),
        );
        Self {
            lexicon,
            keep_stop,
            en_terms,
            fr_terms,
            anchors: Rc::new(anchors),
            lower: Vec::new(),
            chunks: HashMap::default(),
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
        let (from, to) = if let Some(&range) = self.chunks.get(chunk) {
            range
        } else {
            let from = self.found.len();
            let mut words = Vec::new();
            tokens::for_each_word(chunk, |w| words.push(w));
            for word in words {
                if let Some(t) = self.terms_of(word) {
                    self.found.push(t);
                }
            }
            let at = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
            let range = (at(from), at(self.found.len()));
            self.chunks.insert(chunk.into(), range);
            range
        };
        for i in from as usize..to as usize {
            self.tally(self.found[i], field);
        }
    }

    /// The counts of what was seen, in the candidate's language; the per-term tallies are
    /// cleared for the next candidate.
    fn finish(&mut self, fields: [&str; 2]) -> Counts {
        let lengths = fields.map(|f| u32::try_from(f.len()).unwrap_or(u32::MAX));
        let bytes: usize = fields.iter().map(|f| f.len()).sum();
        let accented: usize = fields
            .iter()
            .filter(|f| !f.is_ascii())
            .map(|f| memchr::memchr_iter(0xC3, f.as_bytes()).count())
            .sum();
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
        let anchors = Rc::clone(&self.anchors);
        let mut lower = std::mem::take(&mut self.lower);
        let hits = fields.map(|text| anchors.hits(text.as_bytes(), &mut lower));
        self.lower = lower;
        self.count_with(fields, &hits)
    }

    /// [`Counter::count`] with each field's [`Anchors::hits`] given.
    fn count_with(&mut self, fields: [&str; 2], hits: &[Vec<usize>; 2]) -> Counts {
        for (field, text) in fields.iter().enumerate() {
            Anchors::chunks(text, &hits[field], |chunk| self.take_chunk(chunk, field));
        }
        self.finish(fields)
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
    /// Each note file's text.
    texts: Vec<(&'t NoteFile, &'t str)>,
}

/// One pass's result: both collections, the events that hold a term (with their text and
/// counts), and every note's counts.
struct Pass {
    events: Collection,
    notes: Collection,
    matched_events: Vec<(Object, String, Counts)>,
    note_counts: Vec<Counts>,
}

/// Journal bytes cost this many times note bytes to count (most lines are only searched, as
/// notes are): the weight that balances the two threads.
const JOURNAL_COST: usize = 1;

impl Pass {
    /// Counts the events of `journal` and `notes`.
    fn run(
        journal: &str,
        notes: &[(&NoteFile, Section<'_>)],
        texts: &[(&NoteFile, &str)],
        counter: &mut Counter<'_>,
        terms: usize,
    ) -> Self {
        let mut pass = Self {
            events: Collection::new(terms),
            notes: Collection::new(terms),
            matched_events: Vec::new(),
            note_counts: Vec::with_capacity(notes.len()),
        };
        let anchors = Rc::clone(&counter.anchors);
        for line in journal::lines(journal) {
            let length = u32::try_from(line.len()).unwrap_or(u32::MAX);
            if !anchors.event_may_match(line) {
                // No term can be in its values: only its length counts, when it is shaped as an
                // object (a malformed line of that shape counts too, unparsed).
                if line.starts_with('{') && line.ends_with('}') {
                    pass.events.add(&Counts {
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
            let mut counts = counter.count(["", &text]);
            counts.lengths = [0, length];
            pass.events.add(&counts);
            if !counts.terms.is_empty() {
                pass.matched_events.push((event, text, counts));
            }
        }
        // The anchors are searched once per file's run of sections, not once per field.
        let anchors = Rc::clone(&counter.anchors);
        let mut lower = Vec::new();
        let mut rest = notes;
        while let Some(((file, _), _)) = rest.split_first() {
            let same = rest
                .iter()
                .take_while(|(f, _)| std::ptr::eq(*f, *file))
                .count();
            let (group, after) = rest.split_at(same);
            rest = after;
            let text = texts
                .iter()
                .find(|(f, _)| std::ptr::eq(*f, *file))
                .map_or("", |(_, t)| *t);
            // Where a part lies in the file's text (`None`: not in it).
            let within = |part: &str| {
                let at = (part.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
                (at <= text.len() && part.len() <= text.len() - at).then_some(at)
            };
            let [first_heading, _, first_body, _] = group[0].1.parts();
            let [.., last_body, _] = group[group.len() - 1].1.parts();
            let from = within(first_heading).or(within(first_body)).unwrap_or(0);
            let to = within(last_body).map_or(text.len(), |at| at + last_body.len());
            let hits = anchors.hits(&text.as_bytes()[from..to.max(from)], &mut lower);
            for (_, section) in group {
                let [heading, _, body, _] = section.parts();
                let field_hits = [heading, body].map(|part| match within(part) {
                    Some(at) if at >= from && at + part.len() <= to => {
                        let (start, end) = (at - from, at - from + part.len());
                        let first = hits.partition_point(|&h| h < start);
                        hits[first..]
                            .iter()
                            .take_while(|&&h| h < end)
                            .map(|&h| h - start)
                            .collect()
                    }
                    _ => anchors.hits(part.as_bytes(), &mut lower),
                });
                let counts = counter.count_with([heading, body], &field_hits);
                pass.notes.add(&counts);
                pass.note_counts.push(counts);
            }
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
                &candidates.texts,
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
                Self::run("", second, &candidates.texts, &mut counter, terms.len())
            });
            let mut counter = Counter::new(lexicon, terms, keep_stop);
            let a = Self::run(
                candidates.journal,
                first,
                &candidates.texts,
                &mut counter,
                terms.len(),
            );
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
    let files = score::note_files(ctx, portfolio);
    // The journal, then the note files, read on two threads; errors and warnings in file order.
    let journal_path = ctx.root.join(JOURNAL);
    let mut reads = on_two_threads(files.len() + 1, |i| match i.checked_sub(1) {
        None => read_loose(&journal_path, &ctx.root),
        Some(f) => read_loose(&files[f].path, &files[f].within),
    })
    .into_iter();
    let journal_text = reads
        .next()
        .unwrap_or(Ok(crate::store::paths::Loose::Missing))?
        .or_warn(JOURNAL, &mut warnings);
    let mut texts = Vec::with_capacity(files.len());
    for (file, read) in files.iter().zip(reads) {
        texts.push(read?.or_warn(&file.source_file, &mut warnings));
    }
    let mut lexicon = Lexicon::default();
    let (terms, keep_stop) = query_terms(&request.query, &mut lexicon);
    if terms.is_empty() {
        return Ok((Vec::new(), warnings));
    }
    let cut = on_two_threads(texts.len(), |i| sections(texts[i].as_deref().unwrap_or("")));
    let candidates = Candidates {
        journal: journal_text.as_deref().unwrap_or(""),
        notes: files
            .iter()
            .zip(cut)
            .flat_map(|(file, cut)| cut.into_iter().map(move |s| (file, s)))
            .collect(),
        texts: files
            .iter()
            .zip(&texts)
            .map(|(file, text)| (file, text.as_deref().unwrap_or("")))
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
            texts: vec![(&file, &text)],
        };
        let mut lexicon = Lexicon::default();
        let (terms, keep_stop) = query_terms("cached queue équipe", &mut lexicon);
        let mut one = lexicon.clone();
        let mut counter = Counter::new(&mut one, &terms, keep_stop);
        let single = Pass::run(
            candidates.journal,
            &candidates.notes,
            &candidates.texts,
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

    #[test]
    fn a_whole_file_searched_once_counts_as_the_reference_counts() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/benches/data/adr/corpus/.agents/memory"
        );
        let text = std::fs::read_to_string(format!("{dir}/decisions.md")).unwrap();
        let file = NoteFile {
            source: "decisions.md",
            path: std::path::PathBuf::from("decisions.md"),
            source_file: "decisions.md".to_owned(),
            within: std::path::PathBuf::from("."),
        };
        let notes: Vec<_> = sections(&text).into_iter().map(|s| (&file, s)).collect();
        for query in [
            "rate limit auth-middleware session",
            "ParserCache dying yes",
        ] {
            let mut lexicon = Lexicon::default();
            let (terms, keep_stop) = query_terms(query, &mut lexicon);
            let mut counter = Counter::new(&mut lexicon, &terms, keep_stop);
            let pass = Pass::run("", &notes, &[(&file, &text)], &mut counter, terms.len());
            for ((_, section), counts) in notes.iter().zip(&pass.note_counts) {
                let [heading, _, body, _] = section.parts();
                assert_eq!(
                    counts,
                    &counter.count_reference([heading, body]),
                    "{heading:?}"
                );
            }
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
            let hits = anchors.hits(word.as_bytes(), &mut Vec::new());
            Anchors::chunks(word, &hits, |_| found = true);
            found
        })
    }

    #[test]
    fn every_word_holds_the_anchors_of_its_stems() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/benches/data/adr/corpus/.agents/memory"
        );
        let mut words = std::collections::BTreeSet::new();
        for name in ["decisions.md", "lessons.md", "patterns.md"] {
            let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
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
