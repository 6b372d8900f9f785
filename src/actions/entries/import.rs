//! `import`: proposes, once, a candidate for each top-level item of an existing agent memory —
//! Claude Code's `.claude/agent-memory/*/MEMORY.md`, the memory section of the project's
//! `CLAUDE.md` or `AGENTS.md` (a heading whose text holds "memory", up to the next heading of
//! the same or a higher level), or a Markdown file given with `--from`.
//!
//! An item is a list item that starts a line (`-`, `*`, `+`, `1.`) with the indented or
//! wrapped lines under it; lines inside fenced code are never items. Its first line (up to 100
//! characters, cut at a word) is the title, its whole text the content; the nearest heading
//! above it names its type (`decision`s, `pattern`s, else `lesson`). Every candidate is checked
//! as `propose` checks it — an item holding a secret or over the size limit is refused and
//! reported by file and line, never echoed — and written only when its topic is not already
//! pending, admitted or refused, so a second run proposes nothing new. Files are only read:
//! nothing is ever written under `.claude/` or to the imported files.

use std::path::Path;

use crate::actions::secrets;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::path::resolve;
use crate::js::text::{collapse_whitespace, trim, utf16_len};
use crate::messages;
use crate::output::Report;
use crate::store::confined;
use crate::store::lock::WriterLock;
use crate::store::paths::{Loose, read_loose_bytes};

use crate::actions::entries::candidate::{Kind, count};
use crate::actions::entries::propose::{NotWritten, Proposed, WhenPending, draft, write};

use crate::store::layout::CLAUDE_AGENT_MEMORY as CLAUDE_DIR;
/// The project instruction files whose memory section is imported.
pub(crate) const AGENTS_FILES: [&str; 2] = ["CLAUDE.md", "AGENTS.md"];
/// Longest imported title, in UTF-16 units.
const TITLE_CUT: usize = 100;

/// Propose candidates from an existing agent memory (never writes to it).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ImportArgs {
    /// What to import: claude (.claude/agent-memory/*/MEMORY.md), agents-md (the memory section
    /// of CLAUDE.md and AGENTS.md), or a Markdown file; default: claude, then agents-md.
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

/// What `import` did.
#[derive(Debug, Clone, Default)]
pub(crate) struct ImportReport {
    /// The files read, as shown.
    pub read: Vec<String>,
    pub proposed: Vec<Proposed>,
    pub duplicates: usize,
    pub refused: Vec<Refusal>,
}

/// Runs `import`.
///
/// # Errors
/// A `--from` file that is missing, unreadable or named like a secret store; a source the
/// reader refuses; confinement and I/O errors while writing candidates.
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
    for (shown, items) in sources {
        report.read.push(shown.clone());
        for item in items {
            let candidate = draft(
                ctx,
                item.kind,
                &item.title,
                &item.content,
                "",
                &[],
                &format!("import:{shown}"),
            );
            if let Err(e) = candidate.check(ctx) {
                report.refused.push(Refusal {
                    file: shown.clone(),
                    line: item.line,
                    reason: e.to_string(),
                });
                continue;
            }
            match write(ctx, &lock, candidate, WhenPending::Skip)? {
                Ok(proposed) => report.proposed.push(proposed),
                Err(NotWritten::Duplicate(_)) => report.duplicates += 1,
            }
        }
    }
    Ok(report)
}

/// `(shown path, items)` of every `.claude/agent-memory/*/MEMORY.md`, by agent name.
fn claude_sources(ctx: &Context) -> Result<Vec<(String, Vec<Item>)>> {
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
            out.push((rel, items(&text, None)));
        }
    }
    Ok(out)
}

/// The memory section of `CLAUDE.md` and `AGENTS.md`, when they have one.
fn agents_sources(ctx: &Context) -> Result<Vec<(String, Vec<Item>)>> {
    let mut out = Vec::new();
    for rel in AGENTS_FILES {
        if let Some(text) = read_project(ctx, rel)? {
            let found = items(&text, Some("memory"));
            if !found.is_empty() {
                out.push((rel.to_owned(), found));
            }
        }
    }
    Ok(out)
}

/// A Markdown file given by path, relative to the current directory.
fn file_source(ctx: &Context, file: &str) -> Result<(String, Vec<Item>)> {
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
    Ok((file.to_owned(), items(&text, None)))
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

/// The kind a heading names.
fn kind_of(heading: &str) -> Kind {
    let lower = heading.to_lowercase();
    if lower.contains("decision") || lower.contains("décision") {
        Kind::Decision
    } else if lower.contains("pattern") {
        Kind::Pattern
    } else {
        Kind::Lesson
    }
}

/// The top-level items of `text`; with `section`, only those under a heading whose text holds
/// that word (case-insensitive), up to the next heading of the same or a higher level.
#[must_use]
pub(crate) fn items(text: &str, section: Option<&str>) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    let mut open: Option<(usize, Vec<&str>)> = None;
    let mut fence: Option<&str> = None;
    let mut inside = section.is_none();
    let mut section_level = 0;
    let mut kind = Kind::Lesson;
    let close = |open: &mut Option<(usize, Vec<&str>)>, kind: Kind, out: &mut Vec<Item>| {
        if let Some((line, lines)) = open.take()
            && let Some(item) = make_item(kind, line, &lines)
        {
            out.push(item);
        }
    };
    for (index, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
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
                close(&mut open, kind, &mut out);
            }
            if let Some((_, lines)) = &mut open {
                lines.push(line);
            }
            continue;
        }
        if let Some((level, title)) = heading(line) {
            close(&mut open, kind, &mut out);
            if let Some(word) = section {
                if title.to_lowercase().contains(word) {
                    inside = true;
                    section_level = level;
                    kind = kind_of(title);
                    continue;
                } else if inside && level <= section_level {
                    inside = false;
                }
            }
            if inside {
                kind = kind_of(title);
            }
            continue;
        }
        if !inside {
            continue;
        }
        if let Some(rest) = item_start(line) {
            close(&mut open, kind, &mut out);
            open = Some((index + 1, vec![rest]));
        } else if let Some((_, lines)) = &mut open {
            if line.starts_with([' ', '\t']) || trim(line).is_empty() {
                lines.push(line);
            } else {
                close(&mut open, kind, &mut out);
            }
        }
    }
    close(&mut open, kind, &mut out);
    out
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
    let first = collapse_whitespace(lines[0]);
    // A line set in bold as a whole (`**Title**`) is a title without its emphasis.
    let first = ["**", "__"]
        .iter()
        .find_map(|m| first.strip_prefix(m)?.strip_suffix(m))
        .unwrap_or(&first);
    let title = cut_title(trim(first));
    (!title.is_empty()).then_some(Item {
        kind,
        title,
        content,
        line,
    })
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
                .with("refused", refused),
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
        if !self.proposed.is_empty() {
            out.push_str("  a person reviews them with: bmad-mem admit --list\n");
        }
        out
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
                (Kind::Lesson, "Flush the **bucket**", 17),
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

    #[test]
    fn long_titles_are_cut_at_a_word() {
        let title = cut_title(&"word ".repeat(40));
        assert!(utf16_len(&title) <= TITLE_CUT, "{title}");
        assert!(title.ends_with("word…"));
    }
}
