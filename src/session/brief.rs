//! `brief`: the session-start read of the memory protocol in one call (read-only).
//!
//! In the protocol's order: the brain's entry point (`identity.yaml`, a portfolio brain's
//! `README.md`/`AGENTS.md`/`HOT.md`, claude-memory's `MEMORY.md`/`README.md`: the first that
//! can be read, see [`crate::session::brain::Brain::read_entry_point`]), `context.md`, the active decisions, the lessons newest
//! first, the latest handoff in `sessions/`, the latest journal events, and the last commits
//! when the project is a git repository. Missing pieces are skipped silently: memory is
//! optional. The brain is the linked one, else the one detection would link.
//!
//! Decisions and lessons are read from `.agents/memory/` and then `.bmad/memory/`. A decision
//! is shown when its status (read by [`crate::store::entry`]) is active or absent; one whose status
//! line cannot be read is shown too, its heading marked `(status unreadable)`. Lessons from
//! both folders are merged and ordered newest first by their date — the heading's, else their
//! `Date` line's — undated ones last. The latest handoff is chosen by its name and content,
//! never by modification time (see [`crate::session::status::latest_handoff`]).
//!
//! The brief is cut to `--max-chars` (UTF-16 units, docs §2.3) without cutting an entry in
//! half: entries are taken in order while they fit, one that does not fit is left out, and a
//! closing line says what was left out. That line counts against the budget too (the last
//! entries kept make room for it), except under a budget too small for the title and the line
//! alone, where it is printed anyway: nothing is left out silently. The same files give the
//! same brief, byte for byte.
//!
//! `git log` is the only process started, and only when the project folder holds `.git`; if git
//! is missing or fails, the commits are skipped silently.
//!
//! With `--agent <name>`, the brief starts with that agent's sidecar `index.md`, then the access
//! boundaries that apply to it (the project's file, then the sidecar's), before the brain. With
//! `--hook gemini`, the text is wrapped in the JSON Gemini CLI's session-start hook reads.

use std::cmp::Reverse;
use std::fmt::Write as _;
use std::path::Path;

use crate::context::Context;
use crate::context::folder_name;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::text::{trim, truncate, utf16_len};
use crate::messages;
use crate::output::Report;
use crate::session::brain;
use crate::session::handoffs::latest_handoff;
use crate::session::pack::git_stdout;
use crate::session::pack::{count, memory_path, strip_front_matter, without_prompts};
use crate::session::sidecar::{HookAgent, check_agent_name};
use crate::store::entry::{Status, date_of, may_be_in_force, status_of};
use crate::store::journal;
use crate::store::layout::{
    BOUNDARIES_FILE, CONTEXT_FILE, JOURNAL, PACK_DIR, SESSIONS_DIR, SIDECAR_BOUNDARIES,
    SIDECAR_INDEX, sidecar_path,
};
use crate::store::paths::{read_loose, read_loose_bytes};
use crate::store::sections::{Section, sections};

/// The brief's size when `--max-chars` is not given.
pub(crate) const DEFAULT_MAX_CHARS: usize = 8000;
/// How many journal events and commits the brief shows at most.
const LATEST: usize = 5;
/// Where decisions and lessons are read, in order.
const NOTE_DIRS: [&str; 2] = [PACK_DIR, ".bmad/memory"];

/// Print the session-start read: brain, context, decisions, lessons, handoff, journal, commits.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BriefArgs {
    /// The brief's maximum length in characters, a positive integer (default 8000).
    #[arg(long = "max-chars", value_name = "n", allow_hyphen_values = true)]
    pub max_chars: Option<String>,
    /// Start with this agent's sidecar: its `index.md`, then its access boundaries.
    #[arg(long, value_name = "name", allow_hyphen_values = true)]
    pub agent: Option<String>,
    /// Answer as this agent's session-start hook expects (gemini: JSON with the brief as
    /// additional context; claude-code and codex take the text as it is).
    #[arg(long, value_name = "agent", value_parser = ["claude-code", "codex", "gemini"])]
    pub hook: Option<String>,
}

