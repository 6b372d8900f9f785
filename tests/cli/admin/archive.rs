//! `archive`: moving older journal and promotion records into `.bmad/memory/archive/`, the
//! byte-for-byte split, the names, the interrupted-archive state and its completion, recall
//! `--include-archive`, `doctor`'s cap findings, and every refusal leaving the files as they were.

use serde::Deserialize;

use crate::support::{JOURNAL, LOCK, PROMOTIONS, TestProject};

const ARCHIVE: &str = ".bmad/memory/archive";
const CAP: usize = 2 * 1024 * 1024;

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ArchiveResult {
    store: String,
    file: String,
    archived: usize,
    kept: usize,
    archive_file: Option<String>,
    completed: Vec<String>,
}

/// A journal line for record `i`: its own minute of January 2026, padded to `len` bytes.
fn record(i: usize, len: usize) -> String {
    let ts = format!(
        "2026-01-{:02}T{:02}:{:02}:00.000Z",
        1 + i / 1440,
        i / 60 % 24,
        i % 60
    );
    let head = format!("{{\"ts\":\"{ts}\",\"agent\":\"a\",\"id\":\"r{i:04}\",\"task\":\"");
    let pad = len - head.len() - 3;
    format!("{head}{}\"}}\n", "x".repeat(pad))
}

/// A journal of exactly 2 MiB: 1,101 records, too full for any `write`.
fn full_journal() -> String {
    let mut text: String = (0..1100).map(|i| record(i, 1906)).collect();
    let rest = CAP - text.len();
    text.push_str(&record(1100, rest));
    assert_eq!(text.len(), CAP);
    text
}

#[test]
fn a_full_journal_refuses_writes_until_archived_keeping_the_newest_thousand() {
    let original = full_journal();
    let project = TestProject::new()
        .write(JOURNAL, &original)
        .args(["write", "--agent", "forge"])
        .refused(
            "write",
            "Memory store is full; archive it explicitly before adding records.",
        );
    let name = "journal-20260101T000000Z--20260101T014000Z.ndjson";
    let rel = format!("{ARCHIVE}/{name}");
    let ran = project
        .args(["--json", "archive", "journal"])
        .code(0)
        .stderr("")
        .run();
    assert_eq!(
        ran.json::<ArchiveResult>(),
        ArchiveResult {
            store: "journal".into(),
            file: JOURNAL.into(),
            archived: 101,
            kept: 1000,
            archive_file: Some(rel.clone()),
            completed: vec![],
        }
    );
    let project = ran.then();
    let archived = project.read_text(&rel);
    let live = project.read_text(JOURNAL);
    assert_eq!(archived.lines().count(), 101);
    assert_eq!(live.lines().count(), 1000);
    assert!(live.starts_with(&record(101, 1906)));
    // Byte for byte: the archive, then the live file, is the old journal.
    assert_eq!(format!("{archived}{live}"), original);
    assert_eq!(project.names(ARCHIVE), [name]);
    assert_eq!(project.names(".bmad/memory"), ["archive", "journal.ndjson"]);
    let _ = project
        .args(["write", "--agent", "forge"])
        .code(0)
        .stderr("")
        .run();
}

/// Blank lines, a line that is not JSON, a record without `ts`, a numeric `ts`.
const MIXED: &str = concat!(
    "{\"ts\":\"2026-10-01T00:00:00.000Z\",\"id\":\"a\"}\n",
    "  \n",
    "not json\n",
    "{\"id\":\"c\"}\n",
    "{\"ts\":1791000000000,\"id\":\"d\"}\n",
    "{\"ts\":\"2026-10-05T00:00:00.000Z\",\"id\":\"e\"}\n",
    "\n",
);

