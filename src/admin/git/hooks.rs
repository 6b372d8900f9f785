//! The git hooks that keep the generated views (`INDEX.md`, `CANDIDATES.md`) from blocking a
//! merge: git merges them with `bmad-mem-view`, which keeps the clone's own version, so after a
//! merge, a branch checkout or a rebase they say what the notes said before it. `git setup`
//! installs `post-merge`, `post-checkout` and `post-rewrite` hooks that run `bmad-mem git hook
//! <name>`, which rebuilds the views from the notes now in the work tree (docs/GIT.md).
//!
//! * **Where.** The folder git runs hooks from, as `git rev-parse --git-path hooks` names it in
//!   the project: `core.hooksPath` when it is set, the common git folder's `hooks` in a linked
//!   work tree. Git runs a hook from the top of the work tree, so the hook names the project by
//!   its folder from there (`.` at the top).
//! * **Chained, never replaced.** Our part is one block between two marker lines naming the
//!   project's folder. A missing hook is created (`#!/bin/sh` and the block, mode 755). A hook of
//!   the user's that is an executable shell script (a `#!` naming a POSIX-like shell, or none:
//!   git runs such a file with `sh`) gets the block right after its first line, so it runs
//!   before anything of theirs can `exit`, in a subshell of its own with standard input closed
//!   (post-rewrite's list of commits stays theirs), and its status is ignored. Anything else —
//!   a link, a program in another language, a file git does not run (not executable) — is left
//!   as it is, with a warning that names the line to add. A hook that already runs `git hook
//!   <name>` (by hand) counts as installed.
//! * **Idempotent.** A block already there is left alone, or rewritten in place when its text
//!   changed (the binary moved); `--remove-hooks` takes out exactly the block, and deletes a
//!   file left with nothing but `#!/bin/sh`.
//! * **Harmless.** The block runs only when the project has a `.bmad/memory` folder; when the
//!   binary is not there it prints one line and goes on; `git hook` rebuilds only when the entry
//!   commands were used (a view or the candidates folder exists), only on a branch checkout
//!   (post-checkout's third argument is 1) that changed the commit, only at the end of a rebase
//!   (post-checkout during a rebase waits for post-rewrite), and never with an amend.

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::io::Read as _;
use std::os::unix::fs::PermissionsExt;

use crate::actions::entries::views;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::messages;
use crate::output::Report;
use crate::store::confined::Dir;
use crate::store::git::{self, HooksPlace};
use crate::store::lock::WriterLock;

/// The hooks setup installs, in the order it reports them.
pub(crate) const HOOKS: [&str; 3] = ["post-merge", "post-checkout", "post-rewrite"];

/// A hook larger than this is not read (no shell script of a hook is that long).
const HOOK_CAP: u64 = 1024 * 1024;

/// The first line of a hook setup creates.
const SHEBANG: &str = "#!/bin/sh\n";

/// The shells whose scripts the block may go into (it is POSIX shell).
const SHELLS: [&str; 9] = [
    "sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "yash", "posh",
];

/// `git hook`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct HookArgs {
    /// The hook git is running: post-merge, post-checkout or post-rewrite.
    #[arg(value_name = "hook")]
    pub name: String,
    /// The arguments git passed to the hook (post-checkout: the previous commit, the new one,
    /// and 1 for a branch checkout; post-rewrite: amend or rebase).
    #[arg(
        value_name = "arg",
        allow_hyphen_values = true,
        trailing_var_arg = true
    )]
    pub args: Vec<String>,
}

/// How the hooks run bmad-mem, for one project.
#[derive(Debug, Clone)]
pub(crate) struct Launcher {
    /// The binary, as one shell word (`bmad-mem` when `PATH` finds this binary).
    pub bin: String,
    /// Whether `bin` is the bare name found on `PATH`.
    pub on_path: bool,
    /// The project's folder from the top of the work tree (`.` at the top), as git names it.
    pub folder: String,
    /// The same, as one shell word.
    pub folder_word: String,
}

