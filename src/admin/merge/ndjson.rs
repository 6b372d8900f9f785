//! The three-way merge of an append-only NDJSON registry (journal, promotions, receipts,
//! decision ledger), over bytes. No I/O.
//!
//! * A **line** is what lies between two `\n` (a last line without `\n` is a line too, never
//!   torn in half); a blank line (nothing but ASCII whitespace) is not a record and is dropped.
//!   Lines are compared as bytes, counted with their repeats.
//! * When two of the three inputs are the same bytes, the third wins as it is (the usual
//!   three-way rule), ending with `\n`.
//! * Otherwise the result is, first, the base's lines that both sides kept, in the base's order
//!   (a line that one side removed — archived, deduplicated, repaired — stays removed: of a line
//!   the base holds `n` times, the result keeps as many as the side that kept fewer); then the
//!   lines new on either side (a line one side holds more times than the base), each new line
//!   as many times as the side that added more of it — a line added on both sides comes once.
//! * New lines are ordered by a key that depends on the line alone, so both merge directions
//!   give the same bytes: first the JSON objects whose `ts` is a date (text in the ECMAScript
//!   date format, or a number of milliseconds), by that time, then by `id` (a record without a
//!   text `id` first), then by their bytes; then every other line (no usable `ts`, not an
//!   object, not JSON, not UTF-8), by its bytes. Unparseable lines are kept as they are.
//! * With `relations` (the receipt store), a new receipt is then moved, stably, after the new
//!   receipts its `supersedes` and `contradicts` name.
//! * **Conflicts.** Two records with the same `id`: the two sides added different lines with
//!   that id (a record changed differently on each side, or two different records under one
//!   id), or one side replaced a base record (removed it and added another line with its id)
//!   that the other side removed. The lines in question are written as a block
//!   `<<<<<<< ours` / ours' lines / `=======` / theirs' lines / `>>>>>>> theirs` at the place of
//!   the first of them, and reported.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use crate::js::date;
use crate::js::json::{self, Value};

/// The start of a conflict block, as git writes it.
pub const OURS_MARKER: &str = "<<<<<<< ours";
/// The line between the two sides of a conflict block.
pub const SEPARATOR: &str = "=======";
/// The end of a conflict block.
pub const THEIRS_MARKER: &str = ">>>>>>> theirs";

/// A merge's result: the bytes, and the records that could not be merged (already written in
/// the bytes as conflict blocks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub bytes: Vec<u8>,
    pub conflicts: Vec<Conflict>,
}

/// One id whose record the two sides left in different states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub id: String,
    /// Ours' new lines with this id (empty: ours removed the record).
    pub ours: Vec<Vec<u8>>,
    /// Theirs' new lines with this id (empty: theirs removed the record).
    pub theirs: Vec<Vec<u8>>,
}

/// Merges `ours` and `theirs`, two descendants of `base`; `relations` orders receipts after
/// those they name.
#[must_use]
pub fn merge(base: &[u8], ours: &[u8], theirs: &[u8], relations: bool) -> Merged {
    if ours == theirs || base == theirs {
        return whole(ours);
    }
    if base == ours {
        return whole(theirs);
    }
    three_way(base, ours, theirs, relations)
}

