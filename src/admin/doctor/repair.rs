//! `doctor`'s explicit repairs of a registry: a torn final line (`--repair-tail`), lines that
//! are not valid UTF-8 (`--repair-encoding`), exact duplicate records (`--dedupe`). Each writes
//! what it removes aside first, under the writer lock.

use crate::admin::doctor::lines::{NDJSON_REGISTRIES, Span, complete_len, doubles, is_marker};
use crate::admin::doctor::report::DoctorReport;
use std::fs::File;
use std::io::Write;
use std::path::Path;

use rustix::fs::OFlags;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::messages;
use crate::store::confined::{self, Target};
use crate::store::journal::{self, InvalidLine};
use crate::store::lock::WriterLock;

/// What a repair found to do in a registry: the registry, its bytes and what to move aside;
/// `None` when there is nothing to repair.
type Found<T> = Option<(Target, Vec<u8>, T)>;

pub(crate) fn repair_tail(ctx: &Context, rel: &str) -> Result<DoctorReport> {
    if !NDJSON_REGISTRIES.contains(&rel) {
        return Err(Error::refused(messages::repair_takes(
            "repair-tail",
            &NDJSON_REGISTRIES,
        )));
    }
    // Looked at before the lock, so that refusing — or finding nothing to do — creates nothing
    // (not even the memory folder), then again under it, where it counts.
    if torn_tail(ctx, rel)?.is_none() {
        return Ok(DoctorReport::nothing(rel, messages::no_torn_tail(rel)));
    }
    let lock = WriterLock::acquire(&ctx.root)?;
    let Some((registry, bytes, complete)) = torn_tail(ctx, rel)? else {
        return Ok(DoctorReport::nothing(rel, messages::no_torn_tail(rel)));
    };
    // The copy and the cut happen relative to the folder handle the registry was read through.
    let dir = registry.require_dir("cannot open")?;
    let torn = &bytes[complete..];
    // Opened now, through the same folder handle: the length checked is the length of the file
    // that is cut.
    let (registry_file, _) = dir.open_present(registry.name(), OFlags::WRONLY)?;
    // Only once the torn bytes are safe beside it is the registry cut back, and only if it is
    // still the length that was read: a writer that ignored the lock may have added to it, and
    // cutting at the old length would lose what it wrote.
    let suffix = format!(".torn-{}", ctx.now.file_stamp());
    let aside_rel = set_aside_then(
        &registry,
        rel,
        &suffix,
        torn,
        &registry_file,
        bytes.len(),
        || {
            registry_file
                .set_len(complete as u64)
                .and_then(|()| registry_file.sync_all())
                .map_err(|e| Error::io("cannot truncate", registry.path(), e))
        },
    )?;
    drop(lock);
    Ok(DoctorReport {
        repaired: Some((rel.to_owned(), aside_rel, torn.len())),
        ..DoctorReport::default()
    })
}

pub(crate) fn repair_encoding(ctx: &Context, rel: &str) -> Result<DoctorReport> {
    if !NDJSON_REGISTRIES.contains(&rel) {
        return Err(Error::refused(messages::repair_takes(
            "repair-encoding",
            &NDJSON_REGISTRIES,
        )));
    }
    // As for the tail: looked at before the lock, so that refusing creates nothing.
    if invalid_found(ctx, rel)?.is_none() {
        return Ok(DoctorReport::nothing(rel, messages::nothing_invalid(rel)));
    }
    let lock = WriterLock::acquire(&ctx.root)?;
    let Some((registry, bytes, invalid)) = invalid_found(ctx, rel)? else {
        return Ok(DoctorReport::nothing(rel, messages::nothing_invalid(rel)));
    };
    let spans = invalid.iter().map(|line| (line.start, line.end));
    let suffix = format!(".invalid-{}", ctx.now.file_stamp());
    let repaired = move_lines_aside(&registry, rel, &bytes, spans, &suffix)?;
    drop(lock);
    Ok(DoctorReport {
        repaired: Some(repaired),
        repaired_lines: Some(invalid.len()),
        ..DoctorReport::default()
    })
}

/// Moves the lines of `bytes` at `spans` (in order, not overlapping) into `<rel><suffix>`, then
/// rewrites the registry without them: only once the lines are safe beside it, from the bytes
/// read, and only if that is still all it holds. What was repaired, for the report.
fn move_lines_aside(
    registry: &Target,
    rel: &str,
    bytes: &[u8],
    spans: impl Iterator<Item = Span>,
    suffix: &str,
) -> Result<(String, String, usize)> {
    let dir = registry.require_dir("cannot open")?;
    let (registry_file, _) = dir.open_present(registry.name(), OFlags::RDONLY)?;
    let mut moved = Vec::new();
    let mut kept = Vec::with_capacity(bytes.len());
    let mut from = 0;
    for (start, end) in spans {
        kept.extend_from_slice(&bytes[from..start]);
        moved.extend_from_slice(&bytes[start..end]);
        from = end;
    }
    kept.extend_from_slice(&bytes[from..]);
    let aside_rel = set_aside_then(
        registry,
        rel,
        suffix,
        &moved,
        &registry_file,
        bytes.len(),
        || dir.replace(registry.name(), &kept),
    )?;
    Ok((rel.to_owned(), aside_rel, moved.len()))
}

