//! The decision ledger as evidence: who acted, the digest that covers all but the status value,
//! the chain of records each naming its predecessor, records written before those keys, and
//! two clones' changes to one decision after a merge.

use std::fmt::Write as _;
use std::process::Command;

use bmad_mem::js::json::sha256_hex;

use crate::actions::decisions::{
    ACTOR, DECISIONS, LEDGER, NOTES, PG, REDIS, ledgered, project, proposed_decision, record_id,
};
use crate::admin::lint::{Lint, lint};
use crate::support::{NOW, TestProject};

/// The lines of `text` that `keep` keeps, each with its `\n`.
fn lines_where(text: &str, keep: impl Fn(&str) -> bool) -> String {
    let mut out = String::new();
    for line in text.lines().filter(|l| keep(l)) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The checks and messages of the errors `lint` found.
fn errors(report: &Lint) -> Vec<(String, String)> {
    report
        .findings
        .iter()
        .filter(|f| f.severity == "error")
        .map(|f| (f.check.clone(), f.message.clone()))
        .collect()
}

/// The `actor` of each ledger record.
fn actors(project: &TestProject) -> Vec<String> {
    project
        .read_text(LEDGER)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["actor"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn who_acts_is_actor_else_git_else_user_else_username_else_unknown() {
    let adopt = |project: TestProject| {
        project
            .write(DECISIONS, NOTES)
            .args(["decision", "adopt", PG])
            .code(0)
            .run()
            .then()
    };
    let given = project()
        .write(DECISIONS, NOTES)
        .args(["decision", "adopt", PG, "--actor", " Grace\n Hopper "])
        .code(0)
        .run()
        .then();
    assert_eq!(actors(&given), ["Grace Hopper"]);
    let _ = given
        .args(["decision", "adopt", REDIS, "--actor", " "])
        .refused(
            "decision",
            "--actor must be a non-empty name of at most 200 characters",
        );
    // git's user.name in the project, before USER.
    let repo = project();
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(args)
            .current_dir(repo.path(""))
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .expect("git runs");
        assert!(status.success());
    };
    git(&["init", "-q"]);
    git(&["config", "user.name", "Linus"]);
    assert_eq!(actors(&adopt(repo)), ["Linus"]);
    assert_eq!(actors(&adopt(project())), [ACTOR]);
    assert_eq!(
        actors(&adopt(
            TestProject::new().env("USER", "").env("USERNAME", "win")
        )),
        ["win"]
    );
    assert_eq!(
        actors(&adopt(
            TestProject::new().env("USER", "").env("USERNAME", "")
        )),
        ["unknown"]
    );
}

#[test]
fn admit_takes_actor_and_keeps_by_as_its_alias() {
    for flag in ["--actor", "--by"] {
        let (project, id, sha) = proposed_decision(project());
        let project = project
            .args(["admit", &id, "--expect", &sha, flag, "Ada L."])
            .code(0)
            .run()
            .then();
        assert!(
            project
                .read_text(DECISIONS)
                .contains("- **Admitted-by**: Ada L. (")
        );
        assert_eq!(actors(&project), ["Ada L."]);
    }
}

/// The first bypass: the status set back to proposed by hand and the body rewritten. The ledger
/// says active; `lint` reports the disagreement and the edit.
#[test]
fn a_status_set_to_proposed_by_hand_and_a_new_body_are_errors() {
    for status in ["proposed", "draft"] {
        let forged = NOTES
            .replacen("**Status:** active", &format!("**Status:** {status}"), 1)
            .replace("one database for everything", "two databases");
        let (_, report) = lint(ledgered().write(DECISIONS, &forged), &[], 1);
        assert_eq!(
            errors(&report),
            [
                (
                    "decision-edited".to_owned(),
                    "decision body edited; supersede it instead".to_owned()
                ),
                (
                    "ledger-status".to_owned(),
                    "the file says proposed but the ledger says active: the status line was changed by hand".to_owned()
                ),
            ],
            "{status}"
        );
    }
}

/// The second bypass: a status the reader cannot place.
#[test]
fn an_unreadable_status_of_a_ledgered_decision_is_an_error() {
    for value in ["in force", "TBD"] {
        let forged = NOTES.replacen("**Status:** active", &format!("**Status:** {value}"), 1);
        let (_, report) = lint(ledgered().write(DECISIONS, &forged), &[], 1);
        assert_eq!(
            errors(&report),
            [(
                "ledger-status".to_owned(),
                format!(
                    "the file's status \"{value}\" is not one bmad-mem reads, while the ledger says active"
                )
            )]
        );
    }
}

/// The third bypass: text appended to the status line, which rule 1 left out of the digest.
#[test]
fn text_added_to_the_status_line_is_an_edit() {
    let forged = NOTES.replacen(
        "**Status:** active",
        "**Status:** active — REVISED: 30-day tokens",
        1,
    );
    let (_, report) = lint(ledgered().write(DECISIONS, &forged), &[], 1);
    assert_eq!(
        errors(&report),
        [(
            "decision-edited".to_owned(),
            "decision body edited; supersede it instead".to_owned()
        )]
    );
}

/// The fourth bypass: a second adopt appended by hand, to re-base the digest on an edited text.
#[test]
fn a_forged_second_adopt_is_an_error_naming_both_records() {
    let project = ledgered();
    let edited = NOTES.replace("one database for everything", "two databases");
    let forged = project
        .write(DECISIONS, &edited)
        .remove(LEDGER)
        .args(["decision", "adopt", PG])
        .env("BMAD_MEM_NOW", "2026-10-19T09:30:00.000Z")
        .code(0)
        .run()
        .then();
    let second = forged.read_text(LEDGER);
    let project = ledgered().write(DECISIONS, &edited).append(LEDGER, &second);
    let (_, report) = lint(project, &[], 1);
    let second_id = &second[second.find("\"id\":\"").unwrap() + 6..][..12];
    assert_eq!(
        errors(&report),
        [(
            "ledger-chain".to_owned(),
            format!(
                "{} (line 1, adopt) and {second_id} (line 4, adopt) both start this decision's records: a second adopt of a ledgered decision",
                record_id(PG, "adopt")
            )
        )]
    );
    let finding = report
        .findings
        .iter()
        .find(|f| f.check == "ledger-chain")
        .unwrap();
    assert_eq!(
        (
            finding.file.as_str(),
            finding.line,
            finding.heading.as_deref()
        ),
        (LEDGER, Some(4), Some(PG))
    );
    // The same forgery in the format of older records is caught too.
    let legacy = second
        .replace(",\"digest\":2,\"prev\":null", "")
        .replace(&format!(",\"actor\":\"{ACTOR}\""), "");
    let (_, report) = lint(
        ledgered().write(DECISIONS, &edited).append(LEDGER, &legacy),
        &[],
        1,
    );
    assert_eq!(errors(&report).len(), 1, "{report:#?}");
}

#[test]
fn an_ended_decision_is_immutable_too() {
    let project = ledgered()
        .args(["decision", "abrogate", PG, "--reason", "r"])
        .code(0)
        .run()
        .then();
    let edited = project
        .read_text(DECISIONS)
        .replace("one database for everything", "two databases");
    let (_, report) = lint(project.write(DECISIONS, &edited), &[], 1);
    assert_eq!(
        errors(&report),
        [(
            "decision-edited".to_owned(),
            "decision body edited after it ended (abrogated); an ended decision stands as it was"
                .to_owned()
        )]
    );
}

/// A ledger of records without `digest`, `prev` and `actor`, as earlier versions wrote it.
fn legacy_ledger() -> String {
    let rule_1 = |heading: &str| {
        let text = match heading {
            PG => "Use Postgres\n**Date:** 2026-09-01\n**Decision:** one database for everything.",
            _ => {
                "2026-10-01 — Sessions in Redis\n- **Context**: session lookups dominated p95\n- **Decision**: sessions live in Redis"
            }
        };
        sha256_hex(text.as_bytes())
    };
    let mut out = String::new();
    for heading in [PG, REDIS] {
        let _ = writeln!(
            out,
            "{{\"ts\":\"{NOW}\",\"id\":\"{}\",\"event\":\"adopt\",\"heading\":\"{heading}\",\"file\":\"{DECISIONS}\",\"status\":\"active\",\"sha256\":\"{}\",\"by\":null,\"reason\":null}}",
            record_id(heading, "adopt"),
            rule_1(heading)
        );
    }
    out
}

#[test]
fn records_written_before_are_checked_by_their_own_rule_and_new_ones_chain_on_them() {
    let old = project()
        .write(DECISIONS, NOTES)
        .write(LEDGER, legacy_ledger());
    let (old, report) = lint(old, &[], 0);
    assert!(report.findings.is_empty(), "{report:#?}");
    // Rule 1 leaves the whole status line out: what it did not cover still passes.
    let noted = NOTES.replacen("**Status:** active", "**Status:** active (noted)", 1);
    let (old, _) = lint(old.write(DECISIONS, &noted), &[], 0);
    // An edit it covers is caught.
    let edited = NOTES.replace("one database for everything", "two databases");
    let (old, _) = lint(old.write(DECISIONS, &edited), &[], 1);
    // A change appends a record of the new rule that names the old record before it.
    let project = old
        .write(DECISIONS, NOTES)
        .args(["decision", "supersede", PG, "--successor", REDIS])
        .code(0)
        .run()
        .then();
    let ledger = project.read_text(LEDGER);
    let last: Vec<serde_json::Value> = ledger
        .lines()
        .skip(2)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(last[0]["prev"], record_id(PG, "adopt"));
    assert_eq!(last[1]["prev"], record_id(REDIS, "adopt"));
    assert_eq!(last[0]["digest"], 2);
    let (project, report) = lint(project, &[], 0);
    assert!(report.findings.is_empty(), "{report:#?}");
    // Both rules now hold the decision: an edit is caught by each.
    let text = project.read_text(DECISIONS);
    let (_, report) = lint(
        project.write(
            DECISIONS,
            text.replace("one database for everything", "two"),
        ),
        &[],
        1,
    );
    assert_eq!(errors(&report).len(), 1, "{report:#?}");
}

#[test]
fn a_record_whose_predecessor_is_missing_is_an_error() {
    let project = ledgered()
        .args(["decision", "abrogate", PG, "--reason", "r"])
        .code(0)
        .run()
        .then();
    let ledger = project.read_text(LEDGER);
    let adopt_id = format!("\"id\":\"{}\"", record_id(PG, "adopt"));
    let without_adopt = lines_where(&ledger, |l| !l.contains(&adopt_id));
    let (_, report) = lint(project.write(LEDGER, &without_adopt), &[], 1);
    assert_eq!(
        errors(&report),
        [(
            "ledger-chain".to_owned(),
            format!(
                "{} (line 3, abrogate) names {} as its predecessor, which the ledger does not hold",
                record_id(PG, "abrogate"),
                record_id(PG, "adopt")
            )
        )]
    );
}

/// Two clones change one decision; the merge driver keeps both records (they are different
/// records), `lint` names the fork, and the team keeps one change as docs/DECISIONS.md says.
#[test]
fn two_clones_changing_one_decision_are_named_after_a_merge_and_resolved_by_keeping_one() {
    let base = ledgered();
    let base_ledger = base.read_text(LEDGER);
    let ours = ledgered()
        .args(["decision", "abrogate", PG, "--reason", "one store"])
        .code(0)
        .run()
        .then();
    let theirs = ledgered()
        .env("BMAD_MEM_NOW", "2026-10-18T10:00:00.000Z")
        .args(["decision", "supersede", PG, "--successor", REDIS])
        .code(0)
        .run()
        .then();
    let merged = TestProject::new()
        .write("base", &base_ledger)
        .write("ours", ours.read(LEDGER))
        .write("theirs", theirs.read(LEDGER))
        .args(["merge-driver", "base", "ours", "theirs", LEDGER])
        .code(0)
        .stderr("")
        .run()
        .then()
        .read_text("ours");
    // The team kept ours in decisions.md when git asked; the ledger holds both changes.
    let project = ours.write(LEDGER, &merged);
    let (project, report) = lint(project, &[], 1);
    let abrogate = record_id(PG, "abrogate");
    let supersede =
        &sha256_hex(format!("2026-10-18T10:00:00.000Z\0{PG}\0supersede").as_bytes())[..12];
    let line = merged.lines().position(|l| l.contains(supersede)).unwrap() + 1;
    let problem = format!(
        "{abrogate} (line 4, abrogate) and {supersede} (line {line}, supersede) both follow {} (line 1, adopt): two clones changed this decision; keep one (see docs/DECISIONS.md)",
        record_id(PG, "adopt")
    );
    assert_eq!(
        errors(&report),
        [("ledger-chain".to_owned(), problem.clone())]
    );
    // The commands refuse to build on it meanwhile.
    let project = project
        .args(["decision", "abrogate", PG, "--reason", "again"])
        .refused(
            "decision",
            &format!(
                "the ledger's records of \"{PG}\" ({DECISIONS}:3) disagree at line {line}: {problem}; resolve that first (docs/DECISIONS.md)"
            ),
        );
    // Keeping ours: the other clone's lines of that change go (git keeps them in history).
    let kept = lines_where(&merged, |l| {
        !l.contains("\"ts\":\"2026-10-18T10:00:00.000Z\"")
    });
    let (_, report) = lint(project.write(LEDGER, &kept), &[], 0);
    assert!(report.findings.is_empty(), "{report:#?}");
}

/// Who acts and why are stored text: a secret in either is refused for every decision command,
/// and nothing is written.
#[test]
fn a_secret_in_the_actor_or_a_reason_is_refused() {
    let token = format!("ghp_{}", "q8Zr2Lk9Vx3Mw7PnB4cD6fG1hJ5kL0mN8pR2");
    let actor = format!("alice {token}");
    let found = "line 1 looks like a GitHub personal access token (rule github-pat); secrets never enter the memory";
    let _ = project()
        .write(DECISIONS, NOTES)
        .args(["decision", "adopt", PG, "--actor", &actor])
        .refused("decision", &format!("--actor: {found}"))
        .args(["decision", "accept", PG, "--actor", &actor])
        .absent(".bmad")
        .refused("decision", &format!("--actor: {found}"))
        .args(["decision", "reject", PG, "--reason", &token])
        .refused("decision", &format!("--reason: {found}"))
        .args(["decision", "accept", PG, "--reason", &token])
        .refused("decision", &format!("--reason: {found}"));
}
