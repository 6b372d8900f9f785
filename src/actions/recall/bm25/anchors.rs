//! Where a query term may stand in a text, found 64 bytes at a time.
//!
//! Both stemmers keep the leading letters of a plain ASCII word, but for its last one or two
//! (Porter2 adds an `e` or turns a `y` into an `i`; both drop suffixes): a word whose stem is `s`
//! starts with `s`'s first `min(|s| − 1, 4)` letters (all of them when `s` has two or fewer), an
//! `i` among them possibly written `y` (`dying` is `die`). These are the stem's *anchors*. A word
//! part starts a run of ASCII letters and digits, or a camel-case hump (an uppercase letter after
//! a lowercase one). So a whitespace-delimited chunk of ASCII where no word part starts with an
//! anchor, and with no `'` (an apostrophe inside a word is dropped from its stem), holds no query
//! term; a chunk with a non-ASCII byte may hold any (Unicode case and accent folding), and is
//! always looked at.
//!
//! [`Anchors::positions`] reads a text as blocks of 64 bytes. From each block it takes bit masks
//! (ASCII letters and digits, lowercase and uppercase letters, bytes that are an anchor's first
//! letter in either case, apostrophes, bytes of 0x80 and above) — on `x86_64` from SSE2 compares,
//! elsewhere from bit arithmetic on 8-byte words, which the tests hold to the SSE2 masks. Shifts
//! of the masks give the word-part starts; only those whose first two bytes begin some anchor
//! (a bit table) are compared with the anchors, four bytes at once. What it returns — those matches, every
//! apostrophe and the first byte of every run of non-ASCII bytes — is where
//! [`Anchors::chunks`] finds the chunks to cut into words.

use crate::actions::recall::bm25::tokens::piece_around;
use crate::actions::recall::lanes::{HIGH, ONES, below, equal, gather, in_range};

/// The byte besides `'` that makes a chunk worth reading: a backslash in a journal line (a JSON
/// escape may write any letter), none in a note.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Also {
    Apostrophe,
    ApostropheOrBackslash,
}

/// A query's anchors, ready to be searched for.
#[derive(Debug, Clone)]
pub(super) struct Anchors {
    /// Every anchor as its bytes in a little-endian `u32` and the mask of those bytes, by
    /// first byte; `ranges[c]` is where those starting with `c` lie in `flat`.
    flat: Vec<(u32, u32)>,
    ranges: [(u32, u32); 128],
    /// Bit `128 × a + b` set when an anchor starts with the bytes `a`, `b`, or is the one byte
    /// `a` (then for every `b`); bit `a` of `singles` in that last case.
    pairs: Box<[u64; 256]>,
    singles: u128,
    /// The distinct first bytes, each with whether it is a letter (then compared in either
    /// case), as 8 copies in a word and, on `x86_64`, as 16 lanes.
    firsts: Vec<(u64, bool)>,
    #[cfg(target_arch = "x86_64")]
    vector_firsts: Vec<(sse2::Bytes, bool)>,
    /// Some anchor could come out of the text an event's values give but not their JSON
    /// (numbers written anew, `[object Object]`, an array's items joined with `,`): every
    /// journal line is then parsed.
    pub(super) parse_every_event: bool,
}

/// The anchor of a stem, without its `y` variants (`None` for a stem that is no ASCII word's:
/// a chunk holding one has a non-ASCII byte and is read anyway).
pub(super) fn anchor(stem: &str) -> Option<&[u8]> {
    if !stem.is_ascii() || stem.is_empty() {
        return None;
    }
    let len = if stem.len() <= 2 {
        stem.len()
    } else {
        (stem.len() - 1).min(4)
    };
    Some(&stem.as_bytes()[..len])
}

/// `anchor` with each `i` in it also written `y`, every combination.
fn with_y(anchor: &[u8]) -> Vec<Vec<u8>> {
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
    variants
}

