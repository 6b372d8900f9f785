//! The decision lifecycle: `decision adopt`, `decision supersede`, `decision abrogate` and the
//! ledger `.bmad/memory/decisions.ndjson` they keep.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::process::Stdio;
use std::thread;
use std::time::Duration;

use bmad_mem::js::json::sha256_hex;

use crate::support::writers::holds_flock;
use crate::support::{LOCK, NOW, TestProject};

pub const LEDGER: &str = ".bmad/memory/decisions.ndjson";
pub const DECISIONS: &str = ".agents/memory/decisions.md";

/// Two decisions in the two spellings people write, and one already superseded.
pub const NOTES: &str = "# Decisions\n\n### Use Postgres\n**Date:** 2026-09-01\n**Status:** active\n**Decision:** one database for everything.\n\n### 2026-10-01 — Sessions in Redis\n- **Context**: session lookups dominated p95\n- **Status**: active\n- **Decision**: sessions live in Redis\n\n### Sessions in Postgres\n**Date:** 2026-08-01\n**Status:** superseded\n**Decision:** a sessions table.\n";

pub const PG: &str = "Use Postgres";
pub const REDIS: &str = "2026-10-01 — Sessions in Redis";
/// Who acts in these tests (`USER`; git's config is kept out by the test builder).
pub const ACTOR: &str = "ada";

/// docs: the first 12 hex digits of `sha256(ts + "\0" + heading + "\0" + event)`.
pub fn record_id(heading: &str, event: &str) -> String {
    sha256_hex(format!("{NOW}\0{heading}\0{event}").as_bytes())[..12].to_owned()
}

/// The digests of the three sections (rule 2): their trimmed text with the status value left
/// out — here their whole status lines, which hold nothing else.
pub fn digest(heading: &str) -> String {
    let text = match heading {
        PG => "Use Postgres\n**Date:** 2026-09-01\n**Decision:** one database for everything.",
        REDIS => {
            "2026-10-01 — Sessions in Redis\n- **Context**: session lookups dominated p95\n- **Decision**: sessions live in Redis"
        }
        _ => "Sessions in Postgres\n**Date:** 2026-08-01\n**Decision:** a sessions table.",
    };
    sha256_hex(text.as_bytes())
}

/// One ledger line, as the commands write it; `prev` is the event of the record before it.
pub fn line(
    event: &str,
    heading: &str,
    status: &str,
    prev: Option<&str>,
    by: Option<&str>,
    reason: Option<&str>,
) -> String {
    let text = |v: Option<&str>| v.map_or("null".to_owned(), |v| format!("\"{v}\""));
    format!(
        "{{\"ts\":\"{NOW}\",\"id\":\"{}\",\"event\":\"{event}\",\"heading\":\"{heading}\",\"file\":\"{DECISIONS}\",\"status\":\"{status}\",\"sha256\":\"{}\",\"digest\":2,\"prev\":{},\"actor\":\"{ACTOR}\",\"by\":{},\"reason\":{}}}\n",
        record_id(heading, event),
        digest(heading),
        text(prev.map(|event| record_id(heading, event)).as_deref()),
        text(by),
        text(reason)
    )
}

fn adopted() -> String {
    [
        line("adopt", PG, "active", None, None, None),
        line("adopt", REDIS, "active", None, None, None),
        line(
            "adopt",
            "Sessions in Postgres",
            "superseded",
            None,
            None,
            None,
        ),
    ]
    .concat()
}

/// A project whose runs act as [`ACTOR`].
pub fn project() -> TestProject {
    TestProject::new().env("USER", ACTOR).env("USERNAME", "")
}

/// A project with [`NOTES`], every decision adopted.
pub fn ledgered() -> TestProject {
    project()
        .write(DECISIONS, NOTES)
        .args(["decision", "adopt", "--all"])
        .code(0)
        .file(LEDGER, adopted())
        .run()
        .project
}

