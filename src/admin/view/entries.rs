//! The page's Lessons and patterns, newest first. Each pattern (its `###` heading is its id)
//! shows its score as `reinforce` keeps it — the Elo rating and the Beta mean,
//! `alpha / (alpha + beta)` — and a small chart of both over time, drawn from the
//! reinforcement records when there are some, else the current score alone; then the promotions
//! proposed for it, which nothing here or in `reinforce` can approve.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::actions::reinforce::score::Score;
use crate::admin::view::decisions::{Marks, body, marks};
use crate::admin::view::html::{bounded, count, isolated, list_close, list_open, text};
use crate::admin::view::index::{Entry, Index, Kind, Shown};
use crate::admin::view::memory::Memory;
use crate::admin::view::svg::{self, Point};
use crate::js::date;
use crate::js::json::{Object, Value};
use crate::js::number::{number_text, to_fixed};
use crate::store::entry::field_of;
use crate::store::layout::SCORES;

/// Most scores of patterns that no note heads, listed.
pub(crate) const MAX_UNNAMED_SCORES: usize = 100;

/// Writes the section.
pub(crate) fn render(out: &mut String, memory: &Memory, index: &Index<'_>, marks: &Marks<'_>) {
    let scores = memory.stores.scores.as_ref().ok();
    out.push_str(
        "<section id=\"lessons\" aria-labelledby=\"lessons-h\"><h2 id=\"lessons-h\">Lessons and patterns</h2><p class=\"summary\">",
    );
    count(out, "lessons", index.lessons.total);
    out.push_str(" lesson(s), ");
    count(out, "patterns", index.patterns.total);
    out.push_str(" pattern(s), ");
    count(out, "scores", scores.map_or(0, Object::len));
    out.push_str(" scored, ");
    count(out, "promotions", memory.stores.promotions.len());
    out.push_str(" promotion(s) proposed.</p>");
    if let Err(e) = &memory.stores.scores {
        let _ = write!(out, "<p class=\"problem\">{SCORES} is left out: ");
        text(out, e);
        out.push_str(" — <code>bmad-mem doctor</code> says more.</p>");
    }
    let records = &memory.stores.reinforcements;
    if let Some(problem) = &records.problem {
        out.push_str("<p class=\"problem\">The reinforcement records cannot be read: ");
        text(out, problem);
        out.push_str("; the charts show the current scores alone.</p>");
    } else if records.skipped > 0 {
        let _ = write!(
            out,
            "<p class=\"note\">{} line(s) of the reinforcement records are not records (torn or damaged) and are left out of the charts.</p>",
            records.skipped
        );
    }
    let empty = Object::new();
    let lists = Lists {
        index,
        marks,
        memory,
    };
    lists.group(out, "Lessons", "lessons-list", &index.lessons, None);
    lists.group(
        out,
        "Patterns",
        "patterns-list",
        &index.patterns,
        Some(scores.unwrap_or(&empty)),
    );
    if let Some(scores) = scores {
        unnamed(out, scores, index);
    }
    out.push_str("</section>");
}

/// What the two lists share.
struct Lists<'i, 'a> {
    index: &'i Index<'a>,
    marks: &'i Marks<'a>,
    memory: &'a Memory,
}

impl Lists<'_, '_> {
    /// One list; `scores` for the patterns.
    fn group(
        &self,
        out: &mut String,
        title: &str,
        id: &str,
        list: &Shown,
        scores: Option<&Object>,
    ) {
        let (index, found, memory) = (self.index, self.marks, self.memory);
        let _ = write!(
            out,
            "<section class=\"group\" aria-labelledby=\"{id}-h\"><h3 id=\"{id}-h\">{title} ({})</h3>",
            list.total
        );
        if list.total == 0 {
            let _ = write!(
                out,
                "<p class=\"empty\">No {} yet.</p>",
                title.to_lowercase()
            );
        }
        list_open(out, id, title);
        for &i in &list.shown {
            let entry = &index.entries[i];
            let _ = write!(
                out,
                "<li class=\"item entry\" id=\"{}\" data-kind=\"{}\"><h4>",
                index.anchor(i).unwrap_or_default(),
                if scores.is_some() {
                    "pattern"
                } else {
                    "lesson"
                }
            );
            isolated(out, entry.section.heading);
            out.push_str("</h4><p class=\"meta\">");
            if let Some(status) = field_of(&entry.section, &["status"]) {
                out.push_str("<span class=\"badge\">");
                bounded(out, &crate::js::text::collapse_whitespace(status));
                out.push_str("</span> ");
            }
            if let Some(day) = entry.date {
                out.push_str("<span>");
                text(out, day);
                out.push_str("</span> ");
            }
            out.push_str("<span class=\"file\">");
            text(out, &format!("{}:{}", entry.note.rel, entry.line()));
            out.push_str("</span></p>");
            marks(out, &found.of(entry));
            if let Some(scores) = scores {
                score(out, entry, scores, memory);
            }
            body(out, entry);
            out.push_str("</li>");
        }
        list_close(out, list.shown.len(), list.total, "the note files");
        out.push_str("</section>");
    }
}

