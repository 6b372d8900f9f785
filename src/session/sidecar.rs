//! BMAD agent sidecars and the agents bmad-mem integrates with: what `init --sidecar`,
//! `brief --agent`, `guard` and `hooks install` share.
//!
//! A sidecar is an agent's own memory folder, `_bmad/memory/<agent>-sidecar/`, with `index.md`
//! (read first, on activation), `access-boundaries.md` (checked before every file operation),
//! `patterns.md` and `chronology.md`. An agent's name becomes a folder name, so it is one plain
//! name: letters, digits, `.`, `_`, `-`, not starting with `.` or `-`.

use crate::error::{Error, Result};
use crate::messages;
use crate::store::layout::{
    SIDECAR_BOUNDARIES, SIDECAR_CHRONOLOGY, SIDECAR_INDEX, SIDECAR_PATTERNS,
};

/// The agents whose hooks bmad-mem installs and answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookAgent {
    ClaudeCode,
    Codex,
    Gemini,
}

impl HookAgent {
    /// Every agent, in the order the help lists them.
    pub(crate) const ALL: [HookAgent; 3] =
        [HookAgent::ClaudeCode, HookAgent::Codex, HookAgent::Gemini];

    /// The agent's name on the command line.
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            HookAgent::ClaudeCode => "claude-code",
            HookAgent::Codex => "codex",
            HookAgent::Gemini => "gemini",
        }
    }

    /// The agent named `name`.
    ///
    /// # Errors
    /// An unknown name.
    pub(crate) fn parse(name: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|agent| agent.as_str() == name)
            .ok_or_else(|| Error::refused(messages::unknown_agent(name)))
    }
}

/// Refuses an agent name that cannot be a sidecar folder's name.
///
/// # Errors
/// An empty name, or one with a character other than letters, digits, `.`, `_`, `-`, or one
/// starting with `.` or `-`.
pub(crate) fn check_agent_name(name: &str) -> Result<()> {
    let is_plain = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with(['.', '-'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if is_plain {
        Ok(())
    } else {
        Err(Error::refused(messages::bad_agent_name(name)))
    }
}

/// The files of a new sidecar for `agent`, created `today`: (file name, text).
#[must_use]
pub(crate) fn templates(agent: &str, today: &str) -> [(&'static str, String); 4] {
    [
        (
            SIDECAR_INDEX,
            format!(
                "# {agent} — memory index\n\nCreated {today}. Read on activation: keep it short.\n\n\
                 ## Essential context\n\n## Active work\n\n## Preferences\n\n\
                 ## Other files\n- access-boundaries.md — where {agent} may read and write\n\
                 - patterns.md — learned patterns\n- chronology.md — session timeline\n"
            ),
        ),
        (
            SIDECAR_BOUNDARIES,
            format!(
                "# Access Boundaries for {agent}\n\n\
                 Checked before every file operation (`bmad-mem guard --agent {agent}`).\n\
                 One path or glob a line; a folder covers everything below it; deny zones win;\n\
                 a path no line names is denied.\n\n\
                 ## Read Access\n- .\n\n\
                 ## Write Access\n- _bmad/memory/{agent}-sidecar/\n\n\
                 ## Deny Zones\n- .git/\n- **/.env\n- _bmad/memory/{agent}-sidecar/access-boundaries.md\n"
            ),
        ),
        (
            SIDECAR_PATTERNS,
            format!(
                "# {agent} — learned patterns\n\nAppend-only; summarize regularly and prune what no longer holds.\n"
            ),
        ),
        (
            SIDECAR_CHRONOLOGY,
            format!(
                "# {agent} — chronology\n\nAppend-only: session summaries and significant events, newest last.\n\n- {today}: sidecar created\n"
            ),
        ),
    ]
}

/// A hook's payload from standard input, as the agents send it: at most
/// [`HOOK_PAYLOAD_CAP`](crate::store::layout::HOOK_PAYLOAD_CAP) bytes, read whole (`guard
/// --hook` and `hooks remind` parse it as they need).
///
/// # Errors
/// Standard input that cannot be read, or a payload over the cap.
pub(crate) fn read_hook_payload(stdin: &mut dyn std::io::Read) -> Result<Vec<u8>> {
    use std::io::Read as _;
    let cap = crate::store::layout::HOOK_PAYLOAD_CAP;
    let mut bytes = Vec::new();
    stdin
        .take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("cannot read", std::path::Path::new("<stdin>"), e))?;
    if bytes.len() as u64 > cap {
        return Err(Error::refused(messages::PAYLOAD_TOO_LARGE));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_names_are_plain_folder_names() {
        for good in ["forge", "claude-code", "a.b_c-1"] {
            assert!(check_agent_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            ".",
            "..",
            "-x",
            ".hidden",
            "a/b",
            "a b",
            "é",
            &"x".repeat(65),
        ] {
            assert!(check_agent_name(bad).is_err(), "{bad}");
        }
        assert_eq!(HookAgent::parse("codex").unwrap(), HookAgent::Codex);
        assert!(HookAgent::parse("cursor").is_err());
    }
}
