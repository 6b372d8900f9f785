//! `reinforce`: fold reward signals into a pattern's score, and propose — never apply — its
//! promotion (docs §7).
//!
//! Each pattern keeps an Elo rating (start 1200, K = 32, played against a 1200 opponent) and a
//! Beta distribution (start α = β = 1) whose old evidence fades twice: by a 90-day half-life
//! between observations, then by ×0.98 at every update. When the Beta mean reaches 0.7 over at
//! least 3 updates, a promotion record with status `PROPOSED` is appended to
//! `promotions.ndjson`; nothing here can approve it.
//!
//! The whole read-modify-write runs under one hold of the writer lock, and nothing is written
//! until every check has passed: the promotions file is checked first, then the scores file is
//! rewritten atomically, then the promotion appended. An unparseable scores file restarts from
//! priors as bmad-plus does, but its bytes are first kept beside it and a warning names the copy.

use std::fmt::Write as _;
use std::io::Write;

use crate::actions::signals::{Acceptance, Ci, SignalArgs, Signals};
use crate::context::{Context, Now};
use crate::error::{Error, Result};
use crate::js::date::MS_PER_DAY;
use crate::js::json::{self, Object, Value, sha256_hex};
use crate::js::number::{number_text, to_fixed};
use crate::js::{date, math, text};
use crate::messages;
use crate::output::Report;
use crate::store::confined::{self, Target};
use crate::store::layout::{LOOSE_CAP, PROMOTIONS, SCORES};
use crate::store::lock::WriterLock;
use crate::store::paths::Skip;
use crate::store::{document, ndjson};

const PROMOTION_MEAN: f64 = 0.7;
const PROMOTION_UPDATES: f64 = 3.0;
const DECAY_HALF_LIFE_DAYS: f64 = 90.0;
const FORGETTING: f64 = 0.98;
const ELO_START: f64 = 1200.0;
const ELO_K: f64 = 32.0;

/// Record how a pattern fared; propose its promotion when its recent success rate is high.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ReinforceArgs {
    /// The pattern: its `###` heading in patterns.md (required).
    #[arg(long, value_name = "id", allow_hyphen_values = true)]
    pub pattern: Option<String>,
    #[command(flatten)]
    pub signals: SignalArgs,
    /// Comma-separated ids of what backs this claim (journal events, receipts), kept as given.
    #[arg(long, value_name = "id1,id2", allow_hyphen_values = true)]
    pub evidence: Option<String>,
}

/// docs §7's reward: the given signals' weighted mean, weights renormalized, in [0, 1].
#[must_use]
pub(crate) fn reward(signals: &Signals) -> f64 {
    let mut parts: Vec<(f64, f64)> = Vec::with_capacity(3);
    if let Some(eval) = signals.eval {
        parts.push((0.5, clamp01(eval)));
    }
    if let Some(acceptance) = signals.acceptance {
        let v = match acceptance {
            Acceptance::Bool(b) => f64::from(u8::from(b)),
            Acceptance::Number(n) => clamp01(n),
        };
        parts.push((0.3, v));
    }
    if let Some(ci) = signals.ci {
        let v = match ci {
            Ci::Pass => 1.0,
            Ci::Fail => 0.0,
            Ci::Number(n) => clamp01(n),
        };
        parts.push((0.2, v));
    }
    if parts.is_empty() {
        return 0.0;
    }
    let mut sum = 0.0;
    let mut weights = 0.0;
    for (w, v) in parts {
        sum += w * v;
        weights += w;
    }
    clamp01(sum / weights)
}

fn clamp01(x: f64) -> f64 {
    x.clamp(0.0, 1.0)
}

/// A pattern's score.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Score {
    pub elo: f64,
    pub alpha: f64,
    pub beta: f64,
    pub mean: f64,
    pub updates: f64,
    /// As stored: any JSON value; only a timestamp (docs §2.5) enables the time decay.
    pub last_ts: Value,
}

impl Score {
    /// The prior, overlaid with the numeric fields of `previous` (a field that is not a number
    /// keeps its prior value).
    #[must_use]
    pub(crate) fn from_previous(previous: Option<&Object>) -> Self {
        let number = |key: &str, prior: f64| {
            previous
                .and_then(|p| p.get(key))
                .and_then(Value::as_f64)
                .unwrap_or(prior)
        };
        Self {
            elo: number("elo", ELO_START),
            alpha: number("alpha", 1.0),
            beta: number("beta", 1.0),
            mean: number("mean", 0.5),
            updates: number("updates", 0.0),
            last_ts: previous
                .and_then(|p| p.get("lastTs"))
                .cloned()
                .unwrap_or(Value::Null),
        }
    }

