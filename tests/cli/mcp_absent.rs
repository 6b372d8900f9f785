//! A build without the `mcp` cargo feature (`cargo test --no-default-features`): the `mcp`
//! command and `hooks install --mcp` exit 1 saying the server is not built in, changing
//! nothing; taking an entry out and every other command still work.

use crate::support::TestProject;

const NOT_BUILT: &str = "this bmad-mem was built without its MCP server (cargo feature `mcp`); every other command works; build it with the default features to serve MCP";

#[test]
fn the_mcp_command_and_installing_its_entry_say_the_server_is_not_built_in() {
    let _ = TestProject::new().args(["mcp"]).refused("mcp", NOT_BUILT);
    for agent in ["claude-code", "codex", "gemini"] {
        let _ = TestProject::new()
            .args(["hooks", "install", "--agent", agent, "--mcp"])
            .refused("hooks", NOT_BUILT);
    }
    // The hooks alone install, and an entry written by a build with the server comes out.
    let entry = "{\n  \"mcpServers\": {\n    \"bmad-mem\": {\n      \"type\": \"stdio\",\n      \"command\": \"bmad-mem\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n";
    let p = TestProject::new()
        .args(["hooks", "install", "--agent", "claude-code"])
        .code(0)
        .run()
        .then()
        .write(".mcp.json", entry)
        .args(["hooks", "uninstall", "--agent", "claude-code", "--mcp"])
        .code(0)
        .run()
        .then();
    assert!(!p.read_text(".mcp.json").contains("bmad-mem"));
}
