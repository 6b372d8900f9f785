//! `init`: create what is missing of the project memory, then link a brain.
//!
//! `.agents/memory/` gets `decisions.md`, `lessons.md`, `patterns.md` and `context.md` from our
//! templates (dated with the context's clock) and a `sessions/` folder — each only when missing;
//! nothing that exists is rewritten or removed, so a second run changes nothing and says so.
//!
//! With `--sidecar <agent>`, the agent's BMAD sidecar `_bmad/memory/<agent>-sidecar/` gets
//! `index.md`, `access-boundaries.md`, `patterns.md` and `chronology.md` the same way: only what
//! is missing (see [`crate::session::sidecar`]).
//!
//! Then the brain ([`crate::session::brain`]): an existing `.brain-link` is kept as it is. When detection
//! could choose its target today it is used (a different detection result is only warned
//! about); otherwise it is warned about and ignored, and nothing is written for it — remove the
//! link to relink. Without one, detection runs; with no brain found, the BMAD+ global brain is
//! created in the home folder. The link is written for any brain but the home's global brain,
//! which detection finds on every machine (a committed link into one person's home would mean
//! nothing to the next); for that brain only, the project's index entry is written. Writing into the home folder is best effort: a read-only or missing home is a
//! warning, never a failure, as the Memory pack promises (a missing home is never created).
//! Failures inside the project are errors.
//!
//! In a git work tree, the project's `.gitignore` is created or extended with what each clone
//! keeps to itself ([`IGNORED`]: the cache, the writer lock, the brain link), as
//! [`crate::store::ignore`] ensures it: only the lines it lacks, under a comment; nothing the
//! user wrote changes, and a second run adds nothing. A `.gitignore` that cannot be read or
//! written (a link, a folder) is a warning naming the lines to add, never a failure after the
//! memory was written.
//!
//! Paths inside the project are confined (never through a link) before anything is written.
//! Temporary files that a killed writer left in `.agents/memory/`, `sessions/` and the global
//! brain's folders are swept before the first write there.

use std::fmt::Write as _;
use std::path::Path;

use crate::actions::secrets;
use crate::context::Context;
use crate::context::folder_name;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::text::trim;
use crate::messages;
use crate::output::Report;
use crate::session::brain::{
    self, Brain, BrainType, Link, LinkState, complete_global_brain, global_brain_dir,
};
use crate::session::pack::{
    create_project_file, day, ensure_project_dir, memory_path, sweep_project_memory,
};
use crate::session::sidecar::{self, check_agent_name};
use crate::session::templates::{self, Scope};
use crate::store::git;
use crate::store::ignore::{self, Ignored};
use crate::store::layout::{
    CONTEXT_FILE, GITIGNORE, IGNORED, LINK_FILE, NOTE_FILES, PACK_DIR, SESSIONS_DIR, SIDECARS_DIR,
    sidecar_path,
};
use crate::store::paths::confine;

/// Create what is missing of .agents/memory/ and link a brain (never overwrites).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct InitArgs {
    /// The project's name in the new files (default: the project folder's name).
    #[arg(long = "project-name", value_name = "name", allow_hyphen_values = true)]
    pub project_name: Option<String>,
    /// Also create this agent's BMAD sidecar, `_bmad/memory/<agent>-sidecar/` (index.md,
    /// access-boundaries.md, patterns.md, chronology.md), from templates, never overwriting.
    #[arg(long, value_name = "agent", allow_hyphen_values = true)]
    pub sidecar: Option<String>,
}

/// What became of `.brain-link`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkFate {
    /// Written by this run.
    Created,
    /// Already there, and used.
    Kept,
    /// None written: the brain is the home's global brain, which detection finds.
    NotNeeded,
}

impl LinkFate {
    fn as_str(self) -> &'static str {
        match self {
            LinkFate::Created => "created",
            LinkFate::Kept => "kept",
            LinkFate::NotNeeded => "not-needed",
        }
    }
}

/// How the project is linked to its brain.
#[derive(Debug, Clone)]
pub(crate) struct LinkedBrain {
    /// The brain as used: a kept link's target is the folder it resolves to (the global brain
    /// of this home, for a link into another home's).
    pub link: Link,
    pub fate: LinkFate,
}

/// What `init` created and found.
#[derive(Debug, Clone, Default)]
pub(crate) struct InitReport {
    pub project: String,
    /// Created paths: project-relative in the project, absolute in the home folder.
    pub created: Vec<String>,
    /// Paths that existed and were left as they are.
    pub kept: Vec<String>,
    /// Files that existed and got lines: `.gitignore`, those of [`IGNORED`] it lacked.
    pub updated: Vec<String>,
    pub brain: Option<LinkedBrain>,
    pub warnings: Vec<String>,
    /// Whether the project is in a git clone that does not define the memory's merge driver,
    /// so the report offers `bmad-mem git setup`.
    pub offer_git_setup: bool,
    /// The patterns this run added to `.gitignore`.
    pub ignored: Vec<String>,
}

