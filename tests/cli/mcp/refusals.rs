//! Refusals: a bad value is a tool error carrying the command's message, a store the command
//! refuses too, and nothing changes. Over MCP only: a journal event needs a task; a record too
//! large for any journal says so; the portfolio is the project's linked brain, no other folder.

use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

use crate::mcp::{call, cli_error, cli_value, connect, example, ok, output_schemas, refused};
use crate::support::{JOURNAL, TestProject, assert_same, home};

#[tokio::test]
async fn a_bad_argument_is_a_tool_error_with_the_commands_message() {
    let project = example();
    let client = connect(&project, ProtocolVersion::V_2025_06_18).await;
    let before = project.snapshot();
    let cases: [(&str, Value, &[&str]); 6] = [
        (
            "memory_recall",
            json!({"query": "auth", "limit": 0}),
            &["recall", "auth", "--limit", "0"],
        ),
        (
            "memory_recall",
            json!({"query": "auth", "ranking": "fuzzy"}),
            &["recall", "auth", "--ranking", "fuzzy"],
        ),
        (
            "memory_write",
            json!({"task": "no agent"}),
            &["write", "--task", "no agent"],
        ),
        (
            "memory_write",
            json!({"agent": "forge", "task": "t", "eval": 1.5}),
            &["write", "--agent", "forge", "--task", "t", "--eval", "1.5"],
        ),
        (
            "memory_propose",
            json!({"title": "t", "body": "b"}),
            &["propose", "--title", "t", "--body", "b"],
        ),
        (
            "memory_propose",
            json!({"type": "rule", "title": "t", "body": "b"}),
            &["propose", "--type", "rule", "--title", "t", "--body", "b"],
        ),
    ];
    let mut messages = Vec::new();
    for (tool, args, _) in &cases {
        messages.push(refused(&call(&client, tool, args.clone()).await).to_owned());
    }
    // What has no command-line form is refused by the server itself, still as a tool error.
    let unknown = call(&client, "memory_recall", json!({"query": "a", "lmit": 2})).await;
    assert_eq!(
        refused(&unknown),
        "unknown argument 'lmit' — expected query | limit | scope | portfolio | ranking | \
         context_scope | include_archive | status"
    );
    let nested = call(&client, "memory_write", json!({"agent": {"name": "x"}})).await;
    assert_eq!(
        refused(&nested),
        "argument 'agent' must be a string, a number or a boolean"
    );
    let switch = call(
        &client,
        "memory_recall",
        json!({"query": "a", "include_archive": "maybe"}),
    )
    .await;
    assert_eq!(
        refused(&switch),
        "argument 'include_archive' must be true or false"
    );
    assert_same(&before, &project.snapshot(), "refused calls");
    client.cancel().await.expect("close");
    let mut twin = example();
    for ((_, _, words), got) in cases.iter().zip(&messages) {
        let (next, want) = cli_error(twin, words);
        assert_eq!(got, &want, "{words:?}");
        twin = next;
    }
}

#[tokio::test]
async fn a_store_error_is_a_tool_error_and_changes_nothing() {
    let torn = "{\"ts\":\"2026-10-18T09:00:00.000Z\",\"agent\":\"a\"";
    let project = example().append(JOURNAL, torn);
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let before = project.snapshot();
    let result = call(
        &client,
        "memory_write",
        json!({"agent": "forge", "task": "t"}),
    )
    .await;
    let got = refused(&result).to_owned();
    assert_same(&before, &project.snapshot(), "a refused write");
    client.cancel().await.expect("close");
    let (_, want) = cli_error(
        example().append(JOURNAL, torn),
        &["write", "--agent", "forge", "--task", "t"],
    );
    assert_eq!(got, want);
    assert_eq!(
        got,
        "Memory store has an incomplete final line; inspect it before writing."
    );
}

