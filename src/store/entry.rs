//! What one note entry (a `###` section of `decisions.md` or `lessons.md`) says about itself:
//! its status and its date. One reader for every command that needs them — `brief`, `status`,
//! and the decision lifecycle and lint to come — so they can never disagree.
//!
//! An entry states a field on a line of its own, in any of the spellings people write:
//! `**Status:** active`, `- **Status**: active`, `- **Status** : active` (a space, or a no-break
//! space, before the colon), `*Status*: active`, `__Status__: active`, `Status: active`, a list
//! marker (`-`, `*`, `+`), a `>` quote and a symbol such as an emoji (`❌ **Status**: x`)
//! in front allowed; or as the row of a key/value table,
//! `| Status | active |`. The key is matched without regard to case; the status key may also
//! be spelled the French way, `Statut`. The first such line of the entry wins; lines inside
//! fenced code are not read.
//!
//! A status value is read by its first word, ignoring decoration around it (emoji, brackets,
//! backticks, emphasis, struck-through text): `❌ superseded`, `[rolled-back]`,
//! `` `Rolled-back` `` and `**superseded**` all read. A history written with arrows reads as its
//! last status: `proposed → accepted` is active. A value that names no known status is
//! [`Status::Unreadable`], never silently a status.
//!
//! [`status_line`] also says where the status line stands in the file (the line's and the
//! value's byte ranges), so that a command changing a status can rewrite the value in place and
//! keep the line as its author spelled it.
//!
//! An entry's date is the `YYYY-MM-DD` its heading starts with, else the one a `Date` field
//! starts with (`**Date:** 2026-08-03`, `- **Date**: 2026-08-03`); backticks, brackets or
//! emphasis in front of the date are skipped (`### [2026-08-03] Title`).
//!
//! Pure: no I/O.

use std::ops::Range;

use crate::js::text::{is_whitespace, trim};
use crate::store::sections::Section;

/// A decision's status, as its `Status` line states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// In force (`active`; also `accepted`, `adopted`, `approved`, and the French `actif`,
    /// `accepté`, `adopté`, `validé`, `approuvé`).
    Active,
    /// Replaced by another decision, named when the line says `superseded by <heading>`.
    Superseded { by: Option<String> },
    /// Withdrawn without a successor (`abrogated`, `revoked`, `abrogé`, `abandonné`).
    Abrogated,
    /// Undone after it was applied (`rolled-back`, `rolled back`, `rollback`, `reverted`).
    RolledBack,
    /// Not yet decided (`proposed`, `draft`, `proposé`, `brouillon`).
    Proposed,
    /// Considered and turned down, never in force (`rejected`, `declined`, `rejeté`, `refusé`).
    Rejected,
    /// Left to fade without a successor named (`deprecated`, `obsolete`, `déprécié`,
    /// `obsolète`).
    Deprecated,
    /// A status line whose value names none of the above: the value as written, trimmed.
    Unreadable(String),
}

impl Status {
    /// The canonical spelling: `active`, `superseded`, `abrogated`, `rolled-back`, `proposed`,
    /// `rejected`, `deprecated`, or `unreadable`.
    #[must_use]
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Superseded { .. } => "superseded",
            Status::Abrogated => "abrogated",
            Status::RolledBack => "rolled-back",
            Status::Proposed => "proposed",
            Status::Rejected => "rejected",
            Status::Deprecated => "deprecated",
            Status::Unreadable(_) => "unreadable",
        }
    }

    /// Known to be in force (`active` and its synonyms).
    #[must_use]
    pub fn is_in_force(&self) -> bool {
        *self == Status::Active
    }

    /// Known to be no longer in force, or never to have been: superseded, abrogated, rolled
    /// back, rejected, deprecated.
    #[must_use]
    pub fn is_ended(&self) -> bool {
        matches!(
            self,
            Status::Superseded { .. }
                | Status::Abrogated
                | Status::RolledBack
                | Status::Rejected
                | Status::Deprecated
        )
    }

    /// The value to write on a status line: the canonical spelling, `superseded by <heading>`
    /// when the successor is known, an unreadable value as it was written. [`parse_status`]
    /// reads it back as the same status.
    #[must_use]
    pub fn to_value(&self) -> String {
        match self {
            Status::Superseded { by: Some(by) } => format!("superseded by {by}"),
            Status::Unreadable(value) => value.clone(),
            other => other.as_str().to_owned(),
        }
    }
}

