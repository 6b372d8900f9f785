//! `merge-driver`: the git merge driver of the memory's registries.
//!
//! Git runs `bmad-mem merge-driver %O %A %B %P` from the top of the work tree when a merge (or
//! a rebase, a cherry-pick) changed one of the files `.gitattributes` assigns to the driver on
//! both sides: `%O` holds the common ancestor, `%A` ours, `%B` theirs — three temporary files of
//! git's — and `%P` the path in the repository. The result goes into `%A`; exit 0 says the
//! merge is clean, exit 1 that the path is in conflict with whatever `%A` then holds.
//!
//! The driver knows the append-only NDJSON registries (merged line by line, [`ndjson`]), the
//! pattern scores (merged pattern by pattern, [`scores`]) and the note files and candidate files
//! (merged section by section, [`notes`]), named by the end of `%P` (`.bmad/memory/<file>`, so a
//! project in a subfolder of the repository is served too). Any other path is refused with `%A`
//! untouched: a conflict, never a guess. The same candidate admitted in both clones becomes one
//! admission in the note file, the candidate file and the decision ledger alike
//! ([`admissions`]); the driver says which one it kept on stderr.
//!
//! The three files are read up to the registry cap (a file over it is a conflict naming the
//! archive command, when the store has one); a link or a file that is not regular is refused.
//! `%A` is replaced atomically: a new file beside it, synced, then renamed over it. A merge
//! that would exceed the cap, or receipts the strict reader would refuse, leave `%A` as it
//! was; records or patterns in conflict are written (records as both versions between git's
//! markers, patterns as ours) and reported on stderr, and the driver exits 1.

pub(crate) mod admissions;
mod history;
pub(crate) mod ndjson;
pub(crate) mod notes;
pub(crate) mod scores;

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::actions::receipts;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{self, Object, Value};
use crate::messages;
use crate::output::Report;
use crate::store::layout::{
    DECISION_LEDGER, JOURNAL, OUTCOMES, PROMOTIONS, REGISTRY_CAP, REINFORCEMENTS, SCORES,
};

/// Merge one memory file for git: base, ours (rewritten with the result), theirs, path.
/// Git runs it, as `.gitattributes` and the clone's merge.bmad-mem.driver say.
#[derive(Debug, Clone, clap::Args)]
pub struct MergeDriverArgs {
    /// The common ancestor's file (git's %O).
    #[arg(value_name = "base")]
    pub base: PathBuf,
    /// Our side's file (git's %A), replaced by the merge result.
    #[arg(value_name = "ours")]
    pub ours: PathBuf,
    /// Their side's file (git's %B).
    #[arg(value_name = "theirs")]
    pub theirs: PathBuf,
    /// The path being merged, in the repository (git's %P).
    #[arg(value_name = "path", allow_hyphen_values = true)]
    pub path: String,
}

/// The files the driver merges, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An NDJSON registry; `archive` is the word `bmad-mem archive` takes for it, if any.
    Registry {
        archive: Option<&'static str>,
        receipts: bool,
    },
    Scores,
}

/// Every file the driver knows, with its kind.
const KNOWN: [(&str, Kind); 6] = [
    (
        JOURNAL,
        Kind::Registry {
            archive: Some("journal"),
            receipts: false,
        },
    ),
    (
        PROMOTIONS,
        Kind::Registry {
            archive: Some("promotions"),
            receipts: false,
        },
    ),
    (
        OUTCOMES,
        Kind::Registry {
            archive: None,
            receipts: true,
        },
    ),
    (
        DECISION_LEDGER,
        Kind::Registry {
            archive: None,
            receipts: false,
        },
    ),
    (SCORES, Kind::Scores),
    (
        REINFORCEMENTS,
        Kind::Registry {
            archive: Some("reinforcements"),
            receipts: false,
        },
    ),
];

/// The kind of the file at `path` (in the repository), with its project-relative name.
fn kind_of(path: &str) -> Option<(&'static str, Kind)> {
    let mut path = path;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    KNOWN.iter().copied().find(|(rel, _)| {
        path == *rel
            || path
                .strip_suffix(rel)
                .is_some_and(|above| above.ends_with('/'))
    })
}

/// The files the driver merges, folder by folder: `a, b and c in .bmad/memory/ and d in
/// .bmad/records/`.
fn known_files() -> String {
    let and = |names: &[&str]| match names {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    };
    let mut folders: Vec<(&str, Vec<&str>)> = Vec::new();
    for (rel, _) in KNOWN {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        match folders.iter_mut().find(|(d, _)| *d == dir) {
            Some((_, names)) => names.push(name),
            None => folders.push((dir, vec![name])),
        }
    }
    let groups: Vec<String> = folders
        .iter()
        .map(|(dir, names)| format!("{} in {dir}/", and(names)))
        .collect();
    and(&groups.iter().map(String::as_str).collect::<Vec<_>>())
}

