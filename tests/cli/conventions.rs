//! The conventions of a command-line tool: shell completions, the manual page, `help <action>`,
//! suggestions for a mistyped action or option, `--version` in both forms, and when human output
//! is coloured.

use crate::actions::observe::{INPUT, golden, golden_line};
use crate::support::TestProject;

/// Every action a user may type, in the order the help lists them.
const ACTIONS: [&str; 29] = [
    "recall",
    "write",
    "reinforce",
    "observe",
    "outcomes",
    "lock",
    "doctor",
    "archive",
    "git",
    "init",
    "status",
    "brief",
    "handoff",
    "export",
    "scan",
    "propose",
    "admit",
    "import",
    "decision",
    "lint",
    "view",
    "mcp",
    "guard",
    "hooks",
    "merge-driver",
    "model",
    "index",
    "completions",
    "man",
];

const SHELLS: [&str; 5] = ["bash", "zsh", "fish", "powershell", "elvish"];

/// A run that must succeed with nothing on stderr and no file touched; its stdout.
fn stdout_of(args: &[&str]) -> String {
    TestProject::new()
        .args(args)
        .code(0)
        .stderr("")
        .unchanged()
        .run()
        .stdout
}

/// `text` without the SGR sequences (`ESC [ … m`) colour adds.
fn strip_colour(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("\u{1b}[") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(after.len());
        assert_eq!(&after[end..=end], "m", "a colour sequence in {text:?}");
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn each_shell_gets_a_completion_script_naming_every_action() {
    for shell in SHELLS {
        let script = stdout_of(&["completions", shell]);
        assert!(script.len() > 1000, "{shell}: {script}");
        for action in ACTIONS {
            assert!(script.contains(action), "{shell} lacks {action}");
        }
        // Options complete too.
        assert!(script.contains("--ranking"), "{shell} lacks --ranking");
    }
    let _ = TestProject::new().args(["completions", "tcsh"]).refused(
        "completions",
        "invalid value 'tcsh' for '<shell>' [possible values: bash, elvish, fish, powershell, zsh]",
    );
}

/// What bash offers for `words` (the last one being completed) from the script `bmad-mem
/// completions bash` prints, sourced in a real bash, as bash-completion calls it.
fn bash_completes(script: &std::path::Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect();
    let program = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={}\nCOMP_LINE=\"${{COMP_WORDS[*]}}\"\nCOMP_POINT=${{#COMP_LINE}}\n_bmad__mem bmad-mem \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script.display(),
        quoted.join(" "),
        words.len() - 1
    );
    let out = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &program])
        .output()
        .expect("run bash");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_bash_script_completes_actions_sub_actions_options_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bmad-mem.bash");
    std::fs::write(&script, stdout_of(&["completions", "bash"])).unwrap();
    let cases: &[(&[&str], &[&str])] = &[
        (&["bmad-mem", "rec"], &["recall"]),
        (
            &["bmad-mem", "decision", "a"],
            &["adopt", "accept", "abrogate"],
        ),
        (&["bmad-mem", "git", "s"], &["setup"]),
        (&["bmad-mem", "recall", "--li"], &["--limit"]),
        (
            &["bmad-mem", "recall", "--ranking", ""],
            &["lexical", "evidence", "bm25", "hybrid"],
        ),
        (
            &["bmad-mem", "recall", "auth", "--scope", "p"],
            &["project", "portfolio"],
        ),
        (
            &["bmad-mem", "recall", "--status", ""],
            &["in-force", "all"],
        ),
        (
            &["bmad-mem", "write", "--outcome", ""],
            &["success", "failure", "partial", "abandoned"],
        ),
        (&["bmad-mem", "reinforce", "--ci", ""], &["pass", "fail"]),
        (
            &["bmad-mem", "propose", "--type", ""],
            &["decision", "lesson", "pattern"],
        ),
        (
            &["bmad-mem", "hooks", "install", "--agent", "c"],
            &["claude-code", "codex"],
        ),
        (
            &["bmad-mem", "doctor", "--repair-tail", ".bmad/memory/j"],
            &[".bmad/memory/journal.ndjson"],
        ),
        (&["bmad-mem", "lint", "--ignore", "forma"], &["format"]),
        (&["bmad-mem", "man", "rei"], &["reinforce"]),
        (&["bmad-mem", "completions", "f"], &["fish"]),
    ];
    for (words, expected) in cases {
        assert_eq!(bash_completes(&script, words), *expected, "{words:?}");
    }
}

