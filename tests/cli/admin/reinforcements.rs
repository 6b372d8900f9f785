//! Reinforcements merged through real git (docs/MERGE.md, "`pattern-scores.json`"): two clones
//! reinforcing one pattern merge without a conflict and without losing an update — both ways,
//! through a rebase of many commits, a cherry-pick — into byte-identical files that `lint` and
//! `doctor` accept; a score changed without a record (bmad-plus) stays today's per-pattern
//! conflict; a torn records registry is a conflict that names it; `doctor --rebuild-scores`
//! restores updates a merge resolved by hand lost; `archive reinforcements` keeps what the
//! scores replay from.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::support::gitlab::{Lab, at, ids, memory, read, text};
use crate::support::{NOW, SCORES};

const RECORDS: &str = ".bmad/records/reinforcements.ndjson";
const PATTERN: &str = "shared-pattern";

/// `n` reinforcements of `pattern` in `dir` on `day`, at minutes `first`, `first + 2`, …
/// (two clones given 0 and 1 interleave), committed every `per_commit` of them.
fn reinforce(lab: &Lab, dir: &Path, day: u32, first: usize, n: usize, per_commit: usize) {
    for i in 0..n {
        let accept = if (i + first).is_multiple_of(3) {
            "false"
        } else {
            "true"
        };
        lab.mem_ok(
            dir,
            &at(day, first + 2 * i),
            &["reinforce", "--pattern", PATTERN, "--accept", accept],
        );
        if (i + 1) % per_commit == 0 || i + 1 == n {
            lab.commit(dir, &format!("reinforce {i}"));
        }
    }
}

/// The memory and the records of a clone, by name.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut files = memory(dir);
    files.push((RECORDS.to_owned(), read(dir, RECORDS)));
    files
}

fn updates(dir: &Path, pattern: &str) -> f64 {
    let scores: Json = serde_json::from_str(&read(dir, SCORES)).unwrap();
    scores[pattern]["updates"].as_f64().unwrap()
}

/// Asserts that two clones hold the same memory and records, naming the files that differ.
#[track_caller]
fn same_files(one: &Path, other: &Path, what: &str) {
    let differing: Vec<String> = files(one)
        .into_iter()
        .zip(files(other))
        .filter(|(x, y)| x != y)
        .map(|(x, _)| x.0)
        .collect();
    assert!(differing.is_empty(), "{what}: {differing:?} differ");
}

/// `doctor` and `lint` both exit 0 in `dir`.
fn clean(lab: &Lab, dir: &Path) {
    for command in ["doctor", "lint"] {
        let out = lab.mem(dir, NOW, &[command]);
        assert!(out.status.success(), "{command}: {}", text(&out));
    }
}

/// A lab whose origin holds one journal event, and two clones of it set up, `a` and `b`.
fn two_clones() -> (Lab, PathBuf, PathBuf) {
    let lab = Lab::new();
    lab.origin(1);
    let a = lab.clone_of("a", true);
    let b = lab.clone_of("b", true);
    (lab, a, b)
}

/// One `reinforce` of `pattern` in `dir` at minute `minute` of October 5.
fn reinforce_once(lab: &Lab, dir: &Path, minute: usize, pattern: &str, accept: &str) {
    lab.mem_ok(
        dir,
        &at(5, minute),
        &["reinforce", "--pattern", pattern, "--accept", accept],
    );
}

/// Commits `b`'s work and merges it into `a`, which must conflict; what git and the driver said.
fn conflict(lab: &Lab, a: &Path, b: &Path) -> String {
    let cb = lab.commit(b, "bob");
    let out = lab.merge(a, b, &cb);
    assert!(!out.status.success(), "{}", text(&out));
    text(&out)
}

fn head(lab: &Lab, dir: &Path) -> String {
    lab.git(dir, &["rev-parse", "HEAD"]).trim().to_owned()
}

