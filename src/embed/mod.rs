//! The sentence-embedding model of `recall --ranking hybrid` (docs/HYBRID.md): all-MiniLM-L6-v2,
//! a 6-layer BERT encoder, run in this binary — its WordPiece [`tokenizer`], its weights read
//! from the safetensors file ([`weights`]) and the forward pass ([`bert`]).

pub mod tokenizer;
