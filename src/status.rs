//! `status`: the health report of the project memory and its brain (read-only).
//!
//! Per note file of `.agents/memory/`: whether it exists, its number of `###` entries (SPEC §3.7
//! sections), the newest date among their headings and its last modification; `context.md`;
//! the handoffs in `sessions/`; the brain link and the linked brain's files. Without a link, the
//! brain detection would choose is shown, but nothing is linked.
//!
//! The health percentage is the share of checks that pass, rounded as `Math.round` does: the
//! four project files, at least one handoff, a valid link; and for a linked brain, that it
//! exists plus, for the BMAD+ global brain, `identity.yaml`, the three note files, `projects/`
//! and this project's index entry, or for any other brain, an entry point.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use crate::brain::{self, Brain, BrainType, IDENTITY, LINK_FILE, LinkState, PROJECTS};
use crate::context::Context;
use crate::error::Result;
use crate::js::json::{Object, Value};
use crate::memory::{CONTEXT_FILE, MEMORY_DIR, SESSIONS_DIR, count, heading_date, memory_path};
use crate::output::Report;
use crate::recall::NOTE_FILES;
use crate::store::paths::read_loose;
use crate::store::sections::sections;

/// Show the health of the project memory and its brain (read-only).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StatusArgs {}

/// One note file.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteStatus {
    /// Path shown: project-relative, or absolute in a brain.
    pub path: String,
    pub is_present: bool,
    pub entries: usize,
    /// The newest `YYYY-MM-DD` among the entries' headings.
    pub latest_entry: Option<String>,
    /// Last modification, `toISOString` form.
    pub modified: Option<String>,
}

/// The linked brain's side of the report.
#[derive(Debug, Clone)]
pub struct BrainStatus {
    pub brain: Brain,
    pub linked_at: Option<String>,
    pub is_present: bool,
    pub entry_point: Option<String>,
    pub notes: Vec<NoteStatus>,
    pub has_identity: bool,
    pub projects: Option<usize>,
    pub is_indexed: bool,
}

/// The whole report.
#[derive(Debug, Clone)]
pub struct StatusReport {
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
    pub warnings: Vec<String>,
}

impl StatusReport {
    /// `Math.round(score / checks * 100)`; 0 with no checks.
    #[must_use]
    pub fn health(&self) -> usize {
        health(self.score, self.checks)
    }
}

/// `Math.round(score / checks * 100)` for counts: half up.
#[must_use]
pub fn health(score: usize, checks: usize) -> usize {
    if checks == 0 {
        0
    } else {
        (200 * score + checks) / (2 * checks)
    }
}

/// Reads one note file (missing is fine; unreadable counts as missing).
fn note_status(path: &Path, shown: String) -> NoteStatus {
    let meta = fs::metadata(path).ok().filter(fs::Metadata::is_file);
    let text = meta
        .as_ref()
        .and_then(|_| read_loose(path).ok().flatten())
        .unwrap_or_default();
    let sections = sections(&text);
    NoteStatus {
        path: shown,
        is_present: meta.is_some(),
        entries: sections.len(),
        latest_entry: sections
            .iter()
            .filter_map(|s| heading_date(s.heading))
            .max()
            .map(str::to_owned),
        modified: meta.as_ref().and_then(crate::memory::modified),
    }
}

