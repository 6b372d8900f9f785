//! Governed entries: agents propose, a person admits, secrets never enter (docs/ENTRIES.md).
//!
//! An agent that learned something writes a *candidate* (`propose`, `import`); only a person's
//! explicit `admit <id> --expect <sha256>` turns it into a `###` section of
//! `.agents/memory/decisions.md`, `lessons.md` or `patterns.md`, where `recall` finds it at
//! once; `admit --refuse` records the topic in `refused.md` so it is never proposed again.
//!
//! `candidate` holds what the commands share (types, topics, the candidate file format, the
//! readers); `project` the project's name a candidate id starts with; `propose`, `admit` and
//! `import` are the commands; `views` the generated views.
//! Every change happens under the writer lock; every file is replaced atomically through a
//! confined folder handle.

pub(crate) mod admit;
pub(crate) mod candidate;
pub(crate) mod checks;
pub(crate) mod import;
pub(crate) mod project;
pub(crate) mod propose;
pub(crate) mod style;
pub(crate) mod views;
