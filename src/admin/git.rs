//! `bmad-mem git setup [--dry-run]`: makes a clone merge the memory record by record.
//!
//! Git merges a file with the driver its attributes name, and runs a custom driver only when the
//! clone's own config defines it (git never takes a command from the repository itself). So
//! setup does two things:
//!
//! * in the project's `.gitattributes` (created, or appended to as [`crate::store::linefile`]
//!   appends: existing lines are kept, the
//!   file is replaced atomically), one line per registry and per note file the merge driver
//!   knows — `<file> merge=bmad-mem` (the candidate files as one pattern,
//!   `.bmad/memory/candidates/*.md`) — and one per generated view — `<file> merge=bmad-mem-view`.
//!   That file is committed, so every clone agrees on it;
//! * in the project's `.gitignore`, the line `.bmad/cache/` (each clone's derived files, such
//!   as the embedding index, are never committed), unless a line already ignores it;
//! * in the clone's config (`git config --local`, as git requires, per clone):
//!   `merge.bmad-mem.driver` = `<bin> merge-driver %O %A %B %P` and `merge.bmad-mem-view.driver`
//!   = `true`, each with a `name`. `<bin>` is `bmad-mem` when that is what `PATH` finds (the
//!   same file as the running binary), else the running binary's absolute path, quoted for the
//!   shell git runs the driver with (and each `%` doubled, as git expands them).
//!
//! The views get a driver of their own because git has no built-in `ours` merge driver for
//! attributes: `true` succeeds without touching the clone's version, and `doctor` then reports
//! the drift, which `doctor --rebuild-views` repairs.
//!
//! Every step is decided before anything is written; the config is set before `.gitattributes`
//! is replaced and set back when that fails. A second run finds everything in place and writes
//! nothing. `--dry-run` says what it would change and changes nothing.
//!
//! Setup also installs the clone's `post-merge`, `post-checkout` and `post-rewrite` hooks, which
//! run `bmad-mem git hook <name>` to rebuild the views after a merge, checkout or rebase,
//! chained with any hook of the user's ([`hooks`]); a hook it cannot write is a warning, never a
//! failure of the rest. `--remove-hooks` takes exactly those blocks out again.

use std::fmt::Write as _;
use std::path::Path;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::messages;
use crate::output::Report;
use crate::store::confined;
use crate::store::git::{self, Probe, REGISTRY_DRIVER, VIEW_DRIVER};
use crate::store::ignore::{self, Ignored};
use crate::store::layout::{
    CANDIDATE_FILES, GITATTRIBUTES, GITIGNORE, MERGED_NOTES, MERGED_REGISTRIES, MERGED_VIEWS,
};
use crate::store::linefile;

pub(crate) mod hooks;

use crate::admin::git::hooks::{HookArgs, HookChange, Launcher, Plan};

/// The git integration.
#[derive(Debug, Clone, clap::Args)]
pub struct GitArgs {
    #[command(subcommand)]
    pub command: GitCommand,
}

/// What `git` does.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum GitCommand {
    /// Name the memory's merge drivers in .gitattributes and define them in this clone's git
    /// config (run it in each clone; commit .gitattributes); install the hooks that rebuild
    /// the memory's views after a merge, checkout or rebase.
    Setup(SetupArgs),
    /// Rebuild the memory's generated views after a merge, branch checkout or rebase (what the
    /// hooks `git setup` installs run, with git's arguments).
    Hook(HookArgs),
}

/// `git setup`'s options.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SetupArgs {
    /// Print what would change; change nothing.
    #[arg(long = "dry-run")]
    pub dry_run: bool,
    /// Take bmad-mem's block out of this clone's post-merge, post-checkout and post-rewrite
    /// hooks (the rest of each hook stays); change nothing else.
    #[arg(long = "remove-hooks")]
    pub remove_hooks: bool,
}

/// The comment that heads the lines setup adds.
const HEADER: &str =
    "# bmad-mem: merge the project memory record by record (see `bmad-mem git setup`)";

