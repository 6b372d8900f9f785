//! The user-facing messages, in one place: what follows `mem <action>: ` on stderr, or sits in
//! `{"error":…}` under `--json`. A fixed message is a `const`, a message with values a small
//! function; both are grouped by the command that prints them. Tests pin the texts byte for
//! byte, and the ones marked "pinned: bmad-plus prints exactly this" must never change: a team
//! running both tools reads the same refusal from either (docs/COMPATIBILITY.md).
//!
//! The Nexus view's own messages (`Nexus: …`) still live with it.

// Without the MCP server (cargo feature `mcp` off), its messages are built but unused.
#![cfg_attr(not(feature = "mcp"), allow(dead_code))]

use std::fmt::Display;
use std::path::Path;

// Confinement and the confined reader, shared by every command that reads or writes the memory.

/// pinned: bmad-plus prints exactly this.
pub(crate) const PATH_NOT_NORMALIZED: &str =
    "Memory path must be a normalized project-relative path.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const PATH_ESCAPES: &str = "Memory path escapes project.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const PATH_SYMLINK: &str = "Memory paths cannot follow symbolic links or junctions.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const PARENT_NOT_DIRECTORY: &str = "Memory parent is not a directory.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const SOURCE_NOT_REGULAR: &str =
    "Memory source must be a regular file of at most 2 MiB.";
/// A file that grew past the cap while it was read.
pub(crate) const SOURCE_GREW: &str = "Memory source exceeded 2 MiB while reading.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const SOURCE_NOT_UTF8: &str = "Memory source must contain valid UTF-8.";
/// Node's text for reading a directory as a file.
pub(crate) const IS_DIRECTORY: &str = "EISDIR: illegal operation on a directory, read";

/// A file over the size a bounded read accepts (its size, or the bytes read past the cap).
pub(crate) fn source_too_large(bytes: u64) -> String {
    format!("Memory source of {bytes} bytes is over the read limit.")
}

/// pinned: bmad-plus prints exactly this (Node's text for a missing file).
pub(crate) fn not_found(path: &Path) -> String {
    format!(
        "ENOENT: no such file or directory, stat '{}'",
        path.display()
    )
}

// The writer lock and the registries, shared by every writer.

/// pinned: bmad-plus prints exactly this.
pub(crate) const LOCK_OCCUPIED: &str =
    "Memory writer lock is occupied. Inspect writer.lock and its owner; do not remove a live lock.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const STORE_FULL: &str =
    "Memory store is full; archive it explicitly before adding records.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const INCOMPLETE_FINAL_LINE: &str =
    "Memory store has an incomplete final line; inspect it before writing.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const DOCUMENT_TOO_LARGE: &str = "Memory store exceeds 2 MiB.";

// The command line and the environment, shared by every command.

/// A value an option does not accept (`--scope`, `--limit`, the signals, `--before`, …).
pub(crate) fn invalid_value(option: &str, text: &str) -> String {
    format!("invalid value for --{option}: {text}")
}

/// `BMAD_MEM_NOW` that is no timestamp.
pub(crate) fn invalid_now(text: &str) -> String {
    format!("BMAD_MEM_NOW is not a valid timestamp: {text}")
}

/// `-d` that names no folder.
pub(crate) fn no_project_dir(root: &Path) -> String {
    format!(
        "Project directory does not exist or is not a directory: {}",
        root.display()
    )
}

/// Why a result did not reach stdout when stdout was closed before the program started.
pub(crate) const STDOUT_CLOSED: &str = "standard output is closed";
/// Why a result would not reach stdout: the pipe or socket it is has no reader left.
pub(crate) const STDOUT_UNREAD: &str = "nobody reads standard output any more";

// recall

/// pinned: bmad-plus prints exactly this.
pub(crate) const QUERY_REQUIRED: &str = "recall: query must be a non-empty string";
/// pinned: bmad-plus prints exactly this.
pub(crate) const RANKING_UNKNOWN: &str = "recall: ranking must be lexical or evidence";
/// pinned: bmad-plus prints exactly this.
pub(crate) const EVIDENCE_PROJECT_ONLY: &str =
    "Evidence ranking supports project-local lexical recall only.";
/// `--portfolio` that nothing would read.
pub(crate) const PORTFOLIO_WITHOUT_SCOPE: &str = "--portfolio only applies with --scope portfolio";
/// `--context-scope` that nothing would read.
pub(crate) const CONTEXT_SCOPE_WITHOUT_EVIDENCE: &str =
    "--context-scope only applies with --ranking evidence";
/// `--include-archive` with a ranking that does not read the archive.
pub(crate) const ARCHIVE_WITH_BM25: &str =
    "--include-archive applies with --ranking lexical or evidence";
/// `--status` with a ranking of bmad-plus's, which shows no status.
pub(crate) const STATUS_WITH_BMAD_PLUS_RANKING: &str = "--status applies with --ranking bm25: the lexical and evidence rankings are bmad-plus's and show no status";
/// `BMAD_MEM_RANKING` naming no ranking.
pub(crate) fn ranking_env_ignored(value: &str, rankings: &[&str]) -> String {
    format!(
        "warning: BMAD_MEM_RANKING ignored: \"{value}\" is not one of {}",
        rankings.join(", ")
    )
}

