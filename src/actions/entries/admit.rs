//! `admit`: a person lists the pending candidates, admits one exactly as it was shown, or
//! refuses its topic for good.
//!
//! * `admit --list` — the pending candidates with their digests.
//! * `admit <id> --expect <sha256>` — the candidate file must still have that digest (what was
//!   shown is what enters). Its content is appended as one `###` section to
//!   `.agents/memory/<type>s.md`: the file is read, the new text built, the last section before
//!   the append checked to read exactly as before (its receipts would go stale otherwise), the
//!   new text written to a temporary file, the file read again (a person's editor may have
//!   saved meanwhile: then nothing is written), and the temporary file renamed over it. Then
//!   the candidate file is replaced by a one-line record of where it went.
//! * `admit --refuse <id> --reason <text>` — the topic is appended to `.bmad/memory/refused.md`
//!   (once) and the candidate replaced by a one-line record of the refusal.
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
use crate::store::entry::{Status, status_of};
use crate::store::layout::{NOTE_FILES, REGISTRY_CAP};
use crate::store::lock::WriterLock;
use crate::store::sections::{Section, sections};
use crate::store::temporaries;

use crate::actions::entries::candidate::{
    Candidate, Kind, Listed, REFUSED_FILE, Stored, candidate_path, candidates_dir, count,
    file_name, is_pending, is_valid_id, pending, read_note, read_stored, refused_topics, slug,
};
use crate::actions::entries::views;

/// List, admit or refuse candidate entries (a person's step; never automatic).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct AdmitArgs {
    /// The candidate to admit (with --expect).
    #[arg(value_name = "id", allow_hyphen_values = true)]
    pub id: Option<String>,
    /// List the pending candidates with their digests.
    #[arg(long, conflicts_with_all = ["id", "expect", "refuse", "finish", "reason", "actor"])]
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
        by: String,
        finished: bool,
    },
    /// A candidate's topic was refused.
    Refused {
        candidate: Candidate,
        topic: String,
        by: String,
        finished: bool,
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
    if let Some(id) = &args.refuse {
        let reason = collapse_whitespace(args.reason.as_deref().unwrap_or_default());
        if reason.is_empty() {
            return Err(Error::refused(messages::REASON_REQUIRED));
        }
        if let Some(finding) = secrets::find(&reason) {
            return Err(Error::refused(messages::secret_in("the reason", finding)));
        }
        check_id(id)?;
        return refuse(ctx, id, &reason, &by);
    }
    if let Some(id) = &args.finish {
        check_id(id)?;
        return finish(ctx, id, &by);
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

/// The marker an admitted entry carries on its `**Admitted-by:**` line.
fn marker(id: &str, sha256: &str) -> String {
    format!("(candidate {id}, sha256 {sha256})")
}

/// The section of `text` headed `title` that carries the marker of this candidate, if any.
fn admitted_section<'a>(text: &'a str, title: &str, mark: &str) -> Option<Section<'a>> {
    sections(text)
        .into_iter()
        .find(|s| s.heading == title && s.parts()[2].contains(mark))
}

/// The entry's section: heading, date, status (decisions and patterns), context, content,
/// evidence, and who admitted it last.
fn section_text(candidate: &Candidate, sha256: &str, by: &str, day: &str) -> String {
    let mut out = format!("### {}\n**Date:** {day}\n", candidate.title);
    if let Some(status) = candidate.kind.initial_status() {
        let _ = writeln!(out, "**Status:** {status}");
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
    let _ = writeln!(out, "**Context:** {context}");
    let _ = writeln!(out, "**{}:** {}", candidate.kind.field(), candidate.content);
    let _ = writeln!(out, "**Evidence:** {evidence}");
    let _ = writeln!(
        out,
        "**Admitted-by:** {by} {}",
        marker(&candidate.id, sha256)
    );
    out
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
    candidate.check()?;
    let rel = candidate.kind.entries_file();
    let old = read_note(ctx, &rel)?;
    let mark = marker(id, &stored.sha256);
    if let Some(text) = &old
        && admitted_section(text, &candidate.title, &mark).is_some()
    {
        return Err(Error::refused(messages::already_in_note(id, &rel)));
    }
    let topic = candidate.topic();
    if refused_topics(ctx)?.contains(&topic) {
        return Err(Error::refused(messages::admit_topic_refused(
            &topic,
            REFUSED_FILE,
            id,
        )));
    }
    if let Some(text) = &old
        && sections(text).iter().any(|s| s.heading == candidate.title)
    {
        return Err(Error::refused(messages::heading_taken(
            &candidate.title,
            &rel,
        )));
    }
    let day = ctx.now.iso.get(..10).unwrap_or(&ctx.now.iso);
    let section = section_text(&candidate, &stored.sha256, by, day);
    let old_text = old
        .clone()
        .unwrap_or_else(|| candidate.kind.file_title().to_owned());
    let new = appended(&old_text, &section, &candidate.title)
        .ok_or_else(|| Error::refused(messages::append_changes_last_section(&rel)))?;
    if new.len() as u64 > REGISTRY_CAP {
        return Err(Error::refused(messages::note_too_large(&rel)));
    }
    replace_note(ctx, &rel, old.as_deref(), &new)?;
    crash_point(ctx.crash_at.as_deref(), "admit-after-note");
    let record = format!(
        "admitted {} by {by}: {id} (sha256 {}) is the entry \"{}\" of {rel}\n",
        ctx.now.iso, stored.sha256, candidate.title
    );
    conclude(
        ctx, &lock, &dir, id, stored, candidate, rel, by, &record, false,
    )
}

/// The end of an admit, once the entry stands in `rel`: ledgers a decision, replaces the
/// candidate file by `record`, rebuilds the views. Shared by `admit` and `admit --finish`.
#[expect(
    clippy::too_many_arguments,
    reason = "the state of one admit, passed along once"
)]
fn conclude(
    ctx: &Context,
    lock: &WriterLock,
    dir: &Dir,
    id: &str,
    stored: Stored,
    candidate: Candidate,
    rel: String,
    by: &str,
    record: &str,
    finished: bool,
) -> Result<AdmitReport> {
    if candidate.kind == Kind::Decision {
        admitted_decision(ctx, lock, &candidate, &rel, by)?;
    }
    dir.replace(&file_name(id), record.as_bytes())?;
    views::rebuild(ctx, lock)?;
    Ok(AdmitReport::Admitted {
        candidate,
        sha256: stored.sha256,
        file: rel,
        by: by.to_owned(),
        finished,
    })
}

