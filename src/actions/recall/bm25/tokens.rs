//! The words `--ranking bm25` compares: every script, case and accents folded, English and
//! French stems.
//!
//! A text is cut at Unicode's word boundaries (UAX #29), so Cyrillic, Greek, Arabic or CJK words
//! are words too (a Chinese or Japanese ideograph is a word of its own, as UAX #29 has it without
//! a dictionary). A word that joins parts with `_`, `.` or `:` (`rate_limit`, `config.yaml`,
//! `std::fs`) gives each part; a part in camel case (`ParserCache`) gives itself and each hump.
//! A part is then [`analyze`]d: full Unicode case folding, a French elision dropped (`l'équipe`
//! is `équipe`, `qu'il` is `il`), then a short stop-word check, the Snowball English stem (of the
//! word without accents) and the French stem (accents removed after). A single ASCII letter or
//! digit is no word.
//!
//! Which of the two stems counts is the document's choice (its language, guessed from its
//! accented letters), so the query's words keep both. None of this is the lexical ranking's tokenizer,
//! which stays as bmad-plus has it (ASCII and French accents only).

use std::borrow::Cow;

use frostem::{Algorithm, Stemmer};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;
use unicode_segmentation::UnicodeSegmentation;

use crate::actions::recall::lanes::{gather, in_range};

/// A stop-word list as a `match` (the test) and as a list (for tables built from it), from one
/// spelling so the two cannot disagree.
macro_rules! stop_words {
    ($(#[$doc:meta])* $test:ident, $list:ident: [$($word:literal),* $(,)?]) => {
        $(#[$doc])*
        fn $test(word: &[u8]) -> bool {
            matches!(word, $($word)|*)
        }

        /// The same words as a list.
        pub const $list: &[&[u8]] = &[$($word),*];
    };
}

stop_words! {
    /// Whether `word` (case-folded) is an English stop word (Lucene's classic list).
    is_stop_en, STOP_EN: [
        b"a",
        b"an",
        b"and",
        b"are",
        b"as",
        b"at",
        b"be",
        b"but",
        b"by",
        b"for",
        b"if",
        b"in",
        b"into",
        b"is",
        b"it",
        b"no",
        b"not",
        b"of",
        b"on",
        b"or",
        b"such",
        b"that",
        b"the",
        b"their",
        b"then",
        b"there",
        b"these",
        b"they",
        b"this",
        b"to",
        b"was",
        b"will",
        b"with",
    ]
}

stop_words! {
    /// Whether `word` (case-folded) is a French stop word: articles, common prepositions, pronouns
    /// and auxiliaries.
    is_stop_fr, STOP_FR: [
        b"au",
        b"aux",
        b"avec",
        b"ce",
        b"ces",
        b"cette",
        b"dans",
        b"de",
        b"des",
        b"du",
        b"elle",
        b"en",
        b"est",
        b"et",
        b"il",
        b"ils",
        b"je",
        b"la",
        b"le",
        b"les",
        b"leur",
        b"mais",
        b"ne",
        b"nous",
        b"on",
        b"ont",
        b"ou",
        b"o\xc3\xb9",
        b"par",
        b"pas",
        b"pour",
        b"qu",
        b"que",
        b"qui",
        b"sa",
        b"se",
        b"ses",
        b"son",
        b"sont",
        b"sur",
        b"un",
        b"une",
        b"vous",
        b"\xc3\xa0",
    ]
}

/// Elided French words that end with an apostrophe before a vowel.
const ELISIONS: [&str; 13] = [
    "c", "d", "j", "l", "m", "n", "s", "t", "qu", "jusqu", "lorsqu", "puisqu", "quoiqu",
];

/// The languages whose stems are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    English,
    French,
}

/// What one word is for ranking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// A stop word of English (kept out of the ranking, counted to guess a text's language).
    pub is_stop_en: bool,
    /// A stop word of French.
    pub is_stop_fr: bool,
    /// The English stem, accents folded.
    pub en: String,
    /// The French stem, accents folded.
    pub fr: String,
}

impl Analysis {
    /// Whether the word is left out of the ranking.
    #[must_use]
    pub fn is_stop(&self) -> bool {
        self.is_stop_en || self.is_stop_fr
    }

