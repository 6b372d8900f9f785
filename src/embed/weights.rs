//! The model's shape (`config.json`) and its weights (`model.safetensors`), read and checked.
//!
//! * **The shape** must be a BERT encoder as all-MiniLM-L6-v2 is one: `model_type` `bert`,
//!   exact-erf `gelu`, absolute positions, a width its heads divide, every size within bounds.
//!   Anything else is another architecture and refused, never run approximately.
//! * **The header** of the safetensors file (an 8-byte length, then JSON) is read alone, at
//!   most [`MAX_HEADER`] bytes, and checked by the `safetensors` crate's own rules (tensors
//!   back to back, each the size its shape and type say); the file must end where its last
//!   tensor ends, so a truncated or padded file is refused before a weight is read.
//! * **Each tensor** the forward pass uses must be there, 32-bit floats, of the exact shape the
//!   configuration implies, so no read is larger than the model is, and no matrix is used with
//!   another width. They are read straight into their `f32` buffers, little-endian.
//! * **The token table** (30,522 × 384 floats for all-MiniLM-L6-v2, half the file) is not read
//!   whole: each text needs a few hundred of its rows, read as they are needed.
//! * **The layers** are read whole and kept when many texts are embedded (`bmad-mem index`);
//!   for one text (a query) each is read into the same buffers just before it is used, so a
//!   recall touches 7 MiB of fresh memory rather than 42.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::{Mutex, OnceLock, PoisonError};

use safetensors::Dtype;
use safetensors::tensor::{Metadata, TensorInfo};
use serde_json::Value;

/// The largest safetensors header read (all-MiniLM-L6-v2's is 11 KiB).
pub const MAX_HEADER: u64 = 1024 * 1024;

/// Bounds on the shape, far above all-MiniLM-L6-v2's and below what would exhaust memory.
const MAX_WIDTH: usize = 4096;
const MAX_LAYERS: usize = 64;
const MAX_INNER: usize = 4 * MAX_WIDTH;
const MAX_VOCAB: usize = 1 << 20;
const MAX_POSITIONS: usize = 8192;

/// Why a model cannot be used, in words for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid(pub String);

fn invalid(what: impl Into<String>) -> Invalid {
    Invalid(what.into())
}

/// The shape of a BERT encoder.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    pub width: usize,
    pub heads: usize,
    pub layers: usize,
    pub inner: usize,
    pub vocab: usize,
    pub positions: usize,
    pub types: usize,
    pub epsilon: f32,
}

impl Config {
    /// Reads `config.json`.
    ///
    /// # Errors
    /// Invalid JSON, another architecture, or a size out of bounds.
    pub fn from_json(text: &str) -> Result<Self, Invalid> {
        let root: Value = serde_json::from_str(text)
            .map_err(|e| invalid(format!("config.json is not valid JSON ({e})")))?;
        let text_of = |key: &str| root.get(key).and_then(Value::as_str);
        if text_of("model_type") != Some("bert") {
            return Err(invalid("config.json does not describe a BERT model"));
        }
        if text_of("hidden_act") != Some("gelu") {
            return Err(invalid("the model's activation is not gelu"));
        }
        if !matches!(text_of("position_embedding_type"), None | Some("absolute")) {
            return Err(invalid("the model's positions are not absolute"));
        }
        let size = |key: &str, max: usize| {
            root.get(key)
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .filter(|&n| n >= 1 && n <= max)
                .ok_or_else(|| invalid(format!("config.json's {key} is missing or out of bounds")))
        };
        let config = Self {
            width: size("hidden_size", MAX_WIDTH)?,
            heads: size("num_attention_heads", MAX_WIDTH)?,
            layers: size("num_hidden_layers", MAX_LAYERS)?,
            inner: size("intermediate_size", MAX_INNER)?,
            vocab: size("vocab_size", MAX_VOCAB)?,
            positions: size("max_position_embeddings", MAX_POSITIONS)?,
            types: size("type_vocab_size", 16)?,
            #[expect(
                clippy::cast_possible_truncation,
                reason = "epsilon is a small positive number"
            )]
            epsilon: match root.get("layer_norm_eps") {
                None => 1e-12,
                Some(v) => v
                    .as_f64()
                    .filter(|e| *e > 0.0 && *e < 1.0)
                    .ok_or_else(|| invalid("config.json's layer_norm_eps is out of bounds"))?
                    as f32,
            },
        };
        if !config.width.is_multiple_of(config.heads) {
            return Err(invalid("the model's heads do not divide its width"));
        }
        Ok(config)
    }
}

