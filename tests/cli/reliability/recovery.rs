//! Recovering from what the hardening review found: a lock left by another host, a registry
//! holding bytes that are not UTF-8, races in the two repairs, and a health check that was
//! quadratic in the `###` lines inside fenced code.
//!
//! Every refusal leaves every file as it was; every repair keeps what it moves, byte for byte.

use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::process::Stdio;
use std::thread;
use std::time::Duration;

use bmad_mem::js::json::sha256_hex;
use serde::Deserialize;

use crate::admin::doctor::nothing_to_repair;
use crate::support::schema::{Problem, Receipt, Report};
use crate::support::writers::{dead_pid, holds_flock, host};
use crate::support::{JOURNAL, LOCK, TestProject};

const LESSONS: &str = ".bmad/memory/lessons.md";
const RECEIPTS: &str = ".bmad/memory/lock-recovery";
/// [`crate::support::NOW`] as a file-name stamp.
const STAMP: &str = "2026-10-18T09-30-00-000Z";
/// A lock left by a writer on another host (a container that is gone).
const FOREIGN: &str =
    r#"{"pid":7,"hostname":"ci-runner-3f9a","token":"5d0c8e2b-1a4f-4b7e-9c3d-2e6f8a0b1c4d"}"#;
const OCCUPIED: &str =
    "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock.";

#[test]
fn a_lock_from_another_host_is_reported_and_removed_only_when_declared_gone() {
    let sha = sha256_hex(FOREIGN.as_bytes());
    let project = TestProject::new().fixture("example").write(LOCK, FOREIGN);
    let journal = project.read(JOURNAL);
    // Writing is blocked, and doctor no longer calls the store healthy.
    let project = project
        .args(["write", "--agent", "forge"])
        .refused("write", OCCUPIED)
        .args(["doctor", "--json"])
        .code(1)
        .unchanged()
        .run();
    let report: Report = project.json();
    assert_eq!(
        report.problems,
        [Problem {
            file: LOCK.to_owned(),
            kind: "foreign-lock".to_owned(),
            message: format!(
                "owner is on host ci-runner-3f9a, where it cannot be checked from here; if no \
                 writer runs there, `bmad-mem lock --recover --expect {sha} \
                 --other-host-is-gone` removes it"
            ),
        }]
    );
    // Without the assertion: refused, naming the flag.
    let project = project
        .then()
        .args(["lock", "--recover", "--expect", &sha])
        .refused(
            "lock",
            "Writer lock belongs to host ci-runner-3f9a, where its owner cannot be checked from \
             here; if no writer runs there, add --other-host-is-gone.",
        )
        // With it, the digest is still checked.
        .args([
            "lock",
            "--recover",
            "--expect",
            &sha[1..],
            "--other-host-is-gone",
        ])
        .refused(
            "lock",
            &format!(
                "Writer lock has sha256 {sha}, not {}; inspect it again before recovering.",
                &sha[1..]
            ),
        )
        // The flag belongs to --recover.
        .args(["lock", "--other-host-is-gone"])
        .code(1)
        .stdout("")
        .unchanged()
        .run();
    assert!(
        project
            .stderr
            .starts_with("mem lock: the following required arguments were not provided:"),
        "{}",
        project.stderr
    );
    let receipt_rel = format!("{RECEIPTS}/{STAMP}-{}.json", &sha[..12]);
    let ran = project
        .then()
        .args([
            "lock",
            "--recover",
            "--expect",
            &sha,
            "--other-host-is-gone",
        ])
        .code(0)
        .stdout(&format!(
            "mem lock: recovered the lock of an owner on host ci-runner-3f9a, declared gone; \
             receipt {receipt_rel}\n"
        ))
        .stderr("")
        .absent(LOCK)
        .file(JOURNAL, &journal)
        .run();
    // One receipt, under its final name, nothing else.
    assert_eq!(
        ran.project.names(RECEIPTS),
        [format!("{STAMP}-{}.json", &sha[..12])]
    );
    check_foreign_receipt(&ran.project, &receipt_rel, &sha);
    // Writing works again, and the store is healthy.
    let _ = ran
        .then()
        .args(["write", "--agent", "forge"])
        .code(0)
        .absent(LOCK)
        .run()
        .then()
        .args(["doctor"])
        .code(0)
        .run();
}

