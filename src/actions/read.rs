//! `read` (the MCP tool `memory_read`): one memory entry, whole, by the reference recall gives
//! for it — a note section by its file and heading, or a journal event by its id.
//!
//! * A note file is one recall searches: `decisions.md`, `lessons.md` or `patterns.md` of
//!   `.bmad/memory/` and `.agents/memory/`, and of the portfolio folder's `memory/` when one is
//!   given (the MCP server gives only the project's linked brain). It is named by its path as
//!   recall shows it (`sourceFile`, `.agents/memory/lessons.md`) or by its bare name, which
//!   looks in every folder in recall's order. The heading is recall's `ref`: the first section
//!   whose heading is the one given (both trimmed) is the answer; when none is, the first whose
//!   heading is the same ignoring case.
//! * An event is the first of the live journal, then of the archives newest first, whose `id`
//!   — or, for an event without one, whose `ts` — reads as the id given (recall's `ref`).
//!
//! Files are read as recall reads them (the loose reader): a missing one is skipped, one the
//! reader passes over is named in a warning. Read-only.

use crate::actions::recall::score::{event_ref, note_files};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::text::trim;
use crate::messages;
use crate::output::Report;
use crate::store::archived::{Store, archive_names};
use crate::store::journal;
use crate::store::layout::{ARCHIVE_DIR, JOURNAL, NOTE_FILES};
use crate::store::paths::read_loose;
use crate::store::sections::sections;

/// What to read: `file` and `heading`, or `id`.
#[derive(Debug, Clone, Default)]
pub struct ReadArgs {
    /// A note file: its path as recall gives it, or its bare name.
    pub file: Option<String>,
    /// The section's heading.
    pub heading: Option<String>,
    /// A journal event's id (its `ts` for an event without one).
    pub id: Option<String>,
    /// A portfolio folder whose `memory/` notes may be read too.
    pub portfolio: Option<String>,
}

/// The entry found.
#[derive(Debug)]
pub(crate) enum Found {
    Note {
        /// The note file, relative to the project (as recall's `sourceFile`).
        file: String,
        heading: String,
        /// The section, heading line included, trimmed (as recall's `text`).
        text: String,
    },
    Event {
        /// `journal.ndjson`, or the archive file's name.
        source: String,
        /// The event's id when truthy, else its `ts` (as recall's `ref`).
        reference: Value,
        event: Object,
    },
}

/// One entry, whole.
#[derive(Debug)]
pub(crate) struct ReadReport {
    pub found: Found,
    /// One line for each file the reader passed over.
    pub warnings: Vec<String>,
}

