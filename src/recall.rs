//! `recall`: what do we already know about X? (docs §5)
//!
//! Candidates are every journal event (in file order), then every `###` section of
//! `decisions.md`, `lessons.md`, `patterns.md` in `.bmad/memory/`, `.agents/memory/` and, with
//! `--scope portfolio --portfolio P`, `P/memory/`. Each is scored lexically ([`score`]); journal
//! events lose half their weight every 30 days. The sort is stable, so ties keep candidate
//! order; lexical recall keeps only the best `--limit` candidates as it goes ([`Best`]).
//! With `--include-archive`, the events of the journal's archives (`.bmad/memory/archive/`,
//! oldest first) are candidates too, before the live journal's; without it, recall reads what
//! bmad-plus reads.
//!
//! Scoring never builds a map of the text's words: the text is tokenized in one pass and only
//! the query's tokens are counted.

use std::collections::HashSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock};

use crate::archive::{ARCHIVE_DIR, Store, archive_names};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::counter::QueryCounter;
use crate::js::json::{Object, Value};
use crate::js::number::to_fixed;
use crate::js::text::{tokens, trim, truncate};
use crate::js::{date, math};
use crate::output::Report;
use crate::store::journal;
use crate::store::paths::{Loose, Skip, read_loose_into, relative, resolve};
use crate::store::sections::{Section, sections, sections_before, split_point};
use crate::write::JOURNAL;

/// The note files, in the order they are searched.
pub const NOTE_FILES: [&str; 3] = ["decisions.md", "lessons.md", "patterns.md"];
/// The project's note folders, in the order they are searched.
pub const NOTE_DIRS: [&str; 2] = [".bmad/memory", ".agents/memory"];
const DEFAULT_LIMIT: usize = 8;
/// A store this large is scored on two threads (below it, starting one costs more than it saves).
const PARALLEL_FROM_BYTES: u64 = 1024 * 1024;
const MS_PER_DAY: f64 = 86_400_000.0;
const HALF_LIFE_DAYS: f64 = 30.0;

/// Search the journal and the notes for the query's words.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RecallArgs {
    /// Words to look for (joined by one space).
    #[arg(value_name = "QUERY", allow_negative_numbers = true)]
    pub query: Vec<String>,
    /// Where to look: project (default) or portfolio (adds the --portfolio brain's memory/).
    #[arg(long, value_name = "project|portfolio", allow_hyphen_values = true)]
    pub scope: Option<String>,
    /// Portfolio brain folder, relative to the current directory (with --scope portfolio).
    #[arg(long, value_name = "path", allow_hyphen_values = true)]
    pub portfolio: Option<String>,
    /// Maximum number of results, a positive integer (default 8).
    #[arg(long, value_name = "n", allow_hyphen_values = true)]
    pub limit: Option<String>,
    /// lexical (default, as bmad-plus ranks); bm25: BM25F over stemmed words of every script,
    /// better at finding reworded ideas; evidence: boost notes backed by current
    /// accepted-outcome receipts.
    #[arg(long, value_name = "lexical|bm25|evidence", allow_hyphen_values = true)]
    pub ranking: Option<String>,
    /// Comma-separated project paths the question is about (required with --ranking evidence).
    #[arg(
        long = "context-scope",
        value_name = "p1,p2,…",
        allow_hyphen_values = true
    )]
    pub context_scope: Option<String>,
    /// Also search the journal events moved into .bmad/memory/archive/ by `bmad-mem archive`
    /// (before the live journal's, oldest archive first).
    #[arg(long = "include-archive")]
    pub include_archive: bool,
}

/// How results are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ranking {
    Lexical,
    Evidence,
    /// Opt-in BM25F ([`crate::bm25`]).
    Bm25,
}

impl Ranking {
    fn name(self) -> &'static str {
        match self {
            Ranking::Lexical => "lexical",
            Ranking::Evidence => "evidence",
            Ranking::Bm25 => "bm25",
        }
    }
}

/// The validated request.
#[derive(Debug, Clone)]
pub struct Request {
    pub query: String,
    pub portfolio: bool,
    pub ranking: Ranking,
    pub limit: usize,
    /// Whether archived journal events are candidates too.
    pub include_archive: bool,
}

