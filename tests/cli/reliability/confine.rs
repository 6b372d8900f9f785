//! Confinement that cannot be raced, and the project path itself.
//!
//! * A thread swaps the journal (then, separately, the memory folder, and the handoffs folder)
//!   with a link to a file or folder outside the project, atomically
//!   (`renameat2(RENAME_EXCHANGE)`), over and over while a few hundred `write`s (`handoff`s)
//!   run: not one byte may land outside, every run either lands inside or is refused with the
//!   links message. Bounded by the number of runs; `-- --nocapture` prints the counts.
//! * The same for `archive` (the archive folder, then the memory folder, swapped while a few
//!   hundred archives run on a journal that gets a record before each): nothing lands outside,
//!   and every record written is inside exactly once, in the journal or an archive.
//! * The sweeps of dead writers' temporary files (`handoff`'s sessions folder, `init`'s memory
//!   folder) never remove a file of such a name outside the project.
//! * A link above the project root is the user's business: the write lands in the real folder.
//! * `-d` takes any OS path; any other command-line word that is not UTF-8 is refused.

use std::cell::Cell;
use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;

use rustix::fs::{CWD, RenameFlags, renameat_with};

use crate::support::{JOURNAL, SCORES, TestProject};

const LINKS: &str = "Memory paths cannot follow symbolic links or junctions.";
/// Runs made while the swapper works: enough for the swaps to hit every step of a write, few
/// enough to finish in seconds.
const WRITES: usize = 300;

/// Where `archive` puts the records it moves.
const ARCHIVE: &str = ".bmad/memory/archive";

/// An event line, as a fixture for the journal.
const EVENT: &str =
    r#"{"ts":"2026-10-18T09:00:00.000Z","agent":"forge","task":"first","id":"first-event"}"#;

/// Exchanges `a` and `b` atomically.
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(Into::into)
}

/// Runs [`WRITES`] writes in `project` while a thread keeps exchanging `real` and `link`; puts
/// `real` back in place afterwards. Returns how many writes succeeded.
fn race(project: &TestProject, real: &Path, link: &Path) -> usize {
    race_with(project, real, link, "write", |n| {
        vec![
            "write".into(),
            "--agent".into(),
            "racer".into(),
            "--task".into(),
            format!("write {n}"),
        ]
    })
}

/// [`race`] for any writing `action`, its arguments for run `n` given by `args`.
fn race_with(
    project: &TestProject,
    real: &Path,
    link: &Path,
    action: &str,
    args: impl Fn(usize) -> Vec<String>,
) -> usize {
    race_prepared(project, real, link, action, |_| {}, args)
}

