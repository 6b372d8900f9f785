//! `handoff`: the session-end note, `.agents/memory/sessions/YYYY-MM-DD-<slug>.md`.
//!
//! The note has the Memory pack's five parts — what changed, decisions made, open questions,
//! next steps, files modified — filled from `--from FILE` (or `-` for stdin) when given; an
//! input with nothing but whitespace is refused (an empty or closed stdin is a mistake, not a
//! handoff). The input's `#`/`##`/`###` headings, found by a Markdown parser so that a `#` line
//! inside fenced code stays code, route the text under them by their words (five words at
//! most; the first rule that matches wins):
//!
//! | a word of the heading                                    | part           |
//! |----------------------------------------------------------|----------------|
//! | `files`, `file` (`fichiers`)                             | Files modified |
//! | `questions`, `question`, `blockers`, `unknowns`          | Open questions |
//! | `decisions`, `decision` (`décisions`)                    | Decisions made |
//! | `next`, `todo`, `to do` (`prochaines`, `étapes`, `suite`) | Next steps     |
//! | `changed`, `changes`, `change`, `summary`, `done` (`résumé`) | What changed |
//!
//! So `## Key decisions`, `## Modified files`, `## Changed files`, `## Questions`, `## Next` and
//! `## TODO` are all routed. Other headings stay, as text, in the part being filled; text before
//! any routed heading goes to "What changed"; a part left empty keeps its prompt as an HTML
//! comment. The report names every part that received text.
//!
//! A handoff never overwrites anything: when the name is taken, the next free one of `-2`,
//! `-3`, … is used, and the name is claimed by an exclusive create, so two sessions ending at
//! once both keep their notes. Everything is validated and read before the first write — the
//! topic, the agent and the input included, which go through the secret detector (a finding
//! names `--from` and the line of the input).

use std::io::{self, Read};
use std::path::Path;

use crate::actions::secrets;
use crate::context::Context;
use crate::context::folder_name;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::messages;
use crate::store::layout::{REGISTRY_CAP, SESSIONS_DIR};
use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

use crate::js::path::resolve;
use crate::js::text::trim;
use crate::output::Report;
use crate::session::pack::{create_project_file, day, ensure_project_dir, is_session_stem};
use crate::session::templates::{self, HANDOFF_PARTS, HandoffHead};
use crate::store::paths::confine;
use crate::store::{confined, numbered, temporaries};

/// Longest slug, in characters.
const SLUG_MAX: usize = 60;
/// How many numbered names are tried before giving up.
const MAX_SUFFIX: usize = 10_000;

/// Write a session handoff into .agents/memory/sessions/ (never overwrites).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HandoffArgs {
    /// What the session was about; names the file (required).
    #[arg(long, value_name = "text", allow_hyphen_values = true)]
    pub topic: Option<String>,
    /// The agent that writes the handoff.
    #[arg(long, value_name = "name", allow_hyphen_values = true)]
    pub agent: Option<String>,
    /// Markdown to fill the handoff's parts from: a file, or - for standard input.
    #[arg(long, value_name = "file|-", allow_hyphen_values = true)]
    pub from: Option<String>,
    /// The five parts' text, each given apart (the MCP tool's form; `from` is then not read).
    #[arg(skip)]
    pub parts: Option<[String; 5]>,
}

/// A file-name slug: lowercase letters and digits, every other run of characters one `-`,
/// at most 60 characters, `handoff` when nothing is left.
#[must_use]
pub(crate) fn slug(topic: &str) -> String {
    let mut out = String::new();
    let mut pending_dash = false;
    for c in topic.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            if pending_dash && !out.is_empty() {
                out.push('-');
            }
            pending_dash = false;
            out.push(c);
        } else {
            pending_dash = true;
        }
    }
    let mut cut: String = out.chars().take(SLUG_MAX).collect();
    while cut.ends_with('-') {
        cut.pop();
    }
    if cut.is_empty() {
        "handoff".to_owned()
    } else {
        cut
    }
}

