//! JavaScript number-to-text conversions: `String(x)` (which is also how
//! `JSON.stringify` writes a finite number) and `Number.prototype.toFixed`.
//!
//! This module owns every place where a `f64` becomes text that must match
//! what Node.js prints, byte for byte.
//!
//! * [`number_text`] / [`write_number`] implement ECMAScript
//!   `Number::toString(x)`: the shortest digit string that reads back as `x`,
//!   plain notation for `1e-7 <= |x| < 1e21` (`0.000001`,
//!   `123456789012345680000`), exponent notation otherwise (`1e-7`, `1e+21`,
//!   `5e-324`), `-0` written as `0`. The digits come from the `ryu-js` crate,
//!   which implements exactly this algorithm.
//! * Non-finite values give JavaScript's `NaN`, `Infinity` and `-Infinity`.
//!   That is what `String(x)` does; `JSON.stringify` writes `null` instead,
//!   and JSON writers must map non-finite numbers to `null` themselves before
//!   calling into this module.
//! * [`to_fixed`] implements `x.toFixed(digits)`: the *exact* binary value of
//!   `x` rounded to `digits` decimals, halfway cases away from zero
//!   (`0.125.toFixed(2)` is `"0.13"`, while `1.005.toFixed(2)` is `"1.00"`
//!   because the double nearest 1.005 lies below it). Rust's `{:.N}` rounds
//!   ties to even, so it is used here only to write the exact expansion.
//!
//! Invariants: the functions are pure and total on `f64` (apart from the
//! documented `digits <= 100` precondition of [`to_fixed`]), and never depend
//! on the locale.

/// `String(x)` in JavaScript; the text `JSON.stringify` writes for a finite
/// `x`.
///
/// Non-finite values give `"NaN"`, `"Infinity"` or `"-Infinity"`, as
/// `String(x)` does; JSON writers must write `null` for them instead.
#[must_use]
pub(crate) fn number_text(x: f64) -> String {
    ryu_js::Buffer::new().format(x).to_owned()
}

/// Appends [`number_text`]`(x)` to `out`, formatting on the stack (no
/// allocation beyond growing `out`).
pub(crate) fn write_number(out: &mut String, x: f64) {
    out.push_str(ryu_js::Buffer::new().format(x));
}

/// `x.toFixed(digits)` in JavaScript.
///
/// Rounds the exact value of `x` to `digits` decimals, halfway cases away from
/// zero, and writes it without exponent. A negative `x` keeps its sign even
/// when the result is zero (`(-0.0001).toFixed(3)` is `"-0.000"`), but `-0`
/// gives `"0.00"`. For `|x| >= 1e21`, and for infinities, the result is
/// [`number_text`]`(x)`; NaN gives `"NaN"`.
///
/// # Panics
///
/// Panics if `digits > 100`, where JavaScript throws a `RangeError`.
#[must_use]
pub(crate) fn to_fixed(x: f64, digits: usize) -> String {
    assert!(
        digits <= 100,
        "to_fixed: digits must be between 0 and 100, got {digits}"
    );
    if x.is_nan() {
        return "NaN".to_owned();
    }
    if x.abs() >= 1e21 {
        return number_text(x);
    }
    let magnitude = x.abs();
    let exact_digits = exact_fraction_digits(magnitude);
    let sign = if x < 0.0 { "-" } else { "" };
    if exact_digits <= digits {
        // Nothing to round: `{:.N}` pads the exact expansion with zeros.
        return format!("{sign}{magnitude:.digits$}");
    }

    // The exact expansion, with more fraction digits than wanted.
    let exact = format!("{magnitude:.exact_digits$}");
    let point = exact.find('.').unwrap_or(exact.len());
    let keep = if digits == 0 {
        point
    } else {
        point + 1 + digits
    };
    let mut kept = exact.as_bytes()[..keep].to_vec();
    // The rest is at least half a unit in the last kept place exactly when
    // its first digit is 5 or more; then round away from zero.
    if exact.as_bytes()[point + 1 + digits] >= b'5' {
        increment_decimal(&mut kept);
    }
    let mut out = String::with_capacity(sign.len() + kept.len());
    out.push_str(sign);
    out.extend(kept.iter().map(|&b| char::from(b)));
    out
}