/// [`race_with`], calling `prepare(n)` before run `n` (while the swapper works).
fn race_prepared(
    project: &TestProject,
    real: &Path,
    link: &Path,
    action: &str,
    prepare: impl Fn(usize),
    args: impl Fn(usize) -> Vec<String>,
) -> usize {
    // The exchange must work here, or the test would prove nothing.
    exchange(real, link).expect("RENAME_EXCHANGE on the test folder");
    exchange(real, link).expect("RENAME_EXCHANGE back");
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swapper = {
        let (stop, swaps) = (Arc::clone(&stop), Arc::clone(&swaps));
        let (real, link) = (real.to_path_buf(), link.to_path_buf());
        thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                exchange(&real, &link).expect("exchange");
                swaps.fetch_add(1, Ordering::Relaxed);
                thread::yield_now();
            }
            if swaps.load(Ordering::Relaxed) % 2 == 1 {
                exchange(&real, &link).expect("exchange back");
            }
        })
    };
    let mut succeeded = 0;
    for n in 0..WRITES {
        prepare(n);
        let output = project
            .command()
            .args(args(n))
            .output()
            .expect("spawn bmad-mem");
        let stderr = String::from_utf8_lossy(&output.stderr);
        match output.status.code() {
            Some(0) => succeeded += 1,
            Some(1) => assert_eq!(stderr, format!("mem {action}: {LINKS}\n"), "run {n}"),
            other => panic!("run {n}: exit {other:?}\n{stderr}"),
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().expect("the swapper");
    // The figures RELIABILITY.md quotes (`-- --nocapture`).
    println!(
        "{action} × {WRITES} racing {} swaps of {}: {succeeded} landed inside, {} refused",
        swaps.load(Ordering::Relaxed),
        real.file_name().unwrap().display(),
        WRITES - succeeded
    );
    assert!(
        fs::symlink_metadata(link).unwrap().file_type().is_symlink(),
        "the link is back in its place"
    );
    // Both outcomes must have occurred, or the swaps never met a write.
    assert!(swaps.load(Ordering::Relaxed) > 0);
    assert!(succeeded > 0, "no write succeeded");
    assert!(succeeded < WRITES, "no write met a link");
    succeeded
}

/// Every file under `dir` with its bytes, and every folder and link, by path (links not
/// followed).
fn snapshot_of(dir: &Path) -> Vec<(std::path::PathBuf, Option<Vec<u8>>)> {
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let meta = fs::symlink_metadata(&path).unwrap();
        if meta.is_file() {
            let bytes = fs::read(&path).unwrap();
            entries.push((path, Some(bytes)));
        } else if meta.is_dir() {
            entries.push((path.clone(), None));
            entries.extend(snapshot_of(&path));
        } else {
            let target = fs::read_link(&path).unwrap().into_os_string();
            entries.push((path, Some(target.into_encoded_bytes())));
        }
    }
    entries.sort();
    entries
}

/// The journal's lines written by the racing writes.
fn racer_lines(journal: &Path) -> usize {
    fs::read_to_string(journal)
        .unwrap()
        .lines()
        .filter(|line| line.contains(r#""agent":"racer""#))
        .count()
}

#[test]
fn a_journal_swapped_with_a_link_mid_write_is_never_written_through() {
    let project = TestProject::new().write(JOURNAL, format!("{EVENT}\n"));
    let outside = project.base().join("outside.ndjson");
    fs::write(&outside, format!("{EVENT}\n")).unwrap();
    let link = project.path(".bmad/memory/swap.ndjson");
    symlink(&outside, &link).unwrap();
    let before = fs::read(&outside).unwrap();

    let succeeded = race(&project, &project.path(JOURNAL), &link);

    assert_eq!(fs::read(&outside).unwrap(), before, "bytes landed outside");
    assert_eq!(racer_lines(&project.path(JOURNAL)), succeeded);
    assert!(!project.path(".bmad/memory/writer.lock").exists());
}

#[test]
fn a_memory_folder_swapped_with_a_link_mid_write_is_never_written_through() {
    let project = TestProject::new().write(JOURNAL, format!("{EVENT}\n"));
    let outside = project.base().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("journal.ndjson"), format!("{EVENT}\n")).unwrap();
    let link = project.path(".bmad/swap");
    symlink(&outside, &link).unwrap();
    let before = snapshot_of(&outside);

    let succeeded = race(&project, &project.path(".bmad/memory"), &link);

    // No journal line, lock, temporary file or receipt outside.
    assert_eq!(snapshot_of(&outside), before, "bytes landed outside");
    assert_eq!(racer_lines(&project.path(JOURNAL)), succeeded);
    assert_eq!(project.names(".bmad/memory"), ["journal.ndjson"]);
}

#[test]
fn a_memory_folder_swapped_with_a_link_mid_reinforce_is_never_written_through() {
    // One update away from the threshold: every reinforcement rewrites the scores document
    // (temporary file + rename) and appends a promotion proposal.
    let scores = r#"{"p":{"elo":1300,"alpha":5,"beta":1,"mean":0.8333333333333334,"updates":2,"lastTs":"2026-10-18T09:30:00.000Z"}}"#;
    let project = TestProject::new().write(SCORES, format!("{scores}\n"));
    let outside = project.base().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("pattern-scores.json"), "{}\n").unwrap();
    fs::write(outside.join("promotions.ndjson"), "").unwrap();
    let link = project.path(".bmad/swap");
    symlink(&outside, &link).unwrap();
    let before = snapshot_of(&outside);

    let succeeded = race_with(
        &project,
        &project.path(".bmad/memory"),
        &link,
        "reinforce",
        |_| {
            [
                "reinforce",
                "--pattern",
                "p",
                "--accept",
                "true",
                "--ci",
                "pass",
            ]
            .map(String::from)
            .to_vec()
        },
    );

    assert_eq!(snapshot_of(&outside), before, "bytes landed outside");
    // Each success read the scores inside, so each was past the threshold and proposed once;
    // scores read through the link would have restarted from the outside `{}`.
    let promotions = project.read_text(".bmad/memory/promotions.ndjson");
    assert_eq!(promotions.lines().count(), succeeded);
}

