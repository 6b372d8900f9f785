//! The JSON value model and JSON text, exactly as JavaScript has them (docs §2.1, §2.6).
//!
//! Every identifier and digest bmad-plus computes is SHA-256 over `JSON.stringify` of a value
//! that went through `JSON.parse`, so this module reproduces both ends:
//!
//! * **Parsing** ([`parse`]) models values as V8 does: every number is a double (`1e400` is
//!   `Infinity`, `12345678901234567890` is `12345678901234567000`), a duplicate key keeps its
//!   first position and its last value, and a lone surrogate escape is refused (docs §10).
//!   The text is read by one reader ([`scan`]) that tells a [`Build`] what it finds: the tree
//!   of [`parse`] is one, the flat document of [`crate::js::tape`] the other, so both accept the
//!   same texts and refuse the others with the same message at the same byte.
//! * **Writing** ([`Value::compact`], [`Value::pretty`]) is `JSON.stringify(x)` and
//!   `JSON.stringify(x, null, 2)`: keys that are canonical array indices come first in ascending
//!   numeric order, then the others in insertion order; strings escape only what JavaScript
//!   escapes; numbers use JavaScript's shortest form and non-finite numbers become `null`.
//!
//! The object keeps insertion order; the array-index reordering happens when writing, so an
//! object built in Rust (a pattern named `"42"` in the scores map) is ordered the JavaScript
//! way too. Nothing here touches the file system.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use crate::js::number;
pub use crate::js::scan::ParseError;
use crate::js::scan::{Build, ESCAPED, Number, scan};

/// A JSON value as JavaScript models it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    Object(Object),
}

/// A JSON object: insertion-ordered, written in JavaScript's property order.
///
/// Objects in memory files, run files and receipts hold a handful of keys, so the entries live
/// in one vector searched linearly (one allocation per object, no hashing); an object that
/// grows past 24 keys gets a hash index as well, so a hostile file with a huge
/// object stays linear to parse.
#[derive(Debug, Clone, Default)]
pub struct Object {
    entries: Vec<(String, Value)>,
    /// key → position in `entries`, present only for large objects.
    index: Option<HashMap<String, usize>>,
}

/// Number of keys from which an [`Object`] keeps a hash index.
const INDEXED_FROM: usize = 24;

impl Object {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.entries.iter().position(|(k, _)| k == key),
        }
    }

    /// Sets `key`; an existing key keeps its position and takes the new value, as assignment to
    /// a JavaScript property does.
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<Value>) {
        let key = key.into();
        let value = value.into();
        if let Some(at) = self.position(&key) {
            self.entries[at].1 = value;
            return;
        }
        if let Some(index) = &mut self.index {
            index.insert(key.clone(), self.entries.len());
        }
        self.entries.push((key, value));
        if self.index.is_none() && self.entries.len() >= INDEXED_FROM {
            self.reindex();
        }
    }

    /// The object of `entries` in order, a repeated key keeping its first position and its
    /// last value. Without repeats (the usual case) the vector becomes the object as it is.
    fn from_entries(entries: Vec<(String, Value)>) -> Self {
        let has_repeats = entries.len() >= INDEXED_FROM
            || entries
                .iter()
                .enumerate()
                .any(|(i, (key, _))| entries[..i].iter().any(|(k, _)| k == key));
        if has_repeats {
            return entries.into_iter().collect();
        }
        Self {
            entries,
            index: None,
        }
    }

    fn reindex(&mut self) {
        self.index = Some(
            self.entries
                .iter()
                .enumerate()
                .map(|(at, (k, _))| (k.clone(), at))
                .collect(),
        );
    }

    /// Builder form of [`Object::insert`].
    #[must_use]
    pub fn with(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.insert(key, value);
        self
    }

    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.position(key).map(|at| &self.entries[at].1)
    }

    /// Removes `key`, keeping the order of the others.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let at = self.position(key)?;
        let (_, value) = self.entries.remove(at);
        if self.index.is_some() {
            self.reindex();
        }
        Some(value)
    }

    #[must_use]
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries in insertion order (not JavaScript's property order; see [`Object::ordered`]).
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// Whether some key is an array index, so that [`Object::ordered`] differs from
    /// [`Object::iter`].
    fn has_index_keys(&self) -> bool {
        self.entries.iter().any(|(k, _)| {
            k.as_bytes().first().is_some_and(u8::is_ascii_digit) && array_index(k).is_some()
        })
    }

    /// Entries in JavaScript's property order: array-index keys ascending, then the rest in
    /// insertion order.
    #[must_use]
    pub fn ordered(&self) -> Vec<(&String, &Value)> {
        let mut entries: Vec<_> = self.iter().collect();
        if self.has_index_keys() {
            // Stable sort: non-index keys keep their insertion order behind the indices.
            entries.sort_by_key(|(k, _)| array_index(k).map_or(u64::MAX, u64::from));
        }
        entries
    }
}

