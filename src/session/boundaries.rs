//! Access boundaries: the `access-boundaries.md` files of a BMAD agent sidecar and of the
//! project, parsed into rules, and the decision for one path (docs/AGENTS.md).
//!
//! A file has three lists, each under its `##` heading — `Read Access`, `Write Access`,
//! `Deny Zones` — one path or glob per `- ` line. Deny zones win; then the list of the access
//! asked for must name the path; a path no line names is denied. A line that names a folder
//! (`src` or `src/`, and any line ending in `/`) covers everything below it; a line with a glob
//! character (`*`, `?`, `[`, `{`) is a glob in which `*` stays within one folder and `**` crosses
//! folders (`globset`). Lines are taken relative to the project root, `..` resolved; a line that
//! lands outside the project names an absolute path.
//!
//! Paths are compared as the kernel would reach them once the missing folders are created
//! ([`real_path`]: every link of the part that exists followed, `..` resolved after the link it
//! follows, a name that does not exist yet kept as written, and a `..` out of it back into
//! existing folders, whose links are followed again). On macOS and Windows, whose usual file
//! systems ignore case, matching ignores case too. This module reads no file; the caller hands
//! it the text.

use std::path::Path;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

use crate::error::{Error, Result};
use crate::js::path::resolve;
use crate::messages;
use crate::store::resolve::real_path;

/// Whether names are compared without regard to case, as the platform's usual file systems do.
pub(crate) const IGNORES_CASE: bool = cfg!(any(target_os = "macos", target_os = "windows"));

/// What a path is checked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    Write,
}

impl Access {
    /// `read` or `write`.
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
        }
    }

    /// The heading of the list that grants this access.
    #[must_use]
    pub(crate) fn heading(self) -> &'static str {
        match self {
            Access::Read => "Read Access",
            Access::Write => "Write Access",
        }
    }
}

/// A path as the rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// Inside the project: relative to its real root, `/`-separated (`""` is the root itself).
    Inside(String),
    /// Outside the project: absolute.
    Outside(String),
}

impl Target {
    /// The path as shown: project-relative inside, absolute outside.
    #[must_use]
    pub(crate) fn shown(&self) -> &str {
        match self {
            Target::Inside(rel) if rel.is_empty() => ".",
            Target::Inside(rel) | Target::Outside(rel) => rel,
        }
    }
}

/// One list of a boundaries file, compiled.
#[derive(Debug, Clone)]
struct List {
    /// The lines as written, for the decision's `rule`.
    lines: Vec<String>,
    /// Patterns for paths inside the project; `inside_of[i]` is the line of pattern `i`.
    inside: GlobSet,
    inside_of: Vec<usize>,
    /// Patterns for absolute paths outside the project.
    outside: GlobSet,
    outside_of: Vec<usize>,
}

impl List {
    /// The first line (in file order) that covers `target`.
    fn first_match(&self, target: &Target) -> Option<&str> {
        let (set, of, text) = match target {
            Target::Inside(rel) => (&self.inside, &self.inside_of, rel),
            Target::Outside(abs) => (&self.outside, &self.outside_of, abs),
        };
        set.matches(text.as_str())
            .into_iter()
            .map(|pattern| of[pattern])
            .min()
            .map(|line| self.lines[line].as_str())
    }
}

/// A parsed boundaries file.
#[derive(Debug, Clone)]
pub(crate) struct Boundaries {
    read: List,
    write: List,
    deny: List,
}