/// A clean merge.
#[derive(Debug)]
pub struct MergeReport {
    path: String,
    /// What the driver decided for the user to know: two admissions of one candidate made one.
    stated: Vec<String>,
}

impl Report for MergeReport {
    fn to_json(&self) -> Value {
        Value::Object(
            Object::new()
                .with("path", self.path.as_str())
                .with("merged", true)
                .with(
                    "stated",
                    self.stated.iter().map(Value::from).collect::<Vec<_>>(),
                ),
        )
    }

    fn warnings(&self) -> Vec<String> {
        self.stated
            .iter()
            .map(|line| format!("mem merge-driver: {line}"))
            .collect()
    }

    /// Git shows what a driver prints: a clean merge says nothing on stdout (what it decided
    /// goes to stderr, [`Report::warnings`]).
    fn render_human(&self) -> String {
        String::new()
    }

    fn written(&self) -> Option<String> {
        Some(format!("{} merged", self.path))
    }
}

/// Merges, writes the result into ours, and reports.
///
/// # Errors
/// A conflict (the report, after ours was written when it holds the conflict) or a refusal
/// (ours untouched); both exit 1, which git takes as a conflict.
pub fn run(args: &MergeDriverArgs, ctx: &Context) -> Result<MergeReport> {
    if let Some((rel, note)) = notes::kind_of(&args.path) {
        return merge_note(args, ctx, &rel, &note);
    }
    let Some((rel, kind)) = kind_of(&args.path) else {
        return Err(Error::refused(messages::merge_unknown_path(
            &args.path,
            &known_files(),
        )));
    };
    let ours_path = ctx.cwd.join(&args.ours);
    let archive = match kind {
        Kind::Registry { archive, .. } => archive,
        Kind::Scores => None,
    };
    let remedy = messages::merge_remedy(archive);
    let read =
        |given: &Path, side: &str| read_side(&ctx.cwd.join(given), given, side, rel, &remedy);
    let base = read(&args.base, "the base")?;
    let ours = read(&args.ours, "ours")?;
    let theirs = read(&args.theirs, "theirs")?;
    let too_large = |bytes: &[u8]| {
        (bytes.len() as u64 > REGISTRY_CAP).then(|| {
            Error::refused(messages::merge_too_large(
                rel,
                "the merged file",
                REGISTRY_CAP,
                &remedy,
            ))
        })
    };
    let mut stated = Vec::new();
    match kind {
        Kind::Registry { receipts, .. } => {
            let mut merged = ndjson::merge(&base, &ours, &theirs, receipts);
            if rel == DECISION_LEDGER {
                stated = one_admission(&base, &ours, &theirs, &mut merged.bytes);
            }
            if let Some(e) = too_large(&merged.bytes) {
                return Err(e);
            }
            if !merged.conflicts.is_empty() {
                replace(&ours_path, &merged.bytes)?;
                return Err(Error::refused(record_report(rel, &merged.conflicts)));
            }
            if receipts {
                let text = String::from_utf8_lossy(&merged.bytes);
                if let Err(e) = receipts::parse_store(&text) {
                    return Err(Error::refused(messages::merge_receipts_refused(
                        rel,
                        &e.to_string(),
                    )));
                }
            }
            if merged.bytes != ours {
                replace(&ours_path, &merged.bytes)?;
            }
        }
        // Both sides alike, or theirs as the base: ours is the result, whatever the base holds.
        Kind::Scores if ours == theirs || base == theirs => {}
        Kind::Scores => {
            let parse = |bytes: &[u8], side: &str| {
                document(bytes).ok_or_else(|| Error::refused(messages::merge_not_json(rel, side)))
            };
            let (b, o, t) = (
                parse(&base, "the base")?,
                parse(&ours, "ours")?,
                parse(&theirs, "theirs")?,
            );
            let text = if base == ours {
                theirs.clone()
            } else {
                let found = history::find(
                    &ctx.cwd,
                    &args.path,
                    [&args.base, &args.ours, &args.theirs],
                    &ctx.merge_heads,
                );
                let records = found.as_ref().map(|f| scores::Records {
                    base: &f.base,
                    ours: &f.ours,
                    theirs: &f.theirs,
                });
                let records = match &records {
                    Ok(records) => Ok(records),
                    Err(why) => Err(why.as_str()),
                };
                let merged = scores::merge(&b, &o, &t, records);
                let text = scores::text(&merged.document).into_bytes();
                if let Some(e) = too_large(&text) {
                    return Err(e);
                }
                if !merged.conflicts.is_empty() {
                    replace(&ours_path, &text)?;
                    return Err(Error::refused(pattern_report(rel, &merged)));
                }
                text
            };
            replace(&ours_path, &text)?;
        }
    }
    Ok(MergeReport {
        path: args.path.clone(),
        stated,
    })
}

