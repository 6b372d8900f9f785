//! What reaches the person's terminal, and the small command-line faults around it.
//!
//! * Human output escapes control characters: every C0 control other than newline and tab, DEL
//!   and every C1 control is shown as `\xNN` (two lowercase hex digits) — results on stdout,
//!   warnings and errors on stderr, for every command — while `--json` output keeps the text as
//!   it is (JSON's own escaping).
//! * A writing action whose result cannot be printed (stdout is `/dev/full`, a pipe nobody
//!   reads, a closed stdout) exits 1 and says what it wrote; a reading action whose reader is
//!   gone ends quietly with 0.
//! * Options that would have no effect where they are given are refused, changing nothing.
//! * `observe` names its missing `--input`, and takes `./obs.json` as `obs.json`.

use std::fs::{self, File};
use std::process::Stdio;

use bmad_mem::js::json::sha256_hex;
use serde_json::{Value as Json, json};

use crate::actions::observe::{INPUT, OUTCOMES, project as observed_project, valid_input};
use crate::support::{JOURNAL, LOCK, PROMOTIONS, SCORES, TestProject};

/// A title change (OSC … BEL) and a screen clear (CSI 2J): what an agent could plant.
const AGENT: &str = "\u{1b}]0;PWNED\u{7}";
const TASK: &str = "auth \u{1b}[2J";

