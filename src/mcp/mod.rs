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
//! * when stdin closes the server exits with status 0;
//! * once its output is gone — a write to stdout failed, or a call arrives while stdout has no
//!   reader left (the client closed its end) — it takes no further call: calls already queued
//!   are answered with an error and never run, and the server exits with status 1 saying why.
//!   A write whose answer could not be delivered is never followed by more writes.
//!
//! The server and its crates (`rmcp`, tokio) come with the `mcp` cargo feature, on by default.
//! A build without it (`--no-default-features`, for a packager who wants no MCP server) keeps
//! the command, which then exits 1 saying so.

#[cfg(feature = "mcp")]
mod arguments;
#[cfg(feature = "mcp")]
mod delivery;
#[cfg(feature = "mcp")]
mod schemas;
#[cfg(feature = "mcp")]
mod server;
#[cfg(feature = "mcp")]
mod text;
#[cfg(feature = "mcp")]
mod tools;
#[cfg(feature = "mcp")]
mod transport;

use std::path::Path;

#[cfg(not(feature = "mcp"))]
use crate::error::Error;
use crate::error::Result;
#[cfg(not(feature = "mcp"))]
use crate::messages;

/// Serve the project memory to an agent over MCP (stdio).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct McpArgs {}

/// Serves MCP on stdin/stdout until stdin closes, or until its output is gone.
///
/// # Errors
/// When the runtime cannot start, the transport fails, or the output is gone; a client that
/// hangs up, even before the handshake, is a normal end. Without the `mcp` feature, always:
/// this build has no server.
#[cfg(feature = "mcp")]
pub fn run(_args: &McpArgs, directory: Option<&Path>) -> Result<()> {
    crate::mcp::server::run(directory)
}

/// Without the `mcp` feature: this build has no server.
///
/// # Errors
/// Always, saying so.
#[cfg(not(feature = "mcp"))]
pub fn run(_args: &McpArgs, _directory: Option<&Path>) -> Result<()> {
    Err(Error::refused(messages::MCP_NOT_BUILT))
}
