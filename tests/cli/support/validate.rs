//! Every `--json` output of every run checked against its JSON Schema in `schemas/`.
//!
//! [`crate::support::TestProject::run`] calls [`check_output`] on each run, so no test can skip
//! it: the command line is parsed with the binary's own clap definition to find the command (and
//! its sub-action: `lock --recover`, `doctor --repair-tail`, `decision adopt`, `hooks remind`…),
//! which names the schema, or the part of it (`doctor.json#/$defs/repair`), the output must
//! match. A failure (exit 1) must match `error.json` — or, for the two commands that report a
//! finding with exit 1 (`doctor`, `lint`), their own schema.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bmad_mem::cli::{Cli, shield_negative_numbers};
use boon::{Compiler, Draft, SchemaIndex, Schemas};
use clap::CommandFactory;
use clap::error::ErrorKind;

/// The prefix of every schema's `$id` (the files are named after what follows it).
pub const ID_BASE: &str = "https://bmad-mem.invalid/schemas/";

/// The commands whose output is not a `--json` document, and why.
pub const WITHOUT_JSON: [(&str, &str); 4] = [
    (
        "mcp",
        "a stdio server: stdout carries JSON-RPC messages, not one result",
    ),
    (
        "completions",
        "a shell's completion script, whatever the options",
    ),
    ("man", "a manual page in roff, whatever the options"),
    (
        "merge-driver",
        "git's merge driver: it answers git with its exit status and the merged file",
    ),
];

/// The schemas that are no command's: the project configuration, the failure document,
/// `--version --json`, and the MCP tool `memory_read`'s result.
pub const NOT_A_COMMAND: [&str; 5] = [
    "config.json",
    "error.json",
    "read.json",
    "reinforcement.json",
    "version.json",
];

/// The exit status of a simulated crash (`BMAD_MEM_CRASH_AT`): the process stops dead, prints
/// nothing.
const CRASHED: i32 = 70;

/// `schemas/` in the crate.
#[must_use]
pub fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

/// Every schema file, by file name, parsed.
#[must_use]
pub fn schema_files() -> BTreeMap<String, serde_json::Value> {
    let mut files = BTreeMap::new();
    for entry in fs::read_dir(schema_dir()).expect("read schemas/") {
        let path = entry.expect("schemas/ entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a UTF-8 file name")
            .to_owned();
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {name}: {e}"));
        let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {name}: {e}"));
        files.insert(name, json);
    }
    files
}

/// The schema (`<file>.json`, or `<file>.json#/$defs/<part>`) a successful `--json` run of
/// `command`, with its parsed arguments `sub`, must match; `None` for a command without JSON
/// output.
///
/// # Panics
/// For a command this table does not know: a new command needs its schema.
#[must_use]
pub fn schema_for(command: &str, sub: &clap::ArgMatches) -> Option<String> {
    let part = |file: &str, part: &str| Some(format!("{file}.json#/$defs/{part}"));
    match command {
        "recall" | "write" | "reinforce" | "observe" | "outcomes" | "archive" | "init"
        | "status" | "brief" | "handoff" | "export" | "scan" | "propose" | "import" | "lint"
        | "guard" | "index" | "view" => Some(format!("{command}.json")),
        "lock" if sub.get_flag("recover") => part("lock", "recovery"),
        "lock" => part("lock", "inspection"),
        "doctor" if sub.get_flag("rebuild_views") => part("doctor", "rebuild"),
        "doctor" if sub.get_flag("rebuild_scores") => part("doctor", "rebuildScores"),
        "doctor"
            if sub.contains_id("repair_tail")
                || sub.contains_id("repair_encoding")
                || sub.contains_id("dedupe") =>
        {
            part("doctor", "repair")
        }
        "doctor" => part("doctor", "report"),
        "admit" if sub.get_flag("list") => part("admit", "list"),
        "admit" if sub.contains_id("refuse") => part("admit", "refused"),
        // Finishing ends as an admission or a refusal, whichever was interrupted.
        "admit" if sub.contains_id("finish") => Some("admit.json".to_owned()),
        "admit" if sub.contains_id("id") => part("admit", "admitted"),
        "admit" => Some("admit.json".to_owned()),
        "decision" => match sub.subcommand_name() {
            Some("adopt") => part("decision", "adopt"),
            Some("supersede" | "abrogate" | "accept" | "reject") => part("decision", "change"),
            other => panic!("no schema is known for `decision {other:?} --json`"),
        },
        "git" => match sub.subcommand() {
            Some(("setup", setup)) if setup.get_flag("remove_hooks") => part("git", "removeHooks"),
            Some(("setup", _)) => part("git", "setup"),
            Some(("hook", _)) => part("git", "hook"),
            other => panic!(
                "no schema is known for `git {:?} --json`",
                other.map(|(name, _)| name)
            ),
        },
        "model" => match sub.subcommand_name() {
            Some("install" | "status") => part("model", "state"),
            Some("remove") => part("model", "removed"),
            other => panic!("no schema is known for `model {other:?} --json`"),
        },
        "hooks" => match sub.get_one::<String>("action").map(String::as_str) {
            Some("remind") => part("hooks", "remind"),
            Some("check") => part("hooks", "check"),
            _ => part("hooks", "install"),
        },
        _ if WITHOUT_JSON.iter().any(|(name, _)| *name == command) => None,
        other => panic!("no schema is known for `{other} --json`: add it to schemas/ and here"),
    }
}