impl Request {
    /// docs §5's checks, in order.
    ///
    /// # Errors
    /// The documented message of the first failing check.
    pub fn parse(args: &RecallArgs) -> Result<Self> {
        let query = args.query.join(" ");
        if trim(&query).is_empty() {
            return Err(Error::refused("recall: query must be a non-empty string"));
        }
        let portfolio = match args.scope.as_deref() {
            None | Some("project") => false,
            Some("portfolio") => true,
            Some(other) => {
                return Err(Error::refused(format!(
                    "invalid value for --scope: {other}"
                )));
            }
        };
        let ranking = match args.ranking.as_deref() {
            None | Some("lexical") => Ranking::Lexical,
            Some("evidence") => Ranking::Evidence,
            Some("bm25") => Ranking::Bm25,
            // The message predates bm25 and is kept word for word.
            Some(_) => {
                return Err(Error::refused(
                    "recall: ranking must be lexical or evidence",
                ));
            }
        };
        if ranking == Ranking::Evidence && portfolio {
            return Err(Error::refused(
                "Evidence ranking supports project-local lexical recall only.",
            ));
        }
        let limit = match args.limit.as_deref() {
            None => DEFAULT_LIMIT,
            Some(text) => parse_limit(text)
                .ok_or_else(|| Error::refused(format!("invalid value for --limit: {text}")))?,
        };
        // Options that would be silently ignored are refused (bmad-plus ignores them), after
        // the checks whose messages bmad-plus pins. `--scope portfolio` alone stays accepted.
        if args.portfolio.is_some() && !portfolio {
            return Err(Error::refused(
                "--portfolio only applies with --scope portfolio",
            ));
        }
        if args.context_scope.is_some() && ranking != Ranking::Evidence {
            return Err(Error::refused(
                "--context-scope only applies with --ranking evidence",
            ));
        }
        if args.include_archive && ranking == Ranking::Bm25 {
            return Err(Error::refused(
                "--include-archive applies with --ranking lexical or evidence",
            ));
        }
        Ok(Self {
            query,
            portfolio,
            ranking,
            limit,
            include_archive: args.include_archive,
        })
    }
}

/// A positive integer (`+` allowed, surrounding whitespace allowed), saturating.
fn parse_limit(text: &str) -> Option<usize> {
    let t = trim(text);
    let digits = t.strip_prefix('+').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = digits.trim_start_matches('0').parse::<usize>().unwrap_or(
        if digits.bytes().all(|b| b == b'0') {
            0
        } else {
            usize::MAX
        },
    );
    (n > 0).then_some(n)
}

/// The query's tokens, de-duplicated, first occurrence kept.
#[must_use]
pub fn query_tokens(query: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    tokens(query)
        .into_iter()
        .filter(|t| seen.insert(t.clone()))
        .collect()
}

/// docs §5's lexical score of the text made of `parts` (concatenated) against query tokens.
#[must_use]
pub fn score(query: &[String], parts: &[&str]) -> f64 {
    score_with(&QueryCounter::new(query), parts)
}

/// [`score`] with a counter built once for many texts. Each part is tokenized on its own, so
/// `parts` must be cut where a separator is (a section's heading, `\n`, body, `\n`).
#[must_use]
pub fn score_with(counter: &QueryCounter<'_>, parts: &[&str]) -> f64 {
    let query = counter.query();
    if query.is_empty() {
        return 0.0;
    }
    counter.with_counts(|frequency| {
        let mut total = 0usize;
        for part in parts {
            // A token has two characters or more.
            if part.len() >= 2 {
                total += counter.count(part, frequency);
            }
        }
        if total == 0 {
            return 0.0;
        }
        let mut matched = 0u32;
        let mut hits = 0.0;
        for &f in &*frequency {
            if f > 0 {
                matched += 1;
                hits += 1.0 + math::ln(f64::from(f));
            }
        }
        if matched == 0 {
            return 0.0;
        }
        #[allow(clippy::cast_precision_loss)] // token counts are far below 2^53
        let (query_len, total) = (query.len() as f64, total as f64);
        let coverage = f64::from(matched) / query_len;
        hits * coverage / total.sqrt()
    })
}

/// `score` weighed by the event's age: half every 30 days; no decay when `ts` is unknown or in
/// the future.
#[must_use]
pub fn decay(score: f64, ts: Option<&Value>, now_ms: f64) -> f64 {
    let ts_ms = match ts {
        Some(Value::Number(n)) => Some(*n),
        Some(Value::String(s)) => date::parse_timestamp(s),
        _ => None,
    };
    match ts_ms {
        Some(ts) if score > 0.0 && now_ms > ts => {
            let age_days = (now_ms - ts) / MS_PER_DAY;
            score * math::pow(0.5, age_days / HALF_LIFE_DAYS)
        }
        _ => score,
    }
}

