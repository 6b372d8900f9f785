//! PLACEHOLDER: the read-only Nexus view lands here (NEXUS.md).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::js::json::Object;

/// Resolves accepted sources of one project, caching within one invocation.
#[derive(Debug)]
pub struct Nexus {
    root: PathBuf,
}

impl Nexus {
    #[must_use]
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
        }
    }

    /// NEXUS.md "The accepted source".
    ///
    /// # Errors
    /// The documented message.
    pub fn accepted_source(&mut self, run_id: &str, task_id: &str) -> Result<Object> {
        let _ = (&self.root, run_id, task_id);
        Err(Error::refused(
            "Outcome source is not an accepted task with current independently verified evidence.",
        ))
    }
}
