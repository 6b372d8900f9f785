//! The lifecycle commands: `adopt` ledgers decisions as they stand; `accept` and `reject`
//! decide a proposed one, `supersede` and `abrogate` end an active one — each by rewriting its
//! status value, the only part of a note file bmad-mem ever rewrites.
//!
//! A change is computed from the note files' bytes as first read, and checked against the
//! ledger, before the writer lock is taken (so that a refusal creates nothing). Under the lock
//! the ledger is read and checked again, the files must still hold those bytes (a person
//! editing one meanwhile makes the command refuse, never merge), the ledger records are
//! appended, and only then is the file replaced atomically (temporary file, sync, rename in the
//! same folder), after one last look at its bytes. If the file cannot be replaced, the ledger
//! append is taken back.
//!
//! Ledger first, file second: a crash in between leaves a ledger that says "superseded" (or
//! "abrogated", "active", "rejected") next to a file that still says what it said — never a
//! flip without its record. `lint` reports that state as an error and names the fix: running
//! the same command again, which finds the record already there and completes the flip without
//! a second record.
//!
//! The value written replaces the status value where the digest leaves it out (the status word,
//! and `by <successor>`), so the rest of the line and the decision's digest stay as they were.
//! Only a supersede whose successor would then read wrong (`active — note` becoming
//! `superseded by B — note`, read as superseded by `B — note`) rewrites the whole value; its
//! record keeps the digest of the text as rewritten.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::actions::decisions::chain::{Chain, Chains, chains};
use crate::actions::decisions::digest::status_value_range;
use crate::actions::decisions::ledger::{self, Ledger, Record};
use crate::actions::decisions::names::Names;
use crate::actions::decisions::notes::{Files, Found, ensure_unchanged, replace_if_unchanged};
use crate::error::{Error, Result};
use crate::js::json::Value;
use crate::js::text::{trim, utf16_len};
use crate::messages;
use crate::store::entry::{Status, status_line, status_of};
use crate::store::lock::WriterLock;
use crate::store::sections::{Section, sections};

/// Longest heading or reason accepted, in UTF-16 units.
const MAX_HEADING: usize = 300;
const MAX_REASON: usize = 2000;

/// Where, when and by whom a command runs.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    pub root: &'a Path,
    /// The `toISOString` time of the records.
    pub now: &'a str,
    /// Who acts ([`ledger::actor`]).
    pub actor: &'a str,
    /// The crash tests' hook (`BMAD_MEM_CRASH_AT`).
    pub crash_at: Option<&'a str>,
}

/// A heading given on the command line: non-empty after trimming, bounded.
fn heading_arg<'a>(text: &'a str, what: &str) -> Result<&'a str> {
    let heading = trim(text);
    if heading.is_empty() || utf16_len(heading) > MAX_HEADING {
        return Err(Error::refused(messages::bad_heading(what, MAX_HEADING)));
    }
    Ok(heading)
}

/// A reason: non-empty after trimming, bounded.
fn reason_arg(text: Option<&str>, required: bool) -> Result<Option<String>> {
    match text {
        None if required => Err(Error::refused(messages::DECISION_REASON_REQUIRED)),
        None => Ok(None),
        Some(text) => {
            let reason = trim(text);
            if reason.is_empty() || utf16_len(reason) > MAX_REASON {
                return Err(Error::refused(messages::bad_reason(MAX_REASON)));
            }
            Ok(Some(reason.to_owned()))
        }
    }
}

/// What a lifecycle command did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// `adopt`, `accept`, `reject`, `supersede` or `abrogate`.
    pub event: &'static str,
    /// The records appended to the ledger, in order.
    pub recorded: Vec<Record>,
    /// Decisions left as they were: (file, heading, why).
    pub skipped: Vec<(String, String, String)>,
    /// For a flip: the file rewritten, the decision's heading, its new status value.
    pub flipped: Option<(String, String, String)>,
    /// For a flip: the status it leaves (`superseded`, `abrogated`, `active`, `rejected`).
    pub status: &'static str,
    /// For a flip: whether it completed one a crash had interrupted (its records were there).
    pub completed: bool,
    /// For an abrogate: the decisions (file, heading) superseded by this one, which stay
    /// superseded.
    pub predecessors: Vec<(String, String)>,
}

