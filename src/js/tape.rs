//! A JSON document read once into a flat list of nodes, beside its compact text.
//!
//! Nexus hashes a run several ways: the whole run, its plan, every verification and every
//! environment's values, each over the compact text `JSON.stringify` writes (`docs/NEXUS.md`). A
//! [`json::Value`] tree gets there by allocating every string, object and array of a 1.5 MiB
//! run and then writing the parts out again for each hash. [`Doc`] reads the text once, writes
//! the compact text as it goes and remembers where each value's text starts and ends, so the
//! hash of any value is the hash of a slice, two values are "equal" when their slices are, and
//! reading a field is a walk over a flat vector. Nothing is allocated per value except the
//! rare string with escapes.
//!
//! The text is read by the same reader as [`json::parse`], so a text is accepted exactly when
//! [`json::parse`] accepts it, with the same error, and the compact text is exactly
//! [`json::Value::compact`] of [`json::parse`] of the same text. Two things
//! make JavaScript's text differ from the order of the source, and the document then takes
//! the long way (parse to a tree, write it, read that): a key given twice (the first position
//! is kept with the last value) and an array-index key that is not in ascending order before
//! every other key (JavaScript lists those first). Both are unusual in a file a program wrote.

use sha2::{Digest, Sha256};

use crate::js::json::{self, Value, array_index, hex, write_string};
use crate::js::number;
use crate::js::scan::{self, Build, Number, ParseError};

/// A parsed JSON document: its compact text and one node per value (members' keys included).
#[derive(Debug)]
pub struct Doc {
    /// `JSON.stringify(JSON.parse(source))`.
    compact: String,
    /// Every value in document order; an object's members are its key then its value.
    nodes: Vec<Slot>,
    /// Decoded text of the strings whose compact text holds an escape.
    strings: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    False,
    True,
    Number,
    String,
    Array,
    Object,
}

/// One value: its kind, its compact text `compact[start..end]`, the node after its subtree.
#[derive(Debug, Clone, Copy)]
struct Slot {
    kind: Kind,
    start: u32,
    end: u32,
    next: u32,
    /// Number: its bits. String: [`PLAIN`] or an index into `strings`. Array: its length.
    /// Object: its number of members.
    extra: u64,
}

/// A count or index kept in [`Slot::extra`]: it came from a `usize`.
fn small(extra: u64) -> usize {
    usize::try_from(extra).unwrap_or(usize::MAX)
}

/// A string whose compact text has no escape: its text is the slice between the quotes.
const PLAIN: u64 = u64::MAX;

/// Largest source [`Doc::parse`] reads; offsets are kept in 32 bits and the compact text of a
/// number can be longer than its source (`1e20` is written out in full).
const SOURCE_LIMIT: usize = 256 * 1024 * 1024;

/// Why the fast reading gave up: a real error, or an object JavaScript would reorder.
enum Stop {
    Error(ParseError),
    Reordered,
}

impl From<ParseError> for Stop {
    fn from(e: ParseError) -> Self {
        Stop::Error(e)
    }
}

impl Doc {
    /// `JSON.parse(text)`, kept as nodes over its compact text.
    ///
    /// # Errors
    /// Those of [`json::parse`], which reads the text when this reading refuses it, so the
    /// message and offset are the same; also a text over 256 MiB.
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        if text.len() > SOURCE_LIMIT {
            return Err(ParseError {
                message: "document too large",
                offset: 0,
            });
        }
        match Reader::read(text) {
            Ok(doc) => Ok(doc),
            Err(Stop::Error(e)) => Err(e),
            // Read as a tree, which puts the object in JavaScript's order, then again from its
            // compact text.
            Err(Stop::Reordered) => match Reader::read(&json::parse(text)?.compact()) {
                Ok(doc) => Ok(doc),
                Err(Stop::Error(e)) => Err(e),
                Err(Stop::Reordered) => unreachable!("compact text is in JavaScript's order"),
            },
        }
    }

    /// The document's value.
    #[must_use]
    pub fn root(&self) -> Node<'_> {
        Node { doc: self, at: 0 }
    }

    /// The decoded text of a string node.
    fn string(&self, slot: Slot) -> &str {
        if slot.extra == PLAIN {
            &self.compact[slot.start as usize + 1..slot.end as usize - 1]
        } else {
            &self.strings[small(slot.extra)]
        }
    }
}

