//! `observe` (docs §8, `docs/NEXUS.md`): the exact receipt bytes for a fixed run and clock, both
//! output forms, and every refusal — each with its exact message, exit 1 in both forms, and the
//! whole test folder byte-identical afterwards.
//!
//! The golden receipt was produced independently with Node 20 (`JSON.stringify` of the body
//! built from the same run and lesson, `crypto.createHash('sha256')`); the test recomputes the id
//! from the golden body with `sha2`, not with the crate's JSON. The run's source holds the real
//! path of the temporary project (`baseline.repository`), so the golden says `{root}` there, as
//! the golden source of `src/nexus/` does.
//!
//! The helpers at the top (a project with an accepted run and a lessons file, an observation
//! input, one `observe`, a copy of the run under another id, a synthetic store) are shared with
//! `outcomes.rs` and `evidence.rs`.

use std::fmt::Write as _;
use std::fs;

use bmad_mem::js::json::{self, Object, Value};
use serde::Deserialize;
use serde_json::{Value as Json, json};
use sha2::{Digest, Sha256};

use crate::support::nexus_run::{
    self, DEPENDENCY, NexusRun, RECOVERY_LOCK, RUN_ID, TASK, WRITER_LOCK,
};
use crate::support::{NOW, TestProject};

// ---- shared fixtures ----------------------------------------------------------------------

/// The receipt store.
pub const OUTCOMES: &str = ".bmad/memory/outcomes.ndjson";
/// Where the tests write the observation input.
pub const INPUT: &str = "observation.json";
/// The lessons file the receipts bind to.
pub const LESSONS: &str = ".agents/memory/lessons.md";
/// Three lessons: one about [`TASK`]'s work, one about its other file, one about
/// [`DEPENDENCY`]'s.
pub const LESSONS_TEXT: &str = "# Lessons

Bound to accepted work with `bmad-mem observe`.

### Compare password hashes, never plain text
**Context:** `login` compared the stored password with the one typed.
**Lesson:** Hash on write and compare hashes in constant time.

### Sessions live one hour
**Lesson:** `SESSION_TTL_SECONDS` stays at 3600; renew on activity, never past a day.

### Schema changes ship with their migration
**Lesson:** Every change to `db/schema.sql` lands together with its migration.
";
/// The first lesson's heading.
pub const PASSWORDS: &str = "Compare password hashes, never plain text";
/// The second lesson's heading.
pub const SESSIONS: &str = "Sessions live one hour";
/// The third lesson's heading.
pub const SCHEMA: &str = "Schema changes ship with their migration";
/// A second run, a copy of the demo run ([`copy_run`]).
pub const OTHER_RUN: &str = "other-run";

/// `outcomes`'s (and evidence recall's) reason when the task's evidence is no longer current.
pub const NOT_ACCEPTED: &str =
    "Outcome source is not an accepted task with current independently verified evidence.";
/// A Nexus lock is present.
pub const NEXUS_BUSY: &str =
    "Nexus state is being written or recovered; retry observation after its owner finishes.";
/// The heading names no section, or several.
pub const EXACTLY_ONE: &str = "Memory heading must identify exactly one section.";
/// A link on a memory path.
pub const LINKS: &str = "Memory paths cannot follow symbolic links or junctions.";

const INTERPRETATION: &str = "The unit check passed on the hashed comparison.";

/// A project holding [`LESSONS_TEXT`], an empty `.bmad/memory/` and the accepted demo run.
///
/// `.bmad/memory/` exists so that a refusal under the writer lock leaves the folder exactly as
/// it was (taking the lock creates it, docs §3.3).
pub fn project() -> (TestProject, NexusRun) {
    let project = TestProject::new()
        .write(LESSONS, LESSONS_TEXT)
        .mkdir(".bmad/memory");
    let run = NexusRun::accepted(&project.path(""));
    (project, run)
}

/// An observation of `task` in `run_id` for the lesson `heading`, over `scope`.
pub fn input(run_id: &str, task: &str, heading: &str, scope: &[&str]) -> Json {
    json!({
        "runId": run_id,
        "taskId": task,
        "memory": { "file": LESSONS, "heading": heading },
        "scope": scope,
        "interpretation": INTERPRETATION,
        "supersedes": [],
        "contradicts": [],
    })
}

/// The observation the refusal tests vary: [`TASK`] of the demo run, [`PASSWORDS`], `src/auth`.
pub fn valid_input() -> Json {
    input(RUN_ID, TASK, PASSWORDS, &["src/auth"])
}

/// Writes `input` to [`INPUT`] and runs `observe --input observation.json --json`, which must
/// succeed; the new receipt's id.
pub fn observe(project: TestProject, input: &Json) -> (TestProject, String) {
    let ran = project
        .write(INPUT, input.to_string())
        .args(["observe", "--input", INPUT, "--json"])
        .code(0)
        .stderr("")
        .run();
    let written: Written = ran.json();
    (ran.then(), written.written.id)
}

/// Copies the demo run's file as run `id`: the same plan, tasks and evidence under another run
/// id (`run.id` and every attempt's `runId` changed, the envelope resealed).
pub fn copy_run(run: &NexusRun, id: &str) {
    let text = fs::read_to_string(run.run_path()).expect("the run file");
    let mut envelope = object(json::parse(&text).expect("the run parses"));
    let mut inner = object(envelope.get("run").cloned().expect("a run"));
    inner.insert("id", id);
    let tasks = array(inner.get("tasks").cloned().expect("tasks"))
        .into_iter()
        .map(|task| {
            let mut task = object(task);
            let attempts = array(task.get("attempts").cloned().expect("attempts"))
                .into_iter()
                .map(|attempt| Value::Object(object(attempt).with("runId", id)))
                .collect::<Vec<_>>();
            task.insert("attempts", attempts);
            Value::Object(task)
        })
        .collect::<Vec<_>>();
    inner.insert("tasks", tasks);
    envelope.insert("sha256", Value::Object(inner.clone()).sha256());
    envelope.insert("run", inner);
    fs::write(
        run.root().join(format!(".bmad-plus/nexus/runs/{id}.json")),
        Value::Object(envelope).pretty() + "\n",
    )
    .expect("write the copied run");
}

