//! The readable text of each tool's result, made from its structured result (the command's
//! `--json` object): what a model reads first.
//!
//! The brief is its Markdown; recall, a compact list with one line per match and the references
//! `memory_read` takes; an entry read, the entry; the others, a line or two. Warnings follow,
//! one line each. Nothing here reads the memory: the structured result holds it all.

use std::fmt::Write;

use serde_json::Value;

/// How many characters of a match's text the recall list shows.
const SNIPPET: usize = 140;

/// The brief: its Markdown.
#[must_use]
pub(crate) fn brief(result: &Value) -> String {
    let mut out = string(&result["text"]).to_owned();
    warnings(result, &mut out);
    out
}

/// Recall: one line per match, best first.
#[must_use]
pub(crate) fn recall(result: &Value) -> String {
    let query = string(&result["query"]);
    let results = result["results"].as_array().map_or(&[][..], Vec::as_slice);
    let mut out = if results.is_empty() {
        format!("No match for \"{query}\".\n")
    } else {
        format!(
            "{} {} for \"{query}\", best first ({} ranking). memory_read gives one whole: file \
             and heading for a note, id for an event.\n",
            results.len(),
            if results.len() == 1 {
                "match"
            } else {
                "matches"
            },
            string(&result["ranking"]),
        )
    };
    for (i, item) in results.iter().enumerate() {
        let score = item["score"].as_f64().unwrap_or(0.0);
        let _ = write!(out, "{}. [{score:.2}] ", i + 1);
        if item["kind"] == "note" {
            let status = match (string(&item["status"]), string(&item["supersededBy"])) {
                ("" | "active", _) => String::new(),
                ("superseded", by) if !by.is_empty() => format!(" (superseded by {by})"),
                (status, _) => format!(" ({status})"),
            };
            let body = match item.get("excerpt").and_then(Value::as_str) {
                Some(excerpt) => excerpt,
                // The text's first line is the heading.
                None => string(&item["text"])
                    .split_once('\n')
                    .map_or("", |(_, body)| body),
            };
            let _ = writeln!(
                out,
                "note {}, heading \"{}\"{status}: {}",
                string(&item["sourceFile"]),
                text_of(&item["ref"]),
                snippet(body),
            );
        } else {
            let event = &item["event"];
            let day: String = text_of(&event["ts"]).chars().take(10).collect();
            let mut about = vec![day, text_of(&event["agent"])];
            if let Some(outcome) = event["outcome"].as_str() {
                about.push(outcome.to_owned());
            }
            let source = string(&item["source"]);
            if source != "journal.ndjson" {
                about.push(source.to_owned());
            }
            let _ = writeln!(
                out,
                "event id \"{}\" ({}): {}",
                text_of(&item["ref"]),
                about.join(", "),
                snippet(&text_of(&event["task"])),
            );
        }
    }
    warnings(result, &mut out);
    out
}

/// An entry read: a note section as Markdown, an event as JSON.
#[must_use]
pub(crate) fn read(result: &Value) -> String {
    let mut out = if result["kind"] == "note" {
        format!(
            "From {}:\n\n### {}\n",
            string(&result["file"]),
            string(&result["text"])
        )
    } else {
        format!(
            "Event {} from {}:\n{}\n",
            text_of(&result["ref"]),
            string(&result["source"]),
            serde_json::to_string_pretty(&result["event"]).unwrap_or_default()
        )
    };
    warnings(result, &mut out);
    out
}

/// A journal event written.
#[must_use]
pub(crate) fn write(result: &Value) -> String {
    let event = &result["written"];
    format!(
        "Recorded event {} in the project's journal ({}).\n",
        string(&event["id"]),
        string(&event["ts"])
    )
}

/// A candidate proposed (or the identical one already pending).
#[must_use]
pub(crate) fn propose(result: &Value) -> String {
    format!(
        "Candidate {} ({} \"{}\") is pending in {}; a person admits or refuses it.\n",
        string(&result["id"]),
        string(&result["type"]),
        string(&result["title"]),
        string(&result["file"])
    )
}