/// A pattern's score, chart and promotions.
fn score(out: &mut String, entry: &Entry<'_>, scores: &Object, memory: &Memory) {
    let id = entry.section.heading;
    let stored = scores.get(id).and_then(Value::as_object);
    let records = memory.stores.reinforcements.of(id);
    let promotions: Vec<&Object> = memory
        .stores
        .promotions
        .iter()
        .filter(|p| p.get("patternId").and_then(Value::as_str) == Some(id))
        .collect();
    if stored.is_none() && records.is_empty() && promotions.is_empty() {
        out.push_str("<p class=\"meta\">Not reinforced yet.</p>");
        return;
    }
    let now = Score::from_previous(stored);
    let mean = now.alpha / (now.alpha + now.beta);
    let summary = format!(
        "Elo {}, Beta mean {} (α {}, β {}) over {} update(s)",
        to_fixed(now.elo, 1),
        to_fixed(mean, 3),
        to_fixed(now.alpha, 2),
        to_fixed(now.beta, 2),
        number_text(now.updates)
    );
    let mut points: Vec<Point> = records
        .iter()
        .map(|r| Point {
            ms: r.ms,
            mean: r.mean,
            elo: r.elo,
        })
        .collect();
    if points.is_empty() {
        let ms = match &now.last_ts {
            Value::Number(n) => Some(*n),
            Value::String(s) => date::parse_timestamp(s),
            _ => None,
        };
        points.push(Point {
            ms: ms.unwrap_or(0.0),
            mean,
            elo: now.elo,
        });
    }
    out.push_str("<figure class=\"score\"><div class=\"scroll\">");
    let from = if records.is_empty() {
        "the current score alone".to_owned()
    } else {
        format!("{} reinforcement record(s)", records.len())
    };
    svg::score_chart(out, &points, &format!("{summary}; chart of {from}"));
    out.push_str("</div><figcaption>");
    text(out, &summary);
    let _ = write!(
        out,
        " <span class=\"legend\"><span class=\"key mean\">mean</span> <span class=\"key elo\">Elo</span> <span class=\"key threshold\">0.7</span></span> <span class=\"muted\">from {from}</span></figcaption></figure>"
    );
    if !promotions.is_empty() {
        out.push_str("<ul class=\"promotions\">");
        for p in promotions {
            let text_of = |key: &str| p.get(key).map(Value::text).unwrap_or_default();
            out.push_str("<li><strong>");
            bounded(out, &text_of("status"));
            out.push_str("</strong> ");
            text(
                out,
                &format!(
                    "{} → {} ({}, {}): {}",
                    text_of("fromStatus"),
                    text_of("toStatus"),
                    text_of("id"),
                    text_of("ts"),
                    text_of("reason")
                ),
            );
            out.push_str("</li>");
        }
        out.push_str("</ul>");
    }
}

/// The scores of patterns that no note heads (renamed or removed since).
fn unnamed(out: &mut String, scores: &Object, index: &Index<'_>) {
    let named: HashSet<&str> = index
        .entries
        .iter()
        .filter(|e| e.kind == Kind::Pattern)
        .map(|e| e.section.heading)
        .collect();
    let unnamed: Vec<(&String, &Value)> = scores
        .iter()
        .filter(|(id, _)| !named.contains(id.as_str()))
        .collect();
    if unnamed.is_empty() {
        return;
    }
    out.push_str("<section class=\"group\" aria-labelledby=\"unnamed-h\"><h3 id=\"unnamed-h\">Scores without a pattern</h3><p class=\"note\">Patterns that were reinforced but that no <code>###</code> heading of patterns.md names any more.</p><ul class=\"plain\">");
    for (id, value) in unnamed.iter().take(MAX_UNNAMED_SCORES) {
        let now = Score::from_previous(value.as_object());
        out.push_str("<li class=\"item\"><bdi>");
        bounded(out, id);
        out.push_str("</bdi>: ");
        text(
            out,
            &format!(
                "Elo {}, Beta mean {}",
                to_fixed(now.elo, 1),
                to_fixed(now.alpha / (now.alpha + now.beta), 3)
            ),
        );
        out.push_str("</li>");
    }
    out.push_str("</ul>");
    if unnamed.len() > MAX_UNNAMED_SCORES {
        let _ = write!(
            out,
            "<p class=\"capped\">{} more are in {SCORES}.</p>",
            unnamed.len() - MAX_UNNAMED_SCORES
        );
    }
    out.push_str("</section>");
}