/// The searchable text of an event: the texts of its truthy `agent`, `cli`, `model`, `task`,
/// `outcome`, then the compact JSON of its signals (`{}` when falsy), joined by one space.
#[must_use]
pub fn event_text(event: &Object) -> String {
    let mut parts: Vec<String> = ["agent", "cli", "model", "task", "outcome"]
        .iter()
        .filter_map(|key| event.get(key).filter(|v| v.is_truthy()).map(Value::text))
        .collect();
    parts.push(match event.get("signals") {
        Some(signals) if signals.is_truthy() => signals.compact(),
        _ => "{}".to_owned(),
    });
    parts.join(" ")
}

/// A candidate that scored above zero.
#[derive(Debug)]
pub enum Candidate {
    /// `source` names the archive file the event was read from (`None`: the live journal).
    Event {
        event: Object,
        text: String,
        source: Option<String>,
    },
    Note(Note),
}

/// A section that scored above zero, copied out of its file's text (which is then free to be
/// dropped or reused).
#[derive(Debug, Clone)]
pub struct Note {
    pub source: &'static str,
    source_file: String,
    heading: String,
    text: String,
}

impl Note {
    pub(crate) fn new(file: &NoteFile, section: &Section<'_>) -> Self {
        Self {
            source: file.source,
            source_file: file.source_file.clone(),
            heading: section.heading.to_owned(),
            text: section.trimmed_text(),
        }
    }

    /// The note file's path, relative to the project.
    #[must_use]
    pub fn source_file(&self) -> &str {
        &self.source_file
    }

    /// The section's heading.
    #[must_use]
    pub fn heading(&self) -> &str {
        &self.heading
    }

    /// The section's full text, trimmed.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// A scored candidate.
#[derive(Debug)]
pub struct Scored {
    pub score: f64,
    pub candidate: Candidate,
}

/// A note file to search, with its name, its path relative to the project, and the folder
/// a link to it must stay in (the project, or the portfolio folder).
#[derive(Debug, Clone)]
pub struct NoteFile {
    pub source: &'static str,
    pub path: PathBuf,
    pub source_file: String,
    pub within: PathBuf,
}

/// The note files in search order, each absolute path once.
#[must_use]
pub fn note_files(ctx: &Context, portfolio: Option<&str>) -> Vec<NoteFile> {
    let mut dirs: Vec<(PathBuf, PathBuf)> = NOTE_DIRS
        .iter()
        .map(|d| (ctx.root.join(d), ctx.root.clone()))
        .collect();
    if let Some(p) = portfolio {
        let folder = resolve(&ctx.cwd, Path::new(p));
        dirs.push((folder.join("memory"), folder));
    }
    let mut seen = HashSet::new();
    let mut files = Vec::new();
    for (dir, within) in dirs {
        for source in NOTE_FILES {
            let path = resolve(&ctx.root, &dir.join(source));
            if seen.insert(path.clone()) {
                files.push(NoteFile {
                    source,
                    source_file: relative(&ctx.root, &path),
                    path,
                    within: within.clone(),
                });
            }
        }
    }
    files
}

/// Scores the events of a journal text, keeping those above zero.
///
/// Most lines of a large journal cannot match, and parsing them is most of the journal's cost,
/// so a line is first looked at as raw text: when none of the query's tokens appears in it, the
/// event's text cannot hold one either, and the line is skipped unparsed. That holds when the
/// line has no `\` escape (which could spell any character) and no query token could come from
/// re-writing a value — a number (digits, `Infinity`), `null` (what a non-finite signal
/// becomes) or `[object Object]`; for such queries every line is parsed.
pub fn score_events(text: &str, query: &[String], now_ms: f64, out: &mut impl Keep) {
    score_events_from(None, text, query, now_ms, out);
}

/// [`score_events`] for the events of `source`, an archive file's name (`None`: the live
/// journal).
pub fn score_events_from(
    source: Option<&str>,
    text: &str,
    query: &[String],
    now_ms: f64,
    out: &mut impl Keep,
) {
    let can_skip = query.iter().all(|q| {
        !q.bytes().any(|b| b.is_ascii_digit())
            && !q.contains("infinity")
            && q != "null"
            && q != "object"
    });
    let counter = QueryCounter::new(query);
    for line in journal::lines(text) {
        if can_skip && !line.contains('\\') && !counter.mentions(line) {
            continue;
        }
        let Some(event) = journal::event(line) else {
            continue;
        };
        let text = event_text(&event);
        let s = decay(score_with(&counter, &[&text]), event.get("ts"), now_ms);
        out.offer(s, || Candidate::Event {
            event,
            text,
            source: source.map(str::to_owned),
        });
    }
}

/// Scores the sections of a note file's text, keeping those above zero.
pub fn score_sections(file: &NoteFile, text: &str, query: &[String], out: &mut impl Keep) {
    let counter = QueryCounter::new(query);
    score_some_sections(file, sections(text), &counter, out);
}

/// Scores `cut`, sections of `file`'s text, keeping those above zero.
fn score_some_sections(
    file: &NoteFile,
    cut: Vec<Section<'_>>,
    counter: &QueryCounter<'_>,
    out: &mut impl Keep,
) {
    for section in cut {
        let s = score_with(counter, &section.parts());
        out.offer(s, || Candidate::Note(Note::new(file, &section)));
    }
}

/// Where scored candidates go: [`offer`](Keep::offer) is called for every candidate, in
/// candidate order, and builds it only when it is kept.
pub trait Keep {
    /// Offers the candidate `make` builds, scored `score`.
    fn offer(&mut self, score: f64, make: impl FnOnce() -> Candidate);
}

/// Every candidate above zero, in candidate order.
impl Keep for Vec<Scored> {
    fn offer(&mut self, score: f64, make: impl FnOnce() -> Candidate) {
        if score > 0.0 {
            self.push(Scored {
                score,
                candidate: make(),
            });
        }
    }
}

/// The best `limit` candidates above zero, in the order [`sort`] gives them.
///
/// The kept list is cut back to its best `limit` whenever it reaches twice `limit` (at least 64
/// candidates). A candidate offered later than another of the same score ranks below it, so
/// after a cut, one that does not beat the lowest candidate kept can never be among the best
/// and is not even built.
#[derive(Debug)]
pub struct Best {
    limit: usize,
    kept: Vec<Scored>,
    /// The score a candidate must exceed to be kept.
    floor: f64,
}

impl Best {
    /// Keeps the best `limit` candidates.
    #[must_use]
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            kept: Vec::new(),
            floor: 0.0,
        }
    }

    /// The kept candidates, best first.
    #[must_use]
    pub fn into_sorted(mut self) -> Vec<Scored> {
        self.prune();
        self.kept
    }

    fn prune(&mut self) {
        sort(&mut self.kept);
        self.kept.truncate(self.limit);
        if self.kept.len() == self.limit
            && let Some(last) = self.kept.last()
        {
            self.floor = last.score;
        }
    }
}

