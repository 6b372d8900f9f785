//! The excerpt of a note result: the passage of its body where the query's terms stand, so
//! that the human line shows why the note matched rather than its heading (already on the line
//! above) and its metadata repeated.
//!
//! The body's lines are either metadata — Markdown headings, field lines of the keys a record's
//! header holds (`**Date:**`, `Status: superseded`, `- Deciders:`…), a short line right under a
//! heading named by such a key (`## Status` then `Accepted`), lines without a letter or digit
//! (`---`) — or prose.
//! The passage starts in the prose line whose window of [`WINDOW`] bytes holds the most
//! distinct query terms (then the most occurrences, then the first), at the line's start when
//! the terms stand near it, else a few words before them (with a leading `…`), and goes on with
//! the prose lines after it. When no prose line holds a term (the heading matched), the passage
//! starts at the first prose line; with no prose at all, it is the body. It is cut as recall
//! cuts every shown text ([`truncate`]).
//!
//! Computed for the results only, after the ranking: it never changes an order or a score.

use crate::js::text::{trim, truncate};
use crate::store::entry::field;

/// How many bytes of a line, from a term, count as one passage.
const WINDOW: usize = 100;
/// A term this close to its line's start (in bytes) shows the line from its start.
const NEAR_START: usize = 48;
/// How many bytes before the first term a passage that does not start its line may start.
const LEAD: usize = 32;
/// The passage takes lines until it holds this many bytes; it is then cut.
const MOST: usize = 600;

/// The keys of a record's header fields, which an excerpt does not show.
const METADATA_KEYS: [&str; 16] = [
    "status",
    "statut",
    "date",
    "deciders",
    "decision-makers",
    "decision makers",
    "tags",
    "supersedes",
    "superseded by",
    "author",
    "authors",
    "consulted",
    "informed",
    "technical story",
    "related",
    "updated",
];

/// A non-empty line of the body: its text (without its line terminator), whether it is a
/// Markdown heading, and whether it stands right under a heading named by a metadata key.
struct Line<'a> {
    text: &'a str,
    is_heading: bool,
    under_metadata_heading: bool,
}

impl Line<'_> {
    /// Whether the line is prose (module documentation). Worked out only for the lines an
    /// excerpt may show: the field check is the costly part.
    fn is_prose(&self) -> bool {
        let trimmed = trim(self.text);
        let is_metadata = self.is_heading
            || !trimmed.chars().any(char::is_alphanumeric)
            || (is_field_shaped(trimmed)
                && METADATA_KEYS
                    .iter()
                    .any(|key| field(trimmed, key).is_some()))
            || (self.under_metadata_heading && trimmed.split_whitespace().count() <= 3);
        !is_metadata
    }
}

/// Whether `line` may be a field line at all: it holds a colon, or is a table row.
fn is_field_shaped(line: &str) -> bool {
    line.starts_with('|') || line.contains(':') || line.contains('\u{ff1a}')
}

/// The body's non-empty lines.
fn lines(body: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut under_metadata_heading = false;
    for text in body.split('\n') {
        let text = text.strip_suffix('\r').unwrap_or(text);
        let trimmed = trim(text);
        if trimmed.is_empty() {
            continue;
        }
        let heading = trimmed.strip_prefix('#').map(|h| {
            let name = trim(h.trim_start_matches('#')).trim_matches(['*', '_']);
            trim(name.trim_end_matches(':'))
        });
        out.push(Line {
            text,
            is_heading: heading.is_some(),
            under_metadata_heading,
        });
        under_metadata_heading = heading.is_some_and(|name| {
            METADATA_KEYS
                .iter()
                .any(|key| name.eq_ignore_ascii_case(key))
        });
    }
    out
}

/// The excerpt of a note whose trimmed text is `text` and heading `heading`; `terms` gives the
/// words of a line that are a query term, as (byte offset in the line, term), in order.
pub(crate) fn excerpt(
    text: &str,
    heading: &str,
    mut terms: impl FnMut(&str) -> Vec<(usize, u16)>,
) -> String {
    let body = text.strip_prefix(heading).unwrap_or(text);
    let body = body.strip_prefix('\n').unwrap_or(body);
    let lines = lines(body);
    // (distinct terms, occurrences) of the best window so far, its line, where in the line
    // its passage starts, and whether that cuts the line.
    let mut best: Option<((usize, usize), usize, usize, bool)> = None;
    for (n, line) in lines.iter().enumerate() {
        let found = terms(line.text);
        if found.is_empty() || !line.is_prose() {
            continue;
        }
        for (i, &(at, _)) in found.iter().enumerate() {
            let within: Vec<u16> = found[i..]
                .iter()
                .take_while(|(p, _)| *p < at + WINDOW)
                .map(|&(_, t)| t)
                .collect();
            let mut distinct = within.clone();
            distinct.sort_unstable();
            distinct.dedup();
            let weight = (distinct.len(), within.len());
            if best.is_none_or(|(w, ..)| weight > w) {
                let (from, cut) = passage_start(line.text, at);
                best = Some((weight, n, from, cut));
            }
        }
    }
    let (first, from, cut) = match best {
        Some((_, n, from, cut)) => (n, from, cut),
        None => match lines.iter().position(Line::is_prose) {
            Some(n) => (n, 0, false),
            None if !lines.is_empty() => return truncate(body),
            None => return truncate(text),
        },
    };
    // The passage: from there to the end of its line, then the prose lines after it.
    let mut passage = String::from(if cut { "…" } else { "" });
    passage.push_str(&lines[first].text[from..]);
    for line in &lines[first + 1..] {
        if passage.len() >= MOST {
            break;
        }
        if !line.is_prose() {
            continue;
        }
        passage.push(' ');
        passage.push_str(line.text);
    }
    truncate(&passage)
}

