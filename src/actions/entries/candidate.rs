//! What the entry commands share: the entry types, the topic (the title's slug), the candidate
//! file format (front matter and three parts, read back exactly as written), and the readers of
//! the pending candidates, the refused topics and the existing entries (docs/ENTRIES.md).

use std::collections::BTreeSet;
use std::ffi::OsString;

use unicode_normalization::UnicodeNormalization;

use crate::actions::secrets;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{self, Value, sha256_hex};
use crate::js::text::{collapse_whitespace, trim, utf16_len};
use crate::messages;
use crate::store::confined::{self, Dir};
use crate::store::layout::PACK_DIR;
pub(crate) use crate::store::layout::{CANDIDATES_DIR, REFUSED_FILE};
use crate::store::paths::read_registry;
use crate::store::sections::sections;

/// Where admitted entries go.
pub(crate) const ENTRIES_DIR: &str = PACK_DIR;
/// The note folders whose entries count as existing (the ones recall reads in a project).
pub(crate) use crate::store::layout::NOTE_DIRS;
/// Longest content of a candidate, in UTF-16 units.
pub(crate) const BODY_MAX: usize = 2000;
/// Longest title, in UTF-16 units (the bound observe puts on a heading).
pub(crate) const TITLE_MAX: usize = 300;
/// Longest topic (slug), in characters.
pub(crate) const SLUG_MAX: usize = 60;

/// What an entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    Decision,
    Lesson,
    Pattern,
}

impl Kind {
    /// Every kind, in the order the note files are read.
    pub(crate) const ALL: [Kind; 3] = [Kind::Decision, Kind::Lesson, Kind::Pattern];

    /// `decision`, `lesson` or `pattern`.
    #[must_use]
    pub(crate) fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }

    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::Decision => "decision",
            Kind::Lesson => "lesson",
            Kind::Pattern => "pattern",
        }
    }

    /// The note file of this kind (`decisions.md`, …).
    #[must_use]
    pub(crate) fn note_file(self) -> &'static str {
        match self {
            Kind::Decision => "decisions.md",
            Kind::Lesson => "lessons.md",
            Kind::Pattern => "patterns.md",
        }
    }

    /// The note file entries of this kind are admitted into, project-relative.
    #[must_use]
    pub(crate) fn entries_file(self) -> String {
        format!("{ENTRIES_DIR}/{}", self.note_file())
    }

    /// The field the content goes under (`**Decision:**`, …).
    #[must_use]
    pub(crate) fn field(self) -> &'static str {
        match self {
            Kind::Decision => "Decision",
            Kind::Lesson => "Lesson",
            Kind::Pattern => "Pattern",
        }
    }

    /// The status an admitted entry starts with, when its kind has one.
    #[must_use]
    pub(crate) fn initial_status(self) -> Option<&'static str> {
        match self {
            Kind::Decision => Some("active"),
            Kind::Lesson => None,
            Kind::Pattern => Some("candidate"),
        }
    }

    /// The heading of a note file created for this kind.
    #[must_use]
    pub(crate) fn file_title(self) -> &'static str {
        match self {
            Kind::Decision => "# Decisions\n",
            Kind::Lesson => "# Lessons\n",
            Kind::Pattern => "# Patterns\n",
        }
    }
}

