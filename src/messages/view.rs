//! The messages of `view` — a part of the catalogue of [`messages`](crate::messages), kept in a
//! file of its own.

use std::fmt::Display;
use std::path::Path;

/// `--out` names something the page must not replace.
pub(crate) fn view_out_not_regular(what: impl Display, out: &Path) -> String {
    format!(
        "--out names {what}, not a regular file: {}; name a file to write or replace",
        out.display()
    )
}

/// The platform's opener could not be started (the page is written).
pub(crate) fn view_not_opened(error: impl Display) -> String {
    format!("warning: the page is written, but the platform's opener could not be started: {error}")
}
