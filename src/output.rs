//! Rendering results and errors (docs §4).
//!
//! Success: pretty JSON on stdout under `--json`, else the human lines on stdout; warnings go to
//! stderr in human mode (under `--json` they are part of the result). Failure: one line
//! `{"error":"…"}` on stdout under `--json`, else `mem <action>: <message>` on stderr. A broken
//! pipe on stdout is not an error: the reader went away, and we stop quietly.
//!
//! Human output is meant for a terminal, and its text comes partly from files and arguments an
//! agent wrote. So every human line — results on stdout, warnings and errors on stderr — passes
//! through [`escape_controls`] last, after truncation: control characters a terminal would act
//! on (cursor moves, screen clears, title changes, hyperlinks) are shown as `\xNN` instead.
//! JSON output is left exactly as it is; its own string escaping already covers C0 controls.

use std::borrow::Cow;
use std::fmt::Write as _;
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
    /// What the action wrote, in a few words (`event 6b1dc0dc38b7 appended`), for the message
    /// shown when the result itself cannot be printed; `None` when it wrote nothing.
    fn written(&self) -> Option<String> {
        None
    }
}

/// Whether a terminal would act on `c`: a C0 control other than newline and tab, DEL, or a C1
/// control (U+0080–U+009F; some terminals read U+009B as the start of an escape sequence).
#[must_use]
pub fn is_escaped_control(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

/// `text` with every [`is_escaped_control`] character written as `\x` and two lowercase hex
/// digits (ESC becomes `\x1b`, CR `\x0d`, U+009B `\x9b`). Everything else is kept, a
/// backslash too, so `\x1b` in the output may also be those four characters as written: the
/// JSON output is the unambiguous one.
#[must_use]
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_escaped_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_escaped_control(c) {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The message for a result that could not be printed: what was written, when something was
/// (the caller must know that the action took effect even though it saw no result).
#[must_use]
pub fn unprinted(written: Option<&str>, error: &io::Error) -> String {
    match written {
        Some(written) => format!("{written}, but the result could not be printed: {error}"),
        None => format!("the result could not be printed: {error}"),
    }
}

/// The text printed for a failure: `mem <action>: <message>`, unless the message already
/// carries that prefix (bmad-plus's reinforce message does); control characters escaped.
#[must_use]
pub fn human_error(action: Option<&str>, message: &str) -> String {
    let message = escape_controls(message);
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

/// Renders a successful report for the chosen mode: (stdout, stderr). Human text has its
/// control characters escaped; JSON is left as it is.
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
        (escaped(report.render_human()), escaped(warnings))
    }
}

/// `text` through [`escape_controls`], kept as it is (not copied) when nothing needed escaping.
fn escaped(text: String) -> String {
    let owned = match escape_controls(&text) {
        Cow::Owned(escaped) => Some(escaped),
        Cow::Borrowed(_) => None,
    };
    owned.unwrap_or(text)
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

    #[test]
    fn controls_are_escaped_and_nothing_else() {
        let ordinary = "plain — é\u{a0}\ttab\nline C:\\x1b 🚀";
        assert!(matches!(escape_controls(ordinary), Cow::Borrowed(t) if t == ordinary));
        assert_eq!(
            escape_controls("\0\u{1b}[2J\r\u{b}\u{7f}\u{80}\u{9b}31m\u{9f}\u{a0}"),
            "\\x00\\x1b[2J\\x0d\\x0b\\x7f\\x80\\x9b31m\\x9f\u{a0}"
        );
        assert_eq!(
            human_error(Some("recall"), "bad \u{1b}]0;x\u{7}"),
            "mem recall: bad \\x1b]0;x\\x07\n"
        );
        assert_eq!(json_error("\u{1b}"), "{\"error\":\"\\u001b\"}\n");
    }
}
