//! bmad-mem: a project memory for coding agents, kept in plain files inside the repository.
//!
//! A drop-in for the `bmad-plus mem` command of BMAD+: same files, same formats, same
//! identifiers, same messages (see `docs/`). The binary is a thin shell over this library:
//! `main` parses the command line into [`cli::Cli`], builds a [`context::Context`] once, and
//! calls [`run`], which dispatches to one module per action. Actions never read argv, the
//! environment or the clock, and never print: they return a [`output::Report`].

pub mod actions;
pub(crate) mod admin;
pub mod cli;
pub mod context;
pub mod embed;
pub mod error;
pub mod js;
pub mod mcp;
pub(crate) mod messages;
pub mod nexus;
pub mod output;
pub(crate) mod session;
pub mod store;

use actions::{decisions, observe, outcomes, recall, reinforce, write};
use admin::{archive, doctor, git, index, lint, lock, merge, model, view};
use cli::Command;
use context::Context;
use error::Result;
use output::Report;
use session::{brief, export, guard, handoff, hooks, init, scan, status};

/// Runs one action.
///
/// # Errors
/// Whatever the action refuses; every error exits 1.
pub fn run(command: &Command, ctx: &Context) -> Result<Box<dyn Report>> {
    Ok(match command {
        Command::Recall(args) => Box::new(recall::run(args, ctx)?),
        Command::Write(args) => Box::new(write::run(args, ctx)?),
        Command::Reinforce(args) => Box::new(reinforce::run(args, ctx)?),
        Command::Observe(args) => Box::new(observe::run(args, ctx)?),
        Command::Outcomes(args) => Box::new(outcomes::run(args, ctx)?),
        Command::Lock(args) => Box::new(lock::run(args, ctx)?),
        Command::Doctor(args) => Box::new(doctor::run(args, ctx)?),
        Command::Archive(args) => Box::new(archive::run(args, ctx)?),
        Command::Git(args) => git::run(args, ctx)?,
        Command::Init(args) => Box::new(init::run(args, ctx)?),
        Command::Status(args) => Box::new(status::run(args, ctx)?),
        Command::Brief(args) => Box::new(brief::run(args, ctx)?),
        Command::Handoff(args) => Box::new(handoff::run(args, ctx)?),
        Command::Export(args) => Box::new(export::run(args, ctx)?),
        Command::Scan(args) => Box::new(scan::run(args, ctx)?),
        Command::Propose(args) => Box::new(actions::entries::propose::run(args, ctx)?),
        Command::Admit(args) => Box::new(actions::entries::admit::run(args, ctx)?),
        Command::Import(args) => Box::new(actions::entries::import::run(args, ctx)?),
        Command::Decision(args) => {
            let report = decisions::run(args, ctx)?;
            if report.flipped() {
                refresh_entry_views(ctx);
            }
            Box::new(report)
        }
        Command::Lint(args) => Box::new(lint::run(args, ctx)?),
        Command::View(args) => Box::new(view::run(args, ctx)?),
        Command::Mcp(_) => {
            return Err(error::Error::refused(
                "mcp is a server: it runs from the command line, not as an action",
            ));
        }
        Command::Guard(args) => Box::new(guard::run(args, ctx)?),
        Command::Hooks(args) => Box::new(hooks::run(args, ctx)?),
        Command::MergeDriver(args) => Box::new(merge::run(args, ctx)?),
        Command::Model(args) => Box::new(model::run(args, ctx)?),
        Command::Index(args) => Box::new(index::run(args, ctx)?),
        Command::Completions(_) | Command::Man(_) => {
            return Err(error::Error::refused(messages::PRINTED_FROM_THE_DEFINITION));
        }
    })
}

/// After a decision's status changed, brings the entry views (the index shows every status) up
/// to date when the entry commands are in use here. Best effort: the change itself is done, and
/// a view left behind is what `doctor` reports as drift and `doctor --rebuild-views` repairs.
fn refresh_entry_views(ctx: &Context) {
    use actions::entries::views;
    if views::in_use(ctx)
        && let Ok(lock) = store::lock::WriterLock::acquire(&ctx.root)
    {
        let _ = views::rebuild(ctx, &lock);
    }
}
