//! The command line (SPEC §4), as clap derive definitions only: global flags, the action enum,
//! and the parser settings that make bmad-plus's argument conventions hold — options anywhere
//! after the action, `--opt=value`, a value that starts with `-` taken as a value, the last of a
//! repeated option winning, `--` ending options, negative numbers as query words.

use clap::{Parser, Subcommand};

use crate::archive::ArchiveArgs;
use crate::brief::BriefArgs;
use crate::doctor::DoctorArgs;
use crate::export::ExportArgs;
use crate::handoff::HandoffArgs;
use crate::init::InitArgs;
use crate::lock::LockArgs;
use crate::observe::ObserveArgs;
use crate::outcomes::OutcomesArgs;
use crate::recall::RecallArgs;
use crate::reinforce::ReinforceArgs;
use crate::scan::ScanArgs;
use crate::status::StatusArgs;
use crate::write::WriteArgs;

/// Project memory for coding agents: decisions, lessons, patterns and an event journal kept
/// in plain files inside the repository; a drop-in for `bmad-plus mem`.
#[derive(Debug, Parser)]
#[command(
    name = "bmad-mem",
    version,
    help_expected = true,
    args_override_self = true,
    disable_help_subcommand = true,
    subcommand_required = true,
    subcommand_help_heading = "Actions",
    subcommand_value_name = "ACTION",
    after_help = "Exit status: 0 on success (a recall with no match included), 1 on any failure.\n\
                  With --json, results are pretty JSON on stdout and failures are {\"error\":\"…\"} on stdout."
)]
pub struct Cli {
    /// Project root (default: the current directory); must be an existing folder.
    #[arg(
        short = 'd',
        long,
        global = true,
        value_name = "path",
        allow_hyphen_values = true
    )]
    pub directory: Option<String>,
    /// Print the result, or the error, as JSON on stdout.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Command,
}

/// The actions.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Find journal events and note sections relevant to a query.
    Recall(RecallArgs),
    /// Append an event (what an agent did) to the journal.
    Write(WriteArgs),
    /// Fold reward signals into a pattern's score; propose (never apply) its promotion.
    Reinforce(ReinforceArgs),
    /// Bind a memory section to accepted, independently verified Nexus work (writes a receipt).
    Observe(ObserveArgs),
    /// List every receipt and whether it still counts today.
    Outcomes(OutcomesArgs),
    /// Show the writer lock's owner; with --recover, remove a dead owner's lock.
    Lock(LockArgs),
    /// Check every registry and note file (read-only); exit 1 when something is wrong.
    Doctor(DoctorArgs),
    /// Move older journal or promotion records into .bmad/memory/archive/ (keeps the newest 1000).
    Archive(ArchiveArgs),
    /// Create what is missing of .agents/memory/ and link a brain (never overwrites).
    Init(InitArgs),
    /// Show the health of the project memory and its brain (read-only).
    Status(StatusArgs),
    /// Print the session-start read of the memory, in the protocol's order.
    Brief(BriefArgs),
    /// Write a session handoff into .agents/memory/sessions/ (never overwrites).
    Handoff(HandoffArgs),
    /// Export the linked brain as one Markdown file (never overwrites without --force).
    Export(ExportArgs),
    /// List the projects below a folder by their markers; --index adds them to the global brain.
    Scan(ScanArgs),
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
            Command::Init(_) => "init",
            Command::Status(_) => "status",
            Command::Brief(_) => "brief",
            Command::Handoff(_) => "handoff",
            Command::Export(_) => "export",
            Command::Scan(_) => "scan",
        }
    }
}

/// Options, of every action, that take a value: the word after one of them is its value.
const VALUE_OPTIONS: [&str; 27] = [
    "-d",
    "--directory",
    "--scope",
    "--portfolio",
    "--limit",
    "--ranking",
    "--context-scope",
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
    "--project-name",
    "--max-chars",
    "--topic",
    "--from",
    "--out",
    "--before",
    "--keep",
];

/// Marks a word that must reach the action as a plain word.
const SHIELD: char = '\u{1}';

/// clap reads `-.5` as the short option `-.`; SPEC §4 wants every word that looks like a
/// negative number to be a query word. Such words (outside option values, before `--`) are
/// shielded by a leading U+0001 that [`unshield`] removes after parsing. A word that already
/// starts with U+0001 is shielded too, so the mapping is exact.
#[must_use]
pub fn shield_negative_numbers(args: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut options_ended = false;
    let mut previous_takes_value = false;
    for arg in args {
        let shield = arg.starts_with(SHIELD)
            || (!options_ended && !previous_takes_value && looks_like_negative_number(&arg));
        previous_takes_value = !options_ended && VALUE_OPTIONS.contains(&arg.as_str());
        options_ended |= arg == "--";
        out.push(if shield {
            format!("{SHIELD}{arg}")
        } else {
            arg
        });
    }
    out
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
        if let Command::Recall(args) = &mut self.command {
            for word in &mut args.query {
                *word = unshield(word);
            }
        }
    }
}

/// The action names, in the order the help lists them.
pub const ACTIONS: [&str; 14] = [
    "recall",
    "write",
    "reinforce",
    "observe",
    "outcomes",
    "lock",
    "doctor",
    "archive",
    "init",
    "status",
    "brief",
    "handoff",
    "export",
    "scan",
];

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(words: &[&str]) -> Result<Cli, clap::Error> {
        let args = std::iter::once("bmad-mem")
            .chain(words.iter().copied())
            .map(str::to_owned)
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
        assert_eq!(cli.directory.as_deref(), Some("x"));
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
    fn clap_definitions_are_consistent() {
        Cli::command().debug_assert();
    }
}
