//! The tolerant journal reader (docs §3.6): split on `\n`, trim (JavaScript whitespace), skip
//! blank lines; a line that does not parse, or parses to something other than an object, is
//! skipped — a damaged line never makes the journal unreadable.
//!
//! Bytes that are not UTF-8 are looked at line by line ([`invalid_lines`], [`decode_lines`]), so
//! that one damaged line costs that line, not the whole registry.

use crate::js::json::{self, Object, Value};
use crate::js::text;

/// The events of a journal text, in file order.
pub fn events(text: &str) -> impl Iterator<Item = Object> + '_ {
    lines(text).filter_map(event)
}

/// The non-blank lines of a journal text, trimmed, in file order.
pub fn lines(text: &str) -> impl Iterator<Item = &str> + '_ {
    text.split('\n')
        .map(text::trim)
        .filter(|line| !line.is_empty())
}

/// The event a trimmed journal line holds, if it is a JSON object.
#[must_use]
pub fn event(line: &str) -> Option<Object> {
    match json::parse(line) {
        Ok(Value::Object(event)) => Some(event),
        _ => None,
    }
}

/// A complete line (one ending in `\n`) of a registry's bytes that is not valid UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidLine {
    /// The line number, from 1.
    pub number: usize,
    /// Where the line starts in the file.
    pub start: usize,
    /// Where it ends, after its `\n`.
    pub end: usize,
    /// The file offset of its first byte that is not part of valid UTF-8.
    pub at: usize,
}

/// The complete lines of `bytes` that are not valid UTF-8, in file order. A final line without
/// `\n` is not looked at: it is torn (a write cut short can stop inside a character), which is
/// reported and repaired as such.
#[must_use]
pub fn invalid_lines(bytes: &[u8]) -> Vec<InvalidLine> {
    let complete = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
    let complete = &bytes[..complete];
    if std::str::from_utf8(complete).is_ok() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut start = 0;
    for (i, line) in complete.split_inclusive(|&b| b == b'\n').enumerate() {
        if let Err(e) = std::str::from_utf8(line) {
            out.push(InvalidLine {
                number: i + 1,
                start,
                end: start + line.len(),
                at: start + e.valid_up_to(),
            });
        }
        start += line.len();
    }
    out
}

/// A registry's bytes as text, each line that is not valid UTF-8 left empty (so the tolerant
/// reader skips it like any damaged line), and how many complete lines that were: a final line
/// without `\n` is torn (a write cut short can stop inside a character), which is reported as
/// such, not counted here.
#[must_use]
pub fn decode_lines(bytes: Vec<u8>) -> (String, usize) {
    let bytes = match String::from_utf8(bytes) {
        Ok(text) => return (text, 0),
        Err(e) => e.into_bytes(),
    };
    let mut skipped = 0;
    let mut text = String::with_capacity(bytes.len());
    let mut lines = bytes.split(|&b| b == b'\n').peekable();
    let mut first = true;
    while let Some(line) = lines.next() {
        if !first {
            text.push('\n');
        }
        first = false;
        match std::str::from_utf8(line) {
            Ok(line) => text.push_str(line),
            Err(_) if lines.peek().is_some() => skipped += 1,
            Err(_) => {}
        }
    }
    (text, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_garbage_blank_and_non_object_lines() {
        let text =
            "{\"id\":\"a\"}\n\n  \r\nnot json\nnull\n[1]\n\u{feff}{\"id\":\"b\"}\r\n{\"id\":\"c\"";
        let ids: Vec<String> = events(text).map(|e| e.get("id").unwrap().text()).collect();
        assert_eq!(ids, ["a", "b"]);
    }

    #[test]
    fn lines_that_are_not_utf8_are_found_and_left_out() {
        let bytes =
            b"{\"id\":\"a\"}\n{\"x\":\"\xff\"}\n\xe2\x82\n{\"id\":\"b\"}\n{\"t\":\"\xe2\x82";
        assert_eq!(
            invalid_lines(bytes),
            [
                InvalidLine {
                    number: 2,
                    start: 11,
                    end: 21,
                    at: 17
                },
                InvalidLine {
                    number: 3,
                    start: 21,
                    end: 24,
                    at: 21
                },
            ]
        );
        assert_eq!(invalid_lines(b"{}\n{\"t\":\"\xe2\x82"), []);
        assert_eq!(invalid_lines(b"\xc3\xa9\n"), []);
        let (text, skipped) = decode_lines(bytes.to_vec());
        // The torn tail is left out, but not counted among the lines that are not UTF-8.
        assert_eq!(skipped, 2);
        assert_eq!(text, "{\"id\":\"a\"}\n\n\n{\"id\":\"b\"}\n");
        let ids: Vec<String> = events(&text).map(|e| e.get("id").unwrap().text()).collect();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(decode_lines(b"{}\n".to_vec()), ("{}\n".to_owned(), 0));
    }
}
