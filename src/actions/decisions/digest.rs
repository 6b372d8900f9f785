//! The digests a ledger record keeps of a decision's text, so that `lint` can tell whether the
//! text still reads as it was ledgered.
//!
//! * **Rule 2** (records that say `"digest": 2`, every record written since): SHA-256 of the
//!   section's full text, trimmed, with only its *status value* left out — the status word and,
//!   for a supersede, `by <successor>` ([`status_span`]); a value the reader cannot place is
//!   left out whole (it disagrees with every ledger record, which `lint` reports as such).
//!   Everything else is covered: the rest of the status line (`**Status:** active — REVISED:
//!   30-day tokens` covers `— REVISED: …`), the other lines of a `Status` block. The value's
//!   place is kept (a NUL stands for it), so moving it elsewhere in the section is an edit too.
//!   A status line that holds nothing but its key and its value (`**Status:** active`,
//!   `- **Status**: superseded by B`) is left out whole, so that adding one to a decision that
//!   had none — which ending it needs — is not an edit.
//! * **Rule 1** (older records, without the key): the same text with the whole status line (and
//!   its line end) left out. Records written before rule 2 keep being checked by it, so
//!   upgrading flags nothing.
//!
//! Both read the status where [`status_line`] finds it — on a field line, or on the line after
//! a `Status` heading — and only through its `value_range`, so they follow every layout that
//! reader knows. Pure: no I/O.

use std::ops::Range;

use crate::js::json::sha256_hex;
use crate::js::text::trim;
use crate::store::entry::{Status, parse_status, status_line};
use crate::store::sections::Section;

/// The digest rule new records are written with.
pub const CURRENT: u8 = 2;

/// The digest of `section` under `rule` (1 or 2; any other value is rule 2).
#[must_use]
pub fn digest(section: &Section<'_>, rule: u8) -> String {
    if rule == 1 {
        rule_1(section)
    } else {
        rule_2(section)
    }
}

/// Whether `sha256`, a digest made under `rule`, still stands for `section`'s text. Under rule
/// 1 the digest of the whole text also stands: a decision ledgered before the reader knew its
/// status layout (a `## Status` heading with its value below) was digested whole, as one
/// without a status line.
#[must_use]
pub fn matches(section: &Section<'_>, rule: u8, sha256: &str) -> bool {
    digest(section, rule) == sha256
        || (rule == 1 && sha256_hex(section.trimmed_text().as_bytes()) == sha256)
}

/// The byte range, inside `value`, of the part that is the status itself: from the last word
/// that starts a reading of the whole status (so a history such as `proposed → accepted` keeps
/// `proposed →` covered), to the first word end at which that reading is complete (so
/// `active — REVISED: …` stops after `active`, and `superseded by Session store in Redis` runs
/// to the successor's last word). All of a value that names no status.
#[must_use]
pub fn status_span(value: &str, status: &Status) -> Range<usize> {
    if matches!(status, Status::Unreadable(_)) {
        return 0..value.len();
    }
    let is_word = |c: char| c.is_alphanumeric();
    let mut starts = Vec::new();
    let mut ends = Vec::new();
    let mut previous_is_word = false;
    for (i, c) in value.char_indices() {
        if is_word(c) && !previous_is_word {
            starts.push(i);
        }
        if !is_word(c) && previous_is_word {
            ends.push(i);
        }
        previous_is_word = is_word(c);
    }
    if previous_is_word {
        ends.push(value.len());
    }
    let start = starts
        .iter()
        .rev()
        .copied()
        .find(|&p| parse_status(&value[p..]) == *status)
        .unwrap_or(0);
    let end = ends
        .iter()
        .copied()
        .filter(|&e| e > start)
        .find(|&e| parse_status(&value[start..e]) == *status)
        .unwrap_or(value.len());
    start..end
}

/// The absolute byte range of `section`'s status value in the text it was cut from (see
/// [`status_span`]), when it has a readable one inside its body.
#[must_use]
pub fn status_value_range(section: &Section<'_>) -> Option<Range<usize>> {
    let line = status_line(section)?;
    let span = status_span(line.field.value, &line.status);
    let at = line.field.value_range.start;
    Some(at + span.start..at + span.end)
}

/// Whether `rest` — a status line without its status value — holds nothing but the key and
/// its markup (`**Status:** `, `- **Statut** : `, `| Status | |`).
fn is_bare(rest: &str) -> bool {
    let kept: String = rest
        .chars()
        .filter(|c| !"*_-+>|:`[]\u{a0}\u{202f}\u{ff1a}".contains(*c) && !c.is_whitespace())
        .collect::<String>()
        .to_lowercase();
    kept.is_empty() || kept == "status" || kept == "statut"
}

