//! What one note entry (a `###` section of `decisions.md` or `lessons.md`) says about itself:
//! its status and its date. One reader for every command that needs them — `brief`, `status`,
//! `recall`, `lint`, the decision commands and the entry commands — so they can never disagree.
//!
//! An entry states a field on a line of its own, in any of the spellings people write:
//! `**Status:** active`, `- **Status**: active`, `- **Status** : active` (a space, or a no-break
//! space, before the colon), `*Status*: active`, `__Status__: active`, `Status: active` (also a
//! MADR front matter's `status: accepted` and a MADR 2 list's `* Status: accepted`), a list
//! marker (`-`, `*`, `+`), a `>` quote and a symbol such as an emoji (`❌ **Status**: x`)
//! in front allowed; or as the row of a key/value table,
//! `| Status | active |`. The key is matched without regard to case; the status key may also
//! be spelled the French way, `Statut`. Lines inside fenced code are not read.
//!
//! A status may also be stated the way ADR folders (adr-tools, Nygard, log4brains) do, by a
//! heading: `## Status` (any level, `Statut` too) with the value on the next line that is not
//! blank (`Accepted`, `✅ Accepted`, `**rejected**`), or a heading carrying the value
//! (`#### Status: Deprecated`). The lines after the value, up to the next heading, are the
//! *status block*: a `Superseded by …` line there (`Superceded by`, `Replaced by`, `Overridden
//! by`, `Remplacé par`) makes the decision superseded by that successor, whatever the value
//! says (`Accepted` then `Superseded by [35. Listeners](0035-listeners.md)`); a superseded value
//! that names no successor takes the first link to a record in the block. The first status an
//! entry states wins; [`status_lines`] gives them all, for the check that they agree.
//!
//! A status value is read by its first word, ignoring decoration around it (emoji, brackets,
//! backticks, emphasis, struck-through text): `❌ superseded`, `[rolled-back]`,
//! `` `Rolled-back` `` and `**superseded**` all read. A history written with arrows reads as its
//! last status: `proposed → accepted` is active. A value that names no known status is
//! [`Status::Unreadable`], never silently a status (`Partly superseded`, `In progress`). A
//! successor is what follows `by` (`par`, an arrow): a link's text (`superseded by [16. Use
//! rubocop](0016-use-rubocop.md)` names `16. Use rubocop`), or the rest of the value; a link
//! right after the word names it too (`⌛️ Superseded [0019](0019-use-go.md)`).
//!
//! [`status_line`] also says where the status line stands in the file (the line's and the
//! value's byte ranges; under a `Status` heading, the value's line), so that a command changing
//! a status can rewrite the value in place and keep the line as its author spelled it.
//!
//! An entry's date is the `YYYY-MM-DD` its heading starts with, else the one a `Date` field
//! starts with (`**Date:** 2026-08-03`, `- **Date**: 2026-08-03`); backticks, brackets or
//! emphasis in front of the date are skipped (`### [2026-08-03] Title`).
//!
//! Pure: no I/O.

use std::ops::Range;

use crate::js::text::{is_whitespace, trim};
use crate::store::fences::Tracker;
use crate::store::sections::Section;

/// A decision's status, as its `Status` line states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// In force (`active`; also `accepted`, `adopted`, `approved`, `implemented`, `complete`,
    /// `completed`, and the French `actif`, `accepté`, `adopté`, `validé`, `approuvé`,
    /// `implémenté`).
    Active,
    /// Replaced by another decision, named when the line says `superseded by <heading>` (also
    /// `superceded`, `replaced`, `overridden`, `remplacé`).
    Superseded { by: Option<String> },
    /// Withdrawn without a successor (`abrogated`, `revoked`, `withdrawn`, `abrogé`,
    /// `abandonné`).
    Abrogated,
    /// Undone after it was applied (`rolled-back`, `rolled back`, `rollback`, `reverted`).
    RolledBack,
    /// Not yet decided (`proposed`, `draft`, `pending`, `proposé`, `brouillon`).
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

/// Whether `c` marks emphasis (`*`, `_`).
fn is_emphasis(c: char) -> bool {
    c == '*' || c == '_'
}

