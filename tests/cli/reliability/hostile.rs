//! Hostile input (issue 5): links at every level, paths that try to leave the project, bytes
//! that are not UTF-8, a byte-order mark, CRLF notes, a 10 MiB line, JSON nested 10,000 deep,
//! numbers beyond a double, empty files, and folders where files belong.
//!
//! Each gives the documented tolerant behaviour (lexical recall reads as bmad-plus does: bad
//! bytes replaced, damaged journal lines skipped; links followed inside the project) or a
//! clear refusal —
//! exit 1 in both output forms with the exact message — and a refusal leaves every file, folder
//! and link under the test folder byte-identical, link targets outside the project included.
//! No run may panic (the builder checks every stderr). NUL bytes cannot reach an argument or a
//! path on Unix at all (`execve` takes C strings), so there is nothing to try there.

use serde_json::{Value, json};

use crate::actions::observe::{
    INPUT, LESSONS as AGENTS_LESSONS, observe, project as nexus_project, valid_input,
};
use crate::support::nexus_run::RUN_FILE;
use crate::support::{JOURNAL, LOCK, PROMOTIONS, SCORES, TestProject};

const LINKS: &str = "Memory paths cannot follow symbolic links or junctions.";
const NOT_NORMALIZED: &str = "Memory path must be a normalized project-relative path.";
const NOT_REGULAR: &str = "Memory source must be a regular file of at most 2 MiB.";
const NOT_UTF8: &str = "Memory source must contain valid UTF-8.";
const EISDIR: &str = "EISDIR: illegal operation on a directory, read";
const LOCK_OCCUPIED: &str =
    "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock.";
const OUTCOMES: &str = ".bmad/memory/outcomes.ndjson";
const BMAD_LESSONS: &str = ".bmad/memory/lessons.md";

/// A journal event recall can find by `zebra`.
const EVENT: &str =
    r#"{"ts":"2026-10-18T09:00:00.000Z","agent":"forge","task":"zebra task","id":"zebra-event"}"#;

/// A scores document one reinforcement away from a promotion proposal.
const ALMOST_PROMOTED: &str = r#"{
  "p": {
    "elo": 1300,
    "alpha": 5,
    "beta": 1,
    "mean": 0.8333333333333334,
    "updates": 2,
    "lastTs": "2026-10-18T09:30:00.000Z"
  }
}
"#;

/// JSON nested `depth` deep: arrays, or objects (`{"a":…1…}`).
fn nested(depth: usize, objects: bool) -> String {
    if objects {
        format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
    } else {
        format!("{}{}", "[".repeat(depth), "]".repeat(depth))
    }
}

/// The `ref`s of a `recall --json` result, in order.
fn refs(stdout: &str) -> Vec<String> {
    let recall: Value = serde_json::from_str(stdout).expect("recall --json");
    recall["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            r["ref"]
                .as_str()
                .map_or_else(|| r["ref"].to_string(), str::to_owned)
        })
        .collect()
}

/// `recall --json <query>` succeeds without changing anything; the refs it finds.
#[track_caller]
fn recalled(project: TestProject, query: &[&str]) -> (TestProject, Vec<String>) {
    let args: Vec<&str> = ["recall", "--json", "--limit", "50"]
        .into_iter()
        .chain(query.iter().copied())
        .collect();
    let ran = project.args(args).code(0).stderr("").unchanged().run();
    let refs = refs(&ran.stdout);
    (ran.then(), refs)
}

/// Every writing action refused with `message`, nothing changed.
#[track_caller]
fn writers_refused(project: TestProject, message: &str) -> TestProject {
    project
        .args(["write", "--agent", "forge"])
        .refused("write", message)
        .args(["reinforce", "--pattern", "p", "--accept", "true"])
        .refused("reinforce", message)
}

// ---- symbolic links ------------------------------------------------------------------------

