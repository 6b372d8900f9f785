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
//! * stdout carries JSON-RPC and nothing else (no command prints; diagnostics go to stderr);
//! * each call runs the command's own library function to the end before the next is read,
//!   so the writer lock is taken and released inside a call, never held between calls, and
//!   a server and command-line writers on one project queue on the same lock;
//! * when stdin closes the server exits with status 0;
//! * once its output is gone — a write to stdout failed, or a call arrives while stdout has no
//!   reader left (the client closed its end) — it takes no further call: calls already queued
//!   are answered with an error and never run, and the server exits with status 1 saying why.
//!   A write whose answer could not be delivered is never followed by more writes.

mod delivery;
mod tools;

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
use crate::mcp::delivery::{Output, Watched};
use crate::messages;

/// Serve the project memory to an agent over MCP (stdio).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct McpArgs {}

/// The server: the project folder it was started for (`-d`, default the current directory),
/// and what it knows of its output.
#[derive(Debug, Clone)]
struct Server {
    directory: Option<PathBuf>,
    output: Arc<Output>,
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
                 a task.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            tools::tools().into_iter().map(listed).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A call whose answer cannot be delivered is not run: a write would take effect unseen.
        if let Some(reason) = self.output.gone() {
            return Err(ErrorData::internal_error(
                messages::mcp_output_lost(&reason),
                None,
            ));
        }
        let arguments = request.arguments.unwrap_or_default();
        match tools::call(&request.name, &arguments, self.directory.as_deref()) {
            Some(Ok(json)) => Ok(CallToolResult::success(vec![ContentBlock::text(json)]).into()),
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

/// A tool as `tools/list` gives it.
fn listed(tool: tools::Tool) -> Tool {
    let serde_json::Value::Object(schema) = tool.input_schema else {
        unreachable!("tool schemas are objects")
    };
    Tool::new(tool.name, tool.description, Arc::new(schema))
        .with_title(tool.title)
        .with_annotations(
            ToolAnnotations::with_title(tool.title)
                .read_only(tool.read_only)
                .destructive(false)
                .idempotent(tool.read_only)
                .open_world(false),
        )
}

/// Serves MCP on stdin/stdout until stdin closes, or until its output is gone.
///
/// # Errors
/// When the runtime cannot start, the transport fails, or the output is gone; a client that
/// hangs up, even before the handshake, is a normal end.
pub fn run(_args: &McpArgs, directory: Option<&Path>) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("cannot start the MCP runtime", Path::new("."), e))?;
    let output = Arc::new(Output::default());
    let server = Server {
        directory: directory.map(Path::to_path_buf),
        output: Arc::clone(&output),
    };
    let stdout = Watched::new(tokio::io::stdout(), Arc::clone(&output));
    let watched = Arc::clone(&output);
    let outcome = runtime.block_on(async move {
        match server.serve((tokio::io::stdin(), stdout)).await {
            Ok(running) => {
                watched.stop_with(running.cancellation_token());
                running.waiting().await.map(drop).map_err(|e| e.to_string())
            }
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    });
    // A read of stdin still pending on the blocking pool must not keep the process alive.
    runtime.shutdown_background();
    if let Some(reason) = output.lost() {
        return Err(Error::refused(messages::mcp_output_lost(&reason)));
    }
    outcome.map_err(|message| Error::refused(messages::mcp_server(&message)))
}
