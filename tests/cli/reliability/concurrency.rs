//! Concurrency (issue 5, docs §3.3–3.5): many processes on one project at once.
//!
//! * 8 processes × 250 `write` each: exactly 2,000 complete lines, every event id present once
//!   and each writer's events in its own order, no `writer.lock` or temporary file left, and no
//!   writer ever refused with "occupied" (bmad-mem writers queue on a `flock` of the memory
//!   folder instead of racing the 10 ms polls).
//! * Writers, `reinforce` and `recall` all at once: every recall succeeds and parses, every
//!   reinforcement sees the one before it (the `updates` they report are exactly 1…n, and each
//!   reinforcement record starts from the score the one before it left), and the
//!   journal and promotion counts are exact.
//! * A foreign lock (bmad-plus's, same file) is waited for, never deleted and never bypassed; a
//!   writer waiting on one goes ahead as soon as it is gone.
//!
//! Nothing here sleeps to let something happen: threads join, and the one wait on another
//! process polls `/proc/locks` until that process holds the queue.

use std::collections::HashMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::process::{Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use serde::Deserialize;

use super::crash::event_id;
use crate::support::writers::holds_flock;
use crate::support::{JOURNAL, LOCK, NOW, PROMOTIONS, SCORES, TestProject};

const WRITERS: usize = 8;
const WRITES_EACH: usize = 250;
const LOCK_OCCUPIED: &str =
    "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock.";
/// A lock as bmad-plus on another machine would leave it.
const FOREIGN: &str =
    r#"{"pid":4242,"hostname":"build-agent-7","token":"0c7f9a3e-1d2b-4c5d-8e9f-a0b1c2d3e4f5"}"#;

/// Runs the binary in `project` with `args`; returns exit code, stdout, stderr.
fn run(project: &TestProject, args: &[&str]) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = project.command().args(args).output().expect("spawn");
    let stdout = String::from_utf8(stdout).expect("UTF-8 stdout");
    let stderr = String::from_utf8(stderr).expect("UTF-8 stderr");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    let code = status.code().expect("exited");
    let words: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    crate::support::validate::check_output(&words, code, &stdout);
    (code, stdout, stderr)
}

