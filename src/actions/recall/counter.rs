//! Counting a query's tokens in a text without looking at every token one by one.
//!
//! docs §5's score needs two numbers from a text: how many tokens it has, and how often each
//! query token occurs. [`QueryCounter::count`] gets both in one pass and gives the same
//! numbers as [`for_each_token`](super::text::for_each_token) would (a property test holds it to that):
//!
//! * The text is read 64 bytes at a time, giving three 64-bit masks: ASCII token bytes, bytes
//!   that start some query token, and non-ASCII bytes. On `x86_64` they come from four 16-byte
//!   SSE2 compares (through `safe_arch`, as this crate forbids `unsafe`); elsewhere from eight
//!   8-byte words classified with bit arithmetic (no branch per byte), which the tests hold to
//!   the SSE2 masks. A text's last partial block is read as the 64 bytes that end the text,
//!   shifted (a text under 64 bytes is copied into a block padded with separators).
//! * A *word* is a maximal run of bytes that are not ASCII separators. A word with a non-ASCII
//!   byte (found from the masks, within its block or across the next one) goes through the
//!   character-by-character tokenizer, as in [`for_each_token`](super::text::for_each_token).
//!   A pure-ASCII word is exactly one token, its bytes.
//! * Token starts and ends are shifts of the token mask (with a carry from the block before
//!   and the next block's first bit), so the number of tokens of two bytes or more is a
//!   population count.
//! * Only tokens whose first byte starts some query token (a mask) and whose first two bytes
//!   start one (a 128 × 128 bit table) are looked at individually (their length from the mask,
//!   then a case-insensitive comparison): in a typical text, a few per cent of them.

