//! `export`: the linked brain as one portable Markdown file.
//!
//! The brain is the one `.brain-link` names when detection could choose it today, else, without
//! a link, the one detection would link; a link that is ignored (see [`crate::session::brain`]) stops the
//! export, so a planted link never gets a folder read. Its text files (UTF-8, no NUL byte, at
//! most 2 MiB each, 16 MiB in all) are written one after the other, each under a `##` heading
//! with its path and inside a fence longer than any backtick run it holds, so the file reads back
//! exactly. Entry points and notes come first (`identity.yaml`, `README.md`, `AGENTS.md`,
//! `HOT.md`, `MEMORY.md`, `decisions.md`, `lessons.md`, `patterns.md`), then every other file by
//! path.
//!
//! A symbolic link inside the brain whose target is a regular file inside the brain is exported
//! like a file, under the link's own path; any other link is never followed. Hidden entries
//! (`.env`, `.obsidian/`) are left out. Every file left out is listed at the end, with why:
//! hidden, a link that leaves the brain, goes to a folder or nowhere, not a regular file, not
//! text, too large.
//!
//! The brain is only read. The export goes to `bmad-brain-export-YYYY-MM-DD.md` in the project
//! (or `--out`, relative to the current directory) and never replaces an existing file unless
//! `--force` is given; then only a regular file is replaced, atomically (temporary file, sync,
//! rename) — a link, a folder, a FIFO or a device in its place is refused. Temporary files a
//! killed export left in the output folder are swept first.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::path::resolve;
use crate::messages;
use crate::output::Report;
use crate::session::brain::{self, Brain, LinkState};
use crate::session::pack::{count, create_only_in, day};
use crate::store::confined::Dir;
use crate::store::layout::{LINK_FILE, REGISTRY_CAP};
use crate::store::paths::{Loose, Skip, decode_lossy, not_regular, read_loose_bytes};
use crate::store::temporaries;

/// Largest export, in bytes of file content.
const TOTAL_CAP: u64 = 8 * REGISTRY_CAP;
/// Files shown first, in this order, when the brain has them.
const FIRST: [&str; 8] = [
    "identity.yaml",
    "README.md",
    "AGENTS.md",
    "HOT.md",
    "MEMORY.md",
    "decisions.md",
    "lessons.md",
    "patterns.md",
];

/// Export the linked brain as one Markdown file (never overwrites without --force).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ExportArgs {
    /// Where to write, relative to the current directory (default:
    /// bmad-brain-export-YYYY-MM-DD.md in the project).
    #[arg(long, value_name = "file", allow_hyphen_values = true)]
    pub out: Option<String>,
    /// Replace the output file if it exists.
    #[arg(long)]
    pub force: bool,
}

/// A file of the brain: its `/`-separated path inside the brain and its absolute path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BrainFile {
    rel: String,
    path: PathBuf,
}

/// Why a file of the brain is not exported.
type Skipped = (String, &'static str);

/// What a symbolic link inside the brain leads to: the file to read, or why it is not followed.
fn follow_link(link: &Path, brain_real: &Path) -> std::result::Result<PathBuf, &'static str> {
    let Ok(target) = fs::canonicalize(link) else {
        return Err("broken link");
    };
    if !target.starts_with(brain_real) {
        return Err("link leaving the brain");
    }
    match fs::metadata(&target) {
        Ok(meta) if meta.is_file() => Ok(target),
        Ok(meta) if meta.is_dir() => Err("link to a folder"),
        Ok(_) => Err("not a regular file"),
        Err(_) => Err("broken link"),
    }
}

