//! A tool call's arguments, read leniently into the strings the command line would carry.
//!
//! Each property of a tool's input schema has one JSON type, as strict clients and model APIs
//! require; models still send a number as a string, a string as a one-word list, a switch as
//! `"true"`. So each value is read by what it can mean, not by its JSON type: a number, a
//! string or a boolean is the option's text (a number in JavaScript's spelling), which the
//! command then checks with its own message; a list is accepted where a list makes sense (the
//! query's words, a handoff part's lines). Only what has no reading is refused here: an
//! unknown argument, an object, a list where one word is expected.

use serde_json::{Map, Value};

use crate::js::number::number_text;
use crate::messages;

/// A call's arguments.
pub(crate) struct Arguments<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Arguments<'a> {
    /// Refuses an argument the tool does not have.
    ///
    /// # Errors
    /// The message naming it and the tool's arguments.
    pub(crate) fn new(map: &'a Map<String, Value>, known: &[&str]) -> Result<Self, String> {
        if let Some(name) = map.keys().find(|name| !known.contains(&name.as_str())) {
            return Err(if known.is_empty() {
                messages::argument_to_no_arguments(name)
            } else {
                messages::unknown_argument(name, known)
            });
        }
        Ok(Self { map })
    }

    /// An option's value: a string as it is, a number in JavaScript's text, a boolean as
    /// `true`/`false`, a list of one of those as that one; `null` or absent is the option left
    /// out.
    ///
    /// # Errors
    /// An object, or a list of anything but one scalar.
    pub(crate) fn word(&self, name: &str) -> Result<Option<String>, String> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => match items.as_slice() {
                [one] => scalar(one)
                    .map(Some)
                    .ok_or_else(|| messages::argument_not_scalar(name)),
                [] => Ok(None),
                _ => Err(messages::argument_not_scalar(name)),
            },
            Some(value) => scalar(value)
                .map(Some)
                .ok_or_else(|| messages::argument_not_scalar(name)),
        }
    }

    /// Words: one string, or a list of them.
    ///
    /// # Errors
    /// An object, or a list holding one.
    pub(crate) fn words(&self, name: &str) -> Result<Vec<String>, String> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| scalar(item).ok_or_else(|| messages::argument_not_words(name)))
                .collect(),
            Some(value) => scalar(value)
                .map(|word| vec![word])
                .ok_or_else(|| messages::argument_not_words(name)),
        }
    }

    /// A text of several lines: a string as it is, a list as one `- ` line per item.
    ///
    /// # Errors
    /// As [`Arguments::words`].
    pub(crate) fn lines(&self, name: &str) -> Result<String, String> {
        Ok(match self.map.get(name) {
            Some(Value::Array(_)) => {
                self.words(name)?
                    .iter()
                    .fold(String::new(), |mut out, item| {
                        out.push_str("- ");
                        out.push_str(item);
                        out.push('\n');
                        out
                    })
            }
            _ => self.words(name)?.concat(),
        })
    }

    /// A switch: `true` or `false`, also as the strings `"true"`/`"false"`.
    ///
    /// # Errors
    /// Any other value.
    pub(crate) fn flag(&self, name: &str) -> Result<bool, String> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(on)) => Ok(*on),
            Some(Value::String(text)) if text.trim().eq_ignore_ascii_case("true") => Ok(true),
            Some(Value::String(text)) if text.trim().eq_ignore_ascii_case("false") => Ok(false),
            Some(_) => Err(messages::argument_not_boolean(name)),
        }
    }
}

/// The text of a string, a number or a boolean.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Bool(on) => Some(on.to_string()),
        Value::Number(number) => Some(if let Some(n) = number.as_i64() {
            n.to_string()
        } else if let Some(n) = number.as_u64() {
            n.to_string()
        } else {
            number_text(number.as_f64()?)
        }),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn arguments(value: &Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn values_are_read_by_what_they_can_mean() {
        let map = arguments(&json!({
            "n": "3", "m": 3, "f": 0.5, "one": ["x"], "none": [], "b": "TRUE", "q": ["a", 2],
            "s": "a b", "list": ["src/a.rs", "src/b.rs"], "text": "done"
        }));
        let a = Arguments::new(&map, &map.keys().map(String::as_str).collect::<Vec<_>>()).unwrap();
        assert_eq!(a.word("n").unwrap().as_deref(), Some("3"));
        assert_eq!(a.word("m").unwrap().as_deref(), Some("3"));
        assert_eq!(a.word("f").unwrap().as_deref(), Some("0.5"));
        assert_eq!(a.word("one").unwrap().as_deref(), Some("x"));
        assert_eq!(a.word("none").unwrap(), None);
        assert_eq!(a.word("absent").unwrap(), None);
        assert!(a.word("q").is_err());
        assert!(a.flag("b").unwrap());
        assert!(a.flag("s").is_err());
        assert_eq!(a.words("q").unwrap(), ["a", "2"]);
        assert_eq!(a.words("s").unwrap(), ["a b"]);
        assert_eq!(a.lines("list").unwrap(), "- src/a.rs\n- src/b.rs\n");
        assert_eq!(a.lines("text").unwrap(), "done");
        assert_eq!(a.lines("absent").unwrap(), "");
    }

    #[test]
    fn an_unknown_argument_is_refused() {
        let map = arguments(&json!({"lmit": 2}));
        assert!(Arguments::new(&map, &["limit"]).is_err());
        assert!(Arguments::new(&map, &[]).is_err());
    }
}