#[test]
fn adopt_records_decisions_as_they_stand_and_leaves_the_notes_alone() {
    let project = project()
        .write(DECISIONS, NOTES)
        .args(["decision", "adopt", PG])
        .code(0)
        .stdout(&format!(
            "mem decision: adopted 1 decision(s) into {LEDGER}\n  + {DECISIONS} § {PG} (active)\n"
        ))
        .file(LEDGER, line("adopt", PG, "active", None, None, None))
        .file(DECISIONS, NOTES)
        .run()
        .project;
    // Adopting again records nothing; --all adopts the rest.
    project
        .args(["decision", "adopt", PG])
        .code(0)
        .stdout(&format!(
            "mem decision: adopted 0 decision(s) into {LEDGER}\n  = {DECISIONS} § {PG}: already ledgered\n"
        ))
        .run()
        .project
        .args(["decision", "adopt", "--all"])
        .code(0)
        .file(LEDGER, adopted())
        .file(DECISIONS, NOTES)
        .run();
}

#[test]
fn supersede_rewrites_one_status_line_in_its_own_spelling_and_records_both() {
    let project = ledgered()
        .args([
            "decision",
            "supersede",
            PG,
            "--successor",
            REDIS,
            "--reason",
            "faster",
        ])
        .code(0)
        .stdout(&format!(
            "mem decision: \"{PG}\" is now \"superseded by {REDIS}\" in {DECISIONS}; ledger record(s) {}, {}\n",
            record_id(PG, "supersede"),
            record_id(REDIS, "succeed")
        ))
        .file(
            DECISIONS,
            NOTES.replacen(
                "**Status:** active",
                &format!("**Status:** superseded by {REDIS}"),
                1,
            ),
        )
        .file(
            LEDGER,
            adopted()
                + &line(
                    "supersede",
                    PG,
                    "superseded",
                    Some("adopt"),
                    Some(REDIS),
                    Some("faster"),
                )
                + &line("succeed", REDIS, "active", Some("adopt"), None, Some("faster")),
        )
        .run()
        .project;
    assert_eq!(project.names(".agents/memory"), ["decisions.md"]);
    // The other spelling keeps its own: `- **Status**: abrogated`.
    ledgered()
        .args(["--json", "decision", "abrogate", REDIS, "--reason", "Redis is gone"])
        .code(0)
        .stdout(&format!(
            "{{\n  \"event\": \"abrogate\",\n  \"file\": \"{DECISIONS}\",\n  \"heading\": \"{REDIS}\",\n  \"status\": \"abrogated\",\n  \"completed\": false,\n  \"recorded\": [\n    {{\n      \"ts\": \"{NOW}\",\n      \"id\": \"{}\",\n      \"event\": \"abrogate\",\n      \"heading\": \"{REDIS}\",\n      \"file\": \"{DECISIONS}\",\n      \"status\": \"abrogated\",\n      \"sha256\": \"{}\",\n      \"digest\": 2,\n      \"prev\": \"{}\",\n      \"actor\": \"{ACTOR}\",\n      \"by\": null,\n      \"reason\": \"Redis is gone\"\n    }}\n  ],\n  \"predecessors\": []\n}}\n",
            record_id(REDIS, "abrogate"),
            digest(REDIS),
            record_id(REDIS, "adopt")
        ))
        .file(
            DECISIONS,
            NOTES.replacen("- **Status**: active", "- **Status**: abrogated", 1),
        )
        .file(
            LEDGER,
            adopted()
                + &line(
                    "abrogate",
                    REDIS,
                    "abrogated",
                    Some("adopt"),
                    None,
                    Some("Redis is gone"),
                ),
        )
        .run();
}

#[test]
fn refusals_name_the_reason_and_change_nothing() {
    let project = ledgered();
    let sup = |old: &str, new: &str| {
        vec![
            "decision".to_owned(),
            "supersede".to_owned(),
            old.to_owned(),
            "--successor".to_owned(),
            new.to_owned(),
        ]
    };
    let _ = project
        .args(sup("Sessions in Postgres", REDIS))
        .refused(
            "decision",
            "\"Sessions in Postgres\" is not active (superseded); only an active decision can be superseded or abrogated",
        )
        .args(sup("Use MySQL", REDIS))
        .refused(
            "decision",
            "no decision is headed \"Use MySQL\" in .bmad/memory/decisions.md or .agents/memory/decisions.md",
        )
        .args(sup(PG, PG))
        .refused(
            "decision",
            "\"Use Postgres\" cannot supersede itself: the successor must be another decision",
        )
        .args(sup(PG, "Sessions in Postgres"))
        .refused(
            "decision",
            "the successor \"Sessions in Postgres\" is not active (superseded); a decision can only be superseded by one in force",
        )
        .args(["decision", "abrogate", PG])
        .refused("decision", "--reason <text> is required")
        .args(["decision", "abrogate", PG, "--reason", " "])
        .refused(
            "decision",
            "--reason must be non-empty text of at most 2000 characters",
        )
        .args(["decision", "adopt"])
        .refused(
            "decision",
            "name the decisions to adopt by their headings, or give --all",
        )
        // A missing or unknown lifecycle command names the lifecycle commands, not the actions.
        .args(["decision"])
        .refused(
            "decision",
            "missing action — expected adopt | accept | reject | supersede | abrogate",
        )
        .args(["decision", "retire", PG])
        .refused(
            "decision",
            "unknown action 'retire' — expected adopt | accept | reject | supersede | abrogate",
        )
        // The same heading in both decision files names two decisions.
        .write(
            ".bmad/memory/decisions.md",
            "### Use Postgres\n**Status:** active\n",
        )
        .args(sup(PG, REDIS))
        .refused(
            "decision",
            "\"Use Postgres\" heads 2 decisions (.bmad/memory/decisions.md:1, .agents/memory/decisions.md:3); rename one so that the heading names exactly one",
        );
}

