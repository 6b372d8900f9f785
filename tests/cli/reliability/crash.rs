//! Crash safety (issue 5): `write` and `reinforce` killed with SIGKILL at random moments.
//!
//! One project takes a stream of writers (two in three `write`, one in three `reinforce`), each
//! killed after a random delay between 0 and 1.25 × the lifetime of an unkilled run of its kind
//! (measured at the start: a few ms in a debug build), so the kills land everywhere: before the
//! lock, holding it, mid-append, mid-rename, after exit. Every task is distinct and the clock
//! advances one second per attempt, so every event id is known in advance. One `write` in four
//! carries a 360 KiB record: the kernel copies it page by page and a SIGKILL can stop it in the
//! middle, which is how a real torn line comes about. The seed is fixed; where the kills land
//! still depends on the machine, so the counts vary a little from run to run.
//!
//! After every attempt the store must be in one of the documented states, and each is resolved
//! the documented way before the next attempt:
//! * **clean** — nothing to do;
//! * **dead owner's lock** — `bmad-mem lock` shows the owner (the killed pid) as not running,
//!   `lock --recover --expect <sha256>` removes it and leaves a receipt;
//! * **torn final line** (always with a dead owner's lock, which was holding it) — after the
//!   recovery, the next `write` refuses with the documented message and changes nothing, `doctor`
//!   reports the byte offset, `doctor --repair-tail` keeps the torn bytes aside, exactly.
//!
//! Invariants checked every time: both NDJSON registries only ever grow by whole lines (their
//! old complete text is a prefix of the new one, until a repair cuts the torn tail only); every
//! complete line parses; a `write` that exited 0 has its line in the journal, one that was
//! killed has its line at most once; `pattern-scores.json` is absent or a complete document, a
//! pattern's `updates` moves by one for a `reinforce` that exited 0, by at most one for one that
//! was killed, and a promotion is only ever appended with the score it carries. A temporary
//! `<file>.<uuid>.tmp` left by a kill is counted (nothing reads it); the next writer removes it.
//!
//! `crash_kills_in_ci` makes at least 200 kills; `crash_kills_long` (ignored; run it with
//! `cargo test --release --test cli crash -- --ignored --nocapture`) makes 2,000, the figure in
//! `RELIABILITY.md`. `a_writer_killed_mid_record_…` makes the torn state on purpose, with a
//! foreign writer that stalls halfway through a record.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use bmad_mem::js::json::sha256_hex;
use serde::Deserialize;
use serde_json::Value;

use crate::support::{JOURNAL, LOCK, PROMOTIONS, SCORES, TestProject};

/// The seed of every random choice: a failure replays exactly.
const SEED: u64 = 0x0005_b1ad_c0de_cafe;
/// Kills in the CI run.
const CI_KILLS: usize = 200;
/// Kills in the long (ignored) run.
const LONG_KILLS: usize = 2000;
/// Attempts allowed per kill wanted, so the loop is bounded even if few kills land.
const ATTEMPTS_PER_KILL: usize = 4;
/// A long value: 120 KiB (one argument may hold at most 128 KiB on Linux). A long record has
/// three, so one `write` system call copies about 90 pages.
const LONG_VALUE: usize = 120 * 1024;
/// The journal is archived (moved out, as a person would) past this size.
const ARCHIVE_AT: usize = 1024 * 1024;
const PATTERNS: [&str; 3] = [
    "Rate limit on auth routes",
    "Retry with jitter",
    "Feature flags",
];

const INCOMPLETE: &str =
    "mem write: Memory store has an incomplete final line; inspect it before writing.\n";

/// `splitmix64`: small, fast and the same everywhere.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// How each attempt ended, counted.
#[derive(Debug, Default)]
struct Counts {
    attempts: usize,
    kills: usize,
    finished: usize,
    clean: usize,
    dead_owner_lock: usize,
    torn_journal: usize,
    torn_promotions: usize,
    score_without_promotion: usize,
    lock_tmp: usize,
    document_tmp: usize,
    archived: usize,
}

/// What one attempt was.
enum Attempt {
    Write {
        task: String,
        long: Option<String>,
        id: String,
    },
    Reinforce {
        pattern: &'static str,
    },
}

