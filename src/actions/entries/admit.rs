//! `admit`: a person lists the pending candidates, admits one exactly as it was shown, or
//! refuses its topic for good.
//!
//! * `admit --list` — the pending candidates with their first lines and digests.
//! * `admit <id> --expect <sha256>` — the candidate file must still have that digest (what was
//!   shown is what enters), and passes the checks `propose` ran ([`Checks`]). Its content is
//!   appended as one `###` section to `.agents/memory/<type>s.md`, in the style of the file's
//!   entries ([`style`]): the file is read, the new text built, the last section before
//!   the append checked to read exactly as before (its receipts would go stale otherwise), the
//!   new text written to a temporary file, the file read again (a person's editor may have
//!   saved meanwhile: then nothing is written), and the temporary file renamed over it. Then
//!   the candidate file is replaced by a one-line record of where it went.
//! * `admit --refuse <id> --reason <text>` — the topic is appended to `.bmad/memory/refused.md`
//!   (once) and the candidate replaced by a one-line record of the refusal.
//! * `admit --drop <id>` — the candidate is replaced by a one-line record that it was
//!   withdrawn; its topic stays open.
//! * `admit --finish <id>` — completes an admission or refusal that stopped between its two
//!   writes (a crash): the entry's `**Admitted-by:**` line names the candidate and its digest,
//!   so the admitted section is recognised, and the record is written. `doctor` names this
//!   command when it finds such a candidate.
//!
//! A crash at any point leaves either the candidate pending and the note file as it was (a dead
//! writer's temporary file at most, which the next writer there removes), or the entry present
//! with the candidate still pending, which `doctor` reports and `admit --finish` completes.

use std::ffi::OsStr;
use std::fmt::Write as _;

use crate::actions::decisions::ledger::{self, Ledger, Record};
use crate::actions::secrets;
use crate::context::Context;
use crate::context::crash_point;
use crate::error::{Error, Result};
use crate::js::date;
use crate::js::json::{Object, Value};
use crate::js::text::{collapse_whitespace, trim};
use crate::messages;
use crate::output::Report;
use crate::store::confined::{self, Dir};
use crate::store::entry::{Status, status_of, undated};
use crate::store::layout::{NOTE_FILES, REGISTRY_CAP};
use crate::store::lock::WriterLock;
use crate::store::sections::{Section, sections};
use crate::store::temporaries;

use crate::actions::entries::candidate::{
    Candidate, Kind, Listed, REFUSED_FILE, Stored, candidate_path, candidates_dir, count,
    file_name, is_pending, is_valid_id, marker, pending, read_note, read_stored, refused_topics,
    slug,
};
use crate::actions::entries::checks::{Checks, Conflict};
use crate::actions::entries::style::{self, Style};
use crate::actions::entries::views;

/// List, admit or refuse candidate entries (a person's step; never automatic).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct AdmitArgs {
    /// The candidate to admit (with --expect).
    #[arg(value_name = "id", allow_hyphen_values = true)]
    pub id: Option<String>,
    /// List the pending candidates with their digests and first lines.
    #[arg(long, conflicts_with_all = ["id", "expect", "refuse", "finish", "reason", "actor", "drop"])]
    pub list: bool,
    /// The sha256 of the candidate as it was shown (from --list or propose).
    #[arg(long, value_name = "sha256", allow_hyphen_values = true)]
    pub expect: Option<String>,
    /// Refuse this candidate's topic for good (with --reason).
    #[arg(long, value_name = "id", allow_hyphen_values = true, conflicts_with_all = ["id", "expect", "finish"])]
    pub refuse: Option<String>,
    /// Why the topic is refused.
    #[arg(long, value_name = "text", allow_hyphen_values = true)]
    pub reason: Option<String>,
    /// Complete an admission or refusal that stopped before its record was written.
    #[arg(long, value_name = "id", allow_hyphen_values = true, conflicts_with_all = ["id", "expect", "reason"])]
    pub finish: Option<String>,
    /// Withdraw this pending candidate without refusing its topic (it may be proposed again).
    #[arg(long, value_name = "id", allow_hyphen_values = true, conflicts_with_all = ["id", "expect", "refuse", "finish", "reason"])]
    pub drop: Option<String>,
    /// Who admits or refuses (default: git's user.name in the project, else USER, else
    /// USERNAME, else unknown).
    #[arg(
        long,
        visible_alias = "by",
        value_name = "name",
        allow_hyphen_values = true
    )]
    pub actor: Option<String>,
}

