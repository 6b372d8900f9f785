//! `merge-driver`: git's merge driver, run here as git runs it (`merge-driver %O %A %B %P`
//! from the top of the work tree) on three files of a temporary project, without git.

use testkit::json::{Object, Value};

use crate::support::{JOURNAL, PROMOTIONS, SCORES, TestProject};

const OUTCOMES: &str = ".bmad/memory/outcomes.ndjson";
const LEDGER: &str = ".bmad/memory/decisions.ndjson";
const CAP: usize = 2 * 1024 * 1024;

/// A journal event at `ts` with id `id`.
fn event(ts: &str, id: &str, task: &str) -> String {
    format!(r#"{{"ts":"{ts}","agent":"dev","task":"{task}","id":"{id}"}}"#)
}

pub(crate) fn lines(lines: &[&str]) -> String {
    lines.iter().flat_map(|l| [*l, "\n"]).collect()
}

/// A project holding git's three files, `base`, `ours` and `theirs`.
pub(crate) fn sides(
    base: impl AsRef<[u8]>,
    ours: impl AsRef<[u8]>,
    theirs: impl AsRef<[u8]>,
) -> TestProject {
    TestProject::new()
        .write("base", base)
        .write("ours", ours)
        .write("theirs", theirs)
}

pub(crate) fn driver(project: TestProject, path: &str) -> TestProject {
    project.args(["merge-driver", "base", "ours", "theirs", path])
}

/// Merges both ways (ours into theirs, theirs into ours) and checks both give `expected`.
pub(crate) fn clean_both_ways(base: &str, ours: &str, theirs: &str, path: &str, expected: &str) {
    for (one, other) in [(ours, theirs), (theirs, ours)] {
        let ran = driver(sides(base, one, other), path)
            .code(0)
            .stdout("")
            .stderr("")
            .file("ours", expected)
            .file("base", base)
            .file("theirs", other)
            .run();
        // Ours was replaced through a file of its own, which is gone.
        assert_eq!(ran.then().names(""), ["base", "ours", "theirs"]);
    }
}

#[test]
fn a_clean_merge_keeps_what_both_kept_then_adds_both_sides_in_time_order() {
    let a = event("2026-10-01T09:00:00.000Z", "aaaaaaaaaaaa", "base one");
    let b = event("2026-10-02T09:00:00.000Z", "bbbbbbbbbbbb", "base two");
    let ours_new = event("2026-10-05T09:00:00.000Z", "cccccccccccc", "ours");
    let theirs_new = event("2026-10-04T09:00:00.000Z", "dddddddddddd", "theirs");
    let both = event("2026-10-03T09:00:00.000Z", "eeeeeeeeeeee", "both");
    // Theirs archived `a`; both sides wrote `both`, byte for byte.
    clean_both_ways(
        &lines(&[&a, &b]),
        &lines(&[&a, &b, &both, &ours_new]),
        &lines(&[&b, &theirs_new, &both]),
        JOURNAL,
        &lines(&[&b, &both, &theirs_new, &ours_new]),
    );
    // The same rules for the other registries, and a project in a subfolder of the repository.
    for path in [PROMOTIONS, LEDGER, "apps/web/.bmad/memory/journal.ndjson"] {
        clean_both_ways(
            &lines(&[&a]),
            &lines(&[&a, &ours_new]),
            &lines(&[&a, &theirs_new]),
            path,
            &lines(&[&a, &theirs_new, &ours_new]),
        );
    }
}

#[test]
fn a_missing_final_newline_never_tears_a_line() {
    let a = event("2026-10-01T09:00:00.000Z", "aaaaaaaaaaaa", "one");
    let b = event("2026-10-02T09:00:00.000Z", "bbbbbbbbbbbb", "two");
    let c = event("2026-10-03T09:00:00.000Z", "cccccccccccc", "three");
    clean_both_ways(
        &a,
        &format!("{a}\n{b}"),
        &format!("{a}\n{c}"),
        JOURNAL,
        &lines(&[&a, &b, &c]),
    );
}

#[test]
fn unparseable_lines_are_kept_after_the_dated_records() {
    let a = event("2026-10-01T09:00:00.000Z", "aaaaaaaaaaaa", "one");
    let b = event("2026-10-02T09:00:00.000Z", "bbbbbbbbbbbb", "two");
    clean_both_ways(
        &lines(&[&a]),
        &lines(&[&a, "{torn", &b]),
        &lines(&[&a, "plain words", "{torn"]),
        JOURNAL,
        &lines(&[&a, &b, "plain words", "{torn"]),
    );
}

#[test]
fn a_record_changed_differently_on_each_side_is_left_between_markers_and_reported() {
    let a = event("2026-10-01T09:00:00.000Z", "aaaaaaaaaaaa", "one");
    let b = event("2026-10-02T09:00:00.000Z", "bbbbbbbbbbbb", "two");
    let ours_b = event("2026-10-02T09:00:00.000Z", "bbbbbbbbbbbb", "two, ours");
    // A C1 control stands raw in JSON text: the report escapes it, the file keeps it.
    let theirs_b = event(
        "2026-10-02T09:00:00.000Z",
        "bbbbbbbbbbbb",
        "two, theirs\u{9b}2J",
    );
    let c = event("2026-10-03T09:00:00.000Z", "cccccccccccc", "three");
    driver(
        sides(
            lines(&[&a, &b]),
            lines(&[&a, &ours_b]),
            lines(&[&a, &theirs_b, &c]),
        ),
        JOURNAL,
    )
    .code(1)
    .stdout("")
    .stderr(&format!(
        "mem merge-driver: {JOURNAL}: 1 record(s) changed differently on the two sides; both versions are left in the file between `<<<<<<< ours` and `>>>>>>> theirs`\n  id bbbbbbbbbbbb: ours {ours_b}; theirs {}\n",
        theirs_b.replace('\u{9b}', "\\x9b")
    ))
    .file(
        "ours",
        format!("{a}\n<<<<<<< ours\n{ours_b}\n=======\n{theirs_b}\n>>>>>>> theirs\n{c}\n"),
    )
    .run();
}

#[test]
fn a_record_changed_on_one_side_and_archived_on_the_other_is_a_conflict() {
    let a = event("2026-10-01T09:00:00.000Z", "aaaaaaaaaaaa", "one");
    let changed = event("2026-10-01T09:00:00.000Z", "aaaaaaaaaaaa", "one, edited");
    let b = event("2026-10-02T09:00:00.000Z", "bbbbbbbbbbbb", "two");
    driver(sides(lines(&[&a, &b]), lines(&[&b]), lines(&[&changed, &b])), JOURNAL)
        .code(1)
        .stderr(&format!(
            "mem merge-driver: {JOURNAL}: 1 record(s) changed differently on the two sides; both versions are left in the file between `<<<<<<< ours` and `>>>>>>> theirs`\n  id aaaaaaaaaaaa: ours removed it; theirs {changed}\n"
        ))
        .file(
            "ours",
            format!("{b}\n<<<<<<< ours\n=======\n{changed}\n>>>>>>> theirs\n"),
        )
        .run();
}

#[test]
fn a_path_the_driver_does_not_know_is_refused_and_ours_left_as_it_was() {
    for path in [
        ".bmad/memory/INDEX.md",
        ".bmad/memory/journal.ndjson.orig",
        ".agents/memory/context.md",
        "src/main.rs",
    ] {
        let _ = driver(sides("a\n", "b\n", "c\n"), path).refused(
            "merge-driver",
            &format!(
                "{path}: not a file bmad-mem merges (it merges journal.ndjson, promotions.ndjson, outcomes.ndjson, decisions.ndjson and pattern-scores.json in .bmad/memory/ and reinforcements.ndjson in .bmad/records/, and decisions.md, lessons.md and patterns.md in .bmad/memory/ and .agents/memory/, .bmad/memory/refused.md and the candidate files); left as ours, resolve it by hand"
            ),
        );
    }
}

#[test]
fn ours_as_a_link_is_refused() {
    let a = event("2026-10-01T09:00:00.000Z", "aaaaaaaaaaaa", "one");
    let project = TestProject::new()
        .write("base", "")
        .write("target", lines(&[&a]))
        .symlink("target", "ours")
        .write("theirs", lines(&[&a]));
    let _ = driver(project, JOURNAL).refused(
        "merge-driver",
        "ours is a link or not a regular file; nothing was merged",
    );
}

/// `n` journal lines of about 1 KiB, ids prefixed by `side`.
fn big(side: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            let ts = format!(
                "2026-10-{:02}T{:02}:{:02}:00.000Z",
                1 + i / 1440,
                i / 60 % 24,
                i % 60
            );
            event(&ts, &format!("{side}{i:011}"), &"x".repeat(1000))
        })
        .flat_map(|line| [line, "\n".to_owned()])
        .collect()
}