    /// The stem in `language`.
    #[must_use]
    pub fn stem(&self, language: Language) -> &str {
        match language {
            Language::English => &self.en,
            Language::French => &self.fr,
        }
    }
}

/// Calls `emit` with every word part of `text`, as it stands in the text (not yet folded).
///
/// Text between ASCII whitespace that is all ASCII — most of a note — is cut by [`ascii_words`],
/// which gives the parts Unicode's rules would give, several times faster.
pub fn for_each_word<'a>(text: &'a str, mut emit: impl FnMut(&'a str)) {
    for_each_marked_word(text, |word, _| emit(word));
}

/// [`for_each_word`], each word marked `true` when it is plain: ASCII letters and digits only.
///
/// ASCII text is cut in one pass by [`ascii_words`] (no word of it spans whitespace, so it needs
/// no cutting at whitespace first); only a whitespace-delimited chunk that holds a non-ASCII
/// byte goes through Unicode's rules.
pub fn for_each_marked_word<'a>(text: &'a str, mut emit: impl FnMut(&'a str, bool)) {
    for_each_chunk(text, |chunk, is_ascii| {
        if is_ascii {
            ascii_words(chunk, &mut emit);
        } else {
            unicode_chunk(chunk, &mut emit);
        }
    });
}

/// Cuts `text` into ASCII runs and the whitespace-delimited chunks that hold a non-ASCII byte,
/// in order: `each(chunk, is_ascii)`. No ASCII word spans whitespace, so a word is always
/// wholly inside one chunk.
fn for_each_chunk<'a>(text: &'a str, mut each: impl FnMut(&'a str, bool)) {
    let b = text.as_bytes();
    let mut rest = 0;
    while rest < b.len() {
        let Some(at) = first_non_ascii(&b[rest..]) else {
            each(&text[rest..], true);
            return;
        };
        let (start, end) = piece_around(b, rest, rest + at, u8::is_ascii_whitespace);
        each(&text[rest..start], true);
        each(&text[start..end], false);
        rest = end;
    }
}

/// The piece of `b` around byte `at` between two bytes that are `bound` (or `from` and the
/// end), as `(start, end)`: `start` not before `from`, `end` at the first bound byte from `at`.
pub fn piece_around(
    b: &[u8],
    from: usize,
    at: usize,
    bound: impl Fn(&u8) -> bool,
) -> (usize, usize) {
    let start = b[from..at]
        .iter()
        .rposition(&bound)
        .map_or(from, |i| from + i + 1);
    let end = b[at..].iter().position(bound).map_or(b.len(), |i| at + i);
    (start, end)
}

