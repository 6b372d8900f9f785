//! `view`: the page of a project's memory, checked without a browser — its structure (every
//! tag the page's own, nested as opened, no attribute that runs script or loads anything), its
//! Content-Security-Policy (the hashes of its one style and one script), the counts it shows
//! against `status`, `outcomes` and `admit --list`, the stored texts that try to inject markup,
//! the bad inputs (no memory, torn registries, a 2 MiB note, a cycle of decisions, control and
//! right-to-left characters), and that nothing but the page is ever written.
//! `tests/viewer/run.sh` loads the same pages in headless Chromium.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value as Json;
use sha2::{Digest, Sha256};

use crate::actions::decisions::{DECISIONS, NOTES, PG, REDIS, ledgered};
use crate::actions::observe::{self, LESSONS, PASSWORDS, observe};
use crate::support::nexus_run::{DEPENDENCY, RUN_ID};
use crate::support::{NOW, Snapshot, TestProject, assert_same};

/// The page `view` writes by default.
const PAGE: &str = ".bmad/cache/view.html";
const CACHE: &str = ".bmad/cache";

/// `view --json`, schema pinned.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct View {
    path: String,
    bytes: usize,
    counts: Json,
    warnings: Vec<String>,
}

/// Runs `view --json` (with `extra` arguments): exit 0, the memory untouched — only the page
/// (and the cache folder's `.gitignore`, the first time) may appear. Returns the report and the
/// page.
fn view(project: TestProject, extra: &[&str]) -> (TestProject, View, String) {
    let before = project.snapshot();
    let mut args = vec!["view", "--json"];
    args.extend_from_slice(extra);
    let ran = project.args(args).code(0).stderr("").run();
    let report: View = ran.json();
    let project = ran.then();
    let html = fs::read_to_string(&report.path).expect("the page");
    assert_eq!(html.len(), report.bytes);
    assert_only_cache_written(&project, &before, &report.path);
    check_page(&html);
    (project, report, html)
}

/// Everything under the test folder is as it was, but for the page and the cache folder.
#[track_caller]
fn assert_only_cache_written(project: &TestProject, before: &Snapshot, page: &str) {
    let base = project.base().to_path_buf();
    let cache = project.path(CACHE);
    let page = PathBuf::from(page);
    let written = |rel: &PathBuf| {
        let path = base.join(rel);
        path == page || path.starts_with(&cache)
    };
    let mut before = before.clone();
    before.retain(|rel, _| !written(rel));
    let mut after = project.snapshot();
    // `.bmad/` itself may be new, made for the cache folder.
    after.retain(|rel, _| {
        !written(rel) && (!cache.starts_with(base.join(rel)) || before.contains_key(rel))
    });
    assert_same(&before, &after, "view must change nothing but its page");
}

// ---- the page's structure -------------------------------------------------------------------

/// The elements the page is made of.
const TAGS: [&str; 52] = [
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "script",
    "a",
    "header",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "span",
    "ul",
    "ol",
    "li",
    "nav",
    "form",
    "label",
    "input",
    "output",
    "main",
    "section",
    "bdi",
    "code",
    "strong",
    "em",
    "del",
    "pre",
    "blockquote",
    "details",
    "summary",
    "div",
    "figure",
    "figcaption",
    "svg",
    "path",
    "rect",
    "circle",
    "text",
    "time",
    "select",
    "option",
    "button",
    "footer",
    "br",
    "hr",
    "table",
];
const MORE_TAGS: [&str; 9] = ["thead", "tbody", "tr", "th", "td", "sup", "sub", "dl", "dt"];
const VOID: [&str; 4] = ["meta", "input", "br", "hr"];

/// One tag of the page: its name, whether it closes, and its attributes (values decoded from
/// the page's five character references).
#[derive(Debug)]
struct Tag {
    name: String,
    is_end: bool,
    attributes: Vec<(String, String)>,
}

