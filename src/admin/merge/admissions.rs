//! Two admissions of one candidate, made in two clones and met in a merge: which one stands.
//!
//! When both clones admitted the same candidate (same id, same digest), the note file holds two
//! entries that differ only in who admitted them and on which day, the candidate file two
//! one-line records, and — for a decision — the ledger two `admit` records. Git runs the driver
//! once per file, so the choice must be one that each file can make on its own and that comes
//! out the same in all of them. What every file shows is the admitter's name and, for decisions
//! and lessons, the UTC day (a note entry shows the day, not the time). So the admission that
//! stands is the one made on the earlier day, then the one whose admitter's name sorts first
//! (by its bytes), then — where a file has more — the earlier time and finally the text itself.
//! For patterns the day is not compared: an entry in `init`'s style shows none.
//!
//! This module holds that order ([`Claim`]), reads an admitted entry ([`admission`]) and a
//! candidate file's `admitted` record ([`admitted_record`]), and drops the later of two `admit`
//! records of one decision from a merged ledger ([`dedupe_ledger`]). Pure: no I/O.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

use crate::actions::decisions::ledger::{Prev, Record};
use crate::admin::merge::ndjson;
use crate::js::text::trim;
use crate::store::entry::{date_of, field_line, undated};
use crate::store::journal;
use crate::store::sections::sections;

/// One admission, as much of it as the order compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Claim<'a> {
    /// The UTC day of the admission, when the file's rule compares days.
    pub day: Option<&'a str>,
    /// Who admitted.
    pub by: &'a str,
    /// The time, where the file has one (empty otherwise).
    pub ts: &'a str,
    /// The admission's text, the last resort.
    pub text: &'a [u8],
}

impl Claim<'_> {
    /// Whether this admission stands against `other`: it comes first in the order of the module
    /// documentation.
    #[must_use]
    pub(crate) fn stands_against(&self, other: &Claim<'_>) -> bool {
        (self.day, self.by, self.ts, self.text).cmp(&(other.day, other.by, other.ts, other.text))
            != Ordering::Greater
    }
}

/// Whether admissions of entries of the note file `rel` are compared by day: every file but
/// `patterns.md`, whose entries in `init`'s style show no day.
#[must_use]
pub(crate) fn compares_days(rel: &str) -> bool {
    !rel.ends_with("/patterns.md")
}

/// A section that records an admission: the candidate it names, who admitted, the day it
/// shows, and the rest of its text — heading without its day, body without the `Admitted-by`
/// and `Date` lines — to compare two admissions by.
pub(crate) struct Admission<'a> {
    pub id: &'a str,
    pub sha256: &'a str,
    pub by: &'a str,
    pub day: Option<&'a str>,
    rest: String,
}

impl Admission<'_> {
    pub(crate) fn is_same(&self, other: &Admission<'_>) -> bool {
        (self.id, self.sha256, &self.rest) == (other.id, other.sha256, &other.rest)
    }
}

pub(crate) fn admission(core: &str) -> Option<Admission<'_>> {
    let cut = sections(core);
    let section = cut.first()?;
    let admitted = field_line(section, &["admitted-by"])?;
    let (by, mark) = admitted.value.rsplit_once(" (candidate ")?;
    let (id, sha256) = mark.strip_suffix(')')?.split_once(", sha256 ")?;
    let mut skipped: Vec<Range<usize>> = vec![admitted.line];
    if let Some(date) = field_line(section, &["date"]) {
        skipped.push(date.line);
    }
    let mut rest = format!("{}\n", undated(section.heading));
    let mut at = section.body_start();
    for line in core[at..].split_inclusive('\n') {
        if !skipped.iter().any(|r| r.start == at) {
            rest.push_str(line);
        }
        at += line.len();
    }
    Some(Admission {
        id,
        sha256,
        by: by.trim(),
        day: date_of(section),
        rest,
    })
}

/// The record `admit` leaves in a candidate file once the candidate is an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AdmittedRecord<'a> {
    pub ts: &'a str,
    pub by: &'a str,
    pub sha256: &'a str,
    pub heading: &'a str,
    /// The note file the entry went to.
    pub rel: &'a str,
}

impl AdmittedRecord<'_> {
    /// Whether `other` records the same admission made again: the same digest, note file and
    /// title (the day in front of the heading aside).
    #[must_use]
    pub(crate) fn is_same_candidate(&self, other: &AdmittedRecord<'_>) -> bool {
        self.sha256 == other.sha256
            && self.rel == other.rel
            && undated(self.heading) == undated(other.heading)
    }

    /// The admission as the order compares it.
    #[must_use]
    pub(crate) fn claim<'b>(&'b self, text: &'b str) -> Claim<'b> {
        Claim {
            day: compares_days(self.rel).then(|| self.ts.get(..10)).flatten(),
            by: self.by,
            ts: self.ts,
            text: text.as_bytes(),
        }
    }
}

