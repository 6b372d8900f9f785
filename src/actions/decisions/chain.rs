//! The records of each decision, as a chain: each record names the one before it (`prev`), so
//! the ledger says not only where a decision stands but how it got there, and a record added
//! by hand shows.
//!
//! A decision's chain is sound when:
//!
//! * it has one first record (`adopt`, `admit`, or `succeed` for a successor ledgered by its
//!   predecessor's supersede), and every other record follows exactly one record of the same
//!   decision, which no other record follows — so a second `adopt` of a ledgered decision, a
//!   record whose predecessor is missing, and two records with one predecessor (two clones that
//!   changed one decision) are each a problem naming both records;
//! * each event follows the status it changes (`supersede` and `abrogate` an active decision,
//!   `accept` and `reject` a proposed one, `succeed` an active one or none) and leaves the
//!   status it stands for;
//! * every record keeps the digest of the record before it made under the same rule: only a
//!   rule-2 `supersede` may change it (its flip may rewrite more than the status value, see
//!   `lifecycle`);
//! * no record without `prev` follows, in the file, one that has it.
//!
//! Records written before `prev` existed follow each other in file order. Ids are unique over
//! the whole ledger. Linear in the number of records. Pure: no I/O.

use std::collections::HashMap;

use crate::actions::decisions::digest;
use crate::actions::decisions::ledger::{Ledger, Prev, Record};
use crate::store::sections::Section;

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// What is wrong with a chain, said of one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The ledger line of the record the problem is seen at (the later of two).
    pub line: usize,
    pub message: String,
}

/// One decision's records.
#[derive(Debug, Default)]
pub struct Chain {
    /// Indexes into the ledger's records: in chain order when the chain is sound, else in file
    /// order.
    pub records: Vec<usize>,
    pub problems: Vec<Problem>,
}

impl Chain {
    /// The record the decision stands at: the chain's last.
    #[must_use]
    pub fn tip(&self) -> Option<usize> {
        self.records.last().copied()
    }

    /// Whether the chain is sound.
    #[must_use]
    pub fn is_sound(&self) -> bool {
        self.problems.is_empty()
    }

    /// The first record whose digest the section's text no longer matches: for each rule the
    /// chain holds, its last record of that rule is compared with the text's digest under it.
    #[must_use]
    pub fn edited(&self, ledger: &Ledger, section: &Section<'_>) -> Option<usize> {
        [1, 2].into_iter().find_map(|rule| {
            let last = self
                .records
                .iter()
                .rev()
                .copied()
                .find(|&i| ledger.records[i].digest == rule)?;
            (!digest::matches(section, rule, &ledger.records[last].sha256)).then_some(last)
        })
    }
}

/// Every decision's chain, keyed by `(file, heading)`, in the order of their first records.
#[derive(Debug, Default)]
pub struct Chains {
    pub keys: Vec<(String, String)>,
    chains: FastMap<(String, String), Chain>,
}

impl Chains {
    /// The chain of the decision `heading` in `file`, if the ledger has records of it.
    #[must_use]
    pub fn of(&self, file: &str, heading: &str) -> Option<&Chain> {
        self.chains.get(&(file.to_owned(), heading.to_owned()))
    }

    /// Every chain, in the order of [`Chains::keys`].
    pub fn iter(&self) -> impl Iterator<Item = (&(String, String), &Chain)> {
        self.keys.iter().map(|key| (key, &self.chains[key]))
    }
}

/// `<id> (line N, <event>)`: a record as the messages name it.
#[must_use]
pub fn named(ledger: &Ledger, i: usize) -> String {
    let r = &ledger.records[i];
    format!("{} (line {}, {})", r.id, ledger.lines[i], r.event)
}

fn to_problems(ledger: &Ledger, found: Vec<(usize, String)>) -> Vec<Problem> {
    found
        .into_iter()
        .map(|(i, message)| Problem {
            line: ledger.lines[i],
            message,
        })
        .collect()
}