impl Value {
    /// [`Value::sha256`] of this value and, when it is an object holding `key`, of that
    /// member's value, in one pass: the member's text is written once and hashed twice (a run
    /// and its plan, for instance).
    #[must_use]
    pub fn sha256_with_member(&self, key: &str) -> (String, Option<String>) {
        match self {
            Value::Object(object) => hash_members(object, None, Some(key)),
            _ => (self.sha256(), None),
        }
    }
}

impl Object {
    /// Lowercase hex SHA-256 of the compact text of this object without `key` (what
    /// `delete copy[key]` then hashing `copy` gives), without copying the object.
    #[must_use]
    pub fn sha256_without(&self, key: &str) -> String {
        hash_members(self, Some(key), None).0
    }
}

/// SHA-256 of the compact text of `object` without its member `skip`, written piece by piece
/// into the hasher; and, when `tap` names a member, the SHA-256 of that member's value alone.
fn hash_members(
    object: &Object,
    skip: Option<&str>,
    tap: Option<&str>,
) -> (String, Option<String>) {
    let mut out = String::with_capacity(2 * HASH_CHUNK);
    let mut hasher = Sha256::new();
    let mut tapped = None;
    out.push('{');
    let mut is_first = true;
    for (k, value) in object.ordered() {
        if Some(k.as_str()) == skip {
            continue;
        }
        if !is_first {
            out.push(',');
        }
        is_first = false;
        write_string(&mut out, k);
        out.push(':');
        if Some(k.as_str()) == tap {
            let mut text = String::new();
            value.write(&mut text, None, 0, &mut Keep);
            tapped = Some(sha256_hex(text.as_bytes()));
            hasher.update(out.as_bytes());
            out.clear();
            hasher.update(text.as_bytes());
        } else {
            value.write(&mut out, None, 0, &mut hasher);
        }
        hasher.spill(&mut out);
    }
    out.push('}');
    hasher.update(out.as_bytes());
    (hex(&hasher.finalize()), tapped)
}

/// Objects compare as JavaScript maps do for our purposes: the same keys with equal values,
/// whatever their insertion order.
impl PartialEq for Object {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl FromIterator<(String, Value)> for Object {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        let mut object = Self::new();
        for (k, v) in iter {
            object.insert(k, v);
        }
        object
    }
}

/// `Some(n)` when `key` is a canonical array index (`"0"` … `"4294967294"`, no sign, no
/// leading zero), the keys JavaScript enumerates first.
pub(crate) fn array_index(key: &str) -> Option<u32> {
    let bytes = key.as_bytes();
    if bytes.is_empty() || bytes.len() > 10 || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if bytes.len() > 1 && bytes[0] == b'0' {
        return None;
    }
    let n: u64 = key.parse().ok()?;
    u32::try_from(n).ok().filter(|&n| n != u32::MAX)
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}
impl From<&String> for Value {
    fn from(s: &String) -> Self {
        Value::String(s.clone())
    }
}
impl From<f64> for Value {
    fn from(n: f64) -> Self {
        Value::Number(n)
    }
}
impl From<u32> for Value {
    fn from(n: u32) -> Self {
        Value::Number(f64::from(n))
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}
impl From<Vec<Value>> for Value {
    fn from(v: Vec<Value>) -> Self {
        Value::Array(v)
    }
}
impl From<Object> for Value {
    fn from(o: Object) -> Self {
        Value::Object(o)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(o: Option<T>) -> Self {
        o.map_or(Value::Null, Into::into)
    }
}

impl Value {
    #[must_use]
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    #[must_use]
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    #[must_use]
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// JavaScript truthiness of a present value (docs §2.6): everything but `null`, `false`,
    /// `0`, `-0`, `NaN` and `""`; an empty array or object is truthy.
    #[must_use]
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => *n != 0.0 && !n.is_nan(),
            Value::String(s) => !s.is_empty(),
            Value::Array(_) | Value::Object(_) => true,
        }
    }

