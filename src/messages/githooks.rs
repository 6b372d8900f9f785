//! The messages of the git hooks that rebuild the generated views (`git setup` installs them,
//! `git setup --remove-hooks` takes them out, `git hook` is what they run, `doctor` checks them).

/// `git hook` naming a hook it does not handle.
#[must_use]
pub(crate) fn unknown_hook(name: &str) -> String {
    format!(
        "`{name}` is not a hook bmad-mem handles; the hooks are post-merge, post-checkout and post-rewrite"
    )
}

/// `git hook`: the views rebuilt after a merge, checkout or rebase.
#[must_use]
pub(crate) fn views_rebuilt(event: &str, files: &[String]) -> String {
    format!(
        "mem git hook: after the {event}, rebuilt {} from the notes; commit the change\n",
        files.join(" and ")
    )
}

/// `git setup`: a hook file it leaves as it is (a link, a program that is not a shell script,
/// a hook git does not run), and what to do instead.
#[must_use]
pub(crate) fn hook_left_alone(file: &str, why: &str, call: &str) -> String {
    format!(
        "{file} {why}, so it was left as it is and does not rebuild the memory's views; have it run `{call}`"
    )
}

/// `git setup`: a hook it could not write.
#[must_use]
pub(crate) fn hook_not_written(file: &str, why: &str) -> String {
    format!(
        "{file} could not be written ({why}); the memory's views are not rebuilt after a merge, checkout or rebase in this clone"
    )
}

/// `git setup`: the project's folder cannot be named in a hook.
pub(crate) const HOOK_FOLDER_UNNAMEABLE: &str = "the project's folder holds a line break or bytes that are not UTF-8, so no git hook can name it; the memory's views are not rebuilt after a merge, checkout or rebase (run `bmad-mem doctor --rebuild-views` then)";

/// `doctor`: hooks missing in a clone that is set up.
#[must_use]
pub(crate) fn view_hooks_missing(hooks: &[&str]) -> String {
    format!(
        "the git hook(s) {} of this clone do not rebuild the generated views, so after a merge, checkout or rebase they keep the version git left; `bmad-mem git setup` adds them (any hook of yours is kept)",
        hooks.join(", ")
    )
}
