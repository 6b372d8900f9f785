//! `fixtures/evidence/`, the guide's worked example of evidence (`docs/GUIDE.md`, whose console blocks
//! `readme.rs` replays): `make-run.sh` writes a run that `observe` accepts wherever the folder
//! lies — a path with spaces and `@`, or with a quote, a backslash and accents — giving the same
//! receipt id everywhere; it computes the digests with `shasum -a 256` where `sha256sum` is
//! missing (macOS), starts a copy of the example over, and refuses any other folder.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value as Json;

use crate::actions::observe::Written;
use crate::support::{TestProject, assert_same};

/// The receipt id the guide's worked example of evidence (`docs/GUIDE.md`) shows, observed at [`NOW`].
const RECEIPT: &str = "5e2cef1d0bce05e004ca258ae015fa170ff81a1d71c4ac5ced6fb018177224e6";
/// The clock of the guide's worked example of evidence (`docs/GUIDE.md`)'s `observe`.
const NOW: &str = "2026-10-18T10:00:00.000Z";
/// The run the script writes, relative to the example's folder.
const RUN_FILE: &str = ".bmad-plus/nexus/runs/demo-run.json";
const LESSONS: &str = ".agents/memory/lessons.md";
const OUTCOMES: &str = ".bmad/memory/outcomes.ndjson";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/evidence")
}

/// `sh fixtures/evidence/make-run.sh <dir>`, with `path` as `PATH` when given.
fn make_run(dir: &Path, path: Option<&Path>) -> Output {
    let mut command = Command::new("/bin/sh");
    command.arg(fixtures().join("make-run.sh")).arg(dir);
    if let Some(path) = path {
        command.env("PATH", path);
    }
    command.output().expect("run make-run.sh")
}

/// [`make_run`], which must succeed and say so.
#[track_caller]
fn made(dir: &Path, path: Option<&Path>) {
    let output = make_run(dir, path);
    assert!(output.status.success(), "make-run.sh failed: {output:?}");
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!(
            "{}: Nexus run demo-run written; task hash-passwords accepted.\n",
            dir.display()
        )
    );
}

/// `observe` of the example's observation in `dir` (`-d <dir>`), which must be accepted with
/// the documented receipt; `outcomes` then lists it as current.
#[track_caller]
fn observed(project: TestProject, dir: &Path) -> TestProject {
    let ran = project
        .env("BMAD_MEM_NOW", NOW)
        .args([
            "-d".as_ref(),
            dir.as_os_str(),
            "observe".as_ref(),
            "--input".as_ref(),
            "observation.json".as_ref(),
            "--json".as_ref(),
        ])
        .code(0)
        .stderr("")
        .run();
    let written: Written = ran.json();
    let receipt = written.written;
    assert_eq!(
        receipt.id, RECEIPT,
        "the receipt id depends on nothing local"
    );
    assert_eq!(
        (
            receipt.source.run_id.as_str(),
            receipt.source.task_id.as_str()
        ),
        ("demo-run", "hash-passwords")
    );
    assert_eq!(receipt.source.baseline, Json::Null);
    ran.then()
        .args(["-d".as_ref(), dir.as_os_str(), "outcomes".as_ref()])
        .code(0)
        .stdout(&format!("{RECEIPT}: accepted-current\n"))
        .stderr("")
        .unchanged()
        .run()
        .then()
}

/// `run.project` and the check's command, as the script wrote them.
fn run_paths(dir: &Path) -> (String, String) {
    let text = fs::read_to_string(dir.join(RUN_FILE)).unwrap();
    let envelope: Json = serde_json::from_str(&text).unwrap();
    let run = &envelope["run"];
    let command = &run["plan"]["tasks"][0]["checks"][0]["command"];
    (
        run["project"].as_str().unwrap().to_owned(),
        command.as_str().unwrap().to_owned(),
    )
}

#[test]
fn the_run_is_accepted_from_a_path_with_spaces_and_an_at_sign() {
    let project = TestProject::new();
    let dir = project.base().join("my work @ home/evidence demo");
    made(&dir, None);
    let real = dir.to_str().unwrap();
    assert_eq!(
        run_paths(&dir),
        (real.to_owned(), format!("{real}/tools/verify.sh"))
    );
    observed(project, &dir);
}

#[test]
fn the_run_is_accepted_from_a_path_with_a_quote_a_backslash_and_accents() {
    let project = TestProject::new();
    let dir = project.base().join("l'\"exemple\" \\ à côté");
    made(&dir, None);
    assert_eq!(run_paths(&dir).0, dir.to_str().unwrap());
    observed(project, &dir);
}

#[test]
fn the_digests_are_the_same_with_shasum_where_sha256sum_is_missing() {
    let tools = [
        "dirname", "sed", "tr", "cp", "mkdir", "ls", "grep", "rm", "cat", "cut", "shasum",
    ];
    let found: Vec<Option<PathBuf>> = tools.iter().map(|tool| on_path(tool)).collect();
    if found.iter().any(Option::is_none) {
        // `shasum` comes with Perl: macOS has it, a minimal Linux may not.
        eprintln!("skipped: no shasum (or another tool) on this machine's PATH");
        return;
    }
    let project = TestProject::new();
    let bin = project.base().join("bin without sha256sum");
    fs::create_dir(&bin).unwrap();
    for (tool, path) in tools.iter().zip(found) {
        std::os::unix::fs::symlink(path.unwrap(), bin.join(tool)).unwrap();
    }
    let dir = project.base().join("example");
    made(&dir, None);
    let with_sha256sum = fs::read(dir.join(RUN_FILE)).unwrap();
    made(&dir, Some(&bin));
    assert_eq!(fs::read(dir.join(RUN_FILE)).unwrap(), with_sha256sum);
    let project = observed(project, &dir);

    // Neither tool: a clear refusal.
    fs::remove_file(bin.join("shasum")).unwrap();
    let output = make_run(&project.base().join("other"), Some(&bin));
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "make-run: needs sha256sum or shasum to compute the run's digests\n"
    );
}

#[test]
fn a_copy_of_the_example_starts_over() {
    let project = TestProject::new();
    let dir = project.base().join("example");
    made(&dir, None);
    let project = observed(project, &dir);
    let lesson = fixtures().join("project").join(LESSONS);
    let mut edited = fs::read(&lesson).unwrap();
    edited.extend_from_slice(b"**Also:** Lock the account after five failed logins.\n");
    fs::write(dir.join(LESSONS), &edited).unwrap();
    made(&dir, None);
    assert!(!dir.join(OUTCOMES).exists(), "the receipts are removed");
    assert_eq!(
        fs::read(dir.join(LESSONS)).unwrap(),
        fs::read(&lesson).unwrap()
    );
    observed(project, &dir);
}

#[test]
fn another_folder_or_a_file_is_refused_untouched() {
    let project = TestProject::new().write("notes.md", "# Mine\n");
    let dir = project.path("");
    let before = project.snapshot();
    let output = make_run(&dir, None);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!(
            "make-run: {} is not empty and is not a copy of this example: name a new folder\n",
            dir.display()
        )
    );
    let file = project.path("notes.md");
    let output = make_run(&file, None);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!("make-run: {} is not a folder\n", file.display())
    );
    assert_same(&before, &project.snapshot(), "refused make-run");
}

/// The first `tool` on this process's `PATH`.
fn on_path(tool: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(tool))
        .find(|path| path.is_file())
}
