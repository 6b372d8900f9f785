//! Loading a run and observing its tasks (`docs/NEXUS.md` "Is the evidence of a task
//! current?"): read and validate the run file, judge every task's evidence against today's
//! disk, then look for Nexus's locks, so that a missing or corrupt run wins over a lock.
//!
//! A task's observation never fails: whatever goes wrong while re-hashing its evidence makes
//! it stale, for the reason Nexus would give. Only the run's loading and validation and the
//! locks refuse the whole run.

use std::collections::HashSet;
use std::fs;
use std::io::{self, Read};
use std::path::Path;

use crate::error::{Error, Result};
use crate::js::tape::{Doc, Node};
use crate::store::paths::decode_lossy;

use crate::nexus::node::{
    current_attempt, field, ids, is_nexus_id, is_str, is_text, js_text, list, same, strict_eq,
    tasks_of,
};
use crate::nexus::paths::{BASE, Confined};
use crate::nexus::record::Run;
use crate::nexus::refusal::{enoent, nexus, stale_evidence};
use crate::nexus::snapshot::Disk;
use crate::nexus::source::{Loaded, Observation};
use crate::nexus::validate::{run_of, validate_envelope, validate_lifecycle, validate_plan};

/// Largest run file Nexus reads (twice its 16 MiB state limit, as Nexus has it).
pub(super) const RUN_LIMIT: u64 = 32 * 1024 * 1024;
/// The only verification environment policy that counts as current evidence.
const ENVIRONMENT_POLICY: &str = "minimal-local-v1";
/// Refusal while Nexus may be half-way through writing or recovering its state.
pub(super) const LOCKED: &str =
    "Nexus state is being written or recovered; retry observation after its owner finishes.";

impl Disk {
    /// `docs/NEXUS.md`: load and validate the run, observe every task, then look for a lock — so a
    /// missing or corrupt run wins over a lock.
    pub(super) fn load(&self, run_id: &str) -> Result<Loaded> {
        let doc = self.load_run(run_id)?;
        let run = Run::new(run_of(&doc));
        let observations = self.observe(&run);
        self.check_locks()?;
        Ok(Loaded::new(&run, run_id, &observations))
    }

    /// `docs/NEXUS.md` "The run file": read `runs/<runId>.json` and validate it, first failure wins.
    /// The envelope is returned; its validated run is [`run_of`] it.
    pub(super) fn load_run(&self, run_id: &str) -> Result<Doc> {
        if !is_nexus_id(run_id) {
            return Err(nexus(
                "Run ID must use 1-64 lowercase letters, numbers, _ or -.",
            ));
        }
        let target = self.confine(&format!("{BASE}/runs/{run_id}.json"))?.path;
        let meta = match fs::metadata(&target) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(enoent("stat", &target)),
            Err(e) => return Err(Error::io("cannot inspect", Path::new(&target), e)),
        };
        if meta.len() > RUN_LIMIT {
            return Err(nexus("Run state exceeds the size limit."));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        // Read one byte past the limit so a run that grew since the stat is still refused.
        fs::File::open(&target)
            .and_then(|file| file.take(RUN_LIMIT + 1).read_to_end(&mut bytes))
            .map_err(|e| Error::io("cannot read", Path::new(&target), e))?;
        if bytes.len() as u64 > RUN_LIMIT {
            return Err(nexus("Run state exceeds the size limit."));
        }
        // Node decodes the file as UTF-8 with replacement characters before parsing it.
        let envelope = Doc::parse(&decode_lossy(bytes))
            .map_err(|_| nexus("Corrupt run state; original bytes were preserved."))?;
        let run = validate_envelope(envelope.root(), run_id, self.root())?;
        validate_plan(run)?;
        validate_lifecycle(run, run_id)?;
        Ok(envelope)
    }

    /// Every task's observation, in task order (Nexus's `inspect`). Dependencies found current
    /// once are not checked again within the run.
    pub(super) fn observe(&self, run: &Run<'_>) -> Vec<Observation> {
        let mut verified = HashSet::new();
        tasks_of(run.value)
            .map(|task| {
                let mut stale_reason = None;
                if let Err(e) = self.protected_snapshot(run.definition_of(task)) {
                    stale_reason = Some(e.to_string());
                }
                let mut is_evidence_eligible = false;
                let status = field(field(current_attempt(task), "verification"), "status");
                if is_str(status, "passed") {
                    match self.evidence_current(run, task, &mut verified, &mut Vec::new()) {
                        Ok(()) => is_evidence_eligible = true,
                        Err(e) => stale_reason = Some(e.to_string()),
                    }
                }
                Observation {
                    is_evidence_eligible,
                    stale_reason,
                }
            })
            .collect()
    }