/// Whether the project is in a git work tree whose config does not define the memory's merge
/// driver. Git is asked only when a `.git` is in sight, so a project outside git costs nothing.
fn needs_git_setup(root: &Path) -> bool {
    git::looks_like_git(root)
        && git::probe(root) == git::Probe::WorkTree
        && matches!(
            git::config_get(
                root,
                &format!("merge.{}.driver", git::REGISTRY_DRIVER),
                false
            ),
            Ok(None)
        )
}

/// The project's name: `--project-name`, else the folder's name.
fn project_name(args: &InitArgs, root: &Path) -> Result<String> {
    match &args.project_name {
        Some(name) if trim(name).is_empty() => Err(Error::refused(messages::PROJECT_NAME_EMPTY)),
        Some(name) => Ok(trim(name).to_owned()),
        None => Ok(folder_name(root)),
    }
}

/// Runs `init`.
///
/// # Errors
/// An empty `--project-name`, or one holding a secret; a memory path refused by confinement (a link, a file where a
/// folder belongs); an I/O failure inside the project. Nothing in the home folder is an error.
pub(crate) fn run(args: &InitArgs, ctx: &Context) -> Result<InitReport> {
    let name = project_name(args, &ctx.root)?;
    if args.project_name.is_some() {
        secrets::refuse(ctx, &[("--project-name", &name)])?;
    }
    let today = day(&ctx.now).to_owned();
    let notes = [
        (
            NOTE_FILES[0],
            templates::decisions(&today, Scope::Project(&name)),
        ),
        (
            NOTE_FILES[1],
            templates::lessons(&today, Scope::Project(&name)),
        ),
        (
            NOTE_FILES[2],
            templates::patterns(&today, Scope::Project(&name)),
        ),
        (
            CONTEXT_FILE,
            templates::context(&today, &name, &ctx.root.to_string_lossy()),
        ),
    ];
    let sidecar: Vec<(String, String)> = match &args.sidecar {
        Some(agent) => {
            check_agent_name(agent)?;
            sidecar::templates(agent, &today)
                .into_iter()
                .map(|(file, text)| (sidecar_path(agent, file), text))
                .collect()
        }
        None => Vec::new(),
    };
    // Every project path is checked before the first write.
    for (rel, _) in &sidecar {
        confine(&ctx.root, rel)?;
    }
    confine(&ctx.root, SESSIONS_DIR)?;
    confine(&ctx.root, LINK_FILE)?;
    for (file, _) in &notes {
        confine(&ctx.root, &memory_path(file))?;
    }

    let mut report = InitReport {
        project: name.clone(),
        ..InitReport::default()
    };
    for dir in [".agents", PACK_DIR, SESSIONS_DIR] {
        let shown = format!("{dir}/");
        if ensure_project_dir(&ctx.root, dir)? {
            report.created.push(shown);
        } else if dir == SESSIONS_DIR {
            report.kept.push(shown);
        }
    }
    sweep_project_memory(&ctx.root);
    for (file, text) in &notes {
        let rel = memory_path(file);
        if create_project_file(&ctx.root, &rel, text)? {
            report.created.push(rel);
        } else {
            report.kept.push(rel);
        }
    }
    if let Some(first) = sidecar.first() {
        let dir = first.0.rsplit_once('/').map_or("", |(dir, _)| dir);
        for folder in [
            SIDECARS_DIR.split('/').next().unwrap_or(SIDECARS_DIR),
            SIDECARS_DIR,
            dir,
        ] {
            if ensure_project_dir(&ctx.root, folder)? {
                report.created.push(format!("{folder}/"));
            }
        }
        for (rel, text) in &sidecar {
            if create_project_file(&ctx.root, rel, text)? {
                report.created.push(rel.clone());
            } else {
                report.kept.push(rel.clone());
            }
        }
    }
    link_brain(ctx, &name, &today, &mut report)?;
    // In a clone, each clone's own files are kept out of git.
    if git::looks_like_git(&ctx.root) && git::probe(&ctx.root) == git::Probe::WorkTree {
        ignore_clone_files(ctx, &mut report);
    }
    report.offer_git_setup = needs_git_setup(&ctx.root);
    Ok(report)
}

