//! Node's `path.resolve` and `path.relative`, lexically, on POSIX paths: how bmad-plus joins a
//! project root and a relative path, and how it names a file relative to the root in output.
//! No I/O: links are not followed.

use std::path::{Component, Path, PathBuf};

/// `path` made absolute against `base` and normalized lexically, as Node's `path.resolve`
/// does: `.` dropped, `..` removes the previous component, links not followed.
#[must_use]
pub(crate) fn resolve(base: &Path, path: &Path) -> PathBuf {
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
pub(crate) fn relative(from: &Path, to: &Path) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
