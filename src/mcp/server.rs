//! The server itself (built with the `mcp` feature): the SDK's handler over the tools, on a
//! current-thread runtime made for this one command, behind the line filter of
//! [`crate::mcp::transport`].

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
use crate::mcp::delivery::{Output, Watched};
use crate::mcp::schemas;
use crate::mcp::tools;
use crate::mcp::transport;
use crate::messages;

/// The server: the project folder it was started for (`-d`, default the one found from the
/// current directory), and what it knows of its output.
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
        // A call whose answer cannot be delivered is not run: a write would take effect unseen.
        if let Some(reason) = self.output.gone() {
            return Err(ErrorData::internal_error(
                messages::mcp_output_lost(&reason),
                None,
            ));
        }
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

/// Serves MCP on stdin/stdout until stdin closes, or until its output is gone.
///
/// # Errors
/// When the runtime cannot start, the transport fails, or the output is gone; a client that
/// hangs up, even before the handshake, is a normal end.
pub(crate) fn run(directory: Option<&Path>) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("cannot start the MCP runtime", Path::new("."), e))?;
    let output = Arc::new(Output::default());
    let server = Server {
        directory: directory.map(Path::to_path_buf),
        output: Arc::clone(&output),
    };
    let outcome = runtime.block_on(serve(server, Arc::clone(&output)));
    // A read of stdin still pending on the blocking pool must not keep the process alive.
    runtime.shutdown_background();
    if let Some(reason) = output.lost() {
        return Err(Error::refused(messages::mcp_output_lost(&reason)));
    }
    outcome.map_err(|message| Error::refused(messages::mcp_server(&message)))
}

/// The SDK's service over the line filter of [`transport`], to the end of either side: stdin
/// closed, or stdout gone (its writer failed, which [`Watched`] records in `output`).
async fn serve(server: Server, output: Arc<Output>) -> std::result::Result<(), String> {
    let stdout = Watched::new(tokio::io::stdout(), Arc::clone(&output));
    let (sdk_reads, sdk_writes, mut writer, filter) = transport::start(tokio::io::stdin(), stdout);
    let service = async move {
        match server.serve((sdk_reads, sdk_writes)).await {
            Ok(running) => {
                output.stop_with(running.cancellation_token());
                running.waiting().await.map(drop).map_err(|e| e.to_string())
            }
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
        // stdout failed: nobody is left to answer (the caller reports the output lost).
        written = &mut writer => written_out(written),
    }
}

/// The end of the writer of stdout. A failed write is recorded as the output lost, which the
/// caller reports; only a task that did not finish is an error here.
fn written_out(
    written: std::result::Result<io::Result<()>, tokio::task::JoinError>,
) -> std::result::Result<(), String> {
    match written {
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}