/// `lock --json`, schema pinned by `lock.rs`; here only what recovery needs.
#[derive(Debug, Deserialize)]
struct LockShown {
    held: bool,
    lock: Option<LockState>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LockState {
    sha256: String,
    owner: Option<Value>,
    alive: Option<bool>,
}

/// The clock of attempt `n`: one second apart, from midnight.
fn clock(n: usize) -> String {
    assert!(n < 86_400, "one day of attempts at most");
    format!(
        "2026-10-18T{:02}:{:02}:{:02}.000Z",
        n / 3600,
        n / 60 % 60,
        n % 60
    )
}

/// docs §6: the first 12 hex digits of `sha256(ts + "\0" + agent + "\0" + task)`.
pub fn event_id(ts: &str, agent: &str, task: &str) -> String {
    sha256_hex(format!("{ts}\0{agent}\0{task}").as_bytes())[..12].to_owned()
}

/// One command in the project at clock `now`.
fn command(project: &TestProject, now: &str, args: &[&str]) -> Command {
    let mut command = project.command();
    command.args(args).env("BMAD_MEM_NOW", now);
    command
}

/// Runs one command to its end; it must not panic.
fn run(project: &TestProject, now: &str, args: &[&str]) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = command(project, now, args)
        .output()
        .expect("spawn bmad-mem");
    let stdout = String::from_utf8(stdout).expect("UTF-8 stdout");
    let stderr = String::from_utf8(stderr).expect("UTF-8 stderr");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    let code = status
        .code()
        .unwrap_or_else(|| panic!("{args:?} killed: {status:?}"));
    (code, stdout, stderr)
}

/// The bytes of a project file, empty when absent.
fn bytes(project: &TestProject, rel: &str) -> Vec<u8> {
    match fs::read(project.path(rel)) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => panic!("read {rel}: {e}"),
    }
}

/// Splits an NDJSON file into its complete part and its torn tail, checking every complete
/// line is a JSON object.
fn split_ndjson<'a>(rel: &str, bytes: &'a [u8]) -> (&'a [u8], &'a [u8]) {
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    for (n, line) in bytes[..complete].split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let value: Value = serde_json::from_slice(line).unwrap_or_else(|e| {
            panic!(
                "{rel} line {}: {e}: {}",
                n + 1,
                String::from_utf8_lossy(line)
            )
        });
        assert!(value.is_object(), "{rel} line {}", n + 1);
    }
    bytes.split_at(complete)
}

/// The journal's complete lines, as events.
fn events(complete: &[u8]) -> Vec<Value> {
    complete
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("checked line"))
        .collect()
}

/// The `updates` of each pattern in a complete scores document (absent = none).
fn updates(project: &TestProject) -> BTreeMap<String, f64> {
    let text = bytes(project, SCORES);
    if text.is_empty() {
        assert!(
            fs::symlink_metadata(project.path(SCORES)).is_err(),
            "an empty scores document"
        );
        return BTreeMap::new();
    }
    assert!(text.ends_with(b"}\n"), "a half-written scores document");
    let scores: Value = serde_json::from_slice(&text).unwrap_or_else(|e| {
        panic!(
            "scores document does not parse: {e}\n{}",
            String::from_utf8_lossy(&text)
        )
    });
    scores
        .as_object()
        .expect("scores are an object")
        .iter()
        .map(|(k, v)| (k.clone(), v["updates"].as_f64().expect("updates")))
        .collect()
}

/// The names of the temporary files (`<file>.<uuid>.tmp`) in the memory folder.
fn temporaries(project: &TestProject) -> BTreeSet<String> {
    fs::read_dir(project.path(".bmad/memory")).map_or_else(
        |_| BTreeSet::new(),
        |entries| {
            entries
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .filter(|name| std::path::Path::new(name).extension() == Some("tmp".as_ref()))
                .collect()
        },
    )
}

