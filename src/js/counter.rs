//! Counting a query's tokens in a text without looking at every token one by one.
//!
//! SPEC §5's score needs two numbers from a text: how many tokens it has, and how often each
//! query token occurs. [`QueryCounter::count`] gets both in one pass and gives the same
//! numbers as [`for_each_token`](super::text::for_each_token) would (a property test holds it to that):
//!
//! * A *word* is a maximal run of bytes that are not ASCII separators. A word with a non-ASCII
//!   byte goes through the character-by-character tokenizer, as in
//!   [`for_each_token`](super::text::for_each_token). A pure-ASCII word is exactly one token, its bytes.
//! * Pure-ASCII stretches are read 64 bytes at a time, giving a 64-bit mask of token bytes:
//!   on `x86_64`, four 16-byte SSE2 compares (through `safe_arch`, as this crate forbids
//!   `unsafe`); elsewhere, eight 8-byte words classified with bit arithmetic (no branch per
//!   byte), which the tests hold to the SSE2 masks. Token starts and ends are shifts of that
//!   mask, so the number of tokens of two bytes or more is a population count.
//! * Only tokens whose first byte starts some query token (a mask) and whose first two bytes
//!   start one (a 128 × 128 bit table) are looked at individually (their length from the mask,
//!   then a case-insensitive comparison): in a typical text, a few per cent of them.

use super::text::{ASCII_TOKEN, Token, is_ascii_separator, slow_tokens};

/// Counts the tokens of a query in texts (the query: lowercase tokens, as `tokens` gives).
#[derive(Debug, Clone)]
pub struct QueryCounter<'q> {
    query: &'q [String],
    /// The query tokens that are pure ASCII (the only ones an ASCII word can be), as indices.
    ascii: Vec<usize>,
    /// Bit `n` set when some ASCII query token is `n` bytes long (63 for 63 and more).
    lengths: u64,
    /// The distinct first bytes of the ASCII query tokens, each repeated in the 8 bytes of a
    /// word, with whether it is a letter (compared with the lowercased text).
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))] // tested against SSE2 there
    firsts: Vec<(u64, bool)>,
    /// Bit `128 × a + b` set when some ASCII query token starts with the bytes `a`, `b`.
    pairs: [u64; 256],
    /// The same bytes for the SSE2 classifier.
    #[cfg(target_arch = "x86_64")]
    vector_firsts: Vec<(sse2::Bytes, bool)>,
}

impl<'q> QueryCounter<'q> {
    #[must_use]
    pub fn new(query: &'q [String]) -> Self {
        let ascii: Vec<usize> = (0..query.len())
            .filter(|&i| query[i].is_ascii() && !query[i].is_empty())
            .collect();
        let lengths = ascii
            .iter()
            .fold(0u64, |mask, &i| mask | (1u64 << query[i].len().min(63)));
        let mut first_bytes: Vec<u8> = ascii.iter().map(|&i| query[i].as_bytes()[0]).collect();
        first_bytes.sort_unstable();
        first_bytes.dedup();
        let firsts = first_bytes
            .iter()
            .map(|&b| (ONES * u64::from(b), b.is_ascii_lowercase()))
            .collect();
        let mut pairs = [0u64; 256];
        for &i in &ascii {
            if let [a, b, ..] = query[i].as_bytes() {
                let pair = usize::from(*a) * 128 + usize::from(*b);
                pairs[pair / 64] |= 1 << (pair % 64);
            }
        }
        Self {
            query,
            ascii,
            lengths,
            pairs,
            firsts,
            #[cfg(target_arch = "x86_64")]
            vector_firsts: first_bytes
                .iter()
                .map(|&b| (sse2::splat(b), b.is_ascii_lowercase()))
                .collect(),
        }
    }

