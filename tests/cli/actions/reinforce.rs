//! `reinforce` (docs §7): rewards, the Elo and decayed-Beta update to the last bit, the
//! scores document and promotion records byte for byte, the governance guard (a promotion is
//! only ever `PROPOSED`), and the refusals that must change nothing.
//!
//! Every expected number, line and document here was produced by an independent Node 20
//! implementation of docs §7 (`Math.pow`, left-to-right evaluation, `toFixed`,
//! `JSON.stringify(x, null, 2)`, a plain-map scores object) fed the same command lines.

use std::fs;
use std::thread;

use serde::Deserialize;

use crate::support::{LOCK, NOW, PROMOTIONS, SCORES, TestProject};

const PATTERN_REQUIRED: &str =
    "mem reinforce: --pattern <id> is required (the pattern heading in patterns.md)";

/// The product page's worked example.
const PRODUCT_PAGE: &str = "mem reinforce: pattern \"Rate limit on auth routes\"\n  \
                            reward   1.000 (from {\"acceptance\":true,\"ci\":\"pass\"})\n  \
                            elo      1200.0 -> 1216.0\n  \
                            mean     0.667 (alpha=2.00, beta=1.00, updates=1)\n  \
                            promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n";

/// The `--json` result, schema pinned.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Reinforced {
    pattern_id: String,
    reward: f64,
    previous: Option<serde_json::Value>,
    next: Score,
    promotion: Option<Promotion>,
    evidence_status: String,
    ranking_eligible: bool,
    warnings: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Score {
    elo: f64,
    alpha: f64,
    beta: f64,
    mean: f64,
    updates: f64,
    last_ts: serde_json::Value,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Promotion {
    id: String,
    pattern_id: String,
    from_status: String,
    to_status: String,
    reason: String,
    evidence: Vec<String>,
    score: Score,
    ts: String,
    status: String,
    governed_by: String,
    approved_by: Option<String>,
    approved_at: Option<String>,
}

/// A scripted sequence: (`BMAD_MEM_NOW`, arguments, human output). Gaps of days exercise the
/// 90-day decay; the third step ends at mean 0.699 (no promotion), the fifth repeats the
/// fourth's instant (no decay), the seventh comes after a 70-day gap.
const SEQUENCE: &[(&str, &[&str], &str)] = &[
    (
        "2026-10-01T09:00:00.000Z",
        &[
            "reinforce",
            "--pattern",
            "Rate limit on auth routes",
            "--accept",
            "true",
            "--ci",
            "pass",
        ],
        "mem reinforce: pattern \"Rate limit on auth routes\"\n  reward   1.000 (from {\"acceptance\":true,\"ci\":\"pass\"})\n  elo      1200.0 -> 1216.0\n  mean     0.667 (alpha=2.00, beta=1.00, updates=1)\n  promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n",
    ),
    (
        "2026-10-02T16:45:00.000Z",
        &[
            "reinforce",
            "--pattern",
            "Expand and contract migrations",
            "--ci",
            "fail",
        ],
        "mem reinforce: pattern \"Expand and contract migrations\"\n  reward   0.000 (from {\"ci\":\"fail\"})\n  elo      1200.0 -> 1184.0\n  mean     0.333 (alpha=1.00, beta=2.00, updates=1)\n  promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n",
    ),
    (
        "2026-10-04T12:30:00.000Z",
        &[
            "reinforce",
            "--pattern",
            "Rate limit on auth routes",
            "--eval",
            "0.8",
            "--ci",
            "fail",
        ],
        "mem reinforce: pattern \"Rate limit on auth routes\"\n  reward   0.571 (from {\"evalScore\":0.8,\"ci\":\"fail\"})\n  elo      1216.0 -> 1217.5\n  mean     0.639 (alpha=2.53, beta=1.43, updates=2)\n  promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n",
    ),
    (
        "2026-10-11T08:15:00.000Z",
        &[
            "reinforce",
            "--pattern",
            "Rate limit on auth routes",
            "--eval",
            "0.9",
            "--accept",
            "yes",
            "--ci",
            "pass",
            "--evidence",
            "f60e78136297, 428a8b74485f",
        ],
        "mem reinforce: pattern \"Rate limit on auth routes\"\n  reward   0.950 (from {\"evalScore\":0.9,\"acceptance\":true,\"ci\":\"pass\"})\n  elo      1217.5 -> 1231.1\n  mean     0.699 (alpha=3.37, beta=1.45, updates=3)\n  promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n",
    ),
    (
        "2026-10-11T08:15:00.000Z",
        &[
            "reinforce",
            "--pattern",
            "Rate limit on auth routes",
            "--accept",
            "0.6",
        ],
        "mem reinforce: pattern \"Rate limit on auth routes\"\n  reward   0.600 (from {\"acceptance\":0.6})\n  elo      1231.1 -> 1232.9\n  mean     0.681 (alpha=3.92, beta=1.84, updates=4)\n  promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n",
    ),
    (
        "2026-10-18T09:30:00.000Z",
        &[
            "reinforce",
            "--pattern",
            "Expand and contract migrations",
            "--eval",
            "1",
            "--ci",
            "pass",
        ],
        "mem reinforce: pattern \"Expand and contract migrations\"\n  reward   1.000 (from {\"evalScore\":1,\"ci\":\"pass\"})\n  elo      1184.0 -> 1200.7\n  mean     0.517 (alpha=2.00, beta=1.87, updates=2)\n  promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n",
    ),
    (
        "2026-12-20T00:00:00.000Z",
        &[
            "reinforce",
            "--pattern",
            "Rate limit on auth routes",
            "--accept",
            "true",
            "--ci",
            "pass",
            "--evidence",
            "ci-run-812",
        ],
        "mem reinforce: pattern \"Rate limit on auth routes\"\n  reward   1.000 (from {\"acceptance\":true,\"ci\":\"pass\"})\n  elo      1232.9 -> 1247.4\n  mean     0.713 (alpha=3.68, beta=1.48, updates=5)\n  promotion PROPOSED (dcc00dfa6986): candidate -> validated\n  awaiting human/Shield approval — never auto-applied (governance guard)\n",
    ),
    (
        "2026-12-21T06:00:00.000Z",
        &[
            "reinforce",
            "--pattern",
            "Rate limit on auth routes",
            "--eval",
            "0.95",
            "--ci",
            "pass",
            "--evidence",
            "ci-run-815,ci-run-815",
        ],
        "mem reinforce: pattern \"Rate limit on auth routes\"\n  reward   0.964 (from {\"evalScore\":0.95,\"ci\":\"pass\"})\n  elo      1247.4 -> 1260.1\n  mean     0.752 (alpha=4.56, beta=1.50, updates=6)\n  promotion PROPOSED (74cf0a65cf11): candidate -> validated\n  awaiting human/Shield approval — never auto-applied (governance guard)\n",
    ),
];

const SEQUENCE_SCORES: &str = r#"{
  "Rate limit on auth routes": {
    "elo": 1260.088199108391,
    "alpha": 4.561067226052263,
    "beta": 1.5027204832363257,
    "mean": 0.7521812181956108,
    "updates": 6,
    "lastTs": "2026-12-21T06:00:00.000Z"
  },
  "Expand and contract migrations": {
    "elo": 1200.736306793522,
    "alpha": 2,
    "beta": 1.8684004375895555,
    "mean": 0.5170095578952584,
    "updates": 2,
    "lastTs": "2026-10-18T09:30:00.000Z"
  }
}
"#;

