//! The page's Governance: the candidates waiting for a person (each with the exact `admit`
//! command to copy, and those to refuse or withdraw it), the refused topics, `lint`'s findings,
//! and the files' health as `doctor` and `status` report it — a torn or unreadable registry
//! appears here in `doctor`'s own words.

use std::fmt::Write as _;

use crate::admin::view::html::{bounded, count, escaped, isolated, list_close, list_open, text};
use crate::admin::view::markdown;
use crate::admin::view::memory::Memory;
use crate::store::entry::field_of;
use crate::store::layout::{CANDIDATES_DIR, REFUSED_FILE};
use crate::store::sections::sections;

/// Most candidates listed.
pub(crate) const MAX_CANDIDATES: usize = 500;
/// Most refused topics listed.
pub(crate) const MAX_REFUSED: usize = 500;
/// Most lint findings listed.
pub(crate) const MAX_FINDINGS: usize = 500;
/// Most bytes of a candidate's content rendered.
const MAX_CONTENT: usize = 4096;

/// A command to copy: shown as code, with a button the page's script copies it with.
fn command(out: &mut String, line: &str) {
    let line = escaped(line);
    let _ = write!(
        out,
        "<div class=\"cmd\"><code>{line}</code> <button type=\"button\" class=\"copy\" data-copy=\"{line}\">Copy</button></div>"
    );
}

/// Writes the section.
pub(crate) fn render(out: &mut String, memory: &Memory) {
    out.push_str(
        "<section id=\"governance\" aria-labelledby=\"governance-h\"><h2 id=\"governance-h\">Governance</h2>",
    );
    candidates(out, memory);
    refused(out, memory);
    findings(out, memory);
    health(out, memory);
    out.push_str("</section>");
}

fn candidates(out: &mut String, memory: &Memory) {
    out.push_str("<section class=\"group\" aria-labelledby=\"candidates-h\"><h3 id=\"candidates-h\">Candidates waiting for a person</h3>");
    let (pending, unreadable) = match &memory.stores.candidates {
        Ok((pending, unreadable)) => (pending.as_slice(), unreadable.as_slice()),
        Err(e) => {
            let _ = write!(
                out,
                "<p class=\"problem\">{CANDIDATES_DIR}/ cannot be read: "
            );
            text(out, e);
            out.push_str("</p>");
            (&[][..], &[][..])
        }
    };
    out.push_str("<p class=\"summary\">");
    count(out, "candidates", pending.len());
    out.push_str(" pending. Admitting one appends it, exactly as shown, to its note file; the digest makes sure of it.</p>");
    if !unreadable.is_empty() {
        out.push_str("<p class=\"problem\">Not in the candidate format (fix or remove): ");
        text(out, &unreadable.join(", "));
        out.push_str("</p>");
    }
    list_open(out, "candidates-list", "Pending candidates");
    for (c, sha256) in pending.iter().take(MAX_CANDIDATES) {
        out.push_str("<li class=\"item candidate\" data-kind=\"candidate\"><h4>");
        isolated(out, &c.title);
        let _ = write!(
            out,
            "</h4><p class=\"meta\"><span class=\"badge\">{}</span> from ",
            c.kind.as_str()
        );
        isolated(out, &c.source);
        out.push_str(", ");
        text(out, &c.created);
        out.push_str(" <span class=\"file\">");
        text(out, &format!("{CANDIDATES_DIR}/{}.md", c.id));
        out.push_str("</span></p>");
        if !c.context.is_empty() {
            out.push_str("<p class=\"context\" dir=\"auto\">When: ");
            bounded(out, &c.context);
            out.push_str("</p>");
        }
        let (shown, left) = markdown::cut(&c.content, MAX_CONTENT);
        out.push_str("<div class=\"md\" dir=\"auto\">");
        markdown::render(out, shown);
        if left > 0 {
            let _ = write!(
                out,
                "<p class=\"capped\">… {left} more bytes in the candidate's file</p>"
            );
        }
        out.push_str("</div>");
        if !c.evidence.is_empty() {
            out.push_str("<p class=\"meta\">evidence: ");
            bounded(out, &c.evidence.join(", "));
            out.push_str("</p>");
        }
        command(out, &format!("bmad-mem admit {} --expect {sha256}", c.id));
        command(
            out,
            &format!("bmad-mem admit --refuse {} --reason \"…\"", c.id),
        );
        command(out, &format!("bmad-mem admit --drop {}", c.id));
        out.push_str("</li>");
    }
    list_close(
        out,
        pending.len().min(MAX_CANDIDATES),
        pending.len(),
        CANDIDATES_DIR,
    );
    out.push_str("</section>");
}

