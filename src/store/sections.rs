//! The `###` section cutter (docs §3.7), byte-compatible with bmad-plus.
//!
//! The text is split on `\n`; a line matching JavaScript's `/^###\s+(.*)/` opens a section whose
//! heading is the captured text, trimmed. `\s+` is greedy and `.` stops at a line terminator, so
//! the heading is what follows the run of whitespace after `###`, up to the first CR, LF, U+2028
//! or U+2029. The body is every following line plus `\n` (CRs kept) up to the next heading, so the
//! last section's body ends with one `\n` more than the file has. Fenced code is not skipped:
//! bmad-plus does not skip it, and digests must agree.
//!
//! Sections borrow from the source: the body is a slice of it, plus that final `\n`.
//! [`headings_in_code`] says which heading lines stand inside fenced code (pulldown-cmark reads
//! the fences), for the checks that warn about them.

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag};

use crate::js::text::{is_line_terminator, is_whitespace, trim};

/// One `###` section of a Markdown text. Two sections are equal when they read the same,
/// wherever they stand in their texts.
#[derive(Debug, Clone, Copy)]
pub struct Section<'a> {
    /// The heading text, trimmed.
    pub heading: &'a str,
    /// The body as it stands in the source.
    body: &'a str,
    /// The byte offset of the body in the text the section was cut from.
    body_start: usize,
    /// Whether the body takes one more `\n` than the source holds (the file's last line).
    extra_newline: bool,
}

impl<'a> Section<'a> {
    /// The pieces whose concatenation is the full text `heading + "\n" + body`.
    #[must_use]
    pub fn parts(&self) -> [&'a str; 4] {
        [
            self.heading,
            "\n",
            self.body,
            if self.extra_newline { "\n" } else { "" },
        ]
    }

    /// The byte offset at which the body (`parts()[2]`) starts in the text given to
    /// [`sections`]: where the line after the heading starts.
    #[must_use]
    pub fn body_start(&self) -> usize {
        self.body_start
    }

    /// `heading + "\n" + body`.
    #[must_use]
    pub fn full_text(&self) -> String {
        self.parts().concat()
    }

    /// The full text, trimmed: what recall shows and what a receipt's `textSha256` hashes.
    #[must_use]
    pub fn trimmed_text(&self) -> String {
        trim(&self.full_text()).to_owned()
    }
}

impl PartialEq for Section<'_> {
    fn eq(&self, other: &Self) -> bool {
        (self.heading, self.body, self.extra_newline)
            == (other.heading, other.body, other.extra_newline)
    }
}

impl Eq for Section<'_> {}

/// The heading of `line` (without its `\n`) when it opens a section.
#[must_use]
pub fn heading_of(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("###")?;
    let after_ws = rest.trim_start_matches(is_whitespace);
    if after_ws.len() == rest.len() {
        return None;
    }
    let end = after_ws.find(is_line_terminator).unwrap_or(after_ws.len());
    Some(trim(&after_ws[..end]))
}

/// Every heading line of `text`: its byte offset and its heading, in order.
#[must_use]
pub fn heading_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split('\n') {
        if let Some(heading) = heading_of(line) {
            out.push((offset, heading));
        }
        offset += line.len() + 1;
    }
    out
}

/// Every section of `text`, in order.
#[must_use]
pub fn sections(text: &str) -> Vec<Section<'_>> {
    let mut out: Vec<Section<'_>> = Vec::new();
    // (heading, byte offset where its body starts, whether any line follows the heading)
    let mut open: Option<(&str, usize, bool)> = None;
    for offset in candidate_lines(text) {
        let line_end =
            memchr::memchr(b'\n', &text.as_bytes()[offset..]).map_or(text.len(), |i| offset + i);
        let Some(heading) = heading_of(&text[offset..line_end]) else {
            continue;
        };
        if let Some((h, start, _)) = open {
            out.push(Section {
                heading: h,
                body: &text[start..offset],
                body_start: start,
                extra_newline: false,
            });
        }
        let has_following = line_end < text.len();
        open = Some((
            heading,
            if has_following {
                line_end + 1
            } else {
                line_end
            },
            has_following,
        ));
    }
    if let Some((heading, start, has_following)) = open {
        out.push(Section {
            heading,
            body: &text[start..],
            body_start: start,
            // Every following line takes a `\n`, the last one included.
            extra_newline: has_following,
        });
    }
    out
}

