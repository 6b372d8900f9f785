//! The page's Timeline: on one time axis, newest first, the journal's events, the ledger's
//! changes, the candidates proposed, admitted, refused or withdrawn, the handoffs, the
//! promotion proposals and the reinforcements — filterable by agent and by kind (the page's
//! script reads the `data-agent` and `data-kind` of each item). Records whose time cannot be
//! read come last.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::actions::decisions::ledger::Record;
use crate::admin::view::html::{bounded, count, isolated, list_close, list_open, text, time};
use crate::admin::view::index::Index;
use crate::admin::view::memory::Memory;
use crate::js::date;
use crate::js::json::{Object, Value};
use crate::js::number::to_fixed;

/// Most moments listed.
pub(crate) const MAX_TIMELINE: usize = 1000;
/// Most agents offered by the filter (the most frequent).
pub(crate) const MAX_AGENTS: usize = 100;
/// Shown for a record that names no agent.
const NOBODY: &str = "(none)";

/// One thing that happened.
#[derive(Debug, Clone)]
struct Moment<'a> {
    ms: Option<f64>,
    kind: &'static str,
    agent: String,
    title: String,
    detail: String,
    anchor: Option<&'a str>,
}

fn ms_of(value: Option<&Value>) -> Option<f64> {
    match value? {
        Value::Number(n) => Some(*n),
        Value::String(s) => date::parse_timestamp(s),
        _ => None,
    }
    .filter(|ms| ms.is_finite())
}

fn field(object: &Object, key: &str) -> Option<String> {
    object.get(key).filter(|v| v.is_truthy()).map(Value::text)
}

/// A journal event.
fn event<'a>(event: &Object) -> Moment<'a> {
    let mut detail = Vec::new();
    for key in ["outcome", "cli", "model"] {
        if let Some(v) = field(event, key) {
            detail.push(format!("{key}: {v}"));
        }
    }
    if let Some(signals) = event.get("signals").filter(|v| v.is_truthy()) {
        detail.push(format!("signals: {}", signals.compact()));
    }
    Moment {
        ms: ms_of(event.get("ts")),
        kind: "event",
        agent: field(event, "agent").unwrap_or_else(|| NOBODY.to_owned()),
        title: field(event, "task").unwrap_or_else(|| "(no task)".to_owned()),
        detail: detail.join(" · "),
        anchor: None,
    }
}

/// A ledger record: a change in the life of a decision, linked to it when the page shows it.
fn change<'a>(r: &Record, index: &'a Index<'a>) -> Moment<'a> {
    let mut detail = format!("{} → {}", r.event, r.status);
    if let Some(by) = &r.by {
        let _ = write!(detail, " by \"{by}\"");
    }
    if let Some(reason) = &r.reason {
        let _ = write!(detail, " · reason: {reason}");
    }
    Moment {
        ms: date::parse_timestamp(&r.ts),
        kind: "decision",
        agent: r.actor.clone().unwrap_or_else(|| NOBODY.to_owned()),
        title: r.heading.clone(),
        detail,
        anchor: index.anchor_of(&r.file, &r.heading),
    }
}

/// Every moment of the memory, in no particular order.
fn moments<'a>(memory: &'a Memory, index: &'a Index<'a>) -> Vec<Moment<'a>> {
    let stores = &memory.stores;
    let mut out = Vec::new();
    out.extend(stores.journal.iter().map(event));
    if let Ok(ledger) = &memory.ledger {
        out.extend(ledger.records.iter().map(|r| change(r, index)));
    }
    for d in &stores.decided {
        out.push(Moment {
            ms: d.ms,
            kind: d.kind,
            agent: d.by.clone(),
            title: d.id.clone(),
            detail: d.what.clone(),
            anchor: None,
        });
    }
    if let Ok((pending, _)) = &stores.candidates {
        for (c, _) in pending {
            out.push(Moment {
                ms: date::parse_timestamp(&c.created),
                kind: "proposal",
                agent: c.source.clone(),
                title: c.title.clone(),
                detail: format!("{} proposed as {}", c.kind.as_str(), c.id),
                anchor: None,
            });
        }
    }
    for h in &stores.handoffs {
        out.push(Moment {
            ms: h.ms,
            kind: "handoff",
            agent: h.agent.clone().unwrap_or_else(|| NOBODY.to_owned()),
            title: h.topic.clone().unwrap_or_else(|| h.name.clone()),
            detail: h.name.clone(),
            anchor: None,
        });
    }
    for p in &stores.promotions {
        out.push(Moment {
            ms: ms_of(p.get("ts")),
            kind: "promotion",
            agent: NOBODY.to_owned(),
            title: field(p, "patternId").unwrap_or_default(),
            detail: format!(
                "{} {} → {}: {}",
                field(p, "status").unwrap_or_default(),
                field(p, "fromStatus").unwrap_or_default(),
                field(p, "toStatus").unwrap_or_default(),
                field(p, "reason").unwrap_or_default()
            ),
            anchor: None,
        });
    }
    for r in &stores.reinforcements.records {
        out.push(Moment {
            ms: Some(r.ms),
            kind: "reinforcement",
            agent: NOBODY.to_owned(),
            title: r.pattern.clone(),
            detail: format!(
                "reward {} → Elo {}, mean {}",
                to_fixed(r.reward, 3),
                to_fixed(r.elo, 1),
                to_fixed(r.mean, 3)
            ),
            anchor: None,
        });
    }
    out
}