/// The value of `line` when it is a `key: value` field line in one of the spellings of the
/// module documentation; `key` is ASCII, matched without regard to case.
#[must_use]
pub fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let is_emphasis = |c: char| c == '*' || c == '_';
    let mut rest = trim(line);
    if let Some(row) = rest.strip_prefix('|') {
        // A key/value table row: `| **Status** | superseded |`.
        let mut cells = row.split('|');
        let name = trim(cells.next()?).trim_matches(is_emphasis);
        let name = trim(name.trim_end_matches(':'));
        let value = cells.next()?;
        if !name.eq_ignore_ascii_case(key) {
            return None;
        }
        return Some(trim(trim(value).trim_matches(is_emphasis)));
    }
    loop {
        let before = rest.len();
        if let Some(quoted) = rest.strip_prefix('>') {
            rest = trim(quoted);
        }
        if let Some(marker) = rest.strip_prefix(['-', '*', '+'])
            && marker.starts_with(is_whitespace)
        {
            rest = trim(marker);
        }
        if rest.len() == before {
            break;
        }
    }
    // A marker before the key (`❌ **Status**: superseded`): symbols such as emoji.
    let symbols = rest.trim_start_matches(|c: char| {
        !c.is_alphanumeric() && !is_whitespace(c) && !"*_`[(<|".contains(c)
    });
    rest = trim(symbols);
    rest = rest.trim_start_matches(is_emphasis);
    let head = rest.get(..key.len())?;
    if !head.eq_ignore_ascii_case(key) {
        return None;
    }
    rest = rest[key.len()..].trim_start_matches(|c| is_emphasis(c) || is_whitespace(c));
    rest = rest
        .strip_prefix(':')
        .or_else(|| rest.strip_prefix('\u{ff1a}'))?;
    let value = rest.trim_start_matches(|c| is_emphasis(c) || is_whitespace(c));
    Some(trim(value.trim_end_matches(is_emphasis)))
}

/// A field line of an entry, located in the text the entry was cut from (the text given to
/// [`sections`](crate::store::sections::sections)), so that a caller can rewrite its value in
/// place and keep the line's spelling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldLine<'a> {
    /// The value, as [`field`] reads it.
    pub value: &'a str,
    /// The byte range of the whole line, without its line terminator (`\n` or `\r\n`).
    pub line: Range<usize>,
    /// The byte range of the value, inside `line`: replacing it changes the value and nothing
    /// else (a closing `**` after the value, as in `**Status: active**`, is outside it).
    pub value_range: Range<usize>,
}

/// An entry's status line: the status it states and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusLine<'a> {
    pub status: Status,
    pub field: FieldLine<'a>,
}

/// The byte offset of `inner` in `outer`; `inner` must be a slice of `outer`.
fn offset_in(outer: &str, inner: &str) -> usize {
    let offset = (inner.as_ptr() as usize).wrapping_sub(outer.as_ptr() as usize);
    debug_assert!(offset <= outer.len() && offset + inner.len() <= outer.len());
    offset
}