#[test]
fn the_zsh_and_fish_scripts_offer_the_closed_values_and_parse() {
    for (shell, ranking) in [
        ("zsh", ":(lexical evidence bm25 hybrid)'"),
        (
            "fish",
            "-a \"lexical\\t''\nevidence\\t''\nbm25\\t''\nhybrid\\t''\"",
        ),
    ] {
        let script = stdout_of(&["completions", shell]);
        assert!(script.contains(ranking), "{shell}");
        for value in [
            "in-force",
            "abandoned",
            "promotions",
            "claude-code",
            "heading-in-code",
        ] {
            assert!(script.contains(value), "{shell} lacks {value}");
        }
        // Where the shell is installed, it reads the script without a syntax error.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(format!("bmad-mem.{shell}"));
        std::fs::write(&file, &script).unwrap();
        if let Ok(out) = std::process::Command::new(shell)
            .arg("-n")
            .arg(&file)
            .output()
        {
            assert!(out.status.success(), "{shell} -n: {out:?}");
        }
        // Where fish is installed, it completes from the script as a user's fish would.
        if shell == "fish" {
            let complete = |line: &str| {
                let program = format!("source '{}'; complete -C '{line}'", file.display());
                std::process::Command::new("fish")
                    .args(["--no-config", "-c", &program])
                    .output()
                    .ok()
                    .map(|out| {
                        let text = String::from_utf8_lossy(&out.stdout).into_owned();
                        let mut words: Vec<String> = text
                            .lines()
                            .map(|l| l.split('\t').next().unwrap_or_default().to_owned())
                            .collect();
                        words.sort();
                        words
                    })
            };
            if let Some(words) = complete("bmad-mem recall --ranking ") {
                assert_eq!(words, ["bm25", "evidence", "hybrid", "lexical"]);
                let words = complete("bmad-mem decision a").unwrap();
                assert_eq!(words, ["abrogate", "accept", "adopt"]);
            }
        }
    }
}

#[test]
fn the_manual_page_is_roff_naming_every_action() {
    let page = stdout_of(&["man"]);
    assert!(page.contains(".TH bmad-mem 1"), "{page}");
    assert!(page.contains(".SH SYNOPSIS") && page.contains(".SH Actions"));
    for action in ACTIONS {
        let roff = action.replace('-', "\\-");
        assert!(
            page.contains(&format!("bmad\\-mem\\-{roff}(1)")),
            "{action}"
        );
    }
    let recall = stdout_of(&["man", "recall"]);
    assert!(recall.contains(".TH bmad-mem-recall 1"), "{recall}");
    assert!(recall.contains("\\-\\-ranking") && recall.contains("\\-\\-json"));
    assert!(recall.contains("Examples:"));
    // Sub-actions have their pages, which their action's page names.
    let setup = stdout_of(&["man", "git", "setup"]);
    assert!(setup.contains(".TH bmad-mem-git-setup 1"), "{setup}");
    assert!(setup.contains("\\-\\-dry\\-run"), "{setup}");
    assert!(stdout_of(&["man", "git"]).contains("bmad\\-mem\\-git\\-setup(1)"));
    for (action, sub) in [("decision", "adopt"), ("hooks", "")] {
        let words: Vec<&str> = ["man", action, sub]
            .into_iter()
            .filter(|w| !w.is_empty())
            .collect();
        let page = stdout_of(&words);
        assert!(page.contains(".SH SYNOPSIS"), "{words:?}");
    }
    let _ = TestProject::new().args(["man", "git", "nope"]).refused(
        "man",
        "no manual page for 'git nope' — expected setup | hook",
    );
    let _ = TestProject::new().args(["man", "nope"]).refused(
        "man",
        &format!(
            "no manual page for 'nope' — expected {}",
            ACTIONS.join(" | ")
        ),
    );
    // An option `man` does not take is named as any action's would be.
    let _ = TestProject::new()
        .args(["man", "--frob"])
        .refused("man", "unexpected argument '--frob' found");
}