/// A valid receipt line (integrity intact) for a task of an archived run; `n` makes its attempt
/// identity unique. Its id is computed over the crate's compact JSON of the body, hashed here.
pub fn synthetic_receipt(n: usize) -> String {
    let body = Object::new()
        .with("schemaVersion", 1.0)
        .with("kind", "accepted-outcome")
        .with("ts", NOW)
        .with(
            "memory",
            Object::new()
                .with("file", LESSONS)
                .with("heading", SCHEMA)
                .with("textSha256", "0".repeat(64)),
        )
        .with("scope", vec![Value::from("archive")])
        .with(
            "source",
            Object::new()
                .with("kind", "nexus")
                .with("runId", "archived-run")
                .with("taskId", "archived")
                .with("attemptId", format!("attempt-{n}")),
        )
        .with("interpretation", "Archived.")
        .with("supersedes", Vec::<Value>::new())
        .with("contradicts", Vec::<Value>::new());
    let body = Value::Object(body).compact();
    format!("{{\"id\":\"{}\",{}", sha256(&body), &body[1..])
}

/// `count` synthetic receipts, one a line.
pub fn synthetic_store(count: usize) -> String {
    let mut store = String::new();
    for n in 0..count {
        let _ = writeln!(store, "{}", synthetic_receipt(n));
    }
    store
}

/// Lowercase hex SHA-256 of the UTF-8 bytes of `text`, computed with `sha2` directly.
pub fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .fold(String::new(), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
}

fn object(value: Value) -> Object {
    match value {
        Value::Object(object) => object,
        other => panic!("not an object: {other:?}"),
    }
}

fn array(value: Value) -> Vec<Value> {
    match value {
        Value::Array(items) => items,
        other => panic!("not an array: {other:?}"),
    }
}

/// `observe --json`'s result, schema pinned.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Written {
    pub written: Receipt,
}

