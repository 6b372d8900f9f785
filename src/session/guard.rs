//! `guard`: may this agent read or write this path? (docs/AGENTS.md)
//!
//! The project's `.agents/memory/access-boundaries.md` applies to every agent; the agent's
//! sidecar file `_bmad/memory/<agent>-sidecar/access-boundaries.md` applies to that agent too,
//! and every file that exists must allow. With neither file, everything is allowed: guarding is
//! opt-in. The decision itself is [`crate::session::boundaries`]'s.
//!
//! Exit status 0 allows and 2 denies — the status an agent's hook runner takes as "block this
//! tool call" — and 1 is a usage or file error, as everywhere. With `--hook <agent>`, the tool
//! call comes from standard input in that agent's hook payload, and the answer is in its hook
//! format: nothing on stdout when allowed (Gemini CLI: `{}`), the reason on stderr and status 2
//! when denied. A tool call that names no file is not guarded. Read-only: nothing is written.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::messages;
use crate::output::Report;
use crate::session::boundaries::{Access, Boundaries, Verdict, target};
use crate::session::shell;
use crate::session::sidecar::{HookAgent, check_agent_name, read_hook_payload};
use crate::store::layout::{BOUNDARIES_FILE, SIDECAR_BOUNDARIES, sidecar_path};
use crate::store::paths::read_registry;
use crate::store::resolve::real_path;

/// Decide whether an agent may read or write a path (exit 0 allowed, 2 denied).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct GuardArgs {
    /// The agent asking: its sidecar's boundaries apply along with the project's.
    #[arg(long, value_name = "name", allow_hyphen_values = true)]
    pub(crate) agent: Option<String>,
    /// Check read access.
    #[arg(long, conflicts_with = "write")]
    pub(crate) read: bool,
    /// Check write access.
    #[arg(long)]
    pub(crate) write: bool,
    /// Read the tool call from standard input as this agent's hook sends it, and answer in its
    /// hook format (claude-code, codex, gemini).
    #[arg(
        long,
        value_name = "agent",
        value_parser = ["claude-code", "codex", "gemini"],
        conflicts_with_all = ["read", "write", "path"]
    )]
    pub(crate) hook: Option<String>,
    /// The path: absolute, or relative to the project root.
    #[arg(value_name = "path", allow_hyphen_values = true)]
    pub(crate) path: Option<String>,
}

/// The decision on one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decision {
    pub(crate) access: Access,
    pub(crate) is_allowed: bool,
    /// Project-relative inside the project, absolute outside.
    pub(crate) path: String,
    /// The line that decided; `None` when no file applies or no line names the path.
    pub(crate) rule: Option<String>,
    /// The boundaries file that decided, project-relative; `None` when no file applies.
    pub(crate) file: Option<String>,
}

impl Decision {
    /// One line: what was decided, and why.
    #[must_use]
    pub(crate) fn reason(&self) -> String {
        let verb = if self.is_allowed { "allowed" } else { "denied" };
        let access = self.access.as_str();
        let path = &self.path;
        match (&self.file, &self.rule) {
            (None, _) => format!("{access} {path} {verb}: no access-boundaries file"),
            (Some(file), Some(rule)) if self.is_allowed => {
                format!("{access} {path} {verb} by `{rule}` in {file}")
            }
            (Some(file), Some(rule)) => {
                format!("{access} {path} {verb}: `{rule}` is a deny zone in {file}")
            }
            (Some(file), None) => format!(
                "{access} {path} {verb}: not under {} in {file}",
                self.access.heading()
            ),
        }
    }
}

/// What `guard` answers.
#[derive(Debug, Clone)]
pub(crate) struct GuardReport {
    /// One decision on the command line; one a file for a hook's tool call (none when it names
    /// no file).
    pub(crate) decisions: Vec<Decision>,
    /// The hook format to answer in, if any.
    pub(crate) hook: Option<HookAgent>,
    /// In hook mode, why the tool call could not be judged (a payload that does not parse, an
    /// unreadable boundaries file, a shell command that cannot be read): the call is blocked,
    /// never let through unjudged.
    pub(crate) failure: Option<String>,
}