/// The receipt of [`FOREIGN`]'s recovery: its owner's liveness unknown, the assertion recorded.
#[track_caller]
fn check_foreign_receipt(project: &TestProject, receipt_rel: &str, sha: &str) {
    let receipt: Receipt = serde_json::from_str(&project.read_text(receipt_rel)).expect("receipt");
    assert_eq!(receipt.recovered_at, crate::support::NOW);
    assert_eq!(receipt.lock_sha256, sha);
    assert_eq!(
        receipt.owner,
        serde_json::from_str::<serde_json::Value>(FOREIGN).expect("owner")
    );
    assert_eq!(receipt.owner_alive, None);
    assert!(receipt.other_host_is_gone);
    assert!(receipt.age_ms >= 0.0);
    assert_eq!(receipt.recovered_by.hostname, host());
    assert!(receipt.recovered_by.pid > 0);
}

#[test]
fn the_assertion_never_removes_a_live_or_unreadable_lock() {
    let live = format!(
        r#"{{"pid":{},"hostname":"{}","token":"t"}}"#,
        std::process::id(),
        host()
    );
    let _ = TestProject::new()
        .fixture("example")
        .write(LOCK, &live)
        .args([
            "lock",
            "--recover",
            "--expect",
            &sha256_hex(live.as_bytes()),
            "--other-host-is-gone",
        ])
        .refused(
            "lock",
            &format!(
                "Writer lock owner (pid {}) is alive; do not remove a live lock.",
                std::process::id()
            ),
        );
    for text in ["", r#"{"pid":7}"#, "{\"pid\":7,\"hostname\":\"ci-"] {
        let _ = TestProject::new()
            .fixture("example")
            .write(LOCK, text)
            .args([
                "lock",
                "--recover",
                "--expect",
                &sha256_hex(text.as_bytes()),
                "--other-host-is-gone",
            ])
            .refused(
                "lock",
                "Writer lock has no readable owner; check that no writer runs, then remove it by \
                 hand.",
            );
    }
}

/// A recovery takes the writers' queue: while a writer holds it (here, waiting on a dead
/// owner's lock), the recovery waits instead of removing the lock under it, so the writer can
/// never have a lock it created removed by a recovery that looked before it. The writer gives
/// up after its own 2 s budget; only then is the lock removed, and the receipt written after.
/// (Before, the recovery removed the lock at once and the queued writer went ahead.)
#[test]
fn a_recovery_waits_for_the_writer_holding_the_queue() {
    let dead = format!(
        r#"{{"pid":{},"hostname":"{}","token":"t"}}"#,
        dead_pid(),
        host()
    );
    let sha = sha256_hex(dead.as_bytes());
    let project = TestProject::new().fixture("example").write(LOCK, &dead);
    let journal = project.read(JOURNAL);
    let memory_ino = fs::metadata(project.path(".bmad/memory"))
        .expect("memory folder")
        .ino();
    let mut writer = project
        .command()
        .args(["write", "--agent", "forge", "--task", "queued"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the writer");
    // Holding the queue while the dead owner's lock exists means it is in its retry loop.
    // Bounded: the writer gives up after its 2 s budget, so it is seen or it has exited.
    let mut queued = false;
    while writer.try_wait().expect("try_wait").is_none() {
        if holds_flock(writer.id(), memory_ino) {
            queued = true;
            break;
        }
        thread::sleep(Duration::from_millis(1));
    }
    assert!(
        queued,
        "the writer never queued: {:?}",
        writer.wait_with_output()
    );
    let recovery = project
        .command()
        .args(["lock", "--recover", "--expect", &sha])
        .output()
        .expect("run the recovery");
    let written = writer.wait_with_output().expect("wait for the writer");
    // The writer never had the lock removed from under its wait: it gave up, wrote nothing.
    assert_eq!(written.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&written.stderr),
        format!("mem write: {OCCUPIED}\n")
    );
    assert_eq!(project.read(JOURNAL), journal);
    // The recovery went ahead once it held the queue.
    let stderr = String::from_utf8_lossy(&recovery.stderr);
    assert_eq!(recovery.status.code(), Some(0), "{stderr}");
    assert!(fs::symlink_metadata(project.path(LOCK)).is_err());
    assert_eq!(
        project.names(RECEIPTS),
        [format!("{STAMP}-{}.json", &sha[..12])]
    );
}

/// 100,000 `###` lines inside one fence (0.9 MB). Checking each against every fence and
/// counting its line from the start of the file took minutes on such a note (about 200 s for
/// this one in a debug build); in one pass it takes well under a second. No time is asserted:
/// the suite's own run time shows a relapse.
#[test]
fn headings_in_fenced_code_are_found_in_one_pass() {
    const COUNT: usize = 100_000;
    let mut note = String::from("### Outside\nText.\n\n```md\n");
    for i in 0..COUNT {
        let _ = writeln!(note, "### {i:06}");
    }
    note.push_str("```\n");
    let ran = TestProject::new()
        .write(LESSONS, &note)
        .args(["doctor", "--json"])
        .code(0)
        .stderr("")
        .unchanged()
        .run();
    let report: Report = ran.json();
    assert!(report.healthy);
    assert_eq!(report.checked, [LESSONS]);
    assert!(report.problems.is_empty());
    assert_eq!(report.warnings.len(), COUNT);
    for (i, problem) in report.warnings.iter().enumerate() {
        assert_eq!(
            *problem,
            Problem {
                file: LESSONS.to_owned(),
                kind: "heading-in-code".to_owned(),
                message: format!(
                    "line {}: \"### {i:06}\" is inside fenced code but still starts a section",
                    i + 5
                ),
            }
        );
    }
}

/// `doctor --repair-tail`/`--repair-encoding --json`, schema pinned.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Repair {
    repaired: String,
    kept_as: String,
    bytes: usize,
    lines: Option<usize>,
}