#[test]
fn help_action_is_the_action_help() {
    assert_eq!(stdout_of(&["help"]), stdout_of(&["--help"]));
    for action in ACTIONS {
        let help = stdout_of(&[action, "--help"]);
        assert_eq!(stdout_of(&["help", action]), help, "{action}");
        // The action's own options first, the common ones after, then examples.
        let common = help.find("\nCommon options:\n").expect(action);
        let examples = help.find("\nExamples:\n  ").expect(action);
        assert!(common < examples, "{action}:\n{help}");
        if let Some(own) = help.find("\nOptions:\n") {
            assert!(own < common, "{action}:\n{help}");
        }
        let common_options = &help[common..examples];
        for option in ["-d, --directory <path>", "--json", "-h, --help"] {
            assert!(common_options.contains(option), "{action}:\n{help}");
        }
        assert!(!help[..common].contains("--directory"), "{action}:\n{help}");
    }
    for (action, sub) in [
        ("decision", "adopt"),
        ("decision", "supersede"),
        ("decision", "abrogate"),
        ("git", "setup"),
    ] {
        let help = stdout_of(&[action, sub, "--help"]);
        assert_eq!(stdout_of(&["help", action, sub]), help, "{sub}");
        assert!(
            help.contains(&format!("Examples:\n  bmad-mem {action} {sub}")),
            "{help}"
        );
    }
}

#[test]
fn a_mistyped_action_or_option_gets_a_suggestion() {
    let expected = ACTIONS.join(" | ");
    let cases: &[(&[&str], &str)] = &[
        (
            &["recal", "auth"],
            &format!(
                "mem: unknown action 'recal' — expected {expected}; did you mean 'recall'? (try 'bmad-mem --help')"
            ),
        ),
        (
            &["recall", "auth", "--limt", "3"],
            "mem recall: unexpected argument '--limt' found; did you mean '--limit'? (try 'bmad-mem recall --help')",
        ),
        (
            &["write", "--agnt", "forge"],
            "mem write: unexpected argument '--agnt' found; did you mean '--agent'? (try 'bmad-mem write --help')",
        ),
        (
            &["decision", "adpot", "--all"],
            "mem decision: unknown action 'adpot' — expected adopt | accept | reject | supersede | abrogate; did you mean 'adopt'? (try 'bmad-mem decision --help')",
        ),
    ];
    for (args, human) in cases {
        let message = human.split_once(": ").unwrap().1;
        let _ = TestProject::new()
            .fixture("example")
            .args(*args)
            .refused_as(&format!("{human}\n"), message);
    }
    // Nothing near, or another action's option: the message stays as it was.
    let _ = TestProject::new()
        .fixture("example")
        .args(["recall", "auth", "--frob"])
        .refused("recall", "unexpected argument '--frob' found");
    let _ = TestProject::new()
        .fixture("example")
        .args(["reinforce", "--pattern", "p", "--agent", "forge"])
        .refused("reinforce", "unexpected argument '--agent' found");
}

#[test]
fn version_in_both_forms() {
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(stdout_of(&["--version"]), format!("bmad-mem {version}\n"));
    let json = format!(
        "{{\"name\":\"bmad-mem\",\"version\":\"{version}\",\"compatibleWith\":\"bmad-plus mem 0.22\"}}\n"
    );
    for args in [
        ["--version", "--json"],
        ["--json", "--version"],
        ["--json", "-V"],
    ] {
        assert_eq!(stdout_of(&args), json, "{args:?}");
    }
}

/// Runs `args` in `project` with `env` set (and the colour variables unset otherwise); exit
/// status 0 and its stdout.
fn output(project: TestProject, env: &[(&str, &str)], args: &[&str]) -> (TestProject, String) {
    let unset = [("CLICOLOR_FORCE", ""), ("NO_COLOR", "")];
    let ran = unset
        .iter()
        .chain(env)
        .fold(project, |p, (k, v)| p.env(k, v))
        .args(args)
        .code(0)
        .run();
    (ran.project, ran.stdout)
}

const FORCE: (&str, &str) = ("CLICOLOR_FORCE", "1");