/// Every file under `dir` to export, in export order, and every one left out, by path.
fn brain_files(dir: &Path) -> (Vec<BrainFile>, Vec<Skipped>) {
    fn walk(
        dir: &Path,
        prefix: &str,
        brain_real: &Path,
        out: &mut Vec<BrainFile>,
        skipped: &mut Vec<Skipped>,
    ) {
        let Ok(entries) = fs::read_dir(dir) else {
            skipped.push((prefix.to_owned(), "unreadable folder"));
            return;
        };
        for entry in entries.filter_map(std::result::Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = format!("{prefix}{name}");
            let file_type = entry.file_type();
            let is_dir = file_type.as_ref().is_ok_and(fs::FileType::is_dir);
            if name.starts_with('.') {
                if is_dir {
                    skipped.push((format!("{rel}/"), "hidden folder"));
                } else {
                    skipped.push((rel, "hidden"));
                }
                continue;
            }
            match file_type {
                Ok(t) if t.is_dir() => {
                    walk(&entry.path(), &format!("{rel}/"), brain_real, out, skipped);
                }
                Ok(t) if t.is_file() => out.push(BrainFile {
                    rel,
                    path: entry.path(),
                }),
                Ok(t) if t.is_symlink() => match follow_link(&entry.path(), brain_real) {
                    Ok(path) => out.push(BrainFile { rel, path }),
                    Err(why) => skipped.push((rel, why)),
                },
                _ => skipped.push((rel, "not a regular file")),
            }
        }
    }
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let brain_real = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    walk(dir, "", &brain_real, &mut files, &mut skipped);
    files.sort_by(|a, b| {
        let rank = |f: &BrainFile| {
            FIRST
                .iter()
                .position(|n| *n == f.rel)
                .unwrap_or(FIRST.len())
        };
        (rank(a), &a.rel).cmp(&(rank(b), &b.rel))
    });
    (files, skipped)
}

/// The bytes of a brain file: a regular file (checked on the open handle) of at most 2 MiB.
fn read_file(path: &Path, brain: &Path) -> std::result::Result<Vec<u8>, &'static str> {
    // Opened without blocking and bounded: the file may have been swapped for a FIFO, a device
    // or a link since the folder was listed.
    match read_loose_bytes(path, brain) {
        Ok(Loose::Read(bytes)) if bytes.len() as u64 > REGISTRY_CAP => Err("over 2 MiB"),
        Ok(Loose::Read(bytes)) => Ok(bytes),
        Ok(Loose::Skipped(Skip::NotRegular | Skip::LinkNotRegular(_))) => Err("not a regular file"),
        Ok(Loose::Skipped(Skip::TooLarge(_) | Skip::Grew)) => Err("over 2 MiB"),
        Ok(Loose::Skipped(Skip::Outside { .. })) => Err("link leaving the brain"),
        Ok(Loose::Missing | Loose::Skipped(Skip::Unresolvable(_))) | Err(_) => Err("unreadable"),
    }
}

/// The fence for `text`: backticks, one more than its longest run, at least three.
#[must_use]
pub(crate) fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// The fence's info string for a file name.
fn language(rel: &str) -> &'static str {
    match rel
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
    {
        Some(ext) if ext == "md" || ext == "markdown" => "markdown",
        Some(ext) if ext == "yaml" || ext == "yml" => "yaml",
        Some(ext) if ext == "json" => "json",
        Some(ext) if ext == "toml" => "toml",
        _ => "",
    }
}

/// What was exported.
#[derive(Debug, Clone)]
pub(crate) struct ExportReport {
    pub out: PathBuf,
    pub brain: Brain,
    pub files: Vec<String>,
    /// Files left out, with the reason.
    pub skipped: Vec<Skipped>,
    pub bytes: usize,
    /// Whether an existing file was replaced (`--force`).
    pub is_replacement: bool,
    pub warnings: Vec<String>,
}

/// Builds the export text of `brain` at `at`: (text, files included, files left out).
fn build(brain: &Brain, at: &str) -> (String, Vec<String>, Vec<Skipped>) {
    let mut body = String::new();
    let mut files = Vec::new();
    let (found, mut skipped) = brain_files(&brain.dir);
    let mut total = 0u64;
    for file in found {
        let bytes = match read_file(&file.path, &brain.dir) {
            Ok(bytes) => bytes,
            Err(why) => {
                skipped.push((file.rel, why));
                continue;
            }
        };
        let size = bytes.len() as u64;
        if total + size > TOTAL_CAP {
            skipped.push((file.rel, "export limit of 16 MiB reached"));
            continue;
        }
        if bytes.contains(&0) || std::str::from_utf8(&bytes).is_err() {
            skipped.push((file.rel, "not text"));
            continue;
        }
        total += size;
        let text = decode_lossy(bytes);
        let fence = fence_for(&text);
        let _ = write!(
            body,
            "\n## {}\n\n{fence}{}\n{text}",
            file.rel,
            language(&file.rel)
        );
        if !text.ends_with('\n') {
            body.push('\n');
        }
        let _ = writeln!(body, "{fence}");
        files.push(file.rel);
    }
    skipped.sort_by(|a, b| a.0.cmp(&b.0));
    let mut text = format!(
        "# BMAD+ Brain Export\n\n> Exported: {at}\n> Brain: {} ({})\n> Files: {}\n",
        brain.dir.display(),
        brain.kind.as_str(),
        files.len()
    );
    text.push_str(&body);
    if !skipped.is_empty() {
        text.push_str("\n## Not exported\n\n");
        for (rel, why) in &skipped {
            let _ = writeln!(text, "- {rel}: {why}");
        }
    }
    (text, files, skipped)
}