/// What one boundaries file says of one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict<'a> {
    /// Under a deny zone: the line.
    Denied(&'a str),
    /// Named by the access list: the line.
    Allowed(&'a str),
    /// Named by no line of the access list.
    Unlisted,
}

impl Boundaries {
    /// Parses the text of a boundaries file; `root` is the project's real root, against which
    /// relative lines are resolved, and `shown` names the file in messages.
    ///
    /// # Errors
    /// A line that is not a valid glob, with the file and the line number.
    pub(crate) fn parse(text: &str, root: &Path, shown: &str) -> Result<Self> {
        #[derive(Clone, Copy)]
        enum Section {
            Read,
            Write,
            Deny,
            Other,
        }
        let mut lines: [Vec<(usize, String)>; 3] = Default::default();
        let mut section = Section::Other;
        let mut in_fence = false;
        for (number, line) in text.lines().enumerate() {
            let trimmed = line.trim();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                in_fence = !in_fence;
                continue;
            }
            if in_fence {
                continue;
            }
            if let Some(heading) = heading(trimmed) {
                section = match heading.to_ascii_lowercase().as_str() {
                    "read access" => Section::Read,
                    "write access" => Section::Write,
                    "deny zones" => Section::Deny,
                    _ => Section::Other,
                };
                continue;
            }
            let Some(item) = line.strip_prefix("- ") else {
                continue;
            };
            let item = item.trim();
            let item = item
                .strip_prefix('`')
                .and_then(|i| i.strip_suffix('`'))
                .unwrap_or(item)
                .trim();
            if item.is_empty() {
                continue;
            }
            let index = match section {
                Section::Read => 0,
                Section::Write => 1,
                Section::Deny => 2,
                Section::Other => continue,
            };
            lines[index].push((number + 1, item.to_owned()));
        }
        let [read, write, deny] = lines;
        Ok(Self {
            read: compile(read, root, shown)?,
            write: compile(write, root, shown)?,
            deny: compile(deny, root, shown)?,
        })
    }

    /// What this file says of `target` for `access`.
    #[must_use]
    pub(crate) fn verdict(&self, access: Access, target: &Target) -> Verdict<'_> {
        if let Some(line) = self.deny.first_match(target) {
            return Verdict::Denied(line);
        }
        let list = match access {
            Access::Read => &self.read,
            Access::Write => &self.write,
        };
        list.first_match(target)
            .map_or(Verdict::Unlisted, Verdict::Allowed)
    }
}

/// The text of a `##` heading (exactly two `#`), if `line` is one.
fn heading(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('#')?;
    if rest.starts_with("##") {
        // A deeper heading (`###`) belongs to the list above it.
        return None;
    }
    if let Some(text) = rest.strip_prefix('#') {
        return Some(text.trim());
    }
    // A `#` title ends every list.
    Some("")
}

/// The globs for `lines`, split into patterns for inside and outside the project.
fn compile(lines: Vec<(usize, String)>, root: &Path, shown: &str) -> Result<List> {
    let mut inside = GlobSetBuilder::new();
    let mut inside_of = Vec::new();
    let mut outside = GlobSetBuilder::new();
    let mut outside_of = Vec::new();
    let mut texts = Vec::with_capacity(lines.len());
    for (index, (number, line)) in lines.into_iter().enumerate() {
        for (is_inside, pattern) in patterns(&line, root) {
            let glob = glob(&pattern)
                .map_err(|e| Error::refused(messages::invalid_pattern(shown, number, &line, e)))?;
            if is_inside {
                inside.add(glob);
                inside_of.push(index);
            } else {
                outside.add(glob);
                outside_of.push(index);
            }
        }
        texts.push(line);
    }
    let build = |builder: GlobSetBuilder| {
        builder
            .build()
            .map_err(|e| Error::refused(messages::patterns_refused(shown, e)))
    };
    Ok(List {
        lines: texts,
        inside: build(inside)?,
        inside_of,
        outside: build(outside)?,
        outside_of,
    })
}

/// One glob: `*` within a folder, `**` across, case as the platform compares names.
fn glob(pattern: &str) -> std::result::Result<Glob, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .case_insensitive(IGNORES_CASE)
        .backslash_escape(true)
        .build()
}

/// Whether `line` holds a glob character.
fn is_glob(line: &str) -> bool {
    line.contains(['*', '?', '[', '{'])
}

