//! The three-way merge of `pattern-scores.json`, pattern by pattern. No I/O.
//!
//! The document is one JSON object, pattern → score. Each pattern's state on a side is its
//! score's compact JSON text, or its absence:
//!
//! * the same state on both sides → that state (unchanged, changed alike, deleted on both);
//! * one side as in the base → the other side's state (a change, an addition or a deletion on
//!   one side wins);
//! * different states on the two sides, neither as in the base → a conflict for that pattern:
//!   a score folds in signals the other side never saw, so no rule can combine the two. The
//!   result keeps ours' state for it.
//!
//! Patterns are written in the base's order, then the patterns the base lacks, by the time of
//! their `lastTs` (those without one last), then by name: the order depends on the three
//! documents only, so both merge directions write the same bytes. The text is the tool's own:
//! pretty JSON (two spaces) and `\n`.

use std::cmp::Ordering;

use crate::js::date;
use crate::js::json::{Object, Value};

/// The merged document and the patterns the sides changed differently.
#[derive(Debug, Clone)]
pub struct Merged {
    pub document: Object,
    pub conflicts: Vec<Conflict>,
}

/// One pattern changed differently on the two sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub pattern: String,
    /// The pattern's score on each side as compact JSON, `None` when the side deleted it.
    pub ours: Option<String>,
    pub theirs: Option<String>,
}

/// Merges two descendants of `base`.
#[must_use]
pub fn merge(base: &Object, ours: &Object, theirs: &Object) -> Merged {
    let state = |doc: &Object, key: &str| doc.get(key).map(Value::compact);
    let mut keys: Vec<&String> = base.iter().map(|(k, _)| k).collect();
    let mut added: Vec<(&String, &Value)> = Vec::new();
    for (key, value) in ours.iter().chain(theirs.iter()) {
        if !base.contains_key(key) && !added.iter().any(|(k, _)| *k == key) {
            added.push((key, value));
        }
    }
    added.sort_by(added_order);
    keys.extend(added.into_iter().map(|(k, _)| k));

    let mut document = Object::new();
    let mut conflicts = Vec::new();
    for key in keys {
        let (b, o, t) = (state(base, key), state(ours, key), state(theirs, key));
        let winner = if o == t || t == b {
            ours
        } else if o == b {
            theirs
        } else {
            conflicts.push(Conflict {
                pattern: key.clone(),
                ours: o,
                theirs: t,
            });
            ours
        };
        if let Some(value) = winner.get(key) {
            document.insert(key.clone(), value.clone());
        }
    }
    Merged {
        document,
        conflicts,
    }
}

/// The order of patterns the base lacks: by `lastTs` (known times first), then by name.
fn added_order(a: &(&String, &Value), b: &(&String, &Value)) -> Ordering {
    let time = |v: &Value| match v.as_object().and_then(|o| o.get("lastTs")) {
        Some(Value::String(ts)) => date::parse_timestamp(ts),
        Some(Value::Number(ms)) if ms.is_finite() => Some(*ms),
        _ => None,
    };
    match (time(a.1), time(b.1)) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
    .then_with(|| a.0.cmp(b.0))
}

