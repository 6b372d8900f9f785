//! The three-way merge of the note files — `decisions.md`, `lessons.md`, `patterns.md` in
//! either note folder, and `refused.md` — section by section, and of a candidate file. Pure
//! functions over bytes; the command does the I/O.
//!
//! * **Refusals.** A side that already holds conflict markers (a `<<<<<<< ` line and a
//!   `>>>>>>> ` line: an earlier merge committed unresolved) or that is not UTF-8 is refused:
//!   nothing is merged, ours stays as it is. When two of the three inputs are the same bytes,
//!   the third is the result as it is (the usual three-way rule, before anything is read).
//! * **Line ends.** A file whose every `\n` follows a `\r` is a CRLF file: it is merged with
//!   LF line ends and the result written with CRLF again when the line ends are CRLF on both
//!   sides, or on the side that changed them since the base. When the sides disagree and the base
//!   cannot tell (no base, or one without line ends), the result has LF. So converting a file on
//!   one side never makes every section a conflict.
//! * **Pieces.** A file is the text before its first `###` line (the *preamble*), then its
//!   sections, each from its `###` line (as [`heading_lines`] finds them, the cutter every
//!   reader uses) to the next one. A section is known by its heading and, for a heading used
//!   more than once, by which of those sections it is, the files' sequences of headings lined up
//!   first ([`align`]); a heading the base and a side each hold once is one section wherever it
//!   stands. Pieces are compared without the blank space that ends them, so a section that
//!   became the last of the file, or stopped being it, is not changed.
//! * **Three-way, by piece.** The same on both sides → that; changed (or added, or removed) on
//!   one side only → that side's; changed differently on both → a conflict, written where the
//!   section stands as `<<<<<<< ours` / ours' section / `=======` / theirs' section /
//!   `>>>>>>> theirs` (an empty side: that side removed it). The preamble changed on both sides
//!   is merged line by line as git merges text, a conflict where the changes overlap.
//! * **Renames.** A section a side removed while adding one with another heading and the same
//!   body is a rename: renamed on one side and changed on the other, or renamed differently on
//!   both, is a conflict holding both versions under their headings, never a silent loss.
//! * **Order.** The base's sections keep the base's order, unless one side moved sections and
//!   the other did not (or both moved them alike): then that side's order. A new section goes
//!   before the section of the base that comes after it on its side (at the end when none does:
//!   an append stays an append). Where both sides added sections at one place, they are
//!   interleaved by date (an entry's date: its heading's, else its `Date` field's), heading, and
//!   occurrence — each side's own order kept where that order allows — so both merge directions
//!   give the same bytes.
//! * **Blank space** between pieces is each piece's own, merged three-way (a change on one
//!   side wins; two different changes: the greater by its bytes); a piece that ends up before another
//!   without any takes a blank line; the file ends as the sides end it, merged the same way.
//! * **Admissions.** Two sections added one on each side that carry the `Admitted-by` line of
//!   the same candidate (id and digest) and differ only in that line's name, the day in front of
//!   the heading and the `Date` field are the same candidate admitted in both clones: one is
//!   kept, by the rule of [`admissions`], and the choice is reported. A candidate file that
//!   holds an `admitted` record of the same candidate on each side keeps one the same way; any
//!   other change to a candidate file on both sides is merged line by line.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use similar::TextMerge;

use crate::actions::entries::candidate::is_valid_id;
use crate::admin::doctor::lines::conflict_openings;
use crate::admin::merge::admissions::{self, Admission, Claim, admission};
use crate::admin::merge::ndjson::{OURS_MARKER, SEPARATOR, THEIRS_MARKER};
use crate::store::entry::date_of;
use crate::store::layout::{CANDIDATE_FILES, MERGED_NOTES, REFUSED_FILE};
use crate::store::sections::{heading_lines, sections};

/// The note files the driver merges, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Note {
    /// A note file of entries; `by_day` when two admissions are compared by day first.
    Entries { by_day: bool },
    /// `refused.md`: sections, never admissions.
    Refused,
    /// The file of the candidate `id`.
    Candidate { id: String },
}

/// The note file at `path` (in the repository): its project-relative name and its kind. A path
/// is known by its end, as the registries are.
#[must_use]
pub(crate) fn kind_of(path: &str) -> Option<(String, Note)> {
    let mut path = path;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    let ends_with = |rel: &str| {
        path == rel
            || path
                .strip_suffix(rel)
                .is_some_and(|above| above.ends_with('/'))
    };
    if let Some(rel) = MERGED_NOTES
        .iter()
        .find(|rel| **rel != CANDIDATE_FILES && ends_with(rel))
    {
        let note = if *rel == REFUSED_FILE {
            Note::Refused
        } else {
            Note::Entries {
                by_day: admissions::compares_days(rel),
            }
        };
        return Some(((*rel).to_owned(), note));
    }
    let dir = CANDIDATE_FILES.strip_suffix("*.md")?;
    let (_, name) = path.rsplit_once('/')?;
    let id = name.strip_suffix(".md")?;
    let rel = format!("{dir}{name}");
    (is_valid_id(id) && ends_with(&rel)).then(|| (rel, Note::Candidate { id: id.to_owned() }))
}

/// Why a side cannot be merged; ours is left as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    NotText {
        side: &'static str,
    },
    /// The side holds conflict markers; the line of the first.
    Markers {
        side: &'static str,
        line: usize,
    },
}

/// A merge's result: the bytes (conflicts written in them), the parts in conflict, and the
/// admissions of one candidate on both sides that were made one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Merged {
    pub bytes: Vec<u8>,
    pub conflicts: Vec<Conflict>,
    pub admissions: Vec<Resolved>,
}

impl Merged {
    fn clean(bytes: impl Into<Vec<u8>>) -> Self {
        Self {
            bytes: bytes.into(),
            conflicts: Vec::new(),
            admissions: Vec::new(),
        }
    }
}

/// A part of a note file the two sides left in different states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Conflict {
    /// The section's heading; `None` for the preamble (or a candidate file's text).
    pub heading: Option<String>,
    pub what: What,
}

/// What the two sides did to a part in conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum What {
    ChangedBoth,
    AddedBoth,
    /// One side removed it (`ours` says which), the other changed it.
    Removed {
        ours: bool,
    },
    /// Renamed on one side or both (the new headings), changed on the other when only one.
    Renamed {
        ours: Option<String>,
        theirs: Option<String>,
    },
}

/// Two admissions of one candidate made one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub id: String,
    /// Who admitted, and on which day when the file shows it: the admission kept.
    pub kept: (String, Option<String>),
    pub dropped: (String, Option<String>),
    /// Whether the day was compared (not for patterns).
    pub by_day: bool,
}

