//! `propose`: an agent records a candidate entry, `.bmad/memory/candidates/<id>.md`, for a
//! person to admit or refuse.
//!
//! Everything is checked before the writer lock is taken (nothing is created on a refusal): a
//! one-line title with a topic, content of at most 2,000 characters that opens no `###`
//! section, no secret in any part, no evidence or `--from` file that names a secret file. Then,
//! under the lock, [`Checks`]: a title that is a refused topic's, or an existing entry's of that
//! type (compared without date, case, punctuation and hyphens), is refused; a near match is a
//! warning. A topic still pending is not an error — the new candidate takes the next free id
//! (`…-2`, `…-3`), so two agents proposing at once both keep their text. The name is claimed
//! with a hard link of a fully written temporary file, so a candidate file is whole or absent.
//! [`Writer`] does the part under the lock for `propose` and `import` alike.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, ErrorKind, Read};
use std::path::Path;

use crate::actions::secrets;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::path::resolve;
use crate::js::text::{collapse_whitespace, trim};
use crate::messages;
use crate::output::Report;
use crate::store::confined::{self, Dir};
use crate::store::layout::REGISTRY_CAP;
use crate::store::lock::WriterLock;
use crate::store::temporaries;

use crate::actions::entries::candidate::{
    CANDIDATES_DIR, Candidate, Kind, candidate_path, candidates_dir, file_name, is_valid_id,
    marker, normalize_title, pending, slug, split_list, title_key,
};
use crate::actions::entries::checks::Checks;
use crate::actions::entries::project;
use crate::actions::entries::views;

/// How many numbered ids are tried for one topic and day.
const MAX_SUFFIX: usize = 10_000;

/// Record a candidate decision, lesson or pattern for a person to admit (never an entry by itself).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ProposeArgs {
    /// What the candidate records: decision, lesson or pattern (required).
    #[arg(
        long = "type",
        value_name = "decision|lesson|pattern",
        allow_hyphen_values = true
    )]
    pub kind: Option<String>,
    /// The entry's title, which becomes its `###` heading (required; one line).
    #[arg(long, value_name = "text", allow_hyphen_values = true)]
    pub title: Option<String>,
    /// The content (at most 2,000 characters).
    #[arg(
        long,
        value_name = "text",
        allow_hyphen_values = true,
        conflicts_with = "from"
    )]
    pub body: Option<String>,
    /// Read the content from a file, or - for standard input.
    #[arg(long, value_name = "file|-", allow_hyphen_values = true)]
    pub from: Option<String>,
    /// When the entry applies (joined to one line).
    #[arg(long = "applies-when", value_name = "text", allow_hyphen_values = true)]
    pub applies_when: Option<String>,
    /// Evidence: receipt or event ids, or paths, separated by commas.
    #[arg(long, value_name = "ids", allow_hyphen_values = true)]
    pub evidence: Option<String>,
    /// Who proposes it (an agent's name).
    #[arg(long, value_name = "who", allow_hyphen_values = true)]
    pub source: Option<String>,
    /// Answer with the pending candidate that says exactly the same (same type, title, content,
    /// context, evidence and source) instead of writing a second one: the MCP tool's rule.
    #[arg(skip)]
    pub reuse_pending: bool,
}

/// A candidate written, with the warnings of its near matches.
#[derive(Debug, Clone)]
pub(crate) struct Proposed {
    pub candidate: Candidate,
    pub sha256: String,
    /// A near-duplicate entry, an entry or a refused topic whose title says the same thing.
    pub warnings: Vec<String>,
}

impl Proposed {
    /// The `--json` object of one candidate written.
    #[must_use]
    pub(crate) fn to_object(&self) -> Object {
        Object::new()
            .with("id", self.candidate.id.as_str())
            .with("type", self.candidate.kind.as_str())
            .with("title", self.candidate.title.as_str())
            .with("file", candidate_path(&self.candidate.id))
            .with("sha256", self.sha256.as_str())
            .with(
                "warnings",
                self.warnings.iter().map(Value::from).collect::<Vec<_>>(),
            )
    }
}

/// What to do when the topic is already pending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WhenPending {
    /// Write under the next free id (`propose`).
    NextId,
    /// Write nothing (`import`: proposing the same item again is a duplicate).
    Skip,
}

