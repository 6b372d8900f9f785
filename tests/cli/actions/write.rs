//! `write` (docs §6): the exact bytes appended, both output forms, and every refusal leaving
//! the project byte-identical. Event ids were computed with Node:
//! `sha256(ts + "\0" + agent + "\0" + task).slice(0, 12)`.

use serde::Deserialize;

use crate::support::{JOURNAL, LOCK, NOW, TestProject};

/// The line of the issue's pinned example.
const PINNED: &str = r#"{"ts":"2026-10-18T09:30:00.000Z","agent":"forge","cli":null,"model":null,"task":"Add login rate limit","outcome":"success","signals":{"ci":"pass"},"artifactHashes":[],"id":"f60e78136297"}"#;

const PINNED_STDOUT: &str = "mem write: event f60e78136297 appended (2026-10-18T09:30:00.000Z)\n  \
                             agent=forge cli=- model=- outcome=success\n  \
                             task: Add login rate limit\n";

const LOCK_OCCUPIED: &str =
    "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock.";
const LINKS: &str = "Memory paths cannot follow symbolic links or junctions.";

/// The line `write --agent forge <signals>` appends at [`NOW`] (task "", id from Node).
fn forge_line(signals: &str) -> String {
    format!(
        r#"{{"ts":"2026-10-18T09:30:00.000Z","agent":"forge","cli":null,"model":null,"task":"","outcome":null,"signals":{signals},"artifactHashes":[],"id":"82df2109e479"}}"#
    )
}

/// The `--json` result, schema pinned.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    written: Event,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Event {
    ts: String,
    agent: String,
    cli: Option<String>,
    model: Option<String>,
    task: String,
    outcome: Option<String>,
    signals: serde_json::Map<String, serde_json::Value>,
    artifact_hashes: Vec<String>,
    id: String,
}

#[test]
fn pinned_example_appends_the_exact_line_and_says_so() {
    let ran = TestProject::new()
        .args([
            "write",
            "--agent",
            "forge",
            "--task",
            "Add login rate limit",
            "--outcome",
            "success",
            "--ci",
            "pass",
        ])
        .code(0)
        .stdout(PINNED_STDOUT)
        .stderr("")
        .file(JOURNAL, format!("{PINNED}\n"))
        .run();
    // The lock is released; nothing else is left behind.
    assert_eq!(ran.project.names(".bmad/memory"), ["journal.ndjson"]);
    assert_eq!(ran.project.names("."), [".bmad"]);
}

#[test]
fn appends_to_the_example_journal_after_its_last_line() {
    let project = TestProject::new().fixture("example");
    let old = project.read(JOURNAL);
    let mut expected = old.clone();
    expected.extend_from_slice(format!("{PINNED}\n").as_bytes());
    project
        .args([
            "write",
            "--agent",
            "forge",
            "--task",
            "Add login rate limit",
            "--outcome",
            "success",
            "--ci",
            "pass",
        ])
        .code(0)
        .stdout(PINNED_STDOUT)
        .file(JOURNAL, &expected)
        .run()
        .then()
        // A second call at the same instant appends the same line again: ids are reproducible.
        .args([
            "write",
            "--agent",
            "forge",
            "--task",
            "Add login rate limit",
            "--outcome",
            "success",
            "--ci",
            "pass",
        ])
        .code(0)
        .file(
            JOURNAL,
            [expected.as_slice(), PINNED.as_bytes(), b"\n"].concat(),
        )
        .run();
}

#[test]
fn human_output_without_a_task_has_two_lines() {
    TestProject::new()
        .args([
            "write",
            "--agent",
            "scout",
            "--cli",
            "gemini-cli",
            "--model",
            "gemini-2.5-pro",
        ])
        .code(0)
        .stdout(
            "mem write: event fd7c0d113be1 appended (2026-10-18T09:30:00.000Z)\n  \
             agent=scout cli=gemini-cli model=gemini-2.5-pro outcome=-\n",
        )
        .stderr("")
        .file(
            JOURNAL,
            r#"{"ts":"2026-10-18T09:30:00.000Z","agent":"scout","cli":"gemini-cli","model":"gemini-2.5-pro","task":"","outcome":null,"signals":{},"artifactHashes":[],"id":"fd7c0d113be1"}
"#,
        )
        .run();
}

