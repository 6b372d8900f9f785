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
//!
//! Without `--ranking`, the ranking is `BMAD_MEM_RANKING`'s, else the project config's, else
//! lexical (`default_ranking`). Our rankings (bm25) show each decision's status and weigh it
//! ([`status`]), and take `--status`; bmad-plus's (lexical, evidence) refuse `--status`, and
//! their output never changes.

pub mod bm25;
pub(crate) mod counter;
pub(crate) mod evidence;
pub mod hybrid;
pub(crate) mod lanes;
pub(crate) mod lexical;
pub mod score;
pub(crate) mod shared;
pub mod status;

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
use crate::store::config::{self, RANKINGS};
use lexical::lexical;
use score::{Ranking, Request, entry};
use status::StatusFilter;

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
    /// bm25 is the better ranking: BM25F over stemmed words of every script, it finds reworded
    /// ideas and shows each decision's status, ranking those no longer in force lower. hybrid
    /// fuses bm25 with a sentence-embedding model and finds ideas put in other words best
    /// (needs `bmad-mem model install`). lexical ranks as bmad-plus does, byte for byte;
    /// evidence boosts the notes backed by current accepted-outcome receipts. Default:
    /// `BMAD_MEM_RANKING`, else the project config's "ranking" (.bmad/memory/config.json), else
    /// lexical.
    #[arg(
        long,
        value_name = "lexical|bm25|hybrid|evidence",
        allow_hyphen_values = true
    )]
    pub ranking: Option<String>,
    /// With --ranking bm25: all (default), or in-force to leave out the decisions that ended
    /// (superseded, abrogated, rolled back, rejected, deprecated) or are only proposed.
    #[arg(long, value_name = "in-force|all", allow_hyphen_values = true)]
    pub status: Option<String>,
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
    /// docs §5's checks, in order; lexical ranking when `--ranking` is not given.
    ///
    /// # Errors
    /// The documented message of the first failing check.
    pub fn parse(args: &RecallArgs) -> Result<Self> {
        Self::parse_or(args, Ranking::Lexical)
    }

    /// [`Request::parse`], with `default` the ranking when `--ranking` is not given.
    ///
    /// # Errors
    /// The documented message of the first failing check.
    pub fn parse_or(args: &RecallArgs, default: Ranking) -> Result<Self> {
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
            None => default,
            Some("lexical") => Ranking::Lexical,
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
        let status = match args.status.as_deref() {
            None => StatusFilter::All,
            Some(text) => {
                let filter = StatusFilter::parse(text)
                    .ok_or_else(|| Error::refused(messages::invalid_value("status", text)))?;
                // bmad-plus's rankings show no status: a filter on it is refused, even `all`.
                if matches!(ranking, Ranking::Lexical | Ranking::Evidence) {
                    return Err(Error::refused(messages::STATUS_WITH_BMAD_PLUS_RANKING));
                }
                filter
            }
        };
        Ok(Self {
            query,
            portfolio,
            ranking,
            limit,
            include_archive: args.include_archive,
            status,
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
    let (default, notices) = if args.ranking.is_some() {
        (Ranking::Lexical, Vec::new())
    } else {
        default_ranking(ctx)
    };
    let mut request = Request::parse_or(args, default)?;
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
        Ranking::Hybrid => {
            match crate::actions::recall::hybrid::recall(ctx, &request, portfolio)? {
                Ok(found) => found,
                // Asked for: refused, naming the install. Taken from a default: a teammate without
                // the model still recalls, with bm25.
                Err(unavailable) if args.ranking.is_some() => {
                    return Err(Error::refused(
                        unavailable.message("recall --ranking hybrid"),
                    ));
                }
                Err(unavailable) => {
                    request.ranking = Ranking::Bm25;
                    let (results, mut warnings) =
                        crate::actions::recall::bm25::recall(ctx, &request, portfolio)?;
                    warnings.insert(
                        0,
                        messages::hybrid_default_falls_back(&unavailable.reason()),
                    );
                    (results, warnings)
                }
            }
        }
    };
    let warnings = notices.into_iter().chain(warnings).collect();
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

/// The ranking a recall uses when `--ranking` is not given, and the warnings met finding it:
/// `BMAD_MEM_RANKING`, else the project config's `ranking`, else lexical (bmad-plus's). A value
/// that names no ranking is a warning and the next source decides; `hybrid`, which this build
/// does not have, is bm25 with a warning.
fn default_ranking(ctx: &Context) -> (Ranking, Vec<String>) {
    let mut warnings = Vec::new();
    let from_env = ctx.ranking_env.as_deref().and_then(|name| {
        let known = RANKINGS.contains(&name);
        if !known {
            warnings.push(messages::ranking_env_ignored(name, &RANKINGS));
        }
        known.then(|| name.to_owned())
    });
    let name = from_env.or_else(|| {
        let loaded = config::load(&ctx.root);
        warnings.extend(loaded.warnings);
        loaded.config.ranking
    });
    let ranking = match name.as_deref() {
        None | Some("lexical") => Ranking::Lexical,
        Some("evidence") => Ranking::Evidence,
        Some("bm25") => Ranking::Bm25,
        // A default of hybrid without the model is bm25, with a warning: `run` tells.
        Some(_) => Ranking::Hybrid,
    };
    (ranking, warnings)
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
            let mut label = if text_of("kind") == "note" {
                format!("note {} § {}", text_of("source"), text_of("ref"))
            } else {
                format!("event {}#{}", text_of("source"), text_of("ref"))
            };
            // Our rankings' additions: a decision's status, and the passage that matched
            // (bmad-plus's rankings have neither, and keep their bytes).
            if let Some(mark) = status::mark(result) {
                label.push(' ');
                label.push_str(&mark);
            }
            let shown = if result.contains_key("excerpt") {
                text_of("excerpt")
            } else {
                text_of("text")
            };
            let _ = write!(
                out,
                "  {}. [{}] {}\n     {}\n",
                i + 1,
                to_fixed(score, 3),
                label,
                truncate(&shown)
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