/// The line-by-line merge, when no input equals another.
fn three_way(base: &[u8], ours: &[u8], theirs: &[u8], relations: bool) -> Merged {
    let (base, ours, theirs) = (lines(base), lines(ours), lines(theirs));
    let (cb, co, ct) = (counts(&base), counts(&ours), counts(&theirs));
    let count =
        |counts: &HashMap<&[u8], usize>, line: &[u8]| counts.get(line).copied().unwrap_or(0);

    // The base's lines both sides kept, in base order.
    let mut used: HashMap<&[u8], usize> = HashMap::new();
    let mut kept: Vec<&[u8]> = Vec::new();
    for &line in &base {
        let n = used.entry(line).or_insert(0);
        if *n < count(&co, line).min(count(&ct, line)) {
            *n += 1;
            kept.push(line);
        }
    }

    // The lines new on either side, each distinct line with how many times each side added it.
    let mut added: Vec<(&[u8], usize, usize)> = Vec::new();
    let mut seen: HashSet<&[u8]> = HashSet::new();
    for &line in ours.iter().chain(&theirs) {
        if !seen.insert(line) {
            continue;
        }
        let b = count(&cb, line);
        let (o, t) = (
            count(&co, line).saturating_sub(b),
            count(&ct, line).saturating_sub(b),
        );
        if o > 0 || t > 0 {
            added.push((line, o, t));
        }
    }
    let mut new: Vec<Line> = added
        .iter()
        .map(|&(raw, o, t)| Line::new(raw, o, t))
        .collect();
    new.sort_by(Line::key_cmp);

    let conflicts = conflicts(&base, &new, &cb, &co, &ct);
    let in_conflict: HashSet<&str> = conflicts.iter().map(|c| c.id.as_str()).collect();
    let (blocked, mut plain): (Vec<Line>, Vec<Line>) = new.into_iter().partition(|line| {
        line.id
            .as_deref()
            .is_some_and(|id| in_conflict.contains(id))
    });
    if relations {
        plain = order_relations(plain);
    }

    let mut out = Vec::new();
    for line in kept {
        push_line(&mut out, line);
    }
    // Each conflict block stands where the first of its lines would have stood.
    let mut blocks: Vec<(&Line, &Conflict)> = conflicts
        .iter()
        .filter_map(|c| {
            let first = blocked
                .iter()
                .filter(|l| l.id.as_deref() == Some(c.id.as_str()))
                .min_by(|a, b| a.key_cmp(b))?;
            Some((first, c))
        })
        .collect();
    blocks.sort_by(|a, b| a.0.key_cmp(b.0));
    let mut blocks = blocks.into_iter().peekable();
    for line in &plain {
        while let Some((_, conflict)) = blocks.next_if(|(first, _)| first.key_cmp(line).is_lt()) {
            push_block(&mut out, conflict);
        }
        for _ in 0..line.ours.max(line.theirs) {
            push_line(&mut out, line.raw);
        }
    }
    for (_, conflict) in blocks {
        push_block(&mut out, conflict);
    }
    Merged {
        bytes: out,
        conflicts,
    }
}

/// `bytes` as the whole result, ending with `\n` unless empty.
fn whole(bytes: &[u8]) -> Merged {
    let mut bytes = bytes.to_vec();
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    Merged {
        bytes,
        conflicts: Vec::new(),
    }
}

/// The lines of `bytes` that are not blank, without their `\n`.
#[must_use]
pub fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .collect()
}

/// The lines of `side` that `base` does not hold (a line `side` holds more times than `base`,
/// the extra copies), in `side`'s order: what that side added since the base, as [`merge`]
/// counts it.
#[must_use]
pub fn added<'a>(base: &[u8], side: &'a [u8]) -> Vec<&'a [u8]> {
    let base = counts(&lines(base));
    let mut seen: HashMap<&[u8], usize> = HashMap::new();
    lines(side)
        .into_iter()
        .filter(|line| {
            let n = seen.entry(line).or_insert(0);
            *n += 1;
            *n > base.get(line).copied().unwrap_or(0)
        })
        .collect()
}

fn counts<'a>(lines: &[&'a [u8]]) -> HashMap<&'a [u8], usize> {
    let mut counts = HashMap::with_capacity(lines.len());
    for &line in lines {
        *counts.entry(line).or_insert(0) += 1;
    }
    counts
}

fn push_line(out: &mut Vec<u8>, line: &[u8]) {
    out.extend_from_slice(line);
    out.push(b'\n');
}

fn push_block(out: &mut Vec<u8>, conflict: &Conflict) {
    push_line(out, OURS_MARKER.as_bytes());
    for line in &conflict.ours {
        push_line(out, line);
    }
    push_line(out, SEPARATOR.as_bytes());
    for line in &conflict.theirs {
        push_line(out, line);
    }
    push_line(out, THEIRS_MARKER.as_bytes());
}

