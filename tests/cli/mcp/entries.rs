//! The tools with no command of their own, or an MCP-only rule: `memory_read` (one entry whole,
//! by the reference recall gave), `memory_handoff` (the handoff command's parts, given apart),
//! and `memory_propose` answering a second identical proposal with the pending candidate.

use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

use crate::mcp::{call, cli_value, connect, example, ok, output_schemas, refused};
use crate::support::validate::validate;
use crate::support::{JOURNAL, assert_same};

/// Whether a name in the candidates folder is a candidate's (`<id>.md`).
fn is_markdown(name: &str) -> bool {
    std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"))
}

const CANDIDATES: &str = ".bmad/memory/candidates";
const SESSIONS: &str = ".agents/memory/sessions";

#[tokio::test]
async fn read_gives_what_recall_found_whole() {
    let project = example().write(
        ".bmad/memory/archive/journal-2026-01-01--2026-01-02.ndjson",
        "{\"ts\":\"2026-01-01T00:00:00.000Z\",\"agent\":\"old\",\"task\":\"archived\",\"id\":\"0ld0ld0ld0ld\"}\n\
         {\"ts\":\"2026-01-02T00:00:00.000Z\",\"agent\":\"old\",\"task\":\"no id\"}\n",
    );
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let schemas = output_schemas(&client).await;
    let before = project.snapshot();
    let recall = ok(&call(&client, "memory_recall", json!({"query": "auth strategy"})).await);
    let first = &recall.structured["results"][0];
    let (file, heading) = (first["sourceFile"].clone(), first["ref"].clone());
    let mut answers = Vec::new();
    for args in [
        json!({"file": file, "heading": heading}),
        // By the file's bare name, the heading in another case and with spaces around.
        json!({"file": "lessons.md", "heading": "  revocation MUST be checked on every request "}),
        json!({"id": "6b1dc0dc38b7"}),
        json!({"id": "0ld0ld0ld0ld"}),
        json!({"id": "2026-01-02T00:00:00.000Z"}),
    ] {
        let answer = ok(&call(&client, "memory_read", args).await);
        schemas.check("memory_read", &answer.structured);
        validate("read.json", &answer.structured).unwrap();
        answers.push(answer);
    }
    let refusals = [
        (
            json!({}),
            "give file and heading (a note section), or id (a journal event), not both",
        ),
        (
            json!({"file": "lessons.md", "heading": "x", "id": "6b1dc0dc38b7"}),
            "give file and heading (a note section), or id (a journal event), not both",
        ),
        (
            json!({"file": "lessons.md"}),
            "give file and heading (a note section), or id (a journal event), not both",
        ),
        (
            json!({"file": "notes.md", "heading": "x"}),
            "'notes.md' is not a note file: give decisions.md, lessons.md, patterns.md or a path \
             recall shows (sourceFile)",
        ),
        (
            json!({"file": "../../etc/passwd", "heading": "x"}),
            "'../../etc/passwd' is not a note file: give decisions.md, lessons.md, patterns.md \
             or a path recall shows (sourceFile)",
        ),
        (
            json!({"file": "lessons.md", "heading": "Nothing here"}),
            "no section is headed \"Nothing here\" in .bmad/memory/lessons.md, \
             .agents/memory/lessons.md",
        ),
        (json!({"id": "nope"}), "no journal event has the id 'nope'"),
    ];
    for (args, message) in refusals {
        assert_eq!(refused(&call(&client, "memory_read", args).await), message);
    }
    assert_same(&before, &project.snapshot(), "reads");
    client.cancel().await.expect("close");

    let note = &answers[0].structured;
    assert_eq!(note["kind"], "note");
    assert_eq!(note["file"], file);
    assert_eq!(note["heading"], heading);
    assert_eq!(note["text"], first["text"]);
    assert_eq!(
        answers[0].text,
        format!(
            "From {}:\n\n### {}\n",
            file.as_str().unwrap(),
            first["text"].as_str().unwrap()
        )
    );
    assert_eq!(answers[1].structured, answers[0].structured);
    let event = &answers[2].structured;
    assert_eq!(event["source"], "journal.ndjson");
    assert_eq!(event["ref"], "6b1dc0dc38b7");
    let stored = project.read_text(JOURNAL);
    let line: Value = serde_json::from_str(stored.lines().next().unwrap()).unwrap();
    assert_eq!(event["event"], line);
    assert!(
        answers[2]
            .text
            .starts_with("Event 6b1dc0dc38b7 from journal.ndjson:\n{\n")
    );
    assert_eq!(
        answers[3].structured["source"],
        "journal-2026-01-01--2026-01-02.ndjson"
    );
    assert_eq!(answers[4].structured["event"]["task"], "no id");
}

