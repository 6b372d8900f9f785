//! Directory handles that keep every registry operation inside the project, even against a
//! link swapped in while we work.
//!
//! Checking a path and then opening it by name can be raced: a folder or file replaced by a
//! symbolic link between the check and the open sends the open elsewhere. So nothing here opens
//! a registry file by its full path. The project root is opened once — following links, since
//! what lies above the root is the user's business — then each folder below it is opened
//! relative to the previous handle with `O_NOFOLLOW|O_DIRECTORY` (created there with `mkdirat`
//! when a writer needs it), and the file itself is opened relative to its folder's handle with
//! `O_NOFOLLOW` and checked with `fstat` on the very descriptor that is then read or written.
//! Temporary files, renames, hard links and removals happen relative to that same folder
//! handle. A folder swapped for a link after its handle was opened does not move the handle:
//! the write still lands in the folder that was opened, inside the project; a file swapped for
//! a link is refused (`ELOOP`), never written through.
//!
//! Linux's `openat2` with `RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS` would do the walk in one call,
//! but each refused component needs its own message, and container sandboxes often forbid the
//! call; the walk is a handful of `openat`s, and one code path for every system.
//!
//! This module knows the four confinement refusals and the confined reader's rules, nothing of
//! the files' formats.

use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata};
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::error::{Error, Result};
use crate::js::path::resolve;
use crate::store::layout::REGISTRY_CAP;
use crate::store::numbered;

/// Folders are opened read-only, as folders, never through a link.
const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);
/// Every file open: never through a link, never blocking on a FIFO or a device (whose `fstat`
/// then refuses it), never inherited by a child.
const FILE_FLAGS: OFlags = OFlags::NOFOLLOW
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC);

/// An open folder inside the project (or the project root itself).
#[derive(Debug)]
pub(crate) struct Dir {
    file: File,
    path: PathBuf,
}

/// Where a project-relative path leads: the handle of its folder (`None` when a folder on the
/// way does not exist and none was created) and the final name.
#[derive(Debug)]
pub(crate) struct Target {
    dir: Option<Dir>,
    name: OsString,
    path: PathBuf,
}

/// Syncs many files at once: their `fsync`s run side by side on up to 16 threads, so that the
/// filesystem's journal commits them together (on ext4, a thousand small files take about a
/// tenth of a second this way, against seconds one after another). The first error is
/// returned, after every sync has run.
///
/// # Errors
/// The first file's sync that failed.
pub(crate) fn sync_files(files: &[&File]) -> io::Result<()> {
    const THREADS: usize = 16;
    if files.len() <= 1 {
        return files.iter().try_for_each(|f| f.sync_all());
    }
    let chunk = files.len().div_ceil(THREADS);
    std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().try_for_each(|f| f.sync_all())))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(io::Error::other("a sync thread panicked")))
            })
            .fold(Ok(()), Result::and)
    })
}

/// Walks the normalized project-relative path `rel` from a handle on `root`, one folder at a
/// time without following links, creating missing folders when `create_dirs` (never the root),
/// and looks at the final name without following it.
///
/// # Errors
/// The four confinement refusals (`Memory path must be a normalized project-relative path.`,
/// `… escapes project.`, `… cannot follow symbolic links or junctions.`, `Memory parent is not
/// a directory.`), or an I/O error naming the folder that could not be opened or created.
pub(crate) fn locate(root: &Path, rel: &str, create_dirs: bool) -> Result<Target> {
    let path = normalize(root, rel)?;
    let mut names: Vec<&OsStr> = Path::new(rel)
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    let name = names.pop().ok_or(Error::PathNotNormalized)?.to_os_string();
    let mut dir = Some(Dir::open_root(root)?);
    for folder in names {
        dir = match dir {
            Some(parent) => parent
                .open_child(folder, create_dirs)?
                .map(|(child, _)| child),
            None => None,
        };
    }
    if let Some(parent) = &dir {
        match parent.lstat(&name) {
            Ok(Some(FileType::Symlink)) => return Err(Error::PathSymlink),
            Ok(_) => {}
            Err(e) => return Err(Error::io("cannot inspect", &path, e)),
        }
    }
    Ok(Target { dir, name, path })
}