impl Keep for Best {
    fn offer(&mut self, score: f64, make: impl FnOnce() -> Candidate) {
        if score > self.floor {
            self.kept.push(Scored {
                score,
                candidate: make(),
            });
            if self.kept.len() >= self.limit.saturating_mul(2).max(64) {
                self.prune();
            }
        }
    }
}

/// One piece of [`lexical`]'s work.
#[derive(Debug, Clone, Copy)]
enum Job {
    /// The events of event file `.0`: archives (with `--include-archive`), then the journal.
    Events(usize),
    /// The sections of note file `.0` that [`Part`] `.1` names.
    Note(usize, Part),
}

/// Which sections of a note file a [`Job`] scores.
#[derive(Debug, Clone, Copy)]
enum Part {
    Whole,
    /// Those before the file's middle heading.
    First,
    /// Those from the file's middle heading on.
    Second,
}

/// A note file as read once for all its jobs: its text (taken back by the last job to be
/// done with it, for the next file to be read into), or the read error (taken by the first job
/// to see it, which reports it).
type SharedNote = std::result::Result<Loose<RwLock<String>>, Mutex<Option<Error>>>;

/// What [`lexical`] found: the best candidates, and a warning for each file it skipped.
#[derive(Debug)]
pub struct Found {
    pub scored: Vec<Scored>,
    pub warnings: Vec<String>,
}