const NOT_UTF8: &str = "Memory source must contain valid UTF-8.";
const PROMOTIONS: &str = ".bmad/memory/promotions.ndjson";

/// An event line of the journal, valid or not, numbered `n`.
fn event(n: usize, task: &[u8]) -> Vec<u8> {
    [
        format!(
            r#"{{"ts":"2026-10-18T09:{:02}:00.000Z","agent":"forge","task":""#,
            n % 60
        )
        .as_bytes(),
        task,
        format!(r#"","id":"e{n:04}"}}"#).as_bytes(),
        b"\n",
    ]
    .concat()
}

/// A journal of `count` events; those numbered in `bad` carry a byte that is not UTF-8.
fn journal_with(count: usize, bad: &[usize]) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let (mut all, mut good, mut moved) = (Vec::new(), Vec::new(), Vec::new());
    for n in 1..=count {
        if bad.contains(&n) {
            // A stray Latin-1 byte, then a character cut in two.
            let line = event(
                n,
                if n % 2 == 0 {
                    b"caf\xe9"
                } else {
                    b"\xe2\x82 euro"
                },
            );
            all.extend_from_slice(&line);
            moved.extend_from_slice(&line);
        } else {
            let line = event(n, "café".as_bytes());
            all.extend_from_slice(&line);
            good.extend_from_slice(&line);
        }
    }
    (all, good, moved)
}

/// The file offset of line `n`'s first invalid byte in [`journal_with`]'s journal.
fn invalid_at(all: &[u8], n: usize) -> usize {
    let start: usize = all
        .split_inclusive(|&b| b == b'\n')
        .take(n - 1)
        .map(<[u8]>::len)
        .sum();
    let line = all[start..].split(|&b| b == b'\n').next().expect("line");
    start
        + std::str::from_utf8(line)
            .expect_err("invalid")
            .valid_up_to()
}

