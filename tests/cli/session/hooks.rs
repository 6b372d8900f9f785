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
        "matcher": "startup|resume|clear|compact",
        "hooks": [
          {
            "type": "command",
            "command": "sh -c 'command -v bmad-mem >/dev/null 2>&1 || { echo \"bmad-mem: not on this agent PATH, so this hook did nothing; install it or add its folder to the PATH the agent starts with\" >&2; exit 0; }; exec bmad-mem ${CLAUDE_PROJECT_DIR:+-d \"${CLAUDE_PROJECT_DIR}\"} brief'"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Edit|MultiEdit|Write|NotebookEdit|Read|Grep|Glob|Bash",
        "hooks": [
          {
            "type": "command",
            "command": "sh -c 'command -v bmad-mem >/dev/null 2>&1 || { echo \"bmad-mem guard: blocked, bmad-mem is not on this agent PATH so the call cannot be checked; install it or add its folder to the PATH the agent starts with\" >&2; exit 2; }; exec bmad-mem ${CLAUDE_PROJECT_DIR:+-d \"${CLAUDE_PROJECT_DIR}\"} guard --hook claude-code --agent claude-code'"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "sh -c 'command -v bmad-mem >/dev/null 2>&1 || { echo \"bmad-mem: not on this agent PATH, so this hook did nothing; install it or add its folder to the PATH the agent starts with\" >&2; exit 0; }; exec bmad-mem ${CLAUDE_PROJECT_DIR:+-d \"${CLAUDE_PROJECT_DIR}\"} hooks remind --agent claude-code'"
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
        .env("PATH", path_with_bin())
        .args(["hooks", "install", "--agent", "claude-code"])
        .code(0)
        .stderr("")
        .file(CLAUDE, CLAUDE_FRESH)
        .run();
    assert!(
        ran.stdout
            .starts_with("created .claude/settings.json: 3 hooks added\n")
    );
    let _ = ran
        .then()
        .args(["hooks", "install", "--agent", "claude-code"])
        .code(0)
        .stdout(".claude/settings.json already has bmad-mem's claude-code hooks; nothing changed\nnext: check that the hooks work: bmad-mem hooks check --agent claude-code\n")
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
    assert_eq!(
        pre[1]["matcher"],
        "Edit|MultiEdit|Write|NotebookEdit|Read|Grep|Glob|Bash"
    );
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

/// `PATH` with the binary under test first.
fn path_with_bin() -> String {
    format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The installed bmad-mem command for `event` in `file` whose group matches `subject` (all
/// groups when `None`).
fn installed_for(p: &TestProject, file: &str, event: &str, subject: Option<&str>) -> String {
    let settings: Value = serde_json::from_str(&p.read_text(file)).unwrap();
    let groups = settings["hooks"][event].as_array().unwrap();
    groups
        .iter()
        .filter(|g| match (subject, g["matcher"].as_str()) {
            (Some(subject), Some(m)) => m == subject || regex_lite_match(m, subject),
            _ => true,
        })
        .flat_map(|g| g["hooks"].as_array().unwrap())
        .map(|h| h["command"].as_str().unwrap().to_owned())
        .find(|c| c.contains("bmad-mem"))
        .unwrap_or_else(|| panic!("no {event} hook for {subject:?} in {file}"))
}

/// The installed command for `event` in `file`.
fn installed(p: &TestProject, file: &str, event: &str) -> String {
    installed_for(p, file, event, None)
}

/// An alternation matcher (`a|b|c`, maybe anchored `^(a|b)$`) against a name, as the agents'
/// regular expressions read the matchers bmad-mem writes.
fn regex_lite_match(matcher: &str, name: &str) -> bool {
    let inner = matcher.trim_start_matches("^(").trim_end_matches(")$");
    inner.split('|').any(|alt| alt == name)
}

/// How an agent starts a hook command, from its shipped code: Claude Code through `sh -c` with
/// `CLAUDE_PROJECT_DIR` set; Codex through the user's login shell (`$SHELL -lc`, here `sh`) in
/// the session's folder with no variable; Gemini CLI through `bash -c` after replacing
/// `$GEMINI_PROJECT_DIR`, `$GEMINI_CWD` and `$CLAUDE_PROJECT_DIR` in the command text by the
/// folder quoted with `shell-quote` (its hookRunner's `expandCommand`), the variables also set.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Agent {
    Claude,
    Codex,
    Gemini,
}

/// `shell-quote`'s `quote([s])` (the npm package Gemini CLI quotes with), written again here
/// from its source so that the test does not trust the code under test.
fn shell_quote(s: &str) -> String {
    let ws = |c: char| c.is_whitespace();
    if s.chars().any(|c| c == '"' || c == '\\' || ws(c)) && !s.contains('\'') {
        return format!("'{}'", s.replace('\'', "\\'"));
    }
    if s.chars().any(|c| c == '"' || c == '\'' || ws(c)) {
        let mut out = String::from("\"");
        for c in s.chars() {
            if matches!(c, '"' | '\\' | '$' | '`' | '!') {
                out.push('\\');
            }
            out.push(c);
        }
        return out + "\"";
    }
    s.chars()
        .map(|c| {
            if "#!\"$&'()*,:;<=>?@[\\]^`{|}".contains(c) {
                format!("\\{c}")
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Runs `command` as `agent` does, from `cwd` (the session's folder) in project `root`, with
/// `payload` (a fixture, `{root}` replaced) on stdin and `path` as `PATH`: (status, stdout,
/// stderr).
fn run_as(
    agent: Agent,
    root: &Path,
    cwd: &Path,
    command: &str,
    payload: &str,
    path: &str,
    home: &Path,
) -> (i32, String, String) {
    let root_text = root.to_str().unwrap().trim_end_matches('/');
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/hooks")
        .join(payload);
    // The root inside a JSON string: its quotes and backslashes escaped.
    let escaped = serde_json::to_string(root_text).unwrap();
    let text = std::fs::read_to_string(fixture)
        .unwrap()
        .replace("{root}", &escaped[1..escaped.len() - 1]);
    let (shell, flag, command) = match agent {
        Agent::Claude => ("sh", "-c", command.to_owned()),
        Agent::Codex => ("sh", "-lc", command.to_owned()),
        Agent::Gemini => {
            let quoted = shell_quote(root_text);
            let expanded = command
                .replace("$GEMINI_PROJECT_DIR", &quoted)
                .replace("$GEMINI_CWD", &quoted)
                .replace("$CLAUDE_PROJECT_DIR", &quoted);
            ("bash", "-c", expanded)
        }
    };
    let mut child = Command::new(shell);
    child
        .args([flag, &command])
        .current_dir(cwd)
        .env("PATH", path)
        .env("HOME", home)
        .env("BMAD_PLUS_BRAIN", "")
        .env("BMAD_MEM_NOW", NOW)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match agent {
        Agent::Claude => {
            child.env("CLAUDE_PROJECT_DIR", root_text);
        }
        Agent::Gemini => {
            child
                .env("GEMINI_PROJECT_DIR", root_text)
                .env("GEMINI_CWD", root_text)
                .env("CLAUDE_PROJECT_DIR", root_text);
        }
        // A login shell reads the system's and the user's profiles, which set `PATH` again: the
        // user's `~/.profile` is where `bmad-mem`'s folder is then (as `cargo install` advises).
        Agent::Codex => {
            std::fs::create_dir_all(home).unwrap();
            let quoted = path.replace('\'', "'\\''");
            std::fs::write(
                home.join(".profile"),
                format!("PATH='{quoted}'\nexport PATH\n"),
            )
            .unwrap();
        }
    }
    let mut child = child.spawn().unwrap();
    // A hook that does not read its input (the brief) may be gone before it is written: the
    // agents ignore that broken pipe too.
    let _ = child.stdin.take().unwrap().write_all(text.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Runs `command` as the agent does from the project root, `bmad-mem` on `PATH`.
fn run_hook(p: &TestProject, agent: Agent, command: &str, payload: &str) -> (i32, String, String) {
    let root = p.path("");
    run_as(
        agent,
        &root,
        &root,
        command,
        payload,
        &path_with_bin(),
        &p.base().join("home"),
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
        .env("PATH", path_with_bin())
        .args(["hooks", "install", "--agent", agent])
        .code(0)
        .run()
        .then()
}

const DENIED_ENV: &str = "bmad-mem guard: write .env denied: `**/.env` is a deny zone in .agents/memory/access-boundaries.md\n";

#[test]
fn claude_code_runs_the_installed_hooks() {
    let p = guarded("claude-code");
    let a = Agent::Claude;
    for source in ["startup", "resume", "clear", "compact"] {
        let (code, out, _) = run_hook(
            &p,
            a,
            &installed_for(&p, CLAUDE, "SessionStart", Some(source)),
            "claude-code/session-start.json",
        );
        assert_eq!(code, 0, "{source}");
        assert!(out.starts_with("# Session brief — project\n"), "{out}");
        assert!(out.contains("The answer is 42."), "{out}");
    }
    let guard = installed_for(&p, CLAUDE, "PreToolUse", Some("Write"));
    for tool in [
        "Read",
        "Grep",
        "Glob",
        "Bash",
        "Edit",
        "MultiEdit",
        "NotebookEdit",
    ] {
        assert_eq!(installed_for(&p, CLAUDE, "PreToolUse", Some(tool)), guard);
    }
    assert_eq!(
        run_hook(&p, a, &guard, "claude-code/pre-tool-use-write.json"),
        (0, String::new(), String::new())
    );
    // A relative `cwd` is taken from the folder the hook runs in, not from `/`.
    assert_eq!(
        run_hook(
            &p,
            a,
            &guard,
            "claude-code/pre-tool-use-write-relative.json"
        ),
        (0, String::new(), String::new())
    );
    let (code, out, err) = run_hook(&p, a, &guard, "claude-code/pre-tool-use-edit-env.json");
    assert_eq!((code, out.as_str(), err.as_str()), (2, "", DENIED_ENV));
    let (code, _, err) = run_hook(&p, a, &guard, "claude-code/pre-tool-use-read-env.json");
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "bmad-mem guard: read .env denied: `**/.env` is a deny zone in .agents/memory/access-boundaries.md\n"
        )
    );
    let (code, _, err) = run_hook(&p, a, &guard, "claude-code/pre-tool-use-bash-env.json");
    assert_eq!((code, err.as_str()), (2, DENIED_ENV));
    let stop = installed(&p, CLAUDE, "Stop");
    let (code, out, _) = run_hook(&p, a, &stop, "claude-code/stop.json");
    assert_eq!(code, 0);
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(answer["decision"], "block");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("bmad-mem handoff")
    );
    // Once per session: the same session's next turn ends quietly.
    assert_eq!(
        run_hook(&p, a, &stop, "claude-code/stop.json"),
        (0, String::new(), String::new())
    );
}

#[test]
fn codex_runs_the_installed_hooks_from_a_subfolder() {
    let p = guarded("codex").mkdir("src/deep");
    let a = Agent::Codex;
    let root = p.path("");
    // Codex runs its hooks in the session's folder and passes no project: started in a
    // subfolder, the project is still found.
    let sub = p.path("src/deep");
    let run = |command: &str, payload: &str| {
        run_as(
            a,
            &root,
            &sub,
            command,
            payload,
            &path_with_bin(),
            &p.base().join("home"),
        )
    };
    for source in ["startup", "resume", "clear", "compact"] {
        let (code, out, _) = run(
            &installed_for(&p, CODEX, "SessionStart", Some(source)),
            "codex/session-start.json",
        );
        assert_eq!(code, 0);
        assert!(out.contains("The answer is 42."), "{out}");
    }
    let guard = installed_for(&p, CODEX, "PreToolUse", Some("apply_patch"));
    assert_eq!(installed_for(&p, CODEX, "PreToolUse", Some("Bash")), guard);
    assert_eq!(run(&guard, "codex/pre-tool-use-apply-patch.json").0, 0);
    let config_env = "bmad-mem guard: write config/.env denied: `**/.env` is a deny zone in .agents/memory/access-boundaries.md\n";
    for payload in [
        "codex/pre-tool-use-apply-patch-env.json",
        // Codex takes a file header with blanks before it as a header too: so does the guard.
        "codex/pre-tool-use-apply-patch-indented.json",
        // A patch sent through the shell tool.
        "codex/pre-tool-use-bash-patch-env.json",
    ] {
        let (code, _, err) = run(&guard, payload);
        assert_eq!((code, err.as_str()), (2, config_env), "{payload}");
    }
    let (code, out, _) = run(&installed(&p, CODEX, "Stop"), "codex/stop.json");
    assert_eq!(code, 0);
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(answer["decision"], "block");
    assert!(!p.path("src/deep/.bmad").exists(), "no second memory");
}

#[test]
fn gemini_runs_the_installed_hooks() {
    let p = guarded("gemini");
    let a = Agent::Gemini;
    for source in ["startup", "resume", "clear"] {
        let (code, out, _) = run_hook(
            &p,
            a,
            &installed_for(&p, GEMINI, "SessionStart", Some(source)),
            "gemini/session-start.json",
        );
        assert_eq!(code, 0);
        let answer: Value = serde_json::from_str(&out).unwrap();
        let context = answer["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(
            context.starts_with("# Session brief — project\n"),
            "{context}"
        );
    }
    let guard = installed_for(&p, GEMINI, "BeforeTool", Some("write_file"));
    assert_eq!(
        run_hook(&p, a, &guard, "gemini/before-tool-write-file.json"),
        (0, "{}\n".to_owned(), String::new())
    );
    assert_eq!(
        run_hook(&p, a, &guard, "gemini/before-tool-list-directory.json"),
        (0, "{}\n".to_owned(), String::new())
    );
    for payload in [
        "gemini/before-tool-replace-env.json",
        "gemini/before-tool-read-file-env.json",
        "gemini/before-tool-shell-env.json",
    ] {
        let (code, out, err) = run_hook(&p, a, &guard, payload);
        assert_eq!((code, out.as_str()), (2, ""), "{payload}");
        assert!(err.contains("`**/.env` is a deny zone"), "{payload}: {err}");
    }
    let (code, out, _) = run_hook(
        &p,
        a,
        &installed(&p, GEMINI, "AfterAgent"),
        "gemini/after-agent.json",
    );
    assert_eq!(code, 0);
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(answer["decision"], "deny");
}

/// Project folders people really have: a space (`My Drive`), an `@` (`GoogleDrive-user@…`),
/// quotes and a `$`: every agent's hooks find the project through its own substitution.
#[test]
fn every_agent_finds_the_project_in_a_hostile_path() {
    for dir in [
        "My Drive/proj",
        "GoogleDrive-user@example.com/proj",
        "it's \"quoted\" $HOME & co/proj",
    ] {
        for (agent, name, file, start, pre, payload) in [
            (
                Agent::Claude,
                "claude-code",
                CLAUDE,
                "SessionStart",
                "PreToolUse",
                "claude-code/pre-tool-use-edit-env.json",
            ),
            (
                Agent::Codex,
                "codex",
                CODEX,
                "SessionStart",
                "PreToolUse",
                "codex/pre-tool-use-apply-patch-env.json",
            ),
            (
                Agent::Gemini,
                "gemini",
                GEMINI,
                "SessionStart",
                "BeforeTool",
                "gemini/before-tool-replace-env.json",
            ),
        ] {
            let p = guarded(name);
            let start_command = installed_for(&p, file, start, Some("startup"));
            let pre_command = installed_for(&p, file, pre, None);
            let root = p.base().join(dir);
            std::fs::create_dir_all(root.parent().unwrap()).unwrap();
            std::fs::rename(p.path(""), &root).unwrap();
            let home = p.base().join("home");
            let (code, out, err) = run_as(
                agent,
                &root,
                &root,
                &start_command,
                &format!("{name}/session-start.json"),
                &path_with_bin(),
                &home,
            );
            assert_eq!(code, 0, "{name} in {dir}: {err}");
            assert!(out.contains("The answer is 42."), "{name} in {dir}: {out}");
            let (code, _, err) = run_as(
                agent,
                &root,
                &root,
                &pre_command,
                payload,
                &path_with_bin(),
                &home,
            );
            assert_eq!(code, 2, "{name} in {dir}: {err}");
            assert!(err.contains("is a deny zone"), "{name} in {dir}: {err}");
            std::fs::rename(&root, p.path("")).unwrap();
        }
    }
}

/// An agent started from a desktop launcher has another `PATH`: without `bmad-mem` on it the
/// guard blocks (exit 2 with the reason, which every agent treats as a block), and the other
/// hooks do nothing but say why.
#[test]
fn without_bmad_mem_on_the_path_the_guard_blocks_and_the_rest_says_why() {
    for (agent, name, file, pre, payload, start, end, end_payload) in [
        (
            Agent::Claude,
            "claude-code",
            CLAUDE,
            "PreToolUse",
            "claude-code/pre-tool-use-write.json",
            "SessionStart",
            "Stop",
            "claude-code/stop.json",
        ),
        (
            Agent::Codex,
            "codex",
            CODEX,
            "PreToolUse",
            "codex/pre-tool-use-apply-patch.json",
            "SessionStart",
            "Stop",
            "codex/stop.json",
        ),
        (
            Agent::Gemini,
            "gemini",
            GEMINI,
            "BeforeTool",
            "gemini/before-tool-write-file.json",
            "SessionStart",
            "AfterAgent",
            "gemini/after-agent.json",
        ),
    ] {
        let p = guarded(name);
        let root = p.path("");
        let home = p.base().join("home");
        let bare = "/usr/bin:/bin";
        let (code, out, err) = run_as(
            agent,
            &root,
            &root,
            &installed(&p, file, pre),
            payload,
            bare,
            &home,
        );
        assert_eq!((code, out.as_str()), (2, ""), "{name}");
        assert!(
            err.starts_with("bmad-mem guard: blocked, bmad-mem is not on this agent PATH"),
            "{name}: {err}"
        );
        for (event, payload) in [
            (start, format!("{name}/session-start.json")),
            (end, end_payload.to_owned()),
        ] {
            let (code, out, err) = run_as(
                agent,
                &root,
                &root,
                &installed(&p, file, event),
                &payload,
                bare,
                &home,
            );
            assert_eq!((code, out.as_str()), (0, ""), "{name} {event}");
            assert!(err.starts_with("bmad-mem: not on this agent PATH"), "{err}");
        }
        // Install says so too.
        let ran = p
            .env("PATH", bare)
            .args(["hooks", "install", "--agent", name])
            .code(0)
            .run();
        assert!(
            ran.stderr.starts_with("warning: no bmad-mem on this PATH"),
            "{}",
            ran.stderr
        );
    }
}

#[test]
fn check_runs_every_hook_as_the_agent_does_and_fails_when_one_misbehaves() {
    for name in ["claude-code", "codex", "gemini"] {
        let p = guarded(name);
        // The check runs the hooks with this PATH; Codex's login shell reads ~/.profile.
        let home = p.base().join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(
            home.join(".profile"),
            format!("PATH='{}'\nexport PATH\n", path_with_bin()),
        )
        .unwrap();
        let ran = p
            .env("PATH", path_with_bin())
            .env("HOME", &home)
            .args(["hooks", "check", "--agent", name, "--json"])
            .code(0)
            .unchanged()
            .run();
        let report: Value = serde_json::from_str(&ran.stdout).unwrap();
        assert_eq!(report["ok"], true, "{name}: {}", ran.stdout);
        let whats: Vec<&str> = report["probes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["what"].as_str().unwrap())
            .collect();
        assert!(whats.contains(&"session start (startup)"), "{whats:?}");
        assert!(whats.contains(&"denied write .env"), "{whats:?}");
        assert!(whats.contains(&"denied shell write .env"), "{whats:?}");
        assert!(
            whats.iter().any(|w| w.starts_with("allowed write src/")),
            "{whats:?}"
        );
        if name != "codex" {
            assert!(whats.contains(&"denied read .env"), "{whats:?}");
        }
        // A guard that lets everything through fails the check.
        let p = ran.then();
        let file = match name {
            "claude-code" => CLAUDE,
            "codex" => CODEX,
            _ => GEMINI,
        };
        let text = p
            .read_text(file)
            .replace("guard --hook", "status --json --hook-was");
        let ran = p
            .write(file, text)
            .env("PATH", path_with_bin())
            .env("HOME", &home)
            .args(["hooks", "check", "--agent", name])
            .code(1)
            .run();
        assert!(
            ran.stdout.contains("FAIL denied write .env"),
            "{}",
            ran.stdout
        );
    }
    let _ = TestProject::new()
        .args(["hooks", "check", "--agent", "codex"])
        .refused(
            "hooks",
            ".codex/hooks.json holds none of bmad-mem's hooks; run `bmad-mem hooks install --agent codex` first",
        );
}

/// Uninstall takes out exactly what install put in: the user's file comes back byte for byte.
#[test]
fn uninstall_removes_exactly_what_install_added() {
    let p = TestProject::new()
        .write(CLAUDE, CLAUDE_EXISTING)
        .env("PATH", path_with_bin())
        .args(["hooks", "install", "--agent", "claude-code"])
        .code(0)
        .run()
        .then()
        .args(["hooks", "uninstall", "--agent", "claude-code"])
        .code(0)
        .file(CLAUDE, CLAUDE_EXISTING)
        .run()
        .then();
    let _ = p
        .args(["hooks", "uninstall", "--agent", "claude-code"])
        .code(0)
        .stdout(".claude/settings.json has no bmad-mem hook; nothing changed\n")
        .unchanged()
        .run();
    let _ = TestProject::new()
        .env("PATH", path_with_bin())
        .args(["hooks", "install", "--agent", "gemini"])
        .code(0)
        .run()
        .then()
        .args(["hooks", "uninstall", "--agent", "gemini"])
        .code(0)
        .file(GEMINI, "{}\n")
        .run();
}

/// Settings written by an earlier bmad-mem (`-d "$GEMINI_PROJECT_DIR"`, which Gemini CLI breaks
/// in a folder with a space): install replaces them, and nothing else.
#[test]
fn install_replaces_the_hooks_of_an_earlier_form() {
    let old = r#"{
  "theme": "dark",
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "name": "bmad-mem-brief",
            "type": "command",
            "command": "bmad-mem -d \"$GEMINI_PROJECT_DIR\" brief --hook gemini"
          }
        ]
      }
    ],
    "BeforeTool": [
      {
        "matcher": "write_file|replace",
        "hooks": [
          {
            "name": "bmad-mem-guard",
            "type": "command",
            "command": "bmad-mem -d \"$GEMINI_PROJECT_DIR\" guard --hook gemini --agent gemini"
          },
          {
            "type": "command",
            "command": "./lint-on-write.sh"
          }
        ]
      }
    ]
  }
}
"#;
    let ran = TestProject::new()
        .write(GEMINI, old)
        .env("PATH", path_with_bin())
        .args(["hooks", "install", "--agent", "gemini", "--json"])
        .code(0)
        .run();
    let report: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(report["removed"].as_array().unwrap().len(), 2);
    let after = ran.project.read_text(GEMINI);
    assert!(!after.contains("-d \\\"$GEMINI_PROJECT_DIR\\\""), "{after}");
    assert!(after.contains("./lint-on-write.sh"), "{after}");
    let settings: Value = serde_json::from_str(&after).unwrap();
    assert_eq!(settings["theme"], "dark");
    assert_eq!(
        settings["hooks"]["BeforeTool"][0]["matcher"],
        "write_file|replace"
    );
    assert_eq!(
        settings["hooks"]["BeforeTool"][0]["hooks"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

/// The reminder speaks once per session, and again only after new work follows a handoff.
#[test]
fn the_reminder_fires_once_per_session_and_after_new_work() {
    let p = guarded("claude-code");
    let stop = installed(&p, CLAUDE, "Stop");
    let asks = |p: &TestProject| {
        let (code, out, _) = run_hook(p, Agent::Claude, &stop, "claude-code/stop.json");
        assert_eq!(code, 0);
        !out.is_empty()
    };
    assert!(asks(&p), "first end of turn, nothing handed off");
    assert!(!asks(&p), "same session: once");
    let p = p
        .env("BMAD_MEM_NOW", "2026-10-18T09:50:00.000Z")
        .args(["handoff", "--topic", "answer"])
        .code(0)
        .run()
        .then();
    assert!(!asks(&p), "handed off, nothing since");
    let p = p
        .env("BMAD_MEM_NOW", "2026-10-18T10:00:00.000Z")
        .args(["write", "--agent", "forge", "--task", "more work"])
        .code(0)
        .run()
        .then();
    assert!(asks(&p), "work after the handoff");
    assert!(!asks(&p), "and once again only");
}

/// `--mcp` adds the server entry each agent reads (no path of this machine in it), once;
/// uninstall takes out exactly that entry; the entry starts a server that finds the project
/// from a subfolder.
#[test]
#[cfg(feature = "mcp")]
fn the_mcp_entry_is_added_once_and_taken_out_again() {
    let codex_user = "# mine\nmodel = \"gpt-5\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
    for (agent, file, user) in [
        (
            "claude-code",
            ".mcp.json",
            "{\n  \"mcpServers\": {\n    \"docs\": {\n      \"command\": \"docs-mcp\"\n    }\n  }\n}\n",
        ),
        ("codex", ".codex/config.toml", codex_user),
        ("gemini", GEMINI, "{\n  \"theme\": \"dark\"\n}\n"),
    ] {
        let p = TestProject::new()
            .write(file, user)
            .env("PATH", path_with_bin())
            .args(["hooks", "install", "--agent", agent, "--mcp", "--json"])
            .code(0)
            .run();
        let report: Value = serde_json::from_str(&p.stdout).unwrap();
        assert_eq!(
            report["mcp"],
            serde_json::json!({"file": file, "changed": true})
        );
        let text = p.project.read_text(file);
        assert!(text.contains("bmad-mem"), "{text}");
        assert!(
            !text.contains(p.project.base().to_str().unwrap()),
            "no machine path: {text}"
        );
        if agent == "codex" {
            assert!(
                text.starts_with(codex_user),
                "the user's TOML kept as written: {text}"
            );
            assert!(
                text.contains("[mcp_servers.bmad-mem]\ncommand = \"bmad-mem\"\nargs = [\"mcp\"]\n"),
                "{text}"
            );
        } else {
            let settings: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                settings["mcpServers"]["bmad-mem"]["args"],
                serde_json::json!(["mcp"])
            );
        }
        let p = p
            .then()
            .args(["hooks", "install", "--agent", agent, "--mcp"])
            .code(0)
            .unchanged()
            .run()
            .then();
        let p = p
            .args(["hooks", "uninstall", "--agent", agent, "--mcp"])
            .code(0)
            .run()
            .then();
        // Gemini CLI's file held the hooks too: both come out.
        assert_eq!(
            p.read_text(file),
            user,
            "{agent}: exactly what was added taken out"
        );
    }
}

/// The entry's command, started where an agent may start it (a subfolder), serves the
/// project's memory.
#[test]
#[cfg(feature = "mcp")]
fn the_mcp_entry_serves_the_project_from_a_subfolder() {
    let p = TestProject::new()
        .write(
            ".agents/memory/context.md",
            "# Context\n\nThe answer is 42.\n",
        )
        .mkdir("src/deep");
    let mut child = Command::new(BIN)
        .arg("mcp")
        .current_dir(p.path("src/deep"))
        .env("BMAD_MEM_NOW", NOW)
        .env("HOME", p.base().join("home"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let requests = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_brief","arguments":{}}}"#,
        "\n"
    );
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(requests.as_bytes()).unwrap();
    // Wait for the answer to the call before closing stdin.
    let mut out = child.stdout.take().unwrap();
    let mut seen = String::new();
    let mut buf = vec![0u8; 65536];
    while !seen.contains("\"id\":2") {
        use std::io::Read as _;
        let n = out.read(&mut buf).unwrap();
        assert!(n > 0, "the server ended early: {seen}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    drop(stdin);
    let _ = child.wait();
    assert!(seen.contains("The answer is 42."), "{seen}");
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
    for (kind, agent, file, event, payload) in [
        (
            Agent::Claude,
            "claude-code",
            CLAUDE,
            "PreToolUse",
            "claude-code/pre-tool-use-write-through-missing.json",
        ),
        (
            Agent::Codex,
            "codex",
            CODEX,
            "PreToolUse",
            "codex/pre-tool-use-apply-patch-through-missing.json",
        ),
        (
            Agent::Gemini,
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
        let (code, out, err) = run_hook(&p, kind, &installed(&p, file, event), payload);
        got.push((agent, code, out, err));
        want.push((agent, 2, String::new(), reason));
        assert!(!p.path("src/new").exists(), "{agent}");
    }
    assert_eq!(got, want);
}
