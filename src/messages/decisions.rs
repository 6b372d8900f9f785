//! The messages of `decision` (adopt, accept, reject, supersede, abrogate), of its ledger and
//! of `lint`'s ledger checks: a part of the catalogue of [`messages`](crate::messages), kept in a
//! file of its own.

/// `--reason` missing where it is required (`decision abrogate`).
pub(crate) const DECISION_REASON_REQUIRED: &str = "--reason <text> is required";
/// `decision adopt` with both headings and `--all`, or neither.
pub(crate) const ADOPT_WHAT: &str = "name the decisions to adopt by their headings, or give --all";

/// A ledger that is not the length expected when an append is taken back.
pub(crate) fn ledger_changed(ledger: &str) -> String {
    format!(
        "{ledger} changed unexpectedly; its last records may announce a change that was not made"
    )
}

/// `"A"`, `"A" or "B"`, `"A", "B" or "C"`.
fn quoted_or(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("\"{i}\"")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// A name that finds no decision in the decision files; `near` are the headings close to it.
pub(crate) fn no_decision(heading: &str, files: &[&str], near: &[&str]) -> String {
    let near = if near.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", quoted_or(near))
    };
    format!(
        "no decision is headed \"{heading}\" in {}{near}",
        files.join(" or ")
    )
}

/// A heading that heads several decisions (`places`: `file:line` of each).
pub(crate) fn several_decisions(heading: &str, places: &[String]) -> String {
    format!(
        "\"{heading}\" heads {} decisions ({}); rename one so that the heading names exactly one",
        places.len(),
        places.join(", ")
    )
}

/// A loose name that fits several headings (`places`: `file:line` of each).
pub(crate) fn ambiguous_decision(name: &str, headings: &[&str], places: &[String]) -> String {
    let candidates: Vec<String> = headings
        .iter()
        .zip(places)
        .map(|(heading, place)| format!("\"{heading}\" ({place})"))
        .collect();
    format!(
        "\"{name}\" could name {} decisions: {}; give the whole heading",
        candidates.len(),
        candidates.join(", ")
    )
}

/// A blank or overlong `--actor`.
pub(crate) fn bad_actor(max: usize) -> String {
    format!("--actor must be a non-empty name of at most {max} characters")
}

/// A heading given on the command line that is blank or too long (`what` names the argument).
pub(crate) fn bad_heading(what: &str, max: usize) -> String {
    format!("{what} must be a non-empty heading of at most {max} characters")
}

/// A `--reason` that is blank or too long.
pub(crate) fn bad_reason(max: usize) -> String {
    format!("--reason must be non-empty text of at most {max} characters")
}

/// A decision whose status value is none of the known ones (`place`: `file:line`).
pub(crate) fn unreadable_status(heading: &str, value: &str, place: &str) -> String {
    format!(
        "the status of \"{heading}\" ({place}) reads \"{value}\", not one of active, superseded, abrogated, rolled-back, proposed, rejected, deprecated; correct it first"
    )
}

/// Why `adopt --all` leaves a decision whose status cannot be read.
pub(crate) const ADOPT_UNREADABLE: &str = "its status value is not one of active, superseded, abrogated, rolled-back, proposed, rejected, deprecated";

/// A decision file edited while the command ran (`doing`: adopted, superseded, abrogated).
pub(crate) fn decisions_changed(rel: &str, doing: &str) -> String {
    format!(
        "{rel} changed while decisions were being {doing}; nothing written. Run the command again."
    )
}

/// `decision supersede X --by X`.
pub(crate) fn supersede_itself(heading: &str) -> String {
    format!("\"{heading}\" cannot supersede itself: the successor must be another decision")
}

/// A decision without a status line to flip.
pub(crate) fn no_status_line(heading: &str) -> String {
    format!(
        "\"{heading}\" has no status line to flip; add \"**Status:** active\" to it and adopt it first"
    )
}

/// A decision the ledger does not know yet.
pub(crate) fn not_ledgered(heading: &str) -> String {
    format!(
        "\"{heading}\" is not ledgered; `bmad-mem decision adopt \"{heading}\"` records it first"
    )
}

/// `superseded by "X"`, or the bare status when no successor is named.
fn ended_as(status: &str, by: Option<&str>) -> String {
    match by {
        Some(by) => format!("{status} by \"{by}\""),
        None => status.to_owned(),
    }
}

