//! `recall --ranking hybrid`: bm25's list and the embedding model's, fused by reciprocal rank,
//! with the tests' tiny model (random weights: its ranking means nothing, its plumbing is what is
//! checked). The fusion, the ranks each result shows, the index a recall keeps up and warns
//! about, bad input, and the refusals.

use std::fmt::Write as _;

use serde_json::Value;

use crate::support::TestProject;
use crate::support::schema::{Hit, Recall};

/// The `k` of the fusion (`hybrid::FUSION_K`).
const K: f64 = 5.0;

/// A project with the example memory, the tiny model installed and indexed.
fn indexed() -> TestProject {
    TestProject::new()
        .fixture("example")
        .with_tiny_model()
        .args(["index"])
        .code(0)
        .stderr("")
        .run()
        .project
}

fn json_of(project: TestProject, args: &[&str]) -> (TestProject, Value) {
    let ran = project
        .args(["recall"].iter().chain(args).chain(&["--json"]))
        .code(0)
        .run();
    let json = ran.json();
    (ran.project, json)
}

fn rank(result: &Value, key: &str) -> Option<f64> {
    result.get(key).expect(key).as_f64()
}

#[test]
fn each_result_is_bm25s_or_the_models_with_its_ranks_and_the_fused_score() {
    let (project, hybrid) = json_of(
        indexed(),
        &["auth", "session", "--ranking", "hybrid", "--limit", "40"],
    );
    assert_eq!(hybrid["ranking"], "hybrid");
    assert!(hybrid.get("warnings").is_none(), "{hybrid}");
    let results = hybrid["results"].as_array().unwrap();
    let (_, bm25) = json_of(
        project,
        &["auth", "session", "--ranking", "bm25", "--limit", "1000"],
    );
    let bm25 = bm25["results"].as_array().unwrap();
    let mut scores = Vec::new();
    let mut semantic_only = 0;
    for result in results {
        let (lexical, semantic) = (rank(result, "bm25Rank"), rank(result, "semanticRank"));
        let fused: f64 = [lexical, semantic]
            .iter()
            .flatten()
            .map(|r| 1.0 / (K + r))
            .sum();
        assert_eq!(result["score"].as_f64(), Some(fused), "{result}");
        scores.push(fused);
        // bm25's own result, at that place in its list: same text, status and excerpt.
        if let Some(r) = result["bm25Rank"].as_u64() {
            let theirs = &bm25[usize::try_from(r).unwrap() - 1];
            for key in ["kind", "ref", "text", "status", "excerpt"] {
                assert_eq!(result.get(key), theirs.get(key), "{key} of {result}");
            }
        } else {
            semantic_only += 1;
            assert!(result.get("excerpt").is_none());
        }
    }
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    // The tiny model ranks every candidate: notes without the query's words come too.
    assert!(semantic_only > 0);
    assert!(results.iter().all(|r| rank(r, "semanticRank").is_some()));
    assert!(
        results
            .iter()
            .filter(|r| rank(r, "bm25Rank").is_some())
            .count()
            == bm25.len().min(results.len() - semantic_only)
    );
}

#[test]
fn the_human_output_is_recalls() {
    let ran = indexed()
        .args([
            "recall",
            "auth",
            "strategy",
            "--ranking",
            "hybrid",
            "--limit",
            "2",
        ])
        .code(0)
        .stderr("")
        .run();
    assert!(
        ran.stdout
            .starts_with("mem recall: 2 match(es) for \"auth strategy\" (scope: project)\n  1. ["),
        "{}",
        ran.stdout
    );
}

