//! Rendering results and errors (SPEC §4).
//!
//! Success: pretty JSON on stdout under `--json`, else the human lines on stdout; warnings go to
//! stderr in human mode (under `--json` they are part of the result). Failure: one line
//! `{"error":"…"}` on stdout under `--json`, else `mem <action>: <message>` on stderr. A broken
//! pipe on stdout is not an error: the reader went away, and we stop quietly.

use std::io::{self, Write};

use crate::js::json::{Object, Value};

/// What an action returns: its JSON result and its human lines.
pub trait Report {
    /// The `--json` result.
    fn to_json(&self) -> Value;
    /// The human lines, each ending with `\n`.
    fn render_human(&self) -> String;
    /// Warnings for stderr in human mode (already inside [`Report::to_json`] for `--json`).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
    /// The exit status of a report that was produced (a health check may report failure).
    fn exit_code(&self) -> u8 {
        0
    }
}

/// The text printed for a failure: `mem <action>: <message>`, unless the message already
/// carries that prefix (bmad-plus's reinforce message does).
#[must_use]
pub fn human_error(action: Option<&str>, message: &str) -> String {
    let prefix = match action {
        Some(action) => format!("mem {action}: "),
        None => "mem: ".to_owned(),
    };
    if message.starts_with(&prefix) {
        format!("{message}\n")
    } else {
        format!("{prefix}{message}\n")
    }
}

/// The one-line JSON form of a failure.
#[must_use]
pub fn json_error(message: &str) -> String {
    let mut line = Value::Object(Object::new().with("error", message)).compact();
    line.push('\n');
    line
}

/// Writes `text` to stdout. A closed pipe counts as success: nobody is left to read.
///
/// # Errors
/// Any other write error.
pub fn print_stdout(text: &str) -> io::Result<()> {
    let stdout = io::stdout();
    let mut lock = stdout.lock();
    match lock.write_all(text.as_bytes()).and_then(|()| lock.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Writes `text` to stderr, ignoring failures (there is nowhere left to report them).
pub fn print_stderr(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Renders a successful report for the chosen mode.
#[must_use]
pub fn render(report: &dyn Report, json: bool) -> (String, String) {
    if json {
        let mut text = report.to_json().pretty();
        text.push('\n');
        (text, String::new())
    } else {
        let warnings: String = report.warnings().iter().fold(String::new(), |mut acc, w| {
            acc.push_str(w);
            acc.push('\n');
            acc
        });
        (report.render_human(), warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_forms() {
        assert_eq!(
            human_error(Some("write"), "appendEvent: x"),
            "mem write: appendEvent: x\n"
        );
        assert_eq!(
            human_error(
                Some("reinforce"),
                "mem reinforce: --pattern <id> is required"
            ),
            "mem reinforce: --pattern <id> is required\n"
        );
        assert_eq!(human_error(None, "unknown action"), "mem: unknown action\n");
        assert_eq!(json_error("a \"b\"\n"), "{\"error\":\"a \\\"b\\\"\\n\"}\n");
    }
}
