//! The archives of the journal, the promotions and the reinforcement records, as readers see
//! them: which store a file belongs to, and the archive files of a store in its archive folder
//! (`.bmad/memory/archive/`, `.bmad/records/archive/` for the records), in order (docs §1).
//! Writing archives is the `archive` command's.

use std::ffi::OsStr;
use std::io;
use std::path::Path;

use rustix::fs::FileType;

use crate::store::confined::Dir;
use crate::store::layout::{ARCHIVE_DIR, JOURNAL, PROMOTIONS, RECORDS_ARCHIVE_DIR, REINFORCEMENTS};

/// A store that can be archived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Store {
    Journal,
    Promotions,
    Reinforcements,
}

impl Store {
    /// Every store, in the order `doctor` checks them.
    pub(crate) const ALL: [Store; 3] = [Store::Journal, Store::Promotions, Store::Reinforcements];

    /// The store a command-line name names.
    #[must_use]
    pub(crate) fn parse(name: &str) -> Option<Self> {
        match name {
            "journal" => Some(Store::Journal),
            "promotions" => Some(Store::Promotions),
            "reinforcements" => Some(Store::Reinforcements),
            _ => None,
        }
    }

    /// The command-line name, also the start of its archive files' names.
    #[must_use]
    pub(crate) fn name(self) -> &'static str {
        match self {
            Store::Journal => "journal",
            Store::Promotions => "promotions",
            Store::Reinforcements => "reinforcements",
        }
    }

    /// The live file, relative to the project root.
    #[must_use]
    pub(crate) fn rel(self) -> &'static str {
        match self {
            Store::Journal => JOURNAL,
            Store::Promotions => PROMOTIONS,
            Store::Reinforcements => REINFORCEMENTS,
        }
    }

    /// The folder its archive files go into, relative to the project root: `archive/` beside
    /// the live file.
    #[must_use]
    pub(crate) fn archive_dir(self) -> &'static str {
        match self {
            Store::Journal | Store::Promotions => ARCHIVE_DIR,
            Store::Reinforcements => RECORDS_ARCHIVE_DIR,
        }
    }

    /// The store whose live file is `rel`.
    #[must_use]
    pub(crate) fn of_file(rel: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.rel() == rel)
    }
}

/// The archive files of `store` in the folder `dir` (followed when a link: for readers), by
/// name (a `-2` after the name it clashed with).
///
/// # Errors
/// A folder that cannot be listed (a missing one has no files).
pub(crate) fn archive_names(dir: &Path, store: Store) -> io::Result<Vec<String>> {
    match Dir::open_plain(dir) {
        Ok(folder) => archive_names_in(&folder, store),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// The archive files of `store` in the folder `dir` is a handle on, by name (a `-2` after the
/// name it clashed with).
///
/// # Errors
/// A folder that cannot be listed, or an entry that cannot be inspected.
pub(crate) fn archive_names_in(dir: &Dir, store: Store) -> io::Result<Vec<String>> {
    let prefix = format!("{}-", store.name());
    let mut names = Vec::new();
    for name in dir.names()? {
        let Ok(name) = name.into_string() else {
            continue;
        };
        if name.starts_with(&prefix)
            && name.ends_with(".ndjson")
            && dir.lstat(OsStr::new(&name))? != Some(FileType::Directory)
        {
            names.push(name);
        }
    }
    names.sort_by_cached_key(|name| name_order(name));
    Ok(names)
}

/// Sort key of an archive name: the name without a clash suffix, then the suffix (1 for none).
fn name_order(name: &str) -> (String, u64) {
    let stem = name.strip_suffix(".ndjson").unwrap_or(name);
    match stem.rsplit_once('-') {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            (base.to_owned(), n.parse().unwrap_or(u64::MAX))
        }
        _ => (stem.to_owned(), 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_names_order_by_base_then_clash_number() {
        let mut names = vec![
            "journal-2--3-2.ndjson".to_owned(),
            "journal-2--3-10.ndjson".to_owned(),
            "journal-2--3.ndjson".to_owned(),
            "journal-1--9.ndjson".to_owned(),
        ];
        names.sort_by_cached_key(|n| name_order(n));
        assert_eq!(
            names,
            [
                "journal-1--9.ndjson",
                "journal-2--3.ndjson",
                "journal-2--3-2.ndjson",
                "journal-2--3-10.ndjson"
            ]
        );
    }
}