fn decode(value: &str) -> String {
    value
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The tags of `html` in order; the text of `<style>` and `<script>` is skipped.
fn tags(html: &str) -> Vec<Tag> {
    let mut out = Vec::new();
    let bytes = html.as_bytes();
    let mut i = 0;
    while let Some(at) = html[i..].find('<') {
        let start = i + at;
        let rest = &html[start + 1..];
        if rest.starts_with('!') {
            i = start + rest.find('>').expect("a closed declaration") + 2;
            continue;
        }
        let is_end = rest.starts_with('/');
        let body = if is_end { &rest[1..] } else { rest };
        assert!(
            body.starts_with(|c: char| c.is_ascii_alphabetic()),
            "a `<` that opens no tag must be escaped, at {start}: {}",
            &html[start..(start + 60).min(html.len())]
        );
        // The tag ends at the first `>` outside a quoted value.
        let mut quoted = false;
        let mut end = start + 1;
        while end < bytes.len() {
            match bytes[end] {
                b'"' => quoted = !quoted,
                b'>' if !quoted => break,
                _ => {}
            }
            end += 1;
        }
        let inside = html[start + 1..end]
            .trim_start_matches('/')
            .trim_end_matches('/');
        let name_end = inside
            .find(|c: char| c.is_whitespace())
            .unwrap_or(inside.len());
        let name = inside[..name_end].to_owned();
        let mut attributes = Vec::new();
        let mut rest = inside[name_end..].trim_start();
        while !rest.is_empty() {
            let key_end = rest
                .find(|c: char| c == '=' || c.is_whitespace())
                .unwrap_or(rest.len());
            let key = rest[..key_end].to_owned();
            rest = &rest[key_end..];
            let mut value = String::new();
            if let Some(after) = rest.strip_prefix("=\"") {
                let close = after.find('"').expect("a quoted value");
                value = decode(&after[..close]);
                rest = &after[close + 1..];
            } else {
                assert!(!rest.starts_with('='), "unquoted value in {inside}");
            }
            attributes.push((key, value));
            rest = rest.trim_start();
        }
        i = end + 1;
        if !is_end && (name == "style" || name == "script") {
            let close = format!("</{name}>");
            i += html[i..].find(&close).expect("a closed raw text element");
        }
        out.push(Tag {
            name,
            is_end,
            attributes,
        });
    }
    out
}

/// The checks every page passes: only the page's own elements, properly nested; one style and
/// one script, both allowed by the policy's hashes; no handler, style or source attribute; every
/// link relative, to an anchor, or http(s).
#[track_caller]
fn check_page(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    let tags = tags(html);
    let mut open: Vec<&str> = Vec::new();
    for tag in &tags {
        let name = tag.name.as_str();
        assert!(
            TAGS.contains(&name) || MORE_TAGS.contains(&name),
            "an element the page does not make: <{name}>"
        );
        for (key, value) in &tag.attributes {
            let key = key.to_ascii_lowercase();
            assert!(!key.starts_with("on"), "a handler attribute: {key}={value}");
            assert!(
                key != "style" && key != "src" && key != "srcdoc",
                "{key}={value}"
            );
            if key == "href" {
                let lower = value.to_ascii_lowercase();
                let scheme = lower.split(['/', '?', '#']).next().unwrap_or_default();
                assert!(
                    !scheme.contains(':')
                        || lower.starts_with("http://")
                        || lower.starts_with("https://"),
                    "a link that is not safe: {value}"
                );
                assert!(!lower.starts_with("//"), "{value}");
            }
        }
        let self_closed = ["path", "rect", "circle"].contains(&name) && !tag.is_end;
        if tag.is_end {
            assert_eq!(open.pop(), Some(name), "</{name}> closes what is not open");
        } else if !VOID.contains(&name) && !self_closed {
            open.push(name);
        }
    }
    assert!(open.is_empty(), "left open: {open:?}");
    let count = |name: &str| tags.iter().filter(|t| t.name == name && !t.is_end).count();
    assert_eq!((count("style"), count("script")), (1, 1));
    let inner = |name: &str| {
        let start = html.find(&format!("<{name}>")).expect("the element") + name.len() + 2;
        let end = html.find(&format!("</{name}>")).expect("its end");
        &html[start..end]
    };
    let policy = tags
        .iter()
        .find(|t| {
            t.attributes
                .iter()
                .any(|(k, v)| k == "http-equiv" && v == "Content-Security-Policy")
        })
        .and_then(|t| t.attributes.iter().find(|(k, _)| k == "content"))
        .map(|(_, v)| v.clone())
        .expect("a Content-Security-Policy");
    assert_eq!(
        policy,
        format!(
            "default-src 'none'; style-src 'sha256-{}'; script-src 'sha256-{}'; img-src 'none'; base-uri 'none'; form-action 'none'",
            base64(&Sha256::digest(inner("style").as_bytes())),
            base64(&Sha256::digest(inner("script").as_bytes()))
        )
    );
    // Every id is the page's own, and unique.
    let ids: Vec<&str> = tags
        .iter()
        .flat_map(|t| {
            t.attributes
                .iter()
                .filter(|(k, _)| k == "id")
                .map(|(_, v)| v.as_str())
        })
        .collect();
    let unique: std::collections::BTreeSet<&&str> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "ids repeat");
    for id in ids {
        assert!(
            id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'),
            "{id}"
        );
    }
}

