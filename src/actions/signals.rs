//! Reward signals as given on the command line (`--eval`, `--accept`, `--ci`), shared by
//! `write` and `reinforce` (docs §6, §7, §10).
//!
//! Numbers must be plain decimals — optional sign, digits with an optional fraction or a
//! fraction alone, optional exponent, surrounding whitespace allowed — finite and within
//! [0, 1]; anything else is refused with `invalid value for --<option>: <text>` (bmad-plus
//! stores `null` or the raw number instead). Nothing here is measured: signals are what the
//! caller declares.

use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::text;
use crate::messages;

/// The three signal options, as clap collects them.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SignalArgs {
    /// Evaluation score, a number in [0, 1].
    #[arg(long = "eval", value_name = "0..1", allow_hyphen_values = true)]
    pub eval: Option<String>,
    /// Whether the work was accepted: true, false, yes, no, or a number in [0, 1].
    #[arg(
        long = "accept",
        value_name = "true|false|yes|no|0..1",
        allow_hyphen_values = true
    )]
    pub accept: Option<String>,
    /// Continuous-integration result: pass, fail, or a number in [0, 1].
    #[arg(long = "ci", value_name = "pass|fail|0..1", allow_hyphen_values = true)]
    pub ci: Option<String>,
}

/// Acceptance: a yes/no or a degree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Acceptance {
    Bool(bool),
    Number(f64),
}

/// CI result: the words `pass`/`fail`, kept as text, or a degree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Ci {
    Pass,
    Fail,
    Number(f64),
}

/// The signals given, validated.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Signals {
    pub eval: Option<f64>,
    pub acceptance: Option<Acceptance>,
    pub ci: Option<Ci>,
}

impl Signals {
    /// Validates the three options, in the order eval, accept, ci.
    ///
    /// # Errors
    /// `invalid value for --<option>: <text>` for the first invalid one.
    pub(crate) fn parse(args: &SignalArgs) -> Result<Self> {
        let eval = args
            .eval
            .as_deref()
            .map(|v| unit_number(v).ok_or_else(|| invalid("eval", v)))
            .transpose()?;
        let acceptance = args
            .accept
            .as_deref()
            .map(|v| match v.to_lowercase().as_str() {
                "true" | "yes" => Ok(Acceptance::Bool(true)),
                "false" | "no" => Ok(Acceptance::Bool(false)),
                _ => unit_number(v)
                    .map(Acceptance::Number)
                    .ok_or_else(|| invalid("accept", v)),
            })
            .transpose()?;
        let ci = args
            .ci
            .as_deref()
            .map(|v| match v {
                "pass" => Ok(Ci::Pass),
                "fail" => Ok(Ci::Fail),
                _ => unit_number(v)
                    .map(Ci::Number)
                    .ok_or_else(|| invalid("ci", v)),
            })
            .transpose()?;
        Ok(Self {
            eval,
            acceptance,
            ci,
        })
    }

    /// The `signals` object, only the signals given, keys `evalScore`, `acceptance`, `ci`.
    #[must_use]
    pub(crate) fn to_object(self) -> Object {
        self.to_object_with_eval_key("evalScore")
    }

    /// The `signals` object with the evaluation under `eval_key` (the reinforcement records
    /// name it `eval`, as the option).
    #[must_use]
    pub(crate) fn to_object_with_eval_key(self, eval_key: &str) -> Object {
        let mut object = Object::new();
        if let Some(eval) = self.eval {
            object.insert(eval_key, eval);
        }
        if let Some(acceptance) = self.acceptance {
            object.insert(
                "acceptance",
                match acceptance {
                    Acceptance::Bool(b) => Value::Bool(b),
                    Acceptance::Number(n) => Value::Number(n),
                },
            );
        }
        if let Some(ci) = self.ci {
            object.insert(
                "ci",
                match ci {
                    Ci::Pass => Value::from("pass"),
                    Ci::Fail => Value::from("fail"),
                    Ci::Number(n) => Value::Number(n),
                },
            );
        }
        object
    }
}

fn invalid(option: &str, text: &str) -> Error {
    Error::refused(messages::invalid_value(option, text))
}

/// A plain decimal number within [0, 1], or `None`.
fn unit_number(text: &str) -> Option<f64> {
    let t = text::trim(text);
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], Some(&unsigned[i + 1..])),
        None => (unsigned, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = all_digits(int)
        && all_digits(frac)
        && (!int.is_empty() || !frac.is_empty())
        && !(int.is_empty() && mantissa.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
        !digits.is_empty() && all_digits(digits)
    });
    if !mantissa_ok || !exponent_ok {
        return None;
    }
    let value: f64 = t.parse().ok()?;
    (value.is_finite() && (0.0..=1.0).contains(&value)).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn number(text: &str, expected: Option<f64>) {
        assert_eq!(unit_number(text), expected, "{text:?}");
    }

    #[test]
    fn decimal_numbers_in_the_unit_interval() {
        number("0", Some(0.0));
        number("1", Some(1.0));
        number("0.5", Some(0.5));
        number(".5", Some(0.5));
        number("1.", Some(1.0));
        number("+0.25", Some(0.25));
        number(" 0.75\t", Some(0.75));
        number("5e-1", Some(0.5));
        number("0.1E+1", Some(1.0));
        number("-0", Some(-0.0));
        for bad in [
            "", " ", "abc", "0x1", "Infinity", "NaN", "1.5", "-0.1", "PASS", ".", "e1", "1e",
            "1e+", "--1", "1 0", "0,5", "inf",
        ] {
            number(bad, None);
        }
    }

    #[test]
    fn signals_parse_and_serialize_in_order() {
        let args = SignalArgs {
            eval: Some("0.9".into()),
            accept: Some("YES".into()),
            ci: Some("pass".into()),
        };
        let signals = Signals::parse(&args).unwrap();
        assert_eq!(
            Value::Object(signals.to_object()).compact(),
            r#"{"evalScore":0.9,"acceptance":true,"ci":"pass"}"#
        );
        let only_ci = SignalArgs {
            ci: Some("0.5".into()),
            ..SignalArgs::default()
        };
        assert_eq!(
            Value::Object(Signals::parse(&only_ci).unwrap().to_object()).compact(),
            r#"{"ci":0.5}"#
        );
    }

    #[test]
    fn invalid_signals_name_their_option() {
        let cases = [
            (
                SignalArgs {
                    eval: Some("abc".into()),
                    ..Default::default()
                },
                "invalid value for --eval: abc",
            ),
            (
                SignalArgs {
                    eval: Some("1.5".into()),
                    ..Default::default()
                },
                "invalid value for --eval: 1.5",
            ),
            (
                SignalArgs {
                    accept: Some("2".into()),
                    ..Default::default()
                },
                "invalid value for --accept: 2",
            ),
            (
                SignalArgs {
                    ci: Some("maybe".into()),
                    ..Default::default()
                },
                "invalid value for --ci: maybe",
            ),
            (
                SignalArgs {
                    ci: Some("PASS".into()),
                    ..Default::default()
                },
                "invalid value for --ci: PASS",
            ),
        ];
        for (args, message) in cases {
            assert_eq!(Signals::parse(&args).unwrap_err().to_string(), message);
        }
    }
}