impl Launcher {
    /// The command a hook of the user's can run by hand.
    #[must_use]
    pub(crate) fn call(&self, hook: &str) -> String {
        format!(
            "{} -d {} git hook {hook} \"$@\"",
            self.bin, self.folder_word
        )
    }
}

/// The line that opens the block of the project in `folder`, and the one that closes it.
fn markers(folder: &str) -> (String, String) {
    (
        format!("# >>> bmad-mem: rebuild the memory's views (project folder: {folder}) >>>"),
        format!("# <<< bmad-mem: rebuild the memory's views (project folder: {folder}) <<<"),
    )
}

/// The block of `hook` for `launcher`'s project.
#[must_use]
pub(crate) fn block(hook: &str, launcher: &Launcher) -> String {
    let (begin, end) = markers(&launcher.folder);
    let found = if launcher.on_path {
        "command -v bmad-mem >/dev/null 2>&1".to_owned()
    } else {
        format!("[ -x {} ]", launcher.bin)
    };
    let folder = &launcher.folder_word;
    format!(
        "{begin}\n\
         # Added by `bmad-mem git setup`, which kept the rest of this file as it was;\n\
         # `bmad-mem git setup --remove-hooks` takes this block out again.\n\
         if [ -d {folder}/.bmad/memory ]; then\n\
         \x20 if {found}; then\n\
         \x20   {call} </dev/null || :\n\
         \x20 else\n\
         \x20   echo 'bmad-mem: not found, so the views of the memory were not rebuilt; run `bmad-mem doctor --rebuild-views`' >&2\n\
         \x20 fi\n\
         fi\n\
         {end}\n",
        call = launcher.call(hook)
    )
}

/// The byte range of the block of the project in `folder` in `text`, its last line's end
/// included; `None` when the opening line and a closing line after it are not both there.
fn find_block(text: &str, folder: &str) -> Option<(usize, usize)> {
    let (begin, end) = markers(folder);
    let mut start = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if start.is_none() && bare == begin {
            start = Some(offset);
        } else if let Some(from) = start
            && bare == end
        {
            return Some((from, offset + line.len()));
        }
        offset += line.len();
    }
    None
}

/// Whether a hook's text runs the views' rebuild of the project in `folder`: our block, or a
/// `git hook <name>` call written by hand.
#[must_use]
pub(crate) fn is_installed(text: &str, hook: &str, folder: &str) -> bool {
    find_block(text, folder).is_some() || text.contains(&format!("git hook {hook}"))
}

/// Whether a hook's text is a script for a POSIX-like shell: its `#!` names one (directly or
/// through `env`), or it has no `#!` at all (git runs it with `sh`).
fn is_shell_script(text: &str) -> bool {
    let Some(line) = text.lines().next().and_then(|l| l.strip_prefix("#!")) else {
        return true;
    };
    let mut words = line.split_ascii_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    let base = |word: &str| word.rsplit('/').next().unwrap_or(word).to_owned();
    let program = if base(first) == "env" {
        words.find(|w| !w.starts_with('-')).map(base)
    } else {
        Some(base(first))
    };
    program.is_some_and(|p| SHELLS.contains(&p.as_str()))
}

/// What setup does to one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// No hook was there: ours is created.
    Created,
    /// The user's hook gets our block.
    Added,
    /// Our block was there with another text (the binary moved): rewritten in place.
    Updated,
    /// `--remove-hooks`: our block taken out of the user's hook.
    Removed,
    /// `--remove-hooks`: a hook that held nothing but our block is deleted.
    Deleted,
}

impl Action {
    #[must_use]
    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            Action::Created => "created",
            Action::Added => "added",
            Action::Updated => "updated",
            Action::Removed => "removed",
            Action::Deleted => "deleted",
        }
    }
}

