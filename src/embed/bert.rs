//! The forward pass of a BERT encoder and the sentence vector made from it, as
//! sentence-transformers computes it for all-MiniLM-L6-v2 (docs/HYBRID.md §The model):
//!
//! 1. each token's row of the token table, plus its position's row, plus the row of token type
//!    0, layer-normalized;
//! 2. per layer: multi-head self-attention (query, key and value in one product; scores scaled
//!    by `1/√head width`, softmax per row, no mask since a text is never padded), its output
//!    projection added back and layer-normalized; then the feed-forward block (exact GELU)
//!    added back and layer-normalized;
//! 3. the mean of the tokens' last states (`[CLS]` and `[SEP]` included), divided by its
//!    length.
//!
//! Everything is `f32`, as the weights are. A vector that comes out not finite or of length
//! zero (weights that are not numbers) is an error, never a vector.

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2, Axis, Slice};

use crate::embed::kernels::{gelu, layer_norm, softmax};
use crate::embed::weights::{Invalid, Layer, Weights};

/// `out = input · weightᵀ + bias` for `input` `[n × in]` and `weight` `[out × in]`, row-major.
fn linear(input: &[f32], width_in: usize, weight: &[f32], bias: &[f32], out: &mut Vec<f32>) {
    let n = input.len() / width_in;
    let width_out = bias.len();
    out.clear();
    for _ in 0..n {
        out.extend_from_slice(bias);
    }
    let a = ArrayView2::from_shape((n, width_in), input).expect("the input's shape");
    let w = ArrayView2::from_shape((width_out, width_in), weight).expect("the weight's shape");
    let mut c = ArrayViewMut2::from_shape((n, width_out), out).expect("the output's shape");
    general_mat_mul(1.0, &a, &w.t(), 1.0, &mut c);
}

/// Buffers reused from layer to layer.
#[derive(Default)]
struct Scratch {
    qkv: Vec<f32>,
    context: Vec<f32>,
    scores: Vec<f32>,
    projected: Vec<f32>,
    inner: Vec<f32>,
}

/// One encoder layer over the `states` (`[tokens × width]`), in place.
fn layer(states: &mut [f32], weights: &Layer, heads: usize, epsilon: f32, scratch: &mut Scratch) {
    let width = weights.output_bias.len();
    let tokens = states.len() / width;
    let size = width / heads;
    linear(
        states,
        width,
        &weights.qkv,
        &weights.qkv_bias,
        &mut scratch.qkv,
    );
    let qkv = ArrayView2::from_shape((tokens, 3 * width), &scratch.qkv).expect("the states' shape");
    scratch.context.clear();
    scratch.context.resize(tokens * width, 0.0);
    scratch.scores.clear();
    scratch.scores.resize(tokens * tokens, 0.0);
    #[expect(clippy::cast_precision_loss, reason = "a head's width is small")]
    let scale = 1.0 / (size as f32).sqrt();
    {
        let mut context = ArrayViewMut2::from_shape((tokens, width), &mut scratch.context)
            .expect("the context's shape");
        for head in 0..heads {
            // Columns of the stacked query, key and value (the `s!` macro is not used: it
            // expands to an `allow(unsafe_code)` this crate forbids).
            let columns = |from: usize| Slice::from(from + head * size..from + (head + 1) * size);
            let query = qkv.slice_axis(Axis(1), columns(0));
            let key = qkv.slice_axis(Axis(1), columns(width));
            let value = qkv.slice_axis(Axis(1), columns(2 * width));
            let mut scores = ArrayViewMut2::from_shape((tokens, tokens), &mut scratch.scores)
                .expect("the scores' shape");
            general_mat_mul(scale, &query, &key.t(), 0.0, &mut scores);
            for row in scratch.scores.chunks_exact_mut(tokens) {
                softmax(row);
            }
            let scores =
                ArrayView2::from_shape((tokens, tokens), &scratch.scores).expect("the scores");
            let mut out = context.slice_axis_mut(Axis(1), columns(0));
            general_mat_mul(1.0, &scores, &value, 0.0, &mut out);
        }
    }
    linear(
        &scratch.context,
        width,
        &weights.output,
        &weights.output_bias,
        &mut scratch.projected,
    );
    add_and_norm(states, &scratch.projected, &weights.attention_norm, epsilon);
    linear(
        states,
        width,
        &weights.inner,
        &weights.inner_bias,
        &mut scratch.inner,
    );
    gelu(&mut scratch.inner);
    let inner = weights.inner_bias.len();
    linear(
        &scratch.inner,
        inner,
        &weights.outer,
        &weights.outer_bias,
        &mut scratch.projected,
    );
    add_and_norm(states, &scratch.projected, &weights.output_norm, epsilon);
}