/// `--dedupe`: moves the exact duplicate lines of a registry (the same bytes as an earlier line;
/// the first stays where it is) into `<file>.dupes-<timestamp>`, then rewrites the registry
/// without them, under the writer lock. Nothing to do (exit 0) when there is none; refused,
/// changing nothing, when the file still holds conflict markers, or when one id has different
/// versions (a person decides which is right).
pub(crate) fn dedupe(ctx: &Context, rel: &str) -> Result<DoctorReport> {
    if !NDJSON_REGISTRIES.contains(&rel) {
        return Err(Error::refused(messages::dedupe_takes(&NDJSON_REGISTRIES)));
    }
    // As for the other repairs: looked at before the lock, so that refusing creates nothing.
    if duplicates_found(ctx, rel)?.is_none() {
        return Ok(DoctorReport::nothing(rel, messages::no_duplicates(rel)));
    }
    let lock = WriterLock::acquire(&ctx.root)?;
    let Some((registry, bytes, exact)) = duplicates_found(ctx, rel)? else {
        return Ok(DoctorReport::nothing(rel, messages::no_duplicates(rel)));
    };
    let suffix = format!(".dupes-{}", ctx.now.file_stamp());
    let repaired = move_lines_aside(&registry, rel, &bytes, exact.iter().copied(), &suffix)?;
    drop(lock);
    Ok(DoctorReport {
        repaired: Some(repaired),
        repaired_lines: Some(exact.len()),
        deduped: true,
        ..DoctorReport::default()
    })
}

/// The registry, its bytes and the byte ranges of its exact duplicate lines, `None` when there
/// is none; refused while it holds conflict markers or divergent versions of a record.
fn duplicates_found(ctx: &Context, rel: &str) -> Result<Found<Vec<Span>>> {
    let registry = confined::locate(&ctx.root, rel, false)?;
    let bytes = registry
        .read(true)?
        .map(|(bytes, _)| bytes)
        .unwrap_or_default();
    let complete = complete_len(&bytes);
    if bytes[..complete].split(|&b| b == b'\n').any(is_marker) {
        return Err(Error::refused(messages::dedupe_conflicted(rel)));
    }
    let found = doubles(&bytes);
    if !found.divergent.is_empty() {
        return Err(Error::refused(messages::divergent_duplicates(
            rel,
            &found.divergent,
        )));
    }
    if found.exact.is_empty() {
        return Ok(None);
    }
    Ok(Some((registry, bytes, found.exact)))
}

/// The registry's path, bytes and lines that are not UTF-8, `None` when every line is valid;
/// refused when only the torn final line is not (`--repair-tail` repairs that).
fn invalid_found(ctx: &Context, rel: &str) -> Result<Found<Vec<InvalidLine>>> {
    let registry = confined::locate(&ctx.root, rel, false)?;
    let bytes = registry
        .read(true)?
        .map(|(bytes, _)| bytes)
        .unwrap_or_default();
    let invalid = journal::invalid_lines(&bytes);
    if invalid.is_empty() {
        let torn = &bytes[complete_len(&bytes)..];
        if std::str::from_utf8(torn).is_ok() {
            return Ok(None);
        }
        return Err(Error::refused(messages::only_the_tail_invalid(rel)));
    }
    Ok(Some((registry, bytes, invalid)))
}

/// Refuses unless the open `file` (the registry `rel` at `path`) is still `expected` bytes long:
/// asked of the handle that will be truncated, just before truncating.
pub(crate) fn check_unchanged(file: &File, path: &Path, rel: &str, expected: u64) -> Result<()> {
    let now = file
        .metadata()
        .map_err(|e| Error::io("cannot inspect", path, e))?
        .len();
    if now == expected {
        return Ok(());
    }
    Err(Error::refused(messages::changed_during_repair(
        rel, expected, now,
    )))
}

/// The registry, its bytes and complete length; `None` when it has no torn final line.
fn torn_tail(ctx: &Context, rel: &str) -> Result<Found<usize>> {
    let registry = confined::locate(&ctx.root, rel, false)?;
    let bytes = registry
        .read(true)?
        .map(|(bytes, _)| bytes)
        .unwrap_or_default();
    let complete = complete_len(&bytes);
    if complete == bytes.len() {
        return Ok(None);
    }
    Ok(Some((registry, bytes, complete)))
}

/// The repairs' one protocol: keeps `aside` beside the registry `rel` as `<name><suffix>`
/// (`-1`, `-2`, … when taken; never replacing a file), synced; then, only while the registry
/// still has the `expected` length on `file` (the handle the repair goes through), makes the
/// `change`. On any failure the kept copy is removed again and nothing else has changed.
/// Returns the kept copy's project-relative path.
fn set_aside_then(
    registry: &Target,
    rel: &str,
    suffix: &str,
    aside: &[u8],
    file: &File,
    expected: usize,
    change: impl FnOnce() -> Result<()>,
) -> Result<String> {
    let dir = registry.require_dir("cannot open")?;
    let (taken, mut kept) = dir.create_aside(registry.name(), suffix)?;
    let mut name = registry.name().to_os_string();
    name.push(&taken);
    let done = kept
        .write_all(aside)
        .and_then(|()| kept.sync_all())
        .map_err(|e| Error::io("cannot write", &dir.path().join(&name), e))
        .and_then(|()| check_unchanged(file, registry.path(), rel, expected as u64))
        .and_then(|()| change());
    if let Err(e) = done {
        drop(kept);
        let _ = dir.remove(&name);
        return Err(e);
    }
    Ok(format!("{rel}{taken}"))
}
