//! Accepted-outcome receipts: the strict store reader, the scope rules, the memory-section
//! binding and each receipt's status (docs §8, §9).
//!
//! A receipt binds the exact text of one `###` section to a Nexus task that was independently
//! verified and accepted. It proves that binding, not that the lesson caused the success
//! (`lessonCausality: unmeasured`). Every use re-checks it against today's files: the section
//! must still hash the same, and Nexus must still resolve the same accepted source.
//!
//! The store is read strictly: a torn, edited, reordered or duplicated record is an error, never
//! repaired or reset. [`Inspector`] caches section files and Nexus resolutions for one
//! invocation, so 1,000 receipts over one run hash the run's files once.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::js::json::{self, Object, Value, sha256_hex};
use crate::js::text::{sort_utf16, trim, utf16_len};
use crate::messages;
use crate::nexus::Nexus;
use crate::store::layout::{MAX_RECEIPTS, MAX_SCOPE, OUTCOMES};
use crate::store::paths::read_registry;
use crate::store::sections::sections;

/// docs §9.1: every receipt of the store, in file order, each checked.
///
/// # Errors
/// The §9.1 messages; a line that is not JSON names the problem.
pub fn read_store(root: &Path) -> Result<Vec<Object>> {
    let Some(text) = read_registry(root, OUTCOMES, true)? else {
        return Ok(Vec::new());
    };
    parse_store(&text)
}

/// The strict reader of [`read_store`] over the text of a receipt store (the merge driver checks
/// a merged store with it before writing it).
///
/// # Errors
/// As [`read_store`], without the file's own errors.
pub fn parse_store(text: &str) -> Result<Vec<Object>> {
    if !text.is_empty() && !text.ends_with('\n') {
        return Err(Error::refused(messages::OUTCOME_INCOMPLETE_RECORD));
    }
    let lines: Vec<(usize, &str)> = text
        .split('\n')
        .enumerate()
        .filter(|(_, line)| !line.is_empty())
        .collect();
    let mut records = Vec::with_capacity(lines.len());
    for (index, parsed) in parse_records(&lines) {
        let record =
            parsed.map_err(|e| Error::refused(messages::outcome_line_not_json(index + 1, e)))?;
        records.push(record);
    }
    if records.len() > MAX_RECEIPTS {
        return Err(Error::refused(messages::outcome_store_too_long(
            MAX_RECEIPTS,
        )));
    }
    let mut receipts: Vec<Object> = Vec::with_capacity(records.len());
    let mut ids: HashSet<String> = HashSet::new();
    let mut attempts: HashSet<(String, String, String)> = HashSet::new();
    for (record, digest) in records {
        let (Value::Object(receipt), Some(digest)) = (record, digest) else {
            return Err(Error::refused(messages::RECEIPT_INTEGRITY));
        };
        let id = receipt
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let intact = receipt.get("schemaVersion") == Some(&Value::Number(1.0))
            && receipt.get("kind").and_then(Value::as_str) == Some("accepted-outcome")
            && receipt.get("id").is_some_and(|v| v.as_str().is_some())
            && digest == id;
        if !intact || ids.contains(&id) {
            return Err(Error::refused(messages::RECEIPT_INTEGRITY));
        }
        for key in ["supersedes", "contradicts"] {
            let earlier = receipt
                .get(key)
                .and_then(Value::as_array)
                .is_some_and(|list| {
                    list.iter()
                        .all(|v| v.as_str().is_some_and(|r| ids.contains(r)))
                });
            if !earlier {
                return Err(Error::refused(messages::RELATIONS_NOT_EARLIER));
            }
        }
        let has_attempt = receipt
            .get("source")
            .and_then(Value::as_object)
            .and_then(|s| s.get("attemptId"))
            .is_some_and(Value::is_truthy);
        if !has_attempt || !attempts.insert(attempt_identity(&receipt)) {
            return Err(Error::refused(messages::ATTEMPT_IDENTITY));
        }
        ids.insert(id);
        receipts.push(receipt);
    }
    Ok(receipts)
}

/// A store line parsed, with the SHA-256 of its body when it is an object.
type ParsedRecord = std::result::Result<(Value, Option<String>), json::ParseError>;