    /// `String(value)` as a template literal would write it (docs §2.6): strings as is, numbers
    /// in JavaScript form, arrays as their elements joined by `,` (null elements empty), any
    /// other object `[object Object]`, and `null` as `null`.
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write_text(&mut out, false);
        out
    }

    fn write_text(&self, out: &mut String, in_array: bool) {
        match self {
            Value::Null if in_array => {}
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => number::write_number(out, *n),
            Value::String(s) => out.push_str(s),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_text(out, true);
                }
            }
            Value::Object(_) => out.push_str("[object Object]"),
        }
    }

    /// `JSON.stringify(value)`.
    #[must_use]
    pub fn compact(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, None, 0, &mut Keep);
        out
    }

    /// `JSON.stringify(value, null, 2)`.
    #[must_use]
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, Some(2), 0, &mut Keep);
        out
    }

    /// Lowercase hex SHA-256 of the compact JSON text, hashed as it is written (the text of a
    /// 1.5 MiB run is never held whole).
    #[must_use]
    pub fn sha256(&self) -> String {
        let mut out = String::with_capacity(2 * HASH_CHUNK);
        let mut hasher = Sha256::new();
        self.write(&mut out, None, 0, &mut hasher);
        hasher.update(out.as_bytes());
        hex(&hasher.finalize())
    }

    fn write<S: Spill>(
        &self,
        out: &mut String,
        indent: Option<usize>,
        depth: usize,
        spill: &mut S,
    ) {
        match self {
            // JSON has no NaN or Infinity: JSON.stringify writes null.
            Value::Number(n) if n.is_finite() => number::write_number(out, *n),
            Value::Null | Value::Number(_) => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::String(s) => write_string(out, s),
            Value::Array(items) => {
                if items.is_empty() {
                    out.push_str("[]");
                    return;
                }
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, indent, depth + 1);
                    item.write(out, indent, depth + 1, spill);
                    spill.spill(out);
                }
                newline(out, indent, depth);
                out.push(']');
            }
            Value::Object(object) => {
                if object.is_empty() {
                    out.push_str("{}");
                    return;
                }
                out.push('{');
                let mut member = |i: usize, key: &String, value: &Value, out: &mut String| {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, indent, depth + 1);
                    write_string(out, key);
                    out.push(':');
                    if indent.is_some() {
                        out.push(' ');
                    }
                    value.write(out, indent, depth + 1, spill);
                    spill.spill(out);
                };
                if object.has_index_keys() {
                    for (i, (key, value)) in object.ordered().into_iter().enumerate() {
                        member(i, key, value, out);
                    }
                } else {
                    for (i, (key, value)) in object.entries.iter().enumerate() {
                        member(i, key, value, out);
                    }
                }
                newline(out, indent, depth);
                out.push('}');
            }
        }
    }
}

/// Size from which [`Value::sha256`] feeds the text written so far to the hasher.
const HASH_CHUNK: usize = 16 * 1024;

/// Where JSON text goes once written: kept whole, or hashed in chunks.
trait Spill {
    fn spill(&mut self, out: &mut String);
}

/// Keep the whole text.
struct Keep;

impl Spill for Keep {
    #[inline]
    fn spill(&mut self, _: &mut String) {}
}

impl Spill for Sha256 {
    #[inline]
    fn spill(&mut self, out: &mut String) {
        if out.len() >= HASH_CHUNK {
            self.update(out.as_bytes());
            out.clear();
        }
    }
}

fn newline(out: &mut String, indent: Option<usize>, depth: usize) {
    if let Some(width) = indent {
        out.push('\n');
        for _ in 0..width * depth {
            out.push(' ');
        }
    }
}

