//! `merge-driver` on the note files and the candidate files: run as git runs it on three files
//! (the rules byte for byte, the bad inputs), then with real git — two clones admitting entries
//! the same day, merged both ways and through a rebase; the same candidate admitted in both.

use std::fs;
use std::path::Path;

use serde_json::Value as Json;

use crate::admin::merge::{clean_both_ways, driver, lines, sides};
use crate::support::TestProject;
use crate::support::gitlab::{Lab, at, read, text};

const LESSONS: &str = ".agents/memory/lessons.md";
const DECISIONS: &str = ".agents/memory/decisions.md";
const REFUSED: &str = ".bmad/memory/refused.md";
const LEDGER: &str = ".bmad/memory/decisions.ndjson";
const CANDIDATES: &str = ".bmad/memory/candidates";

const HEAD: &str = "# Lessons\n\nWhat the team learned.\n\n### 2026-10-01 — Keep the cache warm\n- **Lesson**: warm it at deploy\n";

/// A lesson as `admit` writes it in `init`'s style, on `day`, by `by`, for the candidate `id`.
fn lesson(day: &str, title: &str, by: &str, id: &str) -> String {
    format!(
        "### {day} — {title}\n- **Context**: none given\n- **Lesson**: {title}, always\n- **Evidence**: none\n- **Admitted-by**: {by} (candidate {id}, sha256 5e1f)\n"
    )
}

#[test]
fn entries_admitted_on_both_sides_are_all_kept_the_same_way_whichever_side_merges() {
    let ours = format!(
        "{HEAD}\n{}",
        lesson("2026-10-18", "Flush the bucket", "ada", "p-lesson-a")
    );
    let theirs = format!(
        "{HEAD}\n{}\n{}",
        lesson("2026-10-18", "Pin the toolchain", "bob", "p-lesson-b"),
        lesson("2026-10-19", "Name the owner", "bob", "p-lesson-c")
    );
    let expected = format!(
        "{HEAD}\n{}\n{}\n{}",
        lesson("2026-10-18", "Flush the bucket", "ada", "p-lesson-a"),
        lesson("2026-10-18", "Pin the toolchain", "bob", "p-lesson-b"),
        lesson("2026-10-19", "Name the owner", "bob", "p-lesson-c")
    );
    for path in [
        LESSONS,
        ".bmad/memory/decisions.md",
        "apps/web/.agents/memory/patterns.md",
        REFUSED,
    ] {
        clean_both_ways(HEAD, &ours, &theirs, path, &expected);
    }
    // The first entries of a file both clones created (git's base is then empty).
    let created = |entry: &str| format!("# Lessons\n\n{entry}");
    let a = lesson("2026-10-18", "Flush the bucket", "ada", "p-lesson-a");
    let b = lesson("2026-10-18", "Pin the toolchain", "bob", "p-lesson-b");
    clean_both_ways(
        "",
        &created(&a),
        &created(&b),
        LESSONS,
        &created(&format!("{a}\n{b}")),
    );
}

#[test]
fn a_section_changed_differently_on_both_sides_is_a_conflict_around_that_section_alone() {
    let base = format!("{HEAD}\n### Use Postgres\nthe body\n");
    let ours = format!("{HEAD}\n### Use Postgres\nthe body, ours\n");
    let theirs = format!(
        "{}\n### Use Postgres\nthe body, theirs\n\n{}",
        HEAD.replace("warm it at deploy", "warm it at each deploy"),
        lesson("2026-10-18", "Pin the toolchain", "bob", "p-lesson-b")
    );
    let ran = driver(sides(&base, &ours, &theirs), DECISIONS)
        .code(1)
        .stdout("")
        .stderr(&format!(
            "mem merge-driver: {DECISIONS}: 1 part(s) changed differently on the two sides; both versions are left in the file between `<<<<<<< ours` and `>>>>>>> theirs`, the rest is merged\n  section \"Use Postgres\": changed on both sides\n"
        ))
        .file(
            "ours",
            format!(
                "{}\n<<<<<<< ours\n### Use Postgres\nthe body, ours\n=======\n### Use Postgres\nthe body, theirs\n>>>>>>> theirs\n\n{}",
                HEAD.replace("warm it at deploy", "warm it at each deploy"),
                lesson("2026-10-18", "Pin the toolchain", "bob", "p-lesson-b")
            ),
        )
        .file("theirs", &theirs)
        .run();
    // Doctor sees what is left for a person.
    let project = ran.then();
    let merged = project.read("ours");
    let doctor = project
        .write(DECISIONS, merged)
        .args(["doctor"])
        .code(1)
        .run();
    assert!(
        doctor
            .stdout
            .contains(&format!("{DECISIONS} [conflict-markers]")),
        "{}",
        doctor.stdout
    );
}