/// The `admitted` record of the candidate `id` that `text` (a candidate file) holds, in either
/// form `admit` writes — `admitted <ts> by <name>: <id> (sha256 <d>) is the entry "<heading>"
/// of <file>`, or `admitted by <name> (finished <ts>): …` after `admit --finish`; `None` for
/// anything else (a pending candidate, a refusal, a drop, more than one line).
#[must_use]
pub(crate) fn admitted_record<'a>(text: &'a str, id: &str) -> Option<AdmittedRecord<'a>> {
    let line = text.strip_suffix('\n').unwrap_or(text);
    if line.contains('\n') {
        return None;
    }
    let rest = line.strip_prefix("admitted ")?;
    let (head, tail) = rest.split_once(&format!(": {id} (sha256 "))?;
    let (ts, by) = match head.strip_prefix("by ") {
        Some(finished) => {
            let (by, ts) = finished.rsplit_once(" (finished ")?;
            (ts.strip_suffix(')')?, by)
        }
        None => head.split_once(" by ")?,
    };
    let (sha256, tail) = tail.split_once(") is the entry \"")?;
    let (heading, rel) = tail.rsplit_once("\" of ")?;
    Some(AdmittedRecord {
        ts,
        by,
        sha256,
        heading,
        rel,
    })
}

/// A ledger record's admission, as the order compares it: its day, its actor, its time, its line.
fn record_claim<'a>(record: &'a Record, line: &'a [u8]) -> Claim<'a> {
    Claim {
        day: Some(record.ts.get(..10).unwrap_or_default()),
        by: record.actor.as_deref().unwrap_or_default(),
        ts: &record.ts,
        text: line,
    }
}

/// An `admit` record a merged ledger no longer holds, and the one kept in its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeptOne {
    /// The heading of the kept record.
    pub heading: String,
    /// `(id, actor, ts)` of the record kept.
    pub kept: (String, String, String),
    /// `(id, actor, ts)` of the record dropped.
    pub dropped: (String, String, String),
}

/// Which side added a line of the merged ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Ours,
    Theirs,
}

