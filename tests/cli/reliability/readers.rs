//! The loose readers (recall's journal and notes, `brief`, `status`, `scan`'s marker files, the
//! scores file) cannot be made to hang or to read without end: a FIFO, a device, a file over
//! 64 MiB or a link leaving the project is skipped with a warning that names it, and every
//! reading command — `doctor` included — follows the same rule.
//!
//! A FIFO would hang a reader that opens it blocking, so those runs go through [`run`], which
//! kills the binary after a generous timeout: a regression fails instead of hanging the suite.
//! (The builder's snapshot reads every file, a FIFO too, so these tests never ask for one.)

use std::fs;
use std::io::Read;
use std::os::unix::fs::FileTypeExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::support::{JOURNAL, SCORES, TestProject};

const NOTES: &str = ".agents/memory/lessons.md";
const DECISIONS: &str = ".bmad/memory/decisions.md";
/// The reader's limit, in bytes.
const CAP: u64 = 64 * 1024 * 1024;

/// One run of the binary, killed if it has not ended after 60 s (a hang, not slowness: every
/// run here takes milliseconds).
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(p: &TestProject) -> Run {
    run_command(p.command())
}

fn run_command(mut command: Command) -> Run {
    let args: Vec<std::ffi::OsString> = command.get_args().map(Into::into).collect();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run bmad-mem");
    // The pipes are drained on their own threads so a chatty child never blocks on a full pipe.
    let stdout = drain(child.stdout.take().expect("stdout pipe"));
    let stderr = drain(child.stderr.take().expect("stderr pipe"));
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for bmad-mem") {
            break status;
        }
        if Instant::now() >= deadline {
            child.kill().expect("kill bmad-mem");
            break child.wait().expect("wait for bmad-mem");
        }
        thread::sleep(Duration::from_millis(10));
    };
    let run = Run {
        code: status.code(),
        stdout: String::from_utf8(stdout.join().expect("stdout reader")).expect("UTF-8 stdout"),
        stderr: String::from_utf8(stderr.join().expect("stderr reader")).expect("UTF-8 stderr"),
    };
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    if let Some(code) = run.code {
        crate::support::validate::check_output(&args, code, &run.stdout);
    }
    run
}

/// Reads a pipe to its end on a thread of its own.
fn drain(mut pipe: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        pipe.read_to_end(&mut bytes)
            .expect("read a pipe of bmad-mem");
        bytes
    })
}

/// A run that must succeed; returns it.
#[track_caller]
fn success(p: &TestProject) -> Run {
    let run = run(p);
    assert_eq!(
        run.code,
        Some(0),
        "exit (None: killed after the timeout)\n--- stdout\n{}--- stderr\n{}",
        run.stdout,
        run.stderr
    );
    run
}

fn mkfifo(path: &Path) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    let _ = fs::remove_file(path);
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// A project whose runs see an empty temporary home (for `brief` and `status`).
fn with_home(p: TestProject) -> TestProject {
    let home = p.base().join("home");
    fs::create_dir_all(&home).unwrap();
    p.env("HOME", &home).env("BMAD_PLUS_BRAIN", "")
}

/// `text` (a pretty JSON object) with `"warnings": [lines]` added as its last key.
fn with_warnings(text: &str, lines: &[&str]) -> String {
    let body = text.strip_suffix("\n}\n").expect("a pretty JSON object");
    let items: Vec<String> = lines
        .iter()
        .map(|l| format!("    {}", serde_json::to_string(l).unwrap()))
        .collect();
    format!(
        "{body},\n  \"warnings\": [\n{}\n  ]\n}}\n",
        items.join(",\n")
    )
}

#[test]
fn a_fifo_journal_is_skipped_by_recall_with_a_warning_and_json_keeps_its_bytes() {
    let warning = "warning: .bmad/memory/journal.ndjson skipped: not a regular file";
    // What recall answers with no journal at all ...
    let p = TestProject::new()
        .fixture("example")
        .remove(JOURNAL)
        .args(["recall", "auth", "strategy", "--json"]);
    let without = success(&p);
    assert!(!without.stdout.contains("warnings"), "{}", without.stdout);
    assert_eq!(without.stderr, "");
    // ... is what it answers with a FIFO in its place, plus the warning as the last key.
    mkfifo(&p.path(JOURNAL));
    let json = success(&p);
    assert_eq!(json.stdout, with_warnings(&without.stdout, &[warning]));
    assert_eq!(json.stderr, "");
    let p = p.args(["recall", "auth", "strategy"]);
    let human = success(&p);
    assert!(
        human.stdout.starts_with("mem recall: 3 match(es)"),
        "{}",
        human.stdout
    );
    assert_eq!(human.stderr, format!("{warning}\n"));
}

