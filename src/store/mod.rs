//! The shared layer under every action (docs §3): path confinement and the confined reader,
//! the writer lock, NDJSON appends, atomic JSON documents, the tolerant journal reader and the
//! `###` section cutter. It knows nothing of actions.

pub(crate) mod archived;
pub mod config;
pub(crate) mod confined;
pub(crate) mod document;
pub mod entry;
pub(crate) mod fences;
pub(crate) mod front_matter;
pub(crate) mod git;
pub(crate) mod ignore;
pub(crate) mod interrupt;
pub mod journal;
pub mod layout;
pub(crate) mod linefile;
pub(crate) mod lock;
pub(crate) mod ndjson;
pub(crate) mod numbered;
pub(crate) mod parallel;
pub(crate) mod paths;
pub(crate) mod resolve;
pub mod sections;
pub(crate) mod temporaries;
pub mod vectors;
