//! `status`: the health report of the project memory and its brain (read-only).
//!
//! Per note file — those of `.agents/memory/`, then those of `.bmad/memory/` that exist, the
//! two folders `recall` and `brief` read — whether it exists, its number of `###` entries
//! (docs §3.7 sections), for `decisions.md` how many of them are active — may be in force, as
//! `brief` shows them: in force, or with no status or one [`crate::store::entry`] cannot place —
//! and how many of those have no readable status (`mayBeInForce`),
//! the newest entry date (the heading's, else the `Date` line's, as [`crate::store::entry`] reads it)
//! and its last modification; `context.md`; the handoffs in `sessions/`; the brain link and the
//! linked brain's files. Without a link, the home's global brain, when detection chooses it, is
//! the project's brain as if linked (`init` writes no link for it); any other brain detection
//! would choose is shown, but nothing is linked.
//!
//! The health percentage is the share of checks that pass, rounded as `Math.round` does: the
//! four project files of `.agents/memory/`, at least one handoff, a brain (a valid link, or the
//! global brain found without one); and for a linked
//! brain, that it exists plus, for a brain laid out as the BMAD+ global brain, `identity.yaml`
//! and the three note files — and for this home's global brain, the one `init` indexes
//! projects in, `projects/` and this project's index entry — or for any other brain, an entry
//! point.
//! Every check that fails is named.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use crate::context::Context;
use crate::error::Result;
use crate::js::json::{Object, Value};
use crate::messages;
use crate::output::Report;
use crate::session::brain::{self, Brain, BrainType, LinkState};
use crate::session::handoffs::{handoff_names, latest_handoff, leads_out};
use crate::session::pack::{count, memory_path};
use crate::store::entry::{Status, date_of, status_of};
use crate::store::layout::{
    CONTEXT_FILE, IDENTITY, LINK_FILE, MEMORY_DIR, NOTE_FILES, PACK_DIR, PROJECTS, SESSIONS_DIR,
};
use crate::store::paths::{Loose, read_loose};
use crate::store::sections::sections;

/// Show the health of the project memory and its brain (read-only).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StatusArgs {}

/// One note file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NoteStatus {
    /// Path shown: project-relative, or absolute in a brain.
    pub path: String,
    pub is_present: bool,
    pub entries: usize,
    /// For a `decisions.md`, how many entries may be in force (as `brief` shows them): in force,
    /// or with no status or one the reader cannot place.
    pub active: Option<usize>,
    /// For a `decisions.md`, how many of the `active` ones have no status, or one the reader
    /// cannot place.
    pub may_be_in_force: Option<usize>,
    /// The newest `YYYY-MM-DD` among the entries' dates.
    pub latest_entry: Option<String>,
    /// Last modification, `toISOString` form.
    pub modified: Option<String>,
}

/// The linked brain's side of the report.
#[derive(Debug, Clone)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent facts, reported side by side"
)]
pub(crate) struct BrainStatus {
    pub brain: Brain,
    pub linked_at: Option<String>,
    pub is_present: bool,
    pub entry_point: Option<String>,
    pub notes: Vec<NoteStatus>,
    pub has_identity: bool,
    pub projects: Option<usize>,
    pub is_indexed: bool,
    /// Whether it is this home's global brain, the only one `init` indexes projects in.
    pub is_home_global: bool,
}

/// The whole report.
#[derive(Debug, Clone)]
pub(crate) struct StatusReport {
    /// The note files of `.agents/memory/`, then those of `.bmad/memory/` that exist.
    pub notes: Vec<NoteStatus>,
    pub context: NoteStatus,
    pub handoffs: usize,
    pub latest_handoff: Option<String>,
    /// `missing`, `invalid` or `valid`.
    pub link: &'static str,
    pub link_problem: Option<String>,
    pub brain: Option<BrainStatus>,
    /// What detection would link, when there is no valid link.
    pub detected: Option<Brain>,
    pub score: usize,
    pub checks: usize,
    /// What each failed check expected, in check order.
    pub failed: Vec<String>,
    pub warnings: Vec<String>,
}

impl StatusReport {
    /// `Math.round(score / checks * 100)`; 0 with no checks.
    #[must_use]
    pub(crate) fn health(&self) -> usize {
        health(self.score, self.checks)
    }
}

/// `Math.round(score / checks * 100)` for counts: half up.
#[must_use]
pub(crate) fn health(score: usize, checks: usize) -> usize {
    if checks == 0 {
        0
    } else {
        (200 * score + checks) / (2 * checks)
    }
}