/// Why a candidate was not written.
#[derive(Debug)]
pub(crate) enum NotWritten {
    /// Its topic is already pending ([`WhenPending::Skip`]), refused, or an entry.
    Duplicate(String),
}

/// Runs `propose`, reading `--from -` from standard input.
///
/// # Errors
/// Every refusal named in the module documentation; confinement and I/O errors.
pub(crate) fn run(args: &ProposeArgs, ctx: &Context) -> Result<Proposed> {
    run_with_input(args, ctx, &mut io::stdin().lock())
}

/// [`run`] with standard input given.
///
/// # Errors
/// As [`run`].
pub(crate) fn run_with_input(
    args: &ProposeArgs,
    ctx: &Context,
    stdin: &mut dyn Read,
) -> Result<Proposed> {
    let kind = match args.kind.as_deref() {
        None => return Err(Error::refused(messages::TYPE_REQUIRED)),
        Some(text) => {
            Kind::parse(trim(text)).ok_or_else(|| Error::refused(messages::TYPE_UNKNOWN))?
        }
    };
    let title = normalize_title(args.title.as_deref().unwrap_or_default());
    if title.is_empty() {
        return Err(Error::refused(messages::TITLE_REQUIRED));
    }
    let content = match (&args.body, &args.from) {
        (Some(body), _) => body.clone(),
        (None, Some(from)) => read_from(from, &ctx.cwd, stdin)?,
        (None, None) => {
            return Err(Error::refused(messages::CONTENT_REQUIRED));
        }
    };
    let candidate = Drafter::new(ctx).draft(
        kind,
        &title,
        &content,
        args.applies_when.as_deref().unwrap_or_default(),
        &split_list(args.evidence.as_deref().unwrap_or_default()),
        args.source.as_deref().unwrap_or_default(),
    );
    candidate.check(ctx)?;
    let lock = WriterLock::acquire(&ctx.root)?;
    if args.reuse_pending
        && let Some(same) = identical_pending(ctx, &candidate)?
    {
        return Ok(same);
    }
    let mut writer = Writer::new(ctx, WhenPending::NextId)?;
    match writer.write(candidate)? {
        Ok(proposed) => {
            writer.finish(&lock)?;
            Ok(proposed)
        }
        Err(NotWritten::Duplicate(why)) => Err(Error::refused(why)),
    }
}

/// Drafts the candidates of one run: the project's name their ids start with
/// ([`project::id_prefix`]) is found once, however many candidates are drafted.
pub(crate) struct Drafter<'a> {
    ctx: &'a Context,
    project: String,
}

impl<'a> Drafter<'a> {
    #[must_use]
    pub(crate) fn new(ctx: &'a Context) -> Self {
        Self {
            ctx,
            project: project::id_prefix(ctx),
        }
    }

    /// A candidate from its parts, normalized as the file keeps them (content trimmed with line
    /// ends made `\n`, context one line, source trimmed or `unknown`); its id is the base id of
    /// its topic, made unique when written.
    #[must_use]
    pub(crate) fn draft(
        &self,
        kind: Kind,
        title: &str,
        content: &str,
        applies_when: &str,
        evidence: &[String],
        source: &str,
    ) -> Candidate {
        let source = trim(source);
        let title = normalize_title(title);
        Candidate {
            id: format!(
                "{}-{}-{}-{}",
                self.project,
                kind.as_str(),
                compact_day(self.ctx),
                slug(&title)
            ),
            kind,
            source: if source.is_empty() { "unknown" } else { source }.to_owned(),
            created: self.ctx.now.iso.clone(),
            context: collapse_whitespace(applies_when),
            content: trim(&content.replace("\r\n", "\n")).to_owned(),
            evidence: evidence.to_vec(),
            title,
        }
    }
}

/// Today as eight digits (`20261018`), as a candidate id carries it.
fn compact_day(ctx: &Context) -> String {
    ctx.now
        .iso
        .chars()
        .filter(char::is_ascii_digit)
        .take(8)
        .collect()
}

/// How many candidates are written before they are synced together and linked into place.
const BATCH: usize = 256;

