//! The project's own settings: `.bmad/memory/config.json` (docs/CONFIG.md, `schemas/config.json`).
//!
//! One small JSON object, written by hand and committed with the memory, that every command
//! reads the same way through [`load`]:
//!
//! ```json
//! {"ranking": "bm25", "lint": {"ignore": ["format"]}, "secrets": {"check": true}}
//! ```
//!
//! Every key is optional. The file must never stop a command: a missing file is the defaults
//! in silence; a file that cannot be read or is not a JSON object, a key this version does not
//! know, or a value of the wrong shape is a warning (naming the file and the key) and the
//! default for that key. Nothing here writes the file: it is the team's.
//!
//! Pure apart from the one bounded, loose read ([`crate::store::paths::read_loose`]: no FIFO, no
//! link out of the project, at most 64 MiB).

use std::path::Path;

use crate::store::layout::CONFIG_FILE;
use crate::store::paths::{Loose, read_loose};

/// The rankings a project may make its default (`recall --ranking`'s values).
pub const RANKINGS: [&str; 4] = ["lexical", "evidence", "bm25", "hybrid"];

/// The settings in force for one project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `ranking`: the ranking `recall` (and the MCP server, the hooks, `brief`) uses when none is
    /// asked for; `None` keeps bmad-plus's lexical ranking. One of [`RANKINGS`].
    pub ranking: Option<String>,
    /// `lint.ignore`: the lint checks a team has silenced, by name.
    pub lint_ignore: Vec<String>,
    /// `secrets.check`: whether stored free text goes through the secret detector (default on).
    pub secrets_check: bool,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            ranking: None,
            lint_ignore: Vec::new(),
            secrets_check: true,
        }
    }
}

/// The settings and what was wrong with the file, one warning line each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loaded {
    pub config: Config,
    pub warnings: Vec<String>,
}

/// The settings of the project at `root`: the file's, else the defaults.
#[must_use]
pub fn load(root: &Path) -> Loaded {
    let path = root.join(CONFIG_FILE);
    let mut warnings = Vec::new();
    let text = match read_loose(&path, root) {
        Ok(Loose::Read(text)) => text,
        Ok(Loose::Missing) => return Loaded::default(),
        Ok(Loose::Skipped(skip)) => {
            warnings.push(format!(
                "warning: {CONFIG_FILE} ignored: {skip}; the defaults apply"
            ));
            return Loaded {
                config: Config::default(),
                warnings,
            };
        }
        Err(e) => {
            warnings.push(format!(
                "warning: {CONFIG_FILE} ignored: {e}; the defaults apply"
            ));
            return Loaded {
                config: Config::default(),
                warnings,
            };
        }
    };
    let config = parse(&text, &mut warnings);
    Loaded { config, warnings }
}

/// The settings `text` states; every problem is a warning and the key's default.
#[must_use]
pub fn parse(text: &str, warnings: &mut Vec<String>) -> Config {
    let mut config = Config::default();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            warnings.push(format!(
                "warning: {CONFIG_FILE} ignored: not valid JSON ({e}); the defaults apply"
            ));
            return config;
        }
    };
    let Some(object) = value.as_object() else {
        warnings.push(format!(
            "warning: {CONFIG_FILE} ignored: not a JSON object; the defaults apply"
        ));
        return config;
    };
    for (key, value) in object {
        match key.as_str() {
            "$schema" => {}
            "ranking" => match value.as_str() {
                Some(name) if RANKINGS.contains(&name) => config.ranking = Some(name.to_owned()),
                _ => wrong(
                    warnings,
                    "ranking",
                    &format!("one of {}", RANKINGS.join(", ")),
                ),
            },
            "lint" => {
                read_section(value, "lint", warnings, |key, value, warnings| {
                    if key != "ignore" {
                        return false;
                    }
                    match value.as_array().and_then(|items| {
                        items
                            .iter()
                            .map(|item| item.as_str().map(str::to_owned))
                            .collect::<Option<Vec<_>>>()
                    }) {
                        Some(names) => config.lint_ignore = names,
                        None => wrong(warnings, "lint.ignore", "an array of check names"),
                    }
                    true
                });
            }
            "secrets" => {
                read_section(value, "secrets", warnings, |key, value, warnings| {
                    if key != "check" {
                        return false;
                    }
                    match value.as_bool() {
                        Some(check) => config.secrets_check = check,
                        None => wrong(warnings, "secrets.check", "true or false"),
                    }
                    true
                });
            }
            other => unknown(warnings, other),
        }
    }
    config
}