#[test]
fn linked_memory_folders_refuse_every_writer_but_lexical_recall_follows_them_inside() {
    // `.bmad` and `.bmad/memory` as links, to a folder inside the project or beside it.
    let cases: [(&str, &str, &str); 4] = [
        (".bmad", "real-bmad", "real-bmad/memory/journal.ndjson"),
        (
            ".bmad",
            "../outside-bmad",
            "../outside-bmad/memory/journal.ndjson",
        ),
        (
            ".bmad/memory",
            "../real-memory",
            "real-memory/journal.ndjson",
        ),
        (
            ".bmad/memory",
            "../../outside-memory",
            "../outside-memory/journal.ndjson",
        ),
    ];
    for (link, target, journal) in cases {
        let mut project = TestProject::new();
        let journal_path = project.path(journal);
        std::fs::create_dir_all(journal_path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&journal_path, format!("{EVENT}\n")).expect("journal");
        if link == ".bmad/memory" {
            project = project.mkdir(".bmad");
        }
        let project = project
            .symlink(target, link)
            .write("in.json", valid_input().to_string());
        let project = writers_refused(project, LINKS)
            .args(["observe", "--input", "in.json"])
            .refused("observe", LINKS)
            .args(["lock"])
            .refused("lock", LINKS)
            .args(["lock", "--recover", "--expect", "x"])
            .refused("lock", LINKS)
            .args(["doctor", "--repair-tail", JOURNAL])
            .refused("doctor", LINKS)
            .args(["outcomes"])
            .refused("outcomes", LINKS)
            .args([
                "recall",
                "zebra",
                "--ranking",
                "evidence",
                "--context-scope",
                "src",
            ])
            .refused("recall", LINKS);
        // Lexical recall follows a link that stays in the project, and skips one leaving it.
        let project = if target.contains("outside") {
            let ran = project
                .args(["recall", "--json", "zebra"])
                .code(0)
                .stderr("")
                .unchanged()
                .run();
            assert!(refs(&ran.stdout).is_empty(), "{link} -> {target}");
            assert!(
                ran.stdout
                    .contains(&format!("\"warning: {JOURNAL} skipped: resolves to ")),
                "{link} -> {target}: {}",
                ran.stdout
            );
            ran.then()
        } else {
            let (project, refs) = recalled(project, &["zebra"]);
            assert_eq!(refs, ["zebra-event"], "{link} -> {target}");
            project
        };
        // doctor names every registry it could not read, and changes nothing (the note files
        // are missing: read as recall reads them, they are nothing to report).
        let ran = project.args(["doctor", "--json"]).code(1).unchanged().run();
        let report: Value = ran.json();
        let problems: Vec<&str> = report["problems"]
            .as_array()
            .expect("problems")
            .iter()
            .inspect(|p| {
                assert_eq!(
                    (&p["kind"], &p["message"]),
                    (&json!("unreadable"), &json!(LINKS))
                );
            })
            .map(|p| p["file"].as_str().expect("file"))
            .collect();
        // The reinforcement records, beside the memory folder, are behind `.bmad` only.
        let mut expected = vec![
            JOURNAL,
            PROMOTIONS,
            OUTCOMES,
            ".bmad/memory/decisions.ndjson",
        ];
        if link == ".bmad" {
            expected.push(".bmad/records/reinforcements.ndjson");
        }
        expected.extend([SCORES, LOCK]);
        assert_eq!(problems, expected, "{link}");
    }
}

