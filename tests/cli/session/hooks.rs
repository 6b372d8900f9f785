//! `hooks install` into fresh and existing settings files for each agent (nothing the user had
//! is lost or reordered; a second run writes nothing; `--dry-run` only prints the diff; a file
//! that does not parse is refused and left as it is), then the installed hook commands run the
//! way the agent runs them — through `sh -c`, `bmad-mem` found on `PATH`, the payload the agent
//! sends on standard input (`fixtures/hooks/`).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::{BIN, NOW, TestProject};

const CLAUDE: &str = ".claude/settings.json";
const CODEX: &str = ".codex/hooks.json";
const GEMINI: &str = ".gemini/settings.json";

const CLAUDE_FRESH: &str = r#"{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "bmad-mem -d \"$CLAUDE_PROJECT_DIR\" brief"
          }
        ]
      },
      {
        "matcher": "compact",
        "hooks": [
          {
            "type": "command",
            "command": "bmad-mem -d \"$CLAUDE_PROJECT_DIR\" brief"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Edit|MultiEdit|Write|NotebookEdit",
        "hooks": [
          {
            "type": "command",
            "command": "bmad-mem -d \"$CLAUDE_PROJECT_DIR\" guard --hook claude-code --agent claude-code"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "bmad-mem -d \"$CLAUDE_PROJECT_DIR\" hooks remind --agent claude-code"
          }
        ]
      }
    ]
  }
}
"#;

/// A user's settings: keys in no particular order, four-space indentation, hooks of their own.
const CLAUDE_EXISTING: &str = r#"{
    "model": "opus",
    "permissions": {
        "deny": [
            "Read(./secrets/**)"
        ],
        "allow": [
            "Bash(cargo test:*)"
        ]
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": "./scripts/check-bash.sh",
                        "timeout": 5
                    }
                ]
            }
        ]
    },
    "env": {
        "Z_LAST": "1",
        "A_FIRST": "2"
    }
}
"#;

const BOUNDARIES: &str =
    "## Read Access\n- .\n\n## Write Access\n- src/\n\n## Deny Zones\n- **/.env\n";

#[test]
fn claude_code_fresh_install_then_nothing_to_do() {
    let p = TestProject::new()
        .args(["hooks", "install", "--agent", "claude-code", "--dry-run"])
        .code(0)
        .absent(CLAUDE)
        .run()
        .then();
    let ran = p
        .args(["hooks", "install", "--agent", "claude-code"])
        .code(0)
        .stderr("")
        .file(CLAUDE, CLAUDE_FRESH)
        .run();
    assert!(
        ran.stdout
            .starts_with("created .claude/settings.json: 4 hooks added\n")
    );
    let _ = ran
        .then()
        .args(["hooks", "install", "--agent", "claude-code"])
        .code(0)
        .stdout(".claude/settings.json already has bmad-mem's claude-code hooks; nothing changed\n")
        .unchanged()
        .run();
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let ran = TestProject::new()
        .write(CLAUDE, CLAUDE_EXISTING)
        .args(["hooks", "install", "--agent", "claude-code", "--dry-run"])
        .code(0)
        .unchanged()
        .run();
    let diff = &ran.stdout;
    assert!(
        diff.starts_with("--- a/.claude/settings.json\n+++ b/.claude/settings.json\n@@ "),
        "{diff}"
    );
    assert!(diff.contains("\n+        \"SessionStart\": [\n"), "{diff}");
    // Only additions: nothing the user wrote is removed or moved.
    assert!(
        !diff
            .lines()
            .any(|l| l.starts_with('-') && !l.starts_with("---")),
        "{diff}"
    );
}

