//! The score charts' points, from the reinforcement records (`.bmad/records/reinforcements.ndjson`,
//! docs/FORMAT.md), read by their own reader ([`records::by_pattern`]): each record's `after` is
//! the pattern's score once it was folded in, so a pattern's records in canonical order are its
//! score over time. The file is read with the confined reader (a regular file of at most 2 MiB);
//! lines that are not UTF-8, do not parse or are torn are left out and counted, never fatal. A
//! missing file means no records: each chart then shows the current score alone. Nothing here
//! writes the file.

use std::path::Path;

use crate::actions::reinforce::records;
use crate::actions::reinforce::score::Score;
use crate::store::journal;
use crate::store::layout::REINFORCEMENTS;
use crate::store::paths::read_registry_bytes;

/// One reinforcement, as the charts and the timeline use it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reinforcement {
    /// When, in epoch milliseconds.
    pub ms: f64,
    pub pattern: String,
    pub reward: f64,
    pub elo: f64,
    /// The Beta mean after it, `alpha / (alpha + beta)`.
    pub mean: f64,
}

/// The records read, and what was left out.
#[derive(Debug, Default)]
pub(crate) struct Reinforcements {
    /// Pattern by pattern (in the order of their first line), each in canonical order.
    pub records: Vec<Reinforcement>,
    /// Lines that are not records (not UTF-8, torn, unparseable).
    pub skipped: usize,
    /// Why the file could not be read at all.
    pub problem: Option<String>,
}

impl Reinforcements {
    /// The records of `pattern`, in canonical order (oldest first).
    #[must_use]
    pub(crate) fn of(&self, pattern: &str) -> Vec<&Reinforcement> {
        self.records
            .iter()
            .filter(|r| r.pattern == pattern)
            .collect()
    }
}

/// Reads the records of the project at `root`.
#[must_use]
pub(crate) fn read(root: &Path) -> Reinforcements {
    match read_registry_bytes(root, REINFORCEMENTS, true) {
        Ok(None) => Reinforcements::default(),
        Ok(Some(bytes)) => {
            let (text, bad) = journal::decode_lines(bytes);
            parse(&text, bad)
        }
        Err(e) => Reinforcements {
            problem: Some(e.to_string()),
            ..Reinforcements::default()
        },
    }
}

/// The records of a file's text, `bad` lines already found not to be UTF-8.
#[must_use]
pub(crate) fn parse(text: &str, bad: usize) -> Reinforcements {
    let mut found = records::by_pattern(text.split('\n').enumerate().map(|(i, l)| (i + 1, l)));
    let mut out = Reinforcements {
        skipped: bad + found.invalid.len(),
        ..Reinforcements::default()
    };
    for pattern in &found.order {
        for record in found.patterns.remove(pattern).unwrap_or_default() {
            let after = Score::from_previous(Some(&record.after));
            out.records.push(Reinforcement {
                ms: record.ms,
                reward: record.reward,
                elo: after.elo,
                mean: after.alpha / (after.alpha + after.beta),
                pattern: record.pattern,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"ts":"2026-10-01T00:00:00.000Z","id":"a","pattern":"P","reward":1,"signals":{"ci":"pass"},"before":null,"after":{"elo":1216,"alpha":2,"beta":1,"mean":0.6666666666666666,"updates":1,"lastTs":"2026-10-01T00:00:00.000Z"}}"#;

    #[test]
    fn reads_records_and_counts_the_rest() {
        let text = format!(
            "{GOOD}\n\nnull\n{}\n{}\n{}\n{}",
            GOOD.replace("\"P\"", "\"Q\"")
                .replace("2026-10-01", "2026-09-01")
                .replace("\"id\":\"a\"", "\"id\":\"b\""),
            GOOD.replace("\"reward\":1", "\"reward\":1.5"),
            GOOD.replace(
                "\"ts\":\"2026-10-01T00:00:00.000Z\"",
                "\"ts\":\"yesterday\""
            ),
            // A torn final line.
            &GOOD[..40],
        );
        let read = parse(&text, 2);
        assert_eq!(read.records.len(), 2);
        assert_eq!(read.skipped, 2 + 4);
        let p = &read.records[0];
        assert_eq!((p.pattern.as_str(), p.reward, p.elo), ("P", 1.0, 1216.0));
        assert!((p.mean - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(read.of("Q").len(), 1);
        assert!(read.of("none").is_empty());
    }

    #[test]
    fn a_pattern_s_records_come_in_canonical_order() {
        let later = GOOD
            .replace("\"elo\":1216", "\"elo\":1230")
            .replace("\"id\":\"a\"", "\"id\":\"c\"");
        let earlier = GOOD.replace("2026-10-01", "2026-08-01");
        let read = parse(&format!("{later}\n{earlier}\n"), 0);
        let elos: Vec<f64> = read.of("P").iter().map(|r| r.elo).collect();
        assert_eq!(elos, [1216.0, 1230.0]);
    }
}