#[test]
fn lines_that_are_not_utf8_are_located_and_moved_aside_losslessly() {
    let (all, good, moved) = journal_with(20, &[3, 8]);
    let aside = format!("{JOURNAL}.invalid-{STAMP}");
    let project = TestProject::new()
        .write(JOURNAL, &all)
        // One such line blocks every write.
        .args(["write", "--agent", "forge"])
        .refused("write", NOT_UTF8)
        .args(["doctor", "--json"])
        .code(1)
        .unchanged()
        .run();
    let report: Report = project.json();
    assert_eq!(report.checked, [JOURNAL]);
    assert_eq!(
        report.problems,
        [Problem {
            file: JOURNAL.to_owned(),
            kind: "invalid-utf8".to_owned(),
            message: format!(
                "lines that are not valid UTF-8: line 3 at byte {}, line 8 at byte {}; \
                 `bmad-mem doctor --repair-encoding {JOURNAL}` moves them aside",
                invalid_at(&all, 3),
                invalid_at(&all, 8)
            ),
        }]
    );
    let ran = project
        .then()
        .args(["--json", "doctor", "--repair-encoding", JOURNAL])
        .code(0)
        .stderr("")
        .file(JOURNAL, &good)
        .file(&aside, &moved)
        .run();
    assert_eq!(
        ran.json::<Repair>(),
        Repair {
            repaired: JOURNAL.to_owned(),
            kept_as: aside.clone(),
            bytes: moved.len(),
            lines: Some(2),
        }
    );
    // Lossless: every line is in one file or the other, each in its order.
    let mut lines: Vec<&[u8]> = good.split_inclusive(|&b| b == b'\n').collect();
    lines.extend(moved.split_inclusive(|&b| b == b'\n'));
    lines.sort_unstable();
    let mut before: Vec<&[u8]> = all.split_inclusive(|&b| b == b'\n').collect();
    before.sort_unstable();
    assert_eq!(lines, before);
    // No temporary file left; writing works again, and the store is healthy.
    assert_eq!(
        ran.project.names(".bmad/memory"),
        [
            "journal.ndjson".to_owned(),
            format!("journal.ndjson.invalid-{STAMP}")
        ]
    );
    let _ = ran
        .then()
        .args(["write", "--agent", "forge"])
        .code(0)
        .run()
        .then()
        .args(["doctor"])
        .code(0)
        .stdout("mem doctor: healthy (1 file(s) checked)\n")
        .run();
}

#[test]
fn many_bad_lines_are_counted_and_a_second_repair_keeps_the_first_aside() {
    let bad: Vec<usize> = (1..=25).filter(|n| n % 2 == 1).collect();
    let (all, good, moved) = journal_with(25, &bad);
    let named: Vec<String> = bad[..10]
        .iter()
        .map(|&n| format!("line {n} at byte {}", invalid_at(&all, n)))
        .collect();
    let project = TestProject::new()
        .write(PROMOTIONS, &all)
        .args(["doctor"])
        .code(1)
        .stdout(&format!(
            "mem doctor: 1 problem(s) in 1 file(s) checked\n  {PROMOTIONS} [invalid-utf8]: lines \
             that are not valid UTF-8: {} and 3 more; `bmad-mem doctor --repair-encoding \
             {PROMOTIONS}` moves them aside\n",
            named.join(", ")
        ))
        .unchanged()
        .run()
        .then()
        .args(["doctor", "--repair-encoding", PROMOTIONS])
        .code(0)
        .stdout(&format!(
            "mem doctor: moved 13 line(s) that are not valid UTF-8 ({} bytes) from {PROMOTIONS} \
             into {PROMOTIONS}.invalid-{STAMP}\n",
            moved.len()
        ))
        .file(PROMOTIONS, &good)
        .file(&format!("{PROMOTIONS}.invalid-{STAMP}"), &moved)
        .run();
    // The same instant again: the first kept-aside file is never overwritten.
    let _ = project
        .then()
        .append(PROMOTIONS, b"\xff\n")
        .args(["doctor", "--repair-encoding", PROMOTIONS])
        .code(0)
        .file(PROMOTIONS, &good)
        .file(&format!("{PROMOTIONS}.invalid-{STAMP}"), &moved)
        .file(&format!("{PROMOTIONS}.invalid-{STAMP}-1"), b"\xff\n")
        .run();
}

#[test]
fn a_tear_inside_a_character_is_the_torn_line_case() {
    let (all, _, _) = journal_with(3, &[]);
    let torn: &[u8] = b"{\"ts\":\"2026-10-18T09:00:00.000Z\",\"task\":\"\xe2\x82";
    let project = TestProject::new()
        .write(JOURNAL, [all.as_slice(), torn].concat())
        .args(["doctor"])
        .code(1)
        .stdout(&format!(
            "mem doctor: 1 problem(s) in 1 file(s) checked\n  {JOURNAL} [torn-final-line]: \
             incomplete final line at byte {} ({} bytes); `bmad-mem doctor --repair-tail \
             {JOURNAL}` keeps it aside\n",
            all.len(),
            torn.len()
        ))
        .unchanged()
        .run()
        .then()
        .args(["doctor", "--repair-encoding", JOURNAL])
        .refused(
            "doctor",
            &format!(
                "{JOURNAL} has no complete line that is not valid UTF-8; its incomplete final \
                 line is repaired with --repair-tail."
            ),
        );
    // With a bad complete line too, that line moves and the torn tail stays for its repair.
    let (bad, good, moved) = journal_with(3, &[2]);
    let _ = project
        .write(JOURNAL, [bad.as_slice(), torn].concat())
        .args(["doctor", "--repair-encoding", JOURNAL])
        .code(0)
        .file(JOURNAL, [good.as_slice(), torn].concat())
        .file(&format!("{JOURNAL}.invalid-{STAMP}"), &moved)
        .run()
        .then()
        .args(["doctor", "--repair-tail", JOURNAL])
        .code(0)
        .file(JOURNAL, &good)
        .file(&format!("{JOURNAL}.torn-{STAMP}"), torn)
        .run();
}

