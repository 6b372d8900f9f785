//! The `bmad-mem` binary: parse, build the context, run, render, exit (docs §4).
//!
//! `main` returns an `ExitCode` rather than calling `process::exit`, so destructors run: the
//! writer lock is released on every path.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, Parser};

use bmad_mem::cli::{
    ACTIONS, Cli, Command, SHORT_USAGE, completions, invalid_utf8, man_page,
    shield_negative_numbers,
};
use bmad_mem::context::Context;
use bmad_mem::output::{
    colour_wanted, human_error, is_gone, json_error, paint, paint_error, print_stderr,
    print_stdout, render, unprinted, version,
};

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    // Text that is not UTF-8 is refused, never stored altered; the project root is an OS path
    // and may be anything the system accepts.
    if let Some(message) = invalid_utf8(&args) {
        let (json, action) = invocation(&lossy(&args));
        return fail(json, action, &message);
    }
    let mut cli = match Cli::try_parse_from(shield_negative_numbers(args.clone())) {
        Ok(cli) => cli,
        Err(e) => return parse_failure(&lossy(&args), &e),
    };
    cli.unshield();
    let action = cli.command.name();
    // The MCP server reads nothing before its client speaks: it builds a context per call.
    if let Command::Mcp(args) = &cli.command {
        return match bmad_mem::mcp::run(args, cli.directory.as_deref()) {
            Ok(()) => ExitCode::SUCCESS,
            // stdout is the protocol's once the server runs; a build without it answers as
            // any command does.
            Err(e) => fail(
                cli.json && !cfg!(feature = "mcp"),
                Some(action),
                &e.to_string(),
            ),
        };
    }
    // Completions and manual pages come from the command-line definition alone.
    match &cli.command {
        Command::Completions(args) => {
            let script = completions(args.shell);
            return printed(cli.json, action, &String::from_utf8_lossy(&script));
        }
        Command::Man(args) => {
            let mut page = Vec::new();
            return match man_page(&args.action, &mut page) {
                Ok(()) => printed(cli.json, action, &String::from_utf8_lossy(&page)),
                Err(message) => fail(cli.json, Some(action), &message),
            };
        }
        _ => {}
    }
    let result = Context::from_env(cli.directory.as_deref()).and_then(|mut ctx| {
        ctx.progress &= !cli.json;
        bmad_mem::run(&cli.command, &ctx)
    });
    match result {
        Ok(report) => {
            let (mut out, warnings) = render(report.as_ref(), cli.json);
            if !cli.json && colour(std::io::stdout().is_terminal()) {
                out = paint(action, &out);
            }
            print_stderr(&warnings);
            let written = match print_stdout(&out) {
                Ok(()) => return ExitCode::from(report.exit_code()),
                Err(e) => (report.written(), e),
            };
            match written {
                // Nobody is left to read a result that only reported: stop quietly, as a pipe
                // into `head` expects.
                (None, e) if is_gone(&e) => ExitCode::from(report.exit_code()),
                // The action took effect; say what it wrote, since its result is lost. Still a
                // failure: the caller did not get the result it asked for.
                (written, e) => fail(cli.json, Some(action), &unprinted(written.as_deref(), &e)),
            }
        }
        Err(e) => fail(cli.json, Some(action), &e.to_string()),
    }
}

/// Prints text that is the whole result; a failure to print is a failure, unless only the
/// reader went away.
fn printed(json: bool, action: &str, text: &str) -> ExitCode {
    match print_stdout(text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_gone(&e) => ExitCode::SUCCESS,
        Err(e) => fail(json, Some(action), &unprinted(None, &e)),
    }
}

/// Whether human text for a stream that is (or is not) a terminal gets colour, as `NO_COLOR` and
/// `CLICOLOR_FORCE` say.
fn colour(terminal: bool) -> bool {
    colour_wanted(
        terminal,
        std::env::var_os("NO_COLOR").as_deref(),
        std::env::var_os("CLICOLOR_FORCE").as_deref(),
    )
}

