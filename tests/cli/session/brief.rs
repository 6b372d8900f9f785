//! `brief` spends its budget on what an agent needs, on a small project and on the 519 real
//! decision records of `benches/data/adr`: the parts in their order (every handoff of the
//! latest day newest first, decisions in force newest first — dated by heading, `Date` line or
//! ledger — lessons, validated patterns, journal), no part past half of the budget while a later
//! one waits, what is left out listed by title then counted, untouched templates not printed,
//! and an agent's answer (hook, MCP) under 10,000 characters.

use std::fmt::Write as _;
use std::fs;

use crate::session::pack::{headings_under, run_brief};
use crate::support::TestProject;
use crate::support::home::project;
use crate::support::schema::Brief;

const CONTEXT_MD: &str = ".agents/memory/context.md";
const DECISIONS_MD: &str = ".agents/memory/decisions.md";
const LESSONS_MD: &str = ".agents/memory/lessons.md";
const PATTERNS_MD: &str = ".agents/memory/patterns.md";
const SESSIONS: &str = ".agents/memory/sessions";

/// An agent's answer is shorter than this.
const ANSWER_LIMIT: usize = 10_000;

fn len(text: &str) -> usize {
    text.encode_utf16().count()
}

/// `p` after `init`, which writes the untouched templates: `context.md`, and `identity.yaml`
/// in the global brain of the temporary home, linked.
fn initialised(p: TestProject) -> TestProject {
    p.args(["init"]).code(0).run().then()
}

/// The parts of the brief, in order, each once.
fn parts(brief: &Brief) -> Vec<&str> {
    let mut parts: Vec<&str> = brief.included.iter().map(|i| i.part.as_str()).collect();
    parts.dedup();
    parts
}

/// The lines of the brief's listing of what it left out (after its heading).
fn listing(text: &str) -> Vec<&str> {
    text.split_once("\n## Left out to fit ")
        .map(|(_, rest)| rest.lines().skip(2).collect())
        .unwrap_or_default()
}

/// Checks the listing against `--json`'s `omitted`: the titles named, in order, then the count
/// of the rest; returns how many titles it names.
#[track_caller]
fn check_listing(brief: &Brief) -> usize {
    let lines = listing(&brief.text);
    let (titles, last) = match lines.last() {
        Some(last) if last.starts_with("- … and ") || !last.contains(": ") => {
            (&lines[..lines.len() - 1], Some(*last))
        }
        _ => (&lines[..], None),
    };
    let kind = |part: &str| {
        match part {
            "decisions" => "decision",
            "lessons" => "lesson",
            "patterns" => "pattern",
            "journal" => "journal event",
            "commits" => "commit",
            other => other,
        }
        .to_owned()
    };
    // The titles are the omitted entries of each part in order, a prefix of each part's.
    let mut expected: Vec<String> = Vec::new();
    for title in titles {
        let (k, label) = title[2..].split_once(": ").unwrap();
        let next = brief
            .omitted
            .iter()
            .filter(|o| kind(&o.part) == k)
            .map(|o| o.entry.as_str())
            .find(|e| !expected.contains(&format!("{k}: {e}")))
            .unwrap_or_else(|| panic!("{title} names no omitted entry"));
        assert!(
            next.starts_with(label.trim_end_matches('…')),
            "{title}: {next}"
        );
        expected.push(format!("{k}: {next}"));
    }
    let counted = match last {
        None => 0,
        Some(last) => match last.strip_prefix("- … and ") {
            Some(rest) => rest.split(' ').next().unwrap().parse().unwrap(),
            None => brief.omitted.len(),
        },
    };
    assert_eq!(
        titles.len() + counted,
        brief.omitted.len(),
        "{}",
        brief.text
    );
    titles.len()
}

// ---------------------------------------------------------------------------------------------
// a small project
// ---------------------------------------------------------------------------------------------

