//! The hooks `hooks install` writes for each agent, and how to recognise them again (to
//! replace an older form, to uninstall, to check) (docs/AGENTS.md).

use crate::session::sidecar::HookAgent;
use crate::store::layout::{CLAUDE_SETTINGS, CODEX_HOOKS, GEMINI_SETTINGS};

/// One hook bmad-mem installs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hook {
    pub(crate) event: &'static str,
    pub(crate) matcher: Option<&'static str>,
    pub(crate) command: String,
    /// Gemini CLI names its hooks.
    pub(crate) name: Option<&'static str>,
}

/// What a hook command does when `bmad-mem` cannot be run (not on the agent's `PATH`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Missing {
    /// A guard: the tool call is blocked (exit 2, the reason on stderr), never let through.
    Block,
    /// A session-start or reminder hook: nothing happens but a line on stderr saying why.
    Skip,
}

/// The command an agent runs for one hook: `sh -c '…'` around `bmad-mem <args>`, so that
/// whatever shell the agent starts it with (Codex uses the user's login shell, which may be
/// fish), the same POSIX script runs; it checks that `bmad-mem` is on the agent's `PATH` first
/// (an agent started from a desktop launcher has another `PATH`, and a missing command exits
/// 127, which every agent takes as "let the call through"); and it names the project with the
/// agent's own variable, written `${NAME}` so that Gemini CLI, which replaces `$NAME` in the
/// command text by a shell-quoted copy before running it, leaves it to the shell. Without the
/// variable, the project is found from the folder the agent runs the hook in. The command
/// holds no path of this machine: settings files are committed and shared.
pub(crate) fn command(var: Option<&str>, args: &str, missing: Missing) -> String {
    let project = var.map_or_else(String::new, |v| format!("${{{v}:+-d \"${{{v}}}\"}} "));
    let fallback = match missing {
        Missing::Block => format!("echo \"{NOT_ON_PATH_BLOCK}\" >&2; exit 2"),
        Missing::Skip => format!("echo \"{NOT_ON_PATH_SKIP}\" >&2; exit 0"),
    };
    format!(
        "sh -c 'command -v bmad-mem >/dev/null 2>&1 || {{ {fallback}; }}; exec bmad-mem {project}{args}'"
    )
}

/// What a guard hook says when `bmad-mem` is not on the agent's `PATH`.
pub(crate) const NOT_ON_PATH_BLOCK: &str = "bmad-mem guard: blocked, bmad-mem is not on this agent PATH so the call cannot be checked; install it or add its folder to the PATH the agent starts with";
/// What the other hooks say then.
pub(crate) const NOT_ON_PATH_SKIP: &str = "bmad-mem: not on this agent PATH, so this hook did nothing; install it or add its folder to the PATH the agent starts with";

/// The settings file and the hooks for `agent`, as each agent documents them.
#[must_use]
pub(crate) fn hooks_of(agent: HookAgent) -> (&'static str, Vec<Hook>) {
    let hook = |event, matcher, command: String, name| Hook {
        event,
        matcher,
        command,
        name,
    };
    let name = agent.as_str();
    let (var, file) = match agent {
        HookAgent::ClaudeCode => (Some("CLAUDE_PROJECT_DIR"), CLAUDE_SETTINGS),
        HookAgent::Codex => (None, CODEX_HOOKS),
        HookAgent::Gemini => (Some("GEMINI_PROJECT_DIR"), GEMINI_SETTINGS),
    };
    let brief_args = match agent {
        HookAgent::Gemini => "brief --hook gemini",
        _ => "brief",
    };
    let brief = command(var, brief_args, Missing::Skip);
    let guard = command(
        var,
        &format!("guard --hook {name} --agent {name}"),
        Missing::Block,
    );
    let remind = command(var, &format!("hooks remind --agent {name}"), Missing::Skip);
    let hooks = match agent {
        HookAgent::ClaudeCode => vec![
            hook(
                "SessionStart",
                Some("startup|resume|clear|compact"),
                brief,
                None,
            ),
            hook(
                "PreToolUse",
                Some("Edit|MultiEdit|Write|NotebookEdit|Read|Grep|Glob|Bash"),
                guard,
                None,
            ),
            hook("Stop", None, remind, None),
        ],
        HookAgent::Codex => vec![
            hook(
                "SessionStart",
                Some("startup|resume|clear|compact"),
                brief,
                None,
            ),
            hook(
                "PreToolUse",
                Some("apply_patch|Edit|Write|Bash"),
                guard,
                None,
            ),
            hook("Stop", None, remind, None),
        ],
        // Gemini CLI matches a lifecycle source as an exact string (one group each) and a tool
        // name as an unanchored regular expression (anchored here).
        HookAgent::Gemini => vec![
            hook(
                "SessionStart",
                Some("startup"),
                brief.clone(),
                Some("bmad-mem-brief"),
            ),
            hook(
                "SessionStart",
                Some("resume"),
                brief.clone(),
                Some("bmad-mem-brief"),
            ),
            hook("SessionStart", Some("clear"), brief, Some("bmad-mem-brief")),
            hook(
                "BeforeTool",
                Some(GEMINI_GUARDED),
                guard,
                Some("bmad-mem-guard"),
            ),
            hook("AfterAgent", None, remind, Some("bmad-mem-remind")),
        ],
    };
    (file, hooks)
}

/// The Gemini CLI tools the guard judges: writes, reads, and the shell.
const GEMINI_GUARDED: &str = "^(write_file|replace|read_file|read_many_files|list_directory|glob|grep_search|search_file_content|run_shell_command)$";

/// Whether a hook command is one of bmad-mem's, in this form or an earlier one (`bmad-mem -d
/// "$CLAUDE_PROJECT_DIR" brief`, …): the commands install replaces and uninstall removes.
#[must_use]
pub(crate) fn is_ours(command: &str) -> bool {
    command.contains("bmad-mem")
        && [" brief", " guard --hook ", " hooks remind "]
            .iter()
            .any(|verb| command.contains(verb))
}
