//! What our rankings show and weigh of a note's status (docs/ACTIONS.md, "Status in our
//! rankings"): `--ranking bm25` (and the rankings built on its results) carry each decision's
//! status, rank a decision that is not in force below the decisions in force of comparable
//! score, and take `--status in-force|all`. The lexical and evidence rankings are bmad-plus's:
//! they never call this module, and their output keeps its bytes.
//!
//! Only a decision (a section of `decisions.md`) has a status, the one
//! [`crate::store::entry::status_of`] reads — the one status reader of every command; a decision
//! without a status line is in force. Lessons and patterns have none. The status is read only for
//! the sections that may become results, never for every section of the store.
//!
//! **The rule.** A decision's score is multiplied by its status's [`weight`]: 1 in force (or no
//! status line), 1 when its status line cannot be read (it may still be in force), 0.9 when it is
//! proposed (not yet in force), 0.8 when it has ended (superseded, abrogated, rolled back,
//! rejected, deprecated). An ended decision therefore ranks below every result in force whose
//! score is at least 0.8 of its own. A stronger factor costs the development set of
//! `benches/data/adr` the questions asked about a rejected or superseded record (×0.5: recall@5
//! 0.863 → 0.844); ×0.8 keeps every figure (BENCHMARKS.md).

use crate::js::json::Object;
use crate::store::entry::{Status, status_of};
use crate::store::layout::DECISIONS_NOTE;
use crate::store::sections::sections;

/// The weight of a decision that has ended: superseded, abrogated, rolled back, rejected or
/// deprecated.
pub const ENDED_WEIGHT: f64 = 0.8;
/// The weight of a proposed (draft) decision: not in force yet.
pub const PROPOSED_WEIGHT: f64 = 0.9;

/// Which results `--status` keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StatusFilter {
    /// Every result (the default).
    #[default]
    All,
    /// Every result but the decisions known not to be in force: ended and proposed ones are
    /// left out; events, lessons, patterns, decisions in force and decisions whose status line
    /// cannot be read (they may be in force) stay.
    InForce,
}

impl StatusFilter {
    /// `--status`'s value.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "all" => Some(Self::All),
            "in-force" => Some(Self::InForce),
            _ => None,
        }
    }

    /// Whether a note of this status stays (`None`: a note that has no status).
    #[must_use]
    pub fn keeps(self, status: Option<&Status>) -> bool {
        match (self, status) {
            (Self::All, _) | (Self::InForce, None) => true,
            (Self::InForce, Some(status)) => {
                !status.is_ended() && !matches!(status, Status::Proposed)
            }
        }
    }
}

/// The status of a note of file `source` (`decisions.md`, …) from its heading and its text as
/// recall shows it (heading, `\n` and body, trimmed): `None` for a lesson or a pattern, which
/// have none; for a decision, the status its status line states, [`Status::Active`] without one.
#[must_use]
pub fn note_status(source: &str, heading: &str, text: &str) -> Option<Status> {
    if source != DECISIONS_NOTE {
        return None;
    }
    // The section again, cut from one heading line and the body (the heading is not read for
    // the status).
    let body = text.strip_prefix(heading).unwrap_or(text);
    let body = body.strip_prefix('\n').unwrap_or(body);
    let section = format!("### _\n{body}");
    let status = sections(&section).first().and_then(status_of);
    Some(status.unwrap_or(Status::Active))
}

/// The factor on the score of a note of this status (module documentation).
#[must_use]
pub fn weight(status: Option<&Status>) -> f64 {
    match status {
        Some(Status::Proposed) => PROPOSED_WEIGHT,
        Some(status) if status.is_ended() => ENDED_WEIGHT,
        _ => 1.0,
    }
}

/// Adds a note's status to its result: `"status"` (the canonical spelling), and
/// `"supersededBy"` when a superseded decision names its successor. Nothing for a note without
/// a status.
pub fn add_to_entry(entry: &mut Object, status: Option<&Status>) {
    let Some(status) = status else {
        return;
    };
    entry.insert("status", status.as_str());
    if let Status::Superseded { by: Some(by) } = status {
        entry.insert("supersededBy", by.as_str());
    }
}

