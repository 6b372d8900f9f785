//! The server as a process: the handshake of every revision it speaks (2025-06-18 and
//! 2025-11-25 through `initialize`, 2026-07-28 through `server/discover` and per-request
//! metadata), its name and version, the seven tools; stdout carrying JSON-RPC only; the end of
//! stdin, handshake or not; the project folder looked at only when a tool is called; two
//! servers and a command-line writer on one project losing no event; the README's transcript; a
//! client that stops reading gets no queued call executed, and the server ends with status 1.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use rmcp::model::ProtocolVersion;
use rmcp::service::Peer;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};

use crate::mcp::{
    TOOLS, call, cli_value, client_config, connect, connect_with, example, ok, raw_server, refused,
    server_command,
};
use crate::support::{JOURNAL, LOCK, TestProject};

#[tokio::test]
async fn every_handshake_revision_names_bmad_mem_and_lists_the_seven_tools() {
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
    let got = ok(&result).structured;
    client.cancel().await.expect("close");
    let (_, want) = cli_value(project, &["recall", "auth", "strategy"]);
    assert_eq!(got, want);
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
            "name": "memory_write", "arguments": {"agent": "raw", "task": "a raw call"}}}),
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

/// The guide's MCP transcript, replayed: each `→` line is sent, and each request's `←` line
/// must be the server's next line, byte for byte.
#[test]
fn the_readme_transcript_is_what_the_server_says() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/GUIDE.md"))
        .expect("docs/GUIDE.md");
    let block: Vec<&str> = readme
        .split_once("<!-- guide:mcp-transcript -->\n```text\n")
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

/// A client that stops reading the server's output gets no further call executed: calls queued
/// on stdin after its reading end closed change nothing, and the server ends by itself (stdin
/// still open) with status 1, saying why. Deterministic: the reading end is closed before the
/// calls are sent, in one write.
#[test]
fn a_server_whose_output_is_gone_takes_no_more_calls() {
    const QUEUED: usize = 20;
    let project = TestProject::new();
    let mut child = raw_server(&project);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    writeln!(stdin, "{initialize}").expect("send");
    stdin.flush().expect("flush");
    let mut line = String::new();
    stdout.read_line(&mut line).expect("read");
    assert!(line.contains("\"result\""), "{line}");
    // The client stops reading.
    drop(stdout);
    let mut queued = format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    for id in 1..=QUEUED {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "memory_write", "arguments": {"agent": "raw", "task": format!("call {id}")}}});
        queued.push_str(&call.to_string());
        queued.push('\n');
    }
    stdin.write_all(queued.as_bytes()).expect("queue the calls");
    stdin.flush().expect("flush");
    // stdin stays open: a server that kept taking calls would never end by itself.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            child.kill().expect("kill");
            child.wait().expect("wait");
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    drop(stdin);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr)
        .expect("read stderr");
    let events = if project.path(JOURNAL).exists() {
        project.read_text(JOURNAL).lines().count()
    } else {
        0
    };
    assert_eq!(
        (status.and_then(|s| s.code()), events, stderr.as_str()),
        (
            Some(1),
            0,
            "mem mcp: MCP server: output lost (nobody reads standard output any more): no \
             further call taken\n"
        )
    );
    assert!(!project.path(LOCK).exists(), "no lock left");
}