/// One hook setup changes (or would): its name, its file as git names the folder, what is done,
/// and the new text (`None` to delete it) with the permission bits it gets.
#[derive(Debug, Clone)]
pub(crate) struct HookChange {
    pub name: &'static str,
    pub file: String,
    pub action: Action,
    bytes: Option<String>,
    mode: u32,
}

/// The changes of a plan, and the warnings about hooks left as they are.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub changes: Vec<HookChange>,
    pub warnings: Vec<String>,
}

/// What is in a hook's place now.
enum Found {
    Missing,
    /// A regular file: its text and permission bits.
    File(String, u32),
    /// Anything setup leaves alone, and why.
    Other(&'static str),
}

fn look(dir: Option<&Dir>, name: &str) -> Found {
    let Some(dir) = dir else {
        return Found::Missing;
    };
    let name = OsStr::new(name);
    match dir.lstat(name) {
        Ok(None) => return Found::Missing,
        Ok(Some(rustix::fs::FileType::Symlink)) => {
            return Found::Other("is a symbolic link");
        }
        Ok(Some(kind)) if kind != rustix::fs::FileType::RegularFile => {
            return Found::Other("is not a regular file");
        }
        Ok(Some(_)) => {}
        Err(_) => return Found::Other("cannot be inspected"),
    }
    let Ok(Some((file, meta))) = dir.open_file(name, rustix::fs::OFlags::RDONLY) else {
        return Found::Other("cannot be read");
    };
    if meta.len() > HOOK_CAP {
        return Found::Other("is larger than 1 MiB");
    }
    let mut bytes = Vec::new();
    if (&file).take(HOOK_CAP).read_to_end(&mut bytes).is_err() {
        return Found::Other("cannot be read");
    }
    match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => Found::File(text, meta.permissions().mode() & 0o7777),
        _ => Found::Other("is not a shell script"),
    }
}

/// Whether the hook `name`, read through a link if it is one, already runs the views' rebuild of
/// the project in `folder`: a link to a shared script, or a program in another language, wired
/// by hand.
fn runs_rebuild(place: &HooksPlace, name: &str, folder: &str) -> bool {
    let mut text = String::new();
    std::fs::File::open(place.dir.join(name))
        .and_then(|file| file.take(HOOK_CAP).read_to_string(&mut text))
        .is_ok()
        && is_installed(&text, name, folder)
}

/// The hooks folder, opened; `None` when it does not exist.
fn open_hooks(place: &HooksPlace) -> Option<Dir> {
    Dir::open_plain(&place.dir).ok()
}

fn file_of(place: &HooksPlace, name: &str) -> String {
    format!("{}/{name}", place.shown.trim_end_matches('/'))
}

/// What installing the hooks of `launcher`'s project changes.
#[must_use]
pub(crate) fn plan_install(place: &HooksPlace, launcher: &Launcher) -> Plan {
    let dir = open_hooks(place);
    let mut plan = Plan::default();
    for name in HOOKS {
        let file = file_of(place, name);
        let wanted = block(name, launcher);
        let (action, bytes, mode) = match look(dir.as_ref(), name) {
            Found::Missing => (Action::Created, format!("{SHEBANG}{wanted}"), 0o755),
            Found::Other(_) if runs_rebuild(place, name, &launcher.folder) => continue,
            Found::Other(why) => {
                plan.warnings
                    .push(messages::hook_left_alone(&file, why, &launcher.call(name)));
                continue;
            }
            Found::File(text, mode) => {
                if let Some((from, to)) = find_block(&text, &launcher.folder) {
                    if text[from..to] == wanted {
                        continue;
                    }
                    let updated = format!("{}{wanted}{}", &text[..from], &text[to..]);
                    (Action::Updated, updated, mode)
                } else if is_installed(&text, name, &launcher.folder) {
                    continue;
                } else if mode & 0o111 == 0 {
                    plan.warnings.push(messages::hook_left_alone(
                        &file,
                        "is not executable (git does not run it)",
                        &launcher.call(name),
                    ));
                    continue;
                } else if !is_shell_script(&text) {
                    plan.warnings.push(messages::hook_left_alone(
                        &file,
                        "is not a shell script",
                        &launcher.call(name),
                    ));
                    continue;
                } else {
                    (Action::Added, with_block(&text, &wanted), mode)
                }
            }
        };
        plan.changes.push(HookChange {
            name,
            file,
            action,
            bytes: Some(bytes),
            mode,
        });
    }
    plan
}