/// The parts of the brief, in the protocol's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Sidecar,
    Boundaries,
    Brain,
    Context,
    Decisions,
    Lessons,
    Handoff,
    Journal,
    Commits,
}

impl Part {
    /// The part's name in JSON.
    #[must_use]
    pub(crate) fn name(self) -> &'static str {
        match self {
            Part::Sidecar => "sidecar",
            Part::Boundaries => "boundaries",
            Part::Brain => "brain",
            Part::Context => "context",
            Part::Decisions => "decisions",
            Part::Lessons => "lessons",
            Part::Handoff => "handoff",
            Part::Journal => "journal",
            Part::Commits => "commits",
        }
    }

    /// How the closing line counts `n` left-out entries of this part.
    fn left_out(self, n: usize) -> String {
        let plural = |one: &str, many: &str| {
            if n == 1 {
                format!("1 {one}")
            } else {
                format!("{n} {many}")
            }
        };
        match self {
            Part::Sidecar => "the sidecar's index.md".to_owned(),
            Part::Boundaries => plural("access-boundaries file", "access-boundaries files"),
            Part::Brain => "the brain's entry point".to_owned(),
            Part::Context => CONTEXT_FILE.to_owned(),
            Part::Decisions => plural("active decision", "active decisions"),
            Part::Lessons => plural("lesson", "lessons"),
            Part::Handoff => "the latest handoff".to_owned(),
            Part::Journal => plural("journal event", "journal events"),
            Part::Commits => plural("commit", "commits"),
        }
    }
}

/// One entry: kept whole or left out whole.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// What it is (a heading, a file name, an event id).
    pub label: String,
    /// Its Markdown, without a final newline.
    pub text: String,
    /// The file it comes from, when its group reads several files.
    pub source: Option<String>,
}

/// The entries of one part read from one source, under one `##` heading.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Group {
    pub part: Part,
    pub source: String,
    pub heading: String,
    pub entries: Vec<Entry>,
}

/// The brief as cut.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cut {
    pub text: String,
    /// For each group, which of its entries were kept.
    pub kept: Vec<Vec<bool>>,
}

/// Cuts `groups` under `title` to at most `max` UTF-16 units (see the module documentation).
#[must_use]
pub(crate) fn cut(title: &str, groups: &[Group], max: usize) -> Cut {
    let header_cost = |g: &Group| utf16_len(&g.heading) + 5; // "\n## " + heading + "\n"
    let entry_cost = |e: &Entry| utf16_len(&e.text) + 2; // "\n" + text + "\n"
    let mut kept: Vec<Vec<bool>> = groups
        .iter()
        .map(|g| vec![false; g.entries.len()])
        .collect();
    let mut used = utf16_len(title);
    let mut order = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        for (e, entry) in group.entries.iter().enumerate() {
            let started = kept[g].iter().any(|k| *k);
            let cost = entry_cost(entry) + if started { 0 } else { header_cost(group) };
            if used + cost <= max {
                used += cost;
                kept[g][e] = true;
                order.push((g, e));
            }
        }
    }
    // Make room for the closing line by dropping the last entries kept — unless even dropping
    // them all would not make it fit: then the entries stay and the line goes over the budget.
    let greedy = kept.clone();
    loop {
        let note = closing_line(groups, &kept, max);
        if note.is_empty() || used + utf16_len(&note) <= max {
            break;
        }
        let Some((g, e)) = order.pop() else {
            kept = greedy;
            break;
        };
        kept[g][e] = false;
        used -= entry_cost(&groups[g].entries[e]);
        if !kept[g].iter().any(|k| *k) {
            used -= header_cost(&groups[g]);
        }
    }
    let mut text = title.to_owned();
    for (group, kept) in groups.iter().zip(&kept) {
        if !kept.iter().any(|k| *k) {
            continue;
        }
        let _ = write!(text, "\n## {}\n", group.heading);
        for (entry, _) in group.entries.iter().zip(kept).filter(|(_, k)| **k) {
            let _ = write!(text, "\n{}\n", entry.text);
        }
    }
    text.push_str(&closing_line(groups, &kept, max));
    Cut { text, kept }
}

