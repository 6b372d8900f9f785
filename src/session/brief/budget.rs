//! The brief's budget: which entries are printed within `--max-chars`, and the listing of the
//! ones that are not (docs/BRIEF.md).
//!
//! Lengths are UTF-16 units (docs §2.3). An entry is printed whole or not at all. When every
//! entry fits, every entry is printed. Otherwise the *budget* — the maximum minus the title — is
//! spent in three steps:
//!
//! 1. **Shares.** The parts are served in order; each takes its entries in order, skipping any
//!    that does not fit, within half of what is still free when its turn comes. The listing of
//!    what is left out is served last and keeps the rest.
//! 2. **Leftover.** When the listing needs less than that rest (every title fits with room to
//!    spare), the spare goes back to the parts in order, each taking more of its entries; a part
//!    grows past half of the budget only when no later part has an entry waiting that the spare
//!    could still hold. Repeated until nothing changes.
//! 3. **Listing.** What was left out is listed by title, one short line each, in the parts'
//!    order, as long as the budget lasts; the rest is counted on a last line
//!    (`- … and N more: …`). When not even the listing's heading and that line fit, the last
//!    entries taken are dropped to make room, and under a budget too small even for the title
//!    and them alone the listing is printed over the budget: nothing is left out silently.
//!
//! So no part takes more than half of the budget while a later part still has entries waiting,
//! and an agent always learns what exists beyond what it reads. Pure: no I/O.

use std::fmt::Write as _;
use std::ops::Range;

use crate::js::text::utf16_len;

/// The longest title a listing line shows, in UTF-16 units (longer ones end with `…`).
const TITLE_WIDTH: usize = 80;

/// The parts of the brief, in the order they are served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    Sidecar,
    Boundaries,
    Brain,
    Context,
    Handoff,
    Decisions,
    Lessons,
    Patterns,
    Journal,
    Commits,
}

impl Part {
    /// The part's name in JSON.
    #[must_use]
    pub(crate) fn name(self) -> &'static str {
        match self {
            Part::Sidecar => "sidecar",
            Part::Boundaries => "boundaries",
            Part::Brain => "brain",
            Part::Context => "context",
            Part::Handoff => "handoff",
            Part::Decisions => "decisions",
            Part::Lessons => "lessons",
            Part::Patterns => "patterns",
            Part::Journal => "journal",
            Part::Commits => "commits",
        }
    }

    /// What one of its entries is, in a listing line.
    fn kind(self) -> &'static str {
        match self {
            Part::Sidecar => "sidecar",
            Part::Boundaries => "boundaries",
            Part::Brain => "brain",
            Part::Context => "context",
            Part::Handoff => "handoff",
            Part::Decisions => "decision",
            Part::Lessons => "lesson",
            Part::Patterns => "pattern",
            Part::Journal => "journal event",
            Part::Commits => "commit",
        }
    }

    /// How the listing counts `n` left-out entries of this part.
    fn counted(self, n: usize) -> String {
        let plural = |one: &str, many: &str| {
            if n == 1 {
                format!("1 {one}")
            } else {
                format!("{n} {many}")
            }
        };
        match self {
            Part::Sidecar => "the sidecar's index.md".to_owned(),
            Part::Boundaries => plural("access-boundaries file", "access-boundaries files"),
            Part::Brain => "the brain's entry point".to_owned(),
            Part::Context => plural("context.md section", "context.md sections"),
            Part::Handoff => plural("handoff", "handoffs"),
            Part::Decisions => plural("decision in force", "decisions in force"),
            Part::Lessons => plural("lesson", "lessons"),
            Part::Patterns => plural("validated pattern", "validated patterns"),
            Part::Journal => plural("journal event", "journal events"),
            Part::Commits => plural("commit", "commits"),
        }
    }
}

/// One entry: printed whole or left out whole.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// What it is (a heading, a file name, an event id): its title in the listing.
    pub label: String,
    /// Its Markdown, without a final newline.
    pub text: String,
    /// The file it comes from, when its group reads several files.
    pub source: Option<String>,
}

/// The entries of one part read from one source, under one `##` heading.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Group {
    pub part: Part,
    pub source: String,
    pub heading: String,
    pub entries: Vec<Entry>,
}

