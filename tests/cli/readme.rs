//! The README's and the guide's examples are real: every ```` ```console ```` block of
//! README.md and docs/GUIDE.md is run and its output compared byte for byte.
//!
//! A block is a sequence of `$ [VAR=value …] bmad-mem <args…>` lines, each followed by the
//! exact stdout it prints; `$ git <args…>` lines, run by git, likewise; and lines that print
//! nothing: `$ cp -r <folder>/. <copy>`, `$ rm -rf <path>`, `$ mkdir -p <path>`. Commands may be
//! joined by ` && `. A document's blocks run in order in one fresh temporary folder holding a
//! copy of `fixtures/`, as a reader runs them, so `-d fixtures/example` works and nothing in the repository is written; a path under
//! `/tmp/` in a block stands for the same path under that temporary folder (and in what a
//! command prints, that folder is written `/tmp/` again), so examples that write to a copy in
//! `/tmp` write nowhere else. `HOME` is `/tmp/home`, an empty folder, and the variables that
//! would change an answer (`BMAD_PLUS_BRAIN`, `BMAD_MEM_RANKING`, an agent's project folder) are
//! unset.
//!
//! The guide's worked example of evidence also has shell lines, `$ sh <script> <args…>` (its
//! setup, `fixtures/evidence/make-run.sh`) and `$ echo <text> >> <file>` (an edit): each runs
//! whole, as written, with `sh -c` in the document's folder, so it names no `/tmp/` path (its
//! project is a folder beside the reader: Nexus refuses a project reached through a link, as
//! `/tmp` is on macOS). Nothing it prints depends on the temporary folder's path: the run's one
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

/// The variables a reader's environment may hold that would change what an example prints.
const UNSET: [&str; 6] = [
    "BMAD_MEM_NOW",
    "BMAD_PLUS_BRAIN",
    "BMAD_MEM_RANKING",
    "CLAUDE_PROJECT_DIR",
    "GEMINI_PROJECT_DIR",
    "XDG_CACHE_HOME",
];

/// Runs one command of a block (already split into [`mapped`] words) in `dir`; returns what it
/// printed on stdout, with `dir`'s `tmp/` written `/tmp/` again.
fn run(command: &str, words: &[String], dir: &Path) -> String {
    let tmp = dir.join("tmp");
    let inside = |path: &str| {
        assert!(
            Path::new(path).starts_with(&tmp),
            "`{command}` may only touch /tmp/: {path}"
        );
    };
    match words.first().map(String::as_str) {
        Some("cp") => {
            copy_command(words, dir);
            return String::new();
        }
        Some("rm") => {
            let ["rm", "-rf", path] = &words.iter().map(String::as_str).collect::<Vec<_>>()[..]
            else {
                panic!("not `rm -rf <path>`: {command}");
            };
            inside(path);
            if Path::new(path).exists() {
                std::fs::remove_dir_all(path).unwrap();
            }
            return String::new();
        }
        Some("mkdir") => {
            let ["mkdir", "-p", path] = &words.iter().map(String::as_str).collect::<Vec<_>>()[..]
            else {
                panic!("not `mkdir -p <path>`: {command}");
            };
            inside(path);
            std::fs::create_dir_all(path).unwrap();
            return String::new();
        }
        _ => {}
    }
    let program = words
        .iter()
        .position(|w| w == "bmad-mem" || w == "git")
        .unwrap_or_else(|| panic!("not a bmad-mem or git command: {command}"));
    let mut cmd = if words[program] == "git" {
        let mut git = Command::new("git");
        git.env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1");
        git
    } else {
        Command::new(env!("CARGO_BIN_EXE_bmad-mem"))
    };
    cmd.current_dir(dir).env("HOME", tmp.join("home"));
    for name in UNSET {
        cmd.env_remove(name);
    }
    for assignment in &words[..program] {
        let (key, value) = assignment.split_once('=').unwrap();
        cmd.env(key, value);
    }
    let output = cmd.args(&words[program + 1..]).output().unwrap();
    assert!(output.status.success(), "{command} failed: {output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .replace(&format!("{}/", tmp.display()), "/tmp/")
}

/// Whether `printed` is `expected`, where an expected line that is `…` alone (indented or not)
/// stands for any number of lines — for what depends on the reader's machine, such as the
/// name of a file derived from the project's absolute path.
fn matches(printed: &str, expected: &str) -> bool {
    fn lines_match(printed: &[&str], expected: &[&str]) -> bool {
        match expected.split_first() {
            None => printed.is_empty(),
            Some((line, rest)) if line.trim() == "…" => {
                (0..=printed.len()).any(|skip| lines_match(&printed[skip..], rest))
            }
            Some((line, rest)) => printed
                .split_first()
                .is_some_and(|(first, others)| first == line && lines_match(others, rest)),
        }
    }
    let printed: Vec<&str> = printed.split('\n').collect();
    let expected: Vec<&str> = expected.split('\n').collect();
    lines_match(&printed, &expected)
}

/// A shell line of the evidence example, run whole by `sh -c` in `dir`; what it printed.
fn shell_line(line: &str, dir: &Path) -> String {
    assert!(
        !line.contains("/tmp/"),
        "a shell line runs as written and cannot name a /tmp/ path: {line}"
    );
    let output = Command::new("sh")
        .args(["-c", line])
        .current_dir(dir)
        .env_remove("BMAD_MEM_NOW")
        .output()
        .unwrap();
    assert!(output.status.success(), "{line} failed: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// Replays every console block of the document at `path` (relative to the repository).
fn replay(path: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join(path)).unwrap();
    let blocks = console_blocks(&text);
    let count = blocks.len();
    // One folder for the whole document, as a reader runs its blocks one after the other.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root.join("fixtures"), &dir.path().join("fixtures"));
    std::fs::create_dir_all(dir.path().join("tmp/home")).unwrap();
    let fixtures = files(&dir.path().join("fixtures"));
    for block in blocks {
        for (line, expected) in block {
            let printed = if line.starts_with("sh ") || line.starts_with("echo ") {
                shell_line(&line, dir.path())
            } else {
                let mut printed = String::new();
                for command in line.split(" && ") {
                    let words: Vec<String> = shell_words(command)
                        .iter()
                        .map(|w| mapped(w, dir.path()))
                        .collect();
                    printed.push_str(&run(command, &words, dir.path()));
                }
                printed
            };
            assert!(
                matches(&printed, &expected),
                "{path}: output of `{line}`:\n{printed}\nexpected:\n{expected}"
            );
        }
        // An example that writes must say so by writing to a copy: the fixtures, as a reader's
        // checkout has them, stay as they are.
        assert!(
            files(&dir.path().join("fixtures")) == fixtures,
            "{path}: an example changed the fixtures"
        );
    }
    count
}

#[test]
fn readme_examples_print_what_the_readme_says() {
    assert!(replay("README.md") >= 2, "the README lost its examples");
}

#[test]
fn guide_examples_print_what_the_guide_says() {
    assert!(replay("docs/GUIDE.md") >= 5, "the guide lost its examples");
}

/// The README is a front page: a newcomer reads it in two minutes, and its quick start takes
/// an agent user from nothing to a wired, committed memory.
#[test]
fn the_readme_stays_a_front_page_with_its_quick_start() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md is {lines} lines; its budget is 250: move detail to docs/"
    );
    let (_, quick) = readme
        .split_once("\n## Quick start")
        .expect("the README's quick start");
    // The section ends at the next `## ` heading outside a code block.
    let mut fenced = false;
    let section: Vec<&str> = quick
        .lines()
        .skip(1)
        .take_while(|line| {
            fenced ^= line.starts_with("```");
            fenced || !line.starts_with("## ")
        })
        .collect();
    let blocks = console_blocks(&section.join("\n"));
    let commands: Vec<&str> = blocks.iter().flatten().map(|(c, _)| c.as_str()).collect();
    for step in [
        " init",
        " hooks install --agent ",
        " brief",
        "git -C /tmp/shop status",
    ] {
        assert!(
            commands.iter().any(|c| c.contains(step)),
            "the quick start lost its `{step}` step: {commands:?}"
        );
    }
}

