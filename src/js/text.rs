//! JavaScript's view of text (docs §2.2, §2.3, §4, §5): `\s` whitespace, `trim`, UTF-16
//! lengths, the `truncate` of human output lines and the recall tokenizer.
//!
//! JavaScript's `\s` is not Rust's `char::is_whitespace`: it includes U+FEFF and excludes U+0085
//! and U+180E. Lengths of user text count UTF-16 code units, so 🚀 counts 2, and strings sort by
//! them too.

use std::cmp::Ordering;

/// JavaScript's `\s` (docs §2.2).
#[must_use]
pub fn is_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// Where a regular expression's `.` stops: LF, CR, U+2028, U+2029.
#[must_use]
pub fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// `String.prototype.trim`.
#[must_use]
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_whitespace)
}

/// Compares two strings by UTF-16 code units, as JavaScript's default sort does.
#[must_use]
pub fn utf16_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Sorts strings in JavaScript's default order: UTF-16 code units.
pub fn sort_utf16(list: &mut [String]) {
    list.sort_by(|a, b| utf16_cmp(a, b));
}

/// `s.length` in JavaScript: UTF-16 code units.
#[must_use]
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// `s.replace(/\s+/g, " ").trim()`.
#[must_use]
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split(is_whitespace).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Width of a human output line's text, in UTF-16 units (docs §4).
const TRUNCATE_AT: usize = 120;

/// docs §4 `truncate`: whitespace runs become one space, then trim; beyond 120 UTF-16 units keep
/// the first 119 and add `…`. An astral character cut in half leaves a lone high surrogate in
/// JavaScript, which reaches the terminal as U+FFFD; so it does here.
#[must_use]
pub fn truncate(s: &str) -> String {
    let collapsed = collapse_whitespace(s);
    if utf16_len(&collapsed) <= TRUNCATE_AT {
        return collapsed;
    }
    let mut out = String::with_capacity(collapsed.len());
    let mut units = 0;
    for c in collapsed.chars() {
        let width = c.len_utf16();
        if units + width > TRUNCATE_AT - 1 {
            if units < TRUNCATE_AT - 1 {
                out.push('\u{fffd}');
            }
            break;
        }
        out.push(c);
        units += width;
    }
    out.push('…');
    out
}

/// Characters a recall token is made of, after lowercasing (docs §5):
/// `[a-z0-9àâäéèêëïîôöùûüç_-]`.
fn is_token_char(c: char) -> bool {
    matches!(c, 'a'..='z' | '0'..='9' | '_' | '-')
        || matches!(
            c,
            'à' | 'â'
                | 'ä'
                | 'é'
                | 'è'
                | 'ê'
                | 'ë'
                | 'ï'
                | 'î'
                | 'ô'
                | 'ö'
                | 'ù'
                | 'û'
                | 'ü'
                | 'ç'
        )
}

/// For each ASCII byte: its lowercase form when that is a token character, else 0.
pub(crate) const ASCII_TOKEN: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut byte = 0u8;
    while byte < 128 {
        let lower = byte.to_ascii_lowercase();
        if lower.is_ascii_lowercase() || lower.is_ascii_digit() || lower == b'_' || lower == b'-' {
            table[byte as usize] = lower;
        }
        byte += 1;
    }
    table
};

/// One recall token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token<'a> {
    /// ASCII as written in the text: its lowercase form is its recall token.
    Ascii(&'a [u8]),
    /// Already lowercased (the text had non-ASCII characters here), UTF-8.
    Lower(&'a [u8]),
}

impl Token<'_> {
    /// Length of the token's UTF-8 form.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Token::Ascii(t) | Token::Lower(t) => t.len(),
        }
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether this token is `lower` (a lowercase token).
    #[must_use]
    pub fn is(&self, lower: &[u8]) -> bool {
        match self {
            Token::Ascii(t) => t.eq_ignore_ascii_case(lower),
            Token::Lower(t) => *t == lower,
        }
    }

    /// The token as a lowercase string.
    #[must_use]
    pub fn to_lowercase_string(&self) -> String {
        match self {
            Token::Ascii(t) => String::from_utf8_lossy(t).to_ascii_lowercase(),
            Token::Lower(t) => String::from_utf8_lossy(t).into_owned(),
        }
    }
}

