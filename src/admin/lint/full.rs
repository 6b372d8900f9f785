//! `lint --full`: proposals, never actions. Each is information (it never fails the run):
//!
//! * **near-duplicate entries**, in one note file or across them, by the measure of
//!   [`crate::actions::alike`] (the Jaccard similarity of their sets of word 3-shingles is at
//!   least [`DUPLICATE_THRESHOLD`]; entries of fewer than five tokens are not compared), which
//!   `propose`, `import` and `admit` warn with too. All pairs are found with prefix filtering
//!   (each set ordered rarest shingle first; two sets that reach the threshold share a shingle
//!   among the first few of each), then measured exactly. Only the shingles that may be shared
//!   are sorted (by buckets, where a bit set first sets aside those seen once): that gives what
//!   a plain sort of every shingle gives (a property test pins it);
//! * **decisions to review**: active for more than [`REVIEW_DAYS`] days (by their date) with no
//!   journal event (its text containing the decision's title, case folded) and no receipt since;
//! * **possible contradictions**: two active decisions whose titles share most of their words
//!   (at least two, and at least [`TITLE_OVERLAP`] of the shorter title's words: the title
//!   measure of [`crate::actions::alike`]);
//! * **stores near their caps**: the journal or the promotions past 90 % of 2 MiB (propose
//!   `archive`), the ledger likewise;
//! * **journal events to summarise**: events older than [`SUMMARY_DAYS`] days whose id no note
//!   cites (propose a synthesis lesson).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use aho_corasick::AhoCorasick;

#[cfg(doc)]
use crate::actions::alike::TITLE_OVERLAP;
use crate::actions::alike::{
    DUPLICATE_THRESHOLD, common, jaccard, push_shingles, title_words, titles_overlap,
};
use crate::actions::receipts;
use crate::admin::lint::findings::{FastMap, FastSet, Finding, Note, Severity, finding};
use crate::context::Context;
use crate::js::date::MS_PER_DAY;
use crate::js::date::parse_timestamp;
use crate::js::json::Value;
use crate::store::entry::{date_of, is_active, undated};
use crate::store::journal;
use crate::store::layout::{DECISION_LEDGER, JOURNAL, OUTCOMES, PROMOTIONS, REGISTRY_CAP};
use crate::store::paths::read_registry;
use crate::store::sections::Section;

/// Decisions in force for longer than this, unmentioned since, are proposed for review.
pub const REVIEW_DAYS: f64 = 90.0;
/// Journal events older than this, cited by no note, are proposed for a synthesis lesson.
pub const SUMMARY_DAYS: f64 = 30.0;

