//! Disk snapshots as Nexus takes them, from the project's real path: a task's protected
//! snapshot (resources, check folders, executables), files and scope snapshots (unique paths
//! in UTF-16 order, each with the sha256 of its bytes), and the `lstat`s and folder checks of
//! [`super::paths`]'s confinement, each computed once per [`Disk`].
//!
//! Reads only; never follows a link inside the project (the confinement refuses it first).
//! A failure is remembered as its message, so asking again gives the same refusal.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{self, Read};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::js::json::{Object, Value, hex};
use crate::js::tape::Node;

use crate::js::text::utf16_cmp;
use crate::nexus::node::{field, is_str, is_text, list, object_keys, sort_text};
use crate::nexus::paths::{BASE, Confined, check_relative, confine, confine_in, join};
use crate::nexus::refusal::{enoent, malformed, nexus};

/// Largest file a snapshot hashes.
const FILE_LIMIT: u64 = 16 * 1024 * 1024;
/// Most files a scope snapshot walks.
const SCOPE_LIMIT: usize = 10_000;

/// The disk as Nexus sees it from the project's real path, with every hash it computed. Shared
/// by the threads of [`super::Nexus::prefetch`]: each memo computes a key once, whichever thread
/// asks first.
#[derive(Debug)]
pub(super) struct Disk {
    /// The real path of the project root, as text (Nexus works on path strings).
    root: String,
    /// File path (relative) → sha256 hex, or why it could not be hashed.
    files: Memo<std::result::Result<String, String>>,
    /// Executable path (as stored) → sha256 hex of its real file, or why not.
    commands: Memo<std::result::Result<String, String>>,
    /// Compact JSON of a scope list → the compact JSON of its scope snapshot, or why not.
    scopes: Memo<std::result::Result<String, String>>,
    /// Check folder (relative, as stored) → its absolute path, or why it is not one.
    directories: Memo<std::result::Result<String, String>>,
    /// Absolute path → what `lstat` said of it: each path of the project is looked at once.
    lstats: Memo<std::result::Result<fs::Metadata, (io::ErrorKind, String)>>,
    /// Absolute folders whose every component is a directory, not a link ([`confine_in`]).
    folders: Mutex<HashSet<String>>,
}

/// A map whose values are computed once: the first thread to ask computes, the others wait.
#[derive(Debug)]
struct Memo<T>(Mutex<HashMap<String, Arc<OnceLock<T>>>>);

impl<T> Default for Memo<T> {
    fn default() -> Self {
        Self(Mutex::new(HashMap::new()))
    }
}

impl<T: Clone> Memo<T> {
    fn get_or(&self, key: &str, compute: impl FnOnce() -> T) -> T {
        let cell = {
            let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            match map.get(key) {
                Some(cell) => Arc::clone(cell),
                None => Arc::clone(map.entry(key.to_owned()).or_default()),
            }
        };
        cell.get_or_init(compute).clone()
    }
}

impl Disk {
    /// The real path of the project root, as text.
    pub(super) fn root(&self) -> &str {
        &self.root
    }