/// The drivers' names, as `git config` shows them.
const REGISTRY_DRIVER_NAME: &str = "bmad-mem: the memory registries, merged record by record";
const VIEW_DRIVER_NAME: &str =
    "bmad-mem: a generated view, kept as it is (bmad-mem doctor --rebuild-views regenerates it)";

/// One config entry setup sets: its key, its value and the value it had in the clone's config.
#[derive(Debug, Clone)]
pub(crate) struct ConfigChange {
    pub key: String,
    pub value: String,
    pub was: Option<String>,
}

/// What setup did, or would do.
#[derive(Debug, Default)]
pub(crate) struct SetupReport {
    pub dry_run: bool,
    /// The driver command written (or that would be) into the config.
    pub driver: String,
    /// Whether the driver is named as `bmad-mem` (found on `PATH`) rather than by its path.
    pub on_path: bool,
    /// Whether `.gitattributes` did not exist.
    pub created: bool,
    /// The lines added to `.gitattributes` (the header comment not counted).
    pub added: Vec<String>,
    pub config: Vec<ConfigChange>,
    /// The hooks changed (or that would be).
    pub hooks: Vec<HookChange>,
    /// `.gitignore`'s line for `.bmad/cache/`: already there, or created or added (or to be).
    pub ignored: Ignored,
    pub warnings: Vec<String>,
}

impl SetupReport {
    fn already(&self) -> bool {
        self.added.is_empty()
            && self.config.is_empty()
            && self.ignored == Ignored::Already
            && self.hooks.is_empty()
    }
}

/// What `git setup --remove-hooks` did, or would do.
#[derive(Debug, Default)]
pub(crate) struct RemovalReport {
    pub dry_run: bool,
    pub hooks: Vec<HookChange>,
    pub warnings: Vec<String>,
}

/// Runs `git <command>`.
///
/// # Errors
/// No git on `PATH`; a project outside a git work tree; a binary whose path cannot be written
/// into the config; `.gitattributes` that cannot be read or written; git refusing a change.
pub(crate) fn run(args: &GitArgs, ctx: &Context) -> Result<Box<dyn Report>> {
    Ok(match &args.command {
        GitCommand::Setup(setup_args) if setup_args.remove_hooks => {
            Box::new(remove_hooks(setup_args, ctx)?)
        }
        GitCommand::Setup(setup_args) => Box::new(setup(setup_args, ctx)?),
        GitCommand::Hook(hook_args) => Box::new(hooks::run(hook_args, ctx)?),
    })
}

/// The `.gitattributes` lines setup wants, in order.
#[must_use]
pub(crate) fn wanted_lines() -> Vec<String> {
    MERGED_REGISTRIES
        .iter()
        .chain(MERGED_NOTES.iter())
        .map(|rel| format!("{rel} merge={REGISTRY_DRIVER}"))
        .chain(
            MERGED_VIEWS
                .iter()
                .map(|rel| format!("{rel} merge={VIEW_DRIVER}")),
        )
        .collect()
}

/// The lines of [`wanted_lines`] that the attributes file `existing` lacks (lines compared with
/// their runs of blanks made one), in order.
#[must_use]
pub(crate) fn missing_lines(existing: &[u8]) -> Vec<String> {
    let wanted = wanted_lines();
    let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
    linefile::missing(existing, &wanted, linefile::normalized)
}

/// Refuses a project outside a git work tree, or without git.
fn require_work_tree(ctx: &Context) -> Result<()> {
    match git::probe(&ctx.root) {
        Probe::NoGit => Err(Error::refused(messages::GIT_MISSING)),
        Probe::NotWorkTree(why) => Err(Error::refused(messages::not_a_work_tree(&ctx.root, &why))),
        Probe::WorkTree => Ok(()),
    }
}