#[test]
fn existing_settings_keep_everything_in_order() {
    let p = TestProject::new()
        .write(CLAUDE, CLAUDE_EXISTING)
        .args(["hooks", "install", "--agent", "claude-code"])
        .code(0)
        .run()
        .then();
    let after = p.read_text(CLAUDE);
    // Every line of the user's file is still there, in the same order.
    let mut lines = after.lines();
    for line in CLAUDE_EXISTING
        .lines()
        .filter(|l| !l.trim().starts_with(']') && !l.trim().starts_with('}'))
    {
        assert!(lines.any(|l| l == line), "{line:?} lost or moved\n{after}");
    }
    let settings: Value = serde_json::from_str(&after).unwrap();
    let keys: Vec<&String> = settings.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["model", "permissions", "hooks", "env"]);
    let pre = settings["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre[0]["hooks"][0]["command"], "./scripts/check-bash.sh");
    assert_eq!(pre[1]["matcher"], "Edit|MultiEdit|Write|NotebookEdit");
    let events: Vec<&String> = settings["hooks"].as_object().unwrap().keys().collect();
    assert_eq!(events, ["PreToolUse", "SessionStart", "Stop"]);
    let _ = p
        .args(["hooks", "install", "--agent", "claude-code"])
        .code(0)
        .unchanged()
        .run();
}

#[test]
fn every_agent_installs_into_fresh_and_existing_files() {
    for (agent, file, events) in [
        (
            "claude-code",
            CLAUDE,
            vec!["SessionStart", "PreToolUse", "Stop"],
        ),
        ("codex", CODEX, vec!["SessionStart", "PreToolUse", "Stop"]),
        (
            "gemini",
            GEMINI,
            vec!["SessionStart", "BeforeTool", "AfterAgent"],
        ),
    ] {
        for existing in [None, Some("{\"hooks\": {}, \"mine\": [1, 2]}\n")] {
            let mut p = TestProject::new();
            if let Some(text) = existing {
                p = p.write(file, text);
            }
            let p = p
                .args(["hooks", "install", "--json", "--agent", agent])
                .code(0)
                .run()
                .then();
            let settings: Value = serde_json::from_str(&p.read_text(file)).unwrap();
            let got: Vec<&String> = settings["hooks"].as_object().unwrap().keys().collect();
            assert_eq!(got, events, "{agent} {existing:?}");
            if existing.is_some() {
                assert_eq!(settings["mine"], serde_json::json!([1, 2]));
            }
            let _ = p
                .args(["hooks", "install", "--agent", agent])
                .code(0)
                .unchanged()
                .run();
        }
    }
}

#[test]
fn a_file_that_does_not_parse_is_refused_and_kept() {
    let _ = TestProject::new()
        .write(CLAUDE, "{\"hooks\": {,}\n")
        .args(["hooks", "install", "--agent", "claude-code"])
        .refused(
            "hooks",
            ".claude/settings.json does not parse as JSON (key must be a string at line 1 column 12); fix it, then run again — nothing was changed",
        )
        .write(CLAUDE, "{\"env\": {\"A\": \"1\", \"A\": \"2\"}}\n")
        .args(["hooks", "install", "--agent", "claude-code"])
        .refused(
            "hooks",
            ".claude/settings.json does not parse as JSON (the key \"A\" appears twice at line 1 column 22); fix it, then run again — nothing was changed",
        )
        // serde_json reads an integer beyond 64 bits as a double: its digits would be lost.
        .write(CLAUDE, "{\"env\": {\"ID\": 123456789012345678901234567890}}\n")
        .args(["hooks", "install", "--agent", "claude-code"])
        .refused(
            "hooks",
            ".claude/settings.json does not parse as JSON (a number too large to keep exactly: 123456789012345680000000000000 at line 1 column 45); fix it, then run again — nothing was changed",
        )
        .write(GEMINI, "{\"hooks\": []}\n")
        .args(["hooks", "install", "--agent", "gemini"])
        .refused(
            "hooks",
            ".gemini/settings.json: \"hooks\" must be an object; fix it, then run again — nothing was changed",
        )
        .write(CODEX, "[1]\n")
        .args(["hooks", "install", "--agent", "codex", "--dry-run"])
        .refused(
            "hooks",
            ".codex/hooks.json: the file must hold a JSON object; fix it, then run again — nothing was changed",
        )
        .args(["hooks", "install", "--agent", "cursor"])
        .refused("hooks", "unknown agent 'cursor' — expected claude-code | codex | gemini")
        .args(["hooks", "install"])
        .refused("hooks", "--agent <agent> is required");
}