const SEQUENCE_PROMOTIONS: &str = r#"{"id":"dcc00dfa6986","patternId":"Rate limit on auth routes","fromStatus":"candidate","toStatus":"validated","reason":"posterior mean 0.713 >= 0.7 over 5 update(s)","evidence":["ci-run-812"],"score":{"elo":1247.400486092179,"alpha":3.675409759191637,"beta":1.4811467321343774,"mean":0.7127643739332914,"updates":5,"lastTs":"2026-12-20T00:00:00.000Z"},"ts":"2026-12-20T00:00:00.000Z","status":"PROPOSED","governedBy":"shield","approvedBy":null,"approvedAt":null}
{"id":"74cf0a65cf11","patternId":"Rate limit on auth routes","fromStatus":"candidate","toStatus":"validated","reason":"posterior mean 0.752 >= 0.7 over 6 update(s)","evidence":["ci-run-815","ci-run-815"],"score":{"elo":1260.088199108391,"alpha":4.561067226052263,"beta":1.5027204832363257,"mean":0.7521812181956108,"updates":6,"lastTs":"2026-12-21T06:00:00.000Z"},"ts":"2026-12-21T06:00:00.000Z","status":"PROPOSED","governedBy":"shield","approvedBy":null,"approvedAt":null}
"#;

/// "Request id everywhere" after two all-success updates on 2026-10-16 and 2026-10-17.
const TWO_SUCCESSES: &str = r#"{
  "Request id everywhere": {
    "elo": 1231.263693206478,
    "alpha": 2.9724813873376847,
    "beta": 1,
    "mean": 0.748268172334927,
    "updates": 2,
    "lastTs": "2026-10-17T09:30:00.000Z"
  }
}
"#;

