//! How alike two entries are: the measures `lint --full` reports with, shared by the entry
//! commands (`propose`, `import`, `admit`), which warn with the same measures before an entry
//! is written. Pure: no I/O.
//!
//! * **Near-duplicates**: the Jaccard similarity of two entries' sets of word 3-shingles (three
//!   consecutive recall tokens) is at least [`DUPLICATE_THRESHOLD`]; an entry of fewer than
//!   [`MIN_TOKENS`] tokens has no shingle and is compared with nothing. A token is hashed
//!   (FNV-1a of its lowercase bytes) as it is read, in one pass over the text, giving what the
//!   recall tokenizer followed by the hash gives (a property test pins it); a shingle is the
//!   three hashes mixed, in the high bits of a key whose low bits may carry an entry's number.
//! * **Titles that say the same thing**: two titles share at least two of their words and at
//!   least [`TITLE_OVERLAP`] of the shorter title's words. A title's words are its recall
//!   tokens of three characters or more, case folded, without its date prefix, numbers and
//!   [`STOPWORDS`].
//!
//! `lint --full` finds every pair of a whole store with these (prefix filtering over the
//! shingle sets, postings over the title words); [`Nearest`] finds, for one new entry, the
//! existing entry it resembles most.

use std::collections::HashMap;

use crate::js::text::{ASCII_TOKEN, Token, for_each_token, is_ascii_separator, slow_tokens};
use crate::store::entry::undated;

/// Near-duplicates: the least Jaccard similarity of two entries' word 3-shingle sets.
pub const DUPLICATE_THRESHOLD: f64 = 0.6;
/// Entries with fewer tokens than this are not compared.
pub const MIN_TOKENS: usize = 5;
/// Titles that say the same thing: the share of the shorter title's words the other title has.
pub const TITLE_OVERLAP: f64 = 0.75;
/// How many low bits of a key [`shingle_set`] leaves for an entry's number (as lint does on a
/// store of up to 32,768 entries).
const SET_BITS: u32 = 15;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a of a token's lowercase bytes.
#[must_use]
pub fn token_hash(token: Token<'_>) -> u64 {
    let mut hash = FNV_OFFSET;
    let (bytes, ascii) = match token {
        Token::Ascii(t) => (t, true),
        Token::Lower(t) => (t, false),
    };
    for &b in bytes {
        let b = if ascii { b.to_ascii_lowercase() } else { b };
        hash = (hash ^ u64::from(b)).wrapping_mul(FNV_PRIME);
    }
    hash
}

/// Pushes [`token_hash`] of every recall token of `text`, in order: what
/// [`for_each_token`] followed by [`token_hash`] gives, in one pass over the bytes. A run of
/// ASCII token bytes is hashed as it is read (its lowercase form is the table's); a stretch
/// with non-ASCII characters, up to the next ASCII separator, goes to the recall tokenizer's
/// own slow path. `buffer` is the slow path's reused buffer.
pub fn token_hashes(text: &str, buffer: &mut Vec<u8>, out: &mut Vec<u64>) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if is_ascii_separator(bytes[at]) {
            at += 1;
            continue;
        }
        let start = at;
        let mut hash = FNV_OFFSET;
        while let Some(&b) = bytes.get(at) {
            let lower = match ASCII_TOKEN.get(usize::from(b)) {
                Some(&lower) if lower != 0 => lower,
                _ => break,
            };
            hash = (hash ^ u64::from(lower)).wrapping_mul(FNV_PRIME);
            at += 1;
        }
        if bytes.get(at).is_none_or(|&b| b < 0x80) {
            if at - start >= 2 {
                out.push(hash);
            }
            continue;
        }
        let end = bytes[at..]
            .iter()
            .position(|&b| is_ascii_separator(b))
            .map_or(bytes.len(), |p| at + p);
        slow_tokens(&text[start..end], buffer, &mut |t| out.push(token_hash(t)));
        at = end;
    }
}

