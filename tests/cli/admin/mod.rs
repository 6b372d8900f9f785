//! The maintenance commands: `lock` (inspecting and recovering the writer lock), `doctor` (the
//! health check and its repairs), `archive` (moving older records out of a full store, and
//! finishing an interrupted archive), `merge-driver` (git's merge of the registries and the
//! pattern scores; of the note files in `merge_notes`), `reinforcements` (two clones'
//! reinforcements merged through git), `view` (the memory as one HTML page).

mod aftermerge;
mod archive;
pub mod doctor;
mod git;
mod index;
pub mod lint;
mod lock;
mod merge;
mod merge_notes;
mod model;
mod reinforcements;
mod team;
mod view;
