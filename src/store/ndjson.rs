//! Appending one record to an NDJSON registry (docs §3.4).
//!
//! Under the writer lock: the existing file is read with the confined reader; a record that
//! would take the file past 2 MiB is refused (one that alone is longer is told apart, with the
//! same text), and so is any append after a torn final line
//! (text not ending in `\n`, even one cut inside a character), so a crash's half-written record
//! is never buried under new ones.
//! The record goes out as one `write_all` of the whole line, then `fsync`. A registry of
//! bmad-mem's own that no reader refuses for a bad line (the reinforcement records) is checked
//! from its size and last byte only ([`prepare_at_end`]).

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rustix::fs::OFlags;

use crate::error::{Error, Result};
use crate::store::confined::{self, Target};
use crate::store::layout::REGISTRY_CAP;
use crate::store::lock::WriterLock;

/// A registry file checked and ready to take one more line: its folder's handle is kept, so the
/// line lands in the folder that was checked even if a link is swapped in meanwhile. A registry
/// whose folder does not exist yet (`.bmad/records/` before the first record) has none: its
/// folders are created, never through a link, when the line is written.
#[derive(Debug)]
pub(crate) struct PreparedAppend {
    target: Target,
    root: PathBuf,
    rel: String,
}

/// Runs docs §3.4's checks for appending `line` (without its `\n`) to `rel`, without writing.
/// Used alone where an action must know an append will succeed before it writes anything else.
///
/// # Errors
/// Confinement and reader errors, `Memory store is full; …`, `Memory store has an incomplete
/// final line; …`.
pub(crate) fn prepare(
    root: &Path,
    rel: &str,
    line_len: usize,
    _lock: &WriterLock,
) -> Result<PreparedAppend> {
    let target = confined::locate(root, rel, false)?;
    let old = target
        .read(true)?
        .map(|(bytes, _)| bytes)
        .unwrap_or_default();
    // Only complete lines are held to UTF-8: a write cut short can stop inside a character,
    // and that is the torn-line case, which has its own message and its own repair.
    let complete = memchr::memrchr(b'\n', &old).map_or(0, |i| i + 1);
    if std::str::from_utf8(&old[..complete]).is_err() {
        return Err(Error::SourceNotUtf8);
    }
    if std::str::from_utf8(&old[complete..]).is_err() {
        return Err(Error::IncompleteFinalLine);
    }
    check_room(rel, old.len() as u64, line_len)?;
    if !old.is_empty() && !old.ends_with(b"\n") {
        return Err(Error::IncompleteFinalLine);
    }
    Ok(PreparedAppend {
        target,
        root: root.to_path_buf(),
        rel: rel.to_owned(),
    })
}

/// [`prepare`]'s checks for a registry that bmad-mem alone writes and no reader refuses for a
/// bad line (the reinforcement records): the cap and a torn final line, known from the file's
/// size and its last byte, so that an append costs the same at 2 MiB as at nothing. A line that
/// is not UTF-8 is `doctor`'s to report, not a reason to refuse the next record.
///
/// # Errors
/// Confinement errors, a link or anything but a regular file in the registry's place, `Memory
/// store is full; …`, `Memory store has an incomplete final line; …`.
pub(crate) fn prepare_at_end(
    root: &Path,
    rel: &str,
    line_len: usize,
    _lock: &WriterLock,
) -> Result<PreparedAppend> {
    let target = confined::locate(root, rel, false)?;
    let opened = match target.dir() {
        Some(dir) => dir.open_file(target.name(), OFlags::RDONLY)?,
        None => None,
    };
    let (len, last) = match opened {
        Some((file, meta)) if meta.len() > 0 => {
            let mut last = [0u8];
            file.read_exact_at(&mut last, meta.len() - 1)
                .map_err(|e| Error::io("cannot read", target.path(), e))?;
            (meta.len(), Some(last[0]))
        }
        _ => (0, None),
    };
    check_room(rel, len, line_len)?;
    if last.is_some_and(|b| b != b'\n') {
        return Err(Error::IncompleteFinalLine);
    }
    Ok(PreparedAppend {
        target,
        root: root.to_path_buf(),
        rel: rel.to_owned(),
    })
}