/// A handoff written.
#[must_use]
pub(crate) fn handoff(result: &Value) -> String {
    let filled: Vec<&str> = result["filled"]
        .as_array()
        .map(|parts| parts.iter().map(string).collect())
        .unwrap_or_default();
    format!(
        "Handoff written to {} (parts: {}); the next session's brief shows it first.\n",
        string(&result["written"]),
        filled.join(", ")
    )
}

/// The accepted-outcome receipts: one line each.
#[must_use]
pub(crate) fn outcomes(result: &Value) -> String {
    let receipts = result["results"].as_array().map_or(&[][..], Vec::as_slice);
    if receipts.is_empty() {
        return "No accepted-outcome receipt.\n".to_owned();
    }
    let counting = receipts.iter().filter(|r| r["eligible"] == true).count();
    let mut out = format!(
        "{} accepted-outcome receipt(s), {counting} counting today:\n",
        receipts.len()
    );
    for receipt in receipts {
        let id: String = string(&receipt["id"]).chars().take(12).collect();
        let memory = &receipt["memory"];
        let state = match receipt["reason"].as_str() {
            None => "counts".to_owned(),
            Some(reason) => format!("does not count: {reason}"),
        };
        let _ = writeln!(
            out,
            "- {id} {} § {}: {state}",
            string(&memory["file"]),
            string(&memory["heading"])
        );
    }
    out
}

/// A string value's text, `""` for anything else.
fn string(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// Any value's text: a string as it is, anything else as JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `text` on one line, Markdown emphasis dropped, cut to [`SNIPPET`] characters.
fn snippet(text: &str) -> String {
    let line = text.replace("**", "");
    let words: Vec<&str> = line.split_whitespace().collect();
    let line = words.join(" ");
    if line.chars().count() <= SNIPPET {
        return line;
    }
    let cut: String = line.chars().take(SNIPPET - 1).collect();
    format!("{}…", cut.trim_end())
}

/// The result's warnings, one line each.
fn warnings(result: &Value, out: &mut String) {
    for warning in result["warnings"].as_array().into_iter().flatten() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        let _ = writeln!(out, "warning: {}", string(warning));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn recall_is_one_line_per_match() {
        let result = json!({
            "query": "auth", "scope": "project", "ranking": "lexical", "count": 2,
            "results": [
                {"score": 0.316, "kind": "note", "source": "lessons.md",
                 "sourceFile": ".agents/memory/lessons.md", "ref": "Revocation",
                 "text": "Revocation\n**Date:** 2026-08-18\n**Lesson:** never cache it."},
                {"score": 0.2, "kind": "event", "source": "journal.ndjson", "ref": "6b1dc0dc38b7",
                 "text": "…", "event": {"ts": "2026-10-17T10:00:00.000Z", "agent": "forge",
                 "task": "fix the\nparser", "outcome": "success"}}
            ],
            "warnings": ["w"]
        });
        assert_eq!(
            recall(&result),
            "2 matches for \"auth\", best first (lexical ranking). memory_read gives one whole: \
             file and heading for a note, id for an event.\n\
             1. [0.32] note .agents/memory/lessons.md, heading \"Revocation\": Date: 2026-08-18 \
             Lesson: never cache it.\n\
             2. [0.20] event id \"6b1dc0dc38b7\" (2026-10-17, forge, success): fix the parser\n\
             warning: w\n"
        );
        let none = json!({"query": "x", "ranking": "lexical", "results": []});
        assert_eq!(recall(&none), "No match for \"x\".\n");
    }

    #[test]
    fn a_long_text_is_cut() {
        let long = "word ".repeat(100);
        let cut = snippet(&long);
        assert!(cut.chars().count() <= SNIPPET, "{cut}");
        assert!(cut.ends_with("word…"), "{cut}");
        assert_eq!(snippet("  a\n **b**  "), "a b");
    }
}
