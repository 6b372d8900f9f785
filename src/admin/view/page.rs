//! The whole page: one HTML document with its stylesheet and script inline, a
//! Content-Security-Policy that allows nothing from the network and no script or style but those
//! two (by their SHA-256), the header (what memory, when, the counts, the search box), then the
//! sections in order — Decisions, Timeline, Lessons and patterns, Evidence, Governance — and the
//! counts again for `--json`.

use std::fmt::Write as _;

use crate::admin::lint::findings::Note;
use crate::admin::view::decisions::{Decisions, Marks, Succession};
use crate::admin::view::entries;
use crate::admin::view::evidence::{self, STATUSES, status_name};
use crate::admin::view::governance;
use crate::admin::view::html::{count, csp_source, text};
use crate::admin::view::index::Index;
use crate::admin::view::memory::Memory;
use crate::admin::view::timeline;
use crate::js::json::{Object, Value};
use crate::store::layout::{CONTEXT_FILE, LINK_FILE, NOTE_FILES, PACK_DIR, SESSIONS_DIR};
use crate::store::sections::{Section, sections};

/// The page's stylesheet, allowed by its hash.
pub(crate) const STYLE: &str = include_str!("page.css");
/// The page's script (search, filters, pages of long lists, copy buttons), allowed by its hash.
pub(crate) const SCRIPT: &str = include_str!("page.js");

/// The Content-Security-Policy of the page: nothing from anywhere, but its own style and script.
#[must_use]
pub(crate) fn policy() -> String {
    format!(
        "default-src 'none'; style-src {}; script-src {}; img-src 'none'; base-uri 'none'; form-action 'none'",
        csp_source(STYLE),
        csp_source(SCRIPT)
    )
}

/// Where the page comes from, for its header.
#[derive(Debug, Clone)]
pub(crate) struct Origin {
    /// The project folder's name.
    pub project: String,
    /// The project root, as shown.
    pub root: String,
    /// When the page was made, `toISOString` form.
    pub at: String,
}

/// The page and the counts it shows.
#[derive(Debug)]
pub(crate) struct Page {
    pub html: String,
    pub counts: Object,
}

fn n(value: usize) -> Value {
    Value::from(u32::try_from(value).unwrap_or(u32::MAX))
}

/// Renders the page of `memory`.
#[must_use]
pub(crate) fn render(memory: &Memory, origin: &Origin) -> Page {
    let cut: Vec<Vec<(usize, Section<'_>)>> = memory.notes.iter().map(Note::sections).collect();
    let index = Index::new(&memory.notes, &cut);
    let findings = memory
        .lint
        .as_ref()
        .map(|r| r.findings.as_slice())
        .unwrap_or_default();
    let marks = Marks::new(findings);
    let succession = Succession::new(&index);
    let mut out = String::with_capacity(1 << 20);
    head(&mut out, origin);
    header(&mut out, memory, &index, origin);
    out.push_str("<main id=\"main\" tabindex=\"-1\">");
    if !memory.is_initialised {
        empty(&mut out, memory);
    }
    Decisions {
        index: &index,
        memory,
        marks: &marks,
        succession: &succession,
    }
    .render(&mut out);
    let moments = timeline::render(&mut out, memory, &index);
    entries::render(&mut out, memory, &index, &marks);
    evidence::render(&mut out, memory, &index);
    governance::render(&mut out, memory);
    out.push_str("</main>");
    let _ = writeln!(
        out,
        "<footer><p>Made by bmad-mem {} from the files of this project, read-only; nothing on this page comes from the network. Run <code>bmad-mem view</code> again to refresh it.</p></footer><script>{SCRIPT}</script></body></html>",
        env!("CARGO_PKG_VERSION")
    );
    Page {
        html: out,
        counts: counts(memory, &index, moments),
    }
}

fn head(out: &mut String, origin: &Origin) {
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" content=\"");
    out.push_str(&policy());
    out.push_str("\"><meta name=\"referrer\" content=\"no-referrer\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><meta name=\"color-scheme\" content=\"light dark\"><meta name=\"generator\" content=\"bmad-mem view\"><title>Project memory: ");
    text(out, &origin.project);
    let _ = write!(out, "</title><style>{STYLE}</style></head><body>");
}

