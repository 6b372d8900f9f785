//! The project's `.gitignore` and the lines bmad-mem needs in it: `.bmad/cache/`, the derived
//! files of each clone (the embedding index of hybrid recall), which `git setup` ensures, and
//! with it the writer lock and the brain link — each clone's own files ([`IGNORED`]) — which
//! `init` ensures in a git work tree. None of them is ever committed or merged.
//!
//! A line already ignoring a path, in any of the usual spellings (`.bmad/cache/`,
//! `/.bmad/cache`, `.bmad/cache/*`…), counts; otherwise a comment and the missing lines are
//! appended as [`crate::store::linefile`] appends (the file created when missing, CRLF files
//! given CRLF lines), the file replaced atomically and never through a link. Other lines are
//! kept as they are.

use std::path::Path;

use crate::error::Result;
use crate::store::confined;
use crate::store::layout::{CACHE_DIR, GITIGNORE, IGNORED};
use crate::store::linefile;

/// The comment put above the lines.
const HEADER: &str = "# bmad-mem: each clone's own files, never committed (docs/GIT.md)";

/// What ensuring the lines did, or would do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Ignored {
    /// Lines already ignore every path.
    #[default]
    Already,
    /// `.gitignore` did not exist: created with the lines.
    Created,
    /// The missing lines were appended.
    Added,
}

/// The cache folder's line as it is written.
#[must_use]
pub(crate) fn line() -> String {
    format!("{CACHE_DIR}/")
}

/// A `.gitignore` line as compared: trimmed, without a leading `/` (the patterns bmad-mem
/// writes hold a `/` inside, so git anchors them either way) or a trailing `/`, `/*` or `/**`.
fn key(line: &[u8]) -> String {
    let line = String::from_utf8_lossy(line);
    let line = line.trim();
    let line = line.strip_prefix('/').unwrap_or(line);
    let line = line
        .strip_suffix("/*")
        .or_else(|| line.strip_suffix("/**"))
        .unwrap_or(line);
    line.strip_suffix('/').unwrap_or(line).to_owned()
}

/// Ensures the project's `.gitignore` ignores `.bmad/cache/` (`git setup`); with `dry_run`,
/// only says what it would do.
///
/// # Errors
/// Confinement refusals (`.gitignore` a link…), a folder in its place, an I/O error.
pub(crate) fn ensure(root: &Path, dry_run: bool) -> Result<Ignored> {
    ensure_lines(root, &[&line()], dry_run).map(|(outcome, _)| outcome)
}

/// Ensures the project's `.gitignore` ignores every one of each clone's own files
/// ([`IGNORED`], `init`): what it did, and the lines it added.
///
/// # Errors
/// As [`ensure`].
pub(crate) fn ensure_all(root: &Path) -> Result<(Ignored, Vec<String>)> {
    ensure_lines(root, &IGNORED, false)
}

fn ensure_lines(root: &Path, lines: &[&str], dry_run: bool) -> Result<(Ignored, Vec<String>)> {
    let target = confined::locate(root, GITIGNORE, false)?;
    let existing = target.read(true)?.map(|(bytes, _)| bytes);
    let old = existing.as_deref().unwrap_or_default();
    let added = linefile::missing(old, lines, key);
    let outcome = match (&existing, added.is_empty()) {
        (_, true) => return Ok((Ignored::Already, added)),
        (Some(_), false) => Ignored::Added,
        (None, false) => Ignored::Created,
    };
    if !dry_run {
        let bytes = linefile::extended(old, HEADER, &added);
        target
            .require_dir("cannot write")?
            .replace(target.name(), &bytes)?;
    }
    Ok((outcome, added))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_usual_spelling_counts_and_nothing_else() {
        let cache = key(line().as_bytes());
        for line in [
            ".bmad/cache/",
            "/.bmad/cache",
            " .bmad/cache/* ",
            ".bmad/cache/**",
            ".bmad/cache",
            "/.bmad/cache/\r",
        ] {
            assert_eq!(key(line.as_bytes()), cache, "{line:?}");
        }
        for line in [
            ".bmad/",
            "#.bmad/cache/",
            ".bmad/cache/x",
            "!.bmad/cache/",
            "cache/",
        ] {
            assert_ne!(key(line.as_bytes()), cache, "{line:?}");
        }
    }

    #[test]
    fn the_lines_are_added_once_and_other_lines_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(ensure(root, true).unwrap(), Ignored::Created);
        assert!(!root.join(GITIGNORE).exists(), "a dry run writes nothing");
        assert_eq!(ensure(root, false).unwrap(), Ignored::Created);
        assert_eq!(ensure(root, false).unwrap(), Ignored::Already);
        let once = std::fs::read_to_string(root.join(GITIGNORE)).unwrap();
        assert_eq!(once, format!("{HEADER}\n.bmad/cache/\n"));
        // init adds the other two, under the same comment.
        let (outcome, added) = ensure_all(root).unwrap();
        assert_eq!(outcome, Ignored::Added);
        assert_eq!(added, IGNORED[1..]);
        let all = std::fs::read_to_string(root.join(GITIGNORE)).unwrap();
        assert_eq!(all, format!("{HEADER}\n{}\n", IGNORED.join("\n")));
        assert_eq!(ensure_all(root).unwrap(), (Ignored::Already, Vec::new()));
        std::fs::write(root.join(GITIGNORE), "/target\r\n/.bmad/cache").unwrap();
        assert_eq!(ensure(root, false).unwrap(), Ignored::Already);
        let (outcome, _) = ensure_all(root).unwrap();
        assert_eq!(outcome, Ignored::Added);
        let added = std::fs::read_to_string(root.join(GITIGNORE)).unwrap();
        assert_eq!(
            added,
            format!(
                "/target\r\n/.bmad/cache\r\n{HEADER}\r\n{}\r\n",
                IGNORED[1..].join("\r\n")
            )
        );
    }
}
