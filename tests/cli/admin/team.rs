//! A team's ordinary day on one memory, through real git: two clones of one repository, each
//! doing what people and agents do — journal events, a lesson proposed and admitted, the same
//! pattern reinforced, decisions adopted, superseded, abrogated, a candidate left pending — then
//! merged both ways and through a rebase. The files must come out byte-identical whichever way
//! they were merged, every section and every update present once, and `lint` and `doctor`
//! clean, with no conflict.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::support::gitlab::{Lab, at, read};

const PATTERN: &str = "Rate limit on auth routes";
const SCORES: &str = ".bmad/memory/pattern-scores.json";
const LESSONS: &str = ".agents/memory/lessons.md";
const DECISIONS: &str = ".agents/memory/decisions.md";

/// Every file of the memory folders of `dir` (the rebuildable cache left out), by path.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.join(".bmad"), dir.join(".agents")];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(dir).unwrap().to_path_buf();
            if rel.starts_with(".bmad/cache") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                found.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    found
}

/// The origin: the example project, set up, its decisions ledgered, pushed.
fn origin(lab: &Lab) {
    lab.git(
        &lab.base,
        &["init", "-q", "--bare", "-b", "main", "origin.git"],
    );
    let seed = lab.clone_of("seed", true);
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/example"),
        &seed,
    );
    lab.mem_ok(
        &seed,
        &at(1, 0),
        &["decision", "adopt", "--all", "--actor", "seed"],
    );
    lab.commit(&seed, "seed");
    lab.git(&seed, &["push", "-q", "origin", "main"]);
}

fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Proposes a lesson and admits it, as `who`, at minutes `minute` and `minute + 1` of `day`.
fn admit_lesson(lab: &Lab, dir: &Path, day: u32, minute: usize, who: &str, title: &str) {
    let proposed = lab.mem_ok(
        dir,
        &at(day, minute),
        &[
            "--json",
            "propose",
            "--type",
            "lesson",
            "--title",
            title,
            "--body",
            &format!("What {who} learned about {title}."),
            "--source",
            who,
        ],
    );
    let proposed: Json = serde_json::from_str(&proposed).unwrap();
    lab.mem_ok(
        dir,
        &at(day, minute + 1),
        &[
            "admit",
            proposed["id"].as_str().unwrap(),
            "--expect",
            proposed["sha256"].as_str().unwrap(),
            "--actor",
            who,
        ],
    );
}

/// One clone's day: `events` journal events, `admissions` lessons admitted, the shared pattern
/// reinforced `reinforcements` times, and its own decision changes. Bob works from the early
/// afternoon, so no two actions of the clones share a millisecond (two clones making the very
/// same update at the very same millisecond write one record, docs/MERGE.md).
#[allow(clippy::too_many_arguments)]
fn day(
    lab: &Lab,
    dir: &Path,
    day: u32,
    who: &str,
    events: usize,
    admissions: usize,
    reinforcements: usize,
    decisions: &[&[&str]],
) {
    let mut minute = if who == "bob" { 300 } else { 0 };
    for i in 0..events {
        minute += 1;
        lab.mem_ok(
            dir,
            &at(day, minute),
            &[
                "write",
                "--agent",
                who,
                "--task",
                &format!("{who} task {i}"),
            ],
        );
    }
    for i in 0..reinforcements {
        minute += 1;
        let signal = if i % 3 == 0 { "false" } else { "true" };
        lab.mem_ok(
            dir,
            &at(day, minute),
            &["reinforce", "--pattern", PATTERN, "--accept", signal],
        );
    }
    for i in 0..admissions {
        minute += 2;
        admit_lesson(lab, dir, day, minute, who, &format!("{who} lesson {i}"));
    }
    for args in decisions {
        minute += 2;
        let mut args = args.to_vec();
        args.extend(["--actor", who]);
        lab.mem_ok(dir, &at(day, minute), &args);
    }
    minute += 1;
    lab.mem_ok(
        dir,
        &at(day, minute),
        &[
            "propose",
            "--type",
            "pattern",
            "--title",
            &format!("{who} pending pattern"),
            "--body",
            "Left for a person to read.",
            "--source",
            who,
        ],
    );
}

