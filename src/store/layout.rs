//! Where everything lives: every file and folder name bmad-mem reads or writes, relative to the
//! project root (or to the home folder where said), and the caps on what it reads and keeps —
//! in one place, so that a reader sees the whole layout at once (docs §1). Nothing here does
//! I/O.

/// The registries' folder: journal, scores, promotions, receipts, the writer lock.
pub const MEMORY_DIR: &str = ".bmad/memory";
/// The writer lock (docs §3.1).
pub const LOCK_FILE: &str = ".bmad/memory/writer.lock";
/// The journal: one event a line, append-only.
pub const JOURNAL: &str = ".bmad/memory/journal.ndjson";
/// The pattern scores document.
pub const SCORES: &str = ".bmad/memory/pattern-scores.json";
/// Pattern promotions: one a line, append-only.
pub const PROMOTIONS: &str = ".bmad/memory/promotions.ndjson";
/// The receipt store.
pub const OUTCOMES: &str = ".bmad/memory/outcomes.ndjson";
/// The decision files, in the order they are searched.
pub const DECISION_FILES: [&str; 2] = [".bmad/memory/decisions.md", ".agents/memory/decisions.md"];
/// The decision ledger: one event in the life of a decision a line, append-only.
pub const DECISION_LEDGER: &str = ".bmad/memory/decisions.ndjson";
/// Where archived journal events and promotions go.
pub const ARCHIVE_DIR: &str = ".bmad/memory/archive";

/// bmad-mem's own registries, beside the memory folder: `.bmad/memory/` holds exactly the files
/// bmad-plus writes, so that the two tools see one memory.
pub const RECORDS_DIR: &str = ".bmad/records";
/// The reinforcement records: one line per `reinforce`, append-only (docs/FORMAT.md).
pub const REINFORCEMENTS: &str = ".bmad/records/reinforcements.ndjson";
/// Where archived reinforcement records go.
pub const RECORDS_ARCHIVE_DIR: &str = ".bmad/records/archive";

/// Proposed entries waiting for a person, and the records of those decided.
pub const CANDIDATES_DIR: &str = ".bmad/memory/candidates";
/// Topics a person refused for good.
pub const REFUSED_FILE: &str = ".bmad/memory/refused.md";
/// The generated view of the pending candidates.
pub const CANDIDATES_VIEW: &str = ".bmad/memory/CANDIDATES.md";
/// The generated view of every entry of the note files.
pub const INDEX_VIEW: &str = ".bmad/memory/INDEX.md";
/// The project's settings, written by hand (`store::config`).
pub const CONFIG_FILE: &str = ".bmad/memory/config.json";
/// Derived files of this clone, never committed (`.bmad/cache/` is gitignored).
pub const CACHE_DIR: &str = ".bmad/cache";
/// The page `view` writes when no `--out` is given.
pub const VIEW_PAGE: &str = ".bmad/cache/view.html";
/// The sessions `hooks remind` has reminded, and when.
pub const REMINDED_FILE: &str = ".bmad/cache/reminded.json";
/// Claude Code's per-agent memories, which `import` reads.
pub const CLAUDE_AGENT_MEMORY: &str = ".claude/agent-memory";

/// The embedding index of `recall --ranking hybrid` (`store::vectors`).
pub const EMBEDDINGS: &str = ".bmad/cache/embeddings.bin";
/// The largest embedding index read: 256 MiB (a full store's is about 50 MiB).
pub const INDEX_CAP: u64 = 256 * 1024 * 1024;

/// The Memory pack's project memory folder.
pub const PACK_DIR: &str = ".agents/memory";
/// Session handoffs.
pub const SESSIONS_DIR: &str = ".agents/memory/sessions";
/// The living state of the project, in [`PACK_DIR`].
pub const CONTEXT_FILE: &str = "context.md";
/// The brain link.
pub const LINK_FILE: &str = ".agents/memory/.brain-link";

/// The note file of decisions, the one note file whose entries have a status.
pub const DECISIONS_NOTE: &str = "decisions.md";
/// The note files, in the order recall reads them.
pub const NOTE_FILES: [&str; 3] = [DECISIONS_NOTE, "lessons.md", "patterns.md"];
/// The folders holding note files, in the order recall reads them.
pub const NOTE_DIRS: [&str; 2] = [MEMORY_DIR, PACK_DIR];

/// The BMAD+ global brain, relative to the home folder.
pub const GLOBAL_BRAIN: &str = ".bmad-plus/brain";
/// Claude Code's memory, relative to the home folder.
pub const CLAUDE_MEMORY: &str = ".claude/memory";
/// A portfolio brain's folder name, looked for in the project and its ancestors.
pub const PORTFOLIO_DIR: &str = "_brain";
/// The global brain's user profile.
pub const IDENTITY: &str = "identity.yaml";
/// The global brain's project index folder.
pub const PROJECTS: &str = "projects";

