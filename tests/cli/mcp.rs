//! `bmad-mem mcp` driven by the MCP SDK's own client over a real child process.
//!
//! * The handshake of every revision the server speaks (2025-06-18 and 2025-11-25 through
//!   `initialize`, 2026-07-28 through `server/discover` and per-request metadata): the server's
//!   name and version are bmad-mem's, and it lists exactly the five tools.
//! * Each tool's result is byte for byte the command's `--json` output on the same project;
//!   each failure is a tool error carrying the command's `{"error":…}` message and changes no
//!   file — a bad value, a store the command refuses, a missing project folder (which the
//!   server only looks at when a tool is called).
//! * stdout carries JSON-RPC only; closing stdin ends the server with status 0, handshake or not.
//! * Two servers and a command-line writer on one project lose no event.
//! * A secret in a tool's argument is refused as the command refuses it (`memory_write` too).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ContentBlock,
    Implementation, ProtocolVersion,
};
use rmcp::service::{Peer, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
use serde_json::{Map, Value, json};

use crate::support::home;
use crate::support::{JOURNAL, LOCK, TestProject, assert_same};

type Client = RunningService<RoleClient, ClientConfig>;

/// A client that asks for `version` in its handshake.
fn client_config(version: ProtocolVersion) -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("bmad-mem-tests", "1.0.0"),
    )
    .with_protocol_version(version)
}

/// `bmad-mem <words…> mcp` as the project's runs are set up (clock, home, folder).
fn server_command(project: &TestProject, words: &[&str]) -> tokio::process::Command {
    let mut command = project.command();
    command.args(words).arg("mcp");
    tokio::process::Command::from(command)
}

/// A server started in `project` and a client that went through the `initialize` handshake.
async fn connect(project: &TestProject, version: ProtocolVersion) -> Client {
    connect_with(project, &[], version).await
}

async fn connect_with(project: &TestProject, words: &[&str], version: ProtocolVersion) -> Client {
    let transport = TokioChildProcess::new(server_command(project, words)).expect("spawn");
    client_config(version)
        .serve(transport)
        .await
        .expect("initialize")
}

fn arguments(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object: {other}"),
    }
}

async fn call(client: &Peer<RoleClient>, tool: &'static str, args: Value) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments(args)))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// The one text block of a result.
fn text(result: &CallToolResult) -> &str {
    match result.content.as_slice() {
        [ContentBlock::Text(block)] => &block.text,
        other => panic!("one text block expected: {other:?}"),
    }
}

/// A successful result's text.
fn ok(result: &CallToolResult) -> &str {
    assert_eq!(result.is_error, Some(false), "{result:?}");
    text(result)
}

/// A tool error's message.
fn refused(result: &CallToolResult) -> &str {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    text(result)
}

/// The command's `--json` stdout (exit 0 expected).
fn cli_json(project: TestProject, words: &[&str]) -> (TestProject, String) {
    let args: Vec<&str> = std::iter::once("--json")
        .chain(words.iter().copied())
        .collect();
    let ran = project.args(args).code(0).run();
    (ran.project, ran.stdout)
}

/// The command's `{"error":…}` message (exit 1 expected).
fn cli_error(project: TestProject, words: &[&str]) -> (TestProject, String) {
    let args: Vec<&str> = std::iter::once("--json")
        .chain(words.iter().copied())
        .collect();
    let ran = project.args(args).code(1).run();
    let error: Value = ran.json();
    let message = error["error"]
        .as_str()
        .expect("an error message")
        .to_owned();
    (ran.project, message)
}

/// A project with the example memory and a temporary home (so brief reads no real brain).
fn example() -> TestProject {
    home::project().fixture("example")
}

const TOOLS: [&str; 5] = [
    "memory_recall",
    "memory_brief",
    "memory_write",
    "memory_propose",
    "memory_outcomes",
];

#[tokio::test]
async fn every_handshake_revision_names_bmad_mem_and_lists_the_five_tools() {
    let project = example();
    for version in [ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25] {
        let client = connect(&project, version.clone()).await;
        let info = client.peer_info().expect("server info");
        assert_eq!(info.protocol_version, version);
        let server = info.server_info.as_ref().expect("server implementation");
        assert_eq!(server.name, "bmad-mem");
        assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
        let tools = client.list_all_tools().await.expect("tools/list");
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, TOOLS);
        client.cancel().await.expect("close");
    }
}

