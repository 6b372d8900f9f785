//! `recall`: what do we already know about X? (docs §5)
//!
//! Candidates are every journal event (in file order), then every `###` section of
//! `decisions.md`, `lessons.md`, `patterns.md` in `.bmad/memory/`, `.agents/memory/` and, with
//! `--scope portfolio --portfolio P`, `P/memory/`. Each is scored lexically ([`score`]); journal
//! events lose half their weight every 30 days. The sort is stable, so ties keep candidate
//! order; lexical recall keeps only the best `--limit` candidates as it goes ([`Best`]).
//! With `--include-archive`, the events of the journal's archives (`.bmad/memory/archive/`,
//! oldest first) are candidates too, before the live journal's; without it, recall reads what
//! bmad-plus reads.
//!
//! Scoring never builds a map of the text's words: the text is tokenized in one pass and only
//! the query's tokens are counted.

pub mod bm25;
pub(crate) mod counter;
pub(crate) mod evidence;
pub mod hybrid;
pub(crate) mod lanes;
pub(crate) mod lexical;
pub mod score;
pub(crate) mod shared;

use std::fmt::Write;
use std::path::Path;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::number::to_fixed;
use crate::js::path::resolve;
use crate::js::text::{trim, truncate};
use crate::messages;
use crate::output::Report;
use lexical::lexical;
use score::{Ranking, Request, entry};

const DEFAULT_LIMIT: usize = 8;

/// Search the journal and the notes for the query's words.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RecallArgs {
    /// Words to look for (joined by one space).
    #[arg(value_name = "QUERY", allow_negative_numbers = true)]
    pub query: Vec<String>,
    /// Where to look: project (default) or portfolio (adds the --portfolio brain's memory/).
    #[arg(long, value_name = "project|portfolio", allow_hyphen_values = true)]
    pub scope: Option<String>,
    /// Portfolio brain folder, relative to the current directory (with --scope portfolio).
    #[arg(long, value_name = "path", allow_hyphen_values = true)]
    pub portfolio: Option<String>,
    /// Maximum number of results, a positive integer (default 8).
    #[arg(long, value_name = "n", allow_hyphen_values = true)]
    pub limit: Option<String>,
    /// lexical (default, as bmad-plus ranks); bm25: BM25F over stemmed words of every script,
    /// better at finding reworded ideas; hybrid: bm25 fused with a sentence-embedding model,
    /// best at finding ideas in other words (needs `bmad-mem model install`); evidence: boost
    /// notes backed by current accepted-outcome receipts.
    #[arg(
        long,
        value_name = "lexical|bm25|hybrid|evidence",
        allow_hyphen_values = true
    )]
    pub ranking: Option<String>,
    /// Comma-separated project paths the question is about (required with --ranking evidence).
    #[arg(
        long = "context-scope",
        value_name = "p1,p2,…",
        allow_hyphen_values = true
    )]
    pub context_scope: Option<String>,
    /// Also search the journal events moved into .bmad/memory/archive/ by `bmad-mem archive`
    /// (before the live journal's, oldest archive first).
    #[arg(long = "include-archive")]
    pub include_archive: bool,
}

impl Request {
    /// docs §5's checks, in order.
    ///
    /// # Errors
    /// The documented message of the first failing check.
    pub fn parse(args: &RecallArgs) -> Result<Self> {
        let query = args.query.join(" ");
        if trim(&query).is_empty() {
            return Err(Error::refused(messages::QUERY_REQUIRED));
        }
        let portfolio = match args.scope.as_deref() {
            None | Some("project") => false,
            Some("portfolio") => true,
            Some(other) => {
                return Err(Error::refused(messages::invalid_value("scope", other)));
            }
        };
        let ranking = match args.ranking.as_deref() {
            None | Some("lexical") => Ranking::Lexical,
            Some("evidence") => Ranking::Evidence,
            Some("bm25") => Ranking::Bm25,
            Some("hybrid") => Ranking::Hybrid,
            // The message predates bm25 and is kept word for word.
            Some(_) => {
                return Err(Error::refused(messages::RANKING_UNKNOWN));
            }
        };
        if ranking == Ranking::Evidence && portfolio {
            return Err(Error::refused(messages::EVIDENCE_PROJECT_ONLY));
        }
        let limit = match args.limit.as_deref() {
            None => DEFAULT_LIMIT,
            Some(text) => parse_limit(text)
                .ok_or_else(|| Error::refused(messages::invalid_value("limit", text)))?,
        };
        // Options that would be silently ignored are refused (bmad-plus ignores them), after
        // the checks whose messages bmad-plus pins. `--scope portfolio` alone stays accepted.
        if args.portfolio.is_some() && !portfolio {
            return Err(Error::refused(messages::PORTFOLIO_WITHOUT_SCOPE));
        }
        if args.context_scope.is_some() && ranking != Ranking::Evidence {
            return Err(Error::refused(messages::CONTEXT_SCOPE_WITHOUT_EVIDENCE));
        }
        if args.include_archive && matches!(ranking, Ranking::Bm25 | Ranking::Hybrid) {
            return Err(Error::refused(messages::ARCHIVE_WITH_BM25));
        }
        Ok(Self {
            query,
            portfolio,
            ranking,
            limit,
            include_archive: args.include_archive,
        })
    }
}