/// Each line (with its index) parsed, and for an object the SHA-256 of its body (the object
/// without `id`). Lines are independent, so a large store is parsed and hashed on two cores.
fn parse_records(lines: &[(usize, &str)]) -> Vec<(usize, ParsedRecord)> {
    let parse = |lines: &[(usize, &str)]| -> Vec<_> {
        lines
            .iter()
            .map(|&(index, line)| {
                let parsed = json::parse(line).map(|value| {
                    let digest = value.as_object().map(|o| o.sha256_without("id"));
                    (value, digest)
                });
                (index, parsed)
            })
            .collect()
    };
    let is_parallel = lines.len() >= PARALLEL_FROM
        && std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2);
    if !is_parallel {
        return parse(lines);
    }
    let (first, second) = lines.split_at(lines.len() / 2);
    std::thread::scope(|scope| {
        let other = scope.spawn(|| parse(second));
        let mut parsed = parse(first);
        parsed.extend(other.join().expect("a receipt parser panicked"));
        parsed
    })
}

/// Store size (in records) from which [`read_store`] uses a second thread.
const PARALLEL_FROM: usize = 64;

/// `(runId, taskId, attemptId)` of a receipt, each as `Array.prototype.join` writes it (a
/// missing or null field is empty).
#[must_use]
pub fn attempt_identity(receipt: &Object) -> (String, String, String) {
    let source = receipt.get("source").and_then(Value::as_object);
    let field = |key: &str| match source.and_then(|s| s.get(key)) {
        None | Some(Value::Null) => String::new(),
        Some(v) => v.text(),
    };
    (field("runId"), field("taskId"), field("attemptId"))
}

/// The strings of a receipt's array field (`scope`, `supersedes`, `contradicts`).
#[must_use]
pub fn strings(receipt: &Object, key: &str) -> Vec<String> {
    receipt
        .get(key)
        .and_then(Value::as_array)
        .map(|list| list.iter().map(Value::text).collect())
        .unwrap_or_default()
}

/// A normalized relative scope path (docs §8 step 5): non-empty, no `\`, not starting with
/// `/`, no `:`, no empty, `.` or `..` segment.
#[must_use]
pub fn is_normalized_scope_path(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\\')
        && !path.starts_with('/')
        && !path.contains(':')
        && path
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
}

/// docs §8 step 5: 1–30 normalized paths, de-duplicated and sorted.
///
/// # Errors
/// `An explicit non-empty project scope is required.` or
/// `Outcome scope must be a normalized relative path.`
pub fn validate_scope(paths: &[Value]) -> Result<Vec<String>> {
    if paths.is_empty() || paths.len() > MAX_SCOPE {
        return Err(Error::refused(messages::SCOPE_REQUIRED));
    }
    let mut out = Vec::with_capacity(paths.len());
    for path in paths {
        match path.as_str() {
            Some(p) if is_normalized_scope_path(p) => out.push(p.to_owned()),
            _ => return Err(Error::refused(messages::SCOPE_NOT_NORMALIZED)),
        }
    }
    sort_utf16(&mut out);
    out.dedup();
    Ok(out)
}

/// `--context-scope` (docs §5): split on `,`, each part trimmed, empties kept (and refused).
///
/// # Errors
/// As [`validate_scope`]; absent or empty text is `An explicit non-empty project scope is
/// required.`
pub fn parse_context_scope(text: Option<&str>) -> Result<Vec<String>> {
    let text = text.unwrap_or_default();
    if text.is_empty() {
        return Err(Error::refused(messages::SCOPE_REQUIRED));
    }
    let parts: Vec<Value> = text.split(',').map(|p| Value::from(trim(p))).collect();
    validate_scope(&parts)
}

/// `inner` equals `outer` or lies below it.
#[must_use]
pub fn is_within(inner: &str, outer: &str) -> bool {
    inner == outer
        || (inner.len() > outer.len()
            && inner.starts_with(outer)
            && inner.as_bytes()[outer.len()] == b'/')
}

/// Two path lists overlap when some pair is equal or one lies below the other.
#[must_use]
pub fn overlaps(a: &[String], b: &[String]) -> bool {
    a.iter()
        .any(|x| b.iter().any(|y| is_within(x, y) || is_within(y, x)))
}

/// The memory files a receipt may name.
#[must_use]
pub fn is_memory_file(file: &str) -> bool {
    let Some((dir, name)) = file.rsplit_once('/') else {
        return false;
    };
    matches!(dir, ".agents/memory" | ".bmad/memory")
        && matches!(name, "decisions.md" | "lessons.md" | "patterns.md")
}