/// The part a heading's text names, routed by its words (see the module documentation).
#[must_use]
pub(crate) fn part_of(heading: &str) -> Option<usize> {
    let lower = heading.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() || words.len() > 5 {
        return None;
    }
    let has = |list: &[&str]| words.iter().any(|w| list.contains(w));
    if has(&["files", "file", "fichiers", "fichier"]) {
        Some(4)
    } else if has(&["questions", "question", "blockers", "unknowns"]) {
        Some(2)
    } else if has(&["decisions", "decision", "décisions", "décision"]) {
        Some(1)
    } else if has(&["next", "todo", "todos", "prochaines", "étapes", "suite"])
        || words.windows(2).any(|w| w == ["to", "do"])
    {
        Some(3)
    } else if has(&[
        "changed",
        "changes",
        "change",
        "summary",
        "done",
        "résumé",
        "changé",
        "changements",
    ]) {
        Some(0)
    } else {
        None
    }
}

/// The `#`, `##` and `###` headings of `input` that name a part, found by a Markdown parser (so
/// a `#` line inside fenced code is text): for each, the byte range of its whole lines and the
/// part. Only headings that start their line count (not those in a quote or a list).
fn routed_headings(input: &str) -> Vec<(std::ops::Range<usize>, usize)> {
    let mut found = Vec::new();
    let mut current: Option<(std::ops::Range<usize>, String)> = None;
    for (event, range) in Parser::new(input).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. })
                if level <= HeadingLevel::H3
                    && input[range.start..].starts_with('#')
                    && starts_line(input, range.start) =>
            {
                current = Some((range, String::new()));
            }
            Event::Text(text) | Event::Code(text) => {
                if let Some((_, heading)) = &mut current {
                    heading.push_str(&text);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((range, heading)) = current.take()
                    && let Some(part) = part_of(&heading)
                {
                    let start = input[..range.start].rfind('\n').map_or(0, |i| i + 1);
                    let end = if input[..range.end].ends_with('\n') {
                        range.end
                    } else {
                        input[range.end..]
                            .find('\n')
                            .map_or(input.len(), |i| range.end + i + 1)
                    };
                    found.push((start..end, part));
                }
            }
            _ => {}
        }
    }
    found
}

/// Whether only up to three spaces stand between the start of its line and `at`.
fn starts_line(input: &str, at: usize) -> bool {
    let start = input[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = &input[start..at];
    before.len() <= 3 && before.bytes().all(|b| b == b' ')
}

/// Routes the input's text into the five parts (see the module documentation).
#[must_use]
pub(crate) fn split_parts(input: &str) -> [String; 5] {
    let mut parts: [Vec<&str>; 5] = Default::default();
    let mut current = 0;
    let mut at = 0;
    for (range, part) in routed_headings(input) {
        parts[current].push(&input[at..range.start]);
        current = part;
        at = range.end;
    }
    parts[current].push(&input[at..]);
    parts.map(|pieces| {
        let text: String = pieces.concat();
        let text = text.replace("\r\n", "\n");
        trim(&text).to_owned()
    })
}

/// Reads `--from`: a file relative to the current directory, or standard input for `-`. At most
/// 2 MiB of UTF-8.
fn read_input(from: &str, cwd: &Path, stdin: &mut dyn Read) -> Result<String> {
    let mut bytes = Vec::new();
    let limit = REGISTRY_CAP + 1;
    if from == "-" {
        stdin
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io("cannot read", Path::new("<stdin>"), e))?;
    } else {
        let path = resolve(cwd, Path::new(from));
        let file =
            std::fs::File::open(&path).map_err(|e| Error::io("cannot read --from", &path, e))?;
        file.take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io("cannot read --from", &path, e))?;
    }
    if bytes.len() as u64 > REGISTRY_CAP {
        return Err(Error::refused(messages::FROM_TOO_LARGE));
    }
    let text = String::from_utf8(bytes).map_err(|_| Error::refused(messages::FROM_NOT_UTF8))?;
    if trim(&text).is_empty() {
        return Err(Error::refused(if from == "-" {
            messages::FROM_STDIN_EMPTY
        } else {
            messages::FROM_EMPTY
        }));
    }
    Ok(text)
}