/// The first field line of an entry's body named by one of `keys`, outside fenced code.
#[must_use]
pub fn field_line<'a>(section: &Section<'a>, keys: &[&str]) -> Option<FieldLine<'a>> {
    let body = section.parts()[2];
    // The open fence's character and length.
    let mut fence: Option<(char, usize)> = None;
    let mut start = 0;
    for raw in body.split_inclusive('\n') {
        let line_start = start;
        start += raw.len();
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let indented = line.trim_start_matches(' ');
        let run = |mark: char| indented.len() - indented.trim_start_matches(mark).len();
        let opens = [('`', run('`')), ('~', run('~'))]
            .into_iter()
            .find(|(_, len)| *len >= 3);
        match (fence, opens) {
            (None, Some(open)) => fence = Some(open),
            (Some((mark, len)), Some((other, run)))
                if mark == other && run >= len && trim(&indented[run..]).is_empty() =>
            {
                fence = None;
            }
            (Some(_), _) => {}
            (None, None) => {
                if let Some(value) = keys.iter().find_map(|key| field(line, key)) {
                    let at = section.body_start() + line_start;
                    let value_at = at + offset_in(line, value);
                    return Some(FieldLine {
                        value,
                        line: at..at + line.len(),
                        value_range: value_at..value_at + value.len(),
                    });
                }
            }
        }
    }
    None
}

/// The value of the first field of an entry's body named by one of `keys`, outside fenced
/// code.
#[must_use]
pub fn field_of<'a>(section: &Section<'a>, keys: &[&str]) -> Option<&'a str> {
    field_line(section, keys).map(|f| f.value)
}

/// The status line of a decision, when it has one: its status and where the line stands.
#[must_use]
pub fn status_line<'a>(section: &Section<'a>) -> Option<StatusLine<'a>> {
    field_line(section, &["status", "statut"]).map(|field| StatusLine {
        status: parse_status(field.value),
        field,
    })
}

/// The status a decision states; `None` when it has no `Status` line (such a decision stands
/// until something replaces it).
#[must_use]
pub fn status_of(section: &Section<'_>) -> Option<Status> {
    status_line(section).map(|line| line.status)
}

/// Whether a decision is known to be in force: its status says so, or it says nothing.
#[must_use]
pub fn is_active(section: &Section<'_>) -> bool {
    matches!(status_of(section), None | Some(Status::Active))
}

/// Whether a decision may be in force: known to be ([`is_active`]), or its status line cannot
/// be read. These are the decisions `brief` shows and `status` counts as active.
#[must_use]
pub fn may_be_in_force(section: &Section<'_>) -> bool {
    matches!(
        status_of(section),
        None | Some(Status::Active | Status::Unreadable(_))
    )
}

/// `text` without its `~~struck-through~~` spans.
fn without_strikethrough(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("~~") {
        let Some(len) = rest[start + 2..].find("~~") else {
            break;
        };
        out.push_str(&rest[..start]);
        rest = &rest[start + 2 + len + 2..];
    }
    out.push_str(rest);
    out
}

/// Reads a `Status` field's value (see the module documentation).
#[must_use]
pub fn parse_status(value: &str) -> Status {
    let plain = without_strikethrough(value);
    // A history written with arrows (`proposed → accepted`, `active -> superseded by X`) ends
    // with the status in force: the last part after an arrow that starts with a status word
    // counts; otherwise the whole value (an arrow may also name a successor:
    // `superseded → [[X]]`).
    let mut starts: Vec<usize> = ["→", "->", "=>", "⇒", "⟶"]
        .iter()
        .flat_map(|arrow| plain.match_indices(arrow).map(|(i, a)| i + a.len()))
        .collect();
    starts.sort_unstable();
    starts
        .iter()
        .rev()
        .chain(std::iter::once(&0))
        .find_map(|&start| status_word(&plain[start..]))
        .unwrap_or_else(|| Status::Unreadable(trim(value).to_owned()))
}

