//! The command-line contract every action shares (docs §4, §2.7, §2.8, §10): unknown and
//! missing actions, help and version, global options before the action, the project folder,
//! the clock override, and arguments that are not valid UTF-8.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use crate::support::{JOURNAL, NOW, TestProject};

const EXPECTED_ACTIONS: &str = "expected recall | write | reinforce | observe | outcomes | lock | doctor | archive | git | init | status | brief | handoff | export | scan | propose | admit | import | decision | lint | view | mcp | guard | hooks | merge-driver | model | index | completions | man";

/// The options each action's help must explain.
const OPTIONS: &[(&str, &[&str])] = &[
    (
        "recall",
        &[
            "--scope",
            "--portfolio",
            "--limit",
            "--ranking",
            "--context-scope",
            "--json",
            "--directory",
            "-d",
        ],
    ),
    (
        "write",
        &[
            "--agent",
            "--cli",
            "--model",
            "--task",
            "--outcome",
            "--eval",
            "--accept",
            "--ci",
            "--json",
            "--directory",
            "-d",
        ],
    ),
    (
        "reinforce",
        &[
            "--pattern",
            "--eval",
            "--accept",
            "--ci",
            "--evidence",
            "--json",
            "--directory",
            "-d",
        ],
    ),
    ("observe", &["--input", "--json", "--directory", "-d"]),
    ("outcomes", &["--json", "--directory", "-d"]),
];

#[test]
fn an_unknown_action_is_refused_in_both_forms() {
    for word in ["bogus", "Recall", "mem", "xyzzy"] {
        let mut message = format!("unknown action '{word}' — {EXPECTED_ACTIONS}");
        // Actions are case-sensitive; a near miss gets a suggestion.
        if word == "Recall" {
            message.push_str("; did you mean 'recall'? (try 'bmad-mem --help')");
        }
        let _ = TestProject::new()
            .fixture("example")
            .args([word, "--agent", "forge"])
            .refused_as(&format!("mem: {message}\n"), &message);
    }
    // `--json` after the unknown action counts too.
    let _ = TestProject::new()
        .args(["bogus", "--json"])
        .code(1)
        .stdout(&format!(
            "{{\"error\":\"unknown action 'bogus' — {EXPECTED_ACTIONS}\"}}\n"
        ))
        .stderr("")
        .unchanged()
        .run();
}

#[test]
fn no_action_is_a_failure() {
    for args in [&[][..], &["-d", "."][..]] {
        let ran = TestProject::new()
            .args(args)
            .code(1)
            .stdout("")
            .unchanged()
            .run();
        // The error line, then how to start.
        let (error, usage) = ran.stderr.split_once('\n').unwrap();
        assert!(
            error.starts_with("mem: missing action — ") && error.ends_with(EXPECTED_ACTIONS),
            "{}",
            ran.stderr
        );
        assert_eq!(
            usage,
            "Usage: bmad-mem [-d <path>] [--json] <ACTION> [OPTIONS]\n  \
             bmad-mem init                 create the project memory in .agents/memory/\n  \
             bmad-mem recall <words>...    what the memory knows about these words\n  \
             bmad-mem --help               every action; bmad-mem help <action> explains one\n"
        );
        let ran = ran
            .then()
            .args(std::iter::once("--json").chain(args.iter().copied()))
            .code(1)
            .stderr("")
            .unchanged()
            .run();
        let error: serde_json::Value = ran.json();
        assert!(
            error["error"]
                .as_str()
                .is_some_and(|m| m.contains(EXPECTED_ACTIONS)),
            "{error}"
        );
        assert_eq!(ran.stdout.lines().count(), 1, "{}", ran.stdout);
    }
}

#[test]
fn help_and_version_go_to_stdout_with_success() {
    for flag in ["--help", "-h"] {
        let ran = TestProject::new()
            .args([flag])
            .code(0)
            .stderr("")
            .unchanged()
            .run();
        for (action, _) in OPTIONS {
            assert!(ran.stdout.contains(action), "{action} in\n{}", ran.stdout);
        }
    }
    for flag in ["--version", "-V"] {
        let _ = TestProject::new()
            .args([flag])
            .code(0)
            .stdout(&format!("bmad-mem {}\n", env!("CARGO_PKG_VERSION")))
            .stderr("")
            .unchanged()
            .run();
    }
}