/// Opens (and, when `create`, makes) the project folder `rel` and its missing parents, never
/// through a link: the handle, and whether the folder itself had to be created.
///
/// # Errors
/// As [`locate`]; `Memory parent is not a directory.` when `rel` names something else.
pub(crate) fn open_dir(root: &Path, rel: &str, create: bool) -> Result<Option<(Dir, bool)>> {
    let target = locate(root, rel, create)?;
    match target.dir {
        Some(parent) => parent.open_child(&target.name, create),
        None => Ok(None),
    }
}

impl Target {
    /// The absolute (lexical) path, for messages.
    #[must_use]
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The final name, inside [`Target::dir`].
    #[must_use]
    pub(crate) fn name(&self) -> &OsStr {
        &self.name
    }

    /// The folder's handle; `None` when a folder on the way does not exist.
    #[must_use]
    pub(crate) fn dir(&self) -> Option<&Dir> {
        self.dir.as_ref()
    }

    /// The folder's handle, or the I/O error `op` would meet on the missing folder.
    ///
    /// # Errors
    /// `ENOENT`, naming the target.
    pub(crate) fn require_dir(&self, op: &'static str) -> Result<&Dir> {
        self.dir
            .as_ref()
            .ok_or_else(|| Error::io(op, &self.path, io::Error::from(io::ErrorKind::NotFound)))
    }

    /// [`Target::require_dir`], keeping the handle.
    ///
    /// # Errors
    /// As [`Target::require_dir`].
    pub(crate) fn into_dir(self, op: &'static str) -> Result<Dir> {
        self.dir
            .ok_or_else(|| Error::io(op, &self.path, io::Error::from(io::ErrorKind::NotFound)))
    }

    /// The confined reader: `Ok(None)` when absent and `missing_ok`, else the bytes of a regular
    /// file of at most 2 MiB and what `fstat` said of it.
    ///
    /// # Errors
    /// As [`Dir::read`].
    pub(crate) fn read(&self, missing_ok: bool) -> Result<Option<(Vec<u8>, Metadata)>> {
        let read = match &self.dir {
            Some(dir) => dir.read(&self.name)?,
            None => None,
        };
        match read {
            None if !missing_ok => Err(Error::NotFound(self.path.clone())),
            read => Ok(read),
        }
    }
}

impl Dir {
    /// The project root, following links: only what lies below it is confined.
    fn open_root(root: &Path) -> Result<Self> {
        let fd = rustix::fs::openat(
            CWD,
            root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| Error::io("cannot open", root, e.into()))?;
        Ok(Self {
            file: File::from(fd),
            path: root.to_path_buf(),
        })
    }

    /// A folder that is not confined to the project (the user's own, such as an export's
    /// destination or the global brain), opened once, following links: what follows happens in
    /// the folder opened here, whatever its path comes to name meanwhile.
    ///
    /// # Errors
    /// The system's error (`NotFound` for a missing folder, `NotADirectory` for anything else).
    pub(crate) fn open_plain(path: &Path) -> io::Result<Self> {
        let fd = rustix::fs::openat(
            CWD,
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Self {
            file: File::from(fd),
            path: path.to_path_buf(),
        })
    }

    /// The folder `name` in this one, never through a link; created when missing and `create`.
    /// `Ok(None)` when missing and not created; the flag says whether it was created.
    ///
    /// # Errors
    /// `Memory paths cannot follow symbolic links or junctions.` for a link, `Memory parent is
    /// not a directory.` for anything else that is not a folder, I/O errors naming the folder.
    pub(crate) fn open_child(&self, name: &OsStr, create: bool) -> Result<Option<(Self, bool)>> {
        let path = self.path.join(name);
        let (mut tried_create, mut created) = (false, false);
        // A refused open is explained by a second look (`ENOTDIR` covers a link and a file
        // alike); a folder seen there was swapped back meanwhile, so the open is tried again,
        // a few times at most.
        for _ in 0..8 {
            match rustix::fs::openat(&self.file, name, DIR_FLAGS, Mode::empty()) {
                Ok(fd) => {
                    let file = File::from(fd);
                    return Ok(Some((Self { file, path }, created)));
                }
                Err(Errno::NOENT) if create && !tried_create => {
                    tried_create = true;
                    match rustix::fs::mkdirat(&self.file, name, Mode::from_raw_mode(0o777)) {
                        Ok(()) => created = true,
                        // Made by someone else just now: open what is there.
                        Err(Errno::EXIST) => {}
                        Err(e) => return Err(Error::io("cannot create", &path, e.into())),
                    }
                }
                Err(Errno::NOENT) => return Ok(None),
                Err(Errno::LOOP | Errno::NOTDIR) => match self.lstat(name) {
                    Ok(Some(FileType::Directory)) => {}
                    Ok(Some(FileType::Symlink)) => return Err(Error::PathSymlink),
                    _ => return Err(Error::ParentNotDirectory),
                },
                Err(e) => return Err(Error::io("cannot open", &path, e.into())),
            }
        }
        // Only a name that keeps changing between a link and a folder gets here.
        Err(Error::PathSymlink)
    }

