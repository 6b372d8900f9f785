//! `conflict-markers` (an error): a merge committed unresolved left git's markers in a note file
//! (both note folders), `refused.md`, a candidate file or a registry (the four NDJSON registries
//! and the pattern scores). The markers are found by `doctor`'s detector, which takes only the
//! whole structure git writes (`<<<<<<< `, an optional `||||||| `, `=======`, `>>>>>>> `, at the
//! start of their lines), so a Markdown heading underlined with `=======` is no conflict. One
//! finding per file, at the line of its first conflict, naming them all. A file that cannot be
//! read is left to the other checks and to `doctor`.

use crate::actions::entries::candidate::{candidate_path, candidates_dir, read_all};
use crate::admin::doctor::lines::conflict_openings;
use crate::admin::lint::findings::{Finding, Note, Severity, file_finding};
use crate::context::Context;
use crate::messages;
use crate::store::layout::{MERGED_REGISTRIES, REFUSED_FILE};
use crate::store::paths::read_registry_bytes;

/// The check's name, as `--ignore` and `lint.ignore` take it.
pub const CHECK: &str = "conflict-markers";

/// Adds a finding for each file holding conflict markers: the note files already read, then
/// `refused.md`, the candidates and the registries.
pub fn check(ctx: &Context, notes: &[Note], findings: &mut Vec<Finding>) {
    for note in notes {
        report(&note.rel, note.text.as_bytes(), findings);
    }
    if let Ok(Some(bytes)) = read_registry_bytes(&ctx.root, REFUSED_FILE, true) {
        report(REFUSED_FILE, &bytes, findings);
    }
    if let Ok(Some(dir)) = candidates_dir(ctx, false)
        && let Ok(stored) = read_all(&dir)
    {
        for candidate in stored {
            report(&candidate_path(&candidate.id), &candidate.bytes, findings);
        }
    }
    for rel in MERGED_REGISTRIES {
        if let Ok(Some(bytes)) = read_registry_bytes(&ctx.root, rel, true) {
            report(rel, &bytes, findings);
        }
    }
}

fn report(rel: &str, bytes: &[u8], findings: &mut Vec<Finding>) {
    let openings = conflict_openings(bytes);
    if let Some(&first) = openings.first() {
        let mut finding = file_finding(
            rel,
            CHECK,
            Severity::Error,
            messages::conflict_markers(&openings),
        );
        finding.line = Some(first);
        findings.push(finding);
    }
}
