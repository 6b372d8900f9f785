//! Path confinement and the two ways of reading a memory file (SPEC §3.1, §3.2, §5).
//!
//! [`confine`] is the gate every registry path passes: a normalized project-relative path that
//! stays inside the root and crosses no symbolic link from the root down (the walk itself, on
//! directory handles, lives in [`confined`]). [`read_registry`] is the confined reader (regular
//! file, at most 2 MiB, valid UTF-8). [`read_loose`] reads as
//! bmad-plus's lexical recall does: links followed, no cap, invalid UTF-8 replaced.
//!
//! The root is compared lexically (absolute, `.`/`..` resolved without touching the disk), never
//! through its real path, as bmad-plus does.

use std::fs;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};
use crate::store::confined;

/// Largest registry file, in bytes (SPEC §1).
pub const REGISTRY_CAP: u64 = 2 * 1024 * 1024;

/// `path` made absolute against `base` and normalized lexically, as Node's `path.resolve`
/// does: `.` dropped, `..` removes the previous component, links not followed.
#[must_use]
pub fn resolve(base: &Path, path: &Path) -> PathBuf {
    let joined = base.join(path);
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Node's `path.relative(from, to)` for two normalized absolute paths, `/`-separated.
#[must_use]
pub fn relative(from: &Path, to: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// SPEC §3.1: the absolute path of the memory path `rel` under `root`, refused unless it is a
/// normalized project-relative path that stays inside the root and whose existing components,
/// from the root down, are directories (all but the target) and never symbolic links. The root
/// itself is taken as given: links above it are the user's business.
///
/// A path returned here is for messages and read-only looks; to read or write the file, go
/// through [`confined::locate`], which keeps the folder's handle so that a link swapped in
/// afterwards cannot redirect the operation.
///
/// # Errors
/// The four confinement messages, or an I/O error naming the component that could not be read.
pub fn confine(root: &Path, rel: &str) -> Result<PathBuf> {
    confined::locate(root, rel, false).map(|target| target.path().to_path_buf())
}

/// The lexical half of [`confine`]: `root/rel`, refused unless `rel` is a normalized
/// project-relative path that stays inside the root. Touches no disk.
///
/// # Errors
/// `Memory path must be a normalized project-relative path.`, `Memory path escapes project.`
pub fn normalize(root: &Path, rel: &str) -> Result<PathBuf> {
    let is_absolute = rel.starts_with('/') || rel.starts_with('\\') || Path::new(rel).has_root();
    if rel.is_empty()
        || rel.contains(':')
        || is_absolute
        || rel
            .split(['/', '\\'])
            .any(|segment| segment.is_empty() || segment == "." || segment == "..")
    {
        return Err(Error::PathNotNormalized);
    }
    let target = resolve(root, Path::new(rel));
    if !target.starts_with(root) || target == root {
        return Err(Error::PathEscapes);
    }
    Ok(target)
}

/// SPEC §3.2, the confined reader: `Ok(None)` when the file is absent and `missing_ok`, else the
/// text of a regular file of at most 2 MiB that is valid UTF-8.
///
/// # Errors
/// Confinement errors, `Memory source must be …`, or Node's `ENOENT` text when a required file
/// is missing.
pub fn read_registry(root: &Path, rel: &str, missing_ok: bool) -> Result<Option<String>> {
    read_registry_bytes(root, rel, missing_ok)?
        .map(|bytes| String::from_utf8(bytes).map_err(|_| Error::SourceNotUtf8))
        .transpose()
}

/// [`read_registry`] without the UTF-8 check, for a caller that must take the bytes as they are
/// (a torn final line may end in the middle of a character).
///
/// # Errors
/// As [`read_registry`], except `Memory source must contain valid UTF-8.`
pub fn read_registry_bytes(root: &Path, rel: &str, missing_ok: bool) -> Result<Option<Vec<u8>>> {
    Ok(confined::locate(root, rel, false)?
        .read(missing_ok)?
        .map(|(bytes, _)| bytes))
}

/// Reads `path` as bmad-plus's lexical recall does: links followed, no size cap, invalid UTF-8
/// replaced by U+FFFD, a byte-order mark kept. `Ok(None)` when it (or a link's target) is
/// missing.
///
/// # Errors
/// Node's `EISDIR` text for a directory; any other I/O error with its path.
pub fn read_loose(path: &Path) -> Result<Option<String>> {
    Ok(read_loose_bytes(path)?.map(decode_lossy))
}

/// The bytes [`read_loose`] decodes, for a caller that must keep them as they are.
///
/// # Errors
/// As [`read_loose`].
pub fn read_loose_bytes(path: &Path) -> Result<Option<Vec<u8>>> {
    loose(path, fs::read(path))
}

/// [`read_loose`] into `buffer`'s memory (its content is dropped): a caller reading many large
/// files one after another spares the kernel a fresh page for every 4 KiB read.
///
/// # Errors
/// As [`read_loose`].
pub fn read_loose_into(path: &Path, mut buffer: Vec<u8>) -> Result<Option<String>> {
    buffer.clear();
    let read = fs::File::open(path).and_then(|mut file| file.read_to_end(&mut buffer));
    Ok(loose(path, read.map(|_| buffer))?.map(decode_lossy))
}

/// What a loose read gives: the bytes, nothing for a missing file, or the error.
fn loose(path: &Path, read: io::Result<Vec<u8>>) -> Result<Option<Vec<u8>>> {
    match read {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::IsADirectory => Err(Error::IsDirectory),
        Err(e) => Err(Error::io("cannot read", path, e)),
    }
}

/// UTF-8 text with every invalid sequence replaced by U+FFFD, as Node decodes it.
#[must_use]
pub fn decode_lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn resolve_and_relative_are_lexical() {
        let root = Path::new("/p/q");
        assert_eq!(
            resolve(root, Path::new("a/./b/../c")),
            Path::new("/p/q/a/c")
        );
        assert_eq!(resolve(root, Path::new("../x")), Path::new("/p/x"));
        assert_eq!(resolve(root, Path::new("/abs/./y")), Path::new("/abs/y"));
        assert_eq!(relative(root, Path::new("/p/q/a/b.md")), "a/b.md");
        assert_eq!(
            relative(root, Path::new("/p/brain/memory/x.md")),
            "../brain/memory/x.md"
        );
        assert_eq!(relative(root, Path::new("/z")), "../../z");
    }

    #[track_caller]
    fn refused(rel: &str, expected: &str) {
        let dir = tempfile::tempdir().unwrap();
        let err = confine(dir.path(), rel).unwrap_err();
        assert_eq!(err.to_string(), expected, "{rel:?}");
    }

    #[test]
    fn confinement_refuses_unnormalized_paths() {
        let msg = "Memory path must be a normalized project-relative path.";
        for rel in [
            "",
            "/etc/passwd",
            "\\x",
            "a//b",
            "a/./b",
            "a/../b",
            "..",
            ".",
            "a/",
            "c:x",
            "a\\..\\b",
        ] {
            refused(rel, msg);
        }
    }

    #[test]
    fn confinement_refuses_links_and_non_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join("real")).unwrap();
        symlink(root.join("real"), root.join(".bmad")).unwrap();
        assert!(matches!(
            confine(root, ".bmad/memory/journal.ndjson"),
            Err(Error::PathSymlink)
        ));
        fs::write(root.join("file"), "x").unwrap();
        assert!(matches!(
            confine(root, "file/journal.ndjson"),
            Err(Error::ParentNotDirectory)
        ));
        symlink(root.join("nowhere"), root.join("dangling")).unwrap();
        assert!(matches!(confine(root, "dangling"), Err(Error::PathSymlink)));
        assert_eq!(
            confine(root, "missing/a/b").unwrap(),
            root.join("missing/a/b")
        );
    }

    #[test]
    fn registry_reader_enforces_cap_and_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(read_registry(root, "a.json", true).unwrap().is_none());
        let err = read_registry(root, "a.json", false).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "ENOENT: no such file or directory, stat '{}'",
                root.join("a.json").display()
            )
        );
        fs::write(root.join("bad"), [0xff, 0xfe]).unwrap();
        assert!(matches!(
            read_registry(root, "bad", true),
            Err(Error::SourceNotUtf8)
        ));
        let cap = usize::try_from(REGISTRY_CAP).unwrap();
        fs::write(root.join("full"), vec![b'x'; cap]).unwrap();
        assert_eq!(
            read_registry(root, "full", true).unwrap().unwrap().len(),
            cap
        );
        fs::write(root.join("over"), vec![b'x'; cap + 1]).unwrap();
        assert!(matches!(
            read_registry(root, "over", true),
            Err(Error::SourceNotRegular)
        ));
        fs::create_dir(root.join("dir")).unwrap();
        assert!(matches!(
            read_registry(root, "dir", true),
            Err(Error::SourceNotRegular)
        ));
    }

    #[test]
    fn loose_reader_follows_links_and_replaces_bad_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("t"), b"\xef\xbb\xbfa\xffb").unwrap();
        symlink(root.join("t"), root.join("link")).unwrap();
        assert_eq!(
            read_loose(&root.join("link")).unwrap().unwrap(),
            "\u{feff}a\u{fffd}b"
        );
        symlink(root.join("gone"), root.join("dangling")).unwrap();
        assert!(read_loose(&root.join("dangling")).unwrap().is_none());
        assert!(matches!(read_loose(root), Err(Error::IsDirectory)));
    }

    #[test]
    fn loose_reader_into_a_used_buffer_reads_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("t"), b"\xef\xbb\xbfa\xffb").unwrap();
        fs::write(root.join("short"), b"xy").unwrap();
        symlink(root.join("t"), root.join("link")).unwrap();
        symlink(root.join("gone"), root.join("dangling")).unwrap();
        let used = || b"left over from the last file, longer than the next".to_vec();
        for name in ["t", "short", "link", "dangling", "gone"] {
            let path = root.join(name);
            assert_eq!(
                read_loose_into(&path, used()).unwrap(),
                read_loose(&path).unwrap(),
                "{name}"
            );
        }
        assert!(matches!(
            read_loose_into(root, used()),
            Err(Error::IsDirectory)
        ));
    }
}
