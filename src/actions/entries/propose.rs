//! `propose`: an agent records a candidate entry, `.bmad/memory/candidates/<id>.md`, for a
//! person to admit or refuse.
//!
//! Everything is checked before the writer lock is taken (nothing is created on a refusal): a
//! one-line title with a topic, content of at most 2,000 characters that opens no `###`
//! section, no secret in any part, no evidence or `--from` file that names a secret file. Then,
//! under the lock: a refused topic, or one that is already an entry of that type, is refused;
//! a topic still pending is not an error — the new candidate takes the next free id (`…-2`,
//! `…-3`), so two agents proposing at once both keep their text. The name is claimed with a
//! hard link of a fully written temporary file, so a candidate file is whole or absent.

use std::io::{self, ErrorKind, Read};
use std::path::Path;

use crate::actions::secrets;
use crate::context::Context;
use crate::context::folder_name;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::path::resolve;
use crate::js::text::{collapse_whitespace, trim};
use crate::messages;
use crate::output::Report;
use crate::store::layout::REGISTRY_CAP;
use crate::store::lock::WriterLock;
use crate::store::temporaries;

use crate::actions::entries::candidate::{
    CANDIDATES_DIR, Candidate, Kind, REFUSED_FILE, candidate_path, candidates_dir, entry_topics,
    file_name, is_valid_id, normalize_title, pending, refused_topics, slug, split_list,
};
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

/// A candidate written.
#[derive(Debug, Clone)]
pub(crate) struct Proposed {
    pub candidate: Candidate,
    pub sha256: String,
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
    let candidate = draft(
        ctx,
        kind,
        &title,
        &content,
        args.applies_when.as_deref().unwrap_or_default(),
        &split_list(args.evidence.as_deref().unwrap_or_default()),
        args.source.as_deref().unwrap_or_default(),
    );
    candidate.check()?;
    let lock = WriterLock::acquire(&ctx.root)?;
    if args.reuse_pending
        && let Some(same) = identical_pending(ctx, &candidate)?
    {
        return Ok(same);
    }
    match write(ctx, &lock, candidate, WhenPending::NextId)? {
        Ok(proposed) => Ok(proposed),
        Err(NotWritten::Duplicate(why)) => Err(Error::refused(why)),
    }
}

/// A candidate from its parts, normalized as the file keeps them (content trimmed with line
/// ends made `\n`, context one line, source trimmed or `unknown`); its id is the base id of its
/// topic, made unique when written.
#[must_use]
pub(crate) fn draft(
    ctx: &Context,
    kind: Kind,
    title: &str,
    content: &str,
    applies_when: &str,
    evidence: &[String],
    source: &str,
) -> Candidate {
    let source = trim(source);
    let day: String = ctx
        .now
        .iso
        .chars()
        .filter(char::is_ascii_digit)
        .take(8)
        .collect();
    let project = match slug(&folder_name(&ctx.root)) {
        s if s.is_empty() => "project".to_owned(),
        s => s,
    };
    let title = normalize_title(title);
    Candidate {
        id: format!("{project}-{}-{day}-{}", kind.as_str(), slug(&title)),
        kind,
        source: if source.is_empty() { "unknown" } else { source }.to_owned(),
        created: ctx.now.iso.clone(),
        context: collapse_whitespace(applies_when),
        content: trim(&content.replace("\r\n", "\n")).to_owned(),
        evidence: evidence.to_vec(),
        title,
    }
}

/// Writes a checked candidate under the held writer lock: refused topics and existing entries
/// are refused; a pending topic takes the next free id or is skipped, as `when_pending` says.
/// The views are rebuilt after the write.
///
/// # Errors
/// Confinement and I/O errors; a folder that cannot be read.
pub(crate) fn write(
    ctx: &Context,
    lock: &WriterLock,
    mut candidate: Candidate,
    when_pending: WhenPending,
) -> Result<Result<Proposed, NotWritten>> {
    // The views are rebuilt after the write: their sources must be readable before it, so that
    // a refusal never comes after something was written.
    views::expected(ctx)?;
    let topic = candidate.topic();
    if refused_topics(ctx)?.contains(&topic) {
        return Ok(Err(NotWritten::Duplicate(messages::topic_refused(
            &topic,
            REFUSED_FILE,
        ))));
    }
    if entry_topics(ctx, candidate.kind)?.contains(&topic) {
        return Ok(Err(NotWritten::Duplicate(messages::topic_already_entry(
            &topic,
            candidate.kind.as_str(),
            candidate.kind.note_file(),
        ))));
    }
    if when_pending == WhenPending::Skip {
        let (pending, _) = pending(ctx)?;
        if pending.iter().any(|(c, _)| c.topic() == topic) {
            return Ok(Err(NotWritten::Duplicate(messages::topic_pending(&topic))));
        }
    }
    let dir = candidates_dir(ctx, true)?.ok_or_else(|| {
        Error::io(
            "cannot create",
            &ctx.root.join(CANDIDATES_DIR),
            ErrorKind::NotFound.into(),
        )
    })?;
    // Under the writer lock every temporary file here belongs to a writer that died.
    temporaries::remove_dead_temporaries(&dir, |stem| {
        stem.strip_suffix(".md").is_some_and(is_valid_id)
    });
    let base = candidate.id.clone();
    for n in 1..=MAX_SUFFIX {
        candidate.id = if n == 1 {
            base.clone()
        } else {
            format!("{base}-{n}")
        };
        let name = file_name(&candidate.id);
        if dir
            .lstat(&name)
            .map_err(|e| Error::io("cannot inspect", &dir.path().join(&name), e))?
            .is_some()
        {
            continue;
        }
        let text = candidate.render();
        let tmp = dir.write_temp(&name, text.as_bytes())?;
        let linked = dir.hard_link(&tmp, &name);
        let _ = dir.remove(&tmp);
        match linked {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io("cannot create", &dir.path().join(&name), e)),
        }
        dir.sync()
            .map_err(|e| Error::io("cannot sync", dir.path(), e))?;
        let sha256 = crate::js::json::sha256_hex(text.as_bytes());
        views::rebuild(ctx, lock)?;
        return Ok(Ok(Proposed { candidate, sha256 }));
    }
    Err(Error::refused(messages::no_free_candidate_id(&base)))
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
        .map(|(candidate, sha256)| Proposed { candidate, sha256 }))
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

    fn written(&self) -> Option<String> {
        Some(format!("candidate {} written", self.candidate.id))
    }
}
