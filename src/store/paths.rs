//! Path confinement and the two ways of reading a memory file (docs §3.1, §3.2, §5).
//!
//! [`confine`] is the gate every registry path passes: a normalized project-relative path that
//! stays inside the root and crosses no symbolic link from the root down (the walk itself, on
//! directory handles, lives in [`confined`]). [`read_registry`] is the confined reader (regular
//! file, at most 2 MiB, valid UTF-8). [`read_loose`] reads as bmad-plus's lexical recall does
//! (invalid UTF-8 replaced), within bounds: it never blocks on a FIFO, reads only regular files
//! of at most 64 MiB, and follows a link only to a file inside the folder it is given; anything
//! else is a [`Skip`] the caller turns into a warning.
//!
//! The root is compared lexically (absolute, `.`/`..` resolved without touching the disk), never
//! through its real path, as bmad-plus does.

use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

use crate::error::{Error, Result};
use crate::store::confined;
use crate::store::layout::LOOSE_CAP;

/// docs §3.1: the absolute path of the memory path `rel` under `root`, refused unless it is a
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
pub(crate) fn confine(root: &Path, rel: &str) -> Result<PathBuf> {
    confined::locate(root, rel, false).map(|target| target.path().to_path_buf())
}

/// docs §3.2, the confined reader: `Ok(None)` when the file is absent and `missing_ok`, else the
/// text of a regular file of at most 2 MiB that is valid UTF-8.
///
/// # Errors
/// Confinement errors, `Memory source must be …`, or Node's `ENOENT` text when a required file
/// is missing.
pub(crate) fn read_registry(root: &Path, rel: &str, missing_ok: bool) -> Result<Option<String>> {
    read_registry_bytes(root, rel, missing_ok)?
        .map(|bytes| String::from_utf8(bytes).map_err(|_| Error::SourceNotUtf8))
        .transpose()
}

/// [`read_registry`] without the UTF-8 check, for a caller that must take the bytes as they are
/// (a torn final line may end in the middle of a character).
///
/// # Errors
/// As [`read_registry`], except `Memory source must contain valid UTF-8.`
pub(crate) fn read_registry_bytes(
    root: &Path,
    rel: &str,
    missing_ok: bool,
) -> Result<Option<Vec<u8>>> {
    Ok(confined::locate(root, rel, false)?
        .read(missing_ok)?
        .map(|(bytes, _)| bytes))
}

/// What stands at a path a command writes to (an output file), when it is not a regular file
/// it may replace: a folder, a link, a special file — as the refusal names it. `meta` is the
/// path's own metadata (`symlink_metadata`, links not followed).
#[must_use]
pub(crate) fn not_regular(meta: &fs::Metadata) -> Option<&'static str> {
    let kind = meta.file_type();
    if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("a folder")
    } else if kind.is_symlink() {
        Some("a symbolic link")
    } else {
        Some("a special file (FIFO, device or socket)")
    }
}

/// Why a loose read left a file out. Its text says why, after `<file> skipped: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Skip {
    /// A FIFO, a device, a socket: opening or reading it could block or never end.
    NotRegular,
    /// Over [`LOOSE_CAP`]; the size seen.
    TooLarge(u64),
    /// Grew past [`LOOSE_CAP`] while being read.
    Grew,
    /// A link (the file itself or a folder above it) that resolves outside the folder the read
    /// is confined to.
    Outside { target: PathBuf, within: PathBuf },
    /// A link to something that is not a regular file (a folder, a FIFO, a device).
    LinkNotRegular(PathBuf),
    /// A link that cannot be resolved (a loop, a permission), with the reason.
    Unresolvable(String),
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::NotRegular => f.write_str("not a regular file"),
            Skip::TooLarge(size) => write!(f, "{size} bytes, over the 64 MiB read limit"),
            Skip::Grew => f.write_str("grew past the 64 MiB read limit while being read"),
            Skip::Outside { target, within } => write!(
                f,
                "resolves to {}, outside {}",
                target.display(),
                within.display()
            ),
            Skip::LinkNotRegular(target) => {
                write!(f, "a link to {}, not a regular file", target.display())
            }
            Skip::Unresolvable(reason) => write!(f, "a link that cannot be resolved ({reason})"),
        }
    }
}