    /// One update with reward `r` at `now` (docs §7, steps 1–4, evaluated left to right).
    #[must_use]
    pub(crate) fn update(&self, r: f64, now: &Now) -> Self {
        let mut alpha = self.alpha;
        let mut beta = self.beta;
        let last = match &self.last_ts {
            Value::Number(n) => Some(*n),
            Value::String(s) => date::parse_timestamp(s),
            _ => None,
        };
        if let Some(last) = last
            && now.ms > last
        {
            let f = math::pow(0.5, (now.ms - last) / MS_PER_DAY / DECAY_HALF_LIFE_DAYS);
            alpha = 1.0 + (alpha - 1.0) * f;
            beta = 1.0 + (beta - 1.0) * f;
        }
        alpha = 1.0 + (alpha - 1.0) * FORGETTING + r;
        beta = 1.0 + (beta - 1.0) * FORGETTING + (1.0 - r);
        let expected = 1.0 / (1.0 + math::pow(10.0, (ELO_START - self.elo) / 400.0));
        let elo = self.elo + ELO_K * (r - expected);
        Self {
            elo,
            alpha,
            beta,
            mean: alpha / (alpha + beta),
            updates: self.updates + 1.0,
            last_ts: Value::String(now.iso.clone()),
        }
    }

    /// The stored form, keys `elo, alpha, beta, mean, updates, lastTs`.
    #[must_use]
    pub(crate) fn to_object(&self) -> Object {
        Object::new()
            .with("elo", self.elo)
            .with("alpha", self.alpha)
            .with("beta", self.beta)
            .with("mean", self.mean)
            .with("updates", self.updates)
            .with("lastTs", self.last_ts.clone())
    }

    /// Whether this score earns a promotion proposal.
    #[must_use]
    pub(crate) fn is_promotable(&self) -> bool {
        self.mean >= PROMOTION_MEAN && self.updates >= PROMOTION_UPDATES
    }
}

/// The promotion proposal for `pattern` reaching `next` at `now`: always `PROPOSED`.
#[must_use]
pub(crate) fn promotion(pattern: &str, next: &Score, evidence: &[String], now: &Now) -> Object {
    let id =
        sha256_hex(format!("{pattern}\u{0}{}\u{0}validated", now.iso).as_bytes())[..12].to_owned();
    Object::new()
        .with("id", id)
        .with("patternId", pattern)
        .with("fromStatus", "candidate")
        .with("toStatus", "validated")
        .with(
            "reason",
            format!(
                "posterior mean {} >= 0.7 over {} update(s)",
                to_fixed(next.mean, 3),
                number_text(next.updates)
            ),
        )
        .with(
            "evidence",
            evidence.iter().map(Value::from).collect::<Vec<_>>(),
        )
        .with("score", next.to_object())
        .with("ts", now.iso.as_str())
        .with("status", "PROPOSED")
        .with("governedBy", "shield")
        .with("approvedBy", Value::Null)
        .with("approvedAt", Value::Null)
}

/// What a reinforcement did.
#[derive(Debug)]
pub(crate) struct ReinforceReport {
    pub pattern: String,
    pub signals: Signals,
    pub reward: f64,
    pub previous: Option<Object>,
    pub next: Score,
    pub promotion: Option<Object>,
    pub warnings: Vec<String>,
}

