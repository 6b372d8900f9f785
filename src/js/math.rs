//! `Math.log` and `Math.pow` exactly as V8 (Node 20) computes them.
//!
//! bmad-plus runs in V8 and prints decay and Elo scores with 17 significant
//! digits; docs §2.4 requires our output to agree with it to the last bit.
//! V8 does not use the C library for these two functions: it ships its own
//! C++ ports of fdlibm's `__ieee754_log` (`e_log.c`) and `__ieee754_pow`
//! (`e_pow.c`) in `src/base/ieee754.cc`. glibc's `log`/`pow` (which back
//! `f64::ln` and `f64::powf`) are more accurate and therefore disagree with
//! V8 in the last bit for a noticeable share of inputs (several percent of
//! decay and Elo `pow` calls), so both routines are ported here, operation
//! for operation.
//!
//! Node 20 (V8 11.3) calls the fdlibm port for `Math.pow` unconditionally;
//! the later `--use-std-math-pow` switch, which routes to `std::pow` and
//! moves the original code to `base::ieee754::legacy::pow`, does not exist
//! there. fdlibm's special cases already give the JavaScript answers
//! (`pow(±1, ±∞)` and `pow(1, NaN)` are NaN, unlike C99), so no wrapper is
//! needed.
//!
//! The arithmetic must stay in exactly this order and in plain `f64`
//! operations (no `mul_add`, no reassociation): every intermediate rounding
//! is part of the result being reproduced.

/// fdlibm's `huge`/`tiny`: squaring them forces an overflow to ±∞ or an
/// underflow to ±0 with the sign chosen by the caller.
const HUGE: f64 = 1.0e300;
const TINY: f64 = 1.0e-300;
/// The double nearest 1/3, as fdlibm's decimal literal rounds.
const THIRD: f64 = f64::from_bits(0x3FD5_5555_5555_5555);

/// Sign-carrying upper 32 bits, fdlibm's `GET_HIGH_WORD`.
#[expect(
    clippy::cast_possible_wrap,
    reason = "reinterpreting the bits is the point"
)]
fn high_word(x: f64) -> i32 {
    (x.to_bits() >> 32) as u32 as i32
}

/// Lower 32 bits, fdlibm's `GET_LOW_WORD`.
#[expect(
    clippy::cast_possible_truncation,
    reason = "dropping the high half is the point"
)]
fn low_word(x: f64) -> u32 {
    x.to_bits() as u32
}

/// fdlibm's `INSERT_WORDS`.
#[expect(
    clippy::cast_sign_loss,
    reason = "reinterpreting the bits is the point"
)]
fn from_words(high: i32, low: u32) -> f64 {
    f64::from_bits((u64::from(high as u32) << 32) | u64::from(low))
}

/// fdlibm's `SET_HIGH_WORD`.
fn with_high_word(x: f64, high: i32) -> f64 {
    from_words(high, low_word(x))
}

/// fdlibm's `SET_LOW_WORD`.
fn with_low_word(x: f64, low: u32) -> f64 {
    from_words(high_word(x), low)
}

/// `x * 2^n`, rounded once.
///
/// V8 calls the C library's `scalbn` for `pow` results that land in the
/// subnormal range; any correctly rounded scaling gives the same bits.
/// Scaling in at most three steps keeps every step but the last exact.
fn scalbn(x: f64, n: i32) -> f64 {
    // Only called with -1022 <= e <= 1023, so the biased exponent is positive.
    let two_pow = |e: i32| from_words((0x3FF + e) << 20, 0);
    let mut y = x;
    let mut n = n;
    if n > 1023 {
        y *= two_pow(1023);
        n -= 1023;
        if n > 1023 {
            y *= two_pow(1023);
            n -= 1023;
            n = n.min(1023);
        }
    } else if n < -1022 {
        // Stop above the subnormal range (2^-969) so that only the final
        // multiplication can round; rounding twice could differ by an ulp.
        y *= two_pow(-1022) * two_pow(53);
        n += 1022 - 53;
        if n < -1022 {
            y *= two_pow(-1022) * two_pow(53);
            n += 1022 - 53;
            n = n.max(-1022);
        }
    }
    y * two_pow(n)
}

