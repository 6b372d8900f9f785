//! The reinforcement records: one line in `.bmad/records/reinforcements.ndjson` for every
//! `reinforce`, and what the records say a pattern's score is (docs/FORMAT.md, "The
//! reinforcement records"; docs/MERGE.md, "`pattern-scores.json`"). Pure: no I/O.
//!
//! A record is `{"ts","id","pattern","reward","signals","evidence"?,"before","after"}`: the
//! instant of the update (`reinforce`'s clock, `toISOString` form), a unique id, the pattern, the
//! reward folded in, the signals as given, the pattern's stored score before the update (`null`
//! when it had none) and after it. A score is a function of its records: starting from the
//! `before` of a pattern's first record, each record in **canonical order** — by the time of
//! `ts`, then by the number of updates its `before` counts (so that one clone's updates within
//! one millisecond keep their order), then by `id` — is folded in with
//! [`Score::update`], the arithmetic `reinforce` itself runs. [`replay`] is that fold; the merge
//! driver replays both sides' new records onto the merge base's score ([`replay_onto`]), `doctor`
//! compares every pattern's score with its records ([`agreement`]) and rebuilds it from them,
//! and `archive` keeps, of each pattern, enough records for the replay to stay the same
//! ([`keep_replayable`]).

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::actions::reinforce::score::Score;
use crate::actions::signals::Signals;
use crate::context::Now;
use crate::js::date;
use crate::js::json::{self, Object, Value, sha256_hex};
use crate::js::text::trim;

/// One reinforcement, as read back.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Record {
    /// The instant, as written (`toISOString` form).
    pub ts: String,
    /// The instant in epoch milliseconds.
    pub ms: f64,
    pub id: String,
    pub pattern: String,
    pub reward: f64,
    /// The stored score before the update; `None` for `null` (no score yet).
    pub before: Option<Object>,
    pub after: Object,
    /// How many updates `before` counts (0 for none): orders one clone's records that share a
    /// millisecond.
    pub updates_before: f64,
}

/// The line `reinforce` appends for one update (without its `\n`): compact JSON, keys `ts, id,
/// pattern, reward, signals, evidence` (only when some was given), `before, after`. The id is
/// the first 12 hex digits of a SHA-256 over the instant, the pattern and a random token, so
/// that two clones updating one pattern at the same millisecond never write one id.
#[must_use]
pub(crate) fn line(
    pattern: &str,
    reward: f64,
    signals: &Signals,
    evidence: &[String],
    before: Option<&Object>,
    after: &Score,
    now: &Now,
) -> String {
    let token = uuid::Uuid::new_v4();
    let id =
        sha256_hex(format!("{}\u{0}{pattern}\u{0}{token}", now.iso).as_bytes())[..12].to_owned();
    let mut record = Object::new()
        .with("ts", now.iso.as_str())
        .with("id", id)
        .with("pattern", pattern)
        .with("reward", reward)
        .with("signals", signals.to_object_with_eval_key("eval"));
    if !evidence.is_empty() {
        record.insert(
            "evidence",
            evidence.iter().map(Value::from).collect::<Vec<_>>(),
        );
    }
    Value::Object(
        record
            .with("before", before.cloned())
            .with("after", after.to_object()),
    )
    .compact()
}

/// Reads one line as a record. Only what the replay needs is checked: a JSON object whose `ts`
/// is an instant in `toISOString` form (so that the replayed `lastTs` is the text written),
/// `id` and `pattern` text, `reward` a number in [0, 1], `before` an object or `null`, `after`
/// an object.
///
/// # Errors
/// What is wrong with the line, in words.
pub(crate) fn parse(line: &str) -> Result<Record, String> {
    let value = json::parse(trim(line)).map_err(|e| format!("not JSON ({e})"))?;
    let Value::Object(object) = value else {
        return Err("not a JSON object".to_owned());
    };
    let text = |key: &str| match object.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        _ => Err(format!("no `{key}` text")),
    };
    let ts = text("ts")?;
    let ms = date::parse_timestamp(&ts)
        .filter(|ms| date::to_iso_string(*ms) == ts)
        .ok_or_else(|| format!("`ts` {ts:?} is not an instant in toISOString form"))?;
    let id = text("id")?;
    let pattern = text("pattern")?;
    let reward = object
        .get("reward")
        .and_then(Value::as_f64)
        .filter(|r| (0.0..=1.0).contains(r))
        .ok_or_else(|| "`reward` is not a number in [0, 1]".to_owned())?;
    let before = match object.get("before") {
        Some(Value::Null) => None,
        Some(Value::Object(o)) => Some(o.clone()),
        _ => return Err("`before` is neither an object nor null".to_owned()),
    };
    let after = object
        .get("after")
        .and_then(Value::as_object)
        .cloned()
        .ok_or_else(|| "`after` is not an object".to_owned())?;
    let updates_before = Score::from_previous(before.as_ref()).updates;
    Ok(Record {
        ts,
        ms,
        id,
        pattern,
        reward,
        before,
        after,
        updates_before,
    })
}