/// The words as text, for finding `--json` and the action in a failed command line.
fn lossy(args: &[OsString]) -> Vec<String> {
    args.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// Whether `--json` is among the options, and the action named, if any.
fn invocation(args: &[String]) -> (bool, Option<&'static str>) {
    let options: Vec<&str> = args
        .iter()
        .skip(1)
        .map(String::as_str)
        .take_while(|a| *a != "--")
        .collect();
    let json = options.contains(&"--json");
    let action = options
        .iter()
        .find_map(|a| ACTIONS.iter().copied().find(|action| action == a));
    (json, action)
}

/// Prints a failure — `{"error":…}` on stdout under `--json`, `mem <action>: …` on stderr
/// otherwise — and returns exit status 1. When stdout cannot take the JSON error either, the
/// message goes to stderr: it is the only channel left.
fn fail(json: bool, action: Option<&str>, message: &str) -> ExitCode {
    if json {
        if print_stdout(&json_error(message)).is_err() {
            print_stderr(&human_error(action, message));
        }
    } else {
        let line = human_error(action, message);
        if colour(std::io::stderr().is_terminal()) {
            print_stderr(&paint_error(&line));
        } else {
            print_stderr(&line);
        }
    }
    ExitCode::from(1)
}

/// Help and version go to stdout with status 0; every other parser error is a docs §4 failure,
/// in JSON when `--json` was among the options.
fn parse_failure(args: &[String], error: &clap::Error) -> ExitCode {
    let (json, action) = invocation(args);
    match error.kind() {
        ErrorKind::DisplayHelp => {
            let help = error.render();
            let help = if colour(std::io::stdout().is_terminal()) {
                help.ansi().to_string()
            } else {
                help.to_string()
            };
            let _ = print_stdout(&help);
            return ExitCode::SUCCESS;
        }
        ErrorKind::DisplayVersion => {
            let _ = print_stdout(&version(json));
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    let expected = expected_commands(error);
    let message = match error.kind() {
        ErrorKind::InvalidSubcommand => {
            let word = error
                .get(ContextKind::InvalidSubcommand)
                .map(ToString::to_string)
                .unwrap_or_default();
            format!(
                "unknown action '{}' — expected {expected}",
                word.replace('\u{1}', "")
            )
        }
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            format!("missing action — expected {expected}")
        }
        _ => first_line(error),
    };
    let message = match suggestion(error) {
        Some(near) => format!(
            "{message}; did you mean '{near}'? (try '{} --help')",
            command_path(error)
        ),
        None => message,
    };
    let code = fail(json, action, &message);
    // `bmad-mem` alone: after the error line, how to start (a person typed it; under --json
    // the one line of JSON stays all there is).
    if action.is_none()
        && !json
        && matches!(
            error.kind(),
            ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        )
    {
        print_stderr(&format!("{SHORT_USAGE}\n"));
    }
    code
}

/// clap's nearest spelling of a mistyped action or option, if one is close enough. An option of
/// another action is not mistyped: it is in the wrong place, and gets no suggestion.
fn suggestion(error: &clap::Error) -> Option<String> {
    let kind = match error.kind() {
        ErrorKind::InvalidSubcommand => ContextKind::SuggestedSubcommand,
        ErrorKind::UnknownArgument => {
            if let Some(ContextValue::String(word)) = error.get(ContextKind::InvalidArg) {
                let option = word.split('=').next().unwrap_or_default();
                if defined_anywhere(&Cli::command(), option) {
                    return None;
                }
            }
            ContextKind::SuggestedArg
        }
        _ => return None,
    };
    match error.get(kind)? {
        ContextValue::String(near) => Some(near.clone()),
        // clap lists the candidates from the least to the most likely.
        ContextValue::Strings(near) => near.last().cloned(),
        _ => None,
    }
}

/// Whether `option` (`--name` or `-x`) is an option of `command` or of one of its actions.
fn defined_anywhere(command: &clap::Command, option: &str) -> bool {
    command.get_arguments().any(|arg| {
        arg.get_long()
            .is_some_and(|l| option.strip_prefix("--") == Some(l))
            || arg
                .get_short()
                .is_some_and(|c| option.strip_prefix('-') == Some(c.encode_utf8(&mut [0; 4])))
    }) || command
        .get_subcommands()
        .any(|sub| defined_anywhere(sub, option))
}

/// The command the parser stopped in (`bmad-mem recall`, `bmad-mem decision`), from the usage
/// line of its error.
fn command_path(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let words: Vec<&str> = rendered
        .lines()
        .find_map(|line| line.trim_start().strip_prefix("Usage:"))
        .map(|usage| {
            usage
                .split_whitespace()
                .take_while(|w| !w.starts_with(['[', '<', '-']))
                .collect()
        })
        .unwrap_or_default();
    if words.is_empty() {
        "bmad-mem".to_owned()
    } else {
        words.join(" ")
    }
}

/// The commands the parser expected where it stopped: those of an action that has its own
/// (`decision adopt | supersede | abrogate`), else every action.
fn expected_commands(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let usage = rendered
        .lines()
        .find(|line| line.trim_start().starts_with("Usage:"))
        .map(|line| format!("{line} "))
        .unwrap_or_default();
    let cli = Cli::command();
    cli.get_subcommands()
        .find(|action| {
            action.has_subcommands() && usage.contains(&format!(" {} ", action.get_name()))
        })
        .map_or_else(
            || ACTIONS.join(" | "),
            |action| {
                let names: Vec<&str> = action
                    .get_subcommands()
                    .map(clap::Command::get_name)
                    .collect();
                names.join(" | ")
            },
        )
}

/// clap's message on one line, without its `error: ` prefix, usage or tips: its first
/// paragraph (`the following required arguments were not provided: --expect <sha256>`).
fn first_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let paragraph: Vec<&str> = rendered
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    let text = paragraph.join(" ");
    text.strip_prefix("error: ")
        .unwrap_or(&text)
        .replace('\u{1}', "")
}