/// Whether `byte` is an ASCII byte that can never be part of a token.
pub(crate) fn is_ascii_separator(byte: u8) -> bool {
    byte < 0x80 && ASCII_TOKEN[usize::from(byte)] == 0
}

/// Calls `emit` with every recall token of `text`, in order: the text lowercased as
/// `toLowerCase` does, split on every run of non-token characters, tokens of two UTF-16 units
/// or more.
///
/// Fast path: a run of ASCII token bytes is handed over as a slice of the text itself
/// ([`Token::Ascii`]), nothing copied. A stretch holding non-ASCII characters (up to the next
/// ASCII separator, which ends a token whatever surrounds it) is lowercased character by
/// character into one reused buffer ([`Token::Lower`]). Lowercasing character by character
/// equals lowercasing the whole string here: the only context-sensitive mapping in
/// `toLowerCase` is the final sigma, and no sigma is a token character.
pub fn for_each_token(text: &str, mut emit: impl FnMut(Token<'_>)) {
    let bytes = text.as_bytes();
    let mut buffer: Vec<u8> = Vec::new();
    let mut at = 0;
    // Slice searches (`position`) keep the hot loops free of bounds checks.
    while let Some(skip) = bytes[at..].iter().position(|&b| !is_ascii_separator(b)) {
        let start = at + skip;
        let run = bytes[start..]
            .iter()
            .position(|&b| b >= 0x80 || ASCII_TOKEN[usize::from(b)] == 0)
            .map_or(bytes.len(), |p| start + p);
        if run == bytes.len() || bytes[run] < 0x80 {
            if run - start >= 2 {
                emit(Token::Ascii(&bytes[start..run]));
            }
            at = run;
            continue;
        }
        let end = bytes[run..]
            .iter()
            .position(|&b| is_ascii_separator(b))
            .map_or(bytes.len(), |p| run + p);
        slow_tokens(&text[start..end], &mut buffer, &mut emit);
        at = end;
    }
}

/// The character-by-character tokenizer, for a stretch with non-ASCII characters.
pub(crate) fn slow_tokens(text: &str, token: &mut Vec<u8>, emit: &mut impl FnMut(Token<'_>)) {
    token.clear();
    // Every token character is in the BMP, so its UTF-16 length is its char count.
    let mut chars = 0usize;
    let mut flush = |token: &mut Vec<u8>, chars: &mut usize| {
        if *chars >= 2 {
            emit(Token::Lower(token));
        }
        token.clear();
        *chars = 0;
    };
    for c in text.chars() {
        if let Ok(byte) = u8::try_from(c)
            && byte < 0x80
        {
            // ASCII: the table has its lowercase token form, or 0 for a separator.
            match ASCII_TOKEN[usize::from(byte)] {
                0 => flush(token, &mut chars),
                lower => {
                    token.push(lower);
                    chars += 1;
                }
            }
            continue;
        }
        if is_token_char(c) {
            // A lowercase letter already: `toLowerCase` leaves it as it is.
            let mut utf8 = [0u8; 4];
            token.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
            chars += 1;
            continue;
        }
        for lower in c.to_lowercase() {
            if is_token_char(lower) {
                let mut utf8 = [0u8; 4];
                token.extend_from_slice(lower.encode_utf8(&mut utf8).as_bytes());
                chars += 1;
            } else {
                flush(token, &mut chars);
            }
        }
    }
    flush(token, &mut chars);
}

/// The recall tokens of `text`, in order, duplicates kept.
#[must_use]
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, |t| out.push(t.to_lowercase_string()));
    out
}

// Reads what only the repository has (docs: build.rs).
#[cfg(test)]
#[cfg(repository)]
mod tests {
    use super::*;