/// Merges `ours` and `theirs`, two descendants of `base`, of the note file of kind `note`.
///
/// # Errors
/// A side holding conflict markers, or one (or the base) that is not UTF-8.
pub(crate) fn merge(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    note: &Note,
) -> Result<Merged, Refusal> {
    for (bytes, side) in [(ours, "ours"), (theirs, "theirs")] {
        if let Some(&line) = conflict_openings(bytes).first() {
            return Err(Refusal::Markers { side, line });
        }
    }
    if ours == theirs || base == theirs {
        return Ok(Merged::clean(ours));
    }
    if base == ours {
        return Ok(Merged::clean(theirs));
    }
    let text = |bytes, side| std::str::from_utf8(bytes).map_err(|_| Refusal::NotText { side });
    let (b, o, t) = (
        text(base, "the base")?,
        text(ours, "ours")?,
        text(theirs, "theirs")?,
    );
    let crlf = is_crlf_result(b, o, t);
    let (b, o, t) = (to_lf(b), to_lf(o), to_lf(t));
    let mut merged = match note {
        Note::Candidate { id } => candidate(&b, &o, &t, id),
        Note::Entries { by_day } => by_section(&b, &o, &t, Some(*by_day)),
        Note::Refused => by_section(&b, &o, &t, None),
    };
    if crlf {
        merged.bytes = to_crlf(&merged.bytes);
    }
    Ok(merged)
}

/// Whether `text` has CRLF line ends (every `\n` after a `\r`); `None` without line ends.
fn crlf_of(text: &str) -> Option<bool> {
    let lf = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    (lf > 0).then(|| memchr::memmem::find_iter(text.as_bytes(), b"\r\n").count() == lf)
}

/// Whether the result gets CRLF line ends: the sides' line ends merged three-way, a side
/// without line ends counting as unchanged; LF when that leaves nothing to go by.
fn is_crlf_result(base: &str, ours: &str, theirs: &str) -> bool {
    let b = crlf_of(base);
    let (o, t) = (crlf_of(ours).or(b), crlf_of(theirs).or(b));
    let crlf = if o == t || t == b {
        o
    } else if o == b {
        t
    } else {
        None
    };
    crlf == Some(true)
}

/// `text` with LF line ends when it is a CRLF file; any other text as it is.
fn to_lf(text: &str) -> Cow<'_, str> {
    if crlf_of(text) == Some(true) {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// `bytes` with each `\n` that does not follow a `\r` made `\r\n`.
fn to_crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 32);
    let mut previous = 0u8;
    for &b in bytes {
        if b == b'\n' && previous != b'\r' {
            out.push(b'\r');
        }
        out.push(b);
        previous = b;
    }
    out
}

/// The three-way choice among three states of one thing, a missing side counting as the base's:
/// the same on both sides, or changed on one side only → that; changed differently on both →
/// the greater, so that both merge directions choose alike.
fn pick<T: PartialEq + Ord + Copy>(
    base: Option<T>,
    ours: Option<T>,
    theirs: Option<T>,
) -> Option<T> {
    let (ours, theirs) = (ours.or(base), theirs.or(base));
    if ours == theirs || theirs == base {
        ours
    } else if ours == base {
        theirs
    } else {
        ours.max(theirs)
    }
}

/// `base`, `ours` and `theirs` merged line by line as git merges text: the merged text and
/// whether a conflict is written in it.
fn by_line(base: &str, ours: &str, theirs: &str) -> (String, bool) {
    let mut merge = TextMerge::from_lines(base, ours, theirs);
    merge.labels("base", "ours", "theirs");
    (merge.to_string(), merge.is_conflicted())
}

/// A candidate file: two `admitted` records of the candidate made one, anything else by line.
fn candidate(base: &str, ours: &str, theirs: &str, id: &str) -> Merged {
    if let (Some(o), Some(t)) = (
        admissions::admitted_record(ours, id),
        admissions::admitted_record(theirs, id),
    ) && o.is_same_candidate(&t)
    {
        let ours_stands = o.claim(ours).stands_against(&t.claim(theirs));
        let (kept, dropped, text) = if ours_stands {
            (o, t, ours)
        } else {
            (t, o, theirs)
        };
        let who = |r: &admissions::AdmittedRecord<'_>| {
            (r.by.to_owned(), r.ts.get(..10).map(str::to_owned))
        };
        return Merged {
            bytes: text.as_bytes().to_vec(),
            conflicts: Vec::new(),
            admissions: vec![Resolved {
                id: id.to_owned(),
                kept: who(&kept),
                dropped: who(&dropped),
                by_day: admissions::compares_days(kept.rel),
            }],
        };
    }
    let (text, conflicted) = by_line(base, ours, theirs);
    Merged {
        bytes: text.into_bytes(),
        conflicts: if conflicted {
            vec![Conflict {
                heading: None,
                what: What::ChangedBoth,
            }]
        } else {
            Vec::new()
        },
        admissions: Vec::new(),
    }
}

/// A section's identity: its heading, and which of the sections with that heading it is.
type Key<'a> = (&'a str, usize);

/// A piece of a note file: its text without the blank space that ends it, and that space when
/// another piece follows (`None` for the file's last piece, whose space is the file's end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece<'a> {
    core: &'a str,
    tail: Option<&'a str>,
}

/// A note file cut into pieces.
struct Doc<'a> {
    preamble: Piece<'a>,
    /// The sections' keys, in file order.
    order: Vec<Key<'a>>,
    sections: HashMap<Key<'a>, Piece<'a>>,
    /// The blank space the file ends with; `None` for an empty file.
    end: Option<&'a str>,
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// `raw` as a piece; `last` when it ends the file.
fn piece(raw: &str, last: bool) -> Piece<'_> {
    let core = raw.trim_end_matches(is_blank);
    Piece {
        core,
        tail: (!last).then(|| &raw[core.len()..]),
    }
}

fn cut(text: &str) -> Doc<'_> {
    let heads = heading_lines(text);
    let first = heads.first().map_or(text.len(), |h| h.0);
    let mut doc = Doc {
        preamble: piece(&text[..first], heads.is_empty()),
        order: Vec::with_capacity(heads.len()),
        sections: HashMap::with_capacity(heads.len()),
        end: (!text.is_empty()).then(|| &text[text.trim_end_matches(is_blank).len()..]),
    };
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, &(at, heading)) in heads.iter().enumerate() {
        let end = heads.get(i + 1).map_or(text.len(), |h| h.0);
        let n = seen.entry(heading).or_insert(0);
        let key = (heading, *n);
        *n += 1;
        doc.order.push(key);
        doc.sections
            .insert(key, piece(&text[at..end], i + 1 == heads.len()));
    }
    doc
}

