//! The messages of `guard`, `hooks` and the agents' sidecars (`init --sidecar`, `brief
//! --agent`): the integration with the coding agents.

use std::fmt::Display;

/// `guard` without `--agent`.
pub(crate) const GUARD_AGENT_REQUIRED: &str = "--agent <name> is required";
/// `guard` with neither `--read` nor `--write`.
pub(crate) const GUARD_ACCESS_REQUIRED: &str = "one of --read or --write is required";
/// `guard` without a path.
pub(crate) const GUARD_PATH_REQUIRED: &str = "a path is required";
/// A hook payload over the cap.
pub(crate) const PAYLOAD_TOO_LARGE: &str = "the hook payload on standard input is over 64 MiB";
/// A hook payload without the tool's name.
pub(crate) const PAYLOAD_NO_TOOL: &str = "the hook payload has no tool_name";
/// `guard --hook`: a tool call that could not be judged is blocked.
#[must_use]
pub(crate) fn guard_blocked(why: &str) -> String {
    format!("bmad-mem guard: blocked, the call could not be checked: {why}")
}
/// `guard --hook`: a shell command whose writes cannot be read.
#[must_use]
pub(crate) fn shell_unreadable(why: &str) -> String {
    format!("cannot read the shell command ({why}), so the files it writes cannot be checked")
}
/// `hooks` without `--agent`.
pub(crate) const HOOKS_AGENT_REQUIRED: &str = "--agent <agent> is required";
/// `hooks` without its action.
pub(crate) const HOOKS_ACTION_MISSING: &str =
    "missing action — expected install | uninstall | check | remind";
/// `hooks install` when no `bmad-mem` is on this `PATH`.
pub(crate) const HOOKS_NOT_ON_PATH: &str = "warning: no bmad-mem on this PATH: the installed hooks run `bmad-mem` by name, so the agent must find it on its own PATH (the guard blocks every checked call until it does); install it, or add its folder to the PATH the agent starts with";
/// `hooks check` on a settings file without bmad-mem's hooks.
#[must_use]
pub(crate) fn hooks_none_installed(file: &str, agent: &str) -> String {
    format!(
        "{file} holds none of bmad-mem's hooks; run `bmad-mem hooks install --agent {agent}` first"
    )
}
/// `hooks check` when this binary's own path is unknown.
pub(crate) const HOOKS_CHECK_NO_EXE: &str =
    "cannot tell where this bmad-mem binary is, so the guard's verdicts cannot be asked of it";
/// `hooks check` when the boundaries deny nothing.
pub(crate) const HOOKS_CHECK_NOTHING_DENIED: &str = "no sample path is denied for writing (no access-boundaries file, or one that denies none of them): the blocking of a denied write was not tried";
/// `hooks check` when nothing sampled may be written.
pub(crate) const HOOKS_CHECK_NOTHING_ALLOWED: &str =
    "no sample path is writable under the boundaries: the allowed write was not tried";
/// `hooks check` when nothing sampled is denied for reading.
pub(crate) const HOOKS_CHECK_NO_DENIED_READ: &str =
    "no sample path is denied for reading: the blocking of a denied read was not tried";
/// `hooks check` for Codex, whose hooks see no reads.
pub(crate) const HOOKS_CHECK_CODEX_READS: &str =
    "Codex's hooks see no file reads (it reads through its shell): reads are not checked";
/// The reason `hooks remind` gives the agent.
pub(crate) const REMIND_HANDOFF: &str = "Before ending this session, hand it off to the next one: run `bmad-mem handoff --topic \"<what this session was about>\" --from -` with what was done, the decisions made, the next steps and the files modified on standard input. If nothing here is worth handing off, say so and stop.";

/// What an agent needs before it runs a project's hooks, one step a line (none for Claude
/// Code, which asks once whether to trust the folder and then reads its settings).
#[must_use]
pub(crate) fn hooks_trust_step(agent: &str) -> Vec<&'static str> {
    match agent {
        "codex" => vec![
            "Codex runs a project's hooks only once the project is trusted: start `codex` here and accept the trust prompt (or mark the folder trusted in ~/.codex/config.toml)",
        ],
        "gemini" => vec![
            "Gemini CLI runs a project's hooks only in a trusted folder: start `gemini` here and trust the folder when it asks (or with /permissions)",
        ],
        _ => Vec::new(),
    }
}

/// A hook payload that is not JSON.
pub(crate) fn payload_not_json(error: impl Display) -> String {
    format!("the hook payload on standard input is not valid JSON: {error}")
}

/// An agent bmad-mem has no hooks for.
pub(crate) fn unknown_agent(name: &str) -> String {
    format!("unknown agent '{name}' — expected claude-code | codex | gemini")
}

/// An agent name that cannot name a sidecar folder.
pub(crate) fn bad_agent_name(name: &str) -> String {
    format!(
        "agent name must be 1 to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-': {name}"
    )
}

/// A boundaries or settings file that cannot be read (`error` says why).
pub(crate) fn file_refused(rel: &str, error: impl Display) -> String {
    format!("{rel}: {error}")
}

/// A boundaries line that is not a valid glob.
pub(crate) fn invalid_pattern(rel: &str, line: usize, text: &str, error: impl Display) -> String {
    format!("{rel} line {line}: invalid pattern {text}: {error}")
}

/// A number in a settings file that `serde_json` can only read as a double (an integer beyond
/// 2^53): written back, its digits would change. `value` is the double it was read as.
pub(crate) fn number_too_large(value: f64) -> String {
    format!("a number too large to keep exactly: {value}")
}

/// A settings file that is not strict JSON.
pub(crate) fn settings_not_json(rel: &str, error: impl Display) -> String {
    format!("{rel} does not parse as JSON ({error}); fix it, then run again — nothing was changed")
}

/// A TOML settings file that does not parse.
pub(crate) fn settings_not_toml(rel: &str, error: impl Display) -> String {
    let error = error.to_string();
    let error = error.trim_end().replace('\n', " ");
    format!("{rel} does not parse as TOML ({error}); fix it, then run again — nothing was changed")
}

/// A settings file whose shape bmad-mem cannot merge into (`what` says which part).
pub(crate) fn settings_shape(rel: &str, what: &str) -> String {
    format!("{rel}: {what}; fix it, then run again — nothing was changed")
}

/// A boundaries file whose patterns do not compile together (`error` says why).
pub(crate) fn patterns_refused(rel: &str, error: impl Display) -> String {
    format!("{rel}: {error}")
}

/// Merged settings that `serde_json` could not render.
pub(crate) fn settings_not_rendered(error: impl Display) -> String {
    format!("cannot render the settings: {error}")
}

/// Rendered settings that are not UTF-8 (`serde_json` never makes them): the decoder's own text.
pub(crate) fn settings_not_utf8(error: impl Display) -> String {
    error.to_string()
}