fn refused(out: &mut String, memory: &Memory) {
    out.push_str("<section class=\"group\" aria-labelledby=\"refused-h\"><h3 id=\"refused-h\">Refused topics</h3>");
    let text_of = match &memory.stores.refused {
        Ok(found) => found.as_deref().unwrap_or_default(),
        Err(e) => {
            let _ = write!(out, "<p class=\"problem\">{REFUSED_FILE} cannot be read: ");
            text(out, e);
            out.push_str("</p>");
            ""
        }
    };
    let topics = sections(text_of);
    out.push_str("<p class=\"summary\">");
    count(out, "refused", topics.len());
    out.push_str(" topic(s) that are never proposed again.</p>");
    list_open(out, "refused-list", "Refused topics");
    for s in topics.iter().rev().take(MAX_REFUSED) {
        out.push_str("<li class=\"item\" data-kind=\"refused\"><h4>");
        isolated(out, s.heading);
        out.push_str("</h4><p class=\"meta\">");
        for (label, key) in [("type", "type"), ("title", "title"), ("by", "refused-by")] {
            if let Some(value) = field_of(s, &[key]) {
                let _ = write!(out, "<span>{label}: ");
                isolated(out, value);
                out.push_str("</span> ");
            }
        }
        out.push_str("</p>");
        if let Some(reason) = field_of(s, &["reason"]) {
            out.push_str("<p dir=\"auto\">");
            bounded(out, reason);
            out.push_str("</p>");
        }
        out.push_str("</li>");
    }
    list_close(
        out,
        topics.len().min(MAX_REFUSED),
        topics.len(),
        REFUSED_FILE,
    );
    out.push_str("</section>");
}

fn findings(out: &mut String, memory: &Memory) {
    out.push_str(
        "<section class=\"group\" aria-labelledby=\"lint-h\"><h3 id=\"lint-h\">Lint findings</h3>",
    );
    let report = match &memory.lint {
        Ok(report) => report,
        Err(e) => {
            out.push_str("<p class=\"problem\">lint could not run: ");
            text(out, e);
            out.push_str("</p></section>");
            return;
        }
    };
    let by = |severity: &str| {
        report
            .findings
            .iter()
            .filter(|f| f.severity.as_str() == severity)
            .count()
    };
    out.push_str("<p class=\"summary\">");
    count(out, "lint-errors", by("error"));
    out.push_str(" error(s), ");
    count(out, "lint-warnings", by("warning"));
    out.push_str(" warning(s), ");
    count(out, "lint-info", by("info"));
    out.push_str(" information, as <code>bmad-mem lint</code> reports them");
    if !report.ignored.is_empty() {
        out.push_str(" (silenced: ");
        text(out, &report.ignored.join(", "));
        out.push(')');
    }
    out.push_str(".</p>");
    list_open(out, "lint-list", "Lint findings");
    for f in report.findings.iter().take(MAX_FINDINGS) {
        let severity = f.severity.as_str();
        let _ = write!(
            out,
            "<li class=\"item finding sev-{severity}\" data-kind=\"finding\"><p><span class=\"badge sev-{severity}\">{severity}</span> <strong>{}</strong> <span class=\"file\">",
            f.check
        );
        text(out, &f.file);
        if let Some(line) = f.line {
            let _ = write!(out, ":{line}");
        }
        out.push_str("</span>");
        if let Some(heading) = &f.heading {
            out.push_str(" § ");
            isolated(out, heading);
        }
        out.push_str("</p><p>");
        bounded(out, &f.message);
        out.push_str("</p>");
        if let Some(proposal) = &f.proposal {
            out.push_str("<p class=\"proposal\">→ ");
            bounded(out, proposal);
            out.push_str("</p>");
        }
        out.push_str("</li>");
    }
    list_close(
        out,
        report.findings.len().min(MAX_FINDINGS),
        report.findings.len(),
        "`bmad-mem lint`",
    );
    out.push_str("</section>");
}

fn health(out: &mut String, memory: &Memory) {
    out.push_str(
        "<section class=\"group\" aria-labelledby=\"health-h\"><h3 id=\"health-h\">Files</h3>",
    );
    match &memory.doctor {
        Ok(report) => {
            out.push_str("<p class=\"summary\">");
            count(out, "doctor-problems", report.problems.len());
            let _ = write!(
                out,
                " problem(s) and {} warning(s) in {} file(s) checked, as <code>bmad-mem doctor</code> reports them.</p>",
                report.warnings.len(),
                report.checked.len()
            );
            let lines = report
                .problems
                .iter()
                .map(|p| ("problem", p))
                .chain(report.warnings.iter().map(|p| ("warning", p)))
                .chain(report.notices.iter().map(|p| ("note", p)));
            out.push_str("<ul class=\"plain doctor\">");
            for (what, p) in lines {
                let _ = write!(
                    out,
                    "<li class=\"item d-{what}\" data-kind=\"doctor\"><span class=\"badge\">{what}</span> <span class=\"file\">"
                );
                text(out, &p.file);
                let _ = write!(out, "</span> [{}] ", p.kind);
                bounded(out, &p.message);
                out.push_str("</li>");
            }
            out.push_str("</ul>");
        }
        Err(e) => {
            out.push_str("<p class=\"problem\">doctor could not run: ");
            text(out, e);
            out.push_str("</p>");
        }
    }
    let warnings: Vec<&String> = memory
        .note_warnings
        .iter()
        .chain(&memory.stores.warnings)
        .collect();
    if !warnings.is_empty() {
        out.push_str("<ul class=\"plain\">");
        for w in warnings {
            out.push_str("<li class=\"item\">");
            text(out, w);
            out.push_str("</li>");
        }
        out.push_str("</ul>");
    }
    if let Some(status) = &memory.status {
        let _ = write!(
            out,
            "<p class=\"summary\"><code>bmad-mem status</code>: health {}% ({}/{} checks)",
            status.health(),
            status.score,
            status.checks
        );
        if status.failed.is_empty() {
            out.push_str(".</p>");
        } else {
            out.push_str("; missing: ");
            text(out, &status.failed.join("; "));
            out.push_str(".</p>");
        }
    }
    out.push_str("</section>");
}
