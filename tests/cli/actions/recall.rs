//! `recall` (docs §5): lexical ranking to the last bit, candidate order on ties, the limit, the
//! portfolio, how files are read, and every refusal. Recall never writes: every run here also
//! checks that no byte under the test folder changed.
//!
//! Expected outputs were produced by an independent Node 20 implementation of docs §5 (tokens,
//! `Math.log`, `Math.sqrt`, `Math.pow(0.5, ageDays / 30)`, a stable sort, `JSON.stringify`,
//! `toFixed(3)`) run on the same files, and matched byte for byte.

use std::fmt::Write as _;
use std::io::Read as _;
use std::process::Stdio;

use crate::support::schema::{Hit, Recall, labels};
use crate::support::{JOURNAL, TestProject, assert_same};

/// `recall auth strategy --json` on the example project at `NOW`.
const AUTH_STRATEGY_JSON: &str = r#"{
  "query": "auth strategy",
  "scope": "project",
  "ranking": "lexical",
  "count": 4,
  "results": [
    {
      "score": 0.31622776601683794,
      "kind": "note",
      "source": "lessons.md",
      "sourceFile": ".agents/memory/lessons.md",
      "ref": "Revocation must be checked on every request",
      "text": "Revocation must be checked on every request\n**Date:** 2026-08-18\n**Context:** A cached session lookup let a revoked session live for five more minutes.\n**Lesson:** Never cache the revocation check; short-lived sessions are only safe when revocation is immediate.\n**Related:** decision \"Auth strategy\"."
    },
    {
      "score": 0.26967994498529685,
      "kind": "note",
      "source": "decisions.md",
      "sourceFile": ".agents/memory/decisions.md",
      "ref": "Auth strategy",
      "text": "Auth strategy\n**Date:** 2026-08-03\n**Status:** active\n**Context:** The mobile app and the web client share one API. Long-lived JWTs could not be revoked when a laptop was lost.\n**Decision:** Use short-lived sessions with server-side revocation.\n**Consequences:** Every request hits the session store (Redis); `auth-middleware` refreshes the session cookie on activity; logout everywhere is one `DELETE /sessions`."
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
      }
    },
    {
      "score": 0.07216878364870323,
      "kind": "note",
      "source": "patterns.md",
      "sourceFile": ".agents/memory/patterns.md",
      "ref": "Rate limit on auth routes",
      "text": "Rate limit on auth routes\n**Date:** 2026-08-12\n**Status:** candidate\n**Problem:** Authentication endpoints attract brute force and credential stuffing.\n**Pattern:** Put a token-bucket `rate_limit` in `auth-middleware` in front of login, password reset and MFA verification, keyed on account and IP.\n**Example:** `rate_limit(key = account_id, capacity = 5, refill = 60s)` on `POST /login`."
    }
  ]
}
"#;

