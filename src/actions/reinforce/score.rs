//! A pattern's score and how one reinforcement moves it (docs §7): the reward of the given
//! signals, the Elo rating and the Beta distribution with its two kinds of forgetting, and the
//! promotion threshold. Pure: no I/O, no clock — the instant is a parameter, so that `reinforce`
//! and the replay of its records (`records`, the merge driver, `doctor`) share one copy of the
//! arithmetic, evaluated left to right as bmad-plus evaluates it.

use crate::actions::signals::{Acceptance, Ci, Signals};
use crate::context::Now;
use crate::js::date::MS_PER_DAY;
use crate::js::json::{Object, Value};
use crate::js::{date, math};

const PROMOTION_MEAN: f64 = 0.7;
const PROMOTION_UPDATES: f64 = 3.0;
const DECAY_HALF_LIFE_DAYS: f64 = 90.0;
const FORGETTING: f64 = 0.98;
const ELO_START: f64 = 1200.0;
const ELO_K: f64 = 32.0;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::signals::SignalArgs;
    use crate::js::json;
    use crate::js::number::to_fixed;

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
