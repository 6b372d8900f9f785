//! Real git for the tests of how the memory travels: a lab of repositories (a bare origin and
//! clones of it) with a home of its own, the real binary as their merge driver, and the helpers
//! the merge scenarios share.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value as Json;
use tempfile::TempDir;

use crate::support::{BIN, NOW, validate};

/// A folder of git repositories with a home of its own, so neither the machine's nor the
/// user's git config is read.
pub struct Lab {
    _tmp: TempDir,
    pub base: PathBuf,
}

impl Lab {
    pub fn new() -> Self {
        let tmp = tempfile::Builder::new()
            .prefix("bmad-mem-git-")
            .tempdir()
            .expect("tempdir");
        let base = tmp.path().canonicalize().expect("canonicalize");
        fs::create_dir(base.join("home")).expect("home");
        Self { _tmp: tmp, base }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.base.join(name)
    }

    /// A command with the lab's environment, run in `dir`.
    pub fn command(&self, program: &str, dir: &Path) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(dir)
            .stdin(Stdio::null())
            .env("HOME", self.base.join("home"))
            .env("XDG_CONFIG_HOME", self.base.join("home/.config"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("TZ", "UTC")
            .env("BMAD_MEM_NOW", NOW);
        for key in [
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_INDEX_FILE",
            "GIT_CONFIG_GLOBAL",
            "GIT_CONFIG",
            "GIT_EDITOR",
        ] {
            command.env_remove(key);
        }
        command.env("GIT_EDITOR", "true");
        command
    }

    /// `git <args>` in `dir`, which must succeed.
    pub fn git(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.try_git(dir, args);
        assert!(
            out.status.success(),
            "git {args:?} failed\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `git <args>` in `dir`, whatever it exits with.
    pub fn try_git(&self, dir: &Path, args: &[&str]) -> Output {
        self.command("git", dir)
            .args(args)
            .output()
            .expect("run git")
    }

    /// `bmad-mem <args>` in `dir` at `now`.
    pub fn mem(&self, dir: &Path, now: &str, args: &[&str]) -> Output {
        let out = self
            .command(BIN, dir)
            .env("BMAD_MEM_NOW", now)
            .args(args)
            .output()
            .expect("run bmad-mem");
        let words: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
        validate::check_output(
            &words,
            out.status.code().unwrap_or(-1),
            &String::from_utf8_lossy(&out.stdout),
        );
        out
    }

    /// `bmad-mem <args>`, which must succeed.
    pub fn mem_ok(&self, dir: &Path, now: &str, args: &[&str]) -> String {
        let out = self.mem(dir, now, args);
        assert!(
            out.status.success(),
            "bmad-mem {args:?} failed\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A bare origin with one commit holding a set-up project: `.gitattributes` and a journal of
    /// `events` events. Returns the origin's path.
    pub fn origin(&self, events: usize) -> PathBuf {
        let origin = self.path("origin.git");
        self.git(
            &self.base,
            &["init", "-q", "--bare", "-b", "main", "origin.git"],
        );
        let seed = self.clone_of("seed", true);
        for i in 0..events {
            self.mem_ok(
                &seed,
                &at(1, i),
                &["write", "--agent", "seed", "--task", &format!("base {i}")],
            );
        }
        self.commit(&seed, "seed");
        self.git(&seed, &["push", "-q", "origin", "main"]);
        origin
    }

    /// A clone of the origin named `name`, with an identity; set up when `setup`.
    pub fn clone_of(&self, name: &str, setup: bool) -> PathBuf {
        self.git(&self.base, &["clone", "-q", "origin.git", name]);
        let dir = self.path(name);
        for (key, value) in [
            ("user.name", name),
            ("user.email", "dev@example.com"),
            ("commit.gpgsign", "false"),
            ("pull.rebase", "false"),
        ] {
            self.git(&dir, &["config", "--local", key, value]);
        }
        if setup {
            self.mem_ok(&dir, NOW, &["git", "setup"]);
        }
        dir
    }

    /// Commits everything in `dir`; returns the commit.
    pub fn commit(&self, dir: &Path, message: &str) -> String {
        self.git(dir, &["add", "-A"]);
        self.git(dir, &["commit", "-q", "-m", message]);
        self.git(dir, &["rev-parse", "HEAD"]).trim().to_owned()
    }

    /// Fetches `commit` from the clone `from` into `into` and merges it.
    pub fn merge(&self, into: &Path, from: &Path, commit: &str) -> Output {
        self.git(into, &["fetch", "-q", from.to_str().expect("path"), commit]);
        self.try_git(into, &["merge", "--no-edit", commit])
    }
}

/// A timestamp on October `day`, 2026, `minute` minutes after 09:00.
pub fn at(day: u32, minute: usize) -> String {
    format!(
        "2026-10-{day:02}T{:02}:{:02}:00.000Z",
        9 + minute / 60,
        minute % 60
    )
}

pub fn read(dir: &Path, rel: &str) -> String {
    fs::read_to_string(dir.join(rel)).unwrap_or_default()
}

/// The ids of the records of an NDJSON file.
pub fn ids(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| {
            let record: Json = serde_json::from_str(line).expect("a JSON line");
            record["id"].as_str().expect("an id").to_owned()
        })
        .collect()
}

pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Both sides' writes: `writes` events and one reinforcement of `pattern` in `dir`, on `day`.
pub fn work(lab: &Lab, dir: &Path, day: u32, agent: &str, writes: usize, pattern: &str) {
    for i in 0..writes {
        lab.mem_ok(
            dir,
            &at(day, i),
            &["write", "--agent", agent, "--task", &format!("{agent} {i}")],
        );
    }
    lab.mem_ok(
        dir,
        &at(day, writes),
        &["reinforce", "--pattern", pattern, "--accept", "true"],
    );
}

/// The memory files of a clone, by name.
pub fn memory(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = fs::read_dir(dir.join(".bmad/memory"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            let name = e.file_name().into_string().unwrap();
            let text = fs::read_to_string(e.path()).unwrap();
            (name, text)
        })
        .collect();
    files.sort();
    files
}
