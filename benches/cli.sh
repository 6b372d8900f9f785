#!/usr/bin/env bash
# Whole-process benchmarks of bmad-mem against docs §11's targets.
#
#   benches/cli.sh                 # build, generate stores, measure, print Markdown tables
#   QUIET_WAIT=0 benches/cli.sh    # do not wait for a quiet machine
#   KEEP=1 benches/cli.sh          # keep the stores and hyperfine's JSON (path printed)
#
# Builds the release binary and the `gen-store` example, generates a typical store
# (200 events, 150 sections), a full store (journal and six note files each just under
# 2 MiB, ≈14 MiB), a portfolio brain (three more 2 MiB note files) and the growth series
# (10/25/50 % of full) and a typical store with 5 Nexus runs of 200 accepted tasks and 1,000
# receipts, then times each command with hyperfine (no shell, warm page cache)
# and measures peak RSS with GNU time. hyperfine and GNU time are installed from Debian's
# packages when missing. The clock is pinned with BMAD_MEM_NOW; write and reinforce reset
# their files before every run (hyperfine --prepare) so the journal never reaches its cap;
# observe adds the 1,000th receipt to a store of 999, restored before every run. Beside
# outcomes, the baseline docs §11 compares it with: sha256sum of every file the runs name, once.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
QUIET_WAIT=${QUIET_WAIT:-600} # seconds to wait for a 1-minute load average below QUIET_LOAD
QUIET_LOAD=${QUIET_LOAD:-0.5}

log() { printf '%s\n' "$*" >&2; }

install_pkg() {
	local sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	log "installing $1 from Debian's packages"
	$sudo apt-get install -y "$1" >/dev/null 2>&1 ||
		{ $sudo apt-get update >/dev/null && $sudo apt-get install -y "$1" >/dev/null; }
}
command -v hyperfine >/dev/null || install_pkg hyperfine
[ -x /usr/bin/time ] || install_pkg time
command -v python3 >/dev/null || command -v jq >/dev/null || install_pkg jq

log "building (release)"
cargo build --release --quiet --bin bmad-mem --example gen-store
BIN=$ROOT/target/release/bmad-mem
GEN=$ROOT/target/release/examples/gen-store

# Nexus compares run.project with the real path of the project: no link in the stores' path.
WORK=$(realpath "$(mktemp -d "${TMPDIR:-/tmp}/bmad-mem-bench.XXXXXX")")
if [ "${KEEP:-0}" = 1 ]; then log "keeping $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p "$WORK/json"

log "generating stores in $WORK"
"$GEN" --size typical --out "$WORK/typical" >/dev/null
"$GEN" --size full --out "$WORK/full" >/dev/null
"$GEN" --size full --brain --seed 2 --out "$WORK/brain" >/dev/null
for pct in 10 25 50; do "$GEN" --size "$pct%" --out "$WORK/grow-$pct" >/dev/null; done
"$GEN" --size typical --receipts 1000 --out "$WORK/receipts" >/dev/null
ln -s full "$WORK/grow-100"
for store in typical grow-50; do
	cp "$WORK/$store/.bmad/memory/journal.ndjson" "$WORK/$store.journal"
done
# The stores are ≈ 60 MiB of fresh dirty pages: flushed now, or the kernel writes them back
# while the first commands are being timed.
log "flushing the stores to disk"
sync
# --prepare helpers. Each flushes what it changed, so the fsync of the timed write or reinforce
# pays only for its own record, not for the copy's dirty pages.
# shellcheck disable=SC2016 # $1 and $2 belong to the helper scripts
printf '#!/bin/sh\ncp "$1" "$2" && sync "$2"\n' >"$WORK/reset-journal"
# shellcheck disable=SC2016
printf '#!/bin/sh\nrm -f "$1/pattern-scores.json" "$1/promotions.ndjson" && sync "$1"\n' >"$WORK/reset-scores"
chmod +x "$WORK/reset-journal" "$WORK/reset-scores"

# Bytes a recall reads: the journal and the note files of a project (and a brain).
bytes_of() { find -L "$@" -type f \( -name '*.md' -o -name '*.ndjson' \) -printf '%s\n' | awk '{s+=$1} END {print s+0}'; }