/// No raw control character a terminal acts on (newline and tab allowed).
#[track_caller]
fn assert_no_controls(text: &str) {
    let found: Vec<char> = text
        .chars()
        .filter(|&c| matches!(c, '\0'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'))
        .collect();
    assert!(found.is_empty(), "raw controls {found:?} in {text:?}");
}

// ---- escaping -----------------------------------------------------------------------------

#[test]
fn write_and_recall_show_planted_escapes_as_text() {
    let ran = TestProject::new()
        .args(["write", "--agent", AGENT, "--task", TASK])
        .code(0)
        .stdout(
            "mem write: event 9aa17e008d16 appended (2026-10-18T09:30:00.000Z)\n  \
             agent=\\x1b]0;PWNED\\x07 cli=- model=- outcome=-\n  task: auth \\x1b[2J\n",
        )
        .stderr("")
        .run();
    // The journal keeps the text exactly as given.
    let journal = ran.project.read_text(JOURNAL);
    assert!(
        journal.contains(r#""agent":"\u001b]0;PWNED\u0007""#),
        "{journal}"
    );
    let ran = ran
        .then()
        .args(["recall", "auth"])
        .code(0)
        .stdout(
            "mem recall: 1 match(es) for \"auth\" (scope: project)\n  \
             1. [0.577] event journal.ndjson#9aa17e008d16\n     \
             \\x1b]0;PWNED\\x07 auth \\x1b[2J {}\n",
        )
        .stderr("")
        .run();
    // The query is shown escaped too.
    let ran = ran.then().args(["recall", "\u{1b}[2J"]).code(0).run();
    assert!(
        ran.stdout
            .starts_with("mem recall: 1 match(es) for \"\\x1b[2J\" (scope: project)\n"),
        "{}",
        ran.stdout
    );
    assert_no_controls(&ran.stdout);
    // JSON output is unchanged: JSON's escapes, the decoded text as stored, no `\x` form.
    let ran = ran.then().args(["recall", "auth", "--json"]).code(0).run();
    assert!(ran.stdout.contains(r#""agent": "\u001b]0;PWNED\u0007""#));
    assert!(!ran.stdout.contains("\\x1b"));
    let result: Json = ran.json();
    assert_eq!(
        result["results"][0]["text"],
        json!(format!("{AGENT} {TASK} {{}}"))
    );
    let ran = ran
        .then()
        .args(["--json", "write", "--agent", AGENT, "--task", TASK])
        .code(0)
        .run();
    let written: Json = ran.json();
    assert_eq!(written["written"]["agent"], json!(AGENT));
    assert_eq!(written["written"]["task"], json!(TASK));
}

#[test]
fn c1_controls_and_del_are_escaped_in_lowercase_hex_and_cr_is_collapsed() {
    // U+009B is the one-character CSI; DEL and CR are controls too. `truncate` has already made
    // the CR a space (it is whitespace), so only DEL and U+009B remain to escape.
    let ran = TestProject::new()
        .args([
            "write",
            "--agent",
            "forge",
            "--task",
            "red \u{9b}31m\rover\u{7f} é",
        ])
        .code(0)
        .run();
    assert!(
        ran.stdout.ends_with("  task: red \\x9b31m over\\x7f é\n"),
        "{}",
        ran.stdout
    );
    let ran = ran.then().args(["recall", "red"]).code(0).run();
    assert!(
        ran.stdout
            .contains("     forge red \\x9b31m over\\x7f é {}\n"),
        "{}",
        ran.stdout
    );
    assert_no_controls(&ran.stdout);
}

#[test]
fn ordinary_text_is_left_byte_identical() {
    // Backslashes, tabs in stored text, non-ASCII and U+00A0 (just above the C1 range) pass.
    let task = r"C:\x1b is a path, not an escape — ça marche";
    let ran = TestProject::new()
        .args(["write", "--agent", "forge\u{a0}x", "--task", task])
        .code(0)
        .run();
    assert!(
        ran.stdout.ends_with(&format!(
            "  agent=forge\u{a0}x cli=- model=- outcome=-\n  task: {task}\n"
        )),
        "{}",
        ran.stdout
    );
}

#[test]
fn reinforce_shows_the_pattern_escaped() {
    let ran = TestProject::new()
        .args(["reinforce", "--pattern", "p\u{1b}[2J", "--ci", "pass"])
        .code(0)
        .stderr("")
        .run();
    assert!(
        ran.stdout
            .starts_with("mem reinforce: pattern \"p\\x1b[2J\"\n"),
        "{}",
        ran.stdout
    );
    assert_no_controls(&ran.stdout);
}

#[test]
fn brief_shows_planted_escapes_as_text() {
    let project = TestProject::new();
    let home = project.base().join("home");
    fs::create_dir(&home).expect("create the home");
    let ran = project
        .env("HOME", &home)
        .env("BMAD_PLUS_BRAIN", "")
        .write(
            ".agents/memory/lessons.md",
            "# Lessons\n\n### 2026-09-01 — Title\u{1b}]0;x\u{7}\nBody \u{1b}[2J here.\n",
        )
        .args(["brief"])
        .code(0)
        .run();
    assert!(
        ran.stdout
            .contains("Title\\x1b]0;x\\x07\nBody \\x1b[2J here."),
        "{}",
        ran.stdout
    );
    assert_no_controls(&ran.stdout);
    let ran = ran.then().args(["brief", "--json"]).code(0).run();
    assert!(
        ran.stdout.contains("Body \\u001b[2J here."),
        "{}",
        ran.stdout
    );
    assert!(!ran.stdout.contains("\\x1b"));
}

#[test]
fn lock_shows_a_planted_owner_escaped() {
    let owner = r#"{"pid":1,"hostname":"h\u001b]0;x\u0007","token":"t\u001b[2J"}"#;
    let ran = TestProject::new()
        .fixture("example")
        .write(LOCK, owner)
        .args(["lock"])
        .code(0)
        .unchanged()
        .run();
    assert!(
        ran.stdout
            .contains("  host     h\\x1b]0;x\\x07\n  token    t\\x1b[2J\n"),
        "{}",
        ran.stdout
    );
    assert_no_controls(&ran.stdout);
    let ran = ran.then().args(["lock", "--json"]).code(0).run();
    let state: Json = ran.json();
    assert_eq!(
        state["lock"]["owner"]["hostname"],
        json!("h\u{1b}]0;x\u{7}")
    );
}

#[test]
fn doctor_shows_a_planted_heading_escaped() {
    let ran = TestProject::new()
        .write(
            ".agents/memory/lessons.md",
            "### twice\u{1b}[2J\none\n### twice\u{1b}[2J\ntwo\n",
        )
        .args(["doctor"])
        .code(1)
        .unchanged()
        .run();
    assert!(
        ran.stdout.contains(
            "  .agents/memory/lessons.md [duplicate-heading]: \"twice\\x1b[2J\" heads 2 sections"
        ),
        "{}",
        ran.stdout
    );
    assert_no_controls(&ran.stdout);
}

#[test]
fn errors_and_warnings_are_escaped_on_stderr_but_not_in_json() {
    let project = TestProject::new()
        .args(["recall", "x", "--limit", "\u{1b}[2J"])
        .code(1)
        .stdout("")
        .stderr("mem recall: invalid value for --limit: \\x1b[2J\n")
        .unchanged()
        .run()
        .then()
        .args(["--json", "recall", "x", "--limit", "\u{1b}[2J"])
        .code(1)
        .stdout("{\"error\":\"invalid value for --limit: \\u001b[2J\"}\n")
        .stderr("")
        .unchanged()
        .run()
        .then();
    // Parser errors (an unknown action) pass through the same escaping.
    let ran = project.args(["\u{1b}[2Jx"]).code(1).stdout("").run();
    assert!(
        ran.stderr.starts_with("mem: unknown action '\\x1b[2Jx'"),
        "{}",
        ran.stderr
    );
    // A warning (an explicit brain that is no folder) is escaped on stderr.
    let project = ran.then();
    let home = project.base().join("home");
    fs::create_dir(&home).expect("create the home");
    let ran = project
        .env("HOME", &home)
        .env("BMAD_PLUS_BRAIN", "/nowhere\u{1b}[2J")
        .args(["status"])
        .code(0)
        .run();
    assert!(
        ran.stderr
            .contains("BMAD_PLUS_BRAIN is set but is not a directory: /nowhere\\x1b[2J"),
        "{}",
        ran.stderr
    );
    assert_no_controls(&ran.stderr);
}

// ---- results that cannot be printed -------------------------------------------------------

/// Runs the project's next command with stdout on `/dev/full`: (exit code, stderr).
fn to_full_disk(project: &TestProject) -> (i32, String) {
    let full = File::options()
        .write(true)
        .open("/dev/full")
        .expect("open /dev/full");
    let output = project
        .command()
        .stdout(Stdio::from(full))
        .stderr(Stdio::piped())
        .output()
        .expect("run bmad-mem");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8 stderr");
    assert!(!stderr.contains("panicked"), "{stderr}");
    (output.status.code().expect("an exit code"), stderr)
}

const NO_SPACE: &str = "No space left on device (os error 28)";

#[test]
fn a_write_whose_result_cannot_be_printed_says_it_was_appended() {
    for json in [false, true] {
        let mut args = vec!["write", "--agent", "forge", "--task", "t"];
        if json {
            args.insert(0, "--json");
        }
        let project = TestProject::new().args(&args);
        let (code, stderr) = to_full_disk(&project);
        assert_eq!(code, 1);
        // Under --json the error cannot reach stdout either, so it goes to stderr.
        assert_eq!(
            stderr,
            format!(
                "mem write: event 8176919ff2b6 appended, but the result could not be printed: \
                 {NO_SPACE}\n"
            )
        );
        assert!(
            project
                .read_text(JOURNAL)
                .contains("\"id\":\"8176919ff2b6\"")
        );
    }
}

#[test]
fn a_reinforce_whose_result_cannot_be_printed_names_score_and_promotion() {
    let args = [
        "reinforce",
        "--pattern",
        "p",
        "--eval",
        "1",
        "--accept",
        "true",
        "--ci",
        "pass",
    ];
    let project = TestProject::new().args(args);
    let (code, stderr) = to_full_disk(&project);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        format!(
            "mem reinforce: score of pattern \"p\" updated, but the result could not be printed: \
             {NO_SPACE}\n"
        )
    );
    // The third update proposes a promotion.
    let project = project.args(args).code(0).run().then().args(args);
    let (code, stderr) = to_full_disk(&project);
    assert_eq!(code, 1);
    let promotions = project.read_text(PROMOTIONS);
    let promotion: Json = serde_json::from_str(promotions.trim_end()).expect("one promotion");
    let id = promotion["id"].as_str().expect("an id");
    assert_eq!(
        stderr,
        format!(
            "mem reinforce: score of pattern \"p\" updated and promotion {id} appended, but the \
             result could not be printed: {NO_SPACE}\n"
        )
    );
    assert!(project.read_text(SCORES).contains("\"updates\": 3"));
}

#[test]
fn observe_and_handoff_whose_result_cannot_be_printed_name_what_they_wrote() {
    let (project, _run) = observed_project();
    let project = project
        .write(INPUT, valid_input().to_string())
        .args(["observe", "--input", INPUT]);
    let (code, stderr) = to_full_disk(&project);
    assert_eq!(code, 1);
    let store = project.read_text(OUTCOMES);
    let receipt: Json = serde_json::from_str(store.trim_end()).expect("one receipt");
    let id = receipt["id"].as_str().expect("an id");
    assert_eq!(
        stderr,
        format!(
            "mem observe: receipt {id} recorded, but the result could not be printed: {NO_SPACE}\n"
        )
    );

    let home = project.base().join("home");
    fs::create_dir(&home).expect("create the home");
    let project = project.env("HOME", &home).env("BMAD_PLUS_BRAIN", "").args([
        "handoff",
        "--topic",
        "Auth rework",
    ]);
    let (code, stderr) = to_full_disk(&project);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        format!(
            "mem handoff: handoff .agents/memory/sessions/2026-10-18-auth-rework.md written, but \
             the result could not be printed: {NO_SPACE}\n"
        )
    );
    assert!(
        project
            .path(".agents/memory/sessions/2026-10-18-auth-rework.md")
            .is_file()
    );
}

#[test]
fn init_and_lock_recovery_whose_result_cannot_be_printed_name_what_they_wrote() {
    let project = TestProject::new();
    let home = project.base().join("home");
    fs::create_dir(&home).expect("create the home");
    let project = project
        .env("HOME", &home)
        .env("BMAD_PLUS_BRAIN", "")
        .mkdir(".agents/memory/sessions")
        .write(".agents/memory/decisions.md", "")
        .write(".agents/memory/lessons.md", "")
        .write(".agents/memory/patterns.md", "")
        .args(["init"]);
    let (code, stderr) = to_full_disk(&project);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("mem init: .agents/memory/context.md, "),
        "{stderr}"
    );
    assert!(
        stderr.ends_with(&format!(
            " created, but the result could not be printed: {NO_SPACE}\n"
        )),
        "{stderr}"
    );
    assert!(project.path(".agents/memory/context.md").is_file());

    // A lock whose owner, on this host, has exited.
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("spawn true");
    child.wait().expect("wait for true");
    let host = gethostname::gethostname().to_string_lossy().into_owned();
    let owner = json!({"pid": child.id(), "hostname": host, "token": "t"}).to_string();
    let sha = sha256_hex(owner.as_bytes());
    let project = project
        .write(LOCK, &owner)
        .args(["lock", "--recover", "--expect", &sha]);
    let (code, stderr) = to_full_disk(&project);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        format!(
            "mem lock: writer.lock removed (receipt \
             .bmad/memory/lock-recovery/2026-10-18T09-30-00-000Z-{}.json), but the result could \
             not be printed: {NO_SPACE}\n",
            &sha[..12]
        )
    );
    assert!(!project.path(LOCK).exists());
}

/// Where a run's stdout goes when its reader is gone.
#[derive(Debug, Clone, Copy)]
enum Gone {
    /// A pipe whose reading end was closed before the run: every write fails with EPIPE.
    Pipe,
    /// Closed before the program started, as a shell's `>&-` does.
    Closed,
}

/// Runs the project's next command with its stdout's reader gone: (exit code, stderr).
fn reader_gone(project: &TestProject, gone: Gone) -> (i32, String) {
    let command = project.command();
    let mut run = match gone {
        Gone::Pipe => {
            let (reader, writer) = std::io::pipe().expect("a pipe");
            drop(reader);
            let mut run = command;
            run.stdout(writer);
            run
        }
        Gone::Closed => {
            let mut shell = std::process::Command::new("sh");
            shell
                .args(["-c", "exec \"$0\" \"$@\" >&-"])
                .arg(command.get_program())
                .args(command.get_args())
                .stdin(Stdio::null());
            if let Some(dir) = command.get_current_dir() {
                shell.current_dir(dir);
            }
            for (key, value) in command.get_envs() {
                match value {
                    Some(value) => shell.env(key, value),
                    None => shell.env_remove(key),
                };
            }
            shell
        }
    };
    let output = run.stderr(Stdio::piped()).output().expect("run bmad-mem");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8 stderr");
    assert!(!stderr.contains("panicked"), "{stderr}");
    (output.status.code().expect("an exit code"), stderr)
}

/// What the run says of a stdout whose reader is gone.
fn gone_reason(gone: Gone) -> &'static str {
    match gone {
        Gone::Pipe => "Broken pipe (os error 32)",
        Gone::Closed => "standard output is closed",
    }
}

