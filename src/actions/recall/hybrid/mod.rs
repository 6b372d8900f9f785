//! `recall --ranking hybrid`: bm25 and the sentence-embedding model, fused (docs/HYBRID.md).
//!
//! Two rankings of the same candidates (the journal's events, then the note files' sections):
//!
//! * **bm25**'s own result list ([`crate::actions::recall::bm25`]), every candidate that
//!   scores above zero, in its order — whatever bm25 does to its list (a decision's status
//!   weighing its score, `--status in-force` leaving some out), the fusion follows;
//! * **the model's**: the cosine of the query's vector with each candidate's (from the index,
//!   [`index`]), an event's weighed by its age as in every ranking (half every 30 days),
//!   `--status in-force` applied as bm25 applies it (a decision's status weighs only through
//!   bm25's list); highest first, ties in candidate order. A candidate without a vector (the
//!   index behind) is not in this list.
//!
//! **Reciprocal-rank fusion**: a candidate's score is `Σ 1 / (k + rank)` over the lists it is
//! in, `k` = [`FUSION_K`]; highest first, ties to the better place in bm25's list, then in
//! candidate order. A result is bm25's own (its
//! `status`, `supersededBy`, `excerpt`) when bm25 has it, else the same entry without an
//! excerpt; its `score` is the fused one, and it says where it stood in each list (`bm25Rank`,
//! `semanticRank`, `null` when absent).
//!
//! The model is loaded and the query embedded on a thread of their own while bm25 reads the
//! files. A recall embeds at most [`RECALL_TOKENS`] tokens of texts the index lacks (a note
//! just written, say), saves them, and warns when texts are left without a vector.

pub mod index;

use std::path::PathBuf;

use crate::actions::recall::bm25;
use crate::actions::recall::hybrid::index::{Budget, Text, refresh, texts};
use crate::actions::recall::score::{self, Candidate, Request};
use crate::actions::recall::status::{self, StatusFilter};
use crate::context::Context;
use crate::embed::Model;
use crate::embed::files::{self, Located, Pinned};
use crate::error::Result;
use crate::js::json::{Object, Value};
use crate::messages;
use crate::store::entry::Status;
use crate::store::vectors;

/// The `k` of reciprocal-rank fusion: how much the lists' first places weigh against their
/// next ones (with 5, first place is worth 1/6, tenth 1/15). Measured on the development set
/// from 3 to 60 (`BENCHMARKS.md`): 5 is the best; from 7, a candidate that both lists rank
/// lowly overtakes the model's first place more often, and below 5 one list's first place wins
/// alone.
pub const FUSION_K: f64 = 5.0;

/// How the two lists are fused: `Σ weight / (k + rank)`. The defaults are the documented
/// ranking; the others are for experiments (`examples/recall-eval.rs`), a weight of 0 leaving
/// a list out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    pub k: f64,
    pub bm25_weight: f64,
    pub semantic_weight: f64,
}

impl Default for Fusion {
    fn default() -> Self {
        Self {
            k: FUSION_K,
            bm25_weight: 1.0,
            semantic_weight: 1.0,
        }
    }
}

/// The most tokens of texts a recall embeds for the index (a few notes' worth: a
/// quarter-second or so on two cores).
pub const RECALL_TOKENS: usize = 2048;

/// Why the model cannot serve a recall.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    /// No cache folder can be told.
    NoCache,
    /// Not installed.
    Missing(&'static str),
    /// Installed, but failing a check: its folder and why.
    Unusable(PathBuf, String),
}

impl Unavailable {
    /// The message for `command` (`recall --ranking hybrid`, `index`), which needs the model.
    #[must_use]
    pub fn message(&self, command: &str) -> String {
        match self {
            Unavailable::NoCache => messages::NO_CACHE_FOLDER.to_owned(),
            Unavailable::Missing(name) => messages::model_needed(command, name),
            Unavailable::Unusable(folder, why) => messages::model_unusable(folder, why),
        }
    }

    /// Why, in a few words, for the fallback's warning.
    #[must_use]
    pub fn reason(&self) -> String {
        match self {
            Unavailable::NoCache => "no cache folder can be told".to_owned(),
            Unavailable::Missing(name) => {
                format!("the embedding model {name} is not installed (`bmad-mem model install`)")
            }
            Unavailable::Unusable(folder, why) => {
                format!(
                    "the embedding model in {} is unusable ({why})",
                    folder.display()
                )
            }
        }
    }
}

/// The model this run uses: all-MiniLM-L6-v2, or the tests' tiny one.
#[must_use]
pub fn pinned(ctx: &Context) -> &'static Pinned {
    if ctx.test_model.as_deref() == Some("tiny") {
        &files::TINY
    } else {
        &files::MINILM
    }
}

