//! The maintenance commands: `lock` (inspecting and recovering the writer lock), `doctor` (the
//! health check and its repairs), `archive` (moving older records out of a full store, and
//! finishing an interrupted archive), `merge-driver` (git's merge of the registries and the
//! pattern scores).

mod aftermerge;
mod archive;
mod doctor;
mod git;
mod index;
pub mod lint;
mod lock;
mod merge;
mod model;
