//! `bmad-mem index [--portfolio <path>]`: builds or brings up to date the embedding index of
//! `recall --ranking hybrid` (docs/HYBRID.md §The index): every text of the memory that the
//! index lacks is embedded (on two threads), texts no longer in the memory are dropped, and the
//! file is replaced atomically. Incremental: a second run embeds nothing. A progress bar is
//! drawn on standard error when it is a terminal and `--json` is not given.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use crate::actions::recall::hybrid::index::{Budget, refresh, texts};
use crate::actions::recall::hybrid::{self};
use crate::context::Context;
use crate::embed::Model;
use crate::embed::weights::Invalid;
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::path::resolve;
use crate::messages;
use crate::output::Report;
use crate::store::layout::EMBEDDINGS;
use crate::store::vectors;

/// Build or update the embedding index of `recall --ranking hybrid`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct IndexArgs {
    /// Also index the notes of this portfolio brain folder (relative to the current
    /// directory), as `recall --scope portfolio --portfolio <path>` reads them.
    #[arg(long, value_name = "path", allow_hyphen_values = true)]
    pub portfolio: Option<String>,
}

/// What `index` did.
#[derive(Debug)]
pub(crate) struct IndexReport {
    model: &'static str,
    texts: usize,
    embedded: usize,
    kept: usize,
    dropped: usize,
    rebuilt: Option<String>,
    written: bool,
    bytes: u64,
    seconds: f64,
}

/// Runs `index`.
///
/// # Errors
/// The model missing or unusable; a portfolio that is not a folder; read errors of the memory;
/// the index that cannot be written.
pub(crate) fn run(args: &IndexArgs, ctx: &Context) -> Result<IndexReport> {
    let started = Instant::now();
    if let Some(p) = &args.portfolio {
        let dir = resolve(&ctx.cwd, Path::new(p));
        if !dir.is_dir() {
            return Err(Error::refused(messages::portfolio_not_a_folder(&dir)));
        }
    }
    let folder = hybrid::installed(ctx).map_err(|u| Error::refused(u.message("index")))?;
    let unusable = |e: Invalid| Error::refused(messages::model_unusable(&folder, &e.0));
    let model = Model::load(&folder).map_err(unusable)?;
    let pinned = hybrid::pinned(ctx);
    let texts = texts(ctx, args.portfolio.as_deref())?;
    let bar = ctx.progress.then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "embedding {bar:30} {pos}/{len} texts, {elapsed} (about {eta} left)",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let progress = |done: usize, total: usize| {
        if let Some(bar) = &bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    };
    let refreshed = refresh(
        &ctx.root,
        &model,
        &pinned.digest(),
        &texts,
        Budget::Everything,
        &progress,
    )
    .map_err(unusable)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if refreshed.changed {
        vectors::write(&ctx.root, &refreshed.index)?;
    }
    let bytes = refreshed.index.file_len() as u64;
    Ok(IndexReport {
        model: pinned.name,
        texts: refreshed.embedded + refreshed.kept,
        embedded: refreshed.embedded,
        kept: refreshed.kept,
        dropped: refreshed.dropped,
        rebuilt: refreshed.ignored,
        written: refreshed.changed,
        bytes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

impl Report for IndexReport {
    fn to_json(&self) -> Value {
        #[expect(
            clippy::cast_precision_loss,
            reason = "counts and sizes are far below 2^53"
        )]
        let number = |n: usize| Value::Number(n as f64);
        #[expect(clippy::cast_precision_loss, reason = "a file size is far below 2^53")]
        let bytes = Value::Number(self.bytes as f64);
        Value::Object(
            Object::new()
                .with("index", EMBEDDINGS)
                .with("model", self.model)
                .with("texts", number(self.texts))
                .with("embedded", number(self.embedded))
                .with("kept", number(self.kept))
                .with("dropped", number(self.dropped))
                .with(
                    "rebuilt",
                    self.rebuilt.as_deref().map_or(Value::Null, Value::from),
                )
                .with("written", self.written)
                .with("bytes", bytes),
        )
    }

    fn render_human(&self) -> String {
        let mut out = format!(
            "mem index: {} texts — {} embedded, {} already indexed, {} dropped ({:.1} s); {EMBEDDINGS}: {} KiB ({})\n",
            self.texts,
            self.embedded,
            self.kept,
            self.dropped,
            self.seconds,
            self.bytes.div_ceil(1024),
            self.model
        );
        if let Some(reason) = &self.rebuilt {
            let _ = writeln!(out, "  rebuilt: the previous index was not used ({reason})");
        }
        out
    }
}