    /// The type of `name` here, not following a link; `Ok(None)` when absent.
    ///
    /// # Errors
    /// Any other failure of `fstatat`.
    pub(crate) fn lstat(&self, name: &OsStr) -> io::Result<Option<FileType>> {
        match rustix::fs::statat(&self.file, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some(FileType::from_raw_mode(stat.st_mode))),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The folder's path, for messages.
    #[must_use]
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The folder's own descriptor (for `flock`).
    #[must_use]
    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    /// Opens `name` here with `flags` (plus no-follow, non-blocking, close-on-exec) and checks,
    /// with `fstat` on the descriptor returned, that it is a regular file. `Ok(None)` when it
    /// does not exist (and `flags` do not create it).
    ///
    /// # Errors
    /// `Memory paths cannot follow symbolic links or junctions.` for a link, `Memory source must
    /// be a regular file of at most 2 MiB.` for anything but a regular file, other I/O errors
    /// with the path.
    pub(crate) fn open_file(
        &self,
        name: &OsStr,
        flags: OFlags,
    ) -> Result<Option<(File, Metadata)>> {
        let path = self.path.join(name);
        let fd = match rustix::fs::openat(
            &self.file,
            name,
            flags | FILE_FLAGS,
            Mode::from_raw_mode(0o666),
        ) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(Errno::LOOP) => return Err(Error::PathSymlink),
            Err(Errno::ISDIR | Errno::NXIO) => return Err(Error::SourceNotRegular),
            Err(e) => return Err(Error::io("cannot open", &path, e.into())),
        };
        let file = File::from(fd);
        let meta = file
            .metadata()
            .map_err(|e| Error::io("cannot inspect", &path, e))?;
        if !meta.is_file() {
            return Err(Error::SourceNotRegular);
        }
        Ok(Some((file, meta)))
    }

    /// [`Dir::open_file`] where the file must be there: its absence is an error.
    ///
    /// # Errors
    /// As [`Dir::open_file`]; `cannot open` with `NotFound` when the file is absent.
    pub(crate) fn open_present(&self, name: &OsStr, flags: OFlags) -> Result<(File, Metadata)> {
        self.open_file(name, flags)?.ok_or_else(|| {
            Error::io(
                "cannot open",
                &self.path.join(name),
                io::ErrorKind::NotFound.into(),
            )
        })
    }