/// `decision adopt`: ledgers the named decisions (or every decision) as they stand, without
/// touching the note files. A decision already ledgered is left as it is.
///
/// # Errors
/// A name that finds no decision or several, an unreadable status, a note file changed while
/// adopting, and the ledger's and the lock's refusals.
pub fn adopt(run: &Run<'_>, headings: &[String], all: bool) -> Result<Outcome> {
    if all != headings.is_empty() {
        return Err(Error::refused(messages::ADOPT_WHAT));
    }
    let wanted: Vec<&str> = headings
        .iter()
        .map(|h| heading_arg(h, "a decision to adopt"))
        .collect::<Result<_>>()?;
    let files = Files::read(run.root)?;
    let mut targets: Vec<Found<'_>> = Vec::new();
    let mut skipped = Vec::new();
    if all {
        targets = every_decision(&files, &mut skipped);
    } else {
        for name in wanted {
            let found = files.find(name)?;
            if let Some(Status::Unreadable(value)) = status_of(&found.section) {
                return Err(Error::refused(messages::unreadable_status(
                    found.section.heading,
                    &value,
                    &found.place(),
                )));
            }
            if !targets.iter().any(|t| t.is(&found)) {
                targets.push(found);
            }
        }
    }
    // The decisions a ledger holds, looked up once each (`--all` may adopt thousands).
    let ledgered = |ledger: &Ledger| -> HashSet<(String, String)> {
        ledger
            .records
            .iter()
            .map(|r| (r.file.clone(), r.heading.clone()))
            .collect()
    };
    let is_ledgered = |set: &HashSet<(String, String)>, found: &Found<'_>| {
        set.contains(&(found.file.to_owned(), found.section.heading.to_owned()))
    };
    // Nothing new to record: nothing is locked or created.
    let before = ledgered(&Ledger::read(run.root)?);
    if targets.iter().all(|f| is_ledgered(&before, f)) {
        for found in targets {
            skipped.push(already_ledgered(&found));
        }
        return Ok(Outcome {
            event: "adopt",
            skipped,
            ..Outcome::default()
        });
    }
    let lock = WriterLock::acquire(run.root)?;
    let ledger = ledgered(&Ledger::read(run.root)?);
    let mut recorded = Vec::new();
    for found in targets {
        if is_ledgered(&ledger, &found) {
            skipped.push(already_ledgered(&found));
            continue;
        }
        let status = status_of(&found.section).unwrap_or(Status::Active);
        recorded.push(adoption(run, &found, &status));
    }
    if !recorded.is_empty() {
        ensure_unchanged(run.root, &files, "adopted")?;
        ledger::record(run.root, &recorded, &lock)?;
    }
    drop(lock);
    Ok(Outcome {
        event: "adopt",
        recorded,
        skipped,
        ..Outcome::default()
    })
}

/// The `adopt` record of a decision as it stands, with `status`: a decision's first record.
fn adoption(run: &Run<'_>, found: &Found<'_>, status: &Status) -> Record {
    let mut record = Record::new(
        run.now,
        "adopt",
        found.file,
        found.section.heading,
        status.as_str(),
        ledger::digest(&found.section),
        None,
        run.actor,
    );
    if let Status::Superseded { by } = status {
        record.by.clone_from(by);
    }
    record
}

fn already_ledgered(found: &Found<'_>) -> (String, String, String) {
    (
        found.file.to_owned(),
        found.section.heading.to_owned(),
        "already ledgered".to_owned(),
    )
}