/// Validates, then updates the pattern's score under the writer lock.
///
/// # Errors
/// The `--pattern` and signal messages before the lock; lock, store and I/O errors after, with
/// nothing written.
pub(crate) fn run(args: &ReinforceArgs, ctx: &Context) -> Result<ReinforceReport> {
    let pattern = args.pattern.clone().unwrap_or_default();
    if text::trim(&pattern).is_empty() {
        return Err(Error::refused(messages::PATTERN_REQUIRED));
    }
    let signals = Signals::parse(&args.signals)?;
    let evidence: Vec<String> = args
        .evidence
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .map(|e| text::trim(e).to_owned())
        .filter(|e| !e.is_empty())
        .collect();
    let r = reward(&signals);

    let lock = WriterLock::acquire(&ctx.root)?;
    // Read through the memory folder's handle, never through a link swapped in meanwhile.
    // Skipping a file here would replace it with the new scores: a file the loose reader would
    // skip (not a regular file, over 64 MiB) is refused instead, and left as it is.
    let scores_file = confined::locate(&ctx.root, SCORES, false)?;
    let unreadable = |skip: Skip| Error::refused(messages::scores_unreadable(SCORES, skip));
    let stored = match scores_file.dir() {
        Some(dir) => match dir.read_bounded(scores_file.name(), LOOSE_CAP) {
            Err(Error::SourceNotRegular) => return Err(unreadable(Skip::NotRegular)),
            Err(Error::SourceTooLarge(size)) => return Err(unreadable(Skip::TooLarge(size))),
            other => other?,
        },
        None => None,
    };
    // Decoded from the bytes in place: they are kept as they are for a corrupt copy.
    let parsed = stored
        .as_deref()
        .map(|bytes| json::parse(&String::from_utf8_lossy(bytes)));
    let (mut scores, corrupt) = match parsed {
        None => (Object::new(), None),
        Some(Ok(Value::Object(scores))) => (scores, None),
        Some(_) => (Object::new(), stored.as_deref()),
    };
    let previous = scores.get(&pattern).and_then(Value::as_object).cloned();
    let next = Score::from_previous(previous.as_ref()).update(r, &ctx.now);
    let promotion = next
        .is_promotable()
        .then(|| promotion(&pattern, &next, &evidence, &ctx.now));
    let promotion_line = promotion.clone().map(|p| Value::Object(p).compact());
    let pending = promotion_line
        .as_ref()
        .map(|line| ndjson::prepare(&ctx.root, PROMOTIONS, line.len(), &lock))
        .transpose()?;

    let mut warnings = Vec::new();
    if let Some(bytes) = corrupt {
        let kept = keep_corrupt(&scores_file, bytes, &ctx.now)?;
        warnings.push(format!(
            "warning: {SCORES} was not a JSON object; its bytes were kept in {kept} and scores restart from priors"
        ));
    }
    scores.insert(pattern.clone(), next.to_object());
    document::write(&ctx.root, SCORES, &Value::Object(scores), &lock)?;
    if let (Some(pending), Some(line)) = (pending, promotion_line) {
        pending.write(&line)?;
    }
    drop(lock);
    Ok(ReinforceReport {
        pattern,
        signals,
        reward: r,
        previous,
        next,
        promotion,
        warnings,
    })
}

/// Copies the unparseable scores file to `pattern-scores.json.corrupt-<timestamp>` (never over
/// an existing file, never through a link: created exclusively relative to the handle of the
/// folder the scores were read from) and returns the copy's project-relative path.
fn keep_corrupt(scores: &Target, bytes: &[u8], now: &Now) -> Result<String> {
    let stamp = now.file_stamp();
    let dir = scores.require_dir("cannot create")?;
    let (suffix, mut file) = dir.create_aside(scores.name(), &format!(".corrupt-{stamp}"))?;
    let mut kept = scores.name().to_os_string();
    kept.push(&suffix);
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io("cannot write", &dir.path().join(&kept), e))?;
    Ok(format!("{SCORES}{suffix}"))
}

impl Report for ReinforceReport {
    fn to_json(&self) -> Value {
        let mut result = Object::new()
            .with("patternId", self.pattern.as_str())
            .with("reward", self.reward)
            .with("previous", self.previous.clone())
            .with("next", self.next.to_object())
            .with("promotion", self.promotion.clone())
            .with("evidenceStatus", "self-reported")
            .with("rankingEligible", false);
        if !self.warnings.is_empty() {
            result.insert(
                "warnings",
                self.warnings.iter().map(Value::from).collect::<Vec<_>>(),
            );
        }
        Value::Object(result)
    }