/// Standard base64 (an independent check of the page's own).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            out.push(if k <= chunk.len() {
                char::from(ALPHABET[(n >> (18 - 6 * k)) as usize & 63])
            } else {
                '='
            });
        }
    }
    out
}

/// Every `data-count` of the page, by key.
fn counts(html: &str) -> BTreeMap<String, usize> {
    html.match_indices("data-count=\"")
        .map(|(at, m)| {
            let rest = &html[at + m.len()..];
            let key = &rest[..rest.find('"').unwrap()];
            let value = &rest[rest.find('>').unwrap() + 1..rest.find('<').unwrap()];
            (key.to_owned(), value.parse().unwrap())
        })
        .collect()
}

/// How many items a list of the page holds.
fn items(html: &str, list: &str) -> usize {
    let start = html
        .find(&format!("<ol class=\"items\" id=\"{list}\""))
        .unwrap_or_else(|| panic!("no list {list}"));
    // Bodies hold lists of their own: the page's list ends where its "no match" line stands.
    let end = start + html[start..].find("<p class=\"none\" hidden>").unwrap();
    html[start..end].matches("<li class=\"item").count()
}

/// The item (a card of a list) whose title is `title`.
fn card<'a>(html: &'a str, title: &str) -> &'a str {
    let at = html
        .find(&format!("<bdi>{title}</bdi></h4>"))
        .unwrap_or_else(|| panic!("no card {title}"));
    let start = html[..at].rfind("<li class=\"item").unwrap();
    let rest = &html[start + 1..];
    let end = [
        rest.find("<li class=\"item"),
        rest.find("<p class=\"none\" hidden>"),
    ]
    .into_iter()
    .flatten()
    .min()
    .unwrap();
    &html[start..=start + end]
}

/// `--json` output of another command, untyped.
fn json_of(project: TestProject, args: &[&str]) -> (TestProject, Json) {
    let ran = project.args(args).run();
    let value = serde_json::from_str(&ran.stdout).expect("JSON");
    (ran.then(), value)
}

/// Decisions that may be in force, as `status --json` counts them.
fn status_in_force(status: &Json) -> usize {
    status["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["active"].as_u64())
        .map(|n| usize::try_from(n).unwrap())
        .sum()
}

// ---- the example project --------------------------------------------------------------------

#[test]
fn the_example_page_shows_what_status_and_outcomes_count_and_writes_nothing_else() {
    let project = TestProject::new().fixture("example");
    let (project, report, html) = view(project, &[]);
    assert_eq!(report.path, project.path(PAGE).to_string_lossy());
    assert!(report.warnings.is_empty());
    let (project, status) = json_of(project, &["status", "--json"]);
    let shown = counts(&html);
    assert_eq!(shown["decisions-in-force"], status_in_force(&status));
    assert_eq!(
        report.counts["decisions"]["inForce"],
        status_in_force(&status)
    );
    assert_eq!(shown["decisions-in-force"], 12);
    assert_eq!(shown["decisions-ended"], 1);
    assert_eq!(items(&html, "decisions-in-force"), 12);
    assert_eq!(shown["lessons"], 13);
    assert_eq!(items(&html, "lessons-list"), 13);
    assert_eq!(shown["patterns"], 9);
    assert_eq!(shown["events"], 42);
    assert_eq!(items(&html, "timeline-list"), 42);
    assert_eq!(shown["receipts"], 0);
    assert_eq!(shown["candidates"], 0);
    // The counts of the header repeat those of the sections.
    assert_eq!(shown["summary-in-force"], shown["decisions-in-force"]);
    assert_eq!(shown["summary-events"], shown["events"]);
    // The cache folder keeps itself out of git; a second run replaces the page.
    assert_eq!(
        project.read_text(".bmad/cache/.gitignore"),
        "# Derived files of this clone (bmad-mem): never committed.\n*\n"
    );
    let project = project.write(".bmad/cache/.gitignore", "kept\n");
    let (project, _, again) = view(project, &[]);
    assert_eq!(
        again, html,
        "the same memory at the same time makes the same page"
    );
    assert_eq!(project.read_text(".bmad/cache/.gitignore"), "kept\n");
    assert_eq!(project.names(CACHE), [".gitignore", "view.html"]);
}

#[test]
fn human_output_names_the_page() {
    let project = TestProject::new().fixture("example");
    let page = project.path(PAGE);
    let ran = project.args(["view"]).code(0).stderr("").run();
    let first = ran.stdout.lines().next().unwrap().to_owned();
    assert_eq!(first, format!("mem view: {}", page.display()));
    assert!(
        ran.stdout.contains("  12 in force, 0 proposed, 1 ended; 13 lesson(s), 9 pattern(s); 42 journal event(s); 0 receipt(s); 0 candidate(s); "),
        "{}",
        ran.stdout
    );
}

// ---- what the page says about decisions, receipts and candidates ---------------------------

#[test]
fn a_decision_the_ledger_disagrees_with_is_marked_as_lint_marks_it() {
    let project = ledgered();
    let edited = NOTES.replace(
        "one database for everything.",
        "one database for most things.",
    );
    let project = project.write(DECISIONS, &edited);
    let (project, lint) = json_of(project, &["lint", "--json"]);
    let finding = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "decision-edited")
        .expect("lint finds the edit")
        .clone();
    let (_, _, html) = view(project, &[]);
    let card = card(&html, PG);
    assert!(card.contains(" flagged\""), "{card}");
    assert!(
        card.contains(&format!(
            "<li class=\"sev-error\"><strong>error · decision-edited</strong> {}",
            finding["message"].as_str().unwrap()
        )),
        "{card}"
    );
    // Who acted comes from the ledger.
    assert!(card.contains("adopt by <bdi>ada</bdi>"), "{card}");
    // One record is said in words; two or more are drawn.
    assert!(!card.contains("<svg class=\"chain\""), "{card}");
    // The ledger's records are on the timeline.
    assert!(html.contains(
        "<li class=\"item moment k-decision\" data-kind=\"decision\" data-agent=\"ada\">"
    ));
}