/// The weights of one encoder layer; matrices are `[out × in]`, row-major, as stored.
#[derive(Debug, Clone, Default)]
pub struct Layer {
    /// Query, key and value stacked: `[3·width × width]`, and their biases.
    pub qkv: Vec<f32>,
    pub qkv_bias: Vec<f32>,
    pub output: Vec<f32>,
    pub output_bias: Vec<f32>,
    pub attention_norm: (Vec<f32>, Vec<f32>),
    pub inner: Vec<f32>,
    pub inner_bias: Vec<f32>,
    pub outer: Vec<f32>,
    pub outer_bias: Vec<f32>,
    pub output_norm: (Vec<f32>, Vec<f32>),
}

/// The model's weights: the small tensors read, the layers read whole or one at a time, the
/// token table a row at a time.
#[derive(Debug)]
pub struct Weights {
    pub config: Config,
    /// The first `positions` rows the model takes, `[positions × width]`.
    pub positions: Vec<f32>,
    /// Row 0 of the token-type table (every token is of type 0).
    pub token_type: Vec<f32>,
    pub embedding_norm: (Vec<f32>, Vec<f32>),
    /// The layers, once read whole ([`Weights::keep_layers`]).
    layers: OnceLock<Vec<Layer>>,
    source: Mutex<Source>,
    /// Where row 0 of the token table starts in the file.
    tokens_start: u64,
}

/// A safetensors file's header: where each tensor lies.
#[derive(Debug)]
struct Header {
    metadata: Metadata,
    /// Where the data starts (after the length and the JSON).
    data_start: u64,
    /// Whether the tensors' names carry BERT's `bert.` prefix.
    prefix: &'static str,
}

impl Header {
    fn read(file: &mut File, file_len: u64) -> Result<Self, Invalid> {
        let mut length = [0; 8];
        file.read_exact(&mut length)
            .map_err(|_| invalid("model.safetensors is shorter than its header"))?;
        let length = u64::from_le_bytes(length);
        if length > MAX_HEADER || length + 8 > file_len {
            return Err(invalid(
                "model.safetensors has a header of an impossible size",
            ));
        }
        let mut json = vec![0; usize::try_from(length).unwrap_or(0)];
        file.read_exact(&mut json)
            .map_err(|_| invalid("model.safetensors is shorter than its header"))?;
        let metadata: Metadata = serde_json::from_slice(&json)
            .map_err(|e| invalid(format!("model.safetensors has an invalid header ({e})")))?;
        let data_start = 8 + length;
        if data_start + metadata.data_len() as u64 != file_len {
            return Err(invalid(
                "model.safetensors is not the size its header says (truncated or altered)",
            ));
        }
        let prefix = if metadata.info("embeddings.word_embeddings.weight").is_none()
            && metadata
                .info("bert.embeddings.word_embeddings.weight")
                .is_some()
        {
            "bert."
        } else {
            ""
        };
        Ok(Self {
            metadata,
            data_start,
            prefix,
        })
    }

    /// Where tensor `name` lies, checked to be 32-bit floats of `shape`.
    fn locate(&self, name: &str, shape: &[usize]) -> Result<(u64, usize), Invalid> {
        let full = format!("{}{name}", self.prefix);
        let info: &TensorInfo = self
            .metadata
            .info(&full)
            .ok_or_else(|| invalid(format!("model.safetensors has no tensor {full}")))?;
        if info.dtype != Dtype::F32 || info.shape != shape {
            return Err(invalid(format!(
                "tensor {full} is {:?} {:?}, not F32 {shape:?}",
                info.dtype, info.shape
            )));
        }
        let (from, _) = info.data_offsets;
        Ok((self.data_start + from as u64, shape.iter().product()))
    }
}

