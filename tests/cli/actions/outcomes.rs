//! `outcomes` (docs §9): the strict store reader and each receipt's status, re-checked against
//! today's files step by step (§9.2's "which is which"), in both output forms; and a corrupt
//! store making `outcomes`, `observe` and evidence recall fail with the §9.1 message while
//! changing nothing.
//!
//! Receipts are made by the real `observe` over real Nexus runs
//! ([`crate::support::nexus_run::NexusRun`]); a second and third run are copies of the demo run
//! under other ids, so a later receipt can come from another run's task over the same scope.

use std::fmt::Write as _;

use bmad_mem::js::json::{self, Object, Value};
use serde::Deserialize;
use serde_json::{Value as Json, json};

use crate::actions::observe::{
    EXACTLY_ONE, GOLDEN_WRITTEN, INPUT, LESSONS, LESSONS_TEXT, LINKS, NEXUS_BUSY, NOT_ACCEPTED,
    OTHER_RUN, OUTCOMES, PASSWORDS, Receipt, SCHEMA, SESSIONS, copy_run, golden, golden_line,
    input, observe, project, sha256, synthetic_store, valid_input,
};
use crate::support::TestProject;
use crate::support::nexus_run::{
    self, ARTIFACT, DEPENDENCY, DEPENDENCY_ARTIFACT, RECOVERY_LOCK, RESOURCE, RUN_ID, TASK,
    WRITER_LOCK,
};

const CURRENT: &str = "accepted-current";
const THIRD_RUN: &str = "third-run";

/// `outcomes --json`, schema pinned (each result is a receipt plus `eligible` and `reason`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Outcomes {
    count: usize,
    results: Vec<serde_json::Map<String, Json>>,
}

/// `unavailable-or-ineligible-source: <message>`.
fn unavailable(message: &str) -> String {
    format!("unavailable-or-ineligible-source: {message}")
}

/// Runs `outcomes` in both forms and checks each receipt's status, in store order (`status` is
/// `accepted-current` or the reason); nothing may change.
#[track_caller]
fn expect(project: TestProject, statuses: &[(&str, &str)]) -> TestProject {
    let mut human = String::new();
    for (id, status) in statuses {
        let _ = writeln!(human, "{id}: {status}");
    }
    if statuses.is_empty() {
        human.push_str("mem outcomes: no observations.\n");
    }
    let ran = project
        .args(["outcomes"])
        .code(0)
        .stdout(&human)
        .stderr("")
        .unchanged()
        .run()
        .then()
        .args(["outcomes", "--json"])
        .code(0)
        .stderr("")
        .unchanged()
        .run();
    let outcomes: Outcomes = ran.json();
    assert_eq!(outcomes.count, statuses.len());
    assert_eq!(outcomes.results.len(), statuses.len());
    for (mut result, (id, status)) in outcomes.results.into_iter().zip(statuses) {
        let eligible = result.remove("eligible").expect("eligible");
        let reason = result.remove("reason").expect("reason");
        let receipt: Receipt =
            serde_json::from_value(Json::Object(result)).expect("the rest is the receipt");
        assert_eq!(receipt.id, *id);
        if *status == CURRENT {
            assert_eq!((eligible, reason), (json!(true), Json::Null), "{id}");
        } else {
            assert_eq!((eligible, reason), (json!(false), json!(status)), "{id}");
        }
    }
    ran.then()
}

#[test]
fn no_store_means_no_observations() {
    let project = TestProject::new()
        .args(["outcomes"])
        .code(0)
        .stdout("mem outcomes: no observations.\n")
        .stderr("")
        .unchanged()
        .run()
        .then()
        .args(["outcomes", "--json"])
        .code(0)
        .stdout("{\n  \"count\": 0,\n  \"results\": []\n}\n")
        .stderr("")
        .unchanged()
        .run()
        .then();
    // An empty store, or one of empty lines only, holds no receipt either.
    let project = expect(project.write(OUTCOMES, ""), &[]);
    let _ = expect(project.write(OUTCOMES, "\n\n"), &[]);
}