/// The merged ledger `merged` with the later of two `admit` records of one decision dropped
/// ([`admissions::dedupe_ledger`]); what was dropped, as the driver states it.
fn one_admission(base: &[u8], ours: &[u8], theirs: &[u8], merged: &mut Vec<u8>) -> Vec<String> {
    let Some((bytes, kept)) = admissions::dedupe_ledger(base, ours, theirs, merged) else {
        return Vec::new();
    };
    *merged = bytes;
    kept.iter()
        .map(|k| {
            messages::merge_ledgered_twice(
                DECISION_LEDGER,
                &k.heading,
                (&k.kept.0, &k.kept.1, &k.kept.2),
                (&k.dropped.0, &k.dropped.1, &k.dropped.2),
            )
        })
        .collect()
}

/// Merges a note file or a candidate file section by section ([`notes`]).
fn merge_note(
    args: &MergeDriverArgs,
    ctx: &Context,
    rel: &str,
    note: &notes::Note,
) -> Result<MergeReport> {
    let ours_path = ctx.cwd.join(&args.ours);
    let read = |given: &Path, side: &str| {
        read_side(
            &ctx.cwd.join(given),
            given,
            side,
            rel,
            messages::MERGE_NOTE_REMEDY,
        )
    };
    let base = read(&args.base, "the base")?;
    let ours = read(&args.ours, "ours")?;
    let theirs = read(&args.theirs, "theirs")?;
    let merged = notes::merge(&base, &ours, &theirs, note).map_err(|refusal| {
        Error::refused(match refusal {
            notes::Refusal::NotText { side } => messages::merge_note_not_text(rel, side),
            notes::Refusal::Markers { side, line } => messages::merge_note_markers(rel, side, line),
        })
    })?;
    if merged.bytes.len() as u64 > REGISTRY_CAP {
        return Err(Error::refused(messages::merge_too_large(
            rel,
            "the merged file",
            REGISTRY_CAP,
            messages::MERGE_NOTE_REMEDY,
        )));
    }
    let stated: Vec<String> = merged
        .admissions
        .iter()
        .map(|r| {
            let who = |(by, day): &(String, Option<String>)| {
                messages::merge_admission(by, day.as_deref())
            };
            messages::merge_admitted_twice(rel, &r.id, &who(&r.kept), &who(&r.dropped), r.by_day)
        })
        .collect();
    if !merged.conflicts.is_empty() {
        replace(&ours_path, &merged.bytes)?;
        let whole = matches!(note, notes::Note::Candidate { .. });
        let mut report = section_report(rel, &merged.conflicts, whole);
        for line in &stated {
            report.push('\n');
            report.push_str(line);
        }
        return Err(Error::refused(report));
    }
    if merged.bytes != ours {
        replace(&ours_path, &merged.bytes)?;
    }
    Ok(MergeReport {
        path: args.path.clone(),
        stated,
    })
}

/// The report of the parts of a note file in conflict; `whole` for a candidate file, whose text
/// has no sections.
fn section_report(rel: &str, conflicts: &[notes::Conflict], whole: bool) -> String {
    let mut out = messages::merge_section_conflicts(rel, conflicts.len());
    let text = if whole {
        messages::MERGE_CANDIDATE_TEXT
    } else {
        messages::MERGE_PREAMBLE
    };
    for c in conflicts {
        let part = c
            .heading
            .as_deref()
            .map_or_else(|| text.to_owned(), messages::merge_section_name);
        let side = |ours: bool| if ours { "ours" } else { "theirs" };
        let what = match &c.what {
            notes::What::ChangedBoth => messages::MERGE_CHANGED_BOTH.to_owned(),
            notes::What::AddedBoth => messages::MERGE_ADDED_BOTH.to_owned(),
            notes::What::Removed { ours } => {
                messages::merge_removed_changed(side(*ours), side(!*ours))
            }
            notes::What::Renamed {
                ours: Some(o),
                theirs: Some(t),
            } => messages::merge_renamed_both(o, t),
            notes::What::Renamed { ours, theirs } => {
                let (to, on_ours) = match (ours, theirs) {
                    (Some(to), _) => (to.as_str(), true),
                    (_, Some(to)) => (to.as_str(), false),
                    (None, None) => ("", true),
                };
                messages::merge_renamed_changed(side(on_ours), to, side(!on_ours))
            }
        };
        out.push('\n');
        out.push_str(&messages::merge_section_conflict(&part, &what));
    }
    out
}

