//! `hooks check`: runs every installed bmad-mem hook the way the agent runs it, with sample calls
//! of that agent, and says whether each behaves (docs/AGENTS.md, "Checking the setup").
//!
//! The agent's own rules, as its shipped code applies them: the matcher of each group (Claude
//! Code and Codex: a regular expression over the tool name or the session-start source; Gemini
//! CLI: a regular expression over the tool name, an exact string for a source), the variables it
//! sets and the substitution it makes in the command text (Gemini CLI replaces `$GEMINI_PROJECT_DIR`,
//! `$GEMINI_CWD` and `$CLAUDE_PROJECT_DIR` by a shell-quoted copy of the folder before running
//! it), the shell it starts (`sh -c`, Codex `sh -lc`, Gemini CLI `bash -c`), the folder it runs
//! in (the project), and what its exit status means (0 goes on, 2 blocks with stderr as the
//! reason, anything else is a failed hook that lets the call through).
//!
//! The verdict each guarded call should get is asked of `bmad-mem guard` itself on the command
//! line (this binary), so the check compares the hook's answer with the boundaries' own: an
//! allowed write, a denied write, a denied read (not for Codex, whose hooks see no reads) and a
//! denied shell write, found among sample paths and the folders the boundaries files name. The
//! session-start hook must print a brief for every source the agent sends; the end-of-turn hook,
//! asked as a continuing turn, must stay quiet. Read-only: no file is written.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value as Json;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::messages;
use crate::session::hooks::installed::hooks_of;
use crate::session::hooks::settings::{self, Found};
use crate::session::sidecar::HookAgent;
use crate::store::layout::{BOUNDARIES_FILE, SIDECAR_BOUNDARIES, sidecar_path};
use crate::store::paths::read_registry;

/// One sample call and what came of it.
#[derive(Debug, Clone)]
pub(crate) struct Probe {
    /// What was tried (`deny write .env`).
    pub(crate) what: String,
    /// What should happen.
    pub(crate) expected: String,
    /// What happened.
    pub(crate) got: String,
    pub(crate) is_ok: bool,
}

/// What `hooks check` found.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    pub(crate) agent: HookAgent,
    pub(crate) file: String,
    pub(crate) probes: Vec<Probe>,
    /// What could not be tried, and why.
    pub(crate) notes: Vec<String>,
}

impl Checked {
    pub(crate) fn to_json(&self) -> Value {
        let probes: Vec<Value> = self
            .probes
            .iter()
            .map(|p| {
                Value::Object(
                    Object::new()
                        .with("what", p.what.as_str())
                        .with("expected", p.expected.as_str())
                        .with("got", p.got.as_str())
                        .with("ok", p.is_ok),
                )
            })
            .collect();
        let notes: Vec<Value> = self.notes.iter().map(|n| Value::from(n.as_str())).collect();
        Value::Object(
            Object::new()
                .with("agent", self.agent.as_str())
                .with("file", self.file.as_str())
                .with("ok", self.is_ok())
                .with("probes", Value::Array(probes))
                .with("notes", Value::Array(notes)),
        )
    }

    pub(crate) fn render_human(&self) -> String {
        let mut out = String::new();
        for p in &self.probes {
            let mark = if p.is_ok { "ok  " } else { "FAIL" };
            let _ = writeln!(out, "{mark} {}: {}", p.what, p.got);
            if !p.is_ok {
                let _ = writeln!(out, "     expected: {}", p.expected);
            }
        }
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
        let failed = self.probes.iter().filter(|p| !p.is_ok).count();
        let _ = if failed == 0 {
            writeln!(
                out,
                "{} hooks in {}: all {} checks behave as expected",
                self.agent.as_str(),
                self.file,
                self.probes.len()
            )
        } else {
            writeln!(
                out,
                "{} hooks in {}: {failed} of {} checks failed",
                self.agent.as_str(),
                self.file,
                self.probes.len()
            )
        };
        out
    }

    fn is_ok(&self) -> bool {
        self.probes.iter().all(|p| p.is_ok)
    }

