//! What `doctor` found, or what a repair did: the findings and the report's two renderings.

use std::fmt::Write as _;

use crate::js::json::{Object, Value};
use crate::messages;
use crate::output::Report;
use crate::store::layout::{REINFORCEMENTS, SCORES};

/// One finding.
#[derive(Debug, Clone)]
pub(crate) struct Problem {
    pub file: String,
    pub kind: &'static str,
    pub message: String,
}

/// What the check found, or what the repair did.
#[derive(Debug, Default)]
pub(crate) struct DoctorReport {
    pub checked: Vec<String>,
    pub problems: Vec<Problem>,
    /// For a repair: (file, kept-aside file, bytes moved).
    pub repaired: Option<(String, String, usize)>,
    /// For `--repair-encoding`: how many lines were moved.
    pub repaired_lines: Option<usize>,
    /// For `--rebuild-views`: the views rewritten.
    pub rebuilt: Option<Vec<String>>,
    /// For `--rebuild-scores`: the patterns whose score was rewritten from its records.
    pub rebuilt_scores: Option<Vec<String>>,
    /// Whether the repair was `--dedupe`.
    pub deduped: bool,
    /// For a repair that found nothing to do: (file, why). Not a failure: a healthy store run
    /// through a repair "just in case" stays as it is and exits 0.
    pub nothing: Option<(String, String)>,
    /// What is worth knowing but is not wrong (timestamps out of order after a merge).
    pub notices: Vec<Problem>,
    /// What is wrong but does not fail the check: a registry near its cap, headings inside
    /// fenced code and fences never closed in the note files.
    pub warnings: Vec<Problem>,
}

impl DoctorReport {
    /// A repair of `file` that had nothing to do, and why.
    pub(crate) fn nothing(file: &str, why: String) -> Self {
        Self {
            nothing: Some((file.to_owned(), why)),
            ..Self::default()
        }
    }

    pub(crate) fn problem(&mut self, file: &str, kind: &'static str, message: String) {
        self.problems.push(Problem {
            file: file.to_owned(),
            kind,
            message,
        });
    }

    pub(crate) fn warning(&mut self, file: &str, kind: &'static str, message: String) {
        self.warnings.push(Problem {
            file: file.to_owned(),
            kind,
            message,
        });
    }

    pub(crate) fn notice(&mut self, file: &str, kind: &'static str, message: String) {
        self.notices.push(Problem {
            file: file.to_owned(),
            kind,
            message,
        });
    }
}

impl Report for DoctorReport {
    fn to_json(&self) -> Value {
        if let Some((file, why)) = &self.nothing {
            return Value::Object(
                Object::new()
                    .with("nothingToRepair", file.as_str())
                    .with("message", why.as_str()),
            );
        }
        if let Some(patterns) = &self.rebuilt_scores {
            return Value::Object(Object::new().with("scores", SCORES).with(
                "rebuiltPatterns",
                patterns.iter().map(Value::from).collect::<Vec<_>>(),
            ));
        }
        if let Some(rebuilt) = &self.rebuilt {
            return Value::Object(Object::new().with(
                "rebuilt",
                rebuilt.iter().map(Value::from).collect::<Vec<_>>(),
            ));
        }
        if let Some((file, aside, bytes)) = &self.repaired {
            #[expect(clippy::cast_precision_loss, reason = "at most 2 MiB")]
            let bytes = *bytes as f64;
            let mut repaired = Object::new()
                .with("repaired", file.as_str())
                .with("keptAs", aside.as_str())
                .with("bytes", bytes);
            if let Some(lines) = self.repaired_lines {
                #[expect(clippy::cast_precision_loss, reason = "at most 2 MiB of lines")]
                let lines = lines as f64;
                repaired = repaired.with("lines", lines);
            }
            return Value::Object(repaired);
        }
        let list = |problems: &[Problem]| -> Vec<Value> {
            problems
                .iter()
                .map(|p| {
                    Value::Object(
                        Object::new()
                            .with("file", p.file.as_str())
                            .with("kind", p.kind)
                            .with("message", p.message.as_str()),
                    )
                })
                .collect()
        };
        let mut result = Object::new()
            .with("healthy", self.problems.is_empty())
            .with(
                "checked",
                self.checked.iter().map(Value::from).collect::<Vec<_>>(),
            )
            .with("problems", list(&self.problems));
        // Only present when there is something to say, so that the report of a store with
        // nothing of the kind stays as it was.
        if !self.warnings.is_empty() {
            result = result.with("warnings", list(&self.warnings));
        }
        if !self.notices.is_empty() {
            result = result.with("notices", list(&self.notices));
        }
        Value::Object(result)
    }