/// Resolves a dead owner's lock as a person would: inspect, then recover with the digest shown.
fn recover_lock(project: &TestProject, now: &str, killed_pid: u32) {
    let (code, stdout, stderr) = run(project, now, &["lock", "--json"]);
    assert_eq!(code, 0, "lock --json: {stderr}");
    let shown: LockShown = serde_json::from_str(&stdout).expect("lock --json");
    let state = shown.lock.expect("the lock is shown");
    assert!(shown.held);
    let owner = state
        .owner
        .unwrap_or_else(|| panic!("a lock without a readable owner: {stdout}"));
    assert_eq!(
        owner["pid"].as_f64(),
        Some(f64::from(killed_pid)),
        "{stdout}"
    );
    assert_eq!(state.alive, Some(false), "{stdout}");
    assert_eq!(state.sha256, sha256_hex(&bytes(project, LOCK)));
    let receipts_before = receipt_count(project);
    let (code, stdout, stderr) = run(
        project,
        now,
        &["lock", "--recover", "--expect", &state.sha256, "--json"],
    );
    assert_eq!(code, 0, "lock --recover: {stdout}{stderr}");
    let recovered: Value = serde_json::from_str(&stdout).expect("recover --json");
    let receipt = recovered["recovered"].as_str().expect("receipt path");
    let receipt: Value =
        serde_json::from_slice(&fs::read(project.path(receipt)).expect("receipt written"))
            .expect("receipt parses");
    assert_eq!(receipt["lockSha256"].as_str(), Some(state.sha256.as_str()));
    assert_eq!(receipt_count(project), receipts_before + 1);
    assert!(
        fs::symlink_metadata(project.path(LOCK)).is_err(),
        "recovered lock still there"
    );
}

fn receipt_count(project: &TestProject) -> usize {
    fs::read_dir(project.path(".bmad/memory/lock-recovery")).map_or(0, Iterator::count)
}

/// A torn tail of `rel`: the next write refuses (for the journal), doctor names the offset, the
/// repair keeps the torn bytes aside and cuts the file after its last complete line.
fn repair_torn(project: &TestProject, now: &str, rel: &str, complete: &[u8], torn: &[u8]) {
    if rel == JOURNAL {
        let before = project.snapshot();
        let (code, stdout, stderr) = run(project, now, &["write", "--agent", "probe"]);
        assert_eq!(
            (code, stdout.as_str(), stderr.as_str()),
            (1, "", INCOMPLETE)
        );
        crate::support::assert_same(&before, &project.snapshot(), "write after a torn line");
    }
    let (code, stdout, _) = run(project, now, &["doctor", "--json"]);
    assert_eq!(code, 1, "{stdout}");
    let report: Value = serde_json::from_str(&stdout).expect("doctor --json");
    let offset = format!("incomplete final line at byte {}", complete.len());
    assert!(
        report["problems"]
            .as_array()
            .expect("problems")
            .iter()
            .any(|p| {
                p["file"] == rel
                    && p["kind"] == "torn-final-line"
                    && p["message"]
                        .as_str()
                        .is_some_and(|m| m.starts_with(&offset))
            }),
        "{stdout}"
    );
    let (code, stdout, stderr) = run(project, now, &["doctor", "--repair-tail", rel, "--json"]);
    assert_eq!(code, 0, "repair-tail: {stdout}{stderr}");
    let repaired: Value = serde_json::from_str(&stdout).expect("repair --json");
    let kept = repaired["keptAs"].as_str().expect("keptAs");
    assert_eq!(fs::read(project.path(kept)).expect("kept file"), torn);
    assert_eq!(bytes(project, rel), complete);
}

/// The attempt's command line.
fn attempt_args(attempt: &Attempt) -> Vec<&str> {
    match attempt {
        Attempt::Write { task, long, .. } => {
            let mut args = vec!["write", "--agent", "crash", "--task", task];
            if let Some(long) = long {
                args.extend(["--model", long, "--cli", long]);
            }
            args
        }
        Attempt::Reinforce { pattern } => vec![
            "reinforce",
            "--pattern",
            pattern,
            "--accept",
            "true",
            "--ci",
            "pass",
        ],
    }
}

/// Which of the three kinds of attempt (short write, long write, reinforce).
fn kind(attempt: &Attempt) -> usize {
    match attempt {
        Attempt::Write { long: None, .. } => 0,
        Attempt::Write { long: Some(_), .. } => 1,
        Attempt::Reinforce { .. } => 2,
    }
}