#[test]
fn each_action_help_explains_each_option() {
    for (action, options) in OPTIONS {
        for flag in ["--help", "-h"] {
            let ran = TestProject::new()
                .fixture("example")
                .args([action, flag])
                .code(0)
                .stderr("")
                .unchanged()
                .run();
            for option in *options {
                assert!(
                    ran.stdout.contains(option),
                    "{action} {flag}: {option} missing in\n{}",
                    ran.stdout
                );
            }
        }
    }
}

#[test]
fn global_options_may_come_before_the_action() {
    let line = r#"{"ts":"2026-10-18T09:30:00.000Z","agent":"forge","cli":null,"model":null,"task":"","outcome":null,"signals":{},"artifactHashes":[],"id":"82df2109e479"}"#;
    let json = r#"{
  "written": {
    "ts": "2026-10-18T09:30:00.000Z",
    "agent": "forge",
    "cli": null,
    "model": null,
    "task": "",
    "outcome": null,
    "signals": {},
    "artifactHashes": [],
    "id": "82df2109e479"
  }
}
"#;
    let ran = TestProject::new()
        .current_dir("")
        .args(["-d", "project", "--json", "write", "--agent", "forge"])
        .code(0)
        .stdout(json)
        .stderr("")
        .file(JOURNAL, format!("{line}\n"))
        .run();
    let ran = ran
        .then()
        .args(["--directory=project", "write", "--agent", "forge"])
        .code(0)
        .stderr("")
        .file(JOURNAL, format!("{line}\n{line}\n"))
        .run();
    // And after it, in either form.
    let _ = ran
        .then()
        .args([
            "write",
            "--agent",
            "forge",
            "--directory",
            "project",
            "--json",
        ])
        .code(0)
        .stdout(json)
        .file(JOURNAL, format!("{line}\n{line}\n{line}\n"))
        .run();
    let _ = TestProject::new()
        .fixture("example")
        .current_dir("")
        .args(["--json", "-d", "project", "recall", "zzzqqq"])
        .code(0)
        .stdout(
            "{\n  \"query\": \"zzzqqq\",\n  \"scope\": \"project\",\n  \"ranking\": \"lexical\",\n  \
             \"count\": 0,\n  \"results\": []\n}\n",
        )
        .unchanged()
        .run();
}

#[test]
fn the_project_folder_must_exist_for_every_action() {
    let project = TestProject::new().current_dir("");
    let missing = project.base().join("missing");
    let message = format!(
        "Project directory does not exist or is not a directory: {}",
        missing.display()
    );
    let _ = project
        .args(["-d", "missing", "recall", "auth"])
        .refused("recall", &message)
        .args(["reinforce", "--pattern", "p", "-d", "missing"])
        .refused("reinforce", &message)
        .args(["write", "--agent", "forge", "-d", "missing"])
        .refused("write", &message);
}

/// Without `-d`, the project is the nearest folder above holding a memory, else the nearest
/// holding `.git`, else the current folder: an agent started in a subfolder writes into the
/// project's memory, never a second store of its own.
#[test]
fn without_a_folder_the_project_is_found_above_the_current_one() {
    let project = TestProject::new()
        .mkdir(".bmad/memory")
        .mkdir("src/deep")
        .current_dir("project/src/deep")
        .args(["write", "--agent", "forge", "--task", "from below"])
        .code(0)
        .run()
        .project;
    assert!(
        project.read_text(JOURNAL).contains("from below"),
        "the project's journal holds the event"
    );
    assert!(
        !project.path("src/deep/.bmad").exists(),
        "no second memory in the subfolder"
    );
    let ran = project.args(["recall", "below", "--json"]).code(0).run();
    assert!(ran.stdout.contains("from below"), "{}", ran.stdout);
    // A clone without a memory yet: its top folder, where .git is.
    let project = TestProject::new()
        .mkdir(".git")
        .mkdir("app")
        .current_dir("project/app")
        .args(["write", "--agent", "forge", "--task", "first"])
        .code(0)
        .run()
        .project;
    assert!(project.read_text(JOURNAL).contains("first"));
    assert!(!project.path("app/.bmad").exists());
    // `-d` keeps its meaning: the folder named, nothing searched.
    let project = TestProject::new()
        .mkdir(".bmad/memory")
        .mkdir("sub")
        .current_dir("project/sub")
        .args(["-d", ".", "write", "--agent", "forge", "--task", "here"])
        .code(0)
        .run()
        .project;
    assert!(project.path("sub/.bmad/memory/journal.ndjson").exists());
}

