//! `hooks`: the agents' lifecycle hooks (docs/AGENTS.md).
//!
//! `hooks install --agent <agent>` merges bmad-mem's hooks into the agent's project settings:
//! a session starts with `bmad-mem brief` as context, file reads, edits and shell commands pass
//! `bmad-mem guard` first, and the end of the agent's turn runs `bmad-mem hooks remind`
//! ([`installed`] says which commands, and why they are written as they are). The settings
//! file is parsed, bmad-mem's hooks of an earlier form are taken out, the missing hooks are
//! appended to their event's list, and the file is replaced atomically (temporary file, sync,
//! rename). Nothing else the user had is dropped or reordered ([`settings`]). A hook already
//! present — same event, same matcher, same command — is not added again, so a second run
//! changes nothing and writes nothing. A file that does not parse is refused, named, and left
//! as it is. `--dry-run` prints the change as a unified diff and writes nothing. Install ends
//! with the agent's trust step, if it has one, and the command that checks the setup.
//!
//! `hooks uninstall` takes out exactly the hooks install adds (in any of their forms);
//! `hooks check` runs every installed command the way the agent runs it ([`check`]);
//! `hooks remind` is the end-of-turn hook ([`remind`]).

pub(crate) mod check;
pub(crate) mod installed;
pub(crate) mod remind;
pub(crate) mod server;
pub(crate) mod settings;

use std::fmt::Write as _;
use std::io::{self, Read};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::messages;
use crate::output::Report;
use crate::session::hooks::check::Checked;
use crate::session::hooks::installed::{Hook, hooks_of};
use crate::session::hooks::settings::Found;
use crate::session::sidecar::HookAgent;
use crate::store::confined;
use crate::store::paths::read_registry;

/// Install, remove or check an agent's lifecycle hooks, or answer its end-of-turn hook.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HooksArgs {
    /// `install`: merge bmad-mem's hooks into the agent's project settings; `uninstall`: take
    /// them out; `check`: run each installed hook with sample calls of the agent and say whether
    /// it behaves; `remind`: the end-of-turn hook (reads the agent's payload on standard input).
    #[arg(value_name = "action", value_parser = ["install", "uninstall", "check", "remind"])]
    pub(crate) action: Option<String>,
    /// The agent: claude-code, codex or gemini.
    #[arg(long, value_name = "agent", allow_hyphen_values = true)]
    pub(crate) agent: Option<String>,
    /// Print the change as a diff; write nothing (install, uninstall).
    #[arg(long = "dry-run")]
    pub(crate) dry_run: bool,
    /// Also add (install) or take out (uninstall) the bmad-mem MCP server entry in the agent's
    /// project configuration (.mcp.json, .codex/config.toml, .gemini/settings.json).
    #[arg(long)]
    pub(crate) mcp: bool,
}

/// What `hooks` did.
#[derive(Debug, Clone)]
pub(crate) enum HooksReport {
    Installed(Installed),
    Checked(Checked),
    /// The end-of-turn hook's answer: the text for stdout (maybe empty).
    Reminded {
        agent: HookAgent,
        answer: String,
    },
}

/// What `hooks install` or `hooks uninstall` changed (or, with `--dry-run`, would change).
#[derive(Debug, Clone)]
pub(crate) struct Installed {
    pub(crate) agent: HookAgent,
    /// `install` or `uninstall`.
    pub(crate) action: &'static str,
    pub(crate) file: String,
    /// Whether the settings file did not exist.
    pub(crate) is_new_file: bool,
    pub(crate) added: Vec<Hook>,
    /// bmad-mem's hooks taken out: an earlier form on install, every one on uninstall.
    pub(crate) removed: Vec<Found>,
    pub(crate) dry_run: bool,
    /// The change as a unified diff (empty when nothing changes).
    pub(crate) diff: String,
    /// Whether a `bmad-mem` is on this `PATH` (the agent's may differ).
    pub(crate) is_on_path: bool,
    /// With `--mcp`: the file holding the agent's MCP servers, and whether the bmad-mem entry
    /// was added (install) or taken out (uninstall).
    pub(crate) mcp: Option<(&'static str, bool)>,
}

impl Installed {
    fn is_changed(&self) -> bool {
        self.are_hooks_changed() || self.mcp.is_some_and(|(_, changed)| changed)
    }

    fn are_hooks_changed(&self) -> bool {
        !self.added.is_empty() || !self.removed.is_empty()
    }

