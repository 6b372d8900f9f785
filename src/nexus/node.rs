//! JavaScript's view of the values of a run, as Nexus's reader has them: `value[key]`, `===`,
//! `JSON.stringify(a) === JSON.stringify(b)`, `String(value)`, the default sort's order, and
//! the walks over a validated run's records (its tasks, its plan's definitions, a task's
//! current attempt).
//!
//! Pure: no I/O, no cache. It knows the shape of a run only as far as these walks need.

use std::borrow::Cow;

use crate::error::Result;
use crate::js::json::Value;
use crate::js::tape::{Items, Node};
use crate::js::text::utf16_len;

use crate::nexus::refusal::malformed;

/// The task records of a validated run.
pub(super) fn tasks_of(run: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    field(Some(run), "tasks")
        .and_then(Node::items)
        .into_iter()
        .flatten()
}

/// The task definitions of a validated run's plan.
pub(super) fn plan_tasks(run: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    field(field(Some(run), "plan"), "tasks")
        .and_then(Node::items)
        .into_iter()
        .flatten()
}

/// The current (last) attempt of a task record.
pub(super) fn current_attempt(task: Node<'_>) -> Option<Node<'_>> {
    field(Some(task), "attempts")
        .and_then(Node::items)
        .and_then(Iterator::last)
}

/// `value[key]` in JavaScript: absent unless `value` is an object holding `key`.
pub(super) fn field<'d>(value: Option<Node<'d>>, key: &str) -> Option<Node<'d>> {
    value?.get(key)
}

/// The items of a JSON array that Nexus iterates; anything else fails as JavaScript would.
pub(super) fn list<'d>(value: Option<Node<'d>>, what: &str) -> Result<Items<'d>> {
    value
        .and_then(Node::items)
        .ok_or_else(|| malformed(&format!("{what} is not a list")))
}

/// `Object.keys(value)` as path values.
pub(super) fn object_keys(value: Option<Node<'_>>) -> Result<Vec<Value>> {
    let Some(value) = value.filter(|value| !value.is_null()) else {
        return Err(malformed("resourceHashes is missing"));
    };
    if let Some(members) = value.members() {
        return Ok(members.map(|(key, _)| Value::from(key)).collect());
    }
    let count = match (value.items(), value.as_str()) {
        (Some(items), _) => items.len(),
        (_, Some(s)) => utf16_len(s),
        // Numbers and booleans have no own keys.
        _ => 0,
    };
    Ok((0..count).map(|i| Value::String(i.to_string())).collect())
}

/// JavaScript's `===` between two values read from JSON (absent is `undefined`): objects and
/// arrays are never equal, being distinct objects.
pub(super) fn strict_eq(a: Option<Node<'_>>, b: Option<Node<'_>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            (a.is_null() && b.is_null())
                || a.as_bool().is_some_and(|a| b.as_bool() == Some(a))
                || a.as_f64().is_some_and(|a| b.as_f64() == Some(a))
                || a.as_str().is_some_and(|a| b.as_str() == Some(a))
        }
        _ => false,
    }
}

/// `value === text`.
pub(super) fn is_str(value: Option<Node<'_>>, text: &str) -> bool {
    value.and_then(Node::as_str) == Some(text)
}

/// `value === n`.
pub(super) fn is_number(value: Option<Node<'_>>, n: f64) -> bool {
    value.and_then(Node::as_f64) == Some(n)
}

/// `allowed.includes(value)`.
pub(super) fn is_one_of(value: Option<Node<'_>>, allowed: &[&str]) -> bool {
    value
        .and_then(Node::as_str)
        .is_some_and(|value| allowed.contains(&value))
}

/// `Number.isInteger(n)`.
pub(super) fn is_integer(n: f64) -> bool {
    n.is_finite() && n.trunc() == n
}

/// `JSON.stringify(a) === JSON.stringify(b)` (an absent value stringifies to nothing).
pub(super) fn same(a: Option<Node<'_>>, b: Option<Node<'_>>) -> bool {
    a.map(Node::compact) == b.map(Node::compact)
}

/// `JSON.stringify(value) === text`, `text` being the compact JSON of a snapshot.
pub(super) fn is_text(value: Option<Node<'_>>, text: &str) -> bool {
    value.map(Node::compact) == Some(text)
}

/// `String(value)` for a possibly absent value.
pub(super) fn js_text(value: Option<Node<'_>>) -> String {
    value.map_or_else(|| "undefined".to_owned(), Node::text)
}

/// `String(value)`, without copying a string.
pub(super) fn sort_text(value: &Value) -> Cow<'_, str> {
    match value {
        Value::String(s) => Cow::Borrowed(s),
        other => Cow::Owned(other.text()),
    }
}

/// `^[a-z0-9][a-z0-9_-]{0,63}$`, Nexus's rule for run and task ids.
pub(super) fn is_nexus_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    (1..=64).contains(&bytes.len())
        && matches!(bytes[0], b'a'..=b'z' | b'0'..=b'9')
        && bytes[1..]
            .iter()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-'))
}
/// `JSON.stringify(items.map(item => item.id))`: an item without an id gives `null`.
pub(super) fn ids(items: Items<'_>) -> String {
    let mut text = String::from("[");
    for (i, item) in items.enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(field(Some(item), "id").map_or("null", Node::compact));
    }
    text.push(']');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids() {
        for ok in ["a", "0", "run-1", "a_b", &"z".repeat(64)] {
            assert!(is_nexus_id(ok), "{ok}");
        }
        for bad in ["", "A", "-a", "_a", "a.b", "a b", "é", &"z".repeat(65)] {
            assert!(!is_nexus_id(bad), "{bad}");
        }
    }
}
