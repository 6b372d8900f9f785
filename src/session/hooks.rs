//! `hooks`: the agents' lifecycle hooks (docs/AGENTS.md).
//!
//! `hooks install --agent <agent>` merges bmad-mem's hooks into the agent's project settings:
//! a session starts with `bmad-mem brief` as context, file edits pass `bmad-mem guard` first,
//! and the end of the agent's turn runs `bmad-mem hooks remind`. The settings file is parsed,
//! the missing hooks are appended to their event's list, and the file is replaced atomically
//! (temporary file, sync, rename). Nothing the user had is dropped or reordered: objects keep
//! their keys in the file's order, and only whitespace and the spelling of numbers can change
//! (the file is re-indented with its own indentation). A hook already present — same event,
//! same matcher, same command — is not added again, so a second run changes nothing and writes
//! nothing. A file that does not parse is refused, named, and left as it is. `--dry-run` prints
//! the change as a unified diff and writes nothing.
//!
//! `hooks remind --agent <agent>` is the session-end hook: it reads the hook payload on standard
//! input and, unless a handoff dated today is already in `.agents/memory/sessions/` or the agent
//! is already continuing because of this hook, asks the agent (in its hook format) to write one.

use std::fmt::Write as _;
use std::io::{self, Read};
use std::path::Path;

use serde_json::{Map, Value as Json};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::messages;
use crate::output::Report;
use crate::session::handoffs::handoff_names;
use crate::session::pack::day;
use crate::session::sidecar::HookAgent;
use crate::store::confined;
use crate::store::layout::{
    CLAUDE_SETTINGS, CODEX_HOOKS, GEMINI_SETTINGS, HOOK_PAYLOAD_CAP, SESSIONS_DIR,
};
use crate::store::paths::read_registry;

/// Install an agent's lifecycle hooks, or answer its session-end hook.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HooksArgs {
    /// `install`: merge bmad-mem's hooks into the agent's project settings; `remind`: the
    /// session-end hook (reads the agent's payload on standard input).
    #[arg(value_name = "action", value_parser = ["install", "remind"])]
    pub(crate) action: Option<String>,
    /// The agent: claude-code, codex or gemini.
    #[arg(long, value_name = "agent", allow_hyphen_values = true)]
    pub(crate) agent: Option<String>,
    /// Print the change as a diff; write nothing.
    #[arg(long = "dry-run")]
    pub(crate) dry_run: bool,
}

/// One hook bmad-mem installs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hook {
    pub(crate) event: &'static str,
    pub(crate) matcher: Option<&'static str>,
    pub(crate) command: String,
    /// Gemini CLI names its hooks.
    pub(crate) name: Option<&'static str>,
}

/// The settings file and the hooks for `agent`, as each agent documents them.
#[must_use]
pub(crate) fn hooks_of(agent: HookAgent) -> (&'static str, Vec<Hook>) {
    let hook = |event, matcher, command: String, name| Hook {
        event,
        matcher,
        command,
        name,
    };
    match agent {
        HookAgent::ClaudeCode => {
            let bin = r#"bmad-mem -d "$CLAUDE_PROJECT_DIR""#;
            (
                CLAUDE_SETTINGS,
                vec![
                    hook(
                        "SessionStart",
                        Some("startup"),
                        format!("{bin} brief"),
                        None,
                    ),
                    hook(
                        "SessionStart",
                        Some("compact"),
                        format!("{bin} brief"),
                        None,
                    ),
                    hook(
                        "PreToolUse",
                        Some("Edit|MultiEdit|Write|NotebookEdit"),
                        format!("{bin} guard --hook claude-code --agent claude-code"),
                        None,
                    ),
                    hook(
                        "Stop",
                        None,
                        format!("{bin} hooks remind --agent claude-code"),
                        None,
                    ),
                ],
            )
        }
        HookAgent::Codex => (
            CODEX_HOOKS,
            vec![
                hook(
                    "SessionStart",
                    Some("startup|resume"),
                    "bmad-mem brief".to_owned(),
                    None,
                ),
                hook(
                    "PreToolUse",
                    Some("apply_patch|Edit|Write"),
                    "bmad-mem guard --hook codex --agent codex".to_owned(),
                    None,
                ),
                hook(
                    "Stop",
                    None,
                    "bmad-mem hooks remind --agent codex".to_owned(),
                    None,
                ),
            ],
        ),
        HookAgent::Gemini => {
            let bin = r#"bmad-mem -d "$GEMINI_PROJECT_DIR""#;
            (
                GEMINI_SETTINGS,
                vec![
                    hook(
                        "SessionStart",
                        Some("startup"),
                        format!("{bin} brief --hook gemini"),
                        Some("bmad-mem-brief"),
                    ),
                    hook(
                        "BeforeTool",
                        Some("write_file|replace"),
                        format!("{bin} guard --hook gemini --agent gemini"),
                        Some("bmad-mem-guard"),
                    ),
                    hook(
                        "AfterAgent",
                        None,
                        format!("{bin} hooks remind --agent gemini"),
                        Some("bmad-mem-remind"),
                    ),
                ],
            )
        }
    }
}