#[test]
fn empty_optional_values_count_as_absent() {
    TestProject::new()
        .args([
            "write", "--agent", "forge", "--cli", "", "--model", "", "--task", "",
        ])
        .code(0)
        .stdout(
            "mem write: event 82df2109e479 appended (2026-10-18T09:30:00.000Z)\n  \
             agent=forge cli=- model=- outcome=-\n",
        )
        .file(JOURNAL, forge_line("{}") + "\n")
        .run();
}

#[test]
fn an_empty_outcome_is_refused_as_bmad_plus_refuses_it() {
    // bmad-plus checks `outcome !== undefined`, so `--outcome ""` is not "absent".
    let _ = TestProject::new()
        .args(["write", "--agent", "forge", "--outcome", ""])
        .refused(
            "write",
            "appendEvent: event.outcome must be one of success|failure|partial|abandoned",
        );
}

#[test]
fn json_output_is_the_written_event() {
    let expected = r#"{
  "written": {
    "ts": "2026-10-18T09:30:00.000Z",
    "agent": "atlas",
    "cli": "codex",
    "model": "gpt-5-codex",
    "task": "Ship the canary déploiement",
    "outcome": "partial",
    "signals": {
      "evalScore": 0.25,
      "acceptance": false,
      "ci": 0.5
    },
    "artifactHashes": [],
    "id": "2d8111aecde4"
  }
}
"#;
    let ran = TestProject::new()
        .args([
            "write",
            "--json",
            "--agent",
            "atlas",
            "--cli",
            "codex",
            "--model",
            "gpt-5-codex",
            "--task",
            "Ship the canary déploiement",
            "--outcome",
            "partial",
            "--ci",
            "0.5",
            "--accept",
            "no",
            "--eval",
            "0.25",
        ])
        .code(0)
        .stdout(expected)
        .stderr("")
        .file(
            JOURNAL,
            r#"{"ts":"2026-10-18T09:30:00.000Z","agent":"atlas","cli":"codex","model":"gpt-5-codex","task":"Ship the canary déploiement","outcome":"partial","signals":{"evalScore":0.25,"acceptance":false,"ci":0.5},"artifactHashes":[],"id":"2d8111aecde4"}
"#,
        )
        .run();
    let written: Written = ran.json();
    assert_eq!(written.written.id, "2d8111aecde4");
    assert_eq!(written.written.cli.as_deref(), Some("codex"));
    assert!(written.written.artifact_hashes.is_empty());
}