#[test]
fn only_a_ledgered_decision_can_end_and_nothing_is_created_by_a_refusal() {
    let _ = project()
        .write(DECISIONS, NOTES)
        .args(["decision", "supersede", PG, "--successor", REDIS])
        .refused(
            "decision",
            "\"Use Postgres\" is not ledgered; `bmad-mem decision adopt \"Use Postgres\"` records it first",
        )
        .args(["decision", "supersede", "nothing", "--successor", REDIS])
        .absent(".bmad")
        .refused(
            "decision",
            "no decision is headed \"nothing\" in .bmad/memory/decisions.md or .agents/memory/decisions.md",
        );
}

#[test]
fn a_supersede_that_would_close_a_cycle_is_refused() {
    // Postgres is superseded by Redis, then a person sets its line back to active by hand:
    // superseding Redis by Postgres would close the loop the ledger already holds.
    let project = ledgered()
        .args(["decision", "supersede", PG, "--successor", REDIS])
        .code(0)
        .run()
        .project
        .write(DECISIONS, NOTES);
    let _ = project
        .args(["decision", "supersede", REDIS, "--successor", PG])
        .refused(
            "decision",
            &format!(
                "superseding \"{REDIS}\" by \"{PG}\" would make a cycle: \"{PG}\" ({DECISIONS}:3) → \"{REDIS}\" ({DECISIONS}:8)"
            ),
        );
}

#[test]
fn a_person_editing_the_file_between_read_and_write_makes_it_refuse() {
    let project = ledgered();
    let ledger = project.read(LEDGER);
    // Someone else holds the writer lock, so the command reads the notes and then waits.
    let foreign = format!(
        "{{\"pid\":{},\"hostname\":\"{}\",\"token\":\"t\"}}",
        std::process::id(),
        crate::support::writers::host()
    );
    let project = project.write(LOCK, &foreign);
    let memory_ino = fs::metadata(project.path(".bmad/memory")).unwrap().ino();
    let mut child = project
        .command()
        .args(["decision", "supersede", PG, "--successor", REDIS])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut waiting = false;
    while child.try_wait().expect("try_wait").is_none() {
        if holds_flock(child.id(), memory_ino) {
            waiting = true;
            break;
        }
        thread::sleep(Duration::from_millis(1));
    }
    assert!(waiting, "never queued: {:?}", child.wait_with_output());
    // The person's edit lands while the command waits; then the lock is released.
    let edited = NOTES.replace("one database for everything", "one database, mostly");
    fs::write(project.path(DECISIONS), &edited).unwrap();
    fs::remove_file(project.path(LOCK)).unwrap();
    let output = child.wait_with_output().expect("wait");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!(
            "mem decision: {DECISIONS} changed while decisions were being superseded; nothing written. Run the command again.\n"
        )
    );
    assert_eq!(project.read_text(DECISIONS), edited);
    assert_eq!(project.read(LEDGER), ledger);
    assert_eq!(project.names(".agents/memory"), ["decisions.md"]);
}

