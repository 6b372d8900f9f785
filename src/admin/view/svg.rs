//! The page's drawings, computed here as inline SVG (no script draws anything): the decisions'
//! succession graph, each decision's ledger chain, and each pattern's score over time.
//!
//! Coordinates are the page's own numbers; every text (a heading, an event) goes through
//! [`crate::admin::view::html::text`]. Colours come from the page's stylesheet through classes,
//! never from attributes a text could reach. Each drawing is bounded: the graph draws at most
//! [`MAX_NODES`] decisions per chain, a ledger chain its last [`MAX_RECORDS`] records, a chart
//! its last [`MAX_POINTS`] points.

use std::fmt::Write as _;

use crate::admin::view::html::{bounded, clipped, text};

/// Most decisions one succession graph draws.
pub(crate) const MAX_NODES: usize = 40;
/// Most records a decision's ledger chain draws.
pub(crate) const MAX_RECORDS: usize = 12;
/// Most points a score chart draws.
pub(crate) const MAX_POINTS: usize = 200;

const NODE_W: usize = 176;
const NODE_H: usize = 34;
const GAP_X: usize = 36;
const GAP_Y: usize = 14;
const PAD: usize = 6;

/// A decision in a succession graph.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub label: String,
    /// The status class (`active`, `superseded`, `abrogated`, …).
    pub status: &'static str,
    /// The anchor of its card on the page, when it is shown.
    pub anchor: Option<String>,
}

/// Where each node stands: (column, row), and whether it lies on a cycle.
fn layout(n: usize, edges: &[(usize, usize)]) -> (Vec<(usize, usize)>, Vec<bool>) {
    let mut indegree = vec![0usize; n];
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in edges {
        indegree[b] += 1;
        next[a].push(b);
    }
    let mut depth = vec![0usize; n];
    let mut queue: std::collections::VecDeque<usize> =
        (0..n).filter(|&i| indegree[i] == 0).collect();
    let mut placed = vec![false; n];
    while let Some(i) = queue.pop_front() {
        placed[i] = true;
        for &j in &next[i] {
            depth[j] = depth[j].max(depth[i] + 1);
            indegree[j] -= 1;
            if indegree[j] == 0 {
                queue.push_back(j);
            }
        }
    }
    // What Kahn's walk never reached lies on a cycle (or after one): one column each, after the rest.
    let deepest = (0..n).filter(|&i| placed[i]).map(|i| depth[i]).max();
    let mut column = deepest.map_or(0, |d| d + 1);
    let cyclic: Vec<bool> = placed.iter().map(|p| !p).collect();
    for i in 0..n {
        if cyclic[i] {
            depth[i] = column;
            column += 1;
        }
    }
    let mut rows = vec![0usize; column.max(1) + 1];
    let at = (0..n)
        .map(|i| {
            let row = rows[depth[i]];
            rows[depth[i]] += 1;
            (depth[i], row)
        })
        .collect();
    (at, cyclic)
}

