#!/usr/bin/env bash
# The official MCP SDK clients (TypeScript and Python) against the built `bmad-mem mcp`, from
# .ci/run. Needs the network once: each SDK is installed, at the pinned version, into
# target/mcp-sdk/ (kept between runs; `cargo clean` removes it). `cargo test` never runs this.
#
# Usage: tests/mcp_sdk/run.sh [path to the bmad-mem binary, default target/debug/bmad-mem]
set -euo pipefail
cd "$(dirname "$0")/../.."
binary="$(realpath "${1:-target/debug/bmad-mem}")"
sdk="target/mcp-sdk"
node_sdk="@modelcontextprotocol/sdk@1.32.2"
python_sdk="mcp==2.3.0"

# A folder is reused only when its marker names the pinned version.
if [ "$(cat "$sdk/node/.installed" 2>/dev/null)" != "$node_sdk" ]; then
  rm -rf "$sdk/node"
  npm install --prefix "$sdk/node" --no-audit --no-fund --loglevel=error "$node_sdk"
  echo "$node_sdk" >"$sdk/node/.installed"
fi
if [ "$(cat "$sdk/python/.installed" 2>/dev/null)" != "$python_sdk" ]; then
  rm -rf "$sdk/python"
  python3 -m venv "$sdk/python"
  "$sdk/python/bin/pip" install --quiet --disable-pip-version-check "$python_sdk"
  echo "$python_sdk" >"$sdk/python/.installed"
fi

# Each client gets a fresh copy of the example project.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for client in typescript python; do
  mkdir -p "$work/$client"
  cp -R fixtures/example/. "$work/$client/"
done
# The node script resolves the SDK from the folder it was installed in.
cp tests/mcp_sdk/client.mjs "$sdk/node/client.mjs"
node "$sdk/node/client.mjs" "$binary" "$work/typescript"
"$sdk/python/bin/python" tests/mcp_sdk/client.py "$binary" "$work/python"
