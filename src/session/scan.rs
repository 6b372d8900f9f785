//! `scan <dir>`: list the projects below a folder by their markers; with `--index`, write their
//! entries into the global brain's `projects/`.
//!
//! A folder is a project when it holds a stack marker (`package.json`, `Cargo.toml`,
//! `pyproject.toml`, `requirements.txt`, `go.mod`, `composer.json`, `Gemfile`, `pom.xml`,
//! `build.gradle[.kts]`, `*.sln`, `*.csproj`) or, below the scanned folder itself, `.git`,
//! `.agents/` or `AGENTS.md`. A project's sub-folders are not searched; neither are hidden
//! folders, dependency and build folders (`node_modules`, `target`, `vendor`, …), links, or
//! anything deeper than four levels. Entries are visited in name order, so the list is stable.
//!
//! "Last change" is the date of the last commit when the project is a git repository (`git log
//! -1`, the only process started); otherwise, or when git is missing or fails, the newest
//! modification time of the project folder and everything below it, breadth first, skipping
//! hidden, dependency and build folders, never following a link, and looking at no more than
//! 5,000 entries. The status derives from it and the context's clock: `active` under 30 days,
//! `paused` under 180, else `archived`.
//!
//! `--index` completes the global brain first (creating only what is missing, as `init` does)
//! and then creates `projects/<hash>.yaml` for each project that has none; an existing entry is
//! never rewritten. It needs a home folder; that failing is an error here, since indexing is
//! the whole point of the option.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use crate::context::Context;
use crate::context::folder_name;
use crate::error::{Error, Result};
use crate::js::date;
use crate::js::date::MS_PER_DAY;
use crate::js::json::{self, Object, Value};
use crate::js::path::resolve;
use crate::js::text::trim;
use crate::messages;
use crate::output::Report;
use crate::session::brain::{self, complete_global_brain, global_brain_dir};
use crate::session::pack::git_stdout;
use crate::session::pack::{count, day, yaml_string};
use crate::store::layout::PROJECTS;
use crate::store::paths::read_loose;

/// Deepest level searched below the scanned folder.
const MAX_DEPTH: usize = 4;
/// How many entries below a project are looked at, at most, for its last change.
const MAX_WALK: usize = 5000;
/// Folders never searched (besides hidden ones).
const SKIP_DIRS: [&str; 11] = [
    "node_modules",
    "target",
    "vendor",
    "dist",
    "build",
    "__pycache__",
    "venv",
    "coverage",
    "_brain",
    "bower_components",
    "Pods",
];
/// Stack markers, in priority order: (file, stack).
const STACK_MARKERS: [(&str, &str); 10] = [
    ("package.json", "Node.js"),
    ("Cargo.toml", "Rust"),
    ("pyproject.toml", "Python"),
    ("requirements.txt", "Python"),
    ("go.mod", "Go"),
    ("composer.json", "PHP"),
    ("Gemfile", "Ruby"),
    ("pom.xml", "Java"),
    ("build.gradle", "Java/Kotlin"),
    ("build.gradle.kts", "Java/Kotlin"),
];
/// Markers of a project without a known stack.
const OTHER_MARKERS: [&str; 3] = [".git", ".agents", "AGENTS.md"];
/// Frameworks recognised in `package.json` dependencies, in priority order.
const FRAMEWORKS: [(&str, &str); 9] = [
    ("next", "Next.js"),
    ("nuxt", "Nuxt"),
    ("react", "React"),
    ("vue", "Vue.js"),
    ("svelte", "Svelte"),
    ("express", "Express"),
    ("fastify", "Fastify"),
    ("electron", "Electron"),
    ("@tauri-apps/api", "Tauri"),
];

/// List the projects below a folder by their markers; --index adds them to the global brain.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ScanArgs {
    /// The folder to search, relative to the current directory (required).
    #[arg(value_name = "dir")]
    pub dir: Option<String>,
    /// Write each project's entry into ~/.bmad-plus/brain/projects/ (never rewrites one).
    #[arg(long)]
    pub index: bool,
}