#[test]
fn a_superseded_decision_shows_its_ledger_chain_and_its_successor() {
    let project = ledgered()
        .args([
            "decision",
            "supersede",
            PG,
            "--successor",
            REDIS,
            "--reason",
            "sessions <b>moved</b>",
            "--actor",
            "bob",
        ])
        .code(0)
        .run()
        .then();
    let (_, report, html) = view(project, &[]);
    assert_eq!(report.counts["decisions"]["ended"], 2);
    let card = card(&html, PG);
    assert!(
        card.contains(
            "<span class=\"badge s-superseded\">superseded by 2026-10-01 — Sessions in Redis</span>"
        ),
        "{card}"
    );
    assert!(card.contains("supersede by <bdi>bob</bdi>"), "{card}");
    assert!(card.contains("<svg class=\"chain\""), "{card}");
    assert!(
        card.contains(
            "2 ledger record(s); last reason: <bdi>sessions &lt;b&gt;moved&lt;/b&gt;</bdi>"
        ),
        "{card}"
    );
    assert!(card.contains("Superseded by <a href=\"#e-"), "{card}");
    // The succession graph links both cards.
    let graph = &html[html.find("<svg class=\"graph\"").unwrap()..];
    let graph = &graph[..graph.find("</svg>").unwrap()];
    assert_eq!(graph.matches("<a href=\"#e-").count(), 2, "{graph}");
    assert!(graph.contains("class=\"node s-superseded\""), "{graph}");
    assert!(graph.contains("class=\"node s-active\""), "{graph}");
}

#[test]
fn receipts_carry_the_status_outcomes_gives_them() {
    let (project, _run) = observe::project();
    let (project, _) = observe(project, &observe::valid_input());
    let (project, _) = observe(
        project,
        &observe::input(RUN_ID, DEPENDENCY, observe::SCHEMA, &["db"]),
    );
    // One lesson edited: its receipt goes stale.
    let edited = observe::LESSONS_TEXT.replace("in constant time.", "in constant time, always.");
    let project = project.write(LESSONS, &edited);
    let (project, outcomes) = json_of(project, &["outcomes", "--json"]);
    let (_, report, html) = view(project, &[]);
    let shown = counts(&html);
    let mut by_status: BTreeMap<String, usize> = BTreeMap::new();
    for r in outcomes["results"].as_array().unwrap() {
        let status = r["reason"]
            .as_str()
            .map_or("accepted-current", |s| s.split(": ").next().unwrap());
        *by_status.entry(status.to_owned()).or_default() += 1;
    }
    assert_eq!(by_status["accepted-current"], 1);
    assert_eq!(by_status["stale-memory-section"], 1);
    for (status, n) in &by_status {
        assert_eq!(shown[&format!("receipts-{status}")], *n, "{status}");
        assert_eq!(report.counts["receipts"][status], *n);
    }
    assert_eq!(items(&html, "receipts-list"), 2);
    // Each receipt links to the section it binds.
    assert!(html.contains(&format!(
        ".agents/memory/lessons.md § <bdi>{PASSWORDS}</bdi></a>"
    )));
}

