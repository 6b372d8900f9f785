//! The README's examples are real: every ```` ```console ```` block is run and its output
//! compared byte for byte.
//!
//! A block is a sequence of `$ [VAR=value …] bmad-mem <args…>` lines, each followed by the
//! exact stdout it prints. Each block runs in a fresh temporary folder holding a copy of
//! `fixtures/`, so `-d fixtures/example` works and nothing in the repository is written.

use std::path::Path;
use std::process::Command;

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
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let blocks = console_blocks(&readme);
    assert!(blocks.len() >= 3, "the README lost its examples");
    for block in blocks {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&root.join("fixtures"), &dir.path().join("fixtures"));
        for (command, expected) in block {
            let words = shell_words(&command);
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
    }
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