/// A succession graph: `nodes`, and `edges` from a decision to its successor. The caller keeps
/// it within [`MAX_NODES`].
pub(crate) fn succession(out: &mut String, nodes: &[Node], edges: &[(usize, usize)], label: &str) {
    let (at, cyclic) = layout(nodes.len(), edges);
    let columns = at.iter().map(|(c, _)| c + 1).max().unwrap_or(1);
    let rows = at.iter().map(|(_, r)| r + 1).max().unwrap_or(1);
    let width = PAD * 2 + columns * NODE_W + (columns - 1) * GAP_X;
    let height = PAD * 2 + rows * NODE_H + (rows - 1) * GAP_Y + GAP_Y;
    let x = |c: usize| PAD + c * (NODE_W + GAP_X);
    let y = |r: usize| PAD + r * (NODE_H + GAP_Y);
    let _ = write!(
        out,
        "<svg class=\"graph\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"group\" aria-label=\""
    );
    text(out, label);
    out.push_str("\">");
    for &(a, b) in edges {
        let ((ca, ra), (cb, rb)) = (at[a], at[b]);
        let (x1, y1) = (x(ca) + NODE_W, y(ra) + NODE_H / 2);
        let (x2, y2) = (x(cb), y(rb) + NODE_H / 2);
        if cb > ca {
            let _ = write!(
                out,
                "<path class=\"edge\" d=\"M{x1} {y1} C{} {y1} {} {y2} {x2} {y2}\"/>",
                x1 + GAP_X / 2,
                x2 - GAP_X / 2
            );
        } else {
            // Back to an earlier column: a cycle, drawn below the boxes.
            let low = y(ra.max(rb)) + NODE_H + GAP_Y - 2;
            let _ = write!(
                out,
                "<path class=\"edge cycle\" d=\"M{x1} {y1} C{} {low} {} {low} {x2} {y2}\"/>",
                x1 + GAP_X,
                x2 - GAP_X
            );
        }
        let _ = write!(out, "<path class=\"head\" d=\"M{x2} {y2} l-7 -4 v8 z\"/>");
    }
    for (i, node) in nodes.iter().enumerate() {
        let (c, r) = at[i];
        if let Some(anchor) = &node.anchor {
            let _ = write!(out, "<a href=\"#{anchor}\">");
        }
        out.push_str("<title>");
        bounded(out, &node.label);
        out.push_str("</title>");
        let _ = write!(
            out,
            "<rect class=\"node s-{}{}\" x=\"{}\" y=\"{}\" width=\"{NODE_W}\" height=\"{NODE_H}\" rx=\"5\"/>",
            node.status,
            if cyclic[i] { " cycle" } else { "" },
            x(c),
            y(r)
        );
        let _ = write!(out, "<text x=\"{}\" y=\"{}\">", x(c) + 8, y(r) + 14);
        let mark = match node.status {
            "abrogated" | "rejected" | "rolled-back" | "deprecated" => "✕ ",
            "proposed" => "? ",
            _ => "",
        };
        text(out, &format!("{mark}{}", clipped(&node.label, 27)));
        let _ = write!(
            out,
            "</text><text class=\"sub\" x=\"{}\" y=\"{}\">",
            x(c) + 8,
            y(r) + 28
        );
        text(out, node.status);
        out.push_str("</text>");
        if node.anchor.is_some() {
            out.push_str("</a>");
        }
    }
    out.push_str("</svg>");
}

/// One record of a ledger chain, as drawn.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub event: String,
    /// `YYYY-MM-DD`.
    pub day: String,
    /// The status class it leaves.
    pub status: &'static str,
}

const STEP_W: usize = 92;

/// A decision's ledger chain: one dot per record, oldest first (the last [`MAX_RECORDS`]).
pub(crate) fn chain(out: &mut String, steps: &[Step], label: &str) {
    let steps = &steps[steps.len().saturating_sub(MAX_RECORDS)..];
    let width = 8 + steps.len() * STEP_W;
    let _ = write!(
        out,
        "<svg class=\"chain\" width=\"{width}\" height=\"44\" viewBox=\"0 0 {width} 44\" role=\"img\" aria-label=\""
    );
    text(out, label);
    out.push_str("\">");
    for (i, step) in steps.iter().enumerate() {
        let cx = 14 + i * STEP_W;
        if i > 0 {
            let _ = write!(
                out,
                "<path class=\"edge\" d=\"M{} 10 H{}\"/>",
                cx - STEP_W + 8,
                cx - 8
            );
        }
        let _ = write!(
            out,
            "<circle class=\"dot s-{}\" cx=\"{cx}\" cy=\"10\" r=\"6\"/><text x=\"{}\" y=\"28\">",
            step.status,
            cx - 8
        );
        text(out, &clipped(&step.event, 12));
        let _ = write!(out, "</text><text class=\"sub\" x=\"{}\" y=\"40\">", cx - 8);
        text(out, &step.day);
        out.push_str("</text>");
    }
    out.push_str("</svg>");
}

/// A score at one instant.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Point {
    pub ms: f64,
    pub mean: f64,
    pub elo: f64,
}

const CHART_W: f64 = 260.0;
const CHART_H: f64 = 64.0;

fn coordinate(v: f64) -> String {
    format!("{v:.1}")
}