/// The document as the tool writes it: pretty JSON and `\n`.
#[must_use]
pub fn text(document: &Object) -> String {
    let mut text = Value::Object(document.clone()).pretty();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::parse;

    fn doc(text: &str) -> Object {
        parse(text).unwrap().as_object().unwrap().clone()
    }

    fn score(elo: u32, ts: &str) -> String {
        format!(
            r#"{{"elo":{elo},"alpha":2,"beta":1,"mean":0.6666666666666666,"updates":1,"lastTs":"{ts}"}}"#
        )
    }

    #[test]
    fn a_document_merged_with_itself_is_written_back_byte_for_byte() {
        let written = format!(
            // An index-like name comes first, as JavaScript writes it.
            "{{\n  \"42\": {},\n  \"z\": {},\n  \"a\": {}\n}}\n",
            "{\n    \"elo\": 1184,\n    \"alpha\": 1,\n    \"beta\": 2,\n    \"mean\": 0.3333333333333333,\n    \"updates\": 1,\n    \"lastTs\": \"2026-10-18T09:30:00.000Z\"\n  }",
            "{\n    \"elo\": 1216,\n    \"alpha\": 2,\n    \"beta\": 1,\n    \"mean\": 0.6666666666666666,\n    \"updates\": 1,\n    \"lastTs\": \"2026-10-18T09:30:00.000Z\"\n  }",
            "{\n    \"elo\": 1200,\n    \"alpha\": 1.5,\n    \"beta\": 1.5,\n    \"mean\": 0.5,\n    \"updates\": 1,\n    \"lastTs\": null\n  }",
        );
        let d = doc(&written);
        let merged = merge(&d, &d, &d);
        assert!(merged.conflicts.is_empty());
        assert_eq!(text(&merged.document), written);
    }

    #[test]
    fn one_sided_changes_win_and_additions_are_ordered_by_time_then_name() {
        let base = doc(&format!(
            r#"{{"p":{},"q":{},"r":{}}}"#,
            score(1, "2026-01-01T00:00:00.000Z"),
            score(2, "2026-01-01T00:00:00.000Z"),
            score(3, "2026-01-01T00:00:00.000Z"),
        ));
        let ours = doc(&format!(
            r#"{{"p":{},"q":{},"r":{},"new-late":{},"b":{}}}"#,
            score(10, "2026-02-01T00:00:00.000Z"),
            score(2, "2026-01-01T00:00:00.000Z"),
            score(3, "2026-01-01T00:00:00.000Z"),
            score(5, "2026-03-01T00:00:00.000Z"),
            score(6, "2026-02-01T00:00:00.000Z"),
        ));
        let theirs = doc(&format!(
            r#"{{"p":{},"r":{},"a":{}}}"#,
            score(1, "2026-01-01T00:00:00.000Z"),
            score(30, "2026-02-01T00:00:00.000Z"),
            score(7, "2026-02-01T00:00:00.000Z"),
        ));
        let expected = doc(&format!(
            r#"{{"p":{},"r":{},"a":{},"b":{},"new-late":{}}}"#,
            score(10, "2026-02-01T00:00:00.000Z"),
            score(30, "2026-02-01T00:00:00.000Z"),
            score(7, "2026-02-01T00:00:00.000Z"),
            score(6, "2026-02-01T00:00:00.000Z"),
            score(5, "2026-03-01T00:00:00.000Z"),
        ));
        for (one, other) in [(&ours, &theirs), (&theirs, &ours)] {
            let merged = merge(&base, one, other);
            assert!(merged.conflicts.is_empty());
            assert_eq!(text(&merged.document), text(&expected));
        }
    }

    #[test]
    fn a_pattern_changed_differently_on_both_sides_is_a_conflict_that_keeps_ours() {
        let base = doc(&format!(
            r#"{{"p":{},"q":{}}}"#,
            score(1, "2026-01-01T00:00:00.000Z"),
            score(2, "2026-01-01T00:00:00.000Z")
        ));
        let ours = doc(&format!(
            r#"{{"p":{},"q":{}}}"#,
            score(11, "2026-02-01T00:00:00.000Z"),
            score(2, "2026-01-01T00:00:00.000Z")
        ));
        let theirs = doc(&format!(
            r#"{{"p":{},"q":{}}}"#,
            score(12, "2026-02-02T00:00:00.000Z"),
            score(22, "2026-02-02T00:00:00.000Z")
        ));
        let merged = merge(&base, &ours, &theirs);
        assert_eq!(
            merged.conflicts,
            [Conflict {
                pattern: "p".into(),
                ours: Some(score(11, "2026-02-01T00:00:00.000Z")),
                theirs: Some(score(12, "2026-02-02T00:00:00.000Z")),
            }]
        );
        assert_eq!(
            Value::Object(merged.document).compact(),
            format!(
                r#"{{"p":{},"q":{}}}"#,
                score(11, "2026-02-01T00:00:00.000Z"),
                score(22, "2026-02-02T00:00:00.000Z")
            )
        );
        // Deleted on one side, changed on the other: a conflict too.
        let deleted = doc(&format!(
            r#"{{"q":{}}}"#,
            score(2, "2026-01-01T00:00:00.000Z")
        ));
        let merged = merge(&base, &deleted, &theirs);
        assert_eq!(merged.conflicts.len(), 1);
        assert_eq!(merged.conflicts[0].ours, None);
    }

    proptest::proptest! {
        #[test]
        fn symmetric_and_idempotent(
            base in proptest::collection::vec((0u8..6, 0u32..3), 0..6),
            ours in proptest::collection::vec((0u8..6, 0u32..3), 0..6),
            theirs in proptest::collection::vec((0u8..6, 0u32..3), 0..6),
        ) {
            let build = |entries: &[(u8, u32)]| {
                let mut o = Object::new();
                for (k, elo) in entries {
                    o.insert(format!("p{k}"), parse(&score(*elo, &format!("2026-01-0{}T00:00:00.000Z", elo + 1))).unwrap());
                }
                o
            };
            let (b, o, t) = (build(&base), build(&ours), build(&theirs));
            let one = merge(&b, &o, &t);
            let other = merge(&b, &t, &o);
            proptest::prop_assert_eq!(one.conflicts.len(), other.conflicts.len());
            if one.conflicts.is_empty() {
                proptest::prop_assert_eq!(text(&one.document), text(&other.document));
            }
            proptest::prop_assert_eq!(text(&merge(&o, &o, &o).document), text(&o));
        }
    }
}