    /// The query tokens.
    #[must_use]
    pub fn query(&self) -> &'q [String] {
        self.query
    }

    /// Adds to `frequency[i]` the occurrences of query token `i` in `text` and returns the
    /// number of tokens in `text`. `frequency` has one slot per query token.
    pub fn count(&self, text: &str, frequency: &mut [u32]) -> usize {
        debug_assert_eq!(frequency.len(), self.query.len());
        let bytes = text.as_bytes();
        let mut total = 0;
        let mut buffer = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let Some(offset) = find_non_ascii(&bytes[at..]) else {
                total += self.count_ascii(&bytes[at..], frequency);
                break;
            };
            let non_ascii = at + offset;
            // The word holding that byte: from the last ASCII separator before it (`at` is
            // always a word boundary) to the next one after it.
            let word_start = bytes[at..non_ascii]
                .iter()
                .rposition(|&b| is_ascii_separator(b))
                .map_or(at, |i| at + i + 1);
            let word_end = bytes[non_ascii..]
                .iter()
                .position(|&b| is_ascii_separator(b))
                .map_or(bytes.len(), |i| non_ascii + i);
            total += self.count_ascii(&bytes[at..word_start], frequency);
            slow_tokens(&text[word_start..word_end], &mut buffer, &mut |token| {
                total += 1;
                self.tally(token, frequency);
            });
            at = word_end;
        }
        total
    }

    /// Whether `text` holds at least one query token.
    #[must_use]
    pub fn mentions(&self, text: &str) -> bool {
        let mut frequency = vec![0u32; self.query.len()];
        self.count(text, &mut frequency);
        frequency.iter().any(|&f| f > 0)
    }

    fn tally(&self, token: Token<'_>, frequency: &mut [u32]) {
        if let Some(i) = self.query.iter().position(|q| token.is(q.as_bytes())) {
            frequency[i] += 1;
        }
    }

    /// Whether some ASCII query token starts with `first`, `second` (ASCII bytes, any case; a
    /// separator as `second` starts none).
    fn starts_some_token(&self, first: u8, second: u8) -> bool {
        let lower = |b: u8| ASCII_TOKEN.get(usize::from(b)).copied().unwrap_or(0);
        let pair = usize::from(lower(first)) * 128 + usize::from(lower(second));
        self.pairs[pair / 64] & (1 << (pair % 64)) != 0
    }

    /// [`QueryCounter::count`] of pure-ASCII bytes that begin and end on word boundaries.
    fn count_ascii(&self, bytes: &[u8], frequency: &mut [u32]) -> usize {
        let mut total = 0;
        // Whether the byte before the current block is a token byte.
        let mut carry = 0u64;
        for (index, block) in bytes.chunks(64).enumerate() {
            let base = index * 64;
            let (tokens, firsts) = self.masks(block);
            let next_is_token = bytes
                .get(base + 64)
                .is_some_and(|&b| ASCII_TOKEN[usize::from(b)] != 0);
            let starts = tokens & !((tokens << 1) | carry);
            let ends = tokens & !((tokens >> 1) | (u64::from(next_is_token) << 63));
            total += (starts & !ends).count_ones() as usize;
            let mut candidates = starts & firsts;
            while candidates != 0 {
                let bit = candidates.trailing_zeros();
                candidates &= candidates - 1;
                let start = base + bit as usize;
                // A query token has two bytes or more: the candidate's first two must start
                // one (`bytes[start + 1]`, when it exists, is ASCII: the bytes end on a word
                // boundary).
                let second = bytes.get(start + 1).copied().unwrap_or(0);
                if !self.starts_some_token(bytes[start], second) {
                    continue;
                }
                let mut len = (!(tokens >> bit)).trailing_zeros() as usize;
                if bit as usize + len == 64 {
                    // The token goes on past this block.
                    len += bytes[base + 64..]
                        .iter()
                        .position(|&b| ASCII_TOKEN[usize::from(b)] == 0)
                        .unwrap_or(bytes.len() - base - 64);
                }
                if self.lengths & (1u64 << len.min(63)) == 0 {
                    continue;
                }
                let token = &bytes[start..start + len];
                if let Some(&i) = self
                    .ascii
                    .iter()
                    .find(|&&i| token.eq_ignore_ascii_case(self.query[i].as_bytes()))
                {
                    frequency[i] += 1;
                }
            }
            carry = tokens >> 63;
        }
        total
    }

    /// For up to 64 ASCII bytes: the mask of token bytes, and the mask of bytes whose
    /// lowercase form starts some ASCII query token (bit `i` for byte `i`).
    fn masks(&self, block: &[u8]) -> (u64, u64) {
        #[cfg(target_arch = "x86_64")]
        {
            if let Ok(block) = block.try_into() {
                return sse2::masks(block, &self.vector_firsts);
            }
            // The last bytes, padded with NUL (a separator).
            let mut padded = [0u8; 64];
            padded[..block.len()].copy_from_slice(block);
            sse2::masks(&padded, &self.vector_firsts)
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.word_masks(block)
    }

    /// [`QueryCounter::masks`] eight bytes at a time in a `u64`: on `x86_64`, only tested
    /// against the SSE2 classifier.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn word_masks(&self, block: &[u8]) -> (u64, u64) {
        let mut tokens = 0u64;
        let mut firsts = 0u64;
        for (i, word) in block.chunks(8).enumerate() {
            let word = if let Ok(word) = word.try_into() {
                u64::from_le_bytes(word)
            } else {
                // The last bytes, padded with NUL (a separator).
                let mut padded = [0u8; 8];
                padded[..word.len()].copy_from_slice(word);
                u64::from_le_bytes(padded)
            };
            let lower = word | (ONES * 0x20);
            let is_token = in_range(lower, b'a', b'z')
                | in_range(word, b'0', b'9')
                | equal(word, ONES * u64::from(b'_'))
                | equal(word, ONES * u64::from(b'-'));
            let mut is_first = 0;
            for &(first, is_letter) in &self.firsts {
                // Letters are compared lowercased; '-', '_' and digits as they are.
                is_first |= equal(if is_letter { lower } else { word }, first);
            }
            tokens |= gather(is_token) << (8 * i);
            firsts |= gather(is_first & is_token) << (8 * i);
        }
        (tokens, firsts)
    }
}