    fn render_human(&self) -> String {
        let previous_elo = Score::from_previous(self.previous.as_ref()).elo;
        let mut out = format!(
            "mem reinforce: pattern \"{}\"\n  reward   {} (from {})\n  elo      {} -> {}\n  mean     {} (alpha={}, beta={}, updates={})\n",
            self.pattern,
            to_fixed(self.reward, 3),
            Value::Object(self.signals.to_object()).compact(),
            to_fixed(previous_elo, 1),
            to_fixed(self.next.elo, 1),
            to_fixed(self.next.mean, 3),
            to_fixed(self.next.alpha, 2),
            to_fixed(self.next.beta, 2),
            number_text(self.next.updates),
        );
        match &self.promotion {
            Some(p) => {
                let _ = write!(
                    out,
                    "  promotion PROPOSED ({}): candidate -> validated\n  awaiting human/Shield approval — never auto-applied (governance guard)\n",
                    p.get("id").map(Value::text).unwrap_or_default()
                );
            }
            None => {
                out.push_str("  promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n");
            }
        }
        out
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn written(&self) -> Option<String> {
        let mut written = format!("score of pattern \"{}\" updated", self.pattern);
        if let Some(p) = &self.promotion {
            let id = p.get("id").map(Value::text).unwrap_or_default();
            let _ = write!(written, " and promotion {id} appended");
        }
        Some(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signals(eval: Option<&str>, accept: Option<&str>, ci: Option<&str>) -> Signals {
        Signals::parse(&SignalArgs {
            eval: eval.map(str::to_owned),
            accept: accept.map(str::to_owned),
            ci: ci.map(str::to_owned),
        })
        .unwrap()
    }

    #[test]
    fn reward_renormalizes_the_given_weights() {
        assert_eq!(reward(&signals(None, Some("true"), Some("pass"))), 1.0);
        assert_eq!(reward(&signals(None, None, None)), 0.0);
        assert_eq!(reward(&signals(None, None, Some("fail"))), 0.0);
        assert_eq!(reward(&signals(Some("0.8"), None, None)), 0.8);
        // (0 + 0.5·0.6 + 0.3·0 + 0.2·1) / (0.5 + 0.3 + 0.2), as node computes it.
        assert_eq!(reward(&signals(Some("0.6"), Some("no"), Some("pass"))), 0.5);
        assert_eq!(
            reward(&signals(Some("0.3"), Some("0.7"), None)),
            (0.5 * 0.3 + 0.3 * 0.7) / (0.5 + 0.3)
        );
    }

    #[test]
    fn the_product_page_example_holds() {
        let now = Now::parse("2026-10-18T09:30:00.000Z").unwrap();
        let next = Score::from_previous(None).update(1.0, &now);
        assert_eq!(
            (next.elo, next.alpha, next.beta, next.updates),
            (1216.0, 2.0, 1.0, 1.0)
        );
        assert_eq!(to_fixed(next.mean, 3), "0.667");
        assert!(!next.is_promotable());
    }

    #[test]
    fn non_numeric_fields_fall_back_to_the_prior() {
        let previous =
            json::parse(r#"{"elo":"high","alpha":3,"beta":null,"updates":2,"lastTs":5}"#).unwrap();
        let score = Score::from_previous(previous.as_object());
        assert_eq!(
            (
                score.elo,
                score.alpha,
                score.beta,
                score.updates,
                score.last_ts.clone()
            ),
            (1200.0, 3.0, 1.0, 2.0, Value::Number(5.0))
        );
    }

    proptest::proptest! {
        #[test]
        fn scores_stay_in_range_and_elo_moves_toward_the_reward(
            rewards in proptest::collection::vec(0.0f64..=1.0, 1..30),
            gaps in proptest::collection::vec(0u32..400, 30),
        ) {
            let mut ms = 1_792_315_800_000.0;
            let mut score = Score::from_previous(None);
            for (i, r) in rewards.iter().enumerate() {
                ms += f64::from(gaps[i]) * MS_PER_DAY / 4.0;
                let next = score.update(*r, &Now::from_ms(ms));
                proptest::prop_assert!(next.alpha >= 1.0 && next.beta >= 1.0);
                proptest::prop_assert!(next.mean > 0.0 && next.mean < 1.0);
                let expected = 1.0 / (1.0 + math::pow(10.0, (ELO_START - score.elo) / 400.0));
                if *r > expected {
                    proptest::prop_assert!(next.elo >= score.elo);
                } else {
                    proptest::prop_assert!(next.elo <= score.elo);
                }
                score = next;
            }
        }

        #[test]
        fn reward_is_in_the_unit_interval(
            eval in proptest::option::of(0.0f64..=1.0),
            accept in proptest::option::of(0.0f64..=1.0),
            ci in proptest::option::of(0.0f64..=1.0),
        ) {
            let s = Signals {
                eval,
                acceptance: accept.map(Acceptance::Number),
                ci: ci.map(Ci::Number),
            };
            let r = reward(&s);
            proptest::prop_assert!((0.0..=1.0).contains(&r));
        }

        #[test]
        fn an_all_success_stream_proposes_first_at_the_third_update(gap_days in 0u32..30) {
            let mut score = Score::from_previous(None);
            let mut ms = 1_792_315_800_000.0;
            for update in 1..=5 {
                score = score.update(1.0, &Now::from_ms(ms));
                proptest::prop_assert_eq!(score.is_promotable(), update >= 3);
                ms += f64::from(gap_days) * MS_PER_DAY;
            }
        }
    }
}