#[test]
fn a_merge_over_the_cap_is_a_conflict_that_names_the_archive_command() {
    let (ours, theirs) = (big("a", 1100), big("b", 1100));
    assert!(ours.len() < CAP && ours.len() + theirs.len() > CAP);
    let _ = driver(sides("", ours.clone(), theirs.clone()), JOURNAL).refused(
        "merge-driver",
        &format!(
            "{JOURNAL}: the merged file exceeds 2097152 bytes; nothing was merged — run `bmad-mem archive journal` on one side, commit, and merge again"
        ),
    );
    let _ = driver(sides("", ours, theirs), PROMOTIONS).refused(
        "merge-driver",
        &format!(
            "{PROMOTIONS}: the merged file exceeds 2097152 bytes; nothing was merged — run `bmad-mem archive promotions` on one side, commit, and merge again"
        ),
    );
    // A side over the cap is refused before anything is merged.
    let _ = driver(sides("", big("a", 2100), "x\n"), LEDGER).refused(
        "merge-driver",
        &format!(
            "{LEDGER}: ours exceeds 2097152 bytes; nothing was merged — bmad-mem cannot archive this store; resolve the conflict by hand"
        ),
    );
}

/// A receipt as `observe` writes it: `id` (the SHA-256 of the rest) first.
fn receipt(ts: &str, attempt: &str, supersedes: &[&str]) -> (String, String) {
    let body = Object::new()
        .with("schemaVersion", 1u32)
        .with("kind", "accepted-outcome")
        .with("ts", ts)
        .with(
            "source",
            Object::new()
                .with("runId", "run-1")
                .with("taskId", "task-1")
                .with("attemptId", attempt),
        )
        .with(
            "supersedes",
            supersedes
                .iter()
                .map(|s| Value::from(*s))
                .collect::<Vec<_>>(),
        )
        .with("contradicts", Vec::<Value>::new());
    let id = Value::from(body.clone()).sha256();
    let mut line = Object::new().with("id", id.as_str());
    for (k, v) in body.iter() {
        line.insert(k.clone(), v.clone());
    }
    (id, Value::from(line).compact())
}

