//! The memory actions, one module each: `write`, `recall`, `reinforce` (docs §5–7);
//! `reinforcements`, the records `reinforce` keeps of every update;
//! `observe`, `outcomes`, `evidence` — receipts bound to accepted Nexus work and evidence recall
//! (docs §5 evidence part, §8, §9, `docs/NEXUS.md`), and `evidence_example`, the worked example
//! of `fixtures/evidence/` (in `docs/GUIDE.md`); `bm25`, the opt-in `recall --ranking bm25`,
//! and `recall_status`, the decisions' status it shows and weighs and the default ranking;
//! `entries`, the governed entries (`propose`, `admit`, `import`, `docs/ENTRIES.md`), and
//! `entries_real`, the same on real material (hand-written notes, links, long imports); `secrets`,
//! the secret check on every way in (`docs/SECRETS.md`);
//! `decisions` and `ledger`, the decision lifecycle and its ledger (`docs/DECISIONS.md`).

mod bm25;
pub mod decisions;
mod entries;
mod entries_real;
mod evidence;
mod evidence_example;
mod hybrid;
mod ledger;
pub mod observe;
mod outcomes;
mod recall;
mod recall_status;
mod reinforce;
pub mod reinforcements;
mod secrets;
mod write;