impl Anchors {
    pub(super) fn new<'s>(stems: impl IntoIterator<Item = &'s str>) -> Self {
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut parse_every_event = false;
        for anchor in stems.into_iter().filter_map(anchor) {
            // Numbers are written anew (only digits and `e` make words of them), an object
            // is `[object Object]` and an array its items joined with `,` (`1,2` one word).
            parse_every_event |= anchor.iter().all(|c| c.is_ascii_digit() || *c == b'e')
                || anchor.contains(&b',')
                || [&b"object"[..], b"infinity", b"nan"]
                    .iter()
                    .any(|w| w.starts_with(anchor));
            patterns.extend(with_y(anchor));
        }
        // The text is compared in lowercase: an anchor with an uppercase letter matches nothing.
        patterns.retain(|p| !p.iter().any(u8::is_ascii_uppercase));
        patterns.sort_unstable();
        patterns.dedup();
        // Sorted, so those with one first byte are together.
        let mut flat = Vec::with_capacity(patterns.len());
        let mut ranges = [(0u32, 0u32); 128];
        for p in &patterns {
            let mut value = 0u32;
            for (k, &c) in p.iter().enumerate() {
                value |= u32::from(c) << (8 * k);
            }
            let mask = u32::MAX >> (8 * (4 - p.len()));
            let at = u32::try_from(flat.len()).unwrap_or(u32::MAX);
            let range = &mut ranges[usize::from(p[0])];
            if range.1 == 0 {
                range.0 = at;
            }
            flat.push((value, mask));
            range.1 = at + 1;
        }
        let mut pairs = Box::new([0u64; 256]);
        let mut singles = 0u128;
        for p in &patterns {
            let row = usize::from(p[0]) * 128;
            if let Some(&second) = p.get(1) {
                let at = row + usize::from(second);
                pairs[at / 64] |= 1 << (at % 64);
            } else {
                singles |= 1 << p[0];
                pairs[row / 64] = u64::MAX;
                pairs[row / 64 + 1] = u64::MAX;
            }
        }
        let mut first_bytes: Vec<u8> = patterns.iter().map(|p| p[0]).collect();
        first_bytes.dedup();
        Self {
            flat,
            ranges,
            pairs,
            singles,
            firsts: first_bytes
                .iter()
                .map(|&b| (ONES * u64::from(b), b.is_ascii_lowercase()))
                .collect(),
            #[cfg(target_arch = "x86_64")]
            vector_firsts: first_bytes
                .iter()
                .map(|&b| (sse2::splat(b), b.is_ascii_lowercase()))
                .collect(),
            parse_every_event,
        }
    }

    /// Whether an anchor starts at `b[at]`, compared with the text in lowercase.
    fn matches_at(&self, b: &[u8], at: usize) -> bool {
        let first = b[at].to_ascii_lowercase() & 0x7f;
        // Most candidates are told apart by their first two bytes (past the end: 0).
        let second = b.get(at + 1).map_or(0, u8::to_ascii_lowercase);
        if second < 0x80 {
            let pair = usize::from(first) * 128 + usize::from(second);
            if self.pairs[pair / 64] & (1 << (pair % 64)) == 0 {
                return false;
            }
        } else if self.singles & (1 << first) == 0 {
            return false;
        }
        let (from, to) = self.ranges[usize::from(first)];
        let anchors = &self.flat[from as usize..to as usize];
        if let Some(four) = b.get(at..at + 4) {
            let word = lowercase(u32::from_le_bytes(four.try_into().expect("4 bytes")));
            return anchors.iter().any(|&(value, mask)| word & mask == value);
        }
        let available = b.len() - at;
        let mut word = 0u32;
        for (k, &c) in b[at..].iter().enumerate() {
            word |= u32::from(c.to_ascii_lowercase()) << (8 * k);
        }
        // An anchor longer than what is left has a mask over bytes the text lacks.
        let fits = u32::MAX >> (8 * (4 - available));
        anchors
            .iter()
            .any(|&(value, mask)| mask & !fits == 0 && word & mask == value)
    }

    /// Sets `out` to every position of `b`, in order, where a chunk may hold a query term: each
    /// anchor starting a word part (at the text's start, after a byte that is no ASCII letter
    /// or digit, or an uppercase letter after a lowercase one), each `'` (and backslash, as
    /// `also` says) and each first byte of a run of non-ASCII bytes.
    pub(super) fn positions(&self, b: &[u8], also: Also, out: &mut Vec<usize>) {
        out.clear();
        let (mut alnum_before, mut lower_before, mut high_before) = (0u64, 0u64, 0u64);
        for base in (0..b.len()).step_by(64) {
            let rest = &b[base..];
            let m = if let Some(block) = rest.first_chunk::<64>() {
                self.block_masks(block, also)
            } else {
                // The last bytes, padded with zeros (no letter, digit or non-ASCII byte).
                let mut padded = [0u8; 64];
                padded[..rest.len()].copy_from_slice(rest);
                let valid = below(u32::try_from(rest.len()).unwrap_or(u32::MAX));
                let m = self.block_masks(&padded, also);
                Masks {
                    first: m.first & valid,
                    also: m.also & valid,
                    ..m
                }
            };
            let starts =
                !((m.alnum << 1) | alnum_before) | (m.upper & ((m.lower << 1) | lower_before));
            let mut candidates = m.first & starts;
            let mut wanted = m.also | (m.high & !((m.high << 1) | high_before));
            while candidates != 0 {
                let bit = candidates.trailing_zeros();
                candidates &= candidates - 1;
                if self.matches_at(b, base + bit as usize) {
                    wanted |= 1 << bit;
                }
            }
            while wanted != 0 {
                out.push(base + wanted.trailing_zeros() as usize);
                wanted &= wanted - 1;
            }
            alnum_before = m.alnum >> 63;
            lower_before = m.lower >> 63;
            high_before = m.high >> 63;
        }
    }

    /// Calls `chunk` with each whitespace-delimited chunk of `text` that holds one of
    /// `positions` (of `text`, in order; see [`Anchors::positions`]), each once, in order — and
    /// with the first chunk when `text` starts inside a run of non-ASCII bytes that began before
    /// it.
    pub(super) fn chunks<'t>(
        text: &'t str,
        positions: impl IntoIterator<Item = usize>,
        mut chunk: impl FnMut(&'t str),
    ) {
        let b = text.as_bytes();
        let leading = b.first().is_some_and(|&c| c >= 0x80).then_some(0);
        let mut from = 0;
        for at in leading.into_iter().chain(positions) {
            if at < from {
                continue;
            }
            let (start, end) = piece_around(b, from, at, u8::is_ascii_whitespace);
            chunk(&text[start..end]);
            from = end + 1;
        }
    }

    /// [`Masks`] of a block: SSE2 on `x86_64`, bit arithmetic elsewhere.
    fn block_masks(&self, block: &[u8; 64], also: Also) -> Masks {
        #[cfg(target_arch = "x86_64")]
        return sse2::masks(block, &self.vector_firsts, also);
        #[cfg(not(target_arch = "x86_64"))]
        self.word_masks(block, also)
    }

    /// [`Masks`] of a block eight bytes at a time in a `u64`: on `x86_64`, only tested against
    /// the SSE2 classifier.
    #[cfg_attr(
        all(target_arch = "x86_64", not(test)),
        expect(dead_code, reason = "on x86_64 only the tests use it, against SSE2")
    )]
    fn word_masks(&self, block: &[u8; 64], also: Also) -> Masks {
        let mut masks = Masks::default();
        for (i, word) in block.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            let high = word & HIGH;
            // The classification below needs bytes under 0x80; a high byte is none of them.
            let ascii = word & !HIGH;
            let folded = ascii | (ONES * 0x20);
            let lower = in_range(ascii, b'a', b'z');
            let letter = in_range(folded, b'a', b'z');
            let alnum = (letter | in_range(ascii, b'0', b'9')) & !high;
            let mut first = 0;
            for &(byte, is_letter) in &self.firsts {
                first |= equal(if is_letter { folded } else { ascii }, byte);
            }
            let mut extra = equal(ascii, ONES * u64::from(b'\''));
            if also == Also::ApostropheOrBackslash {
                extra |= equal(ascii, ONES * u64::from(b'\\'));
            }
            let shift = 8 * i;
            masks.alnum |= gather(alnum) << shift;
            masks.lower |= gather(lower & !high) << shift;
            masks.upper |= gather(letter & !lower & !high) << shift;
            masks.first |= gather(first & !high) << shift;
            masks.also |= gather(extra & !high) << shift;
            masks.high |= gather(high) << shift;
        }
        masks
    }
}