#[tokio::test]
async fn the_stateless_revision_discovers_and_calls_without_initialize() {
    let project = example();
    let transport = TokioChildProcess::new(server_command(&project, &[])).expect("spawn");
    let client = client_config(ProtocolVersion::V_2026_07_28)
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("discover");
    let info = client.peer_info().expect("server info");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), TOOLS.len());
    let result = call(&client, "memory_recall", json!({"query": "auth strategy"})).await;
    let got = ok(&result).to_owned();
    client.cancel().await.expect("close");
    let (_, want) = cli_json(project, &["recall", "auth", "strategy"]);
    assert_eq!(got, want);
}

#[tokio::test]
async fn each_reading_tool_answers_with_its_commands_json_bytes() {
    let project = example();
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let before = project.snapshot();
    let calls = [
        (
            "memory_recall",
            json!({"query": ["auth", "strategy"], "limit": 3, "ranking": "bm25"}),
            &[
                "recall",
                "auth",
                "strategy",
                "--limit",
                "3",
                "--ranking",
                "bm25",
            ][..],
        ),
        (
            "memory_recall",
            json!({"query": "auth strategy"}),
            &["recall", "auth", "strategy"][..],
        ),
        (
            "memory_brief",
            json!({"max_chars": 1200}),
            &["brief", "--max-chars", "1200"][..],
        ),
        ("memory_outcomes", json!({}), &["outcomes"][..]),
    ];
    let mut answers = Vec::new();
    for (tool, args, _) in &calls {
        answers.push(ok(&call(&client, tool, args.clone()).await).to_owned());
    }
    assert_same(&before, &project.snapshot(), "the reading tools");
    client.cancel().await.expect("close");
    let mut twin = example();
    for ((_, _, words), got) in calls.iter().zip(&answers) {
        let (next, want) = cli_json(twin, words);
        assert_eq!(got, &want, "{words:?}");
        twin = next;
    }
}

/// The brief on the 519 decision records: the answer stays under 10,000 characters whatever
/// budget is asked for, its `omitted` list naming what fits and `omittedUnlisted` counting the
/// rest; its text is the command's at the budget the answer reports.
#[tokio::test]
async fn the_brief_answer_stays_under_10000_characters() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/data/adr/corpus");
    let mut project = home::project();
    for rel in [
        ".agents/memory/decisions.md",
        ".agents/memory/lessons.md",
        ".agents/memory/patterns.md",
    ] {
        project = project.write(rel, std::fs::read(corpus.join(rel)).unwrap());
    }
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let mut answers = Vec::new();
    for args in [json!({}), json!({"max_chars": 50000})] {
        answers.push(ok(&call(&client, "memory_brief", args).await).to_owned());
    }
    client.cancel().await.expect("close");
    for answer in answers {
        assert!(answer.encode_utf16().count() < 10_000, "{}", answer.len());
        let brief: Value = serde_json::from_str(&answer).unwrap();
        crate::support::validate::validate("brief.json", &brief).unwrap();
        let max = brief["maxChars"].as_u64().unwrap();
        assert!((6000..10_000).contains(&max), "{max}");
        let named = brief["omitted"].as_array().unwrap().len();
        let unlisted = brief["omittedUnlisted"].as_u64().unwrap();
        assert!(named > 0 && unlisted > 400, "{named} {unlisted}");
        // The command at that budget: the same text, every left-out entry named, in order.
        let (next, cli) = cli_json(project, &["brief", "--max-chars", &max.to_string()]);
        project = next;
        let cli: Value = serde_json::from_str(&cli).unwrap();
        assert_eq!(brief["text"], cli["text"]);
        let all = cli["omitted"].as_array().unwrap();
        assert_eq!(all.len(), named + usize::try_from(unlisted).unwrap());
        assert_eq!(brief["omitted"].as_array().unwrap()[..], all[..named]);
    }
}