/// [`QueryCounter::masks`] of a whole block with SSE2, 16 bytes per instruction.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use safe_arch::{
        bitand_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, m128i, min_u8_m128i,
        move_mask_i8_m128i, set_splat_i8_m128i, sub_i8_m128i,
    };

    pub(super) type Bytes = m128i;

    /// `byte` in each of 16 lanes.
    pub(super) fn splat(byte: u8) -> Bytes {
        set_splat_i8_m128i(byte.cast_signed())
    }

    /// 0xff in each lane where `x <= n` (unsigned), else 0.
    fn at_most(x: Bytes, n: u8) -> Bytes {
        cmp_eq_mask_i8_m128i(min_u8_m128i(x, splat(n)), x)
    }

    /// The high bits of 16 lanes as 16 bits.
    fn bits(lanes: Bytes) -> u64 {
        u64::from(move_mask_i8_m128i(lanes).cast_unsigned() & 0xffff)
    }

    pub(super) fn masks(block: &[u8; 64], firsts: &[(Bytes, bool)]) -> (u64, u64) {
        let mut tokens = 0;
        let mut starts = 0;
        for (i, chunk) in block.chunks_exact(16).enumerate() {
            let bytes = load_unaligned_m128i(chunk.try_into().expect("16 bytes"));
            let lower = bitor_m128i(bytes, splat(0x20));
            let is_token = bitor_m128i(
                bitor_m128i(
                    at_most(sub_i8_m128i(lower, splat(b'a')), 25),
                    at_most(sub_i8_m128i(bytes, splat(b'0')), 9),
                ),
                bitor_m128i(
                    cmp_eq_mask_i8_m128i(bytes, splat(b'_')),
                    cmp_eq_mask_i8_m128i(bytes, splat(b'-')),
                ),
            );
            let mut is_first = splat(0);
            for &(first, is_letter) in firsts {
                // Letters are compared lowercased; '-', '_' and digits as they are.
                let text = if is_letter { lower } else { bytes };
                is_first = bitor_m128i(is_first, cmp_eq_mask_i8_m128i(text, first));
            }
            tokens |= bits(is_token) << (16 * i);
            starts |= bits(bitand_m128i(is_first, is_token)) << (16 * i);
        }
        (tokens, starts)
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
const HIGH: u64 = 0x8080_8080_8080_8080;

/// For each byte of `word` (all below 0x80): 0x80 when it lies in `lo..=hi` (`hi` < 0x80),
/// else 0. No carry crosses bytes: every sum stays below 0x100.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn in_range(word: u64, lo: u8, hi: u8) -> u64 {
    let at_least_lo = word + ONES * u64::from(0x80 - lo);
    let above_hi = word + ONES * u64::from(0x7f - hi);
    at_least_lo & !above_hi & HIGH
}

/// For each byte of `word` (all below 0x80): 0x80 when it equals the same byte of `pattern`
/// (also below 0x80), else 0. `v + 0x7f` reaches 0x80 exactly when the byte `v` is not 0.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn equal(word: u64, pattern: u64) -> u64 {
    !((word ^ pattern) + ONES * 0x7f) & HIGH
}