/// The brief as cut.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cut {
    pub text: String,
    /// For each group, which of its entries were kept.
    pub kept: Vec<Vec<bool>>,
    /// How many left-out entries the listing names by title (the others it counts).
    pub listed: usize,
}

/// `"\n## " + heading + "\n"`.
fn header_cost(group: &Group) -> usize {
    utf16_len(&group.heading) + 5
}

/// `"\n" + text + "\n"`.
fn entry_cost(entry: &Entry) -> usize {
    utf16_len(&entry.text) + 2
}

/// What is taken so far, and in which order.
struct Taking<'a> {
    groups: &'a [Group],
    /// The groups of each part, in order: consecutive groups of the same part.
    parts: Vec<Range<usize>>,
    kept: Vec<Vec<bool>>,
    /// Units used by each part, its group headings included.
    used: Vec<usize>,
    /// (group, entry) in the order taken.
    order: Vec<(usize, usize)>,
}

impl<'a> Taking<'a> {
    fn new(groups: &'a [Group]) -> Self {
        let mut parts: Vec<Range<usize>> = Vec::new();
        for (g, group) in groups.iter().enumerate() {
            match parts.last_mut() {
                Some(span) if groups[span.start].part == group.part => span.end = g + 1,
                _ => parts.push(g..g + 1),
            }
        }
        Self {
            groups,
            kept: groups
                .iter()
                .map(|g| vec![false; g.entries.len()])
                .collect(),
            used: vec![0; parts.len()],
            parts,
            order: Vec::new(),
        }
    }

    /// What taking entry `e` of group `g` costs now: the entry, and the group's heading when it
    /// is the group's first entry.
    fn cost(&self, g: usize, e: usize) -> usize {
        let started = self.kept[g].iter().any(|k| *k);
        entry_cost(&self.groups[g].entries[e])
            + if started {
                0
            } else {
                header_cost(&self.groups[g])
            }
    }

    fn take(&mut self, part: usize, g: usize, e: usize) {
        self.used[part] += self.cost(g, e);
        self.kept[g][e] = true;
        self.order.push((g, e));
    }

    /// Drops the entry taken last; false when nothing is left to drop.
    fn drop_last(&mut self) -> bool {
        let Some((g, e)) = self.order.pop() else {
            return false;
        };
        self.kept[g][e] = false;
        let part = self.part_of(g);
        self.used[part] -= self.cost(g, e);
        true
    }

    fn part_of(&self, g: usize) -> usize {
        self.parts
            .iter()
            .position(|span| span.contains(&g))
            .unwrap_or_default()
    }

    fn total(&self) -> usize {
        self.used.iter().sum()
    }

    /// The entries of part `part` not taken, in order.
    fn waiting(&self, part: usize) -> Vec<(usize, usize)> {
        self.parts[part]
            .clone()
            .flat_map(|g| {
                self.kept[g]
                    .iter()
                    .enumerate()
                    .filter(|(_, k)| !**k)
                    .map(move |(e, _)| (g, e))
            })
            .collect()
    }

    /// Every entry not taken, in order, with its part.
    fn left_out(&self) -> Vec<(Part, &'a Entry)> {
        let groups = self.groups;
        groups
            .iter()
            .zip(&self.kept)
            .flat_map(|(group, kept)| {
                group
                    .entries
                    .iter()
                    .zip(kept)
                    .filter(|(_, k)| !**k)
                    .map(move |(entry, _)| (group.part, entry))
            })
            .collect()
    }

    /// Step 1: each part takes its entries in order within half of what is still free.
    fn take_shares(&mut self, budget: usize) {
        let mut free = budget;
        for part in 0..self.parts.len() {
            let share = free / 2;
            for (g, e) in self.waiting(part) {
                if self.used[part] + self.cost(g, e) <= share {
                    self.take(part, g, e);
                }
            }
            free -= self.used[part];
        }
    }