/// `doc`, a descendant of `base`, with each section known by the key of the base's section it
/// lines up with: the two files' sequences of headings aligned (a longest common subsequence),
/// and a heading that each file has once matched wherever it stands (a section moved). A
/// section that lines up with none is new: it takes the next key after the base's for its
/// heading, so that the same heading added on both sides is one section.
fn align<'a>(base: &Doc<'a>, doc: &Doc<'a>) -> Doc<'a> {
    let headings = |d: &Doc<'a>| d.order.iter().map(|k| k.0).collect::<Vec<_>>();
    let (bh, sh) = (headings(base), headings(doc));
    let mut matched: Vec<Option<usize>> = vec![None; sh.len()];
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &bh, &sh) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for i in 0..len {
                matched[new_index + i] = Some(old_index + i);
            }
        }
    }
    let count = |hs: &[&'a str]| {
        let mut counts: HashMap<&'a str, usize> = HashMap::new();
        for h in hs {
            *counts.entry(*h).or_insert(0) += 1;
        }
        counts
    };
    let (cb, cs) = (count(&bh), count(&sh));
    let taken: HashSet<usize> = matched.iter().flatten().copied().collect();
    for (j, h) in sh.iter().enumerate() {
        if matched[j].is_none() && cb.get(h) == Some(&1) && cs[h] == 1 {
            matched[j] = bh
                .iter()
                .position(|x| x == h)
                .filter(|i| !taken.contains(i));
        }
    }
    let mut next: HashMap<&'a str, usize> = HashMap::new();
    let mut out = Doc {
        preamble: doc.preamble,
        order: Vec::with_capacity(doc.order.len()),
        sections: HashMap::with_capacity(doc.order.len()),
        end: doc.end,
    };
    for (j, old) in doc.order.iter().enumerate() {
        let key = matched[j].map_or_else(
            || {
                let n = next
                    .entry(old.0)
                    .or_insert_with(|| cb.get(old.0).copied().unwrap_or(0));
                *n += 1;
                (old.0, *n - 1)
            },
            |i| base.order[i],
        );
        out.order.push(key);
        out.sections.insert(key, doc.sections[old]);
    }
    out
}

/// What becomes of one section.
#[derive(Debug, Clone, Copy)]
enum Outcome<'a> {
    Keep(Piece<'a>),
    Drop,
    Conflict {
        ours: Option<Piece<'a>>,
        theirs: Option<Piece<'a>>,
    },
}

/// A section's body: what follows its heading line.
fn body(core: &str) -> &str {
    core.split_once('\n').map_or("", |(_, body)| body)
}

/// The date an entry sorts by among the new sections: its heading's, else its `Date` field's.
fn date_key(core: &str) -> String {
    sections(core)
        .first()
        .and_then(date_of)
        .unwrap_or_default()
        .to_owned()
}

/// The three versions of a file of sections, cut; the sides' sections known by the base's keys.
struct Three<'a> {
    b: Doc<'a>,
    o: Doc<'a>,
    t: Doc<'a>,
}

/// What becomes of each section: decided by the special rules first, then three-way.
type Outcomes<'a> = HashMap<Key<'a>, Outcome<'a>>;

/// The merge of a file of sections; `by_day` for a note file of entries (whose admissions are
/// made one), `None` for `refused.md`.
fn by_section<'a>(base: &'a str, ours: &'a str, theirs: &'a str, by_day: Option<bool>) -> Merged {
    let b = cut(base);
    let (o, t) = (align(&b, &cut(ours)), align(&b, &cut(theirs)));
    let three = Three { b, o, t };
    let mut conflicts = Vec::new();
    let preamble = three.preamble(&mut conflicts);

    let mut outcome: Outcomes<'a> = HashMap::new();
    let admissions = by_day.map_or_else(Vec::new, |by_day| three.admissions(by_day, &mut outcome));
    let mut renamed = three.renames(&mut outcome);
    let Three { b, o, t } = &three;
    for k in b.order.iter().chain(&o.order).chain(&t.order) {
        if !outcome.contains_key(k) {
            let decided = three.resolve(k);
            outcome.insert(*k, decided);
        }
    }

    // The pieces in order, with the blank space after each.
    let mut items: Vec<(Cow<'a, str>, Option<&'a str>)> = vec![preamble];
    for k in three.order(&outcome) {
        let tail = |doc: &Doc<'a>| doc.sections.get(&k).and_then(|p| p.tail);
        let tail = pick(tail(b), tail(o), tail(t));
        match outcome[&k] {
            Outcome::Drop => {}
            Outcome::Keep(p) => items.push((Cow::Borrowed(p.core), tail)),
            Outcome::Conflict { ours, theirs } => {
                let what = renamed.remove(&k).unwrap_or(
                    match (b.sections.contains_key(&k), ours, theirs) {
                        (false, _, _) => What::AddedBoth,
                        (true, None, _) => What::Removed { ours: true },
                        (true, _, None) => What::Removed { ours: false },
                        _ => What::ChangedBoth,
                    },
                );
                conflicts.push(Conflict {
                    heading: Some(k.0.to_owned()),
                    what,
                });
                items.push((Cow::Owned(block(ours, theirs)), tail));
            }
        }
    }
    let end = pick(b.end, o.end, t.end).unwrap_or("\n");
    Merged {
        bytes: assemble(&items, end, ours.len().max(theirs.len())).into_bytes(),
        conflicts,
        admissions,
    }
}