/// One value of a [`Doc`].
#[derive(Clone, Copy)]
pub struct Node<'d> {
    doc: &'d Doc,
    at: u32,
}

impl std::fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.compact())
    }
}

impl<'d> Node<'d> {
    fn slot(self) -> Slot {
        self.doc.nodes[self.at as usize]
    }

    fn kind(self) -> Kind {
        self.slot().kind
    }

    /// `JSON.stringify(value)`.
    #[must_use]
    pub fn compact(self) -> &'d str {
        let slot = self.slot();
        &self.doc.compact[slot.start as usize..slot.end as usize]
    }

    /// Lowercase hex SHA-256 of [`Node::compact`].
    #[must_use]
    pub fn sha256(self) -> String {
        hex(&Sha256::digest(self.compact().as_bytes()))
    }

    /// The value as a tree.
    ///
    /// # Panics
    /// Never: the compact text of a value is JSON.
    #[must_use]
    pub fn to_value(self) -> Value {
        json::parse(self.compact()).expect("compact text is JSON")
    }

    #[must_use]
    pub fn is_null(self) -> bool {
        self.kind() == Kind::Null
    }

    #[must_use]
    pub fn as_bool(self) -> Option<bool> {
        match self.kind() {
            Kind::True => Some(true),
            Kind::False => Some(false),
            _ => None,
        }
    }

    #[must_use]
    pub fn as_f64(self) -> Option<f64> {
        let slot = self.slot();
        (slot.kind == Kind::Number).then(|| f64::from_bits(slot.extra))
    }

    #[must_use]
    pub fn as_str(self) -> Option<&'d str> {
        let slot = self.slot();
        (slot.kind == Kind::String).then(|| self.doc.string(slot))
    }

    #[must_use]
    pub fn is_array(self) -> bool {
        self.kind() == Kind::Array
    }

    #[must_use]
    pub fn is_object(self) -> bool {
        self.kind() == Kind::Object
    }

    /// The items of an array.
    #[must_use]
    pub fn items(self) -> Option<Items<'d>> {
        let slot = self.slot();
        (slot.kind == Kind::Array).then(|| Items {
            doc: self.doc,
            at: self.at + 1,
            left: small(slot.extra),
        })
    }

    /// The members of an object, in JavaScript's property order.
    #[must_use]
    pub fn members(self) -> Option<Members<'d>> {
        let slot = self.slot();
        (slot.kind == Kind::Object).then(|| Members {
            doc: self.doc,
            at: self.at + 1,
            left: small(slot.extra),
        })
    }

    /// `value[key]` of an object (absent for anything else, or a key it does not hold).
    #[must_use]
    pub fn get(self, key: &str) -> Option<Node<'d>> {
        self.members()?
            .find(|(k, _)| *k == key)
            .map(|(_, value)| value)
    }

    /// JavaScript truthiness (docs §2.6).
    #[must_use]
    pub fn is_truthy(self) -> bool {
        match self.kind() {
            Kind::Null | Kind::False => false,
            Kind::True | Kind::Array | Kind::Object => true,
            Kind::Number => self.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
            Kind::String => self.as_str().is_some_and(|s| !s.is_empty()),
        }
    }

    /// `String(value)` ([`Value::text`]).
    #[must_use]
    pub fn text(self) -> String {
        match self.as_str() {
            Some(s) => s.to_owned(),
            None => self.to_value().text(),
        }
    }
}

/// The items of an array node.
#[derive(Clone)]
pub struct Items<'d> {
    doc: &'d Doc,
    at: u32,
    left: usize,
}

impl<'d> Iterator for Items<'d> {
    type Item = Node<'d>;

    fn next(&mut self) -> Option<Node<'d>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let node = Node {
            doc: self.doc,
            at: self.at,
        };
        self.at = node.slot().next;
        Some(node)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Items<'_> {}