/// The folder of the installed model, checked against its pins.
///
/// # Errors
/// Why the model cannot be used.
pub fn installed(ctx: &Context) -> std::result::Result<PathBuf, Unavailable> {
    let pinned = pinned(ctx);
    let cache = ctx.cache.as_deref().ok_or(Unavailable::NoCache)?;
    match files::locate(cache, pinned) {
        Located::Ready(folder) => Ok(folder),
        Located::Missing => Err(Unavailable::Missing(pinned.name)),
        Located::Damaged(folder, problem) => Err(Unavailable::Unusable(folder, problem.0)),
    }
}

/// Loads the installed model.
///
/// # Errors
/// Why the model cannot be used.
pub fn load(ctx: &Context) -> std::result::Result<Model, Unavailable> {
    let folder = installed(ctx)?;
    Model::load(&folder).map_err(|e| Unavailable::Unusable(folder, e.0))
}

/// What identifies a candidate across the two lists: its kind and everything shown of it.
fn identity_of_entry(entry: &Object) -> String {
    let text = |key: &str| entry.get(key).map(Value::text).unwrap_or_default();
    match entry.get("event") {
        Some(event) => format!("event\0{}", event.compact()),
        None => format!(
            "note\0{}\0{}\0{}",
            text("sourceFile"),
            text("ref"),
            text("text")
        ),
    }
}

fn identity_of(candidate: &Candidate) -> String {
    match candidate {
        Candidate::Event { event, .. } => {
            format!("event\0{}", Value::Object(event.clone()).compact())
        }
        Candidate::Note(note) => format!(
            "note\0{}\0{}\0{}",
            note.source_file(),
            note.heading(),
            note.text()
        ),
    }
}

/// Each text's rank in bm25's list (1-based) and bm25's result for it, `None` for those not in
/// it. A result matches the first text of its identity not yet matched, so identical sections
/// keep their order.
fn bm25_ranks(texts: &[Text], ranked: Vec<Object>) -> (Vec<Option<usize>>, Vec<Option<Object>>) {
    let mut by_identity: std::collections::HashMap<String, Vec<usize>> =
        std::collections::HashMap::new();
    for (i, text) in texts.iter().enumerate().rev() {
        by_identity
            .entry(identity_of(&text.candidate))
            .or_default()
            .push(i);
    }
    let mut ranks = vec![None; texts.len()];
    let mut entries = vec![None; texts.len()];
    for (rank, entry) in ranked.into_iter().enumerate() {
        if let Some(i) = by_identity
            .get_mut(&identity_of_entry(&entry))
            .and_then(Vec::pop)
        {
            ranks[i] = Some(rank + 1);
            entries[i] = Some(entry);
        }
    }
    (ranks, entries)
}

/// A note's status, as bm25 reads it (`None` for events, lessons and patterns).
fn status_of(candidate: &Candidate) -> Option<Status> {
    match candidate {
        Candidate::Note(note) => status::note_status(note.source, note.heading(), note.text()),
        Candidate::Event { .. } => None,
    }
}

/// Each text's rank by the model (1-based), `None` for those without a vector or that
/// `filter` leaves out. An event's cosine is weighed by its age; a decision's status is not
/// weighed here (bm25's list already carries it: weighing both lists counted it twice, and
/// measured worse).
fn semantic_ranks(
    texts: &[Text],
    statuses: &[Option<Status>],
    query: &[f32],
    index: &vectors::Vectors,
    now_ms: f64,
    filter: StatusFilter,
) -> Vec<Option<usize>> {
    let mut scored: Vec<(f64, usize)> = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let Some(vector) = index.get(&text.key) else {
            continue;
        };
        let status = statuses[i].as_ref();
        if !filter.keeps(status) {
            continue;
        }
        let cosine: f32 = query.iter().zip(vector).map(|(a, b)| a * b).sum();
        let cosine = f64::from(cosine);
        let score = match &text.candidate {
            Candidate::Event { event, .. } => score::decay(cosine, event.get("ts"), now_ms),
            Candidate::Note(_) => cosine,
        };
        scored.push((score, i));
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut ranks = vec![None; texts.len()];
    for (rank, (_, i)) in scored.into_iter().enumerate() {
        ranks[i] = Some(rank + 1);
    }
    ranks
}

/// The fused score of ranks in the two lists.
fn fused(ranks: [Option<usize>; 2], fusion: &Fusion) -> f64 {
    #[expect(clippy::cast_precision_loss, reason = "a rank is far below 2^53")]
    ranks
        .iter()
        .zip([fusion.bm25_weight, fusion.semantic_weight])
        .filter_map(|(rank, weight)| rank.map(|r| weight / (fusion.k + r as f64)))
        .sum()
}