/// One project found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Project {
    pub path: PathBuf,
    /// Path relative to the scanned folder (`.` for the folder itself).
    pub rel: String,
    pub name: String,
    pub stack: String,
    pub markers: Vec<String>,
    /// Newest modification, `toISOString` form.
    pub last_change: Option<String>,
    pub status: &'static str,
    pub is_bmad: bool,
    pub hash: String,
}

/// Whether the file name `name` ends with `.<ext>`, in any case.
fn has_extension(name: &str, ext: &str) -> bool {
    Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// The markers of a folder (in marker order) given its entry names.
fn markers_of(names: &[String], is_top: bool) -> Vec<String> {
    let mut found: Vec<String> = STACK_MARKERS
        .iter()
        .filter(|(file, _)| names.iter().any(|n| n == file))
        .map(|(file, _)| (*file).to_owned())
        .collect();
    for ext in ["sln", "csproj"] {
        if let Some(n) = names.iter().find(|n| has_extension(n, ext)) {
            found.push(n.clone());
        }
    }
    let has_stack = !found.is_empty();
    if has_stack || !is_top {
        found.extend(
            OTHER_MARKERS
                .iter()
                .filter(|m| names.iter().any(|n| n == *m))
                .map(|m| (*m).to_owned()),
        );
    }
    found
}

/// The stack the first stack marker names; a `package.json` is refined by its dependencies.
fn stack_of(markers: &[String], package: Option<&Object>) -> String {
    let Some(first) = markers.first() else {
        return "unknown".to_owned();
    };
    if first == "package.json" {
        return package
            .and_then(node_framework)
            .unwrap_or("Node.js")
            .to_owned();
    }
    if has_extension(first, "sln") || has_extension(first, "csproj") {
        return ".NET".to_owned();
    }
    STACK_MARKERS
        .iter()
        .find(|(file, _)| file == first)
        .map_or("unknown", |(_, stack)| stack)
        .to_owned()
}

/// A folder's `package.json` as an object, read with the loose reader (never blocking on a
/// FIFO, at most 64 MiB, a link followed only to a file inside the scanned folder `top`); a
/// file it skips adds a warning.
fn package_json(dir: &Path, top: &Path, warnings: &mut Vec<String>) -> Option<Object> {
    let path = dir.join("package.json");
    let text = read_loose(&path, top)
        .ok()?
        .or_warn(&path.to_string_lossy(), warnings)?;
    match json::parse(&text) {
        Ok(Value::Object(o)) => Some(o),
        _ => None,
    }
}

fn node_framework(package: &Object) -> Option<&'static str> {
    let has = |dep: &str| {
        ["dependencies", "devDependencies"].iter().any(|key| {
            package
                .get(key)
                .and_then(Value::as_object)
                .is_some_and(|deps| deps.contains_key(dep))
        })
    };
    FRAMEWORKS.iter().find(|(dep, _)| has(dep)).map(|(_, f)| *f)
}

fn project_name(dir: &Path, package: Option<&Object>) -> String {
    package
        .and_then(|p| p.get("name").and_then(Value::as_str).map(str::to_owned))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| folder_name(dir))
}

/// A project's last change, in epoch milliseconds: its last commit's date when it is a git
/// repository that git can read, else the newest modification found below it.
fn last_change_ms(dir: &Path) -> Option<f64> {
    let ms = if fs::symlink_metadata(dir.join(".git")).is_ok() {
        last_commit_ms(dir).or_else(|| newest_below_ms(dir, MAX_WALK))
    } else {
        newest_below_ms(dir, MAX_WALK)
    };
    #[expect(
        clippy::cast_precision_loss,
        reason = "epoch milliseconds fit a double exactly"
    )]
    ms.map(|ms| ms as f64).filter(|ms| *ms <= 8.64e15)
}

/// `git log -1 --format=%ct` in `dir`: the last commit's committer date; `None` when git is
/// missing, fails, or the repository has no commit.
fn last_commit_ms(dir: &Path) -> Option<u128> {
    let stdout = git_stdout(dir, ["--no-pager", "log", "-1", "--format=%ct"])?;
    let seconds: u128 = trim(&String::from_utf8_lossy(&stdout)).parse().ok()?;
    Some(seconds * 1000)
}