    pub(crate) fn exit_code(&self) -> u8 {
        u8::from(!self.is_ok())
    }
}

/// How one run of a hook command ended.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Ran {
    /// What the agent makes of it, in a few words.
    fn summary(&self) -> String {
        let first = |text: &str| {
            text.lines()
                .next()
                .unwrap_or_default()
                .chars()
                .take(160)
                .collect::<String>()
        };
        match self.code {
            Some(0) if self.stdout.trim().is_empty() => "exit 0, nothing printed".to_owned(),
            Some(0) => format!("exit 0, {} bytes printed", self.stdout.len()),
            Some(2) => format!("exit 2 (blocked): {}", first(&self.stderr)),
            Some(code) => format!(
                "exit {code} (a failed hook: the agent goes on): {}",
                first(&self.stderr)
            ),
            None => "killed by a signal".to_owned(),
        }
    }
}

/// Runs the check.
///
/// # Errors
/// A settings file that cannot be read or parsed, or holds none of bmad-mem's hooks.
pub(crate) fn check(agent: HookAgent, ctx: &Context) -> Result<Checked> {
    let (file, _) = hooks_of(agent);
    let text = read_registry(&ctx.root, file, true)
        .map_err(|e| Error::refused(messages::file_refused(file, e)))?
        .unwrap_or_default();
    let mut json = settings::parse(&text, file)?;
    let installed = settings::take_ours(&mut json, &[], file, false)?;
    if installed.is_empty() {
        return Err(Error::refused(messages::hooks_none_installed(
            file,
            agent.as_str(),
        )));
    }
    let exe = ctx
        .exe
        .clone()
        .ok_or_else(|| Error::refused(messages::HOOKS_CHECK_NO_EXE))?;
    let root = ctx.root.to_string_lossy().into_owned();
    let runner = Runner {
        agent,
        ctx,
        root: &root,
        installed: &installed,
    };
    let mut checked = Checked {
        agent,
        file: file.to_owned(),
        probes: Vec::new(),
        notes: Vec::new(),
    };
    checked.probes.extend(runner.session_starts());
    runner.guarded_calls(&exe, &mut checked);
    checked.probes.push(runner.end_of_turn());
    Ok(checked)
}

