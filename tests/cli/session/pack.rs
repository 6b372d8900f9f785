//! The Memory pack's commands give the right answer on realistic notes: `brief` lists exactly
//! the active decisions (whatever the spelling of their status) and the lessons newest first
//! across both note folders, by their `Date` lines too; the latest handoff comes from the files'
//! names and contents, never from their modification times; `status` counts what the other
//! commands read, per folder, and names every failed check; `handoff --from` keeps fenced code
//! whole, routes common heading variants and refuses empty input; `scan` dates a project by its
//! last commit or by the newest change below it. Runs see `HOME=<tempdir>/home` (empty) and no
//! `BMAD_PLUS_BRAIN`, so no real brain leaks in.

use std::fs;
use std::io::Write as _;
use std::process::{Command, Stdio};

use serde::Deserialize;

use crate::support::TestProject;
use crate::support::home::{project, set_mtime, set_mtimes_below};
use crate::support::schema::{Brief, HandedOff, Handoffs, Health, Included, Note, ScannedProject};

const DECISIONS_MD: &str = ".agents/memory/decisions.md";
const LESSONS_MD: &str = ".agents/memory/lessons.md";
const PATTERNS_MD: &str = ".agents/memory/patterns.md";
const SESSIONS: &str = ".agents/memory/sessions";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Status {
    memory_dir: String,
    notes: Vec<Note>,
    context: Note,
    handoffs: Handoffs,
    link: serde_json::Value,
    brain: Option<serde_json::Value>,
    detected: Option<serde_json::Value>,
    health: Health,
    warnings: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Scanned {
    dir: String,
    count: usize,
    projects: Vec<ScannedProject>,
    indexed: Option<serde_json::Value>,
    warnings: Vec<String>,
}

/// The `###` headings under the brief's `## <part> — …` headings, in order.
pub(crate) fn headings_under(text: &str, part: &str) -> Vec<String> {
    let mut inside = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            inside = heading.starts_with(part);
        } else if let Some(heading) = line.strip_prefix("### ")
            && inside
        {
            found.push(heading.to_owned());
        }
    }
    found
}

/// `status --json` on `p`, which must change nothing.
fn read_status(p: TestProject) -> Status {
    p.args(["--json", "status"])
        .code(0)
        .unchanged()
        .run()
        .json()
}

/// `brief --json <args>` on `p`, which must change nothing.
pub(crate) fn run_brief(p: TestProject, args: &[&str]) -> (Brief, TestProject) {
    let ran = p
        .args(["--json", "brief"].iter().chain(args))
        .code(0)
        .unchanged()
        .run();
    (ran.json(), ran.then())
}

// ---------------------------------------------------------------------------------------------
// brief
// ---------------------------------------------------------------------------------------------

#[test]
fn the_fixture_brief_lists_exactly_its_decisions_in_force_lessons_and_validated_patterns_newest_first()
 {
    let (brief, _) = run_brief(project().fixture("example"), &["--max-chars", "100000"]);
    assert_eq!(
        headings_under(&brief.text, "Decisions in force"),
        [
            "2026-10-16 — Reinforce patterns only from CI results",
            "Déploiement progressif",
            "Session store in Redis",
            "2026-09-30 — Journal every agent task",
            "Structured logging",
            "Feature flags",
            "Error handling in the API",
            "API versioning",
            "Caching layer",
            "Database migrations",
            "Login rate limit",
            "Auth strategy",
        ]
    );
    assert!(brief.text.contains(
        "\n## Decisions in force, newest first — .agents/memory/decisions.md, .bmad/memory/decisions.md\n"
    ));
    assert_eq!(
        headings_under(&brief.text, "Validated patterns"),
        [
            "Request id everywhere",
            "Expand and contract migrations",
            "One schema per test worker"
        ]
    );
    assert_eq!(
        headings_under(&brief.text, "Lessons"),
        [
            "2026-10-17 — Gemini CLI runs need the API base URL",
            "Canary metrics must include login",
            "2026-10-10 — Codex and Claude Code agree on migration order",
            "2026-10-03 — Login rate limit tests must reset the bucket",
            "Équipe support needs the request id",
            "Logs leaked e-mail addresses",
            "Flags left on forever",
            "Retries hid a failing dependency",
            "Cache invalidation on bulk import",
            "Backfills belong in batches",
            "Revocation must be checked on every request",
            "Rate limits need a per-account key, not only per IP",
            "Flaky CI came from a shared test database",
        ]
    );
    assert!(brief.text.contains(
        "\n## Lessons, newest first — .agents/memory/lessons.md, .bmad/memory/lessons.md\n"
    ));
    let lessons: Vec<&Included> = brief
        .included
        .iter()
        .filter(|i| i.part == "lessons")
        .collect();
    assert_eq!(
        lessons,
        [
            &Included {
                part: "lessons".into(),
                source: ".bmad/memory/lessons.md".into(),
                entries: 3
            },
            &Included {
                part: "lessons".into(),
                source: ".agents/memory/lessons.md".into(),
                entries: 10
            }
        ]
    );
    assert!(brief.omitted.is_empty() && brief.warnings.is_empty());
    assert_eq!(brief.max_chars, 100_000);
    assert_eq!(brief.chars, brief.text.encode_utf16().count());
}

