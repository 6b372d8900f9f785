//! What the tools answer: a text a model reads well, and `structuredContent` — the command's
//! `--json` object, the same value the command prints, valid against the `outputSchema` the
//! tool declares (and against `schemas/`). And the list itself: input schemas with one type per
//! property, output schemas a draft-07 validator can read, descriptions in plain words.

use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

use crate::mcp::{
    TOOLS, call, cli_error, cli_value, connect, example, ok, output_schemas, refused,
};
use crate::support::validate::validate;
use crate::support::{JOURNAL, assert_same, home};

#[tokio::test]
async fn the_tool_list_is_strict_plain_and_self_contained() {
    let project = example();
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    client.cancel().await.expect("close");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, TOOLS);
    for tool in &tools {
        let name = tool.name.as_ref();
        let input = &tool.input_schema;
        assert_eq!(input["type"], "object", "{name}");
        assert_eq!(input["additionalProperties"], false, "{name}");
        let mut descriptions = vec![tool.description.as_deref().unwrap_or_default().to_owned()];
        for (property, schema) in input["properties"].as_object().expect("properties") {
            // One type per property: strict clients and model APIs refuse a list of types.
            assert!(
                schema["type"].is_string(),
                "{name}.{property}: one type, not {}",
                schema["type"]
            );
            descriptions.push(
                schema["description"]
                    .as_str()
                    .expect("described")
                    .to_owned(),
            );
        }
        for text in &descriptions {
            for jargon in ["bmad-mem", "--", "`", "Same result"] {
                assert!(!text.contains(jargon), "{name}: {jargon:?} in {text:?}");
            }
        }
        let output = Value::Object((**tool.output_schema.as_ref().expect("outputSchema")).clone());
        assert_eq!(output["type"], "object", "{name}");
        let text = output.to_string();
        for keyword in ["$schema", "$id", "$ref", "$defs"] {
            assert!(
                !text.contains(&format!("\"{keyword}\":")),
                "{name}: {keyword}"
            );
        }
    }
}

/// The example project's reading calls: each answer's structured content is the command's
/// `--json` object, valid against the tool's outputSchema and the schema file, and its text is
/// the readable form.
#[tokio::test]
async fn each_reading_tool_answers_with_text_and_its_commands_json() {
    let project = example();
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let schemas = output_schemas(&client).await;
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
            "recall.json",
        ),
        (
            "memory_recall",
            // A number as a string and a switch as a string are read for what they mean.
            json!({"query": "auth strategy", "limit": "2", "include_archive": "true"}),
            &[
                "recall",
                "auth",
                "strategy",
                "--limit",
                "2",
                "--include-archive",
            ][..],
            "recall.json",
        ),
        (
            "memory_recall",
            json!({"query": "zzzqqq"}),
            &["recall", "zzzqqq"][..],
            "recall.json",
        ),
        (
            "memory_brief",
            json!({"max_chars": 1200}),
            &["brief", "--max-chars", "1200"][..],
            "brief.json",
        ),
        (
            "memory_outcomes",
            json!({}),
            &["outcomes"][..],
            "outcomes.json",
        ),
    ];
    let mut answers = Vec::new();
    for (tool, args, _, schema) in &calls {
        let answer = ok(&call(&client, tool, args.clone()).await);
        schemas.check(tool, &answer.structured);
        validate(schema, &answer.structured).unwrap_or_else(|e| panic!("{tool}: {e}"));
        answers.push(answer);
    }
    assert_same(&before, &project.snapshot(), "the reading tools");
    client.cancel().await.expect("close");
    let mut twin = example();
    for ((_, _, words, _), got) in calls.iter().zip(&answers) {
        let (next, want) = cli_value(twin, words);
        assert_eq!(got.structured, want, "{words:?}");
        twin = next;
    }

    // Recall: a header, then one line per match with the references memory_read takes.
    let recall = &answers[1];
    let lines: Vec<&str> = recall.text.lines().collect();
    assert_eq!(
        lines,
        [
            "2 matches for \"auth strategy\", best first (lexical ranking). memory_read gives \
             one whole: file and heading for a note, id for an event.",
            "1. [0.32] note .agents/memory/lessons.md, heading \"Revocation must be checked on \
             every request\": Date: 2026-08-18 Context: A cached session lookup let a revoked \
             session live for five more minutes. Lesson: Never cache the revocation chec…",
            "2. [0.27] note .agents/memory/decisions.md, heading \"Auth strategy\": Date: \
             2026-08-03 Status: active Context: The mobile app and the web client share one \
             API. Long-lived JWTs could not be revoked when a lapto…",
        ]
    );
    assert_eq!(answers[2].text, "No match for \"zzzqqq\".\n");
    assert_eq!(
        answers[0].text.lines().count(),
        1 + answers[0].structured["results"].as_array().unwrap().len()
    );
    // The brief: its Markdown, not an escaped JSON string.
    let brief = &answers[3];
    assert_eq!(brief.text, brief.structured["text"].as_str().unwrap());
    assert!(
        brief.text.starts_with("# Session brief — project\n"),
        "{}",
        brief.text
    );
    assert_eq!(answers[4].text, "No accepted-outcome receipt.\n");
}