/// The handoff written.
#[derive(Debug, Clone)]
pub(crate) struct HandoffReport {
    /// Project-relative path of the new file.
    pub path: String,
    pub topic: String,
    pub agent: Option<String>,
    /// The parts that received text, by heading.
    pub filled: Vec<&'static str>,
}

/// Runs `handoff`, reading `--from -` from standard input.
///
/// # Errors
/// A missing `--topic`, an unreadable `--from`, a secret in the topic, the agent or the input,
/// a refused path, an I/O failure.
pub(crate) fn run(args: &HandoffArgs, ctx: &Context) -> Result<HandoffReport> {
    run_with_input(args, ctx, &mut io::stdin().lock())
}

/// [`run`] with standard input given.
///
/// # Errors
/// As [`run`].
pub(crate) fn run_with_input(
    args: &HandoffArgs,
    ctx: &Context,
    stdin: &mut dyn Read,
) -> Result<HandoffReport> {
    let topic = trim(args.topic.as_deref().unwrap_or_default()).to_owned();
    if topic.is_empty() {
        return Err(Error::refused(messages::TOPIC_REQUIRED));
    }
    let agent = args
        .agent
        .as_deref()
        .map(trim)
        .filter(|a| !a.is_empty())
        .map(str::to_owned);
    let input = match &args.from {
        Some(from) if args.parts.is_none() => read_input(from, &ctx.cwd, stdin)?,
        _ => String::new(),
    };
    let parts: [String; 5] = match &args.parts {
        Some(parts) => parts
            .clone()
            .map(|part| trim(&part.replace("\r\n", "\n")).to_owned()),
        None if args.from.is_some() => split_parts(&input),
        None => Default::default(),
    };
    let mut checked = vec![
        ("--topic", topic.as_str()),
        ("--agent", agent.as_deref().unwrap_or_default()),
        ("--from", input.as_str()),
    ];
    if args.parts.is_some() {
        checked.extend(
            HANDOFF_PARTS
                .iter()
                .zip(&parts)
                .map(|((heading, _), part)| (*heading, part.as_str())),
        );
    }
    secrets::refuse(ctx, &checked)?;
    let today = day(&ctx.now).to_owned();
    let text = templates::handoff(
        &HandoffHead {
            day: &today,
            at: &ctx.now.iso,
            topic: &topic,
            agent: agent.as_deref(),
            project: &folder_name(&ctx.root),
        },
        &parts,
    );
    let stem = format!("{today}-{}", slug(&topic));
    confine(&ctx.root, &format!("{SESSIONS_DIR}/{stem}.md"))?;
    ensure_project_dir(&ctx.root, SESSIONS_DIR)?;
    if let Some((sessions, _)) = confined::open_dir(&ctx.root, SESSIONS_DIR, false)? {
        temporaries::sweep_temporaries(&sessions, is_session_stem);
    }
    for name in numbered::names(&stem, ".md", 2).take(MAX_SUFFIX) {
        let rel = format!("{SESSIONS_DIR}/{name}");
        if create_project_file(&ctx.root, &rel, &text)? {
            let filled = HANDOFF_PARTS
                .iter()
                .zip(&parts)
                .filter(|(_, body)| !body.is_empty())
                .map(|((heading, _), _)| *heading)
                .collect();
            return Ok(HandoffReport {
                path: rel,
                topic,
                agent,
                filled,
            });
        }
    }
    Err(Error::refused(messages::no_free_handoff_name(&format!(
        "{SESSIONS_DIR}/{stem}.md"
    ))))
}

