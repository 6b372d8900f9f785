//! The bmad-mem MCP server entry `hooks install --mcp` writes into an agent's project
//! configuration (docs/AGENTS.md, "The MCP server entry"): Claude Code's `.mcp.json`
//! (`mcpServers`), Codex CLI's `.codex/config.toml` (`[mcp_servers.bmad-mem]`), Gemini CLI's
//! `.gemini/settings.json` (`mcpServers`).
//!
//! The entry runs `bmad-mem mcp` by name, with no folder: the server finds the project from the
//! folder the agent starts it in, as every command does (the nearest folder above holding a
//! memory, else a `.git`), so the committed file holds no path of one machine and an agent
//! started in a subfolder still serves the project's memory. An entry already named `bmad-mem`
//! is the user's: it is left as it is. The TOML file is edited in place, comments and layout
//! kept.

use serde_json::{Map, Value as Json};

use crate::error::{Error, Result};
use crate::messages;
use crate::session::sidecar::HookAgent;
use crate::store::layout::{CLAUDE_MCP, CODEX_CONFIG, GEMINI_SETTINGS};

/// The server's name in every agent's configuration.
pub(crate) const NAME: &str = "bmad-mem";

/// The file that holds `agent`'s project MCP servers.
#[must_use]
pub(crate) fn file_of(agent: HookAgent) -> &'static str {
    match agent {
        HookAgent::ClaudeCode => CLAUDE_MCP,
        HookAgent::Codex => CODEX_CONFIG,
        HookAgent::Gemini => GEMINI_SETTINGS,
    }
}

/// The entry as bmad-mem writes it in a JSON file.
fn json_entry(agent: HookAgent) -> Json {
    let mut entry = Map::new();
    if agent == HookAgent::ClaudeCode {
        entry.insert("type".to_owned(), Json::from("stdio"));
    }
    entry.insert("command".to_owned(), Json::from(NAME));
    entry.insert("args".to_owned(), Json::from(vec!["mcp"]));
    Json::Object(entry)
}

/// Adds the entry to a JSON configuration (`mcpServers`); whether it was added.
///
/// # Errors
/// `mcpServers` that is not an object.
pub(crate) fn add_json(settings: &mut Json, agent: HookAgent, file: &str) -> Result<bool> {
    let servers = servers_of(settings, file)?;
    if servers.contains_key(NAME) {
        return Ok(false);
    }
    servers.insert(NAME.to_owned(), json_entry(agent));
    Ok(true)
}

/// Takes bmad-mem's own entry out of a JSON configuration (one named `bmad-mem` that differs
/// from it is the user's, and stays); whether it was there.
///
/// # Errors
/// `mcpServers` that is not an object.
pub(crate) fn remove_json(settings: &mut Json, agent: HookAgent, file: &str) -> Result<bool> {
    if settings.get("mcpServers").is_none() {
        return Ok(false);
    }
    let servers = servers_of(settings, file)?;
    if servers.get(NAME) != Some(&json_entry(agent)) {
        return Ok(false);
    }
    servers.shift_remove(NAME);
    if servers.is_empty()
        && let Some(root) = settings.as_object_mut()
    {
        root.shift_remove("mcpServers");
    }
    Ok(true)
}

fn servers_of<'a>(settings: &'a mut Json, file: &str) -> Result<&'a mut Map<String, Json>> {
    let shape = |what: &str| Error::refused(messages::settings_shape(file, what));
    settings
        .as_object_mut()
        .ok_or_else(|| shape("the file must hold a JSON object"))?
        .entry("mcpServers")
        .or_insert_with(|| Json::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| shape("\"mcpServers\" must be an object"))
}

/// `text` (Codex's `config.toml`) with the entry added; `None` when one named `bmad-mem` is
/// there already.
///
/// # Errors
/// Text that is not TOML, or whose `mcp_servers` is not a table.
pub(crate) fn add_toml(text: &str) -> Result<Option<String>> {
    let mut doc = parse_toml(text)?;
    let servers = doc
        .entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_like_mut()
        .ok_or_else(|| {
            Error::refused(messages::settings_shape(
                CODEX_CONFIG,
                "\"mcp_servers\" must be a table",
            ))
        })?;
    if servers.contains_key(NAME) {
        return Ok(None);
    }
    let mut entry = toml_edit::Table::new();
    entry.insert("command", toml_edit::value(NAME));
    let mut args = toml_edit::Array::new();
    args.push("mcp");
    entry.insert("args", toml_edit::value(args));
    servers.insert(NAME, toml_edit::Item::Table(entry));
    Ok(Some(doc.to_string()))
}

