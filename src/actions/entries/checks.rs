//! What a candidate is checked against before it is written (`propose`, `import`) or admitted
//! (`admit`): the refused topics, and the existing entries of its type in both note folders.
//!
//! * **The same title.** Titles are compared by [`title_key`]: without a leading date, accents,
//!   case, punctuation and hyphens (`Use e-mails` is `2026-10-18 — use emails`). A refused
//!   topic is matched by its heading (a topic `admit --refuse` wrote, or a title written there
//!   by hand; its topic too, as before) and by the `**Title:**` line `admit --refuse` writes
//!   under it. A match is a refusal: the caller says which.
//! * **A near match** is a warning, never a refusal: an existing entry that the new one nearly
//!   duplicates (lint's near-duplicate measure on the entries' bodies: the new one as `admit`
//!   writes it into that file, without the heading, whose title is measured apart, and without
//!   the `Admitted-by` bookkeeping line, on either side), else one whose title says the same
//!   thing (lint's title measure); a refused topic whose title says the same thing.
//!
//! The note files of the candidate's type are read strictly, as `propose` reads `refused.md`:
//! a symbolic link (the file or a folder above it), a FIFO, a device, a folder, or a file over
//! the 64 MiB read limit is a refusal that names the file — never an absent file, through which
//! an entry would be proposed again. Each file is read once per [`Checks`], so that `import`
//! checks thousands of items at the cost of one.

use std::collections::{BTreeMap, HashMap};

use crate::actions::alike::{self, Nearest, title_words, titles_overlap};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::messages;
use crate::store::confined;
use crate::store::entry::field;
use crate::store::layout::LOOSE_CAP;
use crate::store::paths::{Loose, Skip, decode_lossy, read_loose};
use crate::store::sections::sections;

use crate::actions::entries::candidate::{
    Candidate, ENTRIES_DIR, Kind, NOTE_DIRS, REFUSED_FILE, read_note, slug, title_key,
};
use crate::actions::entries::style::{self, Style};

/// The checks' view of the refused topics and of the entries read so far.
#[derive(Debug, Default)]
pub(crate) struct Checks {
    refused: Vec<Refused>,
    /// The entries of each type, read when a candidate of that type is first checked.
    kinds: BTreeMap<Kind, Entries>,
}

/// One refused topic.
#[derive(Debug)]
struct Refused {
    /// The heading, as `refused.md` has it.
    topic: String,
    /// Its topic (the heading's slug).
    slug: String,
    /// The keys of the heading and of the title recorded under it.
    keys: Vec<String>,
    /// The words of the title recorded under it, else of the heading.
    words: Vec<String>,
}

/// The existing entries of one type, in both note folders.
#[derive(Debug, Default)]
struct Entries {
    list: Vec<Entry>,
    /// The first entry of each title key.
    keys: HashMap<String, usize>,
    nearest: Nearest,
    /// The style of the file entries of this type are admitted into.
    style: Option<Style>,
}

#[derive(Debug)]
struct Entry {
    file: String,
    heading: String,
    words: Vec<String>,
}

/// Why a candidate cannot be written or admitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Conflict {
    /// Its title is a refused topic's (the topic as `refused.md` has it).
    Refused { topic: String },
    /// Its title is an existing entry's.
    Entry { heading: String, file: String },
}

impl Conflict {
    /// The refusal `propose` and `import` give.
    #[must_use]
    pub(crate) fn message(&self, candidate: &Candidate) -> String {
        match self {
            Conflict::Refused { topic } => messages::topic_refused(topic, REFUSED_FILE),
            Conflict::Entry { heading, file } => messages::topic_already_entry(
                &candidate.topic(),
                candidate.kind.as_str(),
                heading,
                file,
            ),
        }
    }
}

impl Checks {
    /// Reads the refused topics.
    ///
    /// # Errors
    /// As the confined reader of `refused.md` (a link, a FIFO, over 2 MiB, not UTF-8).
    pub(crate) fn read(ctx: &Context) -> Result<Self> {
        let text = read_note(ctx, REFUSED_FILE)?.unwrap_or_default();
        let refused = sections(&text)
            .iter()
            .map(|section| {
                let title = crate::store::entry::field_of(section, &["title"]);
                let mut keys = vec![title_key(section.heading)];
                keys.extend(title.map(title_key));
                Refused {
                    topic: section.heading.to_owned(),
                    slug: slug(section.heading),
                    keys,
                    words: title_words(title.unwrap_or(section.heading)),
                }
            })
            .collect();
        Ok(Self {
            refused,
            kinds: BTreeMap::new(),
        })
    }

    /// Checks `candidate`, whose entry `admit` would write with the marker `mark` by `by` on
    /// `day`: `Err` with the conflict when its title is refused or taken, else the warnings of
    /// its near matches.
    ///
    /// # Errors
    /// A note file of its type that cannot be read as a regular file (see the module
    /// documentation).
    pub(crate) fn check(
        &mut self,
        ctx: &Context,
        candidate: &Candidate,
        (mark, by, day): (&str, &str, &str),
    ) -> Result<std::result::Result<Vec<String>, Conflict>> {
        let key = title_key(&candidate.title);
        let topic = candidate.topic();
        if let Some(refused) = self
            .refused
            .iter()
            .find(|r| r.slug == topic || (!key.is_empty() && r.keys.contains(&key)))
        {
            return Ok(Err(Conflict::Refused {
                topic: refused.topic.clone(),
            }));
        }
        let entries = self.entries(ctx, candidate.kind)?;
        if let Some(&at) = entries.keys.get(&key) {
            let entry = &entries.list[at];
            return Ok(Err(Conflict::Entry {
                heading: entry.heading.clone(),
                file: entry.file.clone(),
            }));
        }
        let mut warnings = Vec::new();
        let style = entries.style.unwrap_or(Style::Template);
        let text = style::section_text(candidate, mark, by, day, style);
        let body = text.split_once('\n').map_or("", |(_, body)| body);
        let set = alike::shingle_set(&[&substance(body)]);
        let words = title_words(&candidate.title);
        if let Some((at, similarity)) = entries.nearest.nearest(&set) {
            let entry = &entries.list[at];
            warnings.push(messages::near_duplicate_entry(
                &entry.file,
                &entry.heading,
                similarity,
            ));
        } else if let Some(entry) = entries
            .list
            .iter()
            .find(|e| titles_overlap(shared(&words, &e.words), words.len(), e.words.len()))
        {
            warnings.push(messages::near_title_entry(&entry.file, &entry.heading));
        }
        if let Some(refused) = self
            .refused
            .iter()
            .find(|r| titles_overlap(shared(&words, &r.words), words.len(), r.words.len()))
        {
            warnings.push(messages::near_refused_topic(&refused.topic, REFUSED_FILE));
        }
        Ok(Ok(warnings))
    }