/// A receipt as stored and printed, schema pinned.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Receipt {
    pub id: String,
    pub schema_version: f64,
    pub kind: String,
    pub ts: String,
    pub memory: Memory,
    pub scope: Vec<String>,
    pub source: Source,
    pub interpretation: String,
    pub verification: Verification,
    pub supersedes: Vec<String>,
    pub contradicts: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Memory {
    pub file: String,
    pub heading: String,
    pub text_sha256: String,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Source {
    pub kind: String,
    pub run_id: String,
    pub task_id: String,
    pub attempt_id: String,
    pub verification_id: String,
    pub verification_sha256: String,
    pub accepted_at: String,
    pub artifact_hashes: serde_json::Map<String, Json>,
    pub resource_hashes: serde_json::Map<String, Json>,
    pub scope: Vec<String>,
    pub objective: String,
    pub baseline: Json,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Verification {
    pub status: String,
    pub acceptance: String,
    pub lesson_causality: String,
}

// ---- the golden receipt -----------------------------------------------------------------

/// The interpretation of the golden receipt: non-ASCII, a quote, a tab, U+2028 and a control
/// character, so that JavaScript's string escaping is pinned too.
const GOLDEN_INTERPRETATION: &str =
    "Le contrôle « unit » a passé — \"hash\"\tcomparé sans fuite\u{2028}\u{1} 🔒";

/// The golden receipt's body (the receipt without `id`) as Node's `JSON.stringify` writes it;
/// `{root}` is the real path of the project.
const GOLDEN_BODY: &str = concat!(
    r#"{"schemaVersion":1,"kind":"accepted-outcome","ts":"2026-10-18T09:30:00.000Z","#,
    r#""memory":{"file":".agents/memory/lessons.md","heading":"Compare password hashes, never plain text","#,
    r#""textSha256":"275106b235008ca5b7cf95f5585ee075663b0d367d1a0ad06731f0f842e4a1ad"},"#,
    r#""scope":["src/auth"],"#,
    r#""source":{"kind":"nexus","runId":"demo-run","taskId":"auth","#,
    r#""attemptId":"a0000002-0000-4000-8000-000000000001","#,
    r#""verificationId":"b0000002-0000-4000-8000-000000000001","#,
    r#""verificationSha256":"54d8c64914f27f2453e7c91da59bd4509bb2e426033807f17634540aefa9b6a7","#,
    r#""acceptedAt":"2026-10-18T08:19:00.000Z","#,
    r#""artifactHashes":{"src/auth/login.js":"2581fea4563579c370a03b441efe8b765a57521bfc2ccd26debc956f9e8c1acf"},"#,
    r#""resourceHashes":{"tools/verify.sh":"ea08a13257e3533557318104c3e1f5765cba1711dfdbc54af19a4646aa1542d4"},"#,
    r#""scope":["src"],"objective":"Add password login.","#,
    r#""baseline":{"repository":"{root}","revision":null,"#,
    r#""framework":{"version":"1.4.0","runtimeHash":"a499c4fde5a7e24ae206046c0afcb21bb00e4d1b2452020e723a26f6c909de9c","#,
    r#""installManifestHash":null,"nodeVersion":"v20.18.0","platform":"linux","arch":"x64"},"#,
    r#""scopeHashes":{},"artifactHashes":{"src/auth/login.js":null},"#,
    r#""resourceHashes":{"tools/verify.sh":"ea08a13257e3533557318104c3e1f5765cba1711dfdbc54af19a4646aa1542d4"},"config":{}}},"#,
    "\"interpretation\":\"Le contrôle « unit » a passé — \\\"hash\\\"\\tcomparé sans fuite\u{2028}\\u0001 🔒\",",
    r#""verification":{"status":"passed","acceptance":"accepted","lessonCausality":"unmeasured"},"#,
    r#""supersedes":[],"contradicts":[]}"#,
);

/// `observe --json` for the golden receipt (Node's `JSON.stringify({written}, null, 2)`);
/// `{root}` and `{id}` are substituted.
pub const GOLDEN_WRITTEN: &str = r#"{
  "written": {
    "id": "{id}",
    "schemaVersion": 1,
    "kind": "accepted-outcome",
    "ts": "2026-10-18T09:30:00.000Z",
    "memory": {
      "file": ".agents/memory/lessons.md",
      "heading": "Compare password hashes, never plain text",
      "textSha256": "275106b235008ca5b7cf95f5585ee075663b0d367d1a0ad06731f0f842e4a1ad"
    },
    "scope": [
      "src/auth"
    ],
    "source": {
      "kind": "nexus",
      "runId": "demo-run",
      "taskId": "auth",
      "attemptId": "a0000002-0000-4000-8000-000000000001",
      "verificationId": "b0000002-0000-4000-8000-000000000001",
      "verificationSha256": "54d8c64914f27f2453e7c91da59bd4509bb2e426033807f17634540aefa9b6a7",
      "acceptedAt": "2026-10-18T08:19:00.000Z",
      "artifactHashes": {
        "src/auth/login.js": "2581fea4563579c370a03b441efe8b765a57521bfc2ccd26debc956f9e8c1acf"
      },
      "resourceHashes": {
        "tools/verify.sh": "ea08a13257e3533557318104c3e1f5765cba1711dfdbc54af19a4646aa1542d4"
      },
      "scope": [
        "src"
      ],
      "objective": "Add password login.",
      "baseline": {
        "repository": "{root}",
        "revision": null,
        "framework": {
          "version": "1.4.0",
          "runtimeHash": "a499c4fde5a7e24ae206046c0afcb21bb00e4d1b2452020e723a26f6c909de9c",
          "installManifestHash": null,
          "nodeVersion": "v20.18.0",
          "platform": "linux",
          "arch": "x64"
        },
        "scopeHashes": {},
        "artifactHashes": {
          "src/auth/login.js": null
        },
        "resourceHashes": {
          "tools/verify.sh": "ea08a13257e3533557318104c3e1f5765cba1711dfdbc54af19a4646aa1542d4"
        },
        "config": {}
      }
    },
    "interpretation": "Le contrôle « unit » a passé — \"hash\"\tcomparé sans fuite{LS}\u0001 🔒",
    "verification": {
      "status": "passed",
      "acceptance": "accepted",
      "lessonCausality": "unmeasured"
    },
    "supersedes": [],
    "contradicts": []
  }
}
"#;

/// The golden observation and the project it runs in.
pub fn golden() -> (TestProject, NexusRun, Json) {
    let (project, run) = project();
    let mut observation = valid_input();
    observation["interpretation"] = json!(GOLDEN_INTERPRETATION);
    (
        project.write(INPUT, observation.to_string()),
        run,
        observation,
    )
}

/// The golden store line for the project at `root`, and its id (recomputed from the golden body
/// with `sha2`).
pub fn golden_line(root: &str) -> (String, String) {
    let body = GOLDEN_BODY.replace("{root}", root);
    let id = sha256(&body);
    (format!("{{\"id\":\"{id}\",{}\n", &body[1..]), id)
}

/// [`GOLDEN_WRITTEN`] for the project at `root`.
pub fn golden_written(root: &str, id: &str) -> String {
    GOLDEN_WRITTEN
        .replace("{root}", root)
        .replace("{id}", id)
        .replace("{LS}", "\u{2028}")
}

#[test]
fn golden_receipt_bytes_and_human_line() {
    let (project, run, _) = golden();
    let root = run.root().to_string_lossy().into_owned();
    let (line, id) = golden_line(&root);
    let ran = project
        .args(["observe", "--input", INPUT])
        .code(0)
        .stdout(&format!(
            "mem observe: {id} recorded; lesson causality remains unmeasured.\n"
        ))
        .stderr("")
        .file(nexus_run::RUN_FILE, fs::read(run.run_path()).unwrap())
        .file(OUTCOMES, &line)
        .run();
    // Only the store is new; the writer lock is gone.
    assert_eq!(ran.project.names(".bmad/memory"), ["outcomes.ndjson"]);
}

#[test]
fn golden_receipt_json_output_is_the_written_receipt() {
    let (project, run, _) = golden();
    let root = run.root().to_string_lossy().into_owned();
    let (line, id) = golden_line(&root);
    let ran = project
        .args(["--json", "observe", "--input", INPUT])
        .code(0)
        .stdout(&golden_written(&root, &id))
        .stderr("")
        .file(OUTCOMES, &line)
        .run();
    let written: Written = ran.json();
    assert_eq!(written.written.id, id);
    assert_eq!(written.written.interpretation, GOLDEN_INTERPRETATION);
}

#[test]
fn the_id_is_the_sha256_of_the_stored_body() {
    // The same check on the bytes the binary wrote, whatever they are: strip the id, hash the rest.
    let (project, _run, _) = golden();
    let ran = project.args(["observe", "--input", INPUT]).code(0).run();
    let store = ran.project.read_text(OUTCOMES);
    let line = store.strip_suffix('\n').expect("one complete line");
    let rest = line.strip_prefix("{\"id\":\"").expect("the id comes first");
    let (id, body) = rest.split_once("\",").expect("the id ends");
    assert_eq!(id, sha256(&format!("{{{body}")));
    assert_eq!(
        ran.stdout,
        format!("mem observe: {id} recorded; lesson causality remains unmeasured.\n")
    );
}

// ---- successful observations ------------------------------------------------------------

#[test]
fn receipts_are_appended_one_line_each() {
    let (project, run) = project();
    let root = run.root().to_string_lossy().into_owned();
    let (project, first) = observe(project, &valid_input());
    let before = project.read_text(OUTCOMES);
    let (project, second) = observe(
        project,
        &input(RUN_ID, DEPENDENCY, SCHEMA, &["db/schema.sql"]),
    );
    let store = project.read_text(OUTCOMES);
    assert!(store.starts_with(&before), "the first line is kept");
    let lines: Vec<&str> = store.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].contains(&first) && lines[1].contains(&second));
    assert_ne!(first, second);
    let receipt: Receipt = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(
        (
            receipt.source.task_id.as_str(),
            receipt.memory.heading.as_str(),
            receipt.scope.as_slice()
        ),
        (DEPENDENCY, SCHEMA, ["db/schema.sql".to_owned()].as_slice())
    );
    let stored = object(json::parse(lines[1]).unwrap());
    assert_eq!(
        stored.get("source").unwrap().compact(),
        run.source(DEPENDENCY).compact()
    );
    assert!(
        store.contains(&root),
        "the source's baseline names the project"
    );
}

#[test]
fn scope_is_deduplicated_and_sorted_by_utf16_code_units() {
    let (project, _run) = project();
    // U+1F600 is a surrogate pair (0xD83D…) and sorts before U+FF61 in UTF-16, after it in UTF-8.
    let observation = input(
        RUN_ID,
        TASK,
        PASSWORDS,
        &["src/｡", "src/auth", "src/😀", "src/Z", "src/auth", "src/é"],
    );
    let (project, _) = observe(project, &observation);
    let receipt: Receipt = serde_json::from_str(project.read_text(OUTCOMES).trim_end()).unwrap();
    assert_eq!(
        receipt.scope,
        ["src/Z", "src/auth", "src/é", "src/😀", "src/｡"]
    );
}