#[test]
fn an_invalid_clock_override_is_refused() {
    for value in ["yesterday", "2026-10-18 09:30:00", "", "2026-13-01"] {
        let message = format!("BMAD_MEM_NOW is not a valid timestamp: {value}");
        let _ = TestProject::new()
            .fixture("example")
            .env("BMAD_MEM_NOW", value)
            .args(["write", "--agent", "forge"])
            .refused("write", &message)
            .args(["recall", "auth"])
            .refused("recall", &message)
            .args(["reinforce", "--pattern", "Rate limit on auth routes"])
            .refused("reinforce", &message);
    }
}

#[test]
fn the_clock_override_is_written_back_in_iso_form() {
    for (value, iso) in [
        ("2026-10-18", "2026-10-18T00:00:00.000Z"),
        ("2026-10-18T09:30Z", NOW),
        ("2026-10-18t09:30:00.000999z", NOW),
        ("2026-02-30T00:00:00Z", "2026-03-02T00:00:00.000Z"),
        ("2026-10-17T24:00:00Z", "2026-10-18T00:00:00.000Z"),
    ] {
        let ran = TestProject::new()
            .env("BMAD_MEM_NOW", value)
            .args(["write", "--agent", "forge", "--json"])
            .code(0)
            .run();
        let written: serde_json::Value = ran.json();
        assert_eq!(written["written"]["ts"], iso, "BMAD_MEM_NOW={value}");
    }
}

#[test]
fn a_clock_override_without_offset_is_local_time() {
    // `TZ=XYZ-2 node -e 'new Date("2026-10-18T09:30:00").toISOString()'`: a POSIX zone two hours
    // east of UTC, which needs no tzdata on the machine.
    let ran = TestProject::new()
        .env("TZ", "XYZ-2")
        .env("BMAD_MEM_NOW", "2026-10-18T09:30:00")
        .args(["write", "--agent", "forge", "--json"])
        .code(0)
        .run();
    let written: serde_json::Value = ran.json();
    assert_eq!(written["written"]["ts"], "2026-10-18T07:30:00.000Z");
}

#[test]
fn invalid_utf8_in_arguments_is_refused_not_replaced() {
    let bad = OsStr::from_bytes(b"\xff");
    // Replacing the bytes would store (and hash into the id) text nobody typed.
    let _ = TestProject::new()
        .args([OsStr::new("write"), OsStr::new("--agent"), bad])
        .refused("write", "invalid UTF-8 in the value of --agent");
    let _ = TestProject::new()
        .fixture("example")
        .args([OsStr::new("recall"), OsStr::from_bytes(b"zz\xffqq")])
        .code(1)
        .stdout("")
        .stderr("mem recall: invalid UTF-8 in argument 2\n")
        .unchanged()
        .run()
        .then()
        .args([OsStr::new("--json"), bad])
        .code(1)
        .stdout("{\"error\":\"invalid UTF-8 in argument 2\"}\n")
        .stderr("")
        .unchanged()
        .run();
    let _ = TestProject::new()
        .fixture("example")
        .args([
            OsStr::new("write"),
            OsStr::new("--agent"),
            OsStr::new("forge"),
            OsStr::new("--eval"),
            bad,
        ])
        .refused("write", "invalid UTF-8 in the value of --eval");
}

#[test]
fn json_errors_are_one_line_on_stdout() {
    // A message with characters JSON must escape stays one line.
    let _ = TestProject::new()
        .fixture("example")
        .args(["write", "--agent", "forge", "--eval", "\"1\"\n"])
        .refused("write", "invalid value for --eval: \"1\"\n")
        .args(["--json", "write", "--agent", "forge", "--eval", "a\"b"])
        .code(1)
        .stdout("{\"error\":\"invalid value for --eval: a\\\"b\"}\n")
        .stderr("")
        .unchanged()
        .run();
}