#[test]
fn under_the_default_budget_each_part_keeps_its_newest_and_lists_the_rest() {
    let (brief, _) = run_brief(project().fixture("example"), &[]);
    let omitted: Vec<(&str, &str, &str)> = brief
        .omitted
        .iter()
        .map(|o| (o.part.as_str(), o.source.as_str(), o.entry.as_str()))
        .collect();
    assert_eq!(
        omitted,
        [
            ("decisions", DECISIONS_MD, "Database migrations"),
            ("decisions", DECISIONS_MD, "Login rate limit"),
            ("decisions", DECISIONS_MD, "Auth strategy"),
            ("lessons", LESSONS_MD, "Cache invalidation on bulk import"),
            ("lessons", LESSONS_MD, "Backfills belong in batches"),
            (
                "lessons",
                LESSONS_MD,
                "Revocation must be checked on every request"
            ),
            (
                "lessons",
                LESSONS_MD,
                "Rate limits need a per-account key, not only per IP"
            ),
            (
                "lessons",
                LESSONS_MD,
                "Flaky CI came from a shared test database"
            ),
            ("patterns", PATTERNS_MD, "One schema per test worker"),
        ]
    );
    assert!(
        brief.text.ends_with(
            "\n## Left out to fit 8000 characters\n\n\
             - decision: Database migrations\n\
             - decision: Login rate limit\n\
             - decision: Auth strategy\n\
             - lesson: Cache invalidation on bulk import\n\
             - lesson: Backfills belong in batches\n\
             - lesson: Revocation must be checked on every request\n\
             - lesson: Rate limits need a per-account key, not only per IP\n\
             - lesson: Flaky CI came from a shared test database\n\
             - pattern: One schema per test worker\n"
        ),
        "{}",
        brief.text
    );
    assert!(brief.chars <= 8000);
    let parts: Vec<&str> = brief.included.iter().map(|i| i.part.as_str()).collect();
    assert_eq!(
        parts,
        [
            "decisions",
            "decisions",
            "lessons",
            "lessons",
            "patterns",
            "journal"
        ]
    );
}

#[test]
fn every_status_spelling_is_read_and_an_unreadable_one_is_marked() {
    let decisions = "# Decisions\n\n\
        ### Sessions in Postgres\n**Status:** superseded\n\n\
        ### JWT everywhere\n- **Status** : superseded\n\n\
        ### Nightly deploys\n- **Status**: ❌ superseded\n\n\
        ### GraphQL gateway\n- **Status**: [rolled-back]\n\n\
        ### MongoDB for events\n- *Status*: superseded\n\n\
        ### Vendor lock-in clause\n- **Status**\u{a0}: abrogated\n\n\
        ### Edge caching\n- **Status**: proposed\n\n\
        ### Monorepo\n- **Statut** : remplacée par « Polyrepo »\n\n\
        ### Sessions in Redis\n**Status:** active\n\n\
        ### Polyrepo\n- **Status** : ✅ Active\n\n\
        ### Blue-green deploys\n- **Decision**: two fleets behind the balancer\n\n\
        ### Shared CDN\n- **Status**: TBD\n- **Decision**: one CDN for every site\n";
    let (brief, _) = run_brief(project().write(DECISIONS_MD, decisions), &[]);
    assert_eq!(
        brief.text,
        "# Session brief — project\n\n\
         ## Decisions in force, newest first — .agents/memory/decisions.md\n\n\
         ### Shared CDN (status unreadable)\n- **Status**: TBD\n- **Decision**: one CDN for every site\n\n\
         ### Blue-green deploys\n- **Decision**: two fleets behind the balancer\n\n\
         ### Polyrepo\n- **Status** : ✅ Active\n\n\
         ### Sessions in Redis\n**Status:** active\n"
    );
}

#[test]
fn lessons_are_dated_by_their_date_lines_in_a_file_kept_newest_at_top() {
    let lessons = "# Lessons\n\n\
        ### Pin the runner image\n- **Date**: 2026-10-15\n- **Lesson**: an image update broke CI\n\n\
        ### Clock skew on tokens\n- **Date**: 2026-10-09\n- **Lesson**: allow 30 s\n\n\
        ### Backups need a restore drill\n**Date:** 2026-09-02\n**Lesson:** the backup was empty\n\n\
        ### Undated idea\nKeep the runbook short.\n";
    let (brief, _) = run_brief(
        project().write(LESSONS_MD, lessons),
        &["--max-chars", "340"],
    );
    assert_eq!(
        brief.text,
        "# Session brief — project\n\n\
         ## Lessons, newest first — .agents/memory/lessons.md\n\n\
         ### Pin the runner image\n- **Date**: 2026-10-15\n- **Lesson**: an image update broke CI\n\n\
         ### Clock skew on tokens\n- **Date**: 2026-10-09\n- **Lesson**: allow 30 s\n\n\
         ## Left out to fit 340 characters\n\n\
         - 2 lessons.\n"
    );
    let (brief, _) = run_brief(project().write(LESSONS_MD, lessons), &[]);
    assert_eq!(
        headings_under(&brief.text, "Lessons"),
        [
            "Pin the runner image",
            "Clock skew on tokens",
            "Backups need a restore drill",
            "Undated idea"
        ]
    );
}