    fn entries(&mut self, ctx: &Context, kind: Kind) -> Result<&mut Entries> {
        let entries = match self.kinds.entry(kind) {
            std::collections::btree_map::Entry::Occupied(known) => known.into_mut(),
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(read_entries(ctx, kind)?)
            }
        };
        Ok(entries)
    }
}

/// The entries of `kind` in both note folders, read strictly.
fn read_entries(ctx: &Context, kind: Kind) -> Result<Entries> {
    let mut entries = Entries::default();
    for dir in NOTE_DIRS {
        let file = format!("{dir}/{}", kind.note_file());
        let Some(text) = read_strict(ctx, &file)? else {
            continue;
        };
        if dir == ENTRIES_DIR {
            entries.style = Some(style::style_of(&text));
        }
        for section in sections(&text) {
            entries.nearest.add(&[&substance(section.parts()[2])]);
            let key = title_key(section.heading);
            if !key.is_empty() {
                entries.keys.entry(key).or_insert(entries.list.len());
            }
            entries.list.push(Entry {
                file: file.clone(),
                heading: section.heading.to_owned(),
                words: title_words(section.heading),
            });
        }
    }
    Ok(entries)
}

/// What an entry's body says: every line but the `Admitted-by` bookkeeping, which names a
/// candidate and its digest.
fn substance(body: &str) -> String {
    body.lines()
        .filter(|line| field(line, "admitted-by").is_none())
        .collect::<Vec<_>>()
        .join("\n")
}

/// How many words two word lists share.
fn shared(a: &[String], b: &[String]) -> usize {
    a.iter().filter(|w| b.contains(w)).count()
}

/// A note file read strictly (see the module documentation), invalid UTF-8 replaced as recall
/// reads it: `None` when absent.
///
/// # Errors
/// Anything but a regular file of at most 64 MiB reached without a link, named.
pub(crate) fn read_strict(ctx: &Context, rel: &str) -> Result<Option<String>> {
    let named = |e: Error| Error::refused(messages::note_file_unreadable(rel, &reason(&e)));
    let target = confined::locate(&ctx.root, rel, false).map_err(named)?;
    let Some(dir) = target.dir() else {
        return Ok(None);
    };
    Ok(dir
        .read_bounded(target.name(), LOOSE_CAP)
        .map_err(named)?
        .map(decode_lossy))
}

/// What is wrong with a note file, in a few words, from the strict reader's error.
fn reason(e: &Error) -> String {
    match e {
        Error::PathSymlink => "is a symbolic link, or lies behind one".to_owned(),
        Error::SourceNotRegular => NOT_REGULAR.to_owned(),
        Error::IsDirectory => "is a folder".to_owned(),
        Error::SourceTooLarge(size) => format!("is {size} bytes, over the 64 MiB read limit"),
        other => format!("cannot be read: {other}"),
    }
}

const NOT_REGULAR: &str = "is not a regular file (a FIFO, a device or a socket)";

/// A note file as recall reads it (links inside the project followed, up to 64 MiB, invalid
/// UTF-8 replaced), for the index of the entries: `None` when absent. A file recall would skip
/// (a FIFO, a device, a link leaving the project, over 64 MiB) is an error here, never an
/// absent file: the index is never rebuilt without its entries.
///
/// # Errors
/// A file recall would skip, or a folder in its place, named; an I/O error naming the file.
pub(crate) fn read_for_index(ctx: &Context, rel: &str) -> Result<Option<String>> {
    let unreadable = |reason: String| Error::refused(messages::note_file_unreadable(rel, &reason));
    let skipped = |skip: Skip| match skip {
        Skip::NotRegular => NOT_REGULAR.to_owned(),
        Skip::TooLarge(size) => format!("is {size} bytes, over the 64 MiB read limit"),
        Skip::Grew => "grew past the 64 MiB read limit while being read".to_owned(),
        Skip::Outside { target, .. } => format!(
            "is a symbolic link to {}, outside the project",
            target.display()
        ),
        Skip::LinkNotRegular(target) => format!(
            "is a symbolic link to {}, not a regular file",
            target.display()
        ),
        Skip::Unresolvable(why) => format!("is a symbolic link that cannot be resolved ({why})"),
    };
    match read_loose(&ctx.root.join(rel), &ctx.root) {
        Ok(Loose::Read(text)) => Ok(Some(text)),
        Ok(Loose::Missing) => Ok(None),
        Ok(Loose::Skipped(skip)) => Err(unreadable(skipped(skip))),
        Err(Error::IsDirectory) => Err(unreadable("is a folder".to_owned())),
        Err(e) => Err(e),
    }
}