/// `text` trimmed, without the `>` quote marks and list markers (`-`, `*`, `+`) in front.
fn without_markers(text: &str) -> &str {
    let mut rest = trim(text);
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
            return rest;
        }
    }
}

/// `text` without the symbols (such as emoji) in front of its first word.
fn without_symbols(text: &str) -> &str {
    trim(text.trim_start_matches(|c: char| {
        !c.is_alphanumeric() && !is_whitespace(c) && !"*_`[(<|".contains(c)
    }))
}

/// The value of `line` when it is a `key: value` field line in one of the spellings of the
/// module documentation; `key` is ASCII, matched without regard to case.
#[must_use]
pub fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
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
    // A marker before the key (`❌ **Status**: superseded`): symbols such as emoji.
    rest = without_symbols(without_markers(rest));
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
    /// The value, as [`field`] reads it (for a status under a `Status` heading, the line that
    /// follows the heading, without its list marker or emphasis).
    pub value: &'a str,
    /// The byte range of the whole line, without its line terminator (`\n` or `\r\n`).
    pub line: Range<usize>,
    /// The byte range of the value, inside `line`: replacing it changes the value and nothing
    /// else (a closing `**` after the value, as in `**Status: active**`, is outside it).
    pub value_range: Range<usize>,
}

/// An entry's status line: the status it states and where it stands. Under a `Status`
/// heading, the line is the value's; the status also takes in the successor the rest of the
/// status block names.
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

/// `value`, a slice of `line`, which starts at byte `at` of the source, located.
fn located<'a>(at: usize, line: &'a str, value: &'a str) -> FieldLine<'a> {
    let value_at = at + offset_in(line, value);
    FieldLine {
        value,
        line: at..at + line.len(),
        value_range: value_at..value_at + value.len(),
    }
}

/// The lines of an entry's body: where each starts in the body, its text without the line
/// terminator, and whether it is fenced code (a fence line included).
#[derive(Clone)]
struct BodyLines<'a> {
    rest: &'a str,
    at: usize,
    fence: Tracker,
}

impl<'a> BodyLines<'a> {
    fn new(body: &'a str) -> Self {
        Self {
            rest: body,
            at: 0,
            fence: Tracker::any_indent(),
        }
    }
}

impl<'a> Iterator for BodyLines<'a> {
    type Item = (usize, &'a str, bool);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', self.rest.as_bytes()).map_or(self.rest.len(), |i| i + 1);
        let raw = &self.rest[..end];
        let at = self.at;
        self.rest = &self.rest[end..];
        self.at += end;
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let line = line.strip_suffix('\r').unwrap_or(line);
        Some((at, line, self.fence.is_code(line)))
    }
}

/// The first field line of an entry's body named by one of `keys`, outside fenced code.
#[must_use]
pub fn field_line<'a>(section: &Section<'a>, keys: &[&str]) -> Option<FieldLine<'a>> {
    let base = section.body_start();
    BodyLines::new(section.parts()[2])
        .filter(|(_, _, is_code)| !is_code)
        .find_map(|(at, line, _)| {
            let value = keys.iter().find_map(|key| field(line, key))?;
            Some(located(base + at, line, value))
        })
}

/// The value of the first field of an entry's body named by one of `keys`, outside fenced
/// code.
#[must_use]
pub fn field_of<'a>(section: &Section<'a>, keys: &[&str]) -> Option<&'a str> {
    field_line(section, keys).map(|f| f.value)
}

/// The keys a status is named by.
const STATUS_KEYS: [&str; 2] = ["status", "statut"];

/// The text of a Markdown heading line (`#` to `######`), its closing `#`s left out.
fn heading_text(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches(' ');
    if line.len() - rest.len() > 3 {
        return None;
    }
    let hashes = rest.bytes().take_while(|&b| b == b'#').count();
    let after = &rest[hashes..];
    if !(1..=6).contains(&hashes) || !(after.is_empty() || after.starts_with(is_whitespace)) {
        return None;
    }
    Some(trim(trim(after).trim_end_matches('#')))
}