/// The largest registry file read (journal, scores, promotions, receipts, reinforcement
/// records): 2 MiB.
pub const REGISTRY_CAP: u64 = 2 * 1024 * 1024;
/// The largest file the loose reader reads (note files, handoffs, context): 64 MiB.
pub const LOOSE_CAP: u64 = 64 * 1024 * 1024;
/// Most receipts the receipt store holds.
pub const MAX_RECEIPTS: usize = 1000;
/// Most paths in a receipt's scope.
pub const MAX_SCOPE: usize = 30;
/// How many of the newest records `archive` keeps by default.
pub const DEFAULT_KEEP: usize = 1000;

/// The project's access boundaries, read by `guard` for every agent.
pub const BOUNDARIES_FILE: &str = ".agents/memory/access-boundaries.md";
/// Where BMAD agent sidecars live: `<SIDECARS_DIR>/<agent><SIDECAR_SUFFIX>/`.
pub const SIDECARS_DIR: &str = "_bmad/memory";
/// The end of a sidecar folder's name, after the agent's name.
pub const SIDECAR_SUFFIX: &str = "-sidecar";
/// A sidecar's entry point, read first by `brief --agent`.
pub const SIDECAR_INDEX: &str = "index.md";
/// A sidecar's (and the project's) access boundaries file name.
pub const SIDECAR_BOUNDARIES: &str = "access-boundaries.md";
/// A sidecar's learned patterns.
pub const SIDECAR_PATTERNS: &str = "patterns.md";
/// A sidecar's timeline.
pub const SIDECAR_CHRONOLOGY: &str = "chronology.md";
/// The largest tool-call payload a hook reads from standard input: 64 MiB (a file write carries
/// the whole file).
pub const HOOK_PAYLOAD_CAP: u64 = 64 * 1024 * 1024;

/// Claude Code's project settings, where `hooks install --agent claude-code` writes.
pub const CLAUDE_SETTINGS: &str = ".claude/settings.json";
/// Codex CLI's project hooks file.
pub const CODEX_HOOKS: &str = ".codex/hooks.json";
/// Claude Code's project MCP servers.
pub const CLAUDE_MCP: &str = ".mcp.json";
/// Codex CLI's project configuration (its `[mcp_servers]`).
pub const CODEX_CONFIG: &str = ".codex/config.toml";
/// Gemini CLI's project settings.
pub const GEMINI_SETTINGS: &str = ".gemini/settings.json";

/// `rel` (a file name) in the sidecar folder of `agent`, project-relative.
#[must_use]
pub fn sidecar_path(agent: &str, rel: &str) -> String {
    format!("{SIDECARS_DIR}/{agent}{SIDECAR_SUFFIX}/{rel}")
}

/// The project's git attributes file, where `git setup` names the merge drivers.
pub const GITATTRIBUTES: &str = ".gitattributes";
/// The project's git ignore file, where `git setup` keeps [`CACHE_DIR`] out of git and `init`
/// each clone's own files ([`IGNORED`]).
pub const GITIGNORE: &str = ".gitignore";
/// What each clone keeps to itself, as `.gitignore` patterns: the derived cache
/// ([`CACHE_DIR`]), the writer lock ([`LOCK_FILE`]) and the brain link ([`LINK_FILE`], a path on
/// one machine). Everything else under `.bmad/` and `.agents/` is the memory, and is committed.
pub const IGNORED: [&str; 3] = [
    ".bmad/cache/",
    ".bmad/memory/writer.lock",
    ".agents/memory/.brain-link",
];
/// The files the memory's merge driver merges record by record (`merge=bmad-mem`): the
/// append-only registries and the pattern scores.
pub const MERGED_REGISTRIES: [&str; 6] = [
    JOURNAL,
    PROMOTIONS,
    OUTCOMES,
    DECISION_LEDGER,
    SCORES,
    REINFORCEMENTS,
];
/// The generated views, which a merge keeps as they are and `doctor --rebuild-views` regenerates.
pub const MERGED_VIEWS: [&str; 2] = [INDEX_VIEW, CANDIDATES_VIEW];
/// The candidate files, as a `.gitattributes` pattern: `*` stands for one candidate's id.
pub const CANDIDATE_FILES: &str = ".bmad/memory/candidates/*.md";
/// The note files the memory's merge driver merges section by section (`merge=bmad-mem`): the
/// three note files of both note folders, the refused topics and the candidate files.
pub const MERGED_NOTES: [&str; 8] = [
    ".bmad/memory/decisions.md",
    ".bmad/memory/lessons.md",
    ".bmad/memory/patterns.md",
    ".agents/memory/decisions.md",
    ".agents/memory/lessons.md",
    ".agents/memory/patterns.md",
    REFUSED_FILE,
    CANDIDATE_FILES,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ignored_patterns_are_the_clones_own_files() {
        assert_eq!(
            IGNORED,
            [format!("{CACHE_DIR}/").as_str(), LOCK_FILE, LINK_FILE]
        );
    }
}