/// What `admit` did.
#[derive(Debug, Clone)]
pub(crate) enum AdmitReport {
    /// The pending candidates (with their digests), and the pending files that do not parse.
    List {
        candidates: Vec<Listed>,
        unreadable: Vec<String>,
        now_ms: f64,
    },
    /// A candidate became an entry.
    Admitted {
        candidate: Candidate,
        sha256: String,
        file: String,
        /// The entry's heading.
        heading: String,
        by: String,
        finished: bool,
        /// The near matches found before it was written.
        warnings: Vec<String>,
    },
    /// A candidate's topic was refused.
    Refused {
        candidate: Candidate,
        topic: String,
        by: String,
        finished: bool,
    },
    /// A candidate was withdrawn, its topic left open.
    Dropped {
        candidate: Candidate,
        sha256: String,
        by: String,
    },
}

/// Runs `admit`.
///
/// # Errors
/// Usage errors; an unknown or decided candidate; a digest that differs; a refused topic; a
/// title already heading a section of the note file; a note file changed while being written;
/// confinement and I/O errors. Nothing is written on any of them.
pub(crate) fn run(args: &AdmitArgs, ctx: &Context) -> Result<AdmitReport> {
    if args.list {
        let (candidates, unreadable) = pending(ctx)?;
        return Ok(AdmitReport::List {
            candidates,
            unreadable,
            now_ms: ctx.now.ms,
        });
    }
    let by = ledger::actor(args.actor.as_deref(), ctx)?;
    secrets::refuse(ctx, &[("--actor", &by)])?;
    if let Some(id) = &args.refuse {
        let reason = collapse_whitespace(args.reason.as_deref().unwrap_or_default());
        if reason.is_empty() {
            return Err(Error::refused(messages::REASON_REQUIRED));
        }
        secrets::refuse(ctx, &[("the reason", &reason)])?;
        check_id(id)?;
        return refuse(ctx, id, &reason, &by);
    }
    if let Some(id) = &args.finish {
        check_id(id)?;
        return finish(ctx, id, &by);
    }
    if let Some(id) = &args.drop {
        check_id(id)?;
        return drop_candidate(ctx, id, &by);
    }
    if args.reason.is_some() {
        return Err(Error::refused(messages::REASON_WITHOUT_REFUSE));
    }
    let Some(id) = &args.id else {
        return Err(Error::refused(messages::ADMIT_WHAT));
    };
    check_id(id)?;
    let Some(expect) = args.expect.as_deref().map(trim).filter(|e| !e.is_empty()) else {
        return Err(Error::refused(messages::EXPECT_REQUIRED));
    };
    admit(ctx, id, expect, &by)
}

fn check_id(id: &str) -> Result<()> {
    if is_valid_id(id) {
        Ok(())
    } else {
        Err(Error::refused(messages::not_a_candidate_id(id)))
    }
}

/// The candidate `id`, pending: its folder, its file and its parsed content.
fn read_pending(ctx: &Context, id: &str) -> Result<(Dir, Stored, Candidate)> {
    let missing = || Error::refused(messages::no_candidate(id));
    let dir = candidates_dir(ctx, false)?.ok_or_else(missing)?;
    let stored = read_stored(&dir, id)?.ok_or_else(missing)?;
    let Some(text) = stored.text() else {
        return Err(Candidate::parse(id, "").unwrap_err());
    };
    if !is_pending(text) {
        return Err(Error::refused(messages::no_longer_pending(id, trim(text))));
    }
    let candidate = Candidate::parse(id, text)?;
    Ok((dir, stored, candidate))
}

