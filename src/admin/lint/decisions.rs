//! The decision checks: status links between decisions, and the ledger against the notes.

use std::cell::OnceCell;
use std::path::Path;

use crate::actions::decisions::ledger::{self, LEDGER, Ledger, Record};
use crate::admin::lint::findings::{FastMap, Finding, Note, Severity, finding};
use crate::js::json::sha256_hex;
use crate::store::entry::{Status, parse_status, status_of};
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
    links(&decisions, findings);
    match Ledger::read(root) {
        Ok(ledger) => {
            if !ledger.records.is_empty() || !ledger.bad_lines.is_empty() {
                checked.push(LEDGER.to_owned());
            }
            against_ledger(&decisions, &ledger, findings);
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

/// Decisions by heading: exactly, and loosely — as slugs, without a leading number or date
/// (`20201016-use-slugs` finds `Use slugs`; `use slugs` finds `Use Slugs`).
struct Headings<'a> {
    decisions: &'a [Decision<'a>],
    exact: FastMap<&'a str, Vec<usize>>,
    /// Made on the first loose look-up: most stores never need it.
    loose: OnceCell<FastMap<String, Vec<usize>>>,
}

/// `text` lowercased, its runs of letters and digits joined by `-`; and the same without its
/// leading all-digit runs.
fn slugs(text: &str) -> [String; 2] {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let undated: Vec<&str> = words
        .iter()
        .copied()
        .skip_while(|w| w.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    [words.join("-"), undated.join("-")]
}

impl<'a> Headings<'a> {
    fn new(decisions: &'a [Decision<'a>]) -> Self {
        let mut exact: FastMap<&str, Vec<usize>> = FastMap::default();
        for (i, d) in decisions.iter().enumerate() {
            exact.entry(d.section.heading).or_default().push(i);
        }
        Self {
            decisions,
            exact,
            loose: OnceCell::new(),
        }
    }

    fn loose(&self) -> &FastMap<String, Vec<usize>> {
        self.loose.get_or_init(|| {
            let mut loose: FastMap<String, Vec<usize>> = FastMap::default();
            for (i, d) in self.decisions.iter().enumerate() {
                for slug in slugs(d.section.heading) {
                    let list = loose.entry(slug).or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
            loose
        })
    }

    /// The decisions `target` names: exactly if any heading is `target`, else loosely.
    fn find(&self, target: &str) -> &[usize] {
        if let Some(found) = self.exact.get(target) {
            return found;
        }
        slugs(target)
            .iter()
            .filter(|slug| !slug.is_empty())
            .find_map(|slug| self.loose().get(slug))
            .map_or(&[], Vec::as_slice)
    }
}

/// `superseded by X`: X must name one decision, and the line of successors from it must end in
/// one in force, without coming back.
fn links(decisions: &[Decision<'_>], out: &mut Vec<Finding>) {
    let headings = Headings::new(decisions);
    for (start, d) in decisions.iter().enumerate() {
        let Status::Superseded { by: Some(first) } = &d.status else {
            continue;
        };
        let mut chain = vec![start];
        let mut next = first.as_str();
        let problem = loop {
            let i = match headings.find(next) {
                [i] => *i,
                [] => {
                    break Some(format!(
                        "it is superseded by \"{next}\", which no decision is headed"
                    ));
                }
                _ => {
                    break Some(format!(
                        "it is superseded by \"{next}\", which heads several decisions"
                    ));
                }
            };
            let seen = chain.contains(&i);
            chain.push(i);
            if seen {
                break Some(format!(
                    "its successors lead back to it: {}",
                    chain
                        .iter()
                        .map(|&k| format!("\"{}\"", decisions[k].section.heading))
                        .collect::<Vec<_>>()
                        .join(" → ")
                ));
            }
            match &decisions[i].status {
                Status::Active | Status::Superseded { by: None } => break None,
                Status::Superseded { by: Some(by) } => next = by,
                other => {
                    break Some(format!(
                        "its successor \"{}\" is {}, not in force",
                        decisions[i].section.heading,
                        other.as_str()
                    ));
                }
            }
        };
        if let Some(problem) = problem {
            out.push(at(
                d,
                "status-link",
                problem,
                "name an existing decision in force on the status line".to_owned(),
            ));
        }
    }
}

/// `superseded by "X"` or `abrogated`, from a record.
fn describe(record: &Record) -> String {
    match &record.by {
        Some(by) => format!("{} by \"{by}\"", record.status),
        None => record.status.clone(),
    }
}

/// Whether a status, as the ledger and [`Status::as_str`] spell it, is ended (the reader's
/// [`Status::is_ended`]: superseded, abrogated, rolled back, rejected, deprecated).
fn is_ended(status: &str) -> bool {
    parse_status(status).is_ended()
}

fn against_ledger(decisions: &[Decision<'_>], ledger: &Ledger, out: &mut Vec<Finding>) {
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
    // The latest record of each decision, in the order of those records.
    let mut last: FastMap<(&str, &str), usize> = FastMap::default();
    for (i, r) in ledger.records.iter().enumerate() {
        last.insert((r.file.as_str(), r.heading.as_str()), i);
    }
    let mut order: Vec<usize> = last.into_values().collect();
    order.sort_unstable();
    for record in order.into_iter().map(|i| &ledger.records[i]) {
        let (file, heading) = (&record.file.as_str(), &record.heading.as_str());
        let found: Vec<&Decision<'_>> = decisions
            .iter()
            .filter(|d| d.note.rel == *file && d.section.heading == *heading)
            .collect();
        let d = match found.as_slice() {
            [d] => *d,
            [] => {
                out.push(Finding {
                    file: (*file).to_owned(),
                    line: None,
                    heading: Some((*heading).to_owned()),
                    check: "decision-missing",
                    severity: Severity::Error,
                    message: format!(
                        "the ledgered decision \"{heading}\" ({}) is no longer in the file",
                        describe(record)
                    ),
                    proposal: Some(
                        "restore it; a decision ends with `bmad-mem decision supersede` or `abrogate`, never by deletion"
                            .to_owned(),
                    ),
                });
                continue;
            }
            // A heading used twice is its own finding.
            _ => continue,
        };
        compare(d, record, out);
    }
}

/// One ledgered decision against its section.
fn compare(d: &Decision<'_>, record: &Record, out: &mut Vec<Finding>) {
    let heading = record.heading.as_str();
    let in_file = d.status.as_str();
    let command = |record: &Record| match &record.by {
        Some(by) => format!("`bmad-mem decision supersede \"{heading}\" --by \"{by}\"`"),
        None => format!("`bmad-mem decision abrogate \"{heading}\" --reason <text>`"),
    };
    if record.is_active() && in_file == "active" {
        // A decision ledgered before the reader knew its status layout (a `## Status` heading,
        // its value below) was digested as a whole: that digest still stands for its text.
        let is_whole = || sha256_hex(d.section.trimmed_text().as_bytes()) == record.sha256;
        if ledger::digest(&d.section) != record.sha256 && !is_whole() {
            out.push(at(
                d,
                "decision-edited",
                "decision body edited; supersede it instead".to_owned(),
                format!(
                    "put back the text ledgered on {}, and write the change as a new decision: `bmad-mem decision supersede \"{heading}\" --by \"<new heading>\"`",
                    record.ts
                ),
            ));
        }
    } else if is_ended(&record.status) && in_file == "active" {
        out.push(at(
            d,
            "ledger-status",
            format!(
                "the ledger says {} but the file says active: the change was interrupted before the file was rewritten",
                describe(record)
            ),
            format!("{} completes it", command(record)),
        ));
    } else if record.is_active() && is_ended(in_file) {
        out.push(at(
            d,
            "ledger-status",
            format!(
                "the file says {in_file} but the ledger says active: the status line was changed by hand"
            ),
            "set the status line back to active, then end the decision with `bmad-mem decision supersede` or `abrogate`".to_owned(),
        ));
    } else if is_ended(&record.status) && is_ended(in_file) {
        let by = match &d.status {
            Status::Superseded { by } => by.as_deref(),
            _ => None,
        };
        let agrees = in_file == record.status
            && (by.is_none() || record.by.is_none() || by == record.by.as_deref());
        if !agrees {
            out.push(at(
                d,
                "ledger-status",
                format!(
                    "the file says {in_file}{} but the ledger says {}",
                    by.map(|b| format!(" by \"{b}\"")).unwrap_or_default(),
                    describe(record)
                ),
                format!("write the status the ledger records: {}", record.status),
            ));
        }
    }
}
