//! The tolerant journal reader (SPEC §3.6): split on `\n`, trim (JavaScript whitespace), skip
//! blank lines; a line that does not parse, or parses to something other than an object, is
//! skipped — a damaged line never makes the journal unreadable.

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
}
