//! Which entries of the note files the page shows, and where: every `###` section of the six
//! note files as a decision, lesson or pattern, its date and status read by the one status
//! reader ([`crate::store::entry`]), sorted newest first, and the newest of each list up to
//! its cap. Each entry shown gets an anchor (`e-<n>`), which the succession graph, the timeline
//! and the receipts link to.

use std::collections::HashMap;

use crate::admin::lint::findings::Note;
use crate::store::entry::{Status, date_of, status_of};
use crate::store::sections::Section;

/// Most decisions listed per group (in force, proposed, ended).
pub(crate) const MAX_DECISIONS: usize = 500;
/// Most lessons listed.
pub(crate) const MAX_LESSONS: usize = 500;
/// Most patterns listed.
pub(crate) const MAX_PATTERNS: usize = 500;

/// What an entry records, by the note file it stands in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Decision,
    Lesson,
    Pattern,
}

/// The three groups of decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Group {
    /// In force, or may be: `active`, no status, or a status nobody can place (as `status` and
    /// `brief` count them).
    InForce,
    Proposed,
    /// Superseded, abrogated, rolled back, rejected or deprecated.
    Ended,
}

/// One `###` section of a note file.
#[derive(Debug, Clone)]
pub(crate) struct Entry<'a> {
    pub note: &'a Note,
    /// Where its heading line starts in the note's text.
    pub offset: usize,
    pub section: Section<'a>,
    pub kind: Kind,
    pub date: Option<&'a str>,
    /// For a decision, its status (`None`: the entry states none).
    pub status: Option<Status>,
}

impl Entry<'_> {
    /// The line (from 1) of its heading.
    #[must_use]
    pub(crate) fn line(&self) -> usize {
        self.note.line_of(self.offset)
    }

    /// The group of a decision.
    #[must_use]
    pub(crate) fn group(&self) -> Group {
        match &self.status {
            Some(Status::Proposed) => Group::Proposed,
            Some(s) if s.is_ended() => Group::Ended,
            _ => Group::InForce,
        }
    }
}

/// A list as the page shows it: the entries shown (indexes into [`Index::entries`], newest
/// first) and how many there are in all.
#[derive(Debug, Default)]
pub(crate) struct Shown {
    pub shown: Vec<usize>,
    pub total: usize,
}

/// Every entry, the lists the page shows, and the anchors of the entries shown.
#[derive(Debug)]
pub(crate) struct Index<'a> {
    pub entries: Vec<Entry<'a>>,
    pub in_force: Shown,
    /// How many of the decisions in force state no status, or one nobody can place.
    pub may_be_in_force: usize,
    pub proposed: Shown,
    pub ended: Shown,
    pub lessons: Shown,
    pub patterns: Shown,
    anchors: HashMap<usize, String>,
    by_name: HashMap<(&'a str, &'a str), usize>,
}