/// Its third update at [`NOW`], with `--evidence " a, b,,c"`.
const THIRD_SUCCESS_JSON: &str = r#"{
  "patternId": "Request id everywhere",
  "reward": 1,
  "previous": {
    "elo": 1231.263693206478,
    "alpha": 2.9724813873376847,
    "beta": 1,
    "mean": 0.748268172334927,
    "updates": 2,
    "lastTs": "2026-10-17T09:30:00.000Z"
  },
  "next": {
    "elo": 1245.8278203282016,
    "alpha": 3.918201436055913,
    "beta": 1,
    "mean": 0.796673639133834,
    "updates": 3,
    "lastTs": "2026-10-18T09:30:00.000Z"
  },
  "promotion": {
    "id": "05375aca45a4",
    "patternId": "Request id everywhere",
    "fromStatus": "candidate",
    "toStatus": "validated",
    "reason": "posterior mean 0.797 >= 0.7 over 3 update(s)",
    "evidence": [
      "a",
      "b",
      "c"
    ],
    "score": {
      "elo": 1245.8278203282016,
      "alpha": 3.918201436055913,
      "beta": 1,
      "mean": 0.796673639133834,
      "updates": 3,
      "lastTs": "2026-10-18T09:30:00.000Z"
    },
    "ts": "2026-10-18T09:30:00.000Z",
    "status": "PROPOSED",
    "governedBy": "shield",
    "approvedBy": null,
    "approvedAt": null
  },
  "evidenceStatus": "self-reported",
  "rankingEligible": false
}
"#;

const THIRD_SUCCESS_SCORES: &str = r#"{
  "Request id everywhere": {
    "elo": 1245.8278203282016,
    "alpha": 3.918201436055913,
    "beta": 1,
    "mean": 0.796673639133834,
    "updates": 3,
    "lastTs": "2026-10-18T09:30:00.000Z"
  }
}
"#;

const THIRD_SUCCESS_PROMOTION: &str = r#"{"id":"05375aca45a4","patternId":"Request id everywhere","fromStatus":"candidate","toStatus":"validated","reason":"posterior mean 0.797 >= 0.7 over 3 update(s)","evidence":["a","b","c"],"score":{"elo":1245.8278203282016,"alpha":3.918201436055913,"beta":1,"mean":0.796673639133834,"updates":3,"lastTs":"2026-10-18T09:30:00.000Z"},"ts":"2026-10-18T09:30:00.000Z","status":"PROPOSED","governedBy":"shield","approvedBy":null,"approvedAt":null}
"#;

fn reinforce_args<'a>(pattern: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["reinforce", "--pattern", pattern];
    args.extend_from_slice(rest);
    args
}

#[test]
fn product_page_example() {
    let ran = TestProject::new()
        .fixture("example")
        .args(reinforce_args(
            "Rate limit on auth routes",
            &["--accept", "true", "--ci", "pass"],
        ))
        .code(0)
        .stdout(PRODUCT_PAGE)
        .stderr("")
        .file(
            SCORES,
            "{\n  \"Rate limit on auth routes\": {\n    \"elo\": 1216,\n    \"alpha\": 2,\n    \
             \"beta\": 1,\n    \"mean\": 0.6666666666666666,\n    \"updates\": 1,\n    \
             \"lastTs\": \"2026-10-18T09:30:00.000Z\"\n  }\n}\n",
        )
        .absent(PROMOTIONS)
        .absent(LOCK)
        .run();
    // Nothing else in the memory folder changed.
    assert_eq!(
        ran.project.names(".bmad/memory"),
        [
            "decisions.md",
            "journal.ndjson",
            "lessons.md",
            "pattern-scores.json"
        ]
    );
}

#[test]
fn product_page_example_as_json() {
    let ran = TestProject::new()
        .args(reinforce_args(
            "Rate limit on auth routes",
            &["--accept", "true", "--ci", "pass", "--json"],
        ))
        .code(0)
        .stdout(
            r#"{
  "patternId": "Rate limit on auth routes",
  "reward": 1,
  "previous": null,
  "next": {
    "elo": 1216,
    "alpha": 2,
    "beta": 1,
    "mean": 0.6666666666666666,
    "updates": 1,
    "lastTs": "2026-10-18T09:30:00.000Z"
  },
  "promotion": null,
  "evidenceStatus": "self-reported",
  "rankingEligible": false
}
"#,
        )
        .stderr("")
        .run();
    let result: Reinforced = ran.json();
    assert_eq!(result.pattern_id, "Rate limit on auth routes");
    assert_eq!(result.reward, 1.0);
    assert!(result.previous.is_none() && result.promotion.is_none());
    assert_eq!((result.next.elo, result.next.updates), (1216.0, 1.0));
    assert_eq!(result.next.last_ts, NOW);
    assert_eq!(
        (result.evidence_status.as_str(), result.ranking_eligible),
        ("self-reported", false)
    );
    assert!(result.warnings.is_none());
}

#[test]
fn no_signal_is_a_zero_reward() {
    let _ = TestProject::new()
        .args(["reinforce", "--pattern", "Flag with an owner and an expiry"])
        .code(0)
        .stdout(
            "mem reinforce: pattern \"Flag with an owner and an expiry\"\n  \
             reward   0.000 (from {})\n  elo      1200.0 -> 1184.0\n  \
             mean     0.333 (alpha=1.00, beta=2.00, updates=1)\n  \
             promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n",
        )
        .run();
}