#[test]
fn receipts_come_after_the_receipts_they_supersede_and_pass_the_strict_reader() {
    let (_, first) = receipt("2026-10-01T09:00:00.000Z", "a1", &[]);
    // Written late on ours, superseded by a receipt whose clock ran behind.
    let (late_id, late) = receipt("2026-10-09T09:00:00.000Z", "a2", &[]);
    let (_, early) = receipt("2026-10-03T09:00:00.000Z", "a3", &[&late_id]);
    let (_, other) = receipt("2026-10-05T09:00:00.000Z", "a4", &[]);
    clean_both_ways(
        &lines(&[&first]),
        &lines(&[&first, &late, &early]),
        &lines(&[&first, &other]),
        OUTCOMES,
        &lines(&[&first, &other, &late, &early]),
    );
    // The merged store is one the tool reads.
    let merged = lines(&[&first, &other, &late, &early]);
    let ran = TestProject::new()
        .write(OUTCOMES, &merged)
        .args(["outcomes", "--json"])
        .code(0)
        .run();
    assert!(ran.stdout.contains("\"count\": 4"), "{}", ran.stdout);
}

#[test]
fn receipts_the_strict_reader_refuses_leave_ours_as_it_was() {
    let (_, first) = receipt("2026-10-01T09:00:00.000Z", "a1", &[]);
    // Each side recorded the same attempt: one attempt, two receipts.
    let (_, ours) = receipt("2026-10-02T09:00:00.000Z", "a2", &[]);
    let (_, theirs) = receipt("2026-10-03T09:00:00.000Z", "a2", &[]);
    let _ = driver(
        sides(lines(&[&first]), lines(&[&first, &ours]), lines(&[&first, &theirs])),
        OUTCOMES,
    )
    .refused(
        "merge-driver",
        &format!(
            "{OUTCOMES}: the merged receipts would not pass the strict reader (Duplicate or missing outcome attempt identity.); left as ours, resolve it by hand"
        ),
    );
}

#[test]
fn a_merged_receipt_store_over_1000_receipts_is_refused() {
    let store = |from: usize, to: usize| -> String {
        (from..to)
            .map(|i| receipt("2026-10-01T09:00:00.000Z", &format!("a{i}"), &[]).1 + "\n")
            .collect()
    };
    let _ = driver(sides("", store(0, 600), store(600, 1001)), OUTCOMES).refused(
        "merge-driver",
        &format!(
            "{OUTCOMES}: the merged receipts would not pass the strict reader (Outcome store exceeds 1000 records.); left as ours, resolve it by hand"
        ),
    );
}

/// A score as `reinforce` writes it, pretty, at two spaces of depth.
fn scores(entries: &[(&str, u32, &str)]) -> String {
    let mut doc = Object::new();
    for (pattern, elo, ts) in entries {
        doc.insert(
            *pattern,
            Object::new()
                .with("elo", *elo)
                .with("alpha", 2u32)
                .with("beta", 1u32)
                .with("mean", 0.5)
                .with("updates", 1u32)
                .with("lastTs", *ts),
        );
    }
    format!("{}\n", Value::from(doc).pretty())
}

