//! Fenced code, read line by line: which lines are code, which `###` headings stand inside a
//! fence, and which fences are never closed.
//!
//! A fence line is a run of at least three backticks or tildes (after at most three spaces of
//! indentation, for [`check`]); an opening backtick fence's info string holds no backtick. A
//! fence is closed by a line of the same character, at least as long, with nothing but
//! whitespace after it (the rules of `CommonMark`).
//!
//! A note file is a list of records cut at `###` lines, and real records often open a fence they
//! never close (a record trimmed in the middle of its code, a forgotten closing line). Read as
//! one Markdown document, such a fence swallows every record after it, or pairs with the next
//! record's own fence and turns the file inside out. So when a `###` line comes while a fence is
//! open, [`check`] decides which of two things happened:
//!
//! * the heading is **inside the code** (an example of Markdown in a fence, which still cuts a
//!   section for every reader) when, read on from the heading, the fences pair up and a later
//!   heading (or the end of the file) is reached outside any fence, without meeting a line that
//!   could end an open fence — a run of the same character, at least as long — but does not,
//!   having words after its run (`` ```java ``: the next record's code opening);
//! * otherwise the fence was **never closed**: it is reported once, at its opening line, and
//!   reading starts afresh at the heading, so the headings after it are not reported.
//!
//! A fence still open at the end of the file is never closed too. Once the fences are found to
//! pair up to some line, the headings before it are not looked at again: in practice each line
//! is read two or three times.
//!
//! Pure: no I/O.

use crate::store::sections::heading_of;

/// A fence line: its character, the length of its run, and whether nothing follows the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    mark: u8,
    run: usize,
    is_bare: bool,
}

impl Marker {
    /// The fence `line` (without its line terminator) draws, if any. With `any_indent`, the run
    /// may follow any number of spaces (a fence nested in a list item); else at most three.
    #[must_use]
    pub fn of(line: &str, any_indent: bool) -> Option<Marker> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let rest = line.trim_start_matches(' ');
        if !any_indent && line.len() - rest.len() > 3 {
            return None;
        }
        let mark = *rest.as_bytes().first()?;
        if mark != b'`' && mark != b'~' {
            return None;
        }
        let run = rest.bytes().take_while(|&b| b == mark).count();
        if run < 3 {
            return None;
        }
        let after = &rest[run..];
        let is_bare = after.trim().is_empty();
        if mark == b'`' && after.contains('`') {
            return None;
        }
        Some(Marker { mark, run, is_bare })
    }

    /// Whether this line ends the fence `open` opened.
    #[must_use]
    pub fn closes(self, open: Marker) -> bool {
        self.mark == open.mark && self.run >= open.run && self.is_bare
    }

    /// Whether this line could end the fence `open` opened, were nothing written after its run.
    fn could_close(self, open: Marker) -> bool {
        self.mark == open.mark && self.run >= open.run
    }
}

/// Whether each line of a text, taken in order, is fenced code (the fence lines included).
#[derive(Debug, Clone, Copy, Default)]
pub struct Tracker {
    open: Option<Marker>,
    any_indent: bool,
}

impl Tracker {
    /// A tracker for the lines of an entry's body: a fence may be indented any number of spaces.
    #[must_use]
    pub fn any_indent() -> Self {
        Self {
            open: None,
            any_indent: true,
        }
    }

    /// Whether `line`, the next line, is code or a fence line.
    pub fn is_code(&mut self, line: &str) -> bool {
        let marker = Marker::of(line, self.any_indent);
        match (self.open, marker) {
            (None, Some(open)) => {
                self.open = Some(open);
                true
            }
            (None, None) => false,
            (Some(open), Some(line)) if line.closes(open) => {
                self.open = None;
                true
            }
            (Some(_), _) => true,
        }
    }
}

/// A fence opened and never closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unclosed<'a> {
    /// The line, from 1, that opens it.
    pub line: usize,
    /// The heading of the section it opens in; `None` before the first heading.
    pub heading: Option<&'a str>,
}

/// What [`check`] finds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fences<'a> {
    /// The `###` headings inside fenced code: their line, from 1, and heading.
    pub in_code: Vec<(usize, &'a str)>,
    /// The fences never closed, in order.
    pub unclosed: Vec<Unclosed<'a>>,
}

