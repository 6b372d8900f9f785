//! The JavaScript semantics that bmad-plus's bytes depend on (docs §2), one small module each:
//! JSON values and text (the model and writer in `json`, the one reader in `scan`, the flat
//! document in `tape`), numbers as JavaScript writes them, whitespace and UTF-16 lengths, V8's
//! `Math.log`/`Math.pow`, the timestamp parser and Node's `path.resolve`/`relative`. Pure
//! functions; no I/O.

pub mod date;
pub mod json;
pub(crate) mod math;
pub(crate) mod number;
pub(crate) mod path;
pub(crate) mod scan;
pub mod tape;
pub mod text;
