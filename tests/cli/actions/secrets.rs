//! One secret check on every way in: each command that stores free text refuses a
//! secret-looking value in it — exit 1, the rule and the line named, never the value, the
//! `{"error":…}` form under `--json` — and leaves every file as it was, byte for byte (a project
//! without `.bmad/memory/` does not even get the folder). A project whose config says
//! `"secrets": {"check": false}` stores the text. The detector's own figures are in
//! `reliability::secrets`.

use serde_json::json;

use crate::actions::decisions::ledgered;
use crate::actions::entries::propose;
use crate::actions::observe::{self as observing, INPUT};
use crate::support::{JOURNAL, TestProject};

/// A GitHub-style token, assembled at run time so the source holds no literal credential.
fn token() -> String {
    format!(
        "ghp_{}",
        "q8Zr2Lk9Vx3Mw7PnB4cD6fG1hJ5kL0mN8pR2".get(..36).unwrap()
    )
}

/// What every refusal of [`token`] says after its part's name.
const GITHUB: &str = "line 1 looks like a GitHub personal access token (rule github-pat); secrets never enter the memory";

/// The project config that turns the check off.
const CHECK_OFF: &str = "{\"secrets\": {\"check\": false}}\n";
const CONFIG: &str = ".bmad/memory/config.json";

#[test]
fn write_refuses_a_secret_in_any_field_and_creates_nothing() {
    let secret = token();
    let mut project = TestProject::new();
    for option in ["--agent", "--cli", "--model", "--task"] {
        let mut args = vec!["write".to_owned()];
        if option != "--agent" {
            args.extend(["--agent".to_owned(), "forge".to_owned()]);
        }
        args.extend([option.to_owned(), format!("deploy with {secret}")]);
        project = project
            .args(&args)
            .refused("write", &format!("{option}: {GITHUB}"));
    }
    // The shapes the previous detector let through are refused too.
    let _ = project
        .args(["write", "--agent", "forge", "--task", "DB_PASS=hunter2-Winter-2026"])
        .refused(
            "write",
            "--task: line 1 looks like a password assigned a value (rule password-assignment); secrets never enter the memory",
        )
        .args([
            "write",
            "--agent",
            "forge",
            "--task",
            "rotate\nthe staging admin password is hunter2-Winter-2026",
        ])
        .refused(
            "write",
            "--task: line 2 looks like a password or a token written out in prose (rule prose-secret); secrets never enter the memory",
        );
}

#[test]
fn a_project_that_turns_the_check_off_stores_the_text() {
    let secret = token();
    let task = format!("deploy with {secret}");
    let ran = TestProject::new()
        .write(CONFIG, CHECK_OFF)
        .args(["write", "--agent", "forge", "--task", &task])
        .code(0)
        .stderr("")
        .run();
    let journal = ran.project.read_text(JOURNAL);
    assert!(journal.contains(&secret), "{journal}");
    // Other keys of the config leave the check on.
    let _ = TestProject::new()
        .write(
            CONFIG,
            "{\"secrets\": {\"check\": true}, \"ranking\": \"bm25\"}\n",
        )
        .args(["write", "--agent", "forge", "--task", &task])
        .refused("write", &format!("--task: {GITHUB}"));
}

#[test]
fn handoff_refuses_a_secret_in_its_topic_agent_or_input() {
    let secret = token();
    let input = format!("## What changed\nrotated keys\n\nnew key: {secret}\n");
    let project = TestProject::new()
        .write("notes.md", &input)
        .args(["handoff", "--topic", &format!("keys {secret}")])
        .refused("handoff", &format!("--topic: {GITHUB}"))
        .args(["handoff", "--topic", "keys", "--agent", &secret])
        .refused("handoff", &format!("--agent: {GITHUB}"))
        .args(["handoff", "--topic", "keys", "--from", "notes.md"])
        .refused(
            "handoff",
            "--from: line 4 looks like a GitHub personal access token (rule github-pat); secrets never enter the memory",
        );
    // The same handoff without the secret is written.
    let _ = project
        .write("notes.md", "## What changed\nrotated keys\n")
        .args(["handoff", "--topic", "keys", "--from", "notes.md"])
        .code(0)
        .run();
}