/// The high bit of each byte of `flags`, gathered into the low 8 bits (byte `k` → bit `k`).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn gather(flags: u64) -> u64 {
    ((flags >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// Offset of the first byte ≥ 0x80, looking at 32 bytes at a time.
fn find_non_ascii(bytes: &[u8]) -> Option<usize> {
    let mut skipped = 0;
    for chunk in bytes.chunks_exact(32) {
        if chunk.iter().fold(0, |acc, &b| acc | b) >= 0x80 {
            break;
        }
        skipped += 32;
    }
    bytes[skipped..]
        .iter()
        .position(|&b| b >= 0x80)
        .map(|i| skipped + i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::text::{for_each_token, tokens};

    /// The reference: [`QueryCounter::count`] through [`for_each_token`], token by token.
    fn count_by_tokens(query: &[String], text: &str, frequency: &mut [u32]) -> usize {
        let mut total = 0;
        for_each_token(text, |token| {
            total += 1;
            if let Some(i) = query.iter().position(|q| token.is(q.as_bytes())) {
                frequency[i] += 1;
            }
        });
        total
    }

    fn both(query: &str, text: &str) -> ((usize, Vec<u32>), (usize, Vec<u32>)) {
        let mut seen = std::collections::HashSet::new();
        let query: Vec<String> = tokens(query)
            .into_iter()
            .filter(|t| seen.insert(t.clone()))
            .collect();
        let mut fast = vec![0; query.len()];
        let mut slow = vec![0; query.len()];
        let fast_total = QueryCounter::new(&query).count(text, &mut fast);
        let slow_total = count_by_tokens(&query, text, &mut slow);
        ((fast_total, fast), (slow_total, slow))
    }

    #[track_caller]
    fn same(query: &str, text: &str) {
        let (fast, slow) = both(query, text);
        assert_eq!(fast, slow, "query {query:?} text {text:?}");
    }

    #[test]
    fn counts_as_the_tokenizer_does() {
        same(
            "rate limit",
            "Rate-limit the rate LIMIT: rate_limit rate limit.",
        );
        same("café été", "Le CAFÉ, l'été; café-crème cafés ÉTÉ");
        same("x1 ab", "a b ab x1 X1 ab9 -ab ab- _ab a");
        same("ab", &"ab ".repeat(100));
        // Tokens across 64-byte blocks, and a long token as the last of the text.
        let long = format!("{} {} ab", "ab".repeat(40), "z".repeat(130));
        same("ab zz", &long);
        same(&"z".repeat(130), &long);
        same("ab", &format!("{}ab", " ".repeat(63)));
        same("ab", &format!("{}ab", " ".repeat(62)));
        same("ab", "");
        same("", "nothing to find");
        same("émoji", "🚀🚀 émoji🚀x é ß ǅ İstanbul K");
    }

    #[test]
    fn masks_classify_every_ascii_byte() {
        let query = vec![
            "ab".to_owned(),
            "_x".to_owned(),
            "9z".to_owned(),
            "-q".to_owned(),
        ];
        let counter = QueryCounter::new(&query);
        let mut block = [0u8; 64];
        for start in (0u8..128).step_by(64) {
            for (i, b) in block.iter_mut().enumerate() {
                *b = start + u8::try_from(i).unwrap();
            }
            // A short block is read as if padded with separators.
            let (short_tokens, _) = counter.masks(&block[..13]);
            assert_eq!(short_tokens, counter.masks(&block).0 & ((1 << 13) - 1));
            let (tokens, firsts) = counter.masks(&block);
            // Both classifiers (where there are two) agree on a whole block.
            assert_eq!(counter.word_masks(&block), (tokens, firsts));
            for (i, &b) in block.iter().enumerate() {
                assert_eq!(
                    tokens >> i & 1 == 1,
                    ASCII_TOKEN[usize::from(b)] != 0,
                    "{b}"
                );
                let is_first = matches!(b.to_ascii_lowercase(), b'a' | b'_' | b'9' | b'-');
                assert_eq!(firsts >> i & 1 == 1, is_first, "{b}");
            }
        }
    }

    fn arbitrary_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            Just("ab".to_owned()),
            Just("AB".to_owned()),
            Just("rate".to_owned()),
            Just("limit".to_owned()),
            Just("café".to_owned()),
            Just("ÉTÉ".to_owned()),
            Just("-".to_owned()),
            Just("_".to_owned()),
            Just(" ".to_owned()),
            Just("\n".to_owned()),
            Just(".".to_owned()),
            Just("🚀".to_owned()),
            "[a-zA-Z0-9_ -]{1,70}",
            "\\PC{1,8}",
        ];
        proptest::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

        #[test]
        fn count_equals_the_tokenizer(
            text in arbitrary_text(),
            query in "(ab|rate|limit|café|été|z{2,3}|a_b|x-1|[a-z]{2,4})( (ab|rate|limit|café|été|[a-z0-9_-]{2,5})){0,4}",
        ) {
            let (fast, slow) = both(&query, &text);
            proptest::prop_assert_eq!(fast, slow);
        }
    }
}