#[test]
fn bounds_are_inclusive_and_falsy_relations_are_empty() {
    let heading = "🚀".repeat(150); // 300 UTF-16 units
    let (project, _run) = project();
    let mut project = project.append(LESSONS, format!("\n### {heading}\nLaunch notes.\n"));
    let scope: Vec<String> = (0..30).map(|n| format!("src/p{n:02}")).collect();
    let scope: Vec<&str> = scope.iter().map(String::as_str).collect();
    let interpretation = "é".repeat(2000);
    for falsy in [json!(null), json!(false), json!(0), json!(""), json!(-0.0)] {
        let mut observation = input(RUN_ID, TASK, &heading, &scope);
        observation["interpretation"] = json!(interpretation);
        observation["supersedes"] = falsy.clone();
        observation["contradicts"] = falsy;
        observation["extra"] = json!("ignored");
        let (done, _) = observe(project, &observation);
        let receipt: Receipt = serde_json::from_str(done.read_text(OUTCOMES).trim_end()).unwrap();
        assert_eq!(receipt.memory.heading, heading);
        assert_eq!(receipt.scope.len(), 30);
        assert_eq!(receipt.interpretation, interpretation);
        assert!(receipt.supersedes.is_empty() && receipt.contradicts.is_empty());
        project = done.remove(OUTCOMES);
    }
}

#[test]
fn a_new_attempt_of_the_same_task_may_be_observed_again() {
    let (project, mut run) = project();
    let (project, first) = observe(project, &valid_input());
    run.rerun_and_accept();
    let (project, second) = observe(project, &valid_input());
    assert_ne!(first, second);
    let store = project.read_text(OUTCOMES);
    let attempts: Vec<String> = store
        .lines()
        .map(|line| {
            serde_json::from_str::<Receipt>(line)
                .unwrap()
                .source
                .attempt_id
        })
        .collect();
    assert_eq!(attempts, [run.attempt_id(TASK, 1), run.attempt_id(TASK, 2)]);
}

#[test]
fn a_section_of_any_of_the_six_memory_files_can_be_bound() {
    for file in [
        ".bmad/memory/decisions.md",
        ".bmad/memory/lessons.md",
        ".bmad/memory/patterns.md",
        ".agents/memory/decisions.md",
        ".agents/memory/patterns.md",
    ] {
        let (project, _run) = project();
        let project = project.write(file, "### Hash passwords\nAlways.\n");
        let mut observation = valid_input();
        observation["memory"] = json!({ "file": file, "heading": "Hash passwords" });
        let (project, _) = observe(project, &observation);
        let receipt: Receipt =
            serde_json::from_str(project.read_text(OUTCOMES).trim_end()).unwrap();
        assert_eq!(receipt.memory.file, file);
        // sha256 of the section's full text, trimmed: "Hash passwords\nAlways."
        assert_eq!(
            receipt.memory.text_sha256,
            sha256("Hash passwords\nAlways.")
        );
    }
}

#[test]
fn the_section_is_cut_and_hashed_as_spec_3_7_says() {
    // (lines of the section, heading to name, full text hashed: heading + "\n" + body, trimmed)
    let cases = [
        (
            "###   Padded heading  \nBody.\n\n",
            "Padded heading",
            "Padded heading\nBody.",
        ),
        ("###\tTabbed\nBody.\n", "Tabbed", "Tabbed\nBody."),
        (
            "### Windows heading\r\nBody line\r\n",
            "Windows heading",
            "Windows heading\nBody line",
        ),
        (
            "### Fenced\n```\n### not a heading for Markdown, but one for bmad-plus\n```\n",
            "Fenced",
            "Fenced\n```",
        ),
    ];
    for (section, heading, full_text) in cases {
        let (project, _run) = project();
        let project = project.append(LESSONS, format!("\n{section}"));
        let mut observation = valid_input();
        observation["memory"]["heading"] = json!(heading);
        let (project, _) = observe(project, &observation);
        let receipt: Receipt =
            serde_json::from_str(project.read_text(OUTCOMES).trim_end()).unwrap();
        assert_eq!(receipt.memory.heading, heading);
        assert_eq!(receipt.memory.text_sha256, sha256(full_text), "{heading}");
    }
}

#[test]
fn a_duplicate_input_key_keeps_its_last_value() {
    let (project, _run) = project();
    let text = valid_input().to_string();
    // `{"interpretation":"first",…the valid input…,"interpretation":"last"}`
    let body = text
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .unwrap();
    let text = format!("{{\"interpretation\":\"first\",{body},\"interpretation\":\"last\"}}");
    let ran = project
        .write(INPUT, &text)
        .args(["observe", "--input", INPUT, "--json"])
        .code(0)
        .run();
    let written: Written = ran.json();
    assert_eq!(written.written.interpretation, "last");
}

#[test]
fn relations_are_stored_sorted() {
    let (project, run) = project();
    copy_run(&run, OTHER_RUN);
    copy_run(&run, "third-run");
    let (project, a) = observe(project, &input(OTHER_RUN, TASK, SESSIONS, &["src/auth"]));
    let (project, b) = observe(project, &input("third-run", TASK, SESSIONS, &["src"]));
    let (low, high) = if a < b { (a, b) } else { (b, a) };
    let mut observation = valid_input();
    observation["supersedes"] = json!([high, low]);
    let (project, _) = observe(project, &observation);
    let last = project.read_text(OUTCOMES);
    let receipt: Receipt = serde_json::from_str(last.lines().last().unwrap()).unwrap();
    assert_eq!(receipt.supersedes, [low, high]);
    assert!(receipt.contradicts.is_empty());
}

// ---- refusals -----------------------------------------------------------------------------

/// Writes `observation` (JSON text) as the input and checks the refusal in both forms.
#[track_caller]
fn refused(project: TestProject, observation: &str, message: &str) -> TestProject {
    project
        .write(INPUT, observation)
        .args(["observe", "--input", INPUT])
        .refused("observe", message)
}

/// [`valid_input`] with `edit` applied.
fn edited(edit: impl FnOnce(&mut Json)) -> String {
    let mut observation = valid_input();
    edit(&mut observation);
    observation.to_string()
}