    /// Step 2: the spare the listing does not need goes back to the parts in order (see the
    /// module documentation).
    fn take_leftover(&mut self, budget: usize, max: usize) {
        loop {
            let Some(full) = full_listing_cost(&self.left_out(), max) else {
                return;
            };
            let Some(mut spare) = budget.checked_sub(self.total() + full) else {
                return;
            };
            let mut changed = false;
            for part in 0..self.parts.len() {
                for (g, e) in self.waiting(part) {
                    let entry = &self.groups[g].entries[e];
                    let room = spare + line_cost(self.groups[g].part, entry);
                    let cost = self.cost(g, e);
                    if cost > room {
                        continue;
                    }
                    let past_half = self.used[part] + cost > budget / 2;
                    if past_half && self.later_entry_fits(part, spare) {
                        continue;
                    }
                    self.take(part, g, e);
                    spare = room - cost;
                    changed = true;
                }
            }
            if !changed {
                return;
            }
        }
    }

    /// Whether a part after `part` has an entry waiting that `spare` could hold (its listing
    /// line given back): then the spare is that part's before `part` grows past half.
    fn later_entry_fits(&self, part: usize, spare: usize) -> bool {
        (part + 1..self.parts.len()).any(|later| {
            self.waiting(later).into_iter().any(|(g, e)| {
                self.cost(g, e)
                    <= spare + line_cost(self.groups[g].part, &self.groups[g].entries[e])
            })
        })
    }
}

/// Cuts `groups` under `title` to at most `max` UTF-16 units (see the module documentation).
#[must_use]
pub(crate) fn cut(title: &str, groups: &[Group], max: usize) -> Cut {
    let title_len = utf16_len(title);
    let mut taking = Taking::new(groups);
    let everything: usize = groups
        .iter()
        .map(|g| header_cost(g) + g.entries.iter().map(entry_cost).sum::<usize>())
        .sum();
    if title_len + everything <= max {
        for part in 0..taking.parts.len() {
            for (g, e) in taking.waiting(part) {
                taking.take(part, g, e);
            }
        }
    } else {
        let budget = max.saturating_sub(title_len);
        taking.take_shares(budget);
        taking.take_leftover(budget, max);
    }
    // Step 3: the listing, in what the entries leave; the last entries taken make room for its
    // heading and count line when they do not fit — unless even dropping them all would not
    // make room: then they stay and the listing goes over the budget.
    let greedy = (
        taking.kept.clone(),
        taking.used.clone(),
        taking.order.clone(),
    );
    let (listing, listed) = loop {
        let room = max.saturating_sub(title_len + taking.total());
        if let Some(found) = listing(&taking.left_out(), max, room) {
            break found;
        }
        if !taking.drop_last() {
            (taking.kept, taking.used, taking.order) = greedy;
            let left_out = taking.left_out();
            break (listing_heading(max) + &count_line(&left_out, 0), 0);
        }
    };
    let mut text = title.to_owned();
    for (group, kept) in groups.iter().zip(&taking.kept) {
        if !kept.iter().any(|k| *k) {
            continue;
        }
        let _ = write!(text, "\n## {}\n", group.heading);
        for (entry, _) in group.entries.iter().zip(kept).filter(|(_, k)| **k) {
            let _ = write!(text, "\n{}\n", entry.text);
        }
    }
    text.push_str(&listing);
    Cut {
        text,
        kept: taking.kept,
        listed,
    }
}

/// `\n## Left out to fit N characters\n\n`.
fn listing_heading(max: usize) -> String {
    format!("\n## Left out to fit {max} characters\n\n")
}

/// A title on one short line: whitespace runs made one space, at most [`TITLE_WIDTH`] units.
fn short(title: &str) -> String {
    let collapsed = title.split_whitespace().collect::<Vec<_>>().join(" ");
    if utf16_len(&collapsed) <= TITLE_WIDTH {
        return collapsed;
    }
    let mut out = String::new();
    let mut units = 0;
    for c in collapsed.chars() {
        if units + c.len_utf16() > TITLE_WIDTH - 1 {
            break;
        }
        out.push(c);
        units += c.len_utf16();
    }
    out.push('…');
    out
}

/// `- <kind>: <title>\n`.
fn listing_line(part: Part, entry: &Entry) -> String {
    format!("- {}: {}\n", part.kind(), short(&entry.label))
}

fn line_cost(part: Part, entry: &Entry) -> usize {
    utf16_len(&listing_line(part, entry))
}