#[test]
fn golden_receipt_is_listed_with_eligible_and_reason_last() {
    let (project, run, _) = golden();
    let root = run.root().to_string_lossy().into_owned();
    let (line, id) = golden_line(&root);
    // The receipt's own lines from `observe --json`, moved two levels in, then the two keys.
    let written = crate::actions::observe::golden_written(&root, &id);
    let lines: Vec<&str> = written.lines().collect();
    assert!(GOLDEN_WRITTEN.starts_with("{\n  \"written\": {\n"));
    let mut expected = String::from("{\n  \"count\": 1,\n  \"results\": [\n    {\n");
    for line in &lines[2..lines.len() - 2] {
        let _ = writeln!(expected, "  {line}");
    }
    expected.pop();
    expected.push_str(",\n      \"eligible\": true,\n      \"reason\": null\n    }\n  ]\n}\n");
    let _ = project
        .args(["observe", "--input", INPUT])
        .code(0)
        .file(OUTCOMES, &line)
        .run()
        .then()
        .args(["outcomes", "--json"])
        .code(0)
        .stdout(&expected)
        .stderr("")
        .unchanged()
        .run()
        .then()
        .args(["outcomes"])
        .code(0)
        .stdout(&format!("{id}: accepted-current\n"))
        .unchanged()
        .run();
}

#[test]
fn memory_changes_step_by_step() {
    let (project, run) = project();
    let (project, auth) = observe(project, &valid_input());
    let (project, schema) = observe(project, &input(RUN_ID, DEPENDENCY, SCHEMA, &["db"]));
    let project = expect(project, &[(&auth, CURRENT), (&schema, CURRENT)]);

    // The lesson's text is edited.
    let edited = LESSONS_TEXT.replace("in constant time.", "in constant time, always.");
    let project = expect(
        project.write(LESSONS, &edited),
        &[(&auth, "stale-memory-section"), (&schema, CURRENT)],
    );
    // A stale section is reported without consulting Nexus.
    let original = project.read(ARTIFACT);
    run.edit_artifact();
    let project = expect(
        project,
        &[(&auth, "stale-memory-section"), (&schema, CURRENT)],
    );
    let project = project.write(ARTIFACT, &original);
    // Text outside the section (another section, the preamble) does not matter.
    let project = expect(
        project.write(LESSONS, LESSONS_TEXT.replace("# Lessons", "# Our lessons")),
        &[(&auth, CURRENT), (&schema, CURRENT)],
    );
    // Nor do trailing blank lines or whitespace at the ends: the text is trimmed.
    let project = expect(
        project.write(
            LESSONS,
            LESSONS_TEXT.replace("constant time.\n", "constant time.  \n\n\n"),
        ),
        &[(&auth, CURRENT), (&schema, CURRENT)],
    );

    // The heading is deleted, then present twice.
    let without = LESSONS_TEXT.replace(&format!("### {PASSWORDS}\n"), "");
    let project = expect(
        project.write(LESSONS, &without),
        &[(&auth, &unavailable(EXACTLY_ONE)), (&schema, CURRENT)],
    );
    let twice = format!("{LESSONS_TEXT}\n### {PASSWORDS}\nAgain.\n");
    let project = expect(
        project.write(LESSONS, &twice),
        &[(&auth, &unavailable(EXACTLY_ONE)), (&schema, CURRENT)],
    );
    // The file is a link, then gone: the confined reader's messages, for every receipt on it.
    let project = project
        .remove(LESSONS)
        .write("notes/lessons.md", LESSONS_TEXT)
        .symlink("../../notes/lessons.md", LESSONS);
    let project = expect(
        project,
        &[(&auth, &unavailable(LINKS)), (&schema, &unavailable(LINKS))],
    );
    let project = project.remove(LESSONS);
    let enoent = format!(
        "ENOENT: no such file or directory, stat '{}'",
        project.path(LESSONS).display()
    );
    let project = expect(
        project,
        &[
            (&auth, &unavailable(&enoent)),
            (&schema, &unavailable(&enoent)),
        ],
    );
    // Restored: current again — nothing is cached between invocations.
    let _ = expect(
        project.write(LESSONS, LESSONS_TEXT),
        &[(&auth, CURRENT), (&schema, CURRENT)],
    );
}

