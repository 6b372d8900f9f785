//! The README's examples are real: every ```` ```console ```` block is run and its output
//! compared byte for byte; so are those of `docs/EVIDENCE.md`, the worked example of evidence.
//!
//! A block is a sequence of `$ [VAR=value …] bmad-mem <args…>` lines, each followed by the
//! exact stdout it prints, and `$ cp -r <folder>/. <copy>` lines, which print nothing. Each
//! block runs in a fresh temporary folder holding a copy of `fixtures/`, so `-d fixtures/example`
//! works and nothing in the repository is written; a path under `/tmp/` in a block stands for
//! the same path under that temporary folder, so examples that write to a copy in `/tmp`
//! write nowhere else.
//!
//! The evidence example also has shell lines, `$ sh <script> <args…>` (its setup,
//! `fixtures/evidence/make-run.sh`) and `$ echo <text> >> <file>` (an edit): each runs as
//! written with `sh -c` in the block's folder, so it names no `/tmp/` path (its project is a
//! folder beside the reader: Nexus refuses a project reached through a link, as `/tmp` is on
//! macOS). Nothing it prints depends on the temporary folder's path: the run's one
//! path-dependent field that a receipt would carry, `baseline.repository`, is left out of the
//! example's run, so its receipt ids are the same in every folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A README path as the block's run sees it: `/tmp/…` moved under the block's folder.
fn mapped(word: &str, dir: &Path) -> String {
    match word.strip_prefix("/tmp/") {
        Some(rest) => dir.join("tmp").join(rest).to_string_lossy().into_owned(),
        None => word.to_owned(),
    }
}

/// Runs `cp -r <folder>/. <copy>` (the contents of the folder into the copy, made if missing)
/// with [`copy_dir`], relative to `dir`; `words` are already [`mapped`].
fn copy_command(words: &[String], dir: &Path) {
    let [cp, recursive, from, to] = words else {
        panic!("not `cp -r <folder>/. <copy>`: {words:?}");
    };
    assert_eq!((cp.as_str(), recursive.as_str()), ("cp", "-r"), "{words:?}");
    let from = from
        .strip_suffix("/.")
        .unwrap_or_else(|| panic!("copy a folder's contents with `<folder>/.`: {words:?}"));
    // `words` are mapped already; `dir` itself may lie under `/tmp/`.
    let resolve = |p: &str| -> PathBuf { dir.join(p) };
    copy_dir(&resolve(from), &resolve(to));
}

/// Splits a shell line on spaces, honouring double quotes (enough for the README's commands).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut in_word = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            ' ' if !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            _ => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The console blocks of the README: each a list of (command line, expected stdout).
fn console_blocks(readme: &str) -> Vec<Vec<(String, String)>> {
    let mut blocks = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if line.trim_end() != "```console" {
            continue;
        }
        let mut block: Vec<(String, String)> = Vec::new();
        for line in lines.by_ref() {
            if line.trim_end() == "```" {
                break;
            }
            if let Some(command) = line.strip_prefix("$ ") {
                block.push((command.to_owned(), String::new()));
            } else if let Some((_, out)) = block.last_mut() {
                out.push_str(line);
                out.push('\n');
            }
        }
        blocks.push(block);
    }
    blocks
}

/// Every file under `dir`, by path relative to it, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                found.insert(path.strip_prefix(dir).unwrap().to_path_buf(), bytes);
            }
        }
    }
    found
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn readme_examples_print_what_the_readme_says() {
    assert!(replay("README.md") >= 3, "the README lost its examples");
}

#[test]
fn evidence_example_prints_what_it_says() {
    assert!(
        replay("docs/EVIDENCE.md") >= 3,
        "the evidence example lost its blocks"
    );
}

/// Runs every console block of `doc` (a path in the repository), each in a fresh folder; how
/// many there were.
fn replay(doc: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join(doc)).unwrap();
    let blocks = console_blocks(&text);
    let count = blocks.len();
    for block in blocks {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&root.join("fixtures"), &dir.path().join("fixtures"));
        let fixtures = files(&dir.path().join("fixtures"));
        for (command, expected) in block {
            let words: Vec<String> = shell_words(&command)
                .iter()
                .map(|w| mapped(w, dir.path()))
                .collect();
            if words.first().is_some_and(|w| w == "sh" || w == "echo") {
                shell_command(&command, &expected, dir.path());
                continue;
            }
            if words.first().is_some_and(|w| w == "cp") {
                assert_eq!(expected, "", "`{command}` prints nothing");
                copy_command(&words, dir.path());
                continue;
            }
            let program = words
                .iter()
                .position(|w| w == "bmad-mem")
                .unwrap_or_else(|| panic!("not a bmad-mem command: {command}"));
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_bmad-mem"));
            cmd.current_dir(dir.path()).env_remove("BMAD_MEM_NOW");
            for assignment in &words[..program] {
                let (key, value) = assignment.split_once('=').unwrap();
                cmd.env(key, value);
            }
            let output = cmd.args(&words[program + 1..]).output().unwrap();
            assert!(output.status.success(), "{command} failed: {output:?}");
            assert_eq!(
                String::from_utf8(output.stdout).unwrap(),
                expected,
                "output of `{command}`"
            );
        }
        // An example that writes must say so by writing to a copy: the fixtures, as a reader's
        // checkout has them, stay as they are.
        assert!(
            files(&dir.path().join("fixtures")) == fixtures,
            "an example of {doc} changed the fixtures"
        );
    }
    count
}

/// Runs a shell line of a block (`sh …`, `echo … >> …`) as written, with `sh -c` in `dir`; it
/// must succeed and print `expected`.
fn shell_command(command: &str, expected: &str, dir: &Path) {
    assert!(
        !command.contains("/tmp/"),
        "a shell line runs as written and cannot name a /tmp/ path: {command}"
    );
    let output = Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .env_remove("BMAD_MEM_NOW")
        .output()
        .unwrap();
    assert!(output.status.success(), "{command} failed: {output:?}");
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        expected,
        "output of `{command}`"
    );
}

#[test]
fn only_tmp_paths_are_mapped() {
    let dir = Path::new("/work/t");
    assert_eq!(mapped("/tmp/copy/x", dir), "/work/t/tmp/copy/x");
    assert_eq!(mapped("fixtures/example", dir), "fixtures/example");
    assert_eq!(mapped("/tmpfile", dir), "/tmpfile");
}

#[test]
fn shell_words_honours_quotes() {
    assert_eq!(
        shell_words(r#"A=1 bmad-mem write --task "Add login rate limit" -d x"#),
        [
            "A=1",
            "bmad-mem",
            "write",
            "--task",
            "Add login rate limit",
            "-d",
            "x"
        ]
    );
}
