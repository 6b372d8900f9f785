//! `guard`: the decision table (paths × rules × expected decisions, traversal and link tricks
//! included), the two files that must both allow, the opt-in default, the exit statuses
//! (0 allowed, 2 denied, 1 refused) and the refusals, which change nothing.

use serde::Deserialize;

use crate::support::TestProject;

const BOUNDARIES: &str = ".agents/memory/access-boundaries.md";
const FORGE: &str = "_bmad/memory/forge-sidecar/access-boundaries.md";

const PROJECT_RULES: &str = "# Access Boundaries for the project

## Read Access
- .

## Write Access
- src/
- docs/*.md
- ../common/

## Deny Zones
- src/secrets/
- **/.env
- .agents/memory/access-boundaries.md
";

const FORGE_RULES: &str = "# Access Boundaries for forge

## Read Access
- src
- docs

## Write Access
- `src/`

## Deny Zones
- src/generated/
";

/// `guard --json`'s answer.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Answer {
    decision: String,
    path: String,
    rule: Option<String>,
    file: Option<String>,
}

/// The project with both boundaries files and the links the table plays tricks with; `outside`
/// and `shared` are folders next to the project.
fn project() -> TestProject {
    TestProject::new()
        .write(BOUNDARIES, PROJECT_RULES)
        .write(FORGE, FORGE_RULES)
        .write("src/main.rs", "fn main() {}\n")
        .write("src/secrets/key", "k\n")
        .write("README.md", "r\n")
        .mkdir("docs")
        .mkdir("../outside")
        .mkdir("../shared")
        .symlink("src/secrets", "link-to-secrets")
        .symlink("../../outside", "src/escape")
        .symlink("../src", "docs/up")
        .symlink("/etc", "sneaky")
}

/// agent, access, path asked, decision, path shown, rule, file.
type Row<'a> = (
    &'a str,
    &'a str,
    String,
    &'a str,
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
);

#[test]
fn decision_table() {
    let mut p = project();
    let base = p.base().to_string_lossy().into_owned();
    let abs = |rel: &str| format!("{base}/{rel}");
    let (allow, deny) = ("allow", "deny");
    let (pf, sf) = (Some(BOUNDARIES), Some(FORGE));
    let (outside_f, shared_notes, shared_ab) = (
        abs("outside/f"),
        abs("common/notes.md"),
        abs("common/a/b.md"),
    );
    #[rustfmt::skip]
    let table: Vec<Row> = vec![
        // agent, access, path asked, decision, path shown, rule, file
        ("any", "--write", "src/main.rs".into(), allow, "src/main.rs", Some("src/"), pf),
        ("any", "--write", "src/new/deep/file.rs".into(), allow, "src/new/deep/file.rs", Some("src/"), pf),
        ("any", "--write", "src".into(), allow, "src", Some("src/"), pf),
        ("any", "--write", "srcx/a.rs".into(), deny, "srcx/a.rs", None, pf),
        ("any", "--write", "src/secrets/key".into(), deny, "src/secrets/key", Some("src/secrets/"), pf),
        ("any", "--write", "src/secrets".into(), deny, "src/secrets", Some("src/secrets/"), pf),
        // Traversal: `..` is resolved before matching.
        ("any", "--write", "./src/../src/secrets/key".into(), deny, "src/secrets/key", Some("src/secrets/"), pf),
        ("any", "--write", "src/x/../../README.md".into(), deny, "README.md", None, pf),
        ("any", "--write", "../project/src/main.rs".into(), allow, "src/main.rs", Some("src/"), pf),
        ("any", "--write", "../../../../../../../../../etc/passwd".into(), deny, "/etc/passwd", None, pf),
        // Links: the path the file system reaches is the one judged.
        ("any", "--write", "link-to-secrets/key".into(), deny, "src/secrets/key", Some("src/secrets/"), pf),
        ("any", "--write", "link-to-secrets/new".into(), deny, "src/secrets/new", Some("src/secrets/"), pf),
        ("any", "--write", "src/escape/f".into(), deny, &outside_f, None, pf),
        ("any", "--write", "docs/up/main.rs".into(), allow, "src/main.rs", Some("src/"), pf),
        ("any", "--read", "sneaky/hostname".into(), deny, "/etc/hostname", None, pf),
        // A `..` out of a folder that does not exist yet follows links again, as the kernel
        // will once the folder is created.
        ("any", "--write", "src/new/../../link-to-secrets/key".into(), deny, "src/secrets/key", Some("src/secrets/"), pf),
        ("any", "--write", "new/deeper/../../src/escape/f".into(), deny, &outside_f, None, pf),
        ("any", "--write", "src/new/../../docs/up/new/../main.rs".into(), allow, "src/main.rs", Some("src/"), pf),
        // Outside the project: denied unless listed.
        ("any", "--write", abs("common/notes.md"), allow, &shared_notes, Some("../common/"), pf),
        ("any", "--write", "../common/a/b.md".into(), allow, &shared_ab, Some("../common/"), pf),
        ("any", "--read", "/etc/hostname".into(), deny, "/etc/hostname", None, pf),
        ("any", "--read", abs("project/README.md"), allow, "README.md", Some("."), pf),
        // Globs: `*` stays within a folder, `**` crosses folders.
        ("any", "--write", "docs/a.md".into(), allow, "docs/a.md", Some("docs/*.md"), pf),
        ("any", "--write", "docs/sub/a.md".into(), deny, "docs/sub/a.md", None, pf),
        ("any", "--read", ".env".into(), deny, ".env", Some("**/.env"), pf),
        ("any", "--read", "deep/er/.env".into(), deny, "deep/er/.env", Some("**/.env"), pf),
        // Read and write are separate lists.
        ("any", "--read", "README.md".into(), allow, "README.md", Some("."), pf),
        ("any", "--write", BOUNDARIES.into(), deny, BOUNDARIES, Some(BOUNDARIES), pf),
        // A sidecar applies to its agent too: both files must allow.
        ("forge", "--write", "src/main.rs".into(), allow, "src/main.rs", Some("src/"), sf),
        ("forge", "--read", "docs/x.md".into(), allow, "docs/x.md", Some("docs"), sf),
        ("forge", "--write", "src/generated/x.rs".into(), deny, "src/generated/x.rs", Some("src/generated/"), sf),
        ("forge", "--read", "README.md".into(), deny, "README.md", None, sf),
        ("forge", "--write", "docs/a.md".into(), deny, "docs/a.md", None, sf),
        ("forge", "--write", "src/secrets/key".into(), deny, "src/secrets/key", Some("src/secrets/"), pf),
        ("other", "--write", "src/generated/x.rs".into(), allow, "src/generated/x.rs", Some("src/"), pf),
    ];
    for (agent, access, path, decision, shown, rule, file) in table {
        let ran = p
            .args(["guard", "--json", "--agent", agent, access, &path])
            .code(if decision == allow { 0 } else { 2 })
            .stderr("")
            .run();
        let got: Answer = ran.json();
        let want = Answer {
            decision: decision.to_owned(),
            path: shown.to_owned(),
            rule: rule.map(str::to_owned),
            file: file.map(str::to_owned),
        };
        assert_eq!(got, want, "guard --agent {agent} {access} {path}");
        p = ran.then();
    }
}

