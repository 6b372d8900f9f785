//! Snapshot hashing (docs §8 step 5, §9.2 step 5): what `bmad-mem observe` and `outcomes` spend
//! re-checking accepted BMAD+ Nexus work. A run file is parsed and its run and plan hashed; a
//! run is loaded, validated and observed (every file its tasks name hashed once); 1,000
//! accepted sources are resolved over 5 runs loaded in parallel; and a store of 1,000 receipts
//! is read (strict parse and per-receipt SHA-256) and re-checked as `outcomes` does it.
//!
//! The project is generated once, as `gen-store --size typical --receipts 1000` writes its
//! Nexus runs, lessons file and receipt store (seed 1, same bytes; the other note files and the
//! journal are left out, nothing here reads them): 5 runs × 200 accepted tasks of three files
//! each, in a temporary folder (its real path: Nexus refuses links). Files are read from a warm
//! page cache, as in `benches/cli.sh`; "cold" means a fresh [`Nexus`], which caches nothing
//! between instances. Throughput is the bytes read and hashed (the run files, the scope files,
//! the resource, the real file behind `/bin/sh`, the store and the lessons file), so the
//! figures compare with plain SHA-256 in `benches/json.rs`.

use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bmad_mem::actions::receipts::{Inspector, SectionReader, read_store};
use bmad_mem::js::json::{Value, parse};
use bmad_mem::js::tape::Doc;
use bmad_mem::nexus::Nexus;
use bmad_mem::store::layout::OUTCOMES;
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use tempfile::TempDir;
use testkit::corpus::{self, Amount, Kind, Rng, Vocabulary};
use testkit::nexus_store::{self as nexus, LESSONS};

const SEED: u64 = 1;
/// Receipts, one per accepted task: 5 runs × [`nexus::MAX_TASKS`].
const RECEIPTS: usize = 1000;
/// Its own sections, as in a typical store (150 sections over six note files).
const LESSONS_SECTIONS: usize = 25;

/// The generated project; the folder is removed when this is dropped.
struct Project {
    _dir: TempDir,
    root: PathBuf,
    runs: nexus::Written,
    run_ids: Vec<String>,
}

impl Project {
    fn generate() -> Self {
        let dir = TempDir::new().expect("a temporary folder");
        let root = fs::canonicalize(dir.path()).expect("the temporary folder's real path");
        let vocab = Vocabulary::new(SEED);
        let mut rng = Rng::derive(SEED, "nexus runs");
        let runs = nexus::write_runs(&root, RECEIPTS, || vocab.title(&mut rng))
            .expect("the Nexus runs are written");
        let headings = write_lessons(&vocab, &root, &runs.tasks);
        write_store(&root, &runs.tasks, &headings);
        let mut run_ids: Vec<String> = runs.tasks.iter().map(|t| t.run_id.clone()).collect();
        run_ids.dedup();
        Self {
            _dir: dir,
            root,
            runs,
            run_ids,
        }
    }

    /// Bytes of the files the runs name that loading the runs in `run_ids` reads.
    fn nexus_bytes(&self, run_ids: &[String]) -> u64 {
        let src = self.root.join("src");
        let runs = self.root.join(".bmad-plus/nexus/runs");
        let other_run = |path: &Path| {
            let owner = if let Ok(rest) = path.strip_prefix(&src) {
                rest.iter()
                    .next()
                    .and_then(|r| r.to_str()?.strip_prefix('r'))
                    .map(|r| format!("bench-run-{r}"))
            } else if let Ok(rest) = path.strip_prefix(&runs) {
                rest.to_str()
                    .and_then(|f| f.strip_suffix(".json"))
                    .map(str::to_owned)
            } else {
                None // the resource and the shell: every run hashes them
            };
            owner.is_some_and(|owner| !run_ids.contains(&owner))
        };
        self.runs
            .files
            .iter()
            .filter(|path| !other_run(path))
            .map(|path| size(path))
            .sum()
    }
}

fn size(path: &Path) -> u64 {
    fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .len()
}

/// Writes the lessons file: its own sections, then one per receipt (`gen-store`'s bytes); the
/// receipts' headings, in task order.
fn write_lessons(vocab: &Vocabulary, root: &Path, tasks: &[nexus::TaskRef]) -> Vec<String> {
    let mut rng = Rng::derive(SEED, "receipt lessons");
    let mut text = corpus::note_file(
        vocab,
        SEED,
        LESSONS,
        Kind::Lessons,
        Amount::Entries(LESSONS_SECTIONS),
    );
    let mut headings = Vec::with_capacity(tasks.len());
    for i in 0..tasks.len() {
        let (heading, section) = nexus::receipt_lesson(vocab, &mut rng, i);
        text += &section;
        headings.push(heading);
    }
    let path = root.join(LESSONS);
    fs::create_dir_all(path.parent().expect("a parent")).expect("the memory folder");
    fs::write(&path, text).expect("the lessons file");
    headings
}