/// The status an event leaves, and the status it must follow (`None`: it must come first; for
/// `succeed`, either).
fn rule_of(event: &str) -> Option<(Option<&'static str>, Option<&'static str>)> {
    Some(match event {
        "adopt" | "admit" => (None, None),
        "succeed" => (Some("active"), Some("active")),
        "supersede" => (Some("superseded"), Some("active")),
        "abrogate" => (Some("abrogated"), Some("active")),
        "accept" => (Some("active"), Some("proposed")),
        "reject" => (Some("rejected"), Some("proposed")),
        _ => return None,
    })
}

const STATUSES: [&str; 7] = [
    "active",
    "superseded",
    "abrogated",
    "rolled-back",
    "proposed",
    "rejected",
    "deprecated",
];

/// The chains of every decision the ledger holds.
#[must_use]
pub fn chains(ledger: &Ledger) -> Chains {
    let mut out = Chains::default();
    let mut groups: FastMap<(String, String), Vec<usize>> = FastMap::default();
    for (i, r) in ledger.records.iter().enumerate() {
        let key = (r.file.clone(), r.heading.clone());
        groups
            .entry(key.clone())
            .or_insert_with(|| {
                out.keys.push(key);
                Vec::new()
            })
            .push(i);
    }
    let mut by_id: FastMap<&str, usize> = FastMap::default();
    let mut duplicates: FastMap<usize, usize> = FastMap::default();
    for (i, r) in ledger.records.iter().enumerate() {
        if let Some(&first) = by_id.get(r.id.as_str()) {
            duplicates.insert(i, first);
        } else {
            by_id.insert(r.id.as_str(), i);
        }
    }
    for key in &out.keys {
        let group = &groups[key];
        let chain = chain_of(ledger, group, &by_id, &duplicates);
        out.chains.insert(key.clone(), chain);
    }
    out
}

/// Each record's predecessor in `group` (one decision's records in file order), as it names it
/// or as the file orders it; problems with the names go to `found`.
fn predecessors(
    ledger: &Ledger,
    group: &[usize],
    by_id: &FastMap<&str, usize>,
    duplicates: &FastMap<usize, usize>,
    found: &mut Vec<(usize, String)>,
) -> Vec<Option<usize>> {
    let records = &ledger.records;
    let name = |i: usize| named(ledger, i);
    let mut before: Vec<Option<usize>> = Vec::with_capacity(group.len());
    let mut chained_at: Option<usize> = None;
    for (k, &i) in group.iter().enumerate() {
        let r = &records[i];
        if let Some(&first) = duplicates.get(&i) {
            found.push((
                i,
                format!("records {} and {} share one id", name(first), name(i)),
            ));
        }
        let previous = match &r.prev {
            Prev::Unrecorded => {
                if let Some(at) = chained_at {
                    found.push((
                        i,
                        format!(
                            "{} has no `prev` but follows {}, which has one: an older bmad-mem wrote it, or it was added by hand",
                            name(i),
                            name(at)
                        ),
                    ));
                }
                k.checked_sub(1).map(|j| group[j])
            }
            Prev::First => None,
            Prev::Of(id) => match by_id.get(id.as_str()) {
                None => {
                    found.push((
                        i,
                        format!(
                            "{} names {id} as its predecessor, which the ledger does not hold",
                            name(i)
                        ),
                    ));
                    None
                }
                Some(&j) if records[j].file != r.file || records[j].heading != r.heading => {
                    found.push((
                        i,
                        format!(
                            "{} names as its predecessor {}, a record of \"{}\"",
                            name(i),
                            name(j),
                            records[j].heading
                        ),
                    ));
                    None
                }
                Some(&j) => Some(j),
            },
        };
        if r.is_chained() {
            chained_at = Some(i);
        }
        before.push(previous);
    }
    before
}

