//! Nexus's own path rules, on path strings as Node has them: `safeTarget` (the confinement of
//! every file the view opens), `relative` (the rule for every path a run names), and
//! `path.posix.normalize` / `path.join`.
//!
//! Why not the store's confinement (`store::paths`, `store::confined`): the two walk different
//! paths and say different things, and each must say exactly what its own program says.
//! * The store opens the project root following links (what lies above the root is the user's
//!   business) and walks handles below it; Nexus refuses a link anywhere from `/` down, so a
//!   project reached through a linked folder is refused here and accepted there.
//! * Nexus requires the target itself to be a regular file (`Adapter target is not a regular
//!   file: …`) and names the offending component's absolute path in each refusal (`Adapter path
//!   contains a symlink or junction: /abs/part`); the store's four refusals name no path and
//!   are worded `Memory path …`.
//! * Nexus's input rule differs: it refuses `\`, `:` and NUL outright and joins with Node's
//!   string normalization, where the store normalizes `Path` components.
//! * The view reads nothing through a handle: it hashes files by path (as Nexus does, so a
//!   link swapped in after the check is Nexus's race too) and never writes, so the store's
//!   race-proof handles would buy nothing and change what is reported.
//!
//! Pure except for the `lstat` calls of [`confine_in`], which the caller supplies.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use crate::error::{Error, Result};
use crate::js::text::{trim, utf16_len};

use crate::nexus::refusal::nexus;

/// Nexus's state folder, relative to the project root.
pub(super) const BASE: &str = ".bmad-plus/nexus";

/// Nexus's `safeTarget`: the absolute path of the project-relative `file`, refused unless it is
/// a plain relative path inside `root` whose existing components, walked from `/`, are
/// directories (all but the target, which must be a regular file) and never links.
pub(super) fn confine(root: &str, file: &str) -> Result<String> {
    confine_in(root, file, &|path| fs::symlink_metadata(path), None).map(|confined| confined.path)
}

/// A path that passed [`confine`], with what `lstat` said of it (`None`: it does not exist).
pub(super) struct Confined {
    pub(super) path: String,
    pub(super) meta: Option<fs::Metadata>,
}

/// [`confine`], looking at each component with `lstat` (which may remember what it saw).
/// `folders`, when given, holds folders whose every component `lstat` found to be a directory:
/// a path in one of them only has its last component looked at, and a folder found so is added.
pub(super) fn confine_in(
    root: &str,
    file: &str,
    lstat: &dyn Fn(&str) -> io::Result<fs::Metadata>,
    folders: Option<&Mutex<HashSet<String>>>,
) -> Result<Confined> {
    if file.is_empty()
        || file.contains(['\\', ':', '\0'])
        || file.starts_with('/')
        || file
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return Err(Error::refused(format!(
            "Adapter file must be a relative project path: {file}"
        )));
    }
    let target = join(root, file);
    let is_inside = if root == "/" {
        target.len() > 1
    } else {
        target
            .strip_prefix(root)
            .is_some_and(|rest| rest.len() > 1 && rest.starts_with('/'))
    };
    if !is_inside {
        return Err(Error::refused(format!(
            "Adapter path escapes the target project: {file}"
        )));
    }
    let parent = &target[..target.rfind('/').expect("an absolute path")];
    let lock = |folders: &Mutex<HashSet<String>>| {
        folders
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(parent)
    };
    let is_known = !parent.is_empty() && folders.is_some_and(lock);
    let (mut current, rest) = if is_known {
        (parent.to_owned(), &target[parent.len() + 1..])
    } else {
        (String::with_capacity(target.len()), &target[1..])
    };
    let mut target_meta = None;
    let mut has_reached_target = false;
    for part in rest.split('/') {
        current.push('/');
        current.push_str(part);
        let is_target = current.len() == target.len();
        has_reached_target = is_target;
        let meta = match lstat(&current) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => break,
            Err(e) => return Err(Error::io("cannot inspect", Path::new(&current), e)),
        };
        if meta.file_type().is_symlink() {
            return Err(Error::refused(format!(
                "Adapter path contains a symlink or junction: {current}"
            )));
        }
        if is_target && !meta.is_file() {
            return Err(Error::refused(format!(
                "Adapter target is not a regular file: {current}"
            )));
        }
        if !is_target && !meta.is_dir() {
            return Err(Error::refused(format!(
                "Adapter parent is not a directory: {current}"
            )));
        }
        if is_target {
            target_meta = Some(meta);
        }
    }
    if let Some(folders) = folders.filter(|_| has_reached_target && !is_known) {
        folders
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(parent.to_owned());
    }
    Ok(Confined {
        path: target,
        meta: target_meta,
    })
}

