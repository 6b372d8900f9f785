//! What the brief leaves out of a file because nobody wrote it: the parts of a template still as
//! bmad-mem created them (docs/BRIEF.md).
//!
//! * A Markdown file (`context.md`, a handoff) is cut into blocks at its `#` and `##` headings
//!   outside fenced code. A `##` block with nothing under it but blank lines and the
//!   templates' prompts (lines holding only an HTML comment) is empty; a block equal to the
//!   same block of the file's template — `context.md` as `init` wrote it for this project, on
//!   the day its front matter names — is untouched. Neither is printed, and a file left with
//!   nothing but headings is not printed at all.
//! * `identity.yaml` equal to the template `init` wrote (on the day its `created` names) is not
//!   printed; otherwise its comment lines and its keys with an empty value (`""`, `''`, `{}`,
//!   `[]`, `~`, `null`, or nothing and no nested lines) are left out.
//!
//! Pure: no I/O.

use crate::js::text::trim;
use crate::session::pack::{strip_front_matter, without_prompts};
use crate::store::front_matter::unquoted;

/// One block of a Markdown file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    /// The heading's text without its `#` marks; `None` for the text before the first heading.
    pub heading: Option<String>,
    /// The block as written, the prompts left out and blank runs made one, trimmed.
    pub text: String,
    /// Whether anything but its heading line is left.
    pub has_body: bool,
    /// Whether it is headed by a `#` line (a title, kept only with what follows it).
    pub is_title: bool,
}

/// The `#` or `##` heading `line` opens, and its level.
fn heading_of(line: &str) -> Option<(usize, &str)> {
    let marks = line.bytes().take_while(|b| *b == b'#').count();
    if !(1..=2).contains(&marks) {
        return None;
    }
    let rest = &line[marks..];
    if rest.is_empty() {
        return Some((marks, ""));
    }
    rest.starts_with([' ', '\t'])
        .then(|| (marks, trim(rest).trim_end_matches('#').trim_end()))
}

/// The fence a line opens or closes: its character and run length.
fn fence_of(line: &str) -> Option<(u8, usize)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let mark = *t.as_bytes().first()?;
    if mark != b'`' && mark != b'~' {
        return None;
    }
    let run = t.bytes().take_while(|b| *b == mark).count();
    (run >= 3).then_some((mark, run))
}

/// The blocks of `text` (a Markdown body, front matter already gone), in order.
#[must_use]
pub(crate) fn blocks(text: &str) -> Vec<Block> {
    let mut starts: Vec<(usize, Option<(usize, String)>)> = vec![(0, None)];
    let mut fence: Option<(u8, usize)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        match (fence, fence_of(bare)) {
            (None, Some(open)) => fence = Some(open),
            (Some((mark, len)), Some((m, run)))
                if m == mark
                    && run >= len
                    && trim(bare.trim_start_matches(char::from(m))).is_empty() =>
            {
                fence = None;
            }
            (None, None) => {
                if let Some((level, heading)) = heading_of(bare) {
                    starts.push((offset, Some((level, heading.to_owned()))));
                }
            }
            _ => {}
        }
        offset += line.len();
    }
    let ends: Vec<usize> = starts
        .iter()
        .skip(1)
        .map(|(at, _)| *at)
        .chain(std::iter::once(text.len()))
        .collect();
    starts
        .into_iter()
        .zip(ends)
        .filter_map(|((start, head), end)| {
            let raw = &text[start..end];
            let body = match head {
                Some(_) => raw.split_once('\n').map_or("", |(_, rest)| rest),
                None => raw,
            };
            let has_body = !without_prompts(body).is_empty();
            let text = without_prompts(raw);
            (!text.is_empty()).then(|| Block {
                is_title: matches!(head, Some((1, _))),
                heading: head.map(|(_, h)| h),
                text,
                has_body,
            })
        })
        .collect()
}