/// Every decision `adopt --all` can ledger (whatever its status: proposed and draft ones too);
/// those it cannot (a heading used twice in its file, a status outside the list) are noted in
/// `skipped`.
fn every_decision<'a>(
    files: &'a Files,
    skipped: &mut Vec<(String, String, String)>,
) -> Vec<Found<'a>> {
    let mut targets = Vec::new();
    for (file, text) in &files.files {
        let cut = sections(text);
        let mut uses: HashMap<&str, usize> = HashMap::new();
        for section in &cut {
            *uses.entry(section.heading).or_default() += 1;
        }
        let mut reported = HashSet::new();
        for section in &cut {
            let why = match (uses[section.heading], status_of(section)) {
                (1, Some(Status::Unreadable(_))) => messages::ADOPT_UNREADABLE.to_owned(),
                (1, _) => {
                    targets.push(Found {
                        file,
                        text,
                        section: *section,
                    });
                    continue;
                }
                (n, _) => format!("the heading heads {n} sections of the file"),
            };
            if reported.insert(section.heading) {
                skipped.push(((*file).to_owned(), section.heading.to_owned(), why));
            }
        }
    }
    targets
}

/// A change of status: what it needs, what it leaves.
#[derive(Debug, Clone, Copy)]
pub enum Change<'a> {
    /// An active decision, replaced by the one `successor` names.
    Supersede { successor: &'a str },
    /// An active decision, ended without a successor.
    Abrogate,
    /// A proposed or draft decision, put in force.
    Accept,
    /// A proposed or draft decision, turned down.
    Reject,
}

impl Change<'_> {
    fn event(self) -> &'static str {
        match self {
            Change::Supersede { .. } => "supersede",
            Change::Abrogate => "abrogate",
            Change::Accept => "accept",
            Change::Reject => "reject",
        }
    }

    /// The participle the messages use: "while decisions were being superseded".
    fn doing(self) -> &'static str {
        match self {
            Change::Supersede { .. } => "superseded",
            Change::Abrogate => "abrogated",
            Change::Accept => "accepted",
            Change::Reject => "rejected",
        }
    }

    /// The status the decision must have.
    fn from(self) -> Status {
        match self {
            Change::Supersede { .. } | Change::Abrogate => Status::Active,
            Change::Accept | Change::Reject => Status::Proposed,
        }
    }

    /// The status it is left with (`successor`: the successor's heading).
    fn to(self, successor: Option<&str>) -> Status {
        match self {
            Change::Supersede { .. } => Status::Superseded {
                by: successor.map(str::to_owned),
            },
            Change::Abrogate => Status::Abrogated,
            Change::Accept => Status::Active,
            Change::Reject => Status::Rejected,
        }
    }
}

/// One change as the files show it: the decision, its successor, the status each has and
/// will have, the text after the flip.
struct Subject<'a> {
    change: Change<'a>,
    old: Found<'a>,
    new: Option<Found<'a>>,
    /// The decision's status in its file.
    in_file: Status,
    /// The status it is left with.
    target: Status,
    /// The decision's section in the flipped text.
    flipped: Section<'a>,
    reason: Option<String>,
}

/// What a change will write, computed from the files as read and a ledger.
struct Plan {
    records: Vec<Record>,
    completing: bool,
}