#[test]
fn decision_reasons_are_checked_before_anything_is_written() {
    let reason = format!("moved to {}", token());
    let _ = ledgered()
        .args([
            "decision",
            "supersede",
            "Use Postgres",
            "--by",
            "2026-10-01 — Sessions in Redis",
            "--reason",
            &reason,
        ])
        .refused("decision", &format!("--reason: {GITHUB}"))
        .args(["decision", "abrogate", "Use Postgres", "--reason", "password: hunter2-Winter-2026"])
        .refused(
            "decision",
            "--reason: line 1 looks like a password assigned a value (rule password-assignment); secrets never enter the memory",
        );
}

#[test]
fn admit_checks_by_and_the_refusal_reason() {
    let (project, proposed) = propose(TestProject::new(), "Flush the cache in setup", "Flush it.");
    let (id, sha) = (proposed.id, proposed.sha256);
    let by = format!("alice {}", token());
    let _ = project
        .args(["admit", &id, "--expect", &sha, "--by", &by])
        .refused("admit", &format!("--actor: {GITHUB}"))
        .args(["admit", "--refuse", &id, "--reason", "dup", "--by", &by])
        .refused("admit", &format!("--actor: {GITHUB}"))
        .args([
            "admit",
            "--refuse",
            &id,
            "--reason",
            "the staging admin password is hunter2-Winter-2026",
        ])
        .refused(
            "admit",
            "the reason: line 1 looks like a password or a token written out in prose (rule prose-secret); secrets never enter the memory",
        );
}

#[test]
fn propose_and_import_refuse_the_shapes_that_got_through_before() {
    let key = "Zq8rT2xLm9Vb4Kp";
    let project = TestProject::new()
        .args([
            "propose",
            "--type",
            "lesson",
            "--title",
            "Cache settings",
            "--body",
            &format!("REDIS_URL=redis://:{key}@cache:6379/0"),
        ])
        .refused(
            "propose",
            "the content: line 1 looks like a password inside a URL (rule url-credentials); secrets never enter the memory",
        )
        .args([
            "propose",
            "--type",
            "lesson",
            "--title",
            "Staging box",
            "--body",
            "Key:\n\n-----BEGIN OPENSSH PRIVATE KEY-----\n",
        ])
        .refused(
            "propose",
            "the content: line 3 looks like a private key block (rule private-key); secrets never enter the memory",
        )
        .args([
            "propose",
            "--type",
            "lesson",
            "--title",
            "Hidden token",
            "--body",
            &token().replacen('_', "\u{200B}_", 1),
        ])
        .refused(
            "propose",
            "the content: line 1 looks like a GitHub personal access token (rule github-pat); secrets never enter the memory",
        );
    // An imported item holding a secret is reported, never proposed.
    let ran = project
        .write(
            "memory.md",
            "# Memory\n\n- Flush the cache in setup\n- Staging: password: hunter2-Winter-2026\n",
        )
        .args(["import", "--from", "memory.md"])
        .code(0)
        .stdout("mem import: 1 candidate(s) proposed from 1 file(s); 0 duplicate(s) skipped; 1 refused\n  project-lesson-20261018-flush-the-cache-in-setup  lesson \"Flush the cache in setup\"\n  refused memory.md:4: the title: line 1 looks like a password assigned a value (rule password-assignment); secrets never enter the memory\n  a person reviews them with: bmad-mem admit --list\n")
        .run();
    assert!(
        !ran.project
            .read_text(".bmad/memory/CANDIDATES.md")
            .contains("hunter2")
    );
}

#[test]
fn observe_checks_the_interpretation_before_the_lock() {
    let (project, _run) = observing::project();
    let mut input = observing::valid_input();
    input["interpretation"] = json!(format!("Verified with {}", token()));
    let _ = project
        .write(INPUT, input.to_string())
        .args(["observe", "--input", INPUT])
        .refused("observe", &format!("interpretation: {GITHUB}"));
}

#[test]
fn init_checks_the_project_name() {
    let _ = TestProject::new()
        .args(["init", "--project-name", &format!("shop {}", token())])
        .refused("init", &format!("--project-name: {GITHUB}"));
}