#[test]
#[expect(clippy::too_many_lines, reason = "a table of cases")]
fn usage_errors_are_refused_before_the_lock_and_create_nothing() {
    // No `.bmad/` at all: a refusal before the writer lock must not create it.
    let project = TestProject::new();
    let missing = project.path("missing.json").to_string_lossy().into_owned();
    let project = project
        // bmad-plus reads a missing --input as an empty path and blames the path; we name it.
        .args(["observe"])
        .refused("observe", "--input <file.json> is required")
        .args(["observe", "--input", ""])
        .refused(
            "observe",
            "Memory path must be a normalized project-relative path.",
        )
        .args(["observe", "--input"])
        .refused(
            "observe",
            "a value is required for '--input <file.json>' but none was supplied",
        )
        .args(["observe", "--input", "missing.json"])
        .refused(
            "observe",
            &format!("ENOENT: no such file or directory, stat '{missing}'"),
        )
        .args(["observe", "--input", "../outside.json"])
        .refused(
            "observe",
            "Memory path must be a normalized project-relative path.",
        )
        .args(["observe", "--input", "/etc/hostname"])
        .refused(
            "observe",
            "Memory path must be a normalized project-relative path.",
        )
        .args(["observe", "--input", "in/../observation.json"])
        .refused(
            "observe",
            "Memory path must be a normalized project-relative path.",
        )
        .mkdir("folder.json")
        .args(["observe", "--input", "folder.json"])
        .refused(
            "observe",
            "Memory source must be a regular file of at most 2 MiB.",
        )
        .write("real.json", "{}")
        .symlink("real.json", "link.json")
        .args(["observe", "--input", "link.json"])
        .refused("observe", LINKS)
        .write(INPUT, vec![b' '; 2 * 1024 * 1024 + 1])
        .args(["observe", "--input", INPUT])
        .refused(
            "observe",
            "Memory source must be a regular file of at most 2 MiB.",
        )
        .write(INPUT, b"{\"runId\":\"\xff\"}")
        .args(["observe", "--input", INPUT])
        .refused("observe", "Memory source must contain valid UTF-8.");
    let cases: &[(&str, &str)] = &[
        // Parse errors are described in our own words (docs §10), position included.
        (
            "",
            "Outcome input is not valid JSON: invalid JSON: unexpected end of input at byte 0",
        ),
        (
            "  ",
            "Outcome input is not valid JSON: invalid JSON: unexpected end of input at byte 2",
        ),
        (
            "{",
            "Outcome input is not valid JSON: invalid JSON: expected a string key at byte 1",
        ),
        (
            r#"{"a":1,}"#,
            "Outcome input is not valid JSON: invalid JSON: expected a string key at byte 7",
        ),
        (
            "nul",
            "Outcome input is not valid JSON: invalid JSON: unexpected token at byte 0",
        ),
        (
            r#"{"a":1} x"#,
            "Outcome input is not valid JSON: invalid JSON: unexpected text after the value at byte 8",
        ),
        (
            r#""\ud800""#,
            "Outcome input is not valid JSON: invalid JSON: lone surrogate in string escape at byte 7",
        ),
        ("null", "Outcome input is required."),
        ("3", "Outcome input is required."),
        ("0", "Outcome input is required."),
        ("\"x\"", "Outcome input is required."),
        ("\"\"", "Outcome input is required."),
        ("true", "Outcome input is required."),
        ("false", "Outcome input is required."),
        ("[]", "Outcome input must be a JSON object."),
        (
            r#"[{"runId":"demo-run"}]"#,
            "Outcome input must be a JSON object.",
        ),
    ];
    let mut project = project;
    for (text, message) in cases {
        project = refused(project, text, message);
    }
    assert!(
        !project.path(".bmad").exists(),
        "no memory folder was created"
    );
}

#[test]
fn run_and_task_ids_must_be_non_empty_bounded_text() {
    const RUN: &str = "Run ID must be non-empty bounded text.";
    const TASK_ID: &str = "Task ID must be non-empty bounded text.";
    const RUN_PATTERN: &str = "Nexus: Run ID must use 1-64 lowercase letters, numbers, _ or -.";
    let (project, run) = project();
    let missing_run = format!(
        "ENOENT: no such file or directory, stat '{}'",
        run.root()
            .join(".bmad-plus/nexus/runs/missing-run.json")
            .display()
    );
    let cases: Vec<(Json, Json, &str)> = vec![
        (json!(null), json!(TASK), RUN),
        (json!(""), json!(TASK), RUN),
        (json!("   "), json!(TASK), RUN),
        (json!("\u{3000}\u{feff}"), json!(TASK), RUN),
        (json!(3), json!(TASK), RUN),
        (json!(["demo-run"]), json!(TASK), RUN),
        (json!("a".repeat(1001)), json!(TASK), RUN),
        (json!("🚀".repeat(501)), json!(TASK), RUN),
        // The run id is checked before the task id.
        (json!(""), json!(""), RUN),
        (json!(RUN_ID), json!(null), TASK_ID),
        (json!(RUN_ID), json!(""), TASK_ID),
        (json!(RUN_ID), json!(" \t\n"), TASK_ID),
        (json!(RUN_ID), json!(false), TASK_ID),
        (json!(RUN_ID), json!("t".repeat(1001)), TASK_ID),
        // Both are checked before the run is read.
        (json!("missing-run"), json!(""), TASK_ID),
        // Bounded text, then Nexus's own rules.
        (json!("a".repeat(1000)), json!(TASK), RUN_PATTERN),
        (json!("🚀".repeat(500)), json!(TASK), RUN_PATTERN),
        (json!("Demo-run"), json!(TASK), RUN_PATTERN),
        (json!(" demo-run"), json!(TASK), RUN_PATTERN),
        (json!("missing-run"), json!(TASK), &missing_run),
        (json!(RUN_ID), json!("t".repeat(1000)), NOT_ACCEPTED),
        (json!(RUN_ID), json!("unknown-task"), NOT_ACCEPTED),
        (json!(RUN_ID), json!(" auth"), NOT_ACCEPTED),
    ];
    let mut project = project;
    for (run_id, task_id, message) in cases {
        let observation = edited(|o| {
            o["runId"] = run_id;
            o["taskId"] = task_id;
        });
        project = refused(project, &observation, message);
    }
}

/// A change to the run or its files, as a test case.
type Change = fn(&mut NexusRun);