/// The same recall in human form.
const AUTH_STRATEGY_HUMAN: &str = "\
mem recall: 4 match(es) for \"auth strategy\" (scope: project)
  1. [0.316] note lessons.md § Revocation must be checked on every request
     Revocation must be checked on every request **Date:** 2026-08-18 **Context:** A cached session lookup let a revoked ses…
  2. [0.270] note decisions.md § Auth strategy
     Auth strategy **Date:** 2026-08-03 **Status:** active **Context:** The mobile app and the web client share one API. Lon…
  3. [0.089] event journal.ndjson#6b1dc0dc38b7
     atlas claude-code claude-sonnet-4-5 Draft the auth strategy: short-lived sessions with server-side revocation success {…
  4. [0.072] note patterns.md § Rate limit on auth routes
     Rate limit on auth routes **Date:** 2026-08-12 **Status:** candidate **Problem:** Authentication endpoints attract brut…
";

const QUERY_REQUIRED: &str = "recall: query must be a non-empty string";

/// The scores of a JSON recall output as printed, parsed with correct rounding.
fn printed_scores(stdout: &str) -> Vec<f64> {
    stdout
        .lines()
        .filter_map(|line| line.trim().strip_prefix("\"score\": "))
        .map(|n| n.trim_end_matches(',').parse().expect("a number"))
        .collect()
}

#[test]
fn example_json_output_is_pinned_byte_for_byte() {
    let ran = TestProject::new()
        .fixture("example")
        .args(["recall", "auth", "strategy", "--json"])
        .code(0)
        .stdout(AUTH_STRATEGY_JSON)
        .stderr("")
        .unchanged()
        .run();
    let recall: Recall = ran.json();
    assert_eq!(recall.query, "auth strategy");
    assert_eq!(recall.scope, "project");
    assert_eq!(recall.ranking, "lexical");
    assert_eq!(recall.count, 4);
    assert_eq!(recall.results.len(), 4);
    assert!(matches!(
        &recall.results[2],
        Hit::Event { source, event, .. }
            if source == "journal.ndjson" && event["agent"] == "atlas"
    ));
    assert!(matches!(
        &recall.results[1],
        Hit::Note { source, text, .. }
            if source == "decisions.md" && text.contains("Use short-lived sessions with server-side revocation.")
    ));
}

#[test]
fn example_human_output_is_pinned() {
    let _ = TestProject::new()
        .fixture("example")
        .args(["recall", "auth", "strategy"])
        .code(0)
        .stdout(AUTH_STRATEGY_HUMAN)
        .stderr("")
        .unchanged()
        .run();
}

#[test]
fn options_may_sit_between_query_words() {
    let _ = TestProject::new()
        .fixture("example")
        .args(["--json", "recall", "auth", "--limit=8", "strategy"])
        .code(0)
        .stdout(AUTH_STRATEGY_JSON)
        .run()
        .then()
        .args([
            "recall", "auth", "--json", "strategy", "--limit", "2", "--limit", "8",
        ])
        .code(0)
        .stdout(AUTH_STRATEGY_JSON)
        .run();
}

#[test]
fn ties_keep_candidate_order() {
    // Same score for the event and five sections: journal first, then `.bmad/memory`, then
    // `.agents/memory`, decisions before lessons before patterns, file order within a file.
    let sections = "### Pangolin two\npangolin care\n### Pangolin one\npangolin care\n";
    let ran = TestProject::new()
        .write(
            JOURNAL,
            "{\"agent\":\"pangolin\",\"task\":\"pangolin care two\"}\n",
        )
        .write(".bmad/memory/lessons.md", sections)
        .write(".agents/memory/lessons.md", sections)
        .write(
            ".agents/memory/decisions.md",
            "# Notes\n\n### Pangolin three\npangolin care\n",
        )
        .write(".agents/memory/patterns.md", "### Pangolin\npangolin\n")
        .args(["recall", "pangolin", "--json"])
        .code(0)
        .unchanged()
        .run();
    let recall: Recall = ran.json();
    assert_eq!(
        labels(&recall),
        [
            ".agents/memory/patterns.md § Pangolin",
            "journal#\"undefined\"",
            ".bmad/memory/lessons.md § Pangolin two",
            ".bmad/memory/lessons.md § Pangolin one",
            ".agents/memory/decisions.md § Pangolin three",
            ".agents/memory/lessons.md § Pangolin two",
            ".agents/memory/lessons.md § Pangolin one",
        ]
    );
    // (1 + ln 2) / sqrt(4) and (1 + ln 2) / sqrt(2), as Node prints them.
    assert_eq!(
        printed_scores(&ran.stdout),
        [
            1.1972358529208211,
            0.8465735902799727,
            0.8465735902799727,
            0.8465735902799727,
            0.8465735902799727,
            0.8465735902799727,
            0.8465735902799727,
        ]
    );
    let ran = ran
        .then()
        .args(["recall", "pangolin", "--limit", "3", "--json"])
        .code(0)
        .run();
    assert_eq!(
        labels(&ran.json()),
        [
            ".agents/memory/patterns.md § Pangolin",
            "journal#\"undefined\"",
            ".bmad/memory/lessons.md § Pangolin two",
        ]
    );
    let _ = ran
        .then()
        .args(["recall", "pangolin", "--limit", "2"])
        .code(0)
        .stdout(
            "mem recall: 2 match(es) for \"pangolin\" (scope: project)\n  \
             1. [1.197] note patterns.md § Pangolin\n     Pangolin pangolin\n  \
             2. [0.847] event journal.ndjson#undefined\n     pangolin pangolin care two {}\n",
        )
        .run();
}

#[test]
fn limit_cuts_the_sorted_list_and_defaults_to_eight() {
    let project = TestProject::new().fixture("example");
    let ran = project
        .args([
            "recall", "login", "rate", "limit", "--json", "--limit", "1000",
        ])
        .code(0)
        .run();
    let all: Recall = ran.json();
    assert_eq!(all.count, 17);
    let scores: Vec<f64> = all.results.iter().map(Hit::score).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    let ran = ran
        .then()
        .args(["recall", "login", "rate", "limit", "--json"])
        .code(0)
        .run();
    let default: Recall = ran.json();
    assert_eq!(default.count, 8);
    assert_eq!(labels(&default), labels(&all)[..8]);
    let ran = ran
        .then()
        .args([
            "recall", "login", "rate", "limit", "--json", "--limit", "+3",
        ])
        .code(0)
        .run();
    assert_eq!(labels(&ran.json()), labels(&all)[..3]);
}

#[test]
fn invalid_limits_are_refused() {
    for limit in ["0", "-3", "x", "1.5", "", "000", "1e2"] {
        let _ = TestProject::new()
            .fixture("example")
            .args(["recall", "auth", "--limit", limit])
            .refused("recall", &format!("invalid value for --limit: {limit}"));
    }
}

#[test]
fn an_empty_query_is_refused() {
    let cases: &[&[&str]] = &[
        &["recall"],
        &["recall", ""],
        &["recall", "   "],
        &["recall", " ", "\t", "\n"],
        // JavaScript's whitespace includes U+3000 and U+FEFF.
        &["recall", "\u{3000}\u{feff}"],
        &["recall", "--limit", "3"],
        // The query is checked before the ranking, the scope pairing and the limit.
        &["recall", "", "--ranking", "bogus", "--limit", "0"],
    ];
    for args in cases {
        let _ = TestProject::new()
            .fixture("example")
            .args(*args)
            .refused("recall", QUERY_REQUIRED);
    }
}

#[test]
fn a_query_of_non_javascript_whitespace_is_a_query() {
    // U+0085 is whitespace for Rust but not for JavaScript: a query with no token, no match.
    // It is also a C1 control, so the human line shows it escaped.
    let _ = TestProject::new()
        .fixture("example")
        .args(["recall", "\u{85}"])
        .code(0)
        .stdout("mem recall: no matches for \"\\x85\" (scope: project)\n")
        .unchanged()
        .run();
}

#[test]
fn ranking_and_scope_values_are_checked() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["recall", "auth", "--ranking", "bogus"],
            "recall: ranking must be lexical or evidence",
        ),
        (
            &["recall", "auth", "--ranking", ""],
            "recall: ranking must be lexical or evidence",
        ),
        (
            &["recall", "auth", "--ranking", "Lexical"],
            "recall: ranking must be lexical or evidence",
        ),
        (
            &["recall", "auth", "--ranking", "bogus", "--limit", "0"],
            "recall: ranking must be lexical or evidence",
        ),
        (
            &[
                "recall",
                "auth",
                "--scope",
                "portfolio",
                "--ranking",
                "evidence",
            ],
            "Evidence ranking supports project-local lexical recall only.",
        ),
        (
            &[
                "recall",
                "auth",
                "--scope",
                "portfolio",
                "--portfolio",
                "brain",
                "--ranking",
                "evidence",
                "--limit",
                "0",
            ],
            "Evidence ranking supports project-local lexical recall only.",
        ),
        (
            &["recall", "auth", "--scope", "bogus"],
            "invalid value for --scope: bogus",
        ),
        (
            &["recall", "auth", "--scope", ""],
            "invalid value for --scope: ",
        ),
        (
            &["recall", "auth", "--scope", "Project"],
            "invalid value for --scope: Project",
        ),
    ];
    for (args, message) in cases {
        let _ = TestProject::new()
            .fixture("example")
            .args(*args)
            .refused("recall", message);
    }
}

