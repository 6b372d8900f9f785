//! Writes a synthetic project memory for the benchmarks, deterministic from a seed.
//!
//! ```text
//! cargo run --release --example gen-store -- --size typical|full|<pct>%|<events>,<sections> --out DIR [--seed N] [--brain]
//! ```
//!
//! * `typical`: 200 journal events and 150 sections spread over the six note files.
//! * `full`: the journal and all six note files each filled to just under 2 MiB (docs §11).
//! * `<pct>%`: every file filled to that share of 2 MiB (the growth series: `10%`, `25%`, …).
//! * `<events>,<sections>`: exact counts; the sections are spread over the six files.
//!
//! Notes go to `DIR/.bmad/memory/` and `DIR/.agents/memory/` (`decisions.md`, `lessons.md`,
//! `patterns.md`), events to `DIR/.bmad/memory/journal.ndjson` in exactly the format
//! `bmad-mem write` appends. With `--brain` the three note files go to `DIR/memory/` instead
//! (a portfolio brain for `recall --scope portfolio --portfolio DIR`) and no journal is written.
//!
//! With `--receipts N` (1–1,000) the project also gets real BMAD+ Nexus runs (`N` accepted
//! tasks, at most 200 per plan, each with its own scope of three files; see
//! `testkit::nexus_store`) and a valid receipt store `.bmad/memory/outcomes.ndjson` of `N`
//! receipts, one per task attempt, each bound to its own section of `.agents/memory/lessons.md`
//! (appended to that file, inside its size budget). Each receipt is built as `bmad-mem observe`
//! builds it (docs §8 step 9): the source from [`bmad_mem::nexus::Nexus::accepted_source`], the
//! memory from [`bmad_mem::actions::receipts::SectionReader`], the id the sha256 of the body's compact
//! JSON. `DIR` must have no link in its path (Nexus compares `run.project` with its real path).
//! For the benches it also writes, under `DIR/.bench/`: `outcomes-but-last.ndjson` (the first
//! `N − 1` receipts), `observe-input.json` (the `observe` input that records the last one) and
//! `nexus-files.txt` (every file the runs name, once per line, relative to `DIR`
//! when inside it).
//! Existing files are overwritten; nothing else in `DIR` is touched.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use bmad_mem::actions::receipts::SectionReader;
use bmad_mem::js::json::Value as LibValue;
use bmad_mem::nexus::Nexus;
use clap::Parser;
use testkit::corpus::{self, Amount, CAP, Kind, Rng, Vocabulary};
use testkit::json::{Object, Value};
use testkit::nexus_store::{self as nexus, LESSONS};

/// Generate a synthetic bmad-mem store.
#[derive(Debug, Parser)]
#[command(name = "gen-store")]
struct Args {
    /// typical, full, <pct>% of full, or <events>,<sections>.
    #[arg(long, default_value = "typical")]
    size: String,
    /// Project folder to write into (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Seed of the random streams; the same seed gives the same bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write a portfolio brain (`memory/*.md`, no journal) instead of a project store.
    #[arg(long)]
    brain: bool,
    /// Also write Nexus runs and a receipt store of this many receipts (at most 1,000).
    #[arg(long, default_value_t = 0)]
    receipts: usize,
}

/// How much goes into the journal and into each note file.
#[derive(Debug, Clone, Copy)]
struct Size {
    events: Amount,
    /// Sections in total (spread over the files) or bytes per file.
    sections: Amount,
}

fn parse_size(text: &str) -> Result<Size, String> {
    let bad = || {
        format!("invalid --size {text:?}: expected typical, full, <pct>% or <events>,<sections>")
    };
    match text {
        "typical" => Ok(Size {
            events: Amount::Entries(200),
            sections: Amount::Entries(150),
        }),
        "full" => Ok(Size {
            events: Amount::Bytes(CAP),
            sections: Amount::Bytes(CAP),
        }),
        _ => {
            if let Some(pct) = text.strip_suffix('%') {
                let pct: usize = pct.parse().map_err(|_| bad())?;
                if pct == 0 || pct > 100 {
                    return Err(bad());
                }
                let bytes = CAP * pct / 100;
                Ok(Size {
                    events: Amount::Bytes(bytes),
                    sections: Amount::Bytes(bytes),
                })
            } else {
                let (e, s) = text.split_once(',').ok_or_else(bad)?;
                Ok(Size {
                    events: Amount::Entries(e.trim().parse().map_err(|_| bad())?),
                    sections: Amount::Entries(s.trim().parse().map_err(|_| bad())?),
                })
            }
        }
    }
}

/// The note files to write, in recall's order, each with its share of the sections.
fn note_targets(out: &Path, brain: bool, sections: Amount) -> Vec<(PathBuf, Kind, Amount)> {
    let dirs: Vec<PathBuf> = if brain {
        vec![out.join("memory")]
    } else {
        vec![out.join(".bmad/memory"), out.join(".agents/memory")]
    };
    let files = dirs.len() * Kind::ALL.len();
    let mut targets = Vec::with_capacity(files);
    for dir in &dirs {
        for kind in Kind::ALL {
            let amount = match sections {
                Amount::Bytes(b) => Amount::Bytes(b),
                Amount::Entries(n) => {
                    let i = targets.len();
                    Amount::Entries(n / files + usize::from(i < n % files))
                }
            };
            targets.push((dir.join(kind.file_name()), kind, amount));
        }
    }
    targets
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("{:>9} bytes  {}", text.len(), path.display());
    Ok(())
}