/// `text` with `block` after its `#!` line, or first when it has none.
fn with_block(text: &str, block: &str) -> String {
    if text.starts_with("#!") {
        let (first, rest) = match text.find('\n') {
            Some(i) => text.split_at(i + 1),
            None => (text, ""),
        };
        let newline = if first.ends_with('\n') { "" } else { "\n" };
        format!("{first}{newline}{block}{rest}")
    } else {
        format!("{block}{text}")
    }
}

/// What removing the hooks of the project in `folder` changes.
#[must_use]
pub(crate) fn plan_removal(place: &HooksPlace, folder: &str) -> Plan {
    let dir = open_hooks(place);
    let mut plan = Plan::default();
    for name in HOOKS {
        let Found::File(text, mode) = look(dir.as_ref(), name) else {
            continue;
        };
        let Some((from, to)) = find_block(&text, folder) else {
            continue;
        };
        let left = format!("{}{}", &text[..from], &text[to..]);
        let (action, bytes) = if left == SHEBANG || left.is_empty() {
            (Action::Deleted, None)
        } else {
            (Action::Removed, Some(left))
        };
        plan.changes.push(HookChange {
            name,
            file: file_of(place, name),
            action,
            bytes,
            mode,
        });
    }
    plan
}

/// Makes the changes of `plan`; a hook that cannot be written becomes a warning (the rest of
/// setup is done, and `doctor` reports the hook missing).
pub(crate) fn apply(place: &HooksPlace, plan: &mut Plan) {
    let dir = match open_hooks(place) {
        Some(dir) => Ok(dir),
        None => std::fs::create_dir_all(&place.dir)
            .and_then(|()| Dir::open_plain(&place.dir))
            .map_err(|e| e.to_string()),
    };
    let mut done = Vec::new();
    for change in std::mem::take(&mut plan.changes) {
        let name = OsStr::new(change.name);
        let result = match (&dir, &change.bytes) {
            (Err(why), _) => Err(why.clone()),
            (Ok(dir), Some(bytes)) => dir
                .replace_with_mode(name, bytes.as_bytes(), change.mode)
                .map_err(|e| e.to_string()),
            (Ok(dir), None) => dir.remove(name).map_err(|e| e.to_string()),
        };
        match result {
            Ok(()) => done.push(change),
            Err(why) => plan
                .warnings
                .push(messages::hook_not_written(&change.file, &why)),
        }
    }
    plan.changes = done;
}

/// The hooks of this clone that do not rebuild the views of the project in `place`.
#[must_use]
pub(crate) fn missing(place: &HooksPlace) -> Vec<&'static str> {
    let folder = folder_of(place);
    let dir = open_hooks(place);
    HOOKS
        .into_iter()
        .filter(|name| match look(dir.as_ref(), name) {
            Found::File(text, mode) => mode & 0o111 == 0 || !is_installed(&text, name, &folder),
            Found::Other(_) => !runs_rebuild(place, name, &folder),
            Found::Missing => true,
        })
        .collect()
}

/// The project's folder from the top of the work tree, as the markers name it.
#[must_use]
pub(crate) fn folder_of(place: &HooksPlace) -> String {
    if place.prefix.is_empty() {
        ".".to_owned()
    } else {
        place.prefix.clone()
    }
}