/// The pieces joined: each followed by its blank space (a blank line when it has none that
/// ends a line), the last by the file's end; nothing at all when every piece is empty.
fn assemble(items: &[(Cow<'_, str>, Option<&str>)], end: &str, capacity: usize) -> String {
    let mut out = String::with_capacity(capacity + 64);
    let last = items.len().saturating_sub(1);
    for (i, (text, tail)) in items.iter().enumerate() {
        out.push_str(text);
        if i == last {
            if !out.is_empty() {
                out.push_str(end);
            }
        } else if text.is_empty() {
            out.push_str(tail.unwrap_or(""));
        } else {
            out.push_str(tail.filter(|t| t.contains('\n')).unwrap_or("\n\n"));
        }
    }
    out
}

impl<'a> Three<'a> {
    /// The preamble and its blank space: three-way, by line when both sides changed it.
    fn preamble(&self, conflicts: &mut Vec<Conflict>) -> (Cow<'a, str>, Option<&'a str>) {
        let (pb, po, pt) = (
            self.b.preamble.core,
            self.o.preamble.core,
            self.t.preamble.core,
        );
        let text = if po == pt || pt == pb {
            Cow::Borrowed(po)
        } else if po == pb {
            Cow::Borrowed(pt)
        } else {
            let (text, conflicted) =
                by_line(&format!("{pb}\n"), &format!("{po}\n"), &format!("{pt}\n"));
            if conflicted {
                conflicts.push(Conflict {
                    heading: None,
                    what: What::ChangedBoth,
                });
            }
            Cow::Owned(text.trim_end_matches(is_blank).to_owned())
        };
        let tail = pick(
            self.b.preamble.tail,
            self.o.preamble.tail,
            self.t.preamble.tail,
        );
        (text, tail)
    }

    /// The sections `doc` adds that the `other` side does not hold as they are.
    fn new_on(&self, doc: &Doc<'a>, other: &Doc<'a>) -> Vec<(Key<'a>, Piece<'a>)> {
        doc.order
            .iter()
            .filter(|k| !self.b.sections.contains_key(k))
            .filter(|k| other.sections.get(k).map(|p| p.core) != Some(doc.sections[k].core))
            .map(|k| (*k, doc.sections[k]))
            .collect()
    }

    /// One candidate admitted on both sides: the section that stands is kept, the other
    /// dropped (see [`admissions`]); what was decided, to report.
    fn admissions(&self, by_day: bool, outcome: &mut Outcomes<'a>) -> Vec<Resolved> {
        let (o, t) = (&self.o, &self.t);
        let theirs_new: Vec<(Key<'a>, Piece<'a>, Admission<'a>)> = self
            .new_on(t, o)
            .into_iter()
            .filter_map(|(k, p)| admission(p.core).map(|a| (k, p, a)))
            .collect();
        let mut taken: HashSet<Key<'a>> = HashSet::new();
        let mut resolved = Vec::new();
        for (ko, po) in self.new_on(o, t) {
            let Some(ao) = admission(po.core) else {
                continue;
            };
            let Some((kt, pt, at)) = theirs_new.iter().find(|(kt, _, at)| {
                !taken.contains(kt)
                    && at.is_same(&ao)
                    && (ko == *kt
                        || (!t.sections.contains_key(&ko) && !o.sections.contains_key(kt)))
            }) else {
                continue;
            };
            taken.insert(*kt);
            let claim = |a: &Admission<'a>, p: &Piece<'a>| Claim {
                day: a.day.filter(|_| by_day),
                by: a.by,
                ts: "",
                text: p.core.as_bytes(),
            };
            let ours_stands = claim(&ao, &po).stands_against(&claim(at, pt));
            let (kept, dropped) = if ours_stands { (&ao, at) } else { (at, &ao) };
            if ko == *kt {
                outcome.insert(ko, Outcome::Keep(if ours_stands { po } else { *pt }));
            } else {
                outcome.insert(if ours_stands { *kt } else { ko }, Outcome::Drop);
            }
            let who = |a: &Admission<'a>| (a.by.to_owned(), a.day.map(str::to_owned));
            resolved.push(Resolved {
                id: ao.id.to_owned(),
                kept: who(kept),
                dropped: who(dropped),
                by_day,
            });
        }
        resolved
    }

    /// Renames against changes: a base section removed on a side that added one with its body
    /// under another heading, changed on the other side (or renamed there too, differently),
    /// is a conflict at its place; the renamed sections are not placed again. What each was.
    fn renames(&self, outcome: &mut Outcomes<'a>) -> HashMap<Key<'a>, What> {
        let (b, o, t) = (&self.b, &self.o, &self.t);
        // The sections new on one side only, by body.
        let by_body = |doc: &Doc<'a>, other: &Doc<'a>| {
            let mut found: HashMap<&'a str, Vec<Key<'a>>> = HashMap::new();
            for n in &doc.order {
                if !b.sections.contains_key(n) && !other.sections.contains_key(n) {
                    found
                        .entry(body(doc.sections[n].core))
                        .or_default()
                        .push(*n);
                }
            }
            found
        };
        let (ours_bodies, theirs_bodies) = (by_body(o, t), by_body(t, o));
        let mut renamed = HashMap::new();
        for k in &b.order {
            let base_piece = b.sections[k];
            let body_b = body(base_piece.core);
            if body_b.trim().is_empty() {
                continue;
            }
            let find = |bodies: &HashMap<&'a str, Vec<Key<'a>>>, outcome: &Outcomes<'a>| {
                bodies
                    .get(body_b)
                    .and_then(|keys| keys.iter().find(|n| !outcome.contains_key(n)))
                    .copied()
            };
            let changed = |p: &Piece<'a>| p.core != base_piece.core;
            let found = match (o.sections.get(k), t.sections.get(k)) {
                (None, Some(tp)) if changed(tp) => find(&ours_bodies, outcome).map(|n| {
                    let what = What::Renamed {
                        ours: Some(n.0.to_owned()),
                        theirs: None,
                    };
                    (vec![n], Some(o.sections[&n]), Some(*tp), what)
                }),
                (Some(op), None) if changed(op) => find(&theirs_bodies, outcome).map(|n| {
                    let what = What::Renamed {
                        ours: None,
                        theirs: Some(n.0.to_owned()),
                    };
                    (vec![n], Some(*op), Some(t.sections[&n]), what)
                }),
                (None, None) => {
                    match (find(&ours_bodies, outcome), find(&theirs_bodies, outcome)) {
                        (Some(no), Some(nt)) if no != nt => Some((
                            vec![no, nt],
                            Some(o.sections[&no]),
                            Some(t.sections[&nt]),
                            What::Renamed {
                                ours: Some(no.0.to_owned()),
                                theirs: Some(nt.0.to_owned()),
                            },
                        )),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some((targets, ours, theirs, what)) = found {
                for n in targets {
                    outcome.insert(n, Outcome::Drop);
                }
                outcome.insert(*k, Outcome::Conflict { ours, theirs });
                renamed.insert(*k, what);
            }
        }
        renamed
    }

    /// One section, three-way by its text.
    fn resolve(&self, k: &Key<'a>) -> Outcome<'a> {
        let (bp, op, tp) = (
            self.b.sections.get(k).copied(),
            self.o.sections.get(k).copied(),
            self.t.sections.get(k).copied(),
        );
        let core = |p: Option<Piece<'a>>| p.map(|p| p.core);
        let (cb, co, ct) = (core(bp), core(op), core(tp));
        let chosen = if co == ct || ct == cb {
            op
        } else if co == cb {
            tp
        } else {
            return Outcome::Conflict {
                ours: op,
                theirs: tp,
            };
        };
        chosen.map_or(Outcome::Drop, Outcome::Keep)
    }

    /// Every section in the order of the result: the base's sections ([`skeleton`]), each new
    /// section before the base section after it on its side (at the end when none is); those
    /// that both sides added at one place interleaved.
    fn order(&self, outcome: &Outcomes<'a>) -> Vec<Key<'a>> {
        let (o, t) = (&self.o, &self.t);
        let skeleton = skeleton(&self.b, o, t);
        let at: HashMap<Key<'a>, usize> =
            skeleton.iter().enumerate().map(|(i, k)| (*k, i)).collect();
        let anchors = |doc: &Doc<'a>| -> Vec<(Key<'a>, usize)> {
            let mut anchor = skeleton.len();
            let mut out = Vec::new();
            for k in doc.order.iter().rev() {
                match at.get(k) {
                    Some(i) => anchor = *i,
                    None => out.push((*k, anchor)),
                }
            }
            out.reverse();
            out
        };
        let (ours_new, theirs_new) = (anchors(o), anchors(t));
        let mut slot: HashMap<Key<'a>, usize> = HashMap::new();
        for (k, anchor) in ours_new.iter().chain(&theirs_new) {
            let entry = slot.entry(*k).or_insert(*anchor);
            *entry = (*entry).min(*anchor);
        }
        let rank = |k: &Key<'a>| -> (String, &'a str, usize) {
            let date = [o.sections.get(k), t.sections.get(k)]
                .into_iter()
                .flatten()
                .map(|p| date_key(p.core))
                .min()
                .unwrap_or_default();
            (date, k.0, k.1)
        };
        let in_slot = |list: &[(Key<'a>, usize)], at: usize| -> Vec<Key<'a>> {
            list.iter()
                .filter(|(k, _)| slot[k] == at && !matches!(outcome[k], Outcome::Drop))
                .map(|(k, _)| *k)
                .collect()
        };
        let placed =
            |at: usize| interleave(&in_slot(&ours_new, at), &in_slot(&theirs_new, at), rank);
        let mut keys = Vec::with_capacity(outcome.len());
        for (i, k) in skeleton.iter().enumerate() {
            keys.extend(placed(i));
            keys.push(*k);
        }
        keys.extend(placed(skeleton.len()));
        keys
    }
}

/// The order of the base's sections in the result: the base's, unless one side moved sections
/// (the base sections it kept are not in the base's order) and the other did not, or both moved
/// them alike: then that side's order, each base section it removed after the base section
/// before it.
fn skeleton<'a>(b: &Doc<'a>, o: &Doc<'a>, t: &Doc<'a>) -> Vec<Key<'a>> {
    let base_at: HashMap<Key<'a>, usize> =
        b.order.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let kept = |d: &Doc<'a>| -> Vec<Key<'a>> {
        d.order
            .iter()
            .filter(|k| base_at.contains_key(k))
            .copied()
            .collect()
    };
    let in_order = |keys: &[Key<'a>]| keys.windows(2).all(|w| base_at[&w[0]] < base_at[&w[1]]);
    let (ko, kt) = (kept(o), kept(t));
    let moved = match (in_order(&ko), in_order(&kt)) {
        (false, true) => ko,
        (true, false) => kt,
        (false, false) if ko == kt => ko,
        _ => return b.order.clone(),
    };
    // Each base section the moving side removed goes after the nearest base section before it
    // that the side kept.
    let present: HashSet<Key<'a>> = moved.iter().copied().collect();
    let mut after: HashMap<Option<Key<'a>>, Vec<Key<'a>>> = HashMap::new();
    let mut previous = None;
    for k in &b.order {
        if present.contains(k) {
            previous = Some(*k);
        } else {
            after.entry(previous).or_default().push(*k);
        }
    }
    let mut out: Vec<Key<'a>> = after.remove(&None).unwrap_or_default();
    for k in moved {
        out.push(k);
        out.extend(after.remove(&Some(k)).unwrap_or_default());
    }
    out
}

/// A conflict block: ours' version and theirs' between git's markers (an empty side: removed).
fn block(ours: Option<Piece<'_>>, theirs: Option<Piece<'_>>) -> String {
    let mut out = format!("{OURS_MARKER}\n");
    if let Some(p) = ours {
        out.push_str(p.core);
        out.push('\n');
    }
    out.push_str(SEPARATOR);
    out.push('\n');
    if let Some(p) = theirs {
        out.push_str(p.core);
        out.push('\n');
    }
    out.push_str(THEIRS_MARKER);
    out
}

/// Two lists of new sections (each in its side's order; a section may be in both) as one:
/// at each step the lesser, by `rank`, of the two sides' next sections.
fn interleave<'a, R: Ord>(
    ours: &[Key<'a>],
    theirs: &[Key<'a>],
    rank: impl Fn(&Key<'a>) -> R,
) -> Vec<Key<'a>> {
    let mut out = Vec::with_capacity(ours.len() + theirs.len());
    let mut done: HashSet<Key<'a>> = HashSet::new();
    let (mut i, mut j) = (0, 0);
    loop {
        while i < ours.len() && done.contains(&ours[i]) {
            i += 1;
        }
        while j < theirs.len() && done.contains(&theirs[j]) {
            j += 1;
        }
        let next = match (ours.get(i), theirs.get(j)) {
            (Some(a), Some(b)) => {
                if rank(a) <= rank(b) {
                    *a
                } else {
                    *b
                }
            }
            (Some(a), None) => *a,
            (None, Some(b)) => *b,
            (None, None) => break,
        };
        done.insert(next);
        out.push(next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const LESSONS: Note = Note::Entries { by_day: true };

    #[track_caller]
    fn clean(base: &str, ours: &str, theirs: &str, note: &Note) -> String {
        let one = merge(base.as_bytes(), ours.as_bytes(), theirs.as_bytes(), note).unwrap();
        let other = merge(base.as_bytes(), theirs.as_bytes(), ours.as_bytes(), note).unwrap();
        assert!(one.conflicts.is_empty(), "{one:?}");
        assert_eq!(
            String::from_utf8_lossy(&one.bytes),
            String::from_utf8_lossy(&other.bytes),
            "both directions"
        );
        String::from_utf8(one.bytes).unwrap()
    }

    #[track_caller]
    fn conflicted(base: &str, ours: &str, theirs: &str) -> (String, Vec<Conflict>) {
        let merged = merge(
            base.as_bytes(),
            ours.as_bytes(),
            theirs.as_bytes(),
            &LESSONS,
        )
        .unwrap();
        assert!(!merged.conflicts.is_empty(), "{merged:?}");
        (String::from_utf8(merged.bytes).unwrap(), merged.conflicts)
    }

    #[test]
    fn note_files_are_known_by_their_end() {
        let kind = kind_of;
        assert_eq!(
            kind(".agents/memory/lessons.md"),
            Some((".agents/memory/lessons.md".into(), LESSONS))
        );
        assert_eq!(
            kind("apps/web/.bmad/memory/patterns.md"),
            Some((
                ".bmad/memory/patterns.md".into(),
                Note::Entries { by_day: false }
            ))
        );
        assert_eq!(
            kind("./.bmad/memory/refused.md"),
            Some((".bmad/memory/refused.md".into(), Note::Refused))
        );
        assert_eq!(
            kind("web/.bmad/memory/candidates/p-lesson-20261018-x.md"),
            Some((
                ".bmad/memory/candidates/p-lesson-20261018-x.md".into(),
                Note::Candidate {
                    id: "p-lesson-20261018-x".into()
                }
            ))
        );
        for unknown in [
            "lessons.md",
            "x.agents/memory/lessons.md",
            ".agents/memory/context.md",
            ".agents/memory/refused.md",
            ".bmad/memory/candidates/Upper.md",
            ".bmad/memory/candidates/sub/x.md",
            ".bmad/memory/candidates/x.txt",
            "x.bmad/memory/candidates/x.md",
            ".bmad/memory/INDEX.md",
        ] {
            assert_eq!(kind(unknown), None, "{unknown}");
        }
        // Every note file of both folders, and nothing else.
        let notes: Vec<String> = crate::store::layout::NOTE_DIRS
            .iter()
            .flat_map(|d| {
                crate::store::layout::NOTE_FILES
                    .iter()
                    .map(move |f| format!("{d}/{f}"))
            })
            .collect();
        assert_eq!(notes, MERGED_NOTES[..6]);
    }

    const BASE: &str = "# Lessons\n\nWhat we learned.\n\n### 2026-10-01 — A\n- **Lesson**: a\n";

    #[test]
    fn sections_added_on_both_sides_are_all_kept_in_date_order() {
        let ours = format!("{BASE}\n### 2026-10-19 — B\n- **Lesson**: b\n");
        let theirs =
            format!("{BASE}\n### 2026-10-18 — C\n- **Lesson**: c\n\n### 2026-10-20 — D\nd\n");
        assert_eq!(
            clean(BASE, &ours, &theirs, &LESSONS),
            format!(
                "{BASE}\n### 2026-10-18 — C\n- **Lesson**: c\n\n### 2026-10-19 — B\n- **Lesson**: b\n\n### 2026-10-20 — D\nd\n"
            )
        );
    }

    #[test]
    fn a_section_changed_on_one_side_takes_the_change() {
        let base = format!("{BASE}\n### B\nb\n");
        let ours = format!("{BASE}\n### B\nb, better\n");
        let theirs = format!("{base}\n### C\nc\n");
        assert_eq!(
            clean(&base, &ours, &theirs, &LESSONS),
            format!("{BASE}\n### B\nb, better\n\n### C\nc\n")
        );
        // Removed on one side, kept as it was on the other: removed.
        let removed = BASE.to_owned();
        assert_eq!(
            clean(&base, &removed, &theirs, &LESSONS),
            format!("{BASE}\n### C\nc\n")
        );
    }

    #[test]
    fn a_section_changed_differently_on_both_sides_is_a_conflict_there_only() {
        let base = format!("{BASE}\n### B\nb\n\n### C\nc\n");
        let ours = format!("{BASE}\n### B\nb, ours\n\n### C\nc\n\n### D\nd\n");
        let theirs = "# Lessons, renamed\n\nWhat we learned.\n\n### 2026-10-01 — A\n- **Lesson**: a\n\n### B\nb, theirs\n\n### C\nc\n";
        let (text, conflicts) = conflicted(&base, &ours, theirs);
        assert_eq!(
            text,
            "# Lessons, renamed\n\nWhat we learned.\n\n### 2026-10-01 — A\n- **Lesson**: a\n\n<<<<<<< ours\n### B\nb, ours\n=======\n### B\nb, theirs\n>>>>>>> theirs\n\n### C\nc\n\n### D\nd\n"
        );
        assert_eq!(
            conflicts,
            [Conflict {
                heading: Some("B".into()),
                what: What::ChangedBoth
            }]
        );
        // Removed on one side, changed on the other.
        let (text, conflicts) = conflicted(&base, &format!("{BASE}\n### C\nc\n"), theirs);
        assert!(
            text.contains("<<<<<<< ours\n=======\n### B\nb, theirs\n>>>>>>> theirs\n"),
            "{text}"
        );
        assert_eq!(conflicts[0].what, What::Removed { ours: true });
        // Added on both sides with different texts.
        let (_, conflicts) = conflicted(
            BASE,
            &format!("{BASE}\n### N\none\n"),
            &format!("{BASE}\n### N\ntwo\n"),
        );
        assert_eq!(conflicts[0].what, What::AddedBoth);
    }

    #[test]
    fn the_preamble_merges_line_by_line() {
        let base = "# Lessons\n\none\ntwo\nthree\n\n### A\na\n";
        let ours = "# Lessons\n\nONE\ntwo\nthree\n\n### A\na\n";
        let theirs = "# Lessons\n\none\ntwo\nTHREE\n\n### A\na\n";
        assert_eq!(
            clean(base, ours, theirs, &LESSONS),
            "# Lessons\n\nONE\ntwo\nTHREE\n\n### A\na\n"
        );
        let (text, conflicts) =
            conflicted(base, ours, "# Lessons\n\nuno\ntwo\nthree\n\n### A\na\n");
        assert_eq!(
            text,
            "# Lessons\n\n<<<<<<< ours\nONE\n=======\nuno\n>>>>>>> theirs\ntwo\nthree\n\n### A\na\n"
        );
        assert_eq!(conflicts[0].heading, None);
    }

    #[test]
    fn a_rename_against_a_change_is_a_conflict_that_names_it() {
        let base = format!("{BASE}\n### B\nthe body\n");
        let renamed = format!("{BASE}\n### B, better named\nthe body\n");
        let changed = format!("{BASE}\n### B\nthe body, edited\n");
        let (text, conflicts) = conflicted(&base, &renamed, &changed);
        assert_eq!(
            text,
            format!(
                "{BASE}\n<<<<<<< ours\n### B, better named\nthe body\n=======\n### B\nthe body, edited\n>>>>>>> theirs\n"
            )
        );
        assert_eq!(
            conflicts[0].what,
            What::Renamed {
                ours: Some("B, better named".into()),
                theirs: None
            }
        );
        // Renamed differently on both sides.
        let other = format!("{BASE}\n### B, named again\nthe body\n");
        let (_, conflicts) = conflicted(&base, &renamed, &other);
        assert_eq!(
            conflicts[0].what,
            What::Renamed {
                ours: Some("B, better named".into()),
                theirs: Some("B, named again".into())
            }
        );
        // Renamed on one side, untouched on the other: the rename.
        let theirs = format!("{base}\n### C\nc\n");
        assert_eq!(
            clean(&base, &renamed, &theirs, &LESSONS),
            format!("{BASE}\n### B, better named\nthe body\n\n### C\nc\n")
        );
    }

    #[test]
    fn a_section_moved_on_one_side_keeps_its_new_place_and_takes_the_other_side_s_change() {
        let base = format!("{BASE}\n### B\nb\n\n### C\nc\n");
        let moved = format!("{BASE}\n### C\nc\n\n### B\nb\n");
        let changed = format!("{BASE}\n### B\nb, changed\n\n### C\nc\n\n### D\nd\n");
        assert_eq!(
            clean(&base, &moved, &changed, &LESSONS),
            format!("{BASE}\n### C\nc\n\n### B\nb, changed\n\n### D\nd\n")
        );
    }

    #[test]
    fn duplicate_headings_are_told_apart_by_occurrence() {
        let base = format!("{BASE}\n### Same\none\n\n### Same\ntwo\n");
        let ours = format!("{BASE}\n### Same\none, ours\n\n### Same\ntwo\n");
        let theirs = format!("{BASE}\n### Same\none\n\n### Same\ntwo, theirs\n");
        assert_eq!(
            clean(&base, &ours, &theirs, &LESSONS),
            format!("{BASE}\n### Same\none, ours\n\n### Same\ntwo, theirs\n")
        );
    }

    #[test]
    fn crlf_on_one_side_only_is_no_conflict() {
        let base = format!("{BASE}\n### B\nb\n");
        let ours = base.replace('\n', "\r\n");
        let theirs = format!("{base}\n### C\nc\n");
        let merged = clean(&base, &ours, &theirs, &LESSONS);
        assert_eq!(merged, format!("{base}\n### C\nc\n").replace('\n', "\r\n"));
        // Both CRLF: merged, and CRLF still.
        let (o, t) = (
            format!("{base}\n### D\nd\n").replace('\n', "\r\n"),
            theirs.replace('\n', "\r\n"),
        );
        assert_eq!(
            clean(&ours, &o, &t, &LESSONS),
            format!("{base}\n### C\nc\n\n### D\nd\n").replace('\n', "\r\n")
        );
        // No base to tell: LF.
        assert_eq!(
            clean("", &o, &theirs, &LESSONS),
            format!("{base}\n### C\nc\n\n### D\nd\n")
        );
    }

    #[test]
    fn sides_with_conflict_markers_or_not_utf8_are_refused() {
        let marked = format!("{BASE}<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n");
        assert_eq!(
            merge(BASE.as_bytes(), marked.as_bytes(), b"x", &LESSONS),
            Err(Refusal::Markers {
                side: "ours",
                line: 7
            })
        );
        assert_eq!(
            merge(BASE.as_bytes(), b"x", marked.as_bytes(), &LESSONS),
            Err(Refusal::Markers {
                side: "theirs",
                line: 7
            })
        );
        // A setext underline is no marker.
        let setext = format!("Title\n=======\n{BASE}");
        assert!(merge(BASE.as_bytes(), setext.as_bytes(), b"x\n", &LESSONS).is_ok());
        assert_eq!(
            merge(BASE.as_bytes(), b"\xff\n", b"x\n", &LESSONS),
            Err(Refusal::NotText { side: "ours" })
        );
    }

    /// An entry as `admit` writes it in the template style on `day` by `by`.
    fn admitted(day: &str, title: &str, by: &str) -> String {
        format!(
            "### {day} — {title}\n- **Context**: none given\n- **Lesson**: {title}, said once\n- **Evidence**: none\n- **Admitted-by**: {by} (candidate p-lesson-x, sha256 ab12)\n"
        )
    }

    #[test]
    fn one_candidate_admitted_on_both_sides_becomes_one_entry() {
        let (ada, bob) = (
            admitted("2026-10-18", "Flush", "ada"),
            admitted("2026-10-18", "Flush", "bob"),
        );
        let merged = merge(
            BASE.as_bytes(),
            format!("{BASE}\n{bob}").as_bytes(),
            format!("{BASE}\n{ada}").as_bytes(),
            &LESSONS,
        )
        .unwrap();
        assert!(merged.conflicts.is_empty());
        assert_eq!(
            String::from_utf8(merged.bytes).unwrap(),
            format!("{BASE}\n{ada}")
        );
        assert_eq!(
            merged.admissions,
            [Resolved {
                id: "p-lesson-x".into(),
                kept: ("ada".into(), Some("2026-10-18".into())),
                dropped: ("bob".into(), Some("2026-10-18".into())),
                by_day: true,
            }]
        );
        // The earlier day wins over the name; both directions alike.
        let late = admitted("2026-10-19", "Flush", "ada");
        assert_eq!(
            clean(
                BASE,
                &format!("{BASE}\n{bob}"),
                &format!("{BASE}\n{late}"),
                &LESSONS
            ),
            format!("{BASE}\n{bob}")
        );
        // Patterns: the name, whatever the day.
        assert_eq!(
            clean(
                BASE,
                &format!("{BASE}\n{bob}"),
                &format!("{BASE}\n{late}"),
                &Note::Entries { by_day: false }
            ),
            format!("{BASE}\n{late}")
        );
        // The fields style: the `Date` field is the day.
        let fields = |day: &str, by: &str| {
            format!(
                "### Flush\n**Date:** {day}\n**Lesson:** Flush\n**Admitted-by:** {by} (candidate p-lesson-x, sha256 ab12)\n"
            )
        };
        assert_eq!(
            clean(
                BASE,
                &format!("{BASE}\n{}", fields("2026-10-19", "ada")),
                &format!("{BASE}\n{}", fields("2026-10-18", "bob")),
                &LESSONS
            ),
            format!("{BASE}\n{}", fields("2026-10-18", "bob"))
        );
        // Not the same text: two different admissions stay two (or conflict).
        let edited = bob.replace("said once", "said twice");
        let (_, conflicts) = conflicted(
            BASE,
            &format!("{BASE}\n{ada}"),
            &format!("{BASE}\n{edited}"),
        );
        assert_eq!(conflicts[0].what, What::AddedBoth);
        // Refusals are never made one.
        let refused = merge(
            BASE.as_bytes(),
            format!("{BASE}\n{ada}").as_bytes(),
            format!("{BASE}\n{bob}").as_bytes(),
            &Note::Refused,
        )
        .unwrap();
        assert_eq!(refused.conflicts.len(), 1);
    }

    #[test]
    fn a_candidate_file_keeps_the_earlier_admission_and_merges_the_rest_by_line() {
        let id = Note::Candidate {
            id: "p-lesson-x".into(),
        };
        let pending = "---\nid: p-lesson-x\ntitle: \"Flush\"\n---\n\n## Content\n\nFlush.\n";
        let record = |ts: &str, by: &str| {
            format!(
                "admitted {ts} by {by}: p-lesson-x (sha256 ab12) is the entry \"{} — Flush\" of .agents/memory/lessons.md\n",
                &ts[..10]
            )
        };
        let (early, late) = (
            record("2026-10-18T10:00:00.000Z", "bob"),
            record("2026-10-19T09:00:00.000Z", "ada"),
        );
        assert_eq!(clean(pending, &early, &late, &id), early);
        let merged = merge(pending.as_bytes(), late.as_bytes(), early.as_bytes(), &id).unwrap();
        assert_eq!(merged.admissions[0].kept.0, "bob");
        // Admitted on one side, refused on the other: a conflict.
        let refused = "refused 2026-10-18T10:00:00.000Z by bob: p-lesson-x (sha256 ab12), topic `flush` in .bmad/memory/refused.md\n";
        let merged = merge(
            pending.as_bytes(),
            early.as_bytes(),
            refused.as_bytes(),
            &id,
        )
        .unwrap();
        assert_eq!(merged.conflicts.len(), 1);
        assert!(
            String::from_utf8(merged.bytes)
                .unwrap()
                .starts_with("<<<<<<< ours\nadmitted")
        );
        // Edits of a pending candidate that do not overlap merge.
        let o = pending.replace("id: p-lesson-x", "id: p-lesson-x\nsource: \"a\"");
        let t = pending.replace("Flush.", "Flush it.");
        assert_eq!(
            clean(pending, &o, &t, &id),
            "---\nid: p-lesson-x\nsource: \"a\"\ntitle: \"Flush\"\n---\n\n## Content\n\nFlush it.\n"
        );
    }

    /// A small note file: a preamble, then sections drawn from a few headings and bodies.
    fn note_file() -> impl Strategy<Value = String> {
        (
            proptest::collection::vec((0usize..6, 0u8..3), 0..6),
            any::<bool>(),
        )
            .prop_map(|(sections, blank)| {
                let mut text = "# Notes\n".to_owned();
                for (h, v) in sections {
                    text.push_str(if blank { "\n" } else { "" });
                    text.push_str("### ");
                    text.push_str(["A", "B", "C", "D", "N", "P"][h]);
                    text.push_str("\nbody ");
                    text.push_str(&v.to_string());
                    text.push('\n');
                }
                text
            })
    }

    /// A descendant of `base`: each section kept, removed or changed; sections added anywhere.
    fn edit(base: &str, ops: &[(u8, u8)], added: &[(usize, usize, u8)], side: &str) -> String {
        let doc = cut(base);
        let mut sections: Vec<String> = doc
            .order
            .iter()
            .zip(ops.iter().cycle())
            .filter_map(|(k, (op, v))| {
                let core = doc.sections[k].core;
                match op {
                    0..=3 => Some(core.to_owned()),
                    4 => None,
                    // Changed alike on both sides now and then.
                    _ => Some(format!(
                        "### {}\nbody {}{v}",
                        k.0,
                        if *v == 0 { "x" } else { side }
                    )),
                }
            })
            .collect();
        for (at, h, v) in added {
            let heading = ["N", "P", side][h % 3];
            let at = at % (sections.len() + 1);
            sections.insert(at, format!("### {heading}\nnew {v}"));
        }
        let mut text = format!("{}\n", doc.preamble.core);
        for s in sections {
            text.push('\n');
            text.push_str(&s);
            text.push('\n');
        }
        text
    }

    /// What a side does: to each base section (keep, remove, change), and the sections it adds.
    type Edits = (Vec<(u8, u8)>, Vec<(usize, usize, u8)>);

    fn edits() -> impl Strategy<Value = Edits> {
        (
            proptest::collection::vec((0u8..6, 0u8..2), 1..6),
            proptest::collection::vec((0usize..6, 0usize..3, 0u8..2), 0..3),
        )
    }

    proptest! {
        #[test]
        fn both_directions_give_the_same_bytes_and_nothing_is_lost(
            base in note_file(), (oo, oa) in edits(), (to, ta) in edits(),
        ) {
            let ours = edit(&base, &oo, &oa, "O");
            let theirs = edit(&base, &to, &ta, "T");
            let one = by_section(&base, &ours, &theirs, Some(true));
            let other = by_section(&base, &theirs, &ours, Some(true));
            prop_assert_eq!(one.conflicts.len(), other.conflicts.len());
            if !one.conflicts.is_empty() {
                return Ok(());
            }
            prop_assert_eq!(&one.bytes, &other.bytes);
            let text = String::from_utf8(one.bytes).unwrap();
            let merged = cut(&text);
            let cores: Vec<&str> = merged.order.iter().map(|k| merged.sections[k].core).collect();
            let b = cut(&base);
            let (o, t) = (align(&b, &cut(&ours)), align(&b, &cut(&theirs)));
            for (side, other) in [(&o, &t), (&t, &o)] {
                for k in &side.order {
                    let core = side.sections[k].core;
                    let unchanged = b.sections.get(k).is_some_and(|p| p.core == core);
                    let other_changed = other.sections.get(k).map(|p| p.core) != Some(core);
                    if unchanged && other_changed {
                        continue;
                    }
                    prop_assert!(cores.contains(&core), "{:?} lost from {:?}", core, text);
                }
            }
        }

        #[test]
        fn merging_a_file_with_itself_or_one_change_gives_it_back(
            base in note_file(), (ops, added) in edits(),
        ) {
            let changed = edit(&base, &ops, &added, "O");
            for x in [&base, &changed] {
                prop_assert_eq!(String::from_utf8(by_section(x, x, x, Some(true)).bytes).unwrap(), x.clone());
            }
            let one = String::from_utf8(by_section(&base, &changed, &base, Some(true)).bytes).unwrap();
            prop_assert_eq!(&one, &changed);
            let other = String::from_utf8(by_section(&base, &base, &changed, Some(true)).bytes).unwrap();
            prop_assert_eq!(&other, &changed);
            // And merging again changes nothing.
            let again = String::from_utf8(by_section(&base, &one, &changed, Some(true)).bytes).unwrap();
            prop_assert_eq!(&again, &changed);
        }
    }
}
