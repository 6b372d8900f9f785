//! How an admitted entry is written: in the style its note file already uses, so that a file
//! keeps one style.
//!
//! * **Template**, the style of the files `init` creates (`session::templates`): the heading
//!   starts with the day (`### 2026-10-18 — Use Postgres`; a pattern's heading is its name
//!   alone), and each field is a list item, `- **Decision**: …`. The lines after the first of a
//!   field's value are indented two spaces, so that they stay inside its item.
//! * **Fields**, the style of the Memory pack's example notes: the heading is the title, the day
//!   a field of its own (`**Date:** 2026-10-18`), each field `**Decision:** …`.
//!
//! The last entry of the file that has a field line decides; a file with none (new, or holding
//! only `init`'s template) takes the template's style. Either way the status comes first, right
//! under the heading (a later line of the content that reads like a field is never taken for
//! it), then the context, the content under its type's name, the evidence, and who admitted it.

use std::fmt::Write as _;

use crate::store::sections::sections;

use crate::actions::entries::candidate::{Candidate, Kind};

/// The style of a note file's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// `### YYYY-MM-DD — Title` and `- **Field**: value`.
    Template,
    /// `### Title`, `**Date:** YYYY-MM-DD` and `**Field:** value`.
    Fields,
}

/// The style of the note file `text` (see the module documentation).
#[must_use]
pub(crate) fn style_of(text: &str) -> Style {
    sections(text)
        .iter()
        .rev()
        .find_map(|section| section.parts()[2].lines().find_map(line_style))
        .unwrap_or(Style::Template)
}

/// The style of one line, when it is a field line: `- **Name**: value` or `**Name:** value`.
fn line_style(line: &str) -> Option<Style> {
    let line = line.trim_start();
    if let Some(rest) = line.strip_prefix(['-', '*', '+'])
        && let Some(rest) = rest.trim_start().strip_prefix("**")
    {
        let (name, after) = rest.split_once("**")?;
        return (is_name(name) && after.trim_start().starts_with(':')).then_some(Style::Template);
    }
    let (name, _) = line.strip_prefix("**")?.split_once(":**")?;
    is_name(name).then_some(Style::Fields)
}

/// A field name: a word or two of letters, `-` or spaces.
fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 40
        && name
            .chars()
            .all(|c| c.is_alphabetic() || c == '-' || c == ' ')
}

/// The heading an entry of `kind` titled `title` takes on `day` in `style`.
#[must_use]
pub(crate) fn heading(kind: Kind, title: &str, day: &str, style: Style) -> String {
    match (style, kind) {
        (Style::Template, Kind::Decision | Kind::Lesson) => format!("{day} — {title}"),
        _ => title.to_owned(),
    }
}

/// The entry's section: heading, status (decisions and patterns), context, content, evidence,
/// and who admitted it, with the marker `mark` that names the candidate; the day is a field of
/// its own in the fields style.
#[must_use]
pub(crate) fn section_text(
    candidate: &Candidate,
    mark: &str,
    by: &str,
    day: &str,
    style: Style,
) -> String {
    let kind = candidate.kind;
    let mut out = format!("### {}\n", heading(kind, &candidate.title, day, style));
    let field = |out: &mut String, name: &str, value: &str| {
        let _ = match style {
            Style::Template => {
                let mut lines = value.split('\n');
                let _ = write!(out, "- **{name}**: {}", lines.next().unwrap_or_default());
                for line in lines {
                    out.push('\n');
                    if !line.is_empty() {
                        out.push_str("  ");
                        out.push_str(line);
                    }
                }
                writeln!(out)
            }
            Style::Fields => writeln!(out, "**{name}:** {value}"),
        };
    };
    if style == Style::Fields {
        field(&mut out, "Date", day);
    }
    if let Some(status) = kind.initial_status() {
        field(&mut out, "Status", status);
    }
    let context = if candidate.context.is_empty() {
        "none given"
    } else {
        &candidate.context
    };
    let evidence = if candidate.evidence.is_empty() {
        "none".to_owned()
    } else {
        candidate.evidence.join(", ")
    };
    field(&mut out, "Context", context);
    field(&mut out, kind.field(), &candidate.content);
    field(&mut out, "Evidence", &evidence);
    field(&mut out, "Admitted-by", &format!("{by} {mark}"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::entry::{date_of, status_of, undated};

    fn candidate(kind: Kind, content: &str) -> Candidate {
        Candidate {
            id: "p-x".into(),
            kind,
            title: "Use Postgres".into(),
            source: "forge".into(),
            created: "2026-10-18T09:30:00.000Z".into(),
            context: String::new(),
            content: content.into(),
            evidence: vec!["abc".into()],
        }
    }

    #[test]
    fn a_file_keeps_the_style_of_its_last_entry_with_fields() {
        assert_eq!(style_of(""), Style::Template);
        assert_eq!(
            style_of("# Decisions\n\n    ### YYYY-MM-DD — x\n"),
            Style::Template
        );
        assert_eq!(style_of("### A\n**Date:** 2026-01-01\n"), Style::Fields);
        assert_eq!(style_of("### A\n- **Context**: x\n"), Style::Template);
        assert_eq!(style_of("### A\n- **Context** : x\n"), Style::Template);
        assert_eq!(
            style_of("### A\n**Date:** 2026-01-01\n### B\n* **Status**: active\n### C\nprose\n"),
            Style::Template
        );
        assert_eq!(style_of("### A\n**bold** text: no\n"), Style::Template);
    }

    #[test]
    fn both_styles_read_back_with_their_date_and_status() {
        let entry = candidate(
            Kind::Decision,
            "One database.\n\n```sh\nmake\n```\nStatus: no",
        );
        for style in [Style::Template, Style::Fields] {
            let text = section_text(&entry, "(m)", "bob", "2026-10-18", style);
            let cut = sections(&text);
            assert_eq!(cut.len(), 1, "{text}");
            assert_eq!(undated(cut[0].heading), "Use Postgres");
            assert_eq!(date_of(&cut[0]), Some("2026-10-18"), "{text}");
            assert_eq!(
                status_of(&cut[0]).map(|s| s.as_str()),
                Some("active"),
                "{text}"
            );
            assert_eq!(style_of(&text), style, "{text}");
        }
        assert_eq!(
            section_text(&entry, "(m)", "bob", "2026-10-18", Style::Template),
            "### 2026-10-18 — Use Postgres\n- **Status**: active\n- **Context**: none given\n\
             - **Decision**: One database.\n\n  ```sh\n  make\n  ```\n  Status: no\n\
             - **Evidence**: abc\n- **Admitted-by**: bob (m)\n"
        );
        let pattern = candidate(Kind::Pattern, "Read through.");
        assert!(
            section_text(&pattern, "(m)", "bob", "2026-10-18", Style::Template)
                .starts_with("### Use Postgres\n- **Status**: candidate\n")
        );
    }
}
