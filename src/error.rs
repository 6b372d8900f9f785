//! The one error type. Every variant's text is what the user reads after `mem <action>: ` (or
//! inside `{"error":…}`), so each documented failure carries the exact documented message, kept
//! in [`crate::messages`]; tests assert these texts. Every failure exits 1 (docs §4).

use std::io;
use std::path::{Path, PathBuf};

use crate::messages;

/// Everything that can make an action fail.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}", messages::PATH_NOT_NORMALIZED)]
    PathNotNormalized,
    #[error("{}", messages::PATH_ESCAPES)]
    PathEscapes,
    #[error("{}", messages::PATH_SYMLINK)]
    PathSymlink,
    #[error("{}", messages::PARENT_NOT_DIRECTORY)]
    ParentNotDirectory,
    #[error("{}", messages::SOURCE_NOT_REGULAR)]
    SourceNotRegular,
    #[error("{}", messages::SOURCE_GREW)]
    SourceGrew,
    /// A file over the size a bounded read accepts (its size, or the bytes read past the cap).
    #[error("{}", messages::source_too_large(*.0))]
    SourceTooLarge(u64),
    #[error("{}", messages::SOURCE_NOT_UTF8)]
    SourceNotUtf8,
    /// The text Node gives for a missing file, so both tools report the same reason.
    #[error("{}", messages::not_found(.0))]
    NotFound(PathBuf),
    /// Node's text for reading a directory as a file.
    #[error("{}", messages::IS_DIRECTORY)]
    IsDirectory,
    #[error("{}", messages::LOCK_OCCUPIED)]
    LockOccupied,
    #[error("{}", messages::STORE_FULL)]
    StoreFull,
    /// A record longer than a registry can hold even when empty (`store`, project-relative;
    /// `size`, the line with its `\n`). Its text is bmad-plus's for a full store, for the command
    /// line's byte compatibility; the MCP server says more ([`messages::record_too_large`]).
    #[error("{}", messages::STORE_FULL)]
    RecordTooLarge { store: String, size: u64 },
    #[error("{}", messages::INCOMPLETE_FINAL_LINE)]
    IncompleteFinalLine,
    #[error("{}", messages::DOCUMENT_TOO_LARGE)]
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
    pub(crate) fn io(op: &'static str, path: &Path, source: io::Error) -> Self {
        Error::Io {
            op,
            path: path.to_path_buf(),
            source,
        }
    }

    /// A documented refusal with its exact text.
    #[must_use]
    pub(crate) fn refused(message: impl Into<String>) -> Self {
        Error::Refused(message.into())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
