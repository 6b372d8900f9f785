//! The text of every file bmad-mem creates from nothing: the project notes and `context.md`,
//! the global brain's `identity.yaml` and notes, the project index entries and the session
//! handoff skeleton.
//!
//! Entry formats are the Memory pack's (decisions: Context, Decision, Rationale, Consequences,
//! Status). The example entry of each note file is indented four spaces instead of fenced:
//! sections are cut at every line starting with `###`, fenced or not (docs §3.7), so a fenced
//! example would become a real entry that `recall` returns and `status` counts. A template has
//! no `###` line at all.
//!
//! Templates are pure functions of their inputs (the date comes from the context's clock); they
//! never touch the disk.

use std::fmt::Write as _;

use crate::session::pack::yaml_string;

/// Who a note file speaks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope<'a> {
    /// One project, by name.
    Project(&'a str),
    /// The global brain, shared by every project.
    Global,
}

impl Scope<'_> {
    fn name(&self) -> &str {
        match self {
            Scope::Project(name) => name,
            Scope::Global => "Global Brain",
        }
    }

    fn audience(&self) -> &'static str {
        match self {
            Scope::Project(_) => "this project",
            Scope::Global => "all your projects",
        }
    }

    /// What the global brain's notes add to their introduction.
    fn rule(&self) -> &'static str {
        match self {
            Scope::Project(_) => "",
            Scope::Global => {
                "This is the global brain: only what holds for two projects or more belongs\n\
                 here, and it is promoted from a project only once approved.\n"
            }
        }
    }
}

fn front_matter(title: &str, description: &str, day: &str, scope: Scope<'_>) -> String {
    format!(
        "---\ntitle: {title}\ndescription: {description}\ncreated: {}\nproject: {}\n---\n\n",
        yaml_string(day),
        yaml_string(scope.name())
    )
}

/// `decisions.md`.
#[must_use]
pub(crate) fn decisions(day: &str, scope: Scope<'_>) -> String {
    let mut text = front_matter(
        "Decisions",
        "Architectural and strategic decisions, one entry each",
        day,
        scope,
    );
    let _ = write!(
        text,
        "# Decisions\n\n\
         Non-obvious choices for {}: if you would explain \"why\" to a colleague, log it.\n\
         One entry per decision, readable in ten seconds, dated YYYY-MM-DD. Never delete one:\n\
         set its status to superseded or rolled-back and name the entry that replaces it.\n\
         {}\n\
         Entry format (without the indentation):\n\n\
         \x20   ### YYYY-MM-DD — <short title>\n\
         \x20   - **Context**: why the decision was needed\n\
         \x20   - **Decision**: what was chosen\n\
         \x20   - **Rationale**: why\n\
         \x20   - **Consequences**: what this unlocks / forecloses\n\
         \x20   - **Status**: active / superseded / rolled-back\n\n\
         <!-- Entries go below this line. -->\n",
        scope.audience(),
        scope.rule()
    );
    text
}

/// `lessons.md`.
#[must_use]
pub(crate) fn lessons(day: &str, scope: Scope<'_>) -> String {
    let mut text = front_matter(
        "Lessons",
        "What went wrong or surprised us, so it is not repeated",
        day,
        scope,
    );
    let _ = write!(
        text,
        "# Lessons\n\n\
         Surprises and mistakes in {}, logged when they happen, not at the end of the session.\n\
         {}\n\
         Entry format (without the indentation):\n\n\
         \x20   ### YYYY-MM-DD — <what happened>\n\
         \x20   - **Context**: the circumstances\n\
         \x20   - **Impact**: what went wrong, what it cost\n\
         \x20   - **Lesson**: the rule to follow next time\n\
         \x20   - **Related**: the decision it concerns (date and title), if any\n\n\
         <!-- Entries go below this line. -->\n",
        scope.audience(),
        scope.rule()
    );
    text
}

/// `patterns.md`.
#[must_use]
pub(crate) fn patterns(day: &str, scope: Scope<'_>) -> String {
    let mut text = front_matter(
        "Patterns",
        "Solutions that worked and can be reused",
        day,
        scope,
    );
    let _ = write!(
        text,
        "# Patterns\n\n\
         Reusable solutions for {}: the problem, the shape of the answer, its cost.\n\
         {}\n\
         Entry format (without the indentation):\n\n\
         \x20   ### <pattern name>\n\
         \x20   - **Problem**: what it solves\n\
         \x20   - **Shape**: the core idea in two or three sentences\n\
         \x20   - **Trade-off**: what it costs\n\
         \x20   - **Status**: candidate / validated / deprecated\n\n\
         <!-- Entries go below this line. -->\n",
        scope.audience(),
        scope.rule()
    );
    text
}

/// The project's `context.md`: its living state.
#[must_use]
pub(crate) fn context(day: &str, project: &str, path: &str) -> String {
    let mut text = front_matter(
        "Project Context",
        "Living state of the project, read at session start and updated at session end",
        day,
        Scope::Project(project),
    );
    let _ = write!(
        text,
        "# Project Context\n\n\
         Readable in thirty seconds: update it when the state of the project changes.\n\n\
         ## Project identity\n\n\
         - **Name**: {project}\n\
         - **Path**: {path}\n\
         - **Stack**: (to fill in)\n\
         - **Status**: active\n\
         - **Created**: {day}\n\n\
         ## Current focus\n\n<!-- What matters right now. -->\n\n\
         ## Recent changes\n\n<!-- The last five significant changes, newest first, dated. -->\n\n\
         ## Architecture notes\n\n<!-- Key constraints; the reasons live in decisions.md. -->\n\n\
         ## Known issues\n\n<!-- Active bugs and debt to keep in mind. -->\n\n\
         ## Open questions\n\n<!-- What needs a human decision. -->\n"
    );
    text
}

