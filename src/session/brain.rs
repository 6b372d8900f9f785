//! The brain: notes shared by several projects, found by detection and recorded in
//! `.agents/memory/.brain-link`.
//!
//! Detection, first match wins: `BMAD_PLUS_BRAIN` (a directory; any other value is warned about
//! and skipped) → a `_brain/` directory in the project or any ancestor → `~/.bmad-plus/brain`
//! (`bmad-global`) → `~/.claude/memory` when it holds anything (`claude-memory`). The first two
//! are typed by their layout: a folder with `identity.yaml` follows the BMAD+ global brain's
//! conventions (`bmad-global`), any other is a `portfolio` brain (entry point `README.md`,
//! `AGENTS.md` or `HOT.md`). A `_brain` that is a symbolic link is never taken (a repository
//! could carry one pointing anywhere, `~/.ssh` included): it is warned about, and
//! `BMAD_PLUS_BRAIN` names such a folder explicitly. The result is written once into
//! `.brain-link` (`{"linked_brain","brain_type","linked_at"}`, pretty JSON) so every command
//! finds the same brain.
//!
//! No link is written for the home's global brain (`~/.bmad-plus/brain` chosen by detection):
//! detection finds it again on every machine, for every teammate, where an absolute path into
//! one person's home would mean nothing to the next. A project without a link whose detection
//! chooses that brain uses it as if linked ([`default_brain`]). A link written for it by an
//! earlier `init`, or by bmad-plus — `<home>/.bmad-plus/brain` as `bmad-global`, whatever the
//! home — is read as the global brain of whoever runs the command, silently. Links to the other
//! brains stay absolute paths, the form bmad-plus writes and reads.
//!
//! A recorded link is trusted only as far as detection would choose its folder today: its
//! target must be, lexically or by real path, one of the candidates above with the recorded
//! type ([`check_link`]). Any other link — a relative path, `~/.ssh`, a folder whose layout
//! changed — is warned about and ignored, never read, and never rewritten: the user removes it
//! and runs `init` again.
//!
//! A linked brain is read, never copied or rewritten. Only the BMAD+ global brain is ever
//! written to, and only to create what it lacks ([`complete_global_brain`]) and the index entry
//! of a project (`projects/<hash>.yaml`); portfolio and claude-memory brains keep their own
//! conventions and get neither `identity.yaml` nor `projects/`. The home folder itself is never
//! created: a missing home is treated like a read-only one.

use std::fs;
use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{self, Object, Value, sha256_hex};
use crate::js::path::resolve;
use crate::session::pack::{self, create_only};
use crate::session::templates::{self, IndexField, Scope};
use crate::store::layout::{
    CLAUDE_MEMORY, GLOBAL_BRAIN, IDENTITY, LINK_FILE, NOTE_FILES, PORTFOLIO_DIR, PROJECTS,
};
use crate::store::paths::{Loose, read_loose, read_loose_bytes};

/// What kind of brain a link points to (`brain_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BrainType {
    /// A workspace `_brain/`, or the `BMAD_PLUS_BRAIN` folder: its own conventions.
    Portfolio,
    /// `~/.bmad-plus/brain`, BMAD+'s own layout.
    BmadGlobal,
    /// `~/.claude/memory`, Claude Code's layout.
    ClaudeMemory,
}

impl BrainType {
    /// The `brain_type` text.
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            BrainType::Portfolio => "portfolio",
            BrainType::BmadGlobal => "bmad-global",
            BrainType::ClaudeMemory => "claude-memory",
        }
    }

    /// The type a `brain_type` text names.
    #[must_use]
    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text {
            "portfolio" => Some(BrainType::Portfolio),
            "bmad-global" => Some(BrainType::BmadGlobal),
            "claude-memory" => Some(BrainType::ClaudeMemory),
            _ => None,
        }
    }

    /// The files an agent reads first, in order of preference: the brain's entry point.
    #[must_use]
    pub(crate) fn entry_points(self) -> &'static [&'static str] {
        match self {
            BrainType::BmadGlobal => &[IDENTITY],
            BrainType::Portfolio => &["README.md", "AGENTS.md", "HOT.md"],
            BrainType::ClaudeMemory => &["MEMORY.md", "README.md"],
        }
    }
}

/// A brain folder and its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Brain {
    pub dir: PathBuf,
    pub kind: BrainType,
}