/// The end of the line that ends at `end` in `body`, its terminator included.
fn with_line_end(body: &str, end: usize) -> usize {
    if body[end..].starts_with("\r\n") {
        end + 2
    } else if body[end..].starts_with('\n') {
        end + 1
    } else {
        end
    }
}

/// SHA-256 of the section's full text, trimmed, its body replaced by what `cut` makes of it
/// (`cut` gets the body and the byte range of the body in the source text).
fn hash(section: &Section<'_>, cut: impl FnOnce(&str, Range<usize>) -> String) -> String {
    let [heading, newline, body, extra] = section.parts();
    let start = section.body_start();
    let body = cut(body, start..start + body.len());
    sha256_hex(trim(&[heading, newline, &body, extra].concat()).as_bytes())
}

/// `body` without the line that spans `line` (source offsets; `at` is where `body` starts),
/// its terminator included.
fn without_line(body: &str, at: usize, line: &Range<usize>) -> String {
    [
        &body[..line.start - at],
        &body[with_line_end(body, line.end - at)..],
    ]
    .concat()
}

fn rule_2(section: &Section<'_>) -> String {
    let value = status_value_range(section);
    let line = status_line(section).map(|l| l.field.line);
    hash(section, |body, within| {
        let at = within.start;
        let inside = |r: &Range<usize>| r.start >= within.start && r.end <= within.end;
        match (value.filter(inside), line.filter(inside)) {
            (Some(value), Some(line))
                if line.start <= value.start
                    && value.end <= line.end
                    && is_bare(&format!(
                        "{}{}",
                        &body[line.start - at..value.start - at],
                        &body[value.end - at..line.end - at]
                    )) =>
            {
                without_line(body, at, &line)
            }
            (Some(value), _) => {
                [&body[..value.start - at], "\u{0}", &body[value.end - at..]].concat()
            }
            (None, _) => body.to_owned(),
        }
    })
}