impl Skip {
    /// The warning line for the file shown as `shown`.
    #[must_use]
    pub(crate) fn warning(&self, shown: &str) -> String {
        format!("warning: {shown} skipped: {self}")
    }
}

/// What a loose read found: the content, no file, or a file left out (and why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Loose<T> {
    Read(T),
    Missing,
    Skipped(Skip),
}

impl<T> Loose<T> {
    /// The content, if any; a skip's warning, naming the file as `shown`, goes to `warnings`.
    pub(crate) fn or_warn(self, shown: &str, warnings: &mut Vec<String>) -> Option<T> {
        match self {
            Loose::Read(content) => Some(content),
            Loose::Missing => None,
            Loose::Skipped(skip) => {
                warnings.push(skip.warning(shown));
                None
            }
        }
    }

    /// The content transformed, the other cases kept.
    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> Loose<U> {
        match self {
            Loose::Read(content) => Loose::Read(f(content)),
            Loose::Missing => Loose::Missing,
            Loose::Skipped(skip) => Loose::Skipped(skip),
        }
    }
}

/// Reads `path` as bmad-plus's lexical recall does (invalid UTF-8 replaced by U+FFFD, a
/// byte-order mark kept), with the bounds bmad-plus lacks: the file is opened without blocking
/// and read only if it is a regular file of at most [`LOOSE_CAP`] bytes; a link (the file or a
/// folder above it) is followed only when it resolves inside `within` (compared by real
/// paths). `Missing` when the file, or a link's target, does not exist.
///
/// # Errors
/// Node's `EISDIR` text for a directory in the file's place; any other I/O error with its path.
pub(crate) fn read_loose(path: &Path, within: &Path) -> Result<Loose<String>> {
    read_loose_into(path, within, Vec::new())
}

/// The bytes [`read_loose`] decodes, for a caller that must keep them as they are.
///
/// # Errors
/// As [`read_loose`].
pub(crate) fn read_loose_bytes(path: &Path, within: &Path) -> Result<Loose<Vec<u8>>> {
    read_bounded(path, within, Vec::new())
}

/// [`read_loose`] into `buffer`'s memory (its content is dropped): a caller reading many large
/// files one after another spares the kernel a fresh page for every 4 KiB read.
///
/// # Errors
/// As [`read_loose`].
pub(crate) fn read_loose_into(
    path: &Path,
    within: &Path,
    buffer: Vec<u8>,
) -> Result<Loose<String>> {
    Ok(read_bounded(path, within, buffer)?.map(decode_lossy))
}

/// Opens without following a final link and without blocking (a FIFO with no writer would
/// otherwise wait forever).
fn open_nonblocking(path: &Path) -> io::Result<fs::File> {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    Ok(rustix::fs::open(path, flags, Mode::empty())?.into())
}

/// Whether `e` is `errno`. `ELOOP` and `ENXIO` have no stable `io::ErrorKind` of their own
/// (`FilesystemLoop` is still unstable), so they are told apart by number.
fn is_errno(e: &io::Error, errno: Errno) -> bool {
    e.raw_os_error() == Some(errno.raw_os_error())
}

fn read_bounded(path: &Path, within: &Path, mut buffer: Vec<u8>) -> Result<Loose<Vec<u8>>> {
    let (file, link_target) = match open_nonblocking(path) {
        Ok(file) => (file, None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Loose::Missing),
        Err(e) if is_errno(&e, Errno::LOOP) => match open_link(path, within)? {
            Ok((file, target)) => (file, Some(target)),
            Err(found) => return Ok(found),
        },
        // A socket (or a FIFO some systems refuse to open this way).
        Err(e) if is_errno(&e, Errno::NXIO) => {
            return Ok(Loose::Skipped(Skip::NotRegular));
        }
        Err(e) if e.kind() == io::ErrorKind::IsADirectory => return Err(Error::IsDirectory),
        Err(e) => return Err(Error::io("cannot read", path, e)),
    };
    let meta = file
        .metadata()
        .map_err(|e| Error::io("cannot inspect", path, e))?;
    if !meta.is_file() {
        return match link_target {
            Some(target) => Ok(Loose::Skipped(Skip::LinkNotRegular(target))),
            None if meta.is_dir() => Err(Error::IsDirectory),
            None => Ok(Loose::Skipped(Skip::NotRegular)),
        };
    }
    if link_target.is_none() {
        // The file is no link, but a folder above it may be.
        if let Some(found) = outside(path, &file, within)? {
            return Ok(found);
        }
    }
    if meta.len() > LOOSE_CAP {
        return Ok(Loose::Skipped(Skip::TooLarge(meta.len())));
    }
    buffer.clear();
    buffer.reserve(usize::try_from(meta.len()).unwrap_or(0));
    // One byte past the cap, so that a file growing while it is read is caught.
    file.take(LOOSE_CAP + 1)
        .read_to_end(&mut buffer)
        .map_err(|e| Error::io("cannot read", path, e))?;
    if buffer.len() as u64 > LOOSE_CAP {
        return Ok(Loose::Skipped(Skip::Grew));
    }
    Ok(Loose::Read(buffer))
}

