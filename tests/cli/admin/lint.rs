//! `lint`: each check on a project made to trip it, the exit status CI gates on (1 only for
//! errors), both output forms, and that it never writes.

use std::fmt::Write as _;

use serde::Deserialize;
use serde_json::json;

use crate::actions::decisions::{DECISIONS, LEDGER, NOTES, ledgered};
use crate::actions::observe::{observe, project};
use crate::support::TestProject;
use crate::support::nexus_run::{RUN_ID, TASK};

/// `lint --json`, schema pinned.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lint {
    pub ok: bool,
    pub counts: Counts,
    pub checked: Vec<String>,
    pub findings: Vec<Finding>,
    pub ignored: Vec<String>,
    pub warnings: Vec<String>,
}

/// How many findings of each severity.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
    pub info: usize,
}

#[derive(Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub file: String,
    pub line: Option<usize>,
    pub heading: Option<String>,
    pub check: String,
    pub severity: String,
    pub message: String,
    pub proposal: Option<String>,
}

/// Runs `lint --json` (with `extra` arguments), which must exit `code` and change nothing.
pub fn lint(project: TestProject, extra: &[&str], code: i32) -> (TestProject, Lint) {
    let mut args = vec!["lint", "--json"];
    args.extend_from_slice(extra);
    let ran = project.args(args).code(code).stderr("").unchanged().run();
    let report: Lint = ran.json();
    assert_eq!(report.ok, code == 0);
    (ran.then(), report)
}

/// The findings of `check`, as (line, heading, severity, message, proposal).
fn of<'a>(report: &'a Lint, check: &str) -> Vec<&'a Finding> {
    report
        .findings
        .iter()
        .filter(|f| f.check == check)
        .collect()
}

#[track_caller]
fn one(report: &Lint, check: &str) -> Finding {
    let found = of(report, check);
    assert_eq!(found.len(), 1, "{check}: {report:#?}");
    let f = found[0];
    Finding {
        file: f.file.clone(),
        line: f.line,
        heading: f.heading.clone(),
        check: f.check.clone(),
        severity: f.severity.clone(),
        message: f.message.clone(),
        proposal: f.proposal.clone(),
    }
}

fn finding(
    file: &str,
    line: Option<usize>,
    heading: Option<&str>,
    check: &str,
    severity: &str,
    message: &str,
    proposal: Option<&str>,
) -> Finding {
    Finding {
        file: file.to_owned(),
        line,
        heading: heading.map(str::to_owned),
        check: check.to_owned(),
        severity: severity.to_owned(),
        message: message.to_owned(),
        proposal: proposal.map(str::to_owned),
    }
}

#[test]
fn the_example_is_clean_and_the_human_form_says_so() {
    let _ = TestProject::new()
        .fixture("example")
        .args(["lint"])
        .code(0)
        .stdout("mem lint: no findings (5 file(s) checked)\n")
        .unchanged()
        .run();
    let (_, report) = lint(TestProject::new().fixture("example"), &[], 0);
    assert_eq!(
        (
            report.counts.errors,
            report.counts.warnings,
            report.counts.info
        ),
        (0, 0, 0)
    );
    assert_eq!(report.checked.len(), 5);
}

