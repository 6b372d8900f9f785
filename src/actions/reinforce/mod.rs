//! `reinforce`: fold reward signals into a pattern's score, and propose — never apply — its
//! promotion (docs §7).
//!
//! Each pattern keeps an Elo rating (start 1200, K = 32, played against a 1200 opponent) and a
//! Beta distribution (start α = β = 1) whose old evidence fades twice: by a 90-day half-life
//! between observations, then by ×0.98 at every update. When the Beta mean reaches 0.7 over at
//! least 3 updates, a promotion record with status `PROPOSED` is appended to
//! `promotions.ndjson`; nothing here can approve it.
//!
//! The whole read-modify-write runs under one hold of the writer lock, and nothing is written
//! until every check has passed: the promotions file is checked first, then the scores file is
//! rewritten atomically, then the promotion appended. An unparseable scores file restarts from
//! priors as bmad-plus does, but its bytes are first kept beside it and a warning names the copy.
//!
//! Last, under the same hold of the lock, the update is appended to bmad-mem's own registry of
//! reinforcements (`records`), which lets the merge driver combine two clones' updates of one
//! pattern. It is written after everything bmad-plus writes, so that a kill between the two
//! leaves a score ahead of its records — the state a bmad-plus writer leaves, which `doctor` and
//! the merge driver know — and never a record of an update that did not happen. A record that
//! cannot be written (the registry full, torn, unreadable) is a warning, never a failure: the
//! score is updated as bmad-plus updates it, and the output is otherwise unchanged.

use std::fmt::Write as _;
use std::io::Write;

pub(crate) mod records;
pub(crate) mod score;

use crate::actions::reinforce::score::{Score, reward};
use crate::actions::signals::{SignalArgs, Signals};
use crate::context::{Context, Now, crash_point};
use crate::error::{Error, Result};
use crate::js::json::{self, Object, Value, sha256_hex};
use crate::js::number::{number_text, to_fixed};
use crate::js::text;
use crate::messages::{self, Unrecorded};
use crate::output::Report;
use crate::store::confined::{self, Target};
use crate::store::layout::{LOOSE_CAP, PROMOTIONS, REINFORCEMENTS, SCORES};
use crate::store::lock::WriterLock;
use crate::store::paths::Skip;
use crate::store::{document, ndjson};

/// Record how a pattern fared; propose its promotion when its recent success rate is high.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ReinforceArgs {
    /// The pattern: its `###` heading in patterns.md (required).
    #[arg(long, value_name = "id", allow_hyphen_values = true)]
    pub pattern: Option<String>,
    #[command(flatten)]
    pub signals: SignalArgs,
    /// Comma-separated ids of what backs this claim (journal events, receipts), kept as given.
    #[arg(long, value_name = "id1,id2", allow_hyphen_values = true)]
    pub evidence: Option<String>,
}

/// The promotion proposal for `pattern` reaching `next` at `now`: always `PROPOSED`.
#[must_use]
pub(crate) fn promotion(pattern: &str, next: &Score, evidence: &[String], now: &Now) -> Object {
    let id =
        sha256_hex(format!("{pattern}\u{0}{}\u{0}validated", now.iso).as_bytes())[..12].to_owned();
    Object::new()
        .with("id", id)
        .with("patternId", pattern)
        .with("fromStatus", "candidate")
        .with("toStatus", "validated")
        .with(
            "reason",
            format!(
                "posterior mean {} >= 0.7 over {} update(s)",
                to_fixed(next.mean, 3),
                number_text(next.updates)
            ),
        )
        .with(
            "evidence",
            evidence.iter().map(Value::from).collect::<Vec<_>>(),
        )
        .with("score", next.to_object())
        .with("ts", now.iso.as_str())
        .with("status", "PROPOSED")
        .with("governedBy", "shield")
        .with("approvedBy", Value::Null)
        .with("approvedAt", Value::Null)
}

/// What a reinforcement did.
#[derive(Debug)]
pub(crate) struct ReinforceReport {
    pub pattern: String,
    pub signals: Signals,
    pub reward: f64,
    pub previous: Option<Object>,
    pub next: Score,
    pub promotion: Option<Object>,
    pub warnings: Vec<String>,
}

