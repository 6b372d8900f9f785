//! JavaScript time values: `Date.parse` for the ECMAScript date-time string
//! format, and `Date.prototype.toISOString`.
//!
//! This module owns the conversion between timestamp text and *time values*
//! (milliseconds since 1970-01-01T00:00:00Z, as an `f64` holding an integer,
//! exactly as JavaScript stores them). It reproduces what V8 (Node.js) does,
//! restricted to the format defined by ECMAScript (docs §2.5):
//!
//! * dates `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, where the year is either four
//!   digits or an expanded year `+YYYYYY` / `-YYYYYY` (`-000000` is invalid);
//! * optionally followed by `T` (or `t`) and a time `HH:mm`, `HH:mm:ss` or
//!   `HH:mm:ss.f…` with one or more fraction digits, reduced to milliseconds
//!   the way V8 does it (see "V8 quirks" below);
//! * a time may be followed by `Z` (or `z`) or an offset `+HH:mm` / `-HH:mm`
//!   (hours `00`–`23`, minutes `00`–`59`).
//!
//! Field ranges are those V8 checks: month `01`–`12`; day `01`–`31` in *any*
//! month, rolling over into the next month (`2026-02-30` is March 2nd);
//! hour `00`–`24`, but hour 24 only as `24:00`, `24:00:00` or `24:00:00.000…`
//! (all fraction digits zero), meaning the next midnight; minutes and seconds
//! `00`–`59` (no leap second). A result outside ±8.64e15 ms is invalid.
//!
//! # Local time
//!
//! ECMAScript reads a date-only form as UTC and a date-time form without an
//! offset as *local* time, as bmad-plus does through V8: the system time zone
//! (`TZ`, else `/etc/localtime`) is consulted for exactly that case. A local
//! time that occurs twice (when clocks go back) takes the earlier instant; one
//! that does not exist (clocks go forward) takes the offset in force before the
//! change, as ECMAScript's `UTC(t)` does. The vectors were generated with
//! `TZ=UTC`; the unit tests skip the local-time rows elsewhere.
//!
//! # Deliberate differences from V8
//!
//! When a string is not in the ECMAScript format, V8 falls back to a legacy,
//! implementation-defined parser that accepts forms such as
//! `2026-10-18 09:30:00`, `2026-1-5`, `  2026-10-18  `, `2026-10-18Z` or an
//! offset without colon (`+0200`). V8 also hands strings with a month or
//! day out of range, or the year `-000000`, to that parser, which then
//! invents a date (`+000001-13` and `-000000-12` both parse in Node). This
//! module does not: all of those give `None` ("no time known").
//!
//! # V8 quirks that *are* reproduced
//!
//! * V8's date scanner treats a NUL character as the end of the input, so
//!   anything from the first `\0` on is ignored (`"2026-10-18\0junk"` parses).
//! * Fraction digits are reduced to milliseconds from the first nine
//!   *significant* digits and the total digit count, which truncates
//!   correctly for up to nine digits (`.123456` → 123 ms, `.9999` → 999 ms)
//!   but not for longer fractions with leading zeros
//!   (`.0012345678` → 12 ms in V8, and here).
//!
//! # Invariants
//!
//! * [`parse_timestamp`] returns `Some(t)` only for an integral `t` with
//!   `|t| <= 8.64e15`, never `-0`.
//! * For every such `t`, `parse_timestamp(&to_iso_string(t)) == Some(t)`.

use std::fmt::Write as _;

/// Milliseconds in one day.
/// Milliseconds in a day, as the time arithmetic of the actions uses it.
pub const MS_PER_DAY: f64 = 86_400_000.0;
/// The same, for the calendar arithmetic below.
const DAY_MS: i64 = 86_400_000;

/// The largest magnitude of a valid time value (ECMAScript `TimeClip`).
const MAX_TIME_MS: i64 = 8_640_000_000_000_000;