#[test]
#[expect(clippy::too_many_lines, reason = "a table of cases")]
fn every_nexus_refusal_changes_nothing() {
    const CORRUPT: &str = "Nexus: Corrupt run state; original bytes were preserved.";
    const FOREIGN: &str = "Nexus: Corrupt or foreign run state; original bytes were preserved.";
    const NOT_BOUND: &str = "Nexus acceptance does not bind the current attempt and artifacts.";
    const LIFECYCLE: &str = "Nexus: Invalid attempt lifecycle record.";
    let cases: &[(&str, &str, Change, &str)] = &[
        (
            "task not accepted",
            DEPENDENCY,
            NexusRun::dependency_pending,
            NOT_ACCEPTED,
        ),
        (
            "dependency not accepted",
            TASK,
            NexusRun::dependency_pending,
            NOT_ACCEPTED,
        ),
        (
            "verification failed",
            TASK,
            NexusRun::fail_verification,
            NOT_ACCEPTED,
        ),
        (
            "attempt not the one accepted",
            TASK,
            NexusRun::add_unaccepted_attempt,
            NOT_BOUND,
        ),
        (
            "artifact changed",
            TASK,
            |r| r.edit_artifact(),
            NOT_ACCEPTED,
        ),
        (
            "dependency's artifact changed",
            TASK,
            |r| r.edit_dependency_artifact(),
            NOT_ACCEPTED,
        ),
        (
            "file added in scope",
            TASK,
            |r| r.add_file_in_scope(),
            NOT_ACCEPTED,
        ),
        (
            "nonportable file in scope",
            TASK,
            |r| r.add_nonportable_file(),
            NOT_ACCEPTED,
        ),
        (
            "link in scope",
            TASK,
            |r| r.add_symlink_in_scope(),
            NOT_ACCEPTED,
        ),
        (
            "resource changed",
            TASK,
            |r| r.edit_resource(),
            NOT_ACCEPTED,
        ),
        (
            "resource changed (dependency)",
            DEPENDENCY,
            |r| r.edit_resource(),
            NOT_ACCEPTED,
        ),
        (
            "verifier executable changed",
            TASK,
            NexusRun::change_verifier,
            NOT_ACCEPTED,
        ),
        ("dependency cycle", TASK, NexusRun::add_cycle, NOT_ACCEPTED),
        (
            "Nexus writer lock",
            TASK,
            |r| r.lock(WRITER_LOCK),
            NEXUS_BUSY,
        ),
        (
            "Nexus recovery lock",
            TASK,
            |r| r.lock(RECOVERY_LOCK),
            NEXUS_BUSY,
        ),
        ("run file tampered", TASK, |r| r.tamper_envelope(), FOREIGN),
        (
            "foreign project path",
            TASK,
            NexusRun::foreign_project,
            FOREIGN,
        ),
        (
            "a corrupt run wins over a lock",
            TASK,
            |r| {
                r.tamper_envelope();
                r.lock(WRITER_LOCK);
            },
            FOREIGN,
        ),
        (
            "plan edited",
            TASK,
            NexusRun::break_plan_integrity,
            "Nexus: Run plan integrity mismatch.",
        ),
        (
            "no cancellation record",
            TASK,
            NexusRun::remove_cancellation,
            LIFECYCLE,
        ),
        (
            "no backend record",
            TASK,
            NexusRun::remove_backend,
            LIFECYCLE,
        ),
        (
            "run file not JSON",
            TASK,
            |r| fs::write(r.run_path(), "{\"schemaVersion\":1,").unwrap(),
            CORRUPT,
        ),
    ];
    for (what, task, change, message) in cases {
        let (project, mut run) = project();
        change(&mut run);
        let scope = if *task == TASK { "src/auth" } else { "db" };
        let observation = input(RUN_ID, task, SCHEMA, &[scope]).to_string();
        eprintln!("case: {what}");
        let _ = refused(project, &observation, message);
    }
}

#[test]
fn a_project_verifier_that_did_not_change_is_accepted() {
    let (project, mut run) = project();
    run.use_project_verifier();
    let (project, _) = observe(project, &valid_input());
    let receipt: Receipt = serde_json::from_str(project.read_text(OUTCOMES).trim_end()).unwrap();
    assert_eq!(receipt.source.attempt_id, run.current_attempt_id(TASK));
}

#[test]
fn the_memory_section_must_be_one_section_of_an_allowed_file() {
    const NOT_ALLOWED: &str =
        "Outcome memory source must be a project decisions, lessons or patterns Markdown file.";
    const HEADING: &str = "Memory heading must be non-empty bounded text.";
    let (project, run) = project();
    let decisions = run
        .root()
        .join(".bmad/memory/decisions.md")
        .to_string_lossy()
        .into_owned();
    let enoent = format!("ENOENT: no such file or directory, stat '{decisions}'");
    let memory = |file: Json, heading: Json| json!({ "file": file, "heading": heading });
    let cases: Vec<(Json, &str)> = vec![
        (json!(null), NOT_ALLOWED),
        (json!("lessons"), NOT_ALLOWED),
        (json!([LESSONS, PASSWORDS]), NOT_ALLOWED),
        (
            memory(json!(".agents/memory/notes.md"), json!(PASSWORDS)),
            NOT_ALLOWED,
        ),
        (
            memory(json!("docs/lessons.md"), json!(PASSWORDS)),
            NOT_ALLOWED,
        ),
        (
            memory(json!(".agents/memory/lessons.MD"), json!(PASSWORDS)),
            NOT_ALLOWED,
        ),
        (
            memory(json!("./.agents/memory/lessons.md"), json!(PASSWORDS)),
            NOT_ALLOWED,
        ),
        (
            memory(json!(".agents/memory/lessons.md "), json!(PASSWORDS)),
            NOT_ALLOWED,
        ),
        (
            memory(json!(".agents/memory/lessons.md\n"), json!(PASSWORDS)),
            NOT_ALLOWED,
        ),
        (
            memory(json!("x/.agents/memory/lessons.md"), json!(PASSWORDS)),
            NOT_ALLOWED,
        ),
        (
            memory(json!(".agents/memory/sub/lessons.md"), json!(PASSWORDS)),
            NOT_ALLOWED,
        ),
        (
            memory(json!(".agents\\memory\\lessons.md"), json!(PASSWORDS)),
            NOT_ALLOWED,
        ),
        (memory(json!(3), json!(PASSWORDS)), NOT_ALLOWED),
        (json!({ "heading": PASSWORDS }), NOT_ALLOWED),
        // The file is checked before the heading.
        (memory(json!("docs/lessons.md"), json!("")), NOT_ALLOWED),
        (memory(json!(LESSONS), json!(null)), HEADING),
        (memory(json!(LESSONS), json!("")), HEADING),
        (memory(json!(LESSONS), json!("  \u{a0}")), HEADING),
        (memory(json!(LESSONS), json!(7)), HEADING),
        (memory(json!(LESSONS), json!("h".repeat(301))), HEADING),
        (memory(json!(LESSONS), json!("🚀".repeat(151))), HEADING),
        // Bounded, but no such section.
        (memory(json!(LESSONS), json!("h".repeat(300))), EXACTLY_ONE),
        (memory(json!(LESSONS), json!("No such lesson")), EXACTLY_ONE),
        (
            memory(json!(LESSONS), json!(format!(" {SESSIONS}"))),
            EXACTLY_ONE,
        ),
        (
            memory(json!(LESSONS), json!(SESSIONS.to_lowercase())),
            EXACTLY_ONE,
        ),
        (memory(json!(LESSONS), json!("Lessons")), EXACTLY_ONE),
        // An allowed file that does not exist.
        (
            memory(json!(".bmad/memory/decisions.md"), json!(PASSWORDS)),
            &enoent,
        ),
    ];
    let mut project = project;
    for (memory, message) in cases {
        let observation = edited(|o| o["memory"] = memory);
        project = refused(project, &observation, message);
    }
}