#[test]
fn a_write_whose_reader_is_gone_exits_1_and_says_what_it_wrote() {
    for gone in [Gone::Pipe, Gone::Closed] {
        for json in [false, true] {
            let mut args = vec!["write", "--agent", "forge", "--task", "t"];
            if json {
                args.insert(0, "--json");
            }
            let project = TestProject::new().args(&args);
            let (code, stderr) = reader_gone(&project, gone);
            let context = format!("{gone:?}, json {json}");
            assert_eq!(code, 1, "{context}");
            assert_eq!(
                stderr,
                format!(
                    "mem write: event 8176919ff2b6 appended, but the result could not be \
                     printed: {}\n",
                    gone_reason(gone)
                ),
                "{context}"
            );
            assert!(
                project
                    .read_text(JOURNAL)
                    .contains("\"id\":\"8176919ff2b6\""),
                "{context}"
            );
        }
        // A session command that writes a file: the same rule.
        let project = crate::support::home::project().args(["handoff", "--topic", "Auth rework"]);
        let (code, stderr) = reader_gone(&project, gone);
        assert_eq!(code, 1, "{gone:?}");
        assert_eq!(
            stderr,
            format!(
                "mem handoff: handoff .agents/memory/sessions/2026-10-18-auth-rework.md written, \
                 but the result could not be printed: {}\n",
                gone_reason(gone)
            )
        );
        assert!(
            project
                .path(".agents/memory/sessions/2026-10-18-auth-rework.md")
                .is_file()
        );
    }
}