impl Brain {
    /// The first entry point that can be read — a regular file, or a link to one inside the
    /// brain, under the loose reader's bounds — with its name, path and text. One passed over
    /// (a link leaving the brain, a FIFO, a file too large, an unreadable one) adds a warning
    /// naming it, and the next one is tried.
    pub(crate) fn read_entry_point(
        &self,
        warnings: &mut Vec<String>,
    ) -> Option<(&'static str, PathBuf, String)> {
        self.kind.entry_points().iter().find_map(|name| {
            let path = self.dir.join(name);
            let text = read_loose(&path, &self.dir)
                .ok()?
                .or_warn(&path.to_string_lossy(), warnings)?;
            Some((*name, path, text))
        })
    }
}

/// What detection found, and what it had to say on the way.
#[derive(Debug, Clone, Default)]
pub(crate) struct Detection {
    pub brain: Option<Brain>,
    pub warnings: Vec<String>,
}

/// Where the candidates are: the inputs of [`detect_in`], so the order is testable alone.
#[derive(Debug, Clone)]
pub(crate) struct Candidates<'a> {
    pub root: &'a Path,
    pub cwd: &'a Path,
    pub home: Option<&'a Path>,
    pub brain_env: Option<&'a str>,
}

/// Where the candidates of the project in `ctx` are.
#[must_use]
pub(crate) fn candidates_of(ctx: &Context) -> Candidates<'_> {
    Candidates {
        root: &ctx.root,
        cwd: &ctx.cwd,
        home: ctx.home.as_deref(),
        brain_env: ctx.brain_env.as_deref(),
    }
}

/// Detects the brain of the project in `ctx` (read-only).
#[must_use]
pub(crate) fn detect(ctx: &Context) -> Detection {
    detect_in(&candidates_of(ctx))
}

/// Detection, first match wins (see the module documentation).
#[must_use]
pub(crate) fn detect_in(candidates: &Candidates<'_>) -> Detection {
    let (mut found, warnings) = every_candidate(candidates);
    Detection {
        brain: if found.is_empty() {
            None
        } else {
            Some(found.swap_remove(0))
        },
        warnings,
    }
}

/// The type a folder's layout gives it: `identity.yaml` marks the BMAD+ global brain's
/// conventions; anything else is a portfolio brain with its own.
#[must_use]
pub(crate) fn kind_by_layout(dir: &Path) -> BrainType {
    if dir.join(IDENTITY).is_file() {
        BrainType::BmadGlobal
    } else {
        BrainType::Portfolio
    }
}

/// Every brain detection could choose now, in detection order, and what it had to say.
fn every_candidate(candidates: &Candidates<'_>) -> (Vec<Brain>, Vec<String>) {
    let mut found = Vec::new();
    let mut warnings = Vec::new();
    if let Some(env) = candidates.brain_env {
        let dir = resolve(candidates.cwd, Path::new(env));
        if dir.is_dir() {
            found.push(Brain {
                kind: kind_by_layout(&dir),
                dir,
            });
        } else {
            warnings.push(format!(
                "warning: BMAD_PLUS_BRAIN is set but is not a directory: {env} — falling back to auto-detection"
            ));
        }
    }
    for ancestor in candidates.root.ancestors() {
        let dir = ancestor.join(PORTFOLIO_DIR);
        if fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
            warnings.push(format!(
                "warning: {} is a symbolic link and is not used as a brain; if you trust the folder it names, set BMAD_PLUS_BRAIN to it",
                dir.display()
            ));
        } else if dir.is_dir() {
            found.push(Brain {
                kind: kind_by_layout(&dir),
                dir,
            });
        }
    }
    if let Some(home) = candidates.home {
        let global = home.join(GLOBAL_BRAIN);
        if global.is_dir() {
            found.push(Brain {
                dir: global,
                kind: BrainType::BmadGlobal,
            });
        }
        let claude = home.join(CLAUDE_MEMORY);
        let has_entries = fs::read_dir(&claude).is_ok_and(|mut entries| entries.next().is_some());
        if claude.is_dir() && has_entries {
            found.push(Brain {
                dir: claude,
                kind: BrainType::ClaudeMemory,
            });
        }
    }
    (found, warnings)
}