/// Pushes `shingle | entry` for every word 3-shingle of the entry's text (the concatenation of
/// `parts`; duplicates kept): the shingle's hash in the high bits, the entry's number in the
/// low `bits`. Nothing under [`MIN_TOKENS`] tokens. `tokens` and `buffer` are reused buffers.
pub fn push_shingles(
    parts: &[&str],
    entry: u64,
    bits: u32,
    (tokens, buffer): (&mut Vec<u64>, &mut Vec<u8>),
    out: &mut Vec<u64>,
) {
    tokens.clear();
    for part in parts {
        token_hashes(part, buffer, tokens);
    }
    if tokens.len() < MIN_TOKENS {
        return;
    }
    let mask = (1u64 << bits) - 1;
    out.extend(tokens.windows(3).map(|w| {
        let h = w[0].rotate_left(42) ^ w[1].rotate_left(21) ^ w[2];
        // A final mix so that every bit depends on the three words.
        ((h ^ (h >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9) & !mask) | entry
    }));
}

/// One entry's shingle set (its text is the concatenation of `parts`): sorted, each shingle
/// once; empty under [`MIN_TOKENS`] tokens.
#[must_use]
pub fn shingle_set(parts: &[&str]) -> Vec<u64> {
    let mut set = Vec::new();
    push_shingles(
        parts,
        0,
        SET_BITS,
        (&mut Vec::new(), &mut Vec::new()),
        &mut set,
    );
    set.sort_unstable();
    set.dedup();
    set
}

/// How many elements two sorted sets have in common.
#[must_use]
pub fn common<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common
}

/// The Jaccard similarity of two sets of `a` and `b` elements with `common` in common.
#[must_use]
pub fn jaccard(common: usize, a: usize, b: usize) -> f64 {
    let union = a + b - common;
    if union == 0 {
        return 0.0;
    }
    #[expect(clippy::cast_precision_loss, reason = "set sizes are far below 2^52")]
    let similarity = common as f64 / union as f64;
    similarity
}

/// Words that say nothing about what a title decides.
pub const STOPWORDS: [&str; 24] = [
    "the", "and", "for", "with", "from", "into", "use", "uses", "using", "our", "all", "not",
    "les", "des", "pour", "avec", "une", "sur", "par", "dans", "est", "aux", "via", "per",
];

/// A title's words, each once, in order: its recall tokens of three characters or more, case
/// folded, without its date prefix, numbers and [`STOPWORDS`].
#[must_use]
pub fn title_words(heading: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for_each_token(undated(heading), |t| {
        let word = t.to_lowercase_string();
        if word.chars().count() >= 3
            && !word.bytes().all(|b| b.is_ascii_digit() || b == b'-')
            && !STOPWORDS.contains(&word.as_str())
            && !words.contains(&word)
        {
            words.push(word);
        }
    });
    words
}

/// Whether two titles of `a` and `b` words with `common` words in common say the same thing.
#[must_use]
pub fn titles_overlap(common: usize, a: usize, b: usize) -> bool {
    let shorter = a.min(b);
    #[expect(clippy::cast_precision_loss, reason = "word counts are far below 2^52")]
    let share = common as f64 / shorter.max(1) as f64;
    common >= 2 && share >= TITLE_OVERLAP
}

/// The existing entries one new entry is measured against: their shingle sets and an index
/// from each shingle to the entries that have it.
#[derive(Debug, Default)]
pub struct Nearest {
    sizes: Vec<usize>,
    postings: HashMap<u64, Vec<u32>>,
    /// Reused per lookup: how many shingles each entry shares with the one looked up.
    counts: Vec<u32>,
    touched: Vec<u32>,
}

impl Nearest {
    /// Adds an entry (the concatenation of `parts`); entries are numbered from 0 in the order
    /// they are added.
    pub fn add(&mut self, parts: &[&str]) {
        let number = u32::try_from(self.sizes.len()).unwrap_or(u32::MAX);
        let set = shingle_set(parts);
        for &shingle in &set {
            self.postings.entry(shingle).or_default().push(number);
        }
        self.sizes.push(set.len());
        self.counts.push(0);
    }