/// Whether `line` is a heading naming the status and nothing else: `## Status`,
/// `#### **Statut** :`.
fn is_status_heading(line: &str) -> bool {
    heading_text(line).is_some_and(|text| {
        let name = without_symbols(text).trim_matches(|c| is_emphasis(c) || is_whitespace(c));
        let name = trim(name.trim_end_matches([':', '\u{ff1a}']));
        let name = name.trim_matches(|c| is_emphasis(c) || is_whitespace(c));
        STATUS_KEYS.iter().any(|key| name.eq_ignore_ascii_case(key))
    })
}

/// The value a line under a `Status` heading states: the line without its list marker, quote
/// or emphasis (`**Accepted**`), or a status field's value (`Status: accepted`).
fn value_in(line: &str) -> &str {
    if let Some(value) = STATUS_KEYS.iter().find_map(|key| field(line, key)) {
        return value;
    }
    let rest = without_markers(line).trim_start_matches(|c| is_emphasis(c) || is_whitespace(c));
    trim(rest.trim_end_matches(is_emphasis))
}

/// Whether `text` starts `superseded by` (or a synonym: `replaced by`, `remplacé par`, …).
fn says_superseded_by(text: &str) -> bool {
    let lower = text.to_lowercase();
    let mut words = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty());
    matches!(status_word(&lower), Some(Status::Superseded { .. }))
        && words.nth(1).is_some_and(|w| w == "by" || w == "par")
}

/// The text of the first Markdown link of `text` that leads to a decision record: a link to a
/// `.md` file, or to any target that is not a web address.
fn record_link(text: &str) -> Option<&str> {
    let mut rest = text;
    while let Some(middle) = rest.find("](") {
        let name = &rest[..middle];
        let name = name.rfind('[').map(|open| trim(&name[open + 1..]));
        let target = &rest[middle + 2..];
        let target = &target[..target.find(')').unwrap_or(target.len())];
        let path = target.split(['#', ' ']).next().unwrap_or_default();
        let is_web = ["http://", "https://"].iter().any(|scheme| {
            path.get(..scheme.len())
                .is_some_and(|s| s.eq_ignore_ascii_case(scheme))
        });
        if let Some(name) = name.filter(|n| !n.is_empty())
            && (!is_web || path.to_ascii_lowercase().ends_with(".md"))
        {
            return Some(name);
        }
        rest = &rest[middle + 2..];
    }
    None
}

/// `status` completed by the rest of its status block (the `lines` after the value, up to the
/// next heading): a `Superseded by …` line there makes it superseded by that successor; a
/// superseded status that names no successor takes the first link to a record there.
fn with_block(status: Status, lines: BodyLines<'_>) -> Status {
    if matches!(status, Status::Superseded { by: Some(_) }) {
        return status;
    }
    let mut is_superseded = matches!(status, Status::Superseded { .. });
    let mut link = None;
    for (_, line, is_code) in lines {
        if is_code {
            continue;
        }
        if heading_text(line).is_some() {
            break;
        }
        let text = value_in(line);
        if says_superseded_by(text) {
            if let Some(Status::Superseded { by: Some(by) }) = status_word(text) {
                return Status::Superseded { by: Some(by) };
            }
            is_superseded = true;
        }
        if link.is_none() {
            link = record_link(text);
        }
    }
    if is_superseded {
        Status::Superseded {
            by: link.map(str::to_owned),
        }
    } else {
        status
    }
}

/// Every status an entry's body states, in order, outside fenced code (see the module
/// documentation).
struct Declarations<'a> {
    lines: BodyLines<'a>,
    base: usize,
}

impl<'a> Iterator for Declarations<'a> {
    type Item = StatusLine<'a>;