/// The brain a recorded link may be used as: the candidate of detection (see
/// [`every_candidate`]) that has the link's type and is its target, compared lexically and by
/// real path. The candidate's own path is returned, so nothing but a folder detection would
/// choose is ever read.
///
/// # Errors
/// Why the link cannot be used, naming its target.
pub(crate) fn check_link(
    link: &Link,
    candidates: &Candidates<'_>,
) -> std::result::Result<Brain, String> {
    let Some(kind) = BrainType::parse(&link.brain_type) else {
        return Err(format!("unknown brain_type {:?}", link.brain_type));
    };
    let target = Path::new(&link.linked_brain);
    if !target.is_absolute() {
        return Err(format!(
            "it links {}, which is not an absolute path",
            link.linked_brain
        ));
    }
    let lexical = resolve(Path::new("/"), target);
    // `<any home>/.bmad-plus/brain`: the global brain of whoever reads the link. Only this
    // home's global brain is ever used for it, never the folder the link names.
    if kind == BrainType::BmadGlobal && lexical.ends_with(GLOBAL_BRAIN) {
        return candidates
            .home
            .map(|home| Brain {
                dir: global_brain_dir(home),
                kind,
            })
            .ok_or_else(|| {
                format!(
                    "it links {} as the global brain, and HOME is not set",
                    link.linked_brain
                )
            });
    }
    let real = fs::canonicalize(target).ok();
    let (found, _) = every_candidate(candidates);
    found
        .into_iter()
        .filter(|brain| brain.kind == kind)
        .find(|brain| {
            brain.dir == lexical
                || real
                    .as_ref()
                    .is_some_and(|real| fs::canonicalize(&brain.dir).is_ok_and(|c| c == *real))
        })
        .ok_or_else(|| {
            format!(
                "it links {} as a {} brain, which detection would not choose now",
                link.linked_brain,
                kind.as_str()
            )
        })
}

/// The warning for a link that is ignored, with the way to relink.
#[must_use]
pub(crate) fn ignored_link_warning(reason: &str) -> String {
    format!("warning: {LINK_FILE} ignored: {reason}; to relink: rm {LINK_FILE} && bmad-mem init")
}

/// The global brain of a home folder.
#[must_use]
pub(crate) fn global_brain_dir(home: &Path) -> PathBuf {
    home.join(GLOBAL_BRAIN)
}

/// Whether `brain` is the BMAD+ global brain of `home`: the one brain `init` completes and
/// indexes projects in, and the one it records no link for.
#[must_use]
pub(crate) fn is_home_global(brain: &Brain, home: Option<&Path>) -> bool {
    brain.kind == BrainType::BmadGlobal
        && home.is_some_and(|home| global_brain_dir(home) == brain.dir)
}

/// The brain a project without a link uses: what detection found, when it is the home's
/// global brain (for which `init` writes no link). Any other brain is used through its link.
#[must_use]
pub(crate) fn default_brain(detection: &Detection, home: Option<&Path>) -> Option<Brain> {
    detection
        .brain
        .clone()
        .filter(|brain| is_home_global(brain, home))
}

/// The content of `.brain-link`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Link {
    pub linked_brain: String,
    pub brain_type: String,
    pub linked_at: String,
}

impl Link {
    /// A link to `brain`, made at `at`.
    #[must_use]
    pub(crate) fn new(brain: &Brain, at: &str) -> Self {
        Self {
            linked_brain: brain.dir.to_string_lossy().into_owned(),
            brain_type: brain.kind.as_str().to_owned(),
            linked_at: at.to_owned(),
        }
    }

    /// The brain it points to, when its type is known.
    #[must_use]
    pub(crate) fn brain(&self) -> Option<Brain> {
        Some(Brain {
            dir: PathBuf::from(&self.linked_brain),
            kind: BrainType::parse(&self.brain_type)?,
        })
    }

    /// The file's JSON value.
    #[must_use]
    pub(crate) fn to_value(&self) -> Value {
        Value::Object(
            Object::new()
                .with("linked_brain", self.linked_brain.as_str())
                .with("brain_type", self.brain_type.as_str())
                .with("linked_at", self.linked_at.as_str()),
        )
    }

    /// The file's bytes: pretty JSON and a final newline.
    #[must_use]
    pub(crate) fn to_text(&self) -> String {
        let mut text = self.to_value().pretty();
        text.push('\n');
        text
    }
}

/// What `.brain-link` holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum LinkState {
    Missing,
    /// Present but unusable; the reason. It is left as it is.
    Invalid(String),
    Valid(Link),
}