impl Runner<'_> {
    /// The payload of one hook call: the fields every agent sends, and `fields`.
    fn payload(&self, event: &str, fields: Json) -> Json {
        let mut payload = serde_json::json!({
            "session_id": "bmad-mem-hooks-check",
            "cwd": self.root,
            "hook_event_name": event,
        });
        if let (Some(to), Json::Object(from)) = (payload.as_object_mut(), fields) {
            to.extend(from);
        }
        payload
    }

    /// The session-start hook, for every source the agent sends: a brief each time.
    fn session_starts(&self) -> Vec<Probe> {
        let sources: &[&str] = match self.agent {
            HookAgent::Gemini => &["startup", "resume", "clear"],
            _ => &["startup", "resume", "clear", "compact"],
        };
        sources
            .iter()
            .map(|source| {
                let what = format!("session start ({source})");
                let payload = self.payload("SessionStart", serde_json::json!({ "source": source }));
                let Some(ran) = self.run_matching("SessionStart", source, true, &payload) else {
                    return Probe {
                        what,
                        expected: "a bmad-mem brief hook matches this source".to_owned(),
                        got: "no installed group matches it".to_owned(),
                        is_ok: false,
                    };
                };
                let is_brief = ran.code == Some(0)
                    && match self.agent {
                        HookAgent::Gemini => serde_json::from_str::<Json>(&ran.stdout)
                            .ok()
                            .and_then(|v| {
                                v["hookSpecificOutput"]["additionalContext"]
                                    .as_str()
                                    .map(|c| !c.is_empty())
                            })
                            .unwrap_or(false),
                        _ => !ran.stdout.trim().is_empty(),
                    };
                Probe {
                    what,
                    expected: "exit 0 with the brief on stdout".to_owned(),
                    got: ran.summary(),
                    is_ok: is_brief,
                }
            })
            .collect()
    }

    /// One guarded tool call: allowed (exit 0) or blocked (exit 2, a reason on stderr).
    fn tool_probe(&self, what: String, tool: &str, input: &Json, should_block: bool) -> Probe {
        let event = match self.agent {
            HookAgent::Gemini => "BeforeTool",
            _ => "PreToolUse",
        };
        let payload = self.payload(
            event,
            serde_json::json!({ "tool_name": tool, "tool_input": input.clone() }),
        );
        let Some(ran) = self.run_matching(event, tool, false, &payload) else {
            return Probe {
                what,
                expected: format!("the guard hook matches the tool {tool}"),
                got: "no installed group matches it".to_owned(),
                is_ok: false,
            };
        };
        let (expected, is_ok) = if should_block {
            (
                "exit 2 with the reason on stderr (blocked)",
                ran.code == Some(2) && !ran.stderr.trim().is_empty(),
            )
        } else {
            ("exit 0 (allowed)", ran.code == Some(0))
        };
        Probe {
            what,
            expected: expected.to_owned(),
            got: ran.summary(),
            is_ok,
        }
    }

    /// The agent's file-writing tool, writing `path`.
    fn write_tool(&self, path: &str) -> (&'static str, Json) {
        let absolute = format!("{}/{path}", self.root);
        match self.agent {
            HookAgent::ClaudeCode => (
                "Write",
                serde_json::json!({"file_path": absolute, "content": "x"}),
            ),
            HookAgent::Codex => (
                "apply_patch",
                serde_json::json!({
                    "command": format!("*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch\n")
                }),
            ),
            HookAgent::Gemini => (
                "write_file",
                serde_json::json!({"file_path": absolute, "content": "x"}),
            ),
        }
    }

    /// An allowed write, a denied write, a denied shell write and a denied read, on paths whose
    /// verdicts `guard` itself (the binary at `exe`) gives.
    fn guarded_calls(&self, exe: &Path, checked: &mut Checked) {
        let candidates = candidates(self.ctx, self.agent);
        let verdict = |access: &str, path: &str| -> Option<bool> {
            let out = Command::new(exe)
                .args([
                    "-d",
                    self.root,
                    "guard",
                    "--agent",
                    self.agent.as_str(),
                    access,
                    path,
                ])
                .stdin(Stdio::null())
                .output()
                .ok()?;
            match out.status.code() {
                Some(0) => Some(true),
                Some(2) => Some(false),
                _ => None,
            }
        };
        let find = |access: &str, allowed: bool| {
            candidates
                .iter()
                .find(|p| verdict(access, p) == Some(allowed))
                .cloned()
        };
        if let Some(p) = find("--write", true) {
            let (tool, input) = self.write_tool(&p);
            checked
                .probes
                .push(self.tool_probe(format!("allowed write {p}"), tool, &input, false));
        } else {
            checked
                .notes
                .push(messages::HOOKS_CHECK_NOTHING_ALLOWED.to_owned());
        }
        if let Some(p) = find("--write", false) {
            let (tool, input) = self.write_tool(&p);
            checked
                .probes
                .push(self.tool_probe(format!("denied write {p}"), tool, &input, true));
            let shell = match self.agent {
                HookAgent::Gemini => "run_shell_command",
                _ => "Bash",
            };
            let command = format!("echo checked > '{p}'");
            checked.probes.push(self.tool_probe(
                format!("denied shell write {p}"),
                shell,
                &serde_json::json!({ "command": command }),
                true,
            ));
        } else {
            checked
                .notes
                .push(messages::HOOKS_CHECK_NOTHING_DENIED.to_owned());
        }
        if self.agent == HookAgent::Codex {
            checked
                .notes
                .push(messages::HOOKS_CHECK_CODEX_READS.to_owned());
        } else if let Some(p) = find("--read", false) {
            let tool = match self.agent {
                HookAgent::Gemini => "read_file",
                _ => "Read",
            };
            let input = serde_json::json!({"file_path": format!("{}/{p}", self.root)});
            checked
                .probes
                .push(self.tool_probe(format!("denied read {p}"), tool, &input, true));
        } else {
            checked
                .notes
                .push(messages::HOOKS_CHECK_NO_DENIED_READ.to_owned());
        }
    }

    /// The end of a turn that is already continuing: quiet, nothing written.
    fn end_of_turn(&self) -> Probe {
        let event = match self.agent {
            HookAgent::Gemini => "AfterAgent",
            _ => "Stop",
        };
        let payload = self.payload(event, serde_json::json!({ "stop_hook_active": true }));
        let quiet = match self.agent {
            HookAgent::Gemini => "{}",
            _ => "",
        };
        let what = "end of turn".to_owned();
        match self.run_matching(event, "", true, &payload) {
            None => Probe {
                what,
                expected: "a bmad-mem reminder hook on this event".to_owned(),
                got: "none installed".to_owned(),
                is_ok: false,
            },
            Some(ran) => Probe {
                what,
                expected: "exit 0, quiet while the agent is already continuing".to_owned(),
                is_ok: ran.code == Some(0) && ran.stdout.trim() == quiet,
                got: ran.summary(),
            },
        }
    }
}