#[test]
fn a_linked_notes_folder_or_file_is_read_by_recall_and_refused_by_observe() {
    // `.agents/memory` is a link to a folder elsewhere in the project (a link leaving the
    // project is skipped: `readers.rs`).
    let (project, _) = nexus_project();
    let lessons = project.read(AGENTS_LESSONS);
    let project = project
        .remove(".agents/memory")
        .fixture_beside("example", "project/brain")
        .symlink("../brain/.agents/memory", ".agents/memory");
    std::fs::write(
        project
            .base()
            .join("project/brain/.agents/memory/lessons.md"),
        &lessons,
    )
    .expect("lessons beside");
    let project = project
        .write(INPUT, valid_input().to_string())
        .args(["observe", "--input", INPUT])
        .refused("observe", LINKS);
    let (_, refs) = recalled(project, &["password", "hashes"]);
    assert_eq!(refs[0], "Compare password hashes, never plain text");
    // The lessons file itself a link (live, then dangling).
    let project = project_with_lessons_link();
    let project = project
        .args(["observe", "--input", INPUT])
        .refused("observe", LINKS);
    let (project, refs) = recalled(project, &["password", "hashes"]);
    assert_eq!(refs, ["Compare password hashes, never plain text"]);
    let project = project.remove("lessons-real.md");
    let project = project
        .args(["observe", "--input", INPUT])
        .refused("observe", LINKS);
    let (_, refs) = recalled(project, &["password", "hashes"]);
    assert!(refs.is_empty());
}

/// The observe project with `.agents/memory/lessons.md` a link to `lessons-real.md`.
fn project_with_lessons_link() -> TestProject {
    let (project, _) = nexus_project();
    let lessons = project.read(AGENTS_LESSONS);
    project
        .write("lessons-real.md", lessons)
        .remove(AGENTS_LESSONS)
        .symlink("../../lessons-real.md", AGENTS_LESSONS)
        .write(INPUT, valid_input().to_string())
}

#[test]
fn linked_registry_files_are_refused_and_their_targets_untouched() {
    // The journal.
    let project = TestProject::new()
        .write("elsewhere.ndjson", format!("{EVENT}\n"))
        .mkdir(".bmad/memory")
        .symlink("../../elsewhere.ndjson", JOURNAL)
        .args(["write", "--agent", "forge"])
        .refused("write", LINKS);
    let (_, refs) = recalled(project, &["zebra"]);
    assert_eq!(refs, ["zebra-event"]);
    // The scores document: reinforce reads it as bmad-plus does, but never writes through it.
    let _ = TestProject::new()
        .write("scores-real.json", ALMOST_PROMOTED)
        .mkdir(".bmad/memory")
        .symlink("../../scores-real.json", SCORES)
        .args(["reinforce", "--pattern", "p", "--accept", "true"])
        .refused("reinforce", LINKS);
    // The promotions file, when a promotion is due: nothing is written, the score included.
    let _ = TestProject::new()
        .write(SCORES, ALMOST_PROMOTED)
        .write("promotions-real.ndjson", "")
        .symlink("../../promotions-real.ndjson", PROMOTIONS)
        .args(["reinforce", "--pattern", "p", "--accept", "true"])
        .refused("reinforce", LINKS);
    // The receipt store.
    let (project, _) = nexus_project();
    let _ = project
        .write("outcomes-real.ndjson", "")
        .symlink("../../outcomes-real.ndjson", OUTCOMES)
        .write(INPUT, valid_input().to_string())
        .args(["observe", "--input", INPUT])
        .refused("observe", LINKS)
        .args(["outcomes"])
        .refused("outcomes", LINKS);
    // The writer lock, live or dangling: never followed, never removed.
    for target in ["../../lock-target", "../../nowhere"] {
        let _ = writers_refused(
            TestProject::new()
                .write("lock-target", "")
                .mkdir(".bmad/memory")
                .symlink(target, LOCK),
            LINKS,
        )
        .args(["lock"])
        .refused("lock", LINKS);
    }
}