#[test]
fn golden_sequence_with_gaps_of_days() {
    let mut project = TestProject::new().fixture("example");
    for (now, args, human) in SEQUENCE {
        project = project
            .env("BMAD_MEM_NOW", now)
            .args(*args)
            .code(0)
            .stdout(human)
            .stderr("")
            .run()
            .then();
    }
    let _ = project
        .args(["recall", "zzzqqq"])
        .code(0)
        .file(SCORES, SEQUENCE_SCORES)
        .file(PROMOTIONS, SEQUENCE_PROMOTIONS)
        .absent(LOCK)
        .run();
}

#[test]
fn an_all_success_stream_proposes_first_at_the_third_update() {
    let mut project = TestProject::new();
    for (day, promoted) in [("16", false), ("17", false)] {
        let ran = project
            .env("BMAD_MEM_NOW", format!("2026-10-{day}T09:30:00.000Z"))
            .args(reinforce_args(
                "Request id everywhere",
                &["--accept", "true", "--ci", "pass", "--json"],
            ))
            .code(0)
            .absent(PROMOTIONS)
            .run();
        assert_eq!(ran.json::<Reinforced>().promotion.is_some(), promoted);
        project = ran.then();
    }
    let ran = project
        .env("BMAD_MEM_NOW", NOW)
        .args(reinforce_args(
            "Request id everywhere",
            &["--accept", "true", "--ci", "pass", "--evidence", " a, b,,c"],
        ))
        .code(0)
        .stdout("mem reinforce: pattern \"Request id everywhere\"\n  reward   1.000 (from {\"acceptance\":true,\"ci\":\"pass\"})\n  elo      1231.3 -> 1245.8\n  mean     0.797 (alpha=3.92, beta=1.00, updates=3)\n  promotion PROPOSED (05375aca45a4): candidate -> validated\n  awaiting human/Shield approval — never auto-applied (governance guard)\n")
        .file(SCORES, THIRD_SUCCESS_SCORES)
        .file(PROMOTIONS, THIRD_SUCCESS_PROMOTION)
        .run();
    assert_eq!(ran.project.read_text(SCORES), THIRD_SUCCESS_SCORES);
}

#[test]
fn a_promotion_record_is_always_proposed_with_its_evidence() {
    let ran = TestProject::new()
        .write(SCORES, TWO_SUCCESSES)
        .args(reinforce_args(
            "Request id everywhere",
            &[
                "--accept",
                "true",
                "--ci",
                "pass",
                "--evidence",
                " a, b,,c",
                "--json",
            ],
        ))
        .code(0)
        .stdout(THIRD_SUCCESS_JSON)
        .stderr("")
        .file(SCORES, THIRD_SUCCESS_SCORES)
        .file(PROMOTIONS, THIRD_SUCCESS_PROMOTION)
        .run();
    let result: Reinforced = ran.json();
    let promotion = result.promotion.expect("a promotion");
    assert_eq!(promotion.evidence, ["a", "b", "c"]);
    assert_eq!(promotion.status, "PROPOSED");
    assert_eq!(promotion.governed_by, "shield");
    assert!(promotion.approved_by.is_none() && promotion.approved_at.is_none());
    assert_eq!(
        (promotion.from_status.as_str(), promotion.to_status.as_str()),
        ("candidate", "validated")
    );
    assert_eq!(promotion.pattern_id, "Request id everywhere");
    assert_eq!(promotion.id, "05375aca45a4");
    assert_eq!(promotion.ts, NOW);
    assert_eq!(
        promotion.reason,
        "posterior mean 0.797 >= 0.7 over 3 update(s)"
    );
    assert_eq!(promotion.score.mean, result.next.mean);
    assert_eq!(promotion.score.alpha, result.next.alpha);
    assert_eq!(promotion.score.beta, result.next.beta);
    assert_eq!(promotion.score.elo, result.next.elo);
}

#[test]
fn the_time_decay_needs_a_known_past_time() {
    // 90 days (as epoch milliseconds) halve alpha − 1 and beta − 1 before the update; a future,
    // legacy-format (docs §10: no time known) or absent `lastTs` leaves them alone.
    let stored = concat!(
        "{\"ninety\":{\"alpha\":3,\"beta\":2,\"updates\":5,\"lastTs\":1784539800000},",
        "\"future\":{\"alpha\":3,\"beta\":2,\"updates\":5,\"lastTs\":\"2027-01-01\"},",
        "\"legacy\":{\"alpha\":3,\"beta\":2,\"updates\":5,\"lastTs\":\"2026-07-20 09:30:00\"},",
        "\"none\":{\"alpha\":3,\"beta\":2,\"updates\":5}}\n"
    );
    let decayed = "\"elo\": 1216,\n    \"alpha\": 2.98,\n    \"beta\": 1.49,\n    \
                   \"mean\": 0.6666666666666667,\n    \"updates\": 6,\n    \
                   \"lastTs\": \"2026-10-18T09:30:00.000Z\"";
    let kept = "\"elo\": 1216,\n    \"alpha\": 3.96,\n    \"beta\": 1.98,\n    \
                \"mean\": 0.6666666666666667,\n    \"updates\": 6,\n    \
                \"lastTs\": \"2026-10-18T09:30:00.000Z\"";
    let mut project = TestProject::new().write(SCORES, stored);
    for pattern in ["ninety", "future", "legacy", "none"] {
        project = project
            .args(reinforce_args(pattern, &["--ci", "pass"]))
            .code(0)
            .run()
            .then();
    }
    assert_eq!(
        project.read_text(SCORES),
        format!(
            "{{\n  \"ninety\": {{\n    {decayed}\n  }},\n  \"future\": {{\n    {kept}\n  }},\n  \
             \"legacy\": {{\n    {kept}\n  }},\n  \"none\": {{\n    {kept}\n  }}\n}}\n"
        )
    );
}

