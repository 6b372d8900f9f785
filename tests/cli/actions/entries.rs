//! Governed entries: `propose` → `admit --list` → `admit <id> --expect` → `recall`, every
//! refusal (nothing written), `admit --refuse`, `import`, the generated views and `doctor`,
//! parallel proposals and admissions, and a crash in the middle of an admission.

use std::process::Command;
use std::thread;

use bmad_mem::js::json::sha256_hex;
use bmad_mem::store::sections::sections;
use serde::Deserialize;

use crate::support::schema::Report as Doctor;
use crate::support::{BIN, LOCK, NOW, TestProject};

const LESSONS: &str = ".agents/memory/lessons.md";
const DECISIONS: &str = ".agents/memory/decisions.md";
const CANDIDATES: &str = ".bmad/memory/candidates";
const REFUSED: &str = ".bmad/memory/refused.md";
const INDEX: &str = ".bmad/memory/INDEX.md";
const CANDIDATES_VIEW: &str = ".bmad/memory/CANDIDATES.md";
/// The id of the lesson most tests propose (the project folder is `project`).
const ID: &str = "project-lesson-20261018-flush-the-rate-limit-bucket-in-setup";
const TITLE: &str = "Flush the rate limit bucket in setup";
const BODY: &str = "Flush the `rate_limit:*` keys in the test setup,\nnever in production code.";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Proposed {
    pub(super) id: String,
    #[serde(rename = "type")]
    kind: String,
    title: String,
    file: String,
    pub(super) sha256: String,
    warnings: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct List {
    count: usize,
    candidates: Vec<Listed>,
    warnings: Vec<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Listed {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    title: String,
    source: String,
    created: String,
    sha256: String,
    excerpt: Vec<String>,
    #[serde(rename = "moreLines")]
    more_lines: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AdmitResult {
    admitted: String,
    #[serde(rename = "type")]
    kind: String,
    title: String,
    heading: String,
    file: String,
    sha256: String,
    by: String,
    finished: bool,
    warnings: Vec<String>,
}

/// A GitHub-style token, assembled at run time so the source holds no literal credential.
fn token() -> String {
    format!(
        "ghp_{}",
        "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY3z5C".get(..36).unwrap()
    )
}

/// `propose --json` of a lesson by `forge`, which must succeed.
pub(super) fn propose(project: TestProject, title: &str, body: &str) -> (TestProject, Proposed) {
    let ran = project
        .args([
            "--json", "propose", "--type", "lesson", "--title", title, "--body", body, "--source",
            "forge",
        ])
        .code(0)
        .run();
    let proposed: Proposed = ran.json();
    assert!(proposed.warnings.is_empty(), "{}", ran.stdout);
    (ran.then(), proposed)
}

fn list(project: TestProject) -> (TestProject, List) {
    let ran = project.args(["--json", "admit", "--list"]).code(0).run();
    let list: List = ran.json();
    assert!(list.warnings.is_empty(), "{}", ran.stdout);
    (ran.then(), list)
}

/// The refusal of a note file the entry commands cannot read as a regular file.
fn unreadable(file: &str, reason: &str) -> String {
    format!(
        "{file} {reason}; the entry commands read a note file only as a regular file of at most 64 MiB and never take it as absent (its entries would be proposed again and left out of the index): make it a regular file, or move it away"
    )
}

fn doctor(project: TestProject, code: i32) -> (TestProject, Doctor) {
    let ran = project.args(["--json", "doctor"]).code(code).run();
    let report = ran.json();
    (ran.then(), report)
}

/// One run of the binary in `project` (for threads), with the fixed clock.
fn run_in(project: &TestProject, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .current_dir(project.path(""))
        .env("BMAD_MEM_NOW", NOW)
        .env("TZ", "UTC")
        .envs(env.iter().copied());
    let output = command.output().expect("spawn bmad-mem");
    let (code, stdout) = (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
    );
    let words: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    crate::support::validate::check_output(&words, code, &stdout);
    (code, stdout, String::from_utf8(output.stderr).unwrap())
}

#[test]
fn propose_list_admit_and_recall_finds_it() {
    let project = TestProject::new().fixture("example");
    let lessons_before = project.read(LESSONS);
    let candidate = format!(
        "---\nid: {ID}\ntype: lesson\ntitle: \"{TITLE}\"\nstatus: candidate\nsource: \"forge\"\n\
         created: {NOW}\n---\n\n## Context\n\nlogin tests run twice in CI\n\n## Content\n\n{BODY}\n\n\
         ## Evidence\n\n6b1dc0dc38b7, src/auth/login_test.rs\n"
    );
    let sha = sha256_hex(candidate.as_bytes());
    let ran = project
        .args([
            "propose",
            "--type",
            "lesson",
            "--title",
            &format!("  {TITLE}\n"),
            "--body",
            &format!("\n{BODY}\n\n"),
            "--applies-when",
            "login tests\n run twice   in CI",
            "--evidence",
            "6b1dc0dc38b7, ,src/auth/login_test.rs",
            "--source",
            "forge",
        ])
        .code(0)
        .stderr("")
        .stdout(&format!(
            "mem propose: candidate {ID} written to {CANDIDATES}/{ID}.md\n  lesson \"{TITLE}\"\n  sha256 {sha}\n  a person admits it with: bmad-mem admit {ID} --expect {sha}\n"
        ))
        .file(&format!("{CANDIDATES}/{ID}.md"), &candidate)
        .file(LESSONS, &lessons_before)
        .run();
    let (project, listed) = list(ran.then());
    assert_eq!(listed.count, 1);
    assert_eq!(
        listed.candidates,
        [Listed {
            id: ID.into(),
            kind: "lesson".into(),
            title: TITLE.into(),
            source: "forge".into(),
            created: NOW.into(),
            sha256: sha.clone(),
            excerpt: BODY.lines().map(Into::into).collect(),
            more_lines: 0,
        }]
    );
    let row = format!("| {ID} | lesson | {TITLE} | forge | {NOW} | {sha} |");
    assert!(project.read_text(CANDIDATES_VIEW).contains(&row));
    let entry = format!(
        "### {TITLE}\n**Date:** 2026-10-18\n**Context:** login tests run twice in CI\n**Lesson:** {BODY}\n\
         **Evidence:** 6b1dc0dc38b7, src/auth/login_test.rs\n**Admitted-by:** alice (candidate {ID}, sha256 {sha})\n"
    );
    let mut lessons_after = lessons_before.clone();
    lessons_after.extend_from_slice(format!("\n{entry}").as_bytes());
    let ran = project
        .args(["--json", "admit", ID, "--expect", &sha, "--by", "alice"])
        .code(0)
        .file(LESSONS, &lessons_after)
        .absent(LOCK)
        .run();
    let admitted: AdmitResult = ran.json();
    let got = [
        &admitted.admitted,
        &admitted.kind,
        &admitted.title,
        &admitted.heading,
        &admitted.file,
        &admitted.sha256,
        &admitted.by,
    ]
    .map(String::as_str);
    assert_eq!(got, [ID, "lesson", TITLE, TITLE, LESSONS, &sha, "alice"]);
    assert!(!admitted.finished && admitted.warnings.is_empty());
    let project = ran.then();
    assert_eq!(
        project.read_text(&format!("{CANDIDATES}/{ID}.md")),
        format!(
            "admitted {NOW} by alice: {ID} (sha256 {sha}) is the entry \"{TITLE}\" of {LESSONS}\n"
        )
    );
    let ran = project
        .args(["recall", "rate", "limit", "bucket", "setup"])
        .code(0)
        .run();
    assert!(
        ran.stdout.contains(&format!("note lessons.md § {TITLE}")),
        "{}",
        ran.stdout
    );
    let (project, listed) = list(ran.then());
    assert_eq!(listed.count, 0);
    assert!(
        project
            .read_text(INDEX)
            .contains(&format!("| {TITLE} | lesson | - | {LESSONS} |"))
    );
    let (_, report) = doctor(project, 0);
    assert!(report.healthy, "{report:?}");
}

/// The previous last section of a person's note file reads exactly as before (its receipts stay
/// current), and every byte before the append is kept, whatever the file's ending.
#[test]
fn a_persons_note_file_keeps_every_byte_and_its_last_section() {
    for ending in ["\n", "", "\n\n\n", "\r\n", " \t"] {
        let original =
            format!("# Lessons\n\nintro\n\n### First\nbody one\n\n### Last one\nlast body{ending}");
        let project = TestProject::new().write(LESSONS, &original);
        let (project, proposed) = propose(project, TITLE, BODY);
        let ran = project
            .args([
                "admit",
                &proposed.id,
                "--expect",
                &proposed.sha256,
                "--by",
                "alice",
            ])
            .code(0)
            .run();
        let project = ran.then();
        let after = project.read_text(LESSONS);
        assert!(after.starts_with(&original), "{ending:?}: {after:?}");
        let (before, now) = (sections(&original), sections(&after));
        assert_eq!(now.len(), before.len() + 1, "{ending:?}");
        for (a, b) in before.iter().zip(&now) {
            assert_eq!(a.full_text(), b.full_text(), "{ending:?}");
            assert_eq!(a.trimmed_text(), b.trimmed_text(), "{ending:?}");
        }
        // No entry with fields yet: the style of init's template, the day in the heading.
        assert_eq!(now.last().unwrap().heading, format!("2026-10-18 — {TITLE}"));
    }
}

#[test]
fn a_decision_and_a_pattern_carry_their_status() {
    let project = TestProject::new();
    let ran = project
        .args([
            "--json",
            "propose",
            "--type",
            "decision",
            "--title",
            "Use Postgres for the ledger",
            "--body",
            "One database.",
        ])
        .code(0)
        .run();
    let proposed: Proposed = ran.json();
    assert_eq!(proposed.kind, "decision");
    assert_eq!(proposed.file, format!("{CANDIDATES}/{}.md", proposed.id));
    let project = ran
        .then()
        .args(["admit", &proposed.id, "--expect", &proposed.sha256])
        .env("USER", "bob")
        .code(0)
        .run()
        .then();
    let text = project.read_text(DECISIONS);
    assert!(
        text.starts_with(
            "# Decisions\n\n### 2026-10-18 — Use Postgres for the ledger\n- **Status**: active\n- **Context**: none given\n- **Decision**: One database.\n- **Evidence**: none\n- **Admitted-by**: bob (candidate "
        ),
        "{text}"
    );
    let ran = project
        .args([
            "--json",
            "propose",
            "--type",
            "pattern",
            "--title",
            "Cache aside",
            "--body",
            "Read through.",
        ])
        .code(0)
        .run();
    let proposed: Proposed = ran.json();
    let project = ran
        .then()
        .args(["admit", &proposed.id, "--expect", &proposed.sha256])
        .env("USER", "")
        .env("USERNAME", "")
        .code(0)
        .run()
        .then();
    let text = project.read_text(".agents/memory/patterns.md");
    assert!(
        text.contains("\n### Cache aside\n- **Status**: candidate\n"),
        "{text}"
    );
    assert!(
        text.contains("- **Admitted-by**: unknown (candidate "),
        "{text}"
    );
    assert!(
        project
            .read_text(INDEX)
            .contains("| 2026-10-18 — Use Postgres for the ledger | decision | active |")
    );
}

#[test]
fn a_user_name_from_the_environment_is_one_line_like_by() {
    // USER is the default of --by, and takes the same shape: whitespace runs one space.
    let (project, first) = propose(TestProject::new(), TITLE, BODY);
    let (project, second) = propose(project, "Another title", BODY);
    let project = project
        .args(["admit", &first.id, "--expect", &first.sha256])
        .env("USER", "eve\n### not a heading")
        .code(0)
        .run()
        .then()
        .args(["admit", "--refuse", &second.id, "--reason", "no"])
        .env("USER", "eve\r\nsmith")
        .code(0)
        .run()
        .then();
    let lessons = project.read_text(".agents/memory/lessons.md");
    assert!(
        lessons.contains("\n- **Admitted-by**: eve ### not a heading (candidate "),
        "{lessons}"
    );
    let refused = project.read_text(".bmad/memory/refused.md");
    assert!(
        refused.contains("\n**Refused-by:** eve smith, 2026-10-18\n"),
        "{refused}"
    );
    for id in [&first.id, &second.id] {
        let record = project.read_text(&format!("{CANDIDATES}/{id}.md"));
        assert_eq!(record.lines().count(), 1, "{record}");
    }
}

#[test]
fn secrets_never_enter() {
    let project = TestProject::new();
    let secret = token();
    let body = format!("first line\nuse {secret} for the API");
    let project = project
        .args(["propose", "--type", "lesson", "--title", TITLE, "--body", &body])
        .refused(
            "propose",
            "the content: line 2 looks like a GitHub personal access token (rule github-pat); secrets never enter the memory",
        )
        .args(["propose", "--type", "lesson", "--title", &format!("token {secret}"), "--body", "x"])
        .refused(
            "propose",
            "the title: line 1 looks like a GitHub personal access token (rule github-pat); secrets never enter the memory",
        )
        .args(["propose", "--type", "lesson", "--title", TITLE, "--body", "x", "--evidence", "abc, config/.env"])
        .refused(
            "propose",
            "evidence `config/.env` names an environment file; secrets never enter the memory",
        )
        .write("id_rsa", "not really a key")
        .args(["propose", "--type", "lesson", "--title", TITLE, "--from", "id_rsa"])
        .refused(
            "propose",
            "--from `id_rsa` names a credentials file; secrets never enter the memory",
        );
    // Prose that mentions `.env`, and hex digests, are fine.
    let (_, proposed) = propose(
        project,
        "Never commit the .env file",
        &format!("Keep .env out of git; receipt {}", "ab12".repeat(16)),
    );
    assert_eq!(proposed.title, "Never commit the .env file");
}

#[test]
fn the_refusals_write_nothing() {
    let long = "x".repeat(2001);
    let project = TestProject::new()
        .fixture("example")
        .args(["propose", "--type", "lesson", "--title", TITLE, "--body", &long])
        .refused("propose", "the content is 2001 characters long; at most 2000 are accepted")
        .args(["propose", "--type", "note", "--title", TITLE, "--body", "x"])
        .refused("propose", "--type must be decision, lesson or pattern")
        .args(["propose", "--title", TITLE, "--body", "x"])
        .refused("propose", "--type decision|lesson|pattern is required")
        .args(["propose", "--type", "lesson", "--body", "x"])
        .refused("propose", "--title <text> is required")
        .args(["propose", "--type", "lesson", "--title", TITLE])
        .refused("propose", "the content is required: --body <text> or --from <file|->")
        .args(["propose", "--type", "lesson", "--title", "!!!", "--body", "x"])
        .refused("propose", "the title has no letter or digit to make a topic of")
        .args(["propose", "--type", "lesson", "--title", TITLE, "--body", "a\n### b"])
        .refused(
            "propose",
            "content line 2 starts with `###`, which would cut the entry in two; use `####` or rephrase",
        )
        ;
    // Already an entry of that type (a heading of .bmad/memory/lessons.md in the fixture).
    let heading = "2026-10-03 — Login rate limit tests must reset the bucket";
    let _ = project
        .args(["propose", "--type", "lesson", "--title", heading, "--body", "x"])
        .refused(
            "propose",
            "the topic `2026-10-03-login-rate-limit-tests-must-reset-the-bucket` is already a lesson entry: \"2026-10-03 — Login rate limit tests must reset the bucket\" in .bmad/memory/lessons.md",
        )
        // Without its date, with other punctuation, hyphens and case, it is the same title.
        .args(["propose", "--type", "lesson", "--title", "login rate-limit tests: must RESET the bucket!", "--body", "x"])
        .refused(
            "propose",
            "the topic `login-rate-limit-tests-must-reset-the-bucket` is already a lesson entry: \"2026-10-03 — Login rate limit tests must reset the bucket\" in .bmad/memory/lessons.md",
        );
}

#[test]
fn content_that_leaves_fenced_code_open_is_refused() {
    // Admitted, it would put every later heading of the note file inside code: doctor would
    // report each entry admitted after it.
    for body in ["Run it:\n```sh\nmake", "a\n~~~\nb\n```"] {
        let _ = TestProject::new()
            .fixture("example")
            .args(["propose", "--type", "lesson", "--title", TITLE, "--body", body])
            .refused(
                "propose",
                "the content opens fenced code (``` or ~~~) that it never closes, which would hide every later entry of the file; close it",
            );
    }
    // Closed fences, and a fence on the first line (it follows the field name), are fine.
    let (project, _) = propose(TestProject::new(), TITLE, "a\n```sh\nmake\n```\nb");
    let _ = propose(project, "Another title", "``` not a fence");
}

#[test]
fn a_changed_candidate_or_a_wrong_digest_is_refused() {
    let (project, proposed) = propose(TestProject::new(), TITLE, BODY);
    let path = format!("{CANDIDATES}/{}.md", proposed.id);
    let wrong = "0".repeat(64);
    let project = project
        .args(["admit", &proposed.id, "--expect", &wrong])
        .refused(
            "admit",
            &format!(
                "candidate {} is not the text that was shown: its sha256 is {}, not {wrong}; review it again with `bmad-mem admit --list`",
                proposed.id, proposed.sha256
            ),
        );
    // Edited after it was shown: the digest that was shown no longer admits it.
    let edited = project
        .read_text(&path)
        .replace("never in production", "also in production");
    let new_sha = sha256_hex(edited.as_bytes());
    let project = project
        .write(&path, &edited)
        .args(["admit", &proposed.id, "--expect", &proposed.sha256])
        .refused(
            "admit",
            &format!(
                "candidate {} is not the text that was shown: its sha256 is {new_sha}, not {}; review it again with `bmad-mem admit --list`",
                proposed.id, proposed.sha256
            ),
        )
        // A secret edited into a candidate is refused at admission too.
        .write(&path, edited.replace("also in production", &token()));
    let sha = sha256_hex(&project.read(&path));
    let project = project
        .args(["admit", &proposed.id, "--expect", &sha])
        .refused(
            "admit",
            "the content: line 2 looks like a GitHub personal access token (rule github-pat); secrets never enter the memory",
        )
        .args(["admit", "no-such-candidate", "--expect", &sha])
        .refused("admit", "no candidate no-such-candidate (see `bmad-mem admit --list`)")
        .args(["admit", "../x", "--expect", &sha])
        .refused("admit", "`../x` is not a candidate id (lowercase letters, digits and -)")
        .args(["admit", &proposed.id])
        .refused(
            "admit",
            "--expect <sha256> is required: the digest of the candidate as it was shown",
        );
    // A heading written by hand meanwhile: headings must stay unique.
    let _ = project
        .write(&path, &edited)
        .write(LESSONS, format!("### {TITLE}\nby hand\n"))
        .args(["admit", &proposed.id, "--expect", &new_sha])
        .refused(
            "admit",
            &format!(
                "\"{TITLE}\" already heads a section of {LESSONS}; headings must stay unique (observe targets them)"
            ),
        );
}

#[test]
fn a_pending_topic_takes_the_next_id_and_a_decided_one_is_no_longer_pending() {
    let (project, first) = propose(TestProject::new(), TITLE, BODY);
    let (project, second) = propose(project, TITLE, "another text");
    assert_eq!(first.id, ID);
    assert_eq!(second.id, format!("{ID}-2"));
    let (project, listed) = list(project);
    assert_eq!(listed.count, 2);
    let project = project
        .args(["admit", &first.id, "--expect", &first.sha256, "--by", "alice"])
        .code(0)
        .run()
        .then()
        .args(["admit", &first.id, "--expect", &first.sha256])
        .refused(
            "admit",
            &format!(
                "candidate {ID} is no longer pending: admitted {NOW} by alice: {ID} (sha256 {}) is the entry \"2026-10-18 — {TITLE}\" of {LESSONS}",
                first.sha256
            ),
        );
    // The second one now has a topic that is an entry: its heading is taken.
    let _ = project
        .args(["admit", &second.id, "--expect", &second.sha256])
        .refused(
            "admit",
            &format!(
                "\"2026-10-18 — {TITLE}\" already heads a section of {LESSONS}; headings must stay unique (observe targets them)"
            ),
        );
}

#[test]
fn a_refused_topic_is_never_proposed_again() {
    let (project, proposed) = propose(TestProject::new(), TITLE, BODY);
    let project = project
        .args(["admit", "--refuse", &proposed.id, "--reason", "covered by\nthe test fixtures", "--by", "alice"])
        .code(0)
        .stdout(&format!(
            "mem admit: {ID} refused; topic `flush-the-rate-limit-bucket-in-setup` is never proposed again ({REFUSED})\n"
        ))
        .run()
        .then();
    let refused = project.read_text(REFUSED);
    assert!(
        refused.ends_with(&format!(
            "\n### flush-the-rate-limit-bucket-in-setup\n**Type:** lesson\n**Title:** {TITLE}\n**Reason:** covered by the test fixtures\n**Refused-by:** alice, 2026-10-18\n**Candidate:** (candidate {ID}, sha256 {})\n",
            proposed.sha256
        )),
        "{refused}"
    );
    assert!(
        project
            .read_text(&format!("{CANDIDATES}/{ID}.md"))
            .starts_with("refused ")
    );
    let _ = project
        .args(["propose", "--type", "decision", "--title", "Flush the rate-limit bucket, in setup!", "--body", "x"])
        .refused(
            "propose",
            &format!(
                "the topic `flush-the-rate-limit-bucket-in-setup` was refused (see {REFUSED}); it is never proposed again"
            ),
        )
        .args(["admit", "--refuse", ID])
        .refused("admit", "--refuse <id> needs --reason <text>");
}

#[test]
fn eight_parallel_proposals_lose_nothing_and_parallel_admits_all_land() {
    let project = TestProject::new();
    let results: Vec<(i32, String, String)> = thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let project = &project;
                s.spawn(move || {
                    let body = format!("text from agent {i}");
                    run_in(
                        project,
                        &[
                            "--json", "propose", "--type", "lesson", "--title", TITLE, "--body",
                            &body,
                        ],
                        &[],
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut ids: Vec<String> = results
        .iter()
        .map(|(code, stdout, stderr)| {
            assert_eq!(*code, 0, "{stdout}{stderr}");
            serde_json::from_str::<Proposed>(stdout).unwrap().id
        })
        .collect();
    ids.sort();
    let mut want: Vec<String> = (1..=8)
        .map(|n| {
            if n == 1 {
                ID.to_owned()
            } else {
                format!("{ID}-{n}")
            }
        })
        .collect();
    want.sort();
    assert_eq!(ids, want);
    let (project, listed) = list(project);
    assert_eq!(listed.count, 8);
    let mut bodies: Vec<String> = listed
        .candidates
        .iter()
        .map(|c| project.read_text(&format!("{CANDIDATES}/{}.md", c.id)))
        .filter_map(|t| t.split("## Content\n\n").nth(1).map(|r| r[..17].to_owned()))
        .collect();
    bodies.sort();
    assert_eq!(
        bodies,
        (0..8)
            .map(|i| format!("text from agent {i}"))
            .collect::<Vec<_>>()
    );
    // Eight different topics admitted at once.
    let mut proposals = Vec::new();
    let mut project = project;
    for i in 0..8 {
        let (next, proposed) = propose(project, &format!("Parallel lesson {i}"), "body");
        project = next;
        proposals.push(proposed);
    }
    let codes: Vec<(i32, String)> = thread::scope(|s| {
        let handles: Vec<_> = proposals
            .iter()
            .map(|p| {
                let project = &project;
                s.spawn(move || {
                    let (code, _, stderr) =
                        run_in(project, &["admit", &p.id, "--expect", &p.sha256], &[]);
                    (code, stderr)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(codes.iter().all(|(c, _)| *c == 0), "{codes:?}");
    let text = project.read_text(LESSONS);
    let mut headings: Vec<&str> = sections(&text).iter().map(|s| s.heading).collect();
    headings.sort_unstable();
    assert_eq!(
        headings,
        (0..8)
            .map(|i| format!("2026-10-18 — Parallel lesson {i}"))
            .collect::<Vec<_>>()
    );
    let (project, listed) = list(project);
    assert_eq!(
        listed.count, 8,
        "the eight same-title candidates are still pending"
    );
    let (_, report) = doctor(project, 0);
    assert!(report.healthy, "{report:?}");
}

/// A temporary file a writer left (`<name>.<uuid>.tmp`).
fn is_temporary(name: &str) -> bool {
    std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e == "tmp")
}

/// Removes a dead writer's lock as a person would, with the digest of what it holds.
fn recover_lock(project: TestProject) -> TestProject {
    let sha = sha256_hex(&project.read(LOCK));
    project
        .args(["lock", "--recover", "--expect", &sha])
        .code(0)
        .run()
        .then()
}

#[test]
fn a_crash_after_the_entry_is_written_is_found_by_doctor_and_finished() {
    let project = TestProject::new().fixture("example");
    let (project, proposed) = propose(project, TITLE, BODY);
    let candidate_path = format!("{CANDIDATES}/{ID}.md");
    let candidate = project.read(&candidate_path);
    let ran = project
        .args(["admit", ID, "--expect", &proposed.sha256, "--by", "alice"])
        .env("BMAD_MEM_CRASH_AT", "admit-after-note")
        .code(70)
        .stdout("")
        .file(&candidate_path, &candidate)
        .run();
    let project = recover_lock(ran.then().env("BMAD_MEM_CRASH_AT", ""));
    // The entry is there once, whole; the candidate is still pending, unchanged.
    let text = project.read_text(LESSONS);
    assert_eq!(
        sections(&text)
            .iter()
            .filter(|s| s.heading == TITLE)
            .count(),
        1
    );
    let (project, report) = doctor(project, 1);
    let finish = format!(
        "candidate {ID} is already in {LESSONS}, but an earlier run stopped before recording it; run `bmad-mem admit --finish {ID}`"
    );
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.kind == "unfinished-decision" && p.message == finish),
        "{report:?}"
    );
    let project = project
        .args(["admit", ID, "--expect", &proposed.sha256])
        .refused(
            "admit",
            &format!(
                "candidate {ID} is already in {LESSONS} (an earlier admit stopped before recording it); run `bmad-mem admit --finish {ID}`"
            ),
        )
        .args(["admit", "--finish", ID, "--by", "alice"])
        .code(0)
        .stdout(&format!(
            "mem admit: {ID} was already admitted; recorded as \"{TITLE}\" in {LESSONS}\n"
        ))
        .file(LESSONS, &text)
        .run()
        .then();
    let (_, report) = doctor(project, 0);
    assert!(report.healthy, "{report:?}");
}

#[test]
fn a_crash_before_the_entry_is_written_leaves_everything_pending() {
    let project = TestProject::new().fixture("example");
    let lessons = project.read(LESSONS);
    let (project, proposed) = propose(project, TITLE, BODY);
    let candidate_path = format!("{CANDIDATES}/{ID}.md");
    let candidate = project.read(&candidate_path);
    let ran = project
        .args(["admit", ID, "--expect", &proposed.sha256])
        .env("BMAD_MEM_CRASH_AT", "note-before-rename")
        .code(70)
        .file(&candidate_path, &candidate)
        .file(LESSONS, &lessons)
        .run();
    let project = recover_lock(ran.then().env("BMAD_MEM_CRASH_AT", ""));
    let leftovers = project.names(".agents/memory");
    assert!(leftovers.iter().any(|n| is_temporary(n)), "{leftovers:?}");
    // Nothing to finish: the person admits it again, and the dead writer's file goes.
    let project = project
        .args(["admit", "--finish", ID])
        .refused(
            "admit",
            &format!("candidate {ID} was neither admitted nor refused; nothing to finish (admit it with --expect, or refuse it)"),
        )
        .args(["admit", ID, "--expect", &proposed.sha256])
        .code(0)
        .run()
        .then();
    assert!(
        !project
            .names(".agents/memory")
            .iter()
            .any(|n| is_temporary(n))
    );
    let (_, report) = doctor(project, 0);
    assert!(report.healthy, "{report:?}");
}

#[test]
fn doctor_reports_a_drifted_view_and_rebuilds_it() {
    let (project, _) = propose(TestProject::new(), TITLE, BODY);
    let index = project.read(INDEX);
    let project = project.write(LESSONS, "### Written by hand\n**Status:** active\n");
    let (project, report) = doctor(project, 1);
    assert_eq!(report.problems.len(), 1, "{report:?}");
    assert_eq!(
        (
            report.problems[0].file.as_str(),
            report.problems[0].kind.as_str()
        ),
        (INDEX, "view-drift")
    );
    let project = project
        .write(CANDIDATES_VIEW, "edited by hand\n")
        .args(["doctor", "--rebuild-views"])
        .code(0)
        .stdout(&format!("mem doctor: rebuilt {CANDIDATES_VIEW}, {INDEX}\n"))
        .run()
        .then();
    assert_ne!(project.read(INDEX), index);
    assert!(
        project
            .read_text(INDEX)
            .contains("| Written by hand | lesson | active | .agents/memory/lessons.md |")
    );
    let (project, report) = doctor(project, 0);
    assert!(report.healthy, "{report:?}");
    let _ = project
        .args(["doctor", "--rebuild-views"])
        .code(0)
        .stdout("mem doctor: the views are up to date\n")
        .unchanged()
        .run();
}

#[test]
fn import_proposes_each_item_once_and_never_writes_under_claude() {
    let memory = format!(
        "# Agent memory\n\n## Decisions\n- **Use Postgres for the ledger**\n  one database for money\n\n## Lessons\n- Flush the bucket in setup\n- Deploy key is {}\n- Flush the bucket in setup\n",
        token()
    );
    let project = TestProject::new()
        .write(".claude/agent-memory/forge/MEMORY.md", &memory)
        .write(
            "CLAUDE.md",
            "# Project\n- build with make\n\n## Project memory\n- Keep tests under a minute\n\n## Style\n- tabs\n",
        );
    let claude = project.read(".claude/agent-memory/forge/MEMORY.md");
    let ran = project.args(["--json", "import"]).code(0).run();
    let report: serde_json::Value = ran.json();
    let titles: Vec<&str> = report["proposed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Use Postgres for the ledger",
            "Flush the bucket in setup",
            "Keep tests under a minute"
        ]
    );
    assert_eq!(report["duplicates"], 1);
    assert_eq!(
        report["refused"],
        serde_json::json!([{
            "file": ".claude/agent-memory/forge/MEMORY.md",
            "line": 9,
            "reason": "the title: line 1 looks like a GitHub personal access token (rule github-pat); secrets never enter the memory"
        }])
    );
    assert!(!ran.stdout.contains(&token()));
    let project = ran.then();
    assert_eq!(project.read(".claude/agent-memory/forge/MEMORY.md"), claude);
    assert_eq!(project.names(".claude/agent-memory/forge"), ["MEMORY.md"]);
    let (project, listed) = list(project);
    assert_eq!(listed.count, 3);
    assert_eq!(listed.candidates[0].kind, "decision");
    assert_eq!(
        listed.candidates[0].source,
        "import:.claude/agent-memory/forge/MEMORY.md"
    );
    // A second run proposes nothing new.
    let ran = project
        .args(["import"])
        .code(0)
        .stdout("mem import: 0 candidate(s) proposed from 2 file(s); 4 duplicate(s) skipped; 1 refused\n  refused .claude/agent-memory/forge/MEMORY.md:9: the title: line 1 looks like a GitHub personal access token (rule github-pat); secrets never enter the memory\n")
        .unchanged()
        .run();
    let project = ran.then();
    let missing = project.path("notes.md");
    let _ = project.args(["import", "--from", "notes.md"]).refused(
        "import",
        &format!(
            "ENOENT: no such file or directory, stat '{}'",
            missing.display()
        ),
    );
}

/// A note file no reader can take (here a folder in its place) refuses an entry command before
/// anything is written, even when the candidate's own type does not touch it: the views read
/// every note file afterwards.
#[test]
fn an_unreadable_note_file_refuses_before_anything_is_written() {
    let (project, proposed) = propose(TestProject::new(), TITLE, BODY);
    let _ = project
        .mkdir(".bmad/memory/decisions.md")
        .args([
            "propose",
            "--type",
            "lesson",
            "--title",
            "Another lesson",
            "--body",
            "x",
        ])
        .refused(
            "propose",
            &unreadable(".bmad/memory/decisions.md", "is a folder"),
        )
        .args(["admit", &proposed.id, "--expect", &proposed.sha256])
        .refused(
            "admit",
            &unreadable(".bmad/memory/decisions.md", "is a folder"),
        );
}

#[test]
fn the_content_comes_from_a_file_and_import_takes_a_given_file() {
    let project = TestProject::new()
        .write("notes/lesson.md", "\r\nFirst line.\r\nSecond line.\r\n\r\n")
        .write(
            "notes/decisions.md",
            "# Decisions\n\n1. Keep one database\n2) Ship behind a flag\n   for a week\n",
        );
    let ran = project
        .args([
            "--json",
            "propose",
            "--type",
            "lesson",
            "--title",
            TITLE,
            "--from",
            "notes/lesson.md",
        ])
        .code(0)
        .run();
    let proposed: Proposed = ran.json();
    let project = ran.then();
    let text = project.read_text(&proposed.file);
    assert!(
        text.contains("## Content\n\nFirst line.\nSecond line.\n\n## Evidence"),
        "{text}"
    );
    let ran = project
        .args(["--json", "import", "--from", "notes/decisions.md"])
        .code(0)
        .run();
    let report: serde_json::Value = ran.json();
    let proposed: Vec<(&str, &str)> = report["proposed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["type"].as_str().unwrap(), p["title"].as_str().unwrap()))
        .collect();
    assert_eq!(
        proposed,
        [
            ("decision", "Keep one database"),
            ("decision", "Ship behind a flag")
        ]
    );
    assert_eq!(report["read"], serde_json::json!(["notes/decisions.md"]));
    let _ = ran
        .then()
        .write("notes/.env", "X=1\n")
        .args(["import", "--from", "notes/.env"])
        .refused(
            "import",
            "--from `notes/.env` names an environment file; secrets never enter the memory",
        )
        .args(["import", "--from", "agents-md"])
        .code(0)
        .stdout("mem import: nothing to import (no .claude/agent-memory/*/MEMORY.md, no memory section in CLAUDE.md or AGENTS.md)\n")
        .unchanged()
        .run();
}

#[test]
fn import_refuses_a_given_file_that_is_not_utf8_as_propose_does() {
    // Decoded loosely, the bad byte became U+FFFD in a candidate's title and content: text
    // the file never held.
    let _ = TestProject::new()
        .fixture("example")
        .write("notes.md", b"- Flush the bucket \xff in setup\n")
        .args(["import", "--from", "notes.md"])
        .refused("import", "--from input is not valid UTF-8");
}

#[test]
fn an_empty_expect_is_a_missing_expect() {
    // It was compared as a digest: "its sha256 is …, not ; review it again".
    let (project, proposed) = propose(TestProject::new(), TITLE, BODY);
    let _ = project
        .args(["admit", &proposed.id, "--expect", " "])
        .refused(
            "admit",
            "--expect <sha256> is required: the digest of the candidate as it was shown",
        );
}

#[test]
fn a_pending_candidate_out_of_shape_is_named_not_dropped() {
    let (project, proposed) = propose(TestProject::new(), TITLE, BODY);
    let broken = project
        .read_text(&proposed.file)
        .replace("## Content", "## Body");
    let project = project.write(&proposed.file, broken);
    let ran = project.args(["admit", "--list"]).code(0).run();
    assert_eq!(ran.stdout, "mem admit: no pending candidate\n");
    assert_eq!(
        ran.stderr,
        format!(
            "warning: {} is not in the candidate format; fix or remove it\n",
            proposed.file
        )
    );
    let (project, report) = doctor(ran.then(), 1);
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.file == proposed.file && p.kind == "candidate-format"),
        "{report:?}"
    );
    let _ = project
        .args(["admit", &proposed.id, "--expect", &proposed.sha256])
        .refused(
            "admit",
            &format!(
                "candidate {ID} is not in the candidate format (front matter, then ## Context, ## Content, ## Evidence); fix or remove {}",
                proposed.file
            ),
        );
}

/// The id of a candidate proposed in `project`, from `propose --json`.
fn proposed_id(project: TestProject, title: &str) -> (TestProject, String) {
    let ran = project
        .args([
            "propose", "--type", "lesson", "--title", title, "--body", BODY, "--json",
        ])
        .code(0)
        .run();
    let id = ran.json::<serde_json::Value>()["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    (ran.then(), id)
}

#[test]
fn candidate_ids_start_with_the_project_named_in_context_md() {
    let context = |project: &str| {
        format!(
            "---\ntitle: Project Context\ncreated: \"2026-10-18\"\nproject: {project}\n---\n\n# Project Context\n"
        )
    };
    let project = TestProject::new().write(".agents/memory/context.md", context("\"Shop Front\""));
    let (project, id) = proposed_id(project, "One");
    assert_eq!(id, "shop-front-lesson-20261018-one");
    // import names its candidates the same way.
    let ran = project
        .write("notes.md", "- Two things\n")
        .args(["import", "--from", "notes.md", "--json"])
        .code(0)
        .run();
    let report: serde_json::Value = ran.json();
    assert_eq!(
        report["proposed"][0]["id"],
        "shop-front-lesson-20261018-two-things"
    );
    // A name that leaves no topic is passed over: outside git, the folder's name is next.
    let (_, id) = proposed_id(
        ran.then()
            .write(".agents/memory/context.md", context("\"***\"")),
        "Three",
    );
    assert_eq!(id, "project-lesson-20261018-three");
}