impl Report for HandoffReport {
    fn to_json(&self) -> Value {
        Value::Object(
            Object::new()
                .with("written", self.path.as_str())
                .with("topic", self.topic.as_str())
                .with("agent", self.agent.clone())
                .with(
                    "filled",
                    Value::Array(self.filled.iter().map(|h| Value::from(*h)).collect()),
                ),
        )
    }

    fn render_human(&self) -> String {
        let filled = if self.filled.is_empty() {
            "no part filled yet".to_owned()
        } else {
            format!("filled: {}", self.filled.join(", "))
        };
        format!("mem handoff: wrote {} ({filled})\n", self.path)
    }

    fn written(&self) -> Option<String> {
        Some(format!("handoff {} written", self.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(topic: &str, expected: &str) {
        assert_eq!(slug(topic), expected, "{topic:?}");
    }

    #[test]
    fn slugs() {
        case("Auth rework", "auth-rework");
        case("  --Auth   rework!!  ", "auth-rework");
        case("Fix #42: login/logout", "fix-42-login-logout");
        case("Éte CAFÉ", "éte-café");
        case("!!!", "handoff");
        case("🚀", "handoff");
        case(&"a".repeat(80), &"a".repeat(60));
        case(&format!("{} b", "a".repeat(59)), &"a".repeat(59));
    }

    #[test]
    fn parts_are_routed_by_heading() {
        let parts = split_parts(
            "Shipped the login.\n\n## Next steps\n- tests\n### Decisions:\n- sessions over JWT\n## Other\nkept\n#### Files\nx\n# files modified\n- src/a.rs\n",
        );
        assert_eq!(parts[0], "Shipped the login.");
        assert_eq!(
            parts[1],
            "- sessions over JWT\n## Other\nkept\n#### Files\nx"
        );
        assert_eq!(parts[2], "");
        assert_eq!(parts[3], "- tests");
        assert_eq!(parts[4], "- src/a.rs");
        assert_eq!(split_parts(""), <[String; 5]>::default());
    }

    #[test]
    fn a_hash_line_in_fenced_code_is_not_a_heading() {
        let parts = split_parts(
            "Did it.\n\n## Files\n```sh\n# Next steps\nrm -rf target\n```\n~~~\n## TODO\n~~~\n## Next\n- ship\n",
        );
        assert_eq!(parts[0], "Did it.");
        assert_eq!(parts[3], "- ship");
        assert_eq!(
            parts[4],
            "```sh\n# Next steps\nrm -rf target\n```\n~~~\n## TODO\n~~~"
        );
    }

    #[track_caller]
    fn routed(heading: &str, part: Option<usize>) {
        assert_eq!(part_of(heading), part, "{heading:?}");
    }

    #[test]
    fn headings_are_routed_by_their_words() {
        routed("Key decisions", Some(1));
        routed("Decisions made:", Some(1));
        routed("Modified files", Some(4));
        routed("Changed files", Some(4));
        routed("Files touched", Some(4));
        routed("Open questions", Some(2));
        routed("Questions", Some(2));
        routed("Next", Some(3));
        routed("What's next?", Some(3));
        routed("TODO", Some(3));
        routed("To do", Some(3));
        routed("Prochaines étapes", Some(3));
        routed("Summary", Some(0));
        routed("What changed", Some(0));
        routed("Other", None);
        routed("A long heading that mentions the next release", None);
    }

    #[test]
    fn input_from_stdin_is_capped_and_utf8() {
        let cwd = Path::new("/");
        assert_eq!(
            read_input("-", cwd, &mut "hi".as_bytes()).unwrap(),
            "hi".to_owned()
        );
        assert!(read_input("-", cwd, &mut &b"\xff"[..]).is_err());
        assert!(read_input("-", cwd, &mut &b""[..]).is_err());
        assert!(read_input("-", cwd, &mut &b" \n\t\n"[..]).is_err());
        let big = vec![b'x'; usize::try_from(REGISTRY_CAP).unwrap() + 1];
        assert!(read_input("-", cwd, &mut big.as_slice()).is_err());
    }
}