/// `decision supersede|abrogate|accept|reject`: rewrites the status value of the decision
/// `name` finds and records the change (for a supersede, the successor's too). An unledgered
/// decision is adopted first by `accept` and `reject`; `supersede` and `abrogate` need it
/// ledgered.
///
/// # Errors
/// Every refusal of the module documentation's rules; nothing is written then.
pub fn change(
    run: &Run<'_>,
    name: &str,
    change: Change<'_>,
    reason: Option<&str>,
) -> Result<Outcome> {
    let name = heading_arg(name, "the decision")?;
    let successor_name = match change {
        Change::Supersede { successor } => Some(heading_arg(successor, "--successor")?),
        _ => None,
    };
    let reason = reason_arg(reason, matches!(change, Change::Abrogate))?;
    let files = Files::read(run.root)?;
    let old = files.find(name)?;
    let heading = old.section.heading;
    let new = successor_name.map(|s| files.find(s)).transpose()?;
    if let Some(new) = &new
        && new.is(&old)
    {
        return Err(Error::refused(messages::supersede_itself(heading)));
    }
    let Some(line) = status_line(&old.section) else {
        return Err(Error::refused(messages::no_status_line(heading)));
    };
    let target = change.to(new.map(|n| n.section.heading));
    let (flipped, value) = flip(&old, &target, matches!(change, Change::Supersede { .. }))?;
    let flipped_cut = sections(&flipped);
    let Some(flipped_section) = flipped_cut.iter().find(|s| s.heading == heading) else {
        return Err(Error::refused(messages::status_not_read_back(&value)));
    };
    let subject = Subject {
        change,
        old,
        new,
        in_file: line.status,
        target,
        flipped: *flipped_section,
        reason,
    };
    // Refusals before the lock create nothing.
    plan(run, &Ledger::read(run.root)?, &files, &subject)?;
    let lock = WriterLock::acquire(run.root)?;
    let plan = plan(run, &Ledger::read(run.root)?, &files, &subject)?;
    let doing = change.doing();
    ensure_unchanged(run.root, &files, doing)?;
    write_flip(run, &plan.records, &old, &flipped, doing, &lock)?;
    drop(lock);
    let predecessors = if matches!(change, Change::Abrogate) {
        predecessors(&files, &old)
    } else {
        Vec::new()
    };
    Ok(Outcome {
        event: change.event(),
        recorded: plan.records,
        flipped: Some((old.file.to_owned(), heading.to_owned(), value)),
        status: subject.target.as_str(),
        completed: plan.completing,
        predecessors,
        ..Outcome::default()
    })
}

/// The records a change appends, after the checks against `ledger`: the decision's records
/// agree and its text is the one ledgered; the successor is in force and unedited and does not
/// lead back to the decision. A ledger that already holds this very change (a crash stopped it
/// before the file was rewritten) makes it a completion, with no record.
fn plan(run: &Run<'_>, ledger: &Ledger, files: &Files, subject: &Subject<'_>) -> Result<Plan> {
    let Subject {
        change,
        old,
        new,
        in_file,
        target,
        flipped,
        ..
    } = subject;
    let (change, old, new) = (*change, old, new.as_ref());
    let heading = old.section.heading;
    let all = chains(ledger);
    let chain = all.of(old.file, heading);
    sound(chain, heading, old)?;
    let tip = chain.and_then(Chain::tip).map(|i| &ledger.records[i]);
    let successor = new.map(|n| n.section.heading);
    let completing = tip.is_some_and(|tip| {
        tip.event == change.event()
            && tip.status == target.as_str()
            && tip.by.as_deref() == successor
            && *in_file == change.from()
    });
    if !completing {
        if *in_file != change.from() {
            return Err(wrong_status(heading, in_file, change));
        }
        match tip {
            None if matches!(change, Change::Supersede { .. } | Change::Abrogate) => {
                return Err(Error::refused(messages::not_ledgered(heading)));
            }
            Some(tip) if tip.status != change.from().as_str() => {
                let interrupted = matches!(
                    tip.event.as_str(),
                    "supersede" | "abrogate" | "accept" | "reject"
                );
                return Err(Error::refused(if interrupted {
                    messages::ledger_ahead(
                        heading,
                        &tip.status,
                        tip.by.as_deref(),
                        old.file,
                        &messages::rerun(&tip.event, heading, tip.by.as_deref()),
                    )
                } else {
                    messages::ledger_disagrees(heading, &tip.status, old.file, in_file.as_str())
                }));
            }
            _ => {}
        }
    }
    // The text must be the one ledgered: as it stands, or as the interrupted change left it.
    let looked_at = if completing { flipped } else { &old.section };
    if let Some(chain) = chain
        && let Some(i) = chain.edited(ledger, looked_at)
    {
        return Err(Error::refused(messages::decision_edited_since(
            heading,
            &old.place(),
            &ledger.records[i].ts,
        )));
    }
    if let Some(new) = new {
        in_force(new)?;
        check_successor(ledger, &all, files, old, new)?;
    }
    if completing {
        return Ok(Plan {
            records: Vec::new(),
            completing,
        });
    }
    Ok(Plan {
        records: records(run, &all, ledger, tip, subject),
        completing,
    })
}

