//! What the Memory pack's command tests share: a project with its own temporary home, the
//! `.brain-link` text bmad-plus writes, and modification times set to a given day.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use super::TestProject;

/// A project whose runs see `HOME=<tempdir>/home` (created empty) and no `BMAD_PLUS_BRAIN`.
pub fn project() -> TestProject {
    let p = TestProject::new();
    let home = p.base().join("home");
    fs::create_dir(&home).expect("create the temporary home");
    p.env("HOME", &home).env("BMAD_PLUS_BRAIN", "")
}

/// The temporary home of [`project`]'s runs.
pub fn home(p: &TestProject) -> PathBuf {
    p.base().join("home")
}

/// `.brain-link` as bmad-plus writes it, plus a final newline.
pub fn link_text(brain: &str, kind: &str) -> String {
    format!(
        "{{\n  \"linked_brain\": \"{brain}\",\n  \"brain_type\": \"{kind}\",\n  \"linked_at\": \"2026-10-18T09:30:00.000Z\"\n}}\n"
    )
}

/// Sets the modification time of `path` to `iso` (a `YYYY-MM-DD` at UTC midnight).
pub fn set_mtime(path: &Path, day: &str) {
    let ms = bmad_mem::js::date::parse_timestamp(day).expect("a date");
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "positive, whole"
    )]
    let time = UNIX_EPOCH + Duration::from_millis(ms as u64);
    File::open(path)
        .and_then(|f| f.set_modified(time))
        .unwrap_or_else(|e| panic!("set mtime of {}: {e}", path.display()));
}

/// Sets the modification time of `dir` and of everything below it to `day`.
pub fn set_mtimes_below(dir: &Path, day: &str) {
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            set_mtimes_below(&entry.path(), day);
        } else {
            set_mtime(&entry.path(), day);
        }
    }
    set_mtime(dir, day);
}