/// A JSON string literal as `JSON.stringify` writes it.
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, &byte) in s.as_bytes().iter().enumerate() {
        if !ESCAPED[usize::from(byte)] {
            continue;
        }
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\x08' => "\\b",
            b'\x0c' => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            _ => "",
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Lowercase hex SHA-256 of `bytes`.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex of a digest.
#[must_use]
pub fn hex(digest: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(2 * digest.len());
    for &b in digest {
        text.push(char::from(HEX[usize::from(b >> 4)]));
        text.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    text
}

/// `JSON.parse(text)`: one value, surrounded only by JSON whitespace (space, tab, LF, CR).
///
/// # Errors
/// A [`ParseError`] naming the problem and its byte offset.
pub fn parse(text: &str) -> Result<Value, ParseError> {
    scan(text, Tree::default()).map(|(value, _)| value)
}

/// The [`Build`] of [`parse`]: a tree of [`Value`]s.
#[derive(Default)]
struct Tree {
    /// Items of the arrays being read, innermost last: each array is moved out in one
    /// allocation of its exact size once complete.
    items: Vec<Value>,
    /// Members of the objects being read, likewise.
    members: Vec<(String, Value)>,
    /// Arrays and objects being read.
    open: usize,
}

/// An object being read into a [`Tree`]: where its members start, and the key last read.
struct OpenObject {
    mark: usize,
    key: String,
}

/// The text of a string literal.
fn string_value(source: &str, decoded: Option<String>) -> String {
    decoded.unwrap_or_else(|| source[1..source.len() - 1].to_owned())
}

impl Build for Tree {
    type Value = Value;
    type Array = usize;
    type Object = OpenObject;
    type Error = ParseError;

    #[inline]
    fn null(&mut self) -> Value {
        Value::Null
    }

    #[inline]
    fn boolean(&mut self, value: bool) -> Value {
        Value::Bool(value)
    }

    #[inline]
    fn number(&mut self, number: Number<'_>) -> Value {
        Value::Number(number.value)
    }

    #[inline]
    fn string(&mut self, source: &str, decoded: Option<String>) -> Value {
        Value::String(string_value(source, decoded))
    }

    #[inline]
    fn begin_array(&mut self) -> usize {
        self.open += 1;
        self.items.len()
    }

    #[inline]
    fn comma(&mut self) {}

    #[inline]
    fn item(&mut self, _: &mut usize, item: Value) {
        self.items.push(item);
    }

    #[inline]
    fn end_array(&mut self, mark: usize) -> Value {
        self.open -= 1;
        Value::Array(take_from(&mut self.items, mark, self.open == 0))
    }

    #[inline]
    fn begin_object(&mut self) -> OpenObject {
        self.open += 1;
        OpenObject {
            mark: self.members.len(),
            key: String::new(),
        }
    }

    #[inline]
    fn key(
        &mut self,
        object: &mut OpenObject,
        source: &str,
        decoded: Option<String>,
    ) -> Result<(), ParseError> {
        object.key = string_value(source, decoded);
        Ok(())
    }

    #[inline]
    fn member(&mut self, object: &mut OpenObject, value: Value) {
        self.members.push((std::mem::take(&mut object.key), value));
    }

    #[inline]
    fn end_object(&mut self, object: OpenObject) -> Result<Value, ParseError> {
        self.open -= 1;
        let entries = take_from(&mut self.members, object.mark, self.open == 0);
        Ok(Value::Object(Object::from_entries(entries)))
    }
}

/// `stack[mark..]`, moved out: the document's own array or object (`is_root`) takes the whole
/// vector, without a copy; any other, a vector of its exact size, the stack staying for the
/// next one.
fn take_from<T>(stack: &mut Vec<T>, mark: usize, is_root: bool) -> Vec<T> {
    if is_root {
        std::mem::take(stack)
    } else {
        stack.drain(mark..).collect()
    }
}

// Reads what only the repository has (docs: build.rs).
#[cfg(test)]
#[cfg(repository)]
mod tests {
    use super::*;
    use crate::js::scan::MAX_DEPTH;

    fn vectors() -> serde_json::Value {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/vectors/json.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn vectors_round_trip_as_javascript_does() {
        let vectors = vectors();
        for pair in vectors["pairs"].as_array().unwrap() {
            let input = pair[0].as_str().unwrap();
            let expected = pair[1].as_str().unwrap();
            assert_eq!(parse(input).unwrap().compact(), expected, "input {input}");
        }
    }

    #[track_caller]
    fn case(input: &str, compact: &str) {
        assert_eq!(parse(input).unwrap().compact(), compact, "input {input:?}");
    }

    #[test]
    fn compact_text() {
        case(" [ ] ", "[]");
        case("{}", "{}");
        case("-0", "0");
        case("1E+2", "100");
        case("0.1", "0.1");
        case("1e-7", "1e-7");
        case("1e21", "1e+21");
        case("-1e400", "null");
        case(r#""\u2028\u00ff""#, "\"\u{2028}\u{ff}\"");
        case(r#""\u0000\u001F\u007f""#, "\"\\u0000\\u001f\u{7f}\"");
        case(
            r#"{"a":{"b":[null,true,false]}}"#,
            r#"{"a":{"b":[null,true,false]}}"#,
        );
        case(
            r#"{"4294967295":1,"4294967294":2}"#,
            r#"{"4294967294":2,"4294967295":1}"#,
        );
    }

    #[track_caller]
    fn refused(input: &str) {
        assert!(parse(input).is_err(), "accepted {input:?}");
    }

    #[test]
    fn refuses_what_json_parse_refuses() {
        for input in [
            "",
            " ",
            "01",
            "1.",
            ".5",
            "+1",
            "-",
            "1e",
            "[1,]",
            "{\"a\":1,}",
            "{a:1}",
            "'a'",
            "\"\t\"",
            "\"\\x\"",
            "nul",
            "truex",
            "[1] 2",
            "\u{feff}1",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ud800\\u0041\"",
            "\"abc",
            "[",
            "{\"a\"",
            "NaN",
            "Infinity",
        ] {
            refused(input);
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(parse(&deep).unwrap_err().message, "nesting too deep");
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(&ok).is_ok());
    }

    #[test]
    fn pretty_is_stringify_with_two_spaces() {
        let v = parse(r#"{"b":[1,{"c":[]}],"a":{},"0":"x"}"#).unwrap();
        assert_eq!(
            v.pretty(),
            "{\n  \"0\": \"x\",\n  \"b\": [\n    1,\n    {\n      \"c\": []\n    }\n  ],\n  \"a\": {}\n}"
        );
        assert_eq!(Value::Array(vec![]).pretty(), "[]");
    }

    #[test]
    fn built_objects_follow_property_order() {
        let o = Object::new()
            .with("z", 1.0)
            .with("42", 2.0)
            .with("a", Value::Null)
            .with("7", true)
            .with("z", 3.0);
        assert_eq!(
            Value::Object(o).compact(),
            r#"{"7":true,"42":2,"z":3,"a":null}"#
        );
    }

    #[test]
    fn large_objects_behave_as_small_ones() {
        // Past INDEXED_FROM keys the object keeps a hash index: same order, same last-wins.
        let keys: Vec<String> = (0..100).map(|i| format!("k{}", (i * 37) % 100)).collect();
        let text = format!(
            "{{{},\"k5\":\"again\",\"7\":0}}",
            keys.iter()
                .map(|k| format!("\"{k}\":\"{k}\""))
                .collect::<Vec<_>>()
                .join(",")
        );
        let Value::Object(mut object) = parse(&text).unwrap() else {
            panic!("an object");
        };
        assert_eq!(object.len(), 101);
        assert_eq!(object.get("k5"), Some(&Value::from("again")));
        assert_eq!(object.get("k99"), Some(&Value::from("k99")));
        assert_eq!(object.get("k100"), None);
        let first: Vec<&String> = object.iter().map(|(k, _)| k).take(3).collect();
        assert_eq!(first, ["k0", "k37", "k74"]);
        assert_eq!(object.remove("k37"), Some(Value::from("k37")));
        assert_eq!(object.get("k74"), Some(&Value::from("k74")));
        object.insert("k37", 1.0);
        let compact = Value::Object(object.clone()).compact();
        assert!(
            compact.starts_with(r#"{"7":0,"k0":"k0","k74":"k74""#),
            "{compact}"
        );
        assert!(compact.ends_with(r#""k63":"k63","k37":1}"#), "{compact}");
        assert_eq!(parse(&compact).unwrap(), Value::Object(object));
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_its_last_value() {
        // node -e 'console.log(JSON.stringify(JSON.parse(`{"a":1,"b":2,"a":3}`)))'
        case(r#"{"a":1,"b":2,"a":3}"#, r#"{"a":3,"b":2}"#);
        case(r#"{"a":{"x":1,"x":[]},"a":{"y":2}}"#, r#"{"a":{"y":2}}"#);
        case(r#"[{"k":1,"k":2},{"k":3}]"#, r#"[{"k":2},{"k":3}]"#);
    }

    #[test]
    fn objects_are_equal_whatever_their_key_order() {
        assert_eq!(parse(r#"{"a":1,"b":[2]}"#), parse(r#"{"b":[2],"a":1}"#));
        assert_ne!(parse(r#"{"a":1,"b":[2]}"#), parse(r#"{"a":1,"b":[3]}"#));
        assert_ne!(parse(r#"{"a":1}"#), parse(r#"{"a":1,"b":1}"#));
    }

    #[test]
    fn text_and_truthiness() {
        let v = parse(r#"["a",null,[1,[2,null]],{"x":1},true,1e21,-0]"#).unwrap();
        assert_eq!(v.text(), "a,,1,2,,[object Object],true,1e+21,0");
        assert_eq!(Value::Null.text(), "null");
        for falsy in ["null", "false", "0", "-0", "\"\""] {
            assert!(!parse(falsy).unwrap().is_truthy(), "{falsy}");
        }
        for truthy in ["[]", "{}", "\"0\"", "0.1", "true", "\" \""] {
            assert!(parse(truthy).unwrap().is_truthy(), "{truthy}");
        }
    }

    #[test]
    fn sha256_is_over_the_compact_text() {
        let v = parse(r#"{ "b" : 1.0, "a" : [ ] }"#).unwrap();
        assert_eq!(v.sha256(), sha256_hex(br#"{"b":1,"a":[]}"#));
        // Past HASH_CHUNK bytes the text is hashed in pieces as it is written.
        let big = Value::Array(
            (0..5000)
                .map(|i| Value::Object(Object::new().with("n", f64::from(i)).with("s", "é\n\"")))
                .collect(),
        );
        assert!(big.compact().len() > 4 * HASH_CHUNK);
        assert_eq!(big.sha256(), sha256_hex(big.compact().as_bytes()));
        let Value::Object(object) = parse(r#"{"2":[1],"id":"x","a":{"b":null}}"#).unwrap() else {
            panic!("an object");
        };
        assert_eq!(
            object.sha256_without("id"),
            sha256_hex(br#"{"2":[1],"a":{"b":null}}"#)
        );
        assert_eq!(
            object.sha256_without("zz"),
            Value::Object(object.clone()).sha256()
        );
        assert_eq!(Object::new().sha256_without("id"), sha256_hex(b"{}"));
        let run = parse(r#"{"a":1,"plan":{"1":2,"t":[3]},"z":[]}"#).unwrap();
        assert_eq!(
            run.sha256_with_member("plan"),
            (run.sha256(), Some(sha256_hex(br#"{"1":2,"t":[3]}"#)))
        );
        assert_eq!(run.sha256_with_member("none"), (run.sha256(), None));
        assert_eq!(big.sha256_with_member("plan"), (big.sha256(), None));
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    fn arbitrary_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<f64>()
                .prop_filter("finite", |n| n.is_finite())
                .prop_map(Value::Number),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                proptest::collection::vec(("[a-z0-9]{0,3}|\\PC{0,4}", inner), 0..8)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn json_text_round_trips_byte_for_byte(value in arbitrary_value()) {
            let compact = value.compact();
            let reparsed = parse(&compact).unwrap();
            proptest::prop_assert_eq!(reparsed.compact(), compact.clone());
            proptest::prop_assert_eq!(parse(&value.pretty()).unwrap().compact(), compact);
        }

        #[test]
        fn parse_never_panics(text in "\\PC{0,40}|[\\[\\]{}\",:0-9.eE+-]{0,40}") {
            let _ = parse(&text);
        }

        #[test]
        fn parse_reads_what_serde_json_reads(text in json_text()) {
            same_as_serde_json(&text)?;
        }

        #[test]
        fn parse_refuses_what_serde_json_refuses(
            text in json_text(),
            cut in 0usize..300,
            at in 0usize..300,
            byte in proptest::sample::select(b"\"\\{}[],:.-+eE0u \x01".to_vec()),
        ) {
            let mut cut = cut.min(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            same_as_serde_json(&text[..cut])?;
            let mut bytes = text.into_bytes();
            if !bytes.is_empty() {
                let at = at % bytes.len();
                bytes[at] = byte;
            }
            if let Ok(text) = String::from_utf8(bytes) {
                same_as_serde_json(&text)?;
            }
        }
    }

    /// JSON texts, pretty or compact, with keys that repeat or look like array indices,
    /// numbers of every form and strings with every kind of escape.
    fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let key = prop_oneof![
            Just("a".to_owned()),
            Just("0".to_owned()),
            Just("7".to_owned()),
            Just("\\u0061".to_owned()),
            Just("é\\n".to_owned()),
            "[a-z0-9]{1,3}",
        ];
        let leaf = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("false".to_owned()),
            Just("-0".to_owned()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<u128>().prop_map(|n| n.to_string()),
            "-?(0|[1-9][0-9]{0,25})(\\.[0-9]{1,25})?([eE][+-]?[0-9]{1,2})?",
            any::<f64>().prop_map(|n| format!("{n:e}")),
            "[ -~é\u{2028}\u{1f680}]{0,6}".prop_map(|s| {
                let mut out = String::new();
                write_string(&mut out, &s);
                out
            }),
            "\"([a-z]|\\\\[\"\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4}|\\\\u[dD][89abAB][0-9a-f]{2}\\\\u[dD][c-fC-F][0-9a-f]{2})*\"",
        ];
        leaf.prop_recursive(5, 64, 6, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6)
                    .prop_map(|items| format!("[{}]", items.join(" , "))),
                proptest::collection::vec((key.clone(), inner), 0..6).prop_map(|members| {
                    let members: Vec<String> = members
                        .into_iter()
                        .map(|(k, v)| format!("\n  \"{k}\" :\t{v}"))
                        .collect();
                    format!("{{{}\n}}", members.join(","))
                }),
            ]
        })
    }

    /// `parse` accepts `text` exactly when `serde_json` does (a reader of the same grammar that
    /// also refuses lone surrogates), and reads the same value: numbers to the same double,
    /// a repeated key with its last value. Numbers `serde_json` cannot hold (`1e400`, which
    /// `JSON.parse` reads as `Infinity`) are left out.
    fn same_as_serde_json(text: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        let reference = serde_json::from_str::<serde_json::Value>(text);
        if let Err(e) = &reference {
            proptest::prop_assume!(!e.to_string().starts_with("number out of range"));
        }
        match (parse(text), reference) {
            (Ok(ours), Ok(reference)) => {
                proptest::prop_assert!(same(&ours, &reference), "{text:?}: {ours:?}");
            }
            (Err(_), Err(_)) => {}
            (ours, reference) => {
                proptest::prop_assert!(false, "{text:?}: ours {ours:?}, serde_json {reference:?}");
            }
        }
        Ok(())
    }

    /// Every number bit for bit (`-0` stays negative zero): the tests read with `serde_json`'s
    /// exact float reading (`float_roundtrip`), and our reader rounds with Rust's float parsing,
    /// which is correctly rounded as V8's is.
    #[expect(
        clippy::cast_precision_loss,
        reason = "as `JSON.parse` rounds an integer: to nearest"
    )]
    fn same_number(ours: f64, reference: &serde_json::Number) -> bool {
        if let Some(n) = reference.as_u64() {
            ours.to_bits() == (n as f64).to_bits()
        } else if let Some(n) = reference.as_i64() {
            ours.to_bits() == (n as f64).to_bits()
        } else {
            reference
                .as_f64()
                .is_some_and(|n| ours.to_bits() == n.to_bits())
        }
    }

    fn same(ours: &Value, reference: &serde_json::Value) -> bool {
        use serde_json::Value as R;
        match (ours, reference) {
            (Value::Null, R::Null) => true,
            (Value::Bool(a), R::Bool(b)) => a == b,
            (Value::Number(a), R::Number(b)) => same_number(*a, b),
            (Value::String(a), R::String(b)) => a == b,
            (Value::Array(a), R::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b))
            }
            (Value::Object(a), R::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|b| same(v, b)))
            }
            _ => false,
        }
    }
}