#[test]
fn an_edited_ledgered_decision_is_an_error() {
    let edited = NOTES.replace("one database for everything", "one database, mostly");
    let (project, report) = lint(ledgered().write(DECISIONS, &edited), &[], 1);
    let ts = crate::support::NOW;
    assert_eq!(
        one(&report, "decision-edited"),
        finding(
            DECISIONS,
            Some(3),
            Some("Use Postgres"),
            "decision-edited",
            "error",
            "decision body edited; supersede it instead",
            Some(&format!(
                "put back the text ledgered on {ts}, and write the change as a new decision: `bmad-mem decision supersede \"Use Postgres\" --successor \"<new heading>\"`"
            )),
        )
    );
    assert_eq!(report.counts.errors, 1);
    // The human form, and CI's gate: exit 1.
    let _ = project
        .args(["lint"])
        .code(1)
        .stdout(&format!(
            "mem lint: 1 error(s), 0 warning(s), 0 info in 2 file(s) checked\n  error   {DECISIONS}:3 § Use Postgres [decision-edited] decision body edited; supersede it instead\n          → put back the text ledgered on {ts}, and write the change as a new decision: `bmad-mem decision supersede \"Use Postgres\" --successor \"<new heading>\"`\n"
        ))
        .run();
    // Superseding it does not launder the edit: it is refused until the ledgered text is back,
    // and then the decision ends as it was ledgered.
    let supersede = [
        "decision",
        "supersede",
        "Use Postgres",
        "--successor",
        "2026-10-01 — Sessions in Redis",
    ];
    let project = ledgered()
        .write(DECISIONS, &edited)
        .args(supersede)
        .refused(
            "decision",
            &format!(
                "\"Use Postgres\" ({DECISIONS}:3) was edited since it was ledgered on {ts}; put back the ledgered text first (`bmad-mem lint` shows the finding)"
            ),
        );
    let (_, report) = lint(
        project
            .write(DECISIONS, NOTES)
            .args(supersede)
            .code(0)
            .run()
            .then(),
        &[],
        0,
    );
    assert_eq!(report.counts.errors, 0, "{report:#?}");
}

#[test]
fn a_vanished_ledgered_decision_and_a_status_changed_by_hand_are_errors() {
    let without = NOTES.replace(
        "### Use Postgres\n**Date:** 2026-09-01\n**Status:** active\n**Decision:** one database for everything.\n\n",
        "",
    );
    let (_, report) = lint(ledgered().write(DECISIONS, &without), &[], 1);
    assert_eq!(
        one(&report, "decision-missing"),
        finding(
            DECISIONS,
            None,
            Some("Use Postgres"),
            "decision-missing",
            "error",
            "the ledgered decision \"Use Postgres\" (active) is no longer in the file",
            Some(
                "restore it; a decision ends with `bmad-mem decision supersede` or `abrogate`, never by deletion"
            ),
        )
    );
    let by_hand = NOTES.replacen("**Status:** active", "**Status:** abrogated", 1);
    let (_, report) = lint(ledgered().write(DECISIONS, &by_hand), &[], 1);
    assert_eq!(
        one(&report, "ledger-status").message,
        "the file says abrogated but the ledger says active: the status line was changed by hand"
    );
}

#[test]
fn status_links_must_lead_to_a_decision_in_force_without_a_cycle() {
    let notes = "### A\n**Date:** 2026-01-01\n**Status:** superseded by Nowhere\n### B\n**Date:** 2026-01-01\n**Status:** superseded by C\n### C\n**Date:** 2026-01-01\n**Status:** abrogated\n### D\n**Date:** 2026-01-01\n**Status:** superseded by E\n### E\n**Date:** 2026-01-01\n**Status:** superseded by D\n### F\n**Date:** 2026-01-01\n**Status:** superseded by G\n### G\n**Date:** 2026-01-01\n**Status:** superseded by H\n### H\n**Date:** 2026-01-01\n**Status:** active\n### Use numbers\n- Date: 2026-01-01\n- Status: superseded by [0007-use-slugs](0007-use-slugs.md)\n### Use Slugs\n- Date: 2026-01-02\n- Status: active\n";
    let (_, report) = lint(TestProject::new().write(DECISIONS, notes), &[], 1);
    let links: Vec<(Option<&str>, &str)> = of(&report, "status-link")
        .iter()
        .map(|f| (f.heading.as_deref(), f.message.as_str()))
        .collect();
    assert_eq!(
        links,
        [
            (
                Some("A"),
                "it is superseded by \"Nowhere\", which no decision is headed"
            ),
            (
                Some("D"),
                "its successors lead back to it: \"D\" → \"E\" → \"D\""
            ),
        ]
    );
    assert_eq!(report.counts.errors, 2);
}