/// A handoff as `handoff` writes it, with its "What changed" and "Next steps" given and the
/// other parts left empty.
fn handoff_text(topic: &str, at: &str, changed: &str, next: &str) -> String {
    format!(
        "---\ntitle: Session Handoff\ndate: \"2026-10-18\"\ntopic: \"{topic}\"\nproject: \"project\"\nwritten_at: \"{at}\"\n---\n\n\
         # Session Handoff — 2026-10-18 — {topic}\n\n\
         ## What changed\n\n{changed}\n\n\
         ## Decisions made\n\n<!-- Non-obvious decisions, with their rationale. -->\n\n\
         ## Open questions\n\n<!-- What needs a human decision or more research. -->\n\n\
         ## Next steps\n\n{next}\n\n\
         ## Files modified\n\n<!-- Files changed, each with a short reason. -->\n"
    )
}

const DECISIONS: &str = "\n\
### 2026-08-15 — JWT sessions\n- **Decision**: stateless JWT for every session\n- **Status**: superseded by 2026-10-02 — Sessions in Redis\n\n\
### 2026-09-01 — Postgres for everything\n- **Decision**: one Postgres cluster, no second store\n- **Rationale**: one backup, one failover drill\n- **Status**: active\n\n\
### 2026-10-02 — Sessions in Redis\n- **Decision**: server-side sessions in Redis, 30-day expiry\n- **Rationale**: revocation on logout\n- **Status**: active\n\n\
### Monorepo\n- **Decision**: one repository for the API and the web app\n- **Status**: active\n\n\
### Shared CDN\n- **Decision**: one CDN for every site\n- **Status**: TBD\n";

const LESSONS: &str = "\n\
### 2026-09-20 — Flaky CI came from a shared database\n- **Lesson**: one schema per test worker\n\n\
### 2026-10-11 — Token clock skew\n- **Lesson**: allow 30 s of skew when checking expiry\n\n\
### 2026-10-16 — Canary metrics must include login\n- **Lesson**: watch the login success rate during a canary\n";

const PATTERNS: &str = "\n\
### Request id everywhere\n- **Shape**: every log line carries the request id\n- **Status**: validated\n\n\
### Retry budget\n- **Shape**: retries share one budget per request\n- **Status**: candidate\n\n\
### Feature flag owner\n- **Shape**: every flag names an owner and an expiry\n- **Status**: candidate\n\n\
### Cache aside\n- **Shape**: read through, invalidate on write\n- **Status**: deprecated\n";

/// A small project as a team leaves it after a few sessions: `init`'s templates, one section
/// of `context.md` filled, two handoffs today and one yesterday, decisions (one dated by the
/// ledger only, one superseded, one whose status cannot be placed), lessons, patterns (one
/// validated, one promoted by an approved promotion), journal events.
fn small() -> TestProject {
    let p = initialised(project());
    let context = p.read_text(CONTEXT_MD).replace(
        "## Current focus\n\n<!-- What matters right now. -->\n",
        "## Current focus\n\n<!-- What matters right now. -->\nShip the login page behind a flag.\n",
    );
    let (decisions, lessons, patterns) = (
        p.read_text(DECISIONS_MD) + DECISIONS,
        p.read_text(LESSONS_MD) + LESSONS,
        p.read_text(PATTERNS_MD) + PATTERNS,
    );
    p.write(CONTEXT_MD, context)
        .write(DECISIONS_MD, decisions)
        .write(LESSONS_MD, lessons)
        .write(PATTERNS_MD, patterns)
        .write(
            &format!("{SESSIONS}/2026-10-17-release.md"),
            handoff_text("release", "2026-10-17T18:00:00.000Z", "- tagged v1.4", "- watch errors"),
        )
        .write(
            &format!("{SESSIONS}/2026-10-18-auth.md"),
            handoff_text("auth", "2026-10-18T08:00:00.000Z", "- login form done", "- add rate limit"),
        )
        .write(
            &format!("{SESSIONS}/2026-10-18-deploy.md"),
            handoff_text("deploy", "2026-10-18T09:00:00.000Z", "- canary at 5 %", "- raise to 50 %"),
        )
        .write(
            ".bmad/memory/decisions.ndjson",
            "{\"ts\":\"2026-10-10T12:00:00.000Z\",\"id\":\"aaaaaaaaaaaa\",\"event\":\"adopt\",\"heading\":\"Monorepo\",\"file\":\".agents/memory/decisions.md\",\"status\":\"active\",\"sha256\":\"00\",\"by\":null,\"reason\":null}\n",
        )
        .write(
            ".bmad/memory/promotions.ndjson",
            "{\"id\":\"bbbbbbbbbbbb\",\"patternId\":\"Feature flag owner\",\"fromStatus\":\"candidate\",\"toStatus\":\"validated\",\"reason\":\"posterior mean 0.750 >= 0.7 over 3 update(s)\",\"evidence\":[],\"score\":{},\"ts\":\"2026-10-12T10:00:00.000Z\",\"status\":\"APPROVED\",\"governedBy\":\"shield\",\"approvedBy\":\"ada\",\"approvedAt\":\"2026-10-13T10:00:00.000Z\"}\n\
             {\"id\":\"cccccccccccc\",\"patternId\":\"Retry budget\",\"fromStatus\":\"candidate\",\"toStatus\":\"validated\",\"reason\":\"posterior mean 0.720 >= 0.7 over 3 update(s)\",\"evidence\":[],\"score\":{},\"ts\":\"2026-10-14T10:00:00.000Z\",\"status\":\"PROPOSED\",\"governedBy\":\"shield\",\"approvedBy\":null,\"approvedAt\":null}\n",
        )
        .write(
            ".bmad/memory/journal.ndjson",
            "{\"ts\":\"2026-10-17T09:00:00.000Z\",\"agent\":\"forge\",\"task\":\"Tag the release\",\"outcome\":\"success\",\"id\":\"e1\"}\n\
             {\"ts\":\"2026-10-18T09:00:00.000Z\",\"agent\":\"atlas\",\"task\":\"Start the canary\",\"outcome\":\"success\",\"id\":\"e2\"}\n",
        )
}