/// The folder holding the binary under test, for `PATH`.
fn bin_dir() -> PathBuf {
    Path::new(BIN).parent().unwrap().to_path_buf()
}

/// The installed command for `event` in `file`.
fn installed(p: &TestProject, file: &str, event: &str) -> String {
    let settings: Value = serde_json::from_str(&p.read_text(file)).unwrap();
    let groups = settings["hooks"][event].as_array().unwrap();
    groups
        .iter()
        .flat_map(|g| g["hooks"].as_array().unwrap())
        .map(|h| h["command"].as_str().unwrap().to_owned())
        .find(|c| c.starts_with("bmad-mem"))
        .unwrap()
}

/// Runs `command` as the agent does (`sh -c`, from the project, the payload on stdin):
/// (exit status, stdout, stderr).
fn run_hook(p: &TestProject, command: &str, payload: &str) -> (i32, String, String) {
    let root = p.path("");
    let root = root.to_str().unwrap().trim_end_matches('/');
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/hooks")
        .join(payload);
    let text = std::fs::read_to_string(fixture)
        .unwrap()
        .replace("{root}", root);
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = Command::new("sh")
        .args(["-c", command])
        .current_dir(root)
        .env("PATH", path)
        .env("HOME", p.base().join("home"))
        .env("BMAD_PLUS_BRAIN", "")
        .env("BMAD_MEM_NOW", NOW)
        .env("CLAUDE_PROJECT_DIR", root)
        .env("GEMINI_PROJECT_DIR", root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A project with boundaries, a context file, and the agent's hooks installed.
fn guarded(agent: &str) -> TestProject {
    TestProject::new()
        .write(".agents/memory/access-boundaries.md", BOUNDARIES)
        .write(
            ".agents/memory/context.md",
            "# Context\n\nThe answer is 42.\n",
        )
        .write("src/lib.rs", "pub fn answer() -> u32 { 41 }\n")
        .args(["hooks", "install", "--agent", agent])
        .code(0)
        .run()
        .then()
}

#[test]
fn claude_code_runs_the_installed_hooks() {
    let p = guarded("claude-code");
    let (code, out, _) = run_hook(
        &p,
        &installed(&p, CLAUDE, "SessionStart"),
        "claude-code/session-start.json",
    );
    assert_eq!(code, 0);
    assert!(out.starts_with("# Session brief — project\n"), "{out}");
    assert!(out.contains("The answer is 42."), "{out}");
    let guard = installed(&p, CLAUDE, "PreToolUse");
    assert_eq!(
        run_hook(&p, &guard, "claude-code/pre-tool-use-write.json"),
        (0, String::new(), String::new())
    );
    // A relative `cwd` is taken from the folder the hook runs in, not from `/`.
    assert_eq!(
        run_hook(&p, &guard, "claude-code/pre-tool-use-write-relative.json"),
        (0, String::new(), String::new())
    );
    let (code, out, err) = run_hook(&p, &guard, "claude-code/pre-tool-use-edit-env.json");
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        "bmad-mem guard: write .env denied: `**/.env` is a deny zone in .agents/memory/access-boundaries.md\n"
    );
    let stop = installed(&p, CLAUDE, "Stop");
    let (code, out, _) = run_hook(&p, &stop, "claude-code/stop.json");
    assert_eq!(code, 0);
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(answer["decision"], "block");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("bmad-mem handoff")
    );
    // Once a handoff is written today, the reminder is quiet.
    let p = p
        .args(["handoff", "--topic", "answer"])
        .code(0)
        .run()
        .then();
    assert_eq!(
        run_hook(&p, &stop, "claude-code/stop.json"),
        (0, String::new(), String::new())
    );
}