#[test]
fn parser_errors_follow_the_failure_form() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["recall", "auth", "--agent", "forge"],
            "unexpected argument '--agent' found",
        ),
        (
            &["recall", "auth", "--frob"],
            "unexpected argument '--frob' found",
        ),
        (
            &["recall", "auth", "--limit"],
            "a value is required for '--limit <n>' but none was supplied",
        ),
    ];
    for (args, message) in cases {
        let _ = TestProject::new()
            .fixture("example")
            .args(*args)
            .refused("recall", message);
    }
}

#[test]
fn no_match_is_a_success() {
    let project = TestProject::new()
        .fixture("example")
        .args(["recall", "zzzqqq"])
        .code(0)
        .stdout("mem recall: no matches for \"zzzqqq\" (scope: project)\n")
        .stderr("")
        .unchanged()
        .run()
        .then()
        .args(["recall", "zzzqqq", "--json"])
        .code(0)
        .stdout(
            "{\n  \"query\": \"zzzqqq\",\n  \"scope\": \"project\",\n  \"ranking\": \"lexical\",\n  \
             \"count\": 0,\n  \"results\": []\n}\n",
        )
        .stderr("")
        .unchanged()
        .run()
        .then();
    let recall: Recall = project
        .args(["recall", "zzzqqq", "--json", "--scope", "portfolio"])
        .code(0)
        .run()
        .json();
    assert_eq!((recall.scope.as_str(), recall.count), ("portfolio", 0));
    // A project with no memory at all: nothing to read, nothing created.
    let _ = TestProject::new()
        .args(["recall", "auth", "strategy"])
        .code(0)
        .stdout("mem recall: no matches for \"auth strategy\" (scope: project)\n")
        .unchanged()
        .run();
}

#[test]
fn the_query_is_shown_untrimmed() {
    let _ = TestProject::new()
        .fixture("example")
        .args(["recall", " zzzqqq ", "  "])
        .code(0)
        .stdout("mem recall: no matches for \" zzzqqq    \" (scope: project)\n")
        .run();
}

#[test]
fn notes_come_from_both_folders_and_the_portfolio() {
    // Run from the folder above the project: `--portfolio` is relative to the current folder,
    // and a portfolio outside the project gives `sourceFile`s starting with `../`.
    let ran = TestProject::new()
        .fixture("example")
        .fixture_beside("portfolio", "brain")
        .current_dir("")
        .args([
            "-d",
            "project",
            "recall",
            "login",
            "rate",
            "limit",
            "--scope",
            "portfolio",
            "--portfolio",
            "brain",
            "--json",
        ])
        .code(0)
        .unchanged()
        .run();
    let recall: Recall = ran.json();
    assert_eq!(recall.scope, "portfolio");
    assert_eq!(recall.count, 8);
    assert_eq!(
        labels(&recall),
        [
            "../brain/memory/decisions.md § Rate limit defaults",
            ".agents/memory/lessons.md § Rate limits need a per-account key, not only per IP",
            ".agents/memory/decisions.md § Login rate limit",
            ".bmad/memory/lessons.md § 2026-10-03 — Login rate limit tests must reset the bucket",
            ".agents/memory/patterns.md § Rate limit on auth routes",
            ".agents/memory/lessons.md § Canary metrics must include login",
            "journal#\"aa3321eb9969\"",
            ".agents/memory/patterns.md § Canary with route-level signals",
        ]
    );
    assert_eq!(
        printed_scores(&ran.stdout),
        [
            0.768040554445093,
            0.7140740235673788,
            0.654788749494496,
            0.5631996650632815,
            0.533059879713298,
            0.43156034359090745,
            0.32128912476513505,
            0.30440522567027767,
        ]
    );
    let _ = ran
        .then()
        .args([
            "-d",
            "project",
            "recall",
            "rate",
            "limit",
            "defaults",
            "--scope",
            "portfolio",
            "--portfolio",
            "brain",
            "--limit",
            "1",
        ])
        .code(0)
        .stdout(
            "mem recall: 1 match(es) for \"rate limit defaults\" (scope: portfolio)\n  \
             1. [0.671] note decisions.md § Rate limit defaults\n     \
             Rate limit defaults **Date:** 2026-08-30 **Status:** active **Context:** Projects chose very different login limits, an…\n",
        )
        .run();
}