/// The check every way in shares: an agent refused by `memory_propose` cannot store the same
/// text through `memory_write`, nor through a handoff's part.
#[tokio::test]
async fn a_secret_in_a_tool_argument_is_refused_and_changes_nothing() {
    let task = format!("deploy with ghp_{}", "q8Zr2Lk9Vx3Mw7PnB4cD6fG1hJ5kL0mN8pR2");
    let project = example();
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let before = project.snapshot();
    let write = call(
        &client,
        "memory_write",
        json!({"agent": "forge", "task": task}),
    )
    .await;
    let propose = call(
        &client,
        "memory_propose",
        json!({"type": "lesson", "title": "Staging", "body": "DB_PASS=hunter2-Winter-2026"}),
    )
    .await;
    let handoff = call(
        &client,
        "memory_handoff",
        json!({"topic": "Deploy", "what_changed": "Shipped.", "next_steps": [task.clone()]}),
    )
    .await;
    let (write, propose, handoff) = (
        refused(&write).to_owned(),
        refused(&propose).to_owned(),
        refused(&handoff).to_owned(),
    );
    assert_same(&before, &project.snapshot(), "refused secrets");
    client.cancel().await.expect("close");
    assert_eq!(
        write,
        "--task: line 1 looks like a GitHub personal access token (rule github-pat); secrets never enter the memory"
    );
    assert_eq!(
        propose,
        "the content: line 1 looks like a password assigned a value (rule password-assignment); secrets never enter the memory"
    );
    assert_eq!(
        handoff,
        "Next steps: line 1 looks like a GitHub personal access token (rule github-pat); secrets never enter the memory"
    );
    let (_, want) = cli_error(example(), &["write", "--agent", "forge", "--task", &task]);
    assert_eq!(write, want);
}

/// `{agent}` alone would journal an event that says nothing: over MCP a task is required (the
/// command line keeps bmad-plus's rule and writes it).
#[tokio::test]
async fn a_journal_event_needs_a_task_over_mcp() {
    let project = example();
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let before = project.snapshot();
    for args in [
        json!({"agent": "forge"}),
        json!({"agent": "forge", "task": " \n "}),
        json!({"agent": "forge", "task": null, "outcome": "success"}),
    ] {
        let result = call(&client, "memory_write", args).await;
        assert_eq!(
            refused(&result),
            "task is required: say in a few words what the agent did"
        );
    }
    assert_same(&before, &project.snapshot(), "writes without a task");
    client.cancel().await.expect("close");
    let (_, written) = cli_value(example(), &["write", "--agent", "forge"]);
    assert_eq!(written["written"]["task"], "");
}

/// A 3 MB task on a 10 KB journal: no journal can take it, and the agent is told so, not that
/// the store is full. A journal really near its cap keeps bmad-plus's message, as the command
/// line does.
#[tokio::test]
async fn a_record_too_large_for_any_journal_is_told_apart_from_a_full_one() {
    let project = example();
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let before = project.snapshot();
    let huge = "x".repeat(3_000_000);
    let result = call(
        &client,
        "memory_write",
        json!({"agent": "forge", "task": huge}),
    )
    .await;
    let message = refused(&result).to_owned();
    assert_same(&before, &project.snapshot(), "a refused write");
    client.cancel().await.expect("close");
    assert!(
        message.starts_with("this record is 3000")
            && message.ends_with(
                " bytes, more than .bmad/memory/journal.ndjson can hold even when empty (2097152 \
             bytes): shorten it (archiving would not make room)"
            ),
        "{message}"
    );
    assert!(project.read(JOURNAL).len() < 20_000);

    let cap = 2 * 1024 * 1024;
    let near_full = format!("{{\"pad\":\"{}\"}}\n", "p".repeat(cap - 200));
    let full = || example().write(JOURNAL, &near_full);
    let project = full();
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let result = call(
        &client,
        "memory_write",
        json!({"agent": "forge", "task": "a task long enough to go past the cap".repeat(8)}),
    )
    .await;
    let got = refused(&result).to_owned();
    client.cancel().await.expect("close");
    let task = "a task long enough to go past the cap".repeat(8);
    let (_, want) = cli_error(full(), &["write", "--agent", "forge", "--task", &task]);
    assert_eq!(got, want);
    assert_eq!(
        got,
        "Memory store is full; archive it explicitly before adding records."
    );
}