/// Validates a heading (docs §8 step 4).
///
/// # Errors
/// `Memory heading must be non-empty bounded text.`
pub fn validate_heading(heading: Option<&Value>) -> Result<&str> {
    match heading.and_then(Value::as_str) {
        Some(h) if !trim(h).is_empty() && utf16_len(h) <= 300 => Ok(h),
        _ => Err(Error::refused(messages::HEADING_TEXT)),
    }
}

/// Non-empty (after trim) text of at most `max` UTF-16 units.
#[must_use]
pub fn bounded_text(value: Option<&Value>, max: usize) -> Option<&str> {
    value
        .and_then(Value::as_str)
        .filter(|s| !trim(s).is_empty() && utf16_len(s) <= max)
}

/// Reads and resolves memory sections: each file is read and cut once per invocation, and each
/// section hashed at most once, however many receipts name it.
#[derive(Debug, Default)]
pub struct SectionReader {
    files: HashMap<String, std::result::Result<FileSections, String>>,
}

/// One memory file, cut once: for each heading, how many sections carry it and where the first
/// one's body lies; the SHA-256 of a section's trimmed text is computed when first asked for.
#[derive(Debug)]
struct FileSections {
    text: String,
    /// heading → (sections with it, the first one's body as a byte range, its extra `\n`)
    headings: HashMap<String, (usize, std::ops::Range<usize>, bool)>,
    digests: HashMap<String, String>,
}

impl FileSections {
    fn new(text: String) -> Self {
        let mut headings: HashMap<String, (usize, std::ops::Range<usize>, bool)> = HashMap::new();
        let base = text.as_ptr() as usize;
        for section in sections(&text) {
            let [_, _, body, extra] = section.parts();
            let start = body.as_ptr() as usize - base;
            headings
                .entry(section.heading.to_owned())
                .and_modify(|(count, _, _)| *count += 1)
                .or_insert((1, start..start + body.len(), !extra.is_empty()));
        }
        Self {
            text,
            headings,
            digests: HashMap::new(),
        }
    }

    /// The digest of the one section named `heading`, or `None` when there is not exactly one.
    fn digest(&mut self, heading: &str) -> Option<String> {
        let (count, body, extra) = self.headings.get(heading)?;
        if *count != 1 {
            return None;
        }
        if let Some(digest) = self.digests.get(heading) {
            return Some(digest.clone());
        }
        let full = format!(
            "{heading}\n{}{}",
            &self.text[body.clone()],
            if *extra { "\n" } else { "" }
        );
        let digest = sha256_hex(trim(&full).as_bytes());
        self.digests.insert(heading.to_owned(), digest.clone());
        Some(digest)
    }
}

impl SectionReader {
    /// docs §8 step 4: `{"file","heading","textSha256"}` of the one section named `heading` in
    /// the memory file `file`.
    ///
    /// # Errors
    /// The step's messages, or the confined reader's.
    pub fn resolve(
        &mut self,
        root: &Path,
        file: Option<&Value>,
        heading: Option<&Value>,
    ) -> Result<Object> {
        let file = file
            .and_then(Value::as_str)
            .filter(|f| is_memory_file(f))
            .ok_or_else(|| Error::refused(messages::MEMORY_SOURCE_KIND))?;
        let heading = validate_heading(heading)?;
        let cut = self
            .files
            .entry(file.to_owned())
            .or_insert_with(|| {
                read_registry(root, file, false)
                    .map(|text| FileSections::new(text.unwrap_or_default()))
                    .map_err(|e| e.to_string())
            })
            .as_mut()
            .map_err(|e| Error::refused(e.clone()))?;
        let digest = cut
            .digest(heading)
            .ok_or_else(|| Error::refused(messages::HEADING_NOT_ONE))?;
        Ok(Object::new()
            .with("file", file)
            .with("heading", heading)
            .with("textSha256", digest))
    }
}

/// Why a receipt does or does not count today (docs §9.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    AcceptedCurrent,
    Superseded,
    Contradictory,
    OutsideQueryScope,
    StaleMemorySection,
    StaleOutcomeSource,
    Unavailable(String),
}

impl Status {
    #[must_use]
    pub fn is_eligible(&self) -> bool {
        *self == Status::AcceptedCurrent
    }