#[test]
fn format_headings_and_links() {
    let decisions = "# Decisions\n\n### Same\n**Date:** 2026-01-01\n**Status:** active\n### Same\n**Date:** 2026-01-02\n**Status:** active\n### Undated\n**Status:** active\n### Loose date\n**Date:** 18/10/2026\n**Status:** active\n### 2026-02-30 — Impossible\n**Status:** TBD\nSee [[Undated]], [[lessons#2026-01-03 — Keep it]], [[lessons]], [[Nothing here]] and [[patterns#Gone|the gone one]].\n```\n### Fenced\n```\n";
    let lessons = "### 2026-01-03 — Keep it\nText.\n";
    let (_, report) = lint(
        TestProject::new()
            .write(DECISIONS, decisions)
            .write(".agents/memory/lessons.md", lessons),
        &[],
        1,
    );
    let seen: Vec<(&str, Option<usize>, &str, &str)> = report
        .findings
        .iter()
        .map(|f| {
            (
                f.check.as_str(),
                f.line,
                f.severity.as_str(),
                f.message.as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                "duplicate-heading",
                Some(6),
                "error",
                "\"Same\" heads 2 sections of this file; observe and the decision commands cannot target it"
            ),
            (
                "heading-in-code",
                Some(18),
                "warning",
                "\"### Fenced\" is inside fenced code but still starts a section for every reader"
            ),
            (
                "format",
                Some(9),
                "warning",
                "no date: neither the heading nor a Date line starts with YYYY-MM-DD"
            ),
            (
                "format",
                Some(11),
                "warning",
                "date \"18/10/2026\" is not an ISO date (YYYY-MM-DD)"
            ),
            (
                "format",
                Some(14),
                "warning",
                "date 2026-02-30 is not a day of the calendar"
            ),
            (
                "format",
                Some(18),
                "warning",
                "no date: neither the heading nor a Date line starts with YYYY-MM-DD"
            ),
            (
                "format",
                Some(14),
                "warning",
                "status \"TBD\" is not one of active, superseded, abrogated, rolled-back, proposed, rejected, deprecated"
            ),
            (
                "broken-link",
                Some(16),
                "warning",
                "[[Nothing here]] names no heading and no file of the memory"
            ),
            (
                "broken-link",
                Some(16),
                "warning",
                "[[patterns#Gone]] names no heading and no file of the memory"
            ),
        ]
    );
}

#[test]
fn a_damaged_ledger_line_is_a_warning_and_a_corrupt_receipt_store_an_error() {
    let project = ledgered().append(LEDGER, "not json\n");
    let (project, report) = lint(project, &[], 0);
    assert_eq!(
        one(&report, "format"),
        finding(
            LEDGER,
            Some(4),
            None,
            "format",
            "warning",
            "this line is not a ledger record: not a JSON object",
            Some("inspect the line; the ledger is append-only"),
        )
    );
    let (_, report) = lint(project.write(".bmad/memory/outcomes.ndjson", "{}"), &[], 1);
    assert_eq!(
        one(&report, "receipt-store").message,
        "Outcome store has an incomplete final record."
    );
}

/// A receipt bound to a decision stops counting once the decision is superseded: its text
/// changed, which is right, and lint says so as information (exit 0).
#[test]
fn a_receipt_on_a_superseded_decision_is_reported_stale() {
    let (project, _run) = project();
    let project = project
        .write(DECISIONS, NOTES)
        .args(["decision", "adopt", "--all"])
        .code(0)
        .run()
        .then();
    let input = json!({
        "runId": RUN_ID,
        "taskId": TASK,
        "memory": { "file": DECISIONS, "heading": "Use Postgres" },
        "scope": ["src/auth"],
        "interpretation": "The accepted login work relies on this decision.",
        "supersedes": [],
        "contradicts": [],
    });
    let (project, id) = observe(project, &input);
    let (project, report) = lint(project, &[], 0);
    assert!(of(&report, "receipt").is_empty(), "{report:#?}");
    let project = project
        .args([
            "decision",
            "supersede",
            "Use Postgres",
            "--by",
            "2026-10-01 — Sessions in Redis",
        ])
        .code(0)
        .run()
        .then();
    let (_, report) = lint(project, &[], 0);
    let receipt = one(&report, "receipt");
    assert_eq!(
        (
            receipt.severity.as_str(),
            receipt.heading.as_deref(),
            receipt.message.as_str()
        ),
        (
            "info",
            Some("Use Postgres"),
            format!("receipt {id} ({DECISIONS}): stale-memory-section").as_str()
        )
    );
}