#[test]
fn observe_input_paths_stay_inside_the_project() {
    let (project, _) = nexus_project();
    let input = valid_input().to_string();
    let project = project
        .write(INPUT, &input)
        .write("inputs/real.json", &input)
        .symlink(INPUT, "link.json")
        .symlink("inputs", "inputs-link");
    std::fs::write(project.base().join("x.json"), &input).expect("input beside the project");
    let cases = [
        ("link.json", LINKS),
        ("inputs-link/real.json", LINKS),
        ("../x.json", NOT_NORMALIZED),
        ("/etc/passwd", NOT_NORMALIZED),
        ("inputs/../observation.json", NOT_NORMALIZED),
        // A leading `./` is dropped (`./observation.json` is accepted); what follows is
        // checked as ever, and a `./` anywhere else stays refused.
        ("./link.json", LINKS),
        ("./../x.json", NOT_NORMALIZED),
        ("inputs/./real.json", NOT_NORMALIZED),
        (".\\observation.json", NOT_NORMALIZED),
        ("inputs//real.json", NOT_NORMALIZED),
        ("inputs\\..\\observation.json", NOT_NORMALIZED),
        ("C:observation.json", NOT_NORMALIZED),
        ("inputs/", NOT_NORMALIZED),
    ];
    let mut project = project;
    for (path, message) in cases {
        project = project
            .args(["observe", "--input", path])
            .refused("observe", message);
    }
    // `\` separates segments for the checks, but on Unix it is an ordinary character.
    let backslash = format!(
        "ENOENT: no such file or directory, stat '{}'",
        project.path("inputs\\real.json").display()
    );
    project = project
        .args(["observe", "--input", "inputs\\real.json"])
        .refused("observe", &backslash);
    // An absolute path to a file inside the project is still not project-relative.
    let absolute = project.path(INPUT).to_string_lossy().into_owned();
    let _ = project
        .args(["observe", "--input", &absolute])
        .refused("observe", NOT_NORMALIZED);
}

#[test]
fn linked_nexus_folders_are_refused_by_nexus_rules() {
    // `.bmad-plus/nexus` moved beside the project and linked back.
    let (project, run) = nexus_project();
    let nexus = project.path(".bmad-plus/nexus");
    let moved = project.base().join("nexus-real");
    std::fs::rename(&nexus, &moved).expect("move the nexus folder");
    let project = project
        .symlink(&moved, ".bmad-plus/nexus")
        .write(INPUT, valid_input().to_string());
    let linked = format!(
        "Adapter path contains a symlink or junction: {}",
        run.root().join(".bmad-plus/nexus").display()
    );
    let _ = project
        .args(["observe", "--input", INPUT])
        .refused("observe", &linked);
    // The run file itself a link.
    let (project, run) = project_with_run_link();
    let linked = format!(
        "Adapter path contains a symlink or junction: {}",
        run.display()
    );
    let _ = project
        .args(["observe", "--input", INPUT])
        .refused("observe", &linked);
}

/// The observe project with its run file a link to `run-real.json`; the run file's path.
fn project_with_run_link() -> (TestProject, std::path::PathBuf) {
    let (project, _) = nexus_project();
    let run = project.read(RUN_FILE);
    let project = project
        .write("run-real.json", run)
        .remove(RUN_FILE)
        .symlink("../../../run-real.json", RUN_FILE)
        .write(INPUT, valid_input().to_string());
    let path = project.path(RUN_FILE);
    (project, path)
}

// ---- bytes that are not UTF-8, a BOM, CRLF ---------------------------------------------------