/// A crash after the ledger append and before the file's rename (injected with the crash
/// tests' hook) leaves the records without the flip, and never the flip without its records.
/// `lint` names that state and its fix; after the dead writer's lock is recovered, the fix
/// completes the flip without a second record, ending exactly where an uninterrupted run ends.
#[test]
fn a_crash_between_the_ledger_and_the_file_is_named_by_lint_and_completed_by_a_rerun() {
    let args = ["decision", "supersede", PG, "--by", REDIS];
    let finished = ledgered().args(args).code(0).run().project;
    let ran = ledgered()
        .args(args)
        .env("BMAD_MEM_CRASH_AT", "decision-after-ledger")
        .code(70)
        .stdout("")
        .file(DECISIONS, NOTES)
        .file(LEDGER, finished.read(LEDGER))
        .run();
    let project = ran.then().env("BMAD_MEM_CRASH_AT", "");
    let sha = sha256_hex(&project.read(LOCK));
    let project = project
        .args(["lock", "--recover", "--expect", &sha])
        .code(0)
        .run()
        .then();
    let ran = project.args(["lint", "--json"]).code(1).run();
    let report: serde_json::Value = ran.json();
    let errors: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{report:#}");
    assert_eq!(errors[0]["check"], "ledger-status");
    assert_eq!(errors[0]["heading"], PG);
    assert_eq!(
        errors[0]["message"],
        format!(
            "the ledger says superseded by \"{REDIS}\" but the file says active: the change was interrupted before the file was rewritten"
        )
    );
    assert_eq!(
        errors[0]["proposal"],
        format!("`bmad-mem decision supersede \"{PG}\" --successor \"{REDIS}\"` completes it")
    );
    ran.then()
        .args(args)
        .code(0)
        .stdout(&format!(
            "mem decision: completed an interrupted change: \"{PG}\" is now \"superseded by {REDIS}\" in {DECISIONS} (its ledger records were already there)\n"
        ))
        .file(DECISIONS, finished.read(DECISIONS))
        .file(LEDGER, finished.read(LEDGER))
        .run()
        .project
        .args(["lint"])
        .code(0)
        .run();
}

#[test]
fn adopting_nothing_new_creates_nothing() {
    let notes = "### A\n**Status:** active\n### A\n**Status:** active\n### B\n- **Status**: TBD\n";
    let _ = project()
        .write(DECISIONS, notes)
        .args(["decision", "adopt", "--all"])
        .code(0)
        .stdout(&format!(
            "mem decision: adopted 0 decision(s) into {LEDGER}\n  = {DECISIONS} § A: the heading heads 2 sections of the file\n  = {DECISIONS} § B: its status value is not one of active, superseded, abrogated, rolled-back, proposed, rejected, deprecated\n"
        ))
        .unchanged()
        .run();
    let _ = ledgered()
        .args(["decision", "adopt", PG, REDIS])
        .code(0)
        .unchanged()
        .run();
}

/// `project` with the decision "Use Postgres for the ledger" proposed: its candidate id and
/// digest.
pub fn proposed_decision(project: TestProject) -> (TestProject, String, String) {
    let ran = project
        .args([
            "--json",
            "propose",
            "--type",
            "decision",
            "--title",
            "Use Postgres for the ledger",
            "--body",
            "One database.",
        ])
        .code(0)
        .run();
    let proposed: serde_json::Value = ran.json();
    let (id, sha) = (
        proposed["id"].as_str().unwrap().to_owned(),
        proposed["sha256"].as_str().unwrap().to_owned(),
    );
    (ran.then(), id, sha)
}

/// A decision admitted through `admit` is ledgered (event `admit`), so it can be superseded at
/// once and an edit of its text is caught.
#[test]
fn an_admitted_decision_is_ledgered() {
    let (project, id, sha) = proposed_decision(TestProject::new());
    let project = project
        .args(["admit", &id, "--expect", &sha])
        .env("USER", "bob")
        .code(0)
        .run()
        .then();
    let notes = project.read_text(DECISIONS);
    let all = bmad_mem::store::sections::sections(&notes);
    // A new decisions file takes the style of init's template: the day in the heading.
    let heading = "2026-10-18 — Use Postgres for the ledger";
    let section = all.iter().find(|s| s.heading == heading).unwrap();
    let without_status = section.trimmed_text().replace("- **Status**: active\n", "");
    assert_eq!(
        project.read_text(LEDGER),
        format!(
            "{{\"ts\":\"{NOW}\",\"id\":\"{}\",\"event\":\"admit\",\"heading\":\"{heading}\",\"file\":\"{DECISIONS}\",\"status\":\"active\",\"sha256\":\"{}\",\"digest\":2,\"prev\":null,\"actor\":\"bob\",\"by\":null,\"reason\":null}}\n",
            record_id(heading, "admit"),
            sha256_hex(without_status.as_bytes())
        )
    );
    let _ = project
        .args([
            "decision",
            "abrogate",
            heading,
            "--reason",
            "one store is enough",
        ])
        .code(0)
        .run();
}

#[test]
fn a_flip_keeps_the_entry_index_current() {
    // Once the entry views exist, the index shows each decision's status: a flip that left it
    // as it was made doctor report drift after an ordinary command.
    let project = ledgered()
        .args(["doctor", "--rebuild-views"])
        .code(0)
        .run()
        .then()
        .args([
            "decision",
            "abrogate",
            PG,
            "--reason",
            "one database is enough",
        ])
        .code(0)
        .run()
        .then();
    let index = project.read_text(".bmad/memory/INDEX.md");
    assert!(
        index.contains("| Use Postgres | decision | abrogated | .agents/memory/decisions.md |"),
        "{index}"
    );
    let _ = project.args(["doctor"]).code(0).run();
    // Without the views, a flip creates none.
    let project = ledgered()
        .args(["decision", "abrogate", PG, "--reason", "r"])
        .code(0)
        .run()
        .then();
    assert!(!project.path(".bmad/memory/INDEX.md").exists());
}

#[test]
fn a_decision_is_named_without_its_date_in_any_case_and_with_a_dash() {
    for name in [
        "sessions in redis",
        "2026-10-01 - Sessions in Redis",
        "SESSIONS-IN-REDIS",
    ] {
        let _ = ledgered()
            .args(["decision", "abrogate", name, "--reason", "gone"])
            .code(0)
            .stdout(&format!(
                "mem decision: \"{REDIS}\" is now \"abrogated\" in {DECISIONS}; ledger record(s) {}\n",
                record_id(REDIS, "abrogate")
            ))
            .file(
                DECISIONS,
                NOTES.replacen("- **Status**: active", "- **Status**: abrogated", 1),
            )
            .run();
    }
}

#[test]
fn an_ambiguous_name_lists_the_candidates_and_a_near_miss_says_did_you_mean() {
    let notes = "### 2026-01-01 — Use Postgres\n**Status:** active\n### 2026-02-01 — Use Postgres\n**Status:** active\n### Sessions in Redis\n**Status:** active\n";
    let _ = project()
        .write(DECISIONS, notes)
        .args(["decision", "adopt", "use postgres"])
        .refused(
            "decision",
            &format!(
                "\"use postgres\" could name 2 decisions: \"2026-01-01 — Use Postgres\" ({DECISIONS}:1), \"2026-02-01 — Use Postgres\" ({DECISIONS}:3); give the whole heading"
            ),
        )
        .args(["decision", "adopt", "Sesions in Redis"])
        .refused(
            "decision",
            "no decision is headed \"Sesions in Redis\" in .bmad/memory/decisions.md or .agents/memory/decisions.md; did you mean \"Sessions in Redis\"?",
        )
        .args(["decision", "adopt", "Postgres"])
        .refused(
            "decision",
            "no decision is headed \"Postgres\" in .bmad/memory/decisions.md or .agents/memory/decisions.md; did you mean \"2026-01-01 — Use Postgres\" or \"2026-02-01 — Use Postgres\"?",
        )
        .args(["decision", "adopt", "2026-02-01 — Use Postgres"])
        .code(0)
        .run();
}

/// Proposed and draft decisions, as ADR folders hold them.
const PROPOSALS: &str = "### Use Kafka\n**Status:** Proposed\n**Decision:** events go through Kafka.\n\n### Use GraphQL\n- **Status**: draft (needs a spike)\n- **Decision**: one GraphQL gateway.\n\n### Use REST\n**Status:** accepted\n";

#[test]
fn adopt_all_ledgers_proposed_and_draft_decisions_with_their_status() {
    let ran = project()
        .write(DECISIONS, PROPOSALS)
        .args(["decision", "adopt", "--all"])
        .code(0)
        .stdout(&format!(
            "mem decision: adopted 3 decision(s) into {LEDGER}\n  + {DECISIONS} § Use Kafka (proposed)\n  + {DECISIONS} § Use GraphQL (proposed)\n  + {DECISIONS} § Use REST (active)\n"
        ))
        .file(DECISIONS, PROPOSALS)
        .run();
    let ledger = ran.project.read_text(LEDGER);
    let statuses: Vec<serde_json::Value> = ledger
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["status"].clone())
        .collect();
    assert_eq!(statuses, ["proposed", "proposed", "active"]);
    let _ = ran.then().args(["lint"]).code(0).run();
}

