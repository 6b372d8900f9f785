//! The reliability proofs (`RELIABILITY.md`): `concurrency` (parallel writers lose nothing),
//! `crash` and `recovery` (a killed writer leaves a state the next run repairs), `confine`
//! (links swapped in mid-write cannot move a write outside the project), `hostile` (hostile
//! repositories), `readers` (the loose reader's refusals: links, FIFOs, huge files),
//! `terminal` (control characters never reach the terminal raw), and `secrets` (the secret
//! detector's figures: the labelled set caught, no finding on project memory).

mod concurrency;
mod confine;
mod crash;
mod hostile;
mod readers;
mod recovery;
mod secrets;
mod terminal;
