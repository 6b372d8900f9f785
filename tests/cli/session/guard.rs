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
