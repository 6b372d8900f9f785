//! `import`: proposes, once, a candidate for each item of an existing agent memory — Claude
//! Code's `.claude/agent-memory/*/MEMORY.md`, the memory section of the project's `CLAUDE.md`
//! or `AGENTS.md` (a heading whose text holds "memory", up to the next heading of the same or a
//! higher level), or a Markdown file given with `--from`.
//!
//! A document gives its items in either of two ways, section by section:
//!
//! * **List items**: a list item that starts a line (`-`, `*`, `+`, `1.`) with the indented or
//!   wrapped lines under it is an item; its first line (up to 100 characters, cut at a word) is
//!   the title, its whole text the content. The items of the text before the first heading, of
//!   a heading that names a type (`Decisions`, `Lessons`, `Patterns`) or the memory section, of
//!   a heading with headings under it (unless it is a record, below), and of a section holding
//!   nothing but list items, are taken this way.
//! * **Sections**: a heading with text of its own that is not only list items, and no heading
//!   under it, is one item: the heading is the title, its text the content. A heading whose
//!   headings under it are all named like the fields of a record (`Status`, `Context`,
//!   `Decision`, `Consequences`, …: one decision record) is one item too, its whole text the
//!   content (a `###` line in it made `####`, so that it stays inside the entry).
//!
//! Lines inside fenced code are never items or headings. A title loses its Markdown emphasis
//! (`**`, `__`, `*`, `_`, `~~`). The nearest heading above an item that names a type gives its
//! type (else `lesson`). Every candidate is checked as `propose` checks it — an item holding a
//! secret or over the size limit is refused and reported by file and line, never echoed — and
//! written only when its topic is not already pending, admitted or refused, so a second run
//! proposes nothing new. A file read that gives no item is reported with the reason. The
//! refused topics and the entries are read once, and the views rebuilt once, however many items
//! there are; an interruption (SIGINT, SIGTERM) stops between two items, with the views rebuilt
//! and the writer lock released. Files are only read: nothing is ever written under `.claude/`
//! or to the imported files.

use std::path::Path;

use pulldown_cmark::{Event, Options, Parser, Tag};

use crate::actions::secrets;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::path::resolve;
use crate::js::text::{collapse_whitespace, trim, utf16_len};
use crate::messages;
use crate::output::Report;
use crate::store::confined;
use crate::store::interrupt::interrupted;
use crate::store::lock::WriterLock;
use crate::store::paths::{Loose, read_loose_bytes};

use crate::actions::entries::candidate::{Kind, count};
use crate::actions::entries::propose::{Drafter, NotWritten, Proposed, WhenPending, Writer};

use crate::store::layout::CLAUDE_AGENT_MEMORY as CLAUDE_DIR;
/// The project instruction files whose memory section is imported.
pub(crate) const AGENTS_FILES: [&str; 2] = ["CLAUDE.md", "AGENTS.md"];
/// Longest imported title, in UTF-16 units.
const TITLE_CUT: usize = 100;
/// The headings of a record's fields: a heading whose headings are all among these is one item.
const FIELD_HEADINGS: [&str; 18] = [
    "status",
    "context",
    "context and problem statement",
    "decision",
    "decision outcome",
    "decision drivers",
    "considered options",
    "options",
    "pros and cons of the options",
    "consequences",
    "rationale",
    "date",
    "deciders",
    "problem",
    "solution",
    "impact",
    "lesson",
    "links",
];

/// Propose candidates from an existing agent memory (never writes to it).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ImportArgs {
    /// What to import: claude (.claude/agent-memory/*/MEMORY.md), agents-md (the memory section
    /// of CLAUDE.md and AGENTS.md), or a Markdown file of list items or sections; default:
    /// claude, then agents-md.
    #[arg(long, value_name = "claude|agents-md|file", allow_hyphen_values = true)]
    pub from: Option<String>,
}

/// One item found in a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    pub kind: Kind,
    pub title: String,
    pub content: String,
    /// The item's first line, from 1.
    pub line: usize,
}