/// The patterns of one line: `(inside the project, pattern)`. A folder line gives the folder
/// and everything below it; a glob gives itself (and everything below when it ends in `/`).
fn patterns(line: &str, root: &Path) -> Vec<(bool, String)> {
    let is_glob = is_glob(line);
    let covers_below = !is_glob || line.ends_with('/');
    let resolved = resolve(root, Path::new(line));
    let resolved = resolved.to_string_lossy();
    let root_text = root.to_string_lossy();
    let (is_inside, path) = match strip_root(&resolved, &root_text) {
        Some(rel) => (true, rel.to_owned()),
        None => (false, resolved.into_owned()),
    };
    let base = if is_glob {
        path
    } else {
        globset::escape(&path)
    };
    if base.is_empty() {
        // The project root itself: everything inside.
        return vec![(true, "**".to_owned())];
    }
    let mut out = vec![(is_inside, base.clone())];
    if covers_below {
        let below = if base.ends_with('/') {
            format!("{base}**")
        } else {
            format!("{base}/**")
        };
        out.push((is_inside, below));
    }
    out
}

/// `path` relative to `root` (`""` for the root itself), when it is `root` or below it; case
/// ignored where the platform ignores it.
fn strip_root<'a>(path: &'a str, root: &str) -> Option<&'a str> {
    let root = root.trim_end_matches('/');
    let head = path.get(..root.len())?;
    let same = if IGNORES_CASE {
        head.eq_ignore_ascii_case(root) || head.to_lowercase() == root.to_lowercase()
    } else {
        head == root
    };
    if !same {
        return None;
    }
    let rest = &path[root.len()..];
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix('/')
    }
}

