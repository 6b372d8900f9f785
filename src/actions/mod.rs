//! The memory actions: the five that match bmad-plus byte for byte (`recall`, `write`,
//! `reinforce`, `observe`, `outcomes`), the governed entries (`propose`, `admit`, `import`),
//! `read` (one entry whole, for the MCP server's `memory_read`), and the modules they share
//! (reward signals, Nexus receipts, the secret detector). An action reads and writes the memory
//! only through [`crate::store`]; it never imports a session or admin command. See
//! `ARCHITECTURE.md`.

pub mod alike;
pub(crate) mod decisions;
pub(crate) mod entries;
pub mod observe;
pub(crate) mod outcomes;
#[cfg(feature = "mcp")]
pub(crate) mod read;
pub mod recall;
pub mod receipts;
pub(crate) mod reinforce;
pub mod secrets;
pub(crate) mod signals;
pub(crate) mod write;
