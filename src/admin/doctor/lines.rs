//! The lines of a registry as `doctor` reads them for its checks and repairs: conflict markers,
//! repeated and out-of-order records, the complete part of a torn file. Pure: no I/O.

use std::collections::HashMap;

use crate::js::json::{self, Value};
use crate::store::layout::{DECISION_LEDGER, JOURNAL, OUTCOMES, PROMOTIONS, REINFORCEMENTS};

/// A line's `(start, end)` byte range in its file, its newline included.
pub(crate) type Span = (usize, usize);

/// The append-only registries, the only files the repairs (`--repair-tail`, `--repair-encoding`,
/// `--dedupe`) accept.
pub(crate) const NDJSON_REGISTRIES: [&str; 5] = [
    JOURNAL,
    PROMOTIONS,
    OUTCOMES,
    DECISION_LEDGER,
    REINFORCEMENTS,
];

/// The 1-based numbers of the lines that open a merge conflict, as git writes one: a line
/// `<<<<<<< ` (or `<<<<<<<` alone), then, in order, an optional `||||||| ` line (the base, in
/// the diff3 style), a line `=======` and a line `>>>>>>> `, each at the start of its line (a
/// `\r` before the line end ignored). Only the whole structure counts, so a Markdown heading
/// underlined with `=======`, or a quoted `>>>>>>>`, is not a conflict; an opening line seen
/// again before the closing one starts the conflict over.
pub(crate) fn conflict_openings(bytes: &[u8]) -> Vec<usize> {
    let mut openings = Vec::new();
    // The opening line of the conflict being read, and whether its `=======` was seen.
    let mut open: Option<(usize, bool)> = None;
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let is = |marker: &[u8]| {
            line == marker
                || line
                    .strip_prefix(marker)
                    .is_some_and(|rest| rest.starts_with(b" "))
        };
        open = match open {
            _ if is(b"<<<<<<<") => Some((i + 1, false)),
            Some((at, false)) if line == b"=======" => Some((at, true)),
            Some((at, true)) if is(b">>>>>>>") => {
                openings.push(at);
                None
            }
            other => other,
        };
    }
    openings
}

/// Whether `line` is one of git's conflict marker lines.
pub(crate) fn is_marker(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    [b"<<<<<<<", b"=======", b">>>>>>>", b"|||||||"]
        .iter()
        .any(|m| line == *m || (line.starts_with(*m) && line.get(7) == Some(&b' ')))
}

/// What a merge can leave in a registry's lines: exact copies of a line (counted beyond the
/// first), the ids that have different versions (with their line numbers), and the records whose
/// timestamp is older than one before them (how many, and the first one's line).
#[derive(Debug, Default)]
pub(crate) struct Doubles {
    /// The lines that repeat an earlier one.
    pub(crate) exact: Vec<Span>,
    pub(crate) divergent: Vec<(String, Vec<usize>)>,
    pub(crate) out_of_order: usize,
    pub(crate) first_out_of_order: usize,
}

/// Reads the complete lines of a registry for [`Doubles`]. Blank lines and conflict markers are
/// left out.
pub(crate) fn doubles(bytes: &[u8]) -> Doubles {
    let complete = complete_len(bytes);
    let mut found = Doubles::default();
    let mut seen: std::collections::HashSet<&[u8]> = std::collections::HashSet::new();
    let mut by_id: HashMap<String, Vec<(usize, &[u8])>> = HashMap::new();
    let mut ids_in_order: Vec<String> = Vec::new();
    let mut latest: Option<String> = None;
    let mut start = 0;
    for (i, line) in bytes[..complete].split(|&b| b == b'\n').enumerate() {
        let end = start + line.len() + 1;
        let range = (start, end.min(complete));
        start = end;
        if line.trim_ascii().is_empty() || is_marker(line) {
            continue;
        }
        if !seen.insert(line) {
            found.exact.push(range);
            continue;
        }
        let Some(Value::Object(record)) = std::str::from_utf8(line)
            .ok()
            .and_then(|text| json::parse(crate::js::text::trim(text)).ok())
        else {
            continue;
        };
        if let Some(Value::String(id)) = record.get("id") {
            let versions = by_id.entry(id.clone()).or_default();
            if versions.is_empty() {
                ids_in_order.push(id.clone());
            }
            versions.push((i + 1, line));
        }
        if let Some(Value::String(ts)) = record.get("ts") {
            match &latest {
                Some(newest) if ts.len() == newest.len() && ts < newest => {
                    found.out_of_order += 1;
                    if found.first_out_of_order == 0 {
                        found.first_out_of_order = i + 1;
                    }
                }
                _ => latest = Some(ts.clone()),
            }
        }
    }
    for id in ids_in_order {
        let versions = &by_id[&id];
        if versions.len() > 1 {
            found
                .divergent
                .push((id, versions.iter().map(|(line, _)| *line).collect()));
        }
    }
    found
}

/// The length of the part of `bytes` that ends with its last `\n` (0 when there is none).
pub(crate) fn complete_len(bytes: &[u8]) -> usize {
    bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(text: &str, want: &[usize]) {
        assert_eq!(conflict_openings(text.as_bytes()), want, "{text:?}");
    }

    #[test]
    fn a_conflict_is_the_whole_structure_git_writes() {
        case(
            "a\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> other\nb\n",
            &[2],
        );
        // diff3: the base between ours and the separator.
        case(
            "<<<<<<< ours\nx\n||||||| base\nw\n=======\ny\n>>>>>>> theirs\n",
            &[1],
        );
        // Bare markers, CRLF line ends, an empty side, two conflicts.
        case("<<<<<<<\r\n=======\r\nt\r\n>>>>>>>\r\n", &[1]);
        case(
            "<<<<<<< a\n=======\n>>>>>>> b\nmid\n<<<<<<< a\nx\n=======\n>>>>>>> b\n",
            &[1, 5],
        );
        // An opening seen again starts over: the first one never closed.
        case("<<<<<<< a\nx\n<<<<<<< a\n=======\n>>>>>>> b\n", &[3]);
    }

    #[test]
    fn markdown_that_only_looks_like_a_marker_is_no_conflict() {
        // A setext heading's underline, alone or after an opening that never closes.
        case("Title\n=======\n\ntext\n", &[]);
        case("<<<<<<< a\nTitle\n=======\n", &[]);
        // No separator between the opening and the closing line.
        case("<<<<<<< a\nx\n>>>>>>> b\n", &[]);
        // Out of order, indented, or longer runs.
        case(">>>>>>> b\n=======\n<<<<<<< a\n", &[]);
        case("  <<<<<<< a\n=======\n>>>>>>> b\n", &[]);
        case("<<<<<<<< a\n=======\n>>>>>>> b\n", &[]);
        case("<<<<<<<a\n=======\n>>>>>>> b\n", &[]);
        case("<<<<<<< a\n======= x\n>>>>>>> b\n", &[]);
    }
}