#[test]
fn nexus_changes_step_by_step() {
    let (project, mut run) = project();
    let (project, auth) = observe(project, &valid_input());
    let (project, schema) = observe(project, &input(RUN_ID, DEPENDENCY, SCHEMA, &["db"]));
    let artifact = project.read(ARTIFACT);
    let dependency_artifact = project.read(DEPENDENCY_ARTIFACT);
    let resource = project.read(RESOURCE);
    let not_accepted = unavailable(NOT_ACCEPTED);

    // The accepted artifact is edited: only the task that wrote it.
    run.edit_artifact();
    let project = expect(project, &[(&auth, &not_accepted), (&schema, CURRENT)]);
    let project = expect(
        project.write(ARTIFACT, &artifact),
        &[(&auth, CURRENT), (&schema, CURRENT)],
    );
    // A file is added in the task's write scope.
    run.add_file_in_scope();
    let project = expect(project, &[(&auth, &not_accepted), (&schema, CURRENT)]);
    let project = expect(
        project.remove("src/auth/extra.js"),
        &[(&auth, CURRENT), (&schema, CURRENT)],
    );
    // The dependency's artifact is edited: its receipt, and the receipt on the task depending
    // on it.
    run.edit_dependency_artifact();
    let project = expect(project, &[(&auth, &not_accepted), (&schema, &not_accepted)]);
    let project = project.write(DEPENDENCY_ARTIFACT, &dependency_artifact);
    // A protected resource is edited: both tasks' checks run it.
    run.edit_resource();
    let project = expect(project, &[(&auth, &not_accepted), (&schema, &not_accepted)]);
    let project = expect(
        project.write(RESOURCE, &resource),
        &[(&auth, CURRENT), (&schema, CURRENT)],
    );
    // The verifier executable changes after the plan was created: both tasks' checks run it.
    run.change_verifier();
    let project = expect(project, &[(&auth, &not_accepted), (&schema, &not_accepted)]);
    let project = project.write(nexus_run::VERIFIER, "#!/bin/sh\nexec /bin/sh \"$@\"\n");
    // A Nexus lock: every receipt of the run waits for its owner.
    let busy = unavailable(NEXUS_BUSY);
    let mut project = project;
    for lock in [WRITER_LOCK, RECOVERY_LOCK] {
        run.lock(lock);
        project = expect(project, &[(&auth, &busy), (&schema, &busy)])
            .remove(&format!(".bmad-plus/nexus/{lock}"));
    }
    let project = expect(project, &[(&auth, CURRENT), (&schema, CURRENT)]);
    // The task is re-run and accepted again: the stored source is no longer Nexus's.
    run.rerun_and_accept();
    let project = expect(
        project,
        &[(&auth, "stale-outcome-source"), (&schema, CURRENT)],
    );
    // The new attempt may be observed; the old receipt stays stale.
    let (project, again) = observe(project, &valid_input());
    let _ = expect(
        project,
        &[
            (&auth, "stale-outcome-source"),
            (&schema, CURRENT),
            (&again, CURRENT),
        ],
    );
}

/// A change to the run or its files, as a test case.
type Change = fn(&mut crate::support::nexus_run::NexusRun);