/// Parses `text` like `Date.parse` does for the ECMAScript date-time string
/// format, returning the time value in epoch milliseconds.
///
/// `None` means "no time known": the text is not in that format, a field is
/// out of range, or the result lies outside ±8.64e15 ms. See the module
/// documentation for the exact grammar and the treatment of local time.
#[must_use]
pub fn parse_timestamp(text: &str) -> Option<f64> {
    // V8 reads a NUL character as the end of the string.
    let text = text.split('\0').next().unwrap_or_default();
    let fields = Scanner::new(text).fields()?;
    let time = fields.to_time_value()?;
    #[expect(
        clippy::cast_precision_loss,
        reason = "|time| <= 8.64e15 < 2^53, so the conversion is exact"
    )]
    Some(time as f64)
}

/// Formats a time value like `Date.prototype.toISOString`:
/// `2026-10-18T09:30:00.000Z`, with the year written as `+YYYYYY` or
/// `-YYYYYY` when it lies outside `0..=9999`.
///
/// A fractional `ms` is truncated toward zero first, as JavaScript's
/// `TimeClip` does (`-0` becomes `0`).
///
/// # Panics
///
/// Panics if `ms` is NaN or its magnitude exceeds 8.64e15, where JavaScript
/// throws a `RangeError` ("Invalid time value"). Values from
/// [`parse_timestamp`] and from the system clock are always in range.
#[must_use]
pub fn to_iso_string(ms: f64) -> String {
    let clipped = ms.trunc();
    assert!(
        clipped.abs() <= 8.64e15,
        "to_iso_string: invalid time value {ms}"
    );
    #[expect(
        clippy::cast_possible_truncation,
        reason = "checked above: an integral value with magnitude <= 8.64e15"
    )]
    let time = clipped as i64;
    let days = time.div_euclid(DAY_MS);
    let in_day = time.rem_euclid(DAY_MS);
    let (year, month, day) = civil_from_days(days);

    let mut out = String::with_capacity(27);
    if (0..=9999).contains(&year) {
        let _ = write!(out, "{year:04}");
    } else {
        // Width 7 includes the sign: -1 → "-000001", 10000 → "+010000".
        let _ = write!(out, "{year:+07}");
    }
    let _ = write!(
        out,
        "-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000,
    );
    out
}

/// The fields of an accepted timestamp, already range-checked one by one.
#[derive(Debug, Clone, Copy)]
struct Fields {
    year: i64,
    /// 1–12.
    month: i64,
    /// 1–31, whatever the month.
    day: i64,
    /// 0–24; 24 only with every smaller field zero.
    hour: i64,
    minute: i64,
    second: i64,
    millisecond: i64,
    /// Offset of the written time from UTC, in minutes (0 for `Z` and for a
    /// date-only form); `None` for a date-time without offset: local time.
    offset_minutes: Option<i64>,
}

impl Fields {
    /// Composes the fields like `MakeDate(MakeDay(…), MakeTime(…))` minus the
    /// offset, then applies the ±8.64e15 ms range check.
    fn to_time_value(self) -> Option<i64> {
        // Days beyond the end of the month roll over: start at day 1.
        let days = days_from_civil(self.year, self.month) + self.day - 1;
        let in_day = ((self.hour * 60 + self.minute) * 60 + self.second) * 1000 + self.millisecond;
        let written = days.checked_mul(DAY_MS)? + in_day;
        let offset_ms = match self.offset_minutes {
            Some(minutes) => minutes * 60_000,
            None => local_offset_ms(written),
        };
        let time = written - offset_ms;
        (time.abs() <= MAX_TIME_MS).then_some(time)
    }
}