#[test]
fn the_portfolio_is_searched_only_with_the_portfolio_scope() {
    let project = TestProject::new()
        .fixture("example")
        .fixture_beside("portfolio", "brain");
    // A portfolio without the portfolio scope would be ignored, so it is refused.
    let project = project
        .args(["recall", "oidc", "--portfolio", "../brain"])
        .refused("recall", "--portfolio only applies with --scope portfolio");
    let ran = project.args(["recall", "oidc", "--json"]).code(0).run();
    let recall: Recall = ran.json();
    assert_eq!((recall.scope.as_str(), recall.count), ("project", 0));
    let recall: Recall = ran
        .then()
        .args([
            "recall",
            "oidc",
            "--scope",
            "portfolio",
            "--portfolio",
            "../brain",
            "--json",
        ])
        .code(0)
        .run()
        .json();
    assert_eq!(
        labels(&recall),
        ["../brain/memory/decisions.md § Single sign-on for internal tools"]
    );
}

#[test]
fn a_file_reached_twice_is_read_once() {
    // `--portfolio .bmad` makes `P/memory` the project's own `.bmad/memory`.
    let project = TestProject::new().fixture("example");
    let ran = project
        .args([
            "recall", "login", "rate", "limit", "--limit", "100", "--json",
        ])
        .code(0)
        .run();
    let project_scope = ran.stdout.clone();
    for portfolio in [".bmad", "./.bmad/", "../project/.bmad", ".agents/../.bmad"] {
        let ran = TestProject::new()
            .fixture("example")
            .args([
                "recall",
                "login",
                "rate",
                "limit",
                "--limit",
                "100",
                "--json",
                "--scope",
                "portfolio",
                "--portfolio",
                portfolio,
            ])
            .code(0)
            .unchanged()
            .run();
        assert_eq!(
            ran.stdout,
            project_scope.replacen("\"scope\": \"project\"", "\"scope\": \"portfolio\"", 1),
            "--portfolio {portfolio}"
        );
    }
}

#[test]
fn the_same_folder_through_a_link_is_another_path() {
    // Paths are compared lexically, links not resolved: a portfolio that is a link to the
    // project's `.bmad` folder is read again, under its own name.
    let recall: Recall = TestProject::new()
        .fixture("example")
        .symlink("project/.bmad", "../brainlink")
        .args([
            "recall",
            "login",
            "rate",
            "limit",
            "--limit",
            "100",
            "--json",
            "--scope",
            "portfolio",
            "--portfolio",
            "../brainlink",
        ])
        .code(0)
        .unchanged()
        .run()
        .json();
    assert_eq!(recall.count, 18);
    let twice: Vec<(String, f64)> = recall
        .results
        .iter()
        .filter(|hit| {
            hit.label()
                .contains("Login rate limit tests must reset the bucket")
        })
        .map(|hit| (hit.label(), hit.score()))
        .collect();
    let heading = "2026-10-03 — Login rate limit tests must reset the bucket";
    assert_eq!(
        twice,
        [
            (
                format!(".bmad/memory/lessons.md § {heading}"),
                0.5631996650632815
            ),
            (
                format!("../brainlink/memory/lessons.md § {heading}"),
                0.5631996650632815
            ),
        ]
    );
}

