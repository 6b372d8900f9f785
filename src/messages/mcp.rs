//! The messages of the MCP server's own rules — the lines it answers before the SDK, what it
//! asks of an agent that the command line does not (a task, a handoff's parts, the portfolio),
//! and `memory_read` — a part of the catalogue of [`messages`](crate::messages), kept in a file
//! of its own.

use std::path::Path;

/// A line from the MCP client that is not JSON (JSON-RPC's parse error).
pub(crate) fn mcp_not_json(error: &str) -> String {
    format!("Parse error: the line is not JSON ({error})")
}

/// A request nested deeper than the JSON reader accepts.
pub(crate) fn mcp_too_deep(max: usize) -> String {
    format!("Invalid Request: nested more than {max} levels deep")
}

/// A request holding a number the JSON reader cannot represent.
pub(crate) fn mcp_number_out_of_range(error: &str) -> String {
    format!("Invalid Request: {error}")
}

/// A request line longer than the server reads.
pub(crate) fn mcp_line_too_long(max: usize) -> String {
    format!("Invalid Request: the line is longer than {max} bytes")
}

/// A request whose id is neither a string nor an integer.
pub(crate) const MCP_ID_INVALID: &str = "Invalid Request: the id must be a string or an integer";

/// `memory_write` without a task: an event that says nothing.
pub(crate) const MCP_TASK_REQUIRED: &str =
    "task is required: say in a few words what the agent did";

/// A record that no store can take, however much is archived (the command line says
/// [`STORE_FULL`](crate::messages::STORE_FULL), as bmad-plus does).
pub(crate) fn record_too_large(store: &str, size: u64, cap: u64) -> String {
    format!(
        "this record is {size} bytes, more than {store} can hold even when empty ({cap} bytes): \
         shorten it (archiving would not make room)"
    )
}

/// `memory_handoff` without a topic (the command's message names its option).
pub(crate) const MCP_TOPIC_REQUIRED: &str = "topic is required: what the session was about";

/// `memory_handoff` with every part empty.
pub(crate) const MCP_HANDOFF_EMPTY: &str = "a handoff needs at least one part: what_changed, \
     decisions, open_questions, next_steps or files_modified";

/// `memory_recall` over the portfolio when the project has no usable linked brain.
pub(crate) fn mcp_no_brain(why: Option<&str>) -> String {
    match why {
        Some(why) => format!("scope portfolio searches the project's linked brain, and it is ignored: {why}"),
        None => "scope portfolio searches the project's linked brain, and none is linked (a person links one with `bmad-mem init`)".to_owned(),
    }
}

/// A `portfolio` folder over MCP other than the linked brain.
pub(crate) fn mcp_portfolio_not_brain(given: &str, brain: &Path) -> String {
    format!(
        "portfolio '{given}' is not the project's linked brain ({}); no other folder is read",
        brain.display()
    )
}

/// `memory_read` without exactly one of its two forms.
pub(crate) const READ_WHAT: &str =
    "give file and heading (a note section), or id (a journal event), not both";

/// `memory_read` of a file that is no note file recall searches.
pub(crate) fn read_not_a_note_file(file: &str, names: &[&str]) -> String {
    format!(
        "'{file}' is not a note file: give {} or a path recall shows (sourceFile)",
        names.join(", ")
    )
}

/// `memory_read` of a heading no section has.
pub(crate) fn read_no_section(heading: &str, files: &[&str]) -> String {
    format!("no section is headed \"{heading}\" in {}", files.join(", "))
}

/// `memory_read` of an id no event has.
pub(crate) fn read_no_event(id: &str) -> String {
    format!("no journal event has the id '{id}'")
}

/// `bmad-mem mcp` (and `hooks install --mcp`) in a build without the `mcp` feature.
pub(crate) const MCP_NOT_BUILT: &str = "this bmad-mem was built without its MCP server (cargo feature `mcp`); every other command works; build it with the default features to serve MCP";