    fn vectors() -> serde_json::Value {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/vectors/text.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn pairs<'a>(v: &'a serde_json::Value, key: &str) -> Vec<(&'a str, &'a serde_json::Value)> {
        v[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_str().unwrap(), &p[1]))
            .collect()
    }

    #[test]
    fn token_characters_are_their_own_lowercase() {
        for c in (0..=0x10ffff)
            .filter_map(char::from_u32)
            .filter(|&c| is_token_char(c))
        {
            assert!(c.to_lowercase().eq([c]), "{c:?}");
        }
    }

    #[test]
    fn whitespace_is_exactly_javascripts() {
        let v = vectors();
        let expected: Vec<u32> = v["whitespace"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| u32::from_str_radix(h.as_str().unwrap(), 16).unwrap())
            .collect();
        let actual: Vec<u32> = (0..=0x10ffff)
            .filter_map(char::from_u32)
            .filter(|&c| is_whitespace(c))
            .map(u32::from)
            .collect();
        assert_eq!(actual, expected);
    }

    #[test]
    fn lowercase_tokens_trim_and_collapse_follow_the_vectors() {
        let v = vectors();
        for (input, expected) in pairs(&v, "lower") {
            assert_eq!(input.to_lowercase(), expected.as_str().unwrap(), "{input}");
        }
        for (input, expected) in pairs(&v, "tokens") {
            let expected: Vec<&str> = expected
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect();
            assert_eq!(tokens(input), expected, "{input}");
        }
        for (input, expected) in pairs(&v, "trim") {
            assert_eq!(trim(input), expected.as_str().unwrap(), "{input:?}");
        }
        for (input, expected) in pairs(&v, "collapse") {
            assert_eq!(collapse_whitespace(input), expected.as_str().unwrap());
        }
    }

    #[track_caller]
    fn token_case(input: &str, expected: &[&str]) {
        assert_eq!(tokens(input), expected, "{input:?}");
    }

    #[test]
    fn tokenizer_cases() {
        token_case("", &[]);
        token_case("a", &[]);
        token_case("I/O 2FA", &["2fa"]);
        token_case("RATE_LIMIT--v2", &["rate_limit--v2"]);
        token_case("KELVIN \u{212a}m", &["kelvin", "km"]);
        token_case("Ça été ÊTRE", &["ça", "été", "être"]);
        token_case("naïve-Öl ñandú", &["naïve-öl", "and"]);
        token_case("tab\there\u{2028}x y", &["tab", "here"]);
        token_case("Auth auth AUTH", &["auth", "auth", "auth"]);
    }

    proptest::proptest! {
        /// The fast path gives exactly the tokens of lowercasing the whole text and splitting.
        #[test]
        fn fast_tokens_equal_the_definition(text in "([A-Za-z0-9 _\\-.,:]|[ÀÉÈÇÔÜàéèçôüİKΣσςẞß€🚀\u{2028}\u{a0}]){0,40}") {
            let lower = text.to_lowercase();
            let expected: Vec<String> = lower
                .split(|c: char| !is_token_char(c))
                .filter(|t| t.chars().count() >= 2)
                .map(str::to_owned)
                .collect();
            proptest::prop_assert_eq!(tokens(&text), expected);
        }
    }

    #[test]
    fn utf16_lengths() {
        assert_eq!(utf16_len("🚀"), 2);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("abc"), 3);
    }

    #[test]
    fn truncate_collapses_and_cuts_at_120_units() {
        assert_eq!(truncate("  a \n\t b\u{a0} "), "a b");
        let exact = "x".repeat(120);
        assert_eq!(truncate(&exact), exact);
        let long = "x".repeat(121);
        assert_eq!(truncate(&long), "x".repeat(119) + "…");
        // An astral character straddling unit 119 leaves a lone high surrogate in JavaScript.
        let astral = "x".repeat(118) + "🚀🚀";
        assert_eq!(truncate(&astral), "x".repeat(118) + "\u{fffd}…");
        let fits = "x".repeat(116) + "🚀🚀";
        assert_eq!(truncate(&fits), fits.clone());
        let cut_clean = "x".repeat(117) + "🚀🚀y";
        assert_eq!(truncate(&cut_clean), "x".repeat(117) + "🚀…");
    }
}
