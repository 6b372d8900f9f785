//! The messages of the reinforcement records (`.bmad/records/reinforcements.ndjson`): the
//! warning of a `reinforce` that could not record its update, what the merge driver says when it
//! cannot replay a pattern, and `doctor`'s findings and rebuild — a part of the catalogue of
//! [`messages`](crate::messages), kept in a file of its own.

/// Why an update could not be recorded.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Unrecorded<'a> {
    /// The registry is at its cap.
    Full,
    /// The registry's last line is torn.
    Torn,
    /// Any other failure, in words.
    Other(&'a str),
}

/// `reinforce` updated the score, but its record could not be written.
pub(crate) fn record_not_written(rel: &str, pattern: &str, why: Unrecorded) -> String {
    let (why, remedy) = match why {
        Unrecorded::Full => (
            "it is full".to_owned(),
            "`bmad-mem archive reinforcements` makes room".to_owned(),
        ),
        Unrecorded::Torn => (
            "its last line is incomplete".to_owned(),
            format!("`bmad-mem doctor --repair-tail {rel}` keeps that line aside"),
        ),
        Unrecorded::Other(text) => (text.to_owned(), "`bmad-mem doctor` says more".to_owned()),
    };
    format!(
        "warning: the score of pattern \"{pattern}\" was updated, but {rel} could not record the update ({why}); a merge of this pattern with a clone that also reinforced it will be a conflict — {remedy}"
    )
}

/// The merge driver could not find the three versions' reinforcement records in git.
pub(crate) fn merge_records_unavailable(why: &str) -> String {
    format!(
        "  the reinforcement records of the two sides were not found ({why}), so the updates of a pattern both sides changed cannot be replayed"
    )
}

/// A side's reinforcement records that cannot be read.
pub(crate) fn merge_records_unreadable(side: &str, rel: &str, why: &str) -> String {
    format!(
        "  {rel} of {side} holds a line that is not a reinforcement record ({why}); resolve it there, then merge again"
    )
}

/// A pattern whose change on one side is not what that side's records replay to.
pub(crate) fn merge_pattern_unrecorded(pattern: &str, side: &str, rel: &str) -> String {
    format!(
        "  pattern \"{pattern}\": {side}' score is not what {side}' records in {rel} replay to (it was updated without a record: by bmad-plus, while the records were full, or by a run killed between the two writes)"
    )
}

/// `doctor`: a pattern with records and no score.
pub(crate) fn records_without_score(pattern: &str, count: usize) -> String {
    format!(
        "pattern \"{pattern}\" has {count} reinforcement record(s) but no score in the scores file; `bmad-mem doctor --rebuild-scores` restores it from them"
    )
}

/// `doctor`: a score that lost updates its records hold.
pub(crate) fn score_behind_records(pattern: &str, stored: &str, recorded: &str) -> String {
    format!(
        "the score of pattern \"{pattern}\" counts {stored} update(s), its reinforcement records {recorded}: updates were lost (a merge resolved by hand, an edit); `bmad-mem doctor --rebuild-scores` replays them"
    )
}

/// `doctor`: updates after the last record, made without one.
pub(crate) fn score_ahead_of_records(pattern: &str, stored: &str, recorded: &str) -> String {
    format!(
        "the score of pattern \"{pattern}\" counts {stored} update(s), its reinforcement records {recorded}: the latest update(s) have no record (bmad-plus wrote them, the records were full, or a run was killed between the two writes); a merge of this pattern with a clone that also reinforced it will be a conflict until its next reinforcement is recorded"
    )
}

/// `doctor`: a score its records do not replay to.
pub(crate) fn score_differs_from_records(pattern: &str) -> String {
    format!(
        "the score of pattern \"{pattern}\" is not what its reinforcement records replay to; `bmad-mem doctor --rebuild-scores` rewrites it from them"
    )
}

/// `doctor`: record lines that parse as JSON but are not reinforcement records.
pub(crate) fn records_malformed(lines: &str) -> String {
    format!("lines that are not reinforcement records: {lines}")
}

/// `doctor --rebuild-scores` refused: the records themselves need a person first.
pub(crate) fn rebuild_refused(rel: &str, why: &str) -> String {
    format!("{rel} {why}; run `bmad-mem doctor` and repair it first. Nothing was changed.")
}

/// `doctor`: what a full records registry does.
pub(crate) const RECORDS_FULL_EFFECT: &str = "reinforce updates scores without recording them, so a merge of a pattern two clones reinforced is a conflict";

/// `doctor --rebuild-scores`: what it rewrote.
pub(crate) fn scores_rebuilt(scores: &str, records: &str, patterns: &[String]) -> String {
    if patterns.is_empty() {
        return format!(
            "mem doctor: every score in {scores} agrees with {records}; nothing was changed\n"
        );
    }
    let names: Vec<String> = patterns.iter().map(|p| format!("\"{p}\"")).collect();
    format!(
        "mem doctor: rebuilt the score of {} pattern(s) in {scores} from {records}: {}\n",
        patterns.len(),
        names.join(", ")
    )
}

/// `doctor --rebuild-scores`, for a result that could not be printed.
pub(crate) fn scores_rebuilt_written(scores: &str, count: usize) -> String {
    format!("the score of {count} pattern(s) in {scores} rebuilt from their records")
}

/// `doctor`: registries `.gitattributes` does not give to the merge driver (named before they
/// existed).
pub(crate) fn registries_not_merged(paths: &[String]) -> String {
    format!(
        "does not give {} to the bmad-mem merge driver, so git merges them as plain text; `bmad-mem git setup` adds the missing line(s)",
        paths.join(", ")
    )
}