/// Natural logarithm, bit-identical to V8's `Math.log`.
///
/// Negative arguments (including -∞) give NaN, ±0 gives -∞.
#[must_use]
#[expect(
    clippy::many_single_char_names,
    reason = "keeps fdlibm's names for auditing"
)]
pub(crate) fn ln(x: f64) -> f64 {
    const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
    const TWO54: f64 = f64::from_bits(0x4350_0000_0000_0000);
    const LG1: f64 = f64::from_bits(0x3FE5_5555_5555_5593);
    const LG2: f64 = f64::from_bits(0x3FD9_9999_9997_FA04);
    const LG3: f64 = f64::from_bits(0x3FD2_4924_9422_9359);
    const LG4: f64 = f64::from_bits(0x3FCC_71C5_1D8E_78AF);
    const LG5: f64 = f64::from_bits(0x3FC7_4664_96CB_03DE);
    const LG6: f64 = f64::from_bits(0x3FC3_9A09_D078_C69F);
    const LG7: f64 = f64::from_bits(0x3FC2_F112_DF3E_5244);

    let mut x = x;
    let mut hx = high_word(x);

    let mut k: i32 = 0;
    // Signed compare: catches negatives as well as zero and subnormals.
    if hx < 0x0010_0000 {
        if x == 0.0 {
            return f64::NEG_INFINITY;
        }
        if hx < 0 {
            return f64::NAN;
        }
        k -= 54;
        x *= TWO54;
        hx = high_word(x);
    }
    if hx >= 0x7FF0_0000 {
        return x + x;
    }
    k += (hx >> 20) - 1023;
    hx &= 0x000F_FFFF;
    let i = (hx + 0x95F64) & 0x0010_0000;
    // Normalise into [sqrt(2)/2, sqrt(2)) so that |f| stays small.
    x = with_high_word(x, hx | (i ^ 0x3FF0_0000));
    k += i >> 20;
    let f = x - 1.0;
    if (0x000F_FFFF & (2 + hx)) < 3 {
        // |f| < 2^-20: a short series is already exact to the last bit.
        if f == 0.0 {
            if k == 0 {
                return 0.0;
            }
            let dk = f64::from(k);
            return dk * LN2_HI + dk * LN2_LO;
        }
        let r = f * f * (0.5 - THIRD * f);
        if k == 0 {
            return f - r;
        }
        let dk = f64::from(k);
        return dk * LN2_HI - ((r - dk * LN2_LO) - f);
    }
    let s = f / (2.0 + f);
    let dk = f64::from(k);
    let z = s * s;
    let mut i = hx - 0x6147A;
    let w = z * z;
    let j = 0x6B851 - hx;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    i |= j;
    let r = t2 + t1;
    if i > 0 {
        let hfsq = 0.5 * f * f;
        if k == 0 {
            f - (hfsq - s * (hfsq + r))
        } else {
            dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f)
        }
    } else if k == 0 {
        f - s * (f - r)
    } else {
        dk * LN2_HI - ((s * (f - r) - dk * LN2_LO) - f)
    }
}

