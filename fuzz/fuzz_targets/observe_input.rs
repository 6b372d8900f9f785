//! `observe`'s input: any bytes as the observation file, in a project with an accepted Nexus
//! run and a lessons file, give a receipt or a refusal, never a panic. The receipt store is
//! emptied before each run so a successful observation does not turn the next into a
//! duplicate.
#![no_main]

#[path = "../common.rs"]
mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use bmad_mem::context::{Context, Now};
use bmad_mem::actions::observe::{self, ObserveArgs};
use bmad_mem::actions::receipts;
use bmad_mem::store::layout::OUTCOMES;
use libfuzzer_sys::fuzz_target;
use testkit::nexus_run;

const INPUT: &str = "observation.json";
const LESSONS: &str = ".agents/memory/lessons.md";
const LESSONS_TEXT: &str = "# Lessons\n\n### Compare password hashes, never plain text\n\
**Lesson:** Hash on write and compare hashes in constant time.\n\n\
### Sessions live one hour\n**Lesson:** Renew on activity.\n";

static ROOT: OnceLock<PathBuf> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let root = ROOT.get_or_init(|| {
        let root = common::project("observe_input");
        nexus_run::NexusRun::accepted(&root);
        common::write(&root, LESSONS, LESSONS_TEXT.as_bytes());
        root
    });
    let _ = std::fs::remove_file(root.join(OUTCOMES));
    common::write(root, INPUT, data);
    let ctx = Context::new(root, None, Now::parse("2026-01-02T03:04:05.000Z").unwrap())
        .expect("the project exists");
    let args = ObserveArgs {
        input: Some(INPUT.to_owned()),
    };
    if observe::run(&args, &ctx).is_ok() {
        // A written receipt is one the strict reader accepts.
        assert_eq!(receipts::read_store(root).map(|l| l.len()).ok(), Some(1));
    }
    assert!(
        !root.join(".bmad/memory/writer.lock").exists(),
        "lock released"
    );
});