#[test]
fn a_recall_embeds_what_the_index_lacks_within_its_budget_and_says_so() {
    // 30 notes of about 120 tokens each: more than a recall's 2,048 tokens.
    let mut notes = String::from("# Lessons\n\n");
    for i in 0..30 {
        let _ = writeln!(notes, "### Lesson {i}");
        for j in 0..40 {
            let _ = write!(notes, "word{} thing{j} ", i * 7 + j);
        }
        notes.push('\n');
    }
    let project = TestProject::new()
        .with_tiny_model()
        .write(".agents/memory/lessons.md", &notes);
    let (project, first) = json_of(project, &["lesson", "--ranking", "hybrid"]);
    let warnings = first["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let behind = warnings[0].as_str().unwrap();
    assert!(
        behind.starts_with("warning: the embedding index is behind by "),
        "{behind}"
    );
    assert!(
        behind.ends_with(" text(s), ranked by bm25 alone; run `bmad-mem index`"),
        "{behind}"
    );
    assert!(project.path(".bmad/cache/embeddings.bin").is_file());
    // Each recall embeds more, until none is missing.
    let count = |w: &str| -> usize { w.split_whitespace().nth(7).unwrap().parse().unwrap() };
    let (project, second) = json_of(project, &["lesson", "--ranking", "hybrid"]);
    let later = second["warnings"][0].as_str().map_or(0, count);
    assert!(later < count(behind), "{later} vs {behind}");
    let ran = project.args(["index", "--json"]).code(0).run();
    let index: Value = ran.json();
    assert_eq!(index["texts"], 30);
    let (_, done) = json_of(ran.project, &["lesson", "--ranking", "hybrid"]);
    assert!(done.get("warnings").is_none(), "{done}");
}

#[test]
fn a_damaged_or_foreign_index_is_never_used() {
    let project = indexed();
    let good = project.read(".bmad/cache/embeddings.bin");
    // Damaged: a byte flipped.
    let mut flipped = good.clone();
    flipped[100] ^= 1;
    let (project, found) = json_of(
        project.write(".bmad/cache/embeddings.bin", &flipped),
        &["auth", "--ranking", "hybrid"],
    );
    let warning = found["warnings"][0].as_str().unwrap();
    assert_eq!(
        warning,
        "warning: .bmad/cache/embeddings.bin ignored (its checksum does not match (a torn or altered file)); run `bmad-mem index` to rebuild it"
    );
    // The recall rebuilt what its budget allowed: the file is an index again, of this model.
    let rebuilt = project.read(".bmad/cache/embeddings.bin");
    assert_eq!(&rebuilt[..8], b"BMADVEC1");
    assert_eq!(rebuilt[8..40], good[8..40]);
    // Another model's: the same vectors under another model digest.
    let foreign = bmad_mem::store::vectors::Vectors::from_entries(
        [9; 32],
        2,
        vec![([1; 32], vec![0.6, 0.8])],
    );
    let (project, found) = json_of(
        project.write(".bmad/cache/embeddings.bin", foreign.to_bytes()),
        &["auth", "--ranking", "hybrid"],
    );
    assert_eq!(
        found["warnings"][0],
        "warning: .bmad/cache/embeddings.bin ignored (made with another model); run `bmad-mem index` to rebuild it"
    );
    // A folder in its place: used as no index, and the recall says it cannot save.
    let (_, found) = json_of(
        project
            .remove(".bmad/cache/embeddings.bin")
            .mkdir(".bmad/cache/embeddings.bin/x"),
        &["auth", "--ranking", "hybrid"],
    );
    let warnings: Vec<&str> = found["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("warning: .bmad/cache/embeddings.bin ignored (")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("warning: the embedding index could not be saved (")),
        "{warnings:?}"
    );
    assert!(found["count"].as_u64().unwrap() > 0);
}

#[test]
fn a_huge_section_and_other_scripts_are_read_within_bounds() {
    // A 1 MiB section in Cyrillic and CJK: the model reads its first 256 tokens.
    let mut big = String::from("### Огромная запись 大\n");
    while big.len() < 1024 * 1024 {
        big.push_str("кэширование сессий 東京の天気は晴れ ");
    }
    let project = TestProject::new().with_tiny_model().write(
        ".agents/memory/decisions.md",
        format!("# Decisions\n\n{big}\n### Small\nA short note.\n"),
    );
    let ran = project.args(["index", "--json"]).code(0).run();
    assert_eq!(ran.json::<Value>()["embedded"], 2);
    let (_, found) = json_of(ran.project, &["кэширование", "--ranking", "hybrid"]);
    assert_eq!(found["count"], 2);
    assert_eq!(found["results"][0]["ref"], "Огромная запись 大");
}

#[test]
fn status_marks_and_the_in_force_filter_apply_to_both_lists() {
    let decisions = "# Decisions\n\n### Use MySQL\n**Status:** superseded by Use Postgres\nStore orders in MySQL.\n\n### Use Postgres\n**Status:** active\nStore orders in Postgres.\n\n### Draft queue\n**Status:** proposed\nA queue for orders.\n";
    let project = TestProject::new()
        .with_tiny_model()
        .write(".agents/memory/decisions.md", decisions)
        .args(["index"])
        .code(0)
        .run()
        .project;
    let (project, all) = json_of(project, &["orders", "--ranking", "hybrid"]);
    let shown: Vec<(&str, &str)> = all["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["ref"].as_str().unwrap(), r["status"].as_str().unwrap()))
        .collect();
    assert_eq!(shown.len(), 3);
    assert!(shown.contains(&("Use MySQL", "superseded")), "{shown:?}");
    let mysql = all["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ref"] == "Use MySQL")
        .unwrap();
    assert_eq!(mysql["supersededBy"], "Use Postgres");
    let (_, in_force) = json_of(
        project,
        &["orders", "--ranking", "hybrid", "--status", "in-force"],
    );
    let refs: Vec<&str> = in_force["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ref"].as_str().unwrap())
        .collect();
    assert_eq!(refs, ["Use Postgres"]);
}

#[test]
fn a_default_of_hybrid_uses_the_model_when_it_is_there() {
    let found: Recall = indexed()
        .write(".bmad/memory/config.json", "{\"ranking\": \"hybrid\"}")
        .args(["recall", "auth", "--json"])
        .code(0)
        .stderr("")
        .run()
        .json();
    assert_eq!(found.ranking, "hybrid");
    assert!(found.warnings.is_empty());
    assert!(found.results.iter().all(|hit| match hit {
        Hit::Note { semantic_rank, .. } | Hit::Event { semantic_rank, .. } =>
            semantic_rank.is_some(),
    }));
    assert!(found.results.iter().any(|hit| matches!(
        hit,
        Hit::Note {
            bm25_rank: Some(1),
            ..
        } | Hit::Event {
            bm25_rank: Some(1),
            ..
        }
    )));
}

#[test]
fn refusals_are_recalls_and_change_nothing() {
    let project = TestProject::new().fixture("example").with_tiny_model();
    let project = project
        .args(["recall", "auth", "--ranking", "hybrid", "--include-archive"])
        .refused(
            "recall",
            "--include-archive applies with --ranking lexical or evidence",
        );
    let project = project
        .args(["recall", "  ", "--ranking", "hybrid"])
        .refused("recall", "recall: query must be a non-empty string");
    let _ = project
        .args([
            "recall",
            "auth",
            "--ranking",
            "hybrid",
            "--context-scope",
            "src",
        ])
        .refused(
            "recall",
            "--context-scope only applies with --ranking evidence",
        );
}