impl GuardReport {
    fn denied(&self) -> Option<&Decision> {
        self.decisions.iter().find(|d| !d.is_allowed)
    }

    fn is_blocked(&self) -> bool {
        self.failure.is_some() || self.denied().is_some()
    }
}

impl Report for GuardReport {
    fn to_json(&self) -> Value {
        let decision = self
            .denied()
            .or_else(|| self.decisions.first())
            .cloned()
            .unwrap_or(Decision {
                access: Access::Write,
                is_allowed: true,
                path: String::new(),
                rule: None,
                file: None,
            });
        let text = |v: &Option<String>| v.clone().map_or(Value::Null, Value::from);
        Value::Object(
            Object::new()
                .with(
                    "decision",
                    if decision.is_allowed { "allow" } else { "deny" },
                )
                .with("path", decision.path.as_str())
                .with("rule", text(&decision.rule))
                .with("file", text(&decision.file)),
        )
    }

    fn render_human(&self) -> String {
        match self.hook {
            Some(HookAgent::Gemini) if !self.is_blocked() => "{}\n".to_owned(),
            Some(_) => String::new(),
            None => self.decisions.iter().fold(String::new(), |mut out, d| {
                out.push_str(&d.reason());
                out.push('\n');
                out
            }),
        }
    }

    fn warnings(&self) -> Vec<String> {
        if let Some(failure) = &self.failure {
            return vec![messages::guard_blocked(failure)];
        }
        match (self.hook, self.denied()) {
            (Some(_), Some(denied)) => vec![format!("bmad-mem guard: {}", denied.reason())],
            _ => Vec::new(),
        }
    }

    fn exit_code(&self) -> u8 {
        if self.is_blocked() { 2 } else { 0 }
    }
}

/// The boundaries files that apply to one agent, parsed, with their project-relative names.
struct Applicable {
    files: Vec<(String, Boundaries)>,
    real_root: PathBuf,
}

impl Applicable {
    /// Reads the project's file and the agent's sidecar file (each confined: never through a
    /// link, a regular UTF-8 file of at most 2 MiB).
    fn read(ctx: &Context, agent: &str) -> Result<Self> {
        let real_root = real_path(&ctx.root)
            .map_err(|e| Error::io("cannot resolve the project root", &ctx.root, e))?;
        let mut files = Vec::new();
        for rel in [
            BOUNDARIES_FILE.to_owned(),
            sidecar_path(agent, SIDECAR_BOUNDARIES),
        ] {
            if let Some(text) = read_registry(&ctx.root, &rel, true)
                .map_err(|e| Error::refused(messages::file_refused(&rel, e)))?
            {
                let parsed = Boundaries::parse(&text, &real_root, &rel)?;
                files.push((rel, parsed));
            }
        }
        Ok(Self { files, real_root })
    }

    /// The decision on `path` (absolute, or relative to `base`).
    fn decide(&self, access: Access, path: &Path, base: &Path) -> Result<Decision> {
        let target = target(path, base, &self.real_root)?;
        let shown = target.shown().to_owned();
        let mut decision = Decision {
            access,
            is_allowed: true,
            path: shown,
            rule: None,
            file: None,
        };
        for (file, boundaries) in &self.files {
            decision.file = Some(file.clone());
            match boundaries.verdict(access, &target) {
                Verdict::Allowed(rule) => decision.rule = Some(rule.to_owned()),
                Verdict::Denied(rule) => {
                    decision.is_allowed = false;
                    decision.rule = Some(rule.to_owned());
                    return Ok(decision);
                }
                Verdict::Unlisted => {
                    decision.is_allowed = false;
                    decision.rule = None;
                    return Ok(decision);
                }
            }
        }
        Ok(decision)
    }
}

/// Runs `guard`, reading a hook's tool call from standard input.
///
/// # Errors
/// A missing or invalid argument, an unreadable boundaries file or payload.
pub(crate) fn run(args: &GuardArgs, ctx: &Context) -> Result<GuardReport> {
    run_with_input(args, ctx, &mut io::stdin().lock())
}