/// `--portfolio` naming no folder.
pub(crate) fn portfolio_not_a_folder(dir: &Path) -> String {
    format!("--portfolio is not an existing folder: {}", dir.display())
}

// recall --ranking hybrid, `model` and `index`: messages/hybrid.rs

mod hybrid;
pub(crate) use crate::messages::hybrid::*;

// write

/// pinned: bmad-plus prints exactly this.
pub(crate) const AGENT_REQUIRED: &str = "appendEvent: event.agent is required";
/// pinned: bmad-plus prints exactly this.
pub(crate) const OUTCOME_UNKNOWN: &str =
    "appendEvent: event.outcome must be one of success|failure|partial|abandoned";

// reinforce

/// pinned: bmad-plus prints exactly this (it carries its own prefix, in both forms).
pub(crate) const PATTERN_REQUIRED: &str =
    "mem reinforce: --pattern <id> is required (the pattern heading in patterns.md)";

/// A scores file the loose reader skipped.
pub(crate) fn scores_unreadable(scores: &str, skip: impl Display) -> String {
    format!("{scores} cannot be read ({skip}); nothing was changed.")
}

// observe

/// `observe` without its input file.
pub(crate) const INPUT_REQUIRED: &str = "--input <file.json> is required";
/// pinned: bmad-plus prints exactly this.
pub(crate) const INPUT_NOT_OBJECT: &str = "Outcome input must be a JSON object.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const INPUT_MISSING: &str = "Outcome input is required.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const RUN_ID_TEXT: &str = "Run ID must be non-empty bounded text.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const TASK_ID_TEXT: &str = "Task ID must be non-empty bounded text.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const DUPLICATE_OUTCOME: &str =
    "Duplicate outcome: this task attempt already supplied a receipt.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const SCOPE_EXCEEDS_TASK: &str = "Outcome scope exceeds the accepted task scope.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const SUPERSEDED_AND_CONTRADICTED: &str =
    "A receipt cannot be both superseded and contradicted.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const INTERPRETATION_TEXT: &str =
    "Lesson interpretation must be non-empty bounded text.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const SOURCES_CHANGED: &str = "Outcome sources changed while being observed.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const OUTCOME_STORE_FULL: &str = "Outcome store is full; archive it explicitly.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const RELATED_NOT_FOUND: &str =
    "Related outcome must exist in the same applicable project scope.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const RELATIONS_INVALID: &str =
    "Outcome relationships must be a unique bounded receipt-ID list.";

/// An input file that does not parse, in our own words.
pub(crate) fn input_not_json(problem: impl Display) -> String {
    format!("Outcome input is not valid JSON: {problem}")
}

// The receipt store and receipt fields, shared by observe and outcomes.

/// pinned: bmad-plus prints exactly this.
pub(crate) const OUTCOME_INCOMPLETE_RECORD: &str = "Outcome store has an incomplete final record.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const RECEIPT_INTEGRITY: &str = "Outcome receipt integrity or uniqueness check failed.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const RELATIONS_NOT_EARLIER: &str =
    "Outcome relationships must identify earlier receipts.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const ATTEMPT_IDENTITY: &str = "Duplicate or missing outcome attempt identity.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const SCOPE_REQUIRED: &str = "An explicit non-empty project scope is required.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const SCOPE_NOT_NORMALIZED: &str = "Outcome scope must be a normalized relative path.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const HEADING_TEXT: &str = "Memory heading must be non-empty bounded text.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const MEMORY_SOURCE_KIND: &str =
    "Outcome memory source must be a project decisions, lessons or patterns Markdown file.";
/// pinned: bmad-plus prints exactly this.
pub(crate) const HEADING_NOT_ONE: &str = "Memory heading must identify exactly one section.";

/// A receipt line that does not parse (1-based), in our own words.
pub(crate) fn outcome_line_not_json(line: usize, problem: impl Display) -> String {
    format!("Outcome store line {line} is not valid JSON: {problem}")
}

/// pinned: bmad-plus prints exactly this.
pub(crate) fn outcome_store_too_long(max: usize) -> String {
    format!("Outcome store exceeds {max} records.")
}

// lock

/// `--expect` without `--recover`.
pub(crate) const EXPECT_WITHOUT_RECOVER: &str = "--expect <sha256> only applies with --recover";
/// The lock changed between its inspection and its removal.
pub(crate) const LOCK_CHANGED: &str =
    "Writer lock changed while being recovered; inspect it again.";
/// `--recover` with no lock.
pub(crate) const NO_LOCK: &str = "There is no writer lock to recover.";
/// A lock whose owner cannot be read.
pub(crate) const LOCK_OWNER_UNREADABLE: &str =
    "Writer lock has no readable owner; check that no writer runs, then remove it by hand.";

/// `--expect` naming another lock than the one there.
pub(crate) fn lock_digest_differs(actual: &str, expected: &str) -> String {
    format!("Writer lock has sha256 {actual}, not {expected}; inspect it again before recovering.")
}

