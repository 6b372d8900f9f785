//! Shared by the file-reading targets: one temporary project per fuzzing process.

#![allow(dead_code)] // Each target uses its own subset.

use std::fs;
use std::path::{Path, PathBuf};

/// A fresh, empty project folder for this process (`<tmp>/bmad-mem-fuzz-<target>-<pid>`),
/// canonical (Nexus refuses a root reached through links, and `/tmp` may be one).
pub fn project(target: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bmad-mem-fuzz-{target}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create the temporary project");
    fs::canonicalize(&dir).expect("canonicalize the temporary project")
}

/// Writes `bytes` to `root/relative`, creating folders.
pub fn write(root: &Path, relative: &str, bytes: &[u8]) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().expect("a parent")).expect("create folders");
    fs::write(path, bytes).expect("write the fuzz input");
}