#[test]
fn a_sessions_folder_swapped_with_a_link_mid_handoff_is_never_written_through() {
    let project = TestProject::new().mkdir(".agents/memory/sessions");
    let home = project.base().join("home");
    fs::create_dir(&home).unwrap();
    let project = project.env("HOME", &home).env("BMAD_PLUS_BRAIN", "");
    let outside = project.base().join("outside");
    fs::create_dir(&outside).unwrap();
    let link = project.path(".agents/memory/swap");
    symlink(&outside, &link).unwrap();
    let before = snapshot_of(&outside);

    let succeeded = race_with(
        &project,
        &project.path(".agents/memory/sessions"),
        &link,
        "handoff",
        |n| vec!["handoff".into(), "--topic".into(), format!("topic {n}")],
    );

    assert_eq!(snapshot_of(&outside), before, "bytes landed outside");
    assert_eq!(project.names(".agents/memory/sessions").len(), succeeded);
}

/// Appends one racer record through bmad-mem (never by path: the folders may be swapped); counts
/// the records written in `written`.
fn add_record(project: &TestProject, n: usize, written: &Cell<usize>) {
    let output = project
        .command()
        .args([
            "write",
            "--agent",
            "racer",
            "--task",
            &format!("record {n}"),
        ])
        .output()
        .expect("spawn bmad-mem");
    if output.status.success() {
        written.set(written.get() + 1);
    }
}

/// The racer records in the journal and in every archive of the project.
fn racer_records(project: &TestProject) -> usize {
    let archived: usize = project
        .names(ARCHIVE)
        .iter()
        .map(|name| racer_lines(&project.path(&format!("{ARCHIVE}/{name}"))))
        .sum();
    archived + racer_lines(&project.path(JOURNAL))
}

/// `archive journal --keep 0`: every record the store has received since the last run moves.
fn archive_all(_: usize) -> Vec<String> {
    ["archive", "journal", "--keep", "0"]
        .map(String::from)
        .to_vec()
}

#[test]
fn an_archive_folder_swapped_with_a_link_mid_archive_is_never_written_through() {
    let project = TestProject::new()
        .write(JOURNAL, format!("{EVENT}\n"))
        .mkdir(ARCHIVE);
    let outside = project.base().join("outside");
    fs::create_dir(&outside).unwrap();
    // The name the first archive takes, so a followed link would also meet a clash.
    fs::write(
        outside.join("journal-20261018T090000Z--20261018T090000Z.ndjson"),
        format!("{EVENT}\n"),
    )
    .unwrap();
    let link = project.path(".bmad/memory/swap");
    symlink(&outside, &link).unwrap();
    let before = snapshot_of(&outside);
    let written = Cell::new(0);

    race_prepared(
        &project,
        &project.path(ARCHIVE),
        &link,
        "archive",
        |n| add_record(&project, n, &written),
        archive_all,
    );

    assert_eq!(snapshot_of(&outside), before, "bytes landed outside");
    // Every record written is inside, once: in the journal or in an archive.
    assert_eq!(racer_records(&project), written.get());
    assert!(written.get() > 0);
    assert!(
        project
            .names(".bmad/memory")
            .iter()
            .all(|name| Path::new(name).extension().is_none_or(|e| e != "tmp")),
        "a temporary file was left behind"
    );
}