#[test]
fn scores_merge_pattern_by_pattern_and_a_pattern_changed_on_both_sides_is_a_conflict() {
    let t0 = "2026-10-01T09:00:00.000Z";
    let (t1, t2) = ("2026-10-02T09:00:00.000Z", "2026-10-03T09:00:00.000Z");
    let base = scores(&[("p", 1200, t0), ("q", 1200, t0)]);
    clean_both_ways(
        &base,
        &scores(&[("p", 1216, t1), ("q", 1200, t0), ("r", 1216, t2)]),
        &scores(&[("p", 1200, t0), ("q", 1184, t2), ("s", 1216, t1)]),
        SCORES,
        &scores(&[
            ("p", 1216, t1),
            ("q", 1184, t2),
            ("s", 1216, t1),
            ("r", 1216, t2),
        ]),
    );
    let ours = scores(&[("p", 1216, t1), ("q", 1200, t0)]);
    let theirs = scores(&[("p", 1184, t2), ("q", 1232, t2)]);
    let state = |elo: u32, ts: &str| {
        format!(r#"{{"elo":{elo},"alpha":2,"beta":1,"mean":0.5,"updates":1,"lastTs":"{ts}"}}"#)
    };
    driver(sides(&base, &ours, &theirs), SCORES)
        .code(1)
        .stdout("")
        .stderr(&format!(
            "mem merge-driver: {SCORES}: 1 pattern(s) scored differently on the two sides; the file keeps ours for them and merges the others\n  pattern \"p\": ours {}; theirs {}\n  the reinforcement records of the two sides were not found (not run by git in a repository with a commit checked out), so the updates of a pattern both sides changed cannot be replayed\n",
            state(1216, t1),
            state(1184, t2)
        ))
        .file("ours", scores(&[("p", 1216, t1), ("q", 1232, t2)]))
        .run();
}

#[test]
fn a_scores_side_that_is_not_an_object_is_refused() {
    let base = scores(&[("p", 1200, "2026-10-01T09:00:00.000Z")]);
    let _ = driver(sides(&base, "[1]\n", "{}\n"), SCORES).refused(
        "merge-driver",
        &format!(
            "{SCORES}: ours is not a JSON object; it cannot be merged pattern by pattern — left as ours"
        ),
    );
}

#[test]
fn scores_written_by_reinforce_in_two_clones_merge_into_a_document_reinforce_takes() {
    let reinforce = |project: TestProject, pattern: &str, now: &str| {
        project
            .env("BMAD_MEM_NOW", now)
            .args(["reinforce", "--pattern", pattern, "--eval", "1"])
            .code(0)
            .run()
            .then()
    };
    let project = reinforce(TestProject::new(), "shared", "2026-10-01T09:00:00.000Z");
    let base = project.read(SCORES);
    let project = reinforce(project, "mine", "2026-10-02T09:00:00.000Z");
    let ours = project.read(SCORES);
    let project = reinforce(
        project.write(SCORES, &base),
        "yours",
        "2026-10-03T09:00:00.000Z",
    );
    let theirs = project.read(SCORES);
    let project = project
        .write("base", &base)
        .write("ours", &ours)
        .write("theirs", &theirs)
        .args(["merge-driver", "base", "ours", "theirs", SCORES])
        .code(0)
        .run()
        .then();
    let merged = project.read("ours");
    // The three patterns, in the order reinforce would have written them one after the other.
    let expected = {
        let p = reinforce(
            TestProject::new().write(SCORES, &ours),
            "yours",
            "2026-10-03T09:00:00.000Z",
        );
        p.read(SCORES)
    };
    assert_eq!(
        String::from_utf8_lossy(&merged),
        String::from_utf8_lossy(&expected)
    );
    // Reinforce goes on from the merged scores.
    let ran = project
        .write(SCORES, &merged)
        .env("BMAD_MEM_NOW", "2026-10-04T09:00:00.000Z")
        .args(["reinforce", "--pattern", "mine", "--eval", "1", "--json"])
        .code(0)
        .run();
    assert!(ran.stdout.contains("\"updates\": 2"), "{}", ran.stdout);
}

#[test]
fn scores_changed_alike_on_both_sides_merge_whatever_the_base_holds() {
    // A base committed with a conflict left in it, that both sides resolved the same way.
    let resolved = scores(&[("p", 1216, "2026-10-02T09:00:00.000Z")]);
    let base = format!("<<<<<<< ours\n{resolved}=======\n>>>>>>> theirs\n");
    for base in [base.as_str(), "[1]\n"] {
        let _ = driver(sides(base, &resolved, &resolved), SCORES)
            .code(0)
            .stdout("")
            .stderr("")
            .file("ours", &resolved)
            .run();
    }
}