/// Each byte of `word` in ASCII lowercase.
fn lowercase(word: u32) -> u32 {
    let ascii = word & 0x7f7f_7f7f;
    // 0x80 in each byte from `A` on, and in each from past `Z` on.
    let from_a = ascii + 0x3f3f_3f3f;
    let past_z = ascii + 0x2525_2525;
    let upper = from_a & !past_z & !word & 0x8080_8080;
    word | (upper >> 2)
}

/// What a block of 64 bytes holds, bit `i` for byte `i`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Masks {
    /// ASCII letters and digits.
    alnum: u64,
    /// Lowercase ASCII letters.
    lower: u64,
    /// Uppercase ASCII letters.
    upper: u64,
    /// Bytes that are some anchor's first byte (letters in either case).
    first: u64,
    /// Apostrophes (and backslashes, as asked).
    also: u64,
    /// Bytes of 0x80 and above.
    high: u64,
}

/// [`Anchors::block_masks`] with SSE2, 16 bytes per instruction.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use safe_arch::{bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, sub_i8_m128i};

    use super::Also;
    pub(super) use crate::actions::recall::lanes::sse2::{Bytes, splat};
    use crate::actions::recall::lanes::sse2::{at_most, bits};

    pub(super) fn masks(block: &[u8; 64], firsts: &[(Bytes, bool)], also: Also) -> super::Masks {
        let mut masks = super::Masks::default();
        for (i, chunk) in block.chunks_exact(16).enumerate() {
            let bytes = load_unaligned_m128i(chunk.try_into().expect("16 bytes"));
            let folded = bitor_m128i(bytes, splat(0x20));
            let letter = at_most(sub_i8_m128i(folded, splat(b'a')), 25);
            let lower = at_most(sub_i8_m128i(bytes, splat(b'a')), 25);
            let digit = at_most(sub_i8_m128i(bytes, splat(b'0')), 9);
            let mut first = splat(0);
            for &(byte, is_letter) in firsts {
                let text = if is_letter { folded } else { bytes };
                first = bitor_m128i(first, cmp_eq_mask_i8_m128i(text, byte));
            }
            let mut extra = cmp_eq_mask_i8_m128i(bytes, splat(b'\''));
            if also == Also::ApostropheOrBackslash {
                extra = bitor_m128i(extra, cmp_eq_mask_i8_m128i(bytes, splat(b'\\')));
            }
            let shift = 16 * i;
            let (letter, lower) = (bits(letter), bits(lower));
            masks.alnum |= (letter | bits(digit)) << shift;
            masks.lower |= lower << shift;
            masks.upper |= (letter & !lower) << shift;
            masks.first |= bits(first) << shift;
            masks.also |= bits(extra) << shift;
            masks.high |= bits(bytes) << shift;
        }
        masks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Anchors::positions`] byte by byte: where the lowercase text holds an anchor at a word
    /// part's start, each `'` (and backslash, as asked) and each first byte of a non-ASCII run.
    fn reference_positions(stems: &[&str], b: &[u8], also: Also) -> Vec<usize> {
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        for anchor in stems.iter().copied().filter_map(anchor) {
            patterns.extend(with_y(anchor));
        }
        let lower = b.to_ascii_lowercase();
        (0..b.len())
            .filter(|&at| {
                let starts_part = at == 0 || {
                    let before = b[at - 1];
                    !before.is_ascii_alphanumeric()
                        || (before.is_ascii_lowercase() && b[at].is_ascii_uppercase())
                };
                let anchored = starts_part && patterns.iter().any(|p| lower[at..].starts_with(p));
                let extra =
                    b[at] == b'\'' || (also == Also::ApostropheOrBackslash && b[at] == b'\\');
                let run_starts = b[at] >= 0x80 && (at == 0 || b[at - 1] < 0x80);
                anchored || extra || run_starts
            })
            .collect()
    }

    fn positions(stems: &[&str], b: &[u8], also: Also) -> Vec<usize> {
        let mut out = vec![7];
        Anchors::new(stems.iter().copied()).positions(b, also, &mut out);
        out
    }

    #[test]
    fn positions_on_a_sample() {
        let text = "Rate-limit l'API: rateLimit, X-Rate, pirate, dying-DYING été's \\rate";
        let b = text.as_bytes();
        let found = positions(&["rate", "die", "été"], b, Also::Apostrophe);
        assert_eq!(
            found,
            reference_positions(&["rate", "die", "été"], b, Also::Apostrophe)
        );
        let at = |s: &str| text.match_indices(s).map(|(i, _)| i).collect::<Vec<_>>();
        // "Rate", "rate" (camel-case: "rateLimit" starts a part), "Rate" after "X-", not
        // "pirate"; "dying" and "DYING" (the y variant of "di"); the apostrophes; "été"'s runs.
        for expected in [
            at("Rate")[0],
            at("rate")[0],
            at("Rate")[1],
            at("dying")[0],
            at("DYING")[0],
        ] {
            assert!(found.contains(&expected), "{expected} in {found:?}");
        }
        assert!(!found.contains(&(at("pirate")[0] + 2)));
        assert_eq!(found.iter().filter(|&&p| b[p] == b'\'').count(), 2);
        // The backslash only when asked.
        let with = positions(&["rate"], b, Also::ApostropheOrBackslash);
        assert!(with.contains(&at("\\")[0]));
        assert!(!found.contains(&at("\\")[0]));
    }

    #[test]
    fn a_stem_with_an_uppercase_letter_or_no_ascii_has_no_anchor() {
        assert!(positions(&["Rate", "été", ""], b"rate Rate RATE", Also::Apostrophe).is_empty());
        assert_eq!(anchor("x"), Some(&b"x"[..]));
        assert_eq!(anchor("ab"), Some(&b"ab"[..]));
        assert_eq!(anchor("rat"), Some(&b"ra"[..]));
        assert_eq!(anchor("middlewar"), Some(&b"midd"[..]));
    }

    #[test]
    fn chunks_start_with_a_run_begun_before_the_text() {
        // A heading trimmed of an ideographic space: its first letter continues the run of
        // non-ASCII bytes that the space began, so the text's positions have none for it.
        let text = "\u{3000}é x'y z";
        let found = positions(&[], text.as_bytes(), Also::Apostrophe);
        assert_eq!(found, [0, 7]);
        let field = &text[3..];
        let within: Vec<usize> = found.iter().filter(|&&p| p >= 3).map(|&p| p - 3).collect();
        let mut seen = Vec::new();
        Anchors::chunks(field, within, |c| seen.push(c));
        assert_eq!(seen, ["é", "x'y"]);
    }

    proptest::proptest! {
        #[test]
        fn positions_are_the_reference_positions(
            stems in proptest::collection::vec("(rate|limit|die|sky|x|ab|[a-z]{1,6}|[a-z0-9_.]{1,5}|été|Up)", 0..5),
            text in "(rate|Rate|RATE|rateLimit|pirate|dying|DYING|skies|x|ab|AB|[a-zA-Z]{1,9}|[0-9]{1,3}|[ \n',;_.:\\\\-]|été|é|кэш|\u{a0}|\u{2019}|[a-z]{60,70}){0,60}",
            backslash: bool,
        ) {
            let also = if backslash { Also::ApostropheOrBackslash } else { Also::Apostrophe };
            let stems: Vec<&str> = stems.iter().map(String::as_str).collect();
            let b = text.as_bytes();
            proptest::prop_assert_eq!(positions(&stems, b, also), reference_positions(&stems, b, also));
        }

        #[test]
        fn the_word_classifier_gives_the_sse2_masks(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 64),
            stems in proptest::collection::vec("[a-z0-9_]{1,5}", 0..6),
            backslash: bool,
        ) {
            let also = if backslash { Also::ApostropheOrBackslash } else { Also::Apostrophe };
            let anchors = Anchors::new(stems.iter().map(String::as_str));
            let block: [u8; 64] = bytes.try_into().unwrap();
            proptest::prop_assert_eq!(anchors.word_masks(&block, also), anchors.block_masks(&block, also));
        }

        #[test]
        fn lowercase_is_bytewise(word: u32) {
            let expected = u32::from_le_bytes(word.to_le_bytes().map(|b| b.to_ascii_lowercase()));
            proptest::prop_assert_eq!(lowercase(word), expected);
        }
    }
}