#[test]
fn a_memory_folder_swapped_with_a_link_mid_archive_is_never_written_through() {
    let project = TestProject::new()
        .write(JOURNAL, format!("{EVENT}\n"))
        .mkdir(ARCHIVE);
    let outside = project.base().join("outside");
    fs::create_dir_all(outside.join("archive")).unwrap();
    fs::write(outside.join("journal.ndjson"), format!("{EVENT}\n")).unwrap();
    let link = project.path(".bmad/swap");
    symlink(&outside, &link).unwrap();
    let before = snapshot_of(&outside);
    let written = Cell::new(0);

    race_prepared(
        &project,
        &project.path(".bmad/memory"),
        &link,
        "archive",
        |n| add_record(&project, n, &written),
        archive_all,
    );

    // No archive, journal line, lock or temporary file outside.
    assert_eq!(snapshot_of(&outside), before, "bytes landed outside");
    assert_eq!(racer_records(&project), written.get());
    assert!(written.get() > 0);
}

/// A dead writer's temporary file name in a session folder, for `stem`.
fn dead_temporary(stem: &str) -> String {
    format!("{stem}.0c7f9a3e-1d2b-4c5d-8e9f-a0b1c2d3e4f5.tmp")
}

#[test]
fn a_sessions_folder_swapped_with_a_link_mid_sweep_keeps_the_files_outside() {
    // What a dead writer leaves looks, outside the project, like any file of that name: the
    // sweep that `handoff` runs must never remove it there.
    let project = TestProject::new().mkdir(".agents/memory/sessions");
    let home = project.base().join("home");
    fs::create_dir(&home).unwrap();
    let project = project.env("HOME", &home).env("BMAD_PLUS_BRAIN", "");
    let outside = project.base().join("outside");
    fs::create_dir(&outside).unwrap();
    for stem in ["2026-10-18-a.md", "notes.md", "topic.md"] {
        fs::write(outside.join(dead_temporary(stem)), "keep me").unwrap();
    }
    let link = project.path(".agents/memory/swap");
    symlink(&outside, &link).unwrap();
    let before = snapshot_of(&outside);

    let succeeded = race_with(
        &project,
        &project.path(".agents/memory/sessions"),
        &link,
        "handoff",
        |n| vec!["handoff".into(), "--topic".into(), format!("topic {n}")],
    );

    assert_eq!(snapshot_of(&outside), before, "a file outside was removed");
    assert_eq!(project.names(".agents/memory/sessions").len(), succeeded);
}

#[test]
fn a_memory_folder_swapped_with_a_link_mid_init_sweep_keeps_the_files_outside() {
    let project = TestProject::new().mkdir(".agents/memory/sessions");
    let home = project.base().join("home");
    fs::create_dir(&home).unwrap();
    let project = project.env("HOME", &home).env("BMAD_PLUS_BRAIN", "");
    let outside = project.base().join("outside");
    fs::create_dir_all(outside.join("sessions")).unwrap();
    for stem in ["context.md", "lessons.md", "decisions.md"] {
        fs::write(outside.join(dead_temporary(stem)), "keep me").unwrap();
    }
    fs::write(
        outside
            .join("sessions")
            .join(dead_temporary("2026-10-18-a.md")),
        "keep me",
    )
    .unwrap();
    let link = project.path(".agents/swap");
    symlink(&outside, &link).unwrap();
    let before = snapshot_of(&outside);

    race_with(
        &project,
        &project.path(".agents/memory"),
        &link,
        "init",
        |_| vec!["init".into()],
    );

    assert_eq!(snapshot_of(&outside), before, "a file outside was removed");
}