/// Writes the section; returns how many moments there are in all.
pub(crate) fn render(out: &mut String, memory: &Memory, index: &Index<'_>) -> usize {
    let mut all = moments(memory, index);
    // Newest first (stable: ties keep the order above); no known time last.
    all.sort_by(|a, b| match (a.ms, b.ms) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    let mut agents: HashMap<&str, usize> = HashMap::new();
    let mut kinds: Vec<&str> = Vec::new();
    for m in &all {
        *agents.entry(m.agent.as_str()).or_default() += 1;
        if !kinds.contains(&m.kind) {
            kinds.push(m.kind);
        }
    }
    let mut agents: Vec<(&str, usize)> = agents.into_iter().collect();
    agents.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    kinds.sort_unstable();
    out.push_str(
        "<section id=\"timeline\" aria-labelledby=\"timeline-h\"><h2 id=\"timeline-h\">Timeline</h2><p class=\"summary\">",
    );
    count(out, "timeline", all.len());
    out.push_str(" moment(s), of which ");
    count(out, "events", memory.stores.journal.len());
    out.push_str(" journal event(s), ");
    count(out, "handoffs", memory.stores.handoff_count);
    out.push_str(" handoff(s).</p>");
    out.push_str(
        "<div class=\"filters\"><label for=\"f-agent\">Agent</label> <select id=\"f-agent\"><option value=\"\">any</option>",
    );
    for (agent, n) in agents.iter().take(MAX_AGENTS) {
        out.push_str("<option value=\"");
        bounded(out, agent);
        out.push_str("\">");
        text(out, &crate::admin::view::html::clipped(agent, 40));
        let _ = write!(out, " ({n})</option>");
    }
    out.push_str(
        "</select> <label for=\"f-kind\">Kind</label> <select id=\"f-kind\"><option value=\"\">any</option>",
    );
    for kind in &kinds {
        let _ = write!(out, "<option value=\"{kind}\">{kind}</option>");
    }
    out.push_str("</select></div>");
    if all.is_empty() {
        out.push_str("<p class=\"empty\">Nothing has happened yet: the journal, the ledger and the handoffs are empty.</p>");
    }
    list_open(out, "timeline-list", "Timeline, newest first");
    for m in all.iter().take(MAX_TIMELINE) {
        let _ = write!(
            out,
            "<li class=\"item moment k-{}\" data-kind=\"{}\" data-agent=\"",
            m.kind, m.kind
        );
        bounded(out, &m.agent);
        out.push_str("\">");
        match m.ms {
            Some(ms) => time(out, ms),
            None => out.push_str("<span class=\"muted\">no time</span>"),
        }
        let _ = write!(
            out,
            " <span class=\"kind\">{}</span> <span class=\"agent\">",
            m.kind
        );
        isolated(out, &m.agent);
        out.push_str("</span> <span class=\"title\">");
        match m.anchor {
            Some(anchor) => {
                let _ = write!(out, "<a href=\"#{anchor}\">");
                isolated(out, &m.title);
                out.push_str("</a>");
            }
            None => isolated(out, &m.title),
        }
        out.push_str("</span>");
        if !m.detail.is_empty() {
            out.push_str(" <span class=\"detail\">");
            isolated(out, &m.detail);
            out.push_str("</span>");
        }
        out.push_str("</li>");
    }
    list_close(
        out,
        all.len().min(MAX_TIMELINE),
        all.len(),
        "the journal, the ledger, the candidates and the handoffs",
    );
    out.push_str("</section>");
    all.len()
}