/// The brief on the 519 decision records: the answer stays under 10,000 characters whatever
/// budget is asked for — its text and its JSON — its `omitted` list naming what fits and
/// `omittedUnlisted` counting the rest; its text is the command's at the budget it reports.
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
    let schemas = output_schemas(&client).await;
    let mut answers = Vec::new();
    for args in [json!({}), json!({"max_chars": 50000})] {
        answers.push(ok(&call(&client, "memory_brief", args).await));
    }
    client.cancel().await.expect("close");
    for answer in answers {
        schemas.check("memory_brief", &answer.structured);
        let brief = answer.structured;
        let pretty = serde_json::to_string_pretty(&brief).unwrap();
        assert!(pretty.encode_utf16().count() < 10_000, "{}", pretty.len());
        assert!(answer.text.encode_utf16().count() < 10_000);
        assert_eq!(answer.text, brief["text"].as_str().unwrap());
        let max = brief["maxChars"].as_u64().unwrap();
        assert!((6000..10_000).contains(&max), "{max}");
        let named = brief["omitted"].as_array().unwrap().len();
        let unlisted = brief["omittedUnlisted"].as_u64().unwrap();
        assert!(named > 0 && unlisted > 400, "{named} {unlisted}");
        // The command at that budget: the same text, every left-out entry named, in order.
        let (next, cli) = cli_value(project, &["brief", "--max-chars", &max.to_string()]);
        project = next;
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
    let schemas = output_schemas(&client).await;
    let write = ok(&call(
        &client,
        "memory_write",
        json!({"agent": "forge", "cli": "claude-code", "task": "fix the parser",
               "outcome": "success", "eval": 0.75, "accept": true, "ci": "pass"}),
    )
    .await);
    let propose = ok(&call(
        &client,
        "memory_propose",
        json!({"type": "lesson", "title": "Parsers need fuzzing",
               "body": "The parser broke on a truncated line.", "applies_when": "a parser changes",
               "source": "forge"}),
    )
    .await);
    client.cancel().await.expect("close");
    schemas.check("memory_write", &write.structured);
    schemas.check("memory_propose", &propose.structured);
    let candidate = propose.structured["file"]
        .as_str()
        .expect("the candidate's file");
    let id = write.structured["written"]["id"].as_str().unwrap();
    assert_eq!(
        write.text,
        format!("Recorded event {id} in the project's journal (2026-10-18T09:30:00.000Z).\n")
    );
    assert_eq!(
        propose.text,
        format!(
            "Candidate {} (lesson \"Parsers need fuzzing\") is pending in {candidate}; a person \
             admits or refuses it.\n",
            propose.structured["id"].as_str().unwrap()
        )
    );

    let (twin, want) = cli_value(
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
    assert_eq!(write.structured, want);
    let (twin, want) = cli_value(
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
    assert_eq!(propose.structured, want);
    assert_eq!(project.read(JOURNAL), twin.read(JOURNAL));
    assert_eq!(project.read(candidate), twin.read(candidate));
}

/// An unknown tool is a protocol error (there is no tool to carry it); an empty call of each
/// tool that needs arguments is a tool error, never a crash.
#[tokio::test]
async fn every_tool_answers_a_call_without_arguments() {
    let project = example();
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let before = project.snapshot();
    for tool in TOOLS {
        let result = call(&client, tool, json!({})).await;
        match tool {
            "memory_brief" | "memory_outcomes" => {
                ok(&result);
            }
            _ => {
                assert!(!refused(&result).is_empty());
            }
        }
    }
    assert!(
        client
            .call_tool(rmcp::model::CallToolRequestParams::new("memory_forget"))
            .await
            .is_err()
    );
    assert_same(&before, &project.snapshot(), "calls without arguments");
    client.cancel().await.expect("close");
}

/// Claude Code gives its model `JSON.stringify(structuredContent)` instead of the text when a
/// result has both: it gets the text alone, and tools without an output schema (which would
/// oblige structured results). Any other client gets both.
#[tokio::test]
async fn claude_code_gets_the_text_alone() {
    use rmcp::ServiceExt;
    use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
    use rmcp::transport::TokioChildProcess;

    let project = example();
    let transport =
        TokioChildProcess::new(crate::mcp::server_command(&project, &[])).expect("spawn");
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("claude-code", "2.1.280"),
    )
    .with_protocol_version(ProtocolVersion::V_2025_11_25)
    .serve(transport)
    .await
    .expect("initialize");
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(tools.iter().all(|t| t.output_schema.is_none()));
    let result = call(&client, "memory_brief", json!({})).await;
    client.cancel().await.expect("close");
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content, None);
    let (_, brief) = cli_value(example(), &["brief"]);
    assert_eq!(crate::mcp::text(&result), brief["text"].as_str().unwrap());
}