/// Sample paths to find an allowed and a denied one among: common ones, and the folders the
/// boundaries files name (with a file name added, their wildcards left out).
fn candidates(ctx: &Context, agent: HookAgent) -> Vec<String> {
    let mut out: Vec<String> = [
        ".env",
        "config/.env",
        ".git/bmad-mem-check",
        "secrets/bmad-mem-check",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    for rel in [
        BOUNDARIES_FILE.to_owned(),
        sidecar_path(agent.as_str(), SIDECAR_BOUNDARIES),
    ] {
        let Ok(Some(text)) = read_registry(&ctx.root, &rel, true) else {
            continue;
        };
        for line in text.lines() {
            let Some(item) = line.trim().strip_prefix("- ") else {
                continue;
            };
            let item = item.trim().trim_matches('`');
            let fixed: Vec<&str> = item
                .split('/')
                .filter(|part| !part.is_empty())
                .take_while(|part| !part.contains(['*', '?', '[', '{']))
                .collect();
            let is_glob = item.contains(['*', '?', '[', '{']);
            if fixed.is_empty() && !is_glob || item.starts_with("..") || item.starts_with('/') {
                continue;
            }
            let base = fixed.join("/");
            let last = item.rsplit('/').next().unwrap_or_default();
            // `**/.env`: the file itself; `src/`: a file in it.
            if is_glob && !last.contains(['*', '?', '[', '{']) {
                out.push(if base.is_empty() {
                    last.to_owned()
                } else {
                    format!("{base}/{last}")
                });
            } else if !base.is_empty() {
                out.push(format!("{base}/bmad-mem-check"));
            }
        }
    }
    out.extend(["src/bmad-mem-check.txt", "bmad-mem-check.txt"].map(str::to_owned));
    out.dedup();
    out
}

/// Runs installed commands as one agent does.
struct Runner<'a> {
    agent: HookAgent,
    ctx: &'a Context,
    root: &'a str,
    /// bmad-mem's hooks in the settings file.
    installed: &'a [Found],
}