/// Records an admitted decision in the decision ledger (event `admit`), as it now stands in
/// `file`; nothing when the ledger has it already (a finished admit that a crash interrupted).
fn admitted_decision(
    ctx: &Context,
    lock: &WriterLock,
    candidate: &Candidate,
    file: &str,
    actor: &str,
) -> Result<()> {
    let ledger = Ledger::read(&ctx.root)?;
    if ledger.has(file, &candidate.title) {
        return Ok(());
    }
    let text = read_note(ctx, file)?.unwrap_or_default();
    let cut = sections(&text);
    let Some(section) = cut.iter().rev().find(|s| s.heading == candidate.title) else {
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
            let record = format!(
                "admitted by {by} (finished {}): {id} (sha256 {}) is the entry \"{}\" of {rel}\n",
                ctx.now.iso, stored.sha256, candidate.title
            );
            conclude(
                ctx, &lock, &dir, id, stored, candidate, rel, by, &record, true,
            )
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

impl Report for AdmitReport {
    fn to_json(&self) -> Value {
        match self {
            AdmitReport::List { candidates, .. } => {
                let list: Vec<Value> = candidates
                    .iter()
                    .map(|(c, sha256)| {
                        Value::Object(
                            Object::new()
                                .with("id", c.id.as_str())
                                .with("type", c.kind.as_str())
                                .with("title", c.title.as_str())
                                .with("source", c.source.as_str())
                                .with("created", c.created.as_str())
                                .with("sha256", sha256.as_str()),
                        )
                    })
                    .collect();
                Value::Object(
                    Object::new()
                        .with("count", count(list.len()))
                        .with("candidates", list)
                        .with(
                            "warnings",
                            self.warnings()
                                .into_iter()
                                .map(Value::from)
                                .collect::<Vec<_>>(),
                        ),
                )
            }
            AdmitReport::Admitted {
                candidate,
                sha256,
                file,
                by,
                finished,
            } => Value::Object(
                Object::new()
                    .with("admitted", candidate.id.as_str())
                    .with("type", candidate.kind.as_str())
                    .with("title", candidate.title.as_str())
                    .with("file", file.as_str())
                    .with("sha256", sha256.as_str())
                    .with("by", by.as_str())
                    .with("finished", *finished),
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
                        "  {}\n     {} \"{}\" from {}, {}\n     sha256 {sha256}",
                        c.id,
                        c.kind.as_str(),
                        crate::js::text::truncate(&c.title),
                        c.source,
                        age(&c.created, *now_ms)
                    );
                }
                let _ = writeln!(
                    out,
                    "  read one in {}; admit it with `bmad-mem admit <id> --expect <sha256>`",
                    candidate_path("<id>")
                );
                out
            }
            AdmitReport::Admitted {
                candidate,
                file,
                finished,
                ..
            } => format!(
                "mem admit: {} {} as \"{}\" in {file}\n",
                candidate.id,
                if *finished {
                    "was already admitted; recorded"
                } else {
                    "admitted"
                },
                candidate.title
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
        }
    }

    fn warnings(&self) -> Vec<String> {
        match self {
            AdmitReport::List { unreadable, .. } => unreadable
                .iter()
                .map(|id| messages::unreadable_candidate(&candidate_path(id)))
                .collect(),
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
