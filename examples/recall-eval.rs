//! Retrieval quality of `recall` on the ADR benchmark (`benches/data/adr/`): 519 architecture
//! decision records from public repositories and 80 development queries, 30 of them *hard* (the
//! record words the idea differently from the query).
//!
//! ```text
//! cargo run --release --example recall-eval -- [--ranking lexical|bm25|model|hybrid]
//!     [--corpus DIR] [--queries FILE] [--per-query] [--k1 X] [--heading-weight X]
//!     [--heading-b X] [--body-b X] [--fusion-k X] [--bm25-weight X] [--semantic-weight X]
//!     [--check METRIC>=X,…]
//! ```
//!
//! `hybrid` and `model` (the model's ranking alone: hybrid with bm25's weight 0) need the
//! embedding model installed (`bmad-mem model install`); the corpus is copied into
//! `target/recall-eval/` and indexed there first (`bmad-mem index`), so the repository's copy
//! stays as it is and a second run embeds nothing. `--check` exits 1 when a metric of all the
//! queries (`recall@5`, `MRR@10`…, or `hard-recall@5` for the hard ones) is below its bound.
//!
//! Every query runs in-process as `recall <query> --limit 10` would (the query's words joined by
//! one space) and is scored on the headings of its results: recall@1/5/10 (the share of the
//! relevant headings in the top k), hit@1/5 (any relevant heading in the top k) and MRR@10 (one
//! over the rank of the first relevant heading, 0 beyond 10), averaged over the queries, then
//! over the hard and the regular ones. The `--k1`… options override the bm25 ranking's constants
//! (`bmad_mem::actions::recall::bm25::Params`) for experiments.

use std::path::{Path, PathBuf};
use std::time::Instant;

use bmad_mem::actions::recall::bm25::{self, Params};
use bmad_mem::actions::recall::hybrid::{self, Fusion};
use bmad_mem::actions::recall::score::Request;
use bmad_mem::actions::recall::{self, RecallArgs};
use bmad_mem::cli::Cli;
use bmad_mem::context::{Context, Now};
use bmad_mem::js::json::Value;

#[derive(serde::Deserialize)]
struct Query {
    q: String,
    relevant: Vec<String>,
    hard: bool,
}

/// One query's metrics, in [`NAMES`] order.
type Row = [f64; 6];
const NAMES: [&str; 6] = [
    "recall@1",
    "recall@5",
    "recall@10",
    "MRR@10",
    "hit@1",
    "hit@5",
];

fn evaluate(ranked: &[String], relevant: &[String]) -> Row {
    let found = |k: usize| {
        let top = &ranked[..k.min(ranked.len())];
        relevant.iter().filter(|r| top.contains(r)).count()
    };
    #[allow(clippy::cast_precision_loss)]
    let share = |k: usize| found(k) as f64 / relevant.len() as f64;
    let hit = |k: usize| if found(k) > 0 { 1.0 } else { 0.0 };
    let first = ranked.iter().take(10).position(|r| relevant.contains(r));
    #[allow(clippy::cast_precision_loss)]
    let mrr = first.map_or(0.0, |i| 1.0 / (i + 1) as f64);
    [share(1), share(5), share(10), mrr, hit(1), hit(5)]
}

fn mean(rows: &[&Row]) -> Row {
    let mut out = [0.0; 6];
    for row in rows {
        for (o, v) in out.iter_mut().zip(row.iter()) {
            *o += v;
        }
    }
    #[allow(clippy::cast_precision_loss)]
    let n = rows.len().max(1) as f64;
    for o in &mut out {
        *o /= n;
    }
    out
}

