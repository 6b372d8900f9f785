//! `recall --ranking bm25`: the output keeps recall's shape with `"ranking":"bm25"`, words of
//! every script and stemmed forms are found, the portfolio is searched, the lexical ranking's
//! output is untouched, and refusals are lexical recall's. Recall never writes: every run here
//! also checks that no byte under the test folder changed.

use crate::support::schema::{Hit, Recall, labels};
use crate::support::{JOURNAL, TestProject};

/// `recall <args…> --json`, which must succeed quietly and change nothing.
pub(super) fn recall(project: TestProject, args: &[&str]) -> Recall {
    project
        .args(["recall"].iter().chain(args).chain(&["--json"]))
        .code(0)
        .stderr("")
        .unchanged()
        .run()
        .json()
}

#[test]
fn the_output_has_recall_shape_and_names_its_ranking() {
    let found = recall(
        TestProject::new().fixture("example"),
        &["auth", "strategy", "--ranking", "bm25"],
    );
    assert_eq!(
        (
            found.query.as_str(),
            found.scope.as_str(),
            found.ranking.as_str()
        ),
        ("auth strategy", "project", "bm25")
    );
    assert_eq!(found.count, found.results.len());
    assert!(found.count > 0);
    // The note named after the query comes first; scores are positive and sorted.
    assert_eq!(
        labels(&found)[0],
        ".agents/memory/decisions.md § Auth strategy"
    );
    let scores: Vec<f64> = found.results.iter().map(Hit::score).collect();
    assert!(scores.iter().all(|&s| s > 0.0), "{scores:?}");
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert!(found.results.iter().any(|h| matches!(
        h,
        Hit::Event { source, event, text, .. }
            if source == "journal.ndjson" && event["agent"] == "atlas" && text.starts_with("atlas ")
    )));
    assert!(found.results.iter().all(|h| match h {
        Hit::Note { source, text, .. } =>
            ["decisions.md", "lessons.md", "patterns.md"].contains(&source.as_str())
                && !text.ends_with('\n'),
        Hit::Event { .. } => true,
    }));
}

#[test]
fn the_human_output_is_recalls() {
    let ran = TestProject::new()
        .fixture("example")
        .args([
            "recall",
            "auth",
            "strategy",
            "--ranking",
            "bm25",
            "--limit",
            "1",
        ])
        .code(0)
        .stderr("")
        .unchanged()
        .run();
    let mut lines = ran.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("mem recall: 1 match(es) for \"auth strategy\" (scope: project)")
    );
    let first = lines.next().unwrap();
    // The decision's status ends its line; the excerpt is the passage where a term stands
    // (the heading is on the line above, its metadata is left out).
    assert!(
        first.starts_with("  1. [")
            && first.ends_with("] note decisions.md § Auth strategy [active]"),
        "{first}"
    );
    assert_eq!(
        lines.next(),
        Some(
            "     …the session store (Redis); `auth-middleware` refreshes the session cookie on \
             activity; logout everywhere is one `DELET…"
        )
    );
    assert_eq!(lines.next(), None);
}

#[test]
fn lexical_output_is_unchanged_by_the_new_ranking() {
    // The default and `--ranking lexical` print the same bytes, with `"ranking": "lexical"` and
    // lexical scores (pinned to the bit in the recall tests).
    let run = |args: &[&str]| {
        TestProject::new()
            .fixture("example")
            .args(args)
            .code(0)
            .unchanged()
            .run()
            .stdout
    };
    let default = run(&["recall", "auth", "strategy", "--json"]);
    let explicit = run(&[
        "recall",
        "auth",
        "strategy",
        "--ranking",
        "lexical",
        "--json",
    ]);
    let bm25 = run(&["recall", "auth", "strategy", "--ranking", "bm25", "--json"]);
    assert!(default.contains("\"ranking\": \"lexical\""));
    assert!(bm25.contains("\"ranking\": \"bm25\""));
    assert_ne!(default, bm25);
    assert!(default.contains("\"score\": 0.26967994498529685"));
    assert_eq!(default, explicit);
}

#[test]
fn words_of_every_script_and_their_forms_are_found() {
    let project = || {
        TestProject::new().write(
            ".agents/memory/decisions.md",
            "### Кэш запросов\nМы храним ответы в кэше Redis.\n\
             ### Ελληνικά\nΤο ΛΟΓΟΣ είναι εδώ.\n\
             ### 東京のサーバー\n東京に置く。\n\
             ### Déploiements du vendredi\nL'équipe évite les déploiements le vendredi.\n\
             ### Rollouts\nWe deployed the canary first.\n\
             ### Invalidate ParserCache\nOn incompatible changes.\n",
        )
    };
    let refs = |args: &[&str]| -> Vec<String> {
        recall(project(), args)
            .results
            .iter()
            .map(Hit::label)
            .map(|l| {
                l.trim_start_matches(".agents/memory/decisions.md § ")
                    .to_owned()
            })
            .collect()
    };
    assert_eq!(refs(&["КЭШ", "--ranking", "bm25"]), ["Кэш запросов"]);
    assert_eq!(refs(&["λόγος", "--ranking", "bm25"]), ["Ελληνικά"]);
    assert_eq!(refs(&["東京", "--ranking", "bm25"]), ["東京のサーバー"]);
    assert_eq!(
        refs(&["equipe", "--ranking", "bm25"]),
        ["Déploiements du vendredi"]
    );
    assert_eq!(refs(&["deploying", "--ranking", "bm25"]), ["Rollouts"]);
    assert_eq!(
        refs(&["cached", "parsers", "--ranking", "bm25"]),
        ["Invalidate ParserCache"]
    );
    // The lexical ranking keeps bmad-plus's tokens: none of these are found there.
    for query in ["КЭШ", "λόγος", "東京", "equipe", "deploying", "parser"] {
        assert_eq!(refs(&[query]), Vec::<String>::new(), "{query}");
    }
}