/// Where the first byte above 127 is, eight bytes at a time.
#[must_use]
pub fn first_non_ascii(b: &[u8]) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut blocks = b.chunks_exact(8);
    let mut at = 0;
    for block in &mut blocks {
        let word = u64::from_le_bytes(block.try_into().unwrap_or([0; 8]));
        if word & HIGH != 0 {
            return Some(at + (word & HIGH).trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    let tail = blocks.remainder();
    tail.iter().position(|c| !c.is_ascii()).map(|q| at + q)
}

/// The class of each byte for [`ascii_words`]: a letter or digit, and its case.
const ALNUM: u8 = 1;
const LOWER: u8 = 2;
const UPPER: u8 = 4;
const CLASSES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut c = 0;
    while c < 128 {
        #[expect(clippy::cast_possible_truncation, reason = "below 128")]
        let byte = c as u8;
        if byte.is_ascii_digit() {
            table[c] = ALNUM;
        } else if byte.is_ascii_lowercase() {
            table[c] = ALNUM | LOWER;
        } else if byte.is_ascii_uppercase() {
            table[c] = ALNUM | UPPER;
        }
        c += 1;
    }
    table
};

/// The words of a chunk (no ASCII whitespace in it) by Unicode's rules.
fn unicode_chunk<'a>(chunk: &'a str, emit: &mut impl FnMut(&'a str, bool)) {
    for word in chunk.unicode_words() {
        parts(word, &mut |part| with_camel_parts(part, false, emit));
    }
}

/// What [`for_each_marked_word`] gave before its one-pass cut: text cut at ASCII whitespace,
/// each chunk then by [`ascii_words`] or Unicode's rules. The reference the tests hold it to.
#[cfg(test)]
pub fn reference_marked_words<'a>(text: &'a str, mut emit: impl FnMut(&'a str, bool)) {
    for chunk in text.split_ascii_whitespace() {
        if chunk.is_ascii() {
            ascii_words(chunk, &mut emit);
        } else {
            unicode_chunk(chunk, &mut emit);
        }
    }
}

/// The parts of a word: `_`, `.` and `:` separate them.
fn parts<'a>(word: &'a str, emit: &mut impl FnMut(&'a str)) {
    for part in word.split(['_', '.', ':']) {
        if !part.is_empty() {
            emit(part);
        }
    }
}

/// The word parts of ASCII text, as [`parts`] of UAX #29's words: runs of letters and digits,
/// where `'` joins two letters or two digits, and `,` or `;` two digits.
///
/// The text is classified up to 64 bytes at a time into bit masks (letter or digit; a lowercase
/// letter before an uppercase one), so a plain word is found by two bit scans; a word that
/// reaches the end of the window, or may join across punctuation, is read byte by byte.
fn ascii_words<'a>(text: &'a str, emit: &mut impl FnMut(&'a str, bool)) {
    let b = text.as_bytes();
    let mut pos = 0;
    'windows: while pos < b.len() {
        let window = (b.len() - pos).min(64);
        let (alnum, humps) = masks(&b[pos..pos + window]);
        let mut todo = alnum;
        while todo != 0 {
            let s = todo.trailing_zeros() as usize;
            let e = s + (alnum >> s).trailing_ones() as usize;
            let (start, end) = (pos + s, pos + e);
            if e == window && end < b.len() {
                if s > 0 {
                    // The word may go on: read it in a window of its own.
                    pos = start;
                    continue 'windows;
                }
                pos = slow_word(text, start, emit);
                continue 'windows;
            }
            if end < b.len() && matches!(b[end], b'\'' | b',' | b';') {
                pos = slow_word(text, start, emit);
                continue 'windows;
            }
            // Bits s..e-1 of `humps`: a lowercase letter followed by an uppercase one inside.
            let inside = (u64::MAX >> (64 - e)) & !((1u64 << s) - 1) & !(1u64 << (e - 1));
            if humps & inside == 0 {
                emit(&text[start..end], true);
            } else {
                with_camel_parts(&text[start..end], true, emit);
            }
            todo = if e == 64 { 0 } else { alnum & (u64::MAX << e) };
        }
        pos += window;
    }
}

/// The masks of up to 64 ASCII bytes: letters and digits, and lowercase letters followed by an
/// uppercase one (in the window); eight bytes at a time in a `u64`.
fn masks(b: &[u8]) -> (u64, u64) {
    let mut padded = [0u8; 64];
    let block = if b.len() == 64 {
        b
    } else {
        padded[..b.len()].copy_from_slice(b);
        &padded
    };
    let (mut alnum, mut lower, mut upper) = (0u64, 0u64, 0u64);
    for (i, word) in block.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        let is_lower = in_range(word, b'a', b'z');
        let is_upper = in_range(word, b'A', b'Z');
        let is_digit = in_range(word, b'0', b'9');
        alnum |= gather(is_lower | is_upper | is_digit) << (8 * i);
        lower |= gather(is_lower) << (8 * i);
        upper |= gather(is_upper) << (8 * i);
    }
    (alnum, lower & (upper >> 1))
}

/// [`masks`] byte by byte: the reference the tests hold it to.
#[cfg(test)]
fn masks_by_byte(b: &[u8]) -> (u64, u64) {
    let (mut alnum, mut lower, mut upper) = (0u64, 0u64, 0u64);
    for (j, &c) in b.iter().enumerate() {
        alnum |= u64::from(c.is_ascii_alphanumeric()) << j;
        lower |= u64::from(c.is_ascii_lowercase()) << j;
        upper |= u64::from(c.is_ascii_uppercase()) << j;
    }
    (alnum, lower & (upper >> 1))
}