/// Reads `.brain-link` by the rule every reader follows: never blocking, a regular file only,
/// through a link only when it resolves inside the project (so a memory folder linked inside
/// the project reads the same as the notes beside it). What it names is checked separately.
#[must_use]
pub(crate) fn read_link(root: &Path) -> LinkState {
    let text = match read_loose_bytes(&root.join(LINK_FILE), root) {
        Ok(Loose::Missing) => return LinkState::Missing,
        Ok(Loose::Skipped(skip)) => return LinkState::Invalid(skip.to_string()),
        Ok(Loose::Read(bytes)) => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => return LinkState::Invalid(Error::SourceNotUtf8.to_string()),
        },
        Err(e) => return LinkState::Invalid(e.to_string()),
    };
    let object = match json::parse(&text) {
        Ok(Value::Object(object)) => object,
        Ok(_) => return LinkState::Invalid("not a JSON object".to_owned()),
        Err(e) => return LinkState::Invalid(format!("not JSON: {e}")),
    };
    let field = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
    match (field("linked_brain"), field("brain_type")) {
        (Some(linked_brain), Some(brain_type))
            if !linked_brain.is_empty() && BrainType::parse(&brain_type).is_some() =>
        {
            LinkState::Valid(Link {
                linked_brain,
                brain_type,
                linked_at: field("linked_at").unwrap_or_default(),
            })
        }
        _ => LinkState::Invalid(
            "linked_brain must be a path and brain_type one of portfolio, bmad-global, claude-memory"
                .to_owned(),
        ),
    }
}

/// The project's link, checked against what detection could choose now ([`check_link`]): a
/// valid link to a refused target reads as [`LinkState::Invalid`], with the reason.
#[must_use]
pub(crate) fn read_checked_link(ctx: &Context) -> LinkState {
    match read_link(&ctx.root) {
        LinkState::Valid(link) => match check_link(&link, &candidates_of(ctx)) {
            Ok(brain) => LinkState::Valid(Link {
                linked_brain: brain.dir.to_string_lossy().into_owned(),
                ..link
            }),
            Err(reason) => LinkState::Invalid(reason),
        },
        other => other,
    }
}

/// What a command that reads the brain may use: the brain of a usable link, `Err` with the
/// warning for a link that is present but ignored; without a link, the home's global brain
/// when detection chooses it ([`default_brain`]), else `Ok(None)`.
///
/// # Errors
/// The warning for an ignored link (see [`ignored_link_warning`]).
pub(crate) fn linked(ctx: &Context) -> std::result::Result<Option<Brain>, String> {
    match read_checked_link(ctx) {
        LinkState::Missing => Ok(default_brain(&detect(ctx), ctx.home.as_deref())),
        LinkState::Valid(link) => Ok(link.brain()),
        LinkState::Invalid(reason) => Err(ignored_link_warning(&reason)),
    }
}

/// The brain a project uses: its link when usable, else what detection finds (read-only). An
/// ignored link is warned about.
#[must_use]
pub(crate) fn linked_or_detected(ctx: &Context) -> (Option<Brain>, Vec<String>) {
    let mut warnings = Vec::new();
    match linked(ctx) {
        Ok(Some(brain)) => return (Some(brain), warnings),
        Ok(None) => {}
        Err(warning) => warnings.push(warning),
    }
    let detection = detect(ctx);
    warnings.extend(detection.warnings);
    (detection.brain, warnings)
}

/// The 8-hex identity of a project in the global brain's index: SHA-256 of its absolute path,
/// as bmad-plus computes it.
#[must_use]
pub(crate) fn project_hash(root: &Path) -> String {
    sha256_hex(root.to_string_lossy().as_bytes())[..8].to_owned()
}

/// The index entry of a project, relative to the brain.
#[must_use]
pub(crate) fn index_rel(hash: &str) -> String {
    format!("{PROJECTS}/{hash}.yaml")
}