/// A positive integer (`+` allowed, surrounding whitespace allowed), saturating.
fn parse_limit(text: &str) -> Option<usize> {
    let t = trim(text);
    let digits = t.strip_prefix('+').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = digits.trim_start_matches('0').parse::<usize>().unwrap_or(
        if digits.bytes().all(|b| b == b'0') {
            0
        } else {
            usize::MAX
        },
    );
    (n > 0).then_some(n)
}

/// Runs a recall.
///
/// # Errors
/// Validation messages, read errors, and for evidence ranking the receipt store's errors.
pub fn run(args: &RecallArgs, ctx: &Context) -> Result<RecallReport> {
    let request = Request::parse(args)?;
    let portfolio = if request.portfolio {
        args.portfolio.as_deref()
    } else {
        None
    };
    if let Some(p) = portfolio {
        let dir = resolve(&ctx.cwd, Path::new(p));
        if !dir.is_dir() {
            return Err(Error::refused(messages::portfolio_not_a_folder(&dir)));
        }
    }
    let (results, warnings) = match request.ranking {
        Ranking::Lexical => {
            let found = lexical(ctx, &request, portfolio)?;
            let results = found
                .scored
                .into_iter()
                .map(|s| entry(s.score, s.candidate))
                .collect();
            (results, found.warnings)
        }
        Ranking::Evidence => (
            crate::actions::recall::evidence::recall(ctx, &request, args.context_scope.as_deref())?,
            Vec::new(),
        ),
        Ranking::Bm25 => crate::actions::recall::bm25::recall(ctx, &request, portfolio)?,
        Ranking::Hybrid => crate::actions::recall::hybrid::recall(ctx, &request, portfolio)?
            .map_err(|unavailable| {
                Error::refused(unavailable.message("recall --ranking hybrid"))
            })?,
    };
    Ok(RecallReport {
        query: request.query,
        scope: if request.portfolio {
            "portfolio"
        } else {
            "project"
        },
        ranking: request.ranking,
        results,
        warnings,
    })
}

/// The results of a recall.
#[derive(Debug)]
pub struct RecallReport {
    pub query: String,
    pub scope: &'static str,
    pub ranking: Ranking,
    pub results: Vec<Object>,
    /// One line for each file skipped; under `--json`, a last key present only when non-empty,
    /// so that an ordinary result keeps bmad-plus's bytes.
    pub warnings: Vec<String>,
}

impl Report for RecallReport {
    fn to_json(&self) -> Value {
        #[expect(
            clippy::cast_precision_loss,
            reason = "a result count is far below 2^53"
        )]
        let count = self.results.len() as f64;
        let mut result = Object::new()
            .with("query", self.query.as_str())
            .with("scope", self.scope)
            .with("ranking", self.ranking.name())
            .with("count", count)
            .with(
                "results",
                self.results
                    .iter()
                    .cloned()
                    .map(Value::Object)
                    .collect::<Vec<_>>(),
            );
        if !self.warnings.is_empty() {
            result = result.with(
                "warnings",
                self.warnings.iter().map(Value::from).collect::<Vec<_>>(),
            );
        }
        Value::Object(result)
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn render_human(&self) -> String {
        if self.results.is_empty() {
            return format!(
                "mem recall: no matches for \"{}\" (scope: {})\n",
                self.query, self.scope
            );
        }
        let mut out = format!(
            "mem recall: {} match(es) for \"{}\" (scope: {})\n",
            self.results.len(),
            self.query,
            self.scope
        );
        for (i, result) in self.results.iter().enumerate() {
            let text_of = |key: &str| result.get(key).map(Value::text).unwrap_or_default();
            let score = result.get("score").and_then(Value::as_f64).unwrap_or(0.0);
            let label = if text_of("kind") == "note" {
                format!("note {} § {}", text_of("source"), text_of("ref"))
            } else {
                format!("event {}#{}", text_of("source"), text_of("ref"))
            };
            let _ = write!(
                out,
                "  {}. [{}] {}\n     {}\n",
                i + 1,
                to_fixed(score, 3),
                label,
                truncate(&text_of("text"))
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_must_be_a_positive_integer() {
        assert_eq!(parse_limit("3"), Some(3));
        assert_eq!(parse_limit(" +12 "), Some(12));
        assert_eq!(parse_limit("99999999999999999999999"), Some(usize::MAX));
        for bad in ["0", "-3", "x", "", "1.5", "1e2", "000"] {
            assert_eq!(parse_limit(bad), None, "{bad:?}");
        }
    }
}