/// A lock whose owner runs.
pub(crate) fn lock_owner_alive(pid: &str) -> String {
    format!("Writer lock owner (pid {pid}) is alive; do not remove a live lock.")
}

/// A lock taken on another host, without `--other-host-is-gone`.
pub(crate) fn lock_other_host(host: &str) -> String {
    format!(
        "Writer lock belongs to host {host}, where its owner cannot be checked from here; if no writer runs there, add --other-host-is-gone."
    )
}

/// The recovery receipt could not take its name.
pub(crate) fn lock_receipt_unnamed(rel: &str, problem: impl Display, left: &Path) -> String {
    format!(
        "Writer lock removed, but its recovery receipt could not be named {rel} ({problem}); it was left as {}.",
        left.display()
    )
}

// doctor

/// A repair option naming a file it does not repair (`repair-tail`, `repair-encoding`).
pub(crate) fn repair_takes(option: &str, registries: &[&str]) -> String {
    format!("--{option} takes one of {}", registries.join(", "))
}

/// `--repair-encoding` with every line valid: nothing to do (exit 0).
pub(crate) fn nothing_invalid(rel: &str) -> String {
    format!("{rel} has no line that is not valid UTF-8; nothing to repair.")
}

/// `--repair-encoding` where only the torn final line is invalid.
pub(crate) fn only_the_tail_invalid(rel: &str) -> String {
    format!(
        "{rel} has no complete line that is not valid UTF-8; its incomplete final line is repaired with --repair-tail."
    )
}

/// A registry that changed between the read and the repair.
pub(crate) fn changed_during_repair(rel: &str, expected: u64, now: u64) -> String {
    format!(
        "{rel} changed during the repair ({expected} bytes read, {now} now); nothing was changed, run the repair again."
    )
}

/// `--repair-tail` on a registry that ends with a newline: nothing to do (exit 0).
pub(crate) fn no_torn_tail(rel: &str) -> String {
    format!("{rel} has no incomplete final line; nothing to repair.")
}

// archive

/// Both selections at once.
pub(crate) const BEFORE_AND_KEEP: &str = "--before and --keep cannot be used together";

/// `archive` without a store word.
pub(crate) fn missing_store(expected: &str) -> String {
    format!("missing store — {expected}")
}

/// `archive` with a word that names no store.
pub(crate) fn unknown_store(word: &str, expected: &str) -> String {
    format!("unknown store '{word}' — {expected}")
}

/// A store to archive whose last line is torn.
pub(crate) fn archive_torn_tail(rel: &str) -> String {
    format!(
        "{INCOMPLETE_FINAL_LINE} `bmad-mem doctor --repair-tail {rel}` keeps the torn line aside."
    )
}

// merge-driver

/// A path the merge driver does not merge; `known` lists the files it merges, by folder.
pub(crate) fn merge_unknown_path(path: &str, known: &str) -> String {
    format!(
        "{path}: not a file bmad-mem merges (it merges {known}, and {MERGE_NOTE_FILES}); left as ours, resolve it by hand"
    )
}

/// One of the three files git hands over is a link or not a regular file.
pub(crate) fn merge_not_regular(file: &str) -> String {
    format!("{file} is a link or not a regular file; nothing was merged")
}

/// A side over the registry cap, or a merge that would be.
pub(crate) fn merge_too_large(rel: &str, what: &str, cap: u64, remedy: &str) -> String {
    format!("{rel}: {what} exceeds {cap} bytes; nothing was merged — {remedy}")
}

/// How to make room in a store, by store.
pub(crate) fn merge_remedy(archive: Option<&str>) -> String {
    match archive {
        Some(store) => {
            format!("run `bmad-mem archive {store}` on one side, commit, and merge again")
        }
        None => "bmad-mem cannot archive this store; resolve the conflict by hand".to_owned(),
    }
}

/// A side that is not UTF-8 JSON where JSON is needed.
pub(crate) fn merge_not_json(rel: &str, side: &str) -> String {
    format!(
        "{rel}: {side} is not a JSON object; it cannot be merged pattern by pattern — left as ours"
    )
}

/// Records changed differently on the two sides: the first line of the report.
pub(crate) fn merge_record_conflicts(rel: &str, count: usize) -> String {
    format!(
        "{rel}: {count} record(s) changed differently on the two sides; both versions are left in the file between `<<<<<<< ours` and `>>>>>>> theirs`"
    )
}

/// One conflicting record of the report.
pub(crate) fn merge_record_conflict(id: &str, ours: &str, theirs: &str) -> String {
    format!("  id {id}: ours {ours}; theirs {theirs}")
}

/// A side that removed the record in conflict.
pub(crate) const MERGE_REMOVED: &str = "removed it";

/// Merged receipts the strict reader refuses.
pub(crate) fn merge_receipts_refused(rel: &str, reason: &str) -> String {
    format!(
        "{rel}: the merged receipts would not pass the strict reader ({reason}); left as ours, resolve it by hand"
    )
}

/// Patterns scored differently on the two sides: the first line of the report.
pub(crate) fn merge_pattern_conflicts(rel: &str, count: usize) -> String {
    format!(
        "{rel}: {count} pattern(s) scored differently on the two sides; the file keeps ours for them and merges the others"
    )
}

