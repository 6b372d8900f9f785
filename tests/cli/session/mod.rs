//! The Memory pack's session commands: `commands` runs init, status, brief, handoff, export and
//! scan with a temporary home; `brain` the same commands against hostile links, brain layouts,
//! export targets and leftovers of killed writers; `pack` the pack's own file formats.

mod brain;
mod brief;
mod commands;
mod guard;
mod hooks;
mod pack;