#[test]
fn invalid_utf8_is_replaced_by_lexical_recall_and_refused_by_confined_readers() {
    // Journal: recall replaces the bad byte; write refuses.
    let project = TestProject::new()
        .write(
            JOURNAL,
            b"{\"agent\":\"forge\",\"task\":\"zebra caf\xe9\",\"id\":\"latin1\"}\n",
        )
        .args(["write", "--agent", "forge"])
        .refused("write", NOT_UTF8);
    let ran = project
        .args(["recall", "--json", "zebra"])
        .code(0)
        .unchanged()
        .run();
    let recall: Value = ran.json();
    assert_eq!(recall["results"][0]["event"]["task"], "zebra caf\u{fffd}");
    // Notes: recall replaces, observe refuses.
    let (project, _) = nexus_project();
    let mut lessons = project.read(AGENTS_LESSONS);
    lessons.extend_from_slice(b"\n### Zebra \xff\xfe\nBad bytes.\n");
    let project = project
        .write(AGENTS_LESSONS, lessons)
        .write(INPUT, valid_input().to_string())
        .args(["observe", "--input", INPUT])
        .refused("observe", NOT_UTF8);
    let (project, refs) = recalled(project, &["zebra"]);
    assert_eq!(refs, ["Zebra \u{fffd}\u{fffd}"]);
    // The observation input.
    let _ = project
        .write(INPUT, b"{\"runId\":\"\xff\"}")
        .args(["observe", "--input", INPUT])
        .refused("observe", NOT_UTF8);
    // The promotions file when a promotion is due, and the receipt store.
    let _ = TestProject::new()
        .write(SCORES, ALMOST_PROMOTED)
        .write(PROMOTIONS, b"{\"x\":\"\xff\"}\n")
        .args(["reinforce", "--pattern", "p", "--accept", "true"])
        .refused("reinforce", NOT_UTF8);
    let _ = TestProject::new()
        .write(OUTCOMES, b"\xff\n")
        .args(["outcomes"])
        .refused("outcomes", NOT_UTF8);
    // The writer lock: shown by nobody, removed by nobody.
    let _ = TestProject::new()
        .write(LOCK, b"\xff")
        .args(["lock"])
        .refused("lock", NOT_UTF8);
}

#[test]
fn a_scores_document_with_bad_bytes_is_read_as_bmad_plus_reads_it() {
    // docs §7: links followed, invalid UTF-8 replaced — the other pattern keeps its score under
    // the replaced name when the document is written back.
    let ran = TestProject::new()
        .write(
            SCORES,
            b"{\"caf\xe9\":{\"elo\":1300,\"updates\":4},\"p\":{\"updates\":1}}\n",
        )
        .args(["reinforce", "--json", "--pattern", "p", "--accept", "true"])
        .code(0)
        .stderr("")
        .run();
    let scores: Value = serde_json::from_slice(&ran.project.read(SCORES)).expect("scores");
    assert_eq!(scores["caf\u{fffd}"]["elo"], 1300);
    assert_eq!(scores["p"]["updates"], 2);
}

#[test]
fn a_byte_order_mark_is_kept_as_bmad_plus_keeps_it() {
    // Journal: the first line still parses (trim removes U+FEFF), and write appends after it.
    let project = TestProject::new().write(JOURNAL, format!("\u{feff}{EVENT}\n"));
    let (project, refs) = recalled(project, &["zebra"]);
    assert_eq!(refs, ["zebra-event"]);
    let journal = project.read(JOURNAL);
    let ran = project.args(["write", "--agent", "forge"]).code(0).run();
    assert!(ran.project.read(JOURNAL).starts_with(&journal));
    // Notes: the mark stays in front of the first line, so a heading there is not a heading.
    let project = TestProject::new().write(
        ".agents/memory/patterns.md",
        "\u{feff}### Zebra first\nA.\n\n### Zebra second\nB.\n",
    );
    let (_, refs) = recalled(project, &["zebra"]);
    assert_eq!(refs, ["Zebra second"]);
    // An observation input with a mark is not JSON.
    let (project, _) = nexus_project();
    let _ = project
        .write(INPUT, format!("\u{feff}{}", valid_input()))
        .args(["observe", "--input", INPUT])
        .refused(
            "observe",
            "Outcome input is not valid JSON: invalid JSON: unexpected token at byte 0",
        );
    // A scores document with a mark does not parse: kept aside, scores restart from priors.
    let marked = format!("\u{feff}{ALMOST_PROMOTED}");
    let kept = ".bmad/memory/pattern-scores.json.corrupt-2026-10-18T09-30-00-000Z";
    let ran = TestProject::new()
        .write(SCORES, &marked)
        .args(["reinforce", "--pattern", "p", "--accept", "true"])
        .code(0)
        .stderr(&format!(
            "warning: {SCORES} was not a JSON object; its bytes were kept in {kept} and scores restart from priors\n"
        ))
        .file(kept, &marked)
        .run();
    let scores: Value = serde_json::from_slice(&ran.project.read(SCORES)).expect("scores");
    assert_eq!(scores["p"]["updates"], 1);
}

