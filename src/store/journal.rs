//! The tolerant journal reader (SPEC §3.6): split on `\n`, trim (JavaScript whitespace), skip
//! blank lines; a line that does not parse, or parses to something other than an object, is
//! skipped — a damaged line never makes the journal unreadable.

use crate::js::json::{self, Object, Value};
use crate::js::text;

/// The events of a journal text, in file order.
pub fn events(text: &str) -> impl Iterator<Item = Object> + '_ {
    text.split('\n').filter_map(|line| {
        let line = text::trim(line);
        if line.is_empty() {
            return None;
        }
        match json::parse(line) {
            Ok(Value::Object(event)) => Some(event),
            _ => None,
        }
    })
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