/// The changes as JSON: `[{"hook","file","action"}]`.
#[must_use]
pub(crate) fn changes_json(changes: &[HookChange]) -> Value {
    Value::from(
        changes
            .iter()
            .map(|c| {
                Value::Object(
                    Object::new()
                        .with("hook", c.name)
                        .with("file", c.file.as_str())
                        .with("action", c.action.as_str()),
                )
            })
            .collect::<Vec<_>>(),
    )
}

/// The changes as the human form's lines, one per hook: what was done, then the file.
pub(crate) fn render_changes(out: &mut String, changes: &[HookChange], dry_run: bool) {
    for c in changes {
        let what = match (&c.action, dry_run) {
            (Action::Created, false) => "created",
            (Action::Created, true) => "would create",
            (Action::Added, false) => "added the views' rebuild to your hook",
            (Action::Added, true) => "would add the views' rebuild to your hook",
            (Action::Updated, false) => "updated the views' rebuild in",
            (Action::Updated, true) => "would update the views' rebuild in",
            (Action::Removed, false) => "took the views' rebuild out of",
            (Action::Removed, true) => "would take the views' rebuild out of",
            (Action::Deleted, false) => "deleted",
            (Action::Deleted, true) => "would delete",
        };
        let _ = writeln!(out, "  {what} {}", c.file);
    }
}

/// `git hook`'s result: the views rebuilt, or why nothing was done.
#[derive(Debug)]
pub(crate) struct HookReport {
    hook: String,
    rebuilt: Vec<String>,
    skipped: Option<&'static str>,
}

/// Runs `git hook <name> [args…]`: rebuilds the views when the hook's event may have changed
/// the notes in the work tree.
///
/// # Errors
/// A hook it does not handle; the writer lock not acquired; a view or note the rebuild cannot
/// read or write.
pub(crate) fn run(args: &HookArgs, ctx: &Context) -> Result<HookReport> {
    if !HOOKS.contains(&args.name.as_str()) {
        return Err(Error::refused(messages::unknown_hook(&args.name)));
    }
    let mut report = HookReport {
        hook: args.name.clone(),
        rebuilt: Vec::new(),
        skipped: skip_reason(args, ctx),
    };
    if report.skipped.is_none() {
        let lock = WriterLock::acquire(&ctx.root)?;
        report.rebuilt = views::rebuild(ctx, &lock)?
            .into_iter()
            .map(str::to_owned)
            .collect();
    }
    Ok(report)
}

/// Why the hook does nothing, if it does nothing.
fn skip_reason(args: &HookArgs, ctx: &Context) -> Option<&'static str> {
    let arg = |i: usize| args.args.get(i).map(String::as_str);
    match args.name.as_str() {
        "post-checkout" if arg(2) != Some("1") => return Some("a checkout of files"),
        "post-checkout" if arg(0).is_some() && arg(0) == arg(1) => {
            return Some("the checkout changed no commit");
        }
        "post-rewrite" if arg(0) != Some("rebase") => return Some("not a rebase"),
        _ => {}
    }
    if !views::in_use(ctx) {
        return Some("the entry commands were never used in this project");
    }
    if args.name != "post-rewrite" && git::is_rebasing(&ctx.root) {
        return Some("a rebase is under way; its post-rewrite hook rebuilds the views");
    }
    None
}

impl HookReport {
    fn event(&self) -> &'static str {
        match self.hook.as_str() {
            "post-merge" => "merge",
            "post-checkout" => "checkout",
            _ => "rebase",
        }
    }
}

impl Report for HookReport {
    fn to_json(&self) -> Value {
        Value::Object(
            Object::new()
                .with("hook", self.hook.as_str())
                .with(
                    "rebuilt",
                    self.rebuilt.iter().map(Value::from).collect::<Vec<_>>(),
                )
                .with("skipped", self.skipped.map_or(Value::Null, Value::from)),
        )
    }

    fn render_human(&self) -> String {
        if self.rebuilt.is_empty() {
            String::new()
        } else {
            messages::views_rebuilt(self.event(), &self.rebuilt)
        }
    }