/// Whether `stem` names a file `export` writes: the output's own name, or a dated default one.
fn is_export_stem(stem: &str, out_name: &str) -> bool {
    stem == out_name
        || (stem.starts_with("bmad-brain-export-")
            && Path::new(stem).extension().is_some_and(|e| e == "md"))
}

/// Runs `export`.
///
/// # Errors
/// No brain linked or found, a linked brain that is not a folder, an existing output without
/// `--force`, an output that is a folder, an I/O failure.
pub(crate) fn run(args: &ExportArgs, ctx: &Context) -> Result<ExportReport> {
    let out = match &args.out {
        Some(out) if out.is_empty() => return Err(Error::refused(messages::OUT_EMPTY)),
        Some(out) => resolve(&ctx.cwd, Path::new(out)),
        None => ctx
            .root
            .join(format!("bmad-brain-export-{}.md", day(&ctx.now))),
    };
    let (brain, warnings) = match brain::read_checked_link(ctx) {
        LinkState::Valid(link) => (link.brain(), Vec::new()),
        LinkState::Invalid(reason) => {
            return Err(Error::refused(messages::link_invalid(LINK_FILE, reason)));
        }
        LinkState::Missing => {
            let detection = brain::detect(ctx);
            (detection.brain, detection.warnings)
        }
    };
    let brain = brain.ok_or_else(|| Error::refused(messages::NO_BRAIN))?;
    if !brain.dir.is_dir() {
        return Err(Error::refused(messages::brain_not_a_folder(&brain.dir)));
    }
    let existing = fs::symlink_metadata(&out).ok();
    if let Some(what) = existing.as_ref().and_then(not_regular) {
        return Err(Error::refused(messages::out_not_regular(what, &out)));
    }
    if existing.is_some() && !args.force {
        return Err(Error::refused(messages::out_exists(&out)));
    }
    let (text, files, skipped) = build(&brain, &ctx.now.iso);
    let folder = out.parent().unwrap_or(Path::new("/"));
    let out_name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The destination is the user's own folder, anywhere: opened once, following links, and
    // swept and written through that one handle.
    let handle = Dir::open_plain(folder).map_err(|e| Error::io("cannot write", &out, e))?;
    temporaries::sweep_temporaries(&handle, |stem| is_export_stem(stem, &out_name));
    let name = out.file_name().unwrap_or_default();
    let is_replacement = if args.force {
        let existed = existing.is_some();
        let _hold = temporaries::hold_for_temporaries(&handle);
        handle.replace(name, text.as_bytes()).map_err(|e| match e {
            Error::Io { source, .. } => Error::io("cannot write", &out, source),
            e => e,
        })?;
        existed
    } else {
        let created = !name.is_empty()
            && create_only_in(&handle, name, text.as_bytes())
                .map_err(|e| Error::io("cannot write", &out, e))?;
        if !created {
            return Err(Error::refused(messages::out_exists(&out)));
        }
        false
    };
    Ok(ExportReport {
        out,
        brain,
        files,
        skipped,
        bytes: text.len(),
        is_replacement,
        warnings,
    })
}

