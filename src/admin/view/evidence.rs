//! The page's Evidence: every receipt with its status today exactly as `outcomes` computes it
//! (`accepted-current`, `stale-memory-section`, …, and the reason a source is unavailable),
//! linked to the section it binds when the page shows that section.

use std::fmt::Write as _;

use crate::actions::receipts::Status;
use crate::admin::view::html::{bounded, count, isolated, list_close, list_open, text};
use crate::admin::view::index::Index;
use crate::admin::view::memory::Memory;
use crate::js::json::{Object, Value};
use crate::store::layout::OUTCOMES;

/// The statuses a receipt can have without a context scope, in docs §9.2's order.
pub(crate) const STATUSES: [&str; 6] = [
    "accepted-current",
    "superseded",
    "contradictory",
    "stale-memory-section",
    "stale-outcome-source",
    "unavailable-or-ineligible-source",
];

/// The status's name, without the reason a source is unavailable.
#[must_use]
pub(crate) fn status_name(status: &Status) -> String {
    status.reason().map_or_else(
        || "accepted-current".to_owned(),
        |reason| reason.split(": ").next().unwrap_or_default().to_owned(),
    )
}

fn at<'a>(receipt: &'a Object, path: &[&str]) -> Option<&'a Value> {
    let (last, parents) = path.split_last()?;
    let mut object = receipt;
    for key in parents {
        object = object.get(key)?.as_object()?;
    }
    object.get(last)
}

fn text_at(receipt: &Object, path: &[&str]) -> String {
    at(receipt, path).map(Value::text).unwrap_or_default()
}

/// Writes the section.
pub(crate) fn render(out: &mut String, memory: &Memory, index: &Index<'_>) {
    out.push_str(
        "<section id=\"evidence\" aria-labelledby=\"evidence-h\"><h2 id=\"evidence-h\">Evidence</h2>",
    );
    let receipts = match &memory.stores.receipts {
        Ok(receipts) => receipts,
        Err(e) => {
            let _ = write!(out, "<p class=\"problem\">{OUTCOMES} cannot be read: ");
            text(out, e);
            out.push_str(" — <code>bmad-mem doctor</code> names the damage; nothing repairs it automatically.</p>");
            count(out, "receipts", 0);
            out.push_str("</section>");
            return;
        }
    };
    out.push_str("<p class=\"summary\">");
    count(out, "receipts", receipts.len());
    out.push_str(" receipt(s) binding a section to accepted, independently verified work; their status today:</p><ul class=\"statuses\">");
    for name in STATUSES {
        let n = receipts
            .iter()
            .filter(|(_, s)| status_name(s) == name)
            .count();
        let _ = write!(out, "<li><span class=\"badge r-{name}\">{name}</span> ");
        count(out, &format!("receipts-{name}"), n);
        out.push_str("</li>");
    }
    out.push_str("</ul>");
    if receipts.is_empty() {
        out.push_str("<p class=\"empty\">No receipt yet: <code>bmad-mem observe</code> writes one when accepted work supports a lesson.</p>");
    }
    list_open(out, "receipts-list", "Receipts");
    for (receipt, status) in receipts.iter().rev() {
        let name = status_name(status);
        let id = text_at(receipt, &["id"]);
        let _ = write!(
            out,
            "<li class=\"item receipt\" data-kind=\"receipt\" data-status=\"{name}\"><h4><span class=\"badge r-{name}\">{name}</span> receipt <code>"
        );
        bounded(out, id.get(..12).unwrap_or(&id));
        out.push_str("</code></h4>");
        if let Some(reason) = status.reason().filter(|r| r.contains(": ")) {
            out.push_str("<p class=\"problem\">");
            bounded(out, &reason);
            out.push_str("</p>");
        }
        let (file, heading) = (
            text_at(receipt, &["memory", "file"]),
            text_at(receipt, &["memory", "heading"]),
        );
        out.push_str("<p>For ");
        let anchor = index.anchor_of(&file, &heading);
        if let Some(anchor) = anchor {
            let _ = write!(out, "<a href=\"#{anchor}\">");
        }
        bounded(out, &file);
        out.push_str(" § ");
        isolated(out, &heading);
        if anchor.is_some() {
            out.push_str("</a>");
        }
        out.push_str("</p><p class=\"meta\">");
        bounded(
            out,
            &format!(
                "run {} · task {} · attempt {} · observed {}",
                text_at(receipt, &["source", "runId"]),
                text_at(receipt, &["source", "taskId"]),
                text_at(receipt, &["source", "attemptId"]),
                text_at(receipt, &["ts"])
            ),
        );
        out.push_str("</p><p class=\"meta\">scope: ");
        bounded(out, &text_at(receipt, &["scope"]).replace(',', ", "));
        for key in ["supersedes", "contradicts"] {
            let ids = text_at(receipt, &[key]);
            if !ids.is_empty() {
                let _ = write!(out, " · {key}: ");
                bounded(out, &ids.replace(',', ", "));
            }
        }
        out.push_str("</p><p class=\"interpretation\" dir=\"auto\">");
        bounded(out, &text_at(receipt, &["interpretation"]));
        out.push_str("</p><p class=\"full-id\"><code>");
        bounded(out, &id);
        out.push_str("</code></p></li>");
    }
    list_close(out, receipts.len(), receipts.len(), OUTCOMES);
    out.push_str("</section>");
}
