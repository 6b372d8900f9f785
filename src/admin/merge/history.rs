//! Where the merge driver finds the reinforcement records of the three versions whose
//! `pattern-scores.json` it merges (docs/MERGE.md, "Finding the records").
//!
//! Git gives a driver the three versions of the one file it merges, never the commits they come
//! from, and the records file is merged in the same run, in an order of git's choosing (its
//! result is not in the work tree yet). So the driver asks git, read-only, which commits the
//! three scores files are:
//!
//! * **ours** is `HEAD` — in a merge, and in a rebase or a cherry-pick too, where `HEAD` is the
//!   commit being built on (upstream, for a rebase);
//! * **theirs** is the first of these commits whose scores file is, byte for byte, the one git
//!   gave as theirs: the commits `git merge` names to its drivers (`GITHEAD_<commit>`),
//!   `REBASE_HEAD`, `CHERRY_PICK_HEAD`, `MERGE_HEAD`, `REVERT_HEAD`, the commit a sequencer is
//!   picking (`sequencer/todo`'s first command, `rebase-merge/done`'s last), `FETCH_HEAD`, and
//!   the tips of the branches;
//! * **the base** is the first merge base of ours and theirs, or parent of theirs, whose scores
//!   file is the base git gave (or that has none, when git gave an empty base).
//!
//! Every version is checked against git's own bytes by object id, so a wrong guess is never
//! used: when a commit cannot be found, the driver falls back on the merge without records,
//! and says why. The records file of each commit (none there: no records) is then read from
//! git's object store. Nothing is written.

use std::path::Path;

use crate::store::git;
use crate::store::layout::{REINFORCEMENTS, SCORES};

/// The records of the three versions, each the registry's bytes (empty when absent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Found {
    pub base: Vec<u8>,
    pub ours: Vec<u8>,
    pub theirs: Vec<u8>,
}

/// The records file beside the scores file at `scores` (a path in the repository).
#[must_use]
pub(crate) fn records_path(scores: &str) -> Option<String> {
    let above = scores.strip_suffix(SCORES)?;
    Some(format!("{above}{REINFORCEMENTS}"))
}

