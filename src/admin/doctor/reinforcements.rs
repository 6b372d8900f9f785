//! `doctor`'s look at the reinforcement records beside the scores: lines that are JSON but not
//! records, and every pattern's score against what its records replay to
//! (`records::agreement`); and the explicit repair `--rebuild-scores`, which rewrites the scores
//! the records disagree with.
//!
//! A score that lost updates its records hold (a merge resolved by hand, an edit), one the
//! records have and the scores file lacks, and one that is simply not what its records replay
//! to are problems, which `--rebuild-scores` repairs. A score with updates after its last record
//! (bmad-plus wrote them, the records were full, a run was killed between its two writes) is a
//! warning: nothing can rebuild those updates, and the pattern is in step again as soon as its
//! next update is recorded. Torn, unparseable and duplicate lines, the cap and interrupted
//! archives are the checks every registry has.

use std::fmt::Write as _;
use std::path::Path;

use crate::actions::reinforce::records::{self, Agreement, ByPattern};
use crate::admin::doctor::lines::complete_len;
use crate::admin::doctor::report::DoctorReport;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{self, Object, Value};
use crate::js::number::number_text;
use crate::messages;
use crate::store::document;
use crate::store::layout::{REINFORCEMENTS, SCORES};
use crate::store::lock::WriterLock;
use crate::store::paths::{read_registry, read_registry_bytes};

/// How many lines a finding names; the rest are counted.
const NAMED_LINES: usize = 10;

/// The records of the registry's complete lines, by pattern.
fn read_records(bytes: &[u8]) -> ByPattern {
    let complete = &bytes[..complete_len(bytes)];
    let text = String::from_utf8_lossy(complete);
    records::by_pattern(text.split('\n').enumerate().map(|(i, l)| (i + 1, l)))
}

/// The lines that parse as JSON objects but are not records (the others are the generic
/// check's), as `3 (why), 7 (why)`.
fn malformed(bytes: &[u8], found: &ByPattern) -> Option<String> {
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let named: Vec<String> = found
        .invalid
        .iter()
        .filter(|(number, _)| {
            lines
                .get(number - 1)
                .and_then(|line| std::str::from_utf8(line).ok())
                .is_some_and(|line| {
                    matches!(
                        json::parse(crate::js::text::trim(line)),
                        Ok(Value::Object(_))
                    )
                })
        })
        .map(|(number, why)| format!("{number} ({why})"))
        .collect();
    if named.is_empty() {
        return None;
    }
    let mut text = named[..named.len().min(NAMED_LINES)].join(", ");
    if named.len() > NAMED_LINES {
        let _ = write!(text, " and {} more", named.len() - NAMED_LINES);
    }
    Some(text)
}

/// The records' checks: malformed records, then each pattern's score against its records.
pub(crate) fn check(root: &Path, report: &mut DoctorReport) {
    let Ok(Some(bytes)) = read_registry_bytes(root, REINFORCEMENTS, true) else {
        return;
    };
    let found = read_records(&bytes);
    if let Some(lines) = malformed(&bytes, &found) {
        report.problem(
            REINFORCEMENTS,
            "record-format",
            messages::records_malformed(&lines),
        );
    }
    // The scores' own problems (unreadable, not an object) are reported by their own check.
    let scores = match read_registry(root, SCORES, true) {
        Ok(Some(text)) => match json::parse(&text) {
            Ok(Value::Object(scores)) => scores,
            _ => return,
        },
        Ok(None) => Object::new(),
        Err(_) => return,
    };
    for pattern in &found.order {
        let records = &found.patterns[pattern];
        let (agreement, _) = records::agreement(scores.get(pattern), records);
        match agreement {
            Agreement::Agrees => {}
            Agreement::Missing => report.problem(
                SCORES,
                "scores-missing",
                messages::records_without_score(pattern, records.len()),
            ),
            Agreement::Behind { stored, recorded } => report.problem(
                SCORES,
                "scores-behind",
                messages::score_behind_records(
                    pattern,
                    &number_text(stored),
                    &number_text(recorded),
                ),
            ),
            Agreement::Ahead { stored, recorded } => report.warning(
                SCORES,
                "scores-unrecorded",
                messages::score_ahead_of_records(
                    pattern,
                    &number_text(stored),
                    &number_text(recorded),
                ),
            ),
            Agreement::Differs => report.problem(
                SCORES,
                "scores-differ",
                messages::score_differs_from_records(pattern),
            ),
        }
    }
}

/// `doctor --rebuild-scores`: under the writer lock, rewrites the score of every pattern the
/// check finds in disagreement with its records (missing, behind, different) to what they
/// replay to; a score ahead of its records is left. Refused while the records have a torn
/// line or a line that is not a record, or the scores file is not a JSON object: those need a
/// person first.
///
/// # Errors
/// Those refusals, the lock, reader and writer errors.
pub(crate) fn rebuild(ctx: &Context) -> Result<DoctorReport> {
    let lock = WriterLock::acquire(&ctx.root)?;
    let refused = |why: &str| Error::refused(messages::rebuild_refused(REINFORCEMENTS, why));
    let bytes = read_registry_bytes(&ctx.root, REINFORCEMENTS, true)?.unwrap_or_default();
    if complete_len(&bytes) < bytes.len() {
        return Err(refused("ends with an incomplete line"));
    }
    let found = read_records(&bytes);
    if let Some((number, why)) = found.invalid.first() {
        return Err(refused(&format!(
            "has a line that is not a reinforcement record (line {number}: {why})"
        )));
    }
    let mut scores = match read_registry(&ctx.root, SCORES, true)? {
        None => Object::new(),
        Some(text) => match json::parse(&text) {
            Ok(Value::Object(scores)) => scores,
            _ => {
                return Err(Error::refused(messages::rebuild_refused(
                    SCORES,
                    "is not a JSON object",
                )));
            }
        },
    };
    let mut rebuilt = Vec::new();
    for pattern in &found.order {
        let (agreement, replayed) =
            records::agreement(scores.get(pattern), &found.patterns[pattern]);
        if agreement.is_rebuilt() {
            scores.insert(pattern.clone(), replayed);
            rebuilt.push(pattern.clone());
        }
    }
    if !rebuilt.is_empty() {
        document::write(&ctx.root, SCORES, &Value::Object(scores), &lock)?;
    }
    drop(lock);
    Ok(DoctorReport {
        rebuilt_scores: Some(rebuilt),
        ..DoctorReport::default()
    })
}