/// Reads one note file (missing is fine; unreadable counts as missing). A file the loose reader
/// skips (a FIFO, a device, over 64 MiB, a link leaving `within`) counts as missing too, with a
/// warning.
fn note_status(
    path: &Path,
    within: &Path,
    shown: String,
    warnings: &mut Vec<String>,
) -> NoteStatus {
    let read = read_loose(path, within);
    let is_skipped = matches!(read, Ok(Loose::Skipped(_)));
    let text = read
        .ok()
        .and_then(|found| found.or_warn(&shown, warnings))
        .unwrap_or_default();
    let meta = fs::metadata(path)
        .ok()
        .filter(|m| m.is_file() && !is_skipped);
    // A byte-order mark (left by some Windows editors) must not hide the first heading.
    let sections = sections(text.strip_prefix('\u{feff}').unwrap_or(&text));
    let is_decisions = path.file_name().is_some_and(|n| n == "decisions.md");
    // (in force, no readable status)
    let counts = is_decisions.then(|| {
        sections
            .iter()
            .fold((0, 0), |(known, unplaced), s| match status_of(s) {
                Some(Status::Active) => (known + 1, unplaced),
                None | Some(Status::Unreadable(_)) => (known, unplaced + 1),
                Some(_) => (known, unplaced),
            })
    });
    NoteStatus {
        is_present: meta.is_some(),
        entries: sections.len(),
        active: counts.map(|(known, unplaced)| known + unplaced),
        may_be_in_force: counts.map(|(_, unplaced)| unplaced),
        latest_entry: sections.iter().filter_map(date_of).max().map(str::to_owned),
        path: shown,
        modified: meta.as_ref().and_then(crate::session::pack::modified),
    }
}

fn brain_status(
    ctx: &Context,
    brain: Brain,
    linked_at: Option<String>,
    warnings: &mut Vec<String>,
) -> BrainStatus {
    let dir = &brain.dir;
    let shown = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let is_global = brain.kind == BrainType::BmadGlobal;
    let notes = NOTE_FILES
        .iter()
        .map(|n| note_status(&dir.join(n), dir, shown(n), warnings))
        .filter(|n| is_global || n.is_present)
        .collect();
    let projects = fs::read_dir(dir.join(PROJECTS)).ok().map(|entries| {
        entries
            .filter_map(std::result::Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".yaml"))
            .count()
    });
    let is_indexed = dir
        .join(brain::index_rel(&brain::project_hash(&ctx.root)))
        .is_file();
    let is_home_global = brain::is_home_global(&brain, ctx.home.as_deref());
    BrainStatus {
        is_home_global,
        is_present: dir.is_dir(),
        entry_point: brain
            .read_entry_point(warnings)
            .map(|(name, _, _)| name.to_owned()),
        has_identity: dir.join(IDENTITY).is_file(),
        notes,
        projects,
        is_indexed,
        linked_at,
        brain,
    }
}

/// Runs `status`.
///
/// # Errors
/// None: everything unreadable is reported as missing.
#[expect(
    clippy::unnecessary_wraps,
    reason = "every command's run returns a Result, for the one dispatch match"
)]
pub(crate) fn run(_args: &StatusArgs, ctx: &Context) -> Result<StatusReport> {
    let root = &ctx.root;
    let mut warnings = Vec::new();
    let mut notes: Vec<NoteStatus> = NOTE_FILES
        .iter()
        .map(|n| {
            note_status(
                &root.join(memory_path(n)),
                root,
                memory_path(n),
                &mut warnings,
            )
        })
        .collect();
    let checked_notes = notes.len();
    notes.extend(
        NOTE_FILES
            .iter()
            .map(|n| format!("{MEMORY_DIR}/{n}"))
            .map(|rel| note_status(&root.join(&rel), root, rel, &mut warnings))
            .filter(|n| n.is_present),
    );
    let context = note_status(
        &root.join(memory_path(CONTEXT_FILE)),
        root,
        memory_path(CONTEXT_FILE),
        &mut warnings,
    );
    let sessions = root.join(SESSIONS_DIR);
    // The handoffs are looked at by the readers' rule too: a sessions folder linked out of the
    // project is skipped, with a warning, rather than counted and read.
    let (handoffs, latest) = match leads_out(&sessions, root) {
        Some(skip) => {
            warnings.push(skip.warning(SESSIONS_DIR));
            (0, None)
        }
        None => (handoff_names(&sessions).len(), latest_handoff(&sessions)),
    };
    let mut report = StatusReport {
        handoffs,
        latest_handoff: latest,
        link: "missing",
        link_problem: None,
        brain: None,
        detected: None,
        score: 0,
        checks: 0,
        failed: Vec::new(),
        warnings,
        notes,
        context,
    };
    match brain::read_checked_link(ctx) {
        LinkState::Valid(link) => {
            report.link = "valid";
            let linked_at = Some(link.linked_at.clone()).filter(|s| !s.is_empty());
            if let Some(brain) = link.brain() {
                let status = brain_status(ctx, brain, linked_at, &mut report.warnings);
                report.brain = Some(status);
            }
        }
        LinkState::Invalid(reason) => {
            report.link = "invalid";
            report.warnings.push(brain::ignored_link_warning(&reason));
            report.link_problem = Some(reason);
        }
        LinkState::Missing => {}
    }
    if report.brain.is_none() {
        let detection = brain::detect(ctx);
        report.warnings.extend(detection.warnings.iter().cloned());
        match brain::default_brain(&detection, ctx.home.as_deref()) {
            Some(global) if report.link == "missing" => {
                let status = brain_status(ctx, global, None, &mut report.warnings);
                report.brain = Some(status);
            }
            _ => report.detected = detection.brain,
        }
    }
    let checks = health_checks(&report, checked_notes);
    report.checks = checks.len();
    report.score = checks.iter().filter(|(ok, _)| *ok).count();
    report.failed = checks
        .into_iter()
        .filter(|(ok, _)| !*ok)
        .map(|(_, name)| name)
        .collect();
    Ok(report)
}