#[test]
fn a_read_whose_reader_is_gone_ends_quietly_with_0() {
    for gone in [Gone::Pipe, Gone::Closed] {
        for args in [
            &["recall", "auth"][..],
            &["--json", "recall", "auth"],
            &["outcomes"],
            &["status"],
        ] {
            let project = TestProject::new().fixture("example").args(args);
            let before = project.snapshot();
            assert_eq!(
                reader_gone(&project, gone),
                (0, String::new()),
                "{gone:?} {args:?}"
            );
            crate::support::assert_same(
                &before,
                &project.snapshot(),
                "a read whose reader is gone",
            );
        }
    }
}

#[test]
fn a_read_whose_result_cannot_be_printed_says_only_that() {
    let project = TestProject::new()
        .fixture("example")
        .args(["recall", "auth"]);
    let before = project.snapshot();
    let (code, stderr) = to_full_disk(&project);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        format!("mem recall: the result could not be printed: {NO_SPACE}\n")
    );
    crate::support::assert_same(&before, &project.snapshot(), "recall to /dev/full");
}

// ---- options without effect ---------------------------------------------------------------

#[test]
fn options_without_effect_are_refused() {
    let project = TestProject::new()
        .fixture("example")
        .mkdir("brain/memory")
        .args(["recall", "auth", "--portfolio", "brain"])
        .refused("recall", "--portfolio only applies with --scope portfolio")
        .args([
            "recall",
            "auth",
            "--scope",
            "project",
            "--portfolio",
            "brain",
        ])
        .refused("recall", "--portfolio only applies with --scope portfolio")
        .args(["recall", "auth", "--context-scope", "src"])
        .refused(
            "recall",
            "--context-scope only applies with --ranking evidence",
        )
        .args([
            "recall",
            "auth",
            "--ranking",
            "lexical",
            "--context-scope",
            "src",
        ])
        .refused(
            "recall",
            "--context-scope only applies with --ranking evidence",
        )
        .args(["lock", "--expect", "abc"])
        .refused("lock", "--expect <sha256> only applies with --recover");
    let missing = project.path("nowhere").to_string_lossy().into_owned();
    let project = project
        .args([
            "recall",
            "auth",
            "--scope",
            "portfolio",
            "--portfolio",
            "nowhere",
        ])
        .refused(
            "recall",
            &format!("--portfolio is not an existing folder: {missing}"),
        )
        .write("a-file", "x");
    let file = project.path("a-file").to_string_lossy().into_owned();
    let project = project
        .args([
            "recall",
            "auth",
            "--scope",
            "portfolio",
            "--portfolio",
            "a-file",
        ])
        .refused(
            "recall",
            &format!("--portfolio is not an existing folder: {file}"),
        );
    // bmad-plus's pinned checks still come first.
    let _ = project
        .args(["recall", " ", "--portfolio", "brain"])
        .refused("recall", "recall: query must be a non-empty string")
        .args([
            "recall",
            "auth",
            "--scope",
            "portfolio",
            "--portfolio",
            "nowhere",
            "--ranking",
            "evidence",
        ])
        .refused(
            "recall",
            "Evidence ranking supports project-local lexical recall only.",
        )
        .args(["recall", "auth", "--context-scope", "src", "--limit", "0"])
        .refused("recall", "invalid value for --limit: 0");
}

