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

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Mutex;

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
        if config.width % config.heads != 0 {
            return Err(invalid("the model's heads do not divide its width"));
        }
        Ok(config)
    }
}

/// The weights of one encoder layer; matrices are `[out × in]`, row-major, as stored.
#[derive(Debug, Clone)]
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

/// Every weight of the model but the token table's, which is read a row at a time.
#[derive(Debug)]
pub struct Weights {
    pub config: Config,
    /// The first `positions` rows the model takes, `[positions × width]`.
    pub positions: Vec<f32>,
    /// Row 0 of the token-type table (every token is of type 0).
    pub token_type: Vec<f32>,
    pub embedding_norm: (Vec<f32>, Vec<f32>),
    pub layers: Vec<Layer>,
    tokens: TokenTable,
}

/// The token table, its rows read from the file as they are needed.
#[derive(Debug)]
struct TokenTable {
    file: Mutex<File>,
    /// Where row 0 starts in the file.
    start: u64,
    rows: usize,
}

/// A safetensors file's header: where each tensor lies.
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

/// Reads `count` little-endian floats at `at`.
fn read_floats(file: &mut File, at: u64, count: usize) -> std::io::Result<Vec<f32>> {
    let mut floats = vec![0f32; count];
    file.seek(SeekFrom::Start(at))?;
    file.read_exact(bytemuck::cast_slice_mut(&mut floats))?;
    if cfg!(target_endian = "big") {
        for f in &mut floats {
            *f = f32::from_bits(u32::from_le(f.to_bits()));
        }
    }
    Ok(floats)
}

impl Weights {
    /// Reads the weights of the encoder `config` describes from the safetensors file at
    /// `path`, the first `positions` rows of the position table only.
    ///
    /// # Errors
    /// A file that cannot be read, a header that does not hold, or a missing or misshapen
    /// tensor.
    pub fn read(path: &Path, config: Config, positions: usize) -> Result<Self, Invalid> {
        let unreadable = |e: std::io::Error| invalid(format!("model.safetensors: {e}"));
        let mut file = File::open(path).map_err(unreadable)?;
        let file_len = file.metadata().map_err(unreadable)?.len();
        let header = Header::read(&mut file, file_len)?;
        let d = config.width;
        let positions = positions.min(config.positions);
        let mut tensor = |name: &str, shape: &[usize]| -> Result<Vec<f32>, Invalid> {
            let (at, count) = header.locate(name, shape)?;
            read_floats(&mut file, at, count).map_err(unreadable)
        };
        let norm = |tensor: &mut dyn FnMut(&str, &[usize]) -> Result<Vec<f32>, Invalid>,
                    name: &str|
         -> Result<(Vec<f32>, Vec<f32>), Invalid> {
            Ok((
                tensor(&format!("{name}.weight"), &[d])?,
                tensor(&format!("{name}.bias"), &[d])?,
            ))
        };
        let mut all_positions = tensor(
            "embeddings.position_embeddings.weight",
            &[config.positions, d],
        )?;
        all_positions.truncate(positions * d);
        let mut token_type = tensor(
            "embeddings.token_type_embeddings.weight",
            &[config.types, d],
        )?;
        token_type.truncate(d);
        let embedding_norm = norm(&mut tensor, "embeddings.LayerNorm")?;
        let mut layers = Vec::with_capacity(config.layers);
        for l in 0..config.layers {
            let p = format!("encoder.layer.{l}.");
            let mut qkv = Vec::with_capacity(3 * d * d);
            let mut qkv_bias = Vec::with_capacity(3 * d);
            for part in ["query", "key", "value"] {
                qkv.extend(tensor(
                    &format!("{p}attention.self.{part}.weight"),
                    &[d, d],
                )?);
                qkv_bias.extend(tensor(&format!("{p}attention.self.{part}.bias"), &[d])?);
            }
            layers.push(Layer {
                qkv,
                qkv_bias,
                output: tensor(&format!("{p}attention.output.dense.weight"), &[d, d])?,
                output_bias: tensor(&format!("{p}attention.output.dense.bias"), &[d])?,
                attention_norm: norm(&mut tensor, &format!("{p}attention.output.LayerNorm"))?,
                inner: tensor(&format!("{p}intermediate.dense.weight"), &[config.inner, d])?,
                inner_bias: tensor(&format!("{p}intermediate.dense.bias"), &[config.inner])?,
                outer: tensor(&format!("{p}output.dense.weight"), &[d, config.inner])?,
                outer_bias: tensor(&format!("{p}output.dense.bias"), &[d])?,
                output_norm: norm(&mut tensor, &format!("{p}output.LayerNorm"))?,
            });
        }
        let (start, _) = header.locate("embeddings.word_embeddings.weight", &[config.vocab, d])?;
        Ok(Self {
            config,
            positions: all_positions,
            token_type,
            embedding_norm,
            layers,
            tokens: TokenTable {
                file: Mutex::new(file),
                start,
                rows: config.vocab,
            },
        })
    }

    /// The token-table rows of `ids`, one after another.
    ///
    /// # Errors
    /// An id outside the table, or a read error.
    pub fn token_rows(&self, ids: &[u32]) -> Result<Vec<f32>, Invalid> {
        let d = self.config.width;
        let mut rows = vec![0f32; ids.len() * d];
        let mut file = self
            .tokens
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for (row, &id) in rows.chunks_exact_mut(d).zip(ids) {
            let id = id as usize;
            if id >= self.tokens.rows {
                return Err(invalid(format!(
                    "token id {id} is outside the model's vocabulary"
                )));
            }
            let at = self.tokens.start + (id * d * 4) as u64;
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