/// `docs/NEXUS.md` relative-path rule for every path a snapshot touches (Nexus's `relative`);
/// `allow_dot` admits `.` (a check folder).
pub(super) fn check_relative(text: Option<&str>, allow_dot: bool) -> Result<&str> {
    if allow_dot && text == Some(".") {
        return Ok(".");
    }
    let Some(text) =
        text.filter(|t| !trim(t).is_empty() && utf16_len(t) <= 500 && !t.contains('\0'))
    else {
        return Err(nexus("Relative path must be a nonempty bounded string."));
    };
    // Backslashes and colons are refused, so Windows' absolute forms reduce to a leading `/`.
    if text.contains(['\\', ':', '<', '>', '"', '|', '?', '*'])
        || text.chars().any(|c| u32::from(c) < 32)
        || text.starts_with('/')
        || normalize(text) != text
        || text == ".."
        || text.starts_with("../")
    {
        return Err(nexus(format!("Unsafe relative path: {text}")));
    }
    if text.split('/').any(|part| {
        part.is_empty()
            || part == "."
            || part.ends_with('.')
            || part.ends_with(' ')
            || is_reserved_name(part)
    }) {
        return Err(nexus(format!("Nonportable path: {text}")));
    }
    Ok(text)
}

/// `/^(con|prn|aux|nul|com[1-9]|lpt[1-9])(?:\.|$)/i`: a Windows device name, with or without
/// an extension.
fn is_reserved_name(part: &str) -> bool {
    let stem = part.split('.').next().unwrap_or(part).as_bytes();
    let is = |name: &[u8]| stem.eq_ignore_ascii_case(name);
    match stem {
        [_, _, _] => is(b"con") || is(b"prn") || is(b"aux") || is(b"nul"),
        [a, b, c, digit] => {
            (b'1'..=b'9').contains(digit)
                && ([a, b, c].map(u8::to_ascii_lowercase) == *b"com"
                    || [a, b, c].map(u8::to_ascii_lowercase) == *b"lpt")
        }
        _ => false,
    }
}

/// Node's `path.posix.normalize`: `.` segments and repeated slashes dropped, `..` folded into
/// the segment before it, a trailing slash kept.
fn normalize(path: &str) -> String {
    if is_normalized(path) {
        return path.to_owned();
    }
    normalize_segments(path)
}

/// [`normalize`] the long way: segment by segment.
fn normalize_segments(path: &str) -> String {
    if path.is_empty() {
        return ".".to_owned();
    }
    let is_absolute = path.starts_with('/');
    let has_trailing_slash = path.ends_with('/');
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if segments.last().is_some_and(|last| *last != "..") {
                    segments.pop();
                } else if !is_absolute {
                    segments.push("..");
                }
            }
            _ => segments.push(segment),
        }
    }
    let mut out = segments.join("/");
    if out.is_empty() {
        return match (is_absolute, has_trailing_slash) {
            (true, _) => "/".to_owned(),
            (false, true) => "./".to_owned(),
            (false, false) => ".".to_owned(),
        };
    }
    if has_trailing_slash {
        out.push('/');
    }
    if is_absolute {
        out.insert(0, '/');
    }
    out
}

/// Whether [`normalize`] gives `path` back as it is: one optional leading and trailing slash
/// around segments that are neither empty, `.` nor `..`.
fn is_normalized(path: &str) -> bool {
    let body = path.strip_prefix('/').unwrap_or(path);
    let body = body.strip_suffix('/').unwrap_or(body);
    !body.is_empty()
        && body
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
}