/// The section of `text` that carries the marker of this candidate and is headed by its title
/// (with or without the day `admit` puts in front), if any.
fn admitted_section<'a>(text: &'a str, title: &str, mark: &str) -> Option<Section<'a>> {
    sections(text).into_iter().find(|s| {
        (s.heading == title || undated(s.heading) == title) && s.parts()[2].contains(mark)
    })
}

/// `old` with `section` appended so that every section of `old` — the last one included, whose
/// body runs to the end of the file — reads exactly as before, and the new text has exactly one
/// section more, headed `title`. `None` when no separator achieves that.
#[must_use]
pub(crate) fn appended(old: &str, section: &str, title: &str) -> Option<String> {
    let before = sections(old);
    let separators: &[&str] = if old.is_empty() {
        &[""]
    } else {
        &["\n", "\n\n"]
    };
    separators.iter().find_map(|sep| {
        let new = format!("{old}{sep}{section}");
        let after = sections(&new);
        let same = after.len() == before.len() + 1
            && before
                .iter()
                .zip(&after)
                .all(|(a, b)| a.full_text() == b.full_text())
            && after.last().is_some_and(|s| s.heading == title);
        same.then_some(new)
    })
}

fn admit(ctx: &Context, id: &str, expect: &str, by: &str) -> Result<AdmitReport> {
    let lock = WriterLock::acquire(&ctx.root)?;
    let (dir, stored, candidate) = read_pending(ctx, id)?;
    views::expected(ctx)?;
    if stored.sha256 != expect.to_ascii_lowercase() {
        return Err(Error::refused(messages::candidate_digest_differs(
            id,
            &stored.sha256,
            expect,
        )));
    }
    candidate.check(ctx)?;
    let rel = candidate.kind.entries_file();
    let old = read_note(ctx, &rel)?;
    let mark = marker(id, &stored.sha256);
    if let Some(text) = &old
        && admitted_section(text, &candidate.title, &mark).is_some()
    {
        return Err(Error::refused(messages::already_in_note(id, &rel)));
    }
    let day = ctx.now.iso.get(..10).unwrap_or(&ctx.now.iso);
    let warnings = match Checks::read(ctx)?.check(ctx, &candidate, (&mark, by, day))? {
        Ok(warnings) => warnings,
        Err(Conflict::Refused { topic }) => {
            return Err(Error::refused(messages::admit_topic_refused(
                &topic,
                REFUSED_FILE,
                id,
            )));
        }
        Err(Conflict::Entry { heading, file }) if undated(&heading) == candidate.title => {
            return Err(Error::refused(messages::heading_taken(&heading, &file)));
        }
        Err(conflict) => return Err(Error::refused(conflict.message(&candidate))),
    };
    let style = old.as_deref().map_or(Style::Template, style::style_of);
    let heading = style::heading(candidate.kind, &candidate.title, day, style);
    let section = style::section_text(&candidate, &mark, by, day, style);
    let old_text = old
        .clone()
        .unwrap_or_else(|| candidate.kind.file_title().to_owned());
    let new = appended(&old_text, &section, &heading)
        .ok_or_else(|| Error::refused(messages::append_changes_last_section(&rel)))?;
    if new.len() as u64 > REGISTRY_CAP {
        return Err(Error::refused(messages::note_too_large(&rel)));
    }
    replace_note(ctx, &rel, old.as_deref(), &new)?;
    crash_point(ctx.crash_at.as_deref(), "admit-after-note");
    let record = format!(
        "admitted {} by {by}: {id} (sha256 {}) is the entry \"{heading}\" of {rel}\n",
        ctx.now.iso, stored.sha256
    );
    let admitted = Admitted {
        stored,
        candidate,
        rel,
        heading,
        by,
        finished: false,
        warnings,
    };
    conclude(ctx, &lock, &dir, admitted, &record)
}

/// One admission, as it stands once its entry is written.
struct Admitted<'a> {
    stored: Stored,
    candidate: Candidate,
    rel: String,
    heading: String,
    by: &'a str,
    finished: bool,
    warnings: Vec<String>,
}

