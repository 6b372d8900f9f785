//! The page's Decisions section: in force, proposed and ended, each decision with its status,
//! date and who acted last (from the ledger), the findings `lint` makes about it (a text or a
//! status the ledger disagrees with is marked exactly as `lint` marks it, because these are
//! `lint`'s own findings), its ledger chain drawn as dots, and the succession graph of every
//! line of decisions that superseded one another.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::actions::decisions::ledger::{LEDGER, Ledger, Record};
use crate::actions::decisions::names::Names;
use crate::admin::lint::findings::Finding;
use crate::admin::view::html::{bounded, count, isolated, list_close, list_open, text};
use crate::admin::view::index::{Entry, Group, Index, Kind, Shown};
use crate::admin::view::markdown;
use crate::admin::view::memory::Memory;
use crate::admin::view::svg::{self, MAX_NODES, Node, Step};
use crate::store::entry::Status;

/// Most succession graphs drawn.
pub(crate) const MAX_GRAPHS: usize = 50;
/// Most bytes of an entry's text rendered; the rest is named, not shown.
pub(crate) const MAX_BODY: usize = 4096;

/// The status class and the text shown for a decision's status.
fn status_of(status: Option<&Status>) -> (&'static str, String) {
    match status {
        None => ("none", "no status".to_owned()),
        Some(Status::Unreadable(value)) => ("unreadable", format!("unreadable: {value}")),
        Some(Status::Superseded { by: Some(by) }) => ("superseded", format!("superseded by {by}")),
        Some(s) => (s.as_str(), s.as_str().to_owned()),
    }
}

/// The class of a status as the ledger spells it.
fn ledger_class(status: &str) -> &'static str {
    match status {
        "active" => "active",
        "superseded" => "superseded",
        "abrogated" => "abrogated",
        "rolled-back" => "rolled-back",
        "proposed" => "proposed",
        "rejected" => "rejected",
        "deprecated" => "deprecated",
        _ => "unreadable",
    }
}

/// `lint`'s findings by what they are about: a note file's line, or a decision's heading for
/// the ledger's own findings.
pub(crate) struct Marks<'a> {
    at: HashMap<(&'a str, usize), Vec<&'a Finding>>,
    ledger: HashMap<&'a str, Vec<&'a Finding>>,
}

impl<'a> Marks<'a> {
    #[must_use]
    pub(crate) fn new(findings: &'a [Finding]) -> Self {
        let mut marks = Self {
            at: HashMap::new(),
            ledger: HashMap::new(),
        };
        for f in findings {
            match (f.file.as_str(), f.line, f.heading.as_deref()) {
                (LEDGER, _, Some(heading)) => marks.ledger.entry(heading).or_default().push(f),
                (file, Some(line), Some(_)) => marks.at.entry((file, line)).or_default().push(f),
                _ => {}
            }
        }
        marks
    }