/// The commit a sequencer command line names (`pick <commit> …`, `fixup -C <commit> …`).
fn command_commit(line: &str) -> Option<&str> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let mut words = line.split_ascii_whitespace();
    let command = words.next()?;
    if !matches!(
        command,
        "pick" | "p" | "reword" | "r" | "edit" | "e" | "squash" | "s" | "fixup" | "f" | "revert"
    ) {
        return None;
    }
    words
        .find(|w| !w.starts_with('-'))
        .filter(|w| w.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The commits that name themselves as theirs, in the order they are tried.
fn their_candidates(cwd: &Path, merge_heads: &[String]) -> Vec<String> {
    let mut candidates: Vec<String> = merge_heads.to_vec();
    for name in [
        "REBASE_HEAD",
        "CHERRY_PICK_HEAD",
        "MERGE_HEAD",
        "REVERT_HEAD",
    ] {
        candidates.push(name.to_owned());
    }
    let paths = git::read(
        cwd,
        &[
            "rev-parse",
            "--git-path",
            "sequencer/todo",
            "--git-path",
            "rebase-merge/done",
        ],
    )
    .map(|out| String::from_utf8_lossy(&out).into_owned())
    .unwrap_or_default();
    let mut paths = paths.lines();
    let read = |path: Option<&str>| {
        path.and_then(|p| std::fs::read_to_string(cwd.join(p)).ok())
            .unwrap_or_default()
    };
    let (todo, done) = (read(paths.next()), read(paths.next()));
    if let Some(commit) = todo.lines().find_map(command_commit) {
        candidates.push(commit.to_owned());
    }
    if let Some(commit) = done.lines().rev().find_map(command_commit) {
        candidates.push(commit.to_owned());
    }
    candidates.push("FETCH_HEAD".to_owned());
    candidates
}

/// The tips of the branches and remote branches: theirs, for a cherry-pick of one commit, which
/// leaves no other trace.
fn branch_tips(cwd: &Path) -> Vec<String> {
    git::read(
        cwd,
        &[
            "for-each-ref",
            "--format=%(objectname)",
            "refs/heads",
            "refs/remotes",
        ],
    )
    .map(|tips| {
        String::from_utf8_lossy(&tips)
            .lines()
            .map(str::to_owned)
            .collect()
    })
    .unwrap_or_default()
}

/// The object ids of `names`, `None` for a name git does not find.
fn ids(cwd: &Path, names: &[String]) -> Option<Vec<Option<String>>> {
    let mut input = String::new();
    for name in names {
        input.push_str(name);
        input.push('\n');
    }
    let out = git::read_with_input(cwd, &["cat-file", "--batch-check"], input.as_bytes())?;
    let text = String::from_utf8_lossy(&out);
    let found: Vec<Option<String>> = text
        .lines()
        .map(|line| {
            let mut words = line.rsplitn(3, ' ');
            let (last, kind) = (words.next()?, words.next()?);
            (kind == "blob" && last.bytes().all(|b| b.is_ascii_digit()))
                .then(|| words.next().map(str::to_owned))
                .flatten()
        })
        .collect();
    (found.len() == names.len()).then_some(found)
}

/// The first of `commits` whose file at `path` has the id `want` (`None`: whose file is absent
/// or empty, for an empty base).
fn first_with(
    cwd: &Path,
    commits: &[String],
    path: &str,
    want: &str,
    empty: &str,
) -> Option<String> {
    let names: Vec<String> = commits.iter().map(|c| format!("{c}:{path}")).collect();
    let found = ids(cwd, &names)?;
    commits
        .iter()
        .zip(found)
        .find(|(_, id)| match id {
            Some(id) => id == want,
            None => want == empty,
        })
        .map(|(commit, _)| commit.clone())
}

/// Finds, through git, the records of the three versions whose scores files are `sides` (git's
/// `%O`, `%A`, `%B`, relative to `cwd`, the top of the work tree) at `scores` in the repository.
///
/// # Errors
/// Why they could not be found, in words, for the conflict's report.
pub(crate) fn find(
    cwd: &Path,
    scores: &str,
    sides: [&Path; 3],
    merge_heads: &[String],
) -> Result<Found, String> {
    let records = records_path(scores).ok_or("the scores file is not in a memory folder")?;
    git::read(cwd, &["rev-parse", "--verify", "--quiet", "HEAD"])
        .ok_or("not run by git in a repository with a commit checked out")?;
    let mut args = vec!["hash-object", "--no-filters", "--"];
    let names: Vec<String> = sides
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    args.extend(names.iter().map(String::as_str));
    let printed = git::read(cwd, &args).ok_or("git could not hash the three versions")?;
    let printed = String::from_utf8_lossy(&printed);
    let ids_of_sides: Vec<&str> = printed.lines().collect();
    let [base_id, ours_id, theirs_id] = ids_of_sides[..] else {
        return Err("git could not hash the three versions".to_owned());
    };
    let empty = git::read(cwd, &["hash-object", "--stdin"])
        .map(|out| String::from_utf8_lossy(&out).trim().to_owned())
        .unwrap_or_default();
    let head = vec!["HEAD".to_owned()];
    first_with(cwd, &head, scores, ours_id, &empty)
        .ok_or("ours is not the scores file of the commit checked out, HEAD")?;
    let theirs = first_with(
        cwd,
        &their_candidates(cwd, merge_heads),
        scores,
        theirs_id,
        &empty,
    )
    .or_else(|| first_with(cwd, &branch_tips(cwd), scores, theirs_id, &empty))
    .ok_or("no commit git names in this merge holds theirs")?;
    let mut bases: Vec<String> = Vec::new();
    let parents = format!("{theirs}^@");
    for args in [
        ["merge-base", "--all", "HEAD", theirs.as_str()].as_slice(),
        ["rev-parse", parents.as_str()].as_slice(),
    ] {
        if let Some(out) = git::read(cwd, args) {
            bases.extend(String::from_utf8_lossy(&out).lines().map(str::to_owned));
        }
    }
    let base = first_with(cwd, &bases, scores, base_id, &empty)
        .ok_or("no merge base of ours and theirs holds the base")?;
    let names: Vec<String> = [&base, "HEAD", &theirs]
        .iter()
        .map(|commit| format!("{commit}:{records}"))
        .collect();
    let mut read = git::objects(cwd, &names)
        .ok_or("git could not read the records")?
        .into_iter()
        .map(Option::unwrap_or_default);
    Ok(Found {
        base: read.next().unwrap_or_default(),
        ours: read.next().unwrap_or_default(),
        theirs: read.next().unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_records_sit_beside_the_scores() {
        assert_eq!(
            records_path(".bmad/memory/pattern-scores.json").as_deref(),
            Some(".bmad/records/reinforcements.ndjson")
        );
        assert_eq!(
            records_path("apps/web/.bmad/memory/pattern-scores.json").as_deref(),
            Some("apps/web/.bmad/records/reinforcements.ndjson")
        );
        assert_eq!(records_path(".bmad/memory/journal.ndjson"), None);
    }

    #[test]
    fn sequencer_lines_name_their_commit() {
        for (line, commit) in [
            ("pick 5612bc9 side", Some("5612bc9")),
            (
                "p 5612bc9a86f725cec9305f295db1e64690eab46f",
                Some("5612bc9a86f725cec9305f295db1e64690eab46f"),
            ),
            ("fixup -C 0a1b2c3 subject", Some("0a1b2c3")),
            ("revert 0a1b2c3 subject", Some("0a1b2c3")),
            ("# pick 0a1b2c3", None),
            ("exec make test", None),
            ("merge -C 0a1b2c3 topic", None),
            ("pick not-a-commit", None),
            ("", None),
        ] {
            assert_eq!(command_commit(line), commit, "{line}");
        }
    }
}