/// `--full` adds proposals, all information: a run with nothing else to report exits 0. The
/// near-duplicates' figure was computed independently (Python, the recall tokenizer's rules):
/// 20 shared 3-shingles of 26 and 24, 20 / 30.
#[test]
fn full_proposes_merges_reviews_checks_and_summaries_and_never_fails() {
    let decisions = "# Decisions\n\n### 2026-06-01 — Keep the monolith\n**Status:** active\nOne deployable.\n\n### 2026-06-02 — Rate limit logins\n**Status:** active\nFive a minute.\n\n### 2026-10-01 — Cache product pages in Redis\n**Status:** active\nSixty seconds.\n\n### 2026-10-02 — Cache product pages in memory\n**Status:** active\nPer process.\n";
    let agents_lessons = "### 2026-10-01 — Retry with jitter\nRetry failed calls to the payment API with exponential backoff and full jitter, at most five times, then give up and alert. See aaaaaaaaaaaa.\n";
    let bmad_lessons = "### 2026-10-02 — Retries need jitter\nRetry failed calls to the payment API with exponential backoff and full jitter, at most five times, then give up and page.\n";
    let journal = "{\"ts\":\"2026-07-01T00:00:00.000Z\",\"agent\":\"a\",\"task\":\"tune Rate Limit Logins\",\"id\":\"aaaaaaaaaaaa\"}\n{\"ts\":\"2026-07-02T00:00:00.000Z\",\"agent\":\"a\",\"task\":\"other\",\"id\":\"bbbbbbbbbbbb\"}\n{\"ts\":\"2026-10-17T00:00:00.000Z\",\"agent\":\"a\",\"task\":\"recent\",\"id\":\"cccccccccccc\"}\n";
    let project = TestProject::new()
        .write(DECISIONS, decisions)
        .write(".agents/memory/lessons.md", agents_lessons)
        .write(".bmad/memory/lessons.md", bmad_lessons)
        .write(".bmad/memory/journal.ndjson", journal);
    let (project, quick) = lint(project, &[], 0);
    assert!(quick.findings.is_empty(), "{quick:#?}");
    let (project, report) = lint(project, &["--full"], 0);
    let seen: Vec<(&str, &str, Option<&str>, &str)> = report
        .findings
        .iter()
        .map(|f| {
            (
                f.check.as_str(),
                f.file.as_str(),
                f.heading.as_deref(),
                f.message.as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                "near-duplicate",
                ".agents/memory/lessons.md",
                Some("2026-10-01 — Retry with jitter"),
                "near-duplicate of .bmad/memory/lessons.md § 2026-10-02 — Retries need jitter (similarity 0.67 over word 3-shingles)"
            ),
            (
                "review",
                DECISIONS,
                Some("2026-06-01 — Keep the monolith"),
                "active for 139 days, and no journal event or receipt has mentioned it since 2026-06-01"
            ),
            (
                "contradiction",
                DECISIONS,
                Some("2026-10-02 — Cache product pages in memory"),
                "its title shares most of its words with .agents/memory/decisions.md § 2026-10-01 — Cache product pages in Redis, and both are active: check that they do not contradict each other"
            ),
            (
                "summarise",
                ".bmad/memory/journal.ndjson",
                None,
                "1 journal event(s) from 2026-07-02 to 2026-07-02 are older than 30 days and no note cites them"
            ),
        ]
    );
    assert!(report.findings.iter().all(|f| f.severity == "info"));
    // A journal near its cap is proposed for `archive`.
    let filler = "{}\n".repeat(640_000);
    let (_, report) = lint(
        project.write(".bmad/memory/journal.ndjson", filler),
        &["--full"],
        0,
    );
    assert_eq!(
        one(&report, "near-cap"),
        finding(
            ".bmad/memory/journal.ndjson",
            None,
            None,
            "near-cap",
            "info",
            "1920000 bytes of 2097152: every write is refused once it is full",
            Some("`bmad-mem archive journal` moves all but the newest 1000 records aside"),
        )
    );
}