    /// The findings about `entry`.
    #[must_use]
    pub(crate) fn of(&self, entry: &Entry<'_>) -> Vec<&'a Finding> {
        let mut found: Vec<&Finding> = self
            .at
            .get(&(entry.note.rel.as_str(), entry.line()))
            .cloned()
            .unwrap_or_default();
        if entry.kind == Kind::Decision
            && let Some(more) = self.ledger.get(entry.section.heading)
        {
            found.extend(more);
        }
        found
    }
}

/// Writes the findings about one entry, worst first.
pub(crate) fn marks(out: &mut String, found: &[&Finding]) {
    if found.is_empty() {
        return;
    }
    out.push_str("<ul class=\"marks\">");
    for f in found {
        let _ = write!(
            out,
            "<li class=\"sev-{}\"><strong>{} · {}</strong> ",
            f.severity.as_str(),
            f.severity.as_str(),
            f.check
        );
        bounded(out, &f.message);
        if let Some(proposal) = &f.proposal {
            out.push_str(" <span class=\"proposal\">→ ");
            bounded(out, proposal);
            out.push_str("</span>");
        }
        out.push_str("</li>");
    }
    out.push_str("</ul>");
}

/// Writes an entry's text as Markdown, at most [`MAX_BODY`] bytes of it: a decision's folded
/// (its title says what it decided), a lesson's or a pattern's open when short.
pub(crate) fn body(out: &mut String, entry: &Entry<'_>) {
    let source = entry.section.parts()[2];
    if crate::js::text::trim(source).is_empty() {
        return;
    }
    let (shown, left) = markdown::cut(source, MAX_BODY);
    let _ = write!(
        out,
        "<details{}><summary>Text</summary><div class=\"md\" dir=\"auto\">",
        if entry.kind != Kind::Decision && source.len() <= 600 {
            " open"
        } else {
            ""
        }
    );
    markdown::render(out, shown);
    if left > 0 {
        let _ = write!(out, "<p class=\"capped\">… {left} more bytes in ");
        text(out, &format!("{}:{}", entry.note.rel, entry.line()));
        out.push_str("</p>");
    }
    out.push_str("</div></details>");
}

/// Who supersedes whom, by entry: each decision's successor, as its status line names it
/// (`superseded by X`, found by the rule `lint` follows, [`Names`]), and the decisions each one
/// supersedes.
#[derive(Debug, Default)]
pub(crate) struct Succession {
    next: HashMap<usize, usize>,
    before: HashMap<usize, Vec<usize>>,
}

impl Succession {
    #[must_use]
    pub(crate) fn new(index: &Index<'_>) -> Self {
        let decisions: Vec<usize> = (0..index.entries.len())
            .filter(|&i| index.entries[i].kind == Kind::Decision)
            .collect();
        let names = Names::new(decisions.iter().map(|&i| index.entries[i].section.heading));
        let mut out = Self::default();
        for &i in &decisions {
            let Some(Status::Superseded { by: Some(by) }) = &index.entries[i].status else {
                continue;
            };
            if let [j] = names.find(by) {
                let j = decisions[*j];
                out.next.insert(i, j);
                out.before.entry(j).or_default().push(i);
            }
        }
        out
    }

    /// The lines of succession: each group of decisions joined by `superseded by` (a decision
    /// naming itself included), its members in file order; the line holding the newest
    /// decision first.
    #[must_use]
    pub(crate) fn lines(&self, index: &Index<'_>) -> Vec<Vec<usize>> {
        let mut parent: HashMap<usize, usize> = HashMap::new();
        let mut edges: Vec<(usize, usize)> = self.next.iter().map(|(&a, &b)| (a, b)).collect();
        edges.sort_unstable();
        for &(a, b) in &edges {
            parent.entry(a).or_insert(a);
            parent.entry(b).or_insert(b);
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent.insert(ra.max(rb), ra.min(rb));
        }
        let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut members: Vec<usize> = parent.keys().copied().collect();
        members.sort_unstable();
        for i in members {
            let r = root(&mut parent, i);
            groups.entry(r).or_default().push(i);
        }
        let mut lines: Vec<Vec<usize>> = groups.into_values().collect();
        let newest = |line: &Vec<usize>| {
            line.iter()
                .map(|&i| (index.entries[i].date, i))
                .max()
                .unwrap_or_default()
        };
        lines.sort_by_key(|line| std::cmp::Reverse(newest(line)));
        lines
    }
}

/// The root of `i` in the union-find forest `parent`, the path to it shortened.
fn root(parent: &mut HashMap<usize, usize>, i: usize) -> usize {
    let mut at = i;
    while let Some(&p) = parent.get(&at) {
        if p == at {
            break;
        }
        at = p;
    }
    parent.insert(i, at);
    at
}

/// The decisions' part of the page.
pub(crate) struct Decisions<'i, 'a> {
    pub index: &'i Index<'a>,
    pub memory: &'a Memory,
    pub marks: &'i Marks<'a>,
    pub succession: &'i Succession,
}

impl Decisions<'_, '_> {
    /// Writes the section.
    pub(crate) fn render(&self, out: &mut String) {
        let index = self.index;
        out.push_str(
            "<section id=\"decisions\" aria-labelledby=\"decisions-h\"><h2 id=\"decisions-h\">Decisions</h2><p class=\"summary\">",
        );
        count(out, "decisions", index.decisions());
        out.push_str(" decision(s): ");
        count(out, "decisions-in-force", index.in_force.total);
        out.push_str(" in force (");
        count(out, "decisions-may-be-in-force", index.may_be_in_force);
        out.push_str(" of them with no readable status), ");
        count(out, "decisions-proposed", index.proposed.total);
        out.push_str(" proposed, ");
        count(out, "decisions-ended", index.ended.total);
        out.push_str(" ended.</p>");
        match &self.memory.ledger {
            Ok(ledger) if ledger.records.is_empty() => out.push_str(
                "<p class=\"note\">No decision is in the ledger yet: who acted is known once a decision is adopted (<code>bmad-mem decision adopt --all</code>).</p>",
            ),
            Ok(_) => {}
            Err(e) => {
                out.push_str("<p class=\"problem\">The ledger cannot be read: ");
                text(out, e);
                out.push_str(" — <code>bmad-mem doctor</code> names the damage.</p>");
            }
        }
        self.graphs(out);
        for (group, id, title, list) in [
            (
                Group::InForce,
                "decisions-in-force",
                "In force",
                &index.in_force,
            ),
            (
                Group::Proposed,
                "decisions-proposed",
                "Proposed",
                &index.proposed,
            ),
            (Group::Ended, "decisions-ended", "Ended", &index.ended),
        ] {
            let _ = write!(
                out,
                "<section class=\"group\" aria-labelledby=\"{id}-h\"><h3 id=\"{id}-h\">{title} ({})</h3>",
                list.total
            );
            if list.total == 0 {
                let _ = write!(
                    out,
                    "<p class=\"empty\">No decision {}.</p>",
                    match group {
                        Group::InForce => "in force",
                        Group::Proposed => "proposed",
                        Group::Ended => "has ended",
                    }
                );
            }
            self.list(out, id, title, list);
            out.push_str("</section>");
        }
        out.push_str("</section>");
    }