/// Where in `line` a passage around byte `at` starts, and whether that cuts the line: its
/// start when `at` is near it, else the start of a word at most [`LEAD`] bytes before `at`.
fn passage_start(line: &str, at: usize) -> (usize, bool) {
    let indent = line.len() - line.trim_start().len();
    if at <= indent + NEAR_START {
        return (0, false);
    }
    let mut from = at.saturating_sub(LEAD);
    while !line.is_char_boundary(from) {
        from += 1;
    }
    // The first word that starts at or after `from`.
    match line[from..at].find(char::is_whitespace) {
        Some(space) => {
            let after = &line[from + space..at];
            (at - after.trim_start().len(), true)
        }
        None => (at, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of `line` that are one of `terms` (lowercased), as `excerpt` wants them.
    fn words_in(line: &str, terms: &[&str]) -> Vec<(usize, u16)> {
        let mut found = Vec::new();
        crate::actions::recall::bm25::tokens::for_each_word(line, |word| {
            let lower = word.to_lowercase();
            if let Some(t) = terms.iter().position(|t| *t == lower) {
                let at = (word.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
                found.push((at, u16::try_from(t).unwrap()));
            }
        });
        found
    }

    /// The excerpt for query words `terms` (a word is the term it equals, lowercased).
    #[track_caller]
    fn case(text: &str, terms: &[&str], expected: &str) {
        let heading = text.lines().next().unwrap_or_default();
        assert_eq!(
            excerpt(text, heading, |line| words_in(line, terms)),
            expected,
            "{text:?}"
        );
    }

    #[test]
    fn the_passage_is_where_the_terms_are_not_the_metadata() {
        let stripe = "Stripe as the payment provider\n**Date:** 2026-01-10\n\
                      **Status:** superseded by Adyen as the payment provider\n\
                      **Context:** Card payments for the shop.\n\
                      **Decision:** Stripe handles every payment through its provider API.";
        case(
            stripe,
            &["payment", "provider"],
            "**Decision:** Stripe handles every payment through its provider API.",
        );
        // Only the heading matches: the first prose line.
        case(
            stripe,
            &["stripe"],
            "**Decision:** Stripe handles every payment through its provider API.",
        );
        case(
            stripe,
            &["nothing"],
            "**Context:** Card payments for the shop. **Decision:** Stripe handles every payment \
             through its provider API.",
        );
    }

    #[test]
    fn adr_headers_are_metadata() {
        let adr = "Use Postgres\n#### Status\n\n✅ Accepted\n\n#### Context\n\n\
                   We need a database that the team knows.\n\n#### Decision\n\nUse Postgres.";
        case(
            adr,
            &["accepted"],
            "We need a database that the team knows. Use Postgres.",
        );
        case(adr, &["postgres"], "Use Postgres.");
        let madr = "Use slugs\n---\nstatus: accepted\ndate: 2020-10-16\n---\nSlugs are stable.";
        case(madr, &["slugs"], "Slugs are stable.");
    }

    #[test]
    fn a_term_far_into_a_line_starts_the_passage_a_few_words_before_it() {
        let text = format!(
            "T\n{} the cache must be warmed before traffic arrives.",
            "word ".repeat(30)
        );
        case(
            &text,
            &["cache"],
            "…word word word word word the cache must be warmed before traffic arrives.",
        );
        // The window with more distinct terms wins over the first occurrence.
        let text = format!(
            "T\nThe cache is small. {} The cache and the queue share a host.",
            "filler ".repeat(30)
        );
        case(
            &text,
            &["cache", "queue"],
            "…filler filler filler The cache and the queue share a host.",
        );
    }

    #[test]
    fn long_passages_are_cut_as_recall_cuts() {
        let text = format!("T\nThe cache {}", "x ".repeat(200));
        let got = excerpt(&text, "T", |line| words_in(line, &["cache"]));
        assert!(got.starts_with("The cache x x"), "{got}");
        assert!(got.ends_with('…'), "{got}");
        assert_eq!(got.encode_utf16().count(), 120);
        // A note that is only a heading shows it.
        assert_eq!(
            excerpt("Only a heading", "Only a heading", |_| Vec::new()),
            "Only a heading"
        );
    }
}
