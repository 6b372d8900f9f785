//! Recovering from what the hardening review found: a lock left by another host, a registry
//! holding bytes that are not UTF-8, races in the two repairs, and a health check that was
//! quadratic in the `###` lines inside fenced code.
//!
//! Every refusal leaves every file as it was; every repair keeps what it moves, byte for byte.

use std::fmt::Write as _;

use serde::Deserialize;

use crate::support::TestProject;

const LESSONS: &str = ".bmad/memory/lessons.md";

/// `doctor --json`, schema pinned.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Report {
    healthy: bool,
    checked: Vec<String>,
    problems: Vec<Problem>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Problem {
    file: String,
    kind: String,
    message: String,
}

/// 100,000 `###` lines inside one fence (0.9 MB). Checking each against every fence and
/// counting its line from the start of the file took minutes on such a note (about 200 s for
/// this one in a debug build); in one pass it takes well under a second. No time is asserted:
/// the suite's own run time shows a relapse.
#[test]
fn headings_in_fenced_code_are_found_in_one_pass() {
    const COUNT: usize = 100_000;
    let mut note = String::from("### Outside\nText.\n\n```md\n");
    for i in 0..COUNT {
        let _ = writeln!(note, "### {i:06}");
    }
    note.push_str("```\n");
    let ran = TestProject::new()
        .write(LESSONS, &note)
        .args(["doctor", "--json"])
        .code(1)
        .stderr("")
        .unchanged()
        .run();
    let report: Report = ran.json();
    assert!(!report.healthy);
    assert_eq!(report.checked, [LESSONS]);
    assert_eq!(report.problems.len(), COUNT);
    for (i, problem) in report.problems.iter().enumerate() {
        assert_eq!(
            *problem,
            Problem {
                file: LESSONS.to_owned(),
                kind: "heading-in-code".to_owned(),
                message: format!(
                    "line {}: \"### {i:06}\" is inside fenced code but still starts a section",
                    i + 5
                ),
            }
        );
    }
}