#[test]
fn a_pattern_reinforced_40_times_on_each_clone_merges_into_80_updates_both_ways_and_through_a_rebase()
 {
    let lab = Lab::new();
    lab.origin(2);
    let a = lab.clone_of("a", true);
    let b = lab.clone_of("b", true);
    let c = lab.clone_of("c", true);
    let d = lab.clone_of("d", true);
    reinforce(&lab, &a, 5, 0, 40, 40);
    // Bob commits every 5 updates.
    reinforce(&lab, &b, 5, 1, 40, 5);
    let (ca, cb) = (head(&lab, &a), head(&lab, &b));

    let into_a = lab.merge(&a, &b, &cb);
    let into_b = lab.merge(&b, &a, &ca);
    assert!(into_a.status.success(), "{}", text(&into_a));
    assert!(into_b.status.success(), "{}", text(&into_b));
    assert_eq!(lab.git(&a, &["diff", "--name-only", "--diff-filter=U"]), "");
    same_files(&a, &b, "both directions");
    assert_eq!(updates(&a, PATTERN), 80.0);
    assert_eq!(ids(&read(&a, RECORDS)).len(), 80);

    // Clone c takes Bob's commits as one and rebases it onto Alice's: the same bytes.
    let take_bobs = |dir: &Path| {
        lab.git(dir, &["fetch", "-q", b.to_str().unwrap(), &cb]);
        lab.git(dir, &["reset", "-q", "--hard", &cb]);
        lab.git(dir, &["fetch", "-q", a.to_str().unwrap(), &ca]);
    };
    take_bobs(&c);
    lab.git(&c, &["reset", "-q", "--soft", "origin/main"]);
    lab.commit(&c, "bob, in one commit");
    let out = lab.try_git(&c, &["rebase", &ca]);
    assert!(out.status.success(), "{}", text(&out));
    same_files(&c, &a, "the rebase and the merge");
    // Clone d rebases Bob's eight commits one by one: each pick replays; the scores are the
    // same bytes, the records the same lines (in the order of the picks).
    take_bobs(&d);
    let out = lab.try_git(&d, &["rebase", &ca]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(read(&d, SCORES), read(&a, SCORES));
    let sorted = |dir: &Path| {
        let mut lines: Vec<String> = read(dir, RECORDS).lines().map(str::to_owned).collect();
        lines.sort();
        lines
    };
    assert_eq!(sorted(&d), sorted(&a));

    for dir in [&a, &b, &c, &d] {
        clean(&lab, dir);
    }
    // The merged store is one reinforce goes on from.
    lab.mem_ok(
        &a,
        &at(6, 0),
        &["reinforce", "--pattern", PATTERN, "--accept", "true"],
    );
    assert_eq!(updates(&a, PATTERN), 81.0);
    clean(&lab, &a);
}

#[test]
fn a_cherry_pick_replays_too() {
    let (lab, a, b) = two_clones();
    reinforce(&lab, &a, 5, 0, 3, 3);
    reinforce(&lab, &b, 5, 1, 3, 3);
    // Bob's work as a branch of Alice's clone; FETCH_HEAD then names something else, so the
    // driver finds the commit picked among the branch tips.
    lab.git(&a, &["fetch", "-q", b.to_str().unwrap(), "main:bob"]);
    lab.git(&a, &["fetch", "-q", "origin"]);
    let out = lab.try_git(&a, &["cherry-pick", "bob"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(updates(&a, PATTERN), 6.0);
    clean(&lab, &a);
}

#[test]
fn a_score_rewritten_without_a_record_stays_a_per_pattern_conflict() {
    let (lab, a, b) = two_clones();
    reinforce(&lab, &a, 5, 0, 2, 2);
    // A bmad-plus-like writer: the score moves, no record is written.
    reinforce_once(&lab, &b, 1, PATTERN, "false");
    fs::remove_dir_all(b.join(".bmad/records")).unwrap();
    reinforce_once(&lab, &b, 3, "bobs-own", "true");
    let said = conflict(&lab, &a, &b);
    assert!(
        said.contains(&format!(
            "{SCORES}: 1 pattern(s) scored differently on the two sides"
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!("pattern \"{PATTERN}\": ours ")),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "pattern \"{PATTERN}\": theirs' score is not what theirs' records in {RECORDS} replay to"
        )),
        "{said}"
    );
    assert_eq!(
        lab.git(&a, &["diff", "--name-only", "--diff-filter=U"]),
        format!("{SCORES}\n")
    );
    // The other patterns merged; the conflicted one keeps ours.
    let scores: Json = serde_json::from_str(&read(&a, SCORES)).unwrap();
    assert_eq!(scores[PATTERN]["updates"], 2.0);
    assert_eq!(scores["bobs-own"]["updates"], 1.0);
}

#[test]
fn a_torn_record_registry_is_a_conflict_that_names_it_and_loses_nothing() {
    let (lab, a, b) = two_clones();
    reinforce(&lab, &a, 5, 0, 2, 2);
    reinforce_once(&lab, &b, 1, PATTERN, "true");
    // A record cut short by a crash, committed as it was.
    let records = read(&b, RECORDS);
    let torn = &records[..records.len() - 30];
    fs::write(b.join(RECORDS), torn).unwrap();
    let said = conflict(&lab, &a, &b);
    assert!(
        said.contains(&format!(
            "{RECORDS} of theirs holds a line that is not a reinforcement record"
        )),
        "{said}"
    );
    // Bob's torn line is kept in the merged records, whole, for a person to see.
    assert!(read(&a, RECORDS).contains(torn.lines().last().unwrap()));
    let out = lab.mem(&a, NOW, &["doctor"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains(&format!("{RECORDS} [unparseable-lines]")),
        "{}",
        text(&out)
    );
}

#[test]
fn doctor_rebuilds_the_updates_a_merge_resolved_by_hand_lost() {
    let (lab, a, b) = two_clones();
    reinforce(&lab, &a, 5, 0, 3, 3);
    let before = read(&a, SCORES);
    reinforce(&lab, &b, 5, 1, 3, 3);
    let cb = head(&lab, &b);
    assert!(lab.merge(&a, &b, &cb).status.success());
    let merged = read(&a, SCORES);
    // Someone keeps their own scores by hand (as a clone without the driver would).
    fs::write(a.join(SCORES), &before).unwrap();
    let out = lab.mem(&a, NOW, &["doctor"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains(&format!(
            "{SCORES} [scores-behind]: the score of pattern \"{PATTERN}\" counts 3 update(s), its reinforcement records 6"
        )),
        "{}",
        text(&out)
    );
    let out = lab.mem_ok(&a, NOW, &["doctor", "--rebuild-scores"]);
    assert_eq!(
        out,
        format!(
            "mem doctor: rebuilt the score of 1 pattern(s) in {SCORES} from {RECORDS}: \"{PATTERN}\"\n"
        )
    );
    assert_eq!(read(&a, SCORES), merged);
    clean(&lab, &a);
    let out = lab.mem_ok(&a, NOW, &["doctor", "--rebuild-scores", "--json"]);
    let report: Json = serde_json::from_str(&out).unwrap();
    assert_eq!(report["rebuiltPatterns"], serde_json::json!([]));
}

#[test]
fn archived_records_leave_the_scores_rebuildable_and_merges_clean() {
    let (lab, a, b) = two_clones();
    reinforce(&lab, &a, 5, 0, 6, 6);
    reinforce(&lab, &b, 5, 1, 6, 6);
    let cb = head(&lab, &b);
    assert!(lab.merge(&a, &b, &cb).status.success());
    let merged = head(&lab, &a);
    assert!(lab.merge(&b, &a, &merged).status.success());
    // Right after the merge, each record's `before` is its own clone's: an archive keeping
    // fewer than all would change what the rest replay to, so it keeps them all.
    let out = lab.mem_ok(&a, NOW, &["archive", "reinforcements", "--keep", "4"]);
    assert!(out.starts_with("mem archive: nothing to archive"), "{out}");
    // Two more updates, made on the merged score: the twelve before them may go.
    reinforce(&lab, &a, 6, 0, 2, 2);
    let out = lab.mem_ok(&a, NOW, &["archive", "reinforcements", "--keep", "2"]);
    assert!(
        out.starts_with("mem archive: moved 12 record(s) of .bmad/records/reinforcements.ndjson into .bmad/records/archive/reinforcements-20261005T090000Z--20261005T091100Z.ndjson; 2 kept"),
        "{out}"
    );
    clean(&lab, &a);
    lab.commit(&a, "archive");
    // Archived on one side, reinforced on the other: clean, nothing lost.
    reinforce(&lab, &b, 6, 1, 2, 2);
    let cb = head(&lab, &b);
    let into_a = lab.merge(&a, &b, &cb);
    assert!(into_a.status.success(), "{}", text(&into_a));
    assert_eq!(updates(&a, PATTERN), 16.0);
    assert_eq!(ids(&read(&a, RECORDS)).len(), 4);
    clean(&lab, &a);
}

#[test]
fn doctor_names_git_setup_when_the_attributes_predate_the_records() {
    let lab = Lab::new();
    lab.origin(1);
    let a = lab.clone_of("a", true);
    // `.gitattributes` as `git setup` wrote it before the records registry existed.
    let line = format!("{RECORDS} merge=bmad-mem\n");
    let attributes = read(&a, ".gitattributes");
    assert!(attributes.contains(&line));
    fs::write(a.join(".gitattributes"), attributes.replace(&line, "")).unwrap();
    let out = lab.mem(&a, NOW, &["doctor"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains(&format!(
            "  .gitattributes [merge-attribute-missing]: does not give {RECORDS} to the bmad-mem merge driver, so git merges them as plain text; `bmad-mem git setup` adds the missing line(s)\n"
        )),
        "{}",
        text(&out)
    );
    lab.mem_ok(&a, NOW, &["git", "setup"]);
    assert!(read(&a, ".gitattributes").ends_with(&line));
    clean(&lab, &a);
}