/// The system time zone's offset from UTC, in milliseconds, for the local
/// wall-clock time `local_ms` (milliseconds since 1970-01-01T00:00 local).
fn local_offset_ms(local_ms: i64) -> i64 {
    use chrono::{DateTime, Local, LocalResult, Offset, TimeDelta, TimeZone};
    let Some(naive) = DateTime::from_timestamp_millis(local_ms).map(|d| d.naive_utc()) else {
        return 0;
    };
    let offset = match Local.offset_from_local_datetime(&naive) {
        LocalResult::Single(offset) | LocalResult::Ambiguous(offset, _) => offset.fix(),
        // In a gap: the offset in force before the clocks went forward.
        LocalResult::None => Local
            .offset_from_utc_datetime(&(naive - TimeDelta::days(1)))
            .fix(),
    };
    i64::from(offset.local_minus_utc()) * 1000
}

impl Fields {
    /// Whether this is a date-time read as local time.
    #[cfg(test)]
    fn is_local(&self) -> bool {
        self.offset_minutes.is_none()
    }
}

/// A cursor over the bytes of the text; every method either consumes what it
/// expects or leaves the position unchanged.
struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            bytes: text.as_bytes(),
            pos: 0,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }

    /// Consumes `byte` (ASCII-case-insensitively for letters) if it is next.
    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek().is_some_and(|b| b.eq_ignore_ascii_case(&byte));
        if found {
            self.pos += 1;
        }
        found
    }

    /// Consumes the whole run of ASCII digits at the cursor (possibly empty).
    fn digit_run(&mut self) -> &'a [u8] {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        &self.bytes[start..self.pos]
    }

    /// Reads a run of exactly `len` digits (V8's "fixed length number").
    fn fixed(&mut self, len: usize) -> Option<i64> {
        let run = self.digit_run();
        (run.len() == len).then(|| decimal(run))
    }

    /// Reads a two-digit field within `range`.
    fn field(&mut self, range: std::ops::RangeInclusive<i64>) -> Option<i64> {
        self.fixed(2).filter(|value| range.contains(value))
    }

    /// The whole grammar; `None` for anything that is not a valid timestamp.
    fn fields(mut self) -> Option<Fields> {
        let year = match self.peek()? {
            sign @ (b'+' | b'-') => {
                self.pos += 1;
                let magnitude = self.fixed(6)?;
                if sign == b'-' {
                    if magnitude == 0 {
                        return None; // "-000000" is not a year.
                    }
                    -magnitude
                } else {
                    magnitude
                }
            }
            _ => self.fixed(4)?,
        };
        let mut fields = Fields {
            year,
            month: 1,
            day: 1,
            hour: 0,
            minute: 0,
            second: 0,
            millisecond: 0,
            offset_minutes: Some(0),
        };
        if self.eat(b'-') {
            fields.month = self.field(1..=12)?;
            if self.eat(b'-') {
                fields.day = self.field(1..=31)?;
            }
        }
        if self.at_end() {
            return Some(fields);
        }
        if !self.eat(b't') {
            return None;
        }
        self.time(&mut fields)?;
        fields.offset_minutes = None;
        self.offset(&mut fields)?;
        self.at_end().then_some(fields)
    }

    /// `HH:mm[:ss[.f…]]`, with hour 24 allowed only as midnight.
    fn time(&mut self, fields: &mut Fields) -> Option<()> {
        fields.hour = self.field(0..=24)?;
        let max = if fields.hour == 24 { 0 } else { 59 };
        if !self.eat(b':') {
            return None;
        }
        fields.minute = self.field(0..=max)?;
        if self.eat(b':') {
            fields.second = self.field(0..=max)?;
            if self.eat(b'.') {
                let fraction = self.digit_run();
                if fraction.is_empty() {
                    return None;
                }
                if fields.hour == 24 && fraction.iter().any(|&d| d != b'0') {
                    return None;
                }
                fields.millisecond = v8_milliseconds(fraction);
            }
        }
        Some(())
    }

    /// Nothing, `Z`, or `±HH:mm`.
    fn offset(&mut self, fields: &mut Fields) -> Option<()> {
        let sign = match self.peek() {
            Some(b'+') => 1,
            Some(b'-') => -1,
            _ => {
                if self.eat(b'z') {
                    fields.offset_minutes = Some(0);
                }
                return Some(());
            }
        };
        self.pos += 1;
        let hours = self.field(0..=23)?;
        if !self.eat(b':') {
            return None;
        }
        let minutes = self.field(0..=59)?;
        fields.offset_minutes = Some(sign * (hours * 60 + minutes));
        Some(())
    }
}

