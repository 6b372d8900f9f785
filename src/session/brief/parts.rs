//! The parts of the brief as read from the project: each reader gives the groups of one part,
//! its entries in the order they are served (docs/BRIEF.md). Missing pieces give nothing;
//! a file the loose reader skips adds a warning naming it.
//!
//! Notes are read from `.agents/memory/` and then `.bmad/memory/`, and each part's notes from
//! both folders are merged newest first: by their date — the heading's, else their `Date`
//! line's, else (for a decision) the day the decision ledger first recorded it — undated ones
//! last, and among equals the one further down (the two files read as one) first. A decision
//! is served when it may be in force ([`may_be_in_force`]), marked `(status unreadable)` when
//! its status cannot be placed; a pattern when it is validated ([`is_validated`]).

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

use crate::actions::decisions::ledger::Ledger;
use crate::context::Context;
use crate::js::json::{Object, Value};
use crate::js::text::{trim, truncate};
use crate::messages;
use crate::session::brain;
use crate::session::brain::BrainType;
use crate::session::brief::budget::{Entry, Group, Part};
use crate::session::brief::untouched::{filled_blocks, filled_identity};
use crate::session::handoffs::latest_day_handoffs;
use crate::session::pack::{git_stdout, memory_path, strip_front_matter, without_prompts};
use crate::session::templates;
use crate::store::entry::{Status, date_of, may_be_in_force, status_of};
use crate::store::front_matter::front_matter_value;
use crate::store::journal;
use crate::store::layout::{CONTEXT_FILE, JOURNAL, PACK_DIR, PROMOTIONS, SESSIONS_DIR};
use crate::store::paths::{read_loose, read_loose_bytes};
use crate::store::sections::{Section, sections};

/// How many journal events and commits the brief shows at most.
const LATEST: usize = 5;
/// Where decisions, lessons and patterns are read, in order.
const NOTE_DIRS: [&str; 2] = [PACK_DIR, ".bmad/memory"];

/// The text of a file (nothing when it is missing or unreadable), without a leading byte-order
/// mark (some Windows editors write one; it would hide a first `###` heading); a file the loose
/// reader skips (a FIFO, a device, over 64 MiB, a link leaving `within`) adds a warning naming
/// it as `shown`.
fn read_text(
    path: &Path,
    within: &Path,
    shown: &str,
    warnings: &mut Vec<String>,
) -> Option<String> {
    let text = read_loose(path, within).ok()?.or_warn(shown, warnings)?;
    Some(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    })
}

/// The brain's entry point: `identity.yaml` without its untouched template, any other as it is.
pub(crate) fn brain_group(ctx: &Context, warnings: &mut Vec<String>) -> Option<Group> {
    let (brain, found_warnings) = brain::linked_or_detected(ctx);
    warnings.extend(found_warnings);
    let brain = brain?;
    let (name, path, text) = brain.read_entry_point(warnings)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let text = if brain.kind == BrainType::BmadGlobal {
        filled_identity(text, &templates::identity)
    } else {
        trim(text).to_owned()
    };
    if text.is_empty() {
        return None;
    }
    Some(Group {
        part: Part::Brain,
        source: path.to_string_lossy().into_owned(),
        heading: format!(
            "Brain — {name} ({} brain, {})",
            brain.kind.as_str(),
            brain.dir.display()
        ),
        entries: vec![Entry {
            label: name.to_owned(),
            text,
            source: None,
        }],
    })
}

/// A whole file as one entry (a sidecar's `index.md`, an access-boundaries file), without its
/// front matter and prompts.
pub(crate) fn file_group(
    ctx: &Context,
    part: Part,
    rel: &str,
    heading: &str,
    warnings: &mut Vec<String>,
) -> Option<Group> {
    let text = without_prompts(strip_front_matter(&read_text(
        &ctx.root.join(rel),
        &ctx.root,
        rel,
        warnings,
    )?));
    if text.is_empty() {
        return None;
    }
    Some(Group {
        part,
        source: rel.to_owned(),
        heading: format!("{heading} — {rel}"),
        entries: vec![Entry {
            label: rel.rsplit('/').next().unwrap_or(rel).to_owned(),
            text,
            source: None,
        }],
    })
}

