//! The YAML front matter of a Markdown file (`---` … `---` at its top), as far as bmad-mem reads
//! it: one key's value, unquoted. Enough for the files bmad-mem writes itself (`context.md`, the
//! notes `init` creates, the handoffs), whose front matter is one `key: value` line per key.
//! Pure: no I/O.

use crate::js::json::{self, Value};
use crate::js::text::trim;

/// The value of `key` in the YAML front matter of `text`, unquoted.
#[must_use]
pub(crate) fn front_matter_value(text: &str, key: &str) -> Option<String> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    rest.lines()
        .take_while(|l| l.trim_end() != "---")
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .map(|value| unquoted(trim(value)))
}

/// A YAML scalar without its quotes (a double-quoted one read as JSON, as bmad-mem writes it).
#[must_use]
pub(crate) fn unquoted(value: &str) -> String {
    if value.starts_with('"')
        && let Ok(Value::String(text)) = json::parse(value)
    {
        return text;
    }
    value
        .strip_prefix('\'')
        .and_then(|v| v.strip_suffix('\''))
        .unwrap_or(value)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_values() {
        let text = "---\ncreated: \"2026-10-18\"\nproject: \"a\\\"b\"\nx: 'y'\n---\nbody\n";
        assert_eq!(
            front_matter_value(text, "created").as_deref(),
            Some("2026-10-18")
        );
        assert_eq!(front_matter_value(text, "project").as_deref(), Some("a\"b"));
        assert_eq!(front_matter_value(text, "x").as_deref(), Some("y"));
        assert_eq!(front_matter_value(text, "body"), None);
        assert_eq!(front_matter_value("no front matter", "created"), None);
        // After the closing line, a key is the body's.
        assert_eq!(
            front_matter_value("---\ntitle: t\n---\nproject: p\n", "project"),
            None
        );
        assert_eq!(
            front_matter_value("---\r\nproject: shop\r\n---\r\n", "project").as_deref(),
            Some("shop")
        );
    }
}