/// `x` raised to `y`, bit-identical to V8's `Math.pow` and `**`.
///
/// JavaScript semantics, not C99's: `pow(±1, ±∞)` and `pow(1, NaN)` are NaN,
/// while `pow(NaN, ±0)` is 1.
#[must_use]
#[expect(
    clippy::many_single_char_names,
    clippy::too_many_lines,
    reason = "mirrors fdlibm's e_pow.c line by line so it can be audited against it"
)]
pub(crate) fn pow(x: f64, y: f64) -> f64 {
    const BP: [f64; 2] = [1.0, 1.5];
    const DP_H: [f64; 2] = [0.0, f64::from_bits(0x3FE2_B803_4000_0000)];
    const DP_L: [f64; 2] = [0.0, f64::from_bits(0x3E4C_FDEB_43CF_D006)];
    const TWO53: f64 = f64::from_bits(0x4340_0000_0000_0000);
    // Coefficients of (3/2)*(log(x) - 2s - 2/3*s^3).
    const L1: f64 = f64::from_bits(0x3FE3_3333_3333_3303);
    const L2: f64 = f64::from_bits(0x3FDB_6DB6_DB6F_ABFF);
    const L3: f64 = f64::from_bits(0x3FD5_5555_518F_264D);
    const L4: f64 = f64::from_bits(0x3FD1_7460_A91D_4101);
    const L5: f64 = f64::from_bits(0x3FCD_864A_93C9_DB65);
    const L6: f64 = f64::from_bits(0x3FCA_7E28_4A45_4EEF);
    const P1: f64 = f64::from_bits(0x3FC5_5555_5555_553E);
    const P2: f64 = f64::from_bits(0xBF66_C16C_16BE_BD93);
    const P3: f64 = f64::from_bits(0x3F11_566A_AF25_DE2C);
    const P4: f64 = f64::from_bits(0xBEBB_BD41_C5D2_6BF1);
    const P5: f64 = f64::from_bits(0x3E66_3769_72BE_A4D0);
    const LG2: f64 = f64::from_bits(0x3FE6_2E42_FEFA_39EF);
    const LG2_H: f64 = f64::from_bits(0x3FE6_2E43_0000_0000);
    const LG2_L: f64 = f64::from_bits(0xBE20_5C61_0CA8_6C39);
    // -(1024 - log2(overflow threshold + 0.5 ulp)).
    const OVT: f64 = f64::from_bits(0x3C97_1547_652B_82FE);
    // 2/(3 ln 2), whole and split into a 24-bit head and its tail.
    const CP: f64 = f64::from_bits(0x3FEE_C709_DC3A_03FD);
    const CP_H: f64 = f64::from_bits(0x3FEE_C709_E000_0000);
    const CP_L: f64 = f64::from_bits(0xBE3E_2FE0_145B_01F5);
    // 1/ln 2, whole and split into a 24-bit head and its tail.
    const IVLN2: f64 = f64::from_bits(0x3FF7_1547_652B_82FE);
    const IVLN2_H: f64 = f64::from_bits(0x3FF7_1547_6000_0000);
    const IVLN2_L: f64 = f64::from_bits(0x3E54_AE0B_F85D_DF44);

    let hx = high_word(x);
    let lx = low_word(x);
    let hy = high_word(y);
    let ly = low_word(y);
    let mut ix = hx & 0x7FFF_FFFF;
    let iy = hy & 0x7FFF_FFFF;

    if iy == 0 && ly == 0 {
        return 1.0;
    }

    if ix > 0x7FF0_0000
        || (ix == 0x7FF0_0000 && lx != 0)
        || iy > 0x7FF0_0000
        || (iy == 0x7FF0_0000 && ly != 0)
    {
        return x + y;
    }

    // For negative x: 0 = y not an integer, 1 = odd integer, 2 = even.
    let mut yisint = 0;
    if hx < 0 {
        if iy >= 0x4340_0000 {
            yisint = 2;
        } else if iy >= 0x3FF0_0000 {
            let k = (iy >> 20) - 0x3FF;
            if k > 20 {
                let j = ly >> (52 - k);
                if (j << (52 - k)) == ly {
                    yisint = if j & 1 == 0 { 2 } else { 1 };
                }
            } else if ly == 0 {
                let j = iy >> (20 - k);
                if (j << (20 - k)) == iy {
                    yisint = if j & 1 == 0 { 2 } else { 1 };
                }
            }
        }
    }

    if ly == 0 {
        if iy == 0x7FF0_0000 {
            return if ix == 0x3FF0_0000 && lx == 0 {
                // ECMAScript keeps the first edition's NaN for (±1)**±∞
                // (fdlibm spells it `y - y`).
                f64::NAN
            } else if ix >= 0x3FF0_0000 {
                if hy >= 0 { y } else { 0.0 }
            } else if hy < 0 {
                -y
            } else {
                0.0
            };
        }
        if iy == 0x3FF0_0000 {
            return if hy < 0 { 1.0 / x } else { x };
        }
        if hy == 0x4000_0000 {
            return x * x;
        }
        if hy == 0x3FE0_0000 && hx >= 0 {
            return x.sqrt();
        }
    }

    let mut ax = x.abs();
    if lx == 0 && (ix == 0x7FF0_0000 || ix == 0 || ix == 0x3FF0_0000) {
        let mut z = ax;
        if hy < 0 {
            z = 1.0 / z;
        }
        if hx < 0 {
            if ((ix - 0x3FF0_0000) | yisint) == 0 {
                z = f64::NAN;
            } else if yisint == 1 {
                z = -z;
            }
        }
        return z;
    }

    let mut n = (hx >> 31) + 1;

    if (n | yisint) == 0 {
        return f64::NAN;
    }

    let s = if (n | (yisint - 1)) == 0 { -1.0 } else { 1.0 };

    // log2(|x|) as t1 + t2, with t1 short enough that y1 * t1 is exact.
    let (t1, t2);
    if iy > 0x41E0_0000 {
        if iy > 0x43F0_0000 {
            if ix <= 0x3FEF_FFFF {
                return if hy < 0 { HUGE * HUGE } else { TINY * TINY };
            }
            if ix >= 0x3FF0_0000 {
                return if hy > 0 { HUGE * HUGE } else { TINY * TINY };
            }
        }
        if ix < 0x3FEF_FFFF {
            return if hy < 0 {
                s * HUGE * HUGE
            } else {
                s * TINY * TINY
            };
        }
        if ix > 0x3FF0_0000 {
            return if hy > 0 {
                s * HUGE * HUGE
            } else {
                s * TINY * TINY
            };
        }
        // |1 - x| <= 2^-20: a four-term series for log(x) suffices.
        let t = ax - 1.0;
        let w = (t * t) * (0.5 - t * (THIRD - t * 0.25));
        let u = IVLN2_H * t;
        let v = t * IVLN2_L - w * IVLN2;
        t1 = with_low_word(u + v, 0);
        t2 = v - (t1 - u);
    } else {
        n = 0;
        if ix < 0x0010_0000 {
            ax *= TWO53;
            n -= 53;
            ix = high_word(ax);
        }
        n += (ix >> 20) - 0x3FF;
        let j = ix & 0x000F_FFFF;
        ix = j | 0x3FF0_0000;
        let k: u8 = if j <= 0x3988E {
            0
        } else if j < 0xBB67A {
            1
        } else {
            n += 1;
            ix -= 0x0010_0000;
            0
        };
        ax = with_high_word(ax, ix);
        let (bp, dp_h, dp_l) = (
            BP[usize::from(k)],
            DP_H[usize::from(k)],
            DP_L[usize::from(k)],
        );

        let u = ax - bp;
        let v = 1.0 / (ax + bp);
        let ss = u * v;
        let s_h = with_low_word(ss, 0);
        let t_h = from_words(
            ((ix >> 1) | 0x2000_0000) + 0x0008_0000 + (i32::from(k) << 18),
            0,
        );
        let t_l = ax - (t_h - bp);
        let s_l = v * ((u - s_h * t_h) - s_h * t_l);
        let mut s2 = ss * ss;
        let mut r = s2 * s2 * (L1 + s2 * (L2 + s2 * (L3 + s2 * (L4 + s2 * (L5 + s2 * L6)))));
        r += s_l * (s_h + ss);
        s2 = s_h * s_h;
        let t_h = with_low_word(3.0 + s2 + r, 0);
        let t_l = r - ((t_h - 3.0) - s2);
        let u = s_h * t_h;
        let v = s_l * t_h + t_l * ss;
        let p_h = with_low_word(u + v, 0);
        let p_l = v - (p_h - u);
        let z_h = CP_H * p_h;
        let z_l = CP_L * p_h + p_l * CP + dp_l;
        let t = f64::from(n);
        t1 = with_low_word(((z_h + z_l) + dp_h) + t, 0);
        t2 = z_l - (((t1 - t) - dp_h) - z_h);
    }

    // y * log2(|x|) in double-double, split as y1 + (y - y1).
    let y1 = with_low_word(y, 0);
    let p_l = (y - y1) * t1 + y * t2;
    let mut p_h = y1 * t1;
    let z = p_l + p_h;
    let j = high_word(z);
    if j >= 0x4090_0000 {
        // fdlibm's `((j - 0x40900000) | i) != 0` is `z != 1024` in words.
        if z.to_bits() != 1024_f64.to_bits() || p_l + OVT > z - p_h {
            return s * HUGE * HUGE;
        }
    } else if (j & 0x7FFF_FFFF) >= 0x4090_CC00
        && (z.to_bits() != (-1075_f64).to_bits() || p_l <= z - p_h)
    {
        return s * TINY * TINY;
    }

    // 2^(p_h + p_l) = 2^n * 2^(remainder), remainder in [-0.5, 0.5].
    let i = j & 0x7FFF_FFFF;
    let mut k = (i >> 20) - 0x3FF;
    let mut n = 0;
    if i > 0x3FE0_0000 {
        n = j + (0x0010_0000 >> (k + 1));
        k = ((n & 0x7FFF_FFFF) >> 20) - 0x3FF;
        let t = from_words(n & !(0x000F_FFFF >> k), 0);
        n = ((n & 0x000F_FFFF) | 0x0010_0000) >> (20 - k);
        if j < 0 {
            n = -n;
        }
        p_h -= t;
    }
    let t = with_low_word(p_l + p_h, 0);
    let u = t * LG2_H;
    let v = (p_l - (t - p_h)) * LG2 + t * LG2_L;
    let mut z = u + v;
    let w = v - (z - u);
    let t = z * z;
    let t1 = z - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    let r = (z * t1) / ((t1 - 2.0) - (w + z * w));
    z = 1.0 - (r - z);
    let j = high_word(z).wrapping_add(n << 20);
    if (j >> 20) <= 0 {
        z = scalbn(z, n);
    } else {
        z = with_high_word(z, j);
    }
    s * z
}