/// The end of an admit, once the entry stands in its file: ledgers a decision, replaces the
/// candidate file by `record`, rebuilds the views. Shared by `admit` and `admit --finish`.
fn conclude(
    ctx: &Context,
    lock: &WriterLock,
    dir: &Dir,
    admitted: Admitted<'_>,
    record: &str,
) -> Result<AdmitReport> {
    let Admitted {
        stored,
        candidate,
        rel,
        heading,
        by,
        finished,
        warnings,
    } = admitted;
    if candidate.kind == Kind::Decision {
        admitted_decision(ctx, lock, &heading, &rel, by)?;
    }
    dir.replace(&file_name(&candidate.id), record.as_bytes())?;
    views::rebuild(ctx, lock)?;
    Ok(AdmitReport::Admitted {
        candidate,
        sha256: stored.sha256,
        file: rel,
        heading,
        by: by.to_owned(),
        finished,
        warnings,
    })
}

/// Records an admitted decision in the decision ledger (event `admit`), as it now stands in
/// `file` under `heading`; nothing when the ledger has it already (a finished admit that a crash interrupted).
fn admitted_decision(
    ctx: &Context,
    lock: &WriterLock,
    heading: &str,
    file: &str,
    actor: &str,
) -> Result<()> {
    let ledger = Ledger::read(&ctx.root)?;
    if ledger.has(file, heading) {
        return Ok(());
    }
    let text = read_note(ctx, file)?.unwrap_or_default();
    let cut = sections(&text);
    let Some(section) = cut.iter().rev().find(|s| s.heading == heading) else {
        return Ok(());
    };
    let status = status_of(section).unwrap_or(Status::Active);
    let record = Record::new(
        &ctx.now.iso,
        "admit",
        file,
        section.heading,
        status.as_str(),
        ledger::digest(section),
        None,
        actor,
    );
    ledger::record(&ctx.root, &[record], lock)?;
    Ok(())
}

/// Replaces the note file `rel` (created with its folder when missing) with `new`, provided it
/// still holds `old` just before the rename.
fn replace_note(ctx: &Context, rel: &str, old: Option<&str>, new: &str) -> Result<()> {
    let target = confined::locate(&ctx.root, rel, true)?;
    let dir = target.require_dir("cannot write")?;
    let name: &OsStr = target.name();
    temporaries::sweep_temporaries(dir, |stem| {
        NOTE_FILES.contains(&stem) || stem == "refused.md"
    });
    // Held while the temporary file exists, so that a session command's sweep spares it.
    let _held = temporaries::hold_for_temporaries(dir);
    let tmp = dir.write_temp(name, new.as_bytes())?;
    let now = match dir.read(name) {
        Ok(read) => read.map(|(bytes, _)| bytes),
        Err(e) => {
            let _ = dir.remove(&tmp);
            return Err(e);
        }
    };
    if now.as_deref() != old.map(str::as_bytes) {
        let _ = dir.remove(&tmp);
        return Err(Error::refused(messages::note_changed(rel)));
    }
    crash_point(ctx.crash_at.as_deref(), "note-before-rename");
    dir.rename(&tmp, name).map_err(|e| {
        let _ = dir.remove(&tmp);
        Error::io("cannot write", target.path(), e)
    })?;
    dir.sync()
        .map_err(|e| Error::io("cannot sync", dir.path(), e))
}