#[test]
fn accept_and_reject_decide_a_proposal_adopting_it_first() {
    let kafka = "Use Kafka";
    let sha = |text: &str| sha256_hex(text.as_bytes());
    let kafka_digest = sha("Use Kafka\n**Decision:** events go through Kafka.");
    let id = |event: &str| record_id(kafka, event);
    let accepted = PROPOSALS.replacen("**Status:** Proposed", "**Status:** active", 1);
    let ran = project()
        .write(DECISIONS, PROPOSALS)
        .args(["decision", "accept", kafka, "--actor", "Grace  Hopper"])
        .code(0)
        .stdout(&format!(
            "mem decision: \"{kafka}\" is now \"active\" in {DECISIONS}; ledger record(s) {}, {}\n",
            id("adopt"),
            id("accept")
        ))
        .file(DECISIONS, &accepted)
        .file(
            LEDGER,
            format!(
                "{{\"ts\":\"{NOW}\",\"id\":\"{}\",\"event\":\"adopt\",\"heading\":\"{kafka}\",\"file\":\"{DECISIONS}\",\"status\":\"proposed\",\"sha256\":\"{kafka_digest}\",\"digest\":2,\"prev\":null,\"actor\":\"Grace Hopper\",\"by\":null,\"reason\":null}}\n{{\"ts\":\"{NOW}\",\"id\":\"{}\",\"event\":\"accept\",\"heading\":\"{kafka}\",\"file\":\"{DECISIONS}\",\"status\":\"active\",\"sha256\":\"{kafka_digest}\",\"digest\":2,\"prev\":\"{}\",\"actor\":\"Grace Hopper\",\"by\":null,\"reason\":null}}\n",
                id("adopt"),
                id("accept"),
                id("adopt")
            ),
        )
        .run();
    // An accepted decision is not proposed any more; the other proposal is rejected, its note
    // kept after the status word.
    let project = ran
        .then()
        .args(["decision", "accept", kafka])
        .refused(
            "decision",
            "\"Use Kafka\" is not proposed (active); only a proposed or draft decision can be accepted or rejected",
        )
        .args(["decision", "reject", "use graphql", "--reason", "REST is enough"])
        .code(0)
        .run()
        .then();
    let notes = project.read_text(DECISIONS);
    assert!(
        notes.contains("- **Status**: rejected (needs a spike)\n"),
        "{notes}"
    );
    let (_, report) = crate::admin::lint::lint(project, &[], 0);
    assert!(
        report.findings.iter().all(|f| f.check == "format"),
        "{report:#?}"
    );
}