/// Entries that all repeat one text are reported once each, as a near-duplicate of the first
/// (with how many others it resembles), never once per pair: 3,000 copies printed 9 million
/// lines.
#[test]
fn many_copies_of_one_entry_give_one_finding_each_not_one_per_pair() {
    let copies = 40;
    let mut lessons = String::new();
    for i in 0..copies {
        let _ = write!(
            lessons,
            "### 2026-10-01 — Copy {i}\nRetry failed calls to the payment API with exponential backoff and full jitter, at most five times.\n\n"
        );
    }
    let project = TestProject::new().write(".agents/memory/lessons.md", &lessons);
    let (_, report) = lint(project, &["--full"], 0);
    let found = of(&report, "near-duplicate");
    assert_eq!(found.len(), copies - 1, "{found:#?}");
    assert_eq!(
        found[0].message,
        "near-duplicate of .agents/memory/lessons.md § 2026-10-01 — Copy 0 (similarity 1.00 over word 3-shingles)"
    );
    assert_eq!(
        found[copies - 2].message,
        format!(
            "near-duplicate of .agents/memory/lessons.md § 2026-10-01 — Copy 0 (similarity 0.75 over word 3-shingles), and of {} other entries",
            copies - 2
        )
    );
}

/// A chain of 12,000 superseded decisions, each superseded by the next: every lint check is
/// linear in the entries (it took minutes when each decision walked the chain to its end).
#[test]
fn a_long_chain_of_superseded_decisions_is_checked_in_linear_time() {
    let n = 12_000;
    let mut notes = String::from("# Decisions\n\n");
    for i in 0..n {
        let status = if i + 1 < n {
            format!("superseded by Decision {}", i + 1)
        } else {
            "active".to_owned()
        };
        let _ = write!(
            notes,
            "### Decision {i}\n**Date:** 2026-01-01\n**Status:** {status}\n**Decision:** choice {i}.\n\n"
        );
    }
    let project = TestProject::new().write(DECISIONS, &notes);
    let started = std::time::Instant::now();
    let (project, report) = lint(project, &[], 0);
    let took = started.elapsed();
    assert!(report.findings.is_empty(), "{:?}", report.findings.first());
    // Generous for a debug build on a loaded machine; the quadratic walk needed minutes.
    assert!(took.as_secs() < 20, "lint took {took:?}");
    // A cycle at the end of it is one finding, at its first decision, shortened.
    let looped = notes.replacen(
        &format!(
            "### Decision {}\n**Date:** 2026-01-01\n**Status:** active",
            n - 1
        ),
        &format!(
            "### Decision {}\n**Date:** 2026-01-01\n**Status:** superseded by Decision 0",
            n - 1
        ),
        1,
    );
    let (_, report) = lint(project.write(DECISIONS, &looped), &[], 1);
    let links = of(&report, "status-link");
    assert_eq!(links.len(), 1);
    assert_eq!(links[0].heading.as_deref(), Some("Decision 0"));
    assert!(
        links[0]
            .message
            .ends_with("\"Decision 9\" → … (12000 decisions in all) → \"Decision 0\""),
        "{}",
        links[0].message
    );
}

/// An ADR folder imported whole: records cut in the middle of their code leave fences open.
const UNCLOSED: &str = "# Decisions\n\n### 2026-01-01 — Use AASM to manage state\n#### Status\n\nAccepted\n\n```ruby\nclass Case\n  include AASM\n\n[…]\n\n### 2026-01-02 — Use Flipper\n#### Status\n\nAccepted\n\n### 2026-01-03 — Use ClamAV\n#### Decision\n\n```ruby\nscan(file)\n```\n";