/// The records of a change that is not a completion: an `adopt` first when the decision is not
/// ledgered, the change itself, and for a supersede the successor's `succeed`.
fn records(
    run: &Run<'_>,
    all: &Chains,
    ledger: &Ledger,
    tip: Option<&Record>,
    subject: &Subject<'_>,
) -> Vec<Record> {
    let Subject {
        change,
        old,
        new,
        target,
        flipped,
        reason,
        ..
    } = subject;
    let heading = old.section.heading;
    let mut records = Vec::new();
    let mut prev = tip.map(|t| t.id.clone());
    if tip.is_none() {
        let adopt = adoption(run, old, &change.from());
        prev = Some(adopt.id.clone());
        records.push(adopt);
    }
    let mut main = Record::new(
        run.now,
        change.event(),
        old.file,
        heading,
        target.as_str(),
        ledger::digest(flipped),
        prev.as_deref(),
        run.actor,
    );
    main.by = new.map(|n| n.section.heading.to_owned());
    main.reason.clone_from(reason);
    records.push(main);
    if let Some(new) = new {
        let new_tip = all
            .of(new.file, new.section.heading)
            .and_then(Chain::tip)
            .map(|i| ledger.records[i].id.as_str());
        let mut succeed = Record::new(
            run.now,
            "succeed",
            new.file,
            new.section.heading,
            "active",
            ledger::digest(&new.section),
            new_tip,
            run.actor,
        );
        succeed.reason.clone_from(reason);
        records.push(succeed);
    }
    records
}

/// Refuses a decision whose ledger records do not form one chain (`lint` names each problem).
fn sound(chain: Option<&Chain>, heading: &str, found: &Found<'_>) -> Result<()> {
    match chain.and_then(|c| c.problems.first()) {
        None => Ok(()),
        Some(problem) => Err(Error::refused(messages::ledger_broken(
            heading,
            &found.place(),
            problem.line,
            &problem.message,
        ))),
    }
}

fn wrong_status(heading: &str, status: &Status, change: Change<'_>) -> Error {
    let by = match status {
        Status::Superseded { by: Some(by) } => Some(by.as_str()),
        _ => None,
    };
    match change {
        Change::Supersede { .. } | Change::Abrogate => {
            Error::refused(messages::not_active(heading, status.as_str(), by))
        }
        Change::Accept | Change::Reject => {
            Error::refused(messages::not_proposed(heading, status.as_str(), by))
        }
    }
}

/// Refuses a successor that is not in force in its file.
fn in_force(new: &Found<'_>) -> Result<()> {
    let status = status_of(&new.section).unwrap_or(Status::Active);
    if status == Status::Active {
        return Ok(());
    }
    Err(Error::refused(messages::successor_not_active(
        new.section.heading,
        status.as_str(),
    )))
}

/// The decision file's text with `old`'s status value replaced by `status`'s, and the value
/// written. The status value alone is replaced when that reads back as `status` (for a change
/// other than a supersede, only if the digest is kept too); else, for a supersede, the whole
/// value.
fn flip(old: &Found<'_>, status: &Status, is_supersede: bool) -> Result<(String, String)> {
    let value = status.to_value();
    let Some(line) = status_line(&old.section) else {
        return Err(Error::refused(messages::no_status_line(
            old.section.heading,
        )));
    };
    let reads_back = |text: &str, keep_digest: bool| {
        let cut = sections(text);
        let Some(section) = cut.iter().find(|s| s.heading == old.section.heading) else {
            return false;
        };
        status_of(section).as_ref() == Some(status)
            && (!keep_digest || ledger::digest(section) == ledger::digest(&old.section))
    };
    let mut ranges = Vec::new();
    if let Some(span) = status_value_range(&old.section) {
        ranges.push((span, !is_supersede));
    }
    if is_supersede {
        ranges.push((line.field.value_range.clone(), false));
    }
    for (range, keep_digest) in ranges {
        let mut flipped = old.text.to_owned();
        flipped.replace_range(range, &value);
        if reads_back(&flipped, keep_digest) {
            return Ok((flipped, value));
        }
    }
    Err(Error::refused(messages::status_not_read_back(&value)))
}