#[test]
fn abrogating_a_successor_leaves_its_predecessor_superseded_and_lint_clean() {
    let project = ledgered()
        .args(["decision", "supersede", PG, "--successor", REDIS])
        .code(0)
        .run()
        .then();
    let superseded = project.read_text(DECISIONS);
    let project = project
        .args(["decision", "abrogate", REDIS, "--reason", "no sessions any more"])
        .code(0)
        .stdout(&format!(
            "mem decision: \"{REDIS}\" is now \"abrogated\" in {DECISIONS}; ledger record(s) {}\n  = {DECISIONS} § {PG} stays superseded (by \"{REDIS}\", now abrogated)\n",
            record_id(REDIS, "abrogate")
        ))
        .file(
            DECISIONS,
            superseded.replacen("- **Status**: active", "- **Status**: abrogated", 1),
        )
        .run()
        .then();
    let _ = project
        .args(["lint"])
        .code(0)
        .stdout("mem lint: no findings (2 file(s) checked)\n")
        .run();
}

#[test]
fn supersede_keeps_by_as_a_hidden_alias_of_successor() {
    let _ = ledgered()
        .args(["decision", "supersede", PG, "--by", REDIS])
        .code(0)
        .run();
    let ran = project()
        .args(["decision", "supersede", "--help"])
        .code(0)
        .run();
    assert!(
        ran.stdout.contains("--successor <heading>"),
        "{}",
        ran.stdout
    );
    assert!(!ran.stdout.contains("--by"), "{}", ran.stdout);
    let _ = project().args(["decision", "supersede", PG]).code(1).run();
}