fn chain_of(
    ledger: &Ledger,
    group: &[usize],
    by_id: &FastMap<&str, usize>,
    duplicates: &FastMap<usize, usize>,
) -> Chain {
    let records = &ledger.records;
    let name = |i: usize| named(ledger, i);
    let mut found: Vec<(usize, String)> = Vec::new();
    let before = predecessors(ledger, group, by_id, duplicates, &mut found);
    let mut first: Option<usize> = None;
    let mut after: FastMap<usize, usize> = FastMap::default();
    for (&i, previous) in group.iter().zip(&before) {
        match previous {
            None if matches!(records[i].prev, Prev::Of(_)) => {}
            None => match first {
                None => first = Some(i),
                Some(f) => found.push((
                    i,
                    format!(
                        "{} and {} both start this decision's records: a second adopt of a ledgered decision",
                        name(f),
                        name(i)
                    ),
                )),
            },
            Some(p) => {
                if let Some(&other) = after.get(p) {
                    found.push((
                        i,
                        format!(
                            "{} and {} both follow {}: two clones changed this decision; keep one (see docs/DECISIONS.md)",
                            name(other),
                            name(i),
                            name(*p)
                        ),
                    ));
                } else {
                    after.insert(*p, i);
                }
            }
        }
    }
    if !found.is_empty() {
        return Chain {
            records: group.to_vec(),
            problems: to_problems(ledger, found),
        };
    }
    // Sound so far: walk from the first record.
    let mut order = Vec::with_capacity(group.len());
    let mut at = first;
    while let Some(i) = at {
        order.push(i);
        at = after.get(&i).copied();
    }
    if order.len() != group.len() {
        let lost = group.iter().copied().find(|i| !order.contains(i));
        if let Some(i) = lost {
            found.push((
                i,
                format!(
                    "{} cannot be reached from this decision's first record: its predecessors run in a circle",
                    name(i)
                ),
            ));
        }
        return Chain {
            records: group.to_vec(),
            problems: to_problems(ledger, found),
        };
    }
    events(ledger, &order, &mut found);
    Chain {
        records: order,
        problems: to_problems(ledger, found),
    }
}