/// Lexical recall: reads as bmad-plus does (invalid UTF-8 replaced; a missing file skipped),
/// within the loose reader's bounds (a FIFO, a device, a file over 64 MiB or a link leaving
/// the project is skipped with a warning), scores every candidate, and returns the best
/// `--limit` of them in the order a stable sort of all of them gives.
///
/// On a large store the work is shared by two threads: the journal, then each note file in two
/// halves cut at a section heading (read once, the first half's thread reading it), so that
/// both threads stay busy to the end. A text a job is done with gives its memory to the next
/// file to be read ([`Spare`]). Each job keeps its own best `--limit` ([`Best`]); their lists
/// are then put back in file order and sorted stably, so the result is the one a single pass
/// would give: a candidate among the best of all is among the best of its job.
///
/// # Errors
/// A directory where a file should be, or another read error (the first in file order).
pub fn lexical(ctx: &Context, request: &Request, portfolio: Option<&str>) -> Result<Found> {
    let query = query_tokens(&request.query);
    let counter = QueryCounter::new(&query);
    let events = event_files(ctx, request.include_archive)?;
    let notes = note_files(ctx, portfolio);
    let bytes: u64 = events
        .iter()
        .map(|(_, path)| path)
        .chain(notes.iter().map(|n| &n.path))
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let is_parallel = bytes >= PARALLEL_FROM_BYTES;
    // In file order: the event files, then each note file (whole, or its two halves).
    let jobs: Vec<Job> = (0..events.len())
        .map(Job::Events)
        .chain((0..notes.len()).flat_map(|i| {
            if is_parallel {
                vec![Job::Note(i, Part::First), Job::Note(i, Part::Second)]
            } else {
                vec![Job::Note(i, Part::Whole)]
            }
        }))
        .collect();
    let spare = Spare::default();
    let event_skips: Vec<OnceLock<Skip>> = events.iter().map(|_| OnceLock::new()).collect();
    let texts: Vec<OnceLock<SharedNote>> = notes.iter().map(|_| OnceLock::new()).collect();
    let jobs_left: Vec<AtomicUsize> = notes
        .iter()
        .map(|_| AtomicUsize::new(if is_parallel { 2 } else { 1 }))
        .collect();
    let shared_text = |i: usize| {
        texts[i].get_or_init(|| match spare.read(&notes[i].path, &notes[i].within) {
            Ok(text) => Ok(text.map(RwLock::new)),
            Err(e) => Err(Mutex::new(Some(e))),
        })
    };
    let run = |job: Job| -> Result<Vec<Scored>> {
        let mut scored = Best::new(request.limit);
        match job {
            Job::Events(i) => match spare.read(&events[i].1, &ctx.root)? {
                Loose::Read(text) => {
                    score_events_from(
                        events[i].0.as_deref(),
                        &text,
                        &query,
                        ctx.now.ms,
                        &mut scored,
                    );
                    spare.give_back(text);
                }
                Loose::Missing => {}
                Loose::Skipped(skip) => {
                    let _ = event_skips[i].set(skip);
                }
            },
            Job::Note(i, part) => match shared_text(i) {
                Ok(Loose::Missing | Loose::Skipped(_)) => {}
                Ok(Loose::Read(shared)) => {
                    {
                        let text = shared.read().unwrap_or_else(PoisonError::into_inner);
                        let split = || split_point(&text, text.len() / 2);
                        let cut = match part {
                            Part::Whole => sections(&text),
                            Part::First => sections_before(&text, split()),
                            Part::Second => sections(&text[split()..]),
                        };
                        score_some_sections(&notes[i], cut, &counter, &mut scored);
                    }
                    if jobs_left[i].fetch_sub(1, Ordering::AcqRel) == 1 {
                        let mut text = shared.write().unwrap_or_else(PoisonError::into_inner);
                        spare.give_back(std::mem::take(&mut *text));
                    }
                }
                Err(error) => {
                    if let Some(e) = error.lock().unwrap_or_else(PoisonError::into_inner).take() {
                        return Err(e);
                    }
                }
            },
        }
        Ok(scored.into_sorted())
    };
    let mut scored = Vec::new();
    for result in run_all(&jobs, is_parallel, run) {
        scored.extend(result?);
    }
    sort(&mut scored);
    scored.truncate(request.limit);
    Ok(Found {
        scored,
        warnings: skip_warnings(&events, &event_skips, &notes, &texts),
    })
}

/// A warning for each file [`lexical`] skipped, in file order: event files (the live journal
/// named as such, an archive by its file name), then note files.
fn skip_warnings(
    events: &[(Option<String>, PathBuf)],
    event_skips: &[OnceLock<Skip>],
    notes: &[NoteFile],
    texts: &[OnceLock<SharedNote>],
) -> Vec<String> {
    let event_warnings = events
        .iter()
        .zip(event_skips)
        .filter_map(|((source, _), skip)| {
            skip.get()
                .map(|skip| skip.warning(source.as_deref().unwrap_or(JOURNAL)))
        });
    let note_warnings = notes
        .iter()
        .zip(texts)
        .filter_map(|(note, text)| match text.get() {
            Some(Ok(Loose::Skipped(skip))) => Some(skip.warning(&note.source_file)),
            _ => None,
        });
    event_warnings.chain(note_warnings).collect()
}

/// The files whose events are candidates, in candidate order: with `include_archive`, the
/// journal archives (oldest first, each with its name), then the live journal.
///
/// # Errors
/// An archive folder that cannot be listed.
fn event_files(ctx: &Context, include_archive: bool) -> Result<Vec<(Option<String>, PathBuf)>> {
    let mut files = Vec::new();
    if include_archive {
        let dir = ctx.root.join(ARCHIVE_DIR);
        let names =
            archive_names(&dir, Store::Journal).map_err(|e| Error::io("cannot list", &dir, e))?;
        files.extend(names.into_iter().map(|name| {
            let path = dir.join(&name);
            (Some(name), path)
        }));
    }
    files.push((None, ctx.root.join(JOURNAL)));
    Ok(files)
}

