//! Rewriting a whole JSON document atomically (SPEC §3.5), and the path-based temporary-file
//! helpers the session commands use for files outside the registry (exports, brains).
//!
//! Pretty JSON plus `\n`, at most 2 MiB, written to `<file>.<uuid>.tmp` (created exclusively,
//! so a link planted there is never followed), synced, then renamed over the target: a reader
//! sees the old document or the new one, never half of either. The temporary file is removed
//! on failure.

use std::fs::{self, OpenOptions};
use std::io;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::js::json::Value;
use crate::store::WriterLock;
use crate::store::confined;
use crate::store::paths::REGISTRY_CAP;

/// Writes `bytes` to a fresh `<file>.<uuid>.tmp` beside `path`, created exclusively (so a link
/// planted there is never followed) and synced; returns its path. The caller renames or links it
/// into place and removes it on failure.
///
/// # Errors
/// I/O errors; the temporary file is removed when writing it fails.
pub fn write_temp(path: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(".{}.tmp", uuid::Uuid::new_v4()));
    let tmp = path.with_file_name(tmp_name);
    let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    if let Err(e) = written {
        drop(file);
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(tmp)
}

/// Replaces `path` with `bytes` atomically: a reader sees the old content or the new, never
/// half of either.
///
/// # Errors
/// I/O errors; nothing is left behind on failure.
pub fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = write_temp(path, bytes)?;
    fs::rename(&tmp, path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })
}

/// Gives `tmp`, a synced file from [`write_temp`], the name `path` only if that name is free:
/// `Ok(false)` when it is taken. A hard link is atomic and refused on an existing name (like
/// `O_CREAT|O_EXCL`), so the file appears at `path` whole or not at all. `tmp` is left for the
/// caller to remove.
///
/// # Errors
/// I/O errors, among them the one a filesystem without hard links gives.
pub fn link_new(tmp: &Path, path: &Path) -> io::Result<bool> {
    match fs::hard_link(tmp, path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// Syncs the folder `dir`, so that names just created, linked or renamed in it survive a
/// power cut.
///
/// # Errors
/// I/O errors.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

/// Writes `value` as the document `rel` (SPEC §3.5): the temporary file is created and renamed
/// relative to one handle on the document's folder, opened from the root without following
/// links, so a link swapped in meanwhile is replaced, never written through.
///
/// # Errors
/// Confinement errors, `Memory store exceeds 2 MiB.`, I/O errors naming the file.
pub fn write(root: &Path, rel: &str, value: &Value, _lock: &WriterLock) -> Result<()> {
    let target = confined::locate(root, rel, false)?;
    let mut text = value.pretty();
    text.push('\n');
    if text.len() as u64 > REGISTRY_CAP {
        return Err(Error::DocumentTooLarge);
    }
    target
        .require_dir("cannot write")?
        .replace(target.name(), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::Object;

    #[test]
    fn writes_pretty_json_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let lock = WriterLock::acquire(root).unwrap();
        let value = Value::Object(Object::new().with("b", 1.5).with("a", Vec::new()));
        write(root, ".bmad/memory/doc.json", &value, &lock).unwrap();
        let memory = root.join(".bmad/memory");
        assert_eq!(
            fs::read_to_string(memory.join("doc.json")).unwrap(),
            "{\n  \"b\": 1.5,\n  \"a\": []\n}\n"
        );
        let mut names: Vec<_> = fs::read_dir(&memory)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["doc.json", "writer.lock"]);
    }

    #[test]
    fn link_new_never_replaces_an_existing_name() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("archive.ndjson");
        let first = write_temp(&target, b"first\n").unwrap();
        assert!(link_new(&first, &target).unwrap());
        let second = write_temp(&target, b"second\n").unwrap();
        assert!(!link_new(&second, &target).unwrap());
        assert_eq!(fs::read(&target).unwrap(), b"first\n");
        sync_dir(dir.path()).unwrap();
    }

    #[test]
    fn refuses_a_document_over_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let lock = WriterLock::acquire(root).unwrap();
        let big = Value::String("x".repeat(usize::try_from(REGISTRY_CAP).unwrap()));
        assert!(matches!(
            write(root, ".bmad/memory/doc.json", &big, &lock),
            Err(Error::DocumentTooLarge)
        ));
        assert!(!root.join(".bmad/memory/doc.json").exists());
    }
}
