//! `lint`: a read-only check of the project memory that CI can gate on.
//!
//! Every finding is `{file, line, heading, check, severity, message, proposal}`. It exits 1 when
//! an *error* is found, 0 otherwise: warnings and information never fail it.
//!
//! * errors — a ledgered decision whose text was edited (in force, proposed or ended), or that
//!   disappeared; a ledger and a note that disagree on a decision's status, whatever the note
//!   says (an interrupted change, a status changed by hand or made unreadable); a ledger whose
//!   records of a decision are not one chain (docs/DECISIONS.md); a `superseded by` that names
//!   no decision, or one that never came into force, or runs in a circle; a decision stating
//!   two statuses that disagree; a heading used twice in one note file; a receipt store that
//!   fails its integrity check; conflict markers a merge left in a note file, `refused.md`, a
//!   candidate or a registry ([`markers`]);
//! * warnings — broken `[[links]]`, format problems (no date, a date that is not `YYYY-MM-DD`,
//!   a status outside the list, ledger lines that are not records, note files every reader
//!   skips), `###` inside fenced code, fences never closed (once each, at the line that opens
//!   them; the headings after them are not reported as inside code), generated views
//!   (`INDEX.md`, `CANDIDATES.md`) that drifted from their sources;
//! * information — receipts that no longer count, and with `--full` the proposals of [`full`].
//!
//! `--ignore <check,…>` and the project config's `lint.ignore` silence whole checks (a team
//! adopting an old ADR folder may not want its `format` findings): their findings are left out
//! of the report, counts and exit status included. An unknown name is refused on the command
//! line, and a warning in the config.
//!
//! It never writes: every proposal is a command or an edit for a person to make.

mod decisions;
pub(crate) mod findings;
mod full;
mod markers;
mod notes;

use std::fmt::Write as _;

use crate::actions::entries::views;
use crate::actions::receipts::{self, Inspector};
pub(crate) use crate::admin::lint::findings::CHECKS;
use crate::admin::lint::findings::{Finding, Note, Severity, file_finding};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::messages;
use crate::output::Report;
use crate::store::config;
use crate::store::layout::{CONFIG_FILE, NOTE_DIRS, NOTE_FILES, OUTCOMES};
use crate::store::parallel::on_two_threads;
use crate::store::paths::{Loose, read_loose};
use crate::store::sections::Section;

/// Check the notes and the decision ledger (read-only); exit 1 when an error is found.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LintArgs {
    /// Add proposals: near-duplicate entries, old decisions to review, possible
    /// contradictions, stores to archive, journal events to summarise.
    #[arg(long)]
    pub full: bool,
    /// Silence these checks for this run (comma-separated names, e.g.
    /// format,heading-in-code), besides those the config's lint.ignore names.
    #[arg(long, value_name = "check,…", value_delimiter = ',')]
    pub ignore: Vec<String>,
}

/// What lint found, worst first.
#[derive(Debug, Default)]
pub struct LintReport {
    pub checked: Vec<String>,
    pub findings: Vec<Finding>,
    /// The checks silenced (`--ignore` and the config's `lint.ignore`), sorted.
    pub ignored: Vec<String>,
    /// What was wrong with the config, one line each.
    pub warnings: Vec<String>,
}

impl LintReport {
    fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }
}

/// The checks to silence: `--ignore`'s (each must name a check) and the config's (an unknown
/// one is a warning), sorted, without repeats.
fn ignored(args: &LintArgs, ctx: &Context, warnings: &mut Vec<String>) -> Result<Vec<String>> {
    if let Some(name) = args.ignore.iter().find(|n| !CHECKS.contains(&n.as_str())) {
        return Err(Error::refused(messages::unknown_lint_check(name, &CHECKS)));
    }
    let loaded = config::load(&ctx.root);
    warnings.extend(loaded.warnings);
    let mut names = args.ignore.clone();
    for name in loaded.config.lint_ignore {
        if CHECKS.contains(&name.as_str()) {
            names.push(name);
        } else {
            warnings.push(messages::unknown_ignored_check(CONFIG_FILE, &name));
        }
    }
    names.sort_unstable();
    names.dedup();
    Ok(names)
}