#[test]
fn events_lose_half_their_weight_every_thirty_days() {
    let journal = concat!(
        "{\"ts\":\"2026-10-18T09:30:00.000Z\",\"agent\":\"forge\",\"task\":\"quokka migration\",\"id\":\"now\"}\n",
        "{\"ts\":\"2026-09-18T09:30:00.000Z\",\"agent\":\"forge\",\"task\":\"quokka migration\",\"id\":\"month\"}\n",
        "{\"ts\":\"2026-11-17T09:30:00.000Z\",\"agent\":\"forge\",\"task\":\"quokka migration\",\"id\":\"future\"}\n",
        "{\"ts\":\"2026-10-18 09:30:00\",\"agent\":\"forge\",\"task\":\"quokka migration\",\"id\":\"legacy\"}\n",
        "{\"agent\":\"forge\",\"task\":\"quokka migration\",\"id\":\"no-ts\"}\n",
        "{\"ts\":1787045400000,\"agent\":\"forge\",\"task\":\"quokka migration\",\"id\":\"two-months\"}\n",
        "{\"ts\":\"2026-10-17T09:30:00.000Z\",\"agent\":\"forge\",\"task\":\"quokka migration\",\"id\":\"yesterday\"}\n",
    );
    let ran = TestProject::new()
        .write(JOURNAL, journal)
        .args(["recall", "quokka", "--json"])
        .code(0)
        .unchanged()
        .run();
    let recall: Recall = ran.json();
    let refs: Vec<String> = recall.results.iter().map(Hit::label).collect();
    assert_eq!(
        refs,
        [
            "journal#\"now\"",
            "journal#\"future\"",
            "journal#\"legacy\"",
            "journal#\"no-ts\"",
            "journal#\"yesterday\"",
            "journal#\"month\"",
            "journal#\"two-months\"",
        ]
    );
    let scores = printed_scores(&ran.stdout);
    // 1 / sqrt(3); a future or unknown time is not decayed; 30 days halve, 60 days quarter.
    let fresh = 0.5773502691896258;
    assert_eq!(scores[..4], [fresh; 4]);
    assert_eq!(
        scores[4], 0.5641635708168382,
        "pow(0.5, 1/30) as V8 computes it"
    );
    assert_eq!(scores[5], fresh / 2.0);
    assert_eq!(scores[6], 0.14104089270420955);
    let _ = ran
        .then()
        .args(["recall", "quokka", "--limit", "7"])
        .code(0)
        .stdout(
            "mem recall: 7 match(es) for \"quokka\" (scope: project)\n  \
             1. [0.577] event journal.ndjson#now\n     forge quokka migration {}\n  \
             2. [0.577] event journal.ndjson#future\n     forge quokka migration {}\n  \
             3. [0.577] event journal.ndjson#legacy\n     forge quokka migration {}\n  \
             4. [0.577] event journal.ndjson#no-ts\n     forge quokka migration {}\n  \
             5. [0.564] event journal.ndjson#yesterday\n     forge quokka migration {}\n  \
             6. [0.289] event journal.ndjson#month\n     forge quokka migration {}\n  \
             7. [0.141] event journal.ndjson#two-months\n     forge quokka migration {}\n",
        )
        .run();
}

#[test]
fn an_event_without_an_id_is_referred_to_by_its_time() {
    let journal = concat!(
        "{\"ts\":\"2026-10-18T09:30:00.000Z\",\"agent\":\"forge\",\"task\":\"wombat\",\"id\":0}\n",
        "{\"ts\":\"2026-10-18T09:30:00.000Z\",\"agent\":\"forge\",\"task\":\"wombat\"}\n",
        "{\"agent\":\"forge\",\"task\":\"wombat\"}\n",
        "{\"ts\":1792315800000,\"agent\":\"forge\",\"task\":\"wombat\",\"id\":\"\"}\n",
        "{\"ts\":\"2026-10-18T09:30:00.000Z\",\"agent\":\"forge\",\"task\":\"wombat\",\"id\":42}\n",
        "{\"ts\":\"2026-10-18T09:30:00.000Z\",\"agent\":\"forge\",\"task\":\"wombat\",\"id\":[\"a\",\"b\"]}\n",
        "{\"ts\":null,\"agent\":\"forge\",\"task\":\"wombat\",\"id\":false}\n",
    );
    let ran = TestProject::new()
        .write(JOURNAL, journal)
        .args(["recall", "wombat", "--json"])
        .code(0)
        .run();
    let recall: Recall = ran.json();
    let refs: Vec<serde_json::Value> = recall
        .results
        .into_iter()
        .map(|hit| match hit {
            Hit::Event {
                reference, text, ..
            } => {
                assert_eq!(text, "forge wombat {}");
                reference
            }
            Hit::Note { .. } => panic!("no notes here"),
        })
        .collect();
    assert_eq!(
        refs,
        [
            serde_json::json!("2026-10-18T09:30:00.000Z"),
            serde_json::json!("2026-10-18T09:30:00.000Z"),
            serde_json::json!("undefined"),
            serde_json::json!("1792315800000"),
            serde_json::json!(42),
            serde_json::json!(["a", "b"]),
            serde_json::json!("null"),
        ]
    );
    let _ = ran
        .then()
        .args(["recall", "wombat", "--limit", "7"])
        .code(0)
        .stdout(
            "mem recall: 7 match(es) for \"wombat\" (scope: project)\n  \
             1. [0.707] event journal.ndjson#2026-10-18T09:30:00.000Z\n     forge wombat {}\n  \
             2. [0.707] event journal.ndjson#2026-10-18T09:30:00.000Z\n     forge wombat {}\n  \
             3. [0.707] event journal.ndjson#undefined\n     forge wombat {}\n  \
             4. [0.707] event journal.ndjson#1792315800000\n     forge wombat {}\n  \
             5. [0.707] event journal.ndjson#42\n     forge wombat {}\n  \
             6. [0.707] event journal.ndjson#a,b\n     forge wombat {}\n  \
             7. [0.707] event journal.ndjson#null\n     forge wombat {}\n",
        )
        .run();
}