#[test]
fn every_outcome_is_stored_as_given() {
    for outcome in ["success", "failure", "partial", "abandoned"] {
        let ran = TestProject::new()
            .args(["write", "--json", "--agent", "forge", "--outcome", outcome])
            .code(0)
            .run();
        let written: Written = ran.json();
        assert_eq!(written.written.outcome.as_deref(), Some(outcome));
        assert_eq!(
            ran.project.read_text(JOURNAL),
            forge_line("{}").replace(r#""outcome":null"#, &format!(r#""outcome":"{outcome}""#))
                + "\n"
        );
    }
}

#[test]
fn signal_forms_are_stored_in_spec_order() {
    let cases: &[(&[&str], &str)] = &[
        (&["--accept", "yes"], r#"{"acceptance":true}"#),
        (&["--accept", "No"], r#"{"acceptance":false}"#),
        (&["--accept", "TRUE"], r#"{"acceptance":true}"#),
        (&["--accept", "false"], r#"{"acceptance":false}"#),
        (&["--accept", "0.4"], r#"{"acceptance":0.4}"#),
        (&["--accept", "1"], r#"{"acceptance":1}"#),
        (&["--ci", "pass"], r#"{"ci":"pass"}"#),
        (&["--ci", "fail"], r#"{"ci":"fail"}"#),
        (&["--ci", "0.3"], r#"{"ci":0.3}"#),
        (&["--ci", "0"], r#"{"ci":0}"#),
        (&["--eval", ".5"], r#"{"evalScore":0.5}"#),
        (&["--eval", "5e-1"], r#"{"evalScore":0.5}"#),
        (&["--eval", " 0.75 "], r#"{"evalScore":0.75}"#),
        (&["--eval", "+1"], r#"{"evalScore":1}"#),
        (&["--eval", "1."], r#"{"evalScore":1}"#),
        (&["--eval", "-0"], r#"{"evalScore":0}"#),
        (&["--eval", "0.1"], r#"{"evalScore":0.1}"#),
        (
            &["--ci", "pass", "--accept", "no", "--eval", "1"],
            r#"{"evalScore":1,"acceptance":false,"ci":"pass"}"#,
        ),
        (
            &["--ci", "0.2", "--eval", "0.9"],
            r#"{"evalScore":0.9,"ci":0.2}"#,
        ),
    ];
    for (signal_args, signals) in cases {
        TestProject::new()
            .args(
                ["write", "--agent", "forge"]
                    .iter()
                    .chain(signal_args.iter()),
            )
            .code(0)
            .stderr("")
            .file(JOURNAL, forge_line(signals) + "\n")
            .run();
    }
}

#[test]
fn human_task_line_is_truncated() {
    // Whitespace runs become one space.
    TestProject::new()
        .args(["write", "--agent", "forge", "--task", "a  b\n\tc"])
        .code(0)
        .stdout(
            "mem write: event 30ecfcff132a appended (2026-10-18T09:30:00.000Z)\n  \
             agent=forge cli=- model=- outcome=-\n  task: a b c\n",
        )
        .run();
    // 118 + 2 (🚀) + 2 UTF-16 units: the cut after 119 splits the rocket, whose lone high
    // surrogate is written as U+FFFD.
    let task = format!("{}🚀yz", "x".repeat(118));
    TestProject::new()
        .args(["write", "--agent", "forge", "--task", &task])
        .code(0)
        .stdout(&format!(
            "mem write: event e61b7f3aa91f appended (2026-10-18T09:30:00.000Z)\n  \
             agent=forge cli=- model=- outcome=-\n  task: {}\u{fffd}…\n",
            "x".repeat(118)
        ))
        .file(
            JOURNAL,
            forge_line("{}")
                .replace(r#""task":"""#, &format!(r#""task":"{task}""#))
                .replace("82df2109e479", "e61b7f3aa91f")
                + "\n",
        )
        .run();
}

#[test]
fn task_value_may_look_like_an_option() {
    TestProject::new()
        .args(["write", "--agent", "forge", "--task", "--json"])
        .code(0)
        .stdout(
            "mem write: event 124d021f755b appended (2026-10-18T09:30:00.000Z)\n  \
             agent=forge cli=- model=- outcome=-\n  task: --json\n",
        )
        .file(
            JOURNAL,
            forge_line("{}")
                .replace(r#""task":"""#, r#""task":"--json""#)
                .replace("82df2109e479", "124d021f755b")
                + "\n",
        )
        .run();
}

#[test]
fn equals_form_and_last_repeated_option_win() {
    for args in [
        vec![
            "write",
            "--agent=forge",
            "--task=Add login rate limit",
            "--outcome=success",
            "--ci=pass",
        ],
        vec![
            "write",
            "--agent",
            "atlas",
            "--task",
            "something else",
            "--ci",
            "fail",
            "--outcome=failure",
            "--agent=forge",
            "--task",
            "Add login rate limit",
            "--outcome",
            "success",
            "--ci",
            "pass",
        ],
    ] {
        TestProject::new()
            .args(args)
            .code(0)
            .stdout(PINNED_STDOUT)
            .file(JOURNAL, format!("{PINNED}\n"))
            .run();
    }
}

#[test]
fn invalid_input_is_refused_before_anything_is_created() {
    let cases: &[(&[&str], &str)] = &[
        (&["write"], "appendEvent: event.agent is required"),
        (
            &["write", "--task", "Add login rate limit"],
            "appendEvent: event.agent is required",
        ),
        (
            &["write", "--agent", ""],
            "appendEvent: event.agent is required",
        ),
        (
            &["write", "--agent="],
            "appendEvent: event.agent is required",
        ),
        (
            &["write", "--agent", "forge", "--outcome", "done"],
            "appendEvent: event.outcome must be one of success|failure|partial|abandoned",
        ),
        (
            &["write", "--agent", "forge", "--outcome", "Success"],
            "appendEvent: event.outcome must be one of success|failure|partial|abandoned",
        ),
        (
            &["write", "--agent", "forge", "--eval", "abc"],
            "invalid value for --eval: abc",
        ),
        (
            &["write", "--agent", "forge", "--eval", "1.5"],
            "invalid value for --eval: 1.5",
        ),
        (
            &["write", "--agent", "forge", "--eval", ""],
            "invalid value for --eval: ",
        ),
        (
            &["write", "--agent", "forge", "--eval", "0x1"],
            "invalid value for --eval: 0x1",
        ),
        (
            &["write", "--agent", "forge", "--eval", "Infinity"],
            "invalid value for --eval: Infinity",
        ),
        (
            &["write", "--agent", "forge", "--eval", "-0.1"],
            "invalid value for --eval: -0.1",
        ),
        (
            &["write", "--agent", "forge", "--ci", "maybe"],
            "invalid value for --ci: maybe",
        ),
        (
            &["write", "--agent", "forge", "--ci", "PASS"],
            "invalid value for --ci: PASS",
        ),
        (
            &["write", "--agent", "forge", "--accept", "2"],
            "invalid value for --accept: 2",
        ),
        (
            &["write", "--agent", "forge", "--accept", "maybe"],
            "invalid value for --accept: maybe",
        ),
        // The agent is checked first, then the outcome, then the signals.
        (
            &["write", "--outcome", "done", "--eval", "abc"],
            "appendEvent: event.agent is required",
        ),
        (
            &[
                "write",
                "--agent",
                "forge",
                "--eval",
                "abc",
                "--outcome",
                "done",
            ],
            "appendEvent: event.outcome must be one of success|failure|partial|abandoned",
        ),
    ];
    for (args, message) in cases {
        // In an empty project nothing is created (not even `.bmad/`) …
        let _ = TestProject::new().args(*args).refused("write", message);
        // … and in a full one nothing changes.
        let _ = TestProject::new()
            .fixture("example")
            .args(*args)
            .refused("write", message);
    }
}

#[test]
fn parser_errors_follow_the_failure_form() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["write", "--agent", "forge", "extra"],
            "unexpected argument 'extra' found",
        ),
        (
            &["write", "--agent", "forge", "--frob"],
            "unexpected argument '--frob' found",
        ),
        (
            &["write", "--agent", "forge", "--limit", "3"],
            "unexpected argument '--limit' found",
        ),
        (
            &["write", "--agent", "forge", "--pattern", "p"],
            "unexpected argument '--pattern' found",
        ),
        (
            &["write", "--agent"],
            "a value is required for '--agent <name>' but none was supplied",
        ),
    ];
    for (args, message) in cases {
        let _ = TestProject::new()
            .fixture("example")
            .args(*args)
            .refused("write", message);
    }
}

#[test]
fn a_missing_project_folder_is_refused_not_created() {
    let project = TestProject::new().current_dir("");
    let missing = project.base().join("missing");
    let message = format!(
        "Project directory does not exist or is not a directory: {}",
        missing.display()
    );
    let project = project
        .args(["-d", "missing", "write", "--agent", "forge"])
        .refused("write", &message)
        .write("a-file", "x")
        .args(["write", "-d", "project/a-file", "--agent", "forge"]);
    let file = project.path("a-file");
    let _ = project.refused(
        "write",
        &format!(
            "Project directory does not exist or is not a directory: {}",
            file.display()
        ),
    );
}

#[test]
fn a_torn_last_line_is_refused() {
    let _ = TestProject::new()
        .fixture("example")
        .append(JOURNAL, r#"{"ts":"2026-10-18T09:00:00.000Z","agent":"for"#)
        .args(["write", "--agent", "forge"])
        .refused(
            "write",
            "Memory store has an incomplete final line; inspect it before writing.",
        );
    // A write cut short inside a character is a torn line too, not an encoding fault: the
    // message sends the person to the repair that fixes it.
    let _ = TestProject::new()
        .fixture("example")
        .append(
            JOURNAL,
            b"{\"ts\":\"2026-10-18T09:00:00.000Z\",\"task\":\"caf\xc3",
        )
        .args(["write", "--agent", "forge"])
        .refused(
            "write",
            "Memory store has an incomplete final line; inspect it before writing.",
        );
    // A bad byte in a complete line is still the encoding fault, torn tail or not.
    let _ = TestProject::new()
        .write(JOURNAL, b"{\"task\":\"\xff\"}\n{\"task\":\"caf\xc3")
        .args(["write", "--agent", "forge"])
        .refused("write", "Memory source must contain valid UTF-8.");
}

#[test]
fn the_journal_cap_is_two_mebibytes_exactly() {
    const CAP: usize = 2 * 1024 * 1024;
    let line = forge_line("{}") + "\n";
    // Old text + new line = cap: accepted, and the journal is then exactly at the cap.
    let filler = |len: usize| format!("{}\n", "x".repeat(len - 1));
    let fits = filler(CAP - line.len());
    let _ = TestProject::new()
        .write(JOURNAL, &fits)
        .args(["write", "--agent", "forge"])
        .code(0)
        .file(JOURNAL, format!("{fits}{line}"))
        .run()
        .then()
        // Full: refused.
        .args(["write", "--agent", "forge"])
        .refused(
            "write",
            "Memory store is full; archive it explicitly before adding records.",
        );
    // One byte short of room: refused too.
    let _ = TestProject::new()
        .write(JOURNAL, filler(CAP - line.len() + 1))
        .args(["write", "--agent", "forge"])
        .refused(
            "write",
            "Memory store is full; archive it explicitly before adding records.",
        );
}

#[test]
fn a_journal_the_confined_reader_refuses_is_refused() {
    let not_regular = "Memory source must be a regular file of at most 2 MiB.";
    // Over the cap already.
    let _ = TestProject::new()
        .write(JOURNAL, "x".repeat(2 * 1024 * 1024 + 1))
        .args(["write", "--agent", "forge"])
        .refused("write", not_regular);
    // A folder in the journal's place.
    let _ = TestProject::new()
        .mkdir(JOURNAL)
        .args(["write", "--agent", "forge"])
        .refused("write", not_regular);
    // Not UTF-8 (recall would read it, replacing the bad byte).
    let _ = TestProject::new()
        .write(JOURNAL, b"{\"agent\":\"forge\"}\n\xff\n")
        .args(["write", "--agent", "forge"])
        .refused("write", "Memory source must contain valid UTF-8.")
        .args(["recall", "forge"])
        .code(0)
        .stdout(
            "mem recall: 1 match(es) for \"forge\" (scope: project)\n  \
             1. [1.000] event journal.ndjson#undefined\n     forge {}\n",
        )
        .unchanged()
        .run();
    // A file where a memory folder should be.
    let _ = TestProject::new()
        .write(".bmad", "")
        .args(["write", "--agent", "forge"])
        .refused("write", "Memory parent is not a directory.");
    let _ = TestProject::new()
        .write(".bmad/memory", "")
        .args(["write", "--agent", "forge"])
        .refused("write", "Memory parent is not a directory.");
}

#[test]
fn symbolic_links_on_the_journal_path_are_refused() {
    // `.bmad` is a link to a real folder inside the project.
    let _ = TestProject::new()
        .write("real-bmad/memory/journal.ndjson", format!("{PINNED}\n"))
        .symlink("real-bmad", ".bmad")
        .args(["write", "--agent", "forge"])
        .refused("write", LINKS);
    // `.bmad/memory` is a link.
    let _ = TestProject::new()
        .write("real-memory/journal.ndjson", format!("{PINNED}\n"))
        .mkdir(".bmad")
        .symlink("../real-memory", ".bmad/memory")
        .args(["write", "--agent", "forge"])
        .refused("write", LINKS);
    // The journal itself is a link, live or dangling.
    let _ = TestProject::new()
        .write("journal-real.ndjson", format!("{PINNED}\n"))
        .mkdir(".bmad/memory")
        .symlink("../../journal-real.ndjson", JOURNAL)
        .args(["write", "--agent", "forge"])
        .refused("write", LINKS);
    let _ = TestProject::new()
        .mkdir(".bmad/memory")
        .symlink("../../nowhere.ndjson", JOURNAL)
        .args(["write", "--agent", "forge"])
        .refused("write", LINKS);
}

#[test]
fn a_lock_held_by_another_writer_is_waited_for_then_left_alone() {
    // Runs twice (human and JSON), each waiting out the 200 × 10 ms budget.
    let foreign =
        r#"{"pid":4242,"hostname":"build-agent-7","token":"0c7f9a3e-1d2b-4c5d-8e9f-a0b1c2d3e4f5"}"#;
    let project = TestProject::new()
        .fixture("example")
        .write(LOCK, foreign)
        .args(["write", "--agent", "forge"])
        .refused("write", LOCK_OCCUPIED);
    assert_eq!(project.read(LOCK), foreign.as_bytes());
}

#[test]
fn garbage_lines_are_skipped_by_recall_and_write_appends_after_them() {
    let garbage = concat!(
        "{\"ts\":\"2026-10-17T08:00:00.000Z\",\"agent\":\"forge\",\"task\":\"zanzibar before\",\"id\":\"before\"}\n",
        "this is not json at all\n",
        "{\"ts\":\"2026-10-17T08:00:00.000Z\",\"agent\":\"forge\",\"task\":\"zanzibar torn\"\n",
        "null\n",
        "[\"zanzibar\",\"array\"]\n",
        "\"zanzibar string\"\n",
        "   \n",
        "\n",
        "{\"ts\":\"2026-10-17T08:00:00.000Z\",\"agent\":\"forge\",\"task\":\"zanzibar after\",\"id\":\"after\"}\n",
    );
    let project = TestProject::new()
        .fixture("example")
        .append(JOURNAL, garbage);
    let old = project.read(JOURNAL);
    let ran = project
        .args(["recall", "zanzibar", "--json"])
        .code(0)
        .unchanged()
        .run();
    let refs: Vec<String> = ran
        .json::<serde_json::Value>()
        .get("results")
        .and_then(serde_json::Value::as_array)
        .expect("results")
        .iter()
        .map(|r| r["ref"].as_str().expect("ref").to_owned())
        .collect();
    assert_eq!(refs, ["before", "after"]);
    ran.then()
        .args(["write", "--agent", "forge"])
        .code(0)
        .file(
            JOURNAL,
            [old, (forge_line("{}") + "\n").into_bytes()].concat(),
        )
        .run();
}

#[test]
fn clock_override_is_written_back_in_iso_form() {
    let ran = TestProject::new()
        .env("BMAD_MEM_NOW", "2026-10-18T09:30:00Z")
        .args(["write", "--agent", "forge", "--json"])
        .code(0)
        .run();
    assert_eq!(ran.json::<Written>().written.ts, NOW);
    ran.then()
        .env("BMAD_MEM_NOW", "2026-10-18T11:30:00+02:00")
        .args(["write", "--agent", "forge"])
        .code(0)
        .file(JOURNAL, (forge_line("{}") + "\n").repeat(2))
        .run();
}