/// The next attempt, drawn at random.
fn draw(rng: &mut Rng, now: &str, n: usize) -> Attempt {
    if rng.below(3) == 0 {
        return Attempt::Reinforce {
            pattern: PATTERNS[usize::try_from(rng.below(3)).expect("small")],
        };
    }
    let mut task = format!("crash task {n}");
    let long = (rng.below(4) == 0).then(|| "x".repeat(LONG_VALUE));
    if let Some(long) = &long {
        task.push(' ');
        task.push_str(long);
    }
    let id = event_id(now, "crash", &task);
    Attempt::Write { task, long, id }
}

/// How long an unkilled run of one kind of attempt lives: the shortest of the first
/// [`CALIBRATION_RUNS`] (the first run of a binary is slow, its files not yet cached).
#[derive(Debug, Default, Clone, Copy)]
struct Lifetime {
    runs: usize,
    shortest_us: u64,
}

/// Unkilled runs of each kind that measure its [`Lifetime`].
const CALIBRATION_RUNS: usize = 3;

/// Spawns `attempt` and kills it after a random delay (or, for the first runs of its kind, lets
/// it finish to measure its lifetime); returns whether the kill landed, once it is reaped, and
/// the pid it had.
fn spawn_and_kill(
    project: &TestProject,
    now: &str,
    attempt: &Attempt,
    rng: &mut Rng,
    lifetimes: &mut [Lifetime; 3],
) -> (bool, u32) {
    let mut child = command(project, now, &attempt_args(attempt))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn bmad-mem");
    let lifetime = &mut lifetimes[kind(attempt)];
    if lifetime.runs < CALIBRATION_RUNS {
        let started = Instant::now();
        let status = child.wait().expect("wait");
        assert!(status.success(), "calibration run failed");
        let us = u64::try_from(started.elapsed().as_micros()).expect("short") + 1;
        lifetime.shortest_us = if lifetime.runs == 0 {
            us
        } else {
            lifetime.shortest_us.min(us)
        };
        lifetime.runs += 1;
    } else {
        thread::sleep(Duration::from_micros(
            rng.below(lifetime.shortest_us * 5 / 4 + 1),
        ));
        child.kill().expect("kill");
    }
    // Reaped before anything looks at the lock: a zombie still has its /proc entry.
    let status = child.wait().expect("wait");
    let killed = status.signal() == Some(9);
    assert!(killed || status.code() == Some(0), "failed: {status:?}");
    (killed, child.id())
}

/// The registries' complete text and the scores, as last seen.
struct Seen {
    journal: Vec<u8>,
    promotions: Vec<u8>,
    updates: BTreeMap<String, f64>,
    temporaries: BTreeSet<String>,
}

impl Seen {
    fn now(project: &TestProject) -> Self {
        Self {
            journal: bytes(project, JOURNAL),
            promotions: bytes(project, PROMOTIONS),
            updates: updates(project),
            temporaries: temporaries(project),
        }
    }
}

