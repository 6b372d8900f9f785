//! `cargo xtask dist [--profile <p>] [--out <dir>]`: bmad-mem's release archive.
//!
//! Builds the binary with the given cargo profile (default `release`, the measured one), then
//! writes `<out>/bmad-mem-<version>-<target>.tar.gz` (default `<out>` = `target/dist`) and,
//! beside it, `<archive>.sha256` (`sha256sum -c` reads it). The archive holds one folder,
//! `bmad-mem-<version>-<target>/`, with:
//!
//! * `bmad-mem`, the binary;
//! * `README.md`, `LICENSE`, `CHANGELOG.md`;
//! * `complete/`: the completion script of every shell `bmad-mem completions` knows
//!   (`bmad-mem.bash`, `_bmad-mem` for zsh, `bmad-mem.fish`, `_bmad-mem.ps1`, `bmad-mem.elv`);
//! * `man/`: every manual page, `bmad-mem.1` and one per action and sub-action, found by
//!   following the pages each page names (`bmad-mem-git(1)` names `bmad-mem-git-setup(1)`);
//! * `SHA256SUMS`: the SHA-256 of every other file, as `sha256sum -c` reads it.
//!
//! Everything but the binary comes from the binary itself, so the archive documents exactly
//! what it ships. The archive is reproducible: entries sorted, owner 0, modification time
//! `SOURCE_DATE_EPOCH` (0 when unset), modes 0755 for the binary and folders, 0644 otherwise.

use std::collections::BTreeMap;
use std::env;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use flate2::Compression;
use flate2::write::GzEncoder;
use sha2::{Digest, Sha256};

/// The shells `bmad-mem completions` writes a script for, with the file each script gets (the
/// names the shells' own conventions use).
const SHELLS: [(&str, &str); 5] = [
    ("bash", "bmad-mem.bash"),
    ("zsh", "_bmad-mem"),
    ("fish", "bmad-mem.fish"),
    ("powershell", "_bmad-mem.ps1"),
    ("elvish", "bmad-mem.elv"),
];

/// The documents shipped as they are, from the workspace root.
const DOCUMENTS: [&str; 3] = ["README.md", "LICENSE", "CHANGELOG.md"];

fn main() -> ExitCode {
    let args: Vec<OsString> = env::args_os().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// What `dist` was asked for.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    profile: String,
    out: Option<PathBuf>,
}

/// Reads `dist [--profile <p>] [--out <dir>]`.
fn options(args: &[OsString]) -> Result<Options, String> {
    let usage = "usage: cargo xtask dist [--profile <profile>] [--out <dir>]";
    let mut words = args.iter().map(|a| a.to_string_lossy().into_owned());
    if words.next().as_deref() != Some("dist") {
        return Err(usage.to_owned());
    }
    let mut options = Options {
        profile: "release".to_owned(),
        out: None,
    };
    while let Some(word) = words.next() {
        let (name, inline) = match word.split_once('=') {
            Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
            None => (word, None),
        };
        let value = inline
            .or_else(|| words.next())
            .ok_or_else(|| format!("{name} needs a value; {usage}"))?;
        match name.as_str() {
            "--profile" if !value.is_empty() => options.profile = value,
            "--out" if !value.is_empty() => options.out = Some(PathBuf::from(value)),
            _ => return Err(format!("unexpected '{name} {value}'; {usage}")),
        }
    }
    Ok(options)
}

fn run(args: &[OsString]) -> Result<(), String> {
    let options = options(args)?;
    let root = workspace_root()?;
    let binary = build(&root, &options.profile)?;
    let version = text_of(&binary, &["--version"])?;
    let version = version
        .trim()
        .strip_prefix("bmad-mem ")
        .ok_or_else(|| format!("unexpected --version: {version}"))?
        .to_owned();
    let target = host_target()?;
    let name = format!("bmad-mem-{version}-{target}");
    let out = options.out.unwrap_or_else(|| {
        target_dir(&root)
            .unwrap_or_else(|_| root.join("target"))
            .join("dist")
    });
    fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;

    let mut files: BTreeMap<String, (Vec<u8>, u32)> = BTreeMap::new();
    let read =
        |path: &Path| fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()));
    files.insert("bmad-mem".to_owned(), (read(&binary)?, 0o755));
    for document in DOCUMENTS {
        files.insert(document.to_owned(), (read(&root.join(document))?, 0o644));
    }
    for (shell, file) in SHELLS {
        let script = output_of(&binary, &["completions", shell])?;
        files.insert(format!("complete/{file}"), (script, 0o644));
    }
    for (page, words) in manual_pages(&binary)? {
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let roff = output_of(&binary, &[&["man"], words.as_slice()].concat())?;
        files.insert(format!("man/{page}.1"), (roff, 0o644));
    }
    let sums = sums(&files);
    files.insert("SHA256SUMS".to_owned(), (sums.into_bytes(), 0o644));

    let archive = out.join(format!("{name}.tar.gz"));
    let bytes = archive_bytes(&name, &files, mtime())
        .map_err(|e| format!("cannot build the archive: {e}"))?;
    fs::write(&archive, &bytes).map_err(|e| format!("cannot write {}: {e}", archive.display()))?;
    let sum = format!("{}  {name}.tar.gz\n", hex(&Sha256::digest(&bytes)));
    let sum_file = out.join(format!("{name}.tar.gz.sha256"));
    fs::write(&sum_file, sum).map_err(|e| format!("cannot write {}: {e}", sum_file.display()))?;
    println!("{}", archive.display());
    Ok(())
}