#[test]
fn crlf_notes_are_cut_at_the_cr() {
    let project = TestProject::new().write(
        ".agents/memory/decisions.md",
        "# D\r\n\r\n### Zebra crossing\r\nLook left.\r\nLook right.\r\n### Zebra crossing\r\nAgain.\r\n",
    );
    let ran = project
        .args(["recall", "--json", "zebra", "crossing", "look"])
        .code(0)
        .unchanged()
        .run();
    let recall: Value = ran.json();
    let results = recall["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["ref"], "Zebra crossing");
    assert_eq!(
        results[0]["text"],
        "Zebra crossing\nLook left.\r\nLook right."
    );
    assert_eq!(results[1]["ref"], "Zebra crossing");
    assert_eq!(results[1]["text"], "Zebra crossing\nAgain.");
    // …and the two are one heading to observe, which doctor says.
    let ran = ran
        .then()
        .args(["doctor", "--json"])
        .code(1)
        .unchanged()
        .run();
    let report: Value = ran.json();
    assert_eq!(
        report["problems"],
        json!([{
            "file": ".agents/memory/decisions.md",
            "kind": "duplicate-heading",
            "message": "\"Zebra crossing\" heads 2 sections; observe cannot target it"
        }])
    );
}

// ---- size, depth, numbers --------------------------------------------------------------------

#[test]
fn a_ten_mebibyte_line_is_read_by_recall_and_refused_by_writers() {
    let filler = "lorem ipsum ".repeat(10 * 1024 * 1024 / 12 + 1);
    let big = format!(
        r#"{{"ts":"2026-10-18T09:00:00.000Z","agent":"giant","task":"zebra {filler}","id":"big"}}"#
    );
    assert!(big.len() > 10 * 1024 * 1024);
    let project = TestProject::new()
        .write(JOURNAL, format!("{EVENT}\n{big}\n"))
        .write(
            ".agents/memory/lessons.md",
            format!("### Zebra wide\n{filler}\n"),
        );
    let (project, refs) = recalled(project, &["zebra"]);
    assert_eq!(refs, ["zebra-event", "Zebra wide", "big"]);
    // Human output cuts the text at 120 characters.
    let ran = project
        .args(["recall", "zebra", "giant"])
        .code(0)
        .unchanged()
        .run();
    assert!(
        ran.stdout.lines().all(|l| l.chars().count() < 140),
        "{}",
        ran.stdout
    );
    let ran = ran
        .then()
        .args(["write", "--agent", "forge"])
        .refused("write", NOT_REGULAR)
        .args(["doctor", "--json"])
        .code(1)
        .unchanged()
        .run();
    let report: Value = ran.json();
    assert_eq!(report["problems"][0]["kind"], "unreadable-or-over-cap");
    assert_eq!(report["problems"][0]["message"], NOT_REGULAR);
}

#[test]
fn json_nested_ten_thousand_deep_is_skipped_or_refused_clearly() {
    let deep_array = nested(10_000, false);
    let deep_object = nested(10_000, true);
    // In the journal: skipped by recall, appended after by write, numbered by doctor.
    let journal = format!("{deep_array}\n{EVENT}\n{deep_object}\n");
    let project = TestProject::new().write(JOURNAL, &journal);
    let (project, refs) = recalled(project, &["zebra"]);
    assert_eq!(refs, ["zebra-event"]);
    let ran = project.args(["doctor", "--json"]).code(1).unchanged().run();
    let report: Value = ran.json();
    assert_eq!(
        report["problems"][0]["message"],
        "lines that are not JSON objects: 1, 3"
    );
    let _ = ran.then().args(["write", "--agent", "forge"]).code(0).run();
    // As the observation input: a clear parse error, before anything is locked.
    let (project, _) = nexus_project();
    let _ = project
        .write(INPUT, &deep_array)
        .args(["observe", "--input", INPUT])
        .refused(
            "observe",
            "Outcome input is not valid JSON: invalid JSON: nesting too deep at byte 512",
        )
        .write(INPUT, &deep_object)
        .args(["observe", "--input", INPUT])
        .refused(
            "observe",
            "Outcome input is not valid JSON: invalid JSON: nesting too deep at byte 2560",
        );
    // In the receipt store: the store is corrupt, and says where.
    let _ = TestProject::new()
        .write(OUTCOMES, format!("{deep_array}\n"))
        .args(["outcomes"])
        .refused(
            "outcomes",
            "Outcome store line 1 is not valid JSON: invalid JSON: nesting too deep at byte 512",
        );
    // As the scores document: unparseable, so kept aside before scores restart.
    let kept = ".bmad/memory/pattern-scores.json.corrupt-2026-10-18T09-30-00-000Z";
    let _ = TestProject::new()
        .write(SCORES, &deep_object)
        .args(["reinforce", "--pattern", "p", "--accept", "true"])
        .code(0)
        .file(kept, &deep_object)
        .run();
    // As the Nexus run: corrupt run state.
    let (project, _) = nexus_project();
    let _ = project
        .write(RUN_FILE, &deep_object)
        .write(INPUT, valid_input().to_string())
        .args(["observe", "--input", INPUT])
        .refused(
            "observe",
            "Nexus: Corrupt run state; original bytes were preserved.",
        );
}

#[test]
fn numbers_beyond_a_double_are_written_back_as_javascript_writes_them() {
    let project = TestProject::new().write(
        JOURNAL,
        "{\"agent\":\"forge\",\"task\":\"zebra huge\",\"signals\":{\"evalScore\":1e400,\"low\":-1e400,\"tiny\":1e-400,\"long\":12345678901234567890,\"neg\":-0},\"id\":1e400}\n",
    );
    let ran = project
        .args(["recall", "--json", "zebra"])
        .code(0)
        .unchanged()
        .run();
    let result = &ran.json::<Value>()["results"][0];
    assert_eq!(
        result["text"],
        r#"forge zebra huge {"evalScore":null,"low":null,"tiny":0,"long":12345678901234567000,"neg":0}"#
    );
    assert!(
        ran.stdout.contains("\"evalScore\": null,\n"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("\"long\": 12345678901234567000,\n"),
        "{}",
        ran.stdout
    );
    // An id of Infinity is truthy: it is the ref, written as null.
    assert_eq!(result["ref"], Value::Null);
    // The journal is appended to, never rewritten.
    let journal = ran.project.read(JOURNAL);
    let ran = ran.then().args(["write", "--agent", "forge"]).code(0).run();
    assert!(ran.project.read(JOURNAL).starts_with(&journal));
}

// ---- empty files, folders where files belong -------------------------------------------------

#[test]
fn empty_files_are_empty_stores() {
    let ran = TestProject::new()
        .write(JOURNAL, "")
        .write(PROMOTIONS, "")
        .write(OUTCOMES, "")
        .write(BMAD_LESSONS, "")
        .args(["recall", "zebra"])
        .code(0)
        .stdout("mem recall: no matches for \"zebra\" (scope: project)\n")
        .unchanged()
        .run()
        .then()
        .args(["outcomes"])
        .code(0)
        .stdout("mem outcomes: no observations.\n")
        .unchanged()
        .run()
        .then()
        .args(["write", "--agent", "forge", "--json"])
        .code(0)
        .run();
    let written: Value = ran.json();
    let journal = ran.project.read_text(JOURNAL);
    assert_eq!(journal.lines().count(), 1);
    assert_eq!(
        serde_json::from_str::<Value>(&journal).expect("one event"),
        written["written"]
    );
    // An empty scores document does not parse: kept aside (empty), scores restart.
    let kept = ".bmad/memory/pattern-scores.json.corrupt-2026-10-18T09-30-00-000Z";
    let _ = TestProject::new()
        .write(SCORES, "")
        .args(["reinforce", "--pattern", "p"])
        .code(0)
        .file(kept, "")
        .run();
    // An empty observation input or run file is refused.
    let (project, _) = nexus_project();
    let _ = project
        .write(INPUT, "")
        .args(["observe", "--input", INPUT])
        .refused(
            "observe",
            "Outcome input is not valid JSON: invalid JSON: unexpected end of input at byte 0",
        )
        .write(RUN_FILE, "")
        .write(INPUT, valid_input().to_string())
        .args(["observe", "--input", INPUT])
        .refused(
            "observe",
            "Nexus: Corrupt run state; original bytes were preserved.",
        );
}

#[test]
fn folders_where_files_belong_are_refused() {
    // The journal: lexical recall fails as Node does; writers are refused.
    let _ = TestProject::new()
        .mkdir(JOURNAL)
        .args(["recall", "zebra"])
        .refused("recall", EISDIR)
        .args(["write", "--agent", "forge"])
        .refused("write", NOT_REGULAR);
    // The scores document, the promotions file (a promotion due), the receipt store.
    let _ = TestProject::new()
        .mkdir(SCORES)
        .args(["reinforce", "--pattern", "p"])
        .refused("reinforce", EISDIR);
    let _ = TestProject::new()
        .write(SCORES, ALMOST_PROMOTED)
        .mkdir(PROMOTIONS)
        .args(["reinforce", "--pattern", "p", "--accept", "true"])
        .refused("reinforce", NOT_REGULAR);
    let _ = TestProject::new()
        .mkdir(OUTCOMES)
        .args(["outcomes"])
        .refused("outcomes", NOT_REGULAR);
    // The observation input, the lessons file, the run file.
    let (project, run) = nexus_project();
    let run_file = run.run_path();
    let project = project
        .mkdir("input-folder.json")
        .args(["observe", "--input", "input-folder.json"])
        .refused("observe", NOT_REGULAR);
    let lessons = project.read(AGENTS_LESSONS);
    let project = project
        .remove(AGENTS_LESSONS)
        .mkdir(AGENTS_LESSONS)
        .write(INPUT, valid_input().to_string())
        .args(["observe", "--input", INPUT])
        .refused("observe", NOT_REGULAR)
        .remove(AGENTS_LESSONS)
        .write(AGENTS_LESSONS, lessons)
        .remove(RUN_FILE)
        .mkdir(RUN_FILE);
    let _ = project.args(["observe", "--input", INPUT]).refused(
        "observe",
        &format!(
            "Adapter target is not a regular file: {}",
            run_file.display()
        ),
    );
    // A folder named writer.lock: `lock` cannot read it, and a writer waits its budget out
    // (it can never create the lock) without touching it.
    let _ = TestProject::new()
        .mkdir(LOCK)
        .args(["lock"])
        .refused("lock", NOT_REGULAR)
        .args(["write", "--agent", "forge"])
        .code(1)
        .stderr(&format!("mem write: {LOCK_OCCUPIED}\n"))
        .unchanged()
        .run();
}

#[test]
fn an_observation_survives_the_hostile_neighbours() {
    // Control: with every hostile file above planted *beside* the memory files (not on their
    // paths), observe and outcomes still work.
    let (project, _) = nexus_project();
    let project = project
        .write("hostile/deep.json", nested(10_000, false))
        .write("hostile/latin1.txt", b"caf\xe9")
        .symlink("/etc/passwd", "hostile/passwd");
    let (project, id) = observe(project, &valid_input());
    let ran = project
        .args(["outcomes"])
        .code(0)
        .stdout(&format!("{id}: accepted-current\n"))
        .unchanged()
        .run();
    assert!(ran.stderr.is_empty());
}
