//! The reinforcement records `reinforce` appends to `.bmad/records/reinforcements.ndjson`
//! (docs/FORMAT.md): one per update, each valid against `schemas/reinforcement.json`, silent on
//! success (the output stays bmad-plus's), the memory folder's files untouched; and a registry
//! that cannot take the record (full, torn, a link) warns and still updates the score.

use serde_json::{Value, json};

use crate::support::{NOW, PROMOTIONS, SCORES, TestProject, validate};

/// The records registry.
pub const RECORDS: &str = ".bmad/records/reinforcements.ndjson";

const PATTERN: &str = "Rate limit on auth routes";

/// The human result of the first `--accept true --ci pass` reinforcement of [`PATTERN`].
const FIRST: &str = "mem reinforce: pattern \"Rate limit on auth routes\"\n  \
                     reward   1.000 (from {\"acceptance\":true,\"ci\":\"pass\"})\n  \
                     elo      1200.0 -> 1216.0\n  \
                     mean     0.667 (alpha=2.00, beta=1.00, updates=1)\n  \
                     promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n";

/// The scores file after that first reinforcement.
const FIRST_SCORES: &str = "{\n  \"Rate limit on auth routes\": {\n    \"elo\": 1216,\n    \"alpha\": 2,\n    \
                            \"beta\": 1,\n    \"mean\": 0.6666666666666666,\n    \"updates\": 1,\n    \
                            \"lastTs\": \"2026-10-18T09:30:00.000Z\"\n  }\n}\n";

/// The records of `project`, each checked against its schema.
pub fn records(project: &TestProject) -> Vec<Value> {
    let text = String::from_utf8(project.read(RECORDS)).expect("UTF-8 records");
    assert!(text.ends_with('\n'), "{text}");
    text.lines()
        .map(|line| {
            let record: Value = serde_json::from_str(line).expect("a JSON line");
            if let Err(e) = validate::validate("reinforcement.json", &record) {
                panic!("{line}\ndoes not match schemas/reinforcement.json: {e}");
            }
            record
        })
        .collect()
}

fn args<'a>(rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["reinforce", "--pattern", PATTERN];
    args.extend_from_slice(rest);
    args
}

#[test]
fn every_update_is_recorded_beside_the_memory_and_the_output_stays_bmad_plus() {
    let project = TestProject::new()
        .fixture("example")
        .args(args(&[
            "--accept",
            "true",
            "--ci",
            "pass",
            "--evidence",
            "e1, ,e2",
        ]))
        .code(0)
        .stdout(FIRST)
        .stderr("")
        .file(SCORES, FIRST_SCORES)
        .absent(PROMOTIONS)
        .run()
        .then();
    // The memory folder holds what bmad-plus's reinforce leaves, nothing more.
    assert_eq!(
        project.names(".bmad/memory"),
        [
            "decisions.md",
            "journal.ndjson",
            "lessons.md",
            "pattern-scores.json",
        ]
    );
    assert_eq!(project.names(".bmad/records"), ["reinforcements.ndjson"]);
    let first = records(&project);
    assert_eq!(first.len(), 1);
    let record = &first[0];
    let keys: Vec<&str> = record
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "ts", "id", "pattern", "reward", "signals", "evidence", "before", "after"
        ]
    );
    assert_eq!(record["ts"], NOW);
    assert_eq!(record["pattern"], PATTERN);
    assert_eq!(record["reward"], 1);
    assert_eq!(record["signals"], json!({"acceptance": true, "ci": "pass"}));
    assert_eq!(record["evidence"], json!(["e1", "e2"]));
    assert_eq!(record["before"], Value::Null);
    let scores: Value = serde_json::from_str(FIRST_SCORES).unwrap();
    assert_eq!(record["after"], scores[PATTERN]);
    // Compact JSON, as the tool writes every registry line.
    let line = String::from_utf8(project.read(RECORDS)).unwrap();
    assert_eq!(
        line,
        format!("{}\n", serde_json::to_string(record).unwrap())
    );

    // A second update at a later time: its `before` is the first's `after`; the signals are
    // kept as normalised, and the evidence key left out when none is given.
    let later = "2026-10-20T09:30:00.000Z";
    let project = project
        .env("BMAD_MEM_NOW", later)
        .args(args(&["--eval", "0.250", "--accept", "0.5", "--json"]))
        .code(0)
        .run()
        .then();
    let both = records(&project);
    assert_eq!(both.len(), 2);
    assert_eq!(both[0], first[0], "the first record is never rewritten");
    let second = &both[1];
    assert_eq!(second["ts"], later);
    assert_eq!(second["signals"], json!({"eval": 0.25, "acceptance": 0.5}));
    assert!(second.get("evidence").is_none());
    assert_eq!(second["before"], first[0]["after"]);
    let scores: Value = serde_json::from_slice(&project.read(SCORES)).unwrap();
    assert_eq!(second["after"], scores[PATTERN]);
    assert_ne!(second["id"], first[0]["id"]);
}