/// Runs the checks. Nothing in the memory makes it fail: what cannot be read becomes a finding.
///
/// # Errors
/// `--ignore` naming no check.
pub fn run(args: &LintArgs, ctx: &Context) -> Result<LintReport> {
    let mut report = LintReport::default();
    report.ignored = ignored(args, ctx, &mut report.warnings)?;
    let mut notes = Vec::new();
    let files: Vec<(String, &'static str)> = NOTE_DIRS
        .iter()
        .flat_map(|dir| {
            NOTE_FILES
                .iter()
                .map(move |name| (format!("{dir}/{name}"), *name))
        })
        .collect();
    let read = on_two_threads(files.len(), |i| {
        read_loose(&ctx.root.join(&files[i].0), &ctx.root)
    });
    for ((rel, name), read) in files.into_iter().zip(read) {
        let problem = match read {
            Ok(Loose::Read(text)) => {
                report.checked.push(rel.clone());
                notes.push(Note::new(rel, name, text));
                continue;
            }
            Ok(Loose::Missing) => continue,
            Ok(Loose::Skipped(skip)) => format!("every reader skips this note file: {skip}"),
            Err(e) => format!("cannot read this note file: {e}"),
        };
        report
            .findings
            .push(file_finding(&rel, "format", Severity::Warning, problem));
        report.checked.push(rel);
    }
    let cut: Vec<Vec<(usize, Section<'_>)>> = on_two_threads(notes.len(), |i| notes[i].sections());
    // `--full`'s near-duplicate search, its largest part, runs on a second thread beside the
    // other checks; the findings keep one order whichever finishes first.
    let full_findings = std::thread::scope(|scope| {
        let duplicates = args
            .full
            .then(|| scope.spawn(|| full::duplicates(&notes, &cut)));
        notes::check(&ctx.root, &notes, &cut, &mut report.findings);
        decisions::check(
            &ctx.root,
            &notes,
            &cut,
            &mut report.checked,
            &mut report.findings,
        );
        check_receipts(ctx, &mut report.findings);
        check_views(ctx, &mut report.findings);
        markers::check(ctx, &notes, &mut report.findings);
        let proposals = if args.full {
            full::proposals(ctx, &notes, &cut)
        } else {
            Vec::new()
        };
        let duplicates = duplicates.map_or_else(Vec::new, |thread| {
            thread
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e))
        });
        [duplicates, proposals].concat()
    });
    report.findings.extend(full_findings);
    report
        .findings
        .retain(|f| !report.ignored.iter().any(|name| name == f.check));
    report.findings.sort_by_key(|f| f.severity);
    Ok(report)
}

/// The generated views of the entries (`INDEX.md`, `CANDIDATES.md`) that no longer match their
/// sources (a warning: they are rebuilt, never edited), once the entry commands are in use.
fn check_views(ctx: &Context, findings: &mut Vec<Finding>) {
    if !views::in_use(ctx) {
        return;
    }
    let rebuild = "`bmad-mem doctor --rebuild-views` regenerates it".to_owned();
    match views::drift(ctx) {
        Ok(drifted) => {
            for (view, what) in drifted {
                let mut finding = file_finding(
                    view,
                    "view-drift",
                    Severity::Warning,
                    format!("generated view {what}"),
                );
                finding.proposal = Some(rebuild.clone());
                findings.push(finding);
            }
        }
        Err(e) => findings.push(file_finding(
            views::INDEX_VIEW,
            "view-drift",
            Severity::Warning,
            format!("cannot compare the generated views with their sources: {e}"),
        )),
    }
}

