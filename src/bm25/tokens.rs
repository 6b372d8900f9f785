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
//! Which of the two stems counts is the document's choice (its language, guessed from its stop
//! words), so the query's words keep both. None of this is the lexical ranking's tokenizer,
//! which stays as bmad-plus has it (ASCII and French accents only).

use std::borrow::Cow;

use frostem::{Algorithm, Stemmer};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;
use unicode_segmentation::UnicodeSegmentation;

/// Whether `word` (case-folded) is an English stop word (Lucene's classic list).
fn is_stop_en(word: &[u8]) -> bool {
    matches!(
        word,
        b"a" | b"an"
            | b"and"
            | b"are"
            | b"as"
            | b"at"
            | b"be"
            | b"but"
            | b"by"
            | b"for"
            | b"if"
            | b"in"
            | b"into"
            | b"is"
            | b"it"
            | b"no"
            | b"not"
            | b"of"
            | b"on"
            | b"or"
            | b"such"
            | b"that"
            | b"the"
            | b"their"
            | b"then"
            | b"there"
            | b"these"
            | b"they"
            | b"this"
            | b"to"
            | b"was"
            | b"will"
            | b"with"
    )
}

/// Whether `word` (case-folded) is a French stop word: articles, common prepositions, pronouns
/// and auxiliaries.
fn is_stop_fr(word: &[u8]) -> bool {
    matches!(
        word,
        b"au"
            | b"aux"
            | b"avec"
            | b"ce"
            | b"ces"
            | b"cette"
            | b"dans"
            | b"de"
            | b"des"
            | b"du"
            | b"elle"
            | b"en"
            | b"est"
            | b"et"
            | b"il"
            | b"ils"
            | b"je"
            | b"la"
            | b"le"
            | b"les"
            | b"leur"
            | b"mais"
            | b"ne"
            | b"nous"
            | b"on"
            | b"ont"
            | b"ou"
            | b"o\xc3\xb9"
            | b"par"
            | b"pas"
            | b"pour"
            | b"qu"
            | b"que"
            | b"qui"
            | b"sa"
            | b"se"
            | b"ses"
            | b"son"
            | b"sont"
            | b"sur"
            | b"un"
            | b"une"
            | b"vous"
            | b"\xc3\xa0"
    )
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
pub fn for_each_marked_word<'a>(text: &'a str, mut emit: impl FnMut(&'a str, bool)) {
    for chunk in text.split_ascii_whitespace() {
        if chunk.is_ascii() {
            ascii_words(chunk, &mut emit);
        } else {
            for word in chunk.unicode_words() {
                parts(word, &mut |part| with_camel_parts(part, false, &mut emit));
            }
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
fn ascii_words<'a>(chunk: &'a str, emit: &mut impl FnMut(&'a str, bool)) {
    let b = chunk.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        let mut is_plain = true;
        loop {
            while i < b.len() && b[i].is_ascii_alphanumeric() {
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
        with_camel_parts(&chunk[start..i], is_plain, emit);
    }
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

/// Whether ASCII `word` is an English and a French stop word, case ignored.
#[must_use]
pub fn ascii_stop(word: &[u8]) -> (bool, bool) {
    // No stop word is longer, and most words are: most calls end here.
    if word.len() > 5 {
        return (false, false);
    }
    let mut lower = [0u8; 5];
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

    proptest::proptest! {
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
        assert_eq!(analyze("x"), None);
        assert_eq!(analyze("l'"), None);
        assert!(analyze("東").is_some());
    }
}