    /// `null` when eligible, else the reason text.
    #[must_use]
    pub fn reason(&self) -> Option<String> {
        match self {
            Status::AcceptedCurrent => None,
            Status::Superseded => Some("superseded".to_owned()),
            Status::Contradictory => Some("contradictory".to_owned()),
            Status::OutsideQueryScope => Some("outside-query-scope".to_owned()),
            Status::StaleMemorySection => Some("stale-memory-section".to_owned()),
            Status::StaleOutcomeSource => Some("stale-outcome-source".to_owned()),
            Status::Unavailable(message) => {
                Some(format!("unavailable-or-ineligible-source: {message}"))
            }
        }
    }
}

/// Re-checks receipts against today's files, caching within one invocation.
#[derive(Debug)]
pub struct Inspector {
    root: PathBuf,
    nexus: Nexus,
    sections: SectionReader,
    sources: HashMap<(String, String), std::result::Result<String, String>>,
}

impl Inspector {
    #[must_use]
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            nexus: Nexus::new(root),
            sections: SectionReader::default(),
            sources: HashMap::new(),
        }
    }

    /// The status of every receipt, in store order (docs §9.2), with an optional context scope.
    pub fn statuses(&mut self, receipts: &[Object], context: Option<&[String]>) -> Vec<Status> {
        let ids: Vec<String> = receipts
            .iter()
            .map(|r| r.get("id").map(Value::text).unwrap_or_default())
            .collect();
        let superseded: HashSet<String> = receipts
            .iter()
            .flat_map(|r| strings(r, "supersedes"))
            .collect();
        let mut contradictory: HashSet<&str> = HashSet::new();
        for (receipt, id) in receipts.iter().zip(&ids) {
            if superseded.contains(id) {
                continue;
            }
            for other in strings(receipt, "contradicts") {
                if !superseded.contains(&other)
                    && let Some(other) = ids.iter().find(|i| **i == other)
                {
                    contradictory.insert(id);
                    contradictory.insert(other);
                }
            }
        }
        let memory_key = |r: &Object| {
            let memory = r.get("memory").and_then(Value::as_object);
            let field = |k: &str| {
                memory
                    .and_then(|m| m.get(k))
                    .map(Value::text)
                    .unwrap_or_default()
            };
            (field("file"), field("heading"))
        };
        let contradicted_sections: HashSet<(String, String)> = receipts
            .iter()
            .zip(&ids)
            .filter(|(_, id)| contradictory.contains(id.as_str()))
            .map(|(r, _)| memory_key(r))
            .collect();
        // Steps 1–4 first; `None` = the section is current, Nexus decides (step 5).
        let early: Vec<Option<Status>> = receipts
            .iter()
            .zip(&ids)
            .map(|(receipt, id)| {
                if superseded.contains(id) {
                    Some(Status::Superseded)
                } else if contradicted_sections.contains(&memory_key(receipt)) {
                    Some(Status::Contradictory)
                } else if context.is_some_and(|c| !overlaps(&strings(receipt, "scope"), c)) {
                    Some(Status::OutsideQueryScope)
                } else {
                    self.check_section(receipt)
                }
            })
            .collect();
        // Every run step 5 will read, loaded at once (on several cores when there are several).
        let runs: Vec<String> = receipts
            .iter()
            .zip(&early)
            .filter(|(_, status)| status.is_none())
            .map(|(receipt, _)| attempt_identity(receipt).0)
            .collect();
        self.nexus.prefetch(runs.iter().map(String::as_str));
        receipts
            .iter()
            .zip(early)
            .map(|(receipt, status)| status.unwrap_or_else(|| self.check_source(receipt)))
            .collect()
    }

    /// Step 4 of docs §9.2 for one receipt: `None` when its section is current.
    fn check_section(&mut self, receipt: &Object) -> Option<Status> {
        let memory = receipt.get("memory").and_then(Value::as_object);
        let resolved = self.sections.resolve(
            &self.root,
            memory.and_then(|m| m.get("file")),
            memory.and_then(|m| m.get("heading")),
        );
        match resolved {
            Err(e) => Some(Status::Unavailable(e.to_string())),
            Ok(current) => {
                let stored = memory.map(|m| Value::Object(m.clone()).compact());
                (stored.as_deref() != Some(Value::Object(current).compact().as_str()))
                    .then_some(Status::StaleMemorySection)
            }
        }
    }

    /// Step 5 of docs §9.2 for one receipt whose section is current.
    fn check_source(&mut self, receipt: &Object) -> Status {
        let (run, task, _) = attempt_identity(receipt);
        let nexus = &mut self.nexus;
        let current = self
            .sources
            .entry((run.clone(), task.clone()))
            .or_insert_with(|| {
                nexus
                    .accepted_source_text(&run, &task)
                    .map_err(|e| e.to_string())
            });
        match current {
            Err(message) => Status::Unavailable(message.clone()),
            Ok(current) => {
                let stored = receipt.get("source").map(Value::compact);
                if stored.as_deref() == Some(current.as_str()) {
                    Status::AcceptedCurrent
                } else {
                    Status::StaleOutcomeSource
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{SCOPE_NOT_NORMALIZED, SCOPE_REQUIRED};

    #[test]
    fn the_first_bad_line_is_reported_however_the_store_is_split() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join(OUTCOMES);
        std::fs::create_dir_all(store.parent().unwrap()).unwrap();
        for (lines, bad, expected) in [
            (10, vec![3, 7], 3),
            (
                PARALLEL_FROM * 3,
                vec![PARALLEL_FROM * 2, PARALLEL_FROM],
                PARALLEL_FROM,
            ),
            (
                PARALLEL_FROM * 3,
                vec![PARALLEL_FROM * 3 - 1],
                PARALLEL_FROM * 3 - 1,
            ),
        ] {
            let text: String = (1..=lines)
                .map(|n| if bad.contains(&n) { "{\n" } else { "{}\n" })
                .collect();
            std::fs::write(&store, text).unwrap();
            assert_eq!(
                read_store(dir.path()).unwrap_err().to_string(),
                format!(
                    "Outcome store line {expected} is not valid JSON: invalid JSON: \
                     expected a string key at byte 1"
                ),
            );
        }
    }

    #[test]
    fn scope_paths() {
        for ok in ["src", "src/auth", "a.b/c", "src/auth.rs"] {
            assert!(is_normalized_scope_path(ok), "{ok}");
        }
        for bad in [
            "", "/src", "src/", "a//b", "./a", "a/../b", "a\\b", "c:/x", "..",
        ] {
            assert!(!is_normalized_scope_path(bad), "{bad}");
        }
        assert!(is_within("src/auth/x", "src/auth"));
        assert!(is_within("src", "src"));
        assert!(!is_within("src/authz", "src/auth"));
        assert!(overlaps(&["src".into()], &["src/auth".into()]));
        assert!(!overlaps(&["docs".into()], &["src".into()]));
    }

    #[test]
    fn validate_scope_sorts_and_dedups() {
        let paths: Vec<Value> = ["b", "a", "b", "Z", "é"]
            .iter()
            .map(|s| Value::from(*s))
            .collect();
        assert_eq!(validate_scope(&paths).unwrap(), ["Z", "a", "b", "é"]);
        assert_eq!(validate_scope(&[]).unwrap_err().to_string(), SCOPE_REQUIRED);
        let many: Vec<Value> = (0..31).map(|i| Value::from(format!("p{i}"))).collect();
        assert_eq!(
            validate_scope(&many).unwrap_err().to_string(),
            SCOPE_REQUIRED
        );
        assert_eq!(
            validate_scope(&[Value::Number(1.0)])
                .unwrap_err()
                .to_string(),
            SCOPE_NOT_NORMALIZED
        );
    }

    #[test]
    fn context_scope_keeps_empty_parts() {
        assert_eq!(
            parse_context_scope(Some(" src , docs")).unwrap(),
            ["docs", "src"]
        );
        assert_eq!(
            parse_context_scope(None).unwrap_err().to_string(),
            SCOPE_REQUIRED
        );
        assert_eq!(
            parse_context_scope(Some("")).unwrap_err().to_string(),
            SCOPE_REQUIRED
        );
        assert_eq!(
            parse_context_scope(Some("src,,docs"))
                .unwrap_err()
                .to_string(),
            SCOPE_NOT_NORMALIZED
        );
    }

    #[test]
    fn memory_files() {
        assert!(is_memory_file(".agents/memory/lessons.md"));
        assert!(is_memory_file(".bmad/memory/patterns.md"));
        assert!(!is_memory_file(".agents/memory/notes.md"));
        assert!(!is_memory_file("x/.agents/memory/lessons.md"));
        assert!(!is_memory_file(".agents/memory/lessons.md/"));
    }
}