/// Node's `path.join(root, file)` for an absolute `root`.
pub(super) fn join(root: &str, file: &str) -> String {
    if file.is_empty() {
        return normalize(root);
    }
    let joined = format!("{root}/{file}");
    if is_normalized(&joined) {
        return joined;
    }
    normalize(&joined)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[track_caller]
    fn relative(path: &str, expected: std::result::Result<(), &str>) {
        let got = check_relative(Some(path), false)
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert_eq!(got, expected.map_err(str::to_owned), "{path:?}");
    }

    #[test]
    fn the_relative_path_rule() {
        let bounded = Err("Nexus: Relative path must be a nonempty bounded string.");
        for ok in [
            "a",
            "src/a.js",
            "a/b/c",
            "..a",
            "a..b/c",
            "con1",
            "com0",
            "lpt10.txt",
            "a b",
        ] {
            relative(ok, Ok(()));
        }
        relative(&"x".repeat(500), Ok(()));
        relative(&"😀".repeat(250), Ok(()));
        relative(&"x".repeat(501), bounded);
        relative(&"😀".repeat(251), bounded);
        relative("", bounded);
        relative(" \t", bounded);
        relative("a\0b", bounded);
        for path in [
            "a\\b", "c:x", "a<b", "a>b", "a\"b", "a|b", "a?b", "a*b", "a\u{1f}b",
        ] {
            relative(path, Err(&format!("Nexus: Unsafe relative path: {path}")));
        }
        for path in [
            "/a", "a//b", "./a", "a/./b", "a/../b", "a/..", "..", "../a", "a//",
        ] {
            relative(path, Err(&format!("Nexus: Unsafe relative path: {path}")));
        }
        for path in [
            ".",
            "./",
            "a/",
            "a.",
            "a/b ",
            "src/aux.js",
            "AUX",
            "Con.txt",
            "x/nul",
            "com1",
            "LPT9.log",
            "prn.a.b",
        ] {
            relative(path, Err(&format!("Nexus: Nonportable path: {path}")));
        }
        assert_eq!(check_relative(Some("."), true).unwrap(), ".");
        // A path that is not a string (a number, say) reaches the rule as `None`.
        assert_eq!(
            check_relative(None, false).unwrap_err().to_string(),
            "Nexus: Relative path must be a nonempty bounded string."
        );
    }

    #[test]
    fn posix_normalize_as_node_has_it() {
        for (path, normal) in [
            ("", "."),
            (".", "."),
            ("./", "./"),
            ("a/", "a/"),
            ("a//b", "a/b"),
            ("a/./b/", "a/b/"),
            ("a/../..", ".."),
            ("../../a", "../../a"),
            ("a/b/../../c", "c"),
            ("/a/../../b", "/b"),
            ("/", "/"),
            ("//a//", "/a/"),
            ("...", "..."),
        ] {
            assert_eq!(normalize(path), normal, "{path:?}");
        }
        assert_eq!(join("/r", "a/b"), "/r/a/b");
        assert_eq!(join("/r", "/x/"), "/r/x/");
        assert_eq!(join("/r", ""), "/r");
        assert_eq!(join("/", "a"), "/a");
    }

    proptest::proptest! {
        /// The shortcut for paths that are normal already gives what the long way gives.
        #[test]
        fn a_normal_path_is_its_own_normal_form(path in "[/.a]{0,8}") {
            if is_normalized(&path) {
                proptest::prop_assert_eq!(normalize_segments(&path), path.clone());
            }
            proptest::prop_assert_eq!(normalize(&path), normalize_segments(&path));
        }
    }

    #[test]
    fn confinement_messages_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        let text = root.to_string_lossy().into_owned();
        for bad in ["", "a\\b", "c:", "/abs", "a//b", "./a", "a/..", "a/"] {
            assert_eq!(
                confine(&text, bad).unwrap_err().to_string(),
                format!("Adapter file must be a relative project path: {bad}")
            );
        }
        fs::write(root.join("file"), "").unwrap();
        assert_eq!(
            confine(&text, "file/x").unwrap_err().to_string(),
            format!("Adapter parent is not a directory: {text}/file")
        );
        fs::create_dir(root.join("dir")).unwrap();
        assert_eq!(
            confine(&text, "dir").unwrap_err().to_string(),
            format!("Adapter target is not a regular file: {text}/dir")
        );
        symlink("nowhere", root.join("dangling")).unwrap();
        assert_eq!(
            confine(&text, "dangling/x").unwrap_err().to_string(),
            format!("Adapter path contains a symlink or junction: {text}/dangling")
        );
        assert_eq!(
            confine(&text, "missing/x").unwrap(),
            format!("{text}/missing/x")
        );
        assert_eq!(confine(&text, "file").unwrap(), format!("{text}/file"));
    }
}