#[test]
fn a_fence_never_closed_is_reported_once_where_it_opens_and_the_headings_after_it_are_not() {
    let project = TestProject::new().write(DECISIONS, UNCLOSED);
    let (project, report) = lint(project, &[], 0);
    assert_eq!(
        report.findings,
        [finding(
            DECISIONS,
            Some(8),
            Some("2026-01-01 — Use AASM to manage state"),
            "unclosed-fence",
            "warning",
            "fence opened at line 8 in § 2026-01-01 — Use AASM to manage state is never closed",
            Some("close it with a line of the same fence (``` or ~~~) where its code ends"),
        )]
    );
    let _ = project
        .args(["lint"])
        .code(0)
        .stdout(&format!(
            "mem lint: 0 error(s), 1 warning(s), 0 info in 1 file(s) checked\n  warning {DECISIONS}:8 § 2026-01-01 — Use AASM to manage state [unclosed-fence] fence opened at line 8 in § 2026-01-01 — Use AASM to manage state is never closed\n          → close it with a line of the same fence (``` or ~~~) where its code ends\n"
        ))
        .stderr("")
        .unchanged()
        .run();
}

#[test]
fn ignore_silences_whole_checks_errors_included() {
    // A heading used twice (an error), dates missing (format warnings), a fence never closed.
    let notes = format!("{UNCLOSED}### Same\nx\n### Same\ny\n");
    let project = TestProject::new().write(DECISIONS, notes);
    let (project, report) = lint(project, &[], 1);
    let mut checks: Vec<&str> = report.findings.iter().map(|f| f.check.as_str()).collect();
    checks.dedup();
    assert_eq!(checks, ["duplicate-heading", "unclosed-fence", "format"]);
    let (project, report) = lint(
        project,
        &[
            "--ignore",
            "format,duplicate-heading",
            "--ignore",
            "unclosed-fence",
        ],
        0,
    );
    assert!(report.findings.is_empty(), "{report:?}");
    assert_eq!(
        report.ignored,
        ["duplicate-heading", "format", "unclosed-fence"]
    );
    assert!(report.warnings.is_empty());
    let _ = project
        .args(["lint", "--ignore", "format,unclosed-fence"])
        .code(1)
        .stdout(&format!(
            "mem lint: 1 error(s), 0 warning(s), 0 info in 1 file(s) checked; ignored: format, unclosed-fence\n  error   {DECISIONS}:27 § Same [duplicate-heading] \"Same\" heads 2 sections of this file; observe and the decision commands cannot target it\n          → give each section its own heading\n"
        ))
        .stderr("")
        .unchanged()
        .run()
        .then()
        .args(["lint", "--ignore", "format,duplicate-heading,unclosed-fence"])
        .code(0)
        .stdout("mem lint: no findings (1 file(s) checked; ignored: duplicate-heading, format, unclosed-fence)\n")
        .run();
}

#[test]
fn ignore_refuses_a_name_that_is_no_check() {
    let _ = TestProject::new()
        .write(DECISIONS, UNCLOSED)
        .args(["lint", "--ignore", "format,heading-in-codes"])
        .refused(
            "lint",
            "--ignore: \"heading-in-codes\" is no lint check; the checks are broken-link, conflict-markers, contradiction, decision-edited, decision-missing, duplicate-heading, format, heading-in-code, ledger, ledger-chain, ledger-status, near-cap, near-duplicate, receipt, receipt-store, review, status-conflict, status-link, summarise, unclosed-fence, view-drift",
        );
}

#[test]
fn the_config_silences_checks_for_the_project_and_warns_about_unknown_names() {
    let warning = "warning: .bmad/memory/config.json: lint.ignore names \"formatting\", which is no lint check; it is left out";
    let project = TestProject::new().write(DECISIONS, UNCLOSED).write(
        ".bmad/memory/config.json",
        "{\"lint\": {\"ignore\": [\"unclosed-fence\", \"formatting\"]}}\n",
    );
    let (project, report) = lint(project, &[], 0);
    let checks: Vec<&str> = report.findings.iter().map(|f| f.check.as_str()).collect();
    assert!(checks.is_empty(), "{checks:?}");
    assert_eq!(report.ignored, ["unclosed-fence"]);
    assert_eq!(report.warnings, [warning]);
    // The human form prints the warning on stderr; the flag adds to the config's list.
    let _ = project
        .args(["lint", "--ignore", "format"])
        .code(0)
        .stdout("mem lint: no findings (1 file(s) checked; ignored: format, unclosed-fence)\n")
        .stderr(&format!("{warning}\n"))
        .unchanged()
        .run()
        // A config that is no JSON is a warning too, and the defaults apply.
        .then()
        .write(".bmad/memory/config.json", "{lint")
        .args(["lint"])
        .code(0)
        .stdout(&format!(
            "mem lint: 0 error(s), 1 warning(s), 0 info in 1 file(s) checked\n  warning {DECISIONS}:8 § 2026-01-01 — Use AASM to manage state [unclosed-fence] fence opened at line 8 in § 2026-01-01 — Use AASM to manage state is never closed\n          → close it with a line of the same fence (``` or ~~~) where its code ends\n"
        ))
        .run();
}

