//! The stdio transport in front of the SDK: every line the client sends gets an answer, and the
//! lines written to stdout never interleave.
//!
//! The SDK's own stdio transport drops, unanswered, a line that is not JSON, a request nested
//! deeper than its JSON reader accepts, and one whose id is a number it cannot read (`1e400`):
//! the client then waits for ever. So the server reads stdin itself, one line at a time, and
//! judges each line ([`judge`]) before the SDK sees it:
//!
//! * a blank line is skipped (the SDK skips it too);
//! * a line that is not JSON is answered `-32700` (parse error), id `null`, as JSON-RPC 2.0 says;
//! * a line nested deeper than the JSON reader's limit (127 levels), or holding a number it
//!   cannot represent, or longer than [`MAX_LINE`], is answered `-32600` (invalid request) with
//!   the request's id when a shallow scan of the line finds a valid one ([`scan_id`]), else
//!   `null`;
//! * a request whose id is neither a string nor an integer (`1.5`, `1e400`, an object, `null`)
//!   is answered `-32600` with id `null`;
//! * every other line goes to the SDK unchanged, through an in-memory pipe.
//!
//! Output: the SDK writes into a second in-memory pipe, whose lines a task forwards, whole, to a
//! channel; the answers above go to the same channel; one task owns stdout and writes each line
//! in one piece, so two messages can never interleave. When stdout fails (the client went
//! away), that task ends and the server with it.

use std::io;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::messages;

/// The longest line the server reads, its `\n` included (the SDK's own cap).
pub(crate) const MAX_LINE: usize = 16 * 1024 * 1024;
/// How deep a JSON value may nest: the JSON reader (`serde_json`) refuses a 128th level.
const MAX_DEPTH: usize = 127;
/// The size of each in-memory pipe's buffer.
const PIPE: usize = 64 * 1024;
/// How many lines wait for stdout at most before the readers wait in turn.
const QUEUE: usize = 64;
/// How much of an over-long line is kept to look for its id.
const ID_SCAN: usize = 64 * 1024;

/// JSON-RPC's code for a line that is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a valid request.
const INVALID_REQUEST: i64 = -32600;

/// What to do with one line from the client.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Hand it to the SDK as it is.
    Pass,
    /// Nothing to do (a blank line).
    Skip,
    /// Answer it with this error response (one line, `\n` included).
    Answer(String),
}

/// Judges one line, without its `\n` (see the module documentation).
#[must_use]
pub(crate) fn judge(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // RFC 8259 §8.1 lets a reader ignore a byte order mark; the SDK does.
    let text = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if text.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    match serde_json::from_slice::<Value>(text) {
        Ok(Value::Object(message)) => match message.get("id") {
            Some(id) if !is_valid_id(id) => Verdict::Answer(error_line(
                &Value::Null,
                INVALID_REQUEST,
                messages::MCP_ID_INVALID,
            )),
            _ => Verdict::Pass,
        },
        // Batches and stray values: the SDK answers them.
        Ok(_) => Verdict::Pass,
        Err(error) => {
            let id = scan_id(text).unwrap_or(Value::Null);
            if depth(text) > MAX_DEPTH {
                Verdict::Answer(error_line(
                    &id,
                    INVALID_REQUEST,
                    &messages::mcp_too_deep(MAX_DEPTH),
                ))
            } else if error.to_string().starts_with("number out of range") {
                Verdict::Answer(error_line(
                    &id,
                    INVALID_REQUEST,
                    &messages::mcp_number_out_of_range(&error.to_string()),
                ))
            } else {
                Verdict::Answer(error_line(
                    &Value::Null,
                    PARSE_ERROR,
                    &messages::mcp_not_json(&error.to_string()),
                ))
            }
        }
    }
}

/// The answer to a line longer than [`MAX_LINE`], of which `head` is the start.
#[must_use]
pub(crate) fn judge_too_long(head: &[u8]) -> String {
    let id = scan_id(head).unwrap_or(Value::Null);
    error_line(&id, INVALID_REQUEST, &messages::mcp_line_too_long(MAX_LINE))
}

/// An id the SDK accepts: a string, or an integer it can hold (an `i64`; a number in float form
/// only when it is an integer below 2^53, as `1.0` or `1e2`).
fn is_valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) if n.is_f64() => n
            .as_f64()
            .is_some_and(|f| f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0),
        Value::Number(n) => n.is_i64(),
        _ => false,
    }
}