/// Checks the store after one attempt against what was seen before it, resolves whatever state
/// the kill left (counting it), and returns what is seen now.
fn settle(
    project: &TestProject,
    now: &str,
    attempt: &Attempt,
    (killed, pid): (bool, u32),
    before: &Seen,
    counts: &mut Counts,
) -> Seen {
    // Append-only, every complete line parses.
    let journal = bytes(project, JOURNAL);
    let promotions = bytes(project, PROMOTIONS);
    let (journal_complete, journal_torn) = split_ndjson(JOURNAL, &journal);
    let (promotions_complete, promotions_torn) = split_ndjson(PROMOTIONS, &promotions);
    assert!(journal.starts_with(&before.journal), "journal rewritten");
    assert!(
        promotions.starts_with(&before.promotions),
        "promotions rewritten"
    );
    let new_events = events(&journal_complete[before.journal.len()..]);
    let new_promotions = events(&promotions_complete[before.promotions.len()..]);
    // The attempt's own effect: all of it, or (only if killed) none or a torn part.
    let updates = updates(project);
    match attempt {
        Attempt::Write { id, .. } => {
            assert!(new_events.len() <= 1, "{} lines", new_events.len());
            if let Some(event) = new_events.first() {
                assert_eq!(event["id"].as_str(), Some(id.as_str()));
            } else {
                assert!(killed, "a write that exited 0 left no line");
            }
            assert_eq!(updates, before.updates);
            assert!(new_promotions.is_empty() && promotions_torn.is_empty());
        }
        Attempt::Reinforce { pattern } => {
            let old = before.updates.get(*pattern).copied().unwrap_or(0.0);
            let new = updates.get(*pattern).copied().unwrap_or(0.0);
            assert!(new == old + 1.0 || (killed && new == old), "{old} -> {new}");
            // docs §7 with reward 1: every update from the third proposes a promotion, appended
            // after the scores are written.
            let proposes = new == old + 1.0 && new >= 3.0;
            assert!(new_promotions.len() <= usize::from(proposes));
            if let Some(promotion) = new_promotions.first() {
                assert_eq!(promotion["patternId"].as_str(), Some(*pattern));
                assert_eq!(promotion["score"]["updates"].as_f64(), Some(new));
            } else if proposes && promotions_torn.is_empty() {
                assert!(killed, "a reinforce that exited 0 proposed nothing");
                counts.score_without_promotion += 1;
            }
            assert!(new_events.is_empty() && journal_torn.is_empty());
        }
    }

    // Temporary files of a lock or a rename the kill cut short (the next writer removes them).
    for name in temporaries(project).difference(&before.temporaries) {
        if name.starts_with("writer.lock.") {
            counts.lock_tmp += 1;
        } else {
            counts.document_tmp += 1;
        }
    }
    let locked = fs::symlink_metadata(project.path(LOCK)).is_ok();
    let torn = !journal_torn.is_empty() || !promotions_torn.is_empty();
    assert!(
        locked || !torn,
        "a torn line without the lock that was held"
    );
    if locked {
        assert!(killed, "a finished writer left its lock");
        counts.dead_owner_lock += 1;
        recover_lock(project, now, pid);
    }
    if !journal_torn.is_empty() {
        counts.torn_journal += 1;
        repair_torn(project, now, JOURNAL, journal_complete, journal_torn);
    }
    if !promotions_torn.is_empty() {
        counts.torn_promotions += 1;
        repair_torn(
            project,
            now,
            PROMOTIONS,
            promotions_complete,
            promotions_torn,
        );
    }
    if !locked && !torn {
        counts.clean += 1;
    }
    Seen {
        journal: journal_complete.to_vec(),
        promotions: promotions_complete.to_vec(),
        updates,
        temporaries: temporaries(project),
    }
}

/// Runs attempts until `kills` of them were killed (at most `ATTEMPTS_PER_KILL` × as many
/// attempts), checking and resolving the state after each; returns the counts.
///
/// Kill delays are drawn uniformly from 0 to 1.25 × the [`Lifetime`] of the same kind of
/// attempt (a debug `write` of a long record lives ten times longer than a short one), so kills
/// land all along a process's life whatever the machine and build.
fn crash_loop(kills: usize, seed: u64) -> Counts {
    let project = TestProject::new().fixture("example");
    let mut rng = Rng::new(seed);
    let mut counts = Counts::default();
    let mut last = Seen::now(&project);
    let mut lifetimes = [Lifetime::default(); 3];
    while counts.kills < kills {
        assert!(
            counts.attempts < kills * ATTEMPTS_PER_KILL,
            "too few kills landed: {counts:?}"
        );
        let now = clock(counts.attempts);
        counts.attempts += 1;
        let attempt = draw(&mut rng, &now, counts.attempts);
        let ended = spawn_and_kill(&project, &now, &attempt, &mut rng, &mut lifetimes);
        if ended.0 {
            counts.kills += 1;
        } else {
            counts.finished += 1;
        }
        last = settle(&project, &now, &attempt, ended, &last, &mut counts);
        if last.journal.len() > ARCHIVE_AT {
            // "Archive it explicitly": moved out of the memory folder.
            fs::rename(
                project.path(JOURNAL),
                project.path(&format!("journal-{}.ndjson", counts.archived)),
            )
            .expect("archive the journal");
            counts.archived += 1;
            last.journal.clear();
        }
    }
    // The survivor is healthy and takes a write.
    let now = clock(counts.attempts);
    let (code, stdout, _) = run(&project, &now, &["doctor"]);
    assert_eq!(code, 0, "{stdout}");
    let (code, _, stderr) = run(
        &project,
        &now,
        &["write", "--agent", "crash", "--task", "after"],
    );
    assert_eq!(code, 0, "{stderr}");
    // That writer removed every temporary file the kills left.
    assert_eq!(temporaries(&project), BTreeSet::new());
    counts
}

