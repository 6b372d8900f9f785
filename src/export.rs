//! `export`: the linked brain as one portable Markdown file.
//!
//! The brain is the one `.brain-link` names, else the one detection would link. Its text files
//! (UTF-8, no NUL byte, at most 2 MiB each, 16 MiB in all) are written one after the other,
//! each under a `##` heading with its path and inside a fence longer than any backtick run it
//! holds, so the file reads back exactly. Entry points and notes come first (`identity.yaml`,
//! `README.md`, `AGENTS.md`, `HOT.md`, `MEMORY.md`, `decisions.md`, `lessons.md`,
//! `patterns.md`), then every other file by path. Hidden entries and links inside the brain are
//! not followed; what was skipped is listed at the end.
//!
//! The brain is only read. The export goes to `bmad-brain-export-YYYY-MM-DD.md` in the project
//! (or `--out`, relative to the current directory) and never replaces an existing file unless
//! `--force` is given; then it is replaced atomically (temporary file, sync, rename).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use crate::brain::{self, Brain};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::memory::{count, create_only, day};
use crate::output::Report;
use crate::store::document;
use crate::store::paths::{Loose, REGISTRY_CAP, decode_lossy, read_loose_bytes, resolve};

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

/// Every regular file under `dir`, hidden entries and links left out, in export order.
fn brain_files(dir: &Path) -> Vec<BrainFile> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<BrainFile>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.filter_map(std::result::Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let rel = format!("{prefix}{name}");
            match entry.file_type() {
                Ok(t) if t.is_dir() => walk(&entry.path(), &format!("{rel}/"), out),
                Ok(t) if t.is_file() => out.push(BrainFile {
                    rel,
                    path: entry.path(),
                }),
                _ => {}
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, "", &mut files);
    files.sort_by(|a, b| {
        let rank = |f: &BrainFile| {
            FIRST
                .iter()
                .position(|n| *n == f.rel)
                .unwrap_or(FIRST.len())
        };
        (rank(a), &a.rel).cmp(&(rank(b), &b.rel))
    });
    files
}

/// The fence for `text`: backticks, one more than its longest run, at least three.
#[must_use]
pub fn fence_for(text: &str) -> String {
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
pub struct ExportReport {
    pub out: PathBuf,
    pub brain: Brain,
    pub files: Vec<String>,
    /// Files left out, with the reason.
    pub skipped: Vec<(String, &'static str)>,
    pub bytes: usize,
    /// Whether an existing file was replaced (`--force`).
    pub is_replacement: bool,
    pub warnings: Vec<String>,
}

/// Builds the export text of `brain` at `at`: (text, files included, files skipped).
fn build(brain: &Brain, at: &str) -> (String, Vec<String>, Vec<(String, &'static str)>) {
    let mut body = String::new();
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let mut total = 0u64;
    for file in brain_files(&brain.dir) {
        let size = fs::metadata(&file.path).map_or(u64::MAX, |m| m.len());
        if size > REGISTRY_CAP {
            skipped.push((file.rel, "over 2 MiB"));
            continue;
        }
        if total + size > TOTAL_CAP {
            skipped.push((file.rel, "export limit of 16 MiB reached"));
            continue;
        }
        // Opened without blocking and bounded: the file may have been swapped for a FIFO or
        // a device since the folder was listed.
        let Ok(Loose::Read(bytes)) = read_loose_bytes(&file.path, &brain.dir) else {
            skipped.push((file.rel, "unreadable"));
            continue;
        };
        if bytes.len() as u64 > REGISTRY_CAP {
            skipped.push((file.rel, "over 2 MiB"));
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

/// Runs `export`.
///
/// # Errors
/// No brain linked or found, a linked brain that is not a folder, an existing output without
/// `--force`, an output that is a folder, an I/O failure.
pub fn run(args: &ExportArgs, ctx: &Context) -> Result<ExportReport> {
    let out = match &args.out {
        Some(out) if out.is_empty() => return Err(Error::refused("--out must not be empty")),
        Some(out) => resolve(&ctx.cwd, Path::new(out)),
        None => ctx
            .root
            .join(format!("bmad-brain-export-{}.md", day(&ctx.now))),
    };
    let (brain, warnings) = brain::linked_or_detected(ctx);
    let brain = brain.ok_or_else(|| {
        Error::refused("no brain to export: none is linked or detected (run `bmad-mem init`)")
    })?;
    if !brain.dir.is_dir() {
        return Err(Error::refused(format!(
            "the linked brain is not a folder: {}",
            brain.dir.display()
        )));
    }
    let existing = fs::symlink_metadata(&out).ok();
    if existing.as_ref().is_some_and(fs::Metadata::is_dir) {
        return Err(Error::refused(format!(
            "--out names a folder: {}",
            out.display()
        )));
    }
    if existing.is_some() && !args.force {
        return Err(Error::refused(format!(
            "{} already exists; pass --force to replace it",
            out.display()
        )));
    }
    let (text, files, skipped) = build(&brain, &ctx.now.iso);
    let is_replacement = if args.force {
        let existed = existing.is_some();
        document::replace(&out, text.as_bytes()).map_err(|e| Error::io("cannot write", &out, e))?;
        existed
    } else {
        if !create_only(&out, text.as_bytes()).map_err(|e| Error::io("cannot write", &out, e))? {
            return Err(Error::refused(format!(
                "{} already exists; pass --force to replace it",
                out.display()
            )));
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
    use crate::brain::BrainType;

    #[test]
    fn fences_outgrow_the_content() {
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("a ``` b"), "````");
        assert_eq!(fence_for("`````"), "``````");
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
        assert_eq!(skipped, [("logo.png".to_owned(), "not text")]);
        assert!(text.ends_with(
            "\n## projects/ab.yaml\n\n```yaml\npath: \"/p\"\n```\n\n## Not exported\n\n- logo.png: not text\n"
        ));
        assert!(text.starts_with(&format!(
            "# BMAD+ Brain Export\n\n> Exported: 2026-10-18T09:30:00.000Z\n> Brain: {} (bmad-global)\n> Files: 3\n\n## identity.yaml\n\n```yaml\nuser_name: \"\"\n```\n",
            root.display()
        )));
    }
}