/// A project with the example memory, a `_brain/` holding the portfolio fixture's notes linked
/// as its brain, and another folder with notes beside it.
fn linked() -> TestProject {
    let project = home::project()
        .fixture("example")
        .fixture_beside("portfolio", "other");
    let brain = project.path("_brain");
    let link = home::link_text(brain.to_str().unwrap(), "portfolio");
    let notes = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/portfolio/memory/decisions.md"),
    )
    .unwrap();
    project
        .write("_brain/memory/decisions.md", notes)
        .write("_brain/README.md", "# Brain\n")
        .write(".agents/memory/.brain-link", link)
}

/// `scope: portfolio` searches the linked brain; a `portfolio` folder given must be it: an
/// agent reads `<any folder>/memory/*.md` through the server no more.
#[tokio::test]
async fn the_portfolio_is_the_linked_brain_and_no_other_folder() {
    let project = linked();
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let schemas = output_schemas(&client).await;
    let before = project.snapshot();
    let query = json!("login rate limit");
    let brain = project.path("_brain");
    let mut found = Vec::new();
    for args in [
        json!({"query": query, "scope": "portfolio"}),
        json!({"query": query, "scope": "portfolio", "portfolio": "_brain"}),
        json!({"query": query, "scope": "portfolio", "portfolio": brain.to_str().unwrap()}),
    ] {
        let answer = ok(&call(&client, "memory_recall", args).await);
        schemas.check("memory_recall", &answer.structured);
        found.push(answer.structured);
    }
    let other = project.base().join("other");
    let refusals = [
        json!({"query": query, "scope": "portfolio", "portfolio": "../other"}),
        json!({"query": query, "scope": "portfolio", "portfolio": other.to_str().unwrap()}),
        json!({"query": query, "scope": "portfolio", "portfolio": "/"}),
    ];
    let mut messages = Vec::new();
    for args in refusals {
        messages.push(refused(&call(&client, "memory_recall", args).await).to_owned());
    }
    // A note recall found in the brain is read whole; the other folder's, not at all.
    let brain_note = ok(&call(
        &client,
        "memory_read",
        json!({"file": "_brain/memory/decisions.md", "heading": "Rate limit defaults"}),
    )
    .await);
    schemas.check("memory_read", &brain_note.structured);
    let elsewhere = call(
        &client,
        "memory_read",
        json!({"file": "../other/memory/decisions.md", "heading": "Rate limit defaults"}),
    )
    .await;
    assert!(refused(&elsewhere).starts_with("'../other/memory/decisions.md' is not a note file"));
    assert_same(&before, &project.snapshot(), "portfolio recalls");
    client.cancel().await.expect("close");

    assert!(found.iter().all(|f| *f == found[0]));
    assert!(
        brain_note.structured["text"]
            .as_str()
            .unwrap()
            .starts_with("Rate limit defaults\n")
    );
    let sources: Vec<&str> = found[0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["sourceFile"].as_str())
        .collect();
    assert!(
        sources.contains(&"_brain/memory/decisions.md"),
        "{sources:?}"
    );
    let (_, cli) = cli_value(
        linked(),
        &[
            "recall",
            "login",
            "rate",
            "limit",
            "--scope",
            "portfolio",
            "--portfolio",
            "_brain",
        ],
    );
    assert_eq!(found[0], cli);
    for (message, given) in messages
        .iter()
        .zip(["../other", other.to_str().unwrap(), "/"])
    {
        assert_eq!(
            *message,
            format!(
                "portfolio '{given}' is not the project's linked brain ({}); no other folder is read",
                brain.display()
            )
        );
    }
}

#[tokio::test]
async fn the_portfolio_needs_a_linked_brain() {
    let project = example().fixture_beside("portfolio", "other");
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    for args in [
        json!({"query": "rate", "scope": "portfolio"}),
        json!({"query": "rate", "scope": "portfolio", "portfolio": "../other"}),
    ] {
        assert_eq!(
            refused(&call(&client, "memory_recall", args).await),
            "scope portfolio searches the project's linked brain, and none is linked (a person \
             links one with `bmad-mem init`)"
        );
    }
    // Without scope portfolio, the command's own rule.
    let result = call(
        &client,
        "memory_recall",
        json!({"query": "rate", "portfolio": "../other"}),
    )
    .await;
    let got = refused(&result).to_owned();
    client.cancel().await.expect("close");
    let (_, want) = cli_error(example(), &["recall", "rate", "--portfolio", "../other"]);
    assert_eq!(got, want);
}