    fn next(&mut self) -> Option<StatusLine<'a>> {
        while let Some((at, line, is_code)) = self.lines.next() {
            if is_code {
                continue;
            }
            if is_status_heading(line) {
                // The value is the next line that is not blank, unless that is code or another
                // heading: then the heading states nothing.
                let mut ahead = self.lines.clone();
                if let Some((at, line, false)) =
                    ahead.find(|(_, line, is_code)| *is_code || !trim(line).is_empty())
                    && heading_text(line).is_none()
                {
                    self.lines = ahead;
                    let value = value_in(line);
                    return Some(StatusLine {
                        status: with_block(parse_status(value), self.lines.clone()),
                        field: located(self.base + at, line, value),
                    });
                }
                continue;
            }
            if let Some(value) = STATUS_KEYS.iter().find_map(|key| field(line, key)) {
                let mut status = parse_status(value);
                if heading_text(line).is_some() {
                    // `#### Status: Superseded`, its block under it.
                    status = with_block(status, self.lines.clone());
                }
                return Some(StatusLine {
                    status,
                    field: located(self.base + at, line, value),
                });
            }
        }
        None
    }
}

fn declarations<'a>(section: &Section<'a>) -> Declarations<'a> {
    Declarations {
        lines: BodyLines::new(section.parts()[2]),
        base: section.body_start(),
    }
}

/// The status line of a decision, when it has one: its first status, and where it stands.
#[must_use]
pub fn status_line<'a>(section: &Section<'a>) -> Option<StatusLine<'a>> {
    declarations(section).next()
}

/// Every status a decision states, in order: more than one is a record to correct (readers
/// take the first).
#[must_use]
pub fn status_lines<'a>(section: &Section<'a>) -> Vec<StatusLine<'a>> {
    declarations(section).collect()
}

/// The status a decision states; `None` when it states none (such a decision stands until
/// something replaces it).
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

/// The arrows a history of statuses is written with.
const ARROWS: [&str; 5] = ["→", "->", "=>", "⇒", "⟶"];

/// Reads a `Status` field's value (see the module documentation).
#[must_use]
pub fn parse_status(value: &str) -> Status {
    let plain = without_strikethrough(value);
    // A history written with arrows (`proposed → accepted`, `active -> superseded by X`) ends
    // with the status in force: the last part after an arrow that starts with a status word
    // counts; otherwise the whole value (an arrow may also name a successor:
    // `superseded → [[X]]`).
    let mut starts: Vec<usize> = ARROWS
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
        "active" | "actif" | "accepted" | "adopted" | "approved" | "implemented" | "complete"
        | "completed" | "accepté" | "acceptée" | "adopté" | "adoptée" | "validé" | "validée"
        | "approuvé" | "approuvée" | "implémenté" | "implémentée" => Status::Active,
        "superseded" | "superceded" | "replaced" | "overridden" | "remplacé" | "remplacée" => {
            Status::Superseded {
                by: successor(text),
            }
        }
        "abrogated" | "revoked" | "withdrawn" | "abrogé" | "abrogée" | "abandonné"
        | "abandonnée" => Status::Abrogated,
        "rolled" | "rolledback" if first != "rolled" || second == "back" => Status::RolledBack,
        "rollback" | "reverted" => Status::RolledBack,
        "proposed" | "draft" | "pending" | "proposé" | "proposée" | "brouillon" => {
            Status::Proposed
        }
        "rejected" | "declined" | "rejeté" | "rejetée" | "refusé" | "refusée" => {
            Status::Rejected
        }
        "deprecated" | "obsolete" | "déprécié" | "dépréciée" | "obsolète" => {
            Status::Deprecated
        }
        _ => return None,
    })
}

/// The name a link at the start of `text` gives: `[[Name]]`, `[Name](target)`, or a bare
/// `[Name]` alone or followed by an explanation (`[ADR 9] - with read models, …`).
fn leading_link(text: &str) -> Option<&str> {
    if let Some(inner) = text.strip_prefix("[[") {
        let name = &inner[..inner.find("]]")?];
        let name = trim(name.split('|').next().unwrap_or_default());
        return (!name.is_empty()).then_some(name);
    }
    let inner = text.strip_prefix('[')?;
    let end = inner.find(']')?;
    let name = trim(&inner[..end]);
    if name.is_empty() || name.contains('[') {
        return None;
    }
    let after = &inner[end + 1..];
    if after.starts_with('(') {
        return Some(name);
    }
    let after = after.trim_start_matches(is_whitespace);
    let explained = after
        .strip_prefix(['-', '–', '—', ':', ',', ';', '.'])
        .map(|rest| rest.trim_start_matches(is_whitespace))
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_lowercase));
    (after.is_empty() || explained).then_some(name)
}