impl Report for ExportReport {
    fn to_json(&self) -> Value {
        let skipped: Vec<Value> = self
            .skipped
            .iter()
            .map(|(rel, why)| {
                Value::Object(
                    Object::new()
                        .with("file", rel.as_str())
                        .with("reason", *why),
                )
            })
            .collect();
        Value::Object(
            Object::new()
                .with("exported", self.out.to_string_lossy().into_owned())
                .with(
                    "brain",
                    Object::new()
                        .with("path", self.brain.dir.to_string_lossy().into_owned())
                        .with("type", self.brain.kind.as_str()),
                )
                .with(
                    "files",
                    Value::Array(self.files.iter().map(Value::from).collect()),
                )
                .with("skipped", skipped)
                .with("bytes", count(self.bytes))
                .with("replaced", self.is_replacement)
                .with(
                    "warnings",
                    Value::Array(self.warnings.iter().map(Value::from).collect()),
                ),
        )
    }

    fn render_human(&self) -> String {
        let mut out = format!(
            "mem export: brain exported to {} ({} file(s) from {} {})\n",
            self.out.display(),
            self.files.len(),
            self.brain.kind.as_str(),
            self.brain.dir.display()
        );
        for (rel, why) in &self.skipped {
            let _ = writeln!(out, "  not exported: {rel} ({why})");
        }
        out
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn written(&self) -> Option<String> {
        Some(format!("{} written", self.out.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::brain::BrainType;

    #[test]
    fn fences_outgrow_the_content() {
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("a ``` b"), "````");
        assert_eq!(fence_for("`````"), "``````");
    }

    #[test]
    fn links_are_followed_only_to_a_file_inside_the_brain() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let brain = base.join("brain");
        fs::create_dir_all(brain.join("shared")).unwrap();
        fs::write(brain.join("shared/hot.md"), "Hot\n").unwrap();
        fs::write(base.join("secret"), "key\n").unwrap();
        symlink("shared/hot.md", brain.join("HOT.md")).unwrap();
        symlink("shared", brain.join("notes")).unwrap();
        symlink(base.join("secret"), brain.join("key.md")).unwrap();
        symlink("../brain/../secret", brain.join("sneaky.md")).unwrap();
        symlink("nowhere.md", brain.join("gone.md")).unwrap();
        let (files, skipped) = brain_files(&brain);
        let rels: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(rels, ["HOT.md", "shared/hot.md"]);
        assert_eq!(files[0].path, brain.join("shared/hot.md"));
        let mut skipped = skipped;
        skipped.sort();
        assert_eq!(
            skipped,
            [
                ("gone.md".to_owned(), "broken link"),
                ("key.md".to_owned(), "link leaving the brain"),
                ("notes".to_owned(), "link to a folder"),
                ("sneaky.md".to_owned(), "link leaving the brain"),
            ]
        );
    }

    #[test]
    fn export_lists_entry_points_first_and_skips_binary_and_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("projects")).unwrap();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::write(root.join(".git/HEAD"), "x").unwrap();
        fs::write(root.join("projects/ab.yaml"), "path: \"/p\"").unwrap();
        fs::write(root.join("lessons.md"), "# L\n").unwrap();
        fs::write(root.join("identity.yaml"), "user_name: \"\"\n").unwrap();
        fs::write(root.join("logo.png"), [0x89, 0, 1]).unwrap();
        let brain = Brain {
            dir: root.to_path_buf(),
            kind: BrainType::BmadGlobal,
        };
        let (text, files, skipped) = build(&brain, "2026-10-18T09:30:00.000Z");
        assert_eq!(files, ["identity.yaml", "lessons.md", "projects/ab.yaml"]);
        assert_eq!(
            skipped,
            [
                (".git/".to_owned(), "hidden folder"),
                ("logo.png".to_owned(), "not text")
            ]
        );
        assert!(text.ends_with(
            "\n## projects/ab.yaml\n\n```yaml\npath: \"/p\"\n```\n\n## Not exported\n\n- .git/: hidden folder\n- logo.png: not text\n"
        ));
        assert!(text.starts_with(&format!(
            "# BMAD+ Brain Export\n\n> Exported: 2026-10-18T09:30:00.000Z\n> Brain: {} (bmad-global)\n> Files: 3\n\n## identity.yaml\n\n```yaml\nuser_name: \"\"\n```\n",
            root.display()
        )));
    }
}