fn setup(args: &SetupArgs, ctx: &Context) -> Result<SetupReport> {
    require_work_tree(ctx)?;
    let (bin, on_path) = binary_word(ctx)?;
    // Git expands `%` sequences anywhere in the driver's command before the shell sees it, and
    // writes `%%` as one `%`.
    let driver = format!("{} merge-driver %O %A %B %P", bin.replace('%', "%%"));
    let (place, mut hooks_plan) = match git::hooks_place(&ctx.root) {
        Some(place) if hooks::is_nameable(&place.prefix) => {
            let folder = hooks::folder_of(&place);
            let launcher = Launcher {
                bin: bin.clone(),
                on_path,
                folder_word: shell_quote(&folder),
                folder,
            };
            let plan = hooks::plan_install(&place, &launcher);
            (Some(place), plan)
        }
        Some(_) => (
            None,
            Plan {
                warnings: vec![messages::HOOK_FOLDER_UNNAMEABLE.to_owned()],
                ..Plan::default()
            },
        ),
        None => (None, Plan::default()),
    };

    let target = confined::locate(&ctx.root, GITATTRIBUTES, false)?;
    let existing = target.read(true)?.map(|(bytes, _)| bytes);
    let added = missing_lines(existing.as_deref().unwrap_or_default());

    let mut config = Vec::new();
    for (key, value) in [
        (
            format!("merge.{REGISTRY_DRIVER}.name"),
            REGISTRY_DRIVER_NAME.to_owned(),
        ),
        (format!("merge.{REGISTRY_DRIVER}.driver"), driver.clone()),
        (
            format!("merge.{VIEW_DRIVER}.name"),
            VIEW_DRIVER_NAME.to_owned(),
        ),
        (format!("merge.{VIEW_DRIVER}.driver"), "true".to_owned()),
    ] {
        let was = git::config_get(&ctx.root, &key, true)?;
        if was.as_deref() != Some(value.as_str()) {
            config.push(ConfigChange { key, value, was });
        }
    }

    let mut report = SetupReport {
        dry_run: args.dry_run,
        driver,
        on_path,
        created: existing.is_none(),
        added,
        config,
        ignored: ignore::ensure(&ctx.root, true)?,
        hooks: std::mem::take(&mut hooks_plan.changes),
        warnings: Vec::new(),
    };
    if args.dry_run {
        report.warnings = hooks_plan.warnings;
        return Ok(report);
    }
    if !report.added.is_empty() || !report.config.is_empty() {
        apply(ctx, &target, existing.as_deref(), &report)?;
    }
    if report.ignored != Ignored::Already {
        report.ignored = ignore::ensure(&ctx.root, false)?;
    }
    if let Some(place) = place {
        hooks_plan.changes = std::mem::take(&mut report.hooks);
        hooks::apply(&place, &mut hooks_plan);
        report.hooks = hooks_plan.changes;
    }
    report.warnings = hooks_plan.warnings;
    report.warnings.extend(overridden(&ctx.root));
    Ok(report)
}

/// `git setup --remove-hooks`: takes this project's block out of the clone's hooks.
fn remove_hooks(args: &SetupArgs, ctx: &Context) -> Result<RemovalReport> {
    require_work_tree(ctx)?;
    let Some(place) = git::hooks_place(&ctx.root) else {
        return Ok(RemovalReport {
            dry_run: args.dry_run,
            ..RemovalReport::default()
        });
    };
    let mut plan = hooks::plan_removal(&place, &hooks::folder_of(&place));
    if !args.dry_run {
        hooks::apply(&place, &mut plan);
    }
    Ok(RemovalReport {
        dry_run: args.dry_run,
        hooks: plan.changes,
        warnings: plan.warnings,
    })
}