/// [`run`] with standard input given.
///
/// # Errors
/// As [`run`].
pub(crate) fn run_with_input(
    args: &GuardArgs,
    ctx: &Context,
    stdin: &mut dyn Read,
) -> Result<GuardReport> {
    let agent = args
        .agent
        .as_deref()
        .ok_or_else(|| Error::refused(messages::GUARD_AGENT_REQUIRED))?;
    check_agent_name(agent)?;
    if let Some(hook) = &args.hook {
        let hook = HookAgent::parse(hook)?;
        let mut judged = || -> Result<Vec<Decision>> {
            let calls = tool_call(hook, &read_payload(stdin)?)?;
            let applicable = Applicable::read(ctx, agent)?;
            let mut decisions = Vec::new();
            for (access, path, base) in calls {
                // A relative `cwd` is taken from the folder the hook runs in.
                let base = base.map_or_else(|| ctx.root.clone(), |cwd| ctx.cwd.join(cwd));
                decisions.push(applicable.decide(access, Path::new(&path), &base)?);
            }
            Ok(decisions)
        };
        // An agent lets a call through when its hook fails with any status but 2: what cannot
        // be judged is blocked, with the reason, rather than allowed unjudged.
        let (decisions, failure) = match judged() {
            Ok(decisions) => (decisions, None),
            Err(e) => (Vec::new(), Some(e.to_string())),
        };
        return Ok(GuardReport {
            decisions,
            hook: Some(hook),
            failure,
        });
    }
    let access = match (args.read, args.write) {
        (true, false) => Access::Read,
        (false, true) => Access::Write,
        _ => return Err(Error::refused(messages::GUARD_ACCESS_REQUIRED)),
    };
    let path = args
        .path
        .as_deref()
        .filter(|p| !p.is_empty())
        .ok_or_else(|| Error::refused(messages::GUARD_PATH_REQUIRED))?;
    let applicable = Applicable::read(ctx, agent)?;
    let decision = applicable.decide(access, Path::new(path), &ctx.root)?;
    Ok(GuardReport {
        decisions: vec![decision],
        hook: None,
        failure: None,
    })
}

/// The payload: at most the hook payload cap of JSON ([`read_hook_payload`]).
fn read_payload(stdin: &mut dyn Read) -> Result<serde_json::Value> {
    let bytes = read_hook_payload(stdin)?;
    serde_json::from_slice(&bytes).map_err(|e| Error::refused(messages::payload_not_json(e)))
}

/// One file operation of a tool call: the access, the path, and the folder a relative path is
/// taken from (the payload's `cwd`, else the project root).
type Call = (Access, String, Option<String>);