/// Appends `records` to the ledger, then replaces the note file with `flipped` if it still holds
/// the bytes first read; when it cannot, takes the records back. `crash_at` is the crash tests'
/// hook (`BMAD_MEM_CRASH_AT=decision-after-ledger` stops the process between the two writes).
fn write_flip(
    run: &Run<'_>,
    records: &[Record],
    old: &Found<'_>,
    flipped: &str,
    doing: &str,
    lock: &WriterLock,
) -> Result<()> {
    let appended: u64 = records
        .iter()
        .map(|r| Value::Object(r.to_object()).compact().len() as u64 + 1)
        .sum();
    let before = ledger::record(run.root, records, lock)?;
    crate::context::crash_point(run.crash_at, "decision-after-ledger");
    if let Err(e) = replace_if_unchanged(run.root, old.file, old.text, flipped, doing) {
        if !records.is_empty() {
            ledger::undo(run.root, before, appended, lock)?;
        }
        return Err(e);
    }
    Ok(())
}

/// The successor must be in force in the ledger too, unedited since it was ledgered, and must
/// not lead back to `old` through the chain of successors the files and the ledger name.
fn check_successor(
    ledger: &Ledger,
    all: &Chains,
    files: &Files,
    old: &Found<'_>,
    new: &Found<'_>,
) -> Result<()> {
    let heading = old.section.heading;
    let found = files.all();
    let names = Names::new(found.iter().map(|f| f.section.heading));
    let mut chain = vec![new.place_named()];
    let mut at = *new;
    let mut seen = HashSet::from([(new.file, new.section.body_start())]);
    loop {
        let recorded = all
            .of(at.file, at.section.heading)
            .and_then(Chain::tip)
            .map(|i| &ledger.records[i])
            .filter(|r| !r.is_active());
        let by = match recorded {
            Some(record) => record.by.clone(),
            None => match status_of(&at.section) {
                Some(Status::Superseded { by }) => by,
                _ => None,
            },
        };
        let Some(by) = by else {
            break;
        };
        let [next] = names.find(&by) else {
            break;
        };
        let next = found[*next];
        chain.push(next.place_named());
        if next.is(old) {
            return Err(Error::refused(messages::succession_cycle(
                heading,
                new.section.heading,
                &chain,
            )));
        }
        if !seen.insert((next.file, next.section.body_start())) {
            break;
        }
        at = next;
    }
    if let Some(chain) = all.of(new.file, new.section.heading) {
        sound(Some(chain), new.section.heading, new)?;
        if let Some(record) = chain.tip().map(|i| &ledger.records[i])
            && !record.is_active()
        {
            return Err(Error::refused(messages::successor_ended(
                new.section.heading,
                &record.status,
                record.by.as_deref(),
            )));
        }
        if let Some(i) = chain.edited(ledger, &new.section) {
            return Err(Error::refused(messages::decision_edited_since(
                new.section.heading,
                &new.place(),
                &ledger.records[i].ts,
            )));
        }
    }
    Ok(())
}

/// The decisions whose status line names `old` as their successor: they stay superseded when
/// it ends.
fn predecessors(files: &Files, old: &Found<'_>) -> Vec<(String, String)> {
    let all = files.all();
    let names = Names::new(all.iter().map(|f| f.section.heading));
    all.iter()
        .filter(|f| {
            let Some(Status::Superseded { by: Some(by) }) = status_of(&f.section) else {
                return false;
            };
            matches!(names.find(&by), [i] if all[*i].is(old))
        })
        .map(|f| (f.file.to_owned(), f.section.heading.to_owned()))
        .collect()
}