fn generate(args: &Args) -> Result<(), String> {
    let size = parse_size(&args.size)?;
    let vocab = Vocabulary::new(args.seed);
    if args.receipts > 1000 || (args.brain && args.receipts > 0) {
        return Err(String::from(
            "--receipts takes at most 1000, and no --brain",
        ));
    }
    let mut args_out = args.out.clone();
    if args.receipts > 0 {
        fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
        let absolute =
            std::path::absolute(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
        let real =
            fs::canonicalize(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
        if real != absolute {
            return Err(format!(
                "{} has a link in its path (real path {}): Nexus refuses it",
                absolute.display(),
                real.display()
            ));
        }
        args_out = real;
    }
    let out = args_out.as_path();
    let receipts = receipt_plan(&vocab, args.seed, args.receipts);
    let mut total = 0;
    if !args.brain {
        let journal = corpus::journal(&vocab, args.seed, size.events);
        write(&out.join(".bmad/memory/journal.ndjson"), &journal)?;
        total += journal.len();
    }
    for (path, kind, amount) in note_targets(out, args.brain, size.sections) {
        let label = path
            .strip_prefix(out)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let text = if label == LESSONS && !receipts.is_empty() {
            // The receipts' sections go at the end, inside the file's budget.
            let extra: String = receipts.iter().map(|r| r.section.as_str()).collect();
            let amount = match amount {
                Amount::Bytes(b) => Amount::Bytes(b.saturating_sub(extra.len()).max(4096)),
                entries @ Amount::Entries(_) => entries,
            };
            corpus::note_file(&vocab, args.seed, &label, kind, amount) + &extra
        } else {
            corpus::note_file(&vocab, args.seed, &label, kind, amount)
        };
        write(&path, &text)?;
        total += text.len();
    }
    if !receipts.is_empty() {
        total += write_receipts(&vocab, args.seed, out, &receipts)?;
    }
    println!(
        "{total:>9} bytes  in all (seed {}, vocabulary of {} words)",
        args.seed,
        vocab.len()
    );
    Ok(())
}

/// One receipt to write: its task and its lessons section.
struct ReceiptPlan {
    heading: String,
    section: String,
}

/// The lessons sections of `n` receipts, one per task, in task order (`bench-run-R/tKKK`).
fn receipt_plan(vocab: &Vocabulary, seed: u64, n: usize) -> Vec<ReceiptPlan> {
    let mut rng = Rng::derive(seed, "receipt lessons");
    (0..n)
        .map(|i| {
            let (heading, section) = nexus::receipt_lesson(vocab, &mut rng, i);
            ReceiptPlan { heading, section }
        })
        .collect()
}

/// Writes the Nexus runs, the receipt store and the bench helpers; the bytes written.
fn write_receipts(
    vocab: &Vocabulary,
    seed: u64,
    root: &Path,
    plans: &[ReceiptPlan],
) -> Result<usize, String> {
    let mut rng = Rng::derive(seed, "nexus runs");
    let runs = nexus::write_runs(root, plans.len(), || vocab.title(&mut rng))?;
    println!(
        "{:>9} bytes  {} Nexus runs, {} accepted tasks",
        runs.bytes,
        plans.len().div_ceil(nexus::MAX_TASKS),
        runs.tasks.len()
    );
    let mut resolver = Nexus::new(root);
    let mut sections = SectionReader::default();
    let mut lines = Vec::with_capacity(plans.len());
    let mut last_input = Value::Null;
    for (task, plan) in runs.tasks.iter().zip(plans) {
        let source = resolver
            .accepted_source(&task.run_id, &task.task_id)
            .map_err(|e| format!("{}/{}: {e}", task.run_id, task.task_id))?;
        let memory = sections
            .resolve(
                root,
                Some(&LibValue::from(LESSONS)),
                Some(&LibValue::from(plan.heading.as_str())),
            )
            .map_err(|e| format!("{LESSONS} {:?}: {e}", plan.heading))?;
        let receipt = nexus::receipt(
            &LibValue::Object(source).compact(),
            &LibValue::Object(memory).compact(),
            task,
        );
        lines.push(Value::Object(receipt).compact() + "\n");
        last_input = Value::Object(
            Object::new()
                .with("runId", task.run_id.as_str())
                .with("taskId", task.task_id.as_str())
                .with(
                    "memory",
                    Object::new()
                        .with("file", LESSONS)
                        .with("heading", plan.heading.as_str()),
                )
                .with("scope", vec![Value::from(task.scope.as_str())])
                .with("interpretation", nexus::interpretation(task))
                .with("supersedes", Vec::<Value>::new())
                .with("contradicts", Vec::<Value>::new()),
        );
    }
    let all = lines.concat();
    write(&root.join(".bmad/memory/outcomes.ndjson"), &all)?;
    write(
        &root.join(".bench/outcomes-but-last.ndjson"),
        &lines[..lines.len() - 1].concat(),
    )?;
    write(
        &root.join(".bench/observe-input.json"),
        &(last_input.pretty() + "\n"),
    )?;
    let mut files = String::new();
    for file in &runs.files {
        let _ = writeln!(
            files,
            "{}",
            file.strip_prefix(root).unwrap_or(file).display()
        );
    }
    write(&root.join(".bench/nexus-files.txt"), &files)?;
    Ok(runs.bytes + all.len())
}

fn main() -> ExitCode {
    match generate(&Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("gen-store: {message}");
            ExitCode::FAILURE
        }
    }
}