/// One JSON-RPC error response line.
fn error_line(id: &Value, code: i64, message: &str) -> String {
    let mut line = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        .to_string();
    line.push('\n');
    line
}

/// How deep the line's arrays and objects nest, strings skipped (what the JSON reader would
/// count before its first error).
#[must_use]
fn depth(text: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut in_string = false;
    let mut escaped = false;
    for &b in text {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The id of the request a line holds, read without parsing the rest: the value of the top
/// object's first `"id"` member, when it is a valid id. Any other value, or a line whose top
/// level cannot be followed up to that member, gives `None`.
#[must_use]
pub(crate) fn scan_id(text: &[u8]) -> Option<Value> {
    let mut scan = Scan { text, at: 0 };
    scan.skip_space();
    scan.eat(b'{')?;
    loop {
        scan.skip_space();
        let key_start = scan.at;
        scan.skip_string()?;
        let key: String = serde_json::from_slice(&text[key_start..scan.at]).ok()?;
        scan.skip_space();
        scan.eat(b':')?;
        scan.skip_space();
        let value_start = scan.at;
        scan.skip_value()?;
        if key == "id" {
            let id: Value = serde_json::from_slice(&text[value_start..scan.at]).ok()?;
            return is_valid_id(&id).then_some(id);
        }
        scan.skip_space();
        scan.eat(b',')?;
    }
}

/// A cursor over a line for [`scan_id`]: each step returns `None` when the text does not
/// follow JSON's grammar there (or ends).
struct Scan<'a> {
    text: &'a [u8],
    at: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self
            .peek()
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// A string, quotes included.
    fn skip_string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        let mut escaped = false;
        loop {
            let b = self.peek()?;
            self.at += 1;
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => return Some(()),
                _ => {}
            }
        }
    }

    /// One value: a string, a scalar, or an array or object at any depth (counted, not
    /// recursed into).
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.skip_string(),
            b'[' | b'{' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.skip_string()?;
                            continue;
                        }
                        b'[' | b'{' => depth += 1,
                        b']' | b'}' => depth -= 1,
                        _ => {}
                    }
                    self.at += 1;
                    if depth == 0 {
                        return Some(());
                    }
                }
            }
            _ => {
                let start = self.at;
                while self.peek().is_some_and(|b| {
                    !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                }) {
                    self.at += 1;
                }
                (self.at > start).then_some(())
            }
        }
    }
}

/// Serves `server`'s transport over `input` and `output`: starts the line filter, the forwarder
/// of the SDK's lines and the one writer of `output`, and returns the SDK's two ends (what it
/// reads, what it writes) and the writer's handle, which ends when every line is written
/// (`Ok`) or `output` failed (`Err`).
pub(crate) fn start<R, W>(
    input: R,
    output: W,
) -> (
    tokio::io::DuplexStream,
    tokio::io::DuplexStream,
    tokio::task::JoinHandle<io::Result<()>>,
    tokio::task::JoinHandle<()>,
)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (sdk_reads, to_sdk) = tokio::io::duplex(PIPE);
    let (from_sdk, sdk_writes) = tokio::io::duplex(PIPE);
    let (lines, queue) = mpsc::channel::<Vec<u8>>(QUEUE);
    let writer = tokio::spawn(write_lines(output, queue));
    let filter = tokio::spawn(filter(input, to_sdk, lines.clone()));
    tokio::spawn(forward(from_sdk, lines));
    (sdk_reads, sdk_writes, writer, filter)
}

/// Reads the client's lines and hands each to the SDK or answers it ([`judge`]); at the end of
/// `input` the SDK's input ends too.
async fn filter(
    input: impl AsyncRead + Unpin,
    mut to_sdk: tokio::io::DuplexStream,
    answers: mpsc::Sender<Vec<u8>>,
) {
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let verdict = match read_line(&mut reader, &mut line).await {
            Ok(Line::Whole) => judge(line.strip_suffix(b"\n").unwrap_or(&line)),
            Ok(Line::TooLong) => Verdict::Answer(judge_too_long(&line)),
            Ok(Line::End) | Err(_) => break,
        };
        match verdict {
            Verdict::Pass => {
                if !line.ends_with(b"\n") {
                    line.push(b'\n');
                }
                if to_sdk.write_all(&line).await.is_err() {
                    break;
                }
            }
            Verdict::Skip => {}
            Verdict::Answer(answer) => {
                if answers.send(answer.into_bytes()).await.is_err() {
                    break;
                }
            }
        }
    }
}