load1() { cut -d' ' -f1 /proc/loadavg; }
is_quiet() { awk -v l="$(load1)" -v q="$QUIET_LOAD" 'BEGIN {exit !(l < q)}'; }
waited=0
until is_quiet || [ "$waited" -ge "$QUIET_WAIT" ]; do
	[ "$waited" = 0 ] && log "waiting for a quiet machine (load $(load1), want < $QUIET_LOAD)"
	sleep 15
	waited=$((waited + 15))
done
LOAD_START=$(load1)
is_quiet || log "WARNING: measuring under load (1-minute load average $LOAD_START)"

export BMAD_MEM_NOW=2026-10-18T09:30:00.000Z
QUERY="rate limit auth-middleware session"
JOURNAL=.bmad/memory/journal.ndjson

# bench NAME PREPARE COMMAND: hyperfine without a shell; PREPARE may be empty.
bench() {
	local name=$1 prepare=$2 cmd=$3
	local args=(-N --warmup 10 --min-runs 40 --style none --export-json "$WORK/json/$name.json")
	[ -n "$prepare" ] && args+=(--prepare "$prepare")
	log "timing $name"
	hyperfine "${args[@]}" "$cmd" >/dev/null
	# Peak RSS: the largest of five runs, in KiB. eval honours the quotes as hyperfine does.
	local rss=0 r _
	for _ in 1 2 3 4 5; do
		[ -z "$prepare" ] || eval "$prepare"
		eval "/usr/bin/time -f %M -o $WORK/rss.tmp $cmd" >/dev/null 2>&1
		r=$(tail -1 "$WORK/rss.tmp")
		[ "$r" -gt "$rss" ] && rss=$r
	done
	echo "$rss" >"$WORK/json/$name.rss"
}

# stats NAME [INDEX]: "median_ms p95_ms min_ms runs" of a command in hyperfine's JSON. The minimum is the least
# disturbed by other processes on a shared machine, so it is shown beside the median.
stats() {
	if command -v python3 >/dev/null; then
		python3 - "$WORK/json/$1.json" "${2:-0}" <<-'EOF'
			import json, math, sys
			r = json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]
			t = sorted(r["times"])
			p95 = t[math.ceil(0.95 * len(t)) - 1]
			print(f'{r["median"] * 1e3:.2f} {p95 * 1e3:.2f} {r["min"] * 1e3:.2f} {len(t)}')
		EOF
	else
		jq -r --argjson i "${2:-0}" '.results[$i] | (.times | sort) as $t
			| [.median * 1000, $t[(($t | length) * 0.95 | ceil) - 1] * 1000, .min * 1000, ($t | length)]
			| map(if . == (. | floor) then . else (. * 100 | round / 100) end) | map(tostring) | join(" ")' \
			"$WORK/json/$1.json"
	fi
}

T=$WORK/typical F=$WORK/full R=$WORK/receipts
OUTCOMES=.bmad/memory/outcomes.ndjson
bench recall-typical "" "$BIN -d $T recall $QUERY --json"
bench recall-full "" "$BIN -d $F recall $QUERY --json"
bench recall-bm25-full "" "$BIN -d $F recall $QUERY --ranking bm25 --json"
bench lint "" "$BIN -d $F lint --json"
bench lint-full "" "$BIN -d $F lint --full --json"
bench recall-portfolio "" "$BIN -d $F recall $QUERY --scope portfolio --portfolio $WORK/brain --json"
bench recall-evidence "" "$BIN -d $T recall $QUERY --ranking evidence --context-scope src --json"
bench write "$WORK/reset-journal $WORK/typical.journal $T/$JOURNAL" \
	"$BIN -d $T write --agent forge --cli claude-code --model claude-sonnet-4-5 --task 'Add login rate limit' --outcome success --ci pass --json"
bench write-1MiB "$WORK/reset-journal $WORK/grow-50.journal $WORK/grow-50/$JOURNAL" \
	"$BIN -d $WORK/grow-50 write --agent forge --task 'Add login rate limit' --outcome success --ci pass --json"
bench reinforce "$WORK/reset-scores $T/.bmad/memory" \
	"$BIN -d $T reinforce --pattern 'Rate limit on auth routes' --accept true --ci pass --json"
