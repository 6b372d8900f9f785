//! The hot paths of `recall` on full-size inputs (docs §11): tokenizing and scoring a 2 MiB
//! note file, cutting it into sections, and reading a 2 MiB journal; then a whole recall of a
//! 14 MiB store in-process, lexical and `--ranking bm25` side by side.
//!
//! Inputs come from the same generator as `examples/gen-store.rs` (seed 1), so the figures
//! match the whole-process benches in `benches/cli.sh`. Throughput is reported in bytes, which
//! makes the per-MiB cost of each step comparable.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use bmad_mem::actions::recall::score::{
    Best, NoteFile, query_tokens, score, score_events, score_sections,
};
use bmad_mem::actions::recall::{self, RecallArgs};
use bmad_mem::context::{Context, Now};
use bmad_mem::js::text::for_each_token;
use bmad_mem::store::journal::events;
use bmad_mem::store::sections::sections;
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use testkit::corpus::{self, Amount, CAP, Kind, Vocabulary};

const SEED: u64 = 1;
const QUERY: &str = "rate limit auth-middleware session";
/// The benches' clock, 2026-10-18T09:30:00.000Z, as `BMAD_MEM_NOW` in `cli.sh`.
const NOW_MS: f64 = 1_792_315_800_000.0;

fn inputs() -> (String, String) {
    let vocab = Vocabulary::new(SEED);
    let notes = corpus::note_file(
        &vocab,
        SEED,
        ".agents/memory/decisions.md",
        Kind::Decisions,
        Amount::Bytes(CAP),
    );
    let journal = corpus::journal(&vocab, SEED, Amount::Bytes(CAP));
    (notes, journal)
}

fn configure<'a>(c: &'a mut Criterion, name: &str, bytes: usize) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        // Each iteration takes milliseconds: equal iteration counts per sample suit them.
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Bytes(bytes as u64));
    group
}

fn benches(c: &mut Criterion) {
    let (notes, journal) = inputs();
    let query = query_tokens(QUERY);
    let file = NoteFile {
        source: "decisions.md",
        path: PathBuf::from("/bench/.agents/memory/decisions.md"),
        source_file: ".agents/memory/decisions.md".to_owned(),
        within: PathBuf::from("/bench"),
    };

    let mut group = configure(c, "notes_2MiB", notes.len());
    group.bench_function("tokenize", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for_each_token(black_box(&notes), |_| n += 1);
            n
        });
    });
    group.bench_function("score_whole_text", |b| {
        b.iter(|| score(black_box(&query), &[black_box(&notes)]));
    });
    group.bench_function("cut_sections", |b| {
        b.iter(|| sections(black_box(&notes)).len());
    });
    group.bench_function("score_sections_best_8", |b| {
        // What lexical recall does with a note file: every section scored, the best 8 kept.
        b.iter(|| {
            let mut best = Best::new(8);
            score_sections(&file, black_box(&notes), &query, &mut best);
            best.into_sorted().len()
        });
    });
    group.finish();

    let mut group = configure(c, "journal_2MiB", journal.len());
    group.bench_function("parse_events", |b| {
        b.iter(|| events(black_box(&journal)).count());
    });
    group.bench_function("score_events_best_8", |b| {
        // What lexical recall does with the journal: every event scored, the best 8 kept.
        b.iter(|| {
            let mut best = Best::new(8);
            score_events(black_box(&journal), &query, NOW_MS, &mut best);
            best.into_sorted().len()
        });
    });
    group.finish();
}

/// A full store (the journal and six note files, each 2 MiB) written into `dir`.
fn write_store(dir: &std::path::Path) -> usize {
    let vocab = Vocabulary::new(SEED);
    let mut total = 0;
    let mut put = |label: &str, text: String| {
        let path = dir.join(label);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("the store's folders");
        std::fs::write(&path, &text).expect("a store file");
        total += text.len();
    };
    put(
        ".bmad/memory/journal.ndjson",
        corpus::journal(&vocab, SEED, Amount::Bytes(CAP)),
    );
    for folder in [".bmad/memory", ".agents/memory"] {
        for kind in Kind::ALL {
            let label = format!("{folder}/{}", kind.file_name());
            let text = corpus::note_file(&vocab, SEED, &label, kind, Amount::Bytes(CAP));
            put(&label, text);
        }
    }
    total
}

fn whole_recall(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let bytes = write_store(dir.path());
    let ctx = Context::new(dir.path(), None, Now::from_ms(NOW_MS)).expect("the store's context");
    let mut group = configure(c, "store_14MiB", bytes);
    for ranking in ["lexical", "bm25"] {
        let args = RecallArgs {
            query: vec![QUERY.to_owned()],
            ranking: Some(ranking.to_owned()),
            ..RecallArgs::default()
        };
        group.bench_function(format!("recall_{ranking}"), |b| {
            b.iter(|| {
                recall::run(black_box(&args), &ctx)
                    .expect("a recall")
                    .results
                    .len()
            });
        });
    }
    group.finish();
}

criterion_group! {
    name = recall;
    // Plots take longer to draw than some benches take to run; the figures are in the log.
    config = Criterion::default().without_plots();
    targets = benches, whole_recall
}
criterion_main!(recall);