/// `run` of every job, in job order: on two threads, each taking the next job left, when
/// `parallel`.
fn run_all<T: Send>(jobs: &[Job], parallel: bool, run: impl Fn(Job) -> T + Sync) -> Vec<T> {
    if !parallel {
        return jobs.iter().map(|&job| run(job)).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(&job) = jobs.get(index) else {
                return done;
            };
            done.push((index, run(job)));
        }
    };
    let mut done = std::thread::scope(|scope| {
        let other = scope.spawn(work);
        let mut done = work();
        done.extend(
            other
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
        );
        done
    });
    done.sort_unstable_by_key(|&(index, _)| index);
    done.into_iter().map(|(_, result)| result).collect()
}

/// Buffers of texts read and done with, for the next file to be read into.
#[derive(Debug, Default)]
struct Spare(Mutex<Vec<Vec<u8>>>);

impl Spare {
    /// [`read_loose_into`] a spare buffer, or a new one.
    fn read(&self, path: &Path, within: &Path) -> Result<Loose<String>> {
        let buffer = self.0.lock().unwrap_or_else(PoisonError::into_inner).pop();
        read_loose_into(path, within, buffer.unwrap_or_default())
    }

    /// Keeps `text`'s memory for the next read.
    fn give_back(&self, text: String) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(text.into_bytes());
    }
}

/// Highest score first; ties keep candidate order (the sort is stable).
pub fn sort(scored: &mut [Scored]) {
    scored.sort_by(|a, b| b.score.total_cmp(&a.score));
}

/// Runs a recall.
///
/// # Errors
/// Validation messages, read errors, and for evidence ranking the receipt store's errors.
pub fn run(args: &RecallArgs, ctx: &Context) -> Result<RecallReport> {
    let request = Request::parse(args)?;
    let portfolio = if request.portfolio {
        args.portfolio.as_deref()
    } else {
        None
    };
    if let Some(p) = portfolio {
        let dir = resolve(&ctx.cwd, Path::new(p));
        if !dir.is_dir() {
            return Err(Error::refused(format!(
                "--portfolio is not an existing folder: {}",
                dir.display()
            )));
        }
    }
    let (results, warnings) = match request.ranking {
        Ranking::Lexical => {
            let found = lexical(ctx, &request, portfolio)?;
            let results = found
                .scored
                .into_iter()
                .map(|s| entry(s.score, s.candidate))
                .collect();
            (results, found.warnings)
        }
        Ranking::Evidence => (
            crate::evidence::recall(ctx, &request, args.context_scope.as_deref())?,
            Vec::new(),
        ),
        Ranking::Bm25 => crate::bm25::recall(ctx, &request, portfolio)?,
    };
    Ok(RecallReport {
        query: request.query,
        scope: if request.portfolio {
            "portfolio"
        } else {
            "project"
        },
        ranking: request.ranking,
        results,
        warnings,
    })
}

/// The output entry of a candidate, keys in docs §5's order.
#[must_use]
pub fn entry(score: f64, candidate: Candidate) -> Object {
    match candidate {
        Candidate::Event {
            event,
            text,
            source,
        } => {
            let reference = match event.get("id") {
                Some(id) if id.is_truthy() => id.clone(),
                _ => Value::String(
                    event
                        .get("ts")
                        .map_or_else(|| "undefined".to_owned(), Value::text),
                ),
            };
            Object::new()
                .with("score", score)
                .with("kind", "event")
                .with("source", source.as_deref().unwrap_or("journal.ndjson"))
                .with("ref", reference)
                .with("text", text)
                .with("event", event)
        }
        Candidate::Note(note) => Object::new()
            .with("score", score)
            .with("kind", "note")
            .with("source", note.source)
            .with("sourceFile", note.source_file())
            .with("ref", note.heading)
            .with("text", note.text),
    }
}

/// The results of a recall.
#[derive(Debug)]
pub struct RecallReport {
    pub query: String,
    pub scope: &'static str,
    pub ranking: Ranking,
    pub results: Vec<Object>,
    /// One line for each file skipped; under `--json`, a last key present only when non-empty,
    /// so that an ordinary result keeps bmad-plus's bytes.
    pub warnings: Vec<String>,
}

