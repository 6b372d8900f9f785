//! The page's one way of writing stored text into HTML, and the Content-Security-Policy hashes.
//!
//! Every text that comes from the memory is untrusted: an agent or a hostile repository may have
//! written it. [`text`] is the only function that puts such text into the page, inside an
//! element or inside a double-quoted attribute value alike: `&`, `<`, `>`, `"` and `'` become
//! character references, and the control characters a terminal would act on become `\xNN`, as
//! human output shows them ([`crate::output::escape_controls`]) — a NUL, an escape or a C1
//! control never reaches the browser as such. Nothing here decides what is safe to link to: that
//! is [`crate::admin::view::markdown::safe_href`].
//!
//! The page allows its one `<style>` and its one `<script>` by their SHA-256 ([`csp_source`]),
//! so an element a stored text managed to open would still be refused by the browser.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::output::escape_controls;

/// Appends `raw` to `out`, escaped for an element's content or a quoted attribute value.
pub(crate) fn text(out: &mut String, raw: &str) {
    let raw = escape_controls(raw);
    let mut start = 0;
    for (i, b) in raw.bytes().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&raw[start..i]);
        out.push_str(entity);
        start = i + 1;
    }
    out.push_str(&raw[start..]);
}

/// `raw` escaped, as a new string.
#[must_use]
pub(crate) fn escaped(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len() + 8);
    text(&mut out, raw);
    out
}

/// `raw` cut to at most `max` characters (an ellipsis marks the cut), whitespace runs made one
/// space: for labels that must fit a box.
#[must_use]
pub(crate) fn clipped(raw: &str, max: usize) -> String {
    let collapsed = crate::js::text::collapse_whitespace(raw);
    if collapsed.chars().count() <= max {
        return collapsed;
    }
    let mut out: String = collapsed.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Most characters of one stored text the page shows outside an entry's body (a title, a name,
/// a message): a note file may hold a heading of megabytes, and the page stays small.
pub(crate) const MAX_TEXT: usize = 1000;

/// `raw` cut to at most `max` characters, an ellipsis marking the cut.
#[must_use]
pub(crate) fn at_most(raw: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match raw.char_indices().nth(max) {
        None => std::borrow::Cow::Borrowed(raw),
        Some((cut, _)) => {
            let mut kept = raw[..cut].to_owned();
            kept.pop();
            kept.push('…');
            std::borrow::Cow::Owned(kept)
        }
    }
}

/// Appends at most [`MAX_TEXT`] characters of `raw`, escaped.
pub(crate) fn bounded(out: &mut String, raw: &str) {
    text(out, &at_most(raw, MAX_TEXT));
}

/// Appends user text (at most [`MAX_TEXT`] characters) isolated from the text around it
/// (`<bdi>`): a right-to-left mark or an override in a title reorders its own characters only,
/// never the page's.
pub(crate) fn isolated(out: &mut String, raw: &str) {
    out.push_str("<bdi>");
    bounded(out, raw);
    out.push_str("</bdi>");
}

/// The CSP source that allows exactly the element whose content is `content`:
/// `'sha256-<base64 of its SHA-256>'`.
#[must_use]
pub(crate) fn csp_source(content: &str) -> String {
    format!("'sha256-{}'", base64(&Sha256::digest(content.as_bytes())))
}

/// Standard base64 with padding (RFC 4648 §4).
#[must_use]
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Opens a list that the search box filters and the page's script shows a page at a time:
/// `<ol class="items" data-list="…">`. `id` and `label` are the page's own words.
pub(crate) fn list_open(out: &mut String, id: &str, label: &str) {
    let _ = write!(
        out,
        "<ol class=\"items\" id=\"{id}\" data-list=\"{id}\" aria-label=\"{label}\">"
    );
}

/// Closes a list opened by [`list_open`]: how many items the page leaves out (the newest
/// `shown` of `total` are in it; the rest are in `source`), the line shown when the search
/// matches none, and the button that shows the next page.
pub(crate) fn list_close(out: &mut String, shown: usize, total: usize, source: &str) {
    out.push_str("</ol>");
    if shown < total {
        let _ = write!(
            out,
            "<p class=\"capped\">This page holds the newest {shown} of {total}; the others are in "
        );
        text(out, source);
        out.push_str(".</p>");
    }
    out.push_str(
        "<p class=\"none\" hidden>Nothing here matches the search.</p>\
         <button type=\"button\" class=\"more\" hidden>Show more</button>",
    );
}

/// A count the browser test and a reader can find: `<span data-count="key">n</span>`.
pub(crate) fn count(out: &mut String, key: &str, n: usize) {
    let _ = write!(out, "<span class=\"n\" data-count=\"{key}\">{n}</span>");
}

/// A day (`YYYY-MM-DD`) and time (`HH:MM`, UTC) of epoch milliseconds, in a `<time>` element.
pub(crate) fn time(out: &mut String, ms: f64) {
    let iso = crate::js::date::to_iso_string(ms);
    let shown = iso.get(..16).unwrap_or(&iso).replace('T', " ");
    out.push_str("<time datetime=\"");
    text(out, &iso);
    out.push_str("\">");
    text(out, &shown);
    out.push_str("</time>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(raw: &str, want: &str) {
        assert_eq!(escaped(raw), want);
    }

    #[test]
    fn escapes_markup_quotes_and_controls() {
        case("plain", "plain");
        case(
            "<script>alert(1)</script>",
            "&lt;script&gt;alert(1)&lt;/script&gt;",
        );
        case("\" onerror='x'", "&quot; onerror=&#39;x&#39;");
        case("a & b", "a &amp; b");
        case("</style>", "&lt;/style&gt;");
        case("nul\0esc\u{1b}[2J c1\u{9b}", "nul\\x00esc\\x1b[2J c1\\x9b");
        case("tab\tline\nkept", "tab\tline\nkept");
        case("rtl \u{202e}txt.exe", "rtl \u{202e}txt.exe");
        case("é 🚀", "é 🚀");
    }

    #[test]
    fn isolates_user_text() {
        let mut out = String::new();
        isolated(&mut out, "\u{202e}<b>");
        assert_eq!(out, "<bdi>\u{202e}&lt;b&gt;</bdi>");
    }

    #[test]
    fn bounds_long_texts() {
        assert_eq!(at_most("abc", 3), "abc");
        assert_eq!(at_most("abcd", 3), "ab…");
        assert_eq!(at_most("éééé", 2), "é…");
        let mut out = String::new();
        isolated(&mut out, &"<".repeat(MAX_TEXT + 5));
        assert_eq!(out.matches("&lt;").count(), MAX_TEXT - 1);
        assert!(out.ends_with("…</bdi>"));
    }

    #[test]
    fn clips_labels() {
        assert_eq!(clipped("a  b\nc", 10), "a b c");
        assert_eq!(clipped("abcdefghij", 5), "abcd…");
        assert_eq!(clipped("ééééé", 5), "ééééé");
    }

    #[test]
    fn base64_vectors() {
        // RFC 4648 §10.
        for (raw, want) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(raw.as_bytes()), want, "{raw}");
        }
        assert_eq!(base64(&[0xff, 0xfe, 0xfd]), "//79");
    }

    #[test]
    fn csp_source_of_known_text() {
        // `printf 'alert(1)' | openssl dgst -sha256 -binary | base64`
        assert_eq!(
            csp_source("alert(1)"),
            "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"
        );
    }
}