/// The handoffs (`*.md`) of a sessions folder: their names, sorted.
#[must_use]
pub fn handoff_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(std::result::Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| {
                    Path::new(n)
                        .extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case("md"))
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The latest handoff of a sessions folder: by the date its name starts with, then by last
/// modification, then by name.
#[must_use]
pub fn latest_handoff(dir: &Path) -> Option<String> {
    handoff_names(dir).into_iter().max_by_key(|name| {
        let modified = fs::metadata(dir.join(name)).and_then(|m| m.modified()).ok();
        (
            heading_date(name).map(str::to_owned),
            modified,
            name.clone(),
        )
    })
}

fn brain_status(ctx: &Context, brain: Brain, linked_at: Option<String>) -> BrainStatus {
    let dir = &brain.dir;
    let shown = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let is_global = brain.kind == BrainType::BmadGlobal;
    let notes = NOTE_FILES
        .iter()
        .map(|n| note_status(&dir.join(n), shown(n)))
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
    BrainStatus {
        is_present: dir.is_dir(),
        entry_point: brain.entry_point().map(|(name, _)| name.to_owned()),
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
pub fn run(_args: &StatusArgs, ctx: &Context) -> Result<StatusReport> {
    let root = &ctx.root;
    let notes: Vec<NoteStatus> = NOTE_FILES
        .iter()
        .map(|n| note_status(&root.join(memory_path(n)), memory_path(n)))
        .collect();
    let context = note_status(
        &root.join(memory_path(CONTEXT_FILE)),
        memory_path(CONTEXT_FILE),
    );
    let sessions = root.join(SESSIONS_DIR);
    let handoffs = handoff_names(&sessions).len();
    let mut report = StatusReport {
        handoffs,
        latest_handoff: latest_handoff(&sessions),
        link: "missing",
        link_problem: None,
        brain: None,
        detected: None,
        score: 0,
        checks: 0,
        warnings: Vec::new(),
        notes,
        context,
    };
    match brain::read_checked_link(ctx) {
        LinkState::Valid(link) => {
            report.link = "valid";
            let linked_at = Some(link.linked_at.clone()).filter(|s| !s.is_empty());
            if let Some(brain) = link.brain() {
                report.brain = Some(brain_status(ctx, brain, linked_at));
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
        report.detected = detection.brain;
        report.warnings.extend(detection.warnings);
    }
    let mut checks: Vec<bool> = report.notes.iter().map(|n| n.is_present).collect();
    checks.push(report.context.is_present);
    checks.push(report.handoffs > 0);
    checks.push(report.link == "valid");
    if let Some(b) = &report.brain {
        checks.push(b.is_present);
        if b.brain.kind == BrainType::BmadGlobal {
            checks.push(b.has_identity);
            checks.extend(b.notes.iter().map(|n| n.is_present));
            checks.push(b.projects.is_some());
            checks.push(b.is_indexed);
        } else {
            checks.push(b.entry_point.is_some());
        }
    }
    report.checks = checks.len();
    report.score = checks.iter().filter(|c| **c).count();
    Ok(report)
}

fn note_json(n: &NoteStatus) -> Value {
    Value::Object(
        Object::new()
            .with("path", n.path.as_str())
            .with("exists", n.is_present)
            .with("entries", count(n.entries))
            .with("latestEntry", n.latest_entry.clone())
            .with("modified", n.modified.clone()),
    )
}

fn brain_json(brain: &Brain) -> Object {
    Object::new()
        .with("path", brain.dir.to_string_lossy().into_owned())
        .with("type", brain.kind.as_str())
}

/// One note file's human line: name, entries, newest entry date, last change.
fn note_line(out: &mut String, indent: &str, n: &NoteStatus) {
    let name = n.path.rsplit('/').next().unwrap_or(&n.path);
    let _ = write!(out, "{indent}{name:<14} ");
    if !n.is_present {
        out.push_str("missing\n");
        return;
    }
    let _ = write!(out, "{} entries", n.entries);
    if let Some(latest) = &n.latest_entry {
        let _ = write!(out, ", latest {latest}");
    }
    if let Some(modified) = &n.modified {
        let _ = write!(out, ", changed {}", &modified[..modified.len().min(10)]);
    }
    out.push('\n');
}

/// The linked brain's human lines.
fn brain_lines(out: &mut String, b: &BrainStatus) {
    let _ = writeln!(
        out,
        "  brain          {} {}{}",
        b.brain.kind.as_str(),
        b.brain.dir.display(),
        if b.is_present { "" } else { " (missing!)" }
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
                .with("memoryDir", MEMORY_DIR)
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
                        .with("checks", count(self.checks)),
                )
                .with(
                    "warnings",
                    Value::Array(self.warnings.iter().map(Value::from).collect()),
                ),
        )
    }

    fn render_human(&self) -> String {
        let mut out = format!("mem status: project memory in {MEMORY_DIR}/\n");
        for n in &self.notes {
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
        if let Some(b) = &self.brain {
            brain_lines(&mut out, b);
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

    #[test]
    fn latest_handoff_by_date_then_time_then_name() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(latest_handoff(dir.path()), None);
        for name in ["2026-10-17-b.md", "2026-10-18-a.md", "notes.md", "x.txt"] {
            fs::write(dir.path().join(name), "x").unwrap();
        }
        assert_eq!(
            latest_handoff(dir.path()).as_deref(),
            Some("2026-10-18-a.md")
        );
        assert_eq!(handoff_names(dir.path()).len(), 3);
    }
}