/// A cycle that the status lines already hold is named with each decision's file and line.
#[test]
fn a_cycle_of_superseded_by_is_named_with_files_and_lines() {
    let notes = "### A\n**Status:** active\n### B\n**Status:** active\n";
    let project = project()
        .write(DECISIONS, notes)
        .args(["decision", "adopt", "--all"])
        .code(0)
        .run()
        .then()
        .args(["decision", "supersede", "A", "--successor", "B"])
        .code(0)
        .run()
        .then();
    // By hand: A active again; superseding B by A closes the loop B → A → B.
    let _ = project
        .write(DECISIONS, notes)
        .args(["decision", "supersede", "B", "--successor", "A"])
        .refused(
            "decision",
            &format!(
                "superseding \"B\" by \"A\" would make a cycle: \"A\" ({DECISIONS}:1) → \"B\" ({DECISIONS}:3)"
            ),
        );
}

/// A status line that carries a note after its status: an abrogate keeps the note (and the
/// digest); a supersede, whose successor would swallow the note, rewrites the whole value and
/// records the digest of the text it leaves. `lint` is clean after both.
#[test]
fn a_note_on_the_status_line_is_kept_or_replaced_and_lint_agrees() {
    let notes = "### A\n**Status:** active (since the 2026 audit)\n### B\n**Status:** active\n### C\n**Status:** active — see the audit\n";
    let ended = project()
        .write(DECISIONS, notes)
        .args(["decision", "adopt", "--all"])
        .code(0)
        .run()
        .then()
        .args(["decision", "abrogate", "A", "--reason", "r"])
        .code(0)
        .run()
        .then()
        .args(["decision", "supersede", "C", "--successor", "B"])
        .code(0)
        .run()
        .then();
    assert_eq!(
        ended.read_text(DECISIONS),
        "### A\n**Status:** abrogated (since the 2026 audit)\n### B\n**Status:** active\n### C\n**Status:** superseded by B\n"
    );
    let (_, report) = crate::admin::lint::lint(ended, &[], 0);
    assert!(
        report.findings.iter().all(|f| f.check == "format"),
        "{report:#?}"
    );
    // A proposal accepted by hand is a disagreement the commands name, not a change to make.
    let _ = project()
        .write(DECISIONS, "### K\n**Status:** proposed\n")
        .args(["decision", "adopt", "K"])
        .code(0)
        .run()
        .then()
        .write(DECISIONS, "### K\n**Status:** active\n")
        .args(["decision", "abrogate", "K", "--reason", "r"])
        .refused(
            "decision",
            &format!(
                "the ledger says \"K\" is proposed while {DECISIONS} says active; `bmad-mem lint` names the disagreement and its fix"
            ),
        );
}

/// Records in the layouts of ADR folders (a `## Status` heading with its value below, the
/// corpus's emoji): the decision commands find the value where the reader does and rewrite it
/// alone, and lint, brief and status then agree.
#[test]
fn a_status_under_a_status_heading_is_rewritten_in_place() {
    let notes = "# Decisions\n\n### 2026-01-01 — Use Postgres\n## Status\n\nAccepted\n\n## Context\n\nWe need a database.\n\n### 2026-02-01 — Use CockroachDB\n#### Status\n\n✅ Accepted\n\n#### Context\n\nScale.\n";
    let ran = TestProject::new()
        .write(DECISIONS, notes)
        .env("BMAD_MEM_NOW", NOW)
        .args(["decision", "adopt", "--all"])
        .code(0)
        .run()
        .then()
        .args([
            "decision",
            "supersede",
            "2026-01-01 — Use Postgres",
            "--by",
            "2026-02-01 — Use CockroachDB",
        ])
        .code(0)
        .file(
            DECISIONS,
            notes.replacen(
                "## Status\n\nAccepted\n",
                "## Status\n\nsuperseded by 2026-02-01 — Use CockroachDB\n",
                1,
            ),
        )
        .run()
        .then()
        .args(["lint"])
        .code(0)
        .stdout("mem lint: no findings (2 file(s) checked)\n")
        .run()
        .then()
        .args(["--json", "status"])
        .code(0)
        .run();
    let status: serde_json::Value = ran.json();
    assert_eq!(status["notes"][0]["active"], 1);
    assert_eq!(status["notes"][0]["mayBeInForce"], 0);
}