#[test]
fn special_pattern_names_are_ordinary_keys() {
    let steps: &[(&str, &[&str])] = &[
        ("zeta", &["--ci", "pass"]),
        ("__proto__", &["--ci", "pass"]),
        ("constructor", &["--ci", "fail"]),
        ("42", &["--eval", "0.5"]),
        ("042", &["--eval", "0.5"]),
        ("7", &["--accept", "no"]),
        ("toString", &["--accept", "yes"]),
    ];
    let mut project = TestProject::new();
    for (pattern, rest) in steps {
        project = project
            .args(reinforce_args(pattern, rest))
            .code(0)
            .run()
            .then();
    }
    // A second update of `__proto__`, a day later, finds its first score.
    let ran = project
        .env("BMAD_MEM_NOW", "2026-10-19T09:30:00.000Z")
        .args(reinforce_args("__proto__", &["--ci", "pass"]))
        .code(0)
        .stdout(
            "mem reinforce: pattern \"__proto__\"\n  reward   1.000 (from {\"ci\":\"pass\"})\n  \
             elo      1216.0 -> 1231.3\n  mean     0.748 (alpha=2.97, beta=1.00, updates=2)\n  \
             promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n",
        )
        // Array-index keys first, ascending ("7", "42"); "042" is not one.
        .file(
            SCORES,
            r#"{
  "7": {
    "elo": 1184,
    "alpha": 1,
    "beta": 2,
    "mean": 0.3333333333333333,
    "updates": 1,
    "lastTs": "2026-10-18T09:30:00.000Z"
  },
  "42": {
    "elo": 1200,
    "alpha": 1.5,
    "beta": 1.5,
    "mean": 0.5,
    "updates": 1,
    "lastTs": "2026-10-18T09:30:00.000Z"
  },
  "zeta": {
    "elo": 1216,
    "alpha": 2,
    "beta": 1,
    "mean": 0.6666666666666666,
    "updates": 1,
    "lastTs": "2026-10-18T09:30:00.000Z"
  },
  "__proto__": {
    "elo": 1231.263693206478,
    "alpha": 2.9724813873376847,
    "beta": 1,
    "mean": 0.748268172334927,
    "updates": 2,
    "lastTs": "2026-10-19T09:30:00.000Z"
  },
  "constructor": {
    "elo": 1184,
    "alpha": 1,
    "beta": 2,
    "mean": 0.3333333333333333,
    "updates": 1,
    "lastTs": "2026-10-18T09:30:00.000Z"
  },
  "042": {
    "elo": 1200,
    "alpha": 1.5,
    "beta": 1.5,
    "mean": 0.5,
    "updates": 1,
    "lastTs": "2026-10-18T09:30:00.000Z"
  },
  "toString": {
    "elo": 1216,
    "alpha": 2,
    "beta": 1,
    "mean": 0.6666666666666666,
    "updates": 1,
    "lastTs": "2026-10-18T09:30:00.000Z"
  }
}
"#,
        )
        .run();
    assert!(!ran.project.path(PROMOTIONS).exists());
}