    /// `docs/NEXUS.md`: a `writer.lock` or `recovery.lock` means the run may be half written.
    fn check_locks(&self) -> Result<()> {
        let mut is_locked = false;
        for name in ["writer.lock", "recovery.lock"] {
            let Confined { path: target, meta } = self.confine(&format!("{BASE}/{name}"))?;
            if meta.is_some() {
                // Nexus reads the owner of a lock it finds; an unreadable one fails as it does.
                fs::read(&target).map_err(|e| Error::io("cannot read", Path::new(&target), e))?;
                is_locked = true;
            }
        }
        if is_locked {
            return Err(Error::refused(LOCKED));
        }
        Ok(())
    }

    /// `docs/NEXUS.md` "Is the evidence of a task current?", steps 1–6, dependencies recursively.
    /// `verified` holds the tasks already found current; `ancestors` the dependency path.
    fn evidence_current(
        &self,
        run: &Run<'_>,
        task: Node<'_>,
        verified: &mut HashSet<String>,
        ancestors: &mut Vec<String>,
    ) -> Result<()> {
        let id = field(Some(task), "id");
        let key = id.map_or("undefined", Node::compact).to_owned();
        if ancestors.contains(&key) {
            return Err(nexus(format!("Dependency cycle at {}", js_text(id))));
        }
        if verified.contains(&key) {
            return Ok(());
        }
        // 1. A passed verification of the current attempt, completed and not being cancelled.
        let attempt = current_attempt(task);
        let verification = field(attempt, "verification");
        if attempt.is_none()
            || !is_str(field(verification, "status"), "passed")
            || !strict_eq(field(verification, "attemptId"), field(attempt, "id"))
            || !is_str(field(attempt, "execution"), "completed")
            || is_str(field(field(attempt, "cancellation"), "status"), "requested")
        {
            return Err(nexus(
                "Current attempt has no eligible passed verification.",
            ));
        }
        // 2. The environment the checks ran in, under the current policy.
        let environment = field(verification, "environment").filter(|e| e.is_truthy());
        let is_current_environment = environment.is_some_and(|environment| {
            is_str(field(Some(environment), "policy"), ENVIRONMENT_POLICY)
                && field(Some(environment), "values").is_some_and(|values| {
                    is_str(field(Some(environment), "sha256"), &values.sha256())
                })
        });
        if !is_current_environment {
            return Err(nexus(
                "Verification environment is missing or obsolete; fresh evidence is required.",
            ));
        }
        // 3. Protected resources and executables unchanged.
        let definition = run.definition_of(task);
        self.protected_snapshot(definition)?;
        // 4. Today's scope and artifacts are the ones verified.
        let scope = self.scope_snapshot(field(definition, "scope"))?;
        if !is_text(field(verification, "scopeHashes"), &scope) {
            return Err(stale_evidence());
        }
        let artifacts = list(field(definition, "artifacts"), "artifacts")?;
        let artifacts = self.files_snapshot(&artifacts.map(Node::to_value).collect::<Vec<_>>())?;
        if !is_text(field(verification, "artifactHashes"), &artifacts) {
            return Err(stale_evidence());
        }
        // 5. One clean receipt per defined check, in order, from this attempt and environment.
        let receipts = list(field(verification, "checks"), "verification checks")?;
        let checks = list(field(definition, "checks"), "checks")?;
        let is_clean = |receipt: Node<'_>| {
            let receipt = Some(receipt);
            field(receipt, "exitCode").and_then(Node::as_f64) == Some(0.0)
                && !field(receipt, "error").is_some_and(Node::is_truthy)
                && !field(receipt, "signal").is_some_and(Node::is_truthy)
                && strict_eq(field(receipt, "attemptId"), field(attempt, "id"))
                && same(field(receipt, "environment"), environment)
        };
        if ids(receipts.clone()) != ids(checks) || !receipts.into_iter().all(is_clean) {
            return Err(nexus("Verification receipt is incomplete."));
        }
        // 6. Every dependency accepted, with current evidence of its own.
        ancestors.push(key.clone());
        for dependency_id in list(field(definition, "dependsOn"), "dependsOn")? {
            let dependency = run.task_of(dependency_id)?;
            if !is_str(field(Some(dependency), "integration"), "accepted") {
                return Err(nexus(format!(
                    "Dependency has not been accepted: {}",
                    dependency_id.text()
                )));
            }
            self.evidence_current(run, dependency, verified, ancestors)?;
        }
        ancestors.pop();
        verified.insert(key);
        Ok(())
    }
}