// Reads what only the repository has (docs: build.rs).
#[cfg(test)]
#[cfg(repository)]
mod tests {
    use super::{ln, pow};

    fn js_number(v: &serde_json::Value) -> f64 {
        match v {
            serde_json::Value::String(s) => parse_js(s),
            serde_json::Value::Number(n) => parse_js(&n.to_string()),
            other => panic!("not a number: {other}"),
        }
    }

    fn parse_js(s: &str) -> f64 {
        match s {
            "NaN" => f64::NAN,
            "Infinity" => f64::INFINITY,
            "-Infinity" => f64::NEG_INFINITY,
            _ => s
                .parse()
                .unwrap_or_else(|e| panic!("bad number {s:?}: {e}")),
        }
    }

    fn same(got: f64, want: f64) -> bool {
        if want.is_nan() {
            got.is_nan()
        } else {
            got.to_bits() == want.to_bits()
        }
    }

    #[test]
    fn matches_node_vectors() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/vectors/math.json");
        let text = std::fs::read_to_string(path).expect("read math.json");
        let doc: serde_json::Value = serde_json::from_str(&text).expect("parse math.json");
        let rows = |key: &str| {
            doc[key]
                .as_array()
                .unwrap_or_else(|| panic!("{key} missing"))
                .iter()
                .map(|row| (js_number(&row[0]), js_number(&row[1])))
                .collect::<Vec<_>>()
        };