/// Writes checked candidates under the held writer lock, one or thousands: the views' sources,
/// the refused topics and the entries of each type are read once, not once per candidate; the
/// candidates are written in batches (each file written under a temporary name, the batch
/// synced together, then each linked under its name, so that a candidate file is whole or
/// absent), and the views rebuilt once, by [`Writer::finish`].
pub(crate) struct Writer<'a> {
    ctx: &'a Context,
    checks: Checks,
    when_pending: WhenPending,
    /// The title keys of the pending candidates ([`WhenPending::Skip`] only).
    pending: HashSet<String>,
    dir: Option<Dir>,
    /// Candidates written under temporary names: (temporary name, file, name).
    batch: Vec<(OsString, File, OsString)>,
    /// The names the batch will take.
    reserved: HashSet<OsString>,
    /// Whether a candidate was written (the views then need rebuilding).
    wrote: bool,
}

impl<'a> Writer<'a> {
    /// Reads what the candidates are checked against.
    ///
    /// # Errors
    /// A source of the views, or `refused.md`, that the readers refuse: the views are rebuilt
    /// after the writes, so their sources must be readable before any.
    pub(crate) fn new(ctx: &'a Context, when_pending: WhenPending) -> Result<Self> {
        views::expected(ctx)?;
        let pending = match when_pending {
            WhenPending::NextId => HashSet::new(),
            WhenPending::Skip => pending(ctx)?
                .0
                .iter()
                .map(|(c, _)| title_key(&c.title))
                .collect(),
        };
        Ok(Self {
            ctx,
            checks: Checks::read(ctx)?,
            when_pending,
            pending,
            dir: None,
            batch: Vec::new(),
            reserved: HashSet::new(),
            wrote: false,
        })
    }

    /// Writes one checked candidate: refused topics and existing entries are refused; a pending
    /// topic takes the next free id or is skipped, as the writer was told. The file takes its
    /// name when its batch is flushed ([`Writer::finish`] flushes the last one).
    ///
    /// # Errors
    /// A note file of the candidate's type that cannot be read as a regular file; confinement
    /// and I/O errors.
    pub(crate) fn write(
        &mut self,
        mut candidate: Candidate,
    ) -> Result<Result<Proposed, NotWritten>> {
        let ctx = self.ctx;
        let mark = marker(&candidate.id, &"0".repeat(64));
        let day = ctx.now.iso.get(..10).unwrap_or(&ctx.now.iso);
        let warnings = match self
            .checks
            .check(ctx, &candidate, (&mark, &candidate.source, day))?
        {
            Ok(warnings) => warnings,
            Err(conflict) => return Ok(Err(NotWritten::Duplicate(conflict.message(&candidate)))),
        };
        let key = title_key(&candidate.title);
        if self.when_pending == WhenPending::Skip && !self.pending.insert(key) {
            return Ok(Err(NotWritten::Duplicate(messages::topic_pending(
                &candidate.topic(),
            ))));
        }
        self.open_dir(ctx)?;
        let Some(dir) = &self.dir else {
            return Err(Error::io(
                "cannot create",
                &ctx.root.join(CANDIDATES_DIR),
                ErrorKind::NotFound.into(),
            ));
        };
        let base = candidate.id.clone();
        for n in 1..=MAX_SUFFIX {
            candidate.id = if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            let name = file_name(&candidate.id);
            if self.reserved.contains(&name)
                || dir
                    .lstat(&name)
                    .map_err(|e| Error::io("cannot inspect", &dir.path().join(&name), e))?
                    .is_some()
            {
                continue;
            }
            let text = candidate.render();
            let (tmp, file) = dir.write_temp_unsynced(&name, text.as_bytes())?;
            self.reserved.insert(name.clone());
            self.batch.push((tmp, file, name));
            self.wrote = true;
            if self.batch.len() >= BATCH {
                self.flush()?;
            }
            let sha256 = crate::js::json::sha256_hex(text.as_bytes());
            return Ok(Ok(Proposed {
                candidate,
                sha256,
                warnings,
            }));
        }
        Err(Error::refused(messages::no_free_candidate_id(&base)))
    }

    /// Opens (and makes) the candidates folder at the first write, and sweeps it of dead
    /// writers' temporary files.
    fn open_dir(&mut self, ctx: &Context) -> Result<()> {
        if self.dir.is_none() {
            let Some(dir) = candidates_dir(ctx, true)? else {
                return Ok(());
            };
            // Under the writer lock every temporary file here belongs to a writer that died.
            temporaries::remove_dead_temporaries(&dir, |stem| {
                stem.strip_suffix(".md").is_some_and(is_valid_id)
            });
            self.dir = Some(dir);
        }
        Ok(())
    }