/// A merged ledger (`merged`, the line merge of `ours` and `theirs` over `base`) without the
/// later of two `admit` records of one decision, one added on each side: the same candidate
/// admitted in both clones. Two such records are the first records of decisions in the same
/// file whose headings are the same once the day in front is set aside, with the same status,
/// neither in the base nor of a decision the base has records of. The later (in the order of
/// the module documentation) is dropped, unless a record follows it (`prev`): that side went on
/// to change the decision, and both stay for a person (`lint` names them). `None` when nothing
/// is dropped.
#[must_use]
pub(crate) fn dedupe_ledger(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    merged: &[u8],
) -> Option<(Vec<u8>, Vec<KeptOne>)> {
    let set = |bytes| -> HashSet<&[u8]> { ndjson::lines(bytes).into_iter().collect() };
    let (in_base, in_ours, in_theirs) = (set(base), set(ours), set(theirs));
    let parse = |line: &[u8]| -> Option<Record> {
        let text = std::str::from_utf8(line).ok()?;
        Record::from_object(&journal::event(trim(text))?)
    };
    let decision = |r: &Record| (r.file.clone(), undated(&r.heading).to_owned());
    let in_base_ledger: HashSet<(String, String)> = ndjson::lines(base)
        .into_iter()
        .filter_map(parse)
        .map(|r| decision(&r))
        .collect();

    let lines: Vec<&[u8]> = merged.split_inclusive(|&b| b == b'\n').collect();
    let without_newline =
        |line: &'_ [u8]| -> Vec<u8> { line.strip_suffix(b"\n").unwrap_or(line).to_vec() };
    let records: Vec<Option<Record>> = lines.iter().map(|l| parse(&without_newline(l))).collect();
    let followed: HashSet<&str> = records
        .iter()
        .flatten()
        .filter_map(|r| match &r.prev {
            Prev::Of(id) => Some(id.as_str()),
            _ => None,
        })
        .collect();

    // (file, title) → the new first `admit` records of it, with their line and side.
    let mut groups: Vec<Vec<(usize, Side)>> = Vec::new();
    let mut at: HashMap<(String, String), usize> = HashMap::new();
    for (i, record) in records.iter().enumerate() {
        let Some(record) = record else { continue };
        let line = without_newline(lines[i]);
        if record.event != "admit" || record.prev != Prev::First || in_base.contains(&line[..]) {
            continue;
        }
        let side = match (in_ours.contains(&line[..]), in_theirs.contains(&line[..])) {
            (true, false) => Side::Ours,
            (false, true) => Side::Theirs,
            _ => continue,
        };
        let key = decision(record);
        if in_base_ledger.contains(&key) {
            continue;
        }
        let slot = *at.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[slot].push((i, side));
    }

    let mut drop: HashSet<usize> = HashSet::new();
    let mut dropped = Vec::new();
    for group in groups {
        let [(a, side_a), (b, side_b)] = group[..] else {
            continue;
        };
        let (Some(ra), Some(rb)) = (&records[a], &records[b]) else {
            continue;
        };
        if side_a == side_b || ra.status != rb.status {
            continue;
        }
        let (ta, tb) = (without_newline(lines[a]), without_newline(lines[b]));
        let a_stands = record_claim(ra, &ta).stands_against(&record_claim(rb, &tb));
        let ((kept, _), (lost, lost_line)) = if a_stands {
            ((ra, a), (rb, b))
        } else {
            ((rb, b), (ra, a))
        };
        if followed.contains(lost.id.as_str()) {
            continue;
        }
        drop.insert(lost_line);
        let who = |r: &Record| {
            (
                r.id.clone(),
                r.actor.clone().unwrap_or_default(),
                r.ts.clone(),
            )
        };
        dropped.push(KeptOne {
            heading: kept.heading.clone(),
            kept: who(kept),
            dropped: who(lost),
        });
    }
    if drop.is_empty() {
        return None;
    }
    let bytes = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| !drop.contains(i))
        .flat_map(|(_, line)| line.iter().copied())
        .collect();
    Some((bytes, dropped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_earlier_day_then_the_name_then_the_time_stands() {
        let claim = |day, by, ts| Claim {
            day,
            by,
            ts,
            text: b"",
        };
        let early = claim(Some("2026-10-18"), "zoe", "2026-10-18T23:00:00.000Z");
        let late = claim(Some("2026-10-19"), "ada", "2026-10-19T01:00:00.000Z");
        assert!(early.stands_against(&late) && !late.stands_against(&early));
        // The same day: the name, whatever the time.
        let ada = claim(Some("2026-10-18"), "ada", "2026-10-18T23:59:00.000Z");
        assert!(ada.stands_against(&early) && !early.stands_against(&ada));
        // Patterns: no day, the name.
        let (a, z) = (claim(None, "ada", "x"), claim(None, "zoe", "a"));
        assert!(a.stands_against(&z) && !z.stands_against(&a));
        assert!(compares_days(".agents/memory/lessons.md"));
        assert!(!compares_days(".agents/memory/patterns.md"));
    }

    #[test]
    fn admitted_records_are_read_in_both_forms() {
        let plain = "admitted 2026-10-18T09:30:00.000Z by Ada Lovelace: p-lesson-x (sha256 ab12) is the entry \"2026-10-18 — Use: x\" of .agents/memory/lessons.md\n";
        let record = admitted_record(plain, "p-lesson-x").unwrap();
        assert_eq!(
            record,
            AdmittedRecord {
                ts: "2026-10-18T09:30:00.000Z",
                by: "Ada Lovelace",
                sha256: "ab12",
                heading: "2026-10-18 — Use: x",
                rel: ".agents/memory/lessons.md",
            }
        );
        let finished = "admitted by bob (finished 2026-10-19T09:30:00.000Z): p-lesson-x (sha256 ab12) is the entry \"2026-10-19 — Use: x\" of .agents/memory/lessons.md";
        let other = admitted_record(finished, "p-lesson-x").unwrap();
        assert_eq!((other.ts, other.by), ("2026-10-19T09:30:00.000Z", "bob"));
        assert!(record.is_same_candidate(&other));
        assert_eq!(admitted_record(plain, "p-lesson-y"), None);
        assert_eq!(admitted_record("---\nid: p-lesson-x\n", "p-lesson-x"), None);
        assert_eq!(
            admitted_record(
                "refused 2026-10-18T09:30:00.000Z by a: p-lesson-x (sha256 ab12), topic `x` in .bmad/memory/refused.md\n",
                "p-lesson-x"
            ),
            None
        );
    }

    fn admit(ts: &str, id: &str, heading: &str, actor: &str, prev: Option<&str>) -> String {
        let prev = prev.map_or("null".to_owned(), |p| format!("\"{p}\""));
        let event = if prev == "null" { "admit" } else { "abrogate" };
        let status = if prev == "null" {
            "active"
        } else {
            "abrogated"
        };
        format!(
            r#"{{"ts":"{ts}","id":"{id}","event":"{event}","heading":"{heading}","file":".agents/memory/decisions.md","status":"{status}","sha256":"{id}{id}","digest":2,"prev":{prev},"actor":"{actor}","by":null,"reason":null}}"#
        )
    }

    fn text(lines: &[&str]) -> Vec<u8> {
        lines
            .iter()
            .flat_map(|l| format!("{l}\n").into_bytes())
            .collect()
    }

    /// The decision "Use X" admitted by bob at 08:00 and by ada at 10:00 the same day.
    fn both_admitted() -> (String, String) {
        let heading = "2026-10-18 — Use X";
        (
            admit("2026-10-18T08:00:00.000Z", "b1", heading, "bob", None),
            admit("2026-10-18T10:00:00.000Z", "a1", heading, "ada", None),
        )
    }

    #[test]
    fn the_later_of_two_admit_records_of_one_decision_is_dropped() {
        let old = admit(
            "2026-10-01T00:00:00.000Z",
            "o1",
            "2026-10-01 — Old",
            "ada",
            None,
        );
        let (bob, ada) = both_admitted();
        let later = admit(
            "2026-10-19T07:00:00.000Z",
            "c1",
            "2026-10-19 — Use X",
            "ada",
            None,
        );
        let base = text(&[&old]);
        let (ours, theirs) = (text(&[&old, &bob]), text(&[&old, &ada]));
        let merged = ndjson::merge(&base, &ours, &theirs, false).bytes;
        let (bytes, dropped) = dedupe_ledger(&base, &ours, &theirs, &merged).unwrap();
        // The same day: ada's name sorts first, though bob admitted earlier in the day.
        assert_eq!(bytes, text(&[&old, &ada]));
        assert_eq!(
            dropped,
            [KeptOne {
                heading: "2026-10-18 — Use X".into(),
                kept: ("a1".into(), "ada".into(), "2026-10-18T10:00:00.000Z".into()),
                dropped: ("b1".into(), "bob".into(), "2026-10-18T08:00:00.000Z".into()),
            }]
        );
        // Both directions alike.
        let other = ndjson::merge(&base, &theirs, &ours, false).bytes;
        assert_eq!(
            dedupe_ledger(&base, &theirs, &ours, &other).unwrap().0,
            bytes
        );
        // The earlier day wins over the name.
        let theirs = text(&[&old, &later]);
        let merged = ndjson::merge(&base, &ours, &theirs, false).bytes;
        assert_eq!(
            dedupe_ledger(&base, &ours, &theirs, &merged).unwrap().0,
            text(&[&old, &bob])
        );
    }

    #[test]
    fn records_a_side_built_on_and_other_decisions_stay() {
        let (bob, ada) = both_admitted();
        let ended = admit(
            "2026-10-18T11:00:00.000Z",
            "b2",
            "2026-10-18 — Use X",
            "bob",
            Some("b1"),
        );
        let other = admit(
            "2026-10-18T09:00:00.000Z",
            "y1",
            "2026-10-18 — Use Y",
            "bob",
            None,
        );
        // Bob's admission has a follower, but bob's is the later one: ada's would be kept and
        // bob's abrogate left without its predecessor; both stay.
        let (ours, theirs) = (text(&[&bob, &ended]), text(&[&ada]));
        let merged = ndjson::merge(b"", &ours, &theirs, false).bytes;
        assert_eq!(dedupe_ledger(b"", &ours, &theirs, &merged), None);
        // Different decisions, or the same one added on one side only.
        let (ours, theirs) = (text(&[&bob]), text(&[&other]));
        let merged = ndjson::merge(b"", &ours, &theirs, false).bytes;
        assert_eq!(dedupe_ledger(b"", &ours, &theirs, &merged), None);
        let (ours, theirs) = (text(&[&bob, &ada]), text(&[&other]));
        let merged = ndjson::merge(b"", &ours, &theirs, false).bytes;
        assert_eq!(dedupe_ledger(b"", &ours, &theirs, &merged), None);
        // A decision the base has records of is not a new admission.
        let base = text(&[&bob]);
        let (ours, theirs) = (text(&[&bob, &other]), text(&[&ada]));
        let merged = ndjson::merge(&base, &ours, &theirs, false).bytes;
        assert_eq!(dedupe_ledger(&base, &ours, &theirs, &merged), None);
    }
}