/// Creates or extends `.gitignore` with the [`IGNORED`] patterns it lacks; a failure is a
/// warning, the project memory being ready.
fn ignore_clone_files(ctx: &Context, report: &mut InitReport) {
    match ignore::ensure_all(&ctx.root) {
        Ok((Ignored::Created, added)) => {
            report.created.push(GITIGNORE.to_owned());
            report.ignored = added;
        }
        Ok((Ignored::Added, added)) => {
            report.updated.push(GITIGNORE.to_owned());
            report.ignored = added;
        }
        Ok((Ignored::Already, _)) => {}
        Err(e) => report
            .warnings
            .push(messages::gitignore_not_extended(&e, &IGNORED)),
    }
}

/// The brain step: keep a valid link, or detect (creating the global brain when nothing is
/// found) and link.
fn link_brain(ctx: &Context, name: &str, today: &str, report: &mut InitReport) -> Result<()> {
    let detection = brain::detect(ctx);
    report.warnings.extend(detection.warnings.iter().cloned());
    let brain = match brain::read_link(&ctx.root) {
        LinkState::Valid(link) => {
            report.kept.push(LINK_FILE.to_owned());
            let linked = match brain::check_link(&link, &brain::candidates_of(ctx)) {
                Ok(linked) => linked,
                Err(reason) => {
                    report.warnings.push(brain::ignored_link_warning(&reason));
                    return Ok(());
                }
            };
            if let Some(found) = &detection.brain
                && *found != linked
            {
                report.warnings.push(format!(
                    "warning: {LINK_FILE} kept: it links {} ({}); detection now finds {} ({}). Remove the link and run init again to relink.",
                    linked.dir.display(),
                    linked.kind.as_str(),
                    found.dir.display(),
                    found.kind.as_str()
                ));
            }
            report.brain = Some(LinkedBrain {
                link: Link {
                    linked_brain: linked.dir.to_string_lossy().into_owned(),
                    ..link
                },
                fate: LinkFate::Kept,
            });
            Some(linked)
        }
        LinkState::Invalid(reason) => {
            report.kept.push(LINK_FILE.to_owned());
            report.warnings.push(format!(
                "warning: {LINK_FILE} is not a usable brain link ({reason}); it was left as it is — fix or remove it, then run init again"
            ));
            None
        }
        LinkState::Missing => {
            let Some(brain) = detection
                .brain
                .clone()
                .or_else(|| create_global_brain(ctx, today, report))
            else {
                return Ok(());
            };
            // Detection finds the home's global brain wherever the project is cloned: no link.
            if brain::is_home_global(&brain, ctx.home.as_deref()) {
                report.brain = Some(LinkedBrain {
                    link: Link::new(&brain, ""),
                    fate: LinkFate::NotNeeded,
                });
                index_project(ctx, &brain, name, today, report);
                return Ok(());
            }
            // `.brain-link` is JSON text: a path that is not UTF-8 would be recorded altered, and
            // no later run could honour the link. Better no link, and say why.
            if brain.dir.to_str().is_none() {
                report.warnings.push(format!(
                    "warning: the brain {} has a path that is not valid UTF-8, which {LINK_FILE} cannot record; no brain is linked",
                    brain.dir.display()
                ));
                return Ok(());
            }
            let link = Link::new(&brain, &ctx.now.iso);
            if !create_project_file(&ctx.root, LINK_FILE, &link.to_text())? {
                // Another writer linked the project meanwhile: theirs stands.
                report.kept.push(LINK_FILE.to_owned());
                return Ok(());
            }
            report.created.push(LINK_FILE.to_owned());
            report.brain = Some(LinkedBrain {
                link,
                fate: LinkFate::Created,
            });
            Some(brain)
        }
    };
    if let Some(brain) = brain {
        index_project(ctx, &brain, name, today, report);
    }
    Ok(())
}

/// Creates the global brain when detection found nothing: `None` (with a warning) when there is
/// no home or it cannot be written.
fn create_global_brain(ctx: &Context, today: &str, report: &mut InitReport) -> Option<Brain> {
    let Some(home) = &ctx.home else {
        report.warnings.push(
            "warning: HOME is not set: no brain was found or created, so none is linked".to_owned(),
        );
        return None;
    };
    let dir = global_brain_dir(home);
    match complete_global_brain(&dir, today) {
        Ok(created) => {
            report.created.extend(created.iter().map(|p| shown(p)));
            Some(Brain {
                dir,
                kind: BrainType::BmadGlobal,
            })
        }
        Err(e) => {
            report.warnings.push(format!(
                "warning: cannot create the global brain ({e}); the project memory is ready, no brain is linked"
            ));
            None
        }
    }
}