#[test]
fn a_heading_renamed_on_one_side_and_edited_on_the_other_is_a_conflict_that_names_both() {
    let base = format!("{HEAD}\n### Sessions in Redis\nkeep them 30 days\n");
    let renamed = format!("{HEAD}\n### Sessions live in Redis\nkeep them 30 days\n");
    let edited = format!("{HEAD}\n### Sessions in Redis\nkeep them 7 days\n");
    let _ = driver(sides(&base, &renamed, &edited), LESSONS)
        .code(1)
        .stderr(&format!(
            "mem merge-driver: {LESSONS}: 1 part(s) changed differently on the two sides; both versions are left in the file between `<<<<<<< ours` and `>>>>>>> theirs`, the rest is merged\n  section \"Sessions in Redis\": renamed to \"Sessions live in Redis\" on ours, changed on theirs; both versions are left under their headings\n"
        ))
        .file(
            "ours",
            format!(
                "{HEAD}\n<<<<<<< ours\n### Sessions live in Redis\nkeep them 30 days\n=======\n### Sessions in Redis\nkeep them 7 days\n>>>>>>> theirs\n"
            ),
        )
        .run();
    // The other way round: the rename is theirs.
    let _ = driver(sides(&base, &edited, &renamed), LESSONS)
        .code(1)
        .stderr(&format!(
            "mem merge-driver: {LESSONS}: 1 part(s) changed differently on the two sides; both versions are left in the file between `<<<<<<< ours` and `>>>>>>> theirs`, the rest is merged\n  section \"Sessions in Redis\": renamed to \"Sessions live in Redis\" on theirs, changed on ours; both versions are left under their headings\n"
        ))
        .run();
    // Removed on one side, edited on the other.
    let _ = driver(sides(&base, HEAD, &edited), LESSONS)
        .code(1)
        .stderr(&format!(
            "mem merge-driver: {LESSONS}: 1 part(s) changed differently on the two sides; both versions are left in the file between `<<<<<<< ours` and `>>>>>>> theirs`, the rest is merged\n  section \"Sessions in Redis\": removed on ours, changed on theirs\n"
        ))
        .file(
            "ours",
            format!(
                "{HEAD}\n<<<<<<< ours\n=======\n### Sessions in Redis\nkeep them 7 days\n>>>>>>> theirs\n"
            ),
        )
        .run();
}

#[test]
fn crlf_on_one_side_only_is_no_conflict() {
    let base = format!("{HEAD}\n### Use Postgres\nthe body\n");
    let converted = base.replace('\n', "\r\n");
    let appended = format!(
        "{base}\n{}",
        lesson("2026-10-18", "Pin the toolchain", "bob", "p-lesson-b")
    );
    // The side that converted its line ends wins them; the other side's entry is merged in.
    clean_both_ways(
        &base,
        &converted,
        &appended,
        LESSONS,
        &appended.replace('\n', "\r\n"),
    );
}