#[test]
fn every_nexus_state_gives_its_status() {
    const NOT_BOUND: &str = "Nexus acceptance does not bind the current attempt and artifacts.";
    const FOREIGN: &str = "Nexus: Corrupt or foreign run state; original bytes were preserved.";
    const PLAN: &str = "Nexus: Run plan integrity mismatch.";
    const LIFECYCLE: &str = "Nexus: Invalid attempt lifecycle record.";
    let not_accepted = unavailable(NOT_ACCEPTED);
    let cases: &[(&str, Change, String, String)] = &[
        ("untouched", |_| {}, CURRENT.into(), CURRENT.into()),
        (
            "verification failed",
            |r| r.fail_verification(),
            not_accepted.clone(),
            CURRENT.into(),
        ),
        (
            "dependency pending",
            |r| r.dependency_pending(),
            not_accepted.clone(),
            not_accepted.clone(),
        ),
        (
            "attempt not the one accepted",
            |r| r.add_unaccepted_attempt(),
            unavailable(NOT_BOUND),
            CURRENT.into(),
        ),
        (
            "nonportable file in scope",
            |r| r.add_nonportable_file(),
            not_accepted.clone(),
            CURRENT.into(),
        ),
        (
            "link in scope",
            |r| r.add_symlink_in_scope(),
            not_accepted.clone(),
            CURRENT.into(),
        ),
        (
            "dependency cycle",
            |r| r.add_cycle(),
            not_accepted.clone(),
            not_accepted.clone(),
        ),
        (
            "project verifier, unchanged",
            |r| r.use_project_verifier(),
            CURRENT.into(),
            CURRENT.into(),
        ),
        (
            "run file tampered",
            |r| r.tamper_envelope(),
            unavailable(FOREIGN),
            unavailable(FOREIGN),
        ),
        (
            "foreign project",
            |r| r.foreign_project(),
            unavailable(FOREIGN),
            unavailable(FOREIGN),
        ),
        (
            "plan edited",
            |r| r.break_plan_integrity(),
            unavailable(PLAN),
            unavailable(PLAN),
        ),
        (
            "no cancellation record",
            |r| r.remove_cancellation(),
            unavailable(LIFECYCLE),
            unavailable(LIFECYCLE),
        ),
        (
            "re-run and re-accepted",
            |r| r.rerun_and_accept(),
            "stale-outcome-source".into(),
            CURRENT.into(),
        ),
    ];
    for (what, change, auth_status, schema_status) in cases {
        eprintln!("case: {what}");
        let (project, mut run) = project();
        let (project, auth) = observe(project, &valid_input());
        let (project, schema) = observe(project, &input(RUN_ID, DEPENDENCY, SCHEMA, &["db"]));
        change(&mut run);
        let _ = expect(project, &[(&auth, auth_status), (&schema, schema_status)]);
    }
    // The run file is gone.
    let (project, run) = project();
    let (project, auth) = observe(project, &valid_input());
    let enoent = unavailable(&format!(
        "ENOENT: no such file or directory, stat '{}'",
        run.run_path().display()
    ));
    let _ = expect(project.remove(nexus_run::RUN_FILE), &[(&auth, &enoent)]);
}

#[test]
fn a_later_receipt_from_another_run_supersedes_an_earlier_one() {
    let (project, run) = project();
    copy_run(&run, OTHER_RUN);
    let (project, first) = observe(project, &valid_input());
    let mut later = input(OTHER_RUN, TASK, PASSWORDS, &["src/auth/login.js"]);
    later["supersedes"] = json!([first]);
    let (project, second) = observe(project, &later);
    let project = expect(project, &[(&first, "superseded"), (&second, CURRENT)]);
    // Superseded is decided first: whatever else happens to the old receipt's sources.
    run.edit_artifact();
    let project = expect(
        project,
        &[
            (&first, "superseded"),
            (&second, &unavailable(NOT_ACCEPTED)),
        ],
    );
    let _ = expect(
        project.write(
            LESSONS,
            LESSONS_TEXT.replace("constant time", "linear time"),
        ),
        &[(&first, "superseded"), (&second, "stale-memory-section")],
    );
}

#[test]
fn contradicting_receipts_and_every_receipt_on_their_sections_are_contradictory() {
    let (project, run) = project();
    copy_run(&run, OTHER_RUN);
    copy_run(&run, THIRD_RUN);
    let (project, passwords) = observe(project, &valid_input());
    let mut contradiction = input(OTHER_RUN, TASK, SESSIONS, &["src/auth/session.js"]);
    contradiction["contradicts"] = json!([passwords]);
    let (project, sessions) = observe(project, &contradiction);
    // Another receipt on the first section (no relation of its own), one on an unrelated one.
    let (project, same_section) = observe(project, &input(RUN_ID, DEPENDENCY, PASSWORDS, &["db"]));
    let (project, unrelated) = observe(project, &input(OTHER_RUN, DEPENDENCY, SCHEMA, &["db"]));
    let project = expect(
        project,
        &[
            (&passwords, "contradictory"),
            (&sessions, "contradictory"),
            (&same_section, "contradictory"),
            (&unrelated, CURRENT),
        ],
    );
    // Contradictory is decided before the section is re-read.
    let edited = LESSONS_TEXT.replace("renew on activity", "renew on every request");
    let project = expect(
        project.write(LESSONS, &edited),
        &[
            (&passwords, "contradictory"),
            (&sessions, "contradictory"),
            (&same_section, "contradictory"),
            (&unrelated, CURRENT),
        ],
    )
    .write(LESSONS, LESSONS_TEXT);
    // Once the contradicting receipt is superseded, the contradiction no longer counts.
    let mut replacement = input(THIRD_RUN, TASK, SESSIONS, &["src"]);
    replacement["supersedes"] = json!([sessions]);
    let (project, third) = observe(project, &replacement);
    let _ = expect(
        project,
        &[
            (&passwords, CURRENT),
            (&sessions, "superseded"),
            (&same_section, CURRENT),
            (&unrelated, CURRENT),
            (&third, CURRENT),
        ],
    );
}