/// An item that was not proposed because it broke a rule.
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    pub file: String,
    pub line: usize,
    pub reason: String,
}

/// A file read, and what it gave.
#[derive(Debug, Clone)]
struct Source {
    shown: String,
    items: Vec<Item>,
    /// Why it gave no item, when it gave none.
    empty: Option<&'static str>,
}

impl Source {
    fn new(shown: String, text: &str, section: Option<&str>) -> Self {
        let items = items(text, section);
        let empty = items.is_empty().then(|| {
            if trim(text).is_empty() {
                messages::IMPORT_EMPTY_FILE
            } else {
                messages::IMPORT_NO_ITEM
            }
        });
        Self {
            shown,
            items,
            empty,
        }
    }
}

/// What `import` did.
#[derive(Debug, Clone, Default)]
pub(crate) struct ImportReport {
    /// The files read, as shown.
    pub read: Vec<String>,
    pub proposed: Vec<Proposed>,
    pub duplicates: usize,
    pub refused: Vec<Refusal>,
    /// The files read that gave no item, with the reason.
    pub empty: Vec<(String, &'static str)>,
}

/// Runs `import`.
///
/// # Errors
/// A `--from` file that is missing, unreadable or named like a secret store; a source the
/// reader refuses; a note file the entry checks cannot read; confinement and I/O errors while
/// writing candidates.
pub(crate) fn run(args: &ImportArgs, ctx: &Context) -> Result<ImportReport> {
    let sources = match args.from.as_deref().map(trim) {
        None => [claude_sources(ctx)?, agents_sources(ctx)?].concat(),
        Some("claude") => claude_sources(ctx)?,
        Some("agents-md") => agents_sources(ctx)?,
        Some("") => return Err(Error::refused(messages::IMPORT_FROM_EMPTY)),
        Some(file) => vec![file_source(ctx, file)?],
    };
    let mut report = ImportReport::default();
    if sources.is_empty() {
        return Ok(report);
    }
    let lock = WriterLock::acquire(&ctx.root)?;
    let mut writer = Writer::new(ctx, WhenPending::Skip)?;
    let written = propose_all(ctx, &mut writer, sources, &mut report);
    // The views are rebuilt once, after every write, even when one failed or the run was
    // interrupted: what was written is listed.
    let rebuilt = writer.finish(&lock);
    written.and(rebuilt)?;
    Ok(report)
}

/// Checks and writes every item of `sources`, stopping between two items when the process was
/// interrupted.
fn propose_all(
    ctx: &Context,
    writer: &mut Writer<'_>,
    sources: Vec<Source>,
    report: &mut ImportReport,
) -> Result<()> {
    let drafter = Drafter::new(ctx);
    for source in sources {
        report.read.push(source.shown.clone());
        if let Some(reason) = source.empty {
            report.empty.push((source.shown.clone(), reason));
        }
        for item in source.items {
            if interrupted() {
                return Ok(());
            }
            let candidate = drafter.draft(
                item.kind,
                &item.title,
                &item.content,
                "",
                &[],
                &format!("import:{}", source.shown),
            );
            if let Err(e) = candidate.check(ctx) {
                report.refused.push(Refusal {
                    file: source.shown.clone(),
                    line: item.line,
                    reason: e.to_string(),
                });
                continue;
            }
            match writer.write(candidate)? {
                Ok(proposed) => report.proposed.push(proposed),
                Err(NotWritten::Duplicate(_)) => report.duplicates += 1,
            }
        }
    }
    Ok(())
}

/// Every `.claude/agent-memory/*/MEMORY.md`, by agent name.
fn claude_sources(ctx: &Context) -> Result<Vec<Source>> {
    let Some((dir, _)) = confined::open_dir(&ctx.root, CLAUDE_DIR, false)? else {
        return Ok(Vec::new());
    };
    let mut agents: Vec<String> = dir
        .names()
        .map_err(|e| Error::io("cannot list", dir.path(), e))?
        .into_iter()
        .filter_map(|n| n.into_string().ok())
        .collect();
    agents.sort();
    let mut out = Vec::new();
    for agent in agents {
        let rel = format!("{CLAUDE_DIR}/{agent}/MEMORY.md");
        if let Some(text) = read_project(ctx, &rel)? {
            out.push(Source::new(rel, &text, None));
        }
    }
    Ok(out)
}

/// The memory section of `CLAUDE.md` and `AGENTS.md`, when they have one that gives items.
fn agents_sources(ctx: &Context) -> Result<Vec<Source>> {
    let mut out = Vec::new();
    for rel in AGENTS_FILES {
        if let Some(text) = read_project(ctx, rel)? {
            let source = Source::new(rel.to_owned(), &text, Some("memory"));
            if !source.items.is_empty() {
                out.push(source);
            }
        }
    }
    Ok(out)
}

/// A Markdown file given by path, relative to the current directory.
fn file_source(ctx: &Context, file: &str) -> Result<Source> {
    if let Some(what) = secrets::secret_file(file) {
        return Err(Error::refused(messages::from_names_secret(file, what)));
    }
    let path = resolve(&ctx.cwd, Path::new(file));
    let text = match read_loose_bytes(&path, Path::new("/"))? {
        // As `propose --from`: the text is taken as it is, never repaired.
        Loose::Read(bytes) => {
            String::from_utf8(bytes).map_err(|_| Error::refused(messages::FROM_NOT_UTF8))?
        }
        Loose::Missing => return Err(Error::NotFound(path)),
        Loose::Skipped(skip) => {
            return Err(Error::refused(messages::import_from_unreadable(file, skip)));
        }
    };
    Ok(Source::new(file.to_owned(), &text, None))
}

/// A project file read with the confined reader (no link, at most 2 MiB, UTF-8); `None` when
/// absent or a folder on the way is missing.
fn read_project(ctx: &Context, rel: &str) -> Result<Option<String>> {
    crate::store::paths::read_registry(&ctx.root, rel, true)
}

/// An ATX heading: its level and text.
fn heading(line: &str) -> Option<(usize, &str)> {
    let hashes = line.len() - line.trim_start_matches('#').len();
    let rest = &line[hashes..];
    ((1..=6).contains(&hashes) && (rest.is_empty() || rest.starts_with([' ', '\t'])))
        .then(|| (hashes, trim(rest.trim_end_matches('#'))))
}

/// The text after a list marker that starts `line`, if it starts an item.
fn item_start(line: &str) -> Option<&str> {
    if let Some(rest) = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .or_else(|| line.strip_prefix("+ "))
    {
        return Some(rest);
    }
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let rest = &line[digits..];
    (digits > 0 && digits < 10)
        .then(|| rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")))
        .flatten()
}

/// The kind a heading names, if it names one.
fn kind_named(heading: &str) -> Option<Kind> {
    let lower = heading.to_lowercase();
    if lower.contains("decision") || lower.contains("décision") {
        Some(Kind::Decision)
    } else if lower.contains("pattern") {
        Some(Kind::Pattern)
    } else if lower.contains("lesson") || lower.contains("leçon") {
        Some(Kind::Lesson)
    } else {
        None
    }
}

/// Whether a heading names a field of a record.
fn is_field_heading(heading: &str) -> bool {
    let name = plain_title(heading).to_lowercase();
    FIELD_HEADINGS.contains(&trim(name.trim_end_matches(':')))
}

/// A heading outside fenced code.
#[derive(Debug, Clone, Copy)]
struct Heading<'a> {
    level: usize,
    title: &'a str,
    /// Its line, from 0.
    line: usize,
}

/// The lines of `text` (without their CR) and whether each is fenced code (fences included).
fn lines_and_code(text: &str) -> (Vec<&str>, Vec<bool>) {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|raw| raw.strip_suffix('\r').unwrap_or(raw))
        .collect();
    let mut fence: Option<&str> = None;
    let code = lines
        .iter()
        .map(|line| {
            let stripped = line.trim_start_matches(' ');
            match fence {
                Some(mark) => {
                    if stripped.starts_with(mark) {
                        fence = None;
                    }
                    true
                }
                None if stripped.starts_with("```") || stripped.starts_with("~~~") => {
                    fence = Some(&stripped[..3]);
                    true
                }
                None => false,
            }
        })
        .collect();
    (lines, code)
}