/// The fences of a note file (see the module documentation).
#[must_use]
pub fn check(text: &str) -> Fences<'_> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut found = Fences::default();
    let mut section: Option<&str> = None;
    // The open fence, the line it opens on, the section it opens in.
    let mut open: Option<(Marker, usize, Option<&str>)> = None;
    // The lines before this one were found to pair their fences across headings: a heading
    // inside a fence there is inside the code.
    let mut paired_until = 0;
    for (i, line) in lines.iter().enumerate() {
        if let Some(heading) = heading_of(line) {
            if let Some((marker, at, opened_in)) = open {
                if i >= paired_until {
                    paired_until = pairing_end(&lines, i, marker).unwrap_or(0);
                }
                if i < paired_until {
                    found.in_code.push((i + 1, heading));
                } else {
                    found.unclosed.push(Unclosed {
                        line: at + 1,
                        heading: opened_in,
                    });
                    open = None;
                }
            }
            section = Some(heading);
            continue;
        }
        let Some(marker) = Marker::of(line, false) else {
            continue;
        };
        match open {
            None => open = Some((marker, i, section)),
            Some((opened, ..)) if marker.closes(opened) => open = None,
            Some(_) => {}
        }
    }
    if let Some((_, at, opened_in)) = open {
        found.unclosed.push(Unclosed {
            line: at + 1,
            heading: opened_in,
        });
    }
    found
}

/// For the fence `open` still open at the heading on line index `heading`: the index of the
/// line up to which the fences pair up with the heading inside the code (the next heading
/// reached outside any fence, or the number of lines), or `None` when the fence was never
/// closed (see the module documentation). The sections from the heading on are taken in turn:
/// one without a fence line continues the code; in the first with one, the first line that
/// could end the open fence must end it (`` ```java `` after a fence of three backticks opens
/// the next record's code instead), and the section's own fences must not pair up among
/// themselves, unless its first fence line follows its heading with nothing but blank lines
/// between (a heading that was the last line of a code block).
fn pairing_end(lines: &[&str], heading: usize, open: Marker) -> Option<usize> {
    let mut open = Some(open);
    let mut start = heading;
    while let Some(carried) = open {
        let end = lines[start + 1..]
            .iter()
            .position(|line| heading_of(line).is_some())
            .map_or(lines.len(), |k| start + 1 + k);
        let body = &lines[start + 1..end];
        let fences: Vec<(usize, Marker)> = body
            .iter()
            .enumerate()
            .filter_map(|(k, line)| Marker::of(line, false).map(|m| (k, m)))
            .collect();
        if let Some(closing) = fences.iter().position(|(_, m)| m.could_close(carried)) {
            if !fences[closing].1.closes(carried) {
                return None;
            }
            let follows_heading = body[..fences[0].0].iter().all(|l| l.trim().is_empty());
            if !follows_heading && pair_up(&fences) == Pairing::Closed {
                return None;
            }
            // The fence lines before the closing one are the carried fence's content.
            open = match pair_up(&fences[closing + 1..]) {
                Pairing::Closed => None,
                Pairing::Open(marker) => Some(marker),
                Pairing::Broken => return None,
            };
        }
        if end == lines.len() {
            return open.is_none().then_some(end);
        }
        start = end;
    }
    Some(start)
}

/// How fence lines read from outside code end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pairing {
    /// Every fence they open, they close.
    Closed,
    /// The last fence they open stays open.
    Open(Marker),
    /// A line that could end an open fence does not (it has words after its run).
    Broken,
}

