//! The decision files as the lifecycle commands read and rewrite them: every `###` section of
//! `decisions.md` in `.bmad/memory/` and `.agents/memory/`, a decision found by the name a
//! person gives ([`names`](crate::actions::decisions::names)), and the one rewrite bmad-mem makes
//! of a note file — atomically, and only while it still holds the bytes first read.

use std::path::Path;

use crate::actions::decisions::names::Names;
use crate::error::{Error, Result};
use crate::messages;
use crate::store::layout::DECISION_FILES;
use crate::store::paths::read_registry;
use crate::store::sections::{Section, sections};
use crate::store::{confined, temporaries};

/// The decision files as read: `(project-relative path, text)` for each that exists.
#[derive(Debug, Default)]
pub struct Files {
    pub files: Vec<(&'static str, String)>,
}

/// A decision found by its name.
#[derive(Debug, Clone, Copy)]
pub struct Found<'a> {
    pub file: &'static str,
    pub text: &'a str,
    pub section: Section<'a>,
}

impl Found<'_> {
    /// The line (from 1) of the decision's heading in its file.
    #[must_use]
    pub fn line(&self) -> usize {
        let before = &self.text[..self.section.body_start().min(self.text.len())];
        let newlines = memchr::memchr_iter(b'\n', before.as_bytes()).count();
        if before.ends_with('\n') {
            newlines
        } else {
            newlines + 1
        }
    }

    /// `file:line`, as the messages name a decision's place.
    #[must_use]
    pub fn place(&self) -> String {
        format!("{}:{}", self.file, self.line())
    }

    /// `"heading" (file:line)`.
    #[must_use]
    pub fn place_named(&self) -> String {
        format!("\"{}\" ({})", self.section.heading, self.place())
    }

    /// Whether `self` and `other` are the same decision.
    #[must_use]
    pub fn is(&self, other: &Found<'_>) -> bool {
        self.file == other.file && self.section.body_start() == other.section.body_start()
    }
}

impl Files {
    /// Reads every decision file with the confined reader (strict UTF-8, 2 MiB cap).
    ///
    /// # Errors
    /// The confined reader's refusals.
    pub fn read(root: &Path) -> Result<Self> {
        let mut files = Vec::new();
        for rel in DECISION_FILES {
            if let Some(text) = read_registry(root, rel, true)? {
                files.push((rel, text));
            }
        }
        Ok(Self { files })
    }

    /// Every section of every decision file.
    #[must_use]
    pub fn all(&self) -> Vec<Found<'_>> {
        self.files
            .iter()
            .flat_map(|(file, text)| {
                sections(text).into_iter().map(move |section| Found {
                    file,
                    text,
                    section,
                })
            })
            .collect()
    }

    /// The one decision `name` finds (see [`names`](crate::actions::decisions::names)), or the
    /// refusal saying why there is not exactly one: none (with the headings close to it), the
    /// same heading on several decisions, or a loose name that fits several headings — each
    /// named with its file and line.
    ///
    /// # Errors
    /// No decision, or several, found by that name.
    pub fn find(&self, name: &str) -> Result<Found<'_>> {
        let all = self.all();
        let names = Names::new(all.iter().map(|f| f.section.heading));
        let found = names.find(name);
        match found {
            [one] => Ok(all[*one]),
            [] => {
                let near: Vec<&str> = names
                    .near(name)
                    .into_iter()
                    .map(|i| all[i].section.heading)
                    .collect();
                Err(Error::refused(messages::no_decision(
                    name,
                    &DECISION_FILES,
                    &near,
                )))
            }
            several => {
                let places: Vec<String> = several.iter().map(|&i| all[i].place()).collect();
                let heading = all[several[0]].section.heading;
                if several.iter().all(|&i| all[i].section.heading == heading) {
                    Err(Error::refused(messages::several_decisions(
                        heading, &places,
                    )))
                } else {
                    let headings: Vec<&str> =
                        several.iter().map(|&i| all[i].section.heading).collect();
                    Err(Error::refused(messages::ambiguous_decision(
                        name, &headings, &places,
                    )))
                }
            }
        }
    }
}

/// Refuses when a decision file no longer holds the bytes first read.
///
/// # Errors
/// A decision file that changed, and the confined reader's refusals.
pub fn ensure_unchanged(root: &Path, files: &Files, doing: &str) -> Result<()> {
    let now = Files::read(root)?;
    for rel in DECISION_FILES {
        let before = files.files.iter().find(|(f, _)| *f == rel).map(|(_, t)| t);
        let after = now.files.iter().find(|(f, _)| *f == rel).map(|(_, t)| t);
        if before != after {
            return Err(changed(rel, doing));
        }
    }
    Ok(())
}

fn changed(rel: &str, doing: &str) -> Error {
    Error::refused(messages::decisions_changed(rel, doing))
}

/// Replaces the note file `rel` with `text`, atomically, only while it still holds `read`.
///
/// # Errors
/// The file changed since `read`, and I/O errors; the file is as it was then.
pub fn replace_if_unchanged(
    root: &Path,
    rel: &str,
    read: &str,
    text: &str,
    doing: &str,
) -> Result<()> {
    let target = confined::locate(root, rel, false)?;
    let dir = target.require_dir("cannot open")?;
    // The folder may be `.agents/memory`, which the session commands sweep of dead writers'
    // temporary files: a shared hold says this one is alive.
    let _held = temporaries::hold_for_temporaries(dir);
    let tmp = dir.write_temp(target.name(), text.as_bytes())?;
    let still = dir.read(target.name());
    if !matches!(&still, Ok(Some((bytes, _))) if bytes == read.as_bytes()) {
        let _ = dir.remove(&tmp);
        return Err(match still {
            Err(e) => e,
            Ok(_) => changed(rel, doing),
        });
    }
    dir.rename(&tmp, target.name()).map_err(|e| {
        let _ = dir.remove(&tmp);
        Error::io("cannot write", target.path(), e)
    })?;
    // The rename is done: a failed folder sync no longer makes the flip undone.
    let _ = dir.sync();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heading_line_is_counted_from_one() {
        let files = Files {
            files: vec![
                ("a.md", "# D\n\n### A\nx\n### B".to_owned()),
                ("b.md", "### C\r\ny\n".to_owned()),
            ],
        };
        let places: Vec<String> = files.all().iter().map(Found::place).collect();
        assert_eq!(places, ["a.md:3", "a.md:5", "b.md:1"]);
    }
}