/// What was reached, or what the read finds instead.
type Opened<T = (fs::File, PathBuf)> = std::result::Result<T, Loose<Vec<u8>>>;

/// Opens the target of the link `path` if it resolves inside `within` (the file and its real
/// path); else what the read finds instead (a dangling link is a missing file).
fn open_link(path: &Path, within: &Path) -> Result<Opened> {
    let target = match fs::canonicalize(path) {
        Ok(target) => target,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Err(Loose::Missing)),
        Err(e) => return Ok(Err(Loose::Skipped(Skip::Unresolvable(e.to_string())))),
    };
    let target = match inside(target, within)? {
        Ok(target) => target,
        Err(found) => return Ok(Err(found)),
    };
    match open_nonblocking(&target) {
        Ok(file) => Ok(Ok((file, target))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Err(Loose::Missing)),
        Err(e) if is_errno(&e, Errno::NXIO) => {
            Ok(Err(Loose::Skipped(Skip::LinkNotRegular(target))))
        }
        // Swapped for another link since it was resolved.
        Err(e) if is_errno(&e, Errno::LOOP) => {
            Ok(Err(Loose::Skipped(Skip::Unresolvable(e.to_string()))))
        }
        Err(e) => Err(Error::io("cannot read", &target, e)),
    }
}

/// What the read finds instead when `path`'s real path (links in the folders above it
/// resolved) leaves `within`; `None` when it stays inside. The real path is the one the kernel
/// gives for the open `file` (so it is the file actually read, whatever was swapped since),
/// else, where `/proc` cannot tell, the path resolved again.
fn outside(path: &Path, file: &fs::File, within: &Path) -> Result<Option<Loose<Vec<u8>>>> {
    let target = match opened_path(file) {
        Some(target) => target,
        None => match fs::canonicalize(path) {
            Ok(target) => target,
            // Removed since it was opened.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Some(Loose::Missing)),
            Err(e) => return Err(Error::io("cannot resolve", path, e)),
        },
    };
    Ok(inside(target, within)?.err())
}

/// The absolute path the kernel knows the open `file` by (`/proc/self/fd/<n>`), when it has
/// one that still names the file (not one it marks ` (deleted)`).
fn opened_path(file: &fs::File) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let target = fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()?;
    let is_named = target.is_absolute() && !target.as_os_str().as_bytes().ends_with(b" (deleted)");
    is_named.then_some(target)
}

/// The real path `target` when it lies inside `within`'s real path (links above the project
/// are the user's business, so the comparison is between real paths); else the skip that says
/// where it leads.
fn inside(target: PathBuf, within: &Path) -> Result<Opened<PathBuf>> {
    let real_within = real_path(within)?;
    if target.starts_with(&real_within) {
        Ok(Ok(target))
    } else {
        Ok(Err(Loose::Skipped(Skip::Outside {
            target,
            within: within.to_path_buf(),
        })))
    }
}

/// The real path of a folder reads are confined to, resolved once per run: a recall reads
/// every note file of the same project, and links above it are the user's business.
fn real_path(within: &Path) -> Result<PathBuf> {
    static KNOWN: std::sync::Mutex<Vec<(PathBuf, PathBuf)>> = std::sync::Mutex::new(Vec::new());
    let mut known = KNOWN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, real)) = known.iter().find(|(path, _)| path == within) {
        return Ok(real.clone());
    }
    let real = fs::canonicalize(within).map_err(|e| Error::io("cannot resolve", within, e))?;
    known.push((within.to_path_buf(), real.clone()));
    Ok(real)
}