/// Every health check of a report, passed or not, with the name `status` gives a failed one:
/// the first `checked_notes` note files, `context.md`, a handoff, the link, and the brain's
/// own files.
fn health_checks(report: &StatusReport, checked_notes: usize) -> Vec<(bool, String)> {
    let mut checks: Vec<(bool, String)> = report.notes[..checked_notes]
        .iter()
        .map(|n| (n.is_present, format!("{} exists", n.path)))
        .collect();
    checks.push((
        report.context.is_present,
        format!("{} exists", report.context.path),
    ));
    checks.push((report.handoffs > 0, format!("a handoff in {SESSIONS_DIR}/")));
    // The link counts only for a brain that needs one: the home's global brain, found by
    // detection, is the project's brain without it.
    let needs_link = report.link == "invalid" || report.detected.is_some();
    checks.push((
        report.brain.is_some(),
        if needs_link {
            format!("a valid {LINK_FILE}")
        } else {
            messages::STATUS_NO_BRAIN.to_owned()
        },
    ));
    if let Some(b) = &report.brain {
        let dir = b.brain.dir.display();
        checks.push((b.is_present, format!("the brain folder {dir} exists")));
        if b.brain.kind == BrainType::BmadGlobal {
            checks.push((b.has_identity, format!("{dir}/{IDENTITY} exists")));
            checks.extend(
                b.notes
                    .iter()
                    .map(|n| (n.is_present, format!("{} exists", n.path))),
            );
            // Only this home's global brain gets `projects/` and the project's index entry
            // from `init`; another brain following the same layout is left as its owners keep it.
            if b.is_home_global {
                checks.push((b.projects.is_some(), format!("{dir}/{PROJECTS}/ exists")));
                checks.push((
                    b.is_indexed,
                    format!("this project indexed in {dir}/{PROJECTS}/"),
                ));
            }
        } else {
            checks.push((
                b.entry_point.is_some(),
                format!("an entry point in the brain {dir}"),
            ));
        }
    }
    checks
}

fn note_json(n: &NoteStatus) -> Value {
    Value::Object(
        Object::new()
            .with("path", n.path.as_str())
            .with("exists", n.is_present)
            .with("entries", count(n.entries))
            .with("active", n.active.map(count))
            .with("mayBeInForce", n.may_be_in_force.map(count))
            .with("latestEntry", n.latest_entry.clone())
            .with("modified", n.modified.clone()),
    )
}

fn brain_json(brain: &Brain) -> Object {
    Object::new()
        .with("path", brain.dir.to_string_lossy().into_owned())
        .with("type", brain.kind.as_str())
}

/// One note file's human line: name, entries (and active ones), newest entry date, last change.
fn note_line(out: &mut String, indent: &str, n: &NoteStatus) {
    let name = n.path.rsplit('/').next().unwrap_or(&n.path);
    let _ = write!(out, "{indent}{name:<14} ");
    if !n.is_present {
        out.push_str("missing\n");
        return;
    }
    let _ = write!(out, "{} entries", n.entries);
    match (n.active, n.may_be_in_force) {
        (Some(active), Some(unplaced)) if unplaced > 0 => {
            let _ = write!(
                out,
                " ({active} active: {} in force, {unplaced} with no readable status)",
                active - unplaced
            );
        }
        (Some(active), _) => {
            let _ = write!(out, " ({active} active)");
        }
        (None, _) => {}
    }
    if let Some(latest) = &n.latest_entry {
        let _ = write!(out, ", latest {latest}");
    }
    if let Some(modified) = &n.modified {
        let _ = write!(out, ", changed {}", &modified[..modified.len().min(10)]);
    }
    out.push('\n');
}