    fn list(&self, out: &mut String, id: &str, title: &str, list: &Shown) {
        list_open(out, id, &format!("Decisions {}", title.to_lowercase()));
        for &i in &list.shown {
            self.card(out, i);
        }
        list_close(out, list.shown.len(), list.total, "the decision files");
    }

    fn ledger(&self) -> Option<&Ledger> {
        self.memory.ledger.as_ref().ok()
    }

    /// The ledger records of entry `i`, in chain order.
    fn records(&self, entry: &Entry<'_>) -> Vec<&Record> {
        let Some(ledger) = self.ledger() else {
            return Vec::new();
        };
        self.memory
            .chains
            .of(&entry.note.rel, entry.section.heading)
            .map(|chain| chain.records.iter().map(|&r| &ledger.records[r]).collect())
            .unwrap_or_default()
    }

    fn card(&self, out: &mut String, i: usize) {
        let index = self.index;
        let entry = &index.entries[i];
        let (class, shown_status) = status_of(entry.status.as_ref());
        let found = self.marks.of(entry);
        let is_flagged = found.iter().any(|f| f.severity.as_str() == "error");
        let _ = write!(
            out,
            "<li class=\"item decision st-{class}{}\" id=\"{}\" data-kind=\"decision\"><h4>",
            if is_flagged { " flagged" } else { "" },
            index.anchor(i).unwrap_or_default()
        );
        isolated(out, entry.section.heading);
        let _ = write!(
            out,
            "</h4><p class=\"meta\"><span class=\"badge s-{class}\">"
        );
        text(out, &shown_status);
        out.push_str("</span>");
        let records = self.records(entry);
        let tip = records.last();
        if let Some(day) = entry
            .date
            .or_else(|| tip.map(|r| r.ts.get(..10).unwrap_or(&r.ts)))
        {
            out.push_str(" <span>");
            text(out, day);
            out.push_str("</span>");
        }
        match tip {
            Some(r) => {
                out.push_str(" <span>");
                text(out, &r.event);
                out.push_str(" by ");
                isolated(out, r.actor.as_deref().unwrap_or("(not recorded)"));
                out.push_str("</span>");
            }
            None => out.push_str(" <span class=\"muted\">not in the ledger</span>"),
        }
        out.push_str(" <span class=\"file\">");
        text(out, &format!("{}:{}", entry.note.rel, entry.line()));
        out.push_str("</span></p>");
        marks(out, &found);
        self.links(out, i);
        // One record says no more than the line above; a chain of two or more is drawn.
        if records.len() > 1 {
            let steps: Vec<Step> = records
                .iter()
                .map(|r| Step {
                    event: r.event.clone(),
                    day: r.ts.get(..10).unwrap_or(&r.ts).to_owned(),
                    status: ledger_class(&r.status),
                })
                .collect();
            out.push_str("<figure class=\"ledger\"><div class=\"scroll\">");
            svg::chain(
                out,
                &steps,
                &format!("Ledger chain of {} record(s)", records.len()),
            );
            out.push_str("</div><figcaption>");
            let _ = write!(out, "{} ledger record(s)", records.len());
            if let Some(reason) = tip.and_then(|r| r.reason.as_deref()) {
                out.push_str("; last reason: ");
                isolated(out, reason);
            }
            out.push_str("</figcaption></figure>");
        }
        body(out, entry);
        out.push_str("</li>");
    }