/// Creates what the global brain at `dir` lacks — the folder, `projects/`, `identity.yaml` and
/// the three note files — without touching what exists. Returns the paths created.
///
/// # Errors
/// The first I/O failure (a read-only home, a file where a folder should be).
pub(crate) fn complete_global_brain(dir: &Path, day: &str) -> Result<Vec<PathBuf>> {
    let mut created = Vec::new();
    // One folder at a time, from the brain's parent (`.bmad-plus/`) down: the folder above it
    // — the home folder — is never created, so a home that does not exist stays that way.
    if let Some(parent) = dir.parent().filter(|p| !p.is_dir()) {
        fs::create_dir(parent).map_err(|e| Error::io("cannot create", dir, e))?;
    }
    for folder in [dir.to_path_buf(), dir.join(PROJECTS)] {
        if !folder.is_dir() {
            fs::create_dir(&folder).map_err(|e| Error::io("cannot create", &folder, e))?;
            created.push(folder);
        }
    }
    pack::sweep_plain_folder(dir, |stem| stem == IDENTITY || NOTE_FILES.contains(&stem));
    pack::sweep_plain_folder(&dir.join(PROJECTS), |stem| {
        Path::new(stem).extension().is_some_and(|e| e == "yaml")
    });
    let files = [
        (IDENTITY, templates::identity(day)),
        (NOTE_FILES[0], templates::decisions(day, Scope::Global)),
        (NOTE_FILES[1], templates::lessons(day, Scope::Global)),
        (NOTE_FILES[2], templates::patterns(day, Scope::Global)),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        if create_only(&path, text.as_bytes()).map_err(|e| Error::io("cannot create", &path, e))? {
            created.push(path);
        }
    }
    Ok(created)
}

/// Writes `projects/<hash>.yaml` in the global brain at `dir` unless it exists: `Some(path)`
/// when created. An existing entry is never rewritten (someone may have added notes to it).
///
/// # Errors
/// An I/O failure naming the entry.
pub(crate) fn write_index_entry(
    dir: &Path,
    hash: &str,
    fields: &[IndexField],
) -> Result<Option<PathBuf>> {
    let path = dir.join(index_rel(hash));
    let text = templates::index_entry(fields);
    match create_only(&path, text.as_bytes()) {
        Ok(true) => Ok(Some(path)),
        Ok(false) => Ok(None),
        Err(e) => Err(Error::io("cannot create", &path, e)),
    }
}

