//! The tools' output schemas: the command's JSON Schema of `schemas/`, embedded at build time and
//! made self-contained for `tools/list`.
//!
//! MCP wants each `outputSchema` to be an object schema (`"type": "object"` at its root: the
//! revisions before 2026-07-28 accept no other, and the SDK drops any other for them), and each
//! client validates `structuredContent` with the validator it has. So each schema is served
//! without `$schema` (a plain Ajv, draft-07, refuses the 2020-12 URI: "no schema with key or
//! ref"), without `$id` (the same Ajv refuses an `$id` compiled twice, as when the tools are
//! listed again), without `title` or descriptions (they name command-line options, and every
//! byte of the list is paid for), and with each `$ref` to its own `$defs` replaced by what it
//! points to. The validation keywords are kept as they are.

use serde_json::{Map, Value};

/// The schema of `brief --json`.
pub(crate) const BRIEF: &str = include_str!("../../schemas/brief.json");
/// The schema of `recall --json`.
pub(crate) const RECALL: &str = include_str!("../../schemas/recall.json");
/// The schema of `write --json`.
pub(crate) const WRITE: &str = include_str!("../../schemas/write.json");
/// The schema of `propose --json`.
pub(crate) const PROPOSE: &str = include_str!("../../schemas/propose.json");
/// The schema of `outcomes --json`.
pub(crate) const OUTCOMES: &str = include_str!("../../schemas/outcomes.json");
/// The schema of `handoff --json`.
pub(crate) const HANDOFF: &str = include_str!("../../schemas/handoff.json");
/// The schema of `memory_read`'s result.
pub(crate) const READ: &str = include_str!("../../schemas/read.json");

/// Keywords left out of a served schema.
const DROPPED: [&str; 6] = [
    "$schema",
    "$id",
    "$defs",
    "$comment",
    "title",
    "description",
];
/// Keywords whose value is a map of names to schemas.
const SCHEMA_MAPS: [&str; 3] = ["properties", "patternProperties", "dependentSchemas"];
/// Keywords whose value is one schema.
const SCHEMAS: [&str; 9] = [
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
];
/// Keywords whose value is a list of schemas.
const SCHEMA_LISTS: [&str; 4] = ["oneOf", "anyOf", "allOf", "prefixItems"];
/// How many `$ref`s deep a schema may lead (ours lead two deep; a loop would never end).
const MAX_REFS: usize = 16;

/// The served form of the schema `text` (one of the constants above).
///
/// # Panics
/// When `text` is not a JSON object schema whose `$ref`s all point into its `$defs` without a
/// loop: the schemas are part of the build, and a unit test serves each one.
#[must_use]
pub(crate) fn output_schema(text: &str) -> Map<String, Value> {
    let schema: Value = serde_json::from_str(text).expect("schemas/ hold JSON");
    let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
    match served(&schema, &defs, 0) {
        Value::Object(map) if map.get("type") == Some(&Value::from("object")) => map,
        other => panic!("an output schema must be an object schema: {other}"),
    }
}

/// `schema` as served: keywords dropped, references resolved, recursively.
fn served(schema: &Value, defs: &Value, refs: usize) -> Value {
    let Value::Object(map) = schema else {
        // `true`/`false` schemas.
        return schema.clone();
    };
    if let Some(Value::String(reference)) = map.get("$ref") {
        let name = reference
            .strip_prefix("#/$defs/")
            .unwrap_or_else(|| panic!("a reference outside $defs: {reference}"));
        assert!(refs < MAX_REFS, "a loop of references at {reference}");
        let target = defs.get(name).unwrap_or_else(|| panic!("no $defs/{name}"));
        let mut resolved = match served(target, defs, refs + 1) {
            Value::Object(resolved) => resolved,
            other => return other,
        };
        // Keywords beside the reference apply too.
        for (key, value) in map {
            if key != "$ref" && !DROPPED.contains(&key.as_str()) {
                resolved.insert(key.clone(), keyword(key, value, defs, refs));
            }
        }
        return Value::Object(resolved);
    }
    Value::Object(
        map.iter()
            .filter(|(key, _)| !DROPPED.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), keyword(key, value, defs, refs)))
            .collect(),
    )
}

/// The value of keyword `key` as served.
fn keyword(key: &str, value: &Value, defs: &Value, refs: usize) -> Value {
    match value {
        Value::Object(map) if SCHEMA_MAPS.contains(&key) => Value::Object(
            map.iter()
                .map(|(name, schema)| (name.clone(), served(schema, defs, refs)))
                .collect(),
        ),
        Value::Array(items) if SCHEMA_LISTS.contains(&key) => Value::Array(
            items
                .iter()
                .map(|schema| served(schema, defs, refs))
                .collect(),
        ),
        _ if SCHEMAS.contains(&key) => served(value, defs, refs),
        _ => value.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key of the served form, at any depth, and whether any `$ref` is left.
    fn keys(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, value) in map {
                    out.push(key.clone());
                    keys(value, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
            _ => {}
        }
    }

    #[test]
    fn every_schema_is_served_self_contained() {
        for text in [BRIEF, RECALL, WRITE, PROPOSE, OUTCOMES, HANDOFF, READ] {
            let schema = Value::Object(output_schema(text));
            let mut all = Vec::new();
            keys(&schema, &mut all);
            for dropped in ["$ref", "$schema", "$id", "$defs"] {
                assert!(!all.iter().any(|k| k == dropped), "{dropped} in {schema}");
            }
        }
    }

    #[test]
    fn property_names_are_kept_and_references_resolved() {
        // propose's result has a property named `title`, which is not the keyword.
        let propose = output_schema(PROPOSE);
        assert!(propose["properties"].get("title").is_some());
        assert!(propose.get("title").is_none());
        let write = output_schema(WRITE);
        assert_eq!(write["properties"]["written"]["type"], "object");
        assert!(write["properties"]["written"]["required"].is_array());
    }
}
