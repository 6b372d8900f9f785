"""`bmad-mem mcp` driven by the official Python SDK's client (`mcp` on PyPI).

Run by tests/mcp_sdk/run.sh from .ci/run. Usage: python client.py <bmad-mem binary> <project>.
Lists the tools, calls each reading tool, and checks for each answer: a text block, and
structuredContent valid against the tool's outputSchema — through the SDK's own check in
call_tool, and again explicitly with jsonschema. Exits 1 on the first failure.
"""

import asyncio
import sys

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TOOLS = [
    "memory_brief",
    "memory_recall",
    "memory_read",
    "memory_write",
    "memory_propose",
    "memory_handoff",
    "memory_outcomes",
]


async def main(binary: str, project: str) -> None:
    server = StdioServerParameters(
        command=binary,
        args=["mcp"],
        cwd=project,
        env={"BMAD_MEM_NOW": "2026-10-18T09:30:00.000Z", "HOME": project},
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            info = await session.initialize()
            assert info.server_info.name == "bmad-mem", info
            tools = (await session.list_tools()).tools
            assert [tool.name for tool in tools] == TOOLS, tools
            schemas = {}
            for tool in tools:
                for name, prop in tool.input_schema["properties"].items():
                    assert isinstance(prop["type"], str), f"{tool.name}.{name}: one type"
                assert tool.output_schema["type"] == "object", tool.name
                schemas[tool.name] = tool.output_schema

            async def answer(name, arguments):
                result = await session.call_tool(name, arguments)
                assert not result.is_error, result
                assert len(result.content) == 1 and result.content[0].type == "text", result
                assert result.structured_content is not None, result
                jsonschema.validate(result.structured_content, schemas[name])
                return result.content[0].text, result.structured_content

            text, brief = await answer("memory_brief", {})
            assert text == brief["text"]
            text, recall = await answer("memory_recall", {"query": "auth strategy", "limit": 3})
            assert recall["count"] == 3
            assert len(text.strip().split("\n")) == 1 + recall["count"], text
            note = next(r for r in recall["results"] if r["kind"] == "note")
            _, read = await answer("memory_read", {"file": note["sourceFile"], "heading": note["ref"]})
            assert read["text"] == note["text"]
            await answer("memory_recall", {"query": "session revocation", "ranking": "bm25"})
            await answer("memory_outcomes", {})
            refused = await session.call_tool("memory_write", {"agent": "ci"})
            assert refused.is_error and refused.structured_content is None, refused
    print(f"python sdk: {len(tools)} tools listed, 6 calls checked against their output schemas")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