#[test]
fn a_link_above_the_project_root_is_the_users_business() {
    let project = TestProject::new()
        .write(JOURNAL, format!("{EVENT}\n"))
        .current_dir("");
    let base = project.base().to_path_buf();
    // `l` → the tempdir, so `l/project` reaches the project through a link above it; and the
    // project folder itself reached through a link.
    symlink(&base, base.join("l")).unwrap();
    symlink(base.join("project"), base.join("project-link")).unwrap();
    let project = project
        .args(["-d", "l/project", "write", "--agent", "a", "--task", "one"])
        .code(0)
        .run()
        .then()
        .args([
            "-d",
            "project-link",
            "write",
            "--agent",
            "b",
            "--task",
            "two",
        ])
        .code(0)
        .run()
        .then()
        .args(["-d", "project-link", "reinforce", "--pattern", "p"])
        .code(0)
        .run()
        .then();
    let journal = project.read_text(JOURNAL);
    let agents: Vec<&str> = journal
        .lines()
        .skip(1)
        .map(|line| {
            if line.contains(r#""agent":"a""#) {
                "a"
            } else {
                "b"
            }
        })
        .collect();
    assert_eq!(agents, ["a", "b"]);
    assert!(project.path(".bmad/memory/pattern-scores.json").is_file());
    // Below the root, a link is still refused.
    let project = project.remove(".bmad").mkdir("elsewhere/memory");
    let _ = project
        .symlink("elsewhere", ".bmad")
        .current_dir("project")
        .args(["write", "--agent", "a"])
        .refused("write", LINKS);
}

/// `prefix` followed by a byte that is never UTF-8.
fn not_utf8(prefix: &str) -> OsString {
    OsString::from_vec([prefix.as_bytes(), b"\xff"].concat())
}

#[test]
fn a_project_folder_whose_name_is_not_utf8_is_a_project() {
    let project = TestProject::new().current_dir("");
    let folder = project.base().join(not_utf8("p"));
    fs::create_dir(&folder).unwrap();
    let ran = project
        .args([
            OsString::from("-d"),
            not_utf8("p"),
            "write".into(),
            "--agent".into(),
            "a".into(),
        ])
        .code(0)
        .run();
    let journal = fs::read_to_string(folder.join(JOURNAL)).unwrap();
    assert!(journal.contains(r#""agent":"a""#), "{journal}");
    // The folder that does not exist is named as the system spells it (lossily on a terminal).
    let missing = ran.project.base().join("q\u{fffd}");
    let _ = ran
        .then()
        .args([
            OsString::from("-d"),
            not_utf8("q"),
            "write".into(),
            "--agent".into(),
            "a".into(),
        ])
        .refused(
            "write",
            &format!(
                "Project directory does not exist or is not a directory: {}",
                missing.display()
            ),
        );
}

#[test]
fn command_line_text_that_is_not_utf8_is_refused_not_altered() {
    let word = OsString::from;
    let project = TestProject::new()
        .write(JOURNAL, format!("{EVENT}\n"))
        .args([word("write"), word("--agent"), not_utf8("a")])
        .refused("write", "invalid UTF-8 in the value of --agent")
        .args([word("reinforce"), not_utf8("--pattern=p")])
        .refused("reinforce", "invalid UTF-8 in the value of --pattern")
        .args([
            word("write"),
            word("--agent"),
            word("a"),
            word("--task"),
            not_utf8("t"),
        ])
        .refused("write", "invalid UTF-8 in the value of --task");
    let _ = project
        .args([word("recall"), word("first"), not_utf8("x")])
        .code(1)
        .stdout("")
        .stderr("mem recall: invalid UTF-8 in argument 3\n")
        .unchanged()
        .run();
}