/// The events along a chain in order: each follows the status it changes, leaves its own, and
/// keeps the digest.
fn events(ledger: &Ledger, order: &[usize], found: &mut Vec<(usize, String)>) {
    let records = &ledger.records;
    let name = |i: usize| named(ledger, i);
    let mut last_digest: [Option<usize>; 2] = [None, None];
    for (k, &i) in order.iter().enumerate() {
        let r: &Record = &records[i];
        let previous = k.checked_sub(1).map(|j| order[j]);
        let Some((leaves, follows)) = rule_of(&r.event) else {
            found.push((
                i,
                format!("{} has an unknown event \"{}\"", name(i), r.event),
            ));
            continue;
        };
        match (previous, follows) {
            (Some(p), None) => found.push((
                i,
                format!(
                    "{} adopts again a decision {} had already ledgered",
                    name(i),
                    name(p)
                ),
            )),
            (Some(p), Some(status)) if records[p].status != status => found.push((
                i,
                format!(
                    "{} cannot follow {}: {} needs a {status} decision, and it was {}",
                    name(i),
                    name(p),
                    r.event,
                    records[p].status
                ),
            )),
            (None, Some(_)) if r.event != "succeed" => found.push((
                i,
                format!(
                    "{} is this decision's first record, but a {} needs one before it",
                    name(i),
                    r.event
                ),
            )),
            _ => {}
        }
        let status_ok = match leaves {
            Some(status) => r.status == status,
            None => STATUSES.contains(&r.status.as_str()),
        };
        if !status_ok {
            found.push((
                i,
                format!(
                    "{} says {}, not what a {} leaves{}",
                    name(i),
                    r.status,
                    r.event,
                    leaves.map(|s| format!(" ({s})")).unwrap_or_default()
                ),
            ));
        }
        let rule = usize::from(r.digest == 2);
        if let Some(p) = last_digest[rule]
            && records[p].sha256 != r.sha256
            && !(r.digest == 2 && r.event == "supersede")
        {
            found.push((
                i,
                format!(
                    "{} keeps another digest than {}: a record may not re-base the text a decision was ledgered with",
                    name(i),
                    name(p)
                ),
            ));
        }
        last_digest[rule] = Some(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::Value;

    /// A ledger text of `records`, one per line.
    fn text(records: &[Record]) -> String {
        records
            .iter()
            .map(|r| Value::Object(r.to_object()).compact() + "\n")
            .collect()
    }

    fn record(ts: &str, event: &str, heading: &str, status: &str, prev: Option<&Record>) -> Record {
        Record::new(
            ts,
            event,
            "f",
            heading,
            status,
            "d".into(),
            prev.map(|p| p.id.as_str()),
            "ada",
        )
    }

    fn problems(records: &[Record]) -> Vec<String> {
        let ledger = Ledger::parse(&text(records));
        let chains = chains(&ledger);
        chains
            .iter()
            .flat_map(|(_, c)| {
                c.problems
                    .iter()
                    .map(|p| format!("{}: {}", p.line, p.message))
            })
            .collect()
    }

    #[test]
    fn a_sound_chain_in_any_file_order() {
        let a = record("t1", "adopt", "A", "proposed", None);
        let b = record("t2", "accept", "A", "active", Some(&a));
        let c = record("t3", "supersede", "A", "superseded", Some(&b));
        let s = record("t3", "succeed", "S", "active", None);
        assert!(problems(&[a.clone(), b.clone(), s.clone(), c.clone()]).is_empty());
        // A merge orders by time: the chain does not depend on it.
        let ledger = Ledger::parse(&text(&[c.clone(), a.clone(), b.clone()]));
        let all = chains(&ledger);
        let chain = all.of("f", "A").unwrap();
        assert!(chain.is_sound(), "{:?}", chain.problems);
        assert_eq!(chain.records, [1, 2, 0]);
        assert_eq!(chain.tip(), Some(0));
    }

    #[test]
    fn a_second_adopt_a_missing_predecessor_and_a_fork_name_both_records() {
        let a = record("t1", "adopt", "A", "active", None);
        let again = record("t2", "adopt", "A", "active", None);
        let p = problems(&[a.clone(), again.clone()]);
        assert_eq!(
            p,
            [format!(
                "2: {} (line 1, adopt) and {} (line 2, adopt) both start this decision's records: a second adopt of a ledgered decision",
                a.id, again.id
            )]
        );
        let chained_again = record("t2", "adopt", "A", "active", Some(&a));
        assert_eq!(
            problems(&[a.clone(), chained_again.clone()]),
            [format!(
                "2: {} (line 2, adopt) adopts again a decision {} (line 1, adopt) had already ledgered",
                chained_again.id, a.id
            )]
        );
        let mut orphan = record("t2", "abrogate", "A", "abrogated", Some(&a));
        orphan.prev = Prev::Of("0123456789ab".into());
        assert_eq!(
            problems(&[a.clone(), orphan.clone()]),
            [format!(
                "2: {} (line 2, abrogate) names 0123456789ab as its predecessor, which the ledger does not hold",
                orphan.id
            )]
        );
        let ours = record("t2", "abrogate", "A", "abrogated", Some(&a));
        let mut theirs = record("t3", "supersede", "A", "superseded", Some(&a));
        theirs.by = Some("B".into());
        assert_eq!(
            problems(&[a.clone(), ours.clone(), theirs.clone()]),
            [format!(
                "3: {} (line 2, abrogate) and {} (line 3, supersede) both follow {} (line 1, adopt): two clones changed this decision; keep one (see docs/DECISIONS.md)",
                ours.id, theirs.id, a.id
            )]
        );
    }

    #[test]
    fn legacy_records_follow_the_file_order() {
        let legacy = |r: Record| Record {
            digest: 1,
            prev: Prev::Unrecorded,
            actor: None,
            ..r
        };
        let a = legacy(record("t1", "adopt", "A", "active", None));
        let b = legacy(record("t2", "abrogate", "A", "abrogated", None));
        assert!(problems(&[a.clone(), b.clone()]).is_empty());
        // A forged adopt in the old format, or one that re-bases the digest, shows.
        let forged = legacy(record("t3", "adopt", "A", "active", None));
        assert_eq!(problems(&[a.clone(), forged.clone()]).len(), 1);
        let mut rebased = legacy(record("t3", "succeed", "A", "active", None));
        rebased.sha256 = "e".into();
        assert_eq!(
            problems(&[a.clone(), rebased.clone()]),
            [format!(
                "2: {} (line 2, succeed) keeps another digest than {} (line 1, adopt): a record may not re-base the text a decision was ledgered with",
                rebased.id, a.id
            )]
        );
        // A new record chains on the last old one; an old one after it is suspicious.
        let new = record("t4", "abrogate", "A", "abrogated", Some(&a));
        assert!(problems(&[a.clone(), new.clone()]).is_empty());
        let late = legacy(record("t5", "succeed", "A", "active", None));
        assert_eq!(
            problems(&[a.clone(), new.clone(), late.clone()]),
            [format!(
                "3: {} (line 3, succeed) has no `prev` but follows {} (line 2, abrogate), which has one: an older bmad-mem wrote it, or it was added by hand",
                late.id, new.id
            )]
        );
    }

    /// Records a run of commands could write for three decisions, in order: each step is an
    /// adopt (first), or a change the decision's status allows.
    fn history(steps: &[(usize, usize)]) -> Vec<Record> {
        let mut out: Vec<Record> = Vec::new();
        let mut tips: [Option<usize>; 3] = [None; 3];
        for (n, &(decision, pick)) in steps.iter().enumerate() {
            let heading = ["A", "B", "C"][decision];
            let ts = format!("t{n:03}");
            let tip = tips[decision].map(|i| &out[i]);
            let (event, status) = match tip.map(|t| t.status.as_str()) {
                None => ("adopt", ["active", "proposed"][pick % 2]),
                Some("active") => [
                    ("succeed", "active"),
                    ("abrogate", "abrogated"),
                    ("supersede", "superseded"),
                ][pick % 3],
                Some("proposed") => [("accept", "active"), ("reject", "rejected")][pick % 2],
                Some(_) => continue,
            };
            let record = record(&ts, event, heading, status, tip);
            tips[decision] = Some(out.len());
            out.push(record);
        }
        out
    }

    proptest::proptest! {
        /// Whatever order a merge leaves the lines in, a history is one sound chain per
        /// decision ending at its last record; without one of its records but the last, a
        /// decision's chain is not sound any more.
        #[test]
        fn a_history_in_any_order_is_sound_and_a_gap_shows(
            steps in proptest::collection::vec((0usize..3, 0usize..3), 1..24),
            order in proptest::collection::vec(proptest::num::usize::ANY, 24),
            gap in proptest::num::usize::ANY,
        ) {
            let records = history(&steps);
            let mut shuffled: Vec<(usize, Record)> = records.iter().cloned().enumerate().collect();
            shuffled.sort_by_key(|(i, _)| order[*i % order.len()]);
            let lines: Vec<Record> = shuffled.iter().map(|(_, r)| r.clone()).collect();
            let ledger = Ledger::parse(&text(&lines));
            let all = chains(&ledger);
            for (key, chain) in all.iter() {
                proptest::prop_assert!(chain.is_sound(), "{:?}", chain.problems);
                let last = records.iter().rposition(|r| r.heading == key.1).unwrap();
                let tip = &ledger.records[chain.tip().unwrap()];
                proptest::prop_assert_eq!(&tip.id, &records[last].id);
            }
            let dropped = gap % records.len();
            let followed = records.iter().any(|r| r.prev == Prev::Of(records[dropped].id.clone()));
            if followed {
                let mut without = records.clone();
                let heading = without.remove(dropped).heading;
                let ledger = Ledger::parse(&text(&without));
                let all = chains(&ledger);
                proptest::prop_assert!(!all.of("f", &heading).unwrap().is_sound());
            }
        }
    }

    #[test]
    fn events_follow_their_statuses() {
        let a = record("t1", "adopt", "A", "active", None);
        let accept = record("t2", "accept", "A", "active", Some(&a));
        assert_eq!(
            problems(&[a.clone(), accept.clone()]),
            [format!(
                "2: {} (line 2, accept) cannot follow {} (line 1, adopt): accept needs a proposed decision, and it was active",
                accept.id, a.id
            )]
        );
        let odd = record("t2", "abrogate", "A", "active", Some(&a));
        assert_eq!(problems(&[a.clone(), odd]).len(), 1);
        let first = record("t2", "abrogate", "B", "abrogated", None);
        assert_eq!(problems(&[first]).len(), 1);
        let unknown = record("t2", "revive", "A", "active", Some(&a));
        assert_eq!(problems(&[a, unknown]).len(), 1);
    }
}