/// The journal's lines, each checked to be complete.
fn journal_lines(project: &TestProject) -> Vec<serde_json::Value> {
    let text = project.read_text(JOURNAL);
    assert!(text.ends_with('\n'), "a torn final line");
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

#[test]
fn eight_writers_lose_nothing_and_never_find_the_lock_occupied() {
    let project = TestProject::new();
    let failures: Vec<String> = thread::scope(|s| {
        let handles: Vec<_> = (0..WRITERS)
            .map(|w| {
                let project = &project;
                s.spawn(move || {
                    let agent = format!("writer-{w}");
                    let mut failures = Vec::new();
                    for i in 0..WRITES_EACH {
                        let task = format!("task {w}-{i}");
                        let (code, _, stderr) =
                            run(project, &["write", "--agent", &agent, "--task", &task]);
                        if code != 0 {
                            failures.push(format!("{agent} {task}: {stderr}"));
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("writer thread"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} writes failed ({} occupied), first: {}",
        failures.len(),
        failures.iter().filter(|f| f.contains("occupied")).count(),
        failures[0]
    );

    let lines = journal_lines(&project);
    assert_eq!(lines.len(), WRITERS * WRITES_EACH);
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut next_of_writer = [0_usize; WRITERS];
    for line in &lines {
        let agent = line["agent"].as_str().expect("agent");
        let task = line["task"].as_str().expect("task");
        let id = line["id"].as_str().expect("id");
        assert_eq!(id, event_id(NOW, agent, task), "{line}");
        *seen.entry(id.to_owned()).or_default() += 1;
        // Each writer's events appear in the order it wrote them.
        let w: usize = agent["writer-".len()..].parse().expect("writer number");
        assert_eq!(task, format!("task {w}-{}", next_of_writer[w]));
        next_of_writer[w] += 1;
    }
    for w in 0..WRITERS {
        for i in 0..WRITES_EACH {
            let id = event_id(NOW, &format!("writer-{w}"), &format!("task {w}-{i}"));
            assert_eq!(seen.get(&id), Some(&1), "event {w}-{i}");
        }
    }
    // No lock, no temporary file: the journal alone.
    assert_eq!(project.names(".bmad/memory"), ["journal.ndjson"]);
    println!(
        "writers: {WRITERS} processes x {WRITES_EACH} writes = {} lines, each event once",
        lines.len()
    );
}

/// `reinforce --json`, only what this test reads.
#[derive(Debug, Deserialize)]
struct Reinforced {
    next: Next,
}

#[derive(Debug, Deserialize)]
struct Next {
    updates: f64,
}

/// `recall --json`, only what this test reads.
#[derive(Debug, Deserialize)]
struct Recalled {
    count: usize,
    results: Vec<serde_json::Value>,
}

/// Runs `reinforce` `times` times on one pattern, each of which must succeed; the `updates`
/// each one reports.
fn reinforce_times(project: &TestProject, times: usize) -> Vec<f64> {
    (0..times)
        .map(|_| {
            let (code, stdout, stderr) = run(
                project,
                &[
                    "reinforce",
                    "--json",
                    "--pattern",
                    "Mixed pattern",
                    "--accept",
                    "true",
                    "--ci",
                    "pass",
                ],
            );
            assert_eq!(code, 0, "{stderr}");
            serde_json::from_str::<Reinforced>(&stdout)
                .expect("reinforce --json")
                .next
                .updates
        })
        .collect()
}

/// Recalls, each of which must succeed and parse, until `done` was set before one started (at
/// least one); how many ran.
fn recall_until(project: &TestProject, done: &AtomicBool) -> usize {
    let mut recalls = 0_usize;
    loop {
        let last = done.load(Ordering::Acquire);
        let (code, stdout, stderr) = run(
            project,
            &["recall", "--json", "mixed", "task", "--limit", "5"],
        );
        assert_eq!(code, 0, "recall failed: {stderr}");
        let recalled: Recalled = serde_json::from_str(&stdout).expect("recall --json parses");
        assert_eq!(recalled.count, recalled.results.len());
        recalls += 1;
        if last {
            return recalls;
        }
    }
}

#[test]
fn writers_reinforcers_and_readers_at_once_keep_exact_counts() {
    const MIXED_WRITERS: usize = 4;
    const WRITES: usize = 60;
    const REINFORCERS: usize = 2;
    const REINFORCES: usize = 40;
    const READERS: usize = 2;
    let project = TestProject::new().fixture("example");
    let journal_before = journal_lines(&project).len();
    let writing_done = AtomicBool::new(false);
    let (updates, recalls) = thread::scope(|s| {
        let project = &project;
        let writing_done = &writing_done;
        let writers: Vec<_> = (0..MIXED_WRITERS)
            .map(|w| {
                s.spawn(move || {
                    for i in 0..WRITES {
                        let task = format!("mixed task {w}-{i}");
                        let (code, _, stderr) =
                            run(project, &["write", "--agent", "mixer", "--task", &task]);
                        assert_eq!(code, 0, "{stderr}");
                    }
                })
            })
            .collect();
        let reinforcers: Vec<_> = (0..REINFORCERS)
            .map(|_| s.spawn(move || reinforce_times(project, REINFORCES)))
            .collect();
        let readers: Vec<_> = (0..READERS)
            .map(|_| s.spawn(move || recall_until(project, writing_done)))
            .collect();
        for writer in writers {
            writer.join().expect("writer");
        }
        let mut updates: Vec<f64> = reinforcers
            .into_iter()
            .flat_map(|r| r.join().expect("reinforcer"))
            .collect();
        writing_done.store(true, Ordering::Release);
        let recalls: usize = readers.into_iter().map(|r| r.join().expect("reader")).sum();
        updates.sort_by(f64::total_cmp);
        (updates, recalls)
    });
    assert!(recalls >= READERS);
    println!(
        "mixed: {MIXED_WRITERS} writers x {WRITES} writes, {REINFORCERS} reinforcers x \
         {REINFORCES} reinforcements, {recalls} recalls alongside, all exact"
    );

    // Each reinforcement saw the one before: the updates reported are exactly 1, 2, …, n.
    let n = REINFORCERS * REINFORCES;
    let expected: Vec<f64> = (1..=n)
        .map(|u| f64::from(u32::try_from(u).expect("small")))
        .collect();
    assert_eq!(updates, expected);
    let scores: serde_json::Value =
        serde_json::from_slice(&project.read(SCORES)).expect("scores parse");
    assert_eq!(
        scores["Mixed pattern"]["updates"].as_f64(),
        expected.last().copied()
    );
    // Each update recorded under the same hold of the lock: in file order, every record starts
    // from the score the one before it left, and the last left the score stored.
    let records: Vec<serde_json::Value> = project
        .read_text(".bmad/records/reinforcements.ndjson")
        .lines()
        .map(|line| serde_json::from_str(line).expect("record parses"))
        .collect();
    assert_eq!(records.len(), n);
    for pair in records.windows(2) {
        assert_eq!(pair[1]["before"], pair[0]["after"]);
    }
    assert_eq!(records[n - 1]["after"], scores["Mixed pattern"]);
    // Reward 1 every time: every update from the third proposes a promotion.
    let promotions = project.read_text(PROMOTIONS);
    assert_eq!(promotions.lines().count(), n - 2);
    for line in promotions.lines() {
        let _: serde_json::Value = serde_json::from_str(line).expect("promotion parses");
    }
    assert_eq!(
        journal_lines(&project).len(),
        journal_before + MIXED_WRITERS * WRITES
    );
    assert!(fs::symlink_metadata(project.path(LOCK)).is_err());
}

#[test]
fn a_foreign_lock_is_waited_for_by_every_writer_and_never_removed() {
    let project = TestProject::new().fixture("example").write(LOCK, FOREIGN);
    let before = project.snapshot();
    // Two writers wait at once (one queued behind the other); both give up, neither touches it.
    let results: Vec<(i32, String, String)> = thread::scope(|s| {
        let project = &project;
        let write = s.spawn(move || run(project, &["write", "--agent", "forge"]));
        let reinforce = s.spawn(move || {
            run(
                project,
                &["reinforce", "--pattern", "p", "--accept", "true"],
            )
        });
        // A reader needs no lock and is not held up.
        let (code, _, stderr) = run(project, &["recall", "rate", "limit"]);
        assert_eq!(code, 0, "{stderr}");
        vec![
            write.join().expect("write"),
            reinforce.join().expect("reinforce"),
        ]
    });
    assert_eq!(
        results,
        [
            (1, String::new(), format!("mem write: {LOCK_OCCUPIED}\n")),
            (
                1,
                String::new(),
                format!("mem reinforce: {LOCK_OCCUPIED}\n")
            ),
        ]
    );
    crate::support::assert_same(&before, &project.snapshot(), "behind a foreign lock");
    assert_eq!(project.read(LOCK), FOREIGN.as_bytes());
}

#[test]
fn a_writer_waiting_on_a_foreign_lock_goes_ahead_once_it_is_removed() {
    let project = TestProject::new().fixture("example").write(LOCK, FOREIGN);
    let journal = project.read(JOURNAL);
    let memory_ino = fs::metadata(project.path(".bmad/memory"))
        .expect("memory folder")
        .ino();
    let mut child = project
        .command()
        .args([
            "write",
            "--agent",
            "forge",
            "--task",
            "after the foreign lock",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Holding the queue while the foreign lock exists means it is in its retry loop. Bounded:
    // the writer gives up after its own 2 s budget, so it is seen or it has exited.
    let mut waited = false;
    while child.try_wait().expect("try_wait").is_none() {
        if holds_flock(child.id(), memory_ino) {
            waited = true;
            break;
        }
        thread::sleep(Duration::from_millis(1));
    }
    assert!(
        waited,
        "the writer never queued: {:?}",
        child.wait_with_output()
    );
    // The foreign owner finishes (bmad-plus releases by deleting its lock).
    fs::remove_file(project.path(LOCK)).expect("release the foreign lock");
    let output = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let id = event_id(NOW, "forge", "after the foreign lock");
    let line = format!(
        r#"{{"ts":"{NOW}","agent":"forge","cli":null,"model":null,"task":"after the foreign lock","outcome":null,"signals":{{}},"artifactHashes":[],"id":"{id}"}}"#
    );
    assert_eq!(
        project.read(JOURNAL),
        [journal.as_slice(), line.as_bytes(), b"\n"].concat()
    );
    assert!(fs::symlink_metadata(project.path(LOCK)).is_err());
}