/// `context.md`, one entry per section written (see [`filled_blocks`]): the template `init`
/// wrote for this project on the day the front matter names is what counts as unwritten.
pub(crate) fn context_group(ctx: &Context, warnings: &mut Vec<String>) -> Option<Group> {
    let rel = memory_path(CONTEXT_FILE);
    let text = read_text(&ctx.root.join(&rel), &ctx.root, &rel, warnings)?;
    let template = match (
        front_matter_value(&text, "created"),
        front_matter_value(&text, "project"),
    ) {
        (Some(day), Some(project)) => Some(templates::context(
            &day,
            &project,
            &ctx.root.to_string_lossy(),
        )),
        _ => None,
    };
    let entries: Vec<Entry> = filled_blocks(strip_front_matter(&text), template.as_deref())
        .into_iter()
        .filter(|b| b.has_body || !b.is_title)
        .map(|b| Entry {
            label: b.heading.unwrap_or_else(|| CONTEXT_FILE.to_owned()),
            text: b.text,
            source: None,
        })
        .collect();
    (!entries.is_empty()).then(|| Group {
        part: Part::Context,
        heading: format!("Context — {rel}"),
        source: rel,
        entries,
    })
}

/// Every handoff of the latest day, newest first, each as one group; their empty parts left
/// out, and a handoff with nothing written not shown.
pub(crate) fn handoff_groups(ctx: &Context, warnings: &mut Vec<String>) -> Vec<Group> {
    latest_day_handoffs(&ctx.root.join(SESSIONS_DIR))
        .iter()
        .enumerate()
        .filter_map(|(i, name)| {
            let rel = format!("{SESSIONS_DIR}/{name}");
            let text = read_text(&ctx.root.join(&rel), &ctx.root, &rel, warnings)?;
            let blocks = filled_blocks(strip_front_matter(&text), None);
            if blocks.is_empty() {
                return None;
            }
            let text: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
            let heading = if i == 0 {
                "Latest handoff"
            } else {
                "Earlier handoff, same day"
            };
            Some(Group {
                part: Part::Handoff,
                heading: format!("{heading} — {rel}"),
                source: rel,
                entries: vec![Entry {
                    label: name.clone(),
                    text: text.join("\n\n"),
                    source: None,
                }],
            })
        })
        .collect()
}

/// The entry a decision gives the brief: one that may be in force, marked `(status
/// unreadable)` when its status cannot be placed; nothing for any other.
#[must_use]
pub(crate) fn decision_entry(section: &Section<'_>) -> Option<Entry> {
    if !may_be_in_force(section) {
        return None;
    }
    if !matches!(status_of(section), Some(Status::Unreadable(_))) {
        return Some(entry_of(section));
    }
    let full = section.trimmed_text();
    let body = full.get(section.heading.len()..).unwrap_or_default();
    Some(Entry {
        label: section.heading.to_owned(),
        text: format!("### {} (status unreadable){body}", section.heading),
        source: None,
    })
}

fn entry_of(section: &Section<'_>) -> Entry {
    Entry {
        label: section.heading.to_owned(),
        text: format!("### {}", section.trimmed_text()),
        source: None,
    }
}

/// Whether a pattern is validated: its status says so (`validated`, or a word of a decision
/// in force such as `accepted`), or — its status not saying it ended — `promotions.ndjson`
/// holds an approved promotion of it (`approved`, the heading of each).
#[must_use]
pub(crate) fn is_validated(section: &Section<'_>, approved: &HashSet<String>) -> bool {
    match status_of(section) {
        Some(status) if status.is_in_force() => true,
        Some(Status::Unreadable(value)) if first_word(&value) == "validated" => true,
        Some(status) if status.is_ended() => false,
        _ => approved.contains(trim(section.heading)),
    }
}

fn first_word(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .find(|w| !w.is_empty())
        .unwrap_or_default()
        .to_lowercase()
}

/// The patterns a promotion to `validated` names once approved: `approvedBy` given, or the
/// status `APPROVED` (`reinforce` only ever proposes; a person or Shield approves).
fn approved_promotions(root: &Path, warnings: &mut Vec<String>) -> HashSet<String> {
    let bytes = match read_loose_bytes(&root.join(PROMOTIONS), root) {
        Ok(found) => found.or_warn(PROMOTIONS, warnings),
        Err(e) => {
            warnings.push(messages::brief_file_skipped(PROMOTIONS, &e));
            None
        }
    };
    let Some(bytes) = bytes else {
        return HashSet::new();
    };
    let (text, _) = journal::decode_lines(bytes);
    let field = |event: &Object, key: &str| {
        event
            .get(key)
            .and_then(Value::as_str)
            .map(trim)
            .unwrap_or_default()
            .to_owned()
    };
    journal::events(&text)
        .filter(|event| field(event, "toStatus") == "validated")
        .filter(|event| {
            !field(event, "approvedBy").is_empty()
                || field(event, "status").eq_ignore_ascii_case("approved")
        })
        .map(|event| field(&event, "patternId"))
        .filter(|id| !id.is_empty())
        .collect()
}

