//! Integration tests: the real binary against temporary projects.
//!
//! One test binary (fast to link, one place for the builder). Every test copies a fixture from
//! `fixtures/` into a temporary folder through [`support::TestProject`], runs `bmad-mem` there
//! with a fixed `BMAD_MEM_NOW`, and checks the exit status, both output streams and the bytes of
//! the files: a success writes exactly the documented bytes, a failure writes nothing.
//!
//! * `actions/`: one module per memory action (write, recall, reinforce, observe, outcomes,
//!   evidence recall, bm25 ranking), and the secret check every writing command shares.
//! * `session/`: the Memory pack's commands (init, status, brief, handoff, export, scan) and
//!   the agents' (guard and its decision table, hooks install and the installed hooks run with
//!   the payloads in `fixtures/hooks/`).
//! * `admin/`: lock, doctor, archive.
//! * `reliability/`: concurrency, crashes, confinement, hostile repositories, the loose
//!   reader, terminal escaping, the secret detector's figures (`RELIABILITY.md`).
//! * `mcp`: `bmad-mem mcp` driven by the MCP SDK's client over a child process; in a build
//!   without the `mcp` feature, `mcp_absent`: the command says the server is not built in.
//! * `contract`: the command-line rules every action shares (docs §4, §2.7, §2.8);
//!   `conventions`: completions, the manual page, `help`, suggestions, `--version`, colour;
//!   `schemas`: the JSON Schemas of `schemas/`, against which every `--json` run of every test
//!   is validated (`support::validate`);
//!   `readme`: the README's commands run as written.
//!
//! Expected scores were computed independently with Node 20 (V8's `Math.log`/`Math.pow`,
//! `JSON.stringify`), running the documented formulas on the same inputs.

mod actions;
mod admin;
mod contract;
mod conventions;
#[cfg(feature = "mcp")]
mod mcp;
#[cfg(not(feature = "mcp"))]
mod mcp_absent;
mod readme;
mod reliability;
mod schemas;
mod session;
mod support;
