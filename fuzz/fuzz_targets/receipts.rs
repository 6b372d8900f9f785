//! The strict receipt-store reader: any bytes in `.bmad/memory/outcomes.ndjson` give receipts
//! or a refusal, never a panic.
#![no_main]

#[path = "../common.rs"]
mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use bmad_mem::actions::receipts;
use bmad_mem::store::layout::{MAX_RECEIPTS, OUTCOMES};
use libfuzzer_sys::fuzz_target;

static ROOT: OnceLock<PathBuf> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let root = ROOT.get_or_init(|| common::project("receipts"));
    common::write(root, OUTCOMES, data);
    if let Ok(list) = receipts::read_store(root) {
        assert!(list.len() <= MAX_RECEIPTS);
        for receipt in &list {
            let _ = receipts::attempt_identity(receipt);
        }
        // What was accepted is accepted again: the reader is deterministic.
        assert_eq!(
            receipts::read_store(root).map(|l| l.len()).ok(),
            Some(list.len())
        );
    }
});