#[test]
fn non_object_entries_and_non_numeric_fields_fall_back_to_priors() {
    let stored = r#"{
  "broken": 5,
  "listy": [1, 2.50, 1e2],
  "stringy": {"elo": "1300", "alpha": 3, "beta": null, "mean": "x", "updates": true, "lastTs": "2026-10-08T09:30:00.000Z", "note": "dropped on update"},
  "untouched": {"elo": 1.2e3, "alpha": 1.0, "beta": 2, "mean": 0.3333333333333333, "updates": 1, "lastTs": "2026-09-01T00:00:00Z"}
}
"#;
    let ran = TestProject::new()
        .write(SCORES, stored)
        // Prior elo 1200 (a string is not a number), alpha 3 decayed over 10 days, beta 1.
        .args(reinforce_args(
            "stringy",
            &["--eval", "0.8", "--accept", "yes", "--json"],
        ))
        .code(0)
        .stdout(
            r#"{
  "patternId": "stringy",
  "reward": 0.8749999999999999,
  "previous": {
    "elo": "1300",
    "alpha": 3,
    "beta": null,
    "mean": "x",
    "updates": true,
    "lastTs": "2026-10-08T09:30:00.000Z",
    "note": "dropped on update"
  },
  "next": {
    "elo": 1212,
    "alpha": 3.689714436083089,
    "beta": 1.125,
    "mean": 0.7663412825548133,
    "updates": 1,
    "lastTs": "2026-10-18T09:30:00.000Z"
  },
  "promotion": null,
  "evidenceStatus": "self-reported",
  "rankingEligible": false
}
"#,
        )
        .stderr("")
        .run();
    let result: Reinforced = ran.json();
    assert!(result.warnings.is_none());
    let _ = ran
        .then()
        .args(reinforce_args("broken", &["--ci", "pass"]))
        .code(0)
        .stdout(
            "mem reinforce: pattern \"broken\"\n  reward   1.000 (from {\"ci\":\"pass\"})\n  \
             elo      1200.0 -> 1216.0\n  mean     0.667 (alpha=2.00, beta=1.00, updates=1)\n  \
             promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n",
        )
        .stderr("")
        // Other entries are kept, re-serialized as JavaScript writes them.
        .file(
            SCORES,
            r#"{
  "broken": {
    "elo": 1216,
    "alpha": 2,
    "beta": 1,
    "mean": 0.6666666666666666,
    "updates": 1,
    "lastTs": "2026-10-18T09:30:00.000Z"
  },
  "listy": [
    1,
    2.5,
    100
  ],
  "stringy": {
    "elo": 1212,
    "alpha": 3.689714436083089,
    "beta": 1.125,
    "mean": 0.7663412825548133,
    "updates": 1,
    "lastTs": "2026-10-18T09:30:00.000Z"
  },
  "untouched": {
    "elo": 1200,
    "alpha": 1,
    "beta": 2,
    "mean": 0.3333333333333333,
    "updates": 1,
    "lastTs": "2026-09-01T00:00:00Z"
  }
}
"#,
        )
        .run();
}

#[test]
fn an_unparseable_scores_file_is_kept_aside_with_a_warning() {
    for (stored, json) in [
        ("{\"Rate limit on auth routes\": {\"elo\": 1250,", false),
        ("{\"Rate limit on auth routes\": {\"elo\": 1250,", true),
        ("[]\n", false),
        ("null", true),
        ("\"text\"\n", false),
        ("", false),
        // JSON.parse refuses a byte-order mark.
        (
            "\u{feff}{\"Rate limit on auth routes\": {\"elo\": 1250}}",
            false,
        ),
    ] {
        let mut args = reinforce_args(
            "Rate limit on auth routes",
            &["--accept", "true", "--ci", "pass"],
        );
        if json {
            args.push("--json");
        }
        let ran = TestProject::new()
            .fixture("example")
            .write(SCORES, stored)
            .args(args)
            .code(0)
            .file(
                SCORES,
                "{\n  \"Rate limit on auth routes\": {\n    \"elo\": 1216,\n    \"alpha\": 2,\n    \
                 \"beta\": 1,\n    \"mean\": 0.6666666666666666,\n    \"updates\": 1,\n    \
                 \"lastTs\": \"2026-10-18T09:30:00.000Z\"\n  }\n}\n",
            )
            .run();
        let kept: Vec<String> = ran
            .project
            .names(".bmad/memory")
            .into_iter()
            .filter(|n| n.starts_with("pattern-scores.json.corrupt-"))
            .collect();
        assert_eq!(kept.len(), 1, "{kept:?}");
        let kept = &kept[0];
        assert_eq!(
            ran.project.read(&format!(".bmad/memory/{kept}")),
            stored.as_bytes()
        );
        if json {
            assert_eq!(ran.stderr, "");
            let result: Reinforced = ran.json();
            let warnings = result.warnings.expect("a warnings array");
            assert_eq!(warnings.len(), 1, "{warnings:?}");
            assert!(warnings[0].contains(kept.as_str()), "{warnings:?}");
            assert!(result.previous.is_none());
            assert!(
                ran.stdout
                    .contains("\"rankingEligible\": false,\n  \"warnings\": [\n    \"")
                    && ran.stdout.ends_with("\"\n  ]\n}\n"),
                "warnings come last: {}",
                ran.stdout
            );
        } else {
            assert_eq!(ran.stdout, PRODUCT_PAGE);
            assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
            assert!(ran.stderr.contains(kept.as_str()), "{}", ran.stderr);
        }
    }
}

