//! The JavaScript semantics that bmad-plus's bytes depend on (docs §2), one small module each:
//! JSON values and text, numbers as JavaScript writes them, whitespace and UTF-16 lengths,
//! V8's `Math.log`/`Math.pow`, the timestamp parser, and the recall token counter. Pure
//! functions; no I/O.

pub mod counter;
pub mod date;
pub mod json;
pub mod math;
pub mod number;
pub mod tape;
pub mod text;