#[test]
fn an_ordinary_recall_has_no_warnings_key() {
    let p = TestProject::new()
        .fixture("example")
        .args(["recall", "auth", "strategy", "--json"]);
    let run = success(&p);
    assert!(run.stdout.contains("\"count\": 4"), "{}", run.stdout);
    assert!(!run.stdout.contains("warnings"), "{}", run.stdout);
    assert_eq!(run.stderr, "");
}

#[test]
fn brief_returns_past_fifos_with_warnings() {
    let p = with_home(TestProject::new().fixture("example")).args(["brief"]);
    mkfifo(&p.path(JOURNAL));
    mkfifo(&p.path(NOTES));
    let run = success(&p);
    assert!(run.stdout.starts_with("# Session brief"), "{}", run.stdout);
    // The decisions are still there; the lessons FIFO is named.
    assert!(run.stdout.contains("Auth strategy"), "{}", run.stdout);
    assert!(
        run.stderr
            .contains("warning: .agents/memory/lessons.md skipped: not a regular file\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("warning: .bmad/memory/journal.ndjson skipped: "),
        "{}",
        run.stderr
    );
}

#[test]
fn scan_returns_past_a_fifo_package_json_with_a_warning() {
    let p = TestProject::new().write("code/web/README.md", "x");
    mkfifo(&p.path("code/web/package.json"));
    let p = p.args(["scan", "code"]);
    let run = success(&p);
    assert!(
        run.stdout.starts_with("mem scan: 1 project(s)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Node.js"), "{}", run.stdout);
    let fifo = p.path("code/web/package.json");
    assert_eq!(
        run.stderr,
        format!("warning: {} skipped: not a regular file\n", fifo.display())
    );
    let p = p.args(["scan", "code", "--json"]);
    let json = success(&p);
    assert!(
        json.stdout.trim_end().ends_with(&format!(
            "\"warnings\": [\n    \"warning: {} skipped: not a regular file\"\n  ]\n}}",
            fifo.display()
        )),
        "{}",
        json.stdout
    );
}

#[test]
fn a_note_linked_to_dev_zero_is_skipped_not_read() {
    let p = TestProject::new()
        .fixture("example")
        .remove(NOTES)
        .symlink("/dev/zero", NOTES)
        .args(["recall", "auth", "strategy"]);
    let run = success(&p);
    assert!(
        run.stdout.starts_with("mem recall: 3 match(es)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.starts_with(
            "warning: .agents/memory/lessons.md skipped: resolves to /dev/zero, outside "
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn a_file_over_64_mib_is_skipped_without_being_read() {
    let p = TestProject::new()
        .fixture("example")
        .args(["recall", "auth", "strategy", "--json"]);
    let before = success(&p).stdout;
    // Sparse: it costs no disk, and a reader that took it whole would hold 64 MiB.
    let file = fs::OpenOptions::new()
        .append(true)
        .open(p.path(DECISIONS))
        .unwrap();
    file.set_len(CAP + 1).unwrap();
    let run = success(&p);
    let warning =
        "warning: .bmad/memory/decisions.md skipped: 67108865 bytes, over the 64 MiB read limit";
    assert_eq!(run.stderr, "");
    // The decisions file held no match for this query: only the warning is new.
    assert_eq!(run.stdout, with_warnings(&before, &[warning]));
}

#[test]
fn a_three_mib_note_is_still_read() {
    let filler = "Filler line with ordinary words.\n".repeat(3 * 1024 * 1024 / 33 + 1);
    let text = format!("### Early\n{filler}### Zebra crossings\nNeedle here.\n");
    assert!(text.len() > 3 * 1024 * 1024);
    let p = TestProject::new()
        .write(NOTES, text)
        .args(["recall", "zebra", "needle"]);
    let run = success(&p);
    assert!(
        run.stdout.starts_with("mem recall: 1 match(es)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("note lessons.md § Zebra crossings"));
    assert_eq!(run.stderr, "");
}

#[test]
fn a_link_to_a_file_inside_the_project_is_read() {
    let p = TestProject::new()
        .write("docs/lessons.md", "### Zebra crossings\nNeedle here.\n")
        .symlink("../../docs/lessons.md", NOTES)
        .args(["recall", "zebra"]);
    let run = success(&p);
    assert!(
        run.stdout.starts_with("mem recall: 1 match(es)"),
        "{}",
        run.stdout
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn a_link_leaving_the_project_is_skipped_with_a_warning() {
    // The link itself, or a folder above the note.
    for link in [NOTES, ".agents/memory"] {
        let p = TestProject::new()
            .write(
                "../outside/lessons.md",
                "### Zebra crossings\nNeedle here.\n",
            )
            .write(JOURNAL, "");
        let target = if link == NOTES {
            p.base().join("outside/lessons.md")
        } else {
            p.base().join("outside")
        };
        let p = p.symlink(&target, link).args(["recall", "zebra", "--json"]);
        let run = success(&p);
        let real = fs::canonicalize(p.base())
            .unwrap()
            .join("outside/lessons.md");
        let warning = format!(
            "warning: .agents/memory/lessons.md skipped: resolves to {}, outside {}",
            real.display(),
            p.base().join("project").display()
        );
        assert!(
            run.stdout.contains("\"count\": 0"),
            "{link}: {}",
            run.stdout
        );
        assert!(
            run.stdout.trim_end().ends_with(&format!(
                "\"warnings\": [\n    {}\n  ]\n}}",
                serde_json::to_string(&warning).unwrap()
            )),
            "{link}: {}",
            run.stdout
        );
    }
}

#[test]
fn a_dangling_link_is_a_missing_file() {
    let p = TestProject::new()
        .fixture("example")
        .remove(NOTES)
        .symlink("nowhere.md", NOTES)
        .args(["recall", "auth", "strategy"]);
    let run = success(&p);
    assert!(
        run.stdout.starts_with("mem recall: 3 match(es)"),
        "{}",
        run.stdout
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn portfolio_files_may_link_only_inside_the_portfolio_folder() {
    let p = TestProject::new()
        .write("../brain/notes/inside.md", "### Zebra inside\nx\n")
        .write("../elsewhere/outside.md", "### Zebra outside\nx\n")
        .symlink("../notes/inside.md", "../brain/memory/decisions.md")
        .symlink("../../elsewhere/outside.md", "../brain/memory/lessons.md")
        .args([
            "recall",
            "zebra",
            "--scope",
            "portfolio",
            "--portfolio",
            "../brain",
        ]);
    let run = success(&p);
    assert!(
        run.stdout.starts_with("mem recall: 1 match(es)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("§ Zebra inside"), "{}", run.stdout);
    assert!(
        run.stderr
            .starts_with("warning: ../brain/memory/lessons.md skipped: resolves to "),
        "{}",
        run.stderr
    );
}

#[test]
fn every_reading_command_agrees_on_linked_notes() {
    // Inside the project: recall, status and brief read it, and doctor checks it.
    let inside = with_home(
        TestProject::new()
            .write(
                "docs/lessons.md",
                "### 2026-09-01 Zebra crossings\nNeedle here.\n",
            )
            .symlink("../../docs/lessons.md", NOTES),
    );
    let inside = inside.args(["recall", "zebra"]);
    let recall = success(&inside);
    assert!(
        recall.stdout.starts_with("mem recall: 1 match(es)"),
        "{}",
        recall.stdout
    );
    let inside = inside.args(["status", "--json"]);
    let status = success(&inside);
    assert!(
        status.stdout.contains("\"path\": \".agents/memory/lessons.md\",\n      \"exists\": true,\n      \"entries\": 1"),
        "{}",
        status.stdout
    );
    let inside = inside.args(["brief"]);
    let brief = success(&inside);
    assert!(brief.stdout.contains("Zebra crossings"), "{}", brief.stdout);
    assert_eq!(brief.stderr, "");
    let inside = inside.args(["doctor", "--json"]);
    let doctor = run(&inside);
    assert_eq!(doctor.code, Some(0), "{}", doctor.stdout);
    assert!(doctor.stdout.contains(NOTES), "checked: {}", doctor.stdout);
    // Outside: each skips it and says so; doctor reports it.
    let outside = with_home(
        TestProject::new()
            .write(
                "../outside.md",
                "### 2026-09-01 Zebra crossings\nNeedle here.\n",
            )
            .symlink("../../../outside.md", NOTES),
    );
    let skipped = ".agents/memory/lessons.md skipped: resolves to ";
    let mut outside = outside;
    for args in [&["recall", "zebra"][..], &["status"], &["brief"]] {
        outside = outside.args(args);
        let run = success(&outside);
        assert!(run.stderr.contains(skipped), "{args:?}: {}", run.stderr);
        assert!(
            !run.stdout.contains("Zebra crossings"),
            "{args:?}: {}",
            run.stdout
        );
    }
    let outside = outside.args(["doctor", "--json"]);
    let doctor = run(&outside);
    assert_eq!(doctor.code, Some(1), "{}", doctor.stdout);
    assert!(
        doctor.stdout.contains("\"kind\": \"skipped\""),
        "{}",
        doctor.stdout
    );
    assert!(
        doctor.stdout.contains("\"message\": \"resolves to "),
        "{}",
        doctor.stdout
    );
}

#[test]
fn brief_reads_the_journal_as_recall_does() {
    // A journal linked to a file inside the project: recall reads its events, and so does brief.
    let event =
        r#"{"ts":"2026-10-18T09:00:00.000Z","agent":"zebra","task":"Needle here","id":"z1"}"#;
    let p = with_home(
        TestProject::new()
            .write("logs/journal.ndjson", format!("{event}\n"))
            .symlink("../../logs/journal.ndjson", JOURNAL),
    );
    let p = p.args(["recall", "needle"]);
    let recall = success(&p);
    assert!(
        recall.stdout.starts_with("mem recall: 1 match(es)"),
        "{}",
        recall.stdout
    );
    let p = p.args(["brief"]);
    let brief = success(&p);
    assert!(
        brief.stdout.contains("zebra: Needle here"),
        "{}",
        brief.stdout
    );
    assert_eq!(brief.stderr, "");
    // Leaving the project, it is skipped by both, with the same warning.
    let mut p = with_home(
        TestProject::new()
            .write("../journal.ndjson", format!("{event}\n"))
            .symlink("../../../journal.ndjson", JOURNAL),
    );
    for args in [&["recall", "needle"][..], &["brief"]] {
        p = p.args(args);
        let run = success(&p);
        assert!(!run.stdout.contains("Needle"), "{args:?}: {}", run.stdout);
        assert!(
            run.stderr
                .contains("warning: .bmad/memory/journal.ndjson skipped: resolves to "),
            "{args:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn brief_does_not_call_a_tear_inside_a_character_an_encoding_fault() {
    // A torn tail is left out silently, as a torn ASCII tail is; doctor names it as torn.
    let p = with_home(
        TestProject::new()
            .fixture("example")
            .append(JOURNAL, b"{\"task\":\"caf\xc3"),
    )
    .args(["brief"]);
    let brief = success(&p);
    assert!(
        brief.stdout.contains("Latest journal events"),
        "{}",
        brief.stdout
    );
    assert_eq!(brief.stderr, "");
}

#[test]
fn status_does_not_count_handoffs_in_a_sessions_folder_leading_out() {
    let handoff = "---\nwritten_at: 2026-10-18T09:00:00.000Z\n---\n# Elsewhere\n";
    let p = with_home(
        TestProject::new()
            .fixture("example")
            .write("../elsewhere/2026-10-18-x.md", handoff)
            .symlink("../../../elsewhere", ".agents/memory/sessions"),
    )
    .args(["status", "--json"]);
    let status = success(&p);
    let json: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(json["handoffs"]["count"], 0, "{}", status.stdout);
    assert_eq!(json["handoffs"]["latest"], serde_json::Value::Null);
    let warned = json["warnings"].as_array().unwrap().iter().any(|w| {
        w.as_str()
            .unwrap()
            .starts_with("warning: .agents/memory/sessions skipped: resolves to ")
    });
    assert!(warned, "{}", status.stdout);
    // Inside the project, the same folder counts.
    let p = with_home(
        TestProject::new()
            .fixture("example")
            .write("notes/2026-10-18-x.md", handoff)
            .symlink("../../notes", ".agents/memory/sessions"),
    )
    .args(["status", "--json"]);
    let status = success(&p);
    let json: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    assert_eq!(json["handoffs"]["count"], 1, "{}", status.stdout);
}

#[test]
fn reinforce_refuses_a_scores_file_it_cannot_read_and_changes_nothing() {
    let p = TestProject::new().args(["reinforce", "--pattern", "p", "--accept", "true"]);
    mkfifo(&p.path(SCORES));
    let message = ".bmad/memory/pattern-scores.json cannot be read (not a regular file); nothing was changed.";
    let human = run(&p);
    assert_eq!(human.code, Some(1));
    assert_eq!(human.stdout, "");
    assert_eq!(human.stderr, format!("mem reinforce: {message}\n"));
    let p = p.args(["--json", "reinforce", "--pattern", "p", "--accept", "true"]);
    let json = run(&p);
    assert_eq!(json.code, Some(1));
    assert_eq!(
        json.stdout,
        format!("{}\n", serde_json::json!({ "error": message }))
    );
    assert_eq!(json.stderr, "");
    // The FIFO is still a FIFO, and nothing else was created.
    assert_eq!(p.names(".bmad/memory"), ["pattern-scores.json"]);
    assert!(
        fs::symlink_metadata(p.path(SCORES))
            .unwrap()
            .file_type()
            .is_fifo()
    );
}
