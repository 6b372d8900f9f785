//! The candidates of a recall and how each is scored (docs §5): the request, the journal events
//! and note sections a recall weighs, the lexical score and its 30-day decay for events, the
//! best-`--limit` keeper, the stable sort and the output entry. Shared by the rankings
//! (lexical, evidence, bm25, hybrid); it imports none of them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::actions::recall::counter::QueryCounter;
use crate::actions::recall::status::StatusFilter;
use crate::context::Context;
use crate::js::date::MS_PER_DAY;
use crate::js::json::{Object, Value};
use crate::js::path::{relative, resolve};
use crate::js::text::tokens;
use crate::js::{date, math};
use crate::store::journal;
use crate::store::layout::{NOTE_DIRS, NOTE_FILES};
use crate::store::sections::{Section, sections};

const HALF_LIFE_DAYS: f64 = 30.0;

/// How results are ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ranking {
    Lexical,
    Evidence,
    /// Opt-in BM25F ([`crate::actions::recall::bm25`]).
    Bm25,
    /// Opt-in bm25 fused with the embedding model ([`crate::actions::recall::hybrid`]).
    Hybrid,
}

impl Ranking {
    pub(super) fn name(self) -> &'static str {
        match self {
            Ranking::Lexical => "lexical",
            Ranking::Evidence => "evidence",
            Ranking::Bm25 => "bm25",
            Ranking::Hybrid => "hybrid",
        }
    }
}

/// The validated request.
#[derive(Debug, Clone)]
pub struct Request {
    pub query: String,
    pub portfolio: bool,
    pub ranking: Ranking,
    pub limit: usize,
    /// Whether archived journal events are candidates too.
    pub include_archive: bool,
    /// Which notes our rankings keep by their status (`--status`).
    pub status: StatusFilter,
}

/// The query's tokens, de-duplicated, first occurrence kept.
#[must_use]
pub fn query_tokens(query: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    tokens(query)
        .into_iter()
        .filter(|t| seen.insert(t.clone()))
        .collect()
}

/// docs §5's lexical score of the text made of `parts` (concatenated) against query tokens.
#[must_use]
pub fn score(query: &[String], parts: &[&str]) -> f64 {
    score_with(&QueryCounter::new(query), parts)
}

/// [`score`] with a counter built once for many texts. Each part is tokenized on its own, so
/// `parts` must be cut where a separator is (a section's heading, `\n`, body, `\n`).
#[must_use]
pub fn score_with(counter: &QueryCounter<'_>, parts: &[&str]) -> f64 {
    let query = counter.query();
    if query.is_empty() {
        return 0.0;
    }
    counter.with_counts(|frequency| {
        let mut total = 0usize;
        for part in parts {
            // A token has two characters or more.
            if part.len() >= 2 {
                total += counter.count(part, frequency);
            }
        }
        if total == 0 {
            return 0.0;
        }
        let mut matched = 0u32;
        let mut hits = 0.0;
        for &f in &*frequency {
            if f > 0 {
                matched += 1;
                hits += 1.0 + math::ln(f64::from(f));
            }
        }
        if matched == 0 {
            return 0.0;
        }
        #[expect(
            clippy::cast_precision_loss,
            reason = "token counts are far below 2^53"
        )]
        let (query_len, total) = (query.len() as f64, total as f64);
        let coverage = f64::from(matched) / query_len;
        hits * coverage / total.sqrt()
    })
}

/// `score` weighed by the event's age: half every 30 days; no decay when `ts` is unknown or in
/// the future.
#[must_use]
pub fn decay(score: f64, ts: Option<&Value>, now_ms: f64) -> f64 {
    let ts_ms = match ts {
        Some(Value::Number(n)) => Some(*n),
        Some(Value::String(s)) => date::parse_timestamp(s),
        _ => None,
    };
    match ts_ms {
        Some(ts) if score > 0.0 && now_ms > ts => {
            let age_days = (now_ms - ts) / MS_PER_DAY;
            score * math::pow(0.5, age_days / HALF_LIFE_DAYS)
        }
        _ => score,
    }
}

