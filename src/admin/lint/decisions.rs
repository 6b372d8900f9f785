//! The decision checks: status links between decisions, the ledger's chains of records, and
//! the ledger against the notes. Each is linear in the number of decisions and records (a
//! chain of 12,000 superseded decisions is checked in milliseconds).

use std::fmt::Write as _;
use std::path::Path;

use crate::actions::decisions::chain::{Chain, chains};
use crate::actions::decisions::ledger::{LEDGER, Ledger, Record};
use crate::actions::decisions::names::Names;
use crate::admin::lint::findings::{FastMap, Finding, Note, Severity, finding};
use crate::messages;
use crate::store::entry::{Status, status_of};
use crate::store::sections::Section;

/// A decision of one of the decision files.
struct Decision<'a> {
    note: &'a Note,
    offset: usize,
    section: Section<'a>,
    status: Status,
}

pub fn check(
    root: &Path,
    notes: &[Note],
    cut: &[Vec<(usize, Section<'_>)>],
    checked: &mut Vec<String>,
    findings: &mut Vec<Finding>,
) {
    let decisions: Vec<Decision<'_>> = notes
        .iter()
        .zip(cut)
        .filter(|(note, _)| note.is_decisions())
        .flat_map(|(note, sections)| {
            sections.iter().map(move |(offset, section)| Decision {
                note,
                offset: *offset,
                section: *section,
                status: status_of(section).unwrap_or(Status::Active),
            })
        })
        .collect();
    let names = Names::new(decisions.iter().map(|d| d.section.heading));
    links(&decisions, &names, findings);
    match Ledger::read(root) {
        Ok(ledger) => {
            if !ledger.records.is_empty() || !ledger.bad_lines.is_empty() {
                checked.push(LEDGER.to_owned());
            }
            against_ledger(&decisions, &names, &ledger, findings);
        }
        Err(e) => {
            checked.push(LEDGER.to_owned());
            findings.push(Finding {
                file: LEDGER.to_owned(),
                line: None,
                heading: None,
                check: "ledger",
                severity: Severity::Error,
                message: format!("cannot read the ledger: {e}"),
                proposal: Some("`bmad-mem doctor` names the damage".to_owned()),
            });
        }
    }
}

fn at(d: &Decision<'_>, check: &'static str, message: String, proposal: String) -> Finding {
    finding(
        d.note,
        d.offset,
        &d.section,
        check,
        Severity::Error,
        message,
        Some(proposal),
    )
}

/// Most decisions a cycle's message lists.
const CYCLE_SHOWN: usize = 10;

/// `superseded by X`: X must name one decision, one that came into force (a successor ended
/// since — abrogated, say — leaves its predecessors superseded, which is fine), and the line
/// of successors must not come back. Each problem is reported once, at the decision whose own
/// status line has it; a cycle at its first decision.
fn links(decisions: &[Decision<'_>], names: &Names<'_>, out: &mut Vec<Finding>) {
    const NEW: usize = usize::MAX;
    const DONE: usize = usize::MAX - 1;
    let mut problems: Vec<(usize, String)> = Vec::new();
    let mut next: Vec<Option<usize>> = vec![None; decisions.len()];
    for (i, d) in decisions.iter().enumerate() {
        let Status::Superseded { by: Some(by) } = &d.status else {
            continue;
        };
        match names.find(by) {
            [] => problems.push((
                i,
                format!("it is superseded by \"{by}\", which no decision is headed"),
            )),
            [j] => {
                next[i] = Some(*j);
                let successor = &decisions[*j];
                if matches!(successor.status, Status::Proposed | Status::Rejected) {
                    problems.push((
                        i,
                        format!(
                            "its successor \"{}\" is {}: it never came into force",
                            successor.section.heading,
                            successor.status.as_str()
                        ),
                    ));
                }
            }
            _ => problems.push((
                i,
                format!("it is superseded by \"{by}\", which heads several decisions"),
            )),
        }
    }
    // Each decision has at most one successor: walk each line once, marking what was walked.
    // NEW, DONE, or the index of the walk (the start) that is on it now.
    let mut state = vec![NEW; decisions.len()];
    for start in 0..decisions.len() {
        let mut path = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            if state[i] != NEW {
                break;
            }
            state[i] = start;
            path.push(i);
            at = next[i];
        }
        if let Some(i) = at
            && state[i] == start
        {
            let from = path.iter().position(|&k| k == i).unwrap_or(0);
            let cycle = &path[from..];
            let first = cycle
                .iter()
                .position(|&k| k == *cycle.iter().min().unwrap_or(&i));
            let first = first.unwrap_or(0);
            let ordered: Vec<usize> = cycle[first..]
                .iter()
                .chain(&cycle[..first])
                .copied()
                .collect();
            problems.push((ordered[0], cycle_message(decisions, &ordered)));
        }
        for i in path {
            state[i] = DONE;
        }
    }
    problems.sort_by_key(|(i, _)| *i);
    for (i, problem) in problems {
        out.push(at(
            &decisions[i],
            "status-link",
            problem,
            "name an existing decision that came into force on the status line".to_owned(),
        ));
    }
}

/// `its successors lead back to it: "D" → "E" → "D"`, a long cycle shortened.
fn cycle_message(decisions: &[Decision<'_>], cycle: &[usize]) -> String {
    let name = |k: usize| format!("\"{}\"", decisions[k].section.heading);
    let mut shown: Vec<String> = cycle.iter().take(CYCLE_SHOWN).map(|&k| name(k)).collect();
    if cycle.len() > CYCLE_SHOWN {
        shown.push(format!("… ({} decisions in all)", cycle.len()));
    }
    shown.push(name(cycle[0]));
    format!("its successors lead back to it: {}", shown.join(" → "))
}

/// `superseded by "X"` or `abrogated`, from a record.
fn describe(record: &Record) -> String {
    match &record.by {
        Some(by) => format!("{} by \"{by}\"", record.status),
        None => record.status.clone(),
    }
}

fn against_ledger(
    decisions: &[Decision<'_>],
    names: &Names<'_>,
    ledger: &Ledger,
    out: &mut Vec<Finding>,
) {
    for (line, why) in &ledger.bad_lines {
        out.push(Finding {
            file: LEDGER.to_owned(),
            line: Some(*line),
            heading: None,
            check: "format",
            severity: Severity::Warning,
            message: format!("this line is not a ledger record: {why}"),
            proposal: Some("inspect the line; the ledger is append-only".to_owned()),
        });
    }
    let mut index: FastMap<(&str, &str), Vec<usize>> = FastMap::default();
    for (i, d) in decisions.iter().enumerate() {
        index
            .entry((d.note.rel.as_str(), d.section.heading))
            .or_default()
            .push(i);
    }
    let all = chains(ledger);
    for ((file, heading), chain) in all.iter() {
        for problem in &chain.problems {
            out.push(Finding {
                file: LEDGER.to_owned(),
                line: Some(problem.line),
                heading: Some(heading.clone()),
                check: "ledger-chain",
                severity: Severity::Error,
                message: problem.message.clone(),
                proposal: Some(messages::LEDGER_CHAIN_FIX.to_owned()),
            });
        }
        let Some(tip) = chain.tip().map(|i| &ledger.records[i]) else {
            continue;
        };
        let d = match index
            .get(&(file.as_str(), heading.as_str()))
            .map(Vec::as_slice)
        {
            Some([i]) => &decisions[*i],
            None | Some([]) => {
                out.push(Finding {
                    file: file.clone(),
                    line: None,
                    heading: Some(heading.clone()),
                    check: "decision-missing",
                    severity: Severity::Error,
                    message: format!(
                        "the ledgered decision \"{heading}\" ({}) is no longer in the file",
                        describe(tip)
                    ),
                    proposal: Some(
                        "restore it; a decision ends with `bmad-mem decision supersede` or `abrogate`, never by deletion"
                            .to_owned(),
                    ),
                });
                continue;
            }
            // A heading used twice is its own finding.
            Some(_) => continue,
        };
        // A chain with a problem has no one state to compare with: its problems come first.
        if chain.is_sound() {
            compare(d, names, chain, ledger, out);
        }
    }
}

/// One ledgered decision against its section: the text it was ledgered with, whatever its
/// status; and the status of its last record, whatever the file says.
fn compare(
    d: &Decision<'_>,
    names: &Names<'_>,
    chain: &Chain,
    ledger: &Ledger,
    out: &mut Vec<Finding>,
) {
    let Some(tip_index) = chain.tip() else {
        return;
    };
    let tip = &ledger.records[tip_index];
    let heading = tip.heading.as_str();
    if let Some(i) = chain.edited(ledger, &d.section) {
        let ts = &ledger.records[i].ts;
        let (message, proposal) = match tip.status.as_str() {
            "active" => (
                "decision body edited; supersede it instead".to_owned(),
                format!(
                    "put back the text ledgered on {ts}, and write the change as a new decision: `bmad-mem decision supersede \"{heading}\" --successor \"<new heading>\"`"
                ),
            ),
            "proposed" => (
                "decision body edited while proposed; a ledgered proposal stands as written"
                    .to_owned(),
                format!(
                    "put back the text ledgered on {ts}; to change it, reject it (`bmad-mem decision reject \"{heading}\"`) and propose the new text as a new decision"
                ),
            ),
            status => (
                format!(
                    "decision body edited after it ended ({status}); an ended decision stands as it was"
                ),
                format!("put back the text ledgered on {ts}"),
            ),
        };
        out.push(at(d, "decision-edited", message, proposal));
    }
    let in_file = d.status.as_str();
    let file_by = match &d.status {
        Status::Superseded { by } => by.as_deref(),
        _ => None,
    };
    let agrees = in_file == tip.status
        && match (file_by, tip.by.as_deref()) {
            (Some(a), Some(b)) => names.same(a, b),
            _ => true,
        };
    if agrees {
        return;
    }
    let before = chain
        .records
        .len()
        .checked_sub(2)
        .map(|k| &ledger.records[chain.records[k]]);
    let flip = matches!(
        tip.event.as_str(),
        "supersede" | "abrogate" | "accept" | "reject"
    );
    let (message, proposal) = if let Status::Unreadable(value) = &d.status {
        (
            format!(
                "the file's status \"{value}\" is not one bmad-mem reads, while the ledger says {}",
                describe(tip)
            ),
            format!("write the status the ledger records: {}", tip.status),
        )
    } else if flip && before.is_some_and(|b| b.status == in_file) {
        (
            format!(
                "the ledger says {} but the file says {in_file}: the change was interrupted before the file was rewritten",
                describe(tip)
            ),
            format!(
                "{} completes it",
                messages::rerun(&tip.event, heading, tip.by.as_deref())
            ),
        )
    } else {
        let mut message = format!("the file says {in_file}");
        if let Some(by) = file_by {
            let _ = write!(message, " by \"{by}\"");
        }
        let _ = write!(
            message,
            " but the ledger says {}: the status line was changed by hand",
            describe(tip)
        );
        let proposal = match tip.status.as_str() {
            "active" => "set the status line back to active, then end the decision with `bmad-mem decision supersede` or `abrogate`".to_owned(),
            "proposed" => "set the status line back to proposed, then decide with `bmad-mem decision accept` or `reject`".to_owned(),
            status => format!("write the status the ledger records: {status}"),
        };
        (message, proposal)
    };
    out.push(at(d, "ledger-status", message, proposal));
}
