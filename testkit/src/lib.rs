//! Builders shared by bmad-mem's integration tests, the library's unit tests, the benches, the
//! `gen-store` example and the fuzz targets; never part of the shipped program.
//!
//! * [`nexus_run`]: a real BMAD+ Nexus run in a temporary project, moved through its lifecycle
//!   states (an artifact edited, a lock taken, …) as Nexus or a person would leave it.
//! * [`nexus_store`]: many accepted runs and the receipt store bound to them, for the
//!   `observe` / `outcomes` benches.
//! * [`corpus`]: synthetic notes and journals, deterministic from a seed.
//! * [`json`]: the small JSON writer they all use, independent of the library's, so the
//!   expectations they compute do not inherit the library's bugs.
//!
//! It depends on nothing of bmad-mem's: what the library computes is what the tests check.

pub mod corpus;
pub mod json;
pub mod nexus_run;
pub mod nexus_store;