/// What [`read_line`] read.
enum Line {
    /// A line, with its `\n` unless it ended the input.
    Whole,
    /// A line longer than [`MAX_LINE`]: its first [`ID_SCAN`] bytes were kept, the rest read
    /// and dropped.
    TooLong,
    /// The input ended.
    End,
}

/// Reads one line into `line` without ever holding more than [`MAX_LINE`] bytes of it.
async fn read_line(
    reader: &mut (impl AsyncBufReadExt + Unpin),
    line: &mut Vec<u8>,
) -> io::Result<Line> {
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if too_long {
                Line::TooLong
            } else if line.is_empty() {
                Line::End
            } else {
                Line::Whole
            });
        }
        let newline = memchr::memchr(b'\n', available);
        let take = newline.map_or(available.len(), |i| i + 1);
        if !too_long && line.len() + take > MAX_LINE {
            too_long = true;
            line.truncate(ID_SCAN);
        }
        if too_long {
            let room = ID_SCAN.saturating_sub(line.len());
            line.extend_from_slice(&available[..take.min(room)]);
        } else {
            line.extend_from_slice(&available[..take]);
        }
        reader.consume(take);
        if newline.is_some() {
            return Ok(if too_long { Line::TooLong } else { Line::Whole });
        }
    }
}

/// Forwards the SDK's output to the writer, one whole line at a time.
async fn forward(from_sdk: tokio::io::DuplexStream, lines: mpsc::Sender<Vec<u8>>) {
    let mut reader = BufReader::new(from_sdk);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if lines.send(line).await.is_err() {
                    break;
                }
            }
        }
    }
}