    /// The confined reader on `name`: `Ok(None)` when absent, else the bytes of a regular file
    /// of at most 2 MiB and what `fstat` said of it.
    ///
    /// # Errors
    /// As [`Dir::open_file`]; `Memory source must be a regular file of at most 2 MiB.` past the
    /// cap, `Memory source exceeded 2 MiB while reading.` when it grew while being read.
    pub(crate) fn read(&self, name: &OsStr) -> Result<Option<(Vec<u8>, Metadata)>> {
        let Some((file, meta)) = self.open_file(name, OFlags::RDONLY)? else {
            return Ok(None);
        };
        if meta.len() > REGISTRY_CAP {
            return Err(Error::SourceNotRegular);
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        // Read one byte past the cap so a file that grew since the `fstat` is still refused.
        file.take(REGISTRY_CAP + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io("cannot read", &self.path.join(name), e))?;
        if bytes.len() as u64 > REGISTRY_CAP {
            return Err(Error::SourceGrew);
        }
        Ok(Some((bytes, meta)))
    }

    /// Reads `name` whole when it holds at most `cap` bytes, never through a link: `Ok(None)`
    /// when absent.
    ///
    /// # Errors
    /// Node's `EISDIR` text for a folder; [`Error::SourceTooLarge`] over `cap` (checked on the
    /// open file, and again while reading, so a growing file is caught); as [`Dir::open_file`]
    /// otherwise (a FIFO or device is refused rather than waited on).
    pub(crate) fn read_bounded(&self, name: &OsStr, cap: u64) -> Result<Option<Vec<u8>>> {
        let opened = match self.open_file(name, OFlags::RDONLY) {
            Err(Error::SourceNotRegular)
                if self.lstat(name).ok().flatten() == Some(FileType::Directory) =>
            {
                return Err(Error::IsDirectory);
            }
            opened => opened?,
        };
        let Some((file, meta)) = opened else {
            return Ok(None);
        };
        if meta.len() > cap {
            return Err(Error::SourceTooLarge(meta.len()));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.take(cap + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io("cannot read", &self.path.join(name), e))?;
        if bytes.len() as u64 > cap {
            return Err(Error::SourceTooLarge(bytes.len() as u64));
        }
        Ok(Some(bytes))
    }

    /// Appends `bytes` to `name` (created when missing) in one write, then syncs it.
    ///
    /// # Errors
    /// As [`Dir::open_file`]; write errors naming the file.
    pub(crate) fn append(&self, name: &OsStr, bytes: &[u8]) -> Result<()> {
        let path = self.path.join(name);
        let flags = OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE;
        let (mut file, _) = self.open_present(name, flags)?;
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| Error::io("cannot append to", &path, e))
    }

    /// Creates `name` exclusively (a link or anything else already there is never followed or
    /// replaced): `Ok(None)` when the name is taken.
    ///
    /// # Errors
    /// I/O errors naming the file.
    pub(crate) fn create_new(&self, name: &OsStr) -> Result<Option<File>> {
        let path = self.path.join(name);
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | FILE_FLAGS;
        match rustix::fs::openat(&self.file, name, flags, Mode::from_raw_mode(0o666)) {
            Ok(fd) => Ok(Some(File::from(fd))),
            Err(Errno::EXIST) => Ok(None),
            Err(e) => Err(Error::io("cannot create", &path, e.into())),
        }
    }

    /// Creates `<name><suffix>` exclusively here, or `<name><suffix>-1`, `-2`, … while the name
    /// is taken (two runs at the same instant): a file kept aside is never overwritten. Returns
    /// the suffix the new file got, and the file.
    ///
    /// # Errors
    /// As [`Dir::create_new`].
    pub(crate) fn create_aside(&self, name: &OsStr, suffix: &str) -> Result<(String, File)> {
        for suffix in numbered::names(suffix, "", 1) {
            let mut candidate = name.to_os_string();
            candidate.push(&suffix);
            if let Some(file) = self.create_new(&candidate)? {
                return Ok((suffix, file));
            }
        }
        unreachable!("an unbounded counter always finds a free name")
    }

    /// Writes `bytes` to a fresh `<name>.<uuid>.tmp` here, created exclusively and synced, and
    /// returns its name. The caller renames or links it into place and removes it on failure.
    ///
    /// # Errors
    /// I/O errors naming the temporary file, which is removed when writing it fails.
    pub(crate) fn write_temp(&self, name: &OsStr, bytes: &[u8]) -> Result<OsString> {
        let (tmp, file) = self.write_temp_unsynced(name, bytes)?;
        if let Err(e) = file.sync_all() {
            drop(file);
            let _ = self.remove(&tmp);
            return Err(Error::io("cannot write", &self.path.join(&tmp), e));
        }
        Ok(tmp)
    }

    /// [`Dir::write_temp`] without the sync: the temporary file's name and the open file, for
    /// a writer of many files that syncs them together ([`sync_files`]) before it links or
    /// renames any into place.
    ///
    /// # Errors
    /// As [`Dir::write_temp`].
    pub(crate) fn write_temp_unsynced(
        &self,
        name: &OsStr,
        bytes: &[u8],
    ) -> Result<(OsString, File)> {
        let mut tmp = name.to_os_string();
        tmp.push(format!(".{}.tmp", uuid::Uuid::new_v4()));
        let path = self.path.join(&tmp);
        let mut file = self.create_new(&tmp)?.ok_or_else(|| {
            Error::io("cannot create", &path, io::ErrorKind::AlreadyExists.into())
        })?;
        if let Err(e) = file.write_all(bytes) {
            drop(file);
            let _ = self.remove(&tmp);
            return Err(Error::io("cannot write", &path, e));
        }
        Ok((tmp, file))
    }

    /// Replaces `name` with `bytes` atomically (temporary file, sync, rename in this folder): a
    /// reader sees the old content or the new, never half of either; nothing is left behind on
    /// failure. A link at `name` is replaced, never followed.
    ///
    /// # Errors
    /// I/O errors naming the file.
    pub(crate) fn replace(&self, name: &OsStr, bytes: &[u8]) -> Result<()> {
        let tmp = self.write_temp(name, bytes)?;
        self.rename(&tmp, name).map_err(|e| {
            let _ = self.remove(&tmp);
            Error::io("cannot write", &self.path.join(name), e)
        })
    }

    /// [`Dir::replace`] giving the new file the permission bits `mode` (set on the temporary
    /// file before the rename, so the file is never there without them: a git hook stays
    /// executable).
    ///
    /// # Errors
    /// I/O errors naming the file; nothing is left behind.
    pub(crate) fn replace_with_mode(&self, name: &OsStr, bytes: &[u8], mode: u32) -> Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let (tmp, file) = self.write_temp_unsynced(name, bytes)?;
        let set = file
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .and_then(|()| file.sync_all());
        drop(file);
        set.and_then(|()| self.rename(&tmp, name)).map_err(|e| {
            let _ = self.remove(&tmp);
            Error::io("cannot write", &self.path.join(name), e)
        })
    }