use crate::actions::recall::lanes::{HIGH, ONES, below, equal, gather, in_range};
use crate::js::text::{ASCII_TOKEN, Token, is_ascii_separator, slow_tokens};

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
        // The bytes before `done` belong to a word already counted: one with a non-ASCII byte
        // that ran past its block.
        let mut done = 0;
        // Whether the block's first byte continues an ASCII token counted in the block before.
        let mut carry = false;
        let mut next = self.masks(bytes, 0);
        for base in (0..bytes.len()).step_by(64) {
            let Masks {
                mut tokens,
                firsts,
                mut high,
            } = next;
            next = self.masks(bytes, base + 64);
            let mut words = tokens | high;
            if done > base {
                let live = !below(u32::try_from(done - base).unwrap_or(u32::MAX));
                words &= live;
                tokens &= live;
                high &= live;
            }
            // Whether the block's last word runs on into the next block as an ASCII token.
            let mut runs_on = false;
            let next_words = next.tokens | next.high;
            if words >> 63 == 1 && next_words & 1 == 1 {
                let start = 64 - words.leading_ones();
                let tail = next_words.trailing_ones();
                if tail < 64 && high >> start == 0 && next.high & below(tail) == 0 {
                    runs_on = true;
                } else {
                    // A non-ASCII word (or one longer than the next block): counted whole, here.
                    let end = if tail < 64 {
                        base + 64 + tail as usize
                    } else {
                        bytes[base + 64..]
                            .iter()
                            .position(|&b| is_ascii_separator(b))
                            .map_or(bytes.len(), |i| base + 64 + i)
                    };
                    total +=
                        self.count_word(text, base + start as usize, end, &mut buffer, frequency);
                    done = end;
                    let before = below(start);
                    words &= before;
                    tokens &= before;
                    high &= before;
                }
            }
            // Each other word with a non-ASCII byte goes through the character tokenizer.
            while high != 0 {
                let bit = high.trailing_zeros();
                let start = 64 - (!words & ((1u64 << bit) - 1)).leading_zeros();
                let end = bit + (!(words >> bit)).trailing_zeros();
                total += self.count_word(
                    text,
                    base + start as usize,
                    base + end as usize,
                    &mut buffer,
                    frequency,
                );
                let word = !below(start) & below(end);
                tokens &= !word;
                high &= !word;
            }
            let block = Block {
                base,
                tokens,
                firsts,
                carry,
                runs_on,
                next_tokens: next.tokens,
            };
            total += self.count_ascii(bytes, &block, frequency);
            carry = runs_on;
        }
        total
    }

    /// Whether `text` holds at least one query token.
    #[must_use]
    pub fn mentions(&self, text: &str) -> bool {
        self.with_counts(|frequency| {
            self.count(text, frequency);
            frequency.iter().any(|&f| f > 0)
        })
    }

    /// `f` of one zeroed count per query token, as [`QueryCounter::count`] takes them: on the
    /// stack for a query of up to 16 tokens (queries are short).
    pub fn with_counts<R>(&self, f: impl FnOnce(&mut [u32]) -> R) -> R {
        let mut small = [0u32; 16];
        match small.get_mut(..self.query.len()) {
            Some(counts) => f(counts),
            None => f(&mut vec![0; self.query.len()]),
        }
    }

    fn tally(&self, token: Token<'_>, frequency: &mut [u32]) {
        if let Some(i) = self.query.iter().position(|q| token.is(q.as_bytes())) {
            frequency[i] += 1;
        }
    }

    /// [`QueryCounter::count`] of the word `text[start..end]` (a whole word: ASCII separators,
    /// or the text's ends, on both sides).
    fn count_word(
        &self,
        text: &str,
        start: usize,
        end: usize,
        buffer: &mut Vec<u8>,
        frequency: &mut [u32],
    ) -> usize {
        let word = &text[start..end];
        if !word.is_ascii() {
            let mut total = 0;
            slow_tokens(word, buffer, &mut |token| {
                total += 1;
                self.tally(token, frequency);
            });
            return total;
        }
        if word.len() < 2 {
            return 0;
        }
        self.tally_ascii(word.as_bytes(), frequency);
        1
    }

    /// Counts `token`, a pure-ASCII token, when it is one of the query's.
    fn tally_ascii(&self, token: &[u8], frequency: &mut [u32]) {
        if self.lengths & (1u64 << token.len().min(63)) == 0 {
            return;
        }
        if let Some(&i) = self
            .ascii
            .iter()
            .find(|&&i| token.eq_ignore_ascii_case(self.query[i].as_bytes()))
        {
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

    /// [`QueryCounter::count`] of the ASCII tokens that start in `block`.
    fn count_ascii(&self, bytes: &[u8], block: &Block, frequency: &mut [u32]) -> usize {
        let tokens = block.tokens;
        let starts = tokens & !((tokens << 1) | u64::from(block.carry));
        let ends = tokens & !((tokens >> 1) | (u64::from(block.runs_on) << 63));
        // A token of one byte is no token, and starts no query token either.
        let long = starts & !ends;
        let mut candidates = long & block.firsts;
        while candidates != 0 {
            let bit = candidates.trailing_zeros();
            candidates &= candidates - 1;
            let start = block.base + bit as usize;
            // A query token has two bytes or more: the candidate's first two must start one.
            if !self.starts_some_token(bytes[start], bytes[start + 1]) {
                continue;
            }
            let mut len = (!(tokens >> bit)).trailing_zeros() as usize;
            if bit as usize + len == 64 && block.runs_on {
                len += block.next_tokens.trailing_ones() as usize;
            }
            self.tally_ascii(&bytes[start..start + len], frequency);
        }
        long.count_ones() as usize
    }

    /// The masks of the 64 bytes from `base` (bit `i` for byte `base + i`; bytes past the end
    /// of `bytes` read as separators).
    fn masks(&self, bytes: &[u8], base: usize) -> Masks {
        let Some(rest) = bytes.get(base..).filter(|rest| !rest.is_empty()) else {
            return Masks::default();
        };
        if let Some(block) = rest.first_chunk::<64>() {
            return self.block_masks(block);
        }
        if let Some(block) = bytes.last_chunk::<64>() {
            // The text's last 64 bytes, shifted so that its end is past bit `rest.len() - 1`.
            let shift = 64 - rest.len();
            let Masks {
                tokens,
                firsts,
                high,
            } = self.block_masks(block);
            return Masks {
                tokens: tokens >> shift,
                firsts: firsts >> shift,
                high: high >> shift,
            };
        }
        let mut padded = [0u8; 64];
        padded[..rest.len()].copy_from_slice(rest);
        self.block_masks(&padded)
    }

    /// [`Masks`] of a block: SSE2 on `x86_64`, bit arithmetic elsewhere.
    fn block_masks(&self, block: &[u8; 64]) -> Masks {
        #[cfg(target_arch = "x86_64")]
        return sse2::masks(block, &self.vector_firsts);
        #[cfg(not(target_arch = "x86_64"))]
        self.word_masks(block)
    }

    /// [`Masks`] of a block eight bytes at a time in a `u64`: on `x86_64`, only tested against
    /// the SSE2 classifier.
    #[cfg_attr(
        all(target_arch = "x86_64", not(test)),
        expect(dead_code, reason = "on x86_64 only the tests use it, against SSE2")
    )]
    fn word_masks(&self, block: &[u8; 64]) -> Masks {
        let mut masks = Masks::default();
        for (i, word) in block.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            let high = word & HIGH;
            // The classification below needs bytes under 0x80; a high byte is no token byte.
            let ascii = word & !HIGH;
            let lower = ascii | (ONES * 0x20);
            let is_token = (in_range(lower, b'a', b'z')
                | in_range(ascii, b'0', b'9')
                | equal(ascii, ONES * u64::from(b'_'))
                | equal(ascii, ONES * u64::from(b'-')))
                & !high;
            let mut is_first = 0;
            for &(first, is_letter) in &self.firsts {
                // Letters are compared lowercased; '-', '_' and digits as they are.
                is_first |= equal(if is_letter { lower } else { ascii }, first);
            }
            masks.tokens |= gather(is_token) << (8 * i);
            masks.firsts |= gather(is_first & is_token) << (8 * i);
            masks.high |= gather(high) << (8 * i);
        }
        masks
    }
}