/// The commands that may print their report, not an error, with exit status 1.
const REPORT_ON_FAILURE: [&str; 3] = ["doctor", "lint", "model"];

struct Compiled {
    schemas: Schemas,
    by_location: BTreeMap<String, SchemaIndex>,
}

/// Every schema file and every `$defs` entry, compiled once per test binary.
fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let mut compiler = Compiler::new();
        compiler.set_default_draft(Draft::V2020_12);
        let files = schema_files();
        for (name, json) in &files {
            compiler
                .add_resource(&format!("{ID_BASE}{name}"), json.clone())
                .unwrap_or_else(|e| panic!("schemas/{name}: {e:#}"));
        }
        let mut schemas = Schemas::new();
        let mut by_location = BTreeMap::new();
        for (name, json) in &files {
            let mut locations = vec![name.clone()];
            if let Some(defs) = json.get("$defs").and_then(|d| d.as_object()) {
                locations.extend(defs.keys().map(|part| format!("{name}#/$defs/{part}")));
            }
            for location in locations {
                let index = compiler
                    .compile(&format!("{ID_BASE}{location}"), &mut schemas)
                    .unwrap_or_else(|e| panic!("schemas/{location}: {e:#}"));
                by_location.insert(location, index);
            }
        }
        Compiled {
            schemas,
            by_location,
        }
    })
}

/// Validates `json` against the schema at `location` (`recall.json`,
/// `doctor.json#/$defs/repair`); the violations, as text, when it does not match.
///
/// # Panics
/// When no schema is at `location`.
pub fn validate(location: &str, json: &serde_json::Value) -> Result<(), String> {
    let compiled = compiled();
    let index = *compiled
        .by_location
        .get(location)
        .unwrap_or_else(|| panic!("no schema at schemas/{location}"));
    compiled
        .schemas
        .validate(json, index)
        .map_err(|e| format!("{e:#}"))
}

/// Whether `--json` is among the options (before `--`), as the binary tells when its parser
/// refused the command line.
fn json_among_options(args: &[OsString]) -> bool {
    args.iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "--json")
}

/// Checks the stdout of one run: under `--json`, a success must match its command's schema and
/// a failure `error.json`.
///
/// # Panics
/// Naming the schema, the arguments and the violation, when the output does not match.
pub fn check_output(args: &[OsString], code: i32, stdout: &str) {
    let words: Vec<OsString> = std::iter::once(OsString::from("bmad-mem"))
        .chain(args.iter().cloned())
        .collect();
    let (json, schema, reports_on_failure) =
        match Cli::command().try_get_matches_from(shield_negative_numbers(words)) {
            Ok(matches) => {
                let (command, sub) = matches.subcommand().expect("an action was parsed");
                (
                    matches.get_flag("json"),
                    schema_for(command, sub),
                    REPORT_ON_FAILURE.contains(&command),
                )
            }
            // Help is text, whatever the options.
            Err(e) if e.kind() == ErrorKind::DisplayHelp => return,
            Err(e) if e.kind() == ErrorKind::DisplayVersion => (
                json_among_options(args),
                Some("version.json".to_owned()),
                false,
            ),
            // Refused by the parser: an error, under `--json` when it was among the options.
            Err(_) => (json_among_options(args), None, false),
        };
    if !json || (code == CRASHED && stdout.is_empty()) {
        return;
    }
    let context = |schemas: &[&str], violation: &str| {
        format!(
            "the --json output does not match schemas/{}\nargs: {args:?}\nexit status: {code}\n--- violation\n{violation}\n--- stdout\n{stdout}---",
            schemas.join(" nor schemas/")
        )
    };
    let candidates: Vec<&str> = match (code, schema.as_deref()) {
        (1, Some(schema)) if reports_on_failure => vec!["error.json", schema],
        (1, _) => vec!["error.json"],
        (_, Some(schema)) => vec![schema],
        (_, None) => return,
    };
    let value: serde_json::Value = serde_json::from_str(stdout)
        .unwrap_or_else(|e| panic!("{}", context(&candidates, &format!("not JSON: {e}"))));
    let mut violations = Vec::new();
    for schema in &candidates {
        match validate(schema, &value) {
            Ok(()) => return,
            Err(violation) => violations.push(format!("{schema}: {violation}")),
        }
    }
    panic!("{}", context(&candidates, &violations.join("\n")));
}