#[test]
fn repair_encoding_refusals_change_nothing() {
    let (all, _, _) = journal_with(3, &[]);
    // Nothing to repair is a success that changes nothing.
    let _ = nothing_to_repair(
        TestProject::new().write(JOURNAL, &all),
        "--repair-encoding",
        JOURNAL,
        &format!("{JOURNAL} has no line that is not valid UTF-8; nothing to repair."),
    );
    // Nothing at all: not even the memory folder is created.
    let _ = nothing_to_repair(
        TestProject::new(),
        "--repair-encoding",
        JOURNAL,
        &format!("{JOURNAL} has no line that is not valid UTF-8; nothing to repair."),
    );
    let registries = "--repair-encoding takes one of .bmad/memory/journal.ndjson, \
                      .bmad/memory/promotions.ndjson, .bmad/memory/outcomes.ndjson, \
                      .bmad/memory/decisions.ndjson, .bmad/records/reinforcements.ndjson";
    for file in [
        LESSONS,
        ".bmad/memory/pattern-scores.json",
        "../journal.ndjson",
    ] {
        let _ = TestProject::new()
            .write(LESSONS, b"### A\n\xff\n")
            .args(["doctor", "--repair-encoding", file])
            .refused("doctor", registries);
    }
    let (bad, _, _) = journal_with(3, &[2]);
    // A writer holds the lock: the repair waits, then gives up.
    let foreign = r#"{"pid":4242,"hostname":"build-agent-7","token":"t"}"#;
    let _ = TestProject::new()
        .write(JOURNAL, &bad)
        .write(LOCK, foreign)
        .args(["doctor", "--repair-encoding", JOURNAL])
        .refused("doctor", OCCUPIED);
    // One repair at a time.
    let ran = TestProject::new()
        .write(JOURNAL, &bad)
        .args([
            "doctor",
            "--repair-encoding",
            JOURNAL,
            "--repair-tail",
            JOURNAL,
        ])
        .code(1)
        .stdout("")
        .unchanged()
        .run();
    assert!(
        ran.stderr
            .starts_with("mem doctor: the argument '--repair-encoding <file>' cannot be used with"),
        "{}",
        ran.stderr
    );
}

/// `brief` loses only the line that is not UTF-8, with a warning, not the whole journal.
#[test]
fn brief_skips_only_the_line_that_is_not_utf8() {
    let journal = [
        br#"{"ts":"2026-10-18T09:00:00.000Z","agent":"forge","task":"First","id":"a"}"#.as_slice(),
        b"\n{\"ts\":\"2026-10-18T09:05:00.000Z\",\"agent\":\"forge\",\"task\":\"caf\xe9\"}\n",
        br#"{"ts":"2026-10-18T09:10:00.000Z","agent":"atlas","task":"Second","id":"b"}"#,
        b"\n",
    ]
    .concat();
    let project = TestProject::new();
    let home = project.base().join("home");
    fs::create_dir(&home).expect("create the temporary home");
    let _ = project
        .env("HOME", &home)
        .env("BMAD_PLUS_BRAIN", "")
        .write(JOURNAL, &journal)
        .args(["brief"])
        .code(0)
        .stdout(
            "# Session brief — project\n\n## Latest journal events, newest first — \
             .bmad/memory/journal.ndjson\n\n- 2026-10-18T09:10:00.000Z atlas: Second\n\n- \
             2026-10-18T09:00:00.000Z forge: First\n",
        )
        .stderr(&format!(
            "warning: {JOURNAL}: 1 line(s) that are not valid UTF-8 skipped; `bmad-mem doctor` \
             names them\n"
        ))
        .unchanged()
        .run();
}