#[test]
fn the_small_project_brief_holds_each_part_in_order_without_untouched_templates() {
    let (brief, _) = run_brief(small(), &[]);
    assert_eq!(
        brief.text,
        "# Session brief — project\n\n\
         ## Context — .agents/memory/context.md\n\n\
         ## Current focus\n\nShip the login page behind a flag.\n\n\
         ## Latest handoff — .agents/memory/sessions/2026-10-18-deploy.md\n\n\
         # Session Handoff — 2026-10-18 — deploy\n\n## What changed\n\n- canary at 5 %\n\n## Next steps\n\n- raise to 50 %\n\n\
         ## Earlier handoff, same day — .agents/memory/sessions/2026-10-18-auth.md\n\n\
         # Session Handoff — 2026-10-18 — auth\n\n## What changed\n\n- login form done\n\n## Next steps\n\n- add rate limit\n\n\
         ## Decisions in force, newest first — .agents/memory/decisions.md\n\n\
         ### Monorepo\n- **Decision**: one repository for the API and the web app\n- **Status**: active\n\n\
         ### 2026-10-02 — Sessions in Redis\n- **Decision**: server-side sessions in Redis, 30-day expiry\n- **Rationale**: revocation on logout\n- **Status**: active\n\n\
         ### 2026-09-01 — Postgres for everything\n- **Decision**: one Postgres cluster, no second store\n- **Rationale**: one backup, one failover drill\n- **Status**: active\n\n\
         ### Shared CDN (status unreadable)\n- **Decision**: one CDN for every site\n- **Status**: TBD\n\n\
         ## Lessons, newest first — .agents/memory/lessons.md\n\n\
         ### 2026-10-16 — Canary metrics must include login\n- **Lesson**: watch the login success rate during a canary\n\n\
         ### 2026-10-11 — Token clock skew\n- **Lesson**: allow 30 s of skew when checking expiry\n\n\
         ### 2026-09-20 — Flaky CI came from a shared database\n- **Lesson**: one schema per test worker\n\n\
         ## Validated patterns, newest first — .agents/memory/patterns.md\n\n\
         ### Feature flag owner\n- **Shape**: every flag names an owner and an expiry\n- **Status**: candidate\n\n\
         ### Request id everywhere\n- **Shape**: every log line carries the request id\n- **Status**: validated\n\n\
         ## Latest journal events, newest first — .bmad/memory/journal.ndjson\n\n\
         - 2026-10-18T09:00:00.000Z atlas (success): Start the canary\n\n\
         - 2026-10-17T09:00:00.000Z forge (success): Tag the release\n"
    );
    assert!(brief.omitted.is_empty() && brief.warnings.is_empty());
    assert_eq!(
        parts(&brief),
        [
            "context",
            "handoff",
            "decisions",
            "lessons",
            "patterns",
            "journal"
        ]
    );
}