/// The newest modification time of `dir` and everything below it, breadth first in name order,
/// skipping hidden, dependency and build folders, never following a link, and stopping after
/// `limit` entries.
fn newest_below_ms(dir: &Path, limit: usize) -> Option<u128> {
    let mtime = |meta: &fs::Metadata| {
        meta.modified()
            .ok()?
            .duration_since(UNIX_EPOCH)
            .ok()
            .map(|d| d.as_millis())
    };
    let mut newest = fs::symlink_metadata(dir).ok().and_then(|m| mtime(&m));
    let mut pending = VecDeque::from([dir.to_path_buf()]);
    let mut seen = 0usize;
    while let Some(folder) = pending.pop_front() {
        for name in names(&folder) {
            if seen == limit {
                return newest;
            }
            seen += 1;
            let path = folder.join(&name);
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                if name.starts_with('.') || SKIP_DIRS.contains(&name.as_str()) {
                    continue;
                }
                pending.push_back(path);
            }
            newest = newest.max(mtime(&meta));
        }
    }
    newest
}

/// `active` (< 30 days), `paused` (< 180 days), `archived`, or `unknown`, at `now_ms`.
#[must_use]
pub(crate) fn status_at(last_change: Option<f64>, now_ms: f64) -> &'static str {
    let Some(ms) = last_change else {
        return "unknown";
    };
    let days = (now_ms - ms) / MS_PER_DAY;
    if days < 30.0 {
        "active"
    } else if days < 180.0 {
        "paused"
    } else {
        "archived"
    }
}

/// The sorted entry names of a folder.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(std::result::Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Every project at or below `top` (see the module documentation); a marker file that cannot
/// be read safely adds a warning.
pub(crate) fn find_projects(top: &Path, now_ms: f64, warnings: &mut Vec<String>) -> Vec<Project> {
    let mut found = Vec::new();
    let mut pending = vec![(top.to_path_buf(), String::new(), 0usize)];
    while let Some((dir, rel, depth)) = pending.pop() {
        let entries = names(&dir);
        let markers = markers_of(&entries, depth == 0);
        if !markers.is_empty() {
            let last = last_change_ms(&dir);
            let package = entries
                .iter()
                .any(|n| n == "package.json")
                .then(|| package_json(&dir, top, warnings))
                .flatten();
            found.push(Project {
                rel: if rel.is_empty() { ".".to_owned() } else { rel },
                name: project_name(&dir, package.as_ref()),
                stack: stack_of(&markers, package.as_ref()),
                is_bmad: entries.iter().any(|n| n == ".agents" || n == "_bmad"),
                last_change: last.map(date::to_iso_string),
                status: status_at(last, now_ms),
                hash: brain::project_hash(&dir),
                markers,
                path: dir,
            });
            continue;
        }
        if depth == MAX_DEPTH {
            continue;
        }
        // Reverse order on the stack, so folders are visited in name order.
        for name in entries.iter().rev() {
            if name.starts_with('.') || SKIP_DIRS.contains(&name.as_str()) {
                continue;
            }
            let child = dir.join(name);
            let is_dir = fs::symlink_metadata(&child).is_ok_and(|m| m.is_dir());
            if is_dir {
                let child_rel = if rel.is_empty() {
                    name.clone()
                } else {
                    format!("{rel}/{name}")
                };
                pending.push((child, child_rel, depth + 1));
            }
        }
    }
    found
}

/// The index entry fields of a scanned project, as bmad-plus's `scan` writes them.
fn index_fields(p: &Project, today: &str) -> Vec<crate::session::templates::IndexField> {
    vec![
        ("path", yaml_string(&p.path.to_string_lossy())),
        ("name", yaml_string(&p.name)),
        ("hash", yaml_string(&p.hash)),
        ("stack", yaml_string(&p.stack)),
        ("status", yaml_string(p.status)),
        ("bmad_installed", p.is_bmad.to_string()),
        ("has_git", p.markers.iter().any(|m| m == ".git").to_string()),
        (
            "last_modified",
            p.last_change.as_deref().map_or_else(
                || "null".to_owned(),
                |iso| yaml_string(iso.split('T').next().unwrap_or(iso)),
            ),
        ),
        ("last_scanned", yaml_string(today)),
    ]
}