/// The searchable text of an event: the texts of its truthy `agent`, `cli`, `model`, `task`,
/// `outcome`, then the compact JSON of its signals (`{}` when falsy), joined by one space.
#[must_use]
pub fn event_text(event: &Object) -> String {
    let mut parts: Vec<String> = ["agent", "cli", "model", "task", "outcome"]
        .iter()
        .filter_map(|key| event.get(key).filter(|v| v.is_truthy()).map(Value::text))
        .collect();
    parts.push(match event.get("signals") {
        Some(signals) if signals.is_truthy() => signals.compact(),
        _ => "{}".to_owned(),
    });
    parts.join(" ")
}

/// A candidate that scored above zero.
#[derive(Debug)]
pub enum Candidate {
    /// `source` names the archive file the event was read from (`None`: the live journal).
    Event {
        event: Object,
        text: String,
        source: Option<String>,
    },
    Note(Note),
}

/// A section that scored above zero, copied out of its file's text (which is then free to be
/// dropped or reused).
#[derive(Debug, Clone)]
pub struct Note {
    pub source: &'static str,
    source_file: String,
    heading: String,
    text: String,
}

impl Note {
    pub(crate) fn new(file: &NoteFile, section: &Section<'_>) -> Self {
        Self {
            source: file.source,
            source_file: file.source_file.clone(),
            heading: section.heading.to_owned(),
            text: section.trimmed_text(),
        }
    }

    /// The note file's path, relative to the project.
    #[must_use]
    pub fn source_file(&self) -> &str {
        &self.source_file
    }

    /// The section's heading.
    #[must_use]
    pub fn heading(&self) -> &str {
        &self.heading
    }

