//! `view`: the project memory as one self-contained HTML page — decisions, timeline, lessons
//! and patterns, evidence, governance — for the people who audit it (docs/VIEW.md).
//!
//! Read-only, like `status`: the memory is read through the commands' own readers
//! ([`memory`]), never changed, and no lock is taken. The only file written is the page itself,
//! atomically (temporary file, sync, rename): `.bmad/cache/view.html` in the project (`init`
//! and `git setup` ignore `.bmad/cache/` in the project's `.gitignore`; the folder also gets a
//! `.gitignore` of `*` when it has none, so the page is never committed in a project set up by
//! neither), or
//! `--out <file>`, relative to the current directory; a folder, a link or a special file in
//! the way is refused. `--open` hands the page to the platform's opener (`xdg-open`, `open`,
//! `start`) without waiting for it; an opener that cannot be started is a warning, the page
//! being written.
//!
//! The page is safe by construction: every stored text is escaped ([`html`]), Markdown is
//! rendered with raw HTML off and links restricted ([`markdown`]), and its Content-Security-Policy
//! allows no network at all and no script or style but its own, by hash ([`page`]). Long lists
//! are capped and paged (the caps are in docs/VIEW.md).

mod decisions;
mod entries;
mod evidence;
mod governance;
mod html;
mod index;
mod markdown;
mod memory;
mod page;
pub(crate) mod records;
mod svg;
mod timeline;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use crate::admin::view::page::Origin;
use crate::context::{Context, folder_name};
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::path::resolve;
use crate::messages;
use crate::output::Report;
use crate::store::confined::{self, Dir};
use crate::store::layout::{GITIGNORE, VIEW_PAGE};
use crate::store::paths::not_regular;
use crate::store::temporaries;

/// Write the memory as one HTML page (decisions, timeline, lessons and patterns, evidence,
/// governance) and print its path.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ViewArgs {
    /// Where to write the page, relative to the current directory (default:
    /// .bmad/cache/view.html in the project); an existing regular file is replaced.
    #[arg(long, value_name = "file", allow_hyphen_values = true)]
    pub out: Option<String>,
    /// Open the page with the platform's opener (xdg-open, open, start) once written.
    #[arg(long)]
    pub open: bool,
}

/// What `view` wrote.
#[derive(Debug)]
pub(crate) struct ViewReport {
    pub path: PathBuf,
    pub bytes: usize,
    pub counts: Object,
    pub warnings: Vec<String>,
}

/// Runs `view`.
///
/// # Errors
/// An empty `--out`, an output that is not a regular file, an I/O error writing the page.
/// Nothing in the memory makes it fail: what cannot be read is shown on the page.
pub(crate) fn run(args: &ViewArgs, ctx: &Context) -> Result<ViewReport> {
    let out = match &args.out {
        Some(out) if out.is_empty() => return Err(Error::refused(messages::OUT_EMPTY)),
        Some(out) => Some(resolve(&ctx.cwd, Path::new(out))),
        None => None,
    };
    if let Some(out) = &out
        && let Some(what) = fs::symlink_metadata(out)
            .ok()
            .as_ref()
            .and_then(not_regular)
    {
        return Err(Error::refused(messages::view_out_not_regular(what, out)));
    }
    let memory = memory::read(ctx);
    let origin = Origin {
        project: folder_name(&ctx.root),
        root: ctx.root.to_string_lossy().into_owned(),
        at: ctx.now.iso.clone(),
    };
    let page = page::render(&memory, &origin);
    let path = match out {
        Some(out) => write_out(&out, &page.html)?,
        None => write_cache(ctx, &page.html)?,
    };
    let mut warnings: Vec<String> = memory
        .note_warnings
        .iter()
        .chain(&memory.stores.warnings)
        .cloned()
        .collect();
    if args.open
        && let Err(e) = open(&path)
    {
        warnings.push(messages::view_not_opened(&e));
    }
    Ok(ViewReport {
        path,
        bytes: page.html.len(),
        counts: page.counts,
        warnings,
    })
}