#[test]
fn a_heading_present_twice_identifies_no_section() {
    let (project, _run) = project();
    let project = project.append(
        LESSONS,
        format!("\n### {SESSIONS}\nA second, older copy.\n"),
    );
    let observation = input(RUN_ID, TASK, SESSIONS, &["src/auth"]).to_string();
    let _ = refused(project, &observation, EXACTLY_ONE);
}

/// A change to the test project, as a test case.
type Setup = fn(TestProject) -> TestProject;

#[test]
fn the_memory_file_is_read_with_the_confined_reader() {
    let cases: &[(&str, Setup, &str)] = &[
        (
            "a link",
            |p| {
                p.write("notes/real.md", LESSONS_TEXT)
                    .remove(LESSONS)
                    .symlink("../../notes/real.md", LESSONS)
            },
            LINKS,
        ),
        (
            "a linked folder",
            |p| {
                p.write("notes/memory/lessons.md", LESSONS_TEXT)
                    .remove(".agents/memory")
                    .symlink("../notes/memory", ".agents/memory")
            },
            LINKS,
        ),
        (
            "a folder",
            |p| p.remove(LESSONS).mkdir(LESSONS),
            "Memory source must be a regular file of at most 2 MiB.",
        ),
        (
            "not UTF-8",
            |p| p.append(LESSONS, b"\xff\n"),
            "Memory source must contain valid UTF-8.",
        ),
        (
            "over 2 MiB",
            |p| p.append(LESSONS, vec![b'x'; 2 * 1024 * 1024]),
            "Memory source must be a regular file of at most 2 MiB.",
        ),
    ];
    for (what, setup, message) in cases {
        let (project, _run) = project();
        eprintln!("case: {what}");
        let _ = refused(setup(project), &valid_input().to_string(), message);
    }
}

#[test]
fn the_scope_must_be_normalized_and_within_the_task_scope() {
    const REQUIRED: &str = "An explicit non-empty project scope is required.";
    const NORMALIZED: &str = "Outcome scope must be a normalized relative path.";
    const EXCEEDS: &str = "Outcome scope exceeds the accepted task scope.";
    let too_many: Vec<String> = (0..31).map(|n| format!("src/p{n}")).collect();
    let cases: Vec<(Json, &str)> = vec![
        (json!(null), REQUIRED),
        (json!([]), REQUIRED),
        (json!("src"), REQUIRED),
        (json!({ "0": "src" }), REQUIRED),
        (json!(too_many), REQUIRED),
        // 31 entries even though only one path after de-duplication.
        (json!(vec!["src/auth"; 31]), REQUIRED),
        (json!(["src/../db"]), NORMALIZED),
        (json!([".."]), NORMALIZED),
        (json!(["src/auth/.."]), NORMALIZED),
        (json!(["/src/auth"]), NORMALIZED),
        (json!(["/abs"]), NORMALIZED),
        (json!(["src\\auth"]), NORMALIZED),
        (json!(["a\\b"]), NORMALIZED),
        (json!(["c:x"]), NORMALIZED),
        (json!(["src/c:x"]), NORMALIZED),
        (json!([""]), NORMALIZED),
        (json!(["src/"]), NORMALIZED),
        (json!(["./src"]), NORMALIZED),
        (json!(["src/./auth"]), NORMALIZED),
        (json!(["src//auth"]), NORMALIZED),
        (json!([3]), NORMALIZED),
        (json!([null]), NORMALIZED),
        (json!(["src/auth", ["src"]]), NORMALIZED),
        // Every path is checked before any is compared with the task's scope.
        (json!(["db", "../x"]), NORMALIZED),
        (json!(["db"]), EXCEEDS),
        (json!(["db/schema.sql"]), EXCEEDS),
        (json!(["srcx"]), EXCEEDS),
        (json!(["sr"]), EXCEEDS),
        (json!(["SRC"]), EXCEEDS),
        (json!(["tools"]), EXCEEDS),
        (json!(["src/auth", "docs"]), EXCEEDS),
    ];
    let (mut project, _run) = project();
    for (scope, message) in cases {
        let observation = edited(|o| o["scope"] = scope);
        project = refused(project, &observation, message);
    }
}