/// One conflicting pattern of the report.
pub(crate) fn merge_pattern_conflict(pattern: &str, ours: &str, theirs: &str) -> String {
    format!("  pattern \"{pattern}\": ours {ours}; theirs {theirs}")
}

/// A side that deleted the pattern in conflict.
pub(crate) const MERGE_DELETED: &str = "deleted it";

// merge-driver on the note files: in their own file.
mod merge;
pub(crate) use crate::messages::merge::*;

// export

/// `--out ""`.
pub(crate) const OUT_EMPTY: &str = "--out must not be empty";
/// No brain linked or found.
pub(crate) const NO_BRAIN: &str =
    "no brain to export: none is linked or detected (run `bmad-mem init`)";

/// A brain link that cannot be followed.
pub(crate) fn link_invalid(link: &str, reason: impl Display) -> String {
    format!(
        "{link} ignored: {reason}; nothing was exported — to relink: rm {link} && bmad-mem init"
    )
}

/// A linked brain that is no folder.
pub(crate) fn brain_not_a_folder(dir: &Path) -> String {
    format!("the linked brain is not a folder: {}", dir.display())
}

/// `--out` naming something other than a regular file.
pub(crate) fn out_not_regular(what: impl Display, out: &Path) -> String {
    format!(
        "--out names {what}, not a regular file: {}; --force replaces regular files only",
        out.display()
    )
}

/// `--out` naming an existing file, without `--force`.
pub(crate) fn out_exists(out: &Path) -> String {
    format!(
        "{} already exists; pass --force to replace it",
        out.display()
    )
}

// handoff

/// `--from` over the cap.
pub(crate) const FROM_TOO_LARGE: &str = "--from input is over 2 MiB";
/// `--from` that is not UTF-8.
pub(crate) const FROM_NOT_UTF8: &str = "--from input is not valid UTF-8";
/// `--from -` with nothing on standard input.
pub(crate) const FROM_STDIN_EMPTY: &str = "--from -: standard input is empty";
/// `--from <file>` that is blank.
pub(crate) const FROM_EMPTY: &str = "--from input is empty";
/// `handoff` without a topic.
pub(crate) const TOPIC_REQUIRED: &str = "--topic <text> is required";

/// Every numbered name of the day's handoff (`rel`, then `-2`, `-3`, …) is taken.
pub(crate) fn no_free_handoff_name(rel: &str) -> String {
    format!("no free handoff name left for {rel}")
}

// brief

/// A registry `brief` reads (the journal, the decision ledger, the promotions) that it could
/// not read: the brief goes on without it.
pub(crate) fn brief_file_skipped(rel: &str, error: &dyn Display) -> String {
    format!("warning: {rel} skipped: {error}")
}

// init

/// A blank `--project-name`.
pub(crate) const PROJECT_NAME_EMPTY: &str = "--project-name must not be empty";

/// A `.gitignore` that `init` could not extend: the lines to add by hand.
pub(crate) fn gitignore_not_extended(error: &dyn Display, lines: &[&str]) -> String {
    format!(
        "warning: .gitignore not extended ({error}); add these lines to it: {}",
        lines.join(", ")
    )
}

// status

/// The failed check of a project with no link and no brain detection would choose.
pub(crate) const STATUS_NO_BRAIN: &str =
    "a brain (bmad-mem init creates the global brain ~/.bmad-plus/brain)";

// scan

/// `scan` without a folder.
pub(crate) const DIR_REQUIRED: &str = "<dir> is required";
/// `--index` without a home folder.
pub(crate) const HOME_UNSET: &str = "HOME is not set: cannot index into the global brain";

/// `scan` of a folder that is not there.
pub(crate) fn scan_dir_missing(dir: &Path) -> String {
    format!(
        "Scan directory does not exist or is not a directory: {}",
        dir.display()
    )
}

// guard, hooks and the agents' sidecars (init --sidecar, brief --agent): in their own file.
mod agents;
pub(crate) use crate::messages::agents::*;

// propose, and the checks every candidate passes before it is written or admitted (admit and
// import run them too)

/// `propose` without a type.
pub(crate) const TYPE_REQUIRED: &str = "--type decision|lesson|pattern is required";
/// `--type` naming no kind of entry.
pub(crate) const TYPE_UNKNOWN: &str = "--type must be decision, lesson or pattern";
/// `propose` without a title.
pub(crate) const TITLE_REQUIRED: &str = "--title <text> is required";
/// `propose` with neither `--body` nor `--from`.
pub(crate) const CONTENT_REQUIRED: &str =
    "the content is required: --body <text> or --from <file|->";
/// A candidate whose content is blank.
pub(crate) const CONTENT_EMPTY: &str = "the content is empty";
/// A blank title.
pub(crate) const TITLE_EMPTY: &str = "--title must not be empty";
/// A title over more than one line.
pub(crate) const TITLE_MULTILINE: &str = "the title must be one line";
/// A title that makes no topic.
pub(crate) const TITLE_NO_TOPIC: &str = "the title has no letter or digit to make a topic of";

