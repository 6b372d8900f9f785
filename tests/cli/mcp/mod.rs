//! `bmad-mem mcp` driven by the MCP SDK's own client over a real child process, and by raw lines
//! on its stdin.
//!
//! * `server`: the handshake of every revision, stdout carrying JSON-RPC only, the end of
//!   stdin, concurrent writers, the README's transcript.
//! * `results`: each tool's text and `structuredContent` — the command's `--json` object,
//!   valid against the `outputSchema` the tool declares — and the tool list itself (one type per
//!   input property, descriptions without command-line jargon).
//! * `refusals`: bad arguments, store errors and the rules an agent gets over MCP only (a task
//!   to write, a record too large, the portfolio limited to the linked brain).
//! * `entries`: `memory_read`, `memory_handoff`, and `memory_propose` answering twice with one
//!   candidate.
//! * `lines`: every malformed request answered (-32700, -32600 with the id when it can be
//!   read), output lines never interleaved.
//!
//! The official SDK clients (TypeScript, Python) are driven by `tests/mcp_sdk/` from `.ci/run`,
//! which installs them; these tests stay offline.

mod entries;
mod lines;
mod refusals;
mod results;
mod server;

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use boon::{Compiler, SchemaIndex, Schemas};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ContentBlock,
    Implementation, ProtocolVersion, Tool,
};
use rmcp::service::{Peer, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Map, Value};

use crate::support::TestProject;
use crate::support::home;

pub type Client = RunningService<RoleClient, ClientConfig>;

/// The tools, in the order `tools/list` gives them.
pub const TOOLS: [&str; 7] = [
    "memory_brief",
    "memory_recall",
    "memory_read",
    "memory_write",
    "memory_propose",
    "memory_handoff",
    "memory_outcomes",
];

/// A client that asks for `version` in its handshake.
pub fn client_config(version: ProtocolVersion) -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("bmad-mem-tests", "1.0.0"),
    )
    .with_protocol_version(version)
}

/// `bmad-mem <words…> mcp` as the project's runs are set up (clock, home, folder).
pub fn server_command(project: &TestProject, words: &[&str]) -> tokio::process::Command {
    let mut command = project.command();
    command.args(words).arg("mcp");
    tokio::process::Command::from(command)
}

/// A server started in `project` and a client that went through the `initialize` handshake.
pub async fn connect(project: &TestProject, version: ProtocolVersion) -> Client {
    connect_with(project, &[], version).await
}

/// [`connect`] with words before `mcp` (`-d <folder>`).
pub async fn connect_with(
    project: &TestProject,
    words: &[&str],
    version: ProtocolVersion,
) -> Client {
    let transport = TokioChildProcess::new(server_command(project, words)).expect("spawn");
    client_config(version)
        .serve(transport)
        .await
        .expect("initialize")
}

/// A JSON object as a tool call's arguments.
pub fn arguments(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object: {other}"),
    }
}

/// Calls `tool` (a protocol error fails the test).
pub async fn call(client: &Peer<RoleClient>, tool: &'static str, args: Value) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments(args)))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// The one text block of a result.
pub fn text(result: &CallToolResult) -> &str {
    match result.content.as_slice() {
        [ContentBlock::Text(block)] => &block.text,
        other => panic!("one text block expected: {other:?}"),
    }
}

/// A successful result: its text and its structured content.
#[derive(Debug, Clone)]
pub struct Answer {
    pub text: String,
    pub structured: Value,
}

/// A successful result's text and structured content (both required).
pub fn ok(result: &CallToolResult) -> Answer {
    assert_eq!(result.is_error, Some(false), "{result:?}");
    Answer {
        text: text(result).to_owned(),
        structured: result
            .structured_content
            .clone()
            .unwrap_or_else(|| panic!("structuredContent expected: {result:?}")),
    }
}

/// A tool error's message (no structured content).
pub fn refused(result: &CallToolResult) -> &str {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert_eq!(result.structured_content, None, "{result:?}");
    text(result)
}

/// The command's `--json` stdout (exit 0 expected).
pub fn cli_json(project: TestProject, words: &[&str]) -> (TestProject, String) {
    let args: Vec<&str> = std::iter::once("--json")
        .chain(words.iter().copied())
        .collect();
    let ran = project.args(args).code(0).run();
    (ran.project, ran.stdout)
}

/// The command's `--json` object (exit 0 expected).
pub fn cli_value(project: TestProject, words: &[&str]) -> (TestProject, Value) {
    let (project, stdout) = cli_json(project, words);
    (project, serde_json::from_str(&stdout).expect("JSON"))
}

/// The command's `{"error":…}` message (exit 1 expected).
pub fn cli_error(project: TestProject, words: &[&str]) -> (TestProject, String) {
    let args: Vec<&str> = std::iter::once("--json")
        .chain(words.iter().copied())
        .collect();
    let ran = project.args(args).code(1).run();
    let error: Value = ran.json();
    let message = error["error"]
        .as_str()
        .expect("an error message")
        .to_owned();
    (ran.project, message)
}

/// A project with the example memory and a temporary home (so brief reads no real brain).
pub fn example() -> TestProject {
    home::project().fixture("example")
}

/// A raw server process: its stdin, its stdout lines.
pub fn raw_server(project: &TestProject) -> std::process::Child {
    let mut command: Command = project.command();
    command
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command.spawn().expect("spawn")
}

/// The output schemas a server declares, compiled as a client would.
pub struct OutputSchemas {
    schemas: Schemas,
    by_tool: BTreeMap<String, SchemaIndex>,
}

impl OutputSchemas {
    /// Compiles every tool's `outputSchema` (each tool must have one).
    pub fn of(tools: &[Tool]) -> Self {
        let mut compiler = Compiler::new();
        let mut schemas = Schemas::new();
        let mut by_tool = BTreeMap::new();
        for tool in tools {
            let schema = tool
                .output_schema
                .as_ref()
                .unwrap_or_else(|| panic!("{}: no outputSchema", tool.name));
            assert_eq!(
                schema.get("type"),
                Some(&Value::from("object")),
                "{}",
                tool.name
            );
            let location = format!("https://tools.invalid/{}.json", tool.name);
            compiler
                .add_resource(&location, Value::Object((**schema).clone()))
                .expect("a resource");
            let index = compiler
                .compile(&location, &mut schemas)
                .unwrap_or_else(|e| panic!("{}'s outputSchema does not compile: {e:#}", tool.name));
            by_tool.insert(tool.name.to_string(), index);
        }
        Self { schemas, by_tool }
    }

    /// Checks `structured` against `tool`'s declared schema.
    pub fn check(&self, tool: &str, structured: &Value) {
        let index = self.by_tool[tool];
        if let Err(e) = self.schemas.validate(structured, index) {
            panic!(
                "{tool}'s structuredContent does not match its outputSchema: {e:#}\n{structured}"
            );
        }
    }
}

/// Lists the tools and compiles their output schemas.
pub async fn output_schemas(client: &Client) -> OutputSchemas {
    OutputSchemas::of(&client.list_all_tools().await.expect("tools/list"))
}
