//! `bmad-mem lock` (issue 5): inspecting the writer lock, and recovering it only when its owner
//! is a dead process on this host, the digest matches what was inspected, and a receipt is
//! written first. Every refusal changes nothing; a stale lock is never removed by a writer.
//!
//! Owners are built as bmad-plus and bmad-mem write them: a live one is this test process (its
//! pid, this host's name), a dead one the pid of a `true` that has been waited for, a foreign
//! one another host's name. The lock's modification time is set, so its age is exact.

use std::fs::{self, File};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bmad_mem::js::json::sha256_hex;
use serde::Deserialize;

use crate::support::schema::Receipt;
use crate::support::writers::{dead_pid, host};
use crate::support::{JOURNAL, LOCK, TestProject};

const LOCK_OCCUPIED: &str =
    "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock.";
/// The refusal of a lock owned by host `build-agent-7` without `--other-host-is-gone`.
const FOREIGN_REFUSED: &str = "Writer lock belongs to host build-agent-7, where its owner cannot \
                               be checked from here; if no writer runs there, add \
                               --other-host-is-gone.";
/// [`crate::support::NOW`] in epoch milliseconds.
const NOW_MS: u64 = 1_792_315_800_000;
/// [`crate::support::NOW`] as a file-name stamp.
const STAMP: &str = "2026-10-18T09-30-00-000Z";
/// How long before `NOW` every lock in these tests was last written.
const AGE_MS: u64 = 90_500;