/// Every text in either list, as `(fused score, index)`, best first. Equal fused scores
/// (ranks (a, b) and (b, a) always tie): bm25's better place first, its first places being the
/// more precise; then candidate order.
fn fused_order(
    lexical: &[Option<usize>],
    semantic: &[Option<usize>],
    fusion: &Fusion,
) -> Vec<(f64, usize)> {
    let mut order: Vec<(f64, usize)> = (0..lexical.len())
        .map(|i| (fused([lexical[i], semantic[i]], fusion), i))
        .filter(|&(score, _)| score > 0.0)
        .collect();
    let bm25_place = |i: usize| lexical[i].unwrap_or(usize::MAX);
    order.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(bm25_place(a.1).cmp(&bm25_place(b.1)))
            .then(a.1.cmp(&b.1))
    });
    order
}

fn rank_value(rank: Option<usize>) -> Value {
    #[expect(clippy::cast_precision_loss, reason = "a rank is far below 2^53")]
    rank.map_or(Value::Null, |r| Value::Number(r as f64))
}

/// A hybrid recall's results and warnings, or why the model cannot serve it.
pub type Found = std::result::Result<(Vec<Object>, Vec<String>), Unavailable>;

/// Runs a hybrid recall: the results and the warnings, or why the model cannot serve it.
///
/// # Errors
/// Read errors (as bm25's), and the index's (a folder in its place).
pub fn recall(ctx: &Context, request: &Request, portfolio: Option<&str>) -> Result<Found> {
    recall_with(ctx, request, portfolio, &Fusion::default())
}

