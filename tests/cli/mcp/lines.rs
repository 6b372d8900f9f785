//! Raw lines on the server's stdin: every request gets an answer, a malformed one included, and
//! the lines on stdout are whole JSON-RPC messages however the answers cross.
//!
//! JSON-RPC 2.0: a line that is not JSON is answered -32700 with id `null`; JSON that is not a
//! valid request -32600, with the request's id when it can be read — a request nested deeper
//! than the JSON reader goes (127 levels), or holding a number it cannot hold, has its id read
//! by a shallow scan — and `null` when the id itself is what is wrong (`1e400`, `1.5`, an
//! object). Before this, each of these got no answer and the client waited for ever.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::process::ChildStdin;
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::mcp::{example, raw_server};
use crate::support::TestProject;

/// How long an answer may take before the test fails (instead of waiting for ever, as a client
/// of a server that drops a request does).
const PATIENCE: Duration = Duration::from_secs(30);

/// A server with its stdin and its stdout lines (read by a thread), past the handshake.
struct Raw {
    /// The project folder, kept for as long as the server runs in it.
    _project: TestProject,
    child: std::process::Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Raw {
    fn start() -> Self {
        let project = example();
        let mut child = raw_server(&project);
        let stdin = child.stdin.take().expect("stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            loop {
                let mut line = String::new();
                match stdout.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if sender.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let mut raw = Self {
            _project: project,
            child,
            stdin,
            lines,
        };
        raw.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"}}})
            .to_string(),
        );
        assert!(raw.receive()["result"].is_object());
        raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        raw
    }

    fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).expect("send");
        self.stdin.write_all(b"\n").expect("send");
        self.stdin.flush().expect("flush");
    }

    /// The next line of stdout, which must be one JSON-RPC message, within [`PATIENCE`].
    fn receive(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(PATIENCE)
            .unwrap_or_else(|e| panic!("no answer ({e})"));
        assert!(line.ends_with('\n'), "a whole line: {line:?}");
        let message: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        message
    }

    fn finish(mut self) {
        drop(self.stdin);
        assert!(self.child.wait().expect("wait").success());
        let rest: Vec<String> = self.lines.iter().collect();
        assert!(rest.is_empty(), "nothing after the last answer: {rest:?}");
    }
}

fn nested(levels: usize) -> String {
    format!("{}{}", "[".repeat(levels), "]".repeat(levels))
}

/// Each malformed line, then a ping: the line's error, then the ping's answer, each on its own
/// line; the server keeps serving.
#[test]
fn every_malformed_request_gets_an_answer() {
    let cases: Vec<(String, i64, Value)> = vec![
        ("nope".into(), -32700, Value::Null),
        ("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":".into(), -32700, Value::Null),
        ("\u{1}\u{2}".into(), -32700, Value::Null),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"memory_recall","arguments":{{"query":{}}}}}}}"#,
                nested(129)
            ),
            -32600,
            json!(6),
        ),
        (
            format!(
                r#"{{"jsonrpc":"2.0","method":"tools/call","params":{},"id":"deep"}}"#,
                nested(5000)
            ),
            -32600,
            json!("deep"),
        ),
        (r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#.into(), -32600, Value::Null),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#.into(), -32600, Value::Null),
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#.into(), -32600, Value::Null),
        (r#"{"jsonrpc":"2.0","id":[7],"method":"ping"}"#.into(), -32600, Value::Null),
        (
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"a","limit":1e999}}}"#.into(),
            -32600,
            json!(8),
        ),
        (
            // Longer than the 16 MiB the server reads: its id is still found.
            format!(
                r#"{{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{{"name":"memory_write","arguments":{{"agent":"a","task":"{}"}}}}}}"#,
                "x".repeat(16 * 1024 * 1024)
            ),
            -32600,
            json!("long"),
        ),
    ];
    let mut raw = Raw::start();
    for (n, (line, code, id)) in cases.iter().enumerate() {
        raw.send(line);
        let answer = raw.receive();
        let shown: String = line.chars().take(80).collect();
        assert_eq!(answer["error"]["code"], *code, "{shown}: {answer}");
        assert_eq!(answer["id"], *id, "{shown}: {answer}");
        assert!(answer["error"]["message"].is_string(), "{answer}");
        let ping = 100 + n;
        raw.send(&json!({"jsonrpc": "2.0", "id": ping, "method": "ping"}).to_string());
        let answered = raw.receive();
        assert_eq!(answered["id"], ping, "{answered}");
        assert!(answered["result"].is_object(), "{answered}");
    }
    // A blank line is no request: nothing answers it.
    raw.send("   ");
    raw.finish();
}

/// Many calls and malformed lines sent at once: every answer arrives whole on its own line,
/// and each request is answered once.
#[test]
fn answers_never_interleave() {
    const EACH: usize = 60;
    let mut raw = Raw::start();
    let mut batch = String::new();
    for n in 0..EACH {
        batch.push_str(
            &json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "memory_recall", "arguments": {"query": "auth session cookie", "limit": 8}}})
            .to_string(),
        );
        batch.push('\n');
        let _ = writeln!(
            batch,
            "{{\"jsonrpc\":\"2.0\",\"id\":\"bad{n}\",\"p\":{}}}",
            nested(200)
        );
        batch.push_str("not json\n");
    }
    let writer = {
        let mut stdin = raw.stdin.try_clone_for_test();
        std::thread::spawn(move || {
            stdin.write_all(batch.as_bytes()).expect("send");
            stdin.flush().expect("flush");
        })
    };
    let mut answered: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..3 * EACH {
        let answer = raw.receive();
        *answered.entry(answer["id"].to_string()).or_default() += 1;
    }
    writer.join().expect("the writer");
    raw.finish();
    assert_eq!(answered.get("null"), Some(&EACH), "{answered:?}");
    for n in 0..EACH {
        assert_eq!(answered.get(&n.to_string()), Some(&1), "{n}");
        assert_eq!(answered.get(&format!("\"bad{n}\"")), Some(&1), "bad{n}");
    }
}

/// Writing the batch from another thread needs a second handle on the pipe.
trait TryCloneForTest {
    fn try_clone_for_test(&self) -> std::fs::File;
}

impl TryCloneForTest for ChildStdin {
    fn try_clone_for_test(&self) -> std::fs::File {
        use std::os::fd::AsFd;
        std::fs::File::from(self.as_fd().try_clone_to_owned().expect("dup stdin"))
    }
}