/// Reads the entry `args` names.
///
/// # Errors
/// Neither or both of the two forms, a file that is no note file, no such section or event, a
/// folder where a file should be.
pub(crate) fn run(args: &ReadArgs, ctx: &Context) -> Result<ReadReport> {
    let given = |value: &Option<String>| {
        value
            .as_deref()
            .map(trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let mut warnings = Vec::new();
    let found = match (given(&args.file), given(&args.heading), given(&args.id)) {
        (Some(file), Some(heading), None) => read_note(
            ctx,
            &file,
            &heading,
            args.portfolio.as_deref(),
            &mut warnings,
        )?,
        (None, None, Some(id)) => read_event(ctx, &id, &mut warnings)?,
        _ => return Err(Error::refused(messages::READ_WHAT)),
    };
    Ok(ReadReport { found, warnings })
}

fn read_note(
    ctx: &Context,
    file: &str,
    heading: &str,
    portfolio: Option<&str>,
    warnings: &mut Vec<String>,
) -> Result<Found> {
    let file = file.strip_prefix("./").unwrap_or(file);
    let files: Vec<_> = note_files(ctx, portfolio)
        .into_iter()
        .filter(|f| f.source_file == file || f.source == file)
        .collect();
    if files.is_empty() {
        return Err(Error::refused(messages::read_not_a_note_file(
            file,
            &NOTE_FILES,
        )));
    }
    let mut texts = Vec::new();
    for note in &files {
        if let Some(text) =
            read_loose(&note.path, &note.within)?.or_warn(&note.source_file, warnings)
        {
            texts.push((note.source_file.clone(), text));
        }
    }
    let is_same = |a: &str| a == heading;
    let is_alike = |a: &str| a.to_lowercase() == heading.to_lowercase();
    for matches in [&is_same as &dyn Fn(&str) -> bool, &is_alike] {
        for (source_file, text) in &texts {
            if let Some(section) = sections(text).into_iter().find(|s| matches(s.heading)) {
                return Ok(Found::Note {
                    file: source_file.clone(),
                    heading: section.heading.to_owned(),
                    text: section.trimmed_text(),
                });
            }
        }
    }
    let names: Vec<&str> = files.iter().map(|f| f.source_file.as_str()).collect();
    Err(Error::refused(messages::read_no_section(heading, &names)))
}

fn read_event(ctx: &Context, id: &str, warnings: &mut Vec<String>) -> Result<Found> {
    let archive = ctx.root.join(ARCHIVE_DIR);
    let names = archive_names(&archive, Store::Journal)
        .map_err(|e| Error::io("cannot list", &archive, e))?;
    // (source, the file as a warning names it, its path)
    let journal_name = JOURNAL.rsplit('/').next().unwrap_or(JOURNAL);
    let mut files = vec![(
        journal_name.to_owned(),
        JOURNAL.to_owned(),
        ctx.root.join(JOURNAL),
    )];
    files.extend(names.into_iter().rev().map(|name| {
        let shown = format!("{ARCHIVE_DIR}/{name}");
        let path = archive.join(&name);
        (name, shown, path)
    }));
    for (source, shown, path) in files {
        let Some(text) = read_loose(&path, &ctx.root)?.or_warn(&shown, warnings) else {
            continue;
        };
        if let Some(event) = journal::events(&text).find(|e| event_ref(e).text() == id) {
            return Ok(Found::Event {
                source,
                reference: event_ref(&event),
                event,
            });
        }
    }
    Err(Error::refused(messages::read_no_event(id)))
}

impl Report for ReadReport {
    fn to_json(&self) -> Value {
        let mut object = match &self.found {
            Found::Note {
                file,
                heading,
                text,
            } => Object::new()
                .with("kind", "note")
                .with("file", file.as_str())
                .with("heading", heading.as_str())
                .with("text", text.as_str()),
            Found::Event {
                source,
                reference,
                event,
            } => Object::new()
                .with("kind", "event")
                .with("source", source.as_str())
                .with("ref", reference.clone())
                .with("event", event.clone()),
        };
        if !self.warnings.is_empty() {
            object = object.with(
                "warnings",
                self.warnings.iter().map(Value::from).collect::<Vec<_>>(),
            );
        }
        Value::Object(object)
    }

    fn render_human(&self) -> String {
        match &self.found {
            Found::Note { file, text, .. } => format!("{file}\n\n### {text}\n"),
            Found::Event { source, event, .. } => {
                format!("{source}\n\n{}\n", Value::Object(event.clone()).pretty())
            }
        }
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::Now;

    fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, Context) {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let now = Now::parse("2026-10-18T09:30:00.000Z").unwrap();
        let ctx = Context::new(dir.path(), None, now).unwrap();
        (dir, ctx)
    }

    fn args(file: Option<&str>, heading: Option<&str>, id: Option<&str>) -> ReadArgs {
        ReadArgs {
            file: file.map(str::to_owned),
            heading: heading.map(str::to_owned),
            id: id.map(str::to_owned),
            portfolio: None,
        }
    }

    #[test]
    fn a_section_is_found_exactly_first_then_ignoring_case() {
        let (_dir, ctx) = project(&[
            (
                ".bmad/memory/lessons.md",
                "### Cache\nold\n### cache\nlower\n",
            ),
            (".agents/memory/lessons.md", "### CACHE\nupper\n"),
        ]);
        let text = |heading: &str| match run(&args(Some("lessons.md"), Some(heading), None), &ctx)
            .map(|r| r.found)
        {
            Ok(Found::Note { file, text, .. }) => format!("{file}: {text}"),
            other => panic!("{other:?}"),
        };
        assert_eq!(text("cache"), ".bmad/memory/lessons.md: cache\nlower");
        assert_eq!(text(" CACHE "), ".agents/memory/lessons.md: CACHE\nupper");
        assert_eq!(text("Cache"), ".bmad/memory/lessons.md: Cache\nold");
        assert_eq!(text("cAcHe"), ".bmad/memory/lessons.md: Cache\nold");
    }

    #[test]
    fn an_event_is_found_by_id_or_by_ts() {
        let (_dir, ctx) = project(&[(
            JOURNAL,
            "{\"ts\":\"t1\",\"id\":\"a1\"}\nnot json\n{\"ts\":\"t2\",\"id\":\"\"}\n",
        )]);
        for (id, ts) in [("a1", "t1"), ("t2", "t2")] {
            match run(&args(None, None, Some(id)), &ctx).map(|r| r.found) {
                Ok(Found::Event { event, .. }) => {
                    assert_eq!(event.get("ts").map(Value::text).as_deref(), Some(ts));
                }
                other => panic!("{other:?}"),
            }
        }
        assert!(run(&args(None, None, Some("t1")), &ctx).is_err());
        assert!(run(&args(None, None, Some(" ")), &ctx).is_err());
    }
}