#[test]
fn forced_colour_paints_the_five_actions_and_changes_no_text() {
    // The three writing actions run in two copies of one project, coloured and not.
    let writes: [&[&str]; 2] = [
        &[
            "write",
            "--agent",
            "forge",
            "--outcome",
            "failure",
            "--task",
            "x",
        ],
        &[
            "reinforce",
            "--pattern",
            "Rate limit on auth routes",
            "--accept",
            "true",
            "--ci",
            "pass",
        ],
    ];
    for args in writes {
        let (_, plain) = output(TestProject::new().fixture("example"), &[], args);
        let (_, painted) = output(TestProject::new().fixture("example"), &[FORCE], args);
        assert!(painted.contains("\u{1b}["), "{painted}");
        assert_eq!(strip_colour(&painted), plain);
    }
    let (project, run, _) = golden();
    let root = run.root().to_string_lossy().into_owned();
    let (_, id) = golden_line(&root);
    let (project, painted) = output(project, &[FORCE], &["observe", "--input", INPUT]);
    assert!(
        painted.contains(&format!("\u{1b}[36m{id}\u{1b}[0m")),
        "{painted}"
    );
    assert_eq!(
        strip_colour(&painted),
        format!("mem observe: {id} recorded; lesson causality remains unmeasured.\n")
    );
    // The reading actions run twice in one project.
    let (project, plain) = output(project, &[], &["outcomes"]);
    let (_, painted) = output(project, &[FORCE], &["outcomes"]);
    assert!(painted.contains("\u{1b}["), "{painted}");
    assert_eq!(strip_colour(&painted), plain);
    let project = TestProject::new().fixture("example");
    let (project, plain) = output(project, &[], &["recall", "auth"]);
    let (project, painted) = output(project, &[FORCE], &["recall", "auth"]);
    assert!(painted.contains("\u{1b}[35mnote\u{1b}[0m"), "{painted}");
    assert_eq!(strip_colour(&painted), plain);
    // Never under --json, never when NO_COLOR says no (an empty NO_COLOR says nothing).
    let (project, json) = output(project, &[], &["recall", "auth", "--json"]);
    let (project, forced) = output(project, &[FORCE], &["recall", "auth", "--json"]);
    assert_eq!(forced, json);
    let (project, refused) = output(project, &[FORCE, ("NO_COLOR", "1")], &["recall", "auth"]);
    assert_eq!(refused, plain);
    let (_, empty) = output(project, &[FORCE, ("NO_COLOR", "")], &["recall", "auth"]);
    assert_eq!(empty, painted);
}

#[test]
fn a_pipe_gets_no_colour() {
    // Not a terminal and not forced: the exact bytes (here and in every other test).
    let project = TestProject::new().fixture("example");
    let (project, plain) = output(project, &[("CLICOLOR_FORCE", "0")], &["recall", "auth"]);
    assert!(
        !plain.contains('\u{1b}') && plain.contains("[0."),
        "{plain}"
    );
    let ran = project
        .args(["recall", "auth", "--limit", "0"])
        .code(1)
        .stderr("mem recall: invalid value for --limit: 0\n")
        .run();
    // A forced error is painted; its text is the same.
    let ran = ran
        .then()
        .env("CLICOLOR_FORCE", "1")
        .args(["recall", "auth", "--limit", "0"])
        .code(1)
        .stdout("")
        .unchanged()
        .run();
    assert_eq!(
        ran.stderr,
        "\u{1b}[1m\u{1b}[31mmem recall\u{1b}[0m: invalid value for --limit: 0\n"
    );
    let _ = ran
        .then()
        .env("CLICOLOR_FORCE", "1")
        .args(["recall", "auth", "--limit", "0", "--json"])
        .code(1)
        .stdout("{\"error\":\"invalid value for --limit: 0\"}\n")
        .stderr("")
        .run();
    // Help is plain through a pipe.
    assert!(!stdout_of(&["recall", "--help"]).contains('\u{1b}'));
}

#[test]
fn forced_colour_still_shows_planted_escapes_as_text() {
    let project = TestProject::new().fixture("example");
    let planted = [
        "--agent",
        "\u{1b}]0;PWNED\u{7}",
        "--task",
        "auth \u{1b}[2J",
        "--outcome",
        "success",
    ];
    let (project, written) = output(project, &[FORCE], &[&["write"][..], &planted[..]].concat());
    let (_, recalled) = output(project, &[FORCE], &["recall", "auth", "PWNED"]);
    for painted in [written, recalled] {
        assert!(painted.contains("\u{1b}[0m"), "{painted}");
        // Once the colour is taken away, no control character is left: the planted ones are text.
        let plain = strip_colour(&painted);
        assert!(plain.contains("\\x1b[2J"), "{plain}");
        assert!(
            !plain.chars().any(|c| c.is_control() && c != '\n'),
            "{plain:?}"
        );
    }
}