#[test]
fn bad_inputs_are_refused_naming_the_file_and_ours_stays_as_it_was() {
    let marked =
        format!("{HEAD}\n<<<<<<< HEAD\n### A\nours\n=======\n### A\ntheirs\n>>>>>>> other\n");
    let ok = format!("{HEAD}\n### B\nb\n");
    let _ = driver(sides(HEAD, &ok, &marked), LESSONS).refused(
        "merge-driver",
        &format!(
            "{LESSONS}: theirs already holds conflict markers (line 8); nothing was merged — left as ours: remove the markers of the earlier merge, commit, and merge again"
        ),
    );
    let _ = driver(sides(HEAD, &marked, &ok), ".bmad/memory/candidates/p-lesson-x.md").refused(
        "merge-driver",
        ".bmad/memory/candidates/p-lesson-x.md: ours already holds conflict markers (line 8); nothing was merged — left as ours: remove the markers of the earlier merge, commit, and merge again",
    );
    let _ = driver(sides(HEAD, b"# Lessons\n\xff\n", &ok), LESSONS).refused(
        "merge-driver",
        &format!(
            "{LESSONS}: ours is not UTF-8 text; it cannot be merged section by section — left as ours, resolve it by hand"
        ),
    );
    // A link is never followed.
    let project = TestProject::new()
        .write("base", HEAD)
        .write("target", &ok)
        .symlink("target", "theirs")
        .write("ours", HEAD.replace("deploy", "boot"));
    let _ = driver(project, LESSONS).refused(
        "merge-driver",
        "theirs is a link or not a regular file; nothing was merged",
    );
    // Over the cap: refused, and said how to go on.
    let big = format!("{HEAD}\n### Big\n{}\n", "x".repeat(2 * 1024 * 1024));
    let _ = driver(sides(HEAD, &big, &ok), LESSONS).refused(
        "merge-driver",
        &format!(
            "{LESSONS}: ours exceeds 2097152 bytes; nothing was merged — bmad-mem does not split a note file; resolve the conflict by hand"
        ),
    );
}

#[test]
fn one_candidate_admitted_on_both_sides_is_one_entry_and_the_driver_says_which() {
    let id = "p-lesson-20261018-flush";
    let (ada, bob) = (
        lesson("2026-10-18", "Flush", "ada", id),
        lesson("2026-10-18", "Flush", "bob", id),
    );
    let stated = format!(
        "mem merge-driver: {LESSONS}: candidate {id} was admitted on both sides; kept the admission by ada on 2026-10-18, dropped the admission by bob on 2026-10-18 (the earlier admission stands: the earlier day, then the name that sorts first)\n"
    );
    for (ours, theirs) in [(&ada, &bob), (&bob, &ada)] {
        let _ = driver(
            sides(HEAD, format!("{HEAD}\n{ours}"), format!("{HEAD}\n{theirs}")),
            LESSONS,
        )
        .code(0)
        .stdout("")
        .stderr(&stated)
        .file("ours", format!("{HEAD}\n{ada}"))
        .run();
    }
    // The candidate file: the record of the admission that stands.
    let path = format!("{CANDIDATES}/{id}.md");
    let record = |ts: &str, by: &str| {
        format!(
            "admitted {ts} by {by}: {id} (sha256 5e1f) is the entry \"{} — Flush\" of {LESSONS}\n",
            &ts[..10]
        )
    };
    let pending = format!("---\nid: {id}\ntype: lesson\n---\n\n## Content\n\nFlush.\n");
    let (by_ada, by_bob) = (
        record("2026-10-18T10:00:00.000Z", "ada"),
        record("2026-10-17T23:00:00.000Z", "bob"),
    );
    let _ = driver(sides(&pending, &by_ada, &by_bob), &path)
        .code(0)
        .stderr(&format!(
            "mem merge-driver: {path}: candidate {id} was admitted on both sides; kept the admission by bob on 2026-10-17, dropped the admission by ada on 2026-10-18 (the earlier admission stands: the earlier day, then the name that sorts first)\n"
        ))
        .file("ours", &by_bob)
        .run();
    // Admitted on one side, refused on the other: a conflict, nothing chosen.
    let refused = format!(
        "refused 2026-10-18T09:00:00.000Z by bob: {id} (sha256 5e1f), topic `flush` in {REFUSED}\n"
    );
    let _ = driver(sides(&pending, &by_ada, &refused), &path)
        .code(1)
        .stderr(&format!(
            "mem merge-driver: {path}: 1 part(s) changed differently on the two sides; both versions are left in the file between `<<<<<<< ours` and `>>>>>>> theirs`, the rest is merged\n  the candidate's text: changed on both sides\n"
        ))
        .file("ours", format!("<<<<<<< ours\n{by_ada}=======\n{refused}>>>>>>> theirs\n"))
        .run();
}