/// An owner line as the lock holds it.
fn owner(pid: u32, host: &str) -> String {
    format!(r#"{{"pid":{pid},"hostname":"{host}","token":"9b2e4c1a-7f3d-4e8b-a6c5-0d1e2f3a4b5c"}}"#)
}

/// The example project with `text` as its writer lock, last written [`AGE_MS`] before `NOW`.
fn locked(text: &str) -> TestProject {
    let project = TestProject::new().fixture("example").write(LOCK, text);
    File::options()
        .write(true)
        .open(project.path(LOCK))
        .expect("open the lock")
        .set_modified(UNIX_EPOCH + Duration::from_millis(NOW_MS - AGE_MS))
        .expect("set its time");
    project
}

/// The human report of a held lock.
fn shown(pid: &str, host: &str, token: &str, alive: &str, text: &str) -> String {
    format!(
        "mem lock: writer.lock held\n  pid      {pid}\n  host     {host}\n  token    {token}\n  \
         age      90.5 s\n  owner    {alive}\n  sha256   {}\n",
        sha256_hex(text.as_bytes())
    )
}

/// `lock --json`, schema pinned.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Shown {
    held: bool,
    lock: Option<State>,
    recovered: Option<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct State {
    sha256: String,
    owner: Option<serde_json::Value>,
    raw: Option<String>,
    age_ms: f64,
    alive: Option<bool>,
}

#[track_caller]
fn state(text: &str, alive: Option<bool>) -> State {
    let owner = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .filter(serde_json::Value::is_object);
    State {
        sha256: sha256_hex(text.as_bytes()),
        raw: owner.is_none().then(|| text.to_owned()),
        owner,
        #[expect(clippy::cast_precision_loss, reason = "a small number of milliseconds")]
        age_ms: AGE_MS as f64,
        alive,
    }
}

#[test]
fn no_lock_is_reported_as_such() {
    let ran = TestProject::new()
        .fixture("example")
        .args(["lock"])
        .code(0)
        .stdout("mem lock: no writer lock held\n")
        .stderr("")
        .unchanged()
        .run()
        .then()
        .args(["lock", "--json"])
        .code(0)
        .stdout("{\n  \"held\": false,\n  \"lock\": null,\n  \"recovered\": null\n}\n")
        .unchanged()
        .run();
    assert_eq!(
        ran.json::<Shown>(),
        Shown {
            held: false,
            lock: None,
            recovered: None
        }
    );
    // Not even the memory folder is needed.
    let _ = TestProject::new()
        .args(["lock"])
        .code(0)
        .stdout("mem lock: no writer lock held\n")
        .unchanged()
        .run();
}

#[test]
fn a_live_owner_on_this_host_is_shown_alive() {
    let text = owner(std::process::id(), &host());
    let ran = locked(&text)
        .args(["lock"])
        .code(0)
        .stdout(&shown(
            &std::process::id().to_string(),
            &host(),
            "9b2e4c1a-7f3d-4e8b-a6c5-0d1e2f3a4b5c",
            "alive on this host",
            &text,
        ))
        .stderr("")
        .unchanged()
        .run()
        .then()
        .args(["lock", "--json"])
        .code(0)
        .unchanged()
        .run();
    assert_eq!(
        ran.json::<Shown>(),
        Shown {
            held: true,
            lock: Some(state(&text, Some(true))),
            recovered: None
        }
    );
}

#[test]
fn a_dead_owner_on_this_host_is_shown_not_running() {
    let pid = dead_pid();
    let text = owner(pid, &host());
    let ran = locked(&text)
        .args(["lock"])
        .code(0)
        .stdout(&shown(
            &pid.to_string(),
            &host(),
            "9b2e4c1a-7f3d-4e8b-a6c5-0d1e2f3a4b5c",
            "not running on this host",
            &text,
        ))
        .unchanged()
        .run()
        .then()
        .args(["--json", "lock"])
        .code(0)
        .unchanged()
        .run();
    assert_eq!(
        ran.json::<Shown>(),
        Shown {
            held: true,
            lock: Some(state(&text, Some(false))),
            recovered: None
        }
    );
}

#[test]
fn a_foreign_host_or_an_unreadable_owner_is_of_unknown_liveness() {
    let text = owner(4242, "build-agent-7");
    let ran = locked(&text)
        .args(["lock"])
        .code(0)
        .stdout(&shown(
            "4242",
            "build-agent-7",
            "9b2e4c1a-7f3d-4e8b-a6c5-0d1e2f3a4b5c",
            "unknown (not this host, or no readable owner)",
            &text,
        ))
        .unchanged()
        .run()
        .then()
        .args(["lock", "--json"])
        .code(0)
        .unchanged()
        .run();
    assert_eq!(ran.json::<Shown>().lock, Some(state(&text, None)));
    // An owner that is not a JSON object (e.g. a writer killed between creating the file and
    // writing its owner, with a tool that does it in that order) is shown raw.
    for text in ["", "{\"pid\":12", "[1,2]"] {
        let ran = locked(text)
            .args(["lock"])
            .code(0)
            .stdout(&shown(
                "?",
                "?",
                "?",
                "unknown (not this host, or no readable owner)",
                text,
            ))
            .unchanged()
            .run()
            .then()
            .args(["lock", "--json"])
            .code(0)
            .unchanged()
            .run();
        assert_eq!(
            ran.json::<Shown>().lock,
            Some(state(text, None)),
            "{text:?}"
        );
    }
}

#[test]
fn recovery_refusals_change_nothing() {
    let sha = |text: &str| sha256_hex(text.as_bytes());
    // No lock at all.
    let _ = TestProject::new()
        .fixture("example")
        .args(["lock", "--recover", "--expect", &sha("x")])
        .refused("lock", "There is no writer lock to recover.");
    // A digest that is not the lock's (someone else's lock took its place since).
    let dead = owner(dead_pid(), &host());
    let _ = locked(&dead)
        .args(["lock", "--recover", "--expect", &sha("another lock")])
        .refused(
            "lock",
            &format!(
                "Writer lock has sha256 {}, not {}; inspect it again before recovering.",
                sha(&dead),
                sha("another lock")
            ),
        );
    let _ = locked(&dead)
        .args(["lock", "--recover", "--expect", ""])
        .refused(
            "lock",
            &format!(
                "Writer lock has sha256 {}, not ; inspect it again before recovering.",
                sha(&dead)
            ),
        );
    // A live owner.
    let live = owner(std::process::id(), &host());
    let _ = locked(&live)
        .args(["lock", "--recover", "--expect", &sha(&live)])
        .refused(
            "lock",
            &format!(
                "Writer lock owner (pid {}) is alive; do not remove a live lock.",
                std::process::id()
            ),
        );
    // Another host: its owner cannot be checked from here (`--other-host-is-gone` asserts it).
    let foreign = owner(4242, "build-agent-7");
    let _ = locked(&foreign)
        .args(["lock", "--recover", "--expect", &sha(&foreign)])
        .refused("lock", FOREIGN_REFUSED);
    let _ = locked(r#"{"hostname":"build-agent-7"}"#)
        .args([
            "lock",
            "--recover",
            "--expect",
            &sha(r#"{"hostname":"build-agent-7"}"#),
        ])
        .refused("lock", FOREIGN_REFUSED);
    // No readable owner: not an owner object, no host, or this host without a usable pid.
    let this_host = |pid: &str| format!(r#"{{"pid":{pid},"hostname":"{}"}}"#, host());
    let unreadable = [
        String::new(),
        "{\"pid\":12".to_owned(),
        "[1,2]".to_owned(),
        format!(r#"{{"pid":{}}}"#, dead_pid()),
        format!(r#"{{"pid":{},"hostname":7}}"#, dead_pid()),
        this_host("0"),
        this_host("-1"),
        this_host("1.5"),
        this_host("\"12\""),
        this_host("null"),
        format!(r#"{{"hostname":"{}"}}"#, host()),
    ];
    for text in &unreadable {
        let _ = locked(text)
            .args(["lock", "--recover", "--expect", &sha(text)])
            .refused(
                "lock",
                "Writer lock has no readable owner; check that no writer runs, then remove it by hand.",
            );
    }
}

#[test]
fn recover_without_expect_is_a_parse_error() {
    let dead = owner(dead_pid(), &host());
    let ran = locked(&dead)
        .args(["lock", "--recover"])
        .code(1)
        .stdout("")
        .unchanged()
        .run();
    assert!(
        ran.stderr
            .starts_with("mem lock: the following required arguments were not provided:"),
        "{}",
        ran.stderr
    );
    let ran = ran
        .then()
        .args(["--json", "lock", "--recover"])
        .code(1)
        .stderr("")
        .unchanged()
        .run();
    let error: serde_json::Value = ran.json();
    assert!(
        error["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("the following required arguments were not provided:")),
        "{}",
        ran.stdout
    );
}

#[test]
fn a_dead_owners_lock_is_recovered_with_a_receipt() {
    let pid = dead_pid();
    let text = owner(pid, &host());
    let sha = sha256_hex(text.as_bytes());
    let receipt_rel = format!(".bmad/memory/lock-recovery/{STAMP}-{}.json", &sha[..12]);
    let project = locked(&text);
    let journal = project.read(JOURNAL);
    let ran = project
        .args(["lock", "--recover", "--expect", &sha])
        .code(0)
        .stdout(&format!(
            "mem lock: recovered the lock of a dead owner; receipt {receipt_rel}\n"
        ))
        .stderr("")
        .absent(LOCK)
        .file(JOURNAL, &journal)
        .run();
    let receipt_text = ran.project.read_text(&receipt_rel);
    let receipt: Receipt = serde_json::from_str(&receipt_text).expect("receipt");
    assert_eq!(receipt.recovered_at, crate::support::NOW);
    assert_eq!(receipt.lock_sha256, sha);
    assert_eq!(
        receipt.owner,
        serde_json::from_str::<serde_json::Value>(&text).expect("owner")
    );
    assert_eq!(receipt.owner_alive, Some(false));
    assert!(!receipt.other_host_is_gone);
    #[expect(clippy::cast_precision_loss, reason = "a small number of milliseconds")]
    let age = AGE_MS as f64;
    assert_eq!(receipt.age_ms, age);
    assert_eq!(receipt.recovered_by.hostname, host());
    assert_ne!(receipt.recovered_by.pid, pid);
    // Pretty JSON, key order as written, one final newline.
    assert_eq!(
        receipt_text,
        format!(
            "{{\n  \"recoveredAt\": \"{}\",\n  \"lockSha256\": \"{sha}\",\n  \"owner\": {{\n    \
             \"pid\": {pid},\n    \"hostname\": \"{}\",\n    \"token\": \
             \"9b2e4c1a-7f3d-4e8b-a6c5-0d1e2f3a4b5c\"\n  }},\n  \"ownerAlive\": false,\n  \
             \"otherHostIsGone\": false,\n  \"ageMs\": {AGE_MS},\n  \"recoveredBy\": {{\n    \"pid\": {},\n    \"hostname\": \
             \"{}\"\n  }}\n}}\n",
            crate::support::NOW,
            host(),
            receipt.recovered_by.pid,
            host()
        )
    );
    assert_eq!(
        ran.project.names(".bmad/memory"),
        [
            "decisions.md",
            "journal.ndjson",
            "lessons.md",
            "lock-recovery"
        ]
    );
    // Writing works again.
    let _ = ran
        .then()
        .args(["write", "--agent", "forge"])
        .code(0)
        .absent(LOCK)
        .run();
}

#[test]
fn recovery_json_names_the_receipt() {
    let pid = dead_pid();
    let text = owner(pid, &host());
    let sha = sha256_hex(text.as_bytes());
    let ran = locked(&text)
        .args(["lock", "--json", "--recover", "--expect", &sha])
        .code(0)
        .stderr("")
        .absent(LOCK)
        .run();
    assert_eq!(
        ran.json::<Shown>(),
        Shown {
            held: false,
            lock: Some(state(&text, Some(false))),
            recovered: Some(format!(
                ".bmad/memory/lock-recovery/{STAMP}-{}.json",
                &sha[..12]
            )),
        }
    );
}

#[test]
fn a_dead_owners_lock_is_never_removed_by_a_writer() {
    let text = owner(dead_pid(), &host());
    let project = locked(&text)
        .args(["write", "--agent", "forge"])
        .code(1)
        .stdout("")
        .stderr(&format!("mem write: {LOCK_OCCUPIED}\n"))
        .unchanged()
        .run()
        .then();
    assert_eq!(project.read(LOCK), text.as_bytes());
    let modified = fs::metadata(project.path(LOCK))
        .and_then(|m| m.modified())
        .expect("lock time");
    assert_eq!(
        modified,
        SystemTime::UNIX_EPOCH + Duration::from_millis(NOW_MS - AGE_MS)
    );
}