/// The mark a human result line ends with, from a result's `status` and `supersededBy` keys:
/// `[superseded by <heading>]`, `[status unreadable: may be in force]`, or the status
/// (`[active]`, `[proposed]`…); `None` for a result without a status.
#[must_use]
pub fn mark(entry: &Object) -> Option<String> {
    let status = entry.get("status")?.as_str()?;
    Some(
        match (status, entry.get("supersededBy").and_then(|v| v.as_str())) {
            ("superseded", Some(by)) => format!("[superseded by {by}]"),
            ("unreadable", _) => "[status unreadable: may be in force]".to_owned(),
            (other, _) => format!("[{other}]"),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The status of the first section of `text`, as a note of `source`.
    fn status_in(source: &str, text: &str) -> Option<Status> {
        let section = sections(text)[0];
        note_status(source, section.heading, &section.trimmed_text())
    }

    #[track_caller]
    #[expect(
        clippy::needless_pass_by_value,
        reason = "the table reads better with values"
    )]
    fn case(text: &str, expected: Option<Status>) {
        assert_eq!(status_in(DECISIONS_NOTE, text), expected, "{text:?}");
    }

    #[test]
    fn a_decision_has_the_status_its_line_states_and_is_in_force_without_one() {
        case("### A\n**Status:** active\n", Some(Status::Active));
        case("### A\nNo status line.\n", Some(Status::Active));
        case(
            "### Stripe\n**Status:** superseded by Adyen as the payment provider\n",
            Some(Status::Superseded {
                by: Some("Adyen as the payment provider".to_owned()),
            }),
        );
        case("### A\n- Status: rejected\n", Some(Status::Rejected));
        // The heading is not read as a status line, even when it looks like one.
        case("### Status: rejected\nWe do this.\n", Some(Status::Active));
        // A section with an empty heading keeps its first body line as the body.
        case("### \n**Status:** proposed\n", Some(Status::Proposed));
    }

    #[test]
    fn lessons_and_patterns_have_no_status() {
        for source in ["lessons.md", "patterns.md"] {
            assert_eq!(status_in(source, "### A\n**Status:** superseded\n"), None);
        }
    }

    #[test]
    fn ended_decisions_weigh_less_than_proposed_ones_and_those_less_than_in_force() {
        let ended = [
            Status::Superseded { by: None },
            Status::Abrogated,
            Status::RolledBack,
            Status::Rejected,
            Status::Deprecated,
        ];
        for status in &ended {
            assert_eq!(weight(Some(status)), ENDED_WEIGHT, "{status:?}");
        }
        assert_eq!(weight(Some(&Status::Proposed)), PROPOSED_WEIGHT);
        const { assert!(ENDED_WEIGHT < PROPOSED_WEIGHT && PROPOSED_WEIGHT < 1.0) };
        for status in [
            None,
            Some(Status::Active),
            Some(Status::Unreadable("x".to_owned())),
        ] {
            assert_eq!(weight(status.as_ref()), 1.0, "{status:?}");
        }
    }

    #[test]
    fn in_force_keeps_all_but_ended_and_proposed_decisions() {
        let keeps = |s: Option<Status>| StatusFilter::InForce.keeps(s.as_ref());
        assert!(keeps(None));
        assert!(keeps(Some(Status::Active)));
        assert!(keeps(Some(Status::Unreadable("maybe".to_owned()))));
        assert!(!keeps(Some(Status::Proposed)));
        assert!(!keeps(Some(Status::Rejected)));
        assert!(!keeps(Some(Status::Superseded { by: None })));
        assert!(StatusFilter::All.keeps(Some(&Status::Rejected)));
        assert_eq!(StatusFilter::parse("in-force"), Some(StatusFilter::InForce));
        assert_eq!(StatusFilter::parse("all"), Some(StatusFilter::All));
        assert_eq!(StatusFilter::parse("In-Force"), None);
    }

    #[test]
    fn entries_and_marks() {
        let mut entry = Object::new().with("kind", "note");
        add_to_entry(&mut entry, None);
        assert_eq!(mark(&entry), None);
        add_to_entry(
            &mut entry,
            Some(&Status::Superseded {
                by: Some("Adyen".to_owned()),
            }),
        );
        assert_eq!(
            entry.get("status").and_then(|v| v.as_str()),
            Some("superseded")
        );
        assert_eq!(mark(&entry).as_deref(), Some("[superseded by Adyen]"));
        let mut other = Object::new();
        add_to_entry(&mut other, Some(&Status::Superseded { by: None }));
        assert!(!other.contains_key("supersededBy"));
        assert_eq!(mark(&other).as_deref(), Some("[superseded]"));
        let mut unreadable = Object::new();
        add_to_entry(&mut unreadable, Some(&Status::Unreadable("WIP".to_owned())));
        assert_eq!(
            mark(&unreadable).as_deref(),
            Some("[status unreadable: may be in force]")
        );
        let mut active = Object::new();
        add_to_entry(&mut active, Some(&Status::Active));
        assert_eq!(mark(&active).as_deref(), Some("[active]"));
    }
}