impl<'a> Index<'a> {
    /// The index of `notes`, each cut into its sections (`cut`, in the same order).
    #[must_use]
    pub(crate) fn new(notes: &'a [Note], cut: &[Vec<(usize, Section<'a>)>]) -> Self {
        let mut entries = Vec::new();
        for (note, sections) in notes.iter().zip(cut) {
            let kind = match note.name {
                "decisions.md" => Kind::Decision,
                "lessons.md" => Kind::Lesson,
                _ => Kind::Pattern,
            };
            for (offset, section) in sections {
                entries.push(Entry {
                    note,
                    offset: *offset,
                    section: *section,
                    kind,
                    date: date_of(section),
                    status: (kind == Kind::Decision)
                        .then(|| status_of(section))
                        .flatten(),
                });
            }
        }
        // Newest first: by date, then later in its file; undated entries after the dated ones.
        let mut order: Vec<usize> = (0..entries.len()).collect();
        order.sort_by(|&a, &b| {
            (entries[b].date.is_some(), entries[b].date, b).cmp(&(
                entries[a].date.is_some(),
                entries[a].date,
                a,
            ))
        });
        let mut index = Self {
            in_force: Shown::default(),
            may_be_in_force: 0,
            proposed: Shown::default(),
            ended: Shown::default(),
            lessons: Shown::default(),
            patterns: Shown::default(),
            anchors: HashMap::new(),
            by_name: HashMap::new(),
            entries,
        };
        for i in order {
            let entry = &index.entries[i];
            let (list, cap) = match entry.kind {
                Kind::Decision => match entry.group() {
                    Group::InForce => {
                        if !matches!(entry.status, Some(Status::Active)) {
                            index.may_be_in_force += 1;
                        }
                        (&mut index.in_force, MAX_DECISIONS)
                    }
                    Group::Proposed => (&mut index.proposed, MAX_DECISIONS),
                    Group::Ended => (&mut index.ended, MAX_DECISIONS),
                },
                Kind::Lesson => (&mut index.lessons, MAX_LESSONS),
                Kind::Pattern => (&mut index.patterns, MAX_PATTERNS),
            };
            list.total += 1;
            if list.shown.len() < cap {
                list.shown.push(i);
                index.anchors.insert(i, format!("e-{i}"));
                let key = (entry.note.rel.as_str(), entry.section.heading);
                index.by_name.entry(key).or_insert(i);
            }
        }
        index
    }

    /// The anchor of entry `i`, when the page shows it.
    #[must_use]
    pub(crate) fn anchor(&self, i: usize) -> Option<&str> {
        self.anchors.get(&i).map(String::as_str)
    }

    /// The anchor of the entry headed `heading` in `file`, when the page shows it.
    #[must_use]
    pub(crate) fn anchor_of(&self, file: &str, heading: &str) -> Option<&str> {
        let i = self.by_name.get(&(file, heading))?;
        self.anchor(*i)
    }

    /// How many decisions there are in all.
    #[must_use]
    pub(crate) fn decisions(&self) -> usize {
        self.in_force.total + self.proposed.total + self.ended.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(rel: &str, name: &'static str, text: &str) -> Note {
        Note::new(rel.to_owned(), name, text.to_owned())
    }

    #[test]
    fn groups_and_orders_newest_first() {
        let notes = [
            note(
                "d.md",
                "decisions.md",
                "### 2026-01-01 — A\n**Status:** active\n### B\n### 2026-03-01 — C\n**Status:** superseded by A\n### 2026-02-01 — D\n**Status:** proposed\n### 2026-02-02 — E\n**Status:** in progress\n",
            ),
            note(
                "l.md",
                "lessons.md",
                "### 2026-01-01 — L1\n### 2026-05-01 — L2\n### L3\n",
            ),
        ];
        let cut: Vec<_> = notes.iter().map(Note::sections).collect();
        let index = Index::new(&notes, &cut);
        let headings = |shown: &Shown| -> Vec<&str> {
            shown
                .shown
                .iter()
                .map(|&i| index.entries[i].section.heading)
                .collect()
        };
        assert_eq!(
            headings(&index.in_force),
            ["2026-02-02 — E", "2026-01-01 — A", "B"]
        );
        assert_eq!(index.may_be_in_force, 2);
        assert_eq!(headings(&index.proposed), ["2026-02-01 — D"]);
        assert_eq!(headings(&index.ended), ["2026-03-01 — C"]);
        assert_eq!(
            headings(&index.lessons),
            ["2026-05-01 — L2", "2026-01-01 — L1", "L3"]
        );
        assert_eq!(index.decisions(), 5);
        let e = index.lessons.shown[0];
        assert_eq!(index.anchor_of("l.md", "2026-05-01 — L2"), index.anchor(e));
        assert_eq!(index.entries[e].line(), 2);
        assert_eq!(index.anchor_of("l.md", "nope"), None);
    }
}
