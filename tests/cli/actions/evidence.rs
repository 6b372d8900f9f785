//! Evidence recall (docs §5, evidence part): a note backed by a current receipt scores exactly
//! lexical × 1.25 and says why; a note without receipts, and every event, is `unverified`; a note
//! whose receipts all stopped counting is dropped; the files are read with the confined reader;
//! `--context-scope` is required and checked.
//!
//! The project is the `example` fixture plus the accepted demo Nexus run. Its lexical recall for
//! "auth strategy" is pinned in `recall.rs` (checked with Node); the evidence result below was
//! derived from that output with bmad-plus's `rankWithEvidence` run in Node 20 (spread the entry,
//! `lexicalScore`, `score * (1 + 0.25 * 1)`, `evidence`, then a stable sort by score).

use serde::Deserialize;
use serde_json::{Value as Json, json};

use crate::actions::observe::{LINKS, OTHER_RUN, copy_run, observe};
use crate::support::nexus_run::{NexusRun, RUN_ID, TASK};
use crate::support::{JOURNAL, TestProject};

/// The note the receipts bind to: second in lexical order for "auth strategy".
const DECISIONS: &str = ".agents/memory/decisions.md";
const AUTH_STRATEGY: &str = "Auth strategy";
const REQUIRED: &str = "An explicit non-empty project scope is required.";
const NORMALIZED: &str = "Outcome scope must be a normalized relative path.";

/// `recall auth strategy --ranking evidence --context-scope src --json` with one current
/// receipt `{id}` on "Auth strategy": boosted from 0.26967994498529685 past the lesson.
const EVIDENCE_JSON: &str = r#"{
  "query": "auth strategy",
  "scope": "project",
  "ranking": "evidence",
  "count": 4,
  "results": [
    {
      "score": 0.3370999312316211,
      "kind": "note",
      "source": "decisions.md",
      "sourceFile": ".agents/memory/decisions.md",
      "ref": "Auth strategy",
      "text": "Auth strategy\n**Date:** 2026-08-03\n**Status:** active\n**Context:** The mobile app and the web client share one API. Long-lived JWTs could not be revoked when a laptop was lost.\n**Decision:** Use short-lived sessions with server-side revocation.\n**Consequences:** Every request hits the session store (Redis); `auth-middleware` refreshes the session cookie on activity; logout everywhere is one `DELETE /sessions`.",
      "lexicalScore": 0.26967994498529685,
      "evidence": {
        "status": "accepted-current",
        "receiptIds": [
          "{id}"
        ],
        "reward": 1,
        "boost": 0.25,
        "lessonCausality": "unmeasured"
      }
    },
    {
      "score": 0.31622776601683794,
      "kind": "note",
      "source": "lessons.md",
      "sourceFile": ".agents/memory/lessons.md",
      "ref": "Revocation must be checked on every request",
      "text": "Revocation must be checked on every request\n**Date:** 2026-08-18\n**Context:** A cached session lookup let a revoked session live for five more minutes.\n**Lesson:** Never cache the revocation check; short-lived sessions are only safe when revocation is immediate.\n**Related:** decision \"Auth strategy\".",
      "evidence": {
        "status": "unverified",
        "receiptIds": [],
        "boost": 0
      }
    },
    {
      "score": 0.08909147782051421,
      "kind": "event",
      "source": "journal.ndjson",
      "ref": "6b1dc0dc38b7",
      "text": "atlas claude-code claude-sonnet-4-5 Draft the auth strategy: short-lived sessions with server-side revocation success {\"acceptance\":true}",
      "event": {
        "ts": "2026-08-03T08:12:40.000Z",
        "agent": "atlas",
        "cli": "claude-code",
        "model": "claude-sonnet-4-5",
        "task": "Draft the auth strategy: short-lived sessions with server-side revocation",
        "outcome": "success",
        "signals": {
          "acceptance": true
        },
        "artifactHashes": [],
        "id": "6b1dc0dc38b7"
      },
      "evidence": {
        "status": "unverified",
        "receiptIds": [],
        "boost": 0
      }
    },
    {
      "score": 0.07216878364870323,
      "kind": "note",
      "source": "patterns.md",
      "sourceFile": ".agents/memory/patterns.md",
      "ref": "Rate limit on auth routes",
      "text": "Rate limit on auth routes\n**Date:** 2026-08-12\n**Status:** candidate\n**Problem:** Authentication endpoints attract brute force and credential stuffing.\n**Pattern:** Put a token-bucket `rate_limit` in `auth-middleware` in front of login, password reset and MFA verification, keyed on account and IP.\n**Example:** `rate_limit(key = account_id, capacity = 5, refill = 60s)` on `POST /login`.",
      "evidence": {
        "status": "unverified",
        "receiptIds": [],
        "boost": 0
      }
    }
  ]
}
"#;