fn updates(dir: &Path) -> f64 {
    let text = read(dir, SCORES);
    if text.is_empty() {
        return 0.0;
    }
    let scores: Json = serde_json::from_str(&text).unwrap();
    scores[PATTERN]["updates"].as_f64().unwrap_or(0.0)
}

fn headings(dir: &Path, rel: &str) -> Vec<String> {
    read(dir, rel)
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .map(str::to_owned)
        .collect()
}

/// `lint` and `doctor` on `dir`, which must both pass.
fn clean(lab: &Lab, dir: &Path) {
    lab.mem_ok(dir, &at(20, 0), &["lint"]);
    lab.mem_ok(dir, &at(20, 0), &["doctor"]);
}

const A_DECISIONS: [&[&str]; 1] = [&[
    "decision",
    "supersede",
    "Caching layer",
    "--successor",
    "Feature flags",
]];
const B_DECISIONS: [&[&str]; 1] = [&[
    "decision",
    "abrogate",
    "API versioning",
    "--reason",
    "one version is enough",
]];

#[test]
fn a_team_day_merges_both_ways_and_through_a_rebase_into_the_same_files() {
    let lab = Lab::new();
    origin(&lab);
    let a = lab.clone_of("alice", true);
    let b = lab.clone_of("bob", true);
    let base_updates = updates(&a);
    let base_lessons = headings(&a, LESSONS);
    day(&lab, &a, 5, "alice", 6, 2, 4, &A_DECISIONS);
    day(&lab, &b, 5, "bob", 5, 2, 3, &B_DECISIONS);
    let ca = lab.commit(&a, "alice's day");
    let cb = lab.commit(&b, "bob's day");
    // A third clone rebases alice's day onto bob's.
    let r = lab.clone_of("rebaser", true);
    lab.git(&r, &["fetch", "-q", a.to_str().unwrap(), &ca]);
    lab.git(&r, &["reset", "-q", "--hard", &ca]);
    lab.git(&r, &["fetch", "-q", b.to_str().unwrap(), &cb]);
    let rebased = lab.try_git(&r, &["rebase", &cb]);
    let merged_a = lab.merge(&a, &b, &cb);
    let merged_b = lab.merge(&b, &a, &ca);
    for (name, out) in [("a", &merged_a), ("b", &merged_b), ("rebase", &rebased)] {
        assert!(
            out.status.success(),
            "{name}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        tree(&a),
        tree(&b),
        "both merge directions give the same files"
    );
    assert_eq!(tree(&a), tree(&r), "a rebase gives what a merge gives");
    // Every update and every section once.
    assert_eq!(updates(&a), base_updates + 7.0, "4 + 3 reinforcements");
    let lessons = headings(&a, LESSONS);
    assert_eq!(lessons.len(), base_lessons.len() + 4, "{lessons:?}");
    for who in ["alice", "bob"] {
        for i in 0..2 {
            let title = format!("{who} lesson {i}");
            assert_eq!(
                lessons.iter().filter(|h| h.contains(&title)).count(),
                1,
                "{title} once: {lessons:?}"
            );
        }
    }
    let decisions = read(&a, DECISIONS);
    assert!(
        decisions.contains("superseded by Feature flags"),
        "{decisions}"
    );
    assert!(decisions.contains("**Status:** abrogated"), "{decisions}");
    for dir in [&a, &b, &r] {
        clean(&lab, dir);
    }
}

#[test]
fn one_candidate_admitted_in_both_clones_becomes_one_entry() {
    let lab = Lab::new();
    origin(&lab);
    let seed = lab.path("seed");
    let proposed = lab.mem_ok(
        &seed,
        &at(2, 0),
        &[
            "--json",
            "propose",
            "--type",
            "lesson",
            "--title",
            "Shared lesson",
            "--body",
            "Both clones admit it.",
            "--source",
            "forge",
        ],
    );
    let proposed: Json = serde_json::from_str(&proposed).unwrap();
    let (id, sha) = (
        proposed["id"].as_str().unwrap().to_owned(),
        proposed["sha256"].as_str().unwrap().to_owned(),
    );
    lab.commit(&seed, "a candidate");
    lab.git(&seed, &["push", "-q", "origin", "main"]);
    let a = lab.clone_of("alice", true);
    let b = lab.clone_of("bob", true);
    lab.mem_ok(
        &a,
        &at(3, 0),
        &["admit", &id, "--expect", &sha, "--actor", "alice"],
    );
    lab.mem_ok(
        &b,
        &at(3, 5),
        &["admit", &id, "--expect", &sha, "--actor", "bob"],
    );
    let ca = lab.commit(&a, "alice admits");
    let cb = lab.commit(&b, "bob admits");
    let merged_a = lab.merge(&a, &b, &cb);
    let merged_b = lab.merge(&b, &a, &ca);
    assert!(merged_a.status.success(), "{merged_a:?}");
    assert!(merged_b.status.success(), "{merged_b:?}");
    assert_eq!(tree(&a), tree(&b));
    let lessons = headings(&a, LESSONS);
    assert_eq!(
        lessons
            .iter()
            .filter(|h| h.contains("Shared lesson"))
            .count(),
        1,
        "{lessons:?}"
    );
    assert!(
        read(&a, LESSONS).contains("alice"),
        "the earlier admission wins"
    );
    let ledger = read(&a, ".bmad/memory/decisions.ndjson");
    assert!(
        ledger.lines().filter(|l| l.contains("\"admit\"")).count() <= 1,
        "{ledger}"
    );
    clean(&lab, &a);
}

/// RELIABILITY.md's team-day figures: two clones each write 200 events, reinforce one shared
/// pattern 40 times and admit 10 lessons, on a base with the example's decisions ledgered; then
/// they merge both ways and a third clone rebases. Conflicts and losses counted; printed.
/// `cargo test --test cli team_day_figures -- --ignored --nocapture`
#[test]
#[ignore = "prints the team-day figures for RELIABILITY.md"]
fn team_day_figures() {
    let lab = Lab::new();
    origin(&lab);
    let a = lab.clone_of("alice", true);
    let b = lab.clone_of("bob", true);
    let (events, reinforcements, admissions) = (200, 40, 10);
    let base_events = read(&a, ".bmad/memory/journal.ndjson").lines().count();
    let base_lessons = headings(&a, LESSONS).len();
    day(
        &lab,
        &a,
        5,
        "alice",
        events,
        admissions,
        reinforcements,
        &A_DECISIONS,
    );
    day(
        &lab,
        &b,
        5,
        "bob",
        events,
        admissions,
        reinforcements,
        &B_DECISIONS,
    );
    let ca = lab.commit(&a, "alice's day");
    let cb = lab.commit(&b, "bob's day");
    let r = lab.clone_of("rebaser", true);
    lab.git(&r, &["fetch", "-q", a.to_str().unwrap(), &ca]);
    lab.git(&r, &["reset", "-q", "--hard", &ca]);
    lab.git(&r, &["fetch", "-q", b.to_str().unwrap(), &cb]);
    let outs = [
        lab.merge(&a, &b, &cb),
        lab.merge(&b, &a, &ca),
        lab.try_git(&r, &["rebase", &cb]),
    ];
    let conflicts = outs.iter().filter(|o| !o.status.success()).count();
    let journal = read(&a, ".bmad/memory/journal.ndjson").lines().count();
    let lessons = headings(&a, LESSONS).len();
    let lost_events = (base_events + 2 * events).saturating_sub(journal);
    let lost_updates = (2.0 * reinforcements as f64 - updates(&a)).max(0.0);
    let lost_lessons = (base_lessons + 2 * admissions).saturating_sub(lessons);
    let lint = lab.mem(&a, &at(20, 0), &["lint"]).status.success();
    let doctor = lab.mem(&a, &at(20, 0), &["doctor"]).status.success();
    println!(
        "two clones x ({events} events, {reinforcements} reinforcements of one pattern, {admissions} admissions, one decision change), merged both ways and rebased: {conflicts} conflicts; journal {journal} records ({lost_events} lost), {} updates of the pattern ({lost_updates} lost), {lessons} lessons ({lost_lessons} lost); both directions and the rebase byte-identical: {}; lint clean: {lint}; doctor clean: {doctor}",
        updates(&a),
        tree(&a) == tree(&b) && tree(&a) == tree(&r),
    );
}
