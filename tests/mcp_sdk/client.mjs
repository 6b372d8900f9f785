// `bmad-mem mcp` driven by the official TypeScript SDK's client (@modelcontextprotocol/sdk),
// as Claude Code, Gemini CLI and most agents embed it. Run by tests/mcp_sdk/run.sh from .ci/run.
//
// Usage: node client.mjs <bmad-mem binary> <project folder>
// Lists the tools twice (a client that lists again must still compile every output schema), calls
// each reading tool, and checks for each answer: a text block, structuredContent valid against
// the tool's outputSchema — through the SDK's own check in callTool, and again explicitly with
// the SDK's Ajv validator — and the text a model reads. Exits 1 on the first failure.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

const [binary, project] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: binary,
  args: ["mcp"],
  cwd: project,
  env: { ...process.env, BMAD_MEM_NOW: "2026-10-18T09:30:00.000Z", HOME: project },
  stderr: "inherit",
});
const client = new Client({ name: "bmad-mem-ci-typescript", version: "1.0.0" });
await client.connect(transport);
assert.equal(client.getServerVersion().name, "bmad-mem");

let { tools } = await client.listTools();
({ tools } = await client.listTools());
const names = tools.map((tool) => tool.name);
assert.deepEqual(names, [
  "memory_brief", "memory_recall", "memory_read", "memory_write",
  "memory_propose", "memory_handoff", "memory_outcomes",
]);
const validator = new AjvJsonSchemaValidator();
const schemas = new Map();
for (const tool of tools) {
  assert.equal(tool.inputSchema.type, "object", tool.name);
  for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
    assert.equal(typeof property.type, "string", `${tool.name}.${name}: one type`);
  }
  assert.equal(tool.outputSchema?.type, "object", `${tool.name}: an object output schema`);
  schemas.set(tool.name, validator.getValidator(tool.outputSchema));
}

async function answer(name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, false, `${name}: ${JSON.stringify(result)}`);
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0].type, "text");
  assert.ok(result.structuredContent, `${name}: structuredContent`);
  const checked = schemas.get(name)(result.structuredContent);
  assert.ok(checked.valid, `${name}: ${checked.errorMessage}`);
  return { text: result.content[0].text, structured: result.structuredContent };
}

const brief = await answer("memory_brief", {});
assert.equal(brief.text, brief.structured.text);
assert.match(brief.text, /^# Session brief — /);

const recall = await answer("memory_recall", { query: "auth strategy", limit: 3 });
assert.equal(recall.structured.count, 3);
assert.equal(recall.text.split("\n").filter(Boolean).length, 1 + recall.structured.count);
const note = recall.structured.results.find((result) => result.kind === "note");

const read = await answer("memory_read", { file: note.sourceFile, heading: note.ref });
assert.equal(read.structured.text, note.text);

const bm25 = await answer("memory_recall", { query: "session revocation", ranking: "bm25" });
assert.equal(bm25.structured.ranking, "bm25");
await answer("memory_outcomes", {});

const refused = await client.callTool({ name: "memory_write", arguments: { agent: "ci" } });
assert.equal(refused.isError, true);
assert.equal(refused.structuredContent, undefined);

await client.close();
console.log(`typescript sdk: ${tools.length} tools listed, 6 calls checked against their output schemas`);