/// The status `text` names by its first word, if any.
fn status_word(text: &str) -> Option<Status> {
    let lower = text.to_lowercase();
    let mut words = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty());
    let first = words.next().unwrap_or_default();
    let second = words.next().unwrap_or_default();
    Some(match first {
        "active" | "actif" | "accepted" | "adopted" | "approved" | "accepté" | "acceptée"
        | "adopté" | "adoptée" | "validé" | "validée" | "approuvé" | "approuvée" => {
            Status::Active
        }
        "superseded" | "replaced" | "remplacé" | "remplacée" => Status::Superseded {
            by: successor(text),
        },
        "abrogated" | "revoked" | "abrogé" | "abrogée" | "abandonné" | "abandonnée" => {
            Status::Abrogated
        }
        "rolled" | "rolledback" if first != "rolled" || second == "back" => Status::RolledBack,
        "rollback" | "reverted" => Status::RolledBack,
        "proposed" | "draft" | "proposé" | "proposée" | "brouillon" => Status::Proposed,
        "rejected" | "declined" | "rejeté" | "rejetée" | "refusé" | "refusée" => {
            Status::Rejected
        }
        "deprecated" | "obsolete" | "déprécié" | "dépréciée" | "obsolète" => {
            Status::Deprecated
        }
        _ => return None,
    })
}

/// What follows `by`/`par` (or an arrow) after the status word, without quotes and brackets.
fn successor(value: &str) -> Option<String> {
    let start = value.find(char::is_alphanumeric)?;
    let after = &value[start..];
    let word_end = after
        .find(|c: char| !c.is_alphanumeric())
        .unwrap_or(after.len());
    let junk =
        |c: char| is_whitespace(c) || "([{:,;.-—–→>*_`'\"«»“”".contains(c) || c == ')' || c == ']';
    let rest = after[word_end..].trim_start_matches(junk);
    let lower = rest.to_lowercase();
    let rest = ["by ", "par "]
        .iter()
        .find(|p| lower.starts_with(**p))
        .map_or(rest, |p| &rest[p.len()..]);
    let mut name = rest.trim_start_matches(junk);
    // A Markdown link names its successor by its text: `[Use slugs](0007-use-slugs.md)`.
    if let Some((text, target)) = name.split_once("](")
        && !text.contains('[')
        && target.trim_end().ends_with(')')
    {
        name = text;
    }
    // Trailing decoration goes, but a bracket closing one of the name's own stays:
    // `superseded by Cache (v2)` names `Cache (v2)`.
    while let Some(last) = name.chars().next_back() {
        let strip = match last {
            ')' => name.matches('(').count() < name.matches(')').count(),
            ']' => name.matches('[').count() < name.matches(']').count(),
            other => junk(other),
        };
        if !strip {
            break;
        }
        name = &name[..name.len() - last.len_utf8()];
    }
    (!name.is_empty()).then(|| name.to_owned())
}

