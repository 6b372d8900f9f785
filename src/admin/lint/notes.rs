//! The checks of each note file on its own: headings used twice, `###` inside fenced code,
//! fences never closed, entries without an ISO date, statuses outside the list, decisions
//! stating two statuses that disagree, and `[[links]]` that lead nowhere.

use std::cell::OnceCell;
use std::path::Path;

use crate::admin::lint::findings::{FastMap, FastSet, Finding, Note, Severity, finding};
use crate::store::entry::{Status, StatusLine, date_of, field_of, status_lines};
use crate::store::fences;
use crate::store::layout::NOTE_DIRS;
use crate::store::sections::Section;

pub fn check(
    root: &Path,
    notes: &[Note],
    cut: &[Vec<(usize, Section<'_>)>],
    out: &mut Vec<Finding>,
) {
    let headings: FastSet<&str> = cut.iter().flatten().map(|(_, s)| s.heading).collect();
    // Headings case folded, made only when a link needs them.
    let lower: OnceCell<FastSet<String>> = OnceCell::new();
    let lower = || lower.get_or_init(|| headings.iter().map(|h| h.to_lowercase()).collect());
    for (note, sections) in notes.iter().zip(cut) {
        duplicates(note, sections, out);
        in_code(note, out);
        if note.name != "patterns.md" {
            for (offset, section) in sections {
                dates(note, *offset, section, out);
            }
        }
        if note.is_decisions() {
            for (offset, section) in sections {
                statuses(note, *offset, section, out);
            }
        }
        links(root, note, notes, &headings, &lower, out);
    }
}

fn duplicates(note: &Note, sections: &[(usize, Section<'_>)], out: &mut Vec<Finding>) {
    let mut counts: FastMap<&str, usize> = FastMap::default();
    for (_, s) in sections {
        *counts.entry(s.heading).or_default() += 1;
    }
    let mut seen = FastSet::default();
    for (offset, s) in sections {
        if counts[s.heading] > 1 && !seen.insert(s.heading) {
            out.push(finding(
                note,
                *offset,
                s,
                "duplicate-heading",
                Severity::Error,
                format!(
                    "\"{}\" heads {} sections of this file; observe and the decision commands cannot target it",
                    s.heading, counts[s.heading]
                ),
                Some("give each section its own heading".to_owned()),
            ));
        }
    }
}

fn in_code(note: &Note, out: &mut Vec<Finding>) {
    let text = note.text.as_bytes();
    if memchr::memmem::find(text, b"```").is_none() && memchr::memmem::find(text, b"~~~").is_none()
    {
        return;
    }
    let found = fences::check(&note.text);
    for unclosed in found.unclosed {
        let place = unclosed
            .heading
            .map(|heading| format!(" in § {heading}"))
            .unwrap_or_default();
        out.push(Finding {
            file: note.rel.clone(),
            line: Some(unclosed.line),
            heading: unclosed.heading.map(str::to_owned),
            check: "unclosed-fence",
            severity: Severity::Warning,
            message: format!(
                "fence opened at line {}{place} is never closed",
                unclosed.line
            ),
            proposal: Some(
                "close it with a line of the same fence (``` or ~~~) where its code ends"
                    .to_owned(),
            ),
        });
    }
    for (line, heading) in found.in_code {
        out.push(Finding {
            file: note.rel.clone(),
            line: Some(line),
            heading: Some(heading.to_owned()),
            check: "heading-in-code",
            severity: Severity::Warning,
            message: format!(
                "\"### {heading}\" is inside fenced code but still starts a section for every reader"
            ),
            proposal: Some("indent the line, or start it with something other than ###".to_owned()),
        });
    }
}

/// A decision's statuses: one the reader cannot place (a warning), or two that disagree (an
/// error: readers take the first, and it may not be the one meant).
fn statuses(note: &Note, offset: usize, section: &Section<'_>, out: &mut Vec<Finding>) {
    let lines = status_lines(section);
    let Some(first) = lines.first() else {
        return;
    };
    if let Status::Unreadable(value) = &first.status {
        out.push(finding(
            note,
            offset,
            section,
            "format",
            Severity::Warning,
            format!(
                "status \"{value}\" is not one of active, superseded, abrogated, rolled-back, proposed, rejected, deprecated"
            ),
            Some("write one of the seven statuses, or a word docs/GUIDE.md lists for one".to_owned()),
        ));
    }
    let agrees = |other: &StatusLine<'_>| match (&first.status, &other.status) {
        (Status::Superseded { by: a }, Status::Superseded { by: b }) => {
            a.is_none() || b.is_none() || a == b
        }
        (a, b) => a == b,
    };
    if let Some(other) = lines.iter().skip(1).find(|other| !agrees(other)) {
        let describe = |line: &StatusLine<'_>| match &line.status {
            Status::Unreadable(value) => format!("\"{value}\""),
            status => status.to_value(),
        };
        out.push(Finding {
            file: note.rel.clone(),
            line: Some(note.line_of(other.field.line.start)),
            heading: Some(section.heading.to_owned()),
            check: "status-conflict",
            severity: Severity::Error,
            message: format!(
                "this decision states two statuses: {} at line {}, {} at line {}; every reader takes the first",
                describe(first),
                note.line_of(first.field.line.start),
                describe(other),
                note.line_of(other.field.line.start)
            ),
            proposal: Some("keep one status block, the one that is true".to_owned()),
        });
    }
}

/// Whether `date` (`YYYY-MM-DD` in shape) names a day that exists.
fn is_real_date(date: &str) -> bool {
    let number = |range: std::ops::Range<usize>| date.get(range)?.parse::<u32>().ok();
    let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

fn dates(note: &Note, offset: usize, section: &Section<'_>, out: &mut Vec<Finding>) {
    let problem = match date_of(section) {
        Some(date) if is_real_date(date) => return,
        Some(date) => format!("date {date} is not a day of the calendar"),
        None => match field_of(section, &["date"]) {
            Some(value) => format!("date \"{value}\" is not an ISO date (YYYY-MM-DD)"),
            None => {
                "no date: neither the heading nor a Date line starts with YYYY-MM-DD".to_owned()
            }
        },
    };
    out.push(finding(
        note,
        offset,
        section,
        "format",
        Severity::Warning,
        problem,
        Some("add a line `**Date:** YYYY-MM-DD`, or start the heading with the date".to_owned()),
    ));
}

/// `[[target]]`, `[[target|label]]`, `[[file#heading]]`: the target must be a heading of a note
/// file, or a file of the memory folders (`.md` may be left out).
fn links<'a>(
    root: &Path,
    note: &Note,
    notes: &[Note],
    headings: &FastSet<&str>,
    lower: &impl Fn() -> &'a FastSet<String>,
    out: &mut Vec<Finding>,
) {
    let text = &note.text;
    if memchr::memmem::find(text.as_bytes(), b"[[").is_none() {
        return;
    }
    let mut fence: Option<&str> = None;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let line_start = start;
        start += line.len();
        let trimmed = line.trim_start();
        for mark in ["```", "~~~"] {
            if trimmed.starts_with(mark) {
                fence = match fence {
                    None => Some(mark),
                    Some(open) if open == mark => None,
                    other => other,
                };
            }
        }
        if fence.is_some() || !line.contains("[[") {
            continue;
        }
        let mut rest = line;
        while let Some(open) = rest.find("[[") {
            let after = &rest[open + 2..];
            let Some(close) = after.find("]]") else {
                break;
            };
            let target = after[..close].split('|').next().unwrap_or_default().trim();
            rest = &after[close + 2..];
            if target.is_empty() || resolves(root, note, notes, headings, lower, target) {
                continue;
            }
            out.push(Finding {
                file: note.rel.clone(),
                line: Some(note.line_of(line_start)),
                heading: None,
                check: "broken-link",
                severity: Severity::Warning,
                message: format!("[[{target}]] names no heading and no file of the memory"),
                proposal: Some("correct the link, or restore what it names".to_owned()),
            });
        }
    }
}

fn resolves<'a>(
    root: &Path,
    note: &Note,
    notes: &[Note],
    headings: &FastSet<&str>,
    lower: &impl Fn() -> &'a FastSet<String>,
    target: &str,
) -> bool {
    let is_heading = |h: &str| headings.contains(h) || lower().contains(&h.to_lowercase());
    let Some((file, heading)) = target.split_once('#') else {
        return is_heading(target) || is_file(root, note, target);
    };
    if file.trim().is_empty() {
        return is_heading(heading.trim());
    }
    let file = file.trim();
    let heading = heading.trim();
    let in_file = notes.iter().any(|other| {
        let name = other.name.trim_end_matches(".md");
        (other.name == file || name == file || other.rel == file)
            && other.sections().iter().any(|(_, s)| s.heading == heading)
    });
    in_file || (heading.is_empty() && is_file(root, note, file))
}

/// Whether `name` is a file next to the note, or in either memory folder.
fn is_file(root: &Path, note: &Note, name: &str) -> bool {
    if name.split(['/', '\\']).any(|part| part == "..") || name.starts_with('/') {
        return false;
    }
    let here = Path::new(&note.rel).parent().unwrap_or(Path::new(""));
    std::iter::once(here.to_path_buf())
        .chain(NOTE_DIRS.iter().map(std::path::PathBuf::from))
        .any(|dir| {
            let path = root.join(&dir).join(name);
            path.is_file() || path.with_extension("md").is_file() || {
                let mut with = path.into_os_string();
                with.push(".md");
                Path::new(&with).is_file()
            }
        })
}

#[cfg(test)]
mod tests {
    use super::is_real_date;

    #[test]
    fn calendar_days() {
        for (date, real) in [
            ("2026-10-01", true),
            ("2024-02-29", true),
            ("2026-02-29", false),
            ("2026-13-01", false),
            ("2026-04-31", false),
            ("2026-00-10", false),
            ("2026-01-00", false),
        ] {
            assert_eq!(is_real_date(date), real, "{date}");
        }
    }
}
