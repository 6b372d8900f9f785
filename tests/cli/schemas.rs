//! The JSON Schemas of `schemas/`: each one valid draft 2020-12 and written to our conventions,
//! one for every command that prints a `--json` result, and the check every run goes through
//! (`support::validate`) able to fail. The outputs themselves are validated by every test that
//! runs the binary with `--json`.

use std::ffi::OsString;

use boon::{Compiler, Draft, Schemas};
use clap::CommandFactory;
use serde_json::{Value, json};

use bmad_mem::cli::Cli;

use crate::support::TestProject;
use crate::support::validate::{
    ID_BASE, NOT_A_COMMAND, WITHOUT_JSON, check_output, schema_dir, schema_files, schema_for,
    validate,
};

const META: &str = "https://json-schema.org/draft/2020-12/schema";

#[test]
fn every_schema_is_valid_draft_2020_12() {
    let mut compiler = Compiler::new();
    let mut schemas = Schemas::new();
    let meta = compiler
        .compile(META, &mut schemas)
        .expect("the 2020-12 metaschema");
    for (name, schema) in schema_files() {
        assert_eq!(schema["$schema"], META, "{name}: $schema");
        if let Err(e) = schemas.validate(&schema, meta) {
            panic!("schemas/{name} is not valid draft 2020-12:\n{e:#}");
        }
        let mut one = Compiler::new();
        one.set_default_draft(Draft::V2020_12);
        if let Err(e) = one.compile(
            &format!("{}", schema_dir().join(&name).display()),
            &mut Schemas::new(),
        ) {
            panic!("schemas/{name} does not compile:\n{e:#}");
        }
    }
}

/// Every object shape (`"type": "object"` with properties) states its required keys and
/// whether it is closed; `$id` is the file's, with a title and a
/// description.
#[test]
fn every_schema_follows_the_conventions() {
    fn walk(name: &str, at: &str, schema: &Value) {
        match schema {
            Value::Object(map) => {
                if map.contains_key("properties") && map.get("type") == Some(&json!("object")) {
                    assert!(
                        map.contains_key("additionalProperties"),
                        "schemas/{name} at {at}: an object shape must say whether it is closed"
                    );
                    assert!(
                        map.contains_key("required"),
                        "schemas/{name} at {at}: required keys"
                    );
                }
                for (key, value) in map {
                    walk(name, &format!("{at}/{key}"), value);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(name, &format!("{at}/{i}"), item);
                }
            }
            _ => {}
        }
    }
    let files = schema_files();
    assert!(!files.is_empty());
    for (name, schema) in &files {
        assert!(
            std::path::Path::new(name)
                .extension()
                .is_some_and(|e| e == "json"),
            "schemas/{name}: only schemas here"
        );
        assert_eq!(schema["$id"], format!("{ID_BASE}{name}"), "{name}: $id");
        for key in ["title", "description"] {
            assert!(
                schema[key].as_str().is_some_and(|t| !t.is_empty()),
                "{name}: {key}"
            );
        }
        walk(name, "#", schema);
    }
}

/// The forms of each command, as arguments after its name, whose output has a schema of its own.
const FORMS: &[&[&str]] = &[
    &["lock", "--recover", "--expect", "x"],
    &["doctor", "--repair-tail", "x"],
    &["doctor", "--repair-encoding", "x"],
    &["doctor", "--rebuild-views"],
    &["doctor", "--rebuild-scores"],
    &["doctor", "--dedupe", "x"],
    &["admit", "--list"],
    &["admit", "c1", "--expect", "x"],
    &["admit", "--refuse", "c1"],
    &["admit", "--finish", "c1"],
    &["hooks", "install", "--agent", "codex"],
    &["hooks", "remind", "--agent", "codex"],
    &["hooks", "check", "--agent", "codex"],
    &["hooks", "uninstall", "--agent", "codex"],
];

