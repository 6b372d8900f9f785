//! The shared layer under every action (docs §3): path confinement and the confined reader,
//! the writer lock, NDJSON appends, atomic JSON documents, the tolerant journal reader and the
//! `###` section cutter. It knows nothing of actions.

pub mod archived;
pub mod confined;
pub mod document;
pub mod entry;
pub mod journal;
pub mod layout;
pub mod lock;
pub mod ndjson;
pub mod paths;
pub mod resolve;
pub mod sections;
pub mod temporaries;