/// The word starting at `start` (a letter or digit), read byte by byte and emitted; returns
/// where it ends.
fn slow_word<'a>(text: &'a str, start: usize, emit: &mut impl FnMut(&'a str, bool)) -> usize {
    let b = text.as_bytes();
    let mut i = start;
    let mut is_plain = true;
    let mut has_hump = false;
    loop {
        let mut after_lower = false;
        while let Some(&c) = b.get(i) {
            let class = CLASSES[usize::from(c)];
            if class & ALNUM == 0 {
                break;
            }
            has_hump |= after_lower && class & UPPER != 0;
            after_lower = class & LOWER != 0;
            i += 1;
        }
        let joins = i + 1 < b.len() && {
            let (before, mid, after) = (b[i - 1], b[i], b[i + 1]);
            let letters = before.is_ascii_alphabetic() && after.is_ascii_alphabetic();
            let digits = before.is_ascii_digit() && after.is_ascii_digit();
            (mid == b'\'' && (letters || digits)) || (matches!(mid, b',' | b';') && digits)
        };
        if !joins {
            break;
        }
        is_plain = false;
        i += 1;
    }
    if has_hump {
        with_camel_parts(&text[start..i], is_plain, emit);
    } else {
        emit(&text[start..i], is_plain);
    }
    i
}

/// `word`, then, when it is written in camel case (`ParserCache`, `renderingType`), each of its
/// humps: code identifiers are found by the words they join.
fn with_camel_parts<'a>(word: &'a str, is_plain: bool, emit: &mut impl FnMut(&'a str, bool)) {
    emit(word, is_plain);
    let b = word.as_bytes();
    let is_hump = |i: usize| b[i - 1].is_ascii_lowercase() && b[i].is_ascii_uppercase();
    if !(1..b.len()).any(is_hump) {
        return;
    }
    let is_plain = |part: &str| part.bytes().all(|c| c.is_ascii_alphanumeric());
    let mut start = 0;
    for i in 1..b.len() {
        if is_hump(i) {
            emit(&word[start..i], is_plain(&word[start..i]));
            start = i;
        }
    }
    emit(&word[start..], is_plain(&word[start..]));
}

/// The length in bytes of the longest stop word.
pub const LONGEST_STOP: usize = 5;

/// Whether ASCII `word` is an English and a French stop word, case ignored.
#[must_use]
pub fn ascii_stop(word: &[u8]) -> (bool, bool) {
    // No stop word is longer, and most words are: most calls end here.
    if word.len() > LONGEST_STOP {
        return (false, false);
    }
    let mut lower = [0u8; LONGEST_STOP];
    lower[..word.len()].copy_from_slice(word);
    lower.make_ascii_lowercase();
    let lower = &lower[..word.len()];
    (is_stop_en(lower), is_stop_fr(lower))
}

/// `word` folded and stemmed; `None` when it is no word (a single ASCII character, or nothing
/// left after an elision).
#[must_use]
pub fn analyze(word: &str) -> Option<Analysis> {
    let folded = fold_case(word);
    let bare = drop_elision(&folded);
    if bare.is_empty() || (bare.len() == 1 && bare.is_ascii()) {
        return None;
    }
    let is_stop_en = is_stop_en(bare.as_bytes());
    let is_stop_fr = is_stop_fr(bare.as_bytes());
    // English stems take the word without its accents (`café` is `cafe`); French stems need
    // them (`-ée`, `-ées`) and lose them after.
    let unaccented = fold_accents(bare);
    let non_empty = |stem: String| {
        if stem.is_empty() {
            unaccented.clone()
        } else {
            stem
        }
    };
    let en = non_empty(
        Stemmer::new(Algorithm::English)
            .stem(&unaccented)
            .into_owned(),
    );
    let fr = non_empty(fold_accents(&Stemmer::new(Algorithm::French).stem(bare)));
    Some(Analysis {
        is_stop_en,
        is_stop_fr,
        en,
        fr,
    })
}

/// Full Unicode case folding; typographic apostrophes become `'`.
fn fold_case(word: &str) -> Cow<'_, str> {
    if word
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        return Cow::Borrowed(word);
    }
    let folded = if word.is_ascii() {
        word.to_ascii_lowercase()
    } else {
        caseless::default_case_fold_str(word)
    };
    Cow::Owned(folded.replace(['\u{2019}', '\u{02BC}'], "'"))
}

/// The word after a French elision (`l'`, `d'`, `qu'`…).
fn drop_elision(word: &str) -> &str {
    match word.split_once('\'') {
        Some((head, rest)) if ELISIONS.contains(&head) => rest,
        _ => word,
    }
}