/// The workspace root: the folder above this crate's.
fn workspace_root() -> Result<PathBuf, String> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| "no workspace root".to_owned())
}

/// The cargo this task was started by.
fn cargo() -> OsString {
    env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// Cargo's target folder (`CARGO_TARGET_DIR` and config included), from `cargo metadata`.
fn target_dir(root: &Path) -> Result<PathBuf, String> {
    let out = Command::new(cargo())
        .args(["metadata", "--format-version", "1", "--no-deps", "--locked"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    metadata["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .ok_or_else(|| "cargo metadata gave no target_directory".to_owned())
}

/// Builds the binary with `profile`; its path, as cargo reports it.
fn build(root: &Path, profile: &str) -> Result<PathBuf, String> {
    let status = Command::new(cargo())
        .args([
            "build",
            "--locked",
            "--package",
            "bmad-mem",
            "--bin",
            "bmad-mem",
            "--profile",
            profile,
        ])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo build: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build --profile {profile} failed"));
    }
    // Cargo names a profile's folder after it, except `dev` (`debug`).
    let folder = if profile == "dev" { "debug" } else { profile };
    let binary = target_dir(root)?.join(folder).join("bmad-mem");
    if binary.is_file() {
        Ok(binary)
    } else {
        Err(format!("no binary at {}", binary.display()))
    }
}

/// The target triple of the host (the binary is built for it).
fn host_target() -> Result<String, String> {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc)
        .arg("-vV")
        .output()
        .map_err(|e| format!("cannot run rustc -vV: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_owned)
        .ok_or_else(|| "rustc -vV names no host".to_owned())
}

/// What `binary args…` prints on stdout; it must succeed.
fn output_of(binary: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new(binary)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    if !out.status.success() {
        return Err(format!(
            "bmad-mem {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(out.stdout)
}

fn text_of(binary: &Path, args: &[&str]) -> Result<String, String> {
    output_of(binary, args).map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

/// Every manual page, by name (`bmad-mem-git-setup`), with the words `bmad-mem man` takes for
/// it: from bmad-mem's own page, each page it names, and each page those name.
fn manual_pages(binary: &Path) -> Result<BTreeMap<String, Vec<String>>, String> {
    let mut pages = BTreeMap::new();
    let mut queue = vec![("bmad-mem".to_owned(), Vec::new())];
    while let Some((name, words)) = queue.pop() {
        let args: Vec<&str> = std::iter::once("man")
            .chain(words.iter().map(String::as_str))
            .collect();
        let roff = text_of(binary, &args)?;
        for child in named_pages(&roff, &name) {
            let mut child_words = words.clone();
            child_words.push(child.clone());
            queue.push((format!("{name}-{child}"), child_words));
        }
        pages.insert(name, words);
    }
    Ok(pages)
}

/// The pages below `name` that the roff page names: `bmad\-mem\-git\-setup(1)` in the page of
/// `bmad-mem-git` names `setup`.
fn named_pages(roff: &str, name: &str) -> Vec<String> {
    let prefix = format!("{name}-");
    let mut found = Vec::new();
    for (at, _) in roff.match_indices("(1)") {
        let start = roff[..at]
            .rfind(|c: char| c.is_whitespace() || c == '>')
            .map_or(0, |i| i + 1);
        let named = roff[start..at].replace("\\-", "-");
        let named = named.trim_start_matches("\\fB").trim_start_matches("\\fR");
        if let Some(child) = named.strip_prefix(&prefix)
            && !child.is_empty()
            && !found.iter().any(|f| f == child)
        {
            found.push(child.to_owned());
        }
    }
    found
}

/// `sha256sum`'s lines for `files`, in path order.
fn sums(files: &BTreeMap<String, (Vec<u8>, u32)>) -> String {
    let mut out = String::new();
    for (path, (bytes, _)) in files {
        let _ = writeln!(out, "{}  {path}", hex(&Sha256::digest(bytes)));
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(2 * bytes.len());
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The modification time every entry gets: `SOURCE_DATE_EPOCH`, else 0.
fn mtime() -> u64 {
    env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// The gzip-compressed tar of `files` under the folder `top`, reproducible.
fn archive_bytes(
    top: &str,
    files: &BTreeMap<String, (Vec<u8>, u32)>,
    mtime: u64,
) -> io::Result<Vec<u8>> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    {
        let mut tar = tar::Builder::new(&mut gz);
        let mut folders: Vec<String> = vec![top.to_owned()];
        for path in files.keys() {
            if let Some((folder, _)) = path.rsplit_once('/') {
                let folder = format!("{top}/{folder}");
                if !folders.contains(&folder) {
                    folders.push(folder);
                }
            }
        }
        for folder in &folders {
            let mut header = header(tar::EntryType::Directory, 0o755, 0, mtime);
            tar.append_data(&mut header, format!("{folder}/"), io::empty())?;
        }
        for (path, (bytes, mode)) in files {
            let mut header = header(tar::EntryType::Regular, *mode, bytes.len() as u64, mtime);
            tar.append_data(&mut header, format!("{top}/{path}"), bytes.as_slice())?;
        }
        tar.finish()?;
    }
    gz.flush()?;
    gz.finish()
}

fn header(kind: tar::EntryType, mode: u32, size: u64, mtime: u64) -> tar::Header {
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(kind);
    header.set_mode(mode);
    header.set_size(size);
    header.set_mtime(mtime);
    header.set_uid(0);
    header.set_gid(0);
    header
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each entry of a gzip-compressed tar: its path, mode and modification time.
    fn entries(bytes: &[u8]) -> Vec<(String, u32, u64)> {
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
        archive
            .entries()
            .unwrap()
            .map(|entry| {
                let entry = entry.unwrap();
                let header = entry.header();
                (
                    entry.path().unwrap().to_string_lossy().into_owned(),
                    header.mode().unwrap(),
                    header.mtime().unwrap(),
                )
            })
            .collect()
    }

    fn words(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn options_are_dist_with_a_profile_and_a_folder() {
        assert_eq!(
            options(&words(&["dist"])),
            Ok(Options {
                profile: "release".to_owned(),
                out: None
            })
        );
        assert_eq!(
            options(&words(&["dist", "--profile", "quick", "--out=x"])),
            Ok(Options {
                profile: "quick".to_owned(),
                out: Some(PathBuf::from("x"))
            })
        );
        for bad in [
            &[][..],
            &["build"],
            &["dist", "--profile"],
            &["dist", "--frob", "1"],
        ] {
            assert!(options(&words(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_pages_a_page_names_below_it() {
        let root = ".SH Actions\n.TP\nbmad\\-mem\\-recall(1)\nFind\n.TP\nbmad\\-mem\\-merge\\-driver(1)\n.SH VERSION\nv0.1.0\n";
        assert_eq!(named_pages(root, "bmad-mem"), ["recall", "merge-driver"]);
        let git = ".SH SUBCOMMANDS\n.TP\nbmad\\-mem\\-git\\-setup(1)\nName\n";
        assert_eq!(named_pages(git, "bmad-mem-git"), ["setup"]);
        assert!(named_pages(git, "bmad-mem-recall").is_empty());
    }

    #[test]
    fn the_archive_is_reproducible_and_keeps_the_modes() {
        let mut files = BTreeMap::new();
        files.insert("bmad-mem".to_owned(), (b"\x7fELF".to_vec(), 0o755));
        files.insert("man/bmad-mem.1".to_owned(), (b".TH".to_vec(), 0o644));
        let a = archive_bytes("top", &files, 7).unwrap();
        assert_eq!(a, archive_bytes("top", &files, 7).unwrap());
        assert_eq!(
            entries(&a),
            [
                ("top/".to_owned(), 0o755, 7),
                ("top/man/".to_owned(), 0o755, 7),
                ("top/bmad-mem".to_owned(), 0o755, 7),
                ("top/man/bmad-mem.1".to_owned(), 0o644, 7),
            ]
        );
        assert_eq!(
            sums(&files),
            format!(
                "{}  bmad-mem\n{}  man/bmad-mem.1\n",
                hex(&Sha256::digest(b"\x7fELF")),
                hex(&Sha256::digest(b".TH"))
            )
        );
    }
}