impl Runner<'_> {
    /// Runs the first installed bmad-mem hook of `event` whose group matches `subject` (a tool
    /// name, or a session-start source when `is_source`); `None` when none matches.
    fn run_matching(
        &self,
        event: &str,
        subject: &str,
        is_source: bool,
        payload: &Json,
    ) -> Option<Ran> {
        let hook = self
            .installed
            .iter()
            .find(|h| h.event == event && self.matches(h.matcher.as_deref(), subject, is_source))?;
        Some(self.run(&hook.command, payload))
    }

    /// The agent's matcher rule.
    fn matches(&self, matcher: Option<&str>, subject: &str, is_source: bool) -> bool {
        let Some(matcher) = matcher
            .map(str::trim)
            .filter(|m| !m.is_empty() && *m != "*")
        else {
            return true;
        };
        if is_source && self.agent == HookAgent::Gemini {
            return matcher == subject;
        }
        regex::Regex::new(matcher).map_or(matcher == subject, |re| re.is_match(subject))
    }

    fn run(&self, command: &str, payload: &Json) -> Ran {
        let (shell, flag, command) = match self.agent {
            HookAgent::ClaudeCode => ("sh", "-c", command.to_owned()),
            HookAgent::Codex => ("sh", "-lc", command.to_owned()),
            HookAgent::Gemini => ("bash", "-c", gemini_expand(command, self.root)),
        };
        let mut child = match Command::new(shell)
            .args([flag, &command])
            .current_dir(&self.ctx.root)
            .env("CLAUDE_PROJECT_DIR", self.root)
            .env("GEMINI_PROJECT_DIR", self.root)
            .env("GEMINI_CWD", self.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(child) => child,
            Err(e) => {
                return Ran {
                    code: None,
                    stdout: String::new(),
                    stderr: format!("cannot start {shell}: {e}"),
                };
            }
        };
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(payload.to_string().as_bytes());
        }
        match child.wait_with_output() {
            Ok(out) => Ran {
                code: out.status.code(),
                stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            },
            Err(e) => Ran {
                code: None,
                stdout: String::new(),
                stderr: e.to_string(),
            },
        }
    }
}

/// Gemini CLI's substitution in a hook's command text: `$GEMINI_PROJECT_DIR`, `$GEMINI_CWD`
/// and `$CLAUDE_PROJECT_DIR` replaced by the folder, quoted for a POSIX shell as its
/// `shell-quote` dependency quotes it.
pub(crate) fn gemini_expand(command: &str, dir: &str) -> String {
    let quoted = shell_quote(dir);
    command
        .replace("$GEMINI_PROJECT_DIR", &quoted)
        .replace("$GEMINI_CWD", &quoted)
        .replace("$CLAUDE_PROJECT_DIR", &quoted)
}

/// `shell-quote`'s `quote([arg])`: single quotes around text with blanks, double quotes or
/// backslashes and no single quote; double quotes (escaping `"`, `\`, `$`, `` ` `` and `!`)
/// around text holding a single quote; else every special character escaped by a backslash.
pub(crate) fn shell_quote(arg: &str) -> String {
    if arg.is_empty() {
        return "''".to_owned();
    }
    let has = |set: &str| {
        arg.chars()
            .any(|c| set.contains(c) || (set.contains(' ') && c.is_whitespace()))
    };
    if has("\"\\ ") && !arg.contains('\'') {
        return format!("'{arg}'");
    }
    if has("\"' ") {
        let mut out = String::from("\"");
        for c in arg.chars() {
            if "\"\\$`!".contains(c) {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('"');
        return out;
    }
    let mut out = String::new();
    for c in arg.chars() {
        if "#!\"$&'()*,:;<=>?@[\\]^`{|}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemini_quotes_a_folder_as_shell_quote_does() {
        assert_eq!(shell_quote("/home/me/proj"), "/home/me/proj");
        assert_eq!(shell_quote("/My Drive/p"), "'/My Drive/p'");
        assert_eq!(
            shell_quote("/GoogleDrive-user@x.com/p"),
            "/GoogleDrive-user\\@x.com/p"
        );
        assert_eq!(shell_quote("/a'b c"), "\"/a'b c\"");
        assert_eq!(shell_quote("/a$b"), "/a\\$b");
        assert_eq!(
            gemini_expand("bmad-mem -d \"$GEMINI_PROJECT_DIR\" brief", "/My Drive"),
            "bmad-mem -d \"'/My Drive'\" brief",
            "the old form breaks: the quotes become part of the path"
        );
        assert_eq!(
            gemini_expand(
                "x ${GEMINI_PROJECT_DIR:+-d \"${GEMINI_PROJECT_DIR}\"}",
                "/My Drive"
            ),
            "x ${GEMINI_PROJECT_DIR:+-d \"${GEMINI_PROJECT_DIR}\"}",
            "the braced form is left to the shell"
        );
    }
}
