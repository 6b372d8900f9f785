//! `bmad-mem doctor` (issue 5): a read-only check of every registry and note file, and the one
//! explicit, lossless repair, `--repair-tail`.
//!
//! Every kind of problem is planted in the example project and must be reported — exit 1, in
//! both output forms — with every file left byte-identical. The repair must move exactly the
//! torn bytes aside and cut the registry after its last complete line; each of its refusals
//! changes nothing, not even by creating the memory folder.

use std::fmt::Write as _;
use std::process::Command;

use bmad_mem::js::json::sha256_hex;
use serde::Deserialize;

use crate::support::schema::{Problem, Report};
use crate::support::{JOURNAL, LOCK, PROMOTIONS, SCORES, TestProject};

const OUTCOMES: &str = ".bmad/memory/outcomes.ndjson";
const PATTERNS: &str = ".agents/memory/patterns.md";
const LESSONS: &str = ".bmad/memory/lessons.md";
const STAMP: &str = "2026-10-18T09-30-00-000Z";
const CAP: usize = 2 * 1024 * 1024;
const REGISTRIES: &str = "--repair-tail takes one of .bmad/memory/journal.ndjson, \
                          .bmad/memory/promotions.ndjson, .bmad/memory/outcomes.ndjson, \
                          .bmad/memory/decisions.ndjson, .bmad/records/reinforcements.ndjson";
const TORN: &str = r#"{"ts":"2026-10-18T09:00:00.000Z","agent":"for"#;

/// The files of the example project, in the order doctor checks them.
const EXAMPLE_FILES: [&str; 6] = [
    ".bmad/memory/journal.ndjson",
    ".bmad/memory/decisions.md",
    ".bmad/memory/lessons.md",
    ".agents/memory/decisions.md",
    ".agents/memory/lessons.md",
    ".agents/memory/patterns.md",
];

/// `doctor --repair-tail --json`, schema pinned.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Repair {
    repaired: String,
    kept_as: String,
    bytes: usize,
}

fn problem(file: &str, kind: &str, message: &str) -> Problem {
    Problem {
        file: file.to_owned(),
        kind: kind.to_owned(),
        message: message.to_owned(),
    }
}

/// Runs `doctor` in both forms on `project`: exit 1, the human list of `problems`, the same in
/// JSON with `checked` the files checked; nothing changed.
#[track_caller]
fn unhealthy(project: TestProject, checked: &[&str], problems: &[Problem]) -> TestProject {
    reported(project, checked, problems, &[])
}

/// Runs `doctor` in both forms on `project`: exit 1 when there are `problems`, 0 when there are
/// only `warnings`, both listed in the human form and in JSON with `checked` the files checked;
/// nothing changed.
#[track_caller]
fn reported(
    project: TestProject,
    checked: &[&str],
    problems: &[Problem],
    warnings: &[Problem],
) -> TestProject {
    let warned = format!("{} warning(s)", warnings.len());
    let mut human = match (problems.len(), warnings.is_empty()) {
        (0, _) => format!(
            "mem doctor: healthy, {warned} in {} file(s) checked\n",
            checked.len()
        ),
        (n, true) => format!(
            "mem doctor: {n} problem(s) in {} file(s) checked\n",
            checked.len()
        ),
        (n, false) => format!(
            "mem doctor: {n} problem(s) and {warned} in {} file(s) checked\n",
            checked.len()
        ),
    };
    for p in problems {
        let _ = writeln!(human, "  {} [{}]: {}", p.file, p.kind, p.message);
    }
    for p in warnings {
        let _ = writeln!(human, "  warning: {} [{}]: {}", p.file, p.kind, p.message);
    }
    let code = i32::from(!problems.is_empty());
    let ran = project
        .args(["doctor"])
        .code(code)
        .stdout(&human)
        .stderr("")
        .unchanged()
        .run()
        .then()
        .args(["doctor", "--json"])
        .code(code)
        .stderr("")
        .unchanged()
        .run();
    let report: Report = ran.json();
    assert_eq!(report.healthy, problems.is_empty());
    assert_eq!(report.checked, checked);
    assert_eq!(report.problems, problems);
    assert_eq!(report.warnings, warnings);
    ran.then()
}

