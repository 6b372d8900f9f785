//! The JavaScript semantics that bmad-plus's bytes depend on (docs §2), one small module each:
//! JSON values and text, numbers as JavaScript writes them, whitespace and UTF-16 lengths,
//! V8's `Math.log`/`Math.pow` and the timestamp parser. Pure
//! functions; no I/O.

pub mod date;
pub mod json;
pub(crate) mod math;
pub(crate) mod number;
pub(crate) mod path;
pub mod tape;
pub mod text;