/// The canonical order: by time, then by the updates `before` counts, then by id. A clone's
/// own records come in the order it made them (times never go back; within one millisecond —
/// a pinned `BMAD_MEM_NOW` — each starts from one more update), and the order of two clones'
/// records depends on the records alone, never on which side is ours.
#[must_use]
pub(crate) fn canonical(a: &Record, b: &Record) -> Ordering {
    a.ms.total_cmp(&b.ms)
        .then_with(|| a.updates_before.total_cmp(&b.updates_before))
        .then_with(|| a.id.cmp(&b.id))
}

/// The score `record` makes of `state`: exactly what `reinforce` stores.
#[must_use]
pub(crate) fn apply(state: Option<&Object>, record: &Record) -> Object {
    let now = Now {
        ms: record.ms,
        iso: record.ts.clone(),
    };
    Score::from_previous(state)
        .update(record.reward, &now)
        .to_object()
}

/// `anchor` with `records` folded in, in the order given.
#[must_use]
pub(crate) fn replay<'a>(
    anchor: Option<Object>,
    records: impl IntoIterator<Item = &'a Record>,
) -> Option<Object> {
    records
        .into_iter()
        .fold(anchor, |state, record| Some(apply(state.as_ref(), record)))
}

/// The score of a pattern after the records `new` (canonical order), made on top of a version
/// whose score is `base_state` and whose records of that pattern are `base` (canonical order).
///
/// When every new record comes after the base's records, they are folded into the base's score.
/// A new record older than some of the base's (a rebase replays commits made before upstream's)
/// rewinds: the fold starts from the `before` of the first base record that comes after it, and
/// takes those base records again, in canonical order with the new ones. No new record leaves
/// the base's score as it is.
#[must_use]
pub(crate) fn replay_onto(
    base_state: Option<&Value>,
    base: &[&Record],
    new: &[&Record],
) -> Option<Value> {
    let Some(first) = new.first() else {
        return base_state.cloned();
    };
    let later: Vec<&Record> = base
        .iter()
        .copied()
        .filter(|r| canonical(r, first).is_gt())
        .collect();
    let anchor = match later.first() {
        Some(rewind) => rewind.before.clone(),
        None => base_state.and_then(Value::as_object).cloned(),
    };
    let mut all: Vec<&Record> = later.into_iter().chain(new.iter().copied()).collect();
    all.sort_by(|a, b| canonical(a, b));
    replay(anchor, all).map(Value::Object)
}

/// A registry's records grouped by pattern, each group in canonical order, with the lines that
/// are not records (1-based line numbers and why).
#[derive(Debug, Default)]
pub(crate) struct ByPattern {
    pub patterns: HashMap<String, Vec<Record>>,
    /// Patterns in the order of their first line.
    pub order: Vec<String>,
    pub invalid: Vec<(usize, String)>,
}

/// Reads the lines of a registry's text (blank lines skipped).
#[must_use]
pub(crate) fn by_pattern<'a>(lines: impl IntoIterator<Item = (usize, &'a str)>) -> ByPattern {
    let mut found = ByPattern::default();
    for (number, line) in lines {
        if trim(line).is_empty() {
            continue;
        }
        match parse(line) {
            Ok(record) => {
                if !found.patterns.contains_key(&record.pattern) {
                    found.order.push(record.pattern.clone());
                }
                found
                    .patterns
                    .entry(record.pattern.clone())
                    .or_default()
                    .push(record);
            }
            Err(why) => found.invalid.push((number, why)),
        }
    }
    for records in found.patterns.values_mut() {
        records.sort_by(canonical);
    }
    found
}