/// `x = layer_norm(x + delta)`.
fn add_and_norm(x: &mut [f32], delta: &[f32], (gain, bias): &(Vec<f32>, Vec<f32>), epsilon: f32) {
    for (v, d) in x.iter_mut().zip(delta) {
        *v += d;
    }
    layer_norm(x, (gain, bias), epsilon);
}

/// The sentence vector of the token ids `ids` (`[CLS]` … `[SEP]`, at most as many as the
/// model has positions for): unit length, `width` values.
///
/// # Errors
/// No ids, more than the positions, an id outside the vocabulary, a read error of the token
/// table, or a vector that is not finite.
pub fn sentence_vector(weights: &Weights, ids: &[u32]) -> Result<Vec<f32>, Invalid> {
    let config = &weights.config;
    let d = config.width;
    let n = ids.len();
    if n == 0 || n * d > weights.positions.len() {
        return Err(Invalid(format!(
            "{n} tokens do not fit the model's {} positions",
            weights.positions.len() / d
        )));
    }
    let mut x = weights.token_rows(ids)?;
    for (row, position) in x.chunks_exact_mut(d).zip(weights.positions.chunks_exact(d)) {
        for ((v, p), t) in row.iter_mut().zip(position).zip(&weights.token_type) {
            *v += p + t;
        }
    }
    let (gain, bias) = &weights.embedding_norm;
    layer_norm(&mut x, (gain, bias), config.epsilon);
    let mut scratch = Scratch::default();
    if let Some(layers) = weights.kept_layers() {
        for weights in layers {
            layer(&mut x, weights, config.heads, config.epsilon, &mut scratch);
        }
    } else {
        let mut read = Layer::default();
        for l in 0..config.layers {
            weights.read_layer(l, &mut read)?;
            layer(&mut x, &read, config.heads, config.epsilon, &mut scratch);
        }
    }
    let mut mean = vec![0f32; d];
    for row in x.chunks_exact(d) {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v;
        }
    }
    let norm = mean.iter().map(|v| v * v).sum::<f32>().sqrt();
    if !norm.is_finite() || norm <= 0.0 {
        return Err(Invalid(
            "the model gave a vector that is not a number (its weights are not usable)".into(),
        ));
    }
    for m in &mut mean {
        *m /= norm;
    }
    Ok(mean)
}

// Reads what only the repository has (docs: build.rs).
#[cfg(test)]
#[cfg(repository)]
mod tests {
    use super::*;
    use crate::embed::weights::Config;

    fn tiny() -> (Config, Weights) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/embed/tiny");
        let config =
            Config::from_json(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
        let weights = Weights::open(&dir.join("model.safetensors"), config, 256).unwrap();
        (config, weights)
    }

    #[test]
    fn layers_read_one_at_a_time_give_the_vector_of_layers_kept() {
        let (_, weights) = tiny();
        let ids = [2, 42, 258, 112, 2404, 772, 18, 3];
        let streamed = sentence_vector(&weights, &ids).unwrap();
        weights.keep_layers().unwrap();
        assert_eq!(sentence_vector(&weights, &ids).unwrap(), streamed);
        let norm: f32 = streamed.iter().map(|v| v * v).sum();
        assert!((norm - 1.0).abs() < 1e-5);
    }

    #[test]
    fn no_tokens_or_more_than_the_positions_are_refused() {
        let (_, weights) = tiny();
        assert!(sentence_vector(&weights, &[]).is_err());
        let err = sentence_vector(&weights, &[1; 257]).unwrap_err();
        assert!(
            err.0.contains("do not fit the model's 256 positions"),
            "{err:?}"
        );
    }
}