/// Writes each line to `output` in one piece, flushing when no other line waits.
async fn write_lines(
    mut output: impl AsyncWrite + Unpin,
    mut queue: mpsc::Receiver<Vec<u8>>,
) -> io::Result<()> {
    while let Some(line) = queue.recv().await {
        output.write_all(&line).await?;
        if queue.is_empty() {
            output.flush().await?;
        }
    }
    output.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    fn answer(line: &str) -> Value {
        match judge(line.as_bytes()) {
            Verdict::Answer(text) => {
                assert!(text.ends_with('\n') && !text[..text.len() - 1].contains('\n'));
                serde_json::from_str(&text).unwrap()
            }
            other => panic!("{line}: {other:?}"),
        }
    }

    #[track_caller]
    fn case(line: &str, code: i64, id: &Value) {
        let got = answer(line);
        assert_eq!(got["jsonrpc"], "2.0");
        assert_eq!(got["error"]["code"], code, "{line}: {got}");
        assert_eq!(&got["id"], id, "{line}: {got}");
    }

    fn nested(levels: usize) -> String {
        format!("{}{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn well_formed_lines_pass_and_blank_ones_are_skipped() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r",
            "[1]",
        ] {
            assert_eq!(judge(line.as_bytes()), Verdict::Pass, "{line}");
        }
        assert_eq!(judge(b" \t\r"), Verdict::Skip);
        assert_eq!(judge(b""), Verdict::Skip);
    }

    #[test]
    fn every_malformed_line_is_answered() {
        case("nope", PARSE_ERROR, &Value::Null);
        case(
            r#"{"jsonrpc":"2.0","id":3,"method":"#,
            PARSE_ERROR,
            &Value::Null,
        );
        case("\u{ff}", PARSE_ERROR, &Value::Null);
        for id in [
            "1e400",
            "1.5",
            "{}",
            "[1]",
            "true",
            "null",
            "18446744073709551615",
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            case(&line, INVALID_REQUEST, &Value::Null);
        }
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}}"#,
            nested(200)
        );
        case(&deep, INVALID_REQUEST, &json!(7));
        let late = format!(
            r#"{{"jsonrpc":"2.0","method":"x","params":{{"a":"]\"[","b":{}}},"id":"late"}}"#,
            nested(300)
        );
        case(&late, INVALID_REQUEST, &json!("late"));
        let big = r#"{"jsonrpc":"2.0","id":8,"method":"x","params":{"n":1e999}}"#;
        case(big, INVALID_REQUEST, &json!(8));
    }

    #[test]
    fn the_depth_limit_is_the_json_readers() {
        for levels in 120..140 {
            let line = format!(r#"{{"id":1,"p":{}}}"#, nested(levels - 1));
            let refused = serde_json::from_str::<Value>(&line).is_err();
            assert_eq!(depth(line.as_bytes()) > MAX_DEPTH, refused, "{levels}");
        }
    }

    #[test]
    fn the_id_is_found_without_parsing_the_rest() {
        let scan = |s: &str| scan_id(s.as_bytes());
        assert_eq!(
            scan(r#" { "a" : [1, {"id": 2}], "id" : 5 "#),
            Some(json!(5))
        );
        assert_eq!(scan(r#"{"id":"x\"y","#), Some(json!("x\"y")));
        assert_eq!(scan(r#"{"method":"a","id":1.5}"#), None);
        assert_eq!(scan(r#"{"method":"a"}"#), None);
        assert_eq!(scan(r#"{"params":[[[["#), None);
        assert_eq!(scan("[1]"), None);
        assert!(judge_too_long(br#"{"id":9,"params":"xxxx"#).contains(r#""id":9"#));
    }

    /// Any JSON value, nested a few levels, strings with quotes, brackets and escapes.
    fn any_json() -> impl Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            "[a-z\\\\\"\\[\\]{}:, \\n\u{e9}]{0,12}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(("[a-z\"]{0,4}", inner), 0..4)
                    .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// A request's id is found by the shallow scan wherever it stands among other members,
        /// and the line passes to the SDK.
        #[test]
        fn the_scan_finds_any_valid_id(
            before in proptest::collection::vec(("[a-hj-z]{1,3}", any_json()), 0..4),
            after in proptest::collection::vec(("[a-hj-z]{1,3}", any_json()), 0..4),
            id in proptest::prop_oneof![
                proptest::prelude::any::<i64>().prop_map(Value::from),
                "[ -~]{0,10}".prop_map(Value::from),
            ],
        ) {
            let mut members: Vec<String> = before
                .iter()
                .map(|(k, v)| format!("{}:{v}", Value::from(k.as_str())))
                .collect();
            members.push(format!("\"id\":{id}"));
            members.extend(after.iter().map(|(k, v)| format!("{} : {v}", Value::from(k.as_str()))));
            let line = format!("{{ {} }}", members.join(" , "));
            proptest::prop_assert_eq!(scan_id(line.as_bytes()), Some(id));
            proptest::prop_assert_eq!(judge(line.as_bytes()), Verdict::Pass);
        }

        /// The depth counted is the one the JSON reader refuses past.
        #[test]
        fn the_depth_agrees_with_the_json_reader(value in any_json(), levels in 0usize..140) {
            let line = format!("{}{value}{}", "[".repeat(levels), "]".repeat(levels));
            let refused = serde_json::from_str::<Value>(&line).is_err();
            proptest::prop_assert_eq!(depth(line.as_bytes()) > MAX_DEPTH, refused);
        }
    }

    #[tokio::test]
    async fn lines_reach_the_sdk_or_the_writer_whole_and_in_order() {
        let (client, server_in) = tokio::io::duplex(1024);
        let (server_out, mut client_reads) = tokio::io::duplex(1024);
        let (mut sdk_reads, mut sdk_writes, writer, filter) = start(server_in, server_out);
        let mut client = client;
        client
            .write_all(b"{\"id\":1}\n\nnope\n{\"id\":2}")
            .await
            .unwrap();
        drop(client);
        filter.await.unwrap();
        let mut passed = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut sdk_reads, &mut passed)
            .await
            .unwrap();
        assert_eq!(passed, "{\"id\":1}\n{\"id\":2}\n");
        sdk_writes.write_all(b"{\"a\":").await.unwrap();
        sdk_writes.write_all(b"1}\n").await.unwrap();
        drop(sdk_writes);
        writer.await.unwrap().unwrap();
        let mut written = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut client_reads, &mut written)
            .await
            .unwrap();
        let lines: Vec<&str> = written.lines().collect();
        assert_eq!(lines.len(), 2, "{written}");
        assert!(lines.contains(&"{\"a\":1}"));
        assert!(lines.iter().any(|l| l.contains("-32700")));
    }
}