#[test]
fn codex_runs_the_installed_hooks() {
    let p = guarded("codex");
    let (code, out, _) = run_hook(
        &p,
        &installed(&p, CODEX, "SessionStart"),
        "codex/session-start.json",
    );
    assert_eq!(code, 0);
    assert!(out.contains("The answer is 42."), "{out}");
    let guard = installed(&p, CODEX, "PreToolUse");
    assert_eq!(
        run_hook(&p, &guard, "codex/pre-tool-use-apply-patch.json").0,
        0
    );
    let (code, _, err) = run_hook(&p, &guard, "codex/pre-tool-use-apply-patch-env.json");
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "bmad-mem guard: write config/.env denied: `**/.env` is a deny zone in .agents/memory/access-boundaries.md\n"
    );
    // Codex takes a file header with blanks before it as a header too: so does the guard.
    let (code, _, err) = run_hook(&p, &guard, "codex/pre-tool-use-apply-patch-indented.json");
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "bmad-mem guard: write config/.env denied: `**/.env` is a deny zone in .agents/memory/access-boundaries.md\n"
    );
    let (code, out, _) = run_hook(&p, &installed(&p, CODEX, "Stop"), "codex/stop.json");
    assert_eq!(code, 0);
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(answer["decision"], "block");
}

#[test]
fn gemini_runs_the_installed_hooks() {
    let p = guarded("gemini");
    let (code, out, _) = run_hook(
        &p,
        &installed(&p, GEMINI, "SessionStart"),
        "gemini/session-start.json",
    );
    assert_eq!(code, 0);
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"],
        "SessionStart"
    );
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.starts_with("# Session brief — project\n"),
        "{context}"
    );
    let guard = installed(&p, GEMINI, "BeforeTool");
    assert_eq!(
        run_hook(&p, &guard, "gemini/before-tool-write-file.json"),
        (0, "{}\n".to_owned(), String::new())
    );
    let (code, out, err) = run_hook(&p, &guard, "gemini/before-tool-replace-env.json");
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("`**/.env` is a deny zone"), "{err}");
    let (code, out, _) = run_hook(
        &p,
        &installed(&p, GEMINI, "AfterAgent"),
        "gemini/after-agent.json",
    );
    assert_eq!(code, 0);
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(answer["decision"], "deny");
}

/// A missing folder and a `..` after it do not turn link resolution off: every agent's write
/// through `src/new/../link` is judged where the kernel puts it once the agent's tool has
/// created `src/new` — in the deny zone `src/link` leads to, or outside the project.
#[test]
fn a_way_back_out_of_a_missing_folder_is_guarded_for_every_agent() {
    const RULES: &str =
        "## Read Access\n- .\n\n## Write Access\n- src/\n\n## Deny Zones\n- src/secrets/\n";
    let deny_zone =
        "denied: `src/secrets/` is a deny zone in .agents/memory/access-boundaries.md\n";
    let mut got = Vec::new();
    let mut want = Vec::new();
    for (agent, file, event, payload) in [
        (
            "claude-code",
            CLAUDE,
            "PreToolUse",
            "claude-code/pre-tool-use-write-through-missing.json",
        ),
        (
            "codex",
            CODEX,
            "PreToolUse",
            "codex/pre-tool-use-apply-patch-through-missing.json",
        ),
        (
            "gemini",
            GEMINI,
            "BeforeTool",
            "gemini/before-tool-write-file-through-missing.json",
        ),
    ] {
        let p = guarded(agent)
            .write(".agents/memory/access-boundaries.md", RULES)
            .write("src/secrets/key", "k\n")
            .mkdir("../outside")
            .symlink("secrets", "src/link")
            .symlink("../../outside", "src/out");
        let outside = p.base().join("outside/notes.md");
        let reason = if agent == "codex" {
            format!(
                "bmad-mem guard: write {} denied: not under Write Access in .agents/memory/access-boundaries.md\n",
                outside.display()
            )
        } else {
            format!("bmad-mem guard: write src/secrets/key {deny_zone}")
        };
        let (code, out, err) = run_hook(&p, &installed(&p, file, event), payload);
        got.push((agent, code, out, err));
        want.push((agent, 2, String::new(), reason));
        assert!(!p.path("src/new").exists(), "{agent}");
    }
    assert_eq!(got, want);
}