#[test]
fn a_thousand_receipts_are_listed() {
    let (project, _run) = project();
    let (project, id) = observe(
        project.write(OUTCOMES, synthetic_store(999)),
        &valid_input(),
    );
    let ran = project
        .args(["outcomes"])
        .code(0)
        .stderr("")
        .unchanged()
        .run();
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(lines.len(), 1000);
    // The synthetic receipts' recorded section text is not today's.
    assert!(
        lines[..999]
            .iter()
            .all(|l| l.ends_with(": stale-memory-section"))
    );
    assert_eq!(lines[999], format!("{id}: accepted-current"));
}

// ---- a corrupt store ----------------------------------------------------------------------

const INCOMPLETE: &str = "Outcome store has an incomplete final record.";
const INTEGRITY: &str = "Outcome receipt integrity or uniqueness check failed.";
const EARLIER: &str = "Outcome relationships must identify earlier receipts.";
const ATTEMPT: &str = "Duplicate or missing outcome attempt identity.";
const EXCEEDS: &str = "Outcome store exceeds 1000 records.";

/// `line` (a stored receipt) with `edit` applied to its body and its id recomputed, so that
/// only what `edit` breaks is broken.
fn resealed(line: &str, edit: impl FnOnce(&mut Object)) -> String {
    let Value::Object(mut body) = json::parse(line).expect("a receipt") else {
        panic!("not an object");
    };
    body.remove("id");
    edit(&mut body);
    let body = Value::Object(body).compact();
    format!("{{\"id\":\"{}\",{}", sha256(&body), &body[1..])
}

/// Every action that reads the store refuses with `message` and changes nothing.
#[track_caller]
fn corrupt(project: TestProject, store: &[u8], message: &str) -> TestProject {
    project
        .write(OUTCOMES, store)
        .args(["outcomes"])
        .refused("outcomes", message)
        .args(["observe", "--input", INPUT])
        .refused("observe", message)
        .args([
            "recall",
            "password",
            "hashes",
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
        ])
        .refused("recall", message)
}