/// What the records of a pattern say of its stored score.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Agreement {
    /// The score is what the records replay to, or what the last of them left.
    Agrees,
    /// The records replay to a score, the file has none for the pattern.
    Missing,
    /// The score counts fewer updates than its records: updates were lost (a merge resolved
    /// by hand, an edit); the records replay them.
    Behind { stored: f64, recorded: f64 },
    /// Updates were made after the last record without a record of their own.
    Ahead { stored: f64, recorded: f64 },
    /// The same number of updates, another score.
    Differs,
}

impl Agreement {
    /// Whether the score should be rebuilt from the records (`doctor --rebuild-scores`).
    #[must_use]
    pub(crate) fn is_rebuilt(&self) -> bool {
        matches!(self, Self::Missing | Self::Behind { .. } | Self::Differs)
    }
}

/// A pattern's score compared with its records (canonical order, at least one).
#[must_use]
pub(crate) fn agreement(stored: Option<&Value>, records: &[Record]) -> (Agreement, Object) {
    let anchor = records.first().and_then(|r| r.before.clone());
    let replayed = replay(anchor, records).unwrap_or_default();
    let Some(stored) = stored else {
        return (Agreement::Missing, replayed);
    };
    let replayed_value = Value::Object(replayed.clone());
    if stored.compact() == replayed_value.compact() {
        return (Agreement::Agrees, replayed);
    }
    let updates = |v: &Value| Score::from_previous(v.as_object()).updates;
    let (stored_n, recorded_n) = (updates(stored), updates(&replayed_value));
    let last = records.last().map(|r| Value::Object(r.after.clone()));
    let kind = if stored_n < recorded_n {
        Agreement::Behind {
            stored: stored_n,
            recorded: recorded_n,
        }
    } else if last.is_some_and(|last| last.compact() == stored.compact()) {
        // The last record was made on top of this very score: whatever it holds that the
        // records do not came before it, and the records have been in step since.
        Agreement::Agrees
    } else if stored_n > recorded_n {
        Agreement::Ahead {
            stored: stored_n,
            recorded: recorded_n,
        }
    } else {
        Agreement::Differs
    };
    (kind, replayed)
}