/// The blocks of `text` worth printing: not empty, and not as `template` (when given) has
/// them; none at all when blocks were left out and what is left has no body (a handoff whose
/// every part is empty). A file that is only a title keeps it.
#[must_use]
pub(crate) fn filled_blocks(text: &str, template: Option<&str>) -> Vec<Block> {
    let unwritten = template
        .map(|t| blocks(strip_front_matter(t)))
        .unwrap_or_default();
    let same =
        |a: &Block, b: &Block| a.heading == b.heading && normalized(&a.text) == normalized(&b.text);
    let all = blocks(text);
    let count = all.len();
    let kept: Vec<Block> = all
        .into_iter()
        .filter(|b| b.has_body || b.is_title)
        .filter(|b| !unwritten.iter().any(|t| same(b, t)))
        .collect();
    if kept.len() < count && !kept.iter().any(|b| b.has_body) {
        Vec::new()
    } else {
        kept
    }
}

/// Lines without trailing whitespace or carriage returns.
fn normalized(text: &str) -> String {
    text.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The value after `key:` on a YAML mapping line, when the line is one.
fn mapping_value(line: &str) -> Option<&str> {
    let t = line.trim_start();
    if t.starts_with(['-', '#', '"', '\'']) {
        return None;
    }
    let colon = t.find(':')?;
    let key = &t[..colon];
    let is_key = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '));
    let value = &t[colon + 1..];
    (is_key && (value.is_empty() || value.starts_with([' ', '\t']))).then_some(value)
}

/// A value without its trailing `# comment` (outside quotes), trimmed.
fn without_comment(value: &str) -> &str {
    let value = trim(value);
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'');
    let end = match quote {
        Some(q) => value[1..].find(q).map_or(value.len(), |i| i + 2),
        None => value.find(" #").unwrap_or(value.len()),
    };
    trim(&value[..end])
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// `yaml` without its comment lines and its keys with an empty value, blank runs made one,
/// trimmed.
#[must_use]
pub(crate) fn without_empty_values(yaml: &str) -> String {
    let lines: Vec<&str> = yaml.lines().collect();
    let is_noise = |l: &str| {
        let t = trim(l);
        t.is_empty() || t.starts_with('#')
    };
    let has_children = |i: usize| {
        lines[i + 1..]
            .iter()
            .find(|l| !is_noise(l))
            .is_some_and(|next| {
                indent(next) > indent(lines[i])
                    || (indent(next) == indent(lines[i]) && next.trim_start().starts_with('-'))
            })
    };
    let mut kept: Vec<&str> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if trim(line).starts_with('#') {
            continue;
        }
        if let Some(value) = mapping_value(line) {
            let empty = match without_comment(value) {
                "" => !has_children(i),
                v => matches!(v, "\"\"" | "''" | "{}" | "[]" | "~" | "null"),
            };
            if empty {
                continue;
            }
        }
        if trim(line).is_empty() && kept.last().is_none_or(|l| trim(l).is_empty()) {
            continue;
        }
        kept.push(line);
    }
    trim(&kept.join("\n")).to_owned()
}

