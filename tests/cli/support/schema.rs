//! The `--json` outputs several test modules read, each schema pinned once: an unknown key or a
//! missing one fails the test that parses it.

use serde::Deserialize;

/// `recall --json`, schema pinned.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recall {
    pub query: String,
    pub scope: String,
    pub ranking: String,
    pub count: usize,
    pub results: Vec<Hit>,
    /// Present only when the run warned.
    #[serde(default)]
    pub warnings: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Hit {
    Note {
        score: f64,
        source: String,
        #[serde(rename = "sourceFile")]
        source_file: String,
        #[serde(rename = "ref")]
        reference: String,
        text: String,
        /// With --ranking bm25, for a decision: its status and its successor.
        #[serde(default)]
        status: Option<String>,
        #[serde(default, rename = "supersededBy")]
        superseded_by: Option<String>,
        /// With --ranking bm25: the passage the human line shows.
        #[serde(default)]
        excerpt: Option<String>,
        /// With --ranking hybrid: the places in bm25's list and the model's (null: absent).
        #[serde(default, rename = "bm25Rank")]
        bm25_rank: Option<usize>,
        #[serde(default, rename = "semanticRank")]
        semantic_rank: Option<usize>,
    },
    Event {
        score: f64,
        source: String,
        #[serde(rename = "ref")]
        reference: serde_json::Value,
        text: String,
        event: serde_json::Map<String, serde_json::Value>,
        #[serde(default, rename = "bm25Rank")]
        bm25_rank: Option<usize>,
        #[serde(default, rename = "semanticRank")]
        semantic_rank: Option<usize>,
    },
}

impl Hit {
    pub fn score(&self) -> f64 {
        match self {
            Hit::Note { score, .. } | Hit::Event { score, .. } => *score,
        }
    }

    /// `sourceFile § ref` for a note, `journal#ref` for an event.
    pub fn label(&self) -> String {
        match self {
            Hit::Note {
                source_file,
                reference,
                ..
            } => format!("{source_file} § {reference}"),
            Hit::Event { reference, .. } => format!("journal#{reference}"),
        }
    }
}

/// Each result's [`Hit::label`], in order.
pub fn labels(recall: &Recall) -> Vec<String> {
    recall.results.iter().map(Hit::label).collect()
}

/// `doctor --json`, schema pinned.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Report {
    pub healthy: bool,
    pub checked: Vec<String>,
    pub problems: Vec<Problem>,
    /// Present only when there is one.
    #[serde(default)]
    pub warnings: Vec<Problem>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Problem {
    pub file: String,
    pub kind: String,
    pub message: String,
}

/// The recovery receipt, schema pinned.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Receipt {
    pub recovered_at: String,
    pub lock_sha256: String,
    pub owner: serde_json::Value,
    pub owner_alive: Option<bool>,
    pub other_host_is_gone: bool,
    pub age_ms: f64,
    pub recovered_by: RecoveredBy,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecoveredBy {
    pub pid: u32,
    pub hostname: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Brief {
    pub max_chars: usize,
    pub chars: usize,
    pub included: Vec<Included>,
    pub omitted: Vec<Omitted>,
    #[serde(default)]
    pub omitted_unlisted: Option<usize>,
    pub text: String,
    pub warnings: Vec<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Included {
    pub part: String,
    pub source: String,
    pub entries: usize,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Omitted {
    pub part: String,
    pub source: String,
    pub entry: String,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HandedOff {
    pub written: String,
    pub topic: String,
    pub agent: Option<String>,
    pub filled: Vec<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Handoffs {
    pub count: usize,
    pub latest: Option<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Health {
    pub percent: usize,
    pub passed: usize,
    pub checks: usize,
    pub failed: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[expect(clippy::struct_field_names, reason = "the JSON key is `exported`")]
pub struct Exported {
    pub exported: String,
    pub brain: Found,
    pub files: Vec<String>,
    pub skipped: Vec<Skipped>,
    pub bytes: usize,
    pub replaced: bool,
    pub warnings: Vec<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Found {
    pub path: String,
    #[serde(rename = "type")]
    pub kind: String,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Skipped {
    pub file: String,
    pub reason: String,
}

/// A note file in `status --json`.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Note {
    pub path: String,
    pub exists: bool,
    pub entries: usize,
    pub active: Option<usize>,
    pub may_be_in_force: Option<usize>,
    pub latest_entry: Option<String>,
    pub modified: Option<String>,
}

/// A project in `scan --json`.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScannedProject {
    pub path: String,
    pub relative: String,
    pub name: String,
    pub stack: String,
    pub markers: Vec<String>,
    pub last_change: Option<String>,
    pub status: String,
    pub bmad_installed: bool,
    pub hash: String,
}
