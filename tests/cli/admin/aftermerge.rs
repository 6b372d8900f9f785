//! `doctor` after a merge: conflict markers in any memory file, records doubled (exact copies)
//! or diverging under one id, timestamps out of order (information only); and
//! `doctor --dedupe <file>`, which moves exact duplicate lines aside and refuses the rest.

use serde_json::{Value as Json, json};

use crate::admin::doctor::nothing_to_repair;
use crate::support::{JOURNAL, PROMOTIONS, TestProject};

const STAMP: &str = "2026-10-18T09-30-00-000Z";
const LESSONS: &str = ".agents/memory/lessons.md";
const LEDGER: &str = ".bmad/memory/decisions.ndjson";

fn event(ts: &str, id: &str, task: &str) -> String {
    format!(r#"{{"ts":"2026-10-01T{ts}:00.000Z","agent":"dev","task":"{task}","id":"{id}"}}"#)
}

fn lines(lines: &[&str]) -> String {
    lines.iter().flat_map(|l| [*l, "\n"]).collect()
}

const CONFLICTED: &str =
    "# Lessons\n\n<<<<<<< HEAD\n### A\nours\n=======\n### A\ntheirs\n>>>>>>> other\n";

#[test]
fn doctor_reports_what_a_merge_left_and_counts_exact_and_divergent_duplicates_apart() {
    let a = event("09:00", "aaaaaaaaaaaa", "one");
    let b = event("10:00", "bbbbbbbbbbbb", "two");
    let c = event("08:00", "cccccccccccc", "three");
    let p1 = r#"{"ts":"2026-10-01T09:00:00.000Z","id":"pppppppppppp","x":1}"#;
    let p2 = r#"{"ts":"2026-10-01T09:00:00.000Z","id":"pppppppppppp","x":2}"#;
    TestProject::new()
        .write(JOURNAL, lines(&[&a, &b, &a, &c]))
        .write(PROMOTIONS, lines(&[p1, p2]))
        .write(LESSONS, CONFLICTED)
        .args(["doctor"])
        .code(1)
        .stdout(&format!(
            "mem doctor: 4 problem(s) in 3 file(s) checked
  {JOURNAL} [duplicate-ids]: 1 exact duplicate line(s) (`bmad-mem doctor --dedupe {JOURNAL}` removes them, keeping the first)
  {PROMOTIONS} [duplicate-ids]: 1 id(s) with divergent versions, which a person must reconcile: pppppppppppp (lines 1, 2)
  {LESSONS} [conflict-markers]: merge conflict markers at line(s) 3: a merge was committed unresolved; keep the right version of each conflicting part and remove the markers
  {LESSONS} [duplicate-heading]: \"A\" heads 2 sections; observe cannot target it
  note: {JOURNAL} [out-of-order]: 1 record(s) older than a record before them (first at line 4); information only: a merge interleaves two clones' records, and no reader depends on their order
"
        ))
        .stderr("")
        .unchanged()
        .run();
}

#[test]
fn markers_in_a_registry_are_reported_as_such_not_as_unparseable_lines() {
    let a = event("09:00", "aaaaaaaaaaaa", "one");
    let ours = event("10:00", "bbbbbbbbbbbb", "ours");
    let theirs = event("10:00", "bbbbbbbbbbbb", "theirs");
    let ran = TestProject::new()
        .write(
            LEDGER,
            lines(&[
                &a,
                "<<<<<<< ours",
                &ours,
                "=======",
                &theirs,
                ">>>>>>> theirs",
                "{not json",
            ]),
        )
        .args(["doctor", "--json"])
        .code(1)
        .unchanged()
        .run();
    let report: Json = ran.json();
    assert_eq!(
        report["problems"],
        json!([
            {"file": LEDGER, "kind": "unparseable-lines", "message": "lines that are not JSON objects: 7"},
            {"file": LEDGER, "kind": "conflict-markers", "message": "merge conflict markers at line(s) 2: a merge was committed unresolved; keep the right version of each conflicting part and remove the markers"},
            {"file": LEDGER, "kind": "duplicate-ids", "message": "1 id(s) with divergent versions, which a person must reconcile: bbbbbbbbbbbb (lines 3, 5)"},
        ])
    );
}

#[test]
fn timestamps_out_of_order_are_information_only() {
    let a = event("09:00", "aaaaaaaaaaaa", "one");
    let c = event("08:00", "cccccccccccc", "earlier");
    let ran = TestProject::new()
        .write(JOURNAL, lines(&[&a, &c]))
        .args(["doctor"])
        .code(0)
        .stdout(&format!(
            "mem doctor: healthy (1 file(s) checked)
  note: {JOURNAL} [out-of-order]: 1 record(s) older than a record before them (first at line 2); information only: a merge interleaves two clones' records, and no reader depends on their order
"
        ))
        .run()
        .then()
        .args(["doctor", "--json"])
        .code(0)
        .run();
    let report: Json = ran.json();
    assert_eq!(report["healthy"], true);
    assert_eq!(report["notices"][0]["kind"], "out-of-order");
    // In order, the key is not there at all.
    let ran = ran
        .then()
        .write(JOURNAL, lines(&[&c, &a]))
        .args(["doctor", "--json"])
        .code(0)
        .run();
    let report: Json = ran.json();
    assert!(report.get("notices").is_none());
}

#[test]
fn dedupe_moves_the_exact_duplicates_aside_and_keeps_the_first_of_each() {
    let a = event("09:00", "aaaaaaaaaaaa", "one");
    let b = event("10:00", "bbbbbbbbbbbb", "two");
    let c = event("11:00", "cccccccccccc", "three");
    let aside = format!("{JOURNAL}.dupes-{STAMP}");
    let ran = TestProject::new()
        .write(JOURNAL, lines(&[&a, &b, &a, &c, &b, &a]))
        .args(["doctor", "--dedupe", JOURNAL])
        .code(0)
        .stdout(&format!(
            "mem doctor: moved 3 exact duplicate line(s) ({} bytes) from {JOURNAL} into {aside}; the first copy of each stays\n",
            2 * (a.len() + 1) + b.len() + 1
        ))
        .stderr("")
        .file(JOURNAL, lines(&[&a, &b, &c]))
        .file(&aside, lines(&[&a, &b, &a]))
        .run();
    // Again: nothing left to remove, which is a success.
    nothing_to_repair(
        ran.then(),
        "--dedupe",
        JOURNAL,
        &format!("{JOURNAL} has no exact duplicate line; nothing to remove."),
    )
    .args(["doctor"])
    .code(0)
    .run();
}

#[test]
fn dedupe_reports_in_json_too() {
    let a = event("09:00", "aaaaaaaaaaaa", "one");
    let ran = TestProject::new()
        .write(LEDGER, lines(&[&a, &a]))
        .args(["doctor", "--dedupe", LEDGER, "--json"])
        .code(0)
        .run();
    let report: Json = ran.json();
    assert_eq!(
        report,
        json!({
            "repaired": LEDGER,
            "keptAs": format!("{LEDGER}.dupes-{STAMP}"),
            "bytes": a.len() + 1,
            "lines": 1,
        })
    );
}

#[test]
fn dedupe_refuses_what_needs_a_person_and_changes_nothing() {
    let a = event("09:00", "aaaaaaaaaaaa", "one");
    let ours = event("10:00", "bbbbbbbbbbbb", "ours");
    let theirs = event("10:00", "bbbbbbbbbbbb", "theirs");
    let registries = format!(
        "--dedupe takes one of {JOURNAL}, {PROMOTIONS}, .bmad/memory/outcomes.ndjson, {LEDGER}, .bmad/records/reinforcements.ndjson"
    );
    let p = TestProject::new()
        .write(LESSONS, CONFLICTED)
        // Not a registry.
        .args(["doctor", "--dedupe", LESSONS])
        .refused("doctor", &registries)
        .args(["doctor", "--dedupe", ".bmad/memory/pattern-scores.json"])
        .refused("doctor", &registries)
        // Divergent versions of one record, with exact copies beside them.
        .write(PROMOTIONS, lines(&[&a, &ours, &a, &theirs]))
        .args(["doctor", "--dedupe", PROMOTIONS])
        .refused(
            "doctor",
            &format!(
                "{PROMOTIONS} holds different versions of the same record: bbbbbbbbbbbb (lines 2, 4); keep the right version of each by hand, then run `bmad-mem doctor --dedupe {PROMOTIONS}` again; nothing was changed."
            ),
        )
        // Conflict markers left by a merge.
        .write(
            JOURNAL,
            lines(&[&a, &a, "<<<<<<< ours", &ours, "=======", &theirs, ">>>>>>> theirs"]),
        )
        .args(["doctor", "--dedupe", JOURNAL])
        .refused(
            "doctor",
            &format!(
                "{JOURNAL} still holds merge conflict markers; resolve the conflict first, then run `bmad-mem doctor --dedupe {JOURNAL}` again; nothing was changed."
            ),
        )
;
    // A registry that is not there has nothing to remove.
    let _ = nothing_to_repair(
        p,
        "--dedupe",
        ".bmad/memory/outcomes.ndjson",
        ".bmad/memory/outcomes.ndjson has no exact duplicate line; nothing to remove.",
    );
}

#[test]
fn markers_in_the_scores_and_the_views_are_reported() {
    let markers = "<<<<<<< ours\n{}\n=======\n{}\n>>>>>>> theirs\n";
    let ran = TestProject::new()
        .write(".bmad/memory/pattern-scores.json", markers)
        .write(".bmad/memory/INDEX.md", format!("# Index\n{markers}"))
        .args(["doctor", "--json"])
        .code(1)
        .unchanged()
        .run();
    let report: Json = ran.json();
    let kinds: Vec<(&str, &str)> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["file"].as_str().unwrap(), p["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            (".bmad/memory/pattern-scores.json", "conflict-markers"),
            (".bmad/memory/pattern-scores.json", "unparseable"),
            // The views no longer say what their sources say, either.
            (".bmad/memory/CANDIDATES.md", "view-drift"),
            (".bmad/memory/INDEX.md", "view-drift"),
            (".bmad/memory/INDEX.md", "conflict-markers"),
        ]
    );
}