#[test]
fn human_lines_and_exit_statuses() {
    let p = project()
        .args(["guard", "--agent", "any", "--write", "src/main.rs"])
        .code(0)
        .stdout("write src/main.rs allowed by `src/` in .agents/memory/access-boundaries.md\n")
        .stderr("")
        .run()
        .then()
        .args(["guard", "--agent", "any", "--write", "link-to-secrets/key"])
        .code(2)
        .stdout("write src/secrets/key denied: `src/secrets/` is a deny zone in .agents/memory/access-boundaries.md\n")
        .stderr("")
        .unchanged()
        .run()
        .then();
    let _ = p
        .args(["guard", "--agent", "forge", "--read", "README.md"])
        .code(2)
        .stdout("read README.md denied: not under Read Access in _bmad/memory/forge-sidecar/access-boundaries.md\n")
        .run();
}

#[test]
fn without_a_boundaries_file_everything_is_allowed() {
    let ran = TestProject::new()
        .args([
            "guard",
            "--json",
            "--agent",
            "forge",
            "--write",
            "../../../../../../../../../etc/passwd",
        ])
        .code(0)
        .unchanged()
        .run();
    let got: Answer = ran.json();
    assert_eq!(
        got,
        Answer {
            decision: "allow".to_owned(),
            path: "/etc/passwd".to_owned(),
            rule: None,
            file: None,
        }
    );
    // A sidecar alone guards its own agent only.
    let p = ran
        .then()
        .write(FORGE, FORGE_RULES)
        .args(["guard", "--agent", "other", "--write", "README.md"])
        .code(0)
        .stdout("write README.md allowed: no access-boundaries file\n")
        .run()
        .then();
    let _ = p
        .args(["guard", "--agent", "forge", "--write", "README.md"])
        .code(2)
        .run();
}