#[test]
fn under_1500_characters_every_part_gets_its_share_and_the_rest_is_listed() {
    let (brief, _) = run_brief(small(), &["--max-chars", "1500"]);
    assert!(brief.chars <= 1500, "{}", brief.text);
    assert!(brief.chars > 1400, "the budget is spent: {}", brief.text);
    // Each part in turn takes at most half of what is left: the newest handoffs, decisions
    // and lessons are in; the patterns' share is too small for one, and they are named in
    // the listing.
    assert_eq!(
        parts(&brief),
        ["context", "handoff", "decisions", "lessons", "journal"],
        "{}",
        brief.text
    );
    assert!(
        listing(&brief.text).iter().any(|l| l.contains("pattern")),
        "{}",
        brief.text
    );
    assert!(
        brief
            .text
            .contains("\n## Latest handoff — .agents/memory/sessions/2026-10-18-deploy.md\n")
    );
    assert_eq!(headings_under(&brief.text, "Decisions")[0], "Monorepo");
    assert_eq!(
        headings_under(&brief.text, "Lessons")[0],
        "2026-10-16 — Canary metrics must include login"
    );
    // No template in sight, and what is left out is listed by title, then counted.
    assert!(!brief.text.contains("(to fill in)") && !brief.text.contains("user_name"));
    assert!(
        brief
            .text
            .contains("\n## Left out to fit 1500 characters\n\n")
    );
    assert!(!brief.omitted.is_empty());
    assert!(check_listing(&brief) > 0, "{}", brief.text);
}

#[test]
fn an_untouched_project_briefs_as_its_title() {
    // Right after `init`: the identity and context templates, the empty note files.
    let (brief, _) = run_brief(initialised(project()), &[]);
    assert_eq!(brief.text, "# Session brief — project\n");
}

// ---------------------------------------------------------------------------------------------
// the 519 decision records
// ---------------------------------------------------------------------------------------------

/// A project holding the benchmark's records, after `init` (so its templates are there too).
fn corpus() -> TestProject {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/data/adr/corpus");
    let mut p = project();
    for rel in [DECISIONS_MD, LESSONS_MD, PATTERNS_MD] {
        p = p.write(rel, fs::read(dir.join(rel)).unwrap());
    }
    initialised(p)
}

/// The `Date: YYYY-MM-DD` of a record in the brief, if it states one.
fn dates_of(text: &str, part: &str) -> Vec<Option<String>> {
    let mut dates = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            inside = heading.starts_with(part);
        } else if line.starts_with("### ") && inside {
            dates.push(None);
        } else if let Some(date) = line
            .strip_prefix("Date: ")
            .or(line.strip_prefix("- Date: "))
            && inside
            && let Some(last) = dates.last_mut()
            && last.is_none()
        {
            *last = date.get(..10).map(str::to_owned);
        }
    }
    dates
}

