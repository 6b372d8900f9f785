//! The project's `.gitignore` and the one line bmad-mem needs in it: `.bmad/cache/`, the derived
//! files of each clone (the embedding index of hybrid recall), which are never committed or
//! merged. `git setup` and `init` (in a git work tree) ensure it.
//!
//! A line already ignoring the folder, in any of the usual spellings (`.bmad/cache/`,
//! `/.bmad/cache`, `.bmad/cache/*`…), counts; otherwise a comment and the line are appended (the
//! file is created when missing), the file replaced atomically and never through a link. Other
//! lines are kept as they are.

use std::path::Path;

use crate::error::Result;
use crate::store::confined;
use crate::store::layout::{CACHE_DIR, GITIGNORE};

/// The comment put above the line.
const HEADER: &str =
    "# bmad-mem: each clone's derived files (the embedding index), never committed";

/// What ensuring the line did, or would do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Ignored {
    /// A line already ignores the cache folder.
    #[default]
    Already,
    /// `.gitignore` did not exist: created with the line.
    Created,
    /// The line was appended.
    Added,
}

/// The line as it is written.
#[must_use]
pub(crate) fn line() -> String {
    format!("{CACHE_DIR}/")
}

/// Whether a `.gitignore` line ignores the cache folder.
fn ignores_cache(line: &[u8]) -> bool {
    let line = String::from_utf8_lossy(line);
    let line = line.trim();
    let line = line.strip_prefix('/').unwrap_or(line);
    let line = line
        .strip_suffix("/*")
        .or_else(|| line.strip_suffix("/**"))
        .unwrap_or(line);
    line.strip_suffix('/').unwrap_or(line) == CACHE_DIR
}

/// Ensures the project's `.gitignore` ignores `.bmad/cache/`; with `dry_run`, only says what it
/// would do.
///
/// # Errors
/// Confinement refusals (`.gitignore` a link…), a folder in its place, an I/O error.
pub(crate) fn ensure(root: &Path, dry_run: bool) -> Result<Ignored> {
    let target = confined::locate(root, GITIGNORE, false)?;
    let existing = target.read(true)?.map(|(bytes, _)| bytes);
    let outcome = match &existing {
        Some(bytes) if bytes.split(|&b| b == b'\n').any(ignores_cache) => {
            return Ok(Ignored::Already);
        }
        Some(_) => Ignored::Added,
        None => Ignored::Created,
    };
    if dry_run {
        return Ok(outcome);
    }
    let mut text = existing.unwrap_or_default();
    if !text.is_empty() && !text.ends_with(b"\n") {
        text.push(b'\n');
    }
    text.extend_from_slice(format!("{HEADER}\n{}\n", line()).as_bytes());
    target
        .require_dir("cannot write")?
        .replace(target.name(), &text)?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_usual_spelling_counts_and_nothing_else() {
        for line in [
            ".bmad/cache/",
            "/.bmad/cache",
            " .bmad/cache/* ",
            ".bmad/cache/**",
            ".bmad/cache",
        ] {
            assert!(ignores_cache(line.as_bytes()), "{line:?}");
        }
        for line in [
            ".bmad/",
            "#.bmad/cache/",
            ".bmad/cache/x",
            "!.bmad/cache/",
            "cache/",
        ] {
            assert!(!ignores_cache(line.as_bytes()), "{line:?}");
        }
    }

    #[test]
    fn the_line_is_added_once_and_other_lines_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(ensure(root, true).unwrap(), Ignored::Created);
        assert!(!root.join(GITIGNORE).exists(), "a dry run writes nothing");
        assert_eq!(ensure(root, false).unwrap(), Ignored::Created);
        assert_eq!(ensure(root, false).unwrap(), Ignored::Already);
        let once = std::fs::read_to_string(root.join(GITIGNORE)).unwrap();
        assert_eq!(once, format!("{HEADER}\n.bmad/cache/\n"));
        std::fs::write(root.join(GITIGNORE), "/target").unwrap();
        assert_eq!(ensure(root, false).unwrap(), Ignored::Added);
        let added = std::fs::read_to_string(root.join(GITIGNORE)).unwrap();
        assert_eq!(added, format!("/target\n{HEADER}\n.bmad/cache/\n"));
    }
}