/// The successor `text`, starting with a superseded status word, names: what follows `by` (or
/// `par`, or an arrow) after the word, without quotes and brackets, or a link right after the
/// word (`⌛️ Superseded [0019](0019-use-bash.md)`). Other words after it name nobody
/// (`superseded - the headline still applies`).
fn successor(text: &str) -> Option<String> {
    let start = text.find(char::is_alphanumeric)?;
    let after = &text[start..];
    let word_end = after
        .find(|c: char| !c.is_alphanumeric())
        .unwrap_or(after.len());
    let lead = |c: char| is_whitespace(c) || "(:,;.-—–*_`".contains(c);
    let mut rest = after[word_end..].trim_start_matches(lead);
    let mut is_introduced = false;
    if let Some(arrow) = ARROWS.iter().find(|arrow| rest.starts_with(**arrow)) {
        rest = rest[arrow.len()..].trim_start_matches(lead);
        is_introduced = true;
    }
    for word in ["by", "par"] {
        if rest
            .get(..word.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(word))
            && !rest[word.len()..].starts_with(char::is_alphanumeric)
        {
            rest = rest[word.len()..].trim_start_matches(lead);
            is_introduced = true;
            break;
        }
    }
    let rest = rest.trim_start_matches(|c: char| is_whitespace(c) || "'\"«»“”".contains(c));
    if let Some(name) = leading_link(rest) {
        return Some(name.to_owned());
    }
    if !is_introduced {
        return None;
    }
    let junk =
        |c: char| is_whitespace(c) || "([{:,;.-—–→>*_`'\"«»“”".contains(c) || c == ')' || c == ']';
    let mut name = rest.trim_start_matches(junk);
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

    /// The status `body` (an entry's lines under its heading) states, and where its value is.
    #[track_caller]
    #[expect(
        clippy::needless_pass_by_value,
        reason = "the table reads better with values"
    )]
    fn layout(body: &str, expected: Option<Status>, value: Option<&str>) {
        let text = format!("### ADR\n{body}");
        let all = sections(&text);
        let line = status_line(&all[0]);
        assert_eq!(
            line.as_ref().map(|l| l.status.clone()),
            expected,
            "{body:?}"
        );
        let located = line.map(|l| &text[l.field.value_range]);
        assert_eq!(located, value, "{body:?}");
    }

    #[test]
    #[expect(clippy::too_many_lines, reason = "one table of layouts")]
    fn the_layouts_of_adr_folders() {
        // adr-tools (Nygard): `## Status` and the value on the next line that is not blank.
        layout(
            "\n# 1. Record architecture decisions\n\nDate: 2016-02-12\n\n## Status\n\nAccepted\n\n## Context\n\nWe need to record the architectural decisions made on this project.\n",
            Some(Status::Active),
            Some("Accepted"),
        );
        // adr-tools after `adr new -s 9`, the successor linked.
        layout(
            "## Status\n\nSuperseded by [10. Use Markdown ADRs](0010-use-markdown-adrs.md)\n\n## Context\n",
            superseded(Some("10. Use Markdown ADRs")),
            Some("Superseded by [10. Use Markdown ADRs](0010-use-markdown-adrs.md)"),
        );
        // adr-tools: accepted, then amended (still in force) or superseded below the value.
        layout(
            "## Status\n\nAccepted\n\nAmended by [9. Help scripts](0009-help-scripts.md)\n\n## Context\n",
            Some(Status::Active),
            Some("Accepted"),
        );
        layout(
            "## Status\n\nAccepted\n\nSupersedes [1. Record decisions](0001-record-decisions.md)\n",
            Some(Status::Active),
            Some("Accepted"),
        );
        // The corpus's records, their headings demoted to `####`.
        layout(
            "#### Status\n\n✅ Accepted\n\n#### Context\n",
            Some(Status::Active),
            Some("✅ Accepted"),
        );
        layout(
            "#### Status\n\n❌ Rejected\n",
            Some(Status::Rejected),
            Some("❌ Rejected"),
        );
        layout(
            "#### Status\n\n❌ Rejected (see [019](019-Shared-Ingress-Controllers.md))\n",
            Some(Status::Rejected),
            Some("❌ Rejected (see [019](019-Shared-Ingress-Controllers.md))"),
        );
        layout(
            "#### Status\n\n🤔 Proposed\n",
            Some(Status::Proposed),
            Some("🤔 Proposed"),
        );
        layout(
            "#### Status\n\n⌛️ Superseded by [036. Multi-cluster](036-multi-cluster.md)\n",
            superseded(Some("036. Multi-cluster")),
            Some("⌛️ Superseded by [036. Multi-cluster](036-multi-cluster.md)"),
        );
        layout(
            "#### Status\n\n⌛️ Superseded [0019](0019-use-bash-go-as-core-languages.md)\n",
            superseded(Some("0019")),
            Some("⌛️ Superseded [0019](0019-use-bash-go-as-core-languages.md)"),
        );
        layout(
            "#### Status\n\n**rejected**\n",
            Some(Status::Rejected),
            Some("rejected"),
        );
        layout(
            "#### Status\n\nPending\n",
            Some(Status::Proposed),
            Some("Pending"),
        );
        layout(
            "#### Status\n\nAccepted (lazy consensus) & implemented\n\nSuperceded by [16. Distributed WorkQueue](0016-distributed-workqueue.md)\n\n#### Context\n",
            superseded(Some("16. Distributed WorkQueue")),
            Some("Accepted (lazy consensus) & implemented"),
        );
        layout(
            "#### Status\n\nAccepted (lazy consensus).\n\nImplemented.\n\nOverridden by [Quota for JMAP uploads](0067-quota-for-jmap-uploads.md)\n",
            superseded(Some("Quota for JMAP uploads")),
            Some("Accepted (lazy consensus)."),
        );
        layout(
            "#### Status\n\nSuperseded by\n\n[007-multiple-sites-revisited.md](007-multiple-sites-revisited.md).\n",
            superseded(Some("007-multiple-sites-revisited.md")),
            Some("Superseded by"),
        );
        layout(
            "#### Status\n\n⌛ Superseded\n\n[Member code was moved.](https://github.com/o/r/issues/1)\n",
            superseded(None),
            Some("⌛ Superseded"),
        );
        layout(
            "#### Status\n\nSuperseded by [ADR 9] - with the addition of read models, we now fetch the data type.\n",
            superseded(Some("ADR 9")),
            Some(
                "Superseded by [ADR 9] - with the addition of read models, we now fetch the data type.",
            ),
        );
        layout(
            "#### Status\n\nsuperseded - The headline still applies, but in [ADR 9] we changed to option 2.\n",
            superseded(None),
            Some("superseded - The headline still applies, but in [ADR 9] we changed to option 2."),
        );
        layout(
            "#### Status\n\nProposed\n\nSupercedes [26. Removing a listener](0026-removing.md)\n",
            Some(Status::Proposed),
            Some("Proposed"),
        );
        layout(
            "#### Status\n\nPartly superseded\n",
            Some(Status::Unreadable("Partly superseded".into())),
            Some("Partly superseded"),
        );
        // A heading carrying its value.
        layout(
            "#### Status: Deprecated\n\nWe never got to that stage.\n",
            Some(Status::Deprecated),
            Some("Deprecated"),
        );
        layout(
            "## Status: ✅ Accepted\n",
            Some(Status::Active),
            Some("✅ Accepted"),
        );
        // MADR 2 (and log4brains): a list of fields.
        layout(
            "* Status: accepted\n* Deciders: Thomas Vaillant\n* Date: 2020-09-14\n\n## Context and Problem Statement\n",
            Some(Status::Active),
            Some("accepted"),
        );
        layout(
            "- Status: superseded by [20201016-use-the-adr-slug-as-its-unique-id](20201016-use-the-adr-slug-as-its-unique-id.md)\n- Date: 2020-10-16\n",
            superseded(Some("20201016-use-the-adr-slug-as-its-unique-id")),
            Some(
                "superseded by [20201016-use-the-adr-slug-as-its-unique-id](20201016-use-the-adr-slug-as-its-unique-id.md)",
            ),
        );
        // MADR 3 front matter.
        layout(
            "---\nstatus: accepted\ndate: 2022-11-14\ndeciders: Olaf\n---\n# Use MADR\n\n## Context and Problem Statement\n",
            Some(Status::Active),
            Some("accepted"),
        );
        layout(
            "---\nstatus: \"superseded by ADR-0005\"\n---\n",
            superseded(Some("ADR-0005")),
            Some("\"superseded by ADR-0005\""),
        );
        // A bare line, and the French way.
        layout("Status: Accepted\n", Some(Status::Active), Some("Accepted"));
        layout(
            "## Statut\n\nRemplacée par [Redis](0005-redis.md)\n",
            superseded(Some("Redis")),
            Some("Remplacée par [Redis](0005-redis.md)"),
        );
        layout(
            "## **Statut** :\n\n- Brouillon\n",
            Some(Status::Proposed),
            Some("Brouillon"),
        );
        // Under the heading, a status field line.
        layout(
            "## Status\n\nStatus: rejected\n",
            Some(Status::Rejected),
            Some("rejected"),
        );
    }

    #[test]
    fn a_status_heading_with_no_value_states_nothing() {
        layout("## Status\n\n## Context\n\nAccepted\n", None, None);
        layout("## Status\n", None, None);
        layout("## Status\n\n```\nAccepted\n```\n", None, None);
        // A heading that is not the status's.
        layout("## Status quo\n\nAccepted\n", None, None);
        layout("## Statuses\n\nAccepted\n", None, None);
        // Code is not read, a status heading in it neither.
        layout("```md\n## Status\n\nAccepted\n```\n", None, None);
    }

    #[test]
    fn every_status_block_is_found() {
        let text = "### ADR\n- Status: accepted\n\n## Status\n\nSuperseded by [B](b.md)\n\n```\nStatus: x\n```\n#### Status: Rejected\n";
        let all = sections(text);
        let found: Vec<(String, &str)> = status_lines(&all[0])
            .into_iter()
            .map(|l| (l.status.to_value(), &text[l.field.line]))
            .collect();
        assert_eq!(
            found,
            [
                ("active".to_owned(), "- Status: accepted"),
                ("superseded by B".to_owned(), "Superseded by [B](b.md)"),
                ("rejected".to_owned(), "#### Status: Rejected"),
            ]
        );
    }

    #[test]
    fn the_new_words() {
        for (value, status) in [
            ("Implemented", Status::Active),
            ("Complete", Status::Active),
            ("Approved/Merged", Status::Active),
            ("Adopted.", Status::Active),
            ("implémentée", Status::Active),
            ("Pending", Status::Proposed),
            ("Withdrawn", Status::Abrogated),
            ("Superceded", Status::Superseded { by: None }),
            (
                "Not-Implemented",
                Status::Unreadable("Not-Implemented".into()),
            ),
            ("🤔 Incomplete", Status::Unreadable("🤔 Incomplete".into())),
            ("In progress", Status::Unreadable("In progress".into())),
            ("...", Status::Unreadable("...".into())),
        ] {
            assert_eq!(parse_status(value), status, "{value}");
        }
    }

    /// The statuses of the corpus's decisions, as `benches/data/adr/statuses.tsv` records a
    /// person's reading of them: the reader must find the same, record by record.
    #[test]
    #[cfg_attr(
        not(repository),
        ignore = "reads benches/data, which only the repository has"
    )]
    fn the_corpus_reads_as_a_person_reads_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/data/adr");
        let expected = std::fs::read_to_string(root.join("statuses.tsv")).unwrap();
        let notes =
            std::fs::read_to_string(root.join("corpus/.agents/memory/decisions.md")).unwrap();
        let all = sections(&notes);
        let rows: Vec<Vec<&str>> = expected
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split('\t').collect())
            .collect();
        assert_eq!(rows.len(), all.len());
        let mut wrong = Vec::new();
        for (section, row) in all.iter().zip(&rows) {
            assert_eq!(section.heading, row[0]);
            let read = status_of(section);
            let name = read.as_ref().map_or("none", Status::as_str);
            let by = match &read {
                Some(Status::Superseded { by: Some(by) }) => by.as_str(),
                _ => "",
            };
            if name != row[1] || (!row[2].is_empty() && by != row[2]) {
                wrong.push(format!(
                    "{}: read {name} {by:?}, expected {} {:?}",
                    row[0], row[1], row[2]
                ));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
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

    /// A record stating a status in one of the layouts, with the value written `value`, and
    /// lines of prose, code and other headings around it.
    fn record() -> impl Strategy<Value = String> {
        (
            prop::sample::select(vec![
                "## Status\n\n{v}\n",
                "#### Status\n{v}\n\n#### Context\n",
                "#### Status: {v}\n",
                "- **Status**: {v}\n",
                "* Status: {v}\n* Date: 2020-09-14\n",
                "---\nstatus: {v}\ndate: 2022-11-14\n---\n",
                "Status: {v}\n",
                "| Status | {v} |\n",
                "## Statut :\n\n> **{v}**\n",
            ]),
            prop::sample::select(vec![
                "Accepted",
                "✅ Accepted",
                "❌ Rejected",
                "🤔 Proposed",
                "⌛️ Superseded by [036. Multi-cluster](036-multi-cluster.md)",
                "superseded by Session store (v2)",
                "Deprecated",
                "rolled back",
                "Draft",
                "to be confirmed",
            ]),
            prop::sample::select(vec![
                "",
                "Some context.\n\n",
                "```yaml\nstatus: draft\n```\n",
                "## Context\n\nWe need it.\r\n",
            ]),
            prop::sample::select(vec![
                "",
                "\n## Decision\n\nUse it.\n",
                "\n```\n## Status\n```\n",
            ]),
        )
            .prop_map(|(layout, value, before, after)| {
                format!("### ADR\n{before}{}{after}", layout.replace("{v}", value))
            })
    }

    fn any_status() -> impl Strategy<Value = Status> {
        prop::sample::select(vec![
            Status::Active,
            Status::Superseded { by: None },
            Status::Superseded {
                by: Some("2026-10-05 — Session store in Redis".into()),
            },
            Status::Abrogated,
            Status::RolledBack,
            Status::Proposed,
            Status::Rejected,
            Status::Deprecated,
        ])
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

        #[test]
        fn a_value_rewritten_in_place_reads_as_the_new_status(
            text in record(),
            new in any_status(),
        ) {
            let all = sections(&text);
            let line = status_line(&all[0]).unwrap();
            prop_assert_eq!(&text[line.field.value_range.clone()], line.field.value);
            prop_assert!(line.field.line.start <= line.field.value_range.start);
            prop_assert!(line.field.value_range.end <= line.field.line.end);
            let mut rewritten = text.clone();
            rewritten.replace_range(line.field.value_range, &new.to_value());
            let again = sections(&rewritten);
            prop_assert_eq!(status_of(&again[0]), Some(new), "{:?}", rewritten);
        }

        #[test]
        fn any_record_reads_without_panicking(
            lines in prop::collection::vec(
                prop_oneof![
                    Just("## Status".to_owned()),
                    Just("#### Status:".to_owned()),
                    Just("```".to_owned()),
                    Just("~~~~".to_owned()),
                    Just(String::new()),
                    Just("Superseded by [X](x.md)".to_owned()),
                    "[#*>`~\\-|:\\[\\]() a-zA-Z\u{e9}\u{2705}\r]{0,24}",
                ],
                0..12,
            ),
        ) {
            let text = format!("### T\n{}", lines.join("\n"));
            let all = sections(&text);
            for line in status_lines(&all[0]) {
                prop_assert_eq!(&text[line.field.value_range.clone()], line.field.value);
                prop_assert!(text[line.field.line.clone()].contains(line.field.value));
            }
        }
    }
}