/// UTF-8 text with every invalid sequence replaced by U+FFFD, as Node decodes it.
#[must_use]
pub(crate) fn decode_lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::layout::REGISTRY_CAP;
    use std::os::unix::fs::symlink;

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

    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success());
    }

    #[test]
    fn loose_reader_follows_links_inside_and_replaces_bad_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("t"), b"\xef\xbb\xbfa\xffb").unwrap();
        symlink(root.join("t"), root.join("link")).unwrap();
        symlink("t", root.join("relative")).unwrap();
        for name in ["t", "link", "relative"] {
            assert_eq!(
                read_loose(&root.join(name), root).unwrap(),
                Loose::Read("\u{feff}a\u{fffd}b".to_owned()),
                "{name}"
            );
        }
        symlink(root.join("gone"), root.join("dangling")).unwrap();
        assert_eq!(
            read_loose(&root.join("dangling"), root).unwrap(),
            Loose::Missing
        );
        assert_eq!(
            read_loose(&root.join("gone"), root).unwrap(),
            Loose::Missing
        );
        assert!(matches!(read_loose(root, root), Err(Error::IsDirectory)));
    }

    #[test]
    fn loose_reader_skips_what_it_must_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = &dir.path().join("project");
        fs::create_dir(root).unwrap();
        let real_root = fs::canonicalize(root).unwrap();
        fs::write(dir.path().join("outside.md"), "x").unwrap();
        fs::create_dir(dir.path().join("folder")).unwrap();
        fs::write(dir.path().join("folder/inner.md"), "x").unwrap();
        mkfifo(&root.join("fifo"));
        fs::create_dir(root.join("sub")).unwrap();
        symlink(dir.path().join("outside.md"), root.join("out")).unwrap();
        symlink("/dev/zero", root.join("zero")).unwrap();
        symlink(root.join("fifo"), root.join("to-fifo")).unwrap();
        symlink(root.join("sub"), root.join("to-dir")).unwrap();
        symlink(dir.path().join("folder"), root.join("linked-folder")).unwrap();
        let sparse = fs::File::create(root.join("sparse")).unwrap();
        sparse.set_len(LOOSE_CAP + 1).unwrap();
        let skipped = |name: &str| match read_loose(&root.join(name), root).unwrap() {
            Loose::Skipped(skip) => skip,
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!(skipped("fifo"), Skip::NotRegular);
        assert_eq!(skipped("sparse"), Skip::TooLarge(LOOSE_CAP + 1));
        assert_eq!(
            skipped("to-fifo"),
            Skip::LinkNotRegular(real_root.join("fifo"))
        );
        assert_eq!(
            skipped("to-dir"),
            Skip::LinkNotRegular(real_root.join("sub"))
        );
        assert_eq!(
            skipped("zero"),
            Skip::Outside {
                target: PathBuf::from("/dev/zero"),
                within: root.clone(),
            }
        );
        assert!(matches!(skipped("out"), Skip::Outside { .. }));
        assert!(matches!(
            skipped("linked-folder/inner.md"),
            Skip::Outside { .. }
        ));
        // The same files are read when the folder they are confined to holds them.
        assert_eq!(
            read_loose(&root.join("out"), dir.path()).unwrap(),
            Loose::Read("x".to_owned())
        );
        assert_eq!(
            skipped("zero").warning("notes/zero"),
            format!(
                "warning: notes/zero skipped: resolves to /dev/zero, outside {}",
                root.display()
            )
        );
    }

    #[test]
    fn loose_reader_into_a_used_buffer_reads_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("t"), b"\xef\xbb\xbfa\xffb").unwrap();
        fs::write(root.join("short"), b"xy").unwrap();
        symlink(root.join("t"), root.join("link")).unwrap();
        symlink(root.join("gone"), root.join("dangling")).unwrap();
        mkfifo(&root.join("fifo"));
        let used = || b"left over from the last file, longer than the next".to_vec();
        for name in ["t", "short", "link", "dangling", "gone", "fifo"] {
            let path = root.join(name);
            assert_eq!(
                read_loose_into(&path, root, used()).unwrap(),
                read_loose(&path, root).unwrap(),
                "{name}"
            );
        }
        assert!(matches!(
            read_loose_into(root, root, used()),
            Err(Error::IsDirectory)
        ));
    }
}