#[test]
fn a_decision_stating_two_statuses_that_disagree_is_an_error() {
    let notes = "### 2026-01-01 — Use MADR\n- Status: accepted\n- Date: 2026-01-01\n\n## Status\n\n❌ Rejected\n\n### 2026-01-02 — Use slugs\n* Status: superseded\n\n#### Status\n\nSuperseded by [2026-01-03 — Use ids](0003-use-ids.md)\n\n### 2026-01-03 — Use ids\n#### Status\n\nAccepted\n";
    let (project, report) = lint(TestProject::new().write(DECISIONS, notes), &[], 1);
    assert_eq!(
        report.findings,
        [finding(
            DECISIONS,
            Some(7),
            Some("2026-01-01 — Use MADR"),
            "status-conflict",
            "error",
            "this decision states two statuses: active at line 2, rejected at line 7; every reader takes the first",
            Some("keep one status block, the one that is true"),
        )]
    );
    // Silenced, it no longer fails the run.
    let _ = lint(project, &["--ignore", "status-conflict"], 0);
}

#[test]
fn a_cycle_of_successors_is_named_whatever_the_layout() {
    let notes = "### 2026-01-01 — Use numbers\n## Status\n\nSuperseded by [2026-01-02 — Use slugs](0002-use-slugs.md)\n\n### 2026-01-02 — Use slugs\n#### Status: Superseded\n\nSuperseded by [2026-01-01 — Use numbers](0001-use-numbers.md)\n";
    let (_, report) = lint(TestProject::new().write(DECISIONS, notes), &[], 1);
    let links: Vec<(Option<usize>, &str)> = of(&report, "status-link")
        .iter()
        .map(|f| (f.line, f.message.as_str()))
        .collect();
    assert_eq!(
        links,
        [
            // A circle is reported once, at its first decision.
            (
                Some(1),
                "its successors lead back to it: \"2026-01-01 — Use numbers\" → \"2026-01-02 — Use slugs\" → \"2026-01-01 — Use numbers\""
            ),
        ]
    );
}

/// A decision under a `## Status` heading ledgered before the reader knew that layout was
/// digested as a whole text (its value line inside): lint takes that digest for its text too,
/// and still finds an edit to it.
#[test]
fn a_decision_ledgered_before_its_status_layout_was_read_is_not_taken_for_edited() {
    let notes =
        "### 2026-01-01 — Use Postgres\n## Status\n\nAccepted\n\n## Context\n\nOne database.\n";
    let whole = bmad_mem::js::json::sha256_hex(
        "2026-01-01 — Use Postgres\n## Status\n\nAccepted\n\n## Context\n\nOne database."
            .as_bytes(),
    );
    let ledger = format!(
        "{{\"ts\":\"{}\",\"id\":\"0123456789ab\",\"event\":\"adopt\",\"heading\":\"2026-01-01 — Use Postgres\",\"file\":\"{DECISIONS}\",\"status\":\"active\",\"sha256\":\"{whole}\",\"by\":null,\"reason\":null}}\n",
        crate::support::NOW
    );
    let project = TestProject::new()
        .write(DECISIONS, notes)
        .write(LEDGER, ledger);
    let (project, report) = lint(project, &[], 0);
    assert!(report.findings.is_empty(), "{report:#?}");
    let (_, report) = lint(
        project.write(DECISIONS, notes.replace("One database.", "Two databases.")),
        &[],
        1,
    );
    assert_eq!(of(&report, "decision-edited").len(), 1, "{report:#?}");
}