#[test]
fn events_are_their_own_collection_and_fade_with_age() {
    // Two events with the same words, one 30 days older than the other: the older one scores
    // half as much.
    let line = |id: &str, ts: &str| {
        format!(
            "{{\"ts\":\"{ts}\",\"agent\":\"forge\",\"task\":\"Tune the wombat cache\",\"outcome\":\"success\",\"signals\":{{}},\"artifactHashes\":[],\"id\":\"{id}\"}}\n"
        )
    };
    let journal =
        line("new", "2026-10-18T09:30:00.000Z") + &line("old", "2026-09-18T09:30:00.000Z");
    let found = recall(
        TestProject::new().write(JOURNAL, journal),
        &["wombat", "--ranking", "bm25"],
    );
    assert_eq!(labels(&found), ["journal#\"new\"", "journal#\"old\""]);
    let (new, old) = (found.results[0].score(), found.results[1].score());
    assert!((old / new - 0.5).abs() < 1e-12, "{new} {old}");
}

#[test]
fn the_portfolio_is_searched_too() {
    let found = TestProject::new()
        .fixture("example")
        .fixture_beside("portfolio", "brain")
        .current_dir("")
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
            "--ranking",
            "bm25",
            "--json",
        ])
        .code(0)
        .unchanged()
        .run()
        .json::<Recall>();
    assert_eq!(
        (found.scope.as_str(), found.ranking.as_str()),
        ("portfolio", "bm25")
    );
    assert_eq!(
        labels(&found)[0],
        "../brain/memory/decisions.md § Rate limit defaults"
    );
}

#[test]
fn no_match_and_stop_words_only() {
    let _ = TestProject::new()
        .fixture("example")
        .args(["recall", "zzzqqq", "--ranking", "bm25"])
        .code(0)
        .stdout("mem recall: no matches for \"zzzqqq\" (scope: project)\n")
        .unchanged()
        .run();
    // A query of stop words only searches for them rather than for nothing.
    let found = recall(
        TestProject::new().write(".agents/memory/lessons.md", "### To be or not\nthe end\n"),
        &["the", "--ranking", "bm25"],
    );
    assert_eq!(found.count, 1);
}

#[test]
fn invalid_rankings_keep_bmad_plus_message() {
    for value in ["BM25", "bm-25", "okapi", ""] {
        let _ = TestProject::new()
            .fixture("example")
            .args(["recall", "auth", "--ranking", value])
            .refused("recall", "recall: ranking must be lexical or evidence");
    }
}

#[test]
fn read_errors_are_lexical_recalls() {
    let _ = TestProject::new()
        .fixture("example")
        .remove(".agents/memory/lessons.md")
        .mkdir(".agents/memory/lessons.md")
        .args(["recall", "auth", "--ranking", "bm25"])
        .refused("recall", "EISDIR: illegal operation on a directory, read");
    let _ = TestProject::new()
        .fixture("example")
        .remove(JOURNAL)
        .mkdir(JOURNAL)
        .args(["recall", "auth", "--ranking", "bm25"])
        .refused("recall", "EISDIR: illegal operation on a directory, read");
}

#[test]
fn help_documents_bm25() {
    let ran = TestProject::new().args(["recall", "--help"]).code(0).run();
    assert!(
        ran.stdout.contains("lexical|bm25|hybrid|evidence"),
        "{}",
        ran.stdout
    );
    // It names the better ranking, the status filter and where the default comes from.
    for words in [
        "BM25F",
        "bm25 is the better ranking",
        "--status <in-force|all>",
        "BMAD_MEM_RANKING",
    ] {
        assert!(ran.stdout.contains(words), "{words}: {}", ran.stdout);
    }
}

#[test]
fn options_bm25_cannot_honour_are_refused() {
    let _ = TestProject::new()
        .fixture("example")
        .args([
            "recall",
            "auth",
            "--ranking",
            "bm25",
            "--context-scope",
            "src",
        ])
        .refused(
            "recall",
            "--context-scope only applies with --ranking evidence",
        );
    let _ = TestProject::new()
        .fixture("example")
        .args(["recall", "auth", "--ranking", "bm25", "--include-archive"])
        .refused(
            "recall",
            "--include-archive applies with --ranking lexical or evidence",
        );
}

#[test]
fn the_largest_limit_is_taken_whole() {
    // `--limit` saturates at the largest number; bm25 once overflowed computing what to keep.
    let found = recall(
        TestProject::new().fixture("example"),
        &[
            "auth",
            "--ranking",
            "bm25",
            "--limit",
            "99999999999999999999999",
        ],
    );
    assert!(found.count > 0);
}
