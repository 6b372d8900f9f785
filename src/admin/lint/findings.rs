//! What lint reports and what it reads: a finding, its severity, and a note file cut into
//! sections with its line numbers.

use std::collections::{HashMap, HashSet};

use crate::store::sections::{Section, heading_lines, sections};

/// Lint's hash maps and sets: keyed by headings and words by the ten thousand, where the
/// standard hasher's resistance to chosen collisions costs more than the rest of the lookup.
pub type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
pub type FastSet<K> = HashSet<K, foldhash::fast::RandomState>;

/// The name of every check, as findings carry it and `--ignore` and `lint.ignore` take it.
pub const CHECKS: [&str; 21] = [
    "broken-link",
    "conflict-markers",
    "contradiction",
    "decision-edited",
    "decision-missing",
    "duplicate-heading",
    "format",
    "heading-in-code",
    "ledger",
    "ledger-chain",
    "ledger-status",
    "near-cap",
    "near-duplicate",
    "receipt",
    "receipt-store",
    "review",
    "status-conflict",
    "status-link",
    "summarise",
    "unclosed-fence",
    "view-drift",
];

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub file: String,
    /// The line, from 1, when the finding has one.
    pub line: Option<usize>,
    /// The section's heading, when the finding concerns a section.
    pub heading: Option<String>,
    pub check: &'static str,
    pub severity: Severity,
    pub message: String,
    pub proposal: Option<String>,
}

/// One note file as read, cut into sections.
#[derive(Debug)]
pub struct Note {
    /// Project-relative path.
    pub rel: String,
    /// `decisions.md`, `lessons.md` or `patterns.md`.
    pub name: &'static str,
    pub text: String,
    /// Where each line starts.
    line_starts: Vec<usize>,
}

impl Note {
    #[must_use]
    pub fn new(rel: String, name: &'static str, text: String) -> Self {
        let line_starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        Self {
            rel,
            name,
            text,
            line_starts,
        }
    }

    /// The line number, from 1, of byte `offset`.
    #[must_use]
    pub fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset)
    }

    /// Every section with the byte offset of its heading line.
    #[must_use]
    pub fn sections(&self) -> Vec<(usize, Section<'_>)> {
        heading_lines(&self.text)
            .into_iter()
            .map(|(offset, _)| offset)
            .zip(sections(&self.text))
            .collect()
    }

    #[must_use]
    pub fn is_decisions(&self) -> bool {
        self.name == "decisions.md"
    }
}

/// A finding about the section whose heading line starts at `offset`.
pub fn finding(
    note: &Note,
    offset: usize,
    section: &Section<'_>,
    check: &'static str,
    severity: Severity,
    message: String,
    proposal: Option<String>,
) -> Finding {
    Finding {
        file: note.rel.clone(),
        line: Some(note.line_of(offset)),
        heading: Some(section.heading.to_owned()),
        check,
        severity,
        message,
        proposal,
    }
}

/// A finding about a whole file.
pub fn file_finding(
    rel: &str,
    check: &'static str,
    severity: Severity,
    message: String,
) -> Finding {
    Finding {
        file: rel.to_owned(),
        line: None,
        heading: None,
        check,
        severity,
        message,
        proposal: None,
    }
}

#[cfg(test)]
mod tests {
    use super::CHECKS;

    /// The checks `--ignore` takes are the checks the schema lets a finding name.
    #[test]
    fn the_checks_are_the_schemas() {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../../schemas/lint.json")).unwrap();
        let names: Vec<&str> =
            schema["properties"]["findings"]["items"]["properties"]["check"]["enum"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
        assert_eq!(names, CHECKS);
    }
}