/// The near-duplicate entries: the largest part of `--full`, which [`super::run`] runs beside
/// the other checks.
pub fn duplicates(notes: &[Note], cut: &[Vec<(usize, Section<'_>)>]) -> Vec<Finding> {
    let mut out = Vec::new();
    near_duplicates(notes, cut, &mut out);
    out
}

/// Every other proposal: decisions to review, possible contradictions, stores near their caps,
/// journal events to summarise.
pub fn proposals(ctx: &Context, notes: &[Note], cut: &[Vec<(usize, Section<'_>)>]) -> Vec<Finding> {
    let mut out = Vec::new();
    let journal = read_registry(&ctx.root, JOURNAL, true)
        .ok()
        .flatten()
        .unwrap_or_default();
    // Each event with a usable time: (ts, its line, its id).
    let events: Vec<Event<'_>> = journal::lines(&journal)
        .filter_map(|line| {
            let event = journal::event(line)?;
            let ts = event.get("ts").and_then(timestamp)?;
            let id = event.get("id").map(Value::text).unwrap_or_default();
            Some((ts, line, id))
        })
        .collect();
    let active: Vec<(&Note, usize, &Section<'_>)> = notes
        .iter()
        .zip(cut)
        .filter(|(note, _)| note.is_decisions())
        .flat_map(|(note, sections)| sections.iter().map(move |(o, s)| (note, *o, s)))
        .filter(|(_, _, s)| is_active(s))
        .collect();
    reviews(ctx, &active, &events, &mut out);
    contradictions(&active, &mut out);
    caps(ctx, &mut out);
    summaries(ctx, notes, &events, &mut out);
    out
}

/// A hasher for keys that are hashes already.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type Fast<K, V> = HashMap<K, V, BuildHasherDefault<Identity>>;

/// Sorts the keys whose shingle other keys may have, and takes out the others (most of them,
/// on any store), adding 1 to their entry's `size`. `mask` covers the entry's number in the
/// low bits; the rest of a key is its shingle's hash, uniform, millions of them on a full
/// store.
///
/// One pass spreads the keys into 1,024 buckets by their top ten bits. In each bucket (small
/// enough for the cache), two bit sets, *seen* and *seen twice*, indexed by the next bits,
/// find the keys alone in their slot: their shingle is no other key's. The rest are sorted:
/// a slot that two different shingles fill keeps both, and the sort tells them apart, so what
/// remains gives the same sets as a sort of every key.
fn sort_shared(keys: &mut Vec<u64>, mask: u64, size: &mut [usize]) {
    const TOP: u32 = 8;
    const SLOT: u32 = 16;
    debug_assert!(mask.leading_zeros() >= TOP + SLOT);
    let mut spread_keys = vec![0u64; keys.len()];
    let mut counts = Vec::new();
    let buckets = spread(keys, &mut spread_keys, (64 - TOP, TOP), &mut counts);
    keys.clear();
    let (mut seen, mut twice) = ([0u64; 1 << (SLOT - 6)], [0u64; 1 << (SLOT - 6)]);
    let slot = |key: u64| {
        let s = ((key >> (64 - TOP - SLOT)) & ((1 << SLOT) - 1)) as usize;
        (s >> 6, 1u64 << (s & 63))
    };
    for bounds in buckets.windows(2) {
        let bucket = &spread_keys[bounds[0]..bounds[1]];
        let start = keys.len();
        if bucket.len() <= 64 {
            keys.extend_from_slice(bucket);
        } else {
            seen.fill(0);
            twice.fill(0);
            for &key in bucket {
                let (word, bit) = slot(key);
                twice[word] |= seen[word] & bit;
                seen[word] |= bit;
            }
            for &key in bucket {
                let (word, bit) = slot(key);
                if twice[word] & bit == 0 {
                    #[expect(
                        clippy::cast_possible_truncation,
                        reason = "the low bits hold an entry's number"
                    )]
                    let entry = (key & mask) as usize;
                    size[entry] += 1;
                } else {
                    keys.push(key);
                }
            }
        }
        keys[start..].sort_unstable();
    }
}

/// Copies `from` into `to` grouped by the `width` bits of each key from bit `shift` up, in
/// the order of those bits; returns where each group starts, then `to.len()`. `counts` is a
/// reused buffer.
fn spread(
    from: &[u64],
    to: &mut [u64],
    (shift, width): (u32, u32),
    counts: &mut Vec<usize>,
) -> Vec<usize> {
    let groups = 1usize << width;
    let mask = (groups - 1) as u64;
    let group = |k: u64| usize::try_from((k >> shift) & mask).unwrap_or_default();
    counts.clear();
    counts.resize(groups, 0);
    for &k in from {
        counts[group(k)] += 1;
    }
    let mut starts = Vec::with_capacity(groups + 1);
    let mut sum = 0;
    for c in counts.iter_mut() {
        starts.push(sum);
        sum += *c;
        // From here on, where the next key of the group goes.
        *c = sum - *c;
    }
    starts.push(sum);
    for &k in from {
        let g = group(k);
        to[counts[g]] = k;
        counts[g] += 1;
    }
    starts
}

/// Each entry's shingle set, described for prefix filtering: its size, and the shingles it
/// shares with some other entry as `(frequency, hash)`, sorted. Shingles no other entry has
/// come first in the global (frequency, hash) order and can never bring two entries together.
#[derive(Debug, PartialEq, Eq)]
struct Sets {
    size: Vec<usize>,
    shared: Vec<Vec<(u32, u64)>>,
}

fn shingle_sets(entries: &[(&Note, usize, &Section<'_>)]) -> Sets {
    // Enough low bits for every entry's number; the hash keeps the rest (49 bits or more on
    // any store of up to 32,768 entries, so that two different shingles rarely look alike).
    let bits = usize::BITS - entries.len().leading_zeros();
    // A token takes two bytes and a separator at least: room for every shingle at once.
    let bytes: usize = entries
        .iter()
        .map(|(_, _, s)| s.parts().iter().map(|p| p.len()).sum::<usize>())
        .sum();
    let mut keys: Vec<u64> = Vec::with_capacity(bytes / 3 + 1);
    let (mut tokens, mut buffer) = (Vec::new(), Vec::new());
    for (i, (_, _, section)) in entries.iter().enumerate() {
        push_shingles(
            &section.parts(),
            i as u64,
            bits,
            (&mut tokens, &mut buffer),
            &mut keys,
        );
    }
    let mask = (1u64 << bits) - 1;
    let mut sets = Sets {
        size: vec![0; entries.len()],
        shared: vec![Vec::new(); entries.len()],
    };
    sort_shared(&mut keys, mask, &mut sets.size);
    describe(&mut keys, mask, &mut sets);
    sets
}

/// Adds the sorted `keys` to the sets (after removing repeated keys: a shingle twice in one
/// entry counts once), then orders each entry's shared shingles.
fn describe(keys: &mut Vec<u64>, mask: u64, sets: &mut Sets) {
    keys.dedup();
    for run in keys.chunk_by(|a, b| a & !mask == b & !mask) {
        let frequency = u32::try_from(run.len()).unwrap_or(u32::MAX);
        for &key in run {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "the low bits hold an entry's number"
            )]
            let entry = (key & mask) as usize;
            sets.size[entry] += 1;
            if frequency > 1 {
                sets.shared[entry].push((frequency, key & !mask));
            }
        }
    }
    for shared in &mut sets.shared {
        shared.sort_unstable();
    }
}

fn near_duplicates(notes: &[Note], cut: &[Vec<(usize, Section<'_>)>], out: &mut Vec<Finding>) {
    let entries: Vec<(&Note, usize, &Section<'_>)> = notes
        .iter()
        .zip(cut)
        .flat_map(|(note, sections)| sections.iter().map(move |(o, s)| (note, *o, s)))
        .collect();
    let sets = shingle_sets(&entries);
    let mut postings: Fast<u64, Vec<u32>> = Fast::default();
    let mut seen = vec![u32::MAX; entries.len()];
    let mut candidates = Vec::new();
    for (i, shared) in sets.shared.iter().enumerate() {
        let size = sets.size[i];
        // The prefix of the whole set, in the global order: its unique shingles come first.
        let probe = &shared[..prefix_len(size).saturating_sub(size - shared.len())];
        if probe.is_empty() {
            continue;
        }
        let index = u32::try_from(i).unwrap_or(u32::MAX);
        candidates.clear();
        for (_, h) in probe {
            for &j in postings.get(h).map_or(&[][..], Vec::as_slice) {
                if seen[j as usize] != index {
                    seen[j as usize] = index;
                    candidates.push(j as usize);
                }
            }
        }
        candidates.sort_unstable();
        // Each entry is reported once, beside the first earlier entry it resembles, with how
        // many others it resembles too: n copies of one text give n - 1 findings, not n²/2.
        let mut first: Option<(usize, f64)> = None;
        let mut others = 0usize;
        for &j in &candidates {
            let (small, large) = (size.min(sets.size[j]), size.max(sets.size[j]));
            #[expect(clippy::cast_precision_loss, reason = "set sizes are far below 2^52")]
            if (small as f64) < DUPLICATE_THRESHOLD * large as f64 {
                continue;
            }
            let similarity = jaccard(common(shared, &sets.shared[j]), size, sets.size[j]);
            if similarity >= DUPLICATE_THRESHOLD {
                if first.is_none() {
                    first = Some((j, similarity));
                } else {
                    others += 1;
                }
            }
        }
        if let Some((j, similarity)) = first {
            let (note, offset, section) = entries[i];
            let (other_note, _, other_section) = entries[j];
            let also = match others {
                0 => String::new(),
                1 => ", and of 1 other entry".to_owned(),
                n => format!(", and of {n} other entries"),
            };
            out.push(finding(
                note,
                offset,
                section,
                "near-duplicate",
                Severity::Info,
                format!(
                    "near-duplicate of {} § {} (similarity {similarity:.2} over word 3-shingles){also}",
                    other_note.rel, other_section.heading
                ),
                Some("merge the two entries into one, or supersede one by the other".to_owned()),
            ));
        }
        for (_, h) in probe {
            postings.entry(*h).or_default().push(index);
        }
    }
}

/// How many of a set's rarest shingles must be indexed and probed so that no pair reaching the
/// threshold is missed: `n - ceil(t·n) + 1`.
fn prefix_len(n: usize) -> usize {
    #[expect(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a threshold times a set size, both small and positive"
    )]
    let needed = (DUPLICATE_THRESHOLD * n as f64 - 1e-9).ceil() as usize;
    (n + 1).saturating_sub(needed).clamp(1, n)
}

/// A journal event with a usable time: `(ts, its line, its id)`.
type Event<'a> = (f64, &'a str, String);

fn reviews(
    ctx: &Context,
    active: &[(&Note, usize, &Section<'_>)],
    events: &[Event<'_>],
    out: &mut Vec<Finding>,
) {
    let cutoff = ctx.now.ms - REVIEW_DAYS * MS_PER_DAY;
    let old: Vec<(usize, f64)> = active
        .iter()
        .enumerate()
        .filter_map(|(i, (_, _, s))| {
            let ms = parse_timestamp(date_of(s)?)?;
            (ms < cutoff).then_some((i, ms))
        })
        .collect();
    if old.is_empty() {
        return;
    }
    let titles: Vec<String> = old
        .iter()
        .map(|&(i, _)| undated(active[i].2.heading).to_lowercase())
        .collect();
    // The latest mention of each title: journal events by their text, receipts by heading.
    let mut latest = vec![f64::NEG_INFINITY; old.len()];
    let titles_in = Titles::new(&titles);
    let mut ascii = String::new();
    for (ts, line, _) in events {
        let unicode;
        let lower = if line.is_ascii() {
            ascii.clear();
            ascii.push_str(line);
            ascii.make_ascii_lowercase();
            ascii.as_str()
        } else {
            unicode = line.to_lowercase();
            unicode.as_str()
        };
        titles_in.each_found(lower, |k| latest[k] = latest[k].max(*ts));
    }
    let receipts = receipts::read_store(&ctx.root).unwrap_or_default();
    for receipt in &receipts {
        let heading = receipt
            .get("memory")
            .and_then(Value::as_object)
            .and_then(|m| m.get("heading"))
            .and_then(Value::as_str);
        let ts = receipt.get("ts").and_then(timestamp);
        if let (Some(heading), Some(ts)) = (heading, ts) {
            for (k, &(i, _)) in old.iter().enumerate() {
                if active[i].2.heading == heading {
                    latest[k] = latest[k].max(ts);
                }
            }
        }
    }
    for (k, &(i, since)) in old.iter().enumerate() {
        if titles[k].is_empty() || latest[k] >= since {
            continue;
        }
        let (note, offset, section) = active[i];
        #[expect(
            clippy::cast_possible_truncation,
            reason = "whole days between two timestamps fit in i64"
        )]
        let days = ((ctx.now.ms - since) / MS_PER_DAY).floor() as i64;
        out.push(finding(
            note,
            offset,
            section,
            "review",
            Severity::Info,
            format!(
                "active for {days} days, and no journal event or receipt has mentioned it since {}",
                date_of(section).unwrap_or_default()
            ),
            Some(format!(
                "review it: if it still stands, leave it; if not, `bmad-mem decision supersede \"{h}\" --by \"<new heading>\"` or `bmad-mem decision abrogate \"{h}\" --reason <text>`",
                h = section.heading
            )),
        ));
    }
}

/// Finds which of many titles a text contains. A title of eight bytes or more is looked up
/// by its first eight bytes at every position of the text (a bit set of their hashes turns
/// almost every position away at once, then the title is compared); shorter ones go to an
/// Aho-Corasick automaton. Much faster than one automaton over thousands of titles, and finds
/// exactly what it finds.
struct Titles<'a> {
    texts: &'a [String],
    /// Which hashes of a long title's first eight bytes occur, [`Self::FILTER_BITS`] bits.
    filter: Vec<u64>,
    long: FastMap<u64, Vec<usize>>,
    short: Option<(AhoCorasick, Vec<usize>)>,
}

impl<'a> Titles<'a> {
    const FILTER_BITS: u32 = 18;

    fn new(titles: &'a [String]) -> Self {
        let mut filter = vec![0u64; 1 << (Self::FILTER_BITS - 6)];
        let mut long: FastMap<u64, Vec<usize>> = FastMap::default();
        let mut short = Vec::new();
        for (k, title) in titles.iter().enumerate() {
            match Self::head(title.as_bytes()) {
                Some(head) => {
                    let slot = Self::slot(head);
                    filter[slot >> 6] |= 1 << (slot & 63);
                    long.entry(head).or_default().push(k);
                }
                None => short.push(k),
            }
        }
        let short = (!short.is_empty())
            .then(|| AhoCorasick::new(short.iter().map(|&k| &titles[k])).ok())
            .flatten()
            .map(|matcher| (matcher, short));
        Self {
            texts: titles,
            filter,
            long,
            short,
        }
    }

    /// The first eight bytes, as one number.
    fn head(bytes: &[u8]) -> Option<u64> {
        Some(u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?))
    }

    fn slot(head: u64) -> usize {
        (head.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - Self::FILTER_BITS)) as usize
    }

    /// Calls `found` with the number of each title that `text` contains, once or more.
    fn each_found(&self, text: &str, mut found: impl FnMut(usize)) {
        let bytes = text.as_bytes();
        if !self.long.is_empty() {
            for (at, window) in bytes.windows(8).enumerate() {
                let Some(head) = Self::head(window) else {
                    continue;
                };
                let slot = Self::slot(head);
                if self.filter[slot >> 6] & (1 << (slot & 63)) == 0 {
                    continue;
                }
                for &k in self.long.get(&head).map_or(&[][..], Vec::as_slice) {
                    if bytes[at..].starts_with(self.texts[k].as_bytes()) {
                        found(k);
                    }
                }
            }
        }
        if let Some((matcher, numbers)) = &self.short {
            for m in matcher.find_overlapping_iter(text) {
                found(numbers[m.pattern().as_usize()]);
            }
        }
    }
}

/// A `ts` as stored: epoch milliseconds, or an ECMAScript date text.
fn timestamp(value: &Value) -> Option<f64> {
    value
        .as_f64()
        .or_else(|| value.as_str().and_then(parse_timestamp))
}

fn contradictions(active: &[(&Note, usize, &Section<'_>)], out: &mut Vec<Finding>) {
    let words: Vec<Vec<String>> = active
        .iter()
        .map(|(_, _, s)| title_words(s.heading))
        .collect();
    // Each distinct word gets a number; postings and counts are then plain vectors.
    let mut numbers: FastMap<&str, usize> = FastMap::default();
    let sets: Vec<Vec<usize>> = words
        .iter()
        .map(|set| {
            set.iter()
                .map(|word| {
                    let next = numbers.len();
                    *numbers.entry(word.as_str()).or_insert(next)
                })
                .collect()
        })
        .collect();
    let mut postings: Vec<Vec<usize>> = vec![Vec::new(); numbers.len()];
    // How many words each earlier title shares with the current one, and which titles share any.
    let mut shared = vec![0usize; active.len()];
    let mut sharing: Vec<usize> = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        if set.len() < 2 {
            continue;
        }
        for &word in set {
            for &j in &postings[word] {
                if shared[j] == 0 {
                    sharing.push(j);
                }
                shared[j] += 1;
            }
        }
        sharing.sort_unstable();
        for &j in &sharing {
            let common = std::mem::take(&mut shared[j]);
            if titles_overlap(common, set.len(), sets[j].len()) {
                let (note, offset, section) = active[i];
                let (other_note, _, other) = active[j];
                out.push(finding(
                    note,
                    offset,
                    section,
                    "contradiction",
                    Severity::Info,
                    format!(
                        "its title shares most of its words with {} § {}, and both are active: check that they do not contradict each other",
                        other_note.rel, other.heading
                    ),
                    Some("supersede one by the other, or make the titles say how they differ".to_owned()),
                ));
            }
        }
        sharing.clear();
        for &word in set {
            postings[word].push(i);
        }
    }
}

fn caps(ctx: &Context, out: &mut Vec<Finding>) {
    for (rel, proposal) in [
        (
            JOURNAL,
            Some("`bmad-mem archive journal` moves all but the newest 1000 records aside"),
        ),
        (
            PROMOTIONS,
            Some("`bmad-mem archive promotions` moves all but the newest 1000 records aside"),
        ),
        (DECISION_LEDGER, None),
        (OUTCOMES, None),
    ] {
        let Ok(meta) = std::fs::symlink_metadata(ctx.root.join(rel)) else {
            continue;
        };
        let len = meta.len();
        if !meta.is_file() || len * 10 < REGISTRY_CAP * 9 {
            continue;
        }
        out.push(Finding {
            file: rel.to_owned(),
            line: None,
            heading: None,
            check: "near-cap",
            severity: Severity::Info,
            message: format!(
                "{len} bytes of {REGISTRY_CAP}: every write is refused once it is full"
            ),
            proposal: Some(proposal.map_or_else(
                || {
                    "nothing archives this file; keep a copy and start it anew before it fills"
                        .to_owned()
                },
                str::to_owned,
            )),
        });
    }
}

/// The words of exactly 12 hex digits in `text`, lowercased (event ids as notes cite them).
/// Any such word covers the 12th byte from where it could start, so the scan looks at one byte
/// in twelve until it meets a hex digit, and only then at the run around it.
fn cited_ids(text: &str, into: &mut FastSet<String>) {
    let bytes = text.as_bytes();
    let mut at = 0;
    // Invariant: the byte before `at` (if any) is not a hex digit.
    while at + 12 <= bytes.len() {
        let probe = at + 11;
        if !bytes[probe].is_ascii_hexdigit() {
            at = probe + 1;
            continue;
        }
        let mut start = probe;
        while start > at && bytes[start - 1].is_ascii_hexdigit() {
            start -= 1;
        }
        let mut end = probe + 1;
        while end < bytes.len() && bytes[end].is_ascii_hexdigit() {
            end += 1;
        }
        if end - start == 12 {
            into.insert(text[start..end].to_ascii_lowercase());
        }
        at = end + 1;
    }
}

fn summaries(ctx: &Context, notes: &[Note], events: &[Event<'_>], out: &mut Vec<Finding>) {
    let cutoff = ctx.now.ms - SUMMARY_DAYS * MS_PER_DAY;
    let old: Vec<&Event<'_>> = events
        .iter()
        .filter(|(ts, _, id)| *ts < cutoff && !id.is_empty())
        .collect();
    if old.is_empty() {
        return;
    }
    let mut cited = FastSet::default();
    for note in notes {
        cited_ids(&note.text, &mut cited);
    }
    let cited: Vec<bool> = old
        .iter()
        .map(|(_, _, id)| cited.contains(id.to_ascii_lowercase().as_str()))
        .collect();
    let mut count = 0usize;
    let (mut first, mut last) = (f64::INFINITY, f64::NEG_INFINITY);
    for ((ts, _, _), cited) in old.iter().zip(cited) {
        if !cited {
            count += 1;
            first = first.min(*ts);
            last = last.max(*ts);
        }
    }
    if count == 0 {
        return;
    }
    let day = |ms: f64| crate::js::date::to_iso_string(ms)[..10].to_owned();
    out.push(Finding {
        file: JOURNAL.to_owned(),
        line: None,
        heading: None,
        check: "summarise",
        severity: Severity::Info,
        message: format!(
            "{count} journal event(s) from {} to {} are older than {SUMMARY_DAYS} days and no note cites them",
            day(first),
            day(last)
        ),
        proposal: Some(format!(
            "distil what they taught into a lesson with `bmad-mem propose` (citing their ids), then `bmad-mem archive journal --before {}`",
            day(cutoff)
        )),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        #[test]
        fn setting_unique_shingles_aside_gives_the_sets_a_full_sort_gives(
            picks in proptest::collection::vec((0usize..400, 0u64..32), 0..6000),
            pool in proptest::collection::vec(proptest::prelude::any::<u64>(), 400),
            narrow in proptest::prelude::any::<bool>(),
        ) {
            // Keys drawn from a pool of 400 shingles, so that many are shared, in 32 entries;
            // narrow shingles share their top bits: one large bucket, and slots shared by
            // different shingles.
            let mask = 31u64;
            let mut keys: Vec<u64> = picks
                .iter()
                .map(|&(shingle, entry)| {
                    let hash = if narrow { pool[shingle] >> 12 } else { pool[shingle] };
                    (hash & !mask) | entry
                })
                .collect();
            let empty = || Sets { size: vec![0; 32], shared: vec![Vec::new(); 32] };
            let mut expected = empty();
            let mut all = keys.clone();
            all.sort_unstable();
            describe(&mut all, mask, &mut expected);
            let mut sets = empty();
    sort_shared(&mut keys, mask, &mut sets.size);
            proptest::prop_assert!(keys.is_sorted());
            describe(&mut keys, mask, &mut sets);
            proptest::prop_assert_eq!(sets, expected);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        #[test]
        fn titles_are_found_as_one_automaton_finds_them(
            titles in proptest::collection::vec("[ab é]{0,12}", 0..30),
            texts in proptest::collection::vec("[ab é]{0,60}", 0..10),
        ) {
            let expected = AhoCorasick::new(&titles).unwrap();
            let titles_in = Titles::new(&titles);
            for text in &texts {
                let mut want: Vec<usize> = expected
                    .find_overlapping_iter(text.as_str())
                    .map(|m| m.pattern().as_usize())
                    .collect();
                want.sort_unstable();
                want.dedup();
                let mut got = Vec::new();
                titles_in.each_found(text, |k| got.push(k));
                got.sort_unstable();
                got.dedup();
                proptest::prop_assert_eq!(got, want, "{:?}", text);
            }
        }
    }

    #[test]
    fn the_prefix_keeps_every_pair_over_the_threshold() {
        // Two sets of n reaching the threshold share at least ceil(t·n) elements; a prefix of
        // n - ceil(t·n) + 1 cannot miss all of them.
        for n in 1..200 {
            let p = prefix_len(n);
            assert!(p >= 1 && p <= n);
            #[expect(
                clippy::cast_precision_loss,
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "a threshold times a set size, both small and positive"
            )]
            let needed = (DUPLICATE_THRESHOLD * n as f64).ceil() as usize;
            assert!(p + needed > n, "{n}");
        }
    }

    #[test]
    fn cited_ids_are_words_of_twelve_hex_digits() {
        let mut ids = FastSet::default();
        cited_ids(
            "6b1dc0dc38b7 see 6b1dc0dc38b7, not 6b1dc0dc38b, nor 6b1dc0dc38b7a; x0123456789AB 0123456789AB.",
            &mut ids,
        );
        let mut ids: Vec<_> = ids.into_iter().collect();
        ids.sort();
        assert_eq!(ids, ["0123456789ab", "6b1dc0dc38b7"]);
        let mut none = FastSet::default();
        cited_ids("abcdefabcdef0", &mut none);
        cited_ids("short", &mut none);
        assert!(none.is_empty());
    }
}