    fn render_human(&self) -> String {
        if let Some((_, why)) = &self.nothing {
            return format!("mem doctor: {why}\n");
        }
        if let Some(patterns) = &self.rebuilt_scores {
            return messages::scores_rebuilt(SCORES, REINFORCEMENTS, patterns);
        }
        if let Some(rebuilt) = &self.rebuilt {
            return if rebuilt.is_empty() {
                "mem doctor: the views are up to date\n".to_owned()
            } else {
                format!("mem doctor: rebuilt {}\n", rebuilt.join(", "))
            };
        }
        if let (Some((file, aside, bytes)), Some(lines), true) =
            (&self.repaired, self.repaired_lines, self.deduped)
        {
            return format!(
                "mem doctor: moved {lines} exact duplicate line(s) ({bytes} bytes) from {file} into {aside}; the first copy of each stays\n"
            );
        }
        if let (Some((file, aside, bytes)), Some(lines)) = (&self.repaired, self.repaired_lines) {
            return format!(
                "mem doctor: moved {lines} line(s) that are not valid UTF-8 ({bytes} bytes) from {file} into {aside}\n"
            );
        }
        if let Some((file, aside, bytes)) = &self.repaired {
            return format!(
                "mem doctor: moved the {bytes}-byte torn final line of {file} into {aside}\n"
            );
        }
        let checked = self.checked.len();
        let warned = match self.warnings.len() {
            0 => String::new(),
            n => format!("{n} warning(s)"),
        };
        let mut out = match (self.problems.len(), warned.is_empty()) {
            (0, true) => format!("mem doctor: healthy ({checked} file(s) checked)\n"),
            (0, false) => format!("mem doctor: healthy, {warned} in {checked} file(s) checked\n"),
            (n, true) => format!("mem doctor: {n} problem(s) in {checked} file(s) checked\n"),
            (n, false) => {
                format!("mem doctor: {n} problem(s) and {warned} in {checked} file(s) checked\n")
            }
        };
        for p in &self.problems {
            let _ = writeln!(out, "  {} [{}]: {}", p.file, p.kind, p.message);
        }
        for p in &self.warnings {
            let _ = writeln!(out, "  warning: {} [{}]: {}", p.file, p.kind, p.message);
        }
        for p in &self.notices {
            let _ = writeln!(out, "  note: {} [{}]: {}", p.file, p.kind, p.message);
        }
        out
    }

    fn exit_code(&self) -> u8 {
        u8::from(!self.problems.is_empty())
    }

    fn written(&self) -> Option<String> {
        if let Some(patterns) = self.rebuilt_scores.as_ref().filter(|p| !p.is_empty()) {
            return Some(messages::scores_rebuilt_written(SCORES, patterns.len()));
        }
        if let Some(rebuilt) = self.rebuilt.as_ref().filter(|r| !r.is_empty()) {
            return Some(format!("rebuilt {}", rebuilt.join(", ")));
        }
        let (file, aside, _) = self.repaired.as_ref()?;
        if self.deduped {
            return Some(format!("the duplicate lines of {file} moved into {aside}"));
        }
        Some(format!("the torn final line of {file} moved into {aside}"))
    }
}
