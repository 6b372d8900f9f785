//! JSON text and hashing (docs §2.1): compact and pretty writing of a 2 MiB journal's worth of
//! events, parsing it back, and SHA-256 of 1 MiB (what `observe`/`outcomes` spend on every
//! Nexus file they hash).

use std::hint::black_box;
use std::time::Duration;

use bmad_mem::js::json::{Value, parse, sha256_hex};
use bmad_mem::store::journal::events;
use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use testkit::corpus::{self, Amount, CAP, Vocabulary};

const SEED: u64 = 1;

fn benches(c: &mut Criterion) {
    let vocab = Vocabulary::new(SEED);
    let journal = corpus::journal(&vocab, SEED, Amount::Bytes(CAP));
    let value = Value::Array(events(&journal).map(Value::Object).collect());
    let compact = value.compact();
    let pretty = value.pretty();

    let mut group = c.benchmark_group("json");
    group
        .sample_size(20)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Bytes(compact.len() as u64));
    group.bench_function("compact_2MiB", |b| b.iter(|| black_box(&value).compact()));
    group.bench_function("parse_2MiB", |b| {
        b.iter(|| parse(black_box(&compact)).map(|_| ()));
    });
    group.throughput(Throughput::Bytes(pretty.len() as u64));
    group.bench_function("pretty", |b| b.iter(|| black_box(&value).pretty()));
    group.finish();

    let bytes: Vec<u8> = journal.bytes().cycle().take(1 << 20).collect();
    let mut group = c.benchmark_group("hash");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("sha256_1MiB", |b| b.iter(|| sha256_hex(black_box(&bytes))));
    group.finish();
}

criterion_group! {
    name = json;
    // Plots take longer to draw than some benches take to run; the figures are in the log.
    config = Criterion::default().without_plots();
    targets = benches
}
criterion_main!(json);