/// Each command of clap's definition, each of its sub-commands and each form above, mapped to an
/// existing schema; and each schema file used.
#[test]
fn every_command_with_json_output_has_a_schema() {
    let cli = Cli::command();
    let mut lines: Vec<Vec<String>> = Vec::new();
    for command in cli.get_subcommands() {
        let name = command.get_name().to_owned();
        if command.has_subcommands() {
            for sub in command.get_subcommands() {
                lines.push(vec![name.clone(), sub.get_name().to_owned()]);
            }
        } else {
            lines.push(vec![name]);
        }
    }
    lines.extend(
        FORMS
            .iter()
            .map(|form| form.iter().map(|w| (*w).to_owned()).collect()),
    );
    let mut used: Vec<String> = NOT_A_COMMAND.map(str::to_owned).to_vec();
    for line in &lines {
        let words = std::iter::once("bmad-mem".to_owned()).chain(line.iter().cloned());
        let matches = Cli::command()
            .ignore_errors(true)
            .try_get_matches_from(words)
            .unwrap_or_else(|e| panic!("{line:?}: {e}"));
        let (name, sub) = matches.subcommand().expect("an action");
        assert_eq!(name, line[0]);
        match schema_for(name, sub) {
            Some(location) => {
                // Panics when nothing is at that location.
                let _ = validate(&location, &json!(null));
                used.push(location.split('#').next().unwrap_or_default().to_owned());
            }
            None => assert!(
                WITHOUT_JSON.iter().any(|(without, _)| *without == name),
                "{line:?}"
            ),
        }
    }
    used.sort();
    used.dedup();
    let files: Vec<String> = schema_files().into_keys().collect();
    assert_eq!(used, files, "every schema file is some command's");
}

fn args(words: &[&str]) -> Vec<OsString> {
    words.iter().map(OsString::from).collect()
}

#[test]
#[should_panic(expected = "does not match schemas/recall.json")]
fn an_output_with_an_unknown_key_fails() {
    check_output(
        &args(&["--json", "recall", "x"]),
        0,
        r#"{"query":"x","scope":"project","ranking":"lexical","count":0,"results":[],"extra":1}"#,
    );
}

#[test]
#[should_panic(expected = "does not match schemas/doctor.json#/$defs/repair")]
fn a_sub_action_is_checked_against_its_own_shape() {
    check_output(
        &args(&["doctor", "--json", "--rebuild-views"]),
        0,
        r#"{"rebuilt":[]}"#,
    );
    // Right for --rebuild-views, wrong for a repair.
    check_output(
        &args(&[
            "doctor",
            "--json",
            "--repair-tail",
            ".bmad/memory/journal.ndjson",
        ]),
        0,
        r#"{"rebuilt":[]}"#,
    );
}

#[test]
#[should_panic(expected = "does not match schemas/error.json")]
fn a_failure_must_be_an_error_document() {
    check_output(&args(&["--json", "write"]), 1, r#"{"written":{}}"#);
}

#[test]
#[should_panic(expected = "does not match schemas/version.json")]
fn the_version_document_is_checked() {
    check_output(
        &args(&["--version", "--json"]),
        0,
        r#"{"name":"bmad-mem","version":"0.1.0","compatibleWith":"bmad-plus mem 0.22"}"#,
    );
    check_output(&args(&["--json", "-V"]), 0, r#"{"name":"bmad-mem"}"#);
}

#[test]
#[should_panic(expected = "not JSON")]
fn a_json_run_must_print_json() {
    check_output(
        &args(&["--json", "outcomes"]),
        0,
        "mem outcomes: no observations.\n",
    );
}

#[test]
fn an_empty_warnings_list_is_left_out_of_the_five_actions() {
    let ran = TestProject::new()
        .fixture("example")
        .args(["--json", "recall", "retry"])
        .code(0)
        .run();
    let result: Value = ran.json();
    assert!(result.get("warnings").is_none(), "{}", ran.stdout);
    // An empty list would break bmad-plus's bytes: the schema refuses it.
    let mut with_empty = result;
    with_empty["warnings"] = json!([]);
    assert!(validate("recall.json", &with_empty).is_err());
}

#[test]
fn our_commands_always_carry_their_warnings() {
    let ran = TestProject::new()
        .mkdir("ws/app")
        .write("ws/app/Cargo.toml", "[package]\n")
        .args(["--json", "scan", "ws"])
        .code(0)
        .run();
    let result: Value = ran.json();
    assert_eq!(result["warnings"], json!([]), "{}", ran.stdout);
}

/// An unreadable candidate is named in `admit --list --json` too, not only on stderr.
#[test]
fn admit_list_reports_an_unreadable_candidate_under_json() {
    let warning =
        "warning: .bmad/memory/candidates/c1.md is not in the candidate format; fix or remove it";
    let ran = TestProject::new()
        .write(".bmad/memory/candidates/c1.md", "---\nnot a candidate\n")
        .args(["admit", "--list"])
        .code(0)
        .stderr(&format!("{warning}\n"))
        .unchanged()
        .run()
        .then()
        .args(["--json", "admit", "--list"])
        .code(0)
        .stderr("")
        .unchanged()
        .run();
    let result: Value = ran.json();
    assert_eq!(result["warnings"], json!([warning]), "{}", ran.stdout);
}