#[test]
fn a_pending_candidate_comes_with_the_exact_admit_command() {
    let project = TestProject::new()
        .fixture("example")
        .args([
            "propose",
            "--type",
            "lesson",
            "--title",
            "Flush the bucket",
            "--body",
            "Flush the keys <script>alert(1)</script>.",
            "--source",
            "forge",
        ])
        .code(0)
        .run()
        .then();
    let (project, list) = json_of(project, &["--json", "admit", "--list"]);
    let listed = &list["candidates"][0];
    let command = format!(
        "bmad-mem admit {} --expect {}",
        listed["id"].as_str().unwrap(),
        listed["sha256"].as_str().unwrap()
    );
    let (_, report, html) = view(project, &[]);
    assert_eq!(counts(&html)["candidates"], 1);
    assert_eq!(report.counts["candidates"], 1);
    assert!(
        html.contains(&format!(
            "<code>{command}</code> <button type=\"button\" class=\"copy\" data-copy=\"{command}\">Copy</button>"
        )),
        "{html}"
    );
    assert!(html.contains("Flush the keys &lt;script&gt;alert(1)&lt;/script&gt;."));
}

#[test]
fn pattern_scores_chart_the_reinforcement_records_and_tolerate_a_torn_line() {
    let pattern = "Rate limit on auth routes";
    let record = |ts: &str, elo: f64, alpha: f64| {
        format!(
            "{{\"ts\":\"{ts}\",\"id\":\"x\",\"pattern\":\"{pattern}\",\"reward\":1,\"signals\":{{}},\"before\":null,\"after\":{{\"elo\":{elo},\"alpha\":{alpha},\"beta\":1,\"updates\":1,\"lastTs\":\"{ts}\"}}}}\n"
        )
    };
    let records = format!(
        "{}{}{}",
        record("2026-10-01T00:00:00.000Z", 1216.0, 2.0),
        record("2026-10-02T00:00:00.000Z", 1230.0, 2.96),
        "{\"ts\":\"2026-10-03T00:00:00.000Z\",\"pattern\":\"Rate"
    );
    let project = TestProject::new()
        .fixture("example")
        .args([
            "reinforce",
            "--pattern",
            pattern,
            "--accept",
            "true",
            "--ci",
            "pass",
        ])
        .code(0)
        .run()
        .then()
        .write(".bmad/records/reinforcements.ndjson", &records);
    let (_, _, html) = view(project, &[]);
    let card = card(&html, pattern);
    assert!(
        card.contains("Elo 1216.0, Beta mean 0.667 (α 2.00, β 1.00) over 1 update(s)"),
        "{card}"
    );
    assert!(card.contains("<path class=\"mean\" d=\"M"), "{card}");
    assert!(card.contains("from 2 reinforcement record(s)"), "{card}");
    assert!(html.contains("1 line(s) of the reinforcement records are not records"));
    // Another pattern, never reinforced, says so; without records, a score is one point.
    assert!(html.contains("Not reinforced yet."));
}

// ---- hostile text --------------------------------------------------------------------------

const HOSTILE: &str = "# Lessons\n\n### <script>alert(1)</script> in a title\n**Date:** 2026-10-01\n\
A body with <img src=x onerror=alert(1)> and <b onmouseover=alert(2)>bold</b>,\n\
a [javascript link](javascript:alert(3)), a [data link](data:text/html,<script>alert(4)</script>),\n\
an ![image](https://tracker.example/pixel.png), a [fine link](https://example.org/?a=1&b=2)\n\
and a closing </style><style>body{display:none}</style> and </script><script>alert(5)</script>.\n\n\
<iframe src=\"https://evil.example\"></iframe>\n\n\
### Title with \u{202e}gnp.exe and \u{1}\u{1b}[31mcontrols\u{7}\n**Date:** 2026-10-02\nx\n";