#[test]
#[expect(clippy::too_many_lines, reason = "a table of cases")]
fn a_corrupt_store_is_an_error_for_every_reader_and_is_never_reset() {
    let (project, run) = project();
    copy_run(&run, OTHER_RUN);
    let (project, first) = observe(project, &valid_input());
    let mut later = input(OTHER_RUN, TASK, SESSIONS, &["src/auth/session.js"]);
    later["supersedes"] = json!([first]);
    let (project, _) = observe(project, &later);
    let store = project.read_text(OUTCOMES);
    let lines: Vec<&str> = store.lines().collect();
    let (one, two) = (lines[0], lines[1]);
    let torn = &store[..store.len() - 40];
    let edited = one.replace("hashed comparison", "plain comparison");
    // The next observation: a third run's task, so only the store can be wrong.
    let project = project.write(
        INPUT,
        input(RUN_ID, DEPENDENCY, SCHEMA, &["db"]).to_string(),
    );
    let cases: Vec<(&str, String, &str)> = vec![
        ("no final newline", store.trim_end().to_owned(), INCOMPLETE),
        ("torn last line", torn.to_owned(), INCOMPLETE),
        (
            "torn, then a blank line missing",
            format!("{one}\n\n{{"),
            INCOMPLETE,
        ),
        ("edited receipt", format!("{edited}\n{two}\n"), INTEGRITY),
        (
            "the same receipt twice",
            format!("{one}\n{one}\n"),
            INTEGRITY,
        ),
        (
            "relation to a later receipt",
            format!("{two}\n{one}\n"),
            EARLIER,
        ),
        (
            "relation to an unknown receipt",
            format!(
                "{}\n",
                resealed(one, |b| b
                    .insert("contradicts", vec![Value::from("f".repeat(64))]))
            ),
            EARLIER,
        ),
        (
            "relations not a list",
            format!("{}\n", resealed(one, |b| b.insert("supersedes", "none"))),
            EARLIER,
        ),
        (
            "relations missing",
            format!(
                "{}\n",
                resealed(one, |b| {
                    b.remove("contradicts");
                })
            ),
            EARLIER,
        ),
        (
            "duplicate attempt identity",
            format!(
                "{one}\n{}\n",
                resealed(one, |b| b.insert("ts", "2026-10-19T00:00:00.000Z"))
            ),
            ATTEMPT,
        ),
        (
            "missing attempt identity",
            format!(
                "{}\n",
                resealed(one, |b| {
                    let Some(Value::Object(mut source)) = b.get("source").cloned() else {
                        panic!()
                    };
                    source.remove("attemptId");
                    b.insert("source", source);
                })
            ),
            ATTEMPT,
        ),
        (
            "empty attempt identity",
            format!(
                "{}\n",
                resealed(one, |b| {
                    let Some(Value::Object(source)) = b.get("source").cloned() else {
                        panic!()
                    };
                    b.insert("source", source.with("attemptId", ""));
                })
            ),
            ATTEMPT,
        ),
        (
            "schemaVersion 2",
            format!("{}\n", resealed(one, |b| b.insert("schemaVersion", 2.0))),
            INTEGRITY,
        ),
        (
            "schemaVersion \"1\"",
            format!("{}\n", resealed(one, |b| b.insert("schemaVersion", "1"))),
            INTEGRITY,
        ),
        (
            "another kind",
            format!("{}\n", resealed(one, |b| b.insert("kind", "outcome"))),
            INTEGRITY,
        ),
        (
            "no id",
            format!("{}\n", one.replacen(&format!("\"id\":\"{first}\","), "", 1)),
            INTEGRITY,
        ),
        (
            "an uppercase id",
            format!("{}\n", one.replacen(&first, &first.to_uppercase(), 1)),
            INTEGRITY,
        ),
        ("a null record", format!("{one}\nnull\n"), INTEGRITY),
        ("an array record", format!("[]\n{one}\n"), INTEGRITY),
        ("1001 records", synthetic_store(1001), EXCEEDS),
        // The count is checked before any record.
        ("1001 empty objects", "{}\n".repeat(1001), EXCEEDS),
        (
            "an unparseable line",
            format!("{one}\n{{oops\n{two}\n"),
            "Outcome store line 2 is not valid JSON: invalid JSON: expected a string key at byte 1",
        ),
        (
            "a whitespace-only line",
            format!("{one}\n  \n{two}\n"),
            "Outcome store line 2 is not valid JSON: invalid JSON: unexpected end of input at byte 2",
        ),
    ];
    let mut project = project;
    for (what, store, message) in &cases {
        eprintln!("case: {what}");
        project = corrupt(project, store.as_bytes(), message);
    }
    // The store is read with the confined reader.
    let project = corrupt(
        project,
        b"{\"id\":\"\xff\"}\n",
        "Memory source must contain valid UTF-8.",
    );
    let project = corrupt(
        project,
        &[store.as_bytes(), &vec![b'\n'; 2 * 1024 * 1024]].concat(),
        "Memory source must be a regular file of at most 2 MiB.",
    );
    let project = project
        .remove(OUTCOMES)
        .mkdir(OUTCOMES)
        .args(["outcomes"])
        .refused(
            "outcomes",
            "Memory source must be a regular file of at most 2 MiB.",
        )
        .remove(OUTCOMES)
        .write("elsewhere/outcomes.ndjson", &store)
        .symlink("../../elsewhere/outcomes.ndjson", OUTCOMES);
    let project = project
        .args(["outcomes"])
        .refused("outcomes", LINKS)
        .args(["observe", "--input", INPUT])
        .refused("observe", LINKS);
    // Blank lines are not corruption.
    let _ = expect(
        project
            .remove(OUTCOMES)
            .write(OUTCOMES, format!("\n{one}\n\n{two}\n\n")),
        &[(&first, "superseded"), (&lines_id(two), CURRENT)],
    );
}

/// The id of a stored receipt line.
fn lines_id(line: &str) -> String {
    serde_json::from_str::<Receipt>(line).expect("a receipt").id
}

#[test]
fn a_store_with_crlf_line_ends_reads_as_javascript_reads_it() {
    // Split on "\n", then `JSON.parse` skips the trailing "\r" as whitespace.
    let (project, _run) = project();
    let (project, id) = observe(project, &valid_input());
    let store = project.read_text(OUTCOMES).replace('\n', "\r\n");
    let _ = expect(project.write(OUTCOMES, store), &[(&id, CURRENT)]);
}