/// What `hooks` did.
#[derive(Debug, Clone)]
pub(crate) enum HooksReport {
    Installed(Installed),
    /// The session-end hook's answer: the text for stdout (maybe empty).
    Reminded {
        agent: HookAgent,
        answer: String,
    },
}

/// What `hooks install` changed (or, with `--dry-run`, would change).
#[derive(Debug, Clone)]
pub(crate) struct Installed {
    pub(crate) agent: HookAgent,
    pub(crate) file: String,
    /// Whether the settings file did not exist.
    pub(crate) is_new_file: bool,
    pub(crate) added: Vec<Hook>,
    pub(crate) dry_run: bool,
    /// The change as a unified diff (empty when nothing changes).
    pub(crate) diff: String,
}

impl Report for HooksReport {
    fn to_json(&self) -> Value {
        match self {
            HooksReport::Installed(i) => {
                let added: Vec<Value> = i
                    .added
                    .iter()
                    .map(|h| {
                        Value::Object(
                            Object::new()
                                .with("event", h.event)
                                .with("matcher", h.matcher.map_or(Value::Null, Value::from))
                                .with("command", h.command.as_str()),
                        )
                    })
                    .collect();
                Value::Object(
                    Object::new()
                        .with("agent", i.agent.as_str())
                        .with("file", i.file.as_str())
                        .with("created", i.is_new_file && !i.added.is_empty())
                        .with("changed", !i.added.is_empty())
                        .with("dryRun", i.dry_run)
                        .with("added", Value::Array(added))
                        .with("diff", i.diff.as_str()),
                )
            }
            HooksReport::Reminded { agent, answer } => Value::Object(
                Object::new()
                    .with("agent", agent.as_str())
                    .with("answer", answer.as_str()),
            ),
        }
    }

    fn render_human(&self) -> String {
        match self {
            HooksReport::Reminded { answer, .. } => answer.clone(),
            HooksReport::Installed(i) if i.added.is_empty() => format!(
                "{} already has bmad-mem's {} hooks; nothing changed\n",
                i.file,
                i.agent.as_str()
            ),
            HooksReport::Installed(i) if i.dry_run => i.diff.clone(),
            HooksReport::Installed(i) => {
                let mut out = format!(
                    "{} {}: {} hook{} added\n",
                    if i.is_new_file { "created" } else { "updated" },
                    i.file,
                    i.added.len(),
                    if i.added.len() == 1 { "" } else { "s" }
                );
                for h in &i.added {
                    match h.matcher {
                        Some(m) => {
                            let _ = writeln!(out, "  {} ({m}): {}", h.event, h.command);
                        }
                        None => {
                            let _ = writeln!(out, "  {}: {}", h.event, h.command);
                        }
                    }
                }
                out
            }
        }
    }

    fn written(&self) -> Option<String> {
        match self {
            HooksReport::Installed(i) if !i.added.is_empty() && !i.dry_run => {
                Some(format!("{} updated", i.file))
            }
            _ => None,
        }
    }
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
        Some("install") => install(agent, args.dry_run, ctx).map(HooksReport::Installed),
        Some("remind") => remind(agent, ctx, stdin),
        _ => Err(Error::refused(messages::HOOKS_ACTION_MISSING)),
    }
}