/// The same recall in human form: the boosted score, the lexical format.
const EVIDENCE_HUMAN: &str = "\
mem recall: 4 match(es) for \"auth strategy\" (scope: project)
  1. [0.337] note decisions.md § Auth strategy
     Auth strategy **Date:** 2026-08-03 **Status:** active **Context:** The mobile app and the web client share one API. Lon…
  2. [0.316] note lessons.md § Revocation must be checked on every request
     Revocation must be checked on every request **Date:** 2026-08-18 **Context:** A cached session lookup let a revoked ses…
  3. [0.089] event journal.ndjson#6b1dc0dc38b7
     atlas claude-code claude-sonnet-4-5 Draft the auth strategy: short-lived sessions with server-side revocation success {…
  4. [0.072] note patterns.md § Rate limit on auth routes
     Rate limit on auth routes **Date:** 2026-08-12 **Status:** candidate **Problem:** Authentication endpoints attract brut…
";

/// `recall --json`, schema pinned.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Recalled {
    query: String,
    scope: String,
    ranking: String,
    count: usize,
    results: Vec<Entry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Entry {
    score: f64,
    kind: String,
    source: String,
    source_file: Option<String>,
    #[serde(rename = "ref")]
    reference: Json,
    text: String,
    event: Option<Json>,
    lexical_score: Option<f64>,
    evidence: Option<Evidence>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Evidence {
    status: String,
    receipt_ids: Vec<String>,
    reward: Option<f64>,
    boost: f64,
    lesson_causality: Option<String>,
}

/// The example project with the accepted demo run.
fn example() -> (TestProject, NexusRun) {
    let project = TestProject::new().fixture("example");
    let run = NexusRun::accepted(&project.path(""));
    (project, run)
}

/// An observation binding "Auth strategy" to `task` of `run_id` over `scope`.
fn auth_strategy(run_id: &str, scope: &[&str]) -> Json {
    json!({
        "runId": run_id,
        "taskId": TASK,
        "memory": { "file": DECISIONS, "heading": AUTH_STRATEGY },
        "scope": scope,
        "interpretation": "Accepted session work backs the decision.",
    })
}

/// `recall auth strategy` with `extra` arguments.
fn recall_args(extra: &[&str]) -> Vec<String> {
    ["recall", "auth", "strategy"]
        .iter()
        .chain(extra)
        .map(|s| (*s).to_owned())
        .collect()
}

/// Runs an evidence recall for "auth strategy" with `--context-scope scope` (JSON), which
/// must succeed and change nothing.
fn evidence(project: TestProject, scope: &str) -> (TestProject, Recalled, String) {
    let ran = project
        .args(recall_args(&[
            "--ranking",
            "evidence",
            "--context-scope",
            scope,
            "--json",
        ]))
        .code(0)
        .stderr("")
        .unchanged()
        .run();
    let recalled: Recalled = ran.json();
    assert_eq!(
        (
            recalled.query.as_str(),
            recalled.scope.as_str(),
            recalled.ranking.as_str()
        ),
        ("auth strategy", "project", "evidence")
    );
    assert_eq!(recalled.count, recalled.results.len());
    let stdout = ran.stdout.clone();
    (ran.then(), recalled, stdout)
}

/// The lexical recall for "auth strategy".
fn lexical_recall(project: TestProject) -> (TestProject, Recalled) {
    let ran = project
        .args(recall_args(&["--json"]))
        .code(0)
        .unchanged()
        .run();
    let recalled: Recalled = ran.json();
    (ran.then(), recalled)
}

fn unverified() -> Evidence {
    Evidence {
        status: "unverified".into(),
        receipt_ids: Vec::new(),
        reward: None,
        boost: 0.0,
        lesson_causality: None,
    }
}

fn current(ids: &[&str]) -> Evidence {
    Evidence {
        status: "accepted-current".into(),
        receipt_ids: ids.iter().map(|id| (*id).to_owned()).collect(),
        reward: Some(1.0),
        boost: 0.25,
        lesson_causality: Some("unmeasured".into()),
    }
}

/// The refs of the results, in order.
fn refs(recalled: &Recalled) -> Vec<String> {
    recalled
        .results
        .iter()
        .map(|e| e.reference.as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_current_receipt_boosts_its_note_by_exactly_a_quarter() {
    let (project, _run) = example();
    let (project, id) = observe(project, &auth_strategy(RUN_ID, &["src/auth"]));
    let (project, lexical) = lexical_recall(project);
    let (project, boosted, stdout) = evidence(project, "src");
    assert_eq!(stdout, EVIDENCE_JSON.replace("{id}", &id));
    // The same numbers, computed here from the lexical run.
    let plain = lexical
        .results
        .iter()
        .find(|e| e.reference == json!(AUTH_STRATEGY))
        .expect("the note matches lexically");
    let entry = &boosted.results[0];
    assert_eq!(entry.reference, json!(AUTH_STRATEGY));
    assert_eq!(entry.score, plain.score * 1.25);
    assert_eq!(entry.lexical_score, Some(plain.score));
    assert_eq!(entry.evidence, Some(current(&[&id])));
    // Every other candidate keeps its lexical score and is unverified, events included.
    for other in &boosted.results[1..] {
        let same = lexical
            .results
            .iter()
            .find(|e| e.reference == other.reference)
            .expect("a lexical result");
        assert_eq!(other.score, same.score);
        assert_eq!(other.lexical_score, None);
        assert_eq!(other.evidence, Some(unverified()));
        assert_eq!(
            (
                &other.kind,
                &other.source,
                &other.source_file,
                &other.text,
                &other.event
            ),
            (
                &same.kind,
                &same.source,
                &same.source_file,
                &same.text,
                &same.event
            )
        );
    }
    // The boosted note overtook the lesson that ranks first lexically.
    assert_eq!(
        lexical.results[0].reference,
        json!("Revocation must be checked on every request")
    );
    let _ = project
        .args(recall_args(&[
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
        ]))
        .code(0)
        .stdout(EVIDENCE_HUMAN)
        .stderr("")
        .unchanged()
        .run();
}

#[test]
fn the_limit_applies_after_the_boost() {
    let (project, _run) = example();
    let (project, id) = observe(project, &auth_strategy(RUN_ID, &["src/auth"]));
    let ran = project
        .args(recall_args(&[
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
            "--limit",
            "1",
            "--json",
        ]))
        .code(0)
        .unchanged()
        .run();
    let recalled: Recalled = ran.json();
    assert_eq!(refs(&recalled), [AUTH_STRATEGY]);
    assert_eq!(recalled.results[0].evidence, Some(current(&[&id])));
}

#[test]
fn without_receipts_every_candidate_is_unverified_in_lexical_order() {
    let (project, _run) = example();
    let (project, lexical) = lexical_recall(project);
    let (_, recalled, stdout) = evidence(project, "src");
    assert_eq!(refs(&recalled), refs(&lexical));
    for (entry, plain) in recalled.results.iter().zip(&lexical.results) {
        assert_eq!(entry.score, plain.score);
        assert_eq!(entry.lexical_score, None);
        assert_eq!(entry.evidence, Some(unverified()));
    }
    // The label is the last key, after `text` for a note and after `event` for an event.
    assert!(stdout.contains(
        "\"acceptance\": true\n        },\n        \"artifactHashes\": [],\n        \"id\": \"6b1dc0dc38b7\"\n      },\n      \"evidence\": {\n        \"status\": \"unverified\",\n        \"receiptIds\": [],\n        \"boost\": 0\n      }\n    },"
    ));
    assert!(stdout.contains(
        "decision \\\"Auth strategy\\\".\",\n      \"evidence\": {\n        \"status\": \"unverified\""
    ));
}

#[test]
fn a_note_whose_only_receipt_stopped_counting_is_dropped() {
    let all = [
        AUTH_STRATEGY,
        "Revocation must be checked on every request",
        "6b1dc0dc38b7",
        "Rate limit on auth routes",
    ];
    let without = [all[1], all[2], all[3]];

    // Its text was edited (it still matches the query).
    let (project, _run) = example();
    let (project, _) = observe(project, &auth_strategy(RUN_ID, &["src/auth"]));
    let text = project.read_text(DECISIONS);
    let edited = text.replace(
        "**Decision:** Use short-lived sessions",
        "**Decision:** Use short-lived auth sessions",
    );
    assert_ne!(text, edited);
    let (project, recalled, _) = evidence(project.write(DECISIONS, &edited), "src");
    assert_eq!(refs(&recalled), without);
    // Restored, it counts again.
    let (_, recalled, _) = evidence(project.write(DECISIONS, &text), "src");
    assert_eq!(refs(&recalled), all);

    // Its Nexus evidence went stale.
    let (project, run) = example();
    let (project, _) = observe(project, &auth_strategy(RUN_ID, &["src/auth"]));
    run.edit_artifact();
    let (_, recalled, _) = evidence(project, "src");
    assert_eq!(refs(&recalled), without);

    // Its scope does not overlap the question's.
    let (project, _run) = example();
    let (project, _) = observe(project, &auth_strategy(RUN_ID, &["src/auth"]));
    let (project, recalled, _) = evidence(project, "db");
    assert_eq!(refs(&recalled), without);
    let (project, recalled, _) = evidence(project, "src/authz,tools");
    assert_eq!(refs(&recalled), without);
    // Overlap either way counts: a path below the receipt's, or several paths.
    let (project, recalled, _) = evidence(project, "src/auth/login.js");
    assert_eq!(refs(&recalled), all);
    let (_, recalled, _) = evidence(project, " db , src ");
    assert_eq!(refs(&recalled), all);
}

#[test]
fn superseded_and_contradicted_receipts_do_not_count() {
    let (project, run) = example();
    copy_run(&run, OTHER_RUN);
    copy_run(&run, "third-run");
    let (project, first) = observe(project, &auth_strategy(RUN_ID, &["src/auth"]));
    let (project, second) = observe(project, &auth_strategy(OTHER_RUN, &["src"]));
    // Two eligible receipts: both listed, in store order, and the boost is still 0.25.
    let (project, recalled, _) = evidence(project, "src");
    assert_eq!(
        recalled.results[0].evidence,
        Some(current(&[&first, &second]))
    );
    assert_eq!(
        recalled.results[0].score,
        recalled.results[0].lexical_score.unwrap() * 1.25
    );
    // A later receipt supersedes the first: the others still back the note.
    let mut third = auth_strategy("third-run", &["src/auth"]);
    third["supersedes"] = json!([first]);
    let (project, third) = observe(project, &third);
    let (_, recalled, _) = evidence(project, "src");
    assert_eq!(
        recalled.results[0].evidence,
        Some(current(&[&second, &third]))
    );

    // A contradiction makes every receipt on the note contradictory: the note is dropped.
    let (project, run) = example();
    copy_run(&run, OTHER_RUN);
    let (project, first) = observe(project, &auth_strategy(RUN_ID, &["src/auth"]));
    let mut second = auth_strategy(OTHER_RUN, &["src"]);
    second["contradicts"] = json!([first]);
    let (project, _) = observe(project, &second);
    let (_, recalled, _) = evidence(project, "src");
    assert!(!refs(&recalled).contains(&AUTH_STRATEGY.to_owned()));
    assert_eq!(recalled.count, 3);
}

#[test]
fn the_context_scope_is_required_and_normalized() {
    let (project, _run) = example();
    let thirty_one: Vec<String> = (0..31).map(|n| format!("src/p{n}")).collect();
    let thirty_one = thirty_one.join(",");
    let cases: &[(&[&str], &str)] = &[
        (&["--ranking", "evidence"], REQUIRED),
        (&["--ranking", "evidence", "--context-scope", ""], REQUIRED),
        (
            &["--ranking", "evidence", "--context-scope", &thirty_one],
            REQUIRED,
        ),
        (
            &["--ranking", "evidence", "--context-scope", "src,,db"],
            NORMALIZED,
        ),
        (
            &["--ranking", "evidence", "--context-scope", "src,"],
            NORMALIZED,
        ),
        (
            &["--ranking", "evidence", "--context-scope", ","],
            NORMALIZED,
        ),
        (
            &["--ranking", "evidence", "--context-scope", " "],
            NORMALIZED,
        ),
        (
            &["--ranking", "evidence", "--context-scope", "../src"],
            NORMALIZED,
        ),
        (
            &["--ranking", "evidence", "--context-scope", "/src"],
            NORMALIZED,
        ),
        (
            &["--ranking", "evidence", "--context-scope", "src\\auth"],
            NORMALIZED,
        ),
        (
            &["--ranking", "evidence", "--context-scope", "c:src"],
            NORMALIZED,
        ),
        (
            &["--ranking", "evidence", "--context-scope", "src/"],
            NORMALIZED,
        ),
        (
            &["--ranking", "evidence", "--context-scope", "./src"],
            NORMALIZED,
        ),
        (
            &[
                "--scope",
                "portfolio",
                "--ranking",
                "evidence",
                "--context-scope",
                "src",
            ],
            "Evidence ranking supports project-local lexical recall only.",
        ),
    ];
    let mut project = project;
    for (extra, message) in cases {
        project = project.args(recall_args(extra)).refused("recall", message);
    }
    // The context scope is checked before the receipt store is read.
    let project = project
        .write(".bmad/memory/outcomes.ndjson", "{}")
        .args(recall_args(&["--ranking", "evidence"]))
        .refused("recall", REQUIRED)
        .args(recall_args(&[
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
        ]))
        .refused("recall", "Outcome store has an incomplete final record.");
    // The query is checked first.
    let _ = project
        .args(["recall", " ", "--ranking", "evidence"])
        .refused("recall", "recall: query must be a non-empty string");
}

#[test]
fn files_are_read_with_the_confined_reader() {
    // A note file that is a live link is an error (lexical recall follows it).
    let (project, _run) = example();
    let patterns = ".agents/memory/patterns.md";
    let text = project.read(patterns);
    let project = project
        .remove(patterns)
        .write("notes/patterns.md", &text)
        .symlink("../../notes/patterns.md", patterns)
        .args(recall_args(&[
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
        ]))
        .refused("recall", LINKS)
        // Files are read before the context scope is checked.
        .args(recall_args(&["--ranking", "evidence"]))
        .refused("recall", LINKS);
    let (project, lexical) = lexical_recall(project);
    assert_eq!(lexical.count, 4);

    // A dangling one is skipped, as a missing file is.
    let project = project.remove(patterns).symlink("missing.md", patterns);
    let (_, recalled, _) = evidence(project, "src");
    assert_eq!(
        refs(&recalled),
        [
            "Revocation must be checked on every request",
            AUTH_STRATEGY,
            "6b1dc0dc38b7"
        ]
    );

    // The journal path is checked even when the journal is absent.
    let (project, _run) = example();
    let _ = project
        .remove(JOURNAL)
        .remove(".bmad")
        .mkdir("../elsewhere/memory")
        .symlink("../elsewhere", ".bmad")
        .args(recall_args(&[
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
        ]))
        .refused("recall", LINKS);

    // A journal that is a link, even a dangling one, is refused.
    let (project, _run) = example();
    let _ = project
        .remove(JOURNAL)
        .symlink("missing.ndjson", JOURNAL)
        .args(recall_args(&[
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
        ]))
        .refused("recall", LINKS);

    // A note must be valid UTF-8 of at most 2 MiB here (lexical recall replaces and reads all).
    let (project, _run) = example();
    let project = project
        .append(DECISIONS, b"\xff\n")
        .args(recall_args(&[
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
        ]))
        .refused("recall", "Memory source must contain valid UTF-8.");
    let (project, _) = lexical_recall(project);
    let _ = project
        .append(DECISIONS, vec![b'\n'; 2 * 1024 * 1024])
        .args(recall_args(&[
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
        ]))
        .refused(
            "recall",
            "Memory source must be a regular file of at most 2 MiB.",
        );

    // The journal is capped at 2 MiB here (lexical recall has no cap).
    let (project, _run) = example();
    let _ = project
        .append(JOURNAL, vec![b'\n'; 2 * 1024 * 1024])
        .args(recall_args(&[
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
        ]))
        .refused(
            "recall",
            "Memory source must be a regular file of at most 2 MiB.",
        );
}

#[test]
fn a_project_without_memory_has_no_matches() {
    let _ = TestProject::new()
        .args([
            "recall",
            "auth",
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
        ])
        .code(0)
        .stdout("mem recall: no matches for \"auth\" (scope: project)\n")
        .stderr("")
        .unchanged()
        .run();
}