/// Receipts that no longer count (information), or a store that fails its check (an error).
fn check_receipts(ctx: &Context, findings: &mut Vec<Finding>) {
    let receipts = match receipts::read_store(&ctx.root) {
        Ok(receipts) => receipts,
        Err(e) => {
            let mut finding =
                file_finding(OUTCOMES, "receipt-store", Severity::Error, e.to_string());
            finding.proposal = Some("`bmad-mem doctor` names the damage and the repair".to_owned());
            findings.push(finding);
            return;
        }
    };
    if receipts.is_empty() {
        return;
    }
    let statuses = Inspector::new(&ctx.root).statuses(&receipts, None);
    for (receipt, status) in receipts.iter().zip(statuses) {
        let Some(reason) = status.reason() else {
            continue;
        };
        let field = |key: &str| {
            receipt
                .get("memory")
                .and_then(Value::as_object)
                .and_then(|m| m.get(key))
                .map(Value::text)
                .unwrap_or_default()
        };
        let id = receipt.get("id").map(Value::text).unwrap_or_default();
        let proposal = (status == receipts::Status::StaleMemorySection).then(|| {
            "the section changed since it was observed (a decision that was superseded or abrogated no longer stands); observe it again if its new text is right".to_owned()
        });
        findings.push(Finding {
            file: OUTCOMES.to_owned(),
            line: None,
            heading: Some(field("heading")),
            check: "receipt",
            severity: Severity::Info,
            message: format!("receipt {id} ({}): {reason}", field("file")),
            proposal,
        });
    }
}

impl Report for LintReport {
    fn to_json(&self) -> Value {
        let count = |n: usize| Value::from(u32::try_from(n).unwrap_or(u32::MAX));
        let findings: Vec<Value> = self
            .findings
            .iter()
            .map(|f| {
                Value::Object(
                    Object::new()
                        .with("file", f.file.as_str())
                        .with("line", f.line.map_or(Value::Null, count))
                        .with("heading", f.heading.as_deref())
                        .with("check", f.check)
                        .with("severity", f.severity.as_str())
                        .with("message", f.message.as_str())
                        .with("proposal", f.proposal.as_deref()),
                )
            })
            .collect();
        Value::Object(
            Object::new()
                .with("ok", self.count(Severity::Error) == 0)
                .with(
                    "counts",
                    Object::new()
                        .with("errors", count(self.count(Severity::Error)))
                        .with("warnings", count(self.count(Severity::Warning)))
                        .with("info", count(self.count(Severity::Info))),
                )
                .with(
                    "checked",
                    self.checked.iter().map(Value::from).collect::<Vec<_>>(),
                )
                .with("findings", findings)
                .with(
                    "ignored",
                    self.ignored.iter().map(Value::from).collect::<Vec<_>>(),
                )
                .with(
                    "warnings",
                    self.warnings.iter().map(Value::from).collect::<Vec<_>>(),
                ),
        )
    }

    fn render_human(&self) -> String {
        let ignored = if self.ignored.is_empty() {
            String::new()
        } else {
            format!("; ignored: {}", self.ignored.join(", "))
        };
        if self.findings.is_empty() {
            return format!(
                "mem lint: no findings ({} file(s) checked{ignored})\n",
                self.checked.len()
            );
        }
        let mut out = format!(
            "mem lint: {} error(s), {} warning(s), {} info in {} file(s) checked{ignored}\n",
            self.count(Severity::Error),
            self.count(Severity::Warning),
            self.count(Severity::Info),
            self.checked.len()
        );
        for f in &self.findings {
            let _ = write!(out, "  {:<7} {}", f.severity.as_str(), f.file);
            if let Some(line) = f.line {
                let _ = write!(out, ":{line}");
            }
            if let Some(heading) = &f.heading {
                let _ = write!(out, " § {heading}");
            }
            let _ = writeln!(out, " [{}] {}", f.check, f.message);
            if let Some(proposal) = &f.proposal {
                let _ = writeln!(out, "          → {proposal}");
            }
        }
        out
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn exit_code(&self) -> u8 {
        u8::from(self.count(Severity::Error) > 0)
    }
}
