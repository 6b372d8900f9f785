//! The messages of `merge-driver` for the note files (decisions, lessons, patterns, refused
//! topics, candidates) and for the admissions it resolves: a part of the catalogue of
//! [`messages`](crate::messages), kept in a file of its own.

/// The note files, as the refusal of an unknown path lists them.
pub(crate) const MERGE_NOTE_FILES: &str = "decisions.md, lessons.md and patterns.md in .bmad/memory/ and .agents/memory/, .bmad/memory/refused.md and the candidate files";

/// How to go on when a note file cannot be merged section by section.
pub(crate) const MERGE_NOTE_REMEDY: &str =
    "bmad-mem does not split a note file; resolve the conflict by hand";

/// A side of a note file that is not UTF-8.
pub(crate) fn merge_note_not_text(rel: &str, side: &str) -> String {
    format!(
        "{rel}: {side} is not UTF-8 text; it cannot be merged section by section — left as ours, resolve it by hand"
    )
}

/// A side of a note file that holds conflict markers already.
pub(crate) fn merge_note_markers(rel: &str, side: &str, line: usize) -> String {
    format!(
        "{rel}: {side} already holds conflict markers (line {line}); nothing was merged — left as ours: remove the markers of the earlier merge, commit, and merge again"
    )
}

/// Sections changed differently on the two sides: the first line of the report.
pub(crate) fn merge_section_conflicts(rel: &str, count: usize) -> String {
    format!(
        "{rel}: {count} part(s) changed differently on the two sides; both versions are left in the file between `<<<<<<< ours` and `>>>>>>> theirs`, the rest is merged"
    )
}

/// What the two sides did to one part of a note file in conflict, as the report says it.
pub(crate) fn merge_section_conflict(part: &str, what: &str) -> String {
    format!("  {part}: {what}")
}

/// A section, as the report names it.
pub(crate) fn merge_section_name(heading: &str) -> String {
    format!("section \"{heading}\"")
}

/// The text before the first section, as the report names it.
pub(crate) const MERGE_PREAMBLE: &str = "the text before the first section";
/// A candidate file's text (it has no sections), as the report names it.
pub(crate) const MERGE_CANDIDATE_TEXT: &str = "the candidate's text";
/// A part both sides changed.
pub(crate) const MERGE_CHANGED_BOTH: &str = "changed on both sides";
/// A section both sides added, with different texts.
pub(crate) const MERGE_ADDED_BOTH: &str = "added on both sides with different texts";

/// A section one side removed and the other changed.
pub(crate) fn merge_removed_changed(removed: &str, changed: &str) -> String {
    format!("removed on {removed}, changed on {changed}")
}

/// A section one side renamed and the other changed.
pub(crate) fn merge_renamed_changed(renamed: &str, to: &str, changed: &str) -> String {
    format!(
        "renamed to \"{to}\" on {renamed}, changed on {changed}; both versions are left under their headings"
    )
}

/// A section the two sides renamed differently.
pub(crate) fn merge_renamed_both(ours: &str, theirs: &str) -> String {
    format!("renamed to \"{ours}\" on ours and to \"{theirs}\" on theirs")
}

/// One admission, as a resolution names it: who, and on which day when the file shows one.
pub(crate) fn merge_admission(by: &str, day: Option<&str>) -> String {
    match day {
        Some(day) => format!("the admission by {by} on {day}"),
        None => format!("the admission by {by}"),
    }
}

/// The rule that chose between two admissions of one candidate: the earlier day, then the name
/// (`by_day`); for a pattern, whose entry may show no day, the name alone.
fn admission_rule(by_day: bool) -> &'static str {
    if by_day {
        "the earlier admission stands: the earlier day, then the name that sorts first"
    } else {
        "for a pattern, the admission whose name sorts first stands"
    }
}

/// The same candidate admitted on both sides: which admission the note file or candidate file
/// keeps.
pub(crate) fn merge_admitted_twice(
    rel: &str,
    id: &str,
    kept: &str,
    dropped: &str,
    by_day: bool,
) -> String {
    format!(
        "{rel}: candidate {id} was admitted on both sides; kept {kept}, dropped {dropped} ({})",
        admission_rule(by_day)
    )
}

/// The same decision admitted on both sides: which `admit` record the ledger keeps.
pub(crate) fn merge_ledgered_twice(
    rel: &str,
    heading: &str,
    kept: (&str, &str, &str),
    dropped: (&str, &str, &str),
) -> String {
    format!(
        "{rel}: decision \"{heading}\" was admitted on both sides; kept record {} (by {}, {}), dropped record {} (by {}, {}) ({})",
        kept.0,
        kept.1,
        kept.2,
        dropped.0,
        dropped.1,
        dropped.2,
        admission_rule(true)
    )
}
