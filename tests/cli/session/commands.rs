//! The session commands around the journal — `init`, `status`, `brief`, `handoff`, `export`,
//! `scan` — against temporary projects with a temporary home (`HOME` is always set to
//! `<tempdir>/home` and `BMAD_PLUS_BRAIN` emptied, so the real home is never touched and the
//! caller's brain never leaks in). Every file format is pinned byte for byte; "a second run
//! changes nothing" is checked on a snapshot of the whole temporary folder, home included.

use std::fs;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bmad_mem::js::json::sha256_hex;
use serde::Deserialize;

use crate::support::home::{home, link_text, project, set_mtimes_below};
use crate::support::schema::{
    Brief, Exported, Found, HandedOff, Handoffs, Health, Note, Omitted, ScannedProject, Skipped,
};
use crate::support::{JOURNAL, TestProject};

const LINK: &str = ".agents/memory/.brain-link";
const DECISIONS_MD: &str = ".agents/memory/decisions.md";
const LESSONS_MD: &str = ".agents/memory/lessons.md";
const PATTERNS_MD: &str = ".agents/memory/patterns.md";
const CONTEXT_MD: &str = ".agents/memory/context.md";
const SESSIONS: &str = ".agents/memory/sessions";

// ---------------------------------------------------------------------------------------------
// Golden bytes of every template (date from NOW; `{root}` is the project's absolute path).
// ---------------------------------------------------------------------------------------------

const DECISIONS: &str = r#"---
title: Decisions
description: Architectural and strategic decisions, one entry each
created: "2026-10-18"
project: "project"
---

# Decisions

Non-obvious choices for this project: if you would explain "why" to a colleague, log it.
One entry per decision, readable in ten seconds, dated YYYY-MM-DD. Never delete one:
set its status to superseded or rolled-back and name the entry that replaces it.

Entry format (without the indentation):

    ### YYYY-MM-DD — <short title>
    - **Context**: why the decision was needed
    - **Decision**: what was chosen
    - **Rationale**: why
    - **Consequences**: what this unlocks / forecloses
    - **Status**: active / superseded / rolled-back

<!-- Entries go below this line. -->
"#;

const LESSONS: &str = r#"---
title: Lessons
description: What went wrong or surprised us, so it is not repeated
created: "2026-10-18"
project: "project"
---

# Lessons

Surprises and mistakes in this project, logged when they happen, not at the end of the session.

Entry format (without the indentation):

    ### YYYY-MM-DD — <what happened>
    - **Context**: the circumstances
    - **Impact**: what went wrong, what it cost
    - **Lesson**: the rule to follow next time
    - **Related**: the decision it concerns (date and title), if any

<!-- Entries go below this line. -->
"#;

const PATTERNS: &str = r#"---
title: Patterns
description: Solutions that worked and can be reused
created: "2026-10-18"
project: "project"
---

# Patterns

Reusable solutions for this project: the problem, the shape of the answer, its cost.

Entry format (without the indentation):

    ### <pattern name>
    - **Problem**: what it solves
    - **Shape**: the core idea in two or three sentences
    - **Trade-off**: what it costs
    - **Status**: candidate / validated / deprecated

<!-- Entries go below this line. -->
"#;

const CONTEXT: &str = r#"---
title: Project Context
description: Living state of the project, read at session start and updated at session end
created: "2026-10-18"
project: "project"
---

# Project Context

Readable in thirty seconds: update it when the state of the project changes.

## Project identity

- **Name**: project
- **Path**: {root}
- **Stack**: (to fill in)
- **Status**: active
- **Created**: 2026-10-18

## Current focus

<!-- What matters right now. -->

## Recent changes

<!-- The last five significant changes, newest first, dated. -->

## Architecture notes

<!-- Key constraints; the reasons live in decisions.md. -->

## Known issues

<!-- Active bugs and debt to keep in mind. -->

## Open questions

<!-- What needs a human decision. -->
"#;

const IDENTITY: &str = r#"# Identity: your preferences, read by agents at the start of every session, in every
# project. Edit freely: bmad-mem creates this file once and never rewrites it.

user_name: ""
communication_language: ""
created: "2026-10-18"

style:
  verbosity: "concise"        # concise | detailed | minimal
  explain_level: "expert"     # beginner | intermediate | expert

# Default technical choices, unless a project says otherwise.
stack: {}

# Rules every agent follows.
rules:
  - "Dates in ISO 8601 (YYYY-MM-DD), never relative."
  - "Never delete memory: archive, consolidate or supersede instead."
  - "Read an existing file entirely before changing it."
  - "Propose promotions to the brain; apply them only once approved."
"#;

const GLOBAL_DECISIONS: &str = r#"---
title: Decisions
description: Architectural and strategic decisions, one entry each
created: "2026-10-18"
project: "Global Brain"
---

# Decisions

Non-obvious choices for all your projects: if you would explain "why" to a colleague, log it.
One entry per decision, readable in ten seconds, dated YYYY-MM-DD. Never delete one:
set its status to superseded or rolled-back and name the entry that replaces it.
This is the global brain: only what holds for two projects or more belongs
here, and it is promoted from a project only once approved.

Entry format (without the indentation):

    ### YYYY-MM-DD — <short title>
    - **Context**: why the decision was needed
    - **Decision**: what was chosen
    - **Rationale**: why
    - **Consequences**: what this unlocks / forecloses
    - **Status**: active / superseded / rolled-back

<!-- Entries go below this line. -->
"#;

const GLOBAL_LESSONS: &str = r#"---
title: Lessons
description: What went wrong or surprised us, so it is not repeated
created: "2026-10-18"
project: "Global Brain"
---

# Lessons

Surprises and mistakes in all your projects, logged when they happen, not at the end of the session.
This is the global brain: only what holds for two projects or more belongs
here, and it is promoted from a project only once approved.

Entry format (without the indentation):

    ### YYYY-MM-DD — <what happened>
    - **Context**: the circumstances
    - **Impact**: what went wrong, what it cost
    - **Lesson**: the rule to follow next time
    - **Related**: the decision it concerns (date and title), if any

<!-- Entries go below this line. -->
"#;

const GLOBAL_PATTERNS: &str = r#"---
title: Patterns
description: Solutions that worked and can be reused
created: "2026-10-18"
project: "Global Brain"
---

# Patterns

Reusable solutions for all your projects: the problem, the shape of the answer, its cost.
This is the global brain: only what holds for two projects or more belongs
here, and it is promoted from a project only once approved.

Entry format (without the indentation):

    ### <pattern name>
    - **Problem**: what it solves
    - **Shape**: the core idea in two or three sentences
    - **Trade-off**: what it costs
    - **Status**: candidate / validated / deprecated

<!-- Entries go below this line. -->
"#;