fn report(name: &str, seed: u64, counts: &Counts) {
    println!(
        "{name}: seed {seed:#x}, {} attempts: {} killed, {} finished; states after them: \
         {} clean, {} dead-owner lock (recovered), {} torn journal line (refused, repaired), \
         {} torn promotions line (repaired); {} reinforce killed between its score and its \
         promotion; temporary files left (then removed by the next writer): {} of the lock, \
         {} of the scores document; journal archived {} times",
        counts.attempts,
        counts.kills,
        counts.finished,
        counts.clean,
        counts.dead_owner_lock,
        counts.torn_journal,
        counts.torn_promotions,
        counts.score_without_promotion,
        counts.lock_tmp,
        counts.document_tmp,
        counts.archived,
    );
}

#[test]
fn crash_kills_in_ci() {
    let counts = crash_loop(CI_KILLS, SEED);
    report("crash_kills_in_ci", SEED, &counts);
    assert!(counts.kills >= CI_KILLS);
}

#[test]
#[ignore = "long run (2,000 kills) for RELIABILITY.md"]
fn crash_kills_long() {
    let seed = SEED ^ 0x10_0000;
    let counts = crash_loop(LONG_KILLS, seed);
    report("crash_kills_long", seed, &counts);
    assert!(counts.kills >= LONG_KILLS);
}

/// A foreign writer (bmad-plus follows the same protocol) that takes the lock, appends the first
/// half of a record, then stalls until killed: what a crash between two `write` system calls, a
/// full disk or a power cut leaves behind.
const STALLING_WRITER: &str = r#"set -C
printf '{"pid":%s,"hostname":"%s","token":"stalled-writer"}' "$$" "$HOST" > .bmad/memory/writer.lock
printf '%s' "$HALF" >> .bmad/memory/journal.ndjson
read -r never
"#;

#[test]
fn a_writer_killed_mid_record_leaves_a_torn_line_that_is_refused_then_repaired() {
    let project = TestProject::new().fixture("example");
    let journal = project.read(JOURNAL);
    let now = crate::support::NOW;
    let id = event_id(now, "bmad-plus", "half written");
    let line = format!(
        r#"{{"ts":"{now}","agent":"bmad-plus","cli":null,"model":null,"task":"half written","outcome":null,"signals":{{}},"artifactHashes":[],"id":"{id}"}}"#
    );
    let half = &line[..line.len() / 2];
    let mut child = Command::new("/bin/sh")
        .args(["-c", STALLING_WRITER])
        .current_dir(project.path(""))
        .env("HOST", gethostname::gethostname())
        .env("HALF", half)
        .stdin(Stdio::piped())
        .spawn()
        .expect("spawn sh");
    // Bounded: the writer either gets there or exits (it never exits while stalled).
    let torn_len = journal.len() + half.len();
    while bytes(&project, JOURNAL).len() < torn_len {
        assert!(
            child.try_wait().expect("try_wait").is_none(),
            "the writer exited early"
        );
        thread::sleep(Duration::from_millis(1));
    }
    child.kill().expect("kill");
    let status = child.wait().expect("wait");
    assert_eq!(status.signal(), Some(9));
    assert_eq!(
        bytes(&project, JOURNAL),
        [journal.as_slice(), half.as_bytes()].concat()
    );

    // Readers are unaffected: the torn record is not an event.
    let (code, stdout, _) = run(&project, now, &["recall", "--json", "half", "written"]);
    assert_eq!(
        (code, stdout.contains("\"count\": 0")),
        (0, true),
        "{stdout}"
    );
    // doctor sees both the dead owner's lock and the torn line, and changes nothing.
    let before = project.snapshot();
    let (code, stdout, _) = run(&project, now, &["doctor", "--json"]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&stdout).expect("doctor --json");
    let kinds: Vec<&str> = report["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| p["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(kinds, ["torn-final-line", "stale-lock"], "{stdout}");
    crate::support::assert_same(&before, &project.snapshot(), "doctor");

    recover_lock(&project, now, child.id());
    repair_torn(&project, now, JOURNAL, &journal, half.as_bytes());
    let (code, _, stderr) = run(&project, now, &["write", "--agent", "forge"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, _) = run(&project, now, &["doctor"]);
    assert_eq!(code, 0, "{stdout}");
}