fn rule_1(section: &Section<'_>) -> String {
    let line = status_line(section).map(|l| l.field.line);
    hash(section, |body, within| {
        match line.filter(|l| l.start >= within.start && l.end <= within.end) {
            Some(line) => without_line(body, within.start, &line),
            None => body.to_owned(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sections::sections;

    fn of(text: &str, rule: u8) -> String {
        digest(&sections(text)[0], rule)
    }

    #[test]
    fn rule_1_ignores_the_status_line_and_nothing_else() {
        let a = "### A\n**Date:** 2026-10-01\n**Status:** active\n**Decision:** x\n";
        let flipped = a.replace("active", "superseded by B");
        let edited = a.replace("x\n", "y\n");
        let crlf = "### A\r\n**Date:** 2026-10-01\r\n**Status:** active\r\n**Decision:** x\r\n";
        assert_eq!(of(a, 1), of(&flipped, 1));
        assert_ne!(of(a, 1), of(&edited, 1));
        assert_eq!(
            of(a, 1),
            sha256_hex(b"A\n**Date:** 2026-10-01\n**Decision:** x")
        );
        assert_eq!(of(crlf, 1), of(&crlf.replace("active", "abrogated"), 1));
        // Text added to the status line escapes rule 1: what rule 2 is for.
        assert_eq!(
            of(a, 1),
            of(&a.replace("active", "active — REVISED: 30-day tokens"), 1)
        );
        // Trailing blank lines and the next section do not count.
        assert_eq!(of(a, 1), of(&format!("{a}\n\n### B\nb\n"), 1));
    }

    #[test]
    fn rule_2_leaves_out_the_status_value_only() {
        let a = "### A\n**Date:** 2026-10-01\n**Status:** active (since 2026)\n**Decision:** x\n";
        assert_eq!(
            of(a, 2),
            sha256_hex(
                "A\n**Date:** 2026-10-01\n**Status:** \u{0} (since 2026)\n**Decision:** x"
                    .as_bytes()
            )
        );
        for flipped in [
            "superseded by B",
            "superseded by Session store in Redis (v2)",
            "abrogated",
            "rolled back",
            "proposed",
            "rejected",
        ] {
            let text = a.replace("active (since 2026)", flipped);
            let bare = a.replace(" (since 2026)", "").replace("active", flipped);
            assert_eq!(
                of(&bare, 2),
                of(&a.replace(" (since 2026)", ""), 2),
                "{flipped}"
            );
            assert_ne!(of(a, 2), of(&text, 2), "{flipped}");
        }
        for flipped in ["abrogated", "rolled back", "proposed", "rejected"] {
            assert_eq!(of(a, 2), of(&a.replace("active", flipped), 2), "{flipped}");
        }
        for edit in [
            a.replace("(since 2026)", "— REVISED: 30-day tokens"),
            a.replace("x\n", "y\n"),
            a.replace("**Status:**", "- **Status note**:"),
            a.replace("**Status:** active (since 2026)\n", ""),
            a.replace(
                "**Decision:** x\n",
                "**Decision:** x\n**Status note:** revised\n",
            ),
        ] {
            assert_ne!(of(a, 2), of(&edit, 2), "{edit}");
        }
        // A status line of nothing but the key and the value counts as no line at all, in any
        // spelling; text beside the value is covered.
        let bare = "### A\n**Date:** 2026-10-01\n**Status:** active\n**Decision:** x\n";
        let without = "### A\n**Date:** 2026-10-01\n**Decision:** x\n";
        assert_eq!(of(bare, 2), of(without, 2));
        assert_eq!(of(bare, 2), of(bare, 1));
        for same in [
            bare.replace("**Status:** active", "- **Status** : superseded by B"),
            bare.replace("**Status:** active", "| **Statut** | abrogé |"),
            bare.replace("**Status:** active", "> **Status: active**"),
        ] {
            assert_eq!(of(bare, 2), of(&same, 2), "{same}");
        }
        for edit in [
            bare.replace("active", "active — REVISED: 30-day tokens"),
            bare.replace("active", "✅ active"),
        ] {
            assert_ne!(of(bare, 2), of(&edit, 2), "{edit}");
        }
        // A value the reader cannot place is left out whole.
        assert_eq!(
            of(&a.replace("active (since 2026)", "in force"), 2),
            of(without, 2)
        );
        // The text after a status word stays covered whatever the status becomes.
        assert_ne!(of(a, 2), of(&a.replace("(since 2026)", "(since 2027)"), 2));
    }

    #[test]
    fn rule_2_covers_the_rest_of_a_status_block() {
        let a = "### A\n**Status:** Accepted\nAmended 2026-10-02: also for the admin API.\n";
        assert_ne!(
            of(a, 2),
            of(
                &a.replace("also for the admin API", "only for the admin API"),
                2
            )
        );
        assert_eq!(of(a, 2), of(&a.replace("Accepted", "superseded by B"), 2));
    }

    proptest::proptest! {
        /// A status value replaced where its span lies leaves the digest as it was, whenever
        /// the new value reads back and spans exactly what was written — what the commands'
        /// flips rely on; and a span always lies inside its value.
        #[test]
        fn a_flip_within_the_span_keeps_the_digest(
            before in proptest::sample::select(vec!["", "✅ ", "[", "`", "~~draft~~ ", "Proposed → "]),
            word in proptest::sample::select(vec!["active", "Accepted", "proposed", "draft", "✅ Accepted"]),
            after in "([ (,;—\\]`-][ -~]{0,15})?",
            to in proptest::sample::select(vec![
                Status::Abrogated,
                Status::Rejected,
                Status::Active,
                Status::Superseded { by: Some("B".to_owned()) },
            ]),
            prefix in proptest::sample::select(vec!["**Status:** ", "- **Status**: ", "Status: "]),
        ) {
            let value = format!("{before}{word}{after}");
            let status = parse_status(&value);
            let span = status_span(&value, &status);
            proptest::prop_assert!(span.start <= span.end && span.end <= value.len());
            proptest::prop_assert!(value.is_char_boundary(span.start) && value.is_char_boundary(span.end));
            let written = to.to_value();
            let flipped = format!("{}{written}{}", &value[..span.start], &value[span.end..]);
            let text = |v: &str| format!("### T\nbefore\n{prefix}{v}\nafter\n");
            let reads = sections(&text(&flipped)).first().and_then(|s| {
                let line = status_line(s)?;
                Some((line.status.clone(), status_span(line.field.value, &line.status)))
            });
            if let Some((read, new_span)) = reads
                && read == to
                && new_span == (span.start..span.start + written.len())
                && matches!(status, Status::Active | Status::Proposed)
                && status_line(&sections(&text(&value))[0]).map(|l| l.field.value) == Some(value.trim())
            {
                proptest::prop_assert_eq!(of(&text(&value), 2), of(&text(&flipped), 2));
            }
        }
    }

    #[track_caller]
    fn span(value: &str, expected: &str) {
        let status = parse_status(value);
        assert_eq!(&value[status_span(value, &status)], expected, "{value:?}");
    }

    #[test]
    fn the_status_span() {
        span("active", "active");
        span("active — REVISED: 30-day tokens…", "active");
        span("✅ Accepted", "Accepted");
        span("[rolled-back]", "rolled-back");
        span("Rolled back on 2026-10-02", "Rolled back");
        span("Proposed → Accepted", "Accepted");
        span(
            "superseded by Session store in Redis",
            "superseded by Session store in Redis",
        );
        span(
            "Accepted -> Superseded by Session store in Redis",
            "Superseded by Session store in Redis",
        );
        span(
            "superseded by Active Directory",
            "superseded by Active Directory",
        );
        span("~~active~~ superseded", "superseded");
        span("superseded", "superseded");
        span("TBD", "TBD");
    }
}