#[test]
fn ids_differ_even_at_one_instant() {
    let mut project = TestProject::new().fixture("example");
    for _ in 0..3 {
        project = project
            .args(args(&["--accept", "true"]))
            .code(0)
            .run()
            .then();
    }
    let ids: Vec<Value> = records(&project).iter().map(|r| r["id"].clone()).collect();
    assert_eq!(ids.len(), 3);
    assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2]);
}

/// A records registry one byte short of taking another record.
fn full_registry() -> String {
    let line = format!("{{\"pad\":\"{}\"}}\n", "x".repeat(2 * 1024 * 1024 - 12));
    assert_eq!(line.len(), 2 * 1024 * 1024 - 1);
    line
}

#[test]
fn a_full_registry_warns_and_the_score_is_still_updated_as_bmad_plus_updates_it() {
    let full = full_registry();
    let warning = format!(
        "warning: the score of pattern \"{PATTERN}\" was updated, but {RECORDS} could not record the update (it is full); a merge of this pattern with a clone that also reinforced it will be a conflict — `bmad-mem archive reinforcements` makes room\n"
    );
    let project = TestProject::new()
        .fixture("example")
        .write(RECORDS, &full)
        .args(args(&["--accept", "true", "--ci", "pass"]))
        .code(0)
        .stdout(FIRST)
        .stderr(&warning)
        .file(SCORES, FIRST_SCORES)
        .file(RECORDS, &full)
        .run()
        .then();
    // Under --json the warning joins the result, as every warning of reinforce does.
    let ran = project
        .remove(SCORES)
        .args(args(&["--accept", "true", "--ci", "pass", "--json"]))
        .code(0)
        .stderr("")
        .file(SCORES, FIRST_SCORES)
        .file(RECORDS, &full)
        .run();
    let result: Value = ran.json();
    assert_eq!(result["warnings"], json!([warning.trim_end()]));
    // doctor says the registry is full and names the archive command.
    let ran = ran.then().args(["doctor"]).code(1).run();
    assert!(
        ran.stdout.contains(&format!("  {RECORDS} [at-cap]: "))
            || ran
                .stdout
                .contains(&format!("warning: {RECORDS} [near-cap]: ")),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("`bmad-mem archive reinforcements` moves all but the newest 1000 records into .bmad/records/archive/"),
        "{}",
        ran.stdout
    );
}

#[test]
fn a_torn_registry_warns_names_the_repair_and_is_never_written_after() {
    let torn = "{\"ts\":\"2026-10-18T09:00:00.000Z\",\"id\":\"abc";
    TestProject::new()
        .fixture("example")
        .write(RECORDS, torn)
        .args(args(&["--accept", "true", "--ci", "pass"]))
        .code(0)
        .stdout(FIRST)
        .stderr(&format!(
            "warning: the score of pattern \"{PATTERN}\" was updated, but {RECORDS} could not record the update (its last line is incomplete); a merge of this pattern with a clone that also reinforced it will be a conflict — `bmad-mem doctor --repair-tail {RECORDS}` keeps that line aside\n"
        ))
        .file(SCORES, FIRST_SCORES)
        .file(RECORDS, torn)
        .run();
}

