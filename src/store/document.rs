//! Rewriting a whole JSON document atomically (docs §3.5).
//!
//! Pretty JSON plus `\n`, at most 2 MiB, written to `<file>.<uuid>.tmp` (created exclusively,
//! so a link planted there is never followed), synced, then renamed over the target: a reader
//! sees the old document or the new one, never half of either. The temporary file is removed
//! on failure.

use std::path::Path;

use crate::error::{Error, Result};
use crate::js::json::Value;
use crate::store::confined::{self};
use crate::store::layout::REGISTRY_CAP;
use crate::store::lock::WriterLock;

/// Writes `value` as the document `rel` (docs §3.5): the temporary file is created and renamed
/// relative to one handle on the document's folder, opened from the root without following
/// links, so a link swapped in meanwhile is replaced, never written through.
///
/// # Errors
/// Confinement errors, `Memory store exceeds 2 MiB.`, I/O errors naming the file.
pub(crate) fn write(root: &Path, rel: &str, value: &Value, _lock: &WriterLock) -> Result<()> {
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
    use crate::store::confined::Dir;
    use crate::store::temporaries::{hold_for_temporaries, sweep_temporaries, temporary_stem};
    use std::fs;

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
    fn temporary_names() {
        let uuid = "0c7f9a3e-1d2b-4c5d-8e9f-a0b1c2d3e4f5";
        assert_eq!(
            temporary_stem(&format!("context.md.{uuid}.tmp")),
            Some("context.md")
        );
        assert_eq!(
            temporary_stem(&format!(".brain-link.{uuid}.tmp")),
            Some(".brain-link")
        );
        for name in [
            format!("{uuid}.tmp"),
            format!(".{uuid}.tmp"),
            "context.md.tmp".to_owned(),
            "context.md.not-a-uuid.tmp".to_owned(),
            format!("context.md.{uuid}"),
        ] {
            assert_eq!(temporary_stem(&name), None, "{name}");
        }
    }

    #[test]
    fn a_sweep_waits_for_no_one_and_spares_a_held_folder() {
        let dir = tempfile::tempdir().unwrap();
        let uuid = "0c7f9a3e-1d2b-4c5d-8e9f-a0b1c2d3e4f5";
        let ours = dir.path().join(format!("lessons.md.{uuid}.tmp"));
        let theirs = dir.path().join(format!("other.md.{uuid}.tmp"));
        fs::write(&ours, "x").unwrap();
        fs::write(&theirs, "x").unwrap();
        let writer = Dir::open_plain(dir.path()).unwrap();
        let sweeper = Dir::open_plain(dir.path()).unwrap();
        let hold = hold_for_temporaries(&writer).unwrap();
        sweep_temporaries(&sweeper, |stem| stem == "lessons.md");
        assert!(ours.exists(), "a live writer's temporary file was removed");
        drop(hold);
        sweep_temporaries(&sweeper, |stem| stem == "lessons.md");
        assert!(!ours.exists() && theirs.exists());
    }

    #[test]
    fn a_sweep_stays_in_the_folder_its_handle_opened() {
        let base = tempfile::tempdir().unwrap();
        let uuid = "0c7f9a3e-1d2b-4c5d-8e9f-a0b1c2d3e4f5";
        let (folder, outside) = (base.path().join("sessions"), base.path().join("outside"));
        fs::create_dir(&folder).unwrap();
        fs::create_dir(&outside).unwrap();
        let name = format!("notes.md.{uuid}.tmp");
        fs::write(folder.join(&name), "dead").unwrap();
        fs::write(outside.join(&name), "not ours").unwrap();
        let handle = Dir::open_plain(&folder).unwrap();
        // The folder is swapped for a link after its handle was opened.
        fs::rename(&folder, base.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(&outside, &folder).unwrap();
        sweep_temporaries(&handle, |stem| stem == "notes.md");
        assert!(!base.path().join("moved").join(&name).exists());
        assert_eq!(fs::read(outside.join(&name)).unwrap(), b"not ours");
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