#[tokio::test]
async fn each_writing_tool_writes_and_answers_as_its_command() {
    let project = example();
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let write = call(
        &client,
        "memory_write",
        json!({"agent": "forge", "cli": "claude-code", "task": "fix the parser",
               "outcome": "success", "eval": 0.75, "accept": true, "ci": "pass"}),
    )
    .await;
    let propose = call(
        &client,
        "memory_propose",
        json!({"type": "lesson", "title": "Parsers need fuzzing",
               "body": "The parser broke on a truncated line.", "applies_when": "a parser changes",
               "source": "forge"}),
    )
    .await;
    let (write, propose) = (ok(&write).to_owned(), ok(&propose).to_owned());
    client.cancel().await.expect("close");
    let proposed: Value = serde_json::from_str(&propose).expect("propose's JSON");
    let candidate = proposed["file"].as_str().expect("the candidate's file");

    let (twin, want) = cli_json(
        example(),
        &[
            "write",
            "--agent",
            "forge",
            "--cli",
            "claude-code",
            "--task",
            "fix the parser",
            "--outcome",
            "success",
            "--eval",
            "0.75",
            "--accept",
            "true",
            "--ci",
            "pass",
        ],
    );
    assert_eq!(write, want);
    let (twin, want) = cli_json(
        twin,
        &[
            "propose",
            "--type",
            "lesson",
            "--title",
            "Parsers need fuzzing",
            "--body",
            "The parser broke on a truncated line.",
            "--applies-when",
            "a parser changes",
            "--source",
            "forge",
        ],
    );
    assert_eq!(propose, want);
    assert_eq!(project.read(JOURNAL), twin.read(JOURNAL));
    assert_eq!(project.read(candidate), twin.read(candidate));
}

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
            json!({"agent": "forge", "eval": 1.5}),
            &["write", "--agent", "forge", "--eval", "1.5"],
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
         context_scope | include_archive"
    );
    let nested = call(&client, "memory_write", json!({"agent": {"name": "x"}})).await;
    assert_eq!(
        refused(&nested),
        "argument 'agent' must be a string, a number or a boolean"
    );
    // An unknown tool is a protocol error: there is no tool to carry it.
    assert!(
        client
            .call_tool(CallToolRequestParams::new("memory_forget"))
            .await
            .is_err()
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
    let result = call(&client, "memory_write", json!({"agent": "forge"})).await;
    let got = refused(&result).to_owned();
    assert_same(&before, &project.snapshot(), "a refused write");
    client.cancel().await.expect("close");
    let (_, want) = cli_error(
        example().append(JOURNAL, torn),
        &["write", "--agent", "forge"],
    );
    assert_eq!(got, want);
    assert_eq!(
        got,
        "Memory store has an incomplete final line; inspect it before writing."
    );
}

/// The check every way in shares: an agent refused by `memory_propose` cannot store the same
/// text through `memory_write`.
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
    let (write, propose) = (refused(&write).to_owned(), refused(&propose).to_owned());
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
    let (_, want) = cli_error(example(), &["write", "--agent", "forge", "--task", &task]);
    assert_eq!(write, want);
}

#[tokio::test]
async fn the_project_folder_is_looked_at_only_when_a_tool_is_called() {
    let project = example();
    let missing = project.base().join("nowhere");
    let missing_text = missing.to_str().expect("UTF-8 path");
    let client = connect_with(
        &project,
        &["-d", missing_text],
        ProtocolVersion::V_2025_11_25,
    )
    .await;
    let result = call(&client, "memory_outcomes", json!({})).await;
    assert_eq!(
        refused(&result),
        format!("Project directory does not exist or is not a directory: {missing_text}")
    );
    client.cancel().await.expect("close");
}

/// A raw server process: its stdin, its stdout lines.
fn raw_server(project: &TestProject) -> std::process::Child {
    let mut command: Command = project.command();
    command
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command.spawn().expect("spawn")
}

#[test]
fn closing_stdin_ends_the_server_cleanly_and_stdout_is_json_rpc_only() {
    let project = example();
    // Before any handshake.
    let child = raw_server(&project);
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success(), "{out:?}");
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");

    // After a handshake and a call.
    let mut child = raw_server(&project);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "memory_write", "arguments": {"agent": "raw"}}}),
    ];
    let mut lines = Vec::new();
    for request in &requests {
        writeln!(stdin, "{request}").expect("send");
        stdin.flush().expect("flush");
        if request.get("id").is_some() {
            let mut line = String::new();
            stdout.read_line(&mut line).expect("read");
            lines.push(line);
        }
    }
    drop(stdin);
    let status = child.wait().expect("wait");
    assert!(status.success(), "{status:?}");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).expect("read the rest");
    assert_eq!(rest, "", "nothing after the last response");
    for (line, id) in lines.iter().zip([1, 2]) {
        let message: Value = serde_json::from_str(line).expect("a JSON-RPC line");
        assert_eq!(message["jsonrpc"], "2.0");
        assert_eq!(message["id"], id);
        assert!(message.get("result").is_some(), "{line}");
    }
    assert!(!project.path(LOCK).exists(), "no lock held after the call");
    let journal = project.read_text(JOURNAL);
    let last = journal.lines().last().expect("an event");
    assert!(last.contains("\"agent\":\"raw\""), "{last}");
}