/// The items of `text`; with `section`, only those under a heading whose text holds that word
/// (case-insensitive), up to the next heading of the same or a higher level.
#[must_use]
pub(crate) fn items(text: &str, section: Option<&str>) -> Vec<Item> {
    let (lines, code) = lines_and_code(text);
    let headings: Vec<Heading<'_>> = lines
        .iter()
        .enumerate()
        .filter(|&(at, _)| !code[at])
        .filter_map(|(line, l)| heading(l).map(|(level, title)| Heading { level, title, line }))
        .collect();
    let mut out = Vec::new();
    let first = headings.first().map_or(lines.len(), |h| h.line);
    if section.is_none() {
        list_items(&lines, 0..first, Kind::Lesson, &mut out);
    }
    // The enclosing headings (for the type), and the memory section's level while inside it.
    let mut stack: Vec<(usize, Option<Kind>)> = Vec::new();
    let mut inside: Option<usize> = None;
    let mut skip_until = 0;
    for (at, h) in headings.iter().enumerate() {
        stack.retain(|&(level, _)| level < h.level);
        let mut container = false;
        if let Some(word) = section {
            if inside.is_some_and(|level| h.level <= level) {
                inside = None;
            }
            if inside.is_none() && h.title.to_lowercase().contains(word) {
                inside = Some(h.level);
                container = true;
            }
        }
        let named = kind_named(h.title);
        let kind = named
            .or_else(|| stack.iter().rev().find_map(|&(_, k)| k))
            .unwrap_or(Kind::Lesson);
        stack.push((h.level, named));
        if (section.is_some() && inside.is_none()) || h.line < skip_until {
            continue;
        }
        let own_end = headings.get(at + 1).map_or(lines.len(), |n| n.line);
        let below: Vec<&Heading<'_>> = headings[at + 1..]
            .iter()
            .take_while(|n| n.level > h.level)
            .collect();
        let tree_end = below.last().map_or(own_end, |last| {
            headings
                .iter()
                .find(|n| n.line > last.line && n.level <= h.level)
                .map_or(lines.len(), |n| n.line)
        });
        let record = !below.is_empty() && below.iter().all(|n| is_field_heading(n.title));
        container = container || (!record && (named.is_some() || !below.is_empty()));
        if !container && (record || has_prose(&lines[h.line + 1..own_end])) {
            if let Some(item) = section_item(kind, h, &lines[h.line + 1..tree_end]) {
                out.push(item);
            }
            skip_until = tree_end;
        } else {
            list_items(&lines, h.line + 1..own_end, kind, &mut out);
        }
    }
    out
}