    /// The section's full text, trimmed.
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// A scored candidate.
#[derive(Debug)]
pub struct Scored {
    pub score: f64,
    pub candidate: Candidate,
}

/// A note file to search, with its name, its path relative to the project, and the folder
/// a link to it must stay in (the project, or the portfolio folder).
#[derive(Debug, Clone)]
pub struct NoteFile {
    pub source: &'static str,
    pub path: PathBuf,
    pub source_file: String,
    pub within: PathBuf,
}

/// The note files in search order, each absolute path once.
#[must_use]
pub fn note_files(ctx: &Context, portfolio: Option<&str>) -> Vec<NoteFile> {
    let mut dirs: Vec<(PathBuf, PathBuf)> = NOTE_DIRS
        .iter()
        .map(|d| (ctx.root.join(d), ctx.root.clone()))
        .collect();
    if let Some(p) = portfolio {
        let folder = resolve(&ctx.cwd, Path::new(p));
        dirs.push((folder.join("memory"), folder));
    }
    let mut seen = HashSet::new();
    let mut files = Vec::new();
    for (dir, within) in dirs {
        for source in NOTE_FILES {
            let path = resolve(&ctx.root, &dir.join(source));
            if seen.insert(path.clone()) {
                files.push(NoteFile {
                    source,
                    source_file: relative(&ctx.root, &path),
                    path,
                    within: within.clone(),
                });
            }
        }
    }
    files
}

/// Scores the events of a journal text, keeping those above zero.
///
/// Most lines of a large journal cannot match, and parsing them is most of the journal's cost,
/// so a line is first looked at as raw text: when none of the query's tokens appears in it, the
/// event's text cannot hold one either, and the line is skipped unparsed. That holds when the
/// line has no `\` escape (which could spell any character) and no query token could come from
/// re-writing a value — a number (digits, `Infinity`), `null` (what a non-finite signal
/// becomes) or `[object Object]`; for such queries every line is parsed.
pub fn score_events(text: &str, query: &[String], now_ms: f64, out: &mut impl Keep) {
    score_events_from(None, text, query, now_ms, out);
}

/// [`score_events`] for the events of `source`, an archive file's name (`None`: the live
/// journal).
pub fn score_events_from(
    source: Option<&str>,
    text: &str,
    query: &[String],
    now_ms: f64,
    out: &mut impl Keep,
) {
    let can_skip = query.iter().all(|q| {
        !q.bytes().any(|b| b.is_ascii_digit())
            && !q.contains("infinity")
            && q != "null"
            && q != "object"
    });
    let counter = QueryCounter::new(query);
    for line in journal::lines(text) {
        if can_skip && !line.contains('\\') && !counter.mentions(line) {
            continue;
        }
        let Some(event) = journal::event(line) else {
            continue;
        };
        let text = event_text(&event);
        let s = decay(score_with(&counter, &[&text]), event.get("ts"), now_ms);
        out.offer(s, || Candidate::Event {
            event,
            text,
            source: source.map(str::to_owned),
        });
    }
}

/// Scores the sections of a note file's text, keeping those above zero.
pub fn score_sections(file: &NoteFile, text: &str, query: &[String], out: &mut impl Keep) {
    let counter = QueryCounter::new(query);
    score_some_sections(file, sections(text), &counter, out);
}

/// Scores `cut`, sections of `file`'s text, keeping those above zero.
pub(super) fn score_some_sections(
    file: &NoteFile,
    cut: Vec<Section<'_>>,
    counter: &QueryCounter<'_>,
    out: &mut impl Keep,
) {
    for section in cut {
        let s = score_with(counter, &section.parts());
        out.offer(s, || Candidate::Note(Note::new(file, &section)));
    }
}

/// Where scored candidates go: [`offer`](Keep::offer) is called for every candidate, in
/// candidate order, and builds it only when it is kept.
pub trait Keep {
    /// Offers the candidate `make` builds, scored `score`.
    fn offer(&mut self, score: f64, make: impl FnOnce() -> Candidate);
}

/// Every candidate above zero, in candidate order.
impl Keep for Vec<Scored> {
    fn offer(&mut self, score: f64, make: impl FnOnce() -> Candidate) {
        if score > 0.0 {
            self.push(Scored {
                score,
                candidate: make(),
            });
        }
    }
}

/// The best `limit` candidates above zero, in the order [`sort`] gives them.
///
/// The kept list is cut back to its best `limit` whenever it reaches twice `limit` (at least 64
/// candidates). A candidate offered later than another of the same score ranks below it, so
/// after a cut, one that does not beat the lowest candidate kept can never be among the best
/// and is not even built.
#[derive(Debug)]
pub struct Best {
    limit: usize,
    kept: Vec<Scored>,
    /// The score a candidate must exceed to be kept.
    floor: f64,
}

impl Best {
    /// Keeps the best `limit` candidates.
    #[must_use]
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            kept: Vec::new(),
            floor: 0.0,
        }
    }

    /// The kept candidates, best first.
    #[must_use]
    pub fn into_sorted(mut self) -> Vec<Scored> {
        self.prune();
        self.kept
    }

    fn prune(&mut self) {
        sort(&mut self.kept);
        self.kept.truncate(self.limit);
        if self.kept.len() == self.limit
            && let Some(last) = self.kept.last()
        {
            self.floor = last.score;
        }
    }
}

impl Keep for Best {
    fn offer(&mut self, score: f64, make: impl FnOnce() -> Candidate) {
        if score > self.floor {
            self.kept.push(Scored {
                score,
                candidate: make(),
            });
            if self.kept.len() >= self.limit.saturating_mul(2).max(64) {
                self.prune();
            }
        }
    }
}

/// Highest score first; ties keep candidate order (the sort is stable).
pub fn sort(scored: &mut [Scored]) {
    sort_by_score(scored, |s| s.score);
}

/// [`sort`] for anything that has a score: highest first, ties in the order given.
pub fn sort_by_score<T>(items: &mut [T], score: impl Fn(&T) -> f64) {
    items.sort_by(|a, b| score(b).total_cmp(&score(a)));
}

