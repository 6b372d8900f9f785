//! An agent's settings file as `hooks` reads and writes it: parsed strictly (a repeated key
//! is refused, never dropped), bmad-mem's hooks merged in or taken out with everything else kept
//! in its order, and written back with the file's own indentation.

use serde_json::{Map, Value as Json};

use crate::error::{Error, Result};
use crate::messages;
use crate::session::hooks::installed::{Hook, is_ours};

/// The settings in `old` (an empty file is `{}`).
///
/// # Errors
/// Text that is not strict JSON, naming `file`.
pub(crate) fn parse(old: &str, file: &str) -> Result<Json> {
    if old.trim().is_empty() {
        return Ok(Json::Object(Map::new()));
    }
    serde_json::from_str::<Strict>(old)
        .map(|strict| strict.0)
        .map_err(|e| Error::refused(messages::settings_not_json(file, e)))
}

/// A hook found in a settings file: its event, matcher and command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) event: String,
    pub(crate) matcher: Option<String>,
    pub(crate) command: String,
}

/// The event lists of `settings`, checked for shape.
fn events_of<'a>(settings: &'a mut Json, file: &str) -> Result<&'a mut Map<String, Json>> {
    let shape = |what: &str| Error::refused(messages::settings_shape(file, what));
    let root = settings
        .as_object_mut()
        .ok_or_else(|| shape("the file must hold a JSON object"))?;
    root.entry("hooks")
        .or_insert_with(|| Json::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| shape("\"hooks\" must be an object"))
}

/// Every hook of `settings` that bmad-mem installed (in any form) and `keep` does not name;
/// taken out of the file when `remove` is set, with the groups and events left empty.
///
/// # Errors
/// A file whose `hooks` or an event's list has the wrong shape.
pub(crate) fn take_ours(
    settings: &mut Json,
    keep: &[Hook],
    file: &str,
    remove: bool,
) -> Result<Vec<Found>> {
    let had_hooks = settings.get("hooks").is_some();
    let events = events_of(settings, file)?;
    let mut found = Vec::new();
    let mut emptied = Vec::new();
    for (event, groups) in events.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            return Err(Error::refused(messages::settings_shape(
                file,
                &format!("\"hooks\".\"{event}\" must be an array"),
            )));
        };
        let before = groups.len();
        groups.retain_mut(|group| {
            let matcher = group
                .get("matcher")
                .and_then(Json::as_str)
                .map(str::to_owned);
            let Some(list) = group.get_mut("hooks").and_then(Json::as_array_mut) else {
                return true;
            };
            let had = list.len();
            list.retain(|h| {
                let Some(command) = h.get("command").and_then(Json::as_str) else {
                    return true;
                };
                let is_kept = keep.iter().any(|k| {
                    k.event == event && k.matcher == matcher.as_deref() && k.command == command
                });
                if is_kept || !is_ours(command) {
                    return true;
                }
                found.push(Found {
                    event: event.clone(),
                    matcher: matcher.clone(),
                    command: command.to_owned(),
                });
                !remove
            });
            !(remove && had > 0 && list.is_empty())
        });
        if remove && before > 0 && groups.is_empty() {
            emptied.push(event.clone());
        }
    }
    for event in emptied {
        events.shift_remove(&event);
    }
    // The `hooks` key goes too when it was bmad-mem's alone, or did not exist before.
    let is_left_empty = events.is_empty() && ((remove && !found.is_empty()) || !had_hooks);
    if is_left_empty && let Some(root) = settings.as_object_mut() {
        root.shift_remove("hooks");
    }
    Ok(found)
}

/// Appends to `settings` the hooks it lacks; returns them.
///
/// # Errors
/// A file whose `hooks` or an event's list has the wrong shape.
pub(crate) fn merge(settings: &mut Json, hooks: &[Hook], file: &str) -> Result<Vec<Hook>> {
    let events = events_of(settings, file)?;
    let mut added = Vec::new();
    for hook in hooks {
        let groups = events
            .entry(hook.event)
            .or_insert_with(|| Json::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| {
                Error::refused(messages::settings_shape(
                    file,
                    &format!("\"hooks\".\"{}\" must be an array", hook.event),
                ))
            })?;
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

/// A JSON value parsed without losing anything: `serde_json` keeps only the last of two equal keys
/// in an object, which rewriting would then drop, so a repeated key is refused instead.
pub(crate) struct Strict(pub(crate) Json);

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

/// `settings` as pretty JSON indented as `old` is (two spaces when `old` says nothing), ending
/// with a newline.
pub(crate) fn render(settings: &Json, old: &str) -> Result<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_appends_what_is_missing_and_keeps_the_rest_in_order() {
        let (_, hooks) = crate::session::hooks::installed::hooks_of(
            crate::session::sidecar::HookAgent::ClaudeCode,
        );
        let mut settings: Json = serde_json::from_str(
            r#"{"z":1,"hooks":{"Stop":[{"hooks":[{"type":"command","command":"other"}]}]},"a":[3,2]}"#,
        )
        .unwrap();
        let added = merge(&mut settings, &hooks, "f").unwrap();
        assert_eq!(added.len(), 3);
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
