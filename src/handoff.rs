//! `handoff`: the session-end note, `.agents/memory/sessions/YYYY-MM-DD-<slug>.md`.
//!
//! The note has the Memory pack's five parts — what changed, decisions made, open questions,
//! next steps, files modified — filled from `--from FILE` (or `-` for stdin) when given. The
//! input's `#`/`##`/`###` headings that name a part (`Next steps`, `Decisions`, `Files`, …)
//! route the text under them; text before any such heading goes to "What changed"; a part left
//! empty keeps its prompt as an HTML comment.
//!
//! A handoff never overwrites anything: when the name is taken, the next free one of `-2`,
//! `-3`, … is used, and the name is claimed by an exclusive create, so two sessions ending at
//! once both keep their notes. Everything is validated and read before the first write.

use std::io::{self, Read};
use std::path::Path;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::init::folder_name;
use crate::js::json::{Object, Value};
use crate::js::text::{is_whitespace, trim};
use crate::memory::{
    SESSIONS_DIR, create_project_file, day, ensure_project_dir, is_session_stem,
    sweep_dead_temporaries,
};
use crate::output::Report;
use crate::store::paths::{REGISTRY_CAP, confine, resolve};
use crate::templates::{self, HANDOFF_PARTS, HandoffHead};

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
}

/// A file-name slug: lowercase letters and digits, every other run of characters one `-`,
/// at most 60 characters, `handoff` when nothing is left.
#[must_use]
pub fn slug(topic: &str) -> String {
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

/// The part a heading line names, if it is one: `## Next steps`, `# Decisions:`, …
fn part_of(line: &str) -> Option<usize> {
    let hashes = line.len() - line.trim_start_matches('#').len();
    if !(1..=3).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    if !rest.starts_with(is_whitespace) {
        return None;
    }
    let name = trim(rest)
        .trim_end_matches(':')
        .to_lowercase()
        .split(is_whitespace)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    match name.as_str() {
        "what changed" | "changes" | "summary" | "done" => Some(0),
        "decisions" | "decisions made" => Some(1),
        "open questions" | "questions" => Some(2),
        "next steps" | "next" | "todo" => Some(3),
        "files modified" | "files changed" | "files" => Some(4),
        _ => None,
    }
}

/// Routes the input's text into the five parts (see the module documentation).
#[must_use]
pub fn split_parts(input: &str) -> [String; 5] {
    let mut parts: [Vec<&str>; 5] = Default::default();
    let mut current = 0;
    for line in input.lines() {
        if let Some(part) = part_of(line) {
            current = part;
        } else {
            parts[current].push(line);
        }
    }
    parts.map(|lines| trim(&lines.join("\n")).to_owned())
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
        return Err(Error::refused("--from input is over 2 MiB"));
    }
    String::from_utf8(bytes).map_err(|_| Error::refused("--from input is not valid UTF-8"))
}

/// The handoff written.
#[derive(Debug, Clone)]
pub struct HandoffReport {
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
/// A missing `--topic`, an unreadable `--from`, a refused path, an I/O failure.
pub fn run(args: &HandoffArgs, ctx: &Context) -> Result<HandoffReport> {
    run_with_input(args, ctx, &mut io::stdin().lock())
}

/// [`run`] with standard input given.
///
/// # Errors
/// As [`run`].
pub fn run_with_input(
    args: &HandoffArgs,
    ctx: &Context,
    stdin: &mut dyn Read,
) -> Result<HandoffReport> {
    let topic = trim(args.topic.as_deref().unwrap_or_default()).to_owned();
    if topic.is_empty() {
        return Err(Error::refused("--topic <text> is required"));
    }
    let agent = args
        .agent
        .as_deref()
        .map(trim)
        .filter(|a| !a.is_empty())
        .map(str::to_owned);
    let parts = match &args.from {
        Some(from) => split_parts(&read_input(from, &ctx.cwd, stdin)?),
        None => Default::default(),
    };
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
    sweep_dead_temporaries(&confine(&ctx.root, SESSIONS_DIR)?, is_session_stem);
    for n in 1..=MAX_SUFFIX {
        let rel = if n == 1 {
            format!("{SESSIONS_DIR}/{stem}.md")
        } else {
            format!("{SESSIONS_DIR}/{stem}-{n}.md")
        };
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
    Err(Error::refused(format!(
        "no free handoff name left for {SESSIONS_DIR}/{stem}.md"
    )))
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
    fn input_from_stdin_is_capped_and_utf8() {
        let cwd = Path::new("/");
        assert_eq!(
            read_input("-", cwd, &mut "hi".as_bytes()).unwrap(),
            "hi".to_owned()
        );
        assert!(read_input("-", cwd, &mut &b"\xff"[..]).is_err());
        let big = vec![b'x'; usize::try_from(REGISTRY_CAP).unwrap() + 1];
        assert!(read_input("-", cwd, &mut big.as_slice()).is_err());
    }
}