/// The start of every line of `text` that begins with `###`, in order: the only lines that can
/// open a section, found with a substring search instead of a look at every line.
fn candidate_lines(text: &str) -> impl Iterator<Item = usize> + '_ {
    let first = text.starts_with("###").then_some(0);
    first
        .into_iter()
        .chain(memchr::memmem::find_iter(text.as_bytes(), b"\n###").map(|i| i + 1))
}

/// Where `text` can be cut in two for [`sections`]: the start of the first section heading line
/// at or after byte `at`, or `text.len()` when there is none.
#[must_use]
pub fn split_point(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let at = at.min(bytes.len());
    // The start of the line holding `at`, then of each following line.
    let mut line = bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    while line < bytes.len() {
        let end = bytes[line..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| line + i);
        if line >= at && heading_of(&text[line..end]).is_some() {
            return line;
        }
        line = end + 1;
    }
    bytes.len()
}

/// The sections of `text` whose heading line starts before `split`, a [`split_point`]: with
/// `sections(&text[split..])`, exactly `sections(text)`, so the two halves of a large file can
/// be cut and scored apart.
#[must_use]
pub fn sections_before(text: &str, split: usize) -> Vec<Section<'_>> {
    let mut out = sections(&text[..split]);
    if split < text.len()
        && let Some(last) = out.last_mut()
    {
        // Its body ends where the next heading line starts, not at the end of a text.
        last.extra_newline = false;
    }
    out
}

