//! The JSON the builders write, as JavaScript's `JSON.stringify` writes it: objects in
//! insertion order, numbers printed from their double, strings escaped as V8 escapes them.
//!
//! A deliberately small, independent writer: the builders must not share code with the
//! library they test, or a bug in the library's writer would be baked into the expectations.
//! It covers what the builders produce and refuses the rest loudly: numbers must be finite and
//! print without an exponent (below 1e21, and no fractions below 1e-6), and object keys must
//! not be array indices (which JavaScript would move to the front).

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    Object(Object),
    /// Compact JSON text written as it is (a value some other program already wrote); only
    /// [`Value::compact`] and [`Value::sha256`] accept it.
    Raw(String),
}

/// A JSON object, in insertion order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Object(Vec<(String, Value)>);

impl Object {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `key`; an existing key keeps its position, as assignment to a property does.
    ///
    /// # Panics
    /// If `key` is an array index (JavaScript would list it first, which this writer does not).
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<Value>) {
        let key = key.into();
        assert!(
            key.is_empty() || !key.bytes().all(|b| b.is_ascii_digit()),
            "array-index key {key:?}: not supported"
        );
        let value = value.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// Builder form of [`Object::insert`].
    #[must_use]
    pub fn with(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.insert(key, value);
        self
    }

    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl FromIterator<(String, Value)> for Object {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(items: I) -> Self {
        let mut object = Self::new();
        for (key, value) in items {
            object.insert(key, value);
        }
        object
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Self::String(s)
    }
}

impl From<f64> for Value {
    fn from(n: f64) -> Self {
        Self::Number(n)
    }
}

impl From<u32> for Value {
    fn from(n: u32) -> Self {
        Self::Number(f64::from(n))
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Self::Bool(b)
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Self {
        Self::Array(items)
    }
}

impl From<Object> for Value {
    fn from(object: Object) -> Self {
        Self::Object(object)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(value: Option<T>) -> Self {
        value.map_or(Self::Null, Into::into)
    }
}

impl Value {
    /// `JSON.stringify(value)`.
    #[must_use]
    pub fn compact(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, None, 0);
        out
    }

    /// `JSON.stringify(value, null, 2)`.
    ///
    /// # Panics
    /// On a [`Value::Raw`] inside: its text cannot be re-indented.
    #[must_use]
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, Some(2), 0);
        out
    }

    /// Lowercase hex SHA-256 of [`Value::compact`].
    #[must_use]
    pub fn sha256(&self) -> String {
        sha256_hex(self.compact().as_bytes())
    }

    fn write(&self, out: &mut String, indent: Option<usize>, depth: usize) {
        let newline = |out: &mut String, depth: usize| {
            if let Some(width) = indent {
                out.push('\n');
                out.extend(std::iter::repeat_n(' ', width * depth));
            }
        };
        match self {
            Self::Null => out.push_str("null"),
            Self::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Self::Number(n) => write_number(out, *n),
            Self::String(s) => write_string(out, s),
            Self::Raw(text) => {
                assert!(indent.is_none(), "raw JSON cannot be pretty-printed");
                out.push_str(text);
            }
            Self::Array(items) if items.is_empty() => out.push_str("[]"),
            Self::Object(object) if object.0.is_empty() => out.push_str("{}"),
            Self::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, depth + 1);
                    item.write(out, indent, depth + 1);
                }
                newline(out, depth);
                out.push(']');
            }
            Self::Object(object) => {
                out.push('{');
                for (i, (key, value)) in object.0.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, depth + 1);
                    write_string(out, key);
                    out.push(':');
                    if indent.is_some() {
                        out.push(' ');
                    }
                    value.write(out, indent, depth + 1);
                }
                newline(out, depth);
                out.push('}');
            }
        }
    }
}

/// A number as JavaScript prints it, for the numbers the builders use.
fn write_number(out: &mut String, n: f64) {
    assert!(
        n.is_finite() && (n == 0.0 || (1e-6..1e21).contains(&n.abs())),
        "number {n} is outside what this writer prints as JavaScript does"
    );
    if n == 0.0 {
        // `-0` prints as `0`.
        out.push('0');
    } else {
        // Rust's shortest round-trip digits, without an exponent in this range, are
        // JavaScript's; an integral double prints without `.0` in both.
        let _ = write!(out, "{n}");
    }
}

/// A JSON string literal as `JSON.stringify` writes it.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Lowercase hex SHA-256 of `bytes`.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(64);
    for b in Sha256::digest(bytes) {
        let _ = write!(text, "{b:02x}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_as_javascript_does() {
        let value = Value::Object(
            Object::new()
                .with("a", 1.0)
                .with("b", vec![Value::from(0.25), Value::Null, Value::from(true)])
                .with("s", "q\"\\\n\u{1}é")
                .with("e", Object::new())
                .with("l", Vec::new())
                .with("a", 30000.0),
        );
        assert_eq!(
            value.compact(),
            r#"{"a":30000,"b":[0.25,null,true],"s":"q\"\\\n\u0001é","e":{},"l":[]}"#
        );
        assert_eq!(
            Value::Object(Object::new().with("k", vec![Value::from(-0.0)])).pretty(),
            "{\n  \"k\": [\n    0\n  ]\n}"
        );
        assert_eq!(
            Value::from("x").sha256(),
            sha256_hex(b"\"x\""),
            "the hash of the compact text"
        );
    }
}
