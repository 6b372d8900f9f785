//! The maintenance commands: `lock` (inspect or clear the writer lock), `doctor` (check and
//! repair the registries), `archive` (move old journal events and promotions aside) and
//! `merge-driver` (git's merge driver for the registries), `model` (the embedding model in the
//! user's cache folder), `index` (the embedding index of hybrid recall) and `view`
//! (the memory as one HTML page, read-only). They
//! may use the actions' readers; no action uses them. See `ARCHITECTURE.md`.

pub(crate) mod archive;
pub(crate) mod doctor;
pub(crate) mod git;
pub(crate) mod index;
pub(crate) mod lint;
pub(crate) mod lock;
pub(crate) mod merge;
pub(crate) mod model;
pub(crate) mod view;