/// `\n> Left out to fit N characters: …\n`, or nothing when everything was kept.
fn closing_line(groups: &[Group], kept: &[Vec<bool>], max: usize) -> String {
    let mut counts: Vec<(Part, usize)> = Vec::new();
    for (group, kept) in groups.iter().zip(kept) {
        let n = kept.iter().filter(|k| !**k).count();
        if n == 0 {
            continue;
        }
        match counts.last_mut() {
            Some((part, total)) if *part == group.part => *total += n,
            _ => counts.push((group.part, n)),
        }
    }
    if counts.is_empty() {
        return String::new();
    }
    let list: Vec<String> = counts.iter().map(|(p, n)| p.left_out(*n)).collect();
    format!(
        "\n> Left out to fit {max} characters: {}.\n",
        list.join(", ")
    )
}

/// A positive integer (`+` and surrounding whitespace allowed).
fn parse_max_chars(text: &str) -> Option<usize> {
    let t = trim(text);
    let digits = t.strip_prefix('+').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = digits.trim_start_matches('0');
    if n.is_empty() {
        return None;
    }
    Some(n.parse::<usize>().unwrap_or(usize::MAX))
}

fn entry_of(section: &Section<'_>, source: Option<&str>) -> Entry {
    Entry {
        label: section.heading.to_owned(),
        text: format!("### {}", section.trimmed_text()),
        source: source.map(str::to_owned),
    }
}

/// The entry a decision gives the brief: an active one, or one whose status cannot be read,
/// marked so (it may still be in force); nothing for a superseded, abrogated, rolled-back or
/// proposed one.
fn decision_entry(section: &Section<'_>) -> Option<Entry> {
    if !may_be_in_force(section) {
        return None;
    }
    if !matches!(status_of(section), Some(Status::Unreadable(_))) {
        return Some(entry_of(section, None));
    }
    let full = section.trimmed_text();
    let body = full.get(section.heading.len()..).unwrap_or_default();
    Some(Entry {
        label: section.heading.to_owned(),
        text: format!("### {} (status unreadable){body}", section.heading),
        source: None,
    })
}

/// Lessons newest first, read from every file at once: by their date (heading or `Date` line),
/// undated last, and among equals the one later in the files (taken in the order given) first.
#[must_use]
pub(crate) fn lessons_newest_first<'a, 's>(
    all: &[(&'s str, Section<'a>)],
) -> Vec<(&'s str, Section<'a>)> {
    let mut indexed: Vec<(usize, (&'s str, Section<'a>))> =
        all.iter().copied().enumerate().collect();
    indexed.sort_by_key(|(i, (_, s))| (Reverse(date_of(s)), Reverse(*i)));
    indexed.into_iter().map(|(_, e)| e).collect()
}

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