    /// What to do next, one line each: the agent's trust step, then the check.
    fn next_steps(&self) -> Vec<String> {
        if self.action != "install" {
            return Vec::new();
        }
        let mut steps: Vec<String> = messages::hooks_trust_step(self.agent.as_str())
            .into_iter()
            .map(str::to_owned)
            .collect();
        steps.push(format!(
            "check that the hooks work: bmad-mem hooks check --agent {}",
            self.agent.as_str()
        ));
        steps
    }
}

impl Report for HooksReport {
    fn to_json(&self) -> Value {
        match self {
            HooksReport::Installed(i) => {
                let added: Vec<Value> = i
                    .added
                    .iter()
                    .map(|h| hook_json(h.event, h.matcher, &h.command))
                    .collect();
                let removed: Vec<Value> = i
                    .removed
                    .iter()
                    .map(|h| hook_json(&h.event, h.matcher.as_deref(), &h.command))
                    .collect();
                let next: Vec<Value> = i.next_steps().into_iter().map(Value::from).collect();
                Value::Object(
                    Object::new()
                        .with("agent", i.agent.as_str())
                        .with("action", i.action)
                        .with("file", i.file.as_str())
                        .with("created", i.is_new_file && i.is_changed())
                        .with("changed", i.is_changed())
                        .with("dryRun", i.dry_run)
                        .with("added", Value::Array(added))
                        .with("removed", Value::Array(removed))
                        .with("diff", i.diff.as_str())
                        .with("onPath", i.is_on_path)
                        .with(
                            "mcp",
                            i.mcp.map_or(Value::Null, |(file, changed)| {
                                Value::Object(
                                    Object::new().with("file", file).with("changed", changed),
                                )
                            }),
                        )
                        .with("next", Value::Array(next)),
                )
            }
            HooksReport::Checked(checked) => checked.to_json(),
            HooksReport::Reminded { agent, answer } => Value::Object(
                Object::new()
                    .with("agent", agent.as_str())
                    .with("answer", answer.as_str()),
            ),
        }
    }

    fn render_human(&self) -> String {
        let i = match self {
            HooksReport::Reminded { answer, .. } => return answer.clone(),
            HooksReport::Checked(checked) => return checked.render_human(),
            HooksReport::Installed(i) => i,
        };
        let mut out = if !i.are_hooks_changed() && i.action == "install" {
            format!(
                "{} already has bmad-mem's {} hooks{}\n",
                i.file,
                i.agent.as_str(),
                if i.is_changed() {
                    ""
                } else {
                    "; nothing changed"
                }
            )
        } else if !i.are_hooks_changed() {
            format!("{} has no bmad-mem hook; nothing changed\n", i.file)
        } else if i.dry_run {
            i.diff.clone()
        } else {
            let verb = if i.is_new_file { "created" } else { "updated" };
            let mut out = format!("{verb} {}:", i.file);
            for (n, what) in [(i.added.len(), "added"), (i.removed.len(), "removed")] {
                if n > 0 {
                    let _ = write!(out, " {n} hook{} {what};", if n == 1 { "" } else { "s" });
                }
            }
            out.pop();
            out.push('\n');
            for h in &i.added {
                let _ = match h.matcher {
                    Some(m) => writeln!(out, "  + {} ({m}): {}", h.event, h.command),
                    None => writeln!(out, "  + {}: {}", h.event, h.command),
                };
            }
            for h in &i.removed {
                let _ = match &h.matcher {
                    Some(m) => writeln!(out, "  - {} ({m}): {}", h.event, h.command),
                    None => writeln!(out, "  - {}: {}", h.event, h.command),
                };
            }
            out
        };
        if let Some((file, changed)) = i.mcp {
            let _ = match (i.action, changed) {
                ("install", true) => writeln!(out, "MCP server bmad-mem added to {file}"),
                ("install", false) => {
                    writeln!(
                        out,
                        "{file} already has an MCP server named bmad-mem; left as it is"
                    )
                }
                (_, true) => writeln!(out, "MCP server bmad-mem taken out of {file}"),
                (_, false) => writeln!(
                    out,
                    "{file} has no bmad-mem MCP server of bmad-mem's; nothing changed"
                ),
            };
        }
        if !i.dry_run {
            for step in i.next_steps() {
                let _ = writeln!(out, "next: {step}");
            }
        }
        out
    }

    fn warnings(&self) -> Vec<String> {
        match self {
            HooksReport::Installed(i) if !i.is_on_path && i.action == "install" => {
                vec![messages::HOOKS_NOT_ON_PATH.to_owned()]
            }
            _ => Vec::new(),
        }
    }

    fn exit_code(&self) -> u8 {
        match self {
            HooksReport::Checked(checked) => checked.exit_code(),
            _ => 0,
        }
    }