#[test]
fn keep_moves_all_but_the_last_records_as_a_prefix() {
    let archived = concat!(
        "{\"ts\":\"2026-10-01T00:00:00.000Z\",\"id\":\"a\"}\n",
        "  \n",
        "not json\n",
        "{\"id\":\"c\"}\n",
    );
    let live = concat!(
        "{\"ts\":1791000000000,\"id\":\"d\"}\n",
        "{\"ts\":\"2026-10-05T00:00:00.000Z\",\"id\":\"e\"}\n",
        "\n",
    );
    // The last archived records have no usable ts: the name takes the nearest one that has.
    let rel = format!("{ARCHIVE}/journal-20261001T000000Z--20261001T000000Z.ndjson");
    let _ = TestProject::new()
        .write(JOURNAL, MIXED)
        .args(["archive", "journal", "--keep", "2"])
        .code(0)
        .stdout(&format!(
            "mem archive: moved 3 record(s) of {JOURNAL} into {rel}; 2 kept\n"
        ))
        .stderr("")
        .file(&rel, archived)
        .file(JOURNAL, live)
        .run()
        .then()
        // Nothing more to move: said so, nothing written.
        .args(["archive", "journal", "--keep", "2"])
        .code(0)
        .stdout(&format!(
            "mem archive: nothing to archive in {JOURNAL}; 2 record(s) kept\n"
        ))
        .unchanged()
        .run()
        .then()
        .args(["archive", "journal", "--keep", "0"])
        .code(0)
        .file(JOURNAL, "\n")
        .run();
}

#[test]
fn before_moves_the_records_dated_earlier_and_keeps_undated_ones() {
    let rel = format!("{ARCHIVE}/journal-20261001T000000Z--20261003T040000Z.ndjson");
    let _ = TestProject::new()
        .write(JOURNAL, MIXED)
        .args(["archive", "journal", "--before", "2026-10-04"])
        .code(0)
        .stdout(&format!(
            "mem archive: moved 2 record(s) of {JOURNAL} into {rel}; 3 kept\n"
        ))
        .file(
            &rel,
            "{\"ts\":\"2026-10-01T00:00:00.000Z\",\"id\":\"a\"}\n{\"ts\":1791000000000,\"id\":\"d\"}\n",
        )
        .file(
            JOURNAL,
            "  \nnot json\n{\"id\":\"c\"}\n{\"ts\":\"2026-10-05T00:00:00.000Z\",\"id\":\"e\"}\n\n",
        )
        .run()
        .then()
        // Strictly before: a record at the instant itself stays.
        .args(["archive", "journal", "--before", "2026-10-05T00:00:00Z"])
        .code(0)
        .stdout(&format!(
            "mem archive: nothing to archive in {JOURNAL}; 3 record(s) kept\n"
        ))
        .unchanged()
        .run();
}

