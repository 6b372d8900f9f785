//! Governed entries on real material: titles compared without date, case, punctuation and
//! hyphens; near matches warned about; `admit --drop` and the first lines in `admit --list`;
//! `import` of a document organised by headings, with the reason when it finds nothing; note
//! files that are links, FIFOs or too large refused, never taken as absent; and a long import
//! interrupted by SIGINT or SIGTERM, which leaves no lock and consistent files.

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{LOCK, TestProject};

const LESSONS: &str = ".agents/memory/lessons.md";
const DECISIONS: &str = ".agents/memory/decisions.md";
const CANDIDATES: &str = ".bmad/memory/candidates";
const INDEX: &str = ".bmad/memory/INDEX.md";
const REFUSED: &str = ".bmad/memory/refused.md";

/// Proposes a candidate and returns the project and the `--json` report.
fn propose(project: TestProject, kind: &str, title: &str, body: &str) -> (TestProject, Value) {
    let ran = project
        .args([
            "--json", "propose", "--type", kind, "--title", title, "--body", body,
        ])
        .code(0)
        .run();
    let report: Value = ran.json();
    (ran.then(), report)
}

/// Admits a proposed candidate as `alice`.
fn admit(project: TestProject, proposed: &Value) -> (TestProject, Value) {
    let ran = project
        .args([
            "--json",
            "admit",
            proposed["id"].as_str().unwrap(),
            "--expect",
            proposed["sha256"].as_str().unwrap(),
            "--by",
            "alice",
        ])
        .code(0)
        .run();
    let report: Value = ran.json();
    (ran.then(), report)
}

/// Refuses a proposed candidate's topic.
fn refuse(project: TestProject, proposed: &Value) -> TestProject {
    let id = proposed["id"].as_str().unwrap();
    project
        .args(["admit", "--refuse", id, "--reason", "no"])
        .code(0)
        .run()
        .then()
}