    /// The entry `set` (from [`shingle_set`]) resembles most, with the similarity, when it
    /// reaches [`DUPLICATE_THRESHOLD`]; the first such entry on a tie.
    pub fn nearest(&mut self, set: &[u64]) -> Option<(usize, f64)> {
        for shingle in set {
            for &j in self.postings.get(shingle).map_or(&[][..], Vec::as_slice) {
                let count = &mut self.counts[j as usize];
                if *count == 0 {
                    self.touched.push(j);
                }
                *count += 1;
            }
        }
        self.touched.sort_unstable();
        let mut best: Option<(usize, f64)> = None;
        for &j in &self.touched {
            let j = j as usize;
            let common = std::mem::take(&mut self.counts[j]) as usize;
            let similarity = jaccard(common, set.len(), self.sizes[j]);
            if similarity >= DUPLICATE_THRESHOLD && best.is_none_or(|(_, s)| similarity > s) {
                best = Some((j, similarity));
            }
        }
        self.touched.clear();
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference_hashes(text: &str) -> Vec<u64> {
        let mut hashes = Vec::new();
        for_each_token(text, |t| hashes.push(token_hash(t)));
        hashes
    }

    fn fused_hashes(text: &str) -> Vec<u64> {
        let mut hashes = Vec::new();
        token_hashes(text, &mut Vec::new(), &mut hashes);
        hashes
    }

    /// Text with ASCII words, separators, accented and other non-ASCII letters, capitals
    /// whose lowercase is not a token character, and emoji, in any order.
    fn arbitrary_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::{Just, Strategy};
        let piece = proptest::prop_oneof![
            Just(" ".to_owned()),
            Just("\n".to_owned()),
            Just("É".to_owned()),
            Just("é".to_owned()),
            Just("ß".to_owned()),
            Just("İ".to_owned()),
            Just("Σ".to_owned()),
            Just("🚀".to_owned()),
            "[a-zA-Z0-9_ .,-]{1,12}",
            "\\PC{1,4}",
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        #[test]
        fn fused_hashing_equals_the_tokenizer_then_the_hash(text in arbitrary_text()) {
            proptest::prop_assert_eq!(fused_hashes(&text), reference_hashes(&text));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        /// The index finds what measuring every pair finds.
        #[test]
        fn the_index_finds_what_every_pair_gives(
            texts in proptest::collection::vec("(alpha|beta|gamma|delta|eps) {1,2}", 1..12),
            words in proptest::collection::vec("(alpha|beta|gamma|delta|eps) ", 5..12),
        ) {
            let entries: Vec<String> = texts.iter().map(|t| t.repeat(4)).collect();
            let mut nearest = Nearest::default();
            for text in &entries {
                nearest.add(&[text]);
            }
            let probe = shingle_set(&[&words.concat()]);
            let want = entries
                .iter()
                .enumerate()
                .map(|(j, text)| {
                    let set = shingle_set(&[text]);
                    (j, jaccard(common(&probe, &set), probe.len(), set.len()))
                })
                .filter(|(_, s)| *s >= DUPLICATE_THRESHOLD)
                .fold(None, |best: Option<(usize, f64)>, (j, s)| match best {
                    Some((_, b)) if b >= s => best,
                    _ => Some((j, s)),
                });
            proptest::prop_assert_eq!(nearest.nearest(&probe), want);
            // The reused counters start again from zero.
            proptest::prop_assert_eq!(nearest.nearest(&probe), want);
        }
    }

    #[test]
    fn fused_hashing_on_edges() {
        for text in [
            "",
            "a",
            "ab",
            "AB cd",
            "été",
            "xÉy ab",
            "ab\u{301}cd",
            "İstanbul",
            "ΣΑΣ",
            "a_b-c 12 🚀x",
        ] {
            assert_eq!(fused_hashes(text), reference_hashes(text), "{text:?}");
        }
    }

    #[test]
    fn sets_and_their_similarity() {
        assert_eq!(common(&[1, 2, 3, 5], &[2, 3, 4, 5]), 3);
        assert!(shingle_set(&["one two three four"]).is_empty());
        let a = shingle_set(&["Flush the rate limit bucket in setup, never in production"]);
        let b = shingle_set(&["flush the RATE limit bucket in setup never in production code"]);
        assert_eq!(a.len(), 8);
        let similarity = jaccard(common(&a, &b), a.len(), b.len());
        assert!((similarity - 8.0 / 9.0).abs() < 1e-9, "{similarity}");
        assert_eq!(jaccard(0, 0, 0), 0.0);
    }

    #[test]
    fn titles_and_their_words() {
        assert_eq!(
            title_words("2026-10-01 — Use the session store in Redis"),
            ["session", "store", "redis"]
        );
        let (a, b) = (
            title_words("Session store in Redis"),
            title_words("Keep the session store in Redis"),
        );
        let shared = a.iter().filter(|w| b.contains(w)).count();
        assert!(titles_overlap(shared, a.len(), b.len()));
        assert!(!titles_overlap(1, 1, 1));
        assert!(!titles_overlap(2, 4, 4));
    }
}
