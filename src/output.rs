//! Rendering results and errors (docs §4).
//!
//! Success: pretty JSON on stdout under `--json`, else the human lines on stdout; warnings go to
//! stderr in human mode (under `--json` they are part of the result). Failure: one line
//! `{"error":"…"}` on stdout under `--json`, else `mem <action>: <message>` on stderr.
//!
//! A result that cannot reach stdout because its reader is gone — a broken pipe, or a stdout
//! closed before the program started ([`is_gone`]) — ends a command that only read quietly with
//! its usual status (`recall … | head -1`); a command that wrote exits 1 and says on stderr what
//! it wrote, as for any other failure to print (docs/FORMAT.md §4).
//!
//! Human output is meant for a terminal, and its text comes partly from files and arguments an
//! agent wrote. So every human line — results on stdout, warnings and errors on stderr — passes
//! through [`escape_controls`] last, after truncation: control characters a terminal would act
//! on (cursor moves, screen clears, title changes, hyperlinks) are shown as `\xNN` instead.
//! JSON output is left exactly as it is; its own string escaping already covers C0 controls.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::io::{self, Write};

use anstyle::{AnsiColor, Color, Style};

use crate::js::json::{Object, Value};
use crate::messages;

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

/// Writes `text` to stdout.
///
/// # Errors
/// Any write error, a broken pipe included, and a stdout that was closed before the program
/// started (an error of kind `BrokenPipe`: see [`is_gone`]) when there is text to lose.
pub fn print_stdout(text: &str) -> io::Result<()> {
    let stdout = io::stdout();
    if !text.is_empty() && is_closed(&stdout) {
        return Err(io::Error::new(
            io::ErrorKind::BrokenPipe,
            messages::STDOUT_CLOSED,
        ));
    }
    let mut lock = stdout.lock();
    lock.write_all(text.as_bytes()).and_then(|()| lock.flush())
}

/// Whether a failure to print means only that nobody is left to read (a broken pipe, a closed
/// stdout), as opposed to a stdout that failed (a full disk, an I/O error).
#[must_use]
pub fn is_gone(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::BrokenPipe
}

/// Why nothing written to stdout can be received any more, if so: it was closed before the
/// program started, or it is a pipe or socket whose reading end is closed. Asked before taking
/// work whose result would be lost, without writing anything.
#[must_use]
pub fn stdout_gone() -> Option<io::Error> {
    use rustix::event::{PollFd, PollFlags, poll};
    let stdout = io::stdout();
    if is_closed(&stdout) {
        return Some(io::Error::new(
            io::ErrorKind::BrokenPipe,
            messages::STDOUT_CLOSED,
        ));
    }
    let mut fds = [PollFd::new(&stdout, PollFlags::OUT)];
    let zero = rustix::event::Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // A pipe without readers polls as an error, a socket whose peer hung up as a hang-up.
    let gone = PollFlags::ERR | PollFlags::HUP | PollFlags::NVAL;
    match poll(&mut fds, Some(&zero)) {
        Ok(_) if fds[0].revents().intersects(gone) => Some(io::Error::new(
            io::ErrorKind::BrokenPipe,
            messages::STDOUT_UNREAD,
        )),
        _ => None,
    }
}