/// Whether a file of `old_len` bytes takes one more line of `line_len` bytes and its `\n`
/// within the cap.
fn check_room(rel: &str, old_len: u64, line_len: usize) -> Result<()> {
    let record = line_len as u64 + 1;
    if old_len + record > REGISTRY_CAP {
        return Err(if record > REGISTRY_CAP {
            Error::RecordTooLarge {
                store: rel.to_owned(),
                size: record,
            }
        } else {
            Error::StoreFull
        });
    }
    Ok(())
}

impl PreparedAppend {
    /// Appends `line` and `\n` in one write, then syncs the file.
    ///
    /// # Errors
    /// A link or non-regular file found in the registry's place, I/O errors naming the file.
    pub(crate) fn write(self, line: &str) -> Result<()> {
        let mut record = String::with_capacity(line.len() + 1);
        record.push_str(line);
        record.push('\n');
        let target = match self.target.dir() {
            Some(_) => self.target,
            None => confined::locate(&self.root, &self.rel, true)?,
        };
        target
            .require_dir("cannot open")?
            .append(target.name(), record.as_bytes())
    }
}

/// Checks and appends `line` to the registry `rel` (docs §3.4).
///
/// # Errors
/// As [`prepare`] and [`PreparedAppend::write`].
pub(crate) fn append(root: &Path, rel: &str, line: &str, lock: &WriterLock) -> Result<()> {
    prepare(root, rel, line.len(), lock)?.write(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const JOURNAL: &str = ".bmad/memory/journal.ndjson";

    #[test]
    fn appends_lines_and_refuses_a_torn_tail_or_a_full_store() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let lock = WriterLock::acquire(root).unwrap();
        append(root, JOURNAL, "{\"a\":1}", &lock).unwrap();
        append(root, JOURNAL, "{\"a\":2}", &lock).unwrap();
        let path = root.join(JOURNAL);
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"a\":1}\n{\"a\":2}\n");

        fs::write(&path, "{\"a\":1}\n{\"a\"").unwrap();
        assert!(matches!(
            append(root, JOURNAL, "{}", &lock),
            Err(Error::IncompleteFinalLine)
        ));
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"a\":1}\n{\"a\"");

        let cap = usize::try_from(REGISTRY_CAP).unwrap();
        let almost = "x".repeat(cap - 3) + "\n";
        fs::write(&path, &almost).unwrap();
        append(root, JOURNAL, "y", &lock).unwrap();
        assert_eq!(fs::metadata(&path).unwrap().len(), REGISTRY_CAP);
        assert!(matches!(
            append(root, JOURNAL, "", &lock),
            Err(Error::StoreFull)
        ));
        // A record no store could take says so (with bmad-plus's text).
        fs::write(&path, "").unwrap();
        let huge = "z".repeat(cap);
        let refused = append(root, JOURNAL, &huge, &lock).unwrap_err();
        assert_eq!(refused.to_string(), crate::messages::STORE_FULL);
        assert!(matches!(
            refused,
            Error::RecordTooLarge { size, .. } if size == REGISTRY_CAP + 1
        ));
        assert_eq!(fs::read_to_string(&path).unwrap(), "");
    }

    #[test]
    fn an_append_at_the_end_looks_at_the_size_and_the_last_byte_only() {
        const RECORDS: &str = ".bmad/records/reinforcements.ndjson";
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let lock = WriterLock::acquire(root).unwrap();
        // The folder is made with the first line.
        prepare_at_end(root, RECORDS, 7, &lock)
            .unwrap()
            .write("{\"a\":1}")
            .unwrap();
        let path = root.join(RECORDS);
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"a\":1}\n");
        // A line that is not UTF-8 is no reason to refuse (doctor names it); a torn end is.
        fs::write(&path, b"\xff\xfe\n").unwrap();
        prepare_at_end(root, RECORDS, 2, &lock)
            .unwrap()
            .write("{}")
            .unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"\xff\xfe\n{}\n");
        fs::write(&path, "{}\n{\"a\"").unwrap();
        assert!(matches!(
            prepare_at_end(root, RECORDS, 2, &lock),
            Err(Error::IncompleteFinalLine)
        ));
        let cap = usize::try_from(REGISTRY_CAP).unwrap();
        fs::write(&path, "x".repeat(cap - 3) + "\n").unwrap();
        assert!(prepare_at_end(root, RECORDS, 1, &lock).is_ok());
        assert!(matches!(
            prepare_at_end(root, RECORDS, 2, &lock),
            Err(Error::StoreFull)
        ));
    }
}