    /// Syncs the batch's files together, then links each under its name (refused when the
    /// name was taken meanwhile: a name is claimed, never overwritten) and removes its
    /// temporary name. On a failure every temporary file left is removed.
    fn flush(&mut self) -> Result<()> {
        let batch = std::mem::take(&mut self.batch);
        self.reserved.clear();
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        let files: Vec<&File> = batch.iter().map(|(_, file, _)| file).collect();
        let mut result =
            confined::sync_files(&files).map_err(|e| Error::io("cannot sync", dir.path(), e));
        for (tmp, file, name) in batch {
            drop(file);
            if result.is_ok() {
                result = dir
                    .hard_link(&tmp, &name)
                    .map_err(|e| Error::io("cannot create", &dir.path().join(&name), e));
            }
            let _ = dir.remove(&tmp);
        }
        result
    }

    /// Once a candidate was written: flushes the last batch, syncs the candidates folder (the
    /// new names are durable) and rebuilds the views, once for every candidate written.
    ///
    /// # Errors
    /// As [`views::rebuild`]; an I/O error naming the folder or a candidate.
    pub(crate) fn finish(mut self, lock: &WriterLock) -> Result<()> {
        if !self.wrote {
            return Ok(());
        }
        let flushed = self.flush();
        if let Some(dir) = &self.dir {
            dir.sync()
                .map_err(|e| Error::io("cannot sync", dir.path(), e))?;
        }
        // The views follow what stands, even after a failed batch.
        views::rebuild(self.ctx, lock)?;
        flushed
    }
}

impl Drop for Writer<'_> {
    /// A batch never flushed (an error on the way) leaves no temporary file.
    fn drop(&mut self) {
        if let Some(dir) = &self.dir {
            for (tmp, _, _) in self.batch.drain(..) {
                let _ = dir.remove(&tmp);
            }
        }
    }
}

/// The pending candidate that says exactly what `candidate` says, if any (its id and creation
/// time aside).
///
/// # Errors
/// A candidates folder that cannot be read.
fn identical_pending(ctx: &Context, candidate: &Candidate) -> Result<Option<Proposed>> {
    let (pending, _) = pending(ctx)?;
    Ok(pending
        .into_iter()
        .find(|(c, _)| {
            c.kind == candidate.kind
                && c.title == candidate.title
                && c.content == candidate.content
                && c.context == candidate.context
                && c.evidence == candidate.evidence
                && c.source == candidate.source
        })
        .map(|(candidate, sha256)| Proposed {
            candidate,
            sha256,
            warnings: Vec::new(),
        }))
}

/// Reads `--from`: a file relative to the current directory, or standard input for `-`; a file
/// whose name says it holds secrets is refused unread.
fn read_from(from: &str, cwd: &Path, stdin: &mut dyn Read) -> Result<String> {
    let mut bytes = Vec::new();
    let limit = REGISTRY_CAP + 1;
    if from == "-" {
        stdin
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io("cannot read", Path::new("<stdin>"), e))?;
    } else {
        if let Some(what) = secrets::secret_file(from) {
            return Err(Error::refused(messages::from_names_secret(from, what)));
        }
        let path = resolve(cwd, Path::new(from));
        let file =
            std::fs::File::open(&path).map_err(|e| Error::io("cannot read --from", &path, e))?;
        file.take(limit)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io("cannot read --from", &path, e))?;
    }
    if bytes.len() as u64 > REGISTRY_CAP {
        return Err(Error::refused(messages::FROM_TOO_LARGE));
    }
    String::from_utf8(bytes).map_err(|_| Error::refused(messages::FROM_NOT_UTF8))
}

impl Report for Proposed {
    fn to_json(&self) -> Value {
        Value::Object(self.to_object())
    }

    fn render_human(&self) -> String {
        let id = &self.candidate.id;
        format!(
            "mem propose: candidate {id} written to {}\n  {} \"{}\"\n  sha256 {}\n  a person admits it with: bmad-mem admit {id} --expect {}\n",
            candidate_path(id),
            self.candidate.kind.as_str(),
            self.candidate.title,
            self.sha256,
            self.sha256
        )
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn written(&self) -> Option<String> {
        Some(format!("candidate {} written", self.candidate.id))
    }
}