/// A topic: `text` folded to lowercase ASCII letters and digits (accents dropped), each run of
/// anything else one `-`, at most [`SLUG_MAX`] characters, no `-` at either end. Empty when the
/// text has no letter or digit that folds to ASCII.
#[must_use]
pub(crate) fn slug(text: &str) -> String {
    let mut out = fold(text);
    out.truncate(SLUG_MAX);
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// What two titles are compared by when the entry commands look for a duplicate: the title
/// without a leading date, folded as a topic is, without its `-`: `Use e-mails!`,
/// `use emails` and `2026-10-18 — Use E-Mails` are one title. Never cut.
#[must_use]
pub(crate) fn title_key(title: &str) -> String {
    let mut key = fold(crate::store::entry::undated(title));
    key.retain(|c| c != '-');
    key
}

/// [`slug`] without its length limit.
fn fold(text: &str) -> String {
    let mut out = String::new();
    let mut pending_dash = false;
    for c in text.nfkd() {
        if c.is_ascii_alphanumeric() {
            if pending_dash && !out.is_empty() {
                out.push('-');
            }
            pending_dash = false;
            out.push(c.to_ascii_lowercase());
        } else if !is_combining_mark(c) {
            pending_dash = true;
        }
    }
    out
}

/// The combining marks a compatibility decomposition leaves after a base letter (`é` → `e` +
/// U+0301): dropped, so that `Décision` folds to `decision`.
fn is_combining_mark(c: char) -> bool {
    matches!(c, '\u{300}'..='\u{36f}' | '\u{1ab0}'..='\u{1aff}' | '\u{1dc0}'..='\u{1dff}' | '\u{20d0}'..='\u{20ff}' | '\u{fe20}'..='\u{fe2f}')
}

/// Whether `id` can name a candidate file: lowercase ASCII letters, digits and `-`.
#[must_use]
pub(crate) fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('-')
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A candidate entry, as its file holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub id: String,
    pub kind: Kind,
    /// One line, whitespace runs made one space.
    pub title: String,
    /// Who proposed it.
    pub source: String,
    /// When it was proposed, `toISOString` form.
    pub created: String,
    /// When it applies (`--applies-when`), one line; may be empty.
    pub context: String,
    /// The content, trimmed.
    pub content: String,
    /// Evidence ids or paths.
    pub evidence: Vec<String>,
}

impl Candidate {
    /// The candidate's topic.
    #[must_use]
    pub(crate) fn topic(&self) -> String {
        slug(&self.title)
    }

    /// The file's text. Title and source are JSON strings (which YAML reads as such), so any
    /// text reads back exactly.
    #[must_use]
    pub(crate) fn render(&self) -> String {
        format!(
            "---\nid: {}\ntype: {}\ntitle: {}\nstatus: candidate\nsource: {}\ncreated: {}\n---\n\n\
             ## Context\n\n{}\n\n## Content\n\n{}\n\n## Evidence\n\n{}\n",
            self.id,
            self.kind.as_str(),
            Value::from(self.title.as_str()).compact(),
            Value::from(self.source.as_str()).compact(),
            self.created,
            self.context,
            self.content,
            self.evidence.join(", "),
        )
    }

    /// Reads a candidate file back.
    ///
    /// # Errors
    /// A file not in the shape [`Candidate::render`] writes (e.g. edited by hand into another
    /// shape): the message names the candidate.
    pub(crate) fn parse(id: &str, text: &str) -> Result<Self> {
        Self::parse_parts(text)
            .ok_or_else(|| Error::refused(messages::not_candidate_format(id, CANDIDATES_DIR)))
    }

    fn parse_parts(text: &str) -> Option<Self> {
        let rest = text.strip_prefix("---\n")?;
        let (front, rest) = rest.split_once("\n---\n\n## Context\n\n")?;
        let mut fields = std::collections::BTreeMap::new();
        for line in front.split('\n') {
            let (key, value) = line.split_once(": ")?;
            fields.insert(key, value);
        }
        let string = |key: &str| -> Option<String> {
            match json::parse(fields.get(key)?).ok()? {
                Value::String(s) => Some(s),
                _ => None,
            }
        };
        if fields.get("status") != Some(&"candidate") {
            return None;
        }
        let (context, rest) = rest.split_once("\n\n## Content\n\n")?;
        let (body, listed) = rest.rsplit_once("\n\n## Evidence\n\n")?;
        let listed = listed.strip_suffix('\n')?;
        if context.contains('\n') || listed.contains('\n') {
            return None;
        }
        Some(Self {
            id: (*fields.get("id")?).to_owned(),
            kind: Kind::parse(fields.get("type")?)?,
            title: string("title")?,
            source: string("source")?,
            created: (*fields.get("created")?).to_owned(),
            context: context.to_owned(),
            content: body.to_owned(),
            evidence: split_list(listed),
        })
    }