fn brain_group(ctx: &Context, warnings: &mut Vec<String>) -> Option<Group> {
    let (brain, found_warnings) = brain::linked_or_detected(ctx);
    warnings.extend(found_warnings);
    let brain = brain?;
    let (name, path, text) = brain.read_entry_point(warnings)?;
    let text = trim(&text).to_owned();
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

fn file_group(
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

/// The active decisions, one group per file in [`NOTE_DIRS`] order.
fn decision_groups(ctx: &Context, warnings: &mut Vec<String>) -> Vec<Group> {
    NOTE_DIRS
        .iter()
        .filter_map(|dir| {
            let rel = format!("{dir}/decisions.md");
            let text = read_text(&ctx.root.join(&rel), &ctx.root, &rel, warnings)?;
            let entries: Vec<Entry> = sections(&text).iter().filter_map(decision_entry).collect();
            (!entries.is_empty()).then(|| Group {
                part: Part::Decisions,
                heading: format!("Active decisions — {rel}"),
                source: rel,
                entries,
            })
        })
        .collect()
}

/// The lessons of every file in [`NOTE_DIRS`], newest first across them, as one group.
fn lessons_group(ctx: &Context, warnings: &mut Vec<String>) -> Option<Group> {
    let files: Vec<(String, String)> = NOTE_DIRS
        .iter()
        .filter_map(|dir| {
            let rel = format!("{dir}/lessons.md");
            let text = read_text(&ctx.root.join(&rel), &ctx.root, &rel, warnings)?;
            Some((rel, text))
        })
        .collect();
    let all: Vec<(&str, Section<'_>)> = files
        .iter()
        .flat_map(|(rel, text)| sections(text).into_iter().map(move |s| (rel.as_str(), s)))
        .collect();
    let mut sources: Vec<&str> = files
        .iter()
        .map(|(rel, _)| rel.as_str())
        .filter(|rel| all.iter().any(|(r, _)| r == rel))
        .collect();
    sources.dedup();
    let entries: Vec<Entry> = lessons_newest_first(&all)
        .iter()
        .map(|(rel, s)| entry_of(s, Some(rel)))
        .collect();
    let source = sources.join(", ");
    (!entries.is_empty()).then(|| Group {
        part: Part::Lessons,
        heading: format!("Lessons, newest first — {source}"),
        source,
        entries,
    })
}

fn handoff_group(ctx: &Context, warnings: &mut Vec<String>) -> Option<Group> {
    let name = latest_handoff(&ctx.root.join(SESSIONS_DIR))?;
    file_group(
        ctx,
        Part::Handoff,
        &format!("{SESSIONS_DIR}/{name}"),
        "Latest handoff",
        warnings,
    )
}

fn journal_group(ctx: &Context, warnings: &mut Vec<String>) -> Option<Group> {
    // Read as recall reads it: a link inside the project is followed, anything it may not
    // read is skipped with a warning naming the journal.
    let bytes = match read_loose_bytes(&ctx.root.join(JOURNAL), &ctx.root) {
        Ok(found) => found.or_warn(JOURNAL, warnings)?,
        Err(e) => {
            warnings.push(format!("warning: {JOURNAL} skipped: {e}"));
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
fn commits_group(root: &Path) -> Option<Group> {
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

/// The brief.
#[derive(Debug, Clone)]
pub(crate) struct BriefReport {
    /// Whether to answer as Gemini CLI's session-start hook.
    pub is_gemini_hook: bool,
    pub max_chars: usize,
    pub groups: Vec<Group>,
    pub cut: Cut,
    pub warnings: Vec<String>,
}

/// Runs `brief`.
///
/// # Errors
/// An invalid `--max-chars`.
pub(crate) fn run(args: &BriefArgs, ctx: &Context) -> Result<BriefReport> {
    let max_chars = match &args.max_chars {
        None => DEFAULT_MAX_CHARS,
        Some(text) => parse_max_chars(text)
            .ok_or_else(|| Error::refused(messages::invalid_value("max-chars", text)))?,
    };
    let is_gemini_hook = match args.hook.as_deref() {
        Some(name) => HookAgent::parse(name)? == HookAgent::Gemini,
        None => false,
    };
    let mut warnings = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    if let Some(agent) = &args.agent {
        check_agent_name(agent)?;
        groups.extend(file_group(
            ctx,
            Part::Sidecar,
            &sidecar_path(agent, SIDECAR_INDEX),
            &format!("Sidecar of {agent}"),
            &mut warnings,
        ));
        for rel in [
            BOUNDARIES_FILE.to_owned(),
            sidecar_path(agent, SIDECAR_BOUNDARIES),
        ] {
            groups.extend(file_group(
                ctx,
                Part::Boundaries,
                &rel,
                "Access boundaries",
                &mut warnings,
            ));
        }
    }
    groups.extend(brain_group(ctx, &mut warnings));
    groups.extend(file_group(
        ctx,
        Part::Context,
        &memory_path(CONTEXT_FILE),
        "Context",
        &mut warnings,
    ));
    groups.extend(decision_groups(ctx, &mut warnings));
    groups.extend(lessons_group(ctx, &mut warnings));
    groups.extend(handoff_group(ctx, &mut warnings));
    groups.extend(journal_group(ctx, &mut warnings));
    groups.extend(commits_group(&ctx.root));
    let title = format!("# Session brief — {}\n", folder_name(&ctx.root));
    let cut = cut(&title, &groups, max_chars);
    Ok(BriefReport {
        is_gemini_hook,
        max_chars,
        groups,
        cut,
        warnings,
    })
}

impl Report for BriefReport {
    fn to_json(&self) -> Value {
        let mut included = Vec::new();
        let mut omitted = Vec::new();
        for (group, kept) in self.groups.iter().zip(&self.cut.kept) {
            let source_of = |entry: &Entry| entry.source.clone().unwrap_or(group.source.clone());
            // Kept entries counted per file, files in the order their first entry comes.
            let mut counts: Vec<(String, usize)> = Vec::new();
            for (entry, _) in group.entries.iter().zip(kept).filter(|(_, k)| **k) {
                let source = source_of(entry);
                match counts.iter_mut().find(|(s, _)| *s == source) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((source, 1)),
                }
            }
            for (source, n) in counts {
                included.push(Value::Object(
                    Object::new()
                        .with("part", group.part.name())
                        .with("source", source)
                        .with("entries", count(n)),
                ));
            }
            for (entry, _) in group.entries.iter().zip(kept).filter(|(_, k)| !**k) {
                omitted.push(Value::Object(
                    Object::new()
                        .with("part", group.part.name())
                        .with("source", source_of(entry))
                        .with("entry", entry.label.as_str()),
                ));
            }
        }
        Value::Object(
            Object::new()
                .with("maxChars", count(self.max_chars))
                .with("chars", count(utf16_len(&self.cut.text)))
                .with("included", included)
                .with("omitted", omitted)
                .with("text", self.cut.text.as_str())
                .with(
                    "warnings",
                    Value::Array(self.warnings.iter().map(Value::from).collect()),
                ),
        )
    }

    fn render_human(&self) -> String {
        if self.is_gemini_hook {
            // Gemini CLI reads a hook's stdout as JSON; the brief goes in as added context.
            let mut out = serde_json::json!({
                "hookSpecificOutput": {
                    "hookEventName": "SessionStart",
                    "additionalContext": self.cut.text,
                }
            })
            .to_string();
            out.push('\n');
            return out;
        }
        self.cut.text.clone()
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(part: Part, heading: &str, texts: &[&str]) -> Group {
        Group {
            part,
            source: heading.to_owned(),
            heading: heading.to_owned(),
            entries: texts
                .iter()
                .map(|t| Entry {
                    label: (*t).to_owned(),
                    text: (*t).to_owned(),
                    source: None,
                })
                .collect(),
        }
    }

    fn three_parts() -> [Group; 3] {
        let c = "c".repeat(100);
        let (l1, l2) = (
            format!("### one {}", "l".repeat(60)),
            format!("### two {}", "l".repeat(60)),
        );
        let events: Vec<String> = (1..=3)
            .map(|i| format!("- e{i} {}", "j".repeat(40)))
            .collect();
        [
            group(Part::Context, "C", &[&c]),
            group(Part::Lessons, "L", &[&l1, &l2]),
            group(Part::Journal, "J", &[&events[0], &events[1], &events[2]]),
        ]
    }

    /// The brief of [`three_parts`] keeping the entries flagged, with `note` at the end.
    fn expected(keep: [bool; 6], note: &str) -> String {
        let groups = three_parts();
        let mut text = "# T\n".to_owned();
        let mut i = 0;
        for group in &groups {
            let mut started = false;
            for entry in &group.entries {
                if keep[i] {
                    if !started {
                        let _ = write!(text, "\n## {}\n", group.heading);
                        started = true;
                    }
                    let _ = write!(text, "\n{}\n", entry.text);
                }
                i += 1;
            }
        }
        text + note
    }

    #[track_caller]
    fn case(max: usize, keep: [bool; 6], note: &str) {
        let cut = cut("# T\n", &three_parts(), max);
        let want = expected(keep, note);
        assert_eq!(cut.text, want, "max {max}");
        assert_eq!(cut.kept.concat(), keep, "max {max}");
    }

    #[test]
    fn cuts_whole_entries_and_says_what_was_left_out() {
        let all = [true; 6];
        let full = utf16_len(&expected(all, ""));
        assert_eq!(full, 405);
        case(10_000, all, "");
        case(full, all, "");
        // One unit short: the last event goes, and the closing line takes the second one's room.
        case(
            full - 1,
            [true, true, true, true, false, false],
            "\n> Left out to fit 404 characters: 2 journal events.\n",
        );
        case(
            300,
            [true, true, false, false, false, false],
            "\n> Left out to fit 300 characters: 1 lesson, 3 journal events.\n",
        );
        // The context alone would fit, but not with the closing line: the line wins.
        case(
            120,
            [false; 6],
            "\n> Left out to fit 120 characters: context.md, 2 lessons, 3 journal events.\n",
        );
        // Too small even for the title and the closing line: what fits stays, and the line goes
        // over the budget rather than silently.
        case(
            70,
            [false, false, false, true, false, false],
            "\n> Left out to fit 70 characters: context.md, 2 lessons, 2 journal events.\n",
        );
        let groups = three_parts();
        let nothing: Vec<Vec<bool>> = groups
            .iter()
            .map(|g| vec![false; g.entries.len()])
            .collect();
        for max in 0..=full + 1 {
            let cut = cut("# T\n", &groups, max);
            let note = utf16_len(&closing_line(&groups, &cut.kept, max));
            let len = utf16_len(&cut.text);
            let kept_any = cut.kept.iter().flatten().any(|k| *k);
            assert!(
                len - note <= max || (!kept_any && max < 4),
                "max {max}: entries over budget"
            );
            if len > max {
                let smallest = 4 + utf16_len(&closing_line(&groups, &nothing, max));
                assert!(smallest > max, "max {max}: the closing line could have fit");
            }
        }
    }

    #[test]
    fn a_big_entry_is_skipped_and_later_ones_still_fit() {
        let groups = [
            group(Part::Brain, "B", &[&"x".repeat(500)]),
            group(Part::Context, "C", &["ctx"]),
        ];
        let cut = cut("# T\n", &groups, 120);
        assert_eq!(
            cut.text,
            "# T\n\n## C\n\nctx\n\n> Left out to fit 120 characters: the brain's entry point.\n"
        );
        assert_eq!(cut.kept, [vec![false], vec![true]]);
    }

    #[test]
    fn decisions_shown_active_or_unreadable() {
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
    fn lessons_sort_newest_first_across_files_undated_last() {
        let first = "### 2026-10-01 — a\n### Undated one\n### B\n**Date:** 2026-10-18\n### 2026-10-01 — c\n";
        let second = "### 2026-10-10 — d\n### Undated two\n### 2026-10-01 — e\n";
        let all: Vec<(&str, Section<'_>)> = sections(first)
            .into_iter()
            .map(|s| ("1", s))
            .chain(sections(second).into_iter().map(|s| ("2", s)))
            .collect();
        let order: Vec<(&str, &str)> = lessons_newest_first(&all)
            .iter()
            .map(|(f, s)| (*f, s.heading))
            .collect();
        assert_eq!(
            order,
            [
                ("1", "B"),
                ("2", "2026-10-10 — d"),
                ("2", "2026-10-01 — e"),
                ("1", "2026-10-01 — c"),
                ("1", "2026-10-01 — a"),
                ("2", "Undated two"),
                ("1", "Undated one")
            ]
        );
    }

    #[test]
    fn max_chars_values() {
        assert_eq!(parse_max_chars("100"), Some(100));
        assert_eq!(parse_max_chars(" +7 "), Some(7));
        for bad in ["0", "", "-1", "1.5", "abc", "00"] {
            assert_eq!(parse_max_chars(bad), None, "{bad}");
        }
    }
}