fn refuse(ctx: &Context, id: &str, reason: &str, by: &str) -> Result<AdmitReport> {
    let lock = WriterLock::acquire(&ctx.root)?;
    let (dir, stored, candidate) = read_pending(ctx, id)?;
    views::expected(ctx)?;
    let topic = candidate.topic();
    if !refused_topics(ctx)?.contains(&topic) {
        let old = read_note(ctx, REFUSED_FILE)?;
        let old_text = old.clone().unwrap_or_else(|| {
            "# Refused topics\n\nTopics that `bmad-mem propose` and `import` refuse for good, one `###` heading each \
             (a heading added by hand counts too). Written by `bmad-mem admit --refuse`.\n"
                .to_owned()
        });
        let day = ctx.now.iso.get(..10).unwrap_or(&ctx.now.iso);
        let section = format!(
            "### {topic}\n**Type:** {}\n**Title:** {}\n**Reason:** {reason}\n**Refused-by:** {by}, {day}\n**Candidate:** {}\n",
            candidate.kind.as_str(),
            candidate.title,
            marker(id, &stored.sha256)
        );
        let new = appended(&old_text, &section, &topic)
            .ok_or_else(|| Error::refused(messages::append_changes_last_section(REFUSED_FILE)))?;
        if new.len() as u64 > REGISTRY_CAP {
            return Err(Error::refused(messages::refused_file_too_large(
                REFUSED_FILE,
            )));
        }
        replace_note(ctx, REFUSED_FILE, old.as_deref(), &new)?;
    }
    crash_point(ctx.crash_at.as_deref(), "refuse-after-note");
    record_refusal(ctx, &dir, &stored, &candidate, by)?;
    views::rebuild(ctx, &lock)?;
    Ok(AdmitReport::Refused {
        topic,
        candidate,
        by: by.to_owned(),
        finished: false,
    })
}

fn record_refusal(
    ctx: &Context,
    dir: &Dir,
    stored: &Stored,
    candidate: &Candidate,
    by: &str,
) -> Result<()> {
    let record = format!(
        "refused {} by {by}: {} (sha256 {}), topic `{}` in {REFUSED_FILE}\n",
        ctx.now.iso,
        candidate.id,
        stored.sha256,
        candidate.topic()
    );
    dir.replace(&file_name(&candidate.id), record.as_bytes())
}

/// A pending candidate whose decision was written but not recorded: `Some(true)` when it is
/// already an entry (its marker is in the note file), `Some(false)` when its topic is refused,
/// `None` when neither.
///
/// # Errors
/// As the confined reader.
pub(crate) fn unfinished(
    ctx: &Context,
    candidate: &Candidate,
    sha256: &str,
) -> Result<Option<bool>> {
    let rel = candidate.kind.entries_file();
    if let Some(text) = read_note(ctx, &rel)?
        && admitted_section(&text, &candidate.title, &marker(&candidate.id, sha256)).is_some()
    {
        return Ok(Some(true));
    }
    Ok(refused_topics(ctx)?
        .contains(&slug(&candidate.title))
        .then_some(false))
}

fn finish(ctx: &Context, id: &str, by: &str) -> Result<AdmitReport> {
    let lock = WriterLock::acquire(&ctx.root)?;
    let (dir, stored, candidate) = read_pending(ctx, id)?;
    views::expected(ctx)?;
    match unfinished(ctx, &candidate, &stored.sha256)? {
        Some(true) => {
            let rel = candidate.kind.entries_file();
            let text = read_note(ctx, &rel)?.unwrap_or_default();
            let heading = admitted_section(&text, &candidate.title, &marker(id, &stored.sha256))
                .map_or_else(|| candidate.title.clone(), |s| s.heading.to_owned());
            let record = format!(
                "admitted by {by} (finished {}): {id} (sha256 {}) is the entry \"{heading}\" of {rel}\n",
                ctx.now.iso, stored.sha256
            );
            let admitted = Admitted {
                stored,
                candidate,
                rel,
                heading,
                by,
                finished: true,
                warnings: Vec::new(),
            };
            conclude(ctx, &lock, &dir, admitted, &record)
        }
        Some(false) => {
            record_refusal(ctx, &dir, &stored, &candidate, by)?;
            views::rebuild(ctx, &lock)?;
            Ok(AdmitReport::Refused {
                topic: candidate.topic(),
                candidate,
                by: by.to_owned(),
                finished: true,
            })
        }
        None => Err(Error::refused(messages::nothing_to_finish(id))),
    }
}