/// Sets the config, then replaces `.gitattributes`; the config is set back when the file cannot
/// be written.
fn apply(
    ctx: &Context,
    target: &confined::Target,
    existing: Option<&[u8]>,
    report: &SetupReport,
) -> Result<()> {
    let mut done: Vec<&ConfigChange> = Vec::new();
    let mut result = Ok(());
    for change in &report.config {
        result = git::config_set(&ctx.root, &change.key, Some(&change.value));
        if result.is_err() {
            break;
        }
        done.push(change);
    }
    if result.is_ok() && !report.added.is_empty() {
        let bytes = linefile::extended(existing.unwrap_or_default(), HEADER, &report.added);
        result = target
            .require_dir("cannot write")
            .and_then(|dir| dir.replace(target.name(), &bytes));
    }
    if let Err(e) = result {
        for change in done.into_iter().rev() {
            let _ = git::config_set(&ctx.root, &change.key, change.was.as_deref());
        }
        return Err(e);
    }
    Ok(())
}

/// Warnings for the files whose merge attribute, as git applies it, is not the one
/// `.gitattributes` now names (another attributes file overrides it). The candidate files are
/// asked about as `.bmad/memory/candidates/<id>.md`.
fn overridden(root: &Path) -> Vec<String> {
    let candidate = CANDIDATE_FILES.replace('*', "<id>");
    let paths: Vec<&str> = MERGED_REGISTRIES
        .iter()
        .chain(MERGED_VIEWS.iter())
        .chain(MERGED_NOTES.iter().filter(|rel| **rel != CANDIDATE_FILES))
        .copied()
        .chain([candidate.as_str()])
        .collect();
    let Ok(found) = git::merge_attributes(root, &paths) else {
        return Vec::new();
    };
    found
        .into_iter()
        .filter_map(|(path, value)| {
            let wanted = if MERGED_VIEWS.contains(&path.as_str()) {
                VIEW_DRIVER
            } else {
                REGISTRY_DRIVER
            };
            (value != wanted).then(|| {
                format!(
                    "git merges {path} with merge={value}, not merge={wanted}: another attributes file (.git/info/attributes, or one in a folder nearer the file) overrides {GITATTRIBUTES}"
                )
            })
        })
        .collect()
}

/// The running binary as one shell word, and whether it is named `bmad-mem` (found on `PATH`).
fn binary_word(ctx: &Context) -> Result<(String, bool)> {
    let exe = ctx
        .exe
        .as_deref()
        .ok_or_else(|| Error::refused(messages::EXE_UNKNOWN))?;
    let on_path = first_on_path(ctx).is_some_and(|found| same_file(&found, exe));
    let bin = if on_path {
        "bmad-mem".to_owned()
    } else {
        let text = exe
            .to_str()
            .ok_or_else(|| Error::refused(messages::exe_not_utf8(exe)))?;
        shell_quote(text)
    };
    Ok((bin, on_path))
}

