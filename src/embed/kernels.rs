//! The element-wise functions of the forward pass, written so that the compiler vectorizes
//! them (no branch per element): `exp` for the attention's softmax, `erf` for the exact GELU,
//! and layer normalization. Matrix products are `ndarray`'s (matrixmultiply: AVX2 and FMA when
//! the processor has them, found at run time).

/// `e^x` for `x ≤ 0` (the softmax subtracts each row's maximum first), within 2 ulp:
/// `x = n·ln 2 + r` with `|r| ≤ ln 2 / 2`, Cephes' degree-6 polynomial for `e^r`, and `2^n`
/// put in the exponent bits. Below −87.3 (where `e^x` leaves the normal floats) it gives the
/// smallest normal float instead of a subnormal, which a softmax cannot tell apart from 0.
#[must_use]
pub fn exp_nonpositive(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Adding and taking away 1.5 · 2^23 rounds to the nearest integer.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.3, 0.0);
    let n = (x * LOG2E + ROUND) - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let mut p = 1.987_569_1e-4_f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    let er = p * r * r + r + 1.0;
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "n is an integer in [-126, 0], so n + 127 is in [1, 127]"
    )]
    let scale = f32::from_bits(((n + 127.0) as u32) << 23);
    er * scale
}

/// The error function, within 5e-7 of the exact value: a rational function of degree 13/8
/// fitted on [−4, 4] (outside, `erf` is ±1 in single precision).
#[must_use]
pub fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = -2.726_142_3e-10_f32;
    p = p * x2 + 2.770_681_4e-8;
    p = p * x2 - 2.101_024e-6;
    p = p * x2 - 5.692_506_4e-5;
    p = p * x2 - 7.349_906_3e-4;
    p = p * x2 - 2.954_600_1e-3;
    p = p * x2 - 1.609_603_3e-2;
    let mut q = -1.456_607_2e-5_f32;
    q = q * x2 - 2.133_740_6e-4;
    q = q * x2 - 1.682_827e-3;
    q = q * x2 - 7.373_329_2e-3;
    q = q * x2 - 1.426_473_9e-2;
    x * p / q
}

/// BERT's GELU, the exact form: `x · (1 + erf(x / √2)) / 2`, in place.
pub fn gelu(values: &mut [f32]) {
    for v in values {
        *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// Softmax of one row, in place.
pub fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in row.iter_mut() {
        *v = exp_nonpositive(*v - max);
        sum += *v;
    }
    let inverse = 1.0 / sum;
    for v in row {
        *v *= inverse;
    }
}

/// Layer normalization of each row of `rows` (of `gain.len()` values), in place: mean 0,
/// variance 1 (the biased variance, plus `epsilon`), then scaled and shifted.
pub fn layer_norm(rows: &mut [f32], (gain, bias): (&[f32], &[f32]), epsilon: f32) {
    let width = gain.len();
    #[expect(clippy::cast_precision_loss, reason = "a width is far below 2^24")]
    let n = width as f32;
    for row in rows.chunks_exact_mut(width) {
        let mean = row.iter().sum::<f32>() / n;
        let variance = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
        let inverse = 1.0 / (variance + epsilon).sqrt();
        for ((v, g), b) in row.iter_mut().zip(gain).zip(bias) {
            *v = (*v - mean) * inverse * g + b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_within_two_ulp_of_the_exact_value() {
        let mut worst = 0f64;
        for i in 0..=200_000 {
            let x = -87.0 * f64::from(i) / 200_000.0;
            #[expect(clippy::cast_possible_truncation, reason = "a test input")]
            let x = x as f32;
            let exact = f64::from(x).exp();
            let got = f64::from(exp_nonpositive(x));
            worst = worst.max(((got - exact) / exact).abs());
        }
        assert!(worst < 2.5e-7, "{worst}");
        assert_eq!(exp_nonpositive(0.0), 1.0);
        assert!(exp_nonpositive(-1000.0) < 1e-37);
        assert!(exp_nonpositive(f32::NEG_INFINITY) < 1e-37);
    }

    #[test]
    fn erf_is_within_5e_7_of_the_exact_value() {
        // erf(x) for x = 0, 0.5, 1, 2, 3.5 (exact to 17 digits).
        for (x, exact) in [
            (0.0f32, 0.0f64),
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (3.5, 0.999_999_256_901_627_7),
        ] {
            for (x, exact) in [(x, exact), (-x, -exact)] {
                assert!((f64::from(erf(x)) - exact).abs() < 5e-7, "{x}");
            }
        }
        assert_eq!(erf(100.0), erf(4.0));
        assert!((erf(4.0) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn softmax_and_layer_norm() {
        let mut row = [1.0, 2.0, 3.0];
        softmax(&mut row);
        let e: Vec<f64> = [1.0f64, 2.0, 3.0].iter().map(|v| v.exp()).collect();
        let total: f64 = e.iter().sum();
        for (got, want) in row.iter().zip(&e) {
            assert!((f64::from(*got) - want / total).abs() < 1e-6);
        }
        let mut rows = [1.0, 2.0, 3.0, 4.0, -1.0, -1.0, -1.0, -1.0];
        layer_norm(
            &mut rows,
            (&[1.0, 1.0, 2.0, 1.0], &[0.0, 0.0, 0.0, 0.5]),
            1e-12,
        );
        let z = 1.0 / 1.25f32.sqrt();
        for (got, want) in
            rows.iter()
                .zip([-1.5 * z, -0.5 * z, z, 1.5 * z + 0.5, 0.0, 0.0, 0.0, 0.5])
        {
            assert!((got - want).abs() < 1e-5, "{got} {want}");
        }
    }
}
