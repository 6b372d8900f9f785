//! The session commands of the Memory pack (`init`, `status`, `brief`, `handoff`, `export`,
//! `scan`) and what they share: brain detection and links ([`brain`]), the create-only writer
//! and small readers of `.agents/memory/` ([`pack`]), and the file templates ([`templates`]).
//! A command never imports another command; what two of them need lives in a shared module.
//! See `ARCHITECTURE.md`.

pub mod boundaries;
pub mod brain;
pub mod brief;
pub mod export;
pub mod guard;
pub mod handoff;
pub mod handoffs;
pub mod hooks;
pub mod init;
pub mod pack;
pub mod scan;
pub mod sidecar;
pub mod status;
pub mod templates;