    /// `docs/NEXUS.md` "the path rule": no link from `/` down to `.bmad-plus/nexus/`, the root a
    /// directory, then its real path.
    pub(super) fn open(root: &Path) -> Result<Self> {
        let lexical = root.to_string_lossy();
        confine(&lexical, &format!("{BASE}/.probe"))?;
        match fs::metadata(root) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(nexus("Project directory is not a directory.")),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(enoent("stat", &lexical)),
            Err(e) => return Err(Error::io("cannot inspect", root, e)),
        }
        let real = fs::canonicalize(root).map_err(|e| Error::io("cannot resolve", root, e))?;
        Ok(Self {
            root: real.to_string_lossy().into_owned(),
            files: Memo::default(),
            commands: Memo::default(),
            scopes: Memo::default(),
            directories: Memo::default(),
            lstats: Memo::default(),
            folders: Mutex::default(),
        })
    }

    /// `docs/NEXUS.md` "protected snapshot" of a task definition: resources, check folders and
    /// executables as they were when the plan was created.
    pub(super) fn protected_snapshot(&self, definition: Option<Node<'_>>) -> Result<()> {
        let Some(definition) = definition else {
            return Err(malformed("the task has no definition in the plan"));
        };
        let hashes = field(Some(definition), "resourceHashes");
        let keys = object_keys(hashes)?;
        let resources = self.files_snapshot(&keys)?;
        if !is_text(hashes, &resources) {
            return Err(nexus(
                "Protected verifier or agent resource changed since the plan was created.",
            ));
        }
        for check in list(field(Some(definition), "checks"), "checks")? {
            self.directory_at(field(Some(check), "cwd").and_then(Node::as_str))?;
            let hash = self.command_hash(field(Some(check), "command").and_then(Node::as_str))?;
            if !is_str(field(Some(check), "commandHash"), &hash) {
                return Err(nexus("Verifier executable changed since plan creation."));
            }
        }
        let execution = field(Some(definition), "execution").filter(|e| e.is_truthy());
        if let Some(execution) = execution {
            self.directory_at(field(Some(execution), "cwd").and_then(Node::as_str))?;
            let hash =
                self.command_hash(field(Some(execution), "command").and_then(Node::as_str))?;
            if !is_str(field(Some(execution), "commandHash"), &hash) {
                return Err(nexus("Worker executable changed since plan creation."));
            }
        }
        Ok(())
    }

    /// `docs/NEXUS.md` "files snapshot": unique paths in UTF-16 order, each with its sha256; the
    /// compact JSON of the result.
    pub(super) fn files_snapshot(&self, files: &[Value]) -> Result<String> {
        // `new Set(files)`: equal primitives collapse, in first-seen order; objects are distinct.
        let mut unique: Vec<&Value> = Vec::with_capacity(files.len());
        let mut seen_strings = HashSet::new();
        let mut seen_others: Vec<&Value> = Vec::new();
        for file in files {
            let is_new = match file {
                Value::String(s) => seen_strings.insert(s.as_str()),
                Value::Array(_) | Value::Object(_) => true,
                other if seen_others.contains(&other) => false,
                other => {
                    seen_others.push(other);
                    true
                }
            };
            if is_new {
                unique.push(file);
            }
        }
        // `Array.prototype.sort`: stable, by the text of each value in UTF-16 code units.
        unique.sort_by(|a, b| utf16_cmp(&sort_text(a), &sort_text(b)));
        let mut snapshot = Object::new();
        for file in unique {
            let file = check_relative(file.as_str(), false)?;
            let hash = self.file_hash(file)?;
            snapshot.insert(file, hash);
        }
        Ok(Value::Object(snapshot).compact())
    }

    /// The sha256 of a snapshot file, computed once per path.
    fn file_hash(&self, file: &str) -> Result<String> {
        self.files
            .get_or(file, || {
                self.read_file_hash(file).map_err(|e| e.to_string())
            })
            .map_err(Error::refused)
    }

    fn read_file_hash(&self, file: &str) -> Result<String> {
        // The confinement's look at the target is the `existsSync`/`statSync` Nexus does next.
        let Confined { path: target, meta } = self.confine(file)?;
        let Some(meta) = meta else {
            return Err(nexus(format!("Required file is missing: {file}")));
        };
        if meta.len() > FILE_LIMIT {
            return Err(nexus(format!(
                "File exceeds the 16 MiB snapshot limit: {file}"
            )));
        }
        hash_file(Path::new(&target))
    }

    /// `docs/NEXUS.md` "scope snapshot": files as they are, scope roots walked as directories.
    pub(super) fn scope_snapshot(&self, scopes: Option<Node<'_>>) -> Result<String> {
        let key = scopes.map_or("undefined", Node::compact);
        self.scopes
            .get_or(key, || self.walk_scopes(scopes).map_err(|e| e.to_string()))
            .map_err(Error::refused)
    }

    fn walk_scopes(&self, scopes: Option<Node<'_>>) -> Result<String> {
        let mut files = Vec::new();
        for scope in list(scopes, "scope")? {
            let Some(scope) = scope.as_str() else {
                return Err(malformed("a scope path is not a string"));
            };
            let target = join(&self.root, scope);
            // Nexus's `existsSync(target) && lstatSync(target).isFile()`: a regular file by
            // `lstat` is not a link, so it exists for `stat` too; one call says both.
            let is_file = self.lstat(&target).is_ok_and(|meta| meta.is_file());
            if is_file {
                self.confine(scope)?;
                files.push(Value::from(scope));
            } else {
                // A scope root that is itself a link fails here, before the walk sees it.
                self.confine(&format!("{scope}/.nexus-scope-probe"))?;
                self.walk(scope, &mut files)?;
            }
        }
        self.files_snapshot(&files)
    }

    /// Collects the regular files under `file`, refusing links and special files.
    fn walk(&self, file: &str, files: &mut Vec<Value>) -> Result<()> {
        let target = join(&self.root, file);
        let meta = match self.lstat(&target) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io("cannot inspect", Path::new(&target), e)),
        };
        if meta.file_type().is_symlink() {
            return Err(nexus(format!(
                "Scope contains a symlink or junction: {file}"
            )));
        }
        if meta.is_dir() {
            self.directory_at(Some(file))?;
            let entries = fs::read_dir(&target)
                .map_err(|e| Error::io("cannot list", Path::new(&target), e))?;
            let mut names = Vec::new();
            for entry in entries {
                let entry = entry.map_err(|e| Error::io("cannot list", Path::new(&target), e))?;
                // Node reads names as UTF-8 with replacement characters, as here.
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
            names.sort_by(|a, b| utf16_cmp(a, b));
            for name in names {
                self.walk(&format!("{file}/{name}"), files)?;
            }
        } else if meta.is_file() {
            files.push(Value::from(file));
            if files.len() > SCOPE_LIMIT {
                return Err(nexus("Scope exceeds the 10000 file snapshot limit."));
            }
        } else {
            return Err(nexus(format!("Scope contains a non-regular file: {file}")));
        }
        Ok(())
    }

    /// [`confine`], remembering the folders it found on the way: within one look at the disk,
    /// a folder checked once is not checked again.
    pub(super) fn confine(&self, file: &str) -> Result<Confined> {
        confine_in(
            &self.root,
            file,
            &|path| self.lstat(path),
            Some(&self.folders),
        )
    }

    /// `lstat` of an absolute path, once per path.
    fn lstat(&self, path: &str) -> io::Result<fs::Metadata> {
        self.lstats
            .get_or(path, || {
                fs::symlink_metadata(path).map_err(|e| (e.kind(), e.to_string()))
            })
            .map_err(|(kind, text)| io::Error::new(kind, text))
    }

    /// Nexus's `directoryAt`: a relative path (or `.`) naming an existing directory inside the
    /// project; its absolute path.
    fn directory_at(&self, file: Option<&str>) -> Result<String> {
        let file = check_relative(file, true)?;
        self.directories
            .get_or(file, || {
                self.find_directory(file).map_err(|e| e.to_string())
            })
            .map_err(Error::refused)
    }

    fn find_directory(&self, file: &str) -> Result<String> {
        let (target, probe) = if file == "." {
            (self.root.clone(), ".nexus-directory-probe".to_owned())
        } else {
            (
                join(&self.root, file),
                format!("{file}/.nexus-directory-probe"),
            )
        };
        self.confine(&probe)?;
        // The confinement looked at the folder with `lstat`; a folder that is not a link is
        // what `stat` would say too.
        if self.lstat(&target).is_ok_and(|meta| meta.is_dir()) {
            return Ok(target);
        }
        match fs::metadata(&target) {
            Ok(meta) if meta.is_dir() => Ok(target),
            Ok(_) => Err(nexus(format!("Check cwd is not a directory: {file}"))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(enoent("stat", &target)),
            Err(e) => Err(Error::io("cannot inspect", Path::new(&target), e)),
        }
    }

    /// Nexus's `executable`: the sha256 of the real file behind an absolute command path,
    /// computed once per command.
    fn command_hash(&self, command: Option<&str>) -> Result<String> {
        // Nexus also accepts `node` (its own interpreter) when a plan is created; a stored
        // plan holds the resolved path, so `node` here is refused like any relative command.
        let Some(command) = command.filter(|c| c.starts_with('/')) else {
            return Err(nexus(
                "Check command must be node or an absolute executable path.",
            ));
        };
        self.commands
            .get_or(command, || {
                read_command_hash(command).map_err(|e| e.to_string())
            })
            .map_err(Error::refused)
    }
}