/// The first `bmad-mem` that `PATH` leads to, as the shell finds it. A relative folder of
/// `PATH` (empty, `.`, `bin`) is passed over: it names another folder wherever git runs the
/// driver from, so it never lets the driver be named `bmad-mem`.
fn first_on_path(ctx: &Context) -> Option<std::path::PathBuf> {
    let path = ctx.path_var.as_ref()?;
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join("bmad-mem"))
        .find(|candidate| candidate.is_file())
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// `text` as one word for a POSIX shell: as it is when it holds only safe characters, else in
/// single quotes (a quote inside written `'\''`).
fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@%=".contains(&b));
    if safe {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// `git config --local <key> <value>`, quoted for a shell, as the report shows it.
fn config_command(change: &ConfigChange) -> String {
    format!(
        "git config --local {} {}",
        change.key,
        shell_quote(&change.value)
    )
}

impl Report for SetupReport {
    fn to_json(&self) -> Value {
        let config: Vec<Value> = self
            .config
            .iter()
            .map(|c| {
                Value::Object(
                    Object::new()
                        .with("key", c.key.as_str())
                        .with("value", c.value.as_str())
                        .with("was", c.was.as_deref().map_or(Value::Null, Value::from)),
                )
            })
            .collect();
        Value::Object(
            Object::new()
                .with("dryRun", self.dry_run)
                .with("alreadySetUp", self.already())
                .with("driver", self.driver.as_str())
                .with("driverOnPath", self.on_path)
                .with(
                    "gitattributes",
                    Object::new()
                        .with("file", GITATTRIBUTES)
                        .with("created", self.created && !self.added.is_empty())
                        .with(
                            "added",
                            self.added.iter().map(Value::from).collect::<Vec<_>>(),
                        ),
                )
                .with(
                    "gitignore",
                    Object::new()
                        .with("file", GITIGNORE)
                        .with("line", ignore::line())
                        .with("added", self.ignored != Ignored::Already),
                )
                .with("config", config)
                .with("hooks", hooks::changes_json(&self.hooks))
                .with(
                    "warnings",
                    self.warnings.iter().map(Value::from).collect::<Vec<_>>(),
                ),
        )
    }

    fn render_human(&self) -> String {
        if self.already() {
            return format!(
                "mem git setup: already set up — {GITATTRIBUTES} names the merge drivers and this clone's git config defines them; nothing was changed\n"
            );
        }
        let (mut out, add, set) = if self.dry_run {
            (
                "mem git setup: dry run — nothing was changed; it would:\n".to_owned(),
                "would add to",
                "would run",
            )
        } else {
            (
                "mem git setup: this clone now merges the memory record by record\n".to_owned(),
                "added to",
                "ran",
            )
        };
        for line in &self.added {
            let _ = writeln!(out, "  {add} {GITATTRIBUTES}: {line}");
        }
        if self.ignored != Ignored::Already {
            let _ = writeln!(out, "  {add} {GITIGNORE}: {}", ignore::line());
        }
        for change in &self.config {
            let _ = writeln!(out, "  {set} {}", config_command(change));
        }
        hooks::render_changes(&mut out, &self.hooks, self.dry_run);
        if !self.added.is_empty() {
            let _ = writeln!(
                out,
                "  commit {GITATTRIBUTES}, and run `bmad-mem git setup` in every clone (git reads merge drivers only from each clone's own config)"
            );
        }
        out
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn written(&self) -> Option<String> {
        (!self.dry_run && !self.already()).then(|| {
            format!(
                "{} line(s) added to {GITATTRIBUTES}, {} git config entr(ies) set, {} hook(s) changed",
                self.added.len(),
                self.config.len(),
                self.hooks.len()
            )
        })
    }
}

impl Report for RemovalReport {
    fn to_json(&self) -> Value {
        Value::Object(
            Object::new()
                .with("dryRun", self.dry_run)
                .with("hooks", hooks::changes_json(&self.hooks))
                .with(
                    "warnings",
                    self.warnings.iter().map(Value::from).collect::<Vec<_>>(),
                ),
        )
    }

    fn render_human(&self) -> String {
        if self.hooks.is_empty() {
            return "mem git setup: no hook of this clone rebuilds the memory's views; nothing was changed\n".to_owned();
        }
        let mut out = if self.dry_run {
            "mem git setup: dry run — nothing was changed; it would:\n".to_owned()
        } else {
            "mem git setup: the hooks of this clone no longer rebuild the memory's views\n"
                .to_owned()
        };
        hooks::render_changes(&mut out, &self.hooks, self.dry_run);
        out
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn written(&self) -> Option<String> {
        (!self.dry_run && !self.hooks.is_empty())
            .then(|| format!("{} hook(s) changed", self.hooks.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words() {
        assert_eq!(
            shell_quote("/usr/local/bin/bmad-mem"),
            "/usr/local/bin/bmad-mem"
        );
        assert_eq!(
            shell_quote("/opt/my tools/bmad-mem"),
            "'/opt/my tools/bmad-mem'"
        );
        assert_eq!(shell_quote("/o'k/bmad-mem"), r"'/o'\''k/bmad-mem'");
        assert_eq!(shell_quote(""), "''");
    }
}