#[test]
fn an_ellipsis_line_stands_for_any_lines() {
    assert!(matches("a\nb\nc\n", "a\n  …\nc\n"));
    assert!(matches("a\nc\n", "a\n…\nc\n"));
    assert!(!matches("a\nb\nd\n", "a\n…\nc\n"));
    assert!(!matches("a\nb\n", "a\n"));
}

/// The ```` ```sh ```` block after the marker `<!-- install:<name> -->` in the guide.
fn marked_block(readme: &str, name: &str) -> String {
    let marker = format!("<!-- install:{name} -->\n```sh\n");
    let start = readme
        .find(&marker)
        .unwrap_or_else(|| panic!("no {marker:?} in docs/GUIDE.md"))
        + marker.len();
    let end = readme[start..].find("```\n").expect("the block's end") + start;
    readme[start..end].to_owned()
}

#[test]
fn the_install_lines_run_as_written_on_a_fresh_home() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/GUIDE.md"))
            .expect("read docs/GUIDE.md");
    let home = tempfile::tempdir().expect("a temporary home");
    let bin = Path::new(crate::support::BIN)
        .parent()
        .expect("the binary's folder");
    for name in ["completions", "man"] {
        let block = marked_block(&readme, name);
        let out = Command::new("bash")
            .args(["--norc", "--noprofile", "-e", "-c", &block])
            .env_clear()
            .env("HOME", home.path())
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .current_dir(home.path())
            .output()
            .expect("run bash");
        assert!(out.status.success(), "{name}: {out:?}");
        assert!(
            out.stdout.is_empty() && out.stderr.is_empty(),
            "{name}: {out:?}"
        );
    }
    for file in [
        ".local/share/bash-completion/completions/bmad-mem",
        ".zfunc/_bmad-mem",
        ".config/fish/completions/bmad-mem.fish",
    ] {
        let script = std::fs::read_to_string(home.path().join(file)).expect(file);
        assert!(script.contains("--ranking"), "{file}");
    }
    // Every page bmad-mem has, and nothing else.
    let mut expected: Vec<String> = bmad_mem::cli::manual_pages()
        .iter()
        .map(|words| {
            let name = std::iter::once("bmad-mem")
                .chain(words.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join("-");
            format!("{name}.1")
        })
        .collect();
    expected.sort();
    let mut installed: Vec<String> = std::fs::read_dir(home.path().join(".local/share/man/man1"))
        .expect("the man folder")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    installed.sort();
    assert_eq!(installed, expected);
    for page in &installed {
        let text =
            std::fs::read_to_string(home.path().join(".local/share/man/man1").join(page)).unwrap();
        assert!(text.contains(".SH NAME"), "{page}");
    }
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