/// The sha256 of the real file behind an absolute command path.
fn read_command_hash(command: &str) -> Result<String> {
    let real = match fs::canonicalize(command) {
        Ok(real) => real,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(enoent("realpath", command));
        }
        Err(e) => return Err(Error::io("cannot resolve", Path::new(command), e)),
    };
    if !fs::metadata(&real).is_ok_and(|meta| meta.is_file()) {
        return Err(nexus("Check command is not a regular executable."));
    }
    hash_file(&real)
}

/// Plain sha256 hex of a file's bytes, read in chunks.
fn hash_file(path: &Path) -> Result<String> {
    let mut file = fs::File::open(path).map_err(|e| Error::io("cannot open", path, e))?;
    let mut hasher = Sha256::new();
    let mut buffer = [0; 16 * 1024];
    loop {
        let n = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io("cannot read", path, e)),
        };
        hasher.update(&buffer[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

#[cfg(test)]
impl Disk {
    /// How many files this view hashed or tried to (snapshot files and executables): each
    /// memo entry is computed once, whichever thread asks first, however often it is asked.
    pub(super) fn hashed(&self) -> usize {
        self.files.len() + self.commands.len()
    }
}

#[cfg(test)]
impl<T> Memo<T> {
    fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;
    use crate::js::json;
    use crate::js::tape::Doc;

    fn disk(root: &Path) -> Disk {
        Disk::open(root).unwrap()
    }

    fn paths(paths: &[&str]) -> Vec<Value> {
        paths.iter().map(|p| Value::from(*p)).collect()
    }

    #[test]
    fn files_snapshots_are_unique_sorted_in_utf16_order_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        // U+E000 sorts before U+1F600 in UTF-8, after it in UTF-16 (a surrogate pair).
        for name in ["b", "a", "\u{e000}", "\u{1f600}"] {
            fs::write(root.join(name), name).unwrap();
        }
        let disk = disk(&root);
        let snapshot = disk
            .files_snapshot(&paths(&["b", "\u{e000}", "a", "\u{1f600}", "b"]))
            .unwrap();
        let snapshot = json::parse(&snapshot).unwrap();
        let keys: Vec<String> = snapshot
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, _)| k.clone())
            .collect();
        assert_eq!(keys, ["a", "b", "\u{1f600}", "\u{e000}"]);
        assert_eq!(
            snapshot.as_object().unwrap().get("a"),
            Some(&Value::from(json::sha256_hex(b"a")))
        );
        assert_eq!(
            disk.files_snapshot(&paths(&["gone"]))
                .unwrap_err()
                .to_string(),
            "Nexus: Required file is missing: gone"
        );
        let big = fs::File::create(root.join("big")).unwrap();
        big.set_len(FILE_LIMIT).unwrap();
        assert!(disk.files_snapshot(&paths(&["big"])).is_ok());
        big.set_len(FILE_LIMIT + 1).unwrap();
        assert_eq!(
            Disk::open(&root)
                .unwrap()
                .files_snapshot(&paths(&["big"]))
                .unwrap_err()
                .to_string(),
            "Nexus: File exceeds the 16 MiB snapshot limit: big"
        );
    }

    #[test]
    fn scope_snapshots_walk_folders_and_refuse_what_they_cannot_hash() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join("s/b")).unwrap();
        fs::write(root.join("s/b/x"), "x").unwrap();
        fs::write(root.join("s/a"), "a").unwrap();
        fs::write(root.join("one"), "1").unwrap();
        let scope = |items: &[&str]| Doc::parse(&Value::Array(paths(items)).compact()).unwrap();
        let snapshot = disk(&root)
            .scope_snapshot(Some(scope(&["s", "one", "missing", "s/b"]).root()))
            .unwrap();
        assert_eq!(
            snapshot,
            format!(
                r#"{{"one":"{}","s/a":"{}","s/b/x":"{}"}}"#,
                json::sha256_hex(b"1"),
                json::sha256_hex(b"a"),
                json::sha256_hex(b"x")
            )
        );
        assert_eq!(
            disk(&root)
                .scope_snapshot(Some(scope(&["missing"]).root()))
                .unwrap(),
            "{}"
        );
        let socket = std::os::unix::net::UnixListener::bind(root.join("s/b/sock")).unwrap();
        assert_eq!(
            disk(&root)
                .scope_snapshot(Some(scope(&["s"]).root()))
                .unwrap_err()
                .to_string(),
            "Nexus: Scope contains a non-regular file: s/b/sock"
        );
        drop(socket);
        fs::remove_file(root.join("s/b/sock")).unwrap();
        symlink(root.join("s"), root.join("linked")).unwrap();
        assert_eq!(
            disk(&root)
                .scope_snapshot(Some(scope(&["linked"]).root()))
                .unwrap_err()
                .to_string(),
            format!(
                "Adapter path contains a symlink or junction: {}",
                root.join("linked").display()
            )
        );
        fs::create_dir(root.join("many")).unwrap();
        for i in 0..=SCOPE_LIMIT {
            fs::File::create(root.join(format!("many/{i}"))).unwrap();
        }
        assert_eq!(
            disk(&root)
                .scope_snapshot(Some(scope(&["many"]).root()))
                .unwrap_err()
                .to_string(),
            "Nexus: Scope exceeds the 10000 file snapshot limit."
        );
    }

    #[test]
    fn a_folder_checked_once_still_has_its_entries_checked() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join("d/sub")).unwrap();
        fs::write(root.join("d/a"), "a").unwrap();
        symlink(root.join("d/a"), root.join("d/link")).unwrap();
        let disk = disk(&root);
        let message = |file: &str| disk.confine(file).err().map(|e| e.to_string());
        assert_eq!(message("d/a"), None);
        assert!(
            disk.folders
                .lock()
                .unwrap()
                .contains(&format!("{}/d", root.display()))
        );
        assert_eq!(
            message("d/link"),
            Some(format!(
                "Adapter path contains a symlink or junction: {}/d/link",
                root.display()
            ))
        );
        assert_eq!(
            message("d/sub"),
            Some(format!(
                "Adapter target is not a regular file: {}/d/sub",
                root.display()
            ))
        );
        assert!(disk.confine("d/missing").unwrap().meta.is_none());
        // A folder under a missing one is not remembered: nothing was looked at below it.
        assert!(disk.confine("gone/x/y").unwrap().meta.is_none());
        assert!(
            !disk
                .folders
                .lock()
                .unwrap()
                .iter()
                .any(|f| f.contains("gone"))
        );
    }

    #[test]
    fn check_folders_must_exist() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        let disk = disk(&root);
        assert_eq!(
            disk.directory_at(Some("gone")).unwrap_err().to_string(),
            format!(
                "ENOENT: no such file or directory, stat '{}/gone'",
                root.display()
            )
        );
        assert_eq!(
            disk.directory_at(Some(".")).unwrap(),
            root.to_string_lossy()
        );
    }
}