/// `hooks install`.
fn install(agent: HookAgent, dry_run: bool, ctx: &Context) -> Result<Installed> {
    let (file, hooks) = hooks_of(agent);
    let old = read_registry(&ctx.root, file, true)
        .map_err(|e| Error::refused(messages::file_refused(file, e)))?;
    let is_new_file = old.is_none();
    let old = old.unwrap_or_default();
    let mut settings = if old.trim().is_empty() {
        Json::Object(Map::new())
    } else {
        serde_json::from_str::<Strict>(&old)
            .map(|strict| strict.0)
            .map_err(|e| Error::refused(messages::settings_not_json(file, e)))?
    };
    let added = merge(&mut settings, &hooks, file)?;
    if added.is_empty() {
        return Ok(Installed {
            agent,
            file: file.to_owned(),
            is_new_file,
            added,
            dry_run,
            diff: String::new(),
        });
    }
    let new = render(&settings, &old)?;
    let diff = similar::TextDiff::from_lines(&old, &new)
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
        .to_string();
    if !dry_run {
        let target = confined::locate(&ctx.root, file, true)?;
        let name = target.name().to_owned();
        target
            .into_dir("cannot write")?
            .replace(&name, new.as_bytes())?;
    }
    Ok(Installed {
        agent,
        file: file.to_owned(),
        is_new_file,
        added,
        dry_run,
        diff,
    })
}

/// A JSON value parsed without losing anything: `serde_json` keeps only the last of two equal keys
/// in an object, which rewriting would then drop, so a repeated key is refused instead.
struct Strict(Json);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> std::result::Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> std::result::Result<Json, E> {
        Ok(Json::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> std::result::Result<Json, E> {
        Ok(Json::from(v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Json, E> {
        // An integer literal beyond 64 bits arrives here as a double: written back, it would
        // lose digits, so a whole number this large is refused rather than rewritten.
        if v.fract() == 0.0 && v.abs() >= 9_007_199_254_740_992.0 {
            return Err(E::custom(messages::number_too_large(v)));
        }
        Ok(serde_json::Number::from_f64(v).map_or(Json::Null, Json::Number))
    }

    fn visit_str<E>(self, v: &str) -> std::result::Result<Json, E> {
        Ok(Json::from(v))
    }

    fn visit_string<E>(self, v: String) -> std::result::Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_unit<E>(self) -> std::result::Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Json, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "the key \"{key}\" appears twice"
                )));
            }
            let Strict(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Json::Object(object))
    }
}

/// Appends to `settings` the hooks it lacks; returns them.
fn merge(settings: &mut Json, hooks: &[Hook], file: &str) -> Result<Vec<Hook>> {
    let shape = |what: &str| Error::refused(messages::settings_shape(file, what));
    let root = settings
        .as_object_mut()
        .ok_or_else(|| shape("the file must hold a JSON object"))?;
    let events = root
        .entry("hooks")
        .or_insert_with(|| Json::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| shape("\"hooks\" must be an object"))?;
    let mut added = Vec::new();
    for hook in hooks {
        let groups = events
            .entry(hook.event)
            .or_insert_with(|| Json::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| shape(&format!("\"hooks\".\"{}\" must be an array", hook.event)))?;
        let is_present = groups.iter().any(|group| {
            let matcher = group.get("matcher").and_then(Json::as_str);
            matcher == hook.matcher
                && group
                    .get("hooks")
                    .and_then(Json::as_array)
                    .is_some_and(|list| {
                        list.iter().any(|h| {
                            h.get("command").and_then(Json::as_str) == Some(hook.command.as_str())
                        })
                    })
        });
        if is_present {
            continue;
        }
        let mut command = Map::new();
        if let Some(name) = hook.name {
            command.insert("name".to_owned(), Json::from(name));
        }
        command.insert("type".to_owned(), Json::from("command"));
        command.insert("command".to_owned(), Json::from(hook.command.as_str()));
        let mut group = Map::new();
        if let Some(matcher) = hook.matcher {
            group.insert("matcher".to_owned(), Json::from(matcher));
        }
        group.insert("hooks".to_owned(), Json::Array(vec![Json::Object(command)]));
        groups.push(Json::Object(group));
        added.push(hook.clone());
    }
    Ok(added)
}

/// `settings` as pretty JSON indented as `old` is (two spaces when `old` says nothing), ending
/// with a newline.
fn render(settings: &Json, old: &str) -> Result<String> {
    let indent: String = old
        .lines()
        .skip(1)
        .find(|line| !line.trim().is_empty())
        .map(|line| {
            line.chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect()
        })
        .filter(|indent: &String| !indent.is_empty())
        .unwrap_or_else(|| "  ".to_owned());
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(settings, &mut serializer)
        .map_err(|e| Error::refused(messages::settings_not_rendered(e)))?;
    let mut text =
        String::from_utf8(out).map_err(|e| Error::refused(messages::settings_not_utf8(e)))?;
    text.push('\n');
    Ok(text)
}