/// The last line, counting `rest` per part: `- … and N more: 2 lessons, 1 commit.` after
/// listed lines, `- 2 lessons, 1 commit.` when none is listed; nothing when `rest` is empty.
fn count_line(rest: &[(Part, &Entry)], listed: usize) -> String {
    if rest.is_empty() {
        return String::new();
    }
    let mut counts: Vec<(Part, usize)> = Vec::new();
    for (part, _) in rest {
        match counts.last_mut() {
            Some((p, n)) if p == part => *n += 1,
            _ => counts.push((*part, 1)),
        }
    }
    let list: Vec<String> = counts.iter().map(|(p, n)| p.counted(*n)).collect();
    if listed == 0 {
        format!("- {}.\n", list.join(", "))
    } else {
        format!("- … and {} more: {}.\n", rest.len(), list.join(", "))
    }
}

/// The cost of listing every entry of `left_out` by title; `None` when nothing is left out.
fn full_listing_cost(left_out: &[(Part, &Entry)], max: usize) -> Option<usize> {
    (!left_out.is_empty()).then(|| {
        utf16_len(&listing_heading(max))
            + left_out
                .iter()
                .map(|(p, e)| line_cost(*p, e))
                .sum::<usize>()
    })
}

/// The listing of `left_out` within `room` units, and how many entries it names: each part's
/// titles in order within half of the room still free when its turn comes, then more of each
/// part's titles, the parts in order, while they fit; then the count line of the rest. Empty when nothing is left out; `None`
/// when not even the heading and the count line fit.
fn listing(left_out: &[(Part, &Entry)], max: usize, room: usize) -> Option<(String, usize)> {
    if left_out.is_empty() {
        return Some((String::new(), 0));
    }
    let heading = listing_heading(max);
    let bare = utf16_len(&heading) + utf16_len(&count_line(left_out, 0));
    if bare > room {
        return None;
    }
    let lines: Vec<String> = left_out.iter().map(|(p, e)| listing_line(*p, e)).collect();
    let mut chosen = vec![false; lines.len()];
    // The count line after some titles is never longer than this one: fewer entries, no
    // more parts.
    let reserve = utf16_len(&heading) + utf16_len(&count_line(left_out, 1));
    if let Some(mut free) = room.checked_sub(reserve) {
        let mut spans: Vec<Range<usize>> = Vec::new();
        for (i, (part, _)) in left_out.iter().enumerate() {
            match spans.last_mut() {
                Some(span) if left_out[span.start].0 == *part => span.end = i + 1,
                _ => spans.push(i..i + 1),
            }
        }
        // Each part's titles are a prefix of its left-out entries: listed in order within half
        // of the room still free when its turn comes, then — in a second round, in the parts'
        // order — until the room ends.
        let mut ends: Vec<usize> = spans.iter().map(|span| span.start).collect();
        for round in 0..2 {
            for (s, span) in spans.iter().enumerate() {
                let share = if round == 0 { free / 2 } else { free };
                let mut used = 0;
                while ends[s] < span.end && used + utf16_len(&lines[ends[s]]) <= share {
                    used += utf16_len(&lines[ends[s]]);
                    chosen[ends[s]] = true;
                    ends[s] += 1;
                }
                free -= used;
            }
        }
    }
    let rest: Vec<(Part, &Entry)> = left_out
        .iter()
        .zip(&chosen)
        .filter(|(_, c)| !**c)
        .map(|(e, _)| *e)
        .collect();
    let listed = lines.len() - rest.len();
    let mut text = heading;
    for (line, _) in lines.iter().zip(&chosen).filter(|(_, c)| **c) {
        text.push_str(line);
    }
    text.push_str(&count_line(&rest, listed));
    Some((text, listed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn group(part: Part, heading: &str, texts: &[&str]) -> Group {
        Group {
            part,
            source: heading.to_owned(),
            heading: heading.to_owned(),
            entries: texts
                .iter()
                .map(|t| Entry {
                    label: t.split('\n').next().unwrap_or_default().to_owned(),
                    text: (*t).to_owned(),
                    source: None,
                })
                .collect(),
        }
    }

    fn refs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }

    fn sized(label: &str, len: usize) -> String {
        format!("{label}\n{}", "x".repeat(len - label.len() - 1))
    }

    #[test]
    fn everything_that_fits_is_printed_whole_and_in_order() {
        let groups = [
            group(Part::Context, "C", &["ctx"]),
            group(Part::Lessons, "L", &["one", "two"]),
        ];
        let cut = cut("# T\n", &groups, 1000);
        assert_eq!(cut.text, "# T\n\n## C\n\nctx\n\n## L\n\none\n\ntwo\n");
        assert_eq!(cut.kept, [vec![true], vec![true, true]]);
        assert_eq!(cut.listed, 0);
    }

    #[test]
    fn no_part_takes_more_than_half_while_a_later_one_waits() {
        // Ten decisions of 300 units would fill the whole budget; the lessons still get their
        // share, and the rest is listed by title.
        let decisions: Vec<String> = (0..10).map(|i| sized(&format!("d{i}"), 300)).collect();
        let lessons: Vec<String> = (0..6).map(|i| sized(&format!("l{i}"), 200)).collect();
        let groups = [
            group(Part::Decisions, "D", &refs(&decisions)),
            group(Part::Lessons, "L", &refs(&lessons)),
        ];
        let cut = cut("# T\n", &groups, 1500);
        // Shares: half of 1496 holds two decisions (6 + 2 × 302), half of the 886 left two
        // lessons (6 + 2 × 202). The listing needs 196 of the 476 left: the spare takes one more
        // lesson, not a decision (302 units, more than the spare and its title line).
        assert_eq!(cut.kept[0].iter().filter(|k| **k).count(), 2);
        assert_eq!(cut.kept[1], [true, true, true, false, false, false]);
        let listing = "\n## Left out to fit 1500 characters\n\n- decision: d2\n- decision: d3\n- decision: d4\n- decision: d5\n- decision: d6\n- decision: d7\n- decision: d8\n- decision: d9\n- lesson: l3\n- lesson: l4\n- lesson: l5\n";
        assert!(cut.text.ends_with(listing), "{}", cut.text);
        assert_eq!(cut.listed, 11);
        assert_eq!(utf16_len(&cut.text), 4 + 610 + 612 + utf16_len(listing));
    }

    #[test]
    fn the_listing_counts_what_it_cannot_name() {
        let decisions: Vec<String> = (0..40).map(|i| sized(&format!("d{i}"), 100)).collect();
        let groups = [group(
            Part::Decisions,
            "D",
            &decisions.iter().map(String::as_str).collect::<Vec<_>>(),
        )];
        let cut = cut("# T\n", &groups, 800);
        assert!(utf16_len(&cut.text) <= 800, "{}", cut.text);
        let kept = cut.kept[0].iter().filter(|k| **k).count();
        assert_eq!(kept, 3);
        let rest = 40 - kept - cut.listed;
        assert!(cut.listed > 0);
        assert!(
            cut.text.ends_with(&format!(
                "- … and {rest} more: {rest} decisions in force.\n"
            )),
            "{}",
            cut.text
        );
    }

    #[test]
    fn the_spare_goes_back_when_every_title_is_listed() {
        // The decision is too big for its share (half of the budget) but fits in what the
        // small lessons leave: taken in the leftover step, since no later entry waits.
        let big = sized("big", 700);
        let groups = [
            group(Part::Decisions, "D", &[&big]),
            group(Part::Lessons, "L", &["l1", "l2"]),
        ];
        let first = cut("# T\n", &groups, 760);
        assert_eq!(first.kept, [vec![true], vec![true, true]], "{}", first.text);
        // With a third, bigger lesson waiting that the spare could hold, the spare goes to the
        // lesson, and the decision stays out rather than take more than half of the budget.
        let lesson = sized("l3", 500);
        let groups = [
            group(Part::Decisions, "D", &[&big]),
            group(Part::Lessons, "L", &["l1", "l2", &lesson]),
        ];
        let cut = cut("# T\n", &groups, 800);
        assert_eq!(cut.kept, [vec![false], vec![true; 3]], "{}", cut.text);
        assert!(
            cut.text
                .ends_with("\n## Left out to fit 800 characters\n\n- decision: big\n")
        );
    }

    #[test]
    fn a_budget_too_small_for_the_listing_still_says_what_was_left_out() {
        let groups = [
            group(Part::Context, "C", &[&"c".repeat(100)]),
            group(Part::Lessons, "L", &["one", "two"]),
        ];
        // The listing's heading and count line do not fit next to the title: what fits is
        // kept, and the listing goes over the budget rather than leaving things out silently.
        let cut = cut("# T\n", &groups, 60);
        assert_eq!(
            cut.text,
            "# T\n\n## L\n\none\n\ntwo\n\n## Left out to fit 60 characters\n\n- 1 context.md section.\n"
        );
        assert_eq!(cut.listed, 0);
    }

    #[test]
    fn long_titles_are_shortened() {
        assert_eq!(short("a  b\nc"), "a b c");
        let long = "é".repeat(100);
        let shortened = short(&long);
        assert_eq!(utf16_len(&shortened), TITLE_WIDTH);
        assert!(shortened.ends_with('…'));
    }

    fn arbitrary_groups() -> impl Strategy<Value = Vec<Group>> {
        let parts = [
            Part::Brain,
            Part::Context,
            Part::Handoff,
            Part::Decisions,
            Part::Lessons,
            Part::Patterns,
            Part::Journal,
        ];
        prop::collection::vec(
            (0..parts.len(), prop::collection::vec(1usize..400, 0..8)),
            0..7,
        )
        .prop_map(move |mut spec| {
            spec.sort_by_key(|(p, _)| *p);
            spec.into_iter()
                .enumerate()
                .map(|(g, (p, sizes))| Group {
                    part: parts[p],
                    source: format!("s{g}"),
                    heading: format!("H{g}"),
                    entries: sizes
                        .iter()
                        .enumerate()
                        .map(|(e, n)| Entry {
                            label: format!("e{g}.{e}"),
                            text: "y".repeat(*n),
                            source: None,
                        })
                        .collect(),
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn the_budget_rule_holds(groups in arbitrary_groups(), max in 1usize..3000) {
            let title = "# T\n";
            let cut = cut(title, &groups, max);
            let budget = max.saturating_sub(utf16_len(title));
            // Every entry is kept whole or left out; the listing names or counts every one left out.
            let left_out = cut.kept.iter().flatten().filter(|k| !**k).count();
            prop_assert!(cut.listed <= left_out);
            prop_assert_eq!(cut.text.contains("\n## Left out to fit "), left_out > 0);
            // The text stays within the budget unless not even the title and the smallest
            // listing fit.
            let len = utf16_len(&cut.text);
            if len > max {
                let all: Vec<(Part, &Entry)> = groups.iter().flat_map(|g| g.entries.iter().map(move |e| (g.part, e))).collect();
                let smallest = utf16_len(title) + utf16_len(&listing_heading(max)) + utf16_len(&count_line(&all, 0));
                prop_assert!(smallest > max, "over the budget although the listing alone fits");
            }
            // No part takes more than half of the budget while a later part has an entry
            // waiting that the budget could still hold (its listing line given back).
            let mut used: Vec<(Part, usize)> = Vec::new();
            let mut waiting: Vec<(Part, &Entry, usize)> = Vec::new();
            for (group, kept) in groups.iter().zip(&cut.kept) {
                let started = kept.iter().any(|k| *k);
                let mut cost = if started { header_cost(group) } else { 0 };
                for (entry, k) in group.entries.iter().zip(kept) {
                    if *k {
                        cost += entry_cost(entry);
                    } else {
                        let header = if started { 0 } else { header_cost(group) };
                        waiting.push((group.part, entry, entry_cost(entry) + header));
                    }
                }
                match used.last_mut() {
                    Some((p, n)) if *p == group.part => *n += cost,
                    _ => used.push((group.part, cost)),
                }
            }
            let total: usize = used.iter().map(|(_, n)| n).sum();
            let left: Vec<(Part, &Entry)> = waiting.iter().map(|(p, e, _)| (*p, *e)).collect();
            let spare = full_listing_cost(&left, max).and_then(|full| budget.checked_sub(total + full));
            for (i, (part, n)) in used.iter().enumerate() {
                if *n <= budget / 2 || waiting.is_empty() {
                    continue;
                }
                let spare = spare.expect("a part past half with entries left out and no spare");
                for (later, entry, cost) in &waiting {
                    if used[i + 1..].iter().any(|(p, _)| p == later) {
                        prop_assert!(
                            *cost > spare + line_cost(*later, entry),
                            "{part:?} took {n} of {budget} while {} waits", entry.label
                        );
                    }
                }
            }
        }
    }
}