#[test]
fn a_folder_in_place_of_a_note_file_is_an_error() {
    let _ = TestProject::new()
        .fixture("example")
        .remove(".agents/memory/lessons.md")
        .mkdir(".agents/memory/lessons.md")
        .args(["recall", "auth"])
        .refused("recall", "EISDIR: illegal operation on a directory, read");
    let _ = TestProject::new()
        .fixture("example")
        .remove(JOURNAL)
        .mkdir(JOURNAL)
        .args(["recall", "auth"])
        .refused("recall", "EISDIR: illegal operation on a directory, read");
}

#[test]
fn a_large_store_is_scored_in_file_order_across_the_halves_of_a_file() {
    // Over 1 MiB the note files are cut in two at a heading and scored on two threads: ties
    // must still come out in file order, and a read error is still the first in file order.
    let mut filler = String::new();
    for i in 0..12_000 {
        let _ = writeln!(
            filler,
            "### Filler {i}\nlorem ipsum dolor sit amet consectetur"
        );
    }
    let lessons = format!("### Okapi one\nokapi\n{filler}### Okapi two\nokapi");
    let ran = TestProject::new()
        .write(".bmad/memory/decisions.md", "### Okapi zero\nokapi\n")
        .write(".agents/memory/lessons.md", &lessons)
        .write(
            ".agents/memory/patterns.md",
            format!("{filler}### Okapi three\nokapi\n"),
        )
        .args(["recall", "okapi", "--json"])
        .code(0)
        .unchanged()
        .run();
    let recall: Recall = ran.json();
    assert_eq!(
        labels(&recall),
        [
            ".bmad/memory/decisions.md § Okapi zero",
            ".agents/memory/lessons.md § Okapi one",
            ".agents/memory/lessons.md § Okapi two",
            ".agents/memory/patterns.md § Okapi three",
        ]
    );
    let _ = TestProject::new()
        .write(".bmad/memory/decisions.md", &lessons)
        .mkdir(".agents/memory/lessons.md")
        .write(".agents/memory/patterns.md", &lessons)
        .args(["recall", "okapi"])
        .refused("recall", "EISDIR: illegal operation on a directory, read");
}

#[test]
fn every_limit_on_a_large_store_gives_a_prefix_of_the_whole_ranking() {
    // Each job of a large store keeps only its best --limit: the merged ranking must still be
    // the first --limit of the whole one, ties in file order, from the journal and every half.
    let mut notes = String::new();
    let mut journal = String::new();
    for i in 0..12_000 {
        let okapi = if i % 97 == 0 {
            " okapi".repeat(i % 3 + 1)
        } else {
            String::new()
        };
        let _ = writeln!(
            notes,
            "### Note {i}\nlorem ipsum dolor sit amet consectetur{okapi}"
        );
        if i % 13 == 0 {
            let _ = writeln!(
                journal,
                r#"{{"id":"e{i}","ts":"2026-10-01T00:00:00.000Z","task":"t{i}{okapi}"}}"#
            );
        }
    }
    let ranking = |limit: &str| -> Vec<String> {
        let ran = TestProject::new()
            .write(JOURNAL, &journal)
            .write(".bmad/memory/decisions.md", &notes)
            .write(".agents/memory/lessons.md", &notes)
            .args(["recall", "okapi", "--json", "--limit", limit])
            .code(0)
            .run();
        let recall: Recall = ran.json();
        labels(&recall)
    };
    let whole = ranking("100000");
    assert_eq!(whole.len(), 2 * 124 + 10);
    for limit in [1, 2, 8, 31, 64, 65, 150] {
        assert_eq!(
            ranking(&limit.to_string()),
            whole[..limit],
            "--limit {limit}"
        );
    }
}

#[test]
fn lexical_recall_follows_note_links_and_skips_dangling_ones() {
    let ran = TestProject::new()
        .fixture("example")
        .remove(".agents/memory/lessons.md")
        .write(
            "shared-notes/lessons.md",
            "### Okapi sightings\nThe okapi lives in the Ituri forest.\n",
        )
        .symlink("../../shared-notes/lessons.md", ".agents/memory/lessons.md")
        .remove(".agents/memory/patterns.md")
        .symlink("../../nowhere/patterns.md", ".agents/memory/patterns.md")
        .args(["recall", "okapi", "--json"])
        .code(0)
        .unchanged()
        .run();
    let recall: Recall = ran.json();
    assert_eq!(
        labels(&recall),
        [".agents/memory/lessons.md § Okapi sightings"]
    );
    assert!(matches!(
        &recall.results[0],
        Hit::Note { source, text, .. }
            if source == "lessons.md" && text == "Okapi sightings\nThe okapi lives in the Ituri forest."
    ));
}

#[test]
fn lexical_recall_follows_a_journal_link() {
    let _ = TestProject::new()
        .write(
            "elsewhere.ndjson",
            "{\"agent\":\"forge\",\"task\":\"okapi\",\"id\":\"linked\"}\n",
        )
        .mkdir(".bmad/memory")
        .symlink("../../elsewhere.ndjson", JOURNAL)
        .args(["recall", "okapi"])
        .code(0)
        .stdout(
            "mem recall: 1 match(es) for \"okapi\" (scope: project)\n  \
             1. [0.707] event journal.ndjson#linked\n     forge okapi {}\n",
        )
        .unchanged()
        .run();
}