/// A topic recorded in the refused-topics file.
pub(crate) fn topic_refused(topic: &str, refused_file: &str) -> String {
    format!("the topic `{topic}` was refused (see {refused_file}); it is never proposed again")
}

/// A title that is already an entry's of its type (compared without date, case, punctuation
/// and hyphens).
pub(crate) fn topic_already_entry(topic: &str, kind: &str, heading: &str, file: &str) -> String {
    format!("the topic `{topic}` is already a {kind} entry: \"{heading}\" in {file}")
}

/// A candidate that nearly duplicates an existing entry (lint's near-duplicate measure).
pub(crate) fn near_duplicate_entry(file: &str, heading: &str, similarity: f64) -> String {
    format!(
        "warning: near-duplicate of {file} § {heading} (similarity {similarity:.2} over word 3-shingles); admit it only if it says something that entry does not"
    )
}

/// A candidate whose title says what an existing entry's title says (lint's title measure).
pub(crate) fn near_title_entry(file: &str, heading: &str) -> String {
    format!(
        "warning: its title shares most of its words with {file} § {heading}; check that it is not the same entry"
    )
}

/// A candidate whose title says what a refused topic's title says.
pub(crate) fn near_refused_topic(topic: &str, refused_file: &str) -> String {
    format!(
        "warning: its title shares most of its words with the refused topic `{topic}` ({refused_file}); check that it is not that topic"
    )
}

/// A note file the entry checks or the index cannot read as a regular file (`reason` says
/// what it is).
pub(crate) fn note_file_unreadable(rel: &str, reason: &str) -> String {
    format!(
        "{rel} {reason}; the entry commands read a note file only as a regular file of at most 64 MiB and never take it as absent (its entries would be proposed again and left out of the index): make it a regular file, or move it away"
    )
}

/// A topic already pending (import skips it).
pub(crate) fn topic_pending(topic: &str) -> String {
    format!("the topic `{topic}` is already pending")
}

/// Every numbered id of a candidate (`base`, then `-2`, `-3`, …) is taken.
pub(crate) fn no_free_candidate_id(base: &str) -> String {
    format!("no free candidate id left for `{base}`")
}

/// `--from` naming a file that holds secrets (propose and import).
pub(crate) fn from_names_secret(from: &str, what: impl Display) -> String {
    format!("--from `{from}` names {what}; secrets never enter the memory")
}

/// A candidate file not in the shape propose writes.
pub(crate) fn not_candidate_format(id: &str, candidates_dir: &str) -> String {
    format!(
        "candidate {id} is not in the candidate format (front matter, then ## Context, ## Content, ## Evidence); fix or remove {candidates_dir}/{id}.md"
    )
}

/// Content over the length cap.
pub(crate) fn content_too_long(length: usize, max: usize) -> String {
    format!("the content is {length} characters long; at most {max} are accepted")
}

/// Content that opens fenced code and never closes it.
pub(crate) const CONTENT_OPEN_FENCE: &str = "the content opens fenced code (``` or ~~~) that it never closes, which would hide every later entry of the file; close it";

/// A content line (1-based) that would start a section of its own.
pub(crate) fn content_heading(line: usize) -> String {
    format!(
        "content line {line} starts with `###`, which would cut the entry in two; use `####` or rephrase"
    )
}

/// Evidence naming a file that holds secrets.
pub(crate) fn evidence_names_secret(item: &str, what: impl Display) -> String {
    format!("evidence `{item}` names {what}; secrets never enter the memory")
}

/// A secret found in one part of what a command stores (a candidate's part, `--task`,
/// `--reason`, `--by`, `--from`, …), named with its rule and line, never echoed.
pub(crate) fn secret_in(part: &str, finding: impl Display) -> String {
    format!("{part}: {finding}; secrets never enter the memory")
}

/// A title over the length cap.
pub(crate) fn title_too_long(max: usize) -> String {
    format!("the title is longer than {max} characters")
}

// admit

/// `--refuse` without a reason.
pub(crate) const REASON_REQUIRED: &str = "--refuse <id> needs --reason <text>";
/// `--reason` without `--refuse`.
pub(crate) const REASON_WITHOUT_REFUSE: &str = "--reason goes with --refuse <id>";
/// `admit` with nothing to do.
pub(crate) const ADMIT_WHAT: &str =
    "give a candidate id with --expect <sha256>, or --list, --refuse <id> or --finish <id>";
/// `admit <id>` without the digest that was shown.
pub(crate) const EXPECT_REQUIRED: &str =
    "--expect <sha256> is required: the digest of the candidate as it was shown";

/// A word that cannot be a candidate id.
pub(crate) fn not_a_candidate_id(id: &str) -> String {
    format!("`{id}` is not a candidate id (lowercase letters, digits and -)")
}

/// No candidate of that id.
pub(crate) fn no_candidate(id: &str) -> String {
    format!("no candidate {id} (see `bmad-mem admit --list`)")
}

/// A candidate already admitted or refused (`status` is its file, trimmed).
pub(crate) fn no_longer_pending(id: &str, status: &str) -> String {
    format!("candidate {id} is no longer pending: {status}")
}