/// The type and title of each candidate an `import --json` report proposed.
fn kinds_and_titles(report: &Value) -> Vec<(&str, &str)> {
    report["proposed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["type"].as_str().unwrap(), p["title"].as_str().unwrap()))
        .collect()
}

/// The refusal of a note file the entry commands cannot read as a regular file.
fn unreadable(file: &str, reason: &str) -> String {
    format!(
        "{file} {reason}; the entry commands read a note file only as a regular file of at most 64 MiB and never take it as absent (its entries would be proposed again and left out of the index): make it a regular file, or move it away"
    )
}

fn mkfifo(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

const BODY: &str = "Every integration test worker gets its own Postgres schema, created in setup and dropped in teardown, so fixtures never race.";

#[test]
fn a_title_is_the_same_without_date_case_punctuation_and_hyphens() {
    let (project, first) = propose(
        TestProject::new(),
        "lesson",
        "Send e-mails after the deploy",
        "x",
    );
    let (project, _) = admit(project, &first);
    // Proposed again as `emails`, dated, in capitals: the entry exists.
    let project = project
        .args(["propose", "--type", "lesson", "--title", "2026-10-19 — SEND EMAILS, after the deploy", "--body", "y"])
        .refused(
            "propose",
            &format!(
                "the topic `2026-10-19-send-emails-after-the-deploy` is already a lesson entry: \"2026-10-18 — Send e-mails after the deploy\" in {LESSONS}"
            ),
        );
    // A refused topic likewise, by its heading and by the title recorded under it.
    let (project, second) = propose(project, "decision", "Use the read-replica for reports", "z");
    let project = refuse(project, &second)
        .args(["propose", "--type", "pattern", "--title", "use the READ replica for reports", "--body", "w"])
        .refused(
            "propose",
            &format!(
                "the topic `use-the-read-replica-for-reports` was refused (see {REFUSED}); it is never proposed again"
            ),
        );
    // A candidate proposed before the entry existed is refused at admission.
    let (project, third) = propose(project, "lesson", "Rotate the deploy key", "a");
    let (project, fourth) = propose(project, "lesson", "Rotate the deploy-key!", "b");
    let (project, _) = admit(project, &third);
    let _ = project
        .args([
            "admit",
            fourth["id"].as_str().unwrap(),
            "--expect",
            fourth["sha256"].as_str().unwrap(),
        ])
        .refused(
            "admit",
            &format!(
                "the topic `rotate-the-deploy-key` is already a lesson entry: \"2026-10-18 — Rotate the deploy key\" in {LESSONS}"
            ),
        );
}

#[test]
fn near_matches_are_warnings_never_refusals() {
    let (project, first) = propose(
        TestProject::new(),
        "lesson",
        "One schema per test worker",
        BODY,
    );
    assert_eq!(first["warnings"], serde_json::json!([]));
    let (project, _) = admit(project, &first);
    // The same text under another title: lint's near-duplicate measure.
    let ran = project
        .args([
            "propose",
            "--type",
            "lesson",
            "--title",
            "Give each test worker a schema",
            "--body",
            BODY,
        ])
        .code(0)
        .run();
    assert_eq!(
        ran.stderr,
        format!(
            "warning: near-duplicate of {LESSONS} § 2026-10-18 — One schema per test worker (similarity 1.00 over word 3-shingles); admit it only if it says something that entry does not\n"
        )
    );
    assert!(
        ran.stdout.starts_with("mem propose: candidate "),
        "{}",
        ran.stdout
    );
    // A title sharing most of its words: lint's title measure, in the JSON too.
    let (project, near) = propose(
        ran.then(),
        "lesson",
        "Schema per test worker, always",
        "other text",
    );
    assert_eq!(
        near["warnings"],
        serde_json::json!([format!(
            "warning: its title shares most of its words with {LESSONS} § 2026-10-18 — One schema per test worker; check that it is not the same entry"
        )])
    );
    // A title close to a refused topic's.
    let (project, refused) = propose(project, "decision", "Cache sessions in Redis", "x");
    let project = refuse(project, &refused);
    let (project, close) = propose(project, "decision", "Cache the user sessions in Redis", "y");
    assert_eq!(
        close["warnings"],
        serde_json::json!([format!(
            "warning: its title shares most of its words with the refused topic `cache-sessions-in-redis` ({REFUSED}); check that it is not that topic"
        )])
    );
    // Admitting a near-duplicate warns as proposing it did, and admits it.
    let (_, admitted) = admit(project, &near);
    assert_eq!(admitted["warnings"], near["warnings"]);
    assert_eq!(
        admitted["heading"],
        "2026-10-18 — Schema per test worker, always"
    );
}

#[test]
fn drop_withdraws_a_candidate_without_refusing_its_topic() {
    let body = "line one\n\nline two\nline three\nline four is the last";
    let (project, proposed) = propose(TestProject::new(), "lesson", "Drop me", body);
    let id = proposed["id"].as_str().unwrap().to_owned();
    let sha = proposed["sha256"].as_str().unwrap().to_owned();
    let ran = project.args(["admit", "--list"]).code(0).run();
    assert!(
        ran.stdout.contains(&format!(
            "  {id}\n     lesson \"Drop me\" from unknown, 0m ago\n     | line one\n     | line two\n     | line three\n     | … 1 more line(s)\n     sha256 {sha}\n"
        )),
        "{}",
        ran.stdout
    );
    let project = ran
        .then()
        .args(["--json", "admit", "--drop", &id, "--by", "alice"])
        .code(0)
        .stdout(&format!(
            "{{\n  \"dropped\": \"{id}\",\n  \"topic\": \"drop-me\",\n  \"file\": \"{CANDIDATES}/{id}.md\",\n  \"sha256\": \"{sha}\",\n  \"by\": \"alice\"\n}}\n"
        ))
        .file(
            &format!("{CANDIDATES}/{id}.md"),
            format!(
                "dropped 2026-10-18T09:30:00.000Z by alice: {id} (sha256 {sha}), topic `drop-me` left open\n"
            ),
        )
        .absent(REFUSED)
        .absent(LOCK)
        .run()
        .then();
    assert!(
        project
            .read_text(".bmad/memory/CANDIDATES.md")
            .contains("No pending candidate.")
    );
    // Its topic stays open: the same title is proposed again, under the next id.
    let (project, again) = propose(project, "lesson", "Drop me", "back");
    assert_eq!(again["id"], format!("{id}-2"));
    // Bad input: nothing changes.
    let _ = project
        .args(["admit", "--drop", &id])
        .refused(
            "admit",
            &format!(
                "candidate {id} is no longer pending: dropped 2026-10-18T09:30:00.000Z by alice: {id} (sha256 {sha}), topic `drop-me` left open"
            ),
        )
        .args(["admit", "--drop", "no-such-candidate"])
        .refused(
            "admit",
            "no candidate no-such-candidate (see `bmad-mem admit --list`)",
        )
        .args(["admit", "--drop", "../x"])
        .refused(
            "admit",
            "`../x` is not a candidate id (lowercase letters, digits and -)",
        );
}

#[test]
fn import_takes_a_document_organised_by_headings() {
    let document = "# Team notes\n\nWhat we learned this quarter.\n\n## Decisions\n\n### **Use Postgres** for the ledger\n\nOne database for money and reports.\n\n### Ship behind _flags_\n\nFor a week, then remove the flag.\n\n## Flush the bucket in setup\n\nThe rate limit keys leak between tests.\n";
    let project = TestProject::new().write("notes/team.md", document);
    let ran = project
        .args(["--json", "import", "--from", "notes/team.md"])
        .code(0)
        .run();
    let report: Value = ran.json();
    assert_eq!(
        kinds_and_titles(&report),
        [
            ("decision", "Use Postgres for the ledger"),
            ("decision", "Ship behind flags"),
            ("lesson", "Flush the bucket in setup"),
        ]
    );
    assert_eq!(report["empty"], serde_json::json!([]));
    let project = ran.then();
    let candidate = project.read_text(&format!(
        "{CANDIDATES}/{}.md",
        report["proposed"][0]["id"].as_str().unwrap()
    ));
    assert!(
        candidate.contains("## Content\n\nOne database for money and reports.\n\n## Evidence"),
        "{candidate}"
    );
    // Zero candidates come with the reason; nothing is written.
    let _ = project
        .write("notes/title-only.md", "# Notes\n\n## Later\n")
        .write("notes/blank.md", "\n\n")
        .args(["import", "--from", "notes/title-only.md"])
        .code(0)
        .stdout("mem import: 0 candidate(s) proposed from 1 file(s); 0 duplicate(s) skipped; 0 refused\n  no item in notes/title-only.md: no list item starts a line (-, *, +, 1.) and no heading has text of its own under it; write one item per list item, or one section per item\n")
        .unchanged()
        .run()
        .then()
        .args(["--json", "import", "--from", "notes/blank.md"])
        .code(0)
        .stdout("{\n  \"read\": [\n    \"notes/blank.md\"\n  ],\n  \"proposed\": [],\n  \"duplicates\": 0,\n  \"refused\": [],\n  \"empty\": [\n    {\n      \"file\": \"notes/blank.md\",\n      \"reason\": \"the file is empty\"\n    }\n  ]\n}\n")
        .unchanged()
        .run();
}

#[test]
fn an_entry_takes_the_style_of_its_file() {
    // A file written in the fields style keeps it; the index shows the heading.
    let project = TestProject::new().write(
        DECISIONS,
        "# Decisions\n\n### Auth strategy\n**Date:** 2026-08-01\n**Status:** active\n**Decision:** sessions\n",
    );
    let (project, proposed) = propose(project, "decision", "Use Postgres", "One database.");
    let (project, admitted) = admit(project, &proposed);
    assert_eq!(admitted["heading"], "Use Postgres");
    let text = project.read_text(DECISIONS);
    assert!(
        text.contains("\n\n### Use Postgres\n**Date:** 2026-10-18\n**Status:** active\n**Context:** none given\n**Decision:** One database.\n"),
        "{text}"
    );
    // The template's file (as init writes it) takes the template's style.
    let project = project
        .args(["init"])
        .env("HOME", "/nonexistent-home")
        .env("BMAD_PLUS_BRAIN", "")
        .run()
        .then();
    let before = project.read_text(LESSONS);
    assert!(
        before.contains("- **Context**: the circumstances"),
        "{before}"
    );
    let (project, proposed) = propose(
        project,
        "lesson",
        "Flush the bucket",
        "In setup.\nNever in production.",
    );
    let _ = admit(project, &proposed);
}

/// Runs the project's command expecting exit 1 with `message`, and checks that `files` kept
/// their bytes and no candidate was written (for projects holding a FIFO, which a snapshot
/// cannot read).
fn refused_keeping(
    project: TestProject,
    action: &str,
    message: &str,
    files: &[&str],
) -> TestProject {
    let before: Vec<Option<Vec<u8>>> = files
        .iter()
        .map(|f| fs::read(project.path(f)).ok())
        .collect();
    let ran = project
        .code(1)
        .stdout("")
        .stderr(&format!("mem {action}: {message}\n"))
        .absent(LOCK)
        .run();
    let project = ran.then();
    for (file, bytes) in files.iter().zip(before) {
        assert_eq!(fs::read(project.path(file)).ok(), bytes, "{file} changed");
    }
    project
}

#[test]
fn note_files_that_are_links_fifos_or_too_large_are_refused_never_absent() {
    // decisions.md is a link to a file outside the project holding the same heading: the
    // duplicate was accepted through it, and the index rebuilt without its entry.
    let project = TestProject::new();
    let outside = project.base().join("shared-decisions.md");
    fs::write(&outside, "### Use Postgres\n**Status:** active\n").unwrap();
    let project = project
        .symlink(&outside, ".bmad/memory/decisions.md")
        .args([
            "propose",
            "--type",
            "decision",
            "--title",
            "Use Postgres",
            "--body",
            "x",
        ])
        .refused(
            "propose",
            &unreadable(
                ".bmad/memory/decisions.md",
                &format!(
                    "is a symbolic link to {}, outside the project",
                    outside.display()
                ),
            ),
        )
        .remove(".bmad/memory/decisions.md");
    // A link inside the project: the index follows it as recall does, the entry checks refuse.
    let (project, pending) = propose(project, "decision", "Use Postgres", "x");
    let project = project
        .write("docs/decisions.md", "### Use SQLite\n**Status:** active\n")
        .symlink("../../docs/decisions.md", ".bmad/memory/decisions.md")
        .args([
            "propose",
            "--type",
            "decision",
            "--title",
            "Use SQLite",
            "--body",
            "x",
        ])
        .refused(
            "propose",
            &unreadable(
                ".bmad/memory/decisions.md",
                "is a symbolic link, or lies behind one",
            ),
        )
        .args([
            "admit",
            pending["id"].as_str().unwrap(),
            "--expect",
            pending["sha256"].as_str().unwrap(),
        ])
        .refused(
            "admit",
            &unreadable(
                ".bmad/memory/decisions.md",
                "is a symbolic link, or lies behind one",
            ),
        )
        .remove(".bmad/memory/decisions.md");
    // Over the 64 MiB read limit (a sparse file).
    let big = project.path(LESSONS);
    fs::create_dir_all(big.parent().unwrap()).unwrap();
    fs::File::create(&big)
        .unwrap()
        .set_len(65 * 1024 * 1024)
        .unwrap();
    let project = project
        .args([
            "propose", "--type", "lesson", "--title", "A lesson", "--body", "x",
        ])
        .refused(
            "propose",
            &unreadable(LESSONS, "is 68157440 bytes, over the 64 MiB read limit"),
        )
        .remove(LESSONS);
    // A FIFO: refused by the entry checks, and the index is not rebuilt without it.
    mkfifo(&project.path(".bmad/memory/lessons.md"));
    let fifo = unreadable(
        ".bmad/memory/lessons.md",
        "is not a regular file (a FIFO, a device or a socket)",
    );
    let kept = [INDEX, ".bmad/memory/CANDIDATES.md", LESSONS];
    let project = project.args([
        "propose", "--type", "lesson", "--title", "A lesson", "--body", "x",
    ]);
    let project = refused_keeping(project, "propose", &fifo, &kept);
    let project = project.args(["doctor", "--rebuild-views"]);
    let project = refused_keeping(project, "doctor", &fifo, &kept);
    assert_eq!(project.names(CANDIDATES).len(), 1);
}

/// Starts an import of 3,000 items, sends `signal` once it has written candidates, and checks
/// that the process ended by that signal, its lock removed and its files consistent.
fn interrupted_import(signal: &str, number: i32) {
    let items: Vec<String> = (0..3000)
        .map(|i| format!("- Imported lesson number {i} about retries\n"))
        .collect();
    let document = format!("# Lessons\n\n{}", items.concat());
    let project = TestProject::new()
        .write("notes.md", &document)
        .args(["import", "--from", "notes.md"]);
    let mut child = project
        .command()
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn bmad-mem");
    let started = Instant::now();
    let written =
        |project: &TestProject| fs::read_dir(project.path(CANDIDATES)).map_or(0, Iterator::count);
    while written(&project) < 20 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no candidate written in a minute"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the import ended early"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let ended = child.wait_with_output().expect("wait for bmad-mem");
    assert_eq!(
        ended.status.signal(),
        Some(number),
        "{:?}\n{}",
        ended.status,
        String::from_utf8_lossy(&ended.stderr)
    );
    assert!(!project.path(LOCK).exists(), "the lock was left behind");
    let count = written(&project);
    assert!(
        count < 3000,
        "the import was not interrupted ({count} written)"
    );
    // Whole candidate files, no temporary file left, the views in step with them.
    let names = project.names(CANDIDATES);
    assert!(
        names
            .iter()
            .all(|n| Path::new(n).extension().is_some_and(|e| e == "md")),
        "{names:?}"
    );
    let ran = project.args(["--json", "doctor"]).code(0).run();
    let report: Value = ran.json();
    assert_eq!(report["healthy"], true, "{}", ran.stdout);
    let (_, listed) = {
        let ran = ran.then().args(["--json", "admit", "--list"]).code(0).run();
        let listed: Value = ran.json();
        (ran.then(), listed)
    };
    assert_eq!(listed["count"], count);
}

#[test]
fn sigint_during_a_long_import_leaves_no_lock_and_consistent_files() {
    interrupted_import("-INT", 2);
}

#[test]
fn sigterm_during_a_long_import_leaves_no_lock_and_consistent_files() {
    interrupted_import("-TERM", 15);
}