/// The day the decision ledger first recorded each decision, by (file, heading).
fn ledger_days(root: &Path, warnings: &mut Vec<String>) -> Vec<(String, String, String)> {
    let ledger = match Ledger::read(root) {
        Ok(ledger) => ledger,
        Err(e) => {
            warnings.push(messages::brief_file_skipped(
                crate::actions::decisions::ledger::LEDGER,
                &e,
            ));
            return Vec::new();
        }
    };
    let mut days: Vec<(String, String, String)> = Vec::new();
    for record in ledger.records {
        let Some(day) = record
            .ts
            .get(..10)
            .filter(|d| crate::store::entry::heading_date(d).is_some())
        else {
            continue;
        };
        if !days
            .iter()
            .any(|(f, h, _)| *f == record.file && *h == record.heading)
        {
            days.push((record.file, record.heading, day.to_owned()));
        }
    }
    days
}

/// Entries newest first, read from every file at once: by their date, undated last, and among
/// equals the one later in the files (taken in the order given) first.
#[must_use]
pub(crate) fn newest_first<T>(dated: Vec<(Option<String>, T)>) -> Vec<T> {
    let mut indexed: Vec<(usize, (Option<String>, T))> = dated.into_iter().enumerate().collect();
    indexed.sort_by(|(i, (a, _)), (j, (b, _))| b.cmp(a).then(j.cmp(i)));
    indexed.into_iter().map(|(_, (_, t))| t).collect()
}

/// Which notes a part shows and how they are dated.
struct Notes<'a> {
    file: &'a str,
    part: Part,
    heading: &'a str,
    /// The entry a section gives, if it is shown.
    entry: &'a dyn Fn(&Section<'_>) -> Option<Entry>,
    /// The date of a section of a file when neither its heading nor a `Date` line gives one.
    fallback_date: &'a dyn Fn(&str, &str) -> Option<String>,
}

/// The notes of `notes.file` in every folder of [`NOTE_DIRS`], newest first across them, as
/// one group.
fn notes_group(ctx: &Context, notes: &Notes<'_>, warnings: &mut Vec<String>) -> Option<Group> {
    let files: Vec<(String, String)> = NOTE_DIRS
        .iter()
        .filter_map(|dir| {
            let rel = format!("{dir}/{}", notes.file);
            let text = read_text(&ctx.root.join(&rel), &ctx.root, &rel, warnings)?;
            Some((rel, text))
        })
        .collect();
    let mut dated: Vec<(Option<String>, Entry)> = Vec::new();
    for (rel, text) in &files {
        for section in sections(text) {
            let Some(mut entry) = (notes.entry)(&section) else {
                continue;
            };
            let date = date_of(&section)
                .map(str::to_owned)
                .or_else(|| (notes.fallback_date)(rel, section.heading));
            entry.source = Some(rel.clone());
            dated.push((date, entry));
        }
    }
    let entries = newest_first(dated);
    let mut sources: Vec<&str> = files
        .iter()
        .map(|(rel, _)| rel.as_str())
        .filter(|rel| entries.iter().any(|e| e.source.as_deref() == Some(rel)))
        .collect();
    sources.dedup();
    let source = sources.join(", ");
    (!entries.is_empty()).then(|| Group {
        part: notes.part,
        heading: format!("{} — {source}", notes.heading),
        source,
        entries,
    })
}

/// The decisions that may be in force, newest first.
pub(crate) fn decisions_group(ctx: &Context, warnings: &mut Vec<String>) -> Option<Group> {
    let days = ledger_days(&ctx.root, warnings);
    let from_ledger = |rel: &str, heading: &str| {
        days.iter()
            .find(|(f, h, _)| f == rel && h == heading)
            .map(|(_, _, day)| day.clone())
    };
    notes_group(
        ctx,
        &Notes {
            file: "decisions.md",
            part: Part::Decisions,
            heading: "Decisions in force, newest first",
            entry: &decision_entry,
            fallback_date: &from_ledger,
        },
        warnings,
    )
}

/// The lessons, newest first.
pub(crate) fn lessons_group(ctx: &Context, warnings: &mut Vec<String>) -> Option<Group> {
    notes_group(
        ctx,
        &Notes {
            file: "lessons.md",
            part: Part::Lessons,
            heading: "Lessons, newest first",
            entry: &|s| Some(entry_of(s)),
            fallback_date: &|_, _| None,
        },
        warnings,
    )
}

/// The validated patterns, newest first.
pub(crate) fn patterns_group(ctx: &Context, warnings: &mut Vec<String>) -> Option<Group> {
    let approved = approved_promotions(&ctx.root, warnings);
    notes_group(
        ctx,
        &Notes {
            file: "patterns.md",
            part: Part::Patterns,
            heading: "Validated patterns, newest first",
            entry: &|s| is_validated(s, &approved).then(|| entry_of(s)),
            fallback_date: &|_, _| None,
        },
        warnings,
    )
}