/// Validates, then updates the pattern's score under the writer lock.
///
/// # Errors
/// The `--pattern` and signal messages before the lock; lock, store and I/O errors after, with
/// nothing written.
pub(crate) fn run(args: &ReinforceArgs, ctx: &Context) -> Result<ReinforceReport> {
    let pattern = args.pattern.clone().unwrap_or_default();
    if text::trim(&pattern).is_empty() {
        return Err(Error::refused(messages::PATTERN_REQUIRED));
    }
    let signals = Signals::parse(&args.signals)?;
    let evidence: Vec<String> = args
        .evidence
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .map(|e| text::trim(e).to_owned())
        .filter(|e| !e.is_empty())
        .collect();
    let r = reward(&signals);

    let lock = WriterLock::acquire(&ctx.root)?;
    // Read through the memory folder's handle, never through a link swapped in meanwhile.
    // Skipping a file here would replace it with the new scores: a file the loose reader would
    // skip (not a regular file, over 64 MiB) is refused instead, and left as it is.
    let scores_file = confined::locate(&ctx.root, SCORES, false)?;
    let unreadable = |skip: Skip| Error::refused(messages::scores_unreadable(SCORES, skip));
    let stored = match scores_file.dir() {
        Some(dir) => match dir.read_bounded(scores_file.name(), LOOSE_CAP) {
            Err(Error::SourceNotRegular) => return Err(unreadable(Skip::NotRegular)),
            Err(Error::SourceTooLarge(size)) => return Err(unreadable(Skip::TooLarge(size))),
            other => other?,
        },
        None => None,
    };
    // Decoded from the bytes in place: they are kept as they are for a corrupt copy.
    let parsed = stored
        .as_deref()
        .map(|bytes| json::parse(&String::from_utf8_lossy(bytes)));
    let (mut scores, corrupt) = match parsed {
        None => (Object::new(), None),
        Some(Ok(Value::Object(scores))) => (scores, None),
        Some(_) => (Object::new(), stored.as_deref()),
    };
    let previous = scores.get(&pattern).and_then(Value::as_object).cloned();
    let next = Score::from_previous(previous.as_ref()).update(r, &ctx.now);
    let promotion = next
        .is_promotable()
        .then(|| promotion(&pattern, &next, &evidence, &ctx.now));
    let promotion_line = promotion.clone().map(|p| Value::Object(p).compact());
    let pending = promotion_line
        .as_ref()
        .map(|line| ndjson::prepare(&ctx.root, PROMOTIONS, line.len(), &lock))
        .transpose()?;

    let mut warnings = Vec::new();
    if let Some(bytes) = corrupt {
        let kept = keep_corrupt(&scores_file, bytes, &ctx.now)?;
        warnings.push(format!(
            "warning: {SCORES} was not a JSON object; its bytes were kept in {kept} and scores restart from priors"
        ));
    }
    // Our own record of the update, checked with the rest and written last: a record that
    // cannot be written never stops the update bmad-plus would make (docs/FORMAT.md).
    let record = records::line(
        &pattern,
        r,
        &signals,
        &evidence,
        previous.as_ref(),
        &next,
        &ctx.now,
    );
    let recording = ndjson::prepare_at_end(&ctx.root, REINFORCEMENTS, record.len(), &lock);
    scores.insert(pattern.clone(), next.to_object());
    document::write(&ctx.root, SCORES, &Value::Object(scores), &lock)?;
    if let (Some(pending), Some(line)) = (pending, promotion_line) {
        pending.write(&line)?;
    }
    crash_point(ctx.crash_at.as_deref(), "reinforce-before-record");
    if let Err(e) = recording.and_then(|pending| pending.write(&record)) {
        let text = e.to_string();
        let why = match e {
            Error::StoreFull | Error::RecordTooLarge { .. } => Unrecorded::Full,
            Error::IncompleteFinalLine => Unrecorded::Torn,
            _ => Unrecorded::Other(&text),
        };
        warnings.push(messages::record_not_written(REINFORCEMENTS, &pattern, why));
    }
    drop(lock);
    Ok(ReinforceReport {
        pattern,
        signals,
        reward: r,
        previous,
        next,
        promotion,
        warnings,
    })
}

/// Copies the unparseable scores file to `pattern-scores.json.corrupt-<timestamp>` (never over
/// an existing file, never through a link: created exclusively relative to the handle of the
/// folder the scores were read from) and returns the copy's project-relative path.
fn keep_corrupt(scores: &Target, bytes: &[u8], now: &Now) -> Result<String> {
    let stamp = now.file_stamp();
    let dir = scores.require_dir("cannot create")?;
    let (suffix, mut file) = dir.create_aside(scores.name(), &format!(".corrupt-{stamp}"))?;
    let mut kept = scores.name().to_os_string();
    kept.push(&suffix);
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io("cannot write", &dir.path().join(&kept), e))?;
    Ok(format!("{SCORES}{suffix}"))
}

impl Report for ReinforceReport {
    fn to_json(&self) -> Value {
        let mut result = Object::new()
            .with("patternId", self.pattern.as_str())
            .with("reward", self.reward)
            .with("previous", self.previous.clone())
            .with("next", self.next.to_object())
            .with("promotion", self.promotion.clone())
            .with("evidenceStatus", "self-reported")
            .with("rankingEligible", false);
        if !self.warnings.is_empty() {
            result.insert(
                "warnings",
                self.warnings.iter().map(Value::from).collect::<Vec<_>>(),
            );
        }
        Value::Object(result)
    }

    fn render_human(&self) -> String {
        let previous_elo = Score::from_previous(self.previous.as_ref()).elo;
        let mut out = format!(
            "mem reinforce: pattern \"{}\"\n  reward   {} (from {})\n  elo      {} -> {}\n  mean     {} (alpha={}, beta={}, updates={})\n",
            self.pattern,
            to_fixed(self.reward, 3),
            Value::Object(self.signals.to_object()).compact(),
            to_fixed(previous_elo, 1),
            to_fixed(self.next.elo, 1),
            to_fixed(self.next.mean, 3),
            to_fixed(self.next.alpha, 2),
            to_fixed(self.next.beta, 2),
            number_text(self.next.updates),
        );
        match &self.promotion {
            Some(p) => {
                let _ = write!(
                    out,
                    "  promotion PROPOSED ({}): candidate -> validated\n  awaiting human/Shield approval — never auto-applied (governance guard)\n",
                    p.get("id").map(Value::text).unwrap_or_default()
                );
            }
            None => {
                out.push_str("  promotion: none proposed (needs mean >= 0.7 and >= 3 updates)\n");
            }
        }
        out
    }

    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn written(&self) -> Option<String> {
        let mut written = format!("score of pattern \"{}\" updated", self.pattern);
        if let Some(p) = &self.promotion {
            let id = p.get("id").map(Value::text).unwrap_or_default();
            let _ = write!(written, " and promotion {id} appended");
        }
        Some(written)
    }
}