/// The value of a short run of ASCII digits.
fn decimal(digits: &[u8]) -> i64 {
    digits
        .iter()
        .fold(0, |value, &d| value * 10 + i64::from(d - b'0'))
}

/// Milliseconds from the fraction digits after `ss.`, computed as V8's
/// `ReadMilliseconds` does: from the value of the first nine significant
/// digits (leading zeros skipped) and the total number of digits, capped at
/// nine. For up to nine digits this is plain truncation to milliseconds.
fn v8_milliseconds(fraction: &[u8]) -> i64 {
    let value = fraction
        .iter()
        .skip_while(|&&d| d == b'0')
        .take(9)
        .fold(0, |value, &d| value * 10 + i64::from(d - b'0'));
    match fraction.len() {
        1 => value * 100,
        2 => value * 10,
        3 => value,
        len => {
            let excess = u32::try_from(len.min(9) - 3).expect("at most 6");
            value / 10_i64.pow(excess)
        }
    }
}

/// Days from 1970-01-01 to the first day of `month` (1–12) of `year`, in the
/// proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400; // 0..=399
    let shifted_month = (month + 9) % 12; // March = 0
    let day_of_year = (153 * shifted_month + 2) / 5; // of the first day
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The inverse of [`days_from_civil`]: (year, month 1–12, day 1–31) of the
/// day `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097; // 0..=146096
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153; // March = 0
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

