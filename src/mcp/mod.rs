//! `bmad-mem mcp`: the memory as a Model Context Protocol server on stdin/stdout.
//!
//! Agents that speak MCP (Claude Code, Codex CLI, Gemini CLI, …) start this command and call
//! its tools instead of shelling out. It is built on the official SDK (`rmcp`), which speaks
//! every protocol revision it knows — the `initialize` handshake of 2024-11-05 to 2025-11-25
//! and the stateless 2026-07-28 revision — on a current-thread runtime created here, so no
//! other command pays for it at start-up.
//!
//! What it promises:
//! * nothing is done before the client speaks: the project folder, the clock and the
//!   environment are read at each tool call, as one command-line run reads them;
//! * stdout carries JSON-RPC and nothing else (no command prints; diagnostics go to stderr),
//!   one whole message per line, and every request gets an answer, a malformed one included
//!   ([`transport`]);
//! * each call runs the command's own library function to the end before the next is read,
//!   so the writer lock is taken and released inside a call, never held between calls, and
//!   a server and command-line writers on one project queue on the same lock;
//! * each tool answers with a text a model reads well and, as `structuredContent`, the
//!   command's `--json` object, which matches the tool's `outputSchema` ([`tools`]) — except to
//!   Claude Code, whose model would read that JSON instead of the text ([`TEXT_ONLY_CLIENT`]);
//! * when stdin closes the server exits with status 0, and so it does when stdout is gone.

mod arguments;
mod schemas;
mod text;
mod tools;
mod transport;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::error::{Error, Result};
use crate::messages;

/// Serve the project memory to an agent over MCP (stdio).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct McpArgs {}

/// The server: the project folder it was started for (`-d`, default the one found from the
/// current directory).
#[derive(Debug, Clone)]
struct Server {
    directory: Option<PathBuf>,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
                    .with_title("bmad-mem project memory"),
            )
            .with_instructions(
                "Project memory kept in plain files in the repository. Call memory_brief at the \
                 start of a session, memory_recall before deciding, memory_write after finishing \
                 a task, memory_handoff before ending the session.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let structured = is_structured_for(&context);
        Ok(ListToolsResult::with_all_items(
            tools::tools()
                .into_iter()
                .map(|tool| listed(tool, structured))
                .collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        match tools::call(&request.name, &arguments, self.directory.as_deref()) {
            Some(Ok(answer)) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(answer.text)]);
                if is_structured_for(&context) {
                    result.structured_content = Some(answer.structured);
                }
                Ok(result.into())
            }
            Some(Err(message)) => {
                Ok(CallToolResult::error(vec![ContentBlock::text(message)]).into())
            }
            None => Err(ErrorData::invalid_params(
                messages::unknown_tool(&request.name),
                None,
            )),
        }
    }
}

/// The client that gives its model `structuredContent` in place of the text when a result has
/// both (Claude Code 2.1: <https://github.com/anthropics/claude-code/issues/79944>).
const TEXT_ONLY_CLIENT: &str = "claude-code";

/// Whether results carry `structuredContent` (and tools an `outputSchema`, which would oblige
/// it): for every client but the one whose model would then read the JSON instead of the text.
fn is_structured_for(context: &RequestContext<RoleServer>) -> bool {
    context
        .peer
        .peer_info()
        .is_none_or(|info| info.client_info.name != TEXT_ONLY_CLIENT)
}

/// A tool as `tools/list` gives it, with its output schema when results are `structured`.
fn listed(tool: tools::Tool, structured: bool) -> Tool {
    let serde_json::Value::Object(input) = tool.input_schema else {
        unreachable!("tool schemas are objects")
    };
    let mut listed = Tool::new(tool.name, tool.description, Arc::new(input)).with_title(tool.title);
    if structured {
        listed =
            listed.with_raw_output_schema(Arc::new(schemas::output_schema(tool.output_schema)));
    }
    listed.with_annotations(
        ToolAnnotations::with_title(tool.title)
            .read_only(tool.read_only)
            .destructive(false)
            .idempotent(tool.idempotent)
            .open_world(false),
    )
}

/// Serves MCP on stdin/stdout until stdin closes or stdout is gone.
///
/// # Errors
/// When the runtime cannot start or the transport fails; a client that hangs up, even before
/// the handshake, is a normal end.
pub fn run(_args: &McpArgs, directory: Option<&Path>) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("cannot start the MCP runtime", Path::new("."), e))?;
    let server = Server {
        directory: directory.map(Path::to_path_buf),
    };
    let outcome = runtime.block_on(serve(server));
    // A read of stdin still pending on the blocking pool must not keep the process alive.
    runtime.shutdown_background();
    outcome.map_err(|message| Error::refused(messages::mcp_server(&message)))
}

/// The SDK's service over the line filter of [`transport`], to the end of either side.
async fn serve(server: Server) -> std::result::Result<(), String> {
    let (sdk_reads, sdk_writes, mut writer, filter) =
        transport::start(tokio::io::stdin(), tokio::io::stdout());
    let service = async move {
        match server.serve((sdk_reads, sdk_writes)).await {
            Ok(running) => running.waiting().await.map(drop).map_err(|e| e.to_string()),
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    };
    tokio::select! {
        ended = service => {
            // Nothing more is read; what the SDK wrote is written out before the end.
            filter.abort();
            let written = writer.await;
            ended?;
            written_out(written)
        }
        // stdout is gone (the client went away, or the pipe broke): nobody is left to answer.
        written = &mut writer => written_out(written),
    }
}

/// The end of the writer of stdout: a closed pipe is a normal end.
fn written_out(
    written: std::result::Result<io::Result<()>, tokio::task::JoinError>,
) -> std::result::Result<(), String> {
    match written {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(e) => Err(e.to_string()),
    }
}