/// `--expect` naming another text than the candidate's.
pub(crate) fn candidate_digest_differs(id: &str, actual: &str, expected: &str) -> String {
    format!(
        "candidate {id} is not the text that was shown: its sha256 is {actual}, not {expected}; review it again with `bmad-mem admit --list`"
    )
}

/// A candidate whose entry is written but whose admission is not recorded.
pub(crate) fn already_in_note(id: &str, rel: &str) -> String {
    format!(
        "candidate {id} is already in {rel} (an earlier admit stopped before recording it); run `bmad-mem admit --finish {id}`"
    )
}

/// Admitting a candidate whose topic was refused.
pub(crate) fn admit_topic_refused(topic: &str, refused_file: &str, id: &str) -> String {
    format!(
        "the topic `{topic}` was refused (see {refused_file}); refuse this candidate too with `bmad-mem admit --refuse {id} --reason <text>`"
    )
}

/// A title that already heads a section of the note file.
pub(crate) fn heading_taken(title: &str, rel: &str) -> String {
    format!(
        "\"{title}\" already heads a section of {rel}; headings must stay unique (observe targets them)"
    )
}

/// A note file whose last section would absorb the appended one.
pub(crate) fn append_changes_last_section(rel: &str) -> String {
    format!(
        "appending to {rel} would change its last section; add a blank line at its end and try again"
    )
}

/// A note file the entry would take over the cap.
pub(crate) fn note_too_large(rel: &str) -> String {
    format!("{rel} would exceed 2 MiB; move older entries out before admitting more")
}

/// The refused-topics file the topic would take over the cap.
pub(crate) fn refused_file_too_large(refused_file: &str) -> String {
    format!("{refused_file} would exceed 2 MiB")
}

/// A note file that changed between its read and its replacement.
pub(crate) fn note_changed(rel: &str) -> String {
    format!(
        "{rel} changed while the entry was being admitted; nothing was written, run admit again"
    )
}

/// `--finish` on a candidate with nothing half done.
pub(crate) fn nothing_to_finish(id: &str) -> String {
    format!(
        "candidate {id} was neither admitted nor refused; nothing to finish (admit it with --expect, or refuse it)"
    )
}

/// `--list` passing over a candidate file it cannot read.
pub(crate) fn unreadable_candidate(path: &str) -> String {
    format!("warning: {path} is not in the candidate format; fix or remove it")
}

// import

/// A blank `--from`.
pub(crate) const IMPORT_FROM_EMPTY: &str = "--from must not be empty";
/// A file read that gives no item because it holds nothing.
pub(crate) const IMPORT_EMPTY_FILE: &str = "the file is empty";
/// A file read that gives no item.
pub(crate) const IMPORT_NO_ITEM: &str = "no list item starts a line (-, *, +, 1.) and no heading has text of its own under it; write one item per list item, or one section per item";

/// `--from <file>` that the loose reader skipped.
pub(crate) fn import_from_unreadable(file: &str, skip: impl Display) -> String {
    format!("--from {file}: {skip}")
}

// mcp

/// The MCP transport failed.
pub(crate) fn mcp_server(message: &str) -> String {
    format!("MCP server: {message}")
}

mod mcp;
pub(crate) use crate::messages::mcp::*;

/// The MCP server's output is gone (the client stopped reading, stdout failed): it stopped.
pub(crate) fn mcp_output_lost(reason: &str) -> String {
    format!("MCP server: output lost ({reason}): no further call taken")
}

/// A call to a tool the server does not have.
pub(crate) fn unknown_tool(name: &str) -> String {
    format!("unknown tool '{name}'")
}

/// An argument given to a tool that takes none.
pub(crate) fn argument_to_no_arguments(name: &str) -> String {
    format!("unknown argument '{name}' — this tool takes none")
}

/// An argument the tool does not have.
pub(crate) fn unknown_argument(name: &str, known: &[&str]) -> String {
    format!("unknown argument '{name}' — expected {}", known.join(" | "))
}

/// An option's value that is no string, number or boolean.
pub(crate) fn argument_not_scalar(name: &str) -> String {
    format!("argument '{name}' must be a string, a number or a boolean")
}

/// Query words that are neither a string nor a list of them.
pub(crate) fn argument_not_words(name: &str) -> String {
    format!("argument '{name}' must be a string or a list of strings")
}

/// A switch that is not a boolean.
pub(crate) fn argument_not_boolean(name: &str) -> String {
    format!("argument '{name}' must be true or false")
}

// decision (adopt, accept, reject, supersede, abrogate) and its ledger: in their own file.
mod decisions;
pub(crate) use decisions::*;
mod records;
pub(crate) use crate::messages::records::*;

// view: in its own file.
mod view;
pub(crate) use crate::messages::view::*;

// lint

/// `lint --ignore` naming no check.
pub(crate) fn unknown_lint_check(name: &str, checks: &[&str]) -> String {
    format!(
        "--ignore: \"{name}\" is no lint check; the checks are {}",
        checks.join(", ")
    )
}

/// The config's `lint.ignore` naming no check: left out, the others apply.
pub(crate) fn unknown_ignored_check(config: &str, name: &str) -> String {
    format!(
        "warning: {config}: lint.ignore names \"{name}\", which is no lint check; it is left out"
    )
}