#[test]
fn the_ledger_keeps_one_admit_record_of_a_decision_admitted_on_both_sides() {
    let admit = |ts: &str, id: &str, actor: &str| {
        format!(
            r#"{{"ts":"{ts}","id":"{id}","event":"admit","heading":"2026-10-18 — Use Postgres","file":"{DECISIONS}","status":"active","sha256":"{id}","digest":2,"prev":null,"actor":"{actor}","by":null,"reason":null}}"#
        )
    };
    let old = r#"{"ts":"2026-10-01T09:00:00.000Z","id":"000000000000","event":"adopt","heading":"Old","file":".agents/memory/decisions.md","status":"active","sha256":"00","digest":2,"prev":null,"actor":"ada","by":null,"reason":null}"#;
    let (ada, bob) = (
        admit("2026-10-18T10:00:00.000Z", "aaaaaaaaaaaa", "ada"),
        admit("2026-10-18T08:00:00.000Z", "bbbbbbbbbbbb", "bob"),
    );
    let file = lines;
    for (ours, theirs) in [(&ada, &bob), (&bob, &ada)] {
        let _ = driver(
            sides(file(&[old]), file(&[old, ours]), file(&[old, theirs])),
            LEDGER,
        )
        .code(0)
        .stderr(&format!(
            "mem merge-driver: {LEDGER}: decision \"2026-10-18 — Use Postgres\" was admitted on both sides; kept record aaaaaaaaaaaa (by ada, 2026-10-18T10:00:00.000Z), dropped record bbbbbbbbbbbb (by bob, 2026-10-18T08:00:00.000Z) (the earlier admission stands: the earlier day, then the name that sorts first)\n"
        ))
        .file("ours", file(&[old, &ada]))
        .run();
    }
}

// ---- with real git ------------------------------------------------------------------------

/// The note and candidate files of a clone, by path.
fn notes(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = [LESSONS, DECISIONS, REFUSED, LEDGER]
        .iter()
        .map(|rel| ((*rel).to_owned(), read(dir, rel)))
        .collect();
    if let Ok(entries) = fs::read_dir(dir.join(CANDIDATES)) {
        for entry in entries {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let rel = format!("{CANDIDATES}/{name}");
            files.push((rel.clone(), read(dir, &rel)));
        }
    }
    files.sort();
    files
}

/// Proposes in `dir` a candidate of `kind` titled `title`: its id and digest.
fn propose(lab: &Lab, dir: &Path, kind: &str, title: &str) -> (String, String) {
    let out = lab.mem_ok(
        dir,
        &at(18, 0),
        &[
            "--json",
            "propose",
            "--type",
            kind,
            "--title",
            title,
            "--body",
            &format!("{title}, as the team agreed"),
        ],
    );
    let proposed: Json = serde_json::from_str(&out).unwrap();
    (
        proposed["id"].as_str().unwrap().to_owned(),
        proposed["sha256"].as_str().unwrap().to_owned(),
    )
}

fn admit(lab: &Lab, dir: &Path, now: &str, (id, sha): &(String, String), by: &str) {
    lab.mem_ok(dir, now, &["admit", id, "--expect", sha, "--actor", by]);
}

/// A lab whose origin holds the candidates titled `titles` (lessons), proposed before the
/// clones `a` and `b` were made.
fn lab_with(candidates: &[(&str, &str)]) -> (Lab, Vec<(String, String)>) {
    let lab = Lab::new();
    lab.origin(1);
    let seed = lab.clone_of("p", true);
    let proposed = candidates
        .iter()
        .map(|(kind, title)| propose(&lab, &seed, kind, title))
        .collect();
    lab.commit(&seed, "candidates");
    lab.git(&seed, &["push", "-q", "origin", "main"]);
    (lab, proposed)
}