// ---------------------------------------------------------------------------------------------
// JSON results, schemas pinned.
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Inited {
    changed: bool,
    project: String,
    memory_dir: String,
    created: Vec<String>,
    kept: Vec<String>,
    brain: Option<LinkedBrain>,
    warnings: Vec<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct LinkedBrain {
    path: String,
    #[serde(rename = "type")]
    kind: String,
    linked_at: Option<String>,
    link: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Status {
    memory_dir: String,
    notes: Vec<Note>,
    context: Note,
    handoffs: Handoffs,
    link: LinkState,
    brain: Option<BrainState>,
    detected: Option<Found>,
    health: Health,
    warnings: Vec<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct LinkState {
    path: String,
    state: String,
    problem: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct BrainState {
    path: String,
    #[serde(rename = "type")]
    kind: String,
    linked_at: Option<String>,
    exists: bool,
    entry_point: Option<String>,
    identity: bool,
    notes: Vec<Note>,
    projects: Option<usize>,
    indexed: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Scanned {
    dir: String,
    count: usize,
    projects: Vec<ScannedProject>,
    indexed: Option<IndexedInto>,
    warnings: Vec<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct IndexedInto {
    brain: String,
    completed: Vec<String>,
    created: Vec<String>,
    kept: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// Helpers.
// ---------------------------------------------------------------------------------------------

fn global_brain(p: &TestProject) -> PathBuf {
    home(p).join(".bmad-plus/brain")
}

fn root(p: &TestProject) -> String {
    p.path("")
        .to_string_lossy()
        .trim_end_matches('/')
        .to_owned()
}

fn project_hash(path: &str) -> String {
    sha256_hex(path.as_bytes())[..8].to_owned()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Whether `git` can be run here.
fn has_git() -> bool {
    Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

// ---------------------------------------------------------------------------------------------
// init
// ---------------------------------------------------------------------------------------------

#[test]
fn init_creates_every_file_from_the_templates_and_uses_the_global_brain_without_a_link() {
    let p = project();
    let root = root(&p);
    let brain = global_brain(&p);
    let b = brain.to_string_lossy().into_owned();
    let hash = project_hash(&root);
    let ran = p.args(["--json", "init"]).code(0).stderr("").run();
    let inited: Inited = ran.json();
    assert!(inited.changed);
    assert_eq!(inited.project, "project");
    assert_eq!(inited.memory_dir, ".agents/memory");
    assert_eq!(
        inited.created,
        [
            ".agents/".to_owned(),
            ".agents/memory/".to_owned(),
            ".agents/memory/sessions/".to_owned(),
            DECISIONS_MD.to_owned(),
            LESSONS_MD.to_owned(),
            PATTERNS_MD.to_owned(),
            CONTEXT_MD.to_owned(),
            format!("{b}/"),
            format!("{b}/projects/"),
            format!("{b}/identity.yaml"),
            format!("{b}/decisions.md"),
            format!("{b}/lessons.md"),
            format!("{b}/patterns.md"),
            format!("{b}/projects/{hash}.yaml"),
        ]
    );
    assert!(inited.kept.is_empty());
    assert!(inited.warnings.is_empty());
    // Detection finds the home's global brain on every machine: no link into this home is
    // written, so a committed memory means the same for every teammate.
    assert_eq!(
        inited.brain,
        Some(LinkedBrain {
            path: b.clone(),
            kind: "bmad-global".into(),
            linked_at: None,
            link: "not-needed".into(),
        })
    );
    let p = ran.then();
    assert_eq!(p.read_text(DECISIONS_MD), DECISIONS);
    assert_eq!(p.read_text(LESSONS_MD), LESSONS);
    assert_eq!(p.read_text(PATTERNS_MD), PATTERNS);
    assert_eq!(p.read_text(CONTEXT_MD), CONTEXT.replace("{root}", &root));
    assert!(!p.path(LINK).exists());
    assert!(p.names(SESSIONS).is_empty());
    assert_eq!(read(&brain.join("identity.yaml")), IDENTITY);
    assert_eq!(read(&brain.join("decisions.md")), GLOBAL_DECISIONS);
    assert_eq!(read(&brain.join("lessons.md")), GLOBAL_LESSONS);
    assert_eq!(read(&brain.join("patterns.md")), GLOBAL_PATTERNS);
    assert_eq!(
        read(&brain.join(format!("projects/{hash}.yaml"))),
        format!(
            "path: \"{root}\"\nname: \"project\"\nhash: \"{hash}\"\nstatus: \"active\"\nbmad_installed: true\npacks_installed: [\"memory\"]\nlast_scanned: \"2026-10-18\"\n"
        )
    );
    // The templates hold no entry: recall finds nothing in them.
    p.args(["recall", "decision", "lesson", "pattern"])
        .code(0)
        .stdout("mem recall: no matches for \"decision lesson pattern\" (scope: project)\n")
        .run();
}

#[test]
fn a_second_init_changes_nothing_and_says_so() {
    let p = project();
    let b = global_brain(&p).to_string_lossy().into_owned();
    let p = p
        .args(["init", "--project-name", "Orbit"])
        .code(0)
        .run()
        .then();
    assert!(p.read_text(DECISIONS_MD).contains("project: \"Orbit\"\n"));
    // Later runs, even at another time and under another name, leave every byte alone.
    let ran = p
        .env("BMAD_MEM_NOW", "2026-12-01T00:00:00Z")
        .args(["init", "--project-name", "Other"])
        .code(0)
        .stderr("")
        .stdout(&format!(
            "mem init: nothing to do — .agents/memory/ is complete; nothing was changed\n  brain   bmad-global {b} (found by detection, no link needed)\n"
        ))
        .unchanged()
        .run();
    let inited: Inited = ran
        .then()
        .args(["init", "--json"])
        .code(0)
        .unchanged()
        .run()
        .json();
    assert!(!inited.changed);
    assert!(inited.created.is_empty());
    assert_eq!(inited.kept.len(), 6, "{:?}", inited.kept);
    assert_eq!(inited.brain.unwrap().link, "not-needed");
}

#[test]
fn init_leaves_an_edited_decisions_md_byte_identical() {
    let mine: &[u8] =
        b"# Our decisions\r\n\r\n### 2026-09-01 \xe2\x80\x94 Postgres\r\n- **Status**: active";
    let p = project()
        .write(DECISIONS_MD, mine)
        .write(".agents/memory/sessions/2026-09-01-kickoff.md", "mine\n")
        .args(["--json", "init"])
        .code(0)
        .file(DECISIONS_MD, mine)
        .file(".agents/memory/sessions/2026-09-01-kickoff.md", "mine\n")
        .file(LESSONS_MD, LESSONS)
        .run();
    let inited: Inited = p.json();
    assert_eq!(
        inited.kept,
        [
            ".agents/memory/sessions/".to_owned(),
            DECISIONS_MD.to_owned()
        ]
    );
    assert!(!inited.created.contains(&DECISIONS_MD.to_owned()));
}

#[test]
fn init_links_a_portfolio_brain_two_folders_up_without_writing_into_it() {
    let p = project()
        .mkdir("ws/clients/app")
        .write(
            "ws/_brain/README.md",
            "# Portfolio brain\nRead HOT.md next.\n",
        )
        .write("ws/_brain/memory/decisions.md", "### 2026-01-01 — Shared\n");
    let brain = p.path("ws/_brain").to_string_lossy().into_owned();
    let before_brain = fs::read_dir(p.path("ws/_brain")).unwrap().count();
    let ran = p
        .args(["-d", "ws/clients/app", "init"])
        .code(0)
        .stderr("")
        .file(
            "ws/clients/app/.agents/memory/.brain-link",
            link_text(&brain, "portfolio"),
        )
        .absent("ws/_brain/identity.yaml")
        .absent("ws/_brain/projects")
        .file(
            "ws/_brain/README.md",
            "# Portfolio brain\nRead HOT.md next.\n",
        )
        .run();
    assert!(
        ran.stdout
            .ends_with(&format!("  brain   portfolio {brain} (linked now)\n"))
    );
    let p = ran.then();
    assert_eq!(
        fs::read_dir(p.path("ws/_brain")).unwrap().count(),
        before_brain
    );
    // Nothing is created in the home folder for a portfolio brain.
    assert!(fs::read_dir(home(&p)).unwrap().next().is_none());
    // The brief starts with the portfolio brain's own entry point.
    let ran = p.args(["-d", "ws/clients/app", "brief"]).code(0).run();
    assert!(
        ran.stdout.starts_with(&format!(
            "# Session brief — app\n\n## Brain — README.md (portfolio brain, {brain})\n\n# Portfolio brain\nRead HOT.md next.\n"
        )),
        "{}",
        ran.stdout
    );
}

#[test]
fn brain_env_pointing_at_a_file_is_warned_about_and_skipped() {
    let p = project().write("not-a-brain", "x");
    let file = p.path("not-a-brain").to_string_lossy().into_owned();
    let b = global_brain(&p).to_string_lossy().into_owned();
    let warning = format!(
        "warning: BMAD_PLUS_BRAIN is set but is not a directory: {file} — falling back to auto-detection"
    );
    let ran = p
        .env("BMAD_PLUS_BRAIN", &file)
        .args(["init"])
        .code(0)
        .stderr(&format!("{warning}\n"))
        .file("not-a-brain", "x")
        .run();
    let p = ran.then();
    assert!(!p.path(LINK).exists(), "the global brain {b} needs no link");
    // Under --json the warning is part of the result, and stderr stays empty.
    let inited: Inited = p.args(["--json", "init"]).code(0).stderr("").run().json();
    assert_eq!(inited.warnings, [warning]);
}

#[test]
fn a_brain_env_folder_wins_over_every_other_brain() {
    let p = project()
        .mkdir("_brain")
        .mkdir("explicit-brain")
        .write("../home/.bmad-plus/brain/identity.yaml", "x\n");
    let explicit = p.path("explicit-brain").to_string_lossy().into_owned();
    p.env("BMAD_PLUS_BRAIN", &explicit)
        .args(["init"])
        .code(0)
        .stderr("")
        .file(LINK, link_text(&explicit, "portfolio"))
        .absent("explicit-brain/identity.yaml")
        .absent("explicit-brain/projects")
        .run();
}

#[test]
fn a_non_empty_claude_memory_is_linked_as_it_is() {
    let p = project();
    let claude = home(&p).join(".claude/memory");
    fs::create_dir_all(&claude).unwrap();
    let c = claude.to_string_lossy().into_owned();
    // An empty Claude memory is no brain: the global brain is created instead (no link).
    let p = p.args(["init"]).code(0).absent(LINK).run().then();
    assert!(global_brain(&p).join("identity.yaml").is_file());
    let p = project();
    let claude = home(&p).join(".claude/memory");
    fs::create_dir_all(&claude).unwrap();
    fs::write(claude.join("MEMORY.md"), "- prefers small PRs\n").unwrap();
    let c2 = claude.to_string_lossy().into_owned();
    assert_ne!(c, c2);
    let p = p
        .args(["init"])
        .code(0)
        .file(LINK, link_text(&c2, "claude-memory"))
        .run()
        .then();
    assert!(!home(&p).join(".bmad-plus").exists());
    assert_eq!(fs::read_dir(&claude).unwrap().count(), 1);
}

#[test]
fn a_half_made_global_brain_is_completed_without_touching_what_exists() {
    let p = project();
    let brain = global_brain(&p);
    fs::create_dir_all(brain.join("projects")).unwrap();
    fs::write(brain.join("lessons.md"), "### 2026-01-01 — mine\n").unwrap();
    let b = brain.to_string_lossy().into_owned();
    let ran = p.args(["--json", "init"]).code(0).run();
    let inited: Inited = ran.json();
    let created_in_brain: Vec<&String> = inited
        .created
        .iter()
        .filter(|c| c.starts_with(&b))
        .collect();
    assert_eq!(created_in_brain.len(), 4, "{created_in_brain:?}");
    assert_eq!(created_in_brain[0], &format!("{b}/identity.yaml"));
    assert_eq!(created_in_brain[1], &format!("{b}/decisions.md"));
    assert_eq!(created_in_brain[2], &format!("{b}/patterns.md"));
    assert!(created_in_brain[3].starts_with(&format!("{b}/projects/")));
    assert_eq!(read(&brain.join("lessons.md")), "### 2026-01-01 — mine\n");
    assert_eq!(read(&brain.join("identity.yaml")), IDENTITY);
}

/// A home folder that cannot be written: a read-only folder, or — where permissions do not
/// stop us (running as root) — a regular file, under which no folder can be created.
fn unwritable_home(p: &TestProject) -> PathBuf {
    let ro = p.base().join("ro-home");
    fs::create_dir(&ro).unwrap();
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
    if fs::create_dir(ro.join("probe")).is_err() {
        return ro;
    }
    fs::remove_dir(ro.join("probe")).unwrap();
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o755)).unwrap();
    let file = p.base().join("home-is-a-file");
    fs::write(&file, "").unwrap();
    file
}

#[test]
fn a_read_only_home_is_a_warning_not_a_failure() {
    let p = project();
    let home = unwritable_home(&p);
    let brain = home.join(".bmad-plus/brain");
    let ran = p
        .env("HOME", &home)
        .args(["--json", "init"])
        .code(0)
        .stderr("")
        .file(DECISIONS_MD, DECISIONS)
        .absent(LINK)
        .run();
    let inited: Inited = ran.json();
    assert!(inited.changed);
    assert!(inited.brain.is_none());
    assert_eq!(inited.warnings.len(), 1, "{:?}", inited.warnings);
    assert!(
        inited.warnings[0].starts_with(&format!(
            "warning: cannot create the global brain (cannot create {}",
            brain.display()
        )),
        "{}",
        inited.warnings[0]
    );
    assert!(inited.warnings[0].ends_with("); the project memory is ready, no brain is linked"));
    // Human mode: the warning on stderr, exit 0, and a second run still changes nothing.
    let ran = ran
        .then()
        .args(["init"])
        .code(0)
        .stdout("mem init: nothing to do — .agents/memory/ is complete; nothing was changed\n  brain   none linked\n")
        .unchanged()
        .run();
    assert!(
        ran.stderr
            .starts_with("warning: cannot create the global brain (")
    );
    let _ = fs::set_permissions(&home, fs::Permissions::from_mode(0o755));
}

#[test]
fn an_existing_link_is_kept_and_a_different_detection_only_warned_about() {
    let p = project();
    let b = global_brain(&p).to_string_lossy().into_owned();
    // A link to the global brain, as bmad-plus (or an earlier bmad-mem) writes it.
    let p = p
        .args(["init"])
        .code(0)
        .run()
        .then()
        .write(LINK, link_text(&b, "bmad-global"))
        .mkdir("_brain");
    let brain = p.path("_brain").to_string_lossy().into_owned();
    let ran = p
        .args(["init"])
        .code(0)
        .unchanged()
        .file(LINK, link_text(&b, "bmad-global"))
        .run();
    assert_eq!(
        ran.stderr,
        format!(
            "warning: {LINK} kept: it links {b} (bmad-global); detection now finds {brain} (portfolio). Remove the link and run init again to relink.\n"
        )
    );
    // An unusable link is never overwritten either.
    let p = ran.then().write(LINK, "not json");
    let ran = p
        .args(["init"])
        .code(0)
        .unchanged()
        .file(LINK, "not json")
        .run();
    assert!(ran.stderr.starts_with(&format!(
        "warning: {LINK} is not a usable brain link (not JSON: "
    )));
}

const IGNORE_HEADER: &str = "# bmad-mem: each clone's own files, never committed (docs/GIT.md)";
const GITIGNORE_LINES: &str = "# bmad-mem: each clone's own files, never committed (docs/GIT.md)\n.bmad/cache/\n.bmad/memory/writer.lock\n.agents/memory/.brain-link\n";

/// Runs `git` in the project, with its config kept away from the machine's.
fn git_in(p: &TestProject, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(args)
        .current_dir(p.path(""))
        .env("HOME", home(p))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap()
}

#[test]
fn init_in_a_git_clone_writes_a_gitignore_once_and_git_ignores_only_the_clones_own_files() {
    if !has_git() {
        eprintln!("git is not installed: skipped");
        return;
    }
    let p = project();
    assert!(git_in(&p, &["init", "-q"]).status.success());
    let ran = p
        .args(["--json", "init"])
        .code(0)
        .stderr("")
        .file(".gitignore", GITIGNORE_LINES)
        .run();
    let json: serde_json::Value = ran.json();
    assert!(json.get("updated").is_none(), "{json}");
    assert!(
        json["created"]
            .as_array()
            .unwrap()
            .contains(&".gitignore".into())
    );
    // What git ignores: the cache, the lock and the link; never the memory itself.
    let p = ran
        .then()
        .write(".bmad/cache/reminded.json", "{}")
        .write(LINK, "{}")
        .write(".bmad/memory/writer.lock", "{}")
        .write(JOURNAL, "{}\n");
    for (path, ignored) in [
        (".bmad/cache/reminded.json", true),
        (".bmad/memory/writer.lock", true),
        (LINK, true),
        (JOURNAL, false),
        (DECISIONS_MD, false),
        (".agents/memory/sessions/2026-10-18-x.md", false),
    ] {
        let out = git_in(&p, &["check-ignore", "-q", path]);
        assert_eq!(out.status.success(), ignored, "{path}");
    }
    // A second run adds nothing.
    let p = p.remove(".bmad").remove(LINK);
    let brain = global_brain(&p);
    let _ = p
        .args(["init"])
        .code(0)
        .stderr("")
        .stdout(&format!(
            "mem init: nothing to do — .agents/memory/ is complete; nothing was changed\n  brain   bmad-global {} (found by detection, no link needed)\n  git     run `bmad-mem git setup` so that merges of the memory lose nothing and conflict only on real conflicts\n",
            brain.display()
        ))
        .unchanged()
        .run();
}

#[test]
fn init_extends_a_users_gitignore_without_touching_a_byte_of_it() {
    // The user's lines, Windows line endings, no final newline, one pattern already there in
    // the user's spelling: only the two missing ones are added, after the header.
    if !has_git() {
        eprintln!("git is not installed: skipped");
        return;
    }
    let mine = "target/\r\n/.bmad/cache\r\n# mine";
    let p = project().write(".gitignore", mine);
    assert!(git_in(&p, &["init", "-q"]).status.success());
    let ran = p
        .args(["init"])
        .code(0)
        .stderr("")
        .file(
            ".gitignore",
            format!(
                "{mine}\r\n{IGNORE_HEADER}\r\n.bmad/memory/writer.lock\r\n.agents/memory/.brain-link\r\n"
            ),
        )
        .run();
    assert!(
        ran.stdout.contains(
            "\n  updated .gitignore (.bmad/memory/writer.lock, .agents/memory/.brain-link ignored)\n"
        ),
        "{}",
        ran.stdout
    );
    assert!(!ran.stdout.contains("created .gitignore"), "{}", ran.stdout);
    // Outside a git clone (a `.git` that is no repository included), no .gitignore is written.
    let _ = project().args(["init"]).code(0).absent(".gitignore").run();
    let _ = project()
        .mkdir(".git")
        .args(["init"])
        .code(0)
        .absent(".gitignore")
        .run();
    // A .gitignore that is a link is not followed: a warning, and the memory is still made.
    let p = project().write("elsewhere", "mine\n");
    assert!(git_in(&p, &["init", "-q"]).status.success());
    let ran = p
        .symlink("elsewhere", ".gitignore")
        .args(["init"])
        .code(0)
        .file("elsewhere", "mine\n")
        .file(DECISIONS_MD, DECISIONS)
        .run();
    assert_eq!(
        ran.stderr,
        "warning: .gitignore not extended (Memory paths cannot follow symbolic links or junctions.); add these lines to it: .bmad/cache/, .bmad/memory/writer.lock, .agents/memory/.brain-link\n"
    );
}

#[test]
fn init_refuses_a_linked_memory_folder_and_writes_nothing() {
    let _ = project()
        .mkdir("elsewhere")
        .symlink("elsewhere", ".agents")
        .args(["init"])
        .refused(
            "init",
            "Memory paths cannot follow symbolic links or junctions.",
        );
    let _ = project()
        .args(["init", "--project-name", " "])
        .refused("init", "--project-name must not be empty");
}

// ---------------------------------------------------------------------------------------------
// status
// ---------------------------------------------------------------------------------------------

#[test]
fn status_reports_entries_handoffs_link_and_health() {
    let p = project();
    let b = global_brain(&p).to_string_lossy().into_owned();
    let p = p
        .args(["init"])
        .code(0)
        .run()
        .then()
        .append(
            DECISIONS_MD,
            "\n### 2026-10-17 — Sessions over JWT\n- **Status**: active\n\n### 2026-10-02 — JWT\n- **Status**: superseded\n",
        );
    let ran = p
        .args(["--json", "status"])
        .code(0)
        .stderr("")
        .unchanged()
        .run();
    let status: Status = ran.json();
    let p = ran.then();
    assert_eq!(status.memory_dir, ".agents/memory");
    let counts: Vec<(&str, bool, usize, Option<&str>)> = status
        .notes
        .iter()
        .map(|n| {
            (
                n.path.as_str(),
                n.exists,
                n.entries,
                n.latest_entry.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            (DECISIONS_MD, true, 2, Some("2026-10-17")),
            (LESSONS_MD, true, 0, None),
            (PATTERNS_MD, true, 0, None)
        ]
    );
    assert!(status.notes.iter().all(|n| n.modified.is_some()));
    // Of the two decisions, the superseded one is not active.
    assert_eq!(status.notes[0].active, Some(1));
    assert!(status.context.exists);
    assert_eq!(
        status.handoffs,
        Handoffs {
            count: 0,
            latest: None
        }
    );
    // No link: the home's global brain, found by detection, is the project's brain.
    assert_eq!(
        status.link,
        LinkState {
            path: LINK.into(),
            state: "missing".into(),
            problem: None
        }
    );
    let brain = status.brain.expect("the global brain");
    assert_eq!(
        (brain.path.as_str(), brain.kind.as_str()),
        (b.as_str(), "bmad-global")
    );
    assert_eq!(brain.linked_at, None);
    assert!(brain.exists && brain.identity && brain.indexed);
    assert_eq!(brain.entry_point.as_deref(), Some("identity.yaml"));
    assert_eq!(brain.notes.len(), 3);
    assert_eq!(brain.projects, Some(1));
    assert!(status.detected.is_none());
    assert!(status.warnings.is_empty());
    // 13 checks: 4 project files, a handoff (missing), a brain, the brain and its 6 parts.
    assert_eq!(
        status.health,
        Health {
            percent: 92,
            passed: 12,
            checks: 13,
            failed: vec!["a handoff in .agents/memory/sessions/".into()]
        }
    );
    let p = p.args(["handoff", "--topic", "x"]).code(0).run().then();
    let ran = p.args(["status"]).code(0).stderr("").run();
    assert!(ran.stdout.starts_with("mem status: project memory in .agents/memory/\n  decisions.md   2 entries (1 active), latest 2026-10-17, changed "), "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains("\n  sessions/      1 handoff(s), latest 2026-10-18-x.md\n")
    );
    assert!(ran.stdout.contains(&format!(
        "\n  brain          bmad-global {b} (found by detection, no link needed)\n    identity.yaml  present\n"
    )));
    assert!(
        ran.stdout
            .contains("\n    projects/      1 indexed, this project included\n")
    );
    assert!(
        ran.stdout
            .ends_with("\n  health         100% (13/13 checks)\n")
    );
}

#[test]
fn status_without_memory_shows_what_init_would_link() {
    let p = project();
    let status: Status = p
        .args(["--json", "status"])
        .code(0)
        .unchanged()
        .run()
        .json();
    assert!(status.notes.iter().all(|n| !n.exists && n.entries == 0));
    assert_eq!(status.link.state, "missing");
    assert!(status.brain.is_none() && status.detected.is_none());
    assert_eq!(
        status.health,
        Health {
            percent: 0,
            passed: 0,
            checks: 6,
            failed: vec![
                ".agents/memory/decisions.md exists".into(),
                ".agents/memory/lessons.md exists".into(),
                ".agents/memory/patterns.md exists".into(),
                ".agents/memory/context.md exists".into(),
                "a handoff in .agents/memory/sessions/".into(),
                "a brain (bmad-mem init creates the global brain ~/.bmad-plus/brain)".into(),
            ]
        }
    );
    let p = project().mkdir("_brain");
    let brain = p.path("_brain").to_string_lossy().into_owned();
    p.args(["status"])
        .code(0)
        .stdout(&format!(
            "mem status: project memory in .agents/memory/\n  decisions.md   missing\n  lessons.md     missing\n  patterns.md    missing\n  context.md     missing\n  sessions/      0 handoff(s)\n  brain          not linked (init would link portfolio {brain})\n  health         0% (0/6 checks)\n    \
             failed: .agents/memory/decisions.md exists\n    \
             failed: .agents/memory/lessons.md exists\n    \
             failed: .agents/memory/patterns.md exists\n    \
             failed: .agents/memory/context.md exists\n    \
             failed: a handoff in .agents/memory/sessions/\n    \
             failed: a valid .agents/memory/.brain-link\n"
        ))
        .unchanged()
        .run();
}

// ---------------------------------------------------------------------------------------------
// brief
// ---------------------------------------------------------------------------------------------

/// A project memory with one of everything the brief reads, linked to a global brain.
fn remembered() -> TestProject {
    let p = project();
    let brain = global_brain(&p);
    fs::create_dir_all(&brain).unwrap();
    fs::write(brain.join("identity.yaml"), "user_name: \"Ada\"\n").unwrap();
    let link = link_text(&brain.to_string_lossy(), "bmad-global");
    p.write(LINK, link)
        .write(
            CONTEXT_MD,
            "---\ntitle: Context\n---\n\n# Context\n<!-- What matters right now. -->\n\n\nFocus: login.\n",
        )
        .write(
            DECISIONS_MD,
            "# Decisions\n\n### 2026-10-17 — Sessions over JWT\n- **Status**: active\n\n### 2026-10-02 — JWT\n- **Status**: superseded\n\n### 2026-10-12 — Postgres\n- **Decision**: Postgres\n",
        )
        .write(
            ".bmad/memory/decisions.md",
            "### 2026-10-05 — Monorepo\n- **Status**: Active\n",
        )
        .write(
            LESSONS_MD,
            "### 2026-10-01 — Flaky CI\n- **Lesson**: pin the runner\n\n### 2026-10-15 — Token clock skew\n- **Lesson**: allow 30 s\n",
        )
        .write(".agents/memory/sessions/2026-10-16-old.md", "# Old\n")
        .write(
            ".agents/memory/sessions/2026-10-17-login.md",
            "---\ntopic: \"login\"\n---\n\n# Handoff\nNext: tests.\n",
        )
        .write(
            JOURNAL,
            "{\"ts\":\"2026-10-17T09:00:00.000Z\",\"agent\":\"forge\",\"task\":\"First\",\"outcome\":\"success\",\"id\":\"e1\"}\nnot json\n{\"ts\":\"2026-10-18T09:00:00.000Z\",\"agent\":\"atlas\",\"task\":\"Second   task\",\"outcome\":\"failure\",\"id\":\"e2\"}\n",
        )
}

fn full_brief(p: &TestProject) -> String {
    format!(
        "# Session brief — project\n\n\
         ## Brain — identity.yaml (bmad-global brain, {})\n\nuser_name: \"Ada\"\n\n\
         ## Context — .agents/memory/context.md\n\n# Context\n\nFocus: login.\n\n\
         ## Latest handoff — .agents/memory/sessions/2026-10-17-login.md\n\n# Handoff\nNext: tests.\n\n\
         ## Decisions in force, newest first — .agents/memory/decisions.md, .bmad/memory/decisions.md\n\n\
         ### 2026-10-17 — Sessions over JWT\n- **Status**: active\n\n\
         ### 2026-10-12 — Postgres\n- **Decision**: Postgres\n\n\
         ### 2026-10-05 — Monorepo\n- **Status**: Active\n\n\
         ## Lessons, newest first — .agents/memory/lessons.md\n\n\
         ### 2026-10-15 — Token clock skew\n- **Lesson**: allow 30 s\n\n\
         ### 2026-10-01 — Flaky CI\n- **Lesson**: pin the runner\n\n\
         ## Latest journal events, newest first — .bmad/memory/journal.ndjson\n\n\
         - 2026-10-18T09:00:00.000Z atlas (failure): Second task\n\n\
         - 2026-10-17T09:00:00.000Z forge (success): First\n",
        global_brain(p).display()
    )
}

#[test]
fn brief_reads_the_memory_in_the_protocol_order() {
    let p = remembered();
    let expected = full_brief(&p);
    let p = p
        .args(["brief"])
        .code(0)
        .stderr("")
        .stdout(&expected)
        .unchanged()
        .run()
        .then();
    // Deterministic: the same files give the same bytes.
    let brief: Brief = p.args(["brief", "--json"]).code(0).unchanged().run().json();
    assert_eq!(brief.text, expected);
    assert_eq!(brief.max_chars, 8000);
    assert_eq!(brief.chars, expected.encode_utf16().count());
    assert!(brief.omitted.is_empty() && brief.warnings.is_empty());
    let parts: Vec<(&str, &str, usize)> = brief
        .included
        .iter()
        .map(|i| (i.part.as_str(), i.source.as_str(), i.entries))
        .collect();
    assert_eq!(
        parts,
        [
            ("brain", parts[0].1, 1),
            ("context", CONTEXT_MD, 1),
            ("handoff", ".agents/memory/sessions/2026-10-17-login.md", 1),
            ("decisions", DECISIONS_MD, 2),
            ("decisions", ".bmad/memory/decisions.md", 1),
            ("lessons", LESSONS_MD, 2),
            ("journal", JOURNAL, 2)
        ]
    );
}

/// The titles a brief lists as left out, and the number its count line gives (0 without one).
fn listed_and_counted(text: &str) -> (Vec<String>, usize) {
    let Some((_, listing)) = text.split_once("\n## Left out to fit ") else {
        return (Vec::new(), 0);
    };
    let mut titles = Vec::new();
    let mut counted = 0;
    for line in listing.lines().skip(2) {
        if let Some(rest) = line.strip_prefix("- … and ") {
            counted = rest.split(' ').next().unwrap().parse().unwrap();
        } else if line.contains(": ") {
            titles.push(line[2..].to_owned());
        } else {
            // Nothing listed: `- 3 decisions in force, 2 lessons.`
            counted = line[2..]
                .trim_end_matches('.')
                .split(", ")
                .map(|n| n.split(' ').next().unwrap().parse::<usize>().unwrap_or(1))
                .sum();
        }
    }
    (titles, counted)
}

#[test]
fn brief_cuts_whole_entries_and_lists_what_was_left_out() {
    let p = remembered();
    let full = full_brief(&p);
    let full_len = full.encode_utf16().count();
    for max in [full_len, full_len - 1, 500, 400, 250] {
        let ran = p_clone_brief(&p, max);
        let brief: Brief = serde_json::from_str(&ran).unwrap();
        assert_eq!(brief.max_chars, max);
        assert!(brief.chars <= max, "{max}: {}", brief.text);
        // Every entry is whole: kept entries are exactly those of the full brief, in order.
        let kept: usize = brief.included.iter().map(|i| i.entries).sum();
        assert_eq!(kept + brief.omitted.len(), 10, "{max}");
        for omitted in &brief.omitted {
            if omitted.part == "decisions" || omitted.part == "lessons" {
                let heading = format!("### {}", omitted.entry);
                assert!(!brief.text.contains(&heading), "{omitted:?}");
            }
        }
        if max == full_len {
            assert_eq!(brief.text, full);
            continue;
        }
        // What is left out is listed by title, in the brief's order, then counted.
        let (titles, counted) = listed_and_counted(&brief.text);
        assert!(
            brief
                .text
                .contains(&format!("\n## Left out to fit {max} characters\n\n")),
            "{}",
            brief.text
        );
        assert_eq!(
            titles.len() + counted,
            brief.omitted.len(),
            "{}",
            brief.text
        );
        for title in &titles {
            assert!(
                brief.omitted.iter().any(|o| title.ends_with(&o.entry)),
                "{title}"
            );
        }
    }
    // One character short: a journal event goes — the longer one, which does not fit the
    // journal's share — and is counted (its title line does not fit either).
    let brief: Brief = serde_json::from_str(&p_clone_brief(&p, full_len - 1)).unwrap();
    assert_eq!(
        brief.omitted,
        [Omitted {
            part: "journal".into(),
            source: JOURNAL.into(),
            entry: "e2".into()
        }]
    );
    assert!(
        brief.text.ends_with(&format!(
            "\n## Left out to fit {} characters\n\n- 1 journal event.\n",
            full_len - 1
        )),
        "{}",
        brief.text
    );
    // A budget too small for the listing next to the title: what fits is kept, and the
    // listing is printed anyway rather than leaving things out silently.
    let brief: Brief = serde_json::from_str(&p_clone_brief(&p, 60)).unwrap();
    assert!(
        brief.text.ends_with(
            "\n## Left out to fit 60 characters\n\n- the brain's entry point, 1 context.md section, 1 handoff, 3 decisions in force, 2 lessons, 2 journal events.\n"
        ),
        "{}",
        brief.text
    );
}

/// `brief --json --max-chars <max>` in `p`'s project, leaving `p` usable.
fn p_clone_brief(p: &TestProject, max: usize) -> String {
    let mut command = p.command();
    command.args(["--json", "brief", "--max-chars", &max.to_string()]);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let args: Vec<std::ffi::OsString> = command.get_args().map(Into::into).collect();
    crate::support::validate::check_output(&args, 0, &stdout);
    stdout
}

#[test]
fn brief_refuses_an_invalid_max_chars() {
    for bad in ["0", "-5", "abc", "1.5", ""] {
        let _ = project()
            .args(["brief", "--max-chars", bad])
            .refused("brief", &format!("invalid value for --max-chars: {bad}"));
    }
}

#[test]
fn brief_of_an_empty_project_is_its_title() {
    project()
        .args(["brief"])
        .code(0)
        .stdout("# Session brief — project\n")
        .stderr("")
        .unchanged()
        .run();
}

#[test]
fn brief_shows_the_last_commits_of_a_git_repository() {
    if !has_git() {
        eprintln!("git is not installed: skipped");
        return;
    }
    let p = project().write(CONTEXT_MD, "Focus.\n");
    let git = |args: &[&str]| {
        let output = Command::new("git")
            .args(args)
            .current_dir(p.path(""))
            .env("HOME", home(&p))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "T")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "T")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .env("GIT_AUTHOR_DATE", "2026-10-17T10:00:00Z")
            .env("GIT_COMMITTER_DATE", "2026-10-17T10:00:00Z")
            .output()
            .unwrap();
        assert!(output.status.success(), "git {args:?}: {output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    git(&["init", "-q"]);
    git(&["commit", "-q", "--allow-empty", "-m", "First commit"]);
    git(&["commit", "-q", "--allow-empty", "-m", "Second commit"]);
    let log = git(&["log", "--format=%h"]);
    let hashes: Vec<&str> = log.lines().collect();
    let expected = format!(
        "# Session brief — project\n\n## Context — .agents/memory/context.md\n\nFocus.\n\n## Last commits — git log\n\n- {} 2026-10-17 Second commit\n\n- {} 2026-10-17 First commit\n",
        hashes[0], hashes[1]
    );
    let p = p
        .args(["brief"])
        .code(0)
        .stderr("")
        .stdout(&expected)
        .run()
        .then();
    // Without git on the PATH the commits are skipped silently.
    let empty = p.base().join("empty-path");
    fs::create_dir(&empty).unwrap();
    p.env("PATH", &empty)
        .args(["brief"])
        .code(0)
        .stderr("")
        .stdout("# Session brief — project\n\n## Context — .agents/memory/context.md\n\nFocus.\n")
        .run();
}

// ---------------------------------------------------------------------------------------------
// handoff
// ---------------------------------------------------------------------------------------------

const EMPTY_HANDOFF: &str = "---\ntitle: Session Handoff\ndate: \"2026-10-18\"\ntopic: \"Auth rework!\"\nagent: \"forge\"\nproject: \"project\"\nwritten_at: \"2026-10-18T09:30:00.000Z\"\n---\n\n# Session Handoff — 2026-10-18 — Auth rework!\n\n## What changed\n\n<!-- Summary of the work done this session. -->\n\n## Decisions made\n\n<!-- Non-obvious decisions, with their rationale. -->\n\n## Open questions\n\n<!-- What needs a human decision or more research. -->\n\n## Next steps\n\n<!-- What should happen next, in priority order. -->\n\n## Files modified\n\n<!-- Files changed, each with a short reason. -->\n";

#[test]
fn handoffs_are_numbered_and_never_overwrite() {
    let first = ".agents/memory/sessions/2026-10-18-auth-rework.md";
    let mut p = project()
        .args(["handoff", "--topic", "Auth rework!", "--agent", "forge"])
        .code(0)
        .stderr("")
        .stdout(&format!(
            "mem handoff: wrote {first} (no part filled yet)\n"
        ))
        .file(first, EMPTY_HANDOFF)
        .run()
        .then()
        .write(first, "edited by a person\n");
    for n in 2..=3 {
        let rel = format!(".agents/memory/sessions/2026-10-18-auth-rework-{n}.md");
        let ran = p
            .args([
                "--json",
                "handoff",
                "--topic",
                "Auth rework!",
                "--agent",
                "forge",
            ])
            .code(0)
            .file(first, "edited by a person\n")
            .file(&rel, EMPTY_HANDOFF)
            .run();
        let handed: HandedOff = ran.json();
        assert_eq!(
            handed,
            HandedOff {
                written: rel,
                topic: "Auth rework!".into(),
                agent: Some("forge".into()),
                filled: vec![]
            }
        );
        p = ran.then();
    }
    assert_eq!(
        p.names(SESSIONS),
        [
            "2026-10-18-auth-rework-2.md",
            "2026-10-18-auth-rework-3.md",
            "2026-10-18-auth-rework.md"
        ]
    );
}

#[test]
fn handoff_parts_come_from_a_file_or_standard_input() {
    let input = "Shipped the login form.\n\n## Next steps\n- rate limit\n\n## Files modified\n- src/login.rs: the form\n";
    let p = project().write("notes/handoff.md", input);
    let rel = ".agents/memory/sessions/2026-10-18-login.md";
    let ran = p
        .current_dir("project/notes")
        .args([
            "-d",
            "..",
            "--json",
            "handoff",
            "--topic",
            "Login",
            "--from",
            "handoff.md",
        ])
        .code(0)
        .run();
    let handed: HandedOff = ran.json();
    assert_eq!(
        handed.filled,
        ["What changed", "Next steps", "Files modified"]
    );
    let p = ran.then();
    let text = p.read_text(rel);
    assert!(text.contains("\n## What changed\n\nShipped the login form.\n\n## Decisions made\n\n<!-- Non-obvious decisions, with their rationale. -->\n"), "{text}");
    assert!(text.contains(
        "\n## Next steps\n\n- rate limit\n\n## Files modified\n\n- src/login.rs: the form\n"
    ));
    assert!(!text.contains("agent:"));
    // Standard input, with `-`.
    let mut command = p.command();
    command
        .args(["handoff", "--topic", "Login", "--from", "-"])
        .current_dir(p.path(""))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = command.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"# Decisions\n- sessions\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "mem handoff: wrote .agents/memory/sessions/2026-10-18-login-2.md (filled: Decisions made)\n"
    );
    assert!(
        p.read_text(".agents/memory/sessions/2026-10-18-login-2.md")
            .contains("\n## Decisions made\n\n- sessions\n\n## Open questions\n")
    );
}

#[test]
fn handoff_refusals_write_nothing() {
    let _ = project()
        .args(["handoff"])
        .refused("handoff", "--topic <text> is required");
    let _ = project()
        .args(["handoff", "--topic", "  "])
        .refused("handoff", "--topic <text> is required");
    let _ = project()
        .write("bad.md", b"\xff\xfe")
        .args(["handoff", "--topic", "x", "--from", "bad.md"])
        .refused("handoff", "--from input is not valid UTF-8");
    let p = project();
    let missing = p.path("missing.md");
    let _ = p
        .args(["handoff", "--topic", "x", "--from", "missing.md"])
        .refused(
            "handoff",
            &format!(
                "cannot read --from {}: No such file or directory (os error 2)",
                missing.display()
            ),
        );
}

// ---------------------------------------------------------------------------------------------
// export
// ---------------------------------------------------------------------------------------------

#[test]
fn export_writes_the_brain_and_never_overwrites_without_force() {
    let p = project().args(["init"]).code(0).run().then();
    let b = global_brain(&p).to_string_lossy().into_owned();
    let root = root(&p);
    let hash = project_hash(&root);
    let out = p.path("bmad-brain-export-2026-10-18.md");
    let ran = p.args(["--json", "export"]).code(0).stderr("").run();
    let exported: Exported = ran.json();
    assert_eq!(exported.exported, out.to_string_lossy());
    assert_eq!(
        exported.brain,
        Found {
            path: b.clone(),
            kind: "bmad-global".into()
        }
    );
    assert_eq!(
        exported.files,
        [
            "identity.yaml".to_owned(),
            "decisions.md".to_owned(),
            "lessons.md".to_owned(),
            "patterns.md".to_owned(),
            format!("projects/{hash}.yaml")
        ]
    );
    assert!(exported.skipped.is_empty() && exported.warnings.is_empty());
    assert!(!exported.replaced);
    let text = read(&out);
    assert_eq!(exported.bytes, text.len());
    assert!(text.starts_with(&format!(
        "# BMAD+ Brain Export\n\n> Exported: 2026-10-18T09:30:00.000Z\n> Brain: {b} (bmad-global)\n> Files: 5\n\n## identity.yaml\n\n```yaml\n{IDENTITY}```\n\n## decisions.md\n\n```markdown\n{GLOBAL_DECISIONS}```\n"
    )));
    assert!(text.ends_with(&format!(
        "\n## projects/{hash}.yaml\n\n```yaml\npath: \"{root}\"\nname: \"project\"\nhash: \"{hash}\"\nstatus: \"active\"\nbmad_installed: true\npacks_installed: [\"memory\"]\nlast_scanned: \"2026-10-18\"\n```\n"
    )));
    // Never overwritten without --force, whatever the file holds.
    let p = ran
        .then()
        .write("bmad-brain-export-2026-10-18.md", "mine\n");
    let p = p.args(["export"]).refused(
        "export",
        &format!(
            "{} already exists; pass --force to replace it",
            out.display()
        ),
    );
    let exported: Exported = p
        .args(["export", "--force", "--json"])
        .code(0)
        .file("bmad-brain-export-2026-10-18.md", text.as_bytes())
        .run()
        .json();
    assert!(exported.replaced);
}

#[test]
fn export_of_a_portfolio_brain_fences_every_file_and_lists_what_it_skipped() {
    let p = project()
        .write("_brain/HOT.md", "Hot\n")
        .write("_brain/README.md", "Read ```this``` first")
        .write("_brain/memory/lessons.md", "### L\n")
        .write("_brain/.obsidian/app.json", "{}")
        .write("_brain/logo.png", b"\x89PNG\x00")
        .current_dir("");
    let brain = p.path("_brain").to_string_lossy().into_owned();
    let out = p.base().join("exports/brain.md");
    let p = p.mkdir("../exports");
    let ran = p
        .args([
            "-d",
            "project",
            "--json",
            "export",
            "--out",
            "exports/brain.md",
        ])
        .code(0)
        .run();
    let exported: Exported = ran.json();
    assert_eq!(exported.files, ["README.md", "HOT.md", "memory/lessons.md"]);
    assert_eq!(
        exported.skipped,
        [
            Skipped {
                file: ".obsidian/".into(),
                reason: "hidden folder".into()
            },
            Skipped {
                file: "logo.png".into(),
                reason: "not text".into()
            }
        ]
    );
    assert_eq!(
        read(&out),
        format!(
            "# BMAD+ Brain Export\n\n> Exported: 2026-10-18T09:30:00.000Z\n> Brain: {brain} (portfolio)\n> Files: 3\n\n## README.md\n\n````markdown\nRead ```this``` first\n````\n\n## HOT.md\n\n```markdown\nHot\n```\n\n## memory/lessons.md\n\n```markdown\n### L\n```\n\n## Not exported\n\n- .obsidian/: hidden folder\n- logo.png: not text\n"
        )
    );
}

#[test]
fn export_without_a_brain_is_refused() {
    let _ = project().args(["export"]).refused(
        "export",
        "no brain to export: none is linked or detected (run `bmad-mem init`)",
    );
}

// ---------------------------------------------------------------------------------------------
// scan
// ---------------------------------------------------------------------------------------------

/// Three projects under `ws/` (plus things that are not projects), with fixed times.
fn workspace() -> TestProject {
    let p = project()
        .write("ws/api/Cargo.toml", "[package]\nname = \"api\"\n")
        .mkdir("ws/api/.git")
        .write("ws/api/sub/package.json", "{}")
        .write(
            "ws/web/package.json",
            "{\"name\":\"orbit-web\",\"dependencies\":{\"react\":\"19\"},\"devDependencies\":{\"next\":\"15\"}}",
        )
        .write("ws/web/node_modules/x/package.json", "{}")
        .write("ws/tools/deep/lib/go.mod", "module lib\n")
        .write("ws/docs/README.md", "# Docs\n")
        .write("ws/.hidden/Cargo.toml", "")
        .write("ws/node_modules/y/Cargo.toml", "");
    for (dir, day) in [
        ("ws/api", "2026-10-01"),
        ("ws/web", "2026-05-01"),
        ("ws/tools/deep/lib", "2025-01-01"),
    ] {
        set_mtimes_below(&p.path(dir), day);
    }
    p
}

#[test]
fn scan_lists_projects_by_their_markers() {
    let p = workspace();
    let ws = p.path("ws").to_string_lossy().into_owned();
    let p = p
        .args(["scan", "ws"])
        .code(0)
        .stderr("")
        .stdout(&format!(
            "mem scan: 3 project(s) under {ws}\n  \
             active   Rust         2026-10-01 api  [Cargo.toml, .git]\n  \
             archived Go           2025-01-01 tools/deep/lib  [go.mod]\n  \
             paused   Next.js      2026-05-01 web  [package.json]\n"
        ))
        .unchanged()
        .run()
        .then();
    let ran = p.args(["--json", "scan", "ws"]).code(0).run();
    let scanned: Scanned = ran.json();
    let p = ran.then();
    assert_eq!(scanned.dir, ws);
    assert_eq!(scanned.count, 3);
    assert!(scanned.indexed.is_none());
    assert!(scanned.warnings.is_empty());
    assert_eq!(
        scanned.projects[2],
        ScannedProject {
            path: format!("{ws}/web"),
            relative: "web".into(),
            name: "orbit-web".into(),
            stack: "Next.js".into(),
            markers: vec!["package.json".into()],
            last_change: Some("2026-05-01T00:00:00.000Z".into()),
            status: "paused".into(),
            bmad_installed: false,
            hash: project_hash(&format!("{ws}/web")),
        }
    );
    let missing = p.path("missing").to_string_lossy().into_owned();
    let _ = p.args(["scan", "missing"]).refused(
        "scan",
        &format!("Scan directory does not exist or is not a directory: {missing}"),
    );
}

#[test]
fn scan_needs_a_folder() {
    let _ = project()
        .args(["scan"])
        .refused("scan", "<dir> is required");
    let _ = project()
        .args(["scan", ""])
        .refused("scan", "<dir> is required");
    let p = project().write("file", "x");
    let file = p.path("file");
    let _ = p.args(["scan", "file"]).refused(
        "scan",
        &format!(
            "Scan directory does not exist or is not a directory: {}",
            file.display()
        ),
    );
}

#[test]
fn scan_index_writes_each_entry_once_into_the_global_brain() {
    let p = workspace();
    let ws = p.path("ws").to_string_lossy().into_owned();
    let brain = global_brain(&p);
    let api = project_hash(&format!("{ws}/api"));
    let hashes: Vec<String> = ["api", "tools/deep/lib", "web"]
        .iter()
        .map(|rel| project_hash(&format!("{ws}/{rel}")))
        .collect();
    let ran = p.args(["--json", "scan", "ws", "--index"]).code(0).run();
    let scanned: Scanned = ran.json();
    let b = brain.to_string_lossy().into_owned();
    assert_eq!(
        scanned.indexed,
        Some(IndexedInto {
            brain: b.clone(),
            completed: vec![
                b.clone(),
                format!("{b}/projects"),
                format!("{b}/identity.yaml"),
                format!("{b}/decisions.md"),
                format!("{b}/lessons.md"),
                format!("{b}/patterns.md"),
            ],
            created: hashes.clone(),
            kept: vec![],
        })
    );
    assert_eq!(
        read(&brain.join(format!("projects/{api}.yaml"))),
        format!(
            "path: \"{ws}/api\"\nname: \"api\"\nhash: \"{api}\"\nstack: \"Rust\"\nstatus: \"active\"\nbmad_installed: false\nhas_git: true\nlast_modified: \"2026-10-01\"\nlast_scanned: \"2026-10-18\"\n"
        )
    );
    // A second index changes nothing: existing entries are kept as they are.
    let p = ran.then();
    fs::write(brain.join(format!("projects/{api}.yaml")), "notes: mine\n").unwrap();
    let ran = p.args(["scan", "ws", "--index"]).code(0).unchanged().run();
    assert!(ran.stdout.ends_with(&format!(
        "  indexed 0 new, 3 already indexed, in {b}/projects\n"
    )));
    assert_eq!(
        read(&brain.join(format!("projects/{api}.yaml"))),
        "notes: mine\n"
    );
    // Indexing needs a home it can write; listing does not.
    let p = ran.then();
    let file = p.base().join("home-is-a-file");
    fs::write(&file, "").unwrap();
    let p = p.env("HOME", &file);
    let p = p.args(["scan", "ws"]).code(0).run().then();
    let ran = p
        .args(["scan", "ws", "--index"])
        .code(1)
        .stdout("")
        .unchanged()
        .run();
    assert!(
        ran.stderr.starts_with(&format!(
            "mem scan: cannot create {}/.bmad-plus/brain: ",
            file.display()
        )),
        "{}",
        ran.stderr
    );
}

#[test]
fn every_session_command_has_help() {
    for action in ["init", "status", "brief", "handoff", "export", "scan"] {
        let ran = project().args([action, "--help"]).code(0).run();
        assert!(
            ran.stdout
                .contains(&format!("\n\nUsage: bmad-mem {action} ")),
            "{action}: {}",
            ran.stdout
        );
    }
}
