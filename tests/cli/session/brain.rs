//! The brain seen by the session commands, hardened: a recorded `.brain-link` is trusted only as
//! far as detection would choose its folder today, a brain is typed by its layout, `export`
//! says what it leaves out and replaces regular files only, temporary files of killed writers
//! are swept, and a home folder that does not exist is never created.
//!
//! Every run has `HOME=<tempdir>/home` (with a `~/.ssh` holding a private key, the folder a
//! planted link aims at) and no `BMAD_PLUS_BRAIN`, unless a test says otherwise.

use std::ffi::OsStr;
use std::fs;
use std::process::Command;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::support::TestProject;
use crate::support::home::{home, link_text};
use crate::support::schema::Exported;

const LINK: &str = ".agents/memory/.brain-link";
const RELINK: &str = "to relink: rm .agents/memory/.brain-link && bmad-mem init";
const KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n";
const UUID: &str = "0c7f9a3e-1d2b-4c5d-8e9f-a0b1c2d3e4f5";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Inited {
    changed: bool,
    project: String,
    #[serde(rename = "memoryDir")]
    memory_dir: String,
    created: Vec<String>,
    kept: Vec<String>,
    brain: Option<Value>,
    warnings: Vec<String>,
}

/// A project with a temporary home holding `~/.ssh/id_ed25519`.
fn project() -> TestProject {
    let p = TestProject::new();
    let ssh = p.base().join("home/.ssh");
    fs::create_dir_all(&ssh).expect("create ~/.ssh");
    fs::write(ssh.join("id_ed25519"), KEY).expect("write the key");
    fs::write(ssh.join("config"), "Host *\n  IdentitiesOnly yes\n").expect("write config");
    let home = p.base().join("home");
    p.env("HOME", &home).env("BMAD_PLUS_BRAIN", "")
}

