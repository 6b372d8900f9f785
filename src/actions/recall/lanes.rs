//! Bytes classified many at a time, for recall's counters (lexical recall's token counter and
//! the anchor search of `--ranking bm25`): eight per `u64` with bit arithmetic, and on `x86_64`
//! sixteen per SSE2 instruction, through `safe_arch` (this crate forbids `unsafe`; SSE2 is part
//! of every `x86_64` processor).

pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;

/// For each byte of `word` (all below 0x80): 0x80 when it lies in `lo..=hi` (`hi` < 0x80),
/// else 0. No carry crosses bytes: every sum stays below 0x100.
pub(crate) fn in_range(word: u64, lo: u8, hi: u8) -> u64 {
    let at_least_lo = word + ONES * u64::from(0x80 - lo);
    let above_hi = word + ONES * u64::from(0x7f - hi);
    at_least_lo & !above_hi & HIGH
}

/// For each byte of `word` (all below 0x80): 0x80 when it equals the same byte of `pattern`
/// (also below 0x80), else 0. `v + 0x7f` reaches 0x80 exactly when the byte `v` is not 0.
pub(crate) fn equal(word: u64, pattern: u64) -> u64 {
    !((word ^ pattern) + ONES * 0x7f) & HIGH
}

/// The high bit of each byte of `flags`, gathered into the low 8 bits (byte `k` → bit `k`).
pub(crate) fn gather(flags: u64) -> u64 {
    ((flags >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// The bits below bit `n` (all 64 from `n` = 64 on).
pub(crate) fn below(n: u32) -> u64 {
    u64::MAX.checked_shl(n).map_or(u64::MAX, |m| !m)
}

/// SSE2 helpers over 16 lanes of one byte.
#[cfg(target_arch = "x86_64")]
pub(crate) mod sse2 {
    use safe_arch::{
        cmp_eq_mask_i8_m128i, m128i, min_u8_m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };

    pub(crate) type Bytes = m128i;

    /// `byte` in each of 16 lanes.
    pub(crate) fn splat(byte: u8) -> Bytes {
        set_splat_i8_m128i(byte.cast_signed())
    }

    /// 0xff in each lane where `x <= n` (unsigned), else 0.
    pub(crate) fn at_most(x: Bytes, n: u8) -> Bytes {
        cmp_eq_mask_i8_m128i(min_u8_m128i(x, splat(n)), x)
    }

    /// The high bits of 16 lanes as 16 bits.
    pub(crate) fn bits(lanes: Bytes) -> u64 {
        u64::from(move_mask_i8_m128i(lanes).cast_unsigned() & 0xffff)
    }
}