/// The number of fraction digits in the exact decimal expansion of the
/// finite, non-negative `x`: `max(0, -e)` where `x = m * 2^e` with `m` odd.
fn exact_fraction_digits(x: f64) -> usize {
    let bits = x.to_bits();
    let mantissa = bits & ((1_u64 << 52) - 1);
    let biased_exponent = (bits >> 52) & 0x7ff;
    let (significand, exponent) = if biased_exponent == 0 {
        (mantissa, -1074_i64)
    } else {
        #[expect(
            clippy::cast_possible_wrap,
            reason = "an 11-bit field always fits in i64"
        )]
        let exponent = biased_exponent as i64 - 1075;
        (mantissa | (1_u64 << 52), exponent)
    };
    if significand == 0 {
        return 0;
    }
    let exponent = exponent + i64::from(significand.trailing_zeros());
    usize::try_from(-exponent).unwrap_or(0)
}

/// Adds one unit in the last place to a decimal numeral written with ASCII
/// digits and at most one `.`, carrying to the left (`"9.99"` → `"10.00"`).
fn increment_decimal(numeral: &mut Vec<u8>) {
    for byte in numeral.iter_mut().rev() {
        match *byte {
            b'.' => {}
            b'9' => *byte = b'0',
            _ => {
                *byte += 1;
                return;
            }
        }
    }
    numeral.insert(0, b'1');
}