#[test]
fn stored_markup_scripts_and_links_render_as_text() {
    let project = TestProject::new()
        .write(LESSONS, HOSTILE)
        .write(".bmad/memory/journal.ndjson", "{\"ts\":\"2026-10-01T00:00:00.000Z\",\"agent\":\"<svg onload=alert(6)>\",\"task\":\"\\\"><script>alert(7)</script>\"}\n");
    let (_, _, html) = view(project, &[]);
    // `check_page` already refused any element, handler or link of the text's own; the text is
    // there, as text.
    for shown in [
        "&lt;script&gt;alert(1)&lt;/script&gt; in a title",
        "&lt;img src=x onerror=alert(1)&gt;",
        "&lt;b onmouseover=alert(2)&gt;",
        "<span class=\"unsafe-link\" title=\"not a link: javascript:alert(3)\">javascript link</span>",
        "&lt;/style&gt;&lt;style&gt;body{display:none}&lt;/style&gt;",
        "&lt;/script&gt;&lt;script&gt;alert(5)&lt;/script&gt;",
        "&lt;iframe src=&quot;https://evil.example&quot;&gt;&lt;/iframe&gt;",
        "<span class=\"image\">[image: image]</span>",
        "<a href=\"https://example.org/?a=1&amp;b=2\" rel=\"noopener noreferrer nofollow\">fine link</a>",
        "data-agent=\"&lt;svg onload=alert(6)&gt;\"",
        "&quot;&gt;&lt;script&gt;alert(7)&lt;/script&gt;",
        // Controls as `\xNN`, a right-to-left override isolated in its own <bdi>.
        "<bdi>Title with \u{202e}gnp.exe and \\x01\\x1b[31mcontrols\\x07</bdi>",
    ] {
        assert!(html.contains(shown), "{shown}");
    }
    assert!(
        !html.contains("tracker.example"),
        "an image is never loaded"
    );
    assert!(!html.contains('\u{1b}'));
}

#[test]
fn handoffs_are_on_the_timeline_but_not_through_a_link_out_of_the_project() {
    let handoff = "---\ntitle: Session Handoff\ndate: \"2026-10-17\"\ntopic: \"Auth <i>rework</i>\"\nagent: \"forge\"\nproject: \"p\"\nwritten_at: \"2026-10-17T16:00:00.000Z\"\n---\n\n# Session Handoff\n";
    let project = TestProject::new()
        .fixture("example")
        .write(".agents/memory/sessions/2026-10-17-auth-rework.md", handoff);
    let (project, report, html) = view(project, &[]);
    assert_eq!(report.counts["handoffs"], 1);
    assert!(html.contains("<li class=\"item moment k-handoff\" data-kind=\"handoff\" data-agent=\"forge\"><time datetime=\"2026-10-17T16:00:00.000Z\">2026-10-17 16:00</time> <span class=\"kind\">handoff</span> <span class=\"agent\"><bdi>forge</bdi></span> <span class=\"title\"><bdi>Auth &lt;i&gt;rework&lt;/i&gt;</bdi></span>"));
    // The same folder reached through a link that leaves the project: skipped, as status skips it.
    let outside = project.base().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(
        outside.join("2026-10-18-secret.md"),
        handoff.replace("Auth", "Secret"),
    )
    .unwrap();
    let project = project
        .remove(".agents/memory/sessions")
        .symlink("../../../outside", ".agents/memory/sessions");
    let (_, report, html) = view(project, &[]);
    assert_eq!(report.counts["handoffs"], 0);
    assert!(!html.contains("Secret"));
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.starts_with("warning: .agents/memory/sessions skipped: resolves to ")),
        "{:?}",
        report.warnings
    );
}

// ---- bad input -------------------------------------------------------------------------------

#[test]
fn a_project_without_memory_gets_a_page_that_says_what_init_would_create() {
    let project = TestProject::new();
    let (project, report, html) = view(project, &[]);
    assert!(html.contains("<h2 id=\"empty-h\">No memory here yet</h2>"));
    for file in ["decisions.md", "lessons.md", "patterns.md", "context.md"] {
        assert!(html.contains(&format!("<li><code>.agents/memory/{file}</code></li>")));
    }
    assert_eq!(report.counts["decisions"]["inForce"], 0);
    // Only the cache folder was made.
    assert_eq!(project.names(""), [".bmad"]);
    assert_eq!(project.names(".bmad"), ["cache"]);
    // A memory folder with nothing in it yet: no notice, every section says it is empty.
    let (_, _, html) = view(project.mkdir(".agents/memory"), &[]);
    assert!(!html.contains("No memory here yet"));
    for empty in [
        "<p class=\"empty\">No decision in force.</p>",
        "<p class=\"empty\">Nothing has happened yet",
        "<p class=\"empty\">No lessons yet.</p>",
        "<p class=\"empty\">No receipt yet",
    ] {
        assert!(html.contains(empty), "{empty}");
    }
}