/// The command that makes (or completes) the change a ledger record of `event` stands for.
pub(crate) fn rerun(event: &str, heading: &str, by: Option<&str>) -> String {
    match (event, by) {
        ("supersede", Some(by)) => {
            format!("`bmad-mem decision supersede \"{heading}\" --successor \"{by}\"`")
        }
        ("accept" | "reject", _) => format!("`bmad-mem decision {event} \"{heading}\"`"),
        ("abrogate", _) => format!("`bmad-mem decision abrogate \"{heading}\" --reason <text>`"),
        _ => "`bmad-mem lint`".to_owned(),
    }
}

/// A ledger that has moved a decision to `status` (and `by`) while its file does not say so,
/// when the command asks for another change than the recorded one; `fix` is [`rerun`]'s
/// command.
pub(crate) fn ledger_ahead(
    heading: &str,
    status: &str,
    by: Option<&str>,
    file: &str,
    fix: &str,
) -> String {
    format!(
        "the ledger says \"{heading}\" is {} already, while {file} does not; {fix} completes that change",
        ended_as(status, by)
    )
}

/// A ledger and a file that disagree on a decision's status, not by an interrupted change.
pub(crate) fn ledger_disagrees(heading: &str, status: &str, file: &str, in_file: &str) -> String {
    format!(
        "the ledger says \"{heading}\" is {status} while {file} says {in_file}; `bmad-mem lint` names the disagreement and its fix"
    )
}

/// A decision whose text changed since the ledger record of `ts` (`place`: `file:line`).
pub(crate) fn decision_edited_since(heading: &str, place: &str, ts: &str) -> String {
    format!(
        "\"{heading}\" ({place}) was edited since it was ledgered on {ts}; put back the ledgered text first (`bmad-mem lint` shows the finding)"
    )
}

/// A decision whose ledger records do not form one chain.
pub(crate) fn ledger_broken(heading: &str, place: &str, line: usize, problem: &str) -> String {
    format!(
        "the ledger's records of \"{heading}\" ({place}) disagree at line {line}: {problem}; resolve that first (docs/DECISIONS.md)"
    )
}

/// `lint`'s proposal for a ledger whose records of a decision do not form one chain.
pub(crate) const LEDGER_CHAIN_FIX: &str = "see who added each record (`git log -p -- .bmad/memory/decisions.ndjson`); docs/DECISIONS.md says how to keep one of two clones' changes";

/// A decision that is not proposed in its file (`status`, and its successor when it names one).
pub(crate) fn not_proposed(heading: &str, status: &str, by: Option<&str>) -> String {
    format!(
        "\"{heading}\" is not proposed ({}); only a proposed or draft decision can be accepted or rejected",
        ended_as(status, by)
    )
}

/// A successor whose file does not say it is active.
pub(crate) fn successor_not_active(successor: &str, status: &str) -> String {
    format!(
        "the successor \"{successor}\" is not active ({status}); a decision can only be superseded by one in force"
    )
}

/// A successor the ledger has ended.
pub(crate) fn successor_ended(successor: &str, status: &str, by: Option<&str>) -> String {
    format!(
        "the successor \"{successor}\" is {} in the ledger; a decision can only be superseded by one in force",
        ended_as(status, by)
    )
}

/// A new status value that would not read back as written.
pub(crate) fn status_not_read_back(value: &str) -> String {
    format!(
        "\"{value}\" would not read back as the status written on that line; rename the successor"
    )
}

/// A decision that is not active in its file (`status`, and its successor when it names one).
pub(crate) fn not_active(heading: &str, status: &str, by: Option<&str>) -> String {
    format!(
        "\"{heading}\" is not active ({}); only an active decision can be superseded or abrogated",
        ended_as(status, by)
    )
}

/// A supersede that would close a chain of successors back on `heading` (`chain`: each
/// decision as `"heading" (file:line)`).
pub(crate) fn succession_cycle(heading: &str, successor: &str, chain: &[String]) -> String {
    let shown = if chain.len() > 10 {
        format!(
            "{} → … ({} decisions in all) → {}",
            chain[..8].join(" → "),
            chain.len(),
            chain[chain.len() - 1]
        )
    } else {
        chain.join(" → ")
    };
    format!("superseding \"{heading}\" by \"{successor}\" would make a cycle: {shown}")
}