/// `path` (absolute, or relative to `base`) as the rules see it, against the project's real root
/// `real_root`.
///
/// # Errors
/// A link loop or a link that cannot be read, naming the path.
pub(crate) fn target(path: &Path, base: &Path, real_root: &Path) -> Result<Target> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    let resolved =
        real_path(&absolute).map_err(|e| Error::io("cannot resolve the path", &absolute, e))?;
    let text = resolved.to_string_lossy();
    Ok(match strip_root(&text, &real_root.to_string_lossy()) {
        Some(inside) => Target::Inside(inside.to_owned()),
        None => Target::Outside(text.into_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# Access Boundaries for Forge

## Read Access
- src/
- docs
- `*.md`

## Write Access
- src
- tests/**/*.rs
- ../common/

## Deny Zones
- src/secrets/
- **/.env
";

    #[track_caller]
    fn case(access: Access, target: &Target, want: &Verdict<'_>) {
        let b = Boundaries::parse(FILE, Path::new("/p/root"), "f").unwrap();
        assert_eq!(&b.verdict(access, target), want, "{access:?} {target:?}");
    }

    fn inside(rel: &str) -> Target {
        Target::Inside(rel.to_owned())
    }

    #[test]
    fn deny_zones_win_then_the_list_then_nothing() {
        use Access::{Read, Write};
        case(Read, &inside("src/a.rs"), &Verdict::Allowed("src/"));
        case(Read, &inside("src"), &Verdict::Allowed("src/"));
        case(Read, &inside("srcx/a.rs"), &Verdict::Unlisted);
        case(Read, &inside("docs/x/y.md"), &Verdict::Allowed("docs"));
        case(Read, &inside("README.md"), &Verdict::Allowed("*.md"));
        case(Read, &inside("a/README.md"), &Verdict::Unlisted);
        case(Write, &inside("docs/x.md"), &Verdict::Unlisted);
        case(
            Write,
            &inside("tests/a/b.rs"),
            &Verdict::Allowed("tests/**/*.rs"),
        );
        case(
            Write,
            &inside("tests/b.rs"),
            &Verdict::Allowed("tests/**/*.rs"),
        );
        case(
            Write,
            &inside("src/secrets/k"),
            &Verdict::Denied("src/secrets/"),
        );
        case(Read, &inside("src/.env"), &Verdict::Denied("**/.env"));
        case(Read, &inside(".env"), &Verdict::Denied("**/.env"));
        case(
            Write,
            &Target::Outside("/p/common/x".to_owned()),
            &Verdict::Allowed("../common/"),
        );
        case(
            Write,
            &Target::Outside("/p/sharedx".to_owned()),
            &Verdict::Unlisted,
        );
        case(
            Read,
            &Target::Outside("/etc/passwd".to_owned()),
            &Verdict::Unlisted,
        );
    }

    #[test]
    fn headings_fences_and_bad_globs() {
        let text =
            "## Write Access\n```\n- hidden\n```\n- shown\n### note\n- kept\n# End\n- gone\n";
        let b = Boundaries::parse(text, Path::new("/r"), "f").unwrap();
        assert_eq!(
            b.verdict(Access::Write, &inside("hidden")),
            Verdict::Unlisted
        );
        assert_eq!(
            b.verdict(Access::Write, &inside("shown")),
            Verdict::Allowed("shown")
        );
        assert_eq!(
            b.verdict(Access::Write, &inside("kept")),
            Verdict::Allowed("kept")
        );
        assert_eq!(b.verdict(Access::Write, &inside("gone")), Verdict::Unlisted);
        let e = Boundaries::parse("## Deny Zones\n- a[\n", Path::new("/r"), "f").unwrap_err();
        assert!(
            e.to_string().starts_with("f line 2: invalid pattern a["),
            "{e}"
        );
        let all = Boundaries::parse("## Read Access\n- .\n", Path::new("/r"), "f").unwrap();
        assert_eq!(
            all.verdict(Access::Read, &inside("a/b")),
            Verdict::Allowed(".")
        );
    }

    /// A random tree for the property below: folders inside the project and next to it, links
    /// among them (relative and absolute, inside and outside, dangling, looping), a file.
    mod tree {
        use proptest::prelude::*;

        /// What paths are built from: `l` and `k` are links, `m` and `n` never exist before the
        /// path is created, `f` is a file; and detours through what is missing.
        pub(super) const PARTS: [&str; 10] = [
            "a",
            "b",
            "m",
            "n",
            "f",
            "..",
            ".",
            "m/..",
            "n/m/../..",
            "m/../..",
        ];
        /// Relative link targets.
        pub(super) const RELATIVE: [&str; 10] = [
            "a",
            "a/b",
            "..",
            "../a",
            "../l",
            "../../outside",
            "../../outside/a",
            "m",
            "l",
            ".",
        ];
        /// Absolute link targets, relative to the folder holding `project` and `outside`.
        pub(super) const ABSOLUTE: [&str; 5] = [
            "project/a",
            "project/secrets",
            "outside",
            "outside/a",
            "project/a/m",
        ];
        /// The folders a tree may have, relative to the folder holding `project` and `outside`.
        pub(super) const FOLDERS: [&str; 8] = [
            "project/a",
            "project/b",
            "project/a/b",
            "project/b/a",
            "project/secrets",
            "project/secrets/a",
            "outside/a",
            "outside/a/b",
        ];

        /// Where a link goes.
        #[derive(Debug, Clone)]
        pub(super) enum Target {
            Relative(usize),
            Absolute(usize),
        }

        /// A tree: which folders exist, the links (folder index, or `None` for the project
        /// root; `l` or `k`; target), and the paths asked about in turn, relative to the
        /// project.
        #[derive(Debug, Clone)]
        pub(super) struct Case {
            pub(super) folders: Vec<bool>,
            pub(super) links: Vec<(Option<usize>, &'static str, Target)>,
            pub(super) paths: Vec<Vec<&'static str>>,
        }

        pub(super) fn case() -> impl Strategy<Value = Case> {
            let target = prop_oneof![
                (0..RELATIVE.len()).prop_map(Target::Relative),
                (0..ABSOLUTE.len()).prop_map(Target::Absolute),
            ];
            let link = (
                prop_oneof![Just(None), (0..FOLDERS.len()).prop_map(Some)],
                prop_oneof![Just("l"), Just("k")],
                target,
            );
            (
                proptest::collection::vec(any::<bool>(), FOLDERS.len()),
                proptest::collection::vec(link, 0..6),
                proptest::collection::vec(
                    proptest::collection::vec(
                        prop_oneof![
                            // The links, often: the point is whether they are followed.
                            prop_oneof![Just("l"), Just("k")],
                            proptest::sample::select(PARTS.to_vec()),
                        ],
                        1..6,
                    ),
                    1..24,
                ),
            )
                .prop_map(|(folders, links, paths)| Case {
                    folders,
                    links,
                    paths,
                })
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// The guard judges a path where the kernel will put it: whatever the links and the
        /// missing folders (`..` after a missing one included), the path and the verdict the
        /// guard gives before the write are those of the real path the kernel reaches once an
        /// agent's tool has created the missing folders. The paths of one case are asked in
        /// turn, each in the tree the ones before it left (a tree is slow to build).
        #[test]
        fn the_guard_judges_the_path_the_kernel_reaches(case in tree::case()) {
            use std::os::unix::fs::symlink;
            let tmp = tempfile::tempdir().unwrap();
            // Deep enough that no `..` leaves it, so that the folders the kernel creates stay
            // inside the temporary folder: a link lands at most one folder above `top` (links
            // live one folder below it or deeper, and climb at most two), and the path has at
            // most 10 `..` (5 parts of at most 2).
            let mut top = std::fs::canonicalize(tmp.path()).unwrap();
            for _ in 0..16 {
                top.push("p");
            }
            let root = top.join("project");
            std::fs::create_dir_all(&root).unwrap();
            std::fs::create_dir_all(top.join("outside")).unwrap();
            for (folder, exists) in tree::FOLDERS.iter().zip(&case.folders) {
                if *exists {
                    std::fs::create_dir_all(top.join(folder)).unwrap();
                }
            }
            std::fs::write(root.join("f"), "f").unwrap();
            for (at, name, target) in &case.links {
                let dir = at.map_or_else(|| root.clone(), |i| top.join(tree::FOLDERS[i]));
                let target = match target {
                    tree::Target::Relative(i) => std::path::PathBuf::from(tree::RELATIVE[*i]),
                    tree::Target::Absolute(i) => top.join(tree::ABSOLUTE[*i]),
                };
                // A link over a folder or a second link of one name is simply not made.
                if dir.is_dir() && std::fs::symlink_metadata(dir.join(name)).is_err() {
                    symlink(target, dir.join(name)).unwrap();
                }
            }
            let rules = Boundaries::parse(
                "## Write Access\n- .\n- ../outside/\n\n## Deny Zones\n- secrets/\n- ../outside/a/\n",
                &root,
                "f",
            )
            .unwrap();
            for asked in case.paths.iter().map(|path| path.join("/")) {
                let judged = target(Path::new(&asked), &root, &root);
                let path = root.join(&asked);
                // What the kernel does: create the missing folders, then resolve. A path the
                // kernel cannot create (through a file, a dangling link, a loop) has nothing to
                // compare.
                if std::fs::create_dir_all(&path).is_err() {
                    continue;
                }
                let real = std::fs::canonicalize(&path).unwrap();
                let judged = judged.unwrap_or_else(|e| panic!("{asked}: the guard failed: {e}"));
                let real_text = real.to_string_lossy();
                let kernel = match strip_root(&real_text, &root.to_string_lossy()) {
                    Some(inside) => Target::Inside(inside.to_owned()),
                    None => Target::Outside(real_text.into_owned()),
                };
                proptest::prop_assert_eq!(&judged, &kernel, "{} in {:?}", asked, case);
                proptest::prop_assert_eq!(
                    rules.verdict(Access::Write, &judged),
                    rules.verdict(Access::Write, &kernel)
                );
            }
        }
    }
}