#[tokio::test]
async fn recall_follows_the_projects_default_ranking_and_takes_a_status_filter() {
    let configured = || {
        example()
            .write(".bmad/memory/config.json", "{\"ranking\": \"bm25\"}\n")
            .write(
                ".bmad/memory/decisions.md",
                "### Stripe as the payment provider\n\
                 **Status:** superseded by Adyen as the payment provider\n\
                 Stripe handles payments.\n\n\
                 ### Adyen as the payment provider\nAdyen handles payments.\n",
            )
    };
    let project = configured();
    let client = connect(&project, ProtocolVersion::V_2025_11_25).await;
    let default = ok(&call(
        &client,
        "memory_recall",
        json!({"query": "payment provider"}),
    )
    .await);
    let in_force = ok(&call(
        &client,
        "memory_recall",
        json!({"query": "payment provider", "status": "in-force"}),
    )
    .await);
    let lexical = refused(
        &call(
            &client,
            "memory_recall",
            json!({"query": "payment provider", "ranking": "lexical", "status": "all"}),
        )
        .await,
    )
    .to_owned();
    client.cancel().await.expect("close");
    assert_eq!(default.structured["ranking"], "bm25");
    assert!(
        default
            .text
            .contains("superseded by Adyen as the payment provider"),
        "{}",
        default.text
    );
    let (twin, want) = cli_value(configured(), &["recall", "payment", "provider"]);
    assert_eq!(default.structured, want);
    let (twin, want) = cli_value(
        twin,
        &["recall", "payment", "provider", "--status", "in-force"],
    );
    assert_eq!(in_force.structured, want);
    assert!(!in_force.text.contains("superseded"), "{}", in_force.text);
    let (_, message) = cli_error(
        twin,
        &[
            "recall",
            "payment",
            "--ranking",
            "lexical",
            "--status",
            "all",
        ],
    );
    assert_eq!(lexical, message);
}

/// `memory_recall` of "auth strategy", 3 results, with the project's default ranking.
async fn recall_by_default(project: &crate::support::TestProject) -> crate::mcp::Answer {
    let client = connect(project, ProtocolVersion::V_2025_11_25).await;
    let answer = ok(&call(
        &client,
        "memory_recall",
        json!({"query": "auth strategy", "limit": 3}),
    )
    .await);
    client.cancel().await.expect("close");
    answer
}

#[tokio::test]
async fn recall_follows_a_default_of_hybrid_and_without_the_model_falls_back_to_bm25() {
    const CONFIG: &str = "{\"ranking\": \"hybrid\"}\n";
    let words = ["recall", "auth", "strategy", "--limit", "3"];
    // With the model installed (the tests' tiny one) and the index built: hybrid, as the
    // command ranks.
    let project = example()
        .with_tiny_model()
        .write(".bmad/memory/config.json", CONFIG)
        .args(["index"])
        .code(0)
        .run()
        .project;
    let hybrid = recall_by_default(&project).await;
    assert_eq!(hybrid.structured["ranking"], "hybrid");
    assert!(
        hybrid.structured["results"][0]["semanticRank"].is_number(),
        "{}",
        hybrid.structured
    );
    assert_eq!(hybrid.structured, cli_value(project, &words).1);
    // Without the model: bm25, and the warning says why.
    let project = example().write(".bmad/memory/config.json", CONFIG);
    let fallback = recall_by_default(&project).await;
    assert_eq!(fallback.structured["ranking"], "bm25");
    assert!(
        fallback.structured["warnings"][0]
            .as_str()
            .is_some_and(|w| w.starts_with("warning: the default ranking hybrid cannot apply: ")),
        "{}",
        fallback.structured
    );
    assert_eq!(fallback.structured, cli_value(project, &words).1);
}