#[test]
fn a_taken_name_gets_a_numbered_suffix_and_recall_reads_archives_in_order() {
    let line = |id: &str| {
        format!(
            "{{\"ts\":\"2026-10-01T00:00:00.000Z\",\"agent\":\"{id}\",\"task\":\"zebra\",\"id\":\"{id}\"}}\n"
        )
    };
    let stem = format!("{ARCHIVE}/journal-20261001T000000Z--20261001T000000Z");
    let project = TestProject::new()
        .write(JOURNAL, line("a") + &line("b"))
        .args(["archive", "journal", "--keep", "1"])
        .code(0)
        .file(&format!("{stem}.ndjson"), line("a"))
        .run()
        .then()
        .append(JOURNAL, line("c"))
        .args(["archive", "journal", "--keep", "1"])
        .code(0)
        .stdout(&format!(
            "mem archive: moved 1 record(s) of {JOURNAL} into {stem}-2.ndjson; 1 kept\n"
        ))
        .file(&format!("{stem}.ndjson"), line("a"))
        .file(&format!("{stem}-2.ndjson"), line("b"))
        .file(JOURNAL, line("c"))
        .run()
        .then();
    // Equal scores keep candidate order: the first archive, its `-2`, then the live journal.
    let ran = project
        .args(["--json", "recall", "zebra", "--include-archive"])
        .code(0)
        .run();
    let out: serde_json::Value = ran.json();
    let order: Vec<(&str, &str)> = out["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["ref"].as_str().unwrap(), r["source"].as_str().unwrap()))
        .collect();
    assert_eq!(
        order,
        [
            ("a", "journal-20261001T000000Z--20261001T000000Z.ndjson"),
            ("b", "journal-20261001T000000Z--20261001T000000Z-2.ndjson"),
            ("c", "journal.ndjson"),
        ]
    );
}

#[test]
fn recall_reads_archived_events_only_when_asked() {
    let event = "{\"ts\":\"2026-10-18T09:30:00.000Z\",\"agent\":\"forge\",\"task\":\"Rotate the signing keys\",\"id\":\"k1\"}\n";
    let other = "{\"ts\":\"2026-10-18T09:30:00.000Z\",\"agent\":\"forge\",\"task\":\"Unrelated\",\"id\":\"k2\"}\n";
    let name = "journal-20261018T093000Z--20261018T093000Z.ndjson";
    let project = TestProject::new()
        .write(JOURNAL, format!("{event}{other}"))
        .args(["archive", "journal", "--keep", "1"])
        .code(0)
        .run()
        .then()
        .args(["recall", "signing", "keys"])
        .code(0)
        .stdout("mem recall: no matches for \"signing keys\" (scope: project)\n")
        .run()
        .then()
        .args(["recall", "signing", "keys", "--include-archive"])
        .code(0)
        .stdout(&format!(
            "mem recall: 1 match(es) for \"signing keys\" (scope: project)\n  1. [0.894] event {name}#k1\n     forge Rotate the signing keys {{}}\n"
        ))
        .run()
        .then();
    // Evidence ranking reads them too (confined), unverified like every event.
    let ran = project
        .args([
            "--json",
            "recall",
            "signing",
            "--include-archive",
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
        ])
        .code(0)
        .run();
    let out: serde_json::Value = ran.json();
    assert_eq!(out["count"], 1);
    assert_eq!(out["results"][0]["source"], name);
    assert_eq!(out["results"][0]["evidence"]["status"], "unverified");
    let _ = ran
        .then()
        .args([
            "--json",
            "recall",
            "signing",
            "--ranking",
            "evidence",
            "--context-scope",
            "src",
        ])
        .code(0)
        .stdout(
            "{\n  \"query\": \"signing\",\n  \"scope\": \"project\",\n  \"ranking\": \"evidence\",\n  \"count\": 0,\n  \"results\": []\n}\n",
        )
        .run();
}

#[test]
fn promotions_are_archived_and_never_recalled() {
    let promotion = |id: &str| {
        format!(
            "{{\"id\":\"{id}\",\"patternId\":\"zebra crossing\",\"ts\":\"2026-10-0{id}T00:00:00.000Z\",\"status\":\"PROPOSED\"}}\n"
        )
    };
    let rel = format!("{ARCHIVE}/promotions-20261001T000000Z--20261002T000000Z.ndjson");
    let _ = TestProject::new()
        .write(
            PROMOTIONS,
            promotion("1") + &promotion("2") + &promotion("3"),
        )
        .args(["archive", "promotions", "--keep", "1"])
        .code(0)
        .stdout(&format!(
            "mem archive: moved 2 record(s) of {PROMOTIONS} into {rel}; 1 kept\n"
        ))
        .file(&rel, promotion("1") + &promotion("2"))
        .file(PROMOTIONS, promotion("3"))
        .run()
        .then()
        .args(["recall", "zebra", "--include-archive"])
        .code(0)
        .stdout("mem recall: no matches for \"zebra\" (scope: project)\n")
        .run();
}

#[test]
fn doctor_names_the_command_near_and_at_the_cap() {
    let _ = TestProject::new()
        .write(JOURNAL, full_journal())
        .args(["doctor"])
        .code(1)
        .stdout(&format!(
            "mem doctor: 1 problem(s) in 1 file(s) checked\n  {JOURNAL} [at-cap]: 2097152 bytes of 2097152: full, every write is refused; `bmad-mem archive journal` moves all but the newest 1000 records into .bmad/memory/archive/\n"
        ))
        .run();
    let near: String = (0..1000).map(|i| record(i, 1900)).collect();
    // Near the cap is a warning: doctor exits 0.
    let _ = TestProject::new()
        .write(PROMOTIONS, &near)
        .args(["doctor"])
        .code(0)
        .stdout(&format!(
            "mem doctor: healthy, 1 warning(s) in 1 file(s) checked\n  warning: {PROMOTIONS} [near-cap]: 1900000 bytes of 2097152: archive it before it fills; `bmad-mem archive promotions` moves all but the newest 1000 records into .bmad/memory/archive/\n"
        ))
        .run();
}

/// The state a crash leaves after the archive file is written and before the live file is cut
/// back: every archived record in both files. `doctor` names it; the next `archive` completes
/// it without a new archive or a duplicate, and a third run does nothing.
#[track_caller]
fn interrupted(args: &[&str], archived: &str, live: &str) {
    // Every line a JSON object, so that doctor has nothing else to say.
    let clean = |text: &str| text.replace("not json", "{\"id\":\"b\"}");
    let (journal, archived, live) = (clean(MIXED), clean(archived), clean(live));
    let rel = format!("{ARCHIVE}/journal-20261001T000000Z--20261003T040000Z.ndjson");
    let project = TestProject::new()
        .write(JOURNAL, journal)
        .write(&rel, &archived)
        .args(["doctor"])
        .code(1)
        .stdout(&format!(
            "mem doctor: 1 problem(s) in 2 file(s) checked\n  {rel} [unfinished-archive]: its 2 record(s) are still in {JOURNAL} too (an archive was interrupted); `bmad-mem archive journal` completes it\n"
        ))
        .run()
        .then()
        .args(args)
        .code(0)
        .stdout(&format!(
            "mem archive: nothing to archive in {JOURNAL}; 3 record(s) kept\n  completed an interrupted archive: removed the records of {rel} from {JOURNAL}\n"
        ))
        .file(&rel, &archived)
        .file(JOURNAL, &live)
        .run()
        .then()
        .args(["doctor"])
        .code(0)
        .stdout("mem doctor: healthy (1 file(s) checked)\n")
        .run()
        .then()
        .args(args)
        .code(0)
        .unchanged()
        .run()
        .then();
    // Nothing new was archived.
    assert_eq!(
        project.names(ARCHIVE),
        ["journal-20261001T000000Z--20261003T040000Z.ndjson"]
    );
}

#[test]
fn an_interrupted_archive_is_named_by_doctor_and_completed_by_a_rerun() {
    // As `--before 2026-10-04` leaves it: two records taken from the middle.
    interrupted(
        &["archive", "journal", "--before", "2026-10-04"],
        "{\"ts\":\"2026-10-01T00:00:00.000Z\",\"id\":\"a\"}\n{\"ts\":1791000000000,\"id\":\"d\"}\n",
        "  \nnot json\n{\"id\":\"c\"}\n{\"ts\":\"2026-10-05T00:00:00.000Z\",\"id\":\"e\"}\n\n",
    );
    // As `--keep` leaves it: a prefix; any archive command completes it, here the default.
    interrupted(
        &["archive", "journal", "--keep", "3"],
        "{\"ts\":\"2026-10-01T00:00:00.000Z\",\"id\":\"a\"}\n  \nnot json\n",
        "{\"id\":\"c\"}\n{\"ts\":1791000000000,\"id\":\"d\"}\n{\"ts\":\"2026-10-05T00:00:00.000Z\",\"id\":\"e\"}\n\n",
    );
}

#[test]
fn refusals_change_nothing() {
    let torn = "{\"ts\":\"2026-10-01T00:00:00.000Z\",\"id\":\"a\"}\n{\"ts\":\"2026-10-0";
    let project = TestProject::new()
        .write(JOURNAL, torn)
        .args(["archive", "journal", "--keep", "0"])
        .refused(
            "archive",
            "Memory store has an incomplete final line; inspect it before writing. \
             `bmad-mem doctor --repair-tail .bmad/memory/journal.ndjson` keeps the torn line aside.",
        )
        .write(JOURNAL, b"{\"id\":\"\xff\"}\n")
        .args(["archive", "journal", "--keep", "0"])
        .refused("archive", "Memory source must contain valid UTF-8.")
        .write(JOURNAL, MIXED);
    let mut project = project;
    for (args, message) in [
        (
            vec!["archive", "journal", "--keep", "-1"],
            "invalid value for --keep: -1",
        ),
        (
            vec!["archive", "journal", "--keep", "1.5"],
            "invalid value for --keep: 1.5",
        ),
        (
            vec!["archive", "journal", "--keep", ""],
            "invalid value for --keep: ",
        ),
        (
            vec!["archive", "journal", "--before", "2026-10-18 09:30:00"],
            "invalid value for --before: 2026-10-18 09:30:00",
        ),
        (
            vec![
                "archive",
                "journal",
                "--before",
                "2026-10-04",
                "--keep",
                "1",
            ],
            "--before and --keep cannot be used together",
        ),
        (
            vec!["archive", "outcomes"],
            "unknown store 'outcomes' — expected journal | promotions | reinforcements",
        ),
        (
            vec!["archive"],
            "missing store — expected journal | promotions | reinforcements",
        ),
    ] {
        project = project.args(args).refused("archive", message);
    }
    // A link in place of the archive folder is never written through.
    let project = project
        .mkdir("elsewhere")
        .symlink("../../elsewhere", ARCHIVE)
        .args(["archive", "journal", "--keep", "0"])
        .refused(
            "archive",
            "Memory paths cannot follow symbolic links or junctions.",
        );
    // Another writer's lock is waited for, then left alone.
    let project = project
        .remove(ARCHIVE)
        .write(LOCK, r#"{"pid":1,"hostname":"elsewhere","token":"t"}"#)
        .args(["archive", "journal", "--keep", "0"])
        .refused(
            "archive",
            "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a \
             live lock.",
        );
    let _ = project;
    // Nothing to archive in an empty project: a success that creates nothing at all.
    let _ = TestProject::new()
        .args(["archive", "promotions"])
        .code(0)
        .stdout(&format!(
            "mem archive: nothing to archive in {PROMOTIONS}; 0 record(s) kept\n"
        ))
        .unchanged()
        .run();
}

/// The figure in RELIABILITY.md: a journal filled to the cap with ordinary events (200 bytes
/// each), archived with the defaults. Prints what moved and how long the whole run took
/// (`-- --nocapture`); the time is reported, never asserted.
#[test]
fn a_full_journal_of_ordinary_events_is_archived_byte_for_byte() {
    let count = CAP / 200;
    let mut original: String = (0..count).map(|i| record(i, 200)).collect();
    let rest = CAP - original.len();
    original.push_str(&record(count, rest));
    assert_eq!(original.len(), CAP);
    let project = TestProject::new()
        .write(JOURNAL, &original)
        .args(["--json", "archive", "journal"]);
    let started = std::time::Instant::now();
    let ran = project.code(0).run();
    let elapsed = started.elapsed();
    let result: ArchiveResult = ran.json();
    assert_eq!((result.archived, result.kept), (count + 1 - 1000, 1000));
    let project = ran.then();
    let archived = project.read_text(result.archive_file.as_deref().unwrap());
    let live = project.read_text(JOURNAL);
    assert_eq!(format!("{archived}{live}"), original);
    eprintln!(
        "archive journal: {CAP}-byte journal, {} records: {} moved ({} bytes), {} kept ({} bytes), \
         archive + live = original; whole run {:.1} ms",
        count + 1,
        result.archived,
        archived.len(),
        result.kept,
        live.len(),
        elapsed.as_secs_f64() * 1000.0
    );
}