/// The date of an entry: the `YYYY-MM-DD` its heading starts with, else the one its first
/// `Date` field starts with (in both, decoration such as backticks, brackets or emphasis
/// before the date skipped: `### [2026-10-01] A`, `### **2026-10-01** — A`).
#[must_use]
pub fn date_of<'a>(section: &Section<'a>) -> Option<&'a str> {
    let undecorated =
        |text: &'a str| heading_date(text.trim_start_matches(['`', '[', '(', '*', '_']));
    undecorated(section.heading).or_else(|| undecorated(field_of(section, &["date"])?))
}

/// The `YYYY-MM-DD` a heading starts with (`2026-10-18 — Title`), if any.
#[must_use]
pub fn heading_date(heading: &str) -> Option<&str> {
    let date = heading.get(..10)?;
    let bytes = date.as_bytes();
    let shape = bytes.iter().enumerate().all(|(i, b)| match i {
        4 | 7 => *b == b'-',
        _ => b.is_ascii_digit(),
    });
    shape.then_some(date)
}

/// A heading without the `YYYY-MM-DD` it starts with and the dashes, colons and spaces after
/// that date (`2026-10-18 — Title` → `Title`), trimmed: the title people name an entry by.
#[must_use]
pub fn undated(heading: &str) -> &str {
    let rest = match heading_date(heading) {
        Some(date) => &heading[date.len()..],
        None => heading,
    };
    trim(rest.trim_start_matches(|c: char| c.is_whitespace() || "—–-:".contains(c)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn undated_headings() {
        assert_eq!(
            undated("2026-10-01 — Session store in Redis"),
            "Session store in Redis"
        );
        assert_eq!(undated("2026-10-01: - Session"), "Session");
        assert_eq!(undated("Session store"), "Session store");
        assert_eq!(undated("2026-10-01"), "");
    }

    #[test]
    fn heading_dates() {
        assert_eq!(heading_date("2026-10-18 — Title"), Some("2026-10-18"));
        assert_eq!(heading_date("2026-1-18 — Title"), None);
        assert_eq!(heading_date("Title"), None);
        assert_eq!(heading_date("2026-10-1"), None);
    }

    use super::*;
    use crate::store::sections::sections;
    use proptest::prelude::*;

    #[track_caller]
    #[expect(
        clippy::needless_pass_by_value,
        reason = "the table reads better with values"
    )]
    fn case(line: &str, expected: Option<Status>) {
        let text = format!("### T\n{line}\n");
        let all = sections(&text);
        assert_eq!(status_of(&all[0]), expected, "{line:?}");
    }

    #[expect(
        clippy::unnecessary_wraps,
        reason = "what `status_of` returns, for the table"
    )]
    fn superseded(by: Option<&str>) -> Option<Status> {
        Some(Status::Superseded {
            by: by.map(str::to_owned),
        })
    }

    #[test]
    fn status_spellings() {
        case("**Status:** superseded", superseded(None));
        case("- **Status** : superseded", superseded(None));
        case("- **Status**\u{a0}: superseded", superseded(None));
        case("- **Status**: ❌ superseded", superseded(None));
        case("- **Status**: [rolled-back]", Some(Status::RolledBack));
        case("- *Status*: superseded", superseded(None));
        case("__Status__: abrogated", Some(Status::Abrogated));
        case("Status: Proposed", Some(Status::Proposed));
        case("* **status:** `Rolled back`", Some(Status::RolledBack));
        case("> **Status:** active ✅", Some(Status::Active));
        case("- **Status**: ~~active~~ superseded", superseded(None));
        case("**Status: superseded**", superseded(None));
        case("- **Statut** : actif", Some(Status::Active));
        case(
            "- **Statut** : remplacée par Redis",
            superseded(Some("Redis")),
        );
        case(
            "- **Status**: superseded by Session store in Redis",
            superseded(Some("Session store in Redis")),
        );
        case(
            "**Status:** superseded (by \"Session store in Redis\")",
            superseded(Some("Session store in Redis")),
        );
        case(
            "- **Status**: superseded → [[2026-10-05 — Redis]]",
            superseded(Some("2026-10-05 — Redis")),
        );
        case("- **Status**: deprecated", Some(Status::Deprecated));
        case("- **Status**: ❌ Rejected", Some(Status::Rejected));
        case("- **Statut** : refusée", Some(Status::Rejected));
        case("- **Status**: Obsolete", Some(Status::Deprecated));
        case(
            "- **Status**: in force",
            Some(Status::Unreadable("in force".into())),
        );
        case("- **Status**:", Some(Status::Unreadable(String::new())));
        case("- **Status**: 🤷", Some(Status::Unreadable("🤷".into())));
        case("- **Decision**: status: superseded", None);
        case("Status update: superseded", None);
        case("Statuses: superseded", None);
        case("| Status | Superseded |", superseded(None));
        case("| **Statut** | ✅ actif |", Some(Status::Active));
        case("|Status:|rolled back|", Some(Status::RolledBack));
        case("| Decision | status: superseded |", None);
        case("- **Status**: Proposed → Accepted", Some(Status::Active));
        case(
            "**Status:** Accepted -> Superseded by Session store in Redis",
            superseded(Some("Session store in Redis")),
        );
        case("- **Statut** : actif ⇒ abrogé", Some(Status::Abrogated));
        case("- **Status**: active → 2026-10-05", Some(Status::Active));
        case("- ❌ **Status**: superseded", superseded(None));
        case(
            "- Status: superseded by [0007-use-slugs](0007-use-slugs.md)",
            superseded(Some("0007-use-slugs")),
        );
        case("✅ **Statut** : actif", Some(Status::Active));
        case("-> Status: abrogated", Some(Status::Abrogated));
        case("❌**Status**: superseded", superseded(None));
        case(
            "```\n**Status:** superseded\n```\n**Status:** active",
            Some(Status::Active),
        );
    }

    #[test]
    fn what_may_be_in_force() {
        let text = "### A\n**Status:** active\n### B\ntext\n### C\n**Status:** to be confirmed\n### D\n**Status:** superseded\n### E\n**Status:** proposed\n";
        let all = sections(text);
        let known: Vec<bool> = all.iter().map(is_active).collect();
        let may: Vec<bool> = all.iter().map(may_be_in_force).collect();
        assert_eq!(known, [true, true, false, false, false]);
        assert_eq!(may, [true, true, true, false, false]);
    }

    #[test]
    fn the_first_status_line_wins() {
        case(
            "- **Status**: active\n- **Status**: superseded",
            Some(Status::Active),
        );
    }

    #[test]
    fn dates_from_the_heading_or_a_date_line() {
        let text = "### 2026-10-01 — A\n**Date:** 2026-09-01\n### B\n**Date:** 2026-08-03\n### C\n- **Date**: `2026-08-04` (approx.)\n### D\n- **Date** : someday\n### E\nDated 2026-08-05\n### [2026-08-06] F\n### **2026-08-07** — G\n";
        let dates: Vec<Option<&str>> = sections(text).iter().map(date_of).collect();
        assert_eq!(
            dates,
            [
                Some("2026-10-01"),
                Some("2026-08-03"),
                Some("2026-08-04"),
                None,
                None,
                Some("2026-08-06"),
                Some("2026-08-07")
            ]
        );
    }

    /// `text` with the status line of its section headed `heading` flipped to `to`.
    fn flip(text: &str, heading: &str, to: &str) -> String {
        let all = sections(text);
        let section = all.iter().find(|s| s.heading == heading).unwrap();
        let line = status_line(section).unwrap();
        assert_eq!(&text[line.field.value_range.clone()], line.field.value);
        let mut out = text.to_owned();
        out.replace_range(line.field.value_range, to);
        out
    }

    #[test]
    fn the_status_line_is_located_in_the_file() {
        let text = "# Decisions\r\n\r\n### Auth\r\n**Date:** 2026-08-03\r\n**Status:** active\r\n\r\n### Cache\n```\n- **Status**: draft\n```\n- **Statut** : ✅ actif\n### Session store\n**Status: active**\n### None\ntext\n";
        let all = sections(text);
        let lines: Vec<Option<(&str, &str, &str)>> = all
            .iter()
            .map(|s| {
                status_line(s).map(|l| {
                    (
                        l.status.as_str(),
                        &text[l.field.line],
                        &text[l.field.value_range],
                    )
                })
            })
            .collect();
        assert_eq!(
            lines,
            [
                Some(("active", "**Status:** active", "active")),
                Some(("active", "- **Statut** : ✅ actif", "✅ actif")),
                Some(("active", "**Status: active**", "active")),
                None,
            ]
        );
        assert_eq!(
            flip(text, "Auth", "superseded by Session store"),
            text.replacen(
                "**Status:** active\r\n",
                "**Status:** superseded by Session store\r\n",
                1
            )
        );
        assert_eq!(
            flip(text, "Cache", "abrogated"),
            text.replacen("- **Statut** : ✅ actif", "- **Statut** : abrogated", 1)
        );
        let flipped = flip(text, "Session store", "rolled-back");
        assert!(flipped.contains("\n**Status: rolled-back**\n"), "{flipped}");
        let table = "### ADR 7\n| Field | Value |\n|---|---|\n| **Status** | ✅ Active |\n";
        assert_eq!(
            flip(table, "ADR 7", "superseded"),
            "### ADR 7\n| Field | Value |\n|---|---|\n| **Status** | superseded |\n"
        );
        let again = sections(&flipped);
        assert_eq!(status_of(&again[2]), Some(Status::RolledBack));
        assert_eq!(status_of(&again[0]), Some(Status::Active));
    }

    #[test]
    fn a_written_value_reads_back_as_the_same_status() {
        for status in [
            Status::Active,
            Status::Superseded { by: None },
            Status::Superseded {
                by: Some("2026-10-05 — Session store in Redis".into()),
            },
            Status::Superseded {
                by: Some("Cache layer (v2)".into()),
            },
            Status::Superseded {
                by: Some("ADR-0007 [infra]".into()),
            },
            Status::Abrogated,
            Status::RolledBack,
            Status::Proposed,
            Status::Rejected,
            Status::Deprecated,
            Status::Unreadable("TBD".into()),
        ] {
            assert_eq!(parse_status(&status.to_value()), status, "{status:?}");
        }
    }

    fn spelling() -> impl Strategy<Value = (String, String)> {
        (
            prop::sample::select(vec!["", "- ", "* ", "+ ", "> ", "> - "]),
            prop::sample::select(vec![
                ("**", "**", ":"),
                ("**", ":**", ""),
                ("*", "*", ":"),
                ("__", "__", ":"),
                ("", "", ":"),
            ]),
            prop::sample::select(vec!["", " ", "\u{a0}", "\u{202f}"]),
            prop::sample::select(vec!["Status", "status", "STATUS"]),
        )
            .prop_map(|(marker, (open, close, colon), space, key)| {
                let sep = if colon.is_empty() {
                    String::new()
                } else {
                    format!("{space}{colon}")
                };
                (format!("{marker}{open}{key}{close}{sep}"), key.to_owned())
            })
    }

    proptest! {
        #[test]
        fn every_spelling_reads_every_status(
            (prefix, _) in spelling(),
            word in prop::sample::select(vec![
                ("active", "active"),
                ("Superseded", "superseded"),
                ("abrogated", "abrogated"),
                ("rolled-back", "rolled-back"),
                ("Rolled back", "rolled-back"),
                ("proposed", "proposed"),
            ]),
            decoration in prop::sample::select(vec![
                ("", ""), ("`", "`"), ("[", "]"), ("❌ ", ""), ("**", "**"), ("✅ ", " ✅"),
            ]),
        ) {
            let line = format!("{prefix} {}{}{}", decoration.0, word.0, decoration.1);
            let text = format!("### T\n{line}\n");
            let all = sections(&text);
            let status = status_of(&all[0]);
            prop_assert_eq!(status.as_ref().map(Status::as_str), Some(word.1), "{:?}", line);
            let located = status_line(&all[0]).unwrap();
            prop_assert_eq!(&text[located.field.line], line.as_str());
            prop_assert_eq!(&text[located.field.value_range], located.field.value);
        }

        #[test]
        fn any_line_reads_without_panicking(line in "\\PC{0,40}") {
            let _ = field(&line, "status");
            let _ = parse_status(&line);
            let text = format!("### T\n{line}\n");
            let all = sections(&text);
            let _ = date_of(&all[0]);
            if let Some(located) = status_line(&all[0]) {
                prop_assert_eq!(&text[located.field.value_range], located.field.value);
            }
        }
    }
}