    /// Checks everything a candidate must satisfy to be written or admitted: a one-line title
    /// with a topic, bounded content, no secret anywhere (unless the project turned the check
    /// off), no evidence naming a secret file.
    ///
    /// # Errors
    /// The first rule broken, named; a secret is named by its rule and line, never echoed.
    pub(crate) fn check(&self, ctx: &Context) -> Result<()> {
        check_title(&self.title)?;
        if trim(&self.content).is_empty() {
            return Err(Error::refused(messages::CONTENT_EMPTY));
        }
        let length = utf16_len(&self.content);
        if length > BODY_MAX {
            return Err(Error::refused(messages::content_too_long(length, BODY_MAX)));
        }
        if let Some(line) = self
            .content
            .split('\n')
            .position(|l| !crate::store::sections::heading_lines(l).is_empty())
        {
            return Err(Error::refused(messages::content_heading(line + 1)));
        }
        // The content follows its field name on the entry's first line; a fence it opens and
        // never closes would put every later heading of the note file inside code.
        let probe = format!("**Content:** {}\n### probe\n", self.content);
        let headings = crate::store::sections::heading_lines(&probe);
        if !crate::store::sections::headings_in_code(&probe, &headings).is_empty() {
            return Err(Error::refused(messages::CONTENT_OPEN_FENCE));
        }
        for item in &self.evidence {
            if let Some(what) = secrets::secret_file(item) {
                return Err(Error::refused(messages::evidence_names_secret(item, what)));
            }
        }
        secrets::refuse(
            ctx,
            &[
                ("the title", self.title.as_str()),
                ("the context", self.context.as_str()),
                ("the content", self.content.as_str()),
                ("the evidence", &self.evidence.join(", ")),
                ("the source", self.source.as_str()),
            ],
        )
    }
}

/// A title as an entry heading takes it: whitespace runs (line breaks included) one space.
#[must_use]
pub(crate) fn normalize_title(title: &str) -> String {
    collapse_whitespace(title)
}

/// A title must be non-empty, bounded, and have a topic.
fn check_title(title: &str) -> Result<()> {
    if title.is_empty() {
        return Err(Error::refused(messages::TITLE_EMPTY));
    }
    if utf16_len(title) > TITLE_MAX {
        return Err(Error::refused(messages::title_too_long(TITLE_MAX)));
    }
    if title != collapse_whitespace(title) {
        return Err(Error::refused(messages::TITLE_MULTILINE));
    }
    if slug(title).is_empty() {
        return Err(Error::refused(messages::TITLE_NO_TOPIC));
    }
    Ok(())
}

/// A comma-separated list, items trimmed, empty ones dropped.
#[must_use]
pub(crate) fn split_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(|s| trim(s).to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// A candidate file's name.
#[must_use]
pub(crate) fn file_name(id: &str) -> OsString {
    OsString::from(format!("{id}.md"))
}

/// The marker an admitted entry carries on its `Admitted-by` line: the candidate and the
/// sha256 of its file.
#[must_use]
pub(crate) fn marker(id: &str, sha256: &str) -> String {
    format!("(candidate {id}, sha256 {sha256})")
}

/// A candidate's project-relative path.
#[must_use]
pub(crate) fn candidate_path(id: &str) -> String {
    format!("{CANDIDATES_DIR}/{id}.md")
}

/// Whether a candidate file's text is still pending (not yet replaced by its record).
#[must_use]
pub(crate) fn is_pending(text: &str) -> bool {
    text.starts_with("---\n")
}

/// The candidates folder: opened (and made, when `create`) from the root without following
/// links; `None` when absent and not created.
///
/// # Errors
/// Confinement errors, or an I/O error naming the folder.
pub(crate) fn candidates_dir(ctx: &Context, create: bool) -> Result<Option<Dir>> {
    Ok(confined::open_dir(&ctx.root, CANDIDATES_DIR, create)?.map(|(dir, _)| dir))
}

/// A pending candidate and the sha256 of its file.
pub(crate) type Listed = (Candidate, String);

/// One file of the candidates folder, read.
#[derive(Debug, Clone)]
pub(crate) struct Stored {
    pub id: String,
    pub bytes: Vec<u8>,
    pub sha256: String,
}

impl Stored {
    /// The text, when it is UTF-8.
    #[must_use]
    pub(crate) fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes).ok()
    }
}

/// Reads the candidate `id` from `dir`: `None` when there is no such file.
///
/// # Errors
/// As the confined reader.
pub(crate) fn read_stored(dir: &Dir, id: &str) -> Result<Option<Stored>> {
    Ok(dir.read(&file_name(id))?.map(|(bytes, _)| Stored {
        id: id.to_owned(),
        sha256: sha256_hex(&bytes),
        bytes,
    }))
}