#[test]
fn relations_must_name_earlier_overlapping_receipts() {
    const LIST: &str = "Outcome relationships must be a unique bounded receipt-ID list.";
    const RELATED: &str = "Related outcome must exist in the same applicable project scope.";
    const BOTH: &str = "A receipt cannot be both superseded and contradicted.";
    let (project, run) = project();
    copy_run(&run, OTHER_RUN);
    // One receipt over `db` (does not overlap `src/auth`), one over a file inside `src/auth`.
    let (project, db) = observe(project, &input(RUN_ID, DEPENDENCY, SCHEMA, &["db"]));
    let (mut project, session) = observe(
        project,
        &input(OTHER_RUN, TASK, SESSIONS, &["src/auth/session.js"]),
    );
    let unknown = "0".repeat(64);
    let many: Vec<String> = (0..31).map(|n| format!("{n:064x}")).collect();
    let cases: Vec<(Json, Json, &str)> = vec![
        (json!([unknown]), json!([]), RELATED),
        (json!([]), json!([unknown]), RELATED),
        (json!([db]), json!([]), RELATED),
        (json!([]), json!([db]), RELATED),
        (json!([session, session]), json!([]), LIST),
        (json!([]), json!([session, session]), LIST),
        (json!(session), json!([]), LIST),
        (json!({ "0": session }), json!([]), LIST),
        (json!(true), json!([]), LIST),
        (json!(1), json!([]), LIST),
        (json!(many), json!([]), LIST),
        (json!([1, 1]), json!([]), LIST),
        // docs §8 step 7: "an array of at most 30 unique strings" — any other item is refused
        // with the list message (bmad-plus would look it up and say RELATED).
        (json!([3]), json!([]), LIST),
        (json!([null]), json!([]), LIST),
        (json!([[session]]), json!([]), LIST),
        (json!([[], []]), json!([]), LIST),
        // `supersedes` is fully checked before `contradicts`.
        (json!([unknown]), json!([session, session]), RELATED),
        (json!([session, session]), json!([unknown]), LIST),
        (json!([session]), json!([session]), BOTH),
        (json!([session]), json!("nope"), LIST),
    ];
    for (supersedes, contradicts, message) in cases {
        let observation = edited(|o| {
            o["supersedes"] = supersedes;
            o["contradicts"] = contradicts;
        });
        project = refused(project, &observation, message);
    }
}

#[test]
fn interpretation_must_be_non_empty_bounded_text() {
    const MESSAGE: &str = "Lesson interpretation must be non-empty bounded text.";
    let (mut project, _run) = project();
    for interpretation in [
        json!(null),
        json!(""),
        json!(" \n\t\u{2028}"),
        json!(42),
        json!(["why"]),
        json!("w".repeat(2001)),
        json!("🚀".repeat(1001)),
    ] {
        let observation = edited(|o| o["interpretation"] = interpretation);
        project = refused(project, &observation, MESSAGE);
    }
    // Without the key at all.
    let observation = edited(|o| {
        o.as_object_mut().unwrap().remove("interpretation");
    });
    let _ = refused(project, &observation, MESSAGE);
}

#[test]
fn a_task_attempt_supplies_one_receipt() {
    const DUPLICATE: &str = "Duplicate outcome: this task attempt already supplied a receipt.";
    let (project, _run) = project();
    let (project, _) = observe(project, &valid_input());
    let project = refused(project, &valid_input().to_string(), DUPLICATE);
    // Another section, another scope: still the same attempt. Step 3 comes before step 4.
    let project = refused(
        project,
        &input(RUN_ID, TASK, SESSIONS, &["src/auth/session.js"]).to_string(),
        DUPLICATE,
    );
    let _ = refused(
        project,
        &edited(|o| o["memory"] = json!({ "file": "docs/lessons.md", "heading": "" })),
        DUPLICATE,
    );
}

#[test]
fn the_store_holds_at_most_a_thousand_receipts() {
    const FULL: &str = "Outcome store is full; archive it explicitly.";
    let (project, _run) = project();
    let project = project.write(OUTCOMES, synthetic_store(1000));
    let project = refused(project, &valid_input().to_string(), FULL);
    // Every other step runs first.
    let project = refused(
        project,
        &edited(|o| o["interpretation"] = json!("")),
        "Lesson interpretation must be non-empty bounded text.",
    );
    // 999 receipts: one more fits.
    let before = synthetic_store(999);
    let (project, id) = observe(project.write(OUTCOMES, &before), &valid_input());
    let store = project.read_text(OUTCOMES);
    assert!(store.starts_with(&before));
    assert_eq!(store.lines().count(), 1000);
    assert!(store.lines().last().unwrap().contains(&id));
    let _ = refused(
        project,
        &input(RUN_ID, DEPENDENCY, SCHEMA, &["db"]).to_string(),
        FULL,
    );
}

#[test]
fn the_receipt_store_is_read_first() {
    // Step 1 wins over every input check made under the lock.
    let (project, _run) = project();
    let project = project.write(OUTCOMES, "{}");
    let _ = refused(
        project,
        &edited(|o| o["runId"] = json!("")),
        "Outcome store has an incomplete final record.",
    );
}

#[test]
fn the_receipt_is_written_under_the_writer_lock() {
    const OCCUPIED: &str = "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock.";
    let (project, _run) = project();
    let project = project.write(
        crate::support::LOCK,
        r#"{"pid":1,"hostname":"elsewhere","token":"t"}"#,
    );
    let _ = refused(project, &valid_input().to_string(), OCCUPIED);
}

#[test]
fn the_source_is_resolved_before_the_memory_scope_and_interpretation() {
    let (project, run) = project();
    run.edit_artifact();
    let bad = edited(|o| {
        o["memory"] = json!({ "file": "docs/x.md", "heading": "" });
        o["scope"] = json!([]);
        o["supersedes"] = json!("x");
        o["interpretation"] = json!("");
    });
    let _ = refused(project, &bad, NOT_ACCEPTED);
}

#[test]
fn the_memory_section_is_checked_before_the_scope_then_relations_then_interpretation() {
    let (project, _run) = project();
    let steps: [(&str, Json, &str); 4] = [
        (
            "memory",
            json!({ "file": LESSONS, "heading": "No such lesson" }),
            EXACTLY_ONE,
        ),
        (
            "scope",
            json!(["db"]),
            "Outcome scope exceeds the accepted task scope.",
        ),
        (
            "contradicts",
            json!(["x", "x"]),
            "Outcome relationships must be a unique bounded receipt-ID list.",
        ),
        (
            "interpretation",
            json!(""),
            "Lesson interpretation must be non-empty bounded text.",
        ),
    ];
    // Break every field from `first` on: the first broken one is reported.
    let mut project = project;
    for first in 0..steps.len() {
        let observation = edited(|o| {
            for (key, value, _) in &steps[first..] {
                o[*key] = value.clone();
            }
        });
        project = refused(project, &observation, steps[first].2);
    }
}