/// The output entry of a candidate, keys in docs §5's order.
#[must_use]
pub fn entry(score: f64, candidate: Candidate) -> Object {
    match candidate {
        Candidate::Event {
            event,
            text,
            source,
        } => {
            let reference = event_ref(&event);
            Object::new()
                .with("score", score)
                .with("kind", "event")
                .with("source", source.as_deref().unwrap_or("journal.ndjson"))
                .with("ref", reference)
                .with("text", text)
                .with("event", event)
        }
        Candidate::Note(note) => Object::new()
            .with("score", score)
            .with("kind", "note")
            .with("source", note.source)
            .with("sourceFile", note.source_file())
            .with("ref", note.heading)
            .with("text", note.text),
    }
}

/// How an event is referred to (recall's `ref`): its stored id when truthy, else the text of its
/// `ts`.
#[must_use]
pub fn event_ref(event: &Object) -> Value {
    match event.get("id") {
        Some(id) if id.is_truthy() => id.clone(),
        _ => Value::String(
            event
                .get("ts")
                .map_or_else(|| "undefined".to_owned(), Value::text),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::date::{self, MS_PER_DAY};
    use crate::js::math;

    fn q(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[track_caller]
    fn case(query: &str, text: &str, expected: f64) {
        let actual = score(&query_tokens(query), &[text]);
        assert_eq!(
            actual.to_bits(),
            expected.to_bits(),
            "{query:?} in {text:?}: {actual} != {expected}"
        );
    }

    #[test]
    fn sorting_puts_higher_scores_first_and_keeps_ties_in_candidate_order() {
        let event = |score: f64, text: &str| Scored {
            score,
            candidate: Candidate::Event {
                event: Object::new(),
                text: text.to_owned(),
                source: None,
            },
        };
        let mut scored = vec![
            event(1.0, "a"),
            event(2.0, "b"),
            event(1.0, "c"),
            event(0.5, "d"),
            event(2.0, "e"),
            event(1.0, "f"),
        ];
        sort(&mut scored);
        let order: Vec<&str> = scored
            .iter()
            .map(|s| match &s.candidate {
                Candidate::Event { text, .. } => text.as_str(),
                Candidate::Note(_) => unreachable!(),
            })
            .collect();
        assert_eq!(order, ["b", "e", "a", "c", "f", "d"]);
    }

    #[test]
    #[expect(
        clippy::approx_constant,
        reason = "2/sqrt(2) is one ulp below SQRT_2, and that is the point"
    )]
    fn score_follows_the_formula_to_the_bit() {
        // Expected values printed by node running the documented formula on the same strings.
        case("auth", "auth", 1.0);
        case("auth strategy", "Auth strategy", 1.414213562373095);
        case("auth strategy", "auth auth auth other", 0.5246530721670274);
        case("auth", "", 0.0);
        case("a", "a b c", 0.0);
        case("zzz", "auth", 0.0);
        case("École", "école des ÉCOLES", 0.5773502691896258);
        case(
            "rate_limit v2",
            "RATE_LIMIT rate-limit v2 v2",
            1.3465735902799727,
        );
        case("x1 x1 x1", "x1", 1.0);
        case("42", "42 is 42", 0.9775389804739404);
        case(
            "token bucket limiter",
            "Token bucket: the limiter refills tokens; token TOKEN token bucket limiter limiter x y",
            1.7834505210096925,
        );
    }

    #[test]
    fn query_tokens_are_deduplicated_in_order() {
        assert_eq!(query_tokens("B a b A c"), q(&[]));
        assert_eq!(
            query_tokens("Beta alpha beta ALPHA gamma"),
            q(&["beta", "alpha", "gamma"])
        );
    }

    #[test]
    fn decay_halves_every_thirty_days_and_only_for_the_past() {
        let now = 1_792_315_800_000.0;
        let month = 30.0 * MS_PER_DAY;
        let ts = |ms: f64| Value::String(date::to_iso_string(ms));
        assert_eq!(decay(1.0, Some(&ts(now - month)), now), 0.5);
        assert_eq!(
            decay(1.0, Some(&Value::Number(now - 2.0 * month)), now),
            0.25
        );
        assert_eq!(decay(1.0, Some(&ts(now + month)), now), 1.0);
        assert_eq!(decay(1.0, Some(&ts(now)), now), 1.0);
        assert_eq!(
            decay(1.0, Some(&Value::from("2026-10-18 09:30:00")), now),
            1.0
        );
        assert_eq!(decay(1.0, Some(&Value::Bool(true)), now), 1.0);
        assert_eq!(decay(1.0, None, now), 1.0);
        let day = decay(1.0, Some(&ts(now - MS_PER_DAY)), now);
        assert_eq!(day, math::pow(0.5, MS_PER_DAY / MS_PER_DAY / 30.0));
    }

    #[test]
    fn event_text_joins_truthy_fields_and_signals() {
        let event = crate::js::json::parse(
            r#"{"agent":"forge","cli":null,"model":"","task":"Add login","outcome":0,"signals":{"ci":"pass"}}"#,
        )
        .unwrap();
        assert_eq!(
            event_text(event.as_object().unwrap()),
            r#"forge Add login {"ci":"pass"}"#
        );
        let bare =
            crate::js::json::parse(r#"{"agent":["a",["b"]],"outcome":7,"signals":0}"#).unwrap();
        assert_eq!(event_text(bare.as_object().unwrap()), "a,b 7 {}");
    }

    #[test]
    fn the_journal_prefilter_never_drops_a_match() {
        // Each line's event text holds a token its raw text does not: a re-written number, an
        // object's text, a non-finite signal written back as null, an escaped letter.
        let journal = [
            r#"{"agent":1e2,"task":"x"}"#,
            r#"{"agent":{"a":1},"task":"y"}"#,
            r#"{"agent":"forge","signals":{"eval":1e400}}"#,
            r#"{"agent":"forge","task":"auth"}"#,
            r#"{"agent":"forge","task":"deploy"}"#,
        ]
        .join("\n");
        let found = |query: &str| {
            let mut out = Vec::new();
            score_events(&journal, &query_tokens(query), 0.0, &mut out);
            out.len()
        };
        assert_eq!(found("100"), 1);
        assert_eq!(found("object"), 1);
        assert_eq!(found("null"), 1);
        assert_eq!(found("auth"), 1);
        assert_eq!(found("deploy"), 1);
        assert_eq!(found("forge"), 3);
        assert_eq!(found("missing"), 0);
    }

    /// Candidates named by their place in candidate order.
    fn numbered(scores: &[u8]) -> Vec<(f64, String)> {
        scores
            .iter()
            .enumerate()
            .map(|(i, &s)| (f64::from(s % 8) / 2.0, i.to_string()))
            .collect()
    }

    fn names(scored: &[Scored]) -> Vec<String> {
        scored
            .iter()
            .map(|s| match &s.candidate {
                Candidate::Event { text, .. } => text.clone(),
                Candidate::Note(_) => unreachable!(),
            })
            .collect()
    }

    fn offer_all(out: &mut impl Keep, candidates: &[(f64, String)]) {
        for (score, text) in candidates {
            out.offer(*score, || Candidate::Event {
                event: Object::new(),
                text: text.clone(),
                source: None,
            });
        }
    }

    proptest::proptest! {
        /// Few distinct scores, so most candidates tie: the order of ties is what is tested.
        #[test]
        fn the_best_of_each_part_merged_are_the_best_of_all(
            scores in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
            limit in 1usize..80,
            cuts in proptest::collection::vec(proptest::prelude::any::<u16>(), 0..4),
        ) {
            let candidates = numbered(&scores);
            let mut all = Vec::new();
            offer_all(&mut all, &candidates);
            sort(&mut all);
            all.truncate(limit);

            let mut bounds: Vec<usize> = cuts.iter().map(|&c| usize::from(c) % (candidates.len() + 1)).collect();
            bounds.extend([0, candidates.len()]);
            bounds.sort_unstable();
            let mut merged = Vec::new();
            for pair in bounds.windows(2) {
                let mut best = Best::new(limit);
                offer_all(&mut best, &candidates[pair[0]..pair[1]]);
                merged.extend(best.into_sorted());
            }
            sort(&mut merged);
            merged.truncate(limit);
            proptest::prop_assert_eq!(names(&merged), names(&all));
        }
    }
}