#[test]
fn refusals_exit_1_and_change_nothing() {
    let p = project()
        .args(["guard", "--write", "src/main.rs"])
        .refused("guard", "--agent <name> is required")
        .args(["guard", "--agent", "forge", "src/main.rs"])
        .refused("guard", "one of --read or --write is required")
        .args(["guard", "--agent", "forge", "--read"])
        .refused("guard", "a path is required")
        .args(["guard", "--agent", "../x", "--read", "a"])
        .refused(
            "guard",
            "agent name must be 1 to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-': ../x",
        )
        .args(["guard", "--agent", "forge", "--read", "--write", "a"])
        .code(1)
        .stdout("")
        .unchanged()
        .run()
        .then()
        .write(BOUNDARIES, "## Deny Zones\n- a[\n")
        .args(["guard", "--agent", "forge", "--read", "a"])
        .refused(
            "guard",
            ".agents/memory/access-boundaries.md line 2: invalid pattern a[: error parsing glob 'a[': unclosed character class; missing ']'",
        )
        .remove(BOUNDARIES)
        .symlink("../../README.md", BOUNDARIES)
        .args(["guard", "--agent", "forge", "--read", "a"])
        .refused(
            "guard",
            ".agents/memory/access-boundaries.md: Memory paths cannot follow symbolic links or junctions.",
        );
    let _ = p
        .args(["guard", "--agent", "forge", "--hook", "cursor"])
        .code(1)
        .stdout("")
        .unchanged()
        .run();
}

const SIDECAR_BOUNDARIES: &str = "# Access Boundaries for forge

Checked before every file operation (`bmad-mem guard --agent forge`).
One path or glob a line; a folder covers everything below it; deny zones win;
a path no line names is denied.

## Read Access
- .

## Write Access
- _bmad/memory/forge-sidecar/

## Deny Zones
- .git/
- **/.env
- _bmad/memory/forge-sidecar/access-boundaries.md
";

#[test]
fn init_sidecar_creates_what_is_missing_and_never_overwrites() {
    let dir = "_bmad/memory/forge-sidecar";
    let p = crate::support::home::project()
        .write(&format!("{dir}/index.md"), "# mine\n")
        .args(["init", "--sidecar", "forge"])
        .code(0)
        .file(&format!("{dir}/index.md"), "# mine\n")
        .file(&format!("{dir}/access-boundaries.md"), SIDECAR_BOUNDARIES)
        .file(
            &format!("{dir}/chronology.md"),
            "# forge — chronology\n\nAppend-only: session summaries and significant events, newest last.\n\n- 2026-10-18: sidecar created\n",
        )
        .run()
        .then();
    assert!(p.path(&format!("{dir}/patterns.md")).is_file());
    // The sidecar's boundaries guard its agent at once.
    let p = p
        .args(["guard", "--agent", "forge", "--write", "src/main.rs"])
        .code(2)
        .run()
        .then()
        .args([
            "guard",
            "--agent",
            "forge",
            "--write",
            &format!("{dir}/patterns.md"),
        ])
        .code(0)
        .run()
        .then()
        // The agent may not widen its own boundaries.
        .args([
            "guard",
            "--agent",
            "forge",
            "--write",
            &format!("{dir}/access-boundaries.md"),
        ])
        .code(2)
        .run()
        .then()
        .args(["init", "--sidecar", "forge"])
        .code(0)
        .unchanged()
        .run()
        .then();
    let _ = p
        .args(["init", "--sidecar", "../x"])
        .refused(
            "init",
            "agent name must be 1 to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-': ../x",
        );
}

#[test]
fn brief_agent_starts_with_the_sidecar_index_and_boundaries() {
    let ran = crate::support::home::project()
        .write(
            "_bmad/memory/forge-sidecar/index.md",
            "# forge\n\nWorking on the parser.\n",
        )
        .write(FORGE, FORGE_RULES)
        .write(BOUNDARIES, PROJECT_RULES)
        .write(".agents/memory/context.md", "# Context\n\nA CLI.\n")
        .args(["brief", "--agent", "forge"])
        .code(0)
        .run();
    let out = &ran.stdout;
    let at = |needle: &str| {
        out.find(needle)
            .unwrap_or_else(|| panic!("{needle:?} missing\n{out}"))
    };
    assert!(
        at("## Sidecar of forge — _bmad/memory/forge-sidecar/index.md")
            < at("Working on the parser.")
    );
    assert!(
        at("Working on the parser.")
            < at("## Access boundaries — .agents/memory/access-boundaries.md")
    );
    assert!(
        at("## Access boundaries — .agents/memory/access-boundaries.md")
            < at("## Access boundaries — _bmad/memory/forge-sidecar/access-boundaries.md")
    );
    assert!(
        at("## Access boundaries — _bmad/memory/forge-sidecar/access-boundaries.md")
            < at("## Context")
    );
    // Without --agent, the brief is as it was.
    let plain = ran.then().args(["brief"]).code(0).run();
    assert!(!plain.stdout.contains("Sidecar"), "{}", plain.stdout);
    let _ = plain
        .then()
        .args(["brief", "--agent", "a/b"])
        .refused(
            "brief",
            "agent name must be 1 to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-': a/b",
        );
}