    fn written(&self) -> Option<String> {
        match self {
            HooksReport::Installed(i) if i.is_changed() && !i.dry_run => {
                Some(format!("{} updated", i.file))
            }
            _ => None,
        }
    }
}

fn hook_json(event: &str, matcher: Option<&str>, command: &str) -> Value {
    Value::Object(
        Object::new()
            .with("event", event)
            .with("matcher", matcher.map_or(Value::Null, Value::from))
            .with("command", command),
    )
}

/// Runs `hooks`, reading a payload from standard input for `remind`.
///
/// # Errors
/// A missing or unknown action or agent; a settings file that does not parse or cannot be
/// written; an unreadable payload.
pub(crate) fn run(args: &HooksArgs, ctx: &Context) -> Result<HooksReport> {
    run_with_input(args, ctx, &mut io::stdin().lock())
}

/// [`run`] with standard input given.
///
/// # Errors
/// As [`run`].
pub(crate) fn run_with_input(
    args: &HooksArgs,
    ctx: &Context,
    stdin: &mut dyn Read,
) -> Result<HooksReport> {
    let agent = HookAgent::parse(
        args.agent
            .as_deref()
            .ok_or_else(|| Error::refused(messages::HOOKS_AGENT_REQUIRED))?,
    )?;
    match args.action.as_deref() {
        Some(action @ ("install" | "uninstall")) => {
            let action = if action == "install" {
                "install"
            } else {
                "uninstall"
            };
            change(agent, action, args, ctx).map(HooksReport::Installed)
        }
        Some("check") => check::check(agent, ctx).map(HooksReport::Checked),
        Some("remind") => {
            remind::remind(agent, ctx, stdin).map(|answer| HooksReport::Reminded { agent, answer })
        }
        _ => Err(Error::refused(messages::HOOKS_ACTION_MISSING)),
    }
}

/// `hooks install` and `hooks uninstall`.
fn change(
    agent: HookAgent,
    action: &'static str,
    args: &HooksArgs,
    ctx: &Context,
) -> Result<Installed> {
    let (file, hooks) = hooks_of(agent);
    let is_install = action == "install";
    // A build without the server installs no entry that would run it (taking one out is fine).
    if is_install && args.mcp && !cfg!(feature = "mcp") {
        return Err(Error::refused(messages::MCP_NOT_BUILT));
    }
    let old = read_settings(ctx, file)?;
    let is_new_file = old.is_none();
    let old = old.unwrap_or_default();
    let mut json = settings::parse(&old, file)?;
    let keep: &[Hook] = if is_install { &hooks } else { &[] };
    let removed = settings::take_ours(&mut json, keep, file, true)?;
    let added = if is_install {
        settings::merge(&mut json, &hooks, file)?
    } else {
        Vec::new()
    };
    let mut report = Installed {
        agent,
        action,
        file: file.to_owned(),
        is_new_file,
        added,
        removed,
        dry_run: args.dry_run,
        diff: String::new(),
        is_on_path: is_on_path(ctx),
        mcp: None,
    };
    // The MCP entry: in the same file for Gemini CLI, in a file of its own for the others.
    let mcp_file = server::file_of(agent);
    let mut mcp_write: Option<(String, String)> = None;
    if args.mcp {
        let changed = if mcp_file == file {
            if is_install {
                server::add_json(&mut json, agent, file)?
            } else {
                server::remove_json(&mut json, agent, file)?
            }
        } else {
            let text = read_settings(ctx, mcp_file)?;
            let new = if agent == HookAgent::Codex {
                let text = text.clone().unwrap_or_default();
                if is_install {
                    server::add_toml(&text)?
                } else {
                    server::remove_toml(&text)?
                }
            } else {
                let old_text = text.clone().unwrap_or_default();
                let mut servers = settings::parse(&old_text, mcp_file)?;
                let changed = if is_install {
                    server::add_json(&mut servers, agent, mcp_file)?
                } else {
                    server::remove_json(&mut servers, agent, mcp_file)?
                };
                changed
                    .then(|| settings::render(&servers, &old_text))
                    .transpose()?
            };
            if let Some(new) = new {
                mcp_write = Some((text.unwrap_or_default(), new));
            }
            mcp_write.is_some()
        };
        report.mcp = Some((mcp_file, changed));
    }
    let hooks_changed =
        report.are_hooks_changed() || (mcp_file == file && args.mcp && report.is_changed());
    let mut diff = String::new();
    if hooks_changed {
        let new = settings::render(&json, &old)?;
        diff.push_str(&unified(&old, &new, file, is_new_file));
        if !args.dry_run {
            replace(ctx, file, &new)?;
        }
    }
    if let Some((old_text, new)) = &mcp_write {
        diff.push_str(&unified(old_text, new, mcp_file, old_text.is_empty()));
        if !args.dry_run {
            replace(ctx, mcp_file, new)?;
        }
    }
    report.diff = diff;
    Ok(report)
}

/// A settings file's text; `None` when missing.
fn read_settings(ctx: &Context, file: &str) -> Result<Option<String>> {
    read_registry(&ctx.root, file, true)
        .map_err(|e| Error::refused(messages::file_refused(file, e)))
}

/// `file` replaced by `text`, atomically, never through a link.
fn replace(ctx: &Context, file: &str, text: &str) -> Result<()> {
    let target = confined::locate(&ctx.root, file, true)?;
    let name = target.name().to_owned();
    target
        .into_dir("cannot write")?
        .replace(&name, text.as_bytes())
}

/// The change from `old` to `new` as a unified diff.
fn unified(old: &str, new: &str, file: &str, is_new_file: bool) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(
            &if is_new_file {
                "/dev/null".to_owned()
            } else {
                format!("a/{file}")
            },
            &format!("b/{file}"),
        )
        .to_string()
}

/// Whether an executable `bmad-mem` is in one of `PATH`'s folders.
fn is_on_path(ctx: &Context) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    ctx.path_var.as_ref().is_some_and(|path| {
        std::env::split_paths(path).any(|dir| {
            std::fs::metadata(dir.join("bmad-mem"))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}
