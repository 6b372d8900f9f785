#!/usr/bin/env bash
# `bmad-mem view` in a real browser, from .ci/run: the pages of fixtures/example (with a ledger
# and a pending candidate added to a copy), of the 519-record ADR corpus (benches/data/adr) and
# of a generated store with receipts are loaded in headless Chromium and checked through the
# DevTools protocol (tests/viewer/check.mjs: counts against status, outcomes and admit --list,
# the search box, the timeline filter, paging, a phone's width, the dark scheme, no console
# error, no network request). Installs Debian's chromium when missing. `cargo test` never runs
# this; it checks the same pages' structure without a browser.
#
# Usage: tests/viewer/run.sh [path to the bmad-mem binary, default target/debug/bmad-mem]
#   SCREENSHOT=docs/view.png tests/viewer/run.sh   # also keeps the example page's screenshot
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
binary="$(realpath "${1:-target/debug/bmad-mem}")"

chromium="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$chromium" ]; then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "installing chromium from Debian's packages" >&2
	$sudo apt-get install -y chromium >/dev/null 2>&1 ||
		{ $sudo apt-get update >/dev/null && $sudo apt-get install -y chromium >/dev/null; }
	chromium="$(command -v chromium)"
fi

work="$(realpath "$(mktemp -d)")"
trap 'rm -rf "$work"' EXIT
# Fixed clock and actor, so the pages (and the screenshot) are the same at every run.
export BMAD_MEM_NOW=2026-10-18T09:30:00.000Z TZ=UTC GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export HOME="$work/home"
mkdir -p "$HOME"

# check <name> <project> [screenshot]: the page of <project>, written outside it, and the
# commands' own counts.
check() {
	local name=$1 project=$2 shot=${3:-}
	"$binary" -d "$project" view --out "$work/$name.html" >/dev/null
	"$binary" -d "$project" status --json >"$work/$name.status.json"
	"$binary" -d "$project" outcomes --json >"$work/$name.outcomes.json"
	"$binary" -d "$project" --json admit --list >"$work/$name.admit.json"
	echo "# $name" >&2
	node tests/viewer/check.mjs "$chromium" "$work/$name.html" "$work/$name.status.json" \
		"$work/$name.outcomes.json" "$work/$name.admit.json" $shot
}

# The example project, with its decisions in the ledger and one candidate waiting.
cp -R fixtures/example "$work/example"
"$binary" -d "$work/example" decision adopt --all --actor atlas >/dev/null
"$binary" -d "$work/example" propose --type lesson --source scout \
	--title "Smoke tests name the environment they hit" \
	--body "Print API_BASE_URL before the first request, so a run against production shows at once." >/dev/null
check example "$work/example" "${SCREENSHOT:+$work/example.png}"
if [ -n "${SCREENSHOT:-}" ]; then
	cp "$work/example.png" "$root/$SCREENSHOT"
fi

# The ADR corpus: 485 decisions, 16 lessons, 18 patterns of real records (read-only here).
check adr-corpus "$root/benches/data/adr/corpus"

# A generated store with Nexus runs and receipts (the benchmarks' generator).
gen="target/debug/examples/gen-store"
[ -x "$gen" ] || cargo build --quiet --example gen-store
"$gen" --size typical --receipts 40 --out "$work/receipts" >/dev/null
# The section the first receipt binds is edited: its receipts become stale-memory-section.
"$binary" -d "$work/receipts" outcomes --json >"$work/receipts.before.json"
node -e '
const fs = require("fs");
const [outcomes, root] = process.argv.slice(1);
const { file, heading } = JSON.parse(fs.readFileSync(outcomes, "utf8")).results[0].memory;
const path = root + "/" + file;
const text = fs.readFileSync(path, "utf8");
fs.writeFileSync(path, text.replace("### " + heading + "\n", "### " + heading + "\nEdited after it was observed.\n"));
' "$work/receipts.before.json" "$work/receipts"
check receipts "$work/receipts"
echo "viewer: every page checked in $("$chromium" --version 2>/dev/null | head -1)" >&2