/// Accents and other combining marks removed (canonical decomposition first), apostrophes too.
fn fold_accents(stem: &str) -> String {
    if stem.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return stem.to_owned();
    }
    stem.nfd()
        .filter(|&c| !is_combining_mark(c) && c != '\'')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        for_each_word(text, |w| out.push(w));
        out
    }

    /// The English stems of `text`'s words that count (stop words and non-words left out).
    fn stems(text: &str, language: Language) -> Vec<String> {
        words(text)
            .into_iter()
            .filter_map(analyze)
            .filter(|a| !a.is_stop())
            .map(|a| a.stem(language).to_owned())
            .collect()
    }

    #[track_caller]
    fn case(text: &str, language: Language, expected: &[&str]) {
        assert_eq!(stems(text, language), expected, "{text:?}");
    }

    #[test]
    fn words_of_every_script_are_found() {
        assert_eq!(
            words("Кэш и БД; Ελληνικά κείμενα, 東京, Hello-world!"),
            [
                "Кэш",
                "и",
                "БД",
                "Ελληνικά",
                "κείμενα",
                "東",
                "京",
                "Hello",
                "world"
            ]
        );
        assert_eq!(
            words("rate_limit config.yaml std::fs 3.14 don't"),
            [
                "rate", "limit", "config", "yaml", "std", "fs", "3", "14", "don't"
            ]
        );
        assert_eq!(
            words("ParserCache renderingType HTML écoleRapide"),
            [
                "ParserCache",
                "Parser",
                "Cache",
                "renderingType",
                "rendering",
                "Type",
                "HTML",
                "écoleRapide",
                "école",
                "Rapide"
            ]
        );
    }

    #[test]
    fn case_and_accents_are_folded() {
        use Language::{English, French};
        case("ÉCOLE école Ecole", English, &["ecol", "ecol", "ecol"]);
        case("Straße STRASSE", English, &["strass", "strass"]);
        // Final sigma and capital sigma fold alike; the tonos goes.
        case("ΛΌΓΟΣ λόγος", English, &["λογοσ", "λογοσ"]);
        case("Ёлка ёлка", French, &["елка", "елка"]);
        case("東京", English, &["東", "京"]);
    }

    #[test]
    fn french_elisions_are_dropped() {
        use Language::French;
        case("l'équipe d’exploitation", French, &["equip", "exploit"]);
        case("qu'il jusqu'au", French, &[]);
        case(
            "aujourd'hui",
            French,
            &["aujourd'hui".replace('\'', "").as_str()],
        );
    }

    #[test]
    fn stems_follow_snowball() {
        use Language::{English, French};
        case(
            "deploying deployments deployed",
            English,
            &["deploy", "deploy", "deploy"],
        );
        case("caching cached caches", English, &["cach", "cach", "cach"]);
        case("The team's choices", English, &["team", "choic"]);
        case("les déploiements déployés", French, &["deploi", "deploi"]);
        case("bases de données", French, &["bas", "don"]);
    }

    /// Every word of the benchmark corpus.
    fn corpus_words() -> Vec<String> {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/benches/data/adr/corpus/.agents/memory"
        );
        let mut out = Vec::new();
        for name in ["decisions.md", "lessons.md", "patterns.md"] {
            let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
            for_each_word(&text, |w| out.push(w.to_owned()));
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The ranking skips stemming an ASCII word whose first two letters start no query stem:
    /// sound only because both stemmers keep them (a stem may be one letter long, and a second
    /// `y` may become an `i`).
    #[track_caller]
    fn keeps_first_letter(word: &str) {
        if !word.is_ascii() || word.contains('\'') || word.len() < 2 {
            return;
        }
        let a = analyze(word).unwrap();
        let w = word.to_ascii_lowercase();
        let w = w.as_bytes();
        for stem in [&a.en, &a.fr] {
            let s = stem.as_bytes();
            assert_eq!(s[0], w[0], "{word:?} → {stem:?}");
            let second = s.len() == 1 || s[1] == w[1] || (w[1] == b'y' && s[1] == b'i');
            assert!(second, "{word:?} → {stem:?}");
        }
    }

    #[test]
    #[cfg_attr(
        not(repository),
        ignore = "reads benches/data, which only the repository has"
    )]
    fn stems_keep_the_first_two_letters_of_ascii_words() {
        let words = corpus_words();
        assert!(words.len() > 10_000, "{}", words.len());
        for word in &words {
            keeps_first_letter(word);
        }
        for word in [
            "dying", "lying", "skies", "yeux", "ies", "ied", "Yes", "quoi", "aux",
        ] {
            keeps_first_letter(word);
        }
    }

    /// The reference cut: UAX #29 words, then their parts.
    fn reference_words(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        for word in text.unicode_words() {
            parts(word, &mut |p| {
                with_camel_parts(p, false, &mut |w, _| out.push(w));
            });
        }
        out
    }

    /// A way to cut text into marked words.
    type Cut = fn(&str, &mut dyn FnMut(&str, bool));

    fn marked(text: &str, cut: Cut) -> Vec<(String, bool)> {
        let mut out = Vec::new();
        cut(text, &mut |w, plain| out.push((w.to_owned(), plain)));
        out
    }

    fn one_pass(text: &str, emit: &mut dyn FnMut(&str, bool)) {
        for_each_marked_word(text, emit);
    }

    fn by_chunks(text: &str, emit: &mut dyn FnMut(&str, bool)) {
        reference_marked_words(text, emit);
    }

    #[test]
    #[cfg_attr(
        not(repository),
        ignore = "reads benches/data, which only the repository has"
    )]
    fn the_one_pass_cut_is_the_cut_by_chunks_on_the_corpus() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/benches/data/adr/corpus/.agents/memory"
        );
        for name in ["decisions.md", "lessons.md", "patterns.md"] {
            let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
            assert_eq!(marked(&text, one_pass), marked(&text, by_chunks), "{name}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_one_pass_cut_is_the_cut_by_chunks(
            text in "[aAzZ19_.:',;\u{a0} \n\t\r\x0b\x0c\\-é東Я\u{2019}]{0,24}"
        ) {
            proptest::prop_assert_eq!(marked(&text, one_pass), marked(&text, by_chunks));
        }

        #[test]
        fn word_masks_are_the_masks_byte_by_byte(text in "[\\x00-\\x7f]{0,64}") {
            proptest::prop_assert_eq!(masks(text.as_bytes()), masks_by_byte(text.as_bytes()));
        }

        #[test]
        fn long_ascii_text_is_cut_as_by_chunks(
            text in "([a-z]{1,9}|[A-Z][a-z]{0,5}|[0-9]{1,4}|[ \n',;_.:-]|[a-zA-Z0-9]{50,90}){0,60}"
        ) {
            proptest::prop_assert_eq!(marked(&text, one_pass), marked(&text, by_chunks));
        }

        #[test]
        fn the_fast_cut_is_the_unicode_cut(text in "[aZ19_.:',; \n\t\\-]{0,16}") {
            proptest::prop_assert_eq!(words(&text), reference_words(&text));
        }

        #[test]
        fn mixed_text_is_cut_as_unicode_cuts_it(text in "[a9_.' ,é東Я-]{0,16}") {
            proptest::prop_assert_eq!(words(&text), reference_words(&text));
        }

        #[test]
        fn stemming_keeps_the_first_letters(word in "[a-zA-Z0-9]{2,14}") {
            keeps_first_letter(&word);
        }
    }

    #[test]
    fn stop_words_and_single_characters_are_no_terms() {
        use Language::English;
        case("the cache of a queue x 7", English, &["cach", "queue"]);
        let fr = analyze("les").unwrap();
        assert!(fr.is_stop_fr && !fr.is_stop_en);
        for (word, en, fr) in [
            ("The", true, false),
            ("où", false, true),
            ("À", false, true),
        ] {
            let a = analyze(word).unwrap();
            assert_eq!((a.is_stop_en, a.is_stop_fr), (en, fr), "{word}");
        }
        assert_eq!(ascii_stop(b"THE"), (true, false));
        assert_eq!(ascii_stop(b"On"), (true, true));
        assert_eq!(ascii_stop(b"cache"), (false, false));
        assert!(
            STOP_EN
                .iter()
                .chain(STOP_FR)
                .all(|w| w.len() <= LONGEST_STOP)
        );
        assert!(STOP_FR.iter().any(|w| w.len() == LONGEST_STOP));
        assert_eq!(analyze("x"), None);
        assert_eq!(analyze("l'"), None);
        assert!(analyze("東").is_some());
    }
}