#[tokio::test(flavor = "current_thread")]
async fn two_servers_and_a_command_line_writer_lose_no_event() {
    const EACH: usize = 40;
    let project = TestProject::new();
    let first = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let second = connect(&project, ProtocolVersion::V_2025_06_18).await;
    let command_line_runs: Vec<Command> = (0..EACH)
        .map(|n| {
            let mut command = project.command();
            command.args(["write", "--agent", "cli", "--task", &format!("cli {n}")]);
            command
        })
        .collect();
    let cli_writer = std::thread::spawn(move || {
        for mut command in command_line_runs {
            let out = command.output().expect("spawn");
            assert!(out.status.success(), "{out:?}");
        }
    });
    let writes = |agent: &'static str, server: &Peer<RoleClient>| {
        let server = server.clone();
        async move {
            for n in 0..EACH {
                let result = call(
                    &server,
                    "memory_write",
                    json!({"agent": agent, "task": format!("{agent} {n}")}),
                )
                .await;
                ok(&result);
            }
        }
    };
    tokio::join!(
        writes("first", first.peer()),
        writes("second", second.peer())
    );
    cli_writer.join().expect("the command-line writer");
    first.cancel().await.expect("close");
    second.cancel().await.expect("close");

    let journal = project.read_text(JOURNAL);
    let events: Vec<Value> = journal
        .lines()
        .map(|line| serde_json::from_str(line).expect("a complete line"))
        .collect();
    assert_eq!(events.len(), 3 * EACH);
    for agent in ["first", "second", "cli"] {
        let tasks: Vec<&str> = events
            .iter()
            .filter(|e| e["agent"] == agent)
            .map(|e| e["task"].as_str().expect("a task"))
            .collect();
        let want: Vec<String> = (0..EACH).map(|n| format!("{agent} {n}")).collect();
        assert_eq!(tasks, want, "{agent}'s events, in order");
    }
    assert!(!project.path(LOCK).exists(), "no lock left");
}

/// The README's MCP transcript, replayed: each `→` line is sent, and each request's `←` line
/// must be the server's next line, byte for byte.
#[test]
fn the_readme_transcript_is_what_the_server_says() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let block: Vec<&str> = readme
        .split_once("<!-- README:mcp-transcript -->\n```text\n")
        .and_then(|(_, rest)| rest.split_once("\n```"))
        .map(|(block, _)| block.lines().collect())
        .expect("the transcript block");
    let (command, exchange) = block.split_first().expect("a command line");
    let words: Vec<&str> = command.split(' ').collect();
    let [
        "$",
        now,
        "bmad-mem",
        "-d",
        folder @ "fixtures/example",
        "mcp",
    ] = words.as_slice()
    else {
        panic!("unexpected command line: {command}");
    };
    let project = TestProject::new().fixture_beside("example", &format!("project/{folder}"));
    let mut server = project.command();
    server
        .env(
            "BMAD_MEM_NOW",
            now.strip_prefix("BMAD_MEM_NOW=").expect("the clock"),
        )
        .args(["-d", folder, "mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let mut child = server.spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    for line in exchange {
        if let Some(request) = line.strip_prefix("→ ") {
            writeln!(stdin, "{request}").expect("send");
            stdin.flush().expect("flush");
        } else if let Some(response) = line.strip_prefix("← ") {
            let mut got = String::new();
            stdout.read_line(&mut got).expect("read");
            assert_eq!(got.trim_end_matches('\n'), response);
        } else {
            panic!("neither → nor ←: {line}");
        }
    }
    drop(stdin);
    assert!(child.wait().expect("wait").success());
}