// Reads what only the repository has (docs: build.rs).
#[cfg(test)]
#[cfg(repository)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const VECTORS: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/vectors/numbers.json"
    ));

    fn vector_rows(key: &str) -> Vec<serde_json::Value> {
        let doc: serde_json::Value = serde_json::from_str(VECTORS).expect("numbers.json parses");
        let rows = doc[key].as_array().expect("an array of rows").clone();
        assert!(!rows.is_empty(), "{key} has rows");
        rows
    }

    fn parse_double(value: &serde_json::Value) -> f64 {
        let text = value.as_str().expect("a double written as text");
        text.parse()
            .unwrap_or_else(|e| panic!("{text:?} is not a double: {e}"))
    }

    #[test]
    fn tostring_vectors() {
        for row in vector_rows("tostring") {
            let x = parse_double(&row[0]);
            let want = row[1].as_str().expect("JSON text column");
            assert_eq!(number_text(x), want, "number_text({x:e})");
            let mut out = String::from("[");
            write_number(&mut out, x);
            assert_eq!(out, format!("[{want}"), "write_number({x:e})");
        }
    }

    #[test]
    fn fixed_vectors() {
        for row in vector_rows("fixed") {
            let x = parse_double(&row[0]);
            let digits =
                usize::try_from(row[1].as_u64().expect("digits column")).expect("digits fit usize");
            let want = row[2].as_str().expect("toFixed column");
            assert_eq!(to_fixed(x, digits), want, "to_fixed({x:e}, {digits})");
        }
    }

    #[track_caller]
    fn case(x: f64, want: &str) {
        assert_eq!(number_text(x), want, "number_text({x:e})");
        let mut out = String::new();
        write_number(&mut out, x);
        assert_eq!(out, want, "write_number({x:e})");
    }

    /// Expected values from `node -e 'String(x)'`.
    #[test]
    fn text_edge_cases() {
        let rows: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (1e21, "1e+21"),
            (-1e21, "-1e+21"),
            (999_999_999_999_999_900_000.0, "999999999999999900000"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.000_001, "0.000001"),
            (-0.000_001_5, "-0.0000015"),
            (123e-20, "1.23e-18"),
            (5e-324, "5e-324"),
            (-5e-324, "-5e-324"),
            (2.225_073_858_507_201e-308, "2.225073858507201e-308"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (f64::EPSILON, "2.220446049250313e-16"),
            (9_007_199_254_740_993.0, "9007199254740992"),
            (0.1 + 0.2, "0.30000000000000004"),
            (100.0, "100"),
            (1e20, "100000000000000000000"),
            (1.5, "1.5"),
            (-1.5, "-1.5"),
            (123_456.789, "123456.789"),
            (2e-7, "2e-7"),
            (1.797_693_134_862_315_7e300, "1.7976931348623156e+300"),
        ];
        for &(x, want) in rows {
            case(x, want);
        }
    }

    #[track_caller]
    fn fixed_case(x: f64, digits: usize, want: &str) {
        assert_eq!(to_fixed(x, digits), want, "to_fixed({x:e}, {digits})");
    }

    /// Expected values from `node -e 'x.toFixed(digits)'`.
    #[test]
    fn fixed_edge_cases() {
        let rows: &[(f64, usize, &str)] = &[
            (0.125, 2, "0.13"),
            (-0.125, 2, "-0.13"),
            (0.375, 2, "0.38"),
            (2.5, 0, "3"),
            (-2.5, 0, "-3"),
            (0.5, 0, "1"),
            (1.5, 0, "2"),
            (0.49, 0, "0"),
            (1.005, 2, "1.00"),
            (1.45, 1, "1.4"),
            (8.345, 2, "8.35"),
            (1e-10, 2, "0.00"),
            (-1e-10, 2, "-0.00"),
            (-0.0001, 3, "-0.000"),
            (-0.0, 2, "0.00"),
            (0.0, 0, "0"),
            (-0.0, 0, "0"),
            (-0.4, 0, "-0"),
            (9.995, 2, "9.99"),
            (9.9951, 2, "10.00"),
            (99.5, 0, "100"),
            (-99.5, 0, "-100"),
            (0.1, 20, "0.10000000000000000555"),
            (
                0.1,
                100,
                "0.1000000000000000055511151231257827021181583404541015625000000000000000000000000000000000000000000000",
            ),
            (
                5e-324,
                100,
                "0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
            ),
            (1.797_693_134_862_315_7e308, 2, "1.7976931348623157e+308"),
            (1e21, 2, "1e+21"),
            (-1e21, 2, "-1e+21"),
            (999_999_999_999_999_900_000.0, 2, "999999999999999868928.00"),
            (123_456_789_012_345_680_000.0, 0, "123456789012345683968"),
            (f64::NAN, 2, "NaN"),
            (f64::INFINITY, 2, "Infinity"),
            (f64::NEG_INFINITY, 2, "-Infinity"),
            (1216.0, 2, "1216.00"),
            (0.000_001, 7, "0.0000010"),
            (1e-7, 7, "0.0000001"),
            (0.000_000_05, 7, "0.0000000"), // just below the half
            (0.000_000_049_999, 7, "0.0000000"),
            (4.35, 1, "4.3"),
            (4.35, 20, "4.34999999999999964473"),
            (2.0_f64.powi(-20), 20, "0.00000095367431640625"),
            (2.0_f64.powi(-20), 19, "0.0000009536743164063"),
            (-(2.0_f64.powi(-20)), 19, "-0.0000009536743164063"),
            (9_007_199_254_740_993.0, 1, "9007199254740992.0"),
        ];
        for &(x, digits, want) in rows {
            fixed_case(x, digits, want);
        }
    }

    #[test]
    fn fixed_of_a_large_integer_with_many_digits() {
        // Node: (-3.553457842918724e20).toFixed(18); its digits times 10^18 pass 2^128.
        assert_eq!(
            to_fixed(-3.553457842918724e20, 18),
            "-355345784291872407552.000000000000000000"
        );
    }

    #[test]
    #[should_panic(expected = "digits must be between 0 and 100")]
    fn fixed_rejects_more_than_100_digits() {
        let _ = to_fixed(1.0, 101);
    }

    /// `toFixed` for `|x| < 1e21` and `digits <= 20` by integer arithmetic:
    /// with `|x| = m * 2^e`, round `m * 10^digits * 2^e` to an integer, ties
    /// up, then put the decimal point back. `m * 10^20 < 2^120` fits a `u128`;
    /// an `x` with `e >= 0` is an integer, written with zeros after the point.
    fn reference_to_fixed(x: f64, digits: usize) -> String {
        assert!(x.abs() < 1e21 && digits <= 20);
        let bits = x.abs().to_bits();
        let biased = i32::try_from(bits >> 52).expect("sign bit cleared");
        let fraction = u128::from(bits & ((1 << 52) - 1));
        let (m, e) = if biased == 0 {
            (fraction, -1074)
        } else {
            (fraction | (1 << 52), biased - 1075)
        };
        let sign = if x < 0.0 { "-" } else { "" };
        if e >= 0 {
            // An integer below 1e21 < 2^70: its digits, then zeros (`m * 10^digits * 2^e`
            // itself can pass 2^128).
            let zeros = "0".repeat(digits);
            let point = if digits == 0 { "" } else { "." };
            return format!("{sign}{}{point}{zeros}", m << e);
        }
        let scaled = m * 10_u128.pow(u32::try_from(digits).expect("small"));
        let units = {
            let shift = e.unsigned_abs();
            if shift >= 128 {
                0 // scaled < 2^120 <= half of 2^shift
            } else {
                let quotient = scaled >> shift;
                let remainder = scaled - (quotient << shift);
                quotient + u128::from(remainder >= 1 << (shift - 1))
            }
        };
        let padded = format!("{units:0>width$}", width = digits + 1);
        let (int, frac) = padded.split_at(padded.len() - digits);
        if digits == 0 {
            format!("{sign}{int}")
        } else {
            format!("{sign}{int}.{frac}")
        }
    }

    /// Doubles of every magnitude where `toFixed` writes plain digits.
    fn plain_doubles() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>().prop_filter("finite, below 1e21", |x| x.is_finite() && x.abs() < 1e21),
            (-1e6_f64..1e6),
            // Exact halves, quarters, …: the halfway cases.
            (-1_000_000_i32..1_000_000, 1_u32..12)
                .prop_map(|(n, shift)| f64::from(n) / f64::from(1_u32 << shift)),
        ]
    }

    proptest! {
        /// Agrees with an independent integer-arithmetic reference.
        #[test]
        fn fixed_matches_reference(x in plain_doubles(), digits in 0_usize..=20) {
            prop_assert_eq!(to_fixed(x, digits), reference_to_fixed(x, digits));
        }

        /// The result has the requested shape and lies within half a unit in
        /// its last place of `x`.
        #[test]
        fn fixed_is_close(x in plain_doubles(), digits in 0_usize..=15) {
            let text = to_fixed(x, digits);
            let fraction = text.split_once('.').map_or("", |(_, f)| f);
            prop_assert_eq!(fraction.len(), digits);
            prop_assert_eq!(text.starts_with('-'), x < 0.0);
            let value: f64 = text.parse().expect("to_fixed output parses");
            let half_unit = 0.5 * 10_f64.powi(-i32::try_from(digits).expect("small"));
            // Slack for the two roundings to f64 (of `value` and `half_unit`).
            let slack = 4.0 * f64::EPSILON * x.abs().max(half_unit);
            prop_assert!((value - x).abs() <= half_unit + slack, "{} vs {}", text, x);
        }

        /// `number_text` reads back as the same double.
        #[test]
        fn text_round_trips(x in any::<f64>().prop_filter("finite", |x| x.is_finite())) {
            let text = number_text(x);
            let back: f64 = text.parse().expect("number_text output parses");
            // `-0` is written "0"; adding +0 turns -0 into +0 and nothing else.
            prop_assert_eq!(back.to_bits(), (x + 0.0).to_bits());
        }
    }
}