#[test]
fn two_clones_admitting_lessons_the_same_day_merge_cleanly_both_ways_and_through_a_rebase() {
    let (lab, proposed) = lab_with(&[
        ("lesson", "Flush the bucket in setup"),
        ("lesson", "Pin the toolchain"),
        ("lesson", "Name an owner"),
    ]);
    let a = lab.clone_of("a", true);
    let b = lab.clone_of("b", true);
    admit(&lab, &a, &at(18, 10), &proposed[0], "ada");
    admit(&lab, &b, &at(18, 20), &proposed[1], "bob");
    admit(&lab, &b, &at(18, 30), &proposed[2], "bob");
    let ca = lab.commit(&a, "ada's lesson");
    let cb = lab.commit(&b, "bob's lessons");

    let c = lab.clone_of("c", true);
    lab.git(&c, &["fetch", "-q", b.to_str().unwrap(), &cb]);
    lab.git(&c, &["reset", "-q", "--hard", &cb]);

    let into_a = lab.merge(&a, &b, &cb);
    let into_b = lab.merge(&b, &a, &ca);
    assert!(into_a.status.success(), "{}", text(&into_a));
    assert!(into_b.status.success(), "{}", text(&into_b));
    assert_eq!(notes(&a), notes(&b));
    let lessons = read(&a, LESSONS);
    for (id, _) in &proposed {
        assert_eq!(
            lessons.matches(&format!("(candidate {id},")).count(),
            1,
            "{lessons}"
        );
    }
    // Through a rebase: bob's commit replayed onto ada's gives the same files.
    lab.git(&c, &["fetch", "-q", a.to_str().unwrap(), &ca]);
    let rebased = lab.try_git(&c, &["rebase", &ca]);
    assert!(rebased.status.success(), "{}", text(&rebased));
    assert_eq!(notes(&c), notes(&a));
    // The merged memory is healthy once the views are rebuilt from it.
    let lint = lab.mem(&a, &at(18, 40), &["lint"]);
    assert!(lint.status.success(), "{}", text(&lint));
    lab.mem_ok(&a, &at(18, 40), &["doctor", "--rebuild-views"]);
    let doctor = lab.mem(&a, &at(18, 40), &["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor));
}

#[test]
fn the_same_decision_admitted_in_both_clones_is_one_entry_and_lint_and_doctor_stay_clean() {
    let (lab, proposed) = lab_with(&[("decision", "Use Postgres")]);
    let a = lab.clone_of("a", true);
    let b = lab.clone_of("b", true);
    // Bob admitted first in the day, but on the same day the name decides.
    admit(&lab, &a, &at(18, 60), &proposed[0], "ada");
    admit(&lab, &b, &at(18, 5), &proposed[0], "bob");
    let ca = lab.commit(&a, "ada admits");
    let cb = lab.commit(&b, "bob admits");
    let into_a = lab.merge(&a, &b, &cb);
    let into_b = lab.merge(&b, &a, &ca);
    for out in [&into_a, &into_b] {
        assert!(out.status.success(), "{}", text(out));
        let said = text(out);
        for file in [DECISIONS, LEDGER] {
            assert!(
                said.contains(&format!("mem merge-driver: {file}: "))
                    && said.contains("was admitted on both sides; kept "),
                "{said}"
            );
        }
    }
    assert_eq!(notes(&a), notes(&b));
    let decisions = read(&a, DECISIONS);
    assert_eq!(decisions.matches("### ").count(), 1, "{decisions}");
    assert!(
        decisions.contains("**Admitted-by**: ada (candidate"),
        "{decisions}"
    );
    let ledger = read(&a, LEDGER);
    assert_eq!(ledger.lines().count(), 1, "{ledger}");
    assert!(ledger.contains(r#""actor":"ada""#), "{ledger}");
    let candidate = read(&a, &format!("{CANDIDATES}/{}.md", proposed[0].0));
    assert!(candidate.contains(" by ada: "), "{candidate}");
    for dir in [&a, &b] {
        let lint = lab.mem(dir, &at(18, 90), &["lint"]);
        assert!(lint.status.success(), "{}", text(&lint));
        let doctor = lab.mem(dir, &at(18, 90), &["doctor"]);
        assert!(doctor.status.success(), "{}", text(&doctor));
    }
    // The decision goes on from the merged ledger.
    lab.mem_ok(
        &a,
        &at(18, 100),
        &[
            "decision",
            "abrogate",
            "Use Postgres",
            "--reason",
            "moved to SQLite",
        ],
    );
    let lint = lab.mem(&a, &at(18, 110), &["lint"]);
    assert!(lint.status.success(), "{}", text(&lint));
}

#[test]
fn a_lesson_admitted_on_different_days_keeps_the_earlier_admission_through_a_rebase_too() {
    let (lab, proposed) = lab_with(&[("lesson", "Flush the bucket in setup")]);
    let a = lab.clone_of("a", true);
    let b = lab.clone_of("b", true);
    admit(&lab, &a, &at(19, 0), &proposed[0], "ada");
    admit(&lab, &b, &at(18, 30), &proposed[0], "bob");
    let ca = lab.commit(&a, "ada admits");
    let cb = lab.commit(&b, "bob admits");
    let into_a = lab.merge(&a, &b, &cb);
    assert!(into_a.status.success(), "{}", text(&into_a));
    lab.git(&b, &["fetch", "-q", a.to_str().unwrap(), &ca]);
    let rebased = lab.try_git(&b, &["rebase", &ca]);
    assert!(rebased.status.success(), "{}", text(&rebased));
    assert_eq!(notes(&a), notes(&b));
    let lessons = read(&a, LESSONS);
    assert!(
        lessons.contains("### 2026-10-18 — Flush the bucket in setup\n")
            && !lessons.contains("2026-10-19"),
        "{lessons}"
    );
    assert!(
        lessons.contains("**Admitted-by**: bob (candidate"),
        "{lessons}"
    );
    let lint = lab.mem(&a, &at(20, 0), &["lint"]);
    assert!(lint.status.success(), "{}", text(&lint));
    lab.mem_ok(&a, &at(20, 0), &["doctor", "--rebuild-views"]);
    let doctor = lab.mem(&a, &at(20, 0), &["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor));
}

#[test]
fn a_clone_set_up_before_the_note_files_merged_is_told_to_run_setup_again() {
    let lab = Lab::new();
    lab.origin(1);
    let a = lab.clone_of("a", true);
    // `.gitattributes` as an earlier bmad-mem wrote it: the registries and the views only.
    let attributes = read(&a, ".gitattributes");
    let part = |notes: bool| {
        let kept: Vec<&str> = attributes
            .lines()
            .filter(|line| line.ends_with(".md merge=bmad-mem") == notes)
            .collect();
        lines(&kept)
    };
    let earlier = part(false);
    assert_eq!(earlier.lines().count(), 9, "{earlier}");
    fs::write(a.join(".gitattributes"), &earlier).unwrap();
    let doctor = lab.mem(&a, &at(18, 0), &["doctor"]);
    assert_eq!(doctor.status.code(), Some(1), "{}", text(&doctor));
    assert!(
        text(&doctor).contains(".gitattributes [merge-driver-lines]: names the memory's merge drivers but not for every file they merge, so git merges the others as plain text and conflicts on concurrent changes; missing: .bmad/memory/decisions.md merge=bmad-mem, .bmad/memory/lessons.md merge=bmad-mem, .bmad/memory/patterns.md merge=bmad-mem, .agents/memory/decisions.md merge=bmad-mem, .agents/memory/lessons.md merge=bmad-mem, .agents/memory/patterns.md merge=bmad-mem, .bmad/memory/refused.md merge=bmad-mem, .bmad/memory/candidates/*.md merge=bmad-mem; `bmad-mem git setup` adds them\n"),
        "{}",
        text(&doctor)
    );
    let setup: Json =
        serde_json::from_str(&lab.mem_ok(&a, &at(18, 0), &["--json", "git", "setup"])).unwrap();
    assert_eq!(setup["gitattributes"]["added"].as_array().unwrap().len(), 8);
    assert_eq!(
        read(&a, ".gitattributes"),
        format!("{earlier}{}", part(true))
    );
    let doctor = lab.mem(&a, &at(18, 0), &["doctor"]);
    assert!(doctor.status.success(), "{}", text(&doctor));
    // Git now sends the note files to the driver.
    assert_eq!(
        lab.git(
            &a,
            &[
                "check-attr",
                "merge",
                "--",
                LESSONS,
                ".bmad/memory/candidates/x.md"
            ]
        ),
        format!("{LESSONS}: merge: bmad-mem\n.bmad/memory/candidates/x.md: merge: bmad-mem\n")
    );
}