    /// "Superseded by" and "supersedes" as links.
    fn links(&self, out: &mut String, i: usize) {
        let succession = self.succession;
        let next = succession.next.get(&i).copied();
        let before: Vec<usize> = succession.before.get(&i).cloned().unwrap_or_default();
        if next.is_none() && before.is_empty() {
            return;
        }
        out.push_str("<p class=\"links\">");
        if let Some(j) = next {
            out.push_str("Superseded by ");
            self.link(out, j);
            out.push_str(". ");
        }
        if !before.is_empty() {
            out.push_str("Supersedes ");
            for (k, &j) in before.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                self.link(out, j);
            }
            out.push('.');
        }
        out.push_str("</p>");
    }

    fn link(&self, out: &mut String, j: usize) {
        let heading = self.index.entries[j].section.heading;
        match self.index.anchor(j) {
            Some(anchor) => {
                let _ = write!(out, "<a href=\"#{anchor}\">");
                isolated(out, heading);
                out.push_str("</a>");
            }
            None => isolated(out, heading),
        }
    }

    fn graphs(&self, out: &mut String) {
        let succession = self.succession;
        let lines = succession.lines(self.index);
        if lines.is_empty() {
            return;
        }
        out.push_str("<section class=\"group\" aria-labelledby=\"succession-h\"><h3 id=\"succession-h\">Succession</h3><p class=\"note\">Each line of decisions that replaced one another, oldest on the left; a crossed box was abrogated, rejected, rolled back or deprecated; a red box lies on a cycle.</p><ul class=\"graphs\">");
        for line in lines.iter().take(MAX_GRAPHS) {
            let members = &line[..line.len().min(MAX_NODES)];
            let position: HashMap<usize, usize> =
                members.iter().enumerate().map(|(k, &i)| (i, k)).collect();
            let nodes: Vec<Node> = members
                .iter()
                .map(|&i| {
                    let entry = &self.index.entries[i];
                    Node {
                        label: entry.section.heading.to_owned(),
                        status: status_of(entry.status.as_ref()).0,
                        anchor: self.index.anchor(i).map(str::to_owned),
                    }
                })
                .collect();
            let edges: Vec<(usize, usize)> = members
                .iter()
                .filter_map(|i| {
                    let j = succession.next.get(i)?;
                    Some((position[i], *position.get(j)?))
                })
                .collect();
            out.push_str("<li><div class=\"scroll\">");
            svg::succession(
                out,
                &nodes,
                &edges,
                &format!("Succession of {} decision(s)", line.len()),
            );
            out.push_str("</div>");
            if line.len() > members.len() {
                let _ = write!(
                    out,
                    "<p class=\"capped\">{} more decision(s) of this line are not drawn.</p>",
                    line.len() - members.len()
                );
            }
            out.push_str("</li>");
        }
        out.push_str("</ul>");
        if lines.len() > MAX_GRAPHS {
            let _ = write!(
                out,
                "<p class=\"capped\">{} more line(s) of succession are not drawn.</p>",
                lines.len() - MAX_GRAPHS
            );
        }
        out.push_str("</section>");
    }
}
