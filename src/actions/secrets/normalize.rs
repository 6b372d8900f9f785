//! The text the detector reads: what a person sees, not the bytes that hide it.
//!
//! A secret can be pasted so that it no longer matches a rule byte for byte while it still reads
//! the same: a zero-width space inside a token, fullwidth letters (`ｇｈｐ＿…`), a Markdown
//! escape (`ghp\_…`), an HTML entity (`&#103;hp_…`, `&amp;`). Before any rule runs, the text is
//! brought back to its plain form:
//! * invisible format characters are removed (zero-width space, joiner and non-joiner, word
//!   joiner, byte-order mark, soft hyphen, Mongolian vowel separator, the invisible operators
//!   and the bidirectional marks, embeddings, overrides and isolates);
//! * fullwidth ASCII forms (U+FF01–U+FF5E) become ASCII, the ideographic space a space;
//! * a backslash before ASCII punctuation (a Markdown escape) is dropped;
//! * HTML character references are decoded: `&#NN;`, `&#xHH;` and the named ones text uses
//!   for ASCII (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;` and a few more).
//!
//! Line breaks are never added or removed (a reference to a line break or another control
//! character stays as written), so a finding's line number is the line of the original text.
//! Text with nothing to undo — the common case — is returned as it is, without a copy.

use std::borrow::Cow;

/// `text` with invisible characters removed, fullwidth forms folded, Markdown escapes and HTML
/// character references undone (see the module documentation).
#[must_use]
pub(crate) fn normalize(text: &str) -> Cow<'_, str> {
    if text.is_ascii() && !text.as_bytes().iter().any(|&b| b == b'\\' || b == b'&') {
        return Cow::Borrowed(text);
    }
    match fold(text) {
        Cow::Borrowed(folded) => unescape(folded),
        Cow::Owned(folded) => match unescape(&folded) {
            Cow::Owned(out) => Cow::Owned(out),
            Cow::Borrowed(_) => Cow::Owned(folded),
        },
    }
}

/// Whether `c` is an invisible format character that may hide inside a token.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// Invisible characters removed, fullwidth forms folded.
fn fold(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let changes =
        |c: char| is_invisible(c) || ('\u{FF01}'..='\u{FF5E}').contains(&c) || c == '\u{3000}';
    let Some(first) = text.find(changes) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if is_invisible(c) {
            continue;
        }
        match c {
            '\u{FF01}'..='\u{FF5E}' => {
                out.push(char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c));
            }
            '\u{3000}' => out.push(' '),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Markdown escapes and HTML character references undone.
fn unescape(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let Some(first) = memchr::memchr2(b'\\', b'&', bytes) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut at = first;
    let mut changed = false;
    while let Some(offset) = memchr::memchr2(b'\\', b'&', &bytes[at..]) {
        let i = at + offset;
        let (replacement, consumed) = if bytes[i] == b'\\' {
            match bytes.get(i + 1) {
                Some(&next) if next.is_ascii_punctuation() => (Some(char::from(next)), 2),
                _ => (None, 1),
            }
        } else {
            match reference(&text[i..]) {
                Some((c, len)) => (Some(c), len),
                None => (None, 1),
            }
        };
        if let Some(c) = replacement {
            out.push_str(&text[copied..i]);
            out.push(c);
            copied = i + consumed;
            changed = true;
        }
        at = i + consumed;
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// The named references decoded, with what they stand for.
const NAMED: [(&str, char); 16] = [
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", ' '),
    ("colon", ':'),
    ("sol", '/'),
    ("bsol", '\\'),
    ("equals", '='),
    ("lowbar", '_'),
    ("hyphen", '-'),
    ("period", '.'),
    ("commat", '@'),
    ("num", '#'),
    ("dollar", '$'),
];

/// The character an HTML character reference at the start of `text` stands for, and the
/// reference's length; `None` when `text` does not start with one, or when it names a control
/// character (line breaks stay as written).
fn reference(text: &str) -> Option<(char, usize)> {
    let end = text.as_bytes().iter().take(12).position(|&b| b == b';')?;
    let name = &text[1..end];
    let c = if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse().ok()?,
        };
        char::from_u32(code).filter(|c| !c.is_control())?
    } else {
        NAMED.iter().find(|(n, _)| *n == name).map(|&(_, c)| c)?
    };
    Some((c, end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(text: &str, expected: &str) {
        assert_eq!(normalize(text), expected, "{text:?}");
    }

    #[test]
    fn plain_text_is_borrowed() {
        for text in [
            "",
            "plain ascii text",
            "déploiement sans accroc",
            "a\nb\r\n",
        ] {
            assert!(matches!(normalize(text), Cow::Borrowed(_)), "{text:?}");
        }
        // Backslashes and ampersands that undo nothing: still no copy.
        assert!(matches!(normalize(r"C:\Users\me & co"), Cow::Borrowed(_)));
    }

    #[test]
    fn invisible_characters_are_removed() {
        case("gh\u{200B}p_ab\u{200D}cd", "ghp_abcd");
        case("\u{FEFF}to\u{00AD}ken\u{2060}", "token");
        case("a\u{202E}b\u{2066}c\u{2069}", "abc");
    }

    #[test]
    fn fullwidth_forms_are_folded() {
        case("ｇｈｐ＿ＡＢＣ１２３", "ghp_ABC123");
        case("ｐａｓｓｗｏｒｄ：\u{3000}ｘ", "password: x");
    }

    #[test]
    fn markdown_escapes_are_undone() {
        case(r"ghp\_abc\*def", "ghp_abc*def");
        case(r"\\", r"\");
        case(r"line\nbreak", r"line\nbreak");
        case("trailing\\", "trailing\\");
    }

    #[test]
    fn html_references_are_decoded() {
        case("&#103;hp&#x5F;x", "ghp_x");
        case(
            "a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos;",
            "a & b <c> \"d\" 'e'",
        );
        case("user&colon;pass&commat;host", "user:pass@host");
        case("&nbsp;x", " x");
        // Unknown names, malformed references and control characters stay as written.
        case(
            "&bogus; &#; &#xZZ; &#10; &#0; & ;",
            "&bogus; &#; &#xZZ; &#10; &#0; & ;",
        );
        case("&amp", "&amp");
    }

    #[test]
    fn line_breaks_are_kept() {
        let text = "a&#10;b\nc\u{200B}\r\nd\\\ne";
        let out = normalize(text);
        assert_eq!(
            out.matches('\n').count(),
            text.matches('\n').count(),
            "{out:?}"
        );
    }

    proptest::proptest! {
        /// Normalising never adds or removes a line break and never panics.
        #[test]
        fn line_count_is_kept(text in "(?s).{0,200}") {
            let out = normalize(&text);
            proptest::prop_assert_eq!(out.matches('\n').count(), text.matches('\n').count());
        }

        /// Words, digits and plain punctuation come out as they went in.
        #[test]
        fn plain_words_survive(text in "[a-zA-Z0-9 .,\n]{0,200}") {
            proptest::prop_assert_eq!(normalize(&text), text.as_str());
        }
    }
}