/// Whether a section's own lines hold anything but list items: a line at the margin that
/// starts no item, fenced code at the margin, or indented text before any item.
fn has_prose(lines: &[&str]) -> bool {
    let mut in_item = false;
    for line in lines {
        if trim(line).is_empty() {
            continue;
        }
        if item_start(line).is_some() {
            in_item = true;
        } else if !(in_item && line.starts_with([' ', '\t'])) {
            return true;
        }
    }
    false
}

/// A section as one item: the heading is the title, the text under it the content (a `###`
/// line made `####`).
fn section_item(kind: Kind, h: &Heading<'_>, lines: &[&str]) -> Option<Item> {
    let content: Vec<String> = lines
        .iter()
        .map(|line| match line.strip_prefix("###") {
            Some(rest) if rest.starts_with([' ', '\t']) => format!("####{rest}"),
            _ => (*line).to_owned(),
        })
        .collect();
    let title = cut_title(&plain_title(&collapse_whitespace(h.title)));
    (!title.is_empty()).then(|| Item {
        kind,
        title,
        content: trim(&content.join("\n")).to_owned(),
        line: h.line + 1,
    })
}

/// The top-level list items of `lines[range]`, of type `kind`, pushed to `out`.
fn list_items(lines: &[&str], range: std::ops::Range<usize>, kind: Kind, out: &mut Vec<Item>) {
    let mut open: Option<(usize, Vec<&str>)> = None;
    let mut fence: Option<&str> = None;
    let close = |open: &mut Option<(usize, Vec<&str>)>, out: &mut Vec<Item>| {
        if let Some((line, lines)) = open.take()
            && let Some(item) = make_item(kind, line, &lines)
        {
            out.push(item);
        }
    };
    for index in range {
        let line = lines[index];
        let stripped = line.trim_start_matches(' ');
        if let Some(mark) = fence {
            if stripped.starts_with(mark) {
                fence = None;
            }
            if let Some((_, lines)) = &mut open {
                lines.push(line);
            }
            continue;
        }
        if stripped.starts_with("```") || stripped.starts_with("~~~") {
            fence = Some(&stripped[..3]);
            // Code at the margin ends the item; indented code belongs to it.
            if stripped.len() == line.len() {
                close(&mut open, out);
            }
            if let Some((_, lines)) = &mut open {
                lines.push(line);
            }
            continue;
        }
        if let Some(rest) = item_start(line) {
            close(&mut open, out);
            open = Some((index + 1, vec![rest]));
        } else if let Some((_, lines)) = &mut open {
            if line.starts_with([' ', '\t']) || trim(line).is_empty() {
                lines.push(line);
            } else {
                close(&mut open, out);
            }
        }
    }
    close(&mut open, out);
}