#[test]
fn an_unparseable_scores_file_is_kept_byte_for_byte() {
    // Invalid UTF-8: the file is read with replacement to parse it, but what is kept aside must
    // be the bytes that were on disk (docs §7: "first its bytes are kept").
    let stored: &[u8] = b"{\"Rate limit on auth routes\": {\"elo\": 1250, \"note\": \"\xff\"";
    let ran = TestProject::new()
        .write(SCORES, stored)
        .args(reinforce_args(
            "Rate limit on auth routes",
            &["--accept", "true", "--ci", "pass"],
        ))
        .code(0)
        .stdout(PRODUCT_PAGE)
        .run();
    let kept: Vec<String> = ran
        .project
        .names(".bmad/memory")
        .into_iter()
        .filter(|n| n.starts_with("pattern-scores.json.corrupt-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(
        ran.project.read(&format!(".bmad/memory/{}", kept[0])),
        stored
    );
}

#[test]
fn a_pattern_id_is_kept_as_given() {
    let _ = TestProject::new()
        .args(reinforce_args(" spaced id ", &["--ci", "pass"]))
        .code(0)
        .file(
            SCORES,
            "{\n  \" spaced id \": {\n    \"elo\": 1216,\n    \"alpha\": 2,\n    \"beta\": 1,\n    \
             \"mean\": 0.6666666666666666,\n    \"updates\": 1,\n    \
             \"lastTs\": \"2026-10-18T09:30:00.000Z\"\n  }\n}\n",
        )
        .run();
}

#[test]
fn missing_or_blank_pattern_is_refused_once() {
    let cases: &[&[&str]] = &[
        &["reinforce"],
        &["reinforce", "--accept", "true", "--ci", "pass"],
        &["reinforce", "--pattern", ""],
        &["reinforce", "--pattern="],
        &["reinforce", "--pattern", "   "],
        &["reinforce", "--pattern", "\t\u{3000}\u{a0}"],
        // The pattern is checked before the signals.
        &["reinforce", "--eval", "abc"],
    ];
    for args in cases {
        let _ = TestProject::new()
            .fixture("example")
            .write(SCORES, TWO_SUCCESSES)
            .args(*args)
            .refused_as(&format!("{PATTERN_REQUIRED}\n"), PATTERN_REQUIRED);
    }
}

#[test]
fn invalid_signals_are_refused() {
    let cases: &[(&[&str], &str)] = &[
        (&["--eval", "abc"], "invalid value for --eval: abc"),
        (&["--eval", "1.5"], "invalid value for --eval: 1.5"),
        (&["--eval", "-0.1"], "invalid value for --eval: -0.1"),
        (&["--accept", "2"], "invalid value for --accept: 2"),
        (&["--accept", "ok"], "invalid value for --accept: ok"),
        (&["--ci", "maybe"], "invalid value for --ci: maybe"),
        (&["--ci", "PASS"], "invalid value for --ci: PASS"),
        (&["--ci", "Infinity"], "invalid value for --ci: Infinity"),
    ];
    for (rest, message) in cases {
        let _ = TestProject::new()
            .fixture("example")
            .write(SCORES, TWO_SUCCESSES)
            .args(reinforce_args("Request id everywhere", rest))
            .refused("reinforce", message);
    }
}

#[test]
fn parser_errors_follow_the_failure_form() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["reinforce", "--pattern", "p", "extra"],
            "unexpected argument 'extra' found",
        ),
        (
            &["reinforce", "--pattern", "p", "--agent", "forge"],
            "unexpected argument '--agent' found",
        ),
        (
            &["reinforce", "--pattern", "p", "--limit", "3"],
            "unexpected argument '--limit' found",
        ),
    ];
    for (args, message) in cases {
        let _ = TestProject::new()
            .fixture("example")
            .args(*args)
            .refused("reinforce", message);
    }
}

#[test]
fn a_scores_file_that_is_a_folder_or_a_link_is_refused() {
    let _ = TestProject::new()
        .fixture("example")
        .mkdir(SCORES)
        .args(reinforce_args(
            "Rate limit on auth routes",
            &["--ci", "pass"],
        ))
        .refused(
            "reinforce",
            "EISDIR: illegal operation on a directory, read",
        );
    let _ = TestProject::new()
        .fixture("example")
        .write("elsewhere/scores.json", TWO_SUCCESSES)
        .symlink("../../elsewhere/scores.json", SCORES)
        .args(reinforce_args("Request id everywhere", &["--ci", "pass"]))
        .refused(
            "reinforce",
            "Memory paths cannot follow symbolic links or junctions.",
        );
    // Even when the link's target is unparseable: no corrupt copy is made.
    let _ = TestProject::new()
        .fixture("example")
        .write("elsewhere/scores.json", "{torn")
        .symlink("../../elsewhere/scores.json", SCORES)
        .args(reinforce_args("Request id everywhere", &["--ci", "pass"]))
        .refused(
            "reinforce",
            "Memory paths cannot follow symbolic links or junctions.",
        );
}

#[test]
fn a_torn_promotions_file_blocks_a_due_promotion_and_changes_nothing() {
    let torn = "{\"id\":\"0123456789ab\",\"patternId\":\"Request id everywhere\",\"status\":\"PROP";
    let _ = TestProject::new()
        .fixture("example")
        .write(SCORES, TWO_SUCCESSES)
        .write(PROMOTIONS, torn)
        .args(reinforce_args(
            "Request id everywhere",
            &["--accept", "true", "--ci", "pass"],
        ))
        .refused(
            "reinforce",
            "Memory store has an incomplete final line; inspect it before writing.",
        );
    // Cut inside a character: the same torn line, the same message.
    let _ = TestProject::new()
        .fixture("example")
        .write(SCORES, TWO_SUCCESSES)
        .write(PROMOTIONS, b"{\"patternId\":\"caf\xc3")
        .args(reinforce_args(
            "Request id everywhere",
            &["--accept", "true", "--ci", "pass"],
        ))
        .refused(
            "reinforce",
            "Memory store has an incomplete final line; inspect it before writing.",
        );
    // No promotion due: the promotions file is not touched and the score is updated.
    let _ = TestProject::new()
        .write(SCORES, TWO_SUCCESSES)
        .write(PROMOTIONS, torn)
        .args(reinforce_args("Request id everywhere", &["--ci", "fail"]))
        .code(0)
        .file(PROMOTIONS, torn)
        .run();
}

