//! `git setup` and the memory shared through real git: temporary repositories (an origin and
//! clones of it, git's config isolated from the machine's), the real binary as their merge
//! driver, and the scenarios a team meets — both clones writing, the same pattern reinforced on
//! both sides (more in `reinforcements`), one record edited differently, an archive against an append, a clone that was
//! never set up, a rebase, the generated views.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as Json;

use crate::actions::observe::{
    INPUT, LESSONS, LESSONS_TEXT, OTHER_RUN, OUTCOMES, PASSWORDS, copy_run, input,
};
use crate::support::gitlab::{Lab, at, ids, memory, read, text, work};
use crate::support::nexus_run::{NexusRun, RUN_ID, TASK};
use crate::support::{BIN, JOURNAL, NOW, SCORES, TestProject};

mod views;

const ATTRIBUTES: &str = ".gitattributes";
const INDEX: &str = ".bmad/memory/INDEX.md";
const CANDIDATES: &str = ".bmad/memory/CANDIDATES.md";

/// The lines setup adds to `.gitattributes`, its comment first.
const LINES: &str =
    "# bmad-mem: merge the project memory record by record (see `bmad-mem git setup`)
.bmad/memory/journal.ndjson merge=bmad-mem
.bmad/memory/promotions.ndjson merge=bmad-mem
.bmad/memory/outcomes.ndjson merge=bmad-mem
.bmad/memory/decisions.ndjson merge=bmad-mem
.bmad/memory/pattern-scores.json merge=bmad-mem
.bmad/records/reinforcements.ndjson merge=bmad-mem
.bmad/memory/decisions.md merge=bmad-mem
.bmad/memory/lessons.md merge=bmad-mem
.bmad/memory/patterns.md merge=bmad-mem
.agents/memory/decisions.md merge=bmad-mem
.agents/memory/lessons.md merge=bmad-mem
.agents/memory/patterns.md merge=bmad-mem
.bmad/memory/refused.md merge=bmad-mem
.bmad/memory/candidates/*.md merge=bmad-mem
.bmad/memory/INDEX.md merge=bmad-mem-view
.bmad/memory/CANDIDATES.md merge=bmad-mem-view
";

// ---- git setup ------------------------------------------------------------------------------

/// Runs a command whose program was just copied into place. While another test thread forks
/// (between its fork and exec), the child still holds the copy's write handle, and exec fails
/// with "text file busy": such a start is tried again.
fn copied_output(command: &mut Command) -> std::process::Output {
    for _ in 0..100 {
        match command.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other.expect("spawn the copied binary"),
        }
    }
    panic!("the copied binary stayed busy");
}

#[test]
fn setup_adds_the_lines_and_the_config_once_keeping_what_was_there() {
    let lab = Lab::new();
    lab.git(&lab.base, &["init", "-q", "-b", "main", "p"]);
    let p = lab.path("p");
    fs::write(p.join(ATTRIBUTES), "*.png binary").unwrap();

    // A dry run says everything and changes nothing.
    let out = lab.mem_ok(&p, NOW, &["git", "setup", "--dry-run"]);
    assert!(out.starts_with("mem git setup: dry run — nothing was changed; it would:\n"));
    assert!(
        out.contains("  would add to .gitattributes: .bmad/memory/journal.ndjson merge=bmad-mem\n")
    );
    assert!(out.contains(&format!(
        "  would run git config --local merge.bmad-mem.driver '{BIN} merge-driver %O %A %B %P'\n"
    )));
    assert_eq!(read(&p, ATTRIBUTES), "*.png binary");
    assert!(
        !lab.git(&p, &["config", "--local", "--list"])
            .contains("merge.")
    );

    let out = lab.mem_ok(&p, NOW, &["git", "setup", "--json"]);
    let report: Json = serde_json::from_str(&out).unwrap();
    assert_eq!(report["alreadySetUp"], false);
    assert_eq!(report["dryRun"], false);
    assert_eq!(report["driverOnPath"], false);
    assert_eq!(report["warnings"], serde_json::json!([]));
    assert_eq!(
        report["gitattributes"]["added"].as_array().unwrap().len(),
        16
    );
    assert_eq!(report["config"].as_array().unwrap().len(), 4);
    // The line without its newline is ended, and kept.
    assert_eq!(read(&p, ATTRIBUTES), format!("*.png binary\n{LINES}"));
    assert_eq!(
        lab.git(&p, &["config", "--local", "merge.bmad-mem.driver"]),
        format!("{BIN} merge-driver %O %A %B %P\n")
    );
    assert_eq!(
        lab.git(&p, &["config", "--local", "merge.bmad-mem-view.driver"]),
        "true\n"
    );
    assert_eq!(
        lab.git(&p, &["check-attr", "merge", "--", JOURNAL, INDEX]),
        format!("{JOURNAL}: merge: bmad-mem\n{INDEX}: merge: bmad-mem-view\n")
    );

    // Again: nothing to do, nothing written.
    let before = fs::metadata(p.join(ATTRIBUTES))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(
        lab.mem_ok(&p, NOW, &["git", "setup"]),
        "mem git setup: already set up — .gitattributes names the merge drivers and this clone's git config defines them; nothing was changed\n"
    );
    assert_eq!(read(&p, ATTRIBUTES), format!("*.png binary\n{LINES}"));
    assert_eq!(
        fs::metadata(p.join(ATTRIBUTES))
            .unwrap()
            .modified()
            .unwrap(),
        before
    );
}

#[test]
fn setup_names_the_driver_bmad_mem_when_path_finds_this_binary() {
    let lab = Lab::new();
    lab.git(&lab.base, &["init", "-q", "-b", "main", "p"]);
    let p = lab.path("p");
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = lab
        .command(BIN, &p)
        .env("PATH", path)
        .args(["git", "setup", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let report: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["driverOnPath"], true);
    assert_eq!(report["driver"], "bmad-mem merge-driver %O %A %B %P");
    assert_eq!(
        lab.git(&p, &["config", "--local", "merge.bmad-mem.driver"]),
        "bmad-mem merge-driver %O %A %B %P\n"
    );
}

#[test]
fn setup_refuses_outside_a_work_tree_and_without_git_changing_nothing() {
    // Not in a repository (the tests' temporary folder is in none).
    let ran = TestProject::new()
        .args(["--json", "git", "setup"])
        .code(1)
        .stderr("")
        .unchanged()
        .run();
    let error: Json = ran.json();
    let message = error["error"].as_str().unwrap();
    assert!(
        message.contains("is not inside a git work tree")
            && message.ends_with("; run `git init` first, or pass -d <the project in a clone>"),
        "{message}"
    );
    let project = ran
        .then()
        .args(["git", "setup", "--dry-run"])
        .code(1)
        .stdout("")
        .unchanged()
        .run();
    assert!(project.stderr.starts_with("mem git: "));

    // No git on PATH: refused before anything is looked at.
    let empty = tempfile::tempdir().unwrap();
    let _ = project
        .then()
        .mkdir(".git")
        .env("PATH", empty.path())
        .args(["git", "setup"])
        .refused(
            "git",
            "git is not installed or not on PATH; install git, then run `bmad-mem git setup` again",
        );
}

#[test]
fn init_offers_git_setup_in_a_clone_without_the_driver_only() {
    let lab = Lab::new();
    lab.git(&lab.base, &["init", "-q", "-b", "main", "p"]);
    let p = lab.path("p");
    let offer = "  git     run `bmad-mem git setup` so that merges of the memory lose nothing and conflict only on real conflicts\n";
    let out = lab.mem_ok(&p, NOW, &["init"]);
    assert!(out.ends_with(offer), "{out}");
    let json: Json = serde_json::from_str(&lab.mem_ok(&p, NOW, &["init", "--json"])).unwrap();
    assert_eq!(json["gitSetup"], "bmad-mem git setup");
    lab.mem_ok(&p, NOW, &["git", "setup"]);
    let out = lab.mem_ok(&p, NOW, &["init"]);
    assert!(!out.contains("git setup"), "{out}");
    let json: Json = serde_json::from_str(&lab.mem_ok(&p, NOW, &["init", "--json"])).unwrap();
    assert!(json.get("gitSetup").is_none());
}

// ---- merging with the driver ------------------------------------------------------------------

#[test]
fn two_clones_writing_and_reinforcing_merge_both_ways_into_the_same_files_losing_nothing() {
    let lab = Lab::new();
    lab.origin(3);
    let a = lab.clone_of("a", true);
    let b = lab.clone_of("b", true);
    work(&lab, &a, 5, "alice", 4, "alice-pattern");
    work(&lab, &b, 6, "bob", 5, "bob-pattern");
    let ca = lab.commit(&a, "alice");
    let cb = lab.commit(&b, "bob");
    let journal_a = ids(&read(&a, JOURNAL));
    let journal_b = ids(&read(&b, JOURNAL));

    let into_a = lab.merge(&a, &b, &cb);
    let into_b = lab.merge(&b, &a, &ca);
    assert!(into_a.status.success(), "{}", text(&into_a));
    assert!(into_b.status.success(), "{}", text(&into_b));
    assert_eq!(lab.git(&a, &["diff", "--name-only", "--diff-filter=U"]), "");
    assert_eq!(memory(&a), memory(&b));

    let merged = ids(&read(&a, JOURNAL));
    assert_eq!(merged.len(), 3 + 4 + 5);
    let mut unique = merged.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), merged.len(), "no id twice");
    for id in journal_a.iter().chain(&journal_b) {
        assert!(merged.contains(id), "{id} kept");
    }
    let scores: Json = serde_json::from_str(&read(&a, SCORES)).unwrap();
    assert!(scores.get("alice-pattern").is_some() && scores.get("bob-pattern").is_some());
    // The merged store is one the tools take.
    let out = lab.mem(&a, NOW, &["doctor"]);
    assert!(out.status.success(), "{}", text(&out));
    lab.mem_ok(
        &a,
        NOW,
        &["reinforce", "--pattern", "bob-pattern", "--accept", "true"],
    );
}

/// Observes the demo task of `run_id` in `dir` for the passwords lesson; the receipt's id. The
/// Nexus run, its sources and the lesson stay out of git (each clone has its own run).
fn observe_in(lab: &Lab, dir: &Path, run_id: &str, minute: usize) -> String {
    let exclude = dir.join(".git/info/exclude");
    let mut excluded = read(dir, ".git/info/exclude");
    excluded.push_str(".bmad-plus/\n.agents/\ndb/\nsrc/\nobservation.json\n");
    fs::write(&exclude, excluded).unwrap();
    let run = NexusRun::accepted(dir);
    if run_id != RUN_ID {
        copy_run(&run, run_id);
    }
    fs::create_dir_all(dir.join(".agents/memory")).unwrap();
    fs::write(dir.join(LESSONS), LESSONS_TEXT).unwrap();
    let observation = input(run_id, TASK, PASSWORDS, &["src/auth"]);
    fs::write(dir.join(INPUT), observation.to_string()).unwrap();
    let out = lab.mem_ok(
        dir,
        &at(7, minute),
        &["observe", "--input", INPUT, "--json"],
    );
    let written: Json = serde_json::from_str(&out).unwrap();
    written["written"]["id"].as_str().unwrap().to_owned()
}

#[test]
fn two_clones_observing_different_runs_merge_both_ways_keeping_both_receipts() {
    let lab = Lab::new();
    lab.origin(2);
    let a = lab.clone_of("a", true);
    let b = lab.clone_of("b", true);
    work(&lab, &a, 5, "alice", 2, "alice-pattern");
    work(&lab, &b, 6, "bob", 3, "bob-pattern");
    let receipt_a = observe_in(&lab, &a, RUN_ID, 1);
    let receipt_b = observe_in(&lab, &b, OTHER_RUN, 2);
    let ca = lab.commit(&a, "alice");
    let cb = lab.commit(&b, "bob");

    let into_a = lab.merge(&a, &b, &cb);
    let into_b = lab.merge(&b, &a, &ca);
    assert!(into_a.status.success(), "{}", text(&into_a));
    assert!(into_b.status.success(), "{}", text(&into_b));
    assert_eq!(memory(&a), memory(&b));
    assert_eq!(ids(&read(&a, OUTCOMES)), [receipt_a, receipt_b.clone()]);
    assert_eq!(ids(&read(&a, JOURNAL)).len(), 2 + 2 + 3);
    // The strict reader takes the merged receipts: bob's is current in bob's clone.
    let out = lab.mem_ok(&b, NOW, &["outcomes", "--json"]);
    let report: Json = serde_json::from_str(&out).unwrap();
    let eligible: Vec<(&str, bool)> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap(), r["eligible"].as_bool().unwrap()))
        .collect();
    assert_eq!(eligible.len(), 2, "{out}");
    assert!(eligible.contains(&(receipt_b.as_str(), true)), "{out}");
}

#[test]
fn a_rebase_gives_what_the_merge_gives() {
    let lab = Lab::new();
    lab.origin(2);
    let a = lab.clone_of("a", true);
    let b = lab.clone_of("b", true);
    work(&lab, &a, 5, "alice", 3, "alice-pattern");
    work(&lab, &b, 6, "bob", 3, "bob-pattern");
    let ca = lab.commit(&a, "alice");
    let cb = lab.commit(&b, "bob");
    assert!(lab.merge(&a, &b, &cb).status.success());
    lab.git(&b, &["fetch", "-q", a.to_str().unwrap(), &ca]);
    let out = lab.try_git(&b, &["rebase", &ca]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(memory(&a), memory(&b));
    assert_eq!(ids(&read(&b, JOURNAL)).len(), 2 + 3 + 3);
}

#[test]
fn the_same_pattern_reinforced_on_both_sides_merges_with_both_updates() {
    let lab = Lab::new();
    lab.origin(1);
    let a = lab.clone_of("a", true);
    let b = lab.clone_of("b", true);
    work(&lab, &a, 5, "alice", 1, "shared-pattern");
    work(&lab, &b, 6, "bob", 1, "shared-pattern");
    lab.commit(&a, "alice");
    let cb = lab.commit(&b, "bob");
    let out = lab.merge(&a, &b, &cb);
    assert!(out.status.success(), "{}", text(&out));
    let scores: Json = serde_json::from_str(&read(&a, SCORES)).unwrap();
    assert_eq!(scores["shared-pattern"]["updates"], 2.0);
}

#[test]
fn a_record_edited_differently_on_each_side_is_a_conflict_that_names_it() {
    let lab = Lab::new();
    lab.origin(2);
    let a = lab.clone_of("a", true);
    let b = lab.clone_of("b", true);
    let journal = read(&a, JOURNAL);
    let id = ids(&journal)[0].clone();
    fs::write(a.join(JOURNAL), journal.replacen("base 0", "base zero", 1)).unwrap();
    fs::write(
        b.join(JOURNAL),
        journal.replacen("base 0", "base nought", 1),
    )
    .unwrap();
    lab.commit(&a, "alice");
    let cb = lab.commit(&b, "bob");
    let out = lab.merge(&a, &b, &cb);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains(&id), "{id}\n{}", text(&out));
    // Both versions are left for a person; doctor sees them.
    let merged = read(&a, JOURNAL);
    assert!(merged.contains("base zero") && merged.contains("base nought"));
    let doctor = text(&lab.mem(&a, NOW, &["doctor"]));
    assert!(doctor.contains("[conflict-markers]"), "{doctor}");
}

#[test]
fn an_archive_on_one_side_holds_against_appends_on_the_other() {
    let lab = Lab::new();
    lab.origin(6);
    let a = lab.clone_of("a", true);
    let b = lab.clone_of("b", true);
    lab.mem_ok(&a, &at(7, 0), &["archive", "journal", "--keep", "2"]);
    work(&lab, &b, 8, "bob", 3, "bob-pattern");
    let ca = lab.commit(&a, "archive");
    let cb = lab.commit(&b, "bob");
    let into_a = lab.merge(&a, &b, &cb);
    let into_b = lab.merge(&b, &a, &ca);
    assert!(into_a.status.success(), "{}", text(&into_a));
    assert!(into_b.status.success(), "{}", text(&into_b));
    assert_eq!(memory(&a), memory(&b));
    let live = ids(&read(&a, JOURNAL));
    assert_eq!(
        live.len(),
        2 + 3,
        "the archive holds: only the kept and the new"
    );
    let archived: Vec<String> = fs::read_dir(a.join(".bmad/memory/archive"))
        .unwrap()
        .flat_map(|e| ids(&fs::read_to_string(e.unwrap().path()).unwrap()))
        .collect();
    assert_eq!(archived.len(), 4);
    let mut all: Vec<&String> = live.iter().chain(&archived).collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 6 + 3, "nothing duplicated, nothing lost");
}

#[test]
fn a_clone_without_the_driver_conflicts_as_git_does_and_doctor_says_how_to_set_it_up() {
    let lab = Lab::new();
    lab.origin(1);
    let a = lab.clone_of("a", true);
    let c = lab.clone_of("c", false);
    work(&lab, &a, 5, "alice", 2, "alice-pattern");
    lab.mem_ok(
        &c,
        &at(6, 0),
        &["write", "--agent", "carol", "--task", "carol 0"],
    );
    let ca = lab.commit(&a, "alice");
    lab.commit(&c, "carol");
    let out = lab.merge(&c, &a, &ca);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains(&format!("CONFLICT (content): Merge conflict in {JOURNAL}")));
    let doctor = lab.mem(&c, NOW, &["doctor"]);
    assert_eq!(doctor.status.code(), Some(1));
    let said = text(&doctor);
    assert!(
        said.contains(".gitattributes [merge-driver-missing]: names the merge driver(s) bmad-mem, bmad-mem-view, but this clone's git config does not define them, so git merges those files as plain text and conflicts on every concurrent append; `bmad-mem git setup` sets them up\n"),
        "{said}"
    );
    assert!(
        said.contains(&format!("{JOURNAL} [conflict-markers]")),
        "{said}"
    );
    // Set up, the same merge goes through.
    lab.git(&c, &["merge", "--abort"]);
    lab.mem_ok(&c, NOW, &["git", "setup"]);
    let out = lab.try_git(&c, &["merge", "--no-edit", &ca]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(ids(&read(&c, JOURNAL)).len(), 1 + 2 + 1);
}

#[test]
fn the_generated_views_never_conflict() {
    let lab = Lab::new();
    lab.origin(1);
    let a = lab.clone_of("a", true);
    let b = lab.clone_of("b", true);
    fs::write(a.join(INDEX), "# Index\n\nalice\n").unwrap();
    fs::write(a.join(CANDIDATES), "# Candidates\n\nalice\n").unwrap();
    lab.commit(&a, "views");
    lab.git(&a, &["push", "-q", "origin", "main"]);
    lab.git(&b, &["pull", "-q", "--no-edit", "origin", "main"]);
    fs::write(a.join(INDEX), "# Index\n\nalice, again\n").unwrap();
    fs::write(a.join(CANDIDATES), "# Candidates\n\nalice, again\n").unwrap();
    fs::write(b.join(INDEX), "# Index\n\nbob\n").unwrap();
    fs::write(b.join(CANDIDATES), "# Candidates\n\nbob\n").unwrap();
    lab.commit(&a, "alice");
    let cb = lab.commit(&b, "bob");
    let out = lab.merge(&a, &b, &cb);
    assert!(out.status.success(), "{}", text(&out));
    // The merge commit keeps this clone's versions; then setup's post-merge hook rebuilds both
    // from the notes, a change left to commit.
    for (rel, kept) in [
        (INDEX, "# Index\n\nalice, again\n"),
        (CANDIDATES, "# Candidates\n\nalice, again\n"),
    ] {
        assert_eq!(lab.git(&a, &["show", &format!("HEAD:{rel}")]), kept);
        assert!(
            read(&a, rel).starts_with("<!-- Generated by bmad-mem"),
            "{rel}"
        );
    }
    assert!(
        text(&out).contains(&format!(
            "mem git hook: after the merge, rebuilt {CANDIDATES} and {INDEX} from the notes; commit the change"
        )),
        "{}",
        text(&out)
    );
}

/// The figures of RELIABILITY.md: two clones write and reinforce concurrently, then merge both
/// ways; printed. `cargo test --test cli merge_figures -- --ignored --nocapture`
#[test]
#[ignore = "prints the merge figures for RELIABILITY.md"]
fn merge_figures() {
    let lab = Lab::new();
    lab.origin(50);
    let a = lab.clone_of("a", true);
    let b = lab.clone_of("b", true);
    let (patterns, rounds) = (10, 4);
    let mut written = Vec::new();
    for (dir, day, agent, writes) in [(&a, 5, "alice", 120), (&b, 6, "bob", 80)] {
        for i in 0..writes {
            lab.mem_ok(
                dir,
                &at(day, i),
                &["write", "--agent", agent, "--task", &format!("{agent} {i}")],
            );
        }
        for round in 0..rounds {
            for p in 0..patterns {
                lab.mem_ok(
                    dir,
                    &at(day, writes + round * patterns + p),
                    &[
                        "reinforce",
                        "--pattern",
                        &format!("{agent}-pattern-{p}"),
                        "--accept",
                        "true",
                    ],
                );
            }
        }
        // One pattern both clones reinforce, 40 times each.
        for i in 0..40 {
            lab.mem_ok(
                dir,
                &at(7, 2 * i + usize::from(agent == "bob")),
                &["reinforce", "--pattern", "team-pattern", "--accept", "true"],
            );
        }
        let promotions = read(dir, ".bmad/memory/promotions.ndjson").lines().count();
        written.push((agent, writes, promotions));
    }
    let ca = lab.commit(&a, "alice");
    let cb = lab.commit(&b, "bob");
    let conflicts = [lab.merge(&a, &b, &cb), lab.merge(&b, &a, &ca)]
        .iter()
        .filter(|out| !out.status.success())
        .count();
    let count = |rel: &str| {
        let all = ids(&read(&a, rel));
        let mut unique = all.clone();
        unique.sort();
        unique.dedup();
        (all.len(), all.len() - unique.len())
    };
    let (journal, journal_dupes) = count(JOURNAL);
    let (promotions, promotion_dupes) = count(".bmad/memory/promotions.ndjson");
    let scores: serde_json::Map<String, Json> = serde_json::from_str(&read(&a, SCORES)).unwrap();
    for (agent, writes, promotions) in &written {
        println!(
            "clone {agent}: {writes} events written, {patterns} patterns reinforced {rounds} times each and one shared pattern 40 times, {promotions} promotion proposals"
        );
    }
    let records = ids(&read(&a, ".bmad/records/reinforcements.ndjson")).len();
    println!(
        "shared pattern: {} updates after the merge (80 made), {records} reinforcement records",
        scores["team-pattern"]["updates"]
    );
    println!(
        "after merging both ways (base: 50 events): journal {journal} records ({journal_dupes} duplicate ids), promotions {promotions} ({promotion_dupes} duplicate ids), {} patterns scored, {conflicts} conflicts, both clones byte-identical: {}",
        scores.len(),
        memory(&a) == memory(&b)
    );
}

#[test]
fn a_link_as_gitattributes_is_refused_before_anything_is_set() {
    let lab = Lab::new();
    lab.git(&lab.base, &["init", "-q", "-b", "main", "p"]);
    let p = lab.path("p");
    fs::write(lab.path("elsewhere"), "*.png binary\n").unwrap();
    std::os::unix::fs::symlink(lab.path("elsewhere"), p.join(ATTRIBUTES)).unwrap();
    let config = fs::read(p.join(".git/config")).unwrap();
    for json in [false, true] {
        let mut args = vec!["git", "setup"];
        if json {
            args.insert(0, "--json");
        }
        let out = lab.mem(&p, NOW, &args);
        assert_eq!(out.status.code(), Some(1));
        let message = "Memory paths cannot follow symbolic links or junctions.";
        if json {
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                format!("{}\n", serde_json::json!({ "error": message }))
            );
        } else {
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                format!("mem git: {message}\n")
            );
        }
    }
    assert_eq!(fs::read(p.join(".git/config")).unwrap(), config);
    assert_eq!(
        fs::read_to_string(lab.path("elsewhere")).unwrap(),
        "*.png binary\n"
    );
}

#[test]
fn setup_warns_when_another_attributes_file_overrides_its_lines() {
    let lab = Lab::new();
    lab.git(&lab.base, &["init", "-q", "-b", "main", "p"]);
    let p = lab.path("p");
    fs::create_dir_all(p.join(".git/info")).unwrap();
    fs::write(
        p.join(".git/info/attributes"),
        format!("{JOURNAL} merge=union\n"),
    )
    .unwrap();
    let out = lab.mem(&p, NOW, &["git", "setup"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "git merges {JOURNAL} with merge=union, not merge=bmad-mem: another attributes file (.git/info/attributes, or one in a folder nearer the file) overrides .gitattributes\n"
        )
    );
    let out = lab.mem(&p, NOW, &["git", "setup", "--json"]);
    let report: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["alreadySetUp"], true);
    assert_eq!(report["warnings"].as_array().unwrap().len(), 1);
}

#[test]
fn a_binary_whose_path_holds_percent_signs_and_quotes_still_runs_as_the_driver() {
    let lab = Lab::new();
    lab.origin(2);
    // Git expands `%A`, `%P`… anywhere in the driver command, the binary's path included.
    let dir = lab.path("tools 100%A it's");
    fs::create_dir(&dir).unwrap();
    let bin = dir.join("bmad-mem");
    fs::copy(BIN, &bin).unwrap();
    let clones: Vec<PathBuf> = ["a", "b"]
        .into_iter()
        .map(|name| {
            let clone = lab.clone_of(name, false);
            let out = copied_output(
                lab.command(bin.to_str().unwrap(), &clone)
                    .env("PATH", "/usr/bin:/bin")
                    .args(["git", "setup", "--json"]),
            );
            assert!(out.status.success(), "{}", text(&out));
            let report: Json = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(report["driverOnPath"], false);
            clone
        })
        .collect();
    let (a, b) = (&clones[0], &clones[1]);
    work(&lab, a, 5, "alice", 2, "alice-pattern");
    work(&lab, b, 6, "bob", 3, "bob-pattern");
    lab.commit(a, "alice");
    let cb = lab.commit(b, "bob");
    let out = lab.merge(a, b, &cb);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(ids(&read(a, JOURNAL)).len(), 2 + 2 + 3);
}

#[test]
fn a_relative_folder_of_path_never_makes_the_driver_a_bare_name() {
    // `PATH=tools:…` finds the binary from here only; git runs the driver from the top of the
    // work tree, and a merge may be started from anywhere.
    let lab = Lab::new();
    lab.git(&lab.base, &["init", "-q", "-b", "main", "p"]);
    let p = lab.path("p");
    let project = p.join("apps/web");
    fs::create_dir_all(project.join("tools")).unwrap();
    let bin = project.join("tools/bmad-mem");
    fs::copy(BIN, &bin).unwrap();
    let out = copied_output(
        lab.command(bin.to_str().unwrap(), &project)
            .env("PATH", "tools:/usr/bin:/bin")
            .args(["git", "setup", "--json"]),
    );
    assert!(out.status.success(), "{}", text(&out));
    let report: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["driverOnPath"], false);
    assert_eq!(
        report["driver"],
        format!("{} merge-driver %O %A %B %P", bin.display())
    );
}

#[test]
fn doctor_reports_a_driver_whose_binary_is_gone() {
    let lab = Lab::new();
    lab.origin(1);
    let a = lab.clone_of("a", false);
    let dir = lab.path("old tools 100%");
    fs::create_dir(&dir).unwrap();
    let bin = dir.join("bmad-mem");
    fs::copy(BIN, &bin).unwrap();
    let out = copied_output(
        lab.command(bin.to_str().unwrap(), &a)
            .env("PATH", "/usr/bin:/bin")
            .args(["git", "setup"]),
    );
    assert!(out.status.success(), "{}", text(&out));
    // Set up and in place: nothing to say.
    let doctor = lab.mem(&a, NOW, &["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor));
    fs::remove_file(&bin).unwrap();
    let doctor = lab.mem(&a, NOW, &["doctor"]);
    assert_eq!(doctor.status.code(), Some(1), "{}", text(&doctor));
    let said = text(&doctor);
    assert!(
        said.contains(&format!(
            ".gitattributes [merge-driver-gone]: this clone's git config runs the merge driver as {}, which is not there any more, so git cannot merge the memory and every merge of it conflicts; `bmad-mem git setup` names this binary instead\n",
            bin.display()
        )),
        "{said}"
    );
    let json = lab.mem(&a, NOW, &["doctor", "--json"]);
    assert_eq!(json.status.code(), Some(1), "{}", text(&json));
    let report: Json = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        report["problems"][0]["kind"], "merge-driver-gone",
        "{report}"
    );
}