#[test]
fn lexical_recall_has_no_size_cap_and_skips_a_dangling_journal() {
    // Over the 2 MiB registry cap: write refuses it, lexical recall still reads it.
    let journal = format!(
        "{}\n{{\"agent\":\"forge\",\"task\":\"okapi\",\"id\":\"big\"}}\n",
        "x".repeat(2 * 1024 * 1024)
    );
    let _ = TestProject::new()
        .write(JOURNAL, journal)
        .args(["recall", "okapi"])
        .code(0)
        .stdout(
            "mem recall: 1 match(es) for \"okapi\" (scope: project)\n  \
             1. [0.707] event journal.ndjson#big\n     forge okapi {}\n",
        )
        .unchanged()
        .run();
    let _ = TestProject::new()
        .mkdir(".bmad/memory")
        .symlink("../../nowhere.ndjson", JOURNAL)
        .args(["recall", "okapi"])
        .code(0)
        .stdout("mem recall: no matches for \"okapi\" (scope: project)\n")
        .unchanged()
        .run();
}

#[test]
fn negative_numbers_are_query_words() {
    // `-1` is a token; `-.5` splits into `-` and `5`, both too short.
    let ran = TestProject::new()
        .write(
            JOURNAL,
            "{\"agent\":\"forge\",\"task\":\"retry budget -1 means unlimited\",\"id\":\"neg\"}\n",
        )
        .args(["recall", "-1", "-.5"])
        .code(0)
        .unchanged()
        .run();
    assert!(
        ran.stdout
            .starts_with("mem recall: 1 match(es) for \"-1 -.5\" (scope: project)\n  1. ["),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("event journal.ndjson#neg\n"));
}

#[test]
fn double_dash_ends_options() {
    let _ = TestProject::new()
        .fixture("example")
        .args(["recall", "zzzqqq", "--", "--json", "--limit", "0", "-d"])
        .code(0)
        .stdout("mem recall: no matches for \"zzzqqq --json --limit 0 -d\" (scope: project)\n")
        .unchanged()
        .run();
}

#[test]
fn accents_and_case_fold_into_tokens() {
    let ran = TestProject::new()
        .fixture("example")
        .args(["recall", "ÉQUIPE", "--json"])
        .code(0)
        .run();
    let recall: Recall = ran.json();
    assert_eq!(
        labels(&recall),
        [
            "journal#\"12733df0566e\"",
            ".agents/memory/lessons.md § Équipe support needs the request id",
            ".agents/memory/decisions.md § Feature flags",
        ]
    );
}

/// Headings as JavaScript's `/^###\s+(.*)/` finds them, CRs kept in bodies, text before the
/// first heading ignored, a U+2028 ending a heading (what follows belongs to nothing), a BOM
/// that hides a heading; journal lines trimmed (BOM, CR, spaces), duplicate keys, array-index
/// keys first, numbers re-printed, odd value types in an event's text.
const EDGE_NOTES: &str = "Preamble narwhal text\n### Narwhal one\r\nnarwhal body\r\n###Narwhal glued\nnarwhal x\n#### Narwhal four\nnarwhal y\n### Narwhal\u{2028}tusk tail words\nbody narwhal\n###\tNarwhal tab\nnarwhal\n### \n narwhal empty heading\n\u{feff}### Narwhal bom\nnarwhal\n";

const EDGE_JOURNAL: &str = concat!(
    "\u{feff}{\"agent\":\"forge\",\"task\":\"narwhal bom\",\"id\":\"bom\"}\r\n",
    "  {\"z\":1,\"10\":2,\"agent\":\"forge\",\"task\":\"narwhal\",\"2\":3,\"n\":1.50,\"big\":12345678901234567890,\"e\":1e-7,\"id\":\"dup\",\"id\":\"dup2\"}  \n",
    "{\"agent\":42,\"cli\":true,\"model\":[\"a\",null,[\"b\"]],\"task\":{\"x\":1},\"outcome\":0,\"signals\":0,\"id\":\"odd\",\"task2\":\"narwhal\"}\n",
    "{\"agent\":\"narwhal\",\"signals\":{\"b\":1,\"a\":\"x\\u2028y\",\"1\":null},\"id\":\"sig\"}\n",
);

