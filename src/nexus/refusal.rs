//! The refusals Nexus words itself: its `Nexus: `-prefixed messages and Node's text for a
//! missing path. Every other module of the view builds its errors here, so a message has one
//! spelling.

use crate::error::Error;

/// A refusal of Nexus's own, `Nexus: `-prefixed.
pub(super) fn nexus(message: impl std::fmt::Display) -> Error {
    Error::refused(format!("Nexus: {message}"))
}

/// Node's text for a missing path.
pub(super) fn enoent(syscall: &str, path: &str) -> Error {
    Error::refused(format!(
        "ENOENT: no such file or directory, {syscall} '{path}'"
    ))
}

pub(super) fn stale_evidence() -> Error {
    nexus("Stale evidence: checked artifacts or write scope changed.")
}

/// A run field of the wrong shape, where Nexus itself would fail with a `TypeError`; it only
/// ever makes a task stale.
pub(super) fn malformed(what: &str) -> Error {
    nexus(format!("Malformed task definition or evidence: {what}."))
}