/// The index fields `init` writes for the project at `root`, named `name`.
#[must_use]
pub(crate) fn project_index_fields(
    root: &Path,
    name: &str,
    hash: &str,
    day: &str,
) -> Vec<IndexField> {
    vec![
        ("path", pack::yaml_string(&root.to_string_lossy())),
        ("name", pack::yaml_string(name)),
        ("hash", pack::yaml_string(hash)),
        ("status", pack::yaml_string("active")),
        ("bmad_installed", "true".to_owned()),
        ("packs_installed", "[\"memory\"]".to_owned()),
        ("last_scanned", pack::yaml_string(day)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Tree {
        _tmp: tempfile::TempDir,
        base: PathBuf,
    }

    impl Tree {
        fn new() -> Self {
            let tmp = tempfile::tempdir().unwrap();
            let base = tmp.path().canonicalize().unwrap();
            fs::create_dir_all(base.join("ws/clients/app")).unwrap();
            fs::create_dir_all(base.join("home")).unwrap();
            Self { _tmp: tmp, base }
        }

        fn mkdir(&self, rel: &str) -> PathBuf {
            let path = self.base.join(rel);
            fs::create_dir_all(&path).unwrap();
            path
        }

        #[track_caller]
        fn case(&self, env: Option<&str>, expected: Option<(&str, BrainType)>, warned: bool) {
            let root = self.base.join("ws/clients/app");
            let home = self.base.join("home");
            let detection = detect_in(&Candidates {
                root: &root,
                cwd: &self.base,
                home: Some(&home),
                brain_env: env,
            });
            let expected = expected.map(|(rel, kind)| Brain {
                dir: self.base.join(rel),
                kind,
            });
            assert_eq!(detection.brain, expected);
            assert_eq!(
                !detection.warnings.is_empty(),
                warned,
                "{:?}",
                detection.warnings
            );
        }
    }

    #[test]
    fn detection_order_first_match_wins() {
        let tree = Tree::new();
        tree.case(None, None, false);
        // An empty Claude memory is no evidence of a brain; a non-empty one is the last resort.
        let claude = tree.mkdir("home/.claude/memory");
        tree.case(None, None, false);
        fs::write(claude.join("MEMORY.md"), "x").unwrap();
        tree.case(
            None,
            Some(("home/.claude/memory", BrainType::ClaudeMemory)),
            false,
        );
        tree.mkdir("home/.bmad-plus/brain");
        tree.case(
            None,
            Some(("home/.bmad-plus/brain", BrainType::BmadGlobal)),
            false,
        );
        // A file named _brain is not a brain; a folder two levels up is.
        fs::write(tree.base.join("ws/clients/_brain"), "x").unwrap();
        tree.case(
            None,
            Some(("home/.bmad-plus/brain", BrainType::BmadGlobal)),
            false,
        );
        tree.mkdir("ws/_brain");
        tree.case(None, Some(("ws/_brain", BrainType::Portfolio)), false);
        tree.mkdir("ws/clients/app/_brain");
        tree.case(
            None,
            Some(("ws/clients/app/_brain", BrainType::Portfolio)),
            false,
        );
        // The variable wins when it names a folder (relative to the current directory) ...
        tree.mkdir("explicit");
        tree.case(
            Some("explicit"),
            Some(("explicit", BrainType::Portfolio)),
            false,
        );
        // ... and is warned about and skipped otherwise.
        fs::write(tree.base.join("file"), "x").unwrap();
        tree.case(
            Some("file"),
            Some(("ws/clients/app/_brain", BrainType::Portfolio)),
            true,
        );
    }

    #[test]
    fn a_link_is_honoured_only_for_what_detection_could_choose() {
        let tree = Tree::new();
        let root = tree.base.join("ws/clients/app");
        let home = tree.base.join("home");
        tree.mkdir("ws/_brain");
        tree.mkdir("home/.bmad-plus/brain");
        tree.mkdir("home/.ssh");
        tree.mkdir("env-brain");
        fs::write(tree.base.join("env-brain/identity.yaml"), "x").unwrap();
        std::os::unix::fs::symlink(tree.base.join("home/.ssh"), root.join("_brain")).unwrap();
        let candidates = Candidates {
            root: &root,
            cwd: &tree.base,
            home: Some(&home),
            brain_env: Some("env-brain"),
        };
        let check = |target: String, kind: &str| {
            check_link(
                &Link {
                    linked_brain: target,
                    brain_type: kind.to_owned(),
                    linked_at: String::new(),
                },
                &candidates,
            )
            .map(|brain| brain.dir)
        };
        let at = |rel: &str| tree.base.join(rel).to_string_lossy().into_owned();
        assert_eq!(
            check(at("ws/_brain"), "portfolio"),
            Ok(tree.base.join("ws/_brain"))
        );
        // Written another way, the candidate's own path is what is used.
        assert_eq!(
            check(format!("{}/../_brain/", at("ws/clients")), "portfolio"),
            Ok(tree.base.join("ws/_brain"))
        );
        assert_eq!(
            check(at("home/.bmad-plus/brain"), "bmad-global"),
            Ok(tree.base.join("home/.bmad-plus/brain"))
        );
        // The explicit folder has identity.yaml: it is bmad-global, not portfolio.
        assert_eq!(
            check(at("env-brain"), "bmad-global"),
            Ok(tree.base.join("env-brain"))
        );
        for (target, kind) in [
            (at("env-brain"), "portfolio"),
            (at("ws/_brain"), "bmad-global"),
            (at("home/.ssh"), "portfolio"),
            (at("ws/clients/app/_brain"), "portfolio"),
            ("home/.bmad-plus/brain".to_owned(), "bmad-global"),
            (at("home/.claude/memory"), "claude-memory"),
        ] {
            assert!(check(target.clone(), kind).is_err(), "{target} as {kind}");
        }
        // The linked `_brain` is warned about by detection, which goes on to the next one.
        let detection = detect_in(&Candidates {
            brain_env: None,
            ..candidates.clone()
        });
        assert_eq!(
            detection.brain.map(|b| b.dir),
            Some(tree.base.join("ws/_brain"))
        );
        assert_eq!(detection.warnings.len(), 1);
    }

    #[test]
    fn a_link_to_any_homes_global_brain_is_this_homes() {
        let tree = Tree::new();
        let root = tree.base.join("ws/clients/app");
        let home = tree.base.join("home");
        let link = |target: &str, kind: &str| Link {
            linked_brain: target.to_owned(),
            brain_type: kind.to_owned(),
            linked_at: String::new(),
        };
        let with_home = |home: Option<&Path>, target: &str, kind: &str| {
            check_link(
                &link(target, kind),
                &Candidates {
                    root: &root,
                    cwd: &tree.base,
                    home,
                    brain_env: None,
                },
            )
        };
        let ours = Ok(Brain {
            dir: home.join(GLOBAL_BRAIN),
            kind: BrainType::BmadGlobal,
        });
        // Whether or not this home's global brain exists yet: `init` completes it.
        for target in [
            "/home/alice/.bmad-plus/brain",
            "/Users/alice/.bmad-plus/brain/",
            "/root/x/../.bmad-plus/brain",
        ] {
            assert_eq!(
                with_home(Some(&home), target, "bmad-global"),
                ours,
                "{target}"
            );
        }
        tree.mkdir("home/.bmad-plus/brain");
        assert_eq!(
            with_home(Some(&home), "/home/alice/.bmad-plus/brain", "bmad-global"),
            ours
        );
        for (target, kind) in [
            ("/home/alice/.bmad-plus/brain", "portfolio"),
            ("/home/alice/.bmad-plus/brain/x", "bmad-global"),
            ("/home/alice/bmad-plus/brain", "bmad-global"),
            (".bmad-plus/brain", "bmad-global"),
        ] {
            assert!(
                with_home(Some(&home), target, kind).is_err(),
                "{target} as {kind}"
            );
        }
        assert_eq!(
            with_home(None, "/home/alice/.bmad-plus/brain", "bmad-global"),
            Err(
                "it links /home/alice/.bmad-plus/brain as the global brain, and HOME is not set"
                    .to_owned()
            )
        );
        // Without a link, only this home's global brain is the project's brain.
        let detection = detect_in(&Candidates {
            root: &root,
            cwd: &tree.base,
            home: Some(&home),
            brain_env: None,
        });
        assert_eq!(default_brain(&detection, Some(&home)), ours.ok());
        assert_eq!(default_brain(&detection, Some(&tree.base)), None);
        tree.mkdir("ws/_brain");
        let detection = detect_in(&Candidates {
            root: &root,
            cwd: &tree.base,
            home: Some(&home),
            brain_env: None,
        });
        assert_eq!(default_brain(&detection, Some(&home)), None);
    }

    #[test]
    fn link_round_trip_and_invalid_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        assert_eq!(read_link(&root), LinkState::Missing);
        let brain = Brain {
            dir: PathBuf::from("/h/.bmad-plus/brain"),
            kind: BrainType::BmadGlobal,
        };
        let link = Link::new(&brain, "2026-10-18T09:30:00.000Z");
        assert_eq!(
            link.to_text(),
            "{\n  \"linked_brain\": \"/h/.bmad-plus/brain\",\n  \"brain_type\": \"bmad-global\",\n  \"linked_at\": \"2026-10-18T09:30:00.000Z\"\n}\n"
        );
        fs::create_dir_all(root.join(".agents/memory")).unwrap();
        fs::write(root.join(LINK_FILE), link.to_text()).unwrap();
        assert_eq!(read_link(&root), LinkState::Valid(link.clone()));
        assert_eq!(link.brain(), Some(brain));
        for bad in [
            "{",
            "[]",
            "{\"linked_brain\":\"/x\",\"brain_type\":\"other\"}",
        ] {
            fs::write(root.join(LINK_FILE), bad).unwrap();
            assert!(matches!(read_link(&root), LinkState::Invalid(_)), "{bad}");
        }
    }

    #[test]
    fn project_hash_is_sha256_of_the_path() {
        // printf %s /work/demo/app | sha256sum
        assert_eq!(project_hash(Path::new("/work/demo/app")), "d885ad15");
    }

    #[test]
    fn completing_a_half_made_brain_keeps_what_exists() {
        let dir = tempfile::tempdir().unwrap();
        let brain = dir.path().join("brain");
        fs::create_dir_all(brain.join(PROJECTS)).unwrap();
        fs::write(brain.join("lessons.md"), "mine").unwrap();
        let created = complete_global_brain(&brain, "2026-10-18").unwrap();
        assert_eq!(
            created,
            [
                brain.join(IDENTITY),
                brain.join("decisions.md"),
                brain.join("patterns.md")
            ]
        );
        assert_eq!(
            fs::read_to_string(brain.join("lessons.md")).unwrap(),
            "mine"
        );
        assert!(
            complete_global_brain(&brain, "2026-10-19")
                .unwrap()
                .is_empty()
        );
    }
}