/// What `--index` did.
#[derive(Debug, Clone, Default)]
pub(crate) struct Indexed {
    pub brain: PathBuf,
    /// Brain files created to complete it.
    pub completed: Vec<String>,
    /// Hashes whose entry was created.
    pub created: Vec<String>,
    /// Hashes that already had an entry (left as it is).
    pub kept: Vec<String>,
}

/// The scan.
#[derive(Debug, Clone)]
pub(crate) struct ScanReport {
    pub dir: PathBuf,
    pub projects: Vec<Project>,
    pub indexed: Option<Indexed>,
    /// One line for each marker file skipped; under `--json`, a last key present only then.
    pub warnings: Vec<String>,
}

/// Runs `scan`.
///
/// # Errors
/// A folder that does not exist; with `--index`, no home folder or a global brain that cannot
/// be written.
pub(crate) fn run(args: &ScanArgs, ctx: &Context) -> Result<ScanReport> {
    let given = args.dir.as_deref().unwrap_or_default();
    if given.is_empty() {
        return Err(Error::refused(messages::DIR_REQUIRED));
    }
    let dir = resolve(&ctx.cwd, Path::new(given));
    if !fs::metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return Err(Error::refused(messages::scan_dir_missing(&dir)));
    }
    let home = if args.index {
        Some(
            ctx.home
                .as_deref()
                .ok_or_else(|| Error::refused(messages::HOME_UNSET))?,
        )
    } else {
        None
    };
    let mut warnings = Vec::new();
    let projects = find_projects(&dir, ctx.now.ms, &mut warnings);
    let indexed = match home {
        Some(home) => Some(index(home, &projects, day(&ctx.now))?),
        None => None,
    };
    Ok(ScanReport {
        dir,
        projects,
        indexed,
        warnings,
    })
}

fn index(home: &Path, projects: &[Project], today: &str) -> Result<Indexed> {
    let brain_dir = global_brain_dir(home);
    let completed = complete_global_brain(&brain_dir, today)?;
    let mut indexed = Indexed {
        completed: completed
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect(),
        ..Indexed::default()
    };
    for project in projects {
        let fields = index_fields(project, today);
        match brain::write_index_entry(&brain_dir, &project.hash, &fields)? {
            Some(_) => indexed.created.push(project.hash.clone()),
            None => indexed.kept.push(project.hash.clone()),
        }
    }
    indexed.brain = brain_dir;
    Ok(indexed)
}

fn strings(list: &[String]) -> Value {
    Value::Array(list.iter().map(Value::from).collect())
}