/// Whether `stdout` was closed when the program started. The Rust runtime puts `/dev/null`,
/// open for reading and writing, on a standard stream it finds closed; a shell's `>/dev/null`
/// opens it for writing only, and stays a deliberate, quiet discard.
fn is_closed(stdout: &io::Stdout) -> bool {
    use rustix::fs::{FileType, OFlags, fcntl_getfl, fstat, stat};
    let is_read_write =
        fcntl_getfl(stdout).is_ok_and(|flags| flags & OFlags::RWMODE == OFlags::RDWR);
    if !is_read_write {
        return false;
    }
    match (fstat(stdout), stat("/dev/null")) {
        (Ok(ours), Ok(null)) => {
            FileType::from_raw_mode(ours.st_mode) == FileType::CharacterDevice
                && ours.st_rdev == null.st_rdev
        }
        _ => false,
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

/// What `bmad-mem --version` prints: `bmad-mem <version>`, or under `--json` one line naming the
/// program, its version and the `bmad-plus mem` it stands in for.
#[must_use]
pub fn version(json: bool) -> String {
    let version = env!("CARGO_PKG_VERSION");
    if json {
        let object = Object::new()
            .with("name", "bmad-mem")
            .with("version", version)
            .with("compatibleWith", COMPATIBLE_WITH);
        let mut line = Value::Object(object).compact();
        line.push('\n');
        line
    } else {
        format!("bmad-mem {version}\n")
    }
}

/// The `bmad-plus mem` whose files, formats and messages bmad-mem shares.
pub const COMPATIBLE_WITH: &str = "bmad-plus mem 0.22";

/// Whether human text for one stream may be coloured. `NO_COLOR` set to anything but the empty
/// string turns colour off, always; otherwise `CLICOLOR_FORCE` set to anything but the empty
/// string or `0` turns it on, even through a pipe; otherwise only a terminal gets colour.
/// (JSON is never coloured: the caller asks only for human text.)
#[must_use]
pub fn colour_wanted(terminal: bool, no_color: Option<&OsStr>, force: Option<&OsStr>) -> bool {
    if no_color.is_some_and(|v| !v.is_empty()) {
        return false;
    }
    if force.is_some_and(|v| !v.is_empty() && v != "0") {
        return true;
    }
    terminal
}

const SCORE: Style = Style::new()
    .bold()
    .fg_color(Some(Color::Ansi(AnsiColor::Green)));
const EVENT: Style = Style::new().fg_color(Some(Color::Ansi(AnsiColor::Cyan)));
const NOTE: Style = Style::new().fg_color(Some(Color::Ansi(AnsiColor::Magenta)));
const GOOD: Style = Style::new().fg_color(Some(Color::Ansi(AnsiColor::Green)));
const FAIR: Style = Style::new().fg_color(Some(Color::Ansi(AnsiColor::Yellow)));
const BAD: Style = Style::new().fg_color(Some(Color::Ansi(AnsiColor::Red)));
const NOTICE: Style = Style::new()
    .bold()
    .fg_color(Some(Color::Ansi(AnsiColor::Yellow)));
const ERROR: Style = Style::new()
    .bold()
    .fg_color(Some(Color::Ansi(AnsiColor::Red)));

fn styled(style: Style, text: &str) -> String {
    format!("{}{text}{}", style.render(), style.render_reset())
}

/// `text` — an action's human output, its control characters already escaped — with colour on
/// recall's scores and kinds, write's outcome, reinforce's figures and proposal, observe's
/// receipt and the outcomes' statuses. Only colour sequences are added: without them the text
/// is unchanged. Other commands' text is returned as it is.
#[must_use]
pub fn paint(action: &str, text: &str) -> String {
    let line_painter: fn(&str) -> Option<String> = match action {
        "recall" => paint_recall,
        "write" => paint_write,
        "reinforce" => paint_reinforce,
        "observe" => paint_observe,
        "outcomes" => paint_outcomes,
        _ => return text.to_owned(),
    };
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let (body, end) = line
            .strip_suffix('\n')
            .map_or((line, ""), |body| (body, "\n"));
        match line_painter(body) {
            Some(painted) => out.push_str(&painted),
            None => out.push_str(body),
        }
        out.push_str(end);
    }
    out
}

/// A failure's human line (from [`human_error`]) with its `mem <action>:` prefix in red.
#[must_use]
pub fn paint_error(line: &str) -> String {
    match line.split_once(": ") {
        Some((prefix, rest)) if prefix.starts_with("mem") => {
            format!("{}: {rest}", styled(ERROR, prefix))
        }
        _ => line.to_owned(),
    }
}

/// `  1. [0.812] event journal.ndjson#…`: the score and the kind.
fn paint_recall(line: &str) -> Option<String> {
    let rest = line.strip_prefix("  ")?;
    let (rank, rest) = rest.split_once(". [")?;
    if rank.is_empty() || !rank.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (score, rest) = rest.split_once("] ")?;
    let (kind, label) = rest.split_once(' ')?;
    let style = match kind {
        "event" => EVENT,
        "note" => NOTE,
        _ => return None,
    };
    Some(format!(
        "  {rank}. [{}] {} {label}",
        styled(SCORE, score),
        styled(style, kind)
    ))
}

/// `  agent=… outcome=success`: the outcome.
fn paint_write(line: &str) -> Option<String> {
    if !line.starts_with("  agent=") {
        return None;
    }
    let (head, outcome) = line.rsplit_once(" outcome=")?;
    let style = match outcome {
        "success" => GOOD,
        "failure" => BAD,
        "partial" | "abandoned" => FAIR,
        _ => return None,
    };
    Some(format!("{head} outcome={}", styled(style, outcome)))
}

/// `  reward   0.900 (from …)`, `  elo      1500.0 -> 1516.0`, `  mean     0.667 (…)`: the new
/// figure; `  promotion PROPOSED (…)`: the proposal.
fn paint_reinforce(line: &str) -> Option<String> {
    for prefix in ["  reward   ", "  mean     "] {
        if let Some(rest) = line.strip_prefix(prefix) {
            let end = rest.find(' ').unwrap_or(rest.len());
            let (figure, tail) = rest.split_at(end);
            return Some(format!("{prefix}{}{tail}", styled(SCORE, figure)));
        }
    }
    if let Some(rest) = line.strip_prefix("  elo      ") {
        let (before, after) = rest.split_once(" -> ")?;
        return Some(format!("  elo      {before} -> {}", styled(SCORE, after)));
    }
    let rest = line.strip_prefix("  promotion PROPOSED")?;
    Some(format!("  promotion {}{rest}", styled(NOTICE, "PROPOSED")))
}

/// `mem observe: <receipt> recorded; …`: the receipt.
fn paint_observe(line: &str) -> Option<String> {
    let rest = line.strip_prefix("mem observe: ")?;
    let (receipt, tail) = rest.split_once(" recorded")?;
    Some(format!(
        "mem observe: {} recorded{tail}",
        styled(EVENT, receipt)
    ))
}

/// `<receipt>: <status>`: the status, green when the receipt still counts.
fn paint_outcomes(line: &str) -> Option<String> {
    if line.starts_with("mem outcomes: ") {
        return None;
    }
    let (receipt, status) = line.split_once(": ")?;
    let style = if status == "accepted-current" {
        GOOD
    } else {
        FAIR
    };
    Some(format!("{receipt}: {}", styled(style, status)))
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

    #[test]
    fn colour_only_on_a_terminal_unless_forced_and_never_against_no_color() {
        let os = |s: &'static str| Some(OsStr::new(s));
        assert!(colour_wanted(true, None, None));
        assert!(!colour_wanted(false, None, None));
        assert!(colour_wanted(false, None, os("1")));
        assert!(!colour_wanted(false, None, os("0")));
        assert!(!colour_wanted(false, None, os("")));
        assert!(!colour_wanted(true, os("1"), None));
        assert!(!colour_wanted(true, os("0"), os("1")));
        // An empty NO_COLOR is as good as none.
        assert!(colour_wanted(true, os(""), None));
    }

    /// `text` without colour sequences.
    fn plain(text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find('\u{1b}') {
            out.push_str(&rest[..start]);
            rest = &rest[start..];
            rest = &rest[rest.find('m').unwrap() + 1..];
        }
        out + rest
    }

    #[test]
    fn painting_adds_colour_and_nothing_else() {
        let cases = [
            (
                "recall",
                "mem recall: 2 match(es) for \"a\" (scope: project)\n  1. [0.812] event journal.ndjson#abc\n     1. [0.5] note x\n  2. [1.000] note lessons.md § A\n",
                &[
                    "\u{1b}[1m\u{1b}[32m0.812\u{1b}[0m",
                    "\u{1b}[36mevent\u{1b}[0m",
                    "\u{1b}[35mnote\u{1b}[0m",
                ][..],
            ),
            (
                "write",
                "mem write: event e appended (t)\n  agent=a cli=- model=- outcome=success\n",
                &["outcome=\u{1b}[32msuccess\u{1b}[0m"][..],
            ),
            (
                "reinforce",
                "mem reinforce: pattern \"p\"\n  reward   0.900 (from {})\n  elo      1500.0 -> 1516.0\n  mean     0.667 (alpha=2.00, beta=1.00, updates=1)\n  promotion PROPOSED (x): candidate -> validated\n",
                &[
                    "1500.0 -> \u{1b}[1m\u{1b}[32m1516.0",
                    "\u{1b}[1m\u{1b}[33mPROPOSED\u{1b}[0m (x)",
                ][..],
            ),
            (
                "observe",
                "mem observe: abc recorded; lesson causality remains unmeasured.\n",
                &["\u{1b}[36mabc\u{1b}[0m recorded"][..],
            ),
            (
                "outcomes",
                "a1: accepted-current\nb2: stale-section\n",
                &[
                    "a1: \u{1b}[32maccepted-current",
                    "b2: \u{1b}[33mstale-section",
                ][..],
            ),
        ];
        for (action, text, marks) in cases {
            let painted = paint(action, text);
            assert_eq!(plain(&painted), text, "{action}");
            for mark in marks {
                assert!(painted.contains(mark), "{action}: {painted:?}");
            }
        }
        // The quoted text line of a recall is no result line; other commands stay plain.
        assert!(!paint("recall", "     1. [0.5] note x\n").contains('\u{1b}'));
        assert_eq!(paint("status", "a: b\n"), "a: b\n");
        assert_eq!(
            paint_error("mem recall: bad\n"),
            "\u{1b}[1m\u{1b}[31mmem recall\u{1b}[0m: bad\n"
        );
    }

    #[test]
    fn version_in_both_forms() {
        let v = env!("CARGO_PKG_VERSION");
        assert_eq!(version(false), format!("bmad-mem {v}\n"));
        assert_eq!(
            version(true),
            format!(
                "{{\"name\":\"bmad-mem\",\"version\":\"{v}\",\"compatibleWith\":\"bmad-plus mem 0.22\"}}\n"
            )
        );
    }
}