// Reads what only the repository has (docs: build.rs).
#[cfg(test)]
#[cfg(repository)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const VECTORS: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/vectors/dates.json"
    ));

    /// The vectors and the expected values below were produced with `TZ=UTC`;
    /// a date-time without offset can only be checked in a UTC zone.
    fn is_checkable(text: &str) -> bool {
        let utc = [0, 1_790_000_000_000, 1_800_000_000_000]
            .iter()
            .all(|&t| local_offset_ms(t) == 0);
        utc || !Scanner::new(text.split('\0').next().unwrap_or_default())
            .fields()
            .is_some_and(|f| f.is_local())
    }

    #[test]
    fn vectors() {
        let doc: serde_json::Value = serde_json::from_str(VECTORS).expect("dates.json parses");
        let rows = doc["dates"].as_array().expect("dates is an array");
        assert!(!rows.is_empty());
        for row in rows {
            let text = row[0].as_str().expect("text column");
            let want = row[2].as_f64();
            if !is_checkable(text) {
                continue;
            }
            assert_eq!(parse_timestamp(text), want, "parse_timestamp({text:?})");
            if let Some(ms) = want {
                assert_eq!(row[1].as_f64(), Some(ms), "V8 agrees on {text:?}");
            }
        }
    }

    #[track_caller]
    fn case(text: &str, want: Option<f64>) {
        if !is_checkable(text) {
            return;
        }
        assert_eq!(parse_timestamp(text), want, "parse_timestamp({text:?})");
    }

    /// Expected values from `TZ=UTC node -e 'Date.parse(text)'`. Rows marked
    /// "legacy" are accepted by V8's fallback parser only and are `None` here.
    #[test]
    #[expect(clippy::too_many_lines, reason = "one table of cases")]
    fn parse_edge_cases() {
        let rows: &[(&str, Option<f64>)] = &[
            // Field ranges.
            ("2026-00", None),
            ("2026-13", None),
            ("2026-12", Some(1_796_083_200_000.0)),
            ("2026-10-00", None),
            ("2026-10-32", None),
            ("2026-10-31", Some(1_793_404_800_000.0)),
            ("2026-02-29", Some(1_772_323_200_000.0)),
            ("2024-02-30", Some(1_709_251_200_000.0)),
            ("2026-02-31T24:00", Some(1_772_582_400_000.0)),
            ("2026-10-18T09:60Z", None),
            ("2026-10-18T09:59:60Z", None),
            ("2026-10-18T23:59:59.999Z", Some(1_792_367_999_999.0)),
            ("2026-10-18T25:00Z", None),
            // Hour 24.
            ("2026-10-18T24:00Z", Some(1_792_368_000_000.0)),
            ("2026-10-18T24:00", Some(1_792_368_000_000.0)),
            ("2026-10-18T24:00:00.000Z", Some(1_792_368_000_000.0)),
            ("2026-10-18T24:00:00.0000000000Z", Some(1_792_368_000_000.0)),
            ("2026-10-18t24:00z", Some(1_792_368_000_000.0)),
            ("2026-10-18T24:00:00.000+01:00", Some(1_792_364_400_000.0)),
            ("2026-10-18T24:00:00.0000000001Z", None),
            ("2026-10-18T24:00:00.0001Z", None),
            ("2026-10-18T24:01Z", None),
            // Offsets.
            ("2026-10-18T09:30:00+24:00", None),
            ("2026-10-18T09:30:00+23:59", Some(1_792_229_460_000.0)),
            ("2026-10-18T09:30:00-23:59", Some(1_792_402_140_000.0)),
            ("2026-10-18T09:30:00+23:60", None),
            ("2026-10-18T09:30:00-00:60", None),
            ("2026-10-18T09:30:00-00:00", Some(1_792_315_800_000.0)),
            ("2026-10-18T09:30:00+00:00", Some(1_792_315_800_000.0)),
            ("2026-10-18T09:30:00.1234+02:00", Some(1_792_308_600_123.0)),
            ("2026-10-18T09:30:00+2:00", None),
            ("2026-10-18T09:30:00+02:0", None),
            ("2026-10-18T09:30:00+02:00:00", None),
            ("2026-10-18T09:30:00+02:00Z", None),
            ("2026-10-18T09:30:00Zz", None),
            ("2026-10-18T09:30:00UTC", None),
            ("2026-10-18T09:30:00GMT", None),
            ("2026-10-18T09:30:00.000+0200", None), // legacy: 1792308600000
            ("2026-10-18T09:30:00.5-0530", None),   // legacy: 1792335600500
            // Shapes.
            ("", None),
            ("T09:30", None),
            ("2026-10-18T", None),
            ("2026-10-18TT09:30", None),
            ("2026-10-18T 09:30", None),
            ("2026-10-18T09Z", None),
            ("2026-10-18T9:30Z", None),
            ("2026-10-18T09:3Z", None),
            ("2026-10-18T09:30:00.", None),
            ("2026-10-18T09:30:00,5Z", None),
            ("2026-10-18T09:30.5Z", None),
            ("2026-10-18T09:30:00Z ", None),
            ("2026t09:30Z", Some(1_767_259_800_000.0)),
            ("2026T09:30", Some(1_767_259_800_000.0)),
            ("2026-10T09:30Z", Some(1_790_847_000_000.0)),
            ("2026-10-18T09:30:00z", Some(1_792_315_800_000.0)),
            ("2026-10-18T00:00:00.5", Some(1_792_281_600_500.0)),
            ("1970", Some(0.0)),
            ("2026--10", None),
            ("2026-10-18 ", None), // legacy: 1792281600000
            (" 2026", None),       // legacy: 1767225600000
            ("2026-", None),       // legacy: 1767225600000
            ("2026-10-", None),    // legacy: 1790812800000
            ("2026-1-05", None),   // legacy: 1767571200000
            ("2026-01-5", None),   // legacy: 1767571200000
            ("2026-10-18Z", None), // legacy: 1792281600000
            ("2026-10-18+02:00", None),
            ("202-01-01", None),   // legacy: -55792713600000
            ("02026-01-01", None), // legacy: 1767225600000
            ("12345-01-01", None), // legacy: 327403382400000
            // Expanded years.
            ("+2026-10-18", None),    // legacy: 1792281600000
            ("+02026-01-01", None),   // legacy: 1767225600000
            ("+0020260-01-01", None), // legacy: 577176624000000
            ("+002026-1", None),      // legacy: 1767225600000
            ("+1234567-01-01", None),
            ("-000000-01-01T00:00:00Z", None),
            ("-000000", None),
            ("+000000-01-01T00:00:00Z", Some(-62_167_219_200_000.0)),
            ("+000000", Some(-62_167_219_200_000.0)),
            ("0000", Some(-62_167_219_200_000.0)),
            ("0000-01-01", Some(-62_167_219_200_000.0)),
            ("-000001", Some(-62_198_755_200_000.0)),
            ("-002026", Some(-126_101_577_600_000.0)),
            ("-002026-10-18", Some(-126_076_521_600_000.0)),
            ("+099999-01-01", Some(3_093_496_444_800_000.0)),
            // The ±8.64e15 ms limit.
            ("+275760-09-13T00:00:00Z", Some(8.64e15)),
            ("+275760-09-13", Some(8.64e15)),
            ("+275760-09-13T00:00", Some(8.64e15)),
            ("+275760-09-13T01:00:00+01:00", Some(8.64e15)),
            ("+275760-09-13T00:00:00.001Z", None),
            ("+275760-09-14", None),
            ("-271821-04-20T00:00:00Z", Some(-8.64e15)),
            ("-271821-04-20", Some(-8.64e15)),
            ("-271821-04-20T00:00", Some(-8.64e15)),
            (
                "-271821-04-20T00:00:00-01:00",
                Some(-8_639_999_996_400_000.0),
            ),
            ("-271821-04-20T00:00:00+01:00", None),
            ("-271821-04-19T23:59:59.999Z", None),
            ("+999999-12-31T23:59:59.999Z", None),
            // Fractions: V8's ReadMilliseconds.
            ("2026-10-18T09:30:00.1Z", Some(1_792_315_800_100.0)),
            ("2026-10-18T09:30:00.12Z", Some(1_792_315_800_120.0)),
            ("2026-10-18T09:30:00.000123456Z", Some(1_792_315_800_000.0)),
            ("2026-10-18T09:30:00.0001234567Z", Some(1_792_315_800_001.0)),
            ("2026-10-18T09:30:00.0012345678Z", Some(1_792_315_800_012.0)),
            (
                "2026-10-18T09:30:00.0000000001234567891Z",
                Some(1_792_315_800_123.0),
            ),
            ("2026-10-18T09:30:00.1234567891Z", Some(1_792_315_800_123.0)),
            (
                "2026-10-18T09:30:00.0123456789012Z",
                Some(1_792_315_800_123.0),
            ),
            (
                "2026-10-18T09:30:00.999999999999Z",
                Some(1_792_315_800_999.0),
            ),
            (
                "2026-10-18T09:30:00.000000000000000000000000000000000001Z",
                Some(1_792_315_800_000.0),
            ),
            // NUL ends the input for V8.
            ("2026-10-18\0garbage", Some(1_792_281_600_000.0)),
            ("2026\0-10", Some(1_767_225_600_000.0)),
            ("2026-10-18T09:30\0:00Z", Some(1_792_315_800_000.0)),
            ("2026-10-18T09:30:00.000Z\0", Some(1_792_315_800_000.0)),
            ("2026-10-18T24:00:00.\0", None),
            ("\0", None),
            // Non-ASCII.
            ("2026-10-18T09:30:00\u{2212}02:00", None),
            ("２０２６", None),
        ];
        for &(text, want) in rows {
            case(text, want);
        }
    }

    #[track_caller]
    fn iso_case(ms: f64, want: &str) {
        assert_eq!(to_iso_string(ms), want, "to_iso_string({ms})");
    }

    /// Expected values from `node -e 'new Date(ms).toISOString()'`.
    #[test]
    fn iso_edge_cases() {
        let rows: &[(f64, &str)] = &[
            (0.0, "1970-01-01T00:00:00.000Z"),
            (-0.0, "1970-01-01T00:00:00.000Z"),
            (1.7, "1970-01-01T00:00:00.001Z"),
            (-1.7, "1969-12-31T23:59:59.999Z"),
            (-1.0, "1969-12-31T23:59:59.999Z"),
            (1_792_315_800_000.0, "2026-10-18T09:30:00.000Z"),
            (1_772_323_200_000.0, "2026-03-01T00:00:00.000Z"),
            (951_782_400_000.0, "2000-02-29T00:00:00.000Z"),
            (8.64e15, "+275760-09-13T00:00:00.000Z"),
            (-8.64e15, "-271821-04-20T00:00:00.000Z"),
            (-62_198_755_200_000.0, "-000001-01-01T00:00:00.000Z"),
            (-62_167_219_200_000.0, "0000-01-01T00:00:00.000Z"),
            (-62_167_219_200_001.0, "-000001-12-31T23:59:59.999Z"),
            (253_402_300_799_999.0, "9999-12-31T23:59:59.999Z"),
            (253_402_300_800_000.0, "+010000-01-01T00:00:00.000Z"),
        ];
        for &(ms, want) in rows {
            iso_case(ms, want);
        }
    }

    #[test]
    #[should_panic(expected = "invalid time value")]
    fn iso_rejects_nan() {
        let _ = to_iso_string(f64::NAN);
    }

    #[test]
    #[should_panic(expected = "invalid time value")]
    fn iso_rejects_out_of_range() {
        let _ = to_iso_string(8.64e15 + 1.0);
    }

    /// Walks day by day over the ends and the middle of the valid range,
    /// checking `civil_from_days` against an independent calendar rule and
    /// `days_from_civil` against `civil_from_days`.
    #[test]
    fn civil_calendar_walk() {
        fn month_length(year: i64, month: i64) -> i64 {
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
            match month {
                2 if leap => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            }
        }
        let limit = MAX_TIME_MS / DAY_MS;
        assert_eq!(civil_from_days(-limit), (-271_821, 4, 20));
        assert_eq!(civil_from_days(limit), (275_760, 9, 13));
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        for window in [
            -limit..=-limit + 5000,
            -800_000..=800_000,
            limit - 5000..=limit,
        ] {
            let mut previous = civil_from_days(*window.start() - 1);
            for days in window {
                let (year, month, day) = civil_from_days(days);
                assert_eq!(days_from_civil(year, month) + day - 1, days);
                let (p_year, p_month, p_day) = previous;
                let expected = if p_day < month_length(p_year, p_month) {
                    (p_year, p_month, p_day + 1)
                } else if p_month < 12 {
                    (p_year, p_month + 1, 1)
                } else {
                    (p_year + 1, 1, 1)
                };
                assert_eq!((year, month, day), expected, "day {days}");
                previous = expected;
            }
        }
    }

    proptest! {
        #[test]
        fn iso_round_trips(ms in -8.64e15_f64..=8.64e15_f64) {
            prop_assert_eq!(parse_timestamp(&to_iso_string(ms)), Some(ms.trunc()));
        }

        #[test]
        fn iso_round_trips_integers(ms in -8_640_000_000_000_000_i64..=8_640_000_000_000_000) {
            #[expect(clippy::cast_precision_loss, reason = "|ms| < 2^53")]
            let ms = ms as f64;
            prop_assert_eq!(parse_timestamp(&to_iso_string(ms)), Some(ms));
        }

        #[test]
        fn near_epoch_round_trips(ms in -400_000_000_000_000_i64..=400_000_000_000_000) {
            #[expect(clippy::cast_precision_loss, reason = "|ms| < 2^53")]
            let ms = ms as f64;
            prop_assert_eq!(parse_timestamp(&to_iso_string(ms)), Some(ms));
        }
    }
}
