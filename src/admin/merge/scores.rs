//! The three-way merge of `pattern-scores.json`, pattern by pattern. No I/O.
//!
//! The document is one JSON object, pattern → score. Each pattern's state on a side is its
//! score's compact JSON text, or its absence; its **new records** on a side are the lines of the
//! reinforcement records (`.bmad/records/reinforcements.ndjson`) that side added since the base,
//! for that pattern:
//!
//! * the same state and the same new records on both sides → that state (unchanged, changed
//!   alike, deleted on both);
//! * one side as in the base, with no new record → the other side's state (a change, an addition
//!   or a deletion on one side wins);
//! * otherwise, when each side's state is what its new records replay to on top of the base
//!   (`records::replay_onto`) → the replay of both sides' new records together, in canonical
//!   order (time, then id), on top of the base: every update of both sides, each once, with the
//!   arithmetic `reinforce` runs. The result does not depend on which side is ours;
//! * otherwise (a side changed the score without a record — bmad-plus, a full records registry,
//!   a run killed between its two writes —, a side's records unreadable, or no records known) the
//!   states alone decide: one side as in the base → the other side's state; different states on
//!   both sides → a conflict for that pattern, which keeps ours' state.
//!
//! Patterns are written in the base's order, then the patterns the base lacks, by the time of
//! their merged `lastTs` (those without one last), then by name: the order depends on the three
//! documents only, so both merge directions write the same bytes. The text is the tool's own:
//! pretty JSON (two spaces) and `\n`.

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::actions::reinforce::records::{self, Record, canonical, replay_onto};
use crate::admin::merge::ndjson;
use crate::js::date;
use crate::js::json::{Object, Value};
use crate::messages;
use crate::store::layout::REINFORCEMENTS;

/// The reinforcement records of the three versions: each the registry's bytes (empty when the
/// version has none).
#[derive(Debug, Clone, Copy)]
pub struct Records<'a> {
    pub base: &'a [u8],
    pub ours: &'a [u8],
    pub theirs: &'a [u8],
}

/// The merged document and the patterns the sides changed differently.
#[derive(Debug, Clone)]
pub struct Merged {
    pub document: Object,
    pub conflicts: Vec<Conflict>,
    /// Why the records could not combine the patterns in conflict, one line each.
    pub reasons: Vec<String>,
}

/// One pattern changed differently on the two sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub pattern: String,
    /// The pattern's score on each side as compact JSON, `None` when the side deleted it.
    pub ours: Option<String>,
    pub theirs: Option<String>,
}

/// The records of one side that the base lacks, by pattern (canonical order), or why they cannot
/// be read.
#[derive(Debug, Default)]
struct Side {
    new: HashMap<String, Vec<Record>>,
    unreadable: Option<String>,
}

impl Side {
    fn read(base: &[u8], side: &[u8]) -> Self {
        let mut found = Self::default();
        for line in ndjson::added(base, side) {
            let parsed = std::str::from_utf8(line)
                .map_err(|_| "not UTF-8".to_owned())
                .and_then(records::parse);
            match parsed {
                Ok(record) => found
                    .new
                    .entry(record.pattern.clone())
                    .or_default()
                    .push(record),
                Err(why) => {
                    found.unreadable.get_or_insert(why);
                }
            }
        }
        for new in found.new.values_mut() {
            new.sort_by(canonical);
        }
        found
    }

    fn new_of(&self, pattern: &str) -> Vec<&Record> {
        self.new
            .get(pattern)
            .map(|new| new.iter().collect())
            .unwrap_or_default()
    }
}

/// What the records of the three versions tell.
struct History {
    base: HashMap<String, Vec<Record>>,
    ours: Side,
    theirs: Side,
}

impl History {
    fn read(records: &Records) -> Self {
        let text = String::from_utf8_lossy(records.base);
        let base = records::by_pattern(text.split('\n').enumerate()).patterns;
        Self {
            base,
            ours: Side::read(records.base, records.ours),
            theirs: Side::read(records.base, records.theirs),
        }
    }