fn header(out: &mut String, memory: &Memory, index: &Index<'_>, origin: &Origin) {
    out.push_str(
        "<a class=\"skip\" href=\"#main\">Skip to the memory</a><header><h1>Project memory: <bdi>",
    );
    text(out, &origin.project);
    out.push_str("</bdi></h1><p class=\"muted\">");
    text(out, &origin.root);
    out.push_str(" · made ");
    text(out, &origin.at);
    out.push_str("</p><ul class=\"counts\" aria-label=\"What the memory holds\">");
    let receipts = memory.stores.receipts.as_ref().map_or(0, Vec::len);
    let candidates = memory
        .stores
        .candidates
        .as_ref()
        .map_or(0, |(pending, _)| pending.len());
    for (label, key, value) in [
        (
            "Decisions in force",
            "summary-in-force",
            index.in_force.total,
        ),
        ("Proposed", "summary-proposed", index.proposed.total),
        ("Ended", "summary-ended", index.ended.total),
        ("Lessons", "summary-lessons", index.lessons.total),
        ("Patterns", "summary-patterns", index.patterns.total),
        (
            "Journal events",
            "summary-events",
            memory.stores.journal.len(),
        ),
        ("Receipts", "summary-receipts", receipts),
        ("Candidates", "summary-candidates", candidates),
    ] {
        let _ = write!(out, "<li><span>{label}</span> ");
        count(out, key, value);
        out.push_str("</li>");
    }
    out.push_str("</ul><nav aria-label=\"Sections\"><ul><li><a href=\"#decisions\">Decisions</a></li><li><a href=\"#timeline\">Timeline</a></li><li><a href=\"#lessons\">Lessons and patterns</a></li><li><a href=\"#evidence\">Evidence</a></li><li><a href=\"#governance\">Governance</a></li></ul></nav>");
    out.push_str("<form id=\"search\" class=\"search\" role=\"search\"><label for=\"q\">Search every section</label><input id=\"q\" type=\"search\" autocomplete=\"off\" spellcheck=\"false\" placeholder=\"words, all of which must appear\"><output id=\"q-found\" for=\"q\" aria-live=\"polite\"></output></form></header>");
}

/// The notice of a project without a memory: what `init` would create.
fn empty(out: &mut String, memory: &Memory) {
    out.push_str("<section class=\"empty-memory\" aria-labelledby=\"empty-h\"><h2 id=\"empty-h\">No memory here yet</h2><p>This project has neither <code>.bmad/memory/</code> nor <code>.agents/memory/</code>. <code>bmad-mem init</code> would create:</p><ul>");
    for name in NOTE_FILES.iter().chain(&[CONTEXT_FILE]) {
        let _ = write!(out, "<li><code>{PACK_DIR}/{name}</code></li>");
    }
    let _ = write!(
        out,
        "<li><code>{SESSIONS_DIR}/</code>, for the session handoffs</li><li><code>{LINK_FILE}</code>, the link to a brain"
    );
    if let Some(found) = memory.status.as_ref().and_then(|s| s.detected.as_ref()) {
        out.push_str(" (it would link ");
        text(
            out,
            &format!("{} {}", found.kind.as_str(), found.dir.display()),
        );
        out.push(')');
    }
    out.push_str("</li></ul><p>Then <code>bmad-mem write</code> journals what agents do, and <code>bmad-mem propose</code> records what they learn for a person to admit.</p></section>");
}

/// The counts `--json` reports: the same numbers the page shows.
fn counts(memory: &Memory, index: &Index<'_>, moments: usize) -> Object {
    let mut receipts = Object::new();
    match &memory.stores.receipts {
        Ok(list) => {
            receipts.insert("total", n(list.len()));
            for name in STATUSES {
                let k = list.iter().filter(|(_, s)| status_name(s) == name).count();
                receipts.insert(name, n(k));
            }
        }
        Err(_) => receipts.insert("total", n(0)),
    }
    let severity = |name: &str| {
        memory.lint.as_ref().map_or(0, |r| {
            r.findings
                .iter()
                .filter(|f| f.severity.as_str() == name)
                .count()
        })
    };
    let refused = memory
        .stores
        .refused
        .as_ref()
        .ok()
        .and_then(Option::as_deref)
        .map_or(0, |text| sections(text).len());
    Object::new()
        .with(
            "decisions",
            Object::new()
                .with("inForce", n(index.in_force.total))
                .with("mayBeInForce", n(index.may_be_in_force))
                .with("proposed", n(index.proposed.total))
                .with("ended", n(index.ended.total)),
        )
        .with("lessons", n(index.lessons.total))
        .with("patterns", n(index.patterns.total))
        .with("events", n(memory.stores.journal.len()))
        .with("handoffs", n(memory.stores.handoff_count))
        .with("timeline", n(moments))
        .with("receipts", receipts)
        .with(
            "candidates",
            n(memory
                .stores
                .candidates
                .as_ref()
                .map_or(0, |(pending, _)| pending.len())),
        )
        .with("refused", n(refused))
        .with(
            "lint",
            Object::new()
                .with("errors", n(severity("error")))
                .with("warnings", n(severity("warning")))
                .with("info", n(severity("info"))),
        )
        .with(
            "doctorProblems",
            n(memory.doctor.as_ref().map_or(0, |r| r.problems.len())),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_assets_hold_nothing_the_policy_would_refuse() {
        // The page's own markup uses no inline style or handler attribute: the policy would
        // refuse them.
        for asset in [STYLE, SCRIPT] {
            assert!(!asset.contains("</style"));
            assert!(!asset.contains("</script"));
        }
        assert!(!SCRIPT.contains("innerHTML"));
        assert!(!SCRIPT.contains("eval("));
        // The stylesheet keeps out of the layout what the script's first page hides.
        assert!(SCRIPT.contains("var PAGE = 50;"));
        assert!(STYLE.contains("[data-list]>li.item:nth-child(n+51){display:none}"));
        let policy = policy();
        assert!(
            policy.starts_with("default-src 'none'; style-src 'sha256-"),
            "{policy}"
        );
        assert!(!policy.contains("unsafe"), "{policy}");
    }
}