// git setup, and doctor's checks after a merge

/// No `git` program on `PATH`.
pub(crate) const GIT_MISSING: &str =
    "git is not installed or not on PATH; install git, then run `bmad-mem git setup` again";

/// A project that is not inside a git work tree (git's own words after the colon, if any).
pub(crate) fn not_a_work_tree(root: &Path, why: &str) -> String {
    let why = if why.is_empty() {
        String::new()
    } else {
        format!(" ({why})")
    };
    format!(
        "{} is not inside a git work tree{why}; run `git init` first, or pass -d <the project in a clone>",
        root.display()
    )
}

/// A git command that failed, with git's message.
pub(crate) fn git_failed(what: &str, why: &str) -> String {
    format!("`{what}` failed: {why}")
}

/// The running binary's path is not UTF-8, so it cannot be written into git's config.
pub(crate) fn exe_not_utf8(exe: &Path) -> String {
    format!(
        "the path of this bmad-mem ({}) is not UTF-8 and cannot be written into git's config; install bmad-mem on PATH and run it as `bmad-mem git setup`",
        exe.display()
    )
}

/// The running binary could not be found.
pub(crate) const EXE_UNKNOWN: &str = "cannot tell where this bmad-mem binary is, so it cannot be named as git's merge driver; install bmad-mem on PATH and run it as `bmad-mem git setup`";

/// The command that sets the clone up, for `init` and `doctor`.
pub(crate) const GIT_SETUP_COMMAND: &str = "bmad-mem git setup";

/// `init`'s line in a git work tree whose clone has no merge driver yet.
pub(crate) const INIT_OFFERS_GIT_SETUP: &str = "  git     run `bmad-mem git setup` so that merges of the memory lose nothing and conflict only on real conflicts";

/// `doctor`: `.gitattributes` names the driver, this clone does not define it.
pub(crate) fn driver_not_configured(drivers: &[&str]) -> String {
    format!(
        "names the merge driver(s) {}, but this clone's git config does not define them, so git merges those files as plain text and conflicts on every concurrent append; `{GIT_SETUP_COMMAND}` sets them up",
        drivers.join(", ")
    )
}

/// `doctor`: `.gitattributes` names the memory's merge drivers but lacks some of the lines
/// `git setup` writes now.
pub(crate) fn driver_lines_missing(lines: &[String]) -> String {
    format!(
        "names the memory's merge drivers but not for every file they merge, so git merges the others as plain text and conflicts on concurrent changes; missing: {}; `{GIT_SETUP_COMMAND}` adds them",
        lines.join(", ")
    )
}

/// `doctor`: the clone's driver command names a binary that is no longer there.
pub(crate) fn driver_gone(bin: &str) -> String {
    format!(
        "this clone's git config runs the merge driver as {bin}, which is not there any more, so git cannot merge the memory and every merge of it conflicts; `{GIT_SETUP_COMMAND}` names this binary instead"
    )
}

// the git hooks that rebuild the views: in their own file.
mod githooks;
pub(crate) use crate::messages::githooks::*;

/// `doctor`: lines of a merge conflict left in a memory file.
pub(crate) fn conflict_markers(lines: &[usize]) -> String {
    let shown: Vec<String> = lines.iter().take(10).map(ToString::to_string).collect();
    let more = if lines.len() > 10 {
        format!(" and {} more", lines.len() - 10)
    } else {
        String::new()
    };
    format!(
        "merge conflict markers at line(s) {}{more}: a merge was committed unresolved; keep the right version of each conflicting part and remove the markers",
        shown.join(", ")
    )
}

/// `doctor`: records of a registry that share an id.
pub(crate) fn duplicate_ids(rel: &str, exact: usize, divergent: &[(String, Vec<usize>)]) -> String {
    let mut parts = Vec::new();
    if exact > 0 {
        parts.push(format!(
            "{exact} exact duplicate line(s) (`bmad-mem doctor --dedupe {rel}` removes them, keeping the first)"
        ));
    }
    if !divergent.is_empty() {
        let named: Vec<String> = divergent
            .iter()
            .take(5)
            .map(|(id, lines)| {
                let lines: Vec<String> = lines.iter().map(ToString::to_string).collect();
                format!("{id} (lines {})", lines.join(", "))
            })
            .collect();
        let more = if divergent.len() > 5 {
            format!(" and {} more", divergent.len() - 5)
        } else {
            String::new()
        };
        parts.push(format!(
            "{} id(s) with divergent versions, which a person must reconcile: {}{more}",
            divergent.len(),
            named.join(", ")
        ));
    }
    parts.join("; ")
}

/// `doctor`, information only: records whose timestamps go back in time.
pub(crate) fn out_of_order(count: usize, first_line: usize) -> String {
    format!(
        "{count} record(s) older than a record before them (first at line {first_line}); information only: a merge interleaves two clones' records, and no reader depends on their order"
    )
}

/// `--dedupe` on a file that is not a registry.
pub(crate) fn dedupe_takes(registries: &[&str]) -> String {
    format!("--dedupe takes one of {}", registries.join(", "))
}