/// The line number and heading of every heading of `headings` (as [`heading_lines`] gives them,
/// in order) that lies inside fenced code, in one pass over the text: the fences come in order
/// too, so the two lists are walked side by side, and the line count resumes where the last one
/// stopped. (Testing every heading against every fence and counting lines from the start each
/// time took minutes on a large note full of fenced headings.)
#[must_use]
pub fn headings_in_code<'a>(text: &str, headings: &[(usize, &'a str)]) -> Vec<(usize, &'a str)> {
    let mut fences = Parser::new(text)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => Some(range),
            _ => None,
        })
        .peekable();
    let mut found = Vec::new();
    let (mut counted_to, mut line) = (0, 1);
    for &(offset, heading) in headings {
        while fences.next_if(|f| f.end <= offset).is_some() {}
        let Some(fence) = fences.peek() else {
            break;
        };
        if fence.contains(&offset) {
            line += memchr::memchr_iter(b'\n', &text.as_bytes()[counted_to..offset]).count();
            counted_to = offset;
            found.push((line, heading));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A direct transcription of bmad-plus's loop, as the reference.
    fn reference(text: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut current: Option<(String, String)> = None;
        for line in text.split('\n') {
            if let Some(h) = heading_of(line) {
                if let Some(c) = current.take() {
                    out.push(c);
                }
                current = Some((h.to_owned(), String::new()));
            } else if let Some((_, body)) = current.as_mut() {
                body.push_str(line);
                body.push('\n');
            }
        }
        out.extend(current);
        out
    }

    #[track_caller]
    fn case(text: &str, expected: &[(&str, &str)]) {
        let actual: Vec<(String, String)> = sections(text)
            .iter()
            .map(|s| {
                (
                    s.heading.to_owned(),
                    s.full_text()[s.heading.len() + 1..].to_owned(),
                )
            })
            .collect();
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(h, b)| ((*h).to_owned(), (*b).to_owned()))
            .collect();
        assert_eq!(actual, expected, "{text:?}");
        assert_eq!(actual, reference(text), "{text:?}");
    }

    #[test]
    fn a_text_cut_at_a_split_point_gives_the_same_sections() {
        let texts = [
            "intro\n### A\nbody a\n###  B \r\nbody b\n### A",
            "### A\n### B\n\n### C\nc\n",
            "no heading at all\n",
            "### only\n",
            "",
            "x\n####5 not\n### é \n\u{2028}y\n### z",
        ];
        for text in texts {
            let whole = sections(text);
            for at in 0..=text.len() {
                let split = split_point(text, at);
                assert!(split >= at.min(text.len()), "{text:?} {at}");
                let mut halves = sections_before(text, split);
                halves.extend(sections(&text[split..]));
                assert_eq!(halves, whole, "{text:?} cut at {split}");
            }
        }
    }

    #[track_caller]
    fn code_case(text: &str, want: &[(usize, &str)]) {
        assert_eq!(
            headings_in_code(text, &heading_lines(text)),
            want,
            "{text:?}"
        );
    }

    #[test]
    fn headings_in_fenced_code_are_found_with_their_line_numbers() {
        code_case("### a\nx\n", &[]);
        code_case("```\n### a\n```\n### b\n", &[(2, "a")]);
        code_case(
            "### out\n```\n### a\n\n### b\n```\ntext\n~~~\n### c\n~~~\n### out2\n",
            &[(3, "a"), (5, "b"), (9, "c")],
        );
        // Indented code is not fenced; an unclosed fence runs to the end.
        code_case("    ### a\n\n```\n### b\n### c", &[(4, "b"), (5, "c")]);
        // A fence inside a quote ends with it.
        code_case("> ```\n> x\n### b\n", &[]);
        code_case(
            "```\n### 0\n```\n```\n### 1\n```\n```\n### 2\n```\n",
            &[(2, "0"), (5, "1"), (8, "2")],
        );
    }

    #[test]
    fn cuts_like_bmad_plus() {
        case("", &[]);
        case("no heading\n", &[]);
        case("### A", &[("A", "")]);
        case("### A\n", &[("A", "\n")]);
        case("### A\nx\n", &[("A", "x\n\n")]);
        case("intro\n### A\nx\n### B\ny", &[("A", "x\n"), ("B", "y\n")]);
        case("###A\n#### B\n## C\n", &[]);
        case("###   Title  \r\nbody\r\n", &[("Title", "body\r\n\n")]);
        case("### \rX\n", &[("X", "\n")]);
        case("### A\u{2028}tail\nb", &[("A", "b\n")]);
        case("###\u{a0}Nbsp\u{feff}\n", &[("Nbsp", "\n")]);
        case("###\n### \n", &[("", "\n")]);
        case("```\n### Fenced\n```\n", &[("Fenced", "```\n\n")]);
        case("### A\n### A\n", &[("A", ""), ("A", "\n")]);
    }

    #[test]
    fn trimmed_text_is_heading_and_body_trimmed() {
        let s = sections("### Auth strategy\nUse sessions.\n\n");
        assert_eq!(s[0].trimmed_text(), "Auth strategy\nUse sessions.");
    }

    proptest::proptest! {
        #[test]
        fn matches_the_reference_on_any_text(text in "(### ?|#|\\s|[a-z]|\r|\n|\u{2028}){0,60}") {
            let actual: Vec<(String, String)> = sections(&text)
                .iter()
                .map(|s| (s.heading.to_owned(), s.full_text()[s.heading.len() + 1..].to_owned()))
                .collect();
            proptest::prop_assert_eq!(actual, reference(&text));
        }

        /// The text before the first heading, then each heading line and its body as they stand
        /// in the source (the body without the extra final `\n` the cutter adds), re-join to
        /// the original text byte for byte.
        #[test]
        fn sections_rejoin_to_the_original_text(text in "(### ?|#|\\s|[a-z]|\r|\n|\u{2028}){0,80}") {
            let cut = sections(&text);
            let lines = heading_lines(&text);
            proptest::prop_assert_eq!(cut.len(), lines.len());
            let mut rejoined = String::from(&text[..lines.first().map_or(text.len(), |l| l.0)]);
            for (section, (offset, heading)) in cut.iter().zip(&lines) {
                proptest::prop_assert_eq!(section.heading, *heading);
                let heading_line = text[*offset..].split('\n').next().unwrap_or_default();
                rejoined.push_str(heading_line);
                let [_, _, body, extra] = section.parts();
                if offset + heading_line.len() < text.len() {
                    rejoined.push('\n');
                }
                rejoined.push_str(body);
                // Only the last section takes the extra `\n`, and only when lines follow it.
                proptest::prop_assert!(extra.is_empty() || std::ptr::eq(section, cut.last().unwrap()));
            }
            proptest::prop_assert_eq!(rejoined, text);
        }
    }
}