/// The example's files plus `extra`, in doctor's order.
fn example_plus(extra: &[&'static str]) -> Vec<&'static str> {
    let mut files = vec![EXAMPLE_FILES[0]];
    files.extend_from_slice(extra);
    files.extend_from_slice(&EXAMPLE_FILES[1..]);
    files
}

#[test]
fn the_example_project_is_healthy() {
    let ran = TestProject::new()
        .fixture("example")
        .args(["doctor"])
        .code(0)
        .stdout("mem doctor: healthy (6 file(s) checked)\n")
        .stderr("")
        .unchanged()
        .run()
        .then()
        .args(["doctor", "--json"])
        .code(0)
        .stdout(
            "{\n  \"healthy\": true,\n  \"checked\": [\n    \".bmad/memory/journal.ndjson\",\n    \
             \".bmad/memory/decisions.md\",\n    \".bmad/memory/lessons.md\",\n    \
             \".agents/memory/decisions.md\",\n    \".agents/memory/lessons.md\",\n    \
             \".agents/memory/patterns.md\"\n  ],\n  \"problems\": []\n}\n",
        )
        .unchanged()
        .run();
    let report: Report = ran.json();
    assert!(report.healthy);
    // An empty project is healthy too, and doctor creates nothing.
    let _ = TestProject::new()
        .args(["doctor"])
        .code(0)
        .stdout("mem doctor: healthy (0 file(s) checked)\n")
        .unchanged()
        .run();
}

#[test]
fn a_torn_final_line_is_reported_with_its_byte_offset() {
    let project = TestProject::new().fixture("example");
    let offset = project.read(JOURNAL).len();
    let project = project.append(JOURNAL, TORN);
    let _ = unhealthy(
        project,
        &EXAMPLE_FILES,
        &[problem(
            JOURNAL,
            "torn-final-line",
            &format!(
                "incomplete final line at byte {offset} ({} bytes); `bmad-mem doctor \
                 --repair-tail .bmad/memory/journal.ndjson` keeps it aside",
                TORN.len()
            ),
        )],
    );
    // A tail cut in the middle of a character is still a torn line, not an unreadable file.
    let project = TestProject::new()
        .fixture("example")
        .append(JOURNAL, b"{\"task\":\"caf\xc3");
    let _ = unhealthy(
        project,
        &EXAMPLE_FILES,
        &[problem(
            JOURNAL,
            "torn-final-line",
            &format!(
                "incomplete final line at byte {offset} (13 bytes); `bmad-mem doctor \
                 --repair-tail .bmad/memory/journal.ndjson` keeps it aside"
            ),
        )],
    );
}

#[test]
fn unparseable_lines_are_reported_by_number() {
    let project = TestProject::new().write(
        JOURNAL,
        "{\"a\":1}\nnot json\n\n   \nnull\n[1]\n{\"b\":2}\n\"s\"\n{\"c\":\n",
    );
    let _ = unhealthy(
        project,
        &[JOURNAL],
        &[problem(
            JOURNAL,
            "unparseable-lines",
            "lines that are not JSON objects: 2, 5, 6, 8, 9",
        )],
    );
    // In every registry; with a torn tail too.
    let project = TestProject::new()
        .write(PROMOTIONS, "{}\nnope\n")
        .write(OUTCOMES, "{}\n[]\n{\"x\"");
    let _ = unhealthy(
        project,
        &[PROMOTIONS, OUTCOMES],
        &[
            problem(
                PROMOTIONS,
                "unparseable-lines",
                "lines that are not JSON objects: 2",
            ),
            problem(
                OUTCOMES,
                "torn-final-line",
                "incomplete final line at byte 6 (4 bytes); `bmad-mem doctor --repair-tail \
                 .bmad/memory/outcomes.ndjson` keeps it aside",
            ),
            problem(
                OUTCOMES,
                "unparseable-lines",
                "lines that are not JSON objects: 2",
            ),
        ],
    );
}

/// One complete line of `len` bytes, newline included.
fn line_of(len: usize) -> String {
    format!("{{\"x\":\"{}\"}}\n", "x".repeat(len - 9))
}

#[test]
fn a_registry_near_or_over_the_cap_is_reported() {
    // 90 % of 2 MiB is 1,887,436.8 bytes.
    let _ = TestProject::new()
        .write(JOURNAL, line_of(1_887_436))
        .args(["doctor"])
        .code(0)
        .stdout("mem doctor: healthy (1 file(s) checked)\n")
        .run();
    // Near the cap is a warning: the registry still takes writes, and doctor exits 0.
    let _ = reported(
        TestProject::new().write(JOURNAL, line_of(1_887_437)),
        &[JOURNAL],
        &[],
        &[problem(
            JOURNAL,
            "near-cap",
            "1887437 bytes of 2097152: archive it before it fills; `bmad-mem archive journal` \
             moves all but the newest 1000 records into .bmad/memory/archive/",
        )],
    );
    let _ = unhealthy(
        TestProject::new().write(PROMOTIONS, line_of(CAP)),
        &[PROMOTIONS],
        &[problem(
            PROMOTIONS,
            "at-cap",
            "2097152 bytes of 2097152: full, every write is refused; `bmad-mem archive \
             promotions` moves all but the newest 1000 records into .bmad/memory/archive/",
        )],
    );
    let over = "Memory source must be a regular file of at most 2 MiB.";
    let _ = unhealthy(
        TestProject::new().write(JOURNAL, line_of(CAP + 1)),
        &[JOURNAL],
        &[problem(JOURNAL, "unreadable-or-over-cap", over)],
    );
    // A folder where a registry should be.
    let _ = unhealthy(
        TestProject::new().mkdir(OUTCOMES),
        &[OUTCOMES],
        &[problem(OUTCOMES, "unreadable-or-over-cap", over)],
    );
}

#[test]
fn unreadable_registries_are_reported() {
    // Bytes that are not UTF-8 are located, line by line.
    let _ = unhealthy(
        TestProject::new().write(JOURNAL, b"{\"a\":\"\xff\"}\n"),
        &[JOURNAL],
        &[problem(
            JOURNAL,
            "invalid-utf8",
            "lines that are not valid UTF-8: line 1 at byte 6; `bmad-mem doctor \
             --repair-encoding .bmad/memory/journal.ndjson` moves them aside",
        )],
    );
    let _ = unhealthy(
        TestProject::new()
            .write("elsewhere.ndjson", "{}\n")
            .symlink("../../elsewhere.ndjson", JOURNAL),
        &[JOURNAL],
        &[problem(
            JOURNAL,
            "unreadable",
            "Memory paths cannot follow symbolic links or junctions.",
        )],
    );
}

#[test]
fn a_receipt_store_failing_its_integrity_check_is_reported() {
    let _ = unhealthy(
        TestProject::new().write(
            OUTCOMES,
            "{\"schemaVersion\":1,\"kind\":\"accepted-outcome\",\"id\":\"0\"}\n",
        ),
        &[OUTCOMES],
        &[problem(
            OUTCOMES,
            "receipt-integrity",
            "Outcome receipt integrity or uniqueness check failed.",
        )],
    );
}

#[test]
fn an_unusable_scores_document_is_reported() {
    let _ = unhealthy(
        TestProject::new().write(SCORES, "{"),
        &[SCORES],
        &[problem(
            SCORES,
            "unparseable",
            "invalid JSON: expected a string key at byte 1; reinforce would restart from priors",
        )],
    );
    for text in ["[]", "null", "\"scores\"", "7"] {
        let _ = unhealthy(
            TestProject::new().write(SCORES, text),
            &[SCORES],
            &[problem(
                SCORES,
                "not-an-object",
                "not a JSON object; reinforce would restart from priors",
            )],
        );
    }
}

#[test]
fn a_stale_foreign_or_unreadable_lock_is_reported_and_a_live_one_is_not() {
    let mut child = Command::new("true").spawn().expect("spawn true");
    child.wait().expect("wait for true");
    let host = gethostname::gethostname().to_string_lossy().into_owned();
    let dead = format!(
        r#"{{"pid":{},"hostname":"{host}","token":"t"}}"#,
        child.id()
    );
    let _ = unhealthy(
        TestProject::new().fixture("example").write(LOCK, &dead),
        &example_plus(&[LOCK]),
        &[problem(
            LOCK,
            "stale-lock",
            &format!(
                "owner is not running on this host; `bmad-mem lock --recover --expect {}` removes it",
                sha256_hex(dead.as_bytes())
            ),
        )],
    );
    for text in [
        "",
        "{\"pid\":",
        format!(r#"{{"pid":0,"hostname":"{host}"}}"#).as_str(),
    ] {
        let _ = unhealthy(
            TestProject::new().write(LOCK, text),
            &[LOCK],
            &[problem(
                LOCK,
                "unreadable-lock",
                "owner is unreadable; check that no writer runs before removing it",
            )],
        );
    }
    // One on another host cannot be checked from here: a problem, with the way out.
    let foreign = r#"{"pid":1,"hostname":"build-agent-7","token":"t"}"#;
    let _ = unhealthy(
        TestProject::new().write(LOCK, foreign),
        &[LOCK],
        &[problem(
            LOCK,
            "foreign-lock",
            &format!(
                "owner is on host build-agent-7, where it cannot be checked from here; if no \
                 writer runs there, `bmad-mem lock --recover --expect {} --other-host-is-gone` \
                 removes it",
                sha256_hex(foreign.as_bytes())
            ),
        )],
    );
    // A live writer (this process) is no problem.
    let live = format!(
        r#"{{"pid":{},"hostname":"{host}","token":"t"}}"#,
        std::process::id()
    );
    let _ = TestProject::new()
        .write(LOCK, &live)
        .args(["doctor"])
        .code(0)
        .stdout("mem doctor: healthy (1 file(s) checked)\n")
        .unchanged()
        .run();
}

#[test]
fn note_headings_observe_cannot_target_are_reported() {
    // The same heading twice (a CR ends a heading, so `### X\r` is `X` too), and a `###` line
    // inside fenced code, which still cuts a section.
    let project = TestProject::new()
        .fixture("example")
        .append(
            PATTERNS,
            "\n### Rate limit on auth routes\r\nAgain.\n\n### Retry budget\nOne.\n### Retry budget \nTwo.\n",
        )
        .append(LESSONS, "\n```sh\n### not a heading\n```\n\n~~~\n### nor this\n~~~\n");
    let lessons_lines = String::from_utf8(TestProject::new().fixture("example").read(LESSONS))
        .expect("UTF-8")
        .lines()
        .count();
    // The duplicate headings are problems; the headings in code, warnings.
    let _ = reported(
        project,
        &EXAMPLE_FILES,
        &[
            problem(
                PATTERNS,
                "duplicate-heading",
                "\"Rate limit on auth routes\" heads 2 sections; observe cannot target it",
            ),
            problem(
                PATTERNS,
                "duplicate-heading",
                "\"Retry budget\" heads 2 sections; observe cannot target it",
            ),
        ],
        &[
            problem(
                LESSONS,
                "heading-in-code",
                &format!(
                    "line {}: \"### not a heading\" is inside fenced code but still starts a section",
                    lessons_lines + 3
                ),
            ),
            problem(
                LESSONS,
                "heading-in-code",
                &format!(
                    "line {}: \"### nor this\" is inside fenced code but still starts a section",
                    lessons_lines + 7
                ),
            ),
        ],
    );
}

/// Records whose fence is never closed (an ADR folder imported whole, records trimmed in the
/// middle of their code): each fence is a warning, once, at the line that opens it, naming its
/// section; the headings after it are not reported as inside code; doctor exits 0.
#[test]
fn a_fence_never_closed_is_a_warning_named_once() {
    let decisions = "# Decisions\n\n### Use AASM to manage state\n#### Status\n\nAccepted\n\n```ruby\nclass Case\n  include AASM\n\n[…]\n\n### Use Flipper\n#### Status\n\nAccepted\n\n### Use ClamAV\n#### Decision\n\n```ruby\nscan(file)\n```\n\n### Use TinyMCE\n```\nnpm i tinymce\n\n[…]\n";
    let _ = reported(
        TestProject::new().write(".agents/memory/decisions.md", decisions),
        &[".agents/memory/decisions.md"],
        &[],
        &[
            problem(
                ".agents/memory/decisions.md",
                "unclosed-fence",
                "fence opened at line 8 in § Use AASM to manage state is never closed",
            ),
            problem(
                ".agents/memory/decisions.md",
                "unclosed-fence",
                "fence opened at line 27 in § Use TinyMCE is never closed",
            ),
        ],
    );
}

#[test]
fn every_problem_at_once_in_checking_order() {
    let project = TestProject::new()
        .fixture("example")
        .append(JOURNAL, TORN)
        .write(PROMOTIONS, "nope\n")
        .write(OUTCOMES, "{\"id\":1}\n")
        .write(SCORES, "[]")
        .write(LOCK, "")
        .append(PATTERNS, "### Rate limit on auth routes\n");
    let offset = TestProject::new().fixture("example").read(JOURNAL).len();
    let _ = unhealthy(
        project,
        &example_plus(&[PROMOTIONS, OUTCOMES, SCORES, LOCK]),
        &[
            problem(
                JOURNAL,
                "torn-final-line",
                &format!(
                    "incomplete final line at byte {offset} ({} bytes); `bmad-mem doctor \
                     --repair-tail .bmad/memory/journal.ndjson` keeps it aside",
                    TORN.len()
                ),
            ),
            problem(
                PROMOTIONS,
                "unparseable-lines",
                "lines that are not JSON objects: 1",
            ),
            problem(
                OUTCOMES,
                "receipt-integrity",
                "Outcome receipt integrity or uniqueness check failed.",
            ),
            problem(
                SCORES,
                "not-an-object",
                "not a JSON object; reinforce would restart from priors",
            ),
            problem(
                LOCK,
                "unreadable-lock",
                "owner is unreadable; check that no writer runs before removing it",
            ),
            problem(
                PATTERNS,
                "duplicate-heading",
                "\"Rate limit on auth routes\" heads 2 sections; observe cannot target it",
            ),
        ],
    );
}

#[test]
fn repair_tail_moves_exactly_the_torn_bytes_aside() {
    let project = TestProject::new().fixture("example");
    let journal = project.read(JOURNAL);
    let aside = format!("{JOURNAL}.torn-{STAMP}");
    let ran = project
        .append(JOURNAL, TORN)
        .args(["doctor", "--repair-tail", JOURNAL])
        .code(0)
        .stdout(&format!(
            "mem doctor: moved the {}-byte torn final line of {JOURNAL} into {aside}\n",
            TORN.len()
        ))
        .stderr("")
        .file(JOURNAL, &journal)
        .file(&aside, TORN)
        .absent(LOCK)
        .run();
    assert_eq!(
        ran.project.names(".bmad/memory"),
        [
            "decisions.md",
            "journal.ndjson",
            &format!("journal.ndjson.torn-{STAMP}"),
            "lessons.md"
        ]
    );
    // Healthy again, and writable.
    let _ = ran
        .then()
        .args(["doctor"])
        .code(0)
        .unchanged()
        .run()
        .then()
        .args(["write", "--agent", "forge"])
        .code(0)
        .run();
}

#[test]
fn repair_tail_json_and_every_registry() {
    for rel in [JOURNAL, PROMOTIONS, OUTCOMES] {
        let complete = "{\"a\":1}\n{\"b\":2}\n";
        let torn = b"{\"task\":\"caf\xc3";
        let ran = TestProject::new()
            .write(rel, [complete.as_bytes(), torn].concat())
            .args(["doctor", "--json", "--repair-tail", rel])
            .code(0)
            .stderr("")
            .file(rel, complete)
            .file(&format!("{rel}.torn-{STAMP}"), torn)
            .absent(LOCK)
            .run();
        assert_eq!(
            ran.json::<Repair>(),
            Repair {
                repaired: rel.to_owned(),
                kept_as: format!("{rel}.torn-{STAMP}"),
                bytes: torn.len(),
            }
        );
    }
    // A file that is nothing but a torn line is emptied, not removed.
    let _ = TestProject::new()
        .write(JOURNAL, TORN)
        .args(["doctor", "--repair-tail", JOURNAL])
        .code(0)
        .file(JOURNAL, "")
        .file(&format!("{JOURNAL}.torn-{STAMP}"), TORN)
        .run();
}

#[test]
fn a_second_repair_at_the_same_instant_keeps_both_tails() {
    let ran = TestProject::new()
        .write(JOURNAL, format!("{{}}\n{TORN}"))
        .args(["doctor", "--repair-tail", JOURNAL])
        .code(0)
        .run()
        .then()
        .append(JOURNAL, "second torn")
        .args(["doctor", "--repair-tail", JOURNAL, "--json"])
        .code(0)
        .file(JOURNAL, "{}\n")
        .file(&format!("{JOURNAL}.torn-{STAMP}"), TORN)
        .file(&format!("{JOURNAL}.torn-{STAMP}-1"), "second torn")
        .run();
    assert_eq!(
        ran.json::<Repair>().kept_as,
        format!("{JOURNAL}.torn-{STAMP}-1")
    );
}

/// `doctor <option> <file>` finding nothing to do: exit 0 in both forms, its reason on stdout,
/// nothing changed — not even the memory folder created.
pub(crate) fn nothing_to_repair(
    p: TestProject,
    option: &str,
    file: &str,
    message: &str,
) -> TestProject {
    let json = format!(
        "{}\n",
        serde_json::to_string_pretty(
            &serde_json::json!({ "nothingToRepair": file, "message": message })
        )
        .unwrap()
    );
    p.args(["doctor", option, file])
        .code(0)
        .stdout(&format!("mem doctor: {message}\n"))
        .stderr("")
        .unchanged()
        .run()
        .then()
        .args(["--json", "doctor", option, file])
        .code(0)
        .stdout(&json)
        .stderr("")
        .unchanged()
        .run()
        .then()
}

#[test]
fn repair_tail_with_nothing_torn_changes_nothing_and_succeeds() {
    // Nothing torn: a healthy file, an empty one, none at all (and no folder is created).
    let _ = nothing_to_repair(
        TestProject::new().fixture("example"),
        "--repair-tail",
        JOURNAL,
        ".bmad/memory/journal.ndjson has no incomplete final line; nothing to repair.",
    );
    let _ = nothing_to_repair(
        TestProject::new().write(PROMOTIONS, ""),
        "--repair-tail",
        PROMOTIONS,
        ".bmad/memory/promotions.ndjson has no incomplete final line; nothing to repair.",
    );
    let _ = nothing_to_repair(
        TestProject::new(),
        "--repair-tail",
        OUTCOMES,
        ".bmad/memory/outcomes.ndjson has no incomplete final line; nothing to repair.",
    );
}

#[test]
fn repair_tail_refusals_change_nothing() {
    // Only the three append-only registries, named exactly.
    for rel in [
        SCORES,
        LESSONS,
        "journal.ndjson",
        "./.bmad/memory/journal.ndjson",
        ".bmad/memory/../memory/journal.ndjson",
        "/etc/passwd",
        "../journal.ndjson",
        "",
    ] {
        let _ = TestProject::new()
            .fixture("example")
            .append(JOURNAL, TORN)
            .write(SCORES, "{")
            .args(["doctor", "--repair-tail", rel])
            .refused("doctor", REGISTRIES);
    }
    // A registry reached through a link, or one the confined reader refuses.
    let _ = TestProject::new()
        .write("elsewhere.ndjson", TORN)
        .symlink("../../elsewhere.ndjson", JOURNAL)
        .args(["doctor", "--repair-tail", JOURNAL])
        .refused(
            "doctor",
            "Memory paths cannot follow symbolic links or junctions.",
        );
    let _ = TestProject::new()
        .write("real/memory/journal.ndjson", TORN)
        .mkdir(".bmad")
        .symlink("../real/memory", ".bmad/memory")
        .args(["doctor", "--repair-tail", JOURNAL])
        .refused(
            "doctor",
            "Memory paths cannot follow symbolic links or junctions.",
        );
    let _ = TestProject::new()
        .write(JOURNAL, [TORN.as_bytes(), &vec![b'x'; CAP]].concat())
        .args(["doctor", "--repair-tail", JOURNAL])
        .refused(
            "doctor",
            "Memory source must be a regular file of at most 2 MiB.",
        );
}

#[test]
fn repair_tail_waits_for_the_writer_lock_and_never_takes_it() {
    let foreign = r#"{"pid":4242,"hostname":"build-agent-7","token":"t"}"#;
    let _ = TestProject::new()
        .write(JOURNAL, TORN)
        .write(LOCK, foreign)
        .args(["doctor", "--repair-tail", JOURNAL])
        .code(1)
        .stdout("")
        .stderr(
            "mem doctor: Memory writer lock is occupied. Inspect writer.lock and its owner; do \
             not remove a live lock.\n",
        )
        .unchanged()
        .run();
}

// ---- the reinforcement records ----------------------------------------------------------------

const RECORDS: &str = ".bmad/records/reinforcements.ndjson";

/// A project where `p` was reinforced at each of `times`, each update recorded.
fn reinforced(times: &[&str]) -> TestProject {
    let mut project = TestProject::new();
    for now in times {
        project = project
            .env("BMAD_MEM_NOW", now)
            .args(["reinforce", "--pattern", "p", "--accept", "true"])
            .code(0)
            .run()
            .then();
    }
    project
}

const T1: &str = "2026-10-18T09:30:00.000Z";
const T2: &str = "2026-10-19T09:30:00.000Z";
const RECORDS_AND_SCORES: [&str; 2] = [RECORDS, SCORES];

/// `doctor` finds nothing in a project of [`RECORDS_AND_SCORES`].
fn healthy_records(project: TestProject) -> TestProject {
    project
        .args(["doctor"])
        .code(0)
        .stdout("mem doctor: healthy (2 file(s) checked)\n")
        .unchanged()
        .run()
        .then()
}

#[test]
fn a_torn_record_and_an_unrecorded_update_are_named() {
    let project = healthy_records(reinforced(&[T1, T2]));
    let checked = RECORDS_AND_SCORES;
    let records = project.read_text(RECORDS);
    let scores = project.read_text(SCORES);
    let first = records.lines().next().unwrap().to_owned();

    // A torn last line: the repair is named, and works.
    let project = unhealthy(
        project.append(RECORDS, "{\"ts\":\"2026"),
        &checked,
        &[problem(
            RECORDS,
            "torn-final-line",
            &format!(
                "incomplete final line at byte {} (11 bytes); `bmad-mem doctor --repair-tail {RECORDS}` keeps it aside",
                records.len()
            ),
        )],
    );
    let project = project
        .args(["doctor", "--repair-tail", RECORDS])
        .code(0)
        .file(RECORDS, &records)
        .run()
        .then();

    // The second update without its record (bmad-plus wrote it): a warning, never a failure.
    let project = reported(
        project.write(RECORDS, format!("{first}\n")),
        &checked,
        &[],
        &[problem(
            SCORES,
            "scores-unrecorded",
            "the score of pattern \"p\" counts 2 update(s), its reinforcement records 1: the latest update(s) have no record (bmad-plus wrote them, the records were full, or a run was killed between the two writes); a merge of this pattern with a clone that also reinforced it will be a conflict until its next reinforcement is recorded",
        )],
    );
    // Nothing to rebuild there: the update has no record to rebuild it from.
    let _ = project
        .args(["doctor", "--rebuild-scores"])
        .code(0)
        .stdout(&format!(
            "mem doctor: every score in {SCORES} agrees with {RECORDS}; nothing was changed\n"
        ))
        .file(SCORES, &scores)
        .run();
}

#[test]
fn scores_the_records_disagree_with_are_rebuilt_from_them() {
    let project = reinforced(&[T1, T2]);
    let checked = RECORDS_AND_SCORES;
    let records = project.read_text(RECORDS);
    let scores = project.read_text(SCORES);
    let first: serde_json::Value = serde_json::from_str(records.lines().next().unwrap()).unwrap();
    // A score that lost the second update its records hold; a record of a pattern the scores
    // lack; a JSON line that is no record.
    let lost = format!(
        "{{\n  \"p\": {}\n}}\n",
        serde_json::to_string_pretty(&first["after"])
            .unwrap()
            .replace('\n', "\n  ")
    );
    let orphan = {
        let mut record = first.clone();
        record["pattern"] = "gone".into();
        record["id"] = "0123456789ab".into();
        record["ts"] = "2026-10-20T09:30:00.000Z".into();
        record.to_string()
    };
    let project = unhealthy(
        project
            .write(RECORDS, format!("{records}{orphan}\n{{\"note\":1}}\n"))
            .write(SCORES, lost),
        &checked,
        &[
            problem(
                RECORDS,
                "record-format",
                "lines that are not reinforcement records: 4 (no `ts` text)",
            ),
            problem(
                SCORES,
                "scores-behind",
                "the score of pattern \"p\" counts 1 update(s), its reinforcement records 2: updates were lost (a merge resolved by hand, an edit); `bmad-mem doctor --rebuild-scores` replays them",
            ),
            problem(
                SCORES,
                "scores-missing",
                "pattern \"gone\" has 1 reinforcement record(s) but no score in the scores file; `bmad-mem doctor --rebuild-scores` restores it from them",
            ),
        ],
    );
    // The rebuild refuses while a line is no record, then rebuilds both.
    let why = format!(
        "{RECORDS} has a line that is not a reinforcement record (line 4: no `ts` text); run `bmad-mem doctor` and repair it first. Nothing was changed."
    );
    let ran = project
        .args(["doctor", "--rebuild-scores"])
        .refused_as(&format!("mem doctor: {why}\n"), &why)
        .write(RECORDS, format!("{records}{orphan}\n"))
        .args(["doctor", "--rebuild-scores", "--json"])
        .code(0)
        .run();
    let report: serde_json::Value = ran.json();
    assert_eq!(
        report,
        serde_json::json!({"scores": SCORES, "rebuiltPatterns": ["p", "gone"]})
    );
    let project = ran.then();
    let rebuilt: serde_json::Value = serde_json::from_slice(&project.read(SCORES)).unwrap();
    let expected: serde_json::Value = serde_json::from_str(&scores).unwrap();
    assert_eq!(rebuilt["p"], expected["p"]);
    assert_eq!(rebuilt["gone"]["updates"], 1.0);
    assert_eq!(rebuilt["gone"]["lastTs"], "2026-10-20T09:30:00.000Z");
    healthy_records(project);
}
