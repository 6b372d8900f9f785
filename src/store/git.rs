//! The project's git clone, as far as merging the memory goes: whether the project is in a git
//! work tree, the clone's merge-driver settings, and the merge attributes git sees. Everything
//! here runs `git` as a subprocess with the project root as its working folder, so git finds
//! the repository, its config and its attribute files exactly as it would for a merge started
//! there. Nothing here writes a project file; `config_set` writes the clone's own config.

use std::ffi::OsStr;
use std::io::{self, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::error::{Error, Result};
use crate::messages;

/// The merge driver of the registries (`merge=bmad-mem` in `.gitattributes`).
pub(crate) const REGISTRY_DRIVER: &str = "bmad-mem";
/// The merge driver of the generated views: keeps the clone's own version (`true` does nothing,
/// which leaves "ours" in place); `doctor --rebuild-views` then regenerates it. Git has no
/// built-in `ours` driver for attributes, so it is a named driver of our own.
pub(crate) const VIEW_DRIVER: &str = "bmad-mem-view";

/// What running `git` in the project found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Probe {
    /// No `git` program on `PATH`.
    NoGit,
    /// `git` runs, but the project is not inside a work tree (or git failed: its message).
    NotWorkTree(String),
    /// The project is inside a work tree.
    WorkTree,
}

/// Runs `git <args>` in `root`, capturing its output.
fn git<I, S>(root: &Path, args: I) -> io::Result<Output>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Command::new("git")
        .args(args)
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
}

/// Whether `root` is inside a git work tree.
#[must_use]
pub(crate) fn probe(root: &Path) -> Probe {
    match git(root, ["rev-parse", "--is-inside-work-tree"]) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Probe::NoGit,
        Err(e) => Probe::NotWorkTree(e.to_string()),
        Ok(out) if out.status.success() && out.stdout.trim_ascii() == b"true" => Probe::WorkTree,
        Ok(out) => Probe::NotWorkTree(
            String::from_utf8_lossy(out.stderr.trim_ascii())
                .lines()
                .next()
                .unwrap_or_default()
                .to_owned(),
        ),
    }
}

/// When the commit checked out in `root` was made, in epoch milliseconds; `None` without git,
/// outside a work tree, or before the first commit.
#[must_use]
pub(crate) fn head_commit_ms(root: &Path) -> Option<f64> {
    let out = git(root, ["log", "-1", "--format=%ct"]).ok()?;
    if !out.status.success() {
        return None;
    }
    let seconds: f64 = std::str::from_utf8(out.stdout.trim_ascii())
        .ok()?
        .parse()
        .ok()?;
    Some(seconds * 1000.0)
}

/// Whether a folder named `.git` (a folder, or the file of a linked work tree) is in `root` or
/// one of its ancestors: a cheap test before asking git itself.
#[must_use]
pub(crate) fn looks_like_git(root: &Path) -> bool {
    root.ancestors()
        .any(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
}

/// The failure of a git command that ran, as an error naming it.
fn failed(what: &str, out: &Output) -> Error {
    Error::refused(messages::git_failed(
        what,
        String::from_utf8_lossy(out.stderr.trim_ascii()).trim(),
    ))
}

/// Runs git, mapping a spawn failure to the "no git" refusal.
fn run(root: &Path, args: &[&str]) -> Result<Output> {
    git(root, args).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            Error::refused(messages::GIT_MISSING)
        } else {
            Error::refused(messages::git_failed(&args.join(" "), &e.to_string()))
        }
    })
}

/// The value of `key` in the clone's config: `local` only from `.git/config`, else from every
/// level git reads (system, global, local). `None` when unset.
///
/// # Errors
/// No git; git failing for another reason than an unset key.
pub(crate) fn config_get(root: &Path, key: &str, local: bool) -> Result<Option<String>> {
    let mut args = vec!["config"];
    if local {
        args.push("--local");
    }
    args.extend(["--get", key]);
    let out = run(root, &args)?;
    if out.status.success() {
        let value = String::from_utf8_lossy(&out.stdout);
        return Ok(Some(value.strip_suffix('\n').unwrap_or(&value).to_owned()));
    }
    // `git config --get` exits 1 for a key that is not set.
    if out.status.code() == Some(1) && out.stderr.trim_ascii().is_empty() {
        return Ok(None);
    }
    Err(failed(&format!("git config --get {key}"), &out))
}

/// `user.name` as git reads it in `root` (`git -C <root> config user.name`: the clone's config,
/// then the global and system ones); `None` when unset, blank, or when git cannot tell (no git,
/// a failure) — who acts is then found elsewhere, never refused for it.
#[must_use]
pub(crate) fn user_name(root: &Path) -> Option<String> {
    config_text(root, "user.name")
}

/// The value of `key` at every level git reads; `None` when unset, blank, or when git cannot
/// tell.
fn config_text(root: &Path, key: &str) -> Option<String> {
    config_get(root, key, false)
        .ok()
        .flatten()
        .filter(|value| !value.trim().is_empty())
}

/// Sets `key` to `value` in the clone's own config (`git config --local`); `None` unsets it.
///
/// # Errors
/// No git; git refusing the change.
pub(crate) fn config_set(root: &Path, key: &str, value: Option<&str>) -> Result<()> {
    let out = match value {
        Some(value) => run(root, &["config", "--local", key, value])?,
        None => run(root, &["config", "--local", "--unset", key])?,
    };
    if out.status.success() {
        Ok(())
    } else {
        Err(failed(&format!("git config --local {key}"), &out))
    }
}