/// Writes the receipt store, each receipt built as `bmad-mem observe` builds it, as `gen-store`
/// does.
fn write_store(root: &Path, tasks: &[nexus::TaskRef], headings: &[String]) {
    let mut resolver = Nexus::new(root);
    let mut sections = SectionReader::default();
    let mut store = String::new();
    for (task, heading) in tasks.iter().zip(headings) {
        let source = resolver
            .accepted_source(&task.run_id, &task.task_id)
            .unwrap_or_else(|e| panic!("{}/{}: {e}", task.run_id, task.task_id));
        let memory = sections
            .resolve(
                root,
                Some(&Value::from(LESSONS)),
                Some(&Value::from(heading.as_str())),
            )
            .unwrap_or_else(|e| panic!("{LESSONS} {heading:?}: {e}"));
        let receipt = nexus::receipt(
            &Value::Object(source).compact(),
            &Value::Object(memory).compact(),
            task,
        );
        store += &testkit::json::Value::Object(receipt).compact();
        store.push('\n');
    }
    let path = root.join(OUTCOMES);
    fs::create_dir_all(path.parent().expect("a parent")).expect("the store folder");
    fs::write(&path, store).expect("the receipt store");
}

fn configure<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4))
        // Each iteration takes milliseconds: equal iteration counts per sample suit them.
        .sampling_mode(SamplingMode::Flat);
    group
}

fn benches(c: &mut Criterion) {
    let project = Project::generate();
    let root = project.root.as_path();
    let first = &project.runs.tasks[0];
    let run_file = root.join(format!(".bmad-plus/nexus/runs/{}.json", first.run_id));
    let run_text = fs::read_to_string(&run_file).expect("the first run file");
    let store = root.join(OUTCOMES);

    // Outside the timed loops: the project must be valid, or the figures measure refusals.
    let receipts = read_store(root).expect("the receipt store reads");
    assert_eq!(receipts.len(), RECEIPTS);
    let statuses = Inspector::new(root).statuses(&receipts, None);
    let ineligible: Vec<_> = statuses.iter().filter(|s| !s.is_eligible()).collect();
    assert!(
        ineligible.is_empty(),
        "{} of {RECEIPTS} receipts not eligible, the first: {:?}",
        ineligible.len(),
        ineligible[0]
    );

    let mut group = configure(c, "run_file");
    group.throughput(Throughput::Bytes(run_text.len() as u64));
    group.bench_function("parse_and_hash", |b| {
        b.iter(|| {
            let envelope = parse(black_box(&run_text)).expect("the run file parses");
            let run = envelope
                .as_object()
                .and_then(|o| o.get("run"))
                .expect("an envelope with a run");
            run.sha256_with_member("plan")
        });
    });
    group.bench_function("tape_parse_and_hash", |b| {
        b.iter(|| {
            let doc = Doc::parse(black_box(&run_text)).expect("the run file parses");
            let run = doc.root().get("run").expect("an envelope with a run");
            let plan = run.get("plan").expect("a run with a plan");
            (run.sha256(), plan.sha256())
        });
    });
    group.finish();

    let mut group = configure(c, "resolve");
    group.throughput(Throughput::Bytes(
        project.nexus_bytes(std::slice::from_ref(&first.run_id)),
    ));
    group.bench_function("one_task_cold", |b| {
        b.iter(|| {
            Nexus::new(black_box(root))
                .accepted_source(black_box(&first.run_id), black_box(&first.task_id))
                .expect("an accepted source")
        });
    });
    group.throughput(Throughput::Bytes(project.nexus_bytes(&project.run_ids)));
    group.bench_function("all_1000_prefetched", |b| {
        b.iter(|| {
            let mut nexus = Nexus::new(black_box(root));
            nexus.prefetch(project.run_ids.iter().map(String::as_str));
            let mut bytes = 0;
            for task in &project.runs.tasks {
                bytes += nexus
                    .accepted_source_text(black_box(&task.run_id), black_box(&task.task_id))
                    .expect("an accepted source")
                    .len();
            }
            bytes
        });
    });
    group.finish();

    let mut group = configure(c, "receipts");
    group.throughput(Throughput::Bytes(size(&store)));
    group.bench_function("read_store_1000", |b| {
        b.iter(|| read_store(black_box(root)).expect("the receipt store reads"));
    });
    group.throughput(Throughput::Bytes(
        size(&store) + size(&root.join(LESSONS)) + project.nexus_bytes(&project.run_ids),
    ));
    group.bench_function("statuses_1000", |b| {
        b.iter(|| {
            let receipts = read_store(black_box(root)).expect("the receipt store reads");
            Inspector::new(root).statuses(&receipts, None)
        });
    });
    group.finish();
}

criterion_group! {
    name = nexus_benches;
    // Plots take longer to draw than some benches take to run; the figures are in the log.
    config = Criterion::default().without_plots();
    targets = benches
}
criterion_main!(nexus_benches);
