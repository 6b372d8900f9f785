//! Integration tests: the real binary against temporary projects.
//!
//! One test binary (fast to link, one place for the builder). Every test copies a fixture from
//! `fixtures/` into a temporary folder through [`support::TestProject`], runs `bmad-mem` there
//! with a fixed `BMAD_MEM_NOW`, and checks the exit status, both output streams and the bytes of
//! the files: a success writes exactly the documented bytes, a failure writes nothing.
//!
//! * `write`, `recall`, `reinforce`: one module per action (docs §5–7).
//! * `observe`, `outcomes`, `evidence`: receipts bound to accepted Nexus work and evidence
//!   recall (docs §5 evidence part, §8, §9, `docs/NEXUS.md`).
//! * `bm25`: the opt-in `recall --ranking bm25`.
//! * `contract`: the command-line rules every action shares (docs §4, §2.7, §2.8).
//! * `lock`, `doctor`: inspecting and recovering the writer lock, the health check and its one
//!   repair; `archive`: moving older records out of a full store, and finishing an interrupted
//!   archive; `concurrency`, `crash`, `hostile`: the reliability proofs (`RELIABILITY.md`).
//! * `session`: the Memory pack's commands — init, status, brief, handoff, export, scan — with
//!   a temporary home; `brain`: the same commands against hostile links, brain layouts, export
//!   targets and leftovers of killed writers.
//!
//! Expected scores were computed independently with Node 20 (V8's `Math.log`/`Math.pow`,
//! `JSON.stringify`), running the documented formulas on the same inputs.

mod archive;
mod bm25;
mod brain;
mod concurrency;
mod confine;
mod contract;
mod crash;
mod doctor;
mod entries;
mod evidence;
mod hostile;
mod lock;
mod observe;
mod outcomes;
mod pack;
mod readers;
mod readme;
mod recall;
mod recovery;
mod reinforce;
mod session;
mod support;
mod terminal;
mod write;