/// Reads `count` little-endian floats at `at` into `floats` (resized, its memory reused).
fn read_floats(
    file: &mut File,
    at: u64,
    count: usize,
    floats: &mut Vec<f32>,
) -> std::io::Result<()> {
    floats.clear();
    floats.resize(count, 0.0);
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(bytemuck::cast_slice_mut(floats))?;
    if cfg!(target_endian = "big") {
        for f in floats {
            *f = f32::from_bits(u32::from_le(f.to_bits()));
        }
    }
    Ok(())
}

/// The open weights file and its checked header.
#[derive(Debug)]
struct Source {
    file: File,
    header: Header,
}

#[expect(clippy::needless_pass_by_value, reason = "the shape `map_err` takes")]
fn unreadable(e: std::io::Error) -> Invalid {
    invalid(format!("model.safetensors: {e}"))
}

impl Source {
    /// Reads tensor `name`, checked to be of `shape`, into `into`.
    fn read_into(
        &mut self,
        name: &str,
        shape: &[usize],
        into: &mut Vec<f32>,
    ) -> Result<(), Invalid> {
        let (at, count) = self.header.locate(name, shape)?;
        read_floats(&mut self.file, at, count, into).map_err(unreadable)
    }

    fn read(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, Invalid> {
        let mut floats = Vec::new();
        self.read_into(name, shape, &mut floats)?;
        Ok(floats)
    }

    /// Reads layer `l` into `layer`, whose memory is reused.
    fn read_layer(&mut self, config: &Config, l: usize, layer: &mut Layer) -> Result<(), Invalid> {
        let (d, inner) = (config.width, config.inner);
        let p = format!("encoder.layer.{l}.");
        let mut part = Vec::new();
        layer.qkv.clear();
        layer.qkv_bias.clear();
        for name in ["query", "key", "value"] {
            self.read_into(
                &format!("{p}attention.self.{name}.weight"),
                &[d, d],
                &mut part,
            )?;
            layer.qkv.extend_from_slice(&part);
            self.read_into(&format!("{p}attention.self.{name}.bias"), &[d], &mut part)?;
            layer.qkv_bias.extend_from_slice(&part);
        }
        let mut read = |name: &str, shape: &[usize], into: &mut Vec<f32>| {
            self.read_into(&format!("{p}{name}"), shape, into)
        };
        read("attention.output.dense.weight", &[d, d], &mut layer.output)?;
        read("attention.output.dense.bias", &[d], &mut layer.output_bias)?;
        read(
            "attention.output.LayerNorm.weight",
            &[d],
            &mut layer.attention_norm.0,
        )?;
        read(
            "attention.output.LayerNorm.bias",
            &[d],
            &mut layer.attention_norm.1,
        )?;
        read("intermediate.dense.weight", &[inner, d], &mut layer.inner)?;
        read("intermediate.dense.bias", &[inner], &mut layer.inner_bias)?;
        read("output.dense.weight", &[d, inner], &mut layer.outer)?;
        read("output.dense.bias", &[d], &mut layer.outer_bias)?;
        read("output.LayerNorm.weight", &[d], &mut layer.output_norm.0)?;
        read("output.LayerNorm.bias", &[d], &mut layer.output_norm.1)
    }
}

impl Weights {
    /// Opens the safetensors file at `path` for the encoder `config` describes: checks its
    /// header and every tensor the forward pass uses, reads the small ones (the first
    /// `positions` rows of the position table only); the layers are read by
    /// [`Weights::keep_layers`] or one at a time as a text is embedded.
    ///
    /// # Errors
    /// A file that cannot be read, a header that does not hold, or a missing or misshapen
    /// tensor.
    pub fn open(path: &Path, config: Config, positions: usize) -> Result<Self, Invalid> {
        let mut file = File::open(path).map_err(unreadable)?;
        let file_len = file.metadata().map_err(unreadable)?.len();
        let header = Header::read(&mut file, file_len)?;
        let mut source = Source { file, header };
        let d = config.width;
        // Every tensor is located (and so checked) before anything is embedded.
        let (start, _) = source
            .header
            .locate("embeddings.word_embeddings.weight", &[config.vocab, d])?;
        for l in 0..config.layers {
            let p = format!("encoder.layer.{l}.");
            for (name, shape) in [
                ("attention.self.query.weight", vec![d, d]),
                ("attention.self.query.bias", vec![d]),
                ("attention.self.key.weight", vec![d, d]),
                ("attention.self.key.bias", vec![d]),
                ("attention.self.value.weight", vec![d, d]),
                ("attention.self.value.bias", vec![d]),
                ("attention.output.dense.weight", vec![d, d]),
                ("attention.output.dense.bias", vec![d]),
                ("attention.output.LayerNorm.weight", vec![d]),
                ("attention.output.LayerNorm.bias", vec![d]),
                ("intermediate.dense.weight", vec![config.inner, d]),
                ("intermediate.dense.bias", vec![config.inner]),
                ("output.dense.weight", vec![d, config.inner]),
                ("output.dense.bias", vec![d]),
                ("output.LayerNorm.weight", vec![d]),
                ("output.LayerNorm.bias", vec![d]),
            ] {
                source.header.locate(&format!("{p}{name}"), &shape)?;
            }
        }
        let positions = positions.min(config.positions);
        let mut all_positions = source.read(
            "embeddings.position_embeddings.weight",
            &[config.positions, d],
        )?;
        all_positions.truncate(positions * d);
        let mut token_type = source.read(
            "embeddings.token_type_embeddings.weight",
            &[config.types, d],
        )?;
        token_type.truncate(d);
        let embedding_norm = (
            source.read("embeddings.LayerNorm.weight", &[d])?,
            source.read("embeddings.LayerNorm.bias", &[d])?,
        );
        Ok(Self {
            config,
            positions: all_positions,
            token_type,
            embedding_norm,
            layers: OnceLock::new(),
            source: Mutex::new(source),
            tokens_start: start,
        })
    }