/// The global brain's `identity.yaml`: who the user is and how agents should work with them.
#[must_use]
pub(crate) fn identity(day: &str) -> String {
    format!(
        "# Identity: your preferences, read by agents at the start of every session, in every\n\
         # project. Edit freely: bmad-mem creates this file once and never rewrites it.\n\n\
         user_name: \"\"\n\
         communication_language: \"\"\n\
         created: {}\n\n\
         style:\n\
         \x20 verbosity: \"concise\"        # concise | detailed | minimal\n\
         \x20 explain_level: \"expert\"     # beginner | intermediate | expert\n\n\
         # Default technical choices, unless a project says otherwise.\n\
         stack: {{}}\n\n\
         # Rules every agent follows.\n\
         rules:\n\
         \x20 - \"Dates in ISO 8601 (YYYY-MM-DD), never relative.\"\n\
         \x20 - \"Never delete memory: archive, consolidate or supersede instead.\"\n\
         \x20 - \"Read an existing file entirely before changing it.\"\n\
         \x20 - \"Propose promotions to the brain; apply them only once approved.\"\n",
        yaml_string(day)
    )
}

/// One `key: value` line of a project index entry; values are JSON texts, as bmad-plus writes
/// them.
pub(crate) type IndexField = (&'static str, String);

/// A `projects/<hash>.yaml` index entry.
#[must_use]
pub(crate) fn index_entry(fields: &[IndexField]) -> String {
    fields.iter().fold(String::new(), |mut text, (key, value)| {
        text.push_str(key);
        text.push_str(": ");
        text.push_str(value);
        text.push('\n');
        text
    })
}

/// The five parts of a session handoff, in order: (heading, prompt when empty).
pub(crate) const HANDOFF_PARTS: [(&str, &str); 5] = [
    ("What changed", "Summary of the work done this session."),
    (
        "Decisions made",
        "Non-obvious decisions, with their rationale.",
    ),
    (
        "Open questions",
        "What needs a human decision or more research.",
    ),
    ("Next steps", "What should happen next, in priority order."),
    ("Files modified", "Files changed, each with a short reason."),
];

/// What a handoff says about itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HandoffHead<'a> {
    pub day: &'a str,
    pub at: &'a str,
    pub topic: &'a str,
    pub agent: Option<&'a str>,
    pub project: &'a str,
}

/// A session handoff: front matter, title, then the five parts, each with its text or, when
/// empty, its prompt as an HTML comment.
#[must_use]
pub(crate) fn handoff(head: &HandoffHead<'_>, parts: &[String; 5]) -> String {
    let mut text = format!(
        "---\ntitle: Session Handoff\ndate: {}\ntopic: {}\n",
        yaml_string(head.day),
        yaml_string(head.topic)
    );
    if let Some(agent) = head.agent {
        let _ = writeln!(text, "agent: {}", yaml_string(agent));
    }
    let _ = write!(
        text,
        "project: {}\nwritten_at: {}\n---\n\n# Session Handoff — {} — {}\n",
        yaml_string(head.project),
        yaml_string(head.at),
        head.day,
        head.topic.replace(['\r', '\n'], " ")
    );
    for ((heading, prompt), body) in HANDOFF_PARTS.iter().zip(parts) {
        let _ = write!(text, "\n## {heading}\n\n");
        if body.is_empty() {
            let _ = writeln!(text, "<!-- {prompt} -->");
        } else {
            text.push_str(body);
            text.push('\n');
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sections::sections;

    #[test]
    fn note_templates_have_no_entries() {
        for text in [
            decisions("2026-10-18", Scope::Project("demo")),
            lessons("2026-10-18", Scope::Global),
            patterns("2026-10-18", Scope::Project("demo")),
            context("2026-10-18", "demo", "/p/demo"),
        ] {
            assert!(sections(&text).is_empty(), "{text}");
            assert!(text.ends_with("-->\n"));
            assert!(text.contains("created: \"2026-10-18\"\n"));
        }
        assert!(decisions("2026-10-18", Scope::Global).contains("project: \"Global Brain\"\n"));
        assert!(
            decisions("d", Scope::Project("a\"b")).contains("project: \"a\\\"b\"\n"),
            "names are quoted"
        );
        assert!(identity("2026-10-18").contains("created: \"2026-10-18\"\n"));
    }

    #[test]
    fn index_entries_are_key_json_lines() {
        assert_eq!(
            index_entry(&[
                ("path", yaml_string("/p/a")),
                ("bmad_installed", "true".into())
            ]),
            "path: \"/p/a\"\nbmad_installed: true\n"
        );
    }

    #[test]
    fn handoff_fills_parts_and_prompts_the_empty_ones() {
        let head = HandoffHead {
            day: "2026-10-18",
            at: "2026-10-18T09:30:00.000Z",
            topic: "Auth\nrework",
            agent: None,
            project: "demo",
        };
        let mut parts: [String; 5] = Default::default();
        parts[3] = "- ship it".into();
        let text = handoff(&head, &parts);
        assert!(text.starts_with(
            "---\ntitle: Session Handoff\ndate: \"2026-10-18\"\ntopic: \"Auth\\nrework\"\nproject: \"demo\"\n"
        ));
        assert!(text.contains("# Session Handoff — 2026-10-18 — Auth rework\n"));
        assert!(text.contains("\n## Next steps\n\n- ship it\n"));
        assert!(
            text.contains("\n## What changed\n\n<!-- Summary of the work done this session. -->\n")
        );
        assert!(sections(&text).is_empty());
    }
}