    /// Renames `from` to `to`, both in this folder.
    ///
    /// # Errors
    /// The system's error.
    pub(crate) fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        rustix::fs::renameat(&self.file, from, &self.file, to).map_err(Into::into)
    }

    /// Hard-links `from` as `to`, both in this folder; refused when `to` exists.
    ///
    /// # Errors
    /// The system's error (`AlreadyExists` when `to` is taken).
    pub(crate) fn hard_link(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        rustix::fs::linkat(&self.file, from, &self.file, to, AtFlags::empty()).map_err(Into::into)
    }

    /// Hard-links `from`, in this folder, as `to` in the folder `into`; refused when `to`
    /// exists. Atomic: the file appears under its new name whole or not at all.
    ///
    /// # Errors
    /// The system's error (`AlreadyExists` when `to` is taken).
    pub(crate) fn hard_link_into(&self, from: &OsStr, into: &Dir, to: &OsStr) -> io::Result<()> {
        rustix::fs::linkat(&self.file, from, &into.file, to, AtFlags::empty()).map_err(Into::into)
    }

    /// Syncs this folder, so that the names just created, linked or renamed in it survive a
    /// power cut.
    ///
    /// # Errors
    /// The system's error.
    pub(crate) fn sync(&self) -> io::Result<()> {
        self.file.sync_all()
    }

    /// Removes the file (or link) `name` from this folder.
    ///
    /// # Errors
    /// The system's error.
    pub(crate) fn remove(&self, name: &OsStr) -> io::Result<()> {
        rustix::fs::unlinkat(&self.file, name, AtFlags::empty()).map_err(Into::into)
    }

    /// Removes the empty folder `name` from this folder.
    ///
    /// # Errors
    /// The system's error (a folder that is not empty stays).
    pub(crate) fn remove_dir(&self, name: &OsStr) -> io::Result<()> {
        rustix::fs::unlinkat(&self.file, name, AtFlags::REMOVEDIR).map_err(Into::into)
    }

    /// The names in this folder, `.` and `..` left out.
    ///
    /// # Errors
    /// The system's error.
    pub(crate) fn names(&self) -> io::Result<Vec<OsString>> {
        use std::os::unix::ffi::OsStrExt;
        let mut names = Vec::new();
        for entry in rustix::fs::Dir::read_from(&self.file)? {
            let bytes = entry?.file_name().to_bytes().to_vec();
            if bytes != b"." && bytes != b".." {
                names.push(OsStr::from_bytes(&bytes).to_os_string());
            }
        }
        Ok(names)
    }
}

