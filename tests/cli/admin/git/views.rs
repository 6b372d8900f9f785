//! The generated views never block a merge: the hooks `git setup` installs (chained with the
//! user's own, respecting `core.hooksPath`, linked work trees and a project in a subfolder, with
//! spaces and `@` in every path), `git hook` itself, `doctor`'s check of the hooks, docs/GIT.md's
//! CI recipe run as written, and candidate ids that are the same in every clone.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::admin::git::{CANDIDATES, INDEX, copied_output};
use crate::support::gitlab::{Lab, read, text};
use crate::support::{BIN, NOW, TestProject};

const LESSONS: &str = ".agents/memory/lessons.md";

/// Proposes an entry of `kind` titled `title` in `dir` and admits it; returns its id.
fn admit(lab: &Lab, dir: &Path, kind: &str, title: &str) -> String {
    let out = lab.mem_ok(
        dir,
        NOW,
        &[
            "propose", "--type", kind, "--title", title, "--body", "Because.", "--json",
        ],
    );
    let proposed: Json = serde_json::from_str(&out).expect("propose --json");
    let id = proposed["id"].as_str().expect("id").to_owned();
    let sha = proposed["sha256"].as_str().expect("sha256").to_owned();
    lab.mem_ok(
        dir,
        NOW,
        &["admit", &id, "--expect", &sha, "--actor", "someone"],
    );
    id
}

/// `doctor` in `dir`: its exit status and its output.
fn doctor(lab: &Lab, dir: &Path) -> (i32, String) {
    let out = lab.mem(dir, NOW, &["doctor"]);
    (out.status.code().unwrap_or(-1), text(&out))
}

/// Writes an executable hook.
fn hook(dir: &Path, name: &str, text: &str, mode: u32) {
    fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
}

fn json(out: &str) -> Json {
    serde_json::from_str(out).expect("JSON")
}