/// The `merge` attribute git applies to each of `paths` (project-relative): `unspecified`,
/// `set`, `unset` or the driver's name.
///
/// # Errors
/// No git; git failing.
pub(crate) fn merge_attributes(root: &Path, paths: &[&str]) -> Result<Vec<(String, String)>> {
    let mut args = vec!["check-attr", "merge", "--"];
    args.extend_from_slice(paths);
    let out = run(root, &args)?;
    if !out.status.success() {
        return Err(failed("git check-attr merge", &out));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .lines()
        .filter_map(|line| {
            let (path, value) = line.rsplit_once(": merge: ")?;
            Some((path.to_owned(), value.to_owned()))
        })
        .collect())
}

/// Runs `git <args>` in `root` and returns what it printed; `None` when git is missing or fails.
/// For the merge driver's reads of the repository, which fall back on a conflict when git
/// cannot answer.
#[must_use]
pub(crate) fn read(root: &Path, args: &[&str]) -> Option<Vec<u8>> {
    let out = git(root, args).ok()?;
    out.status.success().then_some(out.stdout)
}

/// Runs `git <args>` in `root` with `input` on its standard input (written from another thread,
/// so that a large answer never blocks the question) and returns what it printed; `None` when
/// git is missing or fails.
#[must_use]
pub(crate) fn read_with_input(root: &Path, args: &[&str], input: &[u8]) -> Option<Vec<u8>> {
    let mut child = Command::new("git")
        .args(args)
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().ok()?;
    let written = writer.join().ok()?;
    (written.is_ok() && out.status.success()).then_some(out.stdout)
}

/// Reads objects named `<revision>:<path>` (or any name git takes) in one `git cat-file
/// --batch`: each one's content, `None` for a name git does not find.
#[must_use]
pub(crate) fn objects(root: &Path, names: &[String]) -> Option<Vec<Option<Vec<u8>>>> {
    let mut input = String::new();
    for name in names {
        input.push_str(name);
        input.push('\n');
    }
    let out = read_with_input(root, &["cat-file", "--batch"], input.as_bytes())?;
    let mut rest = &out[..];
    let mut found = Vec::with_capacity(names.len());
    for _ in names {
        let end = memchr::memchr(b'\n', rest)?;
        let header = std::str::from_utf8(&rest[..end]).ok()?;
        rest = &rest[end + 1..];
        let mut words = header.rsplitn(3, ' ');
        let (size, kind) = (words.next()?, words.next()?);
        if matches!(size, "missing" | "ambiguous") || kind == "missing" {
            found.push(None);
            continue;
        }
        let size: usize = size.parse().ok()?;
        let content = rest.get(..size)?.to_vec();
        rest = rest.get(size + 1..)?;
        found.push((kind == "blob").then_some(content));
    }
    Some(found)
}

/// What git says in `root` for `git rev-parse <args>`, one line per answer; `None` without
/// git, outside a work tree, or when git fails.
fn rev_parse(root: &Path, args: &[&str]) -> Option<Vec<String>> {
    let out = git(
        root,
        std::iter::once("rev-parse").chain(args.iter().copied()),
    )
    .ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect()
    })
}

/// The URL of the clone's `origin` remote; `None` when there is none (or no git).
#[must_use]
pub(crate) fn origin_url(root: &Path) -> Option<String> {
    config_text(root, "remote.origin.url")
}

/// The top folder of the work tree `root` is in; `None` without git or outside a work tree.
#[must_use]
pub(crate) fn top_level(root: &Path) -> Option<std::path::PathBuf> {
    rev_parse(root, &["--show-toplevel"])?
        .into_iter()
        .next()
        .filter(|top| !top.is_empty())
        .map(std::path::PathBuf::from)
}

/// Where git runs the clone's hooks from, and where the project is in its work tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HooksPlace {
    /// The hooks folder as git names it (`git rev-parse --git-path hooks` in the project:
    /// relative to the project, or absolute): `core.hooksPath` when set, the common git folder's
    /// `hooks` in a linked work tree.
    pub shown: String,
    /// The same folder, absolute.
    pub dir: std::path::PathBuf,
    /// The project's folder relative to the top of the work tree, `/`-separated, without a
    /// trailing `/`; empty at the top. Git runs hooks from the top of the work tree.
    pub prefix: String,
}

/// Where the clone's hooks live; `None` without git or outside a work tree.
#[must_use]
pub(crate) fn hooks_place(root: &Path) -> Option<HooksPlace> {
    let lines = rev_parse(root, &["--git-path", "hooks", "--show-prefix"])?;
    let shown = lines.first().filter(|l| !l.is_empty())?.clone();
    let prefix = lines
        .get(1)
        .map(|p| p.trim_end_matches('/').to_owned())
        .unwrap_or_default();
    Some(HooksPlace {
        dir: root.join(&shown),
        shown,
        prefix,
    })
}

/// Whether a rebase is under way in the clone (git's `rebase-merge` or `rebase-apply` folder
/// exists): the hooks then leave the work tree alone until it ends.
#[must_use]
pub(crate) fn is_rebasing(root: &Path) -> bool {
    rev_parse(
        root,
        &["--git-path", "rebase-merge", "--git-path", "rebase-apply"],
    )
    .is_some_and(|paths| paths.iter().any(|p| root.join(p).is_dir()))
}
