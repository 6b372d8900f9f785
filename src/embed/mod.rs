//! The sentence-embedding model of `recall --ranking hybrid` (docs/HYBRID.md): all-MiniLM-L6-v2,
//! a 6-layer BERT encoder, run in this binary — its `WordPiece` [`tokenizer`], its shape and
//! weights read and checked from `config.json` and `model.safetensors` ([`weights`]), the
//! forward pass ([`bert`]) over vectorizable element-wise [`kernels`]. The model's files and
//! their pinned digests are [`files`]' business.
//!
//! A [`Model`] is what a folder holding the three files gives once every check holds: texts go
//! in, unit vectors of the model's width come out. It knows nothing of the memory, of
//! rankings or of where the folder is.

pub mod bert;
pub mod files;
pub mod kernels;
pub mod tokenizer;
pub mod weights;

use std::io::Read;
use std::path::Path;

use crate::embed::files::{CONFIG, TOKENIZER, WEIGHTS};
use crate::embed::tokenizer::Tokenizer;
use crate::embed::weights::{Config, Invalid, Weights};

/// The most tokens of a text the model reads, `[CLS]` and `[SEP]` included: the length
/// all-MiniLM-L6-v2 was trained on. A longer text is read from its start.
pub const MAX_TOKENS: usize = 256;

/// The largest `config.json` and `tokenizer.json` read (the model's are 612 B and 455 KiB).
const MAX_SMALL_FILE: u64 = 16 * 1024 * 1024;

/// A loaded model: tokenizer and weights.
#[derive(Debug)]
pub struct Model {
    tokenizer: Tokenizer,
    weights: Weights,
    max_tokens: usize,
}

/// Reads a small file of the model's folder, at most [`MAX_SMALL_FILE`] bytes.
fn read_small(dir: &Path, name: &str) -> Result<String, Invalid> {
    let path = dir.join(name);
    let file = std::fs::File::open(&path).map_err(|e| Invalid(format!("{name}: {e}")))?;
    let mut text = String::new();
    file.take(MAX_SMALL_FILE + 1)
        .read_to_string(&mut text)
        .map_err(|e| Invalid(format!("{name}: {e}")))?;
    if text.len() as u64 > MAX_SMALL_FILE {
        return Err(Invalid(format!(
            "{name} is larger than a model's {name} can be"
        )));
    }
    Ok(text)
}

impl Model {
    /// Loads the model in folder `dir`: its configuration, its tokenizer and its weights, each
    /// checked against the others.
    ///
    /// # Errors
    /// A missing or unreadable file, another architecture, a tokenizer whose ids the weights do
    /// not cover, or weights that do not match the configuration.
    pub fn load(dir: &Path) -> Result<Self, Invalid> {
        let config = Config::from_json(&read_small(dir, CONFIG)?)?;
        let tokenizer = Tokenizer::from_json(&read_small(dir, TOKENIZER)?)
            .map_err(|e| Invalid(format!("{TOKENIZER}: {}", e.0)))?;
        if tokenizer.max_id() as usize >= config.vocab {
            return Err(Invalid(format!(
                "{TOKENIZER} gives ids the model's {} token rows do not cover",
                config.vocab
            )));
        }
        let max_tokens = MAX_TOKENS.min(config.positions);
        let weights = Weights::open(&dir.join(WEIGHTS), config, max_tokens)?;
        Ok(Self {
            tokenizer,
            weights,
            max_tokens,
        })
    }

    /// Reads the model's layers once and keeps them: many texts to embed (`bmad-mem index`).
    /// Without it, each text reads them one at a time as it goes (one query).
    ///
    /// # Errors
    /// A read error of the weights file.
    pub fn keep_layers(&self) -> Result<(), Invalid> {
        self.weights.keep_layers().map(|_| ())
    }

    /// The width of the model's vectors.
    #[must_use]
    pub fn width(&self) -> usize {
        self.weights.config.width
    }

    /// The token ids the model reads of `text`.
    #[must_use]
    pub fn ids(&self, text: &str) -> Vec<u32> {
        self.tokenizer.encode(text, self.max_tokens)
    }

    /// The unit vector of `text` (its first [`MAX_TOKENS`] tokens). Any text has one: an empty
    /// text is `[CLS] [SEP]`, a word the vocabulary lacks is `[UNK]`.
    ///
    /// # Errors
    /// A read error of the weights file, or weights that give no number.
    pub fn embed(&self, text: &str) -> Result<Vec<f32>, Invalid> {
        bert::sentence_vector(&self.weights, &self.ids(text))
    }
}

// Reads what only the repository has (docs: build.rs).
#[cfg(test)]
#[cfg(repository)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Golden {
        texts: Vec<GoldenText>,
    }

    #[derive(serde::Deserialize)]
    struct GoldenText {
        text: String,
        vector: Vec<f32>,
    }

    pub(crate) fn tiny() -> Model {
        Model::load(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/embed/tiny"
        )))
        .unwrap()
    }

    /// The model's vectors against the reference's, component by component.
    fn check_golden(model: &Model, golden: &str, tolerance: f32) {
        let golden: Golden = serde_json::from_str(golden).unwrap();
        for probe in &golden.texts {
            let got = model.embed(&probe.text).unwrap();
            assert_eq!(got.len(), probe.vector.len());
            let worst = got
                .iter()
                .zip(&probe.vector)
                .map(|(a, b)| (a - b).abs())
                .fold(0f32, f32::max);
            assert!(
                worst < tolerance,
                "{worst} on {:?}",
                &probe.text[..probe.text.len().min(60)]
            );
        }
    }

    #[test]
    fn vectors_are_the_reference_forward_pass_s() {
        check_golden(
            &tiny(),
            include_str!("../../fixtures/embed/tiny-golden.json"),
            2e-5,
        );
    }

    #[test]
    #[ignore = "needs the real model's files: BMAD_MEM_REAL_MODEL=<folder> (.ci/run sets it)"]
    fn real_vectors_are_the_reference_forward_pass_s() {
        let dir = std::env::var("BMAD_MEM_REAL_MODEL").expect("BMAD_MEM_REAL_MODEL");
        let model = Model::load(Path::new(&dir)).unwrap();
        check_golden(
            &model,
            include_str!("../../fixtures/embed/minilm-golden.json"),
            2e-5,
        );
        let a = model.embed("A man is eating food.").unwrap();
        let b = model.embed("A man is eating a piece of bread.").unwrap();
        let cosine: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((cosine - 0.7553).abs() < 1e-4, "{cosine}");
    }
}