    /// Reads every layer once and keeps them, for embedding many texts.
    ///
    /// # Errors
    /// A read error.
    pub fn keep_layers(&self) -> Result<&[Layer], Invalid> {
        if let Some(layers) = self.layers.get() {
            return Ok(layers);
        }
        let mut source = self.source.lock().unwrap_or_else(PoisonError::into_inner);
        let mut layers = Vec::with_capacity(self.config.layers);
        for l in 0..self.config.layers {
            let mut layer = Layer::default();
            source.read_layer(&self.config, l, &mut layer)?;
            layers.push(layer);
        }
        Ok(self.layers.get_or_init(|| layers))
    }

    /// The layers kept by [`Weights::keep_layers`], if they were.
    #[must_use]
    pub fn kept_layers(&self) -> Option<&[Layer]> {
        self.layers.get().map(Vec::as_slice)
    }

    /// Reads layer `l` into `layer` (its memory reused): one text's embedding without keeping
    /// the whole model in memory.
    ///
    /// # Errors
    /// A read error.
    pub fn read_layer(&self, l: usize, layer: &mut Layer) -> Result<(), Invalid> {
        self.source
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .read_layer(&self.config, l, layer)
    }

    /// The token-table rows of `ids`, one after another.
    ///
    /// # Errors
    /// An id outside the table, or a read error.
    pub fn token_rows(&self, ids: &[u32]) -> Result<Vec<f32>, Invalid> {
        let d = self.config.width;
        let mut rows = vec![0f32; ids.len() * d];
        let mut source = self.source.lock().unwrap_or_else(PoisonError::into_inner);
        let file = &mut source.file;
        for (row, &id) in rows.chunks_exact_mut(d).zip(ids) {
            let id = id as usize;
            if id >= self.config.vocab {
                return Err(invalid(format!(
                    "token id {id} is outside the model's vocabulary"
                )));
            }
            let at = self.tokens_start + (id * d * 4) as u64;
            file.seek(SeekFrom::Start(at))
                .and_then(|_| file.read_exact(bytemuck::cast_slice_mut(row)))
                .map_err(|e| invalid(format!("model.safetensors: {e}")))?;
        }
        if cfg!(target_endian = "big") {
            for f in &mut rows {
                *f = f32::from_bits(u32::from_le(f.to_bits()));
            }
        }
        Ok(rows)
    }
}

// Reads what only the repository has (docs: build.rs).
#[cfg(test)]
#[cfg(repository)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/embed/tiny")
            .join(name)
    }

    fn tiny_config() -> Config {
        Config::from_json(&std::fs::read_to_string(fixture("config.json")).unwrap()).unwrap()
    }

    #[track_caller]
    fn refused_config(change: (&str, &str), why: &str) {
        let text = std::fs::read_to_string(fixture("config.json")).unwrap();
        assert!(text.contains(change.0), "{change:?}");
        let err = Config::from_json(&text.replace(change.0, change.1)).unwrap_err();
        assert!(err.0.contains(why), "{err:?}");
    }

    #[test]
    fn another_architecture_is_refused() {
        assert_eq!(tiny_config().width, 12);
        refused_config(
            ("\"bert\"", "\"roberta\""),
            "does not describe a BERT model",
        );
        refused_config(("\"gelu\"", "\"relu\""), "activation is not gelu");
        refused_config(
            ("\"absolute\"", "\"relative_key\""),
            "positions are not absolute",
        );
        refused_config(
            ("\"num_attention_heads\": 3", "\"num_attention_heads\": 5"),
            "heads do not divide its width",
        );
        refused_config(
            ("\"hidden_size\": 12", "\"hidden_size\": 100000"),
            "hidden_size is missing or out of bounds",
        );
        refused_config(
            ("\"layer_norm_eps\": 1e-12", "\"layer_norm_eps\": -1"),
            "layer_norm_eps is out of bounds",
        );
        assert!(Config::from_json("[1]").is_err());
    }

    /// Opens `bytes` as the weights file of the tiny model (or of `config`).
    fn open_bytes(bytes: &[u8], config: Config) -> Result<Weights, Invalid> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.safetensors");
        std::fs::write(&path, bytes).unwrap();
        Weights::open(&path, config, 256)
    }

    #[test]
    fn a_truncated_padded_or_misshapen_file_is_refused_before_use() {
        let bytes = std::fs::read(fixture("model.safetensors")).unwrap();
        assert!(open_bytes(&bytes, tiny_config()).is_ok());
        let check = |bytes: &[u8], config: Config, why: &str| {
            let err = open_bytes(bytes, config).unwrap_err();
            assert!(err.0.contains(why), "{err:?}");
        };
        let size = "not the size its header says (truncated or altered)";
        check(&bytes[..bytes.len() - 1], tiny_config(), size);
        check(&[bytes.as_slice(), b"x"].concat(), tiny_config(), size);
        check(&bytes[..4], tiny_config(), "shorter than its header");
        check(&u64::MAX.to_le_bytes(), tiny_config(), "impossible size");
        let mut garbled = bytes.clone();
        garbled[8] = b'[';
        check(&garbled, tiny_config(), "invalid header");
        // A configuration that the tensors do not match: no matrix of another width is used.
        let wider = Config {
            width: 24,
            ..tiny_config()
        };
        check(&bytes, wider, "not F32 [");
        let deeper = Config {
            layers: 3,
            ..tiny_config()
        };
        check(&bytes, deeper, "has no tensor encoder.layer.2.");
        // A tensor of another type.
        let header = r#"{"embeddings.word_embeddings.weight":{"dtype":"F16","shape":[2,12],"data_offsets":[0,48]}}"#;
        let mut file = (header.len() as u64).to_le_bytes().to_vec();
        file.extend_from_slice(header.as_bytes());
        file.extend_from_slice(&[0; 48]);
        check(&file, tiny_config(), "is F16 [2, 12], not F32");
    }

    #[test]
    fn token_rows_outside_the_table_are_refused() {
        let weights = Weights::open(&fixture("model.safetensors"), tiny_config(), 256).unwrap();
        assert_eq!(weights.token_rows(&[0, 1]).unwrap().len(), 24);
        let vocab = u32::try_from(tiny_config().vocab).unwrap();
        assert!(weights.token_rows(&[vocab]).is_err());
    }
}