/// A handoff as `handoff` writes it, written at `at`.
fn handoff_text(topic: &str, at: &str) -> String {
    format!(
        "---\ntitle: Session Handoff\ndate: \"2026-10-18\"\ntopic: \"{topic}\"\nproject: \"project\"\nwritten_at: \"{at}\"\n---\n\n# Session Handoff — 2026-10-18 — {topic}\n\n## Next steps\n\n- {topic} next\n"
    )
}

#[test]
fn the_latest_handoff_comes_from_names_and_contents_never_from_modification_times() {
    let p = project()
        .write(
            &format!("{SESSIONS}/2026-10-17-release.md"),
            handoff_text("release", "2026-10-17T18:00:00.000Z"),
        )
        .write(
            &format!("{SESSIONS}/2026-10-18-auth.md"),
            handoff_text("auth", "2026-10-18T08:00:00.000Z"),
        )
        .write(
            &format!("{SESSIONS}/2026-10-18-deploy.md"),
            handoff_text("deploy", "2026-10-18T09:00:00.000Z"),
        )
        .write(
            &format!("{SESSIONS}/2026-10-18-auth-2.md"),
            handoff_text("auth", "2026-10-18T09:20:00.000Z"),
        );
    // A `touch`, an edit or a clone changes modification times: the answer must not move.
    for (name, day) in [
        ("2026-10-17-release.md", "2026-10-30"),
        ("2026-10-18-auth.md", "2026-10-29"),
        ("2026-10-18-deploy.md", "2026-10-28"),
        ("2026-10-18-auth-2.md", "2026-10-01"),
    ] {
        set_mtime(&p.path(&format!("{SESSIONS}/{name}")), day);
    }
    let (brief, p) = run_brief(p, &[]);
    assert!(
        brief.text.contains(
            "\n## Latest handoff — .agents/memory/sessions/2026-10-18-auth-2.md\n\n# Session Handoff — 2026-10-18 — auth\n"
        ),
        "{}",
        brief.text
    );
    // Every handoff of the day is read, newest first; the day before's is not.
    let handoffs: Vec<&str> = brief
        .included
        .iter()
        .filter(|i| i.part == "handoff")
        .map(|i| i.source.as_str())
        .collect();
    assert_eq!(
        handoffs,
        [
            ".agents/memory/sessions/2026-10-18-auth-2.md",
            ".agents/memory/sessions/2026-10-18-deploy.md",
            ".agents/memory/sessions/2026-10-18-auth.md"
        ]
    );
    let status = read_status(p);
    assert_eq!(
        status.handoffs,
        Handoffs {
            count: 4,
            latest: Some("2026-10-18-auth-2.md".into())
        }
    );
    // Without a written-at field, the `-N` suffix decides among the same day's handoffs.
    let p = project()
        .write(&format!("{SESSIONS}/2026-10-18-login.md"), "# First\n")
        .write(&format!("{SESSIONS}/2026-10-18-login-2.md"), "# Second\n");
    set_mtime(
        &p.path(&format!("{SESSIONS}/2026-10-18-login-2.md")),
        "2026-10-01",
    );
    let (brief, _) = run_brief(p, &[]);
    assert_eq!(
        brief.text,
        "# Session brief — project\n\n## Latest handoff — .agents/memory/sessions/2026-10-18-login-2.md\n\n# Second\n\n## Earlier handoff, same day — .agents/memory/sessions/2026-10-18-login.md\n\n# First\n"
    );
}

// ---------------------------------------------------------------------------------------------
// status
// ---------------------------------------------------------------------------------------------