/// The hooks a setup or removal report names: (hook, file, action).
fn changes(report: &Json) -> Vec<(String, String, String)> {
    report["hooks"]
        .as_array()
        .expect("hooks")
        .iter()
        .map(|h| {
            (
                h["hook"].as_str().unwrap().to_owned(),
                h["file"].as_str().unwrap().to_owned(),
                h["action"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn triple(hook: &str, file: &str, action: &str) -> (String, String, String) {
    (hook.to_owned(), file.to_owned(), action.to_owned())
}

/// The block setup puts into a hook for the project at the top, with the test binary.
fn block(hook: &str) -> String {
    format!(
        "# >>> bmad-mem: rebuild the memory's views (project folder: .) >>>\n\
         # Added by `bmad-mem git setup`, which kept the rest of this file as it was;\n\
         # `bmad-mem git setup --remove-hooks` takes this block out again.\n\
         if [ -d ./.bmad/memory ]; then\n\
         \x20 if [ -x {BIN} ]; then\n\
         \x20   {BIN} -d . git hook {hook} \"$@\" </dev/null || :\n\
         \x20 else\n\
         \x20   echo 'bmad-mem: not found, so the views of the memory were not rebuilt; run `bmad-mem doctor --rebuild-views`' >&2\n\
         \x20 fi\n\
         fi\n\
         # <<< bmad-mem: rebuild the memory's views (project folder: .) <<<\n"
    )
}

/// The origin, its first entry admitted and pushed, so that the views are in use in every clone.
fn seeded(lab: &Lab) {
    lab.origin(0);
    let seed = lab.path("seed");
    admit(lab, &seed, "lesson", "Seed lesson");
    lab.commit(&seed, "seed entry");
    lab.git(&seed, &["push", "-q", "origin", "main"]);
}

/// A new repository named `name` in the lab.
fn repository(lab: &Lab, name: &str) -> PathBuf {
    lab.git(&lab.base, &["init", "-q", "-b", "main", name]);
    lab.path(name)
}

#[test]
fn setup_chains_the_view_hooks_with_the_users_own_once_and_removes_only_its_block() {
    let lab = Lab::new();
    let p = repository(&lab, "p q@1");
    let hooks = p.join(".git/hooks");
    let merge_hook = "#!/bin/sh -e\necho \"their post-merge $*\" >&2\nexit 0\n";
    hook(&hooks, "post-merge", merge_hook, 0o750);

    let report = json(&lab.mem_ok(&p, NOW, &["git", "setup", "--json"]));
    assert_eq!(
        changes(&report),
        [
            triple("post-merge", ".git/hooks/post-merge", "added"),
            triple("post-checkout", ".git/hooks/post-checkout", "created"),
            triple("post-rewrite", ".git/hooks/post-rewrite", "created"),
        ]
    );
    assert_eq!(report["warnings"], serde_json::json!([]));
    // Theirs: our block after their first line, the rest and the mode as they were.
    assert_eq!(
        read(&p, ".git/hooks/post-merge"),
        format!(
            "#!/bin/sh -e\n{}echo \"their post-merge $*\" >&2\nexit 0\n",
            block("post-merge")
        )
    );
    let mode = |name: &str| fs::metadata(hooks.join(name)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("post-merge"), 0o750);
    assert_eq!(
        read(&p, ".git/hooks/post-checkout"),
        format!("#!/bin/sh\n{}", block("post-checkout"))
    );
    assert_eq!(mode("post-checkout"), 0o755);

    // Twice installs once.
    let again = json(&lab.mem_ok(&p, NOW, &["git", "setup", "--json"]));
    assert_eq!(again["alreadySetUp"], true);
    assert!(changes(&again).is_empty());
    assert_eq!(
        read(&p, ".git/hooks/post-merge")
            .matches("# >>> bmad-mem")
            .count(),
        1
    );
    let before: Vec<String> = ["post-merge", "post-checkout", "post-rewrite"]
        .iter()
        .map(|h| read(&p, &format!(".git/hooks/{h}")))
        .collect();

    // A dry run of the removal changes nothing; the removal takes out exactly our block.
    let dry = lab.mem_ok(&p, NOW, &["git", "setup", "--remove-hooks", "--dry-run"]);
    assert_eq!(
        dry,
        "mem git setup: dry run — nothing was changed; it would:\n  would take the views' rebuild out of .git/hooks/post-merge\n  would delete .git/hooks/post-checkout\n  would delete .git/hooks/post-rewrite\n"
    );
    assert_eq!(read(&p, ".git/hooks/post-merge"), before[0]);
    let removed = json(&lab.mem_ok(&p, NOW, &["git", "setup", "--remove-hooks", "--json"]));
    assert_eq!(
        changes(&removed),
        [
            triple("post-merge", ".git/hooks/post-merge", "removed"),
            triple("post-checkout", ".git/hooks/post-checkout", "deleted"),
            triple("post-rewrite", ".git/hooks/post-rewrite", "deleted"),
        ]
    );
    assert_eq!(read(&p, ".git/hooks/post-merge"), merge_hook);
    assert_eq!(mode("post-merge"), 0o750);
    assert!(!hooks.join("post-checkout").exists());
    assert_eq!(
        lab.mem_ok(&p, NOW, &["git", "setup", "--remove-hooks"]),
        "mem git setup: no hook of this clone rebuilds the memory's views; nothing was changed\n"
    );
    // Setting up again from there: the human form.
    let out = lab.mem_ok(&p, NOW, &["git", "setup"]);
    assert!(
        out.ends_with(
            "  added the views' rebuild to your hook .git/hooks/post-merge\n  created .git/hooks/post-checkout\n  created .git/hooks/post-rewrite\n"
        ),
        "{out}"
    );
    assert_eq!(read(&p, ".git/hooks/post-merge"), before[0]);
}

#[test]
fn hooks_setup_cannot_edit_are_left_as_they_are_with_the_line_to_add() {
    let lab = Lab::new();
    let p = repository(&lab, "p");
    let hooks = p.join(".git/hooks");
    let python = "#!/usr/bin/env python3\nprint('theirs')\n";
    hook(&hooks, "post-merge", python, 0o755);
    hook(&hooks, "post-checkout", "#!/bin/sh\necho off\n", 0o644);
    fs::write(lab.path("shared-hook"), "#!/bin/sh\n").unwrap();
    std::os::unix::fs::symlink(lab.path("shared-hook"), hooks.join("post-rewrite")).unwrap();

    let report = json(&lab.mem_ok(&p, NOW, &["git", "setup", "--json"]));
    assert!(changes(&report).is_empty());
    let call = |h: &str| format!("{BIN} -d . git hook {h} \"$@\"");
    assert_eq!(
        report["warnings"],
        serde_json::json!([
            format!(
                ".git/hooks/post-merge is not a shell script, so it was left as it is and does not rebuild the memory's views; have it run `{}`",
                call("post-merge")
            ),
            format!(
                ".git/hooks/post-checkout is not executable (git does not run it), so it was left as it is and does not rebuild the memory's views; have it run `{}`",
                call("post-checkout")
            ),
            format!(
                ".git/hooks/post-rewrite is a symbolic link, so it was left as it is and does not rebuild the memory's views; have it run `{}`",
                call("post-rewrite")
            ),
        ])
    );
    assert_eq!(read(&p, ".git/hooks/post-merge"), python);
    assert_eq!(read(&lab.base, "shared-hook"), "#!/bin/sh\n");
    // A hook that runs `git hook <name>` by hand counts as installed.
    hook(
        &hooks,
        "post-merge",
        &format!("#!/usr/bin/env python3\n# {}\n", call("post-merge")),
        0o755,
    );
    let report = json(&lab.mem_ok(&p, NOW, &["git", "setup", "--json"]));
    assert_eq!(report["warnings"].as_array().unwrap().len(), 2);
    // So does a link to a shared script that runs it.
    fs::write(
        lab.path("shared-hook"),
        format!(
            "#!/bin/sh
{}
",
            call("post-rewrite")
        ),
    )
    .unwrap();
    let report = json(&lab.mem_ok(&p, NOW, &["git", "setup", "--json"]));
    assert_eq!(
        report["warnings"],
        serde_json::json!([format!(
            ".git/hooks/post-checkout is not executable (git does not run it), so it was left as it is and does not rebuild the memory's views; have it run `{}`",
            call("post-checkout")
        )])
    );
}

#[test]
fn after_a_merge_a_branch_checkout_and_a_rebase_the_views_are_rebuilt() {
    let lab = Lab::new();
    seeded(&lab);
    let a = lab.clone_of("alice smith@home", true);
    let b = lab.clone_of("bob@work", true);

    // Both admit, each into another note file: the views differ on both sides.
    admit(&lab, &a, "lesson", "Alice lesson");
    lab.commit(&a, "alice");
    lab.git(&a, &["push", "-q", "origin", "main"]);
    admit(&lab, &b, "decision", "Bob decision");
    lab.commit(&b, "bob");
    let before_merge = lab.git(&b, &["rev-parse", "HEAD"]).trim().to_owned();
    lab.git(&b, &["fetch", "-q", "origin"]);
    let out = lab.try_git(&b, &["merge", "--no-edit", "origin/main"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "mem git hook: after the merge, rebuilt {INDEX} from the notes; commit the change"
        )),
        "{}",
        text(&out)
    );
    let index = read(&b, INDEX);
    assert!(
        index.contains("Alice lesson |") && index.contains("Bob decision"),
        "{index}"
    );
    assert_eq!(doctor(&lab, &b).0, 0, "{}", doctor(&lab, &b).1);
    lab.commit(&b, "views");

    // A branch checkout whose committed views are stale gets them rebuilt; a checkout of
    // files does not.
    lab.git(&b, &["switch", "-q", "-c", "stale", &before_merge]);
    fs::write(b.join(INDEX), "stale\n").unwrap();
    lab.commit(&b, "a stale view");
    lab.git(&b, &["switch", "-q", "main"]);
    let out = lab.try_git(&b, &["checkout", "stale", "--", INDEX]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(read(&b, INDEX), "stale\n");
    lab.git(&b, &["checkout", "-q", "main", "--", INDEX]);
    let out = lab.try_git(&b, &["switch", "stale"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(read(&b, INDEX).starts_with("<!-- Generated by bmad-mem"));
    assert!(
        text(&out).contains(&format!(
            "mem git hook: after the checkout, rebuilt {INDEX} from the notes"
        )),
        "{}",
        text(&out)
    );
    lab.git(&b, &["checkout", "-q", "--", INDEX]);
    // A linked work tree runs the clone's hooks: checking the stale branch out there rebuilds
    // that work tree's view.
    let out = lab.try_git(
        &b,
        &[
            "worktree",
            "add",
            "-q",
            "../linked tree@b",
            "-b",
            "t2",
            "stale",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(read(&lab.path("linked tree@b"), INDEX).starts_with("<!-- Generated by bmad-mem"));

    // A rebase onto a branch whose committed view is stale, stopped by a conflict of its own:
    // while it is under way the work tree's views are left as the rebase makes them (nothing
    // of ours to commit by mistake with a resolution), and its end rebuilds them.
    lab.git(&a, &["switch", "-q", "-c", "topic"]);
    admit(&lab, &a, "pattern", "Alice pattern");
    fs::write(a.join("README"), "topic\n").unwrap();
    lab.commit(&a, "alice pattern");
    lab.git(&a, &["switch", "-q", "main"]);
    fs::write(a.join(INDEX), "stale on main\n").unwrap();
    fs::write(a.join("README"), "main\n").unwrap();
    lab.commit(&a, "stale view on main");
    lab.git(&a, &["switch", "-q", "topic"]);
    let out = lab.try_git(&a, &["rebase", "main"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(!text(&out).contains("mem git hook"), "{}", text(&out));
    let status = lab.git(&a, &["status", "--porcelain"]);
    assert!(
        status.contains("AA README\n") && !status.contains("INDEX.md"),
        "{status}"
    );
    fs::write(a.join("README"), "both\n").unwrap();
    lab.git(&a, &["add", "README"]);
    let out = lab.try_git(&a, &["rebase", "--continue"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "mem git hook: after the rebase, rebuilt {INDEX} from the notes"
        )),
        "{}",
        text(&out)
    );
    assert!(read(&a, INDEX).contains("Alice pattern |"));
    assert_eq!(doctor(&lab, &a).0, 0, "{}", doctor(&lab, &a).1);
}

#[test]
fn the_users_hooks_keep_their_arguments_input_and_exit_status() {
    let lab = Lab::new();
    seeded(&lab);
    let a = lab.clone_of("a", false);
    let hooks = a.join(".git/hooks");
    hook(
        &hooks,
        "post-checkout",
        "#!/bin/sh\necho \"theirs $3\" >> ../checkouts.log\nexit 3\n",
        0o755,
    );
    hook(
        &hooks,
        "post-rewrite",
        "#!/bin/bash\ncat > ../rewritten.log\n",
        0o755,
    );
    lab.mem_ok(&a, NOW, &["git", "setup"]);
    lab.git(&a, &["commit", "-q", "--allow-empty", "-m", "one"]);
    // Their post-checkout still fails git's checkout (git exits 1 for a failing hook), after
    // our block ran.
    let out = lab.try_git(&a, &["switch", "-c", "x"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(read(&lab.base, "checkouts.log"), "theirs 1\n");
    // post-rewrite's standard input is theirs.
    lab.git(
        &a,
        &["commit", "-q", "--amend", "--allow-empty", "-m", "two"],
    );
    let rewritten = read(&lab.base, "rewritten.log");
    assert_eq!(rewritten.lines().count(), 1, "{rewritten:?}");
}

#[test]
fn a_missing_binary_is_one_line_and_never_fails_git() {
    let lab = Lab::new();
    seeded(&lab);
    let tools = lab.path("my tools @ home");
    fs::create_dir(&tools).unwrap();
    let bin = tools.join("bmad-mem");
    fs::copy(BIN, &bin).unwrap();
    let a = lab.clone_of("a b@c", false);
    let out = copied_output(
        lab.command(bin.to_str().unwrap(), &a)
            .env("PATH", "/usr/bin:/bin")
            .args(["git", "setup"]),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        read(&a, ".git/hooks/post-merge").contains(&format!("'{}' -d . git hook", bin.display()))
    );
    // The binary as setup named it runs: a branch whose committed view is stale gets it rebuilt.
    fs::write(a.join(INDEX), "stale\n").unwrap();
    lab.commit(&a, "stale");
    lab.git(&a, &["switch", "-q", "-c", "two", "HEAD~1"]);
    let out = lab.try_git(&a, &["switch", "main"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        read(&a, INDEX).starts_with("<!-- Generated by bmad-mem"),
        "{}",
        text(&out)
    );
    lab.git(&a, &["checkout", "-q", "--", INDEX]);
    // Gone: one line, and git goes on.
    fs::remove_file(&bin).unwrap();
    let out = lab.try_git(&a, &["switch", "two"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.starts_with("bmad-mem:"))
            .collect::<Vec<_>>(),
        [
            "bmad-mem: not found, so the views of the memory were not rebuilt; run `bmad-mem doctor --rebuild-views`"
        ]
    );
    let out = lab.try_git(&a, &["switch", "main"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(read(&a, INDEX), "stale\n");
}

#[test]
fn a_hooks_path_a_linked_work_tree_and_a_project_in_a_subfolder() {
    let lab = Lab::new();
    let repo = repository(&lab, "repo");
    for (key, value) in [
        ("user.name", "me"),
        ("user.email", "me@example.com"),
        ("core.hooksPath", "team hooks"),
    ] {
        lab.git(&repo, &["config", "--local", key, value]);
    }
    let sub = "apps/web shop@1";
    let project = repo.join(sub);
    fs::create_dir_all(project.join(".bmad/memory")).unwrap();
    let report = json(&lab.mem_ok(&project, NOW, &["git", "setup", "--json"]));
    assert_eq!(
        changes(&report)[0],
        triple("post-merge", "../../team hooks/post-merge", "created")
    );
    let text_of = read(&repo, "team hooks/post-merge");
    assert!(
        text_of.contains("(project folder: apps/web shop@1)")
            && text_of.contains("if [ -d 'apps/web shop@1'/.bmad/memory ]; then")
            && text_of.contains("-d 'apps/web shop@1' git hook post-merge"),
        "{text_of}"
    );
    assert!(!repo.join(".git/hooks/post-merge").exists());
    admit(&lab, &project, "lesson", "Web lesson");
    lab.commit(&repo, "entry");
    let index = format!("{sub}/{INDEX}");
    lab.git(&repo, &["branch", "stale"]);
    lab.git(&repo, &["switch", "-q", "stale"]);
    fs::write(repo.join(&index), "stale\n").unwrap();
    lab.commit(&repo, "stale view");
    lab.git(&repo, &["switch", "-q", "main"]);
    // The hooks folder is tracked here, so a linked work tree has it too: checking the stale
    // branch out there rebuilds the view in that work tree.
    let out = lab.try_git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "../linked tree",
            "-b",
            "t2",
            "stale",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let linked = lab.path("linked tree");
    assert!(
        read(&linked, &index).starts_with("<!-- Generated by bmad-mem"),
        "{}",
        text(&out)
    );
    assert_eq!(read(&repo, &index), read(&linked, &index));
    // doctor in the subfolder finds the hooks.
    assert_eq!(doctor(&lab, &project).0, 0, "{}", doctor(&lab, &project).1);
}

#[test]
fn doctor_names_the_missing_hooks_and_the_command_that_adds_them() {
    let lab = Lab::new();
    lab.origin(0);
    let a = lab.clone_of("a", true);
    // No entry command used yet: the hooks do not matter.
    lab.mem_ok(&a, NOW, &["git", "setup", "--remove-hooks"]);
    assert_eq!(doctor(&lab, &a).0, 0);
    admit(&lab, &a, "lesson", "A lesson");
    let (code, out) = doctor(&lab, &a);
    assert_eq!(code, 1);
    assert!(
        out.contains("  .git/hooks [view-hooks-missing]: the git hook(s) post-merge, post-checkout, post-rewrite of this clone do not rebuild the generated views, so after a merge, checkout or rebase they keep the version git left; `bmad-mem git setup` adds them (any hook of yours is kept)\n"),
        "{out}"
    );
    let report: Json = json(&String::from_utf8_lossy(
        &lab.mem(&a, NOW, &["doctor", "--json"]).stdout,
    ));
    assert_eq!(report["problems"][0]["kind"], "view-hooks-missing");
    lab.mem_ok(&a, NOW, &["git", "setup"]);
    assert_eq!(doctor(&lab, &a).0, 0, "{}", doctor(&lab, &a).1);
    // A hook replaced since (another tool rewrote it) is named alone.
    hook(&a.join(".git/hooks"), "post-rewrite", "#!/bin/sh\n", 0o755);
    let (code, out) = doctor(&lab, &a);
    assert_eq!(code, 1);
    assert!(
        out.contains("the git hook(s) post-rewrite of this clone"),
        "{out}"
    );
}

#[test]
fn git_hook_rebuilds_only_when_the_event_may_have_changed_the_notes() {
    let skipped = |project: TestProject, args: &[&str], reason: &str| {
        // `--json` first: whatever follows the hook's name is git's arguments.
        let mut words = vec!["--json", "git", "hook"];
        words.extend_from_slice(args);
        let ran = project.args(words).code(0).stderr("").unchanged().run();
        let report: Json = ran.json();
        assert_eq!(report["skipped"], reason, "{args:?}");
        assert_eq!(report["rebuilt"], serde_json::json!([]));
        ran.then()
    };
    let project = TestProject::new().mkdir(".bmad/memory/candidates");
    let project = skipped(
        project,
        &["post-checkout", "a", "b", "0"],
        "a checkout of files",
    );
    let project = skipped(
        project,
        &["post-checkout", "a", "a", "1"],
        "the checkout changed no commit",
    );
    let project = skipped(project, &["post-rewrite", "amend"], "not a rebase");
    // Without a view or the candidates folder, nothing is created.
    let _ = skipped(
        TestProject::new().write(LESSONS, "# Lessons\n"),
        &["post-merge", "0"],
        "the entry commands were never used in this project",
    );
    // Otherwise the views are rebuilt (outside git too); silent when nothing changed.
    let ran = project
        .args(["git", "hook", "post-merge", "0"])
        .code(0)
        .stdout(&format!(
            "mem git hook: after the merge, rebuilt {CANDIDATES} and {INDEX} from the notes; commit the change\n"
        ))
        .run();
    let _ = ran
        .then()
        .args(["git", "hook", "post-merge", "0"])
        .code(0)
        .stdout("")
        .unchanged()
        .run()
        .then()
        .args(["git", "hook", "pre-commit"])
        .refused(
            "git",
            "`pre-commit` is not a hook bmad-mem handles; the hooks are post-merge, post-checkout and post-rewrite",
        );
}

// ---- docs/GIT.md's CI recipe ------------------------------------------------------------------

/// The shell script of the CI recipe in docs/GIT.md: the `run: |` step that merges, dedented,
/// with the one expression GitHub substitutes before the shell runs.
fn recipe() -> String {
    let docs = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/GIT.md"))
        .expect("docs/GIT.md");
    let lines: Vec<&str> = docs.lines().collect();
    let mut scripts = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim() != "- run: |" {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let body: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
            .copied()
            .collect();
        let margin = body
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(0);
        let script: String = body
            .iter()
            .flat_map(|l| [l.get(margin..).unwrap_or(""), "\n"])
            .collect();
        scripts.push(script);
    }
    let script = scripts
        .into_iter()
        .find(|s| s.contains("git merge"))
        .expect("a `- run: |` step that merges in docs/GIT.md");
    let script = script.replace("${{ github.base_ref }}", "main");
    assert!(!script.contains("${{"), "an expression left: {script}");
    script
}

/// A team's day: the seed, then `main` and `feature` both admitting, each pushed.
fn team_day(lab: &Lab) {
    seeded(lab);
    let b = lab.clone_of("bob", true);
    lab.git(&b, &["switch", "-q", "-c", "feature"]);
    admit(lab, &b, "decision", "Bob decision");
    lab.commit(&b, "bob");
    lab.git(&b, &["push", "-q", "-u", "origin", "feature"]);
    let a = lab.clone_of("alice", true);
    admit(lab, &a, "lesson", "Alice lesson");
    lab.commit(&a, "alice");
    lab.git(&a, &["push", "-q", "origin", "main"]);
}

/// A clone as actions/checkout leaves it: the pull request's branch checked out, every branch
/// fetched, no identity, nothing set up.
fn ci_clone(lab: &Lab, name: &str) -> PathBuf {
    lab.git(&lab.base, &["clone", "-q", "origin.git", name]);
    let dir = lab.path(name);
    lab.git(&dir, &["switch", "-q", "feature"]);
    dir
}

/// `PATH` with the binary's folder first, as `cargo install` leaves it.
fn path_with_binary() -> std::ffi::OsString {
    let dir = Path::new(BIN).parent().expect("the binary's folder");
    let mut path = vec![dir.to_path_buf()];
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(path).expect("PATH")
}

#[test]
fn the_ci_recipe_of_the_docs_passes_after_both_sides_admitted_and_pushes_the_rebuilt_views() {
    let lab = Lab::new();
    team_day(&lab);
    let ci = ci_clone(&lab, "ci");
    fs::write(lab.path("recipe.sh"), recipe()).unwrap();
    // GitHub's default shell for `run` on Linux.
    let out = lab
        .command("bash", &ci)
        .env("PATH", path_with_binary())
        .args(["-e", lab.path("recipe.sh").to_str().unwrap()])
        .output()
        .expect("bash");
    assert!(out.status.success(), "the recipe failed:\n{}", text(&out));
    // Nothing left uncommitted; what was pushed holds the views of the merged notes.
    assert_eq!(lab.git(&ci, &["status", "--porcelain"]), "");
    assert_eq!(
        lab.git(&ci, &["rev-parse", "HEAD"]),
        lab.git(&ci, &["rev-parse", "origin/feature"])
    );
    let pushed = lab.git(&ci, &["show", &format!("origin/feature:{INDEX}")]);
    for entry in ["Seed lesson", "Alice lesson", "Bob decision"] {
        assert!(pushed.contains(entry), "{entry}: {pushed}");
    }
    assert_eq!(pushed, read(&ci, INDEX));
}

#[test]
fn without_rebuilding_the_views_doctor_fails_that_merge() {
    // What the recipe did before it rebuilt the views, in a clone whose hooks do not rebuild
    // them either (set up before setup installed hooks): INDEX.md has drifted, doctor exits 1.
    let lab = Lab::new();
    team_day(&lab);
    let ci = ci_clone(&lab, "ci");
    for (key, value) in [("user.name", "ci"), ("user.email", "ci@example.com")] {
        lab.git(&ci, &["config", "--local", key, value]);
    }
    lab.mem_ok(&ci, NOW, &["git", "setup"]);
    lab.mem_ok(&ci, NOW, &["git", "setup", "--remove-hooks"]);
    let out = lab.try_git(&ci, &["merge", "--no-edit", "origin/main"]);
    assert!(out.status.success(), "{}", text(&out));
    let (code, report) = doctor(&lab, &ci);
    assert_eq!(code, 1, "{report}");
    assert!(
        report.contains(&format!(
            "  {INDEX} [view-drift]: out of date or edited by hand; `bmad-mem doctor --rebuild-views` regenerates it\n"
        )),
        "{report}"
    );
}

// ---- candidate ids ---------------------------------------------------------------------------

#[test]
fn two_clones_with_other_folder_names_give_a_candidate_the_same_id() {
    let lab = Lab::new();
    lab.origin(0);
    let ids: Vec<String> = ["alice", "bob's clone"]
        .into_iter()
        .map(|name| {
            let dir = lab.clone_of(name, false);
            let out = lab.mem_ok(
                &dir,
                NOW,
                &[
                    "propose",
                    "--type",
                    "lesson",
                    "--title",
                    "Same title",
                    "--body",
                    "x",
                    "--json",
                ],
            );
            json(&out)["id"].as_str().unwrap().to_owned()
        })
        .collect();
    // The origin's name (`origin.git`), not the clones' folders.
    assert_eq!(ids, ["origin-lesson-20261018-same-title"; 2]);
    // Without a remote, the top folder of the work tree, even from a subfolder project.
    let alice = lab.path("alice");
    lab.git(&alice, &["remote", "remove", "origin"]);
    fs::create_dir_all(alice.join("apps/web")).unwrap();
    fs::create_dir_all(alice.join("apps/web/.bmad/memory")).unwrap();
    let out = lab.mem_ok(
        &alice.join("apps/web"),
        NOW,
        &[
            "propose", "--type", "lesson", "--title", "Other", "--body", "x", "--json",
        ],
    );
    assert_eq!(json(&out)["id"], "alice-lesson-20261018-other");
    // context.md's project comes first, in every clone.
    fs::create_dir_all(alice.join(".agents/memory")).unwrap();
    fs::write(
        alice.join(".agents/memory/context.md"),
        "---\nproject: \"Shop\"\n---\n",
    )
    .unwrap();
    let out = lab.mem_ok(
        &alice,
        NOW,
        &[
            "propose", "--type", "lesson", "--title", "Third", "--body", "x", "--json",
        ],
    );
    assert_eq!(json(&out)["id"], "shop-lesson-20261018-third");
}