fn text(path: &std::path::Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Asserts that neither a run's output nor any file outside `~/.ssh` holds the private key.
#[track_caller]
fn assert_no_key(p: &TestProject, stdout: &str) {
    assert!(!stdout.contains("PRIVATE KEY"), "{stdout}");
    for (path, entry) in p.snapshot() {
        if let crate::support::Entry::File(bytes) = entry
            && !path.starts_with("home/.ssh")
        {
            let copied = String::from_utf8_lossy(&bytes).contains("PRIVATE KEY");
            assert!(!copied, "the key was copied into {}", path.display());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The recorded link.
// ---------------------------------------------------------------------------------------------

#[test]
fn a_committed_link_to_ssh_is_ignored_by_export_status_brief_and_init() {
    // The same folder named four ways: absolute, relative, through `..`, with another type.
    for case in 0..4 {
        let p = project();
        let ssh = text(&home(&p).join(".ssh"));
        let (target, kind) = match case {
            0 => (ssh, "portfolio"),
            1 => ("../home/.ssh".to_owned(), "portfolio"),
            2 => (
                format!("{}/_brain/../home/.ssh", p.base().display()),
                "portfolio",
            ),
            _ => (ssh, "claude-memory"),
        };
        let p = p.write(LINK, link_text(&target, kind));
        let reason = if target.starts_with('/') {
            format!("it links {target} as a {kind} brain, which detection would not choose now")
        } else {
            format!("it links {target}, which is not an absolute path")
        };
        let p = p.args(["export"]).refused(
            "export",
            &format!("{LINK} ignored: {reason}; nothing was exported — {RELINK}"),
        );
        let warning = format!("warning: {LINK} ignored: {reason}; {RELINK}");
        // status: the link is reported invalid, with the same warning; nothing is read from it.
        let ran = p
            .args(["--json", "status"])
            .code(0)
            .stderr("")
            .unchanged()
            .run();
        let status: Value = serde_json::from_str(&ran.stdout).unwrap();
        assert_eq!(status["link"]["state"], "invalid");
        assert_eq!(status["link"]["problem"], reason.as_str());
        assert_eq!(status["brain"], Value::Null);
        assert_eq!(status["warnings"][0], warning.as_str());
        // brief: the warning on stderr, and the key nowhere.
        let ran = ran.then().args(["brief"]).code(0).unchanged().run();
        assert!(
            ran.stderr.contains(&format!("{warning}\n")),
            "{}",
            ran.stderr
        );
        assert_no_key(&ran.project, &ran.stdout);
        // init: the project memory is made, the link kept as it is, no brain linked or created.
        let ran = ran
            .then()
            .args(["--json", "init"])
            .code(0)
            .stderr("")
            .file(LINK, link_text(&target, kind))
            .run();
        let inited: Inited = ran.json();
        assert!(inited.changed && inited.brain.is_none());
        assert_eq!(inited.warnings, [warning]);
        assert!(!home(&ran.project).join(".bmad-plus").exists());
        assert_no_key(&ran.project, &ran.stdout);
    }
}

#[test]
fn a_link_is_used_while_detection_could_choose_it_and_ignored_once_it_could_not() {
    let p = project()
        .write("ws/_brain/README.md", "# Studio brain\nClients first.\n")
        .mkdir("ws/app");
    let brain = text(&p.path("ws/_brain"));
    let p = p
        .args(["-d", "ws/app", "init"])
        .code(0)
        .stderr("")
        .file(&format!("ws/app/{LINK}"), link_text(&brain, "portfolio"))
        .run()
        .then();
    let ran = p
        .args(["-d", "ws/app", "--json", "export"])
        .code(0)
        .stderr("")
        .run();
    let exported: Exported = ran.json();
    assert_eq!(exported.files, ["README.md"]);
    assert!(exported.warnings.is_empty());
    let p = ran.then();
    // The folder becomes a link to elsewhere: the recorded link is no longer honoured.
    let ssh = home(&p).join(".ssh");
    let p = p
        .remove("ws/_brain")
        .remove("ws/app/bmad-brain-export-2026-10-18.md")
        .symlink(ssh, "ws/_brain");
    let _ = p.args(["-d", "ws/app", "export"]).refused(
        "export",
        &format!(
            "{LINK} ignored: it links {brain} as a portfolio brain, which detection would not choose now; nothing was exported — {RELINK}"
        ),
    );
}

#[test]
fn a_committed_link_to_another_homes_global_brain_is_this_homes_global_brain_silently() {
    // Alice ran init (or bmad-plus) and committed the link; Bob clones. Bob's health and brief
    // are what they would be without the link: no warning, nothing read from Alice's path.
    let alice = "/home/alice/.bmad-plus/brain";
    let p = project()
        .args(["init"])
        .code(0)
        .stderr("")
        .absent(LINK)
        .run()
        .then();
    let without: Value = p.args(["--json", "status"]).code(0).stderr("").run().json();
    for target in [
        alice.to_owned(),
        format!("{alice}/../../bob/.bmad-plus/brain/"),
    ] {
        let p = project()
            .args(["init"])
            .code(0)
            .run()
            .then()
            .write(LINK, link_text(&target, "bmad-global"));
        let ran = p
            .args(["--json", "status"])
            .code(0)
            .stderr("")
            .unchanged()
            .run();
        let status: Value = ran.json();
        assert_eq!(status["link"]["state"], "valid", "{target}");
        let this_home = text(&home(&ran.project).join(".bmad-plus/brain"));
        assert_eq!(status["brain"]["path"], this_home.as_str());
        assert_eq!(status["warnings"], json!([]));
        assert_eq!(status["health"], without["health"], "{target}");
        // brief (the SessionStart hook): no warning.
        let ran = ran
            .then()
            .args(["brief"])
            .code(0)
            .stderr("")
            .unchanged()
            .run();
        // init keeps the link as it is, without a word, and indexes this home's brain.
        let ran = ran
            .then()
            .args(["--json", "init"])
            .code(0)
            .stderr("")
            .file(LINK, link_text(&target, "bmad-global"))
            .run();
        let inited: Inited = ran.json();
        assert!(inited.warnings.is_empty(), "{:?}", inited.warnings);
        let brain = inited.brain.expect("the global brain");
        assert_eq!(brain["link"], "kept");
        assert_eq!(
            brain["path"],
            text(&home(&ran.project).join(".bmad-plus/brain"))
        );
        // export reads this home's brain.
        let exported: Exported = ran
            .then()
            .args(["--json", "export"])
            .code(0)
            .stderr("")
            .run()
            .json();
        assert_eq!(
            exported.brain.path,
            brain["path"].as_str().unwrap().to_owned()
        );
    }
    // Only as the global brain, and only `.bmad-plus/brain` itself: anything else stays refused.
    for (target, kind) in [
        (alice, "portfolio"),
        ("/home/alice/.bmad-plus/brain/memory", "bmad-global"),
        ("/home/alice/.bmad-plus/brains", "bmad-global"),
    ] {
        let p = project().write(LINK, link_text(target, kind));
        let status: Value = p.args(["--json", "status"]).code(0).stderr("").run().json();
        assert_eq!(status["link"]["state"], "invalid", "{target} as {kind}");
    }
}

#[test]
fn a_link_file_reached_through_a_memory_folder_linked_inside_the_project_is_read() {
    // `.agents` is a link to a folder inside the project: the notes behind it are read by
    // every reader, and so is the brain link beside them — one rule for every read.
    let p = project()
        .write("real/memory/lessons.md", "### Lesson\nKeep it.\n")
        .symlink("real", ".agents");
    let brain = text(&home(&p).join(".bmad-plus/brain"));
    fs::create_dir_all(&brain).expect("create the global brain");
    let mut p = p.write(LINK, link_text(&brain, "bmad-global"));
    for action in ["status", "brief"] {
        let ran = p
            .args(["--json", action])
            .code(0)
            .stderr("")
            .unchanged()
            .run();
        let result: Value = serde_json::from_str(&ran.stdout).unwrap();
        let warned = result
            .get("warnings")
            .and_then(Value::as_array)
            .is_some_and(|w| !w.is_empty());
        assert!(!warned, "{action}: {}", ran.stdout);
        p = ran.then();
    }
    let ran = p.args(["--json", "status"]).code(0).run();
    let status: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(status["link"]["state"], "valid", "{}", ran.stdout);
    // Without a link file there is nothing to warn about, let alone a file to remove.
    let p = ran.then().remove("real/memory/.brain-link");
    let _ = p.args(["status"]).code(0).stderr("").unchanged().run();
}

#[test]
fn a_brain_whose_path_is_not_utf8_is_not_linked_with_an_altered_path() {
    use std::os::unix::ffi::OsStrExt as _;
    let p = project();
    let workspace = p.base().join(OsStr::from_bytes(b"w\xff"));
    fs::create_dir_all(workspace.join("_brain")).expect("create the brain");
    fs::create_dir(workspace.join("app")).expect("create the project");
    // The link would have to record the path with U+FFFD in place of the byte: a link that no
    // later run could honour. The link is not written, and init says why.
    let ran = p
        .args([
            OsStr::new("-d"),
            workspace.join("app").as_os_str(),
            OsStr::new("--json"),
            OsStr::new("init"),
        ])
        .code(0)
        .stderr("")
        .run();
    let inited: Inited = ran.json();
    assert!(inited.brain.is_none(), "{}", ran.stdout);
    assert!(
        inited
            .warnings
            .iter()
            .any(|w| w.contains("not valid UTF-8") && w.contains("no brain is linked")),
        "{:?}",
        inited.warnings
    );
    assert!(!workspace.join("app").join(LINK).exists());
    // A home whose path is not UTF-8 is no problem for the global brain: it needs no link.
    let p = ran.then();
    let home = p.base().join(OsStr::from_bytes(b"h\xff"));
    fs::create_dir(&home).expect("create the home");
    let ran = p
        .env("HOME", &home)
        .args(["--json", "init"])
        .code(0)
        .stderr("")
        .absent(LINK)
        .run();
    let inited: Inited = ran.json();
    assert!(inited.warnings.is_empty(), "{:?}", inited.warnings);
    assert_eq!(
        inited.brain.expect("the global brain")["link"],
        "not-needed"
    );
    assert!(home.join(".bmad-plus/brain/identity.yaml").is_file());
}

#[test]
fn a_symbolic_link_named_brain_is_never_detected() {
    let p = project();
    let ssh = home(&p).join(".ssh");
    let link = text(&p.path("_brain"));
    let global = text(&home(&p).join(".bmad-plus/brain"));
    let ran = p
        .symlink(&ssh, "_brain")
        .args(["init"])
        .code(0)
        .absent(LINK)
        .run();
    assert_eq!(
        ran.stderr,
        format!(
            "warning: {link} is a symbolic link and is not used as a brain; if you trust the folder it names, set BMAD_PLUS_BRAIN to it\n"
        )
    );
    let ran = ran.then().args(["--json", "export"]).code(0).run();
    let exported: Exported = ran.json();
    assert_eq!(exported.brain.path, global);
    assert_no_key(&ran.project, &ran.stdout);
    // A link someone recorded to it by hand is ignored too.
    let p = ran
        .then()
        .remove("bmad-brain-export-2026-10-18.md")
        .write(LINK, link_text(&link, "portfolio"));
    let _ = p.args(["export"]).refused(
        "export",
        &format!(
            "{LINK} ignored: it links {link} as a portfolio brain, which detection would not choose now; nothing was exported — {RELINK}"
        ),
    );
}

// ---------------------------------------------------------------------------------------------
// Typing by layout.
// ---------------------------------------------------------------------------------------------

const IDENTITY: &str = "user_name: \"Dana\"\nlanguage: \"en\"\nrole: \"freelance designer\"\npreferences:\n  - small PRs\n";

#[test]
fn a_brain_env_folder_with_identity_yaml_is_typed_bmad_global() {
    let p = project()
        .write("brains/dana/identity.yaml", IDENTITY)
        .write(
            "brains/dana/decisions.md",
            "# Decisions\n\n### 2026-09-01 — Figma for every client\n- **Status**: active\n",
        );
    let dir = text(&p.path("brains/dana"));
    let p = p.env("BMAD_PLUS_BRAIN", &dir);
    let p = p
        .args(["init"])
        .code(0)
        .stderr("")
        .file(LINK, link_text(&dir, "bmad-global"))
        .absent("brains/dana/projects")
        .file("brains/dana/identity.yaml", IDENTITY)
        .run()
        .then();
    // Nothing is written into a brain that is not this home's global brain.
    assert_eq!(
        fs::read_dir(p.path("brains/dana")).unwrap().count(),
        2,
        "the brain was written to"
    );
    let ran = p.args(["--json", "status"]).code(0).stderr("").run();
    let status: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(status["brain"]["type"], "bmad-global");
    assert_eq!(status["brain"]["entryPoint"], "identity.yaml");
    assert_eq!(status["brain"]["identity"], true);
    // The brief shows identity.yaml, which the protocol reads first.
    let ran = ran.then().args(["brief"]).code(0).stderr("").run();
    assert!(ran.stdout.contains("identity.yaml"), "{}", ran.stdout);
    assert!(ran.stdout.contains(IDENTITY.trim_end()), "{}", ran.stdout);
}

#[test]
fn a_brain_folder_with_an_entry_point_and_no_identity_stays_portfolio() {
    let p = project().write("_brain/AGENTS.md", "Read HOT.md, then the client folder.\n");
    let dir = text(&p.path("_brain"));
    let p = p
        .args(["init"])
        .code(0)
        .stderr("")
        .file(LINK, link_text(&dir, "portfolio"))
        .run()
        .then();
    // Once the folder gains identity.yaml, its layout is BMAD+'s: the old link no longer
    // matches and is ignored, with the way to relink.
    let p = p.write("_brain/identity.yaml", IDENTITY);
    let ran = p.args(["--json", "status"]).code(0).stderr("").run();
    let status: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(status["link"]["state"], "invalid");
    assert_eq!(status["detected"]["type"], "bmad-global");
}

// ---------------------------------------------------------------------------------------------
// export: what is left out, and --force.
// ---------------------------------------------------------------------------------------------

/// A portfolio brain as people keep them: an entry point linked from a team folder, an
/// Obsidian vault's settings, a `.env`, an image, a link to notes outside the brain, a huge log.
fn portfolio() -> TestProject {
    project()
        .write(
            "ws/_brain/README.md",
            "# Studio brain\nStart with HOT.md.\n",
        )
        .write("ws/team/hot.md", "Outside the brain: never exported.\n")
        .write(
            "ws/_brain/team/hot.md",
            "# Hot\n- Orbit: loyalty card sign-up ships Friday\n",
        )
        .symlink("team/hot.md", "ws/_brain/HOT.md")
        .symlink("../team/hot.md", "ws/_brain/inbox.md")
        .symlink("team", "ws/_brain/current")
        .symlink("missing.md", "ws/_brain/old.md")
        .write("ws/_brain/.env", "FIGMA_TOKEN=secret\n")
        .write("ws/_brain/.obsidian/workspace.json", "{\"main\":{}}\n")
        .write(
            "ws/_brain/clients/orbit/logo.png",
            b"\x89PNG\r\n\x1a\n\x00\x00",
        )
        .write("ws/_brain/logs/build.log", "x".repeat(2 * 1024 * 1024 + 1))
        .mkdir("ws/app")
}

#[test]
fn export_follows_links_inside_the_brain_and_lists_every_file_left_out() {
    let p = portfolio();
    let ran = p
        .args(["-d", "ws/app", "--json", "export"])
        .code(0)
        .stderr("")
        .run();
    let exported: Exported = ran.json();
    assert_eq!(
        exported.files,
        ["README.md", "HOT.md", "team/hot.md"],
        "{exported:?}"
    );
    let skipped: Vec<(&str, &str)> = exported
        .skipped
        .iter()
        .map(|s| (s.file.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(
        skipped,
        [
            (".env", "hidden"),
            (".obsidian/", "hidden folder"),
            ("clients/orbit/logo.png", "not text"),
            ("current", "link to a folder"),
            ("inbox.md", "link leaving the brain"),
            ("logs/build.log", "over 2 MiB"),
            ("old.md", "broken link"),
        ]
    );
    let out = ran
        .project
        .read_text("ws/app/bmad-brain-export-2026-10-18.md");
    assert!(out.contains(
        "\n## HOT.md\n\n```markdown\n# Hot\n- Orbit: loyalty card sign-up ships Friday\n```\n"
    ));
    assert!(!out.contains("secret") && !out.contains("never exported"));
    assert!(out.ends_with(
        "\n## Not exported\n\n- .env: hidden\n- .obsidian/: hidden folder\n- clients/orbit/logo.png: not text\n- current: link to a folder\n- inbox.md: link leaving the brain\n- logs/build.log: over 2 MiB\n- old.md: broken link\n"
    ));
    // The human report names them too.
    let p = ran.then().remove("ws/app/bmad-brain-export-2026-10-18.md");
    let ran = p.args(["-d", "ws/app", "export"]).code(0).stderr("").run();
    let brain = text(&ran.project.path("ws/_brain"));
    assert_eq!(
        ran.stdout,
        format!(
            "mem export: brain exported to {} (3 file(s) from portfolio {brain})\n  not exported: .env (hidden)\n  not exported: .obsidian/ (hidden folder)\n  not exported: clients/orbit/logo.png (not text)\n  not exported: current (link to a folder)\n  not exported: inbox.md (link leaving the brain)\n  not exported: logs/build.log (over 2 MiB)\n  not exported: old.md (broken link)\n",
            ran.project
                .path("ws/app/bmad-brain-export-2026-10-18.md")
                .display()
        )
    );
}

#[test]
fn export_force_replaces_regular_files_only() {
    let p = project().write("_brain/README.md", "# Brain\n");
    // A link to a file outside the project: the file must stay as it is.
    let outside = p.base().join("outside.txt");
    fs::write(&outside, "not yours\n").unwrap();
    let link = p.path("out.md");
    // The FIFO lives outside the test's folder, whose snapshots read every file.
    let pipes = tempfile::tempdir().unwrap();
    let fifo = pipes.path().join("pipe.md");
    let folder = p.path("folder");
    let p = p.symlink(&outside, "out.md");
    let p = p.args(["export", "--out", "out.md", "--force"]).refused(
        "export",
        &format!(
            "--out names a symbolic link, not a regular file: {}; --force replaces regular files only",
            link.display()
        ),
    );
    assert_eq!(fs::read_to_string(&outside).unwrap(), "not yours\n");
    // A FIFO (a stand-in for a device such as /dev/null).
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let p = p.args([OsStr::new("export"), OsStr::new("--out"), fifo.as_os_str(), OsStr::new("--force")]).refused(
        "export",
        &format!(
            "--out names a special file (FIFO, device or socket), not a regular file: {}; --force replaces regular files only",
            fifo.display()
        ),
    );
    let p = p
        .mkdir("folder")
        .args(["export", "--out", "folder", "--force"])
        .refused(
            "export",
            &format!(
                "--out names a folder, not a regular file: {}; --force replaces regular files only",
                folder.display()
            ),
        );
    // A regular file is replaced.
    let exported: Exported = p
        .write("old.md", "old\n")
        .args(["--json", "export", "--out", "old.md", "--force"])
        .code(0)
        .run()
        .json();
    assert!(exported.replaced);
    assert_eq!(exported.files, ["README.md"]);
    assert!(exported.bytes > 0 && exported.exported.ends_with("/old.md"));
    assert_eq!(exported.brain.kind, "portfolio");
}

// ---------------------------------------------------------------------------------------------
// Temporary files of killed writers; a home that does not exist.
// ---------------------------------------------------------------------------------------------

#[test]
fn temporary_files_of_killed_writers_are_swept_and_nothing_else() {
    let dead = |stem: &str| format!("{stem}.{UUID}.tmp");
    let p = project()
        .mkdir(".agents/memory/sessions")
        .write(&format!(".agents/memory/{}", dead("context.md")), "half")
        .write(&format!(".agents/memory/{}", dead("decisions.md")), "half")
        .write(&format!(".agents/memory/{}", dead(".brain-link")), "{")
        .write(&format!(".agents/memory/{}", dead("notes.txt")), "not ours")
        .write(".agents/memory/lessons.md.tmp", "not ours")
        .write(
            &format!(".agents/memory/sessions/{}", dead("2026-10-17-auth.md")),
            "half",
        )
        .write(
            &format!("../home/.bmad-plus/brain/{}", dead("identity.yaml")),
            "half",
        )
        .write(
            &format!(
                "../home/.bmad-plus/brain/projects/{}",
                dead("d885ad15.yaml")
            ),
            "half",
        )
        .write(&dead("bmad-brain-export-2026-10-17.md"), "half")
        .write(&dead("README.md"), "not ours");
    let p = p.args(["init"]).code(0).stderr("").run().then();
    assert_eq!(
        p.names(".agents/memory"),
        [
            "context.md".to_owned(),
            "decisions.md".to_owned(),
            "lessons.md".to_owned(),
            "lessons.md.tmp".to_owned(),
            dead("notes.txt"),
            "patterns.md".to_owned(),
            "sessions".to_owned(),
        ]
    );
    let brain = home(&p).join(".bmad-plus/brain");
    for dir in [brain.clone(), brain.join("projects")] {
        for entry in fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            assert!(!name.contains(UUID), "{name} left in {}", dir.display());
        }
    }
    assert!(p.names(".agents/memory/sessions").is_empty());
    // handoff sweeps sessions/ ...
    let p = p.write(
        &format!(".agents/memory/sessions/{}", dead("2026-10-17-db.md")),
        "half",
    );
    let p = p.args(["handoff", "--topic", "Auth"]).code(0).run().then();
    assert_eq!(
        p.names(".agents/memory/sessions"),
        ["2026-10-18-auth.md".to_owned()]
    );
    // ... and export the folder it writes into, sparing what is not an export's.
    let p = p.args(["export"]).code(0).run().then();
    let names: Vec<String> = p
        .names("")
        .into_iter()
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(
        names,
        [
            dead("README.md"),
            "bmad-brain-export-2026-10-18.md".to_owned()
        ]
    );
}

#[test]
fn a_home_that_does_not_exist_is_never_created() {
    let p = project();
    let missing = p.base().join("nonexistent");
    let brain = missing.join(".bmad-plus/brain");
    let ran = p
        .env("HOME", &missing)
        .args(["--json", "init"])
        .code(0)
        .stderr("")
        .absent(LINK)
        .run();
    let inited: Inited = ran.json();
    assert!(inited.changed && inited.brain.is_none());
    assert_eq!(inited.project, "project");
    assert_eq!(inited.memory_dir, ".agents/memory");
    assert!(
        inited
            .created
            .contains(&".agents/memory/decisions.md".to_owned())
    );
    assert!(inited.kept.is_empty());
    assert_eq!(
        inited.warnings,
        [format!(
            "warning: cannot create the global brain (cannot create {}: No such file or directory (os error 2)); the project memory is ready, no brain is linked",
            brain.display()
        )]
    );
    assert!(!missing.exists(), "the home folder was created");
}