/// How `fences` (fence lines in order) pair up, read from outside code.
fn pair_up(fences: &[(usize, Marker)]) -> Pairing {
    let mut open = None;
    for &(_, marker) in fences {
        open = match open {
            None => Some(marker),
            Some(opened) if marker.closes(opened) => None,
            Some(opened) if marker.could_close(opened) => return Pairing::Broken,
            Some(opened) => Some(opened),
        };
    }
    open.map_or(Pairing::Closed, Pairing::Open)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    #[track_caller]
    fn case(text: &str, in_code: &[(usize, &str)], unclosed: &[(usize, Option<&str>)]) {
        let found = check(text);
        assert_eq!(found.in_code, in_code, "{text:?}");
        let unclosed: Vec<Unclosed<'_>> = unclosed
            .iter()
            .map(|&(line, heading)| Unclosed { line, heading })
            .collect();
        assert_eq!(found.unclosed, unclosed, "{text:?}");
    }

    #[test]
    fn markers() {
        let of = |line: &str| Marker::of(line, false).map(|m| (m.mark as char, m.run, m.is_bare));
        assert_eq!(of("```"), Some(('`', 3, true)));
        assert_eq!(of("   ````java"), Some(('`', 4, false)));
        assert_eq!(of("    ```"), None);
        assert_eq!(of("~~~ x `y`"), Some(('~', 3, false)));
        assert_eq!(of("``` x `y`"), None);
        assert_eq!(of("``"), None);
        assert_eq!(of("```\r"), Some(('`', 3, true)));
        assert_eq!(
            Marker::of("      ```", true).map(|m| m.run),
            Some(3),
            "nested in a list item"
        );
    }

    #[test]
    fn headings_in_fenced_code_are_found_with_their_line_numbers() {
        case("### a\nx\n", &[], &[]);
        case("```\n### a\n```\n### b\n", &[(2, "a")], &[]);
        case(
            "### out\n```\n### a\n\n### b\n```\ntext\n~~~\n### c\n~~~\n### out2\n",
            &[(3, "a"), (5, "b"), (9, "c")],
            &[],
        );
        // Indented code is not fenced; a quote's fence is not read.
        case("    ### a\n\n", &[], &[]);
        case("> ```\n> x\n### b\n", &[], &[]);
        // A heading right before a closing fence was the last line of its code block.
        case(
            "```\n### 0\n```\n```\n### 1\n```\n```\n### 2\n```\n",
            &[(2, "0"), (5, "1"), (8, "2")],
            &[],
        );
        // A longer fence holds a shorter one, and a heading after it.
        case(
            "### A\n````md\n```sh\nx\n```\n### in\n````\n### B\n",
            &[(6, "in")],
            &[],
        );
    }

    #[test]
    fn a_fence_never_closed_is_reported_once_and_the_headings_after_it_are_not() {
        // The next record opens its own fence with an info string: the first fence was never
        // closed.
        case(
            "### A\n```java\nclass A {\n\n[…]\n\n### B\ntext\n```java\nclass B {}\n```\n### C\n",
            &[],
            &[(2, Some("A"))],
        );
        // The next record's bare fence would pair with it, and leave its own closing line open.
        case(
            "### A\n```\nx\n### B\n```\ny\n```\n### C\nz\n",
            &[],
            &[(2, Some("A"))],
        );
        // Nothing would close it.
        case("### A\n~~~\nx\n### B\n### C\n", &[], &[(2, Some("A"))]);
        // Open at the end of the file, and before any heading.
        case("```\nx\n", &[], &[(1, None)]);
        case("### A\nx\n```sh\nls\n", &[], &[(3, Some("A"))]);
        // Records whose own fences pair up between two records that each leave one open: read
        // as one document the two would pair up and turn the records between inside out.
        case(
            "### A\n**Request**\n```\n[1]\n```\n```\n[2,\n\n[…]\n\n### B\n#### Status\nAccepted\n\n### C\ntext\n```\nx\n```\nmore\n### D\n```\ny\n```\n```\nz\n\n[…]\n### E\ntext\n```\nw\n```\n",
            &[],
            &[(6, Some("A")), (25, Some("D"))],
        );
        // Two records that each leave one open.
        case(
            "### A\n```java\na\n### B\n```java\nb\n### C\nc\n",
            &[],
            &[(2, Some("A")), (5, Some("B"))],
        );
    }

    #[test]
    fn the_tracker_reads_code_lines() {
        let mut tracker = Tracker::any_indent();
        let code: Vec<bool> = [
            "a",
            "  ```yaml",
            "status: x",
            "  ```",
            "b",
            "~~~",
            "```",
            "c",
        ]
        .iter()
        .map(|line| tracker.is_code(line))
        .collect();
        assert_eq!(code, [false, true, true, true, false, true, true, true]);
    }

    #[test]
    fn many_records_that_leave_a_fence_open_take_one_pass() {
        let mut text = String::new();
        for i in 0..20_000 {
            let _ = writeln!(text, "### {i}\ntext\n```java\nclass A {{\n");
        }
        let found = check(&text);
        assert!(found.in_code.is_empty());
        assert_eq!(found.unclosed.len(), 20_000);
    }

    #[test]
    fn many_headings_in_one_fence_take_one_pass() {
        let mut text = String::from("### Outside\n```md\n");
        for i in 0..50_000 {
            let _ = writeln!(text, "### {i}");
        }
        text.push_str("```\n");
        let found = check(&text);
        assert_eq!(found.in_code.len(), 50_000);
        assert!(found.unclosed.is_empty());
    }
}