#[test]
fn status_counts_what_brief_and_recall_read_per_folder_with_dates_from_date_lines() {
    let ran = project()
        .fixture("example")
        .args(["--json", "status"])
        .code(0)
        .unchanged()
        .run();
    let status: Status = ran.json();
    let counts: Vec<(&str, usize, Option<usize>, Option<&str>)> = status
        .notes
        .iter()
        .map(|n| {
            (
                n.path.as_str(),
                n.entries,
                n.active,
                n.latest_entry.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            (DECISIONS_MD, 11, Some(10), Some("2026-10-12")),
            (LESSONS_MD, 10, None, Some("2026-10-14")),
            (".agents/memory/patterns.md", 9, None, Some("2026-10-14")),
            (".bmad/memory/decisions.md", 2, Some(2), Some("2026-10-16")),
            (".bmad/memory/lessons.md", 3, None, Some("2026-10-17")),
        ]
    );
    assert_eq!(status.memory_dir, ".agents/memory");
    assert!(!status.context.exists && status.brain.is_none());
    assert!(status.link.is_object() && status.detected.is_none());
    assert!(status.warnings.is_empty());
    // The `.bmad/memory/` files are read, not required: the checks stay those of
    // `.agents/memory/`.
    assert_eq!((status.health.passed, status.health.checks), (3, 6));
    let ran = ran.then().args(["status"]).code(0).stderr("").run();
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert!(
        lines[1]
            .starts_with("  decisions.md   11 entries (10 active), latest 2026-10-12, changed "),
        "{}",
        ran.stdout
    );
    assert!(lines[2].starts_with("  lessons.md     10 entries, latest 2026-10-14, changed "));
    assert_eq!(lines[6], "  also read in .bmad/memory/:");
    assert!(
        lines[7]
            .starts_with("    decisions.md   2 entries (2 active), latest 2026-10-16, changed ")
    );
    assert!(lines[8].starts_with("    lessons.md     3 entries, latest 2026-10-17, changed "));
}

#[test]
fn status_after_init_names_the_check_that_fails() {
    let p = project().args(["init"]).code(0).run().then();
    let ran = p.args(["status"]).code(0).stderr("").unchanged().run();
    assert!(
        ran.stdout.ends_with(
            "\n  health         92% (12/13 checks)\n    failed: a handoff in .agents/memory/sessions/\n"
        ),
        "{}",
        ran.stdout
    );
    let p = ran.then().remove(".agents/memory/lessons.md");
    let status = read_status(p);
    assert_eq!(
        status.health,
        Health {
            percent: 85,
            passed: 11,
            checks: 13,
            failed: vec![
                ".agents/memory/lessons.md exists".into(),
                "a handoff in .agents/memory/sessions/".into()
            ]
        }
    );
}

// ---------------------------------------------------------------------------------------------
// handoff
// ---------------------------------------------------------------------------------------------

#[test]
fn handoff_keeps_fences_whole_and_routes_common_heading_variants() {
    let input = "Moved the session store to Redis.\n\n\
        ## Key decisions\n- sliding TTL of 30 minutes\n\n\
        ## Modified files\n- `scripts/migrate.sh`:\n\n```sh\n# Next steps for ops\nredis-cli FLUSHDB\n## not a heading\n```\n\n\
        ## Questions\n- do we keep the Postgres table?\n\n\
        ## TODO\n- drop the table in the next release\n";
    let p = project().write("notes.md", input);
    let ran = p
        .args([
            "--json", "handoff", "--topic", "Redis", "--from", "notes.md",
        ])
        .code(0)
        .run();
    let handed: HandedOff = ran.json();
    assert_eq!(
        handed,
        HandedOff {
            written: format!("{SESSIONS}/2026-10-18-redis.md"),
            topic: "Redis".into(),
            agent: None,
            filled: vec![
                "What changed".into(),
                "Decisions made".into(),
                "Open questions".into(),
                "Next steps".into(),
                "Files modified".into()
            ]
        }
    );
    let text = ran
        .then()
        .read_text(&format!("{SESSIONS}/2026-10-18-redis.md"));
    let body = text.split_once("\n---\n\n").unwrap().1;
    assert_eq!(
        body,
        "# Session Handoff — 2026-10-18 — Redis\n\n\
         ## What changed\n\nMoved the session store to Redis.\n\n\
         ## Decisions made\n\n- sliding TTL of 30 minutes\n\n\
         ## Open questions\n\n- do we keep the Postgres table?\n\n\
         ## Next steps\n\n- drop the table in the next release\n\n\
         ## Files modified\n\n- `scripts/migrate.sh`:\n\n```sh\n# Next steps for ops\nredis-cli FLUSHDB\n## not a heading\n```\n"
    );
}

#[test]
fn handoff_from_an_empty_or_closed_standard_input_is_refused() {
    // The test runner's standard input is closed (`/dev/null`).
    let p = project()
        .args(["handoff", "--topic", "x", "--from", "-"])
        .refused("handoff", "--from -: standard input is empty");
    for input in [&b""[..], b"  \n\t\n"] {
        let mut command = p.command();
        command
            .args(["handoff", "--topic", "x", "--from", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        assert_eq!(
            String::from_utf8(output.stderr).unwrap(),
            "mem handoff: --from -: standard input is empty\n"
        );
        assert!(output.stdout.is_empty());
    }
    assert!(!p.path(".agents").exists());
    let _ = p
        .write("empty.md", "\n")
        .args(["handoff", "--topic", "x", "--from", "empty.md"])
        .refused("handoff", "--from input is empty");
}

// ---------------------------------------------------------------------------------------------
// scan
// ---------------------------------------------------------------------------------------------

fn scanned(p: TestProject) -> (Vec<ScannedProject>, TestProject) {
    let ran = p.args(["--json", "scan", "ws"]).code(0).unchanged().run();
    let scanned: Scanned = ran.json();
    assert_eq!(scanned.count, scanned.projects.len());
    assert!(scanned.indexed.is_none() && !scanned.dir.is_empty());
    assert!(scanned.warnings.is_empty());
    (scanned.projects, ran.then())
}

#[test]
fn scan_dates_a_project_by_the_newest_change_below_it() {
    let p = project()
        .write("ws/cli/Cargo.toml", "[package]\nname = \"cli\"\n")
        .write("ws/cli/src/main.rs", "fn main() {}\n")
        .write("ws/cli/target/debug/cli", "binary")
        .write("ws/cli/.cache/x", "x")
        .write("ws/web/package.json", "{\"name\":\"web\"}")
        .write("ws/web/node_modules/left-pad/index.js", "x");
    for dir in ["ws/cli", "ws/web"] {
        set_mtimes_below(&p.path(dir), "2025-01-01");
    }
    // Yesterday's edit, deep in `src/`; the build and cache folders changed today but do not
    // count, nor does a dependency install.
    set_mtime(&p.path("ws/cli/src/main.rs"), "2026-10-17");
    for rel in [
        "ws/cli/target/debug/cli",
        "ws/cli/.cache/x",
        "ws/web/node_modules/left-pad/index.js",
    ] {
        set_mtime(&p.path(rel), "2026-10-18");
    }
    let (projects, _) = scanned(p);
    let got: Vec<(&str, &str, Option<&str>)> = projects
        .iter()
        .map(|p| {
            (
                p.relative.as_str(),
                p.status.as_str(),
                p.last_change.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("cli", "active", Some("2026-10-17T00:00:00.000Z")),
            ("web", "archived", Some("2025-01-01T00:00:00.000Z"))
        ]
    );
    assert_eq!(projects[0].stack, "Rust");
    assert_eq!(projects[1].name, "web");
    assert!(projects.iter().all(|p| !p.bmad_installed
        && !p.hash.is_empty()
        && p.path.ends_with(&p.relative)
        && !p.markers.is_empty()));
}

#[test]
fn scan_dates_a_git_repository_by_its_last_commit() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("git is not installed: skipped");
        return;
    }
    let p = project().write("ws/api/go.mod", "module api\n");
    let dir = p.path("ws/api");
    let git = |args: &[&str]| {
        let output = Command::new("git")
            .args(args)
            .current_dir(&dir)
            .env("HOME", p.base().join("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "T")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "T")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .env("GIT_AUTHOR_DATE", "2026-10-10T12:00:00Z")
            .env("GIT_COMMITTER_DATE", "2026-10-10T12:00:00Z")
            .output()
            .unwrap();
        assert!(output.status.success(), "git {args:?}: {output:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "go.mod"]);
    git(&["commit", "-q", "-m", "First"]);
    // Every file, `.git/` included, looks a year old: only the commit says otherwise.
    set_mtimes_below(&dir, "2025-01-01");
    let (projects, _) = scanned(p);
    assert_eq!(projects.len(), 1);
    assert_eq!(
        (
            projects[0].status.as_str(),
            projects[0].last_change.as_deref()
        ),
        ("active", Some("2026-10-10T12:00:00.000Z"))
    );
    assert_eq!(projects[0].markers, ["go.mod", ".git"]);
}

#[test]
fn a_topic_ending_with_a_number_is_not_taken_for_a_handoff_suffix() {
    // Two handoffs on "Sprint 3" written by hand the same day, no front matter: the second
    // is `-sprint-3-2.md`, and the `3` of the topic is no suffix.
    let p = project()
        .write(
            &format!("{SESSIONS}/2026-10-18-sprint-3.md"),
            "# Sprint 3, morning\n",
        )
        .write(
            &format!("{SESSIONS}/2026-10-18-sprint-3-2.md"),
            "# Sprint 3, evening\n",
        );
    let (brief, p) = run_brief(p, &[]);
    assert_eq!(
        brief.text,
        "# Session brief — project\n\n## Latest handoff — .agents/memory/sessions/2026-10-18-sprint-3-2.md\n\n# Sprint 3, evening\n\n## Earlier handoff, same day — .agents/memory/sessions/2026-10-18-sprint-3.md\n\n# Sprint 3, morning\n"
    );
    let status = read_status(p);
    assert_eq!(
        status.handoffs,
        Handoffs {
            count: 2,
            latest: Some("2026-10-18-sprint-3-2.md".into())
        }
    );
    // Written by `handoff` within the same instant: the same answer.
    let ran = project()
        .args(["handoff", "--topic", "Sprint 3"])
        .code(0)
        .run()
        .then()
        .args(["handoff", "--topic", "Sprint 3"])
        .code(0)
        .run()
        .then()
        .args(["--json", "status"])
        .code(0)
        .run();
    let status: Status = ran.json();
    assert_eq!(
        status.handoffs.latest.as_deref(),
        Some("2026-10-18-sprint-3-2.md")
    );
}

#[test]
fn lessons_headed_by_a_bracketed_or_emphasised_date_are_dated() {
    // A journal-style lessons file, newest at the top, each heading starting with its date
    // in brackets or in bold; a dated lesson in `.bmad/memory/` in between.
    let lessons = "# Lessons (newest first)\n\n\
        ### [2026-10-16] Pin the runner image\nAn image update broke CI.\n\n\
        ### **2026-10-09** — Clock skew on tokens\nAllow 30 s.\n\n\
        ### [2026-09-02] Backups need a restore drill\nThe backup was empty.\n";
    let p = project().write(LESSONS_MD, lessons).write(
        ".bmad/memory/lessons.md",
        "### 2026-10-12 — Canary on login\n- **Lesson**: watch the login rate\n",
    );
    let (brief, p) = run_brief(p, &[]);
    assert_eq!(
        headings_under(&brief.text, "Lessons"),
        [
            "[2026-10-16] Pin the runner image",
            "2026-10-12 — Canary on login",
            "**2026-10-09** — Clock skew on tokens",
            "[2026-09-02] Backups need a restore drill",
        ]
    );
    // Under a budget, the newest lesson is the one kept.
    let (brief, p) = run_brief(p, &["--max-chars", "320"]);
    assert_eq!(
        headings_under(&brief.text, "Lessons"),
        ["[2026-10-16] Pin the runner image"]
    );
    let status = read_status(p);
    assert_eq!(status.notes[1].path, LESSONS_MD);
    assert_eq!(status.notes[1].latest_entry.as_deref(), Some("2026-10-16"));
}

#[test]
fn a_team_brain_laid_out_as_the_global_brain_is_not_asked_for_an_index_entry() {
    // A team's brain, shared through `BMAD_PLUS_BRAIN`, laid out as the BMAD+ global brain.
    // `init` links it and writes nothing into it, so `status` must not fail it for lacking
    // `projects/` or this project's entry: nothing the project can run would ever add them.
    let p = project();
    let brain = p.base().join("team-brain");
    let p = p
        .write("../team-brain/identity.yaml", "name: platform team\n")
        .write("../team-brain/decisions.md", "# Decisions\n")
        .write("../team-brain/lessons.md", "# Lessons\n")
        .write("../team-brain/patterns.md", "# Patterns\n")
        .write(&format!("{SESSIONS}/2026-10-18-auth.md"), "# Auth\n")
        .env("BMAD_PLUS_BRAIN", &brain)
        .args(["init"])
        .code(0)
        .run()
        .then();
    assert!(!brain.join("projects").exists());
    let ran = p.args(["--json", "status"]).code(0).unchanged().run();
    let status: Status = ran.json();
    assert_eq!(status.brain.as_ref().unwrap()["type"], "bmad-global");
    assert_eq!(
        status.health,
        Health {
            percent: 100,
            passed: 11,
            checks: 11,
            failed: vec![],
        }
    );
    // This home's own global brain is still asked for both.
    let p = ran
        .then()
        .env("BMAD_PLUS_BRAIN", "")
        .remove(".agents/memory/.brain-link")
        .args(["init"])
        .code(0)
        .run()
        .then();
    let projects = p.base().join("home/.bmad-plus/brain/projects");
    for entry in fs::read_dir(&projects).unwrap() {
        fs::remove_file(entry.unwrap().path()).unwrap();
    }
    let status = read_status(p);
    assert_eq!(
        status.health.failed,
        [format!("this project indexed in {}/", projects.display())]
    );
}

#[test]
fn a_portfolio_entry_point_linked_out_of_the_brain_gives_way_to_the_next_one() {
    // A portfolio whose `_brain/README.md` is a link to the portfolio's own README (outside
    // the brain, so never read), and whose `AGENTS.md` is a regular file: the brief shows
    // `AGENTS.md`, says why `README.md` was passed over, and `status` names the same one.
    let p = project()
        .write("../README.md", "# Portfolio site\n")
        .symlink("../README.md", "../_brain/README.md")
        .write("../_brain/AGENTS.md", "# Agents\nRead HOT.md first.\n")
        .args(["init"])
        .code(0)
        .run()
        .then();
    let base = p.base().to_path_buf();
    let warning = format!(
        "warning: {0}/_brain/README.md skipped: resolves to {0}/README.md, outside {0}/_brain",
        base.display()
    );
    let (brief, p) = run_brief(p, &[]);
    assert!(
        brief.text.starts_with(&format!(
            "# Session brief — project\n\n## Brain — AGENTS.md (portfolio brain, {}/_brain)\n\n# Agents\nRead HOT.md first.\n",
            base.display()
        )),
        "{}",
        brief.text
    );
    assert_eq!(brief.warnings, std::slice::from_ref(&warning));
    let ran = p.args(["--json", "status"]).code(0).unchanged().run();
    let status: Status = ran.json();
    assert_eq!(status.brain.as_ref().unwrap()["entryPoint"], "AGENTS.md");
    assert_eq!(status.warnings, [warning]);
    // With no other entry point, `status` fails the check instead of naming one `brief` skips.
    let p = ran.then().remove("../_brain/AGENTS.md");
    let status = read_status(p);
    assert!(status.brain.as_ref().unwrap()["entryPoint"].is_null());
    assert_eq!(
        status.health.failed,
        [
            format!("a handoff in {SESSIONS}/"),
            format!("an entry point in the brain {}/_brain", base.display())
        ]
    );
}

#[test]
fn french_decision_statuses_are_read() {
    // A decisions file written in French, as the seeds are: accepted, adopted, validated and
    // approved decisions are in force; abandoned and draft ones are not.
    let decisions = "# Décisions\n\n\
        ### Sessions côté serveur\n- **Statut** : Acceptée\n\n\
        ### Déploiement progressif\n- **Statut** : ✅ adopté\n\n\
        ### Cache des fragments\n**Statut :** Validé\n\n\
        ### API versionnée\n- **Status**: Approved\n\n\
        ### GraphQL partout\n- **Statut** : abandonnée\n\n\
        ### Files de messages\n- **Statut** : brouillon\n\n\
        ### Sessions en base\n- **Statut** : remplacé par « Sessions côté serveur »\n";
    let (brief, p) = run_brief(project().write(DECISIONS_MD, decisions), &[]);
    assert_eq!(
        headings_under(&brief.text, "Decisions in force"),
        [
            "API versionnée",
            "Cache des fragments",
            "Déploiement progressif",
            "Sessions côté serveur"
        ]
    );
    let status = read_status(p);
    assert_eq!(
        (status.notes[0].entries, status.notes[0].active),
        (7, Some(4))
    );
}

#[test]
fn a_readme_or_template_in_sessions_is_no_handoff() {
    // Teams keep a README and a template beside their handoffs; neither is a handoff.
    let template = "---\ntitle: Session Handoff\n---\n\n# Session Handoff — YYYY-MM-DD — <topic>\n";
    let p = project()
        .write(
            &format!("{SESSIONS}/README.md"),
            "# Sessions\n\nOne handoff per session: `bmad-mem handoff --topic …`.\n",
        )
        .write(&format!("{SESSIONS}/_template.md"), template);
    let (brief, p) = run_brief(p, &[]);
    assert_eq!(brief.text, "# Session brief — project\n");
    let ran = p.args(["--json", "status"]).code(0).unchanged().run();
    let status: Status = ran.json();
    assert_eq!(
        status.handoffs,
        Handoffs {
            count: 0,
            latest: None
        }
    );
    assert!(
        status
            .health
            .failed
            .contains(&format!("a handoff in {SESSIONS}/")),
        "{:?}",
        status.health
    );
    let p = ran
        .then()
        .write(&format!("{SESSIONS}/2026-10-18-auth.md"), "# Auth\n");
    let (brief, _) = run_brief(p, &[]);
    assert_eq!(
        brief.text,
        "# Session brief — project\n\n## Latest handoff — .agents/memory/sessions/2026-10-18-auth.md\n\n# Auth\n"
    );
}

#[test]
fn a_byte_order_mark_does_not_hide_the_first_entry() {
    // Notes saved by a Windows editor that writes a byte-order mark before the first heading.
    let p = project()
        .write(
            DECISIONS_MD,
            "\u{feff}### Sessions in Redis\r\n**Status:** active\r\n\r\n### Sessions in Postgres\r\n**Status:** superseded\r\n",
        )
        .write(
            LESSONS_MD,
            "\u{feff}### 2026-10-16 — Pin the runner image\r\nAn update broke CI.\r\n\r\n### 2026-09-02 — Backups need a restore drill\r\nThe backup was empty.\r\n",
        );
    let (brief, p) = run_brief(p, &[]);
    assert_eq!(
        headings_under(&brief.text, "Decisions in force"),
        ["Sessions in Redis"]
    );
    assert_eq!(
        headings_under(&brief.text, "Lessons"),
        [
            "2026-10-16 — Pin the runner image",
            "2026-09-02 — Backups need a restore drill"
        ]
    );
    let status = read_status(p);
    let counts: Vec<(usize, Option<usize>, Option<&str>)> = status.notes[..2]
        .iter()
        .map(|n| (n.entries, n.active, n.latest_entry.as_deref()))
        .collect();
    assert_eq!(counts, [(2, Some(1), None), (2, None, Some("2026-10-16"))]);
}

#[test]
fn a_status_given_in_a_key_value_table_is_read() {
    // ADR-style notes that keep each decision's fields in a small table.
    let decisions = "# Decisions\n\n\
        ### Session store\n| Field | Value |\n|---|---|\n| **Date** | 2026-09-21 |\n| **Status** | Superseded by Session store in Redis |\n\n\
        ### Session store in Redis\n| Field | Value |\n|---|---|\n| **Date** | 2026-10-05 |\n| **Status** | ✅ Active |\n";
    let (brief, p) = run_brief(project().write(DECISIONS_MD, decisions), &[]);
    assert_eq!(
        headings_under(&brief.text, "Decisions in force"),
        ["Session store in Redis"]
    );
    let status = read_status(p);
    assert_eq!(
        (
            status.notes[0].entries,
            status.notes[0].active,
            status.notes[0].latest_entry.as_deref()
        ),
        (2, Some(1), Some("2026-10-05"))
    );
}

#[test]
fn an_emoji_before_the_field_name_is_read() {
    // Notes that mark each field with an emoji in front of its name.
    let decisions = "# Decisions\n\n\
        ### Session store\n- 📅 **Date**: 2026-09-21\n- ❌ **Status**: superseded by Session store in Redis\n\n\
        ### Session store in Redis\n- 📅 **Date**: 2026-10-05\n- ✅ **Status**: active\n";
    let lessons = "# Lessons\n\n\
        ### Backups need a restore drill\n📅 **Date:** 2026-09-02\n\n\
        ### Pin the runner image\n📅 **Date:** 2026-10-15\n";
    let p = project()
        .write(DECISIONS_MD, decisions)
        .write(LESSONS_MD, lessons);
    let (brief, p) = run_brief(p, &[]);
    assert_eq!(
        headings_under(&brief.text, "Decisions in force"),
        ["Session store in Redis"]
    );
    assert_eq!(
        headings_under(&brief.text, "Lessons"),
        ["Pin the runner image", "Backups need a restore drill"]
    );
    let status = read_status(p);
    let counts: Vec<(usize, Option<usize>, Option<&str>)> = status.notes[..2]
        .iter()
        .map(|n| (n.entries, n.active, n.latest_entry.as_deref()))
        .collect();
    assert_eq!(
        counts,
        [
            (2, Some(1), Some("2026-10-05")),
            (2, None, Some("2026-10-15"))
        ]
    );
}

#[test]
fn a_status_history_written_with_arrows_reads_as_its_last_status() {
    // Teams that keep a decision's history on its status line.
    let decisions = "# Decisions\n\n\
        ### Session store\n- **Status**: Accepted → Superseded by Session store in Redis\n\n\
        ### GraphQL gateway\n**Status:** proposed -> accepted -> rolled back\n\n\
        ### Session store in Redis\n- **Status**: Proposed → Accepted\n\n\
        ### Monorepo\n- **Statut** : proposé → actif\n";
    let (brief, p) = run_brief(project().write(DECISIONS_MD, decisions), &[]);
    assert_eq!(
        headings_under(&brief.text, "Decisions in force"),
        // Undated: the one further down the file, written later, first.
        ["Monorepo", "Session store in Redis"]
    );
    let status = read_status(p);
    assert_eq!(
        (status.notes[0].entries, status.notes[0].active),
        (4, Some(2))
    );
}

/// The 485 real decision records of the retrieval benchmark's corpus, and a person's reading of
/// each one's status block (`benches/data/adr/statuses.tsv`, made apart from the reader):
/// `status` counts what that reading finds.
#[test]
fn status_counts_the_corpus_as_a_person_reads_its_status_blocks() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/data/adr");
    let decisions = fs::read_to_string(root.join("corpus/.agents/memory/decisions.md")).unwrap();
    let expected = fs::read_to_string(root.join("statuses.tsv")).unwrap();
    let statuses: Vec<&str> = expected
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    let count = |names: &[&str]| statuses.iter().filter(|s| names.contains(s)).count();
    let (in_force, unplaced) = (count(&["active"]), count(&["none", "unreadable"]));
    // What the reading found, for the record: most in force, 14 superseded, 12 rejected.
    assert_eq!(
        (
            statuses.len(),
            in_force,
            unplaced,
            count(&["superseded"]),
            count(&["rejected"]),
            count(&["proposed"]),
            count(&["deprecated"])
        ),
        (485, 298, 134, 14, 12, 25, 2)
    );
    let ran = project()
        .write(DECISIONS_MD, &decisions)
        .args(["--json", "status"])
        .code(0)
        .unchanged()
        .run();
    let status: Status = ran.json();
    assert_eq!(
        (
            status.notes[0].entries,
            status.notes[0].active,
            status.notes[0].may_be_in_force
        ),
        (485, Some(in_force + unplaced), Some(unplaced))
    );
    let ran = ran.then().args(["status"]).code(0).stderr("").run();
    let line = ran.stdout.lines().nth(1).unwrap();
    assert!(
        line.starts_with(&format!(
            "  decisions.md   485 entries ({} active: {in_force} in force, {unplaced} with no readable status), latest "
        , in_force + unplaced)),
        "{line}"
    );
}

#[test]
fn the_layouts_of_adr_folders_read_alike_in_brief_and_status() {
    // adr-tools, the corpus's emoji, a heading carrying its value, MADR 2, MADR 3 front matter,
    // a status block that ends the decision below its value, and a value nobody can place.
    let decisions = "# Decisions\n\n\
        ### Record architecture decisions\n## Status\n\nAccepted\n\n## Context\n\nWe record them.\n\n\
        ### Use Standard for Ruby linting\n## Status\n\nSuperseded by [16. Use rubocop](0016-use-rubocop.md)\n\n\
        ### Dedicated ingress controllers\n#### Status\n\n❌ Rejected (see [019](019-shared.md))\n\n\
        ### Shared ingress controllers\n#### Status\n\n🤔 Proposed\n\n\
        ### Use Percy\n#### Status: Deprecated\n\nNever got to it.\n\n\
        ### Use the ADR number as its unique ID\n- Status: superseded by [use-slugs](use-slugs.md)\n\n\
        ### Use MADR\n---\nstatus: accepted\ndate: 2022-11-14\n---\n\n\
        ### Distributed WorkQueue\n#### Status\n\nAccepted (lazy consensus) & implemented\n\nSuperceded by [16. Distributed WorkQueue](0016-workqueue.md)\n\n\
        ### Networking outline\n#### Status\n\nPartly superseded\n\n\
        ### Use redis\nNo status written.\n";
    let (brief, p) = run_brief(project().write(DECISIONS_MD, decisions), &[]);
    // The records' own `## Status` headings are in the brief too: only the `###` lines count,
    // in whatever order the brief puts them.
    let mut shown: Vec<&str> = brief
        .text
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .collect();
    shown.sort_unstable();
    assert_eq!(
        shown,
        [
            "Networking outline (status unreadable)",
            "Record architecture decisions",
            "Use MADR",
            "Use redis"
        ]
    );
    let status = read_status(p);
    assert_eq!(
        (
            status.notes[0].entries,
            status.notes[0].active,
            status.notes[0].may_be_in_force
        ),
        (10, Some(4), Some(2))
    );
}