/// `admit --drop`: the pending candidate is replaced by a one-line record that it was withdrawn;
/// its topic is not refused, so it may be proposed again.
fn drop_candidate(ctx: &Context, id: &str, by: &str) -> Result<AdmitReport> {
    let lock = WriterLock::acquire(&ctx.root)?;
    let (dir, stored, candidate) = read_pending(ctx, id)?;
    views::expected(ctx)?;
    let record = format!(
        "dropped {} by {by}: {id} (sha256 {}), topic `{}` left open\n",
        ctx.now.iso,
        stored.sha256,
        candidate.topic()
    );
    dir.replace(&file_name(id), record.as_bytes())?;
    views::rebuild(ctx, &lock)?;
    Ok(AdmitReport::Dropped {
        candidate,
        sha256: stored.sha256,
        by: by.to_owned(),
    })
}

/// How long ago `created` was, in the largest whole unit.
fn age(created: &str, now_ms: f64) -> String {
    let Some(then) = date::parse_timestamp(created) else {
        return "age unknown".to_owned();
    };
    let minutes = ((now_ms - then) / 60_000.0).max(0.0).floor();
    let (n, unit) = if minutes >= 1440.0 {
        ((minutes / 1440.0).floor(), "d")
    } else if minutes >= 60.0 {
        ((minutes / 60.0).floor(), "h")
    } else {
        (minutes, "m")
    };
    format!("{n}{unit} ago")
}

/// How many lines of a candidate's content `admit --list` shows.
const EXCERPT_LINES: usize = 3;

/// The first [`EXCERPT_LINES`] non-blank lines of a candidate's content, each cut as a title is
/// shown, and how many lines the content has beyond them.
fn excerpt(content: &str) -> (Vec<String>, usize) {
    let lines: Vec<&str> = content.lines().filter(|l| !trim(l).is_empty()).collect();
    let shown = lines
        .iter()
        .take(EXCERPT_LINES)
        .map(|l| crate::js::text::truncate(l))
        .collect();
    (shown, lines.len().saturating_sub(EXCERPT_LINES))
}

fn warnings_value(warnings: &[String]) -> Value {
    Value::from(warnings.iter().map(Value::from).collect::<Vec<_>>())
}

impl Report for AdmitReport {
    fn to_json(&self) -> Value {
        match self {
            AdmitReport::List { candidates, .. } => {
                let list: Vec<Value> = candidates
                    .iter()
                    .map(|(c, sha256)| {
                        let (lines, more) = excerpt(&c.content);
                        Value::Object(
                            Object::new()
                                .with("id", c.id.as_str())
                                .with("type", c.kind.as_str())
                                .with("title", c.title.as_str())
                                .with("source", c.source.as_str())
                                .with("created", c.created.as_str())
                                .with("sha256", sha256.as_str())
                                .with("excerpt", warnings_value(&lines))
                                .with("moreLines", count(more)),
                        )
                    })
                    .collect();
                Value::Object(
                    Object::new()
                        .with("count", count(list.len()))
                        .with("candidates", list)
                        .with("warnings", warnings_value(&self.warnings())),
                )
            }
            AdmitReport::Admitted {
                candidate,
                sha256,
                file,
                heading,
                by,
                finished,
                warnings,
            } => Value::Object(
                Object::new()
                    .with("admitted", candidate.id.as_str())
                    .with("type", candidate.kind.as_str())
                    .with("title", candidate.title.as_str())
                    .with("heading", heading.as_str())
                    .with("file", file.as_str())
                    .with("sha256", sha256.as_str())
                    .with("by", by.as_str())
                    .with("finished", *finished)
                    .with("warnings", warnings_value(warnings)),
            ),
            AdmitReport::Refused {
                candidate,
                topic,
                by,
                finished,
            } => Value::Object(
                Object::new()
                    .with("refused", candidate.id.as_str())
                    .with("topic", topic.as_str())
                    .with("file", REFUSED_FILE)
                    .with("by", by.as_str())
                    .with("finished", *finished),
            ),
            AdmitReport::Dropped {
                candidate,
                sha256,
                by,
            } => Value::Object(
                Object::new()
                    .with("dropped", candidate.id.as_str())
                    .with("topic", candidate.topic())
                    .with("file", candidate_path(&candidate.id))
                    .with("sha256", sha256.as_str())
                    .with("by", by.as_str()),
            ),
        }
    }

