//! The handoffs of a sessions folder as readers see them (`status` counts them and names the
//! latest, `brief` reads every one of the latest day): which files are handoffs, and in which
//! order they come, from what the files say and never from their modification times.

use std::fs;
use std::path::Path;

use crate::js::date;
use crate::store::entry::heading_date;
use crate::store::front_matter::front_matter_value;
use crate::store::paths::{Loose, Skip, read_loose};

/// Why the folder `dir` is not looked at: it resolves (through a link, its own or a folder's
/// above it) outside the project `root`. `None` when it stays inside or does not exist. The
/// readers of the handoffs (`status`, `view`) skip such a sessions folder, with a warning.
#[must_use]
pub(crate) fn leads_out(dir: &Path, root: &Path) -> Option<Skip> {
    let target = fs::canonicalize(dir).ok()?;
    let real_root = fs::canonicalize(root).ok()?;
    (!target.starts_with(&real_root)).then(|| Skip::Outside {
        target,
        within: root.to_path_buf(),
    })
}

/// The handoffs of a sessions folder — the `.md` files whose name starts with a `YYYY-MM-DD`
/// date, as `handoff` names them (a `README.md` or a template beside them is none): their
/// names, sorted.
#[must_use]
pub(crate) fn handoff_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(std::result::Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| {
                    heading_date(n).is_some()
                        && Path::new(n)
                            .extension()
                            .is_some_and(|e| e.eq_ignore_ascii_case("md"))
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The latest handoff of a sessions folder, from what the files say and never from their
/// modification times (a `touch` or a clone must not change the answer): the first of
/// [`latest_day_handoffs`].
#[must_use]
pub(crate) fn latest_handoff(dir: &Path) -> Option<String> {
    latest_day_handoffs(dir).into_iter().next()
}

/// The handoffs of the newest date a handoff's name starts with, newest first: by the
/// `written_at` of their front matter (one without it after one with it), then the highest
/// `-N` suffix (none counts as 1), then the name, last first. A name's last `-N` is a suffix
/// only when another handoff of the day shares the name before it (`…-sprint-3.md` is the topic
/// "Sprint 3", not the third "Sprint").
#[must_use]
pub(crate) fn latest_day_handoffs(dir: &Path) -> Vec<String> {
    let names = handoff_names(dir);
    let day = names.iter().filter_map(|n| heading_date(n)).max();
    let days: Vec<&String> = names.iter().filter(|n| heading_date(n) == day).collect();
    let mut keyed: Vec<_> = days
        .iter()
        .map(|name| {
            (
                (written_at(dir, name), suffix(name, &days)),
                (*name).clone(),
            )
        })
        .collect();
    keyed.sort_by(|a, b| b.cmp(a));
    keyed.into_iter().map(|(_, name)| name).collect()
}

/// The stem of a handoff's name and the number of its last `-N`, when it ends with one after
/// its date.
fn split_suffix(name: &str) -> Option<(&str, u64)> {
    let stem = name.get(..name.len().saturating_sub(3))?;
    let (head, n) = stem.rsplit_once('-')?;
    (head.len() > 10).then_some(())?;
    Some((head, n.parse().ok()?))
}

/// The `-N` a handoff's name ends with before `.md`, as `handoff` numbers a second and third
/// handoff on one topic; 1 without, or when no other handoff of the day (`names`) is named
/// `<head>.md` or `<head>-<M>.md` — then the number is part of the topic.
fn suffix(name: &str, names: &[&String]) -> u64 {
    let Some((head, n)) = split_suffix(name) else {
        return 1;
    };
    let sibling = |other: &&String| {
        other.as_str() != name
            && (other.get(..other.len().saturating_sub(3)) == Some(head)
                || split_suffix(other).is_some_and(|(h, _)| h == head))
    };
    if names.iter().any(sibling) { n } else { 1 }
}

/// The `written_at` instant of a handoff's front matter, in epoch milliseconds. A handoff the
/// loose reader skips has none here; `brief` names it when it reads the one chosen.
pub(crate) fn written_at(dir: &Path, name: &str) -> Option<i64> {
    let Ok(Loose::Read(text)) = read_loose(&dir.join(name), dir) else {
        return None;
    };
    let value = front_matter_value(&text, "written_at")?;
    #[expect(
        clippy::cast_possible_truncation,
        reason = "whole milliseconds within ±8.64e15"
    )]
    date::parse_timestamp(&value).map(|ms| ms as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latest_handoff_by_date_then_written_at_then_suffix_then_name() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| fs::write(dir.path().join(name), text).unwrap();
        assert_eq!(latest_handoff(dir.path()), None);
        for name in ["2026-10-17-b.md", "notes.md", "x.txt"] {
            write(name, "x");
        }
        assert_eq!(
            latest_handoff(dir.path()).as_deref(),
            Some("2026-10-17-b.md")
        );
        write("2026-10-18-a.md", "x");
        write("2026-10-18-a-2.md", "x");
        write("2026-10-18-z.md", "x");
        assert_eq!(
            latest_handoff(dir.path()).as_deref(),
            Some("2026-10-18-a-2.md")
        );
        write(
            "2026-10-18-z.md",
            "---\nwritten_at: \"2026-10-18T08:00:00.000Z\"\n---\n",
        );
        assert_eq!(
            latest_handoff(dir.path()).as_deref(),
            Some("2026-10-18-z.md")
        );
        write(
            "2026-10-18-a.md",
            "---\ntopic: \"a\"\nwritten_at: \"2026-10-18T09:00:00.000Z\"\n---\n",
        );
        assert_eq!(
            latest_handoff(dir.path()).as_deref(),
            Some("2026-10-18-a.md")
        );
        assert_eq!(
            latest_day_handoffs(dir.path()),
            ["2026-10-18-a.md", "2026-10-18-z.md", "2026-10-18-a-2.md"]
        );
        // `notes.md` is no handoff: its name does not start with a date.
        assert_eq!(handoff_names(dir.path()).len(), 4);
        let day = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
        let names = day(&["2026-10-18-a.md", "2026-10-18-a-12.md", "2026-10-18-2.md"]);
        let names: Vec<&String> = names.iter().collect();
        assert_eq!(suffix("2026-10-18-a-12.md", &names), 12);
        assert_eq!(suffix("2026-10-18-2.md", &names), 1);
        let names = day(&["2026-10-18-sprint-3.md", "2026-10-18-sprint-3-2.md"]);
        let names: Vec<&String> = names.iter().collect();
        assert_eq!(suffix("2026-10-18-sprint-3.md", &names), 1);
        assert_eq!(suffix("2026-10-18-sprint-3-2.md", &names), 2);
    }
}