impl Report for ScanReport {
    fn to_json(&self) -> Value {
        let projects: Vec<Value> = self
            .projects
            .iter()
            .map(|p| {
                Value::Object(
                    Object::new()
                        .with("path", p.path.to_string_lossy().into_owned())
                        .with("relative", p.rel.as_str())
                        .with("name", p.name.as_str())
                        .with("stack", p.stack.as_str())
                        .with("markers", strings(&p.markers))
                        .with("lastChange", p.last_change.clone())
                        .with("status", p.status)
                        .with("bmadInstalled", p.is_bmad)
                        .with("hash", p.hash.as_str()),
                )
            })
            .collect();
        let indexed = self.indexed.as_ref().map(|i| {
            Object::new()
                .with("brain", i.brain.to_string_lossy().into_owned())
                .with("completed", strings(&i.completed))
                .with("created", strings(&i.created))
                .with("kept", strings(&i.kept))
        });
        Value::Object(
            Object::new()
                .with("dir", self.dir.to_string_lossy().into_owned())
                .with("count", count(self.projects.len()))
                .with("projects", projects)
                .with("indexed", indexed)
                .with("warnings", strings(&self.warnings)),
        )
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn render_human(&self) -> String {
        let mut out = format!(
            "mem scan: {} project(s) under {}\n",
            self.projects.len(),
            self.dir.display()
        );
        for p in &self.projects {
            let changed = p
                .last_change
                .as_deref()
                .map_or("-", |iso| iso.split('T').next().unwrap_or(iso));
            let _ = writeln!(
                out,
                "  {:<8} {:<12} {:<10} {}  [{}]",
                p.status,
                p.stack,
                changed,
                p.rel,
                p.markers.join(", ")
            );
        }
        if let Some(i) = &self.indexed {
            let _ = writeln!(
                out,
                "  indexed {} new, {} already indexed, in {}",
                i.created.len(),
                i.kept.len(),
                i.brain.join(PROJECTS).display()
            );
        }
        out
    }

    fn written(&self) -> Option<String> {
        let i = self.indexed.as_ref()?;
        if i.created.is_empty() && i.completed.is_empty() {
            return None;
        }
        Some(format!(
            "{} project entr{} and {} brain file(s) written in {}",
            i.created.len(),
            if i.created.len() == 1 { "y" } else { "ies" },
            i.completed.len(),
            i.brain.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_of(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn markers_in_priority_order() {
        assert_eq!(
            markers_of(&names_of(&[".git", "Cargo.toml", "package.json"]), false),
            ["package.json", "Cargo.toml", ".git"]
        );
        assert_eq!(
            markers_of(&names_of(&[".git", "README.md"]), false),
            [".git"]
        );
        // The scanned folder itself needs a stack marker.
        assert!(markers_of(&names_of(&[".git", "AGENTS.md"]), true).is_empty());
        assert_eq!(markers_of(&names_of(&["App.sln"]), true), ["App.sln"]);
    }

    #[test]
    fn the_walk_for_the_last_change_is_bounded_and_breadth_first() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        let at = |secs: u64| UNIX_EPOCH + std::time::Duration::from_secs(secs);
        let touch = |rel: &str, secs: u64| {
            let path = top.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, "x").unwrap();
            fs::File::open(&path)
                .unwrap()
                .set_modified(at(secs))
                .unwrap();
        };
        touch("a.txt", 100);
        touch("b/c/deep.rs", 300);
        touch("z.txt", 200);
        for folder in ["b/c", "b", ""] {
            fs::File::open(top.join(folder))
                .unwrap()
                .set_modified(at(50))
                .unwrap();
        }
        // Level 0 first (a.txt, b/, z.txt), then b/c/, then deep.rs.
        assert_eq!(newest_below_ms(top, 3), Some(200_000));
        assert_eq!(newest_below_ms(top, 4), Some(200_000));
        assert_eq!(newest_below_ms(top, 5), Some(300_000));
        assert_eq!(newest_below_ms(top, MAX_WALK), Some(300_000));
    }

    #[test]
    fn statuses_by_age() {
        let now = 100.0 * MS_PER_DAY;
        assert_eq!(status_at(None, now), "unknown");
        assert_eq!(status_at(Some(now), now), "active");
        assert_eq!(status_at(Some(now - 29.9 * MS_PER_DAY), now), "active");
        assert_eq!(status_at(Some(now - 30.0 * MS_PER_DAY), now), "paused");
        assert_eq!(status_at(Some(now - 179.0 * MS_PER_DAY), now), "paused");
        assert_eq!(status_at(Some(now - 180.0 * MS_PER_DAY), now), "archived");
        assert_eq!(status_at(Some(0.0), 200.0 * MS_PER_DAY), "archived");
    }

    #[test]
    fn finds_projects_in_name_order_without_descending_into_them() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        for (rel, file) in [
            ("b/api", "go.mod"),
            ("a/web", "package.json"),
            ("a/web/sub", "Cargo.toml"),
            ("c/node_modules/x", "package.json"),
            ("d/.hidden", "Cargo.toml"),
            ("e/1/2/3", "Cargo.toml"),
            ("f/1/2/3/4", "Cargo.toml"),
        ] {
            fs::create_dir_all(top.join(rel)).unwrap();
            fs::write(
                top.join(rel).join(file),
                "{\"dependencies\":{\"react\":\"1\"}}",
            )
            .unwrap();
        }
        fs::create_dir_all(top.join("g/.git")).unwrap();
        let found = find_projects(top, 0.0, &mut Vec::new());
        let rels: Vec<(&str, &str)> = found
            .iter()
            .map(|p| (p.rel.as_str(), p.stack.as_str()))
            .collect();
        assert_eq!(
            rels,
            [
                ("a/web", "React"),
                ("b/api", "Go"),
                ("e/1/2/3", "Rust"),
                ("g", "unknown")
            ]
        );
    }
}