/// The ASCII tokens of a block of 64 bytes, as [`QueryCounter::count_ascii`] counts them.
#[derive(Debug)]
struct Block {
    /// Where the block starts in the text.
    base: usize,
    /// The bytes of ASCII tokens, none of a word with a non-ASCII byte.
    tokens: u64,
    /// Token bytes that start some ASCII query token.
    firsts: u64,
    /// Whether the first byte continues a token of the block before.
    carry: bool,
    /// Whether the last byte's token runs on into the next block.
    runs_on: bool,
    /// The next block's token bytes.
    next_tokens: u64,
}

/// What a block of 64 bytes holds, bit `i` for byte `i`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Masks {
    /// ASCII token bytes.
    tokens: u64,
    /// Token bytes whose lowercase form starts some ASCII query token.
    firsts: u64,
    /// Bytes of 0x80 and above (of non-ASCII characters).
    high: u64,
}

/// [`QueryCounter::masks`] of a whole block with SSE2, 16 bytes per instruction.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use safe_arch::{
        bitand_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, sub_i8_m128i,
    };

    pub(super) use crate::actions::recall::lanes::sse2::{Bytes, splat};
    use crate::actions::recall::lanes::sse2::{at_most, bits};

    pub(super) fn masks(block: &[u8; 64], firsts: &[(Bytes, bool)]) -> super::Masks {
        let mut masks = super::Masks::default();
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
            masks.tokens |= bits(is_token) << (16 * i);
            masks.firsts |= bits(bitand_m128i(is_first, is_token)) << (16 * i);
            masks.high |= bits(bytes) << (16 * i);
        }
        masks
    }
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
        // Words with a non-ASCII byte across blocks: before the boundary, after it, far after
        // it (a word over two boundaries), and ASCII words over one or two boundaries.
        for pad in 50..70 {
            let lead = " ".repeat(pad);
            same("abé ab", &format!("{lead}abé ab"));
            same("ab", &format!("{lead}ab{} ab", "x".repeat(12)));
            same("éab ab", &format!("{lead}éab ab"));
            same("ab x-é", &format!("{lead}ab{}é ab", "-x".repeat(70)));
            same("ab", &format!("{lead}{}é ab", "ab".repeat(70)));
            same("ab", &format!("{lead}{} ab", "ab".repeat(70)));
            same("ab", &format!("{lead}ab{}", "é".repeat(40)));
            same("ab", &format!("{lead}ab"));
        }
    }

    #[test]
    fn masks_classify_every_byte() {
        let query = vec![
            "ab".to_owned(),
            "_x".to_owned(),
            "9z".to_owned(),
            "-q".to_owned(),
        ];
        let counter = QueryCounter::new(&query);
        let mut block = [0u8; 64];
        for start in (0u8..=255).step_by(64) {
            for (i, b) in block.iter_mut().enumerate() {
                *b = start + u8::try_from(i).unwrap();
            }
            let masks = counter.block_masks(&block);
            // Both classifiers (where there are two) agree on a whole block.
            assert_eq!(counter.word_masks(&block), masks);
            for (i, &b) in block.iter().enumerate() {
                let is_token = b < 0x80 && ASCII_TOKEN[usize::from(b)] != 0;
                assert_eq!(masks.tokens >> i & 1 == 1, is_token, "{b}");
                let is_first = matches!(b.to_ascii_lowercase(), b'a' | b'_' | b'9' | b'-');
                assert_eq!(masks.firsts >> i & 1 == 1, is_first, "{b}");
                assert_eq!(masks.high >> i & 1 == 1, b >= 0x80, "{b}");
            }
            // The end of a text reads as if padded with separators, whether the text is
            // shorter than a block or ends in the middle of one.
            for len in [1, 13, 63, 64, 100, 127] {
                let mut text = block.to_vec();
                text.extend_from_slice(&block);
                text.truncate(len);
                let base = len / 64 * 64;
                let mut padded = [0u8; 64];
                padded[..len - base].copy_from_slice(&text[base..]);
                let expected = if base == len {
                    Masks::default()
                } else {
                    counter.block_masks(&padded)
                };
                assert_eq!(counter.masks(&text, base), expected, "{len}");
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
