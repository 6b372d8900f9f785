//! The one error type. Every variant's text is what the user reads after `mem <action>: ` (or
//! inside `{"error":…}`), so each documented failure carries the exact documented message; tests
//! assert these texts. Every failure exits 1 (docs §4).

use std::io;
use std::path::{Path, PathBuf};

/// Everything that can make an action fail.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Memory path must be a normalized project-relative path.")]
    PathNotNormalized,
    #[error("Memory path escapes project.")]
    PathEscapes,
    #[error("Memory paths cannot follow symbolic links or junctions.")]
    PathSymlink,
    #[error("Memory parent is not a directory.")]
    ParentNotDirectory,
    #[error("Memory source must be a regular file of at most 2 MiB.")]
    SourceNotRegular,
    #[error("Memory source exceeded 2 MiB while reading.")]
    SourceGrew,
    /// A file over the size a bounded read accepts (its size, or the bytes read past the cap).
    #[error("Memory source of {0} bytes is over the read limit.")]
    SourceTooLarge(u64),
    #[error("Memory source must contain valid UTF-8.")]
    SourceNotUtf8,
    /// The text Node gives for a missing file, so both tools report the same reason.
    #[error("ENOENT: no such file or directory, stat '{}'", .0.display())]
    NotFound(PathBuf),
    /// Node's text for reading a directory as a file.
    #[error("EISDIR: illegal operation on a directory, read")]
    IsDirectory,
    #[error(
        "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock."
    )]
    LockOccupied,
    #[error("Memory store is full; archive it explicitly before adding records.")]
    StoreFull,
    #[error("Memory store has an incomplete final line; inspect it before writing.")]
    IncompleteFinalLine,
    #[error("Memory store exceeds 2 MiB.")]
    DocumentTooLarge,
    /// An I/O failure the docs do not name; always says which path.
    #[error("{op} {}: {source}", path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    /// A documented refusal (invalid value, bad input, integrity failure): the text is exact.
    #[error("{0}")]
    Refused(String),
}

impl Error {
    /// Wraps an I/O error with the operation and the path it concerned.
    #[must_use]
    pub fn io(op: &'static str, path: &Path, source: io::Error) -> Self {
        Error::Io {
            op,
            path: path.to_path_buf(),
            source,
        }
    }

    /// A documented refusal with its exact text.
    #[must_use]
    pub fn refused(message: impl Into<String>) -> Self {
        Error::Refused(message.into())
    }

    /// Every failure exits 1 (docs §4).
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        1
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
