//! The reinforcement records, `.bmad/memory/reinforcements.ndjson`, as the score charts read
//! them: one line per `reinforce`, `{"ts","id","pattern","reward","signals","before","after"}`
//! with `after` = `{"elo","alpha","beta","updates","lastTs"}`.
//!
//! Read like the other registries: the confined reader (a regular file of at most 2 MiB), lines
//! that are not UTF-8, do not parse or are torn (a final line cut short) skipped and counted,
//! never fatal. A record is kept only when every field a chart draws is there and sound: a
//! timestamp (docs §2.5), a pattern id, a reward in [0, 1], and finite `elo`, positive `alpha`
//! and `beta`. A missing file means no records: each chart then shows the current score alone.
//! Nothing here writes the file.

use std::path::Path;

use crate::js::date;
use crate::js::json::{Object, Value};
use crate::store::journal;
use crate::store::layout::REINFORCEMENTS;
use crate::store::paths::read_registry_bytes;

/// One reinforcement, as the charts use it.
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
    /// In file order.
    pub records: Vec<Reinforcement>,
    /// Lines that are not records (torn, unparseable, missing a field).
    pub skipped: usize,
    /// Why the file could not be read at all.
    pub problem: Option<String>,
}

impl Reinforcements {
    /// The records of `pattern`, oldest first.
    #[must_use]
    pub(crate) fn of(&self, pattern: &str) -> Vec<&Reinforcement> {
        let mut found: Vec<&Reinforcement> = self
            .records
            .iter()
            .filter(|r| r.pattern == pattern)
            .collect();
        found.sort_by(|a, b| a.ms.total_cmp(&b.ms));
        found
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
    let mut out = Reinforcements {
        skipped: bad,
        ..Reinforcements::default()
    };
    for line in journal::lines(text) {
        match journal::event(line).as_ref().and_then(record) {
            Some(r) => out.records.push(r),
            None => out.skipped += 1,
        }
    }
    out
}

fn record(object: &Object) -> Option<Reinforcement> {
    let ms = match object.get("ts")? {
        Value::Number(n) => Some(*n),
        Value::String(s) => date::parse_timestamp(s),
        _ => None,
    }
    .filter(|ms| ms.is_finite())?;
    let pattern = object.get("pattern")?.as_str()?;
    let reward = object.get("reward")?.as_f64()?;
    let after = object.get("after")?.as_object()?;
    let number = |key: &str| {
        after
            .get(key)
            .and_then(Value::as_f64)
            .filter(|n| n.is_finite())
    };
    let (elo, alpha, beta) = (number("elo")?, number("alpha")?, number("beta")?);
    if pattern.is_empty() || !(0.0..=1.0).contains(&reward) || alpha <= 0.0 || beta <= 0.0 {
        return None;
    }
    Some(Reinforcement {
        ms,
        pattern: pattern.to_owned(),
        reward,
        elo,
        mean: alpha / (alpha + beta),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"ts":"2026-10-01T00:00:00.000Z","id":"a","pattern":"P","reward":1,"signals":{"ci":"pass"},"before":null,"after":{"elo":1216,"alpha":2,"beta":1,"updates":1,"lastTs":"2026-10-01T00:00:00.000Z"}}"#;

    #[test]
    fn reads_records_and_counts_the_rest() {
        let text = format!(
            "{GOOD}\n\nnull\n{}\n{}\n{}\n{}\n{}",
            GOOD.replace("\"P\"", "\"Q\"")
                .replace("2026-10-01", "2026-09-01"),
            GOOD.replace("\"reward\":1", "\"reward\":1.5"),
            GOOD.replace("\"alpha\":2", "\"alpha\":0"),
            GOOD.replace(
                "\"ts\":\"2026-10-01T00:00:00.000Z\"",
                "\"ts\":\"yesterday\""
            ),
            // A torn final line.
            &GOOD[..40],
        );
        let read = parse(&text, 2);
        assert_eq!(read.records.len(), 2);
        assert_eq!(read.skipped, 2 + 5);
        let p = &read.records[0];
        assert_eq!((p.pattern.as_str(), p.reward, p.elo), ("P", 1.0, 1216.0));
        assert!((p.mean - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(read.of("Q").len(), 1);
        assert!(read.of("none").is_empty());
    }

    #[test]
    fn of_sorts_by_time() {
        let later = GOOD.replace("\"elo\":1216", "\"elo\":1230");
        let earlier = GOOD.replace("2026-10-01", "2026-08-01");
        let read = parse(&format!("{later}\n{earlier}\n"), 0);
        let elos: Vec<f64> = read.of("P").iter().map(|r| r.elo).collect();
        assert_eq!(elos, [1216.0, 1230.0]);
    }
}