#[test]
fn a_full_promotions_file_blocks_a_due_promotion_and_changes_nothing() {
    let full = format!("{}\n", "x".repeat(2 * 1024 * 1024 - 1));
    let _ = TestProject::new()
        .write(SCORES, TWO_SUCCESSES)
        .write(PROMOTIONS, full)
        .args(reinforce_args(
            "Request id everywhere",
            &["--accept", "true", "--ci", "pass"],
        ))
        .refused(
            "reinforce",
            "Memory store is full; archive it explicitly before adding records.",
        );
}

#[test]
fn a_lock_held_by_another_writer_is_waited_for_then_left_alone() {
    let foreign =
        r#"{"pid":4242,"hostname":"build-agent-7","token":"5b0d7c1e-9a8f-4e3d-b2c1-a0f9e8d7c6b5"}"#;
    let project = TestProject::new()
        .write(SCORES, TWO_SUCCESSES)
        .write(LOCK, foreign)
        .args(reinforce_args("Request id everywhere", &["--ci", "pass"]))
        .refused(
            "reinforce",
            "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock.",
        );
    assert_eq!(project.read(LOCK), foreign.as_bytes());
}

#[test]
fn parallel_reinforcements_lose_no_update() {
    const PROCESSES: usize = 8;
    const EACH: usize = 50;
    let project = TestProject::new().fixture("example").args(reinforce_args(
        "Rate limit on auth routes",
        &["--ci", "pass"],
    ));
    let failures: Vec<String> = thread::scope(|scope| {
        let workers: Vec<_> = (0..PROCESSES)
            .map(|_| {
                scope.spawn(|| {
                    let mut failures = Vec::new();
                    for _ in 0..EACH {
                        let output = project.command().output().expect("spawn bmad-mem");
                        if !output.status.success() {
                            failures.push(String::from_utf8_lossy(&output.stderr).into_owned());
                        }
                    }
                    failures
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker thread"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} failed runs: {failures:?}",
        failures.len()
    );
    // Every update happened at the same instant with the same reward, so the end state does
    // not depend on the interleaving: 400 updates, 398 proposals (from the third on).
    assert_eq!(
        project.read_text(SCORES),
        "{\n  \"Rate limit on auth routes\": {\n    \"elo\": 1939.9027607056803,\n    \
         \"alpha\": 50.98453320670966,\n    \"beta\": 1,\n    \"mean\": 0.9807635090994541,\n    \
         \"updates\": 400,\n    \"lastTs\": \"2026-10-18T09:30:00.000Z\"\n  }\n}\n"
    );
    let promotions = project.read_text(PROMOTIONS);
    let lines: Vec<&str> = promotions.lines().collect();
    assert_eq!(lines.len(), 398);
    for (i, line) in lines.iter().enumerate() {
        assert!(
            line.contains(&format!(" over {} update(s)\"", i + 3)),
            "line {i}: {line}"
        );
    }
    assert_eq!(
        lines[397],
        r#"{"id":"0503059d4ccb","patternId":"Rate limit on auth routes","fromStatus":"candidate","toStatus":"validated","reason":"posterior mean 0.981 >= 0.7 over 400 update(s)","evidence":[],"score":{"elo":1939.9027607056803,"alpha":50.98453320670966,"beta":1,"mean":0.9807635090994541,"updates":400,"lastTs":"2026-10-18T09:30:00.000Z"},"ts":"2026-10-18T09:30:00.000Z","status":"PROPOSED","governedBy":"shield","approvedBy":null,"approvedAt":null}"#
    );
    assert!(!project.path(LOCK).exists());
    let leftovers: Vec<String> = fs::read_dir(project.path(".bmad/memory"))
        .expect("memory folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("tmp")))
        .map(|p| p.display().to_string())
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_corrupt_scores_copy_never_replaces_one_kept_at_the_same_instant() {
    let earlier = format!("{SCORES}.corrupt-2026-10-18T09-30-00-000Z");
    let kept = format!("{earlier}-1");
    TestProject::new()
        .write(SCORES, "not json")
        .write(&earlier, "kept before")
        .args(["reinforce", "--pattern", "p", "--accept", "true"])
        .code(0)
        .stderr(&format!(
            "warning: {SCORES} was not a JSON object; its bytes were kept in {kept} and scores restart from priors\n"
        ))
        .file(&earlier, "kept before")
        .file(&kept, "not json")
        .run();
}
