//! Where a path really leads: the absolute path the kernel reaches for it, links followed, for
//! the checks that must judge a file by where an operation on it would land. Only
//! `lstat` and `readlink`: nothing is opened, read or written.

use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Most links followed while resolving one path (the kernel's own limit is 40).
const MAX_LINKS: usize = 40;

/// The path the kernel would reach for the absolute `path` once its missing folders are created
/// (as an agent's write tool does): every link of the part that exists followed (a link's `..`
/// applies to where the link leads), `.` dropped, and a name that does not exist yet kept as
/// written. A `..` after a missing name removes that name, so a path that climbs back out of
/// what is missing into existing folders (`src/new/../link/x`) has its links followed again
/// from there, as the kernel will once `src/new` exists.
///
/// # Errors
/// More than 40 links, or a link or folder that cannot be inspected.
pub(crate) fn real_path(path: &Path) -> io::Result<PathBuf> {
    let mut pending: Vec<OsString> = Vec::new();
    push_components(path, &mut pending);
    let mut current = PathBuf::from("/");
    let mut links = 0;
    // How many names at the end of `current` do not exist yet: `current` minus those is a real
    // path, links all followed, and a `..` that removes the last of them lands back on it.
    let mut missing = 0usize;
    while let Some(name) = pending.pop() {
        if name == "/" {
            current = PathBuf::from("/");
            missing = 0;
            continue;
        }
        if name == ".." {
            current.pop();
            missing = missing.saturating_sub(1);
            continue;
        }
        let next = current.join(&name);
        if missing == 0 {
            match std::fs::symlink_metadata(&next) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(io::Error::other("too many levels of symbolic links"));
                    }
                    let target = std::fs::read_link(&next)?;
                    push_components(&target, &mut pending);
                    continue;
                }
                Ok(_) => {}
                Err(e)
                    if e.kind() == io::ErrorKind::NotFound
                        || e.kind() == io::ErrorKind::NotADirectory =>
                {
                    missing = 1;
                }
                Err(e) => return Err(e),
            }
        } else {
            missing += 1;
        }
        current = next;
    }
    Ok(current)
}

/// Pushes the components of `path` onto `pending` so that the first is popped first; a root is
/// pushed as `/`.
fn push_components(path: &Path, pending: &mut Vec<OsString>) {
    let mut names: Vec<OsString> = Vec::new();
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) => names.push(OsString::from("/")),
            Component::CurDir => {}
            Component::ParentDir => names.push(OsString::from("..")),
            Component::Normal(name) => names.push(name.to_os_string()),
        }
    }
    pending.extend(names.into_iter().rev());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_paths_follow_links_and_keep_what_is_missing() {
        let tmp = tempfile::tempdir().unwrap();
        let base = real_path(tmp.path()).unwrap();
        std::fs::create_dir_all(base.join("a/b")).unwrap();
        std::os::unix::fs::symlink("a/b", base.join("l")).unwrap();
        std::os::unix::fs::symlink("../../x", base.join("a/b/up")).unwrap();
        std::os::unix::fs::symlink("loop", base.join("loop")).unwrap();
        assert_eq!(
            real_path(&base.join("l/new/f")).unwrap(),
            base.join("a/b/new/f")
        );
        // `..` after a link applies to where the link leads.
        assert_eq!(real_path(&base.join("l/../c")).unwrap(), base.join("a/c"));
        assert_eq!(real_path(&base.join("a/b/up/y")).unwrap(), base.join("x/y"));
        assert_eq!(
            real_path(&base.join("n/../m/./k")).unwrap(),
            base.join("m/k")
        );
        assert!(real_path(&base.join("loop/x")).is_err());
    }

    #[test]
    fn a_way_back_out_of_a_missing_folder_follows_links_again() {
        let tmp = tempfile::tempdir().unwrap();
        let base = real_path(tmp.path()).unwrap();
        std::fs::create_dir_all(base.join("p/src/secrets")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(base.join("p/src/file"), "").unwrap();
        std::os::unix::fs::symlink("secrets", base.join("p/src/link")).unwrap();
        std::os::unix::fs::symlink("../../outside", base.join("p/src/out")).unwrap();
        let real = |rel: &str| real_path(&base.join(rel)).unwrap();
        let secret = base.join("p/src/secrets/x");
        assert_eq!(real("p/src/link/x"), secret);
        assert_eq!(real("p/src/new/../link/x"), secret);
        assert_eq!(real("p/src/new/deeper/../../link/x"), secret);
        assert_eq!(real("p/new/../src/new/../link/x"), secret);
        // A file is no folder either: its way back out follows links too.
        assert_eq!(real("p/src/file/x/../../link/x"), secret);
        // Out of the project through a link after a missing folder.
        assert_eq!(real("p/src/new/../out/x"), base.join("outside/x"));
        // Still missing, still kept as written.
        assert_eq!(
            real("p/src/new/../new2/link/x"),
            base.join("p/src/new2/link/x")
        );
    }
}