/// `recall narwhal --json` over the edge cases (invisible characters marked, see [`unmark`]).
const NARWHAL_JSON: &str = r#"{
  "query": "narwhal",
  "scope": "project",
  "ranking": "lexical",
  "count": 7,
  "results": [
    {
      "score": 0.9775389804739404,
      "kind": "note",
      "source": "lessons.md",
      "sourceFile": ".agents/memory/lessons.md",
      "ref": "Narwhal",
      "text": "Narwhal\nbody narwhal"
    },
    {
      "score": 0.9775389804739404,
      "kind": "note",
      "source": "lessons.md",
      "sourceFile": ".agents/memory/lessons.md",
      "ref": "Narwhal tab",
      "text": "Narwhal tab\nnarwhal"
    },
    {
      "score": 0.882831860210341,
      "kind": "note",
      "source": "lessons.md",
      "sourceFile": ".agents/memory/lessons.md",
      "ref": "Narwhal one",
      "text": "Narwhal one\nnarwhal body\r\n###Narwhal glued\nnarwhal x\n#### Narwhal four\nnarwhal y"
    },
    {
      "score": 0.8567548791952108,
      "kind": "note",
      "source": "lessons.md",
      "sourceFile": ".agents/memory/lessons.md",
      "ref": "",
      "text": "narwhal empty heading\n<BOM>### Narwhal bom\nnarwhal"
    },
    {
      "score": 0.7071067811865475,
      "kind": "event",
      "source": "journal.ndjson",
      "ref": "dup2",
      "text": "forge narwhal {}",
      "event": {
        "2": 3,
        "10": 2,
        "z": 1,
        "agent": "forge",
        "task": "narwhal",
        "n": 1.5,
        "big": 12345678901234567000,
        "e": 1e-7,
        "id": "dup2"
      }
    },
    {
      "score": 0.7071067811865475,
      "kind": "event",
      "source": "journal.ndjson",
      "ref": "sig",
      "text": "narwhal {\"1\":null,\"b\":1,\"a\":\"x<LS>y\"}",
      "event": {
        "agent": "narwhal",
        "signals": {
          "1": null,
          "b": 1,
          "a": "x<LS>y"
        },
        "id": "sig"
      }
    },
    {
      "score": 0.5773502691896258,
      "kind": "event",
      "source": "journal.ndjson",
      "ref": "bom",
      "text": "forge narwhal bom {}",
      "event": {
        "agent": "forge",
        "task": "narwhal bom",
        "id": "bom"
      }
    }
  ]
}
"#;

/// `recall object --json` over the edge cases: the event whose text holds `[object Object]`.
const OBJECT_JSON: &str = r#"{
  "query": "object",
  "scope": "project",
  "ranking": "lexical",
  "count": 1,
  "results": [
    {
      "score": 0.8465735902799727,
      "kind": "event",
      "source": "journal.ndjson",
      "ref": "odd",
      "text": "42 true a,,b [object Object] {}",
      "event": {
        "agent": 42,
        "cli": true,
        "model": [
          "a",
          null,
          [
            "b"
          ]
        ],
        "task": {
          "x": 1
        },
        "outcome": 0,
        "signals": 0,
        "id": "odd",
        "task2": "narwhal"
      }
    }
  ]
}
"#;

/// Puts back the invisible characters a pinned output marks as `<BOM>` and `<LS>`.
fn unmark(text: &str) -> String {
    text.replace("<BOM>", "\u{feff}")
        .replace("<LS>", "\u{2028}")
}

#[test]
fn sections_and_events_are_read_as_javascript_reads_them() {
    let project = TestProject::new()
        .write(".agents/memory/lessons.md", EDGE_NOTES)
        .write(JOURNAL, EDGE_JOURNAL)
        .args(["recall", "narwhal", "--json"])
        .code(0)
        .stdout(&unmark(NARWHAL_JSON))
        .unchanged()
        .run()
        .then()
        .args(["recall", "object", "--json"])
        .code(0)
        .stdout(OBJECT_JSON)
        .run()
        .then();
    // The words after U+2028 on a heading line are in no section.
    for word in ["tusk", "tail"] {
        let _ = TestProject::new()
            .write(".agents/memory/lessons.md", EDGE_NOTES)
            .args(["recall", word])
            .code(0)
            .stdout(&format!(
                "mem recall: no matches for \"{word}\" (scope: project)\n"
            ))
            .run();
    }
    let _ = project
        .args(["recall", "narwhal", "--limit", "4"])
        .code(0)
        .stdout(
            "mem recall: 4 match(es) for \"narwhal\" (scope: project)\n  \
             1. [0.978] note lessons.md § Narwhal\n     Narwhal body narwhal\n  \
             2. [0.978] note lessons.md § Narwhal tab\n     Narwhal tab narwhal\n  \
             3. [0.883] note lessons.md § Narwhal one\n     \
             Narwhal one narwhal body ###Narwhal glued narwhal x #### Narwhal four narwhal y\n  \
             4. [0.857] note lessons.md § \n     narwhal empty heading ### Narwhal bom narwhal\n",
        )
        .run();
}

/// Spawns a recall whose large output goes into a pipe closed before the child writes.
fn recall_into_a_closed_pipe(project: TestProject, json: bool) -> TestProject {
    let mut args = vec!["recall", "zanzibar", "--limit", "100000"];
    if json {
        args.push("--json");
    }
    let project = project.args(args);
    let mut child = project
        .command()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn bmad-mem");
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr pipe")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    let status = child.wait().expect("wait for bmad-mem");
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr, "");
    project
}

#[test]
fn a_closed_pipe_ends_quietly_with_success() {
    // 3,000 matching events: far more output than a pipe buffer holds.
    let mut journal = String::new();
    for i in 0..3000 {
        let _ = writeln!(
            journal,
            "{{\"ts\":\"2026-10-18T09:30:00.000Z\",\"agent\":\"forge\",\"task\":\"zanzibar {i}\",\"id\":\"e{i}\"}}"
        );
    }
    let project = TestProject::new().write(JOURNAL, journal);
    let before = project.snapshot();
    let project = recall_into_a_closed_pipe(project, false);
    let project = recall_into_a_closed_pipe(project, true);
    assert_same(&before, &project.snapshot(), "recall into a closed pipe");
}