#[test]
fn options_with_effect_stay_accepted() {
    // --scope portfolio alone (as bmad-plus accepts it), an existing portfolio, evidence with
    // its context scope.
    let _ = TestProject::new()
        .fixture("example")
        .mkdir("brain/memory")
        .args(["recall", "auth", "--scope", "portfolio", "--limit", "1"])
        .code(0)
        .unchanged()
        .run()
        .then()
        .args([
            "recall",
            "auth",
            "--scope",
            "portfolio",
            "--portfolio",
            "brain",
            "--limit",
            "1",
        ])
        .code(0)
        .unchanged()
        .run()
        .then()
        .args([
            "recall",
            "auth",
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
            "--limit",
            "1",
        ])
        .code(0)
        .unchanged()
        .run();
}

// ---- observe's input ----------------------------------------------------------------------

#[test]
fn observe_names_a_missing_input() {
    let _ = TestProject::new()
        .args(["observe"])
        .refused("observe", "--input <file.json> is required");
}

#[test]
fn observe_takes_a_leading_dot_slash_and_nothing_looser() {
    let (project, _run) = observed_project();
    let project = project
        .write(INPUT, valid_input().to_string())
        .args(["observe", "--input", "in/./observation.json"])
        .refused(
            "observe",
            "Memory path must be a normalized project-relative path.",
        )
        .args(["observe", "--input", "./"])
        .refused(
            "observe",
            "Memory path must be a normalized project-relative path.",
        )
        .args(["observe", "--input", ".//observation.json"])
        .refused(
            "observe",
            "Memory path must be a normalized project-relative path.",
        );
    let ran = project
        .args(["observe", "--input", "./observation.json", "--json"])
        .code(0)
        .stderr("")
        .run();
    let written: Json = ran.json();
    let store = ran.project.read_text(OUTCOMES);
    assert_eq!(store.lines().count(), 1);
    assert!(store.contains(written["written"]["id"].as_str().expect("an id")));
    // It was read as `observation.json`: the same observation again is a duplicate.
    let _ = ran
        .then()
        .args(["observe", "--input", "observation.json"])
        .refused(
            "observe",
            "Duplicate outcome: this task attempt already supplied a receipt.",
        )
        .args(["observe", "--input", "././observation.json"])
        .refused(
            "observe",
            "Duplicate outcome: this task attempt already supplied a receipt.",
        );
}

#[test]
fn an_archive_whose_result_cannot_be_printed_says_what_moved() {
    let project = TestProject::new()
        .fixture("example")
        .args(["archive", "journal", "--keep", "2"]);
    let (code, stderr) = to_full_disk(&project);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        format!(
            "mem archive: 40 record(s) of .bmad/memory/journal.ndjson moved into \
             .bmad/memory/archive/journal-20260803T081240Z--20261015T094512Z.ndjson, but the \
             result could not be printed: {NO_SPACE}\n"
        )
    );
    // Nothing to move: nothing was written, so the failure says only that printing failed.
    let project = project.args(["archive", "journal", "--keep", "2"]);
    let (code, stderr) = to_full_disk(&project);
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        format!("mem archive: the result could not be printed: {NO_SPACE}\n")
    );
}