    /// Both sides' updates of `pattern` replayed onto the base's score, when each side's score
    /// is what its own new records replay to; else the sides (`ours`, `theirs`) whose score is not.
    fn replay(
        &self,
        pattern: &str,
        base: Option<&Value>,
        ours: Option<&String>,
        theirs: Option<&String>,
    ) -> Result<Option<Value>, Vec<&'static str>> {
        let base_records: Vec<&Record> = self
            .base
            .get(pattern)
            .map(|r| r.iter().collect())
            .unwrap_or_default();
        let mut unexplained = Vec::new();
        for (name, side, state) in [("ours", &self.ours, ours), ("theirs", &self.theirs, theirs)] {
            let replayed = replay_onto(base, &base_records, &side.new_of(pattern));
            if side.unreadable.is_some()
                || state.map(String::as_str) != replayed.as_ref().map(Value::compact).as_deref()
            {
                unexplained.push(name);
            }
        }
        if !unexplained.is_empty() {
            return Err(unexplained);
        }
        let mut all: Vec<&Record> = self.ours.new_of(pattern);
        for record in self.theirs.new_of(pattern) {
            if !all.contains(&record) {
                all.push(record);
            }
        }
        all.sort_by(|a, b| canonical(a, b));
        Ok(replay_onto(base, &base_records, &all))
    }
}

/// Merges two descendants of `base`; `records` are the reinforcement records of the three
/// versions, or why they could not be found.
#[must_use]
pub fn merge(
    base: &Object,
    ours: &Object,
    theirs: &Object,
    records: Result<&Records, &str>,
) -> Merged {
    let (history, unavailable) = match records {
        Ok(records) => (Some(History::read(records)), None),
        Err(why) => (None, Some(why)),
    };
    let state = |doc: &Object, key: &str| doc.get(key).map(Value::compact);
    let mut keys: Vec<&String> = base.iter().map(|(k, _)| k).collect();
    let mut added: Vec<&String> = Vec::new();
    for (key, _) in ours.iter().chain(theirs.iter()) {
        if !base.contains_key(key) && !added.contains(&key) {
            added.push(key);
        }
    }
    let mut values: HashMap<&str, Option<Value>> = HashMap::new();
    let mut conflicts = Vec::new();
    let mut reasons = Vec::new();
    for key in keys.iter().chain(added.iter()).copied() {
        let (b, o, t) = (state(base, key), state(ours, key), state(theirs, key));
        let value = match decide(history.as_ref(), key, base.get(key), [&b, &o, &t]) {
            Decision::Ours => ours.get(key).cloned(),
            Decision::Theirs => theirs.get(key).cloned(),
            Decision::Replayed(value) => value,
            Decision::Conflict(unrecorded) => {
                reasons.extend(
                    unrecorded
                        .into_iter()
                        .map(|side| messages::merge_pattern_unrecorded(key, side, REINFORCEMENTS)),
                );
                conflicts.push(Conflict {
                    pattern: key.clone(),
                    ours: o,
                    theirs: t,
                });
                ours.get(key).cloned()
            }
        };
        values.insert(key, value);
    }
    if !conflicts.is_empty() {
        if let Some(why) = unavailable {
            reasons.insert(0, messages::merge_records_unavailable(why));
        }
        if let Some(h) = &history {
            for (side, found) in [("ours", &h.ours), ("theirs", &h.theirs)] {
                if let Some(why) = &found.unreadable {
                    reasons.push(messages::merge_records_unreadable(
                        side,
                        REINFORCEMENTS,
                        why,
                    ));
                }
            }
        }
    }
    added.sort_by(|a, b| {
        added_order(
            a,
            values[a.as_str()].as_ref(),
            b,
            values[b.as_str()].as_ref(),
        )
    });
    keys.extend(added);
    let mut document = Object::new();
    for key in keys {
        if let Some(Some(value)) = values.remove(key.as_str()) {
            document.insert(key.clone(), value);
        }
    }
    Merged {
        document,
        conflicts,
        reasons,
    }
}