#[tokio::test]
async fn a_handoff_from_parts_is_the_commands_note() {
    let project = example();
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let schemas = output_schemas(&client).await;
    let before = project.snapshot();
    for (args, message) in [
        (
            json!({"what_changed": "x"}),
            "topic is required: what the session was about",
        ),
        (
            json!({"topic": "Auth", "what_changed": " ", "next_steps": []}),
            "a handoff needs at least one part: what_changed, decisions, open_questions, \
             next_steps or files_modified",
        ),
    ] {
        assert_eq!(
            refused(&call(&client, "memory_handoff", args).await),
            message
        );
    }
    assert_same(&before, &project.snapshot(), "refused handoffs");
    let answer = ok(&call(
        &client,
        "memory_handoff",
        json!({"topic": "Auth rework", "agent": "forge",
               "what_changed": "Sessions replace JWTs.\r\n\n## Details\nkept here",
               "next_steps": ["ship it", "watch the logs"],
               "files_modified": "- src/auth.rs: sessions"}),
    )
    .await);
    client.cancel().await.expect("close");
    schemas.check("memory_handoff", &answer.structured);
    let written = answer.structured["written"].as_str().unwrap().to_owned();
    assert_eq!(written, format!("{SESSIONS}/2026-10-18-auth-rework.md"));
    assert_eq!(
        answer.text,
        format!(
            "Handoff written to {written} (parts: What changed, Next steps, Files modified); the \
             next session's brief shows it first.\n"
        )
    );
    // The command, given the same parts as Markdown, writes the same note.
    let twin = example().write(
        "parts.md",
        "Sessions replace JWTs.\n\n## Details\nkept here\n## Next steps\n- ship it\n- watch the \
         logs\n## Files modified\n- src/auth.rs: sessions\n",
    );
    let (twin, want) = cli_value(
        twin,
        &[
            "handoff",
            "--topic",
            "Auth rework",
            "--agent",
            "forge",
            "--from",
            "parts.md",
        ],
    );
    assert_eq!(answer.structured, want);
    assert_eq!(project.read(&written), twin.read(&written));
}

/// The same proposal twice (an agent retrying): one candidate, the same answer. Another body is
/// another candidate, as on the command line, which keeps writing one per call.
#[tokio::test]
async fn proposing_the_same_twice_keeps_one_candidate() {
    let project = example();
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let proposal = json!({"type": "lesson", "title": "Parsers need fuzzing",
                          "body": "The parser broke on a truncated line.", "source": "forge",
                          "evidence": ["6b1dc0dc38b7", "src/parser.rs"]});
    let first = ok(&call(&client, "memory_propose", proposal.clone()).await);
    let after_first = project.snapshot();
    let second = ok(&call(&client, "memory_propose", proposal.clone()).await);
    assert_same(&after_first, &project.snapshot(), "the same proposal again");
    let mut other = proposal;
    other["body"] = json!("The parser broke on an empty file.");
    let third = ok(&call(&client, "memory_propose", other).await);
    client.cancel().await.expect("close");
    assert_eq!(first.structured, second.structured);
    assert_eq!(first.text, second.text);
    assert_ne!(third.structured["id"], first.structured["id"]);
    let candidates: Vec<String> = project
        .names(CANDIDATES)
        .into_iter()
        .filter(|n| is_markdown(n))
        .collect();
    assert_eq!(candidates.len(), 2, "{candidates:?}");

    let words = ["propose", "--type", "lesson", "--title", "t", "--body", "b"];
    let (twin, once) = cli_value(example(), &words);
    let (twin, twice) = cli_value(twin, &words);
    assert_ne!(once["id"], twice["id"]);
    assert_eq!(
        twin.names(CANDIDATES)
            .iter()
            .filter(|n| is_markdown(n))
            .count(),
        2
    );
}