fn line(label: &str, n: usize, row: &Row) -> String {
    let metrics: Vec<String> = NAMES
        .iter()
        .zip(row)
        .map(|(name, v)| format!("{name}={v:.3}"))
        .collect();
    format!("{label} n={n} {}", metrics.join(" "))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/data/adr");
    let mut corpus = data.join("corpus");
    let mut queries_path = data.join("dev-queries.json");
    let mut ranking = "lexical".to_owned();
    let mut per_query = false;
    let mut params = Params::default();
    let mut fusion = Fusion::default();
    let mut checks = String::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--ranking" => ranking = value()?,
            "--corpus" => corpus = PathBuf::from(value()?),
            "--queries" => queries_path = PathBuf::from(value()?),
            "--per-query" => per_query = true,
            "--k1" => params.k1 = value()?.parse()?,
            "--heading-weight" => params.heading_weight = value()?.parse()?,
            "--heading-b" => params.heading_b = value()?.parse()?,
            "--body-b" => params.body_b = value()?.parse()?,
            "--fusion-k" => fusion.k = value()?.parse()?,
            "--bm25-weight" => fusion.bm25_weight = value()?.parse()?,
            "--semantic-weight" => fusion.semantic_weight = value()?.parse()?,
            "--check" => checks = value()?,

            other => return Err(format!("unknown option {other}").into()),
        }
    }
    let queries: Vec<Query> = serde_json::from_str(&std::fs::read_to_string(&queries_path)?)?;
    let semantic = ranking == "hybrid" || ranking == "model";
    if ranking == "model" {
        fusion.bm25_weight = 0.0;
    }
    if semantic {
        corpus = indexed_copy(&corpus)?;
    }
    let mut ctx = Context::from_env(Some(corpus.as_path()))?;
    ctx.now = Now::parse("2026-10-18T09:30:00.000Z")?;

    let mut rows = Vec::new();
    let started = Instant::now();
    for query in &queries {
        let args = RecallArgs {
            query: vec![query.q.clone()],
            limit: Some("10".to_owned()),
            ranking: Some(ranking.clone()),
            ..RecallArgs::default()
        };
        let results = if ranking == "bm25" {
            bm25::recall_with(&ctx, &Request::parse(&args)?, None, &params)?.0
        } else if semantic {
            let args = RecallArgs {
                ranking: Some("hybrid".to_owned()),
                ..args
            };
            hybrid::recall_with(&ctx, &Request::parse(&args)?, None, &fusion)?
                .map_err(|u| u.message("recall-eval"))?
                .0
        } else {
            recall::run(&args, &ctx)?.results
        };
        let ranked: Vec<String> = results
            .iter()
            .filter_map(|r| r.get("ref").map(Value::text))
            .collect();
        let row = evaluate(&ranked, &query.relevant);
        if per_query {
            let first = ranked.iter().position(|r| query.relevant.contains(r));
            println!(
                "  {:>2}  r@5={:.2}  {}",
                first.map_or("-".to_owned(), |i| (i + 1).to_string()),
                row[1],
                query.q
            );
        }
        rows.push((query.hard, row));
    }
    let elapsed = started.elapsed();
    for (label, keep) in [
        ("hard", Some(true)),
        ("regular", Some(false)),
        ("all", None),
    ] {
        let subset: Vec<&Row> = rows
            .iter()
            .filter(|(hard, _)| keep.is_none_or(|k| *hard == k))
            .map(|(_, row)| row)
            .collect();
        println!(
            "{}",
            line(
                &format!("{ranking} / {label}"),
                subset.len(),
                &mean(&subset)
            )
        );
    }
    #[allow(clippy::cast_precision_loss)]
    let per = elapsed.as_secs_f64() * 1000.0 / queries.len() as f64;
    println!("{ranking}: {per:.2} ms per query (in-process, files read each time)");
    check(&checks, &rows)
}

/// A copy of `corpus`'s notes under `target/recall-eval/`, indexed (`bmad-mem index`).
fn indexed_copy(corpus: &Path) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let copy = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/recall-eval/corpus");
    let notes = Path::new(".agents/memory");
    std::fs::create_dir_all(copy.join(notes))?;
    for name in ["decisions.md", "lessons.md", "patterns.md"] {
        let from = corpus.join(notes).join(name);
        if from.is_file() {
            std::fs::copy(&from, copy.join(notes).join(name))?;
        }
    }
    let index = <Cli as clap::Parser>::try_parse_from(["bmad-mem", "index"])?;
    let ctx = Context::from_env(Some(copy.as_path()))?;
    let report = bmad_mem::run(&index.command, &ctx)?;
    eprint!("{}", report.render_human());
    Ok(copy)
}

/// Exits 1 (an error) when a metric named in `checks` (`recall@5>=0.94,hard-recall@5>=0.85`)
/// is below its bound, over all the queries or, with `hard-`, the hard ones.
fn check(checks: &str, rows: &[(bool, Row)]) -> Result<(), Box<dyn std::error::Error>> {
    let mut failed = Vec::new();
    for item in checks.split(',').filter(|c| !c.is_empty()) {
        let (name, bound) = item
            .split_once(">=")
            .ok_or(format!("not METRIC>=X: {item}"))?;
        let bound: f64 = bound.parse()?;
        let (metric, hard_only) = match name.strip_prefix("hard-") {
            Some(metric) => (metric, true),
            None => (name, false),
        };
        let at = NAMES
            .iter()
            .position(|n| *n == metric)
            .ok_or(format!("unknown metric {metric}"))?;
        let subset: Vec<&Row> = rows
            .iter()
            .filter(|(hard, _)| !hard_only || *hard)
            .map(|(_, row)| row)
            .collect();
        let value = mean(&subset)[at];
        // Figures are compared as printed, to three decimals.
        if (value * 1000.0).round() < (bound * 1000.0).round() {
            failed.push(format!("{name}={value:.3} < {bound}"));
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("below the bounds: {}", failed.join(", ")).into())
    }
}