bench help "" "$BIN --help"
bench outcomes "" "$BIN -d $R outcomes"
bench observe "$WORK/reset-journal $R/.bench/outcomes-but-last.ndjson $R/$OUTCOMES" \
	"$BIN -d $R observe --input .bench/observe-input.json --json"
bench recall-evidence-receipts "" "$BIN -d $R recall $QUERY --ranking evidence --context-scope src --json"
# The baseline: one process hashing every file the runs name (the run files, the 3,000 scope
# files, the resource, the real /bin/sh), each once. Run from the project so the paths are
# relative: one argument of hyperfine may not exceed 128 KiB.
(cd "$R" && bench sha256-runs "" "sha256sum $(tr '\n' ' ' <.bench/nexus-files.txt)")
# The growth series in one hyperfine call, so the four sizes are measured back to back and a
# change in the machine's speed between them (it is shared) does not bend the curve.
log "timing the growth series"
hyperfine -N --warmup 5 --min-runs 40 --style none --export-json "$WORK/json/growth.json" \
	"$BIN -d $WORK/grow-10 recall $QUERY --json" "$BIN -d $WORK/grow-25 recall $QUERY --json" \
	"$BIN -d $WORK/grow-50 recall $QUERY --json" "$BIN -d $WORK/grow-100 recall $QUERY --json" >/dev/null
# --ranking bm25 beside lexical recall, back to back in one hyperfine call per store, so a change
# in the machine's speed between two calls does not enter the ratio of their medians.
for store in typical full; do
	log "timing recall --ranking bm25 beside lexical recall ($store)"
	hyperfine -N --warmup 5 --min-runs 40 --style none --export-json "$WORK/json/bm25-$store.json" \
		"$BIN -d $WORK/$store recall $QUERY --json" \
		"$BIN -d $WORK/$store recall $QUERY --ranking bm25 --json" >/dev/null
done
LOAD_END=$(load1)

# row NAME LABEL BYTES TARGET_MS: one line of the main table.
row() {
	local name=$1 label=$2 bytes=$3 target=$4 median p95 min runs rss verdict
	read -r median p95 min runs <<<"$(stats "$name")"
	rss=$(cat "$WORK/json/$name.rss")
	if [ "$target" = - ]; then
		verdict="—"
	elif awk -v m="$median" -v t="$target" 'BEGIN {exit !(m <= t)}'; then
		verdict="≤ $target ms ✅"
	else
		verdict="≤ $target ms ❌"
	fi
	local mib
	mib=$(awk -v b="$bytes" 'BEGIN {if (b >= 1024000) printf "%.1f MiB", b / 1048576; else if (b > 0) printf "%.0f KiB", b / 1024; else printf "—"}')
	# The ratio only means something once the store outweighs the process's own ≈2 MiB.
	local ratio="—"
	[ "$bytes" -ge 1048576 ] && ratio=$(awk -v r="$rss" -v b="$bytes" 'BEGIN {printf "%.2f×", r * 1024 / b}')
	printf '| %s | %s | %s ms | %s ms | %s ms | %s | %.1f MiB (%s) | %s |\n' \
		"$label" "$mib" "$median" "$p95" "$min" "$runs" "$(awk -v r="$rss" 'BEGIN {print r / 1024}')" "$ratio" "$verdict"
}

BT=$(bytes_of "$T/.bmad" "$T/.agents")
BF=$(bytes_of "$F/.bmad" "$F/.agents")
BP=$(bytes_of "$F/.bmad" "$F/.agents" "$WORK/brain/memory")
BW=$(stat -c %s "$WORK/typical.journal")
BW50=$(stat -c %s "$WORK/grow-50.journal")
# outcomes reads the receipt store, the lessons file and every file the runs name.
BH=$(cd "$R" && xargs -a .bench/nexus-files.txt stat -L -c %s | awk '{s+=$1} END {print s+0}')
BO=$((BH + $(stat -c %s "$R/$OUTCOMES") + $(stat -c %s "$R/.agents/memory/lessons.md")))
BR=$((BO + $(bytes_of "$R/.bmad" "$R/.agents") - $(stat -c %s "$R/$OUTCOMES")))
read -r BASE _ <<<"$(stats sha256-runs)"
OUT_TARGET=$(awk -v b="$BASE" 'BEGIN {printf "%.2f", 1.5 * b}')
read -r RECALL_FULL _ <<<"$(stats recall-full)"
LINT_TARGET=$(awk -v r="$RECALL_FULL" 'BEGIN {printf "%.2f", 10 * r}')