/// `text` without bmad-mem's own entry; `None` when it holds none (or a `bmad-mem` entry of
/// the user's, which stays).
///
/// # Errors
/// Text that is not TOML.
pub(crate) fn remove_toml(text: &str) -> Result<Option<String>> {
    let mut doc = parse_toml(text)?;
    let Some(servers) = doc
        .get_mut("mcp_servers")
        .and_then(|s| s.as_table_like_mut())
    else {
        return Ok(None);
    };
    let is_ours = servers
        .get(NAME)
        .and_then(|e| e.as_table_like())
        .is_some_and(|e| {
            e.len() == 2
                && e.get("command").and_then(|c| c.as_str()) == Some(NAME)
                && e.get("args").and_then(|a| a.as_array()).is_some_and(|a| {
                    a.len() == 1 && a.get(0).and_then(|v| v.as_str()) == Some("mcp")
                })
        });
    if !is_ours {
        return Ok(None);
    }
    servers.remove(NAME);
    if servers.is_empty() {
        doc.remove("mcp_servers");
    }
    Ok(Some(doc.to_string()))
}

fn parse_toml(text: &str) -> Result<toml_edit::DocumentMut> {
    text.parse::<toml_edit::DocumentMut>()
        .map_err(|e| Error::refused(messages::settings_not_toml(CODEX_CONFIG, e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_keeps_the_users_text_and_takes_out_only_its_own() {
        let user = "# my config\nmodel = \"gpt-5\"  # pinned\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
        let added = add_toml(user).unwrap().unwrap();
        assert!(added.starts_with(user), "{added}");
        assert!(
            added.ends_with("\n[mcp_servers.bmad-mem]\ncommand = \"bmad-mem\"\nargs = [\"mcp\"]\n"),
            "{added}"
        );
        assert_eq!(add_toml(&added).unwrap(), None);
        assert_eq!(remove_toml(&added).unwrap().as_deref(), Some(user));
        assert_eq!(remove_toml(user).unwrap(), None);
        let fresh = add_toml("").unwrap().unwrap();
        assert_eq!(
            fresh,
            "[mcp_servers.bmad-mem]\ncommand = \"bmad-mem\"\nargs = [\"mcp\"]\n"
        );
        assert_eq!(remove_toml(&fresh).unwrap().as_deref(), Some(""));
        // The user's own bmad-mem entry stays.
        let theirs = "[mcp_servers.bmad-mem]\ncommand = \"/opt/bmad-mem\"\nargs = [\"mcp\"]\n";
        assert_eq!(add_toml(theirs).unwrap(), None);
        assert_eq!(remove_toml(theirs).unwrap(), None);
        assert!(add_toml("mcp_servers = 3\n").is_err());
        assert!(add_toml("[x\n").is_err());
    }

    #[test]
    fn json_adds_and_removes_its_own_entry() {
        let mut settings: Json = serde_json::from_str(r#"{"a":1,"mcpServers":{"x":{}}}"#).unwrap();
        assert!(add_json(&mut settings, HookAgent::Gemini, "f").unwrap());
        assert!(!add_json(&mut settings, HookAgent::Gemini, "f").unwrap());
        assert_eq!(settings["mcpServers"]["bmad-mem"]["args"][0], "mcp");
        assert!(remove_json(&mut settings, HookAgent::Gemini, "f").unwrap());
        assert_eq!(settings, serde_json::json!({"a":1,"mcpServers":{"x":{}}}));
        let mut claude = serde_json::json!({});
        assert!(add_json(&mut claude, HookAgent::ClaudeCode, "f").unwrap());
        assert_eq!(claude["mcpServers"]["bmad-mem"]["type"], "stdio");
        assert!(remove_json(&mut claude, HookAgent::ClaudeCode, "f").unwrap());
        assert_eq!(claude, serde_json::json!({}));
        let mut bad = serde_json::json!({"mcpServers": []});
        assert!(add_json(&mut bad, HookAgent::Gemini, "f").is_err());
    }
}
