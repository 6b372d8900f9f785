//! The Nexus run loader: any bytes as `.bmad-plus/nexus/runs/demo-run.json` of a real project
//! (the accepted demo run's files around it) resolve or refuse, never panic. When the input is
//! a JSON object with a `run`, it is also tried re-sealed (envelope `sha256` recomputed, the
//! `project` set to this root) so that mutations get past the seal into plan and lifecycle
//! validation and the evidence re-hashing.
#![no_main]

#[path = "../common.rs"]
mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use bmad_mem::js::json::{self, Value};
use bmad_mem::nexus::Nexus;
use libfuzzer_sys::fuzz_target;
use testkit::nexus_run;

static ROOT: OnceLock<PathBuf> = OnceLock::new();

fn resolve(root: &std::path::Path) {
    for task in [nexus_run::TASK, nexus_run::DEPENDENCY, "missing"] {
        let mut nexus = Nexus::new(root);
        let first = nexus.accepted_source(nexus_run::RUN_ID, task);
        // Cached: the same answer the second time.
        let second = nexus.accepted_source(nexus_run::RUN_ID, task);
        assert_eq!(first.is_ok(), second.is_ok());
    }
}

fuzz_target!(|data: &[u8]| {
    let root = ROOT.get_or_init(|| {
        let root = common::project("nexus_run");
        nexus_run::NexusRun::accepted(&root);
        root
    });
    common::write(root, nexus_run::RUN_FILE, data);
    resolve(root);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(Value::Object(mut envelope)) = json::parse(text) else {
        return;
    };
    let Some(Value::Object(mut run)) = envelope.get("run").cloned() else {
        return;
    };
    if run.get("project").is_some() {
        run.insert("project", root.to_string_lossy().as_ref());
    }
    envelope.insert("sha256", Value::Object(run.clone()).sha256());
    envelope.insert("run", run);
    common::write(
        root,
        nexus_run::RUN_FILE,
        Value::Object(envelope).pretty().as_bytes(),
    );
    resolve(root);
});