/// [`recall`] with other fusion constants.
///
/// # Errors
/// As [`recall`].
pub fn recall_with(
    ctx: &Context,
    request: &Request,
    portfolio: Option<&str>,
    fusion: &Fusion,
) -> Result<Found> {
    let folder = match installed(ctx) {
        Ok(folder) => folder,
        Err(unavailable) => return Ok(Err(unavailable)),
    };
    let digest = pinned(ctx).digest();
    let everything = Request {
        limit: usize::MAX,
        ..request.clone()
    };
    let (loaded, listed) = std::thread::scope(|scope| {
        let loader = scope.spawn(|| {
            let model = Model::load(&folder)?;
            let query = model.embed(&request.query)?;
            Ok((model, query))
        });
        let listed = bm25::recall(ctx, &everything, portfolio)
            .and_then(|found| Ok((found, texts(ctx, portfolio)?)));
        let model_and_query = loader.join().unwrap_or_else(|_| {
            Err(crate::embed::weights::Invalid(
                "the model's thread failed".into(),
            ))
        });
        (model_and_query, listed)
    });
    let ((ranked, mut warnings), mut texts) = listed?;
    let (model, query) = match loaded {
        Ok(loaded) => loaded,
        Err(e) => return Ok(Err(Unavailable::Unusable(folder, e.0))),
    };
    let refreshed = match refresh(
        &ctx.root,
        &model,
        &digest,
        &texts,
        Budget::Tokens(RECALL_TOKENS),
        &|_, _| {},
    ) {
        Ok(refreshed) => refreshed,
        Err(e) => return Ok(Err(Unavailable::Unusable(folder, e.0))),
    };
    if let Some(reason) = &refreshed.ignored {
        warnings.push(messages::index_ignored(reason));
    }
    if refreshed.changed
        && let Err(e) = vectors::write(&ctx.root, &refreshed.index)
    {
        warnings.push(messages::index_not_saved(&e.to_string()));
    }
    if refreshed.behind > 0 {
        warnings.push(messages::index_behind(refreshed.behind));
    }
    let (lexical, mut shown) = bm25_ranks(&texts, ranked);
    let statuses: Vec<Option<Status>> = texts.iter().map(|t| status_of(&t.candidate)).collect();
    let semantic = semantic_ranks(
        &texts,
        &statuses,
        &query,
        &refreshed.index,
        ctx.now.ms,
        request.status,
    );
    let mut order = fused_order(&lexical, &semantic, fusion);
    order.truncate(request.limit);
    let mut taken: Vec<Option<Candidate>> = texts.drain(..).map(|t| Some(t.candidate)).collect();
    let results = order
        .into_iter()
        .filter_map(|(score, i)| {
            // bm25's own result when it has one (its status and excerpt), else the same
            // entry with the status.
            let mut entry = if let Some(entry) = shown[i].take() {
                entry
            } else {
                let mut entry = score::entry(0.0, taken[i].take()?);
                status::add_to_entry(&mut entry, statuses[i].as_ref());
                entry
            };
            entry.insert("score", score);
            Some(
                entry
                    .with("bm25Rank", rank_value(lexical[i]))
                    .with("semanticRank", rank_value(semantic[i])),
            )
        })
        .collect();
    Ok(Ok((results, warnings)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::recall::score::{Note, NoteFile};
    use crate::store::sections::sections;

    fn note_texts(text: &str) -> Vec<Text> {
        let file = NoteFile {
            source: "lessons.md",
            path: "/p/.agents/memory/lessons.md".into(),
            source_file: ".agents/memory/lessons.md".to_owned(),
            within: "/p".into(),
        };
        sections(text)
            .iter()
            .map(|section| Text {
                key: [0; 32],
                candidate: Candidate::Note(Note::new(&file, section)),
            })
            .collect()
    }

    #[test]
    fn the_fused_score_is_the_sum_of_the_reciprocal_ranks_present() {
        let fusion = Fusion::default();
        assert_eq!(fused([Some(1), Some(1)], &fusion), 2.0 / 6.0);
        assert_eq!(fused([None, Some(4)], &fusion), 1.0 / 9.0);
        assert_eq!(fused([Some(4), None], &fusion), 1.0 / 9.0);
        assert_eq!(fused([None, None], &fusion), 0.0);
        let model_alone = Fusion {
            bm25_weight: 0.0,
            ..Fusion::default()
        };
        assert_eq!(fused([Some(1), Some(2)], &model_alone), 1.0 / 7.0);
        // The model's first place alone ranks below a candidate both lists put second.
        assert!(fused([Some(2), Some(2)], &fusion) > fused([None, Some(1)], &fusion));
    }

    #[test]
    fn ties_go_to_bm25s_better_place_then_to_candidate_order() {
        let fusion = Fusion::default();
        // 0: (2, 1) and 1: (1, 2) tie; 2 and 3 (the model's alone, 3rd) tie too.
        let lexical = [Some(2), Some(1), None, None];
        let semantic = [Some(1), Some(2), Some(3), Some(3)];
        let order: Vec<usize> = fused_order(&lexical, &semantic, &fusion)
            .into_iter()
            .map(|(_, i)| i)
            .collect();
        assert_eq!(order, [1, 0, 2, 3]);
        assert!(fused_order(&[None], &[None], &fusion).is_empty());
    }

    #[test]
    fn bm25_results_find_their_texts_even_identical_ones_in_order() {
        let texts = note_texts("### Same\nbody\n### Other\nx\n### Same\nbody\n");
        let entry = |i: usize| score::entry(1.0, texts[i].candidate_clone());
        // bm25 listed the second "Same" first: identical texts are matched in their order.
        let (ranks, entries) = bm25_ranks(&texts, vec![entry(2), entry(1), entry(0)]);
        assert_eq!(ranks, [Some(1), Some(2), Some(3)]);
        assert!(entries.iter().all(Option::is_some));
        let (ranks, _) = bm25_ranks(&texts, vec![entry(1)]);
        assert_eq!(ranks, [None, Some(1), None]);
    }

    impl Text {
        fn candidate_clone(&self) -> Candidate {
            match &self.candidate {
                Candidate::Note(note) => Candidate::Note(note.clone()),
                Candidate::Event {
                    event,
                    text,
                    source,
                } => Candidate::Event {
                    event: event.clone(),
                    text: text.clone(),
                    source: source.clone(),
                },
            }
        }
    }

    #[test]
    fn the_model_ranks_by_cosine_and_the_status_filter_applies() {
        let texts = note_texts("### A\na\n### B\nb\n### C\nc\n");
        let keyed: Vec<Text> = texts
            .into_iter()
            .enumerate()
            .map(|(i, mut t)| {
                t.key = [u8::try_from(i).unwrap(); 32];
                t
            })
            .collect();
        let index = vectors::Vectors::from_entries(
            [0; 32],
            2,
            vec![
                ([0; 32], vec![1.0, 0.0]),
                ([1; 32], vec![0.9, 0.435_889_9]),
                ([2; 32], vec![0.6, 0.8]),
            ],
        );
        let query = [1.0, 0.0];
        let active = [None, None, None];
        let ranks = semantic_ranks(&keyed, &active, &query, &index, 0.0, StatusFilter::All);
        assert_eq!(ranks, [Some(1), Some(2), Some(3)]);
        // An ended decision keeps its place by the model (bm25's list weighs its status)...
        let ended = [Some(Status::Abrogated), None, None];
        let ranks = semantic_ranks(&keyed, &ended, &query, &index, 0.0, StatusFilter::All);
        assert_eq!(ranks, [Some(1), Some(2), Some(3)]);
        // ...and `--status in-force` leaves it out.
        let ranks = semantic_ranks(&keyed, &ended, &query, &index, 0.0, StatusFilter::InForce);
        assert_eq!(ranks, [None, Some(1), Some(2)]);
    }
}