    fn render_human(&self) -> String {
        match self {
            AdmitReport::List {
                candidates, now_ms, ..
            } => {
                if candidates.is_empty() {
                    return "mem admit: no pending candidate\n".to_owned();
                }
                let mut out = format!("mem admit: {} pending candidate(s)\n", candidates.len());
                for (c, sha256) in candidates {
                    let _ = writeln!(
                        out,
                        "  {}\n     {} \"{}\" from {}, {}",
                        c.id,
                        c.kind.as_str(),
                        crate::js::text::truncate(&c.title),
                        c.source,
                        age(&c.created, *now_ms)
                    );
                    let (lines, more) = excerpt(&c.content);
                    for line in lines {
                        let _ = writeln!(out, "     | {line}");
                    }
                    if more > 0 {
                        let _ = writeln!(out, "     | … {more} more line(s)");
                    }
                    let _ = writeln!(out, "     sha256 {sha256}");
                }
                let _ = writeln!(
                    out,
                    "  read one in {}; admit it with `bmad-mem admit <id> --expect <sha256>`, withdraw it with `bmad-mem admit --drop <id>`",
                    candidate_path("<id>")
                );
                out
            }
            AdmitReport::Admitted {
                candidate,
                file,
                heading,
                finished,
                ..
            } => format!(
                "mem admit: {} {} as \"{heading}\" in {file}\n",
                candidate.id,
                if *finished {
                    "was already admitted; recorded"
                } else {
                    "admitted"
                },
            ),
            AdmitReport::Refused {
                candidate,
                topic,
                finished,
                ..
            } => format!(
                "mem admit: {} {}; topic `{topic}` is never proposed again ({REFUSED_FILE})\n",
                candidate.id,
                if *finished {
                    "was already refused; recorded"
                } else {
                    "refused"
                },
            ),
            AdmitReport::Dropped { candidate, .. } => format!(
                "mem admit: {} dropped; topic `{}` is not refused and may be proposed again\n",
                candidate.id,
                candidate.topic()
            ),
        }
    }

    fn warnings(&self) -> Vec<String> {
        match self {
            AdmitReport::List { unreadable, .. } => unreadable
                .iter()
                .map(|id| messages::unreadable_candidate(&candidate_path(id)))
                .collect(),
            AdmitReport::Admitted { warnings, .. } => warnings.clone(),
            _ => Vec::new(),
        }
    }

    fn written(&self) -> Option<String> {
        match self {
            AdmitReport::List { .. } => None,
            AdmitReport::Admitted { candidate, .. } => {
                Some(format!("candidate {} admitted", candidate.id))
            }
            AdmitReport::Refused { candidate, .. } => {
                Some(format!("candidate {} refused", candidate.id))
            }
            AdmitReport::Dropped { candidate, .. } => {
                Some(format!("candidate {} dropped", candidate.id))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn keeps_every_section(old: &str) {
        let new = appended(old, "### New\nbody\n", "New").unwrap();
        assert!(new.starts_with(old));
        let (before, after) = (sections(old), sections(&new));
        assert_eq!(after.len(), before.len() + 1, "{old:?}");
        for (a, b) in before.iter().zip(&after) {
            assert_eq!(a.full_text(), b.full_text(), "{old:?}");
        }
    }

    #[test]
    fn appending_leaves_the_last_section_as_it_was() {
        for old in [
            "",
            "# Lessons\n",
            "### A\nbody\n",
            "### A\nbody",
            "### A\nbody\n\n",
            "### A",
            "### A\n",
            "### A\r\nbody\r\n",
            "### A\nbody\r",
            "intro\n### A\n### B\nx\n\n\n",
        ] {
            keeps_every_section(old);
        }
    }
}