#[test]
fn the_corpus_brief_holds_the_newest_decisions_lessons_and_patterns_and_lists_the_rest() {
    let (brief, _) = run_brief(corpus(), &[]);
    assert!(brief.chars <= 8000 && brief.chars > 7500, "{}", brief.chars);
    // No template: the identity and context files init wrote are not printed.
    assert_eq!(
        parts(&brief),
        ["decisions", "lessons", "patterns"],
        "{}",
        brief.text
    );
    // The newest decisions, in date order: the newest record that may be in force first.
    let dates = dates_of(&brief.text, "Decisions");
    assert!(dates.len() >= 2, "{}", brief.text);
    assert!(dates.iter().all(Option::is_some), "{dates:?}");
    assert!(dates.windows(2).all(|w| w[0] >= w[1]), "{dates:?}");
    assert!(dates[0].as_deref() >= Some("2026-01-01"), "{dates:?}");
    // Lessons and validated patterns have their share (the records' patterns read
    // `Status: accepted`).
    assert!(!headings_under(&brief.text, "Lessons").is_empty());
    assert!(!headings_under(&brief.text, "Validated patterns").is_empty());
    // No part over half of the budget while later ones wait.
    let decisions = brief.text.split("\n## Lessons").next().unwrap();
    let decisions = decisions.split("\n## Decisions").nth(1).unwrap();
    assert!(len(decisions) <= 4000, "{}", len(decisions));
    // The rest is listed by title — decisions, lessons and patterns — then counted.
    let listed = check_listing(&brief);
    assert!(listed >= 15, "{}", brief.text);
    let lines = listing(&brief.text);
    for kind in ["- decision: ", "- lesson: "] {
        assert!(
            lines.iter().any(|l| l.starts_with(kind)),
            "{kind}: {lines:?}"
        );
    }
    assert!(lines.last().unwrap().starts_with("- … and "), "{lines:?}");
    // The command's `--json` names every entry left out.
    assert!(brief.omitted.len() > 450);
    assert_eq!(brief.omitted_unlisted, None);
}

#[test]
fn the_corpus_brief_under_1500_characters_names_what_it_leaves_out() {
    let (brief, _) = run_brief(corpus(), &["--max-chars", "1500"]);
    assert!(brief.chars <= 1500, "{}", brief.text);
    assert!(parts(&brief).contains(&"decisions"), "{}", brief.text);
    let listed = check_listing(&brief);
    assert!(listed >= 5, "{}", brief.text);
    let lines = listing(&brief.text);
    for kind in ["- decision: ", "- lesson: ", "- pattern: "] {
        assert!(
            lines.iter().any(|l| l.starts_with(kind)),
            "{kind}: {lines:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// an agent's answer
// ---------------------------------------------------------------------------------------------

#[test]
fn hook_briefs_stay_under_10000_characters_wrapper_included() {
    let p = corpus();
    // As the hooks run it: Claude Code and Codex take the text, Gemini CLI a JSON wrapper.
    for args in [
        &["brief"][..],
        &["brief", "--hook", "claude-code", "--max-chars", "50000"][..],
        &["brief", "--hook", "gemini"][..],
        &["brief", "--hook", "gemini", "--max-chars", "50000"][..],
    ] {
        let mut command = p.command();
        command.args(args);
        let output = command.output().unwrap();
        assert!(output.status.success(), "{args:?}: {output:?}");
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(len(&stdout) < ANSWER_LIMIT, "{args:?}: {}", len(&stdout));
        assert!(len(&stdout) > 7000, "{args:?}: {}", len(&stdout));
        if args.contains(&"gemini") {
            let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            let text = json["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap();
            assert!(text.contains("\n## Left out to fit "));
        }
    }
    // A budget asked for on the command line, outside a hook, is the caller's.
    let mut command = p.command();
    command.args(["brief", "--max-chars", "50000"]);
    let stdout = String::from_utf8(command.output().unwrap().stdout).unwrap();
    assert!(len(&stdout) > 40_000);
}

#[test]
fn control_characters_escaped_on_output_count_against_the_answer() {
    // Records saved with CRLF line ends: each CR prints as `\x0d`, four characters.
    let body = "- x\r\n".repeat(20);
    let decisions: String = (0..90).fold(String::new(), |mut text, i| {
        let _ = write!(text, "### D{i}\r\n{body}\r\n");
        text
    });
    let p = project().write(DECISIONS_MD, decisions);
    let mut command = p.command();
    command.arg("brief");
    let stdout = String::from_utf8(command.output().unwrap().stdout).unwrap();
    assert!(stdout.contains("\\x0d"));
    assert!(len(&stdout) < ANSWER_LIMIT, "{}", len(&stdout));
    // With the budget given, the text is not lowered.
    let (brief, _) = run_brief(p, &["--max-chars", "8000"]);
    assert!(brief.chars > 7500);
}