/// The lexical half of [`crate::store::paths::confine`]: `root/rel`, refused unless `rel` is a normalized
/// project-relative path that stays inside the root. Touches no disk.
///
/// # Errors
/// `Memory path must be a normalized project-relative path.`, `Memory path escapes project.`
pub(crate) fn normalize(root: &Path, rel: &str) -> Result<PathBuf> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    #[test]
    fn the_walk_creates_folders_and_refuses_links_below_the_root() {
        let base = tempfile::tempdir().unwrap();
        let real = base.path().join("real");
        fs::create_dir_all(real.join("p")).unwrap();
        symlink(&real, base.path().join("l")).unwrap();
        // A link above the root is followed; everything below it is confined.
        let root = base.path().join("l/p");
        let target = locate(&root, "a/b/file", true).unwrap();
        assert_eq!(target.path(), root.join("a/b/file"));
        target.dir().unwrap().append(target.name(), b"x\n").unwrap();
        assert_eq!(fs::read(real.join("p/a/b/file")).unwrap(), b"x\n");

        symlink(real.join("p/a"), real.join("p/c")).unwrap();
        assert!(matches!(
            locate(&root, "c/b/file", true),
            Err(Error::PathSymlink)
        ));
        assert!(matches!(
            locate(&root, "a/b/file/x", true),
            Err(Error::ParentNotDirectory)
        ));
        symlink(real.join("p/a/b/file"), real.join("p/a/b/link")).unwrap();
        assert!(matches!(
            locate(&root, "a/b/link", false),
            Err(Error::PathSymlink)
        ));
        assert!(locate(&root, "missing/x", false).unwrap().dir().is_none());
        assert!(!real.join("p/missing").exists());
    }

    #[test]
    fn a_link_swapped_in_after_the_walk_is_refused_not_followed() {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("p");
        fs::create_dir(&root).unwrap();
        let outside = base.path().join("outside");
        fs::write(&outside, b"secret").unwrap();
        let target = locate(&root, "journal", false).unwrap();
        // Planted between the walk and the open.
        symlink(&outside, root.join("journal")).unwrap();
        let dir = target.dir().unwrap();
        assert!(matches!(
            dir.append(target.name(), b"x"),
            Err(Error::PathSymlink)
        ));
        assert!(matches!(dir.read(target.name()), Err(Error::PathSymlink)));
        dir.replace(target.name(), b"new").unwrap();
        assert_eq!(fs::read(&outside).unwrap(), b"secret");
        assert_eq!(fs::read(root.join("journal")).unwrap(), b"new");
        assert_eq!(dir.names().unwrap(), [OsString::from("journal")]);
    }

    #[test]
    fn a_link_into_another_folder_never_replaces_an_existing_name() {
        let base = tempfile::tempdir().unwrap();
        fs::create_dir(base.path().join("archive")).unwrap();
        let memory = Dir::open_plain(base.path()).unwrap();
        let (archive, created) = memory
            .open_child(OsStr::new("archive"), true)
            .unwrap()
            .unwrap();
        assert!(!created);
        let name = OsStr::new("a.ndjson");
        let first = memory.write_temp(name, b"first\n").unwrap();
        memory.hard_link_into(&first, &archive, name).unwrap();
        let second = memory.write_temp(name, b"second\n").unwrap();
        let err = memory.hard_link_into(&second, &archive, name).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        archive.sync().unwrap();
        assert_eq!(
            fs::read(base.path().join("archive/a.ndjson")).unwrap(),
            b"first\n"
        );
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let base = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(base.path().join("fifo"))
            .status()
            .unwrap();
        assert!(status.success());
        let target = locate(base.path(), "fifo", false).unwrap();
        assert!(matches!(target.read(true), Err(Error::SourceNotRegular)));
        let dir = target.dir().unwrap();
        assert!(matches!(
            dir.append(target.name(), b"x"),
            Err(Error::SourceNotRegular)
        ));
    }
}
