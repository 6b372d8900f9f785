//! The session commands of the Memory pack (`init`, `status`, `brief`, `handoff`, `export`,
//! `scan`), the agents' `guard` and `hooks`, and what they share: brain detection and links
//! ([`brain`]), the create-only writer and small readers of `.agents/memory/` ([`pack`]), the
//! file templates ([`templates`]), access boundaries ([`boundaries`]) and sidecars ([`sidecar`]).
//! A command never imports another command; what two of them need lives in a shared module.
//! See `ARCHITECTURE.md`.

pub(crate) mod boundaries;
pub(crate) mod brain;
pub(crate) mod brief;
pub(crate) mod export;
pub(crate) mod guard;
pub(crate) mod handoff;
pub(crate) mod handoffs;
pub(crate) mod hooks;
pub(crate) mod init;
pub(crate) mod pack;
pub(crate) mod scan;
pub(crate) mod shell;
pub(crate) mod sidecar;
pub(crate) mod status;
pub(crate) mod templates;