/// The scores document in `bytes`: an empty file (git's base when the sides share no ancestor)
/// is an empty document; anything but a JSON object is `None`.
fn document(bytes: &[u8]) -> Option<Object> {
    let text = std::str::from_utf8(bytes).ok()?;
    if text.trim().is_empty() {
        return Some(Object::new());
    }
    match json::parse(text).ok()? {
        Value::Object(object) => Some(object),
        _ => None,
    }
}

/// One of git's three files, read whole up to the registry cap: never through a link, never
/// anything but a regular file.
fn read_side(path: &Path, given: &Path, side: &str, rel: &str, remedy: &str) -> Result<Vec<u8>> {
    let shown = given.display().to_string();
    let metadata = fs::symlink_metadata(path).map_err(|e| Error::io("cannot read", path, e))?;
    if !metadata.file_type().is_file() {
        return Err(Error::refused(messages::merge_not_regular(&shown)));
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(nofollow())
        .open(path)
        .map_err(|e| Error::io("cannot read", path, e))?;
    let mut bytes = Vec::new();
    file.take(REGISTRY_CAP + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("cannot read", path, e))?;
    if bytes.len() as u64 > REGISTRY_CAP {
        return Err(Error::refused(messages::merge_too_large(
            rel,
            side,
            REGISTRY_CAP,
            remedy,
        )));
    }
    Ok(bytes)
}

/// `O_NOFOLLOW`, for `open`.
fn nofollow() -> i32 {
    i32::try_from(rustix::fs::OFlags::NOFOLLOW.bits()).unwrap_or(0)
}

/// Replaces the file at `path` with `bytes`: a new file in the same folder, synced, renamed over
/// it (a link there is replaced, never followed), the folder synced.
fn replace(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "merge".into(), |n| n.to_string_lossy().into_owned());
    let temp = dir.join(format!(".{name}.{}.tmp", uuid::Uuid::new_v4()));
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(nofollow())
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(Error::io("cannot write", path, e));
    }
    if let Ok(dir) = File::open(&dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// The report of records in conflict.
fn record_report(rel: &str, conflicts: &[ndjson::Conflict]) -> String {
    let version = |lines: &[Vec<u8>]| {
        if lines.is_empty() {
            messages::MERGE_REMOVED.to_owned()
        } else {
            lines
                .iter()
                .map(|l| String::from_utf8_lossy(l).into_owned())
                .collect::<Vec<_>>()
                .join(" and ")
        }
    };
    let mut out = messages::merge_record_conflicts(rel, conflicts.len());
    for c in conflicts {
        out.push('\n');
        out.push_str(&messages::merge_record_conflict(
            &c.id,
            &version(&c.ours),
            &version(&c.theirs),
        ));
    }
    out
}

/// The report of patterns in conflict, then why the reinforcement records could not combine
/// them.
fn pattern_report(rel: &str, merged: &scores::Merged) -> String {
    let state = |s: &Option<String>| {
        s.clone()
            .unwrap_or_else(|| messages::MERGE_DELETED.to_owned())
    };
    let mut out = messages::merge_pattern_conflicts(rel, merged.conflicts.len());
    for c in &merged.conflicts {
        out.push('\n');
        out.push_str(&messages::merge_pattern_conflict(
            &c.pattern,
            &state(&c.ours),
            &state(&c.theirs),
        ));
    }
    for reason in &merged.reasons {
        out.push('\n');
        out.push_str(reason);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_known_by_their_end_under_a_memory_folder() {
        assert_eq!(kind_of(".bmad/memory/journal.ndjson").unwrap().0, JOURNAL);
        assert_eq!(kind_of("./.bmad/memory/journal.ndjson").unwrap().0, JOURNAL);
        assert_eq!(
            kind_of("apps/web/.bmad/memory/pattern-scores.json")
                .unwrap()
                .1,
            Kind::Scores
        );
        for unknown in [
            "journal.ndjson",
            "x.bmad/memory/journal.ndjson",
            ".bmad/memory/INDEX.md",
            ".bmad/memory/journal.ndjson.bak",
            ".bmad/memory/archive/journal.ndjson",
        ] {
            assert!(kind_of(unknown).is_none(), "{unknown}");
        }
    }
}