/// Narrows `selected` (the lines of the registry `lines` an archive would move) so that the
/// records left of each pattern replay to what all of them replay to: they must be the last
/// ones of the pattern in canonical order, and the first of them must start from the score the
/// records before it reached (after a merge, a record's `before` is what its own clone had,
/// which the merged order may have changed). Records that would break this stay in the live
/// file. Lines that are not records are left as selected.
pub(crate) fn keep_replayable(lines: &[&str], selected: &mut [bool]) {
    let mut by_pattern: HashMap<String, Vec<(usize, Record)>> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        if let Ok(record) = parse(line) {
            by_pattern
                .entry(record.pattern.clone())
                .or_default()
                .push((i, record));
        }
    }
    for records in by_pattern.values_mut() {
        records.sort_by(|a, b| canonical(&a.1, &b.1));
        let Some(first_kept) = records.iter().position(|(i, _)| !selected[*i]) else {
            continue;
        };
        // Whether each record starts from the score the ones before it reached.
        let mut state = records[0].1.before.clone();
        let mut starts_in_step = Vec::with_capacity(records.len());
        for (_, record) in records.iter() {
            let before = Value::from(record.before.clone());
            starts_in_step.push(Value::from(state.clone()).compact() == before.compact());
            state = Some(apply(state.as_ref(), record));
        }
        let start = (0..=first_kept)
            .rev()
            .find(|&k| starts_in_step[k])
            .unwrap_or(0);
        for (i, _) in &records[start..] {
            selected[*i] = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::signals::SignalArgs;

    /// The compact JSON of a score, `null` for none.
    fn state_text(state: Option<&Value>) -> String {
        state.map_or_else(|| "null".to_owned(), Value::compact)
    }

    fn now(iso: &str) -> Now {
        Now::parse(iso).unwrap()
    }

    /// The record `reinforce` would write for `pattern` on top of `before`.
    fn reinforce(pattern: &str, before: Option<&Object>, reward: f64, at: &str) -> Record {
        let next = Score::from_previous(before).update(reward, &now(at));
        parse(&line(
            pattern,
            reward,
            &Signals::default(),
            &[],
            before,
            &next,
            &now(at),
        ))
        .unwrap()
    }

    /// `n` reinforcements of `pattern` one after the other, from `start`.
    fn chain(pattern: &str, start: Option<Object>, rewards: &[(f64, &str)]) -> Vec<Record> {
        let mut state = start;
        let mut out = Vec::new();
        for (reward, at) in rewards {
            let record = reinforce(pattern, state.as_ref(), *reward, at);
            state = Some(record.after.clone());
            out.push(record);
        }
        out
    }

    #[test]
    fn a_line_holds_the_update_and_reads_back() {
        let signals = Signals::parse(&SignalArgs {
            eval: Some("0.80".into()),
            accept: Some("yes".into()),
            ci: Some("pass".into()),
        })
        .unwrap();
        let at = now("2026-10-18T09:30:00.000Z");
        let next = Score::from_previous(None).update(0.9, &at);
        let text = line("p", 0.9, &signals, &["e1".into()], None, &next, &at);
        let value = json::parse(&text).unwrap();
        let object = value.as_object().unwrap();
        let keys: Vec<&str> = object.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "ts", "id", "pattern", "reward", "signals", "evidence", "before", "after"
            ]
        );
        assert_eq!(
            object.get("signals").unwrap().compact(),
            r#"{"eval":0.8,"acceptance":true,"ci":"pass"}"#
        );
        let id = object.get("id").unwrap().as_str().unwrap();
        assert_eq!(id.len(), 12);
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
        let record = parse(&text).unwrap();
        assert_eq!(record.before, None);
        assert_eq!(record.after, next.to_object());
        // Without evidence the key is left out; ids differ at the same instant.
        let other = line("p", 0.9, &signals, &[], None, &next, &at);
        assert!(!other.contains("evidence"));
        assert_ne!(parse(&other).unwrap().id, record.id);
    }

    #[test]
    fn lines_that_are_not_records_say_why() {
        for (line, why) in [
            ("[]", "not a JSON object"),
            ("{\"ts\":1}", "no `ts` text"),
            (
                r#"{"ts":"2026-10-18T09:30:00Z","id":"a","pattern":"p","reward":1,"before":null,"after":{}}"#,
                "not an instant in toISOString form",
            ),
            (
                r#"{"ts":"2026-10-18T09:30:00.000Z","id":"a","pattern":"p","reward":2,"before":null,"after":{}}"#,
                "`reward` is not a number in [0, 1]",
            ),
            (
                r#"{"ts":"2026-10-18T09:30:00.000Z","id":"a","pattern":"p","reward":1,"before":1,"after":{}}"#,
                "`before` is neither an object nor null",
            ),
            (
                r#"{"ts":"2026-10-18T09:30:00.000Z","id":"a","pattern":"p","reward":1,"before":null}"#,
                "`after` is not an object",
            ),
            ("{\"ts\":\"2026", "not JSON"),
        ] {
            let e = parse(line).unwrap_err();
            assert!(e.contains(why), "{line}: {e}");
        }
    }

    #[test]
    fn the_replay_of_a_clones_records_is_its_score() {
        let records = chain(
            "p",
            None,
            &[
                (1.0, "2026-10-01T09:00:00.000Z"),
                (0.0, "2026-10-03T09:00:00.000Z"),
                (0.5, "2026-12-30T09:00:00.000Z"),
            ],
        );
        let last = records.last().unwrap().after.clone();
        assert_eq!(replay(None, &records), Some(last.clone()));
        let (agreement, replayed) = agreement(Some(&Value::Object(last.clone())), &records);
        assert_eq!((agreement, replayed), (Agreement::Agrees, last));
    }

    #[test]
    fn one_clones_updates_in_one_millisecond_replay_in_their_order() {
        let at = "2026-10-18T09:30:00.000Z";
        for _ in 0..20 {
            let records = chain("p", None, &[(1.0, at), (0.0, at), (0.25, at), (1.0, at)]);
            let mut sorted: Vec<&Record> = records.iter().collect();
            sorted.sort_by(|a, b| canonical(a, b));
            assert_eq!(sorted, records.iter().collect::<Vec<_>>());
            let stored = Value::Object(records[3].after.clone());
            assert_eq!(agreement(Some(&stored), &records).0, Agreement::Agrees);
        }
    }

    #[test]
    fn new_records_fold_onto_the_base_or_rewind_past_older_base_records() {
        let base = chain(
            "p",
            None,
            &[
                (1.0, "2026-10-01T09:00:00.000Z"),
                (1.0, "2026-10-05T09:00:00.000Z"),
            ],
        );
        let base_state = Value::Object(base[1].after.clone());
        let refs: Vec<&Record> = base.iter().collect();
        // A record after the base's: folded onto the base's score.
        let late = reinforce("p", Some(&base[1].after), 0.0, "2026-10-06T09:00:00.000Z");
        assert_eq!(
            replay_onto(Some(&base_state), &refs, &[&late]),
            Some(Value::Object(late.after.clone()))
        );
        // One between the two base records (made on another clone from the first): the base's
        // second record is folded in again after it.
        let between = reinforce("p", Some(&base[0].after), 0.0, "2026-10-03T09:00:00.000Z");
        let expected = replay(base[0].before.clone(), [&base[0], &between, &base[1]]);
        assert_eq!(
            replay_onto(Some(&base_state), &refs, &[&between]),
            expected.map(Value::Object)
        );
        // Nothing new: the base's score as stored, whatever it is.
        let odd = Value::Number(3.0);
        assert_eq!(replay_onto(Some(&odd), &refs, &[]), Some(odd));
        assert_eq!(replay_onto(None, &[], &[]), None);
    }

    #[test]
    fn a_score_is_checked_against_its_records() {
        let records = chain(
            "p",
            None,
            &[
                (1.0, "2026-10-01T09:00:00.000Z"),
                (1.0, "2026-10-02T09:00:00.000Z"),
            ],
        );
        let replayed = records[1].after.clone();
        assert_eq!(agreement(None, &records).0, Agreement::Missing);
        // One update without a record after the last one.
        let ahead = Score::from_previous(Some(&replayed))
            .update(0.0, &now("2026-10-03T09:00:00.000Z"))
            .to_object();
        assert_eq!(
            agreement(Some(&Value::Object(ahead.clone())), &records).0,
            Agreement::Ahead {
                stored: 3.0,
                recorded: 2.0
            }
        );
        // The next reinforcement is recorded on top of it: in step again.
        let mut more = records.clone();
        more.push(reinforce(
            "p",
            Some(&ahead),
            1.0,
            "2026-10-04T09:00:00.000Z",
        ));
        let stored = Value::Object(more[2].after.clone());
        assert_eq!(agreement(Some(&stored), &more).0, Agreement::Agrees);
        // A score that lost the second update (a merge resolved by hand).
        let behind = Value::Object(records[0].after.clone());
        let (found, rebuilt) = agreement(Some(&behind), &records);
        assert_eq!(
            found,
            Agreement::Behind {
                stored: 1.0,
                recorded: 2.0
            }
        );
        assert!(found.is_rebuilt());
        assert_eq!(rebuilt, replayed);
        let mut edited = replayed.clone();
        edited.insert("elo", 1.0);
        assert_eq!(
            agreement(Some(&Value::Object(edited)), &records).0,
            Agreement::Differs
        );
    }

    #[test]
    fn an_archive_keeps_what_the_replay_starts_from() {
        // Two clones' records of one pattern after a merge: each `before` is its own clone's.
        let a = chain(
            "p",
            None,
            &[
                (1.0, "2026-10-01T09:00:00.000Z"),
                (1.0, "2026-10-03T09:00:00.000Z"),
            ],
        );
        let b = chain(
            "p",
            None,
            &[
                (0.0, "2026-10-02T09:00:00.000Z"),
                (0.0, "2026-10-04T09:00:00.000Z"),
            ],
        );
        let other = chain("q", None, &[(1.0, "2026-10-01T10:00:00.000Z")]);
        let text = |r: &Record| {
            Value::Object(
                Object::new()
                    .with("ts", r.ts.as_str())
                    .with("id", r.id.as_str())
                    .with("pattern", r.pattern.as_str())
                    .with("reward", r.reward)
                    .with("before", r.before.clone())
                    .with("after", r.after.clone()),
            )
            .compact()
        };
        let lines: Vec<String> = [&a[0], &other[0], &b[0], &a[1], &b[1]]
            .iter()
            .map(|r| text(r))
            .collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        // Moving the first three lines would leave p's records starting at a[1], whose `before`
        // is clone a's score without b[0]: p's records all stay; q's moves.
        let mut selected = vec![true, true, true, false, false];
        keep_replayable(&refs, &mut selected);
        assert_eq!(selected, [false, true, false, false, false]);
        // Moving everything moves everything.
        let mut all = vec![true; 5];
        keep_replayable(&refs, &mut all);
        assert_eq!(all, [true; 5]);
        // Once a record starts in step (made after the merge), the records before it may go.
        let after_merge = reinforce(
            "p",
            replay(None, [&a[0], &b[0], &a[1], &b[1]]).as_ref(),
            1.0,
            "2026-10-05T09:00:00.000Z",
        );
        let mut lines = lines.clone();
        lines.push(text(&after_merge));
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let mut selected = vec![true, true, true, true, true, false];
        keep_replayable(&refs, &mut selected);
        assert_eq!(selected, [true, true, true, true, true, false]);
    }

    proptest::proptest! {
        /// Two clones reinforce one pattern from a common base; folding each side's new records
        /// onto the base, in either order of the sides, gives one score.
        #[test]
        fn the_replay_does_not_depend_on_the_merge_direction(
            base_n in 0usize..4,
            ours in proptest::collection::vec((0u8..=4, 0u32..3000), 0..6),
            theirs in proptest::collection::vec((0u8..=4, 0u32..3000), 0..6),
        ) {
            let minutes = |m: u32| now("2026-10-01T00:00:00.000Z").ms + f64::from(m) * 60_000.0;
            let at = |ms: f64| date::to_iso_string(ms);
            let base_times: Vec<String> = (0..base_n).map(|i| at(minutes(u32::try_from(i).unwrap()))).collect();
            let base = chain("p", None, &base_times.iter().map(|t| (1.0, t.as_str())).collect::<Vec<_>>());
            let base_state = base.last().map(|r| Value::Object(r.after.clone()));
            // Each clone's updates at increasing times (a gap of 1 to 3,000 minutes).
            let side = |steps: &[(u8, u32)]| {
                let mut minute = 10;
                let times: Vec<String> = steps
                    .iter()
                    .map(|(_, gap)| {
                        minute += gap + 1;
                        at(minutes(minute))
                    })
                    .collect();
                let rewards: Vec<(f64, &str)> = steps
                    .iter()
                    .zip(&times)
                    .map(|((r, _), t)| (f64::from(*r) / 4.0, t.as_str()))
                    .collect();
                chain("p", base.last().map(|r| r.after.clone()), &rewards)
            };
            let (o, t) = (side(&ours), side(&theirs));
            let refs: Vec<&Record> = base.iter().collect();
            let both = |x: &[Record], y: &[Record]| {
                let mut all: Vec<&Record> = x.iter().chain(y).collect();
                all.sort_by(|a, b| canonical(a, b));
                replay_onto(base_state.as_ref(), &refs, &all)
            };
            proptest::prop_assert_eq!(state_text(both(&o, &t).as_ref()), state_text(both(&t, &o).as_ref()));
            // Each side alone replays to its own score.
            let own: Vec<&Record> = o.iter().collect();
            let expected = o.last().map(|r| Value::Object(r.after.clone())).or(base_state.clone());
            proptest::prop_assert_eq!(state_text(replay_onto(base_state.as_ref(), &refs, &own).as_ref()), state_text(expected.as_ref()));
            // Every update counted once.
            if let Some(Value::Object(merged)) = both(&o, &t) {
                let n = merged.get("updates").and_then(Value::as_f64).unwrap();
                #[expect(clippy::cast_precision_loss, reason = "small counts")]
                let want = (base_n + o.len() + t.len()) as f64;
                proptest::prop_assert_eq!(n, want);
            }
        }
    }
}