/// A pattern's score over time: its Beta mean (0 to 1, the promotion threshold 0.7 dashed) and
/// its Elo (on its own scale), the last [`MAX_POINTS`] points, oldest first.
pub(crate) fn score_chart(out: &mut String, points: &[Point], label: &str) {
    let points = &points[points.len().saturating_sub(MAX_POINTS)..];
    let _ = write!(
        out,
        "<svg class=\"chart\" width=\"{CHART_W}\" height=\"{CHART_H}\" viewBox=\"0 0 {CHART_W} {CHART_H}\" role=\"img\" aria-label=\""
    );
    text(out, label);
    out.push_str("\">");
    let (left, right, top, bottom) = (4.0, CHART_W - 4.0, 4.0, CHART_H - 4.0);
    let first = points.first().map_or(0.0, |p| p.ms);
    let last = points.last().map_or(0.0, |p| p.ms);
    let span = last - first;
    let n = points.len();
    #[expect(clippy::cast_precision_loss, reason = "at most MAX_POINTS points")]
    let px = |i: usize, ms: f64| {
        if n < 2 {
            f64::midpoint(left, right)
        } else if span > 0.0 {
            left + (ms - first) / span * (right - left)
        } else {
            left + i as f64 / (n - 1) as f64 * (right - left)
        }
    };
    let mean_y = |m: f64| bottom - m.clamp(0.0, 1.0) * (bottom - top);
    let (lo, hi) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.elo), hi.max(p.elo))
        });
    let (lo, hi) = if hi - lo < 32.0 {
        let mid = f64::midpoint(hi, lo);
        (mid - 16.0, mid + 16.0)
    } else {
        (lo, hi)
    };
    let elo_y = |e: f64| bottom - (e - lo) / (hi - lo) * (bottom - top);
    let _ = write!(
        out,
        "<path class=\"threshold\" d=\"M{left} {} H{right}\"/>",
        coordinate(mean_y(0.7))
    );
    for (class, y) in [("elo", &elo_y as &dyn Fn(f64) -> f64), ("mean", &mean_y)] {
        let value = |p: &Point| if class == "elo" { p.elo } else { p.mean };
        if n == 1 {
            let _ = write!(
                out,
                "<circle class=\"{class}\" cx=\"{}\" cy=\"{}\" r=\"3\"/>",
                coordinate(px(0, points[0].ms)),
                coordinate(y(value(&points[0])))
            );
            continue;
        }
        let _ = write!(out, "<path class=\"{class}\" d=\"");
        for (i, p) in points.iter().enumerate() {
            let _ = write!(
                out,
                "{}{} {}",
                if i == 0 { "M" } else { " L" },
                coordinate(px(i, p.ms)),
                coordinate(y(value(p)))
            );
        }
        out.push_str("\"/>");
    }
    out.push_str("</svg>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_puts_successors_to_the_right() {
        let (at, cyclic) = layout(4, &[(0, 1), (1, 2), (3, 2)]);
        assert_eq!(at, [(0, 0), (1, 0), (2, 0), (0, 1)]);
        assert_eq!(cyclic, [false; 4]);
    }

    #[test]
    fn layout_ends_on_a_cycle() {
        let (at, cyclic) = layout(3, &[(0, 1), (1, 2), (2, 1)]);
        assert_eq!(cyclic, [false, true, true]);
        assert_eq!(at[0], (0, 0));
        assert!(at[1].0 > 0 && at[2].0 > at[1].0);
    }

    #[test]
    fn drawings_escape_their_texts() {
        let mut out = String::new();
        let nodes = [
            Node {
                label: "<script>alert(1)</script>".into(),
                status: "superseded",
                anchor: Some("e-1".into()),
            },
            Node {
                label: "B \u{202e}".into(),
                status: "active",
                anchor: None,
            },
        ];
        succession(&mut out, &nodes, &[(0, 1)], "\"graph\"");
        assert!(!out.contains("<script"), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
        assert!(out.contains("aria-label=\"&quot;graph&quot;\""), "{out}");
        assert_eq!(out.matches("<a ").count(), 1);
        let mut out = String::new();
        chain(
            &mut out,
            &[Step {
                event: "adopt<".into(),
                day: "2026-10-18".into(),
                status: "active",
            }],
            "x",
        );
        assert!(out.contains("adopt&lt;"), "{out}");
    }

    #[test]
    fn charts_one_point_or_a_line() {
        let p = |ms: f64, mean: f64, elo: f64| Point { ms, mean, elo };
        let mut out = String::new();
        score_chart(&mut out, &[p(0.0, 0.5, 1200.0)], "x");
        assert_eq!(out.matches("<circle").count(), 2, "{out}");
        let mut out = String::new();
        score_chart(&mut out, &[p(0.0, 0.5, 1200.0), p(10.0, 0.8, 1230.0)], "x");
        assert!(
            out.contains("<path class=\"mean\" d=\"M4.0 32.0 L256.0 15.2\"/>"),
            "{out}"
        );
        assert!(!out.contains("NaN"), "{out}");
    }
}
