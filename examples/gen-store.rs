//! Writes a synthetic project memory for the benchmarks, deterministic from a seed.
//!
//! ```text
//! cargo run --release --example gen-store -- --size typical|full|<pct>%|<events>,<sections> --out DIR [--seed N] [--brain]
//! ```
//!
//! * `typical`: 200 journal events and 150 sections spread over the six note files.
//! * `full`: the journal and all six note files each filled to just under 2 MiB (SPEC §11).
//! * `<pct>%`: every file filled to that share of 2 MiB (the growth series: `10%`, `25%`, …).
//! * `<events>,<sections>`: exact counts; the sections are spread over the six files.
//!
//! Notes go to `DIR/.bmad/memory/` and `DIR/.agents/memory/` (`decisions.md`, `lessons.md`,
//! `patterns.md`), events to `DIR/.bmad/memory/journal.ndjson` in exactly the format
//! `bmad-mem write` appends. With `--brain` the three note files go to `DIR/memory/` instead
//! (a portfolio brain for `recall --scope portfolio --portfolio DIR`) and no journal is written.
//! Existing files are overwritten; nothing else in `DIR` is touched.

#[path = "../benches/support/corpus.rs"]
mod corpus;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use corpus::{Amount, CAP, Kind, Vocabulary};

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
    let mut total = 0;
    if !args.brain {
        let journal = corpus::journal(&vocab, args.seed, size.events);
        write(&args.out.join(".bmad/memory/journal.ndjson"), &journal)?;
        total += journal.len();
    }
    for (path, kind, amount) in note_targets(&args.out, args.brain, size.sections) {
        let label = path
            .strip_prefix(&args.out)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let text = corpus::note_file(&vocab, args.seed, &label, kind, amount);
        write(&path, &text)?;
        total += text.len();
    }
    println!(
        "{total:>9} bytes  in all (seed {}, vocabulary of {} words)",
        args.seed,
        vocab.len()
    );
    Ok(())
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