/// `--dedupe` with no line repeated: nothing to do (exit 0).
pub(crate) fn no_duplicates(rel: &str) -> String {
    format!("{rel} has no exact duplicate line; nothing to remove.")
}

/// `--dedupe` refusing divergent versions of one id.
pub(crate) fn divergent_duplicates(rel: &str, divergent: &[(String, Vec<usize>)]) -> String {
    let named: Vec<String> = divergent
        .iter()
        .take(5)
        .map(|(id, lines)| {
            let lines: Vec<String> = lines.iter().map(ToString::to_string).collect();
            format!("{id} (lines {})", lines.join(", "))
        })
        .collect();
    let more = if divergent.len() > 5 {
        format!(" and {} more", divergent.len() - 5)
    } else {
        String::new()
    };
    format!(
        "{rel} holds different versions of the same record: {}{more}; keep the right version of each by hand, then run `bmad-mem doctor --dedupe {rel}` again; nothing was changed.",
        named.join(", ")
    )
}

/// `--dedupe` on a file holding conflict markers.
pub(crate) fn dedupe_conflicted(rel: &str) -> String {
    format!(
        "{rel} still holds merge conflict markers; resolve the conflict first, then run `bmad-mem doctor --dedupe {rel}` again; nothing was changed."
    )
}

// The command line itself.

/// `completions` and `man` print from the command-line definition, not from a project.
pub(crate) const PRINTED_FROM_THE_DEFINITION: &str =
    "completions and man print from the command line, not as an action";

/// `bmad-mem man <action>` naming no action.
/// What `bmad-mem` alone prints after its error line (human form only): how to start.
pub(crate) const SHORT_USAGE: &str = "Usage: bmad-mem [-d <path>] [--json] <ACTION> [OPTIONS]
  bmad-mem init                 create the project memory in .agents/memory/
  bmad-mem recall <words>...    what the memory knows about these words
  bmad-mem --help               every action; bmad-mem help <action> explains one";

pub(crate) fn no_manual_page(name: &str, expected: &str) -> String {
    format!("no manual page for '{name}' — expected {expected}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decision texts no command-line test reaches, byte for byte, through each branch.
    #[test]
    fn decision_texts_are_pinned() {
        assert_eq!(
            ledger_changed(".bmad/memory/decisions.ndjson"),
            ".bmad/memory/decisions.ndjson changed unexpectedly; its last records may announce a change that was not made"
        );
        assert_eq!(
            bad_heading("--by", 200),
            "--by must be a non-empty heading of at most 200 characters"
        );
        assert_eq!(
            no_status_line("A"),
            "\"A\" has no status line to flip; add \"**Status:** active\" to it and adopt it first"
        );
        assert_eq!(
            ledger_ahead(
                "A",
                "superseded",
                Some("B"),
                "docs/decisions.md",
                &rerun("supersede", "A", Some("B"))
            ),
            "the ledger says \"A\" is superseded by \"B\" already, while docs/decisions.md does not; `bmad-mem decision supersede \"A\" --successor \"B\"` completes that change"
        );
        assert_eq!(
            ledger_ahead(
                "A",
                "abrogated",
                None,
                "docs/decisions.md",
                &rerun("abrogate", "A", None)
            ),
            "the ledger says \"A\" is abrogated already, while docs/decisions.md does not; `bmad-mem decision abrogate \"A\" --reason <text>` completes that change"
        );
        assert_eq!(
            rerun("accept", "A", None),
            "`bmad-mem decision accept \"A\"`"
        );
        assert_eq!(rerun("adopt", "A", None), "`bmad-mem lint`");
        assert_eq!(
            no_decision("X", &["a", "b"], &["Y", "Z", "W"]),
            "no decision is headed \"X\" in a or b; did you mean \"Y\", \"Z\" or \"W\"?"
        );
        assert_eq!(
            ledger_broken("A", "f:3", 7, "p"),
            "the ledger's records of \"A\" (f:3) disagree at line 7: p; resolve that first (docs/DECISIONS.md)"
        );
        assert_eq!(
            successor_ended("B", "superseded", Some("C")),
            "the successor \"B\" is superseded by \"C\" in the ledger; a decision can only be superseded by one in force"
        );
        assert_eq!(
            successor_not_active("B", "proposed"),
            "the successor \"B\" is not active (proposed); a decision can only be superseded by one in force"
        );
        assert_eq!(
            not_active("A", "superseded", None),
            "\"A\" is not active (superseded); only an active decision can be superseded or abrogated"
        );
        assert_eq!(
            status_not_read_back("superseded by x"),
            "\"superseded by x\" would not read back as the status written on that line; rename the successor"
        );
        assert_eq!(
            succession_cycle(
                "A",
                "B",
                &["\"B\" (f:1)".to_owned(), "\"A\" (f:3)".to_owned()]
            ),
            "superseding \"A\" by \"B\" would make a cycle: \"B\" (f:1) → \"A\" (f:3)"
        );
        assert_eq!(
            settings_not_rendered("boom"),
            "cannot render the settings: boom"
        );
    }
}