/// What the brief prints of `identity.yaml`: nothing when it is `template` (the file as
/// created on the day its `created` names); else the file without comments and empty values.
#[must_use]
pub(crate) fn filled_identity(text: &str, template: &dyn Fn(&str) -> String) -> String {
    let created = text.lines().find_map(|l| {
        let value = l.strip_prefix("created:")?;
        Some(unquoted(without_comment(value)))
    });
    if let Some(day) = created
        && normalized(trim(text)) == normalized(trim(&template(&day)))
    {
        return String::new();
    }
    without_empty_values(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::templates;

    fn texts(blocks: &[Block]) -> Vec<&str> {
        blocks.iter().map(|b| b.text.as_str()).collect()
    }

    #[test]
    fn blocks_are_cut_at_headings_outside_fences() {
        let text = "intro\n# Title\n\n## A\n\n```\n## not a heading\n```\n\n## B\n<!-- prompt -->\n\n##C is text\n";
        let found = blocks(text);
        let headings: Vec<Option<&str>> = found.iter().map(|b| b.heading.as_deref()).collect();
        assert_eq!(headings, [None, Some("Title"), Some("A"), Some("B")]);
        assert_eq!(
            texts(&found),
            [
                "intro",
                "# Title",
                "## A\n\n```\n## not a heading\n```",
                "## B\n\n##C is text"
            ]
        );
        assert_eq!(
            found.iter().map(|b| b.has_body).collect::<Vec<_>>(),
            [true, false, true, true]
        );
    }

    #[test]
    fn an_untouched_context_prints_nothing_and_a_filled_one_its_filled_sections() {
        let template = templates::context("2026-10-01", "demo", "/p/demo");
        let body = strip_front_matter(&template);
        assert!(filled_blocks(body, Some(&template)).is_empty());
        let filled = template.replace(
            "## Current focus\n\n<!-- What matters right now. -->\n",
            "## Current focus\n\n<!-- What matters right now. -->\nShip the login page.\n",
        );
        let kept = filled_blocks(strip_front_matter(&filled), Some(&template));
        assert_eq!(texts(&kept), ["## Current focus\n\nShip the login page."]);
        // Another day's template leaves the identity section, whose date differs.
        let other = templates::context("2026-10-02", "demo", "/p/demo");
        let kept = filled_blocks(strip_front_matter(&filled), Some(&other));
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].heading.as_deref(), Some("Project identity"));
    }

    #[test]
    fn empty_handoff_parts_go_and_a_handoff_of_titles_only_goes_whole() {
        let head = templates::HandoffHead {
            day: "2026-10-18",
            at: "2026-10-18T09:30:00.000Z",
            topic: "Auth",
            agent: None,
            project: "demo",
        };
        let mut parts: [String; 5] = Default::default();
        let empty = templates::handoff(&head, &parts);
        assert!(filled_blocks(strip_front_matter(&empty), None).is_empty());
        parts[3] = "- ship it".into();
        let one = templates::handoff(&head, &parts);
        assert_eq!(
            texts(&filled_blocks(strip_front_matter(&one), None)),
            [
                "# Session Handoff — 2026-10-18 — Auth",
                "## Next steps\n\n- ship it"
            ]
        );
        assert_eq!(
            texts(&filled_blocks("# Handoff\nNext: tests.\n", None)),
            ["# Handoff\nNext: tests."]
        );
        // A handoff written as a title alone says that much; one whose parts were all left
        // empty says nothing.
        assert_eq!(texts(&filled_blocks("# Second\n", None)), ["# Second"]);
        assert!(filled_blocks("# Second\n\n## Next steps\n<!-- x -->\n", None).is_empty());
    }

    #[test]
    fn identity_without_empty_values_and_untouched_identity_not_at_all() {
        let template = |day: &str| templates::identity(day);
        assert_eq!(
            filled_identity(&templates::identity("2026-10-01"), &template),
            ""
        );
        let touched = templates::identity("2026-10-01").replace(
            "communication_language: \"\"",
            "communication_language: \"French\"",
        );
        let shown = filled_identity(&touched, &template);
        assert!(
            shown.starts_with(
                "communication_language: \"French\"\ncreated: \"2026-10-01\"\n\nstyle:\n"
            ),
            "{shown}"
        );
        assert!(
            !shown.contains("user_name")
                && !shown.contains("stack")
                && !shown.lines().any(|l| l.starts_with('#')),
            "{shown}"
        );
        assert!(shown.contains("verbosity: \"concise\"        # concise | detailed | minimal"));
        assert!(
            shown
                .ends_with("- \"Propose promotions to the brain; apply them only once approved.\"")
        );
        assert_eq!(
            filled_identity("user_name: \"Ada\"\n", &template),
            "user_name: \"Ada\""
        );
    }

    #[test]
    fn empty_yaml_values() {
        for (yaml, expected) in [
            ("a: \"\"\nb: 1\n", "b: 1"),
            ("a: ''\nb: {}\nc: []\nd: ~\ne: null\nf: x\n", "f: x"),
            ("a:\nb:\n  c: 1\nd:\n- x\n", "b:\n  c: 1\nd:\n- x"),
            ("a: \"\" # none yet\nb: \"#\"\n", "b: \"#\""),
            ("# only a comment\n\n\nz: 2\n", "z: 2"),
            ("- a:\n\"q: x\": \n", "- a:\n\"q: x\":"),
        ] {
            assert_eq!(without_empty_values(yaml), expected, "{yaml:?}");
        }
    }
}