/// What the merge keeps of one pattern.
enum Decision {
    Ours,
    Theirs,
    /// Both sides' updates, replayed together.
    Replayed(Option<Value>),
    /// Changed differently on both sides; the sides whose change has no record (readable
    /// records, but not what they replay to).
    Conflict(Vec<&'static str>),
}

/// The rules of the module's documentation, for the pattern `key` whose states (compact JSON)
/// are `[base, ours, theirs]`.
fn decide(
    history: Option<&History>,
    key: &str,
    base: Option<&Value>,
    [b, o, t]: [&Option<String>; 3],
) -> Decision {
    let news =
        |side: fn(&History) -> &Side| history.map(|h| side(h).new_of(key)).unwrap_or_default();
    let (ours_new, theirs_new) = (news(|h| &h.ours), news(|h| &h.theirs));
    if (o == t && ours_new == theirs_new) || (t == b && theirs_new.is_empty()) {
        return Decision::Ours;
    }
    if o == b && ours_new.is_empty() {
        return Decision::Theirs;
    }
    let unexplained = match history.map(|h| h.replay(key, base, o.as_ref(), t.as_ref())) {
        Some(Ok(value)) => return Decision::Replayed(value),
        Some(Err(sides)) => sides,
        None => Vec::new(),
    };
    if o == t || t == b {
        Decision::Ours
    } else if o == b {
        Decision::Theirs
    } else {
        let h = history;
        Decision::Conflict(
            unexplained
                .into_iter()
                .filter(|side| {
                    h.is_some_and(|h| {
                        let found = if *side == "ours" { &h.ours } else { &h.theirs };
                        found.unreadable.is_none()
                    })
                })
                .collect(),
        )
    }
}

/// The order of patterns the base lacks: by `lastTs` (known times first), then by name.
fn added_order(a: &str, a_value: Option<&Value>, b: &str, b_value: Option<&Value>) -> Ordering {
    let time = |v: Option<&Value>| match v.and_then(Value::as_object).and_then(|o| o.get("lastTs"))
    {
        Some(Value::String(ts)) => date::parse_timestamp(ts),
        Some(Value::Number(ms)) if ms.is_finite() => Some(*ms),
        _ => None,
    };
    match (time(a_value), time(b_value)) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
    .then_with(|| a.cmp(b))
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

    /// No records known: the merge of the states alone.
    fn none() -> Result<&'static Records<'static>, &'static str> {
        Err("none")
    }

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
        let merged = merge(&d, &d, &d, none());
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
            let merged = merge(&base, one, other, none());
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
        let merged = merge(&base, &ours, &theirs, none());
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
        let merged = merge(&base, &deleted, &theirs, none());
        assert_eq!(merged.conflicts.len(), 1);
        assert_eq!(merged.conflicts[0].ours, None);
    }

    /// A clone: its scores and its records, as `reinforce` leaves them.
    #[derive(Clone)]
    struct Clone_ {
        scores: Object,
        records: String,
    }

    impl Clone_ {
        /// A clone that reinforced `p` once, recorded: the base of the scenarios.
        fn base() -> Self {
            let mut base = Self {
                scores: Object::new(),
                records: String::new(),
            };
            base.reinforce("p", 1.0, &at(1, 0), true);
            base
        }

        /// One `reinforce` of `pattern` with `reward` at `at`; `recorded` false writes the score
        /// alone, as bmad-plus does.
        fn reinforce(&mut self, pattern: &str, reward: f64, at: &str, recorded: bool) {
            let now = crate::context::Now::parse(at).unwrap();
            let before = self.scores.get(pattern).and_then(Value::as_object).cloned();
            let next = crate::actions::reinforce::score::Score::from_previous(before.as_ref())
                .update(reward, &now);
            if recorded {
                self.records.push_str(&records::line(
                    pattern,
                    reward,
                    &crate::actions::signals::Signals::default(),
                    &[],
                    before.as_ref(),
                    &next,
                    &now,
                ));
                self.records.push('\n');
            }
            self.scores.insert(pattern.to_owned(), next.to_object());
        }
    }

    /// Merges `ours` into `theirs` from `base`, with their records.
    fn merge_clones(base: &Clone_, ours: &Clone_, theirs: &Clone_) -> Merged {
        merge(
            &base.scores,
            &ours.scores,
            &theirs.scores,
            Ok(&Records {
                base: base.records.as_bytes(),
                ours: ours.records.as_bytes(),
                theirs: theirs.records.as_bytes(),
            }),
        )
    }

    fn at(day: u32, minute: u32) -> String {
        format!(
            "2026-10-{day:02}T{:02}:{:02}:00.000Z",
            9 + minute / 60,
            minute % 60
        )
    }

    fn updates(doc: &Object, pattern: &str) -> f64 {
        doc.get(pattern)
            .and_then(Value::as_object)
            .and_then(|o| o.get("updates"))
            .and_then(Value::as_f64)
            .unwrap()
    }

    #[test]
    fn a_pattern_reinforced_on_both_sides_replays_every_update_once_either_way() {
        let mut base = Clone_::base();
        base.reinforce("q", 1.0, &at(1, 1), true);
        let (mut a, mut b) = (base.clone(), base.clone());
        for i in 0..5 {
            a.reinforce("p", 1.0, &at(2, i * 2), true);
            b.reinforce("p", 0.0, &at(2, i * 2 + 1), true);
        }
        b.reinforce("new", 0.5, &at(3, 0), true);
        a.reinforce("other-new", 0.5, &at(3, 1), true);
        let one = merge_clones(&base, &a, &b);
        let other = merge_clones(&base, &b, &a);
        assert!(one.conflicts.is_empty() && other.conflicts.is_empty());
        assert_eq!(text(&one.document), text(&other.document));
        assert_eq!(updates(&one.document, "p"), 11.0);
        assert_eq!(updates(&one.document, "q"), 1.0);
        // The merged score is the one a single clone making all ten updates in time order
        // would have.
        let mut single = base.clone();
        for i in 0..5 {
            single.reinforce("p", 1.0, &at(2, i * 2), true);
            single.reinforce("p", 0.0, &at(2, i * 2 + 1), true);
        }
        assert_eq!(
            one.document.get("p").unwrap().compact(),
            single.scores.get("p").unwrap().compact()
        );
        let keys: Vec<&str> = one.document.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["p", "q", "new", "other-new"]);
        // Without the records, the same merge is today's conflict.
        assert_eq!(
            merge(&base.scores, &a.scores, &b.scores, none())
                .conflicts
                .len(),
            1
        );
    }

    #[test]
    fn a_change_without_a_record_stays_a_conflict_that_says_so() {
        let base = Clone_::base();
        let (mut a, mut b) = (base.clone(), base.clone());
        a.reinforce("p", 1.0, &at(2, 0), true);
        // bmad-plus, or a full registry: the score moves, no record.
        b.reinforce("p", 0.0, &at(2, 1), false);
        b.reinforce("q", 0.0, &at(2, 2), false);
        let merged = merge_clones(&base, &a, &b);
        assert_eq!(merged.conflicts.len(), 1);
        assert_eq!(merged.conflicts[0].pattern, "p");
        assert_eq!(
            merged.document.get("p").unwrap().compact(),
            a.scores.get("p").unwrap().compact()
        );
        // A pattern one side changed, even without a record, is that side's.
        assert!(merged.document.contains_key("q"));
        assert_eq!(merged.reasons.len(), 1);
        assert!(merged.reasons[0].contains("theirs' score is not what theirs' records"));
        assert!(merged.reasons[0].contains(REINFORCEMENTS));
    }

    #[test]
    fn unreadable_records_on_a_side_leave_a_conflict_naming_the_file() {
        let base = Clone_::base();
        let (mut a, mut b) = (base.clone(), base.clone());
        a.reinforce("p", 1.0, &at(2, 0), true);
        b.reinforce("p", 0.0, &at(2, 1), true);
        // A torn last line: a record cut short by a crash, committed as it was.
        let cut = b.records.len() - 40;
        b.records.truncate(cut);
        for (ours, theirs, side) in [(&a, &b, "theirs"), (&b, &a, "ours")] {
            let merged = merge_clones(&base, ours, theirs);
            assert_eq!(merged.conflicts.len(), 1);
            assert_eq!(merged.reasons.len(), 1, "{:?}", merged.reasons);
            assert!(
                merged.reasons[0].contains(&format!(
                    "{REINFORCEMENTS} of {side} holds a line that is not a reinforcement record"
                )),
                "{}",
                merged.reasons[0]
            );
        }
    }

    #[test]
    fn records_not_found_are_said_once() {
        let base = doc(&format!(
            r#"{{"p":{}}}"#,
            score(1, "2026-01-01T00:00:00.000Z")
        ));
        let ours = doc(&format!(
            r#"{{"p":{}}}"#,
            score(2, "2026-01-02T00:00:00.000Z")
        ));
        let theirs = doc(&format!(
            r#"{{"p":{}}}"#,
            score(3, "2026-01-03T00:00:00.000Z")
        ));
        let merged = merge(&base, &ours, &theirs, Err("no commit"));
        assert_eq!(merged.conflicts.len(), 1);
        assert_eq!(merged.reasons.len(), 1);
        assert!(merged.reasons[0].contains("(no commit)"));
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
            let one = merge(&b, &o, &t, none());
            let other = merge(&b, &t, &o, none());
            proptest::prop_assert_eq!(one.conflicts.len(), other.conflicts.len());
            if one.conflicts.is_empty() {
                proptest::prop_assert_eq!(text(&one.document), text(&other.document));
            }
            proptest::prop_assert_eq!(text(&merge(&o, &o, &o, none()).document), text(&o));
        }

        /// Two clones reinforce a few patterns from a common base, each update recorded: the
        /// merge is clean, the same in both directions, and counts every update once.
        #[test]
        fn recorded_updates_merge_the_same_both_ways_and_lose_nothing(
            base_steps in proptest::collection::vec((0u8..3, 0u8..=4), 0..5),
            ours_steps in proptest::collection::vec((0u8..3, 0u8..=4), 0..8),
            theirs_steps in proptest::collection::vec((0u8..3, 0u8..=4), 0..8),
        ) {
            let mut base = Clone_ { scores: Object::new(), records: String::new() };
            for (i, (p, r)) in base_steps.iter().enumerate() {
                base.reinforce(&format!("p{p}"), f64::from(*r) / 4.0, &at(1, u32::try_from(i).unwrap()), true);
            }
            let side = |steps: &[(u8, u8)], offset: u32| {
                let mut clone = base.clone();
                for (i, (p, r)) in steps.iter().enumerate() {
                    let minute = u32::try_from(i).unwrap() * 3 + offset;
                    clone.reinforce(&format!("p{p}"), f64::from(*r) / 4.0, &at(2, minute), true);
                }
                clone
            };
            let (a, b) = (side(&ours_steps, 0), side(&theirs_steps, 1));
            let one = merge_clones(&base, &a, &b);
            let other = merge_clones(&base, &b, &a);
            proptest::prop_assert!(one.conflicts.is_empty(), "{:?}", one.conflicts);
            proptest::prop_assert!(other.conflicts.is_empty());
            proptest::prop_assert_eq!(text(&one.document), text(&other.document));
            for p in 0..3u8 {
                let count = |steps: &[(u8, u8)]| steps.iter().filter(|(q, _)| *q == p).count();
                let want = count(&base_steps) + count(&ours_steps) + count(&theirs_steps);
                let key = format!("p{p}");
                #[expect(clippy::cast_precision_loss, reason = "small counts")]
                let want = want as f64;
                let got = if one.document.contains_key(&key) { updates(&one.document, &key) } else { 0.0 };
                proptest::prop_assert_eq!(got, want);
            }
        }
    }
}