impl Report for RecallReport {
    fn to_json(&self) -> Value {
        #[allow(clippy::cast_precision_loss)] // a result count is far below 2^53
        let count = self.results.len() as f64;
        let mut result = Object::new()
            .with("query", self.query.as_str())
            .with("scope", self.scope)
            .with("ranking", self.ranking.name())
            .with("count", count)
            .with(
                "results",
                self.results
                    .iter()
                    .cloned()
                    .map(Value::Object)
                    .collect::<Vec<_>>(),
            );
        if !self.warnings.is_empty() {
            result = result.with(
                "warnings",
                self.warnings.iter().map(Value::from).collect::<Vec<_>>(),
            );
        }
        Value::Object(result)
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn render_human(&self) -> String {
        if self.results.is_empty() {
            return format!(
                "mem recall: no matches for \"{}\" (scope: {})\n",
                self.query, self.scope
            );
        }
        let mut out = format!(
            "mem recall: {} match(es) for \"{}\" (scope: {})\n",
            self.results.len(),
            self.query,
            self.scope
        );
        for (i, result) in self.results.iter().enumerate() {
            let text_of = |key: &str| result.get(key).map(Value::text).unwrap_or_default();
            let score = result.get("score").and_then(Value::as_f64).unwrap_or(0.0);
            let label = if text_of("kind") == "note" {
                format!("note {} § {}", text_of("source"), text_of("ref"))
            } else {
                format!("event {}#{}", text_of("source"), text_of("ref"))
            };
            let _ = write!(
                out,
                "  {}. [{}] {}\n     {}\n",
                i + 1,
                to_fixed(score, 3),
                label,
                truncate(&text_of("text"))
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[track_caller]
    fn case(query: &str, text: &str, expected: f64) {
        let actual = score(&query_tokens(query), &[text]);
        assert_eq!(
            actual.to_bits(),
            expected.to_bits(),
            "{query:?} in {text:?}: {actual} != {expected}"
        );
    }

    #[test]
    fn sorting_puts_higher_scores_first_and_keeps_ties_in_candidate_order() {
        let event = |score: f64, text: &str| Scored {
            score,
            candidate: Candidate::Event {
                event: Object::new(),
                text: text.to_owned(),
                source: None,
            },
        };
        let mut scored = vec![
            event(1.0, "a"),
            event(2.0, "b"),
            event(1.0, "c"),
            event(0.5, "d"),
            event(2.0, "e"),
            event(1.0, "f"),
        ];
        sort(&mut scored);
        let order: Vec<&str> = scored
            .iter()
            .map(|s| match &s.candidate {
                Candidate::Event { text, .. } => text.as_str(),
                Candidate::Note(_) => unreachable!(),
            })
            .collect();
        assert_eq!(order, ["b", "e", "a", "c", "f", "d"]);
    }

    #[test]
    #[allow(
        clippy::approx_constant,
        reason = "2/sqrt(2) is one ulp below SQRT_2, and that is the point"
    )]
    fn score_follows_the_formula_to_the_bit() {
        // Expected values printed by node running the documented formula on the same strings.
        case("auth", "auth", 1.0);
        case("auth strategy", "Auth strategy", 1.414213562373095);
        case("auth strategy", "auth auth auth other", 0.5246530721670274);
        case("auth", "", 0.0);
        case("a", "a b c", 0.0);
        case("zzz", "auth", 0.0);
        case("École", "école des ÉCOLES", 0.5773502691896258);
        case(
            "rate_limit v2",
            "RATE_LIMIT rate-limit v2 v2",
            1.3465735902799727,
        );
        case("x1 x1 x1", "x1", 1.0);
        case("42", "42 is 42", 0.9775389804739404);
        case(
            "token bucket limiter",
            "Token bucket: the limiter refills tokens; token TOKEN token bucket limiter limiter x y",
            1.7834505210096925,
        );
    }

    #[test]
    fn query_tokens_are_deduplicated_in_order() {
        assert_eq!(query_tokens("B a b A c"), q(&[]));
        assert_eq!(
            query_tokens("Beta alpha beta ALPHA gamma"),
            q(&["beta", "alpha", "gamma"])
        );
    }

    #[test]
    fn decay_halves_every_thirty_days_and_only_for_the_past() {
        let now = 1_792_315_800_000.0;
        let month = 30.0 * MS_PER_DAY;
        let ts = |ms: f64| Value::String(date::to_iso_string(ms));
        assert_eq!(decay(1.0, Some(&ts(now - month)), now), 0.5);
        assert_eq!(
            decay(1.0, Some(&Value::Number(now - 2.0 * month)), now),
            0.25
        );
        assert_eq!(decay(1.0, Some(&ts(now + month)), now), 1.0);
        assert_eq!(decay(1.0, Some(&ts(now)), now), 1.0);
        assert_eq!(
            decay(1.0, Some(&Value::from("2026-10-18 09:30:00")), now),
            1.0
        );
        assert_eq!(decay(1.0, Some(&Value::Bool(true)), now), 1.0);
        assert_eq!(decay(1.0, None, now), 1.0);
        let day = decay(1.0, Some(&ts(now - MS_PER_DAY)), now);
        assert_eq!(day, math::pow(0.5, MS_PER_DAY / MS_PER_DAY / 30.0));
    }

    #[test]
    fn event_text_joins_truthy_fields_and_signals() {
        let event = crate::js::json::parse(
            r#"{"agent":"forge","cli":null,"model":"","task":"Add login","outcome":0,"signals":{"ci":"pass"}}"#,
        )
        .unwrap();
        assert_eq!(
            event_text(event.as_object().unwrap()),
            r#"forge Add login {"ci":"pass"}"#
        );
        let bare =
            crate::js::json::parse(r#"{"agent":["a",["b"]],"outcome":7,"signals":0}"#).unwrap();
        assert_eq!(event_text(bare.as_object().unwrap()), "a,b 7 {}");
    }

    #[test]
    fn the_journal_prefilter_never_drops_a_match() {
        // Each line's event text holds a token its raw text does not: a re-written number, an
        // object's text, a non-finite signal written back as null, an escaped letter.
        let journal = [
            r#"{"agent":1e2,"task":"x"}"#,
            r#"{"agent":{"a":1},"task":"y"}"#,
            r#"{"agent":"forge","signals":{"eval":1e400}}"#,
            r#"{"agent":"forge","task":"auth"}"#,
            r#"{"agent":"forge","task":"deploy"}"#,
        ]
        .join("\n");
        let found = |query: &str| {
            let mut out = Vec::new();
            score_events(&journal, &query_tokens(query), 0.0, &mut out);
            out.len()
        };
        assert_eq!(found("100"), 1);
        assert_eq!(found("object"), 1);
        assert_eq!(found("null"), 1);
        assert_eq!(found("auth"), 1);
        assert_eq!(found("deploy"), 1);
        assert_eq!(found("forge"), 3);
        assert_eq!(found("missing"), 0);
    }

    /// Candidates named by their place in candidate order.
    fn numbered(scores: &[u8]) -> Vec<(f64, String)> {
        scores
            .iter()
            .enumerate()
            .map(|(i, &s)| (f64::from(s % 8) / 2.0, i.to_string()))
            .collect()
    }

    fn names(scored: &[Scored]) -> Vec<String> {
        scored
            .iter()
            .map(|s| match &s.candidate {
                Candidate::Event { text, .. } => text.clone(),
                Candidate::Note(_) => unreachable!(),
            })
            .collect()
    }

    fn offer_all(out: &mut impl Keep, candidates: &[(f64, String)]) {
        for (score, text) in candidates {
            out.offer(*score, || Candidate::Event {
                event: Object::new(),
                text: text.clone(),
                source: None,
            });
        }
    }

    proptest::proptest! {
        /// Few distinct scores, so most candidates tie: the order of ties is what is tested.
        #[test]
        fn the_best_of_each_part_merged_are_the_best_of_all(
            scores in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
            limit in 1usize..80,
            cuts in proptest::collection::vec(proptest::prelude::any::<u16>(), 0..4),
        ) {
            let candidates = numbered(&scores);
            let mut all = Vec::new();
            offer_all(&mut all, &candidates);
            sort(&mut all);
            all.truncate(limit);

            let mut bounds: Vec<usize> = cuts.iter().map(|&c| usize::from(c) % (candidates.len() + 1)).collect();
            bounds.extend([0, candidates.len()]);
            bounds.sort_unstable();
            let mut merged = Vec::new();
            for pair in bounds.windows(2) {
                let mut best = Best::new(limit);
                offer_all(&mut best, &candidates[pair[0]..pair[1]]);
                merged.extend(best.into_sorted());
            }
            sort(&mut merged);
            merged.truncate(limit);
            proptest::prop_assert_eq!(names(&merged), names(&all));
        }
    }

    #[test]
    fn limit_must_be_a_positive_integer() {
        assert_eq!(parse_limit("3"), Some(3));
        assert_eq!(parse_limit(" +12 "), Some(12));
        assert_eq!(parse_limit("99999999999999999999999"), Some(usize::MAX));
        for bad in ["0", "-3", "x", "", "1.5", "1e2", "000"] {
            assert_eq!(parse_limit(bad), None, "{bad:?}");
        }
    }
}