/// Every file of the candidates folder, by id.
///
/// # Errors
/// As the confined reader.
pub(crate) fn read_all(dir: &Dir) -> Result<Vec<Stored>> {
    let mut ids: Vec<String> = dir
        .names()
        .map_err(|e| Error::io("cannot list", dir.path(), e))?
        .into_iter()
        .filter_map(|n| n.into_string().ok())
        .filter_map(|n| n.strip_suffix(".md").map(str::to_owned))
        .filter(|id| is_valid_id(id))
        .collect();
    ids.sort();
    let mut out = Vec::new();
    for id in ids {
        if let Some(stored) = read_stored(dir, &id)? {
            out.push(stored);
        }
    }
    Ok(out)
}

/// The pending candidates, read and parsed, by id; a pending file that does not parse is
/// returned apart (by id), to be named rather than silently dropped.
///
/// # Errors
/// As the confined reader.
pub(crate) fn pending(ctx: &Context) -> Result<(Vec<Listed>, Vec<String>)> {
    let Some(dir) = candidates_dir(ctx, false)? else {
        return Ok((Vec::new(), Vec::new()));
    };
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for stored in read_all(&dir)? {
        match stored.text() {
            Some(text) if is_pending(text) => match Candidate::parse(&stored.id, text) {
                Ok(candidate) => good.push((candidate, stored.sha256)),
                Err(_) => bad.push(stored.id),
            },
            Some(_) => {}
            None => bad.push(stored.id),
        }
    }
    Ok((good, bad))
}

/// Reads a note or refusal file with the confined reader: `None` when absent.
///
/// # Errors
/// As the confined reader (a link, a folder, over 2 MiB, not UTF-8).
pub(crate) fn read_note(ctx: &Context, rel: &str) -> Result<Option<String>> {
    read_registry(&ctx.root, rel, true)
}

/// The refused topics: the slug of every `###` heading of `refused.md`.
///
/// # Errors
/// As [`read_note`].
pub(crate) fn refused_topics(ctx: &Context) -> Result<BTreeSet<String>> {
    Ok(read_note(ctx, REFUSED_FILE)?
        .map(|text| sections(&text).iter().map(|s| slug(s.heading)).collect())
        .unwrap_or_default())
}

/// A count as a JSON number.
#[must_use]
pub(crate) fn count(n: usize) -> Value {
    Value::from(u32::try_from(n).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn case(title: &str, want: &str) {
        assert_eq!(slug(title), want, "{title:?}");
    }

    #[test]
    fn topics_fold_to_ascii() {
        case("Use Postgres for the ledger", "use-postgres-for-the-ledger");
        case(
            "  Décision: café — à 2 niveaux!  ",
            "decision-cafe-a-2-niveaux",
        );
        case("Ｆｕｌｌ width", "full-width");
        case("日本語", "");
        case("---", "");
        case(&"word ".repeat(30), &"word-".repeat(12)[..59]);
        assert!(slug(&"ab ".repeat(40)).len() <= SLUG_MAX);
        assert!(!slug(&"ab ".repeat(40)).ends_with('-'));
    }

    #[test]
    fn a_candidate_reads_back_exactly() {
        let candidate = Candidate {
            id: "p-lesson-20261018-x".into(),
            kind: Kind::Lesson,
            title: "A \"quoted\" title: with colon".into(),
            source: "agent\\x".into(),
            created: "2026-10-18T09:30:00.000Z".into(),
            context: String::new(),
            content: "line one\n\n## Evidence\n\nnot the end\n## Content\nx".into(),
            evidence: vec!["abc".into(), "src/a.rs".into()],
        };
        let text = candidate.render();
        assert_eq!(Candidate::parse("x", &text).unwrap(), candidate);
        assert!(Candidate::parse("x", &text.replace("status: candidate", "status: x")).is_err());
        assert!(Candidate::parse("x", "hello").is_err());
    }

    #[test]
    fn ids() {
        assert!(is_valid_id("orbit-lesson-20261018-a-b-2"));
        for bad in ["", "-a", "A", "a/b", "../x", "a.md", "a b"] {
            assert!(!is_valid_id(bad), "{bad}");
        }
    }
}