/// An item from its lines (the first without its marker), or `None` when it has no title.
fn make_item(kind: Kind, line: usize, lines: &[&str]) -> Option<Item> {
    let indent = lines[1..]
        .iter()
        .filter(|l| !trim(l).is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    let mut content = lines[0].to_owned();
    for l in &lines[1..] {
        content.push('\n');
        content.push_str(l.get(indent..).unwrap_or_else(|| trim(l)));
    }
    let content = trim(&content).to_owned();
    let title = cut_title(trim(&plain_title(&collapse_whitespace(lines[0]))));
    (!title.is_empty()).then_some(Item {
        kind,
        title,
        content,
        line,
    })
}

/// `text` without its Markdown emphasis (`**`, `__`, `*`, `_`, `~~` around a span), as
/// `CommonMark` reads it; kept as it is when it does not read as one paragraph (a line that
/// starts like a list, a quote or a heading).
#[must_use]
pub(crate) fn plain_title(text: &str) -> String {
    let mut events = Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH).into_offset_iter();
    if !matches!(events.next(), Some((Event::Start(Tag::Paragraph), _))) {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut drop = vec![false; bytes.len()];
    for (event, range) in events {
        let Event::Start(tag) = event else {
            continue;
        };
        let width = match tag {
            Tag::Emphasis => 1,
            Tag::Strong => 2,
            Tag::Strikethrough => bytes[range.clone()]
                .iter()
                .take_while(|&&b| b == b'~')
                .count()
                .min(2),
            Tag::Paragraph => return text.to_owned(),
            _ => 0,
        };
        if width > 0 && range.len() >= 2 * width {
            drop[range.start..range.start + width].fill(true);
            drop[range.end - width..range.end].fill(true);
        }
    }
    let kept: Vec<u8> = bytes
        .iter()
        .zip(&drop)
        .filter(|&(_, &d)| !d)
        .map(|(&b, _)| b)
        .collect();
    String::from_utf8(kept).unwrap_or_else(|_| text.to_owned())
}

/// `text` cut to at most 100 UTF-16 units, at the last space before the limit when there is one.
fn cut_title(text: &str) -> String {
    if utf16_len(text) <= TITLE_CUT {
        return text.to_owned();
    }
    let mut end = 0;
    let mut units = 0;
    for (at, c) in text.char_indices() {
        units += c.len_utf16();
        if units > TITLE_CUT - 1 {
            break;
        }
        end = at + c.len_utf8();
    }
    let head = &text[..end];
    let head = head.rfind(' ').map_or(head, |space| &head[..space]);
    format!("{}…", head.trim_end())
}

impl Report for ImportReport {
    fn to_json(&self) -> Value {
        let proposed: Vec<Value> = self
            .proposed
            .iter()
            .map(|p| Value::Object(p.to_object()))
            .collect();
        let refused: Vec<Value> = self
            .refused
            .iter()
            .map(|r| {
                Value::Object(
                    Object::new()
                        .with("file", r.file.as_str())
                        .with("line", count(r.line))
                        .with("reason", r.reason.as_str()),
                )
            })
            .collect();
        Value::Object(
            Object::new()
                .with(
                    "read",
                    self.read.iter().map(Value::from).collect::<Vec<_>>(),
                )
                .with("proposed", proposed)
                .with("duplicates", count(self.duplicates))
                .with("refused", refused)
                .with(
                    "empty",
                    self.empty
                        .iter()
                        .map(|(file, reason)| {
                            Value::Object(
                                Object::new()
                                    .with("file", file.as_str())
                                    .with("reason", *reason),
                            )
                        })
                        .collect::<Vec<_>>(),
                ),
        )
    }

    fn render_human(&self) -> String {
        use std::fmt::Write as _;
        if self.read.is_empty() {
            return "mem import: nothing to import (no .claude/agent-memory/*/MEMORY.md, no memory section in CLAUDE.md or AGENTS.md)\n".to_owned();
        }
        let mut out = format!(
            "mem import: {} candidate(s) proposed from {} file(s); {} duplicate(s) skipped; {} refused\n",
            self.proposed.len(),
            self.read.len(),
            self.duplicates,
            self.refused.len()
        );
        for p in &self.proposed {
            let _ = writeln!(
                out,
                "  {}  {} \"{}\"",
                p.candidate.id,
                p.candidate.kind.as_str(),
                crate::js::text::truncate(&p.candidate.title)
            );
        }
        for r in &self.refused {
            let _ = writeln!(out, "  refused {}:{}: {}", r.file, r.line, r.reason);
        }
        for (file, reason) in &self.empty {
            let _ = writeln!(out, "  no item in {file}: {reason}");
        }
        if !self.proposed.is_empty() {
            out.push_str("  a person reviews them with: bmad-mem admit --list\n");
        }
        out
    }

    fn warnings(&self) -> Vec<String> {
        self.proposed
            .iter()
            .flat_map(|p| {
                p.warnings.iter().map(|w| {
                    format!(
                        "warning: {}: {}",
                        p.candidate.id,
                        w.strip_prefix("warning: ").unwrap_or(w)
                    )
                })
            })
            .collect()
    }

    fn written(&self) -> Option<String> {
        (!self.proposed.is_empty())
            .then(|| format!("{} candidate(s) proposed", self.proposed.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_items_with_their_lines() {
        let text = "# Memory\n\nintro\n\n## Decisions\n- Use Postgres\n  because of the ledger\n\n  and reports\n* second\n```\n- not an item\n```\nparagraph\n  - nested is not top level\n## Lessons\n1. Flush the **bucket**\n   in setup\n";
        let found = items(text, None);
        let brief: Vec<(Kind, &str, usize)> = found
            .iter()
            .map(|i| (i.kind, i.title.as_str(), i.line))
            .collect();
        assert_eq!(
            brief,
            [
                (Kind::Decision, "Use Postgres", 6),
                (Kind::Decision, "second", 10),
                (Kind::Lesson, "Flush the bucket", 17),
            ]
        );
        assert_eq!(
            found[0].content,
            "Use Postgres\nbecause of the ledger\n\nand reports"
        );
        assert_eq!(found[1].content, "second");
    }

    #[test]
    fn only_the_memory_section_of_an_instruction_file() {
        let text = "# Project\n- build with make\n## Memory\n- keep tests fast\n### Patterns\n- one schema per worker\n## Style\n- tabs\n";
        let found = items(text, Some("memory"));
        let titles: Vec<(&str, Kind)> = found.iter().map(|i| (i.title.as_str(), i.kind)).collect();
        assert_eq!(
            titles,
            [
                ("keep tests fast", Kind::Lesson),
                ("one schema per worker", Kind::Pattern)
            ]
        );
    }

    fn brief(found: &[Item]) -> Vec<(Kind, &str, usize)> {
        found
            .iter()
            .map(|i| (i.kind, i.title.as_str(), i.line))
            .collect()
    }

    #[test]
    fn a_document_organised_by_headings_gives_one_item_a_section() {
        let text = "# Team notes\n\nWhat we learned.\n\n## Decisions\n\n### Use **Postgres** for the ledger\n\nOne database for money.\n\n- and its reports\n\n### Ship behind flags\nFor a week.\n\n## Flush the bucket in setup\n\n```sh\nredis-cli flushdb\n```\n\n## Empty heading\n\n## Checklist\n- build\n- push\n";
        let found = items(text, None);
        assert_eq!(
            brief(&found),
            [
                (Kind::Decision, "Use Postgres for the ledger", 7),
                (Kind::Decision, "Ship behind flags", 13),
                (Kind::Lesson, "Flush the bucket in setup", 16),
                (Kind::Lesson, "build", 25),
                (Kind::Lesson, "push", 26),
            ]
        );
        assert_eq!(
            found[0].content,
            "One database for money.\n\n- and its reports"
        );
        assert_eq!(found[2].content, "```sh\nredis-cli flushdb\n```");
    }

    #[test]
    fn a_record_with_field_headings_is_one_item() {
        let text = "# 1. Record architecture decisions\n\nDate: 2026-01-02\n\n## Status\n\nAccepted\n\n## Context\n\nWe need to record decisions.\n\n### Decision\n\nWe will use ADRs.\n";
        let found = items(text, None);
        assert_eq!(
            brief(&found),
            [(Kind::Decision, "1. Record architecture decisions", 1)]
        );
        assert!(
            found[0]
                .content
                .starts_with("Date: 2026-01-02\n\n## Status")
        );
        assert!(
            found[0].content.contains("\n#### Decision\n"),
            "{}",
            found[0].content
        );
    }

    #[test]
    fn a_memory_section_with_sections_under_it() {
        let text = "# Project\n## Memory\nintro line\n### Keep tests fast\nUnder a minute.\n## Style\nTabs.\n";
        assert_eq!(
            brief(&items(text, Some("memory"))),
            [(Kind::Lesson, "Keep tests fast", 4)]
        );
    }

    #[test]
    fn titles_lose_their_emphasis_and_only_it() {
        for (text, want) in [
            ("**Use Postgres**", "Use Postgres"),
            ("Use *the* __ledger__ and _it_", "Use the ledger and it"),
            ("***both*** ~~gone~~ kept", "both gone kept"),
            (
                "snake_case_name and 2 * 3 * 4",
                "snake_case_name and 2 * 3 * 4",
            ),
            ("`**code**` stays", "`**code**` stays"),
            ("2026. **A** year", "2026. **A** year"),
            ("", ""),
        ] {
            assert_eq!(plain_title(text), want, "{text:?}");
        }
    }

    #[test]
    fn a_file_without_items_says_why() {
        assert_eq!(
            Source::new("a.md".into(), " \n", None).empty,
            Some(messages::IMPORT_EMPTY_FILE)
        );
        assert_eq!(
            Source::new("a.md".into(), "# Title\n## Part\n", None).empty,
            Some(messages::IMPORT_NO_ITEM)
        );
        assert_eq!(Source::new("a.md".into(), "- x\n", None).empty, None);
    }

    #[test]
    fn long_titles_are_cut_at_a_word() {
        let title = cut_title(&"word ".repeat(40));
        assert!(utf16_len(&title) <= TITLE_CUT, "{title}");
        assert!(title.ends_with("word…"));
    }
}