/// The file operations of the tool call in `payload`, as `hook` sends it.
///
/// # Errors
/// A payload without a tool name; a shell command that cannot be read (an unclosed quote or
/// heredoc).
fn tool_call(hook: HookAgent, payload: &serde_json::Value) -> Result<Vec<Call>> {
    let field =
        |v: &serde_json::Value, key: &str| v.get(key).and_then(|x| x.as_str()).map(str::to_owned);
    let tool =
        field(payload, "tool_name").ok_or_else(|| Error::refused(messages::PAYLOAD_NO_TOOL))?;
    let cwd = field(payload, "cwd");
    let input = payload.get("tool_input").cloned().unwrap_or_default();
    let path_of = |keys: &[&str]| keys.iter().find_map(|k| field(&input, k));
    let one = |access: Access, keys: &[&str]| {
        path_of(keys)
            .filter(|p| !p.is_empty())
            .map(|p| vec![(access, p, cwd.clone())])
            .unwrap_or_default()
    };
    let shell = |command: Option<String>, base: Option<String>| -> Result<Vec<Call>> {
        let writes = shell::writes(&command.unwrap_or_default())
            .map_err(|e| Error::refused(messages::shell_unreadable(&e.to_string())))?;
        Ok(writes
            .paths
            .into_iter()
            .map(|(path, dir)| (Access::Write, path, joined(base.as_deref(), dir)))
            .collect())
    };
    let gemini_paths = ["file_path", "absolute_path", "path"];
    let gemini_dirs = ["dir_path", "path", "directory"];
    Ok(match hook {
        HookAgent::ClaudeCode => match tool.as_str() {
            "Read" => one(Access::Read, &["file_path"]),
            "Grep" | "Glob" | "LS" => one(Access::Read, &["path"]),
            "NotebookEdit" => one(Access::Write, &["notebook_path"]),
            "Bash" => shell(field(&input, "command"), cwd.clone())?,
            _ => one(Access::Write, &["file_path"]),
        },
        HookAgent::Codex => match tool.as_str() {
            "apply_patch" => shell::patch_paths(&field(&input, "command").unwrap_or_default())
                .into_iter()
                .map(|p| (Access::Write, p, cwd.clone()))
                .collect(),
            "Bash" | "shell" | "local_shell" | "exec_command" => shell(
                field(&input, "command").or_else(|| field(&input, "cmd")),
                cwd.clone(),
            )?,
            _ => Vec::new(),
        },
        HookAgent::Gemini => match tool.as_str() {
            "read_file" => one(Access::Read, &gemini_paths),
            "write_file" | "replace" => one(Access::Write, &gemini_paths),
            "list_directory" | "glob" | "grep_search" | "search_file_content" => {
                one(Access::Read, &gemini_dirs)
            }
            "read_many_files" => ["include", "paths"]
                .iter()
                .filter_map(|key| input.get(*key).and_then(serde_json::Value::as_array))
                .flatten()
                .filter_map(serde_json::Value::as_str)
                .filter_map(static_prefix)
                .map(|p| (Access::Read, p, cwd.clone()))
                .collect(),
            "run_shell_command" => {
                let base = joined(cwd.as_deref(), path_of(&["dir_path", "directory"]));
                shell(field(&input, "command"), base)?
            }
            _ => Vec::new(),
        },
    })
}

/// `dir` taken from `base`: `dir` alone when absolute or when there is no base.
fn joined(base: Option<&str>, dir: Option<String>) -> Option<String> {
    match (base, dir) {
        (Some(base), Some(dir)) if !dir.starts_with('/') => Some(format!("{base}/{dir}")),
        (_, Some(dir)) => Some(dir),
        (base, None) => base.map(str::to_owned),
    }
}

/// The part of a path or glob before its first wildcard (`src/**/*.ts` → `src`); `None` when
/// the glob starts with one.
fn static_prefix(glob: &str) -> Option<String> {
    let fixed: Vec<&str> = glob
        .split('/')
        .take_while(|part| !part.contains(['*', '?', '[', '{']))
        .collect();
    let prefix = fixed.join("/");
    (!prefix.is_empty()).then_some(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_patches_name_every_file_they_touch() {
        let patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: src/b.rs\n*** Move to: src/c.rs\n@@\n-a\n+b\n*** Delete File: d\n*** End Patch\n";
        assert_eq!(
            shell::patch_paths(patch),
            ["a.txt", "src/b.rs", "src/c.rs", "d"]
        );
    }

    #[test]
    fn each_agent_names_its_file_field() {
        let calls = |hook, payload: &str| {
            tool_call(hook, &serde_json::from_str(payload).unwrap())
                .unwrap()
                .into_iter()
                .map(|(a, p, _)| (a, p))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            calls(
                HookAgent::ClaudeCode,
                r#"{"tool_name":"NotebookEdit","tool_input":{"notebook_path":"/n.ipynb"}}"#
            ),
            [(Access::Write, "/n.ipynb".to_owned())]
        );
        assert_eq!(
            calls(
                HookAgent::ClaudeCode,
                r#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#
            ),
            []
        );
        assert_eq!(
            calls(
                HookAgent::Gemini,
                r#"{"tool_name":"read_file","tool_input":{"absolute_path":"/a"}}"#
            ),
            [(Access::Read, "/a".to_owned())]
        );
        assert!(tool_call(HookAgent::Codex, &serde_json::json!({})).is_err());
    }
}