        let mut failures = Vec::new();
        let mut checked = 0;
        for (f, want) in rows("log") {
            checked += 1;
            let got = ln(f);
            if !same(got, want) {
                failures.push(format!("ln({f:e}) = {got:e}, node {want:e}"));
            }
        }
        for (key, days) in [("decay30", 30.0), ("decay90", 90.0)] {
            for (diff, want) in rows(key) {
                checked += 1;
                let got = pow(0.5, diff / 86_400_000.0 / days);
                if !same(got, want) {
                    failures.push(format!("{key} {diff}: {got:e}, node {want:e}"));
                }
            }
        }
        for (elo, want) in rows("elo") {
            checked += 1;
            let got = 1.0 / (1.0 + pow(10.0, (1200.0 - elo) / 400.0));
            if !same(got, want) {
                failures.push(format!("elo {elo}: {got:e}, node {want:e}"));
            }
        }
        assert!(checked >= 10_000, "only {checked} rows");
        assert!(
            failures.is_empty(),
            "{} mismatches:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }

    #[track_caller]
    fn case(got: f64, want: f64) {
        assert!(
            same(got, want),
            "got {got:e} ({:#018x}), node {want:e} ({:#018x})",
            got.to_bits(),
            want.to_bits()
        );
    }

    #[test]
    fn ln_special_cases() {
        let table = [
            (0.0, f64::NEG_INFINITY),
            (-0.0, f64::NEG_INFINITY),
            (-1.0, f64::NAN),
            (-5e-324, f64::NAN),
            (f64::NEG_INFINITY, f64::NAN),
            (f64::NAN, f64::NAN),
            (f64::INFINITY, f64::INFINITY),
            (1.0, 0.0),
            (5e-324, -744.440_071_921_381_2),
            (1e-310, -713.801_378_828_154_2),
            (2.225_073_858_507_201e-308, -708.396_418_532_264_1),
            (2.225_073_858_507_201_4e-308, -708.396_418_532_264_1),
            (f64::MAX, 709.782_712_893_384),
            (0.5, -std::f64::consts::LN_2),
            (2.0, std::f64::consts::LN_2),
            (10.0, std::f64::consts::LN_10),
            (std::f64::consts::E, 1.0),
            (1.000_000_000_000_000_2, 2.220_446_049_250_312_8e-16),
            (0.999_999_999_999_999_9, -1.110_223_024_625_156_5e-16),
        ];
        for (x, want) in table {
            case(ln(x), want);
        }
    }

    #[test]
    fn pow_special_cases() {
        let inf = f64::INFINITY;
        let nan = f64::NAN;
        let table = [
            // y = ±0 wins over everything, even NaN.
            (2.0, 0.0, 1.0),
            (nan, 0.0, 1.0),
            (nan, -0.0, 1.0),
            (inf, 0.0, 1.0),
            // NaN, including the JS-specific (1, NaN).
            (2.0, nan, nan),
            (1.0, nan, nan),
            (nan, 1.0, nan),
            // Infinite exponents; (±1, ±∞) is NaN in JS.
            (-1.0, inf, nan),
            (-1.0, -inf, nan),
            (1.0, inf, nan),
            (1.0, -inf, nan),
            (2.0, inf, inf),
            (2.0, -inf, 0.0),
            (0.5, inf, 0.0),
            (0.5, -inf, inf),
            (-2.0, inf, inf),
            (0.0, -inf, inf),
            (-0.0, inf, 0.0),
            // Signed zeros and infinities as the base.
            (0.0, 3.0, 0.0),
            (-0.0, 3.0, -0.0),
            (-0.0, 2.0, 0.0),
            (-0.0, -3.0, -inf),
            (-0.0, -2.0, inf),
            (0.0, -1.0, inf),
            (-0.0, -0.5, inf),
            (-0.0, 0.5, 0.0),
            (inf, -1.0, 0.0),
            (-inf, 3.0, -inf),
            (-inf, 2.0, inf),
            (-inf, -3.0, -0.0),
            (-inf, -2.0, 0.0),
            (-inf, 0.5, inf),
            (-inf, -0.5, 0.0),
            // Negative base: integer exponents keep or flip the sign,
            // non-integers are NaN.
            (-2.0, 3.0, -8.0),
            (-2.0, 2.0, 4.0),
            (-2.0, -3.0, -0.125),
            (-2.0, 0.5, nan),
            (-2.0, 1.5, nan),
            (-8.0, 1.0 / 3.0, nan),
            (-1.0, 0.5, nan),
            (-1.0, 3.0, -1.0),
            (-1.0, 2.0, 1.0),
            (-1.0, 1e300, 1.0),
            (-3.0, 9_007_199_254_740_992.0, inf),
            (-1e-310, 1.0, -1e-310),
            // Overflow and underflow, including the subnormal boundary.
            (10.0, 400.0, inf),
            (10.0, 308.0, 1e308),
            (10.0, 309.0, inf),
            (10.0, -323.0, 1e-323),
            (10.0, -324.0, 0.0),
            (2.0, -1074.0, 5e-324),
            (2.0, -1075.0, 0.0),
            (2.0, 1023.0, 8.988_465_674_311_58e307),
            (2.0, 1024.0, inf),
            (-2.0, 1023.0, -8.988_465_674_311_58e307),
            (-10.0, 309.0, -inf),
            (-10.0, -323.0, -1e-323),
            (1.000_000_1, 1e10, inf),
            (0.999_999_9, 1e10, 0.0),
            (1.000_000_1, -1e10, 0.0),
            (1.1, 1e20, inf),
            (0.9, 1e20, 0.0),
            (5e-324, -1.0, inf),
            // y = 0.5 is a correctly rounded square root.
            (2.0, 0.5, std::f64::consts::SQRT_2),
            (3.0, 0.5, 1.732_050_807_568_877_2),
            (1e-300, 0.5, 1e-150),
            (5e-324, 0.5, 2.222_758_749_485_077_5e-162),
            // y = -0.5 is not special-cased.
            (2.0, -0.5, 0.707_106_781_186_547_5),
            (2.5, -0.5, 0.632_455_532_033_675_9),
            // y = -1 is a division.
            (7.0, -1.0, 0.142_857_142_857_142_85),
            (3.0, -1.0, 0.333_333_333_333_333_3),
            (0.1, -1.0, 10.0),
            // y = 2 is a multiplication.
            (3.0, 2.0, 9.0),
            (1.1, 2.0, 1.210_000_000_000_000_2),
            (1e200, 2.0, inf),
            (-3.0, 2.0, 9.0),
            // Plain cases.
            (0.1, 3.0, 0.001_000_000_000_000_000_2),
            (10.0, -2.0, 0.01),
            (10.0, 0.1, 1.258_925_411_794_167_3),
            (
                std::f64::consts::PI,
                std::f64::consts::E,
                22.459_157_718_361_04,
            ),
            (1e-310, 1.0, 1e-310),
        ];
        for (x, y, want) in table {
            case(pow(x, y), want);
        }
    }
}