/// What a merge committed unresolved leaves, as git writes it (`diff3` style in one file).
const CONFLICTED_LESSONS: &str = "# Lessons\n\n### Keep\nkept\n\n<<<<<<< HEAD\n### A\nours\n||||||| base\n### A\nbase\n=======\n### A\ntheirs\n>>>>>>> other\n";

#[test]
fn conflict_markers_left_by_a_merge_are_errors_in_every_note_file_and_registry() {
    let candidate = ".bmad/memory/candidates/shop-lesson-20261018-a.md";
    let journal = "{\"ts\":\"2026-10-01T09:00:00.000Z\",\"id\":\"aaaaaaaaaaaa\"}\n<<<<<<< ours\n{\"ts\":\"2026-10-01T10:00:00.000Z\",\"id\":\"bbbbbbbbbbbb\",\"x\":1}\n=======\n{\"ts\":\"2026-10-01T10:00:00.000Z\",\"id\":\"bbbbbbbbbbbb\",\"x\":2}\n>>>>>>> theirs\n";
    let project = TestProject::new()
        .write(".agents/memory/lessons.md", CONFLICTED_LESSONS)
        .write(
            ".bmad/memory/refused.md",
            "# Refused\n\n<<<<<<< HEAD\n### a\n=======\n### b\n>>>>>>> other\n",
        )
        .write(
            candidate,
            "---\nid: x\n---\n<<<<<<< HEAD\n## Context\n=======\n## Content\n>>>>>>> other\n",
        )
        .write(crate::support::JOURNAL, journal)
        .write(
            crate::support::SCORES,
            "{\n<<<<<<< ours\n  \"a\": 1\n=======\n  \"a\": 2\n>>>>>>> theirs\n}\n",
        );
    let (project, report) = lint(project, &[], 1);
    let found: Vec<(&str, Option<usize>, &str, &str)> = of(&report, "conflict-markers")
        .iter()
        .map(|f| {
            (
                f.file.as_str(),
                f.line,
                f.severity.as_str(),
                f.message.as_str(),
            )
        })
        .collect();
    let message = |lines: &str| {
        format!(
            "merge conflict markers at line(s) {lines}: a merge was committed unresolved; keep the right version of each conflicting part and remove the markers"
        )
    };
    assert_eq!(
        found,
        [
            (
                ".agents/memory/lessons.md",
                Some(6),
                "error",
                message("6").as_str()
            ),
            (
                ".bmad/memory/refused.md",
                Some(3),
                "error",
                message("3").as_str()
            ),
            (candidate, Some(4), "error", message("4").as_str()),
            (
                crate::support::JOURNAL,
                Some(2),
                "error",
                message("2").as_str()
            ),
            (
                crate::support::SCORES,
                Some(2),
                "error",
                message("2").as_str()
            ),
        ]
    );
    // The human form names the file and the line, and exits 1.
    let project = project.args(["lint"]).code(1).unchanged().run().then();
    // Silenced on the command line or in the config, they no longer fail the run.
    let (project, report) = lint(
        project,
        &["--ignore", "conflict-markers,duplicate-heading"],
        0,
    );
    assert!(of(&report, "conflict-markers").is_empty());
    let _ = lint(
        project.write(
            ".bmad/memory/config.json",
            "{\"lint\": {\"ignore\": [\"conflict-markers\", \"duplicate-heading\"]}}\n",
        ),
        &[],
        0,
    );
}

#[test]
fn markdown_that_only_looks_like_conflict_markers_is_no_finding() {
    // A setext heading, a quoted reply, an opening without its separator and closing line,
    // and a marker indented as an example.
    let notes = "# Lessons\n\n### Setext\nTitle\n=======\n\n> >>>>>>> quoted\n\n### Half\n<<<<<<< HEAD\nnothing closes it\n\n### Example\n    <<<<<<< HEAD\n    =======\n    >>>>>>> other\n";
    let (_, report) = lint(
        TestProject::new().write(".agents/memory/lessons.md", notes),
        &[],
        0,
    );
    assert!(of(&report, "conflict-markers").is_empty(), "{report:#?}");
}