#[test]
fn a_link_in_the_registrys_place_is_never_followed() {
    let project = TestProject::new().fixture("example");
    let outside = project.base().join("outside.ndjson");
    std::fs::write(&outside, "").unwrap();
    let ran = project
        .mkdir(".bmad/records")
        .symlink(&outside, RECORDS)
        .args(args(&["--accept", "true", "--ci", "pass"]))
        .code(0)
        .stdout(FIRST)
        .file(SCORES, FIRST_SCORES)
        .run();
    assert!(
        ran.stderr.contains(
            "could not record the update (Memory paths cannot follow symbolic links or junctions.)"
        ),
        "{}",
        ran.stderr
    );
    assert_eq!(std::fs::read(&outside).unwrap(), b"");
}

#[test]
fn a_refused_reinforcement_records_nothing() {
    let project = TestProject::new()
        .fixture("example")
        .write(PROMOTIONS, "{\"torn\"")
        .write(SCORES, FIRST_SCORES)
        .args(args(&["--accept", "true", "--ci", "pass"]))
        .env("BMAD_MEM_NOW", "2026-10-18T09:31:00.000Z")
        .run()
        .then();
    // The second update proposed nothing, so the torn promotions did not stop it: recorded.
    assert_eq!(records(&project).len(), 1);
    // The third is due a promotion the torn file cannot take: refused, nothing written, no
    // record either.
    let _ = project
        .args(args(&["--accept", "true", "--ci", "pass"]))
        .env("BMAD_MEM_NOW", "2026-10-18T09:32:00.000Z")
        .refused(
            "reinforce",
            "Memory store has an incomplete final line; inspect it before writing.",
        );
}

#[test]
fn a_run_killed_between_the_score_and_its_record_leaves_a_score_ahead_that_doctor_names() {
    let project = TestProject::new()
        .fixture("example")
        .args(args(&["--accept", "true", "--ci", "pass"]))
        .code(0)
        .run()
        .then();
    let first = project.read(RECORDS);
    // Killed after the score (and any promotion) is written, before the record: the one crash
    // state, the same as a bmad-plus writer's — never a record of an update that did not happen.
    let ran = project
        .env("BMAD_MEM_NOW", "2026-10-19T09:30:00.000Z")
        .env("BMAD_MEM_CRASH_AT", "reinforce-before-record")
        .args(args(&["--accept", "true", "--ci", "pass"]))
        .code(70)
        .stdout("")
        .file(RECORDS, &first)
        .run();
    let project = ran.then().env("BMAD_MEM_CRASH_AT", "");
    let scores: Value = serde_json::from_slice(&project.read(SCORES)).unwrap();
    assert_eq!(scores[PATTERN]["updates"], 2.0);
    let lock = project.read(".bmad/memory/writer.lock");
    let project = project
        .args([
            "lock",
            "--recover",
            "--expect",
            &bmad_mem::js::json::sha256_hex(&lock),
        ])
        .code(0)
        .run()
        .then();
    let ran = project.args(["doctor", "--json"]).code(0).run();
    let report: Value = ran.json();
    assert_eq!(
        report["warnings"][0]["kind"], "scores-unrecorded",
        "{report}"
    );
    // The next reinforcement is recorded on top of the score as it is: in step again.
    let project = ran
        .then()
        .env("BMAD_MEM_NOW", "2026-10-20T09:30:00.000Z")
        .args(args(&["--accept", "true"]))
        .code(0)
        .run()
        .then();
    let ran = project.args(["doctor", "--json"]).code(0).run();
    let report: Value = ran.json();
    assert!(report.get("warnings").is_none(), "{report}");
    assert_eq!(records(&ran.then()).len(), 2);
}