echo "Measured $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores ($(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(hyperfine --version), load average $LOAD_START at start, $LOAD_END at end."
echo
echo "| command | bytes read | median | p95 | min | runs | peak RSS (× bytes read) | docs §11 target |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
row recall-typical "\`recall\`, typical store" "$BT" 3
row recall-full "\`recall\`, full store" "$BF" 40
row recall-bm25-full "\`recall --ranking bm25\`, full store" "$BF" -
row lint "\`lint\`, full store" "$BF" 1000
row lint-full "\`lint --full\`, full store" "$BF" "$LINT_TARGET"
row recall-portfolio "\`recall --scope portfolio\`, full store + 6 MiB brain" "$BP" -
row recall-evidence "\`recall --ranking evidence --context-scope src\`, typical, no receipts" "$BT" 3
row write "\`write\` (typical journal, $((BW / 1024)) KiB)" "$BW" 3
row write-1MiB "\`write\` (journal at 1 MiB)" "$BW50" -
row reinforce "\`reinforce\` (fresh scores file)" 0 3
row help "\`--help\`" 0 2
row outcomes "\`outcomes\`, 1,000 receipts (5 runs × 200 tasks)" "$BO" "$OUT_TARGET"
row observe "\`observe\` (1,000th receipt, store of 999)" 0 -
row recall-evidence-receipts "\`recall --ranking evidence --context-scope src\`, typical + 1,000 receipts" "$BR" -
row sha256-runs "baseline: \`sha256sum\` of the runs' $(wc -l <"$R/.bench/nexus-files.txt") files, once" "$BH" -
echo
awk -v o="$(stats outcomes | cut -d' ' -f1)" -v b="$BASE" \
	'BEGIN {printf "outcomes / sha256 baseline (medians): %.2f× (target ≤ 1.5×).\n", o / b}'
awk -v l="$(stats lint-full | cut -d' ' -f1)" -v r="$RECALL_FULL" \
	'BEGIN {printf "lint --full / recall on the full store (medians): %.2f× (target ≤ 10×).\n", l / r}'
for store in typical full; do
	awk -v l="$(stats "bm25-$store" 0 | cut -d' ' -f1)" -v b="$(stats "bm25-$store" 1 | cut -d' ' -f1)" -v s="$store" \
		'BEGIN {printf "recall --ranking bm25 / recall on the %s store, one hyperfine call (medians %.2f / %.2f ms): %.2f× (target on the full store ≤ 1.5×).\n", s, b, l, b / l}'
done

echo
echo "Growth: \`recall\` over 10/25/50/100 % of a full store (every file filled to that share of 2 MiB)."
echo
echo "| share | bytes read | median | p95 | min | median ms per MiB |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
series=""
i=0
for pct in 10 25 50 100; do
	b=$(bytes_of "$WORK/grow-$pct/.bmad" "$WORK/grow-$pct/.agents")
	read -r median p95 min _ <<<"$(stats growth "$i")"
	i=$((i + 1))
	series="$series $b:$median:$min"
	awk -v p="$pct" -v b="$b" -v m="$median" -v q="$p95" -v c="$min" \
		'BEGIN {printf "| %d %% | %.2f MiB | %s ms | %s ms | %s ms | %.2f |\n", p, b / 1048576, m, q, c, m / (b / 1048576)}'
done
echo
# Least-squares fit of time = a + b × MiB over the series, for the median and the minimum.
fit() {
	echo "$series" | tr ' ' '\n' | awk -F: -v col="$1" -v what="$2" 'NF == 3 {
		x = $1 / 1048576; y = $col; n++; sx += x; sy += y; sxx += x * x; sxy += x * y; syy += y * y
	} END {
		b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n
		r = (n * sxy - sx * sy) / sqrt((n * sxx - sx * sx) * (n * syy - sy * sy))
		printf "Linear fit: %s ≈ %.2f ms + %.2f ms/MiB × bytes read (r² = %.4f).\n", what, a, b, r * r
	}'
}
fit 2 median
echo
fit 3 minimum