/// Runs `guard --hook <agent>` in `p` with `payload` on stdin: (status, stdout, stderr).
fn hook(p: &TestProject, agent: &str, payload: &str) -> (i32, String, String) {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut command = p.command();
    command
        .args(["guard", "--agent", "forge", "--hook", agent])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(payload.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Reads and shell commands are judged in hook mode, for each agent's tools; what cannot be
/// judged is blocked (exit 2), never let through (an exit 1 is a failed hook the agents ignore).
#[test]
fn hook_mode_judges_reads_and_shell_writes_and_blocks_what_it_cannot_judge() {
    let p = project();
    let root = p.path("");
    let root = root.to_str().unwrap();
    let call = |tool: &str, input: serde_json::Value| {
        serde_json::json!({"cwd": root, "tool_name": tool, "tool_input": input}).to_string()
    };
    let cases: Vec<(&str, String, i32)> = vec![
        // Claude Code: Grep and Glob name a folder, Bash a command.
        (
            "claude-code",
            call(
                "Grep",
                serde_json::json!({"pattern": "k", "path": "src/secrets"}),
            ),
            2,
        ),
        (
            "claude-code",
            call(
                "Glob",
                serde_json::json!({"pattern": "*.rs", "path": "src"}),
            ),
            0,
        ),
        (
            "claude-code",
            call(
                "Bash",
                serde_json::json!({"command": "cat src/main.rs | tee src/secrets/copy"}),
            ),
            2,
        ),
        (
            "claude-code",
            call(
                "Bash",
                serde_json::json!({"command": "cargo build > src/build.log 2>&1"}),
            ),
            0,
        ),
        (
            "claude-code",
            call("Bash", serde_json::json!({"command": "echo x > README.md"})),
            2,
        ),
        (
            "claude-code",
            call(
                "Bash",
                serde_json::json!({"command": "ls -la && git status"}),
            ),
            0,
        ),
        // Codex: the shell tool, with a patch in a heredoc.
        (
            "codex",
            call(
                "Bash",
                serde_json::json!({"command": "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: src/secrets/new\n+x\n*** End Patch\nEOF\n"}),
            ),
            2,
        ),
        (
            "codex",
            call(
                "Bash",
                serde_json::json!({"command": "cd src && sed -i 's/a/b/' main.rs"}),
            ),
            0,
        ),
        // Gemini CLI: folder reads, many files, the shell with its folder.
        (
            "gemini",
            call(
                "list_directory",
                serde_json::json!({"dir_path": "src/secrets"}),
            ),
            2,
        ),
        (
            "gemini",
            call(
                "read_many_files",
                serde_json::json!({"include": ["docs/*.md", "src/secrets/**"]}),
            ),
            2,
        ),
        (
            "gemini",
            call(
                "grep_search",
                serde_json::json!({"pattern": "x", "dir_path": "src"}),
            ),
            0,
        ),
        (
            "gemini",
            call(
                "run_shell_command",
                serde_json::json!({"command": "rm key", "dir_path": "src/secrets"}),
            ),
            2,
        ),
        (
            "gemini",
            call("web_fetch", serde_json::json!({"prompt": "x"})),
            0,
        ),
    ];
    for (agent, payload, expected) in &cases {
        let (code, out, err) = hook(&p, agent, payload);
        assert_eq!(code, *expected, "{agent} {payload}: {out}{err}");
        if *expected == 2 {
            assert!(err.starts_with("bmad-mem guard: "), "{err}");
        }
    }
    // What cannot be judged is blocked, with the reason.
    for (agent, payload, why) in [
        ("claude-code", "not json".to_owned(), "is not valid JSON"),
        ("codex", "{}".to_owned(), "no tool_name"),
        (
            "claude-code",
            call(
                "Bash",
                serde_json::json!({"command": "echo 'unclosed > src/x"}),
            ),
            "cannot read the shell command (a ' quote is never closed)",
        ),
    ] {
        let (code, out, err) = hook(&p, agent, &payload);
        assert_eq!((code, out.as_str()), (2, ""), "{payload}");
        assert!(
            err.starts_with("bmad-mem guard: blocked, the call could not be checked: ")
                && err.contains(why),
            "{payload}: {err}"
        );
    }
    // Gemini CLI reads stdout as JSON: a blocked call prints nothing there.
    let (code, out, _) = hook(&p, "gemini", "[");
    assert_eq!((code, out.as_str()), (2, ""));
}