/// The members of an object node: each key's text and its value.
#[derive(Clone)]
pub struct Members<'d> {
    doc: &'d Doc,
    at: u32,
    left: usize,
}

impl<'d> Iterator for Members<'d> {
    type Item = (&'d str, Node<'d>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key = Node {
            doc: self.doc,
            at: self.at,
        };
        let value = Node {
            doc: self.doc,
            at: self.at + 1,
        };
        self.at = value.slot().next;
        Some((key.as_str().expect("keys are strings"), value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Members<'_> {}

/// Objects with more members than this sort their keys to find a duplicate.
const LINEAR_KEYS: usize = 16;

/// The [`Build`] of a [`Doc`]: writes the compact text as the reading goes, and one node per
/// value.
struct Reader {
    doc: Doc,
    /// Key node indices of the objects being read, innermost last.
    keys: Vec<u32>,
}

/// An array being read: its node and its number of items so far.
struct OpenArray {
    at: usize,
    count: u64,
}

/// An object being read: its node, where its keys start in [`Reader::keys`], its number of
/// members so far, its last array-index key and whether a key of another kind came already.
struct OpenObject {
    at: usize,
    mark: usize,
    count: u64,
    last_index: Option<u32>,
    has_named: bool,
}

impl Reader {
    #[inline]
    fn read(text: &str) -> Result<Doc, Stop> {
        let reader = Reader {
            doc: Doc {
                // A pretty-printed file loses about a third of its bytes to indentation.
                compact: String::with_capacity(text.len()),
                nodes: Vec::with_capacity(text.len() / 16),
                strings: Vec::new(),
            },
            keys: Vec::new(),
        };
        let ((), reader) = scan::scan(text, reader)?;
        Ok(reader.doc)
    }

    #[inline]
    fn offset(&self) -> u32 {
        // SOURCE_LIMIT keeps every compact text far below 4 GiB.
        u32::try_from(self.doc.compact.len()).expect("compact text under 4 GiB")
    }

    /// Opens a node at the current end of the compact text; [`Reader::close`] finishes it.
    #[inline]
    fn open(&mut self, kind: Kind, extra: u64) -> usize {
        let start = self.offset();
        self.doc.nodes.push(Slot {
            kind,
            start,
            end: start,
            next: 0,
            extra,
        });
        self.doc.nodes.len() - 1
    }

    #[inline]
    fn close(&mut self, at: usize) {
        let end = self.offset();
        let next = u32::try_from(self.doc.nodes.len()).expect("node count under 4 G");
        let slot = &mut self.doc.nodes[at];
        slot.end = end;
        slot.next = next;
    }

    #[inline]
    fn literal(&mut self, literal: &str, kind: Kind) {
        let at = self.open(kind, 0);
        self.doc.compact.push_str(literal);
        self.close(at);
    }

    /// A string node; returns its index.
    #[inline]
    fn string_node(&mut self, source: &str, decoded: Option<String>) -> u32 {
        let node = u32::try_from(self.doc.nodes.len()).expect("node count under 4 G");
        let at = self.open(Kind::String, PLAIN);
        match decoded {
            // No escape: the source text is the compact text.
            None => self.doc.compact.push_str(source),
            Some(decoded) => {
                write_string(&mut self.doc.compact, &decoded);
                let start = self.doc.nodes[at].start as usize;
                // `\/` or `\u0041` may decode to text JavaScript writes without an escape.
                if self.doc.compact[start + 1..].contains('\\') {
                    self.doc.nodes[at].extra = self.doc.strings.len() as u64;
                    self.doc.strings.push(decoded);
                }
            }
        }
        self.close(at);
        node
    }

    /// The decoded text of the key node `key`.
    #[inline]
    fn key_text(&self, key: u32) -> &str {
        self.doc.string(self.doc.nodes[key as usize])
    }

    /// Whether two keys of the object whose key nodes are `keys[mark..]` are the same. Keys
    /// are compared by their compact text, which is one text per decoded key.
    #[inline]
    fn has_duplicate(&self, mark: usize) -> bool {
        let compact = self.doc.compact.as_bytes();
        let text = |key: &u32| {
            let slot = self.doc.nodes[*key as usize];
            &compact[slot.start as usize..slot.end as usize]
        };
        let keys = &self.keys[mark..];
        if keys.len() <= LINEAR_KEYS {
            return keys
                .iter()
                .enumerate()
                .any(|(i, a)| keys[..i].iter().any(|b| text(a) == text(b)));
        }
        let mut texts: Vec<&[u8]> = keys.iter().map(text).collect();
        texts.sort_unstable();
        texts.windows(2).any(|pair| pair[0] == pair[1])
    }
}

impl Build for Reader {
    type Value = ();
    type Array = OpenArray;
    type Object = OpenObject;
    type Error = Stop;

    #[inline]
    fn null(&mut self) {
        self.literal("null", Kind::Null);
    }

    #[inline]
    fn boolean(&mut self, value: bool) {
        if value {
            self.literal("true", Kind::True);
        } else {
            self.literal("false", Kind::False);
        }
    }

    #[inline]
    fn number(&mut self, number: Number<'_>) {
        let at = self.open(Kind::Number, number.value.to_bits());
        if number.is_compact {
            self.doc.compact.push_str(number.source);
        } else if number.value.is_finite() {
            number::write_number(&mut self.doc.compact, number.value);
        } else {
            self.doc.compact.push_str("null");
        }
        self.close(at);
    }

    #[inline]
    fn string(&mut self, source: &str, decoded: Option<String>) {
        self.string_node(source, decoded);
    }

    #[inline]
    fn begin_array(&mut self) -> OpenArray {
        let at = self.open(Kind::Array, 0);
        self.doc.compact.push('[');
        OpenArray { at, count: 0 }
    }

    #[inline]
    fn comma(&mut self) {
        self.doc.compact.push(',');
    }

    #[inline]
    fn item(&mut self, array: &mut OpenArray, (): ()) {
        array.count += 1;
    }

    #[inline]
    fn end_array(&mut self, array: OpenArray) {
        self.doc.compact.push(']');
        self.doc.nodes[array.at].extra = array.count;
        self.close(array.at);
    }

    #[inline]
    fn begin_object(&mut self) -> OpenObject {
        let at = self.open(Kind::Object, 0);
        self.doc.compact.push('{');
        OpenObject {
            at,
            mark: self.keys.len(),
            count: 0,
            last_index: None,
            has_named: false,
        }
    }

    #[inline]
    fn key(
        &mut self,
        object: &mut OpenObject,
        source: &str,
        decoded: Option<String>,
    ) -> Result<(), Stop> {
        let key = self.string_node(source, decoded);
        let key_text = self.key_text(key);
        if key_text.as_bytes().first().is_some_and(u8::is_ascii_digit)
            && let Some(index) = array_index(key_text)
        {
            if object.has_named || object.last_index.is_some_and(|last| index <= last) {
                return Err(Stop::Reordered);
            }
            object.last_index = Some(index);
        } else {
            object.has_named = true;
        }
        self.keys.push(key);
        self.doc.compact.push(':');
        Ok(())
    }

    #[inline]
    fn member(&mut self, object: &mut OpenObject, (): ()) {
        object.count += 1;
    }

    #[inline]
    fn end_object(&mut self, object: OpenObject) -> Result<(), Stop> {
        self.doc.compact.push('}');
        if object.count > 1 && self.has_duplicate(object.mark) {
            return Err(Stop::Reordered);
        }
        self.keys.truncate(object.mark);
        self.doc.nodes[object.at].extra = object.count;
        self.close(object.at);
        Ok(())
    }
}

// Reads what only the repository has (docs: build.rs).
#[cfg(test)]
#[cfg(repository)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::js::scan::MAX_DEPTH;

    /// The tape's compact text and [`json`]'s, and the same refusals.
    fn agrees(text: &str) {
        // The fast reading alone refuses what the tree refuses, at the same byte, and gives
        // up on nothing else but an object JavaScript reorders.
        match (Reader::read(text), json::parse(text)) {
            (Err(Stop::Error(a)), Err(b)) => assert_eq!(a, b, "text {text:?}"),
            (Err(Stop::Error(a)), Ok(_)) => panic!("{text:?}: tape refused it: {a:?}"),
            (Ok(_), Err(b)) => panic!("{text:?}: tape accepted it, tree refused: {b:?}"),
            _ => {}
        }
        match (Doc::parse(text), json::parse(text)) {
            (Ok(doc), Ok(value)) => {
                assert_eq!(doc.root().compact(), value.compact(), "text {text:?}");
                assert_tree(doc.root(), &value);
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "text {text:?}"),
            (a, b) => panic!("{text:?}: tape {a:?}, tree {b:?}"),
        }
    }

    /// Every node reads as the tree's value does, and slices its own compact text.
    fn assert_tree(node: Node<'_>, value: &Value) {
        assert_eq!(node.compact(), value.compact());
        assert_eq!(node.is_truthy(), value.is_truthy());
        assert_eq!(node.as_str(), value.as_str());
        // `==`: a document read again from its compact text has `0` where the source had
        // `-0`, which `===` does not tell apart either.
        assert_eq!(node.as_f64(), value.as_f64());
        match value {
            Value::Array(items) => {
                let nodes: Vec<_> = node.items().unwrap().collect();
                assert_eq!(nodes.len(), items.len());
                for (node, item) in nodes.into_iter().zip(items) {
                    assert_tree(node, item);
                }
            }
            Value::Object(object) => {
                let members: Vec<_> = node.members().unwrap().collect();
                let ordered = object.ordered();
                assert_eq!(members.len(), ordered.len());
                for ((key, node), (k, v)) in members.into_iter().zip(ordered) {
                    assert_eq!(key, k);
                    assert_tree(node, v);
                    assert_eq!(
                        node.compact(),
                        Node::get(node_parent_of(node), key).unwrap().compact()
                    );
                }
            }
            _ => {
                assert!(node.items().is_none() && node.members().is_none());
            }
        }
    }

    /// The object holding the member value `node` (found by walking from the root).
    fn node_parent_of(node: Node<'_>) -> Node<'_> {
        let doc = node.doc;
        (0..node.at)
            .rev()
            .map(|at| Node { doc, at })
            .find(|candidate| {
                candidate
                    .members()
                    .is_some_and(|mut m| m.any(|(_, v)| v.at == node.at))
            })
            .expect("a member has a parent object")
    }

    #[test]
    fn the_json_vectors_read_as_javascript_has_them() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/vectors/json.json");
        let vectors: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for pair in vectors["pairs"].as_array().unwrap() {
            let input = pair[0].as_str().unwrap();
            let doc = Doc::parse(input).unwrap();
            assert_eq!(doc.root().compact(), pair[1].as_str().unwrap());
            agrees(input);
        }
    }

    #[test]
    fn javascript_order_and_normal_forms() {
        for text in [
            // Duplicates: first position, last value.
            r#"{"a":1,"b":2,"a":3}"#,
            r#"{"a":{"x":1},"b":[1,{"c":2,"c":[3]}],"a":4}"#,
            // Array-index keys first, ascending; in order already they stay on the fast path.
            r#"{"b":1,"2":2,"1":3,"01":4,"4294967295":5,"4294967294":6}"#,
            r#"{"1":1,"2":2,"x":3}"#,
            r#"{"2":1,"1":2}"#,
            r#"{"1":1,"1":2}"#,
            // Escapes that JavaScript does not write, and ones it does.
            r#"["\u0041\/\u00e9\ud83d\ude00", "a\"b\\c\n\u0001\u001f", "\u2028"]"#,
            r#"{"\u0061":1,"a":2}"#,
            r#"{"k\"ey":1,"k\u0022ey":2}"#,
            // Numbers as JavaScript writes them.
            "[0,-0,1.0,1e2,1E+2,-1.5e-7,123456789012345,1234567890123456,12345678901234567890]",
            "[1e400,-1e400,0.1,1e21,1e-7,5e-324,-0.0,100e-2]",
            // Whitespace, literals, nesting, empties.
            " \t\n\r{ \"a\" : [ true , false , null , { } , [ ] ] } \n",
            "\"just a string\"",
            "42",
            "[]",
            "{}",
        ] {
            agrees(text);
        }
    }

    #[test]
    fn refusals_are_json_parses_own() {
        for text in [
            "",
            "   ",
            "{",
            "[1,]",
            r#"{"a" 1}"#,
            r#"{"a":1,}"#,
            r"{a:1}",
            "[1 2]",
            "01",
            "-",
            "1.",
            "1e",
            "tru",
            "nul",
            r#""\ud800""#,
            r#""\udc00x""#,
            r#""\x""#,
            "\"a\u{1}b\"",
            "\"open",
            "[1] x",
            r#"{"a":1,"a":2,}"#,
            r#"{"2":1,"1":2"#,
        ] {
            agrees(text);
        }
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        agrees(&deep);
        let deepest = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        agrees(&deepest);
    }

    #[test]
    fn large_objects_find_their_duplicates_too() {
        let mut members: Vec<String> = (0..40).map(|i| format!(r#""k{i}":{i}"#)).collect();
        agrees(&format!("{{{}}}", members.join(",")));
        members.push(r#""k7":"again""#.to_owned());
        agrees(&format!("{{{}}}", members.join(",")));
    }

    #[test]
    fn values_hash_and_read_as_slices_of_the_compact_text() {
        let doc = Doc::parse(
            "{\n  \"run\": {\n    \"plan\": { \"id\": \"p\" },\n    \"n\": 1.50\n  }\n}",
        )
        .unwrap();
        let run = doc.root().get("run").unwrap();
        assert_eq!(run.compact(), r#"{"plan":{"id":"p"},"n":1.5}"#);
        let plan = run.get("plan").unwrap();
        assert_eq!(plan.sha256(), json::sha256_hex(br#"{"id":"p"}"#));
        assert_eq!(plan.get("id").and_then(Node::as_str), Some("p"));
        assert!(run.get("missing").is_none() && plan.get("id").unwrap().get("x").is_none());
        assert_eq!(run.get("n").and_then(Node::as_f64), Some(1.5));
        assert_eq!(run.to_value(), json::parse(run.compact()).unwrap());
        assert_eq!(doc.root().text(), "[object Object]");
    }

    /// JSON texts built from arbitrary values, pretty or compact, with keys that may repeat
    /// or look like array indices and strings that need escapes.
    fn json_text() -> impl Strategy<Value = String> {
        let key = prop_oneof![
            Just("a".to_owned()),
            Just("b".to_owned()),
            Just("0".to_owned()),
            Just("7".to_owned()),
            Just("10".to_owned()),
            Just("é\\n".to_owned()),
            "[a-z0-9]{1,3}",
        ];
        let leaf = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("false".to_owned()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<f64>()
                .prop_filter("finite", |n| n.is_finite())
                .prop_map(|n| format!("{n:e}")),
            "[ -~é\u{2028}]{0,6}".prop_map(|s| {
                let mut out = String::new();
                write_string(&mut out, &s);
                out
            }),
            Just(r#""\u0041\/\t""#.to_owned()),
        ];
        leaf.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6)
                    .prop_map(|items| format!("[{}]", items.join(" , "))),
                prop::collection::vec((key.clone(), inner), 0..6).prop_map(|members| {
                    let members: Vec<String> = members
                        .into_iter()
                        .map(|(k, v)| format!("\n  \"{k}\" :\t{v}"))
                        .collect();
                    format!("{{{}\n}}", members.join(","))
                }),
            ]
        })
    }

    proptest! {
        #[test]
        fn the_tape_is_the_tree_written_compact(text in json_text()) {
            agrees(&text);
        }

        #[test]
        fn a_cut_text_is_refused_as_the_tree_refuses_it(text in json_text(), cut in 0usize..200) {
            let mut cut = cut.min(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            agrees(&text[..cut]);
        }
    }
}