#[test]
fn torn_and_damaged_registries_are_shown_as_doctor_shows_them() {
    let project = TestProject::new()
        .fixture("example")
        .append(
            ".bmad/memory/journal.ndjson",
            "{\"ts\":\"2026-10-18T00:00:00.000Z\",\"agent\":\"torn",
        )
        .write(".bmad/memory/outcomes.ndjson", "{\"id\":")
        .write(".bmad/memory/decisions.ndjson", b"not json\n\xff\xfe\n")
        .write(".bmad/memory/pattern-scores.json", "[1,2]");
    let (project, doctor) = json_of(project, &["--json", "doctor"]);
    let (_, report, html) = view(project, &[]);
    let problems = doctor["problems"].as_array().unwrap();
    assert!(!problems.is_empty());
    assert_eq!(report.counts["doctorProblems"], problems.len());
    for p in problems {
        let line = format!(
            "<span class=\"file\">{}</span> [{}] ",
            p["file"].as_str().unwrap(),
            p["kind"].as_str().unwrap()
        );
        assert!(html.contains(&line), "{line}");
    }
    // The torn journal line is left out; the others still show.
    assert_eq!(counts(&html)["events"], 42);
    assert!(html.contains(".bmad/memory/outcomes.ndjson cannot be read: "));
    assert!(html.contains("The ledger cannot be read: "));
    assert!(html.contains(".bmad/memory/pattern-scores.json is left out: not a JSON object"));
}

#[test]
fn a_two_mib_note_is_cut_and_the_page_stays_small() {
    let line = "A long line of a very long note, repeated to fill two mebibytes of text.\n";
    let body = line.repeat(2 * 1024 * 1024 / line.len());
    let project = TestProject::new().write(LESSONS, format!("### 2026-10-01 — Huge\n{body}"));
    let (project, report, html) = view(project, &[]);
    assert!(report.bytes < 100_000, "{}", report.bytes);
    assert!(html.contains(" more bytes in .agents/memory/lessons.md:1</p>"));
    // A heading of a mebibyte, a journal event of a mebibyte: each shown cut to 1,000 characters.
    let huge = "x".repeat(1024 * 1024);
    let project = project.write(LESSONS, format!("### {huge}\nbody\n")).write(
        ".bmad/memory/journal.ndjson",
        format!(
            "{{\"ts\":\"2026-10-01T00:00:00.000Z\",\"agent\":\"{huge}\",\"task\":\"{huge}\"}}\n"
        ),
    );
    let (_, report, html) = view(project, &[]);
    assert!(report.bytes < 100_000, "{}", report.bytes);
    assert!(html.contains(&format!("<bdi>{}…</bdi></h4>", "x".repeat(999))));
}

#[test]
fn a_cycle_of_decisions_is_drawn_and_marked() {
    let notes = "# Decisions\n\n### A\n**Status:** superseded by B\n\n### B\n**Status:** superseded by C\n\n### C\n**Status:** superseded by A\n\n### D\n**Status:** superseded by A\n";
    let project = TestProject::new().write(DECISIONS, notes);
    let (_, report, html) = view(project, &[]);
    assert_eq!(report.counts["decisions"]["ended"], 4);
    assert_eq!(html.matches("<svg class=\"graph\"").count(), 1);
    assert!(html.contains("class=\"edge cycle\""));
    assert!(html.contains("class=\"node s-superseded cycle\""));
    assert!(html.contains("<strong>error · status-link</strong> its successors lead back to it"));
}

#[test]
fn long_lists_are_capped_and_say_so() {
    let mut journal = String::new();
    for i in 0..1500 {
        let _ = writeln!(
            journal,
            "{{\"ts\":\"2026-09-{:02}T10:00:00.000Z\",\"agent\":\"a{}\",\"task\":\"t{i}\"}}",
            i % 28 + 1,
            i % 3
        );
    }
    let project = TestProject::new().write(".bmad/memory/journal.ndjson", &journal);
    let (_, report, html) = view(project, &[]);
    assert_eq!(report.counts["events"], 1500);
    assert_eq!(items(&html, "timeline-list"), 1000);
    assert!(
        html.contains("This page holds the newest 1000 of 1500; the others are in the journal")
    );
}