/// Reads one nested object key by key; `known` takes a key it knows and says so.
fn read_section(
    value: &serde_json::Value,
    name: &str,
    warnings: &mut Vec<String>,
    mut known: impl FnMut(&str, &serde_json::Value, &mut Vec<String>) -> bool,
) {
    let Some(object) = value.as_object() else {
        wrong(warnings, name, "an object");
        return;
    };
    for (key, value) in object {
        if !known(key, value, warnings) {
            unknown(warnings, &format!("{name}.{key}"));
        }
    }
}

fn wrong(warnings: &mut Vec<String>, key: &str, expected: &str) {
    warnings.push(format!(
        "warning: {CONFIG_FILE}: `{key}` ignored: expected {expected}; the default applies"
    ));
}

fn unknown(warnings: &mut Vec<String>, key: &str) {
    warnings.push(format!(
        "warning: {CONFIG_FILE}: unknown key `{key}` ignored"
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(text: &str, expected: &Config, expected_warnings: &[&str]) {
        let mut warnings = Vec::new();
        assert_eq!(&parse(text, &mut warnings), expected, "{text}");
        assert_eq!(warnings, expected_warnings, "{text}");
    }

    #[test]
    fn every_key_is_read() {
        case(
            r#"{"ranking": "bm25", "lint": {"ignore": ["format", "review"]}, "secrets": {"check": false}}"#,
            &Config {
                ranking: Some("bm25".into()),
                lint_ignore: vec!["format".into(), "review".into()],
                secrets_check: false,
            },
            &[],
        );
        case("{}", &Config::default(), &[]);
        case("\u{feff}{\"$schema\": \"x\"}", &Config::default(), &[]);
    }

    #[test]
    fn a_bad_file_or_key_is_a_warning_and_the_default() {
        case(
            "{nope",
            &Config::default(),
            &[
                "warning: .bmad/memory/config.json ignored: not valid JSON (key must be a string at line 1 column 2); the defaults apply",
            ],
        );
        case(
            "[1]",
            &Config::default(),
            &["warning: .bmad/memory/config.json ignored: not a JSON object; the defaults apply"],
        );
        case(
            r#"{"ranking": "magic", "colour": 1, "lint": {"ignore": "format", "strict": true}, "secrets": {"check": "no"}}"#,
            &Config::default(),
            &[
                "warning: .bmad/memory/config.json: `ranking` ignored: expected one of lexical, evidence, bm25, hybrid; the default applies",
                "warning: .bmad/memory/config.json: unknown key `colour` ignored",
                "warning: .bmad/memory/config.json: `lint.ignore` ignored: expected an array of check names; the default applies",
                "warning: .bmad/memory/config.json: unknown key `lint.strict` ignored",
                "warning: .bmad/memory/config.json: `secrets.check` ignored: expected true or false; the default applies",
            ],
        );
        case(
            r#"{"lint": [], "ranking": "hybrid"}"#,
            &Config {
                ranking: Some("hybrid".into()),
                ..Config::default()
            },
            &[
                "warning: .bmad/memory/config.json: `lint` ignored: expected an object; the default applies",
            ],
        );
    }

    #[test]
    fn the_file_is_read_from_the_project() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(dir.path()), Loaded::default());
        std::fs::create_dir_all(dir.path().join(".bmad/memory")).unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE), r#"{"ranking":"bm25"}"#).unwrap();
        assert_eq!(load(dir.path()).config.ranking.as_deref(), Some("bm25"));
        std::fs::remove_file(dir.path().join(CONFIG_FILE)).unwrap();
        std::fs::create_dir(dir.path().join(CONFIG_FILE)).unwrap();
        let loaded = load(dir.path());
        assert_eq!(loaded.config, Config::default());
        assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    }
}