/// For the BMAD+ global brain of this home only: complete it and write the project's index
/// entry, both best effort.
fn index_project(ctx: &Context, brain: &Brain, name: &str, today: &str, report: &mut InitReport) {
    if !brain::is_home_global(brain, ctx.home.as_deref()) {
        return;
    }
    let result = complete_global_brain(&brain.dir, today).and_then(|created| {
        report.created.extend(created.iter().map(|p| shown(p)));
        let hash = brain::project_hash(&ctx.root);
        let fields = brain::project_index_fields(&ctx.root, name, &hash, today);
        match brain::write_index_entry(&brain.dir, &hash, &fields)? {
            Some(path) => report.created.push(shown(&path)),
            None => report
                .kept
                .push(shown(&brain.dir.join(brain::index_rel(&hash)))),
        }
        Ok(())
    });
    if let Err(e) = result {
        report.warnings.push(format!(
            "warning: cannot update the global brain ({e}); the project memory is ready"
        ));
    }
}

/// A path as reported: folders end with `/`.
fn shown(path: &Path) -> String {
    let mut text = path.to_string_lossy().into_owned();
    if path.is_dir() {
        text.push('/');
    }
    text
}

impl InitReport {
    /// Whether this run created anything.
    #[must_use]
    pub(crate) fn is_changed(&self) -> bool {
        !self.created.is_empty() || !self.updated.is_empty()
    }
}

fn strings(list: &[String]) -> Value {
    Value::Array(list.iter().map(Value::from).collect())
}

impl Report for InitReport {
    fn to_json(&self) -> Value {
        let brain = self.brain.as_ref().map(|b| {
            Object::new()
                .with("path", b.link.linked_brain.as_str())
                .with("type", b.link.brain_type.as_str())
                .with(
                    "linkedAt",
                    (b.fate != LinkFate::NotNeeded).then_some(b.link.linked_at.as_str()),
                )
                .with("link", b.fate.as_str())
        });
        let result = Object::new()
            .with("changed", self.is_changed())
            .with("project", self.project.as_str())
            .with("memoryDir", PACK_DIR)
            .with("created", strings(&self.created))
            .with("kept", strings(&self.kept))
            .with("brain", brain)
            .with("warnings", strings(&self.warnings));
        // Only when a line was added to an existing file: elsewhere the result stays as it was.
        let result = if self.updated.is_empty() {
            result
        } else {
            result.with("updated", strings(&self.updated))
        };
        // Only in a clone that lacks the merge driver: elsewhere the result stays as it was.
        Value::Object(if self.offer_git_setup {
            result.with("gitSetup", messages::GIT_SETUP_COMMAND)
        } else {
            result
        })
    }

    fn render_human(&self) -> String {
        let mut out = if self.is_changed() {
            format!(
                "mem init: {} created, {} kept as they were — project memory in {PACK_DIR}/\n",
                self.created.len(),
                self.kept.len()
            )
        } else {
            format!("mem init: nothing to do — {PACK_DIR}/ is complete; nothing was changed\n")
        };
        for path in &self.created {
            let _ = writeln!(out, "  created {path}");
        }
        for path in &self.updated {
            let _ = writeln!(
                out,
                "  updated {path} ({} ignored)",
                self.ignored.join(", ")
            );
        }
        match &self.brain {
            Some(b) => {
                let _ = writeln!(
                    out,
                    "  brain   {} {} ({})",
                    b.link.brain_type,
                    b.link.linked_brain,
                    match b.fate {
                        LinkFate::Created => "linked now",
                        LinkFate::Kept => "link kept",
                        LinkFate::NotNeeded => "found by detection, no link needed",
                    }
                );
            }
            None => out.push_str("  brain   none linked\n"),
        }
        if self.offer_git_setup {
            out.push_str(messages::INIT_OFFERS_GIT_SETUP);
            out.push('\n');
        }
        out
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn written(&self) -> Option<String> {
        let mut done = Vec::new();
        if !self.created.is_empty() {
            done.push(format!("{} created", self.created.join(", ")));
        }
        if !self.updated.is_empty() {
            done.push(format!("{} added to {GITIGNORE}", self.ignored.join(", ")));
        }
        (!done.is_empty()).then(|| done.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_names() {
        let root = Path::new("/work/demo/app");
        let name = |n: Option<&str>| {
            project_name(
                &InitArgs {
                    project_name: n.map(str::to_owned),
                    sidecar: None,
                },
                root,
            )
        };
        assert_eq!(name(None).unwrap(), "app");
        assert_eq!(name(Some(" Orbit ")).unwrap(), "Orbit");
        assert!(name(Some("  ")).is_err());
        assert_eq!(folder_name(Path::new("/")), "project");
    }
}