// ---- --out, --open -----------------------------------------------------------------------------

#[test]
fn out_writes_where_it_is_told_and_refuses_what_is_not_a_file() {
    let project = TestProject::new().fixture("example").mkdir("site");
    let (project, report, _) = view(project, &["--out", "site/memory.html"]);
    assert_eq!(
        report.path,
        project.path("site/memory.html").to_string_lossy()
    );
    assert!(!project.path(CACHE).exists());
    let project = project
        .args(["view", "--out", ""])
        .refused("view", "--out must not be empty");
    let folder = project.path("site");
    let project = project.args(["view", "--out", "site"]).refused(
        "view",
        &format!(
            "--out names a folder, not a regular file: {}; name a file to write or replace",
            folder.display()
        ),
    );
    let link = project.path("site/link.html");
    let _ = project
        .symlink("memory.html", "site/link.html")
        .args(["view", "--out", "site/link.html"])
        .refused(
            "view",
            &format!(
                "--out names a symbolic link, not a regular file: {}; name a file to write or replace",
                link.display()
            ),
        );
}

#[test]
fn a_linked_cache_folder_is_refused_and_left_alone() {
    let project = TestProject::new()
        .fixture("example")
        .mkdir("elsewhere")
        .symlink("../elsewhere", ".bmad/cache");
    let _ = project.args(["view"]).refused(
        "view",
        "Memory paths cannot follow symbolic links or junctions.",
    );
}

#[test]
fn open_hands_the_page_to_the_platform_opener() {
    let project = TestProject::new().fixture("example");
    let bin = project.base().join("bin");
    fs::create_dir(&bin).unwrap();
    let called = project.base().join("opened");
    let opener = bin.join("xdg-open");
    fs::write(
        &opener,
        // Written aside, then renamed: the test never reads it half written.
        format!(
            "#!/bin/sh\nprintf '%s' \"$1\" > '{0}.tmp' && /bin/mv '{0}.tmp' '{0}'\n",
            called.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&opener, fs::Permissions::from_mode(0o755)).unwrap();
    let page = project.path(PAGE);
    let ran = project
        .env("PATH", &bin)
        .args(["view", "--open"])
        .code(0)
        .stderr("")
        .run();
    assert!(ran.stdout.starts_with("mem view: "));
    // The opener is not waited for: it may finish after bmad-mem (up to 20 s on a busy machine).
    for _ in 0..2000 {
        if called.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(fs::read_to_string(&called).unwrap(), page.to_string_lossy());
    // Without an opener: a warning, the page written all the same.
    let empty = ran.project.base().join("empty");
    fs::create_dir(&empty).unwrap();
    let ran = ran
        .then()
        .env("PATH", &empty)
        .args(["view", "--open"])
        .code(0)
        .run();
    assert!(
        ran.stderr.starts_with(
            "warning: the page is written, but the platform's opener could not be started: "
        ),
        "{}",
        ran.stderr
    );
}

// ---- the ADR corpus --------------------------------------------------------------------------

#[test]
fn the_adr_corpus_page_counts_what_status_counts() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/data/adr/corpus");
    let project = TestProject::new();
    let out = project.base().join("adr.html");
    let ran = project
        .args([
            "-d".as_ref(),
            corpus.as_os_str(),
            "view".as_ref(),
            "--json".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ])
        .code(0)
        .run();
    let report: View = ran.json();
    let html = fs::read_to_string(&report.path).unwrap();
    check_page(&html);
    let (_, status) = json_of(
        ran.then(),
        &["-d", corpus.to_str().unwrap(), "status", "--json"],
    );
    let shown = counts(&html);
    assert_eq!(shown["decisions-in-force"], status_in_force(&status));
    assert_eq!(
        shown["decisions-in-force"] + shown["decisions-proposed"] + shown["decisions-ended"],
        485
    );
    assert_eq!(shown["lessons"] + shown["patterns"], 34);
    assert_eq!(
        items(&html, "decisions-in-force"),
        shown["decisions-in-force"]
    );
    // Nothing was written in the corpus.
    assert!(!corpus.join(".bmad").exists());
}

#[test]
fn the_page_is_made_at_the_time_given() {
    let project = TestProject::new().fixture("example");
    let (_, _, html) = view(project, &[]);
    assert!(html.contains(&format!(" · made {NOW}</p>")));
}
