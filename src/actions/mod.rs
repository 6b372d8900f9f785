//! The actions that read and write the project memory.

pub mod entries;