    fn written(&self) -> Option<String> {
        (!self.rebuilt.is_empty()).then(|| self.rebuilt.join(", "))
    }
}

/// Whether `path`, as the markers and the hooks name a folder, can go into a hook.
#[must_use]
pub(crate) fn is_nameable(folder: &str) -> bool {
    !folder.contains(['\n', '\r', '\u{FFFD}'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launcher(on_path: bool) -> Launcher {
        Launcher {
            bin: if on_path {
                "bmad-mem".to_owned()
            } else {
                "'/opt/my tools@2/bmad-mem'".to_owned()
            },
            on_path,
            folder: ".".to_owned(),
            folder_word: ".".to_owned(),
        }
    }

    #[test]
    fn the_block_names_the_binary_and_the_project_folder() {
        let text = block("post-checkout", &launcher(false));
        assert_eq!(
            text,
            "# >>> bmad-mem: rebuild the memory's views (project folder: .) >>>\n\
             # Added by `bmad-mem git setup`, which kept the rest of this file as it was;\n\
             # `bmad-mem git setup --remove-hooks` takes this block out again.\n\
             if [ -d ./.bmad/memory ]; then\n\
             \x20 if [ -x '/opt/my tools@2/bmad-mem' ]; then\n\
             \x20   '/opt/my tools@2/bmad-mem' -d . git hook post-checkout \"$@\" </dev/null || :\n\
             \x20 else\n\
             \x20   echo 'bmad-mem: not found, so the views of the memory were not rebuilt; run `bmad-mem doctor --rebuild-views`' >&2\n\
             \x20 fi\n\
             fi\n\
             # <<< bmad-mem: rebuild the memory's views (project folder: .) <<<\n"
        );
        assert!(block("post-merge", &launcher(true)).contains(
            "  if command -v bmad-mem >/dev/null 2>&1; then\n    bmad-mem -d . git hook post-merge"
        ));
    }

    #[test]
    fn the_block_goes_after_the_first_line_and_comes_out_whole() {
        let ours = block("post-merge", &launcher(true));
        let theirs = "#!/bin/bash -e\necho theirs\nexit 0\n";
        let added = with_block(theirs, &ours);
        assert_eq!(
            added,
            format!("#!/bin/bash -e\n{ours}echo theirs\nexit 0\n")
        );
        let (from, to) = find_block(&added, ".").expect("found");
        assert_eq!(format!("{}{}", &added[..from], &added[to..]), theirs);
        // No `#!`: first; a `#!` line without its end gets one.
        assert_eq!(with_block("echo x\n", &ours), format!("{ours}echo x\n"));
        assert_eq!(with_block("#!/bin/sh", &ours), format!("#!/bin/sh\n{ours}"));
        // Another project's block is not this one's.
        assert_eq!(find_block(&added, "app"), None);
        // An opening line without its closing line is no block.
        let (begin, _) = markers(".");
        assert_eq!(find_block(&format!("{begin}\necho\n"), "."), None);
    }

    #[test]
    fn shell_scripts_are_told_from_other_programs() {
        for (text, shell) in [
            ("#!/bin/sh\n", true),
            ("#!/usr/bin/env bash\n", true),
            ("#!/usr/bin/env -S zsh -f\n", true),
            ("#! /bin/dash -e\n", true),
            ("echo no shebang\n", true),
            ("#!/usr/bin/env python3\nprint()\n", false),
            ("#!/usr/bin/node\n", false),
            ("#!\n", false),
        ] {
            assert_eq!(is_shell_script(text), shell, "{text:?}");
        }
    }

    #[test]
    fn a_hook_written_by_hand_counts_as_installed() {
        assert!(is_installed(
            "#!/usr/bin/env python3\nrun(['bmad-mem -d . git hook post-merge'])\n",
            "post-merge",
            "."
        ));
        assert!(!is_installed("#!/bin/sh\necho\n", "post-merge", "."));
    }
}
