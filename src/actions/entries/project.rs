//! The project's name as a candidate id starts with it (`<project>-<type>-<day>-<topic>`,
//! docs/ENTRIES.md). Every clone of a repository must give the same name, whatever its folder is
//! called (`alice/shop` and `bob/work` are two clones of `shop`), so the name is, in order:
//!
//! 1. the `project` of `.agents/memory/context.md`'s front matter (what `init` wrote, or what a
//!    person set), a file the clones share;
//! 2. in a git work tree, the last part of the `origin` remote's URL, without `.git`
//!    (`git@host:team/shop.git` → `shop`);
//! 3. in a git work tree, the name of its top folder;
//! 4. the project folder's name.
//!
//! Each is made a topic (`candidate::slug`); one that leaves nothing is passed over, and
//! `project` is the name when none is left. Git is asked only when a `.git` is in the project or
//! above it. An id only carries the name: ids written under another rule stay valid.

use crate::actions::entries::candidate::{read_note, slug};
use crate::context::{Context, folder_name};
use crate::store::front_matter::front_matter_value;
use crate::store::git;
use crate::store::layout::{CONTEXT_FILE, PACK_DIR};

/// The project's name as a candidate id starts with it.
#[must_use]
pub(crate) fn id_prefix(ctx: &Context) -> String {
    if let Some(name) = usable(context_project(ctx)) {
        return name;
    }
    if git::looks_like_git(&ctx.root) {
        let remote = git::origin_url(&ctx.root);
        if let Some(name) = usable(remote.as_deref().and_then(name_in_url).map(str::to_owned)) {
            return name;
        }
        if let Some(name) = usable(git::top_level(&ctx.root).map(|top| folder_name(&top))) {
            return name;
        }
    }
    usable(Some(folder_name(&ctx.root))).unwrap_or_else(|| "project".to_owned())
}

/// `name` made a topic, unless nothing is left of it.
fn usable(name: Option<String>) -> Option<String> {
    name.map(|name| slug(&name)).filter(|s| !s.is_empty())
}

/// The `project` of `context.md`'s front matter. A file the confined reader refuses is
/// `doctor`'s to report; the name is then found the next way.
fn context_project(ctx: &Context) -> Option<String> {
    let text = read_note(ctx, &format!("{PACK_DIR}/{CONTEXT_FILE}"))
        .ok()
        .flatten()?;
    front_matter_value(&text, "project")
}

/// The repository's name in a remote's URL: its last part (after the last `/`, `:` or `\`),
/// without a trailing `/` or `.git`.
fn name_in_url(url: &str) -> Option<&str> {
    let url = url.trim().trim_end_matches(['/', '\\']);
    let last = url.rsplit(['/', ':', '\\']).next()?;
    let name = last.strip_suffix(".git").unwrap_or(last);
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(url: &str, want: Option<&str>) {
        assert_eq!(name_in_url(url), want, "{url:?}");
    }

    #[test]
    fn the_repository_name_of_a_remote_url() {
        case("git@github.com:team/shop.git", Some("shop"));
        case("https://github.com/team/shop", Some("shop"));
        case("https://github.com/team/shop.git/", Some("shop"));
        case("ssh://git@host:2222/srv/shop.git", Some("shop"));
        case("git@host:shop.git", Some("shop"));
        case("file:///srv/git/shop.git", Some("shop"));
        case("/srv/git/my shop@2", Some("my shop@2"));
        case("C:\\repos\\shop\\", Some("shop"));
        case("../shop.git", Some("shop"));
        case(".git", None);
        case("", None);
        case("https://host/", Some("host"));
    }
}