/// The linked brain's human lines; `is_linked` false for the global brain found without a link.
fn brain_lines(out: &mut String, b: &BrainStatus, is_linked: bool) {
    let _ = writeln!(
        out,
        "  brain          {} {}{}{}",
        b.brain.kind.as_str(),
        b.brain.dir.display(),
        if b.is_present { "" } else { " (missing!)" },
        if is_linked {
            ""
        } else {
            " (found by detection, no link needed)"
        }
    );
    if b.brain.kind == BrainType::BmadGlobal {
        let _ = writeln!(
            out,
            "    {:<14} {}",
            IDENTITY,
            if b.has_identity { "present" } else { "missing" }
        );
    } else {
        let _ = writeln!(
            out,
            "    {:<14} {}",
            "entry point",
            b.entry_point.as_deref().unwrap_or("none")
        );
    }
    for n in &b.notes {
        note_line(out, "    ", n);
    }
    if let Some(projects) = b.projects {
        let _ = writeln!(
            out,
            "    {:<14} {projects} indexed{}",
            "projects/",
            if b.is_indexed {
                ", this project included"
            } else {
                ""
            }
        );
    }
}

impl Report for StatusReport {
    fn to_json(&self) -> Value {
        let brain = self.brain.as_ref().map(|b| {
            brain_json(&b.brain)
                .with("linkedAt", b.linked_at.clone())
                .with("exists", b.is_present)
                .with("entryPoint", b.entry_point.clone())
                .with("identity", b.has_identity)
                .with(
                    "notes",
                    Value::Array(b.notes.iter().map(note_json).collect()),
                )
                .with("projects", b.projects.map(count))
                .with("indexed", b.is_indexed)
        });
        Value::Object(
            Object::new()
                .with("memoryDir", PACK_DIR)
                .with(
                    "notes",
                    Value::Array(self.notes.iter().map(note_json).collect()),
                )
                .with("context", note_json(&self.context))
                .with(
                    "handoffs",
                    Object::new()
                        .with("count", count(self.handoffs))
                        .with("latest", self.latest_handoff.clone()),
                )
                .with(
                    "link",
                    Object::new()
                        .with("path", LINK_FILE)
                        .with("state", self.link)
                        .with("problem", self.link_problem.clone()),
                )
                .with("brain", brain)
                .with("detected", self.detected.as_ref().map(brain_json))
                .with(
                    "health",
                    Object::new()
                        .with("percent", count(self.health()))
                        .with("passed", count(self.score))
                        .with("checks", count(self.checks))
                        .with(
                            "failed",
                            Value::Array(self.failed.iter().map(Value::from).collect()),
                        ),
                )
                .with(
                    "warnings",
                    Value::Array(self.warnings.iter().map(Value::from).collect()),
                ),
        )
    }

    fn render_human(&self) -> String {
        let mut out = format!("mem status: project memory in {PACK_DIR}/\n");
        let (own, bmad): (Vec<&NoteStatus>, Vec<&NoteStatus>) = self
            .notes
            .iter()
            .partition(|n| n.path.starts_with(PACK_DIR));
        for n in own {
            note_line(&mut out, "  ", n);
        }
        let _ = write!(
            out,
            "  {:<14} {}",
            CONTEXT_FILE,
            if self.context.is_present {
                "present"
            } else {
                "missing"
            }
        );
        if let Some(modified) = &self.context.modified {
            let _ = write!(out, ", changed {}", &modified[..modified.len().min(10)]);
        }
        out.push('\n');
        let _ = write!(out, "  {:<14} {} handoff(s)", "sessions/", self.handoffs);
        if let Some(latest) = &self.latest_handoff {
            let _ = write!(out, ", latest {latest}");
        }
        out.push('\n');
        if !bmad.is_empty() {
            let _ = writeln!(out, "  also read in {MEMORY_DIR}/:");
            for n in bmad {
                note_line(&mut out, "    ", n);
            }
        }
        if let Some(b) = &self.brain {
            brain_lines(&mut out, b, self.link == "valid");
        } else {
            let _ = write!(
                out,
                "  brain          {}",
                if self.link == "invalid" {
                    "link invalid"
                } else {
                    "not linked"
                }
            );
            if let Some(found) = &self.detected {
                let _ = write!(
                    out,
                    " (init would link {} {})",
                    found.kind.as_str(),
                    found.dir.display()
                );
            }
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "  health         {}% ({}/{} checks)",
            self.health(),
            self.score,
            self.checks
        );
        for failed in &self.failed {
            let _ = writeln!(out, "    failed: {failed}");
        }
        out
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn health_rounds_half_up() {
        assert_eq!(health(0, 0), 0);
        assert_eq!(health(1, 8), 13); // 12.5
        assert_eq!(health(5, 6), 83);
        assert_eq!(health(6, 6), 100);
        assert_eq!(health(1, 3), 33);
        assert_eq!(health(2, 3), 67);
    }
}