/// `hooks remind`.
fn remind(agent: HookAgent, ctx: &Context, stdin: &mut dyn Read) -> Result<HooksReport> {
    let mut bytes = Vec::new();
    stdin
        .take(HOOK_PAYLOAD_CAP + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("cannot read", Path::new("<stdin>"), e))?;
    if bytes.len() as u64 > HOOK_PAYLOAD_CAP {
        return Err(Error::refused(messages::PAYLOAD_TOO_LARGE));
    }
    let payload: Json = if bytes.iter().all(u8::is_ascii_whitespace) {
        Json::Object(Map::new())
    } else {
        serde_json::from_slice(&bytes).map_err(|e| Error::refused(messages::payload_not_json(e)))?
    };
    let is_continuing = payload
        .get("stop_hook_active")
        .and_then(Json::as_bool)
        .unwrap_or(false);
    let today = day(&ctx.now);
    let has_handoff_today = handoff_names(&ctx.root.join(SESSIONS_DIR))
        .iter()
        .any(|name| name.starts_with(today));
    let quiet = match agent {
        HookAgent::Gemini => "{}\n".to_owned(),
        _ => String::new(),
    };
    if is_continuing || has_handoff_today {
        return Ok(HooksReport::Reminded {
            agent,
            answer: quiet,
        });
    }
    let reason = "Before ending this session, hand it off to the next one: run `bmad-mem handoff \
                  --topic \"<what this session was about>\" --from -` with what was done, the \
                  decisions made, the next steps and the files modified on standard input. If \
                  nothing here is worth handing off, say so and stop.";
    let decision = match agent {
        HookAgent::Gemini => "deny",
        _ => "block",
    };
    let mut answer = serde_json::json!({ "decision": decision, "reason": reason }).to_string();
    answer.push('\n');
    Ok(HooksReport::Reminded { agent, answer })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_appends_what_is_missing_and_keeps_the_rest_in_order() {
        let (_, hooks) = hooks_of(HookAgent::ClaudeCode);
        let mut settings: Json = serde_json::from_str(
            r#"{"z":1,"hooks":{"Stop":[{"hooks":[{"type":"command","command":"other"}]}]},"a":[3,2]}"#,
        )
        .unwrap();
        let added = merge(&mut settings, &hooks, "f").unwrap();
        assert_eq!(added.len(), 4);
        let keys: Vec<&String> = settings.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "hooks", "a"]);
        assert_eq!(settings["hooks"]["Stop"][0]["hooks"][0]["command"], "other");
        assert!(merge(&mut settings, &hooks, "f").unwrap().is_empty());
        let mut bad: Json = serde_json::from_str(r#"{"hooks":[]}"#).unwrap();
        assert!(merge(&mut bad, &hooks, "f").is_err());
    }

    #[test]
    fn a_repeated_key_is_refused_rather_than_dropped() {
        let parse = |text: &str| serde_json::from_str::<Strict>(text).map(|s| s.0);
        let e = parse("{\"a\": 1, \"b\": {\"c\": 1, \"c\": 2}}").unwrap_err();
        assert_eq!(
            e.to_string(),
            "the key \"c\" appears twice at line 1 column 26"
        );
        let value = parse("{\"a\": [1, -2, 2.5, \"x\", null, true, {}], \"b\": {}}").unwrap();
        assert_eq!(
            value,
            serde_json::json!({"a": [1, -2, 2.5, "x", null, true, {}], "b": {}})
        );
    }

    #[test]
    fn render_keeps_the_files_indentation() {
        let settings: Json = serde_json::from_str(r#"{"a":{"b":1}}"#).unwrap();
        assert_eq!(
            render(&settings, "{\n    \"a\": 1\n}\n").unwrap(),
            "{\n    \"a\": {\n        \"b\": 1\n    }\n}\n"
        );
        assert_eq!(
            render(&settings, "").unwrap(),
            "{\n  \"a\": {\n    \"b\": 1\n  }\n}\n"
        );
    }
}