/// A new line with what ordering and conflicts need of it.
#[derive(Debug)]
struct Line<'a> {
    raw: &'a [u8],
    /// How many times ours and theirs added it.
    ours: usize,
    theirs: usize,
    /// The time of its `ts`, when it is an object with a usable one.
    time: Option<f64>,
    id: Option<String>,
    /// Receipts only: the ids it supersedes or contradicts.
    names: Vec<String>,
}

impl<'a> Line<'a> {
    fn new(raw: &'a [u8], ours: usize, theirs: usize) -> Self {
        let object = std::str::from_utf8(raw)
            .ok()
            .and_then(|text| json::parse(crate::js::text::trim(text)).ok())
            .and_then(|value| match value {
                Value::Object(object) => Some(object),
                _ => None,
            });
        let time = object.as_ref().and_then(|o| match o.get("ts") {
            Some(Value::String(ts)) => date::parse_timestamp(ts),
            Some(Value::Number(ms)) if ms.is_finite() => Some(*ms),
            _ => None,
        });
        let id = object
            .as_ref()
            .and_then(|o| o.get("id").and_then(Value::as_str).map(str::to_owned));
        let names = object
            .as_ref()
            .map(|o| {
                ["supersedes", "contradicts"]
                    .iter()
                    .filter_map(|key| o.get(key).and_then(Value::as_array))
                    .flatten()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        Self {
            raw,
            ours,
            theirs,
            time,
            id,
            names,
        }
    }

    /// The order of new lines: dated records by time, id, bytes; then the rest by bytes.
    fn key_cmp(&self, other: &Self) -> Ordering {
        match (self.time, other.time) {
            (Some(a), Some(b)) => a
                .total_cmp(&b)
                .then_with(|| self.id.cmp(&other.id))
                .then_with(|| self.raw.cmp(other.raw)),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => self.raw.cmp(other.raw),
        }
    }
}

/// Some lines of one side.
type Lines = Vec<Vec<u8>>;

/// The ids whose records the two sides left in different states.
fn conflicts(
    base: &[&[u8]],
    new: &[Line],
    cb: &HashMap<&[u8], usize>,
    co: &HashMap<&[u8], usize>,
    ct: &HashMap<&[u8], usize>,
) -> Vec<Conflict> {
    let count =
        |counts: &HashMap<&[u8], usize>, line: &[u8]| counts.get(line).copied().unwrap_or(0);
    // id → (ours' new lines, theirs' new lines), ids in the order of their first new line.
    let mut by_id: Vec<(&str, Lines, Lines)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for line in new {
        let Some(id) = line.id.as_deref() else {
            continue;
        };
        let slot = *at.entry(id).or_insert_with(|| {
            by_id.push((id, Vec::new(), Vec::new()));
            by_id.len() - 1
        });
        if line.ours > 0 {
            by_id[slot].1.push(line.raw.to_vec());
        }
        if line.theirs > 0 {
            by_id[slot].2.push(line.raw.to_vec());
        }
    }
    if by_id.is_empty() {
        return Vec::new();
    }
    // For each id of a base record: whether ours, theirs removed a line holding it.
    let mut removed: HashMap<String, (bool, bool)> = HashMap::new();
    for &line in base {
        let Some(id) = line_id(line) else {
            continue;
        };
        let b = count(cb, line);
        let entry = removed.entry(id).or_insert((false, false));
        entry.0 |= count(co, line) < b;
        entry.1 |= count(ct, line) < b;
    }
    by_id
        .into_iter()
        .filter(|(id, ours, theirs)| {
            let (ours_removed, theirs_removed) =
                removed.get(*id).copied().unwrap_or((false, false));
            match (ours.is_empty(), theirs.is_empty()) {
                (false, false) => ours != theirs,
                // One side replaced the record the other removed.
                (false, true) | (true, false) => ours_removed && theirs_removed,
                (true, true) => false,
            }
        })
        .map(|(id, ours, theirs)| Conflict {
            id: id.to_owned(),
            ours,
            theirs,
        })
        .collect()
}

/// The text `id` of a line that is a JSON object.
fn line_id(line: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(line).ok()?;
    // Cheap test first: most base lines of a large journal are never in question.
    if !text.contains("\"id\"") {
        return None;
    }
    match json::parse(crate::js::text::trim(text)).ok()? {
        Value::Object(object) => object.get("id").and_then(Value::as_str).map(str::to_owned),
        _ => None,
    }
}

/// `lines` (in key order) with each line moved, stably, after the lines it names: the first
/// line whose named lines are all placed goes next. A cycle (no line can go) takes the first
/// remaining line as it is; the strict receipt reader then refuses the result.
fn order_relations(lines: Vec<Line>) -> Vec<Line> {
    let ids: HashSet<String> = lines.iter().filter_map(|l| l.id.clone()).collect();
    if lines
        .iter()
        .all(|l| l.names.iter().all(|n| !ids.contains(n)))
    {
        return lines;
    }
    let mut placed: HashSet<String> = HashSet::new();
    let mut pending: Vec<Option<Line>> = lines.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(pending.len());
    while out.len() < pending.len() {
        let ready = pending.iter().position(|slot| {
            slot.as_ref().is_some_and(|line| {
                line.names
                    .iter()
                    .all(|n| !ids.contains(n) || placed.contains(n))
            })
        });
        let at = ready.unwrap_or_else(|| {
            pending
                .iter()
                .position(Option::is_some)
                .expect("a line is left")
        });
        let line = pending[at].take().expect("the slot is full");
        if let Some(id) = &line.id {
            placed.insert(id.clone());
        }
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn record(ts: &str, id: &str, text: &str) -> String {
        format!(r#"{{"ts":"{ts}","id":"{id}","task":"{text}"}}"#)
    }

    fn text(lines: &[&str]) -> Vec<u8> {
        lines
            .iter()
            .flat_map(|l| format!("{l}\n").into_bytes())
            .collect()
    }

    fn clean(base: &[u8], ours: &[u8], theirs: &[u8]) -> String {
        let merged = merge(base, ours, theirs, false);
        assert!(merged.conflicts.is_empty(), "{merged:?}");
        String::from_utf8(merged.bytes).unwrap()
    }

    #[test]
    fn added_lines_are_the_sides_extra_copies_in_its_order() {
        let base = text(&["a", "b", "b"]);
        let side = b"b\nc\n\na\nb\nb\nc\nd";
        let added: Vec<&[u8]> = added(&base, side);
        assert_eq!(added, [&b"c"[..], b"b", b"c", b"d"]);
        assert!(super::added(&base, &base).is_empty());
    }

    #[test]
    fn base_lines_kept_then_new_lines_by_time_then_id() {
        let ra = record("2026-01-01T00:00:00.000Z", "a", "base a");
        let rb = record("2026-01-02T00:00:00.000Z", "b", "base b");
        let rc = record("2026-01-05T00:00:00.000Z", "c", "ours");
        let rd = record("2026-01-03T00:00:00.000Z", "d", "theirs");
        let re = record("2026-01-03T00:00:00.000Z", "e", "theirs too");
        let base = text(&[&ra, &rb]);
        let ours = text(&[&ra, &rb, &rc]);
        let theirs = text(&[&rb, &re, &rd]);
        let expected = String::from_utf8(text(&[&rb, &rd, &re, &rc])).unwrap();
        assert_eq!(clean(&base, &ours, &theirs), expected);
        assert_eq!(clean(&base, &theirs, &ours), expected);
    }

    #[test]
    fn a_line_new_on_both_sides_comes_once_and_undated_lines_come_last() {
        let a = record("2026-01-01T00:00:00.000Z", "a", "x");
        let both = record("2026-01-02T00:00:00.000Z", "n", "both");
        let base = text(&[&a]);
        let ours = text(&[&a, "not json", &both]);
        let theirs = text(&[&a, &both, r#"{"id":"q"}"#]);
        assert_eq!(
            clean(&base, &ours, &theirs),
            // Undated lines by their bytes: `n` before `{`.
            format!("{a}\n{both}\nnot json\n{}\n", r#"{"id":"q"}"#)
        );
    }

    #[test]
    fn missing_final_newlines_never_tear_a_line() {
        let a = record("2026-01-01T00:00:00.000Z", "a", "x");
        let b = record("2026-01-02T00:00:00.000Z", "b", "y");
        let c = record("2026-01-03T00:00:00.000Z", "c", "z");
        let base = a.clone().into_bytes();
        let ours = format!("{a}\n{b}").into_bytes();
        let theirs = format!("{a}\n{c}").into_bytes();
        assert_eq!(clean(&base, &ours, &theirs), format!("{a}\n{b}\n{c}\n"));
        assert_eq!(clean(&base, &base, &ours), format!("{a}\n{b}\n"));
    }

    #[test]
    fn a_record_changed_differently_on_each_side_is_a_conflict_in_place() {
        let a = record("2026-01-01T00:00:00.000Z", "a", "x");
        let b = record("2026-01-02T00:00:00.000Z", "b", "y");
        let ours_b = record("2026-01-02T00:00:00.000Z", "b", "ours");
        let theirs_b = record("2026-01-02T00:00:00.000Z", "b", "theirs");
        let c = record("2026-01-03T00:00:00.000Z", "c", "z");
        let base = text(&[&a, &b]);
        let merged = merge(
            &base,
            &text(&[&a, &ours_b, &c]),
            &text(&[&a, &theirs_b]),
            false,
        );
        assert_eq!(
            String::from_utf8(merged.bytes).unwrap(),
            format!("{a}\n<<<<<<< ours\n{ours_b}\n=======\n{theirs_b}\n>>>>>>> theirs\n{c}\n")
        );
        assert_eq!(
            merged.conflicts,
            [Conflict {
                id: "b".into(),
                ours: vec![ours_b.into_bytes()],
                theirs: vec![theirs_b.into_bytes()],
            }]
        );
    }

    #[test]
    fn changed_on_one_side_and_removed_on_the_other_is_a_conflict() {
        let a = record("2026-01-01T00:00:00.000Z", "a", "x");
        let b = record("2026-01-02T00:00:00.000Z", "b", "y");
        let changed = record("2026-01-02T00:00:00.000Z", "b", "changed");
        let base = text(&[&a, &b]);
        let merged = merge(&base, &text(&[&a]), &text(&[&a, &changed]), false);
        assert_eq!(merged.conflicts.len(), 1);
        assert_eq!(merged.conflicts[0].ours, Vec::<Vec<u8>>::new());
        // Changed on one side, kept on the other: the change wins.
        assert_eq!(
            clean(&base, &text(&[&a, &b]), &text(&[&a, &changed, "x"])),
            format!("{a}\n{changed}\nx\n")
        );
    }

    #[test]
    fn receipts_follow_the_receipts_they_name() {
        let early = r#"{"ts":"2026-01-01T00:00:00.000Z","id":"r2","supersedes":["r1"]}"#;
        let late = r#"{"ts":"2026-01-09T00:00:00.000Z","id":"r1","supersedes":[]}"#;
        let other = r#"{"ts":"2026-01-05T00:00:00.000Z","id":"r3","contradicts":[]}"#;
        let merged = merge(b"", &text(&[late, early]), &text(&[other]), true);
        assert_eq!(
            String::from_utf8(merged.bytes).unwrap(),
            format!("{other}\n{late}\n{early}\n")
        );
        let plain = merge(b"", &text(&[late, early]), &text(&[other]), false);
        assert_eq!(
            String::from_utf8(plain.bytes).unwrap(),
            format!("{early}\n{other}\n{late}\n")
        );
    }

    /// Small journals drawn from a few records, so that sides share lines often.
    fn journal() -> impl Strategy<Value = Vec<u8>> {
        let pool: Vec<String> = (0..8)
            .map(|i| {
                record(
                    &format!("2026-01-0{}T00:00:00.000Z", i % 4 + 1),
                    &format!("i{i}"),
                    "t",
                )
            })
            .chain(["junk".to_owned(), "{\"ts\":1}".to_owned()])
            .collect();
        (
            proptest::collection::vec(proptest::sample::select(pool), 0..8),
            any::<bool>(),
        )
            .prop_map(|(lines, newline)| {
                let mut bytes = lines.join("\n").into_bytes();
                if newline && !bytes.is_empty() {
                    bytes.push(b'\n');
                }
                bytes
            })
    }

    proptest! {
        #[test]
        fn both_directions_give_the_same_bytes(base in journal(), ours in journal(), theirs in journal()) {
            for merge in [merge, three_way] {
                let one = merge(&base, &ours, &theirs, true);
                let other = merge(&base, &theirs, &ours, true);
                prop_assert_eq!(one.conflicts.len(), other.conflicts.len());
                if one.conflicts.is_empty() {
                    prop_assert_eq!(one.bytes, other.bytes);
                }
            }
        }

        #[test]
        fn nothing_either_side_kept_or_added_is_lost(base in journal(), ours in journal(), theirs in journal()) {
            let merged = three_way(&base, &ours, &theirs, false);
            prop_assume!(merged.conflicts.is_empty());
            prop_assert!(merged.bytes.is_empty() || merged.bytes.ends_with(b"\n"));
            let got = counts(&lines(&merged.bytes));
            let (b, o, t) = (lines(&base), lines(&ours), lines(&theirs));
            let (cb, co, ct) = (counts(&b), counts(&o), counts(&t));
            let count = |c: &HashMap<&[u8], usize>, l: &[u8]| c.get(l).copied().unwrap_or(0);
            for (side, other) in [(&co, &ct), (&ct, &co)] {
                for (&line, &n) in side {
                    let in_base = count(&cb, line);
                    // What this side added, plus the base copies both sides kept.
                    let need = n.saturating_sub(in_base) + in_base.min(n).min(count(other, line));
                    prop_assert!(count(&got, line) >= need, "{:?}", String::from_utf8_lossy(line));
                }
            }
        }

        #[test]
        fn every_receipt_follows_the_receipts_it_names(
            specs in proptest::collection::vec((0u8..28, proptest::option::of(0usize..8), any::<bool>()), 1..12),
        ) {
            // Receipt i may name an earlier receipt (as observe allows), its clock anywhere.
            let receipts: Vec<String> = specs
                .iter()
                .enumerate()
                .map(|(i, (day, named, _))| {
                    let names: Vec<String> = named
                        .filter(|n| *n < i)
                        .map(|n| format!("\"r{n}\""))
                        .into_iter()
                        .collect();
                    format!(
                        r#"{{"ts":"2026-01-{:02}T00:00:00.000Z","id":"r{i}","supersedes":[{}]}}"#,
                        day + 1,
                        names.join(",")
                    )
                })
                .collect();
            let side = |mine: bool| -> Vec<u8> {
                let lines: Vec<&str> = receipts
                    .iter()
                    .zip(&specs)
                    .filter(|(_, (_, _, ours))| *ours == mine)
                    .map(|(r, _)| r.as_str())
                    .collect();
                text(&lines)
            };
            let merged = merge(b"", &side(true), &side(false), true);
            prop_assert!(merged.conflicts.is_empty());
            let order: Vec<String> = lines(&merged.bytes)
                .iter()
                .map(|l| line_id(l).unwrap())
                .collect();
            prop_assert_eq!(order.len(), receipts.len());
            for (i, (_, named, _)) in specs.iter().enumerate() {
                if let Some(n) = named.filter(|n| *n < i) {
                    let at = |id: String| order.iter().position(|o| *o == id).unwrap();
                    let (named_at, at_i) = (at(format!("r{n}")), at(format!("r{i}")));
                    prop_assert!(named_at < at_i, "{:?}", order);
                }
            }
        }

        #[test]
        fn merging_a_store_with_itself_gives_it_back(x in journal()) {
            let mut expected = x.clone();
            if !expected.is_empty() && !expected.ends_with(b"\n") {
                expected.push(b'\n');
            }
            prop_assert_eq!(&merge(&x, &x, &x, true).bytes, &expected);
            // The line-by-line merge too: every line kept, in its order.
            prop_assert_eq!(&three_way(&x, &x, &x, true).bytes, &expected);
        }
    }
}