/// The page's name in its folder.
fn name_of(path: &Path) -> &std::ffi::OsStr {
    path.file_name().unwrap_or_default()
}

/// Writes `.bmad/cache/view.html` in the project, through the confined walk (never through a
/// link), and keeps the cache folder out of git.
fn write_cache(ctx: &Context, html: &str) -> Result<PathBuf> {
    let target = confined::locate(&ctx.root, VIEW_PAGE, true)?;
    let path = target.path().to_path_buf();
    let dir = target.into_dir("cannot write")?;
    ignore_folder(&dir)?;
    replace(&dir, name_of(&path), html, &path)?;
    Ok(path)
}

/// Writes the page to `out` (any folder the user names, links followed as the shell would).
fn write_out(out: &Path, html: &str) -> Result<PathBuf> {
    let folder = out.parent().unwrap_or(Path::new("/"));
    let dir = Dir::open_plain(folder).map_err(|e| Error::io("cannot write", out, e))?;
    replace(&dir, name_of(out), html, out)?;
    Ok(out.to_path_buf())
}

fn replace(dir: &Dir, name: &std::ffi::OsStr, html: &str, path: &Path) -> Result<()> {
    if name.is_empty() {
        return Err(Error::refused(messages::view_out_not_regular(
            "a folder", path,
        )));
    }
    let own = name.to_string_lossy().into_owned();
    temporaries::sweep_temporaries(dir, |stem| stem == own);
    let _hold = temporaries::hold_for_temporaries(dir);
    dir.replace(name, html.as_bytes()).map_err(|e| match e {
        Error::Io { source, .. } => Error::io("cannot write", path, source),
        e => e,
    })
}

/// Gives the cache folder a `.gitignore` of `*` when it has none (created exclusively; an
/// existing one, of any content, is left as it is): what is derived is never committed.
fn ignore_folder(dir: &Dir) -> Result<()> {
    use std::io::Write as _;
    let name = std::ffi::OsStr::new(GITIGNORE);
    if let Some(mut file) = dir.create_new(name)? {
        file.write_all(b"# Derived files of this clone (bmad-mem): never committed.\n*\n")
            .and_then(|()| file.sync_all())
            .map_err(|e| Error::io("cannot write", &dir.path().join(name), e))?;
    }
    Ok(())
}

/// Starts the platform's opener on `path`, without waiting for it.
fn open(path: &Path) -> std::io::Result<()> {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut start = std::process::Command::new("cmd");
        start.args(["/C", "start", ""]);
        start
    } else {
        std::process::Command::new("xdg-open")
    };
    command
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(drop)
}

fn number(counts: &Object, path: &[&str]) -> String {
    let mut value = None;
    let mut object = Some(counts);
    for key in path {
        value = object.and_then(|o| o.get(key));
        object = value.and_then(Value::as_object);
    }
    value.map(Value::text).unwrap_or_default()
}

impl Report for ViewReport {
    fn to_json(&self) -> Value {
        #[expect(clippy::cast_precision_loss, reason = "a page of a few MiB")]
        let bytes = self.bytes as f64;
        Value::Object(
            Object::new()
                .with("path", self.path.to_string_lossy().into_owned())
                .with("bytes", bytes)
                .with("counts", self.counts.clone())
                .with(
                    "warnings",
                    self.warnings.iter().map(Value::from).collect::<Vec<_>>(),
                ),
        )
    }

    fn render_human(&self) -> String {
        let c = |path: &[&str]| number(&self.counts, path);
        let mut out = format!("mem view: {}\n", self.path.display());
        let _ = writeln!(
            out,
            "  {} in force, {} proposed, {} ended; {} lesson(s), {} pattern(s); {} journal event(s); {} receipt(s); {} candidate(s); {} bytes",
            c(&["decisions", "inForce"]),
            c(&["decisions", "proposed"]),
            c(&["decisions", "ended"]),
            c(&["lessons"]),
            c(&["patterns"]),
            c(&["events"]),
            c(&["receipts", "total"]),
            c(&["candidates"]),
            self.bytes
        );
        out
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn written(&self) -> Option<String> {
        Some(format!("{} written", self.path.display()))
    }
}