/// The latest journal events, newest first.
pub(crate) fn journal_group(ctx: &Context, warnings: &mut Vec<String>) -> Option<Group> {
    // Read as recall reads it: a link inside the project is followed, anything it may not
    // read is skipped with a warning naming the journal.
    let bytes = match read_loose_bytes(&ctx.root.join(JOURNAL), &ctx.root) {
        Ok(found) => found.or_warn(JOURNAL, warnings)?,
        Err(e) => {
            warnings.push(messages::brief_file_skipped(JOURNAL, &e));
            return None;
        }
    };
    // A line that is not UTF-8 costs that line, not the journal.
    let (text, skipped) = journal::decode_lines(bytes);
    if skipped > 0 {
        warnings.push(format!(
            "warning: {JOURNAL}: {skipped} line(s) that are not valid UTF-8 skipped; `bmad-mem doctor` names them"
        ));
    }
    let events: Vec<_> = journal::events(&text).collect();
    let field = |event: &Object, key: &str| {
        event
            .get(key)
            .filter(|v| v.is_truthy())
            .map_or_else(|| "-".to_owned(), Value::text)
    };
    let entries: Vec<Entry> = events
        .iter()
        .rev()
        .take(LATEST)
        .map(|event| {
            let mut line = format!("- {} {}", field(event, "ts"), field(event, "agent"));
            if let Some(outcome) = event.get("outcome").filter(|v| v.is_truthy()) {
                let _ = write!(line, " ({})", outcome.text());
            }
            let task = event.get("task").map(Value::text).unwrap_or_default();
            if !trim(&task).is_empty() {
                let _ = write!(line, ": {}", truncate(&task));
            }
            Entry {
                label: field(event, "id"),
                text: line,
                source: None,
            }
        })
        .collect();
    (!entries.is_empty()).then(|| Group {
        part: Part::Journal,
        source: JOURNAL.to_owned(),
        heading: format!("Latest journal events, newest first — {JOURNAL}"),
        entries,
    })
}

/// The last commits, newest first, when the project folder holds `.git`; nothing when git is
/// missing or fails.
pub(crate) fn commits_group(root: &Path) -> Option<Group> {
    if std::fs::symlink_metadata(root.join(".git")).is_err() {
        return None;
    }
    let stdout = git_stdout(
        root,
        [
            "--no-pager",
            "log",
            "--no-color",
            "--date=short",
            &format!("-n{LATEST}"),
            "--format=%h %ad %s",
        ],
    )?;
    let text = String::from_utf8_lossy(&stdout);
    let entries: Vec<Entry> = text
        .lines()
        .filter(|l| !trim(l).is_empty())
        .map(|line| Entry {
            label: line.split(' ').next().unwrap_or_default().to_owned(),
            text: format!("- {line}"),
            source: None,
        })
        .collect();
    (!entries.is_empty()).then(|| Group {
        part: Part::Commits,
        source: "git log".to_owned(),
        heading: "Last commits — git log".to_owned(),
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_shown_when_they_may_be_in_force() {
        let text = "### A\n- **Status**: active\n### B\n**Status:** superseded\n### C\n- **Decision**: x\n### D\n- **Status** : `Rolled-back`\n### E\n- **Status**: TBD\nwhy\n### F\n- **Status**: deprecated\n### G\n- **Status**: proposed\n";
        let shown: Vec<String> = sections(text)
            .iter()
            .filter_map(decision_entry)
            .map(|e| e.text)
            .collect();
        assert_eq!(
            shown,
            [
                "### A\n- **Status**: active",
                "### C\n- **Decision**: x",
                "### E (status unreadable)\n- **Status**: TBD\nwhy"
            ]
        );
    }

    #[test]
    fn validated_patterns() {
        let text = "### A\n- **Status**: validated\n### B\n- **Status**: candidate\n### C\nno status\n### D\n- Status: accepted\n### E\n- **Status**: deprecated\n### F\n- **Status**: ✅ Validated\n";
        let approved: HashSet<String> = ["C", "E"].iter().map(|s| (*s).to_owned()).collect();
        let validated: Vec<&str> = sections(text)
            .iter()
            .filter(|s| is_validated(s, &approved))
            .map(|s| s.heading)
            .collect();
        // C has no status and an approved promotion; E's status says it ended.
        assert_eq!(validated, ["A", "C", "D", "F"]);
    }

    #[test]
    fn newest_first_across_files_undated_last() {
        let dated = |d: Option<&str>, name: &'static str| (d.map(str::to_owned), name);
        let order = newest_first(vec![
            dated(Some("2026-10-01"), "a"),
            dated(None, "undated one"),
            dated(Some("2026-10-18"), "b"),
            dated(Some("2026-10-01"), "c"),
            dated(Some("2026-10-10"), "d"),
            dated(None, "undated two"),
            dated(Some("2026-10-01"), "e"),
        ]);
        assert_eq!(
            order,
            ["b", "d", "e", "c", "a", "undated two", "undated one"]
        );
    }
}
